"""Tests of reference/test_algorithms.py."""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

import reference
import reference as ref
from reference.arithmetic import Arithmetic, g_norm_upper
from reference.data import drop_zero_rows
from reference.exact import exact_quadratic_form, verify_exact
from reference.fast import rp14_kernels
from tests.support.instances import (
    E1,
    GOOD_X,
    GOOD_Y,
    G_OPPOSITE,
    X_OK2,
    Y_OK2,
    _G,
    _G_BOUNDARY,
    _Q,
    _cancelling_duplicates,
    _infeasible_gram,
    _lying_smoothed,
)
from tests.support.margin import ULP, _X, _Y, _heart
from tests.support.numba import needs_numba


# PT11's decisions are invariant under a positive scaling of the patterns (p_tk and theta_t
# both scale by c^2 for PDM; by c for PFM when beta scales alike).  Patterns at an extreme scale
# run multiplied by 2^-e; here the largest entry of X, rho, Delta is 3/4, so X 2^100 with
# rho = Delta = 2^99 runs as exactly X with rho = Delta = 1/2.
_XS = np.array([[0.5, 0.75], [-0.25, 0.5], [0.75, -0.5], [0.125, 0.25]])


_YS = np.array([1, -1, 1, -1])


_G2 = np.eye(2)


_ENGINE_CALLS = {
    "perceptron": lambda **kw: reference.perceptron(X_OK2, Y_OK2, **kw),
    "normalized_perceptron": lambda **kw: reference.normalized_perceptron(X_OK2, Y_OK2, **kw),
    "nkp": lambda **kw: reference.nkp(_G2, **kw),
    "nvn": lambda **kw: reference.nvn(_G2, **kw),
    "snkp": lambda **kw: reference.snkp(_G2, **kw),
    "snkpvn": lambda **kw: reference.snkpvn(_G2, [0.5, 0.5], 0.1, **kw),
    "isnkpvn": lambda **kw: reference.isnkpvn(_G2, **kw),
    "pdm": lambda **kw: reference.pdm(X_OK2, Y_OK2, 0.1, **kw),
    "pfm": lambda **kw: reference.pfm(X_OK2, Y_OK2, 0.1, **kw),
    "pdm_succ": lambda **kw: reference.pdm_succ(X_OK2, Y_OK2, 0.1, **kw),
}


# feasible with a tiny margin (~3e-8): the points (1, s), (-1, s), (1, s), s = 3e-8
_G_TINY = reference.gram(np.array([[1.0, 3e-8], [-1.0, 3e-8], [1.0, 3e-8]]), [1, 1, 1])


X3, Y3 = np.array([[1.0, 0.5], [2.0, -1.0], [-1.0, -1.0]]), np.array([1, 1, -1])


def _both(fn, *args, **kw):
    return fn(*args, **kw), fn(*args, engine="fast", **kw)


def _pt11_same(a, b):
    """Same status, counter, message and iterate (bit for bit), and the same PT11 bookkeeping."""
    assert (b.status, b.iterations, b.message) == (a.status, a.iterations, a.message), (a.message, b.message)
    np.testing.assert_array_equal(b.w, a.w)
    for key in ("t_c", "ell", "theta", "epochs", "passes"):
        assert b.info[key] == a.info[key], key


_CELLS = st.sampled_from([0.0, 0.0, 0.0, 1.0, -1.0, 0.5, -2.0, 3.0])


@st.composite
def _data(draw):
    m = draw(st.integers(2, 9))
    d = draw(st.integers(1, 4))
    X = np.array(draw(st.lists(st.lists(_CELLS, min_size=d, max_size=d), min_size=m, max_size=m)))
    y = np.array(draw(st.lists(st.sampled_from([1, -1]), min_size=m, max_size=m)))
    return X, y


def _same(a, b):
    """Two Results equal bit for bit (status, counter, vectors, info scalars, trace lengths)."""
    assert (a.status, a.iterations, a.message) == (b.status, b.iterations, b.message)
    for f in ("w", "alpha", "p"):
        va, vb = getattr(a, f), getattr(b, f)
        assert (va is None) == (vb is None)
        if va is not None:
            assert np.asarray(va).tobytes() == np.asarray(vb).tobytes()
    for k, v in a.info.items():
        if isinstance(v, float):
            assert v == b.info[k] or (np.isnan(v) and np.isnan(b.info[k])), k


def test_zero_rows_rejected_before_the_n_by_n_matrix(monkeypatch):
    import importlib

    gram_module = importlib.import_module("reference.gram")

    calls = []
    real = gram_module.kernel_matrix
    monkeypatch.setattr(gram_module, "kernel_matrix", lambda A, B, *a, **k: calls.append(A.shape[0]) or real(A, B, *a, **k))
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="X has 2 zero rows"):
        ref.gram(X, np.array([1, -1, 1]))
    assert calls == []  # nothing was built
    with pytest.raises(ValueError, match="K\\(x_i, x_i\\) <= 0 for 2 point"):
        ref.gram(X, np.array([1, -1, 1]), "polynomial", c=0.0)
    assert max(calls) == 1  # only the 1 x 1 diagonal entries


