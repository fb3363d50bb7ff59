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
