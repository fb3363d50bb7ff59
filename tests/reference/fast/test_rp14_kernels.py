"""Tests of reference/fast/test_rp14_kernels.py."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import reference
from reference.arithmetic import g_norm
from reference.exact import verify_exact
from reference.fast import rp14_kernels
from tests.support.fast import FLOAT64, _both, _infeasible, _infeasible_primal, _planted_3, _same, unguarded
from tests.support.numba import needs_numba


UNDER = 2.0**-1074  # the smallest subnormal (reference.arithmetic.UNDERFLOW)


def _below_sqrt(Q: Fraction) -> float:
    """The largest double < sqrt(Q) (Q > 0 rational), decided exactly."""
    x = math.sqrt(float(Q))
    while Fraction(x) ** 2 >= Q:
        x = math.nextafter(x, 0.0)
    while Fraction(math.nextafter(x, math.inf)) ** 2 < Q:
        x = math.nextafter(x, math.inf)
    return x


def test_nvn_counts_its_g_products():
    # NVN: G p_0 once, then one column G e_j per step (plus refreshes): products >= k + 1
    G = _infeasible()
    for eps in (0.5, 0.05, 1e-4):
        r = reference.nvn(G, eps, engine="fast", max_iter=200)
        assert r.info["products"] >= r.iterations + 1
        assert r.info["products"] <= r.iterations + 1 + r.iterations // rp14_kernels.REFRESH_EVERY + r.iterations + 1
        assert r.info["norm_p"] == g_norm(G, r.p)


@pytest.mark.parametrize("max_iter", [1, 2, 3, 7])
def test_isnkpvn_budget_counts_outer_loops_too(max_iter):
    """isnkpvn's max_iter also bounds the number of outer loops (docstring: a call that returns
    at k = 0 still costs a product with G).  With gamma = 1.01 every SNKPVN call on this instance
    returns at k = 0 (||p_0||_G < ||q||_G / 1.01), so without that budget the fast engine ran 33
    outer loops on max_iter = 1 and claimed a certificate the textbook does not reach."""
    G = _infeasible()
    slow, fast = reference.isnkpvn(G, 1.01, 1e-3, max_iter=max_iter), reference.isnkpvn(G, 1.01, 1e-3, max_iter=max_iter, engine="fast")
    assert fast.info["inner_iterations"] == [0] * max_iter  # every call returned at k = 0
    assert fast.info["T"] == max_iter and fast.status == reference.MAX_ITER
    assert (slow.status, slow.iterations, slow.info["T"]) == (fast.status, fast.iterations, fast.info["T"])


@pytest.mark.parametrize("G", [_infeasible(), reference.gram(*_planted_3())], ids=["certificate", "separator"])
def test_isnkpvn_T_and_the_outer_records(G):
    r = reference.isnkpvn(G, 2.0, 1e-3, engine="fast", trace=True)
    T = r.info["T"]
    assert T >= 1 and T == len(r.info["deltas"]) == len(r.info["inner_iterations"]) == len(r.trace)
    assert sum(r.info["inner_iterations"]) == r.iterations
    n = G.shape[0]
    assert np.array_equal(r.trace[0].q, np.full(n, 1.0 / n))  # q_0 := 1_n/n
    for t, rec in enumerate(r.trace):
        assert rec.t == t
        assert rec.delta == r.info["deltas"][t] == g_norm(G, rec.q) / 2.0  # delta_t := ||q_t||_G / gamma
        assert rec.inner.iterations == r.info["inner_iterations"][t]
        assert rec.inner.algorithm == "snkpvn" and rec.inner.info["delta"] == rec.delta
        if t + 1 < T:
            assert np.array_equal(r.trace[t + 1].q, rec.inner.p)  # q_{t+1} := SNKPVN(q_t, delta_t)


def test_isnkpvn_zero_norm_guard_fires_at_equality():
    """[E-A7] the guard is ||q_t||_G^2 <= n u (u = 2^-52 here): at equality q_t is returned.

    G = diag([[1, -1], [-1, 1]], [[1, c], [c, 1]]) with c = -1 + 2^-47 (exact in float64).
    For q = 1/4: G q = (0, 0, 2^-49, 2^-49) exactly, q^T G q = 2^-50 exactly, ||q||_G = 2^-25,
    and ||q||_G^2 = 2^-50 = 4 * 2^-52 = n eps: the guard fires at t = 0, no SNKPVN call."""
    c = -1.0 + 2.0**-47
    G = np.array([[1.0, -1.0, 0.0, 0.0], [-1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, c], [0.0, 0.0, c, 1.0]])
    q = np.full(4, 0.25)
    assert g_norm(G, q) ** 2 == 4 * FLOAT64.eps == 2.0**-50
    for engine in ("textbook", "fast"):
        r = reference.isnkpvn(G, 2.0, 1e-3, engine=engine)
        assert (r.status, r.iterations, r.info["T"]) == (reference.CERTIFICATE, 0, 0), engine
        assert np.array_equal(r.p, q) and verify_exact(r, G) == ""


def test_isnkpvn_halts_only_when_delta_t_is_below_epsilon():
    """[RP14 Alg. 7] halt when delta_t < epsilon (strictly).  z = (1,0), (-1,0), (1,0), (1,0):
    q_0 = 1/4, G q_0 = (1, -1, 1, 1)/2, ||q_0||_G^2 = 1/4, so delta_0 = (1/2)/2 = 1/4 exactly;
    with epsilon = 1/4 the loop goes on after t = 0 (0 is in the hull: a certificate at the end)."""
    Z = np.array([[1.0, 0.0], [-1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    G = Z @ Z.T
    for engine in ("textbook", "fast"):
        r = reference.isnkpvn(G, 2.0, 0.25, engine=engine)
        deltas = [float(d) for d in r.info["deltas"]]
        assert r.status == reference.CERTIFICATE and deltas[0] == 0.25, engine
        assert r.info["T"] >= 2 and deltas[-1] < 0.25 and all(d >= 0.25 for d in deltas[:-1]), engine


def test_nvn_trace_is_the_textbook_states():
    G = _infeasible()
    nvn = unguarded("nvn")  # epsilon = 1e-9, below the round-off floor: no certificate within 20 steps
    slow, fast = nvn(G, 1e-9, max_iter=20, trace=True), nvn(G, 1e-9, max_iter=20, trace=True, engine="fast")
    assert len(fast.trace) == fast.iterations + 1 == len(slow.trace) == 21
    assert fast.trace[0].theta is None and np.array_equal(fast.trace[0].p, np.full(10, 0.1))
    for i, (a, b) in enumerate(zip(slow.trace[1:], fast.trace[1:]), start=1):
        assert b.k == i and isinstance(b.theta, float) and 0.0 <= b.theta <= 1.0
        assert np.isclose(b.theta, float(a.theta), rtol=1e-9)


def test_perceptron_traces():
    X, y = _planted_3()
    for fn in (reference.perceptron, reference.normalized_perceptron):
        slow, fast = fn(X, y, trace=True), fn(X, y, trace=True, engine="fast")
        assert fast.status == reference.SEPARATOR and len(fast.trace) == fast.iterations + 1 == len(slow.trace)
        assert all(s.k == i for i, s in enumerate(fast.trace)) and not fast.trace[0].w.any()  # w_0 := 0
        assert verify_exact(fast, X, y) == ""


def test_normalized_perceptron_budget_message():
    X, y = _infeasible_primal()
    for normalize in (True, False):
        r = reference.normalized_perceptron(X, y, normalize=normalize, max_iter=5, engine="fast")
        assert (r.status, r.iterations, r.message) == (reference.MAX_ITER, 5, "budget exhausted after 5 iterations")


def test_isnkpvn_every_budget_stops_where_the_textbook_stops():
    """max_iter = 0..40 on an infeasible instance: each SNKPVN call gets the budget that remains
    (max_iter - iterations), a call that exhausts it ends the run."""
    G = _infeasible()
    for max_iter in range(0, 41, 3):
        slow = reference.isnkpvn(G, 2.0, 1e-6, max_iter=max_iter)
        fast = reference.isnkpvn(G, 2.0, 1e-6, max_iter=max_iter, engine="fast")
        assert (fast.status, fast.iterations, fast.info["T"]) == (slow.status, slow.iterations, slow.info["T"]), max_iter
        assert fast.info["inner_iterations"] == list(slow.info["inner_iterations"]) and fast.iterations <= max_iter


def test_nkp_trace_is_the_textbook_states():
    X, y = _planted_3()
    G = reference.gram(X, y)
    slow, fast = reference.nkp(G, trace=True), reference.nkp(G, trace=True, engine="fast")
    assert len(fast.trace) == fast.iterations + 1 == len(slow.trace) and fast.iterations >= 2
    assert not fast.trace[0].alpha.any()  # [RP14 Alg. 3] alpha_0 := 0
    assert np.array_equal(fast.trace[1].alpha, np.eye(12)[0])  # theta_0 = 1, j = argmin(0_n) = first index (E-A7)
    for i, (a, b) in enumerate(zip(slow.trace, fast.trace)):
        assert b.k == a.k == i and np.allclose(b.alpha, a.alpha, rtol=1e-12, atol=1e-15)
    assert reference.nkp(G, engine="fast").trace is None


@pytest.mark.parametrize("rho", [None, 1.0, 0.25])
def test_perceptron_rules_and_normalization_follow_the_textbook(rho):
    X, y = _planted_3(30, 3, 4)
    for fn, kws in ((reference.perceptron, [dict(rule="cyclic"), dict(rule="most_violated")]),
                    (reference.normalized_perceptron, [dict(normalize=True), dict(normalize=False)])):  # fmt: skip
        got = []
        for kw in kws:
            slow, fast = fn(X, y, rho=rho, **kw), fn(X, y, rho=rho, engine="fast", **kw)
            assert (fast.status, fast.iterations) == (slow.status, slow.iterations) and fast.status == reference.SEPARATOR, kw
            assert np.allclose(fast.w, slow.w, rtol=1e-12, atol=1e-15) and fast.w.shape == (3 + (rho is not None),)
            assert verify_exact(fast, X, y, rho=rho) == ""
            got.append((fast.iterations, tuple(fast.w)))
        assert got[0] != got[1], fn  # the two rules / normalizations take different steps here
        assert fast.trace is None


def test_nvn_certificate_at_equality_is_accepted():
    """NVN's test is ||p_k||_G <= epsilon (not strict): G = I_4, p_0 = 1/4, ||p_0||_G = 1/2 exactly."""
    for engine in ("textbook", "fast"):
        r = reference.nvn(np.eye(4), 0.5, engine=engine)
        assert (r.status, r.iterations, r.message) == (reference.CERTIFICATE, 0, "certificate verified in float64"), engine
        assert float(r.info["norm_p"]) == 0.5 and verify_exact(r, np.eye(4)) == ""


