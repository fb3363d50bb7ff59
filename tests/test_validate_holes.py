"""The harness's holes of issue 13, each pinned by a test that failed before the fix: partial
answers, the Perceptron's rule, the report (iterate side by side, zero vector, every failing
case), a hanging implementation, hypothesis' hidden state, a missing counter and refusals.
"""

import json
import subprocess
import sys
import time
from types import SimpleNamespace

import numpy as np
import pytest

import reference
from theorems import cli
from theorems.validate import corpus, validate, validate_answers, write_answers
from theorems.validate.checks import check_claim, evaluate
from theorems.validate.report import REFUSED
from theorems.validate.search import _hypothesis_search
from theorems.validate.report import Report
from tests.mutants import rp14_perceptrons as rp


# -- 1. partial answers ----------------------------------------------------------------------------


def test_partial_answers_fail_unless_a_subset_is_asked_for(tmp_path, capsys):
    path = write_answers(tmp_path / "answers.json", reference.nvn, "nvn")
    doc = json.loads(path.read_text())
    n = len(doc["answers"])
    doc["answers"] = doc["answers"][:3]
    path.write_text(json.dumps(doc))
    (r,) = validate_answers(path)
    assert not r.conforms and r.failed_checks == ["answer.contract"]
    assert len(r.failing["answer.contract"]) == n - 3 and r.cases == n
    assert "not answered" in r.format() and f"{n - 3} of {n}" in r.summary()
    (r,) = validate_answers(path, subset=True)
    assert r.conforms and r.cases == 3 and any("--subset" in x for x in r.notes)
    assert cli.main(["validate", "--answers", str(path)]) == 1
    assert cli.main(["validate", "--answers", str(path), "--subset"]) == 0


# -- 3. the Perceptron's rule ------------------------------------------------------------------------


def test_rule_reaches_the_implementation():
    seen = []

    def perceptron(X, y, *, rule="cyclic", max_iter=100, trace=False):
        seen.append(rule)
        return reference.perceptron(X, y, rule=rule, max_iter=max_iter, trace=trace)

    r = validate("perceptron", perceptron, budget=0)
    assert r.conforms, r.format()
    assert {"cyclic", "most_violated"} <= set(seen)
    case = next(c for c in corpus("perceptron") if c.case_id.endswith("seed=11)/rule=most_violated"))
    assert case.reference["iterations"] == 712  # the reference's most-violated run (cyclic: fewer)


@pytest.mark.parametrize("mutant", [rp.perceptron_ignores_rule, rp.perceptron_cyclic_restarts])
def test_rule_breaking_perceptrons_rejected(mutant):
    r = validate("perceptron", mutant, budget=0)
    assert not r.conforms and "invariant.trace" in r.failed_checks, r.summary()
    assert "rule" in r.failures[0].message


def test_strict_holds_a_perceptron_to_the_rule_it_claims():
    """Without a trace only --strict sees that the rule is ignored; a Perceptron that takes no
    ``rule`` claims none: its most-violated cases are skipped, not failed."""
    assert validate("perceptron", rp.perceptron_ignores_rule_untraced, budget=0).conforms
    r = validate("perceptron", rp.perceptron_ignores_rule_untraced, budget=0, strict=True)
    assert not r.conforms and r.failed_checks == ["strict.trajectory"]
    assert any("most_violated" in cid for cid, _ in r.failing["strict.trajectory"])
    r = validate("perceptron", reference.perceptron, budget=0, strict=True)
    assert r.conforms and not any("near-tie" in n for n in r.notes), r.format()
    bare = validate("perceptron", lambda X, y, max_iter=100, trace=False: reference.perceptron(X, y, max_iter=max_iter), budget=0)
    assert bare.conforms and bare.counts["answer.contract"].get("skip", 0) >= 10


# -- 4. reports ----------------------------------------------------------------------------------------


def test_side_by_side_at_the_failing_iterate():
    r = validate("perceptron", rp.perceptron_cyclic_restarts, budget=0)
    f = r.failures[0]
    assert f.iterate is not None and f.iterate >= 1 and f"at iterate {f.iterate}" in f.format()
    case = next(c for c in corpus("perceptron") if c.case_id == f.case_id)
    mine = rp.perceptron_cyclic_restarts(case.X, case.y, max_iter=case.max_iter, trace=True)["trace"][f.iterate]["w"]
    ref = reference.perceptron(case.X, case.y, max_iter=case.max_iter, trace=True).trace[f.iterate].w
    assert np.array_equal(f.implementation["w"], mine) and np.array_equal(f.reference["w"], ref)
    assert not np.array_equal(f.implementation["w"], f.reference["w"])


