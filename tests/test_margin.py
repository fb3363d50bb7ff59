"""Certified max margins: reference.margin, min_norm_point, lower_bound, upper_bound.

Every expected value here is known by construction (closed forms, exact rational KKT solves
with sympy, or direction sampling, which can only give lower bounds), never copied from a run.
"""

from __future__ import annotations

import importlib
import itertools
import math

import mpmath
import numpy as np
import pytest
import sympy

import reference
from reference.margin import Margin, lower_bound, margin, min_norm_point, upper_bound

margin_module = importlib.import_module("reference.margin")  # `reference.margin` is the function


def gram_of(Z) -> np.ndarray:
    """Gram matrix of the reflected points (rows of Z)."""
    Z = np.asarray(Z, dtype=float)
    return Z @ Z.T


def assert_brackets(m: Margin, true: float, rel: float = 1e-9) -> None:
    """lower <= true <= upper, value inside, and a small relative gap."""
    assert m.lower <= true <= m.upper, (m.lower, true, m.upper)
    assert m.lower <= m.value <= m.upper
    assert m.gap >= 0
    assert m.gap <= rel * max(abs(true), 1e-300) + 1e-13, (m.gap, true)


def direction_sample_2d(Z: np.ndarray, k: int = 200_000) -> float:
    """max over k unit directions f of min_i <f, z_i>: a LOWER bound on the 2-D margin."""
    th = np.linspace(0, 2 * np.pi, k, endpoint=False)
    F = np.stack([np.cos(th), np.sin(th)], axis=1)
    return float(np.max(np.min(F @ Z.T, axis=1)))


# -- RP14 Sect. 2.2 worked example -------------------------------------------------------------


def test_rp14_worked_example_normalized():
    X = np.array([[0.6, 0.8], [0.8, 0.6]])
    y = np.array([1, -1])
    m = margin(reference.gram(X, y))
    assert_brackets(m, math.sqrt(2) / 10)
    assert m.feasible is True
    assert m.support == (0, 1)
    assert np.allclose(m.p, [0.5, 0.5])  # (a + b)/2 is the min-norm point of the segment
    assert m.precision == "float64"
    assert isinstance(m.value, float) and isinstance(m.lower, float)


@pytest.mark.parametrize("r", [1.5, 3.0, 10.0])
def test_rp14_worked_example_unnormalized(r):
    a, b = np.array([0.6, 0.8]), np.array([0.8, 0.6])
    X = np.array([a / r, b / r, a * r, b * r, a, b * 2])
    y = np.array([1, -1, 1, -1, 1, -1])
    rho = math.sqrt(2) / (10 * r)  # attained by the points of norm 1/r
    assert_brackets(margin(reference.signed_gram(X, y)), rho)
    # normalization never hurts: rho_2 is the same sqrt(2)/10 for every r
    assert_brackets(margin(reference.gram(X, y)), math.sqrt(2) / 10)


# -- feasible instances with planted margins ----------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_planted_margin(seed):
    """Every point has z_1 >= gamma and the hull contains (gamma, 0, ..., 0): m = gamma exactly
    (f = e_1 gives min_i z_i1 = gamma; p = the midpoint of a symmetric pair has norm gamma)."""
    rng = np.random.default_rng(seed)
    d, gamma = 2 + seed % 4, 0.2 + 0.1 * seed
    v = rng.standard_normal(d - 1)
    rest = np.column_stack([gamma + rng.uniform(0, 2, 10), rng.standard_normal((10, d - 1))])
    Z = np.vstack([np.r_[gamma, v], np.r_[gamma, -v], rest])
    Z = Z[rng.permutation(len(Z))]
    m = margin(gram_of(Z))
    assert_brackets(m, gamma)
    assert m.feasible is True


@pytest.mark.parametrize("c", [0.0, 0.5, 2.0, 7.0])
def test_symmetric_pairs_closed_form(c):
    """Reflected points (1, +-c): the min-norm point of the segment is (1, 0), m = 1 for every c;
    adding (t, +-t c) with t > 1 does not change it."""
    Z = np.array([[1, c], [1, -c], [2, 2 * c], [3, -3 * c]])
    assert_brackets(margin(gram_of(Z)), 1.0)


