"""Tests of reference/budgets.py: default budgets sized to the problem, the report of a run that
stopped at its budget, and the accuracy below which float64 cannot certify ||p||_G."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import reference
from reference import budgets, paper_bounds
from reference.arithmetic import Arithmetic, g_norm_upper


def _separable(m=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    s = X @ np.arange(1.0, d + 1)
    keep = np.abs(s) > 0.3
    return X[keep], np.where(s[keep] > 0, 1, -1)


def _random_gram(n=9, seed=3):
    rng = np.random.default_rng(seed)
    return reference.gram(rng.normal(size=(n, 4)), rng.choice([-1, 1], size=n))


# -- sized budgets ---------------------------------------------------------------------------------


def test_from_bound_is_twice_the_bound_within_floor_and_ceiling():
    assert budgets.from_bound("snkp", 1e4, "b").max_iter == 20_002
    assert budgets.from_bound("snkp", 3.0, "b").max_iter == budgets.FLOOR
    big = budgets.from_bound("pdm", 1e12, "b")
    assert big.max_iter == budgets.CEILING and big.capped
    none = budgets.from_bound("pdm", math.inf, "no bound")
    assert none.max_iter == budgets.FALLBACK["pdm"] and not none.capped
    assert budgets.from_bound("nkp", 1e9, "b", trace=True).max_iter == budgets.FALLBACK["nkp"]  # a trace: at most the fallback


def test_pt11_budget_uses_theorem_1_where_theorem_2_is_vacuous():
    """eps = 0.01: Thm. 2 grows like (R/gamma_d)^100; the budget is sized from Thm. 1 at the same eps."""
    X, y = _separable()
    M = reference.margin_from_data(X, y, rho=1.0)
    b = budgets.pt11_budget("pdm", 0.01, M)
    assert b.bound == pytest.approx(paper_bounds.pfm_theorem1(M.R, M.lower, 0.01))
    assert paper_bounds.pdm_theorem2(M.R, M.lower, 0.01) > b.bound
    assert "PT11 Thm. 1" in b.basis and b.margin == M.lower
    eps_half = budgets.pt11_budget("pdm", 0.5, M)  # Thm. 2 finite and smaller there
    assert "PT11 Thm. 2" in eps_half.basis and eps_half.bound == pytest.approx(paper_bounds.pdm_theorem2(M.R, M.lower, 0.5))


def test_pt11_budget_without_a_bound():
    X, y = _separable()
    M = reference.margin_from_data(X, y, rho=1.0)
    too_big = budgets.pt11_budget("pfm", 2 * M.upper, M)  # PFM never converges with beta >= gamma_d
    assert too_big.max_iter == budgets.FALLBACK["pfm"] and "not below the certified gamma_d" in too_big.basis
    Xn = np.array([[1.0], [1.0]])
    Mn = reference.margin_from_data(Xn, np.array([1, -1]), rho=None)
    assert Mn.separable is False
    assert "certified NOT separable" in budgets.pt11_budget("pdm", 0.1, Mn).basis


@pytest.mark.parametrize("engine", ["textbook", "fast"])
def test_the_default_is_the_sized_budget_in_both_engines(engine):
    """max_iter=None: the budget of reference.budgets.default_budget, the same in both engines,
    recorded in info; the runs end with verified claims.  Main before sized budgets had fixed
    defaults and no info["max_iter"]."""
    if engine == "fast":
        pytest.importorskip("numba")
    X, y = _separable()
    G = reference.gram(X, y)
    n = G.shape[0]
    runs = {
        "perceptron": (lambda: reference.perceptron(X, y, engine=engine), budgets.default_budget("perceptron", (X, y))),
        "nkp": (lambda: reference.nkp(G, engine=engine), budgets.default_budget("nkp", G)),
        "snkp": (lambda: reference.snkp(G, engine=engine), budgets.default_budget("snkp", G)),
        "nvn": (lambda: reference.nvn(G, 1e-3, engine=engine), budgets.default_budget("nvn", G, 1e-3)),
        "snkpvn": (lambda: reference.snkpvn(G, np.full(n, 1 / n), 1e-3, engine=engine),
                   budgets.default_budget("snkpvn", G, np.full(n, 1 / n), 1e-3)),
        "pdm": (lambda: reference.pdm(X, y, 0.1, engine=engine), budgets.default_budget("pdm", (X, y), 0.1, rho=1.0)),
    }
    for name, (run, b) in runs.items():
        r = run()
        assert r.info["max_iter"] == b.max_iter and r.info["budget"] == b.basis, name
        assert r.status != reference.MAX_ITER and r.iterations <= b.max_iter, (name, r.message)
    assert runs["nvn"][1].bound == pytest.approx(1e6)  # 1/eps^2: no margin needed
    assert runs["snkp"][1].bound == pytest.approx(paper_bounds.snkp(reference.margin(G).lower, n))


def test_an_explicit_budget_keeps_the_bare_message_and_info():
    """max_iter given: no sizing, no report (the results of explicit budgets are unchanged)."""
    G = reference.gram(np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]]), np.ones(3))
    r = reference.snkp(G, max_iter=50)
    assert (r.status, r.message) == (reference.MAX_ITER, "budget exhausted after 50 iterations")
    assert "max_iter" not in r.info and "budget" not in r.info


def test_a_sized_run_that_stops_says_how_far_it_got():
    """PDM with a sized budget that runs out (the ceiling lowered): the message names ||a_t||/t
    against the certified gamma_d, and the budget that would likely suffice."""
    X, y = _separable(m=200, d=6, seed=1)
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(budgets, "CEILING", 30)
        mp.setattr(budgets, "FLOOR", 10)
        r = reference.pdm(X, y, 0.01)
    finally:
        mp.undo()
    assert (r.status, r.iterations) == (reference.MAX_ITER, 30)
    assert r.message.startswith("budget exhausted after 30 iterations; ||a_t||/t = ")
    assert "against the certified gamma_d >= " in r.message and "would likely suffice" in r.message
    need = int(r.message.split("max_iter=")[1].split()[0])
    assert need == math.ceil(budgets.SAFETY * budgets.default_budget("pdm", (X, y), 0.01, rho=1.0).bound) + 2


def test_budget_report_of_gram_runs_names_the_theorems_quantities():
    G = _random_gram()
    r = reference.nvn(G, 1e-3, max_iter=3)
    text = budgets.budget_report(r, dataclasses.replace(budgets.default_budget("nvn", G, 1e-3), max_iter=3), G)
    assert "||p||_G = " in text and "(a certificate needs < 0.001)" in text and "max_iter=2000002 would likely suffice" in text
    assert budgets.budget_report(reference.nvn(G, 0.5), None, G) == ""  # a claim: nothing to report


# -- the accuracy float64 can certify ------------------------------------------------------------


def test_the_floor_is_below_every_bound_the_verifier_computes():
    """accuracy_floor(G) <= g_norm_upper(G, p) for p on the simplex: the vertices, the centre, and
    random points (the rigorous bound never goes below it)."""
    G = _random_gram(n=12, seed=5)
    floor = budgets.accuracy_floor(G)
    assert floor > 0
    rng = np.random.default_rng(0)
    n = G.shape[0]
    points = [np.eye(n)[i] for i in range(n)] + [np.full(n, 1 / n)] + [rng.dirichlet(np.ones(n) * a) for a in (0.1, 1, 10) for _ in range(30)]
    for p in points:
        assert float(g_norm_upper(G, p, Arithmetic(None))) >= floor
    assert budgets.accuracy_floor(G, precision=40) < 1e-18  # more digits, a lower floor


@pytest.mark.parametrize("engine", ["textbook", "fast"])
@pytest.mark.parametrize("eps", [1e-9, 1e-11])
def test_accuracies_below_the_floor_are_refused_up_front(engine, eps):
    """nvn / isnkpvn / snkpvn at an accuracy below the round-off floor of this G: a ValueError
    naming precision=D, in both engines, before any iteration (main before this: nvn(G, 1e-9) ran
    its 100,000 iterations, each claim re-checked exactly and refused)."""
    if engine == "fast":
        pytest.importorskip("numba")
    G = _random_gram()
    assert eps < budgets.accuracy_floor(G)
    n = G.shape[0]
    calls = [
        ("epsilon", lambda: reference.nvn(G, eps, engine=engine)),
        ("epsilon", lambda: reference.isnkpvn(G, 2.0, eps, engine=engine)),
        ("delta", lambda: reference.snkpvn(G, np.full(n, 1 / n), eps, engine=engine)),
    ]
    for name, call in calls:
        with pytest.raises(ValueError, match=rf"^{name}={eps:.3g} is below the round-off floor .* pass precision=D"):
            call()


def test_precision_lowers_the_floor():
    G = _random_gram()
    budgets.check_certifiable("epsilon", 1e-9, G, precision=30)  # no error
    r = reference.nvn(G, 1e-9, precision=30, max_iter=5)
    assert r.iterations == 5


def test_the_floor_of_the_linear_operator():
    pytest.importorskip("numba")
    from reference.fast.operator import linear_gram

    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(40, 3)), rng.choice([-1, 1], size=40)
    op = linear_gram(X, y)
    floor = budgets.accuracy_floor(op)
    assert 0 < floor < 1e-12
    with pytest.raises(ValueError, match="pass precision=D"):
        reference.nvn(op, floor / 2, engine="fast")


def test_a_gram_matrix_given_as_nested_lists_is_sized_as_the_array_and_a_non_matrix_is_the_algorithms_error():
    """The sized budget reads G as passed (a nested list is sized as its array, not given the
    fallback), and a G that is no matrix reaches the algorithm's own ValueError, never an
    IndexError from the sizing."""
    G = [[1.0, 0.5], [0.5, 1.0]]
    listed = budgets.default_budget("snkp", G)
    assert listed == budgets.default_budget("snkp", np.array(G)) and listed.basis.startswith("RP14 Thm. 1")
    for bad in ("G", 3.0, [1.0, 2.0]):
        with pytest.raises(ValueError, match="G must"):
            reference.snkp(bad)
