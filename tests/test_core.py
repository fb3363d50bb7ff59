"""Tests of the shared core: arithmetic backend, softmax, simplex projection, G-seminorm,
validation, the LIBSVM reader, the Gram builder, and the driver's claim verification."""

import gzip
import math
from fractions import Fraction

import mpmath
import numpy as np
import scipy.sparse as sp
import pytest
from hypothesis import given
from hypothesis import strategies as st

import reference as ref
from reference.arithmetic import Arithmetic, arithmetic, g_norm, log_mean_exp, project_simplex, softmax, to_float
from reference.data import augment, check_data, check_gram, check_int, check_real, check_simplex, extend, reflect
from reference.gram import kernel_matrix
from reference.result import (
    MAX_ITER,
    SEPARATOR,
    Algorithm,
    drive,
    verify_certificate,
    verify_separator_gram,
    verify_separator_primal,
)

F64 = Arithmetic(None)
MP = Arithmetic(50)

vectors = st.lists(st.floats(-50, 50, allow_nan=False), min_size=1, max_size=12).map(np.array)


# -- arithmetic -------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [0, -3, 2.5, "50", True])
def test_precision_must_be_positive_int(bad):
    with pytest.raises(ValueError, match="precision"):
        arithmetic(bad)


def test_arithmetic_labels_and_eps():
    assert arithmetic(None).label == "float64"
    assert arithmetic(30).label == "mpmath, 30 decimal digits"
    assert F64.eps == np.finfo(float).eps
    with MP.context():
        assert MP.eps == mpmath.mpf(10) ** -50
    assert not F64.is_mp and MP.is_mp


def test_mp_context_sets_and_restores_dps():
    before = mpmath.mp.dps
    with Arithmetic(77).context():
        assert mpmath.mp.dps == 77
    assert mpmath.mp.dps == before


def test_array_conversion_is_exact():
    with MP.context():
        a = MP.array([0.1, 2.0])
        assert a.dtype == object and a[0] == mpmath.mpf(0.1) and isinstance(a[1], mpmath.mpf)
        assert MP.unit(3, 1).tolist() == [0, 1, 0]
        u = MP.uniform(4)
        assert all(v == mpmath.mpf(1) / 4 for v in u)
    assert F64.uniform(4).tolist() == [0.25] * 4
    assert to_float(MP.array([1.5]))[0] == 1.5 and to_float(mpmath.mpf(2)) == 2.0


def test_elementary_functions_both_backends():
    v = np.array([0.0, 1.0, 4.0])
    assert F64.sqrt(v).tolist() == [0.0, 1.0, 2.0]
    with MP.context():
        m = MP.array(v)
        assert [float(x) for x in MP.sqrt(m)] == [0.0, 1.0, 2.0]
        assert abs(MP.exp(m)[1] - mpmath.e) < mpmath.mpf(10) ** -45
        assert MP.log(MP.array([1.0]))[0] == 0
        assert MP.floor(mpmath.mpf("2.9")) == 2
    assert F64.floor(2.9) == 2 and F64.floor(-0.5) == -1


@given(vectors)
def test_softmax_is_a_distribution_proportional_to_exp(v):
    p = softmax(v, F64)
    assert np.all(p >= 0) and abs(p.sum() - 1) < 1e-12
    # ratio property p_i / p_j = exp(v_i - v_j) on the largest entries
    i, j = np.argsort(v)[-1], np.argsort(v)[0]
    if v[i] - v[j] < 30:
        assert math.isclose(p[i] / p[j], math.exp(v[i] - v[j]), rel_tol=1e-9)


def test_softmax_known_values_and_stability():
    assert np.allclose(softmax(np.array([0.0, math.log(3.0)]), F64), [0.25, 0.75], atol=1e-15)
    p = softmax(np.array([1000.0, 1000.0]), F64)  # naive exp overflows
    assert p.tolist() == [0.5, 0.5]


def test_log_mean_exp_known_value():
    # mu log((1/2)(e^{-1/mu} + e^{-3/mu})) with mu = 1
    v = np.array([1.0, 3.0])
    expected = math.log((math.exp(-1) + math.exp(-3)) / 2)
    assert math.isclose(log_mean_exp(v, 1.0, F64), expected, rel_tol=1e-14)
    # limit mu -> 0 gives -min v
    assert abs(log_mean_exp(v, 1e-6, F64) - (-1.0 - 1e-6 * math.log(2))) < 1e-9


