"""Tests of reference/margin/test_facets.py."""

from __future__ import annotations

import itertools
import math
import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import reference
from reference.exact import rational
from tests.support.margin import M, M2, U, gram_of, margin_module


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


def _barycentric(Z):
    """Exact barycentric weights of the origin in the simplex of the rows of Z (None if singular)."""
    r = Z.shape[1]
    rows = [[rational(Z[s, i]) for s in range(r + 1)] + [Fraction(0)] for i in range(r)]
    rows.append([Fraction(1)] * (r + 1) + [Fraction(1)])
    m = r + 1
    for k in range(m):
        piv = next((i for i in range(k, m) if rows[i][k] != 0), None)
        if piv is None:
            return None
        rows[k], rows[piv] = rows[piv], rows[k]
        for i in range(k + 1, m):
            f = rows[i][k] / rows[k][k]
            rows[i] = [a - f * c for a, c in zip(rows[i], rows[k])]
    w = [Fraction(0)] * m
    for k in range(m - 1, -1, -1):
        w[k] = (rows[k][m] - sum(rows[k][j] * w[j] for j in range(k + 1, m))) / rows[k][k]
    return w


def _thin_triangles(seed, count, log_h=(-17.0, -12.0), scale=1.0):
    """Triangles a, b, c with b = -a nudged by a few ulps (so 0 lies within ulps of the edge ab, on
    either side) and c at height h above ab: 0 is just inside or just outside, and the simplex is
    ill-conditioned (sigma_min ~ h).  Scaling by a power of 2 is exact."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        th = rng.uniform(0, 2 * np.pi)
        a = np.array([np.cos(th), np.sin(th)])
        n = np.array([-a[1], a[0]])
        c = rng.uniform(-0.9, 0.9) * a + 10.0 ** rng.uniform(*log_h) * n
        b = -a
        for i in range(2):
            for _ in range(int(rng.integers(0, 3))):
                b[i] = np.nextafter(b[i], rng.choice([-np.inf, np.inf]))
        out.append(np.array([a, b, c]) * scale)
    return out


def _assert_sound(instances):
    outside = 0
    for Z in instances:
        w = _barycentric(Z)
        outside += w is not None and min(w) < 0
        if M._origin_in_simplex(Z, (0, 1, 2)):
            assert w is not None and min(w) > 0, f"0 certified inside the simplex {Z.tolist()}, exact weights {[float(v) for v in w]}"
    return outside


M = sys.modules["reference.margin"]  # the package re-exports the function `margin` under the module's name


U = 2.0**-53


def _rule_threshold(Z, p):
    """The threshold of _origin_in_simplex's docstring, 2 ||res||_2 / s_min, computed apart from
    the code: res = |c| + gamma_{r+2} (|A||p| + e) in exact rationals (c = fl(A p) - e is the
    docstring's definition, a float computation), sigma_min and sigma_max at 50 digits."""
    r = Z.shape[1]
    A = np.vstack([Z.T, np.ones(r + 1)])
    e = np.zeros(r + 1)
    e[-1] = 1.0
    c = A @ p - e
    u = Fraction(U)
    g = (r + 2) * u / (1 - (r + 2) * u)
    res = [
        abs(Fraction(c[i])) + g * (sum(abs(Fraction(A[i, j])) * abs(Fraction(p[j])) for j in range(r + 1)) + Fraction(e[i]))
        for i in range(r + 1)
    ]
    with mpmath.workdps(50):
        sv = mpmath.svd_r(mpmath.matrix(A.tolist()), compute_uv=False)
        sv = sorted(sv[i] for i in range(r + 1))
        s_min = sv[0] - (r + 1) * 64 * mpmath.mpf(U) * sv[-1]
        norm = mpmath.sqrt(mpmath.fsum(mpmath.mpf(x.numerator) ** 2 / mpmath.mpf(x.denominator) ** 2 for x in res))
        return float(2 * norm / s_min)


def _near_vertex(m, j=0):
    """Span points z_0 = -m u, z_1 = 1 - m u (r = 1): the origin's exact barycentric weights are
    (1 - m u, m u) -- both floats, and np.linalg.solve finds them exactly.  With j > 0 the weights
    handed to the check are (1 - (m - j) u, m u): one correction off, so fl(p_0 + p_1) - 1 = j u
    (for even j) and the residual c is not zero."""
    b = m * U
    a = 1.0 - b
    Z = np.array([[-b], [a]])
    return Z, np.array([a + j * U, b])


def _svd_with(monkeypatch, edit):
    """np.linalg.svd as numpy computes it, then ``edit(sv, vh)`` in place (a pinned value)."""
    real = np.linalg.svd

    def svd(A, *args, **kwargs):
        out = real(A, *args, **kwargs)
        edit(out[1], out[2])
        return out

    monkeypatch.setattr(np.linalg, "svd", svd)


def _centred_2(n, r, seed):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, r))
    Z -= Z.mean(axis=0)  # the origin is inside the hull (infeasible case)
    return Z / np.max(np.linalg.norm(Z, axis=1))


