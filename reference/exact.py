"""Exact re-checks of every claim, in rational arithmetic.

A float64 (or mpmath) number *is* a rational number: m 2^e.  So the matrix G or the data X a
function was given, and the vector it returned, are exact rationals, and every claim of
:mod:`reference` is a statement about them that can be decided without round-off:

* ``"separator"`` of a Gram algorithm: (G alpha)_i > 0 for every i;
* ``"separator"`` of a primal algorithm: y_i <w, x_i> > 0 for every i (PT11: a . y_k > 0 for the
  augmented / extended patterns y_k, built from X, y, rho, Delta exactly);
* ``"certificate"``: p >= 0, |1^T p - 1| <= 17 n eps (16 n eps on the computed sum, plus the
  sum's own round-off), and p^T G p < accuracy^2 (``<=`` for NVN);
* a :class:`~reference.Margin`: ``lower <= min_i (K alpha)_i / ||alpha||_K`` for its
  witness alpha (so lower <= m(K)), and ``upper >= ||p||_K / 1^T p`` for its witness p
  (so m(K) <= upper, RP14 Lemma 3) when that is the bound it states.

:func:`verify_exact` and :func:`verify_margin_exact` return ``''`` when the claim holds exactly
and the reason otherwise, like the floating-point verifiers of :mod:`reference.result` (which
bound their round-off, so the two agree on every claim they let through).  The arithmetic is
Python's integers: every entry is scaled to an integer by one common power of two, so a
matrix-vector product costs n^2 integer multiplications.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, List, Optional, Protocol, Sequence, Tuple

import mpmath
import numpy as np
import scipy.sparse as sp

from .arithmetic import MACHINE_EPS, SMALLEST_NORMAL
from .data import check_data, check_real, check_sparse_data
from .status import CERTIFICATE, SEPARATOR


class Claim(Protocol):
    """What :func:`verify_exact` reads of a :class:`reference.Result` (reference.result imports
    this module, its exact fallback, so it names the fields, not the class)."""

    algorithm: str
    status: str
    alpha: Any
    p: Any
    w: Any
    precision: str
    info: dict

__all__ = [
    "rational",
    "exact_matvec",
    "exact_rank",
    "ratio_at_least",
    "margin_witness_value",
    "exact_quadratic_form",
    "exact_factored_matvec",
    "exact_factored_quadratic_form",
    "verify_exact",
    "verify_margin_exact",
]

#: Algorithms whose claims are about the normalized signed Gram matrix G (the first argument).
GRAM_ALGORITHMS = ("nkp", "snkp", "nvn", "snkpvn", "isnkpvn")
#: Algorithms whose separators are about the data X, y.
PRIMAL_ALGORITHMS = ("perceptron", "normalized_perceptron", "pfm", "pdm", "pdm_succ")


def rational(v) -> Fraction:
    """The exact rational value of a float, numpy scalar, int, ``Fraction`` or ``mpmath.mpf``.

    Raises
    ------
    ValueError
        For NaN or infinity (not a rational), or a non-numeric value.
    """
    if isinstance(v, mpmath.mpf):
        if not mpmath.isfinite(v):
            raise ValueError(f"{v} is not a finite number")
        man, exp = v.man_exp  # |v| = man 2^exp (man is unsigned)
        mag = Fraction(int(man)) * (Fraction(2) ** int(exp)) if man else Fraction(0)
        return -mag if v < 0 else mag
    if isinstance(v, Fraction):
        return v  # as it is (float(v) would round 1/3, or -1 + 10^-40 to -1)
    if isinstance(v, (bool, np.bool_)):
        return Fraction(int(v))
    if isinstance(v, (int, np.integer)):
        return Fraction(int(v))
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise ValueError(f"{v!r} is not a number; pass a float, an int or an mpmath.mpf") from None
    if f != f or f in (float("inf"), float("-inf")):
        raise ValueError(f"{v!r} is not a finite number")
    return Fraction(f)


class _NotDyadic(ValueError):
    """A value that is not m 2^e (a Fraction such as 1/3)."""


def _dyadic(values: Sequence) -> Tuple[List[int], int]:
    """Integers m_i and one exponent E with values_i = m_i 2^E exactly (all values dyadic)."""
    fr = [rational(v) for v in values]
    E = 0
    for f in fr:
        d = f.denominator
        if d & (d - 1):
            raise _NotDyadic(f"{f} is not a dyadic rational")
        E = min(E, -(d.bit_length() - 1))
    return [f.numerator << ((-E) - (f.denominator.bit_length() - 1)) for f in fr], E


def exact_matvec(A, x) -> List[Fraction]:
    """(A x)_i exactly, for a 2-D array A and a vector x of floats / mpf / ints."""
    A = np.asarray(A, dtype=object) if not isinstance(A, np.ndarray) else A
    rows, cols = A.shape
    if len(np.ravel(x)) != cols:
        raise ValueError(f"the vector has length {len(np.ravel(x))}, the matrix {cols} columns")
    try:
        a_int, ea = _dyadic(list(A.ravel()))
        x_int, ex = _dyadic(list(np.ravel(x)))
    except _NotDyadic:  # a Fraction such as 1/3: plain rational arithmetic
        xr = [rational(v) for v in np.ravel(x)]
        return [_dot([rational(v) for v in A[i]], xr) for i in range(rows)]
    scale = Fraction(2) ** (ea + ex)
    out = []
    for i in range(rows):
        row = a_int[i * cols : (i + 1) * cols]
        out.append(sum(r * v for r, v in zip(row, x_int)) * scale)
    return out


#: A prime below 2^31: products of two residues fit in int64.
_PRIME = 2_147_483_647


def _rank_mod_p(M: List[List[int]]) -> int:
    """The rank of the integer matrix M modulo :data:`_PRIME` (a lower bound on its rank over Q)."""
    A = np.array([[v % _PRIME for v in row] for row in M], dtype=np.int64)
    rows, cols = A.shape
    rank = 0
    for c in range(cols):
        nz = np.flatnonzero(A[rank:, c]) if rank < rows else []
        if len(nz) == 0:
            continue
        piv = rank + int(nz[0])
        A[[rank, piv]] = A[[piv, rank]]
        inv = pow(int(A[rank, c]), _PRIME - 2, _PRIME)
        A[rank] = (A[rank] * inv) % _PRIME
        f = A[rank + 1 :, c].copy()
        A[rank + 1 :] = (A[rank + 1 :] - np.outer(f, A[rank]) % _PRIME) % _PRIME
        rank += 1
        if rank == rows:
            break
    return rank


def exact_rank(A, at_most: Optional[int] = None) -> int:
    """The rank of A over the rationals (fraction-free Gaussian elimination on integers).

    With ``at_most=r``: a cheap rank modulo a prime (a lower bound on the rank over Q) that
    already exceeds r is returned at once -- enough to tell that the rank is not r.
    """
    A = np.asarray(A, dtype=object) if not isinstance(A, np.ndarray) else A
    rows, cols = A.shape
    ints, _ = _dyadic(list(A.ravel()))
    M = [ints[i * cols : (i + 1) * cols] for i in range(rows)]
    if at_most is not None:
        low = _rank_mod_p(M)
        if low > at_most:
            return low
    return _bareiss(M, cols)[0]


def _bareiss(M: List[List[int]], cols: int) -> Tuple[int, int, int]:
    """Fraction-free Gaussian elimination of the integer rows M in place (Bareiss: every division
    is exact); returns (rank, sign of the row permutation, last pivot).  For a square M of full
    rank the last pivot times the sign is det M."""
    rows = len(M)
    rank, sign, prev = 0, 1, 1
    for c in range(cols):
        piv = next((i for i in range(rank, rows) if M[i][c] != 0), None)
        if piv is None:
            continue
        if piv != rank:
            M[rank], M[piv], sign = M[piv], M[rank], -sign
        for i in range(rank + 1, rows):
            M[i] = [(M[rank][c] * M[i][j] - M[i][c] * M[rank][j]) // prev for j in range(cols)]
        prev = M[rank][c]
        rank += 1
        if rank == rows:
            break
    return rank, sign, prev


def exact_det(A) -> Fraction:
    """The determinant of a square matrix of floats / ints / mpf over the rationals (Bareiss
    fraction-free elimination on the integers of its dyadic entries: every division is exact)."""
    A = np.asarray(A, dtype=object) if not isinstance(A, np.ndarray) else A
    if A.ndim != 2 or A.shape[0] != A.shape[1] or A.shape[0] == 0:
        raise ValueError(f"A must be a non-empty square matrix, got shape {A.shape}")
    n = A.shape[0]
    ints, E = _dyadic(list(A.ravel()))
    rank, sign, last = _bareiss([ints[i * n : (i + 1) * n] for i in range(n)], n)
    return Fraction(0) if rank < n else sign * Fraction(last) * Fraction(2) ** (E * n)

def _dot(x: Sequence[Fraction], y: Sequence[Fraction]) -> Fraction:
    return sum((a * b for a, b in zip(x, y)), Fraction(0))


def exact_quadratic_form(G, p) -> Fraction:
    """p^T G p exactly."""
    return _dot([rational(v) for v in np.ravel(p)], exact_matvec(G, p))


def _factored_transpose(Z, x) -> List[Fraction]:
    """(Z^T x)_j exactly, for a scipy sparse (or dense float64) n x d matrix Z and a vector x:
    O(nnz) integer products (every float is m 2^e: one common power of two makes them integers)."""
    Z = sp.csr_matrix(Z)
    n, d = Z.shape
    xs = list(np.ravel(x))
    if len(xs) != n:
        raise ValueError(f"the vector has length {len(xs)}, the operator {n} rows")
    try:
        z_int, ez = _dyadic(list(Z.data)) if Z.nnz else ([], 0)
        x_int, ex = _dyadic(xs)
    except _NotDyadic:  # a Fraction such as 1/3: plain rational arithmetic
        z_int, ez, x_int, ex = [rational(v) for v in Z.data], 0, [rational(v) for v in xs], 0
    acc = [0] * d
    indptr, indices = Z.indptr, Z.indices
    for i in range(n):
        xi = x_int[i]
        if xi:
            for k in range(int(indptr[i]), int(indptr[i + 1])):
                acc[int(indices[k])] += z_int[k] * xi
    scale = Fraction(2) ** (ez + ex)
    return [v * scale for v in acc]


def exact_factored_matvec(Z, alpha) -> List[Fraction]:
    """(G alpha)_i = (Z (Z^T alpha))_i exactly, for the linear kernel's G = Z Z^T held as Z."""
    w = _factored_transpose(Z, alpha)
    Z = sp.csr_matrix(Z)
    out = []
    for i in range(Z.shape[0]):
        lo, hi = int(Z.indptr[i]), int(Z.indptr[i + 1])
        out.append(sum((rational(Z.data[k]) * w[int(Z.indices[k])] for k in range(lo, hi)), Fraction(0)))
    return out


