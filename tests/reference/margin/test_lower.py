"""Tests of reference/margin/test_lower.py."""

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
from reference.exact import margin_witness_value, ratio_at_least, rational
from reference.margin import lower_bound, margin, min_norm_point, upper_bound
from tests.support.margin import (
    ETA,
    M,
    M2,
    MP,
    U,
    _at_least,
    _at_most,
    _exact_quotient,
    _indefinite_2_2_psd_matrix,
    _instance,
    _integer_instances,
    _lower_holds,
    _no_a_priori_bounds,
    gram_of,
)


def _ratio_sq(value, N, Q):
    """value^2 Q / N^2 in exact rationals (value = N / sqrt(Q) exactly iff this is 1)."""
    return Fraction(value) ** 2 * Fraction(Q) / Fraction(N) ** 2


def _exact_lower(K, alpha, precision):
    _, Km, ar = M._prepare(np.asarray(K, dtype=np.float64), precision)
    with ar.context():
        return M._exact_lower(Km, ar.array(alpha) if ar.is_mp else np.asarray(alpha, dtype=np.float64), ar), ar


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
    assert M._unit_roundoff(Arithmetic(None)) == 2.0**-53
    ar = Arithmetic(30)
    with ar.context():
        assert 10.0**-31 < float(M._unit_roundoff(ar)) <= 10.0**-29


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
            lo = M.lower_bound(K, a, precision=precision)
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
        lo, hi = M.lower_bound(K, alpha, precision=30), M.upper_bound(K, alpha, precision=30)
        assert rational(lo) ** 2 * 2 <= 1 <= rational(hi) ** 2 * 2  # the exact value is 1/sqrt(2)
    big = [2**60 + 1, 0.5]
    lo = M.lower_bound(K, big, precision=30)
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
    assert M._times_pow2(1.75, -1074, ar) == 2 * ETA
    assert M._times_pow2(1.25, -1074, ar) == ETA
    assert M._times_pow2(-1.75, -1074, ar) == -2 * ETA
    assert M._times_pow2(1.75, -1074, ar, toward=-1) == ETA
    assert M._times_pow2(1.25, -1074, ar, toward=1) == 2 * ETA


def test_below_normal_leaves_normal_and_mpmath_quotients_alone():
    """_below_normal moves only a float64 quotient below 2^-1021: 2^-1021 itself (ulp 2^-1073, so
    a shift by 2 eta would show) and an mpf are returned as they are; 2^-1022 is moved."""
    ar = Arithmetic(None)
    assert M._below_normal(2.0**-1021, ar, -1) == 2.0**-1021
    assert M._below_normal(-(2.0**-1021), ar, 1) == -(2.0**-1021)
    assert M._below_normal(2.0**-1022, ar, -1) == 2.0**-1022 - 2 * ETA
    mp = Arithmetic(30)
    with mp.context():
        x = mpmath.mpf(2) ** -1100
        assert M._below_normal(x, mp, -1) == x and M._below_normal(-x, mp, 1) == -x


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
    assert M._underflow(np.abs(K), alpha, Arithmetic(None)) == 0
    lb = lower_bound(K, alpha)
    assert 0 < lb < 2.0**-1070 and _lower_holds(K, alpha, lb)
    lo = M._lower(K, alpha, Arithmetic(None))  # unscaled (lower_bound works on 4^-1 K here)
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
    assert M._underflow(np.abs(K), np.abs(alpha), Arithmetic(None)) == 0  # K alpha: no product underflows
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
    M2.check_gram(K, unit_diagonal=False, name="K")  # admitted as a Gram matrix
    assert M2._exact_lower(K, alpha, Arithmetic(None)) is None
    ar = Arithmetic(30)
    with ar.context():
        assert M2._exact_lower(ar.array(K), ar.array(alpha), ar) is None


def test_witness_is_not_scaled_down_when_an_entry_would_lose_bits():
    """alpha = (2^1000, -2^-1074), K = I: min(K alpha)/||alpha||_K = -2^-2074 < 0.  Scaling alpha by
    2^-1000 would flush the second entry to -0 and certify the false lower bound 0; the witness is
    scaled only when the scaling is exact, and the bound must stay <= the exact value."""
    lo = M2.lower_bound(np.eye(2), np.array([2.0**1000, -(2.0**-1074)]))
    assert lo == -np.inf or Fraction(lo) <= -Fraction(2) ** -2074, lo
