"""Tests of reference/margins/data_bounds.py: the certified bounds on the margin of a data set --
certified_lower and certified_upper sound (never across the exact value) and tight, at every scale
of data and witness (underflow, overflow, cancellation, summation order), normalized or extended;
the row-norm bounds, the rounding helpers, and the exact Gordan check on a support."""

from __future__ import annotations

import math
import re
import warnings
from fractions import Fraction

import numpy as np
import pytest

from reference.arithmetic import scaled_pow2_exact
from reference.margins import data_bounds
from reference.patterns import make_patterns
from tests.support.margin import U2, _TINY, _dense_margin

U = Fraction(1, 2**53)  # unit roundoff
ETA = math.ldexp(1.0, -1074)  # the smallest positive subnormal


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


class _LeftToRight:
    """numpy, except that ``sum(a)`` (no axis) adds the entries of ``a`` one by one, left to right, in
    float64 (Python floats: IEEE binary64, round to nearest)."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def sum(a, *args, **kwargs):
        if args or kwargs:
            return np.sum(a, *args, **kwargs)
        acc = 0.0
        for x in np.asarray(a, dtype=np.float64).ravel():
            acc += float(x)
        return np.float64(acc)


def _adverse_beta(m):
    """beta = (1, t, ..., t): t^2 is just below 2^-53, so added to a partial sum of squares 1 it is
    rounded away (the sum of squares comes out ~(m - 1) u low); t modulo 2^-52 is just above 2^-53,
    so each addition to a partial sum in [1, 2) rounds up by ~u (sum beta comes out ~(m - 1) u high)."""
    q = 2.0**-52
    t = (math.floor(math.sqrt(2.0**-53) / q) - 1) * q + 2.0**-53 + 2.0**-79
    assert t * t < 2.0**-53 < math.fmod(t, q)
    return np.array([1.0] + [t] * (m - 1))


# Pythagorean patterns: |z| is an integer, so the true values below are exact rationals.
_TRIPLES = [(3.0, 4.0, 5.0), (5.0, 12.0, 13.0), (8.0, 15.0, 17.0), (20.0, 21.0, 29.0), (119.0, 120.0, 169.0)]


def _line():
    """Patterns z_0 = (1), z_1 = (2) (rho=None): for u = (s), s > 0, min_k u.y_k / ||u|| = 1 exactly;
    normalized, every y_k / ||y_k|| = (1) and the margin of u is 1 too; for beta = (s, 0) the
    RP14 Lemma 3 quantity ||sum beta_k y_k|| / sum beta_k is 1 (also normalized: beta_0 ||z_0|| = s)."""
    return make_patterns(np.array([[1.0], [2.0]]), np.array([1, 1]), rho=None)


# tiny witnesses (whose squares underflow) and huge ones (whose squares overflow): the quantities
# are invariant under positive scaling, so the certified bounds must stay sound and tight.
SCALES = [1.0, 3e-162, 1e-160, 1e-170, 1e-310, 5e-324, 1e200, 1e300, 1.7e308]


_NORM_ROWS = [
    [1.0, 0.0, 0.0],
    [0.0011360465324896428, 0.00010970639932180819, -0.0005526473205362325],
    [-9.270512969397014, -1.7385313546667398, 2.9431166664586503],
    [-8.369619281702581e-05, -0.0011632259734447486, -0.0006292880940615545],
    [0.1, 0.2, 0.3],
    [1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0],
]


_XS = [1.0, 0.5, 0.75, 1.5, 3.0, 1e-300, 5e-324, 1e300, 0.1]


F_ETA = Fraction(1, 2**1074)


def _exact_margin_parts(P, u):
    """(min_k u . y_k, u . u) in exact rationals (the float data and witness are rationals)."""
    Y = P.dense()
    fu = [Fraction(float(x)) for x in u]
    N = min(sum((Fraction(float(y)) * a for y, a in zip(row, fu)), Fraction(0)) for row in Y)
    return N, sum((a * a for a in fu), Fraction(0))


def _at_most(b, N, Q):
    """b <= N / sqrt(Q) exactly (Q > 0), b a float (-0.0 reads as 0) or a Fraction."""
    b = Fraction(b)
    if b <= 0 <= N:
        return True
    if b > 0 >= N:
        return False
    if b > 0:  # both positive
        return b * b * Q <= N * N
    return b * b * Q >= N * N  # b <= 0, N < 0: |b| >= |N| / sqrt(Q)


#: (name, X, y, u): one pattern (no rho, no Delta), its entries multiples of 2^-1074, u exactly in [1/2, 1)
#: (scaled_pow2_exact leaves it as it is).  Worked by hand (u = 0.75 everywhere unless said):
#: - ties_up_10: x = 2 eta in 10 coordinates: each product 1.5 eta rounds to 2 eta, the float dot product is
#:   20 eta against the exact 15 eta; exact margin 15 eta / (0.75 sqrt 10) = 6.32 eta.  The allowance
#:   2 n eta (n = 12) takes it below 0; with 2 / n eta (rounds to 0) the bound is fl(20 / 2.37) - 1 = 7 eta,
#:   above the exact margin.
#: - negative_tie_1024: x = -2 eta in one of 1024 coordinates: float product -2 eta, exact -1.5 eta;
#:   ||u|| = 24; num = -2 - 6 = -8 eta, -8 / 24 eta rounds to -0.0, so only the final - eta keeps the
#:   bound (-eta) below the exact -1.5 / 24 eta = -0.0625 eta (+ eta, or - 0, gives a bound above it).
#: - num_zero: x = 12 eta, u = 0.5 (1-d): u . y = 6 eta exactly = e (the relative part underflows, the
#:   absolute one is 2 * 3 eta): num = 0 exactly; the bound is 0 (num = 0 is exact), within the
#:   allowance of the exact 12 eta (a bound of -1 is not).
LOWER_SUBNORMAL = [
    ("ties_up_10", np.full((1, 10), 2 * ETA), [1], np.full(10, 0.75)),
    ("negative_tie_1024", np.eye(1, 1024) * (-2 * ETA), [1], np.full(1024, 0.75)),
    ("num_zero", np.array([[12 * ETA]]), [1], np.array([0.5])),
]


ETA2 = 2.0**-1074  # the smallest positive subnormal


def test_exact_check_rejects_a_wrong_support():
    # z_1 = (1), z_2 = (2): no nonnegative combination is 0 -> None, never a false certificate
    P = make_patterns(np.array([[1.0], [2.0]]), [1, 1], rho=None)
    assert data_bounds._exact_null_combination(P, np.array([0, 1])) is None
    # z_1 = (1), z_2 = (-3): c = (3/4, 1/4) exactly
    P = make_patterns(np.array([[1.0], [3.0]]), [1, -1], rho=None)
    assert data_bounds._exact_null_combination(P, np.array([0, 1])) == (Fraction(3, 4), Fraction(1, 4))


def test_certified_bounds_are_rigorous_on_random_witnesses():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 3))
    y = rng.choice([-1, 1], 30)
    P = make_patterns(X, y, rho=1.0, Delta=0.7)
    true = _dense_margin(X, y, 1.0, 0.7)
    for _ in range(20):
        u = rng.standard_normal(P.dim)
        beta = rng.random(P.m)
        assert data_bounds.certified_lower(P, u) <= true.upper
        assert data_bounds.certified_upper(P, beta) >= true.lower
    with pytest.raises(ValueError, match="u must be a finite vector of length"):
        data_bounds.certified_lower(P, np.ones(3))
    with pytest.raises(ValueError, match="beta must be a finite nonnegative nonzero"):
        data_bounds.certified_upper(P, -np.ones(P.m))


@pytest.mark.parametrize("s", _TINY)
def test_normalized_lower_bound_of_rows_whose_squares_underflow(s):
    """z_1 = s (3, 4), z_2 = s (4, 3), normalized: (3/5, 4/5) and (4/5, 3/5); u = (1, 1) gives
    min_k u . y_k / ||u|| = (7/5) / sqrt(2), i.e. squared 49/50, at any scale s.  The squares of
    entries ~1e-170 underflow to 0: the norm bounds were 0 and the bound was inf (a false claim)."""
    P = make_patterns(np.array([[3.0, 4.0], [4.0, 3.0]]) * s, np.array([1, 1]), rho=None)
    lo = data_bounds.certified_lower(P, np.array([1.0, 1.0]), normalize=True)
    assert 0 < lo and Fraction(lo) ** 2 <= Fraction(49, 50)
    assert Fraction(lo) ** 2 > Fraction(49, 50) * (1 - Fraction(1, 10**12))  # tight, not just sound
    assert _exact_lower_holds(P, [1.0, 1.0], lo, normalize=True)


@pytest.mark.parametrize("s", _TINY)
def test_normalized_upper_bound_of_rows_whose_squares_underflow_is_sound(s):
    """beta = (1, 1) on z_1 = s (3, 4), z_2 = s (4, 3): ||z_1 + z_2|| / (||z_1|| + ||z_2||) =
    7 sqrt(2) / 10, squared 98/100; the upper bound must stay above it (it may be loose there)."""
    P = make_patterns(np.array([[3.0, 4.0], [4.0, 3.0]]) * s, np.array([1, 1]), rho=None)
    up = data_bounds.certified_upper(P, np.array([1.0, 1.0]), normalize=True)
    assert math.isfinite(up) and Fraction(up) ** 2 >= Fraction(98, 100)


def test_certified_lower_of_a_witness_whose_square_overflows_claims_nothing_false():
    """u = (1e300, 1e-320) cannot be scaled by a power of two exactly (the 1e-320 would underflow),
    and u . u overflows: the bound was num / sqrt(inf) = -0.0, but y_2 = (-1, 0) has
    u . y_2 / ||u|| ~ -1.  Any bound returned must stay <= the exact minimum."""
    P = make_patterns(np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1, 1]), rho=None)
    u = np.array([1e300, 1e-320])
    lo = data_bounds.certified_lower(P, u)
    assert _exact_lower_holds(P, u, lo)


@pytest.mark.parametrize("label", [1, -1])
def test_lower_bound_divides_by_an_upper_bound_of_the_witness_norm(label):
    """d = 40 features, one pattern y = label (1/2, 0, ..., 0), u = e_1: min_k u . y_k / ||u|| = label / 2
    exactly.  Every rounding is exact here, so the bound is below label / 2 only by its allowances; the
    one on ||u||^2 = u . u is 2 gamma_{d+1} ~ 82 u, bigger than all the others together: dividing by a
    lower instead of an upper bound of ||u|| (for num > 0, or for num <= 0 the other way round) crosses
    label / 2."""
    d = 40
    X = np.zeros((1, d))
    X[0, 0] = 0.5
    P = make_patterns(X, np.array([label]), rho=None)
    u = np.zeros(d)
    u[0] = 1.0
    lo = Fraction(data_bounds.certified_lower(P, u))
    assert lo <= Fraction(label, 2)
    assert lo > Fraction(label, 2) - 200 * U  # a few dozen u below, not more
    assert _exact_lower_holds(P, u, float(lo))


def test_lower_bound_allows_for_the_rounding_of_a_cancelling_two_term_dot_product():
    """y = [x, rho] = (3, 1), u = (fl(1/3), -1 + 2^-20): fl(3 fl(1/3)) = 1 (the exact product is
    1 - 2^-54), so the float dot product 2^-20 is 2^-54 above the exact u . y = 2^-20 - 2^-54: the
    allowance gamma_{nnz + 2} |u| . |y| (~2^-51 here) must be there even for a row of two terms
    (gamma_{nnz - 2} = 0)."""
    P = make_patterns(np.array([[3.0]]), np.array([1]), rho=1.0)
    u = np.array([1 / 3, -1 + 2.0**-20])
    assert Fraction(3) * Fraction(u[0]) + Fraction(u[1]) == Fraction(2) ** -20 - Fraction(2) ** -54  # the exact u . y
    lo = data_bounds.certified_lower(P, u)
    assert 0 < lo and _exact_lower_holds(P, u, lo)


def test_upper_bound_of_a_single_sparse_pattern_in_many_dimensions():
    """d = 40 features, one pattern z = (1/2, 0, ..., 0), beta = 1: ||beta z|| / beta = 1/2 exactly;
    the allowance on the sum of the d squares must enlarge it."""
    d = 40
    X = np.zeros((1, d))
    X[0, 0] = 0.5
    P = make_patterns(X, np.array([1]), rho=None)
    up = Fraction(data_bounds.certified_upper(P, np.array([1.0])))
    assert Fraction(1, 2) <= up < Fraction(1, 2) + 200 * U


def test_upper_bound_denominator_is_bounded_from_below():
    """m = 40 patterns z_k = e_k / 2, beta = 1: ||sum_k z_k|| / sum_k beta_k = sqrt(40) / 2 / 40, squared
    1/160.  Every column has one term (allowance 4u there) but the denominator sums 40: its allowance
    2 gamma_{m+2} must shrink it."""
    m = 40
    P = make_patterns(np.eye(m) * 0.5, np.ones(m, dtype=int), rho=None)
    up = Fraction(data_bounds.certified_upper(P, np.ones(m)))
    assert Fraction(1, 160) <= up**2 < Fraction(1, 160) * (1 + 400 * U)


def test_upper_bound_allows_for_a_cancelling_column():
    """z_1 = 1, z_2 = -(1 - 2^-50), beta = (1, 1): sum_k beta_k z_k = 2^-50 (exact), sum beta = 2, so
    the bound is 2^-51; the column's allowance e ~ 2^-50 is as large as |w| itself and must be
    added to |w|, not subtracted."""
    P = make_patterns(np.array([[1.0], [-(1 - 2.0**-50)]]), np.array([1, 1]), rho=None)
    up = Fraction(data_bounds.certified_upper(P, np.array([1.0, 1.0])))
    assert up >= Fraction(2) ** -51


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
    lo = data_bounds.certified_lower(P, u)
    assert Fraction(lo) ** 2 * 250 <= (a * Fraction(2) ** -1074) ** 2 or lo <= 0
    assert _exact_lower_holds(P, u, lo)


def test_upper_bound_holds_when_the_sums_are_added_left_to_right(monkeypatch):
    """m = 100 patterns y_k = [0, e_k] (one zero feature, Delta = 1): sum_k beta_k y_k = [0, beta], so the
    margin bound ||sum beta_k y_k|| / sum beta_k is ||beta|| / sum beta, squared sum beta^2 / (sum beta)^2.
    Left to right, sum beta^2 is rounded down and sum beta up by ~99 u each: the allowances must cover
    (m - 1) u on both (gamma_{m+4} on the squares of the extended coordinates); E / (1 + 2 gamma) or
    E (1 - 2 gamma) instead of E (1 + 2 gamma) is ~34 u below the exact value (and caught here; under
    numpy's pairwise order both stay above it)."""
    m = 100
    beta = _adverse_beta(m)
    P = make_patterns(np.zeros((m, 1)), np.ones(m, dtype=int), rho=None, Delta=1.0)
    monkeypatch.setattr(data_bounds, "np", _LeftToRight())
    # the instance does what it is built for: both sums err by ~(m - 1) u, the adverse way
    b = scaled_pow2_exact(beta)  # certified_upper's first step: beta / 2, exact
    for terms, sign in ((b * b, -1), (b, 1)):
        exact = sum(Fraction(float(x)) for x in terms)
        rel = (Fraction(float(data_bounds.np.sum(terms))) - exact) / exact
        assert sign * rel > (m - 2) * U
    up = Fraction(data_bounds.certified_upper(P, beta))
    num = sum(Fraction(float(x)) ** 2 for x in beta)
    den = sum(Fraction(float(x)) for x in beta)
    assert up**2 * den**2 >= num
    assert up**2 * den**2 < num * (1 + 1000 * U)  # and not by far (the square ~350 u above)


def test_exact_null_combination_with_a_duplicate_point_and_a_redundant_equation():
    """(a) z = 1, 1, -1 (a duplicated point): after the first pivot the duplicate's column vanishes (a free
    variable, c = 0) but elimination must go on to the third column: c = (1/2, 0, 1/2), the one solution
    with c_2 = 0 (checked: 1/2 - 1/2 = 0, sum 1).  (b) z = (1, 1), (-1, -1): the two coordinate equations
    are the same, one is left over as 0 = 0 (consistent): c = (1/2, 1/2)."""
    P = make_patterns(np.array([[1.0], [1.0], [1.0]]), np.array([1, 1, -1]), rho=None)
    assert data_bounds._exact_null_combination(P, np.array([0, 1, 2])) == (Fraction(1, 2), Fraction(0), Fraction(1, 2))
    P = make_patterns(np.array([[1.0, 1.0], [1.0, 1.0]]), np.array([1, -1]), rho=None)
    assert data_bounds._exact_null_combination(P, np.array([0, 1])) == (Fraction(1, 2), Fraction(1, 2))


@pytest.mark.parametrize("a, b, c", _TRIPLES)
@pytest.mark.parametrize("scale", [1.0, 2.0**-30, 2.0**30])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_certified_bounds_never_cross_the_exact_value(a, b, c, scale, sign):
    """One pattern z = (a, b) with a^2 + b^2 = c^2.  With u = sign * z: min_k u . z / ||u|| = sign * c and,
    normalized, sign * 1, exactly; with beta = 1: ||z|| / 1 = c and, normalized (beta_k ||z_k|| = 1), 1.
    certified_lower must stay <= these values and certified_upper >= them (RP14 Lemma 3, rigorous
    rounding), whatever the scale of u, beta and z."""
    P = make_patterns(np.array([[a * scale, b * scale]]), np.array([1]), rho=None)
    u = sign * np.array([a, b])
    tight = 1e-13  # and tight: the allowances are a few dozen units of round-off here
    for lo, true in [(data_bounds.certified_lower(P, u), sign * c * scale), (data_bounds.certified_lower(P, u * scale), sign * c * scale),
                     (data_bounds.certified_lower(P, u, normalize=True), sign)]:
        assert true - tight * abs(true) <= lo <= true, (lo, true)
    for up, true in [(data_bounds.certified_upper(P, np.array([1.0])), c * scale),
                     (data_bounds.certified_upper(P, np.array([scale]), normalize=True), 1.0),
                     (data_bounds.certified_upper(P, np.array([1.0 / (c * scale)]), normalize=True), 1.0)]:
        assert true <= up <= true * (1 + tight), (up, true)


def test_certified_upper_reads_integer_coefficients_as_float64():
    """beta = (2^62, 2^62) as int64: sum_k beta_k = 2^63 wraps around in int64; read as float64 it is exact.
    z_1 = z_2 = (3, 4): ||sum beta_k z_k|| / sum beta_k = 5 exactly."""
    P = make_patterns(np.array([[3.0, 4.0], [3.0, 4.0]]), np.array([1, 1]), rho=None)
    up = data_bounds.certified_upper(P, np.array([2**62, 2**62], dtype=np.int64))
    assert 5 <= up <= 5 * (1 + 1e-13)


@pytest.mark.parametrize("s", SCALES)
@pytest.mark.parametrize("normalize", [False, True])
def test_certified_bounds_sound_and_tight_for_any_scale_of_the_witness(s, normalize):
    # found by a search: u = (1e-160) gave a lower bound 1.0000056 > 1 (a false claim),
    # u = (1e-170) a ZeroDivisionError, beta = (1e-170, 0) an upper bound 0 < 1 (a false claim).
    P = _line()
    lo = data_bounds.certified_lower(P, np.array([s]), normalize=normalize)
    up = data_bounds.certified_upper(P, np.array([s, 0.0]), normalize=normalize)
    assert Fraction(lo) <= 1 <= Fraction(up)
    # the a-priori allowances are a few dozen u for these 1- and 2-term sums
    assert 1 - 100 * U2 < Fraction(lo) and Fraction(up) < 1 + 100 * U2


def test_certified_upper_allowance_covers_a_cancelling_column():
    # z_0 = (1), z_1 = -(1 - t), beta = (1, 1): w = t exactly (Sterbenz), and the column's
    # allowance e ~ 2 gamma_3 (|z_0| + |z_1|) ~ 12 u = t is as large as w itself; the bound is
    # ||w|| / 2 = t / 2 exactly, and the certificate must lie above it (an allowance subtracted
    # instead of added would give ~0).
    t = 6 * 2.0**-52
    P = make_patterns(np.array([[1.0], [1.0 - t]]), np.array([1, -1]), rho=None)
    up = data_bounds.certified_upper(P, np.array([1.0, 1.0]))
    assert Fraction(up) >= Fraction(t) / 2
    assert Fraction(up) <= 4 * Fraction(t)  # and it is still of the right size


def test_certified_upper_accepts_exact_rational_and_big_integer_weights():
    # beta is converted to float64: Fractions and Python ints beyond int64 are weights like others
    P = make_patterns(np.array([[3.0, 0.0], [0.0, 4.0]]), np.array([1, 1]), rho=None)
    # beta = (1/3, 2/3): sum beta_k z_k = (1, 8/3), norm sqrt(73)/3, sum beta = 1
    up = data_bounds.certified_upper(P, [Fraction(1, 3), Fraction(2, 3)])
    assert Fraction(up) ** 2 >= Fraction(73, 9) and Fraction(up) ** 2 < Fraction(73, 9) * (1 + 100 * U2)
    big = data_bounds.certified_upper(P, [2**70, 2**70])  # (3, 4) / 2: exactly 5/2
    assert Fraction(5, 2) <= Fraction(big) < Fraction(5, 2) * (1 + 100 * U2)


@pytest.mark.parametrize("normalize, exact", [(False, -5), (True, -1)])
def test_certified_lower_of_a_non_separating_witness_is_sound_and_tight(normalize, exact):
    # z_0 = (3, 4), z_1 = (-3, -4) (norms 5), u = (3, 4) (norm 5): u.y = (25, -25), so
    # min u.y_k / ||u|| = -5, and with normalized patterns -1; the bound is negative here.
    P = make_patterns(np.array([[3.0, 4.0], [-3.0, -4.0]]), np.array([1, 1]), rho=None)
    lo = data_bounds.certified_lower(P, np.array([3.0, 4.0]), normalize=normalize)
    assert Fraction(lo) <= exact
    assert Fraction(lo) > exact * (1 + 100 * U2)  # a few dozen u below the truth, not a factor off


@pytest.mark.parametrize("rho", [None, 1.0, 0.1])
def test_row_norm_bounds_enclose_the_exact_norms(rho):
    X = np.array(_NORM_ROWS)
    P = make_patterns(X, np.array([1, -1, 1, -1, 1, -1]), rho=rho)
    lo, hi, e = data_bounds._row_norm_bounds(P)  # bounds on ||2^-e_k z_k||
    for k, row in enumerate(_NORM_ROWS):
        sq = (sum(Fraction(v) ** 2 for v in row) + (Fraction(rho) ** 2 if rho is not None else 0)) / Fraction(4) ** int(e[k])
        assert Fraction(lo[k]) ** 2 <= sq <= Fraction(hi[k]) ** 2
        assert sq * (1 - 100 * U2) < Fraction(lo[k]) ** 2 and Fraction(hi[k]) ** 2 < sq * (1 + 100 * U2)


@pytest.mark.parametrize("x", _XS + [-v for v in _XS])
def test_up_and_down_cover_a_relative_error_of_2u(x):
    X = Fraction(x)
    # the extreme true values t with |x - t| <= 2u |t|
    t_lo = X / (1 + 2 * U2) if x > 0 else X / (1 - 2 * U2)
    t_hi = X / (1 - 2 * U2) if x > 0 else X / (1 + 2 * U2)
    dn, up = Fraction(data_bounds._down(x)), Fraction(data_bounds._up(x))
    if abs(x) >= 1e-290:  # away from underflow the rounding of the product x (1 -+ 4u) is relative
        assert dn <= t_lo and up >= t_hi
    assert dn <= X <= up
    assert abs(dn - X) <= 16 * U2 * abs(X) and abs(up - X) <= 16 * U2 * abs(X)  # a few u, not more


def test_up_and_down_of_zero():
    for z in (0.0, -0.0):
        assert data_bounds._down(z) == 0 and data_bounds._up(z) == 0


@pytest.mark.parametrize("n", [1, 2, 3, 10, 1000, 10**6, 10**9, 2**40])
def test_gamma_is_highams_gamma(n):
    exact = n * U2 / (1 - n * U2)
    for g in (data_bounds._gamma(n), data_bounds._gamma(np.array([n]))[0], data_bounds._gamma(np.array([float(n)]))[0]):
        assert abs(Fraction(float(g)) - exact) <= 4 * U2 * exact


def test_certified_lower_allowance_covers_a_cancelling_dot_product():
    # y = -[x, rho] = (0.797..., -1) and u = (1.63..., 1.30...): u.y ~ -1.2e-3 is the difference of
    # two numbers ~ 1.3, so its float value carries an error ~ u |u|.|y|, far above u |u.y|; the
    # bound must stay below the exact min_k u.y_k / ||u|| (checked in rationals, squared).
    X, u = np.array([[-0.7970092393721301]]), np.array([1.6305228573863613, 1.3006839703204864])
    P = make_patterns(X, np.array([-1]), rho=1.0)
    lo = Fraction(data_bounds.certified_lower(P, u))
    N = -Fraction(X[0, 0]) * Fraction(u[0]) - Fraction(u[1])  # u . y with y = -(x, rho), rho = 1
    Q = Fraction(u[0]) ** 2 + Fraction(u[1]) ** 2
    assert N < 0 and lo < 0 and lo * lo * Q >= N * N  # lo <= N / sqrt(Q) < 0
    assert lo * lo * Q <= N * N * (1 + Fraction(1, 10**6))  # and not far below


def test_exact_null_combination_rejects_what_is_not_a_combination():
    """Support {0, 1} of z = (1, 0), (0, 1): no c >= 0 sums them to 0 -> None; support {0, 2} with z_2 = (-2, 0):
    c = (2/3, 1/3); support {0, 3} with z_3 = (1, 1): inconsistent."""
    P = make_patterns(np.array([[1.0, 0.0], [0.0, 1.0], [-2.0, 0.0], [1.0, 1.0]]), np.array([1, 1, 1, 1]), rho=None)
    assert data_bounds._exact_null_combination(P, np.array([0, 1])) is None
    assert data_bounds._exact_null_combination(P, np.array([0, 2])) == (Fraction(2, 3), Fraction(1, 3))
    assert data_bounds._exact_null_combination(P, np.array([0, 3])) is None
    assert data_bounds._exact_null_combination(P, np.array([2, 0])) == (Fraction(1, 3), Fraction(2, 3))


def test_certified_bounds_are_tight_and_sound_on_closed_forms():
    """u = (1, 0) on z = (3, 4), (3, -4): min u.z / ||u|| = 3 exactly; beta = (1, 1): ||z_0 + z_1|| / 2 = 3.
    The certified floats bracket 3 within a few ulps, and a longer u (scale 2^40) gives the same."""
    P = make_patterns(np.array([[3.0, 4.0], [-3.0, 4.0]]), np.array([1, -1]), rho=None)
    for scale in (1.0, 2.0**40, 2.0**-40):
        lo = data_bounds.certified_lower(P, np.array([scale, 0.0]))
        assert 3 * (1 - 1e-14) <= lo <= 3
        up = data_bounds.certified_upper(P, np.array([scale, scale]))
        assert 3 <= up <= 3 * (1 + 1e-14)
    lo_n = data_bounds.certified_lower(P, np.array([1.0, 0.0]), normalize=True)  # normalized: 3/5
    assert 0.6 * (1 - 1e-14) <= lo_n <= 0.6
    up_n = data_bounds.certified_upper(P, np.array([0.2, 0.2]), normalize=True)  # beta_k ||z_k|| = 1: ||(1.2, 0)|| / 2 = 0.6
    assert 0.6 <= up_n <= 0.6 * (1 + 1e-14)
    assert data_bounds.certified_lower(P, np.array([0.0, 0.0])) == -np.inf  # u = 0 proves nothing
    neg = data_bounds.certified_lower(P, np.array([-1.0, 0.0]))  # min = -3
    assert -3 * (1 + 1e-14) <= neg <= -3


def test_exact_null_combination_refuses_negative_weights():
    """z_0 = (1, 0), z_1 = (2, 0) on one ray: c_0 + 2 c_1 = 0, c_0 + c_1 = 1 has the one solution (2, -1): no certificate."""
    P = make_patterns(np.array([[1.0, 0.0], [2.0, 0.0]]), np.array([1, 1]), rho=None)
    assert data_bounds._exact_null_combination(P, np.array([0, 1])) is None


def test_certified_lower_is_sound_under_cancellation():
    """y = (1e16, -1, -1e16), u = (1, 1, 1): float64 evaluates u . y = (1e16 - 1) - 1e16 = 0 (1e16 - 1 rounds to
    1e16), the exact value is -1.  The rounding allowance gamma |u| . |y| must cover it: lower <= -1 / sqrt(3)."""
    P = make_patterns(np.array([[1e16, -1.0, -1e16]]), np.array([1]), rho=None)
    u = np.array([1.0, 1.0, 1.0])
    assert float(P.matvec(u)[0]) == 0.0  # the cancellation happens
    lo = data_bounds.certified_lower(P, u)
    assert lo <= -1 / np.sqrt(3.0)


@pytest.mark.parametrize("name, X, y, u", LOWER_SUBNORMAL, ids=[c[0] for c in LOWER_SUBNORMAL])
def test_lower_bound_with_products_that_underflow(name, X, y, u):
    """certified_lower <= min_k u . y_k / ||u|| exactly where every product underflows and rounds up (ties),
    and not weaker than its allowance: exact - bound <= 4 (gamma_n |u|.|y_k| + n 2^-1074) / ||u|| + 4 * 2^-1074
    (the docstring's error bound gamma_{n} |u|.|y_k| with its safety factor 2, doubled again; n = nnz + 2).
    Caught: an absolute allowance of 2 / n 2^-1074, + 2^-1074 or no - 2^-1074, and - 1.0 at num = 0."""
    P = make_patterns(X, np.array(y), rho=None)
    b = data_bounds.certified_lower(P, u)
    N, Q = _exact_margin_parts(P, u)
    assert _at_most(b, N, Q), f"{name}: bound {b!r} above the exact margin"
    n = int(P.row_nnz()[0]) + 2
    gam = Fraction(n, 2**53) / (1 - Fraction(n, 2**53))
    A = sum(abs(Fraction(float(a)) * Fraction(float(x))) for a, x in zip(u, P.dense()[0]))
    slack = 4 * (gam * A + n * F_ETA)
    # exact - b <= slack / ||u|| + 4 eta  <=>  -(b + 4 eta) <= (slack - N) / ||u||
    assert _at_most(-(Fraction(b) + 4 * F_ETA), slack - N, Q), f"{name}: bound {b!r} weaker than its allowance"


def test_lower_bound_of_a_witness_whose_square_overflows_writes_no_warning():
    """u = (2^600, 2^-1000) cannot be scaled exactly (2^-1000 would leave the subnormal range), u . u overflows:
    the answer is -inf ("no claim") and nothing is written -- no RuntimeWarning (errstate(over=None) would
    let one through)."""
    P = make_patterns(np.array([[1.0, 1.0]]), np.array([1]), rho=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert data_bounds.certified_lower(P, np.array([2.0**600, 2.0**-1000])) == -math.inf


@pytest.mark.parametrize("bound", ["lower", "upper"])
def test_normalize_refuses_patterns_with_an_extended_space(bound):
    """One point x = 1 with Delta = 1: y = (1, 1).  Normalized (y / ||y||) the margin of one point is 1,
    but certified_lower(u = (1, 1), normalize=True) returned sqrt(2): it divided u . y (Delta
    coordinate included) by ||z|| = ||x|| = 1, a bound above the margin (a false claim), and
    certified_upper mixed the two spaces the same way.  RP14's normalized points have no extended
    space (margin_from_data refuses the combination): both refuse it, naming the fix."""
    P = make_patterns(np.array([[1.0]]), np.array([1]), rho=None, Delta=1.0)
    call = {"lower": lambda: data_bounds.certified_lower(P, np.array([1.0, 1.0]), normalize=True),
            "upper": lambda: data_bounds.certified_upper(P, np.array([1.0]), normalize=True)}[bound]  # fmt: skip
    with pytest.raises(ValueError, match=r"normalize=True .* no extended space.*Delta=1\.0.*Delta=None, or pass normalize=False"):
        call()
    # without normalize the same patterns are fine: ||y|| = sqrt(2) is the margin of one point
    lo, up = data_bounds.certified_lower(P, np.array([1.0, 1.0])), data_bounds.certified_upper(P, np.array([1.0]))
    assert Fraction(lo) ** 2 <= 2 <= Fraction(up) ** 2


@pytest.mark.parametrize("m", [21, 100])
def test_upper_bound_of_extended_coordinates_whose_squares_underflow(m):
    """x_1 = 1 (keeps the data at scale 1: nothing is rescaled), x_k = 0 else, Delta = 2^-537, beta =
    (0, 0.7, ..., 0.7): sum_k beta_k y_k = [0, Delta beta], so the bound is Delta ||beta|| / sum beta,
    squared 2^-1074 0.49 (m - 1) / (0.7 (m - 1))^2.  Each (Delta beta_k)^2 = 0.49 2^-1074 underflows
    to 0, and E had no absolute allowance for it: the bound came out 0.64 (m = 21) and 0.29 (m = 100)
    times the exact one (a false claim; fixed by + 2 (m + 1) 2^-1074 on E, as on the squares of W)."""
    X = np.zeros((m, 1))
    X[0, 0] = 1.0
    Delta = 2.0**-537
    P = make_patterns(X, np.ones(m, dtype=int), rho=None, Delta=Delta)
    beta = np.array([0.0] + [0.7] * (m - 1))
    assert (Delta * 0.7) ** 2 == 0.0  # the instance does what it is built for
    up = data_bounds.certified_upper(P, beta)
    num = sum((Fraction(Delta) * Fraction(b)) ** 2 for b in beta)
    den = sum(Fraction(b) for b in beta)
    assert Fraction(up) ** 2 * den**2 >= num


@pytest.mark.parametrize("top, e", [(3.0, 0), (1.0, 0), (0.5, 0), (0.75, 0), (0.375, -1), (2.0**-600, -599), (ETA2, -1073)])
def test_row_norm_bounds_scale_only_rows_below_one_half(top, e):
    """The documented exponents: a row whose largest |entry| is below 1/2 is scaled up into [1/2, 1)
    (e_k < 0), a row with a larger entry keeps e_k = 0 -- never scaled down (certified_lower relies on
    2^-e_k >= 1 to scale its numerators exactly; scaling rows with an entry >= 1 down by 2 is caught).  The bounds enclose the scaled row norm (row (top, -top): ||w||^2 = 2 top^2)."""
    P = make_patterns(np.array([[top, -top]]), np.array([1]), rho=None)
    lo, hi, ex = data_bounds._row_norm_bounds(P)
    assert ex.tolist() == [e]
    assert e == 0 or Fraction(1, 2) <= Fraction(top) / Fraction(2) ** e < 1
    norm_sq = 2 * Fraction(top) ** 2 / Fraction(4) ** e  # ||2^-e w||^2
    assert Fraction(float(lo[0])) ** 2 <= norm_sq <= Fraction(float(hi[0])) ** 2


def test_normalized_upper_bound_keeps_its_witness_when_it_cannot_be_moved_exactly():
    """z_1 = 2^-1070 e_1, z_2 = 2^-1070 e_2 (orthogonal), beta = (1/2, 0.3), normalized: the bound is
    ||beta|| / sum beta (both ||z_k|| equal), squared (1/4 + 0.3^2) / 0.8^2.  Moving beta onto the rows
    scaled up by 2^1069 would need beta_2 2^-1069, which is not a float (rounded: 0.3125 2^-1069): the
    witness must stay as given (moving it whenever a row is scaled would bound the quotient of
    (1/2, 0.3125) instead: below the exact value)."""
    P = make_patterns(np.ldexp(np.eye(2), -1070), np.array([1, 1]), rho=None)
    beta = np.array([0.5, 0.3])
    assert np.ldexp(np.ldexp(beta[1], -1069), 1069) != beta[1]  # the instance does what it is built for
    up = data_bounds.certified_upper(P, beta, normalize=True)
    assert Fraction(up) ** 2 * (Fraction(0.5) + Fraction(0.3)) ** 2 >= Fraction(0.5) ** 2 + Fraction(0.3) ** 2


@pytest.mark.parametrize("x, Delta", [(2.0**-700, 2.0**-700), (3 * 2.0**-900, 2.0**-899), (2.0**-40, 2.0**-40)])
def test_upper_bound_of_tiny_data_in_the_extended_space(x, Delta):
    """One pattern y = [x, Delta] with beta = 1: the bound is ||y||, squared x^2 + Delta^2.  Tiny data
    are scaled up by one power of two before the sums: Delta with them, by the same power (caught:
    Delta dropped, ldexp called wrongly (TypeError), Delta scaled down instead of up)."""
    P = make_patterns(np.array([[x]]), np.array([1]), rho=None, Delta=Delta)
    up = data_bounds.certified_upper(P, np.array([1.0]))
    assert Fraction(up) ** 2 >= Fraction(x) ** 2 + Fraction(Delta) ** 2


@pytest.mark.parametrize("d0", [1, 3])
def test_upper_bound_of_columns_whose_squares_underflow(d0):
    """Patterns z_1 = 2^-537 (1, ..., 1) (d0 columns) and z_2 = e_1 (keeps the data at scale 1: nothing is
    rescaled), beta = (1, 0): the bound is ||z_1||, squared d0 2^-1074.  certified_upper halves beta
    (exact), so each column sum is 2^-538 and its square 2^-1076 underflows to 0: only the absolute
    allowance 2 (d0 + 1) 2^-1074 on the sum of squares keeps the bound above ||z_1|| (caught: - allowance,
    the square root of a negative number; 2 (d0 - 1), 0 for d0 = 1; 2 / (d0 + 1), where 2^-1075 rounds to
    0 for d0 = 3)."""
    X = np.zeros((2, d0))
    X[0] = 2.0**-537
    X[1, 0] = 1.0
    P = make_patterns(X, np.array([1, 1]), rho=None)
    up = data_bounds.certified_upper(P, np.array([1.0, 0.0]))
    assert Fraction(up) ** 2 >= d0 * Fraction(2) ** -1074


@pytest.mark.parametrize("a", [12, 8])
def test_upper_bound_whose_normalized_denominator_underflows_claims_nothing_false(a):
    """Two one-feature points z_1 = a 2^-1074, z_2 = 2^-1074 (label 1), normalized, beta = (1/2, 3/8):
    every z_k points the same way, so ||sum beta_k z_k|| / sum beta_k ||z_k|| = 1 exactly.  beta cannot
    be moved onto the rows scaled to [1/2, 1) (3/8 2^-1073 is not a float), so the denominator
    sum_k beta_k ||z_k|| is formed at 2^-1074 scale: 6 2^-1074 for a = 12, 4 2^-1074 for a = 8, and
    its allowance 2 (m + 1) 2^-1074 = 6 2^-1074 takes it to 0 or below.  No claim can be made then
    (inf); dividing by it gave a negative "upper bound" (a = 8) or ZeroDivisionError (a = 12)."""
    P = make_patterns(np.array([[a * ETA2], [ETA2]]), np.array([1, 1]), rho=None)
    up = data_bounds.certified_upper(P, np.array([0.5, 0.375]), normalize=True)
    assert up >= 1


@pytest.mark.parametrize("bound", ["lower", "upper"])
def test_normalize_with_delta_names_the_fix(bound):
    """The ValueError for normalize=True on patterns with Delta ends with the two ways out, verbatim
    (a changed word in it is caught)."""
    P = make_patterns(np.array([[1.0]]), np.array([1]), rho=None, Delta=1.0)
    call = {"lower": lambda: data_bounds.certified_lower(P, np.array([1.0, 1.0]), normalize=True),
            "upper": lambda: data_bounds.certified_upper(P, np.array([1.0]), normalize=True)}[bound]  # fmt: skip
    with pytest.raises(ValueError) as err:
        call()
    assert re.search(r"Delta=1\.0; make them with Delta=None, or pass normalize=False for PT11's gamma_d$", str(err.value))


def test_certified_lower_reads_integer_witness_as_float64():
    """certified_lower casts u to float64 before u . u: an int64 u with u . u >= 2^63 would wrap around
    (u = (2^40, 0): u . u = 2^80 = 0 mod 2^64) and the bound would be computed from a wrong ||u||.
    The exact value is min u.z / ||u|| = 3 for z = (3, 4), (3, -4)."""
    P = make_patterns(np.array([[3.0, 4.0], [-3.0, 4.0]]), np.array([1, -1]), rho=None)
    for u in (np.array([2**40, 0]), np.array([3_037_000_500, 0]), np.array([-(2**40), 0])):
        lo = data_bounds.certified_lower(P, u)
        true = 3.0 if u[0] > 0 else -3.0
        assert true * (1 + 1e-14 * np.sign(-true)) <= lo <= true, (u, lo)