def exact_factored_quadratic_form(Z, p) -> Fraction:
    """p^T G p = ||Z^T p||_2^2 exactly, for G = Z Z^T held as Z."""
    return sum((v * v for v in _factored_transpose(Z, p)), Fraction(0))


def _eps(precision: str) -> Fraction:
    """Machine epsilon of the arithmetic a Result states it holds in."""
    if precision.startswith("mpmath"):
        return Fraction(1, 10 ** int(precision.split(",")[1].split()[0]))
    return Fraction(MACHINE_EPS)  # 2^-52, exactly


def _approx(v: Fraction) -> str:
    """``v`` to 4 digits for a message, also where float64 cannot show it: ``float(v)`` raises
    beyond ~1.8e308 and turns a nonzero value below its subnormals into 0."""
    try:
        f = float(v)
    except OverflowError:
        f = math.inf
    if math.isfinite(f) and (f != 0 or v == 0):
        return f"{f:.3e}"
    with mpmath.workdps(30):
        return mpmath.nstr(mpmath.mpf(v.numerator) / v.denominator, 4, min_fixed=1, max_fixed=0)


def _positive(values: Sequence[Fraction], what: str) -> str:
    for i, v in enumerate(values):
        if not v > 0:
            return f"{what}_{i} = {_approx(v)} is not > 0 in exact arithmetic"
    return ""


