"""Tests of reference/margin/test_upper.py."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from reference.arithmetic import Arithmetic
from reference.data import check_gram
from reference.exact import exact_matvec, rational
from reference.margin import lower_bound, min_norm_point, upper_bound
from tests.support.margin import (
    ETA,
    M,
    M2,
    _exact_quotient,
    _indefinite_2_2_psd_matrix,
    _integer_instances,
    _no_a_priori_bounds,
    _upper_holds,
    raises_ending,
    raises_starting,
)


def test_witness_helpers_name_the_argument():
    K = np.eye(3)
    with raises_starting("alpha must be a vector of length 3 (one entry per point), got shape (2,)"):
        lower_bound(K, np.ones(2))
    with raises_starting("alpha must be a vector of length 3 (one entry per point), got shape (1, 3)"):
        lower_bound(K, np.ones((1, 3)))
    with raises_starting("p must be a vector of length 3 (one entry per point), got shape (4,)"):
        upper_bound(K, np.ones(4))
    with raises_starting("p contains NaN or inf; pass finite coefficients"):
        upper_bound(K, np.array([1.0, np.nan, 0.0]))
    with raises_ending("p must be nonnegative and nonzero (a point of the simplex, up to scaling)"):
        upper_bound(K, np.zeros(3))
    with raises_starting("max_iter must be an integer >= 1, got 0"):
        min_norm_point(K, max_iter=0)
    assert min_norm_point(K, max_iter=1).iterations == 1  # one cycle is a valid budget


def test_upper_bound_of_a_witness_whose_products_underflow():
    """p = (1e300, 1e-300) on K = diag(0, 1): ||p||_K / 1^T p = 1e-600 > 0, but p^T K p underflows to 0
    (and p cannot be scaled exactly): the bound was 0 < the exact value.  Now the smallest
    subnormals' allowance keeps it above."""
    K, p = np.diag([0.0, 1.0]), np.array([1e300, 1e-300])
    up = upper_bound(K, p)
    P = [rational(v) for v in p]
    Q = sum(a * b for a, b in zip(P, exact_matvec(K, p)))
    assert Q > 0 and rational(up) ** 2 * sum(P) ** 2 >= Q
    assert 0 < up <= 1e-322  # the allowance, not a large number


def test_upper_factor_alone_keeps_the_bound_above(monkeypatch):
    _no_a_priori_bounds(monkeypatch)
    ar = Arithmetic(None)
    u = 2.0**-53
    rng = np.random.default_rng(5)
    checked = 0
    for K, _ in _integer_instances(300, seed=7, sign=1):
        p = rng.integers(1, 7, size=K.shape[0]).astype(np.float64)
        Q, s = float(p @ K @ p), float(p.sum())
        if float(np.sqrt(Q)) ** 2 == Q:
            continue
        hi = M._upper(K, p, ar)
        r = Fraction(hi) ** 2 * Fraction(s) ** 2 / Fraction(Q)  # (hi / (sqrt(Q) / s))^2
        assert 1 <= r <= (1 + 24 * u) ** 2, f"_upper(K={K.tolist()}, p={p.tolist()}) = {hi!r}: ratio^2 {float(r)}"
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("precision", [None, 30])
def test_upper_bound_is_above_the_exact_quotient_at_every_scale(precision):
    """upper_bound(K, c p) >= ||p||_K / (1^T p) for every c = 2^k, including ||p||_K^2 < 1 (mutant
    ``Q_hi > 1`` returned 0 there) and a K with a zero row (the point z_2 = 0; mutant
    ``e = g / (|K| p)`` divided by (|K| p)_2 = 0 and returned 0, or raised in mpmath)."""
    cases = [
        (np.eye(2), [1.0, 1.0]),
        (np.array([[2.0, 1.0], [1.0, 2.0]]), [1.0, 3.0]),
        (np.array([[1.0, 0.0], [0.0, 0.0]]), [1.0, 0.0]),  # z_2 = 0, p = e_1: value 1
        (np.array([[1.0, 0.0], [0.0, 0.0]]), [1.0, 1.0]),  # value 1/2
    ]
    for K, p in cases:
        for k in range(-40, 41, 5):
            q = [x * 2.0**k for x in p]
            hi = M.upper_bound(K, q, precision=precision)
            Q, s = _exact_quotient(K, q)[1], sum(rational(x) for x in q)
            assert rational(hi) ** 2 * s * s >= Q, f"upper_bound(K={K.tolist()}, p={q}) = {hi} is below ||p||_K / 1^T p"


