"""Input validation (the one validator) and the data transformations of PT11 Sec. 2 / Sec. 5:
augmentation, reflection, and the extended space.  (The readers of LIBSVM and ``.npz`` files are
in :mod:`reference.readers`.)

Convention: ``X`` is an ``(n, d)`` array whose *rows* are the points x_i (the papers write the
``d x n`` matrix with the points as columns); ``y`` is a length-``n`` vector of +1/-1 labels.

Every public function of :mod:`reference` validates its arguments here, up front, and raises a
``ValueError`` that names the argument and the fix.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Tuple

import mpmath
import numpy as np
import scipy.sparse as sp

__all__ = [
    "check_data",
    "check_csr",
    "check_sparse_data",
    "check_gram",
    "check_simplex",
    "drop_zero_rows",
    "check_real",
    "check_int",
    "check_bool",
    "augment",
    "reflect",
    "extend",
]


_NOT_REAL = {"b": "booleans", "c": "complex numbers", "U": "strings", "T": "strings", "S": "bytes", "M": "dates", "m": "time spans"}


#: Largest n * d that check_data densifies (8 GB of float64).
MAX_DENSE_ENTRIES = 10**9
#: Default cap on the text of one LIBSVM file, in bytes (after inflating a ``.gz``): 1 GiB,
#: about 300 times a9a or w8a (2.3 MB and 3.5 MB of text).  ``load_libsvm(..., max_bytes=)``
#: (:mod:`reference.readers`) and ``margins --max-bytes``.
MAX_LIBSVM_BYTES = 2**30


def _as_float_matrix(name: str, A) -> np.ndarray:
    """Convert to a float64 array (mpf object arrays are rounded) or raise a ValueError.

    Only real numbers are accepted: booleans, strings and complex numbers are refused rather
    than converted (``True`` would become 1.0, ``'1'`` 1.0, and 1+2j would lose its imaginary part).
    """
    if isinstance(A, np.ndarray) and A.dtype == object:
        for v in A.ravel():
            if isinstance(v, (bool, np.bool_, str, bytes, complex, np.complexfloating)) or not isinstance(
                v, (numbers.Real, mpmath.mpf)
            ):
                raise ValueError(f"{name} must hold real numbers, found {v!r} ({type(v).__name__}); convert it first")
        return np.array([float(v) for v in A.ravel()], dtype=np.float64).reshape(A.shape)
    try:
        raw = np.asarray(A)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array; could not convert it ({exc})") from None
    if raw.dtype.kind in _NOT_REAL:
        raise ValueError(
            f"{name} must be a numeric array of real numbers, got {_NOT_REAL[raw.dtype.kind]} (dtype {raw.dtype}); "
            + ("map the labels to +1/-1 integers" if name == "y" else "pass a real (float) array")
        )
    if raw.dtype == object:
        return _as_float_matrix(name, raw)
    try:
        return np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array; could not convert it ({exc})") from None


def check_data(X, y, *, nonzero: bool = True) -> Tuple[np.ndarray, np.ndarray]:
    """Validate a labelled data set; return ``(X, y)`` as arrays (X keeps mpf entries).

    Parameters
    ----------
    X : array_like, shape (n, d)
        The points, one per row.  Must be finite and non-empty.
    y : array_like, shape (n,)
        Labels, each +1 or -1.
    nonzero : bool
        Reject zero rows (normalization divides by ||x_i|| or K(x_i, x_i)).

    Raises
    ------
    ValueError
        Empty X, X not 2-D, NaN/inf, len(y) != n, labels other than +-1, zero rows.

    Notes
    -----
    A scipy.sparse ``X`` is validated by :func:`check_csr` and then densified (the dense
    algorithms need the array anyway): the same checks, errors and results as the dense input.
    Code that keeps the data sparse uses :func:`check_sparse_data`.
    """
    if sp.issparse(X):
        if X.shape[0] * X.shape[1] > MAX_DENSE_ENTRIES:
            raise ValueError(
                f"X is sparse of shape {X.shape}: a dense copy ({X.shape[0] * X.shape[1]:.3g} entries) is too large; "
                "pass n_features= no larger than the data need, or use pfm / pdm / pdm_succ, which keep X sparse"
            )
        X = check_csr(X).toarray()
    if not (isinstance(X, np.ndarray) and X.dtype == object):
        try:
            raw = np.asarray(X)
        except (TypeError, ValueError):
            raw = None  # _as_float_matrix names the problem
        if raw is not None and raw.dtype.kind in "iu":  # rounded in every arithmetic: refuse a rounding
            _check_integers_exact("X", raw)
    Xf = _as_float_matrix("X", X)
    if Xf.ndim != 2:
        raise ValueError(
            f"X must be a 2-D array of shape (n_points, n_features), got ndim={Xf.ndim}; "
            "reshape a single feature with X.reshape(-1, 1)"
        )
    if Xf.shape[0] == 0 or Xf.shape[1] == 0:
        raise ValueError(f"X is empty (shape {Xf.shape}); pass at least one point with one feature")
    if not np.all(np.isfinite(Xf)):
        raise ValueError("X contains NaN or inf; remove or impute those entries")
    yf = _as_float_matrix("y", y)
    if yf.ndim != 1:
        raise ValueError(f"y must be a 1-D array of labels, got shape {yf.shape}; use y.ravel()")
    if yf.shape[0] != Xf.shape[0]:
        raise ValueError(
            f"X has {Xf.shape[0]} rows but y has {yf.shape[0]} labels; pass one label per row of X"
        )
    if not np.all(np.isfinite(yf)) or not np.all(np.isin(yf, (-1.0, 1.0))):
        bad = sorted(set(yf[~np.isin(yf, (-1.0, 1.0))].tolist()))[:5]
        raise ValueError(f"y must contain only +1 and -1, found {bad}; map your classes to +1/-1")
    if nonzero:
        _reject_zero_rows(np.flatnonzero(~np.any(Xf != 0, axis=1)))
    Xo = X if isinstance(X, np.ndarray) and X.dtype == object else Xf
    return Xo, yf.astype(np.int64)


def check_csr(X, name: str = "X") -> sp.csr_matrix:
    """Validate a scipy.sparse matrix of points; return it in canonical CSR form.

    Canonical: float64 ``data``, int64 ``indices`` / ``indptr``, column indices sorted within
    each row, no duplicates (summed, as ``toarray`` does), no explicit zeros -- exactly the CSR
    that ``scipy.sparse.csr_matrix(X.toarray())`` gives, so dense and sparse inputs of the
    same data lead to bit-identical computations.  The input is never modified.

    Raises
    ------
    ValueError
        Not 2-D, empty, complex or non-numeric entries, NaN/inf (explicitly stored), a CSR
        structure that is inconsistent (``indptr`` not of length n + 1, not starting at 0,
        decreasing, or not ending at nnz; an index negative or >= the number of columns).
    """
    if not sp.issparse(X):
        raise ValueError(f"{name} must be a scipy.sparse matrix here, got {type(X).__name__}")
    if len(X.shape) != 2:
        raise ValueError(f"{name} must be 2-D of shape (n_points, n_features), got shape {X.shape}")
    n, d = X.shape
    if n == 0 or d == 0:
        raise ValueError(f"X is empty (shape {X.shape}); pass at least one point with one feature")
    if X.dtype.kind == "c":
        raise ValueError(f"{name} must hold real numbers, got dtype {X.dtype}; pass the real part explicitly")
    if X.dtype.kind == "b":  # as check_data refuses a boolean array: True would become 1.0
        raise ValueError(f"{name} must hold real numbers, got booleans (dtype {X.dtype}); pass a real (float) matrix, e.g. X.astype(np.float64)")
    if X.dtype.kind not in "iuf":
        raise ValueError(
            f"{name} must be a numeric sparse matrix, got dtype {X.dtype}; store real numbers in it (e.g. X.astype(np.float64))"
        )
    if X.format == "csr":
        indptr, indices = np.asarray(X.indptr), np.asarray(X.indices)
        nnz = len(X.data)
        if indptr.shape != (n + 1,) or indptr[0] != 0 or np.any(np.diff(indptr) < 0) or indptr[-1] != nnz or len(indices) != nnz:
            raise ValueError(
                f"{name} is not a consistent CSR matrix (indptr must have length n + 1 = {n + 1}, start "
                "at 0, not decrease, and end at nnz = len(indices) = len(data)); rebuild it with "
                "scipy.sparse.csr_matrix((data, indices, indptr), shape=(n, d))"
            )
        if nnz and (indices.min() < 0 or indices.max() >= d):
            raise ValueError(
                f"{name} has a column index out of range [0, {d}) (found {int(indices.min())}..{int(indices.max())}); "
                "indices are 0-based and must be < the number of features"
            )
    elif X.format == "coo" and X.nnz:
        if X.row.min() < 0 or X.col.min() < 0 or X.row.max() >= n or X.col.max() >= d:
            raise ValueError(f"{name} has a row or column index out of range for shape {X.shape}")
    if X.dtype.kind in "iu":
        _check_integers_exact(name, np.asarray(X.tocoo().data))
    if X.format == "csr":
        C = sp.csr_matrix(X, dtype=np.float64, copy=True)  # keeps duplicates for the exact sums below
    else:
        # scipy's conversions of COO (and of the formats that go through it) sum duplicates in
        # the input's dtype -- rounded, or wrapped around in int64: sort the entries ourselves,
        # duplicates kept, each converted to float64 on its own (exact: checked just above)
        coo = X.tocoo(copy=True)
        row, col = np.asarray(coo.row, dtype=np.int64), np.asarray(coo.col, dtype=np.int64)
        order = np.lexsort((col, row))
        counts = np.bincount(row, minlength=n)
        indptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        C = sp.csr_matrix((np.asarray(coo.data, dtype=np.float64)[order], col[order], indptr), shape=(n, d))
    if not np.all(np.isfinite(C.data)):
        raise ValueError("X contains NaN or inf; remove or impute those entries")
    C = _sum_duplicates_exactly(C, name)  # also sorts the indices
    C.eliminate_zeros()
    C.indices = C.indices.astype(np.int64)
    C.indptr = C.indptr.astype(np.int64)
    C.data = np.ascontiguousarray(C.data)
    return C


def _float_holds(v: int) -> bool:
    try:
        return float(v) == v
    except OverflowError:
        return False


def _check_integers_exact(name: str, values: np.ndarray) -> None:
    """Refuse integers that float64 cannot hold exactly (|v| > 2^53 and not a float): every
    computation and every claim is about the float64 matrix, which must be the one passed."""
    if isinstance(values, np.ndarray):
        if values.dtype.kind not in "iu" or values.size == 0:
            return
        values = values[np.abs(values.astype(np.float64)) >= 2.0**53]  # smaller ones are exact
    if len(values):
        inexact = [int(v) for v in values if not _float_holds(int(v))]
        if inexact:
            raise ValueError(
                f"{name} holds integers that float64 cannot represent exactly (first: {inexact[0]}); the "
                "algorithms run on float64 -- round them yourself (X.astype(np.float64)) if that is what you mean"
            )


def _sum_duplicates_exactly(C: sp.csr_matrix, name: str) -> sp.csr_matrix:
    """``C`` (float64 CSR) with duplicate entries summed *exactly*, indices sorted.

    The matrix a CSR with duplicates means is the one whose entries are the exact sums
    (``toarray`` adds them in float64, in storage order, which can round: 1 + 2^-60 - 1 is 0
    there, 2^-60 exactly).  Each group of duplicates is summed in rationals and kept when float64
    holds the sum exactly; a sum that float64 cannot hold is refused, never rounded (one that
    overflows as NaN / inf).
    """
    if C.has_canonical_format:
        return C
    C.sort_indices()
    n = C.shape[0]
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(C.indptr))
    cols = C.indices.astype(np.int64)
    data = C.data
    # entries are sorted by (row, column): a group starts where (row, column) changes
    start = np.ones(len(data), dtype=bool)
    if len(data):
        start[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
    first = np.flatnonzero(start)
    sizes = np.diff(np.append(first, len(data)))
    out = data[first].copy()
    for g in np.flatnonzero(sizes > 1):
        lo, hi = int(first[g]), int(first[g] + sizes[g])
        exact = sum((Fraction(float(v)) for v in data[lo:hi]), Fraction(0))
        try:
            total = float(exact)  # correctly rounded
        except OverflowError:
            raise ValueError("X contains NaN or inf; remove or impute those entries (duplicates overflowed)") from None
        if Fraction(total) != exact:
            raise ValueError(
                f"{name} stores duplicate entries at (row {int(rows[lo])}, column {int(cols[lo])}) whose exact sum "
                "float64 cannot represent; sum the duplicates yourself (X.sum_duplicates()) if the rounded sum is what you mean"
            )
        out[g] = total
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(indptr, rows[first] + 1, 1)
    return sp.csr_matrix((out, cols[first], np.cumsum(indptr)), shape=C.shape)


def check_sparse_data(X, y, *, nonzero: bool = True) -> Tuple[sp.csr_matrix, np.ndarray]:
    """:func:`check_data` for code that keeps the data sparse; return ``(X as canonical CSR, y)``.

    Dense ``X`` gets exactly the checks of :func:`check_data` and is then converted; sparse
    ``X`` gets :func:`check_csr`; ``y`` and the zero-row test are shared, so both inputs give
    the same ``ValueError`` and the same CSR (:func:`check_csr`, Canonical).  Memory O(nnz + n).
    """
    if not sp.issparse(X):
        Xd, yv = check_data(X, y, nonzero=nonzero)
        if Xd.dtype == object:  # mpf entries: kept only if they are floats exactly
            Xf = _as_float_matrix("X", Xd)
            if any(mpmath.mpf(float(v)) != v for v in Xd.ravel()):
                raise ValueError("X holds mpf entries that are not float64 numbers; the patterns are stored in float64 -- round X first")
            Xd = Xf
        return check_csr(sp.csr_matrix(Xd)), yv
    C = check_csr(X)
    _, yv = check_data(np.ones((C.shape[0], 1)), y, nonzero=False)  # the one label validator
    if nonzero:
        _reject_zero_rows(np.flatnonzero(np.diff(C.indptr) == 0))
    return C, yv


def _reject_zero_rows(zero: np.ndarray) -> None:
    """Raise the one zero-row error (with the count), before anything n x n is built."""
    if zero.size:
        raise ValueError(
            f"X has {zero.size} zero rows (first: {zero[:5].tolist()}): a zero point cannot be "
            "normalized and is never strictly separated; add a bias by augmentation (rho=1.0), "
            "or drop them with reference.drop_zero_rows(X, y)"
        )


def _psd_tolerance(n: int, scale: float) -> float:
    """Smallest eigenvalue accepted as >= 0 up to round-off: -1e-8 n max(1, max|G|)."""
    return -PSD_RTOL * n * scale


#: Relative tolerance of the positive-semidefiniteness tests (see :func:`check_gram`).
PSD_RTOL = 1e-8
#: Absolute tolerance (times max(1, max|G|)) of the symmetry and unit-diagonal tests.
GRAM_ATOL = 1e-10
#: Rows per block of the O(n^2) pairwise test, so that it needs O(n) extra memory per row.
_PAIR_BLOCK = 512
#: Side of the tiles of the symmetry test (two 512 x 512 float64 tiles: 4 MB).
_SYM_TILE = 512


def check_gram(G, *, unit_diagonal: bool = True, name: str = "G", psd: bool = False) -> np.ndarray:
    """Validate a (normalized) signed Gram matrix; return it as an array (mpf entries kept).

    Checks, in O(n^2): 2-D, square, non-empty, finite, symmetric, diagonal equal to 1 (when
    ``unit_diagonal``), and every 2 x 2 principal submatrix positive semidefinite up to
    round-off (its smallest eigenvalue >= -1e-8 n max(1, max|G|); for unit diagonal this is
    |G_ij| <= 1 + tol, Cauchy-Schwarz).  By eigenvalue interlacing, anything this rejects is
    also rejected by the full test.  The pass reads G a few times at memory speed: the
    symmetry test by tiles, the pairwise test skipped where an O(n) bound proves that every
    pair passes it (:func:`_pairs_pass_by_bound`; the usual case of a unit diagonal).

    Parameters
    ----------
    psd : bool, default False
        Also run the full O(n^3) test: smallest eigenvalue of G >= -1e-8 n max(1, max|G|).
        Off by default: a matrix built by :func:`reference.gram` is PSD by construction, and
        the eigenvalue decomposition dominates the cost of every algorithm at n ~ 10^3-10^4.
    """
    if sp.issparse(getattr(G, "Z", None)) and callable(getattr(G, "matvec", None)):  # a LinearGram
        fix = ("pass engine='fast', or the matrix reference.gram(X, y)" if name == "G" else
               "pass the matrix reference.gram(X, y), or use reference.margin_from_data(X, y), which keeps X sparse")
        raise ValueError(f"{name} is the linear kernel's operator G = Z Z^T, which only the compiled Gram algorithms read; {fix}")
    Gf = _as_float_matrix(name, G)
    if Gf.ndim != 2 or Gf.shape[0] != Gf.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {Gf.shape}; build it with reference.gram(X, y)")
    n = Gf.shape[0]
    if n == 0:
        raise ValueError(f"{name} is empty; pass the Gram matrix of at least one point")
    g_max, g_min = float(np.max(Gf)), float(np.min(Gf))  # NaN propagates: finite iff both are
    if not (np.isfinite(g_max) and np.isfinite(g_min)):
        raise ValueError(f"{name} contains NaN or inf; check the kernel and the data")
    scale = max(1.0, g_max, -g_min)  # max(1, max|G|)
    if not _symmetric(Gf, GRAM_ATOL * scale):
        raise ValueError(f"{name} is not symmetric; a Gram matrix satisfies G == G.T")
    if unit_diagonal and not np.allclose(np.diag(Gf), 1.0, rtol=0, atol=GRAM_ATOL):
        raise ValueError(
            f"{name} must have unit diagonal (the normalized signed Gram matrix of RP14 Sec. 3); "
            "build it with reference.gram(X, y, kernel=...)"
        )
    if not psd and not np.all(np.diag(Gf) >= 0):
        i = int(np.flatnonzero(np.diag(Gf) < 0)[0])
        raise ValueError(
            f"{name} is not positive semidefinite ({name}_{i}{i} = {Gf[i, i]:.3e} < 0); "
            "use a positive-definite kernel"
        )
    if not psd:
        if not _pairs_pass_by_bound(Gf, _psd_tolerance(n, scale), max(g_max, -g_min)):  # else every pair passes: proved in O(n)
            _check_pairs(Gf, name, _psd_tolerance(n, scale))
    else:
        lam_min = float(np.linalg.eigvalsh(Gf / 2 + Gf.T / 2)[0])  # halves first: no overflow
        if lam_min < _psd_tolerance(n, scale):
            raise ValueError(
                f"{name} is not positive semidefinite (smallest eigenvalue {lam_min:.3e}); "
                "use a positive-definite kernel"
            )
    return G if isinstance(G, np.ndarray) and G.dtype == object else Gf


def _symmetric(Gf: np.ndarray, atol: float) -> bool:
    """|G_ij - G_ji| <= atol for all i, j (``np.allclose(G, G.T, rtol=0, atol=atol)`` on a finite
    G, the same comparisons), over the tiles of the upper triangle: each tile and its mirror are
    read once, in cache-sized pieces."""
    n = Gf.shape[0]
    for i0 in range(0, n, _SYM_TILE):
        rows = slice(i0, min(i0 + _SYM_TILE, n))
        for j0 in range(i0, n, _SYM_TILE):
            cols = slice(j0, min(j0 + _SYM_TILE, n))
            if not np.all(np.abs(Gf[rows, cols] - Gf[cols, rows].T) <= atol):
                return False
    return True


def _pairs_pass_by_bound(Gf: np.ndarray, tol: float, M: float) -> bool:
    """True if every 2 x 2 principal submatrix passes :func:`_check_pairs` by a bound, in O(n):
    its computed smallest eigenvalue fl(fl(a + c) - fl(hypot(fl(a - c), b))) with a = G_ii/2,
    c = G_jj/2, b = fl(G_ij/2 + G_ji/2) is >= 2 min_i(G_ii/2) - (1 + 2^-40)(D + M) - 2^-1000, where
    D = (max_i G_ii - min_i G_ii)/2 >= |a - c| and M = max|G| >= |b| (passed in; the operations are
    monotone; hypot(x, y) <= (1 + 2u) sqrt(x^2 + y^2) <= (1 + 2u)(|x| + |y|) with u = 2^-53, and
    |fl(a - c)| <= (1 + u)|a - c|).  The common case of a unit diagonal: 1 - max|G| >= tol.  False
    means only "not proved here": the full test decides."""
    diag = np.diag(Gf)
    d_lo, d_hi = float(np.min(diag)) / 2, float(np.max(diag)) / 2
    if not d_lo >= 0:
        return False
    bound = 2 * d_lo - (1 + 2.0**-40) * ((d_hi - d_lo) + M) - 2.0**-1000
    return bool(bound >= tol) and np.isfinite(bound)


def _check_pairs(Gf: np.ndarray, name: str, tol: float) -> None:
    """Smallest eigenvalue of every 2 x 2 principal submatrix [[a, b], [b, c]] >= tol, in O(n^2)."""
    n = Gf.shape[0]
    diag = np.diag(Gf)
    for start in range(0, n, _PAIR_BLOCK):
        rows = slice(start, min(start + _PAIR_BLOCK, n))
        a, c = diag[rows, None] / 2, diag[None, :] / 2  # halves first: a + c overflows for entries ~1e308
        b = Gf[rows] / 2 + Gf[:, rows].T / 2  # (the same floats as (a + c) / 2 in the normal range)
        lam = (a + c) - np.hypot(a - c, b)  # smallest eigenvalue of [[a, b], [b, c]]
        bad = np.argwhere(lam < tol)
        if bad.size:
            i, j = int(bad[0][0]) + start, int(bad[0][1])
            raise ValueError(
                f"{name} is not positive semidefinite: the 2 x 2 submatrix of rows {i}, {j} has "
                f"eigenvalue {float(lam[bad[0][0], j]):.3e} (|{name}_ij| > sqrt({name}_ii {name}_jj), "
                "Cauchy-Schwarz fails); use a positive-definite kernel"
            )


def drop_zero_rows(X, y) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Remove the all-zero rows of X (and their labels); return ``(X, y, kept)``.

    ``kept`` holds the original indices of the rows kept.  A zero point cannot be normalized
    (RP14 divides by ||x_i||) and is never strictly separated; augmentation (``rho``) is the
    other way out, and keeps every point.
    """
    if sp.issparse(X):  # stays sparse (canonical CSR: a zero row has no stored entry)
        Xv, yv = check_sparse_data(X, y, nonzero=False)
        kept = np.flatnonzero(np.diff(Xv.indptr) > 0)
    else:
        Xv, yv = check_data(X, y, nonzero=False)
        kept = np.flatnonzero(np.any(_as_float_matrix("X", Xv) != 0, axis=1))
    if kept.size == 0:
        raise ValueError("every row of X is zero; nothing is left to separate")
    return Xv[kept], yv[kept], kept


