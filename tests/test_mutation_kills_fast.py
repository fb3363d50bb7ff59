"""Precise tests of reference/fast/ (the compiled engine's Python side) and reference/patterns.py,
written against surviving mutants (mutmut, issue 13 item 8).

Each test pins a documented behaviour: the argument checks (argument named, fix hinted, the
same message as the textbook engine), the ``info`` keys and trace states the textbook records,
the budgets, the strict / non-strict certificate tests, and the implicit PT11 patterns against
the definition y_k = l_k [x_k, rho, Delta e_k].  Expected values are worked by hand in the
comments on small integer / dyadic instances (exact in float64) or checked exactly with
reference.exact, never read off the library.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp

import reference
import reference.fast
from reference.arithmetic import Arithmetic, g_norm
from reference.exact import verify_exact
from reference.fast.operator import LinearGram, linear_gram
from reference.patterns import Patterns, make_patterns

numba = pytest.importorskip("numba", reason="the compiled engine needs numba: pip install 'perceptron-margins[fast]'")

from reference.fast import engine as E  # noqa: E402
from reference.fast import rp14_kernels  # noqa: E402

F64 = Arithmetic(None)


def _planted(m=12, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    return X, np.where(X @ rng.normal(size=d) >= 0, 1, -1)


def _infeasible():
    """Ten points, all labelled +1, with (-5, -5) and (5, 5) among them: 0 is in the hull of the
    z_i (z = (1,1)/sqrt 2 and -z both present), so no separator; ||q_0||_G > 0 for q_0 = 1/n."""
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(size=(8, 2)), [[-5.0, -5.0], [5.0, 5.0]]])
    return reference.gram(X, np.ones(10, dtype=int))


# =============================================================================================
# bad arguments: the argument named, the fix hinted, the textbook engine's message
# =============================================================================================

G2 = np.eye(2)
X2, Y2 = np.array([[1.0, 2.0], [2.0, 1.0]]), np.array([1, -1])

BAD = [
    # (call with engine=..., the pattern every message must match)
    (lambda e: reference.nvn(G2, 0.0, engine=e), r"^epsilon must lie in \(0, 1\], got 0\.0; NVN's accuracy satisfies 0 < epsilon <= 1$"),
    (lambda e: reference.nvn(G2, 1.5, engine=e), r"^epsilon must lie in \(0, 1\], got 1\.5; NVN's accuracy satisfies 0 < epsilon <= 1$"),
    (lambda e: reference.nvn(G2, 0.5, max_iter=-1, engine=e), r"^max_iter must be an integer >= 0, got -1$"),
    (lambda e: reference.snkpvn(G2, [0.5, 0.5], 0.0, engine=e), r"^delta must lie in \(0, inf\), got 0\.0; SNKPVN's accuracy delta must be positive$"),
    (lambda e: reference.snkpvn(G2, [0.5, 0.5], -1e-300, engine=e), r"^delta must lie in \(0, inf\), got -1e-300; SNKPVN's accuracy delta must be positive$"),
    (lambda e: reference.snkpvn(G2, [0.5, 0.5], 0.1, max_iter=-1, engine=e), r"^max_iter must be an integer >= 0, got -1$"),
    (lambda e: reference.isnkpvn(G2, 1.0, engine=e), r"^gamma must lie in \(1, inf\), got 1\.0; ISNKPVN shrinks delta_t by gamma > 1 per outer loop$"),
    (lambda e: reference.isnkpvn(G2, 0.5, engine=e), r"^gamma must lie in \(1, inf\), got 0\.5; ISNKPVN shrinks delta_t by gamma > 1 per outer loop$"),
    (lambda e: reference.isnkpvn(G2, 2.0, 0.0, engine=e), r"^epsilon must lie in \(0, inf\), got 0\.0; the target accuracy must be positive$"),
    (lambda e: reference.isnkpvn(G2, 2.0, -1.0, engine=e), r"^epsilon must lie in \(0, inf\), got -1\.0; the target accuracy must be positive$"),
    (lambda e: reference.isnkpvn(G2, 2.0, 0.1, max_iter=-1, engine=e), r"^max_iter must be an integer >= 0, got -1$"),
    (lambda e: reference.nkp(G2, max_iter=-1, engine=e), r"^max_iter must be an integer >= 0, got -1$"),
    (lambda e: reference.snkp(G2, max_iter=-1, engine=e), r"^max_iter must be an integer >= 0, got -1$"),
    (lambda e: reference.perceptron(X2, Y2, rule="best", engine=e), r"^rule must be one of \('cyclic', 'most_violated'\), got 'best'$"),
    (lambda e: reference.perceptron(X2, Y2, max_iter=-1, engine=e), r"^max_iter must be an integer >= 0, got -1$"),
    (lambda e: reference.normalized_perceptron(X2, Y2, max_iter=-1, engine=e), r"^max_iter must be an integer >= 0, got -1$"),
]


@pytest.mark.parametrize("call,pattern", BAD)
def test_bad_arguments_name_the_argument_and_the_fix_as_the_textbook_does(call, pattern):
    with pytest.raises(ValueError, match=pattern) as fast:
        call("fast")
    with pytest.raises(ValueError, match=pattern) as textbook:
        call("textbook")
    assert str(fast.value) == str(textbook.value)  # "the same messages" (reference.fast.engine)


@pytest.mark.parametrize(
    "call,pattern",
    [
        (lambda: linear_gram(X2, Y2, rho=0.0), r"^rho must lie in \(0, inf\), got 0\.0; the augmentation \(bias\) coordinate, e\.g\. rho=1\.0; or rho=None$"),
        (lambda: linear_gram(X2, Y2, rho=-1), r"^rho must lie in \(0, inf\), got -1; the augmentation \(bias\) coordinate, e\.g\. rho=1\.0; or rho=None$"),
        (lambda: linear_gram(X2, Y2, rho="1"), r"^rho must be a real number, got '1'; the augmentation \(bias\) coordinate, e\.g\. rho=1\.0; or rho=None$"),
        (lambda: linear_gram(np.array([[1.0, 0.0], [0.0, 0.0]]), Y2), r"^X has 1 zero rows \(first: \[1\]\): a zero point cannot be normalized.*add a bias by augmentation \(rho=1\.0\)"),
        (lambda: make_patterns(X2, Y2, rho=0.0), r"^rho must lie in \(0, inf\), got 0\.0; pass rho=1\.0, or rho=None for no augmentation$"),
        (lambda: make_patterns(X2, Y2, rho=-1e-300), r"^rho must lie in \(0, inf\), got -1e-300; pass rho=1\.0, or rho=None for no augmentation$"),
        (lambda: make_patterns(X2, Y2, Delta=0.0), r"^Delta must lie in \(0, inf\), got 0\.0; pass e\.g\. Delta=1\.0, or Delta=None for the original space$"),
        (lambda: make_patterns(X2, Y2, rho=None, Delta=-2.0), r"^Delta must lie in \(0, inf\), got -2\.0; pass e\.g\. Delta=1\.0, or Delta=None for the original space$"),
        (lambda: make_patterns(X2, Y2, Delta=float("inf")), r"^Delta must be finite, got inf; pass e\.g\. Delta=1\.0, or Delta=None for the original space$"),
        (lambda: make_patterns(np.array([[1.0, 0.0], [0.0, 0.0]]), Y2, rho=None), r"^X has 1 zero rows \(first: \[1\]\)"),
        (lambda: make_patterns(X2, np.array([1, 2])), r"\+1 and -1"),
    ],
)
def test_operator_and_patterns_arguments(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()


def test_boundary_values_are_accepted():
    # epsilon = 1 is inside (0, 1] for NVN; tiny positive accuracies and rho are > 0
    for e in ("fast", "textbook"):
        assert reference.nvn(G2, 1.0, engine=e).status == reference.CERTIFICATE  # ||1/2 (1,1)||_I = 1/sqrt 2 <= 1
        assert reference.isnkpvn(G2, 1.0 + 2**-52, 1e-300, max_iter=0, engine=e).status == reference.MAX_ITER
    assert linear_gram(X2, Y2, rho=1e-300).shape == (2, 3)
    P = make_patterns(np.zeros((2, 2)), Y2, rho=None, Delta=1e-300)  # zero rows: Delta makes them nonzero
    assert P.Delta == 1e-300 and P.rho is None


def test_check_engine():
    F = reference.fast
    assert (F.TEXTBOOK, F.FAST, F.ENGINES) == ("textbook", "fast", ("textbook", "fast"))
    assert F.check_engine("textbook") == "textbook" and F.check_engine("fast") == "fast"
    assert F.check_engine("textbook", 30) == "textbook"  # precision= is the textbook engine's
    assert F.check_engine("fast", None) == "fast"
    with pytest.raises(ValueError, match=r"^engine must be one of \('textbook', 'fast'\), got 'turbo'$"):
        F.check_engine("turbo")
    with pytest.raises(ValueError, match=r"^engine must be one of \('textbook', 'fast'\), got None$"):
        F.check_engine(None)
    msg = r"^engine='fast' runs in float64 only; precision= is the textbook engine's \(pass engine='textbook' with precision=\.\.\., or drop precision\)$"
    with pytest.raises(ValueError, match=msg):
        F.check_engine("fast", 30)
    with pytest.raises(ValueError, match=msg):
        F.check_engine("fast", 0)  # any precision, even a falsy one
    assert F.available() is True  # numba imported above
    assert F.INSTALL_HINT == "pip install 'perceptron-margins[fast]'"


def test_check_engine_without_numba(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "numba" else real(name, *a))
    assert reference.fast.available() is False
    with pytest.raises(ValueError, match=r"^engine='fast' needs numba, which is not installed; run: pip install 'perceptron-margins\[fast\]'$"):
        reference.fast.check_engine("fast")
    assert reference.fast.check_engine("textbook") == "textbook"


# =============================================================================================
# info: the textbook's keys, so that verify_exact can re-check a fast certificate
# =============================================================================================


def test_fast_certificates_record_their_accuracy_and_pass_verify_exact():
    """verify_exact reads the accuracy of a certificate from info ('delta' for snkpvn,
    'epsilon' otherwise); the fast engine did not record it, so verify_exact(fast result)
    raised 'pass accuracy='.  Now the keys and values are the textbook's."""
    G = _infeasible()
    n = G.shape[0]
    runs = [("nvn", (G, 0.1)), ("snkpvn", (G, np.full(n, 1.0 / n), 0.1)), ("isnkpvn", (G, 2.0, 0.01))]
    for name, args in runs:
        fn = getattr(reference, name)
        slow, fast = fn(*args), fn(*args, engine="fast")
        assert fast.status == slow.status == reference.CERTIFICATE, name
        assert set(slow.info) <= set(fast.info), name
        key = "delta" if name == "snkpvn" else "epsilon"
        assert fast.info[key] == slow.info[key] == args[-1], name
        assert verify_exact(fast, G) == "", name


