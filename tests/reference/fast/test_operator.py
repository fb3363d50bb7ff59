"""Tests of reference/fast/test_operator.py."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

import reference
from reference.fast.operator import LinearGram, linear_gram
from reference.patterns import make_patterns
from tests.support.fast import LP, X2, XP, Y2, _planted_3


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
    X, y = _planted_3(20, 5)
    X[np.abs(X) < 0.7] = 0.0
    X[np.all(X == 0, axis=1), 0] = 1.0
    a, b = linear_gram(X, y), linear_gram(sp.csr_matrix(X), y)
    for f in ("data", "indices", "indptr"):
        assert np.array_equal(getattr(a.Z, f), getattr(b.Z, f)) and getattr(a.Z, f).dtype == getattr(b.Z, f).dtype


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


def test_linear_gram_operator_needs_float64_data_and_int64_index_arrays():
    """Every requirement on Z holds on its own: a canonical, finite Z is still refused with int32
    indices, with int32 indptr, with float32 data, in CSC, or with an infinite entry -- the message
    says what is needed and how to build it."""
    import scipy.sparse as sp

    from reference.fast.operator import LinearGram, linear_gram

    good = linear_gram(np.array([[1.0, 2.0], [3.0, -1.0]]), np.array([1, -1])).Z
    LinearGram(Z=good)  # accepted as built

    def variant(**change):
        Z = good.copy()
        for name, value in change.items():
            setattr(Z, name, value)
        return Z

    bad = {
        "int32 indices": variant(indices=good.indices.astype(np.int32)),
        "int32 indptr": variant(indptr=good.indptr.astype(np.int32)),
        "float32 data": sp.csr_matrix(good, dtype=np.float32),
        "CSC": good.tocsc(),
        "an infinite entry": variant(data=np.where(np.arange(good.nnz) == 0, np.inf, good.data)),
    }
    message = "LinearGram needs Z in canonical float64 CSR with int64 indices; build it with linear_gram(X, y)"
    for what, Z in bad.items():
        with pytest.raises(ValueError) as err:
            LinearGram(Z=Z)
        assert str(err.value) == message, what
