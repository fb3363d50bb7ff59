"""Helpers shared by several test files."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest

import reference as ref
from reference import dynamic_margin as dm
from reference.arithmetic import Arithmetic
from reference.exact import margin_witness_value, ratio_at_least, rational
from reference.margins import bounds, facets, search
from reference.patterns import make_patterns


def full(msg: str) -> str:
    """A regex matching exactly ``msg`` (the whole error message)."""
    return "^" + re.escape(msg) + "$"


MP = Arithmetic(50)


def raises_ending(match_end: str):
    """pytest.raises(ValueError) whose message ENDS with the given literal text (the fix)."""
    return pytest.raises(ValueError, match=re.escape(match_end) + "$")


def raises_starting(match_start: str):
    """pytest.raises(ValueError) whose message STARTS with the given literal text (the argument)."""
    return pytest.raises(ValueError, match="^" + re.escape(match_start))


def gram_of(Z) -> np.ndarray:
    """Gram matrix of the reflected points (rows of Z)."""
    Z = np.asarray(Z, dtype=float)
    return Z @ Z.T


def gram_of(Z):
    Z = np.asarray(Z, dtype=float)
    return Z @ Z.T


# Kite with the origin strictly inside; the first Wolfe step (from the shortest point
# z0 = (1, 0) to the affine minimizer of {z0, z2}) does not reach 0.
# Edges: z0-z1 on x/2 + y/2... the facets are computed in the test that needs them.
# Triangle (1,0), (-1,2), (2,-3): separable; min-norm point on edge z1-z2 at (5,3)/34,
# margin 1/sqrt(34), weights (0, 21/34, 13/34).  One Wolfe major step from z0 (the
# shortest point) adds z1 (K_01 = -1 is the smallest) -> affine minimizer (1/2, 1/2),
# weights (3/4, 1/4, 0), norm 1/sqrt(2), and K p = (1/2, 1/2, -1/2) has a negative entry.
TRI_Z = np.array([[1.0, 0.0], [-1.0, 2.0], [2.0, -3.0]])


TRI = gram_of(TRI_Z)


# K0 (integer entries, so c K0 is exact for every c below), and m(K0) = sign sqrt(q0)  [RP14 Lemma 3, Theorem 3]
CLOSED_FORM = {
    "one point": ([[1]], 1, Fraction(1)),  # m = sqrt(K_11)
    "obtuse pair": ([[2, -1], [-1, 2]], 1, Fraction(1, 2)),  # min-norm point = midpoint: (2 + 2 - 2) / 4
    "acute pair": ([[2, 1], [1, 2]], 1, Fraction(3, 2)),  # (2 + 2 + 2) / 4
    "orthogonal pair": ([[1, 0], [0, 4]], 1, Fraction(4, 5)),  # ab / (a + b)
    "e1, e2, e1 + e2": ([[1, 0, 1], [0, 1, 1], [1, 1, 2]], 1, Fraction(1, 2)),  # midpoint of e1 e2
    "opposite pair": ([[1, -1], [-1, 1]], -1, Fraction(1)),  # z2 = -z1: m = -||z1|| (relative margin)
    "e1, e2, -(e1 + e2)": ([[1, 0, -1], [0, 1, -1], [-1, -1, 2]], -1, Fraction(1, 5)),  # nearest edge: 1/sqrt(5)
}


def _at_most(b, sign: int, T: Fraction) -> bool:
    """b <= sign sqrt(T), exactly (T >= 0)."""
    b = rational(b)
    if sign > 0:
        return b <= 0 or b * b <= T
    return b < 0 and b * b >= T


def _at_least(b, sign: int, T: Fraction) -> bool:
    """b >= sign sqrt(T), exactly."""
    b = rational(b)
    if sign > 0:
        return b > 0 and b * b >= T
    return b >= 0 or b * b <= T


def _instance(name, c):
    K0, sign, q0 = CLOSED_FORM[name]
    K = np.array(K0, dtype=np.float64) * c
    assert all(Fraction(K[i, j]) == Fraction(c) * K0[i][j] for i in range(len(K0)) for j in range(len(K0)))
    return K, sign, Fraction(c) * q0, sign * math.sqrt(float(q0)) * math.sqrt(c)


def _integer_instances(count, seed, sign):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        n = int(rng.integers(2, 6))
        Z = rng.integers(-9, 10, size=(n, 3)).astype(np.float64)
        K = Z @ Z.T
        alpha = rng.integers(0, 7, size=n).astype(np.float64)
        Ka = K @ alpha
        Q = alpha @ Ka
        if Q <= 0 or np.sign(Ka.min()) != sign or Ka.min() == 0:
            continue
        if float(np.sqrt(Q)) ** 2 == Q:  # a perfect square: the sqrt does not round
            continue
        out.append((K, alpha))
    return out


def _no_a_priori_bounds(monkeypatch):
    monkeypatch.setattr(bounds, "_gamma", lambda k, ar: ar.scalar(0))


_X = np.array([[1.0, 2.0], [-1.0, 0.5]])


_Y = np.array([1, -1])


_PT11 = [(dm.pdm, 0.1), (dm.pfm, 0.05), (dm.pdm_succ, 0.05)]


U = 2.0**-53


def _exact_quotient(K, alpha):
    """(N, Q) = (min_i (K alpha)_i, alpha^T K alpha) in exact rationals, K and alpha as given."""
    Kq = [[rational(v) for v in row] for row in np.asarray(K, dtype=object)]
    a = [v if isinstance(v, Fraction) else rational(v) for v in alpha]
    Ka = [sum(k * x for k, x in zip(row, a)) for row in Kq]
    return min(Ka), sum(x * y for x, y in zip(a, Ka))


def _gram(Z):
    """Z Z^T, checked to be exact in float64 (small integers / powers of two)."""
    Z = np.asarray(Z, dtype=float)
    K = Z @ Z.T
    Zq = [[Fraction(x) for x in row] for row in Z]
    assert all(Fraction(K[i, j]) == sum(a * b for a, b in zip(Zq[i], Zq[j])) for i in range(len(Z)) for j in range(len(Z)))
    return K


ETA = 2.0**-1074  # smallest positive subnormal


def _lower_holds(K, alpha, lb) -> bool:
    """lb <= min(K alpha)_i / ||alpha||_K exactly (-inf always holds)."""
    if lb == -math.inf:
        return True
    N, Q = margin_witness_value(np.asarray(K, dtype=np.float64), alpha)
    return Q > 0 and ratio_at_least(N, Q, rational(lb))


def _upper_holds(K, p, ub) -> bool:
    """ub >= ||p||_K / 1^T p exactly."""
    K = np.asarray(K, dtype=np.float64)
    P = [rational(v) for v in p]
    Q = sum(P[i] * rational(K[i, j]) * P[j] for i in range(len(P)) for j in range(len(P)))
    return ub == math.inf or (ub >= 0 and rational(ub) ** 2 * sum(P) ** 2 >= Q)


ULP = 2.0**-52


def _obj(a, b, c):
    K = np.empty((2, 2), dtype=object)
    K[0, 0], K[0, 1], K[1, 0], K[1, 1] = a, b, b, c
    return K


def _indefinite_2_2_psd_matrix(n):
    """K = 2I - 11^T (diagonal 1, off-diagonal -1): every 2 x 2 principal submatrix is PSD
    (eigenvalues 0 and 2), so check_gram's default O(n^2) test accepts it, but K 1 = (2 - n) 1."""
    return 2 * np.eye(n) - np.ones((n, n))