def test_drop_zero_rows():
    from reference.data import drop_zero_rows

    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, -2.0]])
    Xd, yd, kept = drop_zero_rows(X, [1, -1, 1, -1])
    assert kept.tolist() == [1, 3] and Xd.tolist() == [[1.0, 0.0], [0.0, -2.0]] and yd.tolist() == [-1, -1]
    with pytest.raises(ValueError, match="every row of X is zero"):
        drop_zero_rows(np.zeros((2, 2)), [1, -1])
    with pytest.raises(ValueError, match="callable"):
        ref.gram(GOOD_X, GOOD_Y, lambda A, B: A @ B.T, sigma=1.0)


@pytest.mark.parametrize(
    "call, match",
    [
        # RP14 perceptrons
        (lambda: ref.perceptron(_X, _Y, rule="bogus"), r"^rule must be one of \('cyclic', 'most_violated'\), got 'bogus'"),
        (lambda: ref.perceptron(_X, _Y, max_iter=-1), r"^max_iter must be an integer >= 0"),
        (lambda: ref.perceptron(_X, _Y, trace="yes"), r"^trace must be True or False"),
        (lambda: ref.perceptron(_X, _Y, rho=-1.0), r"^rho must lie in .*; the augmentation \(bias\) coordinate"),
        (lambda: ref.normalized_perceptron(_X, _Y, max_iter=2.5), r"^max_iter must be an integer >= 0"),
        (lambda: ref.normalized_perceptron(_X, _Y, normalize="yes"), r"^normalize must be True or False"),
        (lambda: ref.normalized_perceptron(_X, _Y, trace=1), r"^trace must be True or False"),
        (lambda: ref.nkp(_G, max_iter=-1), r"^max_iter must be an integer >= 0"),
        (lambda: ref.nkp(_G, trace="yes"), r"^trace must be True or False"),
        # RP14 smoothed and von Neumann
        (lambda: ref.snkp(_G, max_iter=-1), r"^max_iter must be an integer >= 0"),
        (lambda: ref.snkp(_G, trace="yes"), r"^trace must be True or False"),
        (lambda: ref.snkpvn(_G, _Q, 0.1, max_iter=-1), r"^max_iter must be an integer >= 0"),
        (lambda: ref.snkpvn(_G, _Q, 0.1, trace="yes"), r"^trace must be True or False"),
        (lambda: ref.snkpvn(_G, _Q, 0.0), r"^delta must lie in \(0, inf\), got 0.0; SNKPVN's accuracy delta must be positive"),
        (lambda: ref.snkpvn(_G, [0.75, 0.5], 0.1), r"^q must lie in the simplex"),
        (lambda: ref.snkpvn(_G, [1.0], 0.1), r"^q must be a vector of length 2"),
        (lambda: ref.isnkpvn(_G, max_iter=-1), r"^max_iter must be an integer >= 0"),
        (lambda: ref.isnkpvn(_G, trace="yes"), r"^trace must be True or False"),
        (lambda: ref.isnkpvn(_G, gamma=1.0), r"^gamma must lie in \(1, inf\), got 1.0; ISNKPVN shrinks delta_t by gamma > 1"),
        (lambda: ref.isnkpvn(_G, epsilon=0.0), r"^epsilon must lie in \(0, inf\), got 0.0; the target accuracy must be positive"),
        (lambda: ref.nvn(_G, 0.0), r"^epsilon must lie in \(0, 1\], got 0.0; NVN's accuracy satisfies 0 < epsilon <= 1"),
        (lambda: ref.nvn(_G, 1.5), r"^epsilon must lie in \(0, 1\]"),
        (lambda: ref.nvn(_G, 0.1, max_iter=-1), r"^max_iter must be an integer >= 0"),
        (lambda: ref.nvn(_G, 0.1, trace="yes"), r"^trace must be True or False"),
        # PT11
        (lambda: ref.pdm(_X, _Y, 0.0), r"^epsilon must lie in \(0, 1\], got 0.0; the accuracy of PDM, e.g. epsilon=0.01"),
        (lambda: ref.pdm(_X, _Y, 1.5), r"^epsilon must lie in \(0, 1\], got 1.5; the accuracy of PDM"),
        (lambda: ref.pdm_succ(_X, _Y, 1.5), r"^epsilon must lie in \(0, 1\], got 1.5; the target accuracy, e.g. epsilon=0.01"),
        (lambda: ref.pdm_succ(_X, _Y, 0.1, 1.0), r"^eta must lie in \(1, inf\), got 1.0; the ratio of successive accuracies"),
        (lambda: ref.pfm(_X, _Y, -0.5), r"^beta must lie in \[0, inf\), got -0.5; beta = \(1 - eps\) gamma_d, e.g. beta=0.1"),
        (lambda: ref.pdm(_X, _Y, 0.1, rho=-1.0), r"^rho must lie in \(0, inf\), got -1.0; pass rho=1.0, or rho=None"),
        (lambda: ref.pdm(_X, _Y, 0.1, Delta=0.0), r"^Delta must lie in \(0, inf\), got 0.0; pass e.g. Delta=1.0, or Delta=None"),
        (lambda: ref.pdm(_X, _Y, 0.1, max_iter=-1), r"^max_iter must be an integer >= 0"),
        (lambda: ref.pfm(_X, _Y, 0.1, max_epochs=-1), r"^max_epochs must be an integer >= 0"),
        (lambda: ref.pdm_succ(_X, _Y, 0.1, max_epochs=1.5), r"^max_epochs must be an integer >= 0"),
        (lambda: ref.pdm(_X, _Y, 0.1, seed=-1), r"^seed must be an integer >= 0"),
        (lambda: ref.pdm(_X, _Y, 0.1, active_sets="yes"), r"^active_sets must be True or False"),
        (lambda: ref.pdm(_X, _Y, 0.1, multiple_updates=1), r"^multiple_updates must be True or False"),
        (lambda: ref.pfm(_X, _Y, 0.1, trace=None), r"^trace must be True or False"),
        (lambda: ref.pdm(_X, _Y, 0.1, progress=3), r"^progress must be a callable progress\(state\) or None"),
        # the patterns helper
        (lambda: ref.dynamic_margin.patterns(_X, _Y, rho=-1.0), r"^rho must lie in .*pass rho=1.0, or rho=None"),
        (lambda: ref.dynamic_margin.patterns(_X, _Y, Delta=-1.0), r"^Delta must lie in .*Delta=None for the original space"),
        (lambda: ref.dynamic_margin.patterns([[0.0, 0.0], [1.0, 1.0]], _Y, rho=None), r"zero"),
    ],
)
def test_bad_arguments_name_the_argument_and_the_fix(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_boundary_arguments_are_accepted():
    # epsilon = 1 (PDM, PDM-succ, NVN), beta = 0 (PFM): the closed ends of their intervals
    assert ref.pdm(_X, _Y, 1.0).status == ref.SEPARATOR
    assert ref.pdm_succ(_X, _Y, 1.0).info["eps_schedule"] == (1.0,)
    assert ref.pfm(_X, _Y, 0.0).status == ref.SEPARATOR
    assert ref.nvn(_G, 1.0).status in (ref.SEPARATOR, ref.CERTIFICATE)


@pytest.mark.parametrize(
    "run",
    [
        lambda **kw: ref.perceptron(_X, _Y, **kw),
        lambda **kw: ref.normalized_perceptron(_X, _Y, **kw),
        lambda **kw: ref.nkp(_G, **kw),
        lambda **kw: ref.snkp(_G, **kw),
        lambda **kw: ref.snkpvn(_G, _Q, 0.1, **kw),
        lambda **kw: ref.nvn(_G, 0.1, **kw),
        lambda **kw: ref.pdm(_X, _Y, 0.1, **kw),
        lambda **kw: ref.pfm(_X, _Y, 0.1, **kw),
        lambda **kw: ref.pdm_succ(_X, _Y, 0.1, **kw),
    ],
)
def test_trace_is_off_by_default_and_has_one_state_per_step(run):
    res = run()
    assert res.trace is None
    res = run(trace=True)
    assert res.trace is not None and len(res.trace) >= res.iterations + 1 >= 1
    if res.algorithm not in ("pdm", "pfm", "pdm_succ"):  # RP14: one state per iteration k
        assert [s.k for s in res.trace] == list(range(res.iterations + 1))


def test_drive_result_fields():
    res = ref.nvn(np.array([[1.0, -1.0], [-1.0, 1.0]]), 0.5)  # x and -x: ||1_2/2||_G = 0
    assert res.status == ref.CERTIFICATE and res.precision == "float64" and res.iterations == 0
    assert res.p.tolist() == [0.5, 0.5] and res.alpha is None
    assert res.message == "certificate verified in float64"
    res = ref.nkp(_G)
    assert res.alpha is not None and res.p is None and res.w is None


@pytest.mark.parametrize("algo", ["perceptron", "normalized_perceptron"])
def test_perceptrons_at_the_edge_of_overflow(algo):
    # z_1 = (1.5 2^1023, 1.5 2^1023): the run is on z_1 2^-1024 = (0.75, 0.75) (largest entry in
    # [1/2, 1)), w_1 = (0.75, 0.75) (Alg. 1: w_0 + z_1; Alg. 2: the average of one point).
    # On the data as given, y <w_1, x_1> = 2 * 1.125 * 2^1023 overflows: the separator is
    # verified on the exactly scaled points, where it holds.
    X, y = np.array([[1.5 * 2.0**1023, 1.5 * 2.0**1023]]), np.array([1])
    kw = {"normalize": False} if algo == "normalized_perceptron" else {}
    res = getattr(ref, algo)(X, y, **kw)
    assert res.status == ref.SEPARATOR and res.iterations == 1
    assert res.w.tolist() == [0.75, 0.75]
    assert res.info["scale"] == "2^-1024"
    assert verify_exact(res, X, y) == ""
    res = getattr(ref, algo)(np.array([[3.0, 3.0]]), y, **kw)  # ordinary scale: no factor recorded
    assert res.w.tolist() == [3.0, 3.0] and "scale" not in res.info


@pytest.mark.parametrize("algo", ["perceptron", "normalized_perceptron"])
def test_perceptrons_at_the_edge_of_underflow(algo):
    # x = 2^-1070: margins of the data as given lose all bits (2^-1070 * 0.5 is below the
    # subnormal allowance); the scaled run (x 2^1069 = 1/2) verifies on the exact scaling.
    X, y = np.array([[2.0**-1070]]), np.array([1])
    kw = {"normalize": False} if algo == "normalized_perceptron" else {}
    res = getattr(ref, algo)(X, y, max_iter=5, **kw)
    assert res.status == ref.SEPARATOR and res.iterations == 1 and res.w.tolist() == [0.5]
    assert res.info["scale"] == "2^1069"


def test_pt11_default_rho_is_one():
    # pfm with beta = 0 on x_1 = (2): y_1 = (2, rho) = (2, 1); one update, a = y_1.
    for res in (ref.pfm([[2.0]], [1], 0.0), ref.pdm([[2.0]], [1], 1.0), ref.pdm_succ([[2.0]], [1], 1.0)):
        assert res.w.tolist() == [2.0, 1.0] and res.info["rho"] == 1.0 and res.info["Delta"] is None


@pytest.mark.parametrize("algo", ["pdm", "pfm", "pdm_succ"])
def test_progress_is_called_once_per_step(algo):
    seen = []
    res = getattr(ref, algo)(_X, _Y, 0.1, trace=True, progress=seen.append)
    assert len(seen) == len(res.trace) - 1 >= 1
    assert all(a is b for a, b in zip(seen, res.trace[1:]))


@pytest.mark.parametrize("kw", [dict(rho=0.5, Delta=0.5), dict(rho=0.5, Delta=None), dict(rho=None, Delta=0.5)])
@pytest.mark.parametrize("algo, arg", [("pdm", 0.1), ("pfm", 0.02), ("pdm_succ", 0.05)])
@pytest.mark.parametrize("k", [100, -200])
def test_pt11_extreme_scale_runs_the_same_decisions(kw, algo, arg, k):
    f = getattr(ref, algo)
    base = f(_XS, _YS, arg, max_iter=5000, **kw)
    c = 2.0**k
    big = {key: (None if v is None else v * c) for key, v in kw.items()}
    scaled_arg = arg * c if algo == "pfm" else arg  # beta is a margin: it scales with the data
    res = f(_XS * c, _YS, scaled_arg, max_iter=5000, **big)
    assert base.status == ref.SEPARATOR
    assert res.status == base.status and res.iterations == base.iterations
    assert res.w.tolist() == base.w.tolist()  # the iterate on the scaled patterns (= the base ones)
    assert res.info["scale"] == f"2^{-k}" and "scale" not in base.info
    assert res.info["rho"] == big["rho"] and res.info["Delta"] == big["Delta"]
    assert verify_exact(res, _XS * c, _YS) == ""


@pytest.mark.parametrize("name", sorted(_ENGINE_CALLS))
def test_fast_engine_with_precision_is_refused_before_anything_runs(name):
    """engine="fast" is float64 only (reference.engines.check_engine's contract): every public algorithm
    refuses precision= with it, naming the fix, whether or not numba is installed (check_engine(engine,
    None) or check_engine(engine) in a wrapper would let the compiled engine run at float64)."""
    with pytest.raises(ValueError, match=r"^engine='fast' runs in float64 only; precision= is the textbook engine's "
                                         r"\(pass engine='textbook' with precision=\.\.\., or drop precision\)$"):
        _ENGINE_CALLS[name](engine="fast", precision=30)
    assert _ENGINE_CALLS[name](precision=30).status == "separator"  # the textbook engine takes it


@pytest.mark.parametrize("engine", ["textbook", "fast"])
@pytest.mark.parametrize(
    "call, budget",
    [
        (lambda e: reference.snkp(_G_BOUNDARY, engine=e), 10_000),
        (lambda e: reference.nkp(_G_BOUNDARY, engine=e), 100_000),
    ],
    ids=["snkp", "nkp"],
)
def test_default_budget_without_a_finite_bound_is_the_fallback(call, budget, engine):
    """G of (e1, -e1, e2): rho_K = 0, no finite bound: max_iter=None falls back to
    reference.budgets.FALLBACK (10_000 for SNKP, 100_000 for NKP), in both engines; the run stops
    exactly there and says how far it got and why no budget was sized.  (Main before sized budgets: the same
    10_000 by the signatures' defaults, and the bare "budget exhausted" message.)"""
    if engine == "fast":
        pytest.importorskip("numba")
    r = call(engine)
    assert (r.status, r.iterations) == ("max_iter", budget)
    assert r.message.startswith(f"budget exhausted after {budget} iterations; ")
    assert "no iteration bound: G is not certified separable" in r.message and "min_i (G alpha)_i / ||alpha||_G = " in r.message
    assert r.info["max_iter"] == budget == reference.budgets.FALLBACK[r.algorithm]


@needs_numba
@pytest.mark.parametrize(
    "kernel_name, lie, run, claim",
    [
        ("nvn", lambda *a: (3, E1.copy(), 1, 0), lambda: reference.nvn(G_OPPOSITE, 0.1, engine="fast"), "separator"),
        ("nvn", lambda *a: (3, E1.copy(), 2, 0), lambda: reference.nvn(G_OPPOSITE, 0.1, engine="fast"), "certificate"),
        ("smoothed", _lying_smoothed(1)[0], lambda: reference.snkp(G_OPPOSITE, engine="fast"), "separator"),
        ("smoothed", _lying_smoothed(1)[0], lambda: reference.snkpvn(G_OPPOSITE, [0.5, 0.5], 0.1, engine="fast"), "separator"),
        ("smoothed", _lying_smoothed(2)[0], lambda: reference.snkpvn(G_OPPOSITE, [0.5, 0.5], 0.1, engine="fast"), "certificate"),
        ("nkp", lambda *a: (3, E1.copy(), True, 0), lambda: reference.nkp(G_OPPOSITE, engine="fast"), "separator"),
    ],
)
def test_every_lying_gram_kernel_is_downgraded(monkeypatch, kernel_name, lie, run, claim):
    """The kernel claims e_1 (a separator: G e_1 = (1, -1) is not > 0; a certificate: ||e_1||_G = 1
    is not <= 0.1) after 3 iterations: the Result is max_iter after 3 iterations, with the reason."""
    monkeypatch.setattr(rp14_kernels, kernel_name, lie)
    r = run()
    assert (r.status, r.iterations) == (reference.MAX_ITER, 3)
    assert r.message.startswith(f"{claim} claimed but not verified: ") and len(r.message) > len(f"{claim} claimed but not verified: ")
    assert r.alpha is None or claim != "separator" or r.algorithm != "nvn"


@needs_numba
@pytest.mark.parametrize("name", ["perceptron", "normalized_perceptron"])
@pytest.mark.parametrize("rho", [-1.0, float("nan"), float("inf")])
def test_fast_primal_algorithms_refuse_a_bad_rho(name, rho):
    X, y = np.array([[1.0, 2.0], [-1.0, -1.0]]), np.array([1, -1])
    with pytest.raises(ValueError, match="rho"):
        getattr(reference, name)(X, y, rho=rho, engine="fast")


@needs_numba
@pytest.mark.parametrize("name", ["pdm", "pfm"])
def test_pt11_fast_takes_an_exact_accuracy(name):
    """epsilon may be given exactly (a Fraction, as every real argument): the fast engine runs on
    its float64 value and returns a verified separator, the one the textbook engine returns."""
    fast = getattr(reference, name)(X3, Y3, Fraction(1, 10), engine="fast")
    slow = getattr(reference, name)(X3, Y3, 0.1)
    assert fast.status == slow.status == reference.SEPARATOR and np.array_equal(fast.w, slow.w)


def test_gaussian_kernel_closed_form_small_sigma():
    """|a - b|^2 = 1, sigma = 1/2: K = exp(-1 / (2 / 4)) = exp(-2); sigma below 1 is allowed."""
    K = reference.kernel_matrix(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]]), np.array([[0.0, 0.0], [0.0, 1.0]]), "gaussian", sigma=0.5)
    assert K.shape == (3, 2)
    np.testing.assert_allclose(K, [[1.0, np.exp(-1 / 0.5)], [np.exp(-1 / 0.5), np.exp(-2 / 0.5)], [1.0, np.exp(-1 / 0.5)]], rtol=4e-16, atol=0)