@pytest.mark.parametrize("precision", [None, 30])
def test_upper_bound_of_the_origin_point_is_zero(precision):
    """p on a point at the origin: ||p||_K = 0, and every product in the evaluation (K p, |K| p,
    p^T K p) is an exact zero, so there is no round-off to allow for and the bound is exactly 0
    (the certificate m(K) <= 0 of a data set containing the origin).  Mutants replacing the
    clamp ``else 0`` by None or 1 fail."""
    K = np.array([[1.0, 0.0], [0.0, 0.0]])
    assert M.upper_bound(K, [0.0, 1.0], precision=precision) == 0
    assert M.upper_bound(K, [0.0, 2.0**-30], precision=precision) == 0


def test_method_text_names_the_upper_bound_it_used_at_b_equal_to_tol_side(monkeypatch):
    """The rounded Gram matrix of a planar triangle around the origin (unit vectors 120 degrees
    apart, turned by 0.1 rad) has exact rank 3 but numerical rank 2, so no facet bound applies to K
    as stored: upper = ||p*||_K / 1^T p*, and the method says so ("undecided for K as stored ...
    upper = ||p*||_K of the min-norm point") whenever the best facet puts the origin in the hull
    within tol_side (b <= tol_side, the tolerance of _hyperplanes' supporting test, inclusive).  The
    facet search is wrapped to report b = tol_side = 1e-10 exactly for its best facet.  Mutant: the
    strict ``b < tol_side``, whose text claims upper = -delta_max."""
    th = 2 * np.pi * np.arange(3) / 3 + 0.1
    Z = np.c_[np.cos(th), np.sin(th)]
    K = Z @ Z.T
    real = M._enumerate_facets

    def at_tol_side(Zs, r, tol_side, chunk=8192):
        b, a, T = real(Zs, r, tol_side, chunk)
        return tol_side, a, T

    monkeypatch.setattr(M, "_enumerate_facets", at_tol_side)
    m = M.margin(K)
    assert m.feasible is None and m.lower < 0 < m.upper
    assert m.upper == M.upper_bound(K, m.p)  # no facet bound for K as stored
    assert m.method.startswith("undecided for K as stored") and "upper = ||p*||_K of the min-norm point" in m.method
    assert "upper = -delta_max" not in m.method


def test_a_negative_quadratic_form_within_round_off_gives_norm_zero():
    """K = [[1, -(1+d)], [-(1+d), 1]], d = 1e-14, is PSD within check_gram's tolerance but not
    exactly: at p = (1/2, 1/2), p^T K p = -d/2 < 0.  The certified upper bound ||p||_K / 1^T p
    and the precision-mode min-norm point's norm are then 0 -- real and >= 0, not a NaN, an
    exception or an mpc (mutants: the sqrt of a negative Q_hi / qm)."""
    d = 1e-14
    K = np.array([[1.0, -(1.0 + d)], [-(1.0 + d), 1.0]])
    assert M.upper_bound(K, [1.0, 1.0]) == 0.0
    up = M.upper_bound(K, [1.0, 1.0], precision=30)
    assert isinstance(up, mpmath.mpf) and up == 0
    r = M.min_norm_point(K, precision=30)
    assert isinstance(r.norm, mpmath.mpf) and r.norm == 0


def test_upper_bound_below_the_smallest_subnormal_rounds_up():
    """K = diag(0, 2^-1074) (scaled by 4^536), p = (1, 1.1 2^-500): ||p||_K / 1^T p ~ 1.1 2^-1037
    exactly; the bound computed on 4^-k K (normal there) times 2^k is subnormal and inexact: it
    must round up, not to nearest (which lands below the exact value here)."""
    K, p = np.diag([0.0, ETA]), np.array([1.0, 1.1 * 2.0**-500])
    ub = upper_bound(K, p)
    assert 0 < ub < 2.0**-1022 and _upper_holds(K, p, ub)


@pytest.mark.parametrize(
    "B, v, e",
    [
        ([[1.0, 0.5, 0.5], [0.5, 0.75, 0.75], [0.5, 0.75, 0.75]], [0.86, 0.8, 0.08], -536),
        ([[0.75, 0.5, 0.25], [0.5, 1.5, 1.75], [0.25, 1.75, 2.25]], [0.49, 0.49, 0.42], -536),
        ([[0.5, -0.75, 0.25], [-0.75, 2.25, -1.75], [0.25, -1.75, 2.25]], [0.03, 0.47, 0.15], -534),
    ],
)
def test_upper_bound_covers_subnormal_products_of_a_tiny_quadratic_form(B, v, e):
    """K = diag(0, B) (B PSD; the first point is the origin), p = (1/2, 2^e v) >= 0: K p = (0, 2^e B v)
    has no underflowing product, but ||p||_K^2 = 2^(2e) v^T B v is a few 2^-1074 and each product
    p_j (K p)_j rounds by up to 2^-1075 -- tens of per cent of it.  p . e is ~0, so only the
    absolute term 4 (n + 1) eta of Q_hi keeps it at or above the exact ||p||_K^2 (with
    4 / (n + 1) eta the upper bound falls below ||p||_K / 1^T p)."""
    K = np.zeros((4, 4))
    K[1:, 1:] = B
    p = np.concatenate([[0.5], np.ldexp(np.array(v), e)])
    assert M._underflow(np.abs(K), p, Arithmetic(None)) == 0  # K p: no product underflows
    ub = upper_bound(K, p)
    assert 0 < ub < math.inf and _upper_holds(K, p, ub)


