"""Tests of reference/test_exact.py."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp

import reference
import reference as ref
from reference import verify_margin_exact
from reference.exact import (
    GRAM_ALGORITHMS,
    PRIMAL_ALGORITHMS,
    _quotient,
    exact_det,
    exact_matvec,
    exact_quadratic_form,
    exact_rank,
    ratio_at_least,
    rational,
    verify_exact,
)
from reference.fast.operator import linear_gram
from reference.margins import Margin, margin
from reference.result import Result
from tests.support.fast import _infeasible
from tests.support.instances import ONES3, TRIANGLE, _infeasible_gram
from tests.support.margin import _PT11, _obj
from tests.support.numba import needs_numba


_P = 2**31 - 1  # reference.exact._PRIME


def _margin(lower, upper, alpha=None, p=None, feasible=None):
    as_arr = lambda v: None if v is None else np.array(v, dtype=float)  # noqa: E731
    return Margin(value=upper, lower=lower, upper=upper, feasible=feasible, alpha=as_arr(alpha), p=as_arr(p),
                  support=(), precision="float64", method="by hand")


_I2 = np.eye(2)


_OPP = np.array([[1.0, -1.0], [-1.0, 1.0]])  # z_1 = 1, z_2 = -1: m = -1 (0 in the hull)


def _margin_identity2():
    """K = I_2: m(K) = 1/sqrt(2) (alpha = p = (1/2, 1/2)); a Margin object to edit with replace()."""
    K = np.eye(2)
    m = reference.margin(K)
    assert m.feasible is True
    return m, K


_G = np.array([[1.0, -0.5], [-0.5, 1.0]])  # p = (1/2, 1/2): p^T G p = 1/4 exactly


_ALGOS = "('nkp', 'snkp', 'nvn', 'snkpvn', 'isnkpvn', 'perceptron', 'normalized_perceptron', 'pfm', 'pdm', 'pdm_succ')"


def _sqrt_of_square(Q: Fraction) -> Fraction:
    r = Fraction(math.isqrt(Q.numerator), math.isqrt(Q.denominator))
    assert r * r == Q  # the table below uses perfect squares only: N / sqrt(Q) is then rational
    return r


PERCEPTRONS = ("perceptron", "normalized_perceptron")


# X = (1, 0), (2, 0), labels (1, -1): separable only through the bias.  With rho the patterns are
# y_i [x_i, rho] = [1, 0, rho] and [-2, 0, -rho]; w = (-1, 0, c) gives the margins c rho - 1 and
# 2 - c rho, both > 0 exactly iff 1 < c rho < 2.
X2 = np.array([[1.0, 0.0], [2.0, 0.0]])


Y2 = np.array([1, -1])


def _sep(name, w, **info):
    return Result(algorithm=name, status="separator", iterations=1, w=np.array(w, dtype=float), info=info)


def _margins(w, rho):
    """y_i <w, [x_i, rho]> in rationals (the claim verify_exact decides)."""
    w = [Fraction(v) for v in w]
    return [int(yi) * (sum(Fraction(a) * b for a, b in zip(xi, w[:-1])) + w[-1] * Fraction(rho)) for xi, yi in zip(X2, Y2)]


PASS_RHO = "pass rho=, the bias it ran with (w[-1] multiplies it)"


DROP_RHO = "drop rho=: w has no bias coordinate, the run had none"


PASS_DATA = "pass the data it ran on"


def _exact_transpose(Z, v):
    """{j: (Z^T v)_j} in Fractions, from the stored entries of Z (independent of reference.exact)."""
    from fractions import Fraction

    Z = Z.tocsr()
    w = {}
    for i in range(Z.shape[0]):
        for t in range(Z.indptr[i], Z.indptr[i + 1]):
            j = int(Z.indices[t])
            w[j] = w.get(j, Fraction(0)) + Fraction(float(Z.data[t])) * Fraction(float(v[i]))
    return Z, w


def _exact_operator_norm2(Z, p):
    """||Z^T p||^2 in Fractions."""
    from fractions import Fraction

    _, w = _exact_transpose(Z, p)
    return sum((v * v for v in w.values()), Fraction(0))


def _exact_operator_matvec(Z, a):
    """(Z (Z^T a))_i in Fractions."""
    from fractions import Fraction

    Z, w = _exact_transpose(Z, a)
    return [
        sum((Fraction(float(Z.data[t])) * w[int(Z.indices[t])] for t in range(Z.indptr[i], Z.indptr[i + 1])), Fraction(0))
        for i in range(Z.shape[0])
    ]


X4 = np.array([[0.1, 0.7], [-0.3, -2.1], [0.2, -0.5], [-0.6, 1.5]])  # rows 0 and 1 nearly antipodal


ANTIPODAL = np.array([[1.0, 1.0], [-3.0, -3.0]])


def _operator_runs():
    from reference.fast.operator import linear_gram

    op4, op2 = linear_gram(X4, np.ones(4)), linear_gram(ANTIPODAL, np.ones(2))
    from tests.support.fast import unguarded  # (the public functions refuse accuracies below the round-off floor)

    nvn, snkpvn, isnkpvn = unguarded("nvn"), unguarded("snkpvn"), unguarded("isnkpvn")
    return [
        ("nvn(X4, 1e-20)", op4, lambda: nvn(op4, 1e-20, engine="fast", max_iter=2000), 1e-20, False),
        ("snkpvn(X4, 1e-20)", op4, lambda: snkpvn(op4, np.full(4, 0.25), 1e-20, engine="fast", max_iter=500), 1e-20, True),
        ("isnkpvn(antipodal, 2, 1e-20)", op2, lambda: isnkpvn(op2, 2, 1e-20, engine="fast", max_iter=500), 1e-20, True),
        ("snkpvn(antipodal, 1e-30)", op2, lambda: snkpvn(op2, np.full(2, 0.5), 1e-30, engine="fast", max_iter=500), 1e-30, True),
        ("nvn(X4, 1e-3)", op4, lambda: ref.nvn(op4, 1e-3, engine="fast"), 1e-3, False),
    ]


# four points that need a bias: every x_i has both coordinates > 0
X = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -1.5], [-2.0, -0.5]]) + 3.0


Y = np.array([1, 1, -1, -1])


@pytest.fixture(scope="module")
def biased():
    res = ref.perceptron(X, Y, rho=1.0, max_iter=10_000)
    assert res.status == "separator" and len(res.w) == 3
    return res


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


def test_ratio_at_least_on_a_grid_of_signs_and_zeros():
    """N / sqrt(Q) >= bound, decided exactly: against the same comparison made with the rational
    square roots of perfect-square Q, over every sign of N and bound, zeros included."""
    roots = [Fraction(1, 10), Fraction(1), Fraction(2), Fraction(3, 7)]
    values = [Fraction(v) for v in (-5, -2, -1, Fraction(-1, 2), 0, Fraction(1, 2), 1, 2, 5)]
    for r in roots:
        for N in values:
            for bound in values:
                assert ratio_at_least(N, r * r, bound) is (N / r >= bound), (N, r * r, bound)


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


@pytest.mark.parametrize(
    "N, Q, bound, expected",
    [
        (3, 9, 1, True),  # N / sqrt(Q) = 1 == bound: ">=" holds with equality
        (3, 9, Fraction(1) + Fraction(1, 10**30), False),  # just above
        (3, 9, Fraction(1) - Fraction(1, 10**30), True),
        (0, 4, 0, True),  # 0 >= 0
        (-2, 4, -1, True),  # -1 >= -1, both negative: equality
        (-2, 4, Fraction(-1) + Fraction(1, 10**30), False),
        (-2, 4, Fraction(-1) - Fraction(1, 10**30), True),
        (-1, 4, 0, False),
        (1, 4, -5, True),
    ],
)
def test_ratio_at_least_is_exact_at_the_boundary(N, Q, bound, expected):
    """N / sqrt(Q) >= bound is decided exactly, equality included (sqrt(9) = 3, sqrt(4) = 2)."""
    assert ratio_at_least(Fraction(N), Fraction(Q), Fraction(bound)) is expected


def test_verify_margin_exact_zero_norm_witness_message():
    m, _ = _margin_identity2()
    K0 = np.zeros((2, 2))  # every alpha has ||alpha||_K = 0
    bad = replace(m, lower=0.25, upper=1.0, feasible=None, alpha=np.array([0.5, 0.5]), p=np.array([0.5, 0.5]))
    assert verify_margin_exact(bad, K0) == "the witness alpha has ||alpha||_K = 0 in exact arithmetic"


def test_verify_margin_exact_reports_the_witness_ratio():
    """lower too high for alpha = (1, 1) on K = I: min(K alpha) / ||alpha||_K = 1 / sqrt(2) in the message."""
    m, K = _margin_identity2()
    bad = replace(m, lower=0.75, upper=1.0, alpha=np.array([1.0, 1.0]), p=np.array([0.5, 0.5]))
    msg = verify_margin_exact(bad, K)
    got = re.fullmatch(r"lower = 0\.75 exceeds min\(K alpha\)/\|\|alpha\|\|_K = (\S+) in exact arithmetic", msg)
    assert got is not None, msg
    assert abs(float(got.group(1)) - 2**-0.5) <= 4e-16


def test_verify_margin_exact_checks_an_upper_bound_between_0_and_1():
    """upper in [0, 1) is a Lemma-3 bound ||p||_K / 1^T p: checked against p, not as a negative upper."""
    m, K = _margin_identity2()
    p = np.array([0.5, 0.5])  # ||p||_K / 1^T p = 1/sqrt(2) ~ 0.7071
    ok = replace(m, lower=0.5, upper=0.75, alpha=p, p=p)
    assert verify_margin_exact(ok, K) == ""
    low = replace(m, lower=0.5, upper=0.5, alpha=p, p=p)
    msg = verify_margin_exact(low, K)
    got = re.fullmatch(r"upper = 0\.5 is below \|\|p\|\|_K / 1\^T p = (\S+) in exact arithmetic", msg)
    assert got is not None, msg
    assert abs(float(got.group(1)) - 2**-0.5) <= 4e-16
    zero = replace(m, lower=-1.0, upper=0.0, feasible=None, alpha=p, p=p)
    assert verify_margin_exact(zero, K).startswith("upper = 0.0 is below ||p||_K / 1^T p")


@pytest.mark.parametrize("K", [np.eye(2)[:, :1], np.ones((2, 3)), np.ones(2), np.ones((2, 2, 2))])
def test_verify_margin_exact_refuses_a_non_square_K(K):
    m, _ = _margin_identity2()
    neg = replace(m, lower=-1.0, upper=-0.5, feasible=False)
    for mm in (m, neg):
        with pytest.raises(ValueError, match=r"K must be the square Gram matrix the margin was computed from, got shape"):
            verify_margin_exact(mm, K)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: rational(float("nan")), "nan is not a finite number"),
        (lambda: rational(float("-inf")), "-inf is not a finite number"),
        (lambda: rational(mpmath.mpf("inf")), "+inf is not a finite number"),
        (lambda: rational(None), "None is not a number; pass a float, an int or an mpmath.mpf"),
        (lambda: rational("a"), "'a' is not a number; pass a float, an int or an mpmath.mpf"),
        (lambda: exact_matvec(np.eye(2), [1.0, 2.0, 3.0]), "the vector has length 3, the matrix 2 columns"),
        (lambda: verify_exact(Result("nkp", "certificate", 1, p=np.array([0.5, 0.5])), _G), "pass accuracy=: the nkp result does not record its accuracy"),
        (lambda: verify_exact(Result("foo", "separator", 1), _G), f"unknown algorithm 'foo'; expected one of {_ALGOS}"),
        (lambda: verify_exact(Result("perceptron", "separator", 1, w=np.array([1.0])), np.ones((2, 1))), "perceptron claims a separator of data: pass y, the labels"),
    ],
)
def test_exact_errors_in_full(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value) == message


def test_rational_is_exact():
    assert rational(0.1) == Fraction(3602879701896397, 2**55)
    assert rational(np.float32(0.1)) == Fraction(13421773, 2**27)
    assert rational(np.int64(-7)) == -7 and rational(True) == 1 and rational(np.bool_(False)) == 0
    assert rational(-(mpmath.mpf(3) / 8)) == Fraction(-3, 8) and rational(mpmath.mpf(0)) == 0
    assert rational(mpmath.mpf(2) ** 2000) == Fraction(2**2000)
    assert rational(2**70 + 1) == 2**70 + 1  # an int is taken exactly, not through float


def test_exact_matvec_rank_and_quadratic_form():
    A = np.array([[0.5, 0.25], [3.0, -1.0]])
    assert exact_matvec(A, [0.1, 2.0]) == [Fraction(1, 2) * rational(0.1) + Fraction(1, 2), 3 * rational(0.1) - 2]
    assert exact_matvec([[1, 2]], [2**-60, 1]) == [Fraction(1, 2**60) + 2]
    assert exact_quadratic_form(_G, [0.5, 0.5]) == Fraction(1, 4)
    assert exact_quadratic_form(_G, [1.0, 0.0]) == 1
    assert exact_rank(np.array([[1.0, 2.0], [2.0, 4.0]])) == 1 and exact_rank(np.eye(3)) == 3
    assert exact_rank(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])) == 2
    assert exact_rank(np.eye(5), at_most=2) > 2 and exact_rank(np.zeros((2, 2))) == 0
    P = float(2**31 - 1)  # the prime of the modular shortcut: rank 1 modulo it, rank 2 over Q
    assert exact_rank(np.array([[P, 0.0], [0.0, 1.0]]), at_most=1) == 2
    assert exact_rank(np.array([[P, 0.0], [0.0, 1.0]])) == 2
    eps = 2.0**-40  # rank 2 over Q, though float64 rounding would call [[1, 1], [1, 1 + eps]] nearly singular
    assert exact_rank(np.array([[1.0, 1.0], [1.0, 1.0 + eps]])) == 2


@pytest.mark.parametrize(
    "result, data, y, expected",
    [
        (Result("nkp", "separator", 1, alpha=np.array([1.0, 0.0])), _G, None, "(G alpha)_1 = -5.000e-01 is not > 0 in exact arithmetic"),
        (Result("snkp", "separator", 1, alpha=np.array([1.0, 3.0])), _G, None, "(G alpha)_0 = -5.000e-01 is not > 0 in exact arithmetic"),
        (Result("nkp", "separator", 1, alpha=np.array([1.0, 1.0])), _G, None, ""),
        (Result("nkp", "certificate", 1, p=np.array([0.5, 0.5]), info={"epsilon": 0.5}), _G, None,
         "p^T G p = 2.500000e-01 is not < accuracy^2 = 2.500000e-01 in exact arithmetic"),
        (Result("nkp", "certificate", 1, p=np.array([0.5, 0.5]), info={"epsilon": 0.5000001}), _G, None, ""),
        (Result("nvn", "certificate", 1, p=np.array([0.5, 0.5]), info={"epsilon": 0.5}), _G, None, ""),  # NVN: <=
        (Result("nvn", "certificate", 1, p=np.array([0.5, 0.5]), info={"epsilon": 0.4999999}), _G, None,
         "p^T G p = 2.500000e-01 is not <= accuracy^2 = 2.499999e-01 in exact arithmetic"),
        (Result("snkpvn", "certificate", 1, p=np.array([0.5, 0.5]), info={"delta": 0.5, "epsilon": 1.0}), _G, None,
         "p^T G p = 2.500000e-01 is not < accuracy^2 = 2.500000e-01 in exact arithmetic"),
        (Result("isnkpvn", "certificate", 1, p=np.array([0.5, 0.5]), info={"delta": 0.1, "epsilon": 1.0}), _G, None, ""),
        (Result("nkp", "certificate", 1, p=np.array([1.5, -0.5]), info={"epsilon": 5}), _G, None, "p has a negative entry"),
        (Result("nkp", "certificate", 1, p=np.array([0.5, 0.6]), info={"epsilon": 5}), _G, None, "sum(p) = 1.1 is not 1 within 17 n eps"),
        (Result("nkp", "max_iter", 1), _G, None, ""),
        (Result("perceptron", "separator", 1, w=np.array([1.0])), np.array([[1.0], [2.0]]), np.array([1, -1]),
         "y_i <w, x_i>_1 = -2.000e+00 is not > 0 in exact arithmetic"),
        (Result("pdm", "separator", 1, w=np.array([1.0, 1.0]), info={"rho": 1.0}), np.array([[1.0], [-3.0]]), np.array([1, -1]), ""),
        (Result("pdm", "separator", 1, w=np.array([1.0, -2.0]), info={"rho": 1.0}), np.array([[1.0], [-3.0]]), np.array([1, -1]),
         "y_i <w, x_i>_0 = -1.000e+00 is not > 0 in exact arithmetic"),
        # without rho the pattern of point 1 is 3 > 0 for w = 1: a perceptron ignores info['rho']
        (Result("normalized_perceptron", "separator", 1, w=np.array([1.0]), info={"rho": -100.0}), np.array([[1.0], [-3.0]]), np.array([1, -1]), ""),
        # PT11 extended space: y_k = l_k [x_k, rho, Delta e_k]; w = (0, 0, 1, 1) gives l_k Delta > 0 only for l_k = +1
        (Result("pdm_succ", "separator", 1, w=np.array([0.0, 0.0, 1.0, 1.0]), info={"rho": 1.0, "Delta": 2.0}), np.array([[1.0], [-3.0]]), np.array([1, -1]),
         "y_i <w, x_i>_1 = -2.000e+00 is not > 0 in exact arithmetic"),
        (Result("pfm", "separator", 1, w=np.array([0.0, 0.0, 1.0, -1.0]), info={"rho": 1.0, "Delta": 2.0}), np.array([[1.0], [-3.0]]), np.array([1, -1]), ""),
    ],
)
def test_verify_exact_closed_form_claims(result, data, y, expected):
    assert verify_exact(result, data, y) == expected


def test_verify_exact_certificate_sum_tolerance_is_17_n_eps():
    """|1^T p - 1| <= 17 n eps: at n = 2, 34 eps passes and 36 eps fails (float64 eps = 2^-52; mpmath 10^-dps)."""
    eps = 2.0**-52
    ok = Result("nkp", "certificate", 1, p=np.array([0.5, 0.5 + 34 * eps]), info={"epsilon": 5})
    bad = Result("nkp", "certificate", 1, p=np.array([0.5, 0.5 + 36 * eps]), info={"epsilon": 5})
    assert verify_exact(ok, _G) == "" and verify_exact(bad, _G).startswith("sum(p) = ")
    with mpmath.workdps(40):
        pm = np.array([mpmath.mpf(1) / 2, mpmath.mpf(1) / 2 + mpmath.mpf(30) * mpmath.mpf(10) ** -30], dtype=object)
        pb = np.array([mpmath.mpf(1) / 2, mpmath.mpf(1) / 2 + mpmath.mpf(40) * mpmath.mpf(10) ** -30], dtype=object)
    mp = "mpmath, 30 decimal digits"
    assert verify_exact(Result("nkp", "certificate", 1, p=pm, precision=mp, info={"epsilon": 5}), _G) == ""
    assert verify_exact(Result("nkp", "certificate", 1, p=pb, precision=mp, info={"epsilon": 5}), _G).startswith("sum(p) = ")
    assert verify_exact(Result("nkp", "certificate", 1, p=pb, info={"epsilon": 5}), _G) == ""  # float64's allowance is wider


@pytest.mark.parametrize("fn, arg", _PT11, ids=["pdm", "pfm", "pdm_succ"])
def test_an_mpmath_run_is_not_rescaled(fn, arg):
    # mpmath has no overflow: the patterns run as given, and no "scale" is recorded in info.
    X, y = np.array([[3.0, 4.0], [-1.0, 0.5]]), np.array([1, -1])
    r = fn(X, y, arg, precision=20)
    assert r.status == "separator" and "scale" not in r.info
    assert verify_exact(r, X, y) == ""


def test_fast_certificates_record_their_accuracy_and_pass_verify_exact():
    """verify_exact reads the accuracy of a certificate from info ('delta' for snkpvn,
    'epsilon' otherwise); the fast engine did not record it, so verify_exact(fast result)
    raised 'pass accuracy='.  Now the keys and values are the textbook's."""
    G = _infeasible()
    n = G.shape[0]
    runs = [("nvn", (G, 0.1)), ("snkpvn", (G, np.full(n, 1.0 / n), 0.1)), ("isnkpvn", (G, 2.0, 0.01))]
    for name, args in runs:
        fn = getattr(reference, name)
        slow, fast = fn(*args), fn(*args, engine="fast")
        assert fast.status == slow.status == reference.CERTIFICATE, name
        assert set(slow.info) <= set(fast.info), name
        key = "delta" if name == "snkpvn" else "epsilon"
        assert fast.info[key] == slow.info[key] == args[-1], name
        assert verify_exact(fast, G) == "", name


