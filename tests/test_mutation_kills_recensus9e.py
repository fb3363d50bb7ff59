"""Tests written against the session-9 re-census-4 survivors of reference/margin.py's _solve_mp,
_span_coordinates and min_norm_point (issue 13 item 8; tree /work/wt78 = main 6e578ce; verdicts in
benchmarks/mutation/recensus9b_solve.md).  Each test checks a property that follows from the math
or from the docstring, and each was run by hand against the mutated code it is meant to kill.
"""

import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import reference  # noqa: F401  (imports the package; the module is reached through sys.modules)
from reference.arithmetic import Arithmetic
from reference.exact import rational
from reference.margin import min_norm_point

M = sys.modules["reference.margin"]  # the package re-exports the function `margin` under the module's name


# -- _solve_mp: the refinement rule of the docstring, on a system whose corrections are known exactly


def _quarter_system(D, X):
    """A x = b with A = [[1, 1, 0], [1, 1 + 5 2^-53, 0], [0, 0, 1]], x_true = (1, -1, X), at D digits.

    float64 rounds A_22 = 1 + 5 2^-53 (a tie) to even, 1 + 2^-51 = 1 + h, so with E = A - fl(A) =
    2^-53 e_22 the float64 solve maps the error e of the 2x2 block to (I - fl(A)^-1 A) e =
    -fl(A)^-1 E e, whose only nonzero column is (E_22 / h) (1, -1) = (1, -1) / 4: on e = t (1, -1) the
    error is multiplied by -1/4 exactly.  Every number involved is dyadic and float64 computes
    every step exactly: the first solve gives (5/4, -5/4, X), the error (1, -1) / 4; the residual
    b - A x is (0, +-(5/4) 2^-53 4^-k, 0), correction k has max|dx| = (5/16) 4^-k, and x_3 = X stays
    exact, so for X > 2 the relative correction of step k is exactly (5/16) 4^-k / X (rounded once
    at the working precision) -- and each is a quarter of the one before."""
    ar = Arithmetic(D)
    with ar.context():
        one, zero = mpmath.mpf(1), mpmath.mpf(0)
        A = np.array([[one, one, zero], [one, one + 5 * mpmath.mpf(2) ** -53, zero], [zero, zero, one]], dtype=object)
        x_true = [one, -one, mpmath.mpf(X)]
        b = np.array([mpmath.fsum(A[i, j] * x_true[j] for j in range(3)) for i in range(3)], dtype=object)
    assert float(A[1, 1]) == 1 + 2.0**-51 and b[0] == 0 and b[1] == -5 * mpmath.mpf(2) ** -53 and b[2] == X
    return ar, A, b, x_true


def _expected_path(D, X):
    """(float64 solves, eliminated?) by the rule of _solve_mp's docstring: stop after the first correction k
    with max|dx| / max|x| = (5/16) 4^-k / X <= 10 eps (eps = 10^-D; both rounded at the working precision,
    as computed); every correction is a quarter of the previous one, which still contracts; at most 60."""
    with mpmath.workdps(D):
        target = mpmath.mpf(10) ** (-D) * 10
        for k in range(60):
            if mpmath.mpf(5) / 16 * mpmath.mpf(4) ** (-k) / mpmath.mpf(X) <= target:
                return 1 + (k + 1), False
    return 1 + 60, True


