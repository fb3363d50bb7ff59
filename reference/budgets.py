"""Default budgets sized to the problem, what a run that stopped at its budget got to, and the
accuracy below which float64 cannot certify ||p||_G.

``max_iter=None`` (the default of the ten public functions, the ``margins run`` default and the
validation harness's) means *sized*: the paper's iteration bound for this instance, where it is
finite and not vacuous, times :data:`SAFETY`, at least :data:`FLOOR` and at most :data:`CEILING`
(:data:`FALLBACK` -- the former fixed defaults -- where there is no finite bound: data not
certified separable, a margin that could not be computed, or a Gram matrix too large to certify
one cheaply).  The bounds (:mod:`reference.paper_bounds`) need the certified margin, which is
computed only when ``max_iter`` is not given (:func:`reference.margin_from_data`: about 0.2 s on
a9a; :func:`reference.margin` of G up to :data:`SIZING_N` points: under a second at n = 500, a
few seconds at 2000):

* Perceptron: R^2/rho^2 (Block-Novikoff); Normalized Perceptron: 1/rho_2^2 (R^2/rho^2 without
  normalizing); NKP: 1/rho_K^2; SNKP: 2 sqrt(2 log n)/rho_K  [RP14 Sec. 2, 3.2, Thm. 1];
* NVN: 1/eps^2 (no margin needed)  [RP14 Sec. 5.1];
* SNKPVN: 2 sqrt(2n)/rho_K when rho_K > 0, Lemma 9 (corrected Lemma 7) when rho_K < 0; ISNKPVN:
  Thm. 4's total  [RP14 Lemmas 8, 9, Thm. 4];
* PFM: Thm. 1 with eps = 1 - beta/gamma_d; PDM and PDM-succ: Thm. 2 where twice it is within the
  CEILING, else -- for eps < 1/2 Thm. 2 grows like (R/gamma_d)^(1/eps), vacuous -- Thm. 1's bound at the same eps,
  the number of updates of PFM with the margin PDM's runs reach: a scale PDM's runs follow in
  practice (a9a at eps = 0.01: 18,325,620 updates against 2.2e8), not a bound proved for PDM
  [PT11 Thms. 1, 2].

A trace holds one state per iteration: with ``trace=True`` the sized budget is at most the
FALLBACK.  :func:`budget_report` says, for a run that stopped at its budget, how far it got (the
quantity its theorem bounds) and what budget would likely suffice; the public functions append
it to ``Result.message`` when the budget was sized.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import paper_bounds
from .arithmetic import arithmetic, factored_norm_floor, g_norm_floor

__all__ = [
    "CEILING",
    "FLOOR",
    "SAFETY",
    "SIZING_N",
    "FALLBACK",
    "Budget",
    "from_bound",
    "pt11_budget",
    "sized_budget",
    "default_budget",
    "accuracy_floor",
    "check_certifiable",
    "budget_report",
]

#: The most iterations (updates for PT11) a sized default ever grants.
CEILING = 100_000_000
#: The fewest.
FLOOR = 1_000
#: The sized budget is this many times the bound (round-off, the margin's interval).
SAFETY = 2
#: Largest n for which the certified margin of a dense G is computed to size a budget.
SIZING_N = 2_000
#: The budgets where no finite bound is known (the former fixed defaults).
FALLBACK = {
    "perceptron": 100_000, "normalized_perceptron": 100_000, "nkp": 100_000, "snkp": 10_000, "nvn": 100_000,
    "snkpvn": 10_000, "isnkpvn": 100_000, "pfm": 1_000_000, "pdm": 1_000_000, "pdm_succ": 1_000_000,
}  # fmt: skip


@dataclass(frozen=True)
class Budget:
    """A sized budget.

    Attributes
    ----------
    max_iter : int
        The budget on the paper's counter.
    bound : float
        The bound it was sized from (``math.inf`` when none is finite).
    basis : str
        Where the bound comes from, in words, with the values it was taken at.
    margin : float or None
        The certified lower end of the margin the bound used (``None``: none used or none known).
    """

    max_iter: int
    bound: float
    basis: str
    margin: Optional[float] = None

    @property
    def capped(self) -> bool:
        """The bound times SAFETY was above the CEILING."""
        return math.isfinite(self.bound) and SAFETY * self.bound > self.max_iter

    def describe(self) -> str:
        """The budget in words: ``sized: 2 x 2.245e+08, capped at the ceiling; <basis>``."""
        if not math.isfinite(self.bound):
            return f"the fallback; {self.basis}"
        how = f"sized: {SAFETY} x {self.bound:.4g}" + (", capped at the ceiling" if self.capped else "")
        return f"{how}; {self.basis}"


def from_bound(name: str, bound: float, basis: str, margin: Optional[float] = None, trace: bool = False) -> Budget:
    """SAFETY * bound, within [FLOOR, CEILING] (FALLBACK when the bound is not finite; at most the
    FALLBACK with ``trace``)."""
    top = FALLBACK[name] if trace else CEILING
    if not (isinstance(bound, (int, float)) and math.isfinite(bound) and bound >= 0):
        return Budget(min(FALLBACK[name], top), math.inf, basis, margin)
    return Budget(int(min(top, max(FLOOR, math.ceil(SAFETY * bound) + 2))), float(bound), basis, margin)


def _g(x: float) -> str:
    return f"{x:.4g}"


def pt11_budget(name: str, accuracy: float, margin, trace: bool = False) -> Budget:
    """The sized budget of PDM / PDM-succ (``accuracy`` = epsilon, the final one) or PFM (``accuracy``
    = beta), from a :class:`reference.DataMargin` of the same patterns (its R and certified lower end)."""
    R, lo = float(margin.R), float(margin.lower)
    if margin.separable is not True or not lo > 0:
        why = "certified NOT separable (Gordan)" if margin.separable is False else "not certified separable"
        return from_bound(name, math.inf, f"no update bound: the patterns are {why} (PT11's theorems need gamma_d > 0)", None, trace)
    at = f"R = {_g(R)}, gamma_d >= {_g(lo)} (certified)"
    if name == "pfm":
        beta = float(accuracy)
        if not beta < lo:
            return from_bound(name, math.inf, f"no update bound: beta = {_g(beta)} is not below the certified gamma_d >= {_g(lo)} "
                              "(PFM converges only for beta < gamma_d)", lo, trace)
        eps = 1.0 - beta / lo
        return from_bound(name, paper_bounds.pfm_theorem1(R, lo, eps), f"PT11 Thm. 1 at eps = 1 - beta/gamma_d = {_g(eps)}, {at}", lo, trace)
    eps = float(accuracy)
    thm2 = paper_bounds.pdm_theorem2(R, lo, eps)
    thm1 = paper_bounds.pfm_theorem1(R, lo, eps)
    if math.isfinite(thm2) and SAFETY * thm2 <= CEILING:  # the bound proved for PDM, where it is not vacuous
        return from_bound(name, thm2, f"PT11 Thm. 2 at eps = {_g(eps)}, {at}", lo, trace)
    vac = "vacuous" if not math.isfinite(thm2) else _g(thm2)
    return from_bound(name, thm1, f"PT11 Thm. 1 (PFM's bound at the same eps; Thm. 2 for PDM: {vac}) at eps = {_g(eps)}, {at}",
                      lo, trace)


def _rho_K(G) -> tuple:
    """(lower, upper) of the certified rho_K of a dense G or the linear kernel's operator, or a reason (str)."""
    from .margins import margin, margin_from_data

    Z = getattr(G, "Z", None)
    if Z is not None:  # the operator G = Z Z^T on normalized rows: rho_K = rho_2 of the rows of Z
        M = margin_from_data(Z, np.ones(Z.shape[0]), normalize=True)
        return float(M.lower), float(M.upper)
    shape = np.shape(G)  # (margin validates G: a G that is no matrix is its ValueError)
    if len(shape) == 2 and shape[0] > SIZING_N:
        return f"n = {shape[0]} > {SIZING_N}: rho_K not computed to size the budget"
    M = margin(G)
    return float(M.lower), float(M.upper)


