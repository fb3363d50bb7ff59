"""Instance families for the bounds explorer (:mod:`theorems.bounds`).

Every family turns a small, JSON-able *spec* ``{"family": NAME, "n": .., "d": .., "margin": ..,
"seed": .., ...}`` into an :class:`~theorems.instances.Instance`, deterministically (the same spec
gives the same bytes on every machine with the same numpy).  A spec is what a sweep task carries
across a process (or cluster) boundary, and what a case file stores besides the data itself.

Families (``FAMILIES``; ``margin`` is the planted quantity, see each docstring)
-------------------------------------------------------------------------------
==============  ==========  ===========================================================================
name            kind        what is planted / where it comes from
==============  ==========  ===========================================================================
``planted``     separable   normalized margin rho_K = rho_2 = rho, its support and the max-margin normal
                            (exact by construction); ``spread`` skews the centroid away from the optimum
``infeasible``  infeasible  delta_max = -rho_K planted exactly (2-D "thin polygon" + cross-polytope
                            prism, closed form); small delta_max = the Frank-Wolfe zig-zag regime
``regular``     infeasible  regular simplex (delta_max = 1/d) / cross-polytope (1/sqrt d) / m-gon
                            (cos(pi/m)) of :func:`theorems.strategies.planted_infeasible`
``wolfe``       infeasible  delta_max = 0: the origin is the midpoint of an edge of the hull, the
                            configuration of Wolfe (1970) on which Frank-Wolfe / von Neumann
                            zig-zag at the sublinear rate
``orthonormal`` separable   n orthonormal points (d = n): rho = rho_2 = rho_K = 1/sqrt(n), R = 1; the
                            textbook lower-bound instance for the Perceptron (Block-Novikoff attained)
``rings``       kernel      two noisy concentric rings, gaussian kernel (rho_K certified, not planted)
``moons``       kernel      two interleaving half circles, gaussian kernel (rho_K certified)
``poly``        kernel      XOR quadrants labelled sign(x_1 x_2), polynomial kernel of degree 2
``real``        real        a deterministic row subsample of a LIBSVM file in ``../shared/data``
                            (skipped when absent); linear, or gaussian with ``sigma``
``rp14_example`` separable  the worked example of RP14 Sec. 2.2 (rho_2 = sqrt 2/10, rho = rho_2/r)
``chord``       infeasible  the counterexample geometry of the printed RP14 Lemma 7 (E-A2): a chord at
                            distance h = ``margin`` from 0, three far points below, exact rationals
``circle``      infeasible  n seeded random points on the unit circle (a generic start for searches)
``explicit``    any         the data themselves (``X``, ``y``, ``kernel``, ``params`` in the spec);
                            what the local search and the case files produce
==============  ==========  ===========================================================================

Sources of the hard families
----------------------------
* ``orthonormal`` -- online learning of halfspaces with margin gamma: on n = 1/gamma^2 orthonormal
  points every presentation before the last of a point is a mistake, for any labels and any order
  (w is a combination of the other points, orthogonal to it, so y <w, x> = 0 <= 0).  This is the
  classical argument that the Block (1962) / Novikoff (1962) bound R^2/rho^2 cannot be improved
  (see e.g. S. Shalev-Shwartz, *Online Learning and Online Convex Optimization*, FnT ML 2012,
  the lower bound for margin-based online classification).  It also makes NKP and the
  Normalized Perceptron take exactly 1/rho^2 steps (each step adds a vertex orthogonal to the
  running average).
* ``wolfe`` / ``infeasible`` with small delta_max -- P. Wolfe, *Convergence theory in nonlinear
  programming*, in Integer and Nonlinear Programming (1970), and M. Canon, C. Cullum, SIAM J.
  Control 6 (1968): when the minimizer of a quadratic over a polytope lies in the relative interior
  of a face (here: the min-norm point 0 of conv{z_i} on an edge), the Frank-Wolfe iterates zig-zag
  between the vertices of that face and converge only at rate Theta(1/k) in the objective.  Von
  Neumann's algorithm is Frank-Wolfe on min ||Z^T p||^2 (Nesterov's remark, RP14 Sec. 1.1; spec
  A.9), so ||w_k|| ~ c/sqrt(k) and the 1/eps^2 bound of NVN is approached up to the constant c.
  With 0 < delta_max small the rate is linear (Epelman-Freund 2000) with a constant ~ delta_max^2,
  which interpolates between the two regimes.
* ``rp14_example`` -- RP14 Sec. 2.2 (Novikoff's bound is loose by r^4 against the normalized one).
* ``chord`` -- erratum E-A2 (the printed RP14 Lemma 7 is false): the ratio
  |rho_K| dist(q, W)/||q||_G is constant along rays from the projection of q onto W, so its sup is
  approached as q -> W; a chord through (almost) the origin puts its midpoint q next to W, and the
  only way from q into W is to move mass onto far points.  Limit analysis: three far points at
  270 deg and 270 +- 58.16 deg give 1.0357712 (more far points do not help; two give 1).

Known values are put in ``Instance.known`` with the same keys as :mod:`theorems.strategies`
(``rho_K``, ``rho_2``, ``rho``, ``R``, ``support``, ``u``, ``delta_max``, ``feasible``).
"""

