"""Tests of theorems/validate/test_files.py."""

import functools
import json
from pathlib import Path

import pytest

import reference
from theorems import cli
from theorems.validate import corpus, export_cases, validate_answers, validate_trace, write_answers, write_corpus
from theorems.validate.schema import schema_text


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


@functools.lru_cache(maxsize=None)
def _reference_answers(directory, algorithm):
    return write_answers(Path(directory) / f"{algorithm}.json", getattr(reference, algorithm), algorithm).read_text()


def _answers(tmp_path, *algorithms, name="answers.json", **extra):
    """The reference's answers to the corpus of each algorithm, in one answers document."""
    docs = [json.loads(_reference_answers(str(tmp_path.parent), a)) for a in algorithms]
    doc = {**docs[0], "answers": [x for d in docs for x in d["answers"]], **extra}
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path, doc


def test_one_report_per_algorithm_answered_named_by_the_implementation(tmp_path):
    """An answers document may answer several algorithms: one report each, in the order first
    answered, each counting its own cases; the report names the document's "implementation" (or,
    without one, the file)."""
    path, doc = _answers(tmp_path, "nvn", "perceptron", implementation="my-solver 1.0")
    reports = validate_answers(path)
    assert [r.algorithm for r in reports] == ["nvn", "perceptron"]
    assert all(r.conforms and r.failures == [] and r.minimal is None and not r.strict for r in reports)
    assert [r.cases for r in reports] == [len(corpus("nvn")), len(corpus("perceptron"))]
    assert all(r.implementation == "my-solver 1.0" and 0 < r.seconds < 600 for r in reports)
    assert reports[0].summary().startswith(f"my-solver 1.0 conforms to reference.nvn: {len(corpus('nvn'))} cases")
    del doc["implementation"]
    path.write_text(json.dumps(doc))
    assert [r.implementation for r in validate_answers(path, strict=True)] == [str(path)] * 2
    assert all(r.strict for r in validate_answers(path, strict=True))


def test_answers_are_judged_case_by_case_and_the_smallest_failure_is_shown(tmp_path):
    """A wrong answer fails the check at fault on its case; the report keeps the first failure of
    each check and shows the smallest failing instance."""
    path, doc = _answers(tmp_path, "nvn")
    cases = {c.case_id: c for c in corpus("nvn")}
    seps = [a for a in doc["answers"] if a["status"] == "separator"]
    small, big = min(seps, key=lambda a: cases[a["case_id"]].X.size), max(seps, key=lambda a: cases[a["case_id"]].X.size)
    for a in (big, small):  # an implementation that gives up on every separable case
        a["status"] = "max_iter"
    path.write_text(json.dumps(doc))
    (r,) = validate_answers(path)
    assert not r.conforms and "claim.max_iter" in r.failed_checks
    assert {cid for cid, _ in r.failing["claim.max_iter"]} == {small["case_id"], big["case_id"]}
    assert len({f.check for f in r.failures}) == len(r.failures)  # the first failure of each check
    assert r.minimal is not None and r.minimal.case_id == small["case_id"] and r.minimal.check == r.failures[0].check
    assert r.cases == len(cases)


def test_an_unknown_case_id_fails_the_contract(tmp_path):
    """An answer to a case the corpus does not have is a contract failure naming the id; the
    other answers are judged as usual."""
    path, doc = _answers(tmp_path, "nvn")
    doc["answers"].insert(0, {"case_id": "nvn/no-such-case", "status": "max_iter", "iterations": 0})
    path.write_text(json.dumps(doc))
    (r,) = validate_answers(path)
    assert not r.conforms and r.failed_checks == ["answer.contract"] and r.cases == len(corpus("nvn"))  # the others still judged
    assert r.failing["answer.contract"] == [("nvn/no-such-case", "unknown case id 'nvn/no-such-case'")]
    assert [(f.check, f.case_id, f.message) for f in r.failures] == [
        ("answer.contract", "nvn/no-such-case", "unknown case id 'nvn/no-such-case'")]
    f = r.failures[0].as_dict()  # no instance to show: empty records, never the minimal one while another has an instance
    assert (f["instance"], f["arguments"], f["reference"], f["implementation"]) == ({}, {}, {}, {})