def test_exact_det_closed_forms():
    """Bareiss on the integers of the dyadic entries: det [[1, 2], [3, 4]] = -2; diag(1/2, 1/4) = 1/8;
    a row swap flips the sign (det [[0, 1], [1, 0]] = -1, and a pivot found below the diagonal);
    singular -> 0; mpf and int entries as exactly as floats; an entry 2^-60 beside 1 kept exactly."""
    import mpmath

    from reference.exact import exact_det

    assert exact_det(np.array([[1.0, 2.0], [3.0, 4.0]])) == -2
    assert exact_det(np.array([[0.5, 0.0], [0.0, 0.25]])) == Fraction(1, 8)
    assert exact_det(np.array([[0.0, 1.0], [1.0, 0.0]])) == -1
    assert exact_det(np.array([[0.0, 0.0, 1.0], [0.0, 2.0, 0.0], [3.0, 0.0, 0.0]])) == -6
    assert exact_det(np.array([[1.0, 2.0], [2.0, 4.0]])) == 0
    assert exact_det(np.array([[mpmath.mpf(3), 1], [1, mpmath.mpf("0.5")]], dtype=object)) == Fraction(1, 2)
    assert exact_det(np.array([[1.0, 2.0**-60], [2.0**-60, 1.0]])) == 1 - Fraction(1, 2**120)


