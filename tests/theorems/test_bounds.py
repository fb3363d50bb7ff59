"""The bounds explorer (``margins bounds``, :mod:`theorems.bounds`, :mod:`theorems.instances.families`).

Fast tier: family generators, the ratio, byte-identical CSVs (same seed / other seed / --jobs),
the search, case files, the missing-matplotlib message, the CLI.  ``-m slow``: a sweep and a
search of every target."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import reference
from theorems import bounds
from theorems.bounds.targets import _q_vector
from theorems.cli import main as cli_main
from theorems.instances import families
from theorems.instances.families import make_instance


CASES = Path(__file__).parents[1] / "support" / "cases"


def _run(tmp, seed=0, jobs=1, target="snkp", **kw):
    kw.setdefault("families", ["planted", "poly"])
    kw.setdefault("ns", [10])
    kw.setdefault("seeds", 2)
    bounds.explore(target, seed=seed, do_search=True, budget=16, out=str(tmp), jobs=jobs, plot=False,
                   progress=False, stream=open("/dev/null", "w") if Path("/dev/null").exists() else sys.stdout, **kw)
    return (Path(tmp) / f"{target}.csv").read_bytes()


def _data_key(row):
    inst = make_instance(row["_task"]["spec"])
    X = np.ascontiguousarray(np.asarray(inst.X, dtype=float))
    return (X.tobytes(), np.asarray(inst.y).tobytes(), inst.kernel, row["args"])


@pytest.mark.parametrize("spec", [
    {"family": "planted", "n": 12, "d": 4, "margin": 0.2, "spread": 0.2, "seed": 0},
    {"family": "planted", "n": 20, "d": 6, "margin": 0.03, "spread": 3.0, "radius": 4.0, "seed": 3},
    {"family": "planted", "n": 5, "d": 2, "margin": 0.5, "seed": 1},
])
def test_planted_margin_support_and_rho_are_exact(spec):
    inst = families.make_instance(spec)
    m = reference.margin(inst.G)
    assert float(m.lower) <= inst.known["rho_K"] + 1e-9 and inst.known["rho_K"] <= float(m.upper) + 1e-9
    assert abs(float(m.value) - spec["margin"]) < 1e-9
    assert set(m.support) == set(inst.known["support"])
    mk = reference.margin(inst.K)  # the unnormalized margin rho (Novikoff) is planted too
    assert abs(float(mk.value) - inst.known["rho"]) < 1e-9
    assert abs(float(np.max(np.linalg.norm(inst.X, axis=1))) - inst.known["R"]) < 1e-12


@pytest.mark.parametrize("n,d,delta", [(6, 2, 0.3), (8, 2, 0.01), (9, 3, 0.1), (12, 4, 0.2), (5, 2, 0.0)])
def test_thin_infeasible_plants_delta_max(n, d, delta):
    inst = families.thin_infeasible(n, d, delta, seed=2)
    m = reference.margin(inst.G, of="span")
    # delta = 0: 0 on the hull's boundary, m = 0 exactly -- no float certificate can tell m = 0 from a
    # tiny m > 0, so "undecided" is the honest answer there (never a feasible claim)
    assert m.feasible is False if delta > 0 else m.feasible is not True
    assert abs(float(m.value) + delta) < 1e-9
    assert inst.known["rho_K"] == -delta


def test_wolfe_and_orthonormal_are_what_they_promise():
    w = families.wolfe(6, 3, seed=1)
    mw = reference.margin(w.G, of="span")
    # m = 0 exactly (0 on the hull's boundary): not certifiable in floats, so never True, maybe None
    assert mw.feasible is not True and abs(float(mw.value)) < 1e-9 and mw.lower <= 0
    o = families.orthonormal(9, seed=0)
    mo = reference.margin(o.G, of="span")
    assert abs(float(mo.value) - 1 / 3) < 1e-12
    # Block-Novikoff attained: every point is a mistake once
    assert reference.perceptron(o.X, o.y).iterations == 9


def test_kernel_and_real_families_are_deterministic():
    for spec in ({"family": "rings", "n": 16, "margin": 0.3, "seed": 4}, {"family": "poly", "n": 12, "margin": 0.1, "seed": 1},
                 {"family": "moons", "n": 12, "margin": 0.2, "seed": 2}):
        a, b = families.make_instance(spec), families.make_instance(spec)
        assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y) and a.kernel != "linear"
    if "heart_scale" not in families.real_available():
        pytest.skip("../shared/data absent")
    a = families.make_instance({"family": "real", "dataset": "heart_scale", "n": 25, "seed": 7})
    b = families.make_instance({"family": "real", "dataset": "heart_scale", "n": 25, "seed": 7})
    c = families.make_instance({"family": "real", "dataset": "heart_scale", "n": 25, "seed": 8})
    assert np.array_equal(a.X, b.X) and a.n == 25 and not np.array_equal(a.X, c.X)


def test_missing_real_data_is_skipped(monkeypatch):
    monkeypatch.setattr(families, "data_dir", lambda: None)
    families._load_real.cache_clear()
    try:
        row = bounds.evaluate_task({"target": "snkp", "spec": {"family": "real", "dataset": "heart_scale", "n": 10}, "args": {}})
        assert row["status"] == "skipped" and math.isnan(row["ratio"])
        tasks = bounds.sweep_tasks(bounds.get_target("snkp"), families=["real"])
        assert tasks == []
    finally:
        families._load_real.cache_clear()


def test_ratio_is_observed_over_bound():
    row = bounds.evaluate_task({"target": "snkp", "spec": {"family": "planted", "n": 10, "d": 3, "margin": 0.1, "spread": 0.2}, "args": {}})
    assert row["status"] == "separator"
    assert row["bound"] == pytest.approx(2 * math.sqrt(2 * math.log(10)) / 0.1)
    assert row["ratio"] == row["observed"] / row["bound"]
    assert row["margin_source"] == "planted" and row["margin"] == 0.1
    # Novikoff is attained exactly on orthonormal data: ratio 1, not "beaten"
    row = bounds.evaluate_task({"target": "perceptron", "spec": {"family": "orthonormal", "n": 16}, "args": {}})
    assert row["observed"] == 16 and row["ratio"] == pytest.approx(1.0, abs=1e-12)
    assert not bounds.beaten(row)
    assert bounds.beaten({"status": "max_iter", "ratio": 1.5}) and bounds.beaten({"status": "FAILS", "ratio": 0.3})
    assert not bounds.beaten({"status": "holds", "ratio": 1.0 + 1e-12})


def test_not_applicable_rows():
    row = bounds.evaluate_task({"target": "nvn", "spec": {"family": "planted", "n": 10, "d": 3, "margin": 0.1}, "args": {"epsilon": 0.1}})
    assert row["status"] == "n/a" and math.isnan(row["ratio"])
    row = bounds.evaluate_task({"target": "perceptron", "spec": {"family": "rings", "n": 10}, "args": {}})
    assert row["status"] == "n/a"


def test_check_targets_use_the_verdict():
    row = bounds.evaluate_task({"target": "RP14.theorem1", "spec": {"family": "planted", "n": 10, "d": 3, "margin": 0.1, "spread": 0.2}, "args": {}})
    assert row["status"] in ("holds", "FAILS") and 0 <= row["ratio"] <= 1


def test_csv_is_byte_identical_for_the_same_seed_and_differs_for_another(tmp_path):
    a = _run(tmp_path / "a", seed=0)
    b = _run(tmp_path / "b", seed=0)
    c = _run(tmp_path / "c", seed=1)
    assert a == b
    assert a != c
    assert a.count(b"\n") > 10


def test_jobs_do_not_change_the_csv(tmp_path):
    a = _run(tmp_path / "j1", jobs=1, target="nvn", families=["infeasible", "wolfe"], ns=[6])
    b = _run(tmp_path / "j2", jobs=2, target="nvn", families=["infeasible", "wolfe"], ns=[6])
    assert a == b


def test_search_finds_at_least_the_sweep_ratio():
    tgt = bounds.get_target("snkp")
    tasks = bounds.sweep_tasks(tgt, families=["planted"], ns=[10], margins=[0.1], seeds=2)
    rows = bounds.run_tasks(tasks)
    for t, r in zip(tasks, rows):
        r["_task"] = t
    found = bounds.search(tgt, rows, budget=16, seed=0)
    best_sweep = max(r["ratio"] for r in rows)
    best = max([best_sweep] + [r["ratio"] for r in found if math.isfinite(r["ratio"])])
    assert best >= best_sweep
    assert len(found) == 16 and all(r["phase"] == "search" for r in found)
    # the elite keeps the sweep's best, so the search's best including its start is never worse
    again = bounds.search(tgt, rows, budget=16, seed=0)
    assert [r["ratio"] for r in again] == [r["ratio"] for r in found]


def test_case_file_round_trips(tmp_path):
    task = {"target": "nkp", "spec": {"family": "orthonormal", "n": 8, "seed": 1}, "args": {}, "phase": "sweep"}
    row = bounds.evaluate_task(task)
    row["_task"] = task
    path = tmp_path / "case.json"
    doc = bounds.write_case(path, row, "margins bounds nkp")
    back = bounds.load_case(path)
    assert back == json.loads(path.read_text())
    assert back["schema_version"] == bounds.SCHEMA_VERSION and back["kind"] == "bounds-case"
    assert back["instance"]["y"] == [int(v) for v in families.make_instance(task["spec"]).y]
    again = bounds.replay_case(path)
    assert again["observed"] == row["observed"] and again["ratio"] == row["ratio"] == doc["ratio"]
    bad = dict(back, schema_version=99)
    with pytest.raises(ValueError, match="schema_version"):
        bounds.load_case(bad)
    with pytest.raises(ValueError, match="kind"):
        bounds.load_case(dict(back, kind="corpus"))


@pytest.mark.parametrize("path", sorted(CASES.glob("*.json")), ids=lambda p: p.stem)
def test_saved_cases_replay(path):
    """Worst instances found by `margins bounds --search` replay to the recorded ratio; a case
    that beat its printed statement still beats it."""
    doc = bounds.load_case(path)
    row = bounds.replay_case(doc)
    if row.get("status") == "n/a" and "zero_margin" in doc.get("flags", ()):
        # an instance whose exact margin is 0: the sign of the computed margin of its rounded G is
        # round-off (another BLAS kernel rounds G otherwise), and a target that needs rho_K < 0
        # does not apply there -- the one other outcome a zero-margin case may have
        assert row["ratio"] != row["ratio"]  # NaN: no ratio claimed
        return
    assert row["ratio"] == pytest.approx(doc["ratio"], rel=1e-6, abs=1e-9)
    assert bounds.beaten(row) == doc["beaten"]


@pytest.mark.parametrize("path", sorted(CASES.glob("*.json")), ids=lambda p: p.stem)
def test_saved_cases_as_validate_cases(path, tmp_path):
    """Every saved bounds-case of an algorithm target converts to a validation case (with the
    searched arguments) on which the reference conforms; targets without an algorithm have none."""
    from theorems.validate import validate

    doc = bounds.load_case(path)
    vpath = bounds.write_validate_case(tmp_path, doc)
    if bounds.get_target(doc["target"]).algorithm is None:  # checks, lemma7*: nothing to validate
        assert vpath is None
        return
    alg = doc["algorithm"]
    assert vpath == tmp_path / f"{alg}.json"
    r = validate(alg, getattr(reference, alg), budget=0, cases_dir=tmp_path)
    assert r.conforms and r.cases == 1, r.format()


def test_plot_or_clear_message(tmp_path, monkeypatch):
    rows = [{"family": "planted", "phase": "sweep", "observed": 3.0, "bound": 10.0},
            {"family": "wolfe", "phase": "search", "observed": 5.0, "bound": 6.0}]
    if bounds.outputs._have_matplotlib():
        assert bounds.write_plot(tmp_path / "p.png", rows, "t") is None
        assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    msg = bounds.write_plot(tmp_path / "q.png", rows, "t")
    assert msg == bounds.PLOT_MISSING and "pip install" in msg and "matplotlib" in msg
    assert not (tmp_path / "q.png").exists()


def test_cli_bounds_quick(tmp_path, capsys):
    out = tmp_path / "out"
    rc = cli_main(["bounds", "snkp", "--quick", "--out", str(out), "--no-progress"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "ratio" in text and "max ratio (sweep)" in text
    for f in ("snkp.csv", "snkp.json", "cases/snkp.json", "validate/snkp/snkp.json"):
        assert (out / f).is_file(), f
    if bounds.outputs._have_matplotlib():
        assert (out / "snkp.png").is_file()
    doc = json.loads((out / "snkp.json").read_text())
    assert doc["rows"] and doc["command"].startswith("margins bounds snkp")
    assert bounds.replay_case(out / "cases" / "snkp.json")["ratio"] == pytest.approx(
        json.loads((out / "cases" / "snkp.json").read_text())["ratio"])


def test_cli_bounds_rejects_unknown_target(capsys):
    assert cli_main(["bounds", "no_such_bound"]) == 2
    assert "unknown bound" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("tid", bounds.target_ids())
def test_every_target_sweeps_and_searches(tid, tmp_path):
    doc = bounds.explore(tid, seeds=1, do_search=True, budget=16, out=str(tmp_path), jobs=1, plot=False,
                         progress=False, quick=True)
    entry = doc["targets"][0]
    assert entry["errors"] == 0
    assert entry["applicable"] > 0


def test_explicit_q_in_arguments():
    inst = families.make_instance({"family": "chord", "n": 8, "margin": 0.002})
    q = _q_vector(inst, ["1/2", "1/2", 0, 0, 0, 0, 0, 0])
    assert q.tolist() == [0.5, 0.5, 0, 0, 0, 0, 0, 0]
    with pytest.raises(ValueError, match="q: an explicit q must be 8"):
        _q_vector(inst, [0.5, 0.6, 0, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="q: an explicit q must be 8"):
        _q_vector(inst, [1.0])
    with pytest.raises(ValueError, match="q: an explicit q"):
        _q_vector(inst, ["1/0", 1, 0, 0, 0, 0, 0, 0])


def test_chord_family_refutes_the_printed_lemma7_exactly_and_the_corrected_form_holds():
    spec = {"family": "chord", "n": 8, "margin": 0.002}
    inst = families.make_instance(spec)
    assert inst.known["exact_X"][0] == ["999999/1000001", "2000/1000001"]  # the 8-point counterexample's x1
    row = bounds.evaluate_task({"target": "lemma7.printed", "spec": spec, "args": {}})
    assert row["status"].startswith("exact: FAILS") and bounds.beaten(row)
    assert row["ratio"] == pytest.approx(1.0334, abs=2e-4)
    assert json.loads(row["args"])["q"] == ["1/2", "1/2", "0", "0", "0", "0", "0", "0"]  # the attaining q, explicit
    ok = bounds.evaluate_task({"target": "lemma7", "spec": spec, "args": {}})
    assert ok["status"].startswith("exact: holds") and not bounds.beaten(ok) and ok["ratio"] < 0.9
    # far from the origin the chord no longer refutes it (h = 0.1: ratio 0.93), decided exactly too
    far = bounds.evaluate_task({"target": "lemma7.printed", "spec": dict(spec, margin=0.1), "args": {}})
    assert far["status"].startswith("exact: holds") and not bounds.beaten(far)
    with pytest.raises(ValueError, match="n >= 6"):
        families.make_instance({"family": "chord", "n": 5})


def test_rationalize_gives_exact_unit_vectors_next_to_the_points():
    from fractions import Fraction

    inst = families.make_instance({"family": "circle", "n": 9, "seed": 4})
    rat = families.rationalize(inst)
    for row, x in zip(rat.known["exact_X"], np.asarray(inst.X)):
        fr = [Fraction(v) for v in row]
        assert sum(v * v for v in fr) == 1
        assert np.max(np.abs(np.array([float(v) for v in fr]) - x)) < 1e-8
    x3 = families.rational_unit([-0.3, 0.5, -0.8])
    assert sum(v * v for v in x3) == 1 and x3[0] < 0


def test_lemma7_case_file_holds_an_exact_instance_and_q_and_replays_exactly(tmp_path):
    """A search row on float data becomes a case file with a rationalized instance
    (known["exact_X"]) and the attaining q written explicitly; its replay decides exactly."""
    spec = {"family": "regular", "shape": "polygon", "n": 8, "d": 2, "seed": 0}
    inst = families.make_instance(spec)
    X = np.array(inst.X)
    X[0] = -X[4] * np.array([1.0, 1.0]) + np.array([0.0, 0.004])  # a near-diametral chord
    espec = families.explicit_spec(type(inst)("perturbed-octagon", X, inst.y))
    task = {"target": "lemma7.printed", "spec": espec, "args": {}}
    row = dict(bounds.evaluate_task(task), _task=task)
    doc = bounds.write_case(tmp_path / "c.json", row)
    assert "exact_X" in doc["instance"]["known"] and isinstance(doc["args"]["q"], list)
    again = bounds.replay_case(tmp_path / "c.json")
    assert again["status"] == doc["status"] and again["status"].startswith("exact:")
    assert again["ratio"] == pytest.approx(doc["ratio"], rel=1e-9)


def test_search_evaluates_no_instance_twice():
    """The explicit-data conversion is followed by a move of the points, so the search never
    re-evaluates the instance it started from (it used to: duplicate rows in the bounds table)."""
    tgt = bounds.get_target("snkp")
    tasks = bounds.sweep_tasks(tgt, families=["moons", "planted"], ns=[12], seeds=1, quick=True)
    rows = bounds.run_tasks(tasks)
    for t, r in zip(tasks, rows):
        r["_task"] = t
    found = bounds.search(tgt, rows, budget=24, seed=0)
    assert any(r["_task"]["spec"]["family"] == "explicit" for r in found)  # the move was exercised
    keys = [_data_key(r) for r in rows + found]
    assert len(keys) == len(set(keys))
