"""Tests of reference/fast/pt11_kernels.py."""

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
    kernel squared lambda in int64 (its update of ell_t and _holds_after): for lambda > 3.04e9 the square wrapped
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


def _recorded_pdm(X, y, eps, **kw):
    """reference.pdm(..., engine="fast") with the kernel's visits recorded (pt11_kernels.run_recorded
    in place of run) -> (Result, rec_j, rec_lam, passes as (first visit, level) rows)."""
    from reference.fast import pt11_kernels as K

    cap = 200_000
    rec_j, rec_lam = np.zeros(cap, np.int64), np.zeros(cap, np.int64)
    rec_pass, rec_n = np.zeros(2 * cap, np.int64), np.zeros(2, np.int64)
    real = K.run
    K.run = lambda *args: K.run_recorded(*args, rec_j, rec_lam, rec_pass, rec_n)
    try:
        res = reference.pdm(X, y, eps, engine="fast", **kw)
    finally:
        K.run = real
    n_visits, n_passes = (int(v) for v in rec_n)
    assert n_visits <= cap and n_passes <= cap
    return res, rec_j[:n_visits], rec_lam[:n_visits], rec_pass[: 2 * n_passes].reshape(-1, 2)


@needs_numba
def test_active_sets_read_in_memory_order_make_the_updates_of_the_rows_in_place():
    """PDM (eps = 0.05, Delta = 1/2, active sets + multiple updates [PT11 Sec. 4]) on 400 sparse
    planted points: the kernel visits S1, S2, S3 from contiguous copies of their rows.  Its recorded
    visits, replayed in NumPy on the CSR rows in place (a += lambda y_j for every recorded update),
    give its weights bit for bit, and the same run unrecorded gives them too: the copies hold the
    same rows in the same order, and recording changes nothing."""
    import scipy.sparse as sp

    from reference.patterns import make_patterns

    rng = np.random.default_rng(3)
    X = sp.random(400, 30, density=0.2, format="csr", random_state=4) * 4 - sp.random(400, 30, density=0.1, format="csr", random_state=5)
    y = np.where(X @ rng.normal(size=30) >= 0, 1, -1)
    opts = dict(Delta=0.5, active_sets=True, multiple_updates=True, max_iter=10**7)
    res, rec_j, rec_lam, passes = _recorded_pdm(X, y, 0.05, **opts)
    assert res.status == reference.SEPARATOR and int(rec_lam.sum()) == res.iterations
    assert np.count_nonzero(passes[:, 1] == 3) > 1 and np.any(rec_lam > 1)  # S3 revisited; multiple updates made
    P = make_patterns(X, y, rho=1.0, Delta=0.5)
    a_x, a_r, a_D = np.zeros(P.n_features), 0.0, np.zeros(P.m)
    for j, lam in zip(rec_j, rec_lam):
        if lam:
            lo, hi, lj = P.indptr[j], P.indptr[j + 1], float(P.labels[j])
            a_x[P.indices[lo:hi]] += lam * (P.data[lo:hi] * lj)  # columns of a CSR row are distinct
            a_r += lam * (1.0 * lj)
            a_D[j] += lam * (0.5 * lj)
    np.testing.assert_array_equal(res.w, np.concatenate([a_x, [a_r], a_D]))
    plain = reference.pdm(X, y, 0.05, engine="fast", **opts)
    np.testing.assert_array_equal(plain.w, res.w)
    assert plain.info == res.info


