"""Executable statements of Ramdas & Pena (ICML 2014), "RP14"  (spec Part A, errata Part C).

Every check is ``check(instance, **options) -> Verdict | None`` (``None``: the statement does
not apply to the instance, see :mod:`theorems.instances.suite`).  Checks read the algorithms' *traces*
(the states the driver saw), never their internals.

Conventions
-----------
* **Margins.**  rho_K is taken from the certified :func:`reference.margin` of the normalized
  signed Gram matrix G (``instance.margin_G``), rho from that of the unnormalized Y K Y
  (``instance.margin_K``).  Each is an interval ``[lower, upper]`` (width ~1e-14).  A bound is
  evaluated at the *worst end* of the interval -- the end that makes the bound tightest (e.g.
  ``1/rho^2`` with rho = ``upper``) -- so ``holds=True`` holds for every value in the certified
  interval.  Identities and equality cases (e.g. rho/R = rho_2 on unit-norm data) additionally
  get an absolute tolerance ``TOL`` = 1e-9 (float64 evaluation of the two sides).
* **Slack.**  For a bound ``A <= B``: ``A/B`` when B > 0; when B < 0 (losses),
  ``1 + (A - B)/|B|``; when B = 0, 0 if A <= 0 else inf.  In every case slack <= 1 iff the bound
  holds (up to TOL).  Identities report the error in ``details`` and slack = observed/expected.
* **Budgets.**  An iteration bound B is tested by running the algorithm with ``max_iter =
  floor(B)``: not halting is a failure.  If ``floor(B)`` exceeds the option ``max_iter`` (default
  20 000) the check returns ``None`` (undecided within budget, never a silent pass).
* **Injection.**  Checks accept ``algorithm=`` (a callable with the reference signature) and
  some accept component overrides (``loss=``, ``certify=``) so that tests can show each check
  *can* fail on a broken variant.
"""

from __future__ import annotations

import itertools
import math
import weakref
import zlib
from fractions import Fraction
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

import reference
from reference import smoothed as _smoothed  # the textbook von Neumann algorithms the checks run by default:
from reference import von_neumann as _von_neumann  # the steps of reference.nvn / snkpvn / isnkpvn, without the
# public functions' up-front refusal of accuracies below the round-off floor (Lemma 9 reads traces at 1e-8)
from reference.arithmetic import UNIT_ROUNDOFF, Arithmetic, g_norm_upper
from reference.arithmetic import gamma as _gamma  # Higham's gamma_k (check_theorem4 has a parameter gamma)
from reference.data import check_real
from reference.smoothed import loss as _loss
from reference.smoothed import smoothed_loss, smoothed_loss_q

from . import paper_bounds
from .instances import Instance
from .memo import code_fingerprint
from .registry import REGISTRY, Verdict, register


__all__ = [
    "TOL",
    "MAX_ITER",
    "witness_distance",
    "gordan_exact",
    "exact_points",
    "exact_delta_max2",
    "exact_projection",
    "lemma7_bound",
    "slack",
]

AR = Arithmetic(None)
TOL = 1e-9
MAX_ITER = 20_000
TRACE_ITERS = 200  # iterations recorded for per-iterate statements on runs that do not halt

SQRT2 = math.sqrt(2.0)


# -- helpers -------------------------------------------------------------------------------------


def slack(A: float, B: float) -> float:
    """Tightness of ``A <= B``: A/B (B > 0), 1 + (A - B)/|B| (B < 0), 0 or inf (B = 0)."""
    A, B = float(A), float(B)
    if B > 0:
        return A / B
    if B < 0:
        return 1.0 + (A - B) / (-B)
    return 0.0 if A <= TOL else math.inf


def _le(A: float, B: float, tol: float = TOL) -> bool:
    return float(A) <= float(B) + tol * (1.0 + abs(float(A)) + abs(float(B)))


def _allowance(A: float, B: float, tol: float = TOL) -> float:
    """The absolute allowance of :func:`_le` on the sides ``A``, ``B``."""
    return tol * (1.0 + abs(float(A)) + abs(float(B)))


def _verdict(cid: str, holds: bool, lhs, rhs, inst: Instance, *, sl=None, iteration=None, allowance=None,
             clause: str = "", kind: str = "", **details) -> Verdict:
    """A Verdict on ``lhs`` vs ``rhs``; ``sl`` defaults to :func:`slack` of the two, ``allowance``
    to that of :func:`_le` (``TOL`` relative), ``kind`` to the registered statement's."""
    chk = REGISTRY.get(cid)
    det = {"instance": str(inst), "statement": chk.statement if chk else "", "iteration": iteration}
    det.update(details)
    s = slack(lhs, rhs) if sl is None else sl
    tol = _allowance(lhs, rhs) if allowance is None else float(allowance)
    return Verdict(id=cid, holds=bool(holds), lhs=float(lhs), rhs=float(rhs), slack=float(s), details=det,
                   kind=kind, allowance=tol, clause=clause)


def _rank(sl: float, lhs: float, rhs: float, tol: Optional[float] = None) -> float:
    """The slack for picking the tightest clause or iterate; a pair of sides both within the
    allowance (two round-off values, whose ratio means nothing) ranks last."""
    tol = _allowance(lhs, rhs) if tol is None else tol
    return -math.inf if max(abs(float(lhs)), abs(float(rhs))) <= tol else float(sl)


def _tightest(cands):
    """The clause with the largest slack among ``(slack, lhs, rhs, clause)`` candidates (first on
    ties; round-off pairs last, :func:`_rank`)."""
    best = None
    for c in cands:
        if best is None or _rank(*c[:3]) > _rank(*best[:3]):
            best = c
    return best


def _rng(inst: Instance, salt: str = "") -> np.random.Generator:
    return np.random.default_rng(zlib.crc32((inst.name + "|" + salt).encode()))


def _G(inst: Instance) -> np.ndarray:
    return np.asarray(inst.G, dtype=np.float64)


def _rho(inst: Instance, which: str = "G") -> Tuple[float, float, Optional[bool]]:
    m = inst.margin_G if which == "G" else inst.margin_K
    return float(m.lower), float(m.upper), m.feasible


def _linear(inst: Instance) -> bool:
    return inst.kernel == "linear"


def _budget(bound: float, cap: int) -> Optional[int]:
    """max_iter = floor(bound) if within the cap, else None (undecided)."""
    if not math.isfinite(bound) or bound > cap:
        return None
    return max(int(math.floor(bound * (1 + TOL) + TOL)), 0)  # TOL: bounds attained with equality (G = I)


