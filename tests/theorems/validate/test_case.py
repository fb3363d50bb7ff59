"""Tests of theorems/validate/test_case.py."""

from __future__ import annotations

import numpy as np
import pytest

import reference
from tests.support.validate import E1E2, TWICE
from theorems.validate import case as case_mod
from theorems.validate.case import CAP, CAP_NO_BOUND, _budget_and_answer, make_case


# -- _budget_and_answer: the budget of a case -------------------------------------------------------
#
# SLOW: x_1 = (1, 0) labelled +1, x_2 = (1, 1/4) labelled -1 (z_2 = (-1, -1/4)).  The cyclic
# Perceptron, by hand: after 2m updates w = (0, -m/4), after 2m+1 updates w = (1, -m/4); at
# w = (1, -m/4) the point z_2 scores -1 + m/16 > 0 first for m = 17: 35 updates, w = (1, -17/4).
SLOW = (np.array([[1.0, 0.0], [1.0, 0.25]]), np.array([1, -1]))


ARGS = {"perceptron": {}, "normalized_perceptron": {"normalize": True}, "nkp": {}, "snkp": {}}


def _budget(algorithm, data, bound, feasible, cap=CAP, budget=None, args=None):
    X, y = data
    G = reference.gram(X, y, "linear")
    return _budget_and_answer(algorithm, X, y, G, dict(ARGS[algorithm] if args is None else args), bound, feasible is False, cap, budget)


def test_budget_where_a_theorem_promises_termination():
    """floor(bound) + 2 when bound + 2 <= cap, and "max_iter" then fails."""
    termination, max_iter, ref = _budget("perceptron", (E1E2.X, E1E2.y), 3.0, True, cap=5)
    assert (termination, max_iter, ref["status"], ref["iterations"]) == (True, 5, "separator", 2)
    termination, max_iter, ref = _budget("perceptron", (E1E2.X, E1E2.y), 1000.0, True)
    assert (termination, max_iter, ref["status"], ref["iterations"]) == (True, 1002, "separator", 2)
    # bound + 2 > cap: no promise within the budget; the reference's 2 updates -> max(500, 140), capped at 4
    assert _budget("perceptron", (E1E2.X, E1E2.y), 3.0, True, cap=4)[:2] == (False, 4)
    # the whole path: Novikoff's bound on e1, e2 is R^2/rho^2 = 1/(1/sqrt 2)^2 = 2 (rounded up)
    case = make_case("perceptron", E1E2)
    assert (case.termination_required, case.max_iter) == (True, 4)


def test_budget_where_no_theorem_applies_is_20_times_the_references_count_plus_100():
    for feasible in (None, True):
        termination, max_iter, ref = _budget("perceptron", SLOW, None, feasible)
        assert (ref["status"], ref["iterations"], ref["w"].tolist()) == ("separator", 35, [1.0, -4.25])
        assert (termination, max_iter) == (False, 20 * 35 + 100)
    # at least CAP_NO_BOUND ...
    assert _budget("perceptron", (E1E2.X, E1E2.y), None, None)[:2] == (False, CAP_NO_BOUND)
    # ... at most cap
    assert _budget("perceptron", SLOW, None, None, cap=600)[:2] == (False, 600)


def test_budget_exhaustion_case():
    termination, max_iter, ref = _budget("perceptron", (E1E2.X, E1E2.y), 2.0, True, budget=1)
    assert (termination, max_iter, ref["status"], ref["iterations"]) == (False, 1, "max_iter", 1)
    termination, max_iter, ref = _budget("perceptron", SLOW, None, None, budget=1000)
    assert (termination, max_iter, ref["status"], ref["iterations"]) == (False, 1000, "separator", 35)


@pytest.fixture
def budgets(monkeypatch):
    """The max_iter of every run of the reference that building a case makes, in order."""
    seen = []
    run = case_mod._reference_answer

    def spy(alg, X, y, G, args, max_iter, trace=False):
        seen.append(max_iter)
        return run(alg, X, y, G, args, max_iter, trace)

    monkeypatch.setattr(case_mod, "_reference_answer", spy)
    return seen


