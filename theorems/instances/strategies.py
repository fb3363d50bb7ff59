"""Public hypothesis strategies (and the deterministic builders behind them) producing
:class:`~theorems.instances.Instance` objects with quantities known *by construction*.

Users reuse these to test their own implementations::

    from hypothesis import given
    from theorems.strategies import separable_instances

    @given(separable_instances())
    def test_my_solver(inst):
        assert abs(my_margin(inst.G) - inst.known["rho_K"]) < 1e-9

Strategies (each returns ``SearchStrategy[Instance]``)
-----------------------------------------------------
* :func:`separable_instances`  linearly separable data with a PLANTED margin and support
* :func:`infeasible_instances` origin inside the hull, with a planted/enumerated ``delta_max``
* :func:`kernel_instances`     random data under the linear / polynomial / gaussian kernel
* :func:`rational_instances`   small integer coordinates (exact ``Fraction`` arithmetic possible)
* :func:`degenerate_instances` n = 1, d = 1, duplicates, antipodal points, collinear data,
  margins near / equal to 0, ties in the argmin
* :func:`instances`            ``one_of`` all of the above

Deterministic builders (used by the strategies and by :func:`theorems.suite.builtin_suite`)
----------------------------------------------------------------------------------------
:func:`planted_separable`, :func:`planted_infeasible`, :func:`random_kernel_instance`,
:func:`rational_instance`, :func:`worked_example`, :func:`degenerate_cases`, and the geometry
helper :func:`origin_inradius`.

Keys of ``Instance.known`` (absent = unknown)
---------------------------------------------
``rho_K``      margin of the normalized signed Gram matrix G (RP14 eq. (5), in the span; negative
               = -delta_max when infeasible, RP14 Thm 3 / E-A3)
``rho_2``      normalized linear margin (RP14 Sec. 2.2); equals ``rho_K`` for the linear kernel
``rho``        unnormalized linear margin  sup_{||w||=1} min_i y_i w^T x_i  (margin of Y K Y);
               set only when it is positive
``R``          max_i ||x_i||_2
``support``    tuple of indices i whose reflected point lies on the optimal face (the points
               with y_i u^T x_i = rho); the min-norm point is a convex combination of them
``u``          the max-margin unit normal w* (separable) as a tuple of floats
``delta_max``  radius of the largest ball (inside span{y_i x_i/||x_i||}) centred at the origin and
               contained in conv{y_i x_i/||x_i||}  (infeasible linear instances; = |rho_K|)
``feasible``   bool, whether some w has y_i w^T x_i > 0 for all i (when known by construction)

Flags: ``separable``, ``infeasible``, ``planted``, ``unit`` (all ||x_i|| = 1), ``kernel``,
``linear``/``polynomial``/``gaussian``, ``rational``, ``n1``, ``d1``, ``duplicates``,
``antipodal``, ``collinear``, ``lowrank`` (span smaller than R^d), ``small_margin``,
``zero_margin``, ``ties``, ``real_data``, ``example``.

Shrinking: the structural parameters (n, d, the margin, the number of support points, shapes)
are drawn directly by hypothesis, so failures shrink towards small n, d and simple shapes; the
random directions come from a drawn integer seed through numpy (cheap, but they shrink only by
the seed).  :func:`rational_instances` draws every coordinate directly and shrinks fully.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import List, Optional, Sequence, Tuple

import numpy as np
from hypothesis import strategies as st

from .. import paper_bounds
from .instance import Instance, _random_rotation, _unit

__all__ = [
    "lemma7_counterexample",
    "separable_instances",
    "infeasible_instances",
    "kernel_instances",
    "rational_instances",
    "degenerate_instances",
    "instances",
    "planted_separable",
    "planted_infeasible",
    "random_kernel_instance",
    "rational_instance",
    "worked_example",
    "degenerate_cases",
    "origin_inradius",
    "INFEASIBLE_SHAPES",
]

INFEASIBLE_SHAPES = ("simplex", "cross", "polygon", "random")


# -- small linear-algebra helpers (the rotation and unit vectors live in .instance) ---------------


def _labels(n: int, rng: np.random.Generator) -> np.ndarray:
    return np.where(rng.random(n) < 0.5, -1, 1).astype(np.int64)


def origin_inradius(Z: np.ndarray, tol: float = 1e-10) -> Tuple[float, int]:
    """Radius of the largest ball centred at 0, inside span(Z), contained in conv(rows of Z).

    Exact enumeration, for small n and low rank r = rank(Z) (cost C(n, r) r^3):

    1. Express the rows in an orthonormal basis of their span (an isometry, so distances and the
       hull are unchanged): ``Zs`` is n x r.
    2. If 0 is not in the relative interior of the hull, the radius is 0 (returned as 0.0 when 0
       lies on the relative boundary, and as ``-inf`` when 0 is outside the hull).
    3. Otherwise the radius is the minimum, over the facets of the (full-dimensional in R^r) hull,
       of the distance from 0 to the facet's hyperplane.  Every hyperplane through r affinely
       independent rows that leaves all rows on one side is a supporting hyperplane whose face
       contains r affinely independent points, i.e. a facet; and every facet arises this way.  So
       enumerating r-subsets finds exactly the facets.

    Returns ``(radius, rank)``.  Used to plant ``delta_max`` (RP14 Thm 3) for the ``random``
    infeasible shape; the regular shapes have closed forms (see :func:`planted_infeasible`).
    """
    Z = np.asarray(Z, dtype=np.float64)
    U, s, Vt = np.linalg.svd(Z, full_matrices=False)
    r = int(np.sum(s > tol * max(1.0, s[0] if s.size else 1.0)))
    if r == 0:
        return 0.0, 0
    Zs = Z @ Vt[:r].T  # n x r coordinates in the span
    n = Zs.shape[0]
    if r == 1:
        z = Zs[:, 0]
        lo, hi = float(np.min(z)), float(np.max(z))
        if lo > tol or hi < -tol:
            return -math.inf, 1
        return float(min(-lo, hi)), 1
    best = math.inf
    found = False
    for S in itertools.combinations(range(n), r):
        P = Zs[list(S)]
        D = P[1:] - P[0]  # (r-1) x r
        if np.linalg.matrix_rank(D, tol=1e-9) < r - 1:
            continue  # affinely dependent: no unique hyperplane
        a = np.linalg.svd(D)[2][-1]  # unit normal of the hyperplane through the r points
        b = float(a @ P[0])
        na = 1.0
        a, b = a / na, b / na
        vals = Zs @ a - b
        if np.all(np.abs(vals) <= tol):  # all points on one hyperplane (which misses 0 if b != 0)
            if abs(b) > tol:
                return -math.inf, r
            continue
        if np.all(vals <= tol):
            pass
        elif np.all(vals >= -tol):
            a, b = -a, -b
        else:
            continue
        found = True
        best = min(best, float(b))  # distance from 0 to the facet, signed (0 inside <=> b > 0)
    if not found:
        return 0.0, r
    if best < -tol:
        return -math.inf, r
    return max(best, 0.0), r


# -- deterministic builders ---------------------------------------------------------------------


def planted_separable(
    d: int,
    n_support: int,
    n_other: int,
    rho: float,
    seed: int = 0,
    *,
    unit: bool = True,
    scale: float = 1.0,
    spread: Tuple[float, float] = (0.25, 4.0),
    gap: float = 0.1,
    ambient: Optional[int] = None,
) -> Instance:
    """Separable data whose max margin and support are known by construction.

    Construction (all in the reflected space z_i = y_i x_i, then x_i := y_i z_i with random labels):

    * a random unit normal u in R^d (d >= 2) and an orthonormal basis of u^perp;
    * ``n_support >= 2`` unit directions v_1..v_m in u^perp with 0 = sum_i c_i v_i for weights
      c_i > 0 (for d = 2: v_i = +-e with both signs present; otherwise v_1..v_{m-1} random and
      v_m := -s/||s||, s = sum_{i<m} c_i v_i, c_m := ||s||); so 0 is in the relative interior of
      conv{v_i};
    * support points  z_i := rho u + sqrt(1 - rho^2) v_i   (unit norm, <u, z_i> = rho);
    * other points    z_j := t_j u + sqrt(1 - t_j^2) v_j   with t_j in [rho + gap (1 - rho), 1]
      and v_j random unit in u^perp  (unit norm, <u, z_j> > rho).

    **Claim** (normalized margin): rho_2 = rho_K = rho and w* = u.  Proof: for every p in the
    simplex, ||Z^T p|| >= <u, Z^T p> = sum_i p_i <u, z_i> >= rho, and the convex combination of
    the support points with weights c/sum(c) equals rho u + sqrt(1-rho^2) * 0 = rho u, of norm
    rho.  So min_{p} ||Z^T p|| = rho > 0, which is rho_2 (RP14 Sec. 2.2 identity: rho = distance
    from 0 to conv{y_i x_i} when positive); the maximiser is Z^T p*/||Z^T p*|| = u.  All points
    have unit norm, so X_2 = X and G = Z Z^T, whose margin rho_K (RP14 Lemma 3, alpha-form) is the
    same min-norm distance: rho_K = rho_2 = rho.

    **Unnormalized variant** (``unit=False``): support points are scaled by a common factor
    ``scale`` = c and every other point z_j by s_j >= 1.05 c rho / t_j (drawn in ``spread``
    when possible).  Normalizing undoes the scaling, so rho_2 = rho_K = rho still; and now
    <u, c z_i> = c rho on the support and <u, s_j z_j> = s_j t_j >= 1.05 c rho elsewhere, so the
    same argument gives the unnormalized margin  known["rho"] = c rho  (attained at c rho u, which
    is in the hull).  ``known["R"]`` = max_i ||x_i||.

    ``ambient``: embed isometrically into R^ambient (ambient >= d) by an orthonormal d-frame;
    inner products, hence G, K and all margins, are unchanged (flag ``lowrank``).
    """
    if d < 2:
        raise ValueError("planted_separable needs d >= 2 (use degenerate_cases() for d = 1)")
    if n_support < 2:
        raise ValueError("n_support must be >= 2")
    if not 0 < rho < 1:
        raise ValueError("rho must be in (0, 1)")
    rng = np.random.default_rng(seed)
    Q = _random_rotation(d, rng)
    u, perp = Q[:, 0], Q[:, 1:]  # perp: d x (d-1)
    m = n_support
    if d == 2:
        signs = np.ones(m)
        signs[: max(1, m // 2)] = -1.0
        rng.shuffle(signs)
        V = np.outer(signs, perp[:, 0])
    else:
        while True:
            C = rng.uniform(0.2, 1.0, m - 1)
            W = np.array([_unit(rng.standard_normal(d - 1)) for _ in range(m - 1)])
            s = C @ W
            if np.linalg.norm(s) > 1e-3:
                break
        W = np.vstack([W, -_unit(s)])
        V = W @ perp.T
    sq = math.sqrt(1 - rho * rho)
    Zs = rho * u[None, :] + sq * V
    t = rng.uniform(rho + gap * (1 - rho), 1.0, n_other) if n_other else np.zeros(0)
    Zo = np.zeros((n_other, d))
    for j in range(n_other):
        v = perp @ _unit(rng.standard_normal(d - 1)) if d > 1 else np.zeros(d)
        Zo[j] = t[j] * u + math.sqrt(max(1 - t[j] ** 2, 0.0)) * v
    flags = ["separable", "planted"]
    c = 1.0
    if unit:
        flags.append("unit")
        sc_s, sc_o = np.ones(m), np.ones(n_other)
    else:
        c = float(scale)
        sc_s = np.full(m, c)
        lo_o = 1.05 * c * rho / np.maximum(t, 1e-12)
        lo, hi = spread
        sc_o = np.array([rng.uniform(max(lo, l), max(hi, 2 * max(lo, l))) for l in lo_o]) if n_other else np.zeros(0)
    Z = np.vstack([Zs * sc_s[:, None], Zo * sc_o[:, None]])
    perm = rng.permutation(m + n_other)
    Z = Z[perm]
    support = tuple(sorted(int(np.flatnonzero(perm == i)[0]) for i in range(m)))
    y = _labels(m + n_other, rng)
    if ambient is not None and ambient > d:
        F = _random_rotation(ambient, rng)[:, :d]  # ambient x d, orthonormal columns
        Z = Z @ F.T
        u = F @ u
        flags.append("lowrank")
    X = Z * y[:, None]
    if m >= 2:
        flags.append("ties")  # several points attain the margin at the optimum
    if rho < 0.05:
        flags.append("small_margin")
    R = paper_bounds.radius(X)
    known = {
        "rho_K": float(rho),
        "rho_2": float(rho),
        "rho": float(c * rho),
        "R": R,
        "support": support,
        "u": tuple(float(v) for v in u),
        "feasible": True,
    }
    name = f"planted(d={d},m={m},n={m + n_other},rho={rho:.4g},{'unit' if unit else f'c={c:.3g}'},seed={seed})"
    return Instance(name=name, X=X, y=y, known=known, flags=tuple(flags))


def _regular_simplex(d: int) -> np.ndarray:
    """d+1 unit vectors in R^d with centroid 0 (vertices of a regular simplex, circumradius 1)."""
    E = np.eye(d + 1) - 1.0 / (d + 1)
    # orthonormal basis of the hyperplane 1^perp in R^{d+1}
    U, _, _ = np.linalg.svd(E)
    B = U[:, :d]
    P = E @ B
    return P / np.linalg.norm(P, axis=1, keepdims=True)


def planted_infeasible(
    shape: str,
    d: int,
    seed: int = 0,
    *,
    m: int = 0,
    duplicates: int = 0,
    ambient: Optional[int] = None,
    scales: bool = False,
) -> Instance:
    """Infeasible data (0 in the interior of conv{y_i x_i/||x_i||}) with known delta_max.

    Shapes of the normalized reflected points (all unit vectors, randomly rotated):

    * ``"simplex"``: the d+1 vertices of a regular simplex inscribed in the unit sphere of R^d;
      the inradius of a regular simplex is its circumradius / d, so delta_max = 1/d.
    * ``"cross"``: the 2d vertices +-e_i of the cross-polytope; its facets are the hyperplanes
      sum_i s_i z_i = 1 (s in {+-1}^d), at distance 1/sqrt(d): delta_max = 1/sqrt(d).
    * ``"polygon"`` (d = 2): a regular m-gon (m >= 3), delta_max = cos(pi/m).
    * ``"random"`` (d in {1, 2, 3}): m random unit vectors, redrawn until 0 is interior;
      delta_max enumerated exactly by :func:`origin_inradius`.

    ``duplicates`` extra copies of existing points (the hull is unchanged).  ``scales=True``
    multiplies each x_i by a random factor in [0.5, 2] (G, the normalized hull and delta_max are
    unchanged; ``rho`` is not defined since the data are infeasible).  ``ambient`` embeds
    isometrically into a larger space (G unchanged; delta_max is then the *relative* inradius
    inside the span, which is what the algorithms see -- erratum E-A3; flag ``lowrank``).

    Theorem 3 of RP14 (in the span) then says rho_K = -delta_max: ``known["rho_K"] = -delta_max``.
    """
    rng = np.random.default_rng(seed)
    flags = ["infeasible", "planted", "unit"]
    if shape == "simplex":
        P = _regular_simplex(d)
        delta = 1.0 / d
    elif shape == "cross":
        P = np.vstack([np.eye(d), -np.eye(d)])
        delta = 1.0 / math.sqrt(d)
    elif shape == "polygon":
        if d != 2:
            raise ValueError("polygon needs d = 2")
        m = max(m, 3)
        ang = 2 * math.pi * np.arange(m) / m
        P = np.stack([np.cos(ang), np.sin(ang)], axis=1)
        delta = math.cos(math.pi / m)
    elif shape == "random":
        if d not in (1, 2, 3):
            raise ValueError("random infeasible shape needs d in {1, 2, 3} (exact facet enumeration)")
        m = max(m, d + 1)
        for _ in range(1000):
            P = np.array([_unit(rng.standard_normal(d)) for _ in range(m)])
            delta, r = origin_inradius(P)
            if r == d and delta > 1e-3:
                break
        else:  # pragma: no cover - astronomically unlikely
            raise RuntimeError("could not draw a random infeasible configuration")
    else:
        raise ValueError(f"shape must be one of {INFEASIBLE_SHAPES}, got {shape!r}")
    P = P @ _random_rotation(d, rng).T
    if duplicates:
        idx = rng.integers(0, P.shape[0], duplicates)
        P = np.vstack([P, P[idx]])
        flags.append("duplicates")
    P = P[rng.permutation(P.shape[0])]
    if scales:
        P = P * rng.uniform(0.5, 2.0, P.shape[0])[:, None]
        flags.remove("unit")
    if ambient is not None and ambient > d:
        F = _random_rotation(ambient, rng)[:, :d]
        P = P @ F.T
        flags.append("lowrank")
    if shape in ("simplex", "cross", "polygon"):
        flags.append("ties")
    n = P.shape[0]
    y = _labels(n, rng)
    X = P * y[:, None]
    if d == 1:
        flags.append("d1")
    known = {"delta_max": float(delta), "rho_K": -float(delta), "feasible": False,
             "R": paper_bounds.radius(X)}
    name = f"infeasible({shape},d={d},n={n}{',amb=' + str(ambient) if ambient else ''},seed={seed})"
    return Instance(name=name, X=X, y=y, known=known, flags=tuple(flags))


def random_kernel_instance(kernel: str, n: int, d: int, seed: int = 0, **params) -> Instance:
    """Random points (standard normal / 2) with random labels under ``kernel``.

    Nothing is planted (``known`` is empty); a Gaussian Gram matrix of distinct points is
    positive definite, so such instances are feasible (rho_K > 0).  Points are redrawn if one is
    zero.  Flags: ``kernel`` and the kernel's name.
    """
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / 2
    X[np.linalg.norm(X, axis=1) < 1e-3] += 0.5
    y = _labels(n, rng)
    flags = ["kernel", kernel]
    ptxt = ",".join(f"{k}={v}" for k, v in sorted(params.items()))
    name = f"kernel({kernel}{',' + ptxt if ptxt else ''},n={n},d={d},seed={seed})"
    return Instance(name=name, X=X, y=y, kernel=kernel, params=dict(params), flags=tuple(flags))


def rational_instance(rows: Sequence[Sequence[int]], labels: Sequence[int], name: Optional[str] = None) -> Instance:
    """An instance with small integer coordinates (flag ``rational``).

    ``X`` is stored as float64 (exactly representable); exact arithmetic can rebuild the
    reflected points as ``Fraction(int(x))``.  Zero rows are not allowed (G is undefined).
    """
    X = np.array(rows, dtype=np.float64)
    y = np.array(labels, dtype=np.int64)
    flags = ["rational"]
    if X.shape[0] == 1:
        flags.append("n1")
    if X.shape[1] == 1:
        flags.append("d1")
    if len({tuple(r) for r in (X * y[:, None]).tolist()}) < X.shape[0]:
        flags.append("duplicates")
    nm = name or f"rational({[list(map(int, r)) for r in rows]},{list(map(int, labels))})"
    return Instance(name=nm, X=X, y=y, flags=tuple(flags))


def lemma7_counterexample() -> Instance:
    """The exact counterexample to the PRINTED RP14 Lemma 7 (erratum E-A2).

    d = 2, n = 8, all labels +1, points on the unit circle with rational coordinates (so the
    normalized points equal the points, exactly): a chord x1-x5 passing 2000/1000001 from the
    origin, three points above it and three far points below.  delta_max^2 = 81/106 (the edge
    x6-x7) = rho_K^2, and for q = (e_1 + e_5)/2: ||q||_G = 2000/1000001, the projection of q onto W
    has support {x1, x5, x6, x7, x8}, and |rho_K| dist(q, W)/||q||_G = 1.03338 > 1.

    ``known``: ``exact_X`` (the rational coordinates; X = float(exact_X)), ``lemma7_q`` (that q,
    exact), ``delta_max``.  Flags ``infeasible``, ``rational``."""
    F = Fraction
    rows = [(F(999999, 1000001), F(2000, 1000001)), (F(21, 29), F(20, 29)), (F(0), F(1)), (F(-21, 29), F(20, 29)),
            (F(-999999, 1000001), F(2000, 1000001)), (F(-45, 53), F(-28, 53)), (F(0), F(-1)), (F(45, 53), F(-28, 53))]
    X = np.array([[float(v) for v in r] for r in rows])
    known = {"exact_X": rows, "lemma7_q": [[F(1, 2), 0, 0, 0, F(1, 2), 0, 0, 0]],
             "delta_max": math.sqrt(81 / 106), "feasible": False}
    return Instance("lemma7-counterexample(d=2,n=8)", X, np.ones(8, dtype=np.int64), known=known,
                    flags=("infeasible", "rational"))


def worked_example(r: float = 3.0, norms: Optional[Sequence[float]] = None) -> Instance:
    """The worked example of RP14 Sec. 2.2.

    '+' points on the direction a = (0.6, 0.8), '-' points on b = (0.8, 0.6), with norms in
    [1/r, r] (default norms {1/r, 1, r} for each class, so both extremes occur).  Known:
    rho_2 = rho_K = sqrt(2)/10 (min-norm point of the segment [a, -b] is (-0.1, 0.1)),
    rho = sqrt(2)/(10 r) (attained by the norm-1/r points), R = r, w* = (-1, 1)/sqrt(2).
    Support (unnormalized): the two norm-1/r points.
    """
    if not r > 1:
        raise ValueError("r must be > 1")
    norms = list(norms) if norms is not None else [1.0 / r, 1.0, r]
    a, b = np.array([0.6, 0.8]), np.array([0.8, 0.6])
    X = np.array([t * a for t in norms] + [t * b for t in norms])
    y = np.array([1] * len(norms) + [-1] * len(norms), dtype=np.int64)
    k = len(norms)
    lo = min(norms)
    support = tuple(i for i in range(2 * k) if norms[i % k] == lo)
    known = {
        "rho_K": math.sqrt(2) / 10,
        "rho_2": math.sqrt(2) / 10,
        "rho": math.sqrt(2) / (10 * r) if lo == 1.0 / r else math.sqrt(2) / 10 * lo,
        "R": max(norms),
        "r": float(r),
        "support": support,
        "u": (-1 / math.sqrt(2), 1 / math.sqrt(2)),
        "feasible": True,
    }
    return Instance(name=f"rp14_example(r={r:g},n={2 * k})", X=X, y=y, known=known,
                    flags=("separable", "example", "collinear", "ties"))


def degenerate_cases() -> List[Instance]:
    """A fixed list of edge cases, each with what is known about it.

    n = 1; d = 1 (feasible and infeasible); duplicate points; a point and its negation (same
    label: infeasible, opposite labels: duplicates in the reflected space); collinear data in
    R^3 (rank 1); an orthonormal set (G = I: rho_K = 1/sqrt(n), all indices tie); margin exactly
    0 (origin on the boundary of the hull); a planted tiny margin; a square (ties everywhere).
    """
    s2 = math.sqrt(2)
    out = [
        Instance("deg:n1", np.array([[1.0, 2.0]]), np.array([1]),
                 known={"rho_K": 1.0, "rho_2": 1.0, "rho": math.sqrt(5), "R": math.sqrt(5), "support": (0,), "feasible": True},
                 flags=("separable", "n1")),
        Instance("deg:n1,d1", np.array([[3.0]]), np.array([-1]),
                 known={"rho_K": 1.0, "rho_2": 1.0, "rho": 3.0, "R": 3.0, "support": (0,), "feasible": True},
                 flags=("separable", "n1", "d1")),
        Instance("deg:d1,feasible", np.array([[1.0], [-2.0], [0.5]]), np.array([1, -1, 1]),
                 known={"rho_K": 1.0, "rho_2": 1.0, "rho": 0.5, "R": 2.0, "support": (2,), "feasible": True},
                 flags=("separable", "d1")),
        Instance("deg:d1,infeasible", np.array([[1.0], [2.0], [-1.5]]), np.array([1, 1, 1]),
                 known={"rho_K": -1.0, "delta_max": 1.0, "feasible": False, "R": 2.0},
                 flags=("infeasible", "d1")),
        Instance("deg:duplicates", np.array([[1.0, 0.2], [1.0, 0.2], [1.0, 0.2], [0.3, 1.0]]), np.array([1, 1, 1, 1]),
                 known={"feasible": True}, flags=("separable", "duplicates")),
        Instance("deg:antipodal,same-label", np.array([[1.0, 2.0, -1.0], [-1.0, -2.0, 1.0]]), np.array([1, 1]),
                 known={"rho_K": -1.0, "delta_max": 1.0, "feasible": False, "R": math.sqrt(6)},
                 flags=("infeasible", "antipodal", "collinear", "lowrank")),
        Instance("deg:antipodal,opposite-labels", np.array([[1.0, 2.0], [-1.0, -2.0]]), np.array([1, -1]),
                 known={"rho_K": 1.0, "rho_2": 1.0, "rho": math.sqrt(5), "R": math.sqrt(5), "support": (0, 1), "feasible": True},
                 flags=("separable", "antipodal", "duplicates", "ties")),
        Instance("deg:collinear,infeasible", np.array([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [-0.5, -0.5, -0.5], [3.0, 3.0, 3.0]]),
                 np.array([1, 1, 1, -1]),
                 known={"rho_K": -1.0, "delta_max": 1.0, "feasible": False, "R": 3 * math.sqrt(3)},
                 flags=("infeasible", "collinear", "lowrank")),
        Instance("deg:collinear,feasible", np.array([[1.0, -2.0, 0.5], [2.0, -4.0, 1.0], [-0.5, 1.0, -0.25]]),
                 np.array([1, 1, -1]),
                 known={"rho_K": 1.0, "rho_2": 1.0, "rho": math.sqrt(5.25) / 2, "R": math.sqrt(21), "feasible": True},
                 flags=("separable", "collinear", "lowrank", "ties")),
        Instance("deg:orthonormal(n=4)", np.eye(4), np.array([1, -1, 1, -1]),
                 known={"rho_K": 0.5, "rho_2": 0.5, "rho": 0.5, "R": 1.0, "support": (0, 1, 2, 3), "feasible": True},
                 flags=("separable", "ties", "unit")),
        Instance("deg:zero-margin", np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]]), np.array([1, 1, 1]),
                 known={"rho_K": 0.0, "delta_max": 0.0, "feasible": False, "R": 1.0},
                 flags=("infeasible", "zero_margin", "antipodal", "unit")),
        Instance("deg:square(ties)", np.array([[1.0, 0.0], [0.0, -1.0], [1.0, 0.0], [0.0, -1.0]]), np.array([1, -1, -1, 1]),
                 known={"rho_K": -1 / s2, "delta_max": 1 / s2, "feasible": False, "R": 1.0},
                 flags=("infeasible", "ties", "unit")),
    ]
    tiny = planted_separable(3, 2, 3, 0.02, seed=11)
    out.append(Instance("deg:" + tiny.name, tiny.X, tiny.y, known=tiny.known, flags=tiny.flags))
    return out


# -- hypothesis strategies ----------------------------------------------------------------------


def _rnd(x: float, k: int = 4) -> float:
    return float(round(x, k))


def separable_instances(
    *,
    n: Tuple[int, int] = (2, 12),
    d: Tuple[int, int] = (2, 5),
    rho: Tuple[float, float] = (0.05, 0.9),
    unit: Optional[bool] = None,
    scale: Tuple[float, float] = (0.25, 4.0),
    ambient: bool = False,
) -> st.SearchStrategy[Instance]:
    """Separable linear instances with a PLANTED margin (see :func:`planted_separable`).

    Plants: a max-margin unit normal u and ``m >= 2`` support points at margin rho from it; every
    other point strictly farther.  Guarantees (proved in :func:`planted_separable`):
    ``known["rho_K"] == known["rho_2"] == rho`` exactly (the normalized margin, also the margin of
    the normalized signed Gram matrix ``inst.G``), ``known["u"]`` is the optimal direction w*,
    ``known["support"]`` the indices attaining it, ``known["rho"]`` the unnormalized margin
    (``c rho``), ``known["R"] = max ||x_i||``, ``known["feasible"] is True``.  Flags ``separable``,
    ``planted``, ``ties`` (m >= 2), ``unit`` when all points have norm 1, ``small_margin`` below
    0.05, ``lowrank`` when embedded in a larger space.

    Parameters
    ----------
    n, d : (min, max)   number of points (>= 2) and dimension (>= 2)
    rho : (min, max)    the planted normalized margin rho_K = rho_2, in (0, 1)
    unit : bool or None  all points unit norm (True), rescaled (False) or either (None).  With
                        ``unit=False`` known["rho"] = c rho differs from rho_2 (Novikoff vs
                        normalized bound).
    scale : (min, max)  range of the common support scale c when not unit
    ambient : bool      sometimes embed into a larger space (flag ``lowrank``)
    """

    @st.composite
    def build(draw):
        dd = draw(st.integers(max(2, d[0]), max(2, d[1])))
        nn = draw(st.integers(max(2, n[0]), max(2, n[1])))
        m = draw(st.integers(2, nn))
        r = _rnd(draw(st.floats(rho[0], rho[1])))
        r = min(max(r, 1e-4), 0.9999)
        u = draw(st.booleans()) if unit is None else unit
        c = _rnd(draw(st.floats(scale[0], scale[1]))) if not u else 1.0
        amb = dd + draw(st.integers(0, 2)) if ambient else None
        seed = draw(st.integers(0, 2**16))
        return planted_separable(dd, m, nn - m, r, seed, unit=u, scale=c, ambient=amb)

    return build()


def infeasible_instances(
    *,
    shapes: Sequence[str] = INFEASIBLE_SHAPES,
    d: Tuple[int, int] = (1, 4),
    duplicates: bool = True,
    ambient: bool = True,
) -> st.SearchStrategy[Instance]:
    """Infeasible linear instances with a planted ``delta_max`` (= -rho_K, RP14 Thm 3), see
    :func:`planted_infeasible`.

    Plants: the normalized reflected points as a regular simplex, a cross-polytope, a regular
    polygon (known inradius), or random unit vectors around the origin (inradius enumerated
    exactly); randomly rotated, labels random, optionally duplicated points and a larger ambient
    space.  Guarantees: the origin is interior to the hull (no separator exists),
    ``known["delta_max"]`` is the radius of the largest ball about 0 in the hull (within the span,
    erratum E-A3), ``known["rho_K"] == -known["delta_max"]``, ``known["feasible"] is False``,
    ``known["R"] = max ||x_i||``.  Flags ``infeasible``, ``planted``, ``unit``, ``ties`` (regular
    shapes), ``duplicates``, ``lowrank``, ``d1``.

    ``d = 1`` is only used with the ``simplex``/``cross`` shapes (both give the points +-1,
    delta_max = 1) and ``random``; ``polygon`` forces d = 2; ``random`` caps d at 3.
    """

    @st.composite
    def build(draw):
        shape = draw(st.sampled_from(list(shapes)))
        if shape == "polygon":
            dd = 2
        elif shape == "random":
            dd = draw(st.integers(max(1, d[0]), min(3, max(1, d[1]))))
        else:
            dd = draw(st.integers(max(1, d[0]), max(1, d[1])))
        m = 0
        if shape == "polygon":
            m = draw(st.integers(3, 8))
        elif shape == "random":
            m = draw(st.integers(dd + 1, dd + 5))
        dup = draw(st.integers(0, 2)) if duplicates else 0
        amb = dd + draw(st.integers(0, 2)) if ambient else None
        seed = draw(st.integers(0, 2**16))
        return planted_infeasible(shape, dd, seed, m=m, duplicates=dup, ambient=amb)

    return build()


def kernel_instances(
    *,
    kernel: Sequence[str] = ("linear", "polynomial", "gaussian"),
    n: Tuple[int, int] = (2, 10),
    d: Tuple[int, int] = (1, 4),
) -> st.SearchStrategy[Instance]:
    """Random data under a kernel (``linear``, ``polynomial`` with degree in {2, 3} and
    c in {0.5, 1}, or ``gaussian`` with sigma in {0.5, 1, 2}).

    Plants nothing (``known`` is empty): compare against :func:`reference.margin`'s certified
    interval instead.  Guarantees: no zero point; with the gaussian kernel the Gram matrix of
    distinct points is positive definite, so the data are separable in feature space
    (rho_K > 0).  Flags ``kernel`` and the kernel's name."""
    kernels = [kernel] if isinstance(kernel, str) else list(kernel)

    @st.composite
    def build(draw):
        k = draw(st.sampled_from(kernels))
        nn = draw(st.integers(n[0], n[1]))
        dd = draw(st.integers(d[0], d[1]))
        params = {}
        if k == "polynomial":
            params = {"degree": draw(st.sampled_from([2, 3])), "c": draw(st.sampled_from([0.5, 1.0]))}
        elif k == "gaussian":
            params = {"sigma": draw(st.sampled_from([0.5, 1.0, 2.0]))}
        seed = draw(st.integers(0, 2**16))
        return random_kernel_instance(k, nn, dd, seed, **params)

    return build()