# exact_det on a list: entries are read as given (dtype=object), never through float64.
# [[2^53 + 1, 0.5], [0, 1]] has det 2^53 + 1, which float64 cannot hold.
@pytest.mark.parametrize(
    "A, det",
    [
        ([[2**53 + 1, 0.5], [0, 1]], Fraction(2**53 + 1)),
        ([[2**60 + 3, 2**60], [2**60, 2**60 - 3]], Fraction((2**60 + 3) * (2**60 - 3) - 2**120)),  # = -9
        ([[1, 2**-60], [0.5, 1.0]], Fraction(1) - Fraction(1, 2**61)),
    ],
)
def test_exact_det_reads_a_list_exactly(A, det):
    # (np.asarray without dtype=object rounds to float64)
    assert exact_det(A) == det


def test_exact_quadratic_form_is_a_fraction_even_when_empty():
    # (sum from int 0): the public exact_quadratic_form is typed
    # -> Fraction; the empty p^T G p is Fraction(0), not int 0
    q = exact_quadratic_form(np.zeros((0, 0)), np.zeros(0))
    assert isinstance(q, Fraction) and q == 0
    assert isinstance(exact_quadratic_form([[2.0]], [0.5]), Fraction)


@pytest.mark.parametrize(
    "N, Q, power",
    [
        (Fraction(2, 3) * Fraction(1, 2**1022), Fraction(1, 4**51), 1),  # N subnormal, just below 2^-1022
        (Fraction(1, 3) * Fraction(1, 2**1060), Fraction(1, 4**100), 1),  # N deep in the subnormals (12 bits)
        (Fraction(1), Fraction(16, 25) * Fraction(1, 2**1022), -1),  # Q subnormal, just below 2^-1022
        (Fraction(2, 3) * 2**1100, Fraction(4**1100), 1),  # N and Q beyond float64 (OverflowError)
        (Fraction(3) * 2**1100, Fraction(4**1100) * Fraction(9, 4), -1),
        (Fraction(2, 3), Fraction(1, 4**51), 1),  # the float64 path: both normal, a division by 2^-51
    ],
)
def test_quotient_outside_the_normal_range_is_the_nearest_float(N, Q, power):
    """_quotient's docstring: float64 only where N and Q are normal floats, mpmath beyond.  With Q a
    perfect square the exact value N / sqrt(Q) (or its inverse) is a rational, and float(Fraction) is
    the float nearest to it; the mpmath path (30 digits) gives that float, while float(N) or float(Q)
    rounded on the subnormal grid does not.
    The broken variants it catches: (TypeError on overflow), _6, _7 (every subnormal N through
    float64), _9 (N in [2^-1023, 2^-1022) through float64), _16 (Q in [2^-1023, 2^-1022))."""
    exact = N / _sqrt_of_square(Q)
    assert _quotient(N, Q, power) == float(exact if power == 1 else 1 / exact)


