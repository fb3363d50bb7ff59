"""Round-off allowances of reference.data_margin that numpy's summation order hides (issue 13; the
survivors left NOT KILLED in benchmarks/mutation/census_allowances.md).

Higham's gamma_n bounds the error of an n-term float sum in *any* order, and the allowances of
certified_upper are built on it.  numpy promises no order: np.sum documents only "partial pairwise
summation" in many cases (numpy 2.4 sums a contiguous float64 vector pairwise over blocks of 8
accumulators; strided or buffered reductions go element by element).  Under the pairwise order a
term passes through ~log2(m) additions, under a left-to-right order through m - 1: an allowance
that is only right for the first hides behind it.  So the bound is checked here with every np.sum
of reference.data_margin evaluated left to right -- an admissible float64 evaluation -- on an
instance built so that each of those additions rounds the adverse way.

Every expected value is exact: rationals (fractions.Fraction; float data are rationals) compared
squared, so no square root is rounded in a check.
"""

from fractions import Fraction

import math

import numpy as np

import reference.data_margin as DM
from reference.arithmetic import scaled_pow2_exact
from reference.patterns import make_patterns

U = Fraction(1, 2**53)


class _LeftToRight:
    """numpy, except that ``sum(a)`` (no axis) adds the entries of ``a`` one by one, left to right, in
    float64 (Python floats: IEEE binary64, round to nearest)."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def sum(a, *args, **kwargs):
        if args or kwargs:
            return np.sum(a, *args, **kwargs)
        acc = 0.0
        for x in np.asarray(a, dtype=np.float64).ravel():
            acc += float(x)
        return np.float64(acc)


def _adverse_beta(m):
    """beta = (1, t, ..., t): t^2 is just below 2^-53, so added to a partial sum of squares 1 it is
    rounded away (the sum of squares comes out ~(m - 1) u low); t modulo 2^-52 is just above 2^-53,
    so each addition to a partial sum in [1, 2) rounds up by ~u (sum beta comes out ~(m - 1) u high)."""
    q = 2.0**-52
    t = (math.floor(math.sqrt(2.0**-53) / q) - 1) * q + 2.0**-53 + 2.0**-79
    assert t * t < 2.0**-53 < math.fmod(t, q)
    return np.array([1.0] + [t] * (m - 1))


def test_upper_bound_holds_when_the_sums_are_added_left_to_right(monkeypatch):
    """m = 100 patterns y_k = [0, e_k] (one zero feature, Delta = 1): sum_k beta_k y_k = [0, beta], so the
    margin bound ||sum beta_k y_k|| / sum beta_k is ||beta|| / sum beta, squared sum beta^2 / (sum beta)^2.
    Left to right, sum beta^2 is rounded down and sum beta up by ~99 u each: the allowances must cover
    (m - 1) u on both (gamma_{m+4} on the squares of the extended coordinates); E / (1 + 2 gamma) or
    E (1 - 2 gamma) instead of E (1 + 2 gamma) is ~34 u below the exact value (kills
    certified_upper_52, _58; under numpy's pairwise order both stay above it)."""
    m = 100
    beta = _adverse_beta(m)
    P = make_patterns(np.zeros((m, 1)), np.ones(m, dtype=int), rho=None, Delta=1.0)
    monkeypatch.setattr(DM, "np", _LeftToRight())
    # the instance does what it is built for: both sums err by ~(m - 1) u, the adverse way
    b = scaled_pow2_exact(beta)  # certified_upper's first step: beta / 2, exact
    for terms, sign in ((b * b, -1), (b, 1)):
        exact = sum(Fraction(float(x)) for x in terms)
        rel = (Fraction(float(DM.np.sum(terms))) - exact) / exact
        assert sign * rel > (m - 2) * U
    up = Fraction(DM.certified_upper(P, beta))
    num = sum(Fraction(float(x)) ** 2 for x in beta)
    den = sum(Fraction(float(x)) for x in beta)
    assert up**2 * den**2 >= num
    assert up**2 * den**2 < num * (1 + 1000 * U)  # and not by far (the square ~350 u above)
