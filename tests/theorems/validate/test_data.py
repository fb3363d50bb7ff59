"""Validation of PT11 implementations on a real data set (theorems.validate.data): a correct
implementation conforms; broken ones (feature indices off by one, a larger epsilon than claimed,
a wrong layout, an early stop) are rejected with the pattern index and both sides."""

from importlib import resources
from pathlib import Path

import numpy as np
import pytest

import reference as ref
from theorems.validate.data import validate_on_data
from theorems.instances.families import data_dir


@pytest.fixture(scope="module")
def heart():
    with resources.as_file(resources.files("reference.data_files") / "heart_scale.txt") as p:
        return ref.load_libsvm(p, n_features=13)


def _off_by_one(X, y, eps, **kw):  # reads feature j as feature j + 1
    C = X.tocsr().copy()
    C.indices = (C.indices + 1) % C.shape[1]
    C.sort_indices()
    return ref.pdm(C, y, eps, **kw)


def _lazy(X, y, eps, **kw):  # claims eps but stops at 0.5
    return ref.pdm(X, y, 0.5, **kw)


def test_correct_implementations_conform(heart):
    X, y = heart
    for alg, fn, acc in (("pdm", ref.pdm, 0.1), ("pfm", ref.pfm, 0.05), ("pdm_succ", ref.pdm_succ, 0.1)):
        r = validate_on_data(alg, fn, X, y, rho=1.0, Delta=1.0, epsilons=(acc,))
        assert r.conforms, r.format()
        assert {c.id for c in r.checks} >= {"answer.contract", "claim.separator", "guarantee.margin", "invariant.final"}
    r = validate_on_data("pdm", ref.pdm, X, y, rho=1.0, Delta=1.0, epsilons=(0.1,), kwargs={"multiple_updates": True})
    assert r.conforms, r.format()


def test_off_by_one_feature_indices_rejected(heart):
    X, y = heart
    r = validate_on_data("pdm", _off_by_one, X, y, rho=1.0, Delta=1.0, epsilons=(0.1,))
    assert not r.conforms
    bad = {c.id: c.detail for c in r.failures}
    assert "claim.separator" in bad and "is not > 0 beyond round-off" in bad["claim.separator"]
    assert "most violated is pattern" in bad["claim.separator"]
    assert bad["guarantee.margin"].startswith("pattern ") and "must be >= (1 - eps) gamma_d" in bad["guarantee.margin"]


def test_larger_epsilon_than_claimed_rejected(heart):
    X, y = heart
    r = validate_on_data("pdm", _lazy, X, y, rho=1.0, Delta=1.0, epsilons=(0.1,))
    assert [c.id for c in r.failures] == ["guarantee.margin"], r.format()
    d = r.failures[0].detail
    k = int(d.split()[1].rstrip(":"))
    P = ref.make_patterns(X, y, rho=1.0, Delta=1.0)
    w = _lazy(X, y, 0.1, rho=1.0, Delta=1.0).w
    assert k == int(np.argmin(P.matvec(w)))  # the named pattern is the one at fault
    assert f"{0.9 * r.margin.lower:.10e}" in d  # both sides


def test_contract_early_stop_and_count_invariant(heart):
    X, y = heart

    def short_w(X, y, eps, **kw):
        r = ref.pdm(X, y, eps, **kw)
        return {"status": r.status, "iterations": r.iterations, "w": r.w[:-1]}

    r = validate_on_data("pdm", short_w, X, y, rho=1.0, Delta=1.0)
    assert [c.id for c in r.failures] == ["answer.contract"] and "length 284" in r.failures[0].detail

    def early(X, y, eps, **kw):
        return {"status": "max_iter", "iterations": 5, "w": ref.pdm(X, y, eps, max_iter=5, rho=kw["rho"], Delta=kw["Delta"]).w}

    r = validate_on_data("pdm", early, X, y, rho=1.0, Delta=1.0)
    assert "claim.max_iter" in {c.id for c in r.failures}

    def miscounted(X, y, eps, **kw):
        r = ref.pdm(X, y, eps, **kw)
        return {"status": r.status, "iterations": r.iterations + 3, "w": r.w}

    r = validate_on_data("pdm", miscounted, X, y, rho=1.0, Delta=1.0)
    assert any(c.id == "invariant.final" and "sum to" in c.detail for c in r.failures), r.format()

    def raises(X, y, eps, **kw):
        raise RuntimeError("boom")

    r = validate_on_data("pdm", raises, X, y, Delta=1.0)
    assert r.failures[0].detail == "the call raised RuntimeError: boom"
    with pytest.raises(ValueError, match="PT11 algorithms"):
        validate_on_data("snkp", ref.snkp, X, y)


