"""Kills of the session-9 re-census survivors in reference/margin.py's margin(), _margin and
_prepare (issue 13; verdicts in benchmarks/mutation/recensus9_margin_driver.md).

Every instance has a closed form or is re-checked in exact rational arithmetic
(reference.exact.verify_margin_exact); each test was run against the mutant it names (it fails)
and against the original (it passes).
"""

import re
import sys
from fractions import Fraction

import numpy as np
import pytest

import reference  # noqa: F401  (imports the package; the module is reached through sys.modules)
from reference.exact import rational, verify_margin_exact

M = sys.modules["reference.margin"]  # the package re-exports the function `margin` under the module's name
u = 2.0**-53


def _q(x) -> Fraction:
    return Fraction(rational(x))


# -- _prepare: an asymmetric K (within check_gram's tolerance) is averaged entry by entry ------------


@pytest.mark.parametrize("precision", [None, 30])
def test_asymmetric_k_is_replaced_by_the_average_of_its_pairs(precision):
    """K = [[2, 1 + 2^-40], [1, 2]] passes check_gram's symmetry test (|K_12 - K_21| = 2^-40 <=
    1e-10 max|K|) and is read as its symmetric part, whose off-diagonal (1 + 2^-40)/2 + 1/2 =
    1 + 2^-41 is exact: the answer is that of K_sym = [[2, c], [c, 2]], c = 1 + 2^-41, field by field.
    Closed form: two points of norm^2 2 and inner product c, p* = (1/2, 1/2) by symmetry, so
    m(K_sym)^2 = (2 + c) / 2 [RP14 Lemma 3].  Mutants of the average (a/2 - b/2, a/3 + b/2,
    a/2 + b/3): the off-diagonal becomes ~0 or ~5/6, and m^2 moves to ~1 or ~1.42 (from 1.5)."""
    c = 1 + 2.0**-41
    K_asym = np.array([[2.0, 1 + 2.0**-40], [1.0, 2.0]])
    K_sym = np.array([[2.0, c], [c, 2.0]])
    assert (1 + 2.0**-40) / 2 + 1.0 / 2 == c  # the average is exact in float64
    m, ms = M.margin(K_asym, precision=precision), M.margin(K_sym, precision=precision)
    assert (m.value, m.lower, m.upper, m.feasible) == (ms.value, ms.lower, ms.upper, ms.feasible)
    m2 = (2 + Fraction(c)) / 2
    assert m.feasible is True and 0 < _q(m.lower) ** 2 <= m2 <= _q(m.upper) ** 2
    assert verify_margin_exact(m, K_sym) == ""


# -- margin(): lower == upper is not crossed ------------------------------------------------------


@pytest.mark.parametrize("K", [np.diag([1.0, 0.0]), np.diag([1.0, 1.0, 0.0]), np.diag([0.0, 4.0])])
def test_a_point_at_the_origin_gives_the_exact_margin_zero(K):
    """A zero point z_i = 0 makes (K alpha)_i = 0 for every alpha, so m(K) <= 0; alpha = the sum of the
    other (orthogonal) points gives min(K alpha) = 0, so m(K) = 0 exactly.  margin() certifies it
    with lower = upper = 0 (the exact zero quotient of the witness, and p* = the zero point, whose
    p*^T K p* = 0 exactly): equal bounds are an interval of width 0, not crossed bounds.  Mutant:
    ``m.lower >= m.upper`` refuses it as "not positive semidefinite"."""
    m = M.margin(K)
    assert m.lower == 0 and m.upper == 0 and m.value == 0 and m.feasible is False
    assert verify_margin_exact(m, K) == ""


# -- margin(): the crossed-bounds refusal names the fix and the two bounds ------------------------


def test_crossed_bounds_error_names_the_bounds_and_the_fix():
    """K = [[0, 1e-9], [1e-9, 1]] passes check_gram (2 x 2 PSD test with tolerance 1e-8 n) but is not
    PSD (det = -1e-18 < 0); its certified bounds cross and margin() refuses it.  The message must
    name the argument, the two bounds that cross (printed lower > printed upper) and the fix."""
    K = np.array([[0.0, 1e-9], [1e-9, 1.0]])
    assert _q(K[0, 0]) * _q(K[1, 1]) < _q(K[0, 1]) ** 2  # not PSD, exactly
    with pytest.raises(ValueError) as err:
        M.margin(K)
    msg = str(err.value)
    assert msg.startswith("K is not positive semidefinite: the certified bounds cross")
    lo, up = re.search(r"lower = (\S+) from alpha > upper = (\S+) from p", msg).groups()
    assert float(lo) > float(up)
    assert "pass a PSD matrix, e.g. the Gram matrix of your points (reference.gram / signed_gram)" in msg, msg
    assert msg.endswith("build it at D digits, signed_gram(X, y, precision=D), and pass precision=D"), msg


