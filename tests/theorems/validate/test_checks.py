"""Tests of theorems/validate/test_checks.py."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.instances import CID, _perceptron_case
from tests.support.validate import E1E2
from theorems.instances.instance import Instance
from theorems.validate.answer import normalize_answer
from theorems.validate.checks import check_strict
from theorems.validate.report import CheckResult, FAIL, NOTE, PASS


E1E2_TRACE = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0)]


# x_1 = e1, x_2 = (1, 1): w_1 = e1 already separates (<w_1, x_2> = 1 > 0): 1 update, w = (1, 0),
# whose second entry is zero (for the absolute tolerance).
E1_ONLY = Instance("e1only", np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([1, 1]))


@pytest.fixture(scope="module")
def cases():
    c = {"none": _perceptron_case(E1E2), "mv": _perceptron_case(E1E2, "most_violated"), "e1": _perceptron_case(E1_ONLY)}
    for case in (c["none"], c["mv"]):  # the hand-worked run above
        assert (case.reference["status"], case.reference["iterations"]) == ("separator", 2)
        assert case.reference["w"].tolist() == [1.0, 1.0]
    assert (c["e1"].reference["status"], c["e1"].reference["iterations"], c["e1"].reference["w"].tolist()) == ("separator", 1, [1.0, 0.0])
    return c


def _ans(trace, *, status="separator", iterations=2, w=(1.0, 1.0), rule=None):
    """An answer as :func:`theorems.validate.call.call_impl` makes it (``rule_passed``: the rule the
    implementation was handed; None = it takes no ``rule``)."""
    tr = None if trace is None else [{"k": k} if v is None else {"k": k, "w": v} for k, v in enumerate(trace)]
    ans = normalize_answer({"status": status, "iterations": iterations, "w": w, "trace": tr})
    ans["rule_passed"] = rule
    return ans


def test_strict_passes_the_reference_trajectory(cases):
    c = cases["none"]
    for rule in (None, "cyclic"):
        assert check_strict(c, _ans(E1E2_TRACE, rule=rule)) == [CheckResult(CID, PASS)]
    # no update counter (iterations None, a capability it lacks): the counter is not compared
    assert check_strict(c, _ans(E1E2_TRACE, iterations=None)) == [CheckResult(CID, PASS)]
    # states that carry no w (only the counter) are not compared; nor is a missing trace's final
    # vector when there is none
    assert check_strict(c, _ans([None, None, None])) == [CheckResult(CID, PASS)]
    assert check_strict(c, _ans(None, rule="cyclic")) == [CheckResult(CID, PASS)]
    assert check_strict(c, _ans(None, w=None, rule="cyclic")) == [CheckResult(CID, PASS)]
    # within the documented tolerance (rtol 1e-6, atol 1e-9): equal
    assert check_strict(c, _ans([(4e-10, 0.0), (1.0, 0.0), (1.0 + 5e-7, 1.0)])) == [CheckResult(CID, PASS)]
    assert check_strict(c, _ans(None, w=(1.0 + 5e-7, 1.0), rule="cyclic")) == [CheckResult(CID, PASS)]


def test_strict_rejects_a_trajectory_that_leaves_the_reference(cases):
    """The right final answer does not excuse a wrong trajectory: --strict names the first
    iterate where the trace leaves the reference's, and both vectors there."""
    c = cases["none"]
    wrong_step_2 = [(0.0, 0.0), (1.0, 0.0), (1.0, 2.0)]  # at w_1 = e1 only x_2 is a mistake: no choice
    want = [CheckResult(CID, FAIL, "iterate 2: w = [1, 2] differs from the reference's [1, 1]", at=2)]
    for rule in (None, "cyclic"):
        assert check_strict(c, _ans(wrong_step_2, rule=rule)) == want
    # a state without w is skipped, not the end of the comparison
    assert check_strict(c, _ans([None, (1.0, 0.0), (1.0, 2.0)])) == want
    # a trace that lags one step behind (records w before the update), final answer right
    lagging = [(0.0, 0.0), (0.0, 0.0), (1.0, 0.0)]
    assert check_strict(c, _ans(lagging, rule="cyclic")) == [
        CheckResult(CID, FAIL, "iterate 1: w = [0, 0] differs from the reference's [1, 0]", at=1)]
    # a vector of the wrong length
    assert check_strict(c, _ans([(0.0, 0.0), (1.0, 0.0, 0.0), (1.0, 1.0)], rule="cyclic")) == [
        CheckResult(CID, FAIL, "iterate 1: w = [1, 0, 0] differs from the reference's [1, 0]", at=1)]
    # iterate 0 has no decision before it: a divergence there always fails
    assert check_strict(c, _ans([(0.5, 0.0), (1.0, 0.0), (1.0, 1.0)])) == [
        CheckResult(CID, FAIL, "iterate 0: w = [0.5, 0] differs from the reference's [0, 0]", at=0)]


def test_strict_tolerance_is_rtol_1e6_atol_1e9(cases):
    c, e1 = cases["none"], cases["e1"]
    # relative: 3e-6 on an entry of size 1 is outside rtol 1e-6 (inside numpy's default 1e-5)
    assert check_strict(c, _ans([(0.0, 0.0), (1.0, 0.0), (1.0 + 3e-6, 1.0)]))[0].outcome == FAIL
    assert check_strict(c, _ans(None, w=(1.0 + 3e-6, 1.0), rule="cyclic"))[0].outcome == FAIL
    # absolute: 5e-9 where the reference has 0 is outside atol 1e-9 (inside numpy's default 1e-8)
    assert check_strict(c, _ans([(5e-9, 0.0), (1.0, 0.0), (1.0, 1.0)]))[0].outcome == FAIL
    assert check_strict(e1, _ans([(0.0, 0.0), (1.0, 5e-9)], iterations=1, w=(1.0, 0.0), rule="cyclic"))[0].outcome == FAIL
    assert check_strict(e1, _ans(None, iterations=1, w=(1.0, 5e-9), rule="cyclic"))[0].outcome == FAIL
    # and nowhere near 1
    assert check_strict(c, _ans(None, w=(1.5, 1.0), rule="cyclic"))[0].outcome == FAIL
    assert check_strict(e1, _ans(None, iterations=1, w=(1.0, 0.5), rule="cyclic"))[0].outcome == FAIL


def test_strict_notes_a_divergence_after_the_references_free_choice(cases):
    """At w_0 both points are mistakes: a Perceptron that claims no rule may take x_2 first.
    Claiming the cyclic rule, it may not."""
    c = cases["none"]
    other_choice = [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
    assert check_strict(c, _ans(other_choice)) == [CheckResult(
        CID, NOTE, "trajectories diverge at step 1 after a near-tie decision of the reference "
        "(more than one misclassified point); not a failure")]
    assert check_strict(c, _ans(other_choice, rule="cyclic")) == [
        CheckResult(CID, FAIL, "iterate 1: w = [0, 1] differs from the reference's [1, 0]", at=1)]
    # the reference's last state (w_2 = (1, 1): scores 1 and 1) is a near tie of the most-violated
    # rule, but a divergence at iterate 0 comes after no decision at all
    mv = cases["mv"]
    assert check_strict(mv, _ans([(0.0, 0.5), (1.0, 0.0), (1.0, 1.0)], rule="most_violated")) == [
        CheckResult(CID, FAIL, "iterate 0: w = [0, 0.5] differs from the reference's [0, 0]", at=0)]


def test_strict_compares_the_final_answer_without_a_trace(cases):
    """Without a trace the returned vector is compared with the reference's iterate at the
    returned counter -- where the reference's trajectory is determined up to there (a Perceptron
    that claims the cyclic rule); after a free choice (no rule claimed: either mistake first) the
    comparison cannot be made, and the note says so."""
    c = cases["none"]
    assert check_strict(c, _ans(None, w=(2.0, 1.0), rule="cyclic")) == [CheckResult(
        CID, FAIL, "at k = 2, the returned w = [2, 1] differs from the reference's [1, 1] (no trace to locate the step)")]
    assert check_strict(c, _ans(None, w=(1.0, 1.0, 0.0), rule="cyclic"))[0].outcome == FAIL
    (free,) = check_strict(c, _ans(None, w=(2.0, 1.0)))
    assert free.outcome == NOTE and "free choice (more than one misclassified point" in free.message


def test_strict_compares_the_final_status_and_counter(cases):
    c = cases["none"]
    assert check_strict(c, _ans(E1E2_TRACE, status="max_iter")) == [CheckResult(
        CID, FAIL, "final (status, iterations) = (max_iter, 2) vs the reference's (separator, 2)")]
    assert check_strict(c, _ans(E1E2_TRACE, iterations=3)) == [CheckResult(
        CID, FAIL, "final (status, iterations) = (separator, 3) vs the reference's (separator, 2)")]


# -- one judge for claims: the reference's own verifiers ------------------------------------------------

# x = (1, 1) and -x under one label: infeasible, but the normalized G rounds G_12 = -1 up to
# -0.9999999999999998, so G alpha = 1.1e-16 > 0 at alpha = (1/2, 1/2) by round-off alone.
ROUNDED = Instance("antipodal-rounded", np.array([[1.0, 1.0], [-1.0, -1.0]]), np.array([1, 1]))


def test_a_separator_by_round_off_alone_is_refused_as_the_reference_refuses_its_own():
    """The claim is judged by the reference's own verifier (its round-off allowance), not by
    G alpha > 0 in plain float64: the same rule for both sides."""
    import reference
    from theorems.validate.case import make_case
    from theorems.validate.checks import check_claim

    for alg in ("snkp", "nvn", "nkp"):
        case = make_case(alg, ROUNDED)
        alpha = np.array([0.5, 0.5])
        assert np.all(case.G @ alpha > 0)  # positive as computed
        assert reference.result.verify_separator_gram(case.G, alpha)  # but the reference would not claim it
        (res,) = [r for r in check_claim(case, {"status": "separator", "alpha": alpha, "iterations": 0}) if r.id == "claim.separator"]
        assert res.outcome == FAIL and "only within round-off" in res.message and "verify_separator_gram" in res.message


def test_a_certificate_is_judged_by_the_reference_verifier():
    """p must be in the simplex as the reference's verifier demands (sum within 16 n eps): a p
    that sums to 1 - 2e-8 (a float32 sum) is no certificate, whatever its norm."""
    from theorems.validate.case import make_case
    from theorems.validate.checks import check_claim

    case = make_case("nvn", ROUNDED)
    good = np.array([0.5, 0.5])
    (ok,) = check_claim(case, {"status": "certificate", "p": good, "iterations": 0})
    assert ok.outcome == PASS
    (bad,) = check_claim(case, {"status": "certificate", "p": good * (1 - 2e-8), "iterations": 0})
    assert bad.outcome == FAIL and "not a point of the simplex" in bad.message


# -- NKP: at alpha_0 = 0 every point of the simplex is a best response (spec A.7) -----------------------


def test_nkp_first_step_may_be_any_point_of_the_simplex():
    """alpha_k = (p_0 + k-1 vertices)/k passes for any p_0 in the simplex; an average whose
    fractional parts sum to more than 1 (theta_k off) fails; the trace's first step may be a
    non-vertex."""
    from theorems.validate.case import make_case
    from theorems.validate.checks import _final_invariants, check_trace

    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])  # G = [[1, -1, 0], [-1, 1, 0], [0, 0, 1]]
    case = make_case("nkp", Instance("three", X, np.array([1, 1, 1])))
    n = case.n
    p0 = np.full(n, 1.0 / n)
    alpha_4 = (p0 + np.array([2.0, 1.0, 0.0])) / 4  # the uniform first step, then three vertices
    assert _final_invariants(case, {}, 4, alpha_4, None, None) == []
    wrong = np.array([0.15, 0.175, 0.675])  # 4 alpha = (0.6, 0.7, 2.7): fractional parts sum to 2
    msgs = _final_invariants(case, {}, 4, wrong, None, None)
    assert msgs and "fractional parts sum to 2" in msgs[0]
    trace = [{"k": 0, "alpha": np.zeros(n)}, {"k": 1, "alpha": p0}]
    assert check_trace(case, trace)[0].outcome == PASS
    trace = [{"k": 0, "alpha": np.zeros(n)}, {"k": 1, "alpha": np.array([0.5, 0.6, 0.0])}]
    (res,) = check_trace(case, trace)
    assert res.outcome == FAIL and "alpha_k sums to 1.1, not 1" in res.message


# -- the budget ----------------------------------------------------------------------------------------


def test_iterations_above_the_budget_fail_whatever_the_status():
    from theorems.validate.case import make_case
    from theorems.validate.checks import check_claim

    case = make_case("snkp", E1E2)
    for status in ("max_iter", "separator"):
        res = [r for r in check_claim(case, {"status": status, "iterations": case.max_iter + 1, "alpha": case.reference["alpha"]})
               if r.id == "claim.max_iter"]
        assert res and res[0].outcome == FAIL and "above the budget" in res[0].message


# -- trajectory.final: deterministic trajectories held at default ----------------------------------------


def test_trajectory_final_names_a_counter_off_by_one():
    """SNKP's trajectory is determined (no decision within round-off): the vector returned with
    counter k must be the reference's iterate k.  The right vector with k - 1 or k + 1 fails and
    says by how much the counter is off; an iterate computed wrongly fails as an update."""
    from theorems.validate.case import make_case
    from theorems.validate.checks import check_trajectory

    from theorems.instances import strategies as S

    case = make_case("snkp", S.planted_separable(3, 3, 5, 0.3, seed=1))
    ref = case.reference
    K = ref["iterations"]
    assert K >= 2
    ans = {"status": ref["status"], "iterations": K, "alpha": ref["alpha"], "p": ref["p"]}
    assert check_trajectory(case, ans)[0].outcome == PASS
    for k, off in ((K - 1, -1), (K + 1, 1)):
        (res,) = check_trajectory(case, dict(ans, iterations=k))
        assert res.outcome == FAIL and f"the counter is off by {off}" in res.message, res.message
    (res,) = check_trajectory(case, dict(ans, alpha=ref["alpha"] * 0.9 + 0.1 / case.n))
    assert res.outcome == FAIL and "an update computes the wrong quantity" in res.message


def test_trajectory_final_says_why_it_cannot_compare():
    from theorems.validate.case import make_case
    from theorems.validate.checks import check_trajectory

    nkp = make_case("nkp", E1E2)  # at alpha_0 = 0 every vertex ties
    (res,) = check_trajectory(nkp, {"status": "separator", "iterations": nkp.reference["iterations"], "alpha": nkp.reference["alpha"]})
    assert res.outcome == "skip" and "free choice" in res.message
    pdm = make_case("pdm", E1E2)
    (res,) = check_trajectory(pdm, {"status": "separator", "iterations": 1, "w": pdm.reference["w"]})
    assert res.outcome == "skip" and "order the patterns are presented in is free" in res.message
    (res,) = check_trajectory(make_case("snkp", E1E2), {"status": "separator", "iterations": None, "alpha": np.array([0.5, 0.5])})
    assert res.outcome == "skip" and "no counter" in res.message


# -- PT11 traces: the last of a multiple update, PDM-succ's schedule ------------------------------------


def test_the_last_of_a_multiple_update_must_satisfy_the_condition():
    from theorems.validate.case import make_case
    from theorems.validate.checks import check_trace

    case = make_case("pdm", Instance("pair", np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, -1])), eps=0.3)
    P = case.P
    w1 = P[0].copy()
    ok = [{"t": 0, "w": np.zeros(3)}, {"t": 1, "w": w1}, {"t": 2, "w": w1 + P[1]}]
    assert check_trace(case, ok)[0].outcome == PASS
    # after the first update, y_0 no longer satisfies (8): a.y_0 = ||y_0||^2 = 2 > (1 - 0.3) 2 / 1
    over = [{"t": 0, "w": np.zeros(3)}, {"t": 2, "w": 2 * P[0]}]
    (res,) = check_trace(case, over)
    assert res.outcome == FAIL and "the last of the lambda = 2 updates" in res.message


def test_pdm_succ_updates_follow_the_schedule():
    """In the first run of PDM-succ (eps_1 = 1/2) an update needs a.y <= ||a||^2/(2t): a trace
    that updates with eps = 0.1's threshold before the first run has converged fails, naming the
    run of the schedule."""
    from theorems.validate.case import make_case
    from theorems.validate.checks import check_trace

    X = np.array([[1.0, 0.0], [0.6, 0.8], [-0.5, 0.5]])  # a_1 = y_0: y_2 still satisfies (8) at eps_1 (a.y_2 = 0.5 <= 1)
    case = make_case("pdm_succ", Instance("three", X, np.array([1, 1, 1])))
    P = case.P
    a1 = P[0].copy()
    p = float(P[1] @ a1)  # 1.6, ||a_1||^2 = 2: (1 - 0.1) 2 = 1.8 >= 1.6, but (1 - 1/2) 2 = 1 < 1.6
    assert 1.0 < p <= 1.8
    (res,) = check_trace(case, [{"t": 0, "w": np.zeros(3)}, {"t": 1, "w": a1}, {"t": 2, "w": a1 + P[1]}])
    assert res.outcome == FAIL and "run 1 of the schedule 0.5" in res.message, res.message
    # once PDM(1/2) has converged (a_1 = y_0 + y_2 ...), the next accuracy is in force: the same kind of update passes
    assert check_trace(case, [{"t": 0, "w": np.zeros(3)}, {"t": 1, "w": a1}, {"t": 2, "w": a1 + P[2]}])[0].outcome == PASS


# -- messages ------------------------------------------------------------------------------------------


def test_the_nvn_bound_message_names_epsilon_not_rho():
    from theorems.validate.case import make_case
    from theorems.validate.checks import check_bound

    case = make_case("nvn", ROUNDED)
    assert case.termination_required
    (res,) = check_bound(case, {"status": "max_iter", "iterations": case.max_iter})
    assert res.outcome == FAIL and "epsilon = 0.05" in res.message and "certified rho_K >=" not in res.message


def test_an_isnkpvn_that_gives_up_is_told_what_its_outer_loop_does():
    """An ISNKPVN whose delta_t never shrinks (q_t is not updated) stops on an outer-loop budget
    of its own: 'gave up without a claim' alone hid the defect; the message names delta_t."""
    import reference
    from theorems.validate import corpus
    from theorems.validate.checks import check_claim

    def isnkpvn_stuck(G, gamma=2.0, epsilon=1e-3, *, max_iter=100_000):
        n = len(G)
        q = np.full(n, 1.0 / n)
        total = 0
        for _ in range(50):  # its own outer budget
            delta = reference.g_norm(G, q) / gamma  # never shrinks: q is not replaced by p
            r = reference.snkpvn(G, q, delta, max_iter=max_iter - total)
            total += r.iterations
            if r.status == "separator":
                return {"status": "separator", "iterations": total, "alpha": r.alpha}
        return {"status": "max_iter", "iterations": total, "p": r.p}

    case = next(c for c in corpus("isnkpvn") if c.reference["status"] == "certificate" and c.max_iter >= 500
                and reference.g_norm(c.G, np.full(c.n, 1.0 / c.n)) > 0.1)
    ans = isnkpvn_stuck(case.G, case.args["gamma"], case.args["epsilon"], max_iter=case.max_iter)
    (res,) = check_claim(case, dict(ans, max_iter_passed=True))
    assert res.outcome == FAIL and "gave up without a claim" in res.message and "does delta_t shrink?" in res.message


# -- layer 1 and the bounds, message by message ---------------------------------------------------------------

import dataclasses  # noqa: E402
import math  # noqa: E402

import reference  # noqa: E402
from tests.support.validate import TWICE  # noqa: E402
from theorems.validate import checks as C  # noqa: E402
from theorems.validate.case import ALLOWED_STATUSES, make_case  # noqa: E402
from theorems.validate.report import SKIP  # noqa: E402

