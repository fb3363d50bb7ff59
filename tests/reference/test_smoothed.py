"""Tests of reference/test_smoothed.py."""

from __future__ import annotations

import math
import time
import types
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, strategies as st

import reference
import reference as ref
from reference import gram, isnkpvn, nkp, normalized_perceptron, nvn, perceptron, snkp, snkpvn
from reference.arithmetic import Arithmetic, g_norm
from reference.dynamic_margin import pdm, pdm_succ, pfm
from reference.exact import verify_exact
from reference.fast import rp14_kernels
from reference.smoothed import OuterRecord, loss, p_mu_q, smoothed_loss, smoothed_loss_q
from tests.support.instances import (
    G3,
    PAIR,
    TRI,
    XOR_LIN_G,
    XOR_X,
    XOR_Y,
    X_OK,
    Y_OK,
    _,
    _G,
    _G_BOUNDARY,
    _Q,
    _lying_smoothed,
    f64,
    gnorm,
    in_simplex,
    planted,
    seeds,
)
from tests.support.margin import full
from tests.support.numba import needs_numba
from theorems.validate.report import Report
from theorems.validate.search import _hypothesis_search


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


def f64(v) -> np.ndarray:
    return np.array([float(x) for x in np.ravel(v)])


# G = [[1, c], [c, 1]] (+) [[1, -1], [-1, 1]] with c = -1 + 2^-47: G q_0 = (2^-49, 2^-49, 0, 0)
# and ||q_0||_G^2 = 2^-50 = 4 * 2^-52 = n u exactly, ||q_0||_G = 2^-25 (all exact in float64).
_C = -1 + 2.0**-47


G_GUARD = np.array([[1.0, _C, 0, 0], [_C, 1.0, 0, 0], [0, 0, 1.0, -1.0], [0, 0, -1.0, 1.0]])


import reference.smoothed as SMOOTHED  # noqa: E402  (the module itself, for monkeypatching its names)


def _gram_with_one_pair(c, ar):
    """The 4 x 4 normalized Gram matrix I with G_12 = G_21 = c (PSD for |c| <= 1)."""
    G = ar.array(np.eye(4))
    G[0, 1] = G[1, 0] = c
    return G


def softmax_list(v):
    e = [math.exp(x - max(v)) for x in v]
    return [x / sum(e) for x in e]


def _drawn(seed=0):
    seen = []

    def snkp(G, **kw):
        seen.append(np.asarray(G).tobytes())
        return reference.snkp(G, **kw)

    _hypothesis_search("snkp", snkp, Report("snkp", "x", True), examples=8, seed=seed, strict=False)
    return seen


def test_isnkpvn_default_gamma_and_epsilon():
    # gamma = 2: delta_0 = ||1_3/3||_{G3} / 2 = (1/3)/2; epsilon = 1e-3: the run stops at the
    # first delta_t < 1e-3 (all earlier ones are >= 1e-3).
    r = isnkpvn(G3)
    deltas = [float(d) for d in r.info["deltas"]]
    assert deltas[0] == pytest.approx(1 / 6, rel=1e-15)
    assert deltas[-1] < 1e-3 <= min(deltas[:-1])
    assert r.status == "certificate"


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


def test_smoothed_states_record_theta():
    # state k holds theta_{k-1} = 2/((k-1)+3) = 2/(k+2); nothing at k = 0.
    for r in (snkp(G3, max_iter=4, trace=True), snkpvn(G3, [0.7, 0.1, 0.2], 2e-8, max_iter=4, trace=True)):
        assert r.trace[0].theta is None
        assert [float(s.theta) for s in r.trace[1:]] == pytest.approx([2 / 3, 2 / 4, 2 / 5, 2 / 6], rel=1e-15)


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


def test_isnkpvn_guard_fires_at_equality():
    # The E-A7 guard is ||q_t||_G^2 <= n u (non-strict): at equality q_0 is returned at once.
    assert float(Q4 @ (G_GUARD @ Q4)) == 4 * np.finfo(float).eps
    r = isnkpvn(G_GUARD, 2.0, 1e-3, max_iter=50)
    assert (r.status, r.iterations, r.info["T"]) == ("certificate", 0, 0)
    np.testing.assert_array_equal(f64(r.p), Q4)


def test_isnkpvn_certificate_is_verified_strictly():
    # Same guard case, but epsilon = ||q_0||_G = 2^-25: the certificate promises ||p||_G < epsilon
    # (strict), which q_0 does not satisfy, so the claim is refused -- and the run goes on
    # with an SNKPVN call at delta_0 = 2^-26 until the budget is spent.
    r = isnkpvn(G_GUARD, 2.0, 2.0**-25, max_iter=50)
    assert (r.status, r.iterations, r.info["T"]) == ("max_iter", 50, 1)
    assert "the last claim (certificate, iteration 0) was not verified" in r.message and "is not <" in r.message


