"""Tests of theorems/validate/cli.py: ``margins validate`` and ``margins export-cases``.

What each command line hands to the harness is read off recorders put in place of
:func:`theorems.validate.run.validate` and the file readers (the harness itself is tested in the
other files here); the exit codes and the printed text are the real ones.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import reference
from theorems.cli import main
from theorems.validate import cli as vcli
from theorems.validate.report import CheckResult, FAIL, PASS, Report


def _report(conforms=True, algorithm="snkp", name="m:f"):
    r = Report(algorithm=algorithm, implementation=name, conforms=True, cases=1)
    r.record("c", [CheckResult("claim.separator", PASS if conforms else FAIL, "" if conforms else "wrong claim"),
                   CheckResult("trajectory.final", "note", "a note")])  # a conforming run prints its summary alone
    r.settle()
    return r


@pytest.fixture
def recorded(monkeypatch):
    """validate(), validate_answers(), validate_trace() and validate_data_answers() replaced by
    recorders returning a conforming report (``calls[name]``: their arguments)."""
    calls = {}
    outcome = {"conforms": True}

    def recorder(name):
        def f(*args, **kwargs):
            calls.setdefault(name, []).append((args, kwargs))
            return _report(outcome["conforms"]) if name == "validate" else [_report(outcome["conforms"])]
        return f

    for name in ("validate", "validate_answers", "validate_trace"):
        monkeypatch.setattr(vcli, name, recorder(name))
    import theorems.validate.data as vdata

    monkeypatch.setattr(vdata, "validate_data_answers", recorder("validate_data_answers"))
    return calls, outcome


def _run(argv, capsys):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_validate_a_callable_with_the_defaults(recorded, capsys):
    calls, _ = recorded
    rc, out, err = _run(["validate", "snkp", "reference:snkp"], capsys)
    assert rc == 0 and out == _report().summary() + "\n" and err == ""
    ((algorithm, impl), kw), = calls["validate"]
    assert algorithm == "snkp" and impl is reference.snkp
    assert kw == {"budget": 20, "strict": False, "seed": 0, "cases_dir": None, "skip_flags": (), "database": None, "deep": False}


def test_validate_hands_over_every_option(recorded, capsys, tmp_path):
    calls, _ = recorded
    argv = ["validate", "pdm", "reference:pdm", "--budget", "7", "--strict", "--seed", "5", "--cases", str(tmp_path),
            "--skip-flags", " n1, duplicates,,", "--database", str(tmp_path / "db"), "--deep", "--kwargs", '{"active_sets": true}']
    assert _run(argv, capsys)[0] == 0
    ((algorithm, impl), kw), = calls["validate"]
    assert impl.func is reference.pdm and impl.keywords == {"active_sets": True}
    assert kw == {"budget": 7, "strict": True, "seed": 5, "cases_dir": str(tmp_path), "skip_flags": ("n1", "duplicates"),
                  "database": str(tmp_path / "db"), "deep": True}  # fmt: skip


def test_validate_with_cases_runs_no_search_unless_a_budget_is_given(recorded, capsys, tmp_path):
    calls, _ = recorded
    _run(["validate", "snkp", "reference:snkp", "--cases", str(tmp_path)], capsys)
    _run(["validate", "snkp", "reference:snkp", "--cases", str(tmp_path), "--budget", "3"], capsys)
    assert [kw["budget"] for _, kw in calls["validate"]] == [0, 3]


def test_a_report_that_does_not_conform_prints_everything_and_exits_1(recorded, capsys):
    calls, outcome = recorded
    outcome["conforms"] = False
    rc, out, _ = _run(["validate", "snkp", "reference:snkp"], capsys)
    assert rc == 1 and out == _report(False).format() + "\n" and "claim.separator failed on 1 of 1 cases" in out


def test_json_prints_the_reports(recorded, capsys):
    calls, outcome = recorded
    rc, out, _ = _run(["validate", "snkp", "reference:snkp", "--json"], capsys)
    assert rc == 0 and json.loads(out) == [_report().as_dict()] and out.startswith('[\n {\n  "algorithm": "snkp"')  # indent 1
    outcome["conforms"] = False
    rc, out, _ = _run(["validate", "snkp", "reference:snkp", "--json"], capsys)
    assert rc == 1 and json.loads(out)[0]["conforms"] is False


def test_answers_and_traces_are_checked_with_their_options(recorded, capsys, tmp_path):
    calls, _ = recorded
    rc, out, _ = _run(["validate", "--answers", "a.json", "--cases", str(tmp_path), "--strict", "--subset", "--skip-flags", "n1"], capsys)
    assert rc == 0 and calls["validate_answers"] == [(("a.json", str(tmp_path)), {"strict": True, "subset": True, "skip_flags": ("n1",)})]
    assert "validate" not in calls and "validate_trace" not in calls
    rc, out, _ = _run(["validate", "--trace", "t.json"], capsys)
    assert rc == 0 and calls["validate_trace"] == [(("t.json", None), {})]
    _run(["validate", "--trace", "t.json", "--cases", str(tmp_path)], capsys)
    assert calls["validate_trace"][-1] == (("t.json", str(tmp_path)), {})
    calls["validate_trace"].clear()
    rc, out, _ = _run(["validate", "--answers", "a.json", "--trace", "t.json"], capsys)
    assert rc == 0 and len(calls["validate_answers"]) == 2 and len(calls["validate_trace"]) == 1
    assert out.count("conforms") == 2  # one report each


def test_answers_with_an_algorithm_or_a_callable_is_an_error_naming_what_to_drop(recorded, capsys):
    rc, out, err = _run(["validate", "snkp", "--answers", "a.json"], capsys)
    assert rc == 2 and out == ""
    assert err == ("margins validate: error: --answers / --trace check answers written elsewhere and run nothing: drop 'snkp', "
                   "or drop --answers / --trace to run ALGORITHM MODULE:CALLABLE\n")  # fmt: skip
    rc, _, err = _run(["validate", "snkp", "reference:snkp", "--trace", "t.json"], capsys)
    assert rc == 2 and "drop 'snkp reference:snkp'" in err


@pytest.mark.parametrize("argv", [["validate"], ["validate", "snkp"]])
def test_nothing_to_run_is_an_error_saying_what_to_pass(recorded, capsys, argv):
    rc, _, err = _run(argv, capsys)
    assert rc == 2 and err == "margins validate: error: pass ALGORITHM MODULE:CALLABLE, or --answers FILE / --trace FILE\n"


def test_data_answers_are_checked_against_the_data_dir(recorded, capsys, tmp_path):
    calls, _ = recorded
    rc, out, _ = _run(["validate", "--data-answers", "d.json", "--data-dir", str(tmp_path)], capsys)
    assert rc == 0 and calls["validate_data_answers"] == [(("d.json", str(tmp_path)), {})]


@pytest.fixture
def libsvm(tmp_path):
    p = tmp_path / "tiny.libsvm"
    p.write_text("+1 1:1 2:0.5\n-1 1:-1 2:0.25\n+1 2:2\n")
    return p


def test_data_runs_the_callable_on_the_whole_file_with_its_options(recorded, capsys, libsvm):
    calls, _ = recorded
    argv = ["validate", "pdm", "reference:pdm", "--data", str(libsvm), "--rho", "none", "--Delta", "2", "--epsilon", "0.1", "0.05",
            "--max-iter", "99", "--kwargs", '{"engine": "fast"}']
    rc, out, err = _run(argv, capsys)
    assert rc == 0
    ((algorithm, impl), kw), = calls["validate"]
    assert algorithm == "pdm"
    X, y = kw.pop("data")
    assert np.array_equal(X.toarray(), [[1.0, 0.5], [-1.0, 0.25], [0.0, 2.0]]) and y.tolist() == [1, -1, 1]
    assert kw == {"rho": None, "Delta": 2.0, "epsilons": [0.1, 0.05], "max_iter": 99}
    assert impl.func is reference.pdm and impl.keywords == {"engine": "fast"}  # the compiled engine: no progress printer
    assert err.startswith("margins validate: certifying gamma_d of the 3 patterns, then calling reference:pdm(X, y, epsilon, "
                          "rho=None, Delta=2.0, ...) for epsilon in [0.1, 0.05]; on large data this can take minutes\n")  # fmt: skip


def test_data_with_the_textbook_reference_says_so_and_reports_progress(recorded, capsys, libsvm):
    calls, _ = recorded
    rc, _, err = _run(["validate", "pfm", "reference:pfm", "--data", str(libsvm)], capsys)
    assert rc == 0
    ((_, impl), kw), = calls["validate"]
    from theorems.cli_common import Progress

    assert impl.func is reference.pfm and set(impl.keywords) == {"progress"}
    assert isinstance(impl.keywords["progress"], Progress) and impl.keywords["progress"].name == "pfm"
    assert "calling reference:pfm(X, y, beta, rho=1.0, Delta=None, ...) for beta in [0.1]" in err
    assert "(the textbook engine; --kwargs '{\"engine\": \"fast\"}' runs the compiled one, much faster); progress every 5 s" in err
    assert (kw["rho"], kw["Delta"], kw["epsilons"], kw["max_iter"]) == (1.0, None, [0.1], None)


def test_data_with_json_announces_nothing_and_binds_no_printer(recorded, capsys, libsvm):
    calls, _ = recorded
    rc, out, err = _run(["validate", "pdm", "reference:pdm", "--data", str(libsvm), "--json"], capsys)
    assert rc == 0 and err == "" and json.loads(out)[0]["conforms"] is True
    ((_, impl), _), = calls["validate"]
    assert impl is reference.pdm


def test_data_without_a_callable_is_an_error(recorded, capsys, libsvm):
    rc, _, err = _run(["validate", "pdm", "--data", str(libsvm)], capsys)
    assert rc == 2 and err == "margins validate: error: pass ALGORITHM MODULE:CALLABLE with --data FILE\n"


def test_data_reads_the_file_with_its_limits(recorded, capsys, libsvm):
    rc, _, err = _run(["validate", "pdm", "reference:pdm", "--data", str(libsvm), "--n-features", "1"], capsys)
    assert rc == 2 and "feature" in err  # the file has feature 2: n_features=1 is refused by the reader
    rc, _, err = _run(["validate", "pdm", "reference:pdm", "--data", str(libsvm), "--max-bytes", "10"], capsys)
    assert rc == 2 and "10" in err


def test_export_cases_writes_and_counts(capsys, tmp_path):
    rc, out, _ = _run(["export-cases", str(tmp_path / "out"), "--algorithms", "nvn", "snkp"], capsys)
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert rc == 0 and files == ["case_schema.json", "nvn.json", "snkp.json"]
    n = sum(len(json.loads((tmp_path / "out" / f).read_text())["cases"]) for f in ("nvn.json", "snkp.json"))
    assert out == f"wrote {n} cases in 2 files and case_schema.json to {tmp_path / 'out'} (schema_version 1)\n" and n > 10


# -- the options table of docs/validation.md is the parser's ---------------------------------------------------

from pathlib import Path  # noqa: E402

DOC = Path(__file__).resolve().parents[3] / "docs" / "validation.md"
BEGIN, END = "<!-- options: margins validate, margins export-cases -->", "<!-- end of options -->"


def options_table() -> str:
    """The options of `margins validate` and `margins export-cases` as docs/validation.md lists them:
    the argument as typed, what it does (the parser's help) and its default."""
    import argparse

    from theorems.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help for c in sub._choices_actions}
    out = []
    for name in ("validate", "export-cases"):
        out += [f"`margins {name}`: {helps[name]}.", "", "| argument | what it does | default |", "|---|---|---|"]
        parser = sub.choices[name]
        group_of = {id(a): g.title for g in parser._action_groups[2:] for a in g._group_actions}  # groups after the two default ones
        shown_groups = set()
        for a in parser._actions:
            if isinstance(a, argparse._HelpAction):
                continue
            title = group_of.get(id(a))
            if title and title not in shown_groups:
                shown_groups.add(title)
                out.append(f"| *{title}:* | | |")
            if a.option_strings:
                shown = a.option_strings[0] if a.nargs == 0 else f"{a.option_strings[0]} {a.metavar or a.dest.upper()}"
                if a.nargs in ("+", "*"):
                    shown += " ..."
            else:
                shown = {"algorithm": "ALGORITHM", "callable": "MODULE:CALLABLE", "directory": "DIRECTORY"}[a.dest]
            choices = f" (one of: {', '.join(a.choices)})" if a.choices and a.dest != "algorithm" and a.dest != "algorithms" else ""
            default = "–" if a.default in (None, False, "") else f"`{a.default!r}`"
            out.append(f"| `{shown}` | {a.help}{choices} | {default} |")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def test_the_documented_options_are_the_parsers():
    text = DOC.read_text(encoding="utf-8")
    assert BEGIN in text and END in text, f"{DOC.name} has no options section ({BEGIN} ... {END})"
    documented = text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"
    assert documented == options_table(), (
        f"{DOC.name}'s options table differs from the parser's; regenerate it with "
        "tests.theorems.validate.test_cli.options_table()")


