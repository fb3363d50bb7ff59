"""The linear kernel's normalized signed Gram matrix as an operator, G v = Z (Z^T v).

For the linear kernel, G_ij = <z_i, z_j> with z_i = y_i x_i / ||x_i|| (RP14 Sec. 3), so
``G = Z Z^T`` for the matrix Z of normalized reflected rows.  :class:`LinearGram` holds Z as CSR
arrays (a dense X is stored the same way), O(nnz) memory: a9a (n = 32,561) fits, an n x n G
would take 8.5 GB.  The compiled engine (``engine="fast"``) accepts it wherever a Gram algorithm
takes G.  No numba here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

import numpy as np

from ..data import check_data

__all__ = ["LinearGram", "linear_gram", "csr_arrays"]


@dataclass(frozen=True)
class LinearGram:
    """G = Z Z^T with Z (n x d) the normalized reflected points, held in CSR.

    Attributes
    ----------
    data, indices, indptr : ndarray
        CSR arrays of Z (float64, int64, int64; indices sorted within each row).
    shape : (n, d)
        Shape of Z; G is n x n.
    """

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    shape: Tuple[int, int]

    @property
    def n(self) -> int:
        return self.shape[0]

    def matvec(self, v: np.ndarray) -> np.ndarray:
        """G v = Z (Z^T v), in NumPy."""
        from ..result import _csr_matvec, _csr_rmatvec

        return _csr_matvec(self.data, self.indices, self.indptr, _csr_rmatvec(self.data, self.indices, self.indptr, v, self.shape[1]))


def csr_arrays(X) -> Tuple[np.ndarray, np.ndarray, np.ndarray, Tuple[int, int]]:
    """(data, indices, indptr, shape) of a dense array or of a CSR matrix (anything with
    ``data``, ``indices``, ``indptr`` and ``shape``, e.g. ``scipy.sparse.csr_array``).

    float64 data, int64 indices, indices sorted within rows, explicit zeros dropped.
    """
    if all(hasattr(X, a) for a in ("data", "indices", "indptr", "shape")) and not isinstance(X, np.ndarray):
        fmt = getattr(X, "format", "csr")
        if fmt != "csr":
            raise ValueError(f"a sparse X must be in CSR format, got {fmt!r}; convert it with X.tocsr()")
        data = np.asarray(X.data, dtype=np.float64)
        indices = np.asarray(X.indices, dtype=np.int64)
        indptr = np.asarray(X.indptr, dtype=np.int64)
        n, d = (int(s) for s in X.shape)
        if indptr.shape != (n + 1,) or indptr[0] != 0 or np.any(np.diff(indptr) < 0) or indptr[-1] != data.shape[0]:
            raise ValueError("X's CSR arrays are inconsistent (indptr must rise from 0 to len(data))")
        if indices.shape != data.shape or (indices.size and (indices.min() < 0 or indices.max() >= d)):
            raise ValueError(f"X's CSR column indices must lie in [0, {d})")
        if not np.all(np.isfinite(data)):
            raise ValueError("X contains NaN or inf; remove or impute those entries")
        rows = np.repeat(np.arange(n), np.diff(indptr))
        order = np.lexsort((indices, rows))  # sorted indices within every row
        data, indices = data[order], indices[order]
        keep = data != 0
        if not np.all(keep):
            data, indices = data[keep], indices[keep]
            indptr = np.concatenate([[0], np.cumsum(np.bincount(rows[order][keep], minlength=n))]).astype(np.int64)
        return np.ascontiguousarray(data), np.ascontiguousarray(indices), np.ascontiguousarray(indptr), (n, d)
    A = np.asarray(X, dtype=np.float64)
    if A.ndim != 2:
        raise ValueError(f"X must be a 2-D array (points as rows), got shape {A.shape}")
    rows, cols = np.nonzero(A)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=A.shape[0]))]).astype(np.int64)
    return A[rows, cols].copy(), cols.astype(np.int64), indptr, (int(A.shape[0]), int(A.shape[1]))


def linear_gram(X, y) -> LinearGram:
    """The linear kernel's normalized signed Gram matrix G = Z Z^T as an operator  [RP14 Sec. 3].

    z_i = y_i x_i / ||x_i||_2; equal (up to round-off) to ``reference.gram(X, y)`` without the
    n x n matrix.

    Parameters
    ----------
    X : array_like or CSR matrix, shape (n, d)
        The points as rows (finite, no zero rows).  Sparse input: anything with CSR
        ``data``, ``indices``, ``indptr``, ``shape`` (e.g. ``scipy.sparse.csr_array``).
    y : array_like, shape (n,)
        Labels +1 / -1.

    Returns
    -------
    LinearGram
    """
    data, indices, indptr, (n, d) = csr_arrays(X)
    if n == 0 or d == 0:
        raise ValueError(f"X is empty (shape {(n, d)}); pass at least one point with one feature")
    _, yv = check_data(np.zeros((n, 1)) + 1.0, y)  # the one label validator
    rows = np.repeat(np.arange(n), np.diff(indptr))
    sq = np.bincount(rows, weights=data * data, minlength=n)
    if np.any(sq == 0):
        i = int(np.flatnonzero(sq == 0)[0])
        raise ValueError(f"X[{i}] is a zero point: it has no direction to normalize; remove it or augment the data")
    scale = yv[rows] / np.sqrt(sq)[rows]
    return LinearGram(data=data * scale, indices=indices, indptr=indptr, shape=(n, d))
