"""PT11 checks (theorems.pt11): every id holds on hypothesis instances, and every id can fail
(a broken algorithm or a doctored trace, via monkeypatch)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from tests.support.pt11_checks import INST, REAL_PDM, XOR, XOR_
from theorems import pt11
from theorems.instances import Instance
from theorems.registry import REGISTRY, get
from theorems.strategies import planted_infeasible, separable_instances


IDS = (
    "PT11.eq4",
    "PT11.eq5",
    "PT11.eq6",
    "PT11.lemma1",
    "PT11.theorem1",
    "PT11.theorem2",
    "PT11.remark1",
    "PT11.pdm_margin",
    "PT11.multiple_updates",
    "PT11.extension",
)


# the "ci" profile (tests/conftest.py) with a smaller budget: each example runs several algorithms
CI = settings(settings.get_profile("ci"), max_examples=8)


@st.composite
def pt11_instances(draw):
    """Separable data with a planted directional margin gamma_d (pt11.planted_pt11)."""
    return pt11.planted_pt11(
        n=draw(st.integers(2, 12)),
        d=draw(st.integers(1, 4)),
        gamma=draw(st.sampled_from([0.1, 0.2, 0.35, 0.5])),
        spread=draw(st.sampled_from([0.2, 0.6, 1.0])),
        seed=draw(st.integers(0, 2**20)),
        n_support=draw(st.sampled_from([2, 4])),
    )


instances = st.one_of(pt11_instances(), separable_instances())


def _assert_holds(v):
    if v is None:
        return
    assert v.holds, str(v) + f" {v.details}"


def test_all_ids_registered():
    for i in IDS:
        assert i in REGISTRY and get(i).func is not None


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_planted_gamma_is_certified(seed):
    inst = pt11.planted_pt11(n=10, d=3, gamma=0.3, seed=seed)
    m = pt11.gamma_d(inst)
    assert m.lower - 1e-9 <= 0.3 <= m.upper + 1e-9
    assert set(m.support) <= set(range(inst.n)) and set(inst.known["support"]) >= set(m.support)


@CI
@given(instances)
def test_eq4_holds(inst):
    _assert_holds(pt11.check_eq4(inst, cap=3000))


@CI
@given(instances)
def test_eq5_holds(inst):
    _assert_holds(pt11.check_eq5(inst, cap=20_000))


@CI
@given(instances)
def test_eq6_holds(inst):
    _assert_holds(pt11.check_eq6(inst, cap=1500))


@CI
@given(pt11_instances())
def test_lemma1_holds(inst):
    _assert_holds(pt11.check_lemma1(inst, samples=30, digits=30))


@CI
@given(pt11_instances())
def test_theorem1_holds(inst):
    _assert_holds(pt11.check_theorem1(inst, eps_values=(0.3, 0.8, 1.0), cap=20_000))


@CI
@given(pt11_instances())
def test_theorem2_holds(inst):  # the three cases eps < 1/2, = 1/2, > 1/2
    _assert_holds(pt11.check_theorem2(inst, eps_values=(0.35, 0.5, 0.7, 1.0), cap=20_000))


@CI
@given(pt11_instances())
def test_remark1_holds(inst):
    _assert_holds(pt11.check_remark1(inst, eps_values=(0.35, 0.5, 0.7), cap=20_000))


@CI
@given(instances)
def test_pdm_margin_holds(inst):
    _assert_holds(pt11.check_pdm_margin(inst, eps=0.2, cap=50_000))


@CI
@given(pt11_instances())
def test_multiple_updates_holds(inst):
    _assert_holds(pt11.check_multiple_updates(inst, eps_values=(0.05, 0.3, 0.9), states=10, digits=30))


@CI
@given(st.one_of(instances, st.just(XOR_), st.builds(planted_infeasible, st.just("simplex"), st.integers(2, 3), st.integers(0, 5))))
def test_extension_holds(inst):
    _assert_holds(pt11.check_extension(inst))


def test_not_applicable_returns_none():
    from theorems.strategies import random_kernel_instance

    k = random_kernel_instance("gaussian", 6, 2, seed=0)
    assert pt11.check_eq4(k) is None and pt11.check_theorem2(k) is None
    inf = XOR  # not separable even with a bias (gamma_d < 0 in the augmented space)
    assert float(pt11.gamma_d(inf).upper) < 0
    assert pt11.check_theorem2(inf) is None and pt11.check_pdm_margin(inf) is None
    v = pt11.check_eq4(inf, cap=200)  # trivially true on infeasible data (gamma_d < 0)
    assert v is not None and v.holds


def test_eq5_needs_nonnegative_achieved_margin():
    """Counterexample to (5) without the hypothesis gamma'_d >= 0: a PDM run stopped after two
    updates, whose a still misclassifies a pattern (gamma'_d < 0).  (5) is then equivalent to
    ||a_t||/t <= gamma_d, the reverse of (4), and fails; check_eq5 requires gamma'_d >= 0."""
    inst = pt11.planted_pt11(n=10, d=3, gamma=0.2, seed=1)
    P = pt11.patterns(inst)
    m = pt11.gamma_d(inst)
    for t in range(1, 20):
        res = REAL_PDM(inst.X, inst.y, 0.2, max_iter=t)
        a = np.asarray(res.w, dtype=float)
        gp = float(np.min(P @ a)) / np.linalg.norm(a)
        if gp < 0:
            break
    assert gp < 0
    lhs = (float(m.lower) - gp) / float(m.lower)  # best end for the statement: still fails
    rhs = 1 - gp * t / np.linalg.norm(a)
    assert lhs > rhs, (lhs, rhs)
    assert pt11._eq5_from(inst, P, float(m.lower), float(m.upper), t, a, "truncated") is None


def test_eq6_printed_without_squares_is_false():
    """E-B1: the printed (6) with the squares dropped is not an identity."""
    res = REAL_PDM(INST.X, INST.y, 0.2, trace=True)
    s0, s1 = [s for s in res.trace if s.t in (3, 4) and s.lam <= 1][:2]
    a0, a1, y = np.asarray(s0.a, float), np.asarray(s1.a, float), pt11.patterns(INST)[s1.pattern]
    t = 3
    L = np.linalg.norm(a0) / t - np.linalg.norm(a1) / (t + 1)
    R = ((np.linalg.norm(a0) / t - a0 @ y) + (np.linalg.norm(a1) / (t + 1) - a1 @ y)) / (t * (t + 1))
    assert abs(L - R) > 1e-6
    Ls, Rs, S = pt11.eq6_terms(a0, a1, y, t)
    assert abs(Ls - Rs) <= 1e-14 * S


def test_lemma1_is_tight():
    """sup{t : (9)} = t_0 when e^C (1 + e) delta = e^e: the proof's ln y/y <= 1/e is an equality."""
    C = 1.0
    delta = math.exp(math.e - C) / (1 + math.e)
    lo, hi = pt11.lemma1_largest_t(C, delta, digits=40)
    t0 = pt11.lemma1_t0(C, delta)
    assert abs(float(hi) / t0 - 1) < 1e-12


@pytest.mark.slow
@settings(settings.get_profile("ci"), max_examples=12)
@given(pt11_instances())
def test_all_pt11_ids_hold_sweep(inst):
    for i in IDS:
        _assert_holds(get(i).func(inst))


@CI
@example(1, [3, 0, 0], [2, 1, 0])  # eps = 1/3 at equality: b = 3 >= 2.5
@given(st.integers(1, 50), st.lists(st.integers(-9, 9), min_size=3, max_size=3), st.lists(st.integers(-9, 9), min_size=3, max_size=3))
def test_erratum_EB3_case_is_unreachable(t, a, y):
    """E-B3 worries that (8) may hold with equality while t q + (2 eps - 1) p < 0 (eps < 1/2),
    making "the smallest non-negative root" 0.  With l = ||a||^2, p = a.y, Cauchy-Schwarz gives
    t q + (2 eps - 1) p >= eps t q / (1 - eps) > 0 at equality: the case cannot occur.  Exact
    rational check: put eps = 1 - t p / l (equality) and require 0 < eps < 1/2."""
    from fractions import Fraction

    a, y = [Fraction(v) for v in a], [Fraction(v) for v in y]
    l, p, q = sum(v * v for v in a), sum(u * v for u, v in zip(a, y)), sum(v * v for v in y)
    if l == 0 or q == 0:
        return
    eps = 1 - t * p / l
    if not 0 < eps < Fraction(1, 2):
        return
    b = t * q + (2 * eps - 1) * p
    assert b >= eps * t * q / (1 - eps) > 0


def test_theorem2_equality_case_n1():
    """n = 1: PDM with eps = 1 makes t = 1 = R^2/gamma_d^2 updates -- Theorem 2 (= Novikoff) is
    attained; at the worst end of the certified interval the bound is 1 - 6e-15, so the other end
    decides (``within_interval``)."""
    inst = Instance("n1", np.array([[1.0, 2.0]]), np.array([1]))
    for check in (pt11.check_theorem2, pt11.check_remark1):
        v = check(inst, eps_values=(1.0,))
        assert v.holds and v.lhs == 1 and abs(v.rhs - 1) < 1e-13, str(v)


def test_eq5_prints_the_allowance_that_lets_it_hold():
    """eq. (5) at equality (the RP14 worked example: gamma'_d = gamma_d) has lhs and rhs both at
    round-off, lhs > rhs by ~1e-12: the verdict holds within its ``allowance`` (the tolerance it
    used, recorded), and the two round-off sides give no tightness."""
    from theorems.instances.suite import builtin_suite

    inst = next(i for i in builtin_suite() if i.name == "rp14_example(r=3,n=6)")
    v = pt11.check_eq5(inst, runs=("pdm",))
    assert v.holds
    assert v.allowance > 0 and v.lhs <= v.rhs + v.allowance
    assert v.allowance == v.details["tol"]
    if v.lhs > v.rhs:
        assert v.within_allowance()
    if max(abs(v.lhs), abs(v.rhs)) <= v.allowance:
        assert v.tightness() == (None, "both sides within the allowance")
    else:
        assert v.tightness()[0] == pytest.approx(v.lhs / v.rhs)