def test_a_lying_nvn_kernel_is_downgraded(monkeypatch):
    # the kernel claims a certificate (code 2) with p = e_1: ||e_1||_G = 1 > 0.1
    G = _infeasible()
    monkeypatch.setattr(rp14_kernels, "nvn", lambda *a: (4, np.eye(10)[0], 2, 5))
    r = reference.nvn(G, 0.1, engine="fast")
    assert (r.status, r.iterations) == (reference.MAX_ITER, 4) and r.message.startswith("certificate claimed but not verified: ")
    assert r.alpha is None


def test_isnkpvn_unverifiable_guard_certificate_is_refused():
    """The E-A7 guard fires on ||q_0||_G = 2^-25 (the dyadic instance above); the certificate is
    then verified strictly, ||q||_G < epsilon: refused for epsilon = 2^-25 (equality) and 1e-300.
    The run goes on, as the textbook's (SNKPVN(q_0, 2^-26) cannot certify below round-off), until
    the budget runs out, and the message names the refused claim -- in both engines alike."""
    c = -1.0 + 2.0**-47
    G = np.array([[1.0, -1.0, 0.0, 0.0], [-1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, c], [0.0, 0.0, c, 1.0]])
    for eps in (2.0**-25, 1e-300):
        r = unguarded("isnkpvn")(G, 2.0, eps, max_iter=40, engine="fast")  # (below the round-off floor, which
        slow = unguarded("isnkpvn")(G, 2.0, eps, max_iter=40)  # the public function refuses up front)
        assert (r.status, r.iterations) == (reference.MAX_ITER, 40), eps
        assert r.message.startswith("budget exhausted after 40 iterations; the last claim (certificate, iteration 0) was not verified: ||p||_G"), r.message
        assert (slow.status, slow.iterations, slow.message) == (r.status, r.iterations, r.message), eps