def test_separators_and_budgets_keep_the_textbook_info_keys():
    X, y = _planted()
    G = reference.gram(X, y)
    for name, args in [("nkp", (G,)), ("snkp", (G,)), ("nvn", (G, 0.01)), ("snkpvn", (G, np.full(12, 1 / 12), 1e-3)), ("isnkpvn", (G,))]:
        fn = getattr(reference, name)
        for kw in (dict(), dict(max_iter=1)):
            slow, fast = fn(*args, **kw), fn(*args, engine="fast", **kw)
            assert (slow.status, slow.iterations) == (fast.status, fast.iterations), (name, kw)
            assert set(slow.info) <= set(fast.info), (name, kw)


def test_nvn_counts_its_g_products():
    # NVN: G p_0 once, then one column G e_j per step (plus refreshes): products >= k + 1
    G = _infeasible()
    for eps in (0.5, 0.05, 1e-4):
        r = reference.nvn(G, eps, engine="fast", max_iter=200)
        assert r.info["products"] >= r.iterations + 1
        assert r.info["products"] <= r.iterations + 1 + r.iterations // rp14_kernels.REFRESH_EVERY + r.iterations + 1
        assert r.info["norm_p"] == g_norm(G, r.p)


# =============================================================================================
# ISNKPVN: the outer-loop budget, T, the records, the E-A7 guard at its boundary
# =============================================================================================


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


