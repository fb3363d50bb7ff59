"""Tests for proofs_check: every proof step matches its expectation, and every step expected to
hold *fails* once one of its constants / exponents is perturbed (so no check is vacuous)."""

from __future__ import annotations

import pytest

from proofs_check.__main__ import main
from tests.support.proofs import HOLDING, STEPS


PRINTED_WRONG = [st for st in STEPS if not st.expected]


def test_registry_size_and_ids():
    ids = [st.id for st in STEPS]
    assert len(ids) == len(set(ids))
    assert len(STEPS) >= 30
    assert {st.paper for st in STEPS} == {"RP14", "PT11"}
    for st in STEPS:
        assert st.id.startswith(st.paper + ".")
        assert st.func.__doc__, f"{st.id} has no docstring"


def test_every_holding_step_has_a_perturbation_and_every_wrong_one_a_correction():
    for st in HOLDING:
        assert st.perturb, st.id
    for st in PRINTED_WRONG:
        assert st.corrected, st.id


def test_errata_are_registered():
    ids = {st.id for st in PRINTED_WRONG}
    assert {"RP14.Lemma7.printed", "PT11.eq6.printed", "PT11.Thm1.side_claim.printed",
            "PT11.multi.smallest_root.free", "PT11.Thm2.continuity.printed"} <= ids


@pytest.mark.parametrize("step", STEPS, ids=[st.id for st in STEPS])
def test_step_matches_expectation(step):
    res = step.run()
    assert res.method != "error", res.detail
    assert res.holds is step.expected, f"{step.id}: {res.method}: {res.detail}"


def test_cli_exit_code_and_lines(capsys):
    assert main(["--only", "RP14.eq7"]) == 0
    out = capsys.readouterr().out
    assert "RP14.eq7" in out and "holds" in out


def test_lemma7_counterexample_machinery_can_say_holds():
    """The exact decision of the printed Lemma 7 is not hard-wired to 'fails': on the regular
    hexagon (ratio < 1) the same certificates verify and the printed form holds."""
    from sympy import Rational as Q
    from proofs_check.rp14 import lemma7_exact_ratio2, lemma7_printed_counterexample

    # a hexagon with rational unit vectors (3-4-5 angles), labels +1, q = (e_1 + e_4)/2
    pts = [(1, 0), (Q(3, 5), Q(4, 5)), (Q(-3, 5), Q(4, 5)), (-1, 0), (Q(-3, 5), Q(-4, 5)), (Q(3, 5), Q(-4, 5))]
    hexagon = dict(points=pts, q=[Q(1, 2), 0, 0, 0, 0, Q(1, 2)], support=(0, 2, 3, 4, 5))
    d2, dist2, g2 = lemma7_exact_ratio2(**hexagon)
    assert d2 == Q(16, 25) and d2 * dist2 < g2
    assert lemma7_printed_counterexample(**hexagon).holds
    with pytest.raises(ValueError, match="KKT"):  # a wrong active set is rejected, never decided
        lemma7_exact_ratio2(**dict(hexagon, support=(0, 5)))
    res = lemma7_printed_counterexample()
    assert not res.holds and "81/106" in res.detail
