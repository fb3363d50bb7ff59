"""Tests of theorems/validate/corpus.py: what the fixed corpus and the deep tier cover."""

from __future__ import annotations

import time

import numpy as np
import pytest

import reference
from theorems.validate import corpus, validate
from theorems.validate.corpus import deep_corpus


def test_snkpvn_runs_with_a_prox_centre_drawn_from_the_simplex():
    """Every SNKPVN instance also runs with a q other than 1_n/n (an SNKPVN that ignores q, or
    smooths towards 1_n/n, passed every case when q was always uniform)."""
    from tests.support.mutants import counters_and_choices as cc

    cases = corpus("snkpvn")
    drawn = [c for c in cases if "q_simplex" in c.flags]
    assert len(drawn) >= 20
    for c in drawn:
        q = c.args["q"]
        assert np.all(q >= 0) and abs(float(np.sum(q)) - 1.0) <= 1e-15 and (c.n == 1 or not np.allclose(q, 1.0 / c.n))
    r = validate("snkpvn", cc.snkpvn_uniform_prox_centre, budget=0, skip_flags=("antipodal",))
    assert not r.conforms and all("q=simplex" in cid for cid, _ in r.failing["trajectory.final"]), r.format()


def test_the_search_varies_q():
    from tests.support.mutants import counters_and_choices as cc

    r = validate("snkpvn", cc.snkpvn_uniform_prox_centre, budget=30, skip_flags=("q_simplex", "antipodal"))
    assert not r.conforms and r.minimal.shrunk and "q=simplex" in r.minimal.case_id, r.format()


@pytest.mark.parametrize("algorithm", ["pdm", "pfm", "pdm_succ"])
def test_every_pt11_case_also_runs_with_csr_x(algorithm):
    cases = corpus(algorithm)
    dense = {c.case_id for c in cases if "csr" not in c.flags}
    csr = {c.case_id.replace(",csr", "").replace("/csr", "") for c in cases if "csr" in c.flags}
    assert dense == csr
    seen = []

    def pdm_like(X, y, acc, *, rho=1.0, Delta=None, max_iter=100, **kw):
        seen.append(type(X).__name__)
        return getattr(reference, algorithm)(X, y, acc, rho=rho, Delta=Delta, max_iter=max_iter, max_epochs=10**9)

    assert validate(algorithm, pdm_like, budget=0).conforms
    assert {"ndarray", "csr_matrix"} <= set(seen)


def test_a_sparse_reader_that_drops_an_entry_is_rejected_on_csr_only():
    from tests.support.mutants import counters_and_choices as cc

    r = validate("pdm", cc.pdm_csr_drops_first_entry, budget=0)
    assert not r.conforms
    assert all(cid.endswith("csr") for cases in r.failing.values() for cid, _ in cases), r.format()


@pytest.mark.parametrize("algorithm", ["pdm", "pfm", "pdm_succ"])
def test_budgets_that_a_multiple_update_crosses(algorithm):
    """The corpus has budget cases inside a multiple update of the reference's PT11 Sec. 4 run;
    the reference caps lambda there (t <= max_iter), an uncapped implementation is rejected."""
    crossing = [c for c in corpus(algorithm) if "crossing" in c.flags and "csr" not in c.flags]
    assert crossing
    for c in crossing:
        pos = [c.args["beta"]] if algorithm == "pfm" else [c.args["epsilon"]]
        run = lambda budget: getattr(reference, algorithm)(c.X, c.y, *pos, rho=c.args["rho"], Delta=c.args["Delta"],
                                                           multiple_updates=True, max_iter=budget, max_epochs=10**9, trace=True)
        free = run(10 * c.max_iter)  # with room, a multiple update starts at t = max_iter - 1 and ends beyond it
        assert any(a.t == c.max_iter - 1 and b.t - a.t >= 2 for a, b in zip(free.trace, free.trace[1:]))
        assert run(c.max_iter).iterations <= c.max_iter  # the reference caps it
    if algorithm == "pdm":
        from tests.support.mutants import counters_and_choices as cc

        bad = validate("pdm", cc.pdm_multiple_uncapped, budget=0, options={"multiple_updates": True})
        assert not bad.conforms and "above the budget" in bad.failing["claim.max_iter"][0][1]


def test_random_infeasible_instances_of_small_dimension():
    cases = [c for c in corpus("snkpvn") if c.case_id.startswith("snkpvn/infeasible(random,d=1")]
    assert len(cases) >= 2 and all(c.m_hi < 0 for c in cases)


def test_the_deep_tier_has_a_long_pt11_and_a_long_rp14_run_within_a_minute():
    t0 = time.perf_counter()
    (snkp,) = deep_corpus("snkp")
    assert snkp.reference["iterations"] > 20_000
    r = validate("snkp", reference.snkp, budget=0, deep=True)
    assert r.conforms and r.cases == len(corpus("snkp")) + 1, r.format()
    assert time.perf_counter() - t0 < 60


@pytest.mark.slow
def test_the_deep_tier_catches_a_counter_that_wraps_on_long_runs():
    """A 16-bit update counter is right on every short run; the deep tier's PDM run (about
    215,000 updates at eps = 0.01) exposes it, within a minute."""
    from tests.support.mutants import counters_and_choices as cc

    t0 = time.perf_counter()
    (pdm, _) = deep_corpus("pdm")
    assert pdm.reference["iterations"] > 100_000
    assert validate("pdm", cc.pdm_short_counter, budget=0).conforms
    r = validate("pdm", cc.pdm_short_counter, budget=0, deep=True)
    assert not r.conforms and "not a nonnegative integer" in r.failing["answer.contract"][0][1]
    assert time.perf_counter() - t0 < 60
