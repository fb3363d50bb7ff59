"""The compiled engine (engine="fast") against the textbook code.

* the harness: every algorithm's fast engine passes ``theorems.validate.validate(...,
  strict=True)`` -- layers 1-2 plus step-by-step agreement with the reference (the RP14 kernels
  record their iterates; PT11 is compared on the final vector, status and counter);
* stumpy-style equivalence: same status and counter, iterates within rtol, on the built-in
  corpus, with the Sec. 4 fast paths of PT11 too; the linear operator G = Z Z^T against the
  dense G; CSR input against dense input;
* every claim is re-verified in NumPy: a kernel that lies is downgraded to "max_iter";
* the new verifiers reject broken claims;
* the engine's arguments: unknown engine, precision=, numba missing.

Compiled kernels are cached by numba on disk (cache=True), so they compile once per checkout
(in memory, once per process, where no cache location is writable)."""

from __future__ import annotations

import functools
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import reference
import reference as ref
from reference.arithmetic import Arithmetic, g_norm
from reference.exact import verify_exact
from reference.fast import engine as E, pt11_kernels, rp14_kernels
from reference.fast.operator import linear_gram
from reference.patterns import make_patterns
from reference.result import verify_certificate_factored, verify_separator_factored, verify_separator_patterns
from tests.support.fast import X2, Y2, _both, _infeasible, _infeasible_primal, _planted_3, _pt11_same, _same, unguarded
from tests.support.numba import needs_numba
from theorems.validate import corpus, validate
from theorems.instances.families import data_dir