MIXED = Instance("mixed", np.array([[2.0, 1.0], [1.5, 2.0], [-1.0, -2.0]]), np.array([1, 1, -1]))
INFEASIBLE = Instance("twice", *TWICE)


@pytest.fixture(scope="module")
def mk():
    made = {}

    def get(algorithm, inst=MIXED, **kw):
        key = (algorithm, inst.name, tuple(sorted(kw.items())))
        if key not in made:
            made[key] = make_case(algorithm, inst, **kw)
        return made[key]

    return get


def _ref(case, **over):
    """The reference's answer on the case (as call_impl hands it on), with fields replaced."""
    ans = {k: (None if v is None else (v.copy() if isinstance(v, np.ndarray) else v)) for k, v in case.reference.items()}
    ans.update(rule_passed=None, max_iter_passed=True, max_epochs_passed=False)
    ans.update(over)
    return ans


def _one(results, cid):
    (r,) = [r for r in results if r.id == cid]
    return r


def _contract_msg(case, ans):
    (r,) = C.check_contract(case, ans)
    assert (r.id, r.outcome) == ("answer.contract", FAIL), r
    return r.message


def test_contract_passes_the_reference_and_names_each_breach(mk):
    c = mk("snkp")
    assert C.check_contract(c, _ref(c)) == [CheckResult("answer.contract", PASS)]
    assert C.check_contract(c, _ref(c, error="boom")) == [CheckResult("answer.contract", FAIL, "boom")]
    assert _contract_msg(c, _ref(c, status="done")) == f"status 'done' is not one of {ALLOWED_STATUSES['snkp']}"
    for it in (-1, 2.5, "3"):
        assert _contract_msg(c, _ref(c, iterations=it)) == f"iterations {it!r} is not a nonnegative integer (or None: no counter)"
    assert C.check_contract(c, _ref(c, iterations=None))[0].outcome == PASS
    assert C.check_contract(c, _ref(c, iterations=np.int64(3)))[0].outcome == PASS
    assert C.check_contract(c, _ref(c, iterations=0))[0].outcome == PASS
    assert _contract_msg(c, _ref(c, alpha=np.ones(2) / 2)) == "alpha has length 2, expected 3"
    assert _contract_msg(c, _ref(c, p=np.ones(4) / 4)) == "p has length 4, expected 3"
    assert _contract_msg(c, _ref(c, p=np.array([np.nan, 0.5, 0.5]))) == "p is not finite"
    assert _contract_msg(c, _ref(c, alpha=np.array([np.inf, 0.0, 0.0]))) == "alpha is not finite"
    assert _contract_msg(c, _ref(c, alpha=None, status="separator")).startswith("status 'separator' without the vector (")
    v = mk("nvn", INFEASIBLE)
    assert _contract_msg(v, _ref(v, status="certificate", p=None)) == "status 'certificate' without p"
    assert C.check_contract(v, _ref(v, status="certificate", p=np.array([0.5, 0.5]))) == [CheckResult("answer.contract", PASS)]


def test_contract_vector_lengths_follow_the_data(mk):
    p = mk("perceptron")
    assert _contract_msg(p, _ref(p, w=np.ones(3))) == "w has length 3, expected 2"  # d = 2
    d = mk("pdm", Delta=1.0)
    assert d.P.shape[1] == 2 + 1 + 3  # x, rho, Delta e_k
    assert _contract_msg(d, _ref(d, w=np.ones(3))) == f"w has length 3, expected {d.P.shape[1]}"
    assert C.check_contract(d, _ref(d))[0].outcome == PASS
    assert _contract_msg(p, _ref(p, w=np.array([1.0, np.inf]))) == "w is not finite"


def test_claim_above_the_budget_fails_whatever_the_status(mk):
    c = mk("snkp")
    over = _ref(c, iterations=c.max_iter + 1)
    r = _one(C.check_claim(c, over), "claim.max_iter")
    assert r.outcome == FAIL and r.message == (f"'separator' after {c.max_iter + 1} iterations, above the budget max_iter={c.max_iter} "
                                               "it was given (a step -- e.g. a multiple update -- crossed the budget)")  # fmt: skip
    assert not [r for r in C.check_claim(c, _ref(c, iterations=c.max_iter + 1, max_iter_passed=False)) if r.id == "claim.max_iter"]
    assert not [r for r in C.check_claim(c, _ref(c, iterations=c.max_iter)) if r.id == "claim.max_iter"]


def test_a_separator_claim_is_judged_on_the_returned_vector(mk):
    c = mk("perceptron")
    r = _one(C.check_claim(c, _ref(c)), "claim.separator")
    def normalized(w):  # y_i <w, x_i> / (||x_i|| ||w||)
        return (c.Z @ w) / np.linalg.norm(c.Z, axis=1) / np.linalg.norm(w)

    assert r.outcome == PASS and r.message == f"min normalized margin {float(np.min(normalized(c.reference['w']))):.3g}"
    assert _one(C.check_claim(c, _ref(c, w=np.zeros(2))), "claim.separator").message == "the returned w is the zero vector: it separates nothing"
    assert _one(C.check_claim(c, _ref(c, w=np.array([np.inf, 0.0]))), "claim.separator").message == \
        "the returned w has a non-finite norm: it separates nothing"  # fmt: skip
    # (1, -1) scores 1, -0.5, -1 on the reflected points (2, 1), (1.5, 2), (1, 2): point 2 is the worst
    bad = _one(C.check_claim(c, _ref(c, w=np.array([1.0, -1.0]))), "claim.separator")
    worst = -1.0 / math.sqrt(5) / math.sqrt(2)
    assert bad.outcome == FAIL and bad.message == f"point 2 has normalized margin {worst:.3g} <= 0: not separated"
    # (2, -1) scores 3, 1, 0: margin exactly 0 at point 2
    assert _one(C.check_claim(c, _ref(c, w=np.array([2.0, -1.0]))), "claim.separator").message == "point 2 has margin exactly 0: not separated"


def test_a_gram_separator_of_norm_zero_separates_nothing(mk):
    c = mk("snkp", INFEASIBLE)  # G = [[1, -1], [-1, 1]]: alpha = (1/2, 1/2) has G alpha = 0
    r = _one(C.check_claim(c, _ref(c, status="separator", alpha=np.array([0.5, 0.5]))), "claim.separator")
    assert r.outcome == FAIL and r.message == ("the returned alpha is nonzero but has norm 0 in the feature space "
                                               "(||alpha||_G = 0, G alpha = 0): it separates nothing")  # fmt: skip


def test_a_certificate_claim_passes_and_fails_with_the_quantity_named(mk):
    v = mk("nvn", INFEASIBLE)
    p = np.array([0.5, 0.5])  # ||p||_G = 0 on the pair x, x under opposite labels
    r = _one(C.check_claim(v, _ref(v, status="certificate", p=p)), "claim.certificate")
    assert r.outcome == PASS and r.message == f"||p||_G = {reference.g_norm(v.G, p):.6g} <= accuracy 0.05"
    far = np.array([1.0, 0.0])
    r = _one(C.check_claim(v, _ref(v, status="certificate", p=far)), "claim.certificate")
    assert r.outcome == FAIL and r.message.startswith("||p||_G = 1 is not certified <= accuracy 0.05 (")
    assert r.message.endswith("; the reference's own verifier refuses this claim)")
    neg = np.array([1.25, -0.25])
    r = _one(C.check_claim(v, _ref(v, status="certificate", p=neg)), "claim.certificate")
    assert r.outcome == FAIL and r.message.startswith("p has a negative entry -0.25: not a point of the simplex (")
    s = mk("snkpvn", INFEASIBLE)
    r = _one(C.check_claim(s, _ref(s, status="certificate", p=p)), "claim.certificate")
    assert r.outcome == PASS and r.message == f"||p||_G = {reference.g_norm(s.G, p):.6g} < accuracy {s.args['delta']:g}"
    r = _one(C.check_claim(s, _ref(s, status="certificate", p=far)), "claim.certificate")
    assert "is not certified < accuracy" in r.message


def test_max_iter_claims_that_gave_up_or_skipped_a_claim(mk):
    c = mk("perceptron")
    r = _one(C.check_claim(c, _ref(c, status="max_iter", iterations=c.max_iter - 1, w=None)), "claim.max_iter")
    assert r.outcome == FAIL and r.message == (f"'max_iter' after {c.max_iter - 1} iterations, below the budget max_iter={c.max_iter}: "
                                               "gave up without a claim")  # fmt: skip
    assert _one(C.check_claim(c, _ref(c, status="max_iter", iterations=c.max_iter - 1, w=None, max_iter_passed=False)),
                "claim.max_iter").outcome == PASS  # fmt: skip
    assert _one(C.check_claim(c, _ref(c, status="max_iter", iterations=None, w=None)), "claim.max_iter").outcome == PASS
    honest = _one(C.check_claim(c, _ref(c, status="max_iter", iterations=c.max_iter, w=np.array([1.0, -1.0]))), "claim.max_iter")
    assert honest == CheckResult("claim.max_iter", PASS, "")
    w = c.reference["w"]
    r = _one(C.check_claim(c, _ref(c, status="max_iter", iterations=c.max_iter)), "claim.max_iter")
    m = float(np.min((c.Z @ w) / np.linalg.norm(c.Z, axis=1) / np.linalg.norm(w)))
    assert r.outcome == FAIL and r.message == f"'max_iter' but the returned vector already separates (min normalized margin {m:.3g})"
    d = mk("pdm")
    assert _one(C.check_claim(d, _ref(d, status="max_iter", iterations=1, max_epochs_passed=True)), "claim.max_iter").outcome == PASS
    assert _one(C.check_claim(d, _ref(d, status="max_iter", iterations=1)), "claim.max_iter").outcome == FAIL
    # PT11: a max_iter at the budget is not second-guessed (no exit test on the vector)
    assert _one(C.check_claim(d, _ref(d, status="max_iter", iterations=d.max_iter)), "claim.max_iter").outcome == PASS


def test_max_iter_with_a_certificate_in_hand_fails(mk):
    v = mk("nvn", INFEASIBLE)
    r = _one(C.check_claim(v, _ref(v, status="max_iter", iterations=v.max_iter, p=np.array([0.5, 0.5]))), "claim.max_iter")
    assert r.outcome == FAIL and r.message == f"'max_iter' but the returned p already certifies: ||p||_G = {0.0:.3g} < 0.05"
    assert _one(C.check_claim(v, _ref(v, status="max_iter", iterations=v.max_iter, p=np.array([0.9, 0.1]))), "claim.max_iter").outcome == PASS


def test_an_isnkpvn_that_gives_up_is_told_about_its_outer_loop(mk):
    c = mk("isnkpvn", INFEASIBLE)
    r = _one(C.check_claim(c, _ref(c, status="max_iter", iterations=1, p=None)), "claim.max_iter")
    assert r.message.endswith("gave up without a claim (RP14 Alg. 7 has no budget but max_iter)")
    r = _one(C.check_claim(c, _ref(c, status="max_iter", iterations=1, p=np.array([0.75, 0.25]))), "claim.max_iter")
    q0 = reference.g_norm(c.G, np.array([0.5, 0.5]))
    assert r.message.endswith(f"so delta_t shrinks by gamma = {c.args['gamma']:g} per round and the loop ends within "
                              f"log_gamma(||q_0||_G/epsilon) rounds; here ||q_0||_G = {q0:.3g} and the returned p has "
                              f"||p||_G = {reference.g_norm(c.G, np.array([0.75, 0.25])):.3g}: does delta_t shrink?)")  # fmt: skip
    r = _one(C.check_claim(c, _ref(c, status="max_iter", iterations=1, p=np.array([1.5, -0.5]))), "claim.max_iter")
    assert r.message.endswith("(RP14 Alg. 7 has no budget but max_iter)")  # p not in the simplex: no rounds to speak of


def test_bound_check_outcomes_and_messages(mk):
    c = mk("snkp")
    assert c.termination_required and c.bound is not None
    assert C.check_bound(c, _ref(c)) == [CheckResult("bound.iterations", PASS, f"{c.reference['iterations']} <= {c.bound:.6g}")]
    k = math.floor(c.bound * (1 + 1e-9) + 1) + 1
    r = C.check_bound(c, _ref(c, iterations=k))[0]
    assert (r.id, r.outcome) == ("bound.iterations", FAIL) and r.message == (f"{k} iterations exceed RP14 Thm. 1: 2 sqrt(2 log n)/rho_K = {c.bound:.6g} "
                                               f"(certified rho_K >= {c.m_lo:.6g})")  # fmt: skip
    assert C.check_bound(c, _ref(c, iterations=k - 1))[0].outcome == PASS  # within bound (1 + 1e-9) + 1
    r = C.check_bound(c, _ref(c, status="max_iter", iterations=c.max_iter))[0]
    assert (r.id, r.outcome) == ("bound.iterations", FAIL) and r.message == (f"returned 'max_iter' after {c.max_iter} iterations, but RP14 Thm. 1: 2 sqrt(2 log n)/rho_K "
                                               f"guarantees termination within {c.bound:.6g} (certified rho_K >= {c.m_lo:.6g}; "
                                               f"budget max_iter={c.max_iter})")  # fmt: skip
    r = C.check_bound(c, _ref(c, status="max_iter", iterations=None))[0]
    assert r.message.startswith("returned 'max_iter', but RP14 Thm. 1")
    assert C.check_bound(c, _ref(c, iterations=None))[0] == CheckResult(
        "bound.iterations", SKIP, "no counter returned (iterations=None): the bound cannot be checked")
    n = mk("nvn")
    assert C.check_bound(n, _ref(n))[0] == CheckResult("bound.iterations", SKIP, "no theorem bounds the counter on this instance")
    far = mk("snkp", budget=2)
    if far.bound is not None:
        assert C.check_bound(far, _ref(far, status="max_iter", iterations=2))[0] == CheckResult(
            "bound.iterations", SKIP, "the bound exceeds the budget")


def test_bound_basis_names_the_quantity_of_each_bound(mk):
    assert C._bound_basis(mk("snkp")) == f"certified rho_K >= {mk('snkp').m_lo:.6g}"
    assert C._bound_basis(mk("perceptron")) == f"certified rho >= {mk('perceptron').m_lo:.6g}"
    v = mk("nvn", INFEASIBLE)
    assert C._bound_basis(v) == f"epsilon = 0.05, on data certified infeasible (rho_K <= {v.m_hi:.6g} <= 0)"
    s = mk("snkpvn", INFEASIBLE)
    assert C._bound_basis(s) == f"delta = {s.args['delta']:g}, ||q||_G, and certified rho_K <= {s.m_hi:.6g} < 0"
    assert C._bound_basis(mk("snkpvn")) == f"certified rho_K >= {mk('snkpvn').m_lo:.6g}"
    i = mk("isnkpvn", INFEASIBLE)
    assert C._bound_basis(i) == f"gamma = 2, epsilon = 0.05, certified |rho_K| >= {abs(i.m_hi):.6g}"
    f = mk("isnkpvn")
    assert C._bound_basis(f) == f"gamma = 2, epsilon = 0.05, certified |rho_K| >= {abs(f.m_lo):.6g}"


def test_margin_guarantee_of_pt11_separators(mk):
    assert C.check_margin_guarantee(mk("snkp"), _ref(mk("snkp"))) == []
    d = mk("pdm")
    assert C.check_margin_guarantee(d, _ref(d, status="max_iter")) == [CheckResult("guarantee.margin", SKIP, "no separator")]
    w = d.reference["w"]
    ach = float(np.min(d.P @ w)) / float(np.linalg.norm(w))
    assert C.check_margin_guarantee(d, _ref(d)) == [CheckResult(
        "guarantee.margin", PASS, f"achieved directional margin {ach:.6g} >= (1-eps) gamma_d = {d.margin_guarantee:.6g} (PT11 Sec. 3)")]
    weak = -w  # every pattern on the wrong side: a negative achieved margin
    ach2 = float(np.min(d.P @ weak)) / float(np.linalg.norm(weak))
    assert ach2 < 0 and C.check_margin_guarantee(d, _ref(d, w=weak))[0] == CheckResult("guarantee.margin", FAIL, (
        f"achieved directional margin {ach2:.6g} is not >= (1-eps) gamma_d = {d.margin_guarantee:.6g} (PT11 Sec. 3)"))
    z = C.check_margin_guarantee(d, _ref(d, w=np.zeros_like(w)))[0]
    assert z.outcome == FAIL and z.message.startswith("achieved directional margin -inf is not >=")
    f = mk("pfm")
    wf = f.reference["w"]
    achf = float(np.min(f.P @ wf)) / float(np.linalg.norm(wf))
    assert C.check_margin_guarantee(f, _ref(f))[0].message == (
        f"achieved directional margin {achf:.6g} > beta = {f.margin_guarantee:.6g} (PT11 (7) at convergence)")
    assert C.check_margin_guarantee(f, _ref(f, w=np.zeros_like(wf)))[0].message.startswith(
        "achieved directional margin -inf is not > beta")


def test_evaluate_skips_refusals_and_stops_at_a_broken_contract(mk):
    c = mk("snkp")
    assert C.evaluate(c, {"skip": "why"}) == [CheckResult("answer.contract", SKIP, "why")]
    assert C.evaluate(c, {"refused": "ValueError"}) == [CheckResult("answer.contract", "refused", "ValueError")]
    assert C.evaluate(c, _ref(c, error="boom")) == [CheckResult("answer.contract", FAIL, "boom")]
    ids = [r.id for r in C.evaluate(c, _ref(c))]
    assert ids == ["answer.contract", "claim.separator", "bound.iterations", "invariant.final", "invariant.trace", "trajectory.final"]
    ids = [r.id for r in C.evaluate(mk("pdm"), _ref(mk("pdm")), strict=True)]
    assert ids == ["answer.contract", "claim.separator", "bound.iterations", "guarantee.margin", "invariant.final", "invariant.trace",
                   "trajectory.final", "strict.trajectory"]  # fmt: skip
    assert all(r.outcome != FAIL for r in C.evaluate(mk("pdm"), _ref(mk("pdm")), strict=True))


# -- layer 2: the final-iterate statements, one violation each --------------------------------------------------


def _final(case, k, **vectors):
    ans = _ref(case, iterations=k, **vectors)
    return C._final_invariants(case, ans, k, ans.get("alpha"), ans.get("w"), ans.get("p"))


def test_nkp_final_statements(mk):
    c = mk("nkp")
    assert _final(c, 2, alpha=np.array([1.25, -0.25, 0.0])) == ["alpha_k has a negative entry -0.25 (NKP: alpha_k is in the simplex for k >= 1)"]
    third = np.full(3, 1 / 3)  # 2 alpha_2 = (2/3, 2/3, 2/3): fractional parts sum to 2
    (msg,) = [m for m in _final(c, 2, alpha=third) if m.startswith("k alpha_k")]
    assert msg == (f"k alpha_k = {C._short(2 * third)} is not a point of the simplex plus k-1 vertices: its fractional parts sum to "
                   f"{2.0:.6g} > 1 (RP14 Alg. 3: alpha_k averages the first best response and k-1 vertices e_j)")  # fmt: skip
    e1 = np.array([1.0, 0.0, 0.0])  # ||e_1||_G^2 = G_11 = 1: k = 3 gives 3 > 1
    assert _final(c, 3, alpha=e1) == [f"||alpha_k||_G^2 k = {3.0:.6g} > 1 (RP14 Sec. 3.2 proof: ||k w_k||^2 <= k)"]
    assert _final(c, 1, alpha=e1) == []
    assert _final(c, 0, alpha=np.zeros(3)) == []  # alpha_0 = 0 is no point of the simplex, and need not be