@pytest.mark.parametrize(
    "z1, z2",
    [([1, 0], [0, 1]), ([3, 1], [1, 2]), ([2, 0.5], [2.5, -0.3]), ([1, 1, 1], [1, -1, 0.2]), ([5, 0], [4, 0.1])],
)
def test_two_points_segment_distance(z1, z2):
    """m = distance from 0 to the segment [z1, z2] (clipped projection)."""
    z1, z2 = np.array(z1, float), np.array(z2, float)
    dz = z2 - z1
    t = min(max(-(z1 @ dz) / (dz @ dz), 0.0), 1.0)
    true = float(np.linalg.norm(z1 + t * dz))
    m = margin(gram_of([z1, z2]))
    assert_brackets(m, true)
    assert m.feasible is True
    assert m.support == ((0, 1) if 0 < t < 1 else ((0,) if t == 0 else (1,)))


def test_one_point():
    m = margin(np.array([[4.0]]))
    assert_brackets(m, 2.0)
    assert m.feasible is True and m.support == (0,)


def test_scaling_and_normalized_gram_consistency():
    rng = np.random.default_rng(7)
    Z = np.column_stack([1 + rng.uniform(0, 1, 8), rng.standard_normal((8, 2))])
    K = gram_of(Z)
    m1, m9 = margin(K), margin(9 * K)  # m(c^2 K) = c m(K)
    assert abs(m9.value - 3 * m1.value) <= 1e-12 * m9.value
    # consequence of Lemma 3: K p* >= m^2 1
    assert np.min(K @ m1.p) >= m1.value**2 * (1 - 1e-12)


def test_feasible_cross_check_exhaustive_kkt():
    """Exhaustive min-norm point: over all supports S, the KKT solution with p_S >= 0 and
    K p >= lambda everywhere (the optimality conditions) has lambda = m^2."""
    rng = np.random.default_rng(11)
    for _ in range(8):
        Z = np.column_stack([rng.uniform(0.1, 1, 7), rng.standard_normal((7, 3))])
        K = gram_of(Z)
        best = math.inf
        for k in range(1, 5):
            for S in itertools.combinations(range(7), k):
                S = list(S)
                A = np.ones((k + 1, k + 1))
                A[:k, :k], A[k, k] = K[np.ix_(S, S)], 0
                try:
                    x = np.linalg.solve(A, np.r_[np.zeros(k), 1])
                except np.linalg.LinAlgError:
                    continue
                if np.all(x[:k] >= -1e-12):
                    p = np.zeros(7)
                    p[S] = x[:k]
                    best = min(best, float(p @ K @ p))
        assert_brackets(margin(K), math.sqrt(best), rel=1e-8)


# -- infeasible instances: m = -delta_max^rel (Theorem 3, E-A3) --------------------------------


@pytest.mark.parametrize("k, R", [(3, 1.0), (4, 2.0), (5, 1.0), (6, 0.5), (7, 3.0)])
def test_regular_polygon_inradius(k, R):
    th = 2 * np.pi * np.arange(k) / k + 0.3
    Z = R * np.column_stack([np.cos(th), np.sin(th)])
    m = margin(gram_of(Z), of="span")
    assert_brackets(m, -R * math.cos(math.pi / k))
    assert m.feasible is False
    assert "complete enumeration" in m.method


def test_square_inradius():
    Z = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1.0]])
    m = margin(gram_of(Z))
    assert_brackets(m, -1.0)
    assert m.feasible is False


def _dist_to_line(P, Q) -> float:
    P, Q = np.asarray(P, float), np.asarray(Q, float)
    return abs(P[0] * Q[1] - P[1] * Q[0]) / float(np.linalg.norm(P - Q))


def test_e_a3_three_points_in_a_plane_of_R3():
    """Relative margin inside the span: the triangle z_i (z = 0 plane of R^3) contains 0, so
    m = -(distance from 0 to the nearest edge line); the full-space value would be 0 (f = e_3)."""
    P = [(2.0, 0.0), (-1.0, 1.0), (-1.0, -2.0)]  # 0 = (1.5 z1 + 2 z2 + z3)/4.5
    Z = np.array([[x, y, 0.0] for x, y in P])
    true = -min(_dist_to_line(P[i], P[j]) for i, j in [(0, 1), (1, 2), (0, 2)])
    m = margin(gram_of(Z), of="span")
    assert_brackets(m, true)
    assert m.feasible is False and m.value < -0.1
    # the same triangle rotated into a generic plane of R^5 has the same relative margin
    Q, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((5, 5)))
    assert_brackets(margin(gram_of(Z @ np.eye(3, 5) @ Q), of="span"), true)


