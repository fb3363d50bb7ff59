"""The searches that only propose witnesses: Wolfe's min-norm point, its KKT solves, local search.

Nothing here is trusted: whatever these functions return, the claims of a
:class:`~reference.margins.driver.Margin` come from :mod:`.bounds`, which evaluates the
proposed alpha and p rigorously.  A wrong or inaccurate search can only make the certified
interval wider (or the verdict undecided), never wrong.

* :func:`wolfe`: Wolfe's (1976) min-norm-point algorithm in Gram form; :func:`kkt` the affine
  minimizer on a support, [K_SS 1; 1^T 0][w; nu] = [0; 1]  [RP14 Lemma 3 KKT], solved in float64
  or at D digits (:func:`_solve_mp`: mixed-precision refinement, :func:`_gauss_mp` its fallback);
* :func:`_mnp` / :func:`min_norm_point`: Wolfe in float64, then warm-started at D digits;
* :func:`_local_search`: a heuristic best facet of the hull when the complete enumeration of
  :mod:`.facets` is too expensive (a lower-bound witness only).

Public API (second tier): :class:`MinNormPoint`, :func:`min_norm_point`, and for the data-set
margins (:mod:`.data_search`) the shared :func:`kkt` and :func:`wolfe`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, Optional, Tuple

import mpmath
import numpy as np

from ..arithmetic import UNIT_ROUNDOFF, Arithmetic, to_float
from ..data import check_int
from .facets import _hyperplanes
from .matrix import _prepare

__all__ = ["DEFAULT_MAX_ITER", "MinNormPoint", "kkt", "min_norm_point", "wolfe"]

DEFAULT_MAX_ITER = 10_000


@dataclass(frozen=True)
class MinNormPoint:
    """The min-norm point p* = argmin_{p in Delta_n} ||p||_K of conv{z_i}  [RP14 Lemma 3].

    Unpacks as ``p, support = min_norm_point(K)``.

    Attributes
    ----------
    p : ndarray
        A point of the simplex (entries >= 0; they sum to 1 up to round-off).
    support : tuple of int
        ``{i : p_i > 0}``.
    norm : float or mpmath.mpf
        ``||p||_K`` (computed; ~0 in the infeasible case).
    iterations : int
        Major plus minor cycles of Wolfe's algorithm.
    converged : bool
        Wolfe's optimality test ``p^T K p - min_i (K p)_i <= tol`` passed.
    precision : str
    """

    p: np.ndarray
    support: Tuple[int, ...]
    norm: object
    iterations: int
    converged: bool
    precision: str

    def __iter__(self) -> Iterator:
        yield self.p
        yield self.support


def kkt(KSS: np.ndarray, ar: Arithmetic):
    """Affine minimizer on S: solve [K_SS 1; 1^T 0][w; nu] = [0; 1]; return (w, lambda = -nu).

    w minimizes w^T K_SS w subject to 1^T w = 1, and lambda = w^T K_SS w  [RP14 Lemma 3 KKT].
    """
    m = KSS.shape[0]
    if not ar.is_mp:
        A = np.ones((m + 1, m + 1))
        A[:m, :m] = KSS
        A[m, m] = 0.0
        rhs = np.zeros(m + 1)
        rhs[m] = 1.0
        try:
            x = np.linalg.solve(A, rhs)
            if not np.all(np.isfinite(x)):
                raise np.linalg.LinAlgError
        except np.linalg.LinAlgError:
            x = np.linalg.lstsq(A, rhs, rcond=None)[0]
        return x[:m], -x[m]
    A = np.empty((m + 1, m + 1), dtype=object)
    A[:m, :m] = KSS
    A[:m, m] = A[m, :m] = ar.scalar(1)
    A[m, m] = ar.scalar(0)
    rhs = ar.zeros(m + 1)
    rhs[m] = ar.scalar(1)
    x = _solve_mp(A, rhs, ar)
    return np.array([x[i] for i in range(m)], dtype=object), -x[m]


def _gauss_mp(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Gaussian elimination with partial pivoting on mpf lists (the exact fallback of :func:`_solve_mp`)."""
    m = A.shape[0]
    M = [list(A[i]) + [b[i]] for i in range(m)]
    for k in range(m):
        piv = max(range(k, m), key=lambda i: abs(M[i][k]))
        if M[piv][k] == 0:
            raise ZeroDivisionError("singular KKT matrix")
        M[k], M[piv] = M[piv], M[k]
        rk = M[k]
        for i in range(k + 1, m):
            f = M[i][k] / rk[k]
            if f != 0:
                M[i] = M[i][:k] + [a - f * c for a, c in zip(M[i][k:], rk[k:])]
    x = [None] * m
    for k in range(m - 1, -1, -1):
        x[k] = (M[k][m] - mpmath.fsum(M[k][j] * x[j] for j in range(k + 1, m))) / M[k][k]
    return np.array(x, dtype=object)