def test_smoothed_final_statements(mk):
    from reference import smoothed
    from reference.arithmetic import Arithmetic

    c = mk("snkp")
    assert _final(c, 3, alpha=np.array([1.5, -0.5, 0.0]), p=np.full(3, 1 / 3)) == [
        "alpha has a negative entry -0.5 (RP14 Alg. 4/6/7 keep alpha_k in the simplex)"]
    assert _final(c, 3, alpha=np.full(3, 1 / 3), p=np.array([0.5, 0.5, 0.5])) == [f"p sums to {1.5:.9g}, not 1 (p_k stays in the simplex)"]
    alpha, p, k = np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0]), 0
    mu = 4.0 / ((k + 1) * (k + 2))
    lhs = float(smoothed.smoothed_loss(c.G, alpha, mu, Arithmetic(None)))
    rhs = -0.5 * reference.g_norm(c.G, p) ** 2
    assert lhs > rhs + 1e-5 * (1 + abs(rhs))  # the instance violates the excessive gap condition
    assert _final(c, k, alpha=alpha, p=p) == [
        f"excessive gap condition fails at the returned iterate: L_mu_k(alpha_k) = {lhs:.6g} > -||p_k||_G^2/2 = {rhs:.6g} "
        f"(RP14 Lemma 5, mu_k = 4/((k+1)(k+2)), k = 0)"]
    ref = c.reference
    assert _final(c, ref["iterations"], alpha=ref["alpha"], p=ref["p"]) == []
    v = mk("snkpvn")
    lhs = float(smoothed.smoothed_loss_q(v.G, alpha, 4.0 * 3 / 2, v.args["q"], Arithmetic(None)))  # mu_0 = 4n/2
    rhs = -0.5 * reference.g_norm(v.G, p) ** 2
    assert lhs > rhs + 1e-5 * (1 + abs(rhs))
    assert _final(v, 0, alpha=alpha, p=p) == [
        f"excessive gap condition fails at the returned iterate: L_mu_k(alpha_k) = {lhs:.6g} > -||p_k||_G^2/2 = {rhs:.6g} "
        f"(RP14 Lemmas 8/9, mu_k = 4n/((k+1)(k+2)), k = 0)"]
    assert _final(v, v.reference["iterations"], alpha=v.reference["alpha"], p=v.reference["p"]) == []


def test_statements_without_a_counter_are_the_simplex_ones(mk):
    c = mk("snkp")
    assert _final(c, None, alpha=np.array([2.0, -1.0, 0.0]), p=np.array([0.2, 0.2, 0.2])) == [
        "alpha has a negative entry -1 (RP14: alpha_k stays in the simplex)",
        f"p sums to {0.6:.9g}, not 1 (RP14: p_k stays in the simplex)"]
    v = mk("nvn")
    assert _final(v, None, alpha=np.array([2.0, -1.0, 0.0]), p=np.full(3, 1 / 3)) == []  # NVN has no alpha in the simplex
    assert _final(v, None, p=np.array([2.0, -1.0, 0.0])) == ["p has a negative entry -1 (RP14: p_k stays in the simplex)"]
    assert _final(mk("perceptron"), None, w=np.array([1e9, 0.0])) == []  # every primal statement involves k


def test_nvn_final_statement(mk):
    v = mk("nvn")
    e1 = np.array([1.0, 0.0, 0.0])
    assert _final(v, 5, p=e1) == [f"||p_k||_G^2 (k+1) = {6.0:.6g} > 1 (RP14 Sec. 5.1: ||w_k|| <= 1/sqrt(k+1) while not separated)"]
    assert _final(v, 0, p=e1) == []
    assert _final(v, 5, p=np.array([1.5, -0.5, 0.0])) == ["p has a negative entry -0.5 (p_k stays in the simplex)"]


def test_primal_perceptron_final_statements(mk):
    n = mk("normalized_perceptron")
    assert _final(n, 4, w=np.array([1.0, 0.0])) == [
        f"||w_k||^2 k = {4.0:.6g} > {1.0:.6g} (RP14 Alg. 2: w_k averages k unit points, each a mistake: ||k w_k||^2 <= k)"]
    assert _final(n, 1, w=np.array([0.01, 0.0])) == [
        f"||w_k|| = {0.01:.6g} < rho_2 = {n.m_lo:.6g} (an average of the normalized points has norm >= rho_2)"]
    assert _final(n, 0, w=np.array([1.0, 0.0])) == []
    raw = dataclasses.replace(n, args={"normalize": False})
    R2 = float(np.max(np.sum(n.X**2, axis=1)))
    big = np.array([3.0, 0.0])
    assert C._final_invariants(raw, _ref(raw), 1, None, big, None)[0] == (
        f"||w_k||^2 k = {9.0:.6g} > {R2:.6g} (RP14 Alg. 2: w_k averages k points, each a mistake: ||k w_k||^2 <= k R^2)")
    p = mk("perceptron")
    assert _final(p, 1, w=np.array([100.0, 0.0])) == [
        f"||w_k||^2 = {1e4:.6g} > k R^2 = {p.R**2:.6g} (Block-Novikoff: each update is a mistake)"]
    assert _final(p, 2, w=np.array([1e-3, 0.0])) == [
        f"||w_k|| = {1e-3:.6g} < k rho = {2 * p.m_lo:.6g} (Block-Novikoff: <u, w_k> >= k rho, so k is not the number of updates)"]
    assert _final(p, p.reference["iterations"], w=p.reference["w"]) == []


def test_pt11_final_statements(mk):
    d = mk("pdm")
    w = d.reference["w"]
    nw = float(np.linalg.norm(w))
    t_big = int(math.ceil(nw / (d.m_lo * 0.5)))  # ||a||/t well below gamma_d
    assert _final(d, t_big, w=w, status="max_iter")[0] == (
        f"||a_t||/t = {nw / t_big:.6g} < gamma_d = {d.m_lo:.6g} with t = {t_big} (PT11 eq. (4): t overcounts the updates)")
    wide = w * (2 * d.R * 3 / nw)  # ||a|| = 6 R at t = 3... reported at t = 2
    assert (_final(d, 2, w=wide, status="max_iter")) == [
        f"||a_t|| = {float(np.linalg.norm(wide)):.6g} > t R = {2 * d.R:.6g} (each update adds at most R: t undercounts)"]
    # a = (2.4, 0, 0) at t = 1: gamma_d <= ||a||/t <= R, but P a = (4.8, 3.6, 2.4) leaves the third pattern
    # at margin 1 < (1-eps)||a||/t = 0.7 * 2.4: it still satisfies the dynamic margin condition
    assert d.P.tolist() == [[2.0, 1.0, 1.0], [1.5, 2.0, 1.0], [1.0, 2.0, -1.0]] and d.m_lo <= 2.4 <= d.R
    a = np.array([2.4, 0.0, 0.0])
    assert _final(d, 1, w=a, status="separator") == [
        f"min_k a.y_k/||a|| = {1.0:.6g} < (1-eps)||a_t||/t = {0.7 * 2.4:.6g}: some pattern still satisfies the dynamic margin condition (8)"]
    assert _final(d, 1, w=a, status="max_iter") == []  # a run that has not stopped may still have such patterns
    assert _final(mk("pfm"), 1, w=a, status="separator") == []  # PFM's stopping rule is (7), checked by its guarantee
    assert _final(d, d.reference["iterations"], w=w, status="separator") == []


def test_extended_space_update_counts(mk):
    d = mk("pdm", Delta=1.0)
    ref = d.reference
    t = ref["iterations"]
    assert _final(d, t, w=ref["w"], status=ref["status"]) == []
    d0 = d.P.shape[1] - d.n
    for broken in (0.5, -1.0):
        w = ref["w"].copy()
        w[d0] += broken * d.y[0] * 1.0
        c = w[d0:] * d.y / 1.0
        msgs = _final(d, t, w=w, status="max_iter")
        assert msgs[-1] == f"in the extended space the update counts a_ext * l_k / Delta = {C._short(c)} must be nonnegative integers summing to t = {t}"
    assert _final(d, t + 1, w=ref["w"], status="max_iter")[-1].startswith("in the extended space the update counts")


# -- layer 2: every step of a trace ------------------------------------------------------------------------------
#
# FOUR: z_1 = (1, 0), z_2 = (-1, 0.1), z_3 = (-0.5, -0.2), z_4 = (0.5, 0.5) (labels +1): not separable
# (z_1 needs w_1 > 0, z_2 then w_2 > 10 w_1, z_3 w_2 < -2.5 w_1).  At w = z_1 the scores are (1, -1, -0.5, 0.5):
# points 2 and 3 (indices 1, 2) are mistakes, index 1 the most violated.
FOUR = Instance("four", np.array([[1.0, 0.0], [-1.0, 0.1], [-0.5, -0.2], [0.5, 0.5]]), np.array([1, 1, 1, 1]))


def _trace_check(case, states, rule=None):
    tr = [{k: (np.asarray(v, dtype=float) if isinstance(v, (list, tuple, np.ndarray)) else v) for k, v in s.items()} for s in states]
    return C.check_trace(case, tr, rule)[0]


def test_a_missing_trace_is_skipped_and_a_correct_one_passes(mk):
    c = mk("perceptron", FOUR)
    assert C.check_trace(c, None)[0] == CheckResult("invariant.trace", SKIP, "no trace returned")
    assert C.check_trace(c, [])[0].outcome == SKIP
    Z = c.Z
    ok = [{"k": 0, "w": [0.0, 0.0]}, {"k": 1, "w": Z[0]}, {"k": 2, "w": Z[0] + Z[1]}]
    assert _trace_check(c, ok) == CheckResult("invariant.trace", PASS, "3 iterates")
    assert _trace_check(c, [{"w": [0.0, 0.0]}, {"w": Z[0]}]) == CheckResult("invariant.trace", PASS, "2 iterates")  # counted by position


def test_perceptron_steps(mk):
    c = mk("perceptron", FOUR)
    Z = c.Z
    r = _trace_check(c, [{"k": 0, "w": [0.0, 0.0]}, {"k": 1, "w": Z[0]}, {"k": 2, "w": Z[0] + 2 * Z[1]}])
    assert (r.outcome, r.message, r.at) == (FAIL, "step 1->2: w_(k+1) - w_k is not a reflected point y_i x_i", 2)
    # at w_1 = z_3 = (-0.5, -0.2), z_3 scores 0.29 > 0: an update on it is an update on no mistake
    r = _trace_check(c, [{"k": 0, "w": [0.0, 0.0]}, {"k": 1, "w": Z[2]}, {"k": 2, "w": 2 * Z[2]}])
    assert r.message == "step 1->2: updated on point 2, which is not a mistake (y_j <w_k, x_j> = 0.29 > 0)" and r.at == 2
    skipped = _trace_check(c, [{"k": 0, "w": [0.0, 0.0]}, {"k": 2, "w": [0.3, 0.3]}])  # two steps apart: not judged
    assert skipped.outcome == PASS


def test_perceptron_rules(mk):
    c = mk("perceptron", FOUR)
    Z = c.Z
    w1 = Z[0]
    first = [{"k": 0, "w": [0.0, 0.0]}, {"k": 1, "w": w1}]
    assert _trace_check(c, first + [{"k": 2, "w": w1 + Z[1]}], "cyclic").outcome == PASS
    r = _trace_check(c, first + [{"k": 2, "w": w1 + Z[2]}], "cyclic")
    assert r.message == ("step 1->2: rule 'cyclic' updates on point 1 (the first mistake scanning from index 1, the point after "
                         "the last update), but w_(k+1) - w_k is not y_1 x_1")  # fmt: skip
    assert _trace_check(c, first + [{"k": 2, "w": w1 + Z[1]}], "most_violated").outcome == PASS
    r = _trace_check(c, first + [{"k": 2, "w": w1 + Z[2]}], "most_violated")
    assert r.message == "step 1->2: rule 'most_violated' updates on argmin_i y_i <w_k, x_i> = point 1, not on point 2"
    assert _trace_check(c, first + [{"k": 2, "w": w1 + Z[2]}]).outcome == PASS  # no rule: any mistake
    # the cyclic scan continues after the last update (and wraps around): from w_2 = z_1 + z_2 the scores are
    # (0, 1.01, -0.52, 0.55): the first mistake from index 2 is 2 -- not 0, whose score 0 is a mistake too
    w2 = w1 + Z[1]
    assert (Z @ w2)[0] == 0.0 and (Z @ w2)[2] < 0
    three = first + [{"k": 2, "w": w2}]
    assert _trace_check(c, three + [{"k": 3, "w": w2 + Z[2]}], "cyclic").outcome == PASS
    r = _trace_check(c, three + [{"k": 3, "w": w2 + Z[0]}], "cyclic")
    assert r.message.startswith("step 2->3: rule 'cyclic' updates on point 2 (the first mistake scanning from index 2,")


def test_nkp_steps(mk):
    c = mk("nkp", FOUR)
    G = c.G
    e = np.eye(4)
    a1 = e[0]
    j = int(np.argmin(G @ a1))
    assert j == 1 and (G @ a1)[2] < 0 and (G @ a1)[2] > (G @ a1)[1] + 1e-3  # index 2: a mistake, not the most violated
    start = [{"k": 0, "alpha": np.zeros(4)}, {"k": 1, "alpha": a1}]
    assert _trace_check(c, start + [{"k": 2, "alpha": (a1 + e[1]) / 2}]).outcome == PASS
    r = _trace_check(c, start + [{"k": 2, "alpha": (a1 + e[2]) / 2}])
    assert r.message == "step 1->2: took e_2, but (G alpha_k)_2 is not (near) minimal (RP14 eq. (10): argmin)" and r.at == 2
    r = _trace_check(c, start + [{"k": 2, "alpha": a1 / 2 + (e[1] + e[3]) / 4}])
    assert r.message == "step 1->2: alpha_(k+1) is not (1-theta_k) alpha_k + theta_k e_j with theta_k = 1/(k+1)"
    # the first step from alpha_0 = 0 may take any point of the simplex
    assert _trace_check(c, [{"k": 0, "alpha": np.zeros(4)}, {"k": 1, "alpha": np.full(4, 0.25)}]).outcome == PASS


def test_normalized_perceptron_steps(mk):
    c = mk("normalized_perceptron", FOUR)
    Zn = c.Z / np.linalg.norm(c.Z, axis=1, keepdims=True)
    w1 = Zn[0]
    assert int(np.argmin(Zn @ w1)) == 1
    start = [{"k": 0, "w": [0.0, 0.0]}, {"k": 1, "w": w1}]
    assert _trace_check(c, start + [{"k": 2, "w": (w1 + Zn[1]) / 2}]).outcome == PASS
    r = _trace_check(c, start + [{"k": 2, "w": (w1 + Zn[2]) / 2}])
    assert r.message == "step 1->2: used point 2, which is not the (near) most misclassified one (RP14 eq. (4))"
    r = _trace_check(c, start + [{"k": 2, "w": (w1 + 0.5 * Zn[1]) / 2}])
    assert r.message == "step 1->2: w_(k+1) - (1-theta_k) w_k is not theta_k times a normalized reflected point"
    assert _trace_check(c, [{"k": 0, "w": [0.0, 0.0]}, {"k": 1, "w": Zn[3]}]).outcome == PASS  # w_0 = 0: every point ties


@pytest.mark.parametrize(
    "algorithm, at, mu, message",
    [
        ("snkp", 1, 0.5, f"at iterate 1: mu_k = {0.5:.6g}, but mu_0 = 2, mu_(k+1) = (1-theta_k) mu_k give 4/((k+1)(k+2)) = {4 / 6:.6g}"),
        ("snkpvn", 2, 1.0, f"at iterate 2: mu_k = {1.0:.6g}, expected 4n/((k+1)(k+2)) = {16 / 12:.6g}"),
    ],
)
def test_smoothed_mu_schedules(mk, algorithm, at, mu, message):
    c = mk(algorithm, FOUR)
    ref = C._reference_run(c)["trace"][:3]
    assert _trace_check(c, ref).outcome == PASS
    bad = [dict(s) for s in ref]
    bad[at]["mu"] = mu
    r = _trace_check(c, bad)
    assert (r.id, r.outcome, r.message, r.at) == ("invariant.trace", FAIL, message, at), r
    bad[at]["mu"] = ref[at]["mu"] * (1 + 1e-7)  # within 1e-6 relative
    assert _trace_check(c, bad).outcome == PASS


def test_a_per_iterate_statement_fails_at_its_iterate(mk):
    c = mk("perceptron", FOUR)
    r = _trace_check(c, [{"k": 0, "w": [0.0, 0.0]}, {"k": 1, "w": [100.0, 0.0]}])
    assert r.message.startswith("at iterate 1: ||w_k||^2 = 10000 > k R^2") and r.at == 1


def test_pt11_steps_hold_the_condition_at_each_update(mk):
    d = mk("pdm")
    P = d.P
    a1 = P[0]  # t = 1: P a_1 = (6, 6, 3), threshold 0.7 * 6 / 1 = 4.2
    assert (P @ a1).tolist() == [6.0, 6.0, 3.0]
    s = [{"t": 0, "w": np.zeros(3)}, {"t": 1, "w": a1}]
    assert _trace_check(d, s + [{"t": 2, "w": a1 + P[2]}]).outcome == PASS
    r = _trace_check(d, s + [{"t": 2, "w": a1 + P[0]}])
    assert r.message == ("update 1->2 on pattern 0 with a.y_k = 6 > threshold 4.2 at t = 1: the condition "
                         "(8) a.y <= (1-eps)||a||^2/t with eps = 0.3 does not hold") and r.at == 2  # fmt: skip
    # lambda = 2 on pattern 2: the first update holds (3 <= 4.2), the last does not (at a_1 + P_2 = (3, 3, 0), t = 2:
    # 9 > 0.7 * 18 / 2 = 6.3)
    r = _trace_check(d, s + [{"t": 3, "w": a1 + 2 * P[2]}])
    assert r.message == ("the last of the lambda = 2 updates 1->3 on pattern 2 with a.y_k = 9 > threshold 6.3 at t = 2: the condition "
                         "(8) a.y <= (1-eps)||a||^2/t with eps = 0.3 does not hold")  # fmt: skip
    assert _trace_check(d, s + [{"t": 3, "w": a1 + P[2] + P[1]}]).outcome == PASS  # two patterns between states: not judged
    f = mk("pfm")
    beta = f.args["beta"]
    r = _trace_check(f, [{"t": 0, "w": np.zeros(3)}, {"t": 1, "w": a1}, {"t": 2, "w": 2 * a1}])
    thr = beta * float(np.linalg.norm(a1))
    assert r.message == (f"update 1->2 on pattern 0 with a.y_k = 6 > threshold {thr:.6g} at t = 1: the condition "
                         "(7) a.y <= beta ||a|| does not hold")  # fmt: skip


# -- comparing with the reference: allowances, free decisions, PT11 order -------------------------------------


def test_float32_answers_get_float32_allowances():
    third = np.array([1 / 3, 2 / 3])
    as32 = third.astype(np.float32).astype(np.float64)
    assert C._is_float32(as32) and not C._is_float32(third)
    assert not C._is_float32(np.array([0.5, 0.25]))  # small dyadic numbers: a float64 run gives them too
    assert not C._is_float32(np.array([]))
    assert C._precision_tol(third, np.array([2.0, 0.5])) == 2e-6 and C._precision_tol(as32, np.array([0.1, 0.5])) == 1e-3
    assert C._precision_tol(third, np.array([])) == 1e-6
    assert C._strict_close(third + 1e-10, third) and not C._strict_close(third + 1e-6, third)
    assert C._strict_close(as32, third) and not C._strict_close(as32 + 1e-2, third)
    assert C._differs(None, third) is None and C._differs(third, None) is None
    assert C._differs(third, np.ones(3)) == math.inf
    assert C._differs(third + 1e-7, third) is None and C._differs(third + 1e-5, third) == pytest.approx(1e-5)
    assert C._differs(np.array([]), np.array([])) is None