def test_x_and_minus_x_is_relative_minus_norm():
    """z_2 = -z_1: within the span (a line) the hull [-z1, z1] has inradius ||z1||, so m = -||z1||
    (Lemma 3's alpha-form: K alpha = (a1-a2)(1,-1)||z1||^2); the full-space value would be 0."""
    Z = np.array([[3.0, 4.0], [-3.0, -4.0]])
    m = margin(gram_of(Z))
    assert_brackets(m, -5.0)
    assert m.feasible is False


def test_origin_on_the_boundary_gives_zero():
    Z = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.5, 2.0]])
    m = margin(gram_of(Z))
    assert m.lower <= 0 <= m.upper
    assert abs(m.value) <= 1e-13 and m.gap <= 1e-12
    assert m.feasible is False


@pytest.mark.parametrize("seed", range(10))
def test_random_2d_against_direction_sampling(seed):
    """Each sampled direction gives a valid lower bound, so it can never exceed `upper`."""
    rng = np.random.default_rng(100 + seed)
    n = 3 + seed % 5
    Z = rng.standard_normal((n, 2)) + (0.8 * rng.standard_normal(2) if seed % 2 else 0)
    m = margin(gram_of(Z), of="span")
    s = direction_sample_2d(Z)
    assert s <= m.upper + 1e-12
    assert m.lower >= s - 1e-4 * float(np.max(np.linalg.norm(Z, axis=1)))
    assert m.gap <= 1e-9 * max(abs(m.value), 1e-3)
    assert m.feasible is (m.value > 0)


def test_duplicates_change_nothing():
    Zf = np.array([[1.0, 0.5], [1.2, -0.7], [2.0, 0.1]])
    Zi = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1.0]])
    for Z in (Zf, Zi):
        base = margin(gram_of(Z))
        dup = margin(gram_of(np.vstack([Z, Z[[0, 1, 1]]])))
        assert abs(dup.value - base.value) <= 1e-12
        assert dup.lower <= base.value <= dup.upper


def test_local_search_when_enumeration_too_large():
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((12, 3))  # 0 is (almost surely) inside the hull
    exact = margin(gram_of(Z), of="span")
    assert exact.feasible is False and "complete enumeration" in exact.method
    ls = margin(gram_of(Z), max_subsets=5, of="span")
    assert "local search" in ls.method and "NOT certified" in ls.method
    assert ls.feasible is False
    assert ls.lower <= exact.value + 1e-12 and ls.upper >= exact.upper - 1e-12
    assert ls.upper >= 0  # only ||p*||_K ~ 0 is certified
    # the facet walk finds the nearest facet on this instance
    assert abs(ls.value - exact.value) <= 1e-9


def _point_segment(x, a, b) -> float:
    x, a, b = (np.asarray(v, float) for v in (x, a, b))
    t = min(max((x - a) @ (b - a) / ((b - a) @ (b - a)), 0.0), 1.0)
    return float(np.linalg.norm(a + t * (b - a) - x))


def test_pt11_gamma_d_on_augmented_data():
    """gamma_d (PT11 eq. (1)) is the margin of the augmented, reflected data, and
    gamma_d <= gamma <= (R / rho) gamma_d with gamma = half the distance between the class hulls."""
    X = np.array([[0.0, 1.0], [1.0, 2.0], [3.0, -1.0], [4.0, 0.5]])
    y = np.array([1, 1, -1, -1])
    (a, b), (c, d) = X[:2], X[2:]  # two disjoint segments: distance = min endpoint-to-segment
    gamma = min(_point_segment(a, c, d), _point_segment(b, c, d), _point_segment(c, a, b), _point_segment(d, a, b)) / 2
    for rho in (0.5, 1.0, 4.0):
        Xa = reference.augment(X, rho)
        m = margin(reference.signed_gram(Xa, y))
        R = float(np.max(np.linalg.norm(Xa, axis=1)))
        assert m.feasible is True
        assert m.upper >= m.lower > 0
        assert m.lower <= gamma + 1e-12 and gamma <= R / rho * m.upper + 1e-12