def test_default_budgets_bind_on_infeasible_data():
    # (mutmut's trampolines hide mutated defaults from inspect.signature, so the defaults are
    # also pinned by behaviour where that is cheap.)  TRI / G3 are infeasible: SNKP never
    # separates and SNKPVN (the textbook module's, whose default is 10_000) cannot certify 1e-12.
    # The public functions size their default budgets (tests/reference/test_budgets.py).
    TRI = np.array([[1.0, -0.5, -0.5], [-0.5, 1.0, -0.5], [-0.5, -0.5, 1.0]])
    assert (snkp(TRI).status, snkp(TRI).iterations) == ("max_iter", 10_000)
    r = reference.smoothed.snkpvn(G3, [0.7, 0.1, 0.2], 1e-12)
    assert (r.status, r.iterations) == ("max_iter", 10_000)
    # y_1 = (1), y_2 = (-1): every pattern updates in every pass (2 updates per epoch).  No
    # epoch cap by default: max_iter alone stops the run (after 10_001 epochs here, past the
    # 10_000 of the old hidden cap), and an explicit max_epochs still binds.
    for fn, arg in ((pdm, 0.5), (pfm, 0.5), (pdm_succ, 0.5)):
        r = fn([[1.0], [1.0]], [1, -1], arg, rho=None, max_iter=20_002)
        assert (r.status, r.iterations, r.info["epochs"]) == ("max_iter", 20_002, 10_001)
        r = fn([[1.0], [1.0]], [1, -1], arg, rho=None, max_iter=20_002, max_epochs=3)
        assert (r.status, r.iterations, r.info["epochs"]) == ("max_iter", 6, 3)


def test_precision_is_honoured_and_labelled():
    for res in (ref.snkpvn(_G, _Q, 0.1, precision=30), ref.snkp(_G, precision=30), ref.nvn(_G, 0.1, precision=30)):
        assert res.precision == "mpmath, 30 decimal digits"
        assert all(isinstance(v, __import__("mpmath").mpf) for v in (res.alpha if res.alpha is not None else res.p))
    assert ref.snkpvn(_G, _Q, 0.1).precision == "float64"


def test_isnkpvn_zero_guard_boundary():
    # Two pairs of nearly opposite unit vectors: G = blockdiag([[1, c], [c, 1]] x 2) with
    # c = -1 + 2^-48, q_0 = 1_4/4: q^T G q = (4 + 4c)/16 = 2^-50 exactly (and so computed), so
    # ||q_0||_G^2 = 2^-50 = n eps (n = 4, eps = 2^-52): at the guard's edge, where the
    # arithmetic cannot tell ||q_0||_G from 0 -- returned at once as a certificate, T = 0.
    c = -1.0 + 2.0**-48
    B = np.array([[1.0, c], [c, 1.0]])
    G = np.block([[B, np.zeros((2, 2))], [np.zeros((2, 2)), B]])
    res = ref.isnkpvn(G, 2.0, 1e-3)
    assert res.status == ref.CERTIFICATE and res.info["T"] == 0 and res.iterations == 0
    assert res.p.tolist() == [0.25] * 4
    # one step off the edge (q^T G q = 2 n eps): SNKPVN is called
    c = -1.0 + 2.0**-47
    B = np.array([[1.0, c], [c, 1.0]])
    G = np.block([[B, np.zeros((2, 2))], [np.zeros((2, 2)), B]])
    assert ref.isnkpvn(G, 2.0, 1e-3, max_iter=200).info["T"] >= 1


def test_isnkpvn_bookkeeping_and_trace():
    # a0 = (1, 0), a1 = (-1, 0), a2 = (0, 1): infeasible, ||1_3/3||_G = 1/3 > 0
    Z = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    G = Z @ Z.T
    res = ref.isnkpvn(G, 2.0, 1e-2, trace=True)
    T = res.info["T"]
    assert res.status == ref.CERTIFICATE and T >= 2
    assert len(res.info["deltas"]) == len(res.info["inner_iterations"]) == T
    assert res.iterations == sum(res.info["inner_iterations"])
    assert res.info["epsilon"] == 1e-2
    assert len(res.trace) == T and [r.t for r in res.trace] == list(range(T))
    assert [r.inner.iterations for r in res.trace] == res.info["inner_iterations"]
    # Theorem 4: an epsilon-certificate after at most log(1/eps)/log(gamma) + 1 outer loops
    assert T <= np.log(1 / 1e-2) / np.log(2.0) + 1
    # the deltas shrink by gamma at least: delta_{t+1} = ||q_{t+1}||_G/gamma < delta_t/gamma
    d = res.info["deltas"]
    assert all(b < a / 2.0 for a, b in zip(d, d[1:]))
    assert res.info["deltas"][-1] < 1e-2 <= res.info["deltas"][-2]


def test_snkpvn_info_and_initial_state():
    res = ref.snkpvn(_G, _Q, 0.1, trace=True)
    assert res.info["delta"] == 0.1
    assert res.trace[0].mu == 2 * 2  # mu_0 := 2n  [RP14 Alg. 6]
    assert res.trace[0].alpha.tolist() == _Q.tolist()  # alpha_0 := q
    # mu_k = 4n / ((k+1)(k+2))  (docstring)
    for s in res.trace:
        assert s.mu == pytest.approx(4 * 2 / ((s.k + 1) * (s.k + 2)), rel=1e-14)
    res = ref.snkp(_G, trace=True)
    assert res.trace[0].mu == 2 and "delta" not in res.info  # mu_0 := 2  [RP14 Alg. 4]


