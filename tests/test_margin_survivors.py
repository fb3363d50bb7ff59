"""Tests written against the mutmut survivors of issue 13 item 8 in reference/margin.py and
reference/dynamic_margin.py (each was checked by hand: the mutated code fails the test).

* ``_local_search``: its pivoting walk (the facet it returns admits no improving single swap),
  its capped "too many swaps" branch (>= 1500 points in rank 8), its smoothed ascent;
* ``_enumerate_facets`` over more than one chunk (40 centred points in R^3: 9,880 subsets);
* ``_gauss_mp``'s partial pivoting (a zero / tiny leading pivot);
* precision-mode ``min_norm_point``: the warm start, the budget, the normalization of a zero-norm
  point, and ``norm``;
* ``patterns()`` validates ``Delta``.
"""

import itertools
import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import reference
from reference.arithmetic import Arithmetic
from reference.margin import min_norm_point

M = sys.modules["reference.margin"]  # the package re-exports the function `margin` under the module's name


def _centred(n, r, seed):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, r))
    Z -= Z.mean(axis=0)  # the origin is inside the hull: the facets matter (infeasible case)
    return Z / np.max(np.linalg.norm(Z, axis=1))


def _best_single_swap(Zs, T, tol_side=1e-10):
    """max b over the supporting hyperplanes through T with one point swapped (None if none)."""
    nu, r = Zs.shape[0], len(T)
    others = np.setdiff1d(np.arange(nu), T)
    cand = np.repeat(np.asarray(T)[None, :], r * len(others), axis=0)
    cand[np.arange(len(cand)), np.repeat(np.arange(r), len(others))] = np.tile(others, r)
    rows, a, b = M._hyperplanes(Zs, cand, tol_side)
    return float(np.max(b)) if rows.size else None


def _is_supporting_facet(Zs, b, a, T, tol=1e-9):
    vals = Zs @ a - b
    return np.isclose(np.linalg.norm(a), 1.0) and vals.min() >= -tol and np.allclose(vals[T], 0.0, atol=tol)


def test_local_search_returns_a_facet_no_single_swap_improves():
    """60 points in R^8: C(60, 8) ~ 2.6e9 subsets, far beyond enumeration.  The pivoting walk
    must end on a facet that no single swap improves (with the walk switched off, the sampled /
    ascended facet is improvable)."""
    Zs = _centred(60, 8, seed=1)
    b, a, T = M._local_search(Zs, 8, 1e-10, 50, np.random.default_rng(0))
    assert T is not None and _is_supporting_facet(Zs, b, a, T)
    best_swap = _best_single_swap(Zs, T)
    assert best_swap is None or best_swap <= b + 1e-12


def test_local_search_capped_branch_on_1500_points():
    """1500 points in rank 8: a swap round (8 * 1492 hyperplanes) exceeds the cap, so the walk
    tries the points nearest the facet first (the capped branch); it must run and return a
    supporting facet at least as good as the best of a plain sampled search."""
    Zs = _centred(1500, 8, seed=2)
    cap = max(2_000, int(5e7 / (8**3 + 1500 * 8)))
    assert 8 * (1500 - 8) > cap  # the capped branch is taken
    b, a, T = M._local_search(Zs, 8, 1e-10, 200, np.random.default_rng(0))
    assert T is not None and _is_supporting_facet(Zs, b, a, T)
    rng = np.random.default_rng(5)
    sampled = np.array([np.sort(rng.choice(1500, 8, replace=False)) for _ in range(2000)])
    rows, _, bs = M._hyperplanes(Zs, sampled, 1e-10)
    assert rows.size == 0 or b >= float(np.max(bs))


def test_local_search_ascent_finds_the_facet_of_a_polygon():
    """A regular 12-gon with the origin inside (rank 2): the facet found is an edge, at distance
    cos(pi/12) * R from the centre -- so b = -cos(pi/12) after the scaling to max norm 1."""
    k = 12
    t = 2 * np.pi * np.arange(k) / k
    Zs = np.c_[np.cos(t), np.sin(t)]
    b, a, T = M._local_search(Zs, 2, 1e-10, 3, np.random.default_rng(0))
    assert T is not None and abs(b + np.cos(np.pi / k)) < 1e-12