def _proj_bruteforce(v):
    """Projection onto the simplex by exact enumeration of supports (Fractions)."""
    n = len(v)
    best = None
    for mask in range(1, 2**n):
        S = [i for i in range(n) if mask >> i & 1]
        tau = (sum(Fraction(v[i]) for i in S) - 1) / len(S)
        p = [Fraction(v[i]) - tau if i in S else Fraction(0) for i in range(n)]
        if min(p) < 0:
            continue
        d = sum((Fraction(v[i]) - p[i]) ** 2 for i in range(n))
        if best is None or d < best[0]:
            best = (d, p)
    return [float(x) for x in best[1]]


@given(st.lists(st.integers(-20, 20), min_size=1, max_size=6))
def test_project_simplex_matches_bruteforce(ints):
    v = np.array(ints, dtype=float) / 8.0
    assert np.allclose(project_simplex(v, F64), _proj_bruteforce(v), atol=1e-12)


def test_project_simplex_known_cases():
    assert project_simplex(np.array([0.2, 0.3, 0.5]), F64).tolist() == pytest.approx([0.2, 0.3, 0.5], abs=1e-15)
    assert project_simplex(np.array([2.0, 0.0]), F64).tolist() == [1.0, 0.0]
    assert project_simplex(np.array([1.0, 1.0]), F64).tolist() == [0.5, 0.5]
    assert project_simplex(np.array([3.0, 1.0, -5.0]), F64).tolist() == [1.0, 0.0, 0.0]
    # tie at the threshold: u_j - (c_j - 1)/j == 0 must NOT enter the support
    assert project_simplex(np.array([1.0, 0.0]), F64).tolist() == [1.0, 0.0]
    with MP.context():
        p = project_simplex(MP.array([0.5, 0.25, 0.0]), MP)  # tau = -1/12: (7/12, 4/12, 1/12)
        assert all(abs(a - mpmath.mpf(b) / 12) < mpmath.mpf(10) ** -48 for a, b in zip(p, (7, 4, 1)))


def test_g_norm_and_round_off_guard():
    G = np.array([[1.0, -1.0], [-1.0, 1.0]])
    assert g_norm(G, np.array([0.5, 0.5]), F64) == 0.0
    assert g_norm(G, np.array([1.0, 0.0]), F64) == 1.0
    Gneg = np.array([[-1e-20]])  # round-off negative quadratic form
    assert g_norm(Gneg, np.array([1.0]), F64) == 0.0
    assert math.isclose(g_norm(np.eye(2), np.array([3.0, 4.0]), F64), 5.0)


# -- validation ----------------------------------------------------------------------------------


GOOD_X = np.array([[1.0, 0.0], [0.0, 1.0]])
GOOD_Y = np.array([1, -1])


@pytest.mark.parametrize(
    "X, y, match",
    [
        (np.array([[np.nan, 1.0], [1.0, 1.0]]), GOOD_Y, "NaN or inf"),
        (np.array([[np.inf, 1.0], [1.0, 1.0]]), GOOD_Y, "NaN or inf"),
        (np.zeros((0, 2)), np.zeros(0), "empty"),
        (np.array([1.0, 2.0]), GOOD_Y, "2-D"),
        (GOOD_X, np.array([1, -1, 1]), "2 rows but y has 3"),
        (GOOD_X, np.array([1, 0]), r"\+1 and -1"),
        (GOOD_X, np.array([1, 2]), r"\+1 and -1"),
        (GOOD_X, np.array([[1, -1]]), "1-D"),
        (np.array([[1.0, 0.0], [0.0, 0.0]]), GOOD_Y, "zero rows"),
        (np.array([["a", "b"]]), np.array([1]), "numeric"),
    ],
)
def test_check_data_rejects(X, y, match):
    with pytest.raises(ValueError, match=match):
        check_data(X, y)


def test_check_data_accepts_and_allows_zero_rows_on_request():
    X, y = check_data(GOOD_X, [1.0, -1.0])
    assert y.dtype == np.int64 and y.tolist() == [1, -1]
    X0, _ = check_data(np.array([[0.0, 0.0]]), [1], nonzero=False)
    assert X0.shape == (1, 2)


