"""theorems/registry.py: the Verdict's kind, allowance and tightness."""

import math

from theorems import rp14  # noqa: F401  (registers the checks)
from theorems.registry import Verdict


def test_tightness_is_the_ratio_only_for_a_bound_with_sides_beyond_the_allowance():
    """A bound's tightness is its slack; a dichotomy or an identity has none (by the registered kind
    or the verdict's own); two sides that both lie within the allowance are round-off: no ratio."""
    assert Verdict("RP14.lemma4", True, 0.5, 1.0, 0.5, {}).tightness() == (0.5, "")
    assert Verdict("RP14.lemma6", True, 1, 1, math.nan, {}).tightness() == (None, "dichotomy")
    assert Verdict("RP14.example", True, 81, 81, 1.0, {}).tightness() == (None, "identity")
    assert Verdict("RP14.theorem2", True, 0.1, 0.2, 0.5, {}, kind="bound").tightness() == (0.5, "")
    noise = Verdict("RP14.lemma5", True, 8.5e-18, -1.5e-33, 5.5e15, {}, allowance=1e-9)
    assert noise.tightness() == (None, "both sides within the allowance")
    assert Verdict("RP14.lemma5", True, 0.5, -1.0, 2.5, {}, allowance=1e-9).tightness() == (2.5, "")


def test_within_allowance_marks_a_bound_holding_with_lhs_above_rhs():
    assert Verdict("PT11.eq5", True, 8.9e-13, -2.2e-16, 1.0, {}, allowance=2.7e-12).within_allowance()
    assert not Verdict("PT11.eq5", True, 0.1, 0.2, 0.5, {}).within_allowance()
    assert not Verdict("RP14.example", True, 81.0000001, 81, 1.0, {}).within_allowance()  # an identity


def test_as_dict_carries_kind_allowance_tightness_and_clause():
    d = Verdict("RP14.nvn", True, 1.0, 1.0, 1.0, {"instance": "x"}, allowance=3e-9, clause="decay at k = 0").as_dict()
    assert d["kind"] == "bound" and d["allowance"] == 3e-9 and d["tightness"] == 1.0 and d["clause"] == "decay at k = 0"
    assert Verdict("RP14.lemma6", True, 1, 1, math.nan, {}).as_dict()["tightness"] == "n/a (dichotomy)"