def test_per_counter_keeps_the_first_state_of_each_counter():
    tr = [{"t": 0, "w": 0}, {"t": 1, "w": 1}, {"t": 1, "w": 2}, {"k": 2, "w": 3}, {"w": 4}]
    assert C._per_counter(tr) == [{"t": 0, "w": 0}, {"t": 1, "w": 1}, {"k": 2, "w": 3}, {"w": 4}]
    assert C._per_counter([]) == [] and C._per_counter(None) is None
    assert C._per_counter([{"w": 0}, {"w": 1}]) == [{"w": 0}, {"w": 1}]  # no counter: by position


def test_state_at_finds_an_iterate_by_its_counter():
    tr = [{"k": 0, "w": 0}, {"k": 1, "w": 1}, {"w": 2}]
    assert C._state_at(tr, 1, "k") == {"k": 1, "w": 1} and C._state_at(tr, 2, "k") == {"w": 2}
    assert C._state_at([{"t": 3}], 3, "t") == {"t": 3} and C._state_at([{"t": 3}], 3, "k") == {"t": 3}
    assert C._state_at(tr, 5, "k") is None and C._state_at(None, 0, "k") is None


def test_free_decisions_of_each_algorithm(mk):
    p = mk("perceptron", FOUR)
    Z = p.Z
    assert C._free_decision(p, {"k": 0}, None) == "no iterate to judge"
    assert C._free_decision(p, {"w": np.zeros(2)}, None) == "more than one misclassified point"
    assert C._free_decision(p, {"w": Z[0]}, None) == "more than one misclassified point"  # points 1 and 2
    assert C._free_decision(p, {"w": np.array([1.0, 10.5])}, None) == ""  # only point 2 (-1.6) is a mistake
    assert C._free_decision(p, {"w": np.zeros(2)}, "cyclic") == ""  # every point is a mistake, exactly
    # z_2 scores -1 + 0.1 * 10: 0 when rounded per product, 5.6e-17 with a fused multiply-add -- either is promised
    assert C._free_decision(p, {"w": np.array([1.0, 10.0])}, "cyclic") in ("", f"y_1 <w_k, x_1> = {float(p.Z[1] @ np.array([1.0, 10.0])):.2e} is 0 within round-off")
    near = np.array([1.0, 10.0 + 1e-12])
    why = C._free_decision(p, {"w": near}, "cyclic")
    assert why.startswith("y_1 <w_k, x_1> = ") and why.endswith(" is 0 within round-off")
    # most_violated: an argmin tie within 1e-9
    assert C._free_decision(p, {"w": np.array([0.0, 1.0])}, "most_violated") == ""
    tie = np.array([1.0, 0.0])  # scores (1, -1, -0.5, 0.5): no tie
    assert C._free_decision(p, {"w": tie}, "most_violated") == ""
    two = np.array([-1.0, 0.0])  # scores (-1, 1, 0.5, -0.5)
    assert C._free_decision(p, {"w": two}, "most_violated") == ""
    n = mk("nkp", FOUR)
    e = np.eye(4)
    assert C._free_decision(n, {"alpha": e[0]}, None) == ""
    flat = dataclasses.replace(n, G=np.array([[1.0, -0.5, -0.5], [-0.5, 1.0, -0.5], [-0.5, -0.5, 1.0]]))
    assert C._free_decision(flat, {"alpha": np.full(3, 1 / 3)}, None) == f"argmin candidates {0.0:.3g} and {0.0:.3g} tie"
    v = mk("nvn", FOUR)
    assert C._free_decision(v, {"p": e[0]}, None) == ""
    assert C._free_decision(dataclasses.replace(v, G=flat.G), {"p": np.full(3, 1 / 3)}, None).endswith("tie")
    assert C._free_decision(mk("snkp"), {}, None) == "" and C._free_decision(mk("snkpvn"), {}, None) == ""
    assert C._free_decision(mk("pdm"), {"w": np.zeros(3)}, None) == "not a single trajectory"
    assert C._free_decision(mk("isnkpvn"), {}, None) == "not a single trajectory"
    npc = mk("normalized_perceptron", FOUR)
    Zn = npc.Z / np.linalg.norm(npc.Z, axis=1, keepdims=True)
    assert C._free_decision(npc, {"w": Zn[0]}, None) == ""
    assert C._free_decision(npc, {"w": np.zeros(2)}, None).endswith("tie")  # w_0 = 0: every point ties
    raw = dataclasses.replace(npc, args={"normalize": False})
    w = np.array([0.0, 1.0])  # raw scores (0, 0.1, -0.2, 0.5): no tie; normalized likewise
    assert C._free_decision(raw, {"w": w}, None) == ""


def test_reference_ties_ignore_the_cyclic_rule(mk):
    p = mk("perceptron", FOUR)
    near = {"w": np.array([1.0, 10.0 + 1e-12])}
    assert C._reference_tie(p, near, "cyclic") == ""
    assert C._reference_tie(p, {"w": np.zeros(2)}, None) == "more than one misclassified point"
    n = dataclasses.replace(mk("nkp", FOUR), G=np.array([[1.0, -0.5, -0.5], [-0.5, 1.0, -0.5], [-0.5, -0.5, 1.0]]))
    close = np.array([0.5 + 1e-7, 0.25, 0.25 - 1e-7])  # G alpha = 1.5 alpha - 0.5: the two smallest 1.5e-7 apart
    assert C._reference_tie(n, {"alpha": close}, None, tie=1e-5).endswith("tie")
    assert C._reference_tie(n, {"alpha": close}, None, tie=1e-9) == ""


def test_pt11_patterns_order_and_first_choice(mk):
    d = mk("pdm")
    P = d.P
    s0, s1 = {"t": 1, "w": P[0]}, {"t": 3, "w": P[0] + 2 * P[2]}
    assert C._pt11_pattern(d, s0, s1) == 2
    assert C._pt11_pattern(d, {"t": 0, "w": np.zeros(3)}, {"t": 1, "w": P[1]}) == 1
    assert C._pt11_pattern(d, s0, {"t": 2, "w": P[0] + 0.5 * P[2]}) is None
    assert C._pt11_pattern(d, {"w": None}, s1) is None and C._pt11_pattern(d, s0, {"t": 2}) is None
    assert C._pt11_pattern(d, {"w": np.zeros(3)}, {"w": P[1]}) == 1  # no counters: one update
    z = {"t": 0, "w": np.zeros(3)}
    assert C._pt11_order(d, z, {"t": 1, "w": P[0]}, z, {"t": 1, "w": P[1]}) == (
        "the reference updates on pattern 0, the implementation on pattern 1: the order of presentation is free")
    assert C._pt11_order(d, z, {"t": 1, "w": P[0]}, z, {"t": 1, "w": P[0] * 1.5}) == ""
    assert C._pt11_order(d, z, {"t": 1, "w": P[0]}, z, {"t": 1, "w": P[0]}) == ""
    # at a = 0 every pattern satisfies (8) (threshold 0): the first state is a free choice
    assert C._pt11_first_choice(d, [z, {"t": 1, "w": P[0]}]) == (
        0, "more than one pattern satisfies the update condition: the order of presentation is free")
    # at a_1 = P_0 only pattern 2 does (P a_1 = (6, 6, 3), threshold 4.2)
    assert C._pt11_first_choice(d, [{"t": 1, "w": P[0]}, {"t": 2, "w": P[0] + P[2]}]) == (None, "")
    assert C._pt11_first_choice(d, [{"t": 1, "w": None}, z, {"t": 1, "w": P[0]}]) == (1, C._pt11_first_choice(d, [z, z])[1])
    assert C._pt11_first_choice(d, [z]) == (None, "")  # the last state has no step
    f = mk("pfm")
    assert C._pt11_first_choice(f, [z, z])[0] == 0


def test_reference_options_keep_only_the_references_algorithm_options():
    assert C.reference_options("pdm", None) == {} and C.reference_options("pdm", {}) == {}
    opts = {"active_sets": True, "multiple_updates": True, "max_iter": 5, "trace": True, "epsilon": 0.1, "progress": print,
            "not_an_option": 1}  # fmt: skip
    assert C.reference_options("pdm", opts) == {"active_sets": True, "multiple_updates": True}
    assert C.reference_options("snkpvn", {"q": [1.0], "delta": 0.1, "engine": "fast"}) == {"engine": "fast"}
    assert C.reference_options("perceptron", {"rule": "cyclic", "seed": 1}) == {}


def test_a_failure_shows_the_first_failed_check_with_both_answers(mk):
    c = mk("snkp", FOUR)
    ans = _ref(c, iterations=c.reference["iterations"] + 1, error=None)
    ans.pop("error")
    res = [CheckResult("claim.separator", PASS), CheckResult("bound.iterations", FAIL, "m1"), CheckResult("x", FAIL, "m2")]
    f = C._failure(c, ans, res)
    assert (f.check, f.message, f.case_id, f.shrunk, f.iterate) == ("bound.iterations", "m1", c.case_id, False, None)
    assert f.instance == {"name": "four", "X": c.X.tolist(), "y": c.y.tolist(), "kernel": "linear", "params": {}}
    assert f.arguments == {"max_iter": c.max_iter} and f.reference["iterations"] == c.reference["iterations"]
    assert f.implementation["iterations"] == c.reference["iterations"] + 1 and "error" not in f.implementation
    assert set(f.reference) == set(f.implementation) == {"status", "iterations", "alpha", "w", "p"}
    assert C._failure(c, dict(ans, error="boom"), res, shrunk=True).implementation["error"] == "boom"
    assert C._failure(c, ans, res, shrunk=True).shrunk is True
    # a check failed at an iterate: both iterates there
    tr = C._reference_run(c)["trace"]
    mine = [dict(s) for s in tr[:3]]
    mine[2] = dict(mine[2], alpha=np.full(4, 0.25))
    f = C._failure(c, dict(ans, trace=mine), [CheckResult("invariant.trace", FAIL, "m", at=2)])
    assert f.iterate == 2 and f.implementation["alpha"].tolist() == [0.25] * 4
    assert np.array_equal(f.reference["alpha"], tr[2]["alpha"]) and np.array_equal(f.reference["p"], tr[2]["p"])
    f = C._failure(c, dict(ans, trace=mine), [CheckResult("invariant.trace", FAIL, "m", at=99)])
    assert f.iterate is None  # no such iterate returned: the final answers


# -- trajectory.final and strict.trajectory, message by message ---------------------------------------------


def test_trajectory_final_messages(mk):
    c = mk("snkp", FOUR)
    ref = C._reference_run(c)
    states, K = ref["trace"], ref["iterations"]
    assert ref["status"] == "max_iter" and K == len(states) - 1 >= 10
    at = lambda k, **kw: _ref(c, status="max_iter", iterations=k, alpha=states[k]["alpha"], p=states[k]["p"], **kw)  # noqa: E731
    assert C.check_trajectory(c, at(K)) == [CheckResult("trajectory.final", PASS, f"the returned iterate is the reference's at k = {K}")]
    assert C.check_trajectory(c, at(5))[0].message == "the returned iterate is the reference's at k = 5"
    r = C.check_trajectory(c, dict(at(6), iterations=5))[0]
    assert r == CheckResult("trajectory.final", FAIL, "the returned alpha is the reference's iterate alpha_6, but the counter says k = 5: "
                            "the counter is off by -1 (the trajectory is determined: no decision within round-off up to iterate 5)")
    r = C.check_trajectory(c, dict(at(3), iterations=5))[0]
    assert "is the reference's iterate alpha_3, but the counter says k = 5: the counter is off by 2" in r.message
    r = C.check_trajectory(c, dict(at(K), iterations=K + 1))[0]
    assert r == CheckResult("trajectory.final", FAIL, f"the returned iterate is the reference's final one, at k = {K}, but the counter says "
                            f"k = {K + 1}: the counter is off by 1 (the trajectory is determined: no decision within round-off up to iterate {K})")
    r = C.check_trajectory(c, dict(at(K), iterations=K + 3, alpha=np.full(4, 0.25)))[0]
    assert r == CheckResult("trajectory.final", SKIP, f"stopped at k = {K + 3}, after the reference (k = {K}): beyond the reference's run, "
                            "nothing to compare")
    wrong = np.full(4, 0.25)
    d = float(np.max(np.abs(wrong - states[5]["alpha"])))
    assert C.check_trajectory(c, dict(at(5), alpha=wrong))[0] == CheckResult(
        "trajectory.final", FAIL, f"the returned alpha is not the reference's iterate alpha_5 at the returned counter k = 5 (max |difference| "
        f"{d:.3g}): the trajectory is determined here (no decision within round-off up to iterate 5), so an update computes the wrong quantity")
    r = C.check_trajectory(c, dict(at(5), p=np.full(4, 0.25)))[0]
    assert r.outcome == FAIL and r.message.startswith("the returned p is not the reference's iterate p_5")
    assert C.check_trajectory(c, dict(at(5), iterations=None))[0] == CheckResult(
        "trajectory.final", SKIP, "no counter returned: the iterate cannot be located on the reference's trajectory")


def test_trajectory_final_skips_what_it_cannot_compare_and_says_why(mk):
    assert C.check_trajectory(mk("pdm"), _ref(mk("pdm")))[0] == CheckResult("trajectory.final", SKIP, (
        "PT11: the order the patterns are presented in is free, so the trajectory is not compared (--strict compares it with the "
        "reference's order and options)"))
    assert C.check_trajectory(mk("isnkpvn"), _ref(mk("isnkpvn")))[0] == CheckResult(
        "trajectory.final", SKIP, "ISNKPVN: nested runs, not compared (--strict compares the totals)")
    p = mk("perceptron", FOUR)
    assert C.check_trajectory(p, _ref(p))[0] == CheckResult(
        "trajectory.final", SKIP, "the callable takes no rule: any mistake is a legitimate update")
    n = mk("nkp", FOUR)
    r = C.check_trajectory(n, _ref(n))[0]
    assert r == CheckResult("trajectory.final", SKIP, f"cannot compare at k = {n.reference['iterations']}: the reference's step from "
                            f"iterate 0 is a free choice ({C._free_decision(n, C._reference_run(n)['trace'][0], None)})")
    # with a rule the Perceptron's trajectory is compared
    # (a score that is 0 on one machine may be 1e-17 on another: either the comparison is made, or it says why not)
    cyc = _ref(p, rule_passed="cyclic")
    r = C.check_trajectory(p, cyc)[0]
    assert r.outcome == PASS or (r.outcome == SKIP and "is 0 within round-off" in r.message), r
    r = C.check_trajectory(p, dict(cyc, w=np.array([5.0, 5.0])))[0]
    assert (r.outcome == FAIL and "an update computes the wrong quantity" in r.message) or (
        r.outcome == SKIP and "is 0 within round-off" in r.message), r


def test_strict_on_pt11_compares_one_state_per_counter_and_notes_another_order(mk):
    d = mk("pdm", Instance("pair", np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, -1])))
    ref = C._reference_run(d)
    tr = ref["trace"]
    assert C.check_strict(d, _ref(d, trace=tr)) == [CheckResult("strict.trajectory", PASS)]
    doubled = [tr[0]] + [s for s in tr[1:] for _ in (0, 1)]  # each state recorded twice (end of a pass)
    assert C.check_strict(d, _ref(d, trace=doubled)) == [CheckResult("strict.trajectory", PASS)]
    P = d.P
    other = [tr[0], {"t": 1, "w": P[1]}] + [dict(s) for s in tr[2:]]  # the first update on the other pattern
    assert tr[1]["w"].tolist() == P[0].tolist()
    assert C.check_strict(d, _ref(d, trace=other)) == [CheckResult("strict.trajectory", NOTE, (
        "trajectories diverge at step 1 after a near-tie decision of the reference (the reference updates on pattern 0, the "
        "implementation on pattern 1: the order of presentation is free); not a failure"))]
    bad = [tr[0], {"t": 1, "w": 2 * P[0]}] + [dict(s) for s in tr[2:]]
    r = C.check_strict(d, _ref(d, trace=bad))[0]
    assert (r.outcome, r.at) == (FAIL, 1) and r.message == f"iterate 1: w = {C._short(2 * P[0])} differs from the reference's {C._short(P[0])}"
    # no trace, another final vector: the reference's first state is a free choice of order
    r = C.check_strict(d, _ref(d, w=ref["w"] + 1.0))[0]
    assert (r.id, r.outcome) == ("strict.trajectory", NOTE) and r.message == (
        "no trace, and the reference's step from iterate 0 is a free choice (more than one pattern satisfies the update "
        "condition: the order of presentation is free): the final answers differ but cannot be compared; not a failure")


def test_strict_final_answers_without_a_counter_or_a_trace(mk):
    c = mk("snkp", FOUR)
    ref = C._reference_run(c)
    r = C.check_strict(c, _ref(c, iterations=None, alpha=np.full(4, 0.25)))[0]
    assert r == CheckResult("strict.trajectory", FAIL, f"final alpha = {C._short(np.full(4, 0.25))} differs from the reference's "
                            f"{C._short(ref['alpha'])} (no trace to locate the step)")
    assert C.check_strict(c, _ref(c, iterations=None)) == [CheckResult("strict.trajectory", PASS)]
    r = C.check_strict(c, _ref(c, iterations=3, alpha=ref["trace"][3]["alpha"], p=ref["trace"][3]["p"]))[0]
    assert r == CheckResult("strict.trajectory", FAIL, f"final (status, iterations) = (max_iter, 3) vs the reference's (max_iter, {ref['iterations']})")


def test_strict_notes_a_valid_claim_at_another_stopping_iterate(mk):
    c = mk("perceptron", E1E2)
    ref = C._reference_run(c)
    K = ref["iterations"]
    # the same counter and another valid claim (both not max_iter): a note
    later = _ref(c, rule_passed="cyclic", iterations=K + 2, w=ref["w"] * 3)
    r = C.check_strict(c, later)[0]
    assert r == CheckResult("strict.trajectory", NOTE, f"final (status, iterations) = (separator, {K + 2}) vs the reference's "
                            f"(separator, {K}): a valid claim at another stopping iterate; not a failure")
    r = C.check_strict(c, _ref(c, rule_passed="cyclic", status="max_iter", iterations=K + 2, w=ref["w"] * 3))[0]
    assert r.outcome == FAIL  # a max_iter later is no valid claim
    r = C.check_strict(c, _ref(c, rule_passed="cyclic", iterations=K - 1, w=ref["trace"][K - 1]["w"]))[0]
    assert r.outcome == FAIL and r.message == f"final (status, iterations) = (separator, {K - 1}) vs the reference's (separator, {K})"
    free = C.check_strict(c, _ref(c, rule_passed=None, iterations=K - 1, w=ref["trace"][K - 1]["w"]))[0]
    assert (free.id, free.outcome) == ("strict.trajectory", NOTE) and free.message == (
        f"final (status, iterations) = (separator, {K - 1}) vs the reference's (separator, {K}), after a free choice of the reference at "
        f"iterate 0 (more than one misclassified point); no trace to compare the steps; not a failure")


# -- the small helpers: which vector, which accuracy, simplex membership, near argmins ----------------------


def test_which_vector_and_accuracy_each_algorithm_is_judged_by(mk):
    assert [C._key_vectors(mk(a)) for a in ("snkp", "snkpvn", "nkp", "nvn", "perceptron", "pdm", "isnkpvn")] == [
        ("alpha", "p"), ("alpha", "p"), ("alpha",), ("p",), ("w",), ("w",), ("w",)]
    assert C._key_vector(mk("snkp")) == "alpha" and C._key_vector(mk("nvn")) == "p" and C._key_vector(mk("pdm")) == "w"
    a, p = np.array([1.0, 0.0, 0.0]), np.full(3, 1 / 3)
    assert C._sep_vector(mk("snkp"), {"alpha": a, "p": p}) == (a, "alpha")
    v, name = C._sep_vector(mk("nvn"), {"p": p})
    assert v is p and name == "alpha"  # NVN's separator is its p, judged as a combination of the points
    assert C._sep_vector(mk("nvn"), {"alpha": a, "p": p})[0] is a
    assert C._sep_vector(mk("pdm"), {"w": a}) == (a, "w")
    assert C._accuracy(mk("nvn")) == (0.05, False) and C._accuracy(mk("isnkpvn")) == (0.05, True)
    assert C._accuracy(mk("snkpvn")) == (mk("snkpvn").args["delta"], True) and C._accuracy(mk("snkp")) == (None, False)
    assert C._expected_len(mk("snkp"), "alpha") == 3 and C._expected_len(mk("snkp"), "p") == 3
    assert C._expected_len(mk("perceptron"), "w") == 2 and C._expected_len(mk("pdm"), "w") == 3


