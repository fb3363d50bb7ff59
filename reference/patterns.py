"""The PT11 patterns y_k = l_k [x_k, rho, Delta e_k], stored implicitly  [PT11 Sec. 2, Sec. 5].

A pattern needs only the k-th row of X (sparse), its label l_k and the two scalars rho and
Delta: augmentation x_k -> [x_k, rho] (a bias), reflection by l_k, and the extended space of
PT11 Sec. 5 with one extra coordinate Delta at position k.  So

    a . y_k = l_k (a_x . x_k + rho a_rho + Delta a_ext[k])     costs O(nnz(x_k)),
    ||y_k||^2 = ||x_k||^2 + rho^2 + Delta^2,
    a + lam y_k touches nnz(x_k) + 2 coordinates,

and the memory is O(nnz + m) where the materialized extended space is m x (d + 1 + m).

Vectors of the pattern space have the documented layout ``[weights (d), bias (1 if rho),
extended coordinates (m if Delta)]``.  The fields are plain arrays and scalars (CSR
``data`` / ``indices`` / ``indptr`` of X, ``labels``, ``rho``, ``Delta``), ready for a compiled
kernel.  Every method works in float64 and, on ``dtype=object`` vectors of ``mpmath.mpf``, in
mpmath (the pattern entries are floats, exact in any precision).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import mpmath
import numpy as np
import scipy.sparse as sp

from .data import check_real, check_sparse_data
from .result import pattern_margins

__all__ = ["Patterns", "make_patterns"]


@dataclass(frozen=True)
class Patterns:
    """y_k = l_k [x_k, rho, Delta e_k] for k = 0..m-1, without materializing them.

    Attributes
    ----------
    data, indices, indptr : ndarray
        Canonical CSR of X (float64, int64, int64; :func:`reference.data.check_csr`).
    labels : ndarray of int64
        l_k in {+1, -1}.
    n_features : int
        d, the number of columns of X.
    rho : float or None
        Augmentation (bias) coordinate; ``None``: no augmentation.
    Delta : float or None
        Extended-space coordinate; ``None``: the original space.
    """

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    labels: np.ndarray
    n_features: int
    rho: Optional[float]
    Delta: Optional[float]

    @property
    def m(self) -> int:
        """Number of patterns."""
        return self.labels.shape[0]

    @property
    def d0(self) -> int:
        """Length of the augmented part [x_k, rho]: d, plus 1 with rho."""
        return self.n_features + (self.rho is not None)

    @property
    def dim(self) -> int:
        """Length of a pattern: d0, plus m with Delta."""
        return self.d0 + (self.m if self.Delta is not None else 0)

    @property
    def nnz(self) -> int:
        return int(self.indptr[-1])

    def X(self) -> sp.csr_matrix:
        """X as a scipy CSR matrix sharing ``data`` (no copy of the values; scipy may narrow the
        int64 index arrays to int32 copies)."""
        return sp.csr_matrix((self.data, self.indices, self.indptr), shape=(self.m, self.n_features), copy=False)

    def Z(self) -> sp.csr_matrix:
        """The reflected, augmented points z_k = l_k [x_k, rho] as CSR rows (float64; O(nnz + m))."""
        Xr = self.X().multiply(self.labels.astype(np.float64)[:, None]).tocsr()
        if self.rho is None:
            return Xr
        col = sp.csr_matrix(self.labels.astype(np.float64)[:, None] * float(self.rho))
        return sp.hstack([Xr, col], format="csr")

    # -- one pattern (the textbook algorithms) --------------------------------------------------

    def row(self, k: int):
        """(indices, values) of x_k."""
        lo, hi = self.indptr[k], self.indptr[k + 1]
        return self.indices[lo:hi], self.data[lo:hi]

    def _values(self, val: np.ndarray, a: np.ndarray) -> np.ndarray:
        """The row values in the arithmetic of ``a`` (exact mpf for an mpmath vector)."""
        return np.array([mpmath.mpf(v) for v in val], dtype=object) if a.dtype == object else val

    def _scalar(self, v, a: np.ndarray):
        return mpmath.mpf(v) if a.dtype == object and not isinstance(v, mpmath.mpf) else v

    def dot(self, a: np.ndarray, k: int):
        """a . y_k = l_k (a_x . x_k + rho a_rho + Delta a_ext[k])."""
        idx, val = self.row(k)
        s = a[idx] @ self._values(val, a) if idx.size else 0 * a[0]
        if self.rho is not None:
            s = s + self._scalar(self.rho, a) * a[self.n_features]
        if self.Delta is not None:
            s = s + self._scalar(self.Delta, a) * a[self.d0 + k]
        return s if self.labels[k] > 0 else -s

    def add(self, a: np.ndarray, k: int, lam=1) -> np.ndarray:
        """A new vector a + lam y_k (``a`` is not modified)."""
        out = a.copy()
        idx, val = self.row(k)
        c = lam if self.labels[k] > 0 else -lam
        out[idx] = out[idx] + c * self._values(val, a)
        if self.rho is not None:
            out[self.n_features] = out[self.n_features] + c * self._scalar(self.rho, a)
        if self.Delta is not None:
            out[self.d0 + k] = out[self.d0 + k] + c * self._scalar(self.Delta, a)
        return out

    def sqnorms(self) -> np.ndarray:
        """q_k = ||y_k||^2 for every k, float64 (row by row, in index order)."""
        return np.array([self.sqnorm(k, None) for k in range(self.m)])

    def sqnorm(self, k: int, ar):
        """q_k = ||y_k||^2 in the arithmetic ``ar``."""
        _, val = self.row(k)
        if ar is None:  # float64
            q = float(val @ val) if val.size else 0.0
            q = q + (float(self.rho) ** 2 if self.rho is not None else 0.0)
            return q + (float(self.Delta) ** 2 if self.Delta is not None else 0.0)
        v = ar.array(val)
        q = v @ v if v.size else ar.scalar(0)
        if self.rho is not None:
            q = q + ar.scalar(self.rho) ** 2
        if self.Delta is not None:
            q = q + ar.scalar(self.Delta) ** 2
        return q

    # -- all patterns at once ------------------------------------------------------------------

    def matvec(self, a: np.ndarray) -> np.ndarray:
        """(a . y_k)_k for every k: sparse product in float64, one :meth:`dot` per pattern otherwise."""
        if a.dtype == object:
            return np.array([self.dot(a, k) for k in range(self.m)], dtype=object)
        return pattern_margins(self.data, self.indices, self.indptr, self.labels, self.rho, self.Delta, a, self.n_features)

    def abs_matvec(self, a: np.ndarray) -> np.ndarray:
        """(|y_k| . |a|)_k: the scale of the round-off of :meth:`matvec`."""
        return pattern_margins(
            self.data, self.indices, self.indptr, self.labels, self.rho, self.Delta, a, self.n_features, absolute=True
        )

    def row_nnz(self) -> np.ndarray:
        """Number of nonzero entries of each pattern y_k."""
        return np.diff(self.indptr) + (self.rho is not None) + (self.Delta is not None)

    def dense(self) -> np.ndarray:
        """The patterns as a dense (m, dim) float64 array (small data only: O(m dim) memory)."""
        Y = np.zeros((self.m, self.dim))
        for k in range(self.m):
            Y[k] = self.add(np.zeros(self.dim), k)
        return Y


def make_patterns(X, y, *, rho=1.0, Delta=None) -> Patterns:
    """Validate (X, y, rho, Delta) and return the implicit patterns  [PT11 Sec. 2, Sec. 5].

    ``X`` dense or scipy.sparse; zero rows are allowed when rho or Delta makes every pattern
    nonzero.  ``rho`` and ``Delta`` must be > 0 (or ``None``).
    """
    if rho is not None:
        check_real("rho", rho, low=0, hint="pass rho=1.0, or rho=None for no augmentation")
    if Delta is not None:
        check_real("Delta", Delta, low=0, hint="pass e.g. Delta=1.0, or Delta=None for the original space")
    C, yv = check_sparse_data(X, y, nonzero=rho is None and Delta is None)
    return Patterns(
        data=C.data, indices=C.indices, indptr=C.indptr, labels=yv, n_features=C.shape[1], rho=rho, Delta=Delta
    )
