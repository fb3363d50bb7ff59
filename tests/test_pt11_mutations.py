"""Precise tests of reference/dynamic_margin.py written against surviving mutants (mutmut).

Each test pins a behaviour of PDM / PFM / PDM-succ (PT11; spec B.4, B.8, B.9) that the broader
suite (tests/test_pt11_algorithms.py) left open.  Expected values are worked by hand in the
comments on small integer / dyadic instances (exact in float64), never read off the library.
"""

from __future__ import annotations


import numpy as np
import pytest

from reference import dynamic_margin as dm
from reference.arithmetic import Arithmetic
from reference.dynamic_margin import pdm, pdm_succ, pfm
from reference.patterns import make_patterns

F64 = Arithmetic(None)


def _pdm_problem(Y, eps, mu_plus=dm.pdm_mu_plus, max_iter=10**9):
    Y = np.asarray(Y, dtype=float)
    return dm._Problem(
        P=make_patterns(Y, np.ones(Y.shape[0]), rho=None), q=np.array([y @ y for y in Y]), ar=F64, threshold=dm.pdm_threshold, mu_plus=mu_plus,
        schedule=(float(eps),), active_sets=False, multiple_updates=True, warmup=False,
        max_iter=max_iter, max_epochs=10**6, seed=0,
    )  # fmt: skip


# =============================================================================================
# multiple updates: lambda = the number of repeated presentations that update
# =============================================================================================


def _lambda_instance(M):
    """y_1 = (M, 0), y_2 = (1, 0), eps = 1/2, state after the update with y_1.

    t = 1, a = (M, 0), ell = M^2, theta = M^2/2.  After n updates with y_2: a = (M + n, 0),
    t = 1 + n, and (8) reads M + n <= (M + n)^2 / (2 (1 + n))  <=>  2 + 2n <= M + n  <=>
    n <= M - 2.  So n = 0..M-2 update: lambda = M - 1 (mu_+ = M - 2 exactly, equality there).
    """
    pb = _pdm_problem([[M, 0.0], [1.0, 0.0]], 0.5)
    s = dm.DynamicMarginState(t=1, a=np.array([float(M), 0.0]), ell=float(M * M), theta=M * M / 2, k=1, order=(0, 1))
    return pb, s


@pytest.mark.parametrize("M", [2, 3, 8, 100])
@pytest.mark.parametrize("error", [-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0])
def test_lambda_is_the_definition_even_if_the_quadratic_is_off(M, error):
    # The docstring of _lambda: the quadratic formula may land on the wrong side in finite
    # precision; lambda is then moved until the test holds after lambda - 1 updates and fails
    # after lambda.  Feed it a mu_+ that is off by `error`: the answer must still be M - 1.
    pb0, s = _lambda_instance(M)
    assert dm.pdm_mu_plus(0.5, float(M), 1.0, float(M * M), 1, F64) == M - 2
    pb = _pdm_problem(pb0.P.dense(), 0.5, mu_plus=lambda *args: dm.pdm_mu_plus(*args) + error)
    assert dm._lambda(pb, s, 1, float(M)) == M - 1


def test_lambda_is_capped_by_the_budget_even_if_the_quadratic_is_off():
    # same instance, M = 8 (lambda = 7), but only room for t <= 4: lambda = 3 (t = 1 + 3).
    pb0, s = _lambda_instance(8)
    for error in (-2.0, 0.0, 2.0):
        pb = _pdm_problem(pb0.P.dense(), 0.5, mu_plus=lambda *args: dm.pdm_mu_plus(*args) + error, max_iter=4)
        assert dm._lambda(pb, s, 1, 8.0) == 3


def _count_calls(monkeypatch, name):
    """Wrap dm.<name> with a call counter (a deterministic stand-in for a timing bound)."""
    calls = [0]
    original = getattr(dm, name)

    def counted(*args, **kwargs):
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(dm, name, counted)
    return calls


