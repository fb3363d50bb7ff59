"""Tests written against the survivors of the full mutmut 3.8.1 screen of reference/margin.py
(issue 13 item 8: every mutant of the module run against the fast tests).  Each test checks a
property that follows from the math or from a docstring -- a closed-form instance, an exact
eigenvalue on either side of a documented cut, the full text of an error message as the user
sees it -- and each was run by hand against the mutated code it is meant to kill.  Survivors not
killed here are argued in benchmarks/mutation/margin_equivalent.md (section "full screen").
"""

import re
import sys

import mpmath
import numpy as np
import pytest

import reference  # noqa: F401  (imports the package; the module is reached through sys.modules)
from reference.arithmetic import Arithmetic

M = sys.modules["reference.margin"]  # the package re-exports the function `margin` under the module's name
EPS = 2.0**-52  # np.finfo(np.float64).eps = 2u


# -- _check_vector: the complex refusal as the user reads it ------------------------------------


@pytest.mark.parametrize("precision", [None, 30])
@pytest.mark.parametrize("bad", [[1 + 1j, 1.0], [1.0, np.complex128(2.0)]])
def test_complex_coefficients_are_refused_with_the_reason_and_the_fix(bad, precision):
    """The whole message: which argument, why (a complex entry), and what to pass instead."""
    K = np.eye(2)
    for fn, name in ((M.lower_bound, "alpha"), (M.upper_bound, "p")):
        with pytest.raises(ValueError) as info:
            fn(K, bad, precision=precision)
        assert str(info.value) == (
            f"{name} must hold real numbers within float64 range (a complex entry); pass a real vector"
        )


# -- _span_coordinates: the numerical-rank cut n * 1000 * eps * max eig, on both sides ----------


def _rank(K):
    Z, V_r, s_r = M._span_coordinates(np.asarray(K, dtype=np.float64))
    assert Z.shape == (K.shape[0], len(s_r)) == V_r.shape
    return Z.shape[1]


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


# -- _solve_mp: relative accuracy, also for a solution far below 1 ------------------------------


def test_solve_mp_reaches_the_working_precision_relative_to_a_tiny_solution():
    """A x = b with a well-conditioned A (cond ~ 10) and x ~ 1e-40: the refinement must stop on a
    *relative* correction (docstring: x at the working precision), so x has ~50 correct digits
    relative to its size.  The mutant that divides the correction by max(||x||, 1) instead of
    max(||x||, 1e-300) calls the first float64 correction (~1e-56 absolute) converged and returns
    x with only ~32 correct digits."""
    ar = Arithmetic(50)
    with ar.context():
        A = ar.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]])
        x_true = ar.array(["1e-40", "-2.5e-40", "3.75e-41"])  # mpf from decimal strings, at 50 digits
        b = A @ x_true
        x = M._solve_mp(A, b, ar)
        err = max(abs(x[i] - x_true[i]) for i in range(3)) / max(abs(v) for v in x_true)
    assert err < mpmath.mpf(10) ** -45, err


# -- margin(): what the user reads --------------------------------------------------------------


def test_margin_refuses_an_unknown_object_with_the_choices():
    with pytest.raises(ValueError) as info:
        M.margin(np.eye(2), of="spam")
    assert str(info.value) == "of must be 'matrix' (K as stored) or 'span' (its numerical span), got 'spam'"


@pytest.mark.parametrize("K", [np.eye(2), np.array([[1.0, -1.0], [-1.0, 1.0]]), np.array([[2.0, -1.0, -1.0], [-1.0, 2.0, -1.0], [-1.0, -1.0, 2.0]])])
def test_margin_fields_are_plain_floats_in_float64_mode(K):
    """Margin documents value / lower / upper as ``float`` (or mpf): plain Python floats, not
    numpy scalars (whose repr ``np.float64(0.5)`` would leak into every printed result) -- for a
    separable (I_2), an infeasible (z_2 = -z_1) and a rank-deficient infeasible (a triangle
    around 0 in its plane) matrix.  The mutant that skips the conversion returns np.float64."""
    m = M.margin(K)
    for field in ("value", "lower", "upper"):
        assert type(getattr(m, field)) is float, (field, type(getattr(m, field)))
    for of in ("matrix", "span"):
        m = M.margin(K, of=of)
        assert all(type(getattr(m, f)) is float for f in ("value", "lower", "upper"))
    with mpmath.workdps(30):
        mp = M.margin(K, precision=30)
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
        M.margin(np.eye(3))
        M.margin(tri)
        M.margin(tri, of="span")
        M.margin(Z @ Z.T)
        M.margin(Z @ Z.T, max_subsets=10)  # C(12, 3) = 220 > 10: local search
        M.margin(tri, precision=30)