def test_cyclic_perceptron_underflow_allowance_is_the_textbooks():
    """A mistake is a margin not above (dim + 16) eps |z_i|.|w| + (2 dim + 4) UNDERFLOW
    (reference.result.separator_allowance); with margins in the subnormal range only the
    second term counts.  z_0 = z_1 = (0, t), z_2 = (1, 0), t = 3 2^-537 (t^2 = 9 UNDERFLOW,
    exact), dim = 2: allowance 8 UNDERFLOW.
    k = 0: every margin is 0, z_0 is the mistake: w_1 = (0, t).  k = 1: the scan starts at z_1,
    margin t^2 = 9 UNDERFLOW > 8 UNDERFLOW: no mistake; z_2 has margin 0: w_2 = (1, t), every
    margin > 0 (9 UNDERFLOW, 9 UNDERFLOW, 1) beyond the allowance: a separator at k = 2.
    An allowance of 9 UNDERFLOW (2 dim + 5) takes z_1 as the mistake instead (separator at k = 3)."""
    t = 3 * 2.0**-537
    assert t * t == 9 * UNDER
    X = np.array([[0.0, t], [0.0, t], [1.0, 0.0]])
    a, b = _both(reference.perceptron, X, np.ones(3, dtype=int), trace=True)
    for r in (a, b):
        assert (r.status, r.iterations) == (reference.SEPARATOR, 2), r.message
        np.testing.assert_array_equal(r.w, [1.0, t])
        np.testing.assert_array_equal(r.trace[1].w, [0.0, t])


