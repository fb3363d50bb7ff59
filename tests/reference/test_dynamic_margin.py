"""Tests of PDM, PFM and PDM-succ (PT11; spec B.4, B.8, B.9, errata E-B3, E-B5, E-B7).

Expected values are hand-computed (small integer instances, worked in the comments), known by
construction (planted max margins, the extended space), or produced by a literal transcription
of the algorithm box inside this file (:func:`box`), which runs exactly the textbook recurrences
and is compared update by update on integer data (where float64 is exact)."""

from __future__ import annotations

import inspect
import math
import re
import types
import warnings
from dataclasses import replace
from fractions import Fraction
from types import SimpleNamespace

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import reference
import reference as ref
from reference import dynamic_margin as dm
from reference.arithmetic import Arithmetic, arithmetic
from reference.dynamic_margin import (
    ACTIVE_SET_N_EP,
    _lambda,
    patterns,
    pdm,
    pdm_mu_plus,
    pdm_succ,
    pdm_threshold,
    pfm,
    pfm_mu_plus,
    succ_schedule,
)
from reference.exact import verify_exact
from reference.fast import pt11_kernels
from reference.patterns import make_patterns
from reference.result import verify_separator_patterns, verify_separator_primal
from tests.support.margin import ULP, _PT11, _X, _Y, _heart, full
from tests.support.numba import needs_numba


F64 = Arithmetic(None)


X2, Y2 = [[1.0, 2.0], [-1.0, 0.5]], [1, -1]


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


MP30 = Arithmetic(30)


def _pdm_problem(Y, eps, max_iter=10**9):
    Y = np.asarray(Y, dtype=float)
    return dm._Problem(
        P=make_patterns(Y, np.ones(Y.shape[0]), rho=None), q=np.array([y @ y for y in Y]), ar=F64,
        threshold=dm.pdm_threshold, mu_plus=dm.pdm_mu_plus, schedule=(float(eps),), active_sets=False,
        multiple_updates=True, warmup=False, max_iter=max_iter, max_epochs=10**6, seed=0,
    )  # fmt: skip


def _separable(m, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 3))
    w = rng.normal(size=3)
    y = np.where(X @ w >= 0, 1.0, -1.0)
    return X + 0.3 * y[:, None] * w / np.linalg.norm(w), y


def _check_active_set_bookkeeping(trace):
    """DynamicMarginState: ``uses`` = uses (n1, n2, n3) of S1, S2, S3 in their CURRENT loops.  A
    pass at level L presents S_L (the full data set at L = 0) and is inside the loops of
    S_1..S_L only: the deeper loops have not started, so their counters are 0.  n_L counts the
    completed uses of S_L, < N_ep_L (the N_ep-th use ends the loop); an outer counter n_i (i < L)
    includes the use of S_i now in progress: 1 <= n_i <= N_ep_i."""
    for s in trace:
        L = s.level
        assert s.uses[L:] == (0,) * (3 - L), (L, s.uses)
        if L > 0:
            assert s.order == s.sets[L - 1]
        if L > 0:
            assert 0 <= s.uses[L - 1] < dm.ACTIVE_SET_N_EP[L - 1], (L, s.uses)
        for i in range(L - 1):
            assert 1 <= s.uses[i] <= dm.ACTIVE_SET_N_EP[i], (L, s.uses)


import reference.dynamic_margin as DYN  # noqa: E402


def _rejected_index(why: str) -> int:
    """The pattern a verifier's message names ("y_i <w, x_i> = ... is not > 0 beyond round-off")."""
    match = re.match(r"y_(\d+) <w, x_\1> = .* is not > 0 beyond round-off", why)
    assert match, why
    return int(match.group(1))


def _first_unverified_cases():
    """(patterns, a, arithmetic): separators the verifier rejects, some exactly at its allowance."""
    U = 2.0**-1074
    # a . y_0 = 6 U is exactly the allowance (2K + 4) U of a 1-coordinate pattern (the relative
    # term underflows to 0); a . y_1 = 12 U is above it
    yield make_patterns(np.array([[1.0], [2.0]]), np.array([1, 1]), rho=None, Delta=None), np.array([6 * U]), None
    # y = l [x, rho, Delta e_k]: margins a.y_k with the bias and the extended coordinates counted
    P = make_patterns(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.array([1, -1, 1]), rho=2.0, Delta=0.5)
    yield P, np.array([1.0, 1.0, 0.25, 0.0, -1.0, 0.0]), None  # y_0: 1 + 0.5 = 1.5; y_1: -(1 + 0.5) + 0.5 = -1 < 0
    yield P, np.array([1.0, -1.0, -0.25, 0.0, 8.0, 0.0]), None  # y_0: 0.5; y_1: 1 - 0.5 + 4 = 4.5; y_2: -0.5
    yield P, np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0]), 30  # the zero vector: every margin 0 = its allowance 0 at 30 digits
    yield P, np.array([1.0, 1.0, 0.0, 0.0, 0.0, 0.0]), 30  # y_1 . a = -1


def pdm_theta(eps, t, ell):
    return (1 - eps) * ell / t


def pfm_theta(beta, t, ell):
    return beta * np.sqrt(ell)


def box(Y, schedule, threshold, max_updates):
    """Literal transcription of the PT11 box (successive runs when len(schedule) > 1).

    Returns the list of updates (t, a_t, ell_t, theta_t, k) and whether the last run converged.
    """
    m, d = Y.shape
    a, ell, t, theta = np.zeros(d), 0.0, 0, 0.0
    out = []
    for par in schedule:
        if t > 0:
            theta = threshold(par, t, ell)
        while True:
            updated = False
            for k in range(m):
                p = a @ Y[k]
                if p <= theta:
                    a = a + Y[k]
                    ell = ell + 2 * p + Y[k] @ Y[k]
                    t += 1
                    theta = threshold(par, t, ell)
                    out.append((t, a, ell, theta, k))
                    updated = True
                    if t >= max_updates:
                        return out, False
            if not updated:
                break
    return out, True


def updates_of(result):
    """The states of a trace that were produced by an update."""
    return [s for s in result.trace if s.pattern is not None]


def planted(seed, m=16, d=3, gamma=0.5):
    """Reflected patterns with max directional margin gamma_d = gamma by construction.

    Two patterns gamma u +- h v put gamma u in the hull; every other pattern has u.y >= gamma,
    so every point z of the hull has ||z|| >= u.z >= gamma.  Returned as (X, labels) with
    X_k = l_k y_k (use rho=None).
    """
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    v = rng.normal(size=d)
    v -= (v @ u) * u
    v /= np.linalg.norm(v)
    h = rng.uniform(0.5, 1.5)
    Y = [gamma * u + h * v, gamma * u - h * v]
    for _ in range(m - 2):
        z = rng.normal(size=d)
        z += (gamma + rng.uniform(0, 1) - u @ z) * u
        Y.append(z)
    Y = np.array(Y)[rng.permutation(m)]
    labels = rng.choice([-1, 1], size=m)
    return Y * labels[:, None], labels, gamma


@st.composite
def integer_sets(draw, max_m=6, max_d=3):
    m = draw(st.integers(2, max_m))
    d = draw(st.integers(1, max_d))
    X = draw(hnp.arrays(np.int64, (m, d), elements=st.integers(-3, 3)))
    y = draw(hnp.arrays(np.int64, (m,), elements=st.sampled_from([-1, 1])))
    return X.astype(float), y


DYADIC_EPS = st.sampled_from([1.0, 0.5, 0.25, 0.125, 0.1, 0.01])


def _replay_repeated(s_prev, y_k, threshold, cap):
    """Present y_k repeatedly from state s_prev with the box's recurrences; count the updates."""
    a, ell, t = s_prev.a, s_prev.ell, s_prev.t
    p = a @ y_k
    n = 0
    theta = s_prev.theta
    while p <= theta and n < cap:
        a = a + y_k
        ell = ell + 2 * p + y_k @ y_k
        t += 1
        theta = threshold(t, ell)
        p = a @ y_k
        n += 1
    return n, a, ell, t, theta


def _run_multiple(X, y, algo, active, cap):
    kw = dict(multiple_updates=True, active_sets=active, trace=True, max_iter=cap)
    if algo == "pfm":
        return pfm(X, y, 0.5, **kw)
    if algo == "pdm":
        return pdm(X, y, 0.125, **kw)
    return pdm_succ(X, y, 0.01, 8.0, **kw)


def _assert_multiple_updates_replay(r, Y, algo, cap):
    """Every update event of the trace equals presenting its pattern repeatedly (box recurrences):
    same lambda, a, t, ell, theta -- exactly.  Returns the largest lambda seen."""
    for prev, s in zip(r.trace, r.trace[1:]):
        if s.pattern is None:
            continue
        if algo == "pdm" and prev.epoch == 0:
            assert s.lam == 1  # plain PDM: single updates during the first epoch
            continue
        if algo == "pfm":
            threshold = lambda t, ell: pfm_theta(0.5, t, ell)  # noqa: E731
        else:
            eps = r.info["eps_schedule"][prev.run]
            threshold = lambda t, ell, eps=eps: pdm_theta(eps, t, ell)  # noqa: E731
        n, a, ell, t, theta = _replay_repeated(prev, Y[s.pattern], threshold, cap - prev.t)
        assert s.lam == n and s.t == t == prev.t + n
        np.testing.assert_array_equal(s.a, a)
        assert s.ell == ell == s.a @ s.a and s.theta == theta
    return max(s.lam for s in r.trace)


def _c(level, first_epoch_rule):
    if level == 0:
        return 1.1 if first_epoch_rule else 2.2
    return (2.2, 1.1, 1.0)[level]


def _cons_to_tuple(built):
    out = []
    while built:
        out.append(built[0])
        built = built[1]
    return tuple(reversed(out))


def _next_pass(prev, updated_now):
    """(level, uses) after the pass of ``prev`` ends (spec B.9): full pass -> S1 (N_ep1 = 9
    uses) -> S2 (12) -> S3 (12); a loop ends early after a pass without an update."""
    N1, N2, N3 = 9, 12, 12
    made = prev.updates_in_pass > 0 or updated_now
    n1, n2, n3 = prev.uses
    if prev.level == 0:
        return (1, (0, 0, 0)) if made else (0, (0, 0, 0))  # else: converged / next run
    if prev.level == 1:
        return (2, (n1 + 1, 0, 0)) if made else (0, (0, 0, 0))
    if prev.level == 2:
        if made:
            return 3, (n1, n2 + 1, 0)
        return (1, (n1, 0, 0)) if n1 < N1 else (0, (0, 0, 0))
    if made and n3 + 1 < N3:
        return 3, (n1, n2, n3 + 1)
    if n2 < N2:
        return 2, (n1, n2, 0)
    return (1, (n1, 0, 0)) if n1 < N1 else (0, (0, 0, 0))


def _seed_with_first(m, first):
    return next(sd for sd in range(1000) if np.random.default_rng(sd).permutation(m)[0] == first)


def _pdm_problem_2(Y, eps, mu_plus=dm.pdm_mu_plus, max_iter=10**9):
    Y = np.asarray(Y, dtype=float)
    return dm._Problem(
        P=make_patterns(Y, np.ones(Y.shape[0]), rho=None), q=np.array([y @ y for y in Y]), ar=F64, threshold=dm.pdm_threshold, mu_plus=mu_plus,
        schedule=(float(eps),), active_sets=False, multiple_updates=True, warmup=False,
        max_iter=max_iter, max_epochs=10**6, seed=0,
    )  # fmt: skip