def _planted(m, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    return X, np.where(X @ rng.normal(size=d) >= 0, 1, -1)


PT11 = ("pdm", "pfm", "pdm_succ")


GRAM = ("nkp", "snkp", "nvn", "snkpvn", "isnkpvn")


RTOL, ATOL = 1e-9, 1e-12  # iterates of the two engines differ by summation order only


def fast(alg: str, **opts):
    """reference.<alg>(..., engine="fast") with the signature the harness calls (PT11: no trace)."""
    fn = getattr(reference, alg)
    if alg in PT11:

        def impl(X, y, arg, eta=None, *, rho=1.0, Delta=None, max_iter=1_000_000, max_epochs=None):
            kw = {} if eta is None else {"eta": eta}
            return fn(X, y, arg, rho=rho, Delta=Delta, max_iter=max_iter, max_epochs=max_epochs, engine="fast", **kw, **opts)

        impl.__name__ = f"fast_{alg}"
        return impl
    return functools.partial(fn, engine="fast")


def _call(alg, case, engine, **opts):
    fn = getattr(reference, alg)
    args = case.args
    pos = {"nvn": ("epsilon",), "snkpvn": ("q", "delta"), "isnkpvn": ("gamma", "epsilon"), "pfm": ("beta",),
           "pdm": ("epsilon",), "pdm_succ": ("epsilon", "eta")}.get(alg, ())  # fmt: skip
    kw = {k: v for k, v in args.items() if k in ("normalize", "rule", "rho", "Delta")}
    if alg in PT11:
        kw["max_epochs"] = 10**9
    data = (case.G,) if alg in GRAM else (case.X, case.y)
    return fn(*data, *[args[p] for p in pos], max_iter=case.max_iter, engine=engine, **kw, **opts)


def _key(res):
    return res.w if res.w is not None else (res.alpha if res.alpha is not None else res.p)


def _assert_same(a, b, where):
    assert (a.status, a.iterations) == (b.status, b.iterations), (where, a.message, b.message)
    va, vb = _key(a), _key(b)
    assert va.shape == vb.shape and np.allclose(va, vb, rtol=RTOL, atol=ATOL), (where, np.max(np.abs(va - vb)))
    assert a.engine == "textbook" and b.engine == "fast"


# Disagreements found on the corpus, each after a near-tie of the textbook's argmin (reported as
# notes by the strict harness): nkp and normalized_perceptron on the 3-point simplex (two argmin
# candidates equal in exact arithmetic, -0.125 / -0.0714), nkp on antipodal points with the same
# label (candidates -1.11e-16 apart from 0).  They end with the same status; the counter may differ.
NEAR_TIES = {
    ("nkp", "nkp/infeasible(simplex,d=2,n=3,seed=0)"),
    ("nkp", "nkp/deg:antipodal,same-label"),
    ("normalized_perceptron", "normalized_perceptron/infeasible(simplex,d=2,n=3,seed=0)"),
}


def _planted_2(m=80, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = np.where(X @ rng.normal(size=d) >= 0, 1, -1)
    return X, y


_CSR = sp.csr_matrix


def _sparse_planted(m=120, d=15, seed=1):
    """Separable sparse data (about half the entries zero), labels from a planted direction."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    X[np.abs(X) < 0.8] = 0.0
    X[np.all(X == 0, axis=1), 0] = 1.0
    s = X @ rng.normal(size=d)
    return X, np.where(s >= 0, 1, -1)


def _heart_scale():
    from importlib.resources import files

    return reference.load_libsvm(str(files("reference.data_files") / "heart_scale.txt"))


A9A = str((data_dir() or Path("no-data-dir")) / "a9a" / "a9a.gz")  # $MARGINS_DATA or ../shared/data


def _exact_failure(w, X, y, rho, Delta):
    """'' if l_k <w, [x_k, rho, Delta e_k]> > 0 for every k in exact rational arithmetic (w laid
    out as Result.w: weights, then the bias if rho, then the m extended coordinates if Delta),
    else the first pattern that fails."""
    from fractions import Fraction

    m, d = X.shape
    W = [Fraction(float(v)) for v in w]
    assert len(W) == d + (rho is not None) + (m if Delta is not None else 0)
    for k in range(m):
        s = sum((Fraction(float(X[k, i])) * W[i] for i in range(d)), Fraction(0))
        if rho is not None:
            s += Fraction(float(rho)) * W[d]
        if Delta is not None:
            s += Fraction(float(Delta)) * W[d + (rho is not None) + k]
        if not int(y[k]) * s > 0:
            return f"pattern {k}: l_k <w, y_k> = {float(int(y[k]) * s)!r} <= 0"
    return ""


# Patterns times 2^-e (or given) whose q_k = ||y_k||^2, or (q_k - beta^2) q_k for PFM, underflows
# to 0: mu_+ of a multiple update then divides by zero.  The textbook's numpy arithmetic gives inf
# or nan there (lambda = 1, a single update); numba's float division raised ZeroDivisionError.
EXTREME_MULTIPLE = [
    ("pfm", [[1e111, 0.0], [0.0, 1e22]], [1, 1], (0.001,), dict()),
    ("pfm", [[1e111, 0.0], [0.0, 1e22]], [1, -1], (0.001,), dict()),
    ("pfm", [[-4e108], [1.6e-306]], [1, -1], (0.0,), dict(rho=2.0, Delta=1.0)),  # a separator in 2 updates
    ("pdm", [[2.6e-82], [-5.6e88]], [1, -1], (0.01,), dict(rho=None)),
    ("pdm_succ", [[5e-324, 0.0], [1.0, 0.0]], [1, 1], (0.01,), dict(rho=None)),  # a subnormal row: q_0 = 0
    ("pdm_succ", [[5e-324, 0.0], [1.0, 0.0]], [1, -1], (0.01,), dict(rho=None)),
]


G2 = np.eye(2)


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


def _allowance_edge_cases(slack):
    """(Gv, expected) pairs: all just above the allowance (True); one entry just below (False)."""
    above = slack * (1 + 1e-9)
    yield above, True
    for i in range(slack.shape[0]):
        Gv = above.copy()
        Gv[i] = slack[i] * (1 - 1e-9)
        yield Gv, False




def _refusing_first(verify, count):
    def refusing(*args, **kw):
        count[0] += 1
        return "refused by the test" if count[0] == 1 else verify(*args, **kw)

    return refusing


def _feasible():
    """39 points in R^3, separable with a margin (tests/reference/fast/test_resume.py's instance)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    s = X @ np.array([1.0, -2.0, 0.5])
    keep = np.abs(s) > 0.05
    return X[keep], np.where(s[keep] >= 0, 1, -1)


def _infeasible_random_labels():
    """40 points in R^3 with random labels: no separator (tests/reference/fast/test_resume.py's instance)."""
    rng = np.random.default_rng(6)
    return rng.normal(size=(40, 3)), rng.choice([-1, 1], size=40)


# (Not the cyclic Perceptron: its textbook step takes the first margin within the allowance as the
# mistake, and a refusal the allowance does not explain leaves it none: the run ends, max_iter --
# tests/reference/test_perceptrons.py.)
_REFUSED = {
    # name: (textbook module, its Algorithm, the fast engine's verifier, the run, the data)
    "most_violated": (
        "perceptrons",
        "PERCEPTRON",
        "verify_separator_primal",
        lambda X, y, G, **kw: reference.perceptron(X, y, rule="most_violated", **kw),
        _feasible,
    ),
    "normalized_perceptron": (
        "perceptrons",
        "NORMALIZED_PERCEPTRON",
        "verify_separator_primal",
        lambda X, y, G, **kw: reference.normalized_perceptron(X, y, **kw),
        _feasible,
    ),
    "nkp": ("perceptrons", "NKP", "verify_separator_gram", lambda X, y, G, **kw: reference.nkp(G, **kw), _feasible),
    "nvn": ("von_neumann", "NVN", "verify_separator_gram", lambda X, y, G, **kw: reference.nvn(G, 2e-8, **kw), _feasible),
    "nvn-certificate": ("von_neumann", "NVN", "verify_certificate", lambda X, y, G, **kw: reference.nvn(G, 0.05, **kw), _infeasible_random_labels),
    "snkp": ("smoothed", "SNKP", "verify_separator_gram", lambda X, y, G, **kw: reference.snkp(G, **kw), _feasible),
    "snkpvn": (
        "smoothed",
        "SNKPVN",
        "verify_separator_gram",
        lambda X, y, G, **kw: reference.snkpvn(G, np.full(G.shape[0], 1.0 / G.shape[0]), 2e-8, **kw),
        _feasible,
    ),
    "snkpvn-certificate": (
        "smoothed",
        "SNKPVN",
        "verify_certificate",
        lambda X, y, G, **kw: reference.snkpvn(G, np.full(G.shape[0], 1.0 / G.shape[0]), 0.05, **kw),
        _infeasible_random_labels,
    ),
}


def _checked(kernel):
    import numba

    return numba.njit(boundscheck=True)(kernel.py_func)


ULP = 2.0**-52


_TWO = ([[1 - ULP], [-3.0]], [1, 1])  # G = [[1, -1 + 2^-52], [-1 + 2^-52, 1]]: G (1/2, 1/2) = 2^-53 (1, 1)


@pytest.mark.parametrize("algorithm", reference.ALGORITHMS)
def test_fast_engine_conforms_strict(algorithm):
    # The first call compiles the numba kernels (seconds; more on a loaded machine): a per-case
    # timeout of 20 s would time the compiler, not the implementation.
    r = validate(algorithm, fast(algorithm), budget=4, strict=True, timeout=300)
    assert r.conforms, r.format()


@pytest.mark.parametrize("algorithm", reference.ALGORITHMS)
def test_same_status_counter_and_iterate_on_the_corpus(algorithm):
    checked = 0
    for case in corpus(algorithm):
        a, b = _call(algorithm, case, "textbook"), _call(algorithm, case, "fast")
        if (algorithm, case.case_id.rsplit("/budget", 1)[0].rstrip(",")) in NEAR_TIES or any(
            case.case_id.startswith(cid) for alg, cid in NEAR_TIES if alg == algorithm
        ):
            assert a.status == b.status, case.case_id
            continue
        _assert_same(a, b, case.case_id)
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("algorithm", PT11)
@pytest.mark.parametrize(
    "opts",
    [dict(active_sets=True), dict(multiple_updates=True), dict(active_sets=True, multiple_updates=True)],
    ids=["active", "multiple", "active+multiple"],
)
def test_pt11_fast_paths_agree_on_the_corpus(algorithm, opts):
    """Active sets (same permutations: the wrapper draws them from the same generator) and
    multiple updates (same lambda, same round-off guards) take the same steps."""
    for case in corpus(algorithm):
        _assert_same(_call(algorithm, case, "textbook", **opts), _call(algorithm, case, "fast", **opts), case.case_id)


@pytest.mark.parametrize("opts", [dict(), dict(active_sets=True, multiple_updates=True), dict(Delta=1.0), dict(rho=None)])
@pytest.mark.parametrize("algorithm,arg", [("pdm", 0.05), ("pdm_succ", 0.05), ("pfm", 0.02)])
def test_pt11_agree_on_larger_data(algorithm, arg, opts):
    X, y = _planted_2()
    if opts.get("rho", 1) is None:
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    fn = getattr(reference, algorithm)
    _assert_same(fn(X, y, arg, **opts), fn(X, y, arg, engine="fast", **opts), (algorithm, opts))


def test_pt11_budgets_stop_where_the_textbook_stops():
    X, y = _planted_2()
    for kw in (dict(max_iter=37), dict(max_epochs=3), dict(max_iter=500, active_sets=True, multiple_updates=True), dict(max_iter=0)):
        a, b = reference.pdm(X, y, 0.01, **kw), reference.pdm(X, y, 0.01, engine="fast", **kw)
        _assert_same(a, b, kw)
        assert a.info["epochs"] == b.info["epochs"] and a.info["passes"] == b.info["passes"], kw


def test_pt11_info_matches():
    X, y = _planted_2()
    a, b = reference.pdm_succ(X, y, 0.05, Delta=1.0), reference.pdm_succ(X, y, 0.05, Delta=1.0, engine="fast")
    for key in ("epochs", "passes", "t_c", "eps_schedule", "rho", "Delta"):
        assert a.info[key] == b.info[key], key
    for key in ("ell", "theta", "R", "margin", "upper_bound"):
        assert np.isclose(float(a.info[key]), b.info[key], rtol=1e-9), key


@pytest.mark.parametrize("algorithm", ["nkp", "snkp", "nvn", "isnkpvn"])
def test_linear_operator_agrees_with_dense_gram(algorithm):
    X, y = _sparse_planted()
    G = reference.gram(X, y)
    args = {"nvn": (0.05,)}.get(algorithm, ())
    fn = getattr(reference, algorithm)
    a = fn(G, *args, engine="fast")
    for L in (linear_gram(X, y), linear_gram(_CSR(X), y)):
        b = fn(L, *args, engine="fast")
        assert (a.status, a.iterations) == (b.status, b.iterations)
        assert np.allclose(_key(a), _key(b), rtol=1e-8, atol=1e-12)
    assert np.allclose(L.matvec(np.arange(1.0, 121.0)), G @ np.arange(1.0, 121.0), rtol=1e-12, atol=1e-12)
    Lr = linear_gram(X, y, rho=2.0)
    assert np.allclose(Lr.matvec(np.arange(1.0, 121.0)), reference.gram(X, y, rho=2.0) @ np.arange(1.0, 121.0), rtol=1e-12)


@pytest.mark.parametrize("algorithm,arg", [("pdm", 0.05), ("pfm", 0.02), ("pdm_succ", 0.05)])
def test_pt11_csr_input_agrees_with_dense(algorithm, arg):
    X, y = _sparse_planted()
    fn = getattr(reference, algorithm)
    for opts in (dict(), dict(Delta=1.0, active_sets=True, multiple_updates=True)):
        _assert_same(fn(X, y, arg, **opts), fn(_CSR(X), y, arg, engine="fast", **opts), opts)


def test_one_g_product_per_step():
    X, y = _planted_2(200, 8, 3)
    G = reference.gram(X, y)
    s = reference.snkp(G, engine="fast")
    assert s.info["products"] == s.iterations + 2  # G alpha_0 and G p_0, then one G b per step
    n = reference.nkp(G, engine="fast")
    assert n.info["products"] <= n.iterations + 1 + n.iterations // rp14_kernels.REFRESH_EVERY + 1


def test_a_lying_gram_kernel_is_downgraded(monkeypatch):
    X, y = _planted_2(30, 3)
    G = reference.gram(X, y)
    n = G.shape[0]
    monkeypatch.setattr(rp14_kernels, "nkp", lambda *a: (3, np.eye(n)[0] * 0.0, True, 0))
    r = reference.nkp(G, engine="fast")
    assert r.status == "max_iter" and "separator claimed but not verified" in r.message


def test_a_lying_pt11_kernel_is_downgraded(monkeypatch):
    X, y = _planted_2(30, 3)
    monkeypatch.setattr(pt11_kernels, "run", lambda *a: pt11_kernels.CONVERGED)  # a = 0 claimed converged
    r = reference.pdm(X, y, 0.1, engine="fast")
    assert r.status == "max_iter" and "not > 0 beyond round-off" in r.message


def test_verify_separator_factored_rejects_and_accepts():
    X, y = _planted_2(40, 4)
    L = linear_gram(X, y)
    alpha = reference.nkp(reference.gram(X, y)).alpha
    assert verify_separator_factored(L.Z, alpha) == ""
    assert "is not > 0" in verify_separator_factored(L.Z, np.eye(40)[0])
    # linear XOR: G alpha = 0 exactly for uniform alpha, rounded to +-1e-17: refused
    Xx = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    Lx = linear_gram(Xx, np.array([1, 1, -1, -1]))
    assert "beyond round-off" in verify_separator_factored(Lx.Z, np.full(4, 0.25) + 1e-17)


def test_verify_certificate_factored_rejects():
    L = linear_gram(np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1, 1]))
    assert verify_certificate_factored(L.Z, np.array([0.5, 0.5]), 1e-3) == ""
    assert "negative" in verify_certificate_factored(L.Z, np.array([1.5, -0.5]), 1e-3)
    assert "is not 1" in verify_certificate_factored(L.Z, np.array([0.5, 0.6]), 1e-3)
    assert "is not <" in verify_certificate_factored(L.Z, np.array([0.6, 0.4]), 1e-3)
    assert "is not <=" in verify_certificate_factored(L.Z, np.array([1.0, 0.0]), 0.5, strict=False)


def test_verify_separator_patterns_rejects_and_matches_the_dense_verifier():
    X, y = _planted_2(25, 3)
    r = reference.pdm(X, y, 0.1, Delta=1.0)
    P = make_patterns(X, y, rho=1.0, Delta=1.0)
    vsp = lambda a: verify_separator_patterns(P.data, P.indices, P.indptr, P.labels, P.rho, P.Delta, a, P.n_features)  # noqa: E731
    assert vsp(r.w) == ""
    bad = r.w.copy()
    bad[3 + 1 + 4] = -1e6  # pattern 4's own Delta coordinate: its margin becomes negative
    assert vsp(bad).startswith("y_4 ")
    Y = P.dense()
    for v in (r.w, bad, np.zeros_like(r.w)):  # the same verdict as the dense verifier
        assert (vsp(v) == "") == (reference.result.verify_separator_primal(Y, v) == "")


def test_engine_arguments():
    X, y = _planted_2(10, 2)
    G = reference.gram(X, y)
    with pytest.raises(ValueError, match="engine must be one of"):
        reference.snkp(G, engine="turbo")
    with pytest.raises(ValueError, match="float64 only"):
        reference.snkp(G, engine="fast", precision=30)
    with pytest.raises(ValueError, match="float64 only"):
        reference.pdm(X, y, 0.1, engine="fast", precision=30)
    with pytest.raises(ValueError, match="trace=True is the textbook engine's"):
        reference.pdm(X, y, 0.1, engine="fast", trace=True)
    assert reference.snkp(G).engine == "textbook" and reference.snkp(G, engine="fast").engine == "fast"
    assert reference.snkp(G, engine="fast").as_dict()["engine"] == "fast"


@pytest.mark.parametrize("algorithm,arg", [("pdm", 0.1), ("pfm", 0.05), ("pdm_succ", 0.1)])
def test_pt11_budgets_beyond_int64(algorithm, arg):
    """The kernel counts t and the epochs in int64: max_iter >= 2^63 is a ValueError naming the
    textbook engine (it raised numba's OverflowError); max_epochs >= 2^63 is no cap, as there."""
    X, y = _planted_2(10, 2)
    fn = getattr(reference, algorithm)
    with pytest.raises(ValueError, match=r"max_iter must be <= 2\^63 - 1 with engine='fast'"):
        fn(X, y, arg, max_iter=2**63, engine="fast")
    assert fn(X, y, arg, max_iter=2**63 - 1, engine="fast").status == fn(X, y, arg, max_iter=2**63 - 1).status
    for max_epochs in (2**63, 10**30):
        a, b = fn(X, y, arg, max_epochs=max_epochs), fn(X, y, arg, max_epochs=max_epochs, engine="fast")
        _assert_same(a, b, (algorithm, max_epochs))


@pytest.mark.parametrize("algorithm", ["perceptron", "normalized_perceptron", "nkp", "snkp", "nvn", "snkpvn", "isnkpvn"])
def test_rp14_budgets_beyond_int64(algorithm):
    """The RP14 kernels count k in int64 too: max_iter >= 2^63 is the same ValueError as PT11's
    (it was numba's TypingError); 2^63 - 1 runs, as in the textbook."""
    X, y = np.array([[1.0, 0.25], [0.5, 1.0]]), np.array([1, 1])
    G = reference.gram(X, y)
    call = {
        "perceptron": lambda **kw: reference.perceptron(X, y, **kw),
        "normalized_perceptron": lambda **kw: reference.normalized_perceptron(X, y, **kw),
        "nkp": lambda **kw: reference.nkp(G, **kw),
        "snkp": lambda **kw: reference.snkp(G, **kw),
        "nvn": lambda **kw: reference.nvn(G, 0.5, **kw),
        "snkpvn": lambda **kw: reference.snkpvn(G, np.full(2, 0.5), 0.5, **kw),
        "isnkpvn": lambda **kw: reference.isnkpvn(G, 2.0, 0.5, **kw),
    }[algorithm]
    with pytest.raises(ValueError, match=r"max_iter must be <= 2\^63 - 1 with engine='fast'"):
        call(max_iter=2**63, engine="fast")
    assert call(max_iter=2**63 - 1, engine="fast").status == call(max_iter=2**63 - 1).status == "separator"


def test_linear_gram_arguments():
    with pytest.raises(ValueError, match="zero point"):
        linear_gram(np.array([[1.0, 0.0], [0.0, 0.0]]), np.array([1, -1]))
    with pytest.raises(ValueError, match=r"\+1 and -1"):
        linear_gram(np.eye(2), np.array([1, 2]))


@pytest.mark.parametrize("algo", reference.ALGORITHMS)
def test_cli_run_engine_fast_matches_textbook(tmp_path, capsys, algo):
    """``margins run ALGO --engine fast`` gives the textbook's status and counter (the linear
    kernel's Gram algorithms through the operator G = Z Z^T)."""
    import json

    from theorems import cli

    X, y = _planted_2(40, 3, 5)
    f = tmp_path / "d.npz"
    np.savez(f, X=X, y=y)
    extra = {"pfm": ["--beta", "0.05"], "pdm": ["--epsilon", "0.1"], "pdm_succ": ["--epsilon", "0.1"],
             "nvn": ["--epsilon", "0.01"], "snkpvn": ["--delta", "0.01"]}.get(algo, [])  # fmt: skip
    out = []
    for engine in ("textbook", "fast"):
        assert cli.main(["run", algo, "--data", str(f), "--json", "--engine", engine, *extra]) == 0
        out.append(json.loads(capsys.readouterr().out))
    assert out[0]["engine"] == "textbook" and out[1]["engine"] == "fast"
    assert (out[0]["status"], out[0]["iterations"]) == (out[1]["status"], out[1]["iterations"])


@pytest.mark.parametrize(
    "algorithm,arg,opts",
    [("pdm", 0.1, dict()), ("pdm", 0.05, dict(active_sets=True, multiple_updates=True)), ("pfm", 0.08, dict(multiple_updates=True)),
     ("pdm_succ", 0.05, dict(active_sets=True, multiple_updates=True))],
)  # fmt: skip
def test_real_data_same_updates_and_vector(algorithm, arg, opts):
    """heart_scale (270 points, shipped) in the extended space: thousands of updates, same t, same a_t."""
    X, y = _heart_scale()
    fn = getattr(reference, algorithm)
    a, b = fn(X, y, arg, Delta=1.0, **opts), fn(X, y, arg, Delta=1.0, engine="fast", **opts)
    assert a.iterations > 1000
    _assert_same(a, b, (algorithm, opts))


@pytest.mark.parametrize("algorithm", ["snkp", "nkp"])
def test_real_data_gram_same_iterates(algorithm):
    X, y = _heart_scale()
    G = reference.gram(X, y, rho=1.0)
    fn = getattr(reference, algorithm)
    _assert_same(fn(G, max_iter=300), fn(G, max_iter=300, engine="fast"), algorithm)


@pytest.mark.slow
@pytest.mark.skipif(not __import__("os").path.exists(A9A), reason=f"a9a not found at {A9A}")
@pytest.mark.parametrize("opts", [dict(), dict(active_sets=True, multiple_updates=True)], ids=["plain", "active+multiple"])
def test_a9a_first_2000_points_same_updates_and_vector(opts):
    X, y = reference.load_libsvm(A9A)
    X, y = X[:2000], y[:2000]
    a = reference.pdm(X, y, 0.01, Delta=1.0, **opts)
    b = reference.pdm(X, y, 0.01, Delta=1.0, engine="fast", **opts)
    _assert_same(a, b, opts)


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_pt11_at_extreme_scales_runs_like_the_textbook(scale):
    """The fast PT11 engine squared rho and Delta unscaled: rho = 1e300 or Delta = 1e308 raised
    OverflowError (34, ...) where the textbook runs on the patterns times a power of two (found
    checking `margins run pdm --engine fast --Delta 1e308`).  Both engines now share that scaling."""
    from reference.exact import verify_exact

    X = np.array([[1.0, 2.0], [2.0, 1.5], [-1.0, -1.0], [-2.0, 0.5]]) * scale
    y = np.array([1, 1, -1, -1])
    for fn, first, kw in ((reference.pfm, 0.01 * scale, dict(rho=scale)), (reference.pdm, 0.1, dict(rho=scale)),
                          (reference.pdm_succ, 0.1, dict(rho=scale, multiple_updates=True)),
                          (reference.pdm, 0.1, dict(rho=1.0, Delta=1e308)), (reference.pdm, 0.1, dict(rho=scale, Delta=scale))):
        slow, fast = fn(X, y, first, **kw), fn(X, y, first, engine="fast", **kw)
        assert fast.status == slow.status == reference.SEPARATOR and fast.iterations == slow.iterations, (fn, kw)
        assert fast.info["scale"] == slow.info["scale"] and verify_exact(fast, X, y) == ""
        np.testing.assert_allclose(fast.w, slow.w, rtol=RTOL, atol=0)


# A fresh process runs both kernel modules' engines (RP14's nvn, PT11's pdm) from the install at
# argv[1] and compares them with the textbook engine: same status, counter and message, iterates
# within RTOL.  It first tries to write into the install and stops with WRITABLE if it can.
FAST_RUN_SCRIPT = """
import os, sys, numpy as np
import reference
assert reference.__file__.startswith(sys.argv[1]), reference.__file__
try:
    open(os.path.join(os.path.dirname(reference.__file__), "fast", "probe"), "w").close()
    print("WRITABLE")
    sys.exit(0)
except OSError:
    pass
def same(a, b):
    assert (a.status, a.iterations, a.message) == (b.status, b.iterations, b.message), (a, b)
    assert (a.engine, b.engine) == ("textbook", "fast")
    for name in ("w", "alpha", "p"):
        va, vb = getattr(a, name), getattr(b, name)
        assert (va is None) == (vb is None), name
        assert va is None or np.allclose(va, vb, rtol=%r, atol=%r), (name, va, vb)
G = np.array([[1.0, 0.5], [0.5, 1.0]])
same(reference.nvn(G, 0.1), reference.nvn(G, 0.1, engine="fast"))
X, y = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -2.0]]), np.array([1, 1, -1])
b = reference.pdm(X, y, 0.1, engine="fast")
same(reference.pdm(X, y, 0.1), b)
print("OK", b.status)
""" % (RTOL, ATOL)


def _make_read_only(root):
    """chmod a-w on ``root`` and everything under it; returns the sorted list of its paths."""
    import stat

    for p in sorted(root.rglob("*"), reverse=True) + [root]:
        if not p.is_symlink():
            p.chmod(p.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    return sorted(str(p) for p in root.rglob("*"))


def _make_writable(root):
    import stat

    for p in [root] + list(root.rglob("*")):
        if not p.is_symlink():
            p.chmod(p.stat().st_mode | stat.S_IWUSR)  # so that the tree can be removed


def _fast_run_env(**extra):
    """The environment without HOME, NUMBA_CACHE_DIR, XDG_CACHE_HOME (numba's user-wide cache
    falls back to the password database's home), plus ``extra``."""
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "PYTHONPATH")}
    env.update(extra)
    return env