def test_a_huge_multiple_update_is_one_step(monkeypatch):
    # Public-API version of the instance above with M = 10^7: PDM-succ with epsilon = 1/2 is a
    # single run of PDM (eps = 1/2) that does multiple updates from the start.  y_1 updates at
    # t = 0 (E-B7: one update), then y_2 updates lambda = M - 1 times at once: t = M,
    # a = (2M - 1, 0), ell = (2M - 1)^2 (exact in float64: < 2^53).  Then theta =
    # (2M-1)^2 / (2M) = 2M - 2 + 1/(2M) < p_2 = 2M - 1 < p_1: converged.  The point of
    # multiple updates (PT11 Sec. 4) is that this costs one step, not 10^7 presentations.
    M = 10**7
    calls = _count_calls(monkeypatch, "_holds_after")
    r = pdm_succ([[float(M), 0.0], [1.0, 0.0]], [1, 1], 0.5, rho=None, multiple_updates=True, trace=True, max_iter=10**8)
    assert r.status == "separator" and r.iterations == M
    assert [(s.pattern, s.lam, s.t) for s in r.trace[1:3]] == [(0, 1, 1), (1, M - 1, M)]
    assert r.w.tolist() == [2 * M - 1, 0] and r.info["ell"] == (2 * M - 1) ** 2
    assert r.info["t_c"] == (M,)
    assert calls[0] <= 10  # the round-off guard checks lambda locally, it does not recount it


def test_pfm_unbounded_lambda_is_a_single_update():
    # beta = 5 >= ||y_k|| = 1: condition (7) holds after any number of updates with y_k
    # (pfm_mu_plus returns None); the documented behaviour is a plain single update, so with
    # multiple updates the run is exactly the box.  y_1 = (1,0), y_2 = (0,1), rho=None: the
    # box alternates y_1, y_2, y_1, ... one update each; after 2 epochs t = 4, a = (2, 2).
    X, y = [[1.0, 0.0], [0.0, 1.0]], [1, 1]
    for multiple in (False, True):
        r = pfm(X, y, 5.0, rho=None, multiple_updates=multiple, max_epochs=2, trace=True)
        assert r.status == "max_iter" and r.iterations == 4
        assert [(s.pattern, s.lam) for s in r.trace if s.pattern is not None] == [(0, 1), (1, 1)] * 2
        assert r.w.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("error", [-2.0, 2.0])
def test_the_round_off_guard_moves_lambda_locally(error, monkeypatch):
    # M = 10^7 (lambda = M - 1), mu_+ off by 2: the guard must walk lambda back by the error,
    # not recount it from 1 (10^7 evaluations of the test) -- a multiple update stays O(1).
    pb0, s = _lambda_instance(10**7)
    pb = _pdm_problem(pb0.P.dense(), 0.5, mu_plus=lambda *args: dm.pdm_mu_plus(*args) + error)
    calls = _count_calls(monkeypatch, "_holds_after")
    assert dm._lambda(pb, s, 1, 1e7) == 10**7 - 1
    assert calls[0] <= 2 * abs(error) + 3  # walked back by the error, not recounted from 1


# =============================================================================================
# PDM-succ: successive runs continue from (a, t, ell) with a recomputed theta
# =============================================================================================

# y_1 = (3, 0), y_2 = (1, 0) (rho=None), epsilon = 1/4, eta = 2: runs at eps = 1/2, 1/4.
# Run 1 (eps_bar = 1/2): y_1 updates at t = 0 (theta_0 = 0): a = 3, ell = 9, t = 1, theta = 9/2;
#   y_2: p = 3 <= 9/2: a = 4, ell = 9 + 6 + 1 = 16, t = 2, theta = 16/4 = 4.  Pass 2: p_1 = 12,
#   y_2: p = 4 <= 4: a = 5, ell = 25, t = 3, theta = 25/6.  Pass 3: p = 15, 5 > 25/6: done.
# Run 2 (eps_bar = 3/4): theta = 3/4 * 25/3 = 25/4; every pass y_2 updates once:
#   p = 5 <= 25/4 -> a = 6, ell = 36, t = 4, theta = 27/4; 6 <= 27/4 -> a = 7, t = 5,
#   theta = 3/4 * 49/5 = 147/20; 7 <= 147/20 -> a = 8, t = 6, theta = 8; 8 <= 8 -> a = 9,
#   t = 7, theta = 3/4 * 81/7 = 243/28; then 9 > 243/28: converged.  Passes: 3 + 5 = 8.
SUCC_X, SUCC_Y = [[3.0, 0.0], [1.0, 0.0]], [1, 1]