def test_crossed_bounds_of_an_underflowed_float_gram_matrix_point_to_the_digits_fix():
    """z_1 = 3 2^-600, z_2 = 2^-40, z_3 = 1 (R^1, all on one side: m = min |z_i| = 3 2^-600 > 0).  In
    float64, signed_gram's K_11 = 9 2^-1200 underflows to 0 while K_12 = 3 2^-640 does not, so K as
    stored is not PSD (det [[0, K_12], [K_12, K_22]] < 0): margin() refuses it, and its message
    gives the fix that works -- the Gram matrix at D digits with precision=D, whose interval holds
    the closed form 3 2^-600 exactly (rationals)."""
    X, y = np.array([[3 * 2.0**-600], [2.0**-40], [1.0]]), np.ones(3)
    K = reference.signed_gram(X, y)
    assert K[0, 0] == 0 and K[0, 1] == 3 * 2.0**-640  # the underflow
    with pytest.raises(ValueError, match="K is not positive semidefinite") as err:
        M.margin(K)
    assert "signed_gram(X, y, precision=D), and pass precision=D" in str(err.value)
    Kd = reference.signed_gram(X, y, precision=30)
    m = M.margin(Kd, precision=30)
    assert m.feasible is True and _q(m.lower) <= 3 * Fraction(2) ** -600 <= _q(m.upper)
    assert verify_margin_exact(m, Kd) == ""


# -- _prepare: an object K that float64 cannot hold is not silently rounded in float64 mode --------


def test_mpf_k_that_float64_cannot_hold_is_refused_in_float64_mode():
    """Regression (bug found here): K = [[1, -1 + 10^-20], [-1 + 10^-20, 1]] at 40 digits is the Gram
    matrix of two unit vectors at angle just below pi: separable, m = sqrt(10^-20 / 2) ~ 7.07e-11
    (p* = (1/2, 1/2)) [RP14 Lemma 3].  With precision=None, margin() rounded K to float64 (K_12 =
    -1, the pair z, -z) and certified feasible=False, upper = -1 < 0 < m -- a false claim about K as
    stored, refuted by verify_margin_exact.  Now a ValueError naming precision and the fix; with
    precision=30 the interval holds m.  lower_bound / upper_bound (same float64 certificates) refuse
    too; an object K that float64 holds exactly keeps working, as does min_norm_point (an estimate)."""
    import mpmath

    with mpmath.workdps(40):
        d = mpmath.mpf("1e-20")
        K = np.array([[mpmath.mpf(1), -1 + d], [-1 + d, mpmath.mpf(1)]], dtype=object)
        m2 = rational(d) / 2  # exact m^2 of K as stored
    for call in (lambda: M.margin(K), lambda: M.lower_bound(K, [1, 1]), lambda: M.upper_bound(K, [1, 1])):
        with pytest.raises(ValueError, match=r"K has entries that float64 cannot hold \(K\[0, 1\] = .* rounds to -1\.0\)") as err:
            call()
        assert "pass precision=D" in str(err.value) and "np.asarray(K, dtype=float)" in str(err.value)
    m = M.margin(K, precision=30)
    assert m.feasible is True and _q(m.lower) ** 2 <= m2 <= _q(m.upper) ** 2
    assert verify_margin_exact(m, K) == ""
    assert M.min_norm_point(K).p.tolist() == [0.5, 0.5]  # on the rounded K: an estimate, not refused
    Kx = np.array([[mpmath.mpf(1), mpmath.mpf(-0.5)], [mpmath.mpf(-0.5), 1]], dtype=object)  # exact in float64
    mx = M.margin(Kx)
    assert mx.feasible is True and _q(mx.lower) ** 2 <= Fraction(1, 4) <= _q(mx.upper) ** 2


# -- _margin: the exact re-check of a separation below the float allowance, at EXACT_MAX_N -----------


def test_exact_recheck_of_the_min_norm_point_includes_n_equal_to_exact_max_n(monkeypatch):
    """EXACT_MAX_N is the largest n re-checked exactly (inclusive).  With it set to n = 2: the unit
    vectors with <z_1, z_2> = -1 + 2^-50 are separated by p* = (1/2, 1/2), K p* = 2^-51 (1, 1) > 0
    exactly, m^2 = 2^-51, far below the float round-off allowance -- only the exact evaluation
    certifies feasible=True.  (At the real 400 the same check costs seconds of rational arithmetic:
    tests/test_mutation_kills_margin_screen.py.)  Mutant: ``n < EXACT_MAX_N``."""
    d = 2.0**-50
    K = np.array([[1.0, -1.0 + d], [-1.0 + d, 1.0]])
    monkeypatch.setattr(M, "EXACT_MAX_N", 2)
    m = M.margin(K)
    assert m.feasible is True and "exact rational arithmetic" in m.method
    assert 0 < _q(m.lower) ** 2 <= Fraction(1, 2**51) <= _q(m.upper) ** 2
    assert verify_margin_exact(m, K) == ""


