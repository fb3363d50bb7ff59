"""Certified max margins of a signed Gram matrix  [RP14 Lemma 3, Theorems 2-3; PT11 eq. (1)].

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

Public API: :class:`Margin`, :func:`margin`, :class:`MinNormPoint`, :func:`min_norm_point`,
:func:`lower_bound`, :func:`upper_bound`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Iterator, Optional, Tuple

import mpmath
import numpy as np

from .arithmetic import (
    UNDERFLOW,
    UNIT_ROUNDOFF,
    Arithmetic,
    arithmetic,
    gamma,
    gram_pow4_exponent,
    scaled_pow2_exact,
    to_float,
)
from .data import check_gram, check_int
from .exact import exact_det, exact_quadratic_form, exact_rank, margin_witness_value, ratio_at_least, rational
from .blas import one_thread

__all__ = [
    "DEFAULT_MAX_ITER",
    "DEFAULT_MAX_SUBSETS",
    "Margin",
    "MinNormPoint",
    "margin",
    "min_norm_point",
    "lower_bound",
    "upper_bound",
]

DEFAULT_MAX_ITER = 10_000
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


@dataclass(frozen=True)
class MinNormPoint:
    """The min-norm point p* = argmin_{p in Delta_n} ||p||_K of conv{z_i}  [RP14 Lemma 3].

    Unpacks as ``p, support = min_norm_point(K)``.

    Attributes
    ----------
    p : ndarray
        A point of the simplex (entries >= 0; they sum to 1 up to round-off).
    support : tuple of int
        ``{i : p_i > 0}``.
    norm : float or mpmath.mpf
        ``||p||_K`` (computed; ~0 in the infeasible case).
    iterations : int
        Major plus minor cycles of Wolfe's algorithm.
    converged : bool
        Wolfe's optimality test ``p^T K p - min_i (K p)_i <= tol`` passed.
    precision : str
    """

    p: np.ndarray
    support: Tuple[int, ...]
    norm: object
    iterations: int
    converged: bool
    precision: str

    def __iter__(self) -> Iterator:
        yield self.p
        yield self.support


# -- validation ---------------------------------------------------------------------------------


def _digits(v) -> str:
    """An entry of an object K in full, for a message (``str`` of an mpf shows the context's 15 digits:
    -1 + 10^-30 would read -1.0)."""
    if isinstance(v, mpmath.mpf) and mpmath.isfinite(v) and v != 0:
        return mpmath.nstr(v, max(17, int(v.man.bit_length() * 0.30103) + 1))
    return str(v)


def _keep_as_stored(K: np.ndarray, Km: np.ndarray, precision: int) -> None:
    """Put back into ``Km`` the exact value of every int / Fraction entry of ``K`` that ``ar.array``
    rounded to D digits (an int wider than D digits: -2^200 + 1 read as -2^200 makes a separable
    pair z, -z): as an mpf of as many bits as it needs (the arithmetic at D digits rounds only what
    is computed from it, as for an mpf entry finer than D digits).  A Fraction that is not m 2^e
    (1/3) has no such value: a ValueError."""
    for (i, j), v in np.ndenumerate(K):
        if isinstance(v, mpmath.mpf):
            continue
        r = rational(v)
        if rational(Km[i, j]) == r:
            continue
        den = r.denominator
        if den & (den - 1):
            raise ValueError(
                f"K[{i}, {j}] = {v} is not a binary number m 2^e, so no mpf holds it and the certificates at "
                f"precision={precision} would be about K rounded; pass K as mpf entries built at the digits you "
                "want certified (e.g. reference.signed_gram(X, y, precision=D))"
            )
        with mpmath.workprec(max(r.numerator.bit_length(), 1)):
            Km[i, j] = mpmath.ldexp(mpmath.mpf(r.numerator), 1 - den.bit_length())  # exact


def _exact_integers(K):
    """``K`` as an object array of Python ints if it is an integer array that float64 cannot hold
    exactly (beyond 2^53), else ``K`` unchanged (check_gram reads it, and says what is wrong)."""
    try:
        raw = np.asarray(K)
    except (TypeError, ValueError):
        return K
    if raw.dtype.kind not in "iu":
        return K
    info = np.iinfo(raw.dtype)
    Kf = raw.astype(np.float64)
    inside = (Kf >= float(info.min)) & (Kf < float(info.max) + 1)  # float(max) + 1: 2^63 (2^64, ...)
    if np.all(inside & (np.where(inside, Kf, 0).astype(raw.dtype) == raw)):
        return K
    return raw.astype(object)


def _prepare(K, precision, as_stored: bool = True) -> Tuple[np.ndarray, np.ndarray, Arithmetic]:
    """Validate K and precision; return (K in float64, K in the chosen arithmetic, ar).

    ``as_stored`` (the certifying functions): in float64 mode an object K (mpf, int or Fraction
    entries) is accepted only if float64 holds every entry exactly -- the certificates are
    evaluated on the float64 matrix, and a rounded entry would make them certify another matrix
    than K as stored (K_12 = -1 + 10^-20 rounds to -1: a separable pair read as z, -z).  An
    integer K (int64: 2^60 - 1 rounds to 2^60) whose entries float64 cannot all hold is read as
    the object array of its Python ints, so it meets the same check (and is exact at D digits)."""
    ar = arithmetic(precision)
    K = _exact_integers(K)
    K = check_gram(K, unit_diagonal=False, name="K")
    Kf = to_float(K) if K.dtype == object else np.asarray(K, dtype=np.float64)
    if as_stored and not ar.is_mp and K.dtype == object:
        for (i, j), v in np.ndenumerate(K):
            if (v if isinstance(v, Fraction) else rational(v)) != Fraction(Kf[i, j]):
                raise ValueError(
                    f"K has entries that float64 cannot hold (K[{i}, {j}] = {_digits(v)} rounds to {float(Kf[i, j])!r}), and "
                    "with precision=None the certificates are evaluated in float64 -- on the rounded matrix, "
                    "not on K as stored; pass precision=D (the digits K was built at), or round K to float64 "
                    "yourself (np.asarray(K, dtype=float)) to get the interval of the rounded matrix"
                )
    # average only the asymmetric pairs, halves first: (a + b) / 2 overflows for entries ~1e308
    # (a / 2 + b / 2 is the same float in the normal range; a symmetric entry is kept as it is)
    Kf = np.where(Kf == Kf.T, Kf, Kf / 2 + Kf.T / 2)
    if not np.any(np.diag(Kf) > 0):
        raise ValueError(
            "K is zero (every point is the origin): no alpha has ||alpha||_K = 1, so the margin "
            "is undefined; drop the zero points"
        )
    if ar.is_mp:
        with ar.context():
            Km = ar.array(K)
            if as_stored and K.dtype == object:
                _keep_as_stored(K, Km, precision)
            n = Km.shape[0]
            for i in range(n):  # symmetrization (check_gram allows 1e-10 asymmetry)
                for j in range(i + 1, n):
                    if Km[i, j] != Km[j, i]:  # a symmetric pair is kept as stored: (a + a) / 2 rounds an
                        Km[i, j] = Km[j, i] = (Km[i, j] + Km[j, i]) / 2  # entry finer than D digits
    else:
        Km = Kf
    return Kf, Km, ar


def _scale_gram(Kf: np.ndarray, Km: np.ndarray, ar: Arithmetic) -> Tuple[np.ndarray, np.ndarray, int]:
    """``(4^-k Kf, 4^-k Km, k)``, k of :func:`reference.arithmetic.gram_pow4_exponent` (exact in
    both arithmetics; k = 0 and K unchanged at ordinary scales).  m(4^-k K) = 2^-k m(K), and the
    witnesses alpha, p of 4^-k K are witnesses for K: both quotients min(K alpha)/||alpha||_K and
    ||p||_K / 1^T p scale by exactly 2^-k  [definition of m(K); RP14 Lemma 3]."""
    k = gram_pow4_exponent(Kf)
    if k == 0:
        return Kf, Km, 0
    Kf = np.ldexp(Kf, -2 * k)
    if not ar.is_mp:
        return Kf, Kf, k
    with ar.context():
        Km = np.array([mpmath.ldexp(x, -2 * k) for x in Km.ravel()], dtype=object).reshape(Km.shape)
    return Kf, Km, k


def _times_pow2(x, k: int, ar: Arithmetic, toward: int = 0):
    """x 2^k: exact in mpmath and in the normal float64 range; a float64 result that leaves it
    (subnormal, 0 or inf) is rounded toward -inf (``toward=-1``, for a lower bound), toward +inf
    (``toward=1``, an upper bound) or to nearest (``toward=0``, an estimate)."""
    if k == 0:
        return x
    if ar.is_mp:
        return mpmath.ldexp(x, k)
    with np.errstate(over="ignore", under="ignore"):
        y = float(np.ldexp(x, k))
        back = float(np.ldexp(y, -k))  # exact: y 2^-k is x or a float near it, never past the range
    if toward < 0 and back > x:
        return float(np.nextafter(y, -math.inf))
    if toward > 0 and back < x:
        return float(np.nextafter(y, math.inf))
    return y


def _unit_roundoff(ar: Arithmetic):
    """u (:attr:`reference.arithmetic.Arithmetic.u`): UNIT_ROUNDOFF = 2^-53 in float64 (round to
    nearest); 10^-dps (>= 2^-prec) in mpmath.  Pinned by tests/reference/margin/test_lower.py::test_unit_roundoff."""
    return ar.scalar(ar.u)


_gamma = gamma  # Higham's gamma_k, defined once in reference.arithmetic


# -- certificates -------------------------------------------------------------------------------


def _scaled(v: np.ndarray, ar: Arithmetic) -> np.ndarray:
    """A float64 witness times the power of two 2^-e that brings its largest |entry| into [1/2, 1)
    when that product is exact -- checked by the round trip returning ``v`` bit for bit (scaling up
    always is exact; scaling down is not when an entry would drop below the normal range); else ``v``.

    Both quotients min(K alpha)/||alpha||_K and ||p||_K / 1^T p are invariant under alpha -> c alpha,
    c > 0, but their a-priori round-off bounds assume no product underflows or overflows: for a tiny
    witness (1e-200) v^T K v would round to 0 and the bounds would claim -- falsely -- an infinite
    lower or a zero upper bound; for a huge one (1e200) it overflows and the bounds degrade to the
    useless 0 and inf.  An exact power-of-two scaling changes no rounding of K alpha or alpha^T K alpha
    while their products stay in the normal range, so on ordinary inputs the bounds are the same bits
    as without it."""
    return v if ar.is_mp else scaled_pow2_exact(v)


#: Below this a float64 product may have left the normal range (2^-1022, with a factor 2 to spare).
_TINY = 2.0**-1021


def _underflow(A: np.ndarray, v: np.ndarray, ar: Arithmetic, dot: bool = False):
    """The absolute round-off of one product of an entry of ``A`` and one of ``v`` that underflows:
    ``UNDERFLOW`` (>= 2^-1075, half the smallest subnormal) when some nonzero product
    A_ij v_j (``dot``: A_j v_j, elementwise) may fall below the normal range, else 0 -- always 0 in
    mpmath (no underflow).  The relative model of gamma assumes no product underflows; a
    Gram matrix of rows of very different norms (1 beside 1e-300) breaks it even after
    :func:`_scale_gram`.  Zero when no product is that small, so ordinary results keep their bits."""
    if ar.is_mp:
        return ar.scalar(0)
    A, v = np.abs(A), np.abs(v)
    with np.errstate(over="ignore", under="ignore"):  # an overflowing product is not tiny
        if dot:
            tiny = np.any((A > 0) & (v > 0) & (A * v < _TINY))
        else:
            tiny = np.min(A, where=A > 0, initial=np.inf) * np.min(v, where=v > 0, initial=np.inf) < _TINY
    return UNDERFLOW if tiny else 0.0


def _lower(K: np.ndarray, alpha: np.ndarray, ar: Arithmetic):
    """Certified lower bound min_i (K alpha)_i / ||alpha||_K, rounded down (or -inf)."""
    alpha = _scaled(alpha, ar)
    n = K.shape[0]
    u = _unit_roundoff(ar)
    g = 2 * _gamma(n + 2, ar)
    absa = np.abs(alpha)
    absK = np.abs(K)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is handled below: no claim
        Ka = K @ alpha
        # |fl(K alpha)_i - (K alpha)_i| <= e_i; + 2 (n + 1) eta: n products that underflow, and e's own
        e = g * (absK @ absa) + 2 * (n + 1) * _underflow(absK, absa, ar)
        N_lo = min(Ka - e)
        Q = alpha @ Ka
        eQ = 2 * (absa @ e + g * (absa @ np.abs(Ka)))
        eQ = eQ + 4 * (n + 1) * max(_underflow(absa, e, ar, dot=True), _underflow(absa, Ka, ar, dot=True))
        # inside the errstate: Ka - e is inf - inf (nan) when both overflowed, a handled case
        finite = ar.is_mp or (np.all(np.isfinite(Ka - e)) and math.isfinite(Q) and math.isfinite(eQ))
    if not finite:
        return -math.inf  # an overflow (a witness or K too large to scale exactly): no claim
    # The factor 1 -+ 8u covers the roundings left after the a-priori bounds e, eQ: Q +- eQ, the
    # sqrt, the division and the product itself, at most 4 roundings of relative size <= u, so
    # the computed quotient is within (1 +- u)^4, inside [1 - 8u, 1 + 8u] of the exact one (8u is
    # exact in binary).  Its direction follows the sign: a positive quotient is shrunk, a negative
    # one (smaller denominator sqrt(Q - eQ)) is pushed further down.  On ordinary inputs the
    # worst-case e, eQ hide the factor; tests/reference/margin/test_lower.py pins it at its edge by
    # switching the a-priori bounds off on integer inputs (exact products), where the factor alone
    # must keep the bound on the right side of the exact value.  Loosening it (1 - 9u) stays
    # rigorous and is not observable.  A quotient below the normal range has an absolute error
    # (<= 2^-1075 for the division and for the product): 2 eta more, only there (_TINY).
    if N_lo > 0:
        return _below_normal(N_lo / ar.sqrt(Q + eQ) * (1 - 8 * u), ar, -1)
    if Q - eQ > 0:
        r = N_lo / ar.sqrt(Q - eQ) * (1 + 8 * u)
        return r if N_lo == 0 else _below_normal(r, ar, -1)  # 0 / x is exact
    return -math.inf if not ar.is_mp else mpmath.ninf


def _below_normal(r, ar: Arithmetic, toward: int):
    """A float64 quotient r of a nonzero numerator that is below the normal range (even 0: it
    underflowed) moved by 2 UNDERFLOW toward -inf (``toward=-1``, a lower bound) or +inf (an upper
    bound): its division and its product may each have rounded by an absolute 2^-1075.  ``r``
    itself in the normal range and in mpmath."""
    if ar.is_mp or abs(r) >= _TINY:
        return r
    return r + toward * 2 * UNDERFLOW


def _upper(K: np.ndarray, p: np.ndarray, ar: Arithmetic):
    """Certified upper bound ||p||_K / (1^T p) for p >= 0, rounded up  [RP14 Lemma 3]."""
    p = _scaled(p, ar)
    n = K.shape[0]
    u = _unit_roundoff(ar)
    g = 2 * _gamma(n + 2, ar)
    absK = np.abs(K)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is handled below: no claim
        Kp = K @ p
        e = g * (absK @ p) + 2 * (n + 1) * _underflow(absK, p, ar)  # + products that underflow (_lower)
        Q_hi = p @ Kp + 2 * (p @ e + g * (p @ np.abs(Kp)))
        Q_hi = Q_hi + 4 * (n + 1) * max(_underflow(p, e, ar, dot=True), _underflow(p, Kp, ar, dot=True))
        s_lo = sum(p) * (1 - g)
    if not ar.is_mp and not (math.isfinite(Q_hi) and math.isfinite(s_lo)):
        return math.inf  # an overflow (a witness or K too large to scale exactly): no claim
    # 1 + 8u: the sqrt, the division and the product (<= 4 roundings of relative size <= u) after
    # the a-priori bounds Q_hi, s_lo -- pinned at its edge as in _lower.  Q_hi = 0 (exactly: no
    # product underflowed, or Q_hi would hold its allowance) gives the exact 0.
    if not Q_hi > 0:
        return ar.scalar(0)
    return _below_normal(ar.sqrt(Q_hi) / s_lo * (1 + 8 * u), ar, 1)


def _exact_lower(K: np.ndarray, alpha: np.ndarray, ar: Arithmetic):
    """min_i (K alpha)_i / ||alpha||_K rounded down, if (K alpha)_i > 0 for every i in exact
    rational arithmetic (K and alpha as stored); else ``None``.

    The value is positive and confirmed exactly (``ratio_at_least``): margin() reads it as a
    certified ``lower > 0``.  ``None`` also when no candidate within 64 steps of 4u below the
    float estimate is confirmed.  In the normal float64 range the estimate is within 3.5u above
    the quotient and two steps confirm it, so this happens only when N, Q or the quotient leave
    that range (a quotient below the smallest subnormal even rounds to 0, which certifies nothing).
    """
    N, Q = margin_witness_value(K, alpha)
    if not (N > 0 and Q > 0):
        return None
    if ar.is_mp:
        c = (ar.scalar(N.numerator) / ar.scalar(N.denominator)) / ar.sqrt(ar.scalar(Q.numerator) / ar.scalar(Q.denominator))
    else:
        c = float(N) / math.sqrt(float(Q))
    for _ in range(64):  # round down until the exact comparison confirms it
        c = c * (1 - 4 * ar.u)
        if c > 0 and ratio_at_least(N, Q, rational(c)):
            return c
    return None


def lower_bound(K, alpha, *, precision: Optional[int] = None):
    """Certified lower bound on the margin from a witness alpha  [definition of m(K)].

    Returns ``min_i (K alpha)_i / ||alpha||_K`` rounded down by an a-priori bound on the
    round-off of its evaluation, or ``-inf`` when ``||alpha||_K`` is not certified positive.

    Raises
    ------
    ValueError
        Bad K (or, with ``precision=None``, an object K that float64 cannot hold exactly), alpha
        of the wrong length or not finite, bad precision.
    """
    Kf, Km, ar = _prepare(K, precision)
    a = _check_vector("alpha", alpha, Kf.shape[0], ar)
    Kf, Km, k = _scale_gram(Kf, Km, ar)  # tiny / huge K: on 4^-k K, the bound scaled back by 2^k
    with ar.context():
        return _times_pow2(_lower(Km, a, ar), k, ar, toward=-1)


def upper_bound(K, p, *, precision: Optional[int] = None):
    """Certified upper bound ``||p||_K / (1^T p)`` on the margin, for p >= 0, p != 0  [RP14 Lemma 3].

    Raises
    ------
    ValueError
        Bad K (or, with ``precision=None``, an object K that float64 cannot hold exactly), p of
        the wrong length, negative, zero or not finite, bad precision.
    """
    Kf, Km, ar = _prepare(K, precision)
    q = _check_vector("p", p, Kf.shape[0], ar)
    if any(v < 0 for v in q) or not any(v > 0 for v in q):
        raise ValueError("p must be nonnegative and nonzero (a point of the simplex, up to scaling)")
    Kf, Km, k = _scale_gram(Kf, Km, ar)  # tiny / huge K: on 4^-k K, the bound scaled back by 2^k
    with ar.context():
        return _times_pow2(_upper(Km, q, ar), k, ar, toward=1)


def _check_vector(name: str, v, n: int, ar: Arithmetic) -> np.ndarray:
    """``v`` as n finite real coefficients: float64, or (precision mode) mpf at the working precision.

    A complex entry is refused, not cast (``float(np.complex128(1 + 1j))`` silently drops the
    imaginary part); anything ``float`` cannot take (None, an int beyond float64) is a ValueError
    naming ``name``.
    """
    entries = np.ravel(np.asarray(v, dtype=object)) if np.ndim(v) == 1 else None
    if entries is None or entries.shape[0] != n:
        raise ValueError(f"{name} must be a vector of length {n} (one entry per point), got shape {np.shape(v)}")
    try:
        if any(isinstance(x, (complex, np.complexfloating)) for x in entries):
            raise TypeError("a complex entry")
        vf = np.array([float(x) for x in entries])
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{name} must hold real numbers within float64 range ({exc}); pass a real vector") from None
    if not np.all(np.isfinite(vf)):
        raise ValueError(f"{name} contains NaN or inf; pass finite coefficients")
    with ar.context():
        return ar.array(entries) if ar.is_mp else vf  # the entries as given (an int stays exact)


# -- Wolfe's min-norm-point algorithm in Gram form ----------------------------------------------


def _kkt(KSS: np.ndarray, ar: Arithmetic):
    """Affine minimizer on S: solve [K_SS 1; 1^T 0][w; nu] = [0; 1]; return (w, lambda = -nu).

    w minimizes w^T K_SS w subject to 1^T w = 1, and lambda = w^T K_SS w  [RP14 Lemma 3 KKT].
    """
    m = KSS.shape[0]
    if not ar.is_mp:
        A = np.ones((m + 1, m + 1))
        A[:m, :m] = KSS
        A[m, m] = 0.0
        rhs = np.zeros(m + 1)
        rhs[m] = 1.0
        try:
            x = np.linalg.solve(A, rhs)
            if not np.all(np.isfinite(x)):
                raise np.linalg.LinAlgError
        except np.linalg.LinAlgError:
            x = np.linalg.lstsq(A, rhs, rcond=None)[0]
        return x[:m], -x[m]
    A = np.empty((m + 1, m + 1), dtype=object)
    A[:m, :m] = KSS
    A[:m, m] = A[m, :m] = ar.scalar(1)
    A[m, m] = ar.scalar(0)
    rhs = ar.zeros(m + 1)
    rhs[m] = ar.scalar(1)
    x = _solve_mp(A, rhs, ar)
    return np.array([x[i] for i in range(m)], dtype=object), -x[m]


def _affine_distance2_exact(KSS: np.ndarray) -> Optional[Fraction]:
    """The squared distance from the origin to the affine hull of the points S, in exact rational
    arithmetic (K_SS as stored): lambda = min {w^T K_SS w : 1^T w = 1} = 1 / (1^T K_SS^-1 1), the KKT
    value of :func:`_kkt` over Q; with B = [K_SS 1; 1^T 0], det B = -det K_SS 1^T K_SS^-1 1, so
    lambda = -det K_SS / det B (two fraction-free determinants).  ``None`` if K_SS is singular.

    Needed because lambda ~ delta^2 is ill-conditioned in floating point when the origin is near
    the facet: a D-digit solve carries an absolute error ~ 10^-D max K_ii, so sqrt(lambda) is off by
    ~ 10^-D max K_ii / delta, far beyond the 10^-D max||z_i|| the facet allowance grants."""
    m = KSS.shape[0]
    B = np.empty((m + 1, m + 1), dtype=object)
    B[:m, :m] = KSS
    B[:m, m] = B[m, :m] = 1
    B[m, m] = 0
    dK, dB = exact_det(KSS), exact_det(B)
    if dK == 0 or dB == 0:
        return None
    lam = -dK / dB
    return lam if lam > 0 else None


def _gauss_mp(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Gaussian elimination with partial pivoting on mpf lists (the exact fallback of :func:`_solve_mp`)."""
    m = A.shape[0]
    M = [list(A[i]) + [b[i]] for i in range(m)]
    for k in range(m):
        piv = max(range(k, m), key=lambda i: abs(M[i][k]))
        if M[piv][k] == 0:
            raise ZeroDivisionError("singular KKT matrix")
        M[k], M[piv] = M[piv], M[k]
        rk = M[k]
        for i in range(k + 1, m):
            f = M[i][k] / rk[k]
            if f != 0:
                M[i] = M[i][:k] + [a - f * c for a, c in zip(M[i][k:], rk[k:])]
    x = [None] * m
    for k in range(m - 1, -1, -1):
        x[k] = (M[k][m] - mpmath.fsum(M[k][j] * x[j] for j in range(k + 1, m))) / M[k][k]
    return np.array(x, dtype=object)


