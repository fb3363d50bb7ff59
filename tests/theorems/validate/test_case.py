"""Tests of theorems/validate/test_case.py."""

from __future__ import annotations

import numpy as np
import pytest

import reference
from tests.support.validate import E1E2, TWICE
from theorems.validate import case as case_mod
from theorems.validate.case import CAP, CAP_NO_BOUND, _budget_and_answer, make_case


# -- _budget_and_answer: the budget of a case -------------------------------------------------------
#
# SLOW: x_1 = (1, 0) labelled +1, x_2 = (1, 1/4) labelled -1 (z_2 = (-1, -1/4)).  The cyclic
# Perceptron, by hand: after 2m updates w = (0, -m/4), after 2m+1 updates w = (1, -m/4); at
# w = (1, -m/4) the point z_2 scores -1 + m/16 > 0 first for m = 17: 35 updates, w = (1, -17/4).
SLOW = (np.array([[1.0, 0.0], [1.0, 0.25]]), np.array([1, -1]))


ARGS = {"perceptron": {}, "normalized_perceptron": {"normalize": True}, "nkp": {}, "snkp": {}}


def _budget(algorithm, data, bound, feasible, cap=CAP, budget=None, args=None):
    X, y = data
    G = reference.gram(X, y, "linear")
    return _budget_and_answer(algorithm, X, y, G, dict(ARGS[algorithm] if args is None else args), bound, feasible, cap, budget)


def test_budget_where_a_theorem_promises_termination():
    """floor(bound) + 2 when bound + 2 <= cap, and "max_iter" then fails."""
    termination, max_iter, ref = _budget("perceptron", (E1E2.X, E1E2.y), 3.0, True, cap=5)
    assert (termination, max_iter, ref["status"], ref["iterations"]) == (True, 5, "separator", 2)
    termination, max_iter, ref = _budget("perceptron", (E1E2.X, E1E2.y), 1000.0, True)
    assert (termination, max_iter, ref["status"], ref["iterations"]) == (True, 1002, "separator", 2)
    # bound + 2 > cap: no promise within the budget; the reference's 2 updates -> max(500, 140), capped at 4
    assert _budget("perceptron", (E1E2.X, E1E2.y), 3.0, True, cap=4)[:2] == (False, 4)
    # the whole path: Novikoff's bound on e1, e2 is R^2/rho^2 = 1/(1/sqrt 2)^2 = 2 (rounded up)
    case = make_case("perceptron", E1E2)
    assert (case.termination_required, case.max_iter) == (True, 4)


def test_budget_where_no_theorem_applies_is_20_times_the_references_count_plus_100():
    for feasible in (None, True):
        termination, max_iter, ref = _budget("perceptron", SLOW, None, feasible)
        assert (ref["status"], ref["iterations"], ref["w"].tolist()) == ("separator", 35, [1.0, -4.25])
        assert (termination, max_iter) == (False, 20 * 35 + 100)
    # at least CAP_NO_BOUND ...
    assert _budget("perceptron", (E1E2.X, E1E2.y), None, None)[:2] == (False, CAP_NO_BOUND)
    # ... at most cap
    assert _budget("perceptron", SLOW, None, None, cap=600)[:2] == (False, 600)


def test_budget_exhaustion_case():
    termination, max_iter, ref = _budget("perceptron", (E1E2.X, E1E2.y), 2.0, True, budget=1)
    assert (termination, max_iter, ref["status"], ref["iterations"]) == (False, 1, "max_iter", 1)
    termination, max_iter, ref = _budget("perceptron", SLOW, None, None, budget=1000)
    assert (termination, max_iter, ref["status"], ref["iterations"]) == (False, 1000, "separator", 35)


@pytest.mark.parametrize("algorithm", ["perceptron", "normalized_perceptron", "nkp", "snkp"])
def test_budget_on_certified_infeasible_data_runs_the_reference_only_briefly(algorithm, monkeypatch):
    """Nothing to find: CAP_NO_BOUND, and the reference is never run longer (building a corpus
    stays cheap)."""
    budgets = []
    run = case_mod._reference_answer

    def spy(alg, X, y, G, args, max_iter, trace=False):
        budgets.append(max_iter)
        return run(alg, X, y, G, args, max_iter, trace)

    monkeypatch.setattr(case_mod, "_reference_answer", spy)
    termination, max_iter, ref = _budget(algorithm, TWICE, None, False)
    assert (termination, max_iter, ref["status"], ref["iterations"]) == (False, CAP_NO_BOUND, "max_iter", CAP_NO_BOUND)
    assert budgets and max(budgets) == CAP_NO_BOUND


@pytest.mark.parametrize("algorithm", ["perceptron", "nkp"])
def test_budget_when_the_reference_runs_out_is_cut_to_cap_no_bound(algorithm):
    """Margin not decided (feasible None) and the reference runs out of ``cap``: the case's budget
    becomes CAP_NO_BOUND, with the reference's answer at that budget."""
    termination, max_iter, ref = _budget(algorithm, TWICE, None, None, cap=1000)
    assert (termination, max_iter, ref["status"], ref["iterations"]) == (False, CAP_NO_BOUND, "max_iter", CAP_NO_BOUND)