@pytest.mark.parametrize("algorithm", ["perceptron", "normalized_perceptron", "nkp", "snkp"])
def test_budget_on_certified_infeasible_data_runs_the_reference_only_briefly(algorithm, budgets):
    """Nothing to find: CAP_NO_BOUND, and the reference is never run longer (building a corpus
    stays cheap)."""
    termination, max_iter, ref = _budget(algorithm, TWICE, None, False)
    assert (termination, max_iter, ref["status"], ref["iterations"]) == (False, CAP_NO_BOUND, "max_iter", CAP_NO_BOUND)
    assert budgets and max(budgets) == CAP_NO_BOUND
    # ... and never above the cap the corpus is built with
    del budgets[:]
    termination, max_iter, ref = _budget(algorithm, TWICE, None, False, cap=40)
    assert (termination, max_iter, ref["status"], ref["iterations"]) == (False, 40, "max_iter", 40)
    assert budgets and max(budgets) == 40


@pytest.mark.parametrize("algorithm", ["perceptron", "nkp"])
def test_budget_when_the_reference_runs_out_is_cut_to_cap_no_bound(algorithm):
    """Margin not decided (feasible None) and the reference runs out of ``cap``: the case's budget
    becomes CAP_NO_BOUND, with the reference's answer at that budget."""
    termination, max_iter, ref = _budget(algorithm, TWICE, None, None, cap=1000)
    assert (termination, max_iter, ref["status"], ref["iterations"]) == (False, CAP_NO_BOUND, "max_iter", CAP_NO_BOUND)


# -- make_case: each algorithm's arguments, bound and its source, the flags and the id ---------------------

import math  # noqa: E402

from reference import paper_bounds as pb  # noqa: E402
from theorems.instances.instance import Instance  # noqa: E402
from theorems.validate.case import Case, RP14_GRAM, _margin, _slug  # noqa: E402

# Three points in the plane, mixed labels, separable with a margin well away from 0 (linear).
MIXED = Instance("mixed pts", np.array([[2.0, 1.0], [1.5, 2.0], [-1.0, -2.0]]), np.array([1, 1, -1]))


def _bound_fits(case):
    assert case.bound is not None and math.isfinite(case.bound)
    if case.bound + 2 <= CAP:
        assert case.termination_required and case.max_iter == math.floor(case.bound) + 2
    else:
        assert not case.termination_required


def test_perceptron_case_block_novikoff():
    c = make_case("perceptron", MIXED)
    lo, hi = _margin(reference.signed_gram(MIXED.X, MIXED.y))
    assert (c.m_lo, c.m_hi, c.margin_name) == (lo, hi, "rho") and 0 < lo <= hi
    assert c.R == pb.radius(MIXED.X) and c.bound == pb.novikoff(c.R, lo)
    assert c.bound_source == "RP14 Sec. 2 Block-Novikoff: max||x||^2/rho^2" and c.args == {}
    _bound_fits(c)
    ruled = make_case("perceptron", MIXED, arguments={"rule": "most_violated"})
    assert ruled.args == {"rule": "most_violated"} and make_case("perceptron", MIXED, arguments={"rule": "cyclic"}).args == {}


def test_normalized_perceptron_case():
    c = make_case("normalized_perceptron", MIXED)
    assert c.args == {"normalize": True} and c.R == 1.0 and c.margin_name == "rho_2"
    assert c.bound == pb.normalized_perceptron(c.m_lo) and c.bound_source == "RP14 Sec. 2.1: 1/rho_2^2"
    assert (c.m_lo, c.m_hi) == _margin(c.G)
    _bound_fits(c)


def test_primal_cases_without_a_positive_margin_have_no_bound():
    for algorithm in ("perceptron", "normalized_perceptron"):
        c = make_case(algorithm, Instance("twice", *TWICE))
        assert c.bound is None and c.bound_source == "" and not c.termination_required
    rbf = Instance("gaussian", MIXED.X, MIXED.y, kernel="gaussian", params={"sigma": 0.5})
    assert make_case("perceptron", rbf) is None and make_case("normalized_perceptron", rbf) is None