def _solve_mp(A: np.ndarray, b: np.ndarray, ar: Arithmetic) -> np.ndarray:
    """Solve A x = b at the working mpmath precision.

    Mixed-precision iterative refinement while it contracts: float64 solves of the residual
    b - A x, each entry by ``mpmath.fdot``: exact products, summed without rounding except that a
    term more than twice the working precision (in bits) below the running sum is dropped, then
    rounded once -- an error below ~n u^2 |A| |x| (``fdot([1e100, 1, -1e100])`` is 0 at 30 digits).
    A residual that accurate (not rounded at eps |A| |x|, as a working-precision product would
    be) makes the refinement converge to x within ~eps relative for every A whose float64
    factorization contracts (cond(A) u_64 well below 1; fast enough for the cap of 60 corrections
    below), however ill-conditioned A is at the working precision
    [Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Sec. 12.1: refinement with a
    residual in extra precision has limiting accuracy ~u].  So a correction that stops shrinking
    means float64 cannot factor A: Gaussian elimination at the working precision instead
    (:func:`_gauss_mp`).  A singular system falls back to the float64 least-squares solution.

    The rule, exactly: refinement returns x at once when its residual is exactly 0, else after the
    first correction dx with max|dx| / max(max|x|, 1e-300) <= 10 eps (eps = 10^-D); it hands over to elimination when a
    relative correction is more than a quarter of the previous one (a quarter exactly still
    contracts), or when 60 corrections have not reached 10 eps (a cap on the work; cond(A) ~ 1e15
    at 200 digits hits it, and elimination leaves ~cond eps).
    """
    Af = to_float(A)
    target = ar.eps * 10
    try:
        x = ar.array(np.linalg.solve(Af, to_float(b)))
        prev = None
        for _ in range(60):
            minus_x = [-v for v in x]
            res = np.array([mpmath.fdot([bi, *Ai], [1, *minus_x]) for Ai, bi in zip(A, b)])
            sc = max(abs(v) for v in res)
            if sc == 0:
                return x
            d = np.linalg.solve(Af, to_float(res / sc))
            dx = ar.array(d) * sc
            x = x + dx
            size = max(abs(v) for v in dx) / max(max(abs(v) for v in x), ar.scalar(1e-300))
            if size <= target:
                return x
            if prev is not None and size > prev / 4:
                break  # not contracting: float64 cannot factor A
            prev = size
    except np.linalg.LinAlgError:
        pass
    try:
        return _gauss_mp(A, b)
    except ZeroDivisionError:
        return ar.array(np.linalg.lstsq(Af, to_float(b), rcond=None)[0])