def test_unknown_algorithms_are_refused_by_the_parser(capsys):
    for argv in (["validate", "snpk", "reference:snkp"], ["export-cases", "out", "--algorithms", "snpk"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2 and "invalid choice: 'snpk'" in capsys.readouterr().err


def test_data_options_are_read_as_numbers(recorded, capsys, libsvm, monkeypatch):
    calls, _ = recorded
    seen = {}
    real = reference.load_libsvm

    def spy(path, n_features=None, max_bytes=None):
        seen.update(n_features=n_features, max_bytes=max_bytes)
        return real(path, n_features=n_features, max_bytes=max_bytes)

    monkeypatch.setattr(reference, "load_libsvm", spy)
    rc, _, _ = _run(["validate", "pdm", "reference:pdm", "--data", str(libsvm), "--n-features", "3", "--rho", "0.5", "--json"], capsys)
    assert rc == 0 and seen == {"n_features": 3, "max_bytes": reference.data.MAX_LIBSVM_BYTES}
    ((_, _), kw), = calls["validate"]
    assert kw["rho"] == 0.5 and kw["data"][0].shape == (3, 3)
    _run(["validate", "pdm", "reference:pdm", "--data", str(libsvm), "--max-bytes", "none", "--json"], capsys)
    assert seen["max_bytes"] is None
