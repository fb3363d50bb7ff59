"""The infeasible case: facets of the hull of the points inside their span  [RP14 Theorem 3].

The margin of an infeasible K is -delta_max^rel, the distance from the origin to the nearest
facet of conv{z_i} in span coordinates [spec E-A3].  This module computes the geometry:
:func:`span_cut` (the eigenvalue cut of the numerical span), :func:`_span_coordinates` (points
z_i in R^r with z_i . z_j = K_ij), :func:`_hyperplanes` (the supporting hyperplanes through
r-subsets, batched SVD) and :func:`_enumerate_facets` (all r-subsets).  Its answers are float64
estimates: the driver takes the complete enumeration's best facet as ``upper = -delta_max`` only
with the round-off allowance of :func:`reference.margins.bounds._facet_allowance`, and the facet
normal only as a witness that :mod:`.bounds` evaluates.  (The local search used when enumeration
is too expensive lives in :mod:`.search`: it proposes a lower-bound witness and nothing else.)
"""

from __future__ import annotations

import itertools

import numpy as np

from ..arithmetic import MACHINE_EPS
from ..data import check_int, check_real


def span_cut(n: int, s_max: float) -> float:
    """The numerical span's eigenvalue cut: n 1000 eps max(s_max, 0), eps = 2^-52.

    Eigenvalues strictly above it span K_r, the object of ``margin(K, of='span')``; those at or
    below it are taken as round-off (the cut sits ~1000 times above the backward error of a
    symmetric eigensolver, n eps max eig).  ``n``: an integer >= 1; ``s_max``: a finite real (a
    nonpositive one gives 0).
    """
    n = check_int("n", n, low=1)
    s_max = float(check_real("s_max", s_max, hint="the largest eigenvalue of K"))
    return max(s_max, 0.0) * (n * 1e3 * MACHINE_EPS)


def _span_coordinates(Kf: np.ndarray):
    """Points z_i in R^r with z_i . z_j = K_ij (r = numerical rank), and the map alpha(f).

    r counts the eigenvalues of K above n 1000 eps max(max eig, 0), eps = 2^-52 (strictly above).

    Returns ``(Z, V_r, s_r)``: Z = V_r diag(sqrt(s_r)) (rows are the z_i).  A direction f in
    R^r corresponds to alpha = V_r diag(s_r^-1/2) f, for which K alpha = Z f and
    ||alpha||_K = ||f||.
    """
    s, V = np.linalg.eigh(Kf)
    n = Kf.shape[0]
    keep = s > span_cut(n, s[-1])
    s_r, V_r = s[keep], V[:, keep]
    return V_r * np.sqrt(s_r), V_r, s_r


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