def check_simplex(q, n: int, name: str = "q") -> np.ndarray:
    """Validate a point of the simplex Delta_n (q >= 0, sum q = 1 within 1e-9)."""
    qf = _as_float_matrix(name, q)
    if qf.ndim != 1 or qf.shape[0] != n:
        raise ValueError(f"{name} must be a vector of length {n} (one entry per point), got shape {qf.shape}")
    if not np.all(np.isfinite(qf)) or np.any(qf < 0) or abs(qf.sum() - 1.0) > 1e-9:
        raise ValueError(f"{name} must lie in the simplex (entries >= 0 summing to 1); e.g. np.full(n, 1/n)")
    return q if isinstance(q, np.ndarray) and q.dtype == object else qf


def check_real(name: str, value, *, low=None, high=None, low_open=True, high_open=False, hint=""):
    """Validate a real parameter in an interval; return it unchanged.

    ``low_open`` / ``high_open`` choose strict or non-strict bounds; ``hint`` (how to fix it)
    ends every message: a non-real, a non-finite or an out-of-range value.
    """
    fix = "; " + hint if hint else ""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, mpmath.mpf)):
        raise ValueError(f"{name} must be a real number, got {value!r}{fix}")
    try:
        v = float(value)
    except OverflowError:  # an int or Fraction beyond the float64 range
        v = math.inf
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}{fix}")
    ok_low = low is None or (v > low if low_open else v >= low)
    ok_high = high is None or (v < high if high_open else v <= high)
    if not (ok_low and ok_high):
        lo = "-inf" if low is None else f"{low}"
        hi = "inf" if high is None else f"{high}"
        interval = f"{'(' if low_open or low is None else '['}{lo}, {hi}{')' if high_open or high is None else ']'}"
        raise ValueError(f"{name} must lie in {interval}, got {value!r}{fix}")
    return value


