"""Kills of the re-census-8 survivors of reference/margin.py (issue 13; verdicts in
benchmarks/mutation/recensus8_margin.md).

Instances sit at the edges of the scaling code (subnormal quotients, witnesses that cannot be
scaled exactly, overflows that are handled); every bound is compared with the exact quotient in
rational arithmetic (reference.exact), never with our own output.
"""

import math
import sys
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from reference.arithmetic import Arithmetic
from reference.exact import margin_witness_value, ratio_at_least, rational
from reference.margin import Margin, lower_bound, margin, upper_bound

M = sys.modules["reference.margin"]  # the package re-exports the function `margin` under the module's name
ETA = 2.0**-1074  # smallest positive subnormal


def _lower_holds(K, alpha, lb) -> bool:
    """lb <= min(K alpha)_i / ||alpha||_K exactly (-inf always holds)."""
    if lb == -math.inf:
        return True
    N, Q = margin_witness_value(np.asarray(K, dtype=np.float64), alpha)
    return Q > 0 and ratio_at_least(N, Q, rational(lb))


def _upper_holds(K, p, ub) -> bool:
    """ub >= ||p||_K / 1^T p exactly."""
    K = np.asarray(K, dtype=np.float64)
    P = [rational(v) for v in p]
    Q = sum(P[i] * rational(K[i, j]) * P[j] for i in range(len(P)) for j in range(len(P)))
    return ub == math.inf or (ub >= 0 and rational(ub) ** 2 * sum(P) ** 2 >= Q)


# -- _lower: quotients and witnesses at the edges of the float64 range ----------------------------


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
    allowance 4 (n + 1) eta of the quadratic form covers it (found for _lower_57, which subtracts it:
    a lower bound 0.3 % above the exact quotient)."""
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


# -- scaling: lower_bound / upper_bound / margin on 4^-k K ----------------------------------------


def test_public_bounds_of_a_subnormal_one_by_one_matrix_are_tight():
    """K = [[2^-1070]]: m(K) = 2^-535 exactly.  On the scaled 4^-k K both bounds are within the
    relative width of an ordinary 1 x 1 matrix (1e-13); unscaled, the absolute allowances of the
    subnormal products would make the lower bound ~0."""
    T = 2.0**-535
    lb, ub = lower_bound([[2.0**-1070]], [1.0]), upper_bound([[2.0**-1070]], [1.0])
    assert T * (1 - 1e-13) <= lb <= T <= ub <= T * (1 + 1e-13)


def test_upper_bound_below_the_smallest_subnormal_rounds_up():
    """K = diag(0, 2^-1074) (scaled by 4^536), p = (1, 1.1 2^-500): ||p||_K / 1^T p ~ 1.1 2^-1037
    exactly; the bound computed on 4^-k K (normal there) times 2^k is subnormal and inexact: it
    must round up, not to nearest (which lands below the exact value here)."""
    K, p = np.diag([0.0, ETA]), np.array([1.0, 1.1 * 2.0**-500])
    ub = upper_bound(K, p)
    assert 0 < ub < 2.0**-1022 and _upper_holds(K, p, ub)


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


def test_scaled_back_method_names_the_scaling():
    """margin() of a tiny K reports the scaling in its method (``computed on 4^-k K with k = ...``),
    and a positive lower bound lost below the subnormals is explained at the end of the text."""
    m = margin(np.array([[2.0**-1070]]))
    assert "; computed on 4^-k K with k = -534 (exact), bounds times 2^k" in m.method
    ar = Arithmetic(None)
    s = M._scaled_back(Margin(1.0, 0.5, 2.0, True, np.ones(1), np.ones(1), (0,), "float64", "feasible"), -1080, ar)
    assert s.method == ("feasible; computed on 4^-k K with k = -1080 (exact), bounds times 2^k"
                        " (lower > 0 for 4^-k K, but 2^k lower is below the smallest subnormal)")


@pytest.mark.parametrize(
    "K",
    [
        [[0.0, 1e-9], [1e-9, 1.0]],  # K_11 = 0 beside K_12 != 0: eigenvalue ~ -1e-18, within check_gram's tolerance
        [[0.0, 4.436445698125405e-272], [4.436445698125405e-272, 6.373906171566411e-219]],  # X X^T with K_11 underflowed
    ],
)
def test_crossed_bounds_of_a_non_psd_matrix_are_refused(K):
    """Regression (found on this round by a random exact check of margin()): these K pass the PSD test
    (tolerance 1e-8 n max(1, max|K|)) but are not PSD (det < 0); margin() returned lower = 1e-9 >
    upper = 0 with feasible=True -- an interval that no PSD matrix has.  Crossed bounds now raise."""
    K = np.array(K)
    assert rational(K[0, 0]) * rational(K[1, 1]) < rational(K[0, 1]) ** 2  # not PSD, exactly
    with pytest.raises(ValueError, match="K is not positive semidefinite: the certified bounds cross"):
        margin(K)
