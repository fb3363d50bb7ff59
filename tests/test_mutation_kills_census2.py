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


@pytest.mark.parametrize("rho, Delta", [(1.0, None), (None, 1.0), (2.0, 0.5)])
def test_pattern_allowance_counts_the_rho_and_delta_coordinates(rho, Delta):
    """The implicit PT11 patterns y_k = l_k [x_k, rho, Delta e_k] get verify_separator_primal's
    allowance (K + 16) eps |y_k| . |a| with the rho and Delta coordinates included ("both engines
    accept exactly the same claims").  One pattern, x = [1], a = [1, a_rho, a_Delta] with the
    extra coordinates cancelling 1 up to t = 2^-47 (all exact): the margin t is below the full
    allowance (about 2 (K + 16) 2^-52 >= 2.25 * 2^-48) but above the part of x alone, so neither
    verifier may claim it; with t = 2^-40 both do."""
    from reference.result import pattern_allowance, verify_separator_patterns, verify_separator_primal

    data, indices, indptr, labels = np.array([1.0]), np.array([0]), np.array([0, 1]), np.array([1.0])
    extra = [v for v in (rho, Delta) if v is not None]
    for t, ok in [(2.0**-47, False), (2.0**-40, True)]:
        # split -(1 - t) over the extra coordinates: coefficient c_j on value v_j, sum c_j v_j = -(1 - t)
        coef = [-(1 - t) / extra[0]] if len(extra) == 1 else [-0.5 / extra[0], -(0.5 - t) / extra[1]]
        a = np.array([1.0] + coef)
        Z = np.array([[1.0] + extra])  # the pattern, formed
        margins, slack = pattern_allowance(data, indices, indptr, labels, rho, Delta, a, 1)
        assert margins[0] == float(Fraction(1) + sum(Fraction(c) * Fraction(v) for c, v in zip(coef, extra)))
        assert slack[0] >= float(np.abs(Z[0]) @ np.abs(a)) * 2.0**-52 * (a.shape[0] + 16)
        assert (verify_separator_patterns(data, indices, indptr, labels, rho, Delta, a, 1) == "") is ok
        assert (verify_separator_primal(Z, a) == "") is ok


# =============================================================================================
# reference.exact
# =============================================================================================

from reference.exact import exact_rank, ratio_at_least, verify_exact, verify_margin_exact  # noqa: E402
from reference.margin import Margin  # noqa: E402
from reference.result import Result  # noqa: E402


def test_ratio_at_least_on_a_grid_of_signs_and_zeros():
    """N / sqrt(Q) >= bound, decided exactly: against the same comparison made with the rational
    square roots of perfect-square Q, over every sign of N and bound, zeros included."""
    roots = [Fraction(1, 10), Fraction(1), Fraction(2), Fraction(3, 7)]
    values = [Fraction(v) for v in (-5, -2, -1, Fraction(-1, 2), 0, Fraction(1, 2), 1, 2, 5)]
    for r in roots:
        for N in values:
            for bound in values:
                assert ratio_at_least(N, r * r, bound) is (N / r >= bound), (N, r * r, bound)


_P = 2**31 - 1  # reference.exact._PRIME


@pytest.mark.parametrize(
    "M, rank_q, rank_p",
    [
        # diagonal with one entry divisible by the prime: rank 3 over Q, 2 modulo p
        ([[1, 0, 0], [0, _P, 0], [0, 0, 1]], 3, 2),
        # the same, rows permuted (pivots found below the current row, a zero column first)
        ([[0, 0, 0, 1], [0, _P, 0, 0], [0, 0, 1, 0], [0, 1, 1, 0], [0, 0, 0, 2]], 3, 3),
        ([[0, 0, 1], [0, 5, 0], [0, 0, 0], [3, 0, 0], [0, 0, _P]], 3, 3),
        ([[0, 0, 2 * _P, 0], [0, 0, 0, 1], [0, 7, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]], 4, 3),
        ([[0, 1, 1], [1, 0, _P], [1, 1, 1 + _P]], 2, 2),  # row 3 = row 1 + row 2
    ],
)
def test_exact_rank_shortcut_returns_the_rank_modulo_the_prime(M, rank_q, rank_p):
    """exact_rank(A) is the rank over Q; with at_most=r, "a cheap rank modulo a prime ... that
    already exceeds r is returned at once" (the docstring), else the rank over Q.  The ranks
    modulo p = 2^31 - 1 (entries divisible by p vanish) are worked out by hand."""
    A = np.array(M, dtype=object)
    assert exact_rank(A) == rank_q
    for r in range(0, rank_q + 1):
        assert exact_rank(A, at_most=r) == (rank_p if rank_p > r else rank_q), r


