"""Certified max margins of a signed Gram matrix, the driver  [RP14 Lemma 3, Theorems 2-3; PT11 eq. (1)].

The margin of a symmetric PSD matrix ``K`` (the Gram matrix of the reflected points
z_i = y_i phi(x_i)) is Lemma 3's alpha-form

    m(K) := sup_{||alpha||_K = 1} min_i (K alpha)_i                               [RP14 Lemma 3]

With ``K = G`` (:func:`reference.gram`) this is rho_K; with the unnormalized ``Y K Y``
(:func:`reference.signed_gram`) it is rho, and on augmented / extended data gamma_d of
[PT11 eq. (1)].  Because alpha ranges over coefficients of the points, ``m`` is the *relative*
margin inside span{z_i}  [spec E-A3, RP14 footnote 1].

**Which object the interval certifies: the matrix given.**  ``lower <= m(K) <= upper`` holds for
K exactly as stored (the rationals its floats are), not for some nearby matrix: every bound is
re-evaluated with an a-priori round-off bound (Higham's gamma_n, the one unit round-off of
:mod:`reference.arithmetic`), and where that allowance cannot decide, in exact rational
arithmetic (:mod:`reference.exact`; ``reference.verify_margin_exact`` re-checks a Margin).
Consequence: a rounded Gram matrix of infeasible data almost never *is* infeasible -- rounding
gives it full exact rank, so (if PSD) its margin is >= 0 -- and then ``feasible`` is ``None``,
``upper = ||p*||_K`` (tiny, >= 0) and ``value`` = -delta_max^rel of the rank-r matrix it is
within round-off of (the data it approximates).  ``feasible=False`` (``upper = -delta_max < 0``)
is stated only when K has exactly that rank (decided in integer arithmetic), e.g. the Gram
matrix of small-integer data.

Two certificates bracket it:

* any alpha with ||alpha||_K > 0 gives  ``m >= min_i (K alpha)_i / ||alpha||_K``  (definition);
* any p >= 0, p != 0 gives  ``m <= ||p||_K / (1^T p)``  (weak duality, [RP14 Lemma 3]).

Feasible case (0 not in conv{z_i}, [RP14 Theorem 2]): m = ||p*||_K for the min-norm point p*
of the hull.  p* is found by Wolfe's min-norm-point algorithm in Gram form, its support S is
confirmed by the KKT system  [K_SS 1; 1^T 0][p_S; nu] = [0; 1],  and alpha = p* certifies
``lower`` (K p* >= ||p*||_K^2 1 at the optimum [RP14 Lemma 3, consequence]).

Infeasible case (0 in the hull): m = -delta_max^rel, the radius of the largest ball about the
origin, inside span{z_i}, contained in the hull  [RP14 Theorem 3, spec E-A3].  It is the
distance from the origin to the nearest facet of the hull in span coordinates, found by
enumerating the r-subsets of points (r = rank K) when there are at most ``max_subsets`` of
them, or else by a local search (then only ``lower`` is tight-ish and ``upper`` is the trivial
``||p*||_K ~ 0``).

This module is the driver: it runs the searches that only propose witnesses (Wolfe's min-norm
point, :mod:`.search`; the facets of the hull, :mod:`.facets`), has every claim evaluated by the
trusted code (:mod:`.matrix`: the matrix certified; :mod:`.bounds`: the certified bounds and their
allowances) and reports a :class:`Margin`.

Public API: :class:`Margin`, :func:`margin` (also :func:`reference.margin`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Optional, Tuple

import mpmath
import numpy as np

from ..arithmetic import UNIT_ROUNDOFF, Arithmetic
from ..blas import one_thread
from ..data import check_int
from ..exact import exact_quadratic_form, exact_rank
from .bounds import (
    _affine_distance2_exact,
    _exact_lower,
    _facet_allowance,
    _lower,
    _origin_in_simplex,
    _times_pow2,
    _unit_roundoff,
    _upper,
)
from .facets import _enumerate_facets, _span_coordinates
from .matrix import _prepare, _scale_gram
from .search import DEFAULT_MAX_ITER, _local_search, _mnp, kkt

__all__ = ["DEFAULT_MAX_ITER", "DEFAULT_MAX_SUBSETS", "Margin", "margin"]

DEFAULT_MAX_SUBSETS = 200_000
#: The objects :func:`margin` can certify: K as stored, or K restricted to its numerical span.
MATRIX, SPAN = "matrix", "span"
#: Largest n for which an undecided / infeasible verdict is first re-checked in exact arithmetic.
EXACT_MAX_N = 400
#: Largest n for which the exact rank of K is computed (fraction-free elimination, O(n^3)).
EXACT_RANK_N = 60


# -- results ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Margin:
    """A certified max margin  lower <= m(K) <= upper.

    Attributes
    ----------
    value : float or mpmath.mpf
        Best estimate of m(K) (inside ``[lower, upper]``).
    lower : float or mpmath.mpf
        Certified lower bound, witnessed by ``alpha``: ``lower <= min_i (K alpha)_i / ||alpha||_K``.
    upper : float or mpmath.mpf
        Certified upper bound: ``||p||_K / (1^T p)`` [RP14 Lemma 3] in the feasible case; in the
        infeasible case ``-delta_max`` from a complete facet enumeration [RP14 Theorem 3] (exact
        up to the round-off of the facet computations) when that bound with its allowance is
        negative, else ``||p||_K`` (~ 0).  A nonnegative ``upper`` is always witnessed by ``p``.
    feasible : bool or None
        ``True``: certified ``lower > 0`` (a strict separator exists, [RP14 Lemma 1]).
        ``False``: certified 0 in conv{z_i}, so m <= 0 [RP14 Theorem 2] -- by ``upper <= 0``
        (exact p^T K p = 0, or -delta_max from the complete facet enumeration), or, with
        ``of='span'``, 0 strictly inside the simplex of Wolfe's r + 1 support points in span
        coordinates.  Never from the float test ``||p*||_K^2 <= 64 n u max_i K_ii`` alone: a true
        margin that small may be positive (wdbc with a bias: ~4e-5 against R ~ 5e3).
        ``None``: undecided (budget exhausted, or the sign is within round-off).
    alpha : ndarray or None
        Witness of ``lower`` (coefficients of the points).
    p : ndarray
        Witness of ``upper`` in the feasible case: the min-norm point, a point of the simplex.
    support : tuple of int
        Indices of the support of the min-norm point.
    precision : str
        ``"float64"`` or ``"mpmath, D decimal digits"``.
    method : str
        How the bounds were obtained, in words.
    of : str
        The object certified: ``"matrix"`` (K as stored) or ``"span"`` (K restricted to its
        numerical span; see :func:`margin`).
    """

    value: object
    lower: object
    upper: object
    feasible: Optional[bool]
    alpha: Optional[np.ndarray]
    p: Optional[np.ndarray]
    support: Tuple[int, ...]
    precision: str
    method: str
    of: str = "matrix"

    @property
    def gap(self):
        """``upper - lower`` (>= 0)."""
        return self.upper - self.lower

    @property
    def relative_gap(self):
        """``gap / |value|``; 0 if the gap is 0, ``inf`` if ``value == 0 < gap``."""
        g = self.gap
        if g == 0:
            return 0.0
        if self.value == 0:
            return math.inf
        return g / abs(self.value)


def _num(x, ar: Arithmetic):
    """A plain ``float`` in float64 mode, an ``mpmath.mpf`` otherwise."""
    return x if ar.is_mp else float(x)


def _count_text(count: int) -> str:
    """A count as a person reads it: exact up to 10^9, else ``about 2.3e+170`` (C(n, r) can have
    hundreds of digits)."""
    if count < 10**9:
        return str(count)
    e = math.floor(math.log10(count))
    mantissa = round(10 ** (math.log10(count) - e), 1)
    if mantissa >= 10:
        mantissa, e = mantissa / 10, e + 1
    return f"about {mantissa:g}e+{e}"


@one_thread
def margin(
    K,
    *,
    precision: Optional[int] = None,
    max_iter: int = DEFAULT_MAX_ITER,
    max_subsets: int = DEFAULT_MAX_SUBSETS,
    of: str = MATRIX,
) -> Margin:
    """The certified max margin m(K) = sup_{||alpha||_K = 1} min_i (K alpha)_i  [RP14 Lemma 3].

    Parameters
    ----------
    K : array_like, shape (n, n)
        Symmetric PSD signed Gram matrix: ``reference.gram(X, y)`` gives rho_K,
        ``reference.signed_gram(X, y)`` gives rho (gamma_d of PT11 on augmented data).
    precision : int, optional
        mpmath decimal digits for the final KKT solve and the certificates; ``None``: float64
        (then an mpf / int / Fraction K must be exactly representable in float64: the
        certificates would otherwise be about the rounded matrix).
    max_iter : int
        Budget of Wolfe cycles for the min-norm point.
    max_subsets : int
        Largest number C(n_distinct, rank K) of point subsets enumerated for the facets of the
        hull in the infeasible case; beyond it a local search gives ``lower`` only.
    of : {"matrix", "span"}
        Which object the interval is about.  ``"matrix"`` (default): K exactly as stored; every
        bound is rigorous for it and re-checkable with :func:`reference.verify_margin_exact`.
        ``"span"``: the data K approximates -- K restricted to its numerical span (the rank-r
        matrix K_r of K's eigenvalues above n 1000 eps max eig, eps = 2^-52), the relative margin of RP14's
        erratum E-A3 for data of rank r: an infeasible data set gets ``feasible=False`` and
        ``upper = -delta_max^rel`` (exact up to the round-off of the facet computations) even
        when rounding gave K full exact rank.  ``lower`` is rigorous for K as stored in both.
        Caution: ``feasible=False`` under ``"span"`` is a statement about K_r, not about K
        or your data.  A genuine direction whose eigenvalue falls below the cut (badly scaled
        features, e.g. integer data with norms ~1e4 and a tiny margin) is treated as
        round-off, so separable data can come out infeasible here; ``"matrix"`` never does
        (it answers ``feasible=None`` when floats cannot decide).

    Returns
    -------
    Margin
        ``value`` with certified ``lower <= m(K) <= upper`` and their witnesses.

    Notes
    -----
    * Feasible (0 not in the hull): ``m = ||p*||_K = min_{Delta} ||p||_K`` [RP14 Lemma 3];
      ``lower`` from alpha = p*, ``upper`` from p = p*.  Float64: relative gap ~1e-13 to 1e-11
      (mostly the a-priori round-off allowance, ~n u); ``precision=D``: ~10^-(D-5).
    * Infeasible: ``m = -delta_max^rel`` [RP14 Theorem 3, spec E-A3]; ``lower`` from the facet
      normal (alpha-form), ``upper = -delta_max`` from the complete enumeration (certified up to
      the round-off of the facet computations and the rank tolerance).
    * The margin is relative to span{z_i}: for z_2 = -z_1 it is -||z_1||, not 0.
    * The interval is for K as stored (module docstring): a negative ``upper`` only when K has
      exactly the numerical rank r; otherwise ``feasible=None`` and ``value`` = -delta_max^rel
      of the rank-r matrix within round-off of K.  An exactly feasible K (K p* > 0 in exact
      arithmetic, below the float allowance) gets ``feasible=True``.

    Raises
    ------
    ValueError
        K not square / symmetric / finite / PSD (also: certified bounds that cross), K = 0, entries
        of an object K that float64 cannot hold with ``precision=None`` (or, with ``precision=D``,
        a Fraction entry that is not m 2^e), bad precision, max_iter or max_subsets.
    """
    max_iter = check_int("max_iter", max_iter, low=1)
    max_subsets = check_int("max_subsets", max_subsets, low=1)
    if of not in (MATRIX, SPAN):
        raise ValueError(f"of must be {MATRIX!r} (K as stored) or {SPAN!r} (its numerical span), got {of!r}")
    Kf, Km, ar = _prepare(K, precision)
    Kf, Km, k = _scale_gram(Kf, Km, ar)  # 4^-k K, exact: no product underflows or overflows
    m = _scaled_back(_margin(Kf, Km, ar, max_iter, max_subsets, of), k, ar)
    # For a PSD K both bounds of of="matrix" are rigorous, so lower <= m(K) <= upper; crossed bounds
    # prove K is not PSD (check_gram accepts a negative eigenvalue up to 1e-8 n max(1, max|K|)).
    if of == MATRIX and m.lower > m.upper:
        raise ValueError(
            f"K is not positive semidefinite: the certified bounds cross (lower = {float(m.lower):.3e} from "
            f"alpha > upper = {float(m.upper):.3e} from p, impossible for a PSD K [RP14 Lemma 3]); pass a "
            "PSD matrix, e.g. the Gram matrix of your points (reference.gram / signed_gram); in float64 the Gram "
            "matrix of points of very different norms can lose PSD-ness to underflow (a squared norm rounded to "
            "0 beside a nonzero inner product): then build it at D digits, signed_gram(X, y, precision=D), and "
            "pass precision=D"
        )
    return m


def _scaled_back(m: Margin, k: int, ar: Arithmetic) -> Margin:
    """The Margin of K from the Margin of 4^-k K: value, lower and upper times 2^k (lower rounded
    down, upper up, where the product leaves the normal range; :func:`_times_pow2`); the witnesses
    are the same vectors.  A positive lower bound below the smallest subnormal cannot be stated:
    then ``lower = 0`` and ``feasible=None``."""
    if k == 0:
        return m
    with ar.context():
        lower = _times_pow2(m.lower, k, ar, toward=-1)
        upper = _times_pow2(m.upper, k, ar, toward=1)
        value = min(max(_times_pow2(m.value, k, ar), lower), upper)
    feasible, method = m.feasible, m.method + f"; computed on 4^-k K with k = {k} (exact), bounds times 2^k"
    if feasible is True and not lower > 0:
        feasible, method = None, method + " (lower > 0 for 4^-k K, but 2^k lower is below the smallest subnormal)"
    return replace(m, value=value, lower=lower, upper=upper, feasible=feasible, method=method)


def _margin(Kf: np.ndarray, Km: np.ndarray, ar: Arithmetic, max_iter: int, max_subsets: int, of: str) -> Margin:
    """The body of :func:`margin`, on the validated (and scaled) K: ``Kf`` in float64, ``Km`` in the
    chosen arithmetic."""
    n = Kf.shape[0]
    mnp, mnp_zero = _mnp(Kf, Km, ar, max_iter)
    with ar.context():
        p = mnp.p
        lo_p = _lower(Km, p, ar)  # [RP14 Lemma 3]: K p* >= ||p*||^2 1 at the optimum
        up_p = _upper(Km, p, ar)
        # With ||p*||_K ~ 0 in float64, an mpmath evaluation of min(K p*)/||p*||_K only probes the
        # numerical null space of K (directions outside the span): not a meaningful witness.
        if mnp_zero and ar.is_mp:
            lo_p = mpmath.ninf
        if lo_p > 0:
            value = min(max(mnp.norm, lo_p), up_p)
            how = "Wolfe min-norm point + KKT on its support" + (
                f" (re-solved at {ar.dps} digits)" if ar.is_mp else ""
            )
            return Margin(_num(value, ar), _num(lo_p, ar), _num(up_p, ar), True, p, p, mnp.support, ar.label,
                          f"feasible: {how}; lower = min(K p*)/||p*||_K, upper = ||p*||_K [RP14 Lemma 3]")
        # Below the round-off allowance, the matrix as stored may still be separated by p*: decide
        # the sign of K p* exactly (the floats are rationals) before calling anything infeasible.
        exact_lo = _exact_lower(Km, p, ar) if n <= EXACT_MAX_N and of == MATRIX else None
        if exact_lo is not None:
            value = min(max(mnp.norm, exact_lo), up_p)
            return Margin(_num(value, ar), _num(exact_lo, ar), _num(up_p, ar), True, p, p, mnp.support, ar.label,
                          "feasible: K as stored is separated by its min-norm point p* (K p* > 0 in exact "
                          "rational arithmetic, below the round-off allowance of float evaluation); lower = "
                          "min(K p*)/||p*||_K evaluated exactly, upper = ||p*||_K [RP14 Lemma 3]")

    # infeasible (or undecided): facets of the hull in span coordinates  [RP14 Theorem 3]
    Z, V_r, s_r = _span_coordinates(Kf)
    r = Z.shape[1]
    _, uniq = np.unique(Kf, axis=0, return_index=True)
    uniq = np.sort(uniq)
    scale = float(np.max(np.linalg.norm(Z, axis=1)))
    Zs = Z[uniq] / scale
    tol_side = 1e-10  # in units of max_i ||z_i||
    n_sub = math.comb(len(uniq), r)
    complete = n_sub <= max_subsets
    if complete:
        best = _enumerate_facets(Zs, r, tol_side)
    else:
        best = _local_search(Zs, r, tol_side, max_subsets, np.random.default_rng(0))
    # The hull's facets were found in the numerical span (rank r): a statement about K as stored
    # only if K has exactly rank r (decided in integer arithmetic; else K is merely within round-off
    # of a rank-r matrix, and its own margin is bracketed by the witnesses alone).
    span_is_exact = of == SPAN or r == n or (n <= EXACT_RANK_N and exact_rank(Km, at_most=r) == r)
    with ar.context():
        lower, alpha, upper, value = lo_p, (None if lo_p == -math.inf else p), up_p, None
        if best is not None:
            b, a, T = best
            f_alpha = (V_r / np.sqrt(s_r)) @ a  # K alpha = Z a, ||alpha||_K = ||a||
            cands = [ar.array(f_alpha) if ar.is_mp else f_alpha]
            value = ar.scalar(b * scale)  # min_i <a, z_i> for the best facet normal a
            value_u = UNIT_ROUNDOFF  # value is a float64 result (the facet's SVD), whatever the precision
            if ar.is_mp and b < -tol_side and T is not None:  # re-solve the facet's affine minimizer at D digits
                Tk = [int(uniq[t]) for t in T]
                w, mu = kkt(Km[np.ix_(Tk, Tk)], ar)
                if mu > 0:
                    alpha_mp = ar.zeros(n)
                    for k, i in enumerate(Tk):
                        alpha_mp[i] = -w[k]  # direction from the facet towards the origin
                    cands.append(alpha_mp)
                mu_q = _affine_distance2_exact(Km[np.ix_(Tk, Tk)])
                if mu_q is not None:  # -delta of this facet: D digits of the square root of its exact square
                    value = -ar.sqrt(ar.scalar(mu_q.numerator) / ar.scalar(mu_q.denominator))
                    value_u = _unit_roundoff(ar)
            for c in cands:
                lc = _lower(Km, c, ar)
                if lc > lower:
                    lower, alpha = lc, c
            # -delta_max, exact up to the facets' round-off -- only when the origin is in the hull (b <= 0).
            # A best facet with b > 0 separates the origin: then m >= b, and max b can be far below
            # m (the nearest point of the hull on a lower-dimensional face, e.g. an edge between two
            # tilted facets), so it bounds nothing from above; upper stays ||p*||_K / 1^T p*.
            # The allowance follows the arithmetic of value: 64 n u max||z_i|| with u = 2^-53 for the
            # float64 offset b, u = 10^-D for a facet re-solved at D digits (from its exact squared
            # distance: a D-digit KKT value would carry ~10^-D max K_ii / delta, see
            # _affine_distance2_exact).
            # Only a negative bound is taken: a nonnegative upper is the min-norm point's claim,
            # witnessed by p (||p||_K / 1^T p <= upper, what verify_margin_exact re-checks); a facet
            # bound -delta + allowance >= 0 has no such witness and is no better than 0 anyway.
            if complete and b <= 0 and span_is_exact:
                allowance = _facet_allowance(n, value_u, scale, ar)
                if value + allowance < 0:
                    upper = min(upper, value + allowance)
        if upper > 0 and n <= EXACT_MAX_N and exact_quadratic_form(Km, p) == 0:
            upper = ar.scalar(0)  # p* K p* = 0 exactly: 0 is in the hull of K as stored [RP14 Lemma 3]
        feasible: Optional[bool]
        simplex = False
        if lower > 0:
            feasible = True
            value = mnp.norm
        elif upper <= 0 or (of == SPAN and mnp_zero and _origin_in_simplex(Z, mnp.support)):
            feasible = False  # certified: 0 is in the hull of K as stored, or of K_r (facets or a simplex)
            if upper > 0:  # the simplex certificate: m(K_r) <= 0  [RP14 Theorem 2]
                upper = ar.scalar(0)
                simplex = True
        else:  # e.g. ||p*||_K^2 below the round-off tolerance _zero_tol: a float verdict, not a certificate
            feasible = None
        if value is None:
            value = lower
        value = min(max(value, lower), upper)
        if feasible is True:
            method = "feasible (the facet enumeration found a separating hyperplane); min-norm point estimate"
        elif complete and best is not None and not span_is_exact and b <= tol_side:
            method = (
                f"undecided for K as stored: K is within round-off of a matrix of rank {r} whose hull "
                f"holds the origin (value = -delta_max^rel of that matrix, from all C({len(uniq)}, {r}) = "
                f"{n_sub} point subsets [RP14 Theorem 3, E-A3]), but K itself has exact rank > {r}, "
                "so its own margin is only bracketed: lower from the facet normal (alpha-form), upper = "
                "||p*||_K of the min-norm point [RP14 Lemma 3]"
            )
        elif complete and best is not None:
            method = (
                f"{'infeasible' if feasible is False else 'undecided'}: complete enumeration of the "
                f"C({len(uniq)}, {r}) = {_count_text(n_sub)} point subsets (rank {r}); value = -delta_max^rel "
                "[RP14 Theorem 3, E-A3]; lower from the facet normal (alpha-form), upper = -delta_max "
                "exact up to round-off" + (f"; facet re-solved at {ar.dps} digits" if ar.is_mp else "")
            )
        else:
            method = (
                f"{'infeasible' if feasible is False else 'undecided'}: C({len(uniq)}, {r}) = {_count_text(n_sub)} "
                f"subsets exceed max_subsets={max_subsets}; value and lower from a local search over "
                "facets (NOT certified tight); upper = ||p*||_K of the min-norm point (~0)"
            )
        if simplex:
            method += (f"; 0 is inside the simplex of Wolfe's {r + 1} support points (barycentric weights > 0 "
                       "beyond their round-off bound), so upper = 0")
        if feasible is None and mnp_zero:
            method += ("; ||p*||_K^2 is below the round-off tolerance 64 n u max_i K_ii of Wolfe's algorithm, "
                       "so the sign of the margin is not decided (a margin that small may be positive)")
        if of == SPAN and r < n:
            method += f"; of='span': about K restricted to its numerical span (rank {r} of {n})"
        return Margin(_num(value, ar), _num(lower, ar), _num(upper, ar), feasible, alpha, p, mnp.support,
                      ar.label, method, of)