def test_pdm_succ_hand_trace_single_updates():
    r = pdm_succ(SUCC_X, SUCC_Y, 0.25, 2.0, rho=None, trace=True)
    assert r.info["eps_schedule"] == (0.5, 0.25)
    steps = [(s.pattern, s.lam, s.t, s.run, s.a[0], s.ell) for s in r.trace]
    assert steps == [
        (None, 0, 0, 0, 0, 0), (0, 1, 1, 0, 3, 9), (1, 1, 2, 0, 4, 16), (1, 1, 3, 0, 5, 25),
        (None, 0, 3, 1, 5, 25), (1, 1, 4, 1, 6, 36), (1, 1, 5, 1, 7, 49), (1, 1, 6, 1, 8, 64),
        (1, 1, 7, 1, 9, 81), (None, 0, 7, 1, 9, 81),
    ]  # fmt: skip
    thetas = [0, 9 / 2, 4, 25 / 6, 25 / 4, 27 / 4, 147 / 20, 8, 243 / 28, 243 / 28]
    assert [s.theta for s in r.trace] == pytest.approx(thetas, rel=1e-15, abs=0)
    assert [s.t_c for s in r.trace][3:5] == [(), (3,)] and r.trace[-1].t_c == (3, 7)
    assert [s.converged for s in r.trace] == [False] * 9 + [True]
    assert [s.epoch for s in r.trace] == [0, 0, 1, 2, 3, 4, 5, 6, 7, 8]
    # k = next position to present (reset to 0 by a new pass; the converged state has presented
    # the whole pass, k = m = 2); updates_in_pass counts update events of the current pass.
    assert [s.k for s in r.trace] == [0, 1, 0, 0, 0, 0, 0, 0, 0, 2]
    assert [s.updates_in_pass for s in r.trace] == [0, 1, 0, 0, 0, 0, 0, 0, 0, 0]
    assert r.status == "separator" and r.iterations == 7 and r.w.tolist() == [9, 0]
    info = r.info
    assert (info["ell"], info["epochs"], info["passes"], info["t_c"]) == (81, 8, 8, (3, 7))
    assert info["theta"] == pytest.approx(243 / 28, rel=1e-15)
    assert info["R"] == 3 and info["margin"] == 1 and info["upper_bound"] == pytest.approx(9 / 7, rel=1e-15)
    assert (info["epsilon"], info["eta"], info["rho"], info["Delta"]) == (0.25, 2.0, None, None)


def test_pdm_succ_hand_trace_multiple_updates():
    # Run 1 after y_1: (1 + n) <= (3 + n)/2 iff n <= 1: lambda = 2 (t = 3, a = 5).  Run 2 from
    # t = 3, a = 5: 5 + n <= 3/4 (5 + n)^2 / (3 + n) iff 12 + 4n <= 15 + 3n iff n <= 3:
    # lambda = 4 (t = 7, a = 9).  Passes: [y_1, y_2 x2], [none: run 2], [y_2 x4], [none].
    r = pdm_succ(SUCC_X, SUCC_Y, 0.25, 2.0, rho=None, multiple_updates=True, trace=True)
    steps = [(s.pattern, s.lam, s.t, s.run, s.a[0], s.ell, s.epoch) for s in r.trace]
    assert steps == [
        (None, 0, 0, 0, 0, 0, 0), (0, 1, 1, 0, 3, 9, 0), (1, 2, 3, 0, 5, 25, 1),
        (None, 0, 3, 1, 5, 25, 2), (1, 4, 7, 1, 9, 81, 3), (None, 0, 7, 1, 9, 81, 4),
    ]  # fmt: skip
    assert [s.theta for s in r.trace] == pytest.approx([0, 9 / 2, 25 / 6, 25 / 4, 243 / 28, 243 / 28], rel=1e-15)
    assert r.info["t_c"] == (3, 7) and r.info["epochs"] == 4 and r.iterations == 7


