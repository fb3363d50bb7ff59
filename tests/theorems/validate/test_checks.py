"""Tests of theorems/validate/test_checks.py."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.instances import CID, _perceptron_case
from tests.support.validate import E1E2
from theorems.instances.instance import Instance
from theorems.validate.answer import normalize_answer
from theorems.validate.checks import check_strict
from theorems.validate.report import CheckResult, FAIL, NOTE, PASS


E1E2_TRACE = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0)]


# x_1 = e1, x_2 = (1, 1): w_1 = e1 already separates (<w_1, x_2> = 1 > 0): 1 update, w = (1, 0),
# whose second entry is zero (for the absolute tolerance).
E1_ONLY = Instance("e1only", np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([1, 1]))


@pytest.fixture(scope="module")
def cases():
    c = {"none": _perceptron_case(E1E2), "mv": _perceptron_case(E1E2, "most_violated"), "e1": _perceptron_case(E1_ONLY)}
    for case in (c["none"], c["mv"]):  # the hand-worked run above
        assert (case.reference["status"], case.reference["iterations"]) == ("separator", 2)
        assert case.reference["w"].tolist() == [1.0, 1.0]
    assert (c["e1"].reference["status"], c["e1"].reference["iterations"], c["e1"].reference["w"].tolist()) == ("separator", 1, [1.0, 0.0])
    return c


def _ans(trace, *, status="separator", iterations=2, w=(1.0, 1.0), rule=None):
    """An answer as :func:`theorems.validate.call.call_impl` makes it (``rule_passed``: the rule the
    implementation was handed; None = it takes no ``rule``)."""
    tr = None if trace is None else [{"k": k} if v is None else {"k": k, "w": v} for k, v in enumerate(trace)]
    ans = normalize_answer({"status": status, "iterations": iterations, "w": w, "trace": tr})
    ans["rule_passed"] = rule
    return ans


def test_strict_passes_the_reference_trajectory(cases):
    c = cases["none"]
    for rule in (None, "cyclic"):
        assert check_strict(c, _ans(E1E2_TRACE, rule=rule)) == [CheckResult(CID, PASS)]
    # no update counter (iterations None, a capability it lacks): the counter is not compared
    assert check_strict(c, _ans(E1E2_TRACE, iterations=None)) == [CheckResult(CID, PASS)]
    # states that carry no w (only the counter) are not compared; nor is a missing trace's final
    # vector when there is none
    assert check_strict(c, _ans([None, None, None])) == [CheckResult(CID, PASS)]
    assert check_strict(c, _ans(None, rule="cyclic")) == [CheckResult(CID, PASS)]
    assert check_strict(c, _ans(None, w=None, rule="cyclic")) == [CheckResult(CID, PASS)]
    # within the documented tolerance (rtol 1e-6, atol 1e-9): equal
    assert check_strict(c, _ans([(4e-10, 0.0), (1.0, 0.0), (1.0 + 5e-7, 1.0)])) == [CheckResult(CID, PASS)]
    assert check_strict(c, _ans(None, w=(1.0 + 5e-7, 1.0), rule="cyclic")) == [CheckResult(CID, PASS)]


def test_strict_rejects_a_trajectory_that_leaves_the_reference(cases):
    """The right final answer does not excuse a wrong trajectory: --strict names the first
    iterate where the trace leaves the reference's, and both vectors there."""
    c = cases["none"]
    wrong_step_2 = [(0.0, 0.0), (1.0, 0.0), (1.0, 2.0)]  # at w_1 = e1 only x_2 is a mistake: no choice
    want = [CheckResult(CID, FAIL, "iterate 2: w = [1, 2] differs from the reference's [1, 1]", at=2)]
    for rule in (None, "cyclic"):
        assert check_strict(c, _ans(wrong_step_2, rule=rule)) == want
    # a state without w is skipped, not the end of the comparison
    assert check_strict(c, _ans([None, (1.0, 0.0), (1.0, 2.0)])) == want
    # a trace that lags one step behind (records w before the update), final answer right
    lagging = [(0.0, 0.0), (0.0, 0.0), (1.0, 0.0)]
    assert check_strict(c, _ans(lagging, rule="cyclic")) == [
        CheckResult(CID, FAIL, "iterate 1: w = [0, 0] differs from the reference's [1, 0]", at=1)]
    # a vector of the wrong length
    assert check_strict(c, _ans([(0.0, 0.0), (1.0, 0.0, 0.0), (1.0, 1.0)], rule="cyclic")) == [
        CheckResult(CID, FAIL, "iterate 1: w = [1, 0, 0] differs from the reference's [1, 0]", at=1)]
    # iterate 0 has no decision before it: a divergence there always fails
    assert check_strict(c, _ans([(0.5, 0.0), (1.0, 0.0), (1.0, 1.0)])) == [
        CheckResult(CID, FAIL, "iterate 0: w = [0.5, 0] differs from the reference's [0, 0]", at=0)]