@pytest.mark.parametrize("rule", ["cyclic", "most_violated"])
def test_perceptron_budget_message_names_no_claim_the_textbook_did_not_make(rule):
    """x = (1, 0), (-1, 0), y = 1 (no separator): w_0 = 0 has every margin 0, w_1 = (1, 0) has margins
    (1, -1), w_2 = 0 again.  The exit test is every margin > 0 (RP14 Alg. 1), so no iterate is
    claimed and no claim was refused: the budget message is the bare one.  (A compiled exit test
    `>= 0` would claim w_0 and w_2, and the refusal would be named in the message.)"""
    X, y = np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1, 1])
    for max_iter in (0, 1, 2, 3):
        a, b = _both(reference.perceptron, X, y, rule=rule, max_iter=max_iter)
        for r in (a, b):
            assert (r.status, r.iterations, r.message) == (reference.MAX_ITER, max_iter, f"budget exhausted after {max_iter} iterations")
        np.testing.assert_array_equal(b.w, a.w)
        np.testing.assert_array_equal(b.w, [1.0, 0.0] if max_iter % 2 else [0.0, 0.0])


def test_cyclic_perceptron_resumes_its_scan_after_the_last_update():
    """RP14 Alg. 1, cyclic: each scan starts at the point after the last update, also after a refused
    claim (the kernel keeps that position in its state, cursor[0]).  Three points with entries one
    unit of round-off from +-1 (found by a search over tests/reference/fast/test_resume.py's VALUES): the run
    makes refused claims and resumes; both engines take the same 12 steps, the same w bit for bit
    (every sum of these entries is exact or rounds alike); a scan restarted at point 0 after the
    refusal ends with the same count but another w."""
    U = 2.0**-52
    X = np.array([[5.0, 2.0, -3.0], [1 - U, 1 + 2 * U, -(1 - U)], [-0.5, -0.5, -1.0]])
    y = np.array([-1, 1, -1])
    a, b = _both(reference.perceptron, X, y, rho=1.0, max_iter=200)
    assert (a.status, a.iterations) == (reference.SEPARATOR, 12)
    assert (b.status, b.iterations, b.message) == (a.status, a.iterations, a.message)
    np.testing.assert_array_equal(b.w, a.w)