def _q(x) -> Fraction:
    return Fraction(float(x))


def _dot(a, b) -> Fraction:
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


def _solve(A, b):
    """Exact Gauss-Jordan solve of a small nonsingular rational system."""
    n = len(b)
    M = [list(row) + [bi] for row, bi in zip(A, b)]
    for c in range(n):
        p = next(i for i in range(c, n) if M[i][c] != 0)
        M[c], M[p] = M[p], M[c]
        for i in range(n):
            if i != c and M[i][c] != 0:
                f = M[i][c] / M[c][c]
                M[i] = [a - f * b for a, b in zip(M[i], M[c])]
    return [M[i][n] / M[i][i] for i in range(n)]


def _exact_wolfe_corrals(Y):
    """Wolfe's (1976) algorithm on the rows of Y in exact rationals (as _wolfe_primal's docstring
    states it, with exact optimality x . y_j >= x . x); returns the corral (a frozenset) at the start
    and after every major cycle, and the squared norms of the corresponding points."""
    Yq = [[_q(a) for a in row] for row in Y]
    m = len(Yq)
    K = [[_dot(Yq[i], Yq[k]) for k in range(m)] for i in range(m)]
    j0 = min(range(m), key=lambda i: (K[i][i], i))
    S, w = [j0], {j0: Fraction(1)}

    def norm2(w):
        return sum(w[i] * w[k] * K[i][k] for i in w for k in w)

    corrals, norms = [frozenset(S)], [norm2(w)]
    while True:
        Kx = [sum(w[i] * K[k][i] for i in w) for k in range(m)]
        q = norm2(w)
        j = min(range(m), key=lambda k: (Kx[k], k))
        if Kx[j] >= q:
            return corrals, norms
        S.append(j)
        w[j] = Fraction(0)
        while True:  # minor cycle
            n = len(S)
            A = [[K[S[r]][S[s]] for s in range(n)] + [Fraction(1)] for r in range(n)] + [[Fraction(1)] * n + [Fraction(0)]]
            a = dict(zip(S, _solve(A, [Fraction(0)] * n + [Fraction(1)])[:n]))
            if all(a[i] > 0 for i in S):
                w = a
                break
            theta = min(w[i] / (w[i] - a[i]) for i in S if a[i] <= 0)
            w = {i: w[i] + theta * (a[i] - w[i]) for i in S}
            S = [i for i in S if w[i] > 0]
            w = {i: w[i] for i in S}
        corrals.append(frozenset(S))
        norms.append(norm2(w))