def test_snkpvn_schedule_and_lemma_9_on_an_infeasible_instance():
    # a0 = (1, 0), a1 = (-1, 0), a2 = (0, 1): infeasible, W = {(1/2, 1/2, 0)}; q = 1_3/3 has
    # dist(q, W)^2 = 1/36 + 1/36 + 1/9 = 1/6.  Lemma 9: ||p_k||_G <= sqrt(mu_k) dist(q, W), with
    # mu_k = 4n/((k+1)(k+2)) (theta_k = 2/(k+3), mu_{k+1} = (1 - theta_k) mu_k, mu_0 = 2n).
    Z = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    G = Z @ Z.T
    q = np.full(3, 1 / 3)
    res = ref.snkpvn(G, q, 1e-2, trace=True)
    assert res.status == ref.CERTIFICATE and len(res.trace) >= 5
    assert [s.k for s in res.trace] == list(range(res.iterations + 1))
    for s in res.trace:
        mu = Fraction(4 * 3, (s.k + 1) * (s.k + 2))
        assert s.mu == pytest.approx(float(mu), rel=1e-14)
        if s.k:
            assert s.theta == pytest.approx(2 / (s.k + 2), rel=1e-15)  # theta_{k-1} = 2/(k+2)
        w = Z.T @ s.p  # ||p||_G = ||X Y p||
        assert float(w @ w) <= float(mu) / 6 * (1 + 1e-9)
    res = ref.snkp(G, max_iter=6, trace=True)  # infeasible: runs to the budget
    assert [s.k for s in res.trace] == list(range(7))
    assert [s.mu for s in res.trace] == pytest.approx([4 / ((k + 1) * (k + 2)) for k in range(7)], rel=1e-14)


def test_snkpvn_certificate_test_is_made_in_the_working_precision():
    # a0 = (1, 0), a1 = (-1, 0), a2 = (0, 1) (infeasible), q = (1, 2, 57)/60, mu_0 = 2n = 6:
    # X^T q = (-1/60, 57/60), G q = (-1, 1, 57)/60, q - G q/6 = (7, 11, 285)/360, projected onto
    # the simplex (+19/360 each): p_0 = (26, 30, 304)/360, ||p_0||_G = ||(-4, 304)/360||
    # = sqrt(92432)/360.  With delta just above it (relative 1e-20) at 30 digits, p_0 is a
    # delta-certificate at k = 0; the float64 norm rounds above delta.
    import mpmath
    from reference.arithmetic import g_norm

    Z = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    G = Z @ Z.T
    q = np.array([1 / 60, 2 / 60, 1 - 3 / 60])
    with mpmath.workdps(30):
        delta = mpmath.sqrt(92432) / 360 * (1 + mpmath.mpf(10) ** -20)
        res = ref.snkpvn(G, q, delta, precision=30)
        assert g_norm(G, [float(v) for v in res.p]) > delta  # float64 would not certify
    assert res.status == ref.CERTIFICATE and res.iterations == 0
    assert [float(v) for v in res.p] == pytest.approx([26 / 360, 30 / 360, 304 / 360], rel=1e-6)


def test_isnkpvn_in_mpmath_keeps_its_deltas_in_mpmath():
    # delta_t = ||q_t||_G / gamma at the working precision: delta_0 = (1/3)/2 = 1/6 for the
    # three points above (q_0 = 1_3/3: X^T q_0 = (0, 1/3)).
    import mpmath

    Z = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    res = ref.isnkpvn(Z @ Z.T, 2.0, 1e-2, precision=30)
    assert res.status == ref.CERTIFICATE
    assert all(isinstance(d, mpmath.mpf) for d in res.info["deltas"])
    with mpmath.workdps(30):
        assert abs(res.info["deltas"][0] - mpmath.mpf(1) / 6) < mpmath.mpf(10) ** -28


def test_snkp_exit_test_is_strict():
    """[RP14 Alg. 4] halts on G alpha_k > 0_n (strict).  On _G_BOUNDARY the iterates keep alpha_1 =
    alpha_2 (the instance is symmetric in points 1 and 2), so G alpha_k = (0, 0, alpha_3) >= 0 with
    exact zeros: no claim is made at all, and the budget ends the run with the plain message."""
    r = reference.snkp(_G_BOUNDARY, max_iter=50)
    Ga = _G_BOUNDARY @ r.alpha
    assert Ga[0] == 0 and Ga[1] == 0 and Ga[2] > 0  # the premise: on the boundary of the test
    assert (r.status, r.iterations, r.message) == ("max_iter", 50, "budget exhausted after 50 iterations")


def test_snkpvn_certificate_test_is_strict_at_equality():
    """[RP14 Alg. 6] returns p_k when ||p_k||_G < delta (strict).  G of the points a, -a and
    q = (3/4, 1/4): alpha_0 = q, G alpha_0 = (1/2, -1/2), mu_0 = 2n = 4, so
    p_0 = Proj(q - G alpha_0 / mu_0) = (5/8, 3/8) and ||p_0||_G = |5/8 - 3/8| = 1/4, all exact
    in float64.  With delta = 1/4 and no budget, no certificate is claimed; with delta just above
    1/4 it is returned at once."""
    G = np.array([[1.0, -1.0], [-1.0, 1.0]])
    r = reference.snkpvn(G, [0.75, 0.25], 0.25, max_iter=0)
    assert list(r.p) == [0.625, 0.375]
    assert (r.status, r.iterations, r.message) == ("max_iter", 0, "budget exhausted after 0 iterations")
    r = reference.snkpvn(G, [0.75, 0.25], np.nextafter(0.25, 1.0), max_iter=0)
    assert (r.status, r.iterations) == ("certificate", 0)