@pytest.mark.parametrize("algorithm, bound, source", [
    ("nkp", lambda lo, n: pb.nkp(lo), "RP14 Sec. 3.2: 1/rho_K^2"),
    ("snkp", lambda lo, n: pb.snkp(lo, n), "RP14 Thm. 1: 2 sqrt(2 log n)/rho_K"),
    ("snkpvn", lambda lo, n: pb.snkpvn_feasible(lo, n), "RP14 Lemma 8: 2 sqrt(2n)/rho_K"),
])  # fmt: skip
def test_gram_cases_on_separable_data_carry_their_theorem(algorithm, bound, source):
    c = make_case(algorithm, MIXED)
    assert c.margin_name == "rho_K" and c.R is None and (c.m_lo, c.m_hi) == _margin(c.G) and c.m_lo > 0
    assert c.bound == bound(c.m_lo, 3) and c.bound_source == source
    _bound_fits(c)


def test_snkpvn_arguments_follow_lemma_8_or_the_users():
    c = make_case("snkpvn", MIXED)
    assert c.args["q"].tolist() == [1 / 3] * 3 and c.args["delta"] == min(0.05, c.m_lo / 2)
    small = make_case("snkpvn", Instance("opposite", np.array([[1.0, 0.0], [-1.0, 0.15]]), np.array([1, 1])))
    assert small.args["delta"] == min(0.05, small.m_lo / 2) and small.args["delta"] < 0.05
    q = np.array([0.5, 0.25, 0.25])
    c = make_case("snkpvn", MIXED, arguments={"q": q, "delta": 0.01})
    assert c.args["q"].tolist() == q.tolist() and c.args["delta"] == 0.01
    t = make_case("snkpvn", Instance("twice", *TWICE))
    assert t.args["delta"] == 0.05 and t.m_hi <= 0
    assert t.bound == pb.snkpvn_infeasible(0.05, 2, reference.g_norm(t.G, t.args["q"]), min(t.m_hi, 0.0))
    assert t.bound_source == "RP14 Lemma 9 with the corrected Lemma 7 (E-A2)"


def test_nvn_and_isnkpvn_arguments_and_bounds():
    c = make_case("nvn", Instance("twice", *TWICE))
    assert c.args == {"epsilon": 0.05} and c.bound == pb.nvn(0.05) and c.bound_source == "RP14 Sec. 5.1: 1/eps^2 (infeasible)"
    assert make_case("nvn", Instance("twice", *TWICE), arguments={"epsilon": 0.2}).bound == pb.nvn(0.2)
    sep = make_case("nvn", MIXED)
    assert sep.bound is None and sep.args == {"epsilon": 0.05}  # no theorem on separable data
    c = make_case("isnkpvn", MIXED)
    assert c.args == {"gamma": 2.0, "epsilon": 0.05}
    assert c.bound == pb.isnkpvn_total(3, reference.g_norm(c.G, np.full(3, 1 / 3)), c.m_lo, 2.0, 0.05)
    assert c.bound_source.startswith("RP14 Thm. 4 with Lemmas 8, 9")
    c = make_case("isnkpvn", Instance("twice", *TWICE), arguments={"gamma": 3.0, "epsilon": 0.1})
    assert c.args == {"gamma": 3.0, "epsilon": 0.1} and c.m_hi < 0
    assert c.bound == pb.isnkpvn_total(2, reference.g_norm(c.G, np.full(2, 0.5)), c.m_hi, 3.0, 0.1)


def test_gram_cases_on_infeasible_data_have_no_termination_bound():
    for algorithm in ("nkp", "snkp"):
        c = make_case(algorithm, Instance("twice", *TWICE))
        assert c.bound is None and c.max_iter == CAP_NO_BOUND and c.reference["status"] == "max_iter"


