"""Issue 11: no false claim, anywhere.  One regression test per defect a soak and a fuzzer found
(each fails on the code before the fix), the exact rational checker, and the soak itself.

Expected values are known by construction (exact arithmetic on the stored floats, closed forms),
never copied from a run.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

import reference as ref
import reference.fast
from reference.exact import exact_quadratic_form, exact_rank, rational, verify_exact, verify_margin_exact

# z1 + z2 + z3 = 0 exactly (dyadic coordinates): the origin is in the hull, no separator exists
TRIANGLE = np.array([[1.0, 0.0], [-0.5, 0.75], [-0.5, -0.75]])
ONES3 = np.array([1, 1, 1])


# -- item 1: gram at extreme scales ---------------------------------------------------------------


@pytest.mark.parametrize("scale", [2.0**530, 2.0**700, 2.0**1000, 2.0**-530, 2.0**-700, 2.0**-1000, 1e160, 1e-200])
def test_gram_is_scale_free_and_never_wrong(scale):
    """G depends on directions only: scaling the data must give the same G -- bit for bit when
    the scaling is exact (a power of two) -- and never a NaN or G ~ I (the old gram divided by
    sqrt(inf) past ||x|| ~ 1.3e154 and then nkp, snkp, nvn, isnkpvn 'separated' the triangle)."""
    G1 = ref.gram(TRIANGLE, ONES3)
    Gs = ref.gram(TRIANGLE * scale, ONES3)
    assert np.all(np.isfinite(Gs))
    if math.log2(scale).is_integer():
        assert np.array_equal(Gs, G1)
        for fn in (ref.nkp, ref.snkp):
            assert fn(Gs, max_iter=500).status != ref.SEPARATOR
        assert ref.nvn(Gs, 1e-3).status != ref.SEPARATOR
        assert ref.isnkpvn(Gs, 2.0, 1e-3).status != ref.SEPARATOR
    assert np.allclose(Gs, G1, rtol=0, atol=4e-16)
    m = ref.margin(Gs)
    assert m.upper < 1e-6 and verify_margin_exact(m, Gs) == ""  # G ~ I had margin 1/sqrt(3)


def test_gram_overflow_elsewhere_is_a_value_error_naming_X():
    with pytest.raises(ValueError, match=r"overflowed float64.*rescale X"):
        ref.signed_gram(TRIANGLE * 1e200, ONES3)
    with pytest.raises(ValueError, match=r"overflowed float64.*rescale X"):
        ref.gram(TRIANGLE * 1e200, ONES3, kernel="polynomial")
    with pytest.raises(ValueError, match=r"sigma=5e-324: 2 sigma\^2"):
        ref.gram(TRIANGLE, ONES3, kernel="gaussian", sigma=5e-324)
    with pytest.raises(ValueError, match=r"sigma=1e\+308"):
        ref.gram(TRIANGLE, ONES3, kernel="gaussian", sigma=1e308)


# -- item 2: certificates carry a rigorous round-off allowance ------------------------------------


def _infeasible_gram(seed: int, n: int = 6, d: int = 3) -> np.ndarray:
    X = np.random.default_rng(seed).standard_normal((n, d))
    X = np.vstack([X, -X.sum(axis=0, keepdims=True)])
    return ref.gram(X, np.ones(n + 1))


@pytest.mark.parametrize("epsilon", [1e-6, 1e-7, 1e-9, 1e-12])
def test_tiny_epsilon_certificates_hold_exactly(epsilon):
    """Below ~1e-7 the float value of ||p||_G is mostly round-off; a certificate must hold for the
    exact rationals G and p (the old float test returned p with exact ||p||_G > epsilon)."""
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


# -- item 3: precision below float64 --------------------------------------------------------------


@pytest.mark.parametrize("digits", [1, 3, 10, 15])
def test_precision_below_float64_is_refused(digits):
    G = _infeasible_gram(0)
    with pytest.raises(ValueError, match=r"precision must be None \(float64\) or an integer number of decimal digits from 16"):
        ref.nvn(G, 1e-3, precision=digits)
    with pytest.raises(ValueError, match="precision"):
        ref.margin(G, precision=digits)


def test_precision_has_an_upper_limit():
    with pytest.raises(ValueError, match="to 1000"):
        ref.margin(np.eye(2), precision=10**5)


# -- item 4: no crash at extreme scales -----------------------------------------------------------


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


def test_perceptron_near_the_overflow_threshold():
    X, y = np.array([[1e308, 1e308], [-1e308, 1e308]]), np.array([1, -1])
    res = ref.perceptron(X, y)
    assert res.status == ref.SEPARATOR and verify_exact(res, X, y) == ""
    assert res.info["scale"] == "2^-1024"


# -- item 5: ISNKPVN's budget bounds the work ------------------------------------------------------


def test_isnkpvn_budget_bounds_outer_loops():
    """SNKPVN calls that return at k = 0 cost a G-product each; with gamma close to 1 there are
    thousands of them (105 here on the old code with max_iter = 50)."""
    rng = np.random.default_rng(5)
    X, y = rng.standard_normal((8, 2)), rng.choice([-1, 1], 8)
    res = ref.isnkpvn(ref.gram(X, y), gamma=1.0001, max_iter=50)
    assert res.info["T"] <= 50
    assert res.iterations + res.info["T"] <= 100


def test_isnkpvn_antipodal_points_finish_quickly():
    X = np.random.default_rng(0).standard_normal((20, 3))
    G = ref.gram(np.vstack([X, -X]), np.ones(40))
    t0 = time.perf_counter()
    res = ref.isnkpvn(G, gamma=1.0001, epsilon=1e-9, max_iter=2000)
    assert time.perf_counter() - t0 < 20
    assert res.info["T"] <= 2000 and verify_exact(res, G, accuracy=1e-9) == ""


# -- item 6: margin(K) certifies the matrix given ----------------------------------------------------


def test_margin_of_a_nearly_singular_matrix_contains_its_exact_margin():
    """G_12 = -(1 - 2^-53): alpha = (1/2, 1/2) gives G alpha = 2^-54 > 0 exactly, so the matrix
    given is feasible with margin ||p*||_G = 2^-27 (p* = (1/2, 1/2) by symmetry); the old interval
    was [-1.0000000000000036, -0.999999999999986]."""
    G = ref.gram(np.array([[0.875], [-0.4375]]), np.array([1, 1]))
    assert rational(G[0, 1]) == -1 + rational(2.0**-53)
    for precision in (None, 30):
        m = ref.margin(G, precision=precision)
        assert m.lower <= 2.0**-27 <= m.upper
        assert m.feasible is True
        assert verify_margin_exact(m, G) == ""


def test_margin_infeasible_claim_only_for_an_exactly_rank_deficient_matrix():
    """A rounded Gram matrix of infeasible data has full exact rank (so, if PSD, its margin is
    >= 0): margin must not state a negative upper bound for it; an exactly rank-deficient one
    (integer data) keeps its -delta_max."""
    th = 2 * np.pi * np.arange(3) / 3 + 0.3
    Z = np.column_stack([np.cos(th), np.sin(th)])
    K = Z @ Z.T
    assert exact_rank(K) == 3
    m = ref.margin(K)
    assert m.upper >= 0 and m.feasible is not False
    assert m.value == pytest.approx(-0.5, abs=1e-9)  # -delta_max of the data it approximates
    assert verify_margin_exact(m, K) == ""
    S = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    K = S @ S.T
    assert exact_rank(K) == 2
    m = ref.margin(K)
    assert m.feasible is False and m.upper < 0 and m.lower <= -1.0 <= m.upper


# -- item 7: the exit test and the verification agree ---------------------------------------------


def test_unverified_claim_does_not_end_the_run():
    """w_1 = z_1/||z_1|| has y_2 <w_1, x_2> = 0 exactly, but > 0 in the normalized float
    coordinates: the run must go on (w_2 separates), not stop as max_iter after 1 of 100,000."""
    res = ref.normalized_perceptron([[1, 2], [-1, 0.5]], [1, -1])
    assert res.status == ref.SEPARATOR and res.iterations > 1
    assert verify_exact(res, np.array([[1, 2], [-1, 0.5]]), np.array([1, -1])) == ""


def test_cyclic_perceptron_treats_a_margin_within_roundoff_as_a_mistake():
    Z = np.array([[1.0, -(1.0 - 35 * 2.0**-52)]])  # y <w, x> = 35 eps > 0 for w = (1, 1): within round-off
    res = ref.perceptron(Z, np.array([1]), max_iter=10)
    assert res.status == ref.SEPARATOR and verify_exact(res, Z, np.array([1])) == ""


# -- the exact checker rejects broken claims -------------------------------------------------------


def test_verify_exact_rejects_each_kind_of_false_claim():
    G = _infeasible_gram(1)
    good = ref.nvn(G, 1e-2)
    assert good.status == ref.CERTIFICATE and verify_exact(good, G) == ""
    bad_p = np.zeros(G.shape[0])
    bad_p[0] = 1.0
    fake = ref.Result("nvn", ref.CERTIFICATE, 1, p=bad_p, info={"epsilon": 1e-2})
    assert "p^T G p" in verify_exact(fake, G)
    fake = ref.Result("nvn", ref.CERTIFICATE, 1, p=np.full(G.shape[0], 0.5), info={"epsilon": 1e-2})
    assert "sum(p)" in verify_exact(fake, G)
    fake = ref.Result("nkp", ref.SEPARATOR, 1, alpha=np.full(G.shape[0], 1 / G.shape[0]))
    assert "(G alpha)" in verify_exact(fake, G)
    X, y = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, -1])
    fake = ref.Result("pdm", ref.SEPARATOR, 1, w=np.array([1.0, 1.0, 0.0]), info={"rho": 1.0, "Delta": None})
    assert "y_i <w, x_i>" in verify_exact(fake, X, y)
    with pytest.raises(ValueError, match="pass y"):
        verify_exact(fake, X)


def test_verify_margin_exact_rejects_a_false_interval():
    from dataclasses import replace

    G = ref.gram(np.array([[1.0, 0.0], [0.6, 0.8]]), np.array([1, 1]))
    m = ref.margin(G)
    assert m.feasible is True and verify_margin_exact(m, G) == ""
    assert "lower" in verify_margin_exact(replace(m, lower=m.lower * (1 + 1e-9)), G)
    assert "upper" in verify_margin_exact(replace(m, upper=m.upper * (1 - 1e-6)), G)
    assert "upper" in verify_margin_exact(replace(m, upper=-0.5, lower=-1.0, feasible=False), G)


# -- the soak -----------------------------------------------------------------------------------------


def test_soak_short_slice_finds_nothing():
    from theorems.soak import CLASSES, soak

    report = soak(runs=len(CLASSES) * 2, seed=11, hang_seconds=60)
    t = report.total()
    assert report.instances == len(CLASSES) * 2 and t.runs == report.instances * 11
    assert t.claims > 0
    assert report.ok, report.failures[:3]


def test_soak_input_forms_mean_exactly_the_instance():
    """Every input form the soak passes is the instance's X exactly: the non-canonical CSR
    (duplicates, unsorted indices, explicit zeros) really is non-canonical, and sums to X."""
    import itertools

    from reference.data import check_csr
    from theorems.soak import FORMS, instances

    seen = set()
    for inst in itertools.islice(instances(5), 120):
        seen.add(inst.form)
        M = inst.data()
        if inst.form == "dense":
            assert M is inst.X
            continue
        if inst.form != "csr":
            assert not M.has_canonical_format, inst
        assert np.array_equal(check_csr(M).toarray(), inst.X), inst
    assert seen == set(FORMS)


@pytest.mark.skipif(not ref.fast.available(), reason="the compiled engine needs numba")
def test_soak_both_engines_short_slice_finds_nothing():
    from theorems.soak import CLASSES, soak

    report = soak(runs=len(CLASSES) * 2, seed=23, hang_seconds=60, engines=("textbook", "fast"))
    assert report.tallies["nvn [fast]"].runs > 0 and "margin [fast]" not in report.tallies
    assert report.total().claims > 0
    assert report.ok, report.failures[:3]


def test_soak_is_deterministic_for_a_seed():
    from theorems.soak import soak

    a, b = soak(runs=5, seed=3), soak(runs=5, seed=3)
    assert a.rows() == b.rows()


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


# -- items 8 and 9: the command line and the readers --------------------------------------------------


def _cli(argv, capsys):
    from theorems.cli import main

    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse
        rc = exc.code
    err = capsys.readouterr().err.strip()
    return rc, err


def _one_line_error(rc, err):
    assert rc == 2, err
    assert err and "Traceback" not in err
    assert len(err.splitlines()) == 1, err  # argparse's own errors too: no usage block first


@pytest.fixture
def files(tmp_path):
    import gzip
    import json

    d = {}
    (tmp_path / "ok.svm").write_text("1 1:1 2:1\n-1 1:-1 2:-0.5\n")
    d["ok"] = tmp_path / "ok.svm"
    (tmp_path / "garbage.gz").write_bytes(b"not gzip at all")
    d["garbage_gz"] = tmp_path / "garbage.gz"
    (tmp_path / "trunc.gz").write_bytes(gzip.compress(b"1 1:1\n-1 2:1\n" * 50)[:30])
    d["trunc_gz"] = tmp_path / "trunc.gz"
    (tmp_path / "huge_index.svm").write_text("1 1000000000:1\n-1 1:1\n")
    d["huge_index"] = tmp_path / "huge_index.svm"
    (tmp_path / "dup.svm").write_text("1 1:1 1:2\n")
    d["dup"] = tmp_path / "dup.svm"
    (tmp_path / "nested.json").write_text("[" * 100_000 + "]" * 100_000)
    d["nested"] = tmp_path / "nested.json"
    (tmp_path / "bigint.json").write_text('{"schema_version": 1, "kind": "answers", "answers": [' + "9" * 4000 + "]}")
    d["bigint"] = tmp_path / "bigint.json"
    (tmp_path / "bool_version.json").write_text(json.dumps({"schema_version": True, "kind": "answers", "answers": []}))
    d["bool_version"] = tmp_path / "bool_version.json"
    (tmp_path / "numpy.py").write_text("def fn(*a, **k):\n    return None\n")
    d["numpy_py"] = tmp_path / "numpy.py"
    (tmp_path / "a_file").write_text("x")
    d["a_file"] = tmp_path / "a_file"
    return d


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "nvn", "--data", "{garbage_gz}"],
        ["run", "nvn", "--data", "{trunc_gz}"],
        ["run", "nvn", "--data", "{huge_index}"],
        ["run", "nvn", "--data", "{dup}"],
        ["run", "nvn", "--data", "{ok}", "--kernel", "gaussian", "--sigma", "1e308"],
        ["run", "nvn", "--data", "{ok}", "--limit", "0"],
        ["run", "nvn", "--data", "{ok}", "--limit", "-1"],
        ["run", "nvn", "--data", "{ok}", "--precision", "5"],
        ["validate", "--answers", "{nested}"],
        ["validate", "--answers", "{bigint}"],
        ["validate", "--answers", "{bool_version}"],
        ["validate", "snkp", "{numpy_py}:fn", "--kwargs", "[1,2]"],
        ["export-cases", "{a_file}"],
        ["soak", "--minutes", "0"],
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(argv, files, capsys):
    import sys

    np_before = sys.modules["numpy"]
    rc, err = _cli([a.format(**files) for a in argv], capsys)
    _one_line_error(rc, err)
    assert sys.modules["numpy"] is np_before  # a user file named numpy.py replaces nothing


def test_validate_user_file_named_numpy_does_not_shadow_numpy(files):
    import sys

    from theorems.validate.call import load_callable

    np_before = sys.modules["numpy"]
    fn = load_callable(f"{files['numpy_py']}:fn")
    assert callable(fn) and sys.modules["numpy"] is np_before


@pytest.mark.parametrize(
    "X, y, match",
    [
        ([[1 + 1j, 2.0]], [1], "X must be a numeric array of real numbers, got complex"),
        ([[1.0, 2.0]], [True], "y must be a numeric array of real numbers, got booleans"),
        ([[1.0, 2.0]], ["1"], "y must be a numeric array of real numbers, got strings"),
    ],
)
def test_values_that_are_not_real_numbers_are_refused(X, y, match):
    with pytest.raises(ValueError, match=match):
        ref.perceptron(X, y)
    with pytest.raises(ValueError, match=match):
        ref.gram(X, y)


def test_complex_gram_and_truthy_flags_are_refused():
    with pytest.raises(ValueError, match="G must be a numeric array of real numbers, got complex"):
        ref.nkp(np.eye(2) + 0j)
    with pytest.raises(ValueError, match="trace must be True or False, got 'yes'"):
        ref.nkp(np.eye(2), trace="yes")
    with pytest.raises(ValueError, match="normalize must be True or False"):
        ref.normalized_perceptron([[1.0]], [1], normalize=1)


def test_readers_refuse_what_they_used_to_accept_or_crash_on(files, tmp_path):
    with pytest.raises(ValueError, match="feature index 1 appears twice"):
        ref.load_libsvm(files["dup"])
    (tmp_path / "uni.svm").write_text("1 \u0661:1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="non-ASCII"):
        ref.load_libsvm(tmp_path / "uni.svm")
    with pytest.raises(ValueError, match="path must be a str or pathlib.Path"):
        ref.load_libsvm(None)
    with pytest.raises(ValueError, match="n_features must be an integer"):
        ref.load_libsvm(files["ok"], n_features="abc")
    X, _ = ref.load_libsvm(files["ok"], n_features=10**12)  # sparse: no 8 TB allocation
    assert X.shape == (2, 10**12)
    with pytest.raises(ValueError, match="too large"):
        ref.gram(X, np.array([1, -1]))
    with pytest.raises(ValueError, match="is a directory"):
        ref.load_npz(tmp_path)
    with pytest.raises(ValueError, match="not a readable .npz archive"):
        ref.load_npz(files["garbage_gz"])
    with pytest.raises(ValueError, match="BadGzipFile"):
        ref.load_libsvm(files["garbage_gz"])


def test_validate_writes_nothing_into_the_current_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    rc, _ = _cli(["validate", "nkp", "reference:nkp", "--budget", "2"], capsys)
    assert rc == 0
    assert list(tmp_path.iterdir()) == []  # no .hypothesis/ (nothing written where the user did not ask)


# -- the linear-kernel operator, CSR input: the same allowance rule as dense G ------------------------


def _exact_operator_norm2(Z, p):
    """||Z^T p||^2 in Fractions, computed here from the stored entries (independent of reference.exact)."""
    from fractions import Fraction

    Z = Z.tocsr()
    w = {}
    for i in range(Z.shape[0]):
        for t in range(Z.indptr[i], Z.indptr[i + 1]):
            j = int(Z.indices[t])
            w[j] = w.get(j, Fraction(0)) + Fraction(float(Z.data[t])) * Fraction(float(p[i]))
    return sum((v * v for v in w.values()), Fraction(0))


def _exact_operator_matvec(Z, a):
    from fractions import Fraction

    Z = Z.tocsr()
    w = {}
    for i in range(Z.shape[0]):
        for t in range(Z.indptr[i], Z.indptr[i + 1]):
            j = int(Z.indices[t])
            w[j] = w.get(j, Fraction(0)) + Fraction(float(Z.data[t])) * Fraction(float(a[i]))
    return [
        sum((Fraction(float(Z.data[t])) * w[int(Z.indices[t])] for t in range(Z.indptr[i], Z.indptr[i + 1])), Fraction(0))
        for i in range(Z.shape[0])
    ]


X4 = np.array([[0.1, 0.7], [-0.3, -2.1], [0.2, -0.5], [-0.6, 1.5]])  # rows 0 and 1 nearly antipodal
ANTIPODAL = np.array([[1.0, 1.0], [-3.0, -3.0]])


def _operator_runs():
    from reference.fast.operator import linear_gram

    op4, op2 = linear_gram(X4, np.ones(4)), linear_gram(ANTIPODAL, np.ones(2))
    return [
        ("nvn(X4, 1e-20)", op4, lambda: ref.nvn(op4, 1e-20, engine="fast", max_iter=2000), 1e-20, False),
        ("snkpvn(X4, 1e-20)", op4, lambda: ref.snkpvn(op4, np.full(4, 0.25), 1e-20, engine="fast", max_iter=500), 1e-20, True),
        ("isnkpvn(antipodal, 2, 1e-20)", op2, lambda: ref.isnkpvn(op2, 2, 1e-20, engine="fast", max_iter=500), 1e-20, True),
        ("snkpvn(antipodal, 1e-30)", op2, lambda: ref.snkpvn(op2, np.full(2, 0.5), 1e-30, engine="fast", max_iter=500), 1e-30, True),
        ("nvn(X4, 1e-3)", op4, lambda: ref.nvn(op4, 1e-3, engine="fast"), 1e-3, False),
    ]


@pytest.mark.parametrize("case", range(5), ids=lambda i: _operator_runs()[i][0])
def test_operator_certificates_hold_exactly(case):
    """A certificate claimed through linear_gram holds for G = Z Z^T as stored: ||Z^T p||^2 <
    eps^2 exactly (<= for NVN).  At eps = 1e-20 the float norm of Z^T p is mostly round-off (it
    was claimed at iteration 0, exact ||p||_G^2 = 4.8e-35 > 1e-40); at 1e-3 a certificate exists."""
    pytest.importorskip("numba")
    name, op, run, eps, strict = _operator_runs()[case]
    r = run()
    if r.status == "certificate":
        q, e2 = _exact_operator_norm2(op.Z, r.p), rational(eps) ** 2
        assert (q < e2 if strict else q <= e2), f"{name}: certificate at iteration {r.iterations} with exact ||p||_G^2 = {float(q):.3e}"
        assert verify_exact(r, op) == "", name
    elif r.status == "separator":
        assert all(v > 0 for v in _exact_operator_matvec(op.Z, r.alpha)), f"{name}: false separator at {r.iterations}"
    if eps == 1e-3:
        assert r.status == "certificate", f"{name}: {r.message}"


def test_operator_certificate_verifier_refuses_a_roundoff_norm():
    """The factored verifier judges ||Z^T p|| by its rigorous bound: p = (1/2, 1/2, 0, 0) on X4
    has a computed norm of round-off size; it is refused at 1e-20 (its exact value is far above),
    accepted at 1e-3; and the bound is an upper bound of the exact norm."""
    from reference.arithmetic import factored_norm_upper
    from reference.fast.operator import linear_gram
    from reference.result import verify_certificate_factored

    op = linear_gram(X4, np.ones(4))
    p = np.array([0.5, 0.5, 0.0, 0.0])
    exact = _exact_operator_norm2(op.Z, p)
    assert exact > rational(1e-20) ** 2  # the instance: no certificate at 1e-20 exists for this p
    assert verify_certificate_factored(op.Z, p, 1e-20) != ""
    assert verify_certificate_factored(op.Z, p, 1e-3) == ""
    assert rational(factored_norm_upper(op.Z, p)) ** 2 >= exact


@pytest.mark.parametrize("scale", [1e200, 1e-200, 2.0**600, 2.0**-1060])
def test_linear_gram_at_extreme_scales_is_the_scaled_operator(scale):
    """linear_gram is invariant under x_i -> c x_i: rows far beyond sqrt(max float) or below
    sqrt(min normal) give the same Z as the unscaled row (no zero or inf row, no warning), and
    on X = [[s, s], [-1, 0]], y = (1, 1) -- separable, w = (-1, 2) -- no certificate is claimed."""
    import warnings

    pytest.importorskip("numba")
    from reference.fast.operator import linear_gram

    X = np.array([[scale, scale], [-1.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Z = linear_gram(X, np.ones(2)).Z.toarray()
    Z1 = linear_gram(np.array([[1.0, 1.0], [-1.0, 0.0]]), np.ones(2)).Z.toarray()
    if np.frexp(scale)[0] == 0.5:  # a power of two: the scaling back is exact, Z the same bits
        assert np.array_equal(Z, Z1), f"scale {scale}"
    else:
        np.testing.assert_allclose(Z, Z1, rtol=4 * 2.0**-52, atol=0, err_msg=f"scale {scale}")
    op = linear_gram(X, np.ones(2))
    for r in (ref.nvn(op, 1e-3, engine="fast"), ref.isnkpvn(op, 2, 1e-3, engine="fast")):
        assert r.status == "separator", f"{r.algorithm} at scale {scale}: {r.status} ({r.message})"
        assert verify_exact(r, op) == ""


def _cancelling_duplicates():
    """Row 0 stores 1, 2^-60, -1 at column 0 and -2^-90 at column 1: exactly x_0 = 2^-90 (2^30, -1)
    = -2^-90 x_1 with x_1 = (-2^30, 1); same labels: exactly infeasible.  float64's sum of the
    duplicates in storage order is (0, -2^-90), which a separator of the rounded data separates."""
    import scipy.sparse as sp

    data = np.array([1.0, 2.0**-60, -1.0, -(2.0**-90), -(2.0**30), 1.0])
    X = sp.csr_matrix((data, np.array([0, 0, 0, 1, 0, 1]), np.array([0, 4, 6])), shape=(2, 2))
    return X, np.array([1, 1])


def test_csr_duplicates_are_summed_exactly():
    X, _ = _cancelling_duplicates()
    from reference.data import check_csr

    C = check_csr(X)
    assert C.toarray().tolist() == [[2.0**-60, -(2.0**-90)], [-(2.0**30), 1.0]]
    assert C.has_canonical_format


@pytest.mark.parametrize("engine", ["textbook", "fast"])
@pytest.mark.parametrize("algorithm", ["perceptron", "normalized_perceptron", "pdm"])
def test_cancelling_csr_duplicates_give_no_false_separator(algorithm, engine):
    if engine == "fast":
        pytest.importorskip("numba")
    X, y = _cancelling_duplicates()
    kw = {"epsilon": 0.1, "rho": None} if algorithm == "pdm" else {}  # no bias: infeasible
    r = getattr(ref, algorithm)(X, y, max_iter=2000, engine=engine, **kw)
    assert r.status != "separator", f"{algorithm} ({engine}): separator at iteration {r.iterations} on exactly infeasible data"


def test_csr_duplicates_whose_sum_float64_cannot_hold_are_refused():
    import scipy.sparse as sp

    X = sp.csr_matrix((np.array([1.0, 2.0**-60]), np.array([0, 0]), np.array([0, 2])), shape=(1, 2))
    with pytest.raises(ValueError, match="duplicate entries at \\(row 0, column 0\\)"):
        ref.perceptron(X, [1])
    X = sp.csr_matrix((np.array([1e308, 1e308]), np.array([1, 1]), np.array([0, 2])), shape=(1, 2))
    with pytest.raises(ValueError, match="duplicates overflowed"):
        ref.perceptron(X, [1])
    # duplicates whose sum is exact, unsorted indices and explicit zeros are the matrix scipy means
    X = sp.csr_matrix((np.array([0.0, 0.5, 0.25, 0.25]), np.array([1, 0, 1, 1]), np.array([0, 4])), shape=(1, 2))
    from reference.data import check_csr

    C = check_csr(X)
    assert C.toarray().tolist() == [[0.5, 0.5]] and C.nnz == 2


def test_boolean_data_are_refused_dense_and_sparse_alike():
    import scipy.sparse as sp

    Xb = np.array([[True, False], [False, True]])
    for X in (Xb, sp.csr_matrix(Xb)):
        with pytest.raises(ValueError, match="booleans"):
            ref.perceptron(X, [1, 1])


def test_integers_float64_cannot_hold_are_refused():
    """An int64 entry 2^53 + 1 would be rounded to 2^53: the claim would be about other data.
    (Python ints in an object array are kept exactly by the mpmath engine, as before.)"""
    import scipy.sparse as sp

    X = np.array([[2**53 + 1, 1]])
    for data in (X, sp.csr_matrix(X)):
        with pytest.raises(ValueError, match="cannot represent exactly"):
            ref.perceptron(data, [1])
    assert ref.perceptron(np.array([[2**60, 1]]), [1]).status == "separator"  # 2^60 is a float


def test_verify_exact_reads_the_operator_and_csr_data():
    """verify_exact accepts what the algorithms accept, and still rejects a false claim there."""
    import dataclasses

    import scipy.sparse as sp

    pytest.importorskip("numba")
    from reference.fast.operator import linear_gram

    op = linear_gram(TRIANGLE, ONES3)
    r = ref.nvn(op, 0.25, engine="fast")
    assert r.status == "certificate" and verify_exact(r, op) == ""
    fake = dataclasses.replace(r, status="separator", alpha=np.full(3, 1 / 3))
    assert "not > 0 in exact arithmetic" in verify_exact(fake, op)
    tight = dataclasses.replace(r, p=np.array([1.0, 0.0, 0.0]))
    assert "is not <=" in verify_exact(tight, op)
    X = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 2.0]]))
    s = ref.pdm(X, [1, 1], 0.1)
    assert s.status == "separator" and verify_exact(s, X, [1, 1]) == ""
    bad = dataclasses.replace(s, w=-s.w)
    assert "not > 0" in verify_exact(bad, X, [1, 1])


def test_the_operator_outside_the_compiled_engine_is_a_clear_value_error():
    from reference.fast.operator import linear_gram

    op = linear_gram(np.eye(2), [1, 1])
    with pytest.raises(ValueError, match="pass engine='fast'"):
        ref.nvn(op, 0.1)
    with pytest.raises(ValueError, match="margin_from_data"):
        ref.margin(op)


def test_coo_duplicates_are_summed_exactly_not_by_scipy():
    """scipy's COO -> CSR conversion sums duplicates in the input's dtype: int64 wraps around
    (2^62 + 2^62 -> -2^63) and float64 rounds (1 + 2^-60 - 1 -> 0).  The matrix meant is the
    exact sum: [[2^63]], or refused when float64 cannot hold it."""
    import scipy.sparse as sp

    from reference.data import check_csr

    X = sp.coo_matrix((np.array([2**62, 2**62], dtype=np.int64), ([0, 0], [0, 0])), shape=(1, 1))
    assert check_csr(X).toarray().tolist() == [[2.0**63]]
    r = ref.perceptron(X, [1], max_iter=10)
    assert r.status == "separator" and r.w[0] > 0 and verify_exact(r, X, [1]) == ""
    F = sp.coo_matrix((np.array([1.0, -1.0, 1.0, 2.0**-60, -1.0]), ([0, 1, 1, 1, 1], [0, 0, 1, 1, 1])), shape=(2, 2))
    # the same matrix as CSC with its duplicates stored (column 1 holds 1, 2^-60, -1 of row 1)
    C = sp.csc_matrix((np.array([1.0, -1.0, 1.0, 2.0**-60, -1.0]), np.array([0, 1, 1, 1, 1]), np.array([0, 2, 5])), shape=(2, 2))
    for M in (F, C):
        assert check_csr(M).toarray().tolist() == [[1.0, 0.0], [-1.0, 2.0**-60]], M.format
    with pytest.raises(ValueError, match="duplicate entries"):
        check_csr(sp.coo_matrix((np.array([1.0, 2.0**-60]), ([0, 0], [0, 0])), shape=(1, 1)))


def test_factored_separator_allowance_covers_underflow_in_the_inner_product():
    """alpha at subnormal scale: the errors of Z^T alpha (each up to n UNDERFLOW / 2) are summed
    again with |Z_ij| weights; a (G alpha)_i that is negative exactly must not pass."""
    from fractions import Fraction

    from reference.exact import exact_factored_matvec
    from reference.fast.operator import linear_gram
    from reference.result import verify_separator_factored

    N, A = 2000, 64
    X = np.zeros((N + 2, A + 1))
    X[:N, :A] = 1
    X[N, A] = -1
    X[N + 1, :A] = 1
    X[N + 1, A] = 6
    Z = linear_gram(X, np.ones(N + 2)).Z
    u = 2.0**-1074
    alpha = np.zeros(N + 2)
    alpha[:N] = 5 * u
    P = Fraction(Z[N + 1, 0]) * A * N * Fraction(5, 8) * Fraction(u)
    a = float(P / Fraction(Z[N + 1, A]))
    while Fraction(Z[N + 1, A]) * Fraction(a) <= P:
        a = np.nextafter(a, 1)
    alpha[N] = a
    exact = exact_factored_matvec(Z, alpha)
    if all(v > 0 for v in exact):
        pytest.skip("the instance is separated exactly here; nothing to refuse")
    assert verify_separator_factored(Z, alpha) != ""


def test_linear_gram_operator_must_be_canonical():
    """The verifiers' bounds count at most n entries a column: a hand-made LinearGram with
    duplicates (1 + 1000 x 2^-53 in one entry) is refused up front."""
    import scipy.sparse as sp

    from reference.fast.operator import LinearGram

    k = 1000
    Z = sp.csr_matrix((np.r_[1.0, np.full(k, 2.0**-53)], np.zeros(k + 1, np.int64), np.array([0, k + 1])), shape=(1, 1))
    with pytest.raises(ValueError, match="canonical float64 CSR"):
        LinearGram(Z=Z)


def test_python_lists_of_integers_float64_cannot_hold_are_refused():
    with pytest.raises(ValueError, match="cannot represent exactly"):
        ref.perceptron([[2**53 + 1, 1]], [1])
