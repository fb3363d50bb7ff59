"""Tests of quality/test_rp14_checks.py."""

import dataclasses
import math

import numpy as np
import pytest

import reference
from reference import perceptrons as P, smoothed as S, von_neumann as VN
from reference.arithmetic import Arithmetic
from reference.result import drive
from tests.support.rp14_checks import ORTHO
from theorems import rp14
from theorems.instances import Instance
from theorems.instances.suite import builtin_suite
from theorems.registry import REGISTRY
from theorems.strategies import planted_infeasible, planted_separable, worked_example


AR = Arithmetic(None)


def _fake_margin(inst, which="margin_G", scale=None, **changes):
    m = getattr(inst, which)
    if scale is not None:
        changes.update(lower=m.lower * scale, upper=m.upper * scale, value=m.value * scale)
    inst.__dict__[which] = dataclasses.replace(m, **changes)
    return inst


def _perceptron_bad_init(X, y, *, rule="cyclic", max_iter=100_000, trace=False, precision=None):
    """Perceptron started at w_0 = -z_0 instead of 0."""
    Z = reference.reflect(np.asarray(X, float), np.asarray(y))
    pb = P._Primal(Z=Z, Z_data=Z, ar=AR, rule=rule)
    alg = dataclasses.replace(P.PERCEPTRON, init=lambda pb: P.PerceptronState(k=0, w=-pb.Z[0]))
    return drive(alg, pb, AR, max_iter, trace)


def _normalized_argmax(X, y, *, normalize=True, max_iter=100_000, trace=False, precision=None):
    Z = reference.reflect(np.asarray(X, float), np.asarray(y))
    Z2 = Z / np.linalg.norm(Z, axis=1, keepdims=True)

    def step(pb, s):
        j = int(np.argmax(pb.Z @ s.w))  # BUG: argmax for argmin
        th = 1.0 / (s.k + 1)
        return P.PerceptronState(k=s.k + 1, w=(1 - th) * s.w + th * pb.Z[j], j=j)

    alg = dataclasses.replace(P.NORMALIZED_PERCEPTRON, step=step)
    return drive(alg, P._Primal(Z=Z2, Z_data=Z, ar=AR), AR, max_iter, trace)


def _nkp_argmax(G, *, max_iter=100_000, trace=False, precision=None):
    def step(pb, s):
        j = int(np.argmax(pb.G @ s.alpha))  # BUG
        th = 1.0 / (s.k + 1)
        return P.NKPState(k=s.k + 1, alpha=(1 - th) * s.alpha + th * np.eye(pb.G.shape[0])[j], j=j)

    return drive(dataclasses.replace(P.NKP, step=step), P._Dual(G=np.asarray(G, float), ar=AR), AR, max_iter, trace)


def _snkp_variant(step=None, init=None, q=None):
    def run(G, *a, max_iter=10_000, trace=False, precision=None, **k):
        alg = S.SNKP if q is None and not a else S.SNKPVN
        ch = {k2: v for k2, v in (("step", step), ("init", init)) if v is not None}
        qq, delta = (a[0], a[1]) if a else (None, None)
        pb = S._Problem(G=np.asarray(G, float), ar=AR, q=None if qq is None else np.asarray(qq, float), delta=delta)
        return drive(dataclasses.replace(alg, **ch), pb, AR, max_iter, trace)

    return run


def _step_old_alpha(pb, s):
    """BUG: the p-update uses the OLD alpha and mu (order of evaluation)."""
    th = 2.0 / (s.k + 3)
    br = S._best_response(pb, s.alpha, s.mu)
    return S.SmoothState(k=s.k + 1, alpha=(1 - th) * (s.alpha + th * s.p) + th**2 * br, p=(1 - th) * s.p + th * br,
                         mu=(1 - th) * s.mu, theta=th)


def _init_small_mu(pb):
    """BUG: mu_0 = 0.05 (needs mu_0 >= M, erratum E-A4)."""
    n = pb.G.shape[0]
    a = AR.uniform(n)
    mu = 0.05 if pb.q is None else 0.05
    p0 = S.p_mu(pb.G, a, mu, AR) if pb.q is None else S.p_mu_q(pb.G, pb.q, mu, pb.q, AR)
    return S.SmoothState(k=0, alpha=a if pb.q is None else pb.q, p=p0, mu=mu)


def _step_softmax_sign(pb, s):
    """BUG: p_mu = softmax(+G alpha/mu) (argmax for argmin)."""
    th = 2.0 / (s.k + 3)
    br = lambda a, mu: reference.softmax((pb.G @ a) / mu, AR)  # noqa: E731
    alpha = (1 - th) * (s.alpha + th * s.p) + th**2 * br(s.alpha, s.mu)
    mu = (1 - th) * s.mu
    return S.SmoothState(k=s.k + 1, alpha=alpha, p=(1 - th) * s.p + th * br(alpha, mu), mu=mu, theta=th)


