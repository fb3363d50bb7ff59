"""Tests of quality/test_pt11_checks.py."""

from __future__ import annotations

import dataclasses
import math

import reference
from reference import dynamic_margin
from tests.support.pt11_checks import INST, REAL_PDM, REAL_PFM, XOR
from theorems import pt11


def _doctor_trace(res, f):
    """A Result whose trace states have a replaced by f(t, a)."""
    states = tuple(dataclasses.replace(s, a=f(s.t, s.a)) for s in res.trace)
    return dataclasses.replace(res, trace=states)


def _broken_pfm(*a, **k):
    """PFM whose beta is gamma_d-sized: condition (7) with beta >= gamma_d cannot converge."""
    X, y, beta = a[:3]
    return REAL_PFM(X, y, 1.5 * float(pt11.gamma_d(INST).upper), *a[3:], **k)


def test_eq4_can_fail(monkeypatch):
    # a doctored trace: ||a_t|| halved from update 5 on (no longer the sum of t patterns)
    monkeypatch.setattr(reference, "pdm", lambda *a, **k: _doctor_trace(REAL_PDM(*a, **k), lambda t, a: a * 0.5 if t >= 5 else a))
    v = pt11.check_eq4(INST, runs=("pdm",))
    assert v.holds is False and v.details["iteration"] is not None, str(v)


def test_eq5_can_fail(monkeypatch):
    # a doctored count: t_c reported three times too large
    monkeypatch.setattr(reference, "pdm", lambda *a, **k: dataclasses.replace(REAL_PDM(*a, **k), iterations=3 * REAL_PDM(*a, **k).iterations))
    v = pt11.check_eq5(INST, runs=("pdm",))
    assert v.holds is False, str(v)


def test_eq6_can_fail(monkeypatch):
    # a doctored trace: a_7 perturbed by 1e-6 in one coordinate
    def bump(t, a):
        if t == 7:
            a = a.copy()
            a[0] += 1e-6
        return a

    monkeypatch.setattr(reference, "pdm", lambda *a, **k: _doctor_trace(REAL_PDM(*a, **k), bump))
    v = pt11.check_eq6(INST, runs=("pdm",))
    assert v.holds is False and v.details["iteration"] in (6, 7), str(v)


def test_lemma1_can_fail(monkeypatch):
    monkeypatch.setattr(pt11, "lemma1_t0", lambda C, delta: delta * (C + math.log((1 + math.e) * delta)))  # (1 + 1/e) dropped
    v = pt11.check_lemma1(INST, samples=30, digits=30)
    assert v.holds is False, str(v)


def test_theorem1_can_fail(monkeypatch):
    monkeypatch.setattr(reference, "pfm", _broken_pfm)
    v = pt11.check_theorem1(INST, eps_values=(0.5,))
    assert v.holds is False and v.lhs > v.rhs, str(v)


def test_remark1_can_fail(monkeypatch):
    monkeypatch.setattr(reference, "pfm", _broken_pfm)
    v = pt11.check_remark1(INST, eps_values=(0.7,))
    assert v.holds is False, str(v)


def test_theorem2_can_fail(monkeypatch):
    # threshold ||a_t||^2/t: eps ignored (eps = 0), some pattern always satisfies it -> no convergence
    monkeypatch.setattr(dynamic_margin, "pdm_threshold", lambda eps, t, ell, ar: ell / t)
    v = pt11.check_theorem2(INST, eps_values=(0.7,))
    assert v.holds is False and v.lhs > v.rhs, str(v)


def test_pdm_margin_can_fail(monkeypatch):
    # the threshold with ||a_t|| instead of ||a_t||^2
    monkeypatch.setattr(dynamic_margin, "pdm_threshold", lambda eps, t, ell, ar: (1 - eps) * ar.sqrt(ell) / t)
    v = pt11.check_pdm_margin(INST, eps=0.1, variants=(("pdm", {}),))
    assert v.holds is False and v.lhs > v.rhs, str(v)


def test_multiple_updates_can_fail(monkeypatch):
    # the closed form off by one (mu_+ - 1): lambda one too small
    real = dynamic_margin.pdm_mu_plus
    monkeypatch.setattr(dynamic_margin, "pdm_mu_plus", lambda *a: real(*a) - 1)
    v = pt11.check_multiple_updates(INST, eps_values=(0.3,), states=10, digits=30)
    assert v.holds is False and v.lhs > 0, str(v)


def test_extension_can_fail(monkeypatch):
    real = dynamic_margin.extend
    monkeypatch.setattr(dynamic_margin, "extend", lambda Z, y, Delta: real(Z, y, Delta / 2))
    v = pt11.check_extension(XOR, Deltas=(1.0,))
    assert v.holds is False, str(v)
