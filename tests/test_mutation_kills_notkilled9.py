"""Kills of the last NOT KILLED survivors of reference/margin.py (issue 13; verdicts in
benchmarks/mutation/notkilled9.md).

Every bound is compared with the exact quotient in rational arithmetic (reference.exact), never
with our own output.
"""

import mpmath
import numpy as np
import pytest

from reference.data import check_gram
from reference.exact import margin_witness_value, ratio_at_least, rational
from reference.margin import lower_bound

# K = diag(1, [[0, -d], [-d, 0]]) with d = 2^-27: eigenvalues 1, +-d.  It is not PSD, but
# check_gram accepts it even with the full eigenvalue test (-d = -7.5e-9 >= -1e-8 n max(1, max|K|)),
# so lower_bound must certify min(K alpha) / sqrt(alpha^T K alpha) on it as on any accepted K (its
# allowances never assume PSD; verify_margin_exact checks the lower witness the same way).
_D = 2.0**-27
_K_INDEFINITE = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -_D], [0.0, -_D, 0.0]])


def _check_lower(K, alpha, precision=None):
    """lower_bound(K, alpha) is finite, negative and <= the exact quotient min(K alpha)/||alpha||_K."""
    lb = lower_bound(K, alpha, precision=precision)
    N, Q = margin_witness_value(K, alpha)
    assert Q > 0 and N < 0
    assert -np.inf < lb < 0 and ratio_at_least(N, Q, rational(lb)), (alpha, lb)


def test_lower_bound_covers_the_rounding_of_a_cancelling_quadratic_form_in_float64():
    """alpha = (1, t, t), t = 2^13 (1 - x): K alpha = (1, -d t, -d t) has no cancellation in any row,
    but alpha^T K alpha = 1 - 2^-26 t^2 = 2x - x^2 (~k 2^-33) cancels: fl(t (K alpha)_2) ~ -1/2 is off
    by up to 2^-54, up to 2^-21 / k of Q.  Only the g |alpha| . |fl(K alpha)| part of eQ covers that; without it
    (mutant _lower_53: eQ = 2 (|a| . e - g |a| . |fl(K a)|), which is ~0 when no row cancels) the
    negative bound N_lo / sqrt(fl(Q) - eQ) is above the exact quotient for every x here (fl(Q) > Q)."""
    check_gram(_K_INDEFINITE, unit_diagonal=False, psd=True)  # an accepted input
    for k in range(1, 9):
        x = k * 2.0**-34 + k * 2.0**-60
        _check_lower(_K_INDEFINITE, np.array([1.0, 2.0**13 * (1 - x), 2.0**13 * (1 - x)]))


@pytest.mark.parametrize("dps", [20, 30, 50])
def test_lower_bound_covers_the_rounding_of_a_cancelling_quadratic_form_in_precision_mode(dps):
    """As above at ``dps`` digits, alpha's entries mpf at that precision (stored exactly): the
    rounding of the working precision (u = 10^-dps) in t (K alpha)_2 is what eQ must cover (the
    mutant's bound is false for 4 to 7 of the 12 t at each dps)."""
    check_gram(_K_INDEFINITE, unit_diagonal=False, psd=True)
    for k in range(1, 13):
        with mpmath.workdps(dps):
            t = mpmath.mpf(2) ** 13 * (1 - mpmath.mpf(k) / 3 * mpmath.mpf(10) ** -9)
        _check_lower(_K_INDEFINITE, np.array([mpmath.mpf(1), t, t], dtype=object), precision=dps)