def test_answers_documents_that_cannot_be_judged_are_refused(tmp_path):
    """No answer, or a case id that names no algorithm: a ValueError saying so."""
    p = tmp_path / "a.json"
    p.write_text(json.dumps({"schema_version": 1, "kind": "answers", "answers": []}))
    with pytest.raises(ValueError, match=r'a.json: "answers" is empty: no case answered; expected \{"schema_version": 1'):
        validate_answers(p)
    p.write_text(json.dumps({"schema_version": 1, "kind": "answers", "answers": [{"case_id": "svm/x", "status": "max_iter", "iterations": 0}]}))
    with pytest.raises(ValueError, match=r"^case id 'svm/x' does not start with an algorithm name$"):
        validate_answers(p)
    p.write_text(json.dumps({"schema_version": 1, "kind": "answers", "answers": [{"case_id": "nvnx", "status": "max_iter", "iterations": 0}]}))
    with pytest.raises(ValueError, match="case id 'nvnx' does not start"):
        validate_answers(p)


def test_flags_skipped_and_subsets_are_stated(tmp_path):
    """--skip-flags: unanswered cases of those edge-case classes are not required (a note says how
    many); --subset: the unanswered cases are not checked (a note says how many of how many, and one)."""
    path, doc = _answers(tmp_path, "nvn")
    cases = {c.case_id: c for c in corpus("nvn")}
    n1 = [cid for cid, c in cases.items() if "n1" in c.flags]
    doc["answers"] = [a for a in doc["answers"] if a["case_id"] not in n1]
    path.write_text(json.dumps(doc))
    (r,) = validate_answers(path, skip_flags=["n1"])
    assert r.conforms and r.cases == len(cases) - len(n1)
    assert r.notes == [f"--skip-flags n1: {len(n1)} unanswered cases not required"]
    (r,) = validate_answers(path, skip_flags=["n1", "d1"])
    assert r.conforms and r.notes == [f"--skip-flags d1,n1: {len(n1)} unanswered cases not required"]
    (r,) = validate_answers(path)
    assert not r.conforms and sorted(cid for cid, _ in r.failing["answer.contract"]) == sorted(n1) and r.cases == len(cases)
    assert {msg for _, msg in r.failing["answer.contract"]} == {
        "not answered: every case of the corpus needs an answer (check a subset explicitly with --subset)"}
    assert [f.check for f in r.failures] == ["answer.contract"]
    assert r.failures[0].message == (f"{len(n1)} of {len(cases)} cases not answered: every case of the corpus needs an answer "
                                     "(check a subset explicitly with --subset)") and r.failures[0].case_id == n1[0]
    f = r.failures[0].as_dict()
    assert (f["instance"], f["arguments"], f["reference"], f["implementation"]) == ({}, {}, {}, {})
    (r,) = validate_answers(path, subset=True)
    assert r.conforms and r.notes == [f"--subset: {len(n1)} of {len(cases)} corpus cases not answered and not checked, e.g. {n1[0]}"]


def test_answers_against_an_exported_corpus(tmp_path):
    """``cases_dir``: the cases are read from the corpus files export-cases wrote; an algorithm
    without its file there is a ValueError that says how to write it."""
    d = tmp_path / "cases"
    assert export_cases(d, ["nvn"]) == [d / "nvn.json", d / "case_schema.json"]
    path, _ = _answers(tmp_path, "nvn")
    (r,) = validate_answers(path, d)
    assert r.conforms and r.cases == len(corpus("nvn"))
    path, _ = _answers(tmp_path, "perceptron", name="p.json")
    with pytest.raises(ValueError, match=f"^{d / 'perceptron.json'} does not exist; write the corpus with `margins export-cases {d}`$"):
        validate_answers(path, d)
    with pytest.raises(ValueError, match="unknown algorithm 'svm'"):
        export_cases(d, ["svm"])


def test_numbers_may_be_written_as_strings_and_traces_are_checked(tmp_path):
    """The case format's numbers may be strings ('inf', '1e-3'); an answer's "trace" holds the
    iterates the per-iterate checks judge."""
    d = tmp_path / "cases"
    write_corpus(d, "snkp", _few("snkp"))
    path = write_answers(tmp_path / "a.json", reference.snkp, "snkp", d, trace=True)
    doc = json.loads(path.read_text())
    a = next(x for x in doc["answers"] if x["status"] == "separator" and len(x.get("trace", ())) >= 3)
    assert all(None not in s.values() for x in doc["answers"] for s in x.get("trace", ()))
    a["alpha"] = [repr(float(v)) for v in a["alpha"]]
    path.write_text(json.dumps(doc))
    (r,) = validate_answers(path, d, subset=True)
    assert r.conforms, r.format()
    assert r.counts["invariant.trace"].get("pass", 0) >= 1
    a["trace"][1]["alpha"] = [2.0] + [0.0] * (len(a["alpha"]) - 1)  # an iterate off the simplex
    path.write_text(json.dumps(doc))
    (r,) = validate_answers(path, d, subset=True)
    assert not r.conforms and [cid for cid, _ in r.failing["invariant.trace"]] == [a["case_id"]]