# -- precision ---------------------------------------------------------------------------------


def _mp_matrix(rows, dps: int) -> np.ndarray:
    with mpmath.workdps(dps):
        return np.array([[mpmath.mpf(sympy.Rational(v).p) / sympy.Rational(v).q for v in row] for row in rows],
                        dtype=object)


def test_precision_rp14_example_gap_below_1e30():
    K = _mp_matrix([["1", "-24/25"], ["-24/25", "1"]], 50)  # G of the worked example, exactly
    m = margin(K, precision=50)
    assert m.precision == "mpmath, 50 decimal digits"
    assert isinstance(m.value, mpmath.mpf)
    with mpmath.workdps(50):
        true = mpmath.sqrt(2) / 10
        assert m.lower <= true <= m.upper
        assert m.gap <= mpmath.mpf("1e-30")
        assert abs(m.value - true) <= mpmath.mpf("1e-30")


def _exact_mnp_sq(Zr) -> sympy.Rational:
    """Exact m^2 of a feasible rational instance: the KKT solution that is optimal."""
    Zr = sympy.Matrix(Zr)
    K = Zr * Zr.T
    n = K.shape[0]
    for k in range(1, n + 1):
        for S in itertools.combinations(range(n), k):
            A = sympy.zeros(k + 1, k + 1)
            for i, a in enumerate(S):
                for j, b in enumerate(S):
                    A[i, j] = K[a, b]
                A[i, k] = A[k, i] = 1
            if A.det() == 0:
                continue
            x = A.LUsolve(sympy.Matrix([0] * k + [1]))
            p = sympy.zeros(n, 1)
            for i, a in enumerate(S):
                p[a] = x[i]
            lam = (p.T * K * p)[0]
            if all(v >= 0 for v in x[:k]) and all(v >= lam for v in K * p):
                return lam
    raise AssertionError("no optimal support")


def test_precision_rational_instance_against_sympy():
    Zr = [[3, 1, 0], [2, -2, 1], [4, 1, -3], [1, 0, 1], [5, 5, 5]]
    lam = _exact_mnp_sq(Zr)
    K = gram_of(Zr)  # small integers: exact in float64
    m = margin(K, precision=50)
    with mpmath.workdps(60):
        true = mpmath.sqrt(mpmath.mpf(lam.p) / lam.q)
        assert m.lower <= true <= m.upper
        assert m.gap <= mpmath.mpf("1e-30")
    f = margin(K)
    assert_brackets(f, float(true))


def test_precision_infeasible_triangle_against_closed_form():
    P = [(3, 0), (-1, 2), (-1, -1)]
    K = gram_of(P)
    m = margin(K, precision=50)
    with mpmath.workdps(60):
        dists = []
        for (a, b), (c, d) in [(P[0], P[1]), (P[1], P[2]), (P[0], P[2])]:
            dists.append(abs(mpmath.mpf(a * d - b * c)) / mpmath.sqrt((a - c) ** 2 + (b - d) ** 2))
        true = -min(dists)
        assert m.lower <= true <= m.upper
        assert m.gap <= mpmath.mpf("1e-30")
    assert m.feasible is False


def test_precision_matches_float64():
    rng = np.random.default_rng(5)
    Z = np.column_stack([rng.uniform(0.5, 1, 9), rng.standard_normal((9, 3))])
    K = gram_of(Z)
    f, h = margin(K), margin(K, precision=40)
    assert f.lower <= h.upper and h.lower <= f.upper
    assert abs(float(h.value) - f.value) <= 1e-12
    assert h.gap <= mpmath.mpf("1e-33")


# -- the witnesses are what certify the bounds -------------------------------------------------