@pytest.mark.parametrize(
    "G, match",
    [
        (np.ones((2, 3)), "square"),
        (np.zeros((0, 0)), "square|empty"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), "NaN"),
        (np.array([[1.0, 0.5], [0.4, 1.0]]), "symmetric"),
        (np.array([[2.0, 0.0], [0.0, 1.0]]), "unit diagonal"),
        (np.array([[1.0, 2.0], [2.0, 1.0]]), "positive semidefinite"),
    ],
)
def test_check_gram_rejects(G, match):
    with pytest.raises(ValueError, match=match):
        check_gram(G)


def test_check_gram_accepts_psd_without_unit_diagonal_when_asked():
    K = np.array([[4.0, 2.0], [2.0, 1.0]])  # rank one, PSD
    assert check_gram(K, unit_diagonal=False) is not None
    with pytest.raises(ValueError, match="unit diagonal"):
        check_gram(K)


@pytest.mark.parametrize("q", [[0.5, 0.6], [-0.1, 1.1], [1.0], [np.nan, 1.0]])
def test_check_simplex_rejects(q):
    with pytest.raises(ValueError, match="q"):
        check_simplex(np.array(q), 2)


def test_check_real_and_int():
    assert check_real("eps", 0.5, low=0, high=1) == 0.5
    assert check_real("eps", 1.0, low=0, high=1) == 1.0
    for bad in (0.0, 1.5, float("nan"), "x", True):
        with pytest.raises(ValueError, match="eps"):
            check_real("eps", bad, low=0, high=1)
    with pytest.raises(ValueError, match=r"\[0"):
        check_real("c", -1, low=0, low_open=False)
    assert check_int("max_iter", 0) == 0
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="max_iter"):
            check_int("max_iter", bad)


# -- transformations ------------------------------------------------------------------------------


def test_augment_reflect_extend():
    X = np.array([[1.0, 2.0], [3.0, 4.0]])
    y = np.array([1, -1])
    A = augment(X, 0.5)
    assert A.tolist() == [[1.0, 2.0, 0.5], [3.0, 4.0, 0.5]]
    Z = reflect(A, y)
    assert Z.tolist() == [[1.0, 2.0, 0.5], [-3.0, -4.0, -0.5]]
    E = extend(Z, y, 2.0)
    assert E.tolist() == [[1.0, 2.0, 0.5, 2.0, 0.0], [-3.0, -4.0, -0.5, 0.0, -2.0]]


# -- LIBSVM reader ----------------------------------------------------------------------------------


def test_load_libsvm_plain_and_gz(tmp_path):
    text = "+1 1:0.5 3:-1\n-1 2:2 # comment\n\n1 3:1.5\n"
    f = tmp_path / "d.svm"
    f.write_text(text)
    X, y = ref.load_libsvm(f)
    assert sp.isspmatrix_csr(X) and X.nnz == 4
    X = X.toarray()
    assert X.tolist() == [[0.5, 0.0, -1.0], [0.0, 2.0, 0.0], [0.0, 0.0, 1.5]]
    assert y.tolist() == [1, -1, 1]
    g = tmp_path / "d.svm.gz"
    with gzip.open(g, "wt") as fh:
        fh.write(text)
    X2, y2 = ref.load_libsvm(g, n_features=5)
    X2 = X2.toarray()
    assert X2.shape == (3, 5) and np.array_equal(X2[:, :3], X) and y2.tolist() == y.tolist()


@pytest.mark.parametrize(
    "text, match",
    [("1 0:1\n", "1-based"), ("1 a:1\n", "not LIBSVM"), ("0 1:1\n1 1:2\n", r"\+1/-1"), ("\n# only\n", "no data")],
)
def test_load_libsvm_rejects(tmp_path, text, match):
    f = tmp_path / "bad.svm"
    f.write_text(text)
    with pytest.raises(ValueError, match=match):
        ref.load_libsvm(f)


