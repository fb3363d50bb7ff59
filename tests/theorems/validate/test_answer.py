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