@needs_numba
@pytest.mark.parametrize("fn, arg", [(reference.pdm, 1.0), (reference.pfm, 0.0)], ids=["pdm", "pfm"])
def test_pt11_margin_exactly_at_the_allowance_is_the_mistake(fn, arg):
    """y_1 = (1, 1), y_2 = (1 + 18u, -(1 - 18u)), rho = None (K = 2 coordinates): after a = y_1
    (t = 1) the run converges (a.y_2 = 36u > 0 = theta), and a.y_2 = 36u equals the verifier's
    allowance (K + 16) u |y_2|.|a| = 18u * 2 exactly (the (2K + 4) 2^-1074 term is absorbed): not
    above it, so the claim is refused and y_2 is the pattern to update with (`not margin > slack`,
    as the textbook's _first_unverified).  Reading `margin < slack` finds no pattern at all."""
    from reference.result import pattern_allowance

    A, B = 1 + 18 * ULP, -(1 - 18 * ULP)
    X, y = np.array([[1.0, 1.0], [A, B]]), np.array([1, 1])
    assert Fraction(A) + Fraction(B) == 36 * Fraction(ULP) and Fraction(abs(A)) + Fraction(abs(B)) == 2  # exact
    margins, slack = pattern_allowance(np.array([A, B]), np.array([0, 1]), np.array([0, 2]), np.ones(1), None, None, np.ones(2), 2)
    assert margins[0] == slack[0] == 36 * ULP  # the instance sits exactly at the allowance
    a, b = _both(fn, X, y, arg, rho=None)
    _pt11_same(a, b)
    assert b.info["t_c"] == (1, 2)  # refused at t = 1, then one update with y_2
    np.testing.assert_array_equal(b.w, [1 + A, 1 + B])
    assert b.status == reference.SEPARATOR and reference.verify_exact(b, X, y) == ""


