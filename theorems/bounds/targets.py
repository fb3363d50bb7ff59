"""The targets of the explorer: each bound to explore (an algorithm's iteration bound, or a
registered check of kind ``bound`` / ``empirical``), with the families it is tried on, its argument
grid, and the evaluator that turns one instance into one row.  The margins used are the ones that
make the bound *largest* (planted, or the conservative end of :func:`reference.margin`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple

import numpy as np

import reference

from .. import paper_bounds as pb
from ..instances import Instance


MAX_RUN = 50_000  # the largest iteration budget a single algorithm run gets
MAX_SUBSETS = 20_000  # facet enumeration budget of reference.margin (infeasible instances)


class Interval(NamedTuple):
    """A margin with its certified interval and where it comes from (``planted`` or ``certified``)."""

    value: float
    lower: float
    upper: float
    source: str


def _certified(m) -> Interval:
    return Interval(float(m.value), float(m.lower), float(m.upper), "certified")


def _margin_G(inst: Instance) -> Optional[Interval]:
    """rho_K of the normalized Gram matrix; None when undecided."""
    if "rho_K" in inst.known:
        v = float(inst.known["rho_K"])
        return Interval(v, v, v, "planted")
    m = reference.margin(inst.G, max_subsets=MAX_SUBSETS, of="span")
    if m.feasible is None:
        return None
    if m.feasible is False and not float(m.upper) <= 0:
        return None
    return _certified(m)


def _margin_rho(inst: Instance) -> Optional[Interval]:
    """The unnormalized linear margin rho (positive only)."""
    if "rho" in inst.known:
        v = float(inst.known["rho"])
        return Interval(v, v, v, "planted")
    m = reference.margin(inst.K, max_subsets=MAX_SUBSETS, of="span")
    if m.feasible is not True:
        return None
    return _certified(m)


def _is_feasible(inst: Instance) -> Optional[bool]:
    if "feasible" in inst.known:
        return bool(inst.known["feasible"])
    mg = _margin_G(inst)
    if mg is None:
        return None
    return mg.lower > 0 if mg.lower > 0 else (False if mg.upper <= 0 else None)


def _G(inst: Instance) -> np.ndarray:
    return np.asarray(inst.G, dtype=np.float64)


def _budget(bound: float, cap: int) -> int:
    """Iteration budget: enough to see the bound beaten by 50 %, never more than ``cap``."""
    if not math.isfinite(bound):
        return cap
    return int(min(cap, math.floor(1.5 * bound) + 10))


def _q_vector(inst: Instance, qarg) -> np.ndarray:
    """The prox-centre q of SNKPVN: uniform (None), an explicit list (numbers or ``"p/q"`` strings,
    summing to 1), or ``{"mix": t, "seed": s}`` =
    (1 - t) p_W + t r with p_W the min-norm point of the hull (in W when infeasible) and r a
    Dirichlet(1) draw -- so small t puts q close to W (where the printed Lemma 7 is untested
    by its proof, ||q||_G < (sqrt 2 - 1)|rho_K|)."""
    n = inst.n
    if not qarg:
        return np.full(n, 1.0 / n)
    if isinstance(qarg, (list, tuple)):  # an explicit q (numbers or "p/q" strings, as in case files)
        try:
            q = np.array([float(Fraction(v)) if isinstance(v, str) else float(v) for v in qarg], dtype=np.float64)
        except (TypeError, ValueError, ZeroDivisionError) as exc:
            raise ValueError(f"q: an explicit q must be a list of numbers or 'p/q' strings ({exc})") from exc
        if q.shape != (n,) or not np.all(q >= 0) or not abs(float(q.sum()) - 1.0) <= 1e-9:
            raise ValueError(f"q: an explicit q must be {n} non-negative numbers summing to 1 (got {len(q)} "
                             f"summing to {float(q.sum()):.17g})")
        return q / q.sum()
    G = _G(inst)
    from reference.margins import min_norm_point

    pW = np.asarray(min_norm_point(G).p, dtype=float)
    pW = np.maximum(pW, 0)
    pW /= pW.sum()
    r = np.random.default_rng(int(qarg.get("seed", 0))).dirichlet(np.full(n, float(qarg.get("alpha", 1.0))))
    t = float(qarg.get("mix", 1.0))
    q = (1 - t) * pW + t * r
    q = np.maximum(q, 0)
    return q / q.sum()


def _gamma_d(P: np.ndarray) -> Optional[Interval]:
    m = reference.margin(P @ P.T, max_subsets=MAX_SUBSETS, of="span")
    if m.feasible is not True:
        return None
    return _certified(m)


@dataclass(frozen=True)
class Target:
    """A bound to explore.

    ``evaluate(instance, args, opts) -> dict | None`` returns ``observed``, ``bound``, ``status``,
    ``quantity``, ``margin_kind``, ``margin``, ``margin_source``, ``R`` (None: not applicable).
    ``arg_grid`` is the sweep's list of algorithm arguments; ``arg_ranges`` the search's ranges
    (log-scale) for numeric arguments; ``families`` the default families of a sweep, with sizes.
    """

    id: str
    statement: str
    source: str
    quantity: str
    evaluate: Callable[[Instance, dict, dict], Optional[dict]]
    families: Dict[str, dict]
    arg_grid: Tuple[dict, ...] = ({},)
    arg_ranges: Dict[str, Tuple[float, float]] = field(default_factory=dict)
    algorithm: Optional[str] = None
    kind: str = "algorithm"  # or "check"
    needs: str = "any"  # "linear", "any"


def _row(quantity, observed, bound, status, margin_kind, margin, source, R, **extra) -> dict:
    out = {"quantity": quantity, "observed": float(observed), "bound": float(bound), "status": status,
           "margin_kind": margin_kind, "margin": margin, "margin_source": source, "R": R}
    out.update(extra)
    return out


def _ev_perceptron(rule: str):
    def ev(inst: Instance, args: dict, opts: dict) -> Optional[dict]:
        if inst.kernel != "linear":
            return None
        mr = _margin_rho(inst)
        if mr is None or mr.lower <= 0:
            return None
        R = float(inst.known.get("R", pb.radius(inst.X)))
        bound = pb.novikoff(R, mr.lower)
        res = reference.perceptron(inst.X, inst.y, rule=rule, max_iter=_budget(bound, opts.get("max_iter", MAX_RUN)))
        return _row("updates", res.iterations, bound, res.status, "rho", mr.value, mr.source, R)
    return ev


def _ev_normalized(inst: Instance, args: dict, opts: dict) -> Optional[dict]:
    if inst.kernel != "linear":
        return None
    mg = _margin_G(inst)  # linear kernel: rho_K = rho_2
    if mg is None or mg.lower <= 0:
        return None
    bound = pb.normalized_perceptron(mg.lower)
    res = reference.normalized_perceptron(inst.X, inst.y, max_iter=_budget(bound, opts.get("max_iter", MAX_RUN)))
    return _row("iterations", res.iterations, bound, res.status, "rho_2", mg.value, mg.source, pb.radius(inst.X))


def _ev_gram_feasible(name: str, formula: Callable[[float, int], float]):
    def ev(inst: Instance, args: dict, opts: dict) -> Optional[dict]:
        mg = _margin_G(inst)
        if mg is None or mg.lower <= 0:
            return None
        bound = formula(mg.lower, inst.n)
        res = getattr(reference, name)(_G(inst), max_iter=_budget(bound, opts.get("max_iter", MAX_RUN)))
        return _row("iterations", res.iterations, bound, res.status, "rho_K", mg.value, mg.source, pb.radius(inst.X))
    return ev


def _ev_nvn(inst: Instance, args: dict, opts: dict) -> Optional[dict]:
    feas = _is_feasible(inst)
    if feas is not False:
        return None  # the 1/eps^2 guarantee is for infeasible data
    eps = float(args.get("epsilon", 0.05))
    bound = pb.nvn(eps)
    res = reference.nvn(_G(inst), eps, max_iter=_budget(bound, opts.get("max_iter", MAX_RUN)))
    mg = _margin_G(inst)
    return _row("iterations", res.iterations, bound, res.status, "rho_K", mg.value if mg else math.nan,
                mg.source if mg else "-", pb.radius(inst.X))


def _ev_snkpvn(printed: bool):
    def ev(inst: Instance, args: dict, opts: dict) -> Optional[dict]:
        mg = _margin_G(inst)
        if mg is None:
            return None
        G = _G(inst)
        n = inst.n
        delta = float(args.get("delta", 0.01))
        q = _q_vector(inst, args.get("q"))
        qn = reference.g_norm(G, q)
        if mg.lower > 0:
            if printed:
                return None  # the printed/proved difference is in the infeasible case only
            bound = pb.snkpvn_feasible(mg.lower, n)
        elif mg.upper <= 0:
            rho = mg.upper  # the smaller |rho_K|: the larger bound
            bound = (pb.snkpvn_infeasible_printed if printed else pb.snkpvn_infeasible)(delta, n, qn, rho)
        else:
            return None
        res = reference.snkpvn(G, q, delta, max_iter=_budget(bound, opts.get("max_iter", MAX_RUN)))
        return _row("iterations", res.iterations, bound, res.status, "rho_K", mg.value, mg.source, pb.radius(inst.X),
                    q_norm_G=qn)
    return ev


def _lemma7_candidates(inst: Instance, args: dict) -> List[Tuple[np.ndarray, Optional[list]]]:
    """The q's a ``lemma7*`` evaluation maximizes over, as (float q, exact q or None): an explicit q
    of the arguments alone; otherwise the arguments' q (uniform / mixture), the instance's
    ``known["lemma7_q"]``, every vertex e_i and every midpoint (e_i + e_j)/2 -- near-diametral
    chords put such midpoints next to W, where the ratio's sup is approached (the ratio is constant
    along rays from the projection onto W, erratum E-A2)."""
    qarg = args.get("q")
    if isinstance(qarg, (list, tuple)):
        exact = [Fraction(v) for v in qarg] if all(isinstance(v, (str, int)) for v in qarg) else None
        return [(_q_vector(inst, qarg), exact)]
    n = inst.n
    out: List[Tuple[np.ndarray, Optional[list]]] = [(_q_vector(inst, qarg), None)]
    for qx in inst.known.get("lemma7_q", ()):
        qe = [Fraction(v) for v in qx]
        out.append((np.array([float(v) for v in qe]), qe))
    half = Fraction(1, 2)
    for i in range(n):
        for j in range(i, n):
            qe = [Fraction(0)] * n
            qe[i] += half
            qe[j] += half
            out.append((np.array([float(v) for v in qe]), qe))
    return out


def _ev_lemma7(printed: bool):
    def ev(inst: Instance, args: dict, opts: dict) -> Optional[dict]:
        from ..rp14 import _lemma7_exact, exact_delta_max2, exact_points, lemma7_bound, witness_distance

        mg = _margin_G(inst)
        if mg is None or not mg.upper < 0:
            return None  # infeasible data with rho_K < 0 (the statement divides by |rho_K|)
        G = _G(inst)
        rho = abs(mg.upper)  # the smaller |rho_K|: the larger bound
        best = None
        for q, qx in _lemma7_candidates(inst, args):
            qn = reference.g_norm(G, q)
            if qn <= 1e-12:
                continue  # q in W: both sides 0
            dist, w, info = witness_distance(G, q, iters=(20, 200, 3000, 20000))
            if not info.get("certified"):
                continue
            bound = lemma7_bound(qn, rho, printed)
            if best is None or dist / bound > best[0]:
                best = (dist / bound, dist, bound, qn, q, qx, w)
        if best is None:
            return None
        ratio, dist, bound, qn, q, qx, w = best
        floor = 1e-8  # the float projection's tolerance (RP14.lemma7's); 0 once decided exactly
        status = "float64: " + ("proof reaches" if qn >= (math.sqrt(2) - 1) * rho else "beyond proof")
        Zx = exact_points(inst)
        d2 = exact_delta_max2(Zx) if Zx is not None else None
        if d2 is not None:  # rational unit-norm data: decide this q exactly (RP14.lemma7 conventions)
            if qx is None:
                qx = [Fraction(float(v)) for v in q]
                qx = [v / sum(qx) for v in qx]
            res = _lemma7_exact(Zx, d2, qx, np.flatnonzero(w > 1e-12), printed)
            if res is not None:  # exact values replace the float ones (near W float64 is coarse)
                status = f"exact: {'holds' if res[0] else 'FAILS'} (ratio^2 = {float(res[1]):.10g})"
                dist, qn = math.sqrt(res[2]), math.sqrt(res[3])
                bound = lemma7_bound(qn, math.sqrt(d2), printed)
                ratio = dist / bound if bound > 0 else 0.0
                floor = 0.0
        return _row("dist(q, W)", dist, bound, status, "rho_K", mg.value, mg.source, pb.radius(inst.X), slack=ratio,
                    q=[str(v) for v in qx] if qx is not None else [float(v) for v in q], floor=floor)
    return ev


def _ev_isnkpvn(outer: bool):
    def ev(inst: Instance, args: dict, opts: dict) -> Optional[dict]:
        mg = _margin_G(inst)
        if mg is None:
            return None
        G = _G(inst)
        n = inst.n
        gamma = float(args.get("gamma", 2.0))
        eps = float(args.get("epsilon", 1e-3))
        q0n = reference.g_norm(G, np.full(n, 1.0 / n))
        if mg.lower > 0:
            rho = mg.lower
        elif mg.upper <= 0:
            rho = mg.upper
        else:
            return None
        total = pb.isnkpvn_total(n, q0n, rho, gamma, eps)
        if outer:
            bound = float(pb.isnkpvn_outer_loops(q0n, rho if rho > 0 else eps, gamma))
        else:
            bound = total
        if not math.isfinite(total):
            return None
        res = reference.isnkpvn(G, gamma, eps, max_iter=_budget(total, opts.get("max_iter", MAX_RUN)))
        obs = res.info.get("T", 0) if outer else res.iterations
        return _row("outer loops" if outer else "inner iterations", obs, bound, res.status, "rho_K", mg.value, mg.source, pb.radius(inst.X))
    return ev


def _ev_pt11(name: str):
    def ev(inst: Instance, args: dict, opts: dict) -> Optional[dict]:
        if inst.kernel != "linear":
            return None
        Delta = args.get("Delta")
        P = reference.dynamic_margin.patterns(inst.X, inst.y, rho=1.0, Delta=Delta)
        g = _gamma_d(P)
        if g is None:
            if Delta is not None:
                return None
            Delta = 1.0  # PT11 Sec. 5: the extended space makes every data set separable
            P = reference.dynamic_margin.patterns(inst.X, inst.y, rho=1.0, Delta=Delta)
            g = _gamma_d(P)
            if g is None:
                return None
        R = pb.radius(P)
        eps = float(args.get("eps", 0.1))
        cap = opts.get("max_iter", MAX_RUN)
        if name == "pfm":
            beta = (1.0 - eps) * g.lower
            eps_eff = 1.0 - beta / g.upper
            bound = pb.pfm_theorem1(R, g.lower, eps_eff)
            res = reference.pfm(inst.X, inst.y, beta, rho=1.0, Delta=Delta, max_iter=_budget(bound, cap))
        else:
            bound = pb.pdm_theorem2(R, g.lower, eps)
            fn = reference.pdm if name == "pdm" else reference.pdm_succ
            res = fn(inst.X, inst.y, eps, rho=1.0, Delta=Delta, max_iter=_budget(bound, cap))
        return _row("updates", res.iterations, bound, res.status, "gamma_d", g.value, "certified", R,
                    Delta=Delta)
    return ev


def _ev_check(cid: str):
    def ev(inst: Instance, args: dict, opts: dict) -> Optional[dict]:
        from ..registry import REGISTRY
        from ..instances.suite import load_checks

        load_checks()
        v = REGISTRY[cid].func(inst, **args)
        if v is None:
            return None
        mg = None
        try:
            mg = _margin_G(inst)
        except Exception:  # pragma: no cover - a margin we cannot certify: leave it blank
            mg = None
        ratio, why = v.tightness()  # no ratio: a dichotomy, an identity, two sides within the allowance
        return _row("lhs", v.lhs, v.rhs, "holds" if v.holds else "FAILS", "rho_K",
                    mg.value if mg else math.nan, mg.source if mg else "-", pb.radius(inst.X),
                    slack=math.nan if ratio is None else float(ratio), floor=float(v.allowance),
                    note=v.clause, check_iteration=v.details.get("iteration"))
    return ev


_SEP = {  # default separable families for RP14 algorithms
    "planted": {"n": [10, 30], "d": [3, 8], "margin": [0.3, 0.1, 0.03], "extra": {"spread": [0.2, 3.0]}},
    "orthonormal": {"n": [4, 16, 36]},
    "real": {"n": [30], "extra": {"dataset": ["heart_scale", "sonar", "ionosphere"], "kernel": ["linear"]}},
}
_KER = {
    "rings": {"n": [20, 40], "margin": [0.5, 0.2]},
    "moons": {"n": [20, 40], "margin": [0.1, 0.3]},
    "poly": {"n": [20, 40], "margin": [0.2, 0.05]},
    "real": {"n": [30], "extra": {"dataset": ["heart_scale", "sonar", "ionosphere"], "kernel": ["linear", "gaussian"]}},
}
_INF = {
    "infeasible": {"n": [6, 12], "d": [2, 3], "margin": [0.3, 0.1, 0.03]},
    "regular": {"d": [2, 3, 4], "extra": {"shape": ["simplex", "cross"]}},
    "wolfe": {"n": [3, 6], "d": [2, 3]},
}
_PT11 = {
    "planted": {"n": [10, 30], "d": [3, 8], "margin": [0.3, 0.1], "extra": {"spread": [0.2, 3.0], "radius": [1.0, 3.0]}},
    "orthonormal": {"n": [4, 16]},
    "real": {"n": [30], "extra": {"dataset": ["heart_scale", "sonar", "ionosphere"], "kernel": ["linear"]}},
    "infeasible": {"n": [6], "d": [2, 3], "margin": [0.3, 0.1]},
}


def _merge(*ds: dict) -> dict:
    out: dict = {}
    for d in ds:
        out.update(d)
    return out


def _algorithm_targets() -> Dict[str, Target]:
    T = {}

    def add(t: Target):
        T[t.id] = t

    add(Target("perceptron", "Perceptron (cyclic) updates <= R^2/rho^2 (Block-Novikoff)", "RP14 Sec. 2, Alg. 1; spec A.2",
               "updates", _ev_perceptron("cyclic"), _merge(_SEP, {"rp14_example": {"extra": {"r": [1.5, 3.0]}}}),
               algorithm="perceptron", needs="linear"))
    add(Target("perceptron.most_violated", "Perceptron (most violated) updates <= R^2/rho^2", "RP14 Sec. 2; spec A.2",
               "updates", _ev_perceptron("most_violated"), _merge(_SEP, {"rp14_example": {"extra": {"r": [1.5, 3.0]}}}),
               algorithm="perceptron", needs="linear"))
    add(Target("normalized_perceptron", "Normalized Perceptron iterations <= 1/rho_2^2", "RP14 Sec. 2.1, Alg. 2; spec A.3-A.4",
               "iterations", _ev_normalized, _SEP, algorithm="normalized_perceptron", needs="linear"))
    add(Target("nkp", "NKP iterations <= 1/rho_K^2", "RP14 Alg. 3; spec A.7", "iterations",
               _ev_gram_feasible("nkp", lambda r, n: pb.nkp(r)), _merge(_SEP, _KER), algorithm="nkp"))
    add(Target("snkp", "SNKP iterations <= 2 sqrt(2 log n)/rho_K", "RP14 Thm. 1; spec A.8", "iterations",
               _ev_gram_feasible("snkp", pb.snkp), _merge(_SEP, _KER), algorithm="snkp"))
    add(Target("nvn", "NVN iterations <= 1/eps^2 (infeasible, unit norm)", "RP14 Sec. 5.1, Alg. 5; spec A.9", "iterations",
               _ev_nvn, _merge(_INF, {"real": {"n": [60], "extra": {"dataset": ["heart_scale"], "kernel": ["linear"]}}}),
               arg_grid=({"epsilon": 0.1}, {"epsilon": 0.03}), arg_ranges={"epsilon": (0.01, 0.3)}, algorithm="nvn"))
    add(Target("snkpvn", "SNKPVN iterations <= 2 sqrt(2n)/rho_K (Lemma 8) or 2 sqrt(n) min{sqrt(3/2) ||q||_G/|rho_K|, "
               "sqrt 2 ||q||_G/(||q||_G + |rho_K|)}/delta (Lemma 9 with the corrected Lemma 7)", "RP14 Lemmas 7-9, Alg. 6; spec A.11, E-A2", "iterations",
               _ev_snkpvn(False), _merge(_INF, {"planted": _SEP["planted"], "rings": _KER["rings"]}),
               arg_grid=({"delta": 0.1}, {"delta": 0.01}), arg_ranges={"delta": (0.001, 0.3)}, algorithm="snkpvn"))
    add(Target("snkpvn.printed", "SNKPVN iterations <= 2 sqrt(n) min{sqrt 2, ||q||_G/|rho_K|}/delta (Lemma 9 with the "
               "PRINTED Lemma 7)", "RP14 Lemmas 7, 9 as printed; spec A.11, E-A2", "iterations",
               _ev_snkpvn(True), _INF,
               arg_grid=({"delta": 0.1}, {"delta": 0.01}, {"delta": 0.01, "q": {"mix": 0.05, "seed": 0}}),
               arg_ranges={"delta": (0.001, 0.3), "q.mix": (1e-4, 1.0), "q.alpha": (0.05, 5.0)}, algorithm="snkpvn"))
    q_grid = ({}, {"q": {"mix": 0.1, "seed": 0, "alpha": 1.0}}, {"q": {"mix": 0.01, "seed": 1, "alpha": 0.2}})
    # lemma7*: generic planar starts (regular polygons, random points on the circle) and the
    # counterexample geometry (chord) besides the infeasible families
    l7_fams = _merge(_INF, {"regular": {"n": [8], "d": [2, 3], "extra": {"shape": ["simplex", "cross", "polygon"]}},
                            "circle": {"n": [8, 10]}, "chord": {"n": [8, 12], "margin": [0.002, 0.02]}})
    q_ranges = {"q.mix": (1e-4, 1.0), "q.alpha": (0.05, 5.0)}
    add(Target("lemma7.printed", "dist(q, W) <= min{||q||_G/|rho_K|, sqrt 2} (PRINTED Lemma 7, FALSE: E-A2; q maximized "
               "over vertices, pair midpoints and the arguments' q; exact on rational unit-norm data)",
               "RP14 Lemma 7 as printed; spec A.11, E-A2", "dist(q, W)", _ev_lemma7(True), l7_fams,
               arg_grid=q_grid, arg_ranges=q_ranges))
    add(Target("lemma7", "dist(q, W) <= min{sqrt(3/2) ||q||_G/|rho_K|, sqrt 2 ||q||_G/(||q||_G + |rho_K|), sqrt 2} "
               "(Lemma 7 CORRECTED; q maximized as for lemma7.printed)", "RP14 Lemma 7 corrected (proofs_check RP14.Lemma7.*); "
               "spec A.11, E-A2", "dist(q, W)", _ev_lemma7(False), l7_fams,
               arg_grid=q_grid, arg_ranges=q_ranges))
    add(Target("isnkpvn", "ISNKPVN total inner iterations <= isnkpvn_total (Thm. 4 with Lemmas 8, 9)",
               "RP14 Thm. 4, Alg. 7; spec A.12", "inner iterations", _ev_isnkpvn(False),
               _merge(_INF, {"planted": _SEP["planted"]}),
               arg_grid=({"gamma": 2.0, "epsilon": 0.01},), arg_ranges={"gamma": (1.2, 8.0), "epsilon": (1e-3, 0.1)},
               algorithm="isnkpvn"))
    add(Target("isnkpvn.outer", "ISNKPVN outer loops <= floor(log(||q_0||_G/target)/log gamma) + 1 (eq. (15))",
               "RP14 eq. (15), Thm. 4; spec A.12", "outer loops", _ev_isnkpvn(True),
               _merge(_INF, {"planted": _SEP["planted"]}),
               arg_grid=({"gamma": 2.0, "epsilon": 0.01},), arg_ranges={"gamma": (1.2, 8.0), "epsilon": (1e-3, 0.1)},
               algorithm="isnkpvn"))
    add(Target("pfm", "PFM updates <= (1 + 1/e) delta (C + ln((1 + e) delta)) (Thm. 1)", "PT11 Thm. 1; spec B.6",
               "updates", _ev_pt11("pfm"), _PT11, arg_grid=({"eps": 0.1}, {"eps": 0.5}), arg_ranges={"eps": (0.02, 1.0)},
               algorithm="pfm", needs="linear"))
    add(Target("pdm", "PDM updates <= Thm. 2 (three cases in eps)", "PT11 Thm. 2; spec B.7", "updates", _ev_pt11("pdm"),
               _PT11, arg_grid=({"eps": 0.3}, {"eps": 0.5}, {"eps": 0.9}), arg_ranges={"eps": (0.2, 1.0)},
               algorithm="pdm", needs="linear"))
    add(Target("pdm_succ", "PDM-succ updates <= Thm. 2 at the final eps (every update of a run with eps_n >= eps "
               "satisfies (8) with eps)", "PT11 Sec. 4, Thm. 2; spec B.8", "updates", _ev_pt11("pdm_succ"), _PT11,
               arg_grid=({"eps": 0.3}, {"eps": 0.5}), arg_ranges={"eps": (0.2, 1.0)}, algorithm="pdm_succ", needs="linear"))
    return T


_CHECK_FAMILIES_RP14 = {
    "planted": {"n": [8, 16], "d": [3, 6], "margin": [0.3, 0.05], "extra": {"spread": [0.2, 3.0]}},
    "infeasible": {"n": [6, 9], "d": [2, 3], "margin": [0.3, 0.05]},
    "regular": {"d": [2, 3], "extra": {"shape": ["simplex", "cross"]}},
    "wolfe": {"n": [4], "d": [2, 3]},
    "orthonormal": {"n": [4, 9]},
    "rings": {"n": [16], "margin": [0.5, 0.2]},
    "poly": {"n": [16], "margin": [0.2]},
    "real": {"n": [20], "extra": {"dataset": ["heart_scale", "ionosphere"], "kernel": ["linear", "gaussian"]}},
}
_CHECK_FAMILIES_PT11 = {
    "planted": {"n": [8, 16], "d": [3, 6], "margin": [0.3, 0.1], "extra": {"spread": [0.2, 3.0], "radius": [1.0, 3.0]}},
    "orthonormal": {"n": [4, 9]},
    "infeasible": {"n": [6], "d": [2, 3], "margin": [0.3]},
    "real": {"n": [20], "extra": {"dataset": ["heart_scale", "ionosphere"], "kernel": ["linear"]}},
}


#: Registered statements that also have a target of their own, evaluated in full there (the
#: registered check of Lemma 7 samples a few q's on the built-in suite; the target maximizes over
#: every vertex and pair midpoint on families that include the counterexample's chord geometry).
#: The check target of such a statement evaluates exactly as its twin, so the two rows of one
#: statement agree: the same families, arguments and rows, the same ratio and verdict.
SAME_STATEMENT = {"RP14.lemma7": "lemma7", "RP14.lemma7.printed": "lemma7.printed"}


def _check_targets(kinds=("bound", "empirical", "refuted"), twins: Optional[Dict[str, Target]] = None) -> Dict[str, Target]:
    from ..registry import REGISTRY
    from ..instances.suite import load_checks

    load_checks()
    twins = _algorithm_targets() if twins is None else twins
    out = {}
    for cid, chk in sorted(REGISTRY.items()):
        if chk.kind not in kinds:
            continue
        twin = twins.get(SAME_STATEMENT.get(cid, ""))
        if twin is not None:
            out[cid] = Target(cid, chk.statement, chk.source, twin.quantity, twin.evaluate, twin.families,
                              arg_grid=twin.arg_grid, arg_ranges=twin.arg_ranges, kind="check", needs=twin.needs)
            continue
        fams = _CHECK_FAMILIES_PT11 if cid.startswith("PT11") else _CHECK_FAMILIES_RP14
        out[cid] = Target(cid, chk.statement, chk.source, "lhs", _ev_check(cid), fams, kind="check")
    return out


_TARGETS: Optional[Dict[str, Target]] = None


def targets() -> Dict[str, Target]:
    """Every target: the algorithms' iteration bounds, then the registered checks."""
    global _TARGETS
    if _TARGETS is None:
        t = _algorithm_targets()
        t.update(_check_targets(twins=t))
        _TARGETS = t
    return _TARGETS


def target_ids() -> List[str]:
    return list(targets())


def get_target(tid: str) -> Target:
    T = targets()
    if tid not in T:
        raise ValueError(f"unknown bound {tid!r}; known: {', '.join(T)} (or 'all', 'algorithms', 'checks')")
    return T[tid]
