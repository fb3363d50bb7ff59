"""Tests of theorems/validate/test_search.py."""

import time

from tests.support.validate import _hangs
from theorems.validate.report import Report
from theorems.validate.search import _hypothesis_search


def test_hypothesis_search_stops_at_the_first_timeout_without_shrinking():
    calls = []

    def hangs_on_drawn(G, **kw):
        calls.append(1)
        _hangs(G)

    t0 = time.perf_counter()
    f = _hypothesis_search("snkp", hangs_on_drawn, Report("snkp", "x", True), examples=20, seed=0, strict=False, timeout=0.2)
    assert time.perf_counter() - t0 < 5 and len(calls) == 1
    assert f is not None and not f.shrunk and "no answer within" in f.message