@pytest.mark.parametrize("n,r,seed", [(30, 4, 0), (30, 4, 3), (25, 5, 3), (20, 6, 0), (20, 6, 1), (20, 6, 2)])
def test_local_search_reaches_the_enumerated_optimum(n, r, seed):
    """Quality pin of the heuristic on instances small enough to enumerate: with one sampled
    subset, the smoothed ascent (tau_k = 0.1 * 0.98^k, cooling) and the walk reach the best
    facet of the complete enumeration.  (A heating schedule misses it on each of these.)"""
    Zs = _centred(n, r, seed)
    exact = M._enumerate_facets(Zs, r, 1e-10)[0]
    b, a, T = M._local_search(Zs, r, 1e-10, 1, np.random.default_rng(0))
    assert abs(b - exact) < 1e-9


def test_enumerate_facets_over_several_chunks():
    """40 centred gaussian points in R^3: C(40, 3) = 9,880 > 8,192 subsets, two chunks.  The
    result equals the single-chunk and the many-chunk enumeration and brute force."""
    Zs = _centred(40, 3, seed=3)
    assert len(list(itertools.combinations(range(40), 3))) > 8192
    two = M._enumerate_facets(Zs, 3, 1e-10)
    one = M._enumerate_facets(Zs, 3, 1e-10, chunk=10**5)
    many = M._enumerate_facets(Zs, 3, 1e-10, chunk=977)
    assert two[0] == one[0] == many[0]
    assert list(two[2]) == list(one[2]) == list(many[2])
    assert _is_supporting_facet(Zs, two[0], two[1], two[2])
    all_subsets = np.array(list(itertools.combinations(range(40), 3)))
    rows, _, b = M._hyperplanes(Zs, all_subsets, 1e-10)
    assert two[0] == float(np.max(b))


def test_gauss_mp_pivots_on_a_zero_leading_entry():
    with mpmath.workdps(50):
        A = np.array([[mpmath.mpf(0), mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(0)]], dtype=object)
        b = np.array([mpmath.mpf(1), mpmath.mpf(2)], dtype=object)
        x = M._gauss_mp(A, b)
        assert x[0] == 2 and x[1] == 1


def test_gauss_mp_pivoting_keeps_the_working_precision():
    """A tiny leading pivot (1e-40): without pivoting the elimination loses ~40 of 50 digits."""
    with mpmath.workdps(50):
        e = mpmath.mpf("1e-40")
        A = np.array([[e, mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(1)]], dtype=object)
        b = np.array([mpmath.mpf(1), mpmath.mpf(2)], dtype=object)
        x = M._gauss_mp(A, b)
        # exact: x0 = 1/(1-e), x1 = (1-2e)/(1-e)
        assert abs(x[0] - 1 / (1 - e)) < mpmath.mpf("1e-45")
        assert abs(x[1] - (1 - 2 * e) / (1 - e)) < mpmath.mpf("1e-45")


def _triangle_gram():
    Z = np.array([[1.0, 0.0], [0.0, 1.0], [-0.25, -0.5]])
    return Z @ Z.T  # z1 + 2 z2 + 4 z3 = 0: min-norm point (1/7, 2/7, 4/7), norm 0


def test_precision_min_norm_point_normalizes_a_zero_norm_point():
    with mpmath.workdps(50):
        res = min_norm_point(_triangle_gram(), precision=50)
        assert abs(sum(res.p) - 1) < mpmath.mpf("1e-45")
        assert all(abs(v - mpmath.mpf(c) / 7) < mpmath.mpf("1e-12") for v, c in zip(res.p, (1, 2, 4)))
        assert res.norm < mpmath.mpf("1e-7")  # 0 up to the float64 point's distance from (1, 2, 4)/7
        # z and -z: the float64 point (1/2, 1/2) is exact, p^T K p is exactly 0 at any precision
        res = min_norm_point(np.array([[1.0, -1.0], [-1.0, 1.0]]), precision=50)
        assert res.norm == 0 and list(res.p) == [0.5, 0.5]


def test_precision_min_norm_point_norm():
    """z1 = (sqrt 2, 0), z2 = (0, sqrt 3): p* = (3/5, 2/5), ||p*|| = sqrt(6/5) -- to 50 digits,
    which the float64 point converted and renormalized (no mpmath re-solve) does not reach."""
    K = np.array([[2.0, 0.0], [0.0, 3.0]])
    res = min_norm_point(K, precision=50)
    with mpmath.workdps(50):
        assert abs(res.norm - mpmath.sqrt(mpmath.mpf(6) / 5)) < mpmath.mpf("1e-45")
        assert abs(res.p[0] - mpmath.mpf(3) / 5) < mpmath.mpf("1e-45")
        assert abs(res.norm - mpmath.sqrt(res.p @ (K @ res.p))) < mpmath.mpf("1e-45")


def _feasible_gram(n=30, d=6, seed=4):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[:, 0] = np.abs(X[:, 0]) + 0.3  # every point on one side of e_1: separable, margin > 0
    return X @ X.T


