"""Tests of reference/margins/bounds.py: the certified bounds on m(K) -- lower bounds from a witness
alpha, upper bounds from a point p of the simplex, their a-priori round-off allowances at every scale
(underflow, overflow, cancellation), the exact lower bound, the exact facet distance, and the
certificate that the origin is inside a simplex of span points."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from reference import gram
from reference.arithmetic import Arithmetic
from reference.data import check_gram
from reference.exact import exact_det, exact_matvec, margin_witness_value, ratio_at_least, rational
from reference.margins import (
    bounds,
    driver,
    facets,
    lower_bound,
    margin,
    matrix,
    min_norm_point,
    search,
    upper_bound,
)
from reference.margins.bounds import _affine_distance2_exact
from tests.support.margin import (
    ETA,
    MP,
    U,
    _at_least,
    _at_most,
    _exact_quotient,
    _gram,
    _indefinite_2_2_psd_matrix,
    _instance,
    _integer_instances,
    _lower_holds,
    _no_a_priori_bounds,
    _upper_holds,
    gram_of,
    raises_ending,
    raises_starting,
)


def _ratio_sq(value, N, Q):
    """value^2 Q / N^2 in exact rationals (value = N / sqrt(Q) exactly iff this is 1)."""
    return Fraction(value) ** 2 * Fraction(Q) / Fraction(N) ** 2


def _exact_lower(K, alpha, precision):
    _, Km, ar = matrix._prepare(np.asarray(K, dtype=np.float64), precision)
    with ar.context():
        return bounds._exact_lower(Km, ar.array(alpha) if ar.is_mp else np.asarray(alpha, dtype=np.float64), ar), ar


# K = diag(1, [[0, -d], [-d, 0]]) with d = 2^-27: eigenvalues 1, +-d.  It is not PSD, but
# check_gram accepts it even with the full eigenvalue test (-d = -7.5e-9 >= -1e-8 n max(1, max|K|)),
# so lower_bound must certify min(K alpha) / sqrt(alpha^T K alpha) on it as on any accepted K (its
# allowances never assume PSD; verify_margin_exact checks the lower witness the same way).
_D = 2.0**-27


_K_INDEFINITE = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -_D], [0.0, -_D, 0.0]])


def _check_lower(K, alpha, precision=None):
    """lower_bound(K, alpha) is finite, negative and <= the exact quotient min(K alpha)/||alpha||_K."""
    lb = lower_bound(K, alpha, precision=precision)
    N, Q = margin_witness_value(K, alpha)
    assert Q > 0 and N < 0
    assert -np.inf < lb < 0 and ratio_at_least(N, Q, rational(lb)), (alpha, lb)


def _ordinary_gram():
    Z = np.array([[3.0, 1.0], [2.0, -1.0], [1.0, 2.5]]) / 4
    return Z @ Z.T  # largest entry 0.625: not scaled itself


def test_witness_bounds_at_precision_use_the_exact_witness():
    """K = I, alpha = (1, 1/3): min(K alpha)/||alpha|| = (1/3)/sqrt(10/9) = 1/sqrt(10); the
    witness 1/3 must be used at 50 digits, not rounded to float64 (error ~1e-17)."""
    with MP.context():
        third = mpmath.mpf(1) / 3
        alpha = MP.array([1.0, third])
        true = 1 / mpmath.sqrt(10)
        lo = lower_bound(np.eye(2), alpha, precision=50)
        up = upper_bound(np.eye(2), alpha, precision=50)  # ||p|| / 1^T p = sqrt(10)/3 / (4/3)
        assert isinstance(lo, mpmath.mpf) and isinstance(up, mpmath.mpf)
        assert lo <= true and true - lo < mpmath.mpf(10) ** -45
        assert up >= mpmath.sqrt(10) / 4 and up - mpmath.sqrt(10) / 4 < mpmath.mpf(10) ** -45


def test_witnesses_reproduce_the_bounds():
    rng = np.random.default_rng(8)
    Z = np.column_stack([rng.uniform(0.2, 1, 10), rng.standard_normal((10, 2))])
    K = gram_of(Z)
    m = margin(K)
    assert lower_bound(K, m.alpha) == m.lower
    assert upper_bound(K, m.p) == m.upper
    assert np.all(m.p >= 0) and abs(m.p.sum() - 1) <= 1e-12
    assert m.support == tuple(np.flatnonzero(m.p > 0))
    # the lower bound is a function of the witness: perturbing it can only lower it here
    alpha = m.alpha + 1e-3 * rng.standard_normal(10)
    assert lower_bound(K, alpha) < m.lower
    # ... and any simplex point gives a (weaker) upper bound  [Lemma 3]
    assert upper_bound(K, np.full(10, 0.1)) > m.upper


def test_value_errors_witness_helpers():
    K = np.eye(3)
    with pytest.raises(ValueError, match="alpha"):
        lower_bound(K, np.ones(2))
    with pytest.raises(ValueError, match="alpha"):
        lower_bound(K, np.array([1.0, np.inf, 0.0]))
    with pytest.raises(ValueError, match="nonnegative"):
        upper_bound(K, np.array([1.0, -0.5, 0.5]))
    with pytest.raises(ValueError, match="max_iter"):
        min_norm_point(K, max_iter=-1)


def test_public_bounds_scale_like_margin():
    """lower_bound / upper_bound take any K: the same scaling.  On [[1e-310]] with alpha = p = 1
    the exact quotient is sqrt(1e-310); lower_bound exceeded it.  A huge K (entries 2^1022) gave
    an overflowing symmetrization; now both bounds bracket the closed form exactly."""
    T = Fraction(1e-310)
    assert _at_most(lower_bound([[1e-310]], [1.0]), 1, T)
    assert _at_least(upper_bound([[1e-310]], [1.0]), 1, T)
    K, sign, T, _ = _instance("obtuse pair", 2.0**1021)
    assert _at_most(lower_bound(K, [1.0, 1.0]), 1, T) and _at_least(upper_bound(K, [1.0, 1.0]), 1, T)
    assert upper_bound(K, [1.0, 1.0]) - lower_bound(K, [1.0, 1.0]) <= 1e-12 * math.sqrt(float(T))


def test_handled_overflows_emit_no_runtime_warning():
    """Overflows that are handled (no claim, or a ValueError naming the input) stay silent: a
    witness too large to scale exactly (alpha = (2^1000, -2^-1074)), a Gram matrix near 1e308, and
    gram() of two tiny parallel points under the unscaled polynomial kernel."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo = lower_bound(np.eye(2), np.array([2.0**1000, -(2.0**-1074)]))
        assert lo == -math.inf or ratio_at_least(*margin_witness_value(np.eye(2), [2.0**1000, -(2.0**-1074)]), rational(lo))
        m = margin(np.array([[2.0**1023, -(2.0**1022)], [-(2.0**1022), 2.0**1023]]))
        assert m.feasible is True
        with pytest.raises(ValueError, match="gram overflowed"):
            gram(np.array([[1e-160], [1e-160]]), [1, 1], "polynomial", degree=1, c=0.0)


