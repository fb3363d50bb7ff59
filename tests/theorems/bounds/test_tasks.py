"""theorems/bounds/tasks.py: one task -> one row; round-off sides give no ratio."""

import dataclasses
import math

import pytest

from theorems import bounds, rp14
from theorems.bounds.tasks import roundoff
from theorems.instances.suite import load_checks
from theorems.registry import REGISTRY, Verdict


def test_roundoff_is_two_sides_within_a_positive_floor():
    assert roundoff(8.5e-18, -1.5e-33, 1e-9)
    assert not roundoff(8.5e-18, -0.5, 1e-9)
    assert not roundoff(0.0, 0.0, 0.0)  # no floor: exact sides (integer counts) keep their ratio


def test_a_check_row_with_both_sides_round_off_has_no_ratio(monkeypatch):
    """RP14.lemma5 on a regular simplex: observed 8.5e-18 against a bound of -1.5e-33, both far
    below the check's allowance -- a 'ratio' of 5.5e15 between two round-off values.  The row keeps
    the sides and the verdict, says why it has no ratio, and is not ranked."""
    load_checks()
    noise = Verdict("RP14.lemma5", True, 8.5e-18, -1.5e-33, 5.5e15, {"instance": "x"}, allowance=1e-9)
    monkeypatch.setitem(REGISTRY, "RP14.lemma5", dataclasses.replace(REGISTRY["RP14.lemma5"], func=lambda inst, **kw: noise))
    row = bounds.evaluate_task({"target": "RP14.lemma5", "spec": {"family": "regular", "d": 2, "shape": "simplex"}, "args": {}})
    assert row["observed"] == 8.5e-18 and row["bound"] == -1.5e-33 and row["status"] == "holds"
    assert math.isnan(row["ratio"]) and row["floor"] == 1e-9
    assert row["note"].startswith("no ratio: observed and bound both within the round-off floor")
    assert not bounds.beaten(row)


def test_regular_simplex_rows_of_lemma5_are_round_off_and_other_rows_keep_their_ratio():
    """The real thing: SNKP on a regular simplex starts in W (||p_k||_G = 0 and L_mu = 0 up to
    round-off at every iterate), so RP14.lemma5 has no ratio there; on a planted instance it has one."""
    noise = bounds.evaluate_task({"target": "RP14.lemma5", "spec": {"family": "regular", "d": 2, "shape": "simplex"}, "args": {}})
    assert noise["status"] == "holds" and math.isnan(noise["ratio"]), noise
    real = bounds.evaluate_task({"target": "RP14.lemma5", "spec": {"family": "planted", "n": 8, "d": 3, "margin": 0.3, "spread": 0.2}, "args": {}})
    assert 0 < real["ratio"] <= 1 and real["ratio"] == pytest.approx(rp14.slack(real["observed"], real["bound"]), rel=1e-12)