def _check_fast_run(out, root, before):
    if out.stdout.startswith("WRITABLE"):
        pytest.skip("the install stayed writable (a file system without permission bits)")
    assert out.returncode == 0 and out.stdout.startswith("OK"), out.stdout[-500:] + out.stderr[-2000:]
    assert "no locator available" not in out.stderr
    assert sorted(str(p) for p in root.rglob("*")) == before  # no cache file, no bytecode


def test_kernels_run_where_no_cache_location_is_writable(tmp_path):
    """numba's cache=True refuses to compile at all when it finds no writable place for the cache
    ("RuntimeError: cannot cache function ...: no locator available"): a read-only install with no
    home directory could not run engine="fast".  In a fresh process on a read-only copy of the
    package, HOME and NUMBA_CACHE_DIR unset and the user cache directory read-only, both kernel
    modules compile in memory, the runs agree with the textbook engine, and nothing is written.
    (A wheel installed into a venv, run as an unprivileged user:
    test_kernels_run_from_a_read_only_wheel_install_as_an_unprivileged_user, slow tier.)"""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    root = tmp_path / "install"
    shutil.copytree(Path(reference.__file__).parent, root / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "cache").mkdir()  # XDG_CACHE_HOME: numba's user-wide cache directory, read-only too
    before = _make_read_only(root)
    env = _fast_run_env(XDG_CACHE_HOME=str(root / "cache"), PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-c", FAST_RUN_SCRIPT, str(root)]
    if os.geteuid() == 0:  # root writes through permission bits: run without CAP_DAC_OVERRIDE
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: a read-only location cannot be made here")
        cmd = ["setpriv", "--inh-caps=-dac_override,-dac_read_search", "--bounding-set=-dac_override,-dac_read_search", *cmd]
    try:
        out = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True, timeout=600)
    finally:
        _make_writable(root)
    _check_fast_run(out, root, before)


