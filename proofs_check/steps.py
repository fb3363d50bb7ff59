"""What a proof step is, the registry the step modules fill, and the means of proving a step.

:class:`Step` and :class:`StepResult`, the :data:`REGISTRY` and its decorator :func:`register`;
then the proof helpers the step modules (:mod:`proofs_check.rp14`, :mod:`proofs_check.pt11`) build
their checks from: exact identities (:func:`identity`), signs of factored differences
(:func:`sign_of`, :func:`nonneg`), rigorous interval bounds (:func:`interval_positive`), and a
grid search that only ever *refutes* (:func:`search_negative`).  It imports only sympy and mpmath.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Optional, Sequence, Tuple

import mpmath
import sympy as sp
from mpmath import iv

__all__ = [
    "Step",
    "StepResult",
    "REGISTRY",
    "register",
    "ok",
    "bad",
    "is_zero",
    "identity",
    "poly_nonneg",
    "sign_of",
    "nonneg",
    "search_negative",
    "interval_positive",
    "combine",
]


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------


@dataclass
class StepResult:
    """Outcome of one check.

    Attributes
    ----------
    holds : bool
        ``True`` iff the step was *proved* (symbolically or by interval arithmetic).
    method : str
        Short name of the argument used (``identity``, ``factored sign``, ``derivative``, ...).
    detail : str
        Human-readable explanation: the factored difference, the counterexample, ...
    """

    holds: bool
    method: str
    detail: str = ""


@dataclass
class Step:
    """A named proof step.

    Attributes
    ----------
    id : str
        Identifier such as ``"RP14.eq7"`` or ``"PT11.eq6.printed"``.
    paper : str
        ``"RP14"`` or ``"PT11"``.
    equation : str
        Where the step sits in the paper (``"eq. (7)"``, ``"Thm. 1 proof"``, ...).
    description : str
        The statement being checked.
    func : callable
        ``func(**kwargs) -> StepResult``; its keyword arguments are the constants it checks.
    expected : bool
        ``True`` if the statement is correct, ``False`` if it is wrong as printed.
    perturb : dict or None
        Keyword arguments for ``func`` that make the statement false (for ``expected=True``).
    corrected : str or None
        Corrected form for steps that are wrong as printed.
    """

    id: str
    paper: str
    equation: str
    description: str
    func: Callable[..., StepResult]
    expected: bool = True
    perturb: Optional[Dict[str, Any]] = None
    corrected: Optional[str] = None

    def run(self, **kwargs: Any) -> StepResult:
        """Run the check (with optional overriding constants)."""
        try:
            return self.func(**kwargs)
        except Exception as exc:  # a crash is never a proof
            return StepResult(False, "error", f"{type(exc).__name__}: {exc}")

    def run_perturbed(self) -> StepResult:
        """Run the check with the registered perturbation."""
        if self.perturb is None:
            raise ValueError(f"step {self.id} has no perturbation")
        return self.run(**self.perturb)


REGISTRY: Dict[str, Step] = {}


def register(
    id: str,
    paper: str,
    equation: str,
    description: str,
    expected: bool = True,
    perturb: Optional[Dict[str, Any]] = None,
    corrected: Optional[str] = None,
) -> Callable[[Callable[..., StepResult]], Callable[..., StepResult]]:
    """Decorator registering a step function under ``id``."""

    def deco(func: Callable[..., StepResult]) -> Callable[..., StepResult]:
        if id in REGISTRY:
            raise ValueError(f"duplicate step id {id}")
        if expected and perturb is None:
            raise ValueError(f"step {id} expected to hold needs a perturbation")
        REGISTRY[id] = Step(id, paper, equation, description, func, expected, perturb, corrected)
        return func

    return deco


# --------------------------------------------------------------------------------------------
# Proof helpers
# --------------------------------------------------------------------------------------------


def ok(method: str, detail: str = "") -> StepResult:
    return StepResult(True, method, detail)


def bad(method: str, detail: str = "") -> StepResult:
    return StepResult(False, method, detail)


def is_zero(expr: sp.Expr) -> bool:
    """Exact zero test: ``simplify`` (after log/power expansion) reduces ``expr`` to 0."""
    expr = sp.sympify(expr)
    try:
        if expr.is_rational_function():
            return sp.cancel(sp.together(expr)) == 0  # decisive for rational functions
    except Exception:  # pragma: no cover
        pass
    for f in (
        sp.expand,
        lambda e: sp.simplify(e),
        lambda e: sp.simplify(sp.expand_log(sp.expand_power_base(sp.powsimp(e, force=True), force=True), force=True)),
        lambda e: sp.simplify(sp.powdenest(sp.expand(e), force=True)),
    ):
        try:
            if f(expr) == 0:
                return True
        except Exception:  # pragma: no cover - sympy corner cases
            continue
    return False


def identity(lhs: sp.Expr, rhs: sp.Expr, what: str = "") -> StepResult:
    """Check ``lhs == rhs`` exactly."""
    d = sp.sympify(lhs) - sp.sympify(rhs)
    if is_zero(d):
        return ok("identity", f"simplify(lhs - rhs) = 0{': ' + what if what else ''}")
    return bad("identity", f"lhs - rhs = {sp.simplify(d)} != 0{': ' + what if what else ''}")


def poly_nonneg(expr: sp.Expr, syms: Sequence[sp.Symbol]) -> Optional[bool]:
    """``True`` if ``expr`` is a polynomial in the (non-negative) ``syms`` with all coefficients
    non-negative numbers; ``False`` if it is such a polynomial with a negative coefficient;
    ``None`` otherwise."""
    e = sp.expand(expr)
    if e == 0:
        return True
    try:
        p = sp.Poly(e, *syms)
    except sp.PolynomialError:
        return None
    coeffs = p.coeffs()
    if not all(c.is_number for c in coeffs):
        # coefficients involving other symbols: fall back to sympy's assumptions
        if all(c.is_nonnegative for c in coeffs):
            return True
        return None
    return all(c >= 0 for c in coeffs)


def _factor_sign(fac: sp.Expr, syms: Sequence[sp.Symbol]) -> Optional[int]:
    """+1 if ``fac >= 0``, -1 if ``fac <= 0``, ``None`` if undetermined (symbols positive)."""
    if isinstance(fac, sp.Pow) and fac.exp.is_integer and fac.exp.is_even and fac.base.is_real:
        return 1
    if isinstance(fac, sp.Pow) and fac.exp.is_integer:
        s = _factor_sign(fac.base, syms)
        return None if s is None else (s if fac.exp % 2 else 1)
    if fac.is_nonnegative or poly_nonneg(fac, syms):
        return 1
    if fac.is_nonpositive or poly_nonneg(-fac, syms):
        return -1
    return None


def sign_of(expr: sp.Expr, syms: Sequence[sp.Symbol]) -> Tuple[Optional[int], str]:
    """Sign of ``expr`` when every symbol in ``syms`` is positive (declared ``positive=True``).

    Method: bring to one fraction, factor numerator and denominator, and classify every factor
    as non-negative or non-positive (a polynomial in the positive symbols whose coefficients all
    have one sign, or an expression sympy's assumption system recognises).

    Returns ``(+1, how)`` if ``expr >= 0`` was shown, ``(-1, how)`` if ``expr <= 0`` was shown,
    ``(None, why)`` otherwise.
    """
    expr = sp.sympify(expr)
    if is_zero(expr):
        return 1, "difference is identically 0"
    t = sp.together(sp.expand(expr))
    num, den = sp.fraction(t)
    num, den = sp.factor(num), sp.factor(den)
    sign = 1
    for part in (num, den):
        for fac in (part.args if isinstance(part, sp.Mul) else (part,)):
            s = _factor_sign(fac, syms)
            if s is None:
                return None, f"sign of factor {fac} not determined"
            sign *= s
    shown = num / den
    if sign > 0:
        return 1, f"factored difference {shown} >= 0"
    return -1, f"factored difference {shown} <= 0"


def nonneg(expr: sp.Expr, syms: Sequence[sp.Symbol], counter: Optional[Callable[[], Optional[str]]] = None,
           what: str = "") -> StepResult:
    """Prove ``expr >= 0`` for positive ``syms`` by :func:`sign_of`; if that fails, report the
    counterexample found by ``counter`` (if any)."""
    s, how = sign_of(expr, syms)
    if s == 1:
        return ok("factored sign", f"{what + ': ' if what else ''}{how}")
    ce = counter() if counter else None
    return bad("factored sign", f"{what + ': ' if what else ''}{how}" + (f"; counterexample {ce}" if ce else ""))


def search_negative(f: Callable[..., Any], grids: Sequence[Iterable[Any]], strict: bool = False,
                    prec: int = 50) -> Optional[str]:
    """Exhibit a grid point where ``f < 0`` (``<= 0`` if ``strict``), evaluated with ``prec``
    decimal digits.  Used only to *refute* a step, never to prove one."""
    def _mp(val):
        if isinstance(val, sp.Basic):
            return mpmath.mpf(sp.Float(val, prec + 10))
        return mpmath.mpf(val)

    with mpmath.workdps(prec):
        for pt in itertools.product(*[list(g) for g in grids]):
            try:
                v = _mp(f(*[_mp(x) for x in pt]))
            except (ZeroDivisionError, ValueError):
                continue
            if v < 0 or (strict and v == 0):
                return f"at {tuple(mpmath.nstr(mpmath.mpf(x), 6) for x in pt)}: value {mpmath.nstr(v, 6)}"
    return None


def interval_positive(
    f: Callable[..., Any],
    box: Sequence[Tuple[float, float]],
    strict: bool = True,
    max_boxes: int = 4000,
    prec: int = 53,
) -> Tuple[bool, str]:
    """Rigorously show ``f > 0`` (``>= 0`` if not ``strict``) on the closed ``box`` with
    ``mpmath.iv`` interval arithmetic, bisecting the widest side until the interval lower bound is
    positive on every sub-box.

    Returns ``(proved, detail)``.  ``f`` must be written with ``iv`` functions (``iv.log``,
    ``iv.sqrt``, ``iv.exp``) so that it accepts interval arguments.
    """
    old = iv.prec
    iv.prec = prec
    try:
        stack = [[iv.mpf([lo, hi]) for lo, hi in box]]
        done = 0
        worst = None
        while stack:
            b = stack.pop()
            try:
                val = f(*b)
                lo = val.a
                good = lo > 0 if strict else lo >= 0
            except (ZeroDivisionError, ValueError):
                good = False
            if good:
                done += 1
                worst = lo if worst is None or lo < worst else worst
                continue
            if done + len(stack) + 2 > max_boxes:
                mid = [mpmath.mpf(x.mid) for x in b]
                return False, f"interval bound not positive near {tuple(mpmath.nstr(m, 6) for m in mid)}"
            widths = [x.delta for x in b]
            i = max(range(len(b)), key=lambda j: widths[j])
            m = b[i].mid
            left, right = list(b), list(b)
            left[i] = iv.mpf([b[i].a, m])
            right[i] = iv.mpf([m, b[i].b])
            stack.extend([left, right])
        return True, f"interval lower bound > 0 on all {done} boxes (min lower bound {mpmath.nstr(worst, 4)})"
    finally:
        iv.prec = old


def combine(*results: StepResult, method: Optional[str] = None) -> StepResult:
    """Conjunction of sub-results."""
    holds = all(r.holds for r in results)
    meth = method or " + ".join(dict.fromkeys(r.method for r in results))
    det = "; ".join(r.detail for r in results if (not holds and not r.holds) or holds)
    return StepResult(holds, meth, det)