@pytest.mark.parametrize("multiple", [False, True])
def test_textbook_box_builds_no_active_sets(multiple):
    # Without active_sets the state machine is the box: every pass is 0..m-1 in order, and no
    # active set is built, stored or counted (DynamicMarginState docs: built / sets / uses /
    # level belong to the active-set schedule only).
    for fn, arg in ((pdm, 0.5), (pdm_succ, 0.25), (pfm, 0.5)):
        r = fn(SUCC_X, SUCC_Y, arg, rho=None, multiple_updates=multiple, trace=True)
        assert r.status == "separator"
        for s in r.trace:
            assert s.order == (0, 1) and s.level == 0 and s.built == ()
            assert s.sets == ((), (), ()) and s.uses == (0, 0, 0) and s.rng_state is None


def test_pdm_and_pfm_info_hand_values():
    # PDM eps = 1/2 is run 1 of the PDM-succ trace above: t = 3, a = (5, 0), ell = 25,
    # theta = 25/6, 3 passes; margin = min(15, 5)/5 = 1, ||a||/t = 5/3, R = max ||y_k|| = 3.
    r = pdm(SUCC_X, SUCC_Y, 0.5, rho=None)
    assert r.status == "separator" and r.iterations == 3 and r.w.tolist() == [5, 0]
    i = r.info
    assert (i["ell"], i["epochs"], i["passes"], i["t_c"], i["R"], i["margin"]) == (25, 3, 3, (3,), 3, 1)
    assert i["theta"] == pytest.approx(25 / 6, rel=1e-15) and i["upper_bound"] == pytest.approx(5 / 3, rel=1e-15)
    assert (i["epsilon"], i["eps_schedule"], i["rho"], i["Delta"]) == (0.5, (0.5,), None, None)
    # PFM beta = 1/2: y_1 updates (a = 3, theta = 3/2), then p_2 = 3 > 3/2, p_1 = 9: t = 1.
    r = pfm(SUCC_X, SUCC_Y, 0.5, rho=None, multiple_updates=True)
    assert r.status == "separator" and r.iterations == 1 and r.w.tolist() == [3, 0]
    i = r.info
    assert (i["ell"], i["theta"], i["epochs"], i["t_c"], i["R"], i["margin"], i["upper_bound"]) == (9, 1.5, 2, (1,), 3, 1, 3)
    assert (i["beta"], i["rho"], i["Delta"]) == (0.5, None, None) and "epsilon" not in i


# =============================================================================================
# active sets: the nested schedule N_ep = (9, 12, 12)
# =============================================================================================


def _spec_cycle():
    """Levels of the passes of one full cycle of spec B.9 when every pass updates: a full pass,
    then S1 used 9 times, each use followed by S2 used 12 times, each followed by 12 uses of S3."""
    out = [0]
    for _ in range(9):
        out.append(1)
        for _ in range(12):
            out.append(2)
            out.extend([3] * 12)
    return out