from __future__ import annotations

import math
import os
from functools import lru_cache
from pathlib import Path
from fractions import Fraction
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

import reference

from .. import paper_bounds
from .instance import Instance, _random_rotation, _unit


__all__ = [
    "FAMILIES",
    "Family",
    "make_instance",
    "explicit_spec",
    "planted",
    "thin_infeasible",
    "wolfe",
    "orthonormal",
    "rings",
    "moons",
    "xor_poly",
    "real_data",
    "data_dir",
    "REAL_DATASETS",
    "chord",
    "circle",
    "rational_unit",
    "rationalize",
]


# -- planted separable ----------------------------------------------------------------------------


def planted(n: int, d: int, rho: float, seed: int = 0, *, spread: float = 1.0, radius: float = 1.0,
            n_support: Optional[int] = None) -> Instance:
    """Separable data with a PLANTED normalized margin ``rho`` (and support, and max-margin normal).

    Reflected points z_i = y_i x_i, built around a random unit normal u and a random unit e in u^perp:

    * support (m points): v_2..v_m = unit(e + spread * g_j) with g_j random Gaussian in u^perp, and
      v_1 = -s/||s|| with s = sum_{j>=2} c_j v_j (c_j in [0.2, 1]), so that c_1 v_1 + sum c_j v_j = 0
      with c_1 = ||s|| > 0: the origin is in the relative interior of conv{v_i};
      z_i = rho u + sqrt(1 - rho^2) v_i  (unit norm, <u, z_i> = rho);
    * the others: z_j = t_j u + sqrt(1 - t_j^2) v_j, t_j in [rho + 0.02 (1 - rho), 1), v_j =
      unit(e + spread * g_j) (the same skew), scaled by a factor in [1, radius].

    Claim: min_{p in simplex} ||Z^T p|| = rho, attained at rho u (the c-weighted support average),
    so rho_2 = rho_K = rho and w* = u (proof of :func:`theorems.strategies.planted_separable`: every
    convex combination has <u, .> >= rho).  The support points have unit norm and the others norm
    >= 1 with <u, z/||z||> = t_j > rho, so also the *unnormalized* margin is rho and R = max norm.

    Small ``spread`` puts almost every point on the side of e, so the centroid (SNKP's alpha_0,
    NVN's p_0) is far from the optimum and 1_n/n is *not* a separator when rho^2 < (1 - rho^2)
    (m - 2)/m; large ``spread`` gives isotropic directions (as in the strategies).
    """
    if d < 2:
        raise ValueError("planted needs d >= 2")
    if not 0 < rho < 1:
        raise ValueError(f"planted margin rho must lie in (0, 1), got {rho!r}")
    n = int(n)
    m = int(n_support) if n_support is not None else max(2, min(n, d))
    m = min(max(m, 2), n) if n >= 2 else 1
    if n < 2:
        raise ValueError("planted needs n >= 2")
    rng = np.random.default_rng(seed)
    Q = _random_rotation(d, rng)
    u, perp = Q[:, 0], Q[:, 1:]
    k = d - 1

    def skewed() -> np.ndarray:
        if k == 1:
            return np.array([1.0])
        g = rng.standard_normal(k)
        g[0] = 0.0
        v = np.zeros(k)
        v[0] = 1.0
        return _unit(v + spread * g)

    if k == 1:
        Vs = np.ones((m, 1))
        Vs[0, 0] = -1.0
    else:
        for _ in range(1000):
            W = np.array([skewed() for _ in range(m - 1)])
            c = rng.uniform(0.2, 1.0, m - 1)
            s = c @ W
            if np.linalg.norm(s) > 1e-3:
                break
        Vs = np.vstack([-_unit(s), W])
    sq = math.sqrt(1.0 - rho * rho)
    Zs = rho * u[None, :] + sq * (Vs @ perp.T)
    n_other = n - m
    t = rng.uniform(rho + 0.02 * (1 - rho), 1.0, n_other)
    Zo = np.zeros((n_other, d))
    for j in range(n_other):
        v = perp @ skewed()
        Zo[j] = t[j] * u + math.sqrt(max(1.0 - t[j] ** 2, 0.0)) * v
        Zo[j] *= rng.uniform(1.0, max(1.0, float(radius)))
    Z = np.vstack([Zs, Zo])
    perm = rng.permutation(n)
    Z = Z[perm]
    support = tuple(sorted(int(np.flatnonzero(perm == i)[0]) for i in range(m)))
    y = np.where(rng.random(n) < 0.5, -1, 1).astype(np.int64)
    X = Z * y[:, None]
    R = paper_bounds.radius(X)
    known = {"rho_K": float(rho), "rho_2": float(rho), "rho": float(rho), "R": R, "support": support,
             "u": tuple(float(x) for x in u), "feasible": True}
    flags = ["separable", "planted", "ties"] + (["unit"] if radius <= 1 else [])
    name = f"planted(n={n},d={d},rho={rho:.4g},spread={spread:g},radius={radius:g},seed={seed})"
    return Instance(name=name, X=X, y=y, known=known, flags=tuple(flags))


