"""Tests of PDM, PFM and PDM-succ (PT11; spec B.4, B.8, B.9, errata E-B3, E-B5, E-B7).

Expected values are hand-computed (small integer instances, worked in the comments), known by
construction (planted max margins, the extended space), or produced by a literal transcription
of the algorithm box inside this file (:func:`box`), which runs exactly the textbook recurrences
and is compared update by update on integer data (where float64 is exact).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from reference.arithmetic import Arithmetic
from reference.dynamic_margin import (
    ACTIVE_SET_N_EP,
    patterns,
    pdm,
    pdm_mu_plus,
    pdm_succ,
    pfm,
    pfm_mu_plus,
    succ_schedule,
)

F64 = Arithmetic(None)


# -- oracles ------------------------------------------------------------------------------------


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


# -- the box on hand-computed instances ---------------------------------------------------------


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


# -- augmentation, reflection, extension --------------------------------------------------------


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


# -- PDM-succ ------------------------------------------------------------------------------------


def test_succ_schedule_erratum_e_b5():
    assert succ_schedule(0.01, 8.0) == (0.5, 0.0625, 0.01)
    assert succ_schedule(0.1, 2.0) == (0.5, 0.25, 0.125, 0.1)
    assert succ_schedule(0.0625, 8.0) == (0.5, 0.0625)
    assert succ_schedule(0.07, 8.0) == (0.5, 0.07)
    assert succ_schedule(0.5, 8.0) == (0.5,)
    assert succ_schedule(0.7, 8.0) == (0.7,)
    assert succ_schedule(0.49, 1.5) == (0.5, 0.49)


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


# -- multiple updates ----------------------------------------------------------------------------


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


# -- active sets -----------------------------------------------------------------------------------


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


def _seed_with_first(m, first):
    return next(sd for sd in range(1000) if np.random.default_rng(sd).permutation(m)[0] == first)


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


# -- the guarantee on planted instances --------------------------------------------------------------


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


# -- precision --------------------------------------------------------------------------------------


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


# -- budgets ---------------------------------------------------------------------------------------------


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


# -- validation --------------------------------------------------------------------------------------


X2, Y2 = [[1.0, 2.0], [-1.0, 0.5]], [1, -1]


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
