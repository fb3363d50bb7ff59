"""Kills for survivors of the full mutmut 3.8.1 census of reference.fast.engine (main ee6882a; see
benchmarks/mutation/census_survivors3.md, section reference.fast.engine).  Each kill was checked by
applying the mutant to the source by hand: the test fails on the mutant and passes on the original."""
from fractions import Fraction

import numpy as np
import pytest

pytest.importorskip("numba")

import reference  # noqa: E402
from reference.fast import rp14_kernels  # noqa: E402

# Two points at 180 degrees: G e_1 = (1, -1) is not > 0, ||e_1||_G = 1, and p = (1/2, 1/2) has
# ||p||_G = 0 exactly (no separator exists).
G_OPPOSITE = np.array([[1.0, -1.0], [-1.0, 1.0]])
E1 = np.array([1.0, 0.0])


# =============================================================================================
# Every claim of a compiled kernel is re-verified: a lying kernel ends in max_iter with the reason
# =============================================================================================


def _lying_smoothed(code):
    """SNKP/SNKPVN kernel that claims (code 1: separator alpha = e_1; code 2: certificate p = e_1)
    after min(3, budget) iterations, without looking at G."""
    calls = []

    def kernel(*a):
        calls.append(a[9])
        return min(3, a[9]), E1.copy(), E1.copy(), 0.5, code, 0

    return kernel, calls


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


@pytest.mark.parametrize("code", [1, 2])
def test_isnkpvn_stops_at_an_unverified_inner_claim(monkeypatch, code):
    """An SNKPVN call that ends in max_iter (here: its claim does not verify, and the kernel, asked
    to go on from that state, claims the same again) ends ISNKPVN at once (its docstring: "a call
    that exhausts it ends the run with max_iter"): one outer loop, its 3 iterations, max_iter --
    and the message names the refused inner claim, not an exhausted budget (7 of the 10
    iterations are left)."""
    kernel, calls = _lying_smoothed(code)
    monkeypatch.setattr(rp14_kernels, "smoothed", kernel)
    r = reference.isnkpvn(np.eye(2), 2.0, 1e-3, max_iter=10, engine="fast")  # G e_1 = e_1 is not > 0; ||e_1||_G = 1
    assert calls == [10, 10], calls  # the first call, and the one asked to resume after the refusal
    assert r.info["T"] == 1 and r.info["inner_iterations"] == [3]
    assert (r.status, r.iterations) == (reference.MAX_ITER, 3)
    claim = {1: "separator", 2: "certificate"}[code]
    assert r.message.startswith(f"SNKPVN call t = 0: {claim} claimed but not verified: "), r.message


# =============================================================================================
# A run that ends without a claim says so: "budget exhausted after k iterations"
# =============================================================================================


@pytest.mark.parametrize("max_iter", [0, 1, 5])
def test_nkp_without_a_separator_exhausts_its_budget(max_iter):
    """G_OPPOSITE has no separator (alpha^T G alpha = (a_1 - a_2)^2 while G alpha = (a_1 - a_2) (1, -1)
    is never > 0): NKP stops at its budget and claims nothing."""
    r = reference.nkp(G_OPPOSITE, engine="fast", max_iter=max_iter)
    assert (r.status, r.iterations, r.message) == (reference.MAX_ITER, max_iter, f"budget exhausted after {max_iter} iterations")


# =============================================================================================
# ISNKPVN's trace holds each SNKPVN call's own trace
# =============================================================================================


def test_isnkpvn_trace_holds_the_inner_traces():
    """trace=True: per outer loop an OuterRecord whose inner Result carries its own trace, one state
    per iteration plus the start (as the textbook engine's)."""
    G = np.array([[1.0, 0.5], [0.5, 1.0]])  # two points at 60 degrees: separable
    for engine in ("textbook", "fast"):
        r = reference.isnkpvn(G, 2.0, 1e-3, engine=engine, trace=True)
        assert r.status == reference.SEPARATOR and len(r.trace) == r.info["T"] >= 1, engine
        for rec in r.trace:
            assert rec.inner.trace is not None and len(rec.inner.trace) == rec.inner.iterations + 1, engine


# =============================================================================================
# The primal algorithms validate rho
# =============================================================================================