def _solve_mp(A: np.ndarray, b: np.ndarray, ar: Arithmetic) -> np.ndarray:
    """Solve A x = b at the working mpmath precision.

    Mixed-precision iterative refinement while it contracts: float64 solves of the residual
    b - A x, each entry by ``mpmath.fdot``: exact products, summed without rounding except that a
    term more than twice the working precision (in bits) below the running sum is dropped, then
    rounded once -- an error below ~n u^2 |A| |x| (``fdot([1e100, 1, -1e100])`` is 0 at 30 digits).
    A residual that accurate (not rounded at eps |A| |x|, as a working-precision product would
    be) makes the refinement converge to x within ~eps relative for every A whose float64
    factorization contracts (cond(A) u_64 well below 1; fast enough for the cap of 60 corrections
    below), however ill-conditioned A is at the working precision
    [Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Sec. 12.1: refinement with a
    residual in extra precision has limiting accuracy ~u].  So a correction that stops shrinking
    means float64 cannot factor A: Gaussian elimination at the working precision instead
    (:func:`_gauss_mp`).  A singular system falls back to the float64 least-squares solution.

    The rule, exactly: refinement returns x at once when its residual is exactly 0, else after the
    first correction dx with max|dx| / max(max|x|, 1e-300) <= 10 eps (eps = 10^-D); it hands over to elimination when a
    relative correction is more than a quarter of the previous one (a quarter exactly still
    contracts), or when 60 corrections have not reached 10 eps (a cap on the work; cond(A) ~ 1e15
    at 200 digits hits it, and elimination leaves ~cond eps).
    """
    Af = to_float(A)
    target = ar.eps * 10
    try:
        x = ar.array(np.linalg.solve(Af, to_float(b)))
        prev = None
        for _ in range(60):
            minus_x = [-v for v in x]
            res = np.array([mpmath.fdot([bi, *Ai], [1, *minus_x]) for Ai, bi in zip(A, b)])
            sc = max(abs(v) for v in res)
            if sc == 0:
                return x
            d = np.linalg.solve(Af, to_float(res / sc))
            dx = ar.array(d) * sc
            x = x + dx
            size = max(abs(v) for v in dx) / max(max(abs(v) for v in x), ar.scalar(1e-300))
            if size <= target:
                return x
            if prev is not None and size > prev / 4:
                break  # not contracting: float64 cannot factor A
            prev = size
    except np.linalg.LinAlgError:
        pass
    try:
        return _gauss_mp(A, b)
    except ZeroDivisionError:
        return ar.array(np.linalg.lstsq(Af, to_float(b), rcond=None)[0])