def test_load_libsvm_missing_file_and_small_n_features(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        ref.load_libsvm(tmp_path / "nope")
    f = tmp_path / "d.svm"
    f.write_text("1 4:1\n")
    with pytest.raises(ValueError, match="n_features"):
        ref.load_libsvm(f, n_features=2)


def test_load_npz(tmp_path):
    f = tmp_path / "d.npz"
    np.savez(f, X=GOOD_X, y=GOOD_Y)
    X, y = ref.load_npz(f)
    assert np.array_equal(X, GOOD_X) and np.array_equal(y, GOOD_Y)
    g = tmp_path / "e.npz"
    np.savez(g, A=GOOD_X)
    with pytest.raises(ValueError, match="'X' and 'y'"):
        ref.load_npz(g)


def test_shipped_heart_scale_reads():
    from importlib import resources

    with resources.as_file(resources.files("reference.data_files") / "heart_scale.txt") as p:
        X, y = ref.load_libsvm(p, n_features=13)
    assert X.shape == (270, 13)
    assert (y == 1).sum() == 120 and (y == -1).sum() == 150  # Statlog Heart: 120 present / 150 absent


# -- Gram builder -------------------------------------------------------------------------------------


def test_gram_linear_is_normalized_reflected_inner_product():
    X = np.array([[3.0, 4.0], [1.0, 0.0], [0.0, 2.0]])
    y = np.array([1, -1, 1])
    G = ref.gram(X, y)
    Z = reflect(X / np.linalg.norm(X, axis=1, keepdims=True), y)
    assert np.allclose(G, Z @ Z.T, atol=1e-15)
    assert G[0, 1] == pytest.approx(-0.6) and G[0, 2] == pytest.approx(0.8) and G[1, 2] == 0.0
    assert np.all(np.diag(G) == 1.0)
    K = ref.signed_gram(X, y)
    assert K.tolist() == [[25.0, -3.0, 8.0], [-3.0, 1.0, 0.0], [8.0, 0.0, 4.0]]


def test_gram_polynomial_and_gaussian_known_entries():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([1, 1])
    Kp = kernel_matrix(X, X, "polynomial", degree=3, c=2.0)
    assert Kp.tolist() == [[27.0, 8.0], [8.0, 27.0]]
    Gp = ref.gram(X, y, "polynomial", degree=3, c=2.0)
    assert Gp[0, 1] == pytest.approx(8.0 / 27.0)
    Gg = ref.gram(X, np.array([1, -1]), "gaussian", sigma=2.0)
    assert Gg[0, 1] == pytest.approx(-math.exp(-2.0 / 8.0))  # ||x-x'||^2 = 2
    assert kernel_matrix(X, X, "polynomial").tolist() == [[4.0, 1.0], [1.0, 4.0]]  # defaults degree 2, c 1
    assert kernel_matrix(X, X, "gaussian")[0, 1] == pytest.approx(math.exp(-1.0))  # default sigma 1


def test_gram_callable_kernel_and_precision():
    X = np.array([[1.0, 2.0], [2.0, 1.0]])
    y = np.array([1, -1])
    G = ref.gram(X, y, lambda A, B: (A @ B.T) ** 2)
    assert G[0, 1] == pytest.approx(-16.0 / 25.0)
    G50 = ref.gram(X, y, precision=50)
    assert isinstance(G50[0, 1], mpmath.mpf)
    with mpmath.workdps(50):
        assert abs(G50[0, 1] - mpmath.mpf(-4) / 5) < mpmath.mpf(10) ** -45


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(kernel="rbf"), "kernel must be one of"),
        (dict(kernel="gaussian", sigma=0.0), "sigma"),
        (dict(kernel="gaussian", gamma=1.0), "unknown parameter"),
        (dict(kernel="polynomial", degree=0), "degree"),
        (dict(kernel="polynomial", degree=2.5), "degree"),
        (dict(kernel="polynomial", c=-1.0), "c must"),
        (dict(kernel=lambda A, B: np.ones((1, 1))), "shape"),
    ],
)
def test_gram_rejects_bad_kernels(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ref.gram(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, -1]), **kwargs)


def test_gram_rejects_zero_point_for_linear_kernel():
    with pytest.raises(ValueError, match=r"^X has 1 zero rows \(first: \[0\]\)"):
        ref.gram(np.array([[0.0, 0.0], [1.0, 0.0]]), np.array([1, -1]))
    # polynomial with c = 0 at a zero point: K(x, x) = 0, caught from the diagonal alone
    with pytest.raises(ValueError, match=r"K\(x_i, x_i\) <= 0 for 1 point\(s\) \(first: i = \[0\]\)"):
        ref.gram(np.array([[0.0, 0.0], [1.0, 0.0]]), np.array([1, -1]), "polynomial", c=0.0)


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


