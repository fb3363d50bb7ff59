"""Certified max margins of a data set at scale: from X (dense or CSR), no n x n matrix.

Linear kernel.  The patterns are those of PT11 (:mod:`reference.patterns`),

    y_k = l_k [x_k, rho, Delta e_k]     (augmentation rho, reflection, extended space Delta),

or, with ``normalize=True``, RP14's normalized points y_k = l_k [x_k, rho] / ||[x_k, rho]||
(rho_2 of RP14 Sec. 2; = rho_K for the linear kernel).  The margin is

    gamma := max_{||u|| = 1} min_k u . y_k                               [PT11 eq. (1); RP14 Sec. 2]

As in :mod:`reference.margin`, an *untrusted search* produces witnesses and a *trusted
certification* evaluates them with an a-priori bound on every rounding error (Higham's
gamma_n = n u / (1 - n u), n the number of terms actually summed):

* any u with min_k u . y_k > 0 gives ``gamma >= min_k u . y_k / ||u||``  (definition);
* any beta >= 0, beta != 0 gives ``gamma <= ||sum_k beta_k y_k|| / sum_k beta_k``   [RP14 Lemma 3];
* a nonzero c >= 0 with sum_k c_k y_k = 0 *exactly* proves gamma <= 0: no u has u . y_k > 0 for
  every k (Gordan's alternative, [RP14 Lemma 6]).  It is checked in rational arithmetic (the
  float data are rationals) on a support of at most d + 2 points (Caratheodory).

Searches (their correctness is irrelevant to the claim):

* ``Delta > 0``: the hard margin in the extended space is the L2-loss SVM in d + 1 dimensions,
  min_v ||v||^2 + Delta^-2 sum_k max(0, 1 - v . z_k)^2 (the extended coordinates are
  s_k = max(0, 1 - v . z_k)/Delta), strongly convex and piecewise quadratic: semismooth Newton
  with the generalized Hessian 2 I + 2 Delta^-2 Z_I^T Z_I (a (d+1) x (d+1) matrix) converges in
  a few dozen steps to machine precision.  Witnesses: u = [v, l_k s_k], beta_k = s_k / Delta.
* no Delta: a linear program (HiGHS) decides whether 0 is in conv{y_k}: a vertex of
  {p >= 0, sum p = 1, sum p_k z_k = 0} has at most d + 2 points, which the rational check
  then certifies.  The LP sees the rows scaled by powers of two (:func:`gordan_certificate`):
  a certificate for them has the same support, and the rational check runs on the z_k as passed.
  Otherwise the data are separable and Wolfe's min-norm-point algorithm in
  primal form (its corral has at most d + 2 points) gives u = sum p_k y_k and beta = p; it stops
  when a major cycle does not shorten the point, after at most WOLFE_CYCLES_PER_DIM (d0 + 2) cycles.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional, Tuple

import numpy as np
import scipy.sparse as sp

from .arithmetic import UNIT_ROUNDOFF, pow2_exponent, row_pow2_exponents, scale_rows_pow2, scaled_pow2_exact
from .data import check_real
from .patterns import Patterns, make_patterns
from .blas import one_thread

__all__ = ["DataMargin", "margin_from_data", "certified_lower", "certified_upper", "gordan_certificate"]

#: Newton on the L2-SVM: at most this many steps; it stops once a full step keeps the active
#: set {k : v . z_k < 1} (then v is the minimizer of that piece's quadratic: the optimum).
NEWTON_MAX_STEPS = 200
#: LP weights below this are treated as 0 when reading the support of a Gordan certificate.
LP_SUPPORT_TOL = 1e-12
#: The LP for a Gordan certificate: (method, options) tried in turn until the support of the answer
#: verifies exactly -- HiGHS's dual simplex with its default tolerances (feasibility 1e-7), then with
#: tolerances 1e-10 (a vertex whose basic weights are down to -1e-7, as the default allows, has a support
#: that is no convex combination), then its interior-point method with crossover (another vertex of a
#: degenerate LP).  At most three LP solves; each one's answer is only a candidate support.
LP_TIGHT_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
LP_ATTEMPTS = (("highs-ds", {}), ("highs-ds", LP_TIGHT_OPTIONS), ("highs-ipm", LP_TIGHT_OPTIONS))
#: Wolfe's optimality test p^T K p - min_i (K p)_i <= WOLFE_RTOL p^T K p (primal form).
WOLFE_RTOL = 1e-14
WOLFE_MAX_ITER = 100_000
#: Wolfe's cycles (major and minor) are also at most WOLFE_CYCLES_PER_DIM (d0 + 2), d0 the pattern
#: length: a corral has at most d0 + 1 points, and the separable real sets take 3 to 6 cycles per
#: dimension (wdbc 187 for d0 = 30, sonar 194 for d0 = 60).  Each cycle costs O(nnz + |S|^2 d0).
WOLFE_CYCLES_PER_DIM = 50
#: The separable case is polished in mpmath (Wolfe on a candidate set) when the pattern length
#: is at most POLISH_MAX_DIM: float64 Wolfe stalls on ill-scaled data (wdbc: R ~ 5e3, margin ~ 4e-5).
POLISH_MAX_DIM = 128
POLISH_DPS = 40
POLISH_ROUNDS = 8
#: The computation forms squares of the pattern entries (||y_k||^2, y_j . y_k, Delta^2, the
#: Newton system 2 I + 2 Delta^-2 Z^T Z) and solves linear systems in them (whose norms square
#: them again), in float64: |X|, rho and Delta at most 2^250 (~1.8e75), Delta at least 2^-250
#: and at least max(|X|, rho) / 2^250, keep those fourth powers finite and Delta^2 normal.
#: Beyond: a ValueError naming the argument (rescale; the margin scales with the data).
SCALE_LIMIT = 2.0**250


@dataclass(frozen=True)
class DataMargin:
    """A certified margin of a data set: ``lower <= gamma <= upper``.

    Attributes
    ----------
    lower, upper : float
        Certified bounds (float64, rounding accounted for).  ``upper = 0`` with
        ``separable=False`` is exact (Gordan); ``lower = -R`` there is only the trivial bound.
    value : float
        Best estimate, inside [lower, upper].
    separable : bool or None
        True: certified lower > 0.  False: certified 0 in conv{y_k} (Gordan).  None: undecided.
    u : ndarray or None
        Witness of ``lower``, in the pattern layout [weights, bias, extended coordinates].
    beta : ndarray or None
        Witness of ``upper``: nonnegative coefficients of the patterns (of the unnormalized
        z_k with ``normalize``, see :func:`certified_upper`).
    gordan : tuple or None
        ``(support, c)``: indices and exact nonnegative rationals with sum_k c_k y_k = 0.
    method : str
        How the bounds were found.  In the separable case without Delta it contains
        ``"; polished at 40 digits"`` exactly when the mpmath polish (POLISH_DPS = 40 digits)
        strictly improved a bound (then that bound's witness, ``u`` or ``beta``, is the polished
        one); a polish that ties or loses on both bounds leaves witnesses and text as they were.
    m, d, nnz : int
        Data size (d = features of X, before augmentation).
    R : float
        max_k ||y_k|| (rounded up).
    rho, Delta : float or None
    normalize : bool
    seconds : float
        Wall-clock time of the whole computation.
    """

    lower: float
    upper: float
    value: float
    separable: Optional[bool]
    u: Optional[np.ndarray]
    beta: Optional[np.ndarray]
    gordan: Optional[Tuple[Tuple[int, ...], Tuple[Fraction, ...]]]
    method: str
    m: int
    d: int
    nnz: int
    R: float
    rho: Optional[float]
    Delta: Optional[float]
    normalize: bool
    seconds: float = 0.0
    info: dict = field(default_factory=dict)

    @property
    def relative_width(self) -> float:
        """(upper - lower) / |value| (inf if value is 0 and the interval is not a point)."""
        w = self.upper - self.lower
        if w == 0:
            return 0.0
        return w / abs(self.value) if self.value != 0 else math.inf

    def as_dict(self) -> dict:
        """JSON-friendly summary (the witnesses are omitted; of ``gordan`` only its support, as ``gordan_support``)."""
        out = {
            "lower": self.lower, "upper": self.upper, "value": self.value, "relative_width": self.relative_width,
            "separable": self.separable, "method": self.method, "m": self.m, "d": self.d, "nnz": self.nnz,
            "R": self.R, "rho": self.rho, "Delta": self.Delta, "normalize": self.normalize,
            "seconds": self.seconds, **{k: v for k, v in self.info.items()},
        }  # fmt: skip
        if self.gordan is not None:
            out["gordan_support"] = [int(i) for i in self.gordan[0]]
        return out


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
#     the quotient (-1) and _down (+4, -1); - _ETA for a quotient that underflows    2
#       (absolute terms: e's 2 (p + 2) 2^-1074 covers p products that underflow, <= 2^-1075 each,
#       with (1.5 p + 4) 2^-1074 to spare, still >= 4.9 2^-1074 after the division by nhi <=
#       sqrt(q) (scaled rows have entries < 1): r = lo / nhi needs no - _ETA of its own; the final
#       quotient by ||u|| <= sqrt(D) can leave less than the 2^-1075 it may lose: - _ETA there)
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


#: The smallest positive subnormal 2^-1074: a bound on the absolute error of a product that
#: underflows (gradual underflow; sums and differences of subnormals are exact).
_ETA = math.ldexp(1.0, -1074)


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
    e = 2 * _gamma(n) * P.abs_matvec(u) + 2 * n * _ETA  # underflowing products: absolute error
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
    tq = 2 * (P.dim + 1) * _ETA  # squares that underflow
    # the quotient num / sqrt(.) may underflow: absolute error <= 2^-1075, hence the - _ETA (num = 0 is exact)
    if num > 0:
        return _down(num / math.sqrt(_up(Q * (1 + gq) + tq))) - _ETA
    if Q * (1 - gq) - tq > 0:
        return _down(num / math.sqrt(_down(Q * (1 - gq) - tq))) - (_ETA if num < 0 else 0.0)
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
    e = 2 * _gamma(n) * (abs(Z).T @ beta) + 2 * n * _ETA  # underflowing products: absolute error
    W = float(np.sum((np.abs(w) + e) ** 2))
    W = W * (1 + 2 * float(_gamma(P.d0 + 2))) + 2 * (P.d0 + 1) * _ETA  # squares that underflow
    if Delta is not None:  # extended coordinates Delta l_k beta_k: one rounding each
        E = float(np.sum((Delta * beta) ** 2)) * (1 + 2 * float(_gamma(P.m + 4))) + 2 * (P.m + 1) * _ETA  # squares that underflow
        W = W + E
    W = _up(W)
    if normalize:
        s = float(np.sum(np.ldexp(beta * nlo, ex)))  # a product that underflows: absolute error <= 2^-1074
    else:
        s = float(np.sum(beta))
    s = s * (1 - 2 * float(_gamma(P.m + 2))) - 2 * (P.m + 1) * _ETA  # products that underflow
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


def gordan_certificate(P: Patterns) -> Optional[Tuple[Tuple[int, ...], Tuple[Fraction, ...]]]:
    """Find and verify exactly a convex combination of the patterns that is 0  [RP14 Lemma 6].

    Returns ``(support, c)`` with c_k > 0 rationals summing to 1 and sum_k c_k z_k = 0 exactly
    (z_k = l_k [x_k, rho]; the extended space has no such combination), or ``None`` if the LP
    says the data are separable or its vertex does not verify exactly.

    The search (untrusted) is an LP on the rows scaled by powers of two, s_k z_k with s_k = 2^-e_k
    bringing each row's largest |entry| into [1/2, 1) (:func:`scale_rows_pow2`; exact).  A combination
    sum_k p_k s_k z_k = 0 is one of the z_k with weights p_k s_k (renormalized): the same support, and
    the exact solve below runs on the z_k as passed, so what is certified is a combination of the
    user's patterns.  On the scaled rows the LP sees the same matrix, bit for bit, whatever power of
    two a row was multiplied by: a row scaled by 2^-20 no longer hides below HiGHS's feasibility
    tolerance 1e-7, and the decision does not depend on the scale of a row.  If the support of the
    LP's vertex does not verify, the LP is solved again as :data:`LP_ATTEMPTS` lists (at most three
    solves); an answer "infeasible" ends the search (the data are then separable to the LP's tolerance).
    """
    from scipy.optimize import linprog

    if P.Delta is not None:
        return None
    Zs = scale_rows_pow2(P.Z())
    A = sp.vstack([Zs.T, sp.csr_matrix(np.ones((1, P.m)))]).tocsc()
    b = np.zeros(P.d0 + 1)
    b[-1] = 1.0
    for method, options in LP_ATTEMPTS:
        res = linprog(np.zeros(P.m), A_eq=A, b_eq=b, bounds=(0, None), method=method, options=options)
        if res.status == 2:  # infeasible: no convex combination is 0 (to the LP's tolerance)
            return None
        if res.status != 0 or res.x is None:
            continue
        S = np.flatnonzero(res.x > LP_SUPPORT_TOL)
        c = _exact_null_combination(P, S)  # on the patterns as passed (the support is that of the scaled rows)
        if c is not None:
            keep = [i for i in range(len(S)) if c[i] > 0]
            return tuple(int(S[i]) for i in keep), tuple(c[i] for i in keep)
    return None


# -- searches (untrusted) ----------------------------------------------------------------------------------


def _newton_l2svm(P: Patterns) -> Tuple[np.ndarray, np.ndarray, int]:
    """min_v ||v||^2 + Delta^-2 sum_k max(0, 1 - v . z_k)^2 by semismooth Newton; returns (v, s, steps).

    s_k = max(0, 1 - v . z_k) / Delta are the extended coordinates (the slack of PT11 Sec. 5).
    From v = 0, each step is v + t d: d solves H d = -grad f(v) with the generalized Hessian
    H = 2 I + 2 Delta^-2 Z_I^T Z_I of the active set I = {k : v . z_k < 1}, and t is the first of
    1, 1/2, 1/4, ... with f(v + t d) <= f(v) + 1e-4 t grad f(v) . d, or 2^-40 (the first <= 1e-12)
    if none before it is (Armijo backtracking by halving: Nocedal & Wright, Numerical
    Optimization, Alg. 3.1, with rho = 1/2, c = 1e-4).
    """
    Z = P.Z()
    D2 = float(P.Delta) ** 2
    v = np.zeros(P.d0)

    def f(v):
        r = np.maximum(1 - Z @ v, 0)
        return v @ v + (r @ r) / D2

    steps = 0
    I = np.arange(P.m)  # at v = 0 every k has 1 - v.z_k = 1 > 0
    while steps < NEWTON_MAX_STEPS:
        steps += 1
        r = 1 - Z @ v
        ZI = Z[I]
        g = 2 * v - (2 / D2) * (ZI.T @ r[I])
        H = 2 * np.eye(P.d0) + (2 / D2) * (ZI.T @ ZI).toarray()  # generalized Hessian on the active set
        try:
            step = np.linalg.solve(H, -g)
        except np.linalg.LinAlgError:  # 2 I lost beside a tiny Delta's 2 Delta^-2 Z_I^T Z_I (rank deficient)
            step = np.linalg.lstsq(H, -g, rcond=None)[0]
        t, f0, slope = 1.0, f(v), g @ step
        while f(v + t * step) > f0 + 1e-4 * t * slope and t > 1e-12:  # Armijo backtracking
            t /= 2
        v = v + t * step
        I_new = np.flatnonzero(1 - Z @ v > 0)
        if t == 1.0 and np.array_equal(I_new, I):
            break  # v minimizes the quadratic of its own active set: the optimum (to round-off)
        I = I_new
    s = np.maximum(1 - Z @ v, 0) / float(P.Delta)
    return v, s, steps


def _wolfe_primal(Yn: sp.csr_matrix) -> Tuple[np.ndarray, int, bool]:
    """Wolfe's min-norm point of conv{rows of Yn}, in primal form (K_SS = Y_S Y_S^T only); returns (p, iters, converged).

    The same major / minor cycles as :func:`reference.margin._wolfe`, with K p = Yn (Yn^T p):
    start from the row of least norm; a major cycle adds j = argmin_k y_k . x (x the current point)
    to the corral S; a minor cycle moves x toward the affine minimizer of S as far as conv(S)
    allows and drops exactly the points whose weight vanishes there, until the affine minimizer
    has positive weights [Wolfe 1976].  In exact arithmetic the norm of x decreases strictly from
    one major cycle to the next; a major cycle that starts at a point no shorter than the previous
    one's (round-off dominates: non-separable data, whose min-norm point 0 the float iterates approach
    to ~1e-15 and then circle, adding a point and dropping it again) ends the run unconverged.  At most
    min(WOLFE_MAX_ITER, WOLFE_CYCLES_PER_DIM (d0 + 2)) cycles.
    """
    m, d0 = Yn.shape
    max_iter = min(WOLFE_MAX_ITER, WOLFE_CYCLES_PER_DIM * (d0 + 2))
    sq = Yn.multiply(Yn).sum(axis=1).A1
    j0 = int(np.argmin(sq))
    S = [j0]
    w_S = np.array([1.0])
    it, converged = 0, False

    def affine_min(S):
        YS = Yn[S].toarray()
        K = YS @ YS.T
        n = len(S)
        A = np.ones((n + 1, n + 1))
        A[:n, :n] = K
        A[n, n] = 0
        rhs = np.zeros(n + 1)
        rhs[n] = 1
        try:
            return np.linalg.solve(A, rhs)[:n]
        except np.linalg.LinAlgError:
            return np.linalg.lstsq(A, rhs, rcond=None)[0][:n]

    q_prev = math.inf
    while it < max_iter:
        it += 1
        x = Yn[S].T @ w_S  # the current point sum p_k y_k
        Kp = Yn @ x
        q = x @ x
        j = int(np.argmin(Kp))
        if q - Kp[j] <= WOLFE_RTOL * q:
            converged = True
            break
        if j in S or not q < q_prev:  # no progress: in exact arithmetic q decreases strictly
            break
        q_prev = q
        S.append(j)
        w_S = np.append(w_S, 0.0)
        while True:  # minor cycle
            a = affine_min(S)
            if np.all(a > 0):
                w_S = a
                break
            it += 1
            neg = np.flatnonzero(a <= 0)
            ratios = w_S[neg] / (w_S[neg] - a[neg])
            theta = float(np.min(ratios))
            w_S = w_S + theta * (a - w_S)
            w_S[neg[int(np.argmin(ratios))]] = 0.0
            keep = w_S > 0
            S = [s for s, k in zip(S, keep) if k]
            w_S = w_S[keep]
    p = np.zeros(m)
    p[S] = w_S / w_S.sum()
    return p, it, converged


def _polish_mp(Yn: sp.csr_matrix, p: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Wolfe at POLISH_DPS digits on a candidate set (support of p and the points of smallest
    margin, ties to the lower index: a stable sort, so the candidates are the same on every machine),
    enlarged until no point violates optimality; returns (p, u = sum p_k y_k) in float64."""
    from .arithmetic import Arithmetic
    from .margin import _kkt, _wolfe

    ar = Arithmetic(POLISH_DPS)
    m, d0 = Yn.shape
    C = set(np.flatnonzero(p > 0).tolist())
    u = Yn.T @ p
    for _ in range(POLISH_ROUNDS):
        marg = Yn @ u
        cand = sorted(C | set(np.argsort(marg, kind="stable")[: 2 * (d0 + 1)].tolist()))
        with ar.context():
            Ym = ar.array(Yn[cand].toarray())
            K = Ym @ Ym.T
            # warm start: the affine minimizer, at this precision, of the float64 support (as margin._mnp)
            S0 = [i for i, k in enumerate(cand) if p[k] > 0]
            start = None
            if S0:
                w, _ = _kkt(K[np.ix_(S0, S0)], ar)
                if all(x > 0 for x in w):
                    start = ar.zeros(len(cand))
                    for i, x in zip(S0, w):
                        start[i] = x
            pc, S, _, _ = _wolfe(K, ar, WOLFE_MAX_ITER, start=start)
            u_mp = Ym.T @ pc
            u = np.array([float(v) for v in u_mp])
            p = np.zeros(m)
            p[cand] = [float(v) for v in pc]
        marg = Yn @ u
        viol = set(np.flatnonzero(marg < (u @ u) * (1 - 1e-12)).tolist()) - set(cand)
        if not viol:
            break
        C = {cand[i] for i in S} | viol
    return p, u