@pytest.mark.parametrize("name", ["perceptron", "normalized_perceptron"])
@pytest.mark.parametrize("rho", [-1.0, float("nan"), float("inf")])
def test_fast_primal_algorithms_refuse_a_bad_rho(name, rho):
    X, y = np.array([[1.0, 2.0], [-1.0, -1.0]]), np.array([1, -1])
    with pytest.raises(ValueError, match="rho"):
        getattr(reference, name)(X, y, rho=rho, engine="fast")


# =============================================================================================
# PT11 (fast engine): exact inputs, zero rows, and the info fields margin / upper_bound
# =============================================================================================

X3, Y3 = np.array([[1.0, 0.5], [2.0, -1.0], [-1.0, -1.0]]), np.array([1, 1, -1])


@pytest.mark.parametrize("name", ["pdm", "pfm"])
def test_pt11_fast_takes_an_exact_accuracy(name):
    """epsilon may be given exactly (a Fraction, as every real argument): the fast engine runs on
    its float64 value and returns a verified separator, the one the textbook engine returns."""
    fast = getattr(reference, name)(X3, Y3, Fraction(1, 10), engine="fast")
    slow = getattr(reference, name)(X3, Y3, 0.1)
    assert fast.status == slow.status == reference.SEPARATOR and np.array_equal(fast.w, slow.w)


def test_pt11_fast_with_only_zero_rows_and_a_bias():
    """X = 0 with rho = 1: the patterns are y_k = l_k [0, 1], all ones here, so ||y_k|| = 1 = R, the
    first update gives a = [0, 1], which separates with margin 1 (as the textbook engine)."""
    for engine in ("textbook", "fast"):
        r = reference.pdm(np.zeros((2, 1)), np.array([1, 1]), 0.1, rho=1.0, engine=engine)
        assert r.status == reference.SEPARATOR and r.w.tolist() == [0.0, 1.0], engine
        assert (r.info["R"], r.info["margin"], r.info["upper_bound"]) == (1.0, 1.0, 1.0), engine


def test_pt11_fast_margin_and_upper_bound_of_a_short_weight_vector():
    """One point x = 1/4 (no bias): the first update gives a_1 = 1/4 and PDM stops (p = 1/16 is not
    <= (1 - eps) ||a_1||^2 / 1); margin = min_k a.y_k / ||a|| = 1/4 and upper_bound = ||a_1|| / 1
    = 1/4 (= gamma_d, exactly); both reported although ||a|| < 1 and t = 1.  At t = 0 (max_iter
    = 0) a = 0: both are None, the keys present."""
    for engine in ("textbook", "fast"):
        r = reference.pdm(np.array([[0.25]]), np.array([1]), 0.1, rho=None, engine=engine)
        assert (r.status, r.iterations) == (reference.SEPARATOR, 1), engine
        assert (r.info["margin"], r.info["upper_bound"]) == (0.25, 0.25), engine
        r0 = reference.pdm(np.array([[0.25]]), np.array([1]), 0.1, rho=None, engine=engine, max_iter=0)
        assert (r0.status, r0.iterations) == (reference.MAX_ITER, 0), engine
        assert r0.info["margin"] is None and r0.info["upper_bound"] is None, engine


# =============================================================================================
# ||p||_G on the factored operator: a quadratic form rounded below 0 is 0, never NaN
# =============================================================================================


def test_norm_p_on_the_factored_operator_is_never_nan():
    """Three unit vectors about 120 degrees apart (exact binary64 values): p_0 = (1/3, 1/3, 1/3) has
    Z^T p_0 ~ 0, and p^T (Z (Z^T p)) rounds to a negative number (about -4e-34).  ||p||_G >= 0
    always: NVN's certificate at k = 0 reports norm_p in [0, epsilon], not sqrt(negative) = NaN."""
    from reference.fast.operator import linear_gram

    X = np.array([[float.fromhex(v) for v in row] for row in [
        ["-0x1.bb6d26ffa7a17p-1", "-0x1.ffed0c23295aep-2"],
        ["0x1.bb6235d789fadp-1", "-0x1.000979d07cbefp-1"],
        ["0x1.5e2503b4d2c3ap-14", "0x1.ffffffe2116c4p-1"],
    ]])  # fmt: skip
    L = linear_gram(X, np.ones(3))
    p0 = np.full(3, 1.0 / 3)
    assert float(p0 @ L.matvec(p0)) < 0  # the instance does what it is here for
    r = reference.nvn(L, 0.5, engine="fast")
    assert (r.status, r.iterations) == (reference.CERTIFICATE, 0)
    assert 0.0 <= r.info["norm_p"] <= 0.5
