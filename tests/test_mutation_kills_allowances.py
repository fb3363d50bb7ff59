"""Round-off allowances of reference.data_margin at their edges (issue 13, census of the survivors
that tighten an allowance; benchmarks/mutation/census_allowances.md), and the regressions of the
bugs found on the way: patterns whose squares underflow, witnesses whose squares overflow.

Every expected value is exact: rationals (fractions.Fraction; float data are rationals) compared
squared, so no square root is rounded in a check.
"""

from fractions import Fraction

import math

import numpy as np
import pytest

import reference.data_margin as DM
from reference.patterns import make_patterns


def _exact_lower_holds(P, u, L, normalize=False):
    """L <= min_k u . y_k / ||u||  (y_k / ||z_k|| with normalize), decided in rationals."""
    if L == -math.inf:
        return True
    uu = [Fraction(float(x)) for x in u]
    Q = sum(x * x for x in uu)
    Y, Z = P.dense(), P.Z().toarray()
    L = Fraction(L)
    for k in range(P.m):
        t = sum(Fraction(float(a)) * b for a, b in zip(Y[k], uu))
        D = Q * sum(Fraction(float(v)) ** 2 for v in Z[k]) if normalize else Q
        if L > 0 and (t <= 0 or L * L * D > t * t):
            return False
        if L <= 0 and t < 0 and L * L * D < t * t:
            return False
    return True


# -- bug: rows whose squares underflow (normalized bounds, R) -----------------------------------------

_TINY = [1e-170, 2.0**-560, 1e-300]


@pytest.mark.parametrize("s", _TINY)
def test_normalized_lower_bound_of_rows_whose_squares_underflow(s):
    """z_1 = s (3, 4), z_2 = s (4, 3), normalized: (3/5, 4/5) and (4/5, 3/5); u = (1, 1) gives
    min_k u . y_k / ||u|| = (7/5) / sqrt(2), i.e. squared 49/50, at any scale s.  The squares of
    entries ~1e-170 underflow to 0: the norm bounds were 0 and the bound was inf (a false claim)."""
    P = make_patterns(np.array([[3.0, 4.0], [4.0, 3.0]]) * s, np.array([1, 1]), rho=None)
    lo = DM.certified_lower(P, np.array([1.0, 1.0]), normalize=True)
    assert 0 < lo and Fraction(lo) ** 2 <= Fraction(49, 50)
    assert Fraction(lo) ** 2 > Fraction(49, 50) * (1 - Fraction(1, 10**12))  # tight, not just sound
    assert _exact_lower_holds(P, [1.0, 1.0], lo, normalize=True)


@pytest.mark.parametrize("s", _TINY)
def test_normalized_upper_bound_of_rows_whose_squares_underflow_is_sound(s):
    """beta = (1, 1) on z_1 = s (3, 4), z_2 = s (4, 3): ||z_1 + z_2|| / (||z_1|| + ||z_2||) =
    7 sqrt(2) / 10, squared 98/100; the upper bound must stay above it (it may be loose there)."""
    P = make_patterns(np.array([[3.0, 4.0], [4.0, 3.0]]) * s, np.array([1, 1]), rho=None)
    up = DM.certified_upper(P, np.array([1.0, 1.0]), normalize=True)
    assert math.isfinite(up) and Fraction(up) ** 2 >= Fraction(98, 100)


@pytest.mark.parametrize("s", _TINY)
def test_margin_from_data_of_tiny_rows(s):
    """The normalized margin of {s (3, 4), s (4, 3)} is (7/5)/sqrt(2) (u = (1, 1) is optimal by
    symmetry), squared 49/50: certified, positive, at any scale s (the search divided by norms 0 and
    stopped on a non-finite witness); R = max ||y_k|| = 5 s rounded up (it was 0)."""
    X = np.array([[3.0, 4.0], [4.0, 3.0]]) * s
    M = DM.margin_from_data(X, np.array([1, 1]), normalize=True)
    assert M.separable and 0 < M.lower and Fraction(M.lower) ** 2 <= Fraction(49, 50) <= Fraction(M.upper) ** 2
    M = DM.margin_from_data(X, np.array([1, 1]))
    exact_sq = max(Fraction(float(a)) ** 2 + Fraction(float(b)) ** 2 for a, b in X)
    assert exact_sq <= Fraction(M.R) ** 2 <= exact_sq * (1 + Fraction(1, 10**12))