def _operator_rows(G):
    """Z of a Gram operator G = Z Z^T (:class:`reference.fast.operator.LinearGram`, read by its
    ``Z`` attribute), else None (G is a matrix)."""
    Z = getattr(G, "Z", None)
    if Z is None or not sp.issparse(Z):
        return None
    return sp.csr_matrix(Z)


def _check_certificate(G, p, accuracy, strict: bool, precision: str, factored: bool = False) -> str:
    p_r = [rational(v) for v in np.ravel(p)]
    n = len(p_r)
    if any(v < 0 for v in p_r):
        return "p has a negative entry"
    if abs(sum(p_r) - 1) > 17 * max(n, 1) * _eps(precision):
        return f"sum(p) = {float(sum(p_r))!r} is not 1 within 17 n eps"
    Q = exact_factored_quadratic_form(G, p) if factored else exact_quadratic_form(G, p)
    acc2 = rational(accuracy) ** 2
    if not (Q < acc2 if strict else Q <= acc2):
        return f"p^T G p = {float(Q):.6e} is not {'<' if strict else '<='} accuracy^2 = {float(acc2):.6e} in exact arithmetic"
    return ""


def _pattern_margins_exact(X, y, rho, Delta, w: List[Fraction]) -> List[Fraction]:
    """a . y_k exactly for PT11's patterns y_k = l_k [x_k, rho, Delta e_k] (``rho`` / ``Delta``
    None when absent), never forming them: O(nnz) for a scipy sparse X (canonical CSR: the exact
    matrix it means), O(n d) for an array X (whose entries, a Python int beyond 2^53 included,
    are taken exactly as given)."""
    m = len(y)
    col = X.shape[1]
    r_w = None
    if rho is not None:
        r_w, col = rational(rho) * w[col], col + 1
    D = rational(Delta) if Delta is not None else None
    if sp.issparse(X):
        C = X
        rows = [
            [(int(C.indices[t]), C.data[t]) for t in range(int(C.indptr[k]), int(C.indptr[k + 1]))] for k in range(m)
        ]
    else:
        A = np.asarray(X, dtype=object)
        rows = [[(j, v) for j, v in enumerate(A[k]) if v != 0] for k in range(m)]
    out = []
    for k in range(m):
        s = sum((rational(v) * w[j] for j, v in rows[k]), Fraction(0))
        if r_w is not None:
            s += r_w
        if D is not None:
            s += D * w[col + k]
        out.append(int(y[k]) * s)
    return out


