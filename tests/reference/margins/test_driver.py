"""Tests of reference/margins/driver.py: ``margin()`` end to end -- closed forms, planted and
infeasible instances, every precision, the feasible / infeasible / undecided verdicts and their
method texts, the exact re-checks, the scaling of tiny and huge matrices, and ``Margin``."""

from __future__ import annotations

import itertools
import math
import re
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, strategies as st

import reference
import reference as ref
from reference import verify_margin_exact
from reference.arithmetic import Arithmetic, UNIT_ROUNDOFF, gamma
from reference.data import check_gram
from reference.exact import exact_rank, margin_witness_value, rational
from reference.margins import (
    Margin,
    bounds,
    driver,
    facets,
    lower_bound,
    margin,
    min_norm_point,
    search,
    upper_bound,
)
from reference.margins.driver import _count_text
from tests.support.margin import A, CLOSED_FORM, TRI, _at_least, _at_most, _gram, _instance, _q_2, gram_of


u = 2.0**-53


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


def _dist_to_line(P, Q) -> float:
    P, Q = np.asarray(P, float), np.asarray(Q, float)
    return abs(P[0] * Q[1] - P[1] * Q[0]) / float(np.linalg.norm(P - Q))


def _mp_matrix(rows, dps: int) -> np.ndarray:
    with mpmath.workdps(dps):
        return np.array([[mpmath.mpf(sympy.Rational(v).p) / sympy.Rational(v).q for v in row] for row in rows],
                        dtype=object)


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


# Square (+-1, +-1): origin at the centre, rank 2, C(4, 2) = 6 subsets, delta_max = 1.
SQUARE = gram_of([[1, 1], [1, -1], [-1, 1], [-1, -1]])


KITE = gram_of([[1.0, 0.0], [0.0, 2.0], [-3.0, 0.0], [0.0, -2.0]])


SCALES = [2.0**-1062, 1e-310, 1e-300, 1e300, 2.0**1021]


def _wide(I, s):
    """The exact Gram matrix of the points I_k 2^s_k (small integers: every product is exact)."""
    X = np.ldexp(np.array(I, dtype=np.float64), np.array(s).reshape(-1, 1))
    K = X @ X.T
    n = len(I)
    assert all(Fraction(K[i, j]) == sum(Fraction(a) * Fraction(b) for a, b in zip(X[i], X[j])) for i in range(n) for j in range(n))
    return K


def _no_facets(monkeypatch):
    """The complete enumeration finding no supporting hyperplane (margin() keeps a branch for it:
    ``best is None``): lower, alpha and value then come from the min-norm point alone."""
    monkeypatch.setattr(driver, "_enumerate_facets", lambda Zs, r, tol_side, chunk=8192: None)


def _check_witness(m, K):
    """The Margin contract for the witness: a finite lower has a witness alpha with ||alpha||_K > 0
    (module docstring: "any alpha with ||alpha||_K > 0 gives m >= ..."); -inf has none; value is in
    [lower, upper]; everything re-checked in exact arithmetic."""
    assert m.lower <= m.value <= m.upper
    if m.alpha is not None:
        N, Q = margin_witness_value(K, m.alpha)
        assert Q > 0, "alpha has ||alpha||_K = 0: it witnesses nothing"
    else:
        assert m.lower == -np.inf
    assert verify_margin_exact(m, K) == ""


def _q(x):
    """A float or an mpf as the exact rational it is."""
    if isinstance(x, mpmath.mpf):
        man, exp = x.man_exp
        return Fraction(man) * Fraction(2) ** exp
    return Fraction(x)


_BAD_K = [
    (np.ones((2, 3)), r"^K must be a square matrix, got shape \(2, 3\); build it with reference\.gram\(X, y\)$"),
    (np.array([[1.0, 0.5], [0.2, 1.0]]), r"^K is not symmetric; a Gram matrix satisfies G == G\.T$"),
    (np.array([[1.0, np.nan], [np.nan, 1.0]]), r"^K contains NaN or inf; check the kernel and the data$"),
    (np.array([[1.0, 0.0], [0.0, -1.0]]), r"^K is not positive semidefinite \(K_11 = -1\.000e\+00 < 0\)"),
    (np.array([[1.0, 2.0], [2.0, 1.0]]), r"^K is not positive semidefinite: the 2 x 2 submatrix"),
    (
        np.zeros((3, 3)),
        r"^K is zero \(every point is the origin\): no alpha has \|\|alpha\|\|_K = 1, so the margin is "
        r"undefined; drop the zero points$",
    ),
]


_TINY = 2.0**-50  # z1, z2 unit vectors with <z1, z2> = -1 + 2^-50: p* = (1/2, 1/2), m^2 = 2^-51


_TINY_K = np.array([[1.0, -1.0 + _TINY], [-1.0 + _TINY, 1.0]])


# Four points of R^2 with the origin inside their hull; the float Gram has full exact rank (its
# entries are rounded), so K as stored is only within round-off of a rank-2 matrix.
_Z4 = np.array([[0.3, 0.1], [-0.2, 0.35], [-0.15, -0.4], [0.7, -0.05]])


# K = Z Z^T of _Z4 with its entries written out (rounded as a fused multiply-add rounds them): Z @ Z.T
# itself follows the BLAS kernel, and without FMA its rounding is a different, positive definite K.
# This K has a negative exact determinant, and the exact value of max_p min_i (K p)_i over the
# simplex is 4.2e-18 > 0: K as stored is separated by some p, far below what a float min-norm
# point resolves -- whether Wolfe's p happens to be such a p is round-off.
_K4 = np.array([
    [0.09999999999999999, -0.024999999999999998, -0.085, 0.205],
    [-0.024999999999999998, 0.1625, -0.11, -0.15749999999999997],
    [-0.085, -0.11, 0.18250000000000002, -0.08499999999999999],
    [0.205, -0.15749999999999997, -0.08499999999999999, 0.49249999999999994],
])


def _delta_max(Z):
    """Distance from the origin to the nearest edge of the (convex, counter-clockwise sorted) hull."""
    c = np.arctan2(Z[:, 1], Z[:, 0])
    P = Z[np.argsort(c)]
    d = []
    for i in range(len(P)):
        a, b = P[i], P[(i + 1) % len(P)]
        d.append(abs(a[0] * b[1] - a[1] * b[0]) / np.linalg.norm(b - a))
    return min(d)


def _rotated_triangle():
    """Three unit vectors 120 degrees apart (turned by 0.1 rad): the origin is inside their hull,
    m = -1/2 in the plane; the float Gram matrix has exact rank 3 (its entries are rounded)."""
    th = 2 * np.pi * np.arange(3) / 3 + 0.1
    Z = np.c_[np.cos(th), np.sin(th)]
    return Z @ Z.T


def _integer_points(n, seed=0):
    pts = np.array([(i, j) for i in range(-5, 6) for j in range(-5, 6) if (i, j) != (0, 0)], dtype=float)
    return pts[np.random.default_rng(seed).permutation(len(pts))[:n]]


def _assert_brackets_minus_delta(Z, m):
    """lower <= -delta <= upper in exact rationals, delta = the distance from the origin to the
    nearest edge of the hull of the integer points Z (brute force over the supporting lines), so
    -delta = m(Z Z^T) [RP14 Theorem 3].  The mutant that divides the facet allowance by n
    instead of multiplying puts upper below -delta."""
    from fractions import Fraction

    P = [(int(x), int(y)) for x, y in Z]
    d2 = None  # delta^2
    for i in range(len(P)):
        for j in range(i + 1, len(P)):
            (ax, ay), (bx, by) = P[i], P[j]
            sides = [(bx - ax) * (y - ay) - (by - ay) * (x - ax) for x, y in P]
            if min(sides) >= 0 or max(sides) <= 0:  # a supporting line of the hull
                cross, len2 = ax * by - ay * bx, (bx - ax) ** 2 + (by - ay) ** 2
                v = Fraction(cross * cross, len2)
                d2 = v if d2 is None else min(d2, v)
    lo, up = Fraction(m.lower), Fraction(m.upper)
    assert lo < 0 and lo * lo >= d2, (float(lo), float(d2) ** 0.5)  # lower <= -delta
    assert up >= 0 or up * up <= d2, (float(up), float(d2) ** 0.5)  # -delta <= upper


