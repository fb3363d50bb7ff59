"""certified_upper and _row_norm_bounds of reference.data_margin at their edges (issue 13, the
session-8 re-census survivors; verdicts in benchmarks/mutation/recensus8_upper.md): tiny data with an
extended space, columns whose squares underflow, a normalized denominator that underflows to 0, rows
of rho alone, the row exponents as documented -- and the regression of a false claim found on the way
(``normalize=True`` on patterns with Delta).

Every expected value is exact: rationals (fractions.Fraction; float data are rationals) compared
squared, so no square root is rounded in a check.
"""

from fractions import Fraction

import math

import numpy as np
import pytest

import reference.data_margin as DM
from reference.patterns import Patterns, make_patterns

ETA = 2.0**-1074  # the smallest positive subnormal


# -- bug: normalize=True on patterns with an extended space ------------------------------------------


@pytest.mark.parametrize("bound", ["lower", "upper"])
def test_normalize_refuses_patterns_with_an_extended_space(bound):
    """One point x = 1 with Delta = 1: y = (1, 1).  Normalized (y / ||y||) the margin of one point is 1,
    but certified_lower(u = (1, 1), normalize=True) returned sqrt(2): it divided u . y (Delta
    coordinate included) by ||z|| = ||x|| = 1, a bound above the margin (a false claim), and
    certified_upper mixed the two spaces the same way.  RP14's normalized points have no extended
    space (margin_from_data refuses the combination): both refuse it, naming the fix."""
    P = make_patterns(np.array([[1.0]]), np.array([1]), rho=None, Delta=1.0)
    call = {"lower": lambda: DM.certified_lower(P, np.array([1.0, 1.0]), normalize=True),
            "upper": lambda: DM.certified_upper(P, np.array([1.0]), normalize=True)}[bound]  # fmt: skip
    with pytest.raises(ValueError, match=r"normalize=True .* no extended space.*Delta=1\.0.*Delta=None, or pass normalize=False"):
        call()
    # without normalize the same patterns are fine: ||y|| = sqrt(2) is the margin of one point
    lo, up = DM.certified_lower(P, np.array([1.0, 1.0])), DM.certified_upper(P, np.array([1.0]))
    assert Fraction(lo) ** 2 <= 2 <= Fraction(up) ** 2


# -- bug: squares of the extended coordinates that underflow ------------------------------------------


@pytest.mark.parametrize("m", [21, 100])
def test_upper_bound_of_extended_coordinates_whose_squares_underflow(m):
    """x_1 = 1 (keeps the data at scale 1: nothing is rescaled), x_k = 0 else, Delta = 2^-537, beta =
    (0, 0.7, ..., 0.7): sum_k beta_k y_k = [0, Delta beta], so the bound is Delta ||beta|| / sum beta,
    squared 2^-1074 0.49 (m - 1) / (0.7 (m - 1))^2.  Each (Delta beta_k)^2 = 0.49 2^-1074 underflows
    to 0, and E had no absolute allowance for it: the bound came out 0.64 (m = 21) and 0.29 (m = 100)
    times the exact one (a false claim; fixed by + 2 (m + 1) 2^-1074 on E, as on the squares of W)."""
    X = np.zeros((m, 1))
    X[0, 0] = 1.0
    Delta = 2.0**-537
    P = make_patterns(X, np.ones(m, dtype=int), rho=None, Delta=Delta)
    beta = np.array([0.0] + [0.7] * (m - 1))
    assert (Delta * 0.7) ** 2 == 0.0  # the instance does what it is built for
    up = DM.certified_upper(P, beta)
    num = sum((Fraction(Delta) * Fraction(b)) ** 2 for b in beta)
    den = sum(Fraction(b) for b in beta)
    assert Fraction(up) ** 2 * den**2 >= num


# -- _row_norm_bounds ---------------------------------------------------------------------------------


