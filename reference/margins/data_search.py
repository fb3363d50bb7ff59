"""The searches of the data-set margins: they only propose witnesses  [untrusted].

Their correctness is irrelevant to the claim of a :class:`~reference.margins.data_driver.DataMargin`:
:mod:`.data_bounds` evaluates every witness rigorously, and a Gordan certificate is verified
there in exact rational arithmetic.

* ``Delta > 0``: the hard margin in the extended space is the L2-loss SVM in d + 1 dimensions,
  min_v ||v||^2 + Delta^-2 sum_k max(0, 1 - v . z_k)^2 (the extended coordinates are
  s_k = max(0, 1 - v . z_k)/Delta), strongly convex and piecewise quadratic: semismooth Newton
  with the generalized Hessian 2 I + 2 Delta^-2 Z_I^T Z_I (a (d+1) x (d+1) matrix) converges in
  a few dozen steps to machine precision (:func:`_newton_l2svm`).
* no Delta: a linear program (HiGHS) decides whether 0 is in conv{y_k}: a vertex of
  {p >= 0, sum p = 1, sum p_k z_k = 0} has at most d + 2 points, which the rational check
  then certifies (:func:`gordan_certificate`).  Otherwise the data are separable and Wolfe's
  min-norm-point algorithm in primal form (:func:`_wolfe_primal`; its corral has at most d + 2
  points) gives u = sum p_k y_k and beta = p, polished at POLISH_DPS digits by the Gram-form
  search of :mod:`.search` (:func:`_polish_mp`).

Public API (second tier): :func:`gordan_certificate`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Optional, Tuple

import numpy as np
import scipy.sparse as sp

from ..arithmetic import Arithmetic, scale_rows_pow2
from ..patterns import Patterns
from .data_bounds import _exact_null_combination
from .search import kkt, wolfe

__all__ = ["gordan_certificate"]


#: Newton on the L2-SVM: at most this many steps; it stops once a full step keeps the active
#: set {k : v . z_k < 1} (then v is the minimizer of that piece's quadratic: the optimum).
NEWTON_MAX_STEPS = 200
#: LP weights below this are treated as 0 when reading the support of a Gordan certificate.
LP_SUPPORT_TOL = 1e-12
#: The LP for a Gordan certificate: (method, options) tried in turn until the support of the answer
#: verifies exactly -- HiGHS's dual simplex with its default tolerances (feasibility 1e-7), then with
#: tolerances 1e-10 (a vertex whose basic weights are down to -1e-7, as the default allows, has a support
#: that is no convex combination), then its interior-point method with crossover (another vertex of a
#: degenerate LP).  At most three LP solves; each one's answer is only a candidate support.
LP_TIGHT_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
LP_ATTEMPTS = (("highs-ds", {}), ("highs-ds", LP_TIGHT_OPTIONS), ("highs-ipm", LP_TIGHT_OPTIONS))
#: Wolfe's optimality test p^T K p - min_i (K p)_i <= WOLFE_RTOL p^T K p (primal form).
WOLFE_RTOL = 1e-14
WOLFE_MAX_ITER = 100_000
#: Wolfe's cycles (major and minor) are also at most WOLFE_CYCLES_PER_DIM (d0 + 2), d0 the pattern
#: length: a corral has at most d0 + 1 points, and the separable real sets take 3 to 6 cycles per
#: dimension (wdbc 187 for d0 = 30, sonar 194 for d0 = 60).  Each cycle costs O(nnz + |S|^2 d0).
WOLFE_CYCLES_PER_DIM = 50
#: The separable case is polished in mpmath (Wolfe on a candidate set) when the pattern length
#: is at most POLISH_MAX_DIM: float64 Wolfe stalls on ill-scaled data (wdbc: R ~ 5e3, margin ~ 4e-5).
POLISH_MAX_DIM = 128
POLISH_DPS = 40
POLISH_ROUNDS = 8


def gordan_certificate(P: Patterns) -> Optional[Tuple[Tuple[int, ...], Tuple[Fraction, ...]]]:
    """Find and verify exactly a convex combination of the patterns that is 0  [RP14 Lemma 6].

    Returns ``(support, c)`` with c_k > 0 rationals summing to 1 and sum_k c_k z_k = 0 exactly
    (z_k = l_k [x_k, rho]; the extended space has no such combination), or ``None`` if the LP
    says the data are separable or its vertex does not verify exactly.

    The search (untrusted) is an LP on the rows scaled by powers of two, s_k z_k with s_k = 2^-e_k
    bringing each row's largest |entry| into [1/2, 1) (:func:`scale_rows_pow2`; exact).  A combination
    sum_k p_k s_k z_k = 0 is one of the z_k with weights p_k s_k (renormalized): the same support, and
    the exact solve below runs on the z_k as passed, so what is certified is a combination of the
    user's patterns.  On the scaled rows the LP sees the same matrix, bit for bit, whatever power of
    two a row was multiplied by: a row scaled by 2^-20 no longer hides below HiGHS's feasibility
    tolerance 1e-7, and the decision does not depend on the scale of a row.  If the support of the
    LP's vertex does not verify, the LP is solved again as :data:`LP_ATTEMPTS` lists (at most three
    solves); an answer "infeasible" ends the search (the data are then separable to the LP's tolerance).
    """
    from scipy.optimize import linprog

    if P.Delta is not None:
        return None
    Zs = scale_rows_pow2(P.Z())
    A = sp.vstack([Zs.T, sp.csr_matrix(np.ones((1, P.m)))]).tocsc()
    b = np.zeros(P.d0 + 1)
    b[-1] = 1.0
    for method, options in LP_ATTEMPTS:
        res = linprog(np.zeros(P.m), A_eq=A, b_eq=b, bounds=(0, None), method=method, options=options)
        if res.status == 2:  # infeasible: no convex combination is 0 (to the LP's tolerance)
            return None
        if res.status != 0 or res.x is None:
            continue
        S = np.flatnonzero(res.x > LP_SUPPORT_TOL)
        c = _exact_null_combination(P, S)  # on the patterns as passed (the support is that of the scaled rows)
        if c is not None:
            keep = [i for i in range(len(S)) if c[i] > 0]
            return tuple(int(S[i]) for i in keep), tuple(c[i] for i in keep)
    return None


def _newton_l2svm(P: Patterns) -> Tuple[np.ndarray, np.ndarray, int]:
    """min_v ||v||^2 + Delta^-2 sum_k max(0, 1 - v . z_k)^2 by semismooth Newton; returns (v, s, steps).

    s_k = max(0, 1 - v . z_k) / Delta are the extended coordinates (the slack of PT11 Sec. 5).
    From v = 0, each step is v + t d: d solves H d = -grad f(v) with the generalized Hessian
    H = 2 I + 2 Delta^-2 Z_I^T Z_I of the active set I = {k : v . z_k < 1}, and t is the first of
    1, 1/2, 1/4, ... with f(v + t d) <= f(v) + 1e-4 t grad f(v) . d, or 2^-40 (the first <= 1e-12)
    if none before it is (Armijo backtracking by halving: Nocedal & Wright, Numerical
    Optimization, Alg. 3.1, with rho = 1/2, c = 1e-4).
    """
    Z = P.Z()
    D2 = float(P.Delta) ** 2
    v = np.zeros(P.d0)

    def f(v):
        r = np.maximum(1 - Z @ v, 0)
        return v @ v + (r @ r) / D2

    steps = 0
    I = np.arange(P.m)  # at v = 0 every k has 1 - v.z_k = 1 > 0
    while steps < NEWTON_MAX_STEPS:
        steps += 1
        r = 1 - Z @ v
        ZI = Z[I]
        g = 2 * v - (2 / D2) * (ZI.T @ r[I])
        H = 2 * np.eye(P.d0) + (2 / D2) * (ZI.T @ ZI).toarray()  # generalized Hessian on the active set
        try:
            step = np.linalg.solve(H, -g)
        except np.linalg.LinAlgError:  # 2 I lost beside a tiny Delta's 2 Delta^-2 Z_I^T Z_I (rank deficient)
            step = np.linalg.lstsq(H, -g, rcond=None)[0]
        t, f0, slope = 1.0, f(v), g @ step
        while f(v + t * step) > f0 + 1e-4 * t * slope and t > 1e-12:  # Armijo backtracking
            t /= 2
        v = v + t * step
        I_new = np.flatnonzero(1 - Z @ v > 0)
        if t == 1.0 and np.array_equal(I_new, I):
            break  # v minimizes the quadratic of its own active set: the optimum (to round-off)
        I = I_new
    s = np.maximum(1 - Z @ v, 0) / float(P.Delta)
    return v, s, steps


def _wolfe_primal(Yn: sp.csr_matrix) -> Tuple[np.ndarray, int, bool]:
    """Wolfe's min-norm point of conv{rows of Yn}, in primal form (K_SS = Y_S Y_S^T only); returns (p, iters, converged).

    The same major / minor cycles as :func:`reference.margins.search.wolfe`, with K p = Yn (Yn^T p):
    start from the row of least norm; a major cycle adds j = argmin_k y_k . x (x the current point)
    to the corral S; a minor cycle moves x toward the affine minimizer of S as far as conv(S)
    allows and drops exactly the points whose weight vanishes there, until the affine minimizer
    has positive weights [Wolfe 1976].  In exact arithmetic the norm of x decreases strictly from
    one major cycle to the next; a major cycle that starts at a point no shorter than the previous
    one's (round-off dominates: non-separable data, whose min-norm point 0 the float iterates approach
    to ~1e-15 and then circle, adding a point and dropping it again) ends the run unconverged.  At most
    min(WOLFE_MAX_ITER, WOLFE_CYCLES_PER_DIM (d0 + 2)) cycles.
    """
    m, d0 = Yn.shape
    max_iter = min(WOLFE_MAX_ITER, WOLFE_CYCLES_PER_DIM * (d0 + 2))
    sq = Yn.multiply(Yn).sum(axis=1).A1
    j0 = int(np.argmin(sq))
    S = [j0]
    w_S = np.array([1.0])
    it, converged = 0, False

    def affine_min(S):
        YS = Yn[S].toarray()
        K = YS @ YS.T
        n = len(S)
        A = np.ones((n + 1, n + 1))
        A[:n, :n] = K
        A[n, n] = 0
        rhs = np.zeros(n + 1)
        rhs[n] = 1
        try:
            return np.linalg.solve(A, rhs)[:n]
        except np.linalg.LinAlgError:
            return np.linalg.lstsq(A, rhs, rcond=None)[0][:n]

    q_prev = math.inf
    while it < max_iter:
        it += 1
        x = Yn[S].T @ w_S  # the current point sum p_k y_k
        Kp = Yn @ x
        q = x @ x
        j = int(np.argmin(Kp))
        if q - Kp[j] <= WOLFE_RTOL * q:
            converged = True
            break
        if j in S or not q < q_prev:  # no progress: in exact arithmetic q decreases strictly
            break
        q_prev = q
        S.append(j)
        w_S = np.append(w_S, 0.0)
        while True:  # minor cycle
            a = affine_min(S)
            if np.all(a > 0):
                w_S = a
                break
            it += 1
            neg = np.flatnonzero(a <= 0)
            ratios = w_S[neg] / (w_S[neg] - a[neg])
            theta = float(np.min(ratios))
            w_S = w_S + theta * (a - w_S)
            w_S[neg[int(np.argmin(ratios))]] = 0.0
            keep = w_S > 0
            S = [s for s, k in zip(S, keep) if k]
            w_S = w_S[keep]
    p = np.zeros(m)
    p[S] = w_S / w_S.sum()
    return p, it, converged


def _polish_mp(Yn: sp.csr_matrix, p: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Wolfe at POLISH_DPS digits on a candidate set (support of p and the points of smallest
    margin, ties to the lower index: a stable sort, so the candidates are the same on every machine),
    enlarged until no point violates optimality; returns (p, u = sum p_k y_k) in float64."""
    ar = Arithmetic(POLISH_DPS)
    m, d0 = Yn.shape
    C = set(np.flatnonzero(p > 0).tolist())
    u = Yn.T @ p
    for _ in range(POLISH_ROUNDS):
        marg = Yn @ u
        cand = sorted(C | set(np.argsort(marg, kind="stable")[: 2 * (d0 + 1)].tolist()))
        with ar.context():
            Ym = ar.array(Yn[cand].toarray())
            K = Ym @ Ym.T
            # warm start: the affine minimizer, at this precision, of the float64 support (as search._mnp)
            S0 = [i for i, k in enumerate(cand) if p[k] > 0]
            start = None
            if S0:
                w, _ = kkt(K[np.ix_(S0, S0)], ar)
                if all(x > 0 for x in w):
                    start = ar.zeros(len(cand))
                    for i, x in zip(S0, w):
                        start[i] = x
            pc, S, _, _ = wolfe(K, ar, WOLFE_MAX_ITER, start=start)
            u_mp = Ym.T @ pc
            u = np.array([float(v) for v in u_mp])
            p = np.zeros(m)
            p[cand] = [float(v) for v in pc]
        marg = Yn @ u
        viol = set(np.flatnonzero(marg < (u @ u) * (1 - 1e-12)).tolist()) - set(cand)
        if not viol:
            break
        C = {cand[i] for i in S} | viol
    return p, u