def wolfe(K: np.ndarray, ar: Arithmetic, max_iter: int, start: Optional[np.ndarray] = None):
    """Wolfe's (1976) min-norm-point algorithm on the columns of K; returns (p, S, iters, converged).

    Major cycle: add j = argmin_i (K p)_i unless p^T K p - (K p)_j <= tol.  Minor cycle: move to
    the affine minimizer of S (:func:`kkt`); if it leaves the simplex, step to the boundary and
    drop the points whose weight vanishes.
    """
    n = K.shape[0]
    zero, one = ar.scalar(0), ar.scalar(1)
    diag = [K[i, i] for i in range(n)]
    scale = max(diag)
    u = ar.scalar(ar.u)  # the unit round-off of ar (reference.arithmetic.Arithmetic.u)
    tol_abs = 64 * ar.scalar(n) * u * scale
    tol_rel = (ar.scalar(1e-13) if not ar.is_mp else 1000 * ar.scalar(n) * u)
    if start is None:
        j0 = min(range(n), key=lambda i: diag[i])
        S = [j0]
        p = ar.zeros(n)
        p[j0] = one
    else:
        p = start.copy()
        S = [i for i in range(n) if p[i] > 0]
    it, converged = 0, False
    while it < max_iter:
        it += 1
        Kp = K @ p
        q = p @ Kp
        j = min(range(n), key=lambda i: Kp[i])
        if q - Kp[j] <= tol_rel * abs(q) + tol_abs:
            converged = True
            break
        if j in S:  # round-off stall: the affine minimizer of S is not improved by its own points
            break
        S.append(j)
        first = True
        while it < max_iter:
            w, _ = kkt(K[np.ix_(S, S)], ar)
            if all(x > 0 for x in w):
                p = ar.zeros(n)
                for k, i in enumerate(S):
                    p[i] = w[k]
                break
            it += 1
            pS = [p[i] for i in S]
            ratios = [(pS[k] / (pS[k] - w[k]), k) for k in range(len(S)) if w[k] <= 0]
            theta, kmin = min(ratios, key=lambda t: t[0])
            if first and S[kmin] == j and theta <= 0:
                break  # the new point would be dropped at once: round-off stall
            first = False
            new = [pS[k] + theta * (w[k] - pS[k]) for k in range(len(S))]
            new[kmin] = zero
            keep = [k for k in range(len(S)) if new[k] > 0]
            p = ar.zeros(n)
            for k in keep:
                p[S[k]] = new[k]
            S = [S[k] for k in keep]
        else:
            break
    # polish: the exact affine minimizer of the final support, if it is inside the simplex
    if S:
        w, _ = kkt(K[np.ix_(S, S)], ar)
        if all(x > 0 for x in w):
            p = ar.zeros(n)
            for k, i in enumerate(S):
                p[i] = w[k]
    p = np.array([x if x > 0 else zero for x in p], dtype=p.dtype)
    p = p / sum(p)
    return p, tuple(int(i) for i in range(n) if p[i] > 0), it, converged


def _zero_tol(Kf: np.ndarray) -> float:
    """||p||_K^2 below this is 0 within the round-off of Wolfe's algorithm (64 n u max_i K_ii)."""
    return 64 * Kf.shape[0] * UNIT_ROUNDOFF * float(np.max(np.diag(Kf)))


def _mnp(Kf: np.ndarray, Km: np.ndarray, ar: Arithmetic, max_iter: int) -> Tuple[MinNormPoint, bool]:
    """Wolfe in float64, then (precision mode) warm-started Wolfe at the chosen precision.

    Returns the min-norm point and whether its float64 norm is 0 within round-off (then the
    precision-mode refinement is skipped: the point is only converted).
    """
    p, S, it, conv = wolfe(Kf, Arithmetic(None), max_iter)
    q = float(p @ (Kf @ p))
    is_zero = conv and q <= _zero_tol(Kf)
    if ar.is_mp:
        with ar.context():
            start = ar.array(p)
            if not is_zero:
                w, _ = kkt(Km[np.ix_(list(S), list(S))], ar)
                if all(x > 0 for x in w):
                    start = ar.zeros(Kf.shape[0])
                    for k, i in enumerate(S):
                        start[i] = w[k]
                p, S, it2, conv = wolfe(Km, ar, max(max_iter - it, 1), start=start)
                it += it2
            else:
                p = start / sum(start)
            qm = p @ (Km @ p)
            norm = ar.sqrt(qm if qm > 0 else ar.scalar(0))
    else:
        norm = math.sqrt(max(q, 0.0))
    return MinNormPoint(p=p, support=S, norm=norm, iterations=it, converged=conv, precision=ar.label), is_zero