def _lambda_instance(M):
    """y_1 = (M, 0), y_2 = (1, 0), eps = 1/2, state after the update with y_1.

    t = 1, a = (M, 0), ell = M^2, theta = M^2/2.  After n updates with y_2: a = (M + n, 0),
    t = 1 + n, and (8) reads M + n <= (M + n)^2 / (2 (1 + n))  <=>  2 + 2n <= M + n  <=>
    n <= M - 2.  So n = 0..M-2 update: lambda = M - 1 (mu_+ = M - 2 exactly, equality there).
    """
    pb = _pdm_problem_2([[M, 0.0], [1.0, 0.0]], 0.5)
    s = dm.DynamicMarginState(t=1, a=np.array([float(M), 0.0]), ell=float(M * M), theta=M * M / 2, k=1, order=(0, 1))
    return pb, s


def _count_calls(monkeypatch, name):
    """Wrap dm.<name> with a call counter (a deterministic stand-in for a timing bound)."""
    calls = [0]
    original = getattr(dm, name)

    def counted(*args, **kwargs):
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(dm, name, counted)
    return calls


# y_1 = (3, 0), y_2 = (1, 0) (rho=None), epsilon = 1/4, eta = 2: runs at eps = 1/2, 1/4.
# Run 1 (eps_bar = 1/2): y_1 updates at t = 0 (theta_0 = 0): a = 3, ell = 9, t = 1, theta = 9/2;
#   y_2: p = 3 <= 9/2: a = 4, ell = 9 + 6 + 1 = 16, t = 2, theta = 16/4 = 4.  Pass 2: p_1 = 12,
#   y_2: p = 4 <= 4: a = 5, ell = 25, t = 3, theta = 25/6.  Pass 3: p = 15, 5 > 25/6: done.
# Run 2 (eps_bar = 3/4): theta = 3/4 * 25/3 = 25/4; every pass y_2 updates once:
#   p = 5 <= 25/4 -> a = 6, ell = 36, t = 4, theta = 27/4; 6 <= 27/4 -> a = 7, t = 5,
#   theta = 3/4 * 49/5 = 147/20; 7 <= 147/20 -> a = 8, t = 6, theta = 8; 8 <= 8 -> a = 9,
#   t = 7, theta = 3/4 * 81/7 = 243/28; then 9 > 243/28: converged.  Passes: 3 + 5 = 8.
SUCC_X, SUCC_Y = [[3.0, 0.0], [1.0, 0.0]], [1, 1]


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


def test_pdm_three_patterns_hand_trace():
    # y1=(1,0), y2=(0,1), y3=(-1,1), eps=1/2 (theta_t = ell_t/(2t)):
    # t=0: p=0<=0 -> a=(1,0), ell=1, theta=1/2;  p2=0 -> a=(1,1), ell=2, theta=1/2;
    # p3=0 -> a=(0,2), ell=4, theta=2/3 (epoch 1 ends);  epoch 2: p1=0 -> a=(1,2), ell=5,
    # theta=5/8; p2=2, p3=1 fail;  epoch 3: p = 1, 2, 1 all > 5/8: converged, t = 4.
    r = pdm([[1, 0], [0, 1], [1, -1]], [1, 1, -1], 0.5, rho=None, trace=True)
    assert r.status == "separator" and r.iterations == 4
    assert r.info["epochs"] == 3 and r.info["passes"] == 3
    got = [(s.t, s.a.tolist(), s.ell, s.theta, s.pattern, s.epoch) for s in r.trace]
    assert got == [
        (0, [0, 0], 0, 0, None, 0),
        (1, [1, 0], 1, 0.5, 0, 0),
        (2, [1, 1], 2, 0.5, 1, 0),
        (3, [0, 2], 4, float(Fraction(2, 3)), 2, 1),
        (4, [1, 2], 5, 0.625, 0, 1),
        (4, [1, 2], 5, 0.625, None, 2),
        (4, [1, 2], 5, 0.625, None, 3),
    ]
    assert [s.converged for s in r.trace] == [False] * 6 + [True]
    np.testing.assert_array_equal(r.w, [1, 2])
    # gamma_d of {(1,0),(0,1),(-1,1)} is 1/sqrt(5) (min-norm point (1,2)/5); PDM attains it here
    assert r.info["margin"] == pytest.approx(1 / math.sqrt(5), rel=1e-15)
    assert r.info["ell"] == 5 and r.info["theta"] == 0.625
    assert r.info["upper_bound"] == pytest.approx(math.sqrt(5) / 4, rel=1e-15)
    assert r.info["R"] == pytest.approx(math.sqrt(2), rel=1e-15)
    assert r.info["t_c"] == (4,)


def test_pdm_equality_updates():
    # y1=(2,0), y2=(1,1), eps=1/2: after y1, theta_1 = 4/2 = 2 and p = a.y2 = 2 == theta:
    # `<=` updates -> a=(3,1), ell=10, theta=10/4; next epoch p = 6, 4 > 2.5: t=2.
    # (With `<` it would stop at t=1, a=(2,0).)
    r = pdm([[2, 0], [1, 1]], [1, 1], 0.5, rho=None, trace=True)
    assert r.status == "separator" and r.iterations == 2
    np.testing.assert_array_equal(r.w, [3, 1])
    assert r.trace[1].theta == 2 and r.trace[2].ell == 10 and r.trace[2].theta == 2.5
    assert r.trace[2].pattern == 1 and r.info["epochs"] == 2


def test_pfm_hand_instances_and_boundary():
    # y1=(2,0), y2=(1,1): after y1 theta = beta ||(2,0)|| = 2 beta, p2 = 2.
    # beta = 1: p2 == theta -> update, a=(3,1), theta=sqrt(10); p = 6, 4 > 3.17: t = 2.
    r = pfm([[2, 0], [1, 1]], [1, 1], 1.0, rho=None, trace=True)
    assert r.status == "separator" and r.iterations == 2
    np.testing.assert_array_equal(r.w, [3, 1])
    assert r.trace[1].theta == 2 and r.trace[2].theta == math.sqrt(10)
    # beta = 1/2: theta = 1 < 2: no update; p1 = 4 > 1: converged with t = 1, a = (2, 0).
    r = pfm([[2, 0], [1, 1]], [1, 1], 0.5, rho=None)
    assert r.status == "separator" and r.iterations == 1
    np.testing.assert_array_equal(r.w, [2, 0])
    assert r.info["margin"] == 1.0 and r.info["beta"] == 0.5 and r.info["theta"] == 1.0


def test_pfm_beta_zero_and_pdm_eps_one_are_the_perceptron():
    # theta = 0 throughout: the test is p <= 0.  Same instance as the three-pattern trace:
    # updates with patterns 0, 1, 2, 0 (p = 0 each time), then converged at t = 4.
    X, y = [[1, 0], [0, 1], [1, -1]], [1, 1, -1]
    for r in (pdm(X, y, 1.0, rho=None, trace=True), pfm(X, y, 0.0, rho=None, trace=True)):
        assert r.iterations == 4 and r.status == "separator"
        assert [s.pattern for s in updates_of(r)] == [0, 1, 2, 0]
        assert all(s.theta == 0 for s in r.trace)


@given(integer_sets(), DYADIC_EPS)
def test_first_pattern_always_updates(data, eps):
    # E-B7: theta_0 = 0 and a_0 = 0, so p_01 = 0 <= 0 -- the first pattern updates at once.
    X, y = data
    Y = patterns(X, y, rho=1.0)
    for r in (pdm(X, y, eps, trace=True, max_iter=1), pfm(X, y, 0.3, trace=True, max_iter=1)):
        assert r.trace[1].t == 1 and r.trace[1].pattern == 0 and r.trace[1].k == 1
        np.testing.assert_array_equal(r.trace[1].a, Y[0])
        assert r.trace[1].ell == Y[0] @ Y[0]


@given(integer_sets(), DYADIC_EPS, st.sampled_from([None, 1.0, 2.0]))
def test_pdm_matches_the_box_update_by_update(data, eps, rho):
    # ell_t == ||a_t||^2 exactly at every update, theta_t = (1-eps) ell_t/t, and the whole
    # trajectory equals the literal box (integer data: float64 is exact for a and ell).
    X, y = data
    if rho is None:
        X = X + (np.abs(X).sum(axis=1, keepdims=True) == 0)  # no zero rows without augmentation
    r = pdm(X, y, eps, rho=rho, trace=True, max_iter=150)
    Y = patterns(X, y, rho=rho)
    expected, converged = box(Y, (eps,), pdm_theta, 150)
    ups = updates_of(r)
    assert len(ups) == len(expected) == r.iterations
    for s, (t, a, ell, theta, k) in zip(ups, expected):
        assert (s.t, s.pattern, s.lam) == (t, k, 1)
        np.testing.assert_array_equal(s.a, a)
        assert s.ell == ell == s.a @ s.a
        assert s.theta == theta == (1 - eps) * s.ell / s.t
    assert (r.status == "separator") == converged
    if converged:
        assert np.all(Y @ r.w > r.info["theta"])  # no pattern satisfies (8) any more


@given(integer_sets(), st.sampled_from([0.0, 0.5, 1.0, 1.5]))
def test_pfm_matches_the_box_update_by_update(data, beta):
    X, y = data
    r = pfm(X, y, beta, trace=True, max_iter=150)
    Y = patterns(X, y, rho=1.0)
    expected, converged = box(Y, (beta,), pfm_theta, 150)
    ups = updates_of(r)
    assert len(ups) == len(expected) == r.iterations
    for s, (t, a, ell, theta, k) in zip(ups, expected):
        assert (s.t, s.pattern) == (t, k)
        np.testing.assert_array_equal(s.a, a)
        assert s.ell == ell == s.a @ s.a
        assert s.theta == theta == beta * np.sqrt(s.ell)
    assert (r.status == "separator") == converged


def test_augmentation_then_reflection():
    # X=[[2],[3]], y=[+1,-1]: y_1 = [2, rho], y_2 = [-3, -rho].
    # rho=1, eps=1/2: a_1 = (2,1), ell=5, theta=5/2; p = -7 -> a_2 = (-1,0), ell = 5-14+10 = 1.
    r = pdm([[2], [3]], [1, -1], 0.5, rho=1.0, trace=True, max_iter=2)
    assert r.status == "max_iter" and r.iterations == 2
    np.testing.assert_array_equal(r.trace[1].a, [2, 1])
    np.testing.assert_array_equal(r.trace[2].a, [-1, 0])
    assert (r.trace[1].ell, r.trace[1].theta, r.trace[2].ell) == (5, 2.5, 1)
    # rho=2: a_1 = (2,2), ell=8, theta=4; p = -6-4 = -10 -> a_2 = (-1,0), ell = 8-20+13 = 1.
    r = pdm([[2], [3]], [1, -1], 0.5, rho=2.0, trace=True, max_iter=2)
    np.testing.assert_array_equal(r.trace[1].a, [2, 2])
    assert (r.trace[1].ell, r.trace[1].theta, r.trace[2].ell) == (8, 4, 1)
    # rho=None: no bias coordinate; a_1 = (2), a_2 = (-1).
    r = pdm([[2], [3]], [1, -1], 0.5, rho=None, trace=True, max_iter=2)
    np.testing.assert_array_equal(r.trace[2].a, [-1])
    np.testing.assert_array_equal(patterns([[2, 5], [3, 7]], [1, -1], rho=0.5), [[2, 5, 0.5], [-3, -7, -0.5]])