def test_simplex_membership_and_near_argmins():
    assert C._in_simplex(np.array([0.5, 0.5])) == ""
    assert C._in_simplex(np.array([1.0 + 1e-7, -1e-7])) == ""  # within float32-friendly tolerances
    assert C._in_simplex(np.array([1.1, -0.1])) == "has a negative entry -0.1"
    assert C._in_simplex(np.array([0.5, 0.6])) == "sums to 1.1, not 1"
    assert C._in_simplex(np.array([0.5, 0.5 + 2e-5])) == f"sums to {1.00002:.9g}, not 1"
    assert C._in_simplex(np.array([0.5, 0.5 + 2e-5]), tol=1e-4) == ""
    assert C._in_simplex(np.array([1.0, -1e-7]), neg=0.0) == f"has a negative entry {-1e-7:.3g}"
    s = np.array([0.3, 0.1, 0.1 + 1e-7])
    assert C._near_argmin(s, 1) and C._near_argmin(s, 2) and not C._near_argmin(s, 0)
    assert C._near_argmin(np.array([100.0, 100.00001]), 1, scale=100.0) and not C._near_argmin(np.array([100.0, 100.001]), 1, 100.0)


def test_a_separator_by_round_off_is_an_exit_within_round_off(mk):
    c = mk("snkp", ROUNDED)
    ref = {"status": "separator", "alpha": np.array([0.5, 0.5])}
    assert C._exit_within_roundoff(c, ref, None)
    assert not C._exit_within_roundoff(c, dict(ref, status="max_iter"), None)
    assert not C._exit_within_roundoff(c, {"status": "separator", "alpha": None}, None)
    m = mk("snkp")
    assert not C._exit_within_roundoff(m, {"status": "separator", "alpha": np.array([1.0, 1.0, 1.0]) / 3}, None)
    p = mk("perceptron", E1E2)
    assert not C._exit_within_roundoff(p, {"status": "separator", "w": np.array([1.0, 1.0])}, None)
    # a relative margin of 5e-7 ((1, -1 + 1e-6) . (1, 1) = 1e-6 against |z| . |w| = 2) is within float32's
    # round-off (1e-5), not within float64's (1e-9)
    slim = mk("perceptron", Instance("slim", np.array([[1.0, -1.0 + 1e-6], [1.0, 1.0]]), np.array([1, 1])))
    sep = {"status": "separator", "w": np.array([1.0, 1.0])}
    as32 = np.array([1 / 3, 2 / 3]).astype(np.float32).astype(np.float64)
    assert C._exit_within_roundoff(slim, sep, as32) and not C._exit_within_roundoff(slim, sep, np.array([1 / 3, 2 / 3]))
    assert not C._exit_within_roundoff(slim, sep, None)


def test_same_iterate_needs_the_allowance_and_a_tenth_of_the_steps(mk):
    c = mk("snkp", FOUR)
    states = C._reference_run(c)["trace"]
    ans = {"alpha": states[4]["alpha"].copy(), "p": states[4]["p"].copy()}
    assert C._same_iterate(c, ans, states, 4) and not C._same_iterate(c, ans, states, 3)
    assert not C._same_iterate(c, {"alpha": None, "p": None}, states, 4)
    assert not C._same_iterate(c, dict(ans, alpha=np.ones(2)), states, 4)
    step = float(np.max(np.abs(states[5]["alpha"] - states[4]["alpha"])))
    assert C._same_iterate(c, dict(ans, alpha=ans["alpha"] + min(0.05 * step, 5e-7)), states, 4)
    assert not C._same_iterate(c, dict(ans, alpha=ans["alpha"] + 0.2 * step), states, 4)


def test_check_final_reports_the_first_violation(mk):
    p = mk("perceptron")
    assert C.check_final(p, _ref(p)) == [CheckResult("invariant.final", PASS)]
    r = C.check_final(p, _ref(p, iterations=1, w=np.array([100.0, 0.0])))[0]
    assert (r.id, r.outcome) == ("invariant.final", FAIL) and r.message.startswith("||w_k||^2 = 10000 > k R^2")
    v = mk("nvn", INFEASIBLE)  # the returned p is held to the simplex at a counter too
    assert C.check_final(v, _ref(v, p=np.full(v.n, 1.0 / v.n)))[0].outcome == PASS
    bad_p = np.full(v.n, 1.0 / v.n)
    bad_p[0], bad_p[1] = bad_p[0] + 0.75, bad_p[1] - 0.75
    assert C.check_final(v, _ref(v, p=bad_p)) == [CheckResult("invariant.final", FAIL, f"p has a negative entry {bad_p[1]:.3g} (p_k stays in the simplex)")]
    s = mk("snkp")
    assert C.check_final(s, _ref(s, iterations=None, alpha=np.array([2.0, -1.0, 0.0])))[0].message == (
        "alpha has a negative entry -1 (RP14: alpha_k stays in the simplex)")


def test_pt11_thresholds_and_convergence(mk):
    d, f = mk("pdm"), mk("pfm")
    a = d.P[0]  # ||a||^2 = 6
    assert C._pt11_threshold(d, 0.3, a, 2) == (0.7 * 6 / 2, "(8) a.y <= (1-eps)||a||^2/t with eps = 0.3")
    assert C._pt11_threshold(d, 0.3, a, 0) == (0.0, "(8) a.y <= (1-eps)||a||^2/t with eps = 0.3")
    assert C._pt11_threshold(f, None, a, 2) == (f.args["beta"] * np.sqrt(6.0), "(7) a.y <= beta ||a||")
    # at a = P_0, t = 1: P a = (6, 6, 3) against 0.7 * 6 = 4.2: pattern 2 still satisfies (8)
    assert not C._pt11_converged(d, 0.3, a, 1)
    assert C._pt11_converged(d, 0.6, a, 1)  # threshold 0.4 * 6 = 2.4 < 3
    assert not C._pt11_converged(d, 0.6, a, 0)  # t = 0: never converged
    big = d.reference["w"]
    assert C._pt11_converged(d, d.args["epsilon"], big, d.reference["iterations"])


def test_run_case_calls_and_evaluates(mk):
    c = mk("snkp")
    ans, results = C.run_case(reference.snkp, c)
    assert ans["status"] == c.reference["status"] and all(r.outcome != FAIL for r in results)
    assert [r.id for r in results][-1] == "trajectory.final"
    ans, results = C.run_case(reference.snkp, c, strict=True)
    assert results[-1] == CheckResult("strict.trajectory", PASS)

    def crash(G, **kw):
        raise ZeroDivisionError("x")

    ans, results = C.run_case(crash, c)
    assert results[0].id == "answer.contract" and results[0].outcome == FAIL and len(results) == 1


# -- each allowance: a violation just beyond it is caught, a deviation just within it is not -------------------


@pytest.mark.parametrize("algorithm, keys", [("snkp", ("alpha", "p")), ("snkpvn", ("alpha", "p")), ("isnkpvn", ("alpha", "p")),
                                             ("nvn", ("p",))])  # fmt: skip
def test_the_simplex_statements_apply_to_each_smoothed_algorithm(mk, algorithm, keys):
    c = mk(algorithm)
    bad = np.array([1.5, -0.5, 0.0])
    good = np.full(3, 1 / 3)
    for key in ("alpha", "p"):
        vectors = {"alpha": good, "p": good, key: bad}
        for k in (None, 3):
            msgs = _final(c, k, **vectors)
            if key in keys:
                assert any(m.startswith(f"{key} has a negative entry -0.5") for m in msgs), (key, k, msgs)
            else:
                assert not any("negative entry" in m for m in msgs), (key, k, msgs)


def test_primal_norm_allowances(mk):
    p = mk("perceptron")
    R, rho = p.R, p.m_lo
    u = np.array([1.0, 0.0])
    assert _final(p, 1, w=u * R * math.sqrt(1 + 1e-5))[0].startswith("||w_k||^2 = ")  # beyond (1 + 1e-6) k R^2
    assert not any("k R^2" in m for m in _final(p, 1, w=u * R * math.sqrt(1 + 1e-7)))  # within
    assert rho < R
    assert any("< k rho" in m for m in _final(p, 1, w=u * rho * (1 - 1e-5)))
    assert _final(p, 1, w=u * rho * (1 - 1e-7)) == []
    n = mk("normalized_perceptron")
    assert _final(n, 1, w=u * math.sqrt(1 + 1e-4))[0].startswith("||w_k||^2 k = ")
    assert _final(n, 1, w=u * math.sqrt(1 + 1e-6)) == []
    rho2 = n.m_lo
    assert any("< rho_2" in m for m in _final(n, 1, w=u * rho2 * (1 - 1e-5)))
    assert _final(n, 1, w=u * rho2 * (1 - 1e-7)) == []


def test_nkp_norm_allowance():
    # z_1 = (1, 0), z_2 = (g, 1) normalized: G_12 = g / sqrt(1 + g^2); alpha_2 = (e_1 + e_2)/2 has
    # 2 ||alpha_2||_G^2 = 1 + G_12
    for g, fails in ((1e-4, True), (1e-6, False)):
        c = make_case("nkp", Instance("nearly orthogonal", np.array([[1.0, 0.0], [g, 1.0]]), np.array([1, 1])))
        msgs = _final(c, 2, alpha=np.array([0.5, 0.5]))
        assert bool(msgs) == fails and (not fails or msgs[0].startswith("||alpha_k||_G^2 k = ")), (g, msgs)


def test_nvn_norm_allowance():
    for g, fails in ((1e-4, True), (1e-6, False)):  # p = (1/2, 1/2) at k = 1: 2 ||p||_G^2 = 1 + G_12
        c = make_case("nvn", Instance("nearly orthogonal", np.array([[1.0, 0.0], [g, 1.0]]), np.array([1, 1])))
        msgs = _final(c, 1, p=np.array([0.5, 0.5]))
        assert bool(msgs) == fails and (not fails or msgs[0].startswith("||p_k||_G^2 (k+1) = ")), (g, msgs)


def test_pt11_norm_allowances(mk):
    d = mk("pdm")
    u = np.array([1.0, 0.0, 0.0])
    g, R = d.m_lo, d.R
    assert _final(d, 1, w=u * g * (1 - 1e-5), status="max_iter")[0].startswith("||a_t||/t = ")  # at t = 1
    assert _final(d, 1, w=u * g * (1 - 1e-7), status="max_iter") == []
    assert _final(d, 3, w=u * 3 * R * (1 + 1e-5), status="max_iter")[0].startswith("||a_t|| = ")
    assert _final(d, 3, w=u * 3 * R * (1 + 1e-7), status="max_iter") == []


def test_extended_space_count_allowances():
    d = make_case("pdm", MIXED, Delta=2.0)
    ref = d.reference
    t, d0 = ref["iterations"], d.P.shape[1] - d.n
    assert _final(d, t, w=ref["w"], status="max_iter") == []  # counts a_ext l_k / Delta, with Delta = 2

    def with_counts(c):
        w = ref["w"].copy()
        w[d0:] = np.asarray(c, dtype=float) * d.y * 2.0
        return w

    counts = np.round(ref["w"][d0:] * d.y / 2.0)
    assert counts.sum() == t
    neg = counts.copy()
    neg[0], neg[1] = -1.0, counts[1] + counts[0] + 1.0  # integers summing to t, one negative
    assert _final(d, t, w=with_counts(neg), status="max_iter")[-1].startswith("in the extended space the update counts")
    half = counts.copy()
    half[0], half[1] = counts[0] + 0.5, counts[1] - 0.5  # the right sum, not integers
    assert _final(d, t, w=with_counts(half), status="max_iter")[-1].startswith("in the extended space the update counts")
    noise = counts.copy()
    noise[0] += 5e-5 * max(1, t)  # within 1e-4 max(1, t), in the counts and in their sum
    assert not any(m.startswith("in the extended space") for m in _final(d, t, w=with_counts(noise), status="max_iter"))
    one = make_case("pdm", Instance("one", np.array([[1.0, 0.0]]), np.array([1])), Delta=2.0)
    assert one.reference["iterations"] == 1
    c1 = np.array([1.0 + 1.5e-4])  # at t = 1 the allowance is 1e-4
    w1 = one.reference["w"].copy()
    w1[-1] = c1[0] * 2.0
    assert _final(one, 1, w=w1, status="max_iter")[-1].startswith("in the extended space the update counts")


# -- the step checks' branches and allowances ------------------------------------------------------------------


def test_nkp_and_normalized_perceptron_steps_from_a_nonzero_start_are_checked(mk):
    n = mk("nkp", FOUR)
    e = np.eye(4)
    # a trace that starts at alpha_0 = e_1 (not 0): the first step is no free choice
    r = _trace_check(n, [{"k": 0, "alpha": e[0]}, {"k": 1, "alpha": e[2]}])
    assert r.message == "step 0->1: took e_2, but (G alpha_k)_2 is not (near) minimal (RP14 eq. (10): argmin)"
    npc = mk("normalized_perceptron", FOUR)
    Zn = npc.Z / np.linalg.norm(npc.Z, axis=1, keepdims=True)
    r = _trace_check(npc, [{"k": 0, "w": Zn[0]}, {"k": 1, "w": Zn[2]}])
    assert r.message == "step 0->1: used point 2, which is not the (near) most misclassified one (RP14 eq. (4))"
    # w_k = 0 later on is no free choice either
    r = _trace_check(npc, [{"k": 1, "w": np.zeros(2)}, {"k": 2, "w": 0.3 * Zn[0]}])  # r = 0.6 Zn[0]: no point
    assert r.message == "step 1->2: w_(k+1) - (1-theta_k) w_k is not theta_k times a normalized reflected point"


@pytest.mark.parametrize("dev, fails", [(1.5e-5, False), (2.5e-5, True)])
def test_nkp_vertex_step_allowance(mk, dev, fails):
    n = mk("nkp", FOUR)
    e = np.eye(4)
    a1 = e[0]
    a2 = (a1 + e[1] + np.array([dev, -dev, 0.0, 0.0])) / 2  # r - e_1 = (dev, -dev, 0, 0); allowance 1e-5 (k + 1) = 2e-5
    r = _trace_check(n, [{"k": 0, "alpha": np.zeros(4)}, {"k": 1, "alpha": a1}, {"k": 2, "alpha": a2}])
    assert (r.outcome == FAIL) == fails and (not fails or "alpha_(k+1) is not (1-theta_k) alpha_k + theta_k e_j" in r.message)


def test_the_normalized_perceptron_on_raw_points(mk):
    n = mk("normalized_perceptron", FOUR)
    raw = dataclasses.replace(n, args={"normalize": False})
    Z = raw.Z
    ok = [{"k": 0, "w": np.zeros(2)}, {"k": 1, "w": Z[0]}, {"k": 2, "w": (Z[0] + Z[1]) / 2}]
    assert _trace_check(raw, ok).outcome == PASS
    r = _trace_check(raw, ok[:2] + [{"k": 2, "w": (Z[0] + 0.5 * Z[1]) / 2}])
    assert r.message == "step 1->2: w_(k+1) - (1-theta_k) w_k is not theta_k times a reflected point"
    assert _trace_check(n, ok).outcome == FAIL  # normalized: Z_1 is no normalized point... (||z_2|| != 1)
    unset = dataclasses.replace(n, args={})  # no normalize argument (a case from elsewhere): normalized, the default
    Zn = n.Z / np.linalg.norm(n.Z, axis=1, keepdims=True)
    good = [{"k": 0, "w": np.zeros(2)}, {"k": 1, "w": Zn[0]}, {"k": 2, "w": (Zn[0] + Zn[1]) / 2}]
    assert _trace_check(unset, good).outcome == PASS
    r = _trace_check(unset, good[:2] + [{"k": 2, "w": (Zn[0] + 0.5 * Zn[1]) / 2}])
    assert r.message.endswith("is not theta_k times a normalized reflected point")


@pytest.mark.parametrize("dev, fails", [(1.5e-5, False), (2.5e-5, True), (3.5e-5, True)])
def test_normalized_perceptron_point_allowance(mk, dev, fails):
    n = mk("normalized_perceptron", FOUR)
    Zn = n.Z / np.linalg.norm(n.Z, axis=1, keepdims=True)
    w1 = Zn[0]
    w2 = (w1 + Zn[1] + np.array([dev, 0.0])) / 2  # r = Zn[1] + (dev, 0): allowance 1e-5 (k + 1) max(1, ||r||) = 2e-5
    r = _trace_check(n, [{"k": 0, "w": np.zeros(2)}, {"k": 1, "w": w1}, {"k": 2, "w": w2}])
    assert (r.outcome == FAIL) == fails


@pytest.mark.parametrize("dev, fails", [(0.5e-6, False), (1.5e-6, True)])
def test_perceptron_point_allowance(mk, dev, fails):
    p = mk("perceptron", FOUR)
    Z = p.Z  # z_1 = (1, 0): ||r|| = 1, allowance 1e-6
    r = _trace_check(p, [{"k": 0, "w": np.zeros(2)}, {"k": 1, "w": Z[0] + np.array([dev, 0.0])}])
    assert (r.outcome == FAIL) == fails and (not fails or r.message == "step 0->1: w_(k+1) - w_k is not a reflected point y_i x_i")
    big = mk("perceptron")  # reflected points of norm ~2.2..2.5: the allowance scales with ||r||
    Zb = big.Z
    assert _trace_check(big, [{"k": 0, "w": np.zeros(2)}, {"k": 1, "w": Zb[0] + np.array([1e-6, 0.0])}]).outcome == PASS


def test_perceptron_mistake_allowance(mk):
    p = mk("perceptron", FOUR)
    z1 = p.Z[0]
    for score, fails in ((1.5e-9, True), (0.5e-9, False)):  # at ||w|| ~ 1 the allowance is 1e-9
        w0 = np.array([score, 1.0])
        r = _trace_check(p, [{"k": 1, "w": w0}, {"k": 2, "w": w0 + z1}])
        assert (r.outcome == FAIL) == fails and (not fails or "which is not a mistake" in r.message), (score, r)
    w0 = np.array([5e-9, 10.0])  # ||w|| = 10: the allowance is 1e-8, so 5e-9 is a mistake within round-off
    r = _trace_check(p, [{"k": 100, "w": w0}, {"k": 101, "w": w0 + z1}])
    assert r.outcome == PASS, r


def test_a_pt11_trace_may_repeat_a_state(mk):
    d = mk("pdm")
    P = d.P
    s = [{"t": 0, "w": np.zeros(3)}, {"t": 1, "w": P[0]}, {"t": 1, "w": P[0]}, {"t": 2, "w": P[0] + P[2]}]
    assert _trace_check(d, s) == CheckResult("invariant.trace", PASS, "4 iterates")


