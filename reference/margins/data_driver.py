"""Certified max margins of a data set at scale: from X (dense or CSR), no n x n matrix.

Linear kernel.  The patterns are those of PT11 (:mod:`reference.patterns`),

    y_k = l_k [x_k, rho, Delta e_k]     (augmentation rho, reflection, extended space Delta),

or, with ``normalize=True``, RP14's normalized points y_k = l_k [x_k, rho] / ||[x_k, rho]||
(rho_2 of RP14 Sec. 2; = rho_K for the linear kernel).  The margin is

    gamma := max_{||u|| = 1} min_k u . y_k                               [PT11 eq. (1); RP14 Sec. 2]

As for a Gram matrix (:mod:`reference.margins`), an *untrusted search* produces witnesses
(:mod:`.data_search`) and a *trusted certification* evaluates them with an a-priori bound on
every rounding error (:mod:`.data_bounds`):

* any u with min_k u . y_k > 0 gives ``gamma >= min_k u . y_k / ||u||``  (definition);
* any beta >= 0, beta != 0 gives ``gamma <= ||sum_k beta_k y_k|| / sum_k beta_k``   [RP14 Lemma 3];
* a nonzero c >= 0 with sum_k c_k y_k = 0 *exactly* proves gamma <= 0: no u has u . y_k > 0 for
  every k (Gordan's alternative, [RP14 Lemma 6]).  It is checked in rational arithmetic (the
  float data are rationals) on a support of at most d + 2 points (Caratheodory).

This module is the driver: it validates the data, runs the searches (``Delta > 0``: semismooth
Newton on the L2-SVM, witnesses u = [v, l_k s_k], beta_k = s_k / Delta; no Delta: the Gordan LP,
else Wolfe's min-norm point in primal form, at most WOLFE_CYCLES_PER_DIM (d0 + 2) cycles, and its
polish at POLISH_DPS digits), certifies what they return and reports a :class:`DataMargin`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional, Tuple

import numpy as np
import scipy.sparse as sp

from ..arithmetic import row_pow2_exponents, scale_rows_pow2
from ..blas import one_thread
from ..data import check_real
from ..patterns import Patterns, make_patterns
from .data_bounds import _row_norm_bounds, certified_lower, certified_upper
from .data_search import POLISH_DPS, POLISH_MAX_DIM, _newton_l2svm, _polish_mp, _wolfe_primal, gordan_certificate

__all__ = ["DataMargin", "margin_from_data"]


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
