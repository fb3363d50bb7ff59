"""Kills for the census survivors of reference.data_margin (session 6, second half: from the end).

Every expected value is exact (Fractions or closed forms of tiny instances); see
benchmarks/mutation/census_survivors4.md for the mutant-by-mutant account.
"""

from fractions import Fraction

import numpy as np
import pytest

from reference import data_margin as DM
from reference.patterns import make_patterns

U = Fraction(1, 2**53)  # unit roundoff


def _line():
    """Patterns z_0 = (1), z_1 = (2) (rho=None): for u = (s), s > 0, min_k u.y_k / ||u|| = 1 exactly;
    normalized, every y_k / ||y_k|| = (1) and the margin of u is 1 too; for beta = (s, 0) the
    RP14 Lemma 3 quantity ||sum beta_k y_k|| / sum beta_k is 1 (also normalized: beta_0 ||z_0|| = s)."""
    return make_patterns(np.array([[1.0], [2.0]]), np.array([1, 1]), rho=None)


# tiny witnesses (whose squares underflow) and huge ones (whose squares overflow): the quantities
# are invariant under positive scaling, so the certified bounds must stay sound and tight.
SCALES = [1.0, 3e-162, 1e-160, 1e-170, 1e-310, 5e-324, 1e200, 1e300, 1.7e308]


@pytest.mark.parametrize("s", SCALES)
@pytest.mark.parametrize("normalize", [False, True])
def test_certified_bounds_sound_and_tight_for_any_scale_of_the_witness(s, normalize):
    # found by the census: u = (1e-160) gave a lower bound 1.0000056 > 1 (a false claim),
    # u = (1e-170) a ZeroDivisionError, beta = (1e-170, 0) an upper bound 0 < 1 (a false claim).
    P = _line()
    lo = DM.certified_lower(P, np.array([s]), normalize=normalize)
    up = DM.certified_upper(P, np.array([s, 0.0]), normalize=normalize)
    assert Fraction(lo) <= 1 <= Fraction(up)
    # the a-priori allowances are a few dozen u for these 1- and 2-term sums
    assert 1 - 100 * U < Fraction(lo) and Fraction(up) < 1 + 100 * U


def test_certified_upper_allowance_covers_a_cancelling_column():
    # z_0 = (1), z_1 = -(1 - t), beta = (1, 1): w = t exactly (Sterbenz), and the column's
    # allowance e ~ 2 gamma_3 (|z_0| + |z_1|) ~ 12 u = t is as large as w itself; the bound is
    # ||w|| / 2 = t / 2 exactly, and the certificate must lie above it (an allowance subtracted
    # instead of added would give ~0).
    t = 6 * 2.0**-52
    P = make_patterns(np.array([[1.0], [1.0 - t]]), np.array([1, -1]), rho=None)
    up = DM.certified_upper(P, np.array([1.0, 1.0]))
    assert Fraction(up) >= Fraction(t) / 2
    assert Fraction(up) <= 4 * Fraction(t)  # and it is still of the right size


def test_certified_upper_accepts_exact_rational_and_big_integer_weights():
    # beta is converted to float64: Fractions and Python ints beyond int64 are weights like others
    P = make_patterns(np.array([[3.0, 0.0], [0.0, 4.0]]), np.array([1, 1]), rho=None)
    # beta = (1/3, 2/3): sum beta_k z_k = (1, 8/3), norm sqrt(73)/3, sum beta = 1
    up = DM.certified_upper(P, [Fraction(1, 3), Fraction(2, 3)])
    assert Fraction(up) ** 2 >= Fraction(73, 9) and Fraction(up) ** 2 < Fraction(73, 9) * (1 + 100 * U)
    big = DM.certified_upper(P, [2**70, 2**70])  # (3, 4) / 2: exactly 5/2
    assert Fraction(5, 2) <= Fraction(big) < Fraction(5, 2) * (1 + 100 * U)


@pytest.mark.parametrize("normalize, exact", [(False, -5), (True, -1)])
def test_certified_lower_of_a_non_separating_witness_is_sound_and_tight(normalize, exact):
    # z_0 = (3, 4), z_1 = (-3, -4) (norms 5), u = (3, 4) (norm 5): u.y = (25, -25), so
    # min u.y_k / ||u|| = -5, and with normalized patterns -1; the bound is negative here.
    P = make_patterns(np.array([[3.0, 4.0], [-3.0, -4.0]]), np.array([1, 1]), rho=None)
    lo = DM.certified_lower(P, np.array([3.0, 4.0]), normalize=normalize)
    assert Fraction(lo) <= exact
    assert Fraction(lo) > exact * (1 + 100 * U)  # a few dozen u below the truth, not a factor off


# -- _row_norm_bounds: lo <= ||z_k|| <= hi, checked exactly on rows whose squares and sums round --