# -- planted infeasible ---------------------------------------------------------------------------


def thin_infeasible(n: int, d: int, delta: float, seed: int = 0) -> Instance:
    """Infeasible unit-norm data with a PLANTED delta_max = ``delta`` (so rho_K = -delta).

    In a plane: unit vectors at angles 0 and g = 2 arccos(delta') (the largest angular gap) and
    n_2 - 2 more at angles in (g, 2 pi) with every gap < g.  The hull of unit vectors in the plane
    is a polygon whose edge between neighbours at angular distance a lies at distance cos(a/2)
    from 0, so its inradius about 0 is cos(g/2) = delta'.  For d > 2 add +-e_3, ..., +-e_d: the
    support function of the union is h(w) = max(||w_12|| h_P(w_12/||w_12||), max_k |w_k|), whose
    minimum over the unit sphere is delta'/sqrt(1 + (d-2) delta'^2) (equalize delta' a = |w_k|,
    a^2 + (d-2) w_k^2 = 1).  We pick delta' = delta/sqrt(1 - (d-2) delta^2) so that this is
    ``delta`` (requires (d-2) delta^2 < 1).  Random rotation, random labels, random norms in
    [0.5, 2] (G normalizes them away).  delta -> 0: 0 tends to the midpoint of the long edge,
    the Frank-Wolfe zig-zag of :func:`wolfe`.
    """
    if d < 2:
        raise ValueError("thin_infeasible needs d >= 2")
    if not 0 <= delta < 1:
        raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
    if (d - 2) * delta * delta >= 1:
        raise ValueError(f"delta={delta} too large for d={d}: need (d-2) delta^2 < 1")
    rng = np.random.default_rng(seed)
    dp = delta / math.sqrt(1.0 - (d - 2) * delta * delta)
    g = 2.0 * math.acos(dp)
    n2 = max(3, int(n) - 2 * (d - 2), int(math.ceil((2 * math.pi - g) / g)) + 3)
    # n_2 - 2 extra angles evenly spaced in (g, 2 pi) (gap e < g), each jittered by less than
    # half of min(e, g - e): every other gap stays in (0, g), so g is the unique largest gap.
    e = (2 * math.pi - g) / (n2 - 1)
    jit = 0.45 * min(e, g - e)
    extra = g + e * np.arange(1, n2 - 1) + rng.uniform(-jit, jit, n2 - 2)
    ang = np.concatenate([[0.0, g], extra])
    P2 = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    P = np.zeros((n2 + 2 * (d - 2), d))
    P[:n2, :2] = P2
    for k in range(d - 2):
        P[n2 + 2 * k, 2 + k] = 1.0
        P[n2 + 2 * k + 1, 2 + k] = -1.0
    P = P @ _random_rotation(d, rng).T
    P = P[rng.permutation(P.shape[0])]
    nn = P.shape[0]
    y = np.where(rng.random(nn) < 0.5, -1, 1).astype(np.int64)
    X = P * y[:, None] * rng.uniform(0.5, 2.0, nn)[:, None]
    known = {"delta_max": float(delta), "rho_K": -float(delta), "feasible": False,
             "R": paper_bounds.radius(X)}
    name = f"infeasible(n={nn},d={d},delta={delta:.4g},seed={seed})"
    return Instance(name=name, X=X, y=y, known=known, flags=("infeasible", "planted"))