def test_unit_roundoff():
    assert bounds._unit_roundoff(Arithmetic(None)) == 2.0**-53
    ar = Arithmetic(30)
    with ar.context():
        assert 10.0**-31 < float(bounds._unit_roundoff(ar)) <= 10.0**-29


@pytest.mark.parametrize("sign", [1, -1])
def test_lower_factor_alone_keeps_the_bound_below(monkeypatch, sign):
    _no_a_priori_bounds(monkeypatch)
    ar = Arithmetic(None)
    u = 2.0**-53
    for K, alpha in _integer_instances(300, seed=11 + sign, sign=sign):
        N, Q = float(np.min(K @ alpha)), float(alpha @ K @ alpha)
        lo = bounds._lower(K, alpha, ar)
        r = _ratio_sq(lo, N, Q)  # lo / exact, squared (the sign cancels)
        # lower bound: lo <= N / sqrt(Q); for N > 0 that is r <= 1, for N < 0 it is r >= 1
        if sign > 0:
            assert (1 - 24 * u) ** 2 <= r <= 1, f"_lower(K={K.tolist()}, alpha={alpha.tolist()}) = {lo!r}: ratio^2 {float(r)}"
        else:
            assert 1 <= r <= (1 + 24 * u) ** 2, f"_lower(K={K.tolist()}, alpha={alpha.tolist()}) = {lo!r}: ratio^2 {float(r)}"


@pytest.mark.parametrize("precision", [None, 30])
def test_lower_bound_is_below_the_exact_quotient_at_every_scale(precision):
    """lower_bound(K, c alpha) bounds min(K alpha)/||alpha||_K (scale-free) from below for every
    c = 2^k: also when min(K alpha) <= 1, where the positive branch must still be taken (mutant
    ``N_lo > 1`` sent 0 < N_lo <= 1 to the negative branch, whose 1 + 8u and sqrt(Q - eQ) push a
    positive quotient *up*, above the exact value)."""
    cases = [
        (np.eye(2), [1.0, 1.0]),  # exact value 1/sqrt(2)
        (np.array([[2.0, 1.0], [1.0, 2.0]]), [1.0, 1.0]),  # sqrt(3/2)
        (np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 5.0]]), [1.0, 2.0, 1.0]),
    ]
    for K, alpha in cases:
        for k in range(-40, 41, 5):
            a = [x * 2.0**k for x in alpha]  # exact scaling
            lo = bounds.lower_bound(K, a, precision=precision)
            N, Q = _exact_quotient(K, a)
            assert N > 0 and lo > 0, (K.tolist(), a, lo)
            assert rational(lo) ** 2 * Q <= N * N, f"lower_bound(K={K.tolist()}, alpha={a}) = {lo} exceeds N/sqrt(Q)"


@pytest.mark.parametrize("precision", [None, 30, 50])
def test_exact_lower_is_the_quotient_rounded_down(precision):
    """Closed-form instances with Q > 1, Q = 1/2 (a denominator) and Q < 1: the result is
    N/sqrt(Q) rounded down -- never above it (exact check), and within a few hundred units of
    round-off of it.  Mutants computing N * sqrt(Q) (gives None, or a value far too small) or
    sqrt(Q.numerator * Q.denominator) fail."""
    cases = [
        (np.eye(2), [1.0, 1.0]),  # N = 1, Q = 2: 1/sqrt(2)
        (np.eye(2), [0.5, 0.5]),  # N = 1/2, Q = 1/2: 1/sqrt(2)
        (np.eye(2), [0.25, 0.125]),  # N = 1/8, Q = 5/64: 1/sqrt(5)
        (np.array([[2.0, 1.0], [1.0, 2.0]]), [1.0, 1.0]),  # N = 3, Q = 6: sqrt(3/2)
        (np.array([[4.0]]), [3.0]),  # N = 12, Q = 36: exactly 2
    ]
    for K, alpha in cases:
        c, ar = _exact_lower(K, alpha, precision)
        N, Q = _exact_quotient(K, alpha)
        assert c is not None and c > 0, (K.tolist(), alpha, c)
        c = rational(c)
        assert c * c * Q <= N * N, f"_exact_lower(K={K.tolist()}, alpha={alpha}) = {float(c)} exceeds N/sqrt(Q)"
        tol = 1000 * (U if precision is None else Fraction(1, 10**precision))
        assert (c / (1 - tol)) ** 2 * Q >= N * N, f"_exact_lower(K={K.tolist()}, alpha={alpha}) = {float(c)} is not N/sqrt(Q) rounded down"


def test_exact_lower_never_exceeds_the_quotient_when_float64_underflows():
    """K = [[3 * 2^-1074]] (a subnormal Gram matrix), alpha = [0.5000001]: float(N) and float(Q)
    round by ~33 %, so the first float estimate of N/sqrt(Q) = sqrt(K_11) is 15 % too high.  The
    exact confirmation must then refuse it (None: not certified) rather than return it (mutant
    ``c > 0 or ratio_at_least(...)`` returned it unchecked)."""
    K, alpha = np.array([[3 * 2.0**-1074]]), [0.5000001]
    c, _ = _exact_lower(K, alpha, None)
    N, Q = _exact_quotient(K, alpha)
    assert N > 0
    assert c is None or (c > 0 and rational(c) ** 2 * Q <= N * N), c


