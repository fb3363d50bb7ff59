"""Review of session 9's reference/ changes: hostile inputs on ``verify_exact(..., rho=)`` and on
``margin``'s K as stored (integer and mpf entries finer than the arithmetic).  Every test fails on
the code before the review (noted per test) and decides its claim in exact rationals."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp

import reference as ref
from reference.margin import lower_bound
from reference.result import Result

# four points that need a bias: every x_i has both coordinates > 0
X = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -1.5], [-2.0, -0.5]]) + 3.0
Y = np.array([1, 1, -1, -1])


@pytest.fixture(scope="module")
def biased():
    res = ref.perceptron(X, Y, rho=1.0, max_iter=10_000)
    assert res.status == "separator" and len(res.w) == 3
    return res


# -- verify_exact: rho is validated as the Perceptrons validate it --------------------------------


@pytest.mark.parametrize("rho", ["1", True, np.array(1.0), float("nan"), float("inf"), -1.0, 0.0])
def test_verify_exact_refuses_a_rho_the_perceptron_would_refuse(biased, rho):
    """Before: rho="1", True and np.array(1.0) were read as 1 and the claim passed; NaN / inf gave a
    message without the argument's name; -1 and 0 were used (the Perceptrons refuse both)."""
    with pytest.raises(ValueError):
        ref.perceptron(X, Y, rho=rho, max_iter=10)  # what the run itself says of this rho
    with pytest.raises(ValueError, match=r"^rho must .*pass the rho= the run was given"):
        ref.verify_exact(biased, X, Y, rho=rho)


def test_verify_exact_validates_rho_also_for_a_result_without_claim():
    """A "max_iter" result claims nothing, but a bad argument is still a bad argument (before: '')."""
    res = ref.perceptron(X, Y, rho=1.0, max_iter=1)
    assert res.status == "max_iter"
    assert ref.verify_exact(res, X, Y, rho=1.0) == ""
    with pytest.raises(ValueError, match="rho must be a real number"):
        ref.verify_exact(res, X, Y, rho="abc")


def test_verify_exact_says_drop_rho_for_a_run_without_bias():
    """w without a bias coordinate and rho= given: the fix is to drop rho= (before: "pass rho=")."""
    res = ref.perceptron(X - 3.0, Y, max_iter=10_000)
    assert res.status == "separator" and len(res.w) == 2
    assert ref.verify_exact(res, X - 3.0, Y) == ""
    with pytest.raises(ValueError, match=r"w has 2 coordinates, the patterns of the data 3: drop rho="):
        ref.verify_exact(res, X - 3.0, Y, rho=1.0)


def test_verify_exact_names_the_data_when_neither_rho_helps(biased):
    """Data with a column too few for w (rho given): neither passing nor dropping rho= fixes it."""
    with pytest.raises(ValueError, match=r"w has 3 coordinates, the patterns of the data 2: pass the data it ran on"):
        ref.verify_exact(biased, X[:, :1], Y, rho=1.0)
    with pytest.raises(ValueError, match=r"pass rho=, the bias it ran with"):
        ref.verify_exact(biased, X, Y)


def test_verify_exact_bias_is_used_exactly(biased):
    """The claim with rho is y_i (<w[:-1], x_i> + w[-1] rho) > 0, decided in rationals: it holds for
    the run's rho and fails for a rho where some point's exact margin is <= 0."""
    w = [Fraction(v) for v in biased.w]
    margins = lambda rho: [int(yi) * (sum(Fraction(a) * b for a, b in zip(xi, w[:-1])) + w[-1] * Fraction(rho)) for xi, yi in zip(X, Y)]
    assert min(margins(1.0)) > 0 and ref.verify_exact(biased, X, Y, rho=1.0) == ""
    assert min(margins(100.0)) <= 0 and ref.verify_exact(biased, X, Y, rho=100.0) != ""


# -- verify_exact: a refutation beyond float64's range is a reason, not an exception --------------


def test_verify_exact_reports_a_refuting_margin_beyond_float64(biased):
    """rho = 1e308 makes y_i <w, [x_i, rho]> about -7e308 for a positive point: float() of it raised
    OverflowError before; now it is the reason string, with the exact value's digits."""
    w = [Fraction(v) for v in biased.w]
    exact = int(Y[0]) * (sum(Fraction(a) * b for a, b in zip(X[0], w[:-1])) + w[-1] * Fraction(1e308))
    assert exact < -Fraction(2) ** 1024  # beyond float64
    reason = ref.verify_exact(biased, X, Y, rho=1e308)
    assert reason.startswith("y_i <w, x_i>_0 = -7.0e+308 is not > 0")


