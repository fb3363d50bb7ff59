"""Validation of PT11 implementations on a real data set (theorems.validate.data): a correct
implementation conforms; broken ones (feature indices off by one, a larger epsilon than claimed,
a wrong layout, an early stop) are rejected with the pattern index and both sides."""

import math
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


# -- each check of a run on data, message by message (a three-point data set) -------------------------------

import scipy.sparse as sp  # noqa: E402

from theorems import paper_bounds  # noqa: E402
from theorems.validate import data as D  # noqa: E402

X3 = sp.csr_matrix(np.array([[2.0, 1.0], [1.5, 2.0], [-1.0, -2.0]]))
Y3 = np.array([1, 1, -1])


@pytest.fixture(scope="module")
def three():
    out = {}
    for Delta in (None, 1.0):
        P = ref.make_patterns(X3, Y3, rho=1.0, Delta=Delta)
        M = ref.margin_from_data(X3, Y3, rho=1.0, Delta=Delta)
        out[Delta] = (P, M)
    return out


def _checks(three, alg, acc, ans, Delta=None, max_iter=100):
    P, M = three[Delta]
    return {c.id: c for c in reversed(D._checks_one(alg, acc, ans, P, M, M.R, max_iter))}, D._checks_one(alg, acc, ans, P, M, M.R, max_iter)


def test_data_contract_names_every_problem(three):
    P, _ = three[None]
    first, allc = _checks(three, "pdm", 0.1, {"status": "done", "iterations": -1, "w": [1.0]})
    assert [c.id for c in allc] == ["answer.contract"] and not allc[0].passed
    assert allc[0].detail == ("status 'done' is not 'separator' or 'max_iter'; iterations -1 is not an integer >= 0; "
                              f"w must be a finite vector of length {P.dim} = d 2 + 1 (bias) + 0 (extended), got (1,)")  # fmt: skip
    assert "iterations True is not an integer" in _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": True, "w": [0, 0, 0]})[1][0].detail
    assert "iterations 2.0 is not an integer" in _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": 2.0, "w": [0, 0, 0]})[1][0].detail
    assert "got None" in _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": 2, "w": ["a", 1, 2]})[1][0].detail
    assert "got (3,)" in _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": 2, "w": [np.nan, 1, 2]})[1][0].detail
    P1, _ = three[1.0]
    ext = _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": 2, "w": [0, 0, 0]}, Delta=1.0)[1][0]
    assert ext.detail.endswith(f"w must be a finite vector of length {P1.dim} = d 2 + 1 (bias) + 3 (extended), got (3,)")

    class Obj:  # an answer as an object
        status, iterations, w = "max_iter", 100, np.zeros(3)

    assert _checks(three, "pdm", 0.1, Obj())[0]["answer.contract"].passed


def test_data_separator_claims_and_their_guarantee(three):
    P, M = three[None]
    good = ref.pdm(X3, Y3, 0.1, rho=1.0)
    first, allc = _checks(three, "pdm", 0.1, {"status": "separator", "iterations": good.iterations, "w": good.w})
    assert all(c.passed for c in allc) and [c.id for c in allc][:2] == ["answer.contract", "claim.separator"]
    assert first["claim.separator"].detail == "ok" and first["guarantee.margin"].detail == "ok"
    w = np.array([1.0, -1.0, 0.0])  # the patterns (2, 1, 1), (1.5, 2, 1), (1, 2, -1): P w = (1, -0.5, -1)
    first, _ = _checks(three, "pdm", 0.1, {"status": "separator", "iterations": 1, "w": w})
    assert not first["claim.separator"].passed and first["claim.separator"].detail.endswith(
        "(a.y_k > 0 must hold for every pattern; the most violated is pattern 2: a.y_2 = -1.000000e+00)")
    ach = -1.0 / np.sqrt(2.0)
    assert first["guarantee.margin"].detail == (f"pattern 2: min_k a.y_k/||a|| = a.y_2/||a|| = {ach:.10e} must be >= (1 - eps) gamma_d = "
                                                f"{0.9 * M.lower:.10e} [PT11 Sec. 3 / Thm. 1]")  # fmt: skip
    # PFM: > beta
    beta = 0.5 * M.lower
    f = ref.pfm(X3, Y3, beta, rho=1.0)
    assert all(c.passed for c in _checks(three, "pfm", beta, {"status": "separator", "iterations": f.iterations, "w": f.w})[1])
    first, _ = _checks(three, "pfm", 10.0, {"status": "separator", "iterations": f.iterations, "w": f.w})
    assert not first["guarantee.margin"].passed and "must be > beta = 1.0000000000e+01" in first["guarantee.margin"].detail
    z = _checks(three, "pdm", 0.1, {"status": "separator", "iterations": 1, "w": np.zeros(3)})[0]
    assert "guarantee.margin" not in z and not z["claim.separator"].passed  # the zero vector: no margin to compute