def test_normalized_bounds_of_patterns_made_of_rho_alone():
    """Patterns of the bias coordinate alone (d = 0 features, built directly: z_k = l_k rho): every
    normalized point is l_k, so with labels (1, 1) min_k u . y_k / |u| = 1 for u = 1, and the upper
    bound of beta = (1, 1) is |2 rho| / (2 rho) = 1.  _row_norm_bounds must take the row maxima of an
    X without columns as 0 (kills _row_norm_bounds_18, _23: the max of an empty row raises)."""
    P = Patterns(data=np.zeros(0), indices=np.zeros(0, dtype=np.int64), indptr=np.zeros(3, dtype=np.int64),
                 labels=np.array([1, 1]), n_features=0, rho=0.75, Delta=None)  # fmt: skip
    lo = DM.certified_lower(P, np.array([1.0]), normalize=True)
    up = DM.certified_upper(P, np.array([1.0, 1.0]), normalize=True)
    assert 1 - Fraction(1, 10**12) < Fraction(lo) <= 1 <= Fraction(up) < 1 + Fraction(1, 10**12)


@pytest.mark.parametrize("top, e", [(3.0, 0), (1.0, 0), (0.5, 0), (0.75, 0), (0.375, -1), (2.0**-600, -599), (ETA, -1073)])
def test_row_norm_bounds_scale_only_rows_below_one_half(top, e):
    """The documented exponents: a row whose largest |entry| is below 1/2 is scaled up into [1/2, 1)
    (e_k < 0), a row with a larger entry keeps e_k = 0 -- never scaled down (certified_lower relies on
    2^-e_k >= 1 to scale its numerators exactly; kills _row_norm_bounds_42, which scaled rows with an
    entry >= 1 down by 2).  The bounds enclose the scaled row norm (row (top, -top): ||w||^2 = 2 top^2)."""
    P = make_patterns(np.array([[top, -top]]), np.array([1]), rho=None)
    lo, hi, ex = DM._row_norm_bounds(P)
    assert ex.tolist() == [e]
    assert e == 0 or Fraction(1, 2) <= Fraction(top) / Fraction(2) ** e < 1
    norm_sq = 2 * Fraction(top) ** 2 / Fraction(4) ** e  # ||2^-e w||^2
    assert Fraction(float(lo[0])) ** 2 <= norm_sq <= Fraction(float(hi[0])) ** 2


# -- certified_upper: the normalized witness moved onto the scaled rows --------------------------------


def test_normalized_upper_bound_keeps_its_witness_when_it_cannot_be_moved_exactly():
    """z_1 = 2^-1070 e_1, z_2 = 2^-1070 e_2 (orthogonal), beta = (1/2, 0.3), normalized: the bound is
    ||beta|| / sum beta (both ||z_k|| equal), squared (1/4 + 0.3^2) / 0.8^2.  Moving beta onto the rows
    scaled up by 2^1069 would need beta_2 2^-1069, which is not a float (rounded: 0.3125 2^-1069): the
    witness must stay as given (kills certified_upper_33, which moved it whenever a row was scaled,
    and bounded the quotient of (1/2, 0.3125) instead: below the exact value)."""
    P = make_patterns(np.ldexp(np.eye(2), -1070), np.array([1, 1]), rho=None)
    beta = np.array([0.5, 0.3])
    assert np.ldexp(np.ldexp(beta[1], -1069), 1069) != beta[1]  # the instance does what it is built for
    up = DM.certified_upper(P, beta, normalize=True)
    assert Fraction(up) ** 2 * (Fraction(0.5) + Fraction(0.3)) ** 2 >= Fraction(0.5) ** 2 + Fraction(0.3) ** 2


# -- certified_upper: tiny data in the extended space -------------------------------------------------