@needs_numba
@pytest.mark.parametrize("kind", [0, 1])
def test_lambda_returns_the_threshold_the_box_computes_after_the_updates(kind):
    """pt11_kernels._lambda returns theta_{t+lambda} from its last round-off guard where that guard
    is at lambda itself (NaN otherwise); the box then uses it in place of dividing again.  It must be
    the box's theta_{t+lambda} = _threshold(t + lambda, ell_{t+lambda}) bit for bit, with ell as
    every update computes it (_ell_after) (ell + 2p + q for one update, ell + 2 lambda p + lambda^2 q for more), and
    y_j must fail the test there.  PDM (kind 0, eps) and PFM (kind 1, beta) on random misclassified
    states."""
    from reference.fast import pt11_kernels as K

    rng = np.random.default_rng(7 + kind)
    returned = 0
    for _ in range(3000):
        t = int(rng.integers(1, 10**6))
        ell = float(t * rng.uniform(0.5, 50.0))
        qj = float(rng.uniform(0.1, 30.0))
        val = float(rng.uniform(0.001, 0.9)) if kind == 0 else float(rng.uniform(0.01, 0.3) * np.sqrt(qj))
        theta = K._threshold(kind, val, t, ell)
        p = float(theta - rng.uniform(0.0, 2.0) * abs(theta) - rng.uniform(0, 1) * qj)  # p <= theta_t: a mistake
        lam, th = K._lambda(kind, val, t, ell, p, qj, 10**12)
        if th != th:
            continue
        returned += 1
        ell_after = ell + 2 * p + qj if lam == 1 else ell + 2.0 * lam * p + float(lam) * float(lam) * qj
        assert th == K._threshold(kind, val, t + lam, ell_after)
        assert not p + lam * qj <= th  # y_j fails the test after lambda updates
    assert returned > 2000  # the common case


def _pdm_states_near_mu_one(rng, n):
    """(eps, p, q, ell, t) of PDM misclassifications whose mu_+ lies near 1 (ell placed so that
    |C| is within a few units of 2^-40 of B), at scales from 2^-499 to 2^499, with C = 0 and with A
    far larger or smaller than B among them."""
    for _ in range(n):
        scale = 2.0 ** int(rng.integers(-499, 500))
        t = int(rng.integers(1, 10**6))
        eps = float(rng.uniform(0.001, 0.999))
        q = scale * float(rng.choice([2.0**-60, 1.0, 2.0**60])) * float(rng.uniform(0.5, 2.0))
        p = -scale * float(rng.uniform(0.0, 2.0)) * t
        B = t * q + (2 * eps - 1) * p
        k = int(rng.integers(-8, 9))
        target = -B * (1.0 - k * 2.0**-40) if rng.uniform() < 0.9 else 0.0  # C = t p - (1 - eps) ell
        yield eps, p, q, (t * p - target) / (1 - eps), t


@needs_numba
def test_pdm_mu_plus_is_below_one_wherever_the_kernel_skips_it():
    """pt11_kernels._lambda skips PDM's square root and division where _pdm_mu_plus_below_one says
    the computed mu_+ lies in [0, 1) (then floor(mu_+) + 1 = 1 and the guards start from 1, as the
    textbook's).  That must hold for the textbook's own mu_+ (reference.dynamic_margin.pdm_mu_plus,
    float64) on every state where the test passes, at the boundary |C| = B and at extreme scales; and
    the test must pass on most of the states away from the boundary (else nothing is skipped)."""
    from reference.arithmetic import Arithmetic
    from reference.dynamic_margin import pdm_mu_plus
    from reference.fast import pt11_kernels as K

    rng = np.random.default_rng(11)
    skipped = near = 0
    for eps, p, q, ell, t in _pdm_states_near_mu_one(rng, 20000):
        if not K._pdm_mu_plus_below_one(eps, p, q, ell, t):
            continue
        skipped += 1
        with np.errstate(all="ignore"):
            mu = pdm_mu_plus(eps, p, q, ell, t, Arithmetic(None))  # float64
        assert 0 <= mu < 1, (eps, p, q, ell, t, mu)
        near += mu > 1 - 2.0**-30
    assert skipped > 5000 and near > 100, (skipped, near)  # the boundary itself is reached
    # by hand (t = 1, eps = 1/2, p = -1): q = 1, ell = 4 gives B = 1, C = -3 (mu_+ = 3: not skipped);
    # q = 4, ell = 2 gives B = 4, C = -2 (mu_+ = 2 / (2 + sqrt 8) < 1: skipped)
    assert K._pdm_coefficients(0.5, -1.0, 1.0, 4.0, 1) == (0.5, 1.0, -3.0)
    assert not K._pdm_mu_plus_below_one(0.5, -1.0, 1.0, 4.0, 1) and K._pdm_mu_plus_below_one(0.5, -1.0, 4.0, 2.0, 1)
    # where mu_+ is not below 1 though |C| <= B (eps = 1/2: B = t q, C = t p - ell / 2), the test
    # must fail: |C| = B with 4 A |C| lost against B^2 (mu_+ = 1 exactly); a subnormal B (B^2
    # underflows: mu_+ = 2); B and |C| near overflow (2C overflows: mu_+ is NaN)
    big = 1.5 * 2.0**1023
    for state in ((0.5, -1.0, 1.0, 0.0, 2**56), (0.5, -3 * 2.0**-1074, 3 * 2.0**-1074, 0.0, 1),
                  (0.5, -big * (1 - 2.0**-38), big, 0.0, 1)):
        with np.errstate(all="ignore"):
            mu = pdm_mu_plus(*state, Arithmetic(None))
        assert not 0 <= mu < 1 and not K._pdm_mu_plus_below_one(*state), (state, mu)