_NORM_ROWS = [
    [1.0, 0.0, 0.0],
    [0.0011360465324896428, 0.00010970639932180819, -0.0005526473205362325],
    [-9.270512969397014, -1.7385313546667398, 2.9431166664586503],
    [-8.369619281702581e-05, -0.0011632259734447486, -0.0006292880940615545],
    [0.1, 0.2, 0.3],
    [1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0],
]


@pytest.mark.parametrize("rho", [None, 1.0, 0.1])
def test_row_norm_bounds_enclose_the_exact_norms(rho):
    X = np.array(_NORM_ROWS)
    P = make_patterns(X, np.array([1, -1, 1, -1, 1, -1]), rho=rho)
    lo, hi, e = DM._row_norm_bounds(P)  # bounds on ||2^-e_k z_k||
    for k, row in enumerate(_NORM_ROWS):
        sq = (sum(Fraction(v) ** 2 for v in row) + (Fraction(rho) ** 2 if rho is not None else 0)) / Fraction(4) ** int(e[k])
        assert Fraction(lo[k]) ** 2 <= sq <= Fraction(hi[k]) ** 2
        assert sq * (1 - 100 * U) < Fraction(lo[k]) ** 2 and Fraction(hi[k]) ** 2 < sq * (1 + 100 * U)


# -- _up / _down: "a float <= x (>= x) for a float x computed with relative error <= 2u" ------------

_XS = [1.0, 0.5, 0.75, 1.5, 3.0, 1e-300, 5e-324, 1e300, 0.1]


@pytest.mark.parametrize("x", _XS + [-v for v in _XS])
def test_up_and_down_cover_a_relative_error_of_2u(x):
    X = Fraction(x)
    # the extreme true values t with |x - t| <= 2u |t|
    t_lo = X / (1 + 2 * U) if x > 0 else X / (1 - 2 * U)
    t_hi = X / (1 - 2 * U) if x > 0 else X / (1 + 2 * U)
    dn, up = Fraction(DM._down(x)), Fraction(DM._up(x))
    if abs(x) >= 1e-290:  # away from underflow the rounding of the product x (1 -+ 4u) is relative
        assert dn <= t_lo and up >= t_hi
    assert dn <= X <= up
    assert abs(dn - X) <= 16 * U * abs(X) and abs(up - X) <= 16 * U * abs(X)  # a few u, not more


def test_up_and_down_of_zero():
    for z in (0.0, -0.0):
        assert DM._down(z) == 0 and DM._up(z) == 0


# -- _gamma: Higham's gamma_n = n u / (1 - n u) ------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 10, 1000, 10**6, 10**9, 2**40])
def test_gamma_is_highams_gamma(n):
    exact = n * U / (1 - n * U)
    for g in (DM._gamma(n), DM._gamma(np.array([n]))[0], DM._gamma(np.array([float(n)]))[0]):
        assert abs(Fraction(float(g)) - exact) <= 4 * U * exact


# -- _R: max_k ||y_k|| rounded up, y_k = l_k [x_k, rho, Delta e_k] ----------------------------------


@pytest.mark.parametrize("rho, Delta", [(None, None), (1.0, None), (0.5, None), (3.0, None), (None, 0.5),
                                        (0.5, 2.0), (1.0, 1.0)])
def test_R_is_the_largest_pattern_norm_rounded_up(rho, Delta):
    X = np.array([[1e-3, 0.0], [0.1, 0.2], [0.3, -0.25]])
    P = make_patterns(X, np.array([1, -1, 1]), rho=rho, Delta=Delta)
    extra = (Fraction(rho) ** 2 if rho is not None else 0) + (Fraction(Delta) ** 2 if Delta is not None else 0)
    true_sq = max(sum(Fraction(v) ** 2 for v in row) + extra for row in X)
    R = Fraction(DM._R(P, False))
    assert true_sq <= R**2 < true_sq * (1 + 100 * U)
    assert DM._R(P, True) == 1.0


def test_certified_lower_allowance_covers_a_cancelling_dot_product():
    # y = -[x, rho] = (0.797..., -1) and u = (1.63..., 1.30...): u.y ~ -1.2e-3 is the difference of
    # two numbers ~ 1.3, so its float value carries an error ~ u |u|.|y|, far above u |u.y|; the
    # bound must stay below the exact min_k u.y_k / ||u|| (checked in rationals, squared).
    X, u = np.array([[-0.7970092393721301]]), np.array([1.6305228573863613, 1.3006839703204864])
    P = make_patterns(X, np.array([-1]), rho=1.0)
    lo = Fraction(DM.certified_lower(P, u))
    N = -Fraction(X[0, 0]) * Fraction(u[0]) - Fraction(u[1])  # u . y with y = -(x, rho), rho = 1
    Q = Fraction(u[0]) ** 2 + Fraction(u[1]) ** 2
    assert N < 0 and lo < 0 and lo * lo * Q >= N * N  # lo <= N / sqrt(Q) < 0
    assert lo * lo * Q <= N * N * (1 + Fraction(1, 10**6))  # and not far below
