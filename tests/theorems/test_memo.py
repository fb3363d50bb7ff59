"""No cache outlives a monkeypatch (theorems.memo): pt11's gamma_d, rp14's traces, the harness's
margins and corpora, and an Instance's G / margin -- each computed under broken reference code
is never served after the patch is undone, and a value cached before a patch is not served
under it.  Plus an order-dependent pair (a can_fail check, then its holds check), run in the order that once failed."""

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

import reference
from reference import dynamic_margin
from theorems import pt11, rp14
from theorems.instances import strategies as S
from theorems.memo import Memo, code_fingerprint
from theorems.validate import corpus
from theorems.validate.case import _margin


ROOT = Path(__file__).resolve().parents[2]


def test_a_can_fail_check_then_its_holds_check_pass_in_that_order():
    p = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly",
         "tests/quality/test_pt11_checks.py::test_extension_can_fail", "tests/theorems/test_pt11.py::test_extension_holds"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert p.returncode == 0, p.stdout[-2000:]


def test_fingerprint_follows_a_monkeypatch(monkeypatch):
    before = code_fingerprint()
    monkeypatch.setattr(dynamic_margin, "extend", lambda Z, y, Delta: Z)
    assert code_fingerprint() != before
    monkeypatch.undo()
    assert code_fingerprint() == before


#: mutmut 3's name of a mutant of reference.margins.bounds._lower, without its number
MUTANT_NAME = "reference.margins.bounds.x__lower__" + "mutmut_"


def test_fingerprint_follows_the_mutant_under_test(monkeypatch):
    """mutmut 3 selects a mutant behind the same callables by MUTANT_UNDER_TEST: a memo filled
    under one mutant (or the original code) must not answer for another."""
    monkeypatch.delenv("MUTANT_UNDER_TEST", raising=False)
    original = code_fingerprint()
    monkeypatch.setenv("MUTANT_UNDER_TEST", MUTANT_NAME + "1")
    first = code_fingerprint()
    monkeypatch.setenv("MUTANT_UNDER_TEST", MUTANT_NAME + "2")
    assert len({original, first, code_fingerprint()}) == 3
    monkeypatch.setenv("MUTANT_UNDER_TEST", "")
    assert code_fingerprint() == original


def test_gamma_d_cache(monkeypatch):
    inst = S.planted_separable(3, 2, 4, 0.2, seed=5)
    good = float(pt11.gamma_d(inst, Delta=1.0).lower)
    real = dynamic_margin.extend
    monkeypatch.setattr(dynamic_margin, "extend", lambda Z, y, Delta: real(Z, y, Delta / 2))
    broken = float(pt11.gamma_d(inst, Delta=1.0).lower)
    assert broken != good  # not served the value cached before the patch
    monkeypatch.undo()
    assert float(pt11.gamma_d(inst, Delta=1.0).lower) == good


def test_trace_cache(monkeypatch):
    inst = S.planted_separable(3, 2, 4, 0.2, seed=6)
    G = inst.G
    real = reference.snkp
    good = rp14._run(inst, "snkp-trace", lambda: reference.snkp(G, trace=True, max_iter=50), False)
    monkeypatch.setattr(reference, "snkp", lambda G, **kw: real(G, **dict(kw, max_iter=1)))
    broken = rp14._run(inst, "snkp-trace", lambda: reference.snkp(G, trace=True, max_iter=50), False)
    assert broken.iterations <= 1 < good.iterations
    monkeypatch.undo()
    assert rp14._run(inst, "snkp-trace", lambda: reference.snkp(G, trace=True, max_iter=50), False) is good


def test_validate_margin_and_corpus_caches(monkeypatch):
    K = S.planted_separable(3, 2, 4, 0.2, seed=7).G
    good = _margin(K)
    cases = {c.case_id: c.reference["iterations"] for c in corpus("nkp")}
    monkeypatch.setattr(reference, "margin", lambda M, **kw: SimpleNamespace(lower=-1.0, upper=-0.5))
    assert _margin(K) == (-1.0, -0.5) != good
    real_nkp = reference.nkp
    monkeypatch.setattr(reference, "nkp", lambda G, **kw: real_nkp(G, **dict(kw, max_iter=0)))
    assert {c.case_id: c.reference["iterations"] for c in corpus("nkp")} != cases
    monkeypatch.undo()
    assert _margin(K) == good
    assert {c.case_id: c.reference["iterations"] for c in corpus("nkp")} == cases


def test_instance_properties(monkeypatch):
    inst = S.planted_separable(3, 2, 4, 0.2, seed=8)
    good = float(inst.margin_G.lower)
    real = reference.gram
    monkeypatch.setattr(reference, "gram", lambda *a, **k: 2.0 * real(*a, **k))
    assert np.allclose(inst.G, 2.0 * real(inst.X, inst.y, "linear"))
    assert float(inst.margin_G.lower) != good
    monkeypatch.undo()
    assert float(inst.margin_G.lower) == good


def test_memo_is_bounded():
    m = Memo(maxsize=3)
    for i in range(5):
        assert m.get(i, lambda: i * i) == i * i
    assert len(m) == 3 and m.get(4, lambda: -1) == 16 and m.get(0, lambda: -1) == -1


def test_nothing_is_cached_while_a_mutation_tester_maps_tests_to_code(monkeypatch):
    from theorems.memo import Memo

    calls = []
    m = Memo(8)
    monkeypatch.setenv("MUTANT_UNDER_TEST", "stats")
    assert m.get("k", lambda: calls.append(1) or 1) == 1 and m.get("k", lambda: calls.append(2) or 2) == 2
    assert calls == [1, 2] and len(m) == 0
    monkeypatch.setenv("MUTANT_UNDER_TEST", "a mutant")
    assert m.get("k", lambda: 3) == 3 and m.get("k", lambda: 4) == 3 and len(m) == 1
