"""Tests of theorems/validate/test_report.py."""

from __future__ import annotations

from theorems.validate.report import Failure


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


# -- CheckResult, Report: counting, conformance, the summary and the full text ------------------------------

import numpy as np  # noqa: E402

from theorems.validate.report import FAIL, LAYERS, NOTE, PASS, REFUSED, SKIP, CheckResult, Report  # noqa: E402


def test_check_results_know_their_layer():
    assert CheckResult("claim.separator", PASS).layer == 1
    assert CheckResult("trajectory.final", PASS).layer == 2
    assert CheckResult("strict.trajectory", PASS).layer == 3
    assert CheckResult("no.such.check", PASS).layer == 0
    assert set(LAYERS.values()) == {1, 2, 3}
    r = CheckResult("claim.max_iter", FAIL, "too many", at=4)
    assert (r.message, r.at) == ("too many", 4) and CheckResult("x", PASS).message == "" and CheckResult("x", PASS).at is None


def _report(**kw):
    return Report(algorithm="snkp", implementation="mine:snkp", conforms=False, **kw)


def test_record_counts_every_outcome_and_keeps_each_failure_note_and_refusal():
    rep = _report(cases=3)
    rep.record("c1", [CheckResult("claim.separator", PASS), CheckResult("bound.iterations", FAIL, "k = 9 > bound 4")])
    rep.record("c2", [CheckResult("claim.separator", PASS), CheckResult("bound.iterations", FAIL, "k = 7 > bound 4"),
                      CheckResult("trajectory.final", NOTE, "ties within round-off")])  # fmt: skip
    rep.record("c3", [CheckResult("answer.contract", REFUSED, "ValueError: no")], flags=("duplicates", "zero_row"))
    rep.record("c3", [CheckResult("invariant.trace", SKIP)])
    assert rep.counts == {"claim.separator": {PASS: 2}, "bound.iterations": {FAIL: 2}, "trajectory.final": {NOTE: 1},
                          "answer.contract": {REFUSED: 1}, "invariant.trace": {SKIP: 1}}  # fmt: skip
    assert rep.failing == {"bound.iterations": [("c1", "k = 9 > bound 4"), ("c2", "k = 7 > bound 4")]}
    assert rep.notes == ["c2: trajectory.final: ties within round-off"]
    assert rep.refusals == [("c3", ("duplicates", "zero_row"), "ValueError: no")]
    assert rep.failed_checks == ["bound.iterations"] and rep.layers_failed == [2]


def test_notes_are_kept_up_to_twenty():
    rep = _report()
    for i in range(25):
        rep.record(f"c{i}", [CheckResult("trajectory.final", NOTE, "n")])
    assert len(rep.notes) == 20 and rep.notes[-1] == "c19: trajectory.final: n" and rep.counts["trajectory.final"][NOTE] == 25


def test_settle_conforms_only_without_failures_failing_checks_or_refusals():
    rep = _report()
    rep.record("c", [CheckResult("claim.separator", PASS), CheckResult("x", NOTE, "n"), CheckResult("y", SKIP)])
    rep.settle()
    assert rep.conforms is True
    for spoil in ("failing", "refusals", "failures"):
        rep = _report()
        if spoil == "failing":
            rep.record("c", [CheckResult("claim.separator", FAIL, "no")])
        elif spoil == "refusals":
            rep.record("c", [CheckResult("answer.contract", REFUSED, "ValueError")])
        else:
            rep.failures.append(Failure("claim.separator", "no", "c", {}, {}, {}, {}))
        rep.settle()
        assert rep.conforms is False, spoil


def test_summary_of_a_conforming_run_counts_passes_and_skips_and_names_the_layers():
    rep = _report(cases=4, seconds=1.25)
    rep.record("a", [CheckResult("claim.separator", PASS), CheckResult("bound.iterations", PASS), CheckResult("z", SKIP)])
    rep.record("b", [CheckResult("claim.separator", PASS), CheckResult("z", NOTE, "n")])
    rep.settle()
    assert rep.summary() == "mine:snkp conforms to reference.snkp: 4 cases, 3 checks passed, 1 skipped (layers 1-2, 1.2 s)"
    rep.strict = True
    assert rep.summary().endswith("(layers 1-3, 1.2 s)")
    assert rep.format().split("\n") == [rep.summary(), "  note: b: z: n"]  # a conforming run: the summary and its notes


def test_summary_of_a_failing_run_names_each_failed_check_with_counts_that_add_up():
    rep = _report(cases=5, seconds=0.5)
    rep.record("a", [CheckResult("claim.separator", FAIL, "m1"), CheckResult("bound.iterations", FAIL, "m2")])
    rep.record("b", [CheckResult("claim.separator", FAIL, "m3")])
    rep.settle()
    assert rep.summary() == ("mine:snkp does NOT conform to reference.snkp: failed bound.iterations on 1 of 5 cases; "
                             "claim.separator on 2 of 5 cases (0.5 s)")  # fmt: skip
    text = rep.format().split("\n")
    assert text[1:] == ["  bound.iterations failed on 1 of 5 cases:", "    a: m2",
                        "  claim.separator failed on 2 of 5 cases:", "    a: m1", "    b: m3"]  # fmt: skip
    # a failure counted but without its case list (answers read from a file): "?" rather than a wrong count
    rep2 = _report(cases=2)
    rep2.counts = {"claim.max_iter": {FAIL: 1}}
    assert "claim.max_iter on ? of 2 cases" in rep2.summary()