def sized_budget(name: str, data, *args, rho=None, Delta=None, normalize: bool = True, trace: bool = False) -> Budget:
    """The sized default budget of ``name`` on ``data`` (G, or the pair (X, y)) with its positional
    arguments ``args`` as :data:`reference.algorithms.SPECS` orders them; ``rho``, ``Delta`` (PT11)
    and ``normalize`` (Normalized Perceptron) as the call has them.  Computes the certified margin.

    Raises ValueError (or TypeError) on arguments the algorithm itself would refuse; the public
    functions then fall back to :data:`FALLBACK` and let the algorithm raise its own error.
    """
    from .margins import margin_from_data

    if name == "nvn":
        (eps,) = args
        return from_bound(name, paper_bounds.nvn(float(eps)), f"RP14 Sec. 5.1: 1/eps^2 at eps = {_g(float(eps))}", None, trace)
    if name in ("pdm", "pdm_succ", "pfm"):
        X, y = data
        return pt11_budget(name, args[0], margin_from_data(X, y, rho=rho, Delta=Delta), trace)
    if name in ("perceptron", "normalized_perceptron"):
        X, y = data
        unit = name == "normalized_perceptron" and normalize
        M = margin_from_data(X, y, rho=rho, normalize=unit)
        lo = float(M.lower)
        if M.separable is not True or not lo > 0:
            return from_bound(name, math.inf, "no iteration bound: the points are not certified separable", None, trace)
        if unit:
            return from_bound(name, paper_bounds.normalized_perceptron(lo), f"RP14 Sec. 2.1: 1/rho_2^2, rho_2 >= {_g(lo)} (certified)", lo, trace)
        R = float(M.R)
        return from_bound(name, paper_bounds.novikoff(R, lo), f"RP14 Sec. 2 (Block-Novikoff): R^2/rho^2, R = {_g(R)}, rho >= {_g(lo)} (certified)",
                          lo, trace)
    G = data
    got = _rho_K(G)
    if isinstance(got, str):
        return from_bound(name, math.inf, f"no iteration bound: {got}", None, trace)
    lo, hi = got
    n = np.shape(G)[0]  # G as passed: an array, a nested list or the linear operator
    at = f"rho_K >= {_g(lo)} (certified)" if lo > 0 else f"rho_K <= {_g(hi)} (certified)"
    if name in ("nkp", "snkp") or (name in ("snkpvn", "isnkpvn") and not (lo > 0 or hi < 0)):
        if not lo > 0:
            return from_bound(name, math.inf, "no iteration bound: G is not certified separable (rho_K > 0)", None, trace)
    if name == "nkp":
        return from_bound(name, paper_bounds.nkp(lo), f"RP14 Sec. 3.2: 1/rho_K^2, {at}", lo, trace)
    if name == "snkp":
        return from_bound(name, paper_bounds.snkp(lo, n), f"RP14 Thm. 1: 2 sqrt(2 log n)/rho_K, n = {n}, {at}", lo, trace)
    q = np.full(n, 1.0 / n) if name == "isnkpvn" else np.asarray(args[0], dtype=np.float64)
    Gq = G.matvec(q) if hasattr(G, "matvec") else np.asarray(G, dtype=np.float64) @ q
    q_norm = float(np.sqrt(max(float(q @ Gq), 0.0)))
    if name == "snkpvn":
        delta = float(args[1])
        if lo > 0:
            return from_bound(name, paper_bounds.snkpvn_feasible(lo, n), f"RP14 Lemma 8: 2 sqrt(2n)/rho_K, n = {n}, {at}", lo, trace)
        return from_bound(name, paper_bounds.snkpvn_infeasible(delta, n, q_norm, hi) + 1,
                          f"RP14 Lemma 9 (corrected Lemma 7) at delta = {_g(delta)}, n = {n}, {at}", hi, trace)
    gamma, eps = float(args[0]), float(args[1])
    rho = lo if lo > 0 else hi
    return from_bound(name, paper_bounds.isnkpvn_total(n, q_norm, rho, gamma, eps),
                      f"RP14 Thm. 4 at gamma = {_g(gamma)}, eps = {_g(eps)}, n = {n}, {at}", rho, trace)