@pytest.mark.parametrize("m", [4, 19])
def test_upper_bound_covers_underflowing_products_of_k_p(m):
    """K = diag(1, 2^-1074 S), S = 5 J + 4 I (m x m, PSD; the 1 keeps K from being scaled), p = (0, 1/2,
    ..., 1/2): every product of the subnormal block, 2.5 or 4.5 2^-1074, rounds (to even) down by
    2^-1075, so each (K p)_j is computed m/2 2^-1074 low and ||p||_K^2 (about m^2 2^-1074) a
    quarter of that per row low.  The underflow allowance 2 (n + 1) eta of each e_j (through
    2 p . e in Q_hi) covers it; subtracted, or shrunk to 2 / (n + 1) eta (which rounds to 0), the
    upper bound is below ||p||_K / 1^T p (m = 4 and m = 19)."""
    K = np.zeros((m + 1, m + 1))
    K[0, 0] = 1.0
    K[1:, 1:] = np.ldexp(5.0 * np.ones((m, m)) + 4.0 * np.eye(m), -1074)
    check_gram(K, unit_diagonal=False, psd=True)
    p = np.concatenate([[0.0], np.full(m, 0.5)])
    ub = upper_bound(K, p)
    assert 0 < ub < math.inf and _upper_holds(K, p, ub)


def test_upper_bound_is_rigorous_under_cancellation_in_p_K_p():
    """upper_bound(K, p) >= ||p||_K / 1^T p exactly, for a K admitted as PSD up to round-off whose
    p^T K p cancels: K = diag(1, [[0, -b], [-b, 0]]) (smallest eigenvalue -b = -2^-27, within
    check_gram's tolerance), p = (s, 1, 1) with s = (2^27 + 1) 2^-40, 2b = fl(s^2) = s^2 - 2^-80.
    Then p^T K p = s^2 - 2b = 2^-80 exactly, while the float evaluation gives fl(s^2) - 2b = 0:
    only the a-priori allowance for the round-off of p^T K p keeps the bound above the true value."""
    s = (2**27 + 1) * 2.0**-40
    b = (2**53 + 2**27) * 2.0**-80
    assert 2 * Fraction(b) == Fraction(s) ** 2 - Fraction(2) ** -80
    K = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -b], [0.0, -b, 0.0]])
    p = np.array([s, 1.0, 1.0])
    hi = M2.upper_bound(K, p)
    # hi >= sqrt(2^-80) / (s + 2), squared and cleared of denominators
    assert Fraction(hi) ** 2 * (Fraction(s) + 2) ** 2 >= Fraction(2) ** -80


@pytest.mark.parametrize("scale", [1.0, 1e-200, 2.0**-1070, 1e-30, 1e200, 2.0**1000])
def test_lower_and_upper_bounds_of_tiny_witnesses(scale):
    """K = diag(4, 1): alpha = c (1, 4) gives min(K alpha)/||alpha||_K = 4/sqrt(20), p = c (1, 2)
    gives ||p||_K / 1^T p = sqrt(8)/3, for every c > 0.  The certified bounds hold (exactly, in
    rationals) and are tight for a witness at any scale.  [Bug found here: with c = 1e-200, v^T K v
    underflowed to 0 and lower_bound returned inf, upper_bound 0.0 -- both false claims.  With c = 1e200
    it overflowed: the bounds were the true but useless 0.0 and inf.]"""
    K = np.array([[4.0, 0.0], [0.0, 1.0]])
    lo = M2.lower_bound(K, scale * np.array([1.0, 4.0]))
    hi = M2.upper_bound(K, scale * np.array([1.0, 2.0]))
    assert 0 < lo and Fraction(lo) ** 2 * 20 <= 16 and lo >= 4 / np.sqrt(20) * (1 - 1e-14), lo
    assert Fraction(hi) ** 2 * 9 >= 8 and hi <= np.sqrt(8) / 3 * (1 + 1e-14), hi


def test_upper_bound_of_a_negative_quadratic_form_is_zero():
    """K = 2I - 11^T (5 x 5; admitted: its 2 x 2 principal minors are PSD) and p = 1: p^T K p =
    5 - 20 < 0, and ||p||_K = sqrt(max(p^T K p, 0)) = 0 (the G-seminorm's convention), so the
    upper bound is 0 -- not the NaN of a square root of a negative number."""
    assert M2.upper_bound(_indefinite_2_2_psd_matrix(5), np.ones(5)) == 0.0