@pytest.mark.parametrize("fn,arg", [(pdm, 0.5), (pfm, 0.5), (pdm_succ, 0.5)], ids=["pdm", "pfm", "pdm_succ"])
def test_active_set_schedule_when_every_pass_updates(fn, arg):
    # y_1 = (1), y_2 = (-1) (rho=None).  Whatever the order, the first pattern of a pass meets
    # a = 0, theta = 0 (p = 0 <= 0: update, a = +-1, theta = 1/2 for eps = 1/2 or beta = 1/2),
    # the second has p = -1 <= c theta (kept by every filter) and updates back to a = 0.  So
    # every pass makes 2 updates, every active set is both patterns, no loop ends early, and
    # one full cycle is 1 + 9 (1 + 12 (1 + 12)) = 1414 passes.  max_epochs = 2 stops at the end
    # of the second full pass: 1415 passes, t = 2830.
    r = fn([[1.0], [1.0]], [1, -1], arg, rho=None, active_sets=True, max_epochs=2, trace=True)
    assert r.status == "max_iter" and r.iterations == 2830
    assert (r.info["passes"], r.info["epochs"]) == (1415, 2)
    levels = [prev.level for prev, s in zip(r.trace, r.trace[1:]) if s.passes > prev.passes]
    assert levels == _spec_cycle() + [0]
    uses = [prev.uses for prev, s in zip(r.trace, r.trace[1:]) if s.passes > prev.passes]
    assert uses[:16] == [(0, 0, 0), (0, 0, 0), (1, 0, 0)] + [(1, 1, n) for n in range(12)] + [(1, 1, 0)]
    # completed uses before a pass: S1 up to 9 (inside its 9th use), S2 up to 12, S3 up to 11
    assert max(u[0] for u in uses) == 9 and max(u[1] for u in uses) == 12 and max(u[2] for u in uses) == 11
    for s in r.trace[1:]:
        assert sorted(s.order) == [0, 1]
        assert all(sorted(S) == [0, 1] for S in s.sets[: s.level])
    r = fn([[1.0], [1.0]], [1, -1], arg, rho=None, active_sets=True, max_epochs=1)
    assert (r.iterations, r.info["passes"], r.info["epochs"]) == (2, 1, 1)


def test_pdm_mu_plus_clamps_a_negative_discriminant():
    # eps = 1/2, p = 10, q = 1, ell = 0, t = 1: A = 1/2, B = t q + 0 p = 1, C = t p - ell/2 = 10,
    # D = B^2 - 4 A C = -19 < 0 (only reachable through rounding at the boundary of (8)).  The
    # square root is clamped to 0, so mu_+ = 2C / (-B - 0) = -20: finite, never NaN.
    with np.errstate(invalid="ignore"):
        assert dm.pdm_mu_plus(0.5, 10.0, 1.0, 0.0, 1, F64) == -20.0


def test_pdm_mu_plus_hand_values_small_discriminant_and_small_B():
    # eps = 1/4, t = 1, y = (1, 0), a = (2, 0): p = 2, q = 1, ell = 4; A = 1/4, B = 1 - 2/2 = 0,
    # C = 2 - 3 = -1, D = 0 + 1 = 1: mu_+ = (0 + 1) / (1/2) = 2.  Check: 2 + n <= 3/4 (2 + n)^2 /
    # (1 + n)  iff  4 + 4n <= 6 + 3n  iff  n <= 2.
    assert dm.pdm_mu_plus(0.25, 2.0, 1.0, 4.0, 1, F64) == 2.0
    # eps = 1/2, t = 1, q = 1, p = 2^-70, ell = 2^-68: A = 1/2, B = 1, C = 2^-70 - 2^-69 = -2^-70,
    # so mu_+ = -C/B (1 + O(2^-70)) = 2^-70.  With B = 1 > 0 the root must be taken as
    # 2C / (-B - sqrt(D)); the textbook (-B + sqrt(D)) / (2A) cancels to 0.
    assert dm.pdm_mu_plus(0.5, 2.0**-70, 1.0, 2.0**-68, 1, F64) == pytest.approx(2.0**-70, rel=1e-15)