def test_exact_lower_returns_a_positive_bound_or_none():
    """min(K alpha) = 2^-1200 > 0, below the smallest float64: the quotient rounds down to 0.0, which
    certifies nothing (margin() reads the value as ``lower > 0``, feasible=True).  The answer must
    be None or positive; mutants ``c >= 0`` / ``c > 0 or ...`` returned 0.0."""
    K, alpha = np.diag([1.0, 2.0**-600]), [1.0, 2.0**-600]
    N, Q = _exact_quotient(K, alpha)
    assert N == Fraction(1, 2**1200) and Q > 0
    c, _ = _exact_lower(K, alpha, None)
    assert c is None or c > 0, c


def test_precision_mode_takes_integer_and_float32_coefficients_exactly():
    """Precision mode converts int64 / float32 / Fraction coefficients (it raised TypeError: mpf takes
    no numpy scalars) and keeps a Python int wider than float64 exact, also beside a float:
    alpha = (2^60 + 1, 1/2) on K = I has quotient (1/2)/sqrt((2^60+1)^2 + 1/4); rounding alpha to
    float64 first (2^60, 1/2) -- what numpy's dtype inference does to the mixed list -- would give
    a 'lower bound' above it by ~2^-60, far beyond the 30-digit allowance."""
    K = np.eye(2)
    for alpha in (np.array([1, 1]), [np.int64(1), 1], np.array([1, 1], dtype=np.float32), [Fraction(1), 1]):
        lo, hi = bounds.lower_bound(K, alpha, precision=30), bounds.upper_bound(K, alpha, precision=30)
        assert rational(lo) ** 2 * 2 <= 1 <= rational(hi) ** 2 * 2  # the exact value is 1/sqrt(2)
    big = [2**60 + 1, 0.5]
    lo = bounds.lower_bound(K, big, precision=30)
    N, Q = _exact_quotient(K, [Fraction(2**60 + 1), Fraction(1, 2)])
    assert lo > 0 and rational(lo) ** 2 * Q <= N * N, lo


def test_lower_bound_covers_the_rounding_of_a_cancelling_quadratic_form_in_float64():
    """alpha = (1, t, t), t = 2^13 (1 - x): K alpha = (1, -d t, -d t) has no cancellation in any row,
    but alpha^T K alpha = 1 - 2^-26 t^2 = 2x - x^2 (~k 2^-33) cancels: fl(t (K alpha)_2) ~ -1/2 is off
    by up to 2^-54, up to 2^-21 / k of Q.  Only the g |alpha| . |fl(K alpha)| part of eQ covers that; without it
    (eQ = 2 (|a| . e - g |a| . |fl(K a)|), which is ~0 when no row cancels) the
    negative bound N_lo / sqrt(fl(Q) - eQ) is above the exact quotient for every x here (fl(Q) > Q)."""
    check_gram(_K_INDEFINITE, unit_diagonal=False, psd=True)  # an accepted input
    for k in range(1, 9):
        x = k * 2.0**-34 + k * 2.0**-60
        _check_lower(_K_INDEFINITE, np.array([1.0, 2.0**13 * (1 - x), 2.0**13 * (1 - x)]))


@pytest.mark.parametrize("dps", [20, 30, 50])
def test_lower_bound_covers_the_rounding_of_a_cancelling_quadratic_form_in_precision_mode(dps):
    """As above at ``dps`` digits, alpha's entries mpf at that precision (stored exactly): the
    rounding of the working precision (u = 10^-dps) in t (K alpha)_2 is what eQ must cover (the
    mutant's bound is false for 4 to 7 of the 12 t at each dps)."""
    check_gram(_K_INDEFINITE, unit_diagonal=False, psd=True)
    for k in range(1, 13):
        with mpmath.workdps(dps):
            t = mpmath.mpf(2) ** 13 * (1 - mpmath.mpf(k) / 3 * mpmath.mpf(10) ** -9)
        _check_lower(_K_INDEFINITE, np.array([mpmath.mpf(1), t, t], dtype=object), precision=dps)


def test_tiny_negative_quotient_keeps_its_absolute_allowance():
    """alpha = (2^60, -2^-1074) on I_2 cannot be scaled exactly (its small entry would vanish):
    (K alpha)_2 = -2^-1074 and ||alpha||_K = 2^60, so the exact quotient is -2^-1134, which rounds
    to -0.0; the bound must still be below it (the 2 eta of _below_normal), not -0.0."""
    K, alpha = np.eye(2), np.array([2.0**60, -ETA])
    lb = lower_bound(K, alpha)
    assert lb < 0 and _lower_holds(K, alpha, lb)


def test_positive_quotient_below_the_normal_range():
    """K = diag(1, 2^-1060), alpha = (1, 1): min(K alpha) / ||alpha||_K = 2^-1060 / sqrt(1 + 2^-1060),
    below the normal range: a positive lower bound at most that (the direction of _below_normal)."""
    K, alpha = np.diag([1.0, 2.0**-1060]), np.array([1.0, 1.0])
    lb = lower_bound(K, alpha)
    assert 0 < lb <= 2.0**-1060 and _lower_holds(K, alpha, lb)


def test_lower_bound_covers_underflowing_products_of_the_quadratic_form():
    """K = diag(1, 2^-1060), alpha = (2^-530, 1): alpha_1 (K alpha)_1 = 2^-1060 is subnormal, so
    ||alpha||_K^2 = 2^-1059 carries the absolute allowance 4 (n + 1) eta; without it (or with its
    sign flipped) the quotient sqrt(2^-1061) is overestimated."""
    K, alpha = np.diag([1.0, 2.0**-1060]), np.array([2.0**-530, 1.0])
    lb = lower_bound(K, alpha)
    assert lb > 0 and _lower_holds(K, alpha, lb)


def test_lower_bound_covers_a_square_that_underflows_in_the_quadratic_form():
    """K = diag(2^-1060, 1), alpha = (1/2, 0.7 2^-537): alpha_2^2 = 0.49 2^-1074 rounds to 0, so
    fl(||alpha||_K^2) = 2^-1062 is below the exact 2^-1062 + 0.49 2^-1074; only the absolute
    allowance 4 (n + 1) eta of the quadratic form covers it (subtracting it instead gives a lower bound
    0.3 % above the exact quotient)."""
    K, alpha = np.diag([2.0**-1060, 1.0]), np.array([0.5, 0.7 * 2.0**-537])
    lb = lower_bound(K, alpha)
    assert lb > 0 and _lower_holds(K, alpha, lb)


