"""Tests of theorems/validate/test_search.py."""

import time
from fractions import Fraction

from tests.support.validate import _hangs
from theorems.validate.report import Report
from theorems.validate.search import _hypothesis_search


def test_hypothesis_search_stops_at_the_first_timeout_without_shrinking():
    calls = []

    def hangs_on_drawn(G, **kw):
        calls.append(1)
        _hangs(G)

    t0 = time.perf_counter()
    f = _hypothesis_search("snkp", hangs_on_drawn, Report("snkp", "x", True), examples=20, seed=0, strict=False, timeout=0.2)
    assert time.perf_counter() - t0 < 5 and len(calls) == 1
    assert f is not None and not f.shrunk and "no answer within" in f.message


# -- what the search draws, records and returns ------------------------------------------------------------

import functools  # noqa: E402
import os  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import reference  # noqa: E402
from theorems.validate.report import FAIL  # noqa: E402


def _search(algorithm, impl, examples=12, seed=0, **kw):
    rep = Report(algorithm, "x", True)
    seen = []

    def spy(*args, **kwargs):
        seen.append((args, kwargs))
        return impl(*args, **kwargs)

    f = _hypothesis_search(algorithm, spy, rep, examples=examples, seed=seed, strict=False, **kw)
    return f, rep, seen


def test_the_reference_passes_its_own_search_and_every_drawn_case_is_recorded():
    f, rep, seen = _search("snkp", reference.snkp, examples=10)
    assert f is None and rep.cases == len(seen) >= 5
    assert not any(v.get(FAIL) for v in rep.counts.values())
    assert all(sum(v.values()) == rep.cases for k, v in rep.counts.items() if k == "answer.contract")


def test_the_same_seed_draws_the_same_instances_another_seed_others():
    def shapes(seen):
        return [tuple(np.shape(a[0])) + (float(np.sum(a[0])),) for a, _ in seen]

    _, _, a = _search("nkp", reference.nkp, examples=8, seed=3)
    _, _, b = _search("nkp", reference.nkp, examples=8, seed=3)
    _, _, c = _search("nkp", reference.nkp, examples=8, seed=4)
    assert shapes(a) == shapes(b) and shapes(a) != shapes(c)


def test_a_bug_is_found_shrunk_and_only_the_cases_before_it_are_counted():
    def wrong_status(G, **kw):
        res = reference.snkp(G, **kw)
        return {"status": "certificate" if res.status == "separator" else res.status, "iterations": res.iterations,
                "alpha": res.alpha, "p": res.p}  # fmt: skip

    f, rep, seen = _search("snkp", wrong_status, examples=30)
    assert f is not None and f.shrunk and "certificate" in f.message
    assert len(seen) > rep.cases  # the shrinking calls are not cases of their own
    assert sum(len(v) for v in rep.failing.values()) >= 1 and rep.cases >= 1
    assert len(f.instance["X"]) <= 3  # shrunk to a small instance


def test_snkpvn_draws_the_prox_centre_from_the_simplex_as_well_as_uniform():
    qs = []

    def record_q(G, q, delta, **kw):
        qs.append(np.asarray(q))
        return reference.snkpvn(G, q, delta, **kw)

    f, rep, _ = _search("snkpvn", record_q, examples=25)
    assert f is None
    uniform = [np.allclose(q, 1.0 / q.size) for q in qs]
    assert any(u and q.size >= 2 for u, q in zip(uniform, qs)) and not all(uniform)  # (n = 1: every q is uniform)
    # a drawn q lies on the simplex exactly; the uniform one is 1_n/n itself (whose float64 sum misses 1 by round-off)
    assert all(np.array_equal(q, np.full(q.size, 1.0 / q.size)) if u else sum(map(Fraction, q)) == 1 and (q >= 0).all()
               for u, q in zip(uniform, qs))


@pytest.mark.parametrize("algorithm", ["pdm", "pfm", "pdm_succ"])
def test_pt11_draws_dense_and_csr_input_and_the_options(algorithm):
    kinds, options = set(), set()

    def record(X, y, *pos, **kw):
        kinds.add("csr" if hasattr(X, "tocsr") else "dense")
        options.add((pos[0], kw.get("Delta")))
        return getattr(reference, algorithm)(X, y, *pos, **kw)

    f, rep, _ = _search(algorithm, record, examples=30)
    assert f is None and kinds == {"dense", "csr"}
    assert len({o[0] for o in options}) >= 2 and {o[1] for o in options} == {None, 1.0}
    if algorithm != "pfm":  # (PFM's beta is derived from the drawn value and the instance)
        assert {o[0] for o in options} <= {"pdm": {0.3, 0.5, 0.7, 1.0, 0.1}, "pdm_succ": {0.1, 0.3, 0.05}}[algorithm]