def test_verify_margin_exact_reports_a_quotient_beyond_float64():
    """K = [[1e300]], alpha = 2^40: min(K alpha) ~ 1.1e312 and alpha^T K alpha ~ 1.2e324 are beyond
    float64 (float() raises OverflowError); the refutation of a false lower bound 2e150 must still
    print min(K alpha)/||alpha||_K = sqrt(1e300) (TypeError)."""
    K, w = np.array([[1e300]]), np.array([2.0**40])
    truth = math.sqrt(1e300)
    false_lower = Margin(2e150, 2e150, 3e150, True, w, w, (0,), "float64", "doctored")
    msg = verify_margin_exact(false_lower, K)
    assert msg.startswith("lower = 2e+150 exceeds min(K alpha)/||alpha||_K = ")
    assert abs(float(msg.split(" = ")[2].split()[0]) - truth) <= 1e-12 * truth


@needs_numba
def test_verify_exact_checks_a_perceptron_separator_with_its_bias():
    """X = (1, 0), (2, 0), labels (1, -1), rho = 1: separable only through the bias (the points
    lie on a ray from 0), so every separator has y_0 <w_x, x_0> = w_0 < 0 < w_0 + w_2: read without
    the bias coordinate, the returned separator was refuted."""
    X, y = np.array([[1.0, 0.0], [2.0, 0.0]]), np.array([1, -1])
    for engine in ("textbook", "fast"):
        for fn in (reference.perceptron, reference.normalized_perceptron):
            r = fn(X, y, rho=1.0, engine=engine)
            assert r.status == reference.SEPARATOR
            assert reference.verify_exact(r, X, y, rho=1.0) == ""
            with pytest.raises(ValueError, match=r"^w has 3 coordinates, the patterns of the data 2: pass rho=, the bias"):
                reference.verify_exact(r, X, y)
            assert r.w[0] < 0  # the x-part alone does not separate: the instance is the bug's


