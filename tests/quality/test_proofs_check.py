"""Tests of quality/test_proofs_check.py."""

from __future__ import annotations

import pytest

from tests.support.proofs import HOLDING


@pytest.mark.parametrize("step", HOLDING, ids=[st.id for st in HOLDING])
def test_perturbed_step_fails(step):
    res = step.run_perturbed()
    assert res.method != "error", res.detail
    assert res.holds is False, f"{step.id} still holds with {step.perturb}: {res.detail}"