def _simplex_samples(inst: Instance, n: int, count: int = 8, salt: str = "p") -> List[np.ndarray]:
    """Uniform barycentre, every vertex (up to 12), and Dirichlet draws of the simplex."""
    rng = _rng(inst, salt)
    out = [np.full(n, 1.0 / n)]
    out += [np.eye(n)[i] for i in range(min(n, 12))]
    for a in (0.3, 1.0, 3.0):
        out += list(rng.dirichlet(np.full(n, a), size=max(1, count // 3)))
    return out


def _alpha_samples(inst: Instance, n: int, count: int = 12) -> List[np.ndarray]:
    rng = _rng(inst, "alpha")
    out = _simplex_samples(inst, n, count)
    out += [rng.standard_normal(n) for _ in range(count)]
    out += [rng.standard_normal(n) * (rng.random(n) < 0.4) for _ in range(count // 2)]
    return [a for a in out if np.any(a != 0)]


# traces of the reference algorithms, cached per instance and reference code (theorems.memo; only
# when no algorithm is injected)
_TRACE_CACHE: "weakref.WeakKeyDictionary[Instance, Dict]" = weakref.WeakKeyDictionary()


def _run(inst: Instance, key: str, fn: Callable[[], object], injected: bool):
    if injected:
        return fn()
    cache = _TRACE_CACHE.setdefault(inst, {})
    k = (key, code_fingerprint())  # a run of patched reference code is not a run of the reference
    if k not in cache:
        cache[k] = fn()
    return cache[k]


# -- the witness set W and dist(q, W) --------------------------------------------------------------

#: The witness solver's certification level: a point it certifies satisfies W's equations and the
#: simplex's to within this (its KKT residual), and RP14.theorem2 grants a witness no more.
WITNESS_KKT = 1e-10


def witness_distance(G: np.ndarray, q: np.ndarray, *, rank_tol: float = 1e-9, cut=None,
                     iters: Sequence[int] = (200, 3000, 20000)) -> Tuple[float, Optional[np.ndarray], dict]:
    """dist(q, W); see :func:`_witness_distance` (retried with more Dykstra rounds until the KKT
    conditions verify).  ``cut``: an absolute eigenvalue threshold for range(G) in place of
    ``rank_tol``, or ``"span"``: :func:`reference.margins.span_cut` of G's largest eigenvalue, so
    that W is the witness set of the K_r that ``margin(..., of='span')`` decides about (the cut
    used is returned in ``info``)."""
    out = None
    for it in iters:
        out = _witness_distance(G, q, rank_tol=rank_tol, cut=cut, iters=it)
        if out[2].get("certified"):
            return out
    return out


def _witness_distance(G: np.ndarray, q: np.ndarray, *, rank_tol: float, iters: int,
                      cut=None) -> Tuple[float, Optional[np.ndarray], dict]:
    """dist(q, W) = min ||q - w||_2 over the witness set W = {w in Delta_n : ||w||_G = 0}.

    Since G is PSD, ||w||_G = 0 iff G w = 0 iff V^T w = 0 for V an orthonormal basis of range(G)
    (eigenvectors with eigenvalue > ``rank_tol`` * n * max(1, lambda_max), or > ``cut`` when
    given).  So W is the polytope {w >= 0, A w = b} with A = [1^T; V^T], b = e_1, and dist(q, W)
    is the Euclidean projection of q onto it, a strictly convex QP.  Solver:

    1. Dykstra's alternating projections between {w >= 0} and the affine set {A w = b}
       (``iters`` rounds; converges to the projection onto the intersection);
    2. active-set polish: on the support S of the Dykstra point solve the equality-constrained
       problem exactly (w_S = q_S - A_S^T lam, A_S A_S^T lam = A_S q_S - b), then verify the KKT
       conditions of the full QP: w >= 0, A w = b, and multipliers
       nu_i = (A^T lam - q)_i >= 0 off S.  Indices violating them are moved in/out of S and the
       solve repeated (at most 50 rounds).

    KKT is sufficient for this convex QP, so a verified point IS the projection up to the
    residuals, which are returned in ``info`` (``kkt``: max violation, typically ~1e-15;
    ``certified``: kkt <= :data:`WITNESS_KKT`).  Checks use the distance with tolerance 1e-8.

    Returns ``(dist, w, info)`` (``info["span"]``: the kept eigenvalues and their eigenvectors V);
    ``(inf, None, info)`` when W is empty (rank test: the least-squares residual of
    {A w = b, w >= 0} stays positive, i.e. the problem is feasible).
    """
    G = np.asarray(G, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    n = G.shape[0]
    lam, U = np.linalg.eigh((G + G.T) / 2)
    if cut is None:
        thr = rank_tol * n * max(1.0, float(lam[-1]))
    elif isinstance(cut, str):
        if cut != "span":
            raise ValueError(f"cut must be None, 'span' or a real number >= 0, got {cut!r}")
        thr = reference.margins.span_cut(n, float(lam[-1]))
    else:
        thr = float(check_real("cut", cut, low=0, low_open=False, hint="pass None, 'span' or a cut >= 0"))
    kept = lam > thr
    V = U[:, kept]
    A = np.vstack([np.ones((1, n)), V.T])
    b = np.zeros(A.shape[0])
    b[0] = 1.0
    Ap = np.linalg.pinv(A)

    def proj_aff(x):
        return x - Ap @ (A @ x - b)

    x = q.copy()
    P = np.zeros(n)
    Q = np.zeros(n)
    for _ in range(iters):
        yv = proj_aff(x + P)
        P = x + P - yv
        xn = np.maximum(yv + Q, 0.0)
        Q = yv + Q - xn
        x = xn
    if np.linalg.norm(A @ x - b) > 1e-3 and iters >= 3000:
        return math.inf, None, {"certified": True, "reason": "W is empty (0 not in the hull)", "kkt": 0.0,
                                "cut": thr}
    S = set(np.flatnonzero(x > 1e-9).tolist())
    best = None
    for _ in range(50):
        idx = sorted(S)
        if not idx:
            break
        AS = A[:, idx]
        lam_s, *_ = np.linalg.lstsq(AS @ AS.T, AS @ q[idx] - b, rcond=None)
        w = np.zeros(n)
        w[idx] = q[idx] - AS.T @ lam_s
        nu = A.T @ lam_s - q
        feas = float(np.max(np.abs(A @ w - b)))
        neg = [i for i in idx if w[i] < -1e-12]
        viol = [i for i in range(n) if i not in S and nu[i] < -1e-12]
        kkt = max(feas, max((-w[i] for i in idx), default=0.0), max((-nu[i] for i in range(n) if i not in S), default=0.0), 0.0)
        if best is None or kkt < best[1]:
            best = (w, kkt)
        if not neg and not viol and feas <= WITNESS_KKT:
            break
        for i in neg:
            S.discard(i)
        if viol:
            S.add(min(viol, key=lambda i: nu[i]))
    w, kkt = best if best is not None else (x, math.inf)
    if kkt > WITNESS_KKT:  # fall back to the Dykstra point, with its own residual
        w = x
        kkt = float(np.linalg.norm(A @ x - b))
    return float(np.linalg.norm(q - w)), w, {"certified": kkt <= WITNESS_KKT, "kkt": float(kkt), "rank": int(V.shape[1]),
                                             "lambda_max": float(lam[-1]), "cut": thr, "span": (lam[kept], V)}


# -- exact Gordan (Lemma 6) -------------------------------------------------------------------------


def _phase1(A: List[List[Fraction]], b: List[Fraction]):
    """Exact Phase-I simplex (Bland's rule) for {x >= 0 : A x = b}, b >= 0, in Fractions.

    Returns ``("feasible", x)`` or ``("infeasible", y)`` with the Farkas certificate y:
    A^T y <= 0 and b^T y > 0 (y = c_B^T B^{-1}, read from the artificial columns, which start as
    the identity and so hold B^{-1} at the end).
    """
    m, n = len(A), len(A[0])
    T = [list(A[i]) + [Fraction(int(i == k)) for k in range(m)] + [b[i]] for i in range(m)]
    basis = list(range(n, n + m))
    cost = [Fraction(0)] * n + [Fraction(1)] * m
    while True:
        red = [cost[j] - sum(cost[basis[i]] * T[i][j] for i in range(m)) for j in range(n + m)]
        enter = next((j for j in range(n + m) if red[j] < 0), None)
        if enter is None:
            break
        rows = [i for i in range(m) if T[i][enter] > 0]
        if not rows:  # unbounded: impossible for Phase I (objective >= 0)
            raise RuntimeError("phase I unbounded")
        ratio = min(T[i][-1] / T[i][enter] for i in rows)
        leave = min((i for i in rows if T[i][-1] / T[i][enter] == ratio), key=lambda i: basis[i])
        piv = T[leave][enter]
        T[leave] = [v / piv for v in T[leave]]
        for i in range(m):
            if i != leave and T[i][enter] != 0:
                f = T[i][enter]
                T[i] = [a - f * c for a, c in zip(T[i], T[leave])]
        basis[leave] = enter
    obj = sum(cost[basis[i]] * T[i][-1] for i in range(m))
    if obj == 0:
        x = [Fraction(0)] * n
        for i in range(m):
            if basis[i] < n:
                x[basis[i]] = T[i][-1]
        return "feasible", x
    y = [sum(cost[basis[i]] * T[i][n + k] for i in range(m)) for k in range(m)]
    return "infeasible", y


def gordan_exact(Z: Sequence[Sequence]) -> dict:
    """Decide Gordan's alternative (RP14 Lemma 6) EXACTLY for rational reflected points z_i
    (rows of ``Z``; floats are converted exactly with ``Fraction``).

    Runs the exact Phase-I simplex on {p >= 0 : sum_i p_i z_i = 0, sum_i p_i = 1}.  Either it
    returns p (alternative 2, verified exactly: p >= 0, sum p = 1, Z^T p = 0), or Farkas'
    certificate y = (w', t) with Z w' + t 1 <= 0 and t > 0, so that w := -w' satisfies
    Z w >= t > 0 (alternative 1, verified exactly).  Each certificate refutes the other
    alternative (if Z w > 0 and p in the simplex then <w, Z^T p> = sum p_i (Z w)_i > 0, so
    Z^T p != 0); hence *exactly one* holds, and which one is decided without rounding.

    Returns a dict: ``feasible`` (bool), ``w`` or ``p`` (lists of Fraction), ``verified`` (bool).
    """
    Zf = [[Fraction(v) if not isinstance(v, Fraction) else v for v in row] for row in Z]
    n, d = len(Zf), len(Zf[0])
    A = [[Zf[i][k] for i in range(n)] for k in range(d)] + [[Fraction(1)] * n]
    b = [Fraction(0)] * d + [Fraction(1)]
    status, v = _phase1(A, b)
    if status == "feasible":
        p = v
        ok = all(x >= 0 for x in p) and sum(p) == 1 and all(sum(p[i] * Zf[i][k] for i in range(n)) == 0 for k in range(d))
        return {"feasible": False, "p": p, "verified": ok}
    w = [-v[k] for k in range(d)]
    margins = [sum(Zf[i][k] * w[k] for k in range(d)) for i in range(n)]
    ok = all(mg > 0 for mg in margins)
    return {"feasible": True, "w": w, "verified": ok, "min_margin": min(margins)}


def _exact_applicable(inst: Instance) -> bool:
    if not _linear(inst):
        return False
    X = np.asarray(inst.X, dtype=np.float64)
    integral = bool(np.all(X == np.round(X))) and float(np.max(np.abs(X))) <= 1e6
    return "rational" in inst.flags or integral or (inst.n <= 8 and inst.d <= 4)


# -- exact rational arithmetic for Lemma 7 (erratum E-A2) -------------------------------------------


def _exact_sqrt(x: Fraction) -> Optional[Fraction]:
    """sqrt(x) if it is rational, else None."""
    a, b = math.isqrt(x.numerator), math.isqrt(x.denominator)
    return Fraction(a, b) if a * a == x.numerator and b * b == x.denominator else None


def exact_points(inst: Instance) -> Optional[List[List[Fraction]]]:
    """The reflected normalized points z_i = y_i x_i/||x_i|| (rows of RP14's Y phi~_X for the linear
    kernel) in exact rationals, or ``None`` when they are not rational.

    The rational coordinates are ``inst.known["exact_X"]`` (rows of Fractions or ``"p/q"`` strings,
    which must round to ``inst.X``) or else integer ``X``; every ||x_i||^2 must be the square of a
    rational (e.g. points on the unit circle with Pythagorean coordinates)."""
    if not _linear(inst):
        return None
    X = np.asarray(inst.X, dtype=np.float64)
    src = inst.known.get("exact_X")
    if src is not None:
        rows = [[Fraction(v) for v in row] for row in src]
        if np.asarray(rows, dtype=object).shape != X.shape or any(
                abs(float(v) - X[i, k]) > 4e-16 * (1 + abs(X[i, k])) for i, row in enumerate(rows) for k, v in enumerate(row)):
            raise ValueError(f"{inst.name}: known['exact_X'] does not round to X; store X = float(exact_X)")
    elif np.all(X == np.round(X)) and float(np.max(np.abs(X), initial=0.0)) <= 1e6:
        rows = [[Fraction(int(v)) for v in row] for row in X]
    else:
        return None
    out = []
    for row, yi in zip(rows, inst.y):
        nrm = _exact_sqrt(sum((v * v for v in row), Fraction(0)))
        if not nrm:
            return None
        out.append([int(yi) * v / nrm for v in row])
    return out


def _solve_exact(M: List[List[Fraction]], rhs: List[Fraction]) -> Optional[List[Fraction]]:
    """One solution of M x = rhs (Gauss-Jordan in Fractions, free variables 0); None if inconsistent."""
    m, k = len(M), len(M[0]) if M else 0
    T = [list(M[i]) + [rhs[i]] for i in range(m)]
    piv_cols, row = [], 0
    for col in range(k):
        pr = next((i for i in range(row, m) if T[i][col] != 0), None)
        if pr is None:
            continue
        T[row], T[pr] = T[pr], T[row]
        pv = T[row][col]
        T[row] = [v / pv for v in T[row]]
        for i in range(m):
            if i != row and T[i][col] != 0:
                f = T[i][col]
                T[i] = [a - f * c for a, c in zip(T[i], T[row])]
        piv_cols.append(col)
        row += 1
    if any(T[i][k] != 0 for i in range(row, m)):
        return None
    x = [Fraction(0)] * k
    for i, col in enumerate(piv_cols):
        x[col] = T[i][k]
    return x


EXACT_MAX_N = {1: 64, 2: 64, 3: 24}  # facet enumeration is C(n, d) exact hyperplanes


def _hyperplane(P: Sequence[Sequence[Fraction]]) -> Optional[Tuple[List[Fraction], Fraction]]:
    """(a, b) with a . z = b through the d points ``P`` in R^d (d <= 3); None if they are
    affinely dependent (a = 0)."""
    d = len(P)
    if d == 1:
        a = [Fraction(1)]
    elif d == 2:
        e = [P[1][c] - P[0][c] for c in range(2)]
        a = [-e[1], e[0]]
    else:
        e = [P[1][c] - P[0][c] for c in range(3)]
        f = [P[2][c] - P[0][c] for c in range(3)]
        a = [e[1] * f[2] - e[2] * f[1], e[2] * f[0] - e[0] * f[2], e[0] * f[1] - e[1] * f[0]]
    if not any(a):
        return None
    return a, sum((x * y for x, y in zip(a, P[0])), Fraction(0))


def exact_delta_max2(Z: Sequence[Sequence[Fraction]]) -> Optional[Fraction]:
    """delta_max^2 EXACTLY (RP14 Thm. 3: = rho_K^2 for infeasible data) for rational points z_i in
    R^d, d <= 3 (n <= ``EXACT_MAX_N[d]``), whose hull is full-dimensional with 0 strictly inside;
    ``None`` otherwise.

    Every d affinely independent points span a hyperplane a . z = b; it supports the hull when all
    a . z_i - b have one sign (orient them <= 0).  Facet hyperplanes are among these, and every
    supporting hyperplane is at least delta_max from 0, so delta_max^2 = min b^2/||a||^2 over them
    -- provided 0 is strictly inside, i.e. b > 0 for every supporting hyperplane (b <= 0: 0 is on
    or beyond a facet), and not all points lie on one hyperplane (hull not full-dimensional)."""
    n, d = len(Z), len(Z[0])
    if not 1 <= d <= 3 or n <= d or n > EXACT_MAX_N[d]:
        return None
    best = None
    for S in itertools.combinations(range(n), d):
        hp = _hyperplane([Z[j] for j in S])
        if hp is None:
            continue
        a, b = hp
        vals = [sum((x * y for x, y in zip(a, z)), Fraction(0)) - b for z in Z]
        if all(v >= 0 for v in vals):
            a, b, vals = [-x for x in a], -b, [-v for v in vals]
        if not all(v <= 0 for v in vals):
            continue  # not supporting
        if not any(vals) or b <= 0:
            return None  # hull in a hyperplane, or 0 not strictly inside
        h2 = b * b / sum((x * x for x in a), Fraction(0))
        best = h2 if best is None else min(best, h2)
    return best


def exact_projection(Z: Sequence[Sequence[Fraction]], q: Sequence[Fraction], support: Sequence[int]
                     ) -> Optional[Tuple[Fraction, List[Fraction]]]:
    """``(dist(q, W)^2, p*)`` EXACTLY, p* the projection of q onto W = {p in Delta_n : sum p_i z_i = 0},
    certified on the active set ``support`` (typically read off the float projection).

    With A = [1^T; Z^T], b = e_1: on S solve A_S A_S^T lam = A_S q_S - b, put p*_S = q_S - A_S^T lam,
    p* = 0 off S.  KKT (sufficient for this convex QP): A p* = b, p*_S >= 0 and the multipliers
    nu_i = (A^T lam - q)_i >= 0 off S.  Returns ``None`` when the certificate does not verify
    on ``support`` (nothing is decided from a wrong active set)."""
    n, d = len(Z), len(Z[0])
    A = [[Fraction(1)] * n] + [[Z[i][c] for i in range(n)] for c in range(d)]
    b = [Fraction(1)] + [Fraction(0)] * d
    S = sorted(set(int(i) for i in support))
    if not S:
        return None
    M = [[sum((A[r][i] * A[s][i] for i in S), Fraction(0)) for s in range(d + 1)] for r in range(d + 1)]
    rhs = [sum((A[r][i] * q[i] for i in S), Fraction(0)) - b[r] for r in range(d + 1)]
    lam = _solve_exact(M, rhs)
    if lam is None:
        return None
    At_lam = [sum((A[r][i] * lam[r] for r in range(d + 1)), Fraction(0)) for i in range(n)]
    p = [q[i] - At_lam[i] if i in S else Fraction(0) for i in range(n)]
    feasible = all(sum((A[r][i] * p[i] for i in range(n)), Fraction(0)) == b[r] for r in range(d + 1))
    if not (feasible and all(v >= 0 for v in p) and all(At_lam[i] - q[i] >= 0 for i in range(n) if i not in S)):
        return None
    return sum(((q[i] - p[i]) ** 2 for i in range(n)), Fraction(0)), p


# ==================================================================================================
# Section 2: Perceptron, Normalized Perceptron, normalized margins
# ==================================================================================================


@register(
    "RP14.novikoff",
    "Block-Novikoff: if y_i u^T x_i >= rho > 0 for a unit u, the Perceptron (Alg. 1, any choice of "
    "misclassified point; here cyclic and most-violated) makes at most max_i ||x_i||^2/rho^2 updates.",
    "RP14 Sec. 2.1, Alg. 1; spec A.2",
)
def check_novikoff(inst: Instance, *, algorithm=None, max_iter: int = MAX_ITER, rules=("cyclic", "most_violated"), **_) -> Optional[Verdict]:
    if not _linear(inst):
        return None
    lo, hi, feas = _rho(inst, "K")
    if not feas or lo <= 0:
        return None
    R2 = float(np.max(np.sum(np.asarray(inst.X, float) ** 2, axis=1)))
    bound = R2 / hi**2
    mi = _budget(bound, max_iter)
    if mi is None:
        return None
    alg = algorithm or reference.perceptron
    worst = None
    for rule in rules:
        res = alg(inst.X, inst.y, rule=rule, max_iter=mi)
        ok = res.status == "separator" and _le(res.iterations, bound)
        cand = (not ok, res.iterations, rule, res.status)
        if worst is None or cand > worst:
            worst = cand
    failed, k, rule, status = worst
    return _verdict("RP14.novikoff", not failed, k, bound, inst, iteration=k if failed else None,
                    rule=rule, status=status, rho=hi, R2=R2)


@register(
    "RP14.normalized_perceptron",
    "The Normalized Perceptron (Alg. 2) run on X_2 (unit-norm points) finds a perfect separator "
    "within 1/rho_2^2 iterations whenever rho_2 > 0.",
    "RP14 Sec. 2.2, Alg. 2; spec A.3-A.4",
)
def check_normalized_perceptron(inst: Instance, *, algorithm=None, max_iter: int = MAX_ITER, **_) -> Optional[Verdict]:
    if not _linear(inst):
        return None
    lo, hi, feas = _rho(inst, "G")
    if not feas or lo <= 0:
        return None
    bound = 1.0 / hi**2
    mi = _budget(bound, max_iter)
    if mi is None:
        return None
    alg = algorithm or reference.normalized_perceptron
    res = alg(inst.X, inst.y, normalize=True, max_iter=mi)
    ok = res.status == "separator" and _le(res.iterations, bound)
    return _verdict("RP14.normalized_perceptron", ok, res.iterations, bound, inst,
                    iteration=None if ok else res.iterations, status=res.status, rho_2=hi)


@register(
    "RP14.normalization",
    "Normalizing never hurts the bound: rho / max_i ||x_i|| <= rho_2 (Graepel et al.), for separable data.",
    "RP14 Sec. 2.2 remark; spec A.4",
)
def check_normalization(inst: Instance, **_) -> Optional[Verdict]:
    if not _linear(inst):
        return None
    klo, khi, kfeas = _rho(inst, "K")
    glo, ghi, gfeas = _rho(inst, "G")
    if not kfeas or not gfeas:
        return None
    R = paper_bounds.radius(inst.X)
    lhs = khi / R
    return _verdict("RP14.normalization", _le(lhs, glo), lhs, glo, inst, rho=khi, R=R, rho_2=glo)


@register(
    "RP14.example",
    "Worked example (Sec. 2.2): '+' points on (0.6,0.8), '-' on (0.8,0.6), norms in [1/r, r]: "
    "rho_2 = sqrt(2)/10, rho = sqrt(2)/(10 r), and (max||x||^2/rho^2)/(1/rho_2^2) = r^4.",
    "RP14 Sec. 2.2; spec A.4 worked example",
    kind="identity",
)
def check_example(inst: Instance, **_) -> Optional[Verdict]:
    if "example" not in inst.flags or "r" not in inst.known:
        return None
    r = float(inst.known["r"])
    glo, ghi, _f = _rho(inst, "G")
    klo, khi, _f = _rho(inst, "K")
    R = paper_bounds.radius(inst.X)
    ratio_hi = (R**2 / klo**2) * ghi**2
    ratio_lo = (R**2 / khi**2) * glo**2
    target = r**4
    rho2, rho = SQRT2 / 10, SQRT2 / (10 * r)
    ok_ratio = ratio_lo - TOL * target <= target <= ratio_hi + TOL * target
    ok_rho2 = glo - TOL <= rho2 <= ghi + TOL
    ok_rho = klo - TOL <= rho <= khi + TOL
    ok_R = abs(R - r) <= TOL * r
    mid = (ratio_lo + ratio_hi) / 2
    return _verdict("RP14.example", ok_ratio and ok_rho2 and ok_rho and ok_R, mid, target, inst,
                    sl=mid / target, allowance=TOL * target + (ratio_hi - ratio_lo) / 2, rho_2=[glo, ghi], rho=[klo, khi], R=R,
                    novikoff_bound=R**2 / khi**2, normalized_bound=1 / ghi**2,
                    checks={"ratio": ok_ratio, "rho_2": ok_rho2, "rho": ok_rho, "R": ok_R})


# ==================================================================================================
# Section 3: kernels, L, Lemmas 1-3, eq. (7), NKP
# ==================================================================================================


def _iterates(inst: Instance, G: np.ndarray) -> List[np.ndarray]:
    """alpha's from an SNKP trace (<= TRACE_ITERS steps) and an NKP trace -- the algorithms' own iterates."""
    snkp = _run(inst, "snkp-trace", lambda: reference.snkp(G, trace=True, max_iter=TRACE_ITERS), False)
    nk = _run(inst, "nkp-trace", lambda: reference.nkp(G, trace=True, max_iter=TRACE_ITERS), False)
    out = [np.asarray(s.alpha, float) for s in snkp.trace[::5]]
    out += [np.asarray(s.alpha, float) for s in nk.trace[1::5]]
    out += [np.asarray(s.p, float) for s in snkp.trace[::5]]
    return out


@register(
    "RP14.lemma1",
    "L(alpha) < 0 implies G alpha > 0; and a perfect classifier exists iff G alpha > 0 for some alpha "
    "(feasible: alpha = p* works; infeasible: no alpha does).",
    "RP14 Lemma 1; spec A.6",
    kind="dichotomy",
)
def check_lemma1(inst: Instance, *, loss: Callable = None, **_) -> Optional[Verdict]:
    G = _G(inst)
    n = G.shape[0]
    L = loss or _loss
    m = inst.margin_G
    alphas = _alpha_samples(inst, n) + _iterates(inst, G)
    if m.p is not None:
        alphas.append(np.asarray(m.p, float))
    worst_min, worst_L, bad = math.inf, 0.0, None
    neg = 0
    for t, a in enumerate(alphas):
        La = float(L(G, a, AR))
        if La < -1e-12:
            neg += 1
            mn = float(np.min(G @ a))
            if mn < worst_min:
                worst_min, worst_L = mn, La
            if not mn > 0:
                bad = bad if bad is not None else t
    implication = bad is None
    if m.feasible:
        pstar = np.asarray(m.p, float)
        iff = bool(np.min(G @ pstar) > 0)
        why = f"feasible: min(G p*) = {float(np.min(G @ pstar)):.3e}"
    else:
        # infeasible: G alpha > 0 is impossible; a witness p with ||p||_G ~ 0 bounds every
        # min_i (G alpha)_i <= p^T G alpha <= ||p||_G ||alpha||_G
        pw = np.asarray(m.p, float) if m.p is not None else np.full(n, 1.0 / n)
        eta = reference.g_norm(G, pw)
        viol = [a for a in alphas if float(np.min(G @ a)) > eta * reference.g_norm(G, a) + TOL]
        iff = not viol
        why = f"infeasible: witness ||p||_G = {eta:.2e}; sampled alphas with G alpha > 0: {len(viol)}"
    lhs = -worst_min if math.isfinite(worst_min) else 0.0
    return _verdict("RP14.lemma1", implication and iff, lhs, 0.0, inst, sl=math.nan,
                    iteration=bad, samples=len(alphas), with_negative_L=neg,
                    worst=f"L={worst_L:.3e}, min(G alpha)={worst_min:.3e}", iff=why)


@register(
    "RP14.lemma2",
    "||alpha||_G <= ||alpha||_1 <= sqrt(n) ||alpha||_2 for every alpha in R^n.",
    "RP14 Lemma 2; spec A.6",
)
def check_lemma2(inst: Instance, **_) -> Optional[Verdict]:
    G = _G(inst)
    n = G.shape[0]
    alphas = _alpha_samples(inst, n, 20)
    try:
        alphas += _iterates(inst, G)
    except ValueError:  # G is not a normalized Gram matrix (e.g. doctored): no algorithm iterates
        pass
    r1 = r2 = 0.0
    bad = None
    for t, a in enumerate(alphas):
        g, l1, l2 = reference.g_norm(G, a), float(np.sum(np.abs(a))), float(np.linalg.norm(a))
        q1, q2 = g / l1, l1 / (math.sqrt(n) * l2)
        r1, r2 = max(r1, q1), max(r2, q2)
        if bad is None and not (_le(g, l1) and _le(l1, math.sqrt(n) * l2)):
            bad = t
    lhs = max(r1, r2)
    return _verdict("RP14.lemma2", bad is None, lhs, 1.0, inst, iteration=bad,
                    max_G_over_l1=r1, max_l1_over_sqrtn_l2=r2, samples=len(alphas))


@register(
    "RP14.lemma3",
    "rho_K = sup_{||alpha||_G=1} inf_p <alpha,p>_G <= ||p||_G for every p in the simplex; when "
    "rho_K > 0 the alpha-form equals min_p ||p||_G (attained at the min-norm point p*).",
    "RP14 Lemma 3; spec A.6",
)
def check_lemma3(inst: Instance, *, algorithm=None, **_) -> Optional[Verdict]:
    G = _G(inst)
    n = G.shape[0]
    lo, hi, feas = _rho(inst, "G")
    ps = _simplex_samples(inst, n, 12)
    snkp = _run(inst, "snkp-trace", lambda: reference.snkp(G, trace=True, max_iter=TRACE_ITERS), False)
    ps += [np.asarray(s.p, float) for s in snkp.trace]
    nv = (algorithm or _von_neumann.nvn)(G, 1e-3, trace=True, max_iter=TRACE_ITERS)
    ps += [np.asarray(s.p, float) for s in nv.trace]
    norms = [reference.g_norm(G, p) for p in ps]
    j = int(np.argmin(norms))
    minp = norms[j]
    ineq = _le(hi, minp)
    agree, detail = True, "n/a (rho_K <= 0)"
    if feas:
        pstar = np.asarray(inst.margin_G.p, float)
        nrm = reference.g_norm(G, pstar)
        alpha_form = float(np.min(G @ pstar)) / nrm  # value of the alpha-form at alpha = p*/||p*||_G
        agree = abs(alpha_form - nrm) <= TOL * (1 + nrm) and lo - TOL <= nrm <= hi + TOL
        detail = f"alpha-form at p*: {alpha_form:.15g}; ||p*||_G = {nrm:.15g}; interval [{lo:.15g}, {hi:.15g}]"
    return _verdict("RP14.lemma3", ineq and agree, hi, minp, inst, iteration=None if ineq else j,
                    samples=len(ps), agree=detail)


@register(
    "RP14.eq7",
    "inf_alpha L(alpha) = -rho_K^2/2, attained at alpha = p* when rho_K > 0 (L(alpha) >= -rho_K^2/2 "
    "for all alpha); inf L = 0 when rho_K <= 0.",
    "RP14 eq. (7), Lemma 3 consequence; spec A.5-A.6",
    kind="identity",
)
def check_eq7(inst: Instance, *, loss: Callable = None, **_) -> Optional[Verdict]:
    G = _G(inst)
    n = G.shape[0]
    L = loss or _loss
    lo, hi, feas = _rho(inst, "G")
    alphas = _alpha_samples(inst, n) + _iterates(inst, G)
    Ls = [float(L(G, a, AR)) for a in alphas]
    if feas:
        pstar = np.asarray(inst.margin_G.p, float)
        Lp = float(L(G, pstar, AR))
        target = -(lo**2) / 2  # the infimum; lower end (|.| smallest) is the conservative value for "L >= target"
        err = abs(Lp + hi**2 / 2)
        at_pstar = err <= TOL + (hi**2 - lo**2) / 2
        mn = min(Ls + [Lp])
        j = int(np.argmin(Ls)) if Ls else None
        is_inf = _le(-hi**2 / 2, mn)  # L(alpha) >= -rho_K^2/2 (worst end: rho = upper)
        ok = at_pstar and is_inf
        return _verdict("RP14.eq7", ok, -mn, hi**2 / 2, inst, sl=-mn / (hi**2 / 2) if hi > 0 else math.nan,
                        iteration=None if is_inf else j, L_at_pstar=Lp, error_at_pstar=err,
                        samples=len(alphas))
    mn = min(Ls + [float(L(G, np.zeros(n), AR))])
    ok = _le(-mn, 0.0) and abs(float(L(G, np.zeros(n), AR))) <= TOL
    return _verdict("RP14.eq7", ok, -mn, 0.0, inst, samples=len(alphas), case="rho_K <= 0: inf L = 0")


@register(
    "RP14.nkp",
    "The Normalized Kernel Perceptron (Alg. 3) halts with G alpha > 0 within 1/rho_K^2 iterations when rho_K > 0.",
    "RP14 Alg. 3; spec A.7",
)
def check_nkp(inst: Instance, *, algorithm=None, max_iter: int = MAX_ITER, **_) -> Optional[Verdict]:
    lo, hi, feas = _rho(inst, "G")
    if not feas or lo <= 0:
        return None
    bound = 1.0 / hi**2
    mi = _budget(bound, max_iter)
    if mi is None:
        return None
    res = (algorithm or reference.nkp)(_G(inst), max_iter=mi)
    ok = res.status == "separator" and _le(res.iterations, bound)
    return _verdict("RP14.nkp", ok, res.iterations, bound, inst, iteration=None if ok else res.iterations,
                    status=res.status, rho_K=hi)


# ==================================================================================================
# Section 4: SNKP, Lemmas 4-5, Theorem 1
# ==================================================================================================


def _snkp_trace(inst: Instance, algorithm, max_iter: int):
    G = _G(inst)
    lo, hi, feas = _rho(inst, "G")
    mi = TRACE_ITERS
    if feas and lo > 0:
        b = _budget(2 * math.sqrt(2 * math.log(G.shape[0])) / hi, max_iter)
        mi = max(mi, b or 0)
    if algorithm is not None:
        return algorithm(G, trace=True, max_iter=mi)
    return _run(inst, f"snkp-trace-{mi}", lambda: reference.snkp(G, trace=True, max_iter=mi), False)


def _along_trace(trace, sides):
    """Evaluate a per-iterate statement lhs <= rhs on every state of a trace.

    ``sides(state) -> (lhs, rhs, slack)``.  Returns ``((slack, lhs, rhs, k), bad)``: the iterate
    with the largest slack (round-off pairs last), and the first iteration k where lhs <= rhs fails (None if none).
    """
    worst, bad = None, None
    for s in trace:
        lhs, rhs, sl = sides(s)
        if worst is None or _rank(sl, lhs, rhs) > _rank(*worst[:3]):
            worst = (sl, lhs, rhs, s.k)
        if bad is None and not _le(lhs, rhs):
            bad = s.k
    return worst, bad


@register(
    "RP14.lemma4",
    "For every SNKP iterate: L_{mu_k}(alpha_k) >= L(alpha_k) - mu_k log n.",
    "RP14 Lemma 4; spec A.8",
)
def check_lemma4(inst: Instance, *, algorithm=None, max_iter: int = MAX_ITER, **_) -> Optional[Verdict]:
    G = _G(inst)
    n = G.shape[0]
    res = _snkp_trace(inst, algorithm, max_iter)

    def sides(s):
        a, mu = np.asarray(s.alpha, float), float(s.mu)
        gap = float(_loss(G, a, AR)) - float(smoothed_loss(G, a, mu, AR))
        bnd = mu * math.log(n)
        return gap, bnd, slack(gap, bnd) if bnd > 0 else (0.0 if gap <= TOL else math.inf)

    (sl, gap, bnd, k), bad = _along_trace(res.trace, sides)
    return _verdict("RP14.lemma4", bad is None, gap, bnd, inst, sl=sl, iteration=bad, worst_iteration=k,
                    iterates=len(res.trace))


@register(
    "RP14.lemma5",
    "Excessive gap: for every SNKP iterate, L_{mu_k}(alpha_k) <= -(1/2)||p_k||_G^2.",
    "RP14 Lemma 5 (statement reconstructed, spec A.8, A.13)",
)
def check_lemma5(inst: Instance, *, algorithm=None, max_iter: int = MAX_ITER, **_) -> Optional[Verdict]:
    G = _G(inst)
    res = _snkp_trace(inst, algorithm, max_iter)

    def sides(s):
        a, p, mu = np.asarray(s.alpha, float), np.asarray(s.p, float), float(s.mu)
        A = float(smoothed_loss(G, a, mu, AR))
        B = -0.5 * reference.g_norm(G, p) ** 2
        return A, B, slack(A, B)

    (sl, A, B, k), bad = _along_trace(res.trace, sides)
    return _verdict("RP14.lemma5", bad is None, A, B, inst, sl=sl, iteration=bad, worst_iteration=k,
                    iterates=len(res.trace))


@register(
    "RP14.theorem1",
    "SNKP (Alg. 4) halts with G alpha > 0 within k <= 2 sqrt(2 log n)/rho_K iterations when rho_K > 0 "
    "(n = 1: bound 0, and SNKP halts at k = 0 since G = [1] and alpha_0 = 1).",
    "RP14 Theorem 1; spec A.8",
)
def check_theorem1(inst: Instance, *, algorithm=None, max_iter: int = MAX_ITER, **_) -> Optional[Verdict]:
    lo, hi, feas = _rho(inst, "G")
    if not feas or lo <= 0:
        return None
    G = _G(inst)
    n = G.shape[0]
    bound = 2 * math.sqrt(2 * math.log(n)) / hi
    mi = _budget(bound, max_iter)
    if mi is None:
        return None
    res = (algorithm or reference.snkp)(G, max_iter=mi)
    ok = res.status == "separator" and _le(res.iterations, bound)
    return _verdict("RP14.theorem1", ok, res.iterations, bound, inst, iteration=None if ok else res.iterations,
                    status=res.status, n=n, rho_K=hi)


# ==================================================================================================
# Section 5: Gordan, NVN, Theorems 2-4, Lemmas 7-9
# ==================================================================================================


@register(
    "RP14.lemma6",
    "Gordan: exactly one of (1) exists w with y_i w^T x_i > 0 for all i, (2) exists p in the simplex "
    "with sum_i p_i y_i x_i = 0 -- decided in exact rational arithmetic (both certificates verified "
    "exactly), and the float certified margin agrees.",
    "RP14 Lemma 6; spec A.9",
    kind="dichotomy",
)
def check_lemma6(inst: Instance, *, certify: Callable = None, **_) -> Optional[Verdict]:
    if not _exact_applicable(inst):
        return None
    Z = [[Fraction(float(v)) * int(yi) for v in row] for row, yi in zip(np.asarray(inst.X, float), inst.y)]
    out = (certify or gordan_exact)(Z)
    alt1 = bool(out.get("feasible")) and out.get("w") is not None
    alt2 = (not out.get("feasible")) and out.get("p") is not None
    exactly_one = (alt1 != alt2) and bool(out.get("verified"))
    # an exact certificate of one alternative refutes the other; re-verify here independently
    if alt1:
        w = out["w"]
        exactly_one &= all(sum(z[k] * w[k] for k in range(len(w))) > 0 for z in Z)
    if alt2:
        p = out["p"]
        exactly_one &= all(x >= 0 for x in p) and sum(p) == 1 and all(
            sum(p[i] * Z[i][k] for i in range(len(Z))) == 0 for k in range(len(Z[0])))
    float_feasible = inst.margin_G.feasible
    agree = float_feasible is None or bool(float_feasible) == alt1
    if not agree:
        # G is X's Gram matrix *rounded* (by the BLAS at hand), and so can fall on the other side
        # of Gordan's alternative when X's is decided by a margin below that rounding (points of a
        # lower-dimensional subspace, separated by ~1e-17 on one machine's X and not on another's).
        # margin's claim is about G as stored: it agrees when it holds there exactly, the interval
        # on the side of 0 that its verdict says (upper <= 0 for infeasible, lower > 0 for feasible).
        m = inst.margin_G
        side = m.lower > 0 if float_feasible else m.upper <= 0
        agree = bool(side) and reference.verify_margin_exact(m, inst.G) == ""
    return _verdict("RP14.lemma6", exactly_one and agree, int(alt1) + int(alt2), 1, inst, sl=math.nan,
                    exact="separator w" if alt1 else "witness p", float_margin_feasible=float_feasible,
                    certificate=[str(v) for v in (out.get("w") or out.get("p") or [])][:12])


@register(
    "RP14.theorem2",
    "Gordan in an RKHS: feasible => G p* >= rho_K^2 1 > 0 (p* the min-norm point); infeasible => some "
    "p in the simplex has ||p||_G = 0; never both.",
    "RP14 Theorem 2; spec A.10",
    kind="dichotomy",
)
def check_theorem2(inst: Instance, **_) -> Optional[Verdict]:
    G = _G(inst)
    n = G.shape[0]
    m = inst.margin_G
    lo, hi, feas = _rho(inst, "G")
    if feas:
        pstar = np.asarray(m.p, float)
        mn = float(np.min(G @ pstar))
        r2 = reference.g_norm(G, pstar) ** 2
        ok = _le(r2, mn) and lo > 0 and mn > 0
        # never both: ||p||_G >= rho_K > 0 on the simplex (Lemma 3) -- checked in RP14.lemma3
        return _verdict("RP14.theorem2", ok, lo**2, mn, inst, case="feasible", rho_K2=r2, kind="bound",
                        clause="feasible: rho_K^2 <= min_i (G p*)_i")
    if feas is None:
        return None  # the margin decided neither case: no claim to check
    # Infeasible.  The margin's verdict is about K_r = V_r S_r V_r^T, G restricted to its numerical
    # span (of='span': eigenvalues above span_cut): Theorem 2 on K_r gives w in the simplex with
    # ||w||_{K_r} = ||S_r^{1/2} V_r^T w|| = 0, the witness set W with that cut.  Judged on K_r
    # itself: ||S_r^{1/2} V_r^T w|| <= sqrt(r lambda_max) (WITNESS_KKT + 2 gamma_{n+2} ||w||_1), the
    # solver's certification level for V_r^T w = 0 plus the round-off of the product (|V| <= 1),
    # fixed -- not the residual the solver reports, which would grant a poor witness its own
    # defect -- and w in the simplex to that level.  A witness off W or off the simplex, or a K_r
    # whose hull misses 0 (W empty), fails.  (On G as stored, ||w||_G is larger by at most the
    # discarded spectrum, ||w||_G^2 <= ||w||_{K_r}^2 + 2 cut ||w||_2^2: reported, not judged.)
    p = np.asarray(m.p, float) if m.p is not None else None
    dist, w, info = witness_distance(G, np.full(n, 1.0 / n), cut="span")
    if w is None:
        return _verdict("RP14.theorem2", False, math.inf, 0.0, inst, sl=math.nan, case="infeasible",
                        clause="infeasible: a witness p with ||p||_{K_r} = 0", reason=info.get("reason"))
    s_r, V_r = info["span"]
    eta = float(np.linalg.norm(np.sqrt(s_r) * (V_r.T @ w)))  # ||w||_{K_r}
    kkt, r, lam_max = float(info["kkt"]), int(info["rank"]), max(float(info["lambda_max"]), 0.0)
    allowance = math.sqrt(r * lam_max) * (WITNESS_KKT + 2 * _gamma(n + 2, AR) * float(np.sum(np.abs(w))))
    ok = eta <= allowance and float(np.min(w)) >= -WITNESS_KKT and abs(float(np.sum(w)) - 1) <= WITNESS_KKT
    return _verdict("RP14.theorem2", ok, eta, 0.0, inst, sl=math.nan, case="infeasible", allowance=allowance,
                    clause="infeasible: a witness p with ||p||_{K_r} = 0 (K_r: G on its numerical span)",
                    witness_norm_on_G=float(g_norm_upper(G, w, AR)),
                    margin_p_norm=reference.g_norm(G, p) if p is not None else None, kkt=kkt, rank=r,
                    cut=float(info["cut"]))


@register(
    "RP14.nvn",
    "NVN (Alg. 5, with the primal exit of E-A6) on unit-norm data (a normalized G) keeps "
    "||w_k|| = ||p_k||_G <= 1/sqrt(k+1) and so halts within 1/eps^2 iterations (with an "
    "eps-certificate when infeasible).",
    "RP14 Alg. 5 and its guarantee; spec A.9",
)
def check_nvn(inst: Instance, *, algorithm=None, epsilons=(0.1, 0.03), max_iter: int = MAX_ITER, **_) -> Optional[Verdict]:
    G = _G(inst)
    _lo, _hi, feas = _rho(inst, "G")
    alg = algorithm or _von_neumann.nvn
    worst, bad, info = None, None, {}
    for eps in epsilons:
        bound = 1.0 / eps**2
        mi = _budget(bound, max_iter)
        if mi is None:
            continue
        res = alg(G, eps, trace=True, max_iter=mi)
        halted = res.status in ("certificate", "separator") and _le(res.iterations, bound)
        if feas is False and res.status != "certificate":
            halted = False
        norms = [(reference.g_norm(G, np.asarray(s.p, float)), s.k) for s in res.trace]
        dec = max(pn * math.sqrt(k + 1) for pn, k in norms)
        decay_bad = next((k for pn, k in norms if not _le(pn, 1 / math.sqrt(k + 1))), None)
        # each clause with its own sides: the decay at its tightest k, and the halting count
        pn, kd = max(norms, key=lambda nk: nk[0] * math.sqrt(nk[1] + 1))
        cand = _tightest([(dec, pn, 1 / math.sqrt(kd + 1), f"||p_k||_G <= 1/sqrt(k+1) at k = {kd}, eps = {eps}"),
                          (slack(res.iterations, bound), res.iterations, bound, f"iterations <= 1/eps^2, eps = {eps}")])
        info[f"eps={eps}"] = f"{res.status} at k={res.iterations} (bound {bound:.0f}); max ||p_k||_G sqrt(k+1) = {dec:.4f}"
        worst = _tightest([worst, cand]) if worst is not None else cand
        if bad is None and (not halted or decay_bad is not None):
            bad = decay_bad if decay_bad is not None else res.iterations
    if worst is None:
        return None
    sl, lhs, rhs, clause = worst
    return _verdict("RP14.nvn", bad is None, lhs, rhs, inst, sl=sl, iteration=bad, clause=clause, runs=info)


def _delta_max(inst: Instance) -> Optional[float]:
    if "delta_max" in inst.known:
        return float(inst.known["delta_max"])
    G = _G(inst)
    if G.shape[0] > 14:
        return None
    lam, U = np.linalg.eigh(G)
    keep = lam > 1e-9 * G.shape[0]
    if int(np.sum(keep)) > 4:
        return None
    from .instances.strategies import origin_inradius

    Zs = U[:, keep] * np.sqrt(lam[keep])
    r, _rank = origin_inradius(Zs)
    return r if math.isfinite(r) else None


@register(
    "RP14.theorem3",
    "When the primal is infeasible, |rho_K| = delta_max, the radius of the largest ball about 0 "
    "(inside span{y_i phi~_i}, erratum E-A3) contained in conv(Y phi~_X).",
    "RP14 Theorem 3; spec A.10, E-A3, E-A9",
    kind="identity",
)
def check_theorem3(inst: Instance, **_) -> Optional[Verdict]:
    lo, hi, feas = _rho(inst, "G")
    if feas is not False:
        return None
    dm = _delta_max(inst)
    if dm is None:
        return None
    a_lo, a_hi = max(-hi, 0.0), -lo  # |rho_K| interval (rho_K <= 0)
    ok = a_lo - TOL <= dm <= a_hi + TOL
    mid = (a_lo + a_hi) / 2
    return _verdict("RP14.theorem3", ok, mid, dm, inst, allowance=TOL + (a_hi - a_lo) / 2, sl=(mid / dm) if dm > 0 else (0.0 if mid <= TOL else math.inf),
                    abs_rho_K=[a_lo, a_hi], delta_max=dm, source="planted" if "delta_max" in inst.known else "enumerated")


def _lemma7_qs(inst: Instance, G: np.ndarray) -> List[Tuple[np.ndarray, Optional[List[Fraction]]]]:
    """(float q, exact q or None): the instance's explicit q's (``known["lemma7_q"]``, exact), the
    simplex samples, and SNKPVN iterates from the barycentre."""
    n = G.shape[0]
    out = []
    for qx in inst.known.get("lemma7_q", ()):
        qe = [Fraction(v) for v in qx]
        if len(qe) != n or any(v < 0 for v in qe) or sum(qe) != 1:
            raise ValueError(f"{inst.name}: known['lemma7_q'] must hold points of the simplex of length n = {n}")
        out.append((np.array([float(v) for v in qe]), qe))
    qs = _simplex_samples(inst, n, 9, salt="q")
    res = _run(inst, "snkpvn-uniform", lambda: _smoothed.snkpvn(G, np.full(n, 1.0 / n), 1e-6, trace=True, max_iter=60), False)
    qs += [np.asarray(s.p, float) for s in res.trace[::6]]
    return out + [(q, None) for q in qs]


SQRT32 = math.sqrt(1.5)


def lemma7_bound(q_norm_G: float, rho_abs: float, printed: bool = False) -> float:
    """The right side of RP14 Lemma 7 for ||q||_G and |rho_K| (erratum E-A2).

    corrected (proved, ``proofs_check`` ``RP14.Lemma7.*``):
        min{ sqrt(3/2) ||q||_G/|rho_K|, sqrt 2 ||q||_G/(||q||_G + |rho_K|), sqrt 2 }
    printed (false, ``RP14.lemma7.printed``):  min{ ||q||_G/|rho_K|, sqrt 2 }"""
    g, r = float(q_norm_G), float(rho_abs)
    if printed:
        return min(g / r, SQRT2) if r > 0 else SQRT2
    terms = [SQRT2, SQRT2 * g / (g + r) if g + r > 0 else 0.0]
    if r > 0:
        terms.append(SQRT32 * g / r)
    return min(terms)


def _lemma7_exact(Zx, delta2: Fraction, q: List[Fraction], support, printed: bool
                  ) -> Optional[Tuple[bool, Fraction, Fraction, Fraction]]:
    """Decide Lemma 7 (printed or corrected) for one q in exact rationals; ``(holds, ratio^2,
    dist(q, W)^2, ||q||_G^2)`` with ratio = |rho_K| dist(q, W)/||q||_G, or None if the projection's
    certificate does not verify.

    Terms: ratio^2 <= 1 (printed) or 3/2 (corrected); dist^2 <= 2; and, corrected,
    dist (g + r) <= sqrt2 g, i.e. 2 dist^2 g r <= R := 2 g^2 - dist^2 (g^2 + r^2) with R >= 0,
    squared: 4 dist^4 g^2 r^2 <= R^2 (g^2, r^2, dist^2 rational)."""
    proj = exact_projection(Zx, q, support)
    if proj is None:
        return None
    dist2, _p = proj
    d = len(Zx[0])
    Yq = [sum((q[i] * Zx[i][c] for i in range(len(q))), Fraction(0)) for c in range(d)]
    g2 = sum((v * v for v in Yq), Fraction(0))
    if g2 == 0:
        return dist2 == 0, Fraction(0), dist2, g2
    ratio2 = delta2 * dist2 / g2
    ok = dist2 <= 2 and ratio2 <= (1 if printed else Fraction(3, 2))
    if ok and not printed:
        R = 2 * g2 - dist2 * (g2 + delta2)
        ok = R >= 0 and 4 * dist2 * dist2 * g2 * delta2 <= R * R
    return ok, ratio2, dist2, g2


def _lemma7(inst: Instance, printed: bool) -> Optional[Verdict]:
    cid = "RP14.lemma7.printed" if printed else "RP14.lemma7"
    lo, hi, feas = _rho(inst, "G")
    if feas is not False:
        return None
    G = _G(inst)
    rho_abs = max(abs(lo), abs(hi)) if hi <= 0 else abs(lo)  # largest |rho_K| in the interval: tightest bound
    # exact rational data: delta_max^2 = rho_K^2 (Thm. 3) and dist(q, W)^2 exactly
    Zx = exact_points(inst)
    delta2 = exact_delta_max2(Zx) if Zx is not None else None
    if delta2 is not None and not (max(abs(hi), 0.0) - 1e-9 <= math.sqrt(delta2) <= abs(lo) + 1e-9):
        raise RuntimeError(f"{inst.name}: exact delta_max = {math.sqrt(delta2)} outside the certified |rho_K| "
                           f"interval [{abs(hi)}, {abs(lo)}] (Theorem 3)")
    worst, bad, n_exact, bad_exact, ratios = None, None, 0, False, []
    qs = _lemma7_qs(inst, G)
    for t, (q, qx) in enumerate(qs):
        dist, w, info = witness_distance(G, q)
        qn = reference.g_norm(G, q)
        bnd = lemma7_bound(qn, rho_abs, printed)
        tol = 1e-8 + (0.0 if info.get("certified") else info.get("kkt", 0.0))
        sl = slack(dist, bnd) if bnd > 1e-12 else (0.0 if dist <= tol else math.inf)
        holds = dist <= bnd + tol
        exact = None
        if delta2 is not None and w is not None:
            if qx is None:
                qx = [Fraction(float(v)) for v in q]
                qx = [v / sum(qx) for v in qx]
            exact = _lemma7_exact(Zx, delta2, qx, np.flatnonzero(w > 1e-12), printed)
        if exact is not None:  # the exact values replace the float ones (near W float64 is coarse)
            n_exact += 1
            holds = exact[0]
            ratios.append(float(exact[1]))
            dist, qn = math.sqrt(exact[2]), math.sqrt(exact[3])
            bnd = lemma7_bound(qn, math.sqrt(delta2), printed)
            sl = dist / bnd if bnd > 0 else (0.0 if dist == 0 else math.inf)
            tol = 0.0  # decided exactly
        if worst is None or sl > worst[0]:
            worst = (sl, dist, bnd, t, tol)
        if bad is None and not holds:
            bad, bad_exact = t, exact is not None
    sl, dist, bnd, t, tol = worst
    if bad is not None:
        decided = "exact rationals" if bad_exact else "float64"
    else:
        decided = "exact rationals" if n_exact == len(qs) else f"float64 ({n_exact} of {len(qs)} q exact)"
    return _verdict(cid, bad is None, dist, bnd, inst, sl=sl, iteration=bad, worst_q=t, abs_rho_K=rho_abs, allowance=tol,
                    decided=decided, exact_failure=bad_exact, max_exact_ratio=max(ratios) ** 0.5 if ratios else None)


@register(
    "RP14.lemma7",
    "CORRECTED form (proved, erratum E-A2): for every q in the simplex, dist(q, W) <= min{ sqrt(3/2) ||q||_G/|rho_K|, "
    "sqrt 2 ||q||_G/(||q||_G + |rho_K|), sqrt 2 } (W = {p in simplex: ||p||_G = 0}; infeasible data, rho_K "
    "relative to the span); decided exactly on rational unit-norm data.",
    "RP14 Lemma 7 corrected (proofs_check RP14.Lemma7.*); spec A.11, erratum E-A2",
)
def check_lemma7(inst: Instance, **_) -> Optional[Verdict]:
    return _lemma7(inst, printed=False)


@register(
    "RP14.lemma7.printed",
    "PRINTED form, REFUTED (erratum E-A2): dist(q, W) <= min{||q||_G/|rho_K|, sqrt(2)} for every q in the "
    "simplex -- false on the 8-point unit-circle instance (ratio 1.0334), decided in exact rational arithmetic.",
    "RP14 Lemma 7 as printed; spec A.11, erratum E-A2",
    kind="refuted",
)
def check_lemma7_printed(inst: Instance, **_) -> Optional[Verdict]:
    return _lemma7(inst, printed=True)


def _random_q(inst: Instance, n: int) -> List[Tuple[str, np.ndarray]]:
    rng = _rng(inst, "q8")
    return [("uniform", np.full(n, 1.0 / n)), ("dirichlet", rng.dirichlet(np.ones(n)))]


@register(
    "RP14.lemma8",
    "Feasible data, delta < rho_K, any q in the simplex: along SNKPVN(q, delta), -(1/2)||p_k||_G^2 >= "
    "L^q_{mu_k}(alpha_k) >= L(alpha_k) - mu_k, and it halts with G alpha > 0 within k <= 2 sqrt(2n)/rho_K.",
    "RP14 Lemma 8; spec A.11, A.13",
)
def check_lemma8(inst: Instance, *, algorithm=None, max_iter: int = MAX_ITER, **_) -> Optional[Verdict]:
    lo, hi, feas = _rho(inst, "G")
    if not feas or lo <= 0:
        return None
    G = _G(inst)
    n = G.shape[0]
    bound = 2 * math.sqrt(2 * n) / hi
    mi = _budget(bound, max_iter)
    if mi is None:
        return None
    alg = algorithm or _smoothed.snkpvn
    worst, bad, info = None, None, {}
    for label, q in _random_q(inst, n):
        res = alg(G, q, lo / 2, trace=True, max_iter=mi)
        halted = res.status == "separator" and _le(res.iterations, bound)
        for s in res.trace:
            a, p, mu = np.asarray(s.alpha, float), np.asarray(s.p, float), float(s.mu)
            Lq = float(smoothed_loss_q(G, a, mu, q, AR))
            up = -0.5 * reference.g_norm(G, p) ** 2
            low = float(_loss(G, a, AR)) - mu
            cands = [(slack(Lq, up), Lq, up, f"L^q_mu(alpha_k) <= -(1/2)||p_k||_G^2 at k = {s.k}, q {label}"),
                     (slack(low, Lq), low, Lq, f"L(alpha_k) - mu_k <= L^q_mu(alpha_k) at k = {s.k}, q {label}")]
            worst = _tightest(([worst] if worst else []) + cands)
            if bad is None and not (_le(Lq, up) and _le(low, Lq)):
                bad = (label, s.k)
        sl_it = res.iterations / bound if bound > 0 else 0.0
        worst = _tightest(([worst] if worst else []) + [(sl_it, res.iterations, bound, f"halts within 2 sqrt(2n)/rho_K, q {label}")])
        if bad is None and not halted:
            bad = (label, res.iterations)
        info[label] = f"{res.status} at k={res.iterations} (bound {bound:.1f})"
    sl, A, B, clause = worst
    return _verdict("RP14.lemma8", bad is None, A, B, inst, sl=sl, iteration=None if bad is None else bad[1],
                    failed_q=None if bad is None else bad[0], clause=clause, runs=info)


@register(
    "RP14.lemma9",
    "Infeasible data, any q in the simplex: along SNKPVN(q, delta), -(1/2)||p_k||_G^2 >= "
    "L^q_{mu_k}(alpha_k) >= -(1/2) mu_k dist(q, W)^2, hence with the CORRECTED Lemma 7 ||p_k||_G <= "
    "sqrt(mu_k) dist(q, W) <= sqrt(mu_k) min{sqrt(3/2) ||q||_G/|rho_K|, sqrt 2 ||q||_G/(||q||_G + |rho_K|), sqrt 2}.",
    "RP14 Lemma 9 with Lemma 7 corrected; spec A.11, A.13, E-A2, E-A5",
)
def check_lemma9(inst: Instance, *, algorithm=None, iters: int = TRACE_ITERS, **_) -> Optional[Verdict]:
    lo, hi, feas = _rho(inst, "G")
    if feas is not False:
        return None
    G = _G(inst)
    n = G.shape[0]
    alg = algorithm or _smoothed.snkpvn
    worst, bad, info = None, None, {}
    rho_abs = abs(lo)  # the largest |rho_K| of the interval: the tightest Lemma 7 bound
    for label, q in _random_q(inst, n):
        dist, _w, dinfo = witness_distance(G, q)
        dtol = 1e-8 + (0.0 if dinfo.get("certified") else dinfo.get("kkt", 0.0))
        b7 = lemma7_bound(reference.g_norm(G, q), rho_abs)  # [RP14 Lemma 7, corrected (E-A2)]
        res = alg(G, q, 1e-8, trace=True, max_iter=iters)
        for s in res.trace:
            a, p, mu = np.asarray(s.alpha, float), np.asarray(s.p, float), float(s.mu)
            Lq = float(smoothed_loss_q(G, a, mu, q, AR))
            pn = reference.g_norm(G, p)
            up = -0.5 * pn**2
            low = -0.5 * mu * (dist + dtol) ** 2
            cands = [(slack(Lq, up), Lq, up, _allowance(Lq, up), f"L^q_mu(alpha_k) <= -(1/2)||p_k||_G^2 at k = {s.k}, q {label}"),
                     (slack(-0.5 * mu * dist**2, Lq), -0.5 * mu * dist**2, Lq, _allowance(low, Lq) + (0.5 * mu * ((dist + dtol) ** 2 - dist**2)),
                      f"-(1/2) mu_k dist(q, W)^2 <= L^q_mu(alpha_k) at k = {s.k}, q {label}"),
                     (slack(pn, math.sqrt(mu) * b7), pn, math.sqrt(mu) * b7, _allowance(pn, math.sqrt(mu) * (b7 + dtol)) + math.sqrt(mu) * dtol,
                      f"||p_k||_G <= sqrt(mu_k) (Lemma 7 bound) at k = {s.k}, q {label}")]
            for c in cands:
                if worst is None or _rank(*c[:4]) > _rank(*worst[:4]):
                    worst = c
            if bad is None and not (_le(Lq, up) and _le(low, Lq) and _le(pn, math.sqrt(mu) * (b7 + dtol))):
                bad = (label, s.k)
        info[label] = f"dist(q,W) = {dist:.6g}; {res.status} at k={res.iterations}"
    sl, A, B, tol, clause = worst
    return _verdict("RP14.lemma9", bad is None, A, B, inst, sl=sl, iteration=None if bad is None else bad[1],
                    failed_q=None if bad is None else bad[0], allowance=tol, clause=clause, runs=info)


@register(
    "RP14.theorem4",
    "ISNKPVN(gamma, eps) (Alg. 7): the number T of SNKPVN calls is <= 1 + max(0, floor(log(||q_0||_G/eps)/log gamma)) "
    "(T = 0 if ||q_0||_G = 0); infeasible: call t takes k_t <= 2 sqrt(n) dist(q_t, W)/delta_t "
    "<= 2 sqrt(n) gamma min{sqrt(3/2)/|rho_K|, sqrt 2/(||q_t||_G + |rho_K|)} iterations (Lemma 9, corrected Lemma 7); feasible with eps < rho_K: it returns a separator, "
    "T <= max(1, ceil(log(||q_0||_G/rho_K)/log gamma)) and every call takes k_t <= 2 sqrt(2n)/rho_K.",
    "RP14 Theorem 4 (totals reconstructed, spec A.12; the '+1' corrects the printed outer-loop count)",
)
def check_theorem4(inst: Instance, *, algorithm=None, gamma: float = 2.0, epsilon: float = 1e-2,
                   max_iter: int = MAX_ITER, **_) -> Optional[Verdict]:
    lo, hi, feas = _rho(inst, "G")
    G = _G(inst)
    n = G.shape[0]
    q0 = np.full(n, 1.0 / n)
    q0n = reference.g_norm(G, q0)
    eps = epsilon
    if feas and lo > 0:
        eps = min(epsilon, lo / 2)  # the feasible case of the theorem needs eps < rho_K
    res = (algorithm or _smoothed.isnkpvn)(G, gamma, eps, trace=True, max_iter=max_iter)
    # float64 resolution of the seminorm: ||p||_G = sqrt(p^T G p) carries an absolute error of
    # about sqrt(n u) (u = 2^-53), so a certificate ||p||_G < delta_t with delta_t below it is
    # unreachable in float64 (the statement is about exact arithmetic): undecidable, not false.
    resolution = math.sqrt(4 * n * UNIT_ROUNDOFF)
    deltas = [float(d) for d in res.info.get("deltas", [])]
    if res.status == "max_iter" and deltas and min(deltas) < resolution:
        return None
    if res.status == "max_iter":
        return _verdict("RP14.theorem4", False, res.iterations, max_iter, inst, iteration=res.iterations,
                        status=res.status, message=res.message)
    records = res.trace
    T = len(records)
    lg = math.log(gamma)
    T_bound = 0 if q0n == 0 else 1 + max(0, math.floor(math.log(q0n / eps) / lg + 1e-12))
    printed_T = math.log(q0n / eps) / lg if q0n > 0 else 0.0
    fails = []
    cands = [(T / T_bound if T_bound else (0.0 if T == 0 else math.inf), T, T_bound, "T <= 1 + max(0, floor(log(||q_0||_G/eps)/log gamma))")]
    if T > T_bound:
        fails.append(f"T = {T} > {T_bound}")
    per_call = []
    if feas and lo > 0:
        if res.status != "separator":
            fails.append(f"status {res.status}, expected separator (eps < rho_K)")
        Tf = max(1, math.ceil(math.log(q0n / hi) / lg - 1e-12)) if q0n > hi else 1
        if T > Tf:
            fails.append(f"T = {T} > {Tf} (feasible outer bound)")
        cands.append((T / Tf, T, Tf, "feasible: T <= max(1, ceil(log(||q_0||_G/rho_K)/log gamma))"))
        kb = 2 * math.sqrt(2 * n) / hi
        for rec in records:
            k = rec.inner.iterations
            per_call.append((k, kb))
            cands.append((k / kb, k, kb, f"feasible: call {rec.t} takes k_t <= 2 sqrt(2n)/rho_K"))
            if k > kb:
                fails.append(f"call {rec.t}: k = {k} > {kb:.2f}")
    elif feas is False:
        rho_abs = abs(lo)
        for rec in records:
            k = rec.inner.iterations
            qt = np.asarray(rec.q, float)
            dist, _w, dinfo = witness_distance(G, qt)
            delta = float(rec.delta)
            kb = 2 * math.sqrt(n) * (dist + 1e-8) / delta if delta > 0 else math.inf
            qtn = reference.g_norm(G, qt)
            # Lemma 9 with the corrected Lemma 7 (E-A2) and ||q_t||_G = gamma delta_t
            kb2 = 2 * math.sqrt(n) * lemma7_bound(qtn, rho_abs) / delta if delta > 0 and qtn > 0 else math.inf
            per_call.append((k, kb, kb2))
            cands.append((k / kb if kb > 0 else 0.0, k, kb, f"infeasible: call {rec.t} takes k_t <= 2 sqrt(n) dist(q_t, W)/delta_t"))
            cands.append((k / kb2, k, kb2, f"infeasible: call {rec.t} takes k_t <= 2 sqrt(n) (Lemma 7 bound)/delta_t"))
            if k > kb or k > kb2:
                fails.append(f"call {rec.t}: k = {k} > min({kb:.2f}, {kb2:.2f})")
    worst, lhs, rhs, clause = _tightest(cands)
    return _verdict("RP14.theorem4", not fails, lhs, rhs, inst, sl=worst, iteration=None, allowance=0.0, clause=clause,
                    status=res.status, total_iterations=res.iterations, eps=eps, gamma=gamma,
                    q0_norm=q0n, printed_T_bound=printed_T, printed_T_violated=T > printed_T,
                    per_call=[tuple(round(float(v), 3) for v in c) for c in per_call], failures=fails)