def wolfe(n: int, d: int, seed: int = 0, *, height: float = 1.0) -> Instance:
    """The origin at the midpoint of an edge of the hull: delta_max = 0 (rho_K = 0, infeasible).

    Reflected points a = e_1, b = -e_1 (the edge through 0) and n - 2 "distractors" in the open
    half space <e_2, z> > 0 at random angles in (0.05 pi, 0.95 pi) of the (e_1, e_2) plane, lifted
    into d dimensions by a small random component (height scales the e_2-part).  Gordan case 2
    holds (0 = (a + b)/2), and 0 is on the relative boundary of the hull, so delta_max = 0:
    Frank-Wolfe / von Neumann from p_0 = 1_n/n zig-zags between a and b while the weight of the
    distractors decays like 1/k (Wolfe 1970; Canon-Cullum 1968).
    """
    rng = np.random.default_rng(seed)
    n = max(3, int(n))
    d = max(2, int(d))
    Z = np.zeros((n, d))
    Z[0, 0], Z[1, 0] = 1.0, -1.0
    for i in range(2, n):
        th = rng.uniform(0.05 * math.pi, 0.95 * math.pi)
        v = np.zeros(d)
        v[0], v[1] = math.cos(th), height * math.sin(th)
        if d > 2:
            v[2:] = 0.1 * rng.standard_normal(d - 2)
        Z[i] = _unit(v)
    Z = Z @ _random_rotation(d, rng).T
    perm = rng.permutation(n)
    Z = Z[perm]
    y = np.where(rng.random(n) < 0.5, -1, 1).astype(np.int64)
    X = Z * y[:, None]
    known = {"delta_max": 0.0, "rho_K": 0.0, "feasible": False, "R": 1.0}
    return Instance(name=f"wolfe(n={n},d={d},h={height:g},seed={seed})", X=X, y=y, known=known,
                    flags=("infeasible", "zero_margin", "unit"))


# -- hard separable -------------------------------------------------------------------------------


def orthonormal(n: int, seed: int = 0, *, rotate: bool = False) -> Instance:
    """n orthonormal points (d = n), random labels: rho = rho_2 = rho_K = 1/sqrt(n), R = 1.

    The min-norm point of conv{e_i} is 1_n/n, of norm 1/sqrt(n); all n points are support points.
    Every Perceptron / NKP / Normalized-Perceptron step on a not-yet-used point is a "mistake"
    (the current w is orthogonal to it), so all three take exactly n = R^2/rho^2 = 1/rho^2 steps.
    """
    rng = np.random.default_rng(seed)
    if rotate:  # a random rotation: orthonormal only up to round-off (ties y<w, x> = 0 become +-1e-17)
        Z = _random_rotation(n, rng)
    else:  # a random signed permutation: exactly orthonormal, so the ties are exact
        Z = np.eye(n)[rng.permutation(n)] * np.where(rng.random(n) < 0.5, -1.0, 1.0)[:, None]
    y = np.where(rng.random(n) < 0.5, -1, 1).astype(np.int64)
    X = Z * y[:, None]
    r = 1.0 / math.sqrt(n)
    u = _unit(np.sum(Z, axis=0))
    known = {"rho_K": r, "rho_2": r, "rho": r, "R": 1.0, "support": tuple(range(n)),
             "u": tuple(float(x) for x in u), "feasible": True}
    return Instance(name=f"orthonormal(n={n},seed={seed})", X=X, y=y, known=known,
                    flags=("separable", "unit", "ties"))


# -- kernel families ------------------------------------------------------------------------------


def rings(n: int, seed: int = 0, *, gap: float = 0.5, noise: float = 0.1, sigma: float = 0.5) -> Instance:
    """Two concentric noisy rings in the plane (radius 1 labelled +1, radius 1 + gap labelled -1),
    gaussian kernel with ``sigma``.  Separable only through the kernel; rho_K certified by
    :func:`reference.margin` (distinct points give a positive definite G, so rho_K > 0)."""
    rng = np.random.default_rng(seed)
    n = max(2, int(n))
    k = n // 2
    a1 = rng.uniform(0, 2 * math.pi, k)
    a2 = rng.uniform(0, 2 * math.pi, n - k)
    r1 = 1.0 + noise * rng.standard_normal(k)
    r2 = 1.0 + gap + noise * rng.standard_normal(n - k)
    X = np.vstack([np.c_[r1 * np.cos(a1), r1 * np.sin(a1)], np.c_[r2 * np.cos(a2), r2 * np.sin(a2)]])
    y = np.r_[np.ones(k, int), -np.ones(n - k, int)].astype(np.int64)
    perm = rng.permutation(n)
    return Instance(name=f"rings(n={n},gap={gap:g},sigma={sigma:g},seed={seed})", X=X[perm], y=y[perm],
                    kernel="gaussian", params={"sigma": float(sigma)}, flags=("kernel", "gaussian"))