def test_zero_rows_need_augmentation():
    X, y = [[0.0, 0.0], [1.0, 1.0]], [1, -1]
    r = pdm(X, y, 0.5, rho=1.0)  # patterns (0,0,1) and (-1,-1,-1)
    assert r.status == "separator"
    with pytest.raises(ValueError, match="zero rows"):
        pdm(X, y, 0.5, rho=None)


def test_extended_space_hand_instance():
    # X = [[1],[1]], y = [+1,-1] is not separable.  Extended with Delta = 1 (rho=None):
    # y_1 = (1, 1, 0), y_2 = (-1, 0, -1); gamma_d = ||(y_1 + y_2)/2|| = 1/sqrt(2) = Delta/sqrt(m).
    # eps=1/2: a_1 = (1,1,0), theta = 1; p_2 = -1 -> a_2 = (0,1,-1), ell = 2, theta = 1/2;
    # next epoch p = 1, 1 > 1/2: converged, t = 2, margin 1/sqrt(2).
    X, y = [[1.0], [1.0]], [1, -1]
    np.testing.assert_array_equal(patterns(X, y, rho=None, Delta=1.0), [[1, 1, 0], [-1, 0, -1]])
    r = pdm(X, y, 0.5, rho=None, Delta=1.0)
    assert r.status == "separator" and r.iterations == 2
    np.testing.assert_array_equal(r.w, [0, 1, -1])
    assert r.info["margin"] == pytest.approx(1 / math.sqrt(2), rel=1e-15)
    assert r.info["Delta"] == 1.0 and r.info["rho"] is None
    assert pdm(X, y, 0.5, rho=None, max_epochs=50).status == "max_iter"


def test_extended_space_structure():
    Y = patterns([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [1, -1, 1], rho=1.0, Delta=2.0)
    np.testing.assert_array_equal(
        Y,
        [[1, 2, 1, 2, 0, 0], [-3, -4, -1, 0, -2, 0], [5, 6, 1, 0, 0, 2]],
    )


@pytest.mark.parametrize("seed", range(3))
def test_extended_space_makes_xor_separable(seed):
    # XOR (with duplicates) is not linearly separable even with a bias; in the extended space
    # gamma_d >= Delta/sqrt(m), and PDM returns margin >= (1 - eps) Delta / sqrt(m).
    rng = np.random.default_rng(seed)
    base = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1]], dtype=float)
    X = np.vstack([base, base + rng.normal(scale=0.05, size=base.shape)])
    y = np.array([1, 1, -1, -1, 1, 1, -1, -1])
    eps, Delta = 0.1, 0.5
    assert pdm(X, y, eps, max_epochs=200).status == "max_iter"
    for fn in (pdm, pdm_succ):
        r = fn(X, y, eps, Delta=Delta)
        assert r.status == "separator"
        assert r.info["margin"] >= (1 - eps) * Delta / math.sqrt(len(y))
        assert len(r.w) == 2 + 1 + len(y)


@given(integer_sets(), st.sampled_from([(0.1, 2.0), (0.01, 8.0), (0.25, 2.0)]))
def test_pdm_succ_matches_the_box_with_successive_runs(data, eps_eta):
    eps, eta = eps_eta
    X, y = data
    r = pdm_succ(X, y, eps, eta, trace=True, max_iter=150)
    schedule = succ_schedule(eps, eta)
    assert r.info["eps_schedule"] == schedule and r.info["eta"] == eta
    expected, converged = box(patterns(X, y), schedule, pdm_theta, 150)
    ups = updates_of(r)
    assert len(ups) == len(expected) == r.iterations
    for s, (t, a, ell, theta, k) in zip(ups, expected):
        assert (s.t, s.pattern) == (t, k)
        np.testing.assert_array_equal(s.a, a)
        assert s.ell == ell and s.theta == theta
    assert (r.status == "separator") == converged
    if converged:
        assert len(r.info["t_c"]) == len(schedule) and r.info["t_c"][-1] == r.iterations
        assert list(r.info["t_c"]) == sorted(r.info["t_c"])


def test_pdm_succ_runs_continue():
    # The first run is PDM at eps = 1/2; every later run starts from the same (a, t, ell) with
    # theta recomputed for the new eps.
    X, y, _ = planted(3)
    r = pdm_succ(X, y, 0.01, 8.0, rho=None, trace=True)
    first = pdm(X, y, 0.5, rho=None)
    assert r.status == "separator" and r.info["t_c"][0] == first.iterations
    switch = [s for s in r.trace if s.run == 1][0]
    np.testing.assert_array_equal(switch.a, first.w)
    assert switch.t == first.iterations and switch.ell == first.info["ell"]
    assert switch.theta == (1 - 0.0625) * switch.ell / switch.t
    assert [s.run for s in r.trace] == sorted(s.run for s in r.trace)
    assert r.trace[-1].run == 2 and len(r.info["t_c"]) == 3
    # epsilon >= 1/2: a single run, identical to PDM
    a, b = pdm_succ(X, y, 0.7, rho=None), pdm(X, y, 0.7, rho=None)
    assert a.iterations == b.iterations and a.info["eps_schedule"] == (0.7,)
    np.testing.assert_array_equal(a.w, b.w)


def test_pdm_mu_plus_hand_values():
    # eps=1/4, t=1, q=1, p=3, ell=9 (a=(3,0), y=(1,0)): 0.25 mu^2 - 0.5 mu - 3.75 = 0 -> mu = 5;
    # repeated presentation: 3+j <= 0.75 (3+j)^2/(1+j)  <=>  j <= 5 (equality at j = 5).
    assert pdm_mu_plus(0.25, 3.0, 1.0, 9.0, 1, F64) == 5.0
    # eps=1/2, t=1, q=1, p=0, ell=1: 0.5 mu^2 + mu - 0.5 = 0 -> mu = sqrt(2) - 1 (B > 0 branch)
    assert pdm_mu_plus(0.5, 0.0, 1.0, 1.0, 1, F64) == pytest.approx(math.sqrt(2) - 1, rel=1e-15)
    # constant term 0 (equality in (8)): the larger root is 0 (here the other root is -4/3)
    # eps=1/2, t=1, q=1, ell=2, p=1: 0.5 mu^2 + (1 + 0) mu + (1 - 1) = 0 -> roots 0, -2
    assert pdm_mu_plus(0.5, 1.0, 1.0, 2.0, 1, F64) == 0.0
    # eps=1 (the perceptron): roots -p/q and -t; mu_+ = -p/q
    assert pdm_mu_plus(1.0, -6.0, 4.0, 9.0, 2, F64) == 1.5
    with mpmath.workdps(40):
        v = pdm_mu_plus(mpmath.mpf("0.5"), mpmath.mpf(0), mpmath.mpf(1), mpmath.mpf(1), 1, Arithmetic(40))
        assert abs(v - (mpmath.sqrt(2) - 1)) < mpmath.mpf(10) ** -38


def test_pdm_mu_plus_without_cancellation():
    # eps=1/2, q=1, p=0, t=1e8, ell=2e8+1: mu^2 + 2e8 mu - (2e8+1) = 0 -> mu_+ = 1 exactly.
    # The textbook form (-B + sqrt(D))/(2A) loses ~8 digits here (B = 1e8 >> mu_+).
    assert pdm_mu_plus(0.5, 0.0, 1.0, 2e8 + 1, 10**8, F64) == pytest.approx(1.0, rel=1e-14)


def test_pfm_mu_plus_hand_values():
    # y=(1,0), a=(0,2), beta=1/2: mu = 0.5 sqrt(mu^2 + 4)  ->  mu = 2/sqrt(3)  (p <= 0 branch)
    assert pfm_mu_plus(0.5, 0.0, 1.0, 4.0, 3, F64) == pytest.approx(2 / math.sqrt(3), rel=1e-15)
    # y=(1,0), a=(1,2), beta=1/2: mu + 1 = 0.5 sqrt((mu+1)^2 + 4) -> mu = 2/sqrt(3) - 1 (p > 0)
    assert pfm_mu_plus(0.5, 1.0, 1.0, 5.0, 3, F64) == pytest.approx(2 / math.sqrt(3) - 1, rel=1e-14)
    # y=(1,0), a=(-3,0), beta=1/2: (mu-3) <= 0.5 |mu-3| until mu=3, then mu-3 <= 0 only: mu = 3
    assert pfm_mu_plus(0.5, -3.0, 1.0, 9.0, 1, F64) == 3.0
    # q <= beta^2: (7) holds after any number of updates with y_k: unbounded
    assert pfm_mu_plus(1.0, 0.0, 1.0, 4.0, 1, F64) is None
    assert pfm_mu_plus(2.0, 0.0, 1.0, 4.0, 1, F64) is None


@settings(max_examples=40)
@given(
    hnp.arrays(np.int64, 3, elements=st.integers(-4, 4)),
    hnp.arrays(np.int64, 3, elements=st.integers(-4, 4)),
    st.integers(1, 30),
    st.sampled_from([0.5, 0.25, 0.125, 0.1, 0.01, 0.9]),
)
def test_pdm_mu_plus_is_the_number_of_repeated_presentations(a, yk, t, eps):
    # lambda = floor(mu_+) + 1 presentations of y_k update, as long as (8) holds at the start;
    # and (E-B3) the other root is never positive, so "larger" = "smallest non-negative".
    a, yk = a.astype(float), yk.astype(float)
    q, p, ell = yk @ yk, a @ yk, a @ a
    if q == 0 or not p <= (1 - eps) * ell / t:
        return
    mu = pdm_mu_plus(eps, p, q, ell, t, F64)
    n = 0
    while (a + n * yk) @ yk <= (1 - eps) * ((a + n * yk) @ (a + n * yk)) / (t + n):
        n += 1
    assert math.floor(mu + 1e-9) + 1 == n or math.floor(mu - 1e-9) + 1 == n
    A, B, C = eps * q, t * q + (2 * eps - 1) * p, t * p - (1 - eps) * ell
    assert A * mu * mu + B * mu + C == pytest.approx(0, abs=1e-9 * (abs(B) + abs(C) + A))
    if C == 0:  # equality in (8): Cauchy-Schwarz forces B > 0, so the roots are 0 and -B/A
        assert B > 0 and mu == 0 and n == 1


@settings(max_examples=30)
@given(integer_sets(max_m=8, max_d=3), st.sampled_from(["pdm", "pdm_succ", "pfm"]), st.booleans())
def test_multiple_update_equals_repeated_presentations(data, algo, active):
    X, y = data
    _assert_multiple_updates_replay(_run_multiple(X, y, algo, active, 400), patterns(X, y), algo, 400)


@pytest.mark.parametrize("algo", ["pdm", "pdm_succ", "pfm"])
def test_multiple_update_equals_repeated_presentations_many_cases(algo):
    # 40 random integer sets (8 points in Z^3, entries -3..3), with and without active sets;
    # lambda > 1 must actually occur.
    largest = []
    for seed in range(40):
        rng = np.random.default_rng(seed)
        X = rng.integers(-3, 4, size=(8, 3)).astype(float)
        y = rng.choice([-1, 1], size=8)
        for active in (False, True):
            r = _run_multiple(X, y, algo, active, 400)
            largest.append(_assert_multiple_updates_replay(r, patterns(X, y), algo, 400))
    assert sum(lam > 1 for lam in largest) >= 40