def rational_instances(
    *, n: Tuple[int, int] = (1, 7), d: Tuple[int, int] = (1, 3), coord: Tuple[int, int] = (-3, 3)
) -> st.SearchStrategy[Instance]:
    """Instances with small integer coordinates (every coordinate drawn by hypothesis, so they
    shrink fully); zero rows are redrawn.

    Plants nothing: feasible or not, decide it exactly (``Fraction`` arithmetic on the integer
    coordinates, as RP14.lemma6 does).  Guarantees: ``X`` holds small integers exactly, no zero
    row.  Flags ``rational`` and, when they apply, ``n1``, ``d1``, ``duplicates``."""

    @st.composite
    def build(draw):
        nn = draw(st.integers(n[0], n[1]))
        dd = draw(st.integers(d[0], d[1]))
        row = st.lists(st.integers(coord[0], coord[1]), min_size=dd, max_size=dd).filter(lambda r: any(r))
        rows = draw(st.lists(row, min_size=nn, max_size=nn))
        labels = draw(st.lists(st.sampled_from([1, -1]), min_size=nn, max_size=nn))
        return rational_instance(rows, labels)

    return build()


def degenerate_instances() -> st.SearchStrategy[Instance]:
    """The fixed edge cases of :func:`degenerate_cases` plus generated ones: a single point in
    R^d, duplicated planted data, antipodal pairs, tiny planted margins.

    Each carries what it pins down in ``known``: a single point has ``rho_K = rho_2 = 1`` and
    ``rho = R = ||x||``; copies of an antipodal pair x, -x with equal labels are infeasible with
    ``delta_max = 1`` (``rho_K = -1``); tiny planted margins (0.01 to 0.03) keep the guarantees of
    :func:`separable_instances`; the fixed cases include n = 1, d = 1, duplicates, collinear data,
    margin exactly 0 (the origin on the hull's boundary, ``delta_max = 0``) and argmin ties."""

    @st.composite
    def single(draw):
        dd = draw(st.integers(1, 3))
        x = draw(st.lists(st.integers(-3, 3), min_size=dd, max_size=dd).filter(lambda r: any(r)))
        lab = draw(st.sampled_from([1, -1]))
        nrm = math.sqrt(sum(v * v for v in x))
        return Instance(f"deg:single({x},{lab})", np.array([x], dtype=np.float64), np.array([lab]),
                        known={"rho_K": 1.0, "rho_2": 1.0, "rho": nrm, "R": nrm, "support": (0,), "feasible": True},
                        flags=("separable", "n1") + (("d1",) if dd == 1 else ()))

    @st.composite
    def antipodal(draw):
        dd = draw(st.integers(1, 3))
        x = draw(st.lists(st.integers(-3, 3), min_size=dd, max_size=dd).filter(lambda r: any(r)))
        k = draw(st.integers(1, 3))  # copies of the pair
        X = np.array([x, [-v for v in x]] * k, dtype=np.float64)
        y = np.ones(2 * k, dtype=np.int64)
        return Instance(f"deg:antipodal({x},x{k})", X, y,
                        known={"rho_K": -1.0, "delta_max": 1.0, "feasible": False, "R": float(np.linalg.norm(x))},
                        flags=("infeasible", "antipodal", "collinear") + (("duplicates",) if k > 1 else ()))

    @st.composite
    def tiny(draw):
        r = draw(st.sampled_from([0.01, 0.02, 0.03]))
        seed = draw(st.integers(0, 2**10))
        return planted_separable(3, 2, draw(st.integers(0, 3)), r, seed)

    return st.one_of(st.sampled_from(degenerate_cases()), single(), antipodal(), tiny())


def instances() -> st.SearchStrategy[Instance]:
    """Any instance: ``one_of`` every strategy of this module."""
    return st.one_of(
        separable_instances(),
        infeasible_instances(),
        kernel_instances(),
        rational_instances(),
        degenerate_instances(),
    )