# -- _hyperplanes: affine independence, sigma_min > 1e-9 sigma_max ------------------------------


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


# -- _enumerate_facets: the chunk bounds memory, never the answer -------------------------------


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

    sizes = []
    real = M._hyperplanes

    def spy(Zs, subsets, tol_side):
        sizes.append(len(subsets))
        return real(Zs, subsets, tol_side)

    monkeypatch.setattr(M, "_hyperplanes", spy)
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((40, 3))
    Z -= Z.mean(axis=0)
    M._enumerate_facets(Z / np.max(np.linalg.norm(Z, axis=1)), 3, 1e-10)
    assert sizes == [8192, 9880 - 8192]
    sizes.clear()
    M._enumerate_facets(Z / np.max(np.linalg.norm(Z, axis=1)), 3, 1e-10, chunk=4000)
    assert sizes == [4000, 4000, 1880]


# -- _local_search: its budget, its sample, its ascent, its walk (a spy on _hyperplanes) --------


def _spy_hyperplanes(monkeypatch):
    """Record every block of subsets _local_search hands to _hyperplanes, with the real results."""
    calls = []
    real = M._hyperplanes

    def spy(Zs, subsets, tol_side):
        out = real(Zs, subsets, tol_side)
        calls.append((np.array(subsets), out))
        return out

    monkeypatch.setattr(M, "_hyperplanes", spy)
    return calls