def test_precision_min_norm_point_is_warm_started():
    """The mpmath Wolfe starts from the float64 support's KKT point: it adds at most a couple of
    cycles to the float64 count (a cold start from one vertex repeats the whole run)."""
    K = _feasible_gram()
    f = min_norm_point(K)
    m = min_norm_point(K, precision=40)
    assert f.iterations >= 5
    assert f.iterations <= m.iterations <= f.iterations + 3
    assert m.support == f.support and m.converged  # from the KKT point the optimality test passes at once


def test_precision_min_norm_point_respects_the_budget():
    K = _feasible_gram()
    for budget in (1, 2, 4):
        m = min_norm_point(K, precision=30, max_iter=budget)
        assert m.iterations <= budget + 1  # the float64 run, then at least one mpmath cycle
        assert not m.converged


def test_patterns_validates_delta():
    X, y = np.array([[1.0, 2.0], [-1.0, 0.5]]), np.array([1, -1])
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="Delta"):
            reference.dynamic_margin.patterns(X, y, Delta=bad)
    P = reference.dynamic_margin.patterns(X, y, Delta=2.0)
    assert P.shape == (2, 5) and np.array_equal(P[:, 3:], np.diag(y * 2.0))


def test_unit_roundoff():
    assert M._unit_roundoff(Arithmetic(None)) == 2.0**-53
    ar = Arithmetic(30)
    with ar.context():
        assert 10.0**-31 < float(M._unit_roundoff(ar)) <= 10.0**-29


# -- the 1 -+ 8u factors of _lower / _upper, pinned at their edge ------------------------------
# The a-priori bounds e, eQ (2 gamma_{n+2} ...) are worst-case and IEEE arithmetic never reaches
# them, so on ordinary inputs the final factor is invisible.  Switching the a-priori bounds off
# (gamma -> 0) on inputs whose products are exact in float64 (small integers) leaves the factor as
# the only allowance for the sqrt, the division and the product: the bound must still sit on the
# right side of the exact value (checked in rationals), and not more than a few u away from it.
# A flipped factor (1 + 8u in _lower, 1 - 8u in _upper) or a dropped one fails on some instance.


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
    monkeypatch.setattr(M, "_gamma", lambda k, ar: ar.scalar(0))


def _ratio_sq(value, N, Q):
    """value^2 Q / N^2 in exact rationals (value = N / sqrt(Q) exactly iff this is 1)."""
    return Fraction(value) ** 2 * Fraction(Q) / Fraction(N) ** 2


@pytest.mark.parametrize("sign", [1, -1])
def test_lower_factor_alone_keeps_the_bound_below(monkeypatch, sign):
    _no_a_priori_bounds(monkeypatch)
    ar = Arithmetic(None)
    u = 2.0**-53
    for K, alpha in _integer_instances(300, seed=11 + sign, sign=sign):
        N, Q = float(np.min(K @ alpha)), float(alpha @ K @ alpha)
        lo = M._lower(K, alpha, ar)
        r = _ratio_sq(lo, N, Q)  # lo / exact, squared (the sign cancels)
        # lower bound: lo <= N / sqrt(Q); for N > 0 that is r <= 1, for N < 0 it is r >= 1
        if sign > 0:
            assert (1 - 24 * u) ** 2 <= r <= 1, f"_lower(K={K.tolist()}, alpha={alpha.tolist()}) = {lo!r}: ratio^2 {float(r)}"
        else:
            assert 1 <= r <= (1 + 24 * u) ** 2, f"_lower(K={K.tolist()}, alpha={alpha.tolist()}) = {lo!r}: ratio^2 {float(r)}"


def test_upper_factor_alone_keeps_the_bound_above(monkeypatch):
    _no_a_priori_bounds(monkeypatch)
    ar = Arithmetic(None)
    u = 2.0**-53
    rng = np.random.default_rng(5)
    checked = 0
    for K, _ in _integer_instances(300, seed=7, sign=1):
        p = rng.integers(1, 7, size=K.shape[0]).astype(np.float64)
        Q, s = float(p @ K @ p), float(p.sum())
        if float(np.sqrt(Q)) ** 2 == Q:
            continue
        hi = M._upper(K, p, ar)
        r = Fraction(hi) ** 2 * Fraction(s) ** 2 / Fraction(Q)  # (hi / (sqrt(Q) / s))^2
        assert 1 <= r <= (1 + 24 * u) ** 2, f"_upper(K={K.tolist()}, p={p.tolist()}) = {hi!r}: ratio^2 {float(r)}"
        checked += 1
    assert checked > 100