@needs_numba
def test_pt11_first_unverified_pattern_counts_the_extended_coordinates():
    """x_0 = 0 in the extended space (Delta = 2^-20, no bias): y_0 = [0, Delta e_0] has, after its
    update, a.y_0 = Delta^2 = 2^-40, far above its allowance -- but 0 without the extended
    coordinates.  The refused claim (a.y_2 = 2^-52 after a = y_0 + y_1, x_1 = (1, 0, 1),
    x_2 = (-(1 - u), 5, 1)) is y_2's, the pattern the textbook updates with: then a verifies
    (t = 3).  Choosing y_0 instead adds Delta e_0 again and again: the same refusal until the
    budget."""
    X, y = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [-(1 - ULP), 5.0, 1.0]]), np.array([1, 1, 1])
    D = 2.0**-20
    a, b = _both(reference.pfm, X, y, 0.0, rho=None, Delta=D, max_iter=100)
    _pt11_same(a, b)
    assert b.info["t_c"] == (2, 3)
    np.testing.assert_array_equal(b.w, [ULP, 5.0, 2.0, D, D, D])  # y_0 + y_1 + y_2, exactly
    assert b.status == reference.SEPARATOR and reference.verify_exact(b, X, y) == ""


@needs_numba
def test_pt11_refused_convergence_beyond_2_53_keeps_t_exact():
    """x = (1, 0), (0, 2^-54), (1 + 4u, -1), labels +1, no bias, PDM(1/2) with multiple updates: y_2
    is updated about 2^54 times at once, and the run converges at t = 2^54 + 3 with a = (1, 1),
    where a.y_3 = 4u is within round-off: refused, one update with y_3, then a verified separator.
    t_c keeps both convergences as integers, as the textbook's Python ints (2^54 + 3 is no double:
    held as a float64 it reads 2^54 + 4)."""
    X, y = np.array([[1.0, 0.0], [0.0, 2.0**-54], [1 + 4 * ULP, -1.0]]), np.array([1, 1, 1])
    a, b = _both(reference.pdm, X, y, 0.5, rho=None, multiple_updates=True, max_iter=2**62)
    _pt11_same(a, b)
    t1 = b.info["t_c"][0]
    assert len(b.info["t_c"]) == 2 and t1 == 2**54 + 3 and float(t1) != t1  # the instance does what it is built for
    assert all(type(t) is int for t in b.info["t_c"])
    assert b.status == reference.SEPARATOR and reference.verify_exact(b, X, y) == ""