@pytest.mark.parametrize("G", [_infeasible(), reference.gram(*_planted())], ids=["certificate", "separator"])
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
    assert g_norm(G, q) ** 2 == 4 * F64.eps == 2.0**-50
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


# =============================================================================================
# the strict / non-strict certificate tests of the operator (dense G and G = Z Z^T)
# =============================================================================================


def test_gram_verify_certificate_strict_refuses_equality():
    # G = I_2, p = (1, 0): ||p||_G = 1 exactly.  Strict (SNKPVN, ISNKPVN): 1 < 1 is false.
    p = np.array([1.0, 0.0])
    for G in (np.eye(2), linear_gram(np.eye(2), np.array([1, 1]))):
        g = E._Gram(G)
        assert "is not <" in g.verify_certificate(p, 1.0)
        assert "is not <" in g.verify_certificate(p, 1.0, strict=True)
        assert g.verify_certificate(p, 1.0, strict=False) == ""  # NVN: 1 <= 1
        assert g.verify_certificate(p, 2.0) == ""


def test_gram_operator_norms_and_products():
    X, y = _planted()
    G = reference.gram(X, y)
    L = linear_gram(X, y)
    v = np.arange(1.0, 13.0)
    gd, gl = E._Gram(G), E._Gram(L)
    assert (gd.kind, gd.n, gd.d) == (0, 12, 1) and (gl.kind, gl.n, gl.d) == (1, 12, 3)
    assert gd.G.flags.f_contiguous and np.array_equal(gd.G, G)
    exact = float(np.sqrt(v @ G @ v))
    assert np.isclose(gd.norm(v), exact, rtol=1e-12) and np.isclose(gl.norm(v), exact, rtol=1e-12)
    # a vector in the null space of G = Z Z^T: the norm is 0, not sqrt of a negative round-off
    Lx = linear_gram(np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1, 1]))
    assert E._Gram(Lx).norm(np.array([0.5, 0.5])) == 0.0
    assert E._Gram(Lx).norm(np.array([1.0, 0.0])) == 1.0
    Gobj = np.array([[mpmath.mpf(1), mpmath.mpf(0)], [mpmath.mpf(0), mpmath.mpf(1)]], dtype=object)
    assert E._Gram(Gobj).G.dtype == np.float64


def test_gram_verify_separator_both_kinds():
    Xx = np.array([[1.0, 0.0], [0.0, 1.0]])
    for G in (np.eye(2), linear_gram(Xx, np.array([1, 1]))):
        g = E._Gram(G)
        assert g.verify_separator(np.array([0.5, 0.5])) == ""
        assert "is not > 0" in g.verify_separator(np.array([1.0, 0.0]))


# =============================================================================================
# traces: the textbook's states
# =============================================================================================


@pytest.mark.parametrize("G", [reference.gram(*_planted()), _infeasible()], ids=["separable", "infeasible"])
def test_smoothed_traces_are_the_textbook_states(G):
    n = G.shape[0]
    q = np.full(n, 1.0 / n)
    for name, args, mu0 in (("snkp", (G,), 2.0), ("snkpvn", (G, q, 1e-9), 2.0 * n)):
        fn = getattr(reference, name)
        slow, fast = fn(*args, trace=True, max_iter=12), fn(*args, trace=True, max_iter=12, engine="fast")
        assert len(fast.trace) == fast.iterations + 1 == len(slow.trace)
        if n == 10:  # the infeasible instance runs to the budget: mu_k = mu_0 prod (1 - theta_j) = mu_0 * 2/((k+1)(k+2))
            assert fast.iterations == 12  # more iterations than points: k + 1 > n records
            assert [s.theta for s in fast.trace] == [None] + [2.0 / (k + 2) for k in range(1, 13)]  # theta_{k-1} = 2/(k+2)
            assert all(np.isclose(s.mu, mu0 * 2.0 / ((k + 1) * (k + 2)), rtol=1e-13) for k, s in enumerate(fast.trace))
        assert np.array_equal(fast.trace[0].alpha, np.full(n, 1.0 / n)) and fast.trace[0].mu == mu0  # alpha_0, mu_0
        for i, (a, b) in enumerate(zip(slow.trace, fast.trace)):
            assert b.k == a.k == i
            assert b.theta == a.theta  # None at k = 0, then 2/(k+2)
            assert np.isclose(b.mu, float(a.mu), rtol=1e-12)
            assert np.allclose(b.alpha, a.alpha, rtol=1e-9, atol=1e-12) and np.allclose(b.p, a.p, rtol=1e-9, atol=1e-12)