def test_multiple_updates_do_several_at_once_and_wait_one_epoch_in_plain_pdm():
    X, y, _ = planted(0)
    for fn in (pdm, pdm_succ):
        r = fn(X, y, 0.01, rho=None, multiple_updates=True, trace=True)
        assert r.status == "separator"
        pairs = list(zip(r.trace, r.trace[1:]))
        assert max(s.lam for s in r.trace) > 1
        first_epoch = [s.lam for prev, s in pairs if prev.epoch == 0 and s.pattern is not None]
        if fn is pdm:
            assert set(first_epoch) == {1}  # spec B.9: plain PDM waits for the first full epoch
        else:
            assert max(first_epoch) > 1
    # at t = 0 a single update (E-B7), also for PFM and PDM-succ
    for r in (pfm(X, y, 0.4, rho=None, multiple_updates=True, trace=True),
              pdm_succ(X, y, 0.01, rho=None, multiple_updates=True, trace=True)):  # fmt: skip
        assert r.trace[1].lam == 1 and r.trace[1].t == 1


def test_multiple_updates_respect_max_iter():
    # y1=(3,0), y2=(1,0) (rho=None), PDM-succ eps=0.25, eta=2 (runs at 1/2 and 1/4): y1 updates
    # (a=(3,0), ell=9, theta=9/2), then p2 = 3 <= 9/2 and 3+j <= (3+j)^2/(2(1+j)) iff j <= 1:
    # lambda = 2 (equality at j = 1).  A budget cap must cut lambda so that t == max_iter.
    X, y = [[3.0, 0.0], [1.0, 0.0]], [1, 1]
    free = pdm_succ(X, y, 0.25, 2.0, rho=None, multiple_updates=True, trace=True)
    assert free.trace[2].lam == 2 and free.trace[2].t == 3
    np.testing.assert_array_equal(free.trace[2].a, [5, 0])
    for cap in range(1, free.iterations + 1):
        r = pdm_succ(X, y, 0.25, 2.0, rho=None, multiple_updates=True, max_iter=cap)
        assert r.iterations == cap and r.status == "max_iter"


@pytest.mark.parametrize("algo", ["pdm", "pdm_succ", "pfm"])
@pytest.mark.parametrize("multiple", [False, True])
def test_active_set_filtering_and_schedule(algo, multiple):
    rng = np.random.default_rng(1)
    m, d = 20, 3
    w = rng.normal(size=d)
    X = rng.normal(size=(m, d))
    y = np.where(X @ w + 0.1 >= 0, 1, -1)
    kw = dict(active_sets=True, multiple_updates=multiple, trace=True, seed=5)
    if algo == "pdm":
        r = pdm(X, y, 0.05, **kw)
    elif algo == "pdm_succ":
        r = pdm_succ(X, y, 0.02, 8.0, **kw)
    else:
        r = pfm(X, y, 0.98 * pdm(X, y, 0.02).info["margin"], **kw)
    assert r.status == "separator"
    Y = patterns(X, y)
    n_full = 0
    for prev, s in zip(r.trace, r.trace[1:]):
        # the patterns this step presented, all with the pre-step (a, theta)
        end = len(prev.order) if s.pattern is None else prev.order.index(s.pattern, prev.k) + 1
        presented = prev.order[prev.k : end]
        p = Y[list(presented)] @ prev.a
        assert np.all(p[:-1] > prev.theta) if len(p) else True
        if s.pattern is not None:
            assert p[-1] <= prev.theta
        else:
            assert np.all(p > prev.theta)
        rule = algo == "pdm" and prev.epoch == 0
        if prev.level < 3:
            kept = tuple(j for j, pj in zip(presented, p) if pj <= _c(prev.level, rule) * prev.theta)
            done = _cons_to_tuple(prev.built) + kept
            if s.passes == prev.passes:
                assert _cons_to_tuple(s.built) == done
            elif s.level == prev.level + 1:
                assert s.sets[prev.level] == done == s.order
        if s.passes > prev.passes:  # the pass of prev ended in this step: the nested schedule
            assert (s.level, s.uses) == _next_pass(prev, s.pattern is not None)
        if s.passes > prev.passes and s.level == 0:
            n_full += 1
            assert sorted(s.order) == list(range(m))  # a permutation of the full data set
        # nesting and counters
        assert set(s.sets[2]) <= set(s.sets[1]) <= set(s.sets[0])
        assert all(n <= cap for n, cap in zip(s.uses, ACTIVE_SET_N_EP))
        if s.level > 0:  # a pass over S_L: fewer than N_epL uses of S_L completed before it
            assert s.uses[s.level - 1] < ACTIVE_SET_N_EP[s.level - 1]
    assert n_full >= 2
    # the loops run to their limits: 9 uses of S1, 12 of S2, 12 of S3 (spec B.9)
    assert ACTIVE_SET_N_EP == (9, 12, 12)
    if algo == "pdm":
        for level in (1, 2, 3):
            assert max(s.uses[level - 1] for s in r.trace if s.level == level) == ACTIVE_SET_N_EP[level - 1] - 1
    # on convergence no pattern satisfies the condition
    assert np.all(Y @ r.w > r.info["theta"])


def test_active_set_first_level_constants():
    # y1 = (1,0) presented first: it updates (t=0), theta = (1 - 1/2) * 1 / 1 = 1/2 in the first
    # run of PDM-succ (eps_1 = 1/2).  Then a.y_k = first coordinate of y_k; S1 keeps
    # p <= c_1 theta = 2.2 * 0.5 = 1.1:  y2 (p = 1.12) out, y3 (p = 1.08) in, y4 (p = 0.56) in.
    X = [[1.0, 0.0], [1.12, 1.0], [1.08, -1.0], [0.56, 2.0]]
    y = [1, 1, 1, 1]
    seed = _seed_with_first(4, 0)
    perm = tuple(int(i) for i in np.random.default_rng(seed).permutation(4))
    r = pdm_succ(X, y, 0.01, rho=None, active_sets=True, seed=seed, trace=True, max_iter=2)
    s = next(s for s in r.trace if s.passes == 1)
    assert s.t == 1 and s.level == 1 and s.epoch == 1 and s.theta == 0.5
    assert s.sets[0] == tuple(k for k in perm if k in (0, 2, 3)) == s.order
    # Plain PDM in its first epoch uses c_1 = 1.1: 1.1 * 0.5 = 0.55 keeps only y1.
    r = pdm(X, y, 0.5, rho=None, active_sets=True, seed=seed, trace=True, max_iter=2)
    assert next(s for s in r.trace if s.passes == 1).sets[0] == (0,)
    # PFM with beta = 1/2 has the same theta = 0.5 ||(1,0)|| but no first-epoch rule: c_1 = 2.2.
    r = pfm(X, y, 0.5, rho=None, active_sets=True, seed=seed, trace=True, max_iter=2)
    assert next(s for s in r.trace if s.passes == 1).sets[0] == tuple(k for k in perm if k in (0, 2, 3))


def test_active_sets_are_seeded():
    X, y, _ = planted(4)
    a = pdm(X, y, 0.05, rho=None, active_sets=True, seed=7, trace=True)
    b = pdm(X, y, 0.05, rho=None, active_sets=True, seed=7, trace=True)
    c = pdm(X, y, 0.05, rho=None, active_sets=True, seed=8, trace=True)
    assert a.iterations == b.iterations
    np.testing.assert_array_equal(a.w, b.w)
    assert a.trace[0].order == tuple(int(i) for i in np.random.default_rng(7).permutation(len(y)))
    assert a.trace[0].order != c.trace[0].order
    assert [s.order for s in a.trace] == [s.order for s in b.trace]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("active,multiple", [(False, False), (True, False), (False, True), (True, True)])
def test_margin_guarantee_planted(seed, active, multiple):
    X, y, gamma = planted(seed)
    eps = 0.05
    kw = dict(rho=None, active_sets=active, multiple_updates=multiple, seed=seed)
    for r in (pdm(X, y, eps, **kw), pdm_succ(X, y, eps, 4.0, **kw), pfm(X, y, (1 - eps) * gamma, **kw)):
        assert r.status == "separator"
        Y = patterns(X, y, rho=None)
        margin = np.min(Y @ r.w) / np.linalg.norm(r.w)
        assert r.info["margin"] == pytest.approx(margin, rel=1e-14)
        assert (1 - eps) * gamma * (1 - 1e-12) <= margin <= gamma * (1 + 1e-12)
        assert r.info["upper_bound"] >= gamma * (1 - 1e-12)  # ||a_t||/t >= gamma_d  (eq. (4))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10))
def test_margin_guarantee_planted_sweep(seed):
    X, y, gamma = planted(100 + seed, m=40, d=5, gamma=0.3)
    for eps in (0.02, 0.1, 0.5, 1.0):
        for active in (False, True):
            for multiple in (False, True):
                kw = dict(rho=None, active_sets=active, multiple_updates=multiple, seed=seed, max_epochs=10**6)
                for r in (pdm(X, y, eps, **kw), pdm_succ(X, y, eps, **kw)):
                    assert r.status == "separator"
                    assert r.info["margin"] >= (1 - eps) * gamma * (1 - 1e-12)


@pytest.mark.parametrize("active,multiple", [(False, False), (True, True)])
def test_float64_and_mpmath_agree(active, multiple):
    X, y, gamma = planted(2, m=10, d=3)
    kw = dict(rho=1.0, active_sets=active, multiple_updates=multiple, trace=True)
    for fn, arg in ((pdm, 0.1), (pdm_succ, 0.1), (pfm, 0.3)):
        f, mp = fn(X, y, arg, **kw), fn(X, y, arg, precision=50, **kw)
        assert f.status == mp.status == "separator" and f.iterations == mp.iterations
        assert mp.precision == "mpmath, 50 decimal digits" and f.precision == "float64"
        assert isinstance(mp.w[0], mpmath.mpf) and isinstance(mp.info["ell"], mpmath.mpf)
        assert len(f.trace) == len(mp.trace)
        for s, u in zip(f.trace, mp.trace):
            assert (s.t, s.pattern, s.lam) == (u.t, u.pattern, u.lam)
            np.testing.assert_allclose(s.a, u.a.astype(float), rtol=0, atol=1e-10 * (1 + np.abs(s.a).max()))
            assert float(u.ell) == pytest.approx(s.ell, rel=1e-10)


def test_mpmath_hand_trace_exact():
    r = pdm([[1, 0], [0, 1], [1, -1]], [1, 1, -1], 0.5, rho=None, trace=True, precision=30)
    with mpmath.workdps(30):
        assert r.trace[3].theta == mpmath.mpf(2) / 3
        assert r.trace[4].theta == mpmath.mpf(5) / 8
        assert r.info["margin"] == 1 / mpmath.sqrt(5)
    assert r.iterations == 4


