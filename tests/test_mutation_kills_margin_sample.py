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
from reference.exact import verify_margin_exact

M = sys.modules["reference.margin"]  # the package re-exports the function `margin` under the module's name


def _q(x):
    """A float or an mpf as the exact rational it is."""
    if isinstance(x, mpmath.mpf):
        man, exp = x.man_exp
        return Fraction(man) * Fraction(2) ** exp
    return Fraction(x)


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


# -- _local_search: its budget, its swaps, its capped rounds --------------------------------------


def _centred(n, r, seed):
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
    Zs = _centred(n, r, seed)
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
    Zs = _centred(1500, 8, seed=2)
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


# -- margin(): each branch, its certificate and its words --------------------------------------

_TINY = 2.0**-50  # z1, z2 unit vectors with <z1, z2> = -1 + 2^-50: p* = (1/2, 1/2), m^2 = 2^-51
_TINY_K = np.array([[1.0, -1.0 + _TINY], [-1.0 + _TINY, 1.0]])


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
    K = gram([[1, 0], [0, 1], [-1, -1]])
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
    K = gram(s * np.array([[1, 0], [0, 1], [-1, -1]]))
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
    monkeypatch.setattr(M, "EXACT_MAX_N", 2)
    m = margin(K, max_subsets=1)
    assert m.feasible is False and m.upper == 0
    monkeypatch.setattr(M, "EXACT_MAX_N", 1)
    m = margin(K, max_subsets=1)
    assert m.feasible is None and m.upper > 0


# Four points of R^2 with the origin inside their hull; the float Gram has full exact rank (its
# entries are rounded), so K as stored is only within round-off of a rank-2 matrix.
_Z4 = np.array([[0.3, 0.1], [-0.2, 0.35], [-0.15, -0.4], [0.7, -0.05]])
_K4 = gram(_Z4)


def _delta_max(Z):
    """Distance from the origin to the nearest edge of the (convex, counter-clockwise sorted) hull."""
    c = np.arctan2(Z[:, 1], Z[:, 0])
    P = Z[np.argsort(c)]
    d = []
    for i in range(len(P)):
        a, b = P[i], P[(i + 1) % len(P)]
        d.append(abs(a[0] * b[1] - a[1] * b[0]) / np.linalg.norm(b - a))
    return min(d)


def test_rounded_gram_is_undecided_as_stored_and_infeasible_in_span():
    delta = _delta_max(_Z4)
    m = margin(_K4)  # K as stored
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
    in the span, Wolfe's 3 support points hold the origin strictly inside their simplex: upper = 0."""
    m = margin(_K4, max_subsets=1)
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
    m = margin(gram([[0.3, 0.0], [-0.7, 0.0], [0.1, 0.9]]), of="span")
    assert m.feasible is None and m.lower <= 0 <= m.upper and m.lower > -1e-12
    # the facet bound 0 + allowance is >= 0, so upper is the min-norm point's ||p||_K / 1^T p, witnessed by p
    assert verify_margin_exact(m, gram([[0.3, 0.0], [-0.7, 0.0], [0.1, 0.9]])) == "" and m.upper < 1e-6
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
