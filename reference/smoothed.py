"""Smoothed normalized kernel perceptrons of RP14: SNKP (Alg. 4), SNKPVN (Alg. 6), ISNKPVN (Alg. 7).

Each algorithm is an ``init`` / ``step`` pair over an immutable state, run by
:func:`reference.result.drive`.  The same code runs in float64 and in mpmath.
The textbook engine: ``reference.snkp`` etc. (:mod:`reference.algorithms`) run these, or with
``engine="fast"`` the compiled engine, which this module does not import; that engine runs
ISNKPVN's outer loop, :func:`outer_loop`, around its own SNKPVN.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Optional

import numpy as np

from .arithmetic import Arithmetic, arithmetic, g_norm, log_mean_exp, project_simplex, softmax
from .data import check_bool, check_gram, check_int, check_real, check_simplex
from .result import (
    CERTIFICATE,
    MAX_ITER,
    SEPARATOR,
    Algorithm,
    Result,
    drive,
    verify_certificate,
    verify_separator_gram,
)
from .blas import one_thread
from .states import OuterRecord, OuterState, SmoothState

__all__ = [
    "SmoothState",
    "p_mu",
    "p_mu_q",
    "smoothed_loss",
    "smoothed_loss_q",
    "loss",
    "snkp",
    "snkpvn",
    "isnkpvn",
    "OuterRecord",
    "OuterState",
    "outer_loop",
]


# -- the smoothed best responses and losses (RP14 eqs. (9), (11), Sec. 5.3) ----------------------


def loss(G: np.ndarray, alpha: np.ndarray, ar: Arithmetic):
    """L(alpha) = -min_i (G alpha)_i + (1/2) ||alpha||_G^2   [RP14 eq. (9)]."""
    Ga = G @ alpha
    return -np.min(Ga) + (alpha @ Ga) / 2


def p_mu(G: np.ndarray, alpha: np.ndarray, mu, ar: Arithmetic) -> np.ndarray:
    """p_mu(alpha) = argmin_{p in Delta_n} <alpha, p>_G + mu d(p) = softmax(-G alpha / mu)  [RP14 eq. (11)]."""
    return softmax(-(G @ alpha) / mu, ar)


def smoothed_loss(G: np.ndarray, alpha: np.ndarray, mu, ar: Arithmetic):
    """L_mu(alpha) = mu log((1/n) sum_i exp(-(G alpha)_i / mu)) + (1/2)||alpha||_G^2  [RP14 Sec. 4]."""
    Ga = G @ alpha
    return log_mean_exp(Ga, mu, ar) + (alpha @ Ga) / 2


def p_mu_q(G: np.ndarray, alpha: np.ndarray, mu, q: np.ndarray, ar: Arithmetic) -> np.ndarray:
    """p^q_mu(alpha) = argmin_p <alpha,p>_G + (mu/2)||p - q||^2 = Proj_Delta(q - G alpha / mu)  [RP14 Sec. 5.3]."""
    return project_simplex(q - (G @ alpha) / mu, ar)


def smoothed_loss_q(G: np.ndarray, alpha: np.ndarray, mu, q: np.ndarray, ar: Arithmetic):
    """L^q_mu(alpha) = -<G alpha, p> - (mu/2)||p - q||^2 + (1/2)||alpha||_G^2 at p = p^q_mu(alpha)  [RP14 Sec. 5.3]."""
    Ga = G @ alpha
    p = project_simplex(q - Ga / mu, ar)
    r = p - q
    return -(Ga @ p) - mu * (r @ r) / 2 + (alpha @ Ga) / 2


# -- problem -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Problem:
    G: np.ndarray
    ar: Arithmetic
    q: Optional[np.ndarray] = None  # SNKPVN's prox-centre
    delta: object = None  # SNKPVN's accuracy


def _best_response(pb: _Problem, alpha, mu):
    """p_mu (entropy, Alg. 4) or p^q_mu (Euclidean, Alg. 6)."""
    if pb.q is None:
        return p_mu(pb.G, alpha, mu, pb.ar)
    return p_mu_q(pb.G, alpha, mu, pb.q, pb.ar)


def _smooth_step(pb: _Problem, s: SmoothState) -> SmoothState:
    """The loop body shared verbatim by Alg. 4 and Alg. 6 (they differ only in the prox)."""
    ar = pb.ar
    theta = ar.scalar(2) / ar.scalar(s.k + 3)  # [RP14 Alg. 4/6] theta_k := 2/(k+3)
    alpha = (1 - theta) * (s.alpha + theta * s.p) + theta**2 * _best_response(pb, s.alpha, s.mu)  # alpha_{k+1}
    mu = (1 - theta) * s.mu  # mu_{k+1} := (1 - theta_k) mu_k
    p = (1 - theta) * s.p + theta * _best_response(pb, alpha, mu)  # p_{k+1}, new mu and new alpha
    return SmoothState(k=s.k + 1, alpha=alpha, p=p, mu=mu, theta=theta)


def _separated(pb: _Problem, s: SmoothState) -> bool:
    return bool(np.all(pb.G @ s.alpha > 0))  # G alpha_k > 0_n


def _verify(pb: _Problem, s: SmoothState, claim: str) -> str:
    if claim == SEPARATOR:
        return verify_separator_gram(pb.G, s.alpha)
    return verify_certificate(pb.G, s.p, pb.delta, pb.ar)


def _output(pb: _Problem, s: SmoothState) -> dict:
    info = {"mu": s.mu} if pb.delta is None else {"mu": s.mu, "delta": pb.delta}
    return {"alpha": s.alpha, "p": s.p, "info": info}


# -- Algorithm 4: SNKP ---------------------------------------------------------------------------


def _snkp_init(pb: _Problem) -> SmoothState:
    ar, n = pb.ar, pb.G.shape[0]
    alpha = ar.uniform(n)  # [RP14 Alg. 4] alpha_0 := 1_n / n
    mu = ar.scalar(2)  # mu_0 := 2
    return SmoothState(k=0, alpha=alpha, p=p_mu(pb.G, alpha, mu, ar), mu=mu)  # p_0 := p_{mu_0}(alpha_0)


SNKP = Algorithm(
    name="snkp",
    init=_snkp_init,
    step=_smooth_step,
    exit=lambda pb, s: SEPARATOR if _separated(pb, s) else None,
    counter=lambda s: s.k,
    verify=_verify,
    output=_output,
)


@one_thread
def snkp(G, *, max_iter: int = 10_000, trace: bool = False, precision: Optional[int] = None, progress=None) -> Result:
    """Smoothed Normalized Kernel Perceptron  [RP14 Alg. 4].

    alpha_0 = 1_n/n, mu_0 = 2, p_0 = p_{mu_0}(alpha_0); while not G alpha_k > 0:
    theta_k = 2/(k+3), alpha_{k+1} = (1-theta_k)(alpha_k + theta_k p_k) + theta_k^2 p_{mu_k}(alpha_k),
    mu_{k+1} = (1-theta_k) mu_k, p_{k+1} = (1-theta_k) p_k + theta_k p_{mu_{k+1}}(alpha_{k+1}).

    Theorem 1: halts within 2 sqrt(2 log n)/rho_K iterations when rho_K > 0.

    Parameters
    ----------
    G : array_like, shape (n, n)
        Normalized signed Gram matrix (:func:`reference.gram`).
    max_iter : int
        Budget on k.
    trace : bool
        Record every state (k, alpha_k, p_k, mu_k).
    precision : int, optional
        Run in mpmath at this many decimal digits.

    Returns
    -------
    Result
        ``status="separator"`` with ``alpha`` (G alpha > 0 verified), else ``"max_iter"``.
        ``p`` is the dual iterate p_k (in the simplex; ||p_k||_G >= rho_K by Lemma 3).
    """
    ar = arithmetic(precision)
    G = check_gram(G)
    max_iter = check_int("max_iter", max_iter)
    trace = check_bool("trace", trace)
    with ar.context():
        pb = _Problem(G=ar.array(G), ar=ar)
    return drive(SNKP, pb, ar, max_iter, trace, progress=progress)


# -- Algorithm 6: SNKPVN ------------------------------------------------------------------------


def _snkpvn_init(pb: _Problem) -> SmoothState:
    ar, n = pb.ar, pb.G.shape[0]
    alpha = pb.q  # [RP14 Alg. 6] alpha_0 := q
    mu = ar.scalar(2 * n)  # mu_0 := 2n
    return SmoothState(k=0, alpha=alpha, p=p_mu_q(pb.G, alpha, mu, pb.q, ar), mu=mu)  # p_0 := p^q_{mu_0}(alpha_0)


def _snkpvn_exit(pb: _Problem, s: SmoothState) -> Optional[str]:
    # [RP14 Alg. 6] G alpha_k > 0_n: halt, alpha_k gives a perfect classifier (E-A8) -- only
    # where that survives round-off, so that a G alpha_k > 0 within round-off does not hide the
    # certificate test below (exit test and verification agree)
    if _separated(pb, s) and not verify_separator_gram(pb.G, s.alpha):
        return SEPARATOR
    if g_norm(pb.G, s.p, pb.ar) < pb.delta:  # else if ||p_k||_G < delta: return p_k
        return CERTIFICATE
    return None


SNKPVN = Algorithm(
    name="snkpvn",
    init=_snkpvn_init,
    step=_smooth_step,  # the body of Alg. 4 with p^q_mu in place of p_mu
    exit=_snkpvn_exit,
    counter=lambda s: s.k,
    verify=_verify,
    output=_output,
)


def _run_snkpvn(G: np.ndarray, q: np.ndarray, delta, ar: Arithmetic, max_iter: int, trace: bool, progress=None) -> Result:
    """SNKPVN(q, delta) on already validated arguments in arithmetic ``ar``."""
    return drive(SNKPVN, _Problem(G=G, ar=ar, q=q, delta=delta), ar, max_iter, trace, progress=progress)


@one_thread
def snkpvn(
    G,
    q,
    delta,
    *,
    max_iter: int = 10_000,
    trace: bool = False,
    precision: Optional[int] = None,
    progress=None,
) -> Result:
    """Smoothed Normalized Kernel Perceptron-von Neumann, SNKPVN(q, delta)  [RP14 Alg. 6].

    alpha_0 = q, mu_0 = 2n, p_0 = p^q_{mu_0}(alpha_0), where
    p^q_mu(alpha) = Proj_{Delta_n}(q - G alpha / mu) is the Euclidean-smoothed best response.
    At each k, in order: if G alpha_k > 0, halt with the separator alpha_k; else if
    ||p_k||_G < delta, return the delta-certificate p_k; else the SNKP step (theta_k = 2/(k+3),
    mu_k = 4n/((k+1)(k+2))) with p^q_mu in place of p_mu.

    Bounds: feasible with delta < rho_K: a separator within 2 sqrt(2n)/rho_K iterations
    (Lemma 8); infeasible: ||p_k||_G <= sqrt(mu_k) dist(q, W) (Lemma 9).

    Parameters
    ----------
    G : array_like, shape (n, n)
        Normalized signed Gram matrix (:func:`reference.gram`).
    q : array_like, shape (n,)
        Prox-centre, a point of the simplex Delta_n.
    delta : float
        Accuracy > 0 of the certificate (strict test ``||p_k||_G < delta``).
    max_iter : int
        Budget on k.
    trace : bool
        Record every state (k, alpha_k, p_k, mu_k).
    precision : int, optional
        Run in mpmath at this many decimal digits.

    Returns
    -------
    Result
        ``"separator"`` with ``alpha`` (G alpha > 0 verified), ``"certificate"`` with ``p``
        (in the simplex, ||p||_G < delta verified), or ``"max_iter"``.  ``alpha`` and ``p`` are
        always the last iterates; ``info["mu"]`` is mu_k, ``info["delta"]`` the accuracy.
    """
    ar = arithmetic(precision)
    G = check_gram(G)
    q = check_simplex(q, G.shape[0])
    delta = check_real("delta", delta, low=0, hint="SNKPVN's accuracy delta must be positive")
    max_iter = check_int("max_iter", max_iter)
    trace = check_bool("trace", trace)
    with ar.context():
        G_ar, q_ar, delta_ar = ar.array(G), ar.array(q), ar.scalar(delta)
    return _run_snkpvn(G_ar, q_ar, delta_ar, ar, max_iter, trace, progress)


# -- Algorithm 7: ISNKPVN ------------------------------------------------------------------------


@dataclass(frozen=True)
class _OuterProblem:
    """Alg. 7 around an SNKPVN run: the textbook's, or the compiled engine's on the same G."""

    n: int
    ar: Arithmetic
    gamma: object
    epsilon: object
    max_iter: int
    trace: bool
    norm: Callable  # v -> ||v||_G
    snkpvn: Callable  # (q, delta, max_iter, trace) -> Result of SNKPVN(q, delta)
    verify_separator: Callable  # alpha -> '' or why not
    verify_certificate: Callable  # (p, accuracy) -> '' or why not (strict)


def _isnkpvn_init(pb: _OuterProblem) -> OuterState:
    return OuterState(t=0, q=pb.ar.uniform(pb.n), iterations=0)  # [RP14 Alg. 7] q_0 := 1_n/n


def _isnkpvn_step(pb: _OuterProblem, s: OuterState) -> OuterState:
    delta = pb.norm(s.q) / pb.gamma  # [RP14 Alg. 7] delta_t := ||q_t||_G / gamma
    inner = pb.snkpvn(s.q, delta, pb.max_iter - s.iterations, pb.trace)  # SNKPVN(q_t, delta_t)
    q, alpha = s.q, None
    if inner.status == SEPARATOR:
        alpha = inner.alpha  # SNKPVN halted with alpha (G alpha > 0): return alpha
    elif inner.status == CERTIFICATE:
        q = inner.p  # q_{t+1} := SNKPVN(q_t, delta_t)
    return OuterState(
        t=s.t + 1,
        q=q,
        iterations=s.iterations + inner.iterations,
        deltas=s.deltas + (delta,),
        inner_iterations=s.inner_iterations + (inner.iterations,),
        alpha=alpha,
        exhausted=inner.status == MAX_ITER,
        last=OuterRecord(t=s.t, q=s.q, delta=delta, inner=inner),
    )


def _isnkpvn_exit(pb: _OuterProblem, s: OuterState) -> Optional[str]:
    if s.exhausted:
        return None
    if s.alpha is not None:  # the last SNKPVN call returned a primal solution
        return SEPARATOR
    if s.deltas and s.deltas[-1] < pb.epsilon:  # [RP14 Alg. 7] delta_t < eps: halt, q_{t+1} is an eps-solution of (14)
        return CERTIFICATE
    if _indistinguishable_from_zero(pb, s.q):  # [E-A7] ||q_t||_G = 0: q_t is in W already (delta_t = 0 would never return)
        return CERTIFICATE
    return None


def _indistinguishable_from_zero(pb: _OuterProblem, q: np.ndarray) -> bool:
    """||q||_G = 0 as far as this arithmetic can tell  [E-A7, in floating point].

    q^T G q is computed with an error up to about n u (|G_ij| <= 1, q in the simplex), so below
    that ||q||_G cannot be told from 0 and delta_t = ||q_t||_G / gamma would ask SNKPVN for an
    accuracy it can never certify (it would spin until the budget runs out).  The guard is
    ||q||_G^2 <= n eps (:attr:`~reference.arithmetic.Arithmetic.eps`, 2u in float64), for
    both engines.
    """
    return pb.norm(q) ** 2 <= pb.ar.scalar(pb.n) * pb.ar.eps


def _isnkpvn_verify(pb: _OuterProblem, s: OuterState, claim: str) -> str:
    if claim == SEPARATOR:
        return pb.verify_separator(s.alpha)
    return pb.verify_certificate(s.q, pb.epsilon)


def _isnkpvn_output(pb: _OuterProblem, s: OuterState) -> dict:
    return {
        "alpha": s.alpha,
        "p": s.q,
        "info": {
            "T": s.t,
            "deltas": list(s.deltas),
            "inner_iterations": list(s.inner_iterations),
            "epsilon": pb.epsilon,
        },
    }


ISNKPVN = Algorithm(
    name="isnkpvn",
    init=_isnkpvn_init,
    step=_isnkpvn_step,
    exit=_isnkpvn_exit,
    counter=lambda s: s.iterations,
    verify=_isnkpvn_verify,
    output=_isnkpvn_output,
)


@one_thread
def isnkpvn(
    G,
    gamma=2.0,
    epsilon=1e-3,
    *,
    max_iter: int = 100_000,
    trace: bool = False,
    precision: Optional[int] = None,
    progress=None,
) -> Result:
    """Iterated SNKPVN, ISNKPVN(gamma, epsilon)  [RP14 Alg. 7].

    q_0 = 1_n/n; for t = 0, 1, ...: delta_t = ||q_t||_G / gamma; q_{t+1} = SNKPVN(q_t, delta_t),
    returning at once if SNKPVN returns a separator alpha; if delta_t < epsilon, halt with the
    epsilon-certificate q_{t+1} (||q_{t+1}||_G < delta_t < epsilon).  Guard (erratum E-A7): if
    ||q_t||_G = 0 -- in floating point: ||q_t||_G^2 <= n eps (eps = 2^-52 = 2u in float64,
    10^-dps in mpmath), below what the arithmetic resolves -- q_t is returned as a certificate
    at once (it is still verified: ||q_t||_G < epsilon).

    Theorem 4: feasible and epsilon < rho_K: a separator after O(log(1/rho_K)/log gamma) outer
    loops of at most 2 sqrt(2n)/rho_K iterations each; otherwise an epsilon-certificate after
    at most log(1/epsilon)/log gamma + 1 outer loops.

    Parameters
    ----------
    G : array_like, shape (n, n)
        Normalized signed Gram matrix (:func:`reference.gram`).
    gamma : float
        Shrink factor > 1 of the accuracies delta_t.
    epsilon : float
        Target accuracy > 0 of the certificate.
    max_iter : int
        Budget on the *total* number of inner (SNKPVN) iterations, and on the number of outer
        loops (a call that returns at k = 0 still costs a product with G).  Each SNKPVN call
        gets the budget that remains; a call that exhausts it ends the run with ``"max_iter"``.
    trace : bool
        Record, per outer loop, an :class:`OuterRecord` (t, q_t, delta_t, the SNKPVN Result
        with its own trace).
    precision : int, optional
        Run in mpmath at this many decimal digits.

    Returns
    -------
    Result
        ``"separator"`` with ``alpha`` (G alpha > 0 verified), ``"certificate"`` with ``p``
        (in the simplex, ||p||_G < epsilon verified), or ``"max_iter"``.  ``p`` is the last
        prox-centre q_t.  ``iterations`` is the total of inner iterations; ``info`` holds
        ``T`` (the number of SNKPVN calls), ``deltas`` [delta_0, ...], ``inner_iterations`` and
        ``epsilon``.
    """
    ar = arithmetic(precision)
    G = check_gram(G)
    gamma = check_real("gamma", gamma, low=1, hint="ISNKPVN shrinks delta_t by gamma > 1 per outer loop")
    epsilon = check_real("epsilon", epsilon, low=0, hint="the target accuracy must be positive")
    max_iter = check_int("max_iter", max_iter)
    trace = check_bool("trace", trace)
    with ar.context():
        G, gamma, epsilon = ar.array(G), ar.scalar(gamma), ar.scalar(epsilon)
    return outer_loop(
        G.shape[0], gamma, epsilon, ar, max_iter, trace,
        norm=lambda v: g_norm(G, v, ar),
        snkpvn=lambda q, delta, budget, trace: _run_snkpvn(G, q, delta, ar, budget, trace),
        verify_separator=lambda alpha: verify_separator_gram(G, alpha),
        verify_certificate=lambda p, accuracy: verify_certificate(G, p, accuracy, ar, strict=True), progress=progress,
    )  # fmt: skip


def outer_loop(
    n: int,
    gamma,
    epsilon,
    ar: Arithmetic,
    max_iter: int,
    trace: bool,
    *,
    norm: Callable,
    snkpvn: Callable,
    verify_separator: Callable,
    verify_certificate: Callable,
    progress: Optional[Callable] = None,
) -> Result:
    """ISNKPVN's outer loop  [RP14 Alg. 7, with the guard of E-A7] on validated arguments.

    Written once for both engines: the SNKPVN run inside is a parameter, ``snkpvn(q, delta,
    max_iter, trace) -> Result`` (this module's, or the compiled engine's), and so are ``norm(v)
    = ||v||_G`` and the verifiers of the two claims, ``verify_separator(alpha)`` and
    ``verify_certificate(p, accuracy)`` (strict), for the G they share.  ``gamma`` and
    ``epsilon`` are in the arithmetic ``ar``; ``progress(state)``, if given, sees the
    :class:`~reference.states.OuterState` after every outer loop.  Returns the Result of :func:`isnkpvn`.
    """
    pb = _OuterProblem(
        n=n, ar=ar, gamma=gamma, epsilon=epsilon, max_iter=max_iter, trace=trace, norm=norm, snkpvn=snkpvn,
        verify_separator=verify_separator, verify_certificate=verify_certificate,
    )  # fmt: skip
    # Every outer loop costs at least one G-product even when its SNKPVN call returns at k = 0,
    # so the outer loops are budgeted too: total work <= 2 max_iter SNKPVN iterations.
    result = drive(ISNKPVN, pb, ar, max_iter, trace, budget=lambda pb, s: s.exhausted or s.t >= pb.max_iter, progress=progress)
    if trace:
        result = replace(result, trace=tuple(s.last for s in result.trace[1:]))
    return result