@needs_numba
def test_lambda_squared_is_the_textbooks_rounded_square():
    """pt11_kernels._square(n) is the textbook's float(n * n) -- Python's exact square, rounded once
    to nearest-even -- for every int64 n >= 0: at the ends of the uint64 fast path (2^32), past
    2^53 (where float(n) * float(n) rounds twice) and at the exact ties (n = m 2^j with m odd and
    m^2 of 54 bits: the discarded bit is a lone 1, so round-half-even decides), next to them, and
    where only bits below the leading 64 break a tie."""
    from reference.fast import pt11_kernels as K

    rng = np.random.default_rng(5)
    ns = [0, 1, 2, 3, 3037000499, 3037000500, 2**32 - 1, 2**32, 2**32 + 1, 2**53 - 1, 2**53 + 1, 2**62 + 1, 2**63 - 1]
    ns += [2**54 + 1]  # (2^54 + 1)^2 = 2^108 + 2^55 + 1: a tie at 53 bits that only its last bit breaks
    ns += [int(2.0 ** rng.uniform(0, 63)) for _ in range(3000)]
    for _ in range(1000):
        m = int(rng.integers(94906267, 2**27)) | 1  # m^2 of 54 bits (94906267^2 > 2^53)
        j = int(rng.integers(0, 36))
        ns += [m << j, (m << j) + 1, (m << j) - 1]
    ties = 0
    for n in ns:
        assert K._square(n) == float(n * n), n
        b = (n * n).bit_length() - 53
        ties += b > 0 and (n * n) % (1 << b) == 1 << (b - 1)
    assert ties > 900, ties  # the ties themselves were reached
    # even n whose square's leading 64 bits end in a tie with bits below them set: only those bits
    # (the sticky bit) tell the rounding up from the tie's round-half-even
    decided_below, drawn = 0, 0
    while decided_below < 20 and drawn < 10**6:
        n = int(rng.integers(2**32, 2**63 - 1)) & ~1
        drawn += 1
        k = (n * n).bit_length() - 64
        top = (n * n) >> k
        if top & 0x7FF == 0x400 and (n * n) & ((1 << k) - 1):
            assert K._square(n) == float(n * n), n
            decided_below += float(top << k) != float(n * n)
    assert decided_below == 20, (decided_below, drawn)


def _textbook_lambda(kind, val, t, ell, p, qj, max_iter):
    """reference.dynamic_margin._lambda on the state (t, ell_t) and a pattern with p = a_t.y_j, q_j."""
    from types import SimpleNamespace

    from reference import dynamic_margin as dm
    from reference.arithmetic import Arithmetic

    pb = SimpleNamespace(max_iter=max_iter, schedule=(val,), q=np.array([qj]), ar=Arithmetic(None),
                         threshold=(dm.pdm_threshold, dm.pfm_threshold)[kind], mu_plus=(dm.pdm_mu_plus, dm.pfm_mu_plus)[kind])  # fmt: skip
    return dm._lambda(pb, SimpleNamespace(t=t, ell=ell, run=0), 0, p)


