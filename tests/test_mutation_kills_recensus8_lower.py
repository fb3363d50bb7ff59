"""Session-8 re-census survivors of reference.data_margin: certified_lower, _z_coefficients,
margin_from_data (issue 13; verdicts in benchmarks/mutation/recensus8_lower.md).

Every expected value is exact or closed-form: the float data are rationals (fractions.Fraction),
a bound b is compared with min_k u . y_k / ||u|| by squaring (no square root rounded in a check);
the subnormal instances are built so that a product u_i y_i is a tie 1.5 * 2^-1074 that rounds to
2 * 2^-1074 (ties to even), i.e. the float dot product lies above the exact one by half a unit of
the subnormal grid per term: the absolute part 2 n 2^-1074 of the allowance must cover that.
"""

from fractions import Fraction

import math
import warnings

import numpy as np
import pytest

import reference.data_margin as DM
from reference.patterns import make_patterns

ETA = math.ldexp(1.0, -1074)  # the smallest positive subnormal
F_ETA = Fraction(1, 2**1074)


def _exact_margin_parts(P, u):
    """(min_k u . y_k, u . u) in exact rationals (the float data and witness are rationals)."""
    Y = P.dense()
    fu = [Fraction(float(x)) for x in u]
    N = min(sum((Fraction(float(y)) * a for y, a in zip(row, fu)), Fraction(0)) for row in Y)
    return N, sum((a * a for a in fu), Fraction(0))


def _at_most(b, N, Q):
    """b <= N / sqrt(Q) exactly (Q > 0), b a float (-0.0 reads as 0) or a Fraction."""
    b = Fraction(b)
    if b <= 0 <= N:
        return True
    if b > 0 >= N:
        return False
    if b > 0:  # both positive
        return b * b * Q <= N * N
    return b * b * Q >= N * N  # b <= 0, N < 0: |b| >= |N| / sqrt(Q)


# ------------------------------------------------------------------------------------------------------------
# certified_lower: the absolute allowances of products that underflow, and the final - 2^-1074
# ------------------------------------------------------------------------------------------------------------

#: (name, X, y, u): one pattern (no rho, no Delta), its entries multiples of 2^-1074, u exactly in [1/2, 1)
#: (scaled_pow2_exact leaves it as it is).  Worked by hand (u = 0.75 everywhere unless said):
#: - ties_up_10: x = 2 eta in 10 coordinates: each product 1.5 eta rounds to 2 eta, the float dot product is
#:   20 eta against the exact 15 eta; exact margin 15 eta / (0.75 sqrt 10) = 6.32 eta.  The allowance
#:   2 n eta (n = 12) takes it below 0; with 2 / n eta (rounds to 0) the bound is fl(20 / 2.37) - 1 = 7 eta,
#:   above the exact margin.
#: - negative_tie_1024: x = -2 eta in one of 1024 coordinates: float product -2 eta, exact -1.5 eta;
#:   ||u|| = 24; num = -2 - 6 = -8 eta, -8 / 24 eta rounds to -0.0, so only the final - eta keeps the
#:   bound (-eta) below the exact -1.5 / 24 eta = -0.0625 eta (+ eta, or - 0, gives a bound above it).
#: - num_zero: x = 12 eta, u = 0.5 (1-d): u . y = 6 eta exactly = e (the relative part underflows, the
#:   absolute one is 2 * 3 eta): num = 0 exactly; the bound is 0 (num = 0 is exact), within the
#:   allowance of the exact 12 eta (a bound of -1 is not).
LOWER_SUBNORMAL = [
    ("ties_up_10", np.full((1, 10), 2 * ETA), [1], np.full(10, 0.75)),
    ("negative_tie_1024", np.eye(1, 1024) * (-2 * ETA), [1], np.full(1024, 0.75)),
    ("num_zero", np.array([[12 * ETA]]), [1], np.array([0.5])),
]