def _heart():
    from importlib import resources

    with resources.as_file(resources.files("reference.data_files") / "heart_scale.txt") as p:
        return ref.load_libsvm(p, n_features=13)


def _centred(n, r, seed):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, r))
    Z -= Z.mean(axis=0)  # the origin is inside the hull: the facets matter (infeasible case)
    return Z / np.max(np.linalg.norm(Z, axis=1))


def _is_supporting_facet(Zs, b, a, T, tol=1e-9):
    vals = Zs @ a - b
    return np.isclose(np.linalg.norm(a), 1.0) and vals.min() >= -tol and np.allclose(vals[T], 0.0, atol=tol)


def _record_hyperplanes(monkeypatch):
    """Record every block of subsets _local_search or _enumerate_facets hands to _hyperplanes, with the real results."""
    calls = []
    real = facets._hyperplanes

    def spy(Zs, subsets, tol_side):
        out = real(Zs, subsets, tol_side)
        calls.append((np.array(subsets), out))
        return out

    monkeypatch.setattr(facets, "_hyperplanes", spy)  # as _enumerate_facets calls it
    monkeypatch.setattr(search, "_hyperplanes", spy)  # as _local_search calls it
    return calls


def _q_2(x) -> Fraction:
    return Fraction(rational(x))


A = 2**60


def _dense_margin(X, y, rho, Delta):
    Y = make_patterns(X, y, rho=rho, Delta=Delta).dense()
    return ref.margin(Y @ Y.T)


_TINY = [1e-170, 2.0**-560, 1e-300]


U2 = Fraction(1, 2**53)  # unit roundoff