def test_witnesses_reproduce_the_bounds():
    rng = np.random.default_rng(8)
    Z = np.column_stack([rng.uniform(0.2, 1, 10), rng.standard_normal((10, 2))])
    K = gram_of(Z)
    m = margin(K)
    assert lower_bound(K, m.alpha) == m.lower
    assert upper_bound(K, m.p) == m.upper
    assert np.all(m.p >= 0) and abs(m.p.sum() - 1) <= 1e-12
    assert m.support == tuple(np.flatnonzero(m.p > 0))
    # the lower bound is a function of the witness: perturbing it can only lower it here
    alpha = m.alpha + 1e-3 * rng.standard_normal(10)
    assert lower_bound(K, alpha) < m.lower
    # ... and any simplex point gives a (weaker) upper bound  [Lemma 3]
    assert upper_bound(K, np.full(10, 0.1)) > m.upper


def test_infeasible_witness_is_a_facet_direction():
    Z = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1.0]])
    K = gram_of(Z)
    m = margin(K)
    Ka = K @ m.alpha
    norm = math.sqrt(m.alpha @ Ka)
    assert abs(Ka.min() / norm - (-1.0)) <= 1e-12
    assert lower_bound(K, m.alpha) == m.lower


def test_bounds_come_from_witnesses_not_from_the_solver(monkeypatch):
    """A solver returning a poor point cannot produce a false claim: the bounds are recomputed
    from the witness and still bracket the truth, only wider."""
    gamma = 0.5
    Z = np.array([[gamma, 1.0], [gamma, -1.0], [1.0, 0.3], [2.0, -0.5]])
    K = gram_of(Z)
    real = margin_module._wolfe

    def poor(Kx, ar, max_iter, start=None):
        p, S, it, conv = real(Kx, ar, max_iter, start)
        q = np.full(len(p), 1.0 / len(p), dtype=p.dtype)
        return q, tuple(range(len(p))), it, conv

    monkeypatch.setattr(margin_module, "_wolfe", poor)
    m = margin(K)
    assert m.lower <= gamma <= m.upper
    assert m.gap > 1e-3
    assert m.upper == pytest.approx(math.sqrt(np.full(4, 0.25) @ K @ np.full(4, 0.25)), rel=1e-12)


# -- min_norm_point ----------------------------------------------------------------------------


def test_min_norm_point_feasible_and_infeasible():
    Z = np.array([[0.6, 0.8], [-0.8, -0.6]])  # worked example, reflected
    p, S = min_norm_point(gram_of(Z))
    assert S == (0, 1) and np.allclose(p, [0.5, 0.5])
    res = min_norm_point(gram_of(Z))
    assert res.converged and res.norm == pytest.approx(math.sqrt(2) / 10, rel=1e-14)
    sq = min_norm_point(gram_of([[1, 1], [1, -1], [-1, 1], [-1, -1.0]]))
    assert sq.norm <= 1e-7 and abs(sq.p.sum() - 1) <= 1e-12 and np.all(sq.p >= 0)
    mp = min_norm_point(gram_of(10 * Z), precision=30)  # integer Gram: exact input
    with mpmath.workdps(30):
        assert abs(mp.norm - mpmath.sqrt(2)) <= mpmath.mpf("1e-28")
    assert mp.precision == "mpmath, 30 decimal digits"


def test_gaussian_kernel_gram_is_feasible():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((25, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)  # XOR: not linearly separable
    mk = margin(reference.gram(X, y, "gaussian", sigma=0.5), of="span")
    assert mk.feasible is True and mk.relative_gap <= 1e-9
    ml = margin(reference.gram(X, y), of="span")
    assert ml.feasible is False and ml.value < 0


# -- validation --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "K, kwargs, match",
    [
        (np.ones((2, 3)), {}, "square"),
        (np.array([[1.0, 0.5], [0.2, 1.0]]), {}, "symmetric"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), {}, "NaN"),
        (np.array([[1.0, 2.0], [2.0, 1.0]]), {}, "positive semidefinite"),
        (np.zeros((3, 3)), {}, "zero"),
        (np.eye(2), {"precision": 0}, "precision"),
        (np.eye(2), {"precision": 2.5}, "precision"),
        (np.eye(2), {"max_iter": 0}, "max_iter"),
        (np.eye(2), {"max_subsets": 0}, "max_subsets"),
    ],
)
def test_value_errors(K, kwargs, match):
    with pytest.raises(ValueError, match=match):
        margin(K, **kwargs)


