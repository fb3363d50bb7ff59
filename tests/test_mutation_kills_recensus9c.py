"""Kills of the session-9 re-census survivors in the round-off machinery of reference/margin.py
(_lower, _upper, _underflow, _times_pow2, _below_normal, _scale_gram, _scaled_back, lower_bound,
upper_bound; issue 13; verdicts in benchmarks/mutation/recensus9_margin_low.md).

Every bound is compared with the exact quotient in rational arithmetic (reference.exact), never
with our own output.  The instances sit where one allowance alone decides the side of the exact
value: quotients below the normal range whose computed value is already within a quantum of the
exact one (so the 2 eta of _below_normal is what keeps the bound on its side).
"""

import math
from fractions import Fraction
import sys
import warnings

import mpmath
import numpy as np
import pytest

from reference.arithmetic import Arithmetic, gram_pow4_exponent
from reference.data import check_gram
from reference.exact import margin_witness_value, verify_margin_exact
from reference.margin import lower_bound, margin, upper_bound
from tests.test_mutation_kills_recensus8_margin import _lower_holds, _upper_holds  # one exact check of a bound

M = sys.modules["reference.margin"]  # the package re-exports the function `margin` under the module's name
ETA = 2.0**-1074  # smallest positive subnormal


# -- _lower: a positive quotient below the normal range, with no product underflowing ------------


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


# -- scaling by 4^-k: exact, and it keeps the bounds finite and tight ------------------------------


def _ordinary_gram():
    Z = np.array([[3.0, 1.0], [2.0, -1.0], [1.0, 2.5]]) / 4
    return Z @ Z.T  # largest entry 0.625: not scaled itself


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


def test_huge_gram_matrix_scaled_only_by_4_keeps_finite_tight_bounds():
    """K = diag(max float, 2^-1019): scaling down is limited by the small entry (it must stay
    normal), to k = 1.  On 4^-1 K the quadratic form of p = (1 - 2^-53, 0) and its allowance stay
    finite, so upper_bound states ||p||_K / 1^T p = sqrt(K_11) up to its round-off (unscaled, they
    overflow: no claim)."""
    K, p = np.diag([np.finfo(np.float64).max, 2.0**-1019]), np.array([1 - 2.0**-53, 0.0])
    assert gram_pow4_exponent(K) == 1
    ub = upper_bound(K, p)
    assert ub < math.inf and _upper_holds(K, p, ub)
    assert ub <= math.sqrt(np.finfo(np.float64).max) * (1 + 1e-13)


def test_bounds_scaled_back_by_2_stay_tight():
    """K = diag(2^-1019, 2^102): k = 1 (limited by the small entry), so the bounds of 4^-1 K are
    doubled on the way back.  p = e_1: ||p||_K / 1^T p = 2^-509.5 exactly; alpha = (1/2, 2^-1074):
    min(K alpha) = 2^-1020, ||alpha||_K^2 = 2^-1021 + 2^-2046, quotient just below 2^-509.5.  Both
    bounds on the right side and within the relative round-off of a 2 x 2 matrix (1e-13)."""
    K, T = np.diag([2.0**-1019, 2.0**102]), 2.0**-509.5
    assert gram_pow4_exponent(K) == 1
    p, alpha = np.array([1.0, 0.0]), np.array([0.5, ETA])
    ub, lb = upper_bound(K, p), lower_bound(K, alpha)
    assert _upper_holds(K, p, ub) and T <= ub <= T * (1 + 1e-13)
    assert _lower_holds(K, alpha, lb) and T * (1 - 1e-13) <= lb <= T


# -- overflows: handled silently, and never a claim ------------------------------------------------