@needs_numba
@pytest.mark.parametrize("code", [1, 2])
def test_isnkpvn_stops_at_an_unverified_inner_claim(monkeypatch, code):
    """An SNKPVN call that ends in max_iter (here: its claim does not verify, and the kernel, asked
    to go on from that state, claims the same again) ends ISNKPVN at once (its docstring: "a call
    that exhausts it ends the run with max_iter"): one outer loop, its 3 iterations, max_iter --
    and the message names the refused inner claim, not an exhausted budget (7 of the 10
    iterations are left)."""
    kernel, calls = _lying_smoothed(code)
    monkeypatch.setattr(rp14_kernels, "smoothed", kernel)
    r = reference.isnkpvn(np.eye(2), 2.0, 1e-3, max_iter=10, engine="fast")  # G e_1 = e_1 is not > 0; ||e_1||_G = 1
    assert calls == [10, 10], calls  # the first call, and the one asked to resume after the refusal
    assert r.info["T"] == 1 and r.info["inner_iterations"] == [3]
    assert (r.status, r.iterations) == (reference.MAX_ITER, 3)
    claim = {1: "separator", 2: "certificate"}[code]
    assert r.message.startswith(f"SNKPVN call t = 0: {claim} claimed but not verified: "), r.message


@needs_numba
def test_isnkpvn_trace_holds_the_inner_traces():
    """trace=True: per outer loop an OuterRecord whose inner Result carries its own trace, one state
    per iteration plus the start (as the textbook engine's)."""
    G = np.array([[1.0, 0.5], [0.5, 1.0]])  # two points at 60 degrees: separable
    for engine in ("textbook", "fast"):
        r = reference.isnkpvn(G, 2.0, 1e-3, engine=engine, trace=True)
        assert r.status == reference.SEPARATOR and len(r.trace) == r.info["T"] >= 1, engine
        for rec in r.trace:
            assert rec.inner.trace is not None and len(rec.inner.trace) == rec.inner.iterations + 1, engine


@needs_numba
def test_products_count_every_kernel_call_of_a_resumed_run(monkeypatch):
    """SNKP makes G alpha_0 and G p_0, then one G b per step (rp14_kernels.smoothed; no refresh
    before k = 1024): info["products"] = k + 2.  A kernel that returns a claim at k = 3 (its
    true state; the claim does not verify there) is resumed by the engine; the products of both
    calls are the run's, so the count is still k + 2 -- and the run ends as the run without the
    false claim."""
    rng = np.random.default_rng(6)
    G = reference.gram(rng.normal(size=(40, 3)), rng.choice([-1, 1], size=40))  # no separator
    expected = reference.snkp(G, max_iter=300, engine="fast")
    assert expected.iterations == 300 < rp14_kernels.REFRESH_EVERY and expected.info["products"] == 302
    real, calls = rp14_kernels.smoothed, []

    def claiming_at_3(*args):
        calls.append(args[-1])
        if args[-1] == 0:  # the first call: run to k = 3 (max_iter is argument 9), then claim a separator
            out = list(real(*args[:9], 3, *args[10:]))
            out[4] = 1
            return tuple(out)
        return real(*args)

    monkeypatch.setattr(rp14_kernels, "smoothed", claiming_at_3)
    r = reference.snkp(G, max_iter=300, engine="fast")
    assert calls == [0, 1]
    assert (r.status, r.iterations) == (expected.status, expected.iterations)
    assert r.info["products"] == r.iterations + 2


@pytest.mark.parametrize(
    "dps, c, indistinguishable",
    [
        # q = (1/2, 1/2, 0, 0): ||q||_G^2 = (1 + c) / 2, against the guard n eps = 4 eps
        (None, 2.0**-49 - 1, True),  # (1 + c) / 2 = 2^-50 = 4 * 2^-52: exactly the guard (every step exact)
        (None, 2.0**-53 - 1, True),  # 2^-54: below
        (None, 2.0**-39 - 1, False),  # 2^-40: above
        (None, -1.0, True),  # 0
        (30, "-1 + 2^-60", False),  # 2^-61 at 30 digits, far above 4e-30 (G_12 is no float64: float64 reads -1, norm 0)
    ],
)
def test_indistinguishable_from_zero_is_the_guard_norm_squared_at_most_n_eps(dps, c, indistinguishable):
    """[E-A7] ||q||_G^2 <= n eps (eps of the arithmetic: 2^-52, or 10^-dps), with ||q||_G in the
    working arithmetic; at the guard itself q counts as zero."""
    ar = Arithmetic(dps)
    with ar.context():
        c = -1 + mpmath.mpf(2) ** -60 if c == "-1 + 2^-60" else c
        G = _gram_with_one_pair(c, ar)
        q = ar.array(np.array([0.5, 0.5, 0.0, 0.0]))
        pb = types.SimpleNamespace(n=G.shape[0], ar=ar, norm=lambda v: g_norm(G, v, ar))  # the outer loop's ||.||_G
        assert bool(SMOOTHED._indistinguishable_from_zero(pb, q)) is indistinguishable


