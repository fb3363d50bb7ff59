"""Kills of the last mutmut survivors of reference/margin.py (issue 13: every surviving mutant
killed by a test or argued equivalent).  The remaining survivors differ from the original only on
exact ties (a gap equal to its tolerance, a KKT weight exactly 0, a stall exactly at the budget)
or on branches that ordinary inputs do not reach; the instances below are crafted to hit them bit
for bit: small integer / power-of-two points, whose Gram matrices, KKT weights and gaps are exact
in float64, and Wolfe started from a chosen point of the simplex.  Every expected value is derived
by hand from the algorithm as documented (the derivation is in each docstring), and each test
was run against the mutant it is meant to kill (it fails) and against the original (it passes).
The arguments for the mutants not killed are in benchmarks/mutation/margin_equivalent.md.
"""

import sys
from fractions import Fraction

import numpy as np
import pytest

import reference  # noqa: F401  (imports the package; the module is reached through sys.modules)
from reference.arithmetic import Arithmetic
from reference.exact import margin_witness_value, verify_margin_exact

M = sys.modules["reference.margin"]  # the package re-exports the function `margin` under the module's name
F64 = Arithmetic(None)
u = 2.0**-53


def _gram(Z):
    """Z Z^T, checked to be exact in float64 (small integers / powers of two)."""
    Z = np.asarray(Z, dtype=float)
    K = Z @ Z.T
    Zq = [[Fraction(x) for x in row] for row in Z]
    assert all(Fraction(K[i, j]) == sum(a * b for a, b in zip(Zq[i], Zq[j])) for i in range(len(Z)) for j in range(len(Z)))
    return K


# -- _wolfe: the optimality test at its tolerance, to the bit -------------------------------------


def test_wolfe_stops_when_the_gap_equals_its_round_off_tolerance():
    """Wolfe's optimality test is ``p^T K p - min_i (K p)_i <= tol`` with the round-off tolerance
    64 n u max_i K_ii (margin()'s method text and _zero_tol name it; the relative part 1e-13 p^T K p
    is below half an ulp of it here).  Two points, K = [[2^-80, c], [c, 1]], c = -(2^-46 - 2^-80)
    (PSD: c^2 < 2^-80), started at p = e_1: p^T K p = 2^-80, min (K p) = c, so the gap is exactly
    2^-46 = 64 * 2 * 2^-53 * 1 -- equal to the tolerance: the start passes at once (one major
    cycle, p unchanged, converged).  Mutants: ``<`` for ``<=``; 64 / n instead of 64 n."""
    c = -(2.0**-46 - 2.0**-80)
    K = np.array([[2.0**-80, c], [c, 1.0]])
    assert 2.0**-80 - c == 64 * 2 * u * 1.0  # the gap, exactly the tolerance
    p, support, iterations, converged = M._wolfe(K, F64, 10, start=np.array([1.0, 0.0]))
    assert converged and iterations == 1
    assert p.tolist() == [1.0, 0.0] and support == (0,)


def test_min_norm_point_at_exactly_the_zero_tolerance_is_zero():
    """``||p*||_K^2 <= 64 n u max_i K_ii`` is the float test for a zero min-norm point (Margin's
    docstring).  K = [[1, c], [c, 1]], c = -1 + 2^-45: by symmetry p* = (1/2, 1/2) and
    ||p*||_K^2 = (1 + c) / 2 = 2^-46 = 64 * 2 * 2^-53 * 1, exactly the tolerance: zero.
    Mutant: ``<`` in the test."""
    c = -1 + 2.0**-45
    K = np.array([[1.0, c], [c, 1.0]])
    mnp, is_zero = M._mnp(K, K, F64, 100)
    assert mnp.p.tolist() == [0.5, 0.5] and mnp.converged
    assert float(mnp.p @ (K @ mnp.p)) == 64 * 2 * u == M._zero_tol(K)
    assert is_zero is True


# -- _wolfe: the budget, the warm start, a KKT weight exactly 0 ------------------------------------


