"""benchmarks/engine_ratios.py runs: its smoke run on the first 4,000 points of a9a, every part
whose inputs it has (slow tier; skipped without the data set, see the README)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.support.numba import needs_numba
from theorems.instances.families import data_dir

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "engine_ratios.py"
DATA = data_dir()


def _script():
    spec = importlib.util.spec_from_file_location("engine_ratios", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@needs_numba
@pytest.mark.skipif(DATA is None or not (DATA / "a9a" / "a9a.gz").exists(), reason="a9a not found ($MARGINS_DATA or ../shared/data)")
def test_the_quick_run_measures_every_part_it_is_asked_for(tmp_path, capsys):
    """A part that raises (an argument the library now refuses, a floor loop that is no longer the
    algorithm, a replay that decides the updates and leaves the run's trajectory) fails here instead
    of in the full run; each ratio is a positive finite number."""
    out = tmp_path / "ratios.json"
    args = ["--quick", "--repeats", "1", "--data-dir", str(DATA), "--json", str(out), "--only", "pdm", "sec4", "snkpvn"]
    assert _script().main(args) == 0
    res = json.loads(out.read_text())
    assert 0 < res["sec4"]["update_visits"] <= res["sec4"]["visits"]  # the script checks the floors replay these
    ratios = [res["pdm"]["ratio_plain_over_floor"], res["snkpvn"]["a9a_operator"]["ratio_step_over_product"]]
    ratios += [res["sec4"]["ratio_over_" + k] for k in ("floor_in_place", "floor_memory_order", "floor_deciding",
                                                                 "floor_with_box_arithmetic")]
    assert all(0 < r < float("inf") for r in ratios), ratios
    assert "Sec. 4" in capsys.readouterr().out


@pytest.mark.slow
@needs_numba
def test_the_replays_that_decide_are_checked_against_the_runs_trajectory():
    """On real-valued data (where ell_t is not an integer and its summation order shows), the
    replays that decide the updates reproduce the run's update count and final ell_t bit for bit,
    and the comparison the script makes can fail: replayed with another eps, the box's arithmetic
    leaves the trajectory."""
    import numpy as np
    import scipy.sparse as sp

    er = _script()
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 8))
    y = np.where(X @ rng.standard_normal(8) > 0, 1, -1)
    X = sp.csr_matrix(X)
    res, rec_j, rec_lam, passes = er.record_visits(X, y, 0.01, cap=10**6)
    P, labels, q = er._patterns(X, y)
    blk = er._blocks(P, labels, q, rec_j, passes)
    run = (res.iterations, res.info["ell"])
    for mode in (er.RECORDED, er.DECIDED, er.BOX):
        assert er.replay_blocks(*blk, 1.0, 1.0, rec_lam, P.n_features, P.m, 0.01, mode) == run, mode
    assert er.replay_blocks(*blk, 1.0, 1.0, rec_lam, P.n_features, P.m, 0.02, er.BOX) != run
