"""Precise tests of the algorithm modules written against surviving mutants (mutmut).

Each test pins one user-visible behaviour the rest of the suite left open: documented defaults,
the exact wording of validation errors (argument name + fix), `<` versus `<=` boundaries on
instances where the boundary is hit exactly in float64, and the bookkeeping of ISNKPVN when an
inner SNKPVN call ends without a verified claim.  Expected values are derived by hand in the
comments (dyadic numbers, so float64 computes them exactly) or cross-checked against a direct
call of the documented building block.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

from reference import gram, isnkpvn, nkp, normalized_perceptron, nvn, perceptron, snkp, snkpvn

# a0 = (1,0), a1 = (-1,0), a2 = (0,1): infeasible, W = {(1/2,1/2,0)}, ||1_3/3||_G = 1/3.
G3 = np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
# a0 = (1,0), a1 = (-1,0), a2 = a3 = (0,1): infeasible (W = {(1/2,1/2,0,0)}); with q0 = 1_4/4,
# G q0 = (0, 0, 1/2, 1/2) and ||q0||_G^2 = 1/4 exactly, so ||q0||_G = 1/2 and, for gamma = 2,
# delta_0 = 1/4 -- all dyadic, hence exact in float64.
G4 = np.array([[1.0, -1, 0, 0], [-1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]])
Q4 = np.full(4, 0.25)
# z0 = (1,0), z1 = (-1,1), z2 = (2,-1): separable (w = (1, 1.5)); 1_3/3 does not separate
# (G 1_3/3 has a negative entry), so SNKPVN needs at least one step.
SEP3 = np.array([[1.0, 0.0], [-1.0, 1.0], [2.0, -1.0]])
X_OK = np.array([[1.0, 0.0], [0.0, 1.0]])
Y_OK = np.array([1, 1])


def f64(v) -> np.ndarray:
    return np.array([float(x) for x in np.ravel(v)])


def full(msg: str) -> str:
    """A regex matching exactly ``msg`` (the whole error message)."""
    return "^" + re.escape(msg) + "$"


# =============================================================================================
# documented defaults
# =============================================================================================


@pytest.mark.parametrize(
    "fn,budget",
    [(perceptron, 100_000), (normalized_perceptron, 100_000), (nkp, 100_000), (nvn, 100_000),
     (snkp, 10_000), (snkpvn, 10_000), (isnkpvn, 100_000)],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_documented_default_budgets_and_trace_off(fn, budget):
    params = inspect.signature(fn).parameters
    assert params["max_iter"].default == budget
    assert params["trace"].default is False
    # and a default call records no trace
    if fn in (perceptron, normalized_perceptron):
        r = fn(X_OK, Y_OK)
    elif fn is snkpvn:
        r = fn(np.eye(2), [0.5, 0.5], 0.1)
    else:
        r = fn(np.eye(2))
    assert r.trace is None and r.status == "separator"


def test_nvn_default_epsilon_is_1e_3():
    # G = [[1, c], [c, 1]], p_0 = (1/2, 1/2): ||p_0||_G^2 = (1 + c)/2.  With 1 + c = 2^-19,
    # ||p_0||_G = 2^-10 = 9.77e-4 <= 1e-3: a certificate at k = 0; with 1 + c = 2^-17,
    # ||p_0||_G = 2^-9 = 1.95e-3 > 1e-3, and G p_0 > 0: the primal exit at k = 0.
    assert inspect.signature(nvn).parameters["epsilon"].default == 1e-3
    for e, status in ((19, "certificate"), (17, "separator")):
        c = -1 + 2.0**-e
        r = nvn(np.array([[1.0, c], [c, 1.0]]))
        assert (r.status, r.iterations) == (status, 0)


def test_isnkpvn_default_gamma_and_epsilon():
    # gamma = 2: delta_0 = ||1_3/3||_{G3} / 2 = (1/3)/2; epsilon = 1e-3: the run stops at the
    # first delta_t < 1e-3 (all earlier ones are >= 1e-3).
    r = isnkpvn(G3)
    deltas = [float(d) for d in r.info["deltas"]]
    assert deltas[0] == pytest.approx(1 / 6, rel=1e-15)
    assert deltas[-1] < 1e-3 <= min(deltas[:-1])
    assert r.status == "certificate"


# =============================================================================================
# error messages name the argument and the fix
# =============================================================================================


def test_error_messages_are_exact():
    with pytest.raises(ValueError, match=full("epsilon must lie in (0, 1], got 0.0; NVN's accuracy satisfies 0 < epsilon <= 1")):
        nvn(np.eye(2), 0.0)
    with pytest.raises(ValueError, match=full("delta must lie in (0, inf), got 0.0; SNKPVN's accuracy delta must be positive")):
        snkpvn(np.eye(2), [0.5, 0.5], 0.0)
    with pytest.raises(
        ValueError, match=full("gamma must lie in (1, inf), got 1.0; ISNKPVN shrinks delta_t by gamma > 1 per outer loop")
    ):
        isnkpvn(np.eye(2), 1.0, 1e-3)
    with pytest.raises(ValueError, match=full("epsilon must lie in (0, inf), got 0.0; the target accuracy must be positive")):
        isnkpvn(np.eye(2), 2.0, 0.0)
    runs = [
        lambda: perceptron(X_OK, Y_OK, max_iter=-1),
        lambda: normalized_perceptron(X_OK, Y_OK, max_iter=-1),
        lambda: nkp(np.eye(2), max_iter=-1),
        lambda: nvn(np.eye(2), 0.1, max_iter=-1),
        lambda: snkp(np.eye(2), max_iter=-1),
        lambda: snkpvn(np.eye(2), [0.5, 0.5], 0.1, max_iter=-1),
        lambda: isnkpvn(np.eye(2), max_iter=-1),
    ]
    for run in runs:
        with pytest.raises(ValueError, match=full("max_iter must be an integer >= 0, got -1")):
            run()


# =============================================================================================
# SNKP / SNKPVN state: theta_{k-1} is recorded
# =============================================================================================


def test_smoothed_states_record_theta():
    # state k holds theta_{k-1} = 2/((k-1)+3) = 2/(k+2); nothing at k = 0.
    for r in (snkp(G3, max_iter=4, trace=True), snkpvn(G3, [0.7, 0.1, 0.2], 1e-9, max_iter=4, trace=True)):
        assert r.trace[0].theta is None
        assert [float(s.theta) for s in r.trace[1:]] == pytest.approx([2 / 3, 2 / 4, 2 / 5, 2 / 6], rel=1e-15)


# =============================================================================================
# ISNKPVN
# =============================================================================================


def test_isnkpvn_separator_after_inner_steps_with_small_budget():
    # G 1_3/3 has a negative entry, so SNKPVN(q_0, delta_0) takes >= 1 step; the separator it
    # returns is ISNKPVN's answer (it must not start another outer loop with the same q_0).
    G = gram(SEP3, np.ones(3))
    q0 = np.full(3, 1 / 3)
    assert np.min(G @ q0) < 0
    inner = snkpvn(G, q0, np.sqrt(q0 @ G @ q0) / 2)
    assert inner.status == "separator" and inner.iterations >= 1
    r = isnkpvn(G, 2.0, 1e-3, max_iter=10 * inner.iterations)
    assert (r.status, r.iterations, r.info["T"]) == ("separator", inner.iterations, 1)
    np.testing.assert_array_equal(f64(r.alpha), f64(inner.alpha))
    assert np.all(G @ f64(r.alpha) > 0)


def test_isnkpvn_delta_equal_to_epsilon_is_not_below_it():
    # delta_0 = 1/4 exactly (see G4).  The halting rule is delta_t < epsilon (strict): with
    # epsilon = 1/4 the first loop does not halt, a second one is made.
    r = isnkpvn(G4, 2.0, 0.25)
    deltas = [float(d) for d in r.info["deltas"]]
    assert deltas[0] == 0.25
    assert r.info["T"] >= 2 and deltas[-1] < 0.25
    assert r.status == "certificate"


def test_isnkpvn_exhausted_inner_call_makes_no_claim_and_keeps_q():
    # epsilon = 0.6: delta_0 = 1/4 < 0.6 and even ||q_0||_G = 1/2 < 0.6, but SNKPVN(q_0, 1/4)
    # needs more than the 1 iteration the budget allows, so it returns nothing: no certificate
    # may be claimed, and the prox-centre stays q_0.
    assert snkpvn(G4, Q4, 0.25, max_iter=1).status == "max_iter"
    r = isnkpvn(G4, 2.0, 0.6, max_iter=1, trace=True)
    assert (r.status, r.iterations, r.info["T"], r.info["inner_iterations"]) == ("max_iter", 1, 1, [1])
    np.testing.assert_array_equal(f64(r.p), Q4)
    assert r.trace[-1].inner.status == "max_iter"
    assert r.message == "budget exhausted after 1 iterations"


def test_isnkpvn_stops_when_inner_claim_fails_verification():
    # G = [[1, c], [c, 1]], c = -(1 - 2^-48): G q_0 = (1 + c)/2 (1, 1) = 2^-49 (1, 1) > 0, so
    # G q_0 > 0 only within the verifier's round-off allowance 18 u = 18 * 2^-52, so SNKPVN's
    # exit test (which uses the same allowance: exit test and verification agree) makes no
    # separator claim, and ||q_0||_G = 2^-24.5 > delta_0 = ||q_0||_G / 2 gives no certificate:
    # SNKPVN goes on until its budget is spent.  ISNKPVN must stop there
    # (repeating the same call would never end), and the E-A7 guard does not fire:
    # ||q_0||_G^2 = 2^-49 > n u = 2^-51.
    c = -(1 - 2.0**-48)
    G = np.array([[1.0, c], [c, 1.0]])
    r = isnkpvn(G, 2.0, 1e-3, trace=True, max_iter=40)
    assert (r.status, r.iterations, r.info["T"], r.info["inner_iterations"]) == ("max_iter", 40, 1, [40])
    assert r.trace[0].inner.message == "budget exhausted after 40 iterations"  # no claim was made
    np.testing.assert_array_equal(f64(r.p), [0.5, 0.5])
    assert r.alpha is None


# G = [[1, c], [c, 1]] (+) [[1, -1], [-1, 1]] with c = -1 + 2^-47: G q_0 = (2^-49, 2^-49, 0, 0)
# and ||q_0||_G^2 = 2^-50 = 4 * 2^-52 = n u exactly, ||q_0||_G = 2^-25 (all exact in float64).
_C = -1 + 2.0**-47
G_GUARD = np.array([[1.0, _C, 0, 0], [_C, 1.0, 0, 0], [0, 0, 1.0, -1.0], [0, 0, -1.0, 1.0]])


def test_isnkpvn_guard_fires_at_equality():
    # The E-A7 guard is ||q_t||_G^2 <= n u (non-strict): at equality q_0 is returned at once.
    assert float(Q4 @ (G_GUARD @ Q4)) == 4 * np.finfo(float).eps
    r = isnkpvn(G_GUARD, 2.0, 1e-3, max_iter=50)
    assert (r.status, r.iterations, r.info["T"]) == ("certificate", 0, 0)
    np.testing.assert_array_equal(f64(r.p), Q4)


def test_isnkpvn_certificate_is_verified_strictly():
    # Same guard case, but epsilon = ||q_0||_G = 2^-25: the certificate promises ||p||_G < epsilon
    # (strict), which q_0 does not satisfy, so the claim is refused -- and the run goes on
    # (issue 11) with an SNKPVN call at delta_0 = 2^-26 until the budget is spent.
    r = isnkpvn(G_GUARD, 2.0, 2.0**-25, max_iter=50)
    assert (r.status, r.iterations, r.info["T"]) == ("max_iter", 50, 1)
    assert "the last claim (certificate, iteration 0) was not verified" in r.message and "is not <" in r.message


# =============================================================================================
# PT11: PDM / PFM / PDM-succ
# =============================================================================================

from reference.arithmetic import Arithmetic  # noqa: E402
from reference.dynamic_margin import pdm, pdm_succ, pfm, pfm_mu_plus  # noqa: E402

F64 = Arithmetic(None)
X2, Y2 = [[1.0, 2.0], [-1.0, 0.5]], [1, -1]


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


def test_default_budgets_bind_on_infeasible_data():
    # (mutmut's trampolines hide mutated defaults from inspect.signature, so the defaults are
    # also pinned by behaviour where that is cheap.)  TRI / G3 are infeasible: SNKP never
    # separates and SNKPVN cannot certify 1e-12 quickly, so both use the default 10_000.
    TRI = np.array([[1.0, -0.5, -0.5], [-0.5, 1.0, -0.5], [-0.5, -0.5, 1.0]])
    assert (snkp(TRI).status, snkp(TRI).iterations) == ("max_iter", 10_000)
    r = snkpvn(G3, [0.7, 0.1, 0.2], 1e-12)
    assert (r.status, r.iterations) == ("max_iter", 10_000)
    # y_1 = (1), y_2 = (-1): every pattern updates in every pass (2 updates per epoch).  No
    # epoch cap by default: max_iter alone stops the run (after 10_001 epochs here, past the
    # 10_000 of the old hidden cap), and an explicit max_epochs still binds.
    for fn, arg in ((pdm, 0.5), (pfm, 0.5), (pdm_succ, 0.5)):
        r = fn([[1.0], [1.0]], [1, -1], arg, rho=None, max_iter=20_002)
        assert (r.status, r.iterations, r.info["epochs"]) == ("max_iter", 20_002, 10_001)
        r = fn([[1.0], [1.0]], [1, -1], arg, rho=None, max_iter=20_002, max_epochs=3)
        assert (r.status, r.iterations, r.info["epochs"]) == ("max_iter", 6, 3)


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
