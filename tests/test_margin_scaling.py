"""Certified margins of tiny and huge Gram matrices (issue 13 follow-up).

The round-off allowance of ``reference.margin._lower`` / ``_upper`` is relative (Higham's gamma_n)
and assumes that no product underflows or overflows.  On K = [[1e-310]] it certified
lower = 1.0000000000000224e-155 > sqrt(K) = m(K); near 1e308 the symmetrization (a + b) / 2
overflowed.  ``margin`` now certifies 4^-k K (an exact power of four, largest entry near 1) and
multiplies the bounds back by 2^k, rounded outwards; products that still underflow (entries of
very different sizes) carry an absolute allowance.  Every check below is exact: the instances are
c K0 with a closed-form margin m(c K0) = sqrt(c) m(K0), compared in rational arithmetic, and the
witnesses are re-checked by :func:`reference.verify_margin_exact`.
"""

import math
import sys
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference import gram, verify_margin_exact
from reference.arithmetic import Arithmetic
from reference.exact import exact_matvec, margin_witness_value, ratio_at_least, rational
from reference.margin import Margin, lower_bound, margin, upper_bound

M = sys.modules["reference.margin"]  # the package re-exports the function `margin` under the module's name

# K0 (integer entries, so c K0 is exact for every c below), and m(K0) = sign sqrt(q0)  [RP14 Lemma 3, Theorem 3]
CLOSED_FORM = {
    "one point": ([[1]], 1, Fraction(1)),  # m = sqrt(K_11)
    "obtuse pair": ([[2, -1], [-1, 2]], 1, Fraction(1, 2)),  # min-norm point = midpoint: (2 + 2 - 2) / 4
    "acute pair": ([[2, 1], [1, 2]], 1, Fraction(3, 2)),  # (2 + 2 + 2) / 4
    "orthogonal pair": ([[1, 0], [0, 4]], 1, Fraction(4, 5)),  # ab / (a + b)
    "e1, e2, e1 + e2": ([[1, 0, 1], [0, 1, 1], [1, 1, 2]], 1, Fraction(1, 2)),  # midpoint of e1 e2
    "opposite pair": ([[1, -1], [-1, 1]], -1, Fraction(1)),  # z2 = -z1: m = -||z1|| (relative margin)
    "e1, e2, -(e1 + e2)": ([[1, 0, -1], [0, 1, -1], [-1, -1, 2]], -1, Fraction(1, 5)),  # nearest edge: 1/sqrt(5)
}
SCALES = [2.0**-1062, 1e-310, 1e-300, 1e300, 2.0**1021]


def _at_most(b, sign: int, T: Fraction) -> bool:
    """b <= sign sqrt(T), exactly (T >= 0)."""
    b = rational(b)
    if sign > 0:
        return b <= 0 or b * b <= T
    return b < 0 and b * b >= T


def _at_least(b, sign: int, T: Fraction) -> bool:
    """b >= sign sqrt(T), exactly."""
    b = rational(b)
    if sign > 0:
        return b > 0 and b * b >= T
    return b >= 0 or b * b <= T


def _instance(name, c):
    K0, sign, q0 = CLOSED_FORM[name]
    K = np.array(K0, dtype=np.float64) * c
    assert all(Fraction(K[i, j]) == Fraction(c) * K0[i][j] for i in range(len(K0)) for j in range(len(K0)))
    return K, sign, Fraction(c) * q0, sign * math.sqrt(float(q0)) * math.sqrt(c)


def test_one_point_subnormal_matches_sqrt_exactly():
    """The issue's reproducer: m([[1e-310]]) = sqrt(1e-310); lower was 1.0000000000000224e-155 > it."""
    K = np.array([[1e-310]])
    m = margin(K)
    T = Fraction(1e-310)
    assert _at_most(m.lower, 1, T) and _at_least(m.upper, 1, T)
    assert m.feasible is True and verify_margin_exact(m, K) == ""
    assert m.upper - m.lower <= 1e-13 * math.sqrt(1e-310)  # the width of an ordinary 1 x 1 matrix