def test_summary_of_refused_cases_names_the_flags_they_share_and_the_way_out():
    rep = _report(cases=6)
    rep.record("a", [CheckResult("answer.contract", REFUSED, "ValueError: dup")], flags=("duplicates", "tiny"))
    rep.record("b", [CheckResult("answer.contract", REFUSED, "ValueError: dup")], flags=("duplicates",))
    rep.settle()
    s = rep.summary()
    assert s.startswith("mine:snkp does NOT conform to reference.snkp: refused 2 of 6 cases")
    assert "(all flagged duplicates; exclude with --skip-flags duplicates)" in s and "failed" not in s
    assert rep.format().split("\n")[1:] == ["  refused (the implementation raised ValueError) on 2 of 6 cases:",
                                            "    a [duplicates, tiny]: ValueError: dup", "    b [duplicates]: ValueError: dup"]  # fmt: skip
    rep = _report(cases=6)
    rep.record("a", [CheckResult("answer.contract", REFUSED, "x")], flags=("tiny", "n1", "d1"))
    rep.record("b", [CheckResult("answer.contract", REFUSED, "x")], flags=("n1", "tiny"))
    assert "(all flagged n1, tiny; exclude with --skip-flags n1,tiny)" in rep.summary()
    rep = _report(cases=6)
    rep.record("a", [CheckResult("answer.contract", REFUSED, "x")], flags=("tiny",))
    rep.record("b", [CheckResult("answer.contract", REFUSED, "x")], flags=("zero_row",))
    assert "(flags tiny, zero_row; exclude classes with --skip-flags)" in rep.summary()
    rep = _report(cases=6)
    rep.record("a", [CheckResult("answer.contract", REFUSED, "x")])
    assert rep.summary().endswith("refused 1 of 6 cases (0.0 s)")  # no flags: no advice


def test_format_shows_the_minimal_failure_and_the_first_five_notes():
    rep = _report(cases=1)
    rep.record("a", [CheckResult("claim.separator", FAIL, "m")] + [CheckResult("t", NOTE, f"n{i}") for i in range(7)])
    rep.minimal = Failure("claim.separator", "m", "a", {}, {}, {}, {})
    rep.settle()
    lines = rep.format().split("\n")
    assert lines[1:3] == ["FAILED claim.separator: m", "  case     : a"]
    assert lines[-5:] == [f"  note: a: t: n{i}" for i in range(5)]
    rep.failing.clear()
    rep.settle()
    assert "FAILED" not in rep.format()  # a conforming run shows no minimal instance


def test_as_dict_is_plain_json_with_the_summary():
    import json

    rep = _report(cases=1, seconds=np.float64(0.25))
    rep.record("a", [CheckResult("claim.separator", FAIL, "m")])
    rep.record("b", [CheckResult("answer.contract", REFUSED, "r")], flags=("tiny",))
    f = Failure("claim.separator", "m", "a", {"X": [[1.0]], "y": [1]}, {"eps": 0.1}, {"w": np.array([1.0, np.inf])}, {},
                iterate=np.int64(3))  # fmt: skip
    rep.failures.append(f)
    rep.minimal = f
    rep.notes.append("a note")
    rep.settle()
    d = rep.as_dict()
    json.dumps(d, allow_nan=False)
    assert d["summary"] == rep.summary() and d["conforms"] is False and d["cases"] == 1 and d["seconds"] == 0.25
    assert d["failing"] == {"claim.separator": [{"case_id": "a", "message": "m"}]}
    assert d["refusals"] == [{"case_id": "b", "flags": ["tiny"], "message": "r"}]
    assert d["failures"][0]["reference"] == {"w": [1.0, "inf"]} and d["failures"][0]["iterate"] == 3
    assert d["minimal"] == d["failures"][0] and d["notes"] == ["a note"] and d["strict"] is False
    assert (d["algorithm"], d["implementation"]) == ("snkp", "mine:snkp")
    assert d["counts"] == {"claim.separator": {FAIL: 1}, "answer.contract": {REFUSED: 1}}
    rep.minimal = None
    assert rep.as_dict()["minimal"] is None


def test_the_size_of_a_failure_orders_instances_and_puts_unknown_ones_last():
    f = lambda X: Failure("c", "m", "id", {} if X is None else {"X": X}, {}, {}, {})  # noqa: E731
    assert f([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).size == (2, 3)
    assert f([]).size == (0, 0)
    assert f(None).size == (10**9, 1)
    assert min([f(None), f([[1.0]] * 5), f([[1.0]] * 2)], key=lambda x: x.size).size == (2, 1)


def test_short_values_of_every_kind():
    from theorems.validate.report import _short

    assert _short(None) == "-"
    assert _short(0.123456789) == "0.123457"
    assert _short(7) == "7" and _short("max_iter") == "max_iter"
    assert _short([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]) == "[1, 2, 3, 4, 5, 6]"
    assert _short([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]) == "[1, 2, 3, 4, 5, 6, ...]"
    assert _short([0.123456]) == "[0.1235]"
    assert _short([123456, 2]) == "[1.235e+05, 2]"  # a vector of integers is shown as numbers, 4 digits
    assert _short(np.array([[1.5, 2.5]])) == "[1.5, 2.5]"  # an array of numbers: flattened
    assert _short([[1, 2], [3]]) == "[[1, 2], [3]]"
    assert _short([]) == "[]"
    assert _short({"a": 1, "b": None, "c": 0.5}) == "{a=1, b=-, c=0.5}"