def test_nvn_trace_is_the_textbook_states():
    G = _infeasible()
    slow, fast = reference.nvn(G, 1e-9, max_iter=20, trace=True), reference.nvn(G, 1e-9, max_iter=20, trace=True, engine="fast")
    assert len(fast.trace) == fast.iterations + 1 == len(slow.trace) == 21
    assert fast.trace[0].theta is None and np.array_equal(fast.trace[0].p, np.full(10, 0.1))
    for i, (a, b) in enumerate(zip(slow.trace[1:], fast.trace[1:]), start=1):
        assert b.k == i and isinstance(b.theta, float) and 0.0 <= b.theta <= 1.0
        assert np.isclose(b.theta, float(a.theta), rtol=1e-9)


def test_perceptron_traces():
    X, y = _planted()
    for fn in (reference.perceptron, reference.normalized_perceptron):
        slow, fast = fn(X, y, trace=True), fn(X, y, trace=True, engine="fast")
        assert fast.status == reference.SEPARATOR and len(fast.trace) == fast.iterations + 1 == len(slow.trace)
        assert all(s.k == i for i, s in enumerate(fast.trace)) and not fast.trace[0].w.any()  # w_0 := 0
        assert verify_exact(fast, X, y) == ""


@pytest.mark.parametrize("name", ["perceptron", "normalized_perceptron"])
def test_a_lying_perceptron_kernel_is_downgraded(monkeypatch, name):
    # the kernel claims "separated" with w = 0: y_i <0, x_i> = 0 is not > 0, so max_iter
    X, y = _planted()
    monkeypatch.setattr(rp14_kernels, name, lambda Z, *a: (3, np.zeros(Z.shape[1]), True))
    r = getattr(reference, name)(X, y, engine="fast")
    assert (r.status, r.iterations) == (reference.MAX_ITER, 3)
    assert r.message.startswith("separator claimed but not verified: ")


def test_normalized_perceptron_budget_message():
    X, y = _infeasible_primal()
    for normalize in (True, False):
        r = reference.normalized_perceptron(X, y, normalize=normalize, max_iter=5, engine="fast")
        assert (r.status, r.iterations, r.message) == (reference.MAX_ITER, 5, "budget exhausted after 5 iterations")


def _infeasible_primal():
    return np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1, 1])


# =============================================================================================
# the linear operator G = Z Z^T
# =============================================================================================


def test_linear_gram_closed_form():
    """x_0 = (3, 4), rho = 12: ||(3, 4, 12)|| = 13, z_0 = (3, 4, 12)/13; x_1 = 0 with y_1 = -1:
    z_1 = -(0, 0, 12)/12 = (0, 0, -1).  A zero row is allowed when rho is given."""
    L = linear_gram(np.array([[3.0, 4.0], [0.0, 0.0]]), np.array([1, -1]), rho=12.0)
    assert isinstance(L, LinearGram) and L.shape == (2, 3) and L.n == 2
    assert np.array_equal(L.Z.toarray(), np.array([[3 / 13, 4 / 13, 12 / 13], [0.0, 0.0, -1.0]]))
    assert L.Z.indices.dtype == np.int64 and L.Z.indptr.dtype == np.int64  # as documented (canonical CSR)
    assert L.Z.has_sorted_indices
    v = np.array([1.0, 2.0])
    assert np.allclose(L.matvec(v), reference.gram(np.array([[3.0, 4.0], [0.0, 0.0]]), [1, -1], rho=12.0) @ v, rtol=1e-15)
    for rho in (0.5, 1e-3):  # any rho > 0, below 1 too
        L = linear_gram(X2, Y2, rho=rho)
        assert np.allclose(L.matvec(v), reference.gram(X2, Y2, rho=rho) @ v, rtol=1e-14)


def test_linear_gram_sparse_and_dense_give_the_same_csr():
    X, y = _planted(20, 5)
    X[np.abs(X) < 0.7] = 0.0
    X[np.all(X == 0, axis=1), 0] = 1.0
    a, b = linear_gram(X, y), linear_gram(sp.csr_matrix(X), y)
    for f in ("data", "indices", "indptr"):
        assert np.array_equal(getattr(a.Z, f), getattr(b.Z, f)) and getattr(a.Z, f).dtype == getattr(b.Z, f).dtype


# =============================================================================================
# the implicit PT11 patterns against the definition y_k = l_k [x_k, rho, Delta e_k]
# =============================================================================================

XP = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0], [0.0, -3.0, 0.5]])
LP = np.array([1, -1, -1])


def _dense_by_definition(X, l, rho, Delta):
    m = X.shape[0]
    rows = []
    for k in range(m):
        y = list(X[k])
        if rho is not None:
            y.append(rho)
        if Delta is not None:
            y.extend(Delta if j == k else 0.0 for j in range(m))
        rows.append([l[k] * v for v in y])
    return np.array(rows)


@pytest.mark.parametrize("rho,Delta", [(1.0, None), (None, 0.5), (2.0, 0.25), (0.5, 3.0)])
def test_patterns_against_the_definition(rho, Delta):
    P = make_patterns(XP, LP, rho=rho, Delta=Delta)
    Y = _dense_by_definition(XP, LP, rho, Delta)
    d0 = 3 + (rho is not None)
    assert (P.m, P.n_features, P.d0, P.dim, P.nnz) == (3, 3, d0, d0 + (3 if Delta is not None else 0), 4)
    assert (P.rho, P.Delta) == (rho, Delta)
    assert P.labels.tolist() == [1, -1, -1]
    assert np.array_equal(P.dense(), Y)
    assert np.array_equal(P.X().toarray(), XP)
    Zd = _dense_by_definition(XP, LP, rho, None)
    assert np.array_equal(P.Z().toarray(), Zd) and P.Z().shape == Zd.shape
    assert P.row_nnz().tolist() == [np.count_nonzero(y) for y in Y]
    assert np.array_equal(P.sqnorms(), np.sum(Y * Y, axis=1))
    for k in range(3):
        assert P.sqnorm(k, None) == float(Y[k] @ Y[k])
        assert P.sqnorm(k, F64) == Y[k] @ Y[k]
        idx, val = P.row(k)
        assert np.array_equal(XP[k][idx], val) and np.count_nonzero(XP[k]) == idx.size
    a = np.arange(1.0, P.dim + 1.0) * np.where(np.arange(P.dim) % 2, -1.0, 1.0)  # small integers: exact
    assert np.array_equal(P.matvec(a), Y @ a)
    assert np.array_equal(P.abs_matvec(a), np.abs(Y) @ np.abs(a))
    for k in range(3):
        assert P.dot(a, k) == Y[k] @ a
        for lam in (1, 3.0, -0.5):
            out = P.add(a, k, lam)
            assert np.array_equal(out, a + lam * Y[k]) and out is not a
    assert np.array_equal(P.add(a, 0), a + Y[0])  # lam defaults to 1


