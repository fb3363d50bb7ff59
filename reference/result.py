"""Result, status values, the shared iteration driver, and the claim verifiers.

Every algorithm of :mod:`reference` is an ``init(problem) -> State`` / ``step(problem, State)
-> State`` pair over a small immutable state (the body of the paper's loop), plus an ``exit``
test (the paper's halting rule).  :func:`drive` runs the loop, records the trace (the sequence
of states it saw), and -- before a claim leaves the library -- re-verifies it from scratch with
:func:`verify_separator_gram`, :func:`verify_separator_primal` or :func:`verify_certificate`.
The verification is part of the exit test: a claim that fails it does not end the run, the loop
goes on until a claim verifies or the budget runs out (then ``"max_iter"``, with the last
reason in ``Result.message``): the library never returns a false claim, and never stops early
without one.  Both verifiers bound the round-off of their own evaluation rigorously
(:data:`reference.arithmetic.UNIT_ROUNDOFF`), so a verified claim holds in exact arithmetic for
the matrix or data as stored (:func:`reference.verify_exact` re-checks it with rationals).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Generic, Optional, TypeVar

import mpmath
import numpy as np

from .exact import exact_factored_quadratic_form, exact_quadratic_form, rational
from .arithmetic import MACHINE_EPS, UNDERFLOW, Arithmetic, factored_norm_upper, g_norm, g_norm_upper
from .status import CERTIFICATE, MAX_ITER, SEPARATOR, STATUSES

__all__ = [
    "SEPARATOR",
    "CERTIFICATE",
    "MAX_ITER",
    "STATUSES",
    "Result",
    "Algorithm",
    "drive",
    "budget_message",
    "with_report",
    "unverified_note",
    "verified_message",
    "verify_separator_gram",
    "verify_separator_primal",
    "verify_certificate",
    "verify_separator_factored",
    "verify_certificate_factored",
    "verify_separator_patterns",
    "simplex_tolerance",
    "separator_allowance",
]

S = TypeVar("S")

#: Largest n for which a certificate that its a-priori round-off bound cannot confirm is decided
#: in exact rational arithmetic instead (O(n^2) integer products per check).
EXACT_CERTIFICATE_N = 32


@dataclass(frozen=True)
class Result:
    """What every algorithm returns.

    Attributes
    ----------
    algorithm : str
        The reference function's name (``"snkp"``, ``"pdm"``, ...).
    status : str
        ``"separator"`` (verified: G alpha > 0, or y_i <w, x_i> > 0 for every point),
        ``"certificate"`` (verified: p in the simplex and ||p||_G within its accuracy), or
        ``"max_iter"`` (budget exhausted, or a claim that failed verification; see ``message``).
    iterations : int
        The paper's counter: k for RP14 Alg. 1-7 (for ISNKPVN the total of inner iterations),
        t = number of updates for PFM/PDM.
    alpha, w, p : ndarray or None
        Simplex coefficients (Gram-space algorithms), weight vector (primal algorithms), dual
        certificate (von Neumann algorithms); ``None`` where it does not apply.
    trace : tuple or None
        The states the driver saw, ``trace[i]`` after ``i`` steps (``trace=True`` only).
    precision : str
        The arithmetic the result holds at: ``"float64"`` or ``"mpmath, 50 decimal digits"``.
    message : str
        Why the run stopped, in words.
    info : dict
        Algorithm-specific extras (final mu, ell_t, epochs, outer loops, eps schedule, ...).
    engine : str
        ``"textbook"`` (the pure-Python reference) or ``"fast"`` (the compiled engine,
        :mod:`reference.fast`); the claim was verified the same way by both.
    """

    algorithm: str
    status: str
    iterations: int
    alpha: Optional[np.ndarray] = None
    w: Optional[np.ndarray] = None
    p: Optional[np.ndarray] = None
    trace: Optional[tuple] = None
    precision: str = "float64"
    message: str = ""
    info: dict = field(default_factory=dict)
    engine: str = "textbook"

    @property
    def converged(self) -> bool:
        return self.status != MAX_ITER

    def as_dict(self) -> dict:
        """A JSON-friendly view (vectors as float lists; the trace omitted)."""

        def conv(v):
            if v is None:
                return None
            if isinstance(v, np.ndarray):
                return [float(x) for x in v.ravel()]
            if isinstance(v, (np.floating, np.integer)):
                return v.item()
            try:
                import mpmath

                if isinstance(v, mpmath.mpf):
                    return float(v)
            except ImportError:  # pragma: no cover
                pass
            return v

        return {
            "algorithm": self.algorithm,
            "status": self.status,
            "iterations": int(self.iterations),
            "alpha": conv(self.alpha),
            "w": conv(self.w),
            "p": conv(self.p),
            "precision": self.precision,
            "engine": self.engine,
            "message": self.message,
            "info": {k: conv(v) for k, v in self.info.items()},
        }


@dataclass(frozen=True)
class Algorithm(Generic[S]):
    """An algorithm as the paper writes it: init, the loop body, the exit test, the claim.

    Attributes
    ----------
    name : str
    init : problem -> State
    step : (problem, State) -> State            the body of the paper's loop
    exit : (problem, State) -> str or None       the paper's halting rule: a claimed status
    counter : State -> int                       the paper's iteration counter
    verify : (problem, State, claim) -> str      '' if the claim checks out, else the reason
    output : (problem, State) -> dict            fields alpha / w / p / info of the Result
    """

    name: str
    init: Callable[[Any], S]
    step: Callable[[Any, S], S]
    exit: Callable[[Any, S], Optional[str]]
    counter: Callable[[S], int]
    verify: Callable[[Any, S, str], str]
    output: Callable[[Any, S], dict]


# -- the status messages (one builder each; both engines use them) ----------------------------------


def verified_message(claim: str, label: str) -> str:
    """``Result.message`` of a verified claim: ``"separator verified in float64"``."""
    return f"{claim} verified in {label}"


def unverified_note(claim: str, iteration: int, reason: str) -> str:
    """The note on the last claim that failed its verification, appended to :func:`budget_message`."""
    return f"; the last claim ({claim}, iteration {iteration}) was not verified: {reason}"


def refused_claim_message(claim: str, reason: str) -> str:
    """``Result.message`` when the compiled engine's kernel claimed ``claim`` and its verification
    (the reference's verifier, run on the kernel's vector) refused it."""
    return f"{claim} claimed but not verified: {reason}"


def budget_message(iterations: int, unverified: str = "") -> str:
    """``Result.message`` of a run that ran out of budget; ``unverified``: '' or an :func:`unverified_note`."""
    return f"budget exhausted after {iterations} iterations{unverified}"


def with_report(message: str, report: str) -> str:
    """``Result.message`` of a run with a sized budget that ran out: :func:`budget_message` and how
    far the run got (:func:`reference.budgets.budget_report`)."""
    return f"{message}; {report}" if report else message


def drive(
    algorithm: Algorithm,
    problem: Any,
    ar: Arithmetic,
    max_iter: int,
    trace: bool = False,
    budget: Optional[Callable[[Any, S], bool]] = None,
    progress: Optional[Callable[[S], None]] = None,
) -> Result:
    """Run ``algorithm`` on ``problem`` until its exit test fires or the budget runs out.

    Parameters
    ----------
    max_iter : int
        Budget on the paper's counter (``algorithm.counter``).
    budget : callable, optional
        An extra stopping rule ``(problem, state) -> bool`` (True = stop), e.g. an epoch cap.
    progress : callable, optional
        Called with every new state (it decides itself when to report; it must not modify it).
    """
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a callable progress(state) or None, got {progress!r}")
    with ar.context():
        state = algorithm.init(problem)
        states = [state] if trace else None
        unverified = ""  # the last claim that failed its verification, and why

        def verified_claim(state):
            """The paper's exit test, confirmed by the verifier (the two must agree)."""
            nonlocal unverified
            claim = algorithm.exit(problem, state)
            if claim is not None:
                reason = algorithm.verify(problem, state, claim)
                if reason:
                    unverified = unverified_note(claim, algorithm.counter(state), reason)
                    return None
            return claim

        claim = verified_claim(state)
        while claim is None:
            if algorithm.counter(state) >= max_iter or (budget is not None and budget(problem, state)):
                break
            state = algorithm.step(problem, state)
            if trace:
                states.append(state)
            if progress is not None:
                progress(state)
            claim = verified_claim(state)
        out = algorithm.output(problem, state)
        if claim is None:
            status, message = MAX_ITER, budget_message(algorithm.counter(state), unverified)
        else:
            status, message = claim, verified_message(claim, ar.label)
    return Result(
        algorithm=algorithm.name,
        status=status,
        iterations=int(algorithm.counter(state)),
        alpha=out.get("alpha"),
        w=out.get("w"),
        p=out.get("p"),
        trace=tuple(states) if trace else None,
        precision=ar.label,
        message=message,
        info=dict(out.get("info", {})),
    )