def _wolfe(K: np.ndarray, ar: Arithmetic, max_iter: int, start: Optional[np.ndarray] = None):
    """Wolfe's (1976) min-norm-point algorithm on the columns of K; returns (p, S, iters, converged).

    Major cycle: add j = argmin_i (K p)_i unless p^T K p - (K p)_j <= tol.  Minor cycle: move to
    the affine minimizer of S (:func:`_kkt`); if it leaves the simplex, step to the boundary and
    drop the points whose weight vanishes.
    """
    n = K.shape[0]
    zero, one = ar.scalar(0), ar.scalar(1)
    diag = [K[i, i] for i in range(n)]
    scale = max(diag)
    u = _unit_roundoff(ar)
    tol_abs = 64 * ar.scalar(n) * u * scale
    tol_rel = (ar.scalar(1e-13) if not ar.is_mp else 1000 * ar.scalar(n) * u)
    if start is None:
        j0 = min(range(n), key=lambda i: diag[i])
        S = [j0]
        p = ar.zeros(n)
        p[j0] = one
    else:
        p = start.copy()
        S = [i for i in range(n) if p[i] > 0]
    it, converged = 0, False
    while it < max_iter:
        it += 1
        Kp = K @ p
        q = p @ Kp
        j = min(range(n), key=lambda i: Kp[i])
        if q - Kp[j] <= tol_rel * abs(q) + tol_abs:
            converged = True
            break
        if j in S:  # round-off stall: the affine minimizer of S is not improved by its own points
            break
        S.append(j)
        first = True
        while it < max_iter:
            w, _ = _kkt(K[np.ix_(S, S)], ar)
            if all(x > 0 for x in w):
                p = ar.zeros(n)
                for k, i in enumerate(S):
                    p[i] = w[k]
                break
            it += 1
            pS = [p[i] for i in S]
            ratios = [(pS[k] / (pS[k] - w[k]), k) for k in range(len(S)) if w[k] <= 0]
            theta, kmin = min(ratios, key=lambda t: t[0])
            if first and S[kmin] == j and theta <= 0:
                break  # the new point would be dropped at once: round-off stall
            first = False
            new = [pS[k] + theta * (w[k] - pS[k]) for k in range(len(S))]
            new[kmin] = zero
            keep = [k for k in range(len(S)) if new[k] > 0]
            p = ar.zeros(n)
            for k in keep:
                p[S[k]] = new[k]
            S = [S[k] for k in keep]
        else:
            break
    # polish: the exact affine minimizer of the final support, if it is inside the simplex
    if S:
        w, _ = _kkt(K[np.ix_(S, S)], ar)
        if all(x > 0 for x in w):
            p = ar.zeros(n)
            for k, i in enumerate(S):
                p[i] = w[k]
    p = np.array([x if x > 0 else zero for x in p], dtype=p.dtype)
    p = p / sum(p)
    return p, tuple(int(i) for i in range(n) if p[i] > 0), it, converged


