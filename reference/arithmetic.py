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

This module is the *only* place where these concepts are implemented.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Iterator, Optional

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
]


#: Machine epsilon of IEEE float64, 2^-52: the gap between 1 and the next float.
MACHINE_EPS = 2.0**-52
#: Unit round-off of IEEE float64 (round to nearest), u = 2^-53 = MACHINE_EPS / 2: the bound
#: |fl(x op y) - x op y| <= u |x op y| of the standard model  [Higham, Sec. 2.2].
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
        """Unit round-off of this arithmetic (2^-52 or 10^-dps)."""
        if self.dps is None:
            return float(np.finfo(np.float64).eps)
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
        """Convert an array-like exactly to this arithmetic's element type."""
        if self.dps is None:
            return np.array(x, dtype=np.float64)
        a = np.asarray(x)
        out = np.empty(a.shape, dtype=object)
        flat = a.ravel()
        for i, v in enumerate(flat):
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

    Raises
    ------
    ValueError
        If ``precision`` is not ``None`` or a positive integer.
    """
    if precision is None:
        return Arithmetic(None)
    if isinstance(precision, bool) or not isinstance(precision, (int, np.integer)) or precision < 1:
        raise ValueError(
            f"precision must be None (float64) or a positive integer number of decimal digits, "
            f"got {precision!r}; pass e.g. precision=50"
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
    """
    n = v.shape[0]
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


def g_norm(G: np.ndarray, alpha: np.ndarray, ar: Optional[Arithmetic] = None):
    """The G-seminorm ||alpha||_G = sqrt(max(alpha^T G alpha, 0))  [RP14 Sec. 3].

    The ``max`` guards against round-off making the quadratic form slightly negative.  Without
    ``ar`` the norm is computed in float64 and returned as a Python ``float``.
    """
    if ar is None:
        G, alpha = np.asarray(G, dtype=np.float64), np.asarray(alpha, dtype=np.float64)
        return float(g_norm(G, alpha, Arithmetic(None)))
    q = alpha @ (G @ alpha)
    return ar.sqrt(q if q > 0 else ar.scalar(0))