@pytest.mark.parametrize("name, X, y, u", LOWER_SUBNORMAL, ids=[c[0] for c in LOWER_SUBNORMAL])
def test_lower_bound_with_products_that_underflow(name, X, y, u):
    """certified_lower <= min_k u . y_k / ||u|| exactly where every product underflows and rounds up (ties),
    and not weaker than its allowance: exact - bound <= 4 (gamma_n |u|.|y_k| + n 2^-1074) / ||u|| + 4 * 2^-1074
    (the docstring's error bound gamma_{n} |u|.|y_k| with its safety factor 2, doubled again; n = nnz + 2).
    Kills certified_lower_28 (2 / n 2^-1074), _114 (+ 2^-1074), _123 (no - 2^-1074), _127 (- 1.0 at num = 0)."""
    P = make_patterns(X, np.array(y), rho=None)
    b = DM.certified_lower(P, u)
    N, Q = _exact_margin_parts(P, u)
    assert _at_most(b, N, Q), f"{name}: bound {b!r} above the exact margin"
    n = int(P.row_nnz()[0]) + 2
    gam = Fraction(n, 2**53) / (1 - Fraction(n, 2**53))
    A = sum(abs(Fraction(float(a)) * Fraction(float(x))) for a, x in zip(u, P.dense()[0]))
    slack = 4 * (gam * A + n * F_ETA)
    # exact - b <= slack / ||u|| + 4 eta  <=>  -(b + 4 eta) <= (slack - N) / ||u||
    assert _at_most(-(Fraction(b) + 4 * F_ETA), slack - N, Q), f"{name}: bound {b!r} weaker than its allowance"