def test_write_corpus_holds_the_cases_of_one_algorithm(tmp_path):
    """A corpus file: the cases of one algorithm, who wrote it, the reference's signature, beside
    a copy of the schema."""
    cases = corpus("nvn")[:2]
    p = write_corpus(tmp_path, "nvn", cases, generator="a test")
    doc = json.loads(p.read_text())
    assert p == tmp_path / "nvn.json" and doc["kind"] == "corpus" and doc["algorithm"] == "nvn" and doc["schema_version"] == 1
    assert doc["generator"] == "perceptron-margins a test" and doc["signature"].startswith("nvn(G, epsilon")
    assert [c["case_id"] for c in doc["cases"]] == [c.case_id for c in cases]
    assert (tmp_path / "case_schema.json").read_text(encoding="utf-8") == schema_text()
    assert json.loads(write_corpus(tmp_path / "new" / "dir", "nvn", cases).read_text())["generator"] == (
        "perceptron-margins theorems.validate.export_cases")
    with pytest.raises(ValueError, match="^unknown algorithm 'svm'$"):
        write_corpus(tmp_path, "svm", [])
    with pytest.raises(ValueError, match=r"^a corpus file holds the cases of one algorithm \('nvn'\)$"):
        write_corpus(tmp_path, "nvn", cases + corpus("nkp")[:1])


def _cyclic_only(X, y, *, rule="cyclic", max_iter=100, trace=False):
    """A Perceptron that takes a ``rule`` argument and ignores it (always cyclic)."""
    return reference.perceptron(X, y, rule="cyclic", max_iter=max_iter, trace=trace)


def test_a_case_that_names_its_rule_is_judged_under_that_rule(tmp_path):
    """A Perceptron case with a rule (…/rule=most_violated) is answered under that rule: a trace
    whose updates followed another rule fails there, and only there."""
    path = write_answers(tmp_path / "a.json", _cyclic_only, "perceptron", trace=True)
    (r,) = validate_answers(path)
    assert not r.conforms and r.failed_checks == ["invariant.trace"]
    assert all("/rule=most_violated" in cid and "rule 'most_violated'" in msg for cid, msg in r.failing["invariant.trace"])


def test_a_count_above_the_budget_fails_the_claim(tmp_path):
    """Every answer in a file was given the case's budget: iterations above max_iter fail claim.max_iter."""
    path, doc = _answers(tmp_path, "nvn")
    cases = {c.case_id: c for c in corpus("nvn")}
    a = next(a for a in doc["answers"] if a["status"] == "separator")
    a["iterations"] = cases[a["case_id"]].max_iter + 1
    path.write_text(json.dumps(doc))
    (r,) = validate_answers(path)
    assert [cid for cid, _ in r.failing["claim.max_iter"]] == [a["case_id"]]
    assert "above the budget max_iter" in r.failing["claim.max_iter"][0][1]


def _few(algorithm):
    """A few cases of the corpus of ``algorithm``: short runs, separators with several iterates among them."""
    return [c for c in corpus(algorithm) if c.max_iter <= 100 and c.n <= 9][:12]


def _trace_doc(tmp_path, *algorithms, cases_dir=None):
    """The reference's traces on the corpus of each algorithm, as a trace document."""
    traces = []
    for a in algorithms:
        doc = json.loads(write_answers(tmp_path / f"{a}.json", getattr(reference, a), a, cases_dir, trace=True).read_text())
        traces += [{"case_id": x["case_id"], "iterates": x["trace"]} for x in doc["answers"] if x.get("trace")]
    return {"schema_version": 1, "kind": "trace", "traces": traces}


