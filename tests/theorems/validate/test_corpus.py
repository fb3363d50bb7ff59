"""Tests of theorems/validate/corpus.py: what the fixed corpus and the deep tier cover."""

from __future__ import annotations

import time
from dataclasses import replace
from fractions import Fraction

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
        assert np.all(q >= 0) and sum(map(Fraction, q)) == 1 and (c.n == 1 or not np.allclose(q, 1.0 / c.n))
    r = validate("snkpvn", cc.snkpvn_uniform_prox_centre, budget=0, skip_flags=("antipodal",))
    assert not r.conforms and all("q=simplex" in cid for cid, _ in r.failing["trajectory.final"]), r.format()


@pytest.mark.parametrize("n", [1, 2, 3, 7, 16, 33])
def test_a_drawn_prox_centre_lies_on_the_simplex_exactly(n):
    """simplex_point: multiples of 2^-40, none negative, summing to exactly 1 -- in exact arithmetic
    and in float64 in any order (a Dirichlet draw summed in float64 misses 1 by an ulp for about one
    (n, seed) in six) -- the same point for the same seed, another for another seed."""
    from theorems.validate.corpus import simplex_point

    for seed in range(40):
        q = simplex_point(n, seed)
        k = q * 2.0**40
        assert q.shape == (n,) and q.dtype == np.float64 and np.all(q >= 0), (n, seed, q)
        assert np.array_equal(k, np.floor(k)) and sum(map(Fraction, q)) == 1, (n, seed, q)
        assert float(np.sum(q)) == 1.0 and float(np.sum(q[::-1])) == 1.0 and np.array_equal(simplex_point(n, seed), q)
        if n > 1:
            assert not np.array_equal(simplex_point(n, seed + 1), q) and not np.allclose(q, 1.0 / n), (n, seed)


def test_the_search_varies_q():
    from tests.support.mutants import counters_and_choices as cc

    r = validate("snkpvn", cc.snkpvn_uniform_prox_centre, budget=30, skip_flags=("q_simplex", "antipodal"))
    assert not r.conforms and r.minimal.shrunk and "q=simplex" in r.minimal.case_id, r.format()


@pytest.mark.parametrize("algorithm", ["pdm", "pfm", "pdm_succ"])
def test_every_pt11_case_also_runs_with_csr_x(algorithm):
    cases = corpus(algorithm)
    dense = {c.case_id: c for c in cases if "csr" not in c.flags}
    csr = {c.case_id: c for c in cases if "csr" in c.flags}

    def csr_id(cid):  # a variant gets ",csr" appended; a case without one gets the variant "csr"
        return cid + (",csr" if cid.count("/") == 2 else "/csr")

    assert set(csr) == {csr_id(cid) for cid in dense}
    for cid, c in dense.items():
        s = csr[csr_id(cid)]
        assert s.flags == c.flags + ("csr",) and s.reference == c.reference and s.max_iter == c.max_iter, cid
    seen = []

    def pdm_like(X, y, acc, *, rho=1.0, Delta=None, max_iter=100, **kw):
        seen.append(type(X).__name__)
        return getattr(reference, algorithm)(X, y, acc, rho=rho, Delta=Delta, max_iter=max_iter, max_epochs=10**9)

    assert validate(algorithm, pdm_like, budget=0).conforms
    assert {"ndarray", "csr_matrix"} <= set(seen)


def test_as_csr_names_the_case_with_its_variant_or_as_the_variant_csr():
    from theorems.validate.corpus import as_csr

    plain = next(c for c in corpus("pdm") if c.case_id.count("/") == 2 and "csr" not in c.flags)
    head = plain.case_id.rpartition("/")[0]
    assert as_csr(plain).case_id == plain.case_id + ",csr"
    bare = replace(plain, case_id=head)
    assert as_csr(bare).case_id == head + "/csr" and as_csr(bare).flags == plain.flags + ("csr",)


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


# -- what the corpus holds, by construction ------------------------------------------------------------------

from theorems.validate.corpus import _corpus_instances  # noqa: E402