def _unprivileged(python, env):
    """The command prefix that runs as user ``nobody`` when this process is root (setpriv, else
    runuser); [] when not root.  Skips when neither can run ``python`` as nobody."""
    import os
    import shutil
    import subprocess

    if os.geteuid() != 0:
        return []
    tried = []
    for prefix in (["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"], ["runuser", "-u", "nobody", "--"]):
        if shutil.which(prefix[0]) is None:
            tried.append(f"{prefix[0]}: not found")
            continue
        probe = subprocess.run([*prefix, python, "-c", "import os, numpy, numba; print(os.geteuid())"], env=env,
                               capture_output=True, text=True, timeout=120, cwd="/")  # fmt: skip
        if probe.returncode == 0 and probe.stdout.strip() not in ("", "0"):
            return prefix
        tried.append(f"{prefix[0]}: {(probe.stderr or probe.stdout).strip()[-300:]}")
    pytest.skip("running as root, and user nobody cannot run this interpreter with numba: " + "; ".join(tried))


@pytest.mark.slow  # about 40 s: a wheel build, a venv, two processes compiling the kernels
def test_kernels_run_from_a_read_only_wheel_install_as_an_unprivileged_user(tmp_path):
    """The project as users install it: a wheel (``pip wheel . --no-deps``), installed
    non-editable into a fresh venv that sees this environment's numpy and numba, the venv made
    read-only, run with HOME and NUMBA_CACHE_DIR unset, as user nobody when the tests run as root.
    Two such processes start at once (both compile the kernels in memory): both agree with the
    textbook engine, and nothing is written into the install."""
    import importlib.util
    import os
    import shutil
    import site
    import subprocess
    import sys
    import sysconfig
    import tempfile
    from pathlib import Path

    pytest.importorskip("numba")
    project = Path(reference.__file__).resolve().parents[1]
    src = tmp_path / "src"  # the build writes build/ and *.egg-info beside the sources: not into the checkout
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(project / name, src / name)
    for package in ("reference", "theorems", "proofs_check"):
        shutil.copytree(project / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    setuptools = importlib.util.find_spec("setuptools")
    isolation = []  # build with this environment's setuptools when it is new enough (offline)
    if setuptools is not None:
        import setuptools as st

        if int(st.__version__.split(".")[0]) >= 77:
            isolation = ["--no-build-isolation"]
    wheels = tmp_path / "wheels"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", *isolation, "-w", str(wheels)],
                           capture_output=True, text=True, timeout=600)  # fmt: skip
    if build.returncode != 0 and not isolation and "No matching distribution found for setuptools" in build.stdout + build.stderr:
        pytest.skip("no setuptools>=77 here and no index to fetch it from: the wheel cannot be built")
    assert build.returncode == 0, build.stdout[-1000:] + build.stderr[-2000:]
    (wheel,) = wheels.glob("perceptron_margins-*.whl")

    # Outside tmp_path: pytest's base temporary directory is private to this user (mode 0700).
    base = Path(tempfile.mkdtemp(prefix="margins-wheel-"))
    try:
        base.chmod(0o755)
        venv = base / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
        python = str(venv / "bin" / "python")
        purelib = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                      capture_output=True, text=True, check=True).stdout.strip())  # fmt: skip
        # numpy and numba from this environment (a venv's --system-site-packages would give the base
        # interpreter's, not this venv's): its site directories, after the new venv's own.
        outer = [p for p in dict.fromkeys([*site.getsitepackages(), sysconfig.get_path("purelib"), sysconfig.get_path("platlib")])
                 if os.path.isdir(p)]  # fmt: skip
        (purelib / "_outer_site.pth").write_text("".join(p + "\n" for p in outer))
        install = subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", str(wheel)],
                                 capture_output=True, text=True, timeout=600)  # fmt: skip
        assert install.returncode == 0, install.stdout[-1000:] + install.stderr[-2000:]
        installed = purelib / "reference"
        assert (installed / "fast" / "__init__.py").is_file()
        before = _make_read_only(venv)
        env = _fast_run_env()
        prefix = _unprivileged(python, env)
        cmd = [*prefix, python, "-c", FAST_RUN_SCRIPT, str(installed)]
        runs = [subprocess.Popen(cmd, env=env, cwd="/", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
        outs = []
        for p in runs:
            stdout, stderr = p.communicate(timeout=600)
            outs.append(subprocess.CompletedProcess(cmd, p.returncode, stdout, stderr))
        for out in outs:
            _check_fast_run(out, venv, before)
    finally:
        _make_writable(base)
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("active_sets", [False, True], ids=["box", "active"])
@pytest.mark.parametrize("algorithm,X,y,args,kw", EXTREME_MULTIPLE, ids=[f"{c[0]}-{i}" for i, c in enumerate(EXTREME_MULTIPLE)])
def test_pt11_multiple_updates_with_an_underflowing_q_run_like_the_textbook(algorithm, X, y, args, kw, active_sets):
    """A zero denominator of mu_+ is a single update in both engines (it raised ZeroDivisionError
    in the compiled kernel); a separator either engine returns holds exactly."""
    X, y = np.array(X), np.array(y)
    fn = getattr(reference, algorithm)
    rho, Delta = kw.get("rho", 1.0), kw.get("Delta")
    where = f"{algorithm}(X={X.tolist()}, y={y.tolist()}, {args}, {kw}, multiple_updates=True, active_sets={active_sets})"
    res = {}
    for engine in ("textbook", "fast"):
        try:
            r = fn(X, y, *args, multiple_updates=True, active_sets=active_sets, max_iter=1000, engine=engine, **kw)
        except Exception as e:  # noqa: BLE001 -- name the instance and the engine
            pytest.fail(f"{engine} {where}: {type(e).__name__}: {e}")
        if r.status == reference.SEPARATOR:
            failure = _exact_failure(r.w, X, y, rho, Delta)
            assert failure == "", f"{engine} {where}: separator at iteration {r.iterations} fails exactly: {failure}"
        res[engine] = r
    slow, quick = res["textbook"], res["fast"]
    assert quick.status == slow.status, (where, f"textbook {slow.status} at t = {slow.iterations}: {slow.message}",
                                         f"fast {quick.status} at t = {quick.iterations}: {quick.message}")  # fmt: skip


def test_cli_run_pfm_fast_multiple_updates_at_an_extreme_scale(tmp_path, capsys):
    """``margins run pfm --engine fast --multiple-updates`` on points 1e111 and 1e22 (q_2 (q_2 - beta^2)
    underflows on the patterns times 2^-369): the textbook's status, no traceback."""
    import json

    from theorems import cli

    f = tmp_path / "d.npz"
    np.savez(f, X=np.array([[1e111, 0.0], [0.0, 1e22]]), y=np.array([1, 1]))
    out = []
    for engine in ("textbook", "fast"):
        args = ["run", "pfm", "--data", str(f), "--beta", "0.001", "--multiple-updates", "--max-iter", "500", "--json", "--quiet"]
        assert cli.main([*args, "--engine", engine]) == 0, engine
        out.append(json.loads(capsys.readouterr().out))
    assert out[0]["status"] == out[1]["status"], (out[0]["message"], out[1]["message"])


@pytest.mark.parametrize("active_sets", [False, True], ids=["box", "active"])
@pytest.mark.parametrize("y", [[1, 1], [1, -1]])
def test_pt11_multiple_update_whose_mu_plus_overflows_is_one_update_in_both_engines(y, active_sets):
    """y_2 = [0, 1e-160] has q_2 = 1e-320 (subnormal, not 0) and eps q_2 underflows to 0, so
    mu_+ = 2C / (-B) = 2C / (-t q_2) overflows to inf: the textbook makes one update (lambda = 1);
    the compiled kernel took lambda = max_iter - t (the same t, another a_t and pass count)."""
    X, y = np.array([[1.0, 0.0], [0.0, 1e-160]]), np.array(y)
    where = f"pdm(X={X.tolist()}, y={y.tolist()}, 1e-5, rho=None, multiple_updates=True, active_sets={active_sets})"
    slow, quick = (reference.pdm(X, y, 1e-5, rho=None, multiple_updates=True, active_sets=active_sets, max_iter=300, engine=e)
                   for e in ("textbook", "fast"))  # fmt: skip
    assert (quick.status, quick.iterations) == (slow.status, slow.iterations), (where, slow.message, quick.message)
    assert quick.info["passes"] == slow.info["passes"], (where, f"t = {slow.iterations}", slow.info["passes"], quick.info["passes"])
    assert np.array_equal(quick.w, slow.w), (where, f"t = {slow.iterations}", slow.w, quick.w)


def test_unknown_engine_is_refused():
    X, y = _planted(10, 2)
    with pytest.raises(ValueError, match="engine must be one of"):
        reference.pdm(X, y, 0.1, engine="turbo")


def test_missing_numba_names_the_install_command(monkeypatch):
    import reference.engines

    monkeypatch.setattr(reference.engines, "available", lambda: False)  # the one check_engine reads
    X, y = _planted(10, 2)
    for call in (lambda: reference.nkp(reference.gram(X, y), engine="fast"), lambda: reference.pdm(X, y, 0.1, engine="fast")):
        with pytest.raises(ValueError, match=r"pip install 'perceptron-margins\[fast\]'"):
            call()
    assert reference.nkp(reference.gram(X, y)).engine == "textbook"  # the textbook engine needs no numba


def test_fast_engine_allocates_no_trace_unless_asked():
    """Without trace the fast engine keeps no per-iteration records, so a huge budget costs nothing:
    G = [[1, 1/2], [1/2, 1]] is separated at the first iteration (both points at 60 degrees)."""
    pytest.importorskip("numba")
    import reference

    G = np.array([[1.0, 0.5], [0.5, 1.0]])
    r = reference.nkp(G, engine="fast", max_iter=10**15)
    assert r.status == "separator" and r.iterations == 1 and r.trace is None


@pytest.mark.parametrize("call,pattern", BAD)
def test_bad_arguments_name_the_argument_and_the_fix_as_the_textbook_does(call, pattern):
    with pytest.raises(ValueError, match=pattern) as fast:
        call("fast")
    with pytest.raises(ValueError, match=pattern) as textbook:
        call("textbook")
    assert str(fast.value) == str(textbook.value)  # "the same messages" (reference.fast.engine)


def test_boundary_values_are_accepted():
    # epsilon = 1 is inside (0, 1] for NVN; tiny positive accuracies and rho are > 0
    for e in ("fast", "textbook"):
        assert reference.nvn(G2, 1.0, engine=e).status == reference.CERTIFICATE  # ||1/2 (1,1)||_I = 1/sqrt 2 <= 1
        assert unguarded("isnkpvn")(G2, 1.0 + 2**-52, 1e-300, max_iter=0, engine=e).status == reference.MAX_ITER
        with pytest.raises(ValueError, match="below the round-off floor"):  # the public function: refused up front
            reference.isnkpvn(G2, 1.0 + 2**-52, 1e-300, max_iter=0, engine=e)
    assert linear_gram(X2, Y2, rho=1e-300).shape == (2, 3)
    P = make_patterns(np.zeros((2, 2)), Y2, rho=None, Delta=1e-300)  # zero rows: Delta makes them nonzero
    assert P.Delta == 1e-300 and P.rho is None


def test_separators_and_budgets_keep_the_textbook_info_keys():
    X, y = _planted_3()
    G = reference.gram(X, y)
    for name, args in [("nkp", (G,)), ("snkp", (G,)), ("nvn", (G, 0.01)), ("snkpvn", (G, np.full(12, 1 / 12), 1e-3)), ("isnkpvn", (G,))]:
        fn = getattr(reference, name)
        for kw in (dict(), dict(max_iter=1)):
            slow, fast = fn(*args, **kw), fn(*args, engine="fast", **kw)
            assert (slow.status, slow.iterations) == (fast.status, fast.iterations), (name, kw)
            assert set(slow.info) <= set(fast.info), (name, kw)


def test_gram_verify_certificate_strict_refuses_equality():
    # G = I_2, p = (1, 0): ||p||_G = 1 exactly.  Strict (SNKPVN, ISNKPVN): 1 < 1 is false.
    p = np.array([1.0, 0.0])
    for G in (np.eye(2), linear_gram(np.eye(2), np.array([1, 1]))):
        g = E._Gram(G)
        assert "is not <" in g.verify_certificate(p, 1.0)
        assert "is not <" in g.verify_certificate(p, 1.0, strict=True)
        assert g.verify_certificate(p, 1.0, strict=False) == ""  # NVN: 1 <= 1
        assert g.verify_certificate(p, 2.0) == ""


def test_gram_verify_separator_both_kinds():
    Xx = np.array([[1.0, 0.0], [0.0, 1.0]])
    for G in (np.eye(2), linear_gram(Xx, np.array([1, 1]))):
        g = E._Gram(G)
        assert g.verify_separator(np.array([0.5, 0.5])) == ""
        assert "is not > 0" in g.verify_separator(np.array([1.0, 0.0]))


@pytest.mark.parametrize("G", [reference.gram(*_planted_3()), _infeasible()], ids=["separable", "infeasible"])
def test_smoothed_traces_are_the_textbook_states(G):
    n = G.shape[0]
    q = np.full(n, 1.0 / n)
    for name, args, mu0 in (("snkp", (G,), 2.0), ("snkpvn", (G, q, 2e-8), 2.0 * n)):
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


@pytest.mark.parametrize("name", ["perceptron", "normalized_perceptron"])
def test_a_lying_perceptron_kernel_is_downgraded(monkeypatch, name):
    # the kernel claims "separated" with w = 0: y_i <0, x_i> = 0 is not > 0, so max_iter
    X, y = _planted_3()
    monkeypatch.setattr(rp14_kernels, name, lambda Z, *a: (3, np.zeros(Z.shape[1]), True))
    r = getattr(reference, name)(X, y, engine="fast")
    assert (r.status, r.iterations) == (reference.MAX_ITER, 3)
    assert r.message.startswith("separator claimed but not verified: ")


def test_messages_are_the_textbook_messages():
    """The Result is the textbook's, messages included ("separator verified in float64",
    "certificate verified in float64", "budget exhausted after k iterations")."""
    X, y = _planted_3()
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


def test_result_fields_are_the_textbook_fields():
    """algorithm name, trace None unless asked, alpha only for an NVN separator, products counted."""
    X, y = _planted_3()
    G, Gi = reference.gram(X, y), _infeasible()
    runs = [("nkp", (G,), {}), ("snkp", (G,), {}), ("snkp", (Gi,), dict(max_iter=5)), ("nvn", (G, 0.01), {}), ("nvn", (Gi, 0.1), {}),
            ("nvn", (Gi, 2e-8), dict(max_iter=7)), ("snkpvn", (Gi, np.full(10, 0.1), 0.1), {}), ("snkpvn", (G, np.full(12, 1 / 12), 1e-3), {}),
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


def test_internal_wrappers_take_their_options_by_keyword():
    G = np.eye(2)
    for call in (lambda: E.nkp(G, 5, False), lambda: E.snkp(G, 5, False), lambda: E.nvn(G, 0.5, 5, False),
                 lambda: E.snkpvn(G, [0.5, 0.5], 0.1, 5, False), lambda: E.isnkpvn(G, 2.0, 0.1, 5, False),
                 lambda: E.perceptron(X2, Y2, "cyclic", None, 5, False), lambda: E.normalized_perceptron(X2, Y2, True, None, 5, False)):  # fmt: skip
        with pytest.raises(TypeError):
            call()
    assert E.nkp(G=G, max_iter=5, trace=False).status == reference.SEPARATOR


def test_primal_budgets_end_with_max_iter():
    X, y = _infeasible_primal()
    for fn in (reference.perceptron, reference.normalized_perceptron):
        slow, fast = fn(X, y, max_iter=3), fn(X, y, max_iter=3, engine="fast")
        assert (fast.status, fast.iterations, fast.message) == (slow.status, slow.iterations, slow.message) == (reference.MAX_ITER, 3, "budget exhausted after 3 iterations")
        assert fast.trace is None and fast.algorithm == slow.algorithm


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
    must be found and named (a loop over the first _PAIR_BLOCK starts
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
    shape; a CSC / LIL matrix is accepted and converted; integer data come back as float64"""
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


@pytest.mark.parametrize("name", ["nkp", "nvn", "snkp", "snkpvn"])
def test_a_trace_with_no_step_records_the_start(name):
    """max_iter = 0 with trace=True: one state, the algorithm's start (alpha_0 = 0 for NKP,
    p_0 = 1_n/n for NVN, alpha_0 = 1_n/n and mu_0 for SNKP / SNKPVN), as the textbook records it.
    X = (e1, -e1, e2), y = 1: not separable, so no exit at k = 0."""
    G = reference.gram(np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]]), np.ones(3))
    third = np.full(3, 1.0 / 3)
    calls = {
        "nkp": lambda **kw: reference.nkp(G, **kw),
        "nvn": lambda **kw: reference.nvn(G, 1e-3, **kw),
        "snkp": lambda **kw: reference.snkp(G, **kw),
        "snkpvn": lambda **kw: reference.snkpvn(G, third, 1e-3, **kw),
    }
    a, b = _both(calls[name], max_iter=0, trace=True)
    assert (a.status, a.iterations, len(a.trace)) == (b.status, b.iterations, len(b.trace)) == (reference.MAX_ITER, 0, 1)
    start = {"nkp": ("alpha", np.zeros(3)), "nvn": ("p", third), "snkp": ("alpha", third), "snkpvn": ("alpha", third)}[name]
    for r in (a, b):
        np.testing.assert_array_equal(getattr(r.trace[0], start[0]), start[1])
    if name.startswith("snkp"):
        assert a.trace[0].mu == b.trace[0].mu == (2.0 if name == "snkp" else 6.0)  # mu_0 := 2, or 2n
        np.testing.assert_allclose(b.trace[0].p, a.trace[0].p, rtol=1e-15)


@pytest.mark.parametrize("name", list(_REFUSED))
def test_after_a_refused_first_claim_both_engines_go_on_alike(monkeypatch, name):
    import dataclasses
    import importlib

    from reference.fast import engine

    module, algorithm, verifier, run, data = _REFUSED[name]
    X, y = data()
    G = reference.gram(X, y)
    plain, plain_fast = run(X, y, G, max_iter=2000), run(X, y, G, max_iter=2000, engine="fast")
    expected = reference.CERTIFICATE if name.endswith("certificate") else reference.SEPARATOR
    assert plain.status == expected  # the claim the verifiers will refuse, at plain.iterations
    mod = importlib.import_module(f"reference.{module}")
    algo = getattr(mod, algorithm)
    slow_count, fast_count = [0], [0]
    monkeypatch.setattr(mod, algorithm, dataclasses.replace(algo, verify=_refusing_first(algo.verify, slow_count)))
    monkeypatch.setattr(engine, verifier, _refusing_first(getattr(engine, verifier), fast_count))
    slow, fast = run(X, y, G, max_iter=2000, trace=True), run(X, y, G, max_iter=2000, trace=True, engine="fast")
    assert slow_count[0] >= 2 and fast_count[0] >= 2  # the refused claim, then at least one more
    assert slow.iterations > plain.iterations  # the textbook stepped on past the refused claim
    assert (fast.status, fast.iterations, fast.message) == (slow.status, slow.iterations, slow.message), (fast.message, slow.message)
    vs = next(v for v in (slow.w, slow.alpha, slow.p) if v is not None)
    vf = next(v for v in (fast.w, fast.alpha, fast.p) if v is not None)
    np.testing.assert_allclose(vf, vs, rtol=1e-9, atol=1e-12)
    assert len(fast.trace) == len(slow.trace) == slow.iterations + 1  # the states before and after the refusal
    # G-products, counted across the resume: NKP one column per step; SNKP G alpha_0 and G b_0, then
    # one G b per step (no refresh below REFRESH_EVERY = 1024 steps, no certificate test)
    if name in ("nkp", "snkp"):
        start = {"nkp": 0, "snkp": 2}[name]
        assert fast.info["products"] == fast.iterations + start and plain_fast.info["products"] == plain.iterations + start
    for a, b in zip(slow.trace, fast.trace):
        assert a.k == b.k
        for field in ("w", "alpha", "p"):
            if hasattr(a, field):
                np.testing.assert_allclose(getattr(b, field), getattr(a, field), rtol=1e-9, atol=1e-12, err_msg=f"{field}_{a.k}")


def test_nvn_certificate_near_epsilon_is_decided_on_a_fresh_product():
    """rp14_kernels: a carried G p drifts from G p by round-off, so an exit test within REFRESH_TOL
    of deciding is taken on a fresh product.  The NVN kernel is resumed (past both exit tests at k = 0)
    from p_0 = 1_3/3 with a carried G p off by delta = 2^-32 in every entry, on
    G = 3/2 I - 1/4 J (points at 120 degrees lifted by 1/2: G p_0 = 1/4, ||p_0||_G = 1/2).
    The step: j = 0 (a tie), theta = delta / ||p_0 - e_0||_G^2 (tiny: G p_0 is constant, only the
    drift moves it), so ||p_1||_G^2 = 1/4 + theta^2 ||p_0 - e_0||_G^2 = 1/4 + O(delta^2), while the
    carried product gives ||p_1||^2 = 1/4 + (1 - theta) delta.  With epsilon = 1/2 + delta / 2, between
    the two norms (1/2 + O(delta^2) and 1/2 + delta), the fresh one decides: a certificate at k = 1
    (the carried one would not, and G p > 0 would then claim a separator)."""
    from reference.arithmetic import Arithmetic, g_norm
    from reference.fast import rp14_kernels as K

    n, delta = 3, 2.0**-32
    G = 1.5 * np.eye(n) - 0.25 * np.ones((n, n))
    p = np.full(n, 1.0 / n)
    Gp = G @ p + delta
    eps = 0.5 + delta / 2
    sparse = (np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64), 1)
    k, p1, claim, products = K.nvn(
        0, np.asfortranarray(G), *sparse, eps, 1, np.zeros((0, n)), np.zeros(0), p, Gp,
        np.full(1, -1, dtype=np.int64), np.zeros(n), 0, 2,
    )  # fmt: skip
    assert (k, claim) == (1, 2)  # a certificate at k = 1
    assert abs(float(g_norm(G, p1, Arithmetic(None))) - 0.5) < 1e-15 and p1[0] > 1.0 / 3  # p_1 moved toward e_0, a hair
    np.testing.assert_allclose(Gp, G @ p1, rtol=0, atol=1e-16)  # the decision was taken on a fresh G p_1


def test_perceptron_kernel_stays_inside_its_arrays():
    from reference.fast import rp14_kernels as K

    Z = np.array([[1.0, 0.0], [-1.0, 0.5], [0.5, 1.0]])  # reflected rows; separable (w = (0, 1))
    dim = Z.shape[1]
    perceptron = _checked(K.perceptron)
    for max_iter in (0, 1, 50):
        for rows in (0, max_iter + 1):  # no trace; a trace
            for most_violated in (False, True):
                w, cursor = np.zeros(dim), np.zeros(1, dtype=np.int64)
                k, w, separated = perceptron(Z, most_violated, max_iter, np.zeros((rows, dim)), w, 0, cursor, 0)
                assert 0 <= cursor[0] < Z.shape[0]
                perceptron(Z, most_violated, max_iter, np.zeros((rows, dim)), w, k, cursor, 1)  # resume at k


def test_compiled_projection_is_the_textbook_projection_bit_for_bit():
    """rp14_kernels._project_q(q, Ga, mu) is reference.arithmetic.project_simplex(q - Ga / mu): the
    same operations in the same order (shift by the max, sort, running sums, tau), so the same bits --
    on random arguments with the maximum of v at every position, at ordinary and extreme scales
    (|v| ~ 1e20, where a shift by anything but the max loses the 1 in c_j - 1)."""
    from reference.arithmetic import Arithmetic, project_simplex
    from reference.fast.rp14_kernels import _project_q

    F = Arithmetic(None)
    rng = np.random.default_rng(9)
    for trial in range(400):
        n = int(rng.integers(1, 7))
        q = rng.dirichlet(np.ones(n))
        Ga = rng.normal(size=n)
        Ga[trial % n] = -abs(Ga).max() - rng.uniform(0.1, 2.0)  # v_i = q_i - Ga_i / mu largest at i = trial % n
        mu = [1.0, 0.3, 1e-3, 1e-20][trial % 4]
        out = np.empty(n)
        _project_q(q, Ga, mu, out)
        expected = project_simplex(q - Ga / mu, F)
        np.testing.assert_array_equal(out, expected, err_msg=f"q={q.tolist()} Ga={Ga.tolist()} mu={mu}")
        assert abs(out.sum() - 1.0) <= 4 * n * 2.0**-52 and (out >= 0).all()  # on the simplex


@needs_numba
@pytest.mark.parametrize("fn, args", [(reference.snkp, ()), (unguarded("nvn"), (1e-12,))], ids=["snkp", "nvn"])
def test_declined_separator_claim_at_k0_is_named(fn, args):
    """max_iter = 0 on G = [[1, -1 + 2^-52], [-1 + 2^-52, 1]]: the start (1/2, 1/2) has G v = 2^-53 (1, 1) > 0,
    a separator claim of the textbook's exit test at iteration 0 that its verifier refuses (within
    round-off); the budget is then exhausted and the message names that claim.  The fast kernel
    declines it (records iteration 0): the engine must name it alike."""
    G = reference.gram(np.array(_TWO[0]), np.array(_TWO[1]))
    assert (Fraction(float(G[0, 0])) + Fraction(float(G[0, 1]))) / 2 == Fraction(2) ** -53  # G v, exactly
    a, b = _both(fn, G, *args, max_iter=0)
    _same(a, b, bitwise=False)
    assert b.status == reference.MAX_ITER
    assert b.message.startswith("budget exhausted after 0 iterations; the last claim (separator, iteration 0) was not verified: ")


@needs_numba
@pytest.mark.parametrize(
    "X, y, kw",
    [
        # a = (2 + 2^-51..., -3): the bias decides which pattern is first within round-off
        ([[2.0], [1 - ULP], [-0.5]], [1, -1, -1], {}),
        ([[1 + 2 * ULP, -1.0], [0.5, 1 + 2 * ULP], [5.0, 2.0]], [-1, -1, 1], {}),
        ([[1.0, -1.0], [0.5, 1 - ULP], [0.0, 1 + 2 * ULP]], [-1, -1, 1], dict(Delta=1.0)),  # bias and extended space
    ],
)
@pytest.mark.parametrize("fn, arg", [(reference.pdm, 1.0), (reference.pfm, 0.0)], ids=["pdm", "pfm"])
def test_pt11_refused_convergence_with_bias_agrees(X, y, kw, fn, arg):
    """The first pattern not above the verifier's allowance is chosen on the full patterns
    y_k = l_k [x_k, rho, Delta e_k] (bias and extended coordinates included), as the textbook's
    _unverified_update does: same update, same separator, bit for bit."""
    X, y = np.array(X), np.array(y)
    a, b = _both(fn, X, y, arg, **kw)
    _pt11_same(a, b)
    assert len(b.info["t_c"]) >= 2  # a convergence was refused (one run: t_c has one entry otherwise)
    assert b.status == reference.SEPARATOR and reference.verify_exact(b, X, y) == ""


@needs_numba
@pytest.mark.parametrize("fn, arg", [(reference.pdm, 1.0), (reference.pfm, 0.0)], ids=["pdm", "pfm"])
def test_pt11_unverified_update_with_a_bias_that_underflows(fn, arg):
    """X at 2^1000 and rho = 2^-1074: the run is on the patterns times 2^-1002, where rho underflows
    to 0 (a bias coordinate that is exactly 0).  The unverified update adds rho l_j = 0 to it, as the
    textbook does: w's bias stays 0, bit for bit the textbook's."""
    X, y = np.array([[-(1 + 2 * ULP), 0.5], [-3.0, -1.0]]) * 2.0**1000, np.array([1, -1])
    a, b = _both(fn, X, y, arg, rho=5e-324)
    assert b.info["scale"] == "2^-1002" and 5e-324 * 2.0**-1002 == 0.0  # the instance does what it is built for
    _pt11_same(a, b)
    assert len(b.info["t_c"]) == 2 and b.w[-1] == 0.0
    assert b.status == reference.SEPARATOR and reference.verify_exact(b, X, y) == ""


@needs_numba
def test_gram_pow4_exponent_limit_zero_keeps_k_zero():
    """limit = 0 (no ordinary scale): a K whose largest |entry| is in [1/4, 1) already needs no
    scaling, k = 0 (docstring: the k bringing it into [1/4, 1)); an all-zero K has no entry to bring
    anywhere, k = 0 too -- not an error from the smallest nonzero entry, which it has none of."""
    from reference.arithmetic import gram_pow4_exponent

    for K in (np.array([[0.3, 0.0], [0.0, 0.0]]), np.array([[0.75, -0.5], [-0.5, 0.75]]), np.zeros((2, 2))):
        assert gram_pow4_exponent(K, limit=0) == 0
    assert gram_pow4_exponent(np.array([[4.0]]), limit=0) == 2  # 4 -> 4 * 4^-2 = 1/4: the rule at work


@pytest.mark.skipif(not ref.engines.available(), reason="the compiled engine needs numba")
def test_soak_both_engines_short_slice_finds_nothing():
    from theorems.soak import CLASSES, soak

    report = soak(runs=len(CLASSES) * 2, seed=23, hang_seconds=60, engines=("textbook", "fast"))
    assert report.tallies["nvn [fast]"].runs > 0 and "margin [fast]" not in report.tallies
    assert report.total().claims > 0
    assert report.ok, report.failures[:3]


@needs_numba
def test_isnkpvn_runs_the_textbook_outer_loop_around_the_compiled_snkpvn(monkeypatch):
    """RP14 Alg. 7's loop is written once (reference.smoothed.outer_loop): the compiled engine hands
    it its own SNKPVN, and every inner Result it records is the compiled one."""
    from reference import smoothed

    assert E.outer_loop is smoothed.outer_loop
    inner = []

    def spy(*args, snkpvn, **kw):
        def counted(*a):
            inner.append(snkpvn(*a))
            return inner[-1]

        return smoothed.outer_loop(*args, snkpvn=counted, **kw)

    monkeypatch.setattr(E, "outer_loop", spy)
    G = ref.gram(*_planted_3())
    r = ref.isnkpvn(G, 2.0, 1e-3, engine="fast", trace=True)
    assert r.engine == "fast" and len(inner) == r.info["T"] >= 1
    assert all(i.engine == "fast" and i.algorithm == "snkpvn" for i in inner)
    assert len(r.trace) == len(inner) and all(rec.inner is i for rec, i in zip(r.trace, inner))
    slow = ref.isnkpvn(G, 2.0, 1e-3, trace=True)
    assert (slow.status, slow.iterations, slow.info["T"]) == (r.status, r.iterations, r.info["T"])


# -- progress: the kernels in chunks, resumed -------------------------------------------------------


def _chunked_runs():
    """Runs long enough for several chunks of CHUNK = 7 iterations, ending with a claim or the budget."""
    X, y = _planted(80, 4, seed=3)
    G = reference.gram(X, y)
    rng = np.random.default_rng(6)
    Xi, yi = rng.normal(size=(40, 3)), rng.choice([-1, 1], size=40)
    Gi = reference.gram(Xi, yi)
    n, ni = G.shape[0], Gi.shape[0]
    return {
        "perceptron": lambda **kw: reference.perceptron(X, y, max_iter=500, **kw),
        "perceptron/most_violated": lambda **kw: reference.perceptron(X, y, rule="most_violated", max_iter=500, **kw),
        "perceptron/infeasible": lambda **kw: reference.perceptron(Xi, yi, max_iter=100, **kw),
        "normalized_perceptron": lambda **kw: reference.normalized_perceptron(X, y, max_iter=500, **kw),
        "nkp": lambda **kw: reference.nkp(G, max_iter=500, **kw),
        "nkp/infeasible": lambda **kw: reference.nkp(Gi, max_iter=100, **kw),
        "snkp": lambda **kw: reference.snkp(G, max_iter=500, **kw),
        "nvn": lambda **kw: reference.nvn(G, 1e-3, max_iter=500, **kw),
        "nvn/infeasible": lambda **kw: reference.nvn(Gi, 1e-3, max_iter=500, **kw),
        "snkpvn": lambda **kw: reference.snkpvn(Gi, np.full(ni, 1 / ni), 1e-3, max_iter=500, **kw),
        "isnkpvn": lambda **kw: reference.isnkpvn(Gi, 2.0, 1e-4, max_iter=500, **kw),
        "pdm": lambda **kw: reference.pdm(X, y, 0.01, max_iter=100_000, **kw),
        "pdm/budget": lambda **kw: reference.pdm(X, y, 0.01, max_iter=300, **kw),
        "pdm/epochs": lambda **kw: reference.pdm(X, y, 0.01, max_epochs=30, **kw),
        "pdm/multiple": lambda **kw: reference.pdm(X, y, 0.01, multiple_updates=True, max_iter=100_000, **kw),
        "pdm/active": lambda **kw: reference.pdm(X, y, 0.01, active_sets=True, multiple_updates=True, max_iter=100_000, **kw),
        "pfm": lambda **kw: reference.pfm(X, y, 0.0, max_iter=100_000, **kw),
        "pdm_succ": lambda **kw: reference.pdm_succ(X, y, 0.01, max_iter=100_000, **kw),
    }


@needs_numba
def test_chunked_runs_take_the_same_steps_bit_for_bit(monkeypatch):
    """With a progress callable the compiled engine runs its kernel in chunks (here of 7
    iterations; PT11: whole passes) and resumes it: status, counter, message, vectors and info are
    those of the run in one call, bit for bit, and progress sees states of the algorithm's class
    between chunks.  (Main before this: the compiled engine took no progress= at all.)"""
    monkeypatch.setattr(E, "CHUNK", 7)
    chunked = 0
    for name, run in _chunked_runs().items():
        whole = run(engine="fast")
        seen = []
        parts = run(engine="fast", progress=seen.append)
        assert (parts.status, parts.iterations, parts.message) == (whole.status, whole.iterations, whole.message), name
        for v in ("w", "alpha", "p"):
            a, b = getattr(whole, v), getattr(parts, v)
            assert (a is None) == (b is None), (name, v)
            if a is not None:
                np.testing.assert_array_equal(b, a, err_msg=name)
        assert {k: str(v) for k, v in parts.info.items()} == {k: str(v) for k, v in whole.info.items()}, name
        counters = [getattr(s, "t", getattr(s, "iterations", getattr(s, "k", None))) for s in seen]
        assert counters == sorted(counters) and all(c <= parts.iterations for c in counters), name
        if not name.startswith(("isnkpvn", "pdm/active")) and name.split("/")[0] not in PT11:
            assert counters == list(range(7, parts.iterations + (parts.status == "max_iter"), 7))[: len(counters)], name
        chunked += len(seen) > 1
    assert chunked >= 12


@needs_numba
def test_progress_of_pt11_sees_the_machine_state():
    """PT11's compiled progress: DynamicMarginState with t, a_t and ell_t = ||a_t||^2 at a pass boundary."""
    X, y = _planted(80, 4, seed=3)
    seen = []
    r = reference.pdm(X, y, 0.01, max_iter=100_000, engine="fast", progress=seen.append)
    assert seen and all(isinstance(s, reference.states.DynamicMarginState) for s in seen)
    last = seen[-1]
    assert last.t <= r.iterations and last.epoch <= r.info["epochs"]
    assert last.ell == pytest.approx(float(last.a @ last.a), rel=1e-9)