def _zero_tol(Kf: np.ndarray) -> float:
    """||p||_K^2 below this is 0 within the round-off of Wolfe's algorithm (64 n u max_i K_ii)."""
    return 64 * Kf.shape[0] * 2.0**-53 * float(np.max(np.diag(Kf)))


def _mnp(Kf: np.ndarray, Km: np.ndarray, ar: Arithmetic, max_iter: int) -> Tuple[MinNormPoint, bool]:
    """Wolfe in float64, then (precision mode) warm-started Wolfe at the chosen precision.

    Returns the min-norm point and whether its float64 norm is 0 within round-off (then the
    precision-mode refinement is skipped: the point is only converted).
    """
    p, S, it, conv = _wolfe(Kf, Arithmetic(None), max_iter)
    q = float(p @ (Kf @ p))
    is_zero = conv and q <= _zero_tol(Kf)
    if ar.is_mp:
        with ar.context():
            start = ar.array(p)
            if not is_zero:
                w, _ = _kkt(Km[np.ix_(list(S), list(S))], ar)
                if all(x > 0 for x in w):
                    start = ar.zeros(Kf.shape[0])
                    for k, i in enumerate(S):
                        start[i] = w[k]
                p, S, it2, conv = _wolfe(Km, ar, max(max_iter - it, 1), start=start)
                it += it2
            else:
                p = start / sum(start)
            qm = p @ (Km @ p)
            norm = ar.sqrt(qm if qm > 0 else ar.scalar(0))
    else:
        norm = math.sqrt(max(q, 0.0))
    return MinNormPoint(p=p, support=S, norm=norm, iterations=it, converged=conv, precision=ar.label), is_zero