@pytest.mark.parametrize("algorithm", ["pfm", "pdm", "pdm_succ"])
def test_pt11_cases_on_the_augmented_patterns(algorithm):
    c = make_case(algorithm, MIXED)
    P = reference.dynamic_margin.patterns(MIXED.X, MIXED.y, rho=1.0, Delta=None)
    assert np.array_equal(c.P, P) and (c.m_lo, c.m_hi) == _margin(P @ P.T) and c.margin_name == "gamma_d"
    assert c.args["rho"] == 1.0 and c.args["Delta"] is None and c.R == pb.radius(P) and "pt11" in c.flags
    if algorithm == "pfm":
        assert c.args["beta"] == (1 - 0.3) * c.m_lo and c.margin_guarantee == c.args["beta"]
        assert c.bound == pb.pfm_theorem1(c.R, c.m_lo, 1 - c.args["beta"] / c.m_lo) and c.bound_source == "PT11 Thm. 1"
    else:
        e = 0.3 if algorithm == "pdm" else 0.1
        assert c.args["epsilon"] == e and c.margin_guarantee == (1 - e) * c.m_lo
        assert c.bound == pb.pdm_theorem2(c.R, c.m_lo, e)
        if algorithm == "pdm_succ":
            assert c.args["eta"] == 8.0 and c.bound_source == "PT11 Thm. 2 (the whole run is a PDM(eps) run, Sec. 3)"
        else:
            assert "eta" not in c.args and c.bound_source == "PT11 Thm. 2"
    d = make_case(algorithm, MIXED, eps=0.5, Delta=2.0, variant="eps=0.5,Delta=2")
    assert d.args["Delta"] == 2.0 and "extended" in d.flags and d.case_id == f"{algorithm}/mixed_pts/eps=0.5,Delta=2"
    assert np.array_equal(d.P, reference.dynamic_margin.patterns(MIXED.X, MIXED.y, rho=1.0, Delta=2.0))
    assert d.margin_guarantee == (d.args["beta"] if algorithm == "pfm" else 0.5 * d.m_lo)


def test_pt11_needs_separable_patterns_and_a_linear_kernel():
    assert make_case("pdm", Instance("twice", *TWICE)) is None
    assert make_case("pdm", Instance("gaussian", MIXED.X, MIXED.y, kernel="gaussian", params={"sigma": 1.0})) is None
    assert make_case("pdm", Instance("twice", *TWICE), Delta=1.0) is not None  # the extended space separates anything


def test_case_flags_and_ids():
    c = make_case("snkp", Instance("e1 e2!", E1E2.X, E1E2.y, flags=("rational",)))
    assert c.case_id == "snkp/e1_e2" and c.flags == ("rational", "one_class")
    assert "one_class" not in make_case("snkp", MIXED).flags
    b = make_case("snkp", MIXED, budget=3, variant="budget=3")
    assert b.flags == ("budget",) and b.max_iter == 3 and not b.termination_required and b.case_id == "snkp/mixed_pts/budget=3"
    assert _slug("a b/c") == "a_b_c" and _slug("__") == "case" and _slug("x(1),y=2:+-.") == "x(1),y=2:+-."
    with pytest.raises(ValueError, match=r"unknown algorithm 'snpk'; choose one of perceptron"):
        make_case("snpk", MIXED)
    assert make_case("snkp", Instance("callable", MIXED.X, MIXED.y, kernel=lambda a, b: a @ b.T)) is None
    assert c.n == 2 and c.Z.tolist() == (E1E2.X * E1E2.y[:, None]).tolist()


@pytest.mark.parametrize("algorithm", ["perceptron", "snkpvn", "isnkpvn", "pdm", "pfm", "pdm_succ"])
def test_a_case_survives_its_json_form(algorithm):
    import json

    c = make_case(algorithm, MIXED, Delta=1.0 if algorithm == "pdm" else None)
    d = json.loads(json.dumps(c.to_json()))
    back = Case.from_json(d)
    for f in ("case_id", "algorithm", "flags", "kernel", "params", "max_iter", "margin_name", "m_lo", "m_hi", "R", "bound",
              "bound_source", "termination_required", "margin_guarantee", "name"):  # fmt: skip
        assert getattr(back, f) == getattr(c, f), f
    assert np.array_equal(back.X, c.X) and np.array_equal(back.y, c.y) and back.y.dtype == np.int64
    assert back.args.keys() == c.args.keys()
    for k, v in c.args.items():
        assert np.array_equal(back.args[k], v) if isinstance(v, np.ndarray) else back.args[k] == v
    if "q" in c.args:
        assert back.args["q"].dtype == np.float64
    assert np.array_equal(back.G, c.G) and (back.P is None) == (c.P is None)
    if c.P is not None:
        assert np.array_equal(back.P, c.P)
    assert back.reference["status"] == c.reference["status"] and back.reference["iterations"] == c.reference["iterations"]
    inst = d["instance"]
    assert ("G" in inst) == (algorithm in RP14_GRAM) and ("patterns" in inst) == (c.P is not None)
    assert d["arguments"]["max_iter"] == c.max_iter and d["bounds"]["iterations_source"] == c.bound_source
    assert set(d["reference"]) <= {"status", "iterations", "alpha", "w", "p", "trace"} and "trace" not in d["reference"]


