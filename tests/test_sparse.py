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
