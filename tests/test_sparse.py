"""Sparse data end to end: check_csr, CSR from load_libsvm, dense and CSR inputs give the same
errors and bit-identical results."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from reference.data import check_csr, check_data, check_sparse_data

X0 = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, -1.5], [3.0, 0.5, 0.0], [-1.0, -1.0, 0.0]])
Y0 = np.array([1, -1, 1, -1])


def _csr(data, indices, indptr, shape):
    # built field by field: scipy's constructor would itself reject some of these
    M = sp.csr_matrix(shape)
    M.data, M.indices, M.indptr = np.asarray(data, float), np.asarray(indices), np.asarray(indptr)
    return M


def test_check_csr_canonical_form_and_input_untouched():
    M = sp.csr_matrix((np.array([2.0, 0.0, 1.0, 1.0]), np.array([2, 0, 0, 0]), np.array([0, 3, 4])), shape=(2, 3))
    before = (M.data.copy(), M.indices.copy())
    C = check_csr(M)
    assert C.indices.tolist() == [0, 2, 0] and C.data.tolist() == [1.0, 2.0, 1.0]  # sorted, zero dropped
    assert C.indices.dtype == np.int64 and C.indptr.dtype == np.int64 and C.data.dtype == np.float64
    assert np.array_equal(M.data, before[0]) and np.array_equal(M.indices, before[1])
    D = sp.csr_matrix(M.toarray())
    Cd = check_csr(D)
    assert (Cd.data.tolist(), Cd.indices.tolist(), Cd.indptr.tolist()) == (C.data.tolist(), C.indices.tolist(), C.indptr.tolist())
    # duplicates are summed, as toarray() does
    dup = sp.csr_matrix((np.array([1.0, 2.0]), np.array([1, 1]), np.array([0, 2])), shape=(1, 2))
    assert check_csr(dup).toarray().tolist() == [[0.0, 3.0]]


@pytest.mark.parametrize(
    "M, match",
    [
        (_csr([np.nan], [0], [0, 1], (1, 2)), "NaN or inf"),
        (_csr([np.inf], [1], [0, 1], (1, 2)), "NaN or inf"),
        (_csr([1.0], [2], [0, 1], (1, 2)), r"column index out of range \[0, 2\)"),
        (_csr([1.0], [-1], [0, 1], (1, 2)), "column index out of range"),
        (_csr([1.0], [0], [0, 1, 0], (2, 2)), "not a consistent CSR"),
        (_csr([1.0], [0], [1, 1], (1, 2)), "not a consistent CSR"),
        (_csr([1.0], [0], [0, 1], (2, 2)), "not a consistent CSR"),
        (sp.csr_matrix((0, 3)), "X is empty"),
        (sp.csr_matrix(np.array([[1 + 1j, 0]])), "real numbers"),
        (sp.coo_matrix((np.array([1e308, 1e308]), (np.array([0, 0]), np.array([0, 0]))), shape=(1, 1)), "NaN or inf"),  # summed duplicates overflow
    ],
)
def test_check_csr_rejects(M, match):
    with pytest.raises(ValueError, match=match):
        check_csr(M)


def test_sparse_and_dense_inputs_fail_alike():
    for X, y, match in [
        (np.array([[np.nan, 1.0]]), [1], "NaN or inf"),
        (X0, Y0[:3], "4 rows but y has 3 labels"),
        (X0, [1, 2, 1, -1], r"only \+1 and -1"),
        (np.array([[0.0, 0.0], [1.0, 0.0]]), [1, -1], "X has 1 zero rows"),
    ]:
        for Xi in (X, sp.csr_matrix(X)):
            with pytest.raises(ValueError, match=match):
                check_data(Xi, y)
            with pytest.raises(ValueError, match=match):
                check_sparse_data(Xi, y)


def test_check_sparse_data_same_csr_from_dense_and_sparse():
    A, ya = check_sparse_data(X0, Y0)
    B, yb = check_sparse_data(sp.csr_matrix(X0), Y0)
    for f in ("data", "indices", "indptr"):
        assert getattr(A, f).tolist() == getattr(B, f).tolist()
    assert ya.tolist() == yb.tolist()


# -- every public function: dense and CSR inputs, bit-identical results ---------------------------

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


def _heart():
    from importlib import resources

    with resources.as_file(resources.files("reference.data_files") / "heart_scale.txt") as p:
        return ref.load_libsvm(p, n_features=13)


def test_heart_scale_dense_and_csr_bit_identical():
    X, y = _heart()
    D = X.toarray()
    for kw in (dict(rho=1.0), dict(rho=1.0, Delta=1.0, multiple_updates=True)):
        _same(ref.pdm(D, y, 0.1, max_iter=3000, **kw), ref.pdm(X, y, 0.1, max_iter=3000, **kw))
    _same(ref.normalized_perceptron(D, y, max_iter=500), ref.normalized_perceptron(X, y, max_iter=500))
    A, B = ref.margin_from_data(D, y, rho=1.0, Delta=1.0), ref.margin_from_data(X, y, rho=1.0, Delta=1.0)
    assert (A.lower, A.upper) == (B.lower, B.upper)


def test_pt11_memory_is_o_nnz_plus_m():
    # 20,000 points in the extended space: materialized, the patterns would take
    # 20,000 x 20,003 x 8 bytes = 3.2 GB; held implicitly they take a few MB.
    import tracemalloc

    m = 20_000
    rng = np.random.default_rng(0)
    X = sp.random(m, 3, density=0.5, random_state=1, format="csr")
    y = rng.choice([-1, 1], m)
    tracemalloc.start()
    r = ref.pdm(X, y, 0.1, Delta=1.0, max_iter=200)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert r.w.shape == (3 + 1 + m,) and r.iterations == 200
    assert peak < 200e6, peak


def test_pt11_w_layout_on_csr():
    # [weights, bias, extended coordinates]: a . y_k recomputed from the returned w
    X, y = _heart()
    r = ref.pdm(X, y, 0.5, rho=1.0, Delta=1.0, max_iter=2000)
    w = r.w
    d, m = X.shape[1], X.shape[0]
    D = X.toarray()
    recomputed = y * (D @ w[:d] + 1.0 * w[d] + 1.0 * w[d + 1 :])
    assert r.status == "separator" and np.all(recomputed > 0)
    assert np.allclose(np.min(recomputed) / np.linalg.norm(w), r.info["margin"], rtol=1e-12)


def test_progress_callback_sees_every_update():
    X, y = _heart()
    seen = []
    r = ref.pdm(X[:50], y[:50], 0.5, progress=lambda s: seen.append(s.t))
    assert seen[-1] == r.iterations and len(seen) >= r.iterations
    with pytest.raises(ValueError, match="progress must be a callable"):
        ref.pdm(X[:50], y[:50], 0.5, progress=3)


def test_transforms_and_kernel_matrix_accept_csr():
    from reference.data import augment, drop_zero_rows, extend, reflect

    S = sp.csr_matrix(X0)
    assert augment(S, 2.0).toarray().tolist() == augment(X0, 2.0).tolist()
    assert reflect(S, Y0).toarray().tolist() == reflect(X0, Y0).tolist()
    E = extend(reflect(augment(S, 1.0), Y0), Y0, 0.5)
    assert sp.issparse(E) and E.nnz == sp.csr_matrix(X0).nnz + 2 * 4  # rho column + one Delta per point
    assert E.toarray().tolist() == extend(reflect(augment(X0, 1.0), Y0), Y0, 0.5).tolist()
    from reference.gram import kernel_matrix

    for k in ("linear", "polynomial", "gaussian"):
        assert kernel_matrix(S, S, k).tobytes() == kernel_matrix(X0, X0, k).tobytes()
    Z = np.array([[0.0, 1.0], [0.0, 0.0], [2.0, 0.0]])
    Xd, yd, kd = drop_zero_rows(sp.csr_matrix(Z), [1, -1, 1])
    assert sp.issparse(Xd) and Xd.toarray().tolist() == [[0.0, 1.0], [2.0, 0.0]] and kd.tolist() == [0, 2]


def test_scale_rows_pow2_sparse_is_the_dense_scaling():
    from reference.arithmetic import scale_rows_pow2

    A = np.array([[1e300, 3.0, 0.0], [0.0, 0.0, 0.0], [1e-300, -2e-300, 0.0], [0.75, 0.0, -0.5]])
    S = scale_rows_pow2(sp.csr_matrix(A))
    assert sp.issparse(S) and np.array_equal(S.toarray(), scale_rows_pow2(A))
    assert np.array_equal(S.toarray()[3], A[3])  # largest entry already in [1/2, 1): untouched