@pytest.mark.parametrize("name", sorted(CLOSED_FORM))
def test_closed_form_margins_at_extreme_scales(name):
    """lower <= m(c K0) <= upper exactly for c from 2^-1062 (subnormal entries) to 2^1021 (near
    overflow), the witnesses check exactly, and the relative width is the documented ~1e-11
    (feasible: min-norm point; infeasible: -delta_max up to 64 n u max||z_i||); at 30 digits too."""
    for c in SCALES:
        K, sign, T, truth = _instance(name, c)
        for precision in (None, 30):
            m = margin(K, precision=precision)
            assert _at_most(m.lower, sign, T), (c, precision, m.lower, truth)
            assert _at_least(m.upper, sign, T), (c, precision, m.upper, truth)
            assert verify_margin_exact(m, K) == "", (c, precision)
            assert m.lower <= m.value <= m.upper
            assert m.feasible is (sign > 0), (c, precision, m.feasible)
            width = 1e-11 if precision is None else 1e-25
            assert m.upper - m.lower <= width * abs(truth), (c, precision, m.lower, m.upper, truth)


@given(
    st.sampled_from(sorted(CLOSED_FORM)),
    st.integers(2**52, 2**53 - 1),
    st.one_of(st.integers(-537, -480), st.integers(480, 510)),
)
def test_closed_form_margins_over_scale_exponents(name, mantissa, j):
    """K = c K0 with c = mantissa 2^(2j - 52) (rounded once if subnormal; K0's entries are 0 and
    +-powers of two, so c K0 is exact), at the extreme scales where products underflow or
    overflow: exact bracket of sqrt(c) m(K0), exact witnesses, and the documented width."""
    c = math.ldexp(mantissa, 2 * j - 52)
    K, sign, T, truth = _instance(name, c)
    m = margin(K)
    assert _at_most(m.lower, sign, T) and _at_least(m.upper, sign, T), (c, m.lower, m.upper)
    assert verify_margin_exact(m, K) == ""
    assert m.upper - m.lower <= 1e-11 * abs(truth)


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


def _wide(I, s):
    """The exact Gram matrix of the points I_k 2^s_k (small integers: every product is exact)."""
    X = np.ldexp(np.array(I, dtype=np.float64), np.array(s).reshape(-1, 1))
    K = X @ X.T
    n = len(I)
    assert all(Fraction(K[i, j]) == sum(Fraction(a) * Fraction(b) for a, b in zip(X[i], X[j])) for i in range(n) for j in range(n))
    return K


@pytest.mark.parametrize(
    "I, s",
    [
        ([[-2, 1], [0, -3], [-2, 0]], [-471, -236, -35]),  # lower = 0.0, exact min(K alpha) < 0 (underflowed)
        ([[2, -3], [3, 3], [3, 2]], [-266, -411, -52]),  # lower = -5.87e-297 above the exact quotient
        ([[-2, 1], [1, 1]], [-499, -522]),  # upper below ||p||_K / 1^T p
        ([[2, -2], [1, -3], [2, 1]], [-507, -493, -518]),
    ],
)
def test_points_of_very_different_norms(I, s):
    """Gram matrices of points whose norms differ by 2^100 and more: even on the scaled K some
    products of the certificates underflow, and the relative allowance alone gave the false
    bounds noted (found by a random search on the old code); the absolute allowance fixes them."""
    K = _wide(I, s)
    m = margin(K)
    assert verify_margin_exact(m, K) == ""
    assert m.lower <= m.value <= m.upper


def test_huge_non_psd_matrix_is_refused():
    """[[1e308, -1.5e308], [-1.5e308, 1e308]] is not PSD (|K_12| > sqrt(K_11 K_22)), but the 2 x 2
    test computed (a + c) / 2 = inf and let it pass, and margin certified bounds for it."""
    K = np.array([[1e308, -1.5e308], [-1.5e308, 1e308]])
    with pytest.raises(ValueError, match="not positive semidefinite"):
        margin(K)


def test_scaled_back_rounds_outwards_below_the_normal_range():
    """2^k times a bound that lands between subnormals: lower rounded down, upper up, the estimate
    to nearest; a positive lower bound below 2^-1074 becomes 0 and feasible=None."""
    ar = Arithmetic(None)
    x = 1.5  # 1.5 2^-1074 is halfway between 2^-1074 and 2^-1073
    assert M._times_pow2(x, -1074, ar, toward=-1) == 2.0**-1074
    assert M._times_pow2(x, -1074, ar, toward=1) == 2.0**-1073
    assert M._times_pow2(-x, -1074, ar, toward=-1) == -(2.0**-1073)
    assert M._times_pow2(-x, -1074, ar, toward=1) == -(2.0**-1074)
    assert M._times_pow2(x, -1080, ar, toward=-1) == 0.0 and M._times_pow2(x, -1080, ar, toward=1) == 2.0**-1074
    assert M._times_pow2(x, 5, ar, toward=-1) == 48.0  # exact in the normal range
    m = Margin(1.0, 0.5, 2.0, True, np.ones(1), np.ones(1), (0,), "float64", "feasible")
    s = M._scaled_back(m, -1080, ar)
    assert s.lower == 0.0 and s.feasible is None and s.upper == 2.0**-1074  # 2^-1079 rounded up
    assert M._scaled_back(m, 0, ar) is m


