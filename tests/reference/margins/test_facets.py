"""Tests of reference/margins/facets.py: span coordinates of the points, the supporting hyperplanes
through r-subsets, and the complete facet enumeration."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from reference.margins import facets
from tests.support.margin import _centred, _is_supporting_facet, _record_hyperplanes, gram_of


def _svd_with(monkeypatch, edit):
    """np.linalg.svd as numpy computes it, then ``edit(sv, vh)`` in place (a pinned value)."""
    real = np.linalg.svd

    def svd(A, *args, **kwargs):
        out = real(A, *args, **kwargs)
        edit(out[1], out[2])
        return out

    monkeypatch.setattr(np.linalg, "svd", svd)


EPS = 2.0**-52  # np.finfo(np.float64).eps = 2u


def _rank(K):
    Z, V_r, s_r = facets._span_coordinates(np.asarray(K, dtype=np.float64))
    assert Z.shape == (K.shape[0], len(s_r)) == V_r.shape
    return Z.shape[1]


def _offset_hitting(a, b, target):
    """x with fl(fl(x a_0) - b) == target exactly (the side value of the point (x, 0)), searched
    over a few hundred ulps around (target + b) / a_0; None if rounding never lands on it."""
    x0 = (target + b) / a[0]
    for direction in (np.inf, -np.inf):
        x = x0
        for _ in range(300):
            if (np.array([[x, 0.0]]) @ a[:, None] - b)[0, 0] == target:
                return x
            x = np.nextafter(x, direction)
    return None


def test_enumerate_facets_over_several_chunks():
    """40 centred gaussian points in R^3: C(40, 3) = 9,880 > 8,192 subsets, two chunks.  The
    result equals the single-chunk and the many-chunk enumeration and brute force."""
    Zs = _centred(40, 3, seed=3)
    assert len(list(itertools.combinations(range(40), 3))) > 8192
    two = facets._enumerate_facets(Zs, 3, 1e-10)
    one = facets._enumerate_facets(Zs, 3, 1e-10, chunk=10**5)
    many = facets._enumerate_facets(Zs, 3, 1e-10, chunk=977)
    assert two[0] == one[0] == many[0]
    assert list(two[2]) == list(one[2]) == list(many[2])
    assert _is_supporting_facet(Zs, two[0], two[1], two[2])
    all_subsets = np.array(list(itertools.combinations(range(40), 3)))
    rows, _, b = facets._hyperplanes(Zs, all_subsets, 1e-10)
    assert two[0] == float(np.max(b))


@pytest.mark.parametrize("above", [False, True])
def test_hyperplanes_sigma_cut_is_strict(monkeypatch, above):
    """sigma_min of [Z_T, -1] pinned to exactly 1e-9 sigma_max: not 'above', so no hyperplane; one
    ulp higher, the line through the two points (y = 0.8, oriented towards the third point).
    Mutant: ``>=`` (takes the pair at the cut)."""

    def pin(sv, vh):
        cut = 1e-9 * sv[:, 0]
        sv[:, -1] = np.nextafter(cut, np.inf) if above else cut

    Zs = np.array([[0.6, 0.8], [-0.6, 0.8], [0.0, -1.0]])
    _svd_with(monkeypatch, pin)
    rows, a, b = facets._hyperplanes(Zs, np.array([[0, 1]]), 1e-10)
    if not above:
        assert rows.size == 0
    else:
        assert rows.tolist() == [0]
        assert np.allclose(a[0], [0.0, -1.0], atol=1e-15) and abs(b[0] + 0.8) < 1e-15


@pytest.mark.parametrize("above", [False, True])
def test_hyperplanes_normal_cut_is_strict(monkeypatch, above):
    """r = 1, the 'hyperplane' through z = 1e12 is the point itself: its unit null vector is
    (1, 1e12) / sqrt(1 + 1e24) ~ (1e-12, 1).  With the normal part pinned to exactly 1e-12 it is
    refused (the cut is 'above 1e-12'); one ulp higher it gives a = -1, b = -1e12 (oriented
    towards the other point, 0; tol_side 1e-3 covers the ulps of 1e12).  Mutant: ``na >= 1e-12``."""

    def pin(sv, vh):
        x = np.nextafter(1e-12, np.inf) if above else 1e-12
        vh[:, 1, :] = [x, 1.0]

    assert np.linalg.norm(np.array([[1e-12]]), axis=1)[0] == 1e-12  # the cut is hit exactly
    Zs = np.array([[1e12], [0.0]])
    _svd_with(monkeypatch, pin)
    rows, a, b = facets._hyperplanes(Zs, np.array([[0]]), 1e-3)  # 1e-3: a few ulps of 1e12
    if not above:
        assert rows.size == 0
    else:
        assert rows.tolist() == [0] and a[0].tolist() == [-1.0]
        assert b[0] == -1.0 / np.nextafter(1e-12, np.inf)


def test_span_cut_is_n_1000_eps_times_the_largest_eigenvalue_and_zero_for_a_nonpositive_one():
    assert facets.span_cut(10, 4.0) == 10 * 1e3 * EPS * 4.0
    assert facets.span_cut(3, 2.0**10) == 3 * 1e3 * EPS * 2.0**10
    assert facets.span_cut(7, 0.0) == 0.0 and facets.span_cut(7, -1e-17) == 0.0


@pytest.mark.parametrize("n, s_max, name", [(0, 1.0, "n"), (2.5, 1.0, "n"), (True, 1.0, "n"), ("3", 1.0, "n"),
                                           (3, float("nan"), "s_max"), (3, float("inf"), "s_max"), (3, "1", "s_max")])
def test_span_cut_refuses_what_is_not_a_count_and_a_finite_eigenvalue(n, s_max, name):
    with pytest.raises(ValueError, match=f"^{name} must"):
        facets.span_cut(n, s_max)


def test_span_coordinates_keep_exactly_the_eigenvalues_strictly_above_the_cut():
    """diag(1, c, 2c) with c the cut of n = 3, lambda_max = 1 (an exact float): c itself is
    dropped (the cut is strict), 2c kept."""
    c = facets.span_cut(3, 1.0)
    Z, V_r, s_r = facets._span_coordinates(np.diag([1.0, c, 2 * c]))
    assert sorted(s_r.tolist()) == [2 * c, 1.0] and Z.shape == (3, 2)


@pytest.mark.parametrize("n, d, seed", [(6, 2, 0), (9, 3, 1), (12, 2, 2), (5, 4, 3)])
def test_span_coordinates_have_the_rank_of_the_data(n, d, seed):
    """A float Gram of n points of R^d (d < n) has round-off eigenvalues ~1e-16 besides the d real
    ones: the numerical rank cut (relative to the LARGEST eigenvalue) keeps exactly d, and
    Z Z^T = K, K alpha(f) = Z f, ||alpha(f)||_K = ||f||."""
    Z0 = np.random.default_rng(seed).standard_normal((n, d))
    K = gram_of(Z0)
    Z, V_r, s_r = facets._span_coordinates(K)
    assert Z.shape == (n, d) and V_r.shape == (n, d) and s_r.shape == (d,)
    np.testing.assert_allclose(Z @ Z.T, K, atol=1e-12 * np.max(np.abs(K)))
    f = np.arange(1.0, d + 1)
    alpha = (V_r / np.sqrt(s_r)) @ f
    np.testing.assert_allclose(K @ alpha, Z @ f, atol=1e-10 * np.linalg.norm(f) * np.max(np.abs(K)))
    assert alpha @ K @ alpha == pytest.approx(f @ f, rel=1e-10)


@pytest.mark.parametrize("k, phase", [(5, 0.3), (12, 0.0), (12, 1.1), (7, 2.0)])
def test_hyperplanes_finds_every_edge_of_a_polygon_whatever_the_svd_sign(k, phase):
    """Regular k-gon of radius 1 about the origin: the k edges are exactly the supporting lines
    among all pairs; each comes back with unit normal, oriented so that <a, z_i> >= b, and
    b = -cos(pi / k) (the origin is at distance cos(pi/k) from every edge)."""
    t = phase + 2 * np.pi * np.arange(k) / k
    Zs = np.c_[np.cos(t), np.sin(t)]
    pairs = np.array([(i, j) for i in range(k) for j in range(i + 1, k)], dtype=np.int64)
    rows, a, b = facets._hyperplanes(Zs, pairs, 1e-10)
    edges = {(i, (i + 1) % k) if i < (i + 1) % k else ((i + 1) % k, i) for i in range(k)}
    assert {tuple(pairs[r]) for r in rows} == edges
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(b, -math.cos(math.pi / k), rtol=1e-12)
    assert np.all(Zs @ a.T - b >= -1e-12)


def test_span_rank_cut_sits_exactly_at_n_1000_eps_max_eig():
    """K = diag(s_max, t) (eigh returns a diagonal's entries exactly): t is kept iff
    t > 2 * 1000 * eps * s_max -- the cut documented in margin(of='span').  At the cut t is
    dropped, one ulp above it t is kept; the cut scales with s_max (also s_max < 1).
    Mutants: the cut / n (keeps t at the cut), 1001 instead of 1000 (drops t one ulp above),
    max(s_max, 1) (drops t on a matrix scaled by 2^-30)."""
    for s_max in (1.0, 2.0**-30, 2.0**20):
        cut = 2 * 1000 * EPS * s_max  # exact: powers of two times 2000
        at, above = cut, np.nextafter(cut, np.inf)
        assert _rank(np.diag([s_max, at])) == 1
        assert _rank(np.diag([s_max, above])) == 2
        assert _rank(np.diag([at, s_max])) == 1  # order does not matter
    # n = 3 moves the cut to 3 * 1000 * eps * s_max
    cut3 = 3 * 1000 * EPS
    assert _rank(np.diag([1.0, cut3, np.nextafter(cut3, np.inf)])) == 2
    assert _rank(np.diag([1.0, 2 * 1000 * EPS * 1.25, 1.0])) == 2  # above n=2's cut but below n=3's: dropped


def test_span_rank_of_a_zero_direction_and_of_full_rank():
    assert _rank(np.diag([4.0, 0.0, 1.0])) == 2
    assert _rank(np.eye(3)) == 3


def test_hyperplanes_refuses_a_nearly_dependent_subset_and_takes_a_well_separated_one():
    """Two points 1e-9 apart (r = 2): [Z_T, -1] has sigma_min / sigma_max ~ 3.2e-10 < 1e-9, so the
    pair is not affinely independent for the enumeration and gives no hyperplane; 1e-8 apart
    (ratio ~ 3.2e-9) it gives the line y = 0.8 through them.  Mutants: 1e-9 / sigma_max (accepts the
    first), dropping the singular-value test (``ok = na > 1e-12``, ``ok |= ...``)."""
    z1 = np.array([0.6, 0.8])
    for d, expected in ((1e-9, 0), (1e-8, 1)):
        Zs = np.array([z1, z1 + [d, 0.0]])
        rows, a, b = facets._hyperplanes(Zs, np.array([[0, 1]]), 1e-10)
        assert rows.size == expected, (d, rows, a, b)
    rows, a, b = facets._hyperplanes(np.array([z1, z1 + [1e-8, 0.0]]), np.array([[0, 1]]), 1e-10)
    assert abs(abs(a[0][1]) - 1) < 1e-6 and abs(abs(b[0]) - 0.8) < 1e-6  # the line y = 0.8 through both


def test_enumerate_facets_blocks_and_ties_do_not_depend_on_the_chunk(monkeypatch):
    """The square (+-1, +-1)/sqrt 2 has four equal-distance edges (computed b's tie in pairs): the
    facet returned is the first best subset in combinations order for every chunk (mutant ``>=``
    returns the last tie when blocks are small); and the subsets reach _hyperplanes in blocks of
    exactly ``chunk`` (the last one shorter) -- 8192 by default, 9880 subsets of 40 points in R^3
    in two blocks (mutants: 8193, islice(None))."""
    import itertools

    Zs = np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]]) / np.sqrt(2)
    subs = np.array(list(itertools.combinations(range(4), 2)))
    rows, a, b = facets._hyperplanes(Zs, subs, 1e-10)
    first = subs[rows[int(np.argmax(b))]]
    for chunk in (1, 2, 3, 8192):
        best = facets._enumerate_facets(Zs, 2, 1e-10, chunk=chunk)
        assert best[0] == float(np.max(b)) and list(best[2]) == list(first), (chunk, best)

    calls = _record_hyperplanes(monkeypatch)
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((40, 3))
    Z -= Z.mean(axis=0)
    facets._enumerate_facets(Z / np.max(np.linalg.norm(Z, axis=1)), 3, 1e-10)
    assert [len(subsets) for subsets, _ in calls] == [8192, 9880 - 8192]
    calls.clear()
    facets._enumerate_facets(Z / np.max(np.linalg.norm(Z, axis=1)), 3, 1e-10, chunk=4000)
    assert [len(subsets) for subsets, _ in calls] == [4000, 4000, 1880]


def test_hyperplanes_a_point_exactly_tol_side_off_the_line_still_supports_it():
    """The line x = 0 through (0, +-1) (its computed normal a ~ (+-1, 0), offset b ~ 1e-16), a third
    point whose side value is exactly +tol_side or -tol_side, and a fourth point at distance 1 on
    the other / same side.  'All points on one side within tol_side' holds in both, so the line
    is a supporting hyperplane, oriented with every <a, z_i> - b >= -tol_side.  Mutants: ``hi <
    tol_side`` in the flip (keeps the orientation with a point at -1), ``hi < tol_side`` or ``lo >
    -tol_side`` in the support test (drops the line)."""
    tol = 1e-10
    sub = np.array([[0, 1]])
    rows, a, b = facets._hyperplanes(np.array([[0.0, 1.0], [0.0, -1.0], [0.5, 0.0]]), sub, tol)
    assert rows.size == 1 and abs(abs(a[0][0]) - 1) < 1e-15 and abs(b[0]) < 1e-15
    a, b = a[0], b[0]  # the SVD's own orientation (the point at x = 0.5 is above: no flip)
    for target, far in ((tol, -1.0), (-tol, 1.0)):
        x = _offset_hitting(a, b, target)
        assert x is not None
        Zs = np.array([[0.0, 1.0], [0.0, -1.0], [x, 0.0], [far * np.sign(a[0]), 0.0]])
        rows, a2, b2 = facets._hyperplanes(Zs, sub, tol)
        assert rows.size == 1, (target, x)
        assert np.min(Zs @ a2[0] - b2[0]) >= -tol, (target, Zs @ a2[0] - b2[0])