# -- verifiers: recompute the claim from scratch -----------------------------------------------


def simplex_tolerance(n: int, ar: Arithmetic):
    """Tolerance on |sum(p) - 1| for a vector built by convex combinations in ``ar``."""
    return ar.scalar(16 * max(n, 1)) * ar.eps


def unit_roundoff(v: np.ndarray):
    """The machine epsilon of the arithmetic ``v`` is held in: MACHINE_EPS = 2^-52 = 2u for float64
    arrays (u = :data:`~reference.arithmetic.UNIT_ROUNDOFF`), 10^-dps (the current mpmath precision)
    for arrays of ``mpmath.mpf``."""
    if isinstance(v, np.ndarray) and v.dtype == object:
        return mpmath.mpf(10) ** (-mpmath.mp.dps)
    return MACHINE_EPS


def separator_allowance(A: np.ndarray, x: np.ndarray, k: int):
    """``(A @ x, slack)``: the computed margins and their round-off allowance.

    slack_i = (k + 16) eps sum_j |A_ij| |x_j| (eps = 2u) bounds the error of the computed
    product (a k-term dot product: gamma_k < k u, and the evaluation of slack itself) plus a
    relative perturbation of the entries of A by a few units of round-off (A itself was
    computed from data), and (2k + 4) * UNDERFLOW covers products that underflow.  A claim
    that survives it is a claim about the data, not about the rounding of A  [spec A.5,
    implementation note]; it holds in exact arithmetic for A and x as stored.
    """
    margins = A @ x
    u = unit_roundoff(margins)
    slack = (np.abs(A) @ np.abs(x)) * (u * (k + 16))
    if not (isinstance(margins, np.ndarray) and margins.dtype == object):
        slack = slack + (2 * k + 4) * UNDERFLOW
    return margins, slack


