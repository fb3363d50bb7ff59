"""Files in and out, for implementations in any language: write the corpus, read answers and
traces, write the reference's answers.
"""

from __future__ import annotations

import inspect
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional

import numpy as np

import reference

from .answer import normalize_answer, _state_dict
from .call import call_impl, edge_flags, _name_of
from .case import ALGORITHMS, Case
from .checks import check_trace, evaluate, _failure
from .corpus import corpus
from .report import CheckResult, FAIL, Failure, Report
from .schema import SCHEMA_VERSION, SHAPES, check_document, from_number, read_json, schema_text, write_json

# -- any language: export the corpus, check answers and traces ----------------------------------------


def _signature(algorithm: str) -> str:
    try:
        return f"{algorithm}{inspect.signature(getattr(reference, algorithm))}"
    except (TypeError, ValueError):  # pragma: no cover
        return algorithm


def write_corpus(directory, algorithm: str, cases: Iterable[Case], generator: str = "theorems.validate.export_cases") -> Path:
    """Write ``cases`` (all of ``algorithm``) as the corpus file ``<directory>/<algorithm>.json``
    (schema_version 1) beside a copy of ``case_schema.json``; returns the corpus path.  The one
    writer of the case format: :func:`export_cases` and ``margins bounds --search`` both use it."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}")
    cases = list(cases)
    if any(c.algorithm != algorithm for c in cases):
        raise ValueError(f"a corpus file holds the cases of one algorithm ({algorithm!r})")
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    doc = {
        "schema_version": SCHEMA_VERSION,
        "kind": "corpus",
        "algorithm": algorithm,
        "generator": f"perceptron-margins {generator}",
        "signature": _signature(algorithm),
        "cases": [c.to_json() for c in cases],
    }
    p = d / f"{algorithm}.json"
    write_json(p, doc)
    (d / "case_schema.json").write_text(schema_text(), encoding="utf-8")
    return p


def export_cases(directory, algorithms: Optional[Iterable[str]] = None) -> List[Path]:
    """Write the corpus: ``<directory>/<algorithm>.json`` for each algorithm (schema_version 1)
    and a copy of ``case_schema.json``.  Returns the paths written."""
    paths = []
    for alg in (list(algorithms) if algorithms else ALGORITHMS):
        if alg not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {alg!r}")
        paths.append(write_corpus(directory, alg, corpus(alg)))
    paths.append(Path(directory) / "case_schema.json")
    return paths


def _load_cases(algorithms: Iterable[str], cases_dir=None) -> Dict[str, Case]:
    out: Dict[str, Case] = {}
    for alg in sorted(set(algorithms)):
        if cases_dir is not None:
            path = Path(cases_dir) / f"{alg}.json"
            if not path.is_file():
                raise ValueError(f"{path} does not exist; write the corpus with `margins export-cases {cases_dir}`")
            doc = read_json(path)
            check_document(doc, "corpus", source=str(path))
            for c in doc["cases"]:
                out[c["case_id"]] = Case.from_json(c)
        else:
            for c in corpus(alg):
                out[c.case_id] = c
    return out


def _algorithm_of(case_id: str) -> str:
    alg = case_id.split("/", 1)[0]
    if alg not in ALGORITHMS:
        raise ValueError(f"case id {case_id!r} does not start with an algorithm name")
    return alg


def _from_file_answer(a: dict) -> Dict[str, Any]:
    ans = normalize_answer({k: (np.asarray([from_number(x) for x in v], dtype=np.float64) if isinstance(v, list) and k in ("alpha", "w", "p") else v)
                            for k, v in a.items()})
    if isinstance(a.get("trace"), list):
        ans["trace"] = [_state_dict({k: (np.asarray([from_number(x) for x in v]) if isinstance(v, list) else v) for k, v in s.items()}) for s in a["trace"]]
    ans["max_iter_passed"] = True
    return ans


def validate_answers(path, cases_dir=None, *, strict: bool = False, subset: bool = False, skip_flags: Iterable[str] = ()) -> List[Report]:
    """Check an answers document (one :class:`Report` per algorithm it answers).

    Cases are read from ``cases_dir`` (as written by :func:`export_cases`) or, by default,
    regenerated: the corpus is deterministic and case ids are stable.  Every case of the corpus
    of each algorithm answered must be answered: a missing case fails ``answer.contract``,
    unless ``subset=True`` (``--subset``: check only the cases answered) or its flags are in
    ``skip_flags``."""
    t0 = time.perf_counter()
    doc = read_json(path)
    check_document(doc, "answers", source=str(path))
    answers = doc["answers"]
    if not answers:
        raise ValueError(f"{path}: \"answers\" is empty: no case answered; expected {SHAPES['answers']}")
    cases = _load_cases({_algorithm_of(a["case_id"]) for a in answers}, cases_dir)
    impl_name = doc.get("implementation", str(path))
    reports: Dict[str, Report] = {}
    failures: Dict[str, Dict[str, Failure]] = {}
    for a in answers:
        alg = _algorithm_of(a["case_id"])
        rep = reports.setdefault(alg, Report(algorithm=alg, implementation=impl_name, conforms=True, strict=strict))
        case = cases.get(a["case_id"])
        if case is None:
            rep.record(a["case_id"], [CheckResult("answer.contract", FAIL, f"unknown case id {a['case_id']!r}")])
            failures.setdefault(alg, {}).setdefault("answer.contract", Failure("answer.contract", f"unknown case id {a['case_id']!r}", a["case_id"], {}, {}, {}, {}))
            continue
        ans = _from_file_answer(a)
        if case.algorithm == "perceptron" and "rule" in case.args:
            ans["rule_passed"] = case.args["rule"]  # a case that names its rule is answered under that rule
        results = evaluate(case, ans, strict=strict)
        rep.record(case.case_id, results, edge_flags(case))
        rep.cases += 1
        if any(r.outcome == FAIL for r in results):
            f = _failure(case, ans, results)
            failures.setdefault(alg, {}).setdefault(f.check, f)
    skip = set(skip_flags)
    answered = {a["case_id"] for a in answers}
    for alg, rep in reports.items():
        todo = [c for cid, c in cases.items() if c.algorithm == alg and cid not in answered]
        skipped = [c for c in todo if skip & set(c.flags)]
        missing = [c for c in todo if not skip & set(c.flags)]
        if skipped:
            rep.notes.append(f"--skip-flags {','.join(sorted(skip))}: {len(skipped)} unanswered cases not required")
        if missing and subset:
            rep.notes.append(f"--subset: {len(missing)} of {len(missing) + rep.cases} corpus cases not answered and not checked, e.g. {missing[0].case_id}")
        elif missing:
            msg = "not answered: every case of the corpus needs an answer (check a subset explicitly with --subset)"
            for c in missing:
                rep.record(c.case_id, [CheckResult("answer.contract", FAIL, msg)], edge_flags(c))
                rep.cases += 1
            failures.setdefault(alg, {}).setdefault("answer.contract", Failure(
                "answer.contract", f"{len(missing)} of {rep.cases} cases {msg}", missing[0].case_id, {}, {}, {}, {}))
        rep.failures = list(failures.get(alg, {}).values())
        rep.settle()
        if rep.failures:
            rep.minimal = min(rep.failures, key=lambda f: (f.size[0] * max(1, f.size[1]), f.case_id))
        rep.seconds = time.perf_counter() - t0
    return list(reports.values())


def validate_trace(path, cases_dir=None) -> List[Report]:
    """Check a trace document: the per-iterate invariants of layer 2 on every trace."""
    t0 = time.perf_counter()
    doc = read_json(path)
    check_document(doc, "trace", source=str(path))
    cases = _load_cases({_algorithm_of(t["case_id"]) for t in doc["traces"]}, cases_dir)
    reports: Dict[str, Report] = {}
    for tr in doc["traces"]:
        alg = _algorithm_of(tr["case_id"])
        rep = reports.setdefault(alg, Report(algorithm=alg, implementation=str(path), conforms=True))
        case = cases.get(tr["case_id"])
        if case is None:
            res = [CheckResult("answer.contract", FAIL, f"unknown case id {tr['case_id']!r}")]
        else:
            states = [_state_dict({k: (np.asarray([from_number(x) for x in v]) if isinstance(v, list) else v) for k, v in s.items()}) for s in tr["iterates"]]
            res = check_trace(case, states)
        rep.record(tr["case_id"], res, () if case is None else edge_flags(case))
        rep.cases += 1
        bad = [r for r in res if r.outcome == FAIL]
        if bad and case is not None:
            rep.failures.append(_failure(case, {"status": "-", "iterations": len(tr["iterates"])}, res))
        elif bad:
            rep.failures.append(Failure(bad[0].id, bad[0].message, tr["case_id"], {}, {}, {}, {}))
    for rep in reports.values():
        rep.settle()
        rep.minimal = rep.failures[0] if rep.failures else None
        rep.seconds = time.perf_counter() - t0
    return list(reports.values())


def write_answers(path, impl: Callable, algorithm: str, cases_dir=None, *, trace: bool = False) -> Path:
    """Run ``impl`` on the corpus of ``algorithm`` and write an answers document (what a program
    in another language does; used to test the round trip)."""
    cases = _load_cases([algorithm], cases_dir)
    out = []
    for cid, case in cases.items():
        ans, _ = call_impl(impl, case, want_trace=trace)
        if "error" in ans or "skip" in ans:
            continue
        entry = {"case_id": cid, **{k: ans.get(k) for k in ("status", "iterations", "alpha", "w", "p")}}
        if trace and ans.get("trace"):
            entry["trace"] = [{k: v for k, v in s.items() if v is not None} for s in ans["trace"]]
        out.append(entry)
    write_json(path, {"schema_version": SCHEMA_VERSION, "kind": "answers", "implementation": _name_of(impl), "answers": out})
    return Path(path)