def test_verify_exact_reports_a_refuting_margin_below_the_subnormals():
    """y <w, x> = -2^-1074 * 2^-1074 = -2^-2148 < 0 exactly: the reason said -0.000e+00 before."""
    res = Result(algorithm="perceptron", status="separator", iterations=1, w=np.array([-(2.0**-1074)]))
    reason = ref.verify_exact(res, np.array([[2.0**-1074]]), np.array([1]))
    assert reason.startswith("y_i <w, x_i>_0 = -") and "0.000e+00" not in reason
    shown = Fraction(reason.split(" = ")[1].split(" ")[0])
    assert abs(shown / (-Fraction(1, 2**2148)) - 1) < Fraction(1, 1000)


# -- verify_exact: data and labels are checked as the algorithms check them -----------------------


@pytest.mark.parametrize(
    "labels, match",
    [
        (Y[:3], "X has 4 rows but y has 3 labels"),  # before: IndexError
        (np.r_[Y, 1], "X has 4 rows but y has 5 labels"),  # before: '' (the extra label ignored)
        (Y * 0.5, r"y must contain only \+1 and -1"),  # before: int(0.5) = 0, a false refutation
        (Y * 2, r"y must contain only \+1 and -1"),  # before: ''
    ],
)
def test_verify_exact_checks_the_labels(biased, labels, match):
    with pytest.raises(ValueError, match=match):
        ref.verify_exact(biased, X, labels, rho=1.0)


def test_verify_exact_reads_sparse_data_as_the_pt11_algorithms_do():
    """pdm keeps a scipy.sparse X sparse; verify_exact raised IndexError on the same X before."""
    Xs = sp.csr_matrix(X)
    res = ref.pdm(Xs, Y, 0.1)
    assert res.status == "separator"
    assert ref.verify_exact(res, Xs, Y) == ref.verify_exact(res, X, Y) == ""
    bad = Result(algorithm="pdm", status="separator", iterations=1, w=-res.w, info=res.info)
    assert ref.verify_exact(bad, Xs, Y).startswith("y_i <w, x_i>_0 = -")


def test_verify_exact_still_reads_python_ints_beyond_float64_exactly():
    """Validation must not round the data it checks: [2^60 + 1, 1] stays exact (w = [1, -2^60])."""
    res = Result(algorithm="perceptron", status="separator", iterations=1, w=np.array([1.0, -(2.0**60)]))
    assert ref.verify_exact(res, [[2**60 + 1, 1.0]], [1]) == ""
    assert ref.verify_exact(res, [[2**60 - 1, 1.0]], [1]) != ""


# -- margin: an integer K beyond 2^53 is K as stored, not its float64 rounding --------------------

A = 2**60
K_INT = np.array([[A, -A + 1], [-A + 1, A]], dtype=np.int64)  # PD: eigenvalues 2A - 1 and 1


def test_margin_of_an_int64_gram_beyond_float64_is_not_a_claim_about_the_rounding():
    """float64 reads -A + 1 as -A: the pair z, -z, infeasible.  Before: feasible=False, upper ~ -1e9,
    refuted by alpha = (1/2, 1/2): (K alpha)_i = 1/2, alpha^T K alpha = 1/2, so m(K) >= 1/sqrt(2)."""
    half = [Fraction(1, 2)] * 2
    Ka = [sum(int(K_INT[i, j]) * half[j] for j in range(2)) for i in range(2)]
    assert Ka == [Fraction(1, 2)] * 2 and sum(h * k for h, k in zip(half, Ka)) == Fraction(1, 2)
    with pytest.raises(ValueError, match=r"K has entries that float64 cannot hold \(K\[0, 1\] = -1152921504606846975 "):
        ref.margin(K_INT)
    with pytest.raises(ValueError, match="float64 cannot hold"):
        lower_bound(K_INT, np.array([0.5, 0.5]))
    for K in (K_INT, K_INT.tolist()):
        m = ref.margin(K, precision=40)
        assert m.feasible is True and ref.verify_margin_exact(m, K_INT) == ""
        lo2, up2 = ref.exact.rational(m.lower) ** 2, ref.exact.rational(m.upper) ** 2
        assert lo2 <= Fraction(1, 2) <= up2 and up2 - lo2 < Fraction(1, 10**18)  # m(K) = 1/sqrt(2); allowance ~ 10^-40 max|K|