#: The corpus's instances (docs/validation.md): every degenerate case, RP14's worked example, planted separable
#: and infeasible instances, two kernel instances, the long ill-conditioned run, four random infeasible
#: instances of small dimension and the rounded antipodal pair.
INSTANCES = [
    "deg:n1", "deg:n1,d1", "deg:d1,feasible", "deg:d1,infeasible", "deg:duplicates", "deg:antipodal,same-label",
    "deg:antipodal,opposite-labels", "deg:collinear,infeasible", "deg:collinear,feasible", "deg:orthonormal(n=4)",
    "deg:zero-margin", "deg:square(ties)", "deg:planted(d=3,m=2,n=5,rho=0.02,unit,seed=11)", "rp14_example(r=3,n=6)",
    "planted(d=3,m=3,n=8,rho=0.3,unit,seed=1)", "planted(d=4,m=3,n=9,rho=0.2,c=2,seed=2)", "infeasible(simplex,d=2,n=3,seed=0)",
    "infeasible(random,d=3,n=6,seed=5)", "kernel(gaussian,sigma=1.0,n=8,d=2,seed=3)", "kernel(polynomial,c=1.0,degree=2,n=6,d=2,seed=4)",
    "planted(d=5,m=3,n=7,rho=0.0003,unit,seed=0)", "infeasible(random,d=1,n=8,seed=3)", "infeasible(random,d=1,n=8,seed=7)",
    "infeasible(random,d=2,n=8,seed=4)", "infeasible(random,d=2,n=8,seed=9)", "antipodal-rounded",
]  # fmt: skip


def test_the_corpus_instances():
    insts = _corpus_instances()
    assert [i.name for i in insts] == INSTANCES
    long_run = insts[INSTANCES.index("planted(d=5,m=3,n=7,rho=0.0003,unit,seed=0)")]
    assert {"small_margin", "long_run"} <= set(long_run.flags)
    rounded = insts[-1]
    assert rounded.X.tolist() == [[1.0, 1.0], [-1.0, -1.0]] and rounded.y.tolist() == [1, 1]
    assert set(rounded.flags) == {"antipodal", "infeasible", "one_class"}
    G = reference.gram(rounded.X, rounded.y)
    assert G[0, 1] == -0.9999999999999998  # the rounding the instance is there for


def _variants(algorithm):
    out = {}
    for c in corpus(algorithm):
        parts = c.case_id.split("/", 2)
        out.setdefault(parts[1], []).append(parts[2] if len(parts) == 3 else "")
    return out


def test_each_algorithm_runs_its_variants_of_every_instance():
    v = _variants("perceptron")
    assert v["planted(d=3,m=3,n=8,rho=0.3,unit,seed=1)"] == ["", "rule=most_violated"]
    v = _variants("pdm")
    assert v["planted(d=3,m=3,n=8,rho=0.3,unit,seed=1)"][:3] == ["eps=0.3", "eps=0.7", "eps=0.3,Delta=1"]
    for alg in ("pfm", "pdm_succ"):
        assert _variants(alg)["planted(d=3,m=3,n=8,rho=0.3,unit,seed=1)"][:2] == ["", "Delta=1"]
    v = _variants("snkpvn")
    assert v["rp14_example(r=3,n=6)"][:2] == ["", "q=simplex"]
    assert _variants("snkp")["rp14_example(r=3,n=6)"] == [""]
    for c in corpus("snkpvn"):
        assert ("q_simplex" in c.flags) == c.case_id.endswith("/q=simplex")
    pdm = {c.case_id: c for c in corpus("pdm")}
    assert pdm["pdm/planted(d=3,m=3,n=8,rho=0.3,unit,seed=1)/eps=0.7"].args["epsilon"] == 0.7
    assert pdm["pdm/planted(d=3,m=3,n=8,rho=0.3,unit,seed=1)/eps=0.3,Delta=1"].args["Delta"] == 1.0


@pytest.mark.parametrize("algorithm", ["perceptron", "snkp", "pdm", "pfm"])
def test_budget_cases_halve_the_references_count_on_the_first_two_slow_cases(algorithm):
    cases = corpus(algorithm)
    plain = [c for c in cases if not ({"budget", "csr"} & set(c.flags))]
    slow = [c for c in plain if c.reference["status"] != "max_iter" and c.reference["iterations"] >= 6][:2]
    budget = [c for c in cases if "budget" in c.flags and "crossing" not in c.flags and "csr" not in c.flags]
    assert len(slow) == 2 and len(budget) == 2
    for s, b in zip(slow, budget):
        assert b.name == s.name and b.max_iter == s.reference["iterations"] // 2 and not b.termination_required
        assert b.args == s.args or all(np.array_equal(b.args[k], s.args[k]) for k in s.args)
        assert b.case_id.endswith("budget") and b.reference["status"] == "max_iter"