def _nvn_argmax(G, epsilon=1e-3, *, max_iter=100_000, trace=False, precision=None):
    def step(pb, s):
        n = pb.G.shape[0]
        j = int(np.argmax(pb.G @ s.p))  # BUG
        d = s.p - np.eye(n)[j]
        den = d @ pb.G @ d
        th = min(max((s.p @ pb.G @ d) / den, 0.0), 1.0) if den > 0 else 0.0
        th = max(th, 0.5)  # and a bad step
        return VN.NVNState(k=s.k + 1, p=(1 - th) * s.p + th * np.eye(n)[j], theta=th, j=j)

    pb = VN._Problem(G=np.asarray(G, float), epsilon=epsilon, ar=AR)
    return drive(dataclasses.replace(VN.NVN, step=step), pb, AR, max_iter, trace)


def test_novikoff_can_fail():
    v = rp14.check_novikoff(ORTHO(), algorithm=_perceptron_bad_init)
    assert v is not None and not v.holds


def test_normalized_perceptron_can_fail():
    v = rp14.check_normalized_perceptron(ORTHO(), algorithm=_normalized_argmax)
    assert v is not None and not v.holds


def test_normalization_can_fail():
    inst = _fake_margin(planted_separable(3, 2, 3, 0.3, seed=1, unit=False, scale=2.0), "margin_K", scale=3.0)
    v = rp14.check_normalization(inst)
    assert v is not None and not v.holds


def test_example_can_fail():
    inst = worked_example(3.0)
    bad = Instance(inst.name + "[r claimed 2]", inst.X, inst.y, known=dict(inst.known, r=2.0), flags=inst.flags)
    assert rp14.check_example(inst).holds
    assert not rp14.check_example(bad).holds


def test_lemma1_can_fail():
    def wrong_loss(G, a, ar):  # BUG: max for min
        Ga = G @ a
        return -np.max(Ga) + (a @ Ga) / 2

    inst = planted_infeasible("cross", 2, seed=1)
    v = rp14.check_lemma1(inst, loss=wrong_loss)
    assert not v.holds


def test_lemma2_can_fail():
    inst = planted_separable(3, 2, 3, 0.3, seed=1)
    inst.__dict__["G"] = 4 * np.asarray(inst.G)
    assert not rp14.check_lemma2(inst).holds


def test_lemma3_can_fail():
    inst = _fake_margin(planted_separable(3, 2, 3, 0.3, seed=1), scale=2.0)
    assert not rp14.check_lemma3(inst).holds


def test_eq7_can_fail():
    def no_half(G, a, ar):  # BUG: lost the 1/2
        Ga = G @ a
        return -np.min(Ga) + a @ Ga

    assert not rp14.check_eq7(planted_separable(3, 2, 3, 0.3, seed=1), loss=no_half).holds


def test_nkp_can_fail():
    assert not rp14.check_nkp(ORTHO(), algorithm=_nkp_argmax).holds


def test_lemma4_can_fail():
    def times_mu(G, a, mu, ar):  # BUG: prox d(p) = sum p log p + 2 log n (log n counted twice)
        return S.smoothed_loss(G, a, mu, ar) - mu * math.log(G.shape[0])

    inst = planted_infeasible("random", 2, seed=1, m=5)
    orig = rp14.smoothed_loss
    try:
        rp14.smoothed_loss = times_mu
        assert not rp14.check_lemma4(inst, algorithm=reference.snkp).holds
    finally:
        rp14.smoothed_loss = orig
    assert rp14.check_lemma4(inst).holds


@pytest.mark.parametrize("variant", ["old_alpha", "small_mu0"])
def test_lemma5_can_fail(variant):
    inst = planted_separable(3, 3, 5, 0.3, seed=1)
    alg = _snkp_variant(step=_step_old_alpha) if variant == "old_alpha" else _snkp_variant(init=_init_small_mu)
    assert not rp14.check_lemma5(inst, algorithm=alg).holds


def test_theorem1_can_fail():
    inst = planted_separable(3, 3, 5, 0.3, seed=1)
    assert not rp14.check_theorem1(inst, algorithm=_snkp_variant(step=_step_softmax_sign)).holds


def test_lemma6_can_fail():
    inst = [i for i in builtin_suite() if i.name.startswith("rational(feasible")][0]
    assert rp14.check_lemma6(inst).holds
    # a certifier that claims a witness p that is not one
    liar = lambda Z: {"feasible": False, "p": [rp14.Fraction(1, len(Z))] * len(Z), "verified": True}  # noqa: E731
    assert not rp14.check_lemma6(inst, certify=liar).holds
    # a float margin that disagrees with the exact decision
    assert not rp14.check_lemma6(_fake_margin(inst, feasible=False)).holds