def test_trace_counters_are_read_from_t_for_pt11_and_k_otherwise(mk):
    d = mk("pdm")
    P = d.P
    # t jumps by 2 (a multiple update) while a step index k says 1: PT11 reads t
    s = [{"t": 1, "k": 1, "w": P[0]}, {"t": 3, "k": 2, "w": P[0] + 2 * P[2]}]
    r = C.check_trace(d, s)[0]
    assert r.id == "invariant.trace" and r.message.startswith("the last of the lambda = 2 updates 1->3 on pattern 2") and r.at == 3
    assert C.check_trace(d, [{"k": 1, "w": P[0]}, {"k": 3, "w": P[0] + 2 * P[2]}])[0].message.startswith("the last of the lambda = 2")
    p = mk("perceptron", FOUR)
    Z = p.Z
    r = C.check_trace(p, [{"t": 5, "k": 5, "w": Z[2]}, {"t": 6, "k": 6, "w": 2 * Z[2]}])[0]
    assert r.message.startswith("step 5->6: updated on point 2")
    r = C.check_trace(p, [{"t": 5, "w": Z[2]}, {"t": 6, "w": 2 * Z[2]}])[0]  # an RP14 trace counted by t: read as k
    assert r.message.startswith("step 5->6:")
    r = C.check_trace(p, [{"k": 5, "t": 9, "w": Z[2]}, {"k": 6, "t": 3, "w": 2 * Z[2]}])[0]  # k first for RP14
    assert r.message.startswith("step 5->6:")


def test_trace_iterates_are_held_to_p_and_isnkpvn_traces_are_not(mk):
    c = mk("snkp", FOUR)
    ref = C._reference_run(c)["trace"][:3]
    bad = [dict(s) for s in ref]
    bad[1]["p"] = np.array([0.5, 0.5, 0.5, 0.5])
    r = C.check_trace(c, bad)[0]
    assert (r.id, r.at) == ("invariant.trace", 1) and r.message == f"at iterate 1: p sums to {2.0:.9g}, not 1 (p_k stays in the simplex)"
    i = mk("isnkpvn", FOUR)
    assert C.check_trace(i, [{"k": 0, "alpha": np.array([2.0, -1.0, 0.0, 0.0])}])[0].outcome == PASS  # nested runs: not judged here


def test_snkp_mu_allowance_is_relative(mk):
    c = mk("snkp", FOUR)
    ref = [dict(s) for s in C._reference_run(c)["trace"][:101]]
    mu = 4.0 / (101 * 102)
    assert abs(ref[100]["mu"] - mu) <= 1e-12
    ref[100]["mu"] = mu * (1 + 5e-7)
    assert C.check_trace(c, ref)[0].outcome == PASS
    ref[100]["mu"] = mu + 1e-8  # 2.6e-5 relative: beyond 1e-6 mu
    r = C.check_trace(c, ref)[0]
    assert (r.outcome, r.at) == (FAIL, 100) and r.message.startswith("at iterate 100: mu_k = ")


def test_max_iter_claims_of_answers_read_from_files_count_as_given_the_budget(mk):
    c = mk("perceptron")
    ans = _ref(c, status="max_iter", iterations=c.max_iter - 1, w=None)
    del ans["max_iter_passed"]  # an answers document says nothing about it: the budget was the case's
    assert _one(C.check_claim(c, ans), "claim.max_iter").message.endswith("gave up without a claim")
    ans = _ref(c, iterations=c.max_iter + 3)
    del ans["max_iter_passed"]
    assert _one(C.check_claim(c, ans), "claim.max_iter").outcome == FAIL
    # a p returned beside a Perceptron's w is not read as a certificate
    assert _one(C.check_claim(c, _ref(c, status="max_iter", iterations=c.max_iter, w=None, p=np.array([0.5, 0.5, 0.0]))),
                "claim.max_iter").outcome == PASS  # fmt: skip


@pytest.mark.parametrize("algorithm", ["snkpvn", "isnkpvn"])
def test_max_iter_with_a_certificate_in_hand_fails_for_every_certificate_algorithm(mk, algorithm):
    c = mk(algorithm, INFEASIBLE)
    p = np.array([0.5, 0.5])  # ||p||_G = 0
    r = _one(C.check_claim(c, _ref(c, status="max_iter", iterations=c.max_iter, p=p)), "claim.max_iter")
    acc = c.args["delta"] if algorithm == "snkpvn" else c.args["epsilon"]
    assert r.outcome == FAIL and r.message == f"'max_iter' but the returned p already certifies: ||p||_G = {0.0:.3g} < {acc:g}"


def test_max_iter_certificate_in_hand_allowances():
    # x_1 = (1, 0), x_2 = (c, s) with labels +1, -1: G_12 = -c; p = (1/2, 1/2) has ||p||_G^2 = (1 - c)/2
    for nrm_over_acc, fails in ((1 - 1e-5, True), (1 - 1e-7, False)):
        target = 0.05 * nrm_over_acc  # NVN's accuracy 0.05
        cval = 1 - 2 * target**2
        inst = Instance("pair", np.array([[1.0, 0.0], [cval, math.sqrt(1 - cval * cval)]]), np.array([1, -1]))
        c = make_case("nvn", inst)
        p = np.array([0.5, 0.5])
        nrm = reference.g_norm(c.G, p)
        assert abs(nrm / 0.05 - nrm_over_acc) < 1e-8
        r = _one(C.check_claim(c, _ref(c, status="max_iter", iterations=c.max_iter, p=p)), "claim.max_iter")
        assert r.message.startswith("'max_iter' but the returned p already certifies") == fails, (nrm_over_acc, r)
    # a p not quite in the simplex (sum 1 + 1e-8) is no certificate in hand
    c = make_case("nvn", INFEASIBLE)
    r = _one(C.check_claim(c, _ref(c, status="max_iter", iterations=c.max_iter, p=np.array([0.5, 0.5 + 1e-8]))), "claim.max_iter")
    assert r.outcome == PASS


def test_a_states_counter_and_the_normalized_perceptrons_points(mk):
    assert C._counter_of({"t": 3, "k": 2}, "t") == 3 and C._counter_of({"t": 3, "k": 2}, "k") == 2
    assert C._counter_of({"k": 2}, "t") == 2 and C._counter_of({"t": 3}, "k") == 3
    assert C._counter_of({"t": None, "k": 4}, "t") == 4  # a field set to None is no counter
    assert C._counter_of({}, "t") is None and C._counter_of({}, "k", 7) == 7
    n = mk("normalized_perceptron", FOUR)
    assert np.allclose(np.linalg.norm(C._np_points(n), axis=1), 1.0) and C._normalized(n)
    raw = dataclasses.replace(n, args={"normalize": False})
    assert np.array_equal(C._np_points(raw), n.Z) and not C._normalized(raw)
    assert C._normalized(dataclasses.replace(n, args={}))


def test_evaluate_hands_the_trace_the_rule_and_the_options_on(mk):
    p = mk("perceptron", FOUR)
    Z = p.Z
    trace = [{"k": 0, "w": np.zeros(2)}, {"k": 1, "w": Z[0]}, {"k": 2, "w": Z[0] + Z[2]}]  # a mistake, not the most violated
    ans = _ref(p, status="max_iter", iterations=2, w=Z[0] + Z[2], trace=[{k: np.asarray(v) if k == "w" else v for k, v in s.items()} for s in trace])
    (r,) = [r for r in C.evaluate(p, ans) if r.id == "invariant.trace"]
    assert r.outcome == PASS  # no rule given: any mistake
    (r,) = [r for r in C.evaluate(p, dict(ans, rule_passed="most_violated")) if r.id == "invariant.trace"]
    assert r.outcome == FAIL and "rule 'most_violated'" in r.message
    bad = dict(ans, trace=ans["trace"][:2] + [{"k": 2, "w": Z[0] + 2 * Z[2]}])
    (r,) = [r for r in C.evaluate(p, bad) if r.id == "invariant.trace"]
    assert r.outcome == FAIL and r.at == 2
    from theorems.validate.answer import normalize_answer as na
    from theorems.validate.corpus import corpus

    opts = {"multiple_updates": True}

    def sec4_run(c):
        return reference.pdm(c.X, c.y, c.args["epsilon"], rho=1.0, Delta=c.args["Delta"], max_iter=c.max_iter, max_epochs=10**9,
                             trace=True, **opts)  # fmt: skip

    d = next(c for c in corpus("pdm") if not ({"csr", "budget"} & set(c.flags)) and sec4_run(c).iterations != c.reference["iterations"])
    res = sec4_run(d)

    sec4 = dict(na(res), rule_passed=None, max_iter_passed=True, max_epochs_passed=True)
    (r,) = [r for r in C.evaluate(d, sec4, strict=True, options=opts) if r.id == "strict.trajectory"]
    assert r.outcome == PASS
    plain = C._reference_run(d)
    assert plain["iterations"] != res.iterations or not np.array_equal(plain["w"], res.w)  # the options change the run
    (r,) = [r for r in C.evaluate(d, sec4, strict=True) if r.id == "strict.trajectory"]
    assert r.outcome != PASS


def test_a_failure_at_a_pt11_iterate_shows_both_iterates_and_the_arguments(mk):
    d = mk("pdm")
    P = d.P
    tr = C._reference_run(d)["trace"]
    assert [s["t"] for s in tr][:2] == [0, 1]
    mine = [{"t": 0, "w": np.zeros(3)}, {"t": 1, "w": 2 * P[0]}]
    ans = _ref(d, trace=mine)
    f = C._failure(d, ans, [CheckResult("strict.trajectory", FAIL, "m", at=1)])
    assert f.iterate == 1 and f.implementation["w"].tolist() == (2 * P[0]).tolist()
    assert np.array_equal(f.reference["w"], tr[1]["w"]) and f.reference["alpha"] is None and f.implementation["p"] is None
    assert f.arguments == {"rho": 1.0, "Delta": None, "epsilon": 0.3, "max_iter": d.max_iter}
    p = mk("perceptron", FOUR)
    ptr = C._reference_run(p)["trace"]
    f = C._failure(p, _ref(p, trace=[{"k": 0, "w": np.zeros(2)}, {"k": 1, "w": np.array([9.0, 9.0])}]),
                   [CheckResult("invariant.trace", FAIL, "m", at=1)])  # fmt: skip
    assert f.iterate == 1 and f.implementation["w"].tolist() == [9.0, 9.0] and np.array_equal(f.reference["w"], ptr[1]["w"])


def test_a_pdm_succ_reference_trace_through_every_run_of_its_schedule_passes():
    from reference.dynamic_margin import succ_schedule
    from theorems.instances import strategies as S

    c = make_case("pdm_succ", S.planted_separable(3, 3, 8, 0.05, seed=2), eps=0.01)
    sched = succ_schedule(0.01, 8.0)
    assert len(sched) == 3  # 1/2, 1/16, 0.01
    ref = C._reference_run(c)
    assert len(ref["trace"]) > 20
    assert C.check_trace(c, ref["trace"])[0].outcome == PASS
    # the trace goes through every run: each accuracy of the schedule converged on the way (t_c)
    res = reference.pdm_succ(c.X, c.y, 0.01, 8.0, rho=1.0, max_iter=c.max_iter, max_epochs=10**9)
    t_c = res.info["t_c"]
    assert len(t_c) == 3 and t_c[0] < t_c[1] < t_c[2] == ref["iterations"] == ref["trace"][-1]["t"]


@pytest.mark.parametrize("algorithm", ["pdm", "pfm"])
def test_margin_guarantee_allowance(mk, algorithm):
    c = mk(algorithm)
    w = c.reference["w"]
    ach = float(np.min(c.P @ w)) / float(np.linalg.norm(w))
    for ratio, ok in ((1 - 1e-8, True), (1 - 1e-6, False)):  # achieved = ratio * guarantee: within / beyond 1e-7
        g = ach / ratio
        r = C.check_margin_guarantee(dataclasses.replace(c, margin_guarantee=g), _ref(c))[0]
        assert (r.outcome == PASS) == ok, (ratio, r)
    small = w / (10 * float(np.linalg.norm(w)))  # ||a|| < 1: the margin is still computed
    r = C.check_margin_guarantee(c, _ref(c, w=small))[0]
    assert r.outcome == PASS and f"{float(np.min(c.P @ small)) / float(np.linalg.norm(small)):.6g}" in r.message


def test_reference_runs_are_told_apart_by_arguments_and_options(mk):
    a = mk("snkpvn")
    b = dataclasses.replace(a, args={**a.args, "q": np.array([0.8, 0.1, 0.1])})
    assert a.case_id == b.case_id
    ra, rb = C._reference_run(a), C._reference_run(b)
    assert not np.array_equal(ra["trace"][0]["alpha"], rb["trace"][0]["alpha"])  # alpha_0 = q
    from theorems.validate.corpus import corpus

    d = next(c for c in corpus("pdm") if not ({"csr", "budget"} & set(c.flags)) and c.reference["iterations"] >= 6)
    plain, sec4 = C._reference_run(d), C._reference_run(d, {"multiple_updates": True, "active_sets": True})
    assert len(plain["trace"]) != len(sec4["trace"])  # another run: the options reached the reference


def test_pt11_reference_runs_have_no_epoch_limit(monkeypatch, mk):
    seen = []
    real = reference.pdm
    monkeypatch.setattr(reference, "pdm", lambda *a, **kw: seen.append(kw) or real(*a, **kw))
    c = dataclasses.replace(mk("pdm"), case_id="pdm/epochs-test")
    C._reference_run(c)
    assert seen and seen[-1]["max_epochs"] == 10**9 and seen[-1]["rho"] == 1.0 and seen[-1]["trace"] is True


def test_the_cyclic_scan_goes_up_from_the_point_after_the_last_update():
    # at w_1 = z_0 the scores are (1, 1, -1, -1): scanning up from index 1 the first mistake is 2 (down: 3)
    inst = Instance("updown", np.array([[1.0, 0.0], [1.0, 0.1], [-1.0, 0.2], [-1.0, -0.2]]), np.array([1, 1, 1, 1]))
    c = make_case("perceptron", inst)
    Z = c.Z
    first = [{"k": 0, "w": np.zeros(2)}, {"k": 1, "w": Z[0]}]
    assert _trace_check(c, first + [{"k": 2, "w": Z[0] + Z[2]}], "cyclic").outcome == PASS
    r = _trace_check(c, first + [{"k": 2, "w": Z[0] + Z[3]}], "cyclic")
    assert r.message.startswith("step 1->2: rule 'cyclic' updates on point 2 (the first mistake scanning from index 1")
    assert _trace_check(c, [{"k": 0}, {"k": 1, "w": Z[0]}, {"k": 2}], "cyclic").outcome == PASS  # states without w: not judged


def test_an_isnkpvn_that_gives_up_is_told_its_gamma_and_starting_norm(mk):
    c = make_case("isnkpvn", FOUR, arguments={"gamma": 3.0})
    p = np.array([0.4, 0.3, 0.2, 0.1])
    r = _one(C.check_claim(c, _ref(c, status="max_iter", iterations=1, p=p)), "claim.max_iter")
    q0 = reference.g_norm(c.G, np.full(4, 0.25))
    assert q0 > 0 and "shrinks by gamma = 3 per round" in r.message and f"here ||q_0||_G = {q0:.3g} and" in r.message


# -- boundaries the documentation fixes, counters read from either field, relative allowances -----------------

# p = (1/2, 1/2) on this G: p^T G p = 1/4 exactly, so ||p||_G = 1/2 with no round-off at all
QUARTER = np.array([[1.0, -0.5], [-0.5, 1.0]])


@pytest.mark.parametrize("algorithm, accuracy, accepted", [("nvn", "epsilon", True), ("snkpvn", "delta", False),
                                                           ("isnkpvn", "epsilon", False)])
def test_a_certificate_at_exactly_its_accuracy_is_accepted_by_nvn_only(mk, algorithm, accuracy, accepted):
    """NVN certifies ||p||_G <= epsilon; SNKPVN and ISNKPVN certify ||p||_G < delta (epsilon): at
    ||p||_G = 1/2 exactly (decided in exact arithmetic), only NVN's claim stands."""
    base = mk(algorithm, INFEASIBLE)
    c = dataclasses.replace(base, G=QUARTER, args=dict(base.args, **{accuracy: 0.5}))
    (r,) = C.check_claim(c, _ref(c, status="certificate", iterations=1, p=np.array([0.5, 0.5])))
    assert (r.id, r.outcome) == ("claim.certificate", PASS if accepted else FAIL), r


@pytest.mark.parametrize("scale", [1.0, 4.0])
def test_a_max_iter_holding_a_separator_of_margin_below_1e9_is_not_called_a_missed_claim(mk, scale):
    """A 'max_iter' whose vector separates beyond round-off but by a normalized margin of 1e-10
    may come from an exit test more cautious than the reference's: not failed.  At 1e-3 it is a
    separator the implementation should have claimed."""
    base = mk("nkp")
    alpha = np.array([scale, 0.0])
    for g12, missed in ((1e-10, False), (1e-3, True)):
        c = dataclasses.replace(base, G=np.array([[1.0, g12], [g12, 1.0]]), X=base.X[:2], y=base.y[:2])
        (r,) = C.check_claim(c, _ref(c, status="max_iter", iterations=c.max_iter, alpha=alpha))
        assert (r.id, r.outcome) == ("claim.max_iter", FAIL if missed else PASS), (g12, r)
        if missed:
            assert r.message == f"'max_iter' but the returned vector already separates (min normalized margin {g12:.3g})"


def test_the_first_of_a_multiple_update_is_named_when_it_breaks_the_condition(mk):
    d = mk("pdm")
    P = d.P
    s = [{"t": 0, "w": np.zeros(3)}, {"t": 1, "w": P[0]}]  # P a_1 = (6, 6, 3), threshold 4.2
    r = _trace_check(d, s + [{"t": 3, "w": 3 * P[0]}])
    assert r.message == ("the first of the lambda = 2 updates 1->3 on pattern 0 with a.y_k = 6 > threshold 4.2 at t = 1: the condition "
                         "(8) a.y <= (1-eps)||a||^2/t with eps = 0.3 does not hold")  # fmt: skip


@pytest.mark.parametrize("eta, epsilon, schedule", [(8.0, 0.1, "0.5, 0.1"), (2.0, 0.1, "0.5, 0.25, 0.125, 0.1"),
                                                     (None, 0.01, "0.5, 0.0625, 0.01")])
def test_pdm_succ_steps_follow_the_schedule_of_the_cases_eta(eta, epsilon, schedule):
    """The schedule eps_1 = 1/2, eps_1/eta, ... is the case's (eta = 8, the reference's default,
    when the case does not say), and a failure lists it."""
    X = np.array([[1.0, 0.0], [0.6, 0.8], [-0.5, 0.5]])
    base = make_case("pdm_succ", Instance("three", X, np.array([1, 1, 1])))
    args = {k: v for k, v in base.args.items() if k != "eta"}
    args["epsilon"] = epsilon
    if eta is not None:
        args["eta"] = eta
    case = dataclasses.replace(base, args=args)
    P = case.P
    (res,) = C.check_trace(case, [{"t": 0, "w": np.zeros(3)}, {"t": 1, "w": P[0]}, {"t": 2, "w": P[0] + P[1]}])
    assert res.outcome == FAIL and f"(run 1 of the schedule {schedule}: the run with eps = 0.5 has not converged at t = 1" in res.message


def test_an_argmin_tie_names_both_candidates(mk):
    n = dataclasses.replace(mk("nkp", FOUR), G=np.array([[1.0, -0.5, -0.5], [-0.5, 1.0, -0.5], [-0.5, -0.5, 1.0]]))
    alpha = np.array([0.5, 0.3, 0.2])  # G alpha = 1.5 alpha - 0.5 = (0.25, -0.05, -0.2)
    assert C._reference_tie(n, {"alpha": alpha}, None, tie=0.2) == f"argmin candidates {-0.2:.3g} and {-0.05:.3g} tie"
    assert C._reference_tie(n, {"alpha": alpha}, None, tie=0.1) == ""


def test_an_isnkpvn_case_without_gamma_is_told_the_default_gamma(mk):
    base = make_case("isnkpvn", FOUR)
    c = dataclasses.replace(base, args={k: v for k, v in base.args.items() if k != "gamma"})
    r = _one(C.check_claim(c, _ref(c, status="max_iter", iterations=1, p=np.array([0.4, 0.3, 0.2, 0.1]))), "claim.max_iter")
    assert "so delta_t shrinks by gamma = 2 per round" in r.message, r.message