@pytest.mark.parametrize("rho,Delta", [(1.0, None), (None, 0.5), (2.0, 0.25)])
def test_patterns_in_mpmath_are_exact(rho, Delta):
    """On dtype=object mpf vectors every method computes in mpmath, exactly here: a = 1/3 + j
    is not a float, and the results are compared with Fractions."""
    P = make_patterns(XP, LP, rho=rho, Delta=Delta)
    Y = _dense_by_definition(XP, LP, rho, Delta)
    with mpmath.workdps(60):
        a = np.array([mpmath.mpf(1) / 3 + j for j in range(P.dim)], dtype=object)
        af = [Fraction(1, 3) + j for j in range(P.dim)]
        mv = P.matvec(a)
        assert mv.dtype == object
        for k in range(3):
            want = sum(Fraction(float(Y[k, j])) * af[j] for j in range(P.dim))
            assert isinstance(P.dot(a, k), mpmath.mpf)
            assert abs(Fraction(str(mpmath.nstr(P.dot(a, k), 50))) - want) < Fraction(1, 10**45)
            assert abs(Fraction(str(mpmath.nstr(mv[k], 50))) - want) < Fraction(1, 10**45)
            out = P.add(a, k, mpmath.mpf(1) / 7)
            assert out.dtype == object and a[0] == mpmath.mpf(1) / 3  # a unchanged
            for j in range(P.dim):
                want_j = af[j] + Fraction(1, 7) * Fraction(float(Y[k, j]))
                assert abs(Fraction(str(mpmath.nstr(out[j], 50))) - want_j) < Fraction(1, 10**45)
        ar = Arithmetic(40)
        for k in range(3):
            s = P.sqnorm(k, ar)
            assert isinstance(s, mpmath.mpf) and s == mpmath.mpf(float(Y[k] @ Y[k]))  # dyadic entries: exact


def test_patterns_dot_on_an_empty_row_is_zero_of_the_vector_type():
    P = make_patterns(XP, LP, rho=None, Delta=1.0)  # row 1 is empty
    a = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    assert P.dot(a, 1) == -(1.0 * 5.0)  # l_1 (Delta a_ext[1]) = -(1 * a[3 + 1])
    P0 = make_patterns(XP, LP, rho=1.0)
    assert P0.dot(np.array([1.0, 2.0, 3.0, 4.0]), 1) == -4.0  # l_1 (rho a_rho) = -4
    assert P0.sqnorm(1, None) == 1.0
    Pn = Patterns(data=np.zeros(0), indices=np.zeros(0, np.int64), indptr=np.zeros(2, np.int64), labels=np.array([1]), n_features=2, rho=None, Delta=None)
    assert Pn.dot(np.array([1.0, 2.0]), 0) == 0.0 and Pn.sqnorm(0, None) == 0.0


def test_make_patterns_keeps_the_canonical_csr():
    P = make_patterns(sp.csr_matrix(XP), LP)
    Q = make_patterns(XP, LP)
    for f in ("data", "indices", "indptr", "labels"):
        assert np.array_equal(getattr(P, f), getattr(Q, f))
    assert P.indices.dtype == np.int64 and P.indptr.dtype == np.int64 and P.data.dtype == np.float64
    assert (P.rho, P.Delta) == (1.0, None)  # the defaults: rho = 1.0, the original space


# =============================================================================================
# the fast engine against the textbook: messages, budgets, rules, traces (more siblings)
# =============================================================================================


def test_messages_are_the_textbook_messages():
    """The Result is the textbook's, messages included ("separator verified in float64",
    "certificate verified in float64", "budget exhausted after k iterations")."""
    X, y = _planted()
    G, Gi = reference.gram(X, y), _infeasible()
    runs = [("nkp", (G,), {}), ("snkp", (G,), {}), ("nvn", (G, 0.01), {}), ("nvn", (Gi, 0.1), {}), ("isnkpvn", (Gi, 2.0, 0.01), {}),
            ("snkpvn", (Gi, np.full(10, 0.1), 0.1), {}), ("isnkpvn", (G,), {}), ("snkp", (Gi,), dict(max_iter=7))]  # fmt: skip
    seen = set()
    for name, args, kw in runs:
        fn = getattr(reference, name)
        slow, fast = fn(*args, **kw), fn(*args, engine="fast", **kw)
        assert (fast.status, fast.iterations, fast.message) == (slow.status, slow.iterations, slow.message), name
        seen.add(fast.message)
    assert {"separator verified in float64", "certificate verified in float64", "budget exhausted after 7 iterations"} <= seen


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
    X, y = _planted()
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
    X, y = _planted(30, 3, 4)
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