def test_exact_rank_is_exact_for_integers_beyond_float64():
    """Row 3 = row 1 + row 2 with ~60-bit integer entries: rank 2 exactly (Bareiss: every division
    exact), although the 2 x 2 minors need ~120 bits."""
    r1 = [2**60 + 12345, 3**37 + 1, 5**25 - 7]
    r2 = [7**21 + 3, 2**59 - 99, 11**17 + 5]
    r3 = [a + b for a, b in zip(r1, r2)]
    assert exact_rank(np.array([r1, r2, r3], dtype=object)) == 2
    assert exact_rank(np.array([r1, r2, [r3[0] + 1, r3[1], r3[2]]], dtype=object)) == 3


def test_verify_exact_refuses_a_zero_margin_and_reads_python_ints_exactly():
    """A separator claim needs (G alpha)_i > 0 exactly: G alpha = 0 is refused.  And the data are
    read as the exact rationals they are: a Python int 2^60 + 1 in a list (beyond float64's 53 bits)
    is not rounded, so w = [1, -2^60] has y <w, x> = 1 > 0 for x = [2^60 + 1, 1.0]."""
    G = np.array([[1.0, -1.0], [-1.0, 1.0]])
    res = Result(algorithm="nkp", status="separator", iterations=1, alpha=np.array([0.5, 0.5]))
    assert verify_exact(res, G) == "(G alpha)_0 = 0.000e+00 is not > 0 in exact arithmetic"
    w = np.array([1.0, -(2.0**60)])
    for name in ("perceptron", "pfm"):
        res = Result(algorithm=name, status="separator", iterations=1, w=w)
        assert verify_exact(res, [[2**60 + 1, 1.0]], [1]) == ""
        assert verify_exact(res, [[2**60 - 1, 1.0]], [1]).startswith("y_i <w, x_i>_0 = -1.000e+00 is not > 0")


def _margin(lower, upper, alpha=None, p=None, feasible=None):
    as_arr = lambda v: None if v is None else np.array(v, dtype=float)  # noqa: E731
    return Margin(value=upper, lower=lower, upper=upper, feasible=feasible, alpha=as_arr(alpha), p=as_arr(p),
                  support=(), precision="float64", method="by hand")


_I2 = np.eye(2)
_OPP = np.array([[1.0, -1.0], [-1.0, 1.0]])  # z_1 = 1, z_2 = -1: m = -1 (0 in the hull)


@pytest.mark.parametrize(
    "K, m, expected",
    [
        # a single point z = 1: m(K) = 1 exactly; upper at equality, and a p scaled by 2 (||p||/1^T p = 1)
        ([[1.0]], _margin(1.0, 1.0, alpha=[1.0], p=[1.0], feasible=True), ""),
        ([[1.0]], _margin(1.0, 1.0, alpha=[1.0], p=[2.0], feasible=True), ""),
        ([[1.0]], _margin(0.5, 0.5, alpha=[1.0], p=[2.0]), "upper = 0.5 is below ||p||_K / 1^T p = 1.0 in exact arithmetic"),
        # feasible=True needs lower > 0
        ([[1.0]], _margin(0.0, 1.0, alpha=[1.0], p=[1.0], feasible=True), "feasible=True but lower = 0.000e+00 is not > 0"),
        ([[1.0]], _margin(-0.5, 1.0, alpha=[1.0], p=[1.0], feasible=True), "feasible=True but lower = -5.000e-01 is not > 0"),
        ([[1.0]], _margin(0.5, 1.0, p=[1.0]), "a finite lower bound without a witness alpha"),
        # m = -1 exactly: the right infeasible margin passes (lower -1 by alpha; upper -1 by nothing finite)
        (_OPP, _margin(-1.0, -1.0, alpha=[1.0, 0.0], p=[0.5, 0.5], feasible=False), ""),
        (_OPP, _margin(-np.inf, -1.0, alpha=None, p=None, feasible=False), ""),
        # a too-small negative upper is refuted by a named candidate, with its value N / sqrt(Q)
        (_OPP, _margin(-np.inf, -2.0, alpha=[1.0, 0.0], p=None),
         "upper = -2.0 < 0, yet alpha = alpha gives min(K alpha)/||alpha||_K = -1.0 > upper in exact arithmetic"),
        (_OPP, _margin(-np.inf, -2.0, alpha=None, p=[0.0, 1.0]),
         "upper = -2.0 < 0, yet alpha = p gives min(K alpha)/||alpha||_K = -1.0 > upper in exact arithmetic"),
        (_I2, _margin(-np.inf, -1.0, alpha=None, p=None),
         f"upper = -1.0 < 0, yet alpha = uniform gives min(K alpha)/||alpha||_K = {0.5 / 0.5 ** 0.5!r} > upper in exact arithmetic"),
        (_I2, _margin(-np.inf, -1.0, alpha=[2.0, 0.0], p=None),
         f"upper = -1.0 < 0, yet alpha = uniform gives min(K alpha)/||alpha||_K = {0.5 / 0.5 ** 0.5!r} > upper in exact arithmetic"),
    ],
)
def test_verify_margin_exact_on_margins_worked_out_by_hand(K, m, expected):
    """verify_margin_exact's checks, each on a Gram matrix whose margin is known in closed form:
    the witnesses' values are exact rationals (or 1/sqrt(2)), so every verdict and every number in
    its message is worked out by hand."""
    assert verify_margin_exact(m, np.array(K)) == expected


