"""Precise tests of the validation harness theorems/validate/, written against surviving mutants
(mutmut, issue 13: mutation testing of the harness after reference/).

Each test pins what a user of ``margins validate`` relies on: ``--strict`` rejects a trajectory
that leaves the reference's (and only notes a divergence after the reference's free choice), the
exact text of a failing case's report, the case's budget rule, answers read as float64 vectors
(a malformed vector is a wrong answer, not a missing one), and file errors that name the field.
Trajectories and budgets are worked by hand in the comments on tiny instances; expected values
are never read off the harness.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction

import numpy as np
import pytest

import reference
from theorems.instances.instance import Instance
from theorems.validate import case as case_mod
from theorems import cli
from theorems.validate.answer import normalize_answer
from theorems.validate.case import CAP, CAP_NO_BOUND, _budget_and_answer, make_case
from theorems.validate.checks import check_strict, evaluate, run_case
from theorems.validate.report import FAIL, NOTE, PASS, CheckResult, Failure
from theorems.validate.schema import SHAPES, check_document

# -- check_strict (layer 3) ---------------------------------------------------------------------------
#
# The Perceptron on e1, e2 (both labelled +1), by hand: at w_0 = 0 both points are mistakes
# (y_i <w_0, x_i> = 0 <= 0) -- a free choice for a Perceptron that claims no rule; the cyclic and
# the most-violated rule (smallest index on ties) both take x_1: w_1 = e1; then only x_2 is a
# mistake: w_2 = e1 + e2, which separates.  Status "separator" after 2 updates.
E1E2 = Instance("e1e2", np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, 1]))
E1E2_TRACE = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0)]
# x_1 = e1, x_2 = (1, 1): w_1 = e1 already separates (<w_1, x_2> = 1 > 0): 1 update, w = (1, 0),
# whose second entry is zero (for the absolute tolerance).
E1_ONLY = Instance("e1only", np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([1, 1]))
CID = "strict.trajectory"


def _perceptron_case(inst, rule=None):
    return make_case("perceptron", inst, arguments={"rule": rule} if rule else None)


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
    assert check_strict(c, _ans(None)) == [CheckResult(CID, PASS)]
    assert check_strict(c, _ans(None, w=None)) == [CheckResult(CID, PASS)]
    # within the documented tolerance (rtol 1e-6, atol 1e-9): equal
    assert check_strict(c, _ans([(4e-10, 0.0), (1.0, 0.0), (1.0 + 5e-7, 1.0)])) == [CheckResult(CID, PASS)]
    assert check_strict(c, _ans(None, w=(1.0 + 5e-7, 1.0))) == [CheckResult(CID, PASS)]


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
    assert check_strict(c, _ans(None, w=(1.0 + 3e-6, 1.0)))[0].outcome == FAIL
    # absolute: 5e-9 where the reference has 0 is outside atol 1e-9 (inside numpy's default 1e-8)
    assert check_strict(c, _ans([(5e-9, 0.0), (1.0, 0.0), (1.0, 1.0)]))[0].outcome == FAIL
    assert check_strict(e1, _ans([(0.0, 0.0), (1.0, 5e-9)], iterations=1, w=(1.0, 0.0), rule="cyclic"))[0].outcome == FAIL
    assert check_strict(e1, _ans(None, iterations=1, w=(1.0, 5e-9)))[0].outcome == FAIL
    # and nowhere near 1
    assert check_strict(c, _ans(None, w=(1.5, 1.0)))[0].outcome == FAIL
    assert check_strict(e1, _ans(None, iterations=1, w=(1.0, 0.5)))[0].outcome == FAIL


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
    c = cases["none"]
    assert check_strict(c, _ans(None, w=(2.0, 1.0))) == [CheckResult(
        CID, FAIL, "final w = [2, 1] differs from the reference's [1, 1] (no trace to locate the step)")]
    assert check_strict(c, _ans(None, w=(1.0, 1.0, 0.0)))[0].outcome == FAIL


def test_strict_compares_the_final_status_and_counter(cases):
    c = cases["none"]
    assert check_strict(c, _ans(E1E2_TRACE, status="max_iter")) == [CheckResult(
        CID, FAIL, "final (status, iterations) = (max_iter, 2) vs the reference's (separator, 2)")]
    assert check_strict(c, _ans(E1E2_TRACE, iterations=3)) == [CheckResult(
        CID, FAIL, "final (status, iterations) = (separator, 3) vs the reference's (separator, 2)")]


def test_strict_rejects_a_perceptron_that_ignores_its_most_violated_rule():
    """End to end: an implementation that accepts ``rule`` but always scans cyclically.
    x_1 = e1, x_2 = (-1/2, 1), x_3 = (-2, 1), all labelled +1.  w_0 = 0: all three are mistakes,
    both rules take x_1: w_1 = e1.  Scores at w_1: 1, -1/2, -2 (no tie): cyclic takes x_2,
    w_2 = (1/2, 1); most violated takes x_3, w_2 = (-1, 1)."""
    inst = Instance("three", np.array([[1.0, 0.0], [-0.5, 1.0], [-2.0, 1.0]]), np.array([1, 1, 1]))
    case = _perceptron_case(inst, "most_violated")

    def cyclic_only(X, y, *, rule="cyclic", max_iter=1000, trace=False):
        return reference.perceptron(X, y, rule="cyclic", max_iter=max_iter, trace=trace)

    ans, results = run_case(cyclic_only, case, strict=True)
    assert ans["rule_passed"] == "most_violated"
    assert [r for r in results if r.id == CID] == [
        CheckResult(CID, FAIL, "iterate 2: w = [0.5, 1] differs from the reference's [-1, 1]", at=2)]
    _, results = run_case(reference.perceptron, case, strict=True)
    assert [r for r in results if r.id == CID] == [CheckResult(CID, PASS)]


# -- Failure.format: what the user reads for a failing case ------------------------------------------

HEAD = "  answer          reference                         implementation"


def test_failure_report_shows_the_iterate_side_by_side():
    f = Failure(
        check="strict.trajectory", message="iterate 2: w = [0.5, 1] differs from the reference's [-1, 1]",
        case_id="perceptron/three/rule=most_violated",
        instance={"name": "three", "X": [[1.0, 0.0], [-0.5, 1.0], [-2.0, 1.0]], "y": [1, 1, 1], "kernel": "linear", "params": {}},
        arguments={"rule": "most_violated", "max_iter": 500},
        reference={"status": "separator", "iterations": 3, "alpha": None, "w": [-1.0, 1.0], "p": None},
        implementation={"status": "separator", "iterations": None, "alpha": [1.0, 1.0, 0.0], "w": [0.5, 1.0], "p": None},
        iterate=2,
    )
    assert f.format().split("\n") == [
        "FAILED strict.trajectory: iterate 2: w = [0.5, 1] differs from the reference's [-1, 1]",
        "  case     : perceptron/three/rule=most_violated",
        "  instance : n=3 d=2 kernel=linear ",
        "    X = [[ 1. ,  0. ],",
        " [-0.5,  1. ],",
        " [-2. ,  1. ]]",
        "    y = [1, 1, 1]",
        "  arguments: {rule=most_violated, max_iter=500}",
        HEAD,
        "    status        separator                         separator",
        "    iterations    3                                 -",
        "  at iterate 2 (where the check failed):",
        "    alpha         -                                 [1, 1, 0]",
        "    w             [-1, 1]                           [0.5, 1]",
    ]


def test_failure_report_of_a_crash_on_a_shrunk_kernel_instance():
    """A crash (error line), on an instance hypothesis shrank, with kernel parameters; X wraps at
    100 characters and shows 6 digits."""
    third = 1.0 / 3.0
    f = Failure(
        check="answer.contract", message="ZeroDivisionError: float division by zero (at impl.py:3)",
        case_id="nvn/hypothesis", shrunk=True,
        instance={"X": [[-third] * 9, [third] * 9], "y": [1, -1], "kernel": "rbf", "params": {"gamma": 0.5}},
        arguments={"epsilon": 0.05, "max_iter": 400},
        reference={"status": "certificate", "iterations": 12, "alpha": None, "w": None, "p": [0.5, 0.5]},
        implementation={"status": None, "iterations": None, "alpha": None, "w": None, "p": None,
                        "error": "ZeroDivisionError: float division by zero (at impl.py:3)"},
    )
    row = ", ".join(["-0.333333"] * 8)
    assert f.format().split("\n") == [
        "FAILED answer.contract: ZeroDivisionError: float division by zero (at impl.py:3)",
        "  case     : nvn/hypothesis (minimal instance, shrunk by hypothesis)",
        "  instance : n=2 d=9 kernel=rbf {'gamma': 0.5}",
        f"    X = [[{row},",
        "  -0.333333],",
        " [ " + ",  ".join(["0.333333"] * 8) + ",",
        "   0.333333]]",
        "    y = [1, -1]",
        "  arguments: {epsilon=0.05, max_iter=400}",
        HEAD,
        "    status        certificate                       -",
        "    iterations    12                                -",
        "    p             [0.5, 0.5]                        -",
        "    error         ZeroDivisionError: float division by zero (at impl.py:3)",
    ]


def test_failure_report_without_answers_or_instance():
    # no answers at all: no answer rows; an empty instance: n=0, d=0
    f = Failure("answer.contract", "not answered", "nkp/x", {"X": [], "y": [], "kernel": "linear", "params": {}}, {}, {}, {})
    assert f.format().split("\n") == [
        "FAILED answer.contract: not answered",
        "  case     : nkp/x",
        "  instance : n=0 d=0 kernel=linear ",
        "    X = []",
        "    y = []",
        "  arguments: {}",
        HEAD,
    ]
    # an answer on a case the harness does not know: no instance to show
    f = Failure("answer.contract", "unknown case id 'nkp/x'", "nkp/x", {}, {}, {}, {})
    assert f.format() == "FAILED answer.contract: unknown case id 'nkp/x'\n  case     : nkp/x"


def test_failure_report_shows_x_the_same_whether_json_wrote_integers_or_floats():
    def x_lines(X):
        f = Failure("c", "m", "id", {"X": X, "y": [1, 1], "kernel": "linear", "params": {}}, {}, {}, {})
        return [line for line in f.format().split("\n") if line.startswith(("    X", " ["))]

    assert x_lines([[1, 0], [0, 1]]) == x_lines([[1.0, 0.0], [0.0, 1.0]]) == ["    X = [[1., 0.],", " [0., 1.]]"]


def test_failure_report_lists_a_vector_only_one_side_returned():
    """The reference's alpha beside an implementation that returned none, and vice versa."""
    inst = {"X": [[1.0]], "y": [1], "kernel": "linear", "params": {}}
    f = Failure("c", "m", "id", inst, {}, {"alpha": [1.0]}, {"p": [1.0]})
    assert f.format().split("\n")[-2:] == ["    alpha         [1]                               -",
                                            "    p             -                                 [1]"]
    f = Failure("c", "m", "id", inst, {}, {"iterations": None}, {"iterations": 7})
    assert f.format().split("\n")[-1] == "    iterations    -                                 7"