def test_witness_whose_products_overflow_with_both_signs_gives_no_claim_and_no_warning():
    """K = [[2^100, -2^100, 0], [-2^100, 2^100, 0], [0, 0, 2^-1022]] (not scalable: its small entry
    must stay normal), p = (2^1000, 2^1000, 2^-1074) (not scalable: its small entry would vanish):
    (K p)_1 = 2^1100 - 2^1100 is inf - inf = nan in float64 -- a handled case: no RuntimeWarning,
    and the upper bound is +inf (no claim), never 0 or nan; the same vector as alpha gives -inf."""
    K = np.array([[2.0**100, -(2.0**100), 0.0], [-(2.0**100), 2.0**100, 0.0], [0.0, 0.0, 2.0**-1022]])
    v = np.array([2.0**1000, 2.0**1000, ETA])
    assert gram_pow4_exponent(K) == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert upper_bound(K, v) == math.inf
        assert lower_bound(K, v) == -math.inf


@pytest.mark.parametrize("K", [np.diag([np.finfo(np.float64).max, 2.0**-1019]), np.diag([2.0**1023, 2.0**1023, 2.0**-1022])])
def test_margin_of_a_gram_matrix_near_the_float64_maximum_counts_its_rank(K):
    """Regression (found on this round): K with entries near the largest float beside a tiny one
    (which limits the scaling, k <= 1): the rank tolerance of _span_coordinates, max eig * n 1000
    eps, overflowed -- a RuntimeWarning, tolerance inf, numerical rank 0, and a method text about
    "C(n, 0) = 1 subsets exceed max_subsets".  Now the rank counts the large eigenvalues (the tiny
    point is within round-off of the origin, relative to them), and the bracket holds exactly."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = margin(K)
    r = K.shape[0] - 1
    assert f"within round-off of a matrix of rank {r} " in m.method and ", 0) = " not in m.method
    assert verify_margin_exact(m, K) == ""
    assert m.lower <= m.upper


# -- _lower: the absolute allowance of alpha^T K alpha for products in the subnormal range ----------


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


def test_no_claim_when_the_quadratic_form_is_negative_and_its_allowance_overflows():
    """K = 2^-1072 [[4, 3, 1], [3, 1, 0], [1, 0, 4]] is indefinite (det < 0 in the leading 2 x 2) but
    tiny, so check_gram's absolute PSD tolerance accepts it; alpha = (s, -s, 2^-1074) with
    s = 0.99^(1/2) 2^513.5 (not scalable: its small entry would vanish).  On 4^-k K, K alpha > 0 in
    every row and finite, alpha^T K alpha is finite and NEGATIVE (exactly too), while |alpha| .
    |K alpha| overflows, so the allowance eQ is inf: ||alpha||_K is not certified positive and the
    docstring's -inf is the only answer (any finite bound would claim a quotient that does not
    exist; with the check on eQ dropped the bound was -2^-1074)."""
    K = np.ldexp(np.array([[4.0, 3.0, 1.0], [3.0, 1.0, 0.0], [1.0, 0.0, 4.0]]), -1072)
    check_gram(K, unit_diagonal=False, psd=True)  # an accepted input
    s = math.sqrt(0.99) * 2.0**513.5
    alpha = np.array([s, -s, ETA])
    N, Q = margin_witness_value(K, alpha)
    assert N > 0 > Q
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lower_bound(K, alpha) == -math.inf


# -- _upper: the absolute allowances for products in the subnormal range ---------------------------


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
    assert M._underflow(np.abs(K), p, Arithmetic(None)) == 0  # K p: no product underflows
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


@pytest.mark.parametrize("c", [1.3, 1.4, 1.9])
def test_lower_bound_below_the_smallest_normal_rounds_down(c):
    """K = 2^-1074 I (scaled by 4^537), alpha = (1, c 2^-500): min(K alpha) / ||alpha||_K ~ c 2^-1037
    exactly; the bound computed on 4^-k K (normal there) times 2^k is subnormal and inexact: it
    must round down, not to nearest (which lands above the exact value for these c) nor up."""
    K, alpha = np.diag([ETA, ETA]), np.array([1.0, c * 2.0**-500])
    lb = lower_bound(K, alpha)
    assert 0 < lb < 2.0**-1022 and _lower_holds(K, alpha, lb)
