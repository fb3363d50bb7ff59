"""Kernels and the (normalized) signed Gram matrices  [RP14 Sec. 3].

* :func:`kernel_matrix`  K(A, B) for the built-in kernels or a callable
* :func:`signed_gram`    the unnormalized signed Gram  Y K Y  (its margin is rho, or gamma_d on
                         augmented / extended data)
* :func:`gram`           the normalized signed Gram   G_ij = y_i y_j K_ij / sqrt(K_ii K_jj),
                         G_ii = 1  (its margin is rho_K)

This module is the one Gram builder of the project.
"""

from __future__ import annotations

from typing import Callable, Optional, Union

import mpmath
import numpy as np
import scipy.sparse as sp

from .arithmetic import Arithmetic, arithmetic, scale_rows_pow2
from .data import _reject_zero_rows, augment, check_data, check_real
from .blas import one_thread

__all__ = ["KERNELS", "kernel_matrix", "signed_gram", "gram"]

KERNELS = ("linear", "polynomial", "gaussian")
Kernel = Union[str, Callable[[np.ndarray, np.ndarray], np.ndarray]]


@one_thread
def kernel_matrix(A: np.ndarray, B: np.ndarray, kernel: Kernel = "linear", ar: Optional[Arithmetic] = None, **params) -> np.ndarray:
    """The kernel matrix [K(a_i, b_j)]_ij.

    Parameters
    ----------
    kernel : {"linear", "polynomial", "gaussian"} or callable
        ``"linear"``: a.b;  ``"polynomial"``: (a.b + c)^degree (params ``degree`` >= 1 integer,
        default 2, ``c`` >= 0, default 1);  ``"gaussian"``: exp(-||a-b||^2 / (2 sigma^2)) (param
        ``sigma`` > 0, default 1);  a callable ``K(A, B)`` returning the matrix.
    """
    ar = ar or Arithmetic(None)
    A, B = (M.toarray() if sp.issparse(M) else M for M in (A, B))  # the kernel matrix is dense anyway
    if callable(kernel):
        if params:
            raise ValueError(f"parameters {sorted(params)} are only for the built-in kernels; bind them into your callable")
        Kmat = ar.array(np.asarray(kernel(A, B)))
        if Kmat.shape != (A.shape[0], B.shape[0]):
            raise ValueError(f"kernel callable returned shape {Kmat.shape}, expected {(A.shape[0], B.shape[0])}")
        return Kmat
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS} or a callable K(A, B), got {kernel!r}")
    allowed = {"linear": set(), "polynomial": {"degree", "c"}, "gaussian": {"sigma"}}[kernel]
    unknown = set(params) - allowed
    if unknown:
        raise ValueError(f"unknown parameter(s) {sorted(unknown)} for kernel {kernel!r}; allowed: {sorted(allowed) or 'none'}")
    A, B = ar.array(A), ar.array(B)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported by gram / signed_gram
        inner = A @ B.T
    if kernel == "linear":
        return inner
    if kernel == "polynomial":
        degree = params.get("degree", 2)
        if isinstance(degree, bool) or not isinstance(degree, (int, np.integer)) or degree < 1:
            raise ValueError(f"degree must be a positive integer, got {degree!r}")
        c = check_real("c", params.get("c", 1.0), low=0, low_open=False)
        return (inner + ar.scalar(c)) ** int(degree)
    sigma = check_real("sigma", params.get("sigma", 1.0), low=0)
    with np.errstate(over="ignore", under="ignore"):  # judged just below
        two_sigma2 = 2 * (ar.scalar(sigma) if ar.is_mp else np.float64(sigma)) ** 2
    if not 0 < two_sigma2 < np.inf:
        raise ValueError(
            f"sigma={sigma!r}: 2 sigma^2 = {float(two_sigma2)!r} under- or overflows float64; "
            "pass a sigma between 1e-150 and 1e150 (or precision=50)"
        )
    sa = np.sum(A * A, axis=1).reshape(-1, 1)
    sb = np.sum(B * B, axis=1).reshape(1, -1)
    sq = sa + sb - 2 * inner
    sq = np.where(sq > 0, sq, ar.scalar(0))  # round-off guard: squared distances are >= 0
    return ar.exp(-sq / two_sigma2)


def _augmented(X, y, rho, ar: Arithmetic):
    """Validate (X, y, rho); return the data, augmented x_i -> [x_i, rho] when rho is given."""
    X, y = check_data(X, y, nonzero=False)
    if rho is not None:
        check_real("rho", rho, low=0, hint="the augmentation (bias) coordinate, e.g. rho=1.0; or rho=None")
        X = augment(X, rho)  # [PT11 Sec. 2] x_i -> [x_i, rho]
    return X, y