def check_bool(name: str, value) -> bool:
    """Validate a flag: ``True`` or ``False`` (numpy booleans too), not merely truthy."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_int(name: str, value, *, low: int = 0) -> int:
    """Validate an integer parameter >= low."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral,)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


# -- PT11 transformations -------------------------------------------------------------------------


def augment(X: np.ndarray, rho) -> np.ndarray:
    """x_k -> [x_k, rho]: one extra coordinate equal to rho > 0 encodes a bias  [PT11 Sec. 2].

    A scipy.sparse X gives a CSR result (O(nnz + m)).  ``rho`` not a finite real number > 0 (a
    string, a bool or None included) raises a ValueError."""
    check_real("rho", rho, low=0, hint="pass e.g. rho=1.0 (PT11 Sec. 2: rho > 0)")
    if sp.issparse(X):
        return sp.hstack([X, sp.csr_matrix(np.full((X.shape[0], 1), float(rho)))], format="csr")
    # float64 unless X holds mpf: an integer X must not truncate rho
    col = np.empty((X.shape[0], 1), dtype=object if X.dtype == object else np.float64)
    col[:, 0] = rho
    return np.hstack([X, col])


def reflect(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The reflected points y_i x_i (rows)  [RP14 Sec. 2; PT11 Sec. 2] (CSR in, CSR out).

    float64 unless X holds mpf (an integer X is converted, as by :func:`augment` and :func:`extend`)."""
    if sp.issparse(X):
        return sp.csr_matrix(X.multiply(np.asarray(y, dtype=np.float64).reshape(-1, 1)))
    if X.dtype != object:  # float64 unless X holds mpf, as on the CSR path: int8 -128 times -1 must not wrap around
        X = np.asarray(X, dtype=np.float64)
    return X * y.reshape(-1, 1)


def extend(Z: np.ndarray, y: np.ndarray, Delta) -> np.ndarray:
    """The extended space of PT11 Sec. 5 for the 2-norm soft margin.

    y_k -> [ybar_k, l_k Delta delta_{1k}, ..., l_k Delta delta_{mk}], where ``Z`` holds the
    reflected (augmented) patterns ybar_k as rows and ``y`` the labels l_k.  A scipy.sparse Z
    gives a CSR result with m more stored entries (O(nnz + m), not m^2).

    Raises
    ------
    ValueError
        ``y`` not m labels in {-1, +1}, or ``Delta`` not a finite real number > 0 (a string,
        a bool or None included: :func:`check_real`).
    """
    m = Z.shape[0]
    labels = np.asarray(y)
    if labels.shape != (m,) or not all(v == 1 or v == -1 for v in labels.tolist()):
        raise ValueError(f"y must hold the {m} labels l_k of Z's rows, each -1 or +1; got shape {labels.shape}")
    check_real("Delta", Delta, low=0, hint="pass e.g. Delta=1.0 (PT11 Sec. 5: Delta > 0)")
    if sp.issparse(Z):
        return sp.hstack([Z, sp.diags(float(Delta) * np.asarray(y, dtype=np.float64), format="csr")], format="csr")
    # float64 unless Z holds mpf: an integer Z must not truncate Delta
    E = np.zeros((m, m), dtype=object if Z.dtype == object else np.float64)
    for k in range(m):
        E[k, k] = Delta * int(y[k])
    return np.hstack([Z, E])