def test_wolfe_never_exceeds_its_budget_when_it_stalls_at_the_last_cycle():
    """max_iter is the budget of major plus minor cycles.  z_a = (-1, 1), z_b = (1, 1),
    z_j = (-5, 2), started at p = (1/4, 3/4, 0) (the point x = (1/2, 1)): K p = (1/2, 3/2, -1/2),
    so the first major cycle adds j; the affine minimizer of {a, b, j} is the origin, barycentric
    weights (7/2, -3/2, -1) -- j's own weight is negative, its ratio 0 / (0 + 1) = 0 is the
    smallest, so the first minor cycle (cycle 2) is the stall break.  With max_iter = 2 the run
    must stop there: 2 cycles, not converged.  Mutant: ``while it <= max_iter`` (a third, major,
    cycle)."""
    K = _gram([[-1, 1], [1, 1], [-5, 2]])
    w, _ = M._kkt(K, F64)
    assert np.allclose(w, [3.5, -1.5, -1.0], rtol=0, atol=1e-12)  # the signs are what matters
    for budget in (1, 2, 3):
        p, support, iterations, converged = M._wolfe(K, F64, budget, start=np.array([0.25, 0.75, 0.0]))
        assert iterations <= budget and not converged
        assert p.tolist() == [0.25, 0.75, 0.0]
    assert M._wolfe(K, F64, 2, start=np.array([0.25, 0.75, 0.0]))[2] == 2


def test_wolfe_warm_start_keeps_the_support_of_the_start():
    """A warm start p with support S continues Wolfe from S.  Triangle z_a = (-1, -1),
    z_b = (1, -1), z_c = (0, 1) around the origin, started at the affine minimizer of {a, b},
    p = (1/2, 1/2, 0) (the point (0, -1)): the major cycle adds c (K p = (1, 1, -1)), the affine
    minimizer of {a, b, c} is the origin with weights (1/4, 1/4, 1/2) > 0, and the next major
    cycle finds the gap 0: 2 cycles.  A cold start needs at least 3 (one vertex, two additions,
    the final test).  Mutant: the start's support taken as {i : p_i > 1} = {} (a cold start from
    the first point added)."""
    K = _gram([[-1, -1], [1, -1], [0, 1]])
    p, support, iterations, converged = M._wolfe(K, F64, 100, start=np.array([0.5, 0.5, 0.0]))
    assert p.tolist() == [0.25, 0.25, 0.5] and support == (0, 1, 2) and converged
    assert iterations == 2
    assert M._wolfe(K, F64, 100)[2] >= 3


def test_wolfe_takes_a_minor_cycle_for_a_kkt_weight_exactly_zero():
    """Wolfe moves to the affine minimizer of S only when all its weights are > 0 (the relative
    interior of conv S); otherwise a minor cycle steps to the boundary and drops the points whose
    weight vanishes.  z_a = (1, -1), z_b = (1, 1), z_j = (-1, -1), started at p = (1/2, 1/2, 0)
    (the point (1, 0)): K p = (1, 1, -1) adds j; the affine minimizer of {a, b, j} is the origin
    = (z_b + z_j) / 2, weights (0, 1/2, 1/2) exactly.  Cycle 2 is the minor cycle: the ratio of a
    is p_a / (p_a - 0) = 1, theta = 1, a is dropped; {b, j} has weights (1/2, 1/2) > 0; cycle 3
    (major) finds the gap 0.  Result p = (0, 1/2, 1/2), ||p||_K = 0, 3 cycles.  Mutants: ``w < 0``
    in the ratio test (no ratio at all: min() of nothing), ``x >= 0`` for accepting the affine
    minimizer (no minor cycle: 2 cycles)."""
    K = _gram([[1, -1], [1, 1], [-1, -1]])
    w, _ = M._kkt(K, F64)
    assert w.tolist() == [0.0, 0.5, 0.5]
    p, support, iterations, converged = M._wolfe(K, F64, 100, start=np.array([0.5, 0.5, 0.0]))
    assert p.tolist() == [0.0, 0.5, 0.5] and support == (1, 2) and converged
    assert float(p @ K @ p) == 0.0
    assert iterations == 3


# -- margin(): when the facet search finds nothing --------------------------------------------------


def _no_facets(monkeypatch):
    """The complete enumeration finding no supporting hyperplane (margin() keeps a branch for it:
    ``best is None``): lower, alpha and value then come from the min-norm point alone."""
    monkeypatch.setattr(M, "_enumerate_facets", lambda Zs, r, tol_side, chunk=8192: None)


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