@needs_numba
@pytest.mark.parametrize("fn, arg", [(reference.pdm, 1.0), (reference.pfm, 0.0)], ids=["pdm", "pfm"])
def test_pt11_extended_coordinate_that_underflows_stays_zero(fn, arg):
    """X at 2^1000 and Delta = 2^-1074 (no bias): the run is on the patterns times 2^-1002, where
    Delta underflows to 0 -- extended coordinates that are exactly 0.  Every update (and the one
    after the refused convergence at t = 3) adds Delta l_k = 0 to them, as the textbook does: w's
    extended part stays 0, bit for bit the textbook's (not 1 for a Delta read as `Delta or 1`)."""
    X, y = np.array([[-(1 + 2 * ULP), 0.5], [-3.0, -1.0]]) * 2.0**1000, np.array([1, -1])
    a, b = _both(fn, X, y, arg, rho=None, Delta=5e-324)
    assert b.info["scale"] == "2^-1002" and 5e-324 * 2.0**-1002 == 0.0  # the instance does what it is built for
    _pt11_same(a, b)
    assert b.info["t_c"] == (3, 4)  # a refused convergence, then the unverified update
    np.testing.assert_array_equal(b.w[2:], [0.0, 0.0])
    assert b.status == reference.SEPARATOR and reference.verify_exact(b, X, y) == ""