def test_R_bounds_a_pattern_whose_square_underflows():
    """y = +-1e-170 (one feature, no rho): max ||y_k|| = 1e-170, squared 1e-340 underflows; R was 0."""
    M = DM.margin_from_data(np.array([[1e-170], [-1e-170]]), np.array([1, 1]))
    assert Fraction(M.R) >= Fraction(1e-170) and M.lower <= -1e-170  # lower: gamma = -1e-170 here


# -- bug: a witness whose square overflows ---------------------------------------------------------


def test_certified_lower_of_a_witness_whose_square_overflows_claims_nothing_false():
    """u = (1e300, 1e-320) cannot be scaled by a power of two exactly (the 1e-320 would underflow),
    and u . u overflows: the bound was num / sqrt(inf) = -0.0, but y_2 = (-1, 0) has
    u . y_2 / ||u|| ~ -1.  Any bound returned must stay <= the exact minimum."""
    P = make_patterns(np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1, 1]), rho=None)
    u = np.array([1e300, 1e-320])
    lo = DM.certified_lower(P, u)
    assert _exact_lower_holds(P, u, lo)


# -- allowances at their edges: exact data, so the whole allowance is slack except where a mutant removes it --

U = Fraction(1, 2**53)


@pytest.mark.parametrize("label", [1, -1])
def test_lower_bound_divides_by_an_upper_bound_of_the_witness_norm(label):
    """d = 40 features, one pattern y = label (1/2, 0, ..., 0), u = e_1: min_k u . y_k / ||u|| = label / 2
    exactly.  Every rounding is exact here, so the bound is below label / 2 only by its allowances; the
    one on ||u||^2 = u . u is 2 gamma_{d+1} ~ 82 u, bigger than all the others together: dividing by a
    lower instead of an upper bound of ||u|| (for num > 0, or for num <= 0 the other way round) crosses
    label / 2 (kills certified_lower_71, _76, _77, _88, _89)."""
    d = 40
    X = np.zeros((1, d))
    X[0, 0] = 0.5
    P = make_patterns(X, np.array([label]), rho=None)
    u = np.zeros(d)
    u[0] = 1.0
    lo = Fraction(DM.certified_lower(P, u))
    assert lo <= Fraction(label, 2)
    assert lo > Fraction(label, 2) - 200 * U  # a few dozen u below, not more
    assert _exact_lower_holds(P, u, float(lo))


def test_lower_bound_allows_for_the_rounding_of_a_cancelling_two_term_dot_product():
    """y = [x, rho] = (3, 1), u = (fl(1/3), -1 + 2^-20): fl(3 fl(1/3)) = 1 (the exact product is
    1 - 2^-54), so the float dot product 2^-20 is 2^-54 above the exact u . y = 2^-20 - 2^-54: the
    allowance gamma_{nnz + 2} |u| . |y| (~2^-51 here) must be there even for a row of two terms
    (kills certified_lower_20: gamma_{nnz - 2} = 0)."""
    P = make_patterns(np.array([[3.0]]), np.array([1]), rho=1.0)
    u = np.array([1 / 3, -1 + 2.0**-20])
    assert Fraction(3) * Fraction(u[0]) + Fraction(u[1]) == Fraction(2) ** -20 - Fraction(2) ** -54  # the exact u . y
    lo = DM.certified_lower(P, u)
    assert 0 < lo and _exact_lower_holds(P, u, lo)


def test_upper_bound_of_a_single_sparse_pattern_in_many_dimensions():
    """d = 40 features, one pattern z = (1/2, 0, ..., 0), beta = 1: ||beta z|| / beta = 1/2 exactly;
    the allowance on the sum of the d squares must enlarge it (kills certified_upper_41, _42)."""
    d = 40
    X = np.zeros((1, d))
    X[0, 0] = 0.5
    P = make_patterns(X, np.array([1]), rho=None)
    up = Fraction(DM.certified_upper(P, np.array([1.0])))
    assert Fraction(1, 2) <= up < Fraction(1, 2) + 200 * U