def default_budget(name: str, data, *args, margin=None, rho=None, Delta=None, normalize: bool = True, trace: bool = False) -> Budget:
    """The default budget of ``name``: :func:`sized_budget` (PT11 with ``margin``, a DataMargin of
    the same patterns, when given: :func:`pt11_budget`), or the FALLBACK when sizing fails
    (arguments the algorithm refuses, a margin that cannot be computed).  Never raises: the
    algorithm itself names a bad argument.  The public functions (``max_iter=None``), ``margins
    run`` and the validation harness all take their default from here."""
    try:
        if margin is not None and name in ("pdm", "pdm_succ", "pfm"):
            return pt11_budget(name, args[0], margin, trace)
        return sized_budget(name, data, *args, rho=rho, Delta=Delta, normalize=normalize, trace=trace)
    except (ValueError, TypeError, ArithmeticError):  # a bad argument: the algorithm itself names it
        return from_bound(name, math.inf, "no iteration bound: the margin could not be computed", None, trace is True)


# -- the accuracy float64 can certify ---------------------------------------------------------------


def accuracy_floor(G, precision: Optional[int] = None) -> float:
    """The round-off floor of ||p||_G for this G: no p of the simplex has a rigorous upper bound on
    ||p||_G (:func:`reference.arithmetic.g_norm_upper`, the verifier's; ``factored_norm_upper`` for
    the linear kernel's operator) below it, in the arithmetic of ``precision``."""
    Z = getattr(G, "Z", None)
    if Z is not None:
        return factored_norm_floor(Z)
    ar = arithmetic(precision)
    with ar.context():
        return float(g_norm_floor(ar.array(G), ar))