def test_data_max_iter_claims(three):
    first, allc = _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": 7, "w": np.array([2.0, 1.0, 1.0])}, max_iter=10)
    assert first["claim.max_iter"].detail == "'max_iter' after t = 7 < max_iter = 10 updates: stopped early without a claim"
    assert not first["run.converged"].passed and first["run.converged"].detail == (
        "'max_iter' after t = 7 updates (max_iter = 10): the run did not converge, so guarantee.margin (and claim.separator) "
        "could not be checked -- no verdict on the implementation; raise --max-iter")
    first, allc = _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": 10, "w": np.array([2.0, 1.0, 1.0])}, max_iter=10)
    assert first["claim.max_iter"].passed and first["claim.max_iter"].detail == "ok"
    over = [c for c in _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": 12, "w": np.array([2.0, 1.0, 1.0])}, max_iter=10)[1]
            if c.id == "claim.max_iter"]  # fmt: skip
    assert [c.passed for c in over] == [True, False]
    assert over[1].detail == "'max_iter' after t = 12 updates, above the budget max_iter = 10 it was given"


def test_data_bound_and_count_invariants(three):
    P, M = three[None]
    bound = paper_bounds.pdm_theorem2(M.R, M.lower, 0.1)
    w = np.array([2.0, 1.0, 1.0]) * 100
    t = int(bound) + 5
    first, _ = _checks(three, "pdm", 0.1, {"status": "separator", "iterations": t, "w": w})
    assert first["bound.iterations"].detail == f"t = {t} updates must be <= {bound:.6g} [PT11 Thm. 2]"
    assert _checks(three, "pdm", 0.1, {"status": "separator", "iterations": int(bound) + 1, "w": w})[0]["bound.iterations"].passed
    first, _ = _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": 10**9, "w": w}, max_iter=10**9)
    assert first["bound.iterations"].detail == f"'max_iter' after t = {10**9} updates, but PT11 Thm. 2 guarantees convergence within {bound:.6g} <= max_iter"
    assert "bound.iterations" not in _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": 3, "w": w}, max_iter=3)[0]
    assert "bound.iterations" not in _checks(three, "pfm", 0.1, {"status": "separator", "iterations": t, "w": w})[0]
    small = np.array([2.0, 1.0, 1.0]) * 0.01
    first, _ = _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": 5, "w": small}, max_iter=5)
    ratio = float(np.linalg.norm(small)) / 5
    assert first["invariant.final"].detail == f"||a_t||/t = {ratio:.10e} must be >= gamma_d >= {M.lower:.10e} [PT11 eq. (4)]"
    assert "invariant.final" not in _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": 0, "w": small}, max_iter=0)[0]