def _spy_hyperplanes(monkeypatch):
    """Record every block of subsets _local_search hands to _hyperplanes, with the running best
    supporting hyperplane (max b, first found on ties) *before* that block."""
    real = M._hyperplanes
    calls = []
    best = [None]

    def spy(Zs, subsets, tol_side):
        calls.append((np.array(subsets), best[0]))
        rows, a, b = real(Zs, subsets, tol_side)
        if rows.size:
            k = int(np.argmax(b))
            if best[0] is None or b[k] > best[0][0]:
                best[0] = (float(b[k]), a[k], np.array(subsets[rows[k]]))
        return rows, a, b

    monkeypatch.setattr(M, "_hyperplanes", spy)
    return calls


EPS = 2.0**-52  # np.finfo(np.float64).eps = 2u


def _rank(K):
    Z, V_r, s_r = M._span_coordinates(np.asarray(K, dtype=np.float64))
    assert Z.shape == (K.shape[0], len(s_r)) == V_r.shape
    return Z.shape[1]


def _record_hyperplanes(monkeypatch):
    """Record every block of subsets _local_search hands to _hyperplanes, with the real results."""
    calls = []
    real = M._hyperplanes

    def spy(Zs, subsets, tol_side):
        out = real(Zs, subsets, tol_side)
        calls.append((np.array(subsets), out))
        return out

    monkeypatch.setattr(M, "_hyperplanes", spy)
    return calls


def _centred_3(n, r, seed):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, r))
    Z -= Z.mean(axis=0)  # the origin is inside the hull
    return Z / np.max(np.linalg.norm(Z, axis=1))


