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
(in memory, once per process, where no cache location is writable).
"""

import functools

import numpy as np
import pytest

import reference
import reference.fast
import scipy.sparse as sp

from reference.fast.operator import linear_gram
from reference.patterns import make_patterns
from reference.result import (
    verify_certificate_factored,
    verify_separator_factored,
    verify_separator_patterns,
)

numba = pytest.importorskip("numba", reason="the compiled engine needs numba: pip install 'perceptron-margins[fast]'")

from reference.fast import pt11_kernels, rp14_kernels  # noqa: E402
from theorems.validate import corpus, validate  # noqa: E402

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


# -- the harness: the reference eats its own cooking -----------------------------------------------


@pytest.mark.parametrize("algorithm", reference.ALGORITHMS)
def test_fast_engine_conforms_strict(algorithm):
    # The first call compiles the numba kernels (seconds; more on a loaded machine): a per-case
    # timeout of 20 s would time the compiler, not the implementation.
    r = validate(algorithm, fast(algorithm), budget=4, strict=True, timeout=300)
    assert r.conforms, r.format()


# -- stumpy-style equivalence on the corpus ------------------------------------------------------------


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


def _planted(m=80, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = np.where(X @ rng.normal(size=d) >= 0, 1, -1)
    return X, y


@pytest.mark.parametrize("opts", [dict(), dict(active_sets=True, multiple_updates=True), dict(Delta=1.0), dict(rho=None)])
@pytest.mark.parametrize("algorithm,arg", [("pdm", 0.05), ("pdm_succ", 0.05), ("pfm", 0.02)])
def test_pt11_agree_on_larger_data(algorithm, arg, opts):
    X, y = _planted()
    if opts.get("rho", 1) is None:
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    fn = getattr(reference, algorithm)
    _assert_same(fn(X, y, arg, **opts), fn(X, y, arg, engine="fast", **opts), (algorithm, opts))


def test_pt11_budgets_stop_where_the_textbook_stops():
    X, y = _planted()
    for kw in (dict(max_iter=37), dict(max_epochs=3), dict(max_iter=500, active_sets=True, multiple_updates=True), dict(max_iter=0)):
        a, b = reference.pdm(X, y, 0.01, **kw), reference.pdm(X, y, 0.01, engine="fast", **kw)
        _assert_same(a, b, kw)
        assert a.info["epochs"] == b.info["epochs"] and a.info["passes"] == b.info["passes"], kw


def test_pt11_info_matches():
    X, y = _planted()
    a, b = reference.pdm_succ(X, y, 0.05, Delta=1.0), reference.pdm_succ(X, y, 0.05, Delta=1.0, engine="fast")
    for key in ("epochs", "passes", "t_c", "eps_schedule", "rho", "Delta"):
        assert a.info[key] == b.info[key], key
    for key in ("ell", "theta", "R", "margin", "upper_bound"):
        assert np.isclose(float(a.info[key]), b.info[key], rtol=1e-9), key


# -- the linear operator and sparse input ------------------------------------------------------------


_CSR = sp.csr_matrix


def _sparse_planted(m=120, d=15, seed=1):
    """Separable sparse data (about half the entries zero), labels from a planted direction."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    X[np.abs(X) < 0.8] = 0.0
    X[np.all(X == 0, axis=1), 0] = 1.0
    s = X @ rng.normal(size=d)
    return X, np.where(s >= 0, 1, -1)


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


# -- one kernel matvec per iteration -------------------------------------------------------------------


def test_one_g_product_per_step():
    X, y = _planted(200, 8, 3)
    G = reference.gram(X, y)
    s = reference.snkp(G, engine="fast")
    assert s.info["products"] == s.iterations + 2  # G alpha_0 and G p_0, then one G b per step
    n = reference.nkp(G, engine="fast")
    assert n.info["products"] <= n.iterations + 1 + n.iterations // rp14_kernels.REFRESH_EVERY + 1


# -- every claim is re-verified; a lying kernel is caught ------------------------------------------------


def test_a_lying_gram_kernel_is_downgraded(monkeypatch):
    X, y = _planted(30, 3)
    G = reference.gram(X, y)
    n = G.shape[0]
    monkeypatch.setattr(rp14_kernels, "nkp", lambda *a: (3, np.eye(n)[0] * 0.0, True, 0))
    r = reference.nkp(G, engine="fast")
    assert r.status == "max_iter" and "separator claimed but not verified" in r.message