def test_skipped_flags_are_never_run_and_a_search_with_nothing_left_says_so():
    f, rep, seen = _search("perceptron", reference.perceptron, examples=15, skip_flags=("n1",))
    assert f is None and all(len(a[1]) != 1 for a, _ in seen)  # no case with one point
    everything = ("one_class", "n1", "d1", "duplicates", "rational", "separable", "infeasible", "degenerate", "zero_row",
                  "tiny", "collinear", "kernel", "large", "boundary", "extended", "budget", "pt11")  # fmt: skip
    f, rep, seen = _search("snkp", reference.snkp, examples=5, skip_flags=everything)
    assert f is None
    assert rep.cases == len(seen) == 0 and rep.notes[0].startswith("hypothesis: Unsatisfiable: ")  # health checks are off


def test_the_search_writes_nothing_in_the_working_directory_and_restores_hypothesis(tmp_path, monkeypatch):
    from hypothesis import configuration

    monkeypatch.chdir(tmp_path)
    home = lambda: str(getattr(configuration.storage_directory(), "path", configuration.storage_directory()))  # noqa: E731 (a Path in older hypothesis)
    before = home()
    _search("nvn", reference.nvn, examples=4)
    assert os.listdir(tmp_path) == [] and home() == before
    db = tmp_path / "db"
    _search("nvn", functools.partial(reference.nvn), examples=4, database=db)
    assert set(os.listdir(tmp_path)) <= {"db"} and home() == before


def test_with_a_database_the_failing_example_is_tried_first_next_time(tmp_path):
    def wrong_count(G, **kw):
        res = reference.snkp(G, **kw)
        return {"status": res.status, "iterations": res.iterations + 1, "alpha": res.alpha, "p": res.p}

    f1, rep1, _ = _search("snkp", wrong_count, examples=30, database=tmp_path / "db")
    assert f1 is not None and rep1.cases >= 1 and (tmp_path / "db" / "examples").is_dir()
    f2, rep2, _ = _search("snkp", wrong_count, examples=30, database=tmp_path / "db")
    assert f2 is not None and rep2.cases == 1 and f2.case_id == f1.case_id and f2.instance == f1.instance