def moons(n: int, seed: int = 0, *, noise: float = 0.1, sigma: float = 0.5) -> Instance:
    """Two interleaving half circles (the 'moons' of scikit-learn, re-implemented), gaussian kernel."""
    rng = np.random.default_rng(seed)
    n = max(2, int(n))
    k = n // 2
    t1 = rng.uniform(0, math.pi, k)
    t2 = rng.uniform(0, math.pi, n - k)
    A = np.c_[np.cos(t1), np.sin(t1)]
    B = np.c_[1 - np.cos(t2), 0.5 - np.sin(t2)]
    X = np.vstack([A, B]) + noise * rng.standard_normal((n, 2))
    y = np.r_[np.ones(k, int), -np.ones(n - k, int)].astype(np.int64)
    perm = rng.permutation(n)
    return Instance(name=f"moons(n={n},noise={noise:g},sigma={sigma:g},seed={seed})", X=X[perm], y=y[perm],
                    kernel="gaussian", params={"sigma": float(sigma)}, flags=("kernel", "gaussian"))


def xor_poly(n: int, seed: int = 0, *, gap: float = 0.1, degree: int = 2, c: float = 1.0) -> Instance:
    """XOR quadrants: points of [-1, 1]^2 with |x_1|, |x_2| >= gap, labelled sign(x_1 x_2);
    separable by the degree-2 polynomial kernel (the feature x_1 x_2), not linearly."""
    rng = np.random.default_rng(seed)
    n = max(2, int(n))
    X = rng.uniform(gap, 1.0, (n, 2)) * np.where(rng.random((n, 2)) < 0.5, -1.0, 1.0)
    y = np.sign(X[:, 0] * X[:, 1]).astype(np.int64)
    return Instance(name=f"poly_xor(n={n},gap={gap:g},degree={degree},seed={seed})", X=X, y=y,
                    kernel="polynomial", params={"degree": int(degree), "c": float(c)}, flags=("kernel", "polynomial"))


# -- real data ------------------------------------------------------------------------------------

REAL_DATASETS = {  # folder -> (file, n_features)
    "heart_scale": ("heart_scale", 13),
    "breast-cancer_scale": ("breast-cancer_scale", 10),
    "ionosphere": ("ionosphere", 34),
    "sonar": ("sonar", 60),
    "a1a": ("a1a", 123),
    "svmguide3": ("svmguide3.gz", 21),
    "wdbc": ("wdbc", 30),
    "svmguide1": ("svmguide1", 4),
}


def rational_unit(v: Sequence[float], den: int = 10**9) -> List[Fraction]:
    """A unit vector with rational coordinates next to the unit vector ``v/||v||`` (d >= 2): the
    inverse stereographic projection of rationals, ``x = ((1 - |u|^2), 2u)/(1 + |u|^2)`` (pole -e_1,
    used when v_1 >= 0) or ``(-(1 - |u|^2), 2u)/(1 + |u|^2)`` (pole +e_1), with ``u`` the projection
    of v rounded to denominator ``den``.  ||x|| = 1 exactly, and |x - v/||v||| = O(1/den)."""
    v = np.asarray(v, dtype=np.float64)
    v = v / np.linalg.norm(v)
    sgn = 1 if v[0] >= 0 else -1
    u = [Fraction(round(float(c) / (1 + sgn * float(v[0])) * den), den) for c in v[1:]]
    s = sum((c * c for c in u), Fraction(0))
    return [sgn * (1 - s) / (1 + s)] + [2 * c / (1 + s) for c in u]


def rationalize(inst: Instance, den: int = 10**9) -> Instance:
    """The instance with every point replaced by a nearby rational unit vector (:func:`rational_unit`;
    labels kept), ``known["exact_X"]`` holding the exact rows as ``"p/q"`` strings and ``X`` their
    floats, so that the exact Lemma 7 decisions of :mod:`theorems.rp14` apply.  Linear kernel,
    d >= 2 only (RP14 normalizes the points, so only their directions matter)."""
    if inst.kernel != "linear" or inst.d < 2:
        raise ValueError("rationalize needs linear data with d >= 2")
    rows = [rational_unit(x, den) for x in np.asarray(inst.X, dtype=np.float64)]
    known = {k: v for k, v in inst.known.items() if k in ("lemma7_q",)}
    known["exact_X"] = [[str(c) for c in r] for r in rows]
    X = np.array([[float(c) for c in r] for r in rows])
    return Instance(f"{inst.name}~rational(1/{den})", X, np.asarray(inst.y), known=known,
                    flags=tuple(sorted(set(inst.flags) | {"rational"})))