def test_patterns_float_path_stays_float():
    P = make_patterns(XP, LP, rho=2.0, Delta=0.5)
    a = np.arange(1.0, P.dim + 1.0)
    for k in range(3):
        assert not isinstance(P.dot(a, k), mpmath.mpf) and not isinstance(P._scalar(2.0, a), mpmath.mpf)
        assert P.add(a, k).dtype == np.float64 and P._values(np.array([1.5]), a).dtype == np.float64
    ao = a.astype(object)
    assert isinstance(P._scalar(2.0, ao), mpmath.mpf) and P._scalar(mpmath.mpf(3), ao) == 3
    assert all(isinstance(v, mpmath.mpf) for v in P._values(np.array([1.5, 2.0]), ao))


def test_signatures_and_views():
    # rho / Delta are keyword-only (a positional 1.0 would be ambiguous); X and y may be keywords
    with pytest.raises(TypeError):
        linear_gram(X2, Y2, 1.0)
    with pytest.raises(TypeError):
        make_patterns(X2, Y2, 1.0)
    assert linear_gram(X=X2, y=Y2).n == 2 and make_patterns(X=X2, y=Y2).m == 2
    P = make_patterns(XP, LP)
    Xv = P.X()  # the data array is shared, not copied (scipy may narrow the index arrays to int32)
    assert np.shares_memory(Xv.data, P.data) and np.array_equal(Xv.indices, P.indices)


def test_linear_gram_non_square_with_rho():
    """n = 3 points in d = 2 with rho = 2: z_i = y_i [x_i, 2] / ||[x_i, 2]||; x = (0, 0) gives (0, 0, y_i)."""
    X = np.array([[1.0, 2.0], [0.0, 0.0], [4.0, 4.0]])
    y = np.array([1, -1, 1])
    L = linear_gram(X, y, rho=2.0)
    assert L.shape == (3, 3 - 0) and L.Z.shape == (3, 3)
    want = np.array([[1 / 3, 2 / 3, 2 / 3], [0.0, 0.0, -1.0], [4 / 6, 4 / 6, 2 / 6]])
    assert np.allclose(L.Z.toarray(), want, rtol=1e-15, atol=0)
    X4 = np.array([[1.0, 2.0, 2.0], [0.0, 0.0, 3.0]])  # n = 2 < d = 3
    assert np.allclose(linear_gram(X4, Y2, rho=4.0).Z.toarray(), [[1 / 5, 2 / 5, 2 / 5, 4 / 5], [0.0, 0.0, -3 / 5, -4 / 5]], rtol=1e-15, atol=0)