def test_bias_by_augmentation_in_gram_and_rp14():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    y = np.array([1, -1, 1])
    G = ref.gram(X, y, rho=1.0)
    Xa = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [0.0, 2.0, 1.0]])
    assert np.array_equal(G, ref.gram(Xa, y))
    assert np.array_equal(ref.signed_gram(X, y, rho=2.0), ref.signed_gram(np.hstack([X, np.full((3, 1), 2.0)]), y))
    for fn in (ref.perceptron, ref.normalized_perceptron):
        r = fn(X, y, rho=1.0)
        assert r.status == "separator" and r.w.shape == (3,)
        assert np.all(y * (X @ r.w[:2] + 1.0 * r.w[2]) > 0)
        assert fn(Xa, y).w.tolist() == r.w.tolist()
        with pytest.raises(ValueError, match="zero rows"):
            fn(X, y)
        with pytest.raises(ValueError, match="rho must lie in"):
            fn(X, y, rho=-1.0)
    with pytest.raises(ValueError, match="rho must lie in"):
        ref.gram(X, y, rho=0.0)


def test_drop_zero_rows():
    from reference.data import drop_zero_rows

    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, -2.0]])
    Xd, yd, kept = drop_zero_rows(X, [1, -1, 1, -1])
    assert kept.tolist() == [1, 3] and Xd.tolist() == [[1.0, 0.0], [0.0, -2.0]] and yd.tolist() == [-1, -1]
    with pytest.raises(ValueError, match="every row of X is zero"):
        drop_zero_rows(np.zeros((2, 2)), [1, -1])
    with pytest.raises(ValueError, match="callable"):
        ref.gram(GOOD_X, GOOD_Y, lambda A, B: A @ B.T, sigma=1.0)


# -- verifiers and the driver ------------------------------------------------------------------------


def test_verifiers():
    G = np.array([[1.0, -0.5], [-0.5, 1.0]])
    assert verify_separator_gram(G, np.array([0.5, 0.5])) == ""
    assert "is not > 0" in verify_separator_gram(G, np.array([1.0, 0.0]) * 0 + np.array([0.0, 0.0]))
    Z = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert verify_separator_primal(Z, np.array([1.0, 1.0])) == ""
    assert "y_1" in verify_separator_primal(Z, np.array([1.0, 0.0]))
    Gi = np.array([[1.0, -1.0], [-1.0, 1.0]])
    assert verify_certificate(Gi, np.array([0.5, 0.5]), 1e-9, F64) == ""
    assert "negative" in verify_certificate(Gi, np.array([1.5, -0.5]), 1.0, F64)
    assert "sum(p)" in verify_certificate(Gi, np.array([0.5, 0.6]), 1.0, F64)
    assert "is not <" in verify_certificate(Gi, np.array([1.0, 0.0]), 0.5, F64)
    # boundary: ||p||_G == accuracy is a certificate only when not strict
    assert verify_certificate(Gi, np.array([1.0, 0.0]), 1.0, F64) != ""
    assert verify_certificate(Gi, np.array([1.0, 0.0]), 1.0, F64, strict=False) == ""


def _toy_algorithm(claim_ok: bool):
    """Counts to 3, then claims a separator that is (or is not) genuine."""
    G = np.eye(2)
    return Algorithm(
        name="toy",
        init=lambda pb: 0,
        step=lambda pb, s: s + 1,
        exit=lambda pb, s: SEPARATOR if s == 3 else None,
        counter=lambda s: s,
        verify=lambda pb, s, c: verify_separator_gram(G, np.array([1.0, 1.0]) if claim_ok else np.array([1.0, -1.0])),
        output=lambda pb, s: {"alpha": np.array([float(s)]), "info": {"x": 1}},
    )


def test_drive_verifies_claims_and_honours_budget():
    r = drive(_toy_algorithm(True), None, F64, max_iter=10, trace=True)
    assert r.status == SEPARATOR and r.iterations == 3 and r.trace == (0, 1, 2, 3) and r.converged
    bad = drive(_toy_algorithm(False), None, F64, max_iter=10)
    assert bad.status == MAX_ITER and "not verified" in bad.message and not bad.converged
    short = drive(_toy_algorithm(True), None, F64, max_iter=2)
    assert short.status == MAX_ITER and short.iterations == 2 and short.trace is None
    exact = drive(_toy_algorithm(True), None, F64, max_iter=3)
    assert exact.status == SEPARATOR  # the exit test is evaluated before the budget
    stopped = drive(_toy_algorithm(True), None, F64, max_iter=10, budget=lambda pb, s: s >= 1)
    assert stopped.status == MAX_ITER and stopped.iterations == 1
    d = r.as_dict()
    assert d["status"] == "separator" and d["alpha"] == [3.0] and d["info"] == {"x": 1}