def verify_exact(result: Claim, data, y=None, *, accuracy=None, rho=None) -> str:
    """Re-check the claim of ``result`` in exact rational arithmetic; ``''`` if it holds.

    Parameters
    ----------
    result : Result
        What an algorithm of :mod:`reference` returned.
    data : array_like, scipy.sparse matrix or LinearGram
        The matrix or data the algorithm was given: G for ``nkp``, ``snkp``, ``nvn``,
        ``snkpvn``, ``isnkpvn`` (a matrix, or the linear kernel's operator
        :func:`reference.fast.operator.linear_gram`, whose claim is about G = Z Z^T for its Z as
        stored); X for the primal algorithms (dense or scipy sparse; then pass ``y`` too).
    y : array_like, optional
        The labels (primal algorithms only).
    accuracy : float, optional
        The accuracy of a certificate (epsilon, or delta of SNKPVN); default: the one the
        result records in ``info``.
    rho : float, optional
        The bias the Perceptron or the Normalized Perceptron ran with (their ``rho=``; ``w[-1]``
        multiplies it): the claim is y_i <w, [x_i, rho]> > 0.  PT11 results record their rho
        and Delta in ``info``.

    Returns
    -------
    str
        ``''`` if the claim holds exactly (or the result claims nothing: ``"max_iter"``), else why.

    Raises
    ------
    ValueError
        Unknown algorithm, missing ``y`` for a primal algorithm, a certificate without a
        known accuracy, ``rho`` for another algorithm than the two Perceptrons, ``rho`` not a
        finite real > 0 (what the Perceptrons accept), bad data or labels (as the algorithms
        check them: :func:`reference.data.check_data`), or a ``w`` whose length is not the
        patterns' (a Perceptron's bias coordinate without ``rho``, or ``rho`` for a run without).
    """
    name = result.algorithm
    perceptrons = ("perceptron", "normalized_perceptron")
    if rho is not None:
        if name not in perceptrons:
            raise ValueError(f"rho is the bias of the Perceptrons' runs; a {name} result records what it ran on: drop rho=")
        check_real("rho", rho, low=0, hint="pass the rho= the run was given, or rho=None for a run without bias")
    if result.status not in (SEPARATOR, CERTIFICATE):
        return ""
    if name in GRAM_ALGORITHMS:
        Z = _operator_rows(data)
        if result.status == SEPARATOR:
            values = exact_matvec(data, result.alpha) if Z is None else exact_factored_matvec(Z, result.alpha)
            return _positive(values, "(G alpha)")
        if accuracy is None:
            accuracy = result.info.get("delta" if name == "snkpvn" else "epsilon")
        if accuracy is None:
            raise ValueError(f"pass accuracy=: the {name} result does not record its accuracy")
        return _check_certificate(data if Z is None else Z, result.p, accuracy, strict=name != "nvn",
                                  precision=result.precision, factored=Z is not None)
    if name in PRIMAL_ALGORITHMS:
        if y is None:
            raise ValueError(f"{name} claims a separator of data: pass y, the labels")
        if sp.issparse(data):  # the validators the algorithms read X, y with; X stays sparse
            data, y = check_sparse_data(data, y, nonzero=False)
        else:
            _, y = check_data(data, y, nonzero=False)
            data = np.asarray(data, dtype=object)  # as given: a Python int beyond 2^53 stays exact
        if name in ("pfm", "pdm", "pdm_succ"):
            rho_run, Delta = result.info.get("rho"), result.info.get("Delta")
        else:
            rho_run, Delta = rho, None
        w = [rational(v) for v in np.ravel(result.w)]
        d = data.shape[1] + (rho_run is not None) + (len(y) if Delta is not None else 0)
        if len(w) != d:  # never a dot product of unequal lengths (zip would cut w)
            if name in perceptrons and rho is None and len(w) == d + 1:
                fix = "pass rho=, the bias it ran with (w[-1] multiplies it)"
            elif name in perceptrons and rho is not None and len(w) == d - 1:
                fix = "drop rho=: w has no bias coordinate, the run had none"
            else:
                fix = "pass the data it ran on"
            raise ValueError(f"w has {len(w)} coordinates, the patterns of the data {d}: {fix}")
        return _positive(_pattern_margins_exact(data, y, rho_run, Delta, w), "y_i <w, x_i>")
    raise ValueError(f"unknown algorithm {name!r}; expected one of {GRAM_ALGORITHMS + PRIMAL_ALGORITHMS}")