def test_a_case_without_its_gram_matrix_in_json_rebuilds_it():
    import json

    c = make_case("perceptron", MIXED)
    d = json.loads(json.dumps(c.to_json()))
    assert "G" not in d["instance"]
    back = Case.from_json(d)
    assert np.array_equal(back.G, reference.gram(MIXED.X, MIXED.y, "linear"))
    d["instance"]["kernel"] = "no such kernel"
    assert Case.from_json(d).G is None
    del d["bounds"]["R"], d["bounds"]["iterations"], d["bounds"]["termination_required"], d["bounds"]["margin_guarantee"]
    del d["bounds"]["iterations_source"], d["instance"]["params"], d["instance"]["name"]
    bare = Case.from_json(d)
    assert (bare.R, bare.bound, bare.termination_required, bare.margin_guarantee, bare.bound_source, bare.params, bare.name) == \
        (None, None, False, None, "", {}, "")  # fmt: skip


def test_the_reference_answer_is_run_with_the_cases_arguments(monkeypatch):
    c = make_case("pdm_succ", MIXED)
    ans = case_mod._reference_answer("pdm_succ", c.X, c.y, c.G, c.args, c.max_iter)
    res = reference.pdm_succ(c.X, c.y, c.args["epsilon"], c.args["eta"], rho=1.0, Delta=None, max_iter=c.max_iter, max_epochs=10**9)
    assert ans["iterations"] == res.iterations and np.array_equal(ans["w"], res.w) and ans["trace"] is None
    tr = case_mod._reference_trace(c)
    assert tr is not None and len(tr) >= 1 and tr[-1]["t"] == res.iterations


# -- JSON written by other programs, kernels, margins at the boundaries --------------------------------------

RBF = Instance("gaussian pts", MIXED.X, MIXED.y, kernel="gaussian", params={"sigma": 2.0})
FOUR = Instance("four", np.array([[1.0, 0.0], [-1.0, 0.1], [-0.5, -0.2], [0.5, 0.5]]), np.array([1, 1, 1, 1]))


def test_json_with_integers_reads_as_floats_and_its_own_g_is_kept():
    import json

    c = make_case("snkpvn", MIXED)
    d = json.loads(json.dumps(c.to_json()))
    assert d["instance"]["G"] == c.G.tolist()  # a Gram algorithm's case carries G
    d["instance"]["X"] = [[2, 1], [3, 2], [-1, -2]]  # integers, as another program may write them
    d["instance"]["G"] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]  # and a G of its own: used as given
    d["arguments"]["q"] = [1, 0, 0]
    back = Case.from_json(d)
    assert back.X.dtype == np.float64 and back.G.dtype == np.float64 and back.args["q"].dtype == np.float64
    assert back.G.tolist() == np.eye(3).tolist() and back.y.dtype == np.int64
    p = make_case("pdm", MIXED)
    dp = json.loads(json.dumps(p.to_json()))
    dp["instance"]["patterns"] = [[int(v) for v in row] for row in np.round(p.P)]
    dp["instance"]["y"] = [1.0, 1.0, -1.0]
    back = Case.from_json(dp)
    assert back.P.dtype == np.float64 and back.y.dtype == np.int64 and back.y.tolist() == [1, 1, -1]