def test_margin_of_a_small_int_gram_is_unchanged():
    """Integers float64 holds are read as before (no object array, same floats)."""
    K = np.array([[4, -2], [-2, 4]])
    a, b = ref.margin(K), ref.margin(K.astype(float))
    assert (a.lower, a.upper, a.feasible) == (b.lower, b.upper, b.feasible) and np.array_equal(a.alpha, b.alpha)


# -- margin: an mpf K finer than precision=D is kept as stored ------------------------------------


def _fine_gram():
    with mpmath.workdps(40):
        off = mpmath.mpf(-1) + mpmath.mpf(10) ** -30
        return np.array([[mpmath.mpf(1), off], [off, mpmath.mpf(1)]], dtype=object)


def test_margin_at_fewer_digits_than_k_certifies_k_as_stored():
    """K_12 = -1 + 10^-30 (40 digits), margin at 20 digits: the symmetrization (a + a) / 2 rounded
    K_12 to -1 before, and the certificate was about z, -z (feasible=False, upper = -1, refuted
    exactly).  Now the symmetric entries are kept: m(K) = sqrt(10^-30 / 2) is bracketed."""
    K = _fine_gram()
    m = ref.margin(K, precision=20)
    assert ref.verify_margin_exact(m, K) == ""
    assert m.lower > 0 and m.feasible is True


def test_float64_refusal_of_an_mpf_k_shows_the_entry_in_full():
    """The message showed K[0, 1] = -1.0 (mpf's 15-digit str) for -1 + 10^-30."""
    with pytest.raises(ValueError, match=r"K\[0, 1\] = -0\.99999999999999999999999999999"):
        ref.margin(_fine_gram())


# -- exact values of int / Fraction entries: in margin at D digits, and in the verifiers ----------


def test_rational_of_a_fraction_is_the_fraction():
    """rational(Fraction(1, 3)) was Fraction(float(1/3)) -- the verifiers checked a rounded K."""
    assert ref.exact.rational(Fraction(1, 3)) == Fraction(1, 3)
    K = np.array([[Fraction(1, 3), Fraction(0)], [Fraction(0), Fraction(1)]], dtype=object)
    assert ref.exact.exact_matvec(K, [1.0, 0.0]) == [Fraction(1, 3), Fraction(0)]


def test_margin_at_d_digits_keeps_python_ints_wider_than_d_digits():
    """K = [[A, -A + 1], [-A + 1, A]] with A = 2^200 (Python ints): at 30 digits ar.array read -A + 1
    as -A (z, -z) and the claim was feasible=False, upper ~ -1.3e30, refuted by alpha = (1/2, 1/2)."""
    a = 2**200
    K = np.array([[a, -a + 1], [-a + 1, a]], dtype=object)
    m = ref.margin(K, precision=30)
    assert ref.verify_margin_exact(m, K) == ""
    assert m.feasible is True and ref.exact.rational(m.lower) ** 2 <= Fraction(1, 2) <= ref.exact.rational(m.upper) ** 2


def test_margin_at_d_digits_keeps_a_binary_fraction_and_refuses_one_no_mpf_holds():
    """K_12 = -1 + 2^-140 as a Fraction: at 30 digits it was rounded to -1 (feasible=False, upper =
    -1: a false claim the verifier could not see, since it rounded the Fraction too).  Now it is
    exact (m(K) = sqrt(2^-141) ~ 6.0e-22 is bracketed); -1 + 10^-40 has no binary value: refused."""
    off = Fraction(-1) + Fraction(1, 2**140)
    K = np.array([[Fraction(1), off], [off, Fraction(1)]], dtype=object)
    for D in (30, 50):
        m = ref.margin(K, precision=D)
        assert ref.verify_margin_exact(m, K) == "" and m.feasible is True
        assert ref.exact.rational(m.lower) ** 2 <= Fraction(1, 2**141) <= ref.exact.rational(m.upper) ** 2
    off = Fraction(-1) + Fraction(1, 10**40)
    K = np.array([[Fraction(1), off], [off, Fraction(1)]], dtype=object)
    with pytest.raises(ValueError, match=r"K\[0, 1\] = .* is not a binary number m 2\^e.*precision=30"):
        ref.margin(K, precision=30)