# -- _budget_and_answer: the budget of a case -------------------------------------------------------
#
# SLOW: x_1 = (1, 0) labelled +1, x_2 = (1, 1/4) labelled -1 (z_2 = (-1, -1/4)).  The cyclic
# Perceptron, by hand: after 2m updates w = (0, -m/4), after 2m+1 updates w = (1, -m/4); at
# w = (1, -m/4) the point z_2 scores -1 + m/16 > 0 first for m = 17: 35 updates, w = (1, -17/4).
SLOW = (np.array([[1.0, 0.0], [1.0, 0.25]]), np.array([1, -1]))
# TWICE: the point (1, 0) labelled +1 and -1: certified infeasible, the Perceptrons, NKP and SNKP
# never stop.
TWICE = (np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([1, -1]))
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


# -- answers read as float64 vectors ----------------------------------------------------------------


def test_answer_vectors_are_float64():
    a = normalize_answer({"status": "separator", "iterations": 2, "w": [1, 2], "alpha": [[1, 0], [0, 1]],
                          "p": [Fraction(1, 3), Fraction(2, 3)]})
    assert a["w"].dtype == np.float64 and a["w"].tolist() == [1.0, 2.0]
    assert a["alpha"].dtype == np.float64 and a["alpha"].tolist() == [1.0, 0.0, 0.0, 1.0]
    # an exact-arithmetic implementation's Fractions: read as the nearest doubles
    assert a["p"].dtype == np.float64 and a["p"].tolist() == [1 / 3, 2 / 3]
    assert "error" not in a


