"""Kills of session-9 re-census survivors in data_margin, arithmetic, data, exact, gram and perceptrons
(verdicts: benchmarks/mutation/recensus9_data.md).  Expected values are closed forms or exact
rationals, never our own output."""

from __future__ import annotations

import math
import re
import sys
import warnings
from fractions import Fraction

import numpy as np
import pytest

from reference import verify_margin_exact
from reference import data_margin as DM
from reference.patterns import make_patterns
from reference.exact import _quotient
from reference.margin import Margin

gram_pow4_exponent = sys.modules["reference.arithmetic"].gram_pow4_exponent  # (`arithmetic` is also a function)


# -- exact._quotient: the value printed in a refutation message ---------------------------------------


def _sqrt_of_square(Q: Fraction) -> Fraction:
    r = Fraction(math.isqrt(Q.numerator), math.isqrt(Q.denominator))
    assert r * r == Q  # the table below uses perfect squares only: N / sqrt(Q) is then rational
    return r


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
    Kills exact.x__quotient__mutmut_4 (TypeError on overflow), _6, _7 (every subnormal N through
    float64), _9 (N in [2^-1023, 2^-1022) through float64), _16 (Q in [2^-1023, 2^-1022))."""
    exact = N / _sqrt_of_square(Q)
    assert _quotient(N, Q, power) == float(exact if power == 1 else 1 / exact)


def test_verify_margin_exact_reports_a_quotient_beyond_float64():
    """K = [[1e300]], alpha = 2^40: min(K alpha) ~ 1.1e312 and alpha^T K alpha ~ 1.2e324 are beyond
    float64 (float() raises OverflowError); the refutation of a false lower bound 2e150 must still
    print min(K alpha)/||alpha||_K = sqrt(1e300) (kills exact.x__quotient__mutmut_4: TypeError)."""
    K, w = np.array([[1e300]]), np.array([2.0**40])
    truth = math.sqrt(1e300)
    false_lower = Margin(2e150, 2e150, 3e150, True, w, w, (0,), "float64", "doctored")
    msg = verify_margin_exact(false_lower, K)
    assert msg.startswith("lower = 2e+150 exceeds min(K alpha)/||alpha||_K = ")
    assert abs(float(msg.split(" = ")[2].split()[0]) - truth) <= 1e-12 * truth


# -- arithmetic.gram_pow4_exponent: scaled down only as far as the smallest entry stays normal -------


@pytest.mark.parametrize(
    "K, limit",
    [
        # largest 2^1000 (e = 1001, k = 501 wanted); smallest (1 + 2^-52) 2^-101, f = -100 even:
        # k = 460 keeps it at (1 + 2^-52) 2^-1021, one more step makes it subnormal and drops its last bit
        (np.array([[2.0**1000, (1 + 2.0**-52) * 2.0**-101], [(1 + 2.0**-52) * 2.0**-101, 2.0**1000]]), 64),
        # limit = 1: 2 = 2^-1 2^2 is already "huge" (e = 2, k = 1), but 2^-1022 allows no step down
        (np.array([[2.0, 2.0**-1022], [2.0**-1022, 2.0]]), 1),
        (np.array([[2.0, (1 + 2.0**-52) * 2.0**-1021], [(1 + 2.0**-52) * 2.0**-1021, 2.0]]), 1),
    ],
)
def test_gram_pow4_exponent_keeps_the_smallest_entry_normal(K, limit):
    """The docstring: a huge K is scaled down only as far as its smallest nonzero |entry| stays normal
    (>= 2^-1022), so no bit is lost; and as far as that allows (largest |entry| into [1/4, 1) if it can).
    Kills arithmetic.x_gram_pow4_exponent__mutmut_39 ((f + 1022) // 2: one step too far for even f)
    and _14 (`k > 1`: k = 1 skips the clamp; reached with limit <= 2)."""
    k = gram_pow4_exponent(K, limit=limit)
    S = np.ldexp(K, -2 * k)
    a = np.abs(K[K != 0])
    assert np.min(np.abs(S[S != 0])) >= 2.0**-1022
    assert np.array_equal(np.ldexp(S, 2 * k), K)  # no bit lost
    # and it goes as far as allowed: one more power of four would take the smallest entry below 2^-1022,
    # or the largest already lies in [1/4, 1)
    assert np.min(a) * 4.0 ** -(k + 1) < 2.0**-1022 or 0.25 <= np.max(a) * 4.0**-k < 1


# -- data_margin._check_normalize: the message names the fix ----------------------------------------


@pytest.mark.parametrize("bound", ["lower", "upper"])
def test_normalize_with_delta_names_the_fix(bound):
    """The ValueError for normalize=True on patterns with Delta ends with the two ways out, verbatim
    (kills data_margin.x__check_normalize__mutmut_4, "XXmake them ... gamma_dXX")."""
    P = make_patterns(np.array([[1.0]]), np.array([1]), rho=None, Delta=1.0)
    call = {"lower": lambda: DM.certified_lower(P, np.array([1.0, 1.0]), normalize=True),
            "upper": lambda: DM.certified_upper(P, np.array([1.0]), normalize=True)}[bound]  # fmt: skip
    with pytest.raises(ValueError) as err:
        call()
    assert re.search(r"Delta=1\.0; make them with Delta=None, or pass normalize=False for PT11's gamma_d$", str(err.value))


# -- gram: an overflow refused by _check_finite writes no RuntimeWarning ------------------------------


def test_gram_overflow_with_a_zero_entry_writes_no_warning():
    """Polynomial kernel (degree 1, c = 0) on two orthogonal points of norm 1e-160: K = diag(1e-320)
    (subnormal), s_i = 1 / sqrt(K_ii) = 1e160, s s^T = 1e320 overflows to inf, and the zero entry
    K_12 times inf is nan -- an "invalid" RuntimeWarning unless ignored; the overflow is refused by
    the ValueError naming X and the fix, and nothing else is written (kills gram.x_gram__mutmut_100,
    _102: errstate without invalid="ignore")."""
    from reference import gram

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"^gram overflowed float64 .*largest \|X_ij\| is 1e-160\): rescale X"):
            gram(np.array([[1e-160, 0.0], [0.0, 1e-160]]), [1, -1], "polynomial", degree=1, c=0.0)
