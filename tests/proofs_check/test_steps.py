"""Tests of proofs_check/steps.py: the step registry and the helpers that prove a step."""

from __future__ import annotations

import pytest
import sympy as sp

from proofs_check import steps


def test_interval_helper_is_rigorous_and_refutes():
    from mpmath import iv

    good, _ = steps.interval_positive(lambda x: x * x + 1 - 2 * x + iv.mpf("0.01"), [(0.0, 3.0)])
    assert good
    badres, _ = steps.interval_positive(lambda x: x * x - 2 * x + 1, [(0.0, 3.0)], max_boxes=200)
    assert not badres  # touches 0 at x = 1: cannot be shown > 0


def test_register_refuses_a_duplicate_id_and_a_holding_step_without_perturbation(monkeypatch):
    monkeypatch.setattr(steps, "REGISTRY", {})

    @steps.register("X.one", "X", "eq. (1)", "a statement", perturb={"c": 2})
    def one(c=1):
        return steps.identity(c, 1)

    assert steps.REGISTRY["X.one"].run().holds and not steps.REGISTRY["X.one"].run_perturbed().holds
    with pytest.raises(ValueError, match="duplicate step id X.one"):
        steps.register("X.one", "X", "eq. (1)", "again", perturb={"c": 2})(one)
    with pytest.raises(ValueError, match="X.two expected to hold needs a perturbation"):
        steps.register("X.two", "X", "eq. (2)", "no perturbation")(one)
    assert list(steps.REGISTRY) == ["X.one"]


def test_a_crash_is_never_a_proof():
    def crashes():
        raise ZeroDivisionError("division by zero")

    res = steps.Step("X.crash", "X", "eq. (3)", "crashes", crashes, perturb={}).run()
    assert (res.holds, res.method, res.detail) == (False, "error", "ZeroDivisionError: division by zero")


def test_sign_of_a_factored_difference():
    a, b = sp.symbols("a b", positive=True)
    assert steps.sign_of((a + b) ** 2 - a**2, [a, b])[0] == 1  # 2ab + b^2
    assert steps.sign_of(a**2 - (a + b) ** 2, [a, b])[0] == -1
    assert steps.sign_of(a - b, [a, b])[0] is None
    assert steps.nonneg(a * b, [a, b]).holds and not steps.nonneg(a - b, [a, b]).holds