def test_budgets():
    X, y = [[1.0], [1.0]], [1, -1]  # not separable: PDM updates forever
    r = pdm(X, y, 0.5, rho=None, max_iter=7)
    assert r.status == "max_iter" and r.iterations == 7 and "budget" in r.message
    r = pdm(X, y, 0.5, rho=None, max_epochs=3, max_iter=10**6)
    assert r.status == "max_iter" and r.info["epochs"] == 3 and r.iterations == 6
    r = pdm(X, y, 0.5, rho=None, max_iter=0)
    assert r.iterations == 0 and r.info["margin"] is None and r.info["upper_bound"] is None
    r = pdm(X, y, 0.5, rho=None, max_iter=2)  # y_1 = (1), y_2 = (-1): a_2 = 0
    assert r.w.tolist() == [0] and r.info["margin"] is None and r.info["upper_bound"] == 0
    r = pfm([[1.0, 0.0], [0.0, 1.0]], [1, 1], 5.0, rho=None, max_epochs=20)
    assert r.status == "max_iter"  # beta > gamma_d: PFM cannot converge


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: pdm(X2, Y2, 0.0), "epsilon"),
        (lambda: pdm(X2, Y2, 1.5), "epsilon"),
        (lambda: pdm(X2, Y2, float("nan")), "epsilon"),
        (lambda: pdm(X2, Y2, "0.1"), "epsilon"),
        (lambda: pdm_succ(X2, Y2, 0.0), "epsilon"),
        (lambda: pdm_succ(X2, Y2, 0.1, 1.0), "eta"),
        (lambda: pdm_succ(X2, Y2, 0.1, 0.5), "eta"),
        (lambda: pfm(X2, Y2, -0.1), "beta"),
        (lambda: pfm(X2, Y2, None), "beta"),
        (lambda: pdm(X2, Y2, 0.1, rho=0.0), "rho"),
        (lambda: pdm(X2, Y2, 0.1, rho=-1.0), "rho"),
        (lambda: pdm(X2, Y2, 0.1, Delta=0.0), "Delta"),
        (lambda: pfm(X2, Y2, 0.1, Delta=-2.0), "Delta"),
        (lambda: pdm(X2, Y2, 0.1, seed=-1), "seed"),
        (lambda: pdm(X2, Y2, 0.1, seed=1.5), "seed"),
        (lambda: pdm(X2, Y2, 0.1, max_iter=-1), "max_iter"),
        (lambda: pdm(X2, Y2, 0.1, max_iter=10.0), "max_iter"),
        (lambda: pdm(X2, Y2, 0.1, max_epochs=-1), "max_epochs"),
        (lambda: pdm(X2, Y2, 0.1, precision=0), "precision"),
        (lambda: pdm(X2, Y2, 0.1, active_sets="yes"), "active_sets"),
        (lambda: pdm(X2, Y2, 0.1, multiple_updates=1), "multiple_updates"),
        (lambda: pdm(X2, Y2, 0.1, trace=None), "trace"),
        (lambda: pdm(X2, [1, 2], 0.1), "y must contain only"),
        (lambda: pdm(X2, [1], 0.1), "labels"),
        (lambda: pdm([[np.inf, 0.0], [1.0, 1.0]], Y2, 0.1), "NaN or inf"),
        (lambda: pdm([[0.0, 0.0], [1.0, 1.0]], Y2, 0.1, rho=None), "zero rows"),
    ],
)
def test_value_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_boundary_arguments_accepted():
    assert pdm(X2, Y2, 1.0).status == "separator"  # epsilon = 1 allowed
    assert pfm(X2, Y2, 0.0).status == "separator"  # beta = 0 allowed
    assert pdm_succ(X2, Y2, 0.5, 1.0001).info["eps_schedule"] == (0.5,)
    assert pdm([[0.0, 0.0], [1.0, 1.0]], Y2, 0.1, rho=None, Delta=1.0).status == "separator"


def test_pfm_threshold_guards_round_off_negative_ell():
    """ell_t's recurrence can round to -4e-16 when a_t returns to 0 (found on infeasible data
    with beta = 0); the threshold must be 0 there, not NaN (a NaN threshold stops all updates)."""
    from reference.arithmetic import Arithmetic
    from reference.dynamic_margin import pfm_threshold

    assert pfm_threshold(0.5, 3, -4.4e-16, Arithmetic(None)) == 0.0
    assert pfm_threshold(0.5, 3, 4.0, Arithmetic(None)) == 1.0


