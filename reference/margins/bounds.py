"""The certified bounds on the margin m(K) of a Gram matrix: the trusted code.

Everything a :class:`~reference.margins.driver.Margin` claims rests on this module (and on the
matrix :mod:`.matrix` hands on); the searches of :mod:`.search` and :mod:`.facets` only propose
the witnesses it evaluates, and their correctness is irrelevant to the claim.  Each bound is
rigorous for K exactly as stored, with an a-priori bound on every rounding error of its own
evaluation (the standard model, Higham's gamma_n; the one unit round-off of
:mod:`reference.arithmetic`), or in exact rational arithmetic (:mod:`reference.exact`):

* :func:`_lower` / :func:`lower_bound`: any alpha with ||alpha||_K > 0 gives
  ``m >= min_i (K alpha)_i / ||alpha||_K``, rounded down  [definition of m(K)];
  :func:`_exact_lower` confirms a positive quotient exactly when the allowance cannot decide;
* :func:`_upper` / :func:`upper_bound`: any p >= 0, p != 0 gives ``m <= ||p||_K / (1^T p)``,
  rounded up  [RP14 Lemma 3, weak duality];
* :func:`_affine_distance2_exact`: the exact squared distance from the origin to a facet's
  affine hull, and :func:`_facet_allowance`, the round-off allowance of the facet bound
  ``upper = -delta_max + allowance``  [RP14 Theorem 3];
* :func:`_origin_in_simplex`: 0 certified inside a simplex of span points (m <= 0 for K
  restricted to its numerical span, [RP14 Theorem 2]);
* :func:`_times_pow2`: a bound of 4^-k K scaled back by 2^k, rounded in the bound's direction.

Public API (second tier): :func:`lower_bound`, :func:`upper_bound`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Optional, Tuple

import mpmath
import numpy as np

from ..arithmetic import NEAR_UNDERFLOW, UNDERFLOW, UNIT_ROUNDOFF, Arithmetic, gamma, scaled_pow2_exact
from ..exact import exact_det, margin_witness_value, ratio_at_least, rational
from .matrix import _prepare, _scale_gram

__all__ = ["lower_bound", "upper_bound"]


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
    nearest); 10^-dps (>= 2^-prec) in mpmath.  Pinned by tests/reference/margins/test_bounds.py::test_unit_roundoff."""
    return ar.scalar(ar.u)


_gamma = gamma  # Higham's gamma_k, defined once in reference.arithmetic


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
            tiny = np.any((A > 0) & (v > 0) & (A * v < NEAR_UNDERFLOW))
        else:
            tiny = np.min(A, where=A > 0, initial=np.inf) * np.min(v, where=v > 0, initial=np.inf) < NEAR_UNDERFLOW
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
    # worst-case e, eQ hide the factor; tests/reference/margins/test_bounds.py pins it at its edge by
    # switching the a-priori bounds off on integer inputs (exact products), where the factor alone
    # must keep the bound on the right side of the exact value.  Loosening it (1 - 9u) stays
    # rigorous and is not observable.  A quotient below the normal range has an absolute error
    # (<= 2^-1075 for the division and for the product): 2 eta more, only there (NEAR_UNDERFLOW).
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
    if ar.is_mp or abs(r) >= NEAR_UNDERFLOW:
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


def _affine_distance2_exact(KSS: np.ndarray) -> Optional[Fraction]:
    """The squared distance from the origin to the affine hull of the points S, in exact rational
    arithmetic (K_SS as stored): lambda = min {w^T K_SS w : 1^T w = 1} = 1 / (1^T K_SS^-1 1), the KKT
    value of :func:`reference.margins.search.kkt` over Q; with B = [K_SS 1; 1^T 0],
    det B = -det K_SS 1^T K_SS^-1 1, so lambda = -det K_SS / det B (two fraction-free determinants).
    ``None`` if K_SS is singular.

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


def _facet_allowance(n: int, u, scale, ar: Arithmetic):
    """The round-off allowance 64 n u max_i ||z_i|| of the facet bound ``-delta_max + allowance``
    [RP14 Theorem 3]: u = 2^-53 for the float64 offset of a facet's SVD, u = 10^-D for a facet
    re-solved at D digits from its exact squared distance (:func:`_affine_distance2_exact`);
    ``scale`` = max_i ||z_i|| in span coordinates."""
    return 64 * ar.scalar(n) * ar.scalar(u) * ar.scalar(scale)


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
    u = UNIT_ROUNDOFF
    s_min = sv[-1] - (r + 1) * 64 * u * sv[0]
    if not (np.all(np.isfinite(p)) and s_min > 0):
        return False
    g = (r + 2) * u / (1 - (r + 2) * u)
    res = np.abs(A @ p - e) + g * (np.abs(A) @ np.abs(p) + e)
    return bool(np.min(p) > 2 * float(np.linalg.norm(res)) / s_min)