@needs_numba
@pytest.mark.parametrize(
    "X, y",
    [
        ([[-1.0, 3.0], [-2.0, 3.0], [-3.0, 1.0]], [-1, -1, 1]),  # goes on to a certificate at k = 1
        ([[1.0, 2.0], [-1.0, 0.0]], [-1, -1]),  # goes on to the separator exit at k = 0
        ([[3.0, 0.0], [1.0, 3.0], [2.0, 1.0]], [-1, -1, -1]),
    ],
)
def test_nvn_certificate_refused_at_k0_goes_on(monkeypatch, X, y):
    """epsilon = the largest double below ||p_0||_G (exact, p_0 = 1_n/n as stored): the kernel's
    float test ||p_0||_G <= epsilon claims a certificate at k = 0, the verifier refuses it (the exact
    norm is above epsilon), and the textbook goes on (its exit test verifies the certificate
    itself).  The fast engine must go on too -- to the next exit test at k = 0, then the next step --
    not stop at k = 0 with "certificate claimed but not verified"."""
    G = reference.gram(np.array(X), np.array(y))
    n = G.shape[0]
    p0 = [Fraction(1.0 / n)] * n
    Q = sum(p0[i] * Fraction(float(G[i, j])) * p0[j] for i in range(n) for j in range(n))
    eps = _below_sqrt(Q)
    real, calls = rp14_kernels.nvn, []

    def spy(*args):
        out = real(*args)
        calls.append((args[-2], args[-1], out[0], out[2]))  # (k, resume) in, (k, claim) out
        return out

    monkeypatch.setattr(rp14_kernels, "nvn", spy)
    a, b = _both(reference.nvn, G, eps, max_iter=50)
    assert calls[:2] == [(0, 0, 0, 2), (0, 1, calls[1][2], calls[1][3])], calls  # claimed at 0, resumed at 0
    _same(a, b, bitwise=False)
    assert b.status in (reference.SEPARATOR, reference.CERTIFICATE), b.message
    assert reference.verify_exact(b, G) == ""
    if b.status == reference.CERTIFICATE:
        assert b.iterations >= 1  # not the refused p_0


def test_fast_nkp_counts_the_periodic_refreshes():
    """The fast NKP reports its G-products: one column G e_j per step plus one full G alpha every
    REFRESH_EVERY steps [reference.fast.rp14_kernels].  On a never-separable G (points z and -z) the run
    uses its whole budget, so the count is max_iter + max_iter // REFRESH_EVERY exactly (kills the
    hand-applied kernel mutant `products -= 1` at the refresh)."""
    import pytest

    pytest.importorskip("numba")
    import reference
    from reference.fast import rp14_kernels

    G = np.array([[1.0, -1.0], [-1.0, 1.0]])
    for max_iter in (rp14_kernels.REFRESH_EVERY - 1, rp14_kernels.REFRESH_EVERY, 3 * rp14_kernels.REFRESH_EVERY + 5):
        r = reference.nkp(G, engine="fast", max_iter=max_iter)
        assert r.status == "max_iter" and r.iterations == max_iter
        assert r.info["products"] == max_iter + max_iter // rp14_kernels.REFRESH_EVERY, (max_iter, r.info)


