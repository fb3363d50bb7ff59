"""The public strategies produce valid instances whose planted quantities are right: each planted
margin / delta_max is recomputed independently by the certified reference.margin."""

import math

import numpy as np
import pytest
from hypothesis import given

from theorems.instances import Instance
from theorems.instances.suite import builtin_suite
from theorems.strategies import (
    degenerate_cases,
    degenerate_instances,
    infeasible_instances,
    instances,
    kernel_instances,
    origin_inradius,
    planted_infeasible,
    planted_separable,
    rational_instances,
    separable_instances,
    worked_example,
)


TOL = 1e-9


def assert_valid(inst: Instance):
    assert isinstance(inst, Instance)
    X, y = np.asarray(inst.X, float), np.asarray(inst.y)
    assert X.ndim == 2 and X.shape[0] == y.shape[0] >= 1
    assert np.all(np.isfinite(X))
    assert set(np.unique(y).tolist()) <= {-1, 1}
    G = np.asarray(inst.G, float)
    assert np.allclose(np.diag(G), 1.0)
    assert np.allclose(G, G.T, atol=1e-12)
    assert np.linalg.eigvalsh(G)[0] >= -1e-9 * G.shape[0]
    assert inst.name and str(inst) == inst.name


def assert_known_matches(inst: Instance):
    """Every planted quantity agrees with the independently certified margins."""
    k = inst.known
    m = inst.margin_G
    if "rho_K" in k:
        assert float(m.lower) - TOL <= k["rho_K"] <= float(m.upper) + TOL, (inst.name, m, k)
    if "rho_2" in k and inst.kernel == "linear":
        assert abs(k["rho_2"] - k["rho_K"]) <= TOL
    if "rho" in k:
        mk = inst.margin_K
        assert float(mk.lower) - TOL * max(1, k["rho"]) <= k["rho"] <= float(mk.upper) + TOL * max(1, k["rho"]), (inst.name, mk, k)
    if "delta_max" in k:
        assert m.feasible is False
        assert float(m.lower) - TOL <= -k["delta_max"] <= float(m.upper) + TOL, (inst.name, m, k)
    if "feasible" in k:
        assert m.feasible is k["feasible"], inst.name
    if "R" in k:
        assert abs(k["R"] - float(np.max(np.linalg.norm(inst.X, axis=1)))) <= 1e-9 * max(1.0, k["R"])
    if "support" in k and "u" in k:
        Z = np.asarray(inst.X, float) * np.asarray(inst.y)[:, None]
        u = np.asarray(k["u"])
        marg = Z @ u
        rho = k["rho"]
        on = set(np.flatnonzero(np.abs(marg - rho) <= 1e-9 * max(1, rho)).tolist())
        assert on == set(k["support"]), (inst.name, marg, rho)
        assert np.all(marg >= rho - 1e-9)
        # the certified min-norm point is supported on the planted optimal face
        assert set(inst.margin_K.support) <= set(k["support"])


@given(separable_instances())
def test_separable_planted(inst):
    assert_valid(inst)
    assert "separable" in inst.flags
    assert_known_matches(inst)
    # planted unit normal is a max-margin separator of the normalized data too
    G = np.asarray(inst.G, float)
    assert float(inst.margin_G.lower) > 0


@given(separable_instances(unit=False, ambient=True))
def test_separable_rescaled_and_embedded(inst):
    assert_valid(inst)
    assert_known_matches(inst)
    if "unit" not in inst.flags:  # rho = c rho_2 with c the common scale of the support
        c = inst.known["rho"] / inst.known["rho_2"]
        sup = list(inst.known["support"])
        assert np.allclose(np.linalg.norm(inst.X[sup], axis=1), c)


@given(infeasible_instances())
def test_infeasible_planted(inst):
    assert_valid(inst)
    assert "infeasible" in inst.flags
    assert_known_matches(inst)
    # independent enumeration of delta_max from the normalized reflected points
    Z = np.asarray(inst.X, float) * np.asarray(inst.y)[:, None]
    Z = Z / np.linalg.norm(Z, axis=1, keepdims=True)
    r, _ = origin_inradius(Z)
    assert abs(r - inst.known["delta_max"]) <= 1e-9


@given(kernel_instances())
def test_kernel_instances_valid(inst):
    assert_valid(inst)
    assert "kernel" in inst.flags and inst.kernel in inst.flags


@given(rational_instances())
def test_rational_instances_are_integral(inst):
    assert_valid(inst)
    X = np.asarray(inst.X, float)
    assert np.all(X == np.round(X)) and np.all(np.any(X != 0, axis=1))


@given(degenerate_instances())
def test_degenerate_instances(inst):
    assert_valid(inst)
    assert_known_matches(inst)


@given(instances())
def test_instances_valid(inst):
    assert_valid(inst)
    assert_known_matches(inst)


@pytest.mark.parametrize("r", [1.5, 3.0, 7.0])
def test_worked_example(r):
    inst = worked_example(r)
    assert_known_matches(inst)
    assert abs(inst.known["rho_2"] - math.sqrt(2) / 10) < 1e-15


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5])
def test_regular_shapes_inradius(d):
    for shape, expect in [("simplex", 1 / d), ("cross", 1 / math.sqrt(d))]:
        inst = planted_infeasible(shape, d, seed=d)
        Z = np.asarray(inst.X, float) * inst.y[:, None]
        assert abs(origin_inradius(Z)[0] - expect) < 1e-9
        assert_known_matches(inst)


def test_origin_inradius_outside_and_boundary():
    assert origin_inradius(np.array([[1.0, 0.0], [0.0, 1.0]]))[0] == -math.inf
    assert origin_inradius(np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]]))[0] == 0.0


def test_builtin_suite_and_degenerate_cases_valid():
    suite = builtin_suite()
    assert len({i.name for i in suite}) == len(suite)
    for inst in suite + degenerate_cases():
        assert_valid(inst)
        assert_known_matches(inst)
    flags = set().union(*(set(i.flags) for i in suite))
    for f in ("separable", "infeasible", "kernel", "gaussian", "polynomial", "rational", "n1", "d1",
              "duplicates", "antipodal", "collinear", "zero_margin", "small_margin", "ties", "real_data", "example"):
        assert f in flags, f


def test_planted_separable_validation():
    with pytest.raises(ValueError):
        planted_separable(1, 2, 0, 0.3)
    with pytest.raises(ValueError):
        planted_separable(3, 1, 0, 0.3)
    with pytest.raises(ValueError):
        planted_separable(3, 2, 0, 1.5)