def test_a_kernel_case_keeps_its_parameters_through_json_and_when_g_is_rebuilt():
    import json

    c = make_case("nkp", RBF)
    assert c.params == {"sigma": 2.0} and np.array_equal(c.G, reference.gram(RBF.X, RBF.y, "gaussian", sigma=2.0))
    assert not np.array_equal(c.G, reference.gram(RBF.X, RBF.y, "gaussian"))  # the parameter matters
    d = json.loads(json.dumps(c.to_json()))
    back = Case.from_json(d)
    assert back.params == {"sigma": 2.0} and np.array_equal(back.G, c.G)
    del d["instance"]["G"]
    assert np.array_equal(Case.from_json(d).G, c.G)  # rebuilt with sigma = 2


def test_a_reference_trace_in_json_survives_the_round_trip():
    import json

    c = make_case("snkp", MIXED)
    d = json.loads(json.dumps(c.to_json()))
    assert "trace" not in d["reference"]
    d["reference"]["trace"] = [{"k": 0, "alpha": [1 / 3] * 3}]
    again = json.loads(json.dumps(Case.from_json(d).to_json()))
    assert again["reference"]["trace"] == [{"k": 0, "alpha": [1 / 3] * 3}]


def test_make_case_reads_integer_data_as_floats_and_an_unknown_kernel_as_no_case():
    c = make_case("perceptron", Instance("ints", [[2, 1], [1, 2], [-1, -2]], [1.0, 1.0, -1.0]))
    assert c.X.dtype == np.float64 and c.y.dtype == np.int64 and c.y.tolist() == [1, 1, -1]
    assert make_case("snkp", Instance("bad kernel", MIXED.X, MIXED.y, kernel="no such kernel")) is None
    assert make_case("pdm", Instance("bad kernel", MIXED.X, MIXED.y, kernel="no such kernel")) is None
    with pytest.raises(ValueError, match=r"^unknown algorithm 'x'; choose one of perceptron, normalized_perceptron, nkp, snkp, nvn, "):
        make_case("x", MIXED)


def test_the_names_of_cases(monkeypatch):
    assert _slug("X_y_X") == "X_y_X" and _slug("_a_") == "a" and _slug("(1)") == "(1)"
    c = make_case("snkp", MIXED)
    assert c.name == "mixed pts" and c.to_json()["instance"]["name"] == "mixed pts"


def test_an_infinite_bound_is_no_bound(monkeypatch):
    monkeypatch.setattr(case_mod.pbounds, "snkp", lambda rho, n: math.inf)
    c = make_case("snkp", MIXED)
    assert c.bound is None and not c.termination_required


@pytest.mark.parametrize("algorithm", ["perceptron", "normalized_perceptron", "nkp", "snkp"])
def test_certified_infeasible_data_are_run_briefly_through_make_case(algorithm, budgets):
    for inst in (Instance("twice", *TWICE), FOUR):
        budgets.clear()
        c = make_case(algorithm, inst)
        assert c.m_hi <= 0 and max(budgets) == CAP_NO_BOUND and c.max_iter == CAP_NO_BOUND, (inst.name, budgets)


def _with_margin(monkeypatch, lo, hi):
    monkeypatch.setattr(case_mod, "_margin", lambda K: (lo, hi))


@pytest.mark.parametrize("algorithm", ["perceptron", "normalized_perceptron", "nkp", "snkp", "snkpvn", "isnkpvn"])
def test_a_margin_certified_exactly_zero_below_gives_no_bound_and_no_verdict(algorithm, monkeypatch):
    _with_margin(monkeypatch, 0.0, 0.5)  # lo = 0: not certified positive
    c = make_case(algorithm, MIXED)
    assert c.bound is None and c.bound_source == "" and not c.termination_required
    if algorithm == "snkpvn":
        assert c.args["delta"] == 0.05


@pytest.mark.parametrize("algorithm", ["nvn", "snkpvn", "nkp", "perceptron"])
def test_a_margin_certified_exactly_zero_above_is_infeasible(algorithm, monkeypatch, budgets):
    _with_margin(monkeypatch, -0.5, 0.0)  # hi = 0: certified not separable
    c = make_case(algorithm, MIXED)
    if algorithm == "nvn":
        assert c.bound == pb.nvn(0.05)
    elif algorithm == "snkpvn":
        assert c.bound == pb.snkpvn_infeasible(0.05, 3, reference.g_norm(c.G, c.args["q"]), 0.0)
    else:  # nothing to find: the short budget
        assert max(budgets) == CAP_NO_BOUND