@pytest.mark.parametrize("w", [[None, 1.0], ["a", "b"], [[1.0], [2.0, 3.0]], {"x": 1.0}])
def test_a_vector_that_is_not_one_is_a_wrong_answer_not_a_missing_one(w):
    """It was read as "no vector": a max_iter answer with w = ["a", "b"] conformed, while
    w = [nan, 1] was rejected."""
    a = normalize_answer({"status": "max_iter", "iterations": 500, "w": w})
    assert a["w"] is None
    assert re.fullmatch(r"w = .* is not a vector of numbers \(return a 1-D array of floats, or None\)", a["error"])
    case = make_case("perceptron", Instance("twice", *TWICE))
    assert (case.reference["status"], case.max_iter) == ("max_iter", CAP_NO_BOUND)
    (res,) = evaluate(case, a)
    assert (res.id, res.outcome, res.message) == ("answer.contract", FAIL, a["error"])
    # a missing vector is no error
    assert "error" not in normalize_answer({"status": "max_iter", "iterations": 500, "w": None})


# -- check_document: file errors name the file, the field and the fix --------------------------------


def _msg(doc, kind=None, source="answers.json"):
    with pytest.raises(ValueError) as e:
        check_document(doc, kind, source=source)
    return str(e.value)


EXPECT = {k: f"expected {SHAPES[k]} (theorems/validate/case_schema.json)" for k in SHAPES}
ANY = "expected a corpus, answers or trace document (theorems/validate/case_schema.json)"


