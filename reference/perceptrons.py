"""The (normalized, kernel) perceptrons of RP14: Perceptron (Alg. 1), Normalized Perceptron
(Alg. 2) and Normalized Kernel Perceptron (Alg. 3).

Each algorithm is an ``init`` / ``step`` pair over an immutable state, run by
:func:`reference.result.drive`.  The same code runs in float64 and in mpmath.
The textbook engine: ``reference.perceptron`` etc. (:mod:`reference.algorithms`) run these, or
with ``engine="fast"`` the compiled engine, which this module does not import.

Conventions: ``X`` is ``(n, d)`` with the points as rows; ``Z = reflect(X, y)`` holds the
reflected points ``z_i = y_i x_i`` as rows, so ``Z @ w`` is the vector ``Y X^T w`` of the paper
(the margins ``y_i <w, x_i>``).  Ties in every ``argmin`` go to the smallest index
(``numpy.argmin`` returns the first occurrence).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .arithmetic import Arithmetic, arithmetic
from .data import check_bool, check_gram, check_int
from .prepare import check_primal_data, with_scale, working_points
from .result import (
    SEPARATOR,
    Algorithm,
    Result,
    drive,
    separator_allowance,
    verify_separator_gram,
    verify_separator_primal,
)
from .blas import one_thread
from .states import RULES, NKPState, PerceptronState

__all__ = ["PerceptronState", "NKPState", "RULES", "perceptron", "normalized_perceptron", "nkp"]


# -- problems ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Primal:
    """A primal problem: the working points ``Z`` (rows z_i, possibly normalized) and the
    user's reflected points ``Z_data`` on which a separator is verified."""

    Z: np.ndarray
    Z_data: np.ndarray
    ar: Arithmetic
    rule: str = "cyclic"


@dataclass(frozen=True)
class _Dual:
    G: np.ndarray
    ar: Arithmetic


def _separates(Z: np.ndarray, w: np.ndarray) -> bool:
    """Y X^T w > 0_n: every reflected point has strictly positive margin."""
    return bool(np.all(Z @ w > 0))


def _primal_verify(pb: _Primal, s: PerceptronState, claim: str) -> str:
    return verify_separator_primal(pb.Z_data, s.w)


def _primal_output(pb: _Primal, s: PerceptronState) -> dict:
    return {"w": s.w}


# -- Algorithm 1: Perceptron ---------------------------------------------------------------------


def _perceptron_init(pb: _Primal) -> PerceptronState:
    return PerceptronState(k=0, w=pb.ar.zeros(pb.Z.shape[1]), start=0)  # [RP14 Alg. 1] w_0 := 0


def _first_mistake(pb: _Primal, s: PerceptronState) -> Optional[int]:
    """Cyclic rule: the first mistake at or after ``s.start``, wrapping around; ``None`` if none.

    y_i w_k^T x_i <= 0, read in floating point: a margin not above its round-off allowance is a
    mistake (the exit test, verified, agrees: no mistake = separator).  ``None`` only after a
    claim refused on other data than Z (the user's points, when the working copy Z = Z_data 2^-e
    lost bits to underflow): Z has no mistake left to update on.
    """
    n = pb.Z.shape[0]
    margins, slack = separator_allowance(pb.Z, s.w, pb.Z.shape[1])
    return next((i for i in ((s.start + o) % n for o in range(n)) if not margins[i] > slack[i]), None)


def _no_mistake_left(pb: _Primal, s: PerceptronState) -> bool:
    """The run's end after a refused claim with no mistake on Z (cyclic rule): status max_iter,
    the message naming the refused claim (the fast kernel's ``j < 0``)."""
    return pb.rule == "cyclic" and _separates(pb.Z, s.w) and _first_mistake(pb, s) is None


def _perceptron_step(pb: _Primal, s: PerceptronState) -> PerceptronState:
    n = pb.Z.shape[0]
    if pb.rule == "most_violated":
        j = int(np.argmin(pb.Z @ s.w))  # the most misclassified point (smallest index on ties)
    else:  # cyclic: the first mistake at or after `start`, wrapping around
        j = _first_mistake(pb, s)
    w = s.w + pb.Z[j]  # [RP14 Alg. 1] w_{k+1} := w_k + y_i x_i   (y_i w_k^T x_i <= 0: a mistake)
    return PerceptronState(k=s.k + 1, w=w, start=(j + 1) % n, j=j)


PERCEPTRON = Algorithm(
    name="perceptron",
    init=_perceptron_init,
    step=_perceptron_step,
    exit=lambda pb, s: SEPARATOR if _separates(pb.Z, s.w) else None,  # no mistake left: halt
    counter=lambda s: s.k,
    verify=_primal_verify,
    output=_primal_output,
)