def ratio_at_least(N: Fraction, Q: Fraction, bound: Fraction) -> bool:
    """N / sqrt(Q) >= bound, decided exactly (Q > 0)."""
    if bound <= 0 <= N:
        return True
    if N < 0 <= bound:
        return False
    if N >= 0:  # both >= 0
        return N * N >= bound * bound * Q
    return N * N <= bound * bound * Q  # both < 0: |N|/sqrt(Q) <= |bound|


def margin_witness_value(K, alpha) -> Optional[Tuple[Fraction, Fraction]]:
    """``(min_i (K alpha)_i, alpha^T K alpha)`` exactly (m(K) >= N/sqrt(Q) when Q > 0)."""
    Ka = exact_matvec(K, alpha)
    return min(Ka), _dot([rational(v) for v in np.ravel(alpha)], Ka)


def _quotient(N: Fraction, Q: Fraction, power: int) -> float:
    """N / sqrt(Q) (``power=1``) or sqrt(Q) / N (``power=-1``) as a float, for a message: in float64
    where N and Q are normal floats, else through mpmath at 30 digits, which gives the float nearest
    to the exact value where that is a normal float (unless it lies within ~1e-30 relative of a tie
    between two floats; a subnormal value is rounded twice, to 53 bits, then to its grid): float(Q)
    underflows to 0 for a tiny K (the division failed), float(N) rounded on the subnormal grid loses
    bits, and float() raises beyond float64."""
    try:
        n, q = float(N), float(Q)
    except OverflowError:  # beyond float64: mpmath below
        n = q = math.inf
    if SMALLEST_NORMAL <= abs(n) < math.inf and SMALLEST_NORMAL <= q < math.inf:
        return n / q**0.5 if power == 1 else q**0.5 / n
    with mpmath.workdps(30):
        r = (mpmath.mpf(N.numerator) / N.denominator) / mpmath.sqrt(mpmath.mpf(Q.numerator) / Q.denominator)
        return float(r if power == 1 else 1 / r)