@pytest.mark.parametrize("algorithm", ["nvn", "snkpvn", "isnkpvn", "nkp", "perceptron"])
def test_an_undecided_margin_gives_no_bound(algorithm, monkeypatch, budgets):
    _with_margin(monkeypatch, -0.1, 0.1)  # the certified interval contains 0
    c = make_case(algorithm, MIXED)
    assert c.bound is None and c.bound_source == ""
    assert max(budgets) == CAP  # not known infeasible: the full budget


def test_isnkpvn_on_infeasible_data_uses_its_epsilon():
    c = make_case("isnkpvn", FOUR, arguments={"epsilon": 0.02})
    q0 = reference.g_norm(c.G, np.full(4, 0.25))
    assert q0 > 0 and c.m_hi < 0
    assert c.bound == pb.isnkpvn_total(4, q0, c.m_hi, 2.0, 0.02) != pb.isnkpvn_total(4, q0, c.m_hi, 2.0, 0.05)


def test_the_margin_of_a_case_is_the_span_margin():
    c = make_case("nkp", MIXED)
    m = reference.margin(c.G, of="span")
    assert (c.m_lo, c.m_hi) == (float(m.lower), float(m.upper))


def test_pt11_reference_answers_run_without_an_epoch_limit(monkeypatch):
    seen = []
    real = reference.pdm
    monkeypatch.setattr(reference, "pdm", lambda *a, **kw: seen.append(kw) or real(*a, **kw))
    c = make_case("pdm", MIXED)
    assert seen and all(kw["max_epochs"] == 10**9 and kw["rho"] == 1.0 and "Delta" in kw for kw in seen)
    tr = case_mod._reference_trace(c)
    assert seen[-1]["max_iter"] == c.max_iter and seen[-1]["trace"] is True and tr[-1]["t"] == c.reference["iterations"]
    s = make_case("snkp", MIXED)
    assert len(case_mod._reference_trace(s)) == s.reference["iterations"] + 1


@pytest.mark.parametrize("algorithm", ["perceptron", "normalized_perceptron", "snkp"])
def test_a_bound_beyond_the_cap_on_feasible_data_gives_the_cap_not_the_short_budget(algorithm):
    c = make_case(algorithm, MIXED, cap=3)
    assert not c.termination_required and c.reference["status"] == "separator"
    assert c.max_iter <= 3  # feasible: the cap (the reference's count x 20 + 100, at most the cap), not CAP_NO_BOUND


@pytest.mark.parametrize("algorithm", ["perceptron", "nkp"])
def test_a_margin_certified_zero_at_both_ends_is_nothing_to_find(algorithm, monkeypatch, budgets):
    _with_margin(monkeypatch, 0.0, 0.0)
    make_case(algorithm, MIXED)
    assert max(budgets) == CAP_NO_BOUND


def test_pt11_needs_a_margin_certified_positive(monkeypatch):
    _with_margin(monkeypatch, 0.0, 0.5)
    assert make_case("pdm", MIXED) is None and make_case("pfm", MIXED) is None


def test_pfm_beta_follows_the_accuracy_asked():
    c = make_case("pfm", MIXED, eps=0.5)
    assert c.args["beta"] == 0.5 * c.m_lo and c.margin_guarantee == c.args["beta"]


def test_a_prox_centre_given_as_integers_is_read_as_floats():
    c = make_case("snkpvn", MIXED, arguments={"q": [1, 0, 0]})
    assert c.args["q"].dtype == np.float64 and c.args["q"].tolist() == [1.0, 0.0, 0.0]


def test_isnkpvn_has_no_bound_where_the_margin_is_certified_to_be_zero():
    """RP14 Thm. 4 needs |rho_K| > 0: on data whose certified margin interval ends at 0 no bound applies."""
    from theorems.validate.corpus import _corpus_instances

    zero = next(i for i in _corpus_instances() if i.name == "deg:zero-margin")
    c = make_case("isnkpvn", zero)
    assert c.m_lo <= 0 and c.m_hi == 0.0
    assert c.bound is None and not c.termination_required
