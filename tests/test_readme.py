"""The README's pytest example for the public strategies runs and passes as written, and its
tests reject a wrong solver (so the example is not an assert-nothing test)."""

import re
from pathlib import Path

import numpy as np
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _example() -> dict:
    text = README.read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if "test_my_solver.py" in b)
    namespace: dict = {}
    exec(compile(block, "README.md:test_my_solver.py", "exec"), namespace)
    return namespace


def test_readme_strategy_example_passes():
    ns = _example()
    ns["test_perceptron_separates_within_novikoff"]()
    ns["test_margin_is_the_planted_one"]()


def test_readme_strategy_example_rejects_a_wrong_solver():
    ns = _example()
    ns["my_margin"] = lambda G: 0.99 * float(np.min(np.diag(G)))  # not the margin
    with pytest.raises(AssertionError):
        ns["test_margin_is_the_planted_one"]()
    ns["my_perceptron"] = lambda X, y: (np.zeros(X.shape[1]), 0)  # claims nothing is needed
    with pytest.raises(AssertionError):
        ns["test_perceptron_separates_within_novikoff"]()