@needs_numba
@pytest.mark.parametrize("fn, arg", [(reference.pdm, 1.0), (reference.pfm, 0.0)], ids=["pdm", "pfm"])
def test_pt11_active_sets_budget_after_a_refusal_counts_epochs(fn, arg):
    """X_TINY of tests/reference/fast/test_resume.py (y_1 = (1, 0, 1), y_2 = (-(1 - u), 5, 1) with rho = 1)
    with active sets and max_epochs = 3: the convergence at t = 1 is refused after 2 epochs but
    more passes (the passes over the active sets count as passes, not epochs); the budget of 3
    epochs is not exhausted, so both engines update with y_2 and verify a = (u, 5, 2) at t = 2."""
    X, y = np.array([[1.0, 0.0], [-(1.0 - ULP), 5.0]]), np.array([1, 1])
    a, b = _both(fn, X, y, arg, active_sets=True, max_epochs=3)
    _pt11_same(a, b)
    assert b.info["passes"] > b.info["epochs"] == 3 and b.info["t_c"] == (1, 2)
    assert (b.status, b.iterations) == (reference.SEPARATOR, 2)
    np.testing.assert_array_equal(b.w, [ULP, 5.0, 2.0])


@needs_numba
@pytest.mark.parametrize(
    "fn, kw",
    [(reference.perceptron, {}), (reference.normalized_perceptron, {}), (reference.normalized_perceptron, dict(normalize=False))],
    ids=["perceptron", "normalized", "normalized-raw"],
)
def test_fast_primal_algorithms_take_zero_rows_with_a_bias(fn, kw):
    """Zero rows are refused only without a bias (reference.prepare.check_primal_data: a zero
    point is never strictly separated, [0, rho] is): with rho = 1, X = (0, 0), (-1, -1), labels
    (1, -1), both engines separate, alike, and the separator holds exactly."""
    X, y = np.array([[0.0, 0.0], [-1.0, -1.0]]), np.array([1, -1])
    a, b = _both(fn, X, y, rho=1.0, **kw)
    assert (b.status, b.iterations, b.message) == (a.status, a.iterations, a.message)
    np.testing.assert_array_equal(b.w, a.w)
    assert b.status == reference.SEPARATOR and reference.verify_exact(b, X, y, rho=1.0) == ""


