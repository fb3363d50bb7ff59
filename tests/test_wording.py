"""Outputs read as a person expects: names of columns, no ``nan`` in tables, no duplicate rows, no
200-digit integers in messages (issue 12)."""

import math

import numpy as np

from reference.margin import _count_text
from theorems import bounds
from theorems.cli import main as cli_main
from theorems.instances.families import make_instance


def test_check_table_names_tightness_and_prints_no_nan(capsys):
    assert cli_main(["check", "RP14.lemma1", "RP14.novikoff"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    assert "max tightness" in header and "slack" not in header
    assert "lhs (observed)" in header and "rhs (bound)" in header
    lemma1 = next(line for line in out.splitlines() if line.startswith("RP14.lemma1 "))
    assert "n/a (dichotomy)" in lemma1 and "nan" not in lemma1
    assert "1 = met with equality" in out  # the legend says which way is tight


def test_count_text_is_short_and_exact_when_small():
    assert _count_text(0) == "0" and _count_text(999_999_999) == "999999999"
    big = _count_text(math.comb(1605, 98))
    assert big == "about 7.1e+158"
    assert _count_text(10**9) == "about 1e+9" and _count_text(9_990_000_000) == "about 1e+10"
    assert len(_count_text(math.comb(100_000, 50_000))) < 20  # 30101 digits, still one short phrase


def _data_key(row):
    inst = make_instance(row["_task"]["spec"])
    X = np.ascontiguousarray(np.asarray(inst.X, dtype=float))
    return (X.tobytes(), np.asarray(inst.y).tobytes(), inst.kernel, row["args"])


def test_search_evaluates_no_instance_twice():
    """The explicit-data conversion is followed by a move of the points, so the search never
    re-evaluates the instance it started from (it used to: duplicate rows in the bounds table)."""
    tgt = bounds.get_target("snkp")
    tasks = bounds.sweep_tasks(tgt, families=["moons", "planted"], ns=[12], seeds=1, quick=True)
    rows = bounds.run_tasks(tasks)
    for t, r in zip(tasks, rows):
        r["_task"] = t
    found = bounds.search(tgt, rows, budget=24, seed=0)
    assert any(r["_task"]["spec"]["family"] == "explicit" for r in found)  # the move was exercised
    keys = [_data_key(r) for r in rows + found]
    assert len(keys) == len(set(keys))