def min_norm_point(K, *, precision: Optional[int] = None, max_iter: int = DEFAULT_MAX_ITER) -> MinNormPoint:
    """The min-norm point p* = argmin_{p in Delta_n} p^T K p of the hull of the points  [RP14 Lemma 3].

    Wolfe's min-norm-point algorithm in Gram form (exact support, then the KKT system on it);
    with ``precision=D`` the float64 support is re-solved and re-checked at D digits.
    ``||p*||_K`` is the margin when positive, and ~0 iff 0 is in the hull [RP14 Theorem 2];
    with a shifted Gram matrix it gives dist(q, W)-type distances.

    Parameters
    ----------
    K : array_like, shape (n, n)
        Symmetric PSD Gram matrix of the points (float64 or mpf entries).
    precision : int, optional
        mpmath decimal digits; ``None`` for float64.
    max_iter : int
        Budget of Wolfe cycles (major + minor).

    Raises
    ------
    ValueError
        K not square / symmetric / finite / PSD, K = 0, bad precision or max_iter.
    """
    max_iter = check_int("max_iter", max_iter, low=1)
    Kf, Km, ar = _prepare(K, precision, as_stored=False)  # an estimate, no certificate: rounding K is fine
    return _mnp(Kf, Km, ar, max_iter)[0]