def test_lower_bound_of_a_witness_whose_square_overflows_writes_no_warning():
    """u = (2^600, 2^-1000) cannot be scaled exactly (2^-1000 would leave the subnormal range), u . u overflows:
    the answer is -inf ("no claim") and nothing is written -- no RuntimeWarning (kills certified_lower_74,
    errstate(over=None))."""
    P = make_patterns(np.array([[1.0, 1.0]]), np.array([1]), rho=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert DM.certified_lower(P, np.array([2.0**600, 2.0**-1000])) == -math.inf


# ------------------------------------------------------------------------------------------------------------
# _z_coefficients: beta_k = p_k / ||z_k||, ||z_k|| = 2^ez_k nrm_k; times 2^min(ez) only where that overflows
# ------------------------------------------------------------------------------------------------------------

#: (p, nrm, ez, overflows): every p_k / nrm_k and every power of two exact, so the expected values are exact.
Z_COEFF = [
    ([0.25, 0.75], [0.5, 0.75], [3, -2], False),  # p / ||z|| = (1/16, 4): no overflow, no common factor
    ([0.5, 0.5], [0.5, 1.0], [-1030, 0], True),  # p / ||z|| = (2^1030, 1/2): overflows; times 2^-1030
]


@pytest.mark.parametrize("p, nrm, ez, overflows", Z_COEFF)
def test_z_coefficients_are_p_over_the_norms(p, nrm, ez, overflows):
    """The docstring: beta_k = p_k / ||z_k||, or that times the one factor 2^min(ez) where it overflows, finite,
    and without a warning (kills _z_coefficients_1 (errstate(over=None)), _11, _13 (always the common factor),
    _12 (an infinite beta), _15 .. _18, _21 (TypeError), _19 (p nrm), _20 (2^(min(ez) + ez)))."""
    p, nrm, ez = np.array(p), np.array(nrm), np.array(ez)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        beta = DM._z_coefficients(p, nrm, ez)
    want = [Fraction(a) / (Fraction(b) * Fraction(2) ** int(e)) for a, b, e in zip(p, nrm, ez)]
    factor = Fraction(2) ** int(min(ez)) if overflows else Fraction(1)
    assert np.all(np.isfinite(beta))
    assert [Fraction(float(b)) for b in beta] == [w * factor for w in want]


# ------------------------------------------------------------------------------------------------------------
# margin_from_data: the best estimate, separable, the method text of the polish
# ------------------------------------------------------------------------------------------------------------

#: (kwargs, X, y, exact margin squared): closed forms.  Delta = 1, one point x = 1: y = (1, 1), margin sqrt 2.
#: x = (3, 4), (4, 3), both +1: min-norm point (3.5, 3.5), margin^2 = 24.5; normalized: (0.7, 0.7), 0.98.
VALUE_CASES = [
    (dict(Delta=1.0), [[1.0]], [1], Fraction(2)),
    (dict(), [[3.0, 4.0], [4.0, 3.0]], [1, 1], Fraction(49, 2)),
    (dict(normalize=True), [[3.0, 4.0], [4.0, 3.0]], [1, 1], Fraction(49, 50)),
]


@pytest.mark.parametrize("kw, X, y, g2", VALUE_CASES, ids=["Delta", "plain", "normalize"])
def test_value_is_the_converged_estimate_not_a_bound(kw, X, y, g2):
    """value = the search's own margin (1 / ||u|| with Delta, ||u|| without), converged to a few units of
    round-off, inside [lower, upper]; the certified ends carry the a-priori allowances (~10 to 40 units each
    side), so the best estimate is within a quarter of the width of the exact margin.  A value clamped to
    an end (||u|| or 2 / ||u|| for 1 / ||u||, margin_from_data_136, _137; the Wolfe search on twice the
    normalized points, _199) is not."""
    M = DM.margin_from_data(np.array(X), np.array(y), **kw)
    assert M.lower <= M.value <= M.upper
    g = math.sqrt(g2)  # within half a unit of the last place of the exact margin
    assert M.lower < g < M.upper
    assert abs(M.value - g) <= (M.upper - M.lower) / 4


def test_extended_space_witness_that_proves_nothing_is_undecided(monkeypatch):
    """x = 14 * 2^-1074, Delta = 1: y = (14 eta, 1).  A Newton step that returns v = 0.5, s = eta gives
    u . y = 7 eta + eta = 8 eta exactly, = the allowance 2 * 4 eta (the relative part underflows): num = 0,
    lower = 0 certifies nothing, so separable is None ('True' needs a certified lower > 0; kills
    margin_from_data_143, lo >= 0)."""
    monkeypatch.setattr(DM, "_newton_l2svm", lambda P: (np.array([0.5]), np.array([ETA]), 1))
    M = DM.margin_from_data(np.array([[14 * ETA]]), np.array([1]), Delta=1.0)
    assert M.lower <= 0.0  # = 0 here: the witness certifies nothing (a wider allowance gives < 0)
    assert M.separable is None


def test_min_norm_witness_that_proves_nothing_is_undecided():
    """One point x = (8, 8) 2^-1074 (no monkeypatch: Wolfe's p = (1), u = x, scaled exactly to (1/2, 1/2)):
    u . y = 8 eta exactly = the allowance 2 * 4 eta (the relative part underflows): num = 0, lower = 0 certifies
    nothing (the margin 8 sqrt 2 eta is positive, but 'True' needs a certified lower > 0), so separable is None
    (kills margin_from_data_280, lo >= 0; census3's test_wolfe_witness_that_proves_nothing_is_undecided no
    longer reaches lower = 0 since the allowance got its absolute part 2 n 2^-1074)."""
    M = DM.margin_from_data(np.array([[8 * ETA, 8 * ETA]]), np.array([1]))
    assert M.gordan is None
    assert M.lower <= 0.0  # = 0 here (a wider allowance gives < 0)
    assert M.separable is None
    assert "undecided" in M.method


def _stalled_wolfe(Yn):
    """A float Wolfe that stopped at the first point: p = e_1 (a valid but not optimal witness)."""
    p = np.zeros(Yn.shape[0])
    p[0] = 1.0
    return p, 1, False


POLISH_CASES = [
    # the polish returns the float witness unchanged: nothing replaced, the method does not say polished
    ("identity", lambda Yn, p: (p, Yn.T @ p), False),
    # the polish improves the lower witness only (u = the min-norm point (3.5, 3.5), p unchanged): says polished
    ("lower only", lambda Yn, p: (p, np.array([3.5, 3.5])), True),
]


@pytest.mark.parametrize("name, polish, says", POLISH_CASES, ids=[c[0] for c in POLISH_CASES])
def test_method_says_polished_exactly_when_a_polished_witness_is_reported(monkeypatch, name, polish, says):
    """x = (3, 4), (4, 3), both +1; Wolfe stalled at p = e_1 (u = (3, 4): lower 24/5, upper 5, wide, so the
    polish runs).  The method text mentions the polish iff a bound reported comes from it (kills
    margin_from_data_269 (and), _270 (lo2 >= lo), _271 (up2 <= up))."""
    monkeypatch.setattr(DM, "_wolfe_primal", _stalled_wolfe)
    monkeypatch.setattr(DM, "_polish_mp", polish)
    M = DM.margin_from_data(np.array([[3.0, 4.0], [4.0, 3.0]]), np.array([1, 1]))
    from_polish = not np.array_equal(M.u, [3.0, 4.0])
    assert from_polish is says
    assert ("polished at 40 digits" in M.method) is says
    assert M.lower <= math.sqrt(24.5) <= M.upper