def test_trace_documents_are_checked_iterate_by_iterate(tmp_path):
    """validate_trace: one report per algorithm traced (named by the file), every trace a case; a
    trace with an iterate that breaks an invariant fails invariant.trace on that case and shows
    it; a trace of a case the corpus does not have fails the contract."""
    d = tmp_path / "cases"
    for a in ("nvn", "snkp"):
        write_corpus(d, a, _few(a))
    doc = _trace_doc(tmp_path, "nvn", "snkp", cases_dir=d)
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(doc))
    reports = validate_trace(path, d)
    n = {a: sum(t["case_id"].startswith(a + "/") for t in doc["traces"]) for a in ("nvn", "snkp")}
    assert [(r.algorithm, r.cases, r.conforms, r.minimal, r.implementation) for r in reports] == [
        ("nvn", n["nvn"], True, None, str(path)), ("snkp", n["snkp"], True, None, str(path))]
    assert all(0 < r.seconds < 600 and r.counts["invariant.trace"] == {"pass": r.cases} for r in reports)
    bad = next(t for t in doc["traces"] if t["case_id"].startswith("snkp/") and len(t["iterates"]) >= 3)
    bad["iterates"][2]["alpha"] = [2.0] + [0.0] * (len(bad["iterates"][2]["alpha"]) - 1)  # off the simplex
    doc["traces"].append({"case_id": "nvn/no-such-case", "iterates": []})
    path.write_text(json.dumps(doc))
    nvn, snkp = validate_trace(path, d)
    assert not snkp.conforms and snkp.failed_checks == ["invariant.trace"] and snkp.cases == n["snkp"]
    assert [(f.check, f.case_id) for f in snkp.failures] == [("invariant.trace", bad["case_id"])]
    assert [cid for cid, _ in snkp.failing["invariant.trace"]] == [bad["case_id"]]
    assert (snkp.minimal.implementation["status"], snkp.minimal.implementation["iterations"]) == ("-", len(bad["iterates"]))
    assert snkp.minimal is snkp.failures[0] and "has a negative entry" not in snkp.minimal.message
    assert snkp.minimal.message.startswith(f"at iterate {bad['iterates'][2]['k']}: alpha sums to 2")
    assert not nvn.conforms and nvn.cases == n["nvn"] + 1 and nvn.failed_checks == ["answer.contract"]
    assert [(f.check, f.case_id, f.message) for f in nvn.failures] == [("answer.contract", "nvn/no-such-case", "unknown case id 'nvn/no-such-case'")]
    assert nvn.minimal is nvn.failures[0]
    f = nvn.minimal.as_dict()
    assert (f["instance"], f["arguments"], f["reference"], f["implementation"]) == ({}, {}, {}, {})


def test_traces_against_an_exported_corpus(tmp_path):
    """validate_trace reads the cases from ``cases_dir`` when given (an algorithm without its
    corpus file there is a ValueError)."""
    d = tmp_path / "cases"
    write_corpus(d, "snkp", _few("snkp"))
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(_trace_doc(tmp_path, "snkp", cases_dir=d)))
    (r,) = validate_trace(path, d)
    assert r.conforms and r.cases > 0
    path.write_text(json.dumps({"schema_version": 1, "kind": "trace", "traces": [{"case_id": corpus("nvn")[0].case_id, "iterates": []}]}))
    with pytest.raises(ValueError, match="nvn.json does not exist"):
        validate_trace(path, d)


def test_strict_holds_a_trace_to_the_references_iterates(tmp_path):
    """``strict``: layer 3 compares an answer's trace with the reference's, iterate by iterate --
    an NVN trace with one iterate replaced by another point of the simplex keeps every invariant
    of layer 2 but is not the reference's."""
    doc = json.loads(write_answers(tmp_path / "a.json", reference.nvn, "nvn", trace=True).read_text())
    a = next(a for a in doc["answers"] if a["case_id"] == "nvn/infeasible(random,d=3,n=6,seed=5)")
    a["trace"][1]["p"] = a["trace"][1]["p"][::-1]
    path = tmp_path / "one.json"
    path.write_text(json.dumps(dict(doc, answers=[a])))
    (r,) = validate_answers(path, subset=True)
    assert r.conforms, r.format()
    (r,) = validate_answers(path, subset=True, strict=True)
    assert not r.conforms and r.failed_checks == ["strict.trajectory"]


def test_only_an_answers_document_is_read_as_answers(tmp_path):
    """A corpus (or trace) document given as answers is refused, the message naming the file."""
    d = tmp_path / "cases"
    export_cases(d, ["nvn"])
    with pytest.raises(ValueError, match=f"^{d / 'nvn.json'}: expected a 'answers' document, got kind='corpus'$"):
        validate_answers(d / "nvn.json")
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schema_version": 1, "kind": "trace", "traces": []}))
    with pytest.raises(ValueError, match=f"^{p}: expected a 'answers' document, got kind='trace'$"):
        validate_answers(p)
    with pytest.raises(ValueError, match=f"^{d / 'nvn.json'}: expected a 'trace' document, got kind='corpus'$"):
        validate_trace(d / "nvn.json")