def test_gram_pow4_exponent():
    """Even, exact, and only at extreme scales: 4^-k K has its largest entry in [1/4, 1) unless a
    smaller entry would lose a bit (then only as far as it stays normal)."""
    gram_pow4_exponent = sys.modules["reference.arithmetic"].gram_pow4_exponent  # (`arithmetic` is also a function)
    assert gram_pow4_exponent(np.array([[3.0, 1e-300], [1e-300, 2.0**60]])) == 0
    k = gram_pow4_exponent(np.array([[1e-310]]))
    assert 0.25 <= np.ldexp(1e-310, -2 * k) < 1
    k = gram_pow4_exponent(np.array([[2.0**1000, 2.0**-1000], [2.0**-1000, 1.0]]))
    assert k == 11 and np.ldexp(2.0**-1000, -2 * k) == 2.0**-1022  # as far as 2^-1000 stays normal
    assert gram_pow4_exponent(np.array([[2.0**1000, 2.0**-1074], [2.0**-1074, 1.0]])) == 0  # a subnormal bit


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


def test_verify_margin_exact_reports_refuted_bounds_of_a_tiny_matrix():
    """verify_margin_exact's message formatted min(K alpha)/||alpha||_K as float(N) / float(Q)^(1/2):
    with K = [[1e-310]] and alpha = 2^-40, Q ~ 1e-334 is 0 as a float and the refutation of a false
    lower bound crashed (ZeroDivisionError); ||p||_K / 1^T p was printed as 0.0."""
    K, w = np.array([[1e-310]]), np.array([2.0**-40])
    truth = math.sqrt(1e-310)
    false_lower = Margin(2e-155, 2e-155, 3e-155, True, w, w, (0,), "float64", "doctored")
    msg = verify_margin_exact(false_lower, K)
    assert msg.startswith("lower = 2e-155 exceeds min(K alpha)/||alpha||_K = ")
    assert abs(float(msg.split(" = ")[2].split()[0]) - truth) <= 1e-12 * truth
    false_upper = Margin(5e-156, 4e-156, 5e-156, True, w, w, (0,), "float64", "doctored")
    msg = verify_margin_exact(false_upper, K)
    assert msg.startswith("upper = 5e-156 is below ||p||_K / 1^T p = ")
    assert abs(float(msg.split(" = ")[2].split()[0]) - truth) <= 1e-12 * truth


def test_full_psd_test_refuses_a_huge_non_psd_matrix():
    """check_gram(psd=True) symmetrized by (G + G^T) / 2 = inf for entries ~1e308 and accepted the
    non-PSD matrix below (eigvalsh of an inf matrix)."""
    from reference.data import check_gram

    K = np.array([[1e308, -1.5e308], [-1.5e308, 1e308]])
    with pytest.raises(ValueError, match="smallest eigenvalue"):
        check_gram(K, unit_diagonal=False, name="K", psd=True)


def test_nonnegative_upper_bound_is_witnessed_by_p():
    """A facet bound -delta + allowance >= 0 is not returned: a nonnegative ``upper`` must be the
    min-norm point's claim ||p||_K / 1^T p <= upper (what verify_margin_exact re-checks).  Two opposite
    points of very different norms: 0 is in the hull, m = -delta = -2^-202 (the smaller point's
    norm), and the facet allowance 64 n u max||z_i|| ~ 2^-204 * 2^7 exceeds delta."""
    z = np.array([-3 * 2.0**-157, 2 * 2.0**-203])
    K = np.outer(z, z)
    m = margin(K)
    assert verify_margin_exact(m, K) == "", "RP14 Lemma 3: upper >= 0 not witnessed by p"
    truth = -Fraction(2) ** -202  # 0 is inside the segment [z_0, z_1]: delta = min_i |z_i| = 2^-202
    assert rational(m.lower) <= truth <= rational(m.upper)
