"""The papers' iteration bounds as plain functions of the instance's parameters.

One place for every bound formula; the sized default budgets (:mod:`reference.budgets`), the checks
(:mod:`theorems.rp14`, :mod:`theorems.pt11` through :mod:`theorems.paper_bounds`), the
demo and the bounds explorer all call these.  Formulas follow spec/algorithms.md (RP14 Part A,
PT11 Part B); each cites its source.  Bounds that overflow float64 (PDM with small eps) are
evaluated in log space and returned as ``math.inf`` only when they truly exceed 1e308.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "radius",
    "novikoff",
    "normalized_perceptron",
    "nkp",
    "snkp",
    "nvn",
    "snkpvn_feasible",
    "snkpvn_infeasible",
    "snkpvn_infeasible_printed",
    "isnkpvn_outer_loops",
    "isnkpvn_total",
    "pfm_theorem1",
    "pdm_theorem2",
]

E = math.e


def _check_margin(name: str, value: float) -> float:
    value = float(value)
    if not value > 0:
        raise ValueError(f"{name} must be > 0 for this bound (got {value!r}); the bound applies to separable data only")
    return value


def radius(points) -> float:
    """R = max_k ||y_k||, the largest row norm of ``points`` (the data X, or PT11's patterns y_k):
    the R of Block-Novikoff's bound [RP14 Sec. 2] and of PT11 Thms. 1, 2 [PT11 Sec. 2]."""
    P = np.asarray(points, dtype=np.float64)
    return float(np.max(np.linalg.norm(P, axis=1)))


def novikoff(R: float, rho: float) -> float:
    """Perceptron mistakes <= R^2 / rho^2  [RP14 Sec. 2, Block-Novikoff]."""
    rho = _check_margin("rho", rho)
    return float(R) ** 2 / rho**2


def normalized_perceptron(rho_2: float) -> float:
    """Normalized Perceptron iterations <= 1 / rho_2^2 on X_2  [RP14 Sec. 2.1]."""
    rho_2 = _check_margin("rho_2", rho_2)
    return 1.0 / rho_2**2


def nkp(rho_K: float) -> float:
    """NKP iterations <= 1 / rho_K^2  [RP14 Sec. 3.2]."""
    rho_K = _check_margin("rho_K", rho_K)
    return 1.0 / rho_K**2


def snkp(rho_K: float, n: int) -> float:
    """SNKP iterations <= 2 sqrt(2 log n) / rho_K  [RP14 Thm. 1]."""
    rho_K = _check_margin("rho_K", rho_K)
    return 2.0 * math.sqrt(2.0 * math.log(n)) / rho_K


def nvn(epsilon: float) -> float:
    """NVN iterations <= 1 / eps^2 for infeasible unit-norm data  [RP14 Sec. 5.1]."""
    return 1.0 / float(epsilon) ** 2


def snkpvn_feasible(rho_K: float, n: int) -> float:
    """SNKPVN iterations <= 2 sqrt(2n) / rho_K when rho_K > 0 and delta < rho_K  [RP14 Lemma 8]."""
    rho_K = _check_margin("rho_K", rho_K)
    return 2.0 * math.sqrt(2.0 * n) / rho_K


def snkpvn_infeasible(delta: float, n: int, q_norm_G: float, rho_K: float) -> float:
    """SNKPVN iterations when rho_K < 0, from Lemma 9 with the *corrected* Lemma 7  [RP14 Lemmas 7, 9; E-A2].

    ||p_k||_G <= (2 sqrt(n)/(k+1)) B, B = min{sqrt(3/2) ||q||_G/|rho_K|, sqrt 2 ||q||_G/(||q||_G + |rho_K|)}
    (``proofs_check`` ``RP14.Lemma7.corrected``), so ||p_k||_G < delta once k + 1 > 2 sqrt(n) B / delta.
    (B <= sqrt 2 min{1, ||q||_G/|rho_K|}, the form the printed proof gives.)
    """
    g, r = float(q_norm_G), abs(float(rho_K))
    B = math.sqrt(2.0) * g / (g + r) if g + r > 0 else 0.0
    if r > 0:
        B = min(B, math.sqrt(1.5) * g / r)
    return 2.0 * math.sqrt(float(n)) * B / float(delta)


def snkpvn_infeasible_printed(delta: float, n: int, q_norm_G: float, rho_K: float) -> float:
    """SNKPVN iterations when rho_K < 0 from Lemma 9 with the *printed* Lemma 7  [RP14 Lemmas 7, 9 as printed; E-A2].

    printed: ||p_k||_G <= (2 sqrt(n)/(k+1)) min{sqrt 2, ||q||_G/|rho_K|}, so ||p_k||_G < delta once
    k + 1 > 2 sqrt(n) min{sqrt 2, ||q||_G/|rho_K|} / delta.  Smaller than :func:`snkpvn_infeasible`
    by up to sqrt(3/2) (when ||q||_G is small), and resting on a Lemma 7 that is false as printed
    (``RP14.lemma7.printed``); kept as the explorer's ``snkpvn.printed`` target.
    """
    second = math.inf if rho_K == 0 else float(q_norm_G) / abs(float(rho_K))
    return 2.0 * math.sqrt(float(n)) * min(math.sqrt(2.0), second) / float(delta)


def isnkpvn_total(n: int, q0_norm_G: float, rho_K: float, gamma: float, eps: float) -> float:
    """Total inner iterations of ISNKPVN(gamma, eps) from q_0  [RP14 Thm. 4 with Lemmas 8, 9 (proved) and (15); RECON].

    Feasible (rho_K > 0): at most ``isnkpvn_outer_loops(||q_0||_G, rho_K, gamma)`` calls (a call
    with delta_t <= rho_K returns a separator, Lemma 3), each within 2 sqrt(2n)/rho_K iterations
    (Lemma 8: its halting argument does not depend on delta).
    Infeasible (rho_K <= 0): T = ``isnkpvn_outer_loops(||q_0||_G, eps, gamma)`` calls; every call but
    the last has delta_t >= eps, and call t takes at most
    2 sqrt(n) gamma min{sqrt(3/2)/|rho_K|, sqrt 2/(gamma delta_t + |rho_K|)} iterations (Lemma 9 with the
    corrected Lemma 7, E-A2, and ||q_t||_G = gamma delta_t), so the total is
    2 sqrt(n) gamma [(T - 1) min{sqrt(3/2)/|rho_K|, sqrt 2/(gamma eps + |rho_K|)} + sqrt(3/2)/|rho_K|]
    (inf when rho_K = 0).
    """
    c = 2.0 * math.sqrt(2.0 * n)
    rho_K = float(rho_K)
    if rho_K > 0:
        return isnkpvn_outer_loops(q0_norm_G, min(rho_K, float(q0_norm_G)) if q0_norm_G > 0 else rho_K, gamma) * c / rho_K
    if q0_norm_G <= 0:
        return 0.0
    T = isnkpvn_outer_loops(q0_norm_G, eps, gamma)
    if rho_K == 0:
        return math.inf
    c, gm, r = 2.0 * math.sqrt(float(n)), float(gamma), abs(rho_K)
    last = c * gm * math.sqrt(1.5) / r
    per = min(last, c * gm * math.sqrt(2.0) / (gm * float(eps) + r))
    return (T - 1) * per + last


def isnkpvn_outer_loops(q0_norm_G: float, target: float, gamma: float) -> int:
    """Outer loops of ISNKPVN: delta_t <= ||q_0||_G / gamma^{t+1} < target after
    floor(log(||q_0||_G / target) / log gamma) + 1 loops  [RP14 eq. (15), Thm. 4]."""
    if q0_norm_G <= target:
        return 1
    return int(math.floor(math.log(float(q0_norm_G) / float(target)) / math.log(float(gamma)))) + 1


def pfm_theorem1(R: float, gamma_d: float, eps: float) -> float:
    """PFM updates <= (1 + e^-1) delta (C + ln((1 + e) delta))  [PT11 Thm. 1, Lemma 1].

    delta = R^2/(2 eps gamma_d^2), alpha = 2 (gamma_d/R)(1 - (gamma_d/R)(1 - eps)),
    C = 2 sqrt(alpha) + ln sqrt(alpha); here beta = (1 - eps) gamma_d.
    """
    gamma_d = _check_margin("gamma_d", gamma_d)
    eps = float(eps)
    if not 0 < eps <= 1:
        raise ValueError(f"eps must lie in (0, 1], got {eps!r}")
    x = gamma_d / float(R)
    delta = float(R) ** 2 / (2.0 * eps * gamma_d**2)
    alpha = 2.0 * x * (1.0 - x * (1.0 - eps))
    C = 2.0 * math.sqrt(alpha) + math.log(math.sqrt(alpha))
    return (1.0 + 1.0 / E) * delta * (C + math.log((1.0 + E) * delta))


def pdm_theorem2(R: float, gamma_d: float, eps: float) -> float:
    """PDM updates: the three cases of [PT11 Thm. 2] (spec B.7).

    eps < 1/2:  t_0 (1 - R^2/((1-2eps) gamma_d^2 t_0))^{1/(2eps)},
                t_0 = [1/eps] (R/gamma_d)^{1/eps} (1 + 1/((1-2eps)[1/eps]))^{1/(2eps)}
    eps = 1/2:  (1 + e^-1)(R^2/gamma_d^2) ln((1 + e) R^2/gamma_d^2)
    eps > 1/2:  t_0 (1 - 2(1-eps) t_0^{1-2eps}),  t_0 = (eps(3-2eps)/(2eps-1)) R^2/gamma_d^2
    """
    gamma_d = _check_margin("gamma_d", gamma_d)
    eps = float(eps)
    if not 0 < eps <= 1:
        raise ValueError(f"eps must lie in (0, 1], got {eps!r}")
    r2 = float(R) ** 2 / gamma_d**2
    if eps < 0.5:
        N = math.floor(1.0 / eps)
        log_t0 = math.log(N) + math.log(float(R) / gamma_d) / eps + math.log1p(1.0 / ((1.0 - 2.0 * eps) * N)) / (2.0 * eps)
        if log_t0 > 709:
            return math.inf
        t0 = math.exp(log_t0)
        return t0 * (1.0 - r2 / ((1.0 - 2.0 * eps) * t0)) ** (1.0 / (2.0 * eps))
    if eps == 0.5:
        return (1.0 + 1.0 / E) * r2 * math.log((1.0 + E) * r2)
    t0 = eps * (3.0 - 2.0 * eps) / (2.0 * eps - 1.0) * r2
    return t0 * (1.0 - 2.0 * (1.0 - eps) * t0 ** (1.0 - 2.0 * eps))
