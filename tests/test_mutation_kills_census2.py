"""Kills for survivors of the full mutmut 3.8.1 census of reference/ outside margin.py (issue 13,
session 6), modules gram, result, exact, smoothed; see benchmarks/mutation/census_survivors2.md.
Each kill was checked by applying the mutant to the source by hand: the test fails on the mutant
and passes on the original."""
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from reference.arithmetic import Arithmetic
from reference.gram import gram, kernel_matrix, signed_gram


# =============================================================================================
# reference.gram
# =============================================================================================


def test_kernel_matrix_default_kernel_is_linear():
    """The docstring's default kernel is "linear": K(A, B) = A B^T, here exact small integers."""
    A = np.array([[1.0, 2.0], [3.0, -1.0]])
    B = np.array([[2.0, 0.0], [1.0, 1.0], [0.0, -4.0]])
    expected = np.array([[2.0, 3.0, -8.0], [6.0, 2.0, 4.0]])  # dot products by hand
    assert np.array_equal(kernel_matrix(A, B), expected)


@pytest.mark.parametrize("kernel, params", [("linear", {}), ("polynomial", {"degree": 2, "c": 0.0})])
def test_tiny_points_have_a_positive_kernel_diagonal_in_mpmath(kernel, params):
    """At precision=D the whole Gram is built in mpmath, K(x_i, x_i) included: a point of norm 1e-200
    has K(x, x) = 1e-400 (linear) or 1e-800 (polynomial, c=0) -- zero in float64 but positive in
    mpmath -- so G exists, with G_ii = 1 and G_ij = y_i y_j for parallel points (Cauchy-Schwarz
    equality)."""
    X = np.array([[1e-200], [3e-200]])
    G = gram(X, [1, -1], kernel, precision=30, **params)
    assert G[0, 0] == 1 and G[1, 1] == 1
    assert abs(G[0, 1] + 1) < 1e-25 and abs(G[1, 0] + 1) < 1e-25  # 30 digits: round-off ~1e-29


def test_gram_refuses_a_kernel_matrix_with_a_zero_diagonal():
    """A callable kernel whose 1 x 1 calls are positive but whose full matrix has K_ii = 0 is refused by
    the second diagonal check, naming the kernel callable (not reported as an overflow)."""

    def K(A, B):
        M = np.asarray(A) @ np.asarray(B).T
        if M.shape[0] > 1:
            M = M.copy()
            M[1, 1] = 0.0
        return M

    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match=r"diagonal of the kernel matrix; check the kernel callable"):
        gram(X, [1, -1], K)


def test_gram_k_ii_message_counts_and_lists_the_first_five():
    """Seven zero points under the polynomial kernel with c = 0 have K(x, x) = 0: the message gives
    the count, the first five indices (as the zero-row error of reference.data), and the fix."""
    X = np.zeros((8, 2))
    X[7] = [1.0, 1.0]
    with pytest.raises(ValueError) as e:
        gram(X, [1] * 8, "polynomial", c=0.0)
    msg = str(e.value)
    assert "K(x_i, x_i) <= 0 for 7 point(s) (first: i = [0, 1, 2, 3, 4])" in msg
    assert "under kernel 'polynomial'" in msg and "rho=1.0" in msg


def test_gram_overflow_names_gram_and_the_largest_entry_of_x():
    """G_ij = K_ij / sqrt(K_ii K_jj): for two tiny parallel points under the (unscaled) polynomial
    kernel of degree 1 and c = 0, K_ij = 1e-320 (subnormal) and 1/sqrt(K_ii K_jj) = 1e320
    overflows float64, so the finished G has non-finite entries: the error names "gram" as what
    overflowed and the largest |X_ij| of the input, 1e-160."""
    X = np.array([[1e-160], [1e-160]])
    with pytest.raises(ValueError, match=r"^gram overflowed float64 \(non-finite entries; the largest \|X_ij\| is 1e-160\)"):
        gram(X, [1, 1], "polynomial", degree=1, c=0.0)


def test_gaussian_sigma_out_of_float64_range_works_in_mpmath():
    """The refusal of a sigma whose 2 sigma^2 leaves float64 names the fix precision=50; with it, the
    Gaussian Gram is built: for x_1 = 0, x_2 = sigma, G_12 = y_1 y_2 exp(-sigma^2 / (2 sigma^2))
    = -exp(-1/2)."""
    sigma = 1e-200
    X = np.array([[0.0], [sigma]])
    with pytest.raises(ValueError, match=r"sigma=1e-200: 2 sigma\^2 = 0\.0 under- or overflows float64.*precision=50"):
        gram(X, [1, -1], "gaussian", sigma=sigma)
    G = gram(X, [1, -1], "gaussian", precision=50, sigma=sigma)
    with mpmath.workdps(50):
        assert abs(G[0, 1] + mpmath.exp(mpmath.mpf(-1) / 2)) < mpmath.mpf(10) ** -40
    assert G[0, 0] == 1 and G[1, 1] == 1