@needs_numba
def test_verify_exact_refutes_a_false_separator_whose_bias_is_wrong():
    """X = (1), (-1), labels (1, -1), rho = 1: the patterns are [1, 1] and [1, -1].  w = (1, 5)
    has x-part margins 1, 1 (the old check accepted it), but [1, -1].(1, 5) = -4: refuted.  w = (1, 0)
    separates: accepted.  rho= for a result that records its own (PT11) is refused by name."""
    from dataclasses import replace

    X, y = np.array([[1.0], [-1.0]]), np.array([1, -1])
    r = reference.perceptron(X, y, rho=1.0)
    assert r.status == reference.SEPARATOR
    msg = reference.verify_exact(replace(r, w=np.array([1.0, 5.0])), X, y, rho=1.0)
    assert msg.startswith("y_i <w, x_i>_1 = -4")
    assert reference.verify_exact(replace(r, w=np.array([1.0, 0.0])), X, y, rho=1.0) == ""
    p = reference.pdm(X, y, 0.5)
    with pytest.raises(ValueError, match=r"^rho is the bias of the Perceptrons' runs; .*drop rho="):
        reference.verify_exact(p, X, y, rho=1.0)


@pytest.mark.parametrize("name", PERCEPTRONS)
@pytest.mark.parametrize("c, rho", [(1.5, 1.0), (3.0, 0.5), (0.5, 1.0), (1.0, 2.0), (4.0, 0.5)])
def test_verify_exact_decides_the_perceptrons_claim_with_their_rho(name, c, rho):
    """Both Perceptrons' w = (-1, 0, c) is a separator of the augmented patterns iff 1 < c rho < 2
    (rationals); verify_exact agrees for each, and names the first failing point otherwise."""
    holds = min(_margins([-1.0, 0.0, c], rho)) > 0
    assert holds == (1 < Fraction(c) * Fraction(rho) < 2)
    reason = ref.verify_exact(_sep(name, [-1.0, 0.0, c]), X2, Y2, rho=rho)
    if holds:
        assert reason == ""
    else:
        i = next(i for i, v in enumerate(_margins([-1.0, 0.0, c], rho)) if not v > 0)
        assert reason.startswith(f"y_i <w, x_i>_{i} = ") and reason.endswith(" is not > 0 in exact arithmetic")