def test_upper_bound_denominator_is_bounded_from_below():
    """m = 40 patterns z_k = e_k / 2, beta = 1: ||sum_k z_k|| / sum_k beta_k = sqrt(40) / 2 / 40, squared
    1/160.  Every column has one term (allowance 4u there) but the denominator sums 40: its allowance
    2 gamma_{m+2} must shrink it (kills certified_upper_80, _81)."""
    m = 40
    P = make_patterns(np.eye(m) * 0.5, np.ones(m, dtype=int), rho=None)
    up = Fraction(DM.certified_upper(P, np.ones(m)))
    assert Fraction(1, 160) <= up**2 < Fraction(1, 160) * (1 + 400 * U)


def test_upper_bound_allows_for_a_cancelling_column():
    """z_1 = 1, z_2 = -(1 - 2^-50), beta = (1, 1): sum_k beta_k z_k = 2^-50 (exact), sum beta = 2, so
    the bound is 2^-51; the column's allowance e ~ 2^-50 is as large as |w| itself and must be
    added to |w|, not subtracted (kills certified_upper_37)."""
    P = make_patterns(np.array([[1.0], [-(1 - 2.0**-50)]]), np.array([1, 1]), rho=None)
    up = Fraction(DM.certified_upper(P, np.array([1.0, 1.0])))
    assert up >= Fraction(2) ** -51


# -- bug: a lower bound that underflows -----------------------------------------------------------------


@pytest.mark.parametrize("a", [46, 47, 65, 111])
def test_lower_bound_that_underflows_stays_below_the_exact_value(a):
    """1000 features, one pattern y = (2 a 2^-1074, 0, ..., 0), u = (1/2, ..., 1/2): min u . y / ||u|| =
    a 2^-1074 / sqrt(250), about 0.063 a subnormal steps.  The quotient num / sqrt(.) is rounded to
    the subnormal grid (absolute error up to half a step, beyond any relative allowance): the bound
    came out one step above the exact value (e.g. 3 steps for a = 46, exact 2.909)."""
    d = 1000
    X = np.zeros((1, d))
    X[0, 0] = 2 * a * 2.0**-1074
    P = make_patterns(X, np.array([1]), rho=None)
    u = np.full(d, 0.5)
    lo = DM.certified_lower(P, u)
    assert Fraction(lo) ** 2 * 250 <= (a * Fraction(2) ** -1074) ** 2 or lo <= 0
    assert _exact_lower_holds(P, u, lo)


@pytest.mark.parametrize("q", [1, 4, 16, 64])
def test_R_is_an_upper_bound_of_exact_norms(q):
    """One pattern y = (1, ..., 1) with q entries: ||y|| = sqrt(q) in {1, 2, 4, 8}, exact, and every
    square and sum is exact, so R lies above sqrt(q) only by its allowance (2 gamma_{q+2} on the sum
    of squares and 4u after the square root, then one step up): an allowance that shrinks R instead
    (kills _row_norm_bounds_35, _37, _38, _40, which _R now uses)."""
    M = DM.margin_from_data(np.ones((1, q)), np.array([1]))
    assert q <= Fraction(M.R) ** 2 < q * (1 + 400 * U)


@pytest.mark.parametrize("e", [-560, -1000])
@pytest.mark.parametrize("normalize", [False, True])
def test_upper_bound_of_tiny_data_is_tight(e, normalize):
    """{2^e (3, 4), 2^e (4, 3)} (exact): the margin is 2^e (7/2) sqrt(2), squared 2^2e 49/2, and
    normalized (7/5) / sqrt(2), squared 49/50.  The documented relative width ~1e-12 of separable data
    holds at this scale too: the squares of W underflowed and their absolute allowance 2^-1074 made
    the upper bound ~1e8 times too large (valid, but useless)."""
    X = np.ldexp(np.array([[3.0, 4.0], [4.0, 3.0]]), e)
    M = DM.margin_from_data(X, np.array([1, 1]), normalize=normalize)
    exact = Fraction(49, 50) if normalize else Fraction(49, 2) * Fraction(2) ** (2 * e)
    assert Fraction(M.lower) ** 2 <= exact <= Fraction(M.upper) ** 2 <= exact * (1 + Fraction(1, 10**11))