def test_data_extended_space_counts(three):
    P, M = three[1.0]
    good = ref.pdm(X3, Y3, 0.1, rho=1.0, Delta=1.0)
    first, allc = _checks(three, "pdm", 0.1, {"status": good.status, "iterations": good.iterations, "w": good.w}, Delta=1.0)
    assert all(c.passed for c in allc)
    w = good.w.copy()
    w[P.d0 + 1] += 0.5 * Y3[1]
    first, allc = _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": good.iterations, "w": w}, Delta=1.0,
                          max_iter=good.iterations)  # fmt: skip
    (bad,) = [c for c in allc if c.id == "invariant.final" and not c.passed]
    counts = w[P.d0:] / (1.0 * Y3)
    assert bad.detail == (f"pattern 1: a_ext[1]/(Delta l_1) = {counts[1]!r} must be a nonnegative integer "
                          "(the number of updates with y_{j}, PT11 Sec. 5)")  # fmt: skip
    w = good.w.copy()
    w[P.d0] += 1.0 * Y3[0]  # one more update counted than t says
    (bad,) = [c for c in _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": good.iterations, "w": w}, Delta=1.0,
                                 max_iter=good.iterations)[1] if c.id == "invariant.final" and not c.passed]  # fmt: skip
    assert bad.detail == f"the update counts of the extended coordinates sum to {good.iterations + 1}, but t = {good.iterations}"


def test_data_report_text(three):
    P, M = three[None]
    rep = D.DataReport("pdm", margin=M)
    rep.checks = [D.DataCheck("answer.contract", True, "ok", 0.1), D.DataCheck("claim.separator", True, "ok", 0.1)]
    head = f"pdm on data (m = 3, d = 2, nnz = 6; certified gamma_d in [{M.lower!r}, {M.upper!r}]): "
    assert rep.conforms and rep.format() == head + "conforms (2 checks passed, every run converged)" and rep.summary() == rep.format()
    rep.checks.append(D.DataCheck("run.converged", False, "did not converge", 0.2))
    assert rep.format() == head + "no check failed; 1 of 2 runs did NOT converge (their margin guarantee could not be checked): not conforming" \
        + "\n  FAIL run.converged (accuracy 0.2): did not converge"  # fmt: skip
    rep.checks.append(D.DataCheck("guarantee.margin", False, "too small", 0.1))
    lines = rep.format().split("\n")
    assert lines[0] == head + "1 of 4 checks FAIL; 1 of 2 runs did NOT converge (their margin guarantee could not be checked): not conforming"
    assert lines[1:] == ["  FAIL run.converged (accuracy 0.2): did not converge", "  FAIL guarantee.margin (accuracy 0.1): too small"]
    assert rep.summary() == lines[0] and [c.id for c in rep.failures] == ["run.converged", "guarantee.margin"]
    d = rep.as_dict()
    assert d["conforms"] is False and d["margin"] == {"lower": M.lower, "upper": M.upper, "m": 3, "d": 2, "nnz": 6}
    assert d["checks"][-1] == {"id": "guarantee.margin", "passed": False, "detail": "too small", "accuracy": 0.1}
    assert D.DataReport("pdm").as_dict()["margin"] is None


def test_validate_on_data_refuses_bad_arguments_and_reports_a_crash():
    with pytest.raises(ValueError, match=r"validation on data covers \['pdm', 'pdm_succ', 'pfm'\] \(the PT11 algorithms\), got 'snkp'"):
        validate_on_data("snkp", ref.snkp, X3, Y3)
    with pytest.raises(ValueError, match=r"fn must be a callable fn\(X, y, epsilon"):
        validate_on_data("pdm", "ref.pdm", X3, Y3)
    with pytest.raises(ValueError, match=r"epsilon"):
        validate_on_data("pdm", ref.pdm, X3, Y3, epsilons=(0.0,))
    validate_on_data("pfm", ref.pfm, X3, Y3, epsilons=(2.0,), max_iter=50)  # beta has no upper limit

    def boom(X, y, eps, **kw):
        raise RuntimeError("no")

    rep = validate_on_data("pdm", boom, X3, Y3, epsilons=(0.1, 0.2))
    assert [(c.id, c.passed, c.detail, c.accuracy) for c in rep.checks] == [
        ("answer.contract", False, "the call raised RuntimeError: no", 0.1), ("answer.contract", False, "the call raised RuntimeError: no", 0.2)]
    got = []

    def spy(X, y, eps, **kw):
        got.append((eps, kw))
        return ref.pdm(X, y, eps, **{k: v for k, v in kw.items() if k != "extra"})

    validate_on_data("pdm", spy, X3, Y3, epsilons=(0.3,), max_iter=77, kwargs={"extra": 1})
    assert got == [(0.3, {"rho": 1.0, "Delta": None, "max_iter": 77, "extra": 1})]