def _cap_state():
    """PDM(eps = 0.3) after a = y_1 = 1 (t = 1, ell = 1) presenting y_2 = 2^-52: mu_+ ~ 2^52, and a
    budget 3 updates above floor(mu_+) + 1: the cap lambda <= room is decided in integers by the
    textbook; in floats (floor(mu_+) + 1 >= room, ulp 2 there) it moved the guards' start and they settled elsewhere."""
    from reference.arithmetic import Arithmetic
    from reference.dynamic_margin import pdm_mu_plus

    s = 2.0**-52
    fl = int(np.floor(pdm_mu_plus(0.3, s, s * s, 1.0, 1, Arithmetic(None))))
    return 0, 0.3, 1, 1.0, s, s * s, fl + 4


def _flicker_at_cap_state():
    """The PFM state below with p = 0.4 + 513 2^-40 and a budget 2 updates above floor(mu_+): there
    the test after floor(mu_+) updates fails while the one after floor(mu_+) + 1 holds (round-off),
    so the cap's integer test floor(mu_+) + 1 >= room must not fire one update early -- started at the
    cap, the guards would keep lambda = room; started at floor(mu_+) + 1, they settle lower."""
    from reference.arithmetic import Arithmetic
    from reference.dynamic_margin import pfm_mu_plus

    p, q = 0.4 + 513 * 2.0**-40, 0.25 + 2.0**-54
    fl = int(np.floor(pfm_mu_plus(0.5, p, q, 1.0, 1, Arithmetic(None))))
    return 1, 0.5, 1, 1.0, p, q, 1 + fl + 2


def _huge_mu_state():
    """PFM(beta = 1/2), q_j = 1/2, p = 0, ell_t = 2^125: s = q - beta^2 = 1/4 and every step of mu_+
    is exact, mu_+ = 2 sqrt(ell_t / 2) = 2^63 exactly -- the edge of the float-to-int conversion
    (int64 holds < 2^63); a budget of 2^62: lambda = room."""
    return 1, 0.5, 1, 2.0**125, 0.0, 0.5, 2**62


@needs_numba
@pytest.mark.parametrize(
    "state",
    [
        # PFM(beta = 1/2), q_j = 1/4 + 2^-54: q_j - beta^2 = 2^-54, so the test p + n q <= beta ||a_t + n y_j||
        # is decided by round-off over some 2^25 n around mu_+ = 8.05e7: the guards' start decides where they settle
        (1, 0.5, 1, 1.0, 0.4, 0.25 + 2.0**-54, 10**12),
        # PDM(eps = 2^-54): 1 - eps rounds to 1, and p = q = ell = t = 1 keep the test an equality
        # (1 + n <= (1 + n)^2 / (1 + n)) until (1 + n)^2 rounds, past 2^26.5; lambda ~ 2^60 needs
        # lambda^2 rounded once (_square), as the textbook's float(n * n)
        (0, 2.0**-54, 1, 1.0, 1.0, 1.0, 2**60),
        (0, 2.0**-54, 1, 1.0, 1.0, 1.0, 2**62),
        # the same with ell_t = 1 + 2^-52 (mu_+ = 1.24: the guards start at 2) and 1 - 2^-53 (mu_+ = -2:
        # they start at max(1, -1) = 1); the test still an equality from n = 1 on
        (0, 2.0**-54, 1, 1.0 + 2.0**-52, 1.0, 1.0, 2**60),
        (0, 2.0**-54, 1, 1.0 - 2.0**-53, 1.0, 1.0, 2**60),
        # p just above theta_t: mu_+ = -0.001, lambda = max(1, floor(mu_+) + 1 = 0) = 1
        (0, 0.5, 1, 1.0, 0.5 + 2.0**-10, 1.0, 100),
        _cap_state(),
        _flicker_at_cap_state(),
        _huge_mu_state(),
        # no finite mu_+ (plain single update, no guards): PFM with beta >= ||y_j||; PDM's mu_+ NaN
        # (2C overflows) and +inf ((-B + sqrt D) / 2A with 2A = 2e-310)
        (1, 2.0, 1, 1.0, 0.5, 1.0, 10**6),
        (0, 0.5, 1, 0.0, -1.5 * 2.0**1023 * (1 - 2.0**-38), 1.5 * 2.0**1023, 10**6),
        (0, 1e-300, 1, 2.0, 1.0, 1e-10, 10**6),
    ],
)
def test_lambda_is_the_textbooks_where_round_off_decides_the_test(state):
    """pt11_kernels._lambda's lambda is the textbook's (reference.dynamic_margin._lambda) on states
    where the test after n updates flips with round-off over a wide range of n -- there lambda
    depends on where the round-off guards start (floor(mu_+) + 1, the cap at the budget, or 1 from
    the below-one shortcut of PDM only) and on ell_{t+n} to the last bit -- and where mu_+ is not finite."""
    from reference.fast import pt11_kernels as K

    kind, val, t, ell, p, qj, max_iter = state
    with np.errstate(all="ignore"):
        expected = _textbook_lambda(*state)
    assert int(K._lambda(kind, val, t, ell, p, qj, max_iter)[0]) == expected, state