def test_no_nan_on_infeasible_cross_instance():
    """ell_t rounds below 0 on this infeasible instance; the reported ||a_t||/t must use the
    freshly computed norm (it used sqrt(ell) and produced NaN with a RuntimeWarning)."""
    import warnings

    from theorems.instances.suite import builtin_suite

    inst = next(i for i in builtin_suite() if i.name.startswith("infeasible(cross"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        r = pdm(inst.X, inst.y, 0.9, rho=1.0, max_iter=400, max_epochs=10**9)
    ub = r.info["upper_bound"]
    assert ub is not None and ub == ub and ub >= 0


def test_multiple_update_round_off_guard_ends_when_mu_plus_is_far_off(monkeypatch):
    """Patterns times 2^-513 where q_2 is subnormal: B^2 in mu_+ underflows and mu_+ = 6.4e11
    where the test already fails after 10^6 updates.  The guard (lambda - 1 updates keep the test,
    lambda break it) walked by unit steps, 6e11 of them; it now doubles its steps after
    GUARD_STEPS and bisects: a few hundred evaluations, the same lambda property, both engines."""
    import reference
    import reference.dynamic_margin as dm
    from reference.fast import pt11_kernels

    X = np.array([[-1e-308, 0.0, 1e6], [2.25e-162, 0.0, 0.0], [0.0, 1.5e154, 0.0]])
    y = np.array([-1, 1, 1])
    kw = dict(rho=1.0, Delta=1.0, multiple_updates=True, max_iter=10**15, max_epochs=5)
    where = f"pdm_succ(X={X.tolist()}, y={y.tolist()}, 0.001, 2.0, {kw})"
    calls = []
    holds = dm._holds_after

    def counted(pb, s, j, p, n):
        calls.append(n)
        assert len(calls) < 10_000, f"{where}: the guard evaluated the test {len(calls)} times at t = {s.t} (pattern {j})"
        return holds(pb, s, j, p, n)

    monkeypatch.setattr(dm, "_holds_after", counted)
    slow = reference.pdm_succ(X, y, 0.001, 2.0, **kw)
    monkeypatch.undo()
    assert pt11_kernels.GUARD_STEPS == dm.GUARD_STEPS
    quick = reference.pdm_succ(X, y, 0.001, 2.0, engine="fast", **kw)
    assert (quick.status, quick.iterations) == (slow.status, slow.iterations), (where, slow.message, quick.message)
    assert np.array_equal(quick.w, slow.w), (where, f"t = {slow.iterations}", slow.w, quick.w)
    if slow.status == reference.SEPARATOR:
        assert reference.verify_exact(slow, X, y) == "", where


@pytest.mark.parametrize("start", [1, 5, 70, 200, 10**6, 10**12 - 1, 10**12])
@pytest.mark.parametrize("flip", [0, 1, 3, 64, 65, 66, 300, 10**9, 10**12 - 1])
def test_settle_finds_the_flip_from_any_start(flip, start):
    """_settle on a monotone test (holds for n < flip) lands on lambda = flip (capped to
    [1, room]), evaluating the test O(GUARD_STEPS + log room) times."""
    from reference.dynamic_margin import GUARD_STEPS, _settle

    room = 10**12
    calls = []

    def holds(n):
        calls.append(n)
        assert 0 <= n < room, n
        return n < flip

    assert _settle(holds, start, room) == min(max(flip, 1), room), (flip, start)
    assert len(calls) <= 2 * GUARD_STEPS + 4 * 41, (flip, start, len(calls))


@pytest.mark.parametrize("fn", [pdm, pfm, pdm_succ], ids=lambda f: f.__name__)
def test_pt11_documented_defaults(fn):
    params = inspect.signature(fn).parameters
    assert params["max_iter"].default == 1_000_000
    assert params["max_epochs"].default is None  # no hidden epoch cap: max_iter bounds the work
    assert params["seed"].default == 0
    assert params["trace"].default is False
    assert params["rho"].default == 1.0 and params["Delta"].default is None
    assert params["active_sets"].default is False and params["multiple_updates"].default is False
    arg = 0.1 if fn is pfm else 0.5
    r = fn(X2, Y2, arg)
    assert r.trace is None and r.status == "separator"
    assert r.info["rho"] == 1.0 and r.info["Delta"] is None  # patterns [l_k x_k, l_k * 1.0]
    assert len(r.w) == 3  # d + 1 coordinates: augmented by default
    # the default seed is 0: the same permutations as seed=0, given explicitly
    a = fn(X2, Y2, arg, active_sets=True, trace=True)
    b = fn(X2, Y2, arg, active_sets=True, trace=True, seed=0)
    assert [s.order for s in a.trace] == [s.order for s in b.trace]


def test_pdm_succ_default_eta_is_8():
    # eps_1 = 1/2, eps_2 = 1/2/8 = 1/16, then clamped to epsilon = 0.01  [spec B.8]
    assert pdm_succ(X2, Y2, 0.01).info["eps_schedule"] == (0.5, 0.0625, 0.01)


@pytest.mark.parametrize(
    "call,msg",
    [
        (lambda: pdm(X2, Y2, 0.0), "epsilon must lie in (0, 1], got 0.0; the accuracy of PDM, e.g. epsilon=0.01"),
        (lambda: pdm_succ(X2, Y2, 0.0), "epsilon must lie in (0, 1], got 0.0; the target accuracy, e.g. epsilon=0.01"),
        (lambda: pdm_succ(X2, Y2, 1.5), "epsilon must lie in (0, 1], got 1.5; the target accuracy, e.g. epsilon=0.01"),
        (lambda: pdm(X2, Y2, 1.5), "epsilon must lie in (0, 1], got 1.5; the accuracy of PDM, e.g. epsilon=0.01"),
        (lambda: pdm_succ(X2, Y2, 0.1, 1.0),
         "eta must lie in (1, inf), got 1.0; the ratio of successive accuracies, e.g. eta=8.0"),
        (lambda: pfm(X2, Y2, -0.1), "beta must lie in [0, inf), got -0.1; beta = (1 - eps) gamma_d, e.g. beta=0.1"),
        (lambda: pdm(X2, Y2, 0.1, rho=0.0),
         "rho must lie in (0, inf), got 0.0; pass rho=1.0, or rho=None for no augmentation"),
        (lambda: pfm(X2, Y2, 0.1, Delta=0.0),
         "Delta must lie in (0, inf), got 0.0; pass e.g. Delta=1.0, or Delta=None for the original space"),
        (lambda: pdm(X2, Y2, 0.1, seed=-1), "seed must be an integer >= 0, got -1"),
        (lambda: pfm(X2, Y2, 0.1, max_iter=-1), "max_iter must be an integer >= 0, got -1"),
        (lambda: pdm_succ(X2, Y2, 0.1, max_epochs=-1), "max_epochs must be an integer >= 0, got -1"),
        (lambda: pdm(X2, Y2, 0.1, active_sets="yes"), "active_sets must be True or False, got 'yes'"),
        (lambda: pfm(X2, Y2, 0.1, multiple_updates=1), "multiple_updates must be True or False, got 1"),
        (lambda: pdm_succ(X2, Y2, 0.1, trace=None), "trace must be True or False, got None"),
    ],
)
def test_pt11_error_messages_are_exact(call, msg):
    with pytest.raises(ValueError, match=full(msg)):
        call()


def test_pfm_mu_plus_general_q_and_round_off_discriminant():
    # y with q = ||y||^2 = 2, a.y = p = 0, ||a||^2 = 8, beta = 1: after mu updates with y,
    # p + mu q = 2 mu and ||a + mu y||^2 = 8 + 2 mu^2, so the test 2 mu <= sqrt(8 + 2 mu^2) holds
    # up to mu^2 = 4: mu_+ = 2.
    assert pfm_mu_plus(1.0, 0.0, 2.0, 8.0, 5, F64) == 2.0
    # y parallel to a: q ell - p^2 = 0 exactly, but the inputs may round it below 0 (here
    # 1 * 0.99999999999999989 - 1 < 0).  The root is then 0: mu_+ = -p/q = -1, not NaN.
    v = pfm_mu_plus(0.5, 1.0, 1.0, 1.0 - 2.0**-53, 3, F64)
    assert v == -1.0


def test_algorithm_objects_are_the_box():
    # PDM, PFM and PDM-succ are built by _algorithm at import time; build one afresh and check
    # it is the same machine: the box's init / step / verify / output, exit on convergence,
    # counter t.
    from dataclasses import replace as _replace

    from reference import dynamic_margin as dm

    a = dm._algorithm("pdm")
    assert a.name == "pdm"
    assert (a.init, a.step, a.verify, a.output) == (dm._init, dm._step, dm._verify, dm._output)
    s = pdm(X2, Y2, 0.5, trace=True).trace[-1]
    assert s.converged and a.exit(None, s) == "separator"
    assert a.exit(None, _replace(s, converged=False)) is None
    assert a.counter(_replace(s, t=7)) == 7
    assert [dm.PDM.name, dm.PFM.name, dm.PDM_SUCC.name] == ["pdm", "pfm", "pdm_succ"]


@pytest.mark.parametrize("fn,arg", [(pdm, 0.5), (pfm, 0.01), (pdm_succ, 0.5)], ids=["pdm", "pfm", "pdm_succ"])
def test_default_seed_is_zero(fn, arg):
    # 12 points: the first permutation of np.random.default_rng(0) differs from seed 1's.
    rng = np.random.RandomState(5)
    X = rng.uniform(-1, 1, size=(12, 2))
    y = np.where(X[:, 0] + X[:, 1] > 0, 1, -1)
    a = fn(X, y, arg, active_sets=True, max_iter=5, trace=True)
    b = fn(X, y, arg, active_sets=True, max_iter=5, trace=True, seed=0)
    c = fn(X, y, arg, active_sets=True, max_iter=5, trace=True, seed=1)
    assert a.trace[0].order == b.trace[0].order != c.trace[0].order


def test_patterns_validates_delta():
    X, y = np.array([[1.0, 2.0], [-1.0, 0.5]]), np.array([1, -1])
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="Delta"):
            reference.dynamic_margin.patterns(X, y, Delta=bad)
    P = reference.dynamic_margin.patterns(X, y, Delta=2.0)
    assert P.shape == (2, 5) and np.array_equal(P[:, 3:], np.diag(y * 2.0))


@pytest.mark.parametrize("precision", [None, 16])
def test_pdm_unverified_pass_updates_with_the_first_unverified_pattern(precision):
    res = ref.pdm(_TINY_X, _TINY_Y, 1.0, trace=True, precision=precision)
    assert res.status == ref.SEPARATOR and res.iterations == 2
    assert [s.pattern for s in res.trace if s.pattern is not None] == [0, 1]
    w = [Fraction(float(v)) for v in res.w]
    assert w == [Fraction(1) - (1 - Fraction(1, 2**52)), Fraction(5), Fraction(2)]
    assert all(v > 0 for v in _exact_margins(res.w, _TINY_X, _TINY_Y))
    assert verify_exact(res, _TINY_X, _TINY_Y) == ""
    # ell_2 = ell_1 + 2 a_1.y_2 + ||y_2||^2 = 2 + 2^-51 + (27 - 2^-51 + 2^-104) = ||a_2||^2, 29 in float64
    assert res.info["ell"] == 29.0 and res.info["theta"] == 0
    # the unverified update starts a fresh full pass ("then a fresh pass"): k = 0, no update in
    # it yet, not converged; that pass makes no update and the run ends after 3 full passes
    s = next(s for s in res.trace if s.pattern == 1)
    assert (s.k, s.updates_in_pass, s.converged, s.t) == (0, 0, False, 2)
    assert res.info["epochs"] == 3 and res.info["passes"] == 3


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_pdm_active_sets_unverified_pass_goes_on_to_a_verified_separator(seed):
    # Whichever pattern the random permutation presents first, the first update leaves the
    # other one at margin +-2^-52 ... the run must go on through the unverified claim (a fresh
    # full pass) to a verified separator.
    res = ref.pdm(_TINY_X, _TINY_Y, 1.0, active_sets=True, seed=seed, max_iter=50)
    assert res.status == ref.SEPARATOR
    assert all(v > 0 for v in _exact_margins(res.w, _TINY_X, _TINY_Y))


@pytest.mark.parametrize("x", [1.0, 0.25])
def test_pdm_one_point_hand_run(x):
    # y_1 = (x) (rho=None), eps = 1/2.  Pass 1: p = 0 <= theta_0 = 0: a_1 = (x), t = 1,
    # theta_1 = (1/2) x^2.  Pass 2: p = x^2 > x^2/2: no update, converged.  Two full passes
    # (epochs); the directional margin a.y/||a|| = x; ||a_1||/t = x.
    res = ref.pdm([[x]], [1], 0.5, rho=None)
    assert res.status == ref.SEPARATOR and res.iterations == 1
    assert res.info["epochs"] == 2 and res.info["passes"] == 2 and res.info["t_c"] == (1,)
    assert res.info["margin"] == x and res.info["upper_bound"] == x
    assert res.info["theta"] == x * x / 2 and res.info["ell"] == x * x
    assert res.info["R"] == x


def test_pdm_max_epochs_stops_after_that_many_full_passes():
    # y_1 = (1), y_2 = (-1): every pass updates twice (a: 0 -> 1 -> 0), never converges.
    for cap in (1, 2, 3):
        res = ref.pdm([[1.0], [1.0]], [1, -1], 0.5, rho=None, max_epochs=cap)
        assert res.status == ref.MAX_ITER and res.info["epochs"] == cap and res.iterations == 2 * cap


def test_pdm_succ_info():
    res = ref.pdm_succ(_X, _Y, 0.01, 8.0)
    assert res.info["eta"] == 8.0 and res.info["epsilon"] == 0.01
    assert res.info["eps_schedule"] == (0.5, 0.0625, 0.01)
    assert len(res.info["t_c"]) == 3 and res.info["t_c"][-1] == res.iterations
    assert ref.pdm(_X, _Y, 0.01).info["eps_schedule"] == (0.01,)


def test_pdm_mu_plus_is_the_larger_root():
    # eps = 1/2, p = 3, q = 4, ell = 32, t = 2:  eps q = 2, t q + (2 eps - 1) p = 8,
    # t p - (1 - eps) ell = -10:  2 mu^2 + 8 mu - 10 = 2 (mu + 5)(mu - 1): mu_+ = 1.
    from reference.arithmetic import Arithmetic

    F = Arithmetic(None)
    assert ref.dynamic_margin.pdm_mu_plus(0.5, 3.0, 4.0, 32.0, 2, F) == 1.0
    # eps = 1/4, p = 2, q = 4, ell = 16, t = 1: mu^2 + 3 mu - 10 = (mu + 5)(mu - 2): mu_+ = 2
    assert ref.dynamic_margin.pdm_mu_plus(0.25, 2.0, 4.0, 16.0, 1, F) == 2.0


def test_pfm_threshold_is_beta_times_the_norm():
    from reference.arithmetic import Arithmetic

    F = Arithmetic(None)
    th = ref.dynamic_margin.pfm_threshold
    assert th(0.5, 1, 0.25, F) == 0.25  # 1/2 * sqrt(1/4)
    assert th(0.5, 3, 4.0, F) == 1.0
    assert th(0.5, 1, 1.0, F) == 0.5
    assert th(0.5, 1, -4e-16, F) == 0.0  # round-off below 0: ||a|| = 0


def test_patterns_are_augmented_reflected_extended():
    X, y = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1, -1])
    P = ref.dynamic_margin.patterns(X, y, rho=0.5, Delta=2.0)
    assert P.tolist() == [[1.0, 2.0, 0.5, 2.0, 0.0], [-3.0, -4.0, -0.5, 0.0, -2.0]]
    assert ref.dynamic_margin.patterns(X, y).tolist() == [[1.0, 2.0, 1.0], [-3.0, -4.0, -1.0]]
    assert ref.dynamic_margin.patterns(X, y, rho=None).tolist() == [[1.0, 2.0], [-3.0, -4.0]]
    assert ref.dynamic_margin.patterns(X, y, rho=None, Delta=1.0).tolist() == [[1.0, 2.0, 1.0, 0.0], [-3.0, -4.0, 0.0, -1.0]]
    # a zero point is allowed when augmentation or extension makes its pattern nonzero
    Z = np.array([[0.0, 0.0], [1.0, 1.0]])
    assert ref.dynamic_margin.patterns(Z, y).tolist() == [[0.0, 0.0, 1.0], [-1.0, -1.0, -1.0]]
    assert ref.dynamic_margin.patterns(Z, y, rho=None, Delta=1.0)[0].tolist() == [0.0, 0.0, 1.0, 0.0]
    import mpmath

    P = ref.dynamic_margin.patterns(X, y, precision=30)
    assert all(isinstance(v, mpmath.mpf) for v in P.ravel()) and [float(v) for v in P[1]] == [-3.0, -4.0, -1.0]


@pytest.mark.parametrize("big", [2**1000, "mpf"])
def test_pt11_rescales_a_huge_integer_or_mpf_rho(big):
    # rho = 2^1000 given as a Python int (beyond int64) or an mpmath.mpf: q_1 = 1 + rho^2
    # overflows float64 unless the patterns run scaled by 2^-1001 (largest entry 2^1000 ->
    # 1/2).  y_1 = (1, 2^1000): one update, then p = q_1 > q_1/2 = theta_1: converged.
    import mpmath

    rho = mpmath.mpf(2) ** 1000 if big == "mpf" else big
    res = ref.pdm([[1.0]], [1], 0.5, rho=rho, max_iter=10)
    assert res.status == ref.SEPARATOR and res.iterations == 1
    assert res.info["scale"] == "2^-1001"
    assert res.w.tolist() == [2.0**-1001, 0.5]


def test_active_sets_a_pass_over_S3_builds_nothing():
    # S3 is the innermost set: its passes only update (spec B.9: S1 <- full pass, S2 <- S1,
    # S3 <- S2); the state's `built` stays the empty cons list during them.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 3))
    y = np.where(X @ rng.normal(size=3) + 0.1 >= 0, 1, -1)
    res = ref.pdm(X, y, 0.05, active_sets=True, trace=True, seed=5)
    assert res.status == ref.SEPARATOR
    at3 = [s for s in res.trace if s.level == 3]
    assert len(at3) > 10 and all(s.built == () for s in at3)
    below = [s for s in res.trace if s.level < 3 and s.k > 0]
    assert any(s.built != () for s in below)  # the other levels do build