@pytest.mark.parametrize("algorithm", ["pdm", "pfm", "pdm_succ"])
def test_crossing_budgets_fall_inside_a_multiple_update(algorithm):
    cases = [c for c in corpus(algorithm) if "crossing" in c.flags and "csr" not in c.flags]
    assert 1 <= len(cases) <= 2
    for c in cases:
        assert c.case_id.endswith("budget=crossing") and "budget" in c.flags
        pos = [c.args["beta"]] if algorithm == "pfm" else [c.args["epsilon"]]
        res = getattr(reference, algorithm)(c.X, c.y, *pos, rho=1.0, Delta=c.args["Delta"], multiple_updates=True,
                                            max_iter=10**6, max_epochs=10**9, trace=True)  # fmt: skip
        ts = [s.t for s in res.trace]
        assert any(a < c.max_iter < b for a, b in zip(ts, ts[1:]))  # t jumps over the budget


def test_crossing_budgets_pass_over_cases_that_do_not_separate():
    """Budget cases (the reference stops at their budget) are passed over, and at most two crossing
    cases are made: the same ones with such a case first in the list."""
    from theorems.validate.corpus import _crossing_budgets

    cases = corpus("pdm")
    plain = [c for c in cases if not ({"budget", "csr"} & set(c.flags))]
    halved = [c for c in cases if "budget" in c.flags and "crossing" not in c.flags and "csr" not in c.flags]
    assert halved and all(c.reference["status"] == "max_iter" for c in halved)
    want = [c.case_id for c in _crossing_budgets("pdm", plain)]
    assert len(want) == 2 and want == [c.case_id for c in cases if "crossing" in c.flags and "csr" not in c.flags]
    assert [c.case_id for c in _crossing_budgets("pdm", halved + plain)] == want


def test_a_variant_is_added_to_a_case_id_after_a_comma_or_as_the_variant():
    from theorems.validate.corpus import _and_variant

    assert _and_variant("pdm/planted(d=3,m=3,n=8,rho=0.3,unit,seed=1)/eps=0.3,Delta=1", "budget") == "eps=0.3,Delta=1,budget"
    assert _and_variant("pfm/deg:n1", "budget=crossing") == "budget=crossing"


@pytest.mark.parametrize("algorithm", ["pdm", "pfm", "pdm_succ"])
def test_a_crossing_budget_case_is_a_separating_plain_case_with_its_arguments_and_a_budget(algorithm):
    """Each crossing case comes from a plain case of the corpus (same instance, same arguments, Delta
    and epsilon included) on which the reference separates; its id is that case's id with
    ``budget=crossing`` added to the variant."""
    cases = corpus(algorithm)
    plain = {c.case_id: c for c in cases if not ({"budget", "csr"} & set(c.flags))}
    crossing = [c for c in cases if "crossing" in c.flags and "csr" not in c.flags]
    assert crossing
    for c in crossing:
        head, _, variant = c.case_id.rpartition("/")
        src = plain[head + "/" + variant[: -len(",budget=crossing")]] if "," in variant else plain[head]
        assert src.name == c.name and src.reference["status"] == "separator", c.case_id
        assert c.args == src.args and c.max_iter < src.reference["iterations"], (c.case_id, c.args, src.args)
        assert c.reference["status"] == "max_iter" and c.reference["iterations"] == c.max_iter, c.reference


# -- the deep tier, as docs/validation.md describes it ----------------------------------------------------------


@pytest.mark.parametrize("algorithm, about", [("snkp", 32_000), ("snkpvn", 48_000)])
def test_the_deep_tier_rp14_run_is_the_long_instance_with_a_ten_times_smaller_margin(algorithm, about):
    (c,) = deep_corpus(algorithm)
    assert c.case_id == f"{algorithm}/planted(d=5,m=3,n=7,rho=3e-05,unit,seed=0)/deep", c.case_id
    assert {"small_margin", "long_run", "deep"} <= set(c.flags) and "csr" not in c.flags, c.flags
    assert c.reference["status"] == "separator" and about / 2 < c.reference["iterations"] < 2 * about, c.reference
    assert c.reference["iterations"] <= c.max_iter <= 60_000, c.max_iter