def test_lower_bound_is_exactly_zero_for_an_exact_zero_quotient():
    """K = diag(1, 0) (the second point is the origin), alpha = e_1: min(K alpha) = 0 is computed
    exactly (no product rounds), so the quotient 0 / ||alpha||_K = 0 is exact: lower = 0, the
    margin of a hull with the origin as a vertex, not a subnormal below it."""
    K = np.diag([1.0, 0.0])
    assert lower_bound(K, [1.0, 0.0]) == 0.0
    m = margin(K)
    assert m.lower == 0.0 == m.upper  # m(K) = 0 exactly: 0 is a point of the hull, on its boundary


def test_no_claim_is_a_float_in_float64_mode():
    """alpha = (1, -1) on two equal points has ||alpha||_K = 0: lower = -inf, a plain float in float64
    mode (as every other result) and an mpf at D digits."""
    K, alpha = np.ones((2, 2)), [1.0, -1.0]
    lb = lower_bound(K, alpha)
    assert lb == -math.inf and type(lb) is float
    lb = lower_bound(K, alpha, precision=30)
    assert lb == -math.inf and isinstance(lb, mpmath.mpf)


def test_overflowing_witness_gives_no_warning_and_no_claim():
    """Regression (found on this round): alpha = (1.5 2^1023, 1.5 2^1023, -2^-1074) on the all-ones K
    (not exactly scalable): K alpha and its allowance both overflow, and the finiteness test
    computed inf - inf outside the errstate -- a RuntimeWarning for a handled case."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lower_bound(np.ones((3, 3)), np.array([1.5 * 2.0**1023, 1.5 * 2.0**1023, -ETA])) == -math.inf
        assert upper_bound(np.eye(2), np.array([2.0**1000, ETA])) == math.inf


def test_lower_bound_is_finite_when_only_the_upper_allowance_overflows():
    """K = diag(max float, 2^-1022) (not scalable: its small entry must stay normal), alpha =
    (1 - 2^-53, -1/2): (K alpha)_1 is one ulp below the largest float, so (K alpha)_1 + e_1
    overflows, but (K alpha)_1 - e_1, ||alpha||_K^2 and its allowance are finite: ||alpha||_K is
    certified positive and the docstring's -inf ("not certified positive") does not apply."""
    K = np.diag([np.finfo(np.float64).max, 2.0**-1022])
    alpha = np.array([1 - 2.0**-53, -0.5])
    lb = lower_bound(K, alpha)
    assert -math.inf < lb <= 0 and _lower_holds(K, alpha, lb)


def test_public_bounds_of_a_subnormal_one_by_one_matrix_are_tight():
    """K = [[2^-1070]]: m(K) = 2^-535 exactly.  On the scaled 4^-k K both bounds are within the
    relative width of an ordinary 1 x 1 matrix (1e-13); unscaled, the absolute allowances of the
    subnormal products would make the lower bound ~0."""
    T = 2.0**-535
    lb, ub = lower_bound([[2.0**-1070]], [1.0]), upper_bound([[2.0**-1070]], [1.0])
    assert T * (1 - 1e-13) <= lb <= T <= ub <= T * (1 + 1e-13)


def test_times_pow2_estimate_rounds_to_nearest():
    """toward=0 (the estimate) rounds to nearest: 1.75 2^-1074 -> 2^-1073, 1.25 2^-1074 -> 2^-1074,
    -1.75 2^-1074 -> -2^-1073; the directed modes go down / up."""
    ar = Arithmetic(None)
    assert bounds._times_pow2(1.75, -1074, ar) == 2 * ETA
    assert bounds._times_pow2(1.25, -1074, ar) == ETA
    assert bounds._times_pow2(-1.75, -1074, ar) == -2 * ETA
    assert bounds._times_pow2(1.75, -1074, ar, toward=-1) == ETA
    assert bounds._times_pow2(1.25, -1074, ar, toward=1) == 2 * ETA


def test_below_normal_leaves_normal_and_mpmath_quotients_alone():
    """_below_normal moves only a float64 quotient below 2^-1021: 2^-1021 itself (ulp 2^-1073, so
    a shift by 2 eta would show) and an mpf are returned as they are; 2^-1022 is moved."""
    ar = Arithmetic(None)
    assert bounds._below_normal(2.0**-1021, ar, -1) == 2.0**-1021
    assert bounds._below_normal(-(2.0**-1021), ar, 1) == -(2.0**-1021)
    assert bounds._below_normal(2.0**-1022, ar, -1) == 2.0**-1022 - 2 * ETA
    mp = Arithmetic(30)
    with mp.context():
        x = mpmath.mpf(2) ** -1100
        assert bounds._below_normal(x, mp, -1) == x and bounds._below_normal(-x, mp, 1) == -x


def test_subnormal_positive_quotient_without_underflowing_products_rounds_down():
    """K = diag(2^-1019, 2^102), alpha = (1, 1): every product K_ij alpha_j is normal (no underflow
    allowance), min(K alpha) = 2^-1019 and ||alpha||_K ~ 2^51, so the exact quotient is just below
    2^-1070 -- deep in the subnormals, where a quantum (2^-1074) is 1/16 of it and the relative
    allowances round away: the computed quotient rounds to 2^-1070 itself, above the exact value.
    Only _below_normal's move by 2 eta *down* keeps the bound below it (moved up, it is a false
    claim)."""
    K, alpha = np.diag([2.0**-1019, 2.0**102]), np.array([1.0, 1.0])
    N, Q = margin_witness_value(K, alpha)
    assert N == Fraction(1, 2**1019) and Q == Fraction(1, 2**1019) + 2**102  # no product underflows
    assert bounds._underflow(np.abs(K), alpha, Arithmetic(None)) == 0
    lb = lower_bound(K, alpha)
    assert 0 < lb < 2.0**-1070 and _lower_holds(K, alpha, lb)
    lo = bounds._lower(K, alpha, Arithmetic(None))  # unscaled (lower_bound works on 4^-1 K here)
    assert 0 < lo < 2.0**-1070 and _lower_holds(K, alpha, lo)