@pytest.mark.slow
def test_a9a_subset_if_present():
    path = (data_dir() or Path("no-data-dir")) / "a9a" / "a9a.gz"  # $MARGINS_DATA or ../shared/data
    if not path.is_file():
        pytest.skip("a9a not present")
    X, y = ref.load_libsvm(path)
    X, y = X[:2000], y[:2000]
    assert validate_on_data("pdm", ref.pdm, X, y, rho=1.0, Delta=1.0, epsilons=(0.3,)).conforms
    assert not validate_on_data("pdm", _off_by_one, X, y, rho=1.0, Delta=1.0, epsilons=(0.3,)).conforms


def test_answers_computed_elsewhere_on_a_named_data_file(tmp_path, heart):
    import json
    import shutil

    from theorems.validate.data import sha256_of, validate_data_answers

    with resources.as_file(resources.files("reference.data_files") / "heart_scale.txt") as p:
        shutil.copy(p, tmp_path / "heart.txt")
    X, y = heart
    good = ref.pdm(X, y, 0.1, rho=1.0, Delta=1.0)
    lazy = _lazy(X, y, 0.1, rho=1.0, Delta=1.0)
    doc = {"kind": "data-answers", "data": {"file": "heart.txt", "sha256": sha256_of(tmp_path / "heart.txt"), "n_features": 13},
           "answers": [{"algorithm": "pdm", "epsilon": 0.1, "rho": 1.0, "Delta": 1.0, "max_iter": 10**6, "status": r.status,
                        "iterations": r.iterations, "w": r.w.tolist()} for r in (good, lazy)]}
    f = tmp_path / "answers.json"
    f.write_text(json.dumps(doc))
    reports = validate_data_answers(f)
    assert reports[0].conforms and not reports[1].conforms
    assert [c.id for c in reports[1].failures] == ["guarantee.margin"]
    doc["data"]["sha256"] = "0" * 64
    f.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="does not match the document's"):
        validate_data_answers(f)
    doc["data"]["file"] = "missing.txt"
    f.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="not found beside"):
        validate_data_answers(f)


@pytest.mark.parametrize("answers", [[1], "abc", [], {"a": 1}, None, ["x"], [{"algorithm": "pdm"}],
                                     [{"algorithm": "pdm", "epsilon": "0.1"}], [{"algorithm": "svm", "epsilon": 0.1}],
                                     [{"algorithm": "pdm", "epsilon": 0.1, "max_iter": 1.5}],
                                     [{"algorithm": "pdm", "epsilon": 0.1, "rho": "one"}]])