def _shifted(v):
    return v - np.max(v)


@needs_numba
def test_radix_sort_is_numpys_sort_descending_bit_for_bit():
    """rp14_kernels._sort_descending (a radix sort of the keys bits(-v)) returns np.sort(v)[::-1]
    bit for bit on shifted vectors v - max(v) <= 0: random scales from 1e-300 to 1e300, ties,
    subnormals, -inf entries, one entry, all equal; a vector with a NaN is sorted by np.sort."""
    rng = np.random.default_rng(5)
    cases = [np.zeros(1), np.full(7, 3.0), np.array([0.0, -0.0, -1.0, -0.0])]
    for n in (2, 3, 17, 1000, 5000):
        cases += [
            -np.abs(rng.normal(size=n)) * 10.0 ** rng.integers(-300, 300, n),
            np.round(rng.normal(size=n), 1),  # many ties
            -np.abs(rng.normal(size=n)) * 1e-310,  # subnormal
            np.where(rng.random(n) < 0.3, -np.inf, rng.normal(size=n)),
        ]
    for v in cases:
        with np.errstate(invalid="ignore"):
            u = _shifted(v)
        if np.isnan(u).any():  # (all -inf: NaN - NaN; numba's np.sort, NaN first, NaN's sign its own)
            np.testing.assert_array_equal(rp14_kernels._sort_descending(u), np.sort(u)[::-1])
        else:
            assert rp14_kernels._sort_descending(u).tobytes() == np.sort(u)[::-1].tobytes()
    nan = np.array([0.0, np.nan, -1.0])
    np.testing.assert_array_equal(rp14_kernels._sort_descending(nan), np.sort(nan)[::-1])


@needs_numba
def test_compiled_projection_is_the_textbooks_bit_for_bit():
    """The compiled Proj_Delta(q - G alpha / mu) of SNKPVN (rp14_kernels._project_q, sorting by
    _sort_descending) is reference.arithmetic.project_simplex's, bit for bit: random q in the
    simplex, G alpha of every scale, mu from 2n down to 1e-12 (supports from all n entries to one)."""
    from reference.arithmetic import project_simplex

    rng = np.random.default_rng(9)
    for n in (1, 2, 5, 64, 3000):
        for mu in (2.0 * n, 1.0, 1e-3, 1e-12):
            q = rng.random(n)
            q /= q.sum()
            Ga = rng.normal(size=n) * 10.0 ** rng.integers(-8, 3)
            out = np.empty(n)
            rp14_kernels._project_q(q, Ga, mu, out)
            assert out.tobytes() == project_simplex(q - Ga / mu, FLOAT64).tobytes()


@needs_numba
def test_dense_product_sums_the_columns_in_order_bit_for_bit():
    """rp14_kernels._dense_matvec (four columns per sweep) is the sum of the columns v_j G[:, j]
    over v_j != 0 in increasing j, one addition at a time (out = out + G[:, j] v_j from out = 0),
    bit for bit: dense and sparse v (nonzero counts that are and are not multiples of four), -0.0
    entries, n from 1 to 37, entries of every scale."""
    rng = np.random.default_rng(13)
    for n in (1, 2, 3, 4, 5, 8, 9, 37):
        G = np.asfortranarray(rng.normal(size=(n, n)) * 10.0 ** rng.integers(-5, 6, (n, n)))
        for density in (1.0, 0.5, 0.1):
            v = rng.normal(size=n) * (rng.random(n) < density)
            v[rng.random(n) < 0.2] = -0.0
            expected = np.zeros(n)
            for j in range(n):
                if v[j] != 0.0:
                    expected = expected + G[:, j] * v[j]
            out = np.empty(n)
            rp14_kernels._dense_matvec(G, v, out)
            assert out.tobytes() == expected.tobytes()