@pytest.mark.parametrize("x, Delta", [(2.0**-700, 2.0**-700), (3 * 2.0**-900, 2.0**-899), (2.0**-40, 2.0**-40)])
def test_upper_bound_of_tiny_data_in_the_extended_space(x, Delta):
    """One pattern y = [x, Delta] with beta = 1: the bound is ||y||, squared x^2 + Delta^2.  Tiny data
    are scaled up by one power of two before the sums: Delta with them, by the same power (kills
    certified_upper_83, _85 (Delta dropped), _87 - _90 (ldexp called wrongly: TypeError), _91 (Delta
    scaled down instead of up))."""
    P = make_patterns(np.array([[x]]), np.array([1]), rho=None, Delta=Delta)
    up = DM.certified_upper(P, np.array([1.0]))
    assert Fraction(up) ** 2 >= Fraction(x) ** 2 + Fraction(Delta) ** 2


@pytest.mark.parametrize("x, Delta", [(2.0**-700, 1.0), (2.0**-1074, 2.0**-200), (2.0**-600, 2.0**-50)])
def test_margin_in_the_extended_space_of_tiny_data_keeps_its_width(x, Delta):
    """One point x, label 1, in the extended space: the margin is ||[x, Delta]||, squared x^2 + Delta^2.
    margin_from_data documents a relative width ~1e-12 with Delta; the common power of two that
    scales tiny data up must be read from Delta too, else Delta^2 scaled by it overflows and the upper
    bound is inf (kills certified_upper_69)."""
    M = DM.margin_from_data(np.array([[x]]), np.array([1]), Delta=Delta)
    exact = Fraction(x) ** 2 + Fraction(Delta) ** 2
    assert M.separable and math.isfinite(M.upper)
    assert Fraction(M.lower) ** 2 <= exact <= Fraction(M.upper) ** 2 <= exact * (1 + Fraction(1, 10**11))


# -- certified_upper: absolute allowances for what underflows -----------------------------------------


@pytest.mark.parametrize("d0", [1, 3])
def test_upper_bound_of_columns_whose_squares_underflow(d0):
    """Patterns z_1 = 2^-537 (1, ..., 1) (d0 columns) and z_2 = e_1 (keeps the data at scale 1: nothing is
    rescaled), beta = (1, 0): the bound is ||z_1||, squared d0 2^-1074.  certified_upper halves beta
    (exact), so each column sum is 2^-538 and its square 2^-1076 underflows to 0: only the absolute
    allowance 2 (d0 + 1) 2^-1074 on the sum of squares keeps the bound above ||z_1|| (kills
    certified_upper_115 (- allowance: square root of a negative number), _128 (2 (d0 - 1): 0 for
    d0 = 1), _126 (2 / (d0 + 1): 2^-1075 rounds to 0 for d0 = 3))."""
    X = np.zeros((2, d0))
    X[0] = 2.0**-537
    X[1, 0] = 1.0
    P = make_patterns(X, np.array([1, 1]), rho=None)
    up = DM.certified_upper(P, np.array([1.0, 0.0]))
    assert Fraction(up) ** 2 >= d0 * Fraction(2) ** -1074


@pytest.mark.parametrize("a", [12, 8])
def test_upper_bound_whose_normalized_denominator_underflows_claims_nothing_false(a):
    """Two one-feature points z_1 = a 2^-1074, z_2 = 2^-1074 (label 1), normalized, beta = (1/2, 3/8):
    every z_k points the same way, so ||sum beta_k z_k|| / sum beta_k ||z_k|| = 1 exactly.  beta cannot
    be moved onto the rows scaled to [1/2, 1) (3/8 2^-1073 is not a float), so the denominator
    sum_k beta_k ||z_k|| is formed at 2^-1074 scale: 6 2^-1074 for a = 12, 4 2^-1074 for a = 8, and
    its allowance 2 (m + 1) 2^-1074 = 6 2^-1074 takes it to 0 or below.  No claim can be made then
    (inf); dividing by it gave a negative "upper bound" (a = 8) or ZeroDivisionError (a = 12) (kills
    certified_upper_178, _179, _180)."""
    P = make_patterns(np.array([[a * ETA], [ETA]]), np.array([1, 1]), rho=None)
    up = DM.certified_upper(P, np.array([0.5, 0.375]), normalize=True)
    assert up >= 1