def test_pt11_helpers_read_a_counter_named_k_and_prefer_t(mk):
    """A state's counter is its field t for PT11 (else k, else its position): the helpers that
    find an update's lambda, one state per counter and the first free choice read it so."""
    d = mk("pdm")
    P = d.P
    assert C._per_counter([{"k": 0, "w": 0}, {"k": 1, "w": 1}, {"k": 1, "w": 2}]) == [{"k": 0, "w": 0}, {"k": 1, "w": 1}]
    assert C._pt11_pattern(d, {"k": 1, "w": P[0]}, {"k": 3, "w": P[0] + 2 * P[2]}) == 2
    both0, both1 = {"t": 1, "k": 7, "w": P[0]}, {"t": 3, "k": 8, "w": P[0] + 2 * P[2]}
    assert C._pt11_pattern(d, both0, both1) == 2
    # at a = (3, 3, 0) (||a||^2 = 18, P a = (9, 10.5, 9)) every pattern satisfies (8) at t = 1 (threshold 12.6), none at
    # t = 3 (4.2): the counter, not the position, sets the threshold
    a = P[0] + P[2]
    skip = [{"k": 0, "w": None}] * 3
    assert C._pt11_first_choice(d, skip + [{"k": 1, "w": a}, {"k": 2, "w": a + P[0]}])[0] == 3
    assert C._pt11_first_choice(d, skip + [{"t": 1, "k": 3, "w": a}, {"t": 2, "w": a + P[0]}])[0] == 3
    # no counter: the position (here 1, so the threshold 12.6 of t = 1)
    assert C._pt11_first_choice(d, [{"w": None}, {"w": a}, {"w": a + P[0]}])[0] == 1
    assert C._state_at([{"k": 5, "w": 0}], 5, "k") == {"k": 5, "w": 0}


def test_a_failure_locates_its_iterate_by_the_algorithms_counter(mk):
    """A trace may carry both k and t: the failure's iterate is found by t for PT11, by k for RP14
    -- and an iterate past the end of the reference's trace shows no reference vectors."""
    p = mk("perceptron", FOUR)
    mine = [{"k": i, "t": 100 + i, "w": np.array([float(i), 0.0])} for i in range(3)]
    f = C._failure(p, _ref(p, trace=mine), [CheckResult("invariant.trace", FAIL, "m", at=1)])
    assert f.iterate == 1 and f.implementation["w"].tolist() == [1.0, 0.0]
    d = mk("pdm")
    mine = [{"t": i, "k": 100 + i, "w": np.full(3, float(i))} for i in range(3)]
    f = C._failure(d, _ref(d, trace=mine), [CheckResult("invariant.trace", FAIL, "m", at=1)])
    assert f.iterate == 1 and f.implementation["w"].tolist() == [1.0, 1.0, 1.0]
    mine = [{"k": 2 * i, "w": np.full(3, float(i))} for i in range(3)]  # a PT11 trace counting in k, every other update
    f = C._failure(d, _ref(d, trace=mine), [CheckResult("invariant.trace", FAIL, "m", at=2)])
    assert f.iterate == 2 and f.implementation["w"].tolist() == [1.0, 1.0, 1.0]
    K = len(C._reference_run(p)["trace"])
    mine = [{"k": i, "w": np.array([float(i), 0.0])} for i in range(K + 3)]
    f = C._failure(p, _ref(p, trace=mine), [CheckResult("invariant.trace", FAIL, "m", at=K + 1)])
    assert f.iterate == K + 1 and f.implementation["w"].tolist() == [K + 1.0, 0.0]
    assert (f.reference["w"], f.reference["alpha"], f.reference["p"]) == (None, None, None)


def test_most_violated_ties_are_relative_to_the_scores(mk):
    """Rule 'most_violated': the update's point is (near) an argmin of y_i <w_k, x_i>, within 1e-6
    times the largest |score|: at scores near -1000 a gap of 1e-4 is a tie, at scores near -1 it is not."""
    base = mk("perceptron", FOUR)
    for big, ok in ((1000.0, True), (1.0, False)):
        c = dataclasses.replace(base, X=np.array([[1.0, 0.0], [1.0, 1e-4]]), y=np.array([1, 1]))
        w0 = np.array([-big, 1.0])  # scores (-big, -big + 1e-4): point 1 is 1e-4 above the argmin
        msg, _ = C._rule_step(c, "most_violated", (0, {"w": w0}), (1, {"w": w0 + c.Z[1]}), 0)
        assert (msg == "") == ok, (big, msg)


def test_near_argmin_allowance_is_1e6_at_unit_scale():
    assert C._near_argmin(np.array([0.0, 0.5e-6]), 1) and not C._near_argmin(np.array([0.0, 1.5e-6]), 1)
    assert not C._near_argmin(np.array([0.0, 1.5e-6]), 1, scale=0.5)


def test_an_exit_within_round_off_is_relative_to_the_products_size(mk):
    """(A v)_i / (|A| |v|)_i, not (A v)_i: a clear separator scaled down to 1e-10 is still a clear
    one; float32's allowance is 1e-5 (a relative margin of 1e-3 is beyond it); PT11 is judged on
    its patterns."""
    p = mk("perceptron", E1E2)
    assert not C._exit_within_roundoff(p, {"status": "separator", "w": np.array([1e-10, 1e-10])}, None)
    lean = mk("perceptron", Instance("lean", np.array([[1.0, -1.0 + 2e-3], [1.0, 1.0]]), np.array([1, 1])))
    as32 = np.array([1 / 3, 2 / 3]).astype(np.float32).astype(np.float64)
    assert not C._exit_within_roundoff(lean, {"status": "separator", "w": np.array([1.0, 1.0])}, as32)
    d = mk("pdm")
    P = d.P
    assert not C._exit_within_roundoff(d, {"status": "separator", "w": P[0] + P[2]}, None)
    thin = P[0] + P[2] - (9.0 - 1e-12) / 6.0 * P[2]  # P_2 . w = 9 - (9 - 1e-12) = 1e-12: within round-off
    assert C._exit_within_roundoff(d, {"status": "separator", "w": thin}, None)


def test_cyclic_decisions_within_round_off_are_relative_to_the_point_and_the_iterate(mk):
    """A cyclic Perceptron's mistake test at w_k is a decision within round-off when
    |y_i <w_k, x_i>| <= 1e-9 ||x_i|| ||w_k||: relative to that point's norm and the iterate's."""
    p = mk("perceptron", FOUR)  # z_2 = (-0.5, -0.2), ||z_2|| = 0.539; the rows' Frobenius norm is 1.67
    for eps, near in ((2e-9 / 0.2 * 0.5, False), (0.5e-9 / 0.2 * 0.5, True)):
        w = np.array([-0.4, 1.0 - eps])  # y_2 <w, x_2> = 0.2 eps: 1e-9 (or 0.25e-9) against 1e-9 * 0.539 * 1.077
        why = C._free_decision(p, {"w": w}, "cyclic")
        assert (why != "") == near and (not near or why.startswith("y_2 <w_k, x_2> = ")), (eps, why)
    # at ||w|| = 1077 the same point with y_2 <w, x_2> = 1e-7 is near (1e-7 <= 1e-9 * 0.539 * 1077 = 5.8e-7)
    assert C._free_decision(p, {"w": np.array([-400.0, 1000.0 - 5e-7])}, "cyclic").startswith("y_2 <w_k, x_2> = ")
    assert C._free_decision(p, {"w": np.array([-400.0, 1000.0 - 5e-5])}, "cyclic") == ""  # 1e-5: not near


def test_bound_allowance_on_an_integer_bound(mk):
    """k <= bound (1 + 1e-9) + 1: at a bound of exactly 4, five iterations pass and six fail."""
    c = dataclasses.replace(mk("snkp"), bound=4.0)
    assert C.check_bound(c, _ref(c, iterations=5))[0].outcome == PASS
    assert C.check_bound(c, _ref(c, iterations=6))[0].outcome == FAIL


def test_isnkpvn_bound_basis_names_the_smaller_end_of_the_certified_margin(mk):
    f = dataclasses.replace(mk("isnkpvn"), m_lo=0.25, m_hi=0.5)
    assert C._bound_basis(f).endswith("certified |rho_K| >= 0.25")
    i = dataclasses.replace(mk("isnkpvn", INFEASIBLE), m_lo=-0.5, m_hi=-0.25)
    assert C._bound_basis(i).endswith("certified |rho_K| >= 0.25")


@pytest.mark.parametrize("algorithm", ["pdm", "pfm"])
def test_margin_guarantee_absolute_allowance_is_1e12(mk, algorithm):
    """achieved vs guarantee (1 - 1e-7) - 1e-12: an achieved margin 0.5e-12 below guarantee (1 - 1e-7)
    passes, 2e-12 below fails."""
    c = mk(algorithm)
    w = c.reference["w"]
    ach = float(np.min(c.P @ w)) / float(np.linalg.norm(w))
    for below, ok in ((0.5e-12, True), (2e-12, False)):
        g = (ach + below) / (1 - 1e-7)
        r = C.check_margin_guarantee(dataclasses.replace(c, margin_guarantee=g), _ref(c))[0]
        assert (r.outcome == PASS) == ok, (below, r)


def test_a_p_is_judged_only_for_the_algorithms_that_carry_one(mk):
    """NKP, the Perceptrons and PT11 have no p: a stray p in their answer is not held to the simplex."""
    stray = np.array([2.0, -1.0, 0.0])
    assert _final(mk("nkp"), None, alpha=np.full(3, 1 / 3), p=stray) == []
    assert _final(mk("nkp"), 1, alpha=np.array([1.0, 0.0, 0.0]), p=stray) == _final(mk("nkp"), 1, alpha=np.array([1.0, 0.0, 0.0]))
    d = mk("pdm")
    assert _final(d, d.reference["iterations"], w=d.reference["w"], p=stray, status="separator") == []


def test_nkp_integrality_allowance_grows_with_k(mk):
    """k alpha_k is integers up to 1e-3 + 1e-7 k: at k = 20000 entries 5e-4 off an integer are
    accumulated round-off, not a wrong step."""
    c = mk("nkp", INFEASIBLE)
    k = 20000
    G = c.G
    assert np.allclose(G, [[1.0, -1.0], [-1.0, 1.0]])  # ||alpha||_G = |alpha_1 - alpha_2|: tiny here
    alpha = np.array([10000.0 - 5e-4, 10000.0 + 5e-4]) / k
    assert _final(c, k, alpha=alpha) == []


def test_perceptron_block_novikoff_lower_bound_at_a_margin_below_1(mk):
    p = dataclasses.replace(mk("perceptron"), m_lo=0.5)
    assert _final(p, 2, w=np.array([0.9, 0.0])) == [
        f"||w_k|| = {0.9:.6g} < k rho = {1.0:.6g} (Block-Novikoff: <u, w_k> >= k rho, so k is not the number of updates)"]


def _unit_with_margin(a):
    """A unit w = (1, s, 1)/||.|| whose least normalized margin on MIXED's patterns ((2, 1, 1),
    (1.5, 2, 1), (1, 2, -1)) is a, attained at the third: 2 s / sqrt(2 + s^2) = a."""
    s = a * math.sqrt(2.0 / (4.0 - a * a))
    return np.array([1.0, s, 1.0]) / math.sqrt(2.0 + s * s)


def test_the_dynamic_margin_condition_at_a_separator_of_norm_at_most_1(mk):
    """PDM's claim: min a.y_k/||a|| >= (1-eps)||a_t||/t, up to 1e-6 relative and 1e-12 absolute --
    also for an a_t of norm below 1."""
    d = mk("pdm")
    msg = "some pattern still satisfies the dynamic margin condition (8)"
    w = _unit_with_margin(0.1)
    assert float(np.min(d.P @ w)) == pytest.approx(0.1, rel=1e-12) and abs(float(np.linalg.norm(w)) - 1.0) < 1e-15
    assert any(m.endswith(msg) for m in _final(d, 1, w=w, status="separator"))  # 0.1 < 0.7
    assert any(m.endswith(msg) for m in _final(d, 1, w=0.5 * w, status="separator"))  # ||a|| = 1/2: 0.1 < 0.35
    assert not any(m.endswith(msg) for m in _final(d, 1, w=_unit_with_margin(0.7), status="separator"))  # at the threshold
    at = 0.7 * (1 - 1e-6)
    assert not any(m.endswith(msg) for m in _final(d, 1, w=_unit_with_margin(at - 0.5e-12), status="separator"))
    assert any(m.endswith(msg) for m in _final(d, 1, w=_unit_with_margin(at - 2e-12), status="separator"))
    assert not any(m.endswith(msg) for m in _final(d, 1, w=0.5 * _unit_with_margin(0.35), status="separator"))  # ||a|| = 1/2


def test_extended_space_count_allowance_at_t_1():
    """At t <= 1 the allowance is 1e-4 (1e-4 max(1, t)), for the counts and for their sum."""
    d = make_case("pdm", Instance("two", np.array([[1.0, 0.0], [1.0, 0.5]]), np.array([1, 1])), Delta=2.0)
    d0 = d.P.shape[1] - d.n

    def ext_msgs(counts):
        w = d.P[0].copy()
        w[d0:] = np.asarray(counts) * d.y * 2.0
        return [m for m in _final(d, 1, w=w, status="max_iter") if m.startswith("in the extended space")]

    assert ext_msgs([1.0, 0.0]) == []
    assert ext_msgs([1.0 - 1.5e-4, 1.5e-4]) != []  # not integers within 1e-4, the sum exact
    assert ext_msgs([1.0 - 0.5e-4, 0.5e-4]) == []
    assert ext_msgs([1.0 + 0.75e-4, 0.75e-4]) != []  # each within 1e-4 of an integer, the sum 1.5e-4 off


@pytest.mark.parametrize("algorithm", ["snkp", "snkpvn"])
def test_excessive_gap_allowance_is_1e5_times_1_plus_the_gap_side(mk, algorithm):
    """The excessive gap condition L_mu(alpha_k) <= -||p_k||_G^2/2 is held up to 1e-5 (1 + |rhs|):
    with the reference's alpha_0 and a p_0 moved towards a vertex until -||p||_G^2/2 is a chosen
    value around L_mu(alpha_0) (here about -0.464), 0.9 of the allowance below passes and 1.5 fails."""
    c = mk(algorithm)
    s0 = C._reference_run(c)["trace"][0]
    alpha, p_ref = s0["alpha"], s0["p"]
    lhs, rhs_ref = C._egc(c, alpha, p_ref, 0)
    assert -0.5 < lhs < rhs_ref < -0.1
    vertex = np.eye(c.n)[int(np.argmax([reference.g_norm(c.G, e) for e in np.eye(c.n)]))]

    def p_with_rhs(target):  # -||p||_G^2/2 = target on the segment from p_ref to the vertex
        lo, hi = 0.0, 1.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if -0.5 * reference.g_norm(c.G, (1 - mid) * p_ref + mid * vertex) ** 2 > target:
                lo = mid
            else:
                hi = mid
        return (1 - lo) * p_ref + lo * vertex

    def egc_fails(gap):  # rhs = lhs - gap * allowance
        tol = 1e-5 * (1 + abs(lhs))
        p = p_with_rhs(lhs - gap * tol)
        return any(m.startswith("excessive gap condition fails") for m in C._final_invariants(c, {}, 0, alpha, None, p))

    assert not egc_fails(-0.5)  # rhs above lhs: holds
    assert not egc_fails(0.9)
    assert egc_fails(1.5)


def _one_pattern(mk, *rows):
    """PDM (eps = 0.3) on MIXED with its patterns replaced by ``rows``: P a = a . rows, so an
    update's score and threshold can be set apart by a chosen amount."""
    return dataclasses.replace(mk("pdm"), P=np.array(rows, dtype=float))


def _at_gap(x, t, gap):
    """a = (x, y, 0) with x = (1 - 0.3) ||a||^2 / t + gap: the first pattern (1, 0, 0) scores its
    threshold (8) plus ``gap``."""
    y = math.sqrt(t * (x - gap) / 0.7 - x * x)
    return np.array([x, y, 0.0])


@pytest.mark.parametrize("x, t, gap, holds", [(100.0, 200, 5e-8, True), (100.0, 200, 2e-7, False),
                                              (0.5, 1, 0.5e-9, True), (0.5, 1, 1.5e-9, False)])
def test_pt11_update_condition_allowance_is_1e9_relative_above_1(mk, x, t, gap, holds):
    """An update on y_j is legitimate when a.y_j <= threshold + 1e-9 max(1, |threshold|): relative
    at a threshold of 100, absolute at 0.5."""
    d = _one_pattern(mk, (1.0, 0.0, 0.0))
    a = _at_gap(x, t, gap)
    msg = C._pt11_step(d, t, t + 1, {"t": t, "w": a}, {"t": t + 1, "w": a + d.P[0]}, [0])
    assert (msg == "") == holds, msg
    # PDM(eps) has converged when every pattern scores above the threshold by more than the allowance
    assert C._pt11_converged(d, 0.3, a, t) is (not holds)
    two = _one_pattern(mk, (1.0, 0.0, 0.0), (1.0, 0.0, 0.0))  # both patterns satisfy (8) or neither does
    assert (C._pt11_first_choice(two, [{"t": t, "w": a}, {"t": t + 1, "w": a + two.P[0]}])[0] == 0) is holds


def test_pt11_a_multiple_update_is_judged_when_it_is_one_pattern_within_1e6(mk):
    """lambda updates of one pattern: (a_k1 - a_k0)/lambda is y_j within 1e-6 max(1, ||.||) --
    relative for MIXED's patterns (norms 2.4-2.7), absolute for patterns of norm 1.4."""
    d = mk("pdm")
    P = d.P
    s0 = {"t": 1, "w": P[0]}
    for dev, judged in ((1e-6, True), (5e-6, False)):  # P_0's norm is 2.45: the allowance is 2.45e-6
        s1 = {"t": 3, "w": P[0] + 2 * (P[0] + np.array([dev, 0.0, 0.0]))}
        assert (C._pt11_pattern(d, s0, s1) == 0) is judged
        assert (C._pt11_step(d, 1, 3, s0, s1, [0]) != "") is judged  # the first of the two updates breaks (8)
    pair = mk("pdm", Instance("pair", np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, -1])))
    Q = pair.P
    assert abs(float(np.linalg.norm(Q[0])) - math.sqrt(2)) < 1e-15
    for dev, judged in ((0.5e-6, True), (1.5e-6, False)):  # norm 1.41 < 1: the allowance is 1e-6
        s1 = {"t": 3, "w": Q[0] + 2 * (Q[0] + np.array([dev, 0.0, 0.0]))}
        assert (C._pt11_pattern(pair, {"t": 1, "w": Q[0]}, s1) == 0) is judged
        assert (C._pt11_step(pair, 1, 3, {"t": 1, "w": Q[0]}, s1, [0]) != "") is judged


def test_step_allowances_are_relative_to_the_points_norm(mk):
    """A cyclic Perceptron's update is y_j x_j within 1e-6 max(1, ||x_j||); a Normalized
    Perceptron's (raw points) within 1e-5 (k+1) max(1, ||r||)."""
    p = mk("perceptron", FOUR)
    big = dataclasses.replace(p, X=10.0 * p.X)  # ||z_0|| = 10
    w0 = np.zeros(2)
    for dev, ok in ((5e-6, True), (2e-5, False)):
        msg, _ = C._rule_step(big, "cyclic", (0, {"w": w0}), (1, {"w": big.Z[0] + np.array([0.0, dev])}), 0)
        assert (msg == "") is ok, (dev, msg)
    small = dataclasses.replace(p, X=0.1 * p.X)  # ||z_0|| = 0.1: the allowance is 1e-6
    for dev, ok in ((0.5e-6, True), (1.5e-6, False)):
        msg, _ = C._rule_step(small, "cyclic", (0, {"w": w0}), (1, {"w": small.Z[0] + np.array([0.0, dev])}), 0)
        assert (msg == "") is ok, (dev, msg)
    npc = mk("normalized_perceptron", FOUR)
    raw = dataclasses.replace(npc, X=10.0 * npc.X, args={"normalize": False})
    Z = raw.Z
    j = int(np.argmin(Z @ Z[0]))  # the most misclassified point at w_1 = z_0
    for dev, ok in ((1e-4, True), (3e-4, False)):  # at k = 1: 1e-5 * 2 * ||z_j|| (about 10) = 2e-4
        r = Z[j] + np.array([dev, 0.0])
        msg = C._step_ok(raw, (1, {"w": Z[0]}), (2, {"w": (Z[0] + r) / 2}), [0])
        assert (msg == "") is ok, (dev, msg)


