"""Tests written against the sampled mutmut mutants of reference/margin.py outside the certificate
helpers (issue 13 item 8): _prepare, _span_coordinates, _zero_tol, _hyperplanes, _local_search,
_wolfe and the branches / wording of margin().  Each was checked by hand: the mutated code fails
the test, the original passes.  Expected values are derived by hand from planted instances
(closed forms, exact rationals), never copied from the implementation's output.
"""

import math
import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import reference  # noqa: F401
from reference.arithmetic import Arithmetic
from reference.margin import lower_bound, margin, min_norm_point, upper_bound

M = sys.modules["reference.margin"]  # the package re-exports the function `margin` under the module's name


def gram(Z):
    Z = np.asarray(Z, dtype=float)
    return Z @ Z.T


# -- _prepare: every entry point names K and the fix -------------------------------------------

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
    K = gram([[3.0, 0.0], [0.0, 2.0]])  # z1 = (3, 0), z2 = (0, 2): p* = (4, 9)/13, m = 6/sqrt(13)
    m = margin(K)
    assert m.feasible is True and m.lower <= 6 / math.sqrt(13) <= m.upper
    assert min_norm_point(K).norm == pytest.approx(6 / math.sqrt(13), rel=1e-14)


def test_precision_symmetrizes_K_exactly():
    """check_gram allows 1e-10 asymmetry; at D digits K is replaced by (K + K^T) / 2 exactly, for
    every pair i < j (the neighbours j = i + 1 included)."""
    n = 4
    K = 4.0 * np.eye(n)
    asym = {}
    for i in range(n):
        for j in range(i + 1, n):
            a = 0.25 * (i + j) / n
            K[i, j], K[j, i] = a, a + 2.0**-40 * (1 + i)  # dyadic: the mean is exact in float64
            asym[i, j] = (K[i, j] + K[j, i]) / 2
    Kf, Km, ar = M._prepare(K, 40)
    with ar.context():
        for (i, j), mean in asym.items():
            assert Km[i, j] == Km[j, i] == mpmath.mpf(mean), (i, j)
    # and the certified margin is the one of the symmetrized matrix
    S = K.copy()
    for (i, j), mean in asym.items():
        S[i, j] = S[j, i] = mean
    a, b = margin(K, precision=40), margin(S, precision=40)
    assert (a.lower, a.upper, a.value) == (b.lower, b.upper, b.value)


# -- _span_coordinates and _zero_tol ------------------------------------------------------------


@pytest.mark.parametrize("n, d, seed", [(6, 2, 0), (9, 3, 1), (12, 2, 2), (5, 4, 3)])
def test_span_coordinates_have_the_rank_of_the_data(n, d, seed):
    """A float Gram of n points of R^d (d < n) has round-off eigenvalues ~1e-16 besides the d real
    ones: the numerical rank cut (relative to the LARGEST eigenvalue) keeps exactly d, and
    Z Z^T = K, K alpha(f) = Z f, ||alpha(f)||_K = ||f||."""
    Z0 = np.random.default_rng(seed).standard_normal((n, d))
    K = gram(Z0)
    Z, V_r, s_r = M._span_coordinates(K)
    assert Z.shape == (n, d) and V_r.shape == (n, d) and s_r.shape == (d,)
    np.testing.assert_allclose(Z @ Z.T, K, atol=1e-12 * np.max(np.abs(K)))
    f = np.arange(1.0, d + 1)
    alpha = (V_r / np.sqrt(s_r)) @ f
    np.testing.assert_allclose(K @ alpha, Z @ f, atol=1e-10 * np.linalg.norm(f) * np.max(np.abs(K)))
    assert alpha @ K @ alpha == pytest.approx(f @ f, rel=1e-10)


@pytest.mark.parametrize("diag", [[1.0, 3.0, 2.0], [0.5, 0.25], [7.0, 7.0, 1.0, 2.0, 5.0]])
def test_zero_tol_is_64_n_u_max_diag(diag):
    """_zero_tol is the documented 64 n u max_i K_ii (u = 2^-53), exactly (powers of two)."""
    K = np.diag(diag)
    n = len(diag)
    assert M._zero_tol(K) == Fraction(64 * n) * Fraction(1, 2**53) * Fraction(max(diag))


# -- _wolfe -------------------------------------------------------------------------------------


def test_wolfe_converges_on_an_exact_zero_norm_point():
    """z and -z: one major cycle adds -z, the affine minimizer (1/2, 1/2) has p^T K p = 0 exactly;
    the second major cycle's optimality test 0 - 0 <= tol passes (tol >= 0 at q = 0)."""
    for c in (1.0, 3.0, 1e-6, 1e6):
        r = min_norm_point(np.array([[c, -c], [-c, c]]))
        assert r.converged is True and r.iterations == 2
        assert list(r.p) == [0.5, 0.5] and r.norm == 0 and r.support == (0, 1)


def _stall_instance(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 9))
    d = int(rng.integers(2, 5))
    Z = rng.standard_normal((n, d)) + rng.choice([0, 1, 5]) * rng.standard_normal(d)
    for _ in range(int(rng.integers(0, 4))):  # near duplicates: an ill-conditioned KKT system
        i, j = rng.choice(n, 2, replace=False)
        Z[i] = Z[j] + 10.0 ** -rng.integers(3, 9) * rng.standard_normal(d)
    return gram(Z)


@pytest.mark.parametrize("seed", [305, 449, 553, 869])
def test_wolfe_stops_at_a_round_off_stall_instead_of_spending_its_budget(seed):
    """Near-duplicate points: the point j added by a major cycle gets weight <= 0 in the computed
    affine minimizer of S + {j} (round-off), so it would be dropped at once and re-added forever.
    Wolfe must stop there (converged False, a few cycles), not cycle until max_iter."""
    K = _stall_instance(seed)
    r = min_norm_point(K, max_iter=300)
    assert r.converged is False
    assert r.iterations <= 20
    assert abs(float(np.sum(r.p)) - 1) <= 1e-12 and np.all(r.p >= 0)
    m = margin(K, max_iter=300)
    assert m.lower <= m.upper


# -- _hyperplanes -------------------------------------------------------------------------------


@pytest.mark.parametrize("k, phase", [(5, 0.3), (12, 0.0), (12, 1.1), (7, 2.0)])
def test_hyperplanes_finds_every_edge_of_a_polygon_whatever_the_svd_sign(k, phase):
    """Regular k-gon of radius 1 about the origin: the k edges are exactly the supporting lines
    among all pairs; each comes back with unit normal, oriented so that <a, z_i> >= b, and
    b = -cos(pi / k) (the origin is at distance cos(pi/k) from every edge)."""
    t = phase + 2 * np.pi * np.arange(k) / k
    Zs = np.c_[np.cos(t), np.sin(t)]
    pairs = np.array([(i, j) for i in range(k) for j in range(i + 1, k)], dtype=np.int64)
    rows, a, b = M._hyperplanes(Zs, pairs, 1e-10)
    edges = {(i, (i + 1) % k) if i < (i + 1) % k else ((i + 1) % k, i) for i in range(k)}
    assert {tuple(pairs[r]) for r in rows} == edges
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(b, -math.cos(math.pi / k), rtol=1e-12)
    assert np.all(Zs @ a.T - b >= -1e-12)