def test_strict_tolerance_is_rtol_1e6_atol_1e9(cases):
    c, e1 = cases["none"], cases["e1"]
    # relative: 3e-6 on an entry of size 1 is outside rtol 1e-6 (inside numpy's default 1e-5)
    assert check_strict(c, _ans([(0.0, 0.0), (1.0, 0.0), (1.0 + 3e-6, 1.0)]))[0].outcome == FAIL
    assert check_strict(c, _ans(None, w=(1.0 + 3e-6, 1.0), rule="cyclic"))[0].outcome == FAIL
    # absolute: 5e-9 where the reference has 0 is outside atol 1e-9 (inside numpy's default 1e-8)
    assert check_strict(c, _ans([(5e-9, 0.0), (1.0, 0.0), (1.0, 1.0)]))[0].outcome == FAIL
    assert check_strict(e1, _ans([(0.0, 0.0), (1.0, 5e-9)], iterations=1, w=(1.0, 0.0), rule="cyclic"))[0].outcome == FAIL
    assert check_strict(e1, _ans(None, iterations=1, w=(1.0, 5e-9), rule="cyclic"))[0].outcome == FAIL
    # and nowhere near 1
    assert check_strict(c, _ans(None, w=(1.5, 1.0), rule="cyclic"))[0].outcome == FAIL
    assert check_strict(e1, _ans(None, iterations=1, w=(1.0, 0.5), rule="cyclic"))[0].outcome == FAIL


def test_strict_notes_a_divergence_after_the_references_free_choice(cases):
    """At w_0 both points are mistakes: a Perceptron that claims no rule may take x_2 first.
    Claiming the cyclic rule, it may not."""
    c = cases["none"]
    other_choice = [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
    assert check_strict(c, _ans(other_choice)) == [CheckResult(
        CID, NOTE, "trajectories diverge at step 1 after a near-tie decision of the reference "
        "(more than one misclassified point); not a failure")]
    assert check_strict(c, _ans(other_choice, rule="cyclic")) == [
        CheckResult(CID, FAIL, "iterate 1: w = [0, 1] differs from the reference's [1, 0]", at=1)]
    # the reference's last state (w_2 = (1, 1): scores 1 and 1) is a near tie of the most-violated
    # rule, but a divergence at iterate 0 comes after no decision at all
    mv = cases["mv"]
    assert check_strict(mv, _ans([(0.0, 0.5), (1.0, 0.0), (1.0, 1.0)], rule="most_violated")) == [
        CheckResult(CID, FAIL, "iterate 0: w = [0, 0.5] differs from the reference's [0, 0]", at=0)]


def test_strict_compares_the_final_answer_without_a_trace(cases):
    """Without a trace the returned vector is compared with the reference's iterate at the
    returned counter -- where the reference's trajectory is determined up to there (a Perceptron
    that claims the cyclic rule); after a free choice (no rule claimed: either mistake first) the
    comparison cannot be made, and the note says so."""
    c = cases["none"]
    assert check_strict(c, _ans(None, w=(2.0, 1.0), rule="cyclic")) == [CheckResult(
        CID, FAIL, "at k = 2, the returned w = [2, 1] differs from the reference's [1, 1] (no trace to locate the step)")]
    assert check_strict(c, _ans(None, w=(1.0, 1.0, 0.0), rule="cyclic"))[0].outcome == FAIL
    (free,) = check_strict(c, _ans(None, w=(2.0, 1.0)))
    assert free.outcome == NOTE and "free choice (more than one misclassified point" in free.message


def test_strict_compares_the_final_status_and_counter(cases):
    c = cases["none"]
    assert check_strict(c, _ans(E1E2_TRACE, status="max_iter")) == [CheckResult(
        CID, FAIL, "final (status, iterations) = (max_iter, 2) vs the reference's (separator, 2)")]
    assert check_strict(c, _ans(E1E2_TRACE, iterations=3)) == [CheckResult(
        CID, FAIL, "final (status, iterations) = (separator, 3) vs the reference's (separator, 2)")]