def _kernel_diagonal(X: np.ndarray, kernel: Kernel, ar: Arithmetic, **params) -> np.ndarray:
    """K(x_i, x_i) for every i, in O(n d) (one 1 x 1 kernel matrix per point)."""
    return np.array([kernel_matrix(X[i : i + 1], X[i : i + 1], kernel, ar, **params)[0, 0] for i in range(X.shape[0])])


@one_thread
def signed_gram(
    X, y, kernel: Kernel = "linear", precision: Optional[int] = None, *, rho: Optional[float] = None, **params
) -> np.ndarray:
    """The unnormalized signed Gram matrix  (Y K Y)_ij = y_i y_j K(x_i, x_j).

    For the linear kernel this is Z Z^T with Z the reflected points; its max margin
    (:func:`reference.margin`) is rho of RP14 Sec. 2, or gamma_d of PT11 eq. (1) on augmented
    (or extended) data.  ``rho``: augment first, x_i -> [x_i, rho] (a bias; PT11 Sec. 2).
    """
    ar = arithmetic(precision)
    X, y = _augmented(X, y, rho, ar)
    with ar.context():
        Kmat = kernel_matrix(X, X, kernel, ar, **params)
        s = ar.array(y.astype(np.float64))
        return _check_finite(Kmat * np.outer(s, s), X, "signed_gram")


@one_thread
def gram(
    X, y, kernel: Kernel = "linear", precision: Optional[int] = None, *, rho: Optional[float] = None, **params
) -> np.ndarray:
    """The normalized signed Gram matrix G of RP14 Sec. 3.

    G_ij := y_i y_j K(x_i, x_j) / sqrt(K(x_i, x_i) K(x_j, x_j))   (G_ii = 1).

    Parameters
    ----------
    X : array_like, shape (n, d)
    y : array_like of +-1, shape (n,)
    kernel : {"linear", "polynomial", "gaussian"} or callable K(A, B)
    precision : int, optional
        Build G in mpmath at this many digits (entries ``mpmath.mpf``).
    rho : float, optional
        Augment first, x_i -> [x_i, rho] (a bias, as PT11 Sec. 2 does): zero points become
        nonzero.  ``None`` (default): no augmentation.
    **params
        Kernel parameters (``degree``, ``c``, ``sigma``).

    Raises
    ------
    ValueError
        Bad data, unknown kernel or parameter, or K(x_i, x_i) <= 0 (e.g. a zero point for the
        linear kernel), which makes G undefined -- detected before the n x n matrix is built.
    """
    ar = arithmetic(precision)
    X, y = _augmented(X, y, rho, ar)
    if kernel == "linear" and not ar.is_mp:
        # G is invariant under x_i -> c_i x_i (c_i > 0): scale every row by a power of two
        # (exact, bit-identical G) so that ||x_i||^2 can neither overflow nor underflow.
        X = scale_rows_pow2(X)
    with ar.context():
        if kernel == "linear":
            _reject_zero_rows(np.flatnonzero(~np.any(np.asarray(X) != 0, axis=1)))
        diag0 = _kernel_diagonal(X, kernel, ar, **params)
        bad = [i for i, v in enumerate(diag0) if not v > 0]
        if bad:
            what = "zero points" if kernel == "linear" else f"points with K(x, x) <= 0 under kernel {kernel!r}"
            raise ValueError(
                f"K(x_i, x_i) <= 0 for {len(bad)} point(s) (first: i = {bad[:5]}), {what}: G divides by "
                "sqrt(K(x_i, x_i)); add a bias by augmentation (rho=1.0) or drop those points"
            )
        Kmat = _check_finite(kernel_matrix(X, X, kernel, ar, **params), X, "the kernel matrix")
        diag = np.array([Kmat[i, i] for i in range(Kmat.shape[0])], dtype=Kmat.dtype)
        if not all(v > 0 for v in diag):  # a callable kernel whose full matrix disagrees with its 1 x 1 calls
            raise ValueError("K(x_i, x_i) <= 0 on the diagonal of the kernel matrix; check the kernel callable")
        s = ar.array(y.astype(np.float64)) / ar.sqrt(diag)  # y_i / sqrt(K_ii)
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused by _check_finite below
            G = Kmat * np.outer(s, s)
        for i in range(G.shape[0]):  # exactly 1 by definition; removes round-off
            G[i, i] = ar.scalar(1)
        return _check_finite(G, X, "gram")


def _check_finite(M: np.ndarray, X: np.ndarray, what: str) -> np.ndarray:
    """``M`` if every entry is finite, else a ValueError naming X (float64 overflowed)."""
    finite = np.all(np.isfinite(M)) if M.dtype != object else all(mpmath.isfinite(v) for v in M.ravel())
    if not finite:
        top = float(np.max(np.abs(np.asarray(X, dtype=np.float64))))
        raise ValueError(
            f"{what} overflowed float64 (non-finite entries; the largest |X_ij| is {top:.3g}): "
            "rescale X (e.g. X / np.abs(X).max()), change the kernel parameters, or pass precision=50"
        )
    return M