def test_default_max_iter_cuts_a_huge_multiple_update():
    # The default budget max_iter = 1_000_000 binds inside a multiple update: t == 10^6 exactly.
    # PDM-succ (eps = 1/2) and PDM on y_1 = (M, 0), y_2 = (1, 0), M = 10^7: lambda ~ M (see
    # above; PDM does single updates in its first epoch, then lambda = M - 2 from t = 2).
    # PFM beta = 1/2 on y_1 = (M, 0), y_2 = (0, 1): after y_1, n updates with y_2 keep
    # n <= sqrt(M^2 + n^2)/2, i.e. n <= M / sqrt(3): lambda ~ 5.8e6.
    M = 1e7
    for r in (
        pdm_succ([[M, 0.0], [1.0, 0.0]], [1, 1], 0.5, rho=None, multiple_updates=True),
        pdm([[M, 0.0], [1.0, 0.0]], [1, 1], 0.5, rho=None, multiple_updates=True),
        pfm([[M, 0.0], [0.0, 1.0]], [1, 1], 0.5, rho=None, multiple_updates=True),
    ):
        assert (r.status, r.iterations) == ("max_iter", 1_000_000)


@pytest.mark.parametrize("fn", [pdm, pdm_succ], ids=["pdm", "pdm_succ"])
def test_every_full_pass_draws_the_next_permutation_of_one_seeded_generator(fn):
    # Active sets: "a fresh random permutation for every full pass", from np.random.default_rng
    # (seed).  The k-th full pass presents the k-th permutation drawn from that one generator
    # (PDM-succ: also the full pass that starts each new run).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    r = fn(X, y, 0.01, active_sets=True, seed=11, trace=True)
    assert r.status == "separator"
    full = [r.trace[0].order] + [s.order for p, s in zip(r.trace, r.trace[1:]) if s.level == 0 and s.passes > p.passes and not s.converged]
    gen = np.random.default_rng(11)
    expected = [tuple(int(i) for i in gen.permutation(12)) for _ in full]
    assert len(full) >= 3 and full == expected
    assert r.trace[-1].order == full[-1]  # the converged state ends the last full pass
    assert len(set(full)) == len(full)


@pytest.mark.parametrize("fn,arg", [(pdm, 0.05), (pfm, 0.05), (pdm_succ, 0.02)], ids=["pdm", "pfm", "pdm_succ"])
def test_a_pass_over_an_active_set_presents_that_set(fn, arg):
    # Spec B.9: a pass at level L >= 1 presents S_L (in the order it was built); returning to S1
    # (after the S2 loop) presents S1 again, not the smaller S2.  Every new pass starts at k = 0
    # with nothing built and no update yet.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 3))
    y = np.where(X @ rng.normal(size=3) + 0.1 >= 0, 1, -1)
    r = fn(X, y, arg, active_sets=True, seed=5, trace=True)
    assert r.status == "separator"
    returns = 0
    for prev, s in zip(r.trace, r.trace[1:]):
        if s.level > 0:
            assert s.order == s.sets[s.level - 1]
        else:  # a full pass reloads the data set: the old active sets are discarded
            assert s.sets == ((), (), ()) and s.uses == (0, 0, 0)
        if s.passes > prev.passes and not s.converged:
            assert (s.k, s.built, s.updates_in_pass) == (0, (), 0)
            if s.level == 1 and prev.level in (2, 3):
                returns += set(s.sets[1]) < set(s.sets[0])  # S2 a proper subset: a real test
    assert returns >= 1


def test_info_margin_for_a_short_weight_vector():
    # y_1 = (1/2) (rho=None), PDM eps = 1/2: a = 1/2 (ell = 1/4, theta = 1/8), then
    # p = 1/4 > 1/8: converged at t = 1.  ||a|| = 1/2 < 1 is still a separator: margin =
    # (1/4)/(1/2) = 1/2, ||a||/t = 1/2, R = 1/2.
    r = pdm([[0.5]], [1], 0.5, rho=None)
    assert r.status == "separator" and r.iterations == 1
    assert (r.info["margin"], r.info["upper_bound"], r.info["R"], r.info["theta"]) == (0.5, 0.5, 0.5, 0.125)