@one_thread
def perceptron(
    X,
    y,
    *,
    rule: str = "cyclic",
    rho: Optional[float] = None,
    max_iter: int = 100_000,
    trace: bool = False,
    precision: Optional[int] = None,
    progress=None,
) -> Result:
    """The classical Perceptron  [RP14 Alg. 1].

    w_0 = 0; while some point is misclassified (y_i <w_k, x_i> <= 0, so a margin of exactly 0
    is a mistake): w_{k+1} = w_k + y_i x_i.

    Block-Novikoff: if a unit u has y_i <u, x_i> >= rho > 0 for all i, the Perceptron makes at
    most max_i ||x_i||^2 / rho^2 updates, whichever mistake it updates on.

    Parameters
    ----------
    X : array_like, shape (n, d)
        The points, one per row (finite, no zero rows).
    y : array_like, shape (n,)
        Labels +1 / -1.
    rule : {"cyclic", "most_violated"}
        ``"cyclic"``: the first mistake in cyclic order, scanning from the point after the last
        update (wrapping around; the first scan starts at index 0).  ``"most_violated"``:
        argmin_i y_i <w_k, x_i> (smallest index on ties).
    rho : float, optional
        Bias by augmentation, x_i -> [x_i, rho] (PT11 Sec. 2); ``w[-1]`` multiplies rho.
        ``None`` (default): no bias, and zero rows are rejected.  The Result does not record
        it: re-check with ``verify_exact(result, X, y, rho=rho)``.
    max_iter : int
        Budget on k, the number of updates.
    trace : bool
        Record every state (k, w_k, start, j).
    precision : int, optional
        Run in mpmath at this many decimal digits.

    Returns
    -------
    Result
        ``status="separator"`` with ``w`` (y_i <w, x_i> > 0 verified on the given data), or
        ``"max_iter"`` -- also (cyclic rule) when a claim is refused on the given data while the
        scaled copy below has no mistake left, the message naming the refused claim.
        ``iterations`` is the number of updates k.  Data at an extreme scale
        (largest |x_ij| outside [2^-64, 2^64)) run multiplied by a power of two (exact, no
        decision changes, no overflow); ``w`` and the trace are then those of the scaled data
        and ``info["scale"]`` names the factor.
    """
    ar = arithmetic(precision)
    X, y = check_primal_data(X, y, rho)
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    max_iter = check_int("max_iter", max_iter)
    trace = check_bool("trace", trace)
    with ar.context():
        Z, Z_verify, e = working_points(X, y, rho, ar)
        pb = _Primal(Z=Z, Z_data=Z_verify, ar=ar, rule=rule)
    return with_scale(drive(PERCEPTRON, pb, ar, max_iter, trace, budget=_no_mistake_left, progress=progress), e)


# -- Algorithm 2: Normalized Perceptron ------------------------------------------------------------


def _normalized_init(pb: _Primal) -> PerceptronState:
    return PerceptronState(k=0, w=pb.ar.zeros(pb.Z.shape[1]))  # [RP14 Alg. 2] w_0 := 0 (p_0 unused, E-A7)


def _normalized_step(pb: _Primal, s: PerceptronState) -> PerceptronState:
    ar = pb.ar
    j = int(np.argmin(pb.Z @ s.w))  # [RP14 eq. (4)] p(w_k) = e_j, j = argmin_i y_i x_i^T w_k
    theta = ar.scalar(1) / ar.scalar(s.k + 1)  # [RP14 Alg. 2] theta_k := 1/(k+1)
    w = (1 - theta) * s.w + theta * pb.Z[j]  # w_{k+1} := (1 - theta_k) w_k + theta_k X Y p(w_k)
    return PerceptronState(k=s.k + 1, w=w, j=j)


NORMALIZED_PERCEPTRON = Algorithm(
    name="normalized_perceptron",
    init=_normalized_init,
    step=_normalized_step,
    exit=lambda pb, s: SEPARATOR if _separates(pb.Z, s.w) else None,  # Y X^T w_k > 0: exit
    counter=lambda s: s.k,
    verify=_primal_verify,
    output=_primal_output,
)