def test_patterns_dot_on_an_empty_row_with_a_zero_first_entry():
    P = make_patterns(XP, LP, rho=None, Delta=1.0)  # row 1 is empty
    a = np.array([0.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    assert P.dot(a, 1) == -5.0  # l_1 (Delta a_ext[1]) = -(1 * a[3 + 1]); no 0/0 anywhere


def test_result_fields_are_the_textbook_fields():
    """algorithm name, trace None unless asked, alpha only for an NVN separator, products counted."""
    X, y = _planted()
    G, Gi = reference.gram(X, y), _infeasible()
    runs = [("nkp", (G,), {}), ("snkp", (G,), {}), ("snkp", (Gi,), dict(max_iter=5)), ("nvn", (G, 0.01), {}), ("nvn", (Gi, 0.1), {}),
            ("nvn", (Gi, 1e-9), dict(max_iter=7)), ("snkpvn", (Gi, np.full(10, 0.1), 0.1), {}), ("snkpvn", (G, np.full(12, 1 / 12), 1e-3), {}),
            ("isnkpvn", (G,), {}), ("isnkpvn", (Gi, 2.0, 0.01), {})]  # fmt: skip
    for name, args, kw in runs:
        fn = getattr(reference, name)
        slow, fast = fn(*args, **kw), fn(*args, engine="fast", **kw)
        assert (fast.algorithm, fast.status, fast.iterations, fast.message) == (name, slow.status, slow.iterations, slow.message), (name, kw)
        assert fast.trace is None and slow.trace is None
        assert (fast.alpha is None) == (slow.alpha is None) and (fast.p is None) == (slow.p is None), (name, kw)
        if name == "nvn":
            assert (fast.alpha is fast.p) == (fast.status == reference.SEPARATOR)  # [E-A6] the separator is p itself
        if name != "isnkpvn":
            assert fast.info["products"] >= fast.iterations + (name != "nkp"), (name, kw)


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


def test_internal_wrappers_take_their_options_by_keyword():
    G = np.eye(2)
    for call in (lambda: E.nkp(G, 5, False), lambda: E.snkp(G, 5, False), lambda: E.nvn(G, 0.5, 5, False),
                 lambda: E.snkpvn(G, [0.5, 0.5], 0.1, 5, False), lambda: E.isnkpvn(G, 2.0, 0.1, 5, False),
                 lambda: E.perceptron(X2, Y2, "cyclic", None, 5, False), lambda: E.normalized_perceptron(X2, Y2, True, None, 5, False)):  # fmt: skip
        with pytest.raises(TypeError):
            call()
    assert E.nkp(G=G, max_iter=5, trace=False).status == reference.SEPARATOR


def test_isnkpvn_unverifiable_guard_certificate_is_refused():
    """The E-A7 guard fires on ||q_0||_G = 2^-25 (the dyadic instance above); the certificate is
    then verified strictly, ||q||_G < epsilon: refused for epsilon = 2^-25 (equality) and 1e-300.
    The run goes on, as the textbook's (SNKPVN(q_0, 2^-26) cannot certify below round-off), until
    the budget runs out, and the message names the refused claim -- in both engines alike."""
    c = -1.0 + 2.0**-47
    G = np.array([[1.0, -1.0, 0.0, 0.0], [-1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, c], [0.0, 0.0, c, 1.0]])
    for eps in (2.0**-25, 1e-300):
        r = reference.isnkpvn(G, 2.0, eps, max_iter=40, engine="fast")
        slow = reference.isnkpvn(G, 2.0, eps, max_iter=40)
        assert (r.status, r.iterations) == (reference.MAX_ITER, 40), eps
        assert r.message.startswith("budget exhausted after 40 iterations; the last claim (certificate, iteration 0) was not verified: ||p||_G"), r.message
        assert (slow.status, slow.iterations, slow.message) == (r.status, r.iterations, r.message), eps


def test_primal_budgets_end_with_max_iter():
    X, y = _infeasible_primal()
    for fn in (reference.perceptron, reference.normalized_perceptron):
        slow, fast = fn(X, y, max_iter=3), fn(X, y, max_iter=3, engine="fast")
        assert (fast.status, fast.iterations, fast.message) == (slow.status, slow.iterations, slow.message) == (reference.MAX_ITER, 3, "budget exhausted after 3 iterations")
        assert fast.trace is None and fast.algorithm == slow.algorithm


# -- the compiled exit test's round-off allowance agrees with the verifier (kernels.md) ---------
# rp14_kernels._beyond_roundoff promises to agree with reference.result's verifiers:
# dense G: (G v)_i > (n + 16) eps (|G| |v|)_i + (2n + 4) UNDERFLOW  (separator_allowance);
# G = Z Z^T held as CSR Z: (G v)_i > (n + d + 16) eps (|Z| (|Z|^T |v|))_i (verify_separator_factored).
# Each test puts G v just above and just below that allowance (a relative 1e-9 either side: far
# above the ~n u by which two summation orders can differ, far below what a wrong allowance
# changes) and asks the kernel.  v has entries of very different sizes, so |G| |v| is not
# |G| / |v| or |G| |v|^2.


def _allowance_edge_cases(slack):
    """(Gv, expected) pairs: all just above the allowance (True); one entry just below (False)."""
    above = slack * (1 + 1e-9)
    yield above, True
    for i in range(slack.shape[0]):
        Gv = above.copy()
        Gv[i] = slack[i] * (1 - 1e-9)
        yield Gv, False


def test_compiled_exit_allowance_agrees_with_the_verifier_dense():
    from reference.fast import rp14_kernels as K
    from reference.result import separator_allowance

    rng = np.random.default_rng(11)
    A = rng.standard_normal((6, 6))
    G = np.asfortranarray(A + A.T)
    v = np.array([4.0, -0.25, 2.0, 0.5, -8.0, 0.125])
    _, slack = separator_allowance(G, v, 6)
    args = (K.DENSE, G, np.zeros(0), np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(1))
    for Gv, expected in _allowance_edge_cases(slack):
        assert K._beyond_roundoff(*args, v, Gv) is expected, (Gv / slack, expected)


def test_compiled_exit_allowance_underflow_term_dense():
    """v = 0: the allowance is (2n + 4) UNDERFLOW exactly (subnormal arithmetic is exact here)."""
    from reference.fast import rp14_kernels as K

    n = 3
    G = np.asfortranarray(np.eye(n))
    v = np.zeros(n)
    args = (K.DENSE, G, np.zeros(0), np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(1))
    tiny = 2.0**-1074
    assert K._beyond_roundoff(*args, v, np.full(n, (2 * n + 5) * tiny)) is True
    for i in range(n):
        Gv = np.full(n, (2 * n + 5) * tiny)
        Gv[i] = (2 * n + 4) * tiny  # equal to the allowance: not beyond it
        assert K._beyond_roundoff(*args, v, Gv) is False, i


def test_compiled_exit_allowance_agrees_with_the_verifier_factored():
    from reference.fast import rp14_kernels as K

    rng = np.random.default_rng(12)
    n, d = 7, 5
    dense = rng.integers(-3, 4, (n, d)) * (rng.random((n, d)) < 0.6)
    dense[:, 0] = rng.integers(1, 4, n)  # no empty row
    dense = dense.astype(np.float64)
    Z = sp.csr_matrix(dense)
    Z.sort_indices()
    v = np.array([4.0, -0.25, 2.0, 0.5, -8.0, 0.125, 16.0])
    absZ = abs(Z)
    slack = (absZ @ (absZ.T @ np.abs(v))) * (2.0**-52 * (n + d + 16))  # verify_separator_factored
    args = (K.FACTORED, np.zeros((0, 0)), Z.data, Z.indices.astype(np.int64), Z.indptr.astype(np.int64), np.zeros(d))
    for Gv, expected in _allowance_edge_cases(slack):
        assert K._beyond_roundoff(*args, v, Gv) is expected, (Gv / slack, expected)
    # integer Z, dyadic v: every sum above is exact, so the allowance is hit bit for bit
    for i in range(n):
        Gv = slack * 2.0
        Gv[i] = slack[i]  # equal to the allowance: not beyond it
        assert K._beyond_roundoff(*args, v, Gv) is False, i


def test_compiled_mu_plus_is_the_textbook_root_bit_for_bit():
    """pt11_kernels._mu_plus promises reference.dynamic_margin.pdm_mu_plus / pfm_mu_plus: the same
    formulas in the same order, so the same float64 bits, on both branches of each (B > 0 or not
    for PDM; q > beta^2 or not, and a positive or clamped discriminant, for PFM)."""
    from reference.arithmetic import Arithmetic
    from reference.dynamic_margin import pdm_mu_plus, pfm_mu_plus
    from reference.fast import pt11_kernels as K

    F64 = Arithmetic(None)
    rng = np.random.default_rng(7)
    seen = set()
    for _ in range(400):
        t = int(rng.integers(1, 50))
        q = float(rng.uniform(0.1, 4.0))
        ell = float(rng.uniform(0.0, 9.0))
        p = float(rng.uniform(-3.0, 3.0))
        eps = float(rng.uniform(0.01, 0.99))
        ok, mu = K._mu_plus(K.PDM_KIND, eps, p, q, ell, t)
        assert ok and mu == pdm_mu_plus(eps, p, q, ell, t, F64), (eps, p, q, ell, t)
        seen.add(("pdm", t * q + (2 * eps - 1) * p > 0))
        beta = float(rng.uniform(0.05, 2.5))
        ok, mu = K._mu_plus(K.PFM_KIND, beta, p, q, ell, t)
        want = pfm_mu_plus(beta, p, q, ell, t, F64)
        if want is None:
            assert not ok, (beta, q)
        else:
            assert ok and mu == want, (beta, p, q, ell, t)
        seen.add(("pfm", want is None, q * ell - p * p > 0))
    # q = beta^2 exactly (s = 0): lambda unbounded, no root
    assert pfm_mu_plus(0.5, 0.25, 0.25, 1.0, 3, F64) is None
    assert not K._mu_plus(K.PFM_KIND, 0.5, 0.25, 0.25, 1.0, 3)[0]
    # every branch was exercised
    assert {("pdm", True), ("pdm", False), ("pfm", True, True), ("pfm", False, True), ("pfm", False, False)} <= seen, seen


def test_check_real_names_the_fix_for_every_bad_value():
    """Every refusal of check_real ends with the caller's hint (house rule: name the argument
    and the fix) -- NaN, inf and non-real values included, not only out-of-range ones."""
    from reference.data import check_real

    hint = "the augmentation coordinate, e.g. rho=1.0"
    for bad, what in [(float("nan"), "must be finite"), (float("inf"), "must be finite"), ("1", "must be a real number"), (True, "must be a real number"), (-1.0, r"must lie in \(0, inf\)")]:
        with pytest.raises(ValueError, match=rf"^rho {what}, got .*; {hint}$"):
            check_real("rho", bad, low=0, hint=hint)
    with pytest.raises(ValueError, match=r"^rho must be finite, got nan$"):  # no hint: no dangling "; "
        check_real("rho", float("nan"))
    with pytest.raises(ValueError, match=r"^rho must lie in \[0, 1\], got 2$"):
        check_real("rho", 2, low=0, high=1, low_open=False)


def test_pairwise_gram_check_reaches_every_row_block():
    """check_gram(psd=False) checks every 2 x 2 principal minor, in row blocks of _PAIR_BLOCK:
    a Cauchy-Schwarz violation between two rows past the second block (both >= 2 * _PAIR_BLOCK)
    must be found and named (kills data._check_pairs_9: a loop over the first _PAIR_BLOCK starts
    only, which never reaches rows >= 2 * _PAIR_BLOCK - 1)."""
    from reference.data import _PAIR_BLOCK, check_gram

    n = 2 * _PAIR_BLOCK + 6
    G = np.eye(n)
    i, j = 2 * _PAIR_BLOCK + 1, 2 * _PAIR_BLOCK + 3
    G[i, j] = G[j, i] = 2.0  # [[1, 2], [2, 1]] has eigenvalue -1: not a Gram matrix
    with pytest.raises(ValueError, match=rf"the 2 x 2 submatrix of rows {i}, {j} has eigenvalue -1\.000e\+00"):
        check_gram(G, psd=False)
    G[i, j] = G[j, i] = 1.0  # [[1, 1], [1, 1]] is PSD: accepted
    check_gram(G, psd=False)


def test_check_csr_coo_indices_other_formats_and_integer_data():
    """check_csr's documented contract on inputs other than canonical CSR: a COO matrix whose
    row or column index is out of range by one (either end, either axis) is refused naming the
    shape; a CSC / LIL matrix is accepted and converted; integer data come back as float64
    (census survivors data.check_csr_67/_72/_73/_78/_79/_83/_86)."""
    from reference.data import check_csr

    dense = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])
    for axis, bad in [("row", 2), ("col", 3), ("row", -1), ("col", -1)]:
        X = sp.coo_matrix(dense)
        getattr(X, axis)[0] = bad  # corrupt the index after construction (scipy checks only then)
        with pytest.raises(ValueError, match=r"^X has a row or column index out of range for shape \(2, 3\)$"):
            check_csr(X)
    for X in [sp.csc_matrix(dense), sp.lil_matrix(dense), sp.csr_matrix(dense.astype(np.int64))]:
        C = check_csr(X)
        assert C.format == "csr" and C.dtype == np.float64, (type(X), C.dtype)
        assert np.array_equal(C.toarray(), dense)


def test_exact_det_signs_singular_and_bad_shapes():
    """exact_det over Q: a row swap flips the sign (det [[0, 1], [1, 0]] = -1), a singular
    matrix gives exactly 0, dyadic entries are exact (det diag(1/2, 3) = 3/2), and a matrix that
    is not square refuses with its shape (before: a 2 x 3 matrix was read as 2 x 2 silently)."""
    from reference.exact import exact_det

    assert exact_det([[0.0, 1.0], [1.0, 0.0]]) == -1
    assert exact_det([[0, 0, 1], [0, 1, 0], [1, 0, 0]]) == -1
    assert exact_det([[1.0, 2.0], [2.0, 4.0]]) == 0
    assert exact_det([[0.5, 0.0], [0.0, 3.0]]) == Fraction(3, 2)
    assert exact_det([[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]]) == 4  # hand: 2(4-1) - 1(2-0)
    for bad in [np.zeros((2, 3)), np.zeros((0, 0)), np.zeros(3)]:
        with pytest.raises(ValueError, match=r"^A must be a non-empty square matrix, got shape"):
            exact_det(bad)