def test_isnkpvn_budget_bounds_outer_loops():
    """SNKPVN calls that return at k = 0 cost a G-product each; with gamma close to 1 there are
    thousands of them (105 here on the old code with max_iter = 50)."""
    rng = np.random.default_rng(5)
    X, y = rng.standard_normal((8, 2)), rng.choice([-1, 1], 8)
    res = ref.isnkpvn(ref.gram(X, y), gamma=1.0001, max_iter=50)
    assert res.info["T"] <= 50
    assert res.iterations + res.info["T"] <= 100


def test_isnkpvn_antipodal_points_finish_quickly():
    X = np.random.default_rng(0).standard_normal((20, 3))
    G = ref.gram(np.vstack([X, -X]), np.ones(40))
    t0 = time.perf_counter()
    res = ref.isnkpvn(G, gamma=1.0001, epsilon=2e-8, max_iter=2000)
    assert time.perf_counter() - t0 < 20
    assert res.info["T"] <= 2000 and verify_exact(res, G, accuracy=2e-8) == ""


def test_snkp_hand_first_step():
    # z0 = z1 = z2 = (1,0), z3 = (-0.6, 0.8): G alpha_0 = (0.6, 0.6, 0.6, -0.2) is not > 0.
    # p0 = softmax(-G alpha_0 / 2); theta_0 = 2/3; p_{mu_0}(alpha_0) = p0, so
    # alpha1 = (1/3)(alpha0 + (2/3) p0) + (4/9) p0 = alpha0/3 + (2/3) p0; mu1 = 2/3;
    # p1 = p0/3 + (2/3) softmax(-G alpha1 / mu1).
    Z = np.array([[1.0, 0.0]] * 3 + [[-0.6, 0.8]])
    G = Z @ Z.T
    r = snkp(G, max_iter=1, trace=True)
    a0 = [0.25] * 4
    Ga0 = [0.6, 0.6, 0.6, -0.2]
    p0 = softmax_list([-v / 2 for v in Ga0])
    a1 = [a / 3 + 2 * p / 3 for a, p in zip(a0, p0)]
    Ga1 = list(G @ np.array(a1))
    p1 = [x / 3 + 2 * s / 3 for x, s in zip(p0, softmax_list([-v / (2 / 3) for v in Ga1]))]
    np.testing.assert_allclose(f64(r.trace[0].p), p0, rtol=1e-14)
    np.testing.assert_allclose(f64(r.trace[1].alpha), a1, rtol=1e-14)
    np.testing.assert_allclose(f64(r.trace[1].p), p1, rtol=1e-14)
    assert (r.status, r.iterations) == ("max_iter", 1)
    assert float(r.info["mu"]) == pytest.approx(2 / 3, rel=1e-15)


@given(seeds, st.integers(3, 20))
def test_snkp_mu_closed_form_simplex_and_theorem1(seed, n):
    X, y, u, _ = planted(seed, n, d=3, gap=0.05)
    rhoK_lower = float(np.min(y * (X @ u) / np.linalg.norm(X, axis=1)))
    G = gram(X, y)
    r = snkp(G, trace=True)
    assert r.status == "separator" and np.all(G @ f64(r.alpha) > 0)
    assert r.iterations <= 2 * math.sqrt(2 * math.log(n)) / rhoK_lower  # Theorem 1
    for s in r.trace:
        assert float(s.mu) == pytest.approx(4 / ((s.k + 1) * (s.k + 2)), rel=1e-13)
        assert in_simplex(s.alpha) and in_simplex(s.p)


def test_losses_by_hand():
    ar = Arithmetic(None)
    a = np.array([0.4, 0.3, 0.3])  # G3 a = (0.1, -0.1, 0.3), a^T G3 a = 0.1
    assert float(loss(G3, a, ar)) == pytest.approx(0.1 + 0.05, rel=1e-14)  # -min + ||a||_G^2/2
    for mu in (1.0, 0.25):
        lme = mu * math.log((math.exp(-0.1 / mu) + math.exp(0.1 / mu) + math.exp(-0.3 / mu)) / 3)
        assert float(smoothed_loss(G3, a, mu, ar)) == pytest.approx(lme + 0.05, rel=1e-13)
    # PAIR, alpha = q = e0, mu = 4: p = (3/4,1/4), <G alpha, p> = 1/2, (mu/2)||p-q||^2 = 1/4,
    # ||alpha||_G^2/2 = 1/2  ->  L^q_mu = -1/2 - 1/4 + 1/2 = -1/4.
    e0 = np.array([1.0, 0.0])
    np.testing.assert_allclose(p_mu_q(PAIR, e0, 4.0, e0, ar), [0.75, 0.25], rtol=1e-15)
    assert float(smoothed_loss_q(PAIR, e0, 4.0, e0, ar)) == pytest.approx(-0.25, rel=1e-14)
    # G3, alpha = e2, q = 1_3/3, mu = 2: q - G e2/2 = (1/3,1/3,-1/6) -> Proj = (1/2,1/2,0);
    # <G alpha, p> = 0, (mu/2)||p - q||^2 = 1/6, ||e2||_G^2/2 = 1/2  ->  1/3.
    q = np.full(3, 1 / 3)
    e2 = np.array([0.0, 0.0, 1.0])
    np.testing.assert_allclose(p_mu_q(G3, e2, 2.0, q, ar), [0.5, 0.5, 0.0], atol=1e-15)
    assert float(smoothed_loss_q(G3, e2, 2.0, q, ar)) == pytest.approx(1 / 3, rel=1e-14)