def test_export_cases_writes_every_algorithm_by_default(tmp_path, monkeypatch):
    """export_cases without algorithms: one corpus file for each of the ten, and the schema."""
    from theorems.validate import files
    from theorems.validate.case import ALGORITHMS

    monkeypatch.setattr(files, "corpus", lambda alg: [])  # the files, not the cases, are the point here
    assert export_cases(tmp_path) == [tmp_path / f"{a}.json" for a in ALGORITHMS] + [tmp_path / "case_schema.json"]
    assert all(json.loads((tmp_path / f"{a}.json").read_text())["algorithm"] == a for a in ALGORITHMS)


def test_a_cases_directory_holds_corpus_documents(tmp_path):
    """A file of ``cases_dir`` that is not a corpus document is refused, naming the file."""
    d = tmp_path / "cases"
    d.mkdir()
    (d / "nvn.json").write_text(_reference_answers(str(tmp_path.parent), "nvn"))
    path, _ = _answers(tmp_path, "nvn")
    with pytest.raises(ValueError, match=f"^{d / 'nvn.json'}: expected a 'corpus' document, got kind='answers'$"):
        validate_answers(path, d)


def _picky(X, y, *, max_iter=100, trace=False):
    """A Perceptron that takes no rule, fails on one-point data and always returns its trace."""
    if len(y) == 1:
        raise RuntimeError("needs two points")
    return reference.perceptron(X, y, max_iter=max_iter, trace=True)


def test_write_answers_writes_what_the_callable_answered(tmp_path):
    """write_answers: one answer per case the callable answered -- not the cases it failed on,
    nor those it cannot take (a rule it has no argument for) -- traces only when asked for, and
    the callable's name as the implementation."""
    doc = json.loads(write_answers(tmp_path / "a.json", _picky, "perceptron").read_text())
    cases = {c.case_id: c for c in corpus("perceptron")}
    assert doc["implementation"] == "tests.theorems.validate.test_files:_picky"
    assert [a["case_id"] for a in doc["answers"]] == [cid for cid, c in cases.items() if c.n > 1 and "rule" not in c.args]
    assert all("trace" not in a and set(a) == {"case_id", "status", "iterations", "alpha", "w", "p"} for a in doc["answers"])
    doc = json.loads(write_answers(tmp_path / "a.json", _picky, "perceptron", trace=True).read_text())
    assert all(a["trace"] and "w" in a["trace"][-1] for a in doc["answers"])


def test_the_minimal_failure_is_the_one_with_the_fewest_numbers(tmp_path):
    """Of the failing cases, the report shows the one whose X has the fewest entries (n d), the
    case id breaking ties; the report says how long the check took."""
    path, doc = _answers(tmp_path, "nvn")
    by_id = {a["case_id"]: a for a in doc["answers"]}
    A, B, C = "nvn/deg:d1,feasible", "nvn/deg:antipodal,opposite-labels", "nvn/infeasible(random,d=1,n=8,seed=3)"  # X: 3x1, 2x2, 8x1

    def judged(give_up, contract):
        d = json.loads(json.dumps(doc))
        ans = {a["case_id"]: a for a in d["answers"]}
        ans[give_up]["status"], ans[give_up]["iterations"] = "max_iter", 0  # gives up without a claim
        ans[contract]["p"] = by_id[contract]["p"] + [0.0]  # a vector of the wrong length
        path.write_text(json.dumps(d))
        (r,) = validate_answers(path)
        assert {f.case_id for f in r.failures} == {give_up, contract} and 0 < r.seconds < 600
        return r.minimal.case_id

    assert judged(A, B) == A  # 3 < 4 entries
    assert judged(C, B) == B  # 4 < 8 entries


def test_the_first_contract_failure_is_the_one_shown(tmp_path):
    """One failure per check: of an unknown id, a wrong answer and unanswered cases, all failing
    the contract, the report keeps the first (and counts every failing case)."""
    path, doc = _answers(tmp_path, "nvn")
    doc["answers"][3]["p"] = doc["answers"][3]["p"] + [0.0]  # the wrong length
    wrong = doc["answers"][3]["case_id"]
    doc["answers"] = [{"case_id": "nvn/no-such-case", "status": "max_iter", "iterations": 0}] + doc["answers"][:-1]
    path.write_text(json.dumps(doc))
    (r,) = validate_answers(path)
    assert [(f.check, f.case_id) for f in r.failures] == [("answer.contract", "nvn/no-such-case")]
    assert {cid for cid, _ in r.failing["answer.contract"]} == {"nvn/no-such-case", wrong, corpus("nvn")[-1].case_id}