def test_check_document_messages():
    assert _msg([], "answers") == f"answers.json: a case document must be a JSON object; {EXPECT['answers']}"
    assert _msg("x", None, None) == f"a case document must be a JSON object; {ANY}"
    assert _msg({}, "answers") == f"answers.json: the document is an empty JSON object {{}}: no case answered; {EXPECT['answers']}"
    assert _msg({}, "trace") == f"answers.json: the document is an empty JSON object {{}}: nothing to check; {EXPECT['trace']}"
    assert _msg({}) == f"answers.json: the document is an empty JSON object {{}}: nothing to check; {ANY}"
    keys = {k: [] for k in ("a", "b", "c", "d", "e", "f")}
    assert _msg(keys, "corpus") == f"answers.json: no \"schema_version\" key (keys: a, b, c, d, e); {EXPECT['corpus']}"
    for v in (2, True, None, "1"):  # true == 1 in Python, not in the schema
        assert _msg({"schema_version": v, "kind": "answers", "answers": []}) == (
            f"answers.json: schema_version {v!r} is not supported (this reader knows version 1)")
    assert _msg({"schema_version": 1, "kind": "corpus"}, "answers") == "answers.json: expected a 'answers' document, got kind='corpus'"
    assert _msg({"schema_version": 1}, "answers") == "answers.json: expected a 'answers' document, got kind=None"


BAD = "answers.json: document does not follow theorems/validate/case_schema.json: "


def test_check_document_schema_errors_name_the_field():
    """They said "$: matches 0 of the oneOf alternatives" (the three kinds), whatever was wrong."""
    doc = {"schema_version": 1, "kind": "answers", "answers": [{"case_id": "nkp/x", "status": "done", "iterations": 0}]}
    assert _msg(doc) == BAD + "$.answers[0].status: 'done' is not one of ['separator', 'certificate', 'max_iter']"
    assert _msg(doc, "answers") == BAD + "$.answers[0].status: 'done' is not one of ['separator', 'certificate', 'max_iter']"
    assert _msg({"schema_version": 1, "kind": "answers"}) == BAD + "$: missing required key 'answers'"
    doc = {"schema_version": 1, "kind": "trace", "traces": [{"case_id": "nkp/x", "iterates": [{"k": "1"}]}]}
    assert _msg(doc, source=None) == BAD[len("answers.json: "):] + "$.traces[0].iterates[0].k: expected integer, got str"
    assert _msg({"schema_version": 1, "kind": "answer", "answers": []}) == BAD + "$.kind: 'answer' is not one of 'corpus', 'answers', 'trace'"
    assert _msg({"schema_version": 1, "kind": ["answers"]}) == BAD + "$.kind: ['answers'] is not one of 'corpus', 'answers', 'trace'"
    # the first five errors
    doc = {"schema_version": 1, "kind": "answers", "answers": [{"case_id": f"nkp/{i}", "status": "done", "iterations": 0} for i in range(6)]}
    errs = [f"$.answers[{i}].status: 'done' is not one of ['separator', 'certificate', 'max_iter']" for i in range(5)]
    assert _msg(doc) == BAD + "; ".join(errs)
    # and a valid document passes
    check_document({"schema_version": 1, "kind": "answers", "answers": [{"case_id": "nkp/x", "status": "max_iter", "iterations": 0}]}, "answers")


def test_export_cases_reports_what_it_wrote(tmp_path, capsys):
    """`margins export-cases` says how many cases in how many corpus files it wrote, besides the
    schema (mutation sample C: cmd_export_cases_13 counted one file too few)."""
    d = tmp_path / "cases"
    assert cli.main(["export-cases", str(d), "--algorithms", "perceptron"]) == 0
    written = sorted(p.name for p in d.iterdir())
    assert written == ["case_schema.json", "perceptron.json"]
    n = sum(len(json.loads((d / f).read_text())["cases"]) for f in ("perceptron.json",))
    out = capsys.readouterr().out
    assert out == f"wrote {n} cases in 1 files and case_schema.json to {d} (schema_version 1)\n"