def test_margin_without_facets_has_no_witness_for_minus_infinity(monkeypatch):
    """z = 1, -1: the min-norm point p* = (1/2, 1/2) has ||p*||_K = 0 exactly (0 is in the hull),
    so it certifies no lower bound (-inf) and is no witness; upper = 0 (p*^T K p* = 0 exactly).
    With no facet found, value = lower.  Mutants: alpha = p* although lower = -inf (two of them);
    value left None (min/max of None raises)."""
    _no_facets(monkeypatch)
    K = _gram([[1], [-1]])
    m = M.margin(K)
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
    m = M.margin(K, max_iter=1)
    assert m.p.tolist() == [0.5, 0.5, 0.0]
    assert -3.0 - 1e-12 < m.lower <= -3.0
    assert m.alpha is not None and np.array_equal(m.alpha, m.p)
    _check_witness(m, K)


def test_wolfe_budget_limited_points_never_grow_in_norm():
    """Every cycle of Wolfe's algorithm lowers ||p||_K (a major cycle moves to the affine minimizer
    of a larger set, a minor one along the segment from p to it), so the point returned after a
    budget of k cycles is no longer than after k - 1 (up to a relative round-off of 1e-12; the
    integer instance below has minor cycles, and the run needs 5 cycles).  Mutant: the minor step
    p + theta (w + p) (off the segment)."""
    K = _gram([[0, 5, 2], [5, -5, 6], [1, 6, -5], [4, 0, -3], [1, 2, 4], [0, -5, -2]])
    q = []
    for budget in range(1, 9):
        p = M._wolfe(K, F64, budget)[0]
        assert np.all(p >= 0) and abs(p.sum() - 1) < 1e-15
        q.append(float(p @ K @ p))
    assert all(b <= a * (1 + 1e-12) for a, b in zip(q, q[1:])), q
    assert q[-1] < 1e-12  # the origin is in the hull: ||p*||_K = 0


# -- margin(): a best facet with b > 0 bounds nothing from above (bug found here) ------------------


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
    m = M.margin(K, of=of, precision=precision)
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
    m = M.margin(K, precision=precision)
    assert m.lower <= 0 <= m.upper, (m.lower, m.upper)
    assert verify_margin_exact(m, K) == ""


@pytest.mark.parametrize("a", [7 * 2**23, 3 * 2**24])
def test_infeasible_margin_is_not_taken_from_a_float64_re_solve(a):
    """z_1 = (-a, -1), z_2 = (2^26, -1), z_3 = (0, 2^20) (K = Z Z^T exact: entries below 2^53): the
    origin is inside the triangle at distance 1 from the edge y = -1, ~10^6 from the others, so
    m(K) = -delta_max = -1 exactly [RP14 Theorem 3].  The KKT value of the facet {z_1, z_2} solved in
    float64 (entries ~2^52, lambda = 1) loses every digit to cancellation (1.12 and 1.05 here): the
    bracket must not come from it (in float64 the value is the SVD offset b with its allowance
    64 n u max||z_i||; at D digits the facet's exact squared distance).  On the census code the
    mutant ``ar.is_mp or ...`` (a float64 re-solve) gave upper = -sqrt(1.12) + 4e-6 < -1."""
    K = _gram([[-a, -1], [2**26, -1], [0, 2**20]])
    for precision in (None, 30):
        m = M.margin(K, precision=precision)
        assert m.feasible is False
        assert m.lower <= -1 <= m.upper, (m.lower, m.upper)
        assert verify_margin_exact(m, K) == ""