def min_norm_point(K, *, precision: Optional[int] = None, max_iter: int = DEFAULT_MAX_ITER) -> MinNormPoint:
    """The min-norm point p* = argmin_{p in Delta_n} p^T K p of the hull of the points  [RP14 Lemma 3].

    Wolfe's min-norm-point algorithm in Gram form (exact support, then the KKT system on it);
    with ``precision=D`` the float64 support is re-solved and re-checked at D digits.
    ``||p*||_K`` is the margin when positive, and ~0 iff 0 is in the hull [RP14 Theorem 2];
    with a shifted Gram matrix it gives dist(q, W)-type distances.

    Parameters
    ----------
    K : array_like, shape (n, n)
        Symmetric PSD Gram matrix of the points (float64 or mpf entries).
    precision : int, optional
        mpmath decimal digits; ``None`` for float64.
    max_iter : int
        Budget of Wolfe cycles (major + minor).

    Raises
    ------
    ValueError
        K not square / symmetric / finite / PSD, K = 0, bad precision or max_iter.
    """
    max_iter = check_int("max_iter", max_iter, low=1)
    Kf, Km, ar = _prepare(K, precision, as_stored=False)  # an estimate, no certificate: rounding K is fine
    return _mnp(Kf, Km, ar, max_iter)[0]


def _local_search(Zs: np.ndarray, r: int, tol_side: float, budget: int, rng: np.random.Generator):
    """Heuristic best facet when enumeration is too expensive; returns (b, a, subset or None).

    min(budget, cap // 4) sampled r-subsets, smoothed ascent on the sphere of g(f) = min_i <f, z_i>
    from 32 random starts (polished to the hyperplane through the r most active points), then a
    pivoting walk on the facet graph: each round tries the r (n - r) single swaps of the best
    subset so far -- or, when they exceed the budget left, the swaps with the (cap - used) // (2 r)
    points nearest its hyperplane -- and stops when a round does not improve.  At most
    cap = max(2000, int(5e7 / (r^3 + n r))) hyperplanes are computed, so for large rank the search
    is coarse; they go to :func:`_hyperplanes` in blocks of int(4e6 // (r (r + 1) + n)) subsets
    (memory: about 4e6 numbers per block).  Whatever it finds is only a LOWER bound.
    """
    nu = Zs.shape[0]
    cap = max(2_000, int(5e7 / (r**3 + nu * r)))
    used = 0
    best = None

    def consider(subsets) -> bool:
        nonlocal best, used
        subsets = subsets[: max(cap - used, 0)]
        used += len(subsets)
        improved = False
        chunk = max(1, int(4e6 // (r * (r + 1) + nu)))
        for s in range(0, len(subsets), chunk):
            block = subsets[s : s + chunk]
            rows, a, b = _hyperplanes(Zs, block, tol_side)
            if rows.size:
                k = int(np.argmax(b))
                if best is None or best[2] is None or b[k] > best[0]:
                    best = (float(b[k]), a[k], block[rows[k]])
                    improved = True
        return improved

    consider(np.array([rng.choice(nu, r, replace=False) for _ in range(min(budget, cap // 4))], dtype=np.int64))
    # smoothed ascent from random directions; each direction is itself a lower-bound witness
    F = rng.standard_normal((32, r))
    F /= np.linalg.norm(F, axis=1, keepdims=True)
    for k in range(300):
        tau = 0.1 * 0.98**k
        V = F @ Zs.T
        W = np.exp(-(V - V.min(axis=1, keepdims=True)) / tau)
        W /= W.sum(axis=1, keepdims=True)
        grad = W @ Zs
        grad -= np.sum(grad * F, axis=1, keepdims=True) * F
        F = F + 0.05 * grad
        F /= np.linalg.norm(F, axis=1, keepdims=True)
    V = F @ Zs.T
    g = V.min(axis=1)
    if best is None:
        k = int(np.argmax(g))
        best = (float(g[k]), F[k], None)
    consider(np.sort(np.argsort(V, axis=1)[:, :r], axis=1))
    # pivoting walk on the facet graph
    while used < cap and best[2] is not None:
        T = best[2]
        others = np.setdiff1d(np.arange(nu), T)
        cand = np.repeat(T[None, :], r * len(others), axis=0)
        cand[np.arange(len(cand)), np.repeat(np.arange(r), len(others))] = np.tile(others, r)
        if len(cand) > cap - used:  # too many swaps: try those with the points nearest the facet first
            vals = Zs[others] @ best[1] - best[0]
            near = others[np.argsort(vals)[: max(1, (cap - used) // (2 * r))]]
            cand = np.repeat(T[None, :], r * len(near), axis=0)
            cand[np.arange(len(cand)), np.repeat(np.arange(r), len(near))] = np.tile(near, r)
        if len(cand) == 0 or not consider(cand):
            break
    return best