# -- the infeasible case: facets of the hull inside the span -------------------------------------


def _span_coordinates(Kf: np.ndarray):
    """Points z_i in R^r with z_i . z_j = K_ij (r = numerical rank), and the map alpha(f).

    r counts the eigenvalues of K above n 1000 eps max(max eig, 0), eps = 2^-52 (strictly above).

    Returns ``(Z, V_r, s_r)``: Z = V_r diag(sqrt(s_r)) (rows are the z_i).  A direction f in
    R^r corresponds to alpha = V_r diag(s_r^-1/2) f, for which K alpha = Z f and
    ||alpha||_K = ||f||.
    """
    s, V = np.linalg.eigh(Kf)
    n = Kf.shape[0]
    tol = max(s[-1], 0.0) * (n * 1e3 * np.finfo(np.float64).eps)
    keep = s > tol
    s_r, V_r = s[keep], V[:, keep]
    return V_r * np.sqrt(s_r), V_r, s_r


def _origin_in_simplex(Z: np.ndarray, S: Tuple[int, ...]) -> bool:
    """0 is in the hull of the span points {z_i : i in S}: certified, not a float tolerance.

    Only a full simplex (|S| = r + 1 affinely independent points, e.g. Wolfe's support at a zero
    min-norm point) can hold 0 robustly.  Its barycentric weights p solve
    A p = e, A = [Z_S^T; 1^T], e = (0, ..., 0, 1); with c = fl(A p) - e the exact solution is
    within ||c + gamma_{r+2} (|A||p| + e)|| / sigma_min(A) of p, so every weight > 0 beyond that
    puts 0 in the hull  [RP14 Theorem 2: m <= 0].  sigma_min is lowered by (r+1) 64 u sigma_max to
    cover its own round-off.  The rule: True exactly when min(p) > 2 ||res||_2 / s_min, with
    res = |c| + gamma_{r+2} (|A||p| + e), gamma_k = k u / (1 - k u), u = 2^-53 and
    s_min = sigma_min - (r+1) 64 u sigma_max > 0 (the factor 2: slack for the rounding of the
    bound itself).  Exact for the span coordinates Z (the object of ``of='span'``).
    """
    r = Z.shape[1]
    if len(S) != r + 1:
        return False
    A = np.vstack([Z[list(S)].T, np.ones(r + 1)])
    e = np.zeros(r + 1)
    e[-1] = 1.0
    try:
        p = np.linalg.solve(A, e)
    except np.linalg.LinAlgError:
        return False
    sv = np.linalg.svd(A, compute_uv=False)
    u = 2.0**-53
    s_min = sv[-1] - (r + 1) * 64 * u * sv[0]
    if not (np.all(np.isfinite(p)) and s_min > 0):
        return False
    g = (r + 2) * u / (1 - (r + 2) * u)
    res = np.abs(A @ p - e) + g * (np.abs(A) @ np.abs(p) + e)
    return bool(np.min(p) > 2 * float(np.linalg.norm(res)) / s_min)