@needs_numba
def test_pdm_multiple_update_beyond_2_53_agrees():
    """X = (1), y = 1, no bias, PDM(eps = 2^-54) with multiple updates and a budget of 2^60: after
    a = y_1 the pattern is presented again with the test an equality until (1 + n)^2 rounds, and
    one multiple update of about 2^60 ends the run.  The kernel squared lambda as float(lambda)^2,
    rounded twice past 2^53, and stopped at t = 576,460,752,303,423,553 where the textbook stops at
    1,152,921,495,883,727,170; now both engines make the same run."""
    X, y = np.array([[1.0]]), np.array([1])
    a, b = _both(reference.pdm, X, y, 2.0**-54, rho=None, multiple_updates=True, max_iter=2**60)
    _pt11_same(a, b)
    assert b.status == reference.SEPARATOR and b.iterations > 2**59


@needs_numba
@pytest.mark.parametrize("bias", [False, True])
def test_unverified_update_moves_a_by_y_j_and_stays_inside_its_arrays(bias):
    """pt11_kernels.unverified_update (one update with y_j = l_j [x_j, rho, Delta e_j] after a
    separator that did not verify) adds y_j to a: to a_x, and to a_r and a_D only where the patterns
    have them (empty arrays without bias / Delta, which it must not touch: compiled here with bounds
    checks); t + 1, ell + 2 p + q_j, and theta_{t+1} = (1 - eps) ell_{t+1} / (t + 1) for PDM."""
    import numba

    from reference.fast import pt11_kernels as K

    update = numba.njit(boundscheck=True)(K.unverified_update.py_func)
    data, indices, indptr = np.array([1.0, 2.0, 0.5]), np.array([0, 2, 1]), np.array([0, 2, 3])  # x_0 = (1, 0, 2), x_1 = (0, 0.5, 0)
    labels = np.array([1.0, -1.0])
    rho, Delta = (0.5, 2.0) if bias else (0.0, 0.0)
    q = np.array([5.0, 0.25]) + rho * rho + Delta * Delta
    a_x, a_r, a_D = np.array([1.0, 1.0, 1.0]), np.full(1 if bias else 0, 0.25), np.full(2 if bias else 0, 0.5)
    fstate, istate = np.array([4.0, 0.0]), np.array([3, 0, 0, 0, 0], dtype=np.int64)
    p = -0.5
    update(data, indices, indptr, labels, q, rho, Delta, K.PDM_KIND, np.array([0.25]), a_x, a_r, a_D, fstate, istate, 1, p)
    assert a_x.tolist() == [1.0, 0.5, 1.0]  # a_x - x_1
    assert a_r.tolist() == ([0.25 - 0.5] if bias else []) and a_D.tolist() == ([0.5, 0.5 - 2.0] if bias else [])
    ell = 4.0 + 2 * p + q[1]
    assert istate.tolist() == [4, 0, 0, 0, 0] and fstate.tolist() == [ell, 0.75 * ell / 4]
    if bias:  # a single pattern: a_D of length 1
        a_D = np.array([0.5])
        update(data[:2], indices[:2], indptr[:2], labels[:1], q[:1], rho, Delta, K.PDM_KIND, np.array([0.25]),
               a_x, a_r, a_D, fstate, istate, 0, p)  # fmt: skip
        assert a_D.tolist() == [0.5 + 2.0] and a_x.tolist() == [2.0, 0.5, 3.0] and istate[0] == 5
