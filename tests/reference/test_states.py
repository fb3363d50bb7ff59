"""Tests of reference/states.py: the states both engines build."""

from __future__ import annotations

import dataclasses

import pytest

from reference import dynamic_margin, perceptrons, smoothed, states, von_neumann


@pytest.mark.parametrize(
    "module, names",
    [
        (perceptrons, ("PerceptronState", "NKPState", "RULES")),
        (von_neumann, ("NVNState",)),
        (smoothed, ("SmoothState", "OuterRecord", "OuterState")),
        (dynamic_margin, ("DynamicMarginState", "ACTIVE_SET_C", "ACTIVE_SET_N_EP", "GUARD_STEPS", "ACTIVE_SET_C1_FIRST_EPOCH")),
    ],
)
def test_the_textbook_modules_export_the_shared_states(module, names):
    """One class per state: a trace of either engine holds reference.states' classes."""
    for name in names:
        assert getattr(module, name) is getattr(states, name), name


def test_states_are_immutable_and_default_as_the_papers_start():
    s = states.PerceptronState(k=0, w=None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.k = 1
    assert (s.start, s.j) == (0, None)
    d = states.DynamicMarginState(t=0, a=None, ell=0.0, theta=0.0, k=0, order=(0, 1))
    assert (d.run, d.t_c, d.converged, d.level, d.uses) == (0, (), False, 0, (0, 0, 0))
    assert states.ACTIVE_SET_C == ("2.2", "1.1", "1") and states.ACTIVE_SET_N_EP == (9, 12, 12)  # [PT11 Sec. 4; spec B.9]
    assert states.RULES == ("cyclic", "most_violated")