def _hyperplanes(Zs: np.ndarray, subsets: np.ndarray, tol_side: float):
    """Hyperplanes <a, z> = b through each r-subset of the rows of Zs (batched SVD).

    Returns, for the subsets that are affinely independent (sigma_min of [Z_T, -1] above 1e-9
    sigma_max, and the normal part a of the unit null vector (a, b) of norm above 1e-12) and
    support the hull (all points on one side within ``tol_side``, oriented so that
    <a, z_i> >= b - tol_side), the arrays ``(rows, a, b)``.
    """
    B, r = subsets.shape
    M = np.empty((B, r, r + 1))
    M[:, :, :r] = Zs[subsets]
    M[:, :, r] = -1.0
    _, sv, vh = np.linalg.svd(M, full_matrices=True)
    ok = sv[:, -1] > 1e-9 * sv[:, 0]
    null = vh[:, r, :]
    a, b = null[:, :r], null[:, r]
    na = np.linalg.norm(a, axis=1)
    ok &= na > 1e-12
    na[~ok] = 1.0
    a, b = a / na[:, None], b / na
    vals = Zs @ a.T - b  # (n, B)
    lo, hi = vals.min(axis=0), vals.max(axis=0)
    flip = (hi <= tol_side) & (lo < -tol_side)
    a[flip], b[flip] = -a[flip], -b[flip]
    supp = ok & ((lo >= -tol_side) | (hi <= tol_side))
    return np.flatnonzero(supp), a[supp], b[supp]