@pytest.mark.parametrize(
    "call, match",
    [
        # X X^T overflows: 1e200 * 1e200
        (lambda: signed_gram([[1e200]], [1]), r"^signed_gram overflowed float64"),
        # inf - inf inside the product (eight +1e300 and eight -1e300 terms): NaN, 'invalid'
        (lambda: kernel_matrix(np.array([[1e300] * 8 + [-1e300] * 8]), np.ones((1, 16)) * 1e300), None),
        # 2 sigma^2 overflows / underflows float64: judged by the sigma check, not by numpy
        (lambda: kernel_matrix(np.ones((1, 1)), np.ones((1, 1)), "gaussian", sigma=1e200), r"sigma=1e\+200: 2 sigma\^2 = inf"),
        (lambda: kernel_matrix(np.ones((1, 1)), np.ones((1, 1)), "gaussian", sigma=1e-200), r"sigma=1e-200: 2 sigma\^2 = 0\.0"),
    ],
)
def test_kernel_overflow_is_judged_by_the_code_even_under_strict_floating_point(call, match):
    """kernel_matrix silences numpy's overflow / invalid / underflow signals where it judges the result
    itself (the product X X^T, reported by gram / signed_gram; 2 sigma^2, checked against float64's
    range).  So under a caller's np.errstate(all="raise") the outcome is the same ValueError naming
    the fix (or, for kernel_matrix alone, a returned matrix), never a FloatingPointError."""
    with np.errstate(all="raise"):
        if match is None:
            K = call()
            assert K.shape == (1, 1) and not np.isfinite(K[0, 0])
        else:
            with pytest.raises(ValueError, match=match):
                call()


# =============================================================================================
# reference.result
# =============================================================================================


def test_separator_allowance_in_mpmath_is_relative_to_the_working_precision():
    """For arrays of mpf, separator_allowance uses the unit round-off of the mpmath precision
    (10^-dps), not float64's: at 50 digits (~166 bits) a margin of exactly 2^-100 ~ 8e-31, obtained
    by cancellation (1 * 1 - 1 * (1 - 2^-100), all exact), is ~10^18 times its allowance
    2 (2 + 16) 10^-50, so the separator verifies; the same data with the margin 0 or -2^-100 is
    refused."""
    from reference.result import separator_allowance, verify_separator_gram, verify_separator_primal

    with mpmath.workdps(50):
        one = mpmath.mpf(1)
        Z = np.array([[one, -one]], dtype=object)
        for t, ok in [(Fraction(1, 2**100), True), (Fraction(0), False), (Fraction(-1, 2**100), False)]:
            tm = mpmath.mpf(t.numerator) / t.denominator  # a power of two: exact
            w = np.array([one, one - tm], dtype=object)
            margins, slack = separator_allowance(Z, w, 2)
            assert margins[0] == tm
            assert slack[0] < mpmath.mpf(10) ** -45
            assert (verify_separator_primal(Z, w) == "") is ok
        off = -one + mpmath.mpf(2) ** -100
        G = np.array([[one, off], [off, one]], dtype=object)
        assert verify_separator_gram(G, np.array([one / 2, one / 2], dtype=object)) == ""


def test_separator_allowance_covers_underflow_by_2k_plus_4_units():
    """The documented allowance has the term (2k + 4) UNDERFLOW (UNDERFLOW = 2^-1074, the smallest
    subnormal) for products that underflow: with k = 10 columns a margin of 10 UNDERFLOW (a
    subnormal, computed exactly) is inside the 24 UNDERFLOW allowance and is not claimed, while
    30 UNDERFLOW is beyond it."""
    from reference.arithmetic import UNDERFLOW
    from reference.result import separator_allowance, verify_separator_primal

    k = 10
    w = np.zeros(k)
    w[0] = 1.0
    for units, ok in [(10, False), (23, False), (30, True)]:
        Z = np.zeros((1, k))
        Z[0, 0] = units * UNDERFLOW
        margins, slack = separator_allowance(Z, w, k)
        assert margins[0] == units * UNDERFLOW
        assert slack[0] >= (2 * k + 4) * UNDERFLOW
        assert (verify_separator_primal(Z, w) == "") is ok


def test_certificate_verifiers_name_a_negative_entry_and_a_bad_sum():
    """Both certificate verifiers (dense and factored) refuse a p outside the simplex and say why:
    a negative entry, or a sum away from 1 beyond the round-off of p's own arithmetic (for an
    mpf p at 50 digits, 10^-20 off is far beyond 16 n 10^-50)."""
    import scipy.sparse as sp

    from reference.result import verify_certificate, verify_certificate_factored

    ar = Arithmetic(None)
    G = np.eye(2)
    Z = sp.csr_matrix(np.eye(2))
    bad_p = np.array([1.5, -0.5])
    assert verify_certificate(G, bad_p, 1.0, ar) == "p has a negative entry"
    assert verify_certificate_factored(Z, bad_p, 1.0) == "p has a negative entry"
    assert verify_certificate_factored(Z, np.array([0.5, 0.5 + 1e-9]), 1.0).startswith("sum(p) = 1.000000001 is not 1")
    with mpmath.workdps(50):
        p = np.array([mpmath.mpf(1) / 2, mpmath.mpf(1) / 2 + mpmath.mpf(10) ** -20], dtype=object)
        assert verify_certificate_factored(Z, p, 1.0).startswith("sum(p) = ")
        assert verify_certificate_factored(Z, p, 1.0).endswith(" is not 1")
