"""Tests written against surviving mutmut mutants of the algorithm modules (issue 13 item 8):
reference.dynamic_margin, reference.perceptrons, reference.smoothed, reference.von_neumann and
reference.result.

Every expected value is worked by hand in the comments on small integer / dyadic instances
(exact in float64), or is a property of the paper checked independently (the separator
separates in exact rational arithmetic, the certificate certifies, counts within a theorem's
bound) -- never read off the library's output.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

import reference as ref
from reference import result as rs
from reference.exact import verify_exact

# =============================================================================================
# PT11: a full pass without an update whose separator does not verify (issue 11)
# =============================================================================================

# y_1 = l_1 [x_1, rho] = (1, 0, 1); y_2 = (-(1 - 2^-52), 5, 1).  eps = 1 (theta_t = 0, the
# classical test p <= 0): t = 0 updates with y_1 (p = 0 <= 0), a = (1, 0, 1); then
# a.y_2 = -(1 - 2^-52) + 1 = 2^-52 > 0, a.y_1 = 2 > 0: the next full pass makes no update.  But
# 2^-52 is far inside the verifier's allowance (K + 16) u |y_2|.|a| = 19 * 2 * u (u = 2^-52 in
# float64, 10^-16 at 16 digits), so the claim does not verify and y_2, the first (only)
# unverified pattern, counts as a mistake: a = (2^-52, 5, 2), whose margins 2 + 2^-52 and
# 27 - 2^-52 + 2^-104 verify.  So t = 2, the second update with pattern index 1.
_TINY_X = np.array([[1.0, 0.0], [-(1.0 - 2.0**-52), 5.0]])
_TINY_Y = np.array([1, 1])


def _exact_margins(w, X, y, rho=1.0):
    return [Fraction(int(l)) * (sum(Fraction(float(a)) * Fraction(float(b)) for a, b in zip(w[:-1], x)) + Fraction(float(w[-1])) * Fraction(rho)) for x, l in zip(X, y)]


@pytest.mark.parametrize("precision", [None, 16])
def test_pdm_unverified_pass_updates_with_the_first_unverified_pattern(precision):
    res = ref.pdm(_TINY_X, _TINY_Y, 1.0, trace=True, precision=precision)
    assert res.status == ref.SEPARATOR and res.iterations == 2
    assert [s.pattern for s in res.trace if s.pattern is not None] == [0, 1]
    w = [Fraction(float(v)) for v in res.w]
    assert w == [Fraction(1) - (1 - Fraction(1, 2**52)), Fraction(5), Fraction(2)]
    assert all(v > 0 for v in _exact_margins(res.w, _TINY_X, _TINY_Y))
    assert verify_exact(res, _TINY_X, _TINY_Y) == ""


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_pdm_active_sets_unverified_pass_goes_on_to_a_verified_separator(seed):
    # Whichever pattern the random permutation presents first, the first update leaves the
    # other one at margin +-2^-52 ... the run must go on through the unverified claim (a fresh
    # full pass) to a verified separator.
    res = ref.pdm(_TINY_X, _TINY_Y, 1.0, active_sets=True, seed=seed, max_iter=50)
    assert res.status == ref.SEPARATOR
    assert all(v > 0 for v in _exact_margins(res.w, _TINY_X, _TINY_Y))


# =============================================================================================
# reference.result: the factored certificate verifier
# =============================================================================================


def test_verify_certificate_factored_is_strict_by_default():
    # Z = [[3, 4]], p = (1): ||p||_G = ||Z^T p|| = 5 exactly.  The docstring: ``<`` unless
    # strict=False.
    Z = sp.csr_matrix(np.array([[3.0, 4.0]]))
    p = np.array([1.0])
    assert "is not < 5" in rs.verify_certificate_factored(Z, p, 5.0)
    assert rs.verify_certificate_factored(Z, p, 5.0, strict=False) == ""
    assert rs.verify_certificate_factored(Z, p, 5.0 * (1 + 2.0**-52)) == ""
    assert "is not <= 4.99" in rs.verify_certificate_factored(Z, p, 4.999, strict=False)


def test_verify_certificate_factored_simplex_tolerance_boundary():
    # |sum(p) - 1| <= 16 n u is accepted (as simplex_tolerance); one ulp more is not.  n = 1:
    # the tolerance is 16 * 2^-52 = 2^-48, and 1 + 2^-48, 1 + 2^-48 + 2^-52 are floats.
    Z = sp.csr_matrix(np.array([[1.0]]))
    assert rs.verify_certificate_factored(Z, np.array([1.0 + 2.0**-48]), 2.0) == ""
    assert "is not 1" in rs.verify_certificate_factored(Z, np.array([1.0 + 2.0**-48 + 2.0**-52]), 2.0)
    assert "is not 1" in rs.verify_certificate_factored(Z, np.array([1.0 - 2.0**-48 - 2.0**-52]), 2.0)
    # n = 2: tolerance 2^-47
    Z2 = sp.csr_matrix(np.array([[1.0], [1.0]]))
    assert rs.verify_certificate_factored(Z2, np.array([0.5, 0.5 + 2.0**-47]), 2.0) == ""
    assert "is not 1" in rs.verify_certificate_factored(Z2, np.array([0.5, 0.5 + 2.0**-47 + 2.0**-52]), 2.0)
    assert "negative" in rs.verify_certificate_factored(Z2, np.array([1.5, -0.5]), 2.0)
    assert "negative" in rs.verify_certificate_factored(Z2, np.array([np.nan, 1.0]), 2.0)