def chord(n: int = 8, h: float = 0.002, spread: float = 1.0150835, seed: int = 0, *, den: int = 10**8) -> Instance:
    """The geometry that refutes the printed RP14 Lemma 7 (erratum E-A2 and its
    limit analysis): unit-circle points with rational coordinates, all labels +1 --
    a chord x_0 x_1 passing at distance ``h`` from the origin (angles asin(h) and pi - asin(h)),
    three far points below it at 270 deg and 270 deg +- ``spread`` (radians; 58.16 deg is optimal,
    default), and ``n - 5`` points spread evenly over the upper half circle (they only make
    delta_max large; W does not use them).  ``known["lemma7_q"]`` is the chord's midpoint
    q = (e_0 + e_1)/2: the projection of q onto W moves mass onto the far points, and
    |rho_K| dist(q, W)/||q||_G -> 1.0357712 as h -> 0 (1.03338 at h = 0.002, the 8-point
    counterexample; > 1 for h < ~0.03).  At h = 2e-8 (n = 8) the exact ratio is 1.0357711670, the
    best lower bound on the sharp constant of the corrected Lemma 7 found so far.  ``seed`` rotates
    nothing (the data are exact).  Coordinates: t = tan(angle/2) rounded to denominator ``den`` (the chord's
    to 10^-9 h), x = ((1 - t^2), 2t)/(1 + t^2), so ||x|| = 1 exactly; ``known["exact_X"]`` holds
    them as ``"p/q"`` strings."""
    if n < 6:
        raise ValueError("chord needs n >= 6 (the chord, three far points, at least one upper point)")
    if not 0 < h < 1:
        raise ValueError("chord needs 0 < h < 1 (the chord's distance from the origin)")
    if not 0 < spread < math.pi / 2:
        raise ValueError("chord needs 0 < spread < pi/2 (radians)")

    def at(angle: float, d: int) -> List[Fraction]:
        t = Fraction(round(math.tan(angle / 2) * d), d)
        return [(1 - t * t) / (1 + t * t), 2 * t / (1 + t * t)]

    a = math.asin(h)
    hd = max(den, int(10 / h) * 10**3)
    rows = [at(a, hd), [-c if k == 0 else c for k, c in enumerate(at(a, hd))]]
    rows += [at(1.5 * math.pi + s, den) for s in (-spread, 0.0, spread)]
    m = n - 5
    rows += [at(math.pi * (k + 1) / (m + 1), den) for k in range(m)]
    q = ["1/2", "1/2"] + ["0"] * (n - 2)
    X = np.array([[float(c) for c in r] for r in rows])
    known = {"exact_X": [[str(c) for c in r] for r in rows], "lemma7_q": [q], "feasible": False}
    return Instance(f"chord(n={n},h={h:g},spread={spread:g})", X, np.ones(n, dtype=np.int64), known=known,
                    flags=("infeasible", "rational"))


def circle(n: int = 8, seed: int = 0) -> Instance:
    """``n`` seeded uniformly random points on the unit circle, labels +1 (infeasible unless they
    fit in a half circle): a generic start for searches over planar configurations."""
    rng = np.random.default_rng([int(seed), 0xC1C1E])
    a = np.sort(rng.uniform(0.0, 2 * math.pi, int(n)))
    return Instance(f"circle(n={n},seed={seed})", np.c_[np.cos(a), np.sin(a)], np.ones(int(n), dtype=np.int64))


def data_dir() -> Optional[Path]:
    """``$MARGINS_DATA`` or ``../shared/data`` relative to the repository (or the cwd); None if absent."""
    cands = []
    if os.environ.get("MARGINS_DATA"):
        cands.append(Path(os.environ["MARGINS_DATA"]))
    repo = Path(__file__).resolve().parents[2]  # theorems/instances/families.py -> the repository
    cands += [repo.parent / "shared" / "data", Path.cwd().parent / "shared" / "data"]
    for c in cands:
        if c.is_dir():
            return c
    return None


@lru_cache(maxsize=16)
def _load_real(name: str) -> Tuple[np.ndarray, np.ndarray]:
    root = data_dir()
    if root is None or name not in REAL_DATASETS:
        raise FileNotFoundError(name)
    fname, nf = REAL_DATASETS[name]
    path = root / name / fname
    if not path.is_file():
        raise FileNotFoundError(str(path))
    X, y = reference.load_libsvm(path, n_features=nf)
    return X.toarray(), y  # the families subsample and transform rows densely


def real_available() -> List[str]:
    """The data sets of :data:`REAL_DATASETS` present on this machine."""
    out = []
    root = data_dir()
    if root is None:
        return out
    for name, (fname, _) in REAL_DATASETS.items():
        if (root / name / fname).is_file():
            out.append(name)
    return out