@pytest.mark.parametrize("j", [40, 100, 500, -40, -100, -500])
def test_bounds_of_4_to_the_j_times_k_are_2_to_the_j_times_the_bounds_of_k(j):
    """m(4^j K) = 2^j m(K), and so for both certificates' quotients  [definition of m(K); RP14
    Lemma 3].  4^j K (j != 0 here) is scaled back to K exactly (its largest entry leaves [2^-64,
    2^64)), every rounding is the same, and the bounds come back times 2^j exactly -- in the
    normal range a power-of-two product is exact, so no directed rounding may move them."""
    K, alpha, p = _ordinary_gram(), np.array([0.3, 0.5, 0.2]), np.array([1.0, 2.0, 3.0])
    Kj = np.ldexp(K, 2 * j)
    assert lower_bound(Kj, alpha) == math.ldexp(lower_bound(K, alpha), j)
    assert upper_bound(Kj, p) == math.ldexp(upper_bound(K, p), j)
    m, mj = margin(K), margin(Kj)
    assert m.feasible is True and mj.feasible is True
    assert (mj.lower, mj.value, mj.upper) == tuple(math.ldexp(v, j) for v in (m.lower, m.value, m.upper))
    # at 30 digits the scaling is exact in mpmath (mpmath.ldexp)
    lo, hi = lower_bound(K, alpha, precision=30), upper_bound(K, p, precision=30)
    assert lower_bound(Kj, alpha, precision=30) == mpmath.ldexp(lo, j)
    assert upper_bound(Kj, p, precision=30) == mpmath.ldexp(hi, j)


@pytest.mark.parametrize(
    "B, v, e",
    [
        ([[1.25, -1.0, 0.0], [-1.0, 1.25, 0.0], [0.0, 0.0, 1.0]], [0.78, -0.21, -0.41], -535),  # B PSD
        ([[1.25, 1.0, 1.5], [1.0, 1.25, 1.0], [1.5, 1.0, 2.0]], [-0.57, -0.74, -0.02], -535),
    ],
)
def test_lower_bound_covers_subnormal_products_of_a_tiny_quadratic_form(B, v, e):
    """K = diag(0, B) (the first point is the origin), alpha = (1/2, 2^e v): the big entry of alpha
    meets a zero row, so (K alpha)_1 = 0 and min(K alpha) = 2^e min(B v) < 0, while
    ||alpha||_K^2 = 2^(2e) v^T B v is a few 2^-1074: each product alpha_j (K alpha)_j of the
    quadratic form is a few quanta of the subnormal range and rounds by up to 2^-1075, a relative
    error of tens of per cent in alpha^T K alpha.  No product of K alpha underflows (e's
    allowance is relative only) and alpha . e is ~0, so the absolute term 4 (n + 1) eta of eQ alone
    keeps sqrt(fl(Q) - eQ) at or below the exact ||alpha||_K (with 4 / (n + 1) eta the negative
    bound is above the exact quotient).  (Here fl(Q) > eQ, ||alpha||_K^2 ~ 21 and 32 2^-1074, so the
    bound is finite; a larger absolute allowance may give -inf, no claim, which is not asserted
    against: only the side of the exact value is.)"""
    K = np.zeros((4, 4))
    K[1:, 1:] = B
    alpha = np.concatenate([[0.5], np.ldexp(np.array(v), e)])
    N, Q = margin_witness_value(K, alpha)
    assert N < 0 < Q < 64 * ETA  # the quadratic form is a few subnormal quanta
    assert bounds._underflow(np.abs(K), np.abs(alpha), Arithmetic(None)) == 0  # K alpha: no product underflows
    lb = lower_bound(K, alpha)
    assert lb < 0 and _lower_holds(K, alpha, lb)


@pytest.mark.parametrize("c", [1.3, 1.4, 1.9])
def test_lower_bound_below_the_smallest_normal_rounds_down(c):
    """K = 2^-1074 I (scaled by 4^537), alpha = (1, c 2^-500): min(K alpha) / ||alpha||_K ~ c 2^-1037
    exactly; the bound computed on 4^-k K (normal there) times 2^k is subnormal and inexact: it
    must round down, not to nearest (which lands above the exact value for these c) nor up."""
    K, alpha = np.diag([ETA, ETA]), np.array([1.0, c * 2.0**-500])
    lb = lower_bound(K, alpha)
    assert 0 < lb < 2.0**-1022 and _lower_holds(K, alpha, lb)


def test_exact_lower_refuses_a_witness_of_zero_K_norm():
    """alpha with K alpha > 0 but ||alpha||_K = 0 (K not PSD): there is no alpha / ||alpha||_K to
    take the quotient at, so _exact_lower certifies nothing (None), it does not divide by 0."""
    K = _indefinite_2_2_psd_matrix(5)
    alpha = np.array([-6.0, -6.0, -6.0, -2.0, 4.0])
    Ka = [2 * Fraction(a) - sum(Fraction(b) for b in alpha) for a in alpha]  # (2I - 11^T) alpha
    assert Ka == [4, 4, 4, 12, 24] and sum(Fraction(a) * k for a, k in zip(alpha, Ka)) == 0
    check_gram(K, unit_diagonal=False, name="K")  # admitted as a Gram matrix
    assert bounds._exact_lower(K, alpha, Arithmetic(None)) is None
    ar = Arithmetic(30)
    with ar.context():
        assert bounds._exact_lower(ar.array(K), ar.array(alpha), ar) is None


def test_witness_is_not_scaled_down_when_an_entry_would_lose_bits():
    """alpha = (2^1000, -2^-1074), K = I: min(K alpha)/||alpha||_K = -2^-2074 < 0.  Scaling alpha by
    2^-1000 would flush the second entry to -0 and certify the false lower bound 0; the witness is
    scaled only when the scaling is exact, and the bound must stay <= the exact value."""
    lo = bounds.lower_bound(np.eye(2), np.array([2.0**1000, -(2.0**-1074)]))
    assert lo == -np.inf or Fraction(lo) <= -Fraction(2) ** -2074, lo