@needs_numba
def test_pt11_fast_with_only_zero_rows_and_a_bias():
    """X = 0 with rho = 1: the patterns are y_k = l_k [0, 1], all ones here, so ||y_k|| = 1 = R, the
    first update gives a = [0, 1], which separates with margin 1 (as the textbook engine)."""
    for engine in ("textbook", "fast"):
        r = reference.pdm(np.zeros((2, 1)), np.array([1, 1]), 0.1, rho=1.0, engine=engine)
        assert r.status == reference.SEPARATOR and r.w.tolist() == [0.0, 1.0], engine
        assert (r.info["R"], r.info["margin"], r.info["upper_bound"]) == (1.0, 1.0, 1.0), engine


@needs_numba
def test_pt11_fast_margin_and_upper_bound_of_a_short_weight_vector():
    """One point x = 1/4 (no bias): the first update gives a_1 = 1/4 and PDM stops (p = 1/16 is not
    <= (1 - eps) ||a_1||^2 / 1); margin = min_k a.y_k / ||a|| = 1/4 and upper_bound = ||a_1|| / 1
    = 1/4 (= gamma_d, exactly); both reported although ||a|| < 1 and t = 1.  At t = 0 (max_iter
    = 0) a = 0: both are None, the keys present."""
    for engine in ("textbook", "fast"):
        r = reference.pdm(np.array([[0.25]]), np.array([1]), 0.1, rho=None, engine=engine)
        assert (r.status, r.iterations) == (reference.SEPARATOR, 1), engine
        assert (r.info["margin"], r.info["upper_bound"]) == (0.25, 0.25), engine
        r0 = reference.pdm(np.array([[0.25]]), np.array([1]), 0.1, rho=None, engine=engine, max_iter=0)
        assert (r0.status, r0.iterations) == (reference.MAX_ITER, 0), engine
        assert r0.info["margin"] is None and r0.info["upper_bound"] is None, engine


@pytest.mark.parametrize("ar", [F64, MP30], ids=["float64", "mpmath"])
@pytest.mark.parametrize(
    "eps, p, q, ell, t, root",
    [
        # eps = 1/4, t = 3, q = 1, p = 6, ell = 24: B = 3 - 6/2 = 0, C = 18 - 18 = 0, so the
        # quadratic is mu^2 / 4 = 0: a double root at 0.
        ("0.25", 6, 1, 24, 3, 0),
        # eps = 1/2, t = 1, q = 1, p = 1, ell = 1: B = 1, C = 1 - 1/2 = 1/2, D = 1 - 4 (1/2)(1/2) = 0:
        # mu^2 / 2 + mu + 1/2 = (mu + 1)^2 / 2, a double root at -1.
        ("0.5", 1, 1, 1, 1, -1),
        # eps = 1/2, t = 1, q = 1, p = 0, ell = 2: mu^2/2 + mu - 1 = 0, roots -1 -+ sqrt(3); B > 0.
        ("0.5", 0, 1, 2, 1, None),
    ],
)
def test_pdm_mu_plus_at_a_zero_discriminant(ar, eps, p, q, ell, t, root):
    # A zero discriminant (a double root) is the edge of the `D > 0` guard and of the `B > 0`
    # switch to the cancellation-free form 2C / (-B - sqrt(D)): both forms must give the root.
    with ar.context():
        mu = dm.pdm_mu_plus(ar.scalar(eps), ar.scalar(p), ar.scalar(q), ar.scalar(ell), t, ar)
        if root is None:
            assert abs(mu - (ar.sqrt(ar.scalar(3)) - 1)) <= 4 * ar.u
        else:
            assert mu == root


@pytest.mark.parametrize("M", [2, 3, 8, 1000])
def test_lambda_from_an_exact_mu_plus_is_only_confirmed(M, monkeypatch):
    # y_1 = (M, 0), y_2 = (1, 0), eps = 1/2, the state after the update with y_1: t = 1,
    # a = (M, 0), ell = M^2.  After n updates with y_2, (8) reads M + n <= (M + n)^2 / (2 (1 + n))
    # <=> n <= M - 2, so mu_+ = M - 2 exactly (an integer: float64 gets it exactly) and
    # lambda = M - 1.  With mu_+ exact, lambda = floor(mu_+) + 1 is right as computed: the
    # round-off guard only confirms it -- the test after lambda - 1 updates (holds; skipped when
    # lambda = 1: that is the test that triggered the update) and after lambda (fails).
    pb = _pdm_problem([[M, 0.0], [1.0, 0.0]], 0.5)
    s = dm.DynamicMarginState(t=1, a=np.array([float(M), 0.0]), ell=float(M * M), theta=M * M / 2, k=1, order=(0, 1))
    assert dm.pdm_mu_plus(0.5, float(M), 1.0, float(M * M), 1, F64) == M - 2
    seen = []
    original = dm._holds_after
    monkeypatch.setattr(dm, "_holds_after", lambda pb, s, j, p, n: seen.append(n) or original(pb, s, j, p, n))
    assert dm._lambda(pb, s, 1, float(M)) == M - 1
    assert seen == ([M - 2] if M > 2 else []) + [M - 1]


@pytest.mark.parametrize("mu", [None, float("nan"), float("inf"), float("-inf")])
def test_lambda_without_a_finite_mu_plus_is_a_single_update(mu):
    # _lambda: "unbounded (PFM with beta >= ||y_j||), or overflowed: plain single update" --
    # whatever the non-finite value, even where repeated presentations would update more often
    # (here y_2 would update M - 1 = 7 times; see the test above).
    M = 8
    pb = replace(_pdm_problem([[M, 0.0], [1.0, 0.0]], 0.5), mu_plus=lambda *args: mu)
    s = dm.DynamicMarginState(t=1, a=np.array([float(M), 0.0]), ell=float(M * M), theta=M * M / 2, k=1, order=(0, 1))
    assert dm._lambda(pb, s, 1, float(M)) == 1


@pytest.mark.filterwarnings("error")
def test_pdm_an_overflowing_mu_plus_is_a_single_update():
    # eps = 5e-324 (the smallest subnormal, a valid accuracy in (0, 1]): A = eps q underflows to
    # 0 for q < 1/2, so the quadratic formula (-B + sqrt(D)) / (2A) gives mu_+ = +inf whenever
    # B <= 0.  The documented behaviour (_lambda: "overflowed: plain single update") is the box:
    # the run with multiple updates is the run without them, update for update -- and silently
    # (a numpy RuntimeWarning "divide by zero" on stderr was a wart: nothing is written where the
    # user did not ask; the test turns warnings into errors).
    # y_1 = (1, 0), y_2 = (1/2, 1/10) (rho=None): t = 1, a = y_1 (theta_0 = 0); y_2: p = 1/2 <=
    # theta_1 = 1: a = (3/2, 1/10), t = 2.  Epoch 2 (multiple updates allowed): p_1 = 3/2 >
    # theta_2 = 1.13; y_2: p = 0.76 <= 1.13 with B = 2 q_2 - p = 0.52 - 0.76 < 0: mu_+ = inf.
    X, y = [[1.0, 0.0], [0.5, 0.1]], [1, 1]
    runs = [pdm(X, y, 5e-324, rho=None, multiple_updates=mult, max_iter=10, trace=True) for mult in (False, True)]
    for r in runs:
        assert r.status == "max_iter" and r.iterations == 10
        assert all(s.lam in (0, 1) for s in r.trace)
    assert [(s.t, s.pattern, s.lam) for s in runs[1].trace] == [(s.t, s.pattern, s.lam) for s in runs[0].trace]
    assert runs[1].w.tolist() == runs[0].w.tolist()


def test_active_set_counters_belong_to_the_current_loops():
    # Going back from S2 (or S3) to S1 starts a new loop of S2: its counter restarts at 0.
    back_to_s1 = 0
    for m, seed in [(6, 0), (6, 2), (10, 2), (20, 0), (20, 1)]:
        X, y = _separable(m, seed)
        r = pdm(X, y, 0.1, active_sets=True, trace=True, max_iter=20_000)
        assert r.status == "separator"
        _check_active_set_bookkeeping(r.trace)
        back_to_s1 += sum(1 for a, b in zip(r.trace, r.trace[1:]) if a.level >= 2 and b.level == 1)
    assert back_to_s1 >= 5  # the transitions under test do happen


@pytest.mark.parametrize(
    "m, d, margin, eps, seed, max_iter, from_level",
    [
        (10, 2, 0.02, 0.02, 0, 805, 2),  # a pass over S2 makes no update with S1 used 9 times
        (20, 3, 0.05, 0.05, 14, 2200, 3),  # S3 loop ends with S2 used 12 times, S1 9 times
    ],
)
def test_active_sets_the_tenth_invocation_of_s1_reloads_the_data_set(m, d, margin, eps, seed, max_iter, from_level):
    # Spec B.9 step 4: "S1 is used N_ep1 times.  The (N_ep1 + 1)-th invocation of S1 reloads
    # the full dataset" -- a full pass (level 0) over a permutation of all m patterns, with
    # fresh counters.  The two ways back to S1: a pass over S2 without an update, or the end of
    # the N_ep2-th loop over S3.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    w = rng.normal(size=d)
    y = np.where(X @ w >= 0, 1.0, -1.0)
    X = X + margin * y[:, None] * w / np.linalg.norm(w)
    r = pdm(X, y, eps, active_sets=True, trace=True, max_iter=max_iter)
    _check_active_set_bookkeeping(r.trace)
    reloads = [(a, b) for a, b in zip(r.trace, r.trace[1:]) if a.level == from_level and b.level == 0]
    assert reloads
    for a, b in reloads:
        assert a.uses[0] == dm.ACTIVE_SET_N_EP[0]  # S1 used N_ep1 times: no 10th use
        if from_level == 3:
            assert a.uses[1] == dm.ACTIVE_SET_N_EP[1]
        assert sorted(b.order) == list(range(m)) and b.uses == (0, 0, 0) and b.sets == ((), (), ())


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(rho=-1.0), r"^rho must lie in \(0, inf\), got -1\.0; pass rho=1\.0, or rho=None for no augmentation$"),
        (dict(rho=float("nan")), r"^rho must be finite, got nan; pass rho=1\.0, or rho=None for no augmentation$"),
        (dict(Delta=0.0), r"^Delta must lie in \(0, inf\), got 0\.0; pass e\.g\. Delta=1\.0, or Delta=None for the original space$"),
    ],
)
def test_patterns_rejects_rho_and_delta_naming_the_fix(kw, message):
    with pytest.raises(ValueError, match=message):
        dm.patterns([[1.0, 2.0]], [1], **kw)


@pytest.mark.parametrize("fn, arg", [(ref.pdm, 0.1), (ref.pfm, 0.05), (ref.pdm_succ, 0.05)], ids=["pdm", "pfm", "pdm_succ"])
def test_fast_engine_refuses_a_trace_naming_the_fix(fn, arg):
    pytest.importorskip("numba")
    message = r"^trace=True is the textbook engine's for PT11 \(one state per update\); pass engine='textbook'$"
    with pytest.raises(ValueError, match=message):
        fn([[1.0, 2.0]], [1], arg, engine="fast", trace=True)