# -- the public function -------------------------------------------------------------------------------------


def _z_coefficients(p: np.ndarray, nrm: np.ndarray, ez: np.ndarray) -> np.ndarray:
    """beta with beta_k z_k = p_k z_k / ||z_k|| up to one positive factor (certified_upper is invariant
    under it), ||z_k|| = 2^ez_k nrm_k: p_k / ||z_k||, or times 2^min(ez) where that overflows."""
    with np.errstate(over="ignore"):
        beta = np.ldexp(p / nrm, -ez)
    return beta if np.all(np.isfinite(beta)) else np.ldexp(p / nrm, np.min(ez) - ez)


def _R(P: Patterns, normalize: bool) -> float:
    """max_k ||y_k||, rounded up (1 for normalized patterns)."""
    if normalize:
        return 1.0
    _, hi, e = _row_norm_bounds(P, extended=True)  # ||y_k|| <= 2^e_k hi_k
    # 2^e_k hi_k is exact unless it is subnormal (then rounded to nearest): one step up covers it
    return float(np.max(np.nextafter(np.ldexp(hi, e), math.inf)))


def _check_scale(P: Patterns) -> None:
    """ValueError naming X, rho or Delta when a square of the computation would leave float64
    (:data:`SCALE_LIMIT`); the fix is a common rescaling: gamma(cX, c rho, c Delta) = c gamma(X, rho, Delta)."""
    fix = "rescale X, rho and Delta by one factor c (the margin scales by c)"
    x_max = float(np.max(np.abs(P.data))) if P.nnz else 0.0
    if x_max > SCALE_LIMIT:
        raise ValueError(f"X has an entry of size {x_max:.3g}: its square overflows float64 here (entries up to 2^250 ~ 1.8e75); {fix}")
    for name, v in (("rho", P.rho), ("Delta", P.Delta)):
        if v is not None and v > SCALE_LIMIT:
            raise ValueError(f"{name}={v!r}: {name}^2 overflows float64 here ({name} up to 2^250 ~ 1.8e75); {fix}")
    if P.Delta is not None:
        z_max = max(x_max, P.rho or 0.0)
        low = max(1 / SCALE_LIMIT, z_max / SCALE_LIMIT)
        if P.Delta < low:
            raise ValueError(f"Delta={P.Delta!r} is too small beside the largest entry {z_max:.3g} of X and rho: "
                             f"Delta^-2 Z^T Z overflows float64 here (Delta >= {low:.3g}); pass a larger Delta, or {fix}")  # fmt: skip