def check_certifiable(name: str, accuracy, G, precision: Optional[int] = None) -> None:
    """Refuse an accuracy below :func:`accuracy_floor`: a ValueError naming ``precision=D``.

    Below the floor the float norm still "claims" certificates (its computed ||p||_G is round-off,
    often 0), every claim is re-checked and refused, and the run goes on to its budget: the outcome
    is known at the start.  (For n <= 32 the verifier decides p^T G p exactly, and a certificate
    below the floor verifies only where p^T G p cancels exactly -- e.g. two opposite points --
    which ``precision=D`` certifies as well.)  Arguments the algorithm would refuse anyway
    (a G that is not a Gram matrix, an accuracy that is not a positive number) pass here unchecked.
    """
    try:
        acc = float(accuracy)
    except (TypeError, ValueError):
        return
    if isinstance(accuracy, bool) or not acc > 0 or not math.isfinite(acc):
        return
    from .data import check_gram

    try:
        Gv = G if getattr(G, "Z", None) is not None else check_gram(G)
        floor = accuracy_floor(Gv, precision)
    except (TypeError, ValueError, ArithmeticError):
        return
    if acc < floor:
        n = Gv.shape[0]
        digits = min(1000, max(20, math.ceil(-2 * math.log10(acc) + math.log10(100.0 * n))))
        where = "float64" if precision is None else f"{precision} decimal digits"
        raise ValueError(
            f"{name}={acc:.3g} is below the round-off floor {floor:.3g} of ||p||_G for this G ({n} points, {where}): "
            f"no certificate ||p||_G < {name} can be verified, every claim would be refused; pass precision=D "
            f"(mpmath with D decimal digits, the textbook engine; e.g. precision={digits}) or {name} >= {floor:.2g}"
        )


# -- how far a run got ------------------------------------------------------------------------------


def budget_report(result, budget: Optional[Budget] = None, G=None, certified=None) -> str:
    """For a Result that stopped at its budget: how far it got, in the quantity its theorem is
    about, and what budget would likely suffice.  '' for a verified claim.

    ``G``: the Gram matrix (or operator) of a Gram algorithm, to evaluate min_i (G alpha)_i /
    ||alpha||_G and ||p||_G; ``certified``: the certified margin's lower end (PT11: gamma_d), when
    known (else the one of ``budget``).
    """
    if result.status != "max_iter":
        return ""
    parts = []
    info = result.info or {}
    gamma = certified if certified is not None else (budget.margin if budget is not None else None)
    if result.algorithm in ("pdm", "pfm", "pdm_succ"):
        ub, marg = info.get("upper_bound"), info.get("margin")
        if ub is not None:
            text = f"||a_t||/t = {float(ub):.6g} (an upper bound on gamma_d, PT11 eq. (4))"
            if gamma is not None and gamma > 0:
                text += f" against the certified gamma_d >= {gamma:.6g}"
            parts.append(text)
        if marg is not None:
            parts.append(f"margin of a_t: {float(marg):.6g}" + (f" (converged runs reach (1 - eps) gamma_d)" if result.algorithm != "pfm" else ""))
    elif G is not None and (result.alpha is not None or result.p is not None):
        mv = G.matvec if hasattr(G, "matvec") else (lambda v: np.asarray(G, dtype=np.float64) @ v)
        if result.alpha is not None:
            a = np.asarray(result.alpha, dtype=np.float64)
            Ga = mv(a)
            q = float(a @ Ga)
            if q > 0:
                parts.append(f"min_i (G alpha)_i / ||alpha||_G = {float(np.min(Ga)) / q ** 0.5:.6g} (a separator needs > 0)")
        if result.p is not None:
            p = np.asarray(result.p, dtype=np.float64)
            acc = info.get("epsilon", info.get("delta"))
            text = f"||p||_G = {float(np.sqrt(max(float(p @ mv(p)), 0.0))):.6g}"
            if acc is not None:
                text += f" (a certificate needs < {float(acc):.3g})"
            parts.append(text)
    if budget is not None and result.iterations >= budget.max_iter:  # (else it stopped before its budget: see the message)
        if math.isfinite(budget.bound):
            need = math.ceil(SAFETY * budget.bound) + 2
            if need > result.iterations:
                parts.append(f"the bound ({budget.basis}) is {budget.bound:.4g}: max_iter={need} would likely suffice")
            else:
                parts.append(f"the budget was {budget.max_iter}, at least {SAFETY} times the bound ({budget.basis}, "
                             f"{budget.bound:.4g}): a claim refused within round-off, see above")
        else:
            parts.append(budget.basis)
    return "; ".join(parts)
