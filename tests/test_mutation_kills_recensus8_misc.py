"""Kills of session-8 re-census survivors in exact, arithmetic, data, dynamic_margin, fast.engine
and margin (verdicts: benchmarks/mutation/recensus8_misc.md).  Expected values are closed forms
or exact rationals, never our own output."""

from __future__ import annotations

import warnings
from fractions import Fraction
from types import SimpleNamespace

import mpmath
import numpy as np
import pytest

from reference.arithmetic import arithmetic, row_pow2_exponents
from reference.dynamic_margin import _lambda, pdm, pdm_mu_plus, pdm_threshold, pfm
from reference.exact import exact_det, exact_quadratic_form, rational
from reference.margin import _affine_distance2_exact


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
    # kills exact.x_exact_det__mutmut_5, _7 (np.asarray without dtype=object rounds to float64)
    assert exact_det(A) == det


def test_exact_quadratic_form_is_a_fraction_even_when_empty():
    # kills exact.x__dot__mutmut_4 (sum from int 0): the public exact_quadratic_form is typed
    # -> Fraction; the empty p^T G p is Fraction(0), not int 0
    q = exact_quadratic_form(np.zeros((0, 0)), np.zeros(0))
    assert isinstance(q, Fraction) and q == 0
    assert isinstance(exact_quadratic_form([[2.0]], [0.5]), Fraction)


def test_row_pow2_exponents_of_an_int64_row_reads_it_as_float64():
    # kills arithmetic.x_row_pow2_exponents__mutmut_14, _16: without dtype=float64 the int64
    # row's |-2^63| wraps to -2^63 and its largest |entry| is lost.  max |A_k.| = 2^63 = (1/2) 2^64.
    A = np.array([[-(2**63), 1], [3, -4]], dtype=np.int64)
    assert row_pow2_exponents(A).tolist() == [64, 3]
    assert row_pow2_exponents([[-(2**63), 1]]).tolist() == [64]


# PT11's mu_+ overflows (PFM: beta^2 for a beta beyond 1e154) or is 0/0 (PDM: epsilon so small
# that 1 - epsilon == 1 and eps q underflows, with a_t = t y_k: A = B = C = 0) in float64; _lambda
# evaluates it with numpy's overflow / invalid warnings off and falls back to one update: the
# documented behaviour is a plain single update, with nothing printed.
@pytest.mark.parametrize(
    "run",
    [
        lambda: pfm(np.array([[1.0, 0.5], [-0.5, 1.0]]), np.array([1, -1]), beta=1e200, multiple_updates=True, max_iter=20, engine="textbook"),
        lambda: pdm(np.array([[0.5]]), np.array([1]), epsilon=5e-324, rho=None, multiple_updates=True, max_iter=20, engine="textbook"),
    ],
    ids=["pfm-overflow", "pdm-invalid"],
)
def test_multiple_updates_at_a_non_finite_mu_plus_warn_nothing(run):
    # kills dynamic_margin.x__lambda__mutmut_7, _10 (invalid warnings back on), _8, _11 (overflow)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = run()
    # beta >= ||y_k|| (PFM) and 1 - epsilon == 1 in float64 (PDM): the test p <= theta holds
    # after every update, so the run ends at max_iter = 20 updates
    assert r.status == "max_iter" and r.iterations == 20


def test_lambda_at_an_overflowing_mu_plus_is_one_single_update_and_silent():
    # kills dynamic_margin.x__lambda__mutmut_8, _11 (overflow warnings back on).  Public runs
    # rescale patterns beyond 2^64 first, so this state of a PDM run at the scale 1e300 is built
    # by hand: q = ||y_k||^2 = 1e300, ell = ||a_t||^2 = 1e300, p = a_t.y_k = -1e200 (|p| <=
    # sqrt(q ell)), t = 5, eps = 1/2; p <= theta_5 = ell / 10.  Exactly, mu_+ solves
    # mu^2 + 10 mu - (1 + 1e-99) = 0 (PT11 Sec. 4, divided by eps q; 2 eps - 1 = 0), so
    # mu_+ = 0.099... and lambda = floor(mu_+) + 1 = 1; in float64 B^2 and 4AC overflow.
    pb = SimpleNamespace(
        max_iter=100, mu_plus=pdm_mu_plus, threshold=pdm_threshold, schedule=(np.float64(0.5),),
        q=np.array([1e300]), ar=arithmetic(None),
    )
    s = SimpleNamespace(t=5, run=0, ell=np.float64(1e300))
    p = np.float64(-1e200)
    assert p <= pdm_threshold(0.5, 5, s.ell, pb.ar)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _lambda(pb, s, 0, p) == 1


# _affine_distance2_exact(K_SS) = min {w^T K_SS w : 1^T w = 1} = -det K_SS / det B over Q, on
# K_SS as stored in the chosen arithmetic (mpf entries of D digits, not float64).
def test_affine_distance2_exact_reads_mpf_entries_exactly():
    # kills margin.x__affine_distance2_exact__mutmut_5, _7 (B in float64 rounds the mpf entries).
    # One point: the affine hull is the point itself, lambda = K_11.  Two points with K_SS =
    # [[x, 0], [0, x]]: lambda = x / 2 (w = (1/2, 1/2)).
    with mpmath.workdps(40):
        x = mpmath.mpf(1) / 3  # 1/3 to 133 bits: not a float64
        assert rational(x) != Fraction(float(x))
        assert _affine_distance2_exact(np.array([[x]], dtype=object)) == rational(x)
        two = np.array([[x, mpmath.mpf(0)], [mpmath.mpf(0), x]], dtype=object)
        assert _affine_distance2_exact(two) == rational(x) / 2


def test_affine_distance2_exact_is_none_when_the_kkt_system_is_singular():
    # kills margin.x__affine_distance2_exact__mutmut_20 (`and`: det B = 0 with det K_SS != 0
    # divides by zero).  K_SS = [[a, b], [b, c]] with b = (a + c) / 2 has det B = 2b - a - c = 0:
    # the KKT system [K_SS 1; 1^T 0] has no unique solution and no lambda = -det K_SS / det B.
    # (Such a K_SS is indefinite, det = -(a - c)^2 / 4: within round-off of PSD for a close to c.)
    a, c = 1.0, 1.0 + 2.0**-20
    KSS = np.array([[a, (a + c) / 2], [(a + c) / 2, c]])
    assert exact_det(KSS) == -Fraction(c - a) ** 2 / 4 != 0
    assert _affine_distance2_exact(KSS) is None
