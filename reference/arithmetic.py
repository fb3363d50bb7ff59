"""The pluggable arithmetic: float64 (numpy) or mpmath at a chosen number of digits.

Every algorithm in :mod:`reference` is written once, against numpy arrays.  In float64 mode
those arrays hold ``numpy.float64``; in mpmath mode they are ``dtype=object`` arrays of
``mpmath.mpf`` and numpy's ``+ - * / @ argmin sort`` dispatch to mpmath.  The handful of
transcendental operations that numpy cannot dispatch (exp, log, sqrt) go through an
:class:`Arithmetic` object, and so do the shared building blocks of the papers:

* :func:`softmax`             -- the entropy-smoothed best response  [RP14 eq. (11)]
* :func:`project_simplex`     -- Euclidean projection onto Delta_n   [RP14 Sec. 5.3, "by sorting"]
* :func:`g_norm`              -- the G-seminorm ||alpha||_G = sqrt(max(alpha^T G alpha, 0))
* :func:`log_mean_exp`        -- mu log((1/n) sum exp(-v/mu)), the smoothed max  [RP14 L_mu]

and the round-off model every verifier uses: :data:`UNIT_ROUNDOFF` (u of IEEE binary64),
:func:`gamma` (Higham's gamma_k), :func:`quadratic_form` (p^T G p with a rigorous error bound)
and :func:`g_norm_upper` (a rigorous upper bound on ||p||_G for the G and p as stored;
:func:`factored_norm_upper` for G = Z Z^T held as Z).

This module is the *only* place where these concepts are implemented.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterator, Optional, Tuple

import mpmath
import numpy as np

__all__ = [
    "MACHINE_EPS",
    "UNIT_ROUNDOFF",
    "Arithmetic",
    "arithmetic",
    "softmax",
    "project_simplex",
    "g_norm",
    "log_mean_exp",
    "to_float",
    "UNDERFLOW",
    "NEAR_UNDERFLOW",
    "SMALLEST_NORMAL",
    "MIN_PRECISION",
    "MAX_PRECISION",
    "gamma",
    "quadratic_form",
    "g_norm_upper",
    "factored_norm_upper",
    "g_norm_floor",
    "factored_norm_floor",
    "pow2_exponent",
    "scale_rows_pow2",
    "rescale_pow2",
    "gram_pow4_exponent",
]

#: Smallest positive subnormal binary64: the absolute error of a product that underflows is
#: at most half of it, so ``UNDERFLOW`` bounds it generously.
UNDERFLOW = 2.0**-1074
#: Below this a float64 product may have left the normal range: the smallest normal binary64 is
#: 2^-1022, and NEAR_UNDERFLOW = 2^-1021 keeps a factor 2 to spare.  The certified bounds add an
#: absolute allowance (``UNDERFLOW`` per product) only when a product falls below it.
NEAR_UNDERFLOW = 2.0**-1021
#: Smallest positive normal binary64, 2^-1022: at and above it (and below overflow) a float
#: division or square root is correctly rounded to 53 bits, with no second rounding to the
#: subnormal grid.
SMALLEST_NORMAL = 2.0**-1022
#: ``precision=`` accepts D decimal digits with MIN_PRECISION <= D <= MAX_PRECISION: fewer digits
#: than float64 carries would round the user's matrix (and check the claim on the rounded one);
#: more than MAX_PRECISION makes every mpmath operation slow without a use.
MIN_PRECISION = 16
MAX_PRECISION = 1000


#: Machine epsilon of IEEE float64, 2^-52: the gap between 1 and the next float.
MACHINE_EPS = 2.0**-52
#: Unit round-off of IEEE float64 (round to nearest), u = 2^-53 = MACHINE_EPS / 2: the bound
#: |fl(x op y) - x op y| <= u |x op y| of the standard model, for +, -, *, /, sqrt away from
#: underflow  [Higham, Sec. 2.2].  The one definition of the project.
UNIT_ROUNDOFF = 2.0**-53


@dataclass(frozen=True)
class Arithmetic:
    """Float64 (``dps is None``) or mpmath arithmetic at ``dps`` decimal digits.

    Parameters
    ----------
    dps : int or None
        ``None`` for IEEE float64 through numpy; a positive integer for mpmath at that many
        decimal digits.  Use :meth:`context` around a computation so that mpmath works at
        ``dps`` digits.
    """

    dps: Optional[int] = None

    @property
    def is_mp(self) -> bool:
        return self.dps is not None

    @property
    def label(self) -> str:
        """Human-readable statement of the precision a result holds at."""
        return "float64" if self.dps is None else f"mpmath, {self.dps} decimal digits"

    @property
    def eps(self):
        """Machine epsilon of this arithmetic (2^-52 = 2u, or 10^-dps); used for tolerances."""
        if self.dps is None:
            return MACHINE_EPS
        return mpmath.mpf(10) ** (-self.dps)

    @property
    def u(self):
        """Unit round-off: :data:`UNIT_ROUNDOFF` in float64; 10^-dps >= 2^-prec in mpmath
        (mpmath rounds every operation correctly at its working precision)."""
        if self.dps is None:
            return UNIT_ROUNDOFF
        return mpmath.mpf(10) ** (-self.dps)

    @contextlib.contextmanager
    def context(self) -> Iterator["Arithmetic"]:
        """Run the body at this precision (a no-op in float64)."""
        if self.dps is None:
            yield self
        else:
            with mpmath.workdps(self.dps):
                yield self

    # -- conversion ---------------------------------------------------------------------------
    def array(self, x) -> np.ndarray:
        """Convert an array-like to this arithmetic's element type: exactly, except that float64 rounds
        what is not a float64, and mpmath rounds a Fraction or an int wider than the working precision."""
        if self.dps is None:
            return np.array(x, dtype=np.float64)
        a = np.asarray(x)
        out = np.empty(a.shape, dtype=object)
        flat = a.ravel()
        for i, v in enumerate(flat):
            if isinstance(v, (np.integer, np.floating)):
                v = v.item()  # int64, float32, ... as the Python number of the same value (mpf takes no numpy scalars)
            elif isinstance(v, Fraction):
                v = mpmath.mpf(v.numerator) / v.denominator  # rounded once, at the working precision
            out.flat[i] = v if isinstance(v, mpmath.mpf) else mpmath.mpf(v)
        return out

    def scalar(self, x):
        """Convert a number (int, float, Fraction-free str, mpf) to this arithmetic."""
        if self.dps is None:
            return float(x)
        return x if isinstance(x, mpmath.mpf) else mpmath.mpf(x)

    def zeros(self, n: int) -> np.ndarray:
        return self.array(np.zeros(n))

    def ones(self, n: int) -> np.ndarray:
        return self.array(np.ones(n))

    def unit(self, n: int, j: int) -> np.ndarray:
        """The j-th unit vector e_j of R^n."""
        e = self.zeros(n)
        e[j] = self.scalar(1)
        return e

    def uniform(self, n: int) -> np.ndarray:
        """The barycentre 1_n / n of the simplex."""
        return self.ones(n) / self.scalar(n)

    # -- elementary functions -----------------------------------------------------------------
    def exp(self, v):
        if self.dps is None:
            return np.exp(v)
        if isinstance(v, np.ndarray):
            return np.array([mpmath.exp(x) for x in v.ravel()], dtype=object).reshape(v.shape)
        return mpmath.exp(v)

    def log(self, v):
        if self.dps is None:
            return np.log(v)
        if isinstance(v, np.ndarray):
            return np.array([mpmath.log(x) for x in v.ravel()], dtype=object).reshape(v.shape)
        return mpmath.log(v)

    def sqrt(self, v):
        if self.dps is None:
            return np.sqrt(v)
        if isinstance(v, np.ndarray):
            return np.array([mpmath.sqrt(x) for x in v.ravel()], dtype=object).reshape(v.shape)
        return mpmath.sqrt(v)

    def floor(self, x) -> int:
        return int(np.floor(x)) if self.dps is None else int(mpmath.floor(x))


def arithmetic(precision: Optional[int] = None) -> Arithmetic:
    """Validate ``precision`` and return the matching :class:`Arithmetic`.

    ``precision`` below :data:`MIN_PRECISION` (16) digits is rejected rather than honoured: it
    would round the user's matrix to fewer digits than float64 holds, and a claim verified on
    the rounded matrix is not a claim about the one passed in.

    Raises
    ------
    ValueError
        If ``precision`` is not ``None`` or an integer in [MIN_PRECISION, MAX_PRECISION].
    """
    if precision is None:
        return Arithmetic(None)
    if (
        isinstance(precision, bool)
        or not isinstance(precision, (int, np.integer))
        or not MIN_PRECISION <= precision <= MAX_PRECISION
    ):
        raise ValueError(
            f"precision must be None (float64) or an integer number of decimal digits from "
            f"{MIN_PRECISION} (float64 carries about 16) to {MAX_PRECISION}, got {precision!r}; "
            "pass e.g. precision=50"
        )
    return Arithmetic(int(precision))


def to_float(v) -> np.ndarray | float:
    """Round an mpf scalar or array to float64 (identity on float64 input)."""
    if isinstance(v, np.ndarray):
        return v.astype(np.float64)
    return float(v)


def softmax(v: np.ndarray, ar: Arithmetic) -> np.ndarray:
    """softmax(v)_i = exp(v_i) / sum_j exp(v_j), evaluated stably (max subtracted).

    With ``v = -G alpha / mu`` this is the entropy-smoothed best response
    p_mu(alpha) of [RP14 eq. (11)].
    """
    z = ar.exp(v - np.max(v))
    return z / np.sum(z)


def log_mean_exp(v: np.ndarray, mu, ar: Arithmetic):
    """mu * log((1/n) sum_i exp(-v_i / mu)), evaluated stably.

    This is sup_{p in Delta_n} { -<v, p> - mu d(p) } with the entropy prox-function
    d(p) = sum p_i log p_i + log n  [RP14 eq. (12), smoothed loss L_mu].
    """
    m = np.min(v)
    n = ar.scalar(v.shape[0])
    return -m + mu * ar.log(np.sum(ar.exp(-(v - m) / mu)) / n)


def project_simplex(v: np.ndarray, ar: Arithmetic) -> np.ndarray:
    """Euclidean projection of ``v`` onto the simplex Delta_n, found by sorting.

    u := sort(v, descending); c_j := sum_{i<=j} u_i;
    r := max{ j : u_j - (c_j - 1)/j > 0 };  tau := (c_r - 1)/r;  Proj(v) := max(v - tau, 0).
    [RP14 Sec. 5.3; spec A.11]

    ``v`` is first shifted by its maximum: Proj(v - t 1_n) = Proj(v) for every t (tau shifts by
    t), and with u_1 = 0 the sums c_j - 1 keep the 1 at any scale (unshifted, |v_i| >= 2^53 made
    c_1 - 1 == c_1 in float64, and the result was 0_n, off the simplex).  The shift rounds v_i by
    at most u |v_i - max(v)|, at most u for every entry that ends up positive (within 1 of max(v)).
    """
    n = v.shape[0]
    v = v - np.max(v)  # Proj(v - max(v) 1_n) = Proj(v): u_1 = 0, no loss of the 1 in c_j - 1
    u = np.sort(v)[::-1]
    c = np.cumsum(u)
    one = ar.scalar(1)
    r = 0
    for j in range(n):  # r = max{ j : u_j - (c_j - 1)/j > 0 } (1-based j)
        if u[j] - (c[j] - one) / ar.scalar(j + 1) > 0:
            r = j
    tau = (c[r] - one) / ar.scalar(r + 1)
    zero = ar.scalar(0)
    return np.array([x - tau if x - tau > zero else zero for x in v], dtype=v.dtype)


def pow2_exponent(a) -> int:
    """The e with max|a| = m 2^e, 1/2 <= m < 1 (0 for an all-zero or empty ``a``): multiplying
    ``a`` by 2^-e (``np.ldexp(a, -e)``) is exact and brings its largest entry into [1/2, 1)."""
    a = np.asarray(a, dtype=np.float64)
    return int(_exponents(np.max(np.abs(a)) if a.size else 0.0))


def scaled_pow2_exact(v: np.ndarray) -> np.ndarray:
    """``v`` times the power of two 2^-e that brings its largest |entry| into [1/2, 1)
    (:func:`pow2_exponent`) when that product is exact -- checked by the round trip returning
    ``v`` bit for bit (scaling up always is exact; scaling down is not when an entry would drop
    below the normal range) -- else ``v`` unchanged.  For bounds invariant under positive scaling
    of a witness: it moves the witness away from underflow and overflow and changes no rounding
    while products stay in the normal range."""
    e = pow2_exponent(v)
    w = np.ldexp(v, -e)
    return w if np.array_equal(np.ldexp(w, e), v) else v


def _exponents(top):
    """The e with top = m 2^e, 1/2 <= m < 1, elementwise (0 where top is 0 or not finite)."""
    top = np.asarray(top, dtype=np.float64)
    return np.where(top > 0, np.frexp(top)[1], 0).astype(np.int64)


def row_pow2_exponents(A) -> np.ndarray:
    """The e_k with max_j |A_kj| = m 2^e_k, 1/2 <= m < 1, for every row k of the array
    ``A`` (read as float64) or scipy sparse matrix ``A`` (0 for a zero row): the factors of :func:`scale_rows_pow2`."""
    if hasattr(A, "tocsr"):
        A = A.tocsr()
        return _exponents(abs(A).max(axis=1).toarray().ravel())
    A = np.asarray(A, dtype=np.float64)
    return _exponents(np.max(np.abs(A), axis=1) if A.size else np.zeros(A.shape[0]))


def scale_rows_pow2(A):
    """Each row of the float64 array ``A`` (or scipy sparse matrix; either is read as float64, the
    sparse one returned as CSR) multiplied by the power of two that brings its largest |entry|
    into [1/2, 1).

    Exact for every entry that stays in the normal range after scaling (an entry far smaller than
    its row's largest, landing among the subnormals, can lose low bits there, or underflow to 0),
    and then it changes no direction: ``x_i / ||x_i||`` and every normalized quantity is the same,
    bit for bit, but squared norms and inner products can no longer overflow (||x||^2 for ||x|| >
    1.3e154) or underflow (||x|| < 1.5e-154).  Claims are judged on what the algorithms were given
    (the data, or an operator as stored), never on this scaled copy.
    """
    if hasattr(A, "tocsr"):  # sparse: the same factors, O(nnz)
        A = A.tocsr().astype(np.float64)  # a float64 copy, as the dense path reads A (np.asarray below)
        A.sum_duplicates()
        e = row_pow2_exponents(A)
        # each stored entry times 2^-e of its row by ldexp (exact), never through the factor 2^-e
        # itself, which overflows for a row whose largest entry is below 2^-1024
        A.data = np.ldexp(A.data, -np.repeat(e, np.diff(A.indptr)))
        return A
    A = np.asarray(A, dtype=np.float64)
    return np.ldexp(A, -row_pow2_exponents(A).reshape(-1, 1))


def rescale_pow2(A: np.ndarray, limit: int = 64) -> Tuple[np.ndarray, int]:
    """``(A 2^-e, e)``: float64 data at an extreme scale (largest |entry| outside
    [2^-limit, 2^limit)) brought to [1/2, 1) by a power of two; ``(A, 0)`` otherwise, and in mpmath
    (object arrays: no overflow).

    Algorithms whose decisions are invariant under a positive scaling of the data (the
    perceptrons, PDM; PFM with beta scaled alike) run on the scaled copy and never overflow
    (sums of k points stay below k sqrt(d)), while data at ordinary scales are untouched.
    """
    if isinstance(A, np.ndarray) and A.dtype == object:
        return A, 0
    e = pow2_exponent(A)
    if -limit <= e < limit:
        return A, 0
    return np.ldexp(A, -e), e


def gram_pow4_exponent(K: np.ndarray, limit: int = 64) -> int:
    """The k for which the float64 Gram matrix ``K`` is scaled by the power of four 4^-k
    (``np.ldexp(K, -2 k)``, exact): 0 at ordinary scales (largest |entry| in [2^-limit, 2^limit));
    otherwise the k that brings the largest |entry| into [1/4, 1), except that a huge K is scaled
    down only as far as its smallest nonzero |entry| stays normal (>= 2^-1022), so no bit is lost.
    Scaling up (a tiny K) is always exact.

    A power of four because K = Z Z^T times 4^-k is the Gram matrix of the points 2^-k Z: norms,
    distances and margins scale by exactly 2^-k (sqrt(4^-k) = 2^-k), so results on the scaled
    matrix are scaled back by 2^k without a rounding outside the subnormal range.  The scaled
    matrix keeps its products clear of underflow (entries ~1e-310: the relative round-off model
    of :func:`gamma` fails) and of overflow (entries ~1e308: K alpha overflows).
    """
    e = pow2_exponent(K)  # largest |entry| = m 2^e, 1/2 <= m < 1
    if -limit <= e < limit:
        return 0
    k = (e + 1) // 2  # e - 2k in {-1, 0}: the largest |entry| times 4^-k lies in [1/4, 1)
    if k > 0:
        a = np.abs(np.asarray(K, dtype=np.float64))
        f = int(np.frexp(np.min(a[a > 0]))[1])  # smallest nonzero |entry| >= 2^(f - 1)
        k = min(k, max((f + 1021) // 2, 0))  # 2^(f - 1 - 2k) >= 2^-1022: still normal, exact
    return k


def gamma(k: int, ar: Arithmetic):
    """Higham's gamma_k = k u / (1 - k u): |fl(x . y) - x . y| <= gamma_k |x| . |y| for a
    length-k dot product (Higham, *Accuracy and Stability*, Sec. 3.1)."""
    u = ar.u
    return ar.scalar(k) * u / (1 - ar.scalar(k) * u)


def quadratic_form(G: np.ndarray, p: np.ndarray, ar: Arithmetic):
    """``(Q, err)``: Q = fl(p^T (G p)) and a rigorous bound |Q - p^T G p| <= err.

    With c = fl(G p):  |c - G p| <= gamma_n |G| |p|  and  |fl(p^T c) - p^T c| <= gamma_n |p|^T |c|,
    so  |Q - p^T G p| <= gamma_n (|p|^T |G| |p| + |p|^T |c|).  The bound itself is evaluated in
    the same arithmetic; doubling it and using gamma_{n+2} covers that evaluation, and
    (4n + 4) * UNDERFLOW covers products that underflow (float64 only).  This is the error of
    p^T G p for the G and p *as stored* (the exact rationals that the floats are).
    """
    n = G.shape[0]
    c = G @ p
    Q = p @ c
    ap = np.abs(p)
    g = 2 * gamma(n + 2, ar)
    err = g * (ap @ (np.abs(G) @ ap) + ap @ np.abs(c))
    if not ar.is_mp:
        err = err + (4 * n + 4) * UNDERFLOW
    return Q, err


def g_norm_upper(G: np.ndarray, p: np.ndarray, ar: Arithmetic):
    """A rigorous upper bound on ||p||_G = sqrt(p^T G p) for the G and p as stored.

    sqrt(Q + err) of :func:`quadratic_form`, rounded up: the sum, the square root and the
    product by (1 + 4u) each round by at most a factor (1 +- u), so the result is >= the exact
    ||p||_G.  NaN propagates (a NaN bound certifies nothing: every ``<`` with it is False).
    """
    Q, err = quadratic_form(G, p, ar)
    hi = Q + err
    if hi != hi:  # NaN stays NaN
        return hi
    if not hi > 0:  # p^T G p <= Q + err, which rounded to <= 0: below the smallest subnormal
        hi = ar.scalar(0) if ar.is_mp else ar.scalar(UNDERFLOW)
    return ar.sqrt(hi) * (1 + 4 * ar.u)


def g_norm_floor(G: np.ndarray, ar: Arithmetic):
    """A lower bound, over every p of the simplex, on :func:`g_norm_upper`: below it no accuracy
    can be certified by the a-priori bound, whatever p is (the round-off floor of ||p||_G).

    :func:`quadratic_form`'s ``err`` is at least twice the true error bound
    gamma_n (|p|^T |G| |p| + |p|^T |c|), so Q + err >= p^T G p + gamma_n |p|^T |G| |p|
    >= gamma_n sum_i p_i^2 G_ii >= gamma_n / sum_i (1 / G_ii) on the simplex (Cauchy-Schwarz;
    G_ii > 0).  Returned rounded down, times (1 - (n + 8) u); 0 when some G_ii <= 0.
    """
    d = np.diag(G)
    if not all(v > 0 for v in d):
        return ar.scalar(0)
    inv = sum(1 / ar.scalar(v) for v in d)
    return ar.sqrt(gamma(G.shape[0], ar) / inv) * (1 - (G.shape[0] + 8) * ar.u)


def factored_norm_floor(Z) -> float:
    """A lower bound, over every p of the simplex, on :func:`factored_norm_upper` for G = Z Z^T:
    its err_j = 2 gamma_{n+2} (|Z|^T p)_j alone has 2-norm >= 2 gamma_{n+2} min_i ||z_i||_1 / sqrt(d)
    (a vector's 2-norm is at least its 1-norm over sqrt(d)).  Rounded down, times (1 - (n + d + 8) u)."""
    n, d = Z.shape
    rows = np.asarray(abs(Z) @ np.ones(d), dtype=np.float64).ravel()
    if rows.size == 0 or d == 0:
        return 0.0
    g = float(gamma(n + 2, Arithmetic(None)))
    return 2 * g * float(np.min(rows)) / float(np.sqrt(d)) * (1 - (n + d + 8) * UNIT_ROUNDOFF)


def factored_norm_upper(Z, p: np.ndarray) -> float:
    """A rigorous upper bound on ||p||_G = ||Z^T p||_2 for G = Z Z^T, with the n x d matrix ``Z``
    (scipy sparse or a float64 array) and the float64 vector ``p`` as stored  [RP14 Sec. 3].

    The float64 counterpart of :func:`g_norm_upper` for the linear kernel's operator (G never
    formed).  With c = fl(Z^T p), |c_j - (Z^T p)_j| <= gamma_n (|Z|^T |p|)_j + n UNDERFLOW (an
    n-term sum of products, each of which may underflow); the bound on that error is evaluated in
    float64 itself, so it is doubled and taken with gamma_{n+2}.  Then
    ||Z^T p|| <= ||a|| for a_j = |c_j| + err_j, and a, its squares, their d-term sum and the square
    root are each rounded up by a factor covering their own round-off.  NaN propagates (every
    ``<`` with it is False); an infinite bound certifies nothing.
    """
    n, d = Z.shape
    p = np.asarray(p, dtype=np.float64)
    ap = np.abs(p)
    c = np.asarray(Z.T @ p, dtype=np.float64).ravel()
    absZ = abs(Z)
    with np.errstate(over="ignore", invalid="ignore"):
        err = 2 * float(gamma(n + 2, Arithmetic(None))) * np.asarray(absZ.T @ ap, dtype=np.float64).ravel()
        err = err + (2 * n + 4) * UNDERFLOW
        a = (np.abs(c) + err) * (1 + 4 * UNIT_ROUNDOFF)  # >= |c_j| + err_j: two roundings up
        s = float(a @ a)
        hi = s * (1 + 2 * float(gamma(d + 2, Arithmetic(None)))) + (2 * d + 4) * UNDERFLOW
    if hi != hi:
        return hi
    return float(np.sqrt(hi)) * (1 + 4 * UNIT_ROUNDOFF)


def g_norm(G: np.ndarray, alpha: np.ndarray, ar: Optional[Arithmetic] = None):
    """The G-seminorm ||alpha||_G = sqrt(max(alpha^T G alpha, 0))  [RP14 Sec. 3].

    The ``max`` guards against round-off making the quadratic form slightly negative; a NaN form
    (a NaN entry, or ``None`` read as one) stays NaN, never 0.  Without ``ar`` the norm is computed
    in float64 and returned as a Python ``float``.
    """
    if ar is None:
        G, alpha = np.asarray(G, dtype=np.float64), np.asarray(alpha, dtype=np.float64)
        return float(g_norm(G, alpha, Arithmetic(None)))
    q = alpha @ (G @ alpha)
    if q != q:
        return q  # NaN: no norm (the max below would make it 0)
    return ar.sqrt(q if q > 0 else ar.scalar(0))