def test_a_lying_pt11_kernel_is_downgraded(monkeypatch):
    X, y = _planted(30, 3)
    monkeypatch.setattr(pt11_kernels, "run", lambda *a: pt11_kernels.CONVERGED)  # a = 0 claimed converged
    r = reference.pdm(X, y, 0.1, engine="fast")
    assert r.status == "max_iter" and "not > 0 beyond round-off" in r.message


# -- the verifiers at scale reject broken claims -----------------------------------------------------------


def test_verify_separator_factored_rejects_and_accepts():
    X, y = _planted(40, 4)
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
    X, y = _planted(25, 3)
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


# -- arguments ------------------------------------------------------------------------------------------


def test_engine_arguments():
    X, y = _planted(10, 2)
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
    X, y = _planted(10, 2)
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


# -- the command line --------------------------------------------------------------------------------


@pytest.mark.parametrize("algo", reference.ALGORITHMS)
def test_cli_run_engine_fast_matches_textbook(tmp_path, capsys, algo):
    """``margins run ALGO --engine fast`` gives the textbook's status and counter (the linear
    kernel's Gram algorithms through the operator G = Z Z^T)."""
    import json

    from theorems import cli

    X, y = _planted(40, 3, 5)
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


# -- real data: the same updates and the same vector -------------------------------------------------


def _heart_scale():
    from importlib.resources import files

    return reference.load_libsvm(str(files("reference.data_files") / "heart_scale.txt"))


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


A9A = "/work/shared/data/a9a/a9a.gz"


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


def test_kernels_run_where_no_cache_location_is_writable(tmp_path):
    """numba's cache=True refuses to compile at all when it finds no writable place for the cache
    ("RuntimeError: cannot cache function ...: no locator available"): a read-only install with no
    home directory could not run engine="fast".  In a fresh process on a read-only copy of the
    package, HOME and NUMBA_CACHE_DIR unset and the user cache directory read-only, both kernel
    modules compile in memory, the runs agree with the textbook engine, and nothing is written."""
    import os
    import shutil
    import stat
    import subprocess
    import sys
    from pathlib import Path

    root = tmp_path / "install"
    shutil.copytree(Path(reference.__file__).parent, root / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "cache").mkdir()  # XDG_CACHE_HOME: numba's user-wide cache directory, read-only too
    for p in sorted(root.rglob("*"), reverse=True) + [root]:
        p.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP if p.is_dir() else stat.S_IRUSR | stat.S_IRGRP)
    before = sorted(str(p) for p in root.rglob("*"))
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "NUMBA_CACHE_DIR")}
    env.update(XDG_CACHE_HOME=str(root / "cache"), PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-c", """
import os, sys, numpy as np
import reference
assert reference.__file__.startswith(sys.argv[1]), reference.__file__
try:
    open(os.path.join(sys.argv[1], "reference", "fast", "probe"), "w").close()
    print("WRITABLE")
    sys.exit(0)
except OSError:
    pass
G = np.array([[1.0, 0.5], [0.5, 1.0]])
a, b = reference.nvn(G, 0.1), reference.nvn(G, 0.1, engine="fast")
assert (a.status, a.iterations) == (b.status, b.iterations), (a, b)
X, y = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -2.0]]), np.array([1, 1, -1])
a, b = reference.pdm(X, y, 0.1), reference.pdm(X, y, 0.1, engine="fast")
assert (a.status, a.iterations) == (b.status, b.iterations), (a, b)
print("OK", b.status)
""", str(root)]
    if os.geteuid() == 0:  # root writes through permission bits: run without CAP_DAC_OVERRIDE
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: a read-only location cannot be made here")
        cmd = ["setpriv", "--inh-caps=-dac_override,-dac_read_search", "--bounding-set=-dac_override,-dac_read_search", *cmd]
    try:
        out = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True, timeout=600)
    finally:
        for p in [root] + list(root.rglob("*")):
            p.chmod(p.stat().st_mode | stat.S_IWUSR)  # so that tmp_path can be removed
    if out.stdout.startswith("WRITABLE"):
        pytest.skip("the copy stayed writable (a file system without permission bits)")
    assert out.returncode == 0 and out.stdout.startswith("OK"), out.stderr[-2000:]
    assert "no locator available" not in out.stderr
    assert sorted(str(p) for p in root.rglob("*")) == before  # no cache file, no bytecode


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