def test_zero_vector_message_tells_zero_from_zero_g_norm():
    case = next(c for c in corpus("snkp") if "antipodal,same-label" in c.case_id)
    assert np.allclose(case.G @ [0.5, 0.5], 0)
    (res,) = check_claim(case, {"status": "separator", "alpha": np.array([0.5, 0.5])})
    assert res.outcome == "fail" and "nonzero" in res.message and "is the zero vector" not in res.message
    (res,) = check_claim(case, {"status": "separator", "alpha": np.zeros(2)})
    assert res.outcome == "fail" and "is the zero vector" in res.message


def test_text_report_lists_every_failing_case_with_counts():
    r = validate("perceptron", rp.perceptron_off_by_one, budget=0)
    text = r.format()
    cases = r.failing["invariant.final"]
    assert len(cases) >= 3
    assert f"invariant.final failed on {len(cases)} of {r.cases} cases" in text
    assert f"on {len(cases)} of {r.cases} cases" in r.summary()
    assert all(cid in text for cid, _ in cases)


# -- 5. a hanging implementation ----------------------------------------------------------------------


def _hangs(G, **kw):
    while True:  # ignores max_iter: its own (endless) budget
        time.sleep(0.01)


def test_hanging_implementation_stops_at_the_first_timeout():
    t0 = time.perf_counter()
    r = validate("snkp", _hangs, budget=20, timeout=0.3)
    assert time.perf_counter() - t0 < 5
    assert not r.conforms and r.cases == 1 and "timeout" in r.notes[0]
    assert "no answer within" in r.failures[0].message


def test_hypothesis_search_stops_at_the_first_timeout_without_shrinking():
    calls = []

    def hangs_on_drawn(G, **kw):
        calls.append(1)
        _hangs(G)

    t0 = time.perf_counter()
    f = _hypothesis_search("snkp", hangs_on_drawn, Report("snkp", "x", True), examples=20, seed=0, strict=False, timeout=0.2)
    assert time.perf_counter() - t0 < 5 and len(calls) == 1
    assert f is not None and not f.shrunk and "no answer within" in f.message


@pytest.mark.slow
def test_hanging_pdm_rejected_within_a_minute_at_the_default_timeout():
    """The issue's case: a PDM that ignores max_iter and forgets the bias was rejected after 380 s
    (a 20 s timeout per case, then shrinking); now the first timeout ends the run."""
    from tests.mutants import pt11 as mpt

    t0 = time.perf_counter()
    r = validate("pdm", mpt.pdm_own_budget_no_bias)
    assert not r.conforms and time.perf_counter() - t0 < 60
    assert any("stopped at the first timeout" in n for n in r.notes)


# -- 6. the verdict does not depend on the directory or on what was imported ---------------------------


def _drawn(seed=0):
    seen = []

    def snkp(G, **kw):
        seen.append(np.asarray(G).tobytes())
        return reference.snkp(G, **kw)

    _hypothesis_search("snkp", snkp, Report("snkp", "x", True), examples=8, seed=seed, strict=False)
    return seen


def test_draws_do_not_depend_on_imported_local_modules(tmp_path, monkeypatch):
    first = _drawn()
    mod = tmp_path / "consts_module_i13.py"
    mod.write_text("".join(f"C{i} = {0.1 + i / 7:.17g}\nN{i} = {1000 + 37 * i}\n" for i in range(200)))
    monkeypatch.syspath_prepend(str(tmp_path))
    import consts_module_i13  # noqa: F401 -- hypothesis would mix these constants into its draws

    assert _drawn() == first
    assert _drawn(seed=3) != first