def _strictly_positive(A: np.ndarray, x: np.ndarray, k: int):
    """Indices i where (A x)_i is not above its round-off allowance (NaN never is), with the
    values and allowances of :func:`separator_allowance`."""
    margins, slack = separator_allowance(A, x, k)
    bad = [i for i in range(margins.shape[0]) if not margins[i] > slack[i]]
    return bad, margins, slack


def verify_separator_gram(G: np.ndarray, alpha: np.ndarray) -> str:
    """'' if G alpha > 0 componentwise, beyond round-off (Lemma 1: f = <alpha, Y phi~_X>
    separates), else why."""
    bad, margins, slack = _strictly_positive(G, alpha, G.shape[1])
    if bad:
        i = bad[0]
        return f"(G alpha)_{i} = {float(margins[i]):.3e} is not > 0 beyond round-off ({float(slack[i]):.1e})"
    return ""


def verify_separator_primal(Z: np.ndarray, w: np.ndarray) -> str:
    """'' if every reflected point z_i = y_i x_i (rows of Z) has <w, z_i> > 0 beyond round-off,
    else why."""
    bad, margins, slack = _strictly_positive(Z, w, Z.shape[1])
    if bad:
        i = bad[0]
        return f"y_{i} <w, x_{i}> = {float(margins[i]):.3e} is not > 0 beyond round-off ({float(slack[i]):.1e})"
    return ""