def _enumerate_facets(Zs: np.ndarray, r: int, tol_side: float, chunk: int = 8192):
    """Best supporting hyperplane (max b) over all r-subsets; returns (b, a, subset) or None.

    The subsets go to :func:`_hyperplanes` ``chunk`` at a time (memory); ties go to the first
    subset in ``itertools.combinations`` order, whatever the chunk.
    """
    nu = Zs.shape[0]
    best = None
    combos = itertools.combinations(range(nu), r)
    while True:
        block = np.fromiter(itertools.chain.from_iterable(itertools.islice(combos, chunk)), dtype=np.int64)
        if block.size == 0:
            break
        subsets = block.reshape(-1, r)
        rows, a, b = _hyperplanes(Zs, subsets, tol_side)
        if rows.size:
            k = int(np.argmax(b))
            if best is None or b[k] > best[0]:
                best = (float(b[k]), a[k], subsets[rows[k]])
    return best


def _local_search(Zs: np.ndarray, r: int, tol_side: float, budget: int, rng: np.random.Generator):
    """Heuristic best facet when enumeration is too expensive; returns (b, a, subset or None).

    min(budget, cap // 4) sampled r-subsets, smoothed ascent on the sphere of g(f) = min_i <f, z_i>
    from 32 random starts (polished to the hyperplane through the r most active points), then a
    pivoting walk on the facet graph: each round tries the r (n - r) single swaps of the best
    subset so far -- or, when they exceed the budget left, the swaps with the (cap - used) // (2 r)
    points nearest its hyperplane -- and stops when a round does not improve.  At most
    cap = max(2000, int(5e7 / (r^3 + n r))) hyperplanes are computed, so for large rank the search
    is coarse; they go to :func:`_hyperplanes` in blocks of int(4e6 // (r (r + 1) + n)) subsets
    (memory: about 4e6 numbers per block).  Whatever it finds is only a LOWER bound.
    """
    nu = Zs.shape[0]
    cap = max(2_000, int(5e7 / (r**3 + nu * r)))
    used = 0
    best = None

    def consider(subsets) -> bool:
        nonlocal best, used
        subsets = subsets[: max(cap - used, 0)]
        used += len(subsets)
        improved = False
        chunk = max(1, int(4e6 // (r * (r + 1) + nu)))
        for s in range(0, len(subsets), chunk):
            block = subsets[s : s + chunk]
            rows, a, b = _hyperplanes(Zs, block, tol_side)
            if rows.size:
                k = int(np.argmax(b))
                if best is None or best[2] is None or b[k] > best[0]:
                    best = (float(b[k]), a[k], block[rows[k]])
                    improved = True
        return improved

    consider(np.array([rng.choice(nu, r, replace=False) for _ in range(min(budget, cap // 4))], dtype=np.int64))
    # smoothed ascent from random directions; each direction is itself a lower-bound witness
    F = rng.standard_normal((32, r))
    F /= np.linalg.norm(F, axis=1, keepdims=True)
    for k in range(300):
        tau = 0.1 * 0.98**k
        V = F @ Zs.T
        W = np.exp(-(V - V.min(axis=1, keepdims=True)) / tau)
        W /= W.sum(axis=1, keepdims=True)
        grad = W @ Zs
        grad -= np.sum(grad * F, axis=1, keepdims=True) * F
        F = F + 0.05 * grad
        F /= np.linalg.norm(F, axis=1, keepdims=True)
    V = F @ Zs.T
    g = V.min(axis=1)
    if best is None:
        k = int(np.argmax(g))
        best = (float(g[k]), F[k], None)
    consider(np.sort(np.argsort(V, axis=1)[:, :r], axis=1))
    # pivoting walk on the facet graph
    while used < cap and best[2] is not None:
        T = best[2]
        others = np.setdiff1d(np.arange(nu), T)
        cand = np.repeat(T[None, :], r * len(others), axis=0)
        cand[np.arange(len(cand)), np.repeat(np.arange(r), len(others))] = np.tile(others, r)
        if len(cand) > cap - used:  # too many swaps: try those with the points nearest the facet first
            vals = Zs[others] @ best[1] - best[0]
            near = others[np.argsort(vals)[: max(1, (cap - used) // (2 * r))]]
            cand = np.repeat(T[None, :], r * len(near), axis=0)
            cand[np.arange(len(cand)), np.repeat(np.arange(r), len(near))] = np.tile(near, r)
        if len(cand) == 0 or not consider(cand):
            break
    return best


def _num(x, ar: Arithmetic):
    """A plain ``float`` in float64 mode, an ``mpmath.mpf`` otherwise."""
    return x if ar.is_mp else float(x)


# -- the margin --------------------------------------------------------------------------------



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
                w, mu = _kkt(Km[np.ix_(Tk, Tk)], ar)
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
                allowance = 64 * ar.scalar(n) * ar.scalar(value_u) * ar.scalar(scale)
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