def test_theorem2_can_fail():
    inst = planted_separable(3, 3, 5, 0.3, seed=1)
    n = inst.n
    _fake_margin(inst, p=np.eye(n)[0])  # not the min-norm point: G e_1 >= ||e_1||^2 = 1 fails
    assert not rp14.check_theorem2(inst).holds


def test_theorem2_rejects_an_infeasible_verdict_on_separable_data():
    """A margin that calls separable data infeasible: G has no witness (W is empty), so the
    infeasible clause fails."""
    inst = _fake_margin(planted_separable(3, 3, 5, 0.3, seed=1), feasible=False)
    v = rp14.check_theorem2(inst)
    assert v is not None and not v.holds and v.details["case"] == "infeasible"


def _three_points_on_a_line():
    """z = (1, -1, 1) in R^1: infeasible (0 = (z_1 + z_2) / 2), G = z z^T with lambda_max = 3, and
    every w with w_1 - w_2 + w_3 = 0 has ||w||_G = 0 exactly (dyadic w: exact arithmetic)."""
    return Instance("line(1,-1,1)", np.array([[1.0], [-1.0], [1.0]]), np.array([1, 1, 1]))


def _theorem2_with_witness(monkeypatch, w, kkt=0.0):
    """check_theorem2 on the three points, the witness solver replaced by one returning ``w`` (and
    reporting ``kkt`` as its residual)."""
    inst = _three_points_on_a_line()
    assert inst.margin_G.feasible is False
    info = {"certified": kkt <= rp14.WITNESS_KKT, "kkt": kkt, "rank": 1, "lambda_max": 3.0,
            "cut": reference.margins.span_cut(3, 3.0), "span": (np.array([3.0]), np.array([[1.0], [-1.0], [1.0]]) / np.sqrt(3))}
    monkeypatch.setattr(rp14, "witness_distance", lambda G, q, **kw: (0.0, np.asarray(w, float), info))
    return rp14.check_theorem2(inst)


@pytest.mark.parametrize("s, holds", [(2.0**-34, True), (rp14.WITNESS_KKT, True), (2.0**-30, False)])
def test_theorem2_grants_a_negative_weight_only_the_solvers_certification_level(monkeypatch, s, holds):
    """w = (1/2 + s, 1/2, -s): ||w||_G = 0 and 1^T w = 1 exactly (dyadic s) or to an ulp, one weight
    -s.  Inside the level 1e-10 (s = 5.8e-11) and at it the witness stands; beyond it (9.3e-10) it
    is not a point of the simplex."""
    v = _theorem2_with_witness(monkeypatch, [0.5 + s, 0.5, -s])
    assert v.lhs <= v.allowance and v.holds is holds, v  # lhs: a rigorous upper bound on 0


@pytest.mark.parametrize("s, holds", [(2.0**-35, True), (2.0**-32, False)])
def test_theorem2_grants_a_sum_off_one_only_the_solvers_certification_level(monkeypatch, s, holds):
    """w = (1/2 + s, 1/2 + s, 0): ||w||_G = 0 exactly, 1^T w = 1 + 2s (5.8e-11 inside, 4.7e-10 beyond)."""
    v = _theorem2_with_witness(monkeypatch, [0.5 + s, 0.5 + s, 0.0])
    assert v.lhs <= v.allowance and v.holds is holds, v


@pytest.mark.parametrize("excess, holds", [(1.8e-15, True), (2.5e-15, False)])
def test_theorem2_allowance_is_the_certification_level_plus_the_products_round_off(monkeypatch, excess, holds):
    """K_r given exactly as 4 e_1 e_1^T (r = 1, lambda_max = 4; n = 3): ||w||_{K_r} = 2 |w_1| exactly
    and the allowance is sqrt(r lambda_max) (1e-10 + 2 (n + 2) u ||w||_1) = 2e-10 + 2.22e-15.  A
    witness whose norm exceeds 2e-10 by 1.8e-15 stands, one by 2.5e-15 does not: one on each side of
    the round-off term, both far from it against the rounding of the allowance itself (~3e-26)."""
    w1 = (2e-10 + excess) / 2
    inst = _three_points_on_a_line()
    assert inst.margin_G.feasible is False
    info = {"certified": True, "kkt": 0.0, "rank": 1, "lambda_max": 4.0, "cut": 0.0,
            "span": (np.array([4.0]), np.array([[1.0], [0.0], [0.0]]))}
    w = np.array([w1, (1 - w1) / 2, (1 - w1) / 2])
    monkeypatch.setattr(rp14, "witness_distance", lambda G, q, **kw: (0.0, w, info))
    v = rp14.check_theorem2(inst)
    assert v.lhs == 2 * w1 and v.holds is holds, v