def test_witness_helpers_name_the_argument():
    K = np.eye(3)
    with raises_starting("alpha must be a vector of length 3 (one entry per point), got shape (2,)"):
        lower_bound(K, np.ones(2))
    with raises_starting("alpha must be a vector of length 3 (one entry per point), got shape (1, 3)"):
        lower_bound(K, np.ones((1, 3)))
    with raises_starting("p must be a vector of length 3 (one entry per point), got shape (4,)"):
        upper_bound(K, np.ones(4))
    with raises_starting("p contains NaN or inf; pass finite coefficients"):
        upper_bound(K, np.array([1.0, np.nan, 0.0]))
    with raises_ending("p must be nonnegative and nonzero (a point of the simplex, up to scaling)"):
        upper_bound(K, np.zeros(3))
    with raises_starting("max_iter must be an integer >= 1, got 0"):
        min_norm_point(K, max_iter=0)
    assert min_norm_point(K, max_iter=1).iterations == 1  # one cycle is a valid budget


def test_upper_bound_of_a_witness_whose_products_underflow():
    """p = (1e300, 1e-300) on K = diag(0, 1): ||p||_K / 1^T p = 1e-600 > 0, but p^T K p underflows to 0
    (and p cannot be scaled exactly): the bound was 0 < the exact value.  Now the smallest
    subnormals' allowance keeps it above."""
    K, p = np.diag([0.0, 1.0]), np.array([1e300, 1e-300])
    up = upper_bound(K, p)
    P = [rational(v) for v in p]
    Q = sum(a * b for a, b in zip(P, exact_matvec(K, p)))
    assert Q > 0 and rational(up) ** 2 * sum(P) ** 2 >= Q
    assert 0 < up <= 1e-322  # the allowance, not a large number


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
        hi = bounds._upper(K, p, ar)
        r = Fraction(hi) ** 2 * Fraction(s) ** 2 / Fraction(Q)  # (hi / (sqrt(Q) / s))^2
        assert 1 <= r <= (1 + 24 * u) ** 2, f"_upper(K={K.tolist()}, p={p.tolist()}) = {hi!r}: ratio^2 {float(r)}"
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("precision", [None, 30])
def test_upper_bound_is_above_the_exact_quotient_at_every_scale(precision):
    """upper_bound(K, c p) >= ||p||_K / (1^T p) for every c = 2^k, including ||p||_K^2 < 1 (mutant
    ``Q_hi > 1`` returned 0 there) and a K with a zero row (the point z_2 = 0; mutant
    ``e = g / (|K| p)`` divided by (|K| p)_2 = 0 and returned 0, or raised in mpmath)."""
    cases = [
        (np.eye(2), [1.0, 1.0]),
        (np.array([[2.0, 1.0], [1.0, 2.0]]), [1.0, 3.0]),
        (np.array([[1.0, 0.0], [0.0, 0.0]]), [1.0, 0.0]),  # z_2 = 0, p = e_1: value 1
        (np.array([[1.0, 0.0], [0.0, 0.0]]), [1.0, 1.0]),  # value 1/2
    ]
    for K, p in cases:
        for k in range(-40, 41, 5):
            q = [x * 2.0**k for x in p]
            hi = bounds.upper_bound(K, q, precision=precision)
            Q, s = _exact_quotient(K, q)[1], sum(rational(x) for x in q)
            assert rational(hi) ** 2 * s * s >= Q, f"upper_bound(K={K.tolist()}, p={q}) = {hi} is below ||p||_K / 1^T p"


@pytest.mark.parametrize("precision", [None, 30])
def test_upper_bound_of_the_origin_point_is_zero(precision):
    """p on a point at the origin: ||p||_K = 0, and every product in the evaluation (K p, |K| p,
    p^T K p) is an exact zero, so there is no round-off to allow for and the bound is exactly 0
    (the certificate m(K) <= 0 of a data set containing the origin).  Mutants replacing the
    clamp ``else 0`` by None or 1 fail."""
    K = np.array([[1.0, 0.0], [0.0, 0.0]])
    assert bounds.upper_bound(K, [0.0, 1.0], precision=precision) == 0
    assert bounds.upper_bound(K, [0.0, 2.0**-30], precision=precision) == 0


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
    real = facets._enumerate_facets

    def at_tol_side(Zs, r, tol_side, chunk=8192):
        b, a, T = real(Zs, r, tol_side, chunk)
        return tol_side, a, T

    monkeypatch.setattr(driver, "_enumerate_facets", at_tol_side)
    m = driver.margin(K)
    assert m.feasible is None and m.lower < 0 < m.upper
    assert m.upper == bounds.upper_bound(K, m.p)  # no facet bound for K as stored
    assert m.method.startswith("undecided for K as stored") and "upper = ||p*||_K of the min-norm point" in m.method
    assert "upper = -delta_max" not in m.method


def test_a_negative_quadratic_form_within_round_off_gives_norm_zero():
    """K = [[1, -(1+d)], [-(1+d), 1]], d = 1e-14, is PSD within check_gram's tolerance but not
    exactly: at p = (1/2, 1/2), p^T K p = -d/2 < 0.  The certified upper bound ||p||_K / 1^T p
    and the precision-mode min-norm point's norm are then 0 -- real and >= 0, not a NaN, an
    exception or an mpc (mutants: the sqrt of a negative Q_hi / qm)."""
    d = 1e-14
    K = np.array([[1.0, -(1.0 + d)], [-(1.0 + d), 1.0]])
    assert bounds.upper_bound(K, [1.0, 1.0]) == 0.0
    up = bounds.upper_bound(K, [1.0, 1.0], precision=30)
    assert isinstance(up, mpmath.mpf) and up == 0
    r = search.min_norm_point(K, precision=30)
    assert isinstance(r.norm, mpmath.mpf) and r.norm == 0