def test_verify_margin_exact_names_the_shape_of_a_non_square_k():
    with pytest.raises(ValueError, match=r"K must be the square Gram matrix the margin was computed from, got shape \(2, 3\)"):
        verify_margin_exact(_margin(0.5, 1.0, alpha=[1.0, 0.0], p=[1.0, 0.0]), np.ones((2, 3)))


# =============================================================================================
# reference.smoothed
# =============================================================================================

import reference  # noqa: E402

# a_1 = e_1, a_2 = -e_1, a_3 = e_2: never strictly separable (a_1 = -a_2), 0 on the hull's boundary
_G_BOUNDARY = np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


def test_snkp_exit_test_is_strict():
    """[RP14 Alg. 4] halts on G alpha_k > 0_n (strict).  On _G_BOUNDARY the iterates keep alpha_1 =
    alpha_2 (the instance is symmetric in points 1 and 2), so G alpha_k = (0, 0, alpha_3) >= 0 with
    exact zeros: no claim is made at all, and the budget ends the run with the plain message."""
    r = reference.snkp(_G_BOUNDARY, max_iter=50)
    Ga = _G_BOUNDARY @ r.alpha
    assert Ga[0] == 0 and Ga[1] == 0 and Ga[2] > 0  # the premise: on the boundary of the test
    assert (r.status, r.iterations, r.message) == ("max_iter", 50, "budget exhausted after 50 iterations")


def test_snkpvn_certificate_test_is_strict_at_equality():
    """[RP14 Alg. 6] returns p_k when ||p_k||_G < delta (strict).  G of the points a, -a and
    q = (3/4, 1/4): alpha_0 = q, G alpha_0 = (1/2, -1/2), mu_0 = 2n = 4, so
    p_0 = Proj(q - G alpha_0 / mu_0) = (5/8, 3/8) and ||p_0||_G = |5/8 - 3/8| = 1/4, all exact
    in float64.  With delta = 1/4 and no budget, no certificate is claimed; with delta just above
    1/4 it is returned at once."""
    G = np.array([[1.0, -1.0], [-1.0, 1.0]])
    r = reference.snkpvn(G, [0.75, 0.25], 0.25, max_iter=0)
    assert list(r.p) == [0.625, 0.375]
    assert (r.status, r.iterations, r.message) == ("max_iter", 0, "budget exhausted after 0 iterations")
    r = reference.snkpvn(G, [0.75, 0.25], np.nextafter(0.25, 1.0), max_iter=0)
    assert (r.status, r.iterations) == ("certificate", 0)


# feasible with a tiny margin (~3e-8): the points (1, s), (-1, s), (1, s), s = 3e-8
_G_TINY = reference.gram(np.array([[1.0, 3e-8], [-1.0, 3e-8], [1.0, 3e-8]]), [1, 1, 1])


@pytest.mark.parametrize(
    "call, budget",
    [
        (lambda: reference.snkp(_G_BOUNDARY, engine="fast"), 10_000),
        (lambda: reference.snkpvn(_G_BOUNDARY, [1 / 3, 1 / 3, 1 / 3], 1e-12, engine="fast"), 10_000),
        (lambda: reference.isnkpvn(_G_TINY, 2.0, 1e-12, engine="fast"), 100_000),
    ],
    ids=["snkp", "snkpvn", "isnkpvn"],
)
def test_default_budget_of_the_smoothed_algorithms(call, budget):
    """The signatures' defaults: max_iter = 10_000 for SNKP and SNKPVN, 100_000 for ISNKPVN, passed
    on by the textbook wrapper to the compiled engine; on instances that neither separate nor
    certify within them the run stops exactly there."""
    pytest.importorskip("numba")
    r = call()
    assert (r.status, r.iterations, r.message) == ("max_iter", budget, f"budget exhausted after {budget} iterations")