@given(seeds, st.integers(3, 12))
def test_snkp_lemmas_4_5_and_snkpvn_lemma8_gap(seed, n):
    # Lemma 4: L_mu(alpha_k) >= L(alpha_k) - mu_k log n;  Lemma 5: L_mu(alpha_k) <= -||p_k||_G^2/2;
    # SNKPVN (A.13): L^q_mu(alpha_k) <= -||p_k||_G^2/2 and >= L(alpha_k) - mu_k.
    ar = Arithmetic(None)
    X, y, _, _ = planted(seed, n, d=3, gap=0.02)
    G = gram(X, y)
    for s in snkp(G, max_iter=30, trace=True).trace:
        Lmu = smoothed_loss(G, s.alpha, s.mu, ar)
        assert Lmu <= -gnorm(G, s.p) ** 2 / 2 + 1e-12
        assert Lmu >= loss(G, s.alpha, ar) - s.mu * math.log(n) - 1e-12
    q = np.random.RandomState(seed).dirichlet(np.ones(n))
    for s in snkpvn(G, q, 2e-8, max_iter=30, trace=True).trace:
        Lq = smoothed_loss_q(G, s.alpha, s.mu, q, ar)
        assert Lq <= -gnorm(G, s.p) ** 2 / 2 + 1e-12
        assert Lq >= loss(G, s.alpha, ar) - s.mu - 1e-12


def test_snkp_infeasible_and_kernel():
    assert snkp(TRI, max_iter=40).status == "max_iter"
    r = snkp(gram(XOR_X, XOR_Y, "gaussian", sigma=0.5))
    assert r.status == "separator" and r.iterations == 0  # 1_4/4 already separates XOR here


def test_snkpvn_hand_infeasible():
    # G = [[1,-1],[-1,1]], q = (1,0), mu0 = 4: p0 = Proj((1,0) - (1,-1)/4) = (3/4,1/4),
    # ||p0||_G = 1/2 which is not < delta = 1/2.  theta0 = 2/3:
    # alpha1 = (1/3)((1,0) + (2/3)(3/4,1/4)) + (4/9)(3/4,1/4) = (5/6,1/6); mu1 = 4/3;
    # G alpha1/mu1 = (1/2,-1/2), Proj((1/2,1/2)) = (1/2,1/2), p1 = (7/12,5/12), ||p1||_G = 1/6.
    r = snkpvn(PAIR, [1.0, 0.0], 0.5, trace=True)
    assert (r.status, r.iterations) == ("certificate", 1)
    np.testing.assert_allclose(f64(r.trace[0].p), [0.75, 0.25], rtol=1e-15)
    np.testing.assert_allclose(f64(r.alpha), [5 / 6, 1 / 6], rtol=1e-15)
    np.testing.assert_allclose(f64(r.p), [7 / 12, 5 / 12], rtol=1e-15)
    assert [float(s.mu) for s in r.trace] == pytest.approx([4.0, 4 / 3], rel=1e-15)
    r = snkpvn(PAIR, [1.0, 0.0], 0.5 + 2**-30)  # the strict test fires at k = 0
    assert (r.status, r.iterations) == ("certificate", 0)
    np.testing.assert_array_equal(f64(r.p), [0.75, 0.25])


def test_snkpvn_hand_feasible():
    # G = I, q = e0: G alpha0 = (1,0) is not > 0.  p0 = Proj((3/4,0)) = (7/8,1/8);
    # alpha1 = (1/3)(e0 + (2/3)(7/8,1/8)) + (4/9)(7/8,1/8) = (11/12,1/12) > 0;
    # p1 = (1/3)(7/8,1/8) + (2/3) Proj((5/16,-1/16)) = (1/3)(7/8,1/8) + (2/3)(11/16,5/16) = (3/4,1/4).
    r = snkpvn(np.eye(2), [1.0, 0.0], 0.1, trace=True)
    assert (r.status, r.iterations) == ("separator", 1)
    np.testing.assert_allclose(f64(r.trace[0].p), [7 / 8, 1 / 8], rtol=1e-15)
    np.testing.assert_allclose(f64(r.alpha), [11 / 12, 1 / 12], rtol=1e-15)
    np.testing.assert_allclose(f64(r.p), [0.75, 0.25], rtol=1e-15)


def test_snkpvn_separator_is_tested_before_certificate():
    # q = 1_2/2: G alpha0 = q > 0 and ||p0||_G = ||q||_G = 0.707 < delta = 1: separator wins.
    r = snkpvn(np.eye(2), [0.5, 0.5], 1.0)
    assert (r.status, r.iterations) == ("separator", 0)
    np.testing.assert_array_equal(f64(r.alpha), [0.5, 0.5])