@needs_numba
@pytest.mark.parametrize("name", ["perceptron", "normalized_perceptron"])
def test_fast_primal_algorithms_refuse_a_non_real_rho_by_name(name):
    """rho = "a" is no real number: a ValueError naming rho and the fix (e.g. rho=1.0, or rho=None),
    as the textbook engine raises -- not numpy's "could not convert string to float"."""
    X, y = np.array([[1.0, 2.0], [-1.0, -1.0]]), np.array([1, -1])
    for engine in ("textbook", "fast"):
        with pytest.raises(ValueError, match=r"^rho must be a real number, got 'a'; .*rho=1\.0"):
            getattr(reference, name)(X, y, rho="a", engine=engine)


@pytest.mark.parametrize("epsilon", [1e-6, 1e-7, 2e-8])
def test_tiny_epsilon_certificates_hold_exactly(epsilon):
    """Below ~1e-7 the float value of ||p||_G is mostly round-off; a certificate must hold for the
    exact rationals G and p (the old float test returned p with exact ||p||_G > epsilon).  Below
    the round-off floor (~1.05e-8 for a normalized G) the accuracy is refused up front
    (tests/reference/test_budgets.py)."""
    for seed in range(4):
        G = _infeasible_gram(seed)
        for res in (ref.nvn(G, epsilon, max_iter=3000), ref.isnkpvn(G, 2.0, epsilon, max_iter=3000),
                    ref.snkpvn(G, np.full(G.shape[0], 1 / G.shape[0]), epsilon, max_iter=3000)):
            assert verify_exact(res, G, accuracy=epsilon) == "", (res.algorithm, seed, res.message)


def test_certificate_verifier_bounds_the_roundoff_of_the_quadratic_form():
    """p^T G p computed in float64 can be far below the exact value; the verifier must use the
    a-priori bound (or the exact value), not the computed one."""
    from reference.arithmetic import Arithmetic, g_norm, g_norm_upper

    F64 = Arithmetic()
    G = ref.gram(np.array([[0.875], [-0.4375]]), np.array([1, 1]))  # G_12 = -(1 - 2^-53)
    p = np.array([0.5, 0.5])
    exact = math.sqrt(exact_quadratic_form(G, p))  # ||p||_G = 2^-27 exactly (p^T G p = 2^-54)
    assert exact == 2.0**-27
    assert float(g_norm_upper(G, p, F64)) >= exact
    rng = np.random.default_rng(0)  # on random p and G the bound is never below the exact value
    for _ in range(50):
        G = _infeasible_gram(int(rng.integers(100)))
        q = rng.dirichlet(np.ones(G.shape[0]))
        assert g_norm_upper(G, q, F64) ** 2 >= exact_quadratic_form(G, q) >= 0
    G = ref.gram(np.array([[0.875], [-0.4375]]), np.array([1, 1]))
    assert ref.result.verify_certificate(G, p, 2.0**-27, F64, strict=True) != ""
    assert ref.result.verify_certificate(G, p, 2.0**-27 * (1 + 2**-40), F64, strict=True) == ""


@pytest.mark.parametrize("digits", [1, 3, 10, 15])
def test_precision_below_float64_is_refused(digits):
    G = _infeasible_gram(0)
    with pytest.raises(ValueError, match=r"precision must be None \(float64\) or an integer number of decimal digits from 16"):
        ref.nvn(G, 1e-3, precision=digits)
    with pytest.raises(ValueError, match="precision"):
        ref.margin(G, precision=digits)


@pytest.mark.parametrize("scale", [1e-300, 1e-160, 1e160, 1e200, 1e300])
def test_primal_algorithms_at_extreme_scales(scale):
    X = np.array([[1.0, 2.0], [2.0, 1.5], [-1.0, -1.0], [-2.0, 0.5]]) * scale
    y = np.array([1, 1, -1, -1])
    for multiple in (False, True):
        for res in (ref.pfm(X, y, 0.01 * scale, multiple_updates=multiple, rho=scale),
                    ref.pdm(X, y, 0.1, multiple_updates=multiple, rho=scale),
                    ref.pdm_succ(X, y, 0.1, multiple_updates=multiple, rho=scale)):
            assert res.status == ref.SEPARATOR, res.message
            assert verify_exact(res, X, y) == ""
    for res in (ref.perceptron(X, y), ref.normalized_perceptron(X, y), ref.normalized_perceptron(X, y, normalize=False)):
        assert res.status == ref.SEPARATOR and verify_exact(res, X, y) == ""


def test_soak_reports_a_broken_algorithm():
    from theorems.soak import soak

    def broken_nvn(G, epsilon, **kw):  # claims the first point is a certificate
        p = np.zeros(G.shape[0])
        p[0] = 1.0
        return ref.Result("nvn", ref.CERTIFICATE, 0, p=p, info={"epsilon": epsilon})

    def crashing_nkp(G, **kw):
        raise RuntimeError("boom")

    def slow_snkp(G, **kw):
        time.sleep(5)

    report = soak(runs=3, seed=0, algorithms={"nvn": broken_nvn, "nkp": crashing_nkp, "snkp": slow_snkp}, hang_seconds=0.2)
    assert report.tallies["nvn"].false_claims == 3
    assert report.tallies["nkp"].crashes == 3
    assert report.tallies["snkp"].hangs == 3
    assert not report.ok
    assert report.tallies["pdm"].false_claims == 0