def test_upper_bound_below_the_smallest_subnormal_rounds_up():
    """K = diag(0, 2^-1074) (scaled by 4^536), p = (1, 1.1 2^-500): ||p||_K / 1^T p ~ 1.1 2^-1037
    exactly; the bound computed on 4^-k K (normal there) times 2^k is subnormal and inexact: it
    must round up, not to nearest (which lands below the exact value here)."""
    K, p = np.diag([0.0, ETA]), np.array([1.0, 1.1 * 2.0**-500])
    ub = upper_bound(K, p)
    assert 0 < ub < 2.0**-1022 and _upper_holds(K, p, ub)


@pytest.mark.parametrize(
    "B, v, e",
    [
        ([[1.0, 0.5, 0.5], [0.5, 0.75, 0.75], [0.5, 0.75, 0.75]], [0.86, 0.8, 0.08], -536),
        ([[0.75, 0.5, 0.25], [0.5, 1.5, 1.75], [0.25, 1.75, 2.25]], [0.49, 0.49, 0.42], -536),
        ([[0.5, -0.75, 0.25], [-0.75, 2.25, -1.75], [0.25, -1.75, 2.25]], [0.03, 0.47, 0.15], -534),
    ],
)
def test_upper_bound_covers_subnormal_products_of_a_tiny_quadratic_form(B, v, e):
    """K = diag(0, B) (B PSD; the first point is the origin), p = (1/2, 2^e v) >= 0: K p = (0, 2^e B v)
    has no underflowing product, but ||p||_K^2 = 2^(2e) v^T B v is a few 2^-1074 and each product
    p_j (K p)_j rounds by up to 2^-1075 -- tens of per cent of it.  p . e is ~0, so only the
    absolute term 4 (n + 1) eta of Q_hi keeps it at or above the exact ||p||_K^2 (with
    4 / (n + 1) eta the upper bound falls below ||p||_K / 1^T p)."""
    K = np.zeros((4, 4))
    K[1:, 1:] = B
    p = np.concatenate([[0.5], np.ldexp(np.array(v), e)])
    assert bounds._underflow(np.abs(K), p, Arithmetic(None)) == 0  # K p: no product underflows
    ub = upper_bound(K, p)
    assert 0 < ub < math.inf and _upper_holds(K, p, ub)


@pytest.mark.parametrize("m", [4, 19])
def test_upper_bound_covers_underflowing_products_of_k_p(m):
    """K = diag(1, 2^-1074 S), S = 5 J + 4 I (m x m, PSD; the 1 keeps K from being scaled), p = (0, 1/2,
    ..., 1/2): every product of the subnormal block, 2.5 or 4.5 2^-1074, rounds (to even) down by
    2^-1075, so each (K p)_j is computed m/2 2^-1074 low and ||p||_K^2 (about m^2 2^-1074) a
    quarter of that per row low.  The underflow allowance 2 (n + 1) eta of each e_j (through
    2 p . e in Q_hi) covers it; subtracted, or shrunk to 2 / (n + 1) eta (which rounds to 0), the
    upper bound is below ||p||_K / 1^T p (m = 4 and m = 19)."""
    K = np.zeros((m + 1, m + 1))
    K[0, 0] = 1.0
    K[1:, 1:] = np.ldexp(5.0 * np.ones((m, m)) + 4.0 * np.eye(m), -1074)
    check_gram(K, unit_diagonal=False, psd=True)
    p = np.concatenate([[0.0], np.full(m, 0.5)])
    ub = upper_bound(K, p)
    assert 0 < ub < math.inf and _upper_holds(K, p, ub)


def test_upper_bound_is_rigorous_under_cancellation_in_p_K_p():
    """upper_bound(K, p) >= ||p||_K / 1^T p exactly, for a K admitted as PSD up to round-off whose
    p^T K p cancels: K = diag(1, [[0, -b], [-b, 0]]) (smallest eigenvalue -b = -2^-27, within
    check_gram's tolerance), p = (s, 1, 1) with s = (2^27 + 1) 2^-40, 2b = fl(s^2) = s^2 - 2^-80.
    Then p^T K p = s^2 - 2b = 2^-80 exactly, while the float evaluation gives fl(s^2) - 2b = 0:
    only the a-priori allowance for the round-off of p^T K p keeps the bound above the true value."""
    s = (2**27 + 1) * 2.0**-40
    b = (2**53 + 2**27) * 2.0**-80
    assert 2 * Fraction(b) == Fraction(s) ** 2 - Fraction(2) ** -80
    K = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -b], [0.0, -b, 0.0]])
    p = np.array([s, 1.0, 1.0])
    hi = bounds.upper_bound(K, p)
    # hi >= sqrt(2^-80) / (s + 2), squared and cleared of denominators
    assert Fraction(hi) ** 2 * (Fraction(s) + 2) ** 2 >= Fraction(2) ** -80


@pytest.mark.parametrize("scale", [1.0, 1e-200, 2.0**-1070, 1e-30, 1e200, 2.0**1000])
def test_lower_and_upper_bounds_of_tiny_witnesses(scale):
    """K = diag(4, 1): alpha = c (1, 4) gives min(K alpha)/||alpha||_K = 4/sqrt(20), p = c (1, 2)
    gives ||p||_K / 1^T p = sqrt(8)/3, for every c > 0.  The certified bounds hold (exactly, in
    rationals) and are tight for a witness at any scale.  [Bug found here: with c = 1e-200, v^T K v
    underflowed to 0 and lower_bound returned inf, upper_bound 0.0 -- both false claims.  With c = 1e200
    it overflowed: the bounds were the true but useless 0.0 and inf.]"""
    K = np.array([[4.0, 0.0], [0.0, 1.0]])
    lo = bounds.lower_bound(K, scale * np.array([1.0, 4.0]))
    hi = bounds.upper_bound(K, scale * np.array([1.0, 2.0]))
    assert 0 < lo and Fraction(lo) ** 2 * 20 <= 16 and lo >= 4 / np.sqrt(20) * (1 - 1e-14), lo
    assert Fraction(hi) ** 2 * 9 >= 8 and hi <= np.sqrt(8) / 3 * (1 + 1e-14), hi