def test_cli_data_answers_of_the_wrong_shape_is_one_line_naming_the_file(tmp_path, capsys, answers):
    """`answers` that is not a non-empty list of answer objects (a number, a string, an empty
    list, an answer without its accuracy) is refused in one line that names the document, with
    exit code 2: no traceback, and never silence (an empty list printed nothing and exited 1)."""
    import json
    import shutil

    from theorems import cli
    from theorems.validate.data import sha256_of

    with resources.as_file(resources.files("reference.data_files") / "heart_scale.txt") as p:
        shutil.copy(p, tmp_path / "heart.txt")
    doc = {"kind": "data-answers", "data": {"file": "heart.txt", "sha256": sha256_of(tmp_path / "heart.txt")}}
    if answers is not None:
        doc["answers"] = answers
    f = tmp_path / "answers.json"
    f.write_text(json.dumps(doc))
    assert cli.main(["validate", "--data-answers", str(f)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"margins validate: error: {f}: answers") or err.startswith(f'margins validate: error: {f}: "answers"')
    assert "Traceback" not in err and "AttributeError" not in err and "TypeError" not in err
    if not isinstance(answers, list) or not answers or not isinstance(answers[0], dict):
        assert '"kind": "data-answers"' in err  # the expected format


def test_non_separable_data_need_delta_or_a_budget(heart):
    X, y = heart
    with pytest.raises(ValueError, match="certified NOT separable"):
        validate_on_data("pdm", ref.pdm, X[:60], y[:60], epsilons=(0.3,))
    r = validate_on_data("pdm", ref.pdm, X[:60], y[:60], epsilons=(0.3,), max_iter=500)
    assert [c.id for c in r.checks] == ["answer.contract", "claim.max_iter", "run.converged"]
    assert not r.conforms and [c.id for c in r.failures] == ["run.converged"]  # no verdict: it never converged


def test_a_run_that_did_not_converge_is_never_conforms(heart):
    """On data the default budget does not suffice for, a correct and a broken PDM alike did not
    converge: the report says so and which checks could not run, and neither "conforms"."""
    X, y = heart
    for fn in (ref.pdm, _lazy):
        r = validate_on_data("pdm", fn, X, y, rho=1.0, Delta=1.0, epsilons=(0.01,), max_iter=50)
        head = r.format().splitlines()[0]
        assert not r.conforms and "1 of 1 runs did NOT converge" in head and "conforms" not in head, r.format()
        assert "guarantee.margin" in next(c.detail for c in r.failures if c.id == "run.converged")
    r = validate_on_data("pdm", ref.pdm, X, y, rho=1.0, Delta=1.0, epsilons=(0.1,))
    assert r.conforms and "every run converged" in r.summary()


def test_validate_with_data_and_the_cli(tmp_path, heart, capsys, monkeypatch):
    import json
    import shutil
    import sys

    from theorems import cli
    from theorems.validate import validate

    X, y = heart
    r = validate("pdm", _lazy, data=(X, y), Delta=1.0, epsilons=(0.1,))
    assert not r.conforms and r.failures[0].id == "guarantee.margin"
    with pytest.raises(ValueError, match="data must be a pair"):
        validate("pdm", ref.pdm, data=X)
    mod = tmp_path / "impls.py"
    mod.write_text(
        "import reference\n"
        "def good(X, y, eps, **kw):\n    return reference.pdm(X, y, eps, **kw)\n"
        "def lazy(X, y, eps, **kw):\n    return reference.pdm(X, y, 0.5, **kw)\n"
    )
    with resources.as_file(resources.files("reference.data_files") / "heart_scale.txt") as p:
        shutil.copy(p, tmp_path / "heart.txt")
    data = str(tmp_path / "heart.txt")
    assert cli.main(["validate", "pdm", f"{mod}:good", "--data", data, "--Delta", "1", "--epsilon", "0.1"]) == 0
    assert "conforms" in capsys.readouterr().out
    assert cli.main(["validate", "pdm", f"{mod}:lazy", "--data", data, "--Delta", "1", "--epsilon", "0.1", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out[0]["conforms"] is False and any(c["id"] == "guarantee.margin" and not c["passed"] for c in out[0]["checks"])


def test_cli_on_data_says_what_it_runs_and_reports_progress(tmp_path, capsys, monkeypatch):
    """`margins validate pdm reference:pdm --data a9a.gz --Delta 1` was silent for minutes (new-user
    trial): a notice on stderr first; the reference's textbook function reports its progress with
    `margins run`'s printer; another callable gets no `progress` keyword it did not ask for."""
    import shutil

    from theorems import cli

    with resources.as_file(resources.files("reference.data_files") / "heart_scale.txt") as p:
        shutil.copy(p, tmp_path / "heart.txt")
    data = str(tmp_path / "heart.txt")
    from theorems.cli_common import Progress

    monkeypatch.setattr("theorems.validate.cli.Progress", lambda name: Progress(name, after=0.0, every=0.0))  # every step
    assert cli.main(["validate", "pdm", "reference:pdm", "--data", data, "--Delta", "1", "--epsilon", "0.1"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("margins validate: certifying gamma_d of the 270 patterns, then calling reference:pdm(")
    assert "--kwargs '{\"engine\": \"fast\"}'" in err[0]
    assert len(err) > 1 and all(line.startswith("[pdm ") and "updates t = " in line for line in err[1:])
    mod = tmp_path / "impls.py"
    mod.write_text("import reference\ndef good(X, y, eps, **kw):\n    assert 'progress' not in kw\n"
                   "    return reference.pdm(X, y, eps, **kw)\n")
    assert cli.main(["validate", "pdm", f"{mod}:good", "--data", data, "--Delta", "1", "--epsilon", "0.1"]) == 0
    (line,) = capsys.readouterr().err.splitlines()
    assert f"calling {mod}:good(" in line and "engine" not in line


def test_the_default_budget_on_data_is_the_references_own_per_accuracy():
    """Without max_iter, each accuracy's run is handed the budget the reference's pdm takes by
    default (sized from the certified margin, reference.budgets), not one fixed number; and the
    reference run at that budget converges."""
    X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0], [0.5, 2.0]])
    y = np.array([1, 1, -1, -1, 1])
    seen = []

    def recording_pdm(X, y, eps, *, rho=1.0, Delta=None, max_iter):
        seen.append(max_iter)
        return ref.pdm(X, y, eps, rho=rho, Delta=Delta, max_iter=max_iter)

    report = validate_on_data("pdm", recording_pdm, X, y, epsilons=(0.5, 0.01))
    M = ref.margin_from_data(X, y, rho=1.0)
    want = [ref.budgets.default_budget("pdm", (X, y), e, margin=M, rho=1.0).max_iter for e in (0.5, 0.01)]
    assert seen == want and seen[0] < seen[1], (seen, want)
    assert report.conforms, report.format()


def _doc_error(tmp_path, answers):
    """The ValueError of validate_data_answers on a document with these ``answers``."""
    import json

    from theorems.validate.data import validate_data_answers

    f = tmp_path / "answers.json"
    f.write_text(json.dumps({"kind": "data-answers", "data": {"file": "none.txt", "sha256": "0" * 64}, "answers": answers}))
    with pytest.raises(ValueError) as e:
        validate_data_answers(f)
    return str(e.value).replace(f"{f}: ", "$: ")


def test_data_answers_are_checked_before_any_data_is_read(tmp_path):
    """Each answer names an algorithm of DATA_ALGORITHMS with its accuracy (epsilon in (0, 1] for
    PDM and PDM-succ, beta >= 0 for PFM), and rho, Delta > 0, max_iter an integer >= 0 when
    given; the message names the file, the answer and what is wrong -- before any data file is
    looked up."""
    from theorems.validate.data import DATA_ANSWERS_FORMAT

    fmt = f"expected {DATA_ANSWERS_FORMAT}"
    assert _doc_error(tmp_path, None) == f'$: "answers" must be a non-empty list of answer objects, got none (missing or null); {fmt}'
    assert _doc_error(tmp_path, []) == f'$: "answers" must be a non-empty list of answer objects, got an empty list; {fmt}'
    assert _doc_error(tmp_path, {"a": 1}) == f"$: \"answers\" must be a non-empty list of answer objects, got dict {{'a': 1}}; {fmt}"
    assert _doc_error(tmp_path, [{"algorithm": "pfm", "beta": 0.1}, 3]) == f"$: answers[1] must be an object, got int 3; {fmt}"
    assert _doc_error(tmp_path, [{"algorithm": "svm"}]) == "$: answers[0]: algorithm must be one of ['pdm', 'pdm_succ', 'pfm'], got 'svm'"
    assert _doc_error(tmp_path, [{"algorithm": "pdm", "epsilon": 0}]) == "$: answers[0] (pdm): epsilon must lie in (0, 1], got 0"
    assert _doc_error(tmp_path, [{"algorithm": "pdm_succ", "epsilon": 1.5}]) == "$: answers[0] (pdm_succ): epsilon must lie in (0, 1], got 1.5"
    assert _doc_error(tmp_path, [{"algorithm": "pfm", "beta": -1}]) == "$: answers[0] (pfm): beta must lie in [0, inf), got -1"
    assert _doc_error(tmp_path, [{"algorithm": "pdm", "epsilon": 0.1, "rho": -1}]) == "$: answers[0] (pdm): rho must lie in (0, inf), got -1"
    assert _doc_error(tmp_path, [{"algorithm": "pdm", "epsilon": 0.1, "Delta": -1}]) == "$: answers[0] (pdm): Delta must lie in (0, inf), got -1"
    assert "max_iter" in _doc_error(tmp_path, [{"algorithm": "pdm", "epsilon": 0.1, "max_iter": -1}])
    # valid answers (epsilon = 1, beta = 0 or 5, rho = 0.5, no Delta) pass to the data file's lookup
    for ok in ({"algorithm": "pdm", "epsilon": 1}, {"algorithm": "pfm", "beta": 0}, {"algorithm": "pfm", "beta": 5},
               {"algorithm": "pdm", "epsilon": 0.1, "rho": 0.5, "Delta": None, "max_iter": 0}):
        assert _doc_error(tmp_path, [ok]).startswith("data file 'none.txt' not found beside")


def test_sha256_of_is_the_digest_of_the_whole_file(tmp_path):
    """sha256_of reads the file in blocks: the digest of all its bytes (here 2.5 MiB)."""
    import hashlib

    from theorems.validate.data import sha256_of

    data = bytes(range(256)) * (10 * 1024)
    (tmp_path / "f").write_bytes(data)
    assert sha256_of(tmp_path / "f") == hashlib.sha256(data).hexdigest()
    (tmp_path / "e").write_bytes(b"")
    assert sha256_of(tmp_path / "e") == hashlib.sha256(b"").hexdigest()


def test_data_report_as_dict(heart):
    """as_dict: the verdict, the certified margin (lower, upper, m, d, nnz) and every check."""
    X, y = heart
    r = validate_on_data("pdm", ref.pdm, X, y, rho=1.0, Delta=1.0, epsilons=(0.1,))
    d = r.as_dict()
    assert d["algorithm"] == "pdm" and d["conforms"] is True
    assert d["margin"] == {"lower": r.margin.lower, "upper": r.margin.upper, "m": r.margin.m, "d": r.margin.d, "nnz": r.margin.nnz}
    assert d["checks"] == [{"id": c.id, "passed": c.passed, "detail": c.detail, "accuracy": 0.1} for c in r.checks]
    from theorems.validate.data import DataReport

    assert DataReport("pfm").as_dict() == {"algorithm": "pfm", "conforms": True, "margin": None, "checks": []}
