"""Tests of reference/prepare.py: the data as both engines run on them."""

from __future__ import annotations

import numpy as np
import pytest

import reference
from reference import dynamic_margin
from reference.arithmetic import Arithmetic
from reference.prepare import check_primal_data, prepare_pt11, succ_schedule, with_scale, working_points

KEYWORDS = dict(rho=1.0, Delta=None, active_sets=False, multiple_updates=False, max_iter=10, max_epochs=None, seed=0,
                trace=False, precision=None)  # fmt: skip


def test_succ_schedule_erratum_e_b5():
    assert succ_schedule(0.01, 8.0) == (0.5, 0.0625, 0.01)
    assert succ_schedule(0.1, 2.0) == (0.5, 0.25, 0.125, 0.1)
    assert succ_schedule(0.0625, 8.0) == (0.5, 0.0625)
    assert succ_schedule(0.07, 8.0) == (0.5, 0.07)
    assert succ_schedule(0.5, 8.0) == (0.5,)
    assert succ_schedule(0.7, 8.0) == (0.7,)
    assert succ_schedule(0.49, 1.5) == (0.5, 0.49)


def test_succ_schedule_stops_at_the_target():
    # eps_1 = 1/2, eps_{n+1} = eps_n / eta, the last clamped to epsilon  [spec B.8, E-B5]
    assert succ_schedule(0.0625, 8.0) == (0.5, 0.0625)  # 0.5/8 hits it exactly
    assert succ_schedule(0.01, 8.0) == (0.5, 0.0625, 0.01)
    assert succ_schedule(0.5, 8.0) == (0.5,)
    assert succ_schedule(0.25, 2.0) == (0.5, 0.25)


def test_succ_schedule_is_the_one_the_textbook_module_exports():
    assert dynamic_margin.succ_schedule is succ_schedule


@pytest.mark.parametrize(
    "name, args, info, warmup",
    [
        ("pdm", (0.1,), {"epsilon": 0.1, "eps_schedule": (0.1,)}, True),
        ("pfm", (0.25,), {"beta": 0.25}, False),
        ("pdm_succ", (0.01, 8.0), {"epsilon": 0.01, "eta": 8.0, "eps_schedule": (0.5, 0.0625, 0.01)}, False),
    ],
)
def test_prepare_pt11_builds_the_run_both_engines_take(name, args, info, warmup):
    X, y = np.array([[1.0, 2.0], [-1.0, 0.5]]), np.array([1, -1])
    pt = prepare_pt11(name, X, y, *args, **KEYWORDS)
    assert (pt.name, pt.pfm, pt.warmup) == (name, name == "pfm", warmup)
    assert pt.schedule == info.get("eps_schedule", (args[0],))
    assert pt.info == {**info, "rho": 1.0, "Delta": None}  # no "scale": the data need none
    assert pt.P is pt.P_verify and pt.P.m == 2 and pt.P.rho == 1.0
    assert pt.ar.dps is None and pt.max_iter == 10 and pt.max_epochs is None and not pt.trace


def test_prepare_pt11_scales_extreme_patterns_and_pfms_beta_alike():
    """At an extreme scale the patterns run times 2^-e, PFM's beta with them, and info names it."""
    X, y = np.array([[2.0**600, 0.0]]), np.array([1])
    pt = prepare_pt11("pfm", X, y, 2.0**599, **{**KEYWORDS, "rho": None})
    assert pt.info["scale"] == "2^-601" and pt.P.data.tolist() == [0.5] and pt.schedule == (0.25,)
    assert prepare_pt11("pdm", X, y, 0.1, **{**KEYWORDS, "rho": None}).schedule == (0.1,)  # eps is scale-free


def test_prepare_pt11_checks_the_positional_arguments_then_the_engine_then_the_data():
    bad_X = np.array([[np.nan]])
    with pytest.raises(ValueError, match="^epsilon must lie in"):
        prepare_pt11("pdm", bad_X, [1], 2.0, engine="turbo", **KEYWORDS)
    with pytest.raises(ValueError, match="^engine must be one of"):
        prepare_pt11("pdm", bad_X, [1], 0.1, engine="turbo", **KEYWORDS)
    with pytest.raises(ValueError, match="^eta must lie in"):
        prepare_pt11("pdm_succ", bad_X, [1], 0.1, 1.0, **KEYWORDS)
    with pytest.raises(ValueError, match="^beta must lie in"):
        prepare_pt11("pfm", bad_X, [1], -1.0, **KEYWORDS)


def test_working_points_reflect_augment_and_normalize():
    ar = Arithmetic(None)
    X, y = np.array([[3.0, 4.0], [1.0, 0.0]]), np.array([1, -1])
    Z, Z_verify, e = working_points(X, y, 1.0, ar)
    assert Z.tolist() == [[3.0, 4.0, 1.0], [-1.0, -0.0, -1.0]] and Z_verify is Z and e == 0
    Z2, _, e2 = working_points(X, y, None, ar, normalize=True)
    assert Z2.tolist() == [[0.6, 0.8], [-1.0, -0.0]] and e2 == 0
    with pytest.raises(ValueError, match="^rho must lie in"):
        check_primal_data(X, y, 0.0)


def test_with_scale_records_the_power_of_two_only_when_there_is_one():
    r = reference.nkp(np.eye(1))
    assert with_scale(r, 0) is r
    assert with_scale(r, 3).info == {**r.info, "scale": "2^-3"}