def test_theorem2_rejects_a_simplex_point_of_nonzero_norm(monkeypatch):
    """w = e_1 lies on the simplex, ||e_1||_G = 1: not a witness."""
    v = _theorem2_with_witness(monkeypatch, [1.0, 0.0, 0.0])
    assert not v.holds and v.lhs >= 1, v


def test_theorem2_rejects_the_zero_vector(monkeypatch):
    """w = 0 has ||w||_G = 0 but is not a point of the simplex (1^T w = 0)."""
    assert not _theorem2_with_witness(monkeypatch, [0.0, 0.0, 0.0]).holds


def test_theorem2_does_not_grant_a_witness_the_residual_its_solver_reports(monkeypatch):
    """w = (1/2 + 2^-14, 1/2 - 2^-14, 0), ||w||_G = 2^-13 = 1.2e-4, from a solver that reports a
    residual of 1e-3 (an allowance scaled by it would be ~1.7e-3 and let w through)."""
    v = _theorem2_with_witness(monkeypatch, [0.5 + 2.0**-14, 0.5 - 2.0**-14, 0.0], kkt=1e-3)
    assert not v.holds and v.lhs >= 2.0**-13 > 50 * v.allowance, v


@pytest.mark.parametrize("rho", [1e-4, 1e-6])
def test_theorem2_rejects_an_infeasible_verdict_on_data_separable_by_a_small_margin(rho):
    """A margin that calls data of margin 1e-4 or 1e-6 infeasible: every point of the simplex has
    ||w||_G >= rho, far above the check's allowance (~1e-10): whatever the witness solver
    returns (nothing, or its best uncertified point), the infeasible clause fails."""
    inst = _fake_margin(planted_separable(3, 3, 5, rho, seed=1), feasible=False)
    v = rp14.check_theorem2(inst)
    assert v is not None and not v.holds and v.details["case"] == "infeasible", v


def test_theorem2_judges_no_case_when_the_margin_is_undecided():
    inst = _fake_margin(planted_infeasible("random", 2, seed=1, m=5), feasible=None)
    assert rp14.check_theorem2(inst) is None


def test_nvn_can_fail():
    assert not rp14.check_nvn(planted_infeasible("random", 2, seed=1, m=5), algorithm=_nvn_argmax).holds


def test_theorem3_can_fail():
    inst = planted_infeasible("simplex", 3, seed=2)
    bad = Instance(inst.name + "[delta doctored]", inst.X, inst.y, known=dict(inst.known, delta_max=0.5), flags=inst.flags)
    assert rp14.check_theorem3(inst).holds and not rp14.check_theorem3(bad).holds


@pytest.mark.parametrize("cid", ["RP14.lemma7", "RP14.lemma7.printed"])
def test_lemma7_can_fail(cid):
    inst = _fake_margin(planted_infeasible("cross", 2, seed=3), scale=50.0)  # |rho_K| doctored upwards
    assert not REGISTRY[cid].func(inst).holds


@pytest.mark.parametrize("cid", ["RP14.lemma9", "RP14.theorem4"])
def test_lemma9_theorem4_use_corrected_lemma7_and_can_fail(cid):
    """With |rho_K| doctored upwards the corrected-Lemma-7 consequence of Lemma 9 (and Theorem 4's
    per-call count built on it) is violated."""
    make = lambda: planted_infeasible("random", 2, seed=1, m=6)  # noqa: E731  (||q_0||_G > 0: ISNKPVN runs)
    assert REGISTRY[cid].func(make()).holds
    assert not REGISTRY[cid].func(_fake_margin(make(), scale=50.0)).holds


@pytest.mark.parametrize("cid", ["RP14.lemma8", "RP14.lemma9"])
def test_lemma8_9_can_fail(cid):
    inst = planted_separable(3, 3, 5, 0.3, seed=1) if cid == "RP14.lemma8" else planted_infeasible("cross", 2, seed=1)
    alg = _snkp_variant(step=_step_old_alpha, q=True)
    assert not REGISTRY[cid].func(inst, algorithm=alg).holds


def test_theorem4_can_fail():
    inst = planted_infeasible("random", 3, seed=1, m=6)
    gamma_ignored = lambda G, gamma=2.0, epsilon=1e-3, **k: reference.isnkpvn(G, 1.05, epsilon, **k)  # noqa: E731  BUG
    assert rp14.check_theorem4(inst).holds
    assert not rp14.check_theorem4(inst, algorithm=gamma_ignored).holds