def _segment_above_origin(n):
    """n points: copies of z_1 = (1, e) and z_2 = (-1, e), e = 2^-26 (K's entries 1 + 2^-52 and
    -1 + 2^-52 are exact).  The hull is the segment at height e: m = e, p* = the midpoint, and
    K p* = 2^-52 > 0 exactly -- far below the float allowance ~1e-15 of _lower, and e^2 = 2^-52 is
    below the span's rank cut, so only the exact check certifies the separation."""
    e = 2.0**-26
    Z = np.array([[1.0, e], [-1.0, e]] * (n // 2) + [[1.0, e]] * (n % 2))
    K = Z @ Z.T
    assert K[0, 0] == 1 + 2.0**-52 and K[0, 1] == -1 + 2.0**-52  # exact products
    return K


# 56 integer points of [-1000, 1000]^2 around the origin (drawn once with numpy's default_rng(2)):
# the float facet value b * scale of their hull lies ~4.7 u * scale below -delta, inside margin()'s
# facet allowance 64 n u scale but beyond 64 u scale / n.
_POINTS_56 = [(-274, -608), (962, -657), (-13, -638), (573, 208), (-684, -775), (-809, -961), (713, 666),
              (-241, -802), (-444, -99), (77, -23), (237, 241), (251, 8), (-109, 875), (640, 501), (-890, 149),
              (763, 235), (-616, 13), (99, 930), (97, -547), (-781, 378), (970, 110), (-807, -916), (563, -408),
              (-35, 855), (-495, 569), (-831, -975), (-932, -407), (-38, -981), (224, 655), (11, -780),
              (648, -886), (20, 964), (-281, -108), (-493, -363), (-521, -902), (479, -221), (1000, -268),
              (565, 47), (252, -987), (737, -704), (921, -581), (532, -119), (543, -396), (-484, 227),
              (-994, -429), (349, 820), (-69, 924), (-421, -882), (363, -582), (948, 126), (924, 542),
              (380, -872), (679, -631), (-827, -87), (-780, 338), (961, 807)]


# Four integer points in R^3 (K = Z Z^T exact, rank 3; tests/reference/margin/test_facets.py::
# test_origin_outside_a_facet_by_less_than_its_round_off): the origin is outside the hull by
# 1/||n|| ~ 7e-12 (n the normal of the facet z_1 z_2 z_3, <n, z_i> >= 1), far below the facet
# round-off: the float64 facet offset is b ~ -2e-18, so -delta + allowance > 0.
_Z42 = [[1901, 55907, 246804], [120322, 69347, 22872], [-102084, -97966, -195343], [-154112, 288563, -64179]]


def _cross(a, b):
    """a x b in exact integers (np.cross on object arrays raises on numpy 1.24: it writes the
    products into an int64 buffer)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]], dtype=object)


def _k4():
    Z = np.array(_Z42, dtype=float)
    K = Z @ Z.T
    Zq = [[Fraction(int(x)) for x in row] for row in _Z42]
    assert all(_q_2(K[i, j]) == sum(a * b for a, b in zip(Zq[i], Zq[j])) for i in range(4) for j in range(4))
    z1, z2, z3, z4 = (np.array(v, dtype=object) for v in _Z42)
    nrm = _cross(z2 - z1, z3 - z1)
    assert [int(nrm @ z) for z in (z1, z2, z3)] == [1, 1, 1] and nrm @ z4 > 1  # m(K) >= 1 / ||n|| > 0
    return K, int(nrm @ nrm)


u_2 = UNIT_ROUNDOFF


def _minus_delta_2d(points):
    """-delta_max for integer points in R^2 whose hull holds the origin: minus the distance from the
    origin to the nearest supporting line through two of the points (an edge line of the hull)
    [RP14 Theorem 3], in 50-digit arithmetic."""
    P = sorted(set(map(tuple, points)))
    with mpmath.workdps(50):
        dist = []
        for (ax, ay), (bx, by) in ((a, b) for i, a in enumerate(P) for b in P[i + 1 :]):
            nx, ny = by - ay, ax - bx
            c = nx * ax + ny * ay
            side = [nx * x + ny * y - c for x, y in P]
            if all(v <= 0 for v in side) or all(v >= 0 for v in side):
                dist.append(abs(mpmath.mpf(c)) / mpmath.sqrt(nx * nx + ny * ny))
        return -min(dist)


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
    real = search.wolfe

    def poor(Kx, ar, max_iter, start=None):
        p, S, it, conv = real(Kx, ar, max_iter, start)
        q = np.full(len(p), 1.0 / len(p), dtype=p.dtype)
        return q, tuple(range(len(p))), it, conv

    monkeypatch.setattr(search, "wolfe", poor)
    m = margin(K)
    assert m.lower <= gamma <= m.upper
    assert m.gap > 1e-3
    assert m.upper == pytest.approx(math.sqrt(np.full(4, 0.25) @ K @ np.full(4, 0.25)), rel=1e-12)


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


def test_max_iter_and_max_subsets_low_is_one():
    K = np.eye(2)
    assert margin(K, max_iter=1).feasible is True
    assert margin(K, max_subsets=1).feasible is True
    with pytest.raises(ValueError, match=r"^max_iter must be an integer >= 1"):
        margin(K, max_iter=0)
    with pytest.raises(ValueError, match=r"^max_subsets must be an integer >= 1"):
        margin(K, max_subsets=0)


def test_feasible_wolfe_branch_fields_float():
    # z = e1, e2: p* = (1/2, 1/2), margin 1/sqrt(2) < 1.
    m = margin(np.eye(2))
    assert m.feasible is True
    assert m.value == pytest.approx(1 / math.sqrt(2), rel=1e-12)
    assert m.lower <= 1 / math.sqrt(2) <= m.upper
    assert m.support == (0, 1)
    np.testing.assert_allclose(np.asarray(m.p, float), [0.5, 0.5], rtol=1e-14)
    np.testing.assert_allclose(np.asarray(m.alpha, float), [0.5, 0.5], rtol=1e-14)
    assert m.precision == "float64"
    assert m.method == (
        "feasible: Wolfe min-norm point + KKT on its support; lower = min(K p*)/||p*||_K, "
        "upper = ||p*||_K [RP14 Lemma 3]"
    )


def test_feasible_wolfe_branch_method_mp():
    m = margin(np.eye(2), precision=30)
    assert m.feasible is True
    assert m.method.startswith("feasible: Wolfe min-norm point + KKT on its support (re-solved at 30 digits); ")
    with mpmath.workdps(40):
        assert abs(m.value - 1 / mpmath.sqrt(2)) < mpmath.mpf(10) ** -25
    assert m.precision == "mpmath, 30 decimal digits"


def test_feasible_found_by_facets_when_wolfe_is_cut_short():
    m = margin(TRI, max_iter=1)
    true = 1 / math.sqrt(34)
    assert m.feasible is True
    assert m.method.startswith("feasible (the facet enumeration found a separating hyperplane)")
    assert m.lower == pytest.approx(true, rel=1e-9) and m.lower <= true
    # value is the (non-converged) min-norm estimate ||(3/4, 1/4, 0)||_K = 1/sqrt(2), inside the bracket
    assert m.value == pytest.approx(1 / math.sqrt(2), rel=1e-12)
    assert m.upper >= 1 / math.sqrt(2) and m.upper == pytest.approx(1 / math.sqrt(2), rel=1e-12)
    np.testing.assert_allclose(np.asarray(m.p, float), [0.75, 0.25, 0.0], atol=1e-15)
    assert m.support == (0, 1)
    assert m.alpha is not None
    assert lower_bound(TRI, m.alpha) == pytest.approx(true, rel=1e-9)


def test_square_complete_enumeration_at_exact_budget():
    m = margin(SQUARE, max_subsets=6)  # C(4, 2) = 6: still complete
    assert m.feasible is False
    assert m.lower <= -1 <= m.upper
    assert m.upper == pytest.approx(-1, abs=1e-9)
    assert m.value == pytest.approx(-1, abs=1e-12)
    assert m.method.startswith("infeasible: complete enumeration of the C(4, 2) = 6 point subsets (rank 2)")
    assert m.method.endswith(
        "; value = -delta_max^rel [RP14 Theorem 3, E-A3]; lower from the facet normal (alpha-form), "
        "upper = -delta_max exact up to round-off"
    )
    assert m.p is not None and m.support is not None and m.precision == "float64"
    assert sum(np.asarray(m.p, float)) == pytest.approx(1)


def test_square_complete_enumeration_mp_method():
    m = margin(SQUARE, precision=30)
    assert m.feasible is False
    assert m.method.startswith("infeasible: complete enumeration")
    assert m.method.endswith("exact up to round-off; facet re-solved at 30 digits")
    assert abs(m.value + 1) < mpmath.mpf(10) ** -20


def test_complete_enumeration_decides_infeasible_without_converged_wolfe():
    # max_iter=1: Wolfe does not converge (so it proves nothing); the complete facet
    # enumeration alone certifies 0 in the hull -> feasible False, margin -1.
    m = margin(SQUARE, max_iter=1)
    assert min_norm_point(SQUARE, max_iter=1).converged is False
    assert m.feasible is False
    assert m.lower <= -1 <= m.upper
    assert m.upper == pytest.approx(-1, abs=1e-9)
    assert m.method.startswith("infeasible: complete enumeration")


def test_regular_polygon_bracket_contains_inradius():
    # regular k-gon of circumradius R about the origin: m = -delta_max = -R cos(pi / k)
    bad = []
    for k in range(3, 13):
        for R in (1.0, 3.3e3, 1e6, 7.7e8):
            for phase in (0.1, 0.5, 1.3, 2.9):
                t = phase + 2 * np.pi * np.arange(k) / k
                m = margin(gram_of(R * np.c_[np.cos(t), np.sin(t)]), of="span")
                true = -R * math.cos(math.pi / k)
                if not (m.feasible is False and m.lower <= true <= m.upper and m.upper - m.lower <= 1e-9 * R):
                    bad.append((k, R, phase, m.lower, m.upper))
    assert bad == []


def test_square_local_search_infeasible():
    m = margin(SQUARE, max_subsets=5)  # 6 > 5: local search
    assert m.feasible is False  # Wolfe converged to the origin
    assert m.method.startswith("infeasible: C(4, 2) = 6 subsets exceed max_subsets=5; ")
    assert m.method.endswith(
        "; value and lower from a local search over facets (NOT certified tight); "
        "upper = ||p*||_K of the min-norm point (~0)"
    )
    assert m.lower <= -1 + 1e-9
    assert m.upper >= -1e-12 and m.upper == pytest.approx(0, abs=1e-6)


def test_kite_local_search_undecided():
    # Origin inside the kite; Wolfe cut at one major step (not converged) and local search
    # (6 > 5 subsets): neither certifies tightness -- but the one Wolfe step already lands on
    # p with p^T K p = 0 in exact arithmetic (K and p are dyadic), so 0 is in the hull: upper = 0.
    m = margin(KITE, max_iter=1, max_subsets=5, of="span")
    assert m.feasible is False and m.upper == 0
    assert m.method.startswith("infeasible: C(4, 2) = 6 subsets exceed max_subsets=5; ")
    assert "NOT certified tight" in m.method
    assert m.lower <= 0
    # facet z0-z1: through (1,0),(0,2): distance 2/sqrt(5) is the nearest facet
    assert m.lower <= -2 / math.sqrt(5) + 1e-9
    # with complete enumeration it is decided
    m2 = margin(KITE, max_iter=1, of="span")
    assert m2.feasible is False
    assert m2.lower <= -2 / math.sqrt(5) <= m2.upper
    assert m2.upper == pytest.approx(-2 / math.sqrt(5), abs=1e-9)


def test_local_search_is_deterministic(monkeypatch):
    rng = np.random.default_rng(12345)
    Z = rng.standard_normal((40, 6))
    Z -= Z.mean(axis=0)  # origin inside
    K = gram_of(Z)
    seeds = []
    orig = np.random.default_rng

    def spy(seed=None):
        seeds.append(seed)
        return orig(seed)

    monkeypatch.setattr(np.random, "default_rng", spy)
    a = margin(K, max_subsets=50, of="span")
    b = margin(K, max_subsets=50, of="span")
    assert seeds and all(s is not None for s in seeds)
    assert a.method.startswith("infeasible: C(40, 6) = 3838380 subsets exceed max_subsets=50")
    assert a.lower == b.lower and a.value == b.value
    np.testing.assert_array_equal(np.asarray(a.alpha, float), np.asarray(b.alpha, float))


def test_origin_is_a_data_point_margin_zero():
    # z0 = 0, z1 = (1, 0): every alpha has (K alpha)_0 = 0, so m = 0; no strict separator.
    K = gram_of([[0.0, 0.0], [1.0, 0.0]])
    m = margin(K)
    assert m.feasible is False
    assert m.value == 0 and m.upper == 0
    assert m.lower <= 0
    assert m.method.startswith("infeasible: complete enumeration")


def test_origin_on_an_edge_margin_zero():
    K = gram_of([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    m = margin(K)
    assert m.feasible is False
    assert m.lower <= 0 <= m.upper
    assert abs(m.value) < 1e-12


def test_one_point_subnormal_matches_sqrt_exactly():
    """The case: m([[1e-310]]) = sqrt(1e-310); lower was 1.0000000000000224e-155 > it."""
    K = np.array([[1e-310]])
    m = margin(K)
    T = Fraction(1e-310)
    assert _at_most(m.lower, 1, T) and _at_least(m.upper, 1, T)
    assert m.feasible is True and verify_margin_exact(m, K) == ""
    assert m.upper - m.lower <= 1e-13 * math.sqrt(1e-310)  # the width of an ordinary 1 x 1 matrix


@pytest.mark.parametrize("name", sorted(CLOSED_FORM))
def test_closed_form_margins_at_extreme_scales(name):
    """lower <= m(c K0) <= upper exactly for c from 2^-1062 (subnormal entries) to 2^1021 (near
    overflow), the witnesses check exactly, and the relative width is the documented ~1e-11
    (feasible: min-norm point; infeasible: -delta_max up to 64 n u max||z_i||); at 30 digits too."""
    for c in SCALES:
        K, sign, T, truth = _instance(name, c)
        for precision in (None, 30):
            m = margin(K, precision=precision)
            assert _at_most(m.lower, sign, T), (c, precision, m.lower, truth)
            assert _at_least(m.upper, sign, T), (c, precision, m.upper, truth)
            assert verify_margin_exact(m, K) == "", (c, precision)
            assert m.lower <= m.value <= m.upper
            assert m.feasible is (sign > 0), (c, precision, m.feasible)
            width = 1e-11 if precision is None else 1e-25
            assert m.upper - m.lower <= width * abs(truth), (c, precision, m.lower, m.upper, truth)


@given(
    st.sampled_from(sorted(CLOSED_FORM)),
    st.integers(2**52, 2**53 - 1),
    st.one_of(st.integers(-537, -480), st.integers(480, 510)),
)
def test_closed_form_margins_over_scale_exponents(name, mantissa, j):
    """K = c K0 with c = mantissa 2^(2j - 52) (rounded once if subnormal; K0's entries are 0 and
    +-powers of two, so c K0 is exact), at the extreme scales where products underflow or
    overflow: exact bracket of sqrt(c) m(K0), exact witnesses, and the documented width."""
    c = math.ldexp(mantissa, 2 * j - 52)
    K, sign, T, truth = _instance(name, c)
    m = margin(K)
    assert _at_most(m.lower, sign, T) and _at_least(m.upper, sign, T), (c, m.lower, m.upper)
    assert verify_margin_exact(m, K) == ""
    assert m.upper - m.lower <= 1e-11 * abs(truth)


@pytest.mark.parametrize(
    "I, s",
    [
        ([[-2, 1], [0, -3], [-2, 0]], [-471, -236, -35]),  # lower = 0.0, exact min(K alpha) < 0 (underflowed)
        ([[2, -3], [3, 3], [3, 2]], [-266, -411, -52]),  # lower = -5.87e-297 above the exact quotient
        ([[-2, 1], [1, 1]], [-499, -522]),  # upper below ||p||_K / 1^T p
        ([[2, -2], [1, -3], [2, 1]], [-507, -493, -518]),
    ],
)
def test_points_of_very_different_norms(I, s):
    """Gram matrices of points whose norms differ by 2^100 and more: even on the scaled K some
    products of the certificates underflow, and the relative allowance alone gave the false
    bounds noted (found by a random search on the old code); the absolute allowance fixes them."""
    K = _wide(I, s)
    m = margin(K)
    assert verify_margin_exact(m, K) == ""
    assert m.lower <= m.value <= m.upper


def test_huge_non_psd_matrix_is_refused():
    """[[1e308, -1.5e308], [-1.5e308, 1e308]] is not PSD (|K_12| > sqrt(K_11 K_22)), but the 2 x 2
    test computed (a + c) / 2 = inf and let it pass, and margin certified bounds for it."""
    K = np.array([[1e308, -1.5e308], [-1.5e308, 1e308]])
    with pytest.raises(ValueError, match="not positive semidefinite"):
        margin(K)


def test_scaled_back_rounds_outwards_below_the_normal_range():
    """2^k times a bound that lands between subnormals: lower rounded down, upper up, the estimate
    to nearest; a positive lower bound below 2^-1074 becomes 0 and feasible=None."""
    ar = Arithmetic(None)
    x = 1.5  # 1.5 2^-1074 is halfway between 2^-1074 and 2^-1073
    assert bounds._times_pow2(x, -1074, ar, toward=-1) == 2.0**-1074
    assert bounds._times_pow2(x, -1074, ar, toward=1) == 2.0**-1073
    assert bounds._times_pow2(-x, -1074, ar, toward=-1) == -(2.0**-1073)
    assert bounds._times_pow2(-x, -1074, ar, toward=1) == -(2.0**-1074)
    assert bounds._times_pow2(x, -1080, ar, toward=-1) == 0.0 and bounds._times_pow2(x, -1080, ar, toward=1) == 2.0**-1074
    assert bounds._times_pow2(x, 5, ar, toward=-1) == 48.0  # exact in the normal range
    m = Margin(1.0, 0.5, 2.0, True, np.ones(1), np.ones(1), (0,), "float64", "feasible")
    s = driver._scaled_back(m, -1080, ar)
    assert s.lower == 0.0 and s.feasible is None and s.upper == 2.0**-1074  # 2^-1079 rounded up
    assert driver._scaled_back(m, 0, ar) is m


def test_full_psd_test_refuses_a_huge_non_psd_matrix():
    """check_gram(psd=True) symmetrized by (G + G^T) / 2 = inf for entries ~1e308 and accepted the
    non-PSD matrix below (eigvalsh of an inf matrix)."""
    from reference.data import check_gram

    K = np.array([[1e308, -1.5e308], [-1.5e308, 1e308]])
    with pytest.raises(ValueError, match="smallest eigenvalue"):
        check_gram(K, unit_diagonal=False, name="K", psd=True)


def test_nonnegative_upper_bound_is_witnessed_by_p():
    """A facet bound -delta + allowance >= 0 is not returned: a nonnegative ``upper`` must be the
    min-norm point's claim ||p||_K / 1^T p <= upper (what verify_margin_exact re-checks).  Two opposite
    points of very different norms: 0 is in the hull, m = -delta = -2^-202 (the smaller point's
    norm), and the facet allowance 64 n u max||z_i|| ~ 2^-204 * 2^7 exceeds delta."""
    z = np.array([-3 * 2.0**-157, 2 * 2.0**-203])
    K = np.outer(z, z)
    m = margin(K)
    assert verify_margin_exact(m, K) == "", "RP14 Lemma 3: upper >= 0 not witnessed by p"
    truth = -Fraction(2) ** -202  # 0 is inside the segment [z_0, z_1]: delta = min_i |z_i| = 2^-202
    assert rational(m.lower) <= truth <= rational(m.upper)


def test_margin_without_facets_has_no_witness_for_minus_infinity(monkeypatch):
    """z = 1, -1: the min-norm point p* = (1/2, 1/2) has ||p*||_K = 0 exactly (0 is in the hull),
    so it certifies no lower bound (-inf) and is no witness; upper = 0 (p*^T K p* = 0 exactly).
    With no facet found, value = lower.  Mutants: alpha = p* although lower = -inf (two of them);
    value left None (min/max of None raises)."""
    _no_facets(monkeypatch)
    K = _gram([[1], [-1]])
    m = driver.margin(K)
    assert m.lower == -np.inf and m.upper == 0.0 and m.feasible is False
    assert m.alpha is None and m.value == -np.inf
    _check_witness(m, K)


def test_margin_without_facets_keeps_the_min_norm_point_as_witness(monkeypatch):
    """Triangle z = (-2, -1), (2, -1), (0, 3) around the origin, Wolfe stopped after one cycle
    (max_iter = 1): it starts at z_0 (the smallest K_ii), adds z_1 (K e_0 = (5, -3, -3)), and the
    polish moves to the affine minimizer of {z_0, z_1}, p = (1/2, 1/2, 0), the point (0, -1):
    ||p||_K = 1 and K p = (1, 1, -3), a finite lower bound -3 (rounded down) witnessed by p.  With
    no facet found nothing replaces it: alpha = p.  Mutants: alpha = None for a finite lower (two
    of them)."""
    _no_facets(monkeypatch)
    K = _gram([[-2, -1], [2, -1], [0, 3]])
    m = driver.margin(K, max_iter=1)
    assert m.p.tolist() == [0.5, 0.5, 0.0]
    assert -3.0 - 1e-12 < m.lower <= -3.0
    assert m.alpha is not None and np.array_equal(m.alpha, m.p)
    _check_witness(m, K)


@pytest.mark.parametrize("precision", [None, 30])
@pytest.mark.parametrize("of", ["span", "matrix"])
def test_separating_facet_is_no_upper_bound(of, precision):
    """z_1, z_2 = (-+1, 0, h), z_3, z_4 = (0, +-S, S), h = 2^-26, S = 2^10 (K = Z Z^T exact, rank 3):
    the nearest point of the hull is (0, 0, h) on the edge z_1 z_2 (<z_i - x, x> >= 0 for every i),
    so m(K) = h.  The two facets through that edge are tilted: their offset is
    h S / sqrt(S^2 + (S - h)^2) ~ h / sqrt(2), which is 7e-12 max ||z_i|| -- below tol_side = 1e-10,
    and the p* certificate is below the float allowance (h^2 = 2^-52 against ~1e-15 (|K||p|)_i).
    [Bug found here: with of='span' (no exact check of K p*) margin() took the best facet's offset
    as -delta_max and returned upper = h / sqrt(2) + 64 n u max||z_i|| = 1.06e-8 < m = 1.49e-8, a
    false certificate (verify_margin_exact refuted it).  A facet with b > 0 separates the origin:
    it gives m >= b, no upper bound; the facet upper now needs b <= 0.]"""
    h, S = 2.0**-26, 2.0**10
    K = _gram([[-1, 0, h], [1, 0, h], [0, S, S], [0, -S, S]])
    m = driver.margin(K, of=of, precision=precision)
    assert m.feasible is True
    assert m.lower <= h <= m.upper, (m.lower, m.upper)
    assert verify_margin_exact(m, K) == ""


@pytest.mark.parametrize("points", [[[-1, -8], [3, 24], [4, 6]], [[3, -8], [-15, 40], [-5, 1]], [[6, 6], [-30, -30], [-4, 8]]])
@pytest.mark.parametrize("precision", [None, 30])
def test_origin_on_an_edge_has_margin_zero_in_every_precision(points, precision):
    """z_2 = -k z_1 (k = 3, 5, 5) and z_3 off their line: the origin lies on the edge z_1 z_2 of the
    triangle, on the boundary of the hull, so m(K) = -delta_max = 0 [RP14 Theorem 3] (K = Z Z^T
    exact, rank 2).  The best facet's offset b is a float64 SVD result within a few u max||z_i|| of 0
    (either sign).  [Bug found here: with precision=30 (b >= -tol_side, so the facet is not
    re-solved at 30 digits) upper = b max||z_i|| + 64 n 10^-30 max||z_i||, an allowance of the
    working precision for a float64 value: upper ~ -1e-14 < 0 = m and feasible=False, a false
    certificate.  The allowance now follows the arithmetic of the value: 64 n 2^-53 max||z_i|| for
    the float64 offset, 64 n 10^-D max||z_i|| for a facet re-solved at D digits.]"""
    K = _gram(points)
    m = driver.margin(K, precision=precision)
    assert m.lower <= 0 <= m.upper, (m.lower, m.upper)
    assert verify_margin_exact(m, K) == ""


@pytest.mark.parametrize("a", [7 * 2**23, 3 * 2**24])
def test_infeasible_margin_is_not_taken_from_a_float64_re_solve(a):
    """z_1 = (-a, -1), z_2 = (2^26, -1), z_3 = (0, 2^20) (K = Z Z^T exact: entries below 2^53): the
    origin is inside the triangle at distance 1 from the edge y = -1, ~10^6 from the others, so
    m(K) = -delta_max = -1 exactly [RP14 Theorem 3].  The KKT value of the facet {z_1, z_2} solved in
    float64 (entries ~2^52, lambda = 1) loses every digit to cancellation (1.12 and 1.05 here): the
    bracket must not come from it (in float64 the value is the SVD offset b with its allowance
    64 n u max||z_i||; at D digits the facet's exact squared distance).  On older code the
    mutant ``ar.is_mp or ...`` (a float64 re-solve) gave upper = -sqrt(1.12) + 4e-6 < -1."""
    K = _gram([[-a, -1], [2**26, -1], [0, 2**20]])
    for precision in (None, 30):
        m = driver.margin(K, precision=precision)
        assert m.feasible is False
        assert m.lower <= -1 <= m.upper, (m.lower, m.upper)
        assert verify_margin_exact(m, K) == ""


@pytest.mark.parametrize(
    "a, c, e, f, precision",
    [(54990420, 43983439, -974320, 317606, 20), (34867018, 48980390, -706622, 690442, 30), (19841744, 48626676, 776753, 528098, 30)],
)
def test_facet_re_solved_at_digits_brackets_minus_delta(a, c, e, f, precision):
    """z_1 = (-a, -1), z_2 = (c, -1), z_3 = (e, f) with a, c ~ 2^25 and |e|, f ~ 2^19 (K = Z Z^T exact):
    the origin is inside the triangle at distance 1 from the edge y = -1 and ~10^5 from the others,
    so m(K) = -1 exactly [RP14 Theorem 3]; 1 / max||z_i|| ~ 2e-8, so the facet is re-solved at D
    digits.  [Bug found here: the re-solve took -sqrt(lambda) from the D-digit KKT solve, whose
    lambda ~ delta^2 = 1 carries an absolute error ~ 10^-D max K_ii ~ 10^-D 10^15: upper came out
    -1 - 7e-8 (20 digits) and -1 - 2e-18 (30 digits), below m (verify_margin_exact refuted it).  The
    squared distance is now computed exactly (rationals) before its D-digit square root.]"""
    K = _gram([[-a, -1], [c, -1], [e, f]])
    m = driver.margin(K, precision=precision)
    assert m.feasible is False
    assert Fraction(rational(m.lower)) <= -1 <= Fraction(rational(m.upper)), (m.lower, m.upper)
    assert verify_margin_exact(m, K) == ""


def test_origin_outside_a_facet_by_less_than_its_round_off():
    """Four integer points in R^3 (K = Z Z^T exact, rank 3): z_1, z_2, z_3 span a plane with normal
    n = (z_2 - z_1) x (z_3 - z_1) and <n, z_1> = det(z_1, z_2, z_3) = 1, z_4 is far on the far side
    (<n, z_4> > 1), and the origin projects inside the triangle: so <n, z_i> >= 1 for every i and
    the origin is OUTSIDE the hull, m(K) >= 1 / ||n|| ~ 7e-12 = 2e-17 max||z_i|| > 0 -- far below
    the round-off of the float64 facet offset b, which comes out -2e-18.  The float64 allowance keeps
    upper >= m; a facet re-solved at D digits would not (its exact distance is that of the
    facet's plane, and -sqrt(mu) < 0 < m).  Mutants: the D-digit re-solve also for
    -tol_side <= b < tol_side (``b < +tol_side``) or for every b (``ar.is_mp or ...``): upper = -1.1e-11
    and feasible=False."""
    Z = [[1901, 55907, 246804], [120322, 69347, 22872], [-102084, -97966, -195343], [-154112, 288563, -64179]]
    z1, z2, z3, z4 = (np.array(v, dtype=object) for v in Z)
    n = _cross(z2 - z1, z3 - z1)
    assert [int(n @ z) for z in (z1, z2, z3)] == [1, 1, 1] and n @ z4 > 1  # exact integers
    n2 = int(n @ n)  # ||n||^2: m >= 1 / ||n||
    K = _gram(Z)
    for precision in (None, 30):
        m = driver.margin(K, precision=precision)
        assert m.feasible is not False
        up = rational(m.upper)
        assert up > 0 and up * up * n2 >= 1, float(m.upper)
        assert verify_margin_exact(m, K) == ""


@pytest.mark.parametrize("K, message", _BAD_K)
def test_every_entry_point_names_K_and_the_fix(K, message):
    calls = [
        lambda: margin(K),
        lambda: margin(K, precision=30),
        lambda: min_norm_point(K),
        lambda: lower_bound(K, np.ones(K.shape[0])),
        lambda: upper_bound(K, np.ones(K.shape[0])),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=message):
            call()


def test_non_unit_diagonal_is_accepted():
    """margin's K is the *unnormalized* signed Gram matrix: any positive diagonal is fine."""
    K = gram_of([[3.0, 0.0], [0.0, 2.0]])  # z1 = (3, 0), z2 = (0, 2): p* = (4, 9)/13, m = 6/sqrt(13)
    m = margin(K)
    assert m.feasible is True and m.lower <= 6 / math.sqrt(13) <= m.upper
    assert min_norm_point(K).norm == pytest.approx(6 / math.sqrt(13), rel=1e-14)


def test_exactly_separated_below_the_float_allowance():
    """m = 2^-25.5: far below the a-priori round-off of float evaluation (~8u), so the float
    certificate fails, but K p* = 2^-51 (1, 1) > 0 in exact rationals: feasible, lower from the
    exact evaluation, upper = ||p*||_K rounded up."""
    m = margin(_TINY_K)
    assert m.feasible is True
    assert 0 < m.lower and Fraction(m.lower) ** 2 <= Fraction(1, 2**51) <= Fraction(m.upper) ** 2
    assert m.lower <= m.value <= m.upper
    assert list(m.p) == [0.5, 0.5] and list(m.alpha) == [0.5, 0.5] and m.support == (0, 1)
    assert m.precision == "float64" and m.of == "matrix"
    assert m.method == (
        "feasible: K as stored is separated by its min-norm point p* (K p* > 0 in exact rational arithmetic, "
        "below the round-off allowance of float evaluation); lower = min(K p*)/||p*||_K evaluated exactly, "
        "upper = ||p*||_K [RP14 Lemma 3]"
    )


@pytest.mark.parametrize("k", [4, 20, 40])
def test_separated_above_the_float_allowance_is_certified_in_floats(k):
    """<z1, z2> = -1 + 2^-k, m = 2^-(k+1)/2 < 1 but far above the float round-off: the float
    certificate alone decides (no exact re-check), at float64 and at D digits."""
    d = 2.0**-k
    K = np.array([[1.0, -1.0 + d], [-1.0 + d, 1.0]])
    for precision, how in ((None, ""), (30, " (re-solved at 30 digits)")):
        m = margin(K, precision=precision)
        assert m.feasible is True
        assert 0 < _q(m.lower) ** 2 <= Fraction(d) / 2 <= _q(m.upper) ** 2
        assert m.method == (
            f"feasible: Wolfe min-norm point + KKT on its support{how}; lower = min(K p*)/||p*||_K, "
            "upper = ||p*||_K [RP14 Lemma 3]"
        )


def test_exactly_separated_at_digits():
    m = margin(_TINY_K, precision=30)
    assert m.feasible is True and m.precision == "mpmath, 30 decimal digits"
    with mpmath.workdps(60):
        true = mpmath.sqrt(mpmath.mpf(2) ** -51)
        assert m.lower <= true <= m.upper and m.lower > 0


def test_infeasible_triangle_at_digits_is_the_facet_distance():
    """z = (1, 0), (0, 1), (-1, -1): integer Gram of exact rank 2; the nearest edges (through
    (-1, -1)) are at distance 1/sqrt(5) from the origin, so m = -1/sqrt(5).  At 50 digits the
    facet's affine minimizer is re-solved: value, lower and upper agree with -1/sqrt(5) far
    beyond float64."""
    K = gram_of([[1, 0], [0, 1], [-1, -1]])
    m = margin(K, precision=50)
    assert m.feasible is False
    with mpmath.workdps(50):
        true = -1 / mpmath.sqrt(5)
        assert m.lower <= true <= m.upper
        for v in (m.value, m.lower, m.upper):
            assert abs(v - true) < mpmath.mpf(10) ** -40
    assert m.method.endswith("upper = -delta_max exact up to round-off; facet re-solved at 50 digits")


@pytest.mark.parametrize("s", [2.0**-13, 1.0, 2.0**13])
def test_infeasible_bracket_is_tight_at_every_scale(s):
    """The same triangle scaled by s (K by s^2, exact): lower <= -s/sqrt(5) <= upper (checked in
    rationals) and the bracket is no wider than 1e-9 R, R = s sqrt(2) the largest norm."""
    K = gram_of(s * np.array([[1, 0], [0, 1], [-1, -1]]))
    m = margin(K)
    assert m.feasible is False
    lo, hi = Fraction(m.lower), Fraction(m.upper)
    assert lo < 0 and hi < 0
    assert lo**2 >= Fraction(s) ** 2 / 5 >= hi**2  # lower <= -s/sqrt(5) <= upper
    assert m.upper - m.lower <= 1e-9 * s * math.sqrt(2)


def test_zero_norm_point_with_local_search_gets_upper_zero():
    """z, -z with max_subsets=1 (C(2, 1) = 2 subsets: local search): Wolfe's p* = (1/2, 1/2) has
    p*^T K p* = 0 exactly, so 0 is in the hull of K as stored: upper = 0, feasible False, and
    nothing about a simplex (that certificate is not needed)."""
    m = margin(np.array([[1.0, -1.0], [-1.0, 1.0]]), max_subsets=1)
    assert m.feasible is False and m.upper == 0 and m.lower <= -1 + 1e-9 and m.lower <= m.value <= 0
    assert m.method == (
        "infeasible: C(2, 1) = 2 subsets exceed max_subsets=1; value and lower from a local search over "
        "facets (NOT certified tight); upper = ||p*||_K of the min-norm point (~0)"
    )


def test_exact_max_n_is_the_largest_n_rechecked_exactly(monkeypatch):
    """EXACT_MAX_N is inclusive: with it set to n = 2, the exact p*^T K p* = 0 of z, -z still
    certifies 0 in the hull (upper = 0, feasible False); with it set to 1 the check is skipped and,
    with only a local search, the sign stays undecided.  (At the real 400 the same instance costs
    seconds of rational arithmetic.)"""
    K = np.array([[1.0, -1.0], [-1.0, 1.0]])
    monkeypatch.setattr(driver, "EXACT_MAX_N", 2)
    m = margin(K, max_subsets=1)
    assert m.feasible is False and m.upper == 0
    monkeypatch.setattr(driver, "EXACT_MAX_N", 1)
    m = margin(K, max_subsets=1)
    assert m.feasible is None and m.upper > 0


_SEPARATED_AS_STORED = (
    "feasible: K as stored is separated by its min-norm point p* (K p* > 0 in exact rational arithmetic, "
    "below the round-off allowance of float evaluation)"
)


def _separated_as_stored(m, K) -> bool:
    """margin() found a min-norm point that separates K as stored exactly (a verified claim, below
    float round-off: ||p*||_K^2 <= 64 n u max K_ii)."""
    if m.feasible is not True:
        return False
    assert m.method.startswith(_SEPARATED_AS_STORED) and 0 < m.lower <= m.upper
    assert Fraction(rational(m.upper)) ** 2 <= 64 * K.shape[0] * Fraction(u) * Fraction(float(np.max(np.diag(K))))
    assert verify_margin_exact(m, K) == ""
    return True


def test_rounded_gram_is_undecided_as_stored_and_infeasible_in_span():
    """K as stored is undecided (never called infeasible: its exact rank is 4 > 2) unless Wolfe's
    p happens to separate it exactly (see _K4); in the span K_2 the origin is inside the hull."""
    delta = _delta_max(_Z4)
    m = margin(_K4)  # K as stored
    assert m.feasible is not False and verify_margin_exact(m, _K4) == ""
    if not _separated_as_stored(m, _K4):
        assert m.feasible is None and m.upper > 0 and m.lower <= -delta + 1e-9
        assert m.value == pytest.approx(-delta, abs=1e-9)
        assert m.method.startswith(
            "undecided for K as stored: K is within round-off of a matrix of rank 2 whose hull holds the origin "
            "(value = -delta_max^rel of that matrix, from all C(4, 2) = 6 point subsets [RP14 Theorem 3, E-A3]), "
            "but K itself has exact rank > 2"
        )
        assert m.method.endswith(
            "; ||p*||_K^2 is below the round-off tolerance 64 n u max_i K_ii of Wolfe's algorithm, so the sign "
            "of the margin is not decided (a margin that small may be positive)"
        )
    s = margin(_K4, of="span")  # K_2: the data
    assert s.feasible is False and s.of == "span"
    assert s.lower <= -delta + 1e-9 and s.upper == pytest.approx(-delta, abs=1e-9) and s.upper < 0
    assert s.method.startswith("infeasible: complete enumeration of the C(4, 2) = 6 point subsets (rank 2); ")
    assert s.method.endswith("; of='span': about K restricted to its numerical span (rank 2 of 4)")


def test_rounded_gram_with_local_search_simplex_certificate_only_in_span():
    """max_subsets=1: no complete enumeration.  As stored, nothing certifies the sign (undecided);
    in the span, Wolfe's 3 support points hold the origin strictly inside their simplex: upper = 0.
    (As stored, Wolfe's p may also separate K exactly -- round-off, see _K4: then feasible=True.)"""
    m = margin(_K4, max_subsets=1)
    assert m.feasible is not False and verify_margin_exact(m, _K4) == ""
    if not _separated_as_stored(m, _K4):
        assert m.feasible is None and m.upper > 0
        assert m.method.startswith("undecided: C(4, 2) = 6 subsets exceed max_subsets=1; ")
        assert "simplex" not in m.method
    s = margin(_K4, max_subsets=1, of="span")
    assert s.feasible is False and s.upper == 0 and s.lower <= -_delta_max(_Z4) + 1e-9
    assert s.method == (
        "infeasible: C(4, 2) = 6 subsets exceed max_subsets=1; value and lower from a local search over "
        "facets (NOT certified tight); upper = ||p*||_K of the min-norm point (~0); 0 is inside the simplex "
        "of Wolfe's 3 support points (barycentric weights > 0 beyond their round-off bound), so upper = 0; "
        "of='span': about K restricted to its numerical span (rank 2 of 4)"
    )


def test_origin_on_an_edge_in_span_is_undecided():
    """z = (0.3, 0), (-0.7, 0), (0.1, 0.9): the origin lies on the edge z1-z2 (m = 0).  In the span
    the complete enumeration finds that edge at distance ~0, within round-off of both signs, and
    Wolfe's support has 2 points, not a simplex: the sign is undecided."""
    m = margin(gram_of([[0.3, 0.0], [-0.7, 0.0], [0.1, 0.9]]), of="span")
    assert m.feasible is None and m.lower <= 0 <= m.upper and m.lower > -1e-12
    # the facet bound 0 + allowance is >= 0, so upper is the min-norm point's ||p||_K / 1^T p, witnessed by p
    assert verify_margin_exact(m, gram_of([[0.3, 0.0], [-0.7, 0.0], [0.1, 0.9]])) == "" and m.upper < 1e-6
    assert m.method.startswith("undecided: complete enumeration of the C(3, 2) = 3 point subsets (rank 2); ")
    assert m.method.endswith(
        "of the margin is not decided (a margin that small may be positive); of='span': about K restricted "
        "to its numerical span (rank 2 of 3)"
    )


def test_feasible_by_facets_with_full_rank_span_has_no_span_note():
    """K = I_3, max_iter=1: Wolfe stops at p = (1/2, 1/2, 0) (K p has a 0 entry: no certificate);
    the facet of the hull (rank 3 = n) is x + y + z = 1 at distance 1/sqrt(3) > 0: feasible.
    With of='span' and rank r = n there is no restriction to mention."""
    for of in ("matrix", "span"):
        m = margin(np.eye(3), max_iter=1, of=of)
        assert m.feasible is True and m.of == of
        assert m.lower <= 1 / math.sqrt(3) <= m.upper and m.lower == pytest.approx(1 / math.sqrt(3), rel=1e-12)
        # value: the min-norm estimate ||p||_K = 1/sqrt(2) of Wolfe's (unconverged) point
        assert m.value == pytest.approx(1 / math.sqrt(2), rel=1e-12)
        assert m.method == "feasible (the facet enumeration found a separating hyperplane); min-norm point estimate"


def test_a_zero_point_makes_the_margin_exactly_zero_and_not_feasible():
    """z2 = 0: (K alpha)_2 = 0 for every alpha, so m = 0; the facet witness alpha = e1 gives
    lower = 0 exactly, which is NOT a strict separator: feasible must be False (upper = 0)."""
    m = margin(np.array([[1.0, 0.0], [0.0, 0.0]]))
    assert m.feasible is False
    assert m.lower <= 0 and m.upper == 0 and m.value == 0


def test_margin_refuses_an_unknown_object_with_the_choices():
    with pytest.raises(ValueError) as info:
        driver.margin(np.eye(2), of="spam")
    assert str(info.value) == "of must be 'matrix' (K as stored) or 'span' (its numerical span), got 'spam'"


@pytest.mark.parametrize("K", [np.eye(2), np.array([[1.0, -1.0], [-1.0, 1.0]]), np.array([[2.0, -1.0, -1.0], [-1.0, 2.0, -1.0], [-1.0, -1.0, 2.0]])])
def test_margin_fields_are_plain_floats_in_float64_mode(K):
    """Margin documents value / lower / upper as ``float`` (or mpf): plain Python floats, not
    numpy scalars (whose repr ``np.float64(0.5)`` would leak into every printed result) -- for a
    separable (I_2), an infeasible (z_2 = -z_1) and a rank-deficient infeasible (a triangle
    around 0 in its plane) matrix.  The mutant that skips the conversion returns np.float64."""
    m = driver.margin(K)
    for field in ("value", "lower", "upper"):
        assert type(getattr(m, field)) is float, (field, type(getattr(m, field)))
    for of in ("matrix", "span"):
        m = driver.margin(K, of=of)
        assert all(type(getattr(m, f)) is float for f in ("value", "lower", "upper"))
    with mpmath.workdps(30):
        mp = driver.margin(K, precision=30)
    assert all(isinstance(getattr(mp, f), mpmath.mpf) for f in ("value", "lower", "upper"))


def test_margin_emits_no_warnings():
    """margin() on separable, infeasible (complete enumeration and local search) and span
    instances raises no warning of any kind (a numpy DeprecationWarning such as finfo(None)'s
    becomes an error in a later numpy)."""
    import warnings

    tri = np.array([[2.0, -1.0, -1.0], [-1.0, 2.0, -1.0], [-1.0, -1.0, 2.0]])
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((12, 3))
    Z -= Z.mean(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        driver.margin(np.eye(3))
        driver.margin(tri)
        driver.margin(tri, of="span")
        driver.margin(Z @ Z.T)
        driver.margin(Z @ Z.T, max_subsets=10)  # C(12, 3) = 220 > 10: local search
        driver.margin(tri, precision=30)


def test_margin_undecided_for_k_as_stored_says_why_in_full():
    """The rounded Gram matrix of an infeasible planar triangle: numerically of rank 2, exactly of
    rank 3 (checked), so the facets of the rank-2 matrix bracket m(K) without deciding its sign.
    The method names the rank, the subsets, and where each bound comes from."""
    from reference.exact import exact_rank

    K = _rotated_triangle()
    assert exact_rank(K) == 3
    m = driver.margin(K)
    assert m.feasible is None and m.lower < 0 < m.upper
    assert abs(m.value + 0.5) < 1e-12  # -delta_max^rel of the rank-2 matrix: the inradius 1/2
    expected = (
        "undecided for K as stored: K is within round-off of a matrix of rank 2 whose hull holds the "
        "origin (value = -delta_max^rel of that matrix, from all C(3, 2) = 3 point subsets [RP14 "
        "Theorem 3, E-A3]), but K itself has exact rank > 2, so its own margin is only bracketed: "
        "lower from the facet normal (alpha-form), upper = ||p*||_K of the min-norm point [RP14 Lemma 3]"
    )
    assert m.method.split("; ")[0] == expected, m.method


def test_margin_decides_exact_rank_up_to_exact_rank_n_points():
    """Integer points of the plane around the origin: K = Z Z^T is an integer matrix of exact rank 2,
    so for n <= EXACT_RANK_N = 60 points the facet enumeration certifies m(K) = -delta_max < 0
    (feasible False, upper < 0); beyond 60 points the exact rank is not computed (documented
    cost limit) and the verdict stays undecided.  Mutant: ``n < EXACT_RANK_N``."""
    assert driver.EXACT_RANK_N == 60
    Z60 = _integer_points(60)
    m = driver.margin(Z60 @ Z60.T)
    assert m.feasible is False and m.upper < 0 and m.method.startswith("infeasible: complete enumeration")
    _assert_brackets_minus_delta(Z60, m)
    Z61 = _integer_points(61)
    m = driver.margin(Z61 @ Z61.T)
    assert m.feasible is None and m.method.startswith("undecided for K as stored")
    _assert_brackets_minus_delta(Z61, m)


def test_precision_mode_witnesses_hold_mpf_entries():
    """With precision=D every number of the result is an mpf at D digits, the witness alpha of
    ``lower`` included (the facet normal's coefficients, not a float64 array); and alpha reproduces
    lower through lower_bound at the same precision."""
    on_edge = np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])  # 0 on the edge z_1 z_2: m = 0
    for K, of in ((_rotated_triangle(), "span"), (on_edge, "matrix")):
        m = driver.margin(K, precision=30, of=of)
        assert m.alpha is not None and all(isinstance(v, mpmath.mpf) for v in m.alpha), (of, m.alpha)
        assert bounds.lower_bound(K, m.alpha, precision=30) == m.lower
    assert m.feasible is False and m.upper == 0  # on_edge: p* K p* = 0 exactly


def test_margin_rechecks_in_exact_arithmetic_up_to_exact_max_n_points():
    """For n <= EXACT_MAX_N = 400 an undecided float verdict is re-checked exactly: the segment at
    height 2^-26 is certified separable (feasible True, 0 < lower <= 2^-26 <= upper); with 401
    points it is not re-checked (documented cost limit) and stays undecided.  Mutant: ``n <
    EXACT_MAX_N``."""
    assert driver.EXACT_MAX_N == 400
    for n in (2, 400):
        m = driver.margin(_segment_above_origin(n))
        assert m.feasible is True and 0 < m.lower <= 2.0**-26 <= m.upper, (n, m.lower, m.upper, m.method)
        assert "exact" in m.method
    m = driver.margin(_segment_above_origin(401))
    assert m.feasible is None, m.method


def test_margin_upper_is_above_minus_delta_despite_the_facet_round_off():
    """An infeasible integer point set (K of exact rank 2): feasible False, and the certified
    interval holds -delta exactly although the float facet value is a few ulps below it -- the
    facet allowance 64 n u max_i ||z_i|| covers it (mutant: 64 u max ||z_i|| / n does not)."""
    Z = np.array(_POINTS_56, dtype=float)
    m = driver.margin(Z @ Z.T)
    assert m.feasible is False and m.upper < 0
    _assert_brackets_minus_delta(Z, m)


def test_scaled_back_method_names_the_scaling():
    """margin() of a tiny K reports the scaling in its method (``computed on 4^-k K with k = ...``),
    and a positive lower bound lost below the subnormals is explained at the end of the text."""
    m = margin(np.array([[2.0**-1070]]))
    assert "; computed on 4^-k K with k = -534 (exact), bounds times 2^k" in m.method
    ar = Arithmetic(None)
    s = driver._scaled_back(Margin(1.0, 0.5, 2.0, True, np.ones(1), np.ones(1), (0,), "float64", "feasible"), -1080, ar)
    assert s.method == ("feasible; computed on 4^-k K with k = -1080 (exact), bounds times 2^k"
                        " (lower > 0 for 4^-k K, but 2^k lower is below the smallest subnormal)")


@pytest.mark.parametrize(
    "K",
    [
        [[0.0, 1e-9], [1e-9, 1.0]],  # K_11 = 0 beside K_12 != 0: eigenvalue ~ -1e-18, within check_gram's tolerance
        [[0.0, 4.436445698125405e-272], [4.436445698125405e-272, 6.373906171566411e-219]],  # X X^T with K_11 underflowed
    ],
)
def test_crossed_bounds_of_a_non_psd_matrix_are_refused(K):
    """Regression (found on this round by a random exact check of margin()): these K pass the PSD test
    (tolerance 1e-8 n max(1, max|K|)) but are not PSD (det < 0); margin() returned lower = 1e-9 >
    upper = 0 with feasible=True -- an interval that no PSD matrix has.  Crossed bounds now raise."""
    K = np.array(K)
    assert rational(K[0, 0]) * rational(K[1, 1]) < rational(K[0, 1]) ** 2  # not PSD, exactly
    with pytest.raises(ValueError, match="K is not positive semidefinite: the certified bounds cross"):
        margin(K)


@pytest.mark.parametrize("K", [np.diag([np.finfo(np.float64).max, 2.0**-1019]), np.diag([2.0**1023, 2.0**1023, 2.0**-1022])])
def test_margin_of_a_gram_matrix_near_the_float64_maximum_counts_its_rank(K):
    """Regression (found on this round): K with entries near the largest float beside a tiny one
    (which limits the scaling, k <= 1): the rank tolerance of _span_coordinates, max eig * n 1000
    eps, overflowed -- a RuntimeWarning, tolerance inf, numerical rank 0, and a method text about
    "C(n, 0) = 1 subsets exceed max_subsets".  Now the rank counts the large eigenvalues (the tiny
    point is within round-off of the origin, relative to them), and the bracket holds exactly."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = margin(K)
    r = K.shape[0] - 1
    assert f"within round-off of a matrix of rank {r} " in m.method and ", 0) = " not in m.method
    assert verify_margin_exact(m, K) == ""
    assert m.lower <= m.upper


@pytest.mark.parametrize("K", [np.diag([1.0, 0.0]), np.diag([1.0, 1.0, 0.0]), np.diag([0.0, 4.0])])
def test_a_point_at_the_origin_gives_the_exact_margin_zero(K):
    """A zero point z_i = 0 makes (K alpha)_i = 0 for every alpha, so m(K) <= 0; alpha = the sum of the
    other (orthogonal) points gives min(K alpha) = 0, so m(K) = 0 exactly.  margin() certifies it
    with lower = upper = 0 (the exact zero quotient of the witness, and p* = the zero point, whose
    p*^T K p* = 0 exactly): equal bounds are an interval of width 0, not crossed bounds.  Mutant:
    ``m.lower >= m.upper`` refuses it as "not positive semidefinite"."""
    m = driver.margin(K)
    assert m.lower == 0 and m.upper == 0 and m.value == 0 and m.feasible is False
    assert verify_margin_exact(m, K) == ""


def test_crossed_bounds_error_names_the_bounds_and_the_fix():
    """K = [[0, 1e-9], [1e-9, 1]] passes check_gram (2 x 2 PSD test with tolerance 1e-8 n) but is not
    PSD (det = -1e-18 < 0); its certified bounds cross and margin() refuses it.  The message must
    name the argument, the two bounds that cross (printed lower > printed upper) and the fix."""
    K = np.array([[0.0, 1e-9], [1e-9, 1.0]])
    assert _q_2(K[0, 0]) * _q_2(K[1, 1]) < _q_2(K[0, 1]) ** 2  # not PSD, exactly
    with pytest.raises(ValueError) as err:
        driver.margin(K)
    msg = str(err.value)
    assert msg.startswith("K is not positive semidefinite: the certified bounds cross")
    lo, up = re.search(r"lower = (\S+) from alpha > upper = (\S+) from p", msg).groups()
    assert float(lo) > float(up)
    assert "pass a PSD matrix, e.g. the Gram matrix of your points (reference.gram / signed_gram)" in msg, msg
    assert msg.endswith("build it at D digits, signed_gram(X, y, precision=D), and pass precision=D"), msg


def test_crossed_bounds_of_an_underflowed_float_gram_matrix_point_to_the_digits_fix():
    """z_1 = 3 2^-600, z_2 = 2^-40, z_3 = 1 (R^1, all on one side: m = min |z_i| = 3 2^-600 > 0).  In
    float64, signed_gram's K_11 = 9 2^-1200 underflows to 0 while K_12 = 3 2^-640 does not, so K as
    stored is not PSD (det [[0, K_12], [K_12, K_22]] < 0): margin() refuses it, and its message
    gives the fix that works -- the Gram matrix at D digits with precision=D, whose interval holds
    the closed form 3 2^-600 exactly (rationals)."""
    X, y = np.array([[3 * 2.0**-600], [2.0**-40], [1.0]]), np.ones(3)
    K = reference.signed_gram(X, y)
    assert K[0, 0] == 0 and K[0, 1] == 3 * 2.0**-640  # the underflow
    with pytest.raises(ValueError, match="K is not positive semidefinite") as err:
        driver.margin(K)
    assert "signed_gram(X, y, precision=D), and pass precision=D" in str(err.value)
    Kd = reference.signed_gram(X, y, precision=30)
    m = driver.margin(Kd, precision=30)
    assert m.feasible is True and _q_2(m.lower) <= 3 * Fraction(2) ** -600 <= _q_2(m.upper)
    assert verify_margin_exact(m, Kd) == ""


def test_exact_recheck_of_the_min_norm_point_includes_n_equal_to_exact_max_n(monkeypatch):
    """EXACT_MAX_N is the largest n re-checked exactly (inclusive).  With it set to n = 2: the unit
    vectors with <z_1, z_2> = -1 + 2^-50 are separated by p* = (1/2, 1/2), K p* = 2^-51 (1, 1) > 0
    exactly, m^2 = 2^-51, far below the float round-off allowance -- only the exact evaluation
    certifies feasible=True.  (At the real 400 the same check costs seconds of rational arithmetic:
    the slow test_margin_rechecks_in_exact_arithmetic_up_to_exact_max_n_points.)"""
    d = 2.0**-50
    K = np.array([[1.0, -1.0 + d], [-1.0 + d, 1.0]])
    monkeypatch.setattr(driver, "EXACT_MAX_N", 2)
    m = driver.margin(K)
    assert m.feasible is True and "exact rational arithmetic" in m.method
    assert 0 < _q_2(m.lower) ** 2 <= Fraction(1, 2**51) <= _q_2(m.upper) ** 2
    assert verify_margin_exact(m, K) == ""


def _facet_reported_at(b):
    """margin()'s facet search wrapped to report offset ``b`` for the best facet of _k4's points,
    with its normal turned away (-a: min_i <-a, z_i> is far below 0, so the facet's alpha-form
    lower bound is negative).  The real best facet has b ~ 1e-17 whose sign is round-off (the
    BLAS's order of summation: -2.3e-18 or +7.2e-17), and when b > 0 its normal certifies
    feasible=True; the report fixes both, so only the facet upper bound is left to decide."""
    real = facets._enumerate_facets

    def report(Zs, r, tol_side, chunk=8192):
        _, a, T = real(Zs, r, tol_side, chunk)
        return b, -a, T

    return report


def test_a_nonnegative_facet_bound_is_not_taken_when_wolfe_stops_early(monkeypatch):
    """With a Wolfe budget of one cycle, p is the affine minimizer of two points (||p||_K / 1^T p ~ 7e4,
    min(K p) < 0 by far); the best facet reported at b = -2^-60 (<= 0: the origin in the hull up to
    round-off), whose -delta + allowance = (2^-45 - 2^-60) scale > 0 is a bound with no witness.
    upper must stay the witnessed ||p||_K / 1^T p (upper_bound(K, p)), above m(K) >= 1/||n||, and
    the answer re-checks exactly.  Mutants: the facet bound taken when ``value - allowance < 0`` or
    ``value + allowance < 1``: upper = 9.5e-9, below ||p||_K / 1^T p (verify_margin_exact refutes it)."""
    K, n2 = _k4()
    monkeypatch.setattr(driver, "_enumerate_facets", _facet_reported_at(-(2.0**-60)))
    m = driver.margin(K, max_iter=1)
    assert m.feasible is None and m.upper == bounds.upper_bound(K, m.p)
    up = _q_2(m.upper)
    assert up > 0 and up * up * n2 >= 1
    assert verify_margin_exact(m, K) == ""


def test_a_facet_bound_of_exactly_zero_is_not_taken(monkeypatch):
    """The best facet reported at b = -64 n u: then value = b scale and the allowance 64 n u scale
    are the same rounded product, value + allowance = 0 exactly -- not negative, so not taken (a
    facet bound >= 0 has no witness): upper stays ||p||_K / 1^T p > 0 and the answer re-checks
    exactly.  (One Wolfe cycle: p is far from separating, so the exact re-check of K p > 0 does not
    end the run before the facets, as it may for the full min-norm point, whose min(K p) ~ -1e-6
    has the sign of its round-off.)  Mutant: ``value + allowance <= 0`` takes upper = 0 and
    feasible=False, which verify_margin_exact refutes (p^T K p > 0 exactly)."""
    K, _ = _k4()
    n = K.shape[0]
    monkeypatch.setattr(driver, "_enumerate_facets", _facet_reported_at(-64 * n * u))
    m = driver.margin(K, max_iter=1)
    assert m.upper > 0 and m.upper == bounds.upper_bound(K, m.p) and m.feasible is None
    assert verify_margin_exact(m, K) == ""


@pytest.mark.parametrize("precision", [None, 30])
def test_infeasible_square_upper_is_minus_delta_up_to_the_facet_allowance(precision):
    """z = (+-1, 0), (0, +-1): the origin is inside the square at distance delta = 1/sqrt(2) from every
    edge, so m(K) = -1/sqrt(2) [RP14 Theorem 3].  K has exact rank 2 = its numerical rank, so the
    facet bound applies: lower <= -1/sqrt(2) <= upper < 0 (exactly, in rationals), feasible=False,
    and upper = value + allowance within twice the facet allowance 64 n u max||z_i|| of -delta (once
    for the float facet value, once added).  Mutants of the facet upper
    bound (``upper = None``, ``min(None, ...)``, ``min(upper, )``, ``value - allowance``, ...):
    TypeError or an upper below m."""
    K = np.array([[1.0, -1, 0, 0], [-1, 1, 0, 0], [0, 0, 1, -1], [0, 0, -1, 1]])
    m = driver.margin(K, precision=precision)
    lo, up = _q_2(m.lower), _q_2(m.upper)
    assert m.feasible is False and lo < 0 and up < 0
    assert lo * lo >= Fraction(1, 2) >= up * up  # lower <= -1/sqrt(2) <= upper
    slack = 2 * 64 * 4 * Fraction(u)  # max||z_i|| = 1
    assert (slack - up) ** 2 >= Fraction(1, 2)  # upper <= -1/sqrt(2) + slack
    assert verify_margin_exact(m, K) == ""


def test_crossed_bounds_message_in_full():
    """K = [[0, 1e-9], [1e-9, 1]] passes check_gram's PSD tolerance but det K = -1e-18 < 0 exactly: the
    certified bounds cross.  The whole message: the argument, the two bounds (lower > upper as
    printed), the general fix, the float64 cause (underflowed squared norms) and its fix."""
    K = np.array([[0.0, 1e-9], [1e-9, 1.0]])
    assert Fraction(K[0, 0]) * Fraction(K[1, 1]) < Fraction(K[0, 1]) ** 2
    with pytest.raises(ValueError) as err:
        margin(K)
    pattern = (
        r"K is not positive semidefinite: the certified bounds cross \(lower = (\S+) from alpha > upper = (\S+) "
        r"from p, impossible for a PSD K \[RP14 Lemma 3\]\); pass a PSD matrix, e\.g\. the Gram matrix of your "
        r"points \(reference\.gram / signed_gram\); in float64 the Gram matrix of points of very different "
        r"norms can lose PSD-ness to underflow \(a squared norm rounded to 0 beside a nonzero inner product\): "
        r"then build it at D digits, signed_gram\(X, y, precision=D\), and pass precision=D"
    )
    found = re.fullmatch(pattern, str(err.value))
    assert found, str(err.value)
    assert float(found.group(1)) > float(found.group(2))


def test_infeasible_upper_is_minus_delta_within_the_facet_allowance():
    """30 copies of z = 1 and 30 of z = -1 (K = z z^T, exact rank 1): the hull is [-1, 1] and the
    margin relative to the span is -delta_max = -1 [RP14 Theorem 3, E-A3].  ``upper`` is -delta_max
    up to the round-off allowance of the facet computation, 64 n u max_i ||z_i|| (tol_side is in
    units of max_i ||z_i||): at most -1 + 128 n u here (twice the allowance, for the facet value's own
    round-off), and certified: >= -1."""
    z = np.array([1.0] * 30 + [-1.0] * 30)
    n = z.size
    m = driver.margin(np.outer(z, z))
    assert m.feasible is False
    assert m.lower <= -1 <= m.upper <= -1 + 128 * n * u_2, (m.lower, m.upper)


@pytest.mark.parametrize(
    "points",
    [
        [[-7, 9], [5, 9], [-8, 4], [-4, 1], [8, -4], [4, -6], [-3, 9], [-1, 0], [-4, -7], [-1, 2], [-1, 5],
         [-3, 2], [5, 8], [-1, -9], [4, 1], [7, -1], [-3, -8], [-1, 3], [5, 7], [-5, 2], [6, -5], [-3, 6]],
        [[1, 1], [3, -9], [3, 5], [5, 4], [-8, -4], [8, -1], [-9, 5], [-6, 6], [5, -5], [2, 5], [-3, -1], [9, 9],
         [-9, 7], [9, -3], [2, -3], [8, 0], [5, 9], [4, -7], [-2, 1], [2, 3], [9, 4], [9, -8], [-5, 2], [3, -1]],
    ],
)
def test_infeasible_margin_of_integer_points_brackets_minus_delta(points):
    """Integer points in R^2 around the origin (K = Z Z^T exact, rank 2): lower <= -delta_max <=
    upper with -delta_max from the edge lines in 50 digits.  The facet value carries a round-off of
    a few u max_i ||z_i|| (here up to ~8e-15 below -delta_max), which the allowance 64 n u max_i ||z_i||
    must cover."""
    Z = np.array(points, dtype=float)
    m = driver.margin(Z @ Z.T)
    true = _minus_delta_2d(points)
    assert m.feasible is False
    assert mpmath.mpf(m.lower) <= true <= mpmath.mpf(m.upper), (m.lower, float(true), m.upper)


def test_precision_has_an_upper_limit():
    with pytest.raises(ValueError, match="to 1000"):
        ref.margin(np.eye(2), precision=10**5)


def test_margin_of_a_nearly_singular_matrix_contains_its_exact_margin():
    """G_12 = -(1 - 2^-53): alpha = (1/2, 1/2) gives G alpha = 2^-54 > 0 exactly, so the matrix
    given is feasible with margin ||p*||_G = 2^-27 (p* = (1/2, 1/2) by symmetry); the old interval
    was [-1.0000000000000036, -0.999999999999986]."""
    G = ref.gram(np.array([[0.875], [-0.4375]]), np.array([1, 1]))
    assert rational(G[0, 1]) == -1 + rational(2.0**-53)
    for precision in (None, 30):
        m = ref.margin(G, precision=precision)
        assert m.lower <= 2.0**-27 <= m.upper
        assert m.feasible is True
        assert verify_margin_exact(m, G) == ""


def test_margin_infeasible_claim_only_for_an_exactly_rank_deficient_matrix():
    """A rounded Gram matrix of infeasible data has full exact rank (so, if PSD, its margin is
    >= 0): margin must not state a negative upper bound for it; an exactly rank-deficient one
    (integer data) keeps its -delta_max."""
    th = 2 * np.pi * np.arange(3) / 3 + 0.3
    Z = np.column_stack([np.cos(th), np.sin(th)])
    K = Z @ Z.T
    assert exact_rank(K) == 3
    m = ref.margin(K)
    assert m.upper >= 0 and m.feasible is not False
    assert m.value == pytest.approx(-0.5, abs=1e-9)  # -delta_max of the data it approximates
    assert verify_margin_exact(m, K) == ""
    S = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    K = S @ S.T
    assert exact_rank(K) == 2
    m = ref.margin(K)
    assert m.feasible is False and m.upper < 0 and m.lower <= -1.0 <= m.upper


def test_count_text_is_short_and_exact_when_small():
    assert _count_text(0) == "0" and _count_text(999_999_999) == "999999999"
    big = _count_text(math.comb(1605, 98))
    assert big == "about 7.1e+158"
    assert _count_text(10**9) == "about 1e+9" and _count_text(9_990_000_000) == "about 1e+10"
    assert len(_count_text(math.comb(100_000, 50_000))) < 20  # 30101 digits, still one short phrase
