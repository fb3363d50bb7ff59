"""Tests of reference/fast/test_pt11_kernels.py."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import reference
from tests.support.fast import _both, _pt11_same
from tests.support.numba import needs_numba


def test_pdm_threshold_after_the_unverified_update_is_at_t():
    """PDM (eps = 1/2, active sets, multiple updates) on z = y_i [x_i, 1] with x = (1 - 2^-52, -3, -2),
    y = (1, 1, -1): the run converges at t = 8 with a separator the verifier refuses (a margin of
    2^-52-ish scale), counts the first pattern within round-off as a mistake, and goes on to the budget.
    After that update theta_t = eps_bar ell_t / t  [PT11 box] with t = 9, the update count (not another
    counter of the state: the epoch count is 8): the fast engine must take the textbook's steps, bit
    for bit."""
    X, y = np.array([[1.0 - 2.0**-52], [-3.0], [-2.0]]), np.array([1, 1, -1])
    opts = dict(active_sets=True, multiple_updates=True, max_iter=300)
    a, b = _both(reference.pdm, X, y, 0.5, **opts)
    assert a.info["t_c"] == (8,) and a.status == reference.MAX_ITER  # the refused convergence at t = 8
    assert (b.status, b.iterations, b.message) == (a.status, a.iterations, a.message)
    np.testing.assert_array_equal(b.w, a.w)
    for key in ("t_c", "epochs", "passes", "ell", "theta"):
        assert b.info[key] == a.info[key], key


def test_pdm_multiple_updates_in_the_extended_space():
    """PDM with multiple updates [PT11 Sec. 4] in the extended space (Delta = 1/2, patterns
    y_k = l_k [x_k, rho, Delta e_k]  [PT11 Sec. 5]): lambda updates with y_j add lambda Delta l_j to
    the j-th extended coordinate.  40 planted points with three labels flipped (separable only in
    the extended space); the textbook's trace shows updates with lambda = 2.  Both engines take the
    same steps: same count, same weights bit for bit, same ell."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X @ np.array([1.0, -1.0, 0.5]) >= 0, 1, -1)
    y[:3] *= -1
    slow = reference.pdm(X, y, 0.5, Delta=0.5, multiple_updates=True, trace=True)
    fast = reference.pdm(X, y, 0.5, Delta=0.5, multiple_updates=True, engine="fast")
    assert any(s.lam is not None and s.lam > 1 for s in slow.trace)  # the multiple-update branch is taken
    assert slow.status == reference.SEPARATOR
    assert (fast.status, fast.iterations, fast.message) == (slow.status, slow.iterations, slow.message)
    np.testing.assert_array_equal(fast.w, slow.w)
    assert fast.info["ell"] == slow.info["ell"] and fast.info["t_c"] == slow.info["t_c"]


@needs_numba
def test_pt11_budget_message_counts_iterations_not_epochs():
    """x = +-1 with the same label (rho = None): no separator; the budget max_iter = 7 runs out after
    7 iterations in fewer epochs.  Both engines report 7 iterations (reference.result.drive's
    message counts the paper's counter t)."""
    X, y = np.array([[1.0], [-1.0]]), np.array([1, 1])
    a, b = _both(reference.pdm, X, y, 0.5, rho=None, max_iter=7)
    _pt11_same(a, b)
    assert b.info["epochs"] != 7
    assert (b.status, b.iterations, b.message) == (reference.MAX_ITER, 7, "budget exhausted after 7 iterations")


@needs_numba
@pytest.mark.parametrize(
    "s, eps, max_iter, exact_lambda",
    [
        (2.0**-32, 0.5, 2**40, True),  # lambda = 2^32 - 1 > sqrt(2^63): lambda^2 wrapped around in int64
        # t = 2^54 - 1 > 2^53: t_c must hold it as an integer (not a double); lambda is decided by
        # the float test here (the exact one differs by round-off at this scale), as in the textbook
        (2.0**-54, 0.5, 2**62, False),
    ],
)
def test_pdm_multiple_updates_beyond_int64_squares_agree(s, eps, max_iter, exact_lambda):
    """x = (1, s) with labels +1, no bias, PDM(eps) with multiple updates: after a = y_1 (t = 1), y_2
    = s is misclassified for about 1/s updates, lambda ~ 1/s of them at once [PT11 Sec. 4].  The
    kernel squared lambda in int64 (_update, _holds_after): for lambda > 3.04e9 the square wrapped
    around -- s = 2^-32 converged at t = 3,037,000,502 instead of the textbook's 2^32, and s = 2^-40
    (eps = 0.3) looped for ever in the round-off guard.  Now lambda^2 is rounded once as a double, as
    the textbook's Python int is: the same run.  The textbook's t and ||a||^2 are checked exactly
    against the definition of lambda (the test holds after lambda - 1 updates, fails after lambda)."""
    X, y = np.array([[1.0], [s]]), np.array([1, 1])
    a, b = _both(reference.pdm, X, y, eps, rho=None, multiple_updates=True, max_iter=max_iter)
    _pt11_same(a, b)
    assert b.status == reference.SEPARATOR and reference.verify_exact(b, X, y) == ""
    t = b.iterations
    assert b.info["t_c"] == (t,) and t > 3037000500  # one update with y_1, then t - 1 with y_2 at once
    # lambda = t - 1 is the definition's: y_2 (p = s, q = s^2 after a = y_1: t = 1, ell = 1) still
    # satisfies p + n q <= (1 - eps) ell_n / (1 + n) after n = lambda - 1 updates, not after lambda
    # (exact rationals; ell_n = 1 + 2 n s + n^2 s^2)
    S, E = Fraction(s), Fraction(eps)

    def holds(n):
        return (S + n * S * S) * (1 + n) <= (1 - E) * (1 + 2 * n * S + n * n * S * S)

    lam = t - 1
    assert not exact_lambda or (holds(lam - 1) and not holds(lam))