def real_data(name: str, n: int, seed: int = 0, *, kernel: str = "linear", sigma: float = 1.0,
              scale: bool = True) -> Instance:
    """A deterministic subsample of ``n`` distinct nonzero rows of a real LIBSVM data set
    (``numpy.random.default_rng(seed).choice``, sorted), optionally rescaled to max norm 1
    (``scale``; G is scale-free, the PT11 bounds depend on R/gamma_d only)."""
    X, y = _load_real(name)
    keep = np.flatnonzero(np.any(X != 0, axis=1))
    _, first = np.unique(X[keep], axis=0, return_index=True)
    keep = np.sort(keep[first])
    rng = np.random.default_rng(seed)
    n = min(int(n), keep.size)
    idx = np.sort(rng.choice(keep, size=n, replace=False))
    Xs, ys = X[idx], y[idx]
    if scale:
        Xs = Xs / paper_bounds.radius(Xs)
    params = {"sigma": float(sigma)} if kernel == "gaussian" else {}
    return Instance(name=f"real({name},n={n},{kernel}{',sigma=' + format(sigma, 'g') if kernel == 'gaussian' else ''},seed={seed})",
                    X=Xs, y=ys, kernel=kernel, params=params, flags=("real_data",) + (("kernel", kernel) if kernel != "linear" else ()))


# -- the registry of families ---------------------------------------------------------------------


class Family:
    """A named family: ``build(spec) -> Instance`` and a default ``grid`` of specs for sweeps.

    ``kind`` is ``separable``, ``infeasible``, ``kernel``, ``real`` or ``any``;  ``margin_name``
    says what the spec's ``margin`` plants (``rho`` / ``delta_max`` / a kernel gap, or ``-``).
    """

    def __init__(self, name: str, kind: str, build: Callable[[dict], Instance], defaults: Dict[str, Sequence],
                 margin_name: str, doc: str, linear: bool = True):
        self.name, self.kind, self.build, self.defaults = name, kind, build, defaults
        self.margin_name, self.doc, self.linear = margin_name, doc, linear

    def grid(self, ns: Optional[Sequence[int]] = None, margins: Optional[Sequence[float]] = None,
             ds: Optional[Sequence[int]] = None, seeds: int = 2, extra: Optional[Dict[str, Sequence]] = None) -> List[dict]:
        """The specs of a sweep: the product of n, d, margin, the family's extra axes and seeds."""
        ns = list(ns) if ns else list(self.defaults.get("n", [None]))
        ds = list(ds) if ds else list(self.defaults.get("d", [None]))
        ms = list(margins) if margins else list(self.defaults.get("margin", [None]))
        axes = dict(self.defaults.get("extra", {}))
        axes.update(extra or {})
        combos: List[dict] = [{}]
        for key in sorted(axes):
            combos = [dict(c, **{key: v}) for c in combos for v in axes[key]]
        out = []
        for n in ns:
            for d in ds:
                for m in ms:
                    for c in combos:
                        for s in range(int(seeds)):
                            spec = {"family": self.name, "n": n, "d": d, "margin": m, "seed": s}
                            spec.update(c)
                            out.append({k: v for k, v in spec.items() if v is not None})
        return out


def _b_planted(s: dict) -> Instance:
    return planted(s.get("n", 20), s.get("d", 5), s.get("margin", 0.1), s.get("seed", 0),
                   spread=s.get("spread", 1.0), radius=s.get("radius", 1.0), n_support=s.get("m"))


def _b_infeasible(s: dict) -> Instance:
    return thin_infeasible(s.get("n", 8), s.get("d", 2), s.get("margin", 0.1), s.get("seed", 0))


def _b_regular(s: dict) -> Instance:
    from .strategies import planted_infeasible

    shape = s.get("shape", "simplex")
    return planted_infeasible(shape, s.get("d", 3) if shape != "polygon" else 2, s.get("seed", 0), m=s.get("n", 0))


def _b_wolfe(s: dict) -> Instance:
    return wolfe(s.get("n", 5), s.get("d", 2), s.get("seed", 0), height=s.get("height", 1.0))


def _b_orthonormal(s: dict) -> Instance:
    return orthonormal(s.get("n", 10), s.get("seed", 0))


def _b_rings(s: dict) -> Instance:
    return rings(s.get("n", 30), s.get("seed", 0), gap=s.get("margin", 0.5), sigma=s.get("sigma", 0.5))


def _b_moons(s: dict) -> Instance:
    return moons(s.get("n", 30), s.get("seed", 0), noise=s.get("margin", 0.1), sigma=s.get("sigma", 0.5))


