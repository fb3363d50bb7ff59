"""theorems/bounds/targets.py: the targets of one statement agree."""

import json

from theorems import bounds
from theorems.bounds.targets import SAME_STATEMENT


def test_the_check_target_of_lemma7_evaluates_as_its_twin():
    """RP14.lemma7.printed (a registered check) and lemma7.printed (the explorer's target) are one
    statement: the same families, arguments and evaluation, so the summary cannot say REFUTED
    ratio 0.866 'not beaten' on one row and 1.035 beaten on the next.  On the chord counterexample
    both rows refute the printed form, exactly, and both hold for the corrected form."""
    spec = {"family": "chord", "n": 8, "margin": 0.002}
    assert SAME_STATEMENT == {"RP14.lemma7": "lemma7", "RP14.lemma7.printed": "lemma7.printed"}
    for cid, twin in SAME_STATEMENT.items():
        a, b = bounds.get_target(cid), bounds.get_target(twin)
        assert a.families == b.families and a.arg_grid == b.arg_grid and a.arg_ranges == b.arg_ranges
        ra = bounds.evaluate_task({"target": cid, "spec": spec, "args": {}})
        rb = bounds.evaluate_task({"target": twin, "spec": spec, "args": {}})
        assert {k: v for k, v in ra.items() if k != "target"} == {k: v for k, v in rb.items() if k != "target"}
        assert bounds.beaten(ra) == bounds.beaten(rb) == cid.endswith(".printed")
    row = bounds.evaluate_task({"target": "RP14.lemma7.printed", "spec": spec, "args": {}})
    assert row["status"].startswith("exact: FAILS") and row["ratio"] > 1.03
    assert json.loads(row["args"])["q"][:2] == ["1/2", "1/2"]