def test_value_errors_witness_helpers():
    K = np.eye(3)
    with pytest.raises(ValueError, match="alpha"):
        lower_bound(K, np.ones(2))
    with pytest.raises(ValueError, match="alpha"):
        lower_bound(K, np.array([1.0, np.inf, 0.0]))
    with pytest.raises(ValueError, match="nonnegative"):
        upper_bound(K, np.array([1.0, -0.5, 0.5]))
    with pytest.raises(ValueError, match="max_iter"):
        min_norm_point(K, max_iter=-1)


def test_margin_is_frozen_and_gap_properties():
    m = margin(np.array([[4.0]]))
    with pytest.raises(Exception):
        m.value = 1.0  # type: ignore[misc]
    assert m.gap == m.upper - m.lower
    assert m.relative_gap == pytest.approx(m.gap / 2.0)


def test_precision_on_numerically_rank_deficient_float_gram():
    """A float Gram of 15 points of R^3 is only numerically of rank 3; at 40 digits the margin is
    still the relative one inside that span (the null-space noise of K is not a witness)."""
    Z = np.random.default_rng(1).standard_normal((15, 3))
    K = gram_of(Z)
    f = margin(K, of="span")
    for kw in ({}, {"max_subsets": 3}):
        h = margin(K, precision=40, **kw, of="span")
        assert h.feasible is False and h.lower <= f.upper + 1e-12
        assert abs(float(h.value) - f.value) <= 1e-9
    assert margin(K, precision=40, of="span").gap <= 1e-12


def _pinned_separable(seed=1, n=60, d=3, lo=10_000):
    """Integer data, exactly separable by y_k (w.x_k - c) >= 1/2 (bias rho = 1), with points
    pinned at functional distance 1/2 on both sides: margin ~1e-6 against R ~ 3e5, below Wolfe's
    round-off tolerance 64 n u max_i K_ii (the wdbc trap without the data set)."""
    rng = np.random.default_rng(seed)
    w = np.r_[1, rng.integers(1, 10, size=d - 1)].astype(float)
    X = rng.integers(lo, 5 * lo, size=(n, d)).astype(float)
    c = float(np.round(np.median(X @ w))) + 0.5
    for k in range(10):
        X[k, 0] += c + (0.5 if k % 2 else -0.5) - X[k] @ w
    keep = (np.abs(X @ w - c) >= 0.5) & (X[:, 0] > 0)
    X = X[keep]
    return X, np.where(X @ w - c > 0, 1, -1), w, c


def test_tiny_positive_margin_below_the_zero_tolerance_is_not_called_infeasible():
    X, y, w, c = _pinned_separable()
    # separable, checked exactly: every entry is an integer (or c a half-integer)
    wi, c2 = [int(v) for v in w], int(2 * c)
    assert all(int(yk) * (2 * sum(int(a) * b for a, b in zip(x, wi)) - c2) >= 1 for x, yk in zip(X, y))
    K = reference.signed_gram(X, y, rho=1.0)
    mnp = min_norm_point(K)
    assert mnp.norm**2 <= margin_module._zero_tol(K)  # the trap: ||p*||_K^2 below the float tolerance
    assert np.linalg.matrix_rank(K) == margin_module._span_coordinates(K)[0].shape[1] == 4  # no rank cut
    for of in ("span", "matrix"):
        m = margin(K, of=of)
        assert m.feasible is not False and m.upper > 0, (of, m.method)
        assert m.feasible is True or "undecided" in m.method


def test_origin_in_simplex_certificate_rejects():
    Z = np.array([[1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0], [5.0, 5.0]])
    assert margin_module._origin_in_simplex(Z, (0, 1, 2))  # 0 strictly inside
    assert not margin_module._origin_in_simplex(Z, (0, 1, 3))  # 0 outside that triangle
    assert not margin_module._origin_in_simplex(Z, (0, 1))  # not a full simplex: never certified
    assert not margin_module._origin_in_simplex(Z[[0, 0, 1]], (0, 1, 2))  # degenerate (repeated point)
    on_edge = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])  # barycentric weight 0: not inside
    assert not margin_module._origin_in_simplex(on_edge, (0, 1, 2))
    near_edge = np.array([[1.0, 1e-17], [-1.0, 1e-17], [0.0, -1.0]])  # weight 1e-17, below round-off
    assert not margin_module._origin_in_simplex(near_edge, (0, 1, 2))