@pytest.mark.parametrize("name", [n for n in GRAM_ALGORITHMS + PRIMAL_ALGORITHMS if n not in PERCEPTRONS])
@pytest.mark.parametrize("status", ["separator", "certificate", "max_iter"])
def test_verify_exact_refuses_rho_for_every_other_algorithm(name, status):
    """rho= is a Perceptron's bias; every other result records what it ran on, so rho= is refused
    by name with the fix (drop it) -- before anything else, whatever the result's status."""
    res = Result(algorithm=name, status=status, iterations=1, w=np.zeros(2), alpha=np.ones(2), p=np.ones(2) / 2)
    msg = f"rho is the bias of the Perceptrons' runs; a {name} result records what it ran on: drop rho="
    with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
        ref.verify_exact(res, X2, Y2, rho=1.0)


@pytest.mark.parametrize("name", PERCEPTRONS)
def test_verify_exact_without_rho_reads_the_patterns_unaugmented(name):
    """No rho: the claim is y_i <w, x_i> > 0 on the data as given.  X = (1, 0), (-1, 1), labels (1, -1):
    w = (1, 0) gives 1 and 1 (holds), w = (0, -1) gives 0 and 1 (fails at point 0)."""
    X, y = np.array([[1.0, 0.0], [-1.0, 1.0]]), np.array([1, -1])
    assert ref.verify_exact(_sep(name, [1.0, 0.0]), X, y) == ""
    assert ref.verify_exact(_sep(name, [0.0, -1.0]), X, y) == "y_i <w, x_i>_0 = 0.000e+00 is not > 0 in exact arithmetic"


@pytest.mark.parametrize("name", PERCEPTRONS)
@pytest.mark.parametrize(
    "len_w, rho, fix",
    [
        (3, None, PASS_RHO),  # w = [w_x, bias], rho forgotten
        (2, 1.0, DROP_RHO),  # w = w_x, rho given for a run without bias
        (4, None, PASS_DATA),  # two coordinates too many: no rho fixes it
        (1, None, PASS_DATA),  # one too few, no rho given: dropping it is no fix
        (4, 1.0, PASS_DATA),  # one too many with rho: passing rho is no fix (it is passed)
        (1, 1.0, PASS_DATA),  # two too few with rho
        (5, 1.0, PASS_DATA),
    ],
)
def test_verify_exact_w_of_the_wrong_length_names_the_fix(name, len_w, rho, fix):
    d = X2.shape[1] + (rho is not None)
    msg = f"w has {len_w} coordinates, the patterns of the data {d}: {fix}"
    with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
        ref.verify_exact(_sep(name, np.ones(len_w)), X2, Y2, rho=rho)


@pytest.mark.parametrize("name, info", [("pfm", {}), ("pdm", {"rho": 1.0}), ("pdm_succ", {"rho": 1.0, "Delta": 0.5})])
@pytest.mark.parametrize("extra", [-1, 1])
def test_verify_exact_pt11_w_of_the_wrong_length_asks_for_the_data(name, info, extra):
    """PT11 results record rho and Delta: their patterns have 2 (+1 for rho, +2 for Delta) coordinates;
    a w one longer or shorter is data of another run, never a rho= question."""
    d = 2 + ("rho" in info) + 2 * ("Delta" in info)
    msg = f"w has {d + extra} coordinates, the patterns of the data {d}: {PASS_DATA}"
    with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
        ref.verify_exact(_sep(name, np.ones(d + extra), **info), X2, Y2)