def _blocks(sizes, chunk):
    """The blocks consider() makes of calls of the given sizes: chunk after chunk, the rest last."""
    out = []
    for s in sizes:
        out += [chunk] * (s // chunk) + ([s % chunk] if s % chunk else [])
    return out


def _first_best(calls):
    """(b, a, subset) of the first maximal supporting hyperplane over the recorded blocks."""
    best = None
    for subsets, (rows, a, b) in calls:
        if rows.size:
            k = int(np.argmax(b))
            if best is None or b[k] > best[0]:
                best = (float(b[k]), a[k], subsets[rows[k]])
    return best


def _swaps(T, points):
    """Every subset T with one position replaced by one of ``points``, as a set of tuples."""
    return {tuple(int(x) for x in T[:i]) + (int(q),) + tuple(int(x) for x in T[i + 1 :]) for i in range(len(T)) for q in points}


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


LOCAL_SEARCH_CASES = [(30, 4, 0), (30, 4, 3), (25, 5, 3), (20, 6, 0), (20, 6, 1), (20, 6, 2)]


def test_local_search_reaches_the_enumerated_optimum():
    """Quality pin of the heuristic on instances small enough to enumerate: with one sampled
    subset, the smoothed ascent (tau_k = 0.1 * 0.98^k, cooling) and the walk never go past the
    best facet of the complete enumeration, and reach it on at least 5 of these 6 instances (all
    6 on one machine; (20, 6, 0) ends on another, still supporting, facet with OpenBLAS's
    Sandybridge kernel or numpy 1.x's AVX-512 exp, whose last bits the 300-step ascent amplifies;
    a heating schedule misses the optimum on each of them)."""
    reached = []
    for n, r, seed in LOCAL_SEARCH_CASES:
        Zs = _centred(n, r, seed)
        exact = M._enumerate_facets(Zs, r, 1e-10)[0]
        b, a, T = M._local_search(Zs, r, 1e-10, 1, np.random.default_rng(0))
        assert b <= exact + 1e-9, (n, r, seed, b, exact)
        reached.append(abs(b - exact) < 1e-9)
    assert sum(reached) >= 5, list(zip(LOCAL_SEARCH_CASES, reached))


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


def test_origin_in_simplex_never_certifies_an_outside_origin():
    """Ill-conditioned triangles with the origin within round-off of an edge: whenever the
    certificate says 'inside', the exact barycentric weights are all positive.  Mutants that skip
    the sigma_min test (``or``), answer True when it fails, use sigma_{r-1} instead of sigma_min,
    raise instead of lower sigma_min, or make u negative certify origins that are outside."""
    outside = _assert_sound(_thin_triangles(0, 250))
    assert outside > 50  # the family does probe the outside


def test_origin_in_simplex_is_sound_for_any_svd_within_its_allowance(monkeypatch):
    """The docstring's premise: sigma_min is lowered by (r+1) 64 u sigma_max *to cover the SVD's own
    round-off*.  So the certificate must stay sound for every SVD whose sigma_min errs upward by
    less than that -- here an adversarial one returning sigma_min (computed at 60 digits) plus
    15/16 of the allowance.  Mutants that shrink the allowance (/ sigma_max, / 64, (r-1), sigma_1
    instead of sigma_max) then certify origins that are outside.  (IEEE's real SVD errs far less,
    which is why no ordinary input can tell them apart.)"""

    def adversarial_svd(A, compute_uv=True, **kwargs):
        assert not compute_uv
        with mpmath.workdps(60):
            s = sorted((float(v) for v in mpmath.svd_r(mpmath.matrix(A.tolist()), compute_uv=False)), reverse=True)
        s[-1] += A.shape[0] * 64 * U * s[0] * (1 - 1 / 16)
        return np.array(s)

    monkeypatch.setattr(np.linalg, "svd", adversarial_svd)
    outside = _assert_sound(_thin_triangles(4, 120, log_h=(-17.0, -15.0), scale=0.125))
    assert outside > 30


def test_origin_in_simplex_certifies_an_origin_inside_beyond_round_off():
    """Weights ~5e-7 on a well-conditioned triangle (cond ~ 3): ~1e8 times the round-off bound of
    the weights, so 'inside' must be certified (a mutant with u = -106 rejected it)."""
    Z = np.array([[-1e-6, 0.0], [1.0, 1.0], [1.0, -1.0]])
    w = _barycentric(Z)
    assert min(w) > Fraction(4, 10**7)
    assert M._origin_in_simplex(Z, (0, 1, 2))


@pytest.mark.parametrize("j", [0, 2, 4])
def test_origin_in_simplex_certifies_exactly_beyond_its_documented_threshold(monkeypatch, j):
    """The origin sits m u from the vertex z_0 (weight m u on z_1, exactly): inside, but by only
    ~20 round-off units.  The docstring's rule certifies it exactly when m u > 2 ||res|| / s_min;
    here that threshold is ~19 u (j = 0: c = 0, the gamma term alone) or ~26 u, ~32 u (j = 2, 4:
    the residual c = (~0, j u) adds to it).  Weights 10 % below the threshold are not certified,
    10 % above they are.  Mutants: gamma / 2 (``2 - (r+2) u``), ``|c| - gamma ...``,
    ``gamma / (|A||p| + e)``, ``|A||p| - e``, ``3 ||res||``: each moves the threshold by a factor
    >= 1.3 and flips one side."""
    real_solve = np.linalg.solve
    if j:  # hand the check the weights one correction off (the rule holds for whatever p it checks)
        monkeypatch.setattr(np.linalg, "solve", lambda A, e: p.copy())
    T = _rule_threshold(*_near_vertex(20, j))
    assert 15 * U < T < 40 * U  # the family does sit at the round-off scale
    below, above = math.floor(0.9 * T / U), math.ceil(1.1 * T / U)
    for m, expected in ((below, False), (above, True)):
        Z, p = _near_vertex(m, j)
        if not j:
            A = np.vstack([Z.T, np.ones(2)])
            assert np.array_equal(real_solve(A, np.array([0.0, 1.0])), p)  # the exact weights
        T_m = _rule_threshold(Z, p)
        assert (p.min() < 0.95 * T_m) if expected is False else (p.min() > 1.05 * T_m)
        assert M._origin_in_simplex(Z, (0, 1)) is expected, (m, j, T_m / U)


def test_origin_in_simplex_wants_r_plus_1_points():
    Z, _ = _near_vertex(1000)
    assert M._origin_in_simplex(Z, (0, 1))
    assert not M._origin_in_simplex(Z, (0,))


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
    rows, a, b = M._hyperplanes(Zs, np.array([[0, 1]]), 1e-10)
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
    rows, a, b = M._hyperplanes(Zs, np.array([[0]]), 1e-3)  # 1e-3: a few ulps of 1e12
    if not above:
        assert rows.size == 0
    else:
        assert rows.tolist() == [0] and a[0].tolist() == [-1.0]
        assert b[0] == -1.0 / np.nextafter(1e-12, np.inf)


@pytest.mark.parametrize("a, expected", [(1.102396379610098, True), (1.1023963796101568, False)])
def test_origin_in_simplex_threshold_to_within_a_hundred_ulps(a, expected):
    """Span points -20u and a (r = 1), the weights as np.linalg.solve finds them: a was chosen
    (bisection on the independent threshold of the docstring's rule) so that the smallest weight
    is 1 + ~80 u resp. 1 - ~80 u times that threshold.  The rule decides both: the certificate is
    as strong as documented, to ~1e-14.  Mutant: sigma_min lowered by (r+2) 64 u sigma_max instead
    of (r+1) (the threshold ~170 u higher: the first is no longer certified)."""
    Z = np.array([[-20 * U], [a]])
    p = np.linalg.solve(np.vstack([Z.T, np.ones(2)]), np.array([0.0, 1.0]))
    ratio = p.min() / _rule_threshold(Z, p)
    assert (ratio > 1 + 40 * U) if expected else (ratio < 1 - 40 * U)
    assert M._origin_in_simplex(Z, (0, 1)) is expected


@pytest.mark.parametrize("m, sigma_max", [(20, 0.0), (1000, 0.0), (20, 1.0)])
def test_origin_in_simplex_rule_to_the_bit(monkeypatch, m, sigma_max):
    """The documented rule evaluated as stated, in float64: with res = |c| + gamma_{r+2} (|A||p| + e)
    and the singular values pinned to (sigma_max, s) -- so s_min = s - (r+1) 64 u sigma_max, exact
    here -- the threshold 2 ||res|| / s_min is made exactly equal to min(p) (a search over s): the
    rule's '>' refuses, and one ulp of s higher (threshold just below min(p)) it certifies.
    Mutants: ``>=``; gamma's denominator (1 + ku), (2 - ku), (1 - (r-2) u), (1 - (r+3) u) or gamma
    multiplied by (1 - ku); 65 u instead of 64 u (each moves the threshold by a few ulps)."""
    Z, p = _near_vertex(m)
    r = 1
    A = np.vstack([Z.T, np.ones(r + 1)])
    e = np.array([0.0, 1.0])
    g = (r + 2) * U / (1 - (r + 2) * U)
    N = float(np.linalg.norm(np.abs(A @ p - e) + g * (np.abs(A) @ np.abs(p) + e)))
    low = (r + 1) * 64 * U * sigma_max  # 2^-46 or 0: exact
    s = 2 * N / p.min() + low
    for _ in range(64):  # walk s to the float where the threshold is min(p) to the bit
        t = 2 * N / (s - low)
        if t == p.min():
            break
        s = np.nextafter(s, np.inf if t > p.min() else 0.0)
    assert 2 * N / (s - low) == p.min()
    s_up = np.nextafter(s, np.inf)
    assert 2 * N / (s_up - low) < p.min()
    for sigma_min, expected in ((s, False), (s_up, True)):
        monkeypatch.setattr(np.linalg, "svd", lambda A, compute_uv=True, s=sigma_min: np.array([sigma_max, s]))
        assert M._origin_in_simplex(Z, (0, 1)) is expected, (m, sigma_min)


def test_local_search_last_capped_round_tries_the_documented_number_of_nearest_points(monkeypatch):
    """3200 centred points in R^2 (data seed 38): cap = int(5e7 / (2^3 + 3200 * 2)) = 7802
    hyperplanes.  The sample takes 1368 subsets, the ascent 32, the first walk round all
    r (n - r) = 6396 single swaps (they fit: 7802 - 1400 = 6402) and improves, so a second round
    runs with 6 hyperplanes of budget left: fewer than its 6396 swaps, so it tries the swaps with
    the (cap - used) // (2 r) = 6 // 4 = 1 point nearest the facet (_local_search's docstring):
    r * 1 = 2 subsets.  Mutant: at least 2 nearest points (4 subsets)."""
    nu, r = 3200, 2
    rng = np.random.default_rng(38)
    Z = rng.standard_normal((nu, r))
    Z -= Z.mean(axis=0)  # the origin is inside the hull: every facet supports it
    Zs = Z / np.max(np.linalg.norm(Z, axis=1))
    calls = _record_hyperplanes(monkeypatch)
    M._local_search(Zs, r, 1e-10, 1368, np.random.default_rng(0))
    sizes = [len(subsets) for subsets, _ in calls]
    cap = int(5e7 / (r**3 + nu * r))
    assert cap == 7802
    # _hyperplanes gets each round in blocks of `chunk` subsets: a block shorter than that ends a round
    chunk = int(4e6 // (r * (r + 1) + nu))
    rounds, acc = [], 0
    for size in sizes:
        acc += size
        if size < chunk:
            rounds.append(acc)
            acc = 0
    if acc:
        rounds.append(acc)
    assert rounds[0] == 1368, rounds  # the sample (the ascent and the walk rounds follow)
    if rounds[-1] == r * (nu - r):
        # the first walk round did not improve here (its path follows the rounding of the BLAS at
        # hand): no capped round to observe
        pytest.skip(f"no capped round on this machine's path (rounds {rounds})")
    used = sum(rounds[:-1])
    assert used == 1368 + 32 + r * (nu - r), rounds  # the sample, the ascent, one full round
    assert rounds[-1] == r * ((cap - used) // (2 * r)) == 2, rounds


@pytest.mark.parametrize("n, d, seed", [(6, 2, 0), (9, 3, 1), (12, 2, 2), (5, 4, 3)])
def test_span_coordinates_have_the_rank_of_the_data(n, d, seed):
    """A float Gram of n points of R^d (d < n) has round-off eigenvalues ~1e-16 besides the d real
    ones: the numerical rank cut (relative to the LARGEST eigenvalue) keeps exactly d, and
    Z Z^T = K, K alpha(f) = Z f, ||alpha(f)||_K = ||f||."""
    Z0 = np.random.default_rng(seed).standard_normal((n, d))
    K = gram_of(Z0)
    Z, V_r, s_r = M._span_coordinates(K)
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
    rows, a, b = M._hyperplanes(Zs, pairs, 1e-10)
    edges = {(i, (i + 1) % k) if i < (i + 1) % k else ((i + 1) % k, i) for i in range(k)}
    assert {tuple(pairs[r]) for r in rows} == edges
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(b, -math.cos(math.pi / k), rtol=1e-12)
    assert np.all(Zs @ a.T - b >= -1e-12)


@pytest.mark.parametrize(
    "n, r, seed, rng_seed",
    [
        (736, 8, 0, 0),  # the walk's last capped round is cut to the 3 hyperplanes left
        (378, 19, 10, 0),  # 19^3 + 378 * 19 = 14041 divides 5e7 + 1: the cap is int(3560.99...)
    ],
)
def test_local_search_never_exceeds_its_hyperplane_cap(monkeypatch, n, r, seed, rng_seed):
    """The docstring's cap: at most max(2000, 5e7 / (r^3 + n r)) hyperplanes are computed.  These
    instances take the walk to the end of its budget (a round that would overshoot is cut)."""
    calls = _spy_hyperplanes(monkeypatch)
    Zs = _centred_2(n, r, seed)
    b, a, T = M._local_search(Zs, r, 1e-10, 10**6, np.random.default_rng(rng_seed))
    cap = max(2_000, int(5e7 / (r**3 + n * r)))
    used = sum(len(s) for s, _ in calls)
    assert used <= cap
    assert T is not None and np.all(Zs @ a - b >= -1e-9) and np.allclose(Zs[T] @ a, b, atol=1e-9)


def test_local_search_walk_swaps_in_the_points_nearest_the_facet(monkeypatch):
    """The pivoting walk: each candidate is the current best facet T with ONE point replaced by a
    point outside T (r distinct points); when a full swap round exceeds the remaining budget, the
    points swapped in are the ones nearest T's hyperplane (smallest <a, z> - b)."""
    calls = _spy_hyperplanes(monkeypatch)
    Zs = _centred_2(1500, 8, seed=2)
    r, nu = 8, 1500
    M._local_search(Zs, r, 1e-10, 200, np.random.default_rng(0))
    walk = 0
    capped = 0
    for subsets, best in calls[2:]:  # after the sampled subsets and the ascent's subsets
        b, a, T = best
        Tset = set(int(t) for t in T)
        assert all(len(set(int(v) for v in s)) == r for s in subsets)  # r distinct points
        swapped = set()
        for s in subsets:
            new = set(int(v) for v in s) - Tset
            assert len(new) == 1 and len(Tset & set(int(v) for v in s)) == r - 1
            swapped |= new
        walk += 1
        if len(swapped) < nu - r:  # a capped round
            capped += 1
            others = np.setdiff1d(np.arange(nu), T)
            dist = Zs @ a - b
            out = np.setdiff1d(others, sorted(swapped))
            assert max(dist[sorted(swapped)]) <= min(dist[out]) + 1e-12
    assert walk >= 2 and capped >= 1


def test_local_search_without_any_facet_returns_its_best_ascent_direction():
    """With tol_side = -1 no hyperplane counts as supporting, so the result is the fallback: the
    best of the 32 smoothed-ascent directions, a unit a with b = min_i <a, z_i> (a lower-bound
    witness, subset None).  The origin is 0.02 from the edge y = 0.02 of this triangle: the best
    direction approaches (0, 1) (b -> -0.02); a poor start direction stays near -0.7."""
    Zs = np.array([[1.0, 0.02], [-1.0, 0.02], [0.0, -1.0]])
    Zs /= np.max(np.linalg.norm(Zs, axis=1))
    b, a, T = M._local_search(Zs, 2, -1.0, 1, np.random.default_rng(0))
    assert T is None
    assert np.linalg.norm(a) == pytest.approx(1.0, rel=1e-12) and b == pytest.approx(float(np.min(Zs @ a)), abs=1e-15)
    assert -0.1 <= b <= -0.02 / np.linalg.norm([1.0, 0.02]) + 1e-12  # never above the true optimum


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
        rows, a, b = M._hyperplanes(Zs, np.array([[0, 1]]), 1e-10)
        assert rows.size == expected, (d, rows, a, b)
    rows, a, b = M._hyperplanes(np.array([z1, z1 + [1e-8, 0.0]]), np.array([[0, 1]]), 1e-10)
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
    rows, a, b = M._hyperplanes(Zs, subs, 1e-10)
    first = subs[rows[int(np.argmax(b))]]
    for chunk in (1, 2, 3, 8192):
        best = M._enumerate_facets(Zs, 2, 1e-10, chunk=chunk)
        assert best[0] == float(np.max(b)) and list(best[2]) == list(first), (chunk, best)

    calls = _record_hyperplanes(monkeypatch)
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((40, 3))
    Z -= Z.mean(axis=0)
    M._enumerate_facets(Z / np.max(np.linalg.norm(Z, axis=1)), 3, 1e-10)
    assert [len(subsets) for subsets, _ in calls] == [8192, 9880 - 8192]
    calls.clear()
    M._enumerate_facets(Z / np.max(np.linalg.norm(Z, axis=1)), 3, 1e-10, chunk=4000)
    assert [len(subsets) for subsets, _ in calls] == [4000, 4000, 1880]


@pytest.mark.parametrize("budget", [1374, 1375])
def test_local_search_walk_spends_exactly_its_budget(monkeypatch, budget):
    """3200 centred points in R^2: cap = int(5e7 / (2^3 + 3200 * 2)) = 7802 hyperplanes, blocks of
    int(4e6 // (2 * 3 + 3200)) = 1247 subsets.  The sample takes ``budget`` subsets, the ascent 32,
    so the first swap round of the walk -- the r (n - r) = 6396 single swaps of the best facet so
    far -- fits the remaining budget exactly when budget = 1374 (all of them are tried, and the
    whole cap is spent), and exceeds it by one when budget = 1375 (then only the swaps with the
    (cap - used) // (2 r) = 1598 points nearest that facet are tried).  Mutants: r^4 in the cap, a
    budget that starts at 1, ``>=`` / ``cap + used`` in the too-many-swaps test, ``cap + used``
    in the number of nearest points, a different block size, the first subset of a block
    skipped."""
    nu, r = 3200, 2
    Zs = _centred_3(nu, r, seed=7)
    cap, chunk = int(5e7 / (r**3 + nu * r)), int(4e6 // (r * (r + 1) + nu))
    assert (cap, chunk) == (7802, 1247)
    calls = _record_hyperplanes(monkeypatch)
    b, a, T = M._local_search(Zs, r, 1e-10, budget, np.random.default_rng(0))
    sizes = [len(s) for s, _ in calls]
    assert sum(sizes) <= cap
    n_sample = len(_blocks([budget], chunk))
    sample = np.concatenate([s for s, _ in calls[:n_sample]])
    assert sample.shape == (budget, r) and all(len(set(row)) == r for row in sample.tolist())
    assert sizes[n_sample] == 32  # the r most active points of each of the 32 ascent directions
    before = _first_best(calls[: n_sample + 1])
    assert before is not None and before[2] is not None
    remaining = cap - budget - 32
    others = np.setdiff1d(np.arange(nu), before[2])
    if budget == 1374:
        assert remaining == r * (nu - r)
        assert sizes == _blocks([budget, 32, r * (nu - r)], chunk) and sum(sizes) == cap
        tried = {tuple(int(x) for x in row) for s, _ in calls[n_sample + 1 :] for row in s}
        assert tried == _swaps(before[2], others)
    else:
        assert remaining == r * (nu - r) - 1
        k = remaining // (2 * r)
        assert sizes[: n_sample + 1 + len(_blocks([r * k], chunk))] == _blocks([budget, 32, r * k], chunk)
        round1 = [s for s, _ in calls[n_sample + 1 : n_sample + 1 + len(_blocks([r * k], chunk))]]
        tried = {tuple(int(x) for x in row) for s in round1 for row in s}
        dist = Zs[others] @ before[1] - before[0]  # height above the facet (>= 0 up to tol_side)
        nearest = others[np.argsort(dist)[:k]]
        assert dist[np.argsort(dist)[k]] > dist[np.argsort(dist)[k - 1]]  # no tie at the cut
        assert tried == _swaps(before[2], nearest)
    assert b >= before[0] and T is not None


def test_local_search_sample_is_a_quarter_of_the_cap_at_most(monkeypatch):
    """40 points in R^30: cap = max(2000, int(5e7 / (30^3 + 40 * 30))) = 2000, so a budget of 1000
    sampled subsets is cut to cap // 4 = 500 (mutant: cap // 5), each of r distinct points; the
    ascent adds 32 subsets of the r most active points (sorted); nothing beyond the cap."""
    nu, r = 40, 30
    Zs = _centred_3(nu, r, seed=1)
    calls = _record_hyperplanes(monkeypatch)
    M._local_search(Zs, r, 1e-10, 1000, np.random.default_rng(0))
    sizes = [len(s) for s, _ in calls]
    assert sizes[:2] == [500, 32] and sum(sizes) <= 2000
    assert all(len(set(row)) == r for row in calls[0][0].tolist())
    asc = calls[1][0]
    assert np.array_equal(asc, np.sort(asc, axis=1)) and all(len(set(row)) == r for row in asc.tolist())


def test_local_search_ascent_ends_on_edges_of_a_polygon(monkeypatch):
    """A regular 12-gon around the origin: the smoothed ascent of g(f) = min_i <f, z_i> on the
    circle ends, from every one of its 32 random starts, at an edge normal -- its two most active
    points are adjacent vertices (an edge of the polygon)."""
    k = 12
    t = 2 * np.pi * np.arange(k) / k
    Zs = np.c_[np.cos(t), np.sin(t)]
    calls = _record_hyperplanes(monkeypatch)
    M._local_search(Zs, 2, 1e-10, 1, np.random.default_rng(0))
    asc = calls[1][0]
    assert asc.shape == (32, 2)
    assert all((j - i) % k in (1, k - 1) for i, j in asc.tolist()), asc.tolist()


def test_hyperplanes_a_point_exactly_tol_side_off_the_line_still_supports_it():
    """The line x = 0 through (0, +-1) (its computed normal a ~ (+-1, 0), offset b ~ 1e-16), a third
    point whose side value is exactly +tol_side or -tol_side, and a fourth point at distance 1 on
    the other / same side.  'All points on one side within tol_side' holds in both, so the line
    is a supporting hyperplane, oriented with every <a, z_i> - b >= -tol_side.  Mutants: ``hi <
    tol_side`` in the flip (keeps the orientation with a point at -1), ``hi < tol_side`` or ``lo >
    -tol_side`` in the support test (drops the line)."""
    tol = 1e-10
    sub = np.array([[0, 1]])
    rows, a, b = M._hyperplanes(np.array([[0.0, 1.0], [0.0, -1.0], [0.5, 0.0]]), sub, tol)
    assert rows.size == 1 and abs(abs(a[0][0]) - 1) < 1e-15 and abs(b[0]) < 1e-15
    a, b = a[0], b[0]  # the SVD's own orientation (the point at x = 0.5 is above: no flip)
    for target, far in ((tol, -1.0), (-tol, 1.0)):
        x = _offset_hitting(a, b, target)
        assert x is not None
        Zs = np.array([[0.0, 1.0], [0.0, -1.0], [x, 0.0], [far * np.sign(a[0]), 0.0]])
        rows, a2, b2 = M._hyperplanes(Zs, sub, tol)
        assert rows.size == 1, (target, x)
        assert np.min(Zs @ a2[0] - b2[0]) >= -tol, (target, Zs @ a2[0] - b2[0])


def test_local_search_capped_round_at_the_floor_of_the_cap(monkeypatch):
    """100 centred points in R^30: 5e7 / (30^3 + 100 * 30) = 1666 < 2000, so the cap is its floor,
    2000 hyperplanes (_local_search's docstring).  The sample takes 469 subsets, the ascent 32; the
    first walk round's r (n - r) = 2100 swaps exceed the 2000 - 501 = 1499 left, so it tries the
    swaps with the (cap - used) // (2 r) = 1499 // 60 = 24 points nearest the facet: 720 subsets
    (a floor of 2001 would give 1500 // 60 = 25 points)."""
    nu, r = 100, 30
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((nu, r))
    Z -= Z.mean(axis=0)  # the origin is inside the hull: every facet supports it
    Zs = Z / np.max(np.linalg.norm(Z, axis=1))
    sizes, found = [], []
    real = M2._hyperplanes

    def spy(Zs, subsets, tol_side):
        out = real(Zs, subsets, tol_side)
        sizes.append(len(subsets))
        found.append(out[0].size > 0)
        return out

    monkeypatch.setattr(M2, "_hyperplanes", spy)
    M2._local_search(Zs, r, 1e-10, 469, np.random.default_rng(0))
    assert any(found[:2])  # a supporting facet before the walk: the walk runs
    assert sizes[:3] == [469, 32, r * ((2000 - 469 - 32) // (2 * r))] == [469, 32, 720]