def verify_margin_exact(m, K) -> str:
    """Re-check a :class:`~reference.Margin` of ``K`` in exact rational arithmetic.

    Checks what its witnesses prove: ``lower <= min(K alpha)/||alpha||_K`` (so lower <= m(K)),
    and, when ``upper >= 0``, ``||p||_K / 1^T p <= upper`` (so m(K) <= upper for PSD K, RP14
    Lemma 3).  A negative ``upper`` (the infeasible case, -delta_max of the hull) has no finite
    witness; it is refuted when the min-norm point p, the uniform vector or the witness alpha
    shows m(K) > upper exactly.  ``feasible=True`` must come with ``lower > 0``.

    Returns
    -------
    str
        ``''`` if nothing is refuted, else why.

    Raises
    ------
    ValueError
        ``K`` not a square matrix (the Gram matrix the margin was computed from).
    """
    if len(np.shape(K)) != 2 or np.shape(K)[0] != np.shape(K)[1]:
        raise ValueError(f"K must be the square Gram matrix the margin was computed from, got shape {np.shape(K)}")
    lower, upper = rational(m.lower) if np.isfinite(float(m.lower)) else None, rational(m.upper)
    if m.feasible is True and not (lower is not None and lower > 0):
        return f"feasible=True but lower = {float(m.lower):.3e} is not > 0"
    if lower is not None:
        if m.alpha is None:
            return "a finite lower bound without a witness alpha"
        N, Q = margin_witness_value(K, m.alpha)
        if not Q > 0:
            return "the witness alpha has ||alpha||_K = 0 in exact arithmetic"
        if not ratio_at_least(N, Q, lower):
            return f"lower = {float(m.lower)!r} exceeds min(K alpha)/||alpha||_K = {_quotient(N, Q, 1)!r} in exact arithmetic"
    if upper >= 0:
        p = [rational(v) for v in np.ravel(m.p)]
        Q = _dot(p, exact_matvec(K, m.p))
        s = sum(p)
        if not Q <= upper * upper * s * s:
            return f"upper = {float(m.upper)!r} is below ||p||_K / 1^T p = {_quotient(s, Q, -1)!r} in exact arithmetic"
        return ""
    n = np.asarray(K).shape[0]
    for name, cand in (("p", m.p), ("uniform", np.full(n, 1.0 / n)), ("alpha", m.alpha)):
        if cand is None:
            continue
        N, Q = margin_witness_value(K, cand)
        if Q > 0 and not ratio_at_least(-N, Q, -upper):  # N/sqrt(Q) > upper
            return (
                f"upper = {float(m.upper)!r} < 0, yet alpha = {name} gives min(K alpha)/||alpha||_K = "
                f"{_quotient(N, Q, 1)!r} > upper in exact arithmetic"
            )
    return ""
