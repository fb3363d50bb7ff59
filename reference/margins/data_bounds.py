"""The certified bounds on the margin of a data set, from X: the trusted code of
:func:`reference.margin_from_data`.

Linear kernel, patterns y_k of :mod:`reference.patterns` (PT11's augmented, reflected, extended
points, or RP14's normalized ones).  Whatever the searches of :mod:`.data_search` propose,
these functions evaluate it with an a-priori bound on every rounding error (Higham's
gamma_n = n u / (1 - n u), n the number of terms actually summed; the allowances and their
spare are argued term by term in the comment below), or in exact rational arithmetic:

* :func:`certified_lower`: any u gives ``gamma >= min_k u . y_k / ||u||``  (definition);
* :func:`certified_upper`: any beta >= 0, beta != 0 gives
  ``gamma <= ||sum_k beta_k y_k|| / sum_k beta_k``   [RP14 Lemma 3];
* :func:`_exact_null_combination`: a nonnegative rational c on a support S with
  sum_k c_k z_k = 0 *exactly*, which proves gamma <= 0 (Gordan's alternative, [RP14 Lemma 6]);
* :func:`_row_norm_bounds`: certified bounds on the row norms (the normalized patterns, R).

Public API (second tier): :func:`certified_lower`, :func:`certified_upper`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Optional, Tuple

import numpy as np

from ..arithmetic import UNDERFLOW, UNIT_ROUNDOFF, pow2_exponent, row_pow2_exponents, scaled_pow2_exact
from ..patterns import Patterns

__all__ = ["certified_lower", "certified_upper"]


# -- rounding: a-priori bounds (standard model of floating-point arithmetic) ---------------------------
#
# Why each allowance is there, and how much slack it leaves (the verdict on each mutant of these
# allowances is in benchmarks/mutation/).  Model [Higham, Secs. 2.2, 3.1]: fl(a op b) = (a op b)(1 + d),
# |d| <= u = 2^-53, and a product or quotient that underflows has an absolute error <= 2^-1075 instead
# (sums and differences of subnormals are exact); a sum of k products (or squares) is off by at most
# gamma_k = k u / (1 - k u) times the sum of their absolute values, in any order.  "Spare s" below: the
# computed bound lies inside the exact value by a factor 1 - s u at least, to first order in u (a stage
# with count k has second-order terms O(k^2 u^2), a relative O(k u) of its spare ~ k u: a few per cent of it
# for every count k <= 2^45).  Counts: p = nnz(y_k)
# (terms of u . y_k), q = nnz(z_k) (terms of ||z_k||^2), D = dim (terms of u . u), c = terms of a column
# (Y^T beta)_j, d0 = columns of Z, m = patterns.  Every allowance is twice Higham's bound with its count
# padded by 1 or 2, so every stage keeps about half its allowance as spare:
#
#   certified_lower                                                              spare
#     e_k = 2 gamma_{p+2} |u|.|y_k| (|u|.|y_k| itself computed: factor 1 - gamma_p),
#       needed gamma_p |u|.|y_k|; lo = N - e rounded (-1), |u|.|y_k| >= |u . y_k|     p + 3
#     num > 0: Q = u . u (-D), times 1 + 2 gamma_{D+1} (+2D+2), _up (+4), three
#       roundings (-3): D + 3 under the square root, -1 for the root                 (D + 1) / 2
#       (num <= 0: Q (1 - 2 gamma_{D+1}) and _down, the mirror image)                (D + 1) / 2
#     the quotient (-1) and _down (+4, -1); - UNDERFLOW for a quotient that underflows 2
#       (absolute terms: e's 2 (p + 2) 2^-1074 covers p products that underflow, <= 2^-1075 each,
#       with (1.5 p + 4) 2^-1074 to spare, still >= 4.9 2^-1074 after the division by nhi <=
#       sqrt(q) (scaled rows have entries < 1): r = lo / nhi needs no - UNDERFLOW of its own; the final
#       quotient by ||u|| <= sqrt(D) can leave less than the 2^-1075 it may lose: - UNDERFLOW there)
#     normalized: nhi = sqrt(sq (1 + 2 gamma_{q+2})) (1 + 4u): sq off by gamma_q
#       (-q), +2q+4, -1, root /2, -1, +4 -1 = (q + 7) / 2; lo / nhi (-1),
#       r (1 - 4u) (+4, -1); for lo <= 0 nlo and r (1 + 4u), the mirror image        (q + 11) / 2
#     total: p + (D + 11) / 2 >= 7;  normalized p + (D + q + 22) / 2 >= 12.5 (p = q there)
#   certified_upper
#     e_j = 2 gamma_{c+1} (|Z|^T beta)_j, needed gamma_c; |w| + e rounded (-1)       c + 1 on each |w_j|
#     W: d0 squares (-d0), times 1 + 2 gamma_{d0+2} (+2 d0 + 4, -1), _up (+4, -1):
#       2 (c + 1) + d0 + 6 on W; root (/2, -1), _up (+4, -1)                           c + d0 / 2 + 6
#       (Delta: E = sum of m squares of products (-(m+2): the product and its square round) times
#       1 + 2 gamma_{m+4} (+2m + 8, -1), W + E (-1): the numerator keeps min(2c + d0 + 5, m + 5) / 2 + 3; squares
#       (Delta beta_k)^2 that underflow lose <= 2^-1075 each: + 2 (m + 1) 2^-1074, as on W -- without it
#       m = 21 patterns with (Delta beta_k)^2 just below 2^-1075 and Z^T beta = 0 got a bound 0.64 times
#       the exact one)
#       (np.sum adds a contiguous vector pairwise, ~log2 m deep, but numpy promises no order: added
#       left to right, E / (1 + 2 gamma_{m+4}) falls below the exact value for m > 31 -- tested)
#     s = sum of m terms (-(m - 1)), times 1 - 2 gamma_{m+2} (+2m + 4, -1),
#       _down (+4, -1); normalized: beta_k nlo_k, nlo (q + 7)/2 low, product -1       m + 7 (+ (q + 5) / 2)
#     the quotient (-1) and _up (+4, -1)                                             2
#     total: c + m + d0 / 2 + 15 >= 17.5
#     (tiny data are first scaled up by powers of two -- one for all, or per row with its beta when
#     normalized -- so that the absolute allowances 2^-1074 stay far below u W: else they dominated
#     and the bound was ~1e8 times too large for entries ~1e-170; 2^e0 r is rounded up if subnormal)
#   _row_norm_bounds: hi (lo) lies above (below) ||2^-e_k w_k|| by (q + 7) / 2; the row scaling
#     makes ||2^-e_k w_k||^2 >= 1/4, so squares that underflow (<= 2^-1075 each) cost < q 2^-1073.
#   _R: hi, then 2^e_k hi_k (exact unless subnormal, then one step up: nextafter): spare (q + 7) / 2.
#
# A tightened allowance is harmless where the table keeps a positive total, and crosses the exact
# value only where it does not (e.g. gamma_{D-1} for gamma_{D+1} on u . u keeps p + (D + 7) / 2;
# dividing by a lower bound of ||u|| loses about 2D: killed in 40 dimensions).  The first-order worst
# case needs every rounding of a stage at its maximum in the adverse direction; where a mutant's
# total is only slightly negative in that worst case (tiny D, p, m) it is NOT KILLED, not "equivalent".
#
# Finer: normalized lo / nlo also for lo > 0 (a lower bound of ||z_k|| where the table divides by an upper
# one, as two mutants of the lo > 0 branch do) loses (3q + 17) / 2 at that stage, and the table's count goes
# negative for dense rows.  Counted for the code operation by operation, in u, adverse > 0: roundings,
# at most p (u . y_k, any order) + 1 (lo) + q/2 (sq) + 1/2 (sq (1 - g)) + 1 (root) + 1 (nlo (1 - 4u))
# + 1 (lo / nlo) + 1 (r (1 - 4u)) + D/2 (u . u, any order) + 1/2 (Q (1 + gq)) + 1/2 (_up) + 1 (root)
# + 1 (quotient) + 1 (_down) = p + (q + D) / 2 + 9.5; 1 - g and 1 + gq round by O(n^2 u^2) only (1 -+ 2 n u
# are floats, gamma_n - n u ~ n^2 u^2); allowances -2 (p + 2) (e: |u|.|y_k| >= u . y_k) + (q + 2) (g,
# lowering nlo) + 4 (nlo) - 4 (r) - (D + 1) (gq) - 2 (_up) - 4 (_down).  Total -p + 3q/2 - D/2 + 1/2,
# i.e. +1/2 for a dense row (p = q = D).  But a rounding y = fl(v) followed by fl(y (1 -+ 2^-51)) errs by
# at most 1.6 u together, not 2 u: with y = (1 + t) 2^e, fl(v) is off by <= u / (1 + t), and y (1 -+ 2^-51)
# lies 2 + 2t units of the last place from y, so its rounding costs dist(2t, Z) units = 2 dist(2t, Z) u /
# (1 + t); the sum (1 + 2 dist(2t, Z)) / (1 + t) peaks at 1.6 at t = 1/4 (crossing a binade: <= 1.5).  Four
# such pairs -- root and nlo (1 - 4u), lo / nlo and r (1 - 4u), quotient and _down (0.4 each), Q (1 + gq)
# and _up under the root (0.2) -- give -p + 3q/2 - D/2 - 0.9 <= -0.9: the mutants keep >= 0.9 u (+ (D - q)/2)
# to first order; the remainder is below (S u)^2, S = 3p + 3q/2 + 3D/2 + 31 the sum of the coefficients,
# less than that spare for q <= 10^7 and D < 10^15 (not shown beyond).  Where lo / nlo underflows the
# relative factors are lost, but they cost < 2^-1074 against the (1.5 p + 4) 2^-1074 / sqrt(q) >= 4.9 2^-1074
# the absolute part of e keeps.


def _gamma(n):
    """Higham's gamma_n = n u / (1 - n u) (elementwise for an array n)."""
    n = np.asarray(n, dtype=np.float64)
    return n * UNIT_ROUNDOFF / (1 - n * UNIT_ROUNDOFF)