def test_verify_margin_exact_reads_a_fraction_k_exactly():
    """margin() accepts a K of Fractions at D digits (_prepare compares a Fraction as it is), but
    rational() rounded each Fraction to float64 (float(v)), so verify_margin_exact checked the
    rounded matrix.  K = [[1, 1/9], [1/9, 1]]: m(K) = ||(1/2, 1/2)||_K = sqrt(5/9) (RP14 Lemma 3; the
    points are at angle < 90 degrees, p* = (1/2, 1/2) by symmetry).  u = 0.7453559924999299 has
    u^2 < 5/9, so upper = u is a false claim -- accepted before, since float(1/9) < 1/9 makes the
    rounded matrix's ||p||_K^2 <= u^2.  And K_12 = -1 + 10^-20: the 40-digit margin (~7.07e-11) was
    refuted before ("||alpha||_K = 0": K_12 rounded to -1)."""
    K = _obj(Fraction(1), Fraction(1, 9), Fraction(1))
    u = 0.7453559924999299
    assert Fraction(u) ** 2 < Fraction(5, 9) <= Fraction(u) ** 2 + Fraction(1, 10**15)  # just below m(K)
    false = ref.Margin(value=u, lower=-np.inf, upper=u, feasible=None, alpha=None, p=np.array([0.5, 0.5]),
                       support=(0, 1), precision="float64", method="a false upper bound")
    assert ref.verify_margin_exact(false, K).startswith("upper = 0.7453559924999299 is below ||p||_K / 1^T p")
    true = ref.Margin(value=u, lower=-np.inf, upper=np.nextafter(u, 1), feasible=None, alpha=None,
                      p=np.array([0.5, 0.5]), support=(0, 1), precision="float64", method="its successor")
    assert Fraction(true.upper) ** 2 >= Fraction(5, 9) and ref.verify_margin_exact(true, K) == ""
    K2 = _obj(Fraction(1), Fraction(-1) + Fraction(1, 2**70), Fraction(1))
    m = margin(K2, precision=40)
    m2 = Fraction(1, 2**71)  # ((1 + K_12) / 2 with p* = (1/2, 1/2))
    assert rational(m.lower) ** 2 <= m2 <= rational(m.upper) ** 2 and m.lower > 0
    assert ref.verify_margin_exact(m, K2) == ""


def test_exact_helpers_read_fractions_exactly():
    """rational(1/3) is 1/3; (A x) of Fraction entries is the rational one."""
    assert rational(Fraction(1, 3)) == Fraction(1, 3)
    from reference.exact import exact_matvec
    A = np.array([[Fraction(1, 3), 0.5], [Fraction(2, 3), 1.0]], dtype=object)
    assert exact_matvec(A, [Fraction(3), 2**-60]) == [1 + Fraction(1, 2**61), 2 + Fraction(1, 2**60)]


def test_verify_exact_reads_fraction_data_exactly():
    """X = (1/3, -1), label 1, w = (3, 1): y <w, x> = 1 - 1 = 0 exactly, so not a separator, and the
    reason shows the exact 0 (before: float(1/3) * 3 - 1 = -2^-54, the datum rounded)."""
    X = np.array([[Fraction(1, 3), Fraction(-1)]], dtype=object)
    reason = ref.verify_exact(_sep("perceptron", [3.0, 1.0]), X, [1])
    assert reason == "y_i <w, x_i>_0 = 0.000e+00 is not > 0 in exact arithmetic"


def test_exact_matvec_keeps_wide_integers_of_a_list_exact():
    """A nested list mixing an int beyond 2^53 with floats: (A x)_i exactly (numpy's inference
    would round 2^53 + 1 to the float 2^53)."""
    big = 2**53 + 1
    assert exact_matvec([[big, 0.5], [1, 0.25]], [1, 2]) == [Fraction(big + 1), Fraction(3, 2)]
    assert exact_matvec([[big, 1]], [1.0, -1.0]) == [Fraction(2**53)]


def test_exact_rank_keeps_wide_integers_of_a_list_exact():
    """Rows (2^53 + 1, 0.5) and (2^53, 0.5) differ by (1, 0): rank 2 over the rationals (read as
    float64 both would be (2^53, 0.5): rank 1)."""
    assert exact_rank([[2**53 + 1, 0.5], [2**53, 0.5]]) == 2
    assert exact_rank([[2**53 + 1, 0.5], [2**54 + 2, 1]]) == 1


def test_certificate_sum_tolerance_at_n_1_is_17_eps():
    """|1^T p - 1| <= 17 n eps also at n = 1 (not 34 eps): p = (1 + 16 eps) passes, (1 + 20 eps) fails
    (kills exact._check_certificate_22, max(n, 2))."""
    eps = 2.0**-52
    G = np.array([[1.0]])
    ok = Result("nkp", "certificate", 1, p=np.array([1 + 16 * eps]), info={"epsilon": 5})
    bad = Result("nkp", "certificate", 1, p=np.array([1 + 20 * eps]), info={"epsilon": 5})
    assert verify_exact(ok, G) == ""
    assert verify_exact(bad, G).startswith("sum(p) = ") and "17 n eps" in verify_exact(bad, G)