# -- _margin: only a negative facet bound is taken ------------------------------------------------

# Four integer points in R^3 (K = Z Z^T exact, rank 3; tests/test_mutation_kills_margin_final.py::
# test_origin_outside_a_facet_by_less_than_its_round_off): the origin is outside the hull by
# 1/||n|| ~ 7e-12 (n the normal of the facet z_1 z_2 z_3, <n, z_i> >= 1), far below the facet
# round-off: the float64 facet offset is b ~ -2e-18, so -delta + allowance > 0.
_Z4 = [[1901, 55907, 246804], [120322, 69347, 22872], [-102084, -97966, -195343], [-154112, 288563, -64179]]


def _k4():
    Z = np.array(_Z4, dtype=float)
    K = Z @ Z.T
    Zq = [[Fraction(int(x)) for x in row] for row in _Z4]
    assert all(_q(K[i, j]) == sum(a * b for a, b in zip(Zq[i], Zq[j])) for i in range(4) for j in range(4))
    z1, z2, z3, z4 = (np.array(v, dtype=object) for v in _Z4)
    nrm = np.cross(z2 - z1, z3 - z1)
    assert [int(nrm @ z) for z in (z1, z2, z3)] == [1, 1, 1] and nrm @ z4 > 1  # m(K) >= 1 / ||n|| > 0
    return K, int(nrm @ nrm)


def test_a_nonnegative_facet_bound_is_not_taken_when_wolfe_stops_early():
    """With a Wolfe budget of one cycle, p is the affine minimizer of two points (||p||_K / 1^T p ~ 7e4
    exactly); the best facet's -delta + allowance is ~ +1e-8 >= 0, a bound with no witness.  upper
    must stay the witnessed ||p||_K / 1^T p (upper_bound(K, p)), above m(K) >= 1/||n||, and the answer
    re-checks exactly.  Mutants: the facet bound taken when ``value - allowance < 0`` or ``value +
    allowance < 1``: upper = 9.5e-9, below ||p||_K / 1^T p (verify_margin_exact refutes it)."""
    K, n2 = _k4()
    m = M.margin(K, max_iter=1)
    assert m.feasible is None and m.upper == M.upper_bound(K, m.p)
    up = _q(m.upper)
    assert up > 0 and up * up * n2 >= 1
    assert verify_margin_exact(m, K) == ""


def test_a_facet_bound_of_exactly_zero_is_not_taken(monkeypatch):
    """The facet search wrapped to report b = -64 n u for its best facet: then value = b scale and the
    allowance 64 n u scale are the same rounded product, value + allowance = 0 exactly -- not negative,
    so not taken (a facet bound >= 0 has no witness): upper stays ||p||_K / 1^T p > 0 and the answer
    re-checks exactly.  Mutant: ``value + allowance <= 0`` takes upper = 0 and feasible=False, which
    verify_margin_exact refutes (p^T K p > 0 exactly)."""
    K, _ = _k4()
    n = K.shape[0]
    real = M._enumerate_facets

    def at_minus_allowance(Zs, r, tol_side, chunk=8192):
        b, a, T = real(Zs, r, tol_side, chunk)
        return -64 * n * u, a, T

    monkeypatch.setattr(M, "_enumerate_facets", at_minus_allowance)
    m = M.margin(K)
    assert m.upper > 0 and m.upper == M.upper_bound(K, m.p) and m.feasible is None
    assert verify_margin_exact(m, K) == ""


@pytest.mark.parametrize("precision", [None, 30])
def test_infeasible_square_upper_is_minus_delta_up_to_the_facet_allowance(precision):
    """z = (+-1, 0), (0, +-1): the origin is inside the square at distance delta = 1/sqrt(2) from every
    edge, so m(K) = -1/sqrt(2) [RP14 Theorem 3].  K has exact rank 2 = its numerical rank, so the
    facet bound applies: lower <= -1/sqrt(2) <= upper < 0 (exactly, in rationals), feasible=False,
    and upper = value + allowance within twice the facet allowance 64 n u max||z_i|| of -delta (once
    for the float facet value, once added).  Mutants of the facet upper
    bound (``upper = None``, ``min(None, ...)``, ``min(upper, )``, ``value - allowance``, ...):
    TypeError or an upper below m."""
    K = np.array([[1.0, -1, 0, 0], [-1, 1, 0, 0], [0, 0, 1, -1], [0, 0, -1, 1]])
    m = M.margin(K, precision=precision)
    lo, up = _q(m.lower), _q(m.upper)
    assert m.feasible is False and lo < 0 and up < 0
    assert lo * lo >= Fraction(1, 2) >= up * up  # lower <= -1/sqrt(2) <= upper
    slack = 2 * 64 * 4 * Fraction(u)  # max||z_i|| = 1
    assert (slack - up) ** 2 >= Fraction(1, 2)  # upper <= -1/sqrt(2) + slack
    assert verify_margin_exact(m, K) == ""