def test_upper_bound_of_a_negative_quadratic_form_is_zero():
    """K = 2I - 11^T (5 x 5; admitted: its 2 x 2 principal minors are PSD) and p = 1: p^T K p =
    5 - 20 < 0, and ||p||_K = sqrt(max(p^T K p, 0)) = 0 (the G-seminorm's convention), so the
    upper bound is 0 -- not the NaN of a square root of a negative number."""
    assert bounds.upper_bound(_indefinite_2_2_psd_matrix(5), np.ones(5)) == 0.0


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
        if bounds._origin_in_simplex(Z, (0, 1, 2)):
            assert w is not None and min(w) > 0, f"0 certified inside the simplex {Z.tolist()}, exact weights {[float(v) for v in w]}"
    return outside


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


def test_origin_in_simplex_certificate_rejects():
    Z = np.array([[1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0], [5.0, 5.0]])
    assert bounds._origin_in_simplex(Z, (0, 1, 2))  # 0 strictly inside
    assert not bounds._origin_in_simplex(Z, (0, 1, 3))  # 0 outside that triangle
    assert not bounds._origin_in_simplex(Z, (0, 1))  # not a full simplex: never certified
    assert not bounds._origin_in_simplex(Z[[0, 0, 1]], (0, 1, 2))  # degenerate (repeated point)
    on_edge = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])  # barycentric weight 0: not inside
    assert not bounds._origin_in_simplex(on_edge, (0, 1, 2))
    near_edge = np.array([[1.0, 1e-17], [-1.0, 1e-17], [0.0, -1.0]])  # weight 1e-17, below round-off
    assert not bounds._origin_in_simplex(near_edge, (0, 1, 2))


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
    assert bounds._origin_in_simplex(Z, (0, 1, 2))


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
        assert bounds._origin_in_simplex(Z, (0, 1)) is expected, (m, j, T_m / U)


def test_origin_in_simplex_wants_r_plus_1_points():
    Z, _ = _near_vertex(1000)
    assert bounds._origin_in_simplex(Z, (0, 1))
    assert not bounds._origin_in_simplex(Z, (0,))


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
    assert bounds._origin_in_simplex(Z, (0, 1)) is expected


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
        assert bounds._origin_in_simplex(Z, (0, 1)) is expected, (m, sigma_min)


def test_affine_distance2_exact_closed_forms():
    """The squared distance from the origin to the affine hull of S, over Q: the line x + y = 1
    through (1, 0), (0, 1) is at distance^2 1/2; the plane x + y + z = 1 at 1/3; (3, 4) alone at 25;
    the line x = 3 through (3, 1), (3, -2) at 9; a singular K_SS (z_1 = z_2, or z = 0) gives None."""
    assert bounds._affine_distance2_exact(np.eye(2)) == Fraction(1, 2)
    assert bounds._affine_distance2_exact(np.eye(3)) == Fraction(1, 3)
    assert bounds._affine_distance2_exact(np.array([[25.0]])) == 25
    assert bounds._affine_distance2_exact(_gram([[3, 1], [3, -2]])) == 9  # the line x = 3
    assert bounds._affine_distance2_exact(np.array([[1.0, 1.0], [1.0, 1.0]])) is None
    assert bounds._affine_distance2_exact(np.zeros((1, 1))) is None


# _affine_distance2_exact(K_SS) = min {w^T K_SS w : 1^T w = 1} = -det K_SS / det B over Q, on
# K_SS as stored in the chosen arithmetic (mpf entries of D digits, not float64).
def test_affine_distance2_exact_reads_mpf_entries_exactly():
    # (B in float64 rounds the mpf entries).
    # One point: the affine hull is the point itself, lambda = K_11.  Two points with K_SS =
    # [[x, 0], [0, x]]: lambda = x / 2 (w = (1/2, 1/2)).
    with mpmath.workdps(40):
        x = mpmath.mpf(1) / 3  # 1/3 to 133 bits: not a float64
        assert rational(x) != Fraction(float(x))
        assert _affine_distance2_exact(np.array([[x]], dtype=object)) == rational(x)
        two = np.array([[x, mpmath.mpf(0)], [mpmath.mpf(0), x]], dtype=object)
        assert _affine_distance2_exact(two) == rational(x) / 2


def test_affine_distance2_exact_is_none_when_the_kkt_system_is_singular():
    # (`and`: det B = 0 with det K_SS != 0
    # divides by zero).  K_SS = [[a, b], [b, c]] with b = (a + c) / 2 has det B = 2b - a - c = 0:
    # the KKT system [K_SS 1; 1^T 0] has no unique solution and no lambda = -det K_SS / det B.
    # (Such a K_SS is indefinite, det = -(a - c)^2 / 4: within round-off of PSD for a close to c.)
    a, c = 1.0, 1.0 + 2.0**-20
    KSS = np.array([[a, (a + c) / 2], [(a + c) / 2, c]])
    assert exact_det(KSS) == -Fraction(c - a) ** 2 / 4 != 0
    assert _affine_distance2_exact(KSS) is None


def test_coefficients_must_be_real():
    """A complex coefficient is refused with a ValueError naming the argument (float() of a numpy
    complex silently dropped the imaginary part); so are None and an int beyond float64."""
    K = np.eye(2)
    for bad in ([1 + 1j, 1.0], np.array([1 + 1j, 1.0]), [np.complex64(1.0), 1.0], np.array([1, 1], dtype=np.complex64),
                [None, 1.0], [10**400, 1]):
        for precision in (None, 30):
            with pytest.raises(ValueError, match=r"^alpha must hold real numbers"):
                bounds.lower_bound(K, bad, precision=precision)
            with pytest.raises(ValueError, match=r"^p must hold real numbers"):
                bounds.upper_bound(K, bad, precision=precision)


@pytest.mark.parametrize("precision", [None, 30])
@pytest.mark.parametrize("bad", [[1 + 1j, 1.0], [1.0, np.complex128(2.0)]])
def test_complex_coefficients_are_refused_with_the_reason_and_the_fix(bad, precision):
    """The whole message: which argument, why (a complex entry), and what to pass instead."""
    K = np.eye(2)
    for fn, name in ((bounds.lower_bound, "alpha"), (bounds.upper_bound, "p")):
        with pytest.raises(ValueError) as info:
            fn(K, bad, precision=precision)
        assert str(info.value) == (
            f"{name} must hold real numbers within float64 range (a complex entry); pass a real vector"
        )