def test_validate_writes_nothing_in_the_current_directory(tmp_path):
    script = "from theorems.validate import validate; import reference; print(validate('nkp', reference.nkp, budget=3).summary().split(':')[1].split('(')[0])"
    outs = []
    for d in ("a", "b"):
        cwd = tmp_path / d
        cwd.mkdir()
        p = subprocess.run([sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        assert list(cwd.iterdir()) == []
        outs.append(p.stdout)
    assert outs[0] == outs[1]


def test_database_only_where_the_user_points(tmp_path):
    db = tmp_path / "db"
    r = validate("nkp", rp.nkp_theta_off, budget=5, database=db)
    assert not r.conforms and (db / "examples").is_dir()


# -- 7. a real library: no counter, refusals, --skip-flags ------------------------------------------


def _epochs_only(X, y, *, max_iter=100, trace=False):
    """Reports no update counter (iterations=None), as a library that counts epochs."""
    res = reference.perceptron(X, y, max_iter=max_iter)
    return SimpleNamespace(status=res.status, iterations=None, w=res.w)


def test_missing_counter_skips_the_bound_checks():
    r = validate("perceptron", _epochs_only, budget=3)
    assert r.conforms, r.format()
    assert r.counts["bound.iterations"].get("skip", 0) > 0 and "pass" not in r.counts["bound.iterations"]
    case = next(c for c in corpus("perceptron") if c.bound is not None)
    res = evaluate(case, {"status": "separator", "iterations": None, "w": -case.reference["w"]})
    assert any(x.id == "claim.separator" and x.outcome == "fail" for x in res)  # the claim is still checked


def _refuses_one_point(X, y, *, max_iter=100, trace=False):
    if np.asarray(X).shape[0] < 2:
        raise ValueError("need at least 2 samples")
    return reference.perceptron(X, y, max_iter=max_iter, trace=trace)


def test_refusals_are_reported_apart_and_can_be_skipped(capsys):
    r = validate("perceptron", _refuses_one_point, budget=0)
    assert not r.conforms and r.failed_checks == [] and r.refusals
    assert {c for c, _, _ in r.refusals} >= {"perceptron/deg:n1", "perceptron/deg:n1,d1"}
    assert all("n1" in fl for c, fl, _ in r.refusals)
    assert "refused" in r.summary() and "--skip-flags" in r.summary() and "wrong" not in r.summary()
    assert r.counts["answer.contract"].get(REFUSED)
    r = validate("perceptron", _refuses_one_point, budget=5, skip_flags=("n1",))
    assert r.conforms and r.cases > 0 and any("--skip-flags n1" in n for n in r.notes), r.format()


def test_cli_skip_flags(capsys):
    assert cli.main(["validate", "perceptron", "tests.test_validate_holes:_refuses_one_point", "--budget", "0"]) == 1
    assert "refused" in capsys.readouterr().out
    assert cli.main(["validate", "perceptron", "tests.test_validate_holes:_refuses_one_point", "--budget", "2", "--skip-flags", "n1"]) == 0


def test_sklearn_perceptron_worked_example():
    """The README's worked example: scikit-learn's Perceptron (an optional dependency)."""
    pytest.importorskip("sklearn")
    from tests import sklearn_adapter as sk

    r = validate("perceptron", sk.perceptron, budget=5, skip_flags=("one_class",))
    assert r.conforms, r.format()
    assert r.counts["bound.iterations"].get("skip") and "pass" not in r.counts["bound.iterations"]
    r = validate("perceptron", sk.perceptron, budget=0)
    assert not r.conforms and r.failed_checks == [] and all("one_class" in fl for _, fl, _ in r.refusals)
    # --strict: the same trajectory wherever it converges; it counts epochs, so it cannot stop
    # after exactly max_iter updates: budget-exhausted runs end elsewhere
    r = validate("perceptron", sk.perceptron, budget=0, strict=True, skip_flags=("one_class",))
    cases = {c.case_id: c for c in corpus("perceptron")}
    assert r.failed_checks == ["strict.trajectory"]
    assert all(cases[cid].reference["status"] == "max_iter" for cid, _ in r.failing["strict.trajectory"])
    r = validate("perceptron", sk.perceptron_defaults, budget=0, skip_flags=("one_class",))
    assert not r.conforms and r.failed_checks == ["bound.iterations"] and "guarantees termination" in r.failures[0].message


def test_zoo_partial_answers_file_rejected(capsys):
    """The zoo's answers file: correct answers, but to 3 cases of the corpus only."""
    from pathlib import Path

    path = Path(__file__).parent / "mutants" / "partial_answers.json"
    assert len(json.loads(path.read_text())["answers"]) == 3
    assert cli.main(["validate", "--answers", str(path)]) == 1
    assert "not answered" in capsys.readouterr().out
    assert cli.main(["validate", "--answers", str(path), "--subset"]) == 0


def test_real_data_tier_linear_sonar(tmp_path):
    """The issue's real-data case: linear sonar (rho_K ~ 3.6e-5; the reference separates at
    k = 47,149).  As a case with a budget that reaches it (``make_case(..., cap=60_000)``, then
    ``--cases DIR``) the max-shift softmax SNKP fails (NaN) and the reference conforms."""
    from theorems.instances import families
    from theorems.validate import make_case, write_corpus
    from tests.mutants import rp14_smoothed as sm

    if "sonar" not in families.real_available():
        pytest.skip("the LIBSVM sonar data set is not available")
    case = make_case("snkp", families.real_data("sonar", 208), cap=60_000)
    assert case.reference["status"] == "separator" and case.reference["iterations"] > 40_000
    write_corpus(tmp_path, "snkp", [case])
    with np.errstate(all="ignore"):
        r = validate("snkp", sm.snkp_max_shift_softmax, budget=0, cases_dir=tmp_path)
    assert not r.conforms and r.failed_checks == ["answer.contract"] and "not finite" in r.failures[0].message
    assert validate("snkp", reference.snkp, budget=0, cases_dir=tmp_path).conforms