@one_thread
def normalized_perceptron(
    X,
    y,
    *,
    normalize: bool = True,
    rho: Optional[float] = None,
    max_iter: int = 100_000,
    trace: bool = False,
    precision: Optional[int] = None,
    progress=None,
) -> Result:
    """The Normalized Perceptron  [RP14 Alg. 2].

    w_0 = 0; while not Y X^T w_k > 0: theta_k = 1/(k+1),
    w_{k+1} = (1 - theta_k) w_k + theta_k y_j x_j with j = argmin_i y_i x_i^T w_k (smallest
    index on ties).  So w_k (k >= 1) is the average of the k chosen reflected points.

    Guarantee (RP14 Sec. 2.1): run on X_2 -- the points normalized to unit 2-norm,
    x_i / ||x_i||_2 -- it finds a perfect separator within 1/rho_2^2 iterations whenever the
    normalized margin rho_2 > 0.  ``normalize=True`` (the default) runs on X_2, which is what
    that bound is about; ``normalize=False`` runs on X as given (bound max_i ||x_i||^2/rho^2).

    Parameters
    ----------
    X : array_like, shape (n, d)
        The points, one per row (finite, no zero rows).
    y : array_like, shape (n,)
        Labels +1 / -1.
    normalize : bool
        Work on X_2 (rows x_i / ||x_i||_2).  Normalizing by positive scalars does not change
        which w separate, so the returned w separates X as well.
    rho : float, optional
        Bias by augmentation, x_i -> [x_i, rho] (before normalizing); ``w[-1]`` multiplies
        rho.  ``None`` (default): no bias, and zero rows are rejected.  The Result does not
        record it: re-check with ``verify_exact(result, X, y, rho=rho)``.
    max_iter : int
        Budget on k.
    trace : bool
        Record every state (k, w_k, j).
    precision : int, optional
        Run in mpmath at this many decimal digits.

    Returns
    -------
    Result
        ``status="separator"`` with ``w`` (y_i <w, x_i> > 0 verified on the given, un-normalized
        data), or ``"max_iter"``.  With ``normalize=False`` data at an extreme scale run
        multiplied by a power of two, as in :func:`perceptron` (``info["scale"]``).
    """
    ar = arithmetic(precision)
    X, y = check_primal_data(X, y, rho)
    max_iter = check_int("max_iter", max_iter)
    trace = check_bool("trace", trace)
    normalize = check_bool("normalize", normalize)
    with ar.context():
        Z, Z_verify, e = working_points(X, y, rho, ar, normalize)
        pb = _Primal(Z=Z, Z_data=Z_verify, ar=ar)
    return with_scale(drive(NORMALIZED_PERCEPTRON, pb, ar, max_iter, trace, progress=progress), e)


# -- Algorithm 3: Normalized Kernel Perceptron -------------------------------------------------------


def _nkp_init(pb: _Dual) -> NKPState:
    return NKPState(k=0, alpha=pb.ar.zeros(pb.G.shape[0]))  # [RP14 Alg. 3] alpha_0 := 0


def _nkp_step(pb: _Dual, s: NKPState) -> NKPState:
    ar, n = pb.ar, pb.G.shape[0]
    j = int(np.argmin(pb.G @ s.alpha))  # [RP14 eq. (10)] p(alpha_k) = e_j, j = argmin_i (G alpha_k)_i  (e_1 at k = 0, E-A7)
    theta = ar.scalar(1) / ar.scalar(s.k + 1)  # [RP14 Alg. 3] theta_k := 1/(k+1)
    alpha = (1 - theta) * s.alpha + theta * ar.unit(n, j)  # alpha_{k+1} := (1 - theta_k) alpha_k + theta_k p(alpha_k)
    return NKPState(k=s.k + 1, alpha=alpha, j=j)


NKP = Algorithm(
    name="nkp",
    init=_nkp_init,
    step=_nkp_step,
    exit=lambda pb, s: SEPARATOR if bool(np.all(pb.G @ s.alpha > 0)) else None,  # G alpha_k > 0_n: exit
    counter=lambda s: s.k,
    verify=lambda pb, s, claim: verify_separator_gram(pb.G, s.alpha),
    output=lambda pb, s: {"alpha": s.alpha},
)


@one_thread
def nkp(G, *, max_iter: int = 100_000, trace: bool = False, precision: Optional[int] = None, progress=None) -> Result:
    """The Normalized Kernel Perceptron (NKP)  [RP14 Alg. 3].

    alpha_0 = 0; while not G alpha_k > 0: theta_k = 1/(k+1),
    alpha_{k+1} = (1 - theta_k) alpha_k + theta_k e_j with j = argmin_i (G alpha_k)_i (smallest
    index on ties; at k = 0, G alpha_0 = 0 and the tie-break gives e_1, erratum E-A7).
    This is the subgradient method with step 1/(k+1) on the 1-strongly convex loss L.
    For k >= 1, alpha_k lies in the simplex.

    Bound: halts within 1/rho_K^2 iterations when rho_K > 0.

    Parameters
    ----------
    G : array_like, shape (n, n)
        Normalized signed Gram matrix (:func:`reference.gram`).
    max_iter : int
        Budget on k.
    trace : bool
        Record every state (k, alpha_k, j).
    precision : int, optional
        Run in mpmath at this many decimal digits.

    Returns
    -------
    Result
        ``status="separator"`` with ``alpha`` (G alpha > 0 verified; f = <alpha, Y phi~_X>
        classifies every point correctly, Lemma 1), or ``"max_iter"``.
    """
    ar = arithmetic(precision)
    G = check_gram(G)
    max_iter = check_int("max_iter", max_iter)
    trace = check_bool("trace", trace)
    with ar.context():
        pb = _Dual(G=ar.array(G), ar=ar)
    return drive(NKP, pb, ar, max_iter, trace, progress=progress)