def test_snkpvn_infeasible_lemma9_and_mu():
    # G3: W = {(1/2,1/2,0)}; Lemma 9: ||p_k||_G <= sqrt(mu_k) dist(q, W) on every iterate.
    q = np.array([0.7, 0.1, 0.2])
    dist = float(np.linalg.norm(q - [0.5, 0.5, 0]))
    r = snkpvn(G3, q, 1e-4, trace=True)
    assert r.status == "certificate" and gnorm(G3, r.p) < 1e-4
    for s in r.trace:
        assert float(s.mu) == pytest.approx(12 / ((s.k + 1) * (s.k + 2)), rel=1e-13)  # 4n/((k+1)(k+2))
        assert gnorm(G3, s.p) <= math.sqrt(float(s.mu)) * dist + 1e-15
        assert in_simplex(s.alpha) and in_simplex(s.p)
    assert all(gnorm(G3, s.p) >= 1e-4 for s in r.trace[:-1])
    assert r.iterations <= 2 * math.sqrt(3) * math.sqrt(2) / 1e-4  # (2 sqrt(n)/delta) sqrt(2)


@given(seeds, st.integers(2, 15))
def test_snkpvn_feasible_lemma8(seed, n):
    X, y, u, _ = planted(seed, n, d=3)
    rhoK_lower = float(np.min(y * (X @ u) / np.linalg.norm(X, axis=1)))
    G = gram(X, y)
    q = np.random.RandomState(seed).dirichlet(np.ones(n))
    r = snkpvn(G, q, rhoK_lower / 2, trace=True)
    assert r.status == "separator" and np.all(G @ f64(r.alpha) > 0)
    assert r.iterations + 1 <= max(1.0, 2 * math.sqrt(2 * n) / rhoK_lower)  # Lemma 8
    np.testing.assert_allclose(f64(r.trace[0].alpha), q, rtol=1e-15)  # alpha_0 = q


def test_snkpvn_kernel_and_budget():
    r = snkpvn(gram(XOR_X, XOR_Y, "gaussian", sigma=1.0), [1.0, 0, 0, 0], 1e-3)
    assert r.status == "separator" and np.all(gram(XOR_X, XOR_Y, "gaussian") @ f64(r.alpha) > 0)
    r = snkpvn(G3, [1.0, 0, 0], 1e-6, max_iter=3)
    assert (r.status, r.iterations) == ("max_iter", 3)


def test_isnkpvn_feasible_at_once():
    # q0 = 1_2/2 separates G = I: delta_0 = ||q0||_G/2 = sqrt(1/2)/2; SNKPVN halts at k = 0.
    r = isnkpvn(np.eye(2), 2.0, 1e-3)
    assert (r.status, r.iterations) == ("separator", 0)
    assert r.info["T"] == 1 and r.info["inner_iterations"] == [0]
    assert [float(d) for d in r.info["deltas"]] == pytest.approx([math.sqrt(0.5) / 2], rel=1e-15)
    np.testing.assert_array_equal(f64(r.alpha), [0.5, 0.5])


@pytest.mark.parametrize("G", [PAIR, TRI], ids=["pair", "tri"])
def test_isnkpvn_guard_EA7(G):
    r = isnkpvn(G, 2.0, 1e-3, trace=True)
    assert (r.status, r.iterations, r.info["T"], r.trace) == ("certificate", 0, 0, ())
    np.testing.assert_allclose(f64(r.p), np.full(G.shape[0], 1 / G.shape[0]), rtol=1e-15)


@pytest.mark.parametrize("gamma,eps", [(2.0, 1e-3), (3.0, 0.05), (1.5, 1e-2)])
def test_isnkpvn_infeasible_outer_loop(gamma, eps):
    r = isnkpvn(G3, gamma, eps, trace=True)
    assert r.status == "certificate" and r.alpha is None
    assert gnorm(G3, r.p) < eps and in_simplex(r.p)
    deltas = [float(d) for d in r.info["deltas"]]
    T = r.info["T"]
    assert len(deltas) == T == len(r.trace) == len(r.info["inner_iterations"])
    assert deltas[0] == pytest.approx((1 / 3) / gamma, rel=1e-15)  # ||q_0||_G = 1/3
    assert deltas[-1] < eps and all(d >= eps for d in deltas[:-1])
    assert T <= math.log((1 / 3) / eps) / math.log(gamma) + 1
    assert r.iterations == sum(r.info["inner_iterations"])
    for t, rec in enumerate(r.trace):
        assert isinstance(rec, OuterRecord) and rec.t == t
        assert rec.inner.status == "certificate"
        assert float(rec.delta) == pytest.approx(gnorm(G3, rec.q) / gamma, rel=1e-14)
        np.testing.assert_array_equal(f64(rec.inner.trace[0].alpha), f64(rec.q))  # SNKPVN(q_t, .)
        assert gnorm(G3, rec.inner.p) < float(rec.delta)
        if t + 1 < T:
            np.testing.assert_array_equal(f64(r.trace[t + 1].q), f64(rec.inner.p))  # q_{t+1}
            assert deltas[t + 1] < deltas[t] / gamma  # (15)
    np.testing.assert_array_equal(f64(r.p), f64(r.trace[-1].inner.p))
    first = snkpvn(G3, np.full(3, 1 / 3), (1 / 3) / gamma)
    assert first.iterations == r.info["inner_iterations"][0]
    np.testing.assert_allclose(f64(first.p), f64(r.trace[1].q), rtol=1e-15)