@pytest.mark.parametrize("algorithm, families", [
    ("snkp", {"planted", "infeasible", "kernel", "rational", "deg"}),
    ("perceptron", {"planted", "infeasible", "rational", "deg"}),
    ("pdm", {"planted", "rational", "deg"}),
])  # fmt: skip
def test_the_search_draws_every_family_its_algorithm_applies_to(algorithm, families):
    """Gram algorithms: separable (planted), infeasible, kernel, rational and degenerate instances;
    the primal RP14 ones all but kernel; PT11 (which needs separable data) no infeasible ones."""
    from hypothesis import HealthCheck, given, settings

    from theorems.validate.search import _strategy

    import re

    names = set()

    def family(name):  # separable_instances draw rho in [0.1, 0.9]; degenerate_instances' planted ones have tiny margins
        rho = re.match(r"planted\(.*?rho=([0-9.e+-]+)", name)
        if rho:
            return "planted" if float(rho.group(1)) >= 0.1 else "deg"
        return name.split("(")[0].split(":")[0]

    @settings(max_examples=150, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(_strategy(algorithm)[0])
    def draw(inst):
        names.add(family(inst.name))

    draw()
    assert names == families


def _spied_search(monkeypatch, algorithm, impl, examples=4, **kw):
    """The search with run_case spied on: (failure, report, [(case, strict, options), ...])."""
    from theorems.validate import search

    calls = []
    real = search.run_case

    def spy(impl_, case, *, strict, timeout, options):
        calls.append((case, strict, options))
        return real(impl_, case, strict=strict, timeout=timeout, options=options)

    monkeypatch.setattr(search, "run_case", spy)
    rep = Report(algorithm, "x", True)
    f = _hypothesis_search(algorithm, impl, rep, examples=examples, seed=0, strict=kw.pop("strict", False), **kw)
    return f, rep, calls


def test_the_search_names_its_cases_by_their_variant_and_runs_exactly_its_examples(monkeypatch):
    import re

    f, rep, calls = _spied_search(monkeypatch, "pdm", reference.pdm, examples=6)
    assert f is None and rep.cases == 6
    assert all(re.fullmatch(r"pdm/.+/eps=(0\.3|0\.5|0\.7|1|0\.1)(,Delta=1)?", c.case_id.removesuffix(",csr").removesuffix("/csr"))
               for c, _, _ in calls), [c.case_id for c, _, _ in calls]  # fmt: skip
    assert all(("Delta=1" in c.case_id) == (c.args["Delta"] is not None) for c, _, _ in calls)  # (which are drawn: hypothesis' choice)
    _, _, calls = _spied_search(monkeypatch, "snkp", reference.snkp)
    assert all(c.case_id.count("/") == 1 and c.case_id.startswith("snkp/") for c, _, _ in calls)
    _, _, calls = _spied_search(monkeypatch, "snkpvn", reference.snkpvn, examples=12)
    drawn = [c for c, _, _ in calls if not np.allclose(c.args["q"], 1.0 / c.n)]
    assert all(re.fullmatch(r"snkpvn/.+/q=simplex\(\d+\)", c.case_id) for c in drawn)


def test_the_search_hands_each_case_its_cap_strictness_and_options(monkeypatch):
    # cap 5: a budget of at most 5 wherever a theorem bounds the run (where none does, CAP_NO_BOUND)
    _, _, calls = _spied_search(monkeypatch, "nkp", reference.nkp, examples=12, cap=5)
    bounded = [c for c, _, _ in calls if c.bound is not None]
    assert all(c.max_iter <= 5 for c in bounded) and all(s is False for _, s, _ in calls)
    opts = {"multiple_updates": True}
    _, _, calls = _spied_search(monkeypatch, "pdm", functools.partial(reference.pdm, **opts), strict=True, options=opts)
    assert calls and all(s is True and o == opts for _, s, o in calls)


def test_the_search_records_each_case_with_its_id_and_edge_flags(monkeypatch):
    from theorems.validate.call import edge_flags

    recorded = []
    monkeypatch.setattr(Report, "record", lambda self, cid, results, flags=(): recorded.append((cid, tuple(flags))))
    _, _, calls = _spied_search(monkeypatch, "perceptron", reference.perceptron, examples=3)
    assert len(calls) == 3 and recorded == [(c.case_id, tuple(edge_flags(c))) for c, _, _ in calls]


@pytest.fixture
def hypothesis_defaults():
    """Hypothesis' own default settings (what a user's process has), not the suite's profile."""
    from hypothesis import settings

    current = getattr(settings, "_current_profile", None) or os.environ.get("HYPOTHESIS_PROFILE", "ci")
    settings.load_profile("default")
    yield
    settings.load_profile(current)


def test_a_slow_implementation_is_no_hypothesis_deadline_error(hypothesis_defaults):
    def slow(G, **kw):
        time.sleep(0.25)
        return reference.snkp(G, **kw)

    f, rep, _ = _search("snkp", slow, examples=2)
    assert f is None and rep.cases == 2


def test_a_failure_prints_nothing_whatever_the_profile_says(capsys):
    """(The suite's profile asks hypothesis to print a reproduction blob; the search does not.)"""

    def wrong_status(G, **kw):
        res = reference.snkp(G, **kw)
        return {"status": "certificate" if res.status == "separator" else res.status, "iterations": res.iterations,
                "alpha": res.alpha, "p": res.p}  # fmt: skip

    capsys.readouterr()
    f, _, _ = _search("snkp", wrong_status, examples=10)
    out = capsys.readouterr()
    assert f is not None and "reproduce_failure" not in out.out + out.err


def test_the_timeout_note_comes_first():
    rep = Report("snkp", "x", True)
    rep.notes.append("an earlier note")
    _hypothesis_search("snkp", lambda G, **kw: _hangs(G), rep, examples=5, seed=0, strict=False, timeout=0.2)
    assert rep.notes[0].startswith("snkp/") and rep.notes[0].endswith(": no answer within 0.2 s: stopped at the first timeout")
    assert rep.notes[1] == "an earlier note"