@pytest.mark.parametrize("fn, arg", _PT11, ids=["pdm", "pfm", "pdm_succ"])
def test_a_float64_run_with_mpf_rho_and_delta_computes_in_float64(fn, arg):
    # Regression: rho / Delta given as mpmath.mpf (30
    # digits) in a float64 run were kept as mpf in the patterns, so p_tk = a . y_k, ell_t and
    # theta_t became mpf numbers computed from the 30-digit rho -- a float64 run that was not
    # float64, unlike the fast engine (float(rho)).  A float64 run uses the doubles nearest
    # rho and Delta: it is the run with float(rho), float(Delta), state for state.
    X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.2], [0.5, 0.5]])
    y = np.array([1, -1, 1, 1])
    with mpmath.workdps(30):
        rho, Delta = mpmath.mpf(1) / 3, mpmath.mpf(1) / 7
    runs = [fn(X, y, arg, rho=r, Delta=D, trace=True, multiple_updates=True) for r, D in ((rho, Delta), (float(rho), float(Delta)))]
    for r in runs:
        assert r.status == "separator"
        assert all(isinstance(v, float) for s in r.trace for v in (s.ell, s.theta))
    assert [(s.t, s.ell, s.theta, s.a.tolist()) for s in runs[0].trace] == [(s.t, s.ell, s.theta, s.a.tolist()) for s in runs[1].trace]
    assert runs[0].info["rho"] is rho and runs[0].info["Delta"] is Delta  # the info reports what was given


@pytest.mark.parametrize("engine", ["textbook", "fast"])
@pytest.mark.parametrize("fn, arg", _PT11, ids=["pdm", "pfm", "pdm_succ"])
def test_a_separator_at_the_edge_of_overflow_is_verified_on_the_scaled_patterns(fn, arg, engine):
    # y_1 = (1.5 2^1023, 1.5 2^1023) (rho=None): the run is on y_1 2^-1024 = (3/4, 3/4), an exact
    # scaling (PFM's beta alike); one update gives a = (3/4, 3/4), after which p = 9/8 > theta_1
    # (PDM: (1 - eps) 9/8; PFM: beta 2^-1024 (3/4) sqrt 2, beta = arg * 1.5 2^1023): converged.
    # a . y_1 on the data as given is 2.25 2^1023, beyond the largest double: the claim must be
    # verified on the exactly scaled patterns (_rescaled's `exact`), where it holds.
    X, y = np.array([[1.5 * 2.0**1023, 1.5 * 2.0**1023]]), np.array([1])
    beta_or_eps = arg * X[0, 0] if fn is dm.pfm else arg
    if engine == "fast":
        pytest.importorskip("numba")
    r = getattr(ref, fn.__name__)(X, y, beta_or_eps, rho=None, max_iter=20, engine=engine)
    assert r.status == "separator" and r.iterations == 1
    assert r.w.tolist() == [0.75, 0.75] and r.info["scale"] == "2^-1024"
    assert verify_exact(r, X, y) == ""


@pytest.mark.parametrize("engine", ["textbook", "fast"])
@pytest.mark.parametrize("fn, arg", _PT11, ids=["pdm", "pfm", "pdm_succ"])
def test_an_inexact_scaling_is_not_what_a_claim_is_verified_on(fn, arg, engine, monkeypatch):
    # reference.prepare._rescaled returns exact=False when scaling the patterns lost bits (entries that
    # underflow): the run goes on with the scaled copy, but a separator must then be verified
    # on the patterns as given.  Stand in for such a lossy copy with one that has y_2 = (1, 0)
    # where the data have y_2 = (-1, 0): the copy is separable by a = (1, 0) after one update,
    # the data (y_1 = (1, 0), y_2 = (-1, 0), both labels +1, rho=None) by nothing.  So no run
    # may claim a separator.  (Both engines go on past the unverified convergence,
    # to the budget, and name the refused claim.)
    if engine == "fast":
        pytest.importorskip("numba")
    X, y = np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1, 1])
    lossy = make_patterns(np.array([[1.0, 0.0], [1.0, 0.0]]), y, rho=None)
    monkeypatch.setattr(reference.prepare, "_rescaled", lambda P: (lossy, 0, False))  # the one preparation both engines run
    r = getattr(ref, fn.__name__)(X, y, arg, rho=None, max_iter=30, engine=engine)
    assert r.status == "max_iter"
    assert r.iterations == 30 and "not verified" in r.message


# PT11's mu_+ overflows (PFM: beta^2 for a beta beyond 1e154) or is 0/0 (PDM: epsilon so small
# that 1 - epsilon == 1 and eps q underflows, with a_t = t y_k: A = B = C = 0) in float64; _lambda
# evaluates it with numpy's overflow / invalid warnings off and falls back to one update: the
# documented behaviour is a plain single update, with nothing printed.
@pytest.mark.parametrize(
    "run",
    [
        lambda: pfm(np.array([[1.0, 0.5], [-0.5, 1.0]]), np.array([1, -1]), beta=1e200, multiple_updates=True, max_iter=20),
        lambda: pdm(np.array([[0.5]]), np.array([1]), epsilon=5e-324, rho=None, multiple_updates=True, max_iter=20),
    ],
    ids=["pfm-overflow", "pdm-invalid"],
)
def test_multiple_updates_at_a_non_finite_mu_plus_warn_nothing(run):
    # (invalid warnings back on), _8, _11 (overflow)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = run()
    # beta >= ||y_k|| (PFM) and 1 - epsilon == 1 in float64 (PDM): the test p <= theta holds
    # after every update, so the run ends at max_iter = 20 updates
    assert r.status == "max_iter" and r.iterations == 20


def test_lambda_at_an_overflowing_mu_plus_is_one_single_update_and_silent():
    # (overflow warnings back on).  Public runs
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


@needs_numba
def test_pt11_kernel_converging_without_a_pass_is_stopped(monkeypatch):
    """A PT11 kernel that, asked to go on after a refused convergence, claims convergence again
    without making a full pass is a broken kernel: the engine ends the run with "max_iter" and the
    verifier's reason (its guard: no full pass made, yet "converged") -- not an endless round of
    unverified updates until the budget.  The instance (pdm, eps = 1) has its first convergence
    refused at t = 2 (the textbook's t_c is (2, 4, 6)); the state after the update with the first
    pattern within round-off (t = 3) does not verify."""
    X = np.array([[2.0, -(1 - ULP)], [1.0, -3.0], [1.0, -(1 - ULP)], [0.0, -1.0]])
    y = np.array([-1, 1, 1, 1])
    slow = reference.pdm(X, y, 1.0)
    assert slow.info["t_c"] == (2, 4, 6) and slow.status == reference.SEPARATOR  # the instance
    real, calls = pt11_kernels.run, []

    def lazy(*args):  # the real kernel once; then "converged" at once, the state untouched
        calls.append(int(args[-3][pt11_kernels.PASSES]))  # istate: the passes made so far
        return real(*args) if len(calls) == 1 else pt11_kernels.CONVERGED

    monkeypatch.setattr(pt11_kernels, "run", lazy)
    r = reference.pdm(X, y, 1.0, engine="fast", max_iter=50)
    assert len(calls) == 2 and calls[1] > 0  # resumed once, after a run that made passes
    assert (r.status, r.iterations) == (reference.MAX_ITER, 3)
    assert r.message.startswith("separator claimed but not verified: y_")


@pytest.mark.parametrize("case", range(5))
def test_first_unverified_is_the_pattern_the_verifier_rejects(case):
    """_unverified_update: "such a pattern counts as a mistake ... The exit test and the verification
    thus agree" -- the pattern _first_unverified picks is the first one the verifier rejects (``not
    a.y_k > allowance``), also exactly at the allowance, in float64 and at 30 digits."""
    P, a, dps = list(_first_unverified_cases())[case]
    ar = Arithmetic(dps)
    with ar.context():
        if dps is None:
            why = verify_separator_patterns(P.data, P.indices, P.indptr, P.labels, P.rho, P.Delta, a, P.n_features)
        else:
            a = ar.array(a)
            why = verify_separator_primal(ar.array(P.dense()), a)
        pb = types.SimpleNamespace(P=P, P_verify=None, verified_on=P, ar=ar)
        assert DYN._first_unverified(pb, a) == _rejected_index(why)


@pytest.mark.parametrize("M", [2, 3, 8, 100])
@pytest.mark.parametrize("error", [-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0])
def test_lambda_is_the_definition_even_if_the_quadratic_is_off(M, error):
    # The docstring of _lambda: the quadratic formula may land on the wrong side in finite
    # precision; lambda is then moved until the test holds after lambda - 1 updates and fails
    # after lambda.  Feed it a mu_+ that is off by `error`: the answer must still be M - 1.
    pb0, s = _lambda_instance(M)
    assert dm.pdm_mu_plus(0.5, float(M), 1.0, float(M * M), 1, F64) == M - 2
    pb = _pdm_problem_2(pb0.P.dense(), 0.5, mu_plus=lambda *args: dm.pdm_mu_plus(*args) + error)
    assert dm._lambda(pb, s, 1, float(M)) == M - 1


def test_lambda_is_capped_by_the_budget_even_if_the_quadratic_is_off():
    # same instance, M = 8 (lambda = 7), but only room for t <= 4: lambda = 3 (t = 1 + 3).
    pb0, s = _lambda_instance(8)
    for error in (-2.0, 0.0, 2.0):
        pb = _pdm_problem_2(pb0.P.dense(), 0.5, mu_plus=lambda *args: dm.pdm_mu_plus(*args) + error, max_iter=4)
        assert dm._lambda(pb, s, 1, 8.0) == 3


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
    pb = _pdm_problem_2(pb0.P.dense(), 0.5, mu_plus=lambda *args: dm.pdm_mu_plus(*args) + error)
    calls = _count_calls(monkeypatch, "_holds_after")
    assert dm._lambda(pb, s, 1, 1e7) == 10**7 - 1
    assert calls[0] <= 2 * abs(error) + 3  # walked back by the error, not recounted from 1


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


def test_pt11_memory_is_o_nnz_plus_m():
    # 20,000 points in the extended space: materialized, the patterns would take
    # 20,000 x 20,003 x 8 bytes = 3.2 GB; held implicitly they take a few MB.
    import tracemalloc

    m = 20_000
    rng = np.random.default_rng(0)
    X = sp.random(m, 3, density=0.5, random_state=1, format="csr")
    y = rng.choice([-1, 1], m)
    tracemalloc.start()
    r = ref.pdm(X, y, 0.1, Delta=1.0, max_iter=200)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert r.w.shape == (3 + 1 + m,) and r.iterations == 200
    assert peak < 200e6, peak


def test_pt11_w_layout_on_csr():
    # [weights, bias, extended coordinates]: a . y_k recomputed from the returned w
    X, y = _heart()
    r = ref.pdm(X, y, 0.5, rho=1.0, Delta=1.0, max_iter=2000)
    w = r.w
    d, m = X.shape[1], X.shape[0]
    D = X.toarray()
    recomputed = y * (D @ w[:d] + 1.0 * w[d] + 1.0 * w[d + 1 :])
    assert r.status == "separator" and np.all(recomputed > 0)
    assert np.allclose(np.min(recomputed) / np.linalg.norm(w), r.info["margin"], rtol=1e-12)


def test_progress_callback_sees_every_update():
    X, y = _heart()
    seen = []
    r = ref.pdm(X[:50], y[:50], 0.5, progress=lambda s: seen.append(s.t))
    assert seen[-1] == r.iterations and len(seen) >= r.iterations
    with pytest.raises(ValueError, match="progress must be a callable"):
        ref.pdm(X[:50], y[:50], 0.5, progress=3)
