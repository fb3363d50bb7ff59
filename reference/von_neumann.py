"""The Normalized von Neumann algorithm (NVN) of RP14, Alg. 5, written through the Gram matrix.

With unit-norm reflected points a_i = y_i x_i / ||x_i|| (or y_i phi~_{x_i} for a kernel) and
G = [<a_i, a_j>], the iterate w_k = X Y p_k is implicit:

    ||w_k||^2 = p_k^T G p_k = ||p_k||_G^2,   y_i x_i^T w_k = (G p_k)_i,   ||a_j||^2 = G_jj = 1.

The algorithm is an ``init`` / ``step`` pair over an immutable state, run by
:func:`reference.result.drive`; the same code runs in float64 and in mpmath.  The textbook
engine: ``reference.nvn`` (:mod:`reference.algorithms`) runs it, or with ``engine="fast"`` the
compiled engine, which this module does not import.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

import numpy as np

from .arithmetic import Arithmetic, arithmetic, g_norm
from .data import check_bool, check_gram, check_int, check_real
from .result import (
    CERTIFICATE,
    SEPARATOR,
    Algorithm,
    Result,
    drive,
    verify_certificate,
    verify_separator_gram,
)
from .blas import one_thread
from .states import NVNState

__all__ = ["NVNState", "nvn"]


@dataclass(frozen=True)
class _Problem:
    G: np.ndarray
    epsilon: object
    ar: Arithmetic


def _init(pb: _Problem) -> NVNState:
    return NVNState(k=0, p=pb.ar.uniform(pb.G.shape[0]))  # [RP14 Alg. 5] p_0 := 1_n/n


def _exit(pb: _Problem, s: NVNState) -> Optional[str]:
    # [RP14 Alg. 5] ||X Y p_k||_2 <= eps: an eps-solution of (13) -- only where that survives
    # round-off, so that a float-only certificate does not hide the primal exit below
    if g_norm(pb.G, s.p, pb.ar) <= pb.epsilon and not _verify(pb, s, CERTIFICATE):
        return CERTIFICATE
    if bool(np.all(pb.G @ s.p > 0)):  # [E-A6] primal exit: min_i y_i x_i^T w_k > 0
        return SEPARATOR
    return None


def _step(pb: _Problem, s: NVNState) -> NVNState:
    ar, G, n = pb.ar, pb.G, pb.G.shape[0]
    j = int(np.argmin(G @ s.p))  # [RP14 Alg. 5] j := argmin_i y_i x_i^T w_k  (smallest index on ties)
    # Line search theta_k := argmin_{lambda in [0,1]} ||(1 - lambda) w_k + lambda a||, a := y_j x_j,
    # in closed form clip(<w_k, w_k - a> / ||w_k - a||^2, 0, 1), with w_k - a = X Y (p_k - e_j).
    d = s.p - ar.unit(n, j)
    Gd = G @ d
    num = s.p @ Gd  # <w_k, w_k - a>
    den = d @ Gd  # ||w_k - a||^2
    zero, one = ar.scalar(0), ar.scalar(1)
    # den == 0 means w_k = a: then every lambda gives the same w (and w_k separates, E-A6).
    theta = min(max(num / den, zero), one) if den > 0 else zero
    p = (1 - theta) * s.p + theta * ar.unit(n, j)  # p_{k+1} := (1 - theta_k) p_k + theta_k e_j
    return NVNState(k=s.k + 1, p=p, theta=theta, j=j)


def _verify(pb: _Problem, s: NVNState, claim: str) -> str:
    if claim == SEPARATOR:
        return verify_separator_gram(pb.G, s.p)
    return verify_certificate(pb.G, s.p, pb.epsilon, pb.ar, strict=False)


NVN = Algorithm(
    name="nvn",
    init=_init,
    step=_step,
    exit=_exit,
    counter=lambda s: s.k,
    verify=_verify,
    output=lambda pb, s: {"p": s.p, "info": {"norm_p": g_norm(pb.G, s.p, pb.ar), "epsilon": pb.epsilon}},
)


@one_thread
def nvn(
    G,
    epsilon=1e-3,
    *,
    max_iter: int = 100_000,
    trace: bool = False,
    precision: Optional[int] = None,
    progress=None,
) -> Result:
    """The Normalized von Neumann algorithm (NVN)  [RP14 Alg. 5, with the primal exit of E-A6].

    p_0 = 1_n/n.  At each k, in order:
    if ||p_k||_G <= epsilon: return p_k as an epsilon-certificate of infeasibility (13);
    else if G p_k > 0: return alpha = p_k as a separator (erratum E-A6: without this exit the
    printed algorithm never stops on feasible data);
    else j = argmin_i (G p_k)_i, theta_k = clip(<w, w - a>/||w - a||^2, 0, 1) (exact line search
    on the segment [w_k, a], a = y_j x_j), p_{k+1} = (1 - theta_k) p_k + theta_k e_j.

    Bound: when (3) is infeasible, ||w_k|| <= 1/sqrt(k+1), so at most 1/epsilon^2 iterations
    (unit-norm points, which a normalized G provides).

    Parameters
    ----------
    G : array_like, shape (n, n)
        Normalized signed Gram matrix (:func:`reference.gram`): unit diagonal.
    epsilon : float
        Accuracy in (0, 1]; the certificate test is ``||p_k||_G <= epsilon`` (non-strict).
        (||p_0||_G <= 1 always, Lemma 2, so epsilon > 1 would be meaningless.)
    max_iter : int
        Budget on k.
    trace : bool
        Record every state (k, p_k, theta_{k-1}, j).
    precision : int, optional
        Run in mpmath at this many decimal digits.

    Returns
    -------
    Result
        ``"certificate"`` with ``p`` (in the simplex, ||p||_G <= epsilon verified), or
        ``"separator"`` with ``alpha = p`` (G alpha > 0 verified), or ``"max_iter"``.
        ``info["norm_p"]`` is ||p||_G, ``info["epsilon"]`` the accuracy.
    """
    ar = arithmetic(precision)
    G = check_gram(G)
    epsilon = check_real("epsilon", epsilon, low=0, high=1, hint="NVN's accuracy satisfies 0 < epsilon <= 1")
    max_iter = check_int("max_iter", max_iter)
    trace = check_bool("trace", trace)
    with ar.context():
        pb = _Problem(G=ar.array(G), epsilon=ar.scalar(epsilon), ar=ar)
    result = drive(NVN, pb, ar, max_iter, trace, progress=progress)
    return replace(result, alpha=result.p if result.status == SEPARATOR else None)
