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
