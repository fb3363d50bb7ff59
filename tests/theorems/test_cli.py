"""The `margins` console script: demo, run (text and JSON), and error handling."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import reference as ref
from tests.support.instances import files
from tests.support.validate import _cli
from theorems import cli, paper_bounds
from theorems.cli import main as cli_main
from theorems.demo import _independent_verify, demo_instances, run_demo


DATA = "+1 1:2 2:1\n+1 1:1 2:2\n-1 1:-1 2:-2\n-1 1:-2 2:-0.5\n"


@pytest.fixture
def libsvm(tmp_path):
    f = tmp_path / "toy.svm"
    f.write_text(DATA)
    return str(f)


def _strict_json(text):
    """RFC 8259 JSON only: Infinity / -Infinity / NaN (which json.loads accepts by default) raise."""

    def refuse(name):
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def _one_line_error(rc, err):
    assert rc == 2, err
    assert err and "Traceback" not in err
    assert len(err.splitlines()) == 1, err  # argparse's own errors too: no usage block first


def test_demo_runs_every_algorithm_and_verifies(capsys):
    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    for name in ref.ALGORITHMS:
        assert name in out
    assert "every claim verified" in out and " NO " not in out


def test_demo_rows_are_separators_or_certificates_within_bounds():
    rows, ok = run_demo()
    assert ok
    names = {r["algorithm"] for r in rows}
    assert names == set(ref.ALGORITHMS)
    for r in rows:
        assert r["status"] in ("separator", "certificate"), r
        if r["paper bound"] != "-":
            assert int(r["iterations"]) <= float(r["paper bound"]), r


def test_demo_instances_are_what_they_say():
    inst = demo_instances()
    for name, d in inst.items():
        m = ref.margin(ref.gram(d["X"], d["y"], d["kernel"], **d["params"]), of="span")
        if d["Delta"] is not None:  # not linearly separable; the extended space (PT11 Sec. 5) is
            assert m.upper <= 1e-6
            P = ref.extend(ref.reflect(ref.augment(d["X"], 1.0), d["y"]), d["y"], d["Delta"])
            assert ref.margin(P @ P.T, of="span").lower >= d["Delta"] / np.sqrt(len(d["y"]))
        elif name.startswith("infeasible"):
            assert m.upper < 0
        else:
            assert m.lower > 0


def test_independent_verify_rejects_false_claims():
    G = np.array([[1.0, -1.0], [-1.0, 1.0]])
    fake = ref.Result(algorithm="nkp", status="separator", iterations=1, alpha=np.array([1.0, 0.0]))
    assert not _independent_verify("nkp", fake, G, None)
    cert = ref.Result(algorithm="nvn", status="certificate", iterations=1, p=np.array([1.0, 0.0]))
    assert not _independent_verify("nvn", cert, G, None)
    good = ref.Result(algorithm="nvn", status="certificate", iterations=1, p=np.array([0.5, 0.5]))
    assert _independent_verify("nvn", good, G, None)
    budget = ref.Result(algorithm="snkp", status="max_iter", iterations=1, alpha=np.array([0.5, 0.5]))
    assert not _independent_verify("snkp", budget, G, None)
    w = ref.Result(algorithm="pdm", status="separator", iterations=1, w=np.array([1.0, -1.0]))
    assert not _independent_verify("pdm", w, G, np.array([[1.0, 0.0], [0.0, 1.0]]))


@pytest.mark.parametrize("algo", ref.ALGORITHMS)
def test_run_every_algorithm_json(libsvm, capsys, algo):
    extra = {"pfm": ["--beta", "0.1"], "pdm": ["--epsilon", "0.1"], "pdm_succ": ["--epsilon", "0.1"]}.get(algo, [])
    assert cli.main(["run", algo, "--data", libsvm, "--json", *extra]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["algorithm"] == algo and d["status"] == "separator"
    X, y = ref.load_libsvm(libsvm)
    if d["w"] is not None and algo in ("perceptron",):
        assert np.all((X @ np.array(d["w"])) * y > 0)


def test_run_text_output_and_kernel(libsvm, capsys):
    assert cli.main(["run", "snkp", "--data", libsvm, "--kernel", "gaussian", "--sigma", "0.7"]) == 0
    out = capsys.readouterr().out
    assert "status: separator" in out and "alpha:" in out


def test_run_npz_and_limit(tmp_path, capsys):
    f = tmp_path / "d.npz"
    np.savez(f, X=np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.2]]), y=np.array([1, 1, -1]))
    assert cli.main(["run", "perceptron", "--data", str(f), "--limit", "2", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert len(d["w"]) == 2 and d["status"] == "separator"


def test_run_and_margin_read_npy_pairs_and_csv(tmp_path, capsys):
    """--data X.npy --labels y.npy and a CSV (label first, header of column numbers) read the same
    points as the .npz; a lone .npy, and a binary file under another name, are one-line errors
    that say what to pass."""
    X, y = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.2]]), np.array([1, 1, -1])
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "y.npy", y)
    (tmp_path / "d.csv").write_text("0,1,2\n" + "".join(f"{l},{a},{b}\n" for l, (a, b) in zip(y, X)))
    outs = []
    for data in (["--data", str(tmp_path / "X.npy"), "--labels", str(tmp_path / "y.npy")], ["--data", str(tmp_path / "d.csv")]):
        assert cli.main(["run", "perceptron", *data, "--json"]) == 0
        outs.append(json.loads(capsys.readouterr().out))
        assert cli.main(["margin", *data]) == 0
        assert "separable" in capsys.readouterr().out
    assert outs[0]["w"] == outs[1]["w"] and outs[0]["status"] == "separator"
    assert cli.main(["margin", "--data", str(tmp_path / "X.npy")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--labels FILE" in err
    (tmp_path / "X.bin").write_bytes((tmp_path / "X.npy").read_bytes())
    assert cli.main(["run", "snkp", "--data", str(tmp_path / "X.bin")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the data files read are:" in err and "CSV" in err


def test_run_errors_are_clean(tmp_path, capsys):
    bad = tmp_path / "bad.svm"
    bad.write_text("0 1:1\n1 1:2\n")
    assert cli.main(["run", "snkp", "--data", str(bad)]) == 2
    assert "labels must be +1/-1" in capsys.readouterr().err
    good = tmp_path / "g.svm"
    good.write_text(DATA)
    assert cli.main(["run", "pdm", "--data", str(good)]) == 2
    assert capsys.readouterr().err == "margins run: error: pdm needs --epsilon: pass e.g. --epsilon 0.01\n"
    with pytest.raises(SystemExit) as exc:
        cli.main(["run", "no_such_algorithm", "--data", str(good)])
    assert exc.value.code == 2


@pytest.mark.parametrize(
    "argv, names",
    [
        (["run"], "the following arguments are required: algorithm, --data"),
        (["run", "pdm"], "the following arguments are required: --data"),
        (["run", "pdm", "--data", "x", "--epsilon", "abc"], "argument --epsilon: invalid float value: 'abc'"),
        (["run", "nope", "--data", "x"], "argument algorithm: invalid choice: 'nope'"),
        (["margin", "--data", "x", "--Delta"], "argument --Delta: expected one argument"),
        (["validate", "--no-such-flag"], "unrecognized arguments: --no-such-flag"),
        (["no-such-command"], "argument command: invalid choice: 'no-such-command'"),
    ],
)
def test_argparse_errors_are_one_line_naming_the_argument(argv, names, capsys):
    """argparse printed its whole usage block before the error (new-user trial)."""
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and len(err.splitlines()) == 1 and names in err and "usage:" not in err
    assert "--help" in err


def test_help_still_prints_the_usage(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["run", "--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0 and out.startswith("usage: margins run") and "--epsilon" in out


def test_paper_bounds_known_values():
    assert paper_bounds.novikoff(2.0, 0.5) == 16.0
    assert paper_bounds.normalized_perceptron(0.1) == pytest.approx(100.0)
    assert paper_bounds.nkp(0.5) == 4.0
    assert paper_bounds.snkp(1.0, 4) == pytest.approx(2 * np.sqrt(2 * np.log(4)))
    assert paper_bounds.nvn(0.01) == pytest.approx(1e4)
    assert paper_bounds.snkpvn_feasible(0.5, 8) == pytest.approx(16.0)
    # corrected Lemma 7 (E-A2): min{sqrt(3/2) g/r, sqrt2 g/(g + r)}; here the second term binds ...
    assert paper_bounds.snkpvn_infeasible(0.1, 8, 0.2, -0.4) == pytest.approx(2 * 8**0.5 * 2**0.5 * 0.2 / 0.6 / 0.1)
    # ... and here (||q||_G < (sqrt(4/3) - 1)|rho_K|) the sqrt(3/2) term
    assert paper_bounds.snkpvn_infeasible(0.1, 8, 0.01, -0.4) == pytest.approx(2 * 8**0.5 * 1.5**0.5 * 0.01 / 0.4 / 0.1)
    assert paper_bounds.isnkpvn_outer_loops(1.0, 0.1, 2.0) == 4  # floor(log2(10)) + 1
    assert paper_bounds.isnkpvn_outer_loops(0.05, 0.1, 2.0) == 1
    # PT11 Thm. 2 at eps = 1 is Novikoff's R^2/gamma^2 (spec B.7)
    assert paper_bounds.pdm_theorem2(3.0, 1.0, 1.0) == pytest.approx(9.0)
    assert paper_bounds.pdm_theorem2(3.0, 1.0, 0.5) == pytest.approx((1 + np.exp(-1)) * 9 * np.log((1 + np.e) * 9))
    # E-B4: the eps > 1/2 bound near 1/2 exceeds the eps = 1/2 bound (R/gamma = 3: ~105 vs ~43)
    assert paper_bounds.pdm_theorem2(3.0, 1.0, 0.5001) > 100 > 44 > paper_bounds.pdm_theorem2(3.0, 1.0, 0.5) > 43
    with pytest.raises(ValueError, match="gamma_d"):
        paper_bounds.pdm_theorem2(1.0, 0.0, 0.5)
    with pytest.raises(ValueError, match="eps"):
        paper_bounds.pfm_theorem1(1.0, 0.5, 1.5)


def test_run_n_features_drop_zero_rows_and_function_defaults(tmp_path, capsys):
    f = tmp_path / "z.svm"
    f.write_text("+1 1:2 2:1\n-1\n-1 1:-1 2:-2\n+1 2:3\n")
    # a zero row: refused with its count, then dropped on request
    assert cli.main(["run", "nkp", "--data", str(f)]) == 2
    assert "X has 1 zero rows" in capsys.readouterr().err
    assert cli.main(["run", "nkp", "--data", str(f), "--drop-zero-rows", "--json"]) == 0
    out = capsys.readouterr()
    assert "dropped 1 of 4 points" in out.err and len(json.loads(out.out)["alpha"]) == 3
    # or kept, with a bias by augmentation (RP14 via gram(..., rho=...))
    assert cli.main(["run", "perceptron", "--data", str(f), "--rho", "1", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["w"]) == 3
    # --n-features widens the data (a1a's case: the file's largest index is below d)
    assert cli.main(["run", "pdm", "--data", str(f), "--epsilon", "0.5", "--n-features", "5", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["w"]) == 6  # 5 features + rho
    assert cli.main(["run", "pdm", "--data", str(f), "--epsilon", "0.5", "--n-features", "1"]) == 2
    assert "n_features=1" in capsys.readouterr().err


def test_run_budgets_default_to_the_python_functions(monkeypatch, libsvm):
    seen = {}
    real = ref.snkp
    monkeypatch.setattr(ref, "snkp", lambda G, **kw: seen.update(kw) or real(G, **kw))
    assert cli.main(["run", "snkp", "--data", libsvm, "--json"]) == 0
    X, y = ref.load_data(libsvm)
    # the Python function's default (max_iter=None), sized by the same function, not a CLI constant
    assert seen["max_iter"] == ref.budgets.default_budget("snkp", ref.gram(X, y)).max_iter
    assert cli.main(["run", "snkp", "--data", libsvm, "--max-iter", "7", "--json"]) == 0
    assert seen["max_iter"] == 7


def _separable_file(tmp_path):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 5))
    s = X @ np.arange(1.0, 6.0)
    keep = np.abs(s) > 0.05
    path = tmp_path / "sep.npz"
    np.savez(path, X=X[keep], y=np.where(s[keep] > 0, 1.0, -1.0))
    return str(path)


def test_run_at_its_budget_on_separable_data_says_so_and_how_far(tmp_path, capsys):
    """PDM stopped at --max-iter 50 on data certified separable: the meaning line says the data are
    separable and a larger budget gives a separator (main said "this is also what non-separable data
    give" beside a positive certified margin), and a 'how far' line gives ||a_t||/t against gamma_d."""
    assert cli.main(["run", "pdm", "--data", _separable_file(tmp_path), "--epsilon", "0.01", "--max-iter", "50", "--quiet"]) == 0
    out = capsys.readouterr().out
    meaning = next(l for l in out.splitlines() if l.strip().startswith("meaning:"))
    assert "The data are separable (certified margin > 0" in meaning and "non-separable" not in meaning
    how_far = next(l for l in out.splitlines() if l.strip().startswith("how far:"))
    assert "||a_t||/t = " in how_far and "against the certified gamma_d >= " in how_far
    assert "budget: 50 (given (--max-iter))" in out


def test_run_on_data_not_separable_says_no_budget_helps(tmp_path, capsys):
    path = tmp_path / "xor.npz"
    np.savez(path, X=np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]]), y=np.array([1.0, 1.0, -1.0, -1.0]))
    assert cli.main(["run", "pdm", "--data", str(path), "--epsilon", "0.1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "certified NOT separable (below): no budget gives this algorithm a claim" in out
    assert f"budget: {ref.budgets.FALLBACK['pdm']:,} (the fallback; no update bound" in out


@pytest.mark.parametrize("engine", ["textbook", "fast"])
def test_run_reports_progress_on_stderr_in_both_engines(tmp_path, capsys, monkeypatch, engine):
    """Progress lines on stderr with the budget, the rate and an estimate, in both engines (main: the
    textbook PT11 runs only, and without the budget)."""
    if engine == "fast":
        pytest.importorskip("numba")
        from reference.fast import engine as compiled

        monkeypatch.setattr(compiled, "CHUNK", 5)
    from theorems import cli_common

    real = cli_common.Progress.__init__
    monkeypatch.setattr(cli_common.Progress, "__init__", lambda self, *a, **kw: real(self, *a, **{**kw, "after": 0.0, "every": 0.0}))
    assert cli.main(["run", "snkp", "--data", _separable_file(tmp_path), "--max-iter", "60", "--engine", engine]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err and all(l.startswith("[snkp ") and " of 60 (" in l and "/s" in l for l in err), err


def test_check_outcome_expects_refuted_statements_to_fail_exactly():
    """`margins check` exit status: a failing verdict of a statement that should hold is unexpected;
    a refuted statement (RP14.lemma7.printed, E-A2) must fail somewhere, decided exactly."""
    from theorems import rp14  # noqa: F401  (registers the checks)
    from theorems.cli import check_outcome
    from theorems.registry import Verdict

    ok = Verdict("RP14.lemma7", True, 0.1, 0.2, 0.5, {})
    ref_exact = Verdict("RP14.lemma7.printed", False, 0.3, 0.2, 1.03, {"exact_failure": True})
    ref_float = Verdict("RP14.lemma7.printed", False, 0.3, 0.2, 1.03, {"exact_failure": False})
    ref_holds = Verdict("RP14.lemma7.printed", True, 0.1, 0.2, 0.5, {})
    broken = Verdict("RP14.lemma7", False, 0.3, 0.2, 1.5, {})
    assert check_outcome([ok, ref_holds, ref_exact]) == (0, ["RP14.lemma7.printed"])
    assert check_outcome([ok, ref_holds])[0] == 1  # refuted statement never failed
    assert check_outcome([ok, ref_float])[0] == 1  # failed only in float64: not a proof
    assert check_outcome([broken, ref_exact])[0] == 1


def test_run_prints_meaning_time_achieved_and_certified(libsvm, capsys):
    assert cli.main(["run", "pdm", "--data", libsvm, "--epsilon", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "meaning: a verified separator" in out and "time:" in out
    ach = float(out.split("achieved: margin ")[1].split()[0])
    line = [l for l in out.splitlines() if "certified:" in l][0]
    lo = float(line.split("certified: ")[1].split(" <= ")[0])
    up = float(line.split(" <= gamma_d <= ")[1].split()[0])
    assert 0.9 * lo <= ach <= up  # PT11: on convergence the achieved margin is >= (1 - eps) gamma_d
    assert cli.main(["run", "pdm", "--data", libsvm, "--epsilon", "0.1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["achieved_margin"] <= d["certified_margin"]["upper"] and d["seconds"] >= 0
    assert cli.main(["run", "nkp", "--data", libsvm, "--max-iter", "0"]) == 0
    assert "meaning: the budget ran out" in capsys.readouterr().out


def test_delta_past_float64_squares_is_one_line_naming_delta(libsvm, capsys):
    """`margins margin --Delta 1e308` said "OverflowError: (34, 'Numerical result out of range')";
    `margins run pdm --Delta 1e308` lost its verified separator to that error (new-user trial)."""
    assert cli.main(["margin", "--data", libsvm, "--Delta", "1e308"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Delta=1e+308" in err and "rescale" in err and "OverflowError" not in err
    assert cli.main(["run", "pdm", "--data", libsvm, "--epsilon", "0.1", "--Delta", "1e308", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["status"] == "separator" and "Delta=1e+308" in d["certified_margin"]["error"]
    assert cli.main(["run", "pdm", "--data", libsvm, "--epsilon", "0.1", "--Delta", "1e-200"]) == 0
    assert "certified: not computed: Delta=1e-200 is too small" in capsys.readouterr().out


def test_run_and_margin_align_their_keys(libsvm, capsys):
    """`margins run pdm` printed keys right-aligned to 10 characters, so 'upper_bound' and
    'eps_schedule' pushed their colons out of line (new-user trial)."""
    from theorems.text import fields

    assert cli.main(["run", "pdm", "--data", libsvm, "--epsilon", "0.1", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(l.lstrip().startswith("eps_schedule: ") for l in lines) and len({l.index(": ") for l in lines}) == 1
    assert cli.main(["margin", "--data", libsvm]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 7 and len({l.index(": ") for l in lines}) == 1
    assert fields([("a", 1), ("long_key", "x: y")]) == "       a: 1\nlong_key: x: y"


def test_run_achieved_margin_of_normalized_points_at_extreme_rho(tmp_path, capsys):
    """`margins run normalized_perceptron --rho 1e300` printed 'achieved: margin 0': ||z_k||^2
    overflowed.  Two points e_1, e_2 (label +1) with rho = 1e300 are e_rho up to 1e-300, so any
    separator w has min_k w.y_k/(||w|| ||y_k||) = 1 to float64 precision."""
    f = tmp_path / "two.svm"
    f.write_text("+1 1:1\n+1 2:1\n")
    assert cli.main(["run", "normalized_perceptron", "--data", str(f), "--rho", "1e300", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["status"] == "separator" and d["achieved_margin"] == pytest.approx(1.0, rel=1e-12)


def test_every_json_output_is_strict_json_with_non_finite_numbers_as_strings(tmp_path, capsys):
    """Non-separable data give relative_width = inf: `margin --json` wrote the bare token Infinity,
    which no strict JSON parser reads.  Every --json output (and every JSON file) writes a
    non-finite number as the string "inf" / "-inf" / "nan", as the case files do."""
    f = tmp_path / "clash.svm"
    f.write_text("+1 1:1 2:1\n-1 1:1 2:1\n+1 1:2\n")  # two equal points with opposite labels
    assert cli.main(["margin", "--data", str(f), "--json"]) == 0
    d = _strict_json(capsys.readouterr().out)
    assert d["separable"] is False and d["relative_width"] == "inf" and float(d["relative_width"]) == np.inf
    assert cli.main(["margin", "--data", str(f), "--Delta", "1", "--json"]) == 0
    assert _strict_json(capsys.readouterr().out)["separable"] is True
    for argv in (["run", "perceptron", "--max-iter", "5"], ["run", "pdm", "--epsilon", "0.1", "--max-iter", "5"],
                 ["run", "nvn"], ["run", "pdm", "--epsilon", "0.1", "--Delta", "1"]):
        assert cli.main([*argv, "--data", str(f), "--json"]) == 0
        _strict_json(capsys.readouterr().out)
    assert cli.main(["validate", "pdm", "reference:pdm", "--data", str(f), "--Delta", "1", "--epsilon", "0.1", "--json"]) == 0
    _strict_json(capsys.readouterr().out)
    from theorems.text import json_text
    from theorems.validate.schema import read_json, write_json

    doc = {"a": np.inf, "b": [-np.inf, np.nan, np.float64(2.5)], "c": np.array([1.0, np.inf])}
    assert _strict_json(json_text(doc)) == {"a": "inf", "b": ["-inf", "nan", 2.5], "c": [1.0, "inf"]}
    write_json(tmp_path / "doc.json", doc)
    assert read_json(tmp_path / "doc.json") == _strict_json((tmp_path / "doc.json").read_text())


def test_a_closed_pipe_ends_the_command_quietly():
    """`margins ... | head -1`: the reader goes away mid-output; no traceback or error line on
    stderr (a command writing far more than a pipe buffer, so the write really fails)."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from theorems import cli\n"
        "cli.COMMANDS['demo'] = lambda args: [print('x' * 1000) for _ in range(2000)] and 0\n"
        "sys.exit(cli.main(['demo']))\n"
    )
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read()
    p.stderr.close()
    assert p.wait(timeout=120) == 1 and err == b"", err[-500:]


def test_export_cases_reports_what_it_wrote(tmp_path, capsys):
    """`margins export-cases` says how many cases in how many corpus files it wrote, besides the
    schema (counting one file too few is caught)."""
    d = tmp_path / "cases"
    assert cli.main(["export-cases", str(d), "--algorithms", "perceptron"]) == 0
    written = sorted(p.name for p in d.iterdir())
    assert written == ["case_schema.json", "perceptron.json"]
    n = sum(len(json.loads((d / f).read_text())["cases"]) for f in ("perceptron.json",))
    out = capsys.readouterr().out
    assert out == f"wrote {n} cases in 1 files and case_schema.json to {d} (schema_version 1)\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "nvn", "--data", "{garbage_gz}"],
        ["run", "nvn", "--data", "{trunc_gz}"],
        ["run", "nvn", "--data", "{huge_index}"],
        ["run", "nvn", "--data", "{dup}"],
        ["run", "nvn", "--data", "{ok}", "--kernel", "gaussian", "--sigma", "1e308"],
        ["run", "nvn", "--data", "{ok}", "--limit", "0"],
        ["run", "nvn", "--data", "{ok}", "--limit", "-1"],
        ["run", "nvn", "--data", "{ok}", "--precision", "5"],
        ["validate", "--answers", "{nested}"],
        ["validate", "--answers", "{bigint}"],
        ["validate", "--answers", "{bool_version}"],
        ["validate", "snkp", "{numpy_py}:fn", "--kwargs", "[1,2]"],
        ["export-cases", "{a_file}"],
        ["soak", "--minutes", "0"],
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(argv, files, capsys):
    import sys

    np_before = sys.modules["numpy"]
    rc, err = _cli([a.format(**files) for a in argv], capsys)
    _one_line_error(rc, err)
    assert sys.modules["numpy"] is np_before  # a user file named numpy.py replaces nothing


def test_cli_skip_flags(capsys):
    assert cli.main(["validate", "perceptron", "tests.theorems.validate.test_run:_refuses_one_point", "--budget", "0"]) == 1
    assert "refused" in capsys.readouterr().out
    assert cli.main(["validate", "perceptron", "tests.theorems.validate.test_run:_refuses_one_point", "--budget", "2", "--skip-flags", "n1"]) == 0


def test_check_table_names_tightness_and_prints_no_nan(capsys):
    assert cli_main(["check", "RP14.lemma1", "RP14.novikoff"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    assert "max tightness" in header and "slack" not in header
    assert "lhs (observed)" in header and "rhs (bound)" in header
    lemma1 = next(line for line in out.splitlines() if line.startswith("RP14.lemma1 "))
    assert "n/a (dichotomy)" in lemma1 and "nan" not in lemma1
    assert "1 = met with equality" in out  # the legend says which way is tight


def test_check_rows_say_their_kind_and_print_the_allowance_they_hold_within(capsys):
    """`margins check`: every row names what it states (kind); an identity or a dichotomy prints no
    tightness; a bound whose lhs exceeds its rhs holds only 'within allowance', with the allowance
    printed -- eq. (5) at equality, lhs ~9e-13 against rhs ~-2e-16, is such a row, and its two
    round-off sides give no ratio."""
    assert cli_main(["check", "PT11.eq5", "RP14.example", "RP14.lemma6", "--all"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split()
    assert header[:3] == ["id", "kind", "holds"] and "allowance" in header
    rows = [line for line in lines[2:] if line.startswith(("PT11.", "RP14."))]
    example = next(r for r in rows if r.startswith("RP14.example "))
    assert example.split()[1] == "identity" and "n/a (identity)" in example
    assert all("dichotomy" in r and "n/a (dichotomy)" in r for r in rows if r.startswith("RP14.lemma6 "))
    eq5 = next(r for r in rows if r.startswith("PT11.eq5 ") and "rp14_example" in r)
    assert "holds (within allowance)" in eq5 and "n/a (both sides within the allowance)" in eq5, eq5
    for r in rows:
        lhs, rhs = _two_numbers(r)
        if r.startswith("PT11.eq5 ") and lhs > rhs:
            assert "holds (within allowance)" in r, r


def _two_numbers(row):
    """The lhs and rhs cells of a `margins check --all` row (the first two numeric cells)."""
    cells = [c.strip() for c in row.split("  ") if c.strip()]
    nums = []
    for c in cells:
        try:
            nums.append(float(c))
        except ValueError:
            continue
    return nums[0], nums[1]


def _subparsers():
    import argparse

    p = cli.build_parser()
    return next(a for a in p._actions if isinstance(a, argparse._SubParsersAction)).choices




@pytest.mark.parametrize("command", sorted(_subparsers()))
def test_every_option_of_every_subcommand_has_a_help_text(command):
    """`margins COMMAND --help` explains every option and positional argument: a non-empty help
    text (what it is, the paper's symbol, the default)."""
    import argparse

    missing = [a.option_strings[0] if a.option_strings else a.dest for a in _subparsers()[command]._actions
               if not isinstance(a, argparse._HelpAction) and not (a.help or "").strip()]
    assert missing == [], f"margins {command}: no help for {missing}"


def test_run_help_tells_rp14_delta_from_pt11_Delta(capsys):
    """--delta (RP14's delta of SNKPVN) and --Delta (PT11's Delta, the extended space) differ in
    their metavars and each help names its paper and points to the other."""
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--delta DELTA_RP14" in out and "--Delta DELTA_PT11" in out
    assert "RP14's delta of snkpvn" in out and "not PT11's --Delta" in out
    assert "PT11's Delta (Sec. 5)" in out and "not RP14's --delta" in out
    for flag in ("--epsilon EPS", "--gamma GAMMA", "--beta BETA", "--sigma SIGMA", "--degree D", "--c C"):
        assert flag in out, flag
    assert "(default 2.0)" in out and "default 0.001" in out  # gamma's, and epsilon / delta's


def test_demo_names_the_margin_of_every_certified_interval(capsys):
    """`margins demo` prints several certified margins for one instance (rho of the raw points for
    the Perceptron, rho_2 of the unit-norm points, rho_K of the kernel Gram matrix, PT11's gamma_d):
    every row's interval says which margin it is, and the legend under the table defines each one
    shown."""
    from theorems.demo import MARGINS

    rows, _ok = run_demo()
    expected = {"perceptron": "rho", "normalized_perceptron": "rho_2", "pfm": "gamma_d", "pdm": "gamma_d",
                "pdm_succ": "gamma_d", "nkp": "rho_K", "snkp": "rho_K", "nvn": "rho_K", "snkpvn": "rho_K", "isnkpvn": "rho_K"}
    for r in rows:
        name, word, interval = r["certified margin"].split(" ", 2)
        assert name == expected[r["algorithm"]] and word == "in" and interval.startswith("["), r
    one = [r for r in rows if r["instance"] == "separable(n=40,d=3)"]
    assert {r["certified margin"].split()[0] for r in one} == set(MARGINS)  # four margins, one instance
    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "certified margin" in out.splitlines()[0]
    for name in MARGINS:
        assert any(line.strip().startswith(f"{name}: ") for line in out.splitlines()), name
