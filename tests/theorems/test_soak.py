"""Tests of theorems/test_soak.py."""

from __future__ import annotations

import numpy as np


def test_soak_short_slice_finds_nothing():
    from theorems.soak import CLASSES, soak

    report = soak(runs=len(CLASSES) * 2, seed=11, hang_seconds=60)
    t = report.total()
    assert report.instances == len(CLASSES) * 2 and t.runs == report.instances * 11
    assert t.claims > 0
    assert report.ok, report.failures[:3]


def test_soak_input_forms_mean_exactly_the_instance():
    """Every input form the soak passes is the instance's X exactly: the non-canonical CSR
    (duplicates, unsorted indices, explicit zeros) really is non-canonical, and sums to X."""
    import itertools

    from reference.data import check_csr
    from theorems.soak import FORMS, instances

    seen = set()
    for inst in itertools.islice(instances(5), 120):
        seen.add(inst.form)
        M = inst.data()
        if inst.form == "dense":
            assert M is inst.X
            continue
        if inst.form != "csr":
            assert not M.has_canonical_format, inst
        assert np.array_equal(check_csr(M).toarray(), inst.X), inst
    assert seen == set(FORMS)


def test_soak_is_deterministic_for_a_seed():
    from theorems.soak import soak

    a, b = soak(runs=5, seed=3), soak(runs=5, seed=3)
    assert a.rows() == b.rows()


def _validate_style_pdm(X, y, epsilon, *, rho=1.0, Delta=None, max_iter=100_000):
    """A user's PDM with the calling convention of `margins validate` (no max_epochs, precision,
    active_sets ...), answering with a mapping."""
    import reference

    r = reference.pdm(X, y, epsilon, rho=rho, Delta=Delta, max_iter=max_iter)
    return {"status": r.status, "iterations": r.iterations, "w": r.w}


def _pdm_without_w(X, y, epsilon, *, rho=1.0, Delta=None, max_iter=100_000):
    return {"status": "separator", "iterations": 0}


def _overflowing_pdm(X, y, epsilon, *, rho=1.0, Delta=None, max_iter=100_000):
    """Squares the data's scale in its test (at 1e200 the products overflow to inf, inf - inf is
    NaN, and NaN comparisons pass): claims a separator it never checked."""
    r = _validate_style_pdm(X, y, epsilon, rho=rho, Delta=Delta, max_iter=max_iter)
    if r["status"] == "max_iter":
        scale = float(np.max(np.abs(X.toarray() if hasattr(X, "toarray") else np.asarray(X))))
        if not (scale * scale < np.inf):
            r["status"] = "separator"
    return r


def test_soak_runs_a_users_callable_with_the_validate_convention():
    """soak(algorithms=..., only=True) calls a validate-style callable with the keywords it takes
    (it used to get max_epochs=200: a TypeError), reads a mapping answer (it used to be a 'FALSE
    CLAIM ... AttributeError'), reports an unreadable answer as a contract error, and finds a
    false claim at extreme scales."""
    from theorems.soak import soak

    ok = soak(runs=12, algorithms={"pdm": _validate_style_pdm}, only=True)
    assert ok.ok and set(ok.tallies) == {"pdm"} and ok.tallies["pdm"].claims > 0, ok.failures
    bad = soak(runs=4, algorithms={"pdm": _pdm_without_w}, only=True)
    t = bad.tallies["pdm"]
    assert not bad.ok and t.contract_errors == t.runs and t.false_claims == 0 and t.crashes == 0
    assert "CONTRACT ERROR: status 'separator' without w" in bad.failures[0] and "contract errors" in bad.table()
    over = soak(runs=40, algorithms={"pdm": _overflowing_pdm}, only=True)
    assert over.tallies["pdm"].false_claims >= 1 and any("extreme_scale" in f and "FALSE CLAIM" in f for f in over.failures)


def test_margins_soak_impl(tmp_path, capsys):
    from theorems.cli import main

    assert main(["soak", "--runs", "6", "--impl", "pdm=tests.theorems.test_soak:_validate_style_pdm"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[2].split()[0] == "pdm" and "no false claim" in out
    assert main(["soak", "--runs", "3", "--impl", "pdm=tests.theorems.test_soak:_pdm_without_w"]) == 1
    assert "CONTRACT ERROR" in capsys.readouterr().out
    assert main(["soak", "--runs", "1", "--impl", "pdx=tests.theorems.test_soak:_pdm_without_w"]) == 2
    assert "expected ALGO=MODULE:FN" in capsys.readouterr().err