@pytest.mark.parametrize("engine", ["textbook", "fast"])
@pytest.mark.parametrize("algorithm", ["perceptron", "normalized_perceptron", "pdm"])
def test_cancelling_csr_duplicates_give_no_false_separator(algorithm, engine):
    if engine == "fast":
        pytest.importorskip("numba")
    X, y = _cancelling_duplicates()
    kw = {"epsilon": 0.1, "rho": None} if algorithm == "pdm" else {}  # no bias: infeasible
    r = getattr(ref, algorithm)(X, y, max_iter=2000, engine=engine, **kw)
    assert r.status != "separator", f"{algorithm} ({engine}): separator at iteration {r.iterations} on exactly infeasible data"


@settings(max_examples=30)
@given(_data(), st.sampled_from([dict(rho=1.0), dict(rho=1.0, Delta=1.0), dict(rho=0.5, Delta=2.0, multiple_updates=True), dict(rho=1.0, active_sets=True)]))
def test_pt11_dense_and_csr_bit_identical(data, kw):
    X, y = data
    for fn, arg in ((ref.pdm, 0.3), (ref.pfm, 0.01), (ref.pdm_succ, 0.1)):
        _same(fn(X, y, arg, max_iter=300, **kw), fn(sp.csr_matrix(X), y, arg, max_iter=300, **kw))


@settings(max_examples=20)
@given(_data())
def test_rp14_dense_and_csr_bit_identical(data):
    X, y = data
    rho = 1.0  # zero rows are allowed with the bias
    S = sp.csr_matrix(X)
    _same(ref.perceptron(X, y, rho=rho, max_iter=200), ref.perceptron(S, y, rho=rho, max_iter=200))
    _same(ref.normalized_perceptron(X, y, rho=rho, max_iter=200), ref.normalized_perceptron(S, y, rho=rho, max_iter=200))
    G, Gs = ref.gram(X, y, rho=rho), ref.gram(S, y, rho=rho)
    assert G.tobytes() == Gs.tobytes()
    assert ref.signed_gram(X, y).tobytes() == ref.signed_gram(S, y).tobytes()
    _same(ref.snkp(G, max_iter=200), ref.snkp(Gs, max_iter=200))
    _same(ref.nvn(G, 1e-2, max_iter=200), ref.nvn(Gs, 1e-2, max_iter=200))


def test_heart_scale_dense_and_csr_bit_identical():
    X, y = _heart()
    D = X.toarray()
    for kw in (dict(rho=1.0), dict(rho=1.0, Delta=1.0, multiple_updates=True)):
        _same(ref.pdm(D, y, 0.1, max_iter=3000, **kw), ref.pdm(X, y, 0.1, max_iter=3000, **kw))
    _same(ref.normalized_perceptron(D, y, max_iter=500), ref.normalized_perceptron(X, y, max_iter=500))
    A, B = ref.margin_from_data(D, y, rho=1.0, Delta=1.0), ref.margin_from_data(X, y, rho=1.0, Delta=1.0)
    assert (A.lower, A.upper) == (B.lower, B.upper)


# -- the one place that chooses the engine ------------------------------------------------------------


def _imports(path):
    """The modules a source file imports (relative imports resolved within reference/)."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "reference." * (node.level == 1) + (node.module or "")
            found.add(base.rstrip("."))
            found.update(f"{base.rstrip('.')}.{a.name}" if node.level else f"{node.module}.{a.name}" for a in node.names)
    return found


def test_only_the_dispatch_imports_the_compiled_engine():
    """No module of reference/ outside reference/fast/ imports reference.fast, not even inside a
    function, but reference.algorithms (the ten public functions); the leaves import neither engine."""
    import pathlib

    root = pathlib.Path(reference.__file__).parent
    importers = {p.stem for p in root.glob("*.py") if any(m == "reference.fast" or m.startswith("reference.fast.") for m in _imports(p))}
    assert importers == {"algorithms"}, importers
    textbook = {"reference.perceptrons", "reference.smoothed", "reference.von_neumann", "reference.dynamic_margin"}
    for leaf in ("engines", "states", "prepare", "status"):
        assert not _imports(root / f"{leaf}.py") & (textbook | {"reference.algorithms"}), leaf
    assert not {m for m in _imports(root / "exact.py") if m.startswith("reference.result")}  # no cycle with result


@pytest.mark.parametrize("name", list(reference.ALGORITHMS))
def test_textbook_functions_take_no_engine_and_the_public_ones_document_it(name):
    """The textbook function cannot be asked for the compiled engine (it would not silently run the
    textbook); the public function is its docstring with the public ``max_iter`` (sized by default),
    ``progress`` and ``engine`` entries in place of the textbook's own, before Returns."""
    import inspect

    from reference import dynamic_margin, perceptrons, smoothed, von_neumann

    module = next(m for m in (perceptrons, smoothed, von_neumann, dynamic_margin) if name in m.__all__)
    textbook, public = getattr(module, name), getattr(reference, name)
    assert "engine" not in inspect.signature(textbook).parameters
    assert inspect.signature(public).parameters["engine"].default == "textbook"
    if textbook.__doc__:  # None under python -OO
        assert "engine :" not in textbook.__doc__
        from reference.algorithms import _drop_parameter

        doc = public.__doc__
        assert doc.count('    engine : {"textbook", "fast"}\n') == 1 and doc.count("    max_iter : int or None, default None\n") == 1
        own = _drop_parameter(textbook.__doc__, "max_iter")  # the public entry replaces it
        i = own.index("\n    Returns\n")
        assert doc.startswith(own[:i]) and doc.endswith(own[i:])