def test_every_passing_check_on_data_says_ok(three):
    for Delta in (None, 1.0):
        good = ref.pdm(X3, Y3, 0.1, rho=1.0, Delta=Delta)
        _, allc = _checks(three, "pdm", 0.1, {"status": "separator", "iterations": good.iterations, "w": good.w}, Delta=Delta)
        assert [c.id for c in allc] == ["answer.contract", "claim.separator", "guarantee.margin", "bound.iterations", "invariant.final"] + (
            ["invariant.final"] if Delta else [])
        assert all(c.passed and c.detail == "ok" for c in allc), allc
    _, allc = _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": 0, "w": np.zeros(3)}, max_iter=0)
    assert [(c.id, c.passed, c.detail) for c in allc][:2] == [("answer.contract", True, "ok"), ("claim.max_iter", True, "ok")]
    assert "invariant.final" not in {c.id for c in allc}  # t = 0: no ||a_t||/t
    _, allc = _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": 1, "w": np.array([2.0, 1.0, 1.0])}, max_iter=1)
    assert ("invariant.final", True, "ok") in [(c.id, c.passed, c.detail) for c in allc]  # t = 1 is checked


def test_validate_on_data_argument_messages_and_accuracy_ranges():
    with pytest.raises(ValueError, match=r"^fn must be a callable fn\(X, y, epsilon, rho=\.\.\., Delta=\.\.\., max_iter=\.\.\.\)$"):
        validate_on_data("pdm", None, X3, Y3)
    twice = sp.csr_matrix(np.array([[1.0, 0.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match=r"^the data are certified NOT separable \(Gordan\): PT11's algorithms cannot converge on "
                                         r"them; pass Delta \(the extended space of PT11 Sec\. 5\) or an explicit max_iter$"):
        validate_on_data("pdm", ref.pdm, twice, np.array([1, -1]))
    for bad in (0.0, 1.5):
        with pytest.raises(ValueError, match="epsilon"):
            validate_on_data("pdm", ref.pdm, X3, Y3, epsilons=(bad,), max_iter=10)
    assert validate_on_data("pdm", ref.pdm, X3, Y3, epsilons=(1.0,), max_iter=50).checks[0].passed  # eps = 1 is allowed
    rep = validate_on_data("pfm", lambda X, y, b, **kw: {"status": "max_iter", "iterations": 5, "w": np.zeros(3)}, X3, Y3,
                           epsilons=(0.0,), max_iter=5)  # beta = 0 is allowed  # fmt: skip
    assert rep.checks[0].id == "answer.contract" and rep.checks[0].passed


@pytest.mark.parametrize("rho, Delta", [(1.0, None), (None, None), (1.0, 2.0)])
def test_validate_on_data_runs_with_the_patterns_and_the_references_budget(rho, Delta):
    from reference.budgets import default_budget

    got = []

    def spy(X, y, eps, **kw):
        got.append(kw)
        return ref.pdm(X, y, eps, **kw)

    rep = validate_on_data("pdm", spy, X3, Y3, rho=rho, Delta=Delta, epsilons=(0.2,))
    M = ref.margin_from_data(X3, Y3, rho=rho, Delta=Delta)
    want = default_budget("pdm", (X3, Y3), 0.2, margin=M, rho=rho, Delta=Delta).max_iter
    assert got == [{"rho": rho, "Delta": Delta, "max_iter": want}]
    assert rep.conforms, rep.format()
    P = ref.make_patterns(X3, Y3, rho=rho, Delta=Delta)
    assert rep.margin.lower == M.lower and P.dim == 2 + (rho is not None) + (3 if Delta else 0)


def test_data_answers_end_to_end_on_a_small_file(tmp_path):
    import json

    data_dir = tmp_path / "data"
    data_dir.mkdir()
    f = data_dir / "three.libsvm"
    f.write_text("+1 1:2 2:1\n+1 1:1.5 2:2\n-1 1:-1 2:-2\n")
    X, y = ref.load_libsvm(f, n_features=3)
    assert X.shape == (3, 3)  # n_features 3 pads a column: the answers' w have that layout
    answers = []
    for extra in ({}, {"rho": None}, {"rho": 1.0, "Delta": 2.0}):
        rho, Delta = extra.get("rho", 1.0), extra.get("Delta")
        res = ref.pdm(X, y, 0.2, rho=rho, Delta=Delta, max_iter=1000)
        answers.append({"algorithm": "pdm", "epsilon": 0.2, "max_iter": 1000, "status": res.status, "iterations": res.iterations,
                        "w": res.w.tolist(), **extra})  # fmt: skip
    doc = {"kind": "data-answers", "data": {"file": "three.libsvm", "sha256": D.sha256_of(f), "n_features": 3}, "answers": answers}
    p = tmp_path / "answers.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"not found beside .* or in --data-dir; pass --data-dir DIR"):
        D.validate_data_answers(p)
    reps = D.validate_data_answers(p, data_dir)
    assert len(reps) == 3 and all(r.conforms for r in reps), [r.format() for r in reps]
    assert [r.margin.d for r in reps] == [3, 3, 3] and reps[1].margin.lower != reps[0].margin.lower  # rho None: other patterns
    bad = dict(answers[0], w=answers[0]["w"][:-1])
    p.write_text(json.dumps(dict(doc, answers=[bad])))
    (r,) = D.validate_data_answers(p, data_dir)
    assert not r.conforms and r.checks[0].id == "answer.contract"


def test_data_answers_documents_refused_with_the_reason(tmp_path):
    import json

    p = tmp_path / "a.json"
    p.write_text("{not json")
    with pytest.raises(ValueError, match=rf"^{p}: not a readable JSON document \("):
        D.validate_data_answers(p)
    for doc in ({"kind": "answers", "data": {}}, {"kind": "data-answers", "data": "x"}, [1, 2]):
        p.write_text(json.dumps(doc))
        with pytest.raises(ValueError) as exc:
            D.validate_data_answers(p)
        assert str(exc.value) == f"{p}: expected {D.DATA_ANSWERS_FORMAT}"
    ok = [{"algorithm": "pdm", "epsilon": 0.1, "status": "max_iter", "iterations": 1, "w": [0.0]}]
    for data in ({"file": "x.libsvm"}, {"sha256": "ab"}, {"file": "x.libsvm", "sha256": 12}, {"file": 3, "sha256": "ab"}):
        p.write_text(json.dumps({"kind": "data-answers", "data": data, "answers": ok}))
        with pytest.raises(ValueError) as exc:
            D.validate_data_answers(p)
        assert str(exc.value) == f'{p}: "data" needs "file" (a file name) and "sha256" (hex)'


def _write_answers(tmp_path, answers):
    import json

    f = tmp_path / "three.libsvm"
    f.write_text("+1 1:2 2:1\n+1 1:1.5 2:2\n-1 1:-1 2:-2\n")
    doc = {"kind": "data-answers", "data": {"file": "three.libsvm", "sha256": D.sha256_of(f), "n_features": 2}, "answers": answers}
    p = tmp_path / "answers.json"
    p.write_text(json.dumps(doc))
    return p


def test_data_answers_without_max_iter_are_held_to_the_references_default_budget(tmp_path):
    """An answer that names no max_iter was run with the reference's own default for its accuracy
    (reference.budgets.default_budget on the same patterns): 'max_iter' at exactly that budget is
    honest, one update short is an early stop; a named max_iter is the budget."""
    from reference.budgets import default_budget

    M = ref.margin_from_data(X3, Y3, rho=1.0, Delta=1.0)
    budget = default_budget("pdm", (X3, Y3), 0.2, margin=M, rho=1.0, Delta=1.0).max_iter
    w = [0.0] * 6
    base = {"algorithm": "pdm", "epsilon": 0.2, "Delta": 1.0, "status": "max_iter", "w": w}
    p = _write_answers(tmp_path, [dict(base, iterations=budget), dict(base, iterations=budget - 1),
                                  dict(base, iterations=7, max_iter=7), dict(base, iterations=6, max_iter=7)])
    reps = D.validate_data_answers(p)
    assert [r.algorithm for r in reps] == ["pdm"] * 4
    early = [[c.detail for c in r.checks if c.id == "claim.max_iter" and not c.passed] for r in reps]
    assert early == [[], [f"'max_iter' after t = {budget - 1} < max_iter = {budget} updates: stopped early without a claim"],
                     [], ["'max_iter' after t = 6 < max_iter = 7 updates: stopped early without a claim"]]
    # PDM gets its update bound; the margin is that of rho = 1 (the default) with Delta
    assert all(any(c.id == "bound.iterations" for c in r.checks) for r in reps[:1])
    assert reps[0].margin.lower == M.lower and reps[0].margin.upper == M.upper
    plain = D.validate_data_answers(_write_answers(tmp_path, [{"algorithm": "pdm", "epsilon": 0.2, "status": "max_iter",
                                                               "iterations": 3, "max_iter": 3, "w": [0.0] * 3}]))[0]
    assert plain.margin.lower == ref.margin_from_data(X3, Y3, rho=1.0).lower


def test_data_answers_refuse_a_negative_max_iter(tmp_path):
    p = _write_answers(tmp_path, [{"algorithm": "pdm", "epsilon": 0.2, "status": "max_iter", "iterations": 1, "max_iter": -1, "w": [0.0] * 3}])
    with pytest.raises(ValueError, match=r"(^|[^\w])max_iter must be an integer >= 0, got -1"):
        D.validate_data_answers(p)


def test_an_answer_object_without_w_is_a_contract_failure_naming_the_missing_vector(three):
    class NoW:
        status, iterations = "separator", 3

    (c,) = D._checks_one("pdm", 0.1, NoW(), *three[None], three[None][1].R, 100)
    assert c.id == "answer.contract" and not c.passed and c.detail.endswith("got None")


def test_data_guarantee_allowance_is_relative(three):
    """The achieved margin is held to (1 - eps) gamma_d (PDM) or beta (PFM) within MARGIN_RTOL
    relative: at exactly the guarantee it passes."""
    P, M = three[None]
    w = np.array([1.0, 0.0, 0.0])  # P w = (2, 1.5, 1): a separator of margin 1 < gamma_d = 2.12
    ach = float(np.min(P.matvec(w)))
    assert ach == 1.0 and M.lower > 2
    ans = {"status": "separator", "iterations": 1, "w": w}
    assert _checks(three, "pfm", ach, ans)[0]["guarantee.margin"].passed
    assert not _checks(three, "pfm", ach * (1 + 1e-6), ans)[0]["guarantee.margin"].passed
    eps = 1.0 - ach / M.lower
    assert _checks(three, "pdm", eps, ans)[0]["guarantee.margin"].passed
    assert not _checks(three, "pdm", eps - 1e-6, ans)[0]["guarantee.margin"].passed
    small = 0.5 * w  # ||a|| = 1/2: the guarantee is still checked
    assert "guarantee.margin" in _checks(three, "pdm", 0.1, dict(ans, w=small))[0]


def test_data_bound_check_at_its_edges(three):
    """t <= bound + 1 for a separator (a passing check says 'ok'); a 'max_iter' fails the bound only
    when the budget reaches bound + 1; every PT11 run with t > 0 gets ||a_t||/t >= gamma_d."""
    P, M = three[None]
    bound = paper_bounds.pdm_theorem2(M.R, M.lower, 0.1)
    assert bound % 1 != 0
    w = np.array([2.0, 1.0, 1.0]) * 100
    sep = {"status": "separator", "w": w}
    ok = _checks(three, "pdm", 0.1, dict(sep, iterations=math.floor(bound) + 1))[0]["bound.iterations"]
    assert ok.passed and ok.detail == "ok"
    bad = _checks(three, "pdm", 0.1, dict(sep, iterations=math.floor(bound) + 2))[0]["bound.iterations"]
    assert not bad.passed and bad.detail.startswith(f"t = {math.floor(bound) + 2} updates must be <=")
    mi = {"status": "max_iter", "w": w}
    for budget, fails in ((math.floor(bound), False), (math.floor(bound) + 1, False), (math.floor(bound) + 2, True)):
        first = _checks(three, "pdm", 0.1, dict(mi, iterations=budget), max_iter=budget)[0]
        assert ("bound.iterations" in first and not first["bound.iterations"].passed) is fails, budget
    assert "invariant.final" in _checks(three, "pdm", 0.1, dict(sep, iterations=3))[0]
    # the same at a margin below 1 (the points scaled by 1/10)
    X = X3 * 0.1
    P, M = ref.make_patterns(X, Y3, rho=1.0), ref.margin_from_data(X, Y3, rho=1.0)
    assert 0 < M.lower < 1
    ids = {c.id for c in D._checks_one("pdm", 0.1, dict(sep, iterations=3), P, M, M.R, 100)}
    assert {"bound.iterations", "invariant.final"} <= ids


def test_data_extended_counts_negative_integers_and_relative_allowance(three):
    P, M = three[1.0]
    good = ref.pdm(X3, Y3, 0.1, rho=1.0, Delta=1.0)

    def count_failure(counts):
        w = good.w.copy()
        w[P.d0:] = np.asarray(counts, dtype=float) * Y3
        allc = _checks(three, "pdm", 0.1, {"status": "max_iter", "iterations": int(round(sum(counts))), "w": w}, Delta=1.0,
                       max_iter=int(round(sum(counts))))[1]  # fmt: skip
        return [c.detail for c in allc if c.id == "invariant.final" and not c.passed and c.detail.startswith("pattern")]

    assert count_failure([3.0, 1.0, 1.0]) == []
    assert count_failure([6.0, -1.0, 0.0]) != []  # an integer, but negative
    assert count_failure([1000.0 + 5e-4, 2.0, 1.0]) == []  # 1e-6 relative of 1000
    assert count_failure([1000.0 + 5e-3, 2.0, 1.0]) != []
    assert count_failure([3.0, 1.0, 1.5e-6]) != []  # absolute 1e-6 below 1
    assert count_failure([3.0, 1.0, 0.5e-6]) == []


def test_data_checks_at_a_margin_not_certified_positive(three):
    """A lower end of exactly 0 (separability not certified) gives no PT11 update bound and no
    ||a_t||/t >= gamma_d statement: both need gamma_d > 0."""
    import dataclasses

    P, M = three[None]
    M0 = dataclasses.replace(M, lower=0.0, separable=None)
    ids = {c.id for c in D._checks_one("pdm", 0.1, {"status": "separator", "iterations": 3, "w": np.array([2.0, 1.0, 1.0])}, P, M0, M.R, 100)}
    assert "bound.iterations" not in ids and "invariant.final" not in ids and "claim.separator" in ids


def test_data_answers_without_rho_are_checked_on_the_patterns_of_rho_1(tmp_path):
    """rho absent means the reference's default, 1 (a bias by augmentation): on data that need the
    bias (+1 at x = 2, -1 at x = 1) the certified margin is that of rho = 1, not of another rho."""
    import json

    f = tmp_path / "line.libsvm"
    f.write_text("+1 1:2\n-1 1:1\n")
    X, y = ref.load_libsvm(f, n_features=1)
    M1, M2 = ref.margin_from_data(X, y, rho=1.0), ref.margin_from_data(X, y, rho=2.0)
    assert M1.lower != M2.lower
    doc = {"kind": "data-answers", "data": {"file": "line.libsvm", "sha256": D.sha256_of(f), "n_features": 1},
           "answers": [{"algorithm": "pdm", "epsilon": 0.2, "status": "max_iter", "iterations": 3, "max_iter": 3, "w": [0.0, 0.0]}]}
    p = tmp_path / "answers.json"
    p.write_text(json.dumps(doc))
    (rep,) = D.validate_data_answers(p)
    assert (rep.margin.lower, rep.margin.upper) == (M1.lower, M1.upper)