def test_snkpvn_mu_allowance_at_its_largest_mu(mk):
    """mu_0 = 2n = 8 on FOUR: 1e-6 relative is 8e-6 absolute, so mu_0 (1 + 1e-7) passes."""
    c = mk("snkpvn", FOUR)
    ref = C._reference_run(c)["trace"][:2]
    bad = [dict(s) for s in ref]
    assert bad[0]["mu"] == 8.0
    bad[0]["mu"] = 8.0 * (1 + 1e-7)
    assert _trace_check(c, bad).outcome == PASS
    bad[0]["mu"] = 8.0 * (1 + 2e-6)
    assert _trace_check(c, bad).outcome == FAIL


def test_run_case_hands_on_the_timeout_and_the_options(mk):
    import functools
    import time

    from theorems.validate.corpus import corpus

    c = mk("snkp")

    def slow(G, **kw):
        time.sleep(1.0)
        return reference.snkp(G, **kw)

    ans, results = C.run_case(slow, c, timeout=0.2)
    assert ans.get("timeout") and results[0].outcome == FAIL and results[0].message.startswith("no answer within 0.2 s")
    opts = {"multiple_updates": True}
    sec4 = functools.partial(reference.pdm, **opts)
    d = next(d for d in corpus("pdm") if not ({"csr", "budget"} & set(d.flags))
             and sec4(d.X, d.y, d.args["epsilon"], rho=1.0, Delta=d.args["Delta"], max_iter=d.max_iter,
                      max_epochs=10**9).iterations != d.reference["iterations"])  # fmt: skip
    _, results = C.run_case(sec4, d, strict=True, options=opts)
    assert _one(results, "strict.trajectory").outcome == PASS
    _, results = C.run_case(sec4, d, strict=True)
    assert _one(results, "strict.trajectory").outcome != PASS


def test_small_helpers_at_their_edges(mk):
    d = mk("pdm")
    P = d.P
    # a counter on one side only, or no increase: one update
    assert C._pt11_pattern(d, {"t": 1, "w": P[0]}, {"w": P[0] + P[1]}) == 1
    assert C._pt11_pattern(d, {"t": 1, "w": P[0]}, {"t": 1, "w": P[0] + P[1]}) == 1
    # a Perceptron told 'most_violated': two mistakes with distinct scores are no free choice
    p = mk("perceptron", FOUR)
    assert C._reference_tie(p, {"w": p.Z[0]}, "most_violated") == ""  # scores (1, -1, -0.5, 0.5)
    # float32 detection: dyadic entries are float64 answers too
    assert not C._is_float32(np.array([1.0, 0.75]))
    # layer 3's float32 agreement: rtol 1e-3, atol 1e-6
    rv = np.array([0.0, 1 / 3])
    f32 = lambda v: np.asarray(v, dtype=np.float32).astype(np.float64)  # noqa: E731
    assert C._strict_close(f32([5e-7, rv[1] * (1 + 5e-4)]), rv)
    assert not C._strict_close(f32([0.5, rv[1]]), rv)
    assert not C._strict_close(f32([0.0, rv[1] * 1.3]), rv)
    assert not C._strict_close(f32([5e-6, rv[1]]), rv)
    # a PT11 separator of norm 0 gets its other statements, not a division by zero
    assert _final(d, 1, w=np.zeros(3), status="separator")[0].startswith("||a_t||/t = 0 < gamma_d")


def test_nkp_fractional_parts_allowance_is_n_times_the_integrality_allowance(mk):
    """At k = 20000 (allowance 1e-3 + 1e-7 k = 3e-3), n = 2: fractional parts summing to 1.002 pass
    (1 + n 3e-3 = 1.006), 1.008 fail."""
    c = mk("nkp", INFEASIBLE)
    k = 20000
    assert _final(c, k, alpha=np.array([10000.6, 9999.402]) / k) == []
    (msg,) = _final(c, k, alpha=np.array([10000.6, 9999.408]) / k)
    assert msg.startswith("k alpha_k = ") and "its fractional parts sum to 1.008 > 1" in msg


def test_argmin_ties_are_relative_above_1_and_absolute_below(mk):
    p = mk("perceptron", FOUR)
    far = dataclasses.replace(p, X=np.array([[1.0, 0.0], [1.0, 5e-10]]), y=np.array([1, 1]))
    assert C._free_decision(far, {"w": np.array([-10.0, 10.0])}, "most_violated").endswith("tie")  # 5e-9 <= 1e-9 * 10
    near = dataclasses.replace(p, X=np.array([[1.0, 0.0], [1.0, 1.5e-9]]), y=np.array([1, 1]))
    assert C._free_decision(near, {"w": np.array([-0.5, 1.0])}, "most_violated") == ""  # 1.5e-9 > 1e-9 * 1


def test_a_cyclic_update_on_a_point_scoring_0_within_round_off_is_no_step_to_judge(mk):
    """y_j <w_k, x_j> = 2^-40 > 0 is within the step check's round-off (1e-9): the update is not
    failed as a non-mistake, and with no mistake the cyclic rule has nothing to say."""
    p = dataclasses.replace(mk("perceptron", FOUR), X=np.array([[1.0, 0.0], [0.0, 1.0]]), y=np.array([1, 1]))
    w0 = np.array([2.0**-40, 1.0])
    assert C._rule_step(p, "cyclic", (0, {"w": w0}), (1, {"w": w0 + p.Z[0]}), 0) == ("", 0)


def test_pdm_succ_after_its_last_run_converged_keeps_the_last_accuracy(mk):
    """Past the end of the schedule the final eps stays in force: an update there is judged with it
    (and fails when no pattern satisfies (8)), not an index past the schedule."""
    c = make_case("pdm_succ", MIXED)
    tr = C._reference_run(c)["trace"]
    last = tr[-1]
    P = c.P
    t = int(last["t"])
    assert C._pt11_converged(c, c.args["epsilon"], last["w"], t)
    msg = C._pt11_step(c, t, t + 1, last, {"t": t + 1, "w": last["w"] + P[0]}, [1])
    assert msg.startswith(f"update {t}->{t + 1} on pattern 0") and "(run 2 of the schedule 0.5, 0.1" in msg, msg


def test_same_iterate_is_held_to_a_tenth_of_the_nearer_step_on_either_side(mk):
    """Near convergence two iterates can be closer than the allowance: then a returned vector is
    iterate i only if it is within a tenth of the step to each neighbour, the first state included."""
    c = mk("perceptron", FOUR)
    st = lambda *ws: [{"w": np.array([x, 0.0])} for x in ws]  # noqa: E731
    close_before = st(5.0, 5.0 + 1e-8, 6.0, 7.0)  # iterate 1 is 1e-8 from iterate 0, 1 from iterate 2
    assert C._same_iterate(c, {"w": np.array([5.0 + 1e-8, 0.0])}, close_before, 1)
    assert not C._same_iterate(c, {"w": np.array([5.0 + 1.5e-8, 0.0])}, close_before, 1)  # 5e-9 > a tenth of 1e-8
    close_after = st(5.0, 6.0, 6.0 + 1e-8, 9.0)
    assert not C._same_iterate(c, {"w": np.array([6.0 + 5e-9, 0.0])}, close_after, 1)
    # beyond the allowance (5e-6 here) it is another vector, however large the steps
    assert not C._same_iterate(c, {"w": np.array([6.0 + 1e-3, 0.0])}, close_before, 2)
    assert C._same_iterate(c, {"w": np.array([6.0 + 1e-6, 0.0])}, close_before, 2)


def _mv_case(points):
    """A Perceptron case told rule 'most_violated' on the reflected points ``points`` (labels +1)."""
    inst = Instance("mv-" + "-".join(f"{x:.9g}" for x in np.ravel(points)), np.array(points, dtype=float), np.ones(len(points), dtype=int))
    return make_case("perceptron", inst, arguments={"rule": "most_violated"})


@pytest.mark.parametrize("gap, float32, note", [(1e-7, True, True), (1e-7, False, False), (1e-3, True, False)])
def test_strict_excuses_a_divergence_after_a_near_tie_at_the_implementations_precision(gap, float32, note):
    """At w_1 = z_0 the scores of z_1 and z_2 are -0.3 and -0.3 + gap: a float32 implementation may
    take either when gap <= 1e-5 (a note), a float64 one only when gap <= 1e-9."""
    c = _mv_case([[1.0, 0.0], [-0.3, 1.0], [-0.3 + gap, -1.0]])
    tr = C._reference_run(c)["trace"]
    assert tr[1]["w"].tolist() == [1.0, 0.0] and tr[2]["w"].tolist() == [0.7, 1.0]  # the reference takes z_1
    other = tr[1]["w"] + c.Z[2]
    if float32:
        other = other.astype(np.float32).astype(np.float64)
    mine = [dict(tr[0]), dict(tr[1]), {"k": 2, "w": other}]
    (r,) = C.check_strict(c, _ref(c, rule_passed="most_violated", trace=mine, status="max_iter", iterations=2, w=other))
    assert r.outcome == (NOTE if note else FAIL), r


def test_strict_on_pt11_at_the_first_iterate_names_no_order(mk):
    """A PT11 trace that leaves the reference's at iterate 0 fails: there is no step before it to
    be a free order -- even where the last and first states of both traces differ by patterns."""
    base = mk("pdm")
    d = dataclasses.replace(base, case_id="pdm/twice-one-update", X=np.array([[1.0, 0.0], [1.0, 0.0]]), y=np.array([1, -1]),
                            P=np.array([[1.0, 0.0, 1.0], [-1.0, 0.0, -1.0]]), max_iter=1)  # fmt: skip
    tr = C._reference_run(d)["trace"]
    assert [s["t"] for s in tr] == [0, 1]
    m0 = np.array([5.0, 0.0, 0.0])
    mine = [{"t": 0, "w": m0}, {"t": 1, "w": m0 - tr[1]["w"]}]
    (r,) = C.check_strict(d, _ref(d, trace=mine, status="max_iter", iterations=1, w=mine[1]["w"]))
    assert (r.outcome, r.at) == (FAIL, 0), r


# z_0 = (1, 0), z_1 = (1e-13, 1): the cyclic Perceptron updates on z_0 and stops at w_1 = z_0, where
# y_1 <w_1, x_1> = 1e-13 is a decision within round-off -- the reference's first free choice is its last state
LATE = [[1.0, 0.0], [1e-13, 1.0]]


def test_strict_without_a_trace_is_excused_only_by_a_free_choice_before_the_counter(mk):
    c = make_case("perceptron", Instance("late", np.array(LATE), np.array([1, 1])), arguments={"rule": "cyclic"})
    ref = C._reference_run(c)
    tr = ref["trace"]
    assert (ref["status"], ref["iterations"], len(tr)) == ("separator", 1, 2)
    assert C._first_free(c, tr, 2, "cyclic")[0] == 1 and C._first_free(c, tr, 1, "cyclic")[0] is None
    # the final vector at k = 0 differs from the reference's w_0 = 0: no free choice before iterate 0
    r = C.check_strict(c, _ref(c, rule_passed="cyclic", trace=None, status="max_iter", iterations=0, w=np.array([3.0, 3.0])))[0]
    assert r.outcome == FAIL and r.message.startswith("at k = 0, the returned w = "), r
    # the reference's own w_1, but another status at the same counter: no free choice before iterate 1
    r = C.check_strict(c, _ref(c, rule_passed="cyclic", trace=None, status="max_iter", iterations=1, w=tr[1]["w"]))[0]
    assert r == CheckResult("strict.trajectory", FAIL, "final (status, iterations) = (max_iter, 1) vs the reference's (separator, 1)")
    # no counter: the whole trace is before it, and its free choice excuses a different status
    r = C.check_strict(c, _ref(c, rule_passed="cyclic", trace=None, status="max_iter", iterations=None, w=tr[1]["w"]))[0]
    assert r.outcome == NOTE, r


def test_strict_without_a_trace_past_the_references_last_state(mk):
    c = mk("perceptron", E1E2)
    ref = C._reference_run(c)
    K = ref["iterations"]
    assert len(ref["trace"]) == K + 1
    r = C.check_strict(c, _ref(c, rule_passed="cyclic", trace=None, status="max_iter", iterations=K + 1, w=np.array([7.0, 7.0])))[0]
    assert r.outcome == FAIL and r.message.startswith(f"final (status, iterations) = (max_iter, {K + 1})"), r
    # a 'separator' after a reference that ran out of budget is no valid claim at another stopping iterate
    four = mk("perceptron", FOUR)
    rf = C._reference_run(four)
    assert rf["status"] == "max_iter"
    r = C.check_strict(four, _ref(four, rule_passed="cyclic", trace=None, status="separator", iterations=rf["iterations"] + 1,
                                  w=np.array([9.0, 9.0])))[0]  # fmt: skip
    assert r.outcome == FAIL, r


def test_strict_notes_another_valid_claim_at_the_same_counter(mk):
    c = mk("snkpvn")
    ref = C._reference_run(c)
    assert ref["status"] == "separator"
    r = C.check_strict(c, _ref(c, trace=None, status="certificate", iterations=ref["iterations"], p=np.full(c.n, 1 / c.n)))[0]
    assert r == CheckResult("strict.trajectory", NOTE, f"final (status, iterations) = (certificate, {ref['iterations']}) vs the reference's "
                            f"(separator, {ref['iterations']}): a valid claim at another stopping iterate; not a failure")


def test_strict_notes_a_later_stop_of_a_float32_implementation_at_a_reference_exit_within_its_round_off(mk):
    slim = mk("perceptron", Instance("slim", np.array([[1.0, -1.0 + 1e-6], [1.0, 1.0]]), np.array([1, 1])))
    ref = C._reference_run(slim)
    K, w = ref["iterations"], ref["w"]
    w32 = w.astype(np.float32).astype(np.float64)
    assert C._is_float32(w32) and C._exit_within_roundoff(slim, ref, w32) and not C._exit_within_roundoff(slim, ref, None)
    r = C.check_strict(slim, _ref(slim, rule_passed="cyclic", trace=None, status="separator", iterations=K + 1, w=w32))[0]
    assert r.outcome == NOTE, r
    r = C.check_strict(slim, _ref(slim, rule_passed="cyclic", trace=None, status="separator", iterations=K + 1, w=w.copy()))[0]
    assert r.outcome == FAIL, r


def test_strict_without_a_trace_on_pt11_looks_for_a_choice_of_order():
    """One pattern: the reference's trajectory has no choice of order, so another final answer fails."""
    one = make_case("pdm", Instance("one", np.array([[1.0, 0.0]]), np.array([1])))
    ref = C._reference_run(one)
    assert (ref["status"], ref["iterations"]) == ("separator", 1)
    r = C.check_strict(one, _ref(one, trace=None, status="max_iter", iterations=1, w=ref["w"].copy()))[0]
    assert r == CheckResult("strict.trajectory", FAIL, "final (status, iterations) = (max_iter, 1) vs the reference's (separator, 1)")


def test_nkp_integrality_allowance_at_large_k_with_three_points(mk):
    """At k = 20001 the allowance is 1e-3 + 1e-7 k = 3e-3: two entries of k alpha_k 2e-3 below an
    integer are round-off, not fractional parts near 1."""
    flat = np.array([[1.0, -0.5, -0.5], [-0.5, 1.0, -0.5], [-0.5, -0.5, 1.0]])  # alpha = 1/3: G alpha = 0
    c = dataclasses.replace(mk("nkp"), G=flat)
    k = 20001
    assert _final(c, k, alpha=np.array([6667.0 - 2e-3, 6667.0 - 2e-3, 6667.0 + 4e-3]) / k) == []
    assert _final(c, k, alpha=np.array([6667.0 - 5e-3, 6667.0 - 5e-3, 6667.0 + 1e-2]) / k) != []


def test_pdm_succ_moves_to_the_next_accuracy_only(mk):
    """From a state where PDM(1/2) has converged but PDM(1/4) has not (eta = 2: the schedule 0.5,
    0.25, 0.125, 0.1), an update is judged with eps = 0.25: one that holds only at a later, smaller
    accuracy fails."""
    base = make_case("pdm_succ", MIXED)
    c = dataclasses.replace(base, args=dict(base.args, eta=2.0), P=np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]))
    a, t = np.array([0.8, 1.0, 0.6]), 2  # ||a||^2/t = 1: thresholds 0.5, 0.75, 0.875, 0.9; P a = (0.8, 0.6)
    assert C._pt11_converged(c, 0.5, a, t) and not C._pt11_converged(c, 0.25, a, t)
    msg = C._pt11_step(c, t, t + 1, {"t": t, "w": a}, {"t": t + 1, "w": a + c.P[0]}, [0])
    assert msg.startswith("update 2->3 on pattern 0 with a.y_k = 0.8 > threshold 0.75") and "run 2 of the schedule" in msg, msg
    assert C._pt11_step(c, t, t + 1, {"t": t, "w": a}, {"t": t + 1, "w": a + c.P[1]}, [0]) == ""


def _late_case(points):
    return make_case("perceptron", Instance("late" + str(len(points)), np.array(points), np.ones(len(points), dtype=int)),
                     arguments={"rule": "cyclic"})


def test_trajectory_final_looks_for_free_choices_before_the_counter_only():
    """The reference's free choices from iterates 0 .. k-1 decide whether iterate k can be compared:
    one at its last state (LATE: at w_1) does not stop the comparison at k = 1; one at w_1 does at k = 2."""
    c = _late_case(LATE)
    ref = C._reference_run(c)
    assert ref["iterations"] == 1
    (r,) = C.check_trajectory(c, _ref(c, rule_passed="cyclic"))
    assert r.outcome == PASS, r
    # the reference's last iterate with a counter one past it: the exit decision at w_1 is no step taken before k
    (r,) = C.check_trajectory(c, _ref(c, rule_passed="cyclic", iterations=2))
    assert r.outcome == FAIL and "the counter is off by 1" in r.message, r
    c3 = _late_case(LATE + [[-0.5, 1.0]])  # at w_1 = z_0, z_2 scores -0.5: a second update, w_2 = z_0 + z_2
    ref3 = C._reference_run(c3)
    assert ref3["iterations"] == 2 and len(ref3["trace"]) == 3 and C._first_free(c3, ref3["trace"], 3, "cyclic")[0] == 1
    (r,) = C.check_trajectory(c3, _ref(c3, rule_passed="cyclic"))
    assert r.outcome == SKIP and "from iterate 1 is a free choice" in r.message, r


@pytest.mark.parametrize("at, counter, off", [(5, 6, 1), (5, 3, -2), (0, 1, 1)])
def test_trajectory_final_names_the_iterate_the_counter_is_off_from(mk, at, counter, off):
    c = mk("snkp", FOUR)
    tr = C._reference_run(c)["trace"]
    ans = _ref(c, status="max_iter", iterations=counter, alpha=tr[at]["alpha"].copy(), p=tr[at]["p"].copy())
    (r,) = C.check_trajectory(c, ans)
    assert r.outcome == FAIL and r.message.startswith(f"the returned alpha is the reference's iterate alpha_{at}, but the counter says "
                                                      f"k = {counter}: the counter is off by {off}"), r.message
