"""Tests of theorems/validate/test_answer.py."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest

from tests.support.validate import TWICE
from theorems.instances.instance import Instance
from theorems.validate.answer import normalize_answer
from theorems.validate.case import CAP_NO_BOUND, make_case
from theorems.validate.checks import evaluate
from theorems.validate.report import FAIL


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


# -- what normalize_answer promises, field by field ---------------------------------------------------------


class _ResultLike:
    """An answer as an object with attributes (a Result of another library)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def test_an_object_and_a_mapping_with_the_same_fields_read_the_same():
    fields = {"status": "separator", "iterations": 7, "alpha": [0.25, 0.75], "w": [1.0, -2.0], "p": [0.5, 0.5]}
    a, b = normalize_answer(fields), normalize_answer(_ResultLike(**fields))
    assert a.keys() == b.keys() == {"status", "iterations", "alpha", "w", "p", "trace"}
    for key in ("status", "iterations", "trace"):
        assert a[key] == b[key]
    for key in ("alpha", "w", "p"):
        assert a[key].tolist() == b[key].tolist() == [float(x) for x in fields[key]]
    assert (a["status"], a["iterations"], a["trace"]) == ("separator", 7, None)


def test_missing_fields_read_as_none():
    for empty in ({}, _ResultLike(), object()):
        a = normalize_answer(empty)
        assert a == {"status": None, "iterations": None, "alpha": None, "w": None, "p": None, "trace": None}


def test_iterations_an_integral_number_becomes_an_int_anything_else_is_kept():
    assert normalize_answer({"iterations": 12.0})["iterations"] == 12
    assert type(normalize_answer({"iterations": 12.0})["iterations"]) is int
    assert type(normalize_answer({"iterations": np.int64(5)})["iterations"]) is int
    assert normalize_answer({"iterations": 2.5})["iterations"] == 2.5  # kept, so that a check can name it
    assert normalize_answer({"iterations": "ten"})["iterations"] == "ten"
    assert normalize_answer({"iterations": [3]})["iterations"] == [3]
    assert normalize_answer({"iterations": 0})["iterations"] == 0


def test_status_is_a_string_or_none():
    class Status:
        def __str__(self):
            return "certificate"

    assert normalize_answer({"status": "max_iter"})["status"] == "max_iter"
    assert normalize_answer({"status": Status()})["status"] == "certificate"
    assert normalize_answer({"status": 3})["status"] == "3"
    assert normalize_answer({"status": None})["status"] is None


def test_vectors_are_flattened_and_object_arrays_read_as_numbers():
    a = normalize_answer({"w": np.array([[1, 2], [3, 4]], dtype=np.int32), "p": np.array([Fraction(1, 2), 0.5], dtype=object),
                          "alpha": (1, 2, 3)})  # fmt: skip
    assert a["w"].shape == (4,) and a["w"].dtype == np.float64 and a["w"].tolist() == [1.0, 2.0, 3.0, 4.0]
    assert a["p"].dtype == np.float64 and a["p"].tolist() == [0.5, 0.5]
    assert a["alpha"].tolist() == [1.0, 2.0, 3.0]
    assert normalize_answer({"w": 3.0})["w"].tolist() == [3.0]  # a scalar: a vector of one


def test_the_first_vector_that_is_not_one_is_named_with_a_shortened_repr():
    long_bad = ["x" * 10] * 20
    a = normalize_answer({"alpha": [None, 1.0], "w": long_bad})
    assert a["error"].startswith("alpha = [None, 1.0] is not a vector")  # alpha first, then w, then p
    a = normalize_answer({"w": long_bad, "p": [None]})
    shown = a["error"].split(" is not a vector")[0][len("w = "):]
    assert len(shown) == 60 and shown.endswith("...") and shown[:57] == repr(long_bad)[:57]
    exact = ["a"] * 12  # repr of exactly 60 characters: shown whole
    assert len(repr(exact)) == 60
    assert normalize_answer({"p": exact})["error"] == f"p = {exact!r} is not a vector of numbers (return a 1-D array of floats, or None)"
    one_more = ["a"] * 11 + ["ab"]  # 61 characters: shortened
    assert normalize_answer({"p": one_more})["error"] == f"p = {repr(one_more)[:57]}... is not a vector of numbers (return a 1-D array of floats, or None)"
    assert normalize_answer({"p": ["a"] * 13})["error"].startswith(f"p = {repr(['a'] * 13)[:57]}... is not")


def test_trace_states_of_every_kind_read_as_dicts_of_the_known_fields():
    from dataclasses import dataclass

    @dataclass
    class DState:
        k: int
        alpha: list
        mu: float

    trace = [
        {"k": 0, "alpha": [1.0, 0.0], "mu": 2, "extra": "ignored"},
        DState(k=np.int64(1), alpha=[0.5, 0.5], mu=np.float32(0.5)),
        _ResultLike(t=2.0, a=[1.0, 1.0], q=[0.5, 0.5], p=[0.25, 0.75]),
        42,  # not a state: an empty dict
    ]
    tr = normalize_answer({"trace": trace})["trace"]
    assert [sorted(s) for s in tr] == [["alpha", "k", "mu"], ["alpha", "k", "mu"], ["p", "q", "t", "w"], []]
    assert tr[0]["k"] == 0 and type(tr[0]["k"]) is int and tr[0]["mu"] == 2.0 and type(tr[0]["mu"]) is float
    assert tr[0]["alpha"].tolist() == [1.0, 0.0]
    assert type(tr[1]["k"]) is int and tr[1]["k"] == 1 and tr[1]["mu"] == 0.5
    assert tr[2]["t"] == 2 and type(tr[2]["t"]) is int
    assert tr[2]["w"].tolist() == [1.0, 1.0]  # ``a`` (PT11's weight vector) is read as ``w``
    assert tr[2]["q"].tolist() == [0.5, 0.5] and tr[2]["p"].tolist() == [0.25, 0.75]


def test_trace_fields_that_are_not_numbers_are_left_out_not_guessed():
    (s,) = normalize_answer({"trace": [{"k": "one", "t": None, "mu": "big", "alpha": [None]}]})["trace"]
    assert "k" not in s and "t" not in s and "mu" not in s
    assert s["alpha"] is None  # a vector that is not one: None (the checks then name it missing)


def test_a_trace_that_is_not_a_sequence_reads_as_no_trace():
    assert normalize_answer({"trace": 5})["trace"] is None
    assert normalize_answer({"trace": []})["trace"] == []
    assert normalize_answer({"trace": ({"k": 1},)})["trace"] == [{"k": 1}]


def test_trace_states_that_are_slotted_dataclasses_read_their_fields():
    from dataclasses import dataclass

    @dataclass(frozen=True, slots=True)
    class Slotted:  # no __dict__: read through the dataclass fields
        k: int
        p: tuple

    (s,) = normalize_answer({"trace": [Slotted(3, (0.5, 0.5))]})["trace"]
    assert s["k"] == 3 and s["p"].tolist() == [0.5, 0.5]


def test_trace_states_with_w_alpha_p_q_keep_each_as_a_vector():
    (s,) = normalize_answer({"trace": [{"t": 1, "w": [1, 2], "alpha": [0, 1], "p": (0.5, 0.5), "q": [1.0]}]})["trace"]
    assert {k: v.tolist() for k, v in s.items() if k != "t"} == {"w": [1.0, 2.0], "alpha": [0.0, 1.0], "p": [0.5, 0.5], "q": [1.0]}