def test_verify_exact_rejects_each_kind_of_false_claim():
    G = _infeasible_gram(1)
    good = ref.nvn(G, 1e-2)
    assert good.status == ref.CERTIFICATE and verify_exact(good, G) == ""
    bad_p = np.zeros(G.shape[0])
    bad_p[0] = 1.0
    fake = ref.Result("nvn", ref.CERTIFICATE, 1, p=bad_p, info={"epsilon": 1e-2})
    assert "p^T G p" in verify_exact(fake, G)
    fake = ref.Result("nvn", ref.CERTIFICATE, 1, p=np.full(G.shape[0], 0.5), info={"epsilon": 1e-2})
    assert "sum(p)" in verify_exact(fake, G)
    fake = ref.Result("nkp", ref.SEPARATOR, 1, alpha=np.full(G.shape[0], 1 / G.shape[0]))
    assert "(G alpha)" in verify_exact(fake, G)
    X, y = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, -1])
    fake = ref.Result("pdm", ref.SEPARATOR, 1, w=np.array([1.0, 1.0, 0.0]), info={"rho": 1.0, "Delta": None})
    assert "y_i <w, x_i>" in verify_exact(fake, X, y)
    with pytest.raises(ValueError, match="pass y"):
        verify_exact(fake, X)


def test_verify_margin_exact_rejects_a_false_interval():
    from dataclasses import replace

    G = ref.gram(np.array([[1.0, 0.0], [0.6, 0.8]]), np.array([1, 1]))
    m = ref.margin(G)
    assert m.feasible is True and verify_margin_exact(m, G) == ""
    assert "lower" in verify_margin_exact(replace(m, lower=m.lower * (1 + 1e-9)), G)
    assert "upper" in verify_margin_exact(replace(m, upper=m.upper * (1 - 1e-6)), G)
    assert "upper" in verify_margin_exact(replace(m, upper=-0.5, lower=-1.0, feasible=False), G)


@pytest.mark.parametrize("case", range(5), ids=lambda i: _operator_runs()[i][0])
def test_operator_certificates_hold_exactly(case):
    """A certificate claimed through linear_gram holds for G = Z Z^T as stored: ||Z^T p||^2 <
    eps^2 exactly (<= for NVN).  At eps = 1e-20 the float norm of Z^T p is mostly round-off (it
    was claimed at iteration 0, exact ||p||_G^2 = 4.8e-35 > 1e-40); at 1e-3 a certificate exists."""
    pytest.importorskip("numba")
    name, op, run, eps, strict = _operator_runs()[case]
    r = run()
    if r.status == "certificate":
        q, e2 = _exact_operator_norm2(op.Z, r.p), rational(eps) ** 2
        assert (q < e2 if strict else q <= e2), f"{name}: certificate at iteration {r.iterations} with exact ||p||_G^2 = {float(q):.3e}"
        assert verify_exact(r, op) == "", name
    elif r.status == "separator":
        assert all(v > 0 for v in _exact_operator_matvec(op.Z, r.alpha)), f"{name}: false separator at {r.iterations}"
    if eps == 1e-3:
        assert r.status == "certificate", f"{name}: {r.message}"


def test_operator_certificate_verifier_refuses_a_roundoff_norm():
    """The factored verifier judges ||Z^T p|| by its rigorous bound: p = (1/2, 1/2, 0, 0) on X4
    has a computed norm of round-off size; it is refused at 1e-20 (its exact value is far above),
    accepted at 1e-3; and the bound is an upper bound of the exact norm."""
    from reference.arithmetic import factored_norm_upper
    from reference.fast.operator import linear_gram
    from reference.result import verify_certificate_factored

    op = linear_gram(X4, np.ones(4))
    p = np.array([0.5, 0.5, 0.0, 0.0])
    exact = _exact_operator_norm2(op.Z, p)
    assert exact > rational(1e-20) ** 2  # the instance: no certificate at 1e-20 exists for this p
    assert verify_certificate_factored(op.Z, p, 1e-20) != ""
    assert verify_certificate_factored(op.Z, p, 1e-3) == ""
    assert rational(factored_norm_upper(op.Z, p)) ** 2 >= exact


def test_verify_exact_reads_the_operator_and_csr_data():
    """verify_exact accepts what the algorithms accept, and still rejects a false claim there."""
    import dataclasses

    import scipy.sparse as sp

    pytest.importorskip("numba")
    from reference.fast.operator import linear_gram

    op = linear_gram(TRIANGLE, ONES3)
    r = ref.nvn(op, 0.25, engine="fast")
    assert r.status == "certificate" and verify_exact(r, op) == ""
    fake = dataclasses.replace(r, status="separator", alpha=np.full(3, 1 / 3))
    assert "not > 0 in exact arithmetic" in verify_exact(fake, op)
    tight = dataclasses.replace(r, p=np.array([1.0, 0.0, 0.0]))
    assert "is not <=" in verify_exact(tight, op)
    X = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 2.0]]))
    s = ref.pdm(X, [1, 1], 0.1)
    assert s.status == "separator" and verify_exact(s, X, [1, 1]) == ""
    bad = dataclasses.replace(s, w=-s.w)
    assert "not > 0" in verify_exact(bad, X, [1, 1])


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


def test_rational_of_a_fraction_is_the_fraction():
    """rational(Fraction(1, 3)) was Fraction(float(1/3)) -- the verifiers checked a rounded K."""
    assert ref.exact.rational(Fraction(1, 3)) == Fraction(1, 3)
    K = np.array([[Fraction(1, 3), Fraction(0)], [Fraction(0), Fraction(1)]], dtype=object)
    assert ref.exact.exact_matvec(K, [1.0, 0.0]) == [Fraction(1, 3), Fraction(0)]