def verify_certificate(G: np.ndarray, p: np.ndarray, accuracy, ar: Arithmetic, strict: bool = True) -> str:
    """'' if p is in the simplex and ||p||_G < accuracy (``<=`` when not ``strict``), else why.

    Rigorous for the G and p as stored: nonnegativity is checked exactly; the exact sum is
    within :func:`simplex_tolerance` of 1 as computed (so within 17 n eps exactly: the sum's
    own error is below n u);
    and ||p||_G is bounded above by :func:`~reference.arithmetic.g_norm_upper` (p^T G p with
    a Higham-style bound on its round-off), not by its computed value: in float64 a tiny
    ||p||_G is mostly round-off (the computed p^T G p can even be negative).  When that bound
    is inconclusive and n <= EXACT_CERTIFICATE_N, p^T G p is evaluated exactly instead.
    """
    n = p.shape[0]
    if any(not v >= 0 for v in p):
        return "p has a negative entry"
    s = np.sum(p)
    if abs(s - ar.scalar(1)) > simplex_tolerance(n, ar):
        return f"sum(p) = {float(s)!r} is not 1"
    norm = g_norm(G, p, ar)
    if not (norm < accuracy if strict else norm <= accuracy):
        return f"||p||_G = {float(norm):.3e} is not {'<' if strict else '<='} {float(accuracy):.3e}"
    bound = g_norm_upper(G, p, ar)
    if not (bound < accuracy if strict else bound <= accuracy) and n <= EXACT_CERTIFICATE_N:
        # the a-priori bound is inconclusive: decide p^T G p < accuracy^2 exactly (small n)
        Q, acc2 = exact_quadratic_form(G, p), rational(accuracy) ** 2
        if Q < acc2 if strict else Q <= acc2:
            return ""
    if not (bound < accuracy if strict else bound <= accuracy):
        return (
            f"||p||_G = {float(g_norm(G, p, ar)):.3e}, at most {float(bound):.3e} with its round-off, "
            f"is not certified {'<' if strict else '<='} {float(accuracy):.3e}"
        )
    return ""


# -- verifiers at scale: the Gram matrix or the patterns held implicitly (CSR rows) -------------


def _csr_rows(indptr: np.ndarray) -> np.ndarray:
    """The row of every stored entry of a CSR matrix."""
    return np.repeat(np.arange(indptr.shape[0] - 1), np.diff(indptr))


def _csr_matvec(data, indices, indptr, v: np.ndarray) -> np.ndarray:
    """Z v for Z in CSR (data, indices, indptr), in NumPy."""
    rows = _csr_rows(indptr)
    return np.bincount(rows, weights=data * v[indices], minlength=indptr.shape[0] - 1)


def verify_separator_factored(Z, alpha: np.ndarray) -> str:
    """'' if G alpha > 0 beyond round-off for the linear kernel's G = Z Z^T, else why.

    ``Z`` (n x d, scipy CSR) holds the normalized reflected points as rows; G is never formed:
    G alpha = Z (Z^T alpha).  The allowance (n + d + 16) eps (|Z| (|Z|^T |alpha|))_i + 2 (n (|Z| 1)_i
    + d + 4) UNDERFLOW bounds the error of the two products (an n-term and a d-term sum, and products
    that underflow) plus a few units of round-off in the entries of Z, as
    :func:`verify_separator_gram`'s allowance does for G (|G_ij| <= (|Z| |Z|^T)_ij): a claim that
    survives it holds in exact arithmetic for Z as stored (:func:`reference.verify_exact`).
    """
    n, d = Z.shape
    margins = Z @ (Z.T @ alpha)
    absZ = abs(Z)
    # underflow: up to n UNDERFLOW / 2 in each (Z^T alpha)_j, times |Z_ij| summed over j, plus d
    # products of the second sum: 2 (n (|Z| 1)_i + d + 4) UNDERFLOW covers both with room
    row_l1 = np.asarray(absZ @ np.ones(d)).ravel()
    slack = (absZ @ (absZ.T @ np.abs(alpha))) * (unit_roundoff(margins) * (n + d + 16)) + 2 * (n * row_l1 + d + 4) * UNDERFLOW
    bad = np.flatnonzero(~(margins > slack))
    if bad.size:
        i = int(bad[0])
        return f"(G alpha)_{i} = {float(margins[i]):.3e} is not > 0 beyond round-off ({float(slack[i]):.1e})"
    return ""