def test_isnkpvn_large_epsilon_stops_after_one_loop():
    r = isnkpvn(G3, 2.0, 1.0)  # delta_0 = 1/6 < 1
    assert r.status == "certificate" and r.info["T"] == 1


def test_isnkpvn_budget_is_on_total_inner_iterations():
    full = isnkpvn(G3, 2.0, 1e-3, trace=True)
    assert full.info["inner_iterations"][0] >= 2
    budget = full.info["inner_iterations"][0] + 1
    r = isnkpvn(G3, 2.0, 1e-3, max_iter=budget)
    assert (r.status, r.iterations) == ("max_iter", budget)
    assert sum(r.info["inner_iterations"]) == budget and r.info["T"] == 2
    r2 = isnkpvn(G3, 2.0, 1e-3, max_iter=budget, trace=True)
    assert r2.trace[-1].inner.status == "max_iter"
    np.testing.assert_array_equal(f64(r2.p), f64(r2.trace[-1].q))  # q_t is kept when SNKPVN fails
    np.testing.assert_array_equal(f64(r2.trace[1].q), f64(full.trace[1].q))


@given(seeds, st.integers(2, 15))
def test_isnkpvn_feasible_theorem4(seed, n):
    X, y, u, _ = planted(seed, n, d=3)
    rhoK_lower = float(np.min(y * (X @ u) / np.linalg.norm(X, axis=1)))
    G = gram(X, y)
    r = isnkpvn(G, 2.0, rhoK_lower / 2, trace=True)
    assert r.status == "separator" and np.all(G @ f64(r.alpha) > 0)
    np.testing.assert_array_equal(f64(r.alpha), f64(r.trace[-1].inner.alpha))
    np.testing.assert_array_equal(f64(r.p), f64(r.trace[-1].q))  # p is the last prox-centre q_t
    per_call = 2 * math.sqrt(2 * n) / rhoK_lower
    assert max(r.info["inner_iterations"]) <= per_call
    assert r.info["T"] <= math.log(1 / rhoK_lower) / math.log(2.0) + 1


def test_isnkpvn_kernel():
    G = gram(XOR_X, XOR_Y, "polynomial", degree=2)
    r = isnkpvn(G)
    assert r.status == "separator" and np.all(np.asarray(G, dtype=float) @ f64(r.alpha) > 0)
    assert isnkpvn(XOR_LIN_G, 2.0, 1e-3).status == "certificate"  # linear XOR: infeasible


@pytest.mark.parametrize("delta", [0.0, -1.0, float("nan")])
def test_snkpvn_delta_range(delta):
    with pytest.raises(ValueError, match="delta"):
        snkpvn(np.eye(2), [0.5, 0.5], delta)


@pytest.mark.parametrize("q", [[0.5, 0.6], [1.5, -0.5], [1.0], [0.2, 0.3, 0.5], [np.nan, 1.0]])
def test_snkpvn_q_not_in_simplex(q):
    with pytest.raises(ValueError, match="q"):
        snkpvn(np.eye(2), q, 0.1)


@pytest.mark.parametrize("gamma", [1.0, 0.5, -2.0, float("inf")])
def test_isnkpvn_gamma_range(gamma):
    with pytest.raises(ValueError, match="gamma"):
        isnkpvn(np.eye(2), gamma, 1e-3)


@pytest.mark.parametrize("epsilon", [0.0, -1e-3, float("nan")])
def test_isnkpvn_epsilon_range(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        isnkpvn(np.eye(2), 2.0, epsilon)


def test_isnkpvn_guard_fires_when_norm_is_below_float_resolution():
    """q_0^T G q_0 = 2.8e-17 (round-off; exactly 0 in exact arithmetic).  delta_0 = 2.6e-9 is
    below what float64 resolves for ||.||_G, so SNKPVN(q_0, delta_0) would spin until the budget
    ran out.  The E-A7 guard, read in floating point, returns q_0 (verified < epsilon)."""
    from theorems.strategies import random_kernel_instance

    G = random_kernel_instance("linear", 4, 1, seed=1).G
    q = np.full(4, 0.25)
    assert 0 < q @ G @ q < 4 * np.finfo(float).eps
    r = isnkpvn(G, 2.0, 1e-3, max_iter=20_000)
    assert r.status == "certificate" and r.iterations == 0 and r.info["T"] == 0
    assert np.array_equal(r.p, q)


def test_draws_do_not_depend_on_imported_local_modules(tmp_path, monkeypatch):
    first = _drawn()
    mod = tmp_path / "consts_module_i13.py"
    mod.write_text("".join(f"C{i} = {0.1 + i / 7:.17g}\nN{i} = {1000 + 37 * i}\n" for i in range(200)))
    monkeypatch.syspath_prepend(str(tmp_path))
    import consts_module_i13  # noqa: F401 -- hypothesis would mix these constants into its draws

    assert _drawn() == first
    assert _drawn(seed=3) != first