@one_thread
def margin_from_data(X, y, *, rho: Optional[float] = None, Delta: Optional[float] = None, normalize: bool = False) -> DataMargin:
    """The certified max margin of a data set, linear kernel, in O(nnz + m) memory.

    Parameters
    ----------
    X : array_like or scipy.sparse matrix, shape (m, d)
        The points (rows).  As :func:`reference.load_libsvm` returns them, or dense.
    y : array_like, shape (m,)
        Labels +1 / -1.
    rho : float, optional
        Augmentation x_k -> [x_k, rho] (a bias; PT11 Sec. 2).  Default: none.
    Delta : float, optional
        The extended space of PT11 Sec. 5: every data set is separable there, with margin
        gamma_d >= Delta / sqrt(m); the 2-norm soft margin.  Default: the original space.
    normalize : bool
        RP14's normalized points y_k / ||y_k|| (rho_2; equal to rho_K for the linear kernel).
        Not combined with Delta.

    Returns
    -------
    DataMargin
        ``lower <= gamma <= upper`` with witnesses.  With Delta: relative width ~1e-12.  Without:
        separable data get the same; non-separable data get ``separable=False`` with an exact
        Gordan certificate and ``[lower, upper] = [-R, 0]`` (the negative margin is not bounded
        tightly here; :func:`reference.margin` on a Gram matrix does it for small m).

    Raises
    ------
    ValueError
        Bad data (as every public function), rho or Delta <= 0, ``normalize`` with ``Delta``,
        zero rows with ``normalize`` or without rho and Delta; entries whose squares leave
        float64 (|X|, rho or Delta above 2^250 ~ 1.8e75, Delta below max(2^-250, max(|X|, rho) / 2^250)):
        rescale X, rho and Delta by one factor c, the margin scales by c.
    """
    t0 = time.perf_counter()
    if not isinstance(normalize, (bool, np.bool_)):
        raise ValueError(f"normalize must be True or False, got {normalize!r}")
    if normalize and Delta is not None:
        raise ValueError("normalize=True (RP14's rho_2) has no extended space; pass Delta=None, or normalize=False for PT11's gamma_d")
    if rho is not None:
        check_real("rho", rho, low=0, hint="pass e.g. rho=1.0, or rho=None for no augmentation")
    if Delta is not None:
        check_real("Delta", Delta, low=0, hint="pass e.g. Delta=1.0, or Delta=None for the original space")
    P = make_patterns(X, y, rho=None if rho is None else float(rho), Delta=None if Delta is None else float(Delta))
    _check_scale(P)
    base = dict(m=P.m, d=P.n_features, nnz=P.nnz, R=_R(P, normalize), rho=P.rho, Delta=P.Delta, normalize=bool(normalize))
    if P.Delta is not None:
        v, s, steps = _newton_l2svm(P)
        u = np.concatenate([v, P.labels * s])  # [weights, bias, extended coordinates l_k s_k]
        beta = s / P.Delta
        lo, up = certified_lower(P, u), certified_upper(P, beta)
        method = (f"extended space (Delta={P.Delta:g}): L2-SVM primal by semismooth Newton ({steps} steps); "
                  "lower = min_k u.y_k/||u||, upper = ||sum beta_k y_k||/sum beta_k [RP14 Lemma 3], rounding bounded")
        return DataMargin(lower=lo, upper=up, value=min(max(1 / math.sqrt(float(u @ u)), lo), up), separable=True if lo > 0 else None,
                          u=u, beta=beta, gordan=None, method=method, seconds=time.perf_counter() - t0,
                          info={"newton_steps": steps}, **base)  # fmt: skip
    cert = gordan_certificate(P)
    if cert is not None:
        method = (f"not separable: 0 = sum_k c_k y_k with c >= 0 on {len(cert[0])} points, verified exactly in "
                  "rational arithmetic (Gordan, [RP14 Lemma 6]); upper = 0 exact; lower = -R is only the "
                  "trivial bound (the negative margin is NOT certified tight)")
        return DataMargin(lower=-base["R"], upper=0.0, value=0.0, separable=False, u=None, beta=None, gordan=cert,
                          method=method, seconds=time.perf_counter() - t0, info={"support": len(cert[0])}, **base)  # fmt: skip
    Z = P.Z()
    if normalize:  # rows scaled by powers of two first: squares of entries ~1e-170 underflow
        ez = row_pow2_exponents(Z)
        Zs = scale_rows_pow2(Z)
        nrm = np.sqrt(Zs.multiply(Zs).sum(axis=1).A1)  # ||z_k|| = 2^ez_k nrm_k
        Yn = sp.diags(1 / nrm) @ Zs
    else:
        Yn = Z
    Yn = Yn.tocsr()
    p, it, conv = _wolfe_primal(Yn)
    u = Yn.T @ p
    beta = _z_coefficients(p, nrm, ez) if normalize else p
    lo, up = certified_lower(P, u, normalize=normalize), certified_upper(P, beta, normalize=normalize)
    polished = False
    if lo > 0 and P.d0 <= POLISH_MAX_DIM and (up - lo) > 1e-12 * up:
        p2, u2 = _polish_mp(Yn, p)
        if np.any(p2 > 0):
            beta2 = _z_coefficients(p2, nrm, ez) if normalize else p2
            lo2, up2 = certified_lower(P, u2, normalize=normalize), certified_upper(P, beta2, normalize=normalize)
            polished = lo2 > lo or up2 < up
            if lo2 > lo:
                lo, u = lo2, u2
            if up2 < up:
                up, beta = up2, beta2
    sep = True if lo > 0 else None
    method = (f"{'separable' if sep else 'undecided'}: Wolfe min-norm point in primal form ({it} cycles, "
              f"support {int(np.count_nonzero(p))}{f'; polished at {POLISH_DPS} digits' if polished else ''}); lower = min_k u.y_k/||u||, upper = ||sum beta_k y_k||/sum beta_k "
              "[RP14 Lemma 3], rounding bounded")
    value = min(max(math.sqrt(float(u @ u)), lo), up)
    return DataMargin(lower=lo, upper=up, value=value, separable=sep, u=u, beta=beta, gordan=None, method=method,
                      seconds=time.perf_counter() - t0, info={"wolfe_cycles": it, "wolfe_converged": conv}, **base)  # fmt: skip
