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