@pytest.mark.parametrize("algorithm", ["perceptron", "nkp", "isnkpvn"])
def test_the_deep_tier_holds_only_long_runs(algorithm):
    """The RP14 instance is long for SNKP and SNKPVN only; a family member whose run is short there
    (or that has no case on it) adds nothing to the deep tier."""
    assert deep_corpus(algorithm) == []


@pytest.mark.slow
def test_the_deep_tier_pt11_run_is_thirty_points_at_eps_one_percent_dense_and_csr():
    dense, csr = deep_corpus("pdm")
    name = "pdm/planted(d=3,m=3,n=30,rho=0.002,unit,seed=3)/eps=0.01,deep"
    assert (dense.case_id, csr.case_id) == (name, name + ",csr")
    assert "csr" not in dense.flags and csr.flags == dense.flags + ("csr",)
    for c in (dense, csr):
        assert {"small_margin", "long_run", "deep"} <= set(c.flags) and c.args["epsilon"] == 0.01, c.case_id
        assert c.reference["status"] == "separator" and 100_000 < c.reference["iterations"] <= c.max_iter, c.reference
        assert c.max_iter == 2_000_000 and not c.termination_required, (c.max_iter, c.termination_required)
    assert csr.reference == dense.reference


def test_the_long_run_instance_is_the_planted_one_with_the_two_flags_added():
    from theorems.instances import strategies as S

    planted = S.planted_separable(5, 3, 4, 3e-4, seed=0)
    long_run = _corpus_instances()[INSTANCES.index("planted(d=5,m=3,n=7,rho=0.0003,unit,seed=0)")]
    assert long_run.flags == tuple(dict.fromkeys(tuple(planted.flags) + ("small_margin", "long_run")))
    assert np.array_equal(long_run.X, planted.X) and np.array_equal(long_run.y, planted.y)


def test_the_corpus_is_built_within_the_cap_it_is_given():
    """corpus(algorithm, cap): no case hands an implementation a budget above cap (validate's
    ``cap``), also where no theorem bounds the run (a Perceptron on infeasible data, 500 by default)."""
    wide = corpus("nkp")
    assert max(c.max_iter for c in wide) > 1000
    assert max(c.max_iter for c in corpus("nkp", 1000)) <= 1000
    unbounded = [c for c in corpus("perceptron") if "infeasible" in c.flags and not c.termination_required]
    assert unbounded and all(c.max_iter == 500 for c in unbounded), [(c.case_id, c.max_iter) for c in unbounded]
    narrow = corpus("perceptron", 100)
    assert len(narrow) == len(corpus("perceptron")) and max(c.max_iter for c in narrow) <= 100
    assert max(c.max_iter for c in corpus("perceptron", 1)) == 1  # the smallest cap there is
    for cap in (0, "500", None):
        with pytest.raises(ValueError, match=rf"^cap must be an integer >= 1, got {cap!r}$"):
            corpus("perceptron", cap)


def test_each_variant_holds_the_arguments_its_tag_names():
    for alg in ("pfm", "pdm_succ"):
        ext = [c for c in corpus(alg) if c.case_id.split("/", 2)[-1].startswith("Delta=1")]
        assert ext and all(c.args["Delta"] == 1.0 for c in ext)
    mv = [c for c in corpus("perceptron") if c.case_id.split("/", 2)[-1].startswith("rule=most_violated")]
    assert mv and all(c.args["rule"] == "most_violated" for c in mv)


@pytest.mark.parametrize("algorithm", ["perceptron", "snkp", "pdm"])
def test_a_budget_case_is_named_after_its_plain_case(algorithm):
    """A half-budget case's id is its plain case's with ``,budget`` added to the variant, or the
    variant ``budget`` when the plain case has none."""
    cases = corpus(algorithm)
    plain = {c.case_id: c for c in cases if not ({"budget", "csr"} & set(c.flags))}
    budget = [c for c in cases if "budget" in c.flags and "crossing" not in c.flags and "csr" not in c.flags]
    assert len(budget) == 2
    for b in budget:
        head, variant = b.case_id.rsplit("/", 1)
        src = plain[head + "/" + variant[: -len(",budget")]] if variant != "budget" else plain[head]
        assert src.name == b.name and isinstance(b.max_iter, int) and b.max_iter == src.reference["iterations"] // 2
    if algorithm == "pdm":  # every PDM case has a variant (its eps)
        assert all("," in b.case_id.rsplit("/", 1)[1] for b in budget)
    if algorithm == "snkp":  # no SNKP case has one
        assert all(b.case_id.endswith("/budget") for b in budget)