def verify_certificate_factored(Z, p: np.ndarray, accuracy, strict: bool = True) -> str:
    """'' if p is in the simplex and ||p||_G = ||Z^T p||_2 < accuracy (``<=`` when not
    ``strict``) for G = Z Z^T (Z scipy CSR, G never formed), else why.

    The same rule as :func:`verify_certificate`: the simplex test, then the computed norm, then
    the rigorous bound :func:`~reference.arithmetic.factored_norm_upper` on the norm for Z and p
    as stored; where that bound is inconclusive and Z has at most EXACT_CERTIFICATE_N^2 stored
    entries (the dense rule's budget of products), ||Z^T p||^2 < accuracy^2 is decided exactly.
    """
    n = p.shape[0]
    if any(not v >= 0 for v in p):
        return "p has a negative entry"
    s = np.sum(p)
    if abs(s - 1.0) > 16 * max(n, 1) * unit_roundoff(p):
        return f"sum(p) = {float(s)!r} is not 1"
    w = Z.T @ p  # X Y p: ||p||_G = ||w||_2
    norm = float(np.sqrt(w @ w))
    op = "<" if strict else "<="
    if not (norm < accuracy if strict else norm <= accuracy):
        return f"||p||_G = {norm:.3e} is not {op} {float(accuracy):.3e}"
    bound = factored_norm_upper(Z, p)
    if bound < accuracy if strict else bound <= accuracy:
        return ""
    if Z.nnz <= EXACT_CERTIFICATE_N**2:  # the a-priori bound is inconclusive: decide exactly
        Q, acc2 = exact_factored_quadratic_form(Z, p), rational(accuracy) ** 2
        if Q < acc2 if strict else Q <= acc2:
            return ""
    return (
        f"||p||_G = {norm:.3e}, at most {bound:.3e} with its round-off, "
        f"is not certified {op} {float(accuracy):.3e}"
    )


def pattern_margins(data, indices, indptr, labels, rho, Delta, a: np.ndarray, d: int, absolute: bool = False) -> np.ndarray:
    """a . y_k for every implicit PT11 pattern y_k = l_k [x_k, rho, Delta e_k] (x_k a CSR row;
    ``rho`` / ``Delta`` None when absent; ``a = [a_x, a_rho, a_Delta]``).  With ``absolute``:
    |y_k| . |a|, the scale of the round-off of that dot product."""
    f = np.abs if absolute else (lambda v: v)
    m = labels.shape[0]
    out = _csr_matvec(f(data), indices, indptr, f(a[:d]))
    col = d
    if rho is not None:
        out = out + f(rho) * f(a[col])
        col += 1
    if Delta is not None:
        out = out + f(Delta) * f(a[col:col + m])
    return out if absolute else labels * out


def pattern_allowance(data, indices, indptr, labels, rho, Delta, a: np.ndarray, d: int):
    """``(margins, slack)`` of the implicit PT11 patterns: a . y_k and the allowance of
    :func:`separator_allowance`, (K + 16) eps |y_k| . |a| + (2K + 4) UNDERFLOW, K = len(a)."""
    margins = pattern_margins(data, indices, indptr, labels, rho, Delta, a, d)
    K = a.shape[0]
    slack = pattern_margins(data, indices, indptr, labels, rho, Delta, a, d, absolute=True) * (
        MACHINE_EPS * (K + 16)
    ) + (2 * K + 4) * UNDERFLOW
    return margins, slack


def verify_separator_patterns(data, indices, indptr, labels, rho, Delta, a: np.ndarray, d: int) -> str:
    """'' if a . y_k > 0 beyond round-off for every implicit PT11 pattern, else why.

    The patterns y_k = l_k [x_k, rho, Delta e_k] are never formed (:func:`pattern_margins`); the
    allowance is :func:`verify_separator_primal`'s, (K + 16) u |y_k| . |a| with K the number of
    coordinates of the patterns, so both engines accept exactly the same claims.
    """
    margins, slack = pattern_allowance(data, indices, indptr, labels, rho, Delta, a, d)
    bad = np.flatnonzero(~(margins > slack))
    if bad.size:
        i = int(bad[0])
        return f"y_{i} <w, x_{i}> = {float(margins[i]):.3e} is not > 0 beyond round-off ({float(slack[i]):.1e})"
    return ""


def with_info(state: S, **changes) -> S:
    """``dataclasses.replace`` re-exported for step functions."""
    return replace(state, **changes)