def _down(x):
    """A float <= x for a float x computed with relative error <= 2u (one or two roundings)."""
    return x * (1 - 4 * UNIT_ROUNDOFF) if x > 0 else x * (1 + 4 * UNIT_ROUNDOFF)


def _up(x):
    return x * (1 + 4 * UNIT_ROUNDOFF) if x > 0 else x * (1 - 4 * UNIT_ROUNDOFF)


def _row_norm_bounds(P: Patterns, extended: bool = False) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(lo, hi, e)``: certified lo_k <= ||2^-e_k w_k|| <= hi_k for w_k = [x_k, rho] (the z_k of
    normalized patterns), or with ``extended`` w_k = [x_k, rho, Delta] (the y_k, ||y_k|| = ||w_k||).

    e_k <= 0 scales a row whose largest |entry| is below 1/2 up into [1/2, 1) (:func:`row_pow2_exponents`;
    exact: a power of two, no overflow); rows with a larger entry keep e_k = 0.  So every scaled row
    has ||2^-e_k w_k||^2 >= 1/4, and a square that underflows (absolute error <= 2^-1075) is covered
    by the relative allowance (entries ~1e-170 unscaled gave squares 0 and lo = hi = 0).
    """
    W = P.X().tocsr()
    cols = [float(P.rho)] if P.rho is not None else []
    if extended and P.Delta is not None:
        cols.append(float(P.Delta))
    top = np.maximum(abs(W).max(axis=1).toarray().ravel() if W.shape[1] else np.zeros(P.m), max(cols, default=0.0))
    e = np.minimum(row_pow2_exponents(top.reshape(-1, 1)), 0)
    data = np.ldexp(W.data, -np.repeat(e, np.diff(W.indptr)))  # exact: scaled up by 2^-e_k
    sq = np.bincount(np.repeat(np.arange(P.m), np.diff(W.indptr)), weights=data * data, minlength=P.m)  # nnz_k squares
    n = np.diff(P.indptr) + 1
    for c in cols:
        sq = sq + np.ldexp(c, -e) ** 2
        n = n + 1
    g = 2 * _gamma(n + 1)
    lo = np.sqrt(sq * (1 - g)) * (1 - 4 * UNIT_ROUNDOFF)
    hi = np.sqrt(sq * (1 + g)) * (1 + 4 * UNIT_ROUNDOFF)
    return lo, hi, e


def _col_counts(P: Patterns) -> np.ndarray:
    """Number of terms in each entry of Y^T beta (the column counts of the patterns)."""
    c = np.bincount(P.indices, minlength=P.n_features).astype(np.float64)
    if P.rho is not None:
        c = np.append(c, float(P.m))
    return c


def _check_normalize(P: Patterns, normalize: bool) -> None:
    """ValueError for ``normalize`` with an extended space: RP14's normalized points z_k / ||z_k|| have
    no Delta coordinates (the bounds divided u . y_k, Delta included, by ||z_k||: above the margin)."""
    if normalize and P.Delta is not None:
        raise ValueError(f"normalize=True (RP14's rho_2) has no extended space, but the patterns have Delta={P.Delta!r}; "
                         "make them with Delta=None, or pass normalize=False for PT11's gamma_d")


def certified_lower(P: Patterns, u: np.ndarray, *, normalize: bool = False) -> float:
    """A float ``<= min_k u . y_k / ||u||`` (``y_k / ||y_k||`` with ``normalize``), or ``-inf``.

    Every dot product a . y_k is computed with error at most gamma_{n_k + 1} |a| . |y_k|,
    n_k = nnz(y_k) [Higham, Thm 3.5]; the bound itself is evaluated with a safety factor 2.
    ``normalize`` needs patterns without Delta (ValueError otherwise, as :func:`margin_from_data`).
    """
    _check_normalize(P, normalize)
    u = np.asarray(u, dtype=np.float64)
    if u.shape != (P.dim,) or not np.all(np.isfinite(u)):
        raise ValueError(f"u must be a finite vector of length {P.dim} (the pattern space), got shape {u.shape}")
    u = scaled_pow2_exact(u)  # the bound is invariant under u -> c u, c > 0
    N = P.matvec(u)
    n = P.row_nnz() + 2
    e = 2 * _gamma(n) * P.abs_matvec(u) + 2 * n * UNDERFLOW  # underflowing products: absolute error
    lo = N - e
    if normalize:
        nlo, nhi, ex = _row_norm_bounds(P)  # bounds on ||2^-ex_k z_k||, ex_k <= 0
        lo = np.ldexp(lo, -ex)  # exact (a power of two >= 1; |lo| <= 2 |u| . |y_k| stays finite)
        r = np.where(lo > 0, lo / nhi, lo / nlo)
        r = np.where(r > 0, r * (1 - 4 * UNIT_ROUNDOFF), r * (1 + 4 * UNIT_ROUNDOFF))
    else:
        r = lo
    num = float(np.min(r))
    with np.errstate(over="ignore"):  # an overflow is handled on the next line
        Q = float(u @ u)
    if not (math.isfinite(num) and math.isfinite(Q)):  # overflow (u too large to scale exactly): no claim
        return -math.inf
    gq = 2 * float(_gamma(P.dim + 1))
    tq = 2 * (P.dim + 1) * UNDERFLOW  # squares that underflow
    # the quotient num / sqrt(.) may underflow: absolute error <= 2^-1075, hence the - UNDERFLOW (num = 0 is exact)
    if num > 0:
        return _down(num / math.sqrt(_up(Q * (1 + gq) + tq))) - UNDERFLOW
    if Q * (1 - gq) - tq > 0:
        return _down(num / math.sqrt(_down(Q * (1 - gq) - tq))) - (UNDERFLOW if num < 0 else 0.0)
    return -math.inf


def certified_upper(P: Patterns, beta: np.ndarray, *, normalize: bool = False) -> float:
    """A float ``>= ||sum_k beta_k y_k|| / sum_k beta_k``  [RP14 Lemma 3], for beta >= 0, beta != 0.

    With ``normalize`` the patterns are y_k = z_k / ||z_k||: then ``beta`` are the coefficients of
    the z_k, i.e. p_k = beta_k ||z_k||, and the bound is ||Z^T beta|| / sum_k beta_k ||z_k||
    (patterns without Delta: ValueError otherwise, as :func:`margin_from_data`).
    """
    _check_normalize(P, normalize)
    beta = np.asarray(beta, dtype=np.float64)
    if beta.shape != (P.m,) or not np.all(np.isfinite(beta)) or np.any(beta < 0) or not np.any(beta > 0):
        raise ValueError(f"beta must be a finite nonnegative nonzero vector of length {P.m}")
    beta = scaled_pow2_exact(beta)  # invariant under beta -> c beta, c > 0
    Z, Delta, e0 = P.Z(), P.Delta, 0
    if normalize:  # z_k -> 2^-ex_k z_k and beta_k -> 2^ex_k beta_k change nothing (both exact, checked)
        nlo, _, ex = _row_norm_bounds(P)  # ||z_k|| >= 2^ex_k nlo_k, ex_k <= 0
        b = np.ldexp(beta, ex)
        if np.any(ex) and np.array_equal(np.ldexp(b, -ex), beta):
            Z = Z.copy()
            Z.data = np.ldexp(Z.data, -np.repeat(ex, np.diff(Z.indptr)))  # rows whose squares underflowed
            beta, ex = scaled_pow2_exact(b), np.zeros_like(ex)
    else:  # the bound scales with the data: tiny data scaled up by one power of two (exact), result back
        e0 = min(pow2_exponent(np.append(Z.data, Delta if Delta is not None else 0.0)), 0)
        if e0 < 0:
            Z = Z.copy()
            Z.data = np.ldexp(Z.data, -e0)
            Delta = None if Delta is None else math.ldexp(Delta, -e0)
    w = Z.T @ beta
    n = _col_counts(P) + 1
    e = 2 * _gamma(n) * (abs(Z).T @ beta) + 2 * n * UNDERFLOW  # underflowing products: absolute error
    W = float(np.sum((np.abs(w) + e) ** 2))
    W = W * (1 + 2 * float(_gamma(P.d0 + 2))) + 2 * (P.d0 + 1) * UNDERFLOW  # squares that underflow
    if Delta is not None:  # extended coordinates Delta l_k beta_k: one rounding each
        E = float(np.sum((Delta * beta) ** 2)) * (1 + 2 * float(_gamma(P.m + 4))) + 2 * (P.m + 1) * UNDERFLOW  # squares that underflow
        W = W + E
    W = _up(W)
    if normalize:
        s = float(np.sum(np.ldexp(beta * nlo, ex)))  # a product that underflows: absolute error <= 2^-1074
    else:
        s = float(np.sum(beta))
    s = s * (1 - 2 * float(_gamma(P.m + 2))) - 2 * (P.m + 1) * UNDERFLOW  # products that underflow
    if not (s > 0 and math.isfinite(s) and math.isfinite(W)):
        return math.inf
    r = _up(_up(math.sqrt(W)) / _down(s))
    return r if e0 == 0 else float(np.nextafter(math.ldexp(r, e0), math.inf))  # 2^e0 r rounds if subnormal


# -- Gordan: an exact certificate that 0 is in the hull -------------------------------------------------


def _exact_null_combination(P: Patterns, S: np.ndarray) -> Optional[Tuple[Fraction, ...]]:
    """Rational c on the support S with sum_{k in S} c_k z_k = 0 and sum c_k = 1, c >= 0, or None.

    Gaussian elimination over Q on the (d0 + 1) x |S| system [Z_S^T; 1^T] c = [0; 1] (sparse rows,
    exact Fractions), then an independent exact re-evaluation of sum c_k z_k.
    """
    Z = P.Z()[S].tocsc()
    k = len(S)
    rows = []  # equations as {column: Fraction}, rhs
    for j in range(Z.shape[1]):
        lo, hi = Z.indptr[j], Z.indptr[j + 1]
        if hi > lo:
            rows.append(({int(i): Fraction(float(v)) for i, v in zip(Z.indices[lo:hi], Z.data[lo:hi])}, Fraction(0)))
    rows.append(({i: Fraction(1) for i in range(k)}, Fraction(1)))
    pivots = []  # (column, normalized pivot row, rhs)
    for col in range(k):
        cands = [r for r in rows if col in r[0]]
        if not cands:
            continue  # a free column: c_col = 0
        piv = min(cands, key=lambda r: len(r[0]))  # the sparsest row: little fill-in
        rows = [r for r in rows if r is not piv]
        a = piv[0][col]
        coeffs = {c: v / a for c, v in piv[0].items()}
        rhs = piv[1] / a
        new_rows = []
        for r_coeffs, r_rhs in rows:
            f = r_coeffs.get(col)
            if f is None:
                new_rows.append((r_coeffs, r_rhs))
                continue
            rc = dict(r_coeffs)
            for c, v in coeffs.items():
                nv = rc.get(c, Fraction(0)) - f * v
                if nv:
                    rc[c] = nv
                else:
                    rc.pop(c, None)
            new_rows.append((rc, r_rhs - f * rhs))
        rows = new_rows
        pivots.append((col, coeffs, rhs))
    if any(r_rhs != 0 for _, r_rhs in rows):  # every remaining row is 0 = r_rhs
        return None  # inconsistent: no combination on S
    c = [Fraction(0)] * k  # back substitution, free variables 0
    for col, coeffs, rhs in reversed(pivots):
        c[col] = rhs - sum((v * c[j] for j, v in coeffs.items() if j != col), Fraction(0))
    if any(v < 0 for v in c) or sum(c) != 1:
        return None
    # independent exact re-evaluation: sum_k c_k z_k == 0
    Zr = P.Z()[S].tocsr()
    acc = {}
    for i in range(k):
        if c[i]:
            for j, v in zip(Zr.indices[Zr.indptr[i] : Zr.indptr[i + 1]], Zr.data[Zr.indptr[i] : Zr.indptr[i + 1]]):
                acc[int(j)] = acc.get(int(j), Fraction(0)) + c[i] * Fraction(float(v))
    if any(v != 0 for v in acc.values()):
        return None
    return tuple(c)