def _b_poly(s: dict) -> Instance:
    return xor_poly(s.get("n", 30), s.get("seed", 0), gap=s.get("margin", 0.1), degree=s.get("degree", 2))


def _b_real(s: dict) -> Instance:
    return real_data(s.get("dataset", "heart_scale"), s.get("n", 40), s.get("seed", 0),
                     kernel=s.get("kernel", "linear"), sigma=s.get("sigma", 1.0))


def _b_example(s: dict) -> Instance:
    from .strategies import worked_example

    return worked_example(float(s.get("r", 3.0)))


def _b_chord(s: dict) -> Instance:
    return chord(s.get("n", 8), s.get("margin", 0.002), s.get("spread", 1.0150835), s.get("seed", 0))


def _b_circle(s: dict) -> Instance:
    return circle(s.get("n", 8), s.get("seed", 0))


def _b_explicit(s: dict) -> Instance:
    X = np.array(s["X"], dtype=np.float64)
    y = np.array(s["y"], dtype=np.int64)
    known = {k: (tuple(v) if isinstance(v, list) else v) for k, v in dict(s.get("known", {})).items()}
    return Instance(name=s.get("name", f"explicit(n={X.shape[0]},d={X.shape[1]})"), X=X, y=y,
                    kernel=s.get("kernel", "linear"), params=dict(s.get("params", {})), known=known,
                    flags=tuple(s.get("flags", ())))


FAMILIES: Dict[str, Family] = {
    "planted": Family("planted", "separable", _b_planted,
                      {"n": [10, 30], "d": [3, 8], "margin": [0.3, 0.1, 0.03], "extra": {"spread": [0.2, 3.0]}},
                      "rho", planted.__doc__),
    "infeasible": Family("infeasible", "infeasible", _b_infeasible,
                         {"n": [6, 12], "d": [2, 3], "margin": [0.3, 0.1, 0.03]}, "delta_max", thin_infeasible.__doc__),
    "regular": Family("regular", "infeasible", _b_regular,
                      {"d": [2, 3, 4], "extra": {"shape": ["simplex", "cross"]}}, "-",
                      "regular simplex / cross-polytope / m-gon of theorems.strategies.planted_infeasible"),
    "wolfe": Family("wolfe", "infeasible", _b_wolfe, {"n": [3, 6], "d": [2, 3]}, "-", wolfe.__doc__),
    "orthonormal": Family("orthonormal", "separable", _b_orthonormal, {"n": [4, 16, 64]}, "-", orthonormal.__doc__),
    "rings": Family("rings", "kernel", _b_rings, {"n": [20, 40], "margin": [0.5, 0.2]}, "gap", rings.__doc__, linear=False),
    "moons": Family("moons", "kernel", _b_moons, {"n": [20, 40], "margin": [0.1, 0.3]}, "noise", moons.__doc__, linear=False),
    "poly": Family("poly", "kernel", _b_poly, {"n": [20, 40], "margin": [0.2, 0.05]}, "gap", xor_poly.__doc__, linear=False),
    "real": Family("real", "real", _b_real, {"n": [30, 60], "extra": {"dataset": ["heart_scale", "sonar", "ionosphere"],
                                                                      "kernel": ["linear", "gaussian"]}},
                   "-", real_data.__doc__),
    "rp14_example": Family("rp14_example", "separable", _b_example, {"extra": {"r": [1.5, 3.0]}}, "-",
                           "the worked example of RP14 Sec. 2.2 (theorems.strategies.worked_example)"),
    "chord": Family("chord", "infeasible", _b_chord, {"n": [8, 12], "margin": [0.002, 0.02]}, "h", chord.__doc__),
    "circle": Family("circle", "infeasible", _b_circle, {"n": [8, 10]}, "-", circle.__doc__),
    "explicit": Family("explicit", "any", _b_explicit, {}, "-", "the data in the spec"),
}


def make_instance(spec: dict) -> Instance:
    """Build the instance a spec describes (``spec["family"]`` in :data:`FAMILIES`)."""
    fam = spec.get("family")
    if fam not in FAMILIES:
        raise ValueError(f"unknown family {fam!r}; known: {', '.join(sorted(FAMILIES))}")
    return FAMILIES[fam].build(spec)


def explicit_spec(inst: Instance, **extra) -> dict:
    """The ``explicit`` spec holding an instance's data (floats written with full precision)."""
    if callable(inst.kernel):
        raise ValueError("a callable kernel cannot be written to a spec")
    spec = {"family": "explicit", "X": [[float(v) for v in row] for row in np.asarray(inst.X, dtype=float)],
            "y": [int(v) for v in inst.y], "kernel": inst.kernel, "params": dict(inst.params),
            "name": inst.name}
    spec.update(extra)
    return spec