# -- _local_search: the last, capped round of the walk ------------------------------------------------


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
    sizes = []
    real = M._hyperplanes

    def spy(Zs, subsets, tol_side):
        sizes.append(len(subsets))
        return real(Zs, subsets, tol_side)

    monkeypatch.setattr(M, "_hyperplanes", spy)
    M._local_search(Zs, r, 1e-10, 1368, np.random.default_rng(0))
    cap = int(5e7 / (r**3 + nu * r))
    used = 1368 + 32 + r * (nu - r)
    assert cap == 7802 and sum(sizes[:-1]) == used  # the sample, the ascent, one full round
    assert sizes[-1] == r * ((cap - used) // (2 * r)) == 2


# -- margin(): the method text at the edge of tol_side ------------------------------------------------


def test_method_text_names_the_upper_bound_it_used_at_b_equal_to_tol_side(monkeypatch):
    """The rounded Gram matrix of a planar triangle around the origin (unit vectors 120 degrees
    apart, turned by 0.1 rad) has exact rank 3 but numerical rank 2, so no facet bound applies to K
    as stored: upper = ||p*||_K / 1^T p*, and the method says so ("undecided for K as stored ...
    upper = ||p*||_K of the min-norm point") whenever the best facet puts the origin in the hull
    within tol_side (b <= tol_side, the tolerance of _hyperplanes' supporting test, inclusive).  The
    facet search is wrapped to report b = tol_side = 1e-10 exactly for its best facet.  Mutant: the
    strict ``b < tol_side``, whose text claims upper = -delta_max."""
    th = 2 * np.pi * np.arange(3) / 3 + 0.1
    Z = np.c_[np.cos(th), np.sin(th)]
    K = Z @ Z.T
    real = M._enumerate_facets

    def at_tol_side(Zs, r, tol_side, chunk=8192):
        b, a, T = real(Zs, r, tol_side, chunk)
        return tol_side, a, T

    monkeypatch.setattr(M, "_enumerate_facets", at_tol_side)
    m = M.margin(K)
    assert m.feasible is None and m.lower < 0 < m.upper
    assert m.upper == M.upper_bound(K, m.p)  # no facet bound for K as stored
    assert m.method.startswith("undecided for K as stored") and "upper = ||p*||_K of the min-norm point" in m.method
    assert "upper = -delta_max" not in m.method


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
    m = M.margin(K, precision=precision)
    assert m.feasible is False
    assert Fraction(M.rational(m.lower)) <= -1 <= Fraction(M.rational(m.upper)), (m.lower, m.upper)
    assert verify_margin_exact(m, K) == ""


def test_affine_distance2_exact_closed_forms():
    """The squared distance from the origin to the affine hull of S, over Q: the line x + y = 1
    through (1, 0), (0, 1) is at distance^2 1/2; the plane x + y + z = 1 at 1/3; (3, 4) alone at 25;
    the line x = 3 through (3, 1), (3, -2) at 9; a singular K_SS (z_1 = z_2, or z = 0) gives None."""
    assert M._affine_distance2_exact(np.eye(2)) == Fraction(1, 2)
    assert M._affine_distance2_exact(np.eye(3)) == Fraction(1, 3)
    assert M._affine_distance2_exact(np.array([[25.0]])) == 25
    assert M._affine_distance2_exact(_gram([[3, 1], [3, -2]])) == 9  # the line x = 3
    assert M._affine_distance2_exact(np.array([[1.0, 1.0], [1.0, 1.0]])) is None
    assert M._affine_distance2_exact(np.zeros((1, 1))) is None


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
    n = np.cross(z2 - z1, z3 - z1)
    assert [int(n @ z) for z in (z1, z2, z3)] == [1, 1, 1] and n @ z4 > 1  # exact integers
    n2 = int(n @ n)  # ||n||^2: m >= 1 / ||n||
    K = _gram(Z)
    for precision in (None, 30):
        m = M.margin(K, precision=precision)
        assert m.feasible is not False
        up = M.rational(m.upper)
        assert up > 0 and up * up * n2 >= 1, float(m.upper)
        assert verify_margin_exact(m, K) == ""


def test_exact_det_closed_forms():
    """Bareiss on the integers of the dyadic entries: det [[1, 2], [3, 4]] = -2; diag(1/2, 1/4) = 1/8;
    a row swap flips the sign (det [[0, 1], [1, 0]] = -1, and a pivot found below the diagonal);
    singular -> 0; mpf and int entries as exactly as floats; an entry 2^-60 beside 1 kept exactly."""
    import mpmath

    from reference.exact import exact_det

    assert exact_det(np.array([[1.0, 2.0], [3.0, 4.0]])) == -2
    assert exact_det(np.array([[0.5, 0.0], [0.0, 0.25]])) == Fraction(1, 8)
    assert exact_det(np.array([[0.0, 1.0], [1.0, 0.0]])) == -1
    assert exact_det(np.array([[0.0, 0.0, 1.0], [0.0, 2.0, 0.0], [3.0, 0.0, 0.0]])) == -6
    assert exact_det(np.array([[1.0, 2.0], [2.0, 4.0]])) == 0
    assert exact_det(np.array([[mpmath.mpf(3), 1], [1, mpmath.mpf("0.5")]], dtype=object)) == Fraction(1, 2)
    assert exact_det(np.array([[1.0, 2.0**-60], [2.0**-60, 1.0]])) == 1 - Fraction(1, 2**120)