@pytest.mark.parametrize(
    "D, X, case",
    [
        (16, 4.0, "contracting by exactly 1/4: refined, no elimination"),
        (30, 4.0, "contracting by exactly 1/4: refined, no elimination"),
        (38, 16.0, "the 60th correction reaches 10 eps: refined, no elimination"),
        (38, 4.0, "60 corrections do not reach 10 eps: elimination after them"),
        (16, 305175781250.0, "correction 5 is exactly 10 eps: stop there"),
        (16, 305175781250.0 / 1.05, "correction 5 is 10.5 eps: one more"),
    ],
)
def test_solve_mp_follows_its_refinement_rule_on_an_exactly_known_contraction(solve_path, D, X, case):
    """_quarter_system's corrections are known in closed form (relative size (5/16) 4^-k / X, each a
    quarter of the previous); the number of float64 solves and whether elimination is called follow from
    the rule stated in _solve_mp's docstring, and the answer is within 10 eps of x_true (exactly x_true
    after elimination: Gaussian elimination on these dyadic numbers is exact).  Mutants: ``size >=
    prev / 4`` and ``size > prev / 5`` (a quarter exactly called non-contracting: elimination after 3
    solves), ``range(61)`` (a 61st correction instead of elimination), ``size < target`` (goes on past a
    correction of exactly 10 eps), ``eps * 11`` (stops at 10.5 eps)."""
    ar, A, b, x_true = _quarter_system(D, X)
    with mpmath.workdps(D):  # the precondition of each row, in exact rationals
        rel = [Fraction(5, 16) / 4**k / Fraction(X) for k in range(61)]
        eps10 = 10 * rational(mpmath.mpf(10) ** (-D))
    if "exactly 10 eps" in case:
        assert rel[5] == Fraction(1, 10**15) and rel[4] > eps10
    if "10.5 eps" in case:
        assert eps10 < rel[5] < Fraction(21, 20) * eps10 * (1 + Fraction(1, 10**12)) and rel[5] <= Fraction(11, 10) * eps10
    calls = solve_path
    with ar.context():
        x = M._solve_mp(A, b, ar)
    assert (calls["solve"], calls["at_elimination"] is not None) == _expected_path(D, X), case
    err = max(abs(rational(x[i]) - rational(x_true[i])) for i in range(3)) / rational(mpmath.mpf(X))
    if calls["at_elimination"] is not None:
        assert err == 0, case
    else:
        assert err <= 10 * Fraction(1, 10**D), (case, float(err))


def test_solve_mp_refinement_rule_rows_cover_both_sides_of_each_threshold():
    """The table above is not vacuous: its rows take different paths under the stated rule (stop at k = 24,
    47, 59, give up after 60; stop at k = 5 vs k = 6 around 10 eps)."""
    assert _expected_path(16, 4.0) == (26, False)
    assert _expected_path(30, 4.0) == (49, False)
    assert _expected_path(38, 16.0) == (61, False)
    assert _expected_path(38, 4.0) == (61, True)
    assert _expected_path(16, 305175781250.0) == (7, False)
    assert _expected_path(16, 305175781250.0 / 1.05) == (8, False)


# -- min_norm_point: an estimate, so a K that float64 cannot hold is rounded, not refused ----------


def test_min_norm_point_accepts_an_mpf_gram_matrix_that_float64_rounds():
    """min_norm_point is an estimate (no certificate): with precision=None an mpf K is rounded to float64
    (docstring: float64 or mpf entries), unlike lower_bound / upper_bound / margin, which refuse it.
    K = [[1, -1 + 1e-20], [-1 + 1e-20, 1]] (two points z, -z + tiny) rounds to [[1, -1], [-1, 1]], whose
    min-norm point is (1/2, 1/2) with norm 0; at 30 digits the same p has ||p||_K^2 = (1 + K_12) / 2 ~ 5e-21.  Mutants ``as_stored=True`` / default: a ValueError for the float64 call."""
    with mpmath.workdps(30):
        one, t = mpmath.mpf(1), mpmath.mpf("1e-20")
        K = np.array([[one, -one + t], [-one + t, one]], dtype=object)
    r = min_norm_point(K)
    assert [float(v) for v in r.p] == [0.5, 0.5] and r.norm == 0.0 and r.precision == "float64"
    with pytest.raises(ValueError, match="precision=D"):
        M.lower_bound(K, np.array([1.0, 0.0]))  # the certifying functions do refuse it
    r30 = min_norm_point(K, precision=30)
    q = (1 + rational(K[0, 1])) / 2  # ||p||_K^2 of p = (1/2, 1/2) on K as stored (K_12 = -1 + 1e-20 at 30 digits)
    assert [rational(v) for v in r30.p] == [Fraction(1, 2)] * 2
    assert abs(rational(r30.norm) ** 2 - q) <= q * Fraction(1, 10**25)
