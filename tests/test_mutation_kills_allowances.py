"""Round-off allowances of reference.data_margin at their edges (issue 13, census of the survivors
that tighten an allowance; benchmarks/mutation/census_allowances.md), and the regressions of the
bugs found on the way: patterns whose squares underflow, witnesses whose squares overflow.

Every expected value is exact: rationals (fractions.Fraction; float data are rationals) compared
squared, so no square root is rounded in a check.
"""

from fractions import Fraction

import math

import numpy as np
import pytest

import reference.data_margin as DM
from reference.patterns import make_patterns


def _exact_lower_holds(P, u, L, normalize=False):
    """L <= min_k u . y_k / ||u||  (y_k / ||z_k|| with normalize), decided in rationals."""
    if L == -math.inf:
        return True
    uu = [Fraction(float(x)) for x in u]
    Q = sum(x * x for x in uu)
    Y, Z = P.dense(), P.Z().toarray()
    L = Fraction(L)
    for k in range(P.m):
        t = sum(Fraction(float(a)) * b for a, b in zip(Y[k], uu))
        D = Q * sum(Fraction(float(v)) ** 2 for v in Z[k]) if normalize else Q
        if L > 0 and (t <= 0 or L * L * D > t * t):
            return False
        if L <= 0 and t < 0 and L * L * D < t * t:
            return False
    return True


# -- bug: rows whose squares underflow (normalized bounds, R) -----------------------------------------

_TINY = [1e-170, 2.0**-560, 1e-300]


@pytest.mark.parametrize("s", _TINY)
def test_normalized_lower_bound_of_rows_whose_squares_underflow(s):
    """z_1 = s (3, 4), z_2 = s (4, 3), normalized: (3/5, 4/5) and (4/5, 3/5); u = (1, 1) gives
    min_k u . y_k / ||u|| = (7/5) / sqrt(2), i.e. squared 49/50, at any scale s.  The squares of
    entries ~1e-170 underflow to 0: the norm bounds were 0 and the bound was inf (a false claim)."""
    P = make_patterns(np.array([[3.0, 4.0], [4.0, 3.0]]) * s, np.array([1, 1]), rho=None)
    lo = DM.certified_lower(P, np.array([1.0, 1.0]), normalize=True)
    assert 0 < lo and Fraction(lo) ** 2 <= Fraction(49, 50)
    assert Fraction(lo) ** 2 > Fraction(49, 50) * (1 - Fraction(1, 10**12))  # tight, not just sound
    assert _exact_lower_holds(P, [1.0, 1.0], lo, normalize=True)


@pytest.mark.parametrize("s", _TINY)
def test_normalized_upper_bound_of_rows_whose_squares_underflow_is_sound(s):
    """beta = (1, 1) on z_1 = s (3, 4), z_2 = s (4, 3): ||z_1 + z_2|| / (||z_1|| + ||z_2||) =
    7 sqrt(2) / 10, squared 98/100; the upper bound must stay above it (it may be loose there)."""
    P = make_patterns(np.array([[3.0, 4.0], [4.0, 3.0]]) * s, np.array([1, 1]), rho=None)
    up = DM.certified_upper(P, np.array([1.0, 1.0]), normalize=True)
    assert math.isfinite(up) and Fraction(up) ** 2 >= Fraction(98, 100)


@pytest.mark.parametrize("s", _TINY)
def test_margin_from_data_of_tiny_rows(s):
    """The normalized margin of {s (3, 4), s (4, 3)} is (7/5)/sqrt(2) (u = (1, 1) is optimal by
    symmetry), squared 49/50: certified, positive, at any scale s (the search divided by norms 0 and
    stopped on a non-finite witness); R = max ||y_k|| = 5 s rounded up (it was 0)."""
    X = np.array([[3.0, 4.0], [4.0, 3.0]]) * s
    M = DM.margin_from_data(X, np.array([1, 1]), normalize=True)
    assert M.separable and 0 < M.lower and Fraction(M.lower) ** 2 <= Fraction(49, 50) <= Fraction(M.upper) ** 2
    M = DM.margin_from_data(X, np.array([1, 1]))
    exact_sq = max(Fraction(float(a)) ** 2 + Fraction(float(b)) ** 2 for a, b in X)
    assert exact_sq <= Fraction(M.R) ** 2 <= exact_sq * (1 + Fraction(1, 10**12))


def test_R_bounds_a_pattern_whose_square_underflows():
    """y = +-1e-170 (one feature, no rho): max ||y_k|| = 1e-170, squared 1e-340 underflows; R was 0."""
    M = DM.margin_from_data(np.array([[1e-170], [-1e-170]]), np.array([1, 1]))
    assert Fraction(M.R) >= Fraction(1e-170) and M.lower <= -1e-170  # lower: gamma = -1e-170 here


# -- bug: a witness whose square overflows ---------------------------------------------------------


def test_certified_lower_of_a_witness_whose_square_overflows_claims_nothing_false():
    """u = (1e300, 1e-320) cannot be scaled by a power of two exactly (the 1e-320 would underflow),
    and u . u overflows: the bound was num / sqrt(inf) = -0.0, but y_2 = (-1, 0) has
    u . y_2 / ||u|| ~ -1.  Any bound returned must stay <= the exact minimum."""
    P = make_patterns(np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1, 1]), rho=None)
    u = np.array([1e300, 1e-320])
    lo = DM.certified_lower(P, u)
    assert _exact_lower_holds(P, u, lo)