def _centred(n, r, seed):
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
    Zs = _centred(nu, r, seed=7)
    cap, chunk = int(5e7 / (r**3 + nu * r)), int(4e6 // (r * (r + 1) + nu))
    assert (cap, chunk) == (7802, 1247)
    calls = _spy_hyperplanes(monkeypatch)
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
    Zs = _centred(nu, r, seed=1)
    calls = _spy_hyperplanes(monkeypatch)
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
    calls = _spy_hyperplanes(monkeypatch)
    M._local_search(Zs, 2, 1e-10, 1, np.random.default_rng(0))
    asc = calls[1][0]
    assert asc.shape == (32, 2)
    assert all((j - i) % k in (1, k - 1) for i, j in asc.tolist()), asc.tolist()


# -- margin(): the verdicts and texts around the exact-rank decision ----------------------------


def _rotated_triangle():
    """Three unit vectors 120 degrees apart (turned by 0.1 rad): the origin is inside their hull,
    m = -1/2 in the plane; the float Gram matrix has exact rank 3 (its entries are rounded)."""
    th = 2 * np.pi * np.arange(3) / 3 + 0.1
    Z = np.c_[np.cos(th), np.sin(th)]
    return Z @ Z.T


def test_margin_undecided_for_k_as_stored_says_why_in_full():
    """The rounded Gram matrix of an infeasible planar triangle: numerically of rank 2, exactly of
    rank 3 (checked), so the facets of the rank-2 matrix bracket m(K) without deciding its sign.
    The method names the rank, the subsets, and where each bound comes from."""
    from reference.exact import exact_rank

    K = _rotated_triangle()
    assert exact_rank(K) == 3
    m = M.margin(K)
    assert m.feasible is None and m.lower < 0 < m.upper
    assert abs(m.value + 0.5) < 1e-12  # -delta_max^rel of the rank-2 matrix: the inradius 1/2
    expected = (
        "undecided for K as stored: K is within round-off of a matrix of rank 2 whose hull holds the "
        "origin (value = -delta_max^rel of that matrix, from all C(3, 2) = 3 point subsets [RP14 "
        "Theorem 3, E-A3]), but K itself has exact rank > 2, so its own margin is only bracketed: "
        "lower from the facet normal (alpha-form), upper = ||p*||_K of the min-norm point [RP14 Lemma 3]"
    )
    assert m.method.split("; ")[0] == expected, m.method


def _integer_points(n, seed=0):
    pts = np.array([(i, j) for i in range(-5, 6) for j in range(-5, 6) if (i, j) != (0, 0)], dtype=float)
    return pts[np.random.default_rng(seed).permutation(len(pts))[:n]]


def test_margin_decides_exact_rank_up_to_exact_rank_n_points():
    """Integer points of the plane around the origin: K = Z Z^T is an integer matrix of exact rank 2,
    so for n <= EXACT_RANK_N = 60 points the facet enumeration certifies m(K) = -delta_max < 0
    (feasible False, upper < 0); beyond 60 points the exact rank is not computed (documented
    cost limit) and the verdict stays undecided.  Mutant: ``n < EXACT_RANK_N``."""
    assert M.EXACT_RANK_N == 60
    Z60 = _integer_points(60)
    m = M.margin(Z60 @ Z60.T)
    assert m.feasible is False and m.upper < 0 and m.method.startswith("infeasible: complete enumeration")
    _assert_brackets_minus_delta(Z60, m)
    Z61 = _integer_points(61)
    m = M.margin(Z61 @ Z61.T)
    assert m.feasible is None and m.method.startswith("undecided for K as stored")
    _assert_brackets_minus_delta(Z61, m)


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


def test_float_min_norm_point_respects_its_budget():
    """Float64 Wolfe stops after max_iter cycles (major + minor): a run that needs 4 reports at
    most 1, 2, 3 iterations with those budgets, unconverged (mutant: ``it <= max_iter``)."""
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((10, 3))
    Z -= Z.mean(axis=0)
    K = Z @ Z.T
    assert M.min_norm_point(K).iterations == 4
    for budget in (1, 2, 3):
        r = M.min_norm_point(K, max_iter=budget)
        assert r.iterations <= budget and not r.converged, (budget, r.iterations)


def test_a_negative_quadratic_form_within_round_off_gives_norm_zero():
    """K = [[1, -(1+d)], [-(1+d), 1]], d = 1e-14, is PSD within check_gram's tolerance but not
    exactly: at p = (1/2, 1/2), p^T K p = -d/2 < 0.  The certified upper bound ||p||_K / 1^T p
    and the precision-mode min-norm point's norm are then 0 -- real and >= 0, not a NaN, an
    exception or an mpc (mutants: the sqrt of a negative Q_hi / qm)."""
    d = 1e-14
    K = np.array([[1.0, -(1.0 + d)], [-(1.0 + d), 1.0]])
    assert M.upper_bound(K, [1.0, 1.0]) == 0.0
    up = M.upper_bound(K, [1.0, 1.0], precision=30)
    assert isinstance(up, mpmath.mpf) and up == 0
    r = M.min_norm_point(K, precision=30)
    assert isinstance(r.norm, mpmath.mpf) and r.norm == 0


def test_precision_mode_witnesses_hold_mpf_entries():
    """With precision=D every number of the result is an mpf at D digits, the witness alpha of
    ``lower`` included (the facet normal's coefficients, not a float64 array); and alpha reproduces
    lower through lower_bound at the same precision."""
    on_edge = np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])  # 0 on the edge z_1 z_2: m = 0
    for K, of in ((_rotated_triangle(), "span"), (on_edge, "matrix")):
        m = M.margin(K, precision=30, of=of)
        assert m.alpha is not None and all(isinstance(v, mpmath.mpf) for v in m.alpha), (of, m.alpha)
        assert M.lower_bound(K, m.alpha, precision=30) == m.lower
    assert m.feasible is False and m.upper == 0  # on_edge: p* K p* = 0 exactly


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


def test_margin_rechecks_in_exact_arithmetic_up_to_exact_max_n_points():
    """For n <= EXACT_MAX_N = 400 an undecided float verdict is re-checked exactly: the segment at
    height 2^-26 is certified separable (feasible True, 0 < lower <= 2^-26 <= upper); with 401
    points it is not re-checked (documented cost limit) and stays undecided.  Mutant: ``n <
    EXACT_MAX_N``."""
    assert M.EXACT_MAX_N == 400
    for n in (2, 400):
        m = M.margin(_segment_above_origin(n))
        assert m.feasible is True and 0 < m.lower <= 2.0**-26 <= m.upper, (n, m.lower, m.upper, m.method)
        assert "exact" in m.method
    m = M.margin(_segment_above_origin(401))
    assert m.feasible is None, m.method


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


def test_margin_upper_is_above_minus_delta_despite_the_facet_round_off():
    """An infeasible integer point set (K of exact rank 2): feasible False, and the certified
    interval holds -delta exactly although the float facet value is a few ulps below it -- the
    facet allowance 64 n u max_i ||z_i|| covers it (mutant: 64 u max ||z_i|| / n does not)."""
    Z = np.array(_POINTS_56, dtype=float)
    m = M.margin(Z @ Z.T)
    assert m.feasible is False and m.upper < 0
    _assert_brackets_minus_delta(Z, m)
