"""Kills of session-8 re-census survivors in exact, arithmetic, data, dynamic_margin, fast.engine
and margin (verdicts: benchmarks/mutation/recensus8_misc.md).  Expected values are closed forms
or exact rationals, never our own output."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from reference.arithmetic import row_pow2_exponents
from reference.exact import exact_det, exact_quadratic_form


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
