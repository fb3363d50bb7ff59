"""The linear kernel's normalized signed Gram matrix as an operator, G v = Z (Z^T v).

For the linear kernel, G_ij = <z_i, z_j> with z_i = y_i x_i / ||x_i|| (RP14 Sec. 3), so
``G = Z Z^T`` for the matrix Z of normalized reflected rows.  :class:`LinearGram` holds Z in
canonical CSR (a dense X is stored the same way), O(nnz) memory: a9a (n = 32,561) fits, an
n x n G would take 8.5 GB.  The compiled engine (``engine="fast"``) accepts it wherever a Gram
algorithm takes G.  No numba here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..arithmetic import scale_rows_pow2
from ..data import check_real, check_sparse_data

__all__ = ["LinearGram", "linear_gram"]


@dataclass(frozen=True)
class LinearGram:
    """G = Z Z^T with Z (n x d) the normalized reflected points, in canonical CSR.

    Attributes
    ----------
    Z : scipy.sparse.csr_matrix
        The rows z_i = y_i x_i / ||x_i||_2 (float64 data, int64 sorted indices).
    """

    Z: sp.csr_matrix

    def __post_init__(self):
        # the verifiers' round-off bounds count at most n entries a column and d a row: canonical
        # CSR (no duplicates), float64, finite -- what linear_gram builds
        Z = self.Z
        ok = (
            sp.issparse(Z)
            and Z.format == "csr"
            and Z.dtype == np.float64
            and Z.indices.dtype == np.int64
            and Z.indptr.dtype == np.int64
            and Z.has_canonical_format
            and bool(np.all(np.isfinite(Z.data)))
        )
        if not ok:
            raise ValueError("LinearGram needs Z in canonical float64 CSR with int64 indices; build it with linear_gram(X, y)")

    @property
    def shape(self):
        """Shape (n, d) of Z; G is n x n."""
        return self.Z.shape

    @property
    def n(self) -> int:
        return self.Z.shape[0]

    def matvec(self, v: np.ndarray) -> np.ndarray:
        """G v = Z (Z^T v)."""
        return self.Z @ (self.Z.T @ v)


def linear_gram(X, y, *, rho=None) -> LinearGram:
    """The linear kernel's normalized signed Gram matrix G = Z Z^T as an operator  [RP14 Sec. 3].

    z_i = y_i x_i / ||x_i||_2 (x_i augmented to [x_i, rho] when ``rho`` is given, as
    ``reference.gram(X, y, rho=rho)``); equal to ``reference.gram(X, y, rho=rho)`` up to
    round-off, without the n x n matrix.  Each row is first scaled by a power of two so that its
    squared norm neither overflows nor underflows, at any scale of X.

    Parameters
    ----------
    X : array_like or scipy.sparse matrix, shape (n, d)
        The points as rows (finite; no zero rows unless rho is given).
    y : array_like, shape (n,)
        Labels +1 / -1.
    rho : float, optional
        Bias by augmentation.

    Returns
    -------
    LinearGram
    """
    if rho is not None:
        check_real("rho", rho, low=0, hint="the augmentation (bias) coordinate, e.g. rho=1.0; or rho=None")
    C, yv = check_sparse_data(X, y, nonzero=rho is None)
    if rho is not None:
        C = sp.hstack([C, sp.csr_matrix(np.full((C.shape[0], 1), float(rho)))], format="csr")
    # z_i is invariant under x_i -> c x_i (c > 0): scale every row by a power of two, as
    # reference.gram does, so that ||x_i||^2 can neither overflow nor underflow (exact but for
    # entries that land among the subnormals; a claim is about Z as stored either way)
    C = scale_rows_pow2(C)
    norms = np.sqrt(np.asarray(C.multiply(C).sum(axis=1)).ravel())
    Z = sp.csr_matrix(sp.diags(yv.astype(np.float64) / norms) @ C)
    Z.sort_indices()
    Z.indices = Z.indices.astype(np.int64)  # set as attributes: the csr_matrix constructor
    Z.indptr = Z.indptr.astype(np.int64)  # would narrow them back to int32 (as check_csr does)
    return LinearGram(Z=Z)
