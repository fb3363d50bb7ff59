"""Smoothed normalized kernel perceptrons of RP14: SNKP (Alg. 4), SNKPVN (Alg. 6), ISNKPVN (Alg. 7).

Each algorithm is an ``init`` / ``step`` pair over an immutable state, run by
:func:`reference.result.drive`.  The same code runs in float64 and in mpmath.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .arithmetic import Arithmetic, arithmetic, g_norm, log_mean_exp, project_simplex, softmax
from .data import check_gram, check_int, check_real, check_simplex
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


# -- state -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SmoothState:
    """The state (k, alpha_k, p_k, mu_k) of Algorithms 4 and 6; ``theta`` is theta_{k-1}."""

    k: int
    alpha: np.ndarray
    p: np.ndarray
    mu: object
    theta: object = None


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
    return {"alpha": s.alpha, "p": s.p, "info": {"mu": s.mu}}


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


def snkp(G, *, max_iter: int = 10_000, trace: bool = False, precision: Optional[int] = None) -> Result:
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
    with ar.context():
        pb = _Problem(G=ar.array(G), ar=ar)
    return drive(SNKP, pb, ar, max_iter, trace)


def snkpvn(*a, **k):  # PLACEHOLDER (being written)
    raise NotImplementedError


def isnkpvn(*a, **k):  # PLACEHOLDER (being written)
    raise NotImplementedError
