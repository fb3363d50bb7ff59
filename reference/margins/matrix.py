"""The matrix a certified margin is about: validation of K, its exact value, its exact scaling.

Part of the trusted code of :mod:`reference.margins` (with :mod:`.bounds`): every certificate
is a statement about the matrix this module hands on, so it must be K exactly as stored -- the
rationals its floats (or ints, or binary Fractions, or mpf) are -- never a rounded copy.

* :func:`_prepare` validates K and precision and returns K in float64 and in the chosen
  arithmetic; in float64 mode an entry float64 cannot hold is refused (the certificates would be
  about the rounded matrix), at D digits an exact int / binary Fraction entry is kept exact.
* :func:`_scale_gram` multiplies K by the power of four 4^-k that keeps every product of the
  certificates in the normal range (exact; m(4^-k K) = 2^-k m(K)).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Tuple

import mpmath
import numpy as np

from ..arithmetic import Arithmetic, arithmetic, gram_pow4_exponent, to_float
from ..data import check_gram
from ..exact import rational


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
