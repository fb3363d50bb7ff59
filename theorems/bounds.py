"""``margins bounds``: how tight are the papers' bounds?  Sweeps, a targeted search, and the worst
instance written out as a replayable case file.

A *target* is a bound to explore:

* every algorithm's iteration bound (``perceptron``, ``normalized_perceptron``, ``nkp``, ``snkp``,
  ``nvn``, ``snkpvn``, ``snkpvn.printed``, ``isnkpvn``, ``isnkpvn.outer``, ``pfm``, ``pdm``,
  ``pdm_succ``): the algorithm is run and its counter compared with the formula of
  :mod:`theorems.paper_bounds` (the one place for the formulas);
* every registered statement of kind ``bound`` / ``empirical`` (``RP14.theorem1``,
  ``RP14.lemma7.printed``, ``PT11.theorem2``, ...): its check is run and the Verdict's
  ``lhs`` / ``rhs`` / ``slack`` are the observed quantity, the bound and the ratio.

For every instance a row: the observed quantity, the bound, **ratio = observed / bound** (<= 1 when
the bound holds), and the instance's parameters (n, d, kernel, margin or delta_max, R).

Margins.  Planted families use the value known by construction (exact); all other instances the
certified interval of :func:`reference.margin`, at the end that makes the bound *largest* (the
lower end of rho for 1/rho-type bounds, the smaller |rho_K| for infeasible ones).  So a ratio > 1
for an algorithm target is a certain refutation of the formula on that instance, not round-off of
the margin.  (Registered checks apply their own convention, documented in :mod:`theorems.rp14` and
:mod:`theorems.pt11`.)

Design for parallel and distributed runs.  A sweep is a list of *tasks*, each a small JSON-able
dict ``{"target", "spec", "args", "opts"}`` (the spec names a family of :mod:`theorems.families`
and its parameters, or carries explicit data); :func:`evaluate_task` is a pure, top-level function
of the task, so it pickles and runs anywhere.  :func:`run_tasks` hands the tasks to any
``concurrent.futures.Executor`` (``--jobs J``: a local ``ProcessPoolExecutor``; a dask
``Client.get_executor()`` or any object with ``submit`` works the same) and returns the rows in
task order, so the output does not depend on the executor or the number of workers.

The search (``--search``) is a seeded, batched hill climb over specs: it starts from the best
sweep rows, and each round evaluates a fixed number of mutations (family parameters, algorithm
arguments, or -- after turning the instance into explicit data -- moving, flipping, duplicating or
dropping points) and keeps the best.  Batches have a fixed size, so the result is the same for
every ``--jobs``.
"""

from __future__ import annotations

import concurrent.futures as cf
import csv
import io
import json
import math
import os
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

import reference

from . import paper_bounds as pb
from .families import FAMILIES, explicit_spec, make_instance, real_available
from .instances import Instance

__all__ = [
    "SCHEMA_VERSION",
    "CSV_COLUMNS",
    "Target",
    "TARGETS",
    "target_ids",
    "get_target",
    "evaluate_task",
    "sweep_tasks",
    "run_tasks",
    "search",
    "write_csv",
    "write_json",
    "write_plot",
    "write_case",
    "load_case",
    "replay_case",
    "validate_case",
    "write_validate_case",
    "explore",
    "main",
    "PLOT_MISSING",
]

SCHEMA_VERSION = 1
CASE_KIND = "bounds-case"
MAX_RUN = 50_000  # the largest iteration budget a single algorithm run gets
MAX_SUBSETS = 20_000  # facet enumeration budget of reference.margin (infeasible instances)
PLOT_MISSING = ("matplotlib is not installed, so no PNG plot was written; install the optional extra with "
                "`pip install 'perceptron-margins[plot]'` (or `pip install matplotlib`). Table, CSV and JSON are complete.")

CSV_COLUMNS = [
    "target", "phase", "family", "instance", "n", "d", "kernel", "margin_kind", "margin", "margin_source",
    "R", "args", "status", "quantity", "observed", "bound", "ratio", "spec",
]


# -- margins and helpers --------------------------------------------------------------------------


def _f(v) -> float:
    return float(v)


def _margin_G(inst: Instance) -> Optional[Tuple[float, float, float, str]]:
    """(value, lower, upper, source) of rho_K; None when undecided."""
    if "rho_K" in inst.known:
        v = float(inst.known["rho_K"])
        return v, v, v, "planted"
    m = reference.margin(inst.G, max_subsets=MAX_SUBSETS, of="span")
    if m.feasible is None:
        return None
    if m.feasible is False and not float(m.upper) <= 0:
        return None
    return _f(m.value), _f(m.lower), _f(m.upper), "certified"


def _margin_rho(inst: Instance) -> Optional[Tuple[float, float, float, str]]:
    """The unnormalized linear margin rho (positive only)."""
    if "rho" in inst.known:
        v = float(inst.known["rho"])
        return v, v, v, "planted"
    m = reference.margin(inst.K, max_subsets=MAX_SUBSETS, of="span")
    if m.feasible is not True:
        return None
    return _f(m.value), _f(m.lower), _f(m.upper), "certified"


def _is_feasible(inst: Instance) -> Optional[bool]:
    if "feasible" in inst.known:
        return bool(inst.known["feasible"])
    mg = _margin_G(inst)
    if mg is None:
        return None
    return mg[1] > 0 if mg[1] > 0 else (False if mg[2] <= 0 else None)


def _R(inst: Instance) -> float:
    return float(np.max(np.linalg.norm(np.asarray(inst.X, dtype=float), axis=1)))


def _G(inst: Instance) -> np.ndarray:
    return np.asarray(inst.G, dtype=np.float64)


def _gnorm(G: np.ndarray, a: np.ndarray) -> float:
    v = float(a @ G @ a)
    return math.sqrt(v) if v > 0 else 0.0


def _budget(bound: float, cap: int) -> int:
    """Iteration budget: enough to see the bound beaten by 50 %, never more than ``cap``."""
    if not math.isfinite(bound):
        return cap
    return int(min(cap, math.floor(1.5 * bound) + 10))


def _q_vector(inst: Instance, qarg) -> np.ndarray:
    """The prox-centre q of SNKPVN: uniform (None), or ``{"mix": t, "seed": s}`` =
    (1 - t) p_W + t r with p_W the min-norm point of the hull (in W when infeasible) and r a
    Dirichlet(1) draw -- so small t puts q close to W (where the printed Lemma 7 is untested
    by its proof, ||q||_G < (sqrt 2 - 1)|rho_K|)."""
    n = inst.n
    if not qarg:
        return np.full(n, 1.0 / n)
    G = _G(inst)
    from reference.margin import min_norm_point

    pW = np.asarray(min_norm_point(G).p, dtype=float)
    pW = np.maximum(pW, 0)
    pW /= pW.sum()
    r = np.random.default_rng(int(qarg.get("seed", 0))).dirichlet(np.full(n, float(qarg.get("alpha", 1.0))))
    t = float(qarg.get("mix", 1.0))
    q = (1 - t) * pW + t * r
    q = np.maximum(q, 0)
    return q / q.sum()


def _pt11_patterns(inst: Instance, Delta) -> np.ndarray:
    P = reference.reflect(reference.augment(np.asarray(inst.X, dtype=float), 1.0), np.asarray(inst.y))
    return reference.extend(P, np.asarray(inst.y), Delta) if Delta is not None else P


def _gamma_d(P: np.ndarray) -> Optional[Tuple[float, float, float]]:
    m = reference.margin(P @ P.T, max_subsets=MAX_SUBSETS, of="span")
    if m.feasible is not True:
        return None
    return _f(m.value), _f(m.lower), _f(m.upper)


# -- targets --------------------------------------------------------------------------------------


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
        if mr is None or mr[1] <= 0:
            return None
        R = float(inst.known.get("R", _R(inst)))
        bound = pb.novikoff(R, mr[1])
        res = reference.perceptron(inst.X, inst.y, rule=rule, max_iter=_budget(bound, opts.get("max_iter", MAX_RUN)))
        return _row("updates", res.iterations, bound, res.status, "rho", mr[0], mr[3], R)
    return ev


def _ev_normalized(inst: Instance, args: dict, opts: dict) -> Optional[dict]:
    if inst.kernel != "linear":
        return None
    mg = _margin_G(inst)  # linear kernel: rho_K = rho_2
    if mg is None or mg[1] <= 0:
        return None
    bound = pb.normalized_perceptron(mg[1])
    res = reference.normalized_perceptron(inst.X, inst.y, max_iter=_budget(bound, opts.get("max_iter", MAX_RUN)))
    return _row("iterations", res.iterations, bound, res.status, "rho_2", mg[0], mg[3], _R(inst))


def _ev_gram_feasible(name: str, formula: Callable[[float, int], float]):
    def ev(inst: Instance, args: dict, opts: dict) -> Optional[dict]:
        mg = _margin_G(inst)
        if mg is None or mg[1] <= 0:
            return None
        bound = formula(mg[1], inst.n)
        res = getattr(reference, name)(_G(inst), max_iter=_budget(bound, opts.get("max_iter", MAX_RUN)))
        return _row("iterations", res.iterations, bound, res.status, "rho_K", mg[0], mg[3], _R(inst))
    return ev


def _ev_nvn(inst: Instance, args: dict, opts: dict) -> Optional[dict]:
    feas = _is_feasible(inst)
    if feas is not False:
        return None  # the 1/eps^2 guarantee is for infeasible data
    eps = float(args.get("epsilon", 0.05))
    bound = pb.nvn(eps)
    res = reference.nvn(_G(inst), eps, max_iter=_budget(bound, opts.get("max_iter", MAX_RUN)))
    mg = _margin_G(inst)
    return _row("iterations", res.iterations, bound, res.status, "rho_K", mg[0] if mg else math.nan,
                mg[3] if mg else "-", _R(inst))


def _ev_snkpvn(printed: bool):
    def ev(inst: Instance, args: dict, opts: dict) -> Optional[dict]:
        mg = _margin_G(inst)
        if mg is None:
            return None
        G = _G(inst)
        n = inst.n
        delta = float(args.get("delta", 0.01))
        q = _q_vector(inst, args.get("q"))
        qn = _gnorm(G, q)
        if mg[1] > 0:
            if printed:
                return None  # the printed/proved difference is in the infeasible case only
            bound = pb.snkpvn_feasible(mg[1], n)
        elif mg[2] <= 0:
            rho = mg[2]  # the smaller |rho_K|: the larger bound
            bound = (pb.snkpvn_infeasible_printed if printed else pb.snkpvn_infeasible)(delta, n, qn, rho)
        else:
            return None
        res = reference.snkpvn(G, q, delta, max_iter=_budget(bound, opts.get("max_iter", MAX_RUN)))
        return _row("iterations", res.iterations, bound, res.status, "rho_K", mg[0], mg[3], _R(inst),
                    q_norm_G=qn)
    return ev


def _ev_lemma7(printed: bool):
    def ev(inst: Instance, args: dict, opts: dict) -> Optional[dict]:
        from .rp14 import lemma7_bound, witness_distance

        mg = _margin_G(inst)
        if mg is None or not mg[2] < 0:
            return None  # infeasible data with rho_K < 0 (the statement divides by |rho_K|)
        G = _G(inst)
        q = _q_vector(inst, args.get("q"))
        qn = _gnorm(G, q)
        dist, _, info = witness_distance(G, q)
        if not info.get("certified"):
            return None
        rho = abs(mg[2])  # the smaller |rho_K|: the larger bound
        bound = lemma7_bound(qn, rho, printed)
        return _row("dist(q, W)", dist, bound, "proof reaches" if qn >= (math.sqrt(2) - 1) * rho else "beyond proof",
                    "rho_K", mg[0], mg[3], _R(inst))
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
        q0n = _gnorm(G, np.full(n, 1.0 / n))
        if mg[1] > 0:
            rho = mg[1]
        elif mg[2] <= 0:
            rho = mg[2]
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
        return _row("outer loops" if outer else "inner iterations", obs, bound, res.status, "rho_K", mg[0], mg[3], _R(inst))
    return ev


def _ev_pt11(name: str):
    def ev(inst: Instance, args: dict, opts: dict) -> Optional[dict]:
        if inst.kernel != "linear":
            return None
        Delta = args.get("Delta")
        P = _pt11_patterns(inst, Delta)
        g = _gamma_d(P)
        if g is None:
            if Delta is not None:
                return None
            Delta = 1.0  # PT11 Sec. 5: the extended space makes every data set separable
            P = _pt11_patterns(inst, Delta)
            g = _gamma_d(P)
            if g is None:
                return None
        R = float(np.max(np.linalg.norm(P, axis=1)))
        eps = float(args.get("eps", 0.1))
        cap = opts.get("max_iter", MAX_RUN)
        if name == "pfm":
            beta = (1.0 - eps) * g[1]
            eps_eff = 1.0 - beta / g[2]
            bound = pb.pfm_theorem1(R, g[1], eps_eff)
            res = reference.pfm(inst.X, inst.y, beta, rho=1.0, Delta=Delta, max_iter=_budget(bound, cap))
        else:
            bound = pb.pdm_theorem2(R, g[1], eps)
            fn = reference.pdm if name == "pdm" else reference.pdm_succ
            res = fn(inst.X, inst.y, eps, rho=1.0, Delta=Delta, max_iter=_budget(bound, cap))
        return _row("updates", res.iterations, bound, res.status, "gamma_d", g[0], "certified", R,
                    Delta=Delta)
    return ev


def _ev_check(cid: str):
    def ev(inst: Instance, args: dict, opts: dict) -> Optional[dict]:
        from .registry import REGISTRY
        from .suite import load_checks

        load_checks()
        v = REGISTRY[cid].func(inst, **args)
        if v is None:
            return None
        mg = None
        try:
            mg = _margin_G(inst)
        except Exception:  # pragma: no cover - a margin we cannot certify: leave it blank
            mg = None
        return _row("lhs", v.lhs, v.rhs, "holds" if v.holds else "FAILS", "rho_K",
                    mg[0] if mg else math.nan, mg[3] if mg else "-", _R(inst), slack=float(v.slack),
                    check_iteration=v.details.get("iteration"))
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
    q_ranges = {"q.mix": (1e-4, 1.0), "q.alpha": (0.05, 5.0)}
    add(Target("lemma7.printed", "dist(q, W) <= min{||q||_G/|rho_K|, sqrt 2} (PRINTED Lemma 7; q searched, incl. "
               "||q||_G < (sqrt 2 - 1)|rho_K| where the proof does not reach)", "RP14 Lemma 7 as printed; spec A.11, E-A2",
               "dist(q, W)", _ev_lemma7(True), _INF, arg_grid=q_grid, arg_ranges=q_ranges))
    add(Target("lemma7", "dist(q, W) <= min{sqrt(3/2) ||q||_G/|rho_K|, sqrt 2 ||q||_G/(||q||_G + |rho_K|), sqrt 2} "
               "(Lemma 7 CORRECTED; q searched)", "RP14 Lemma 7 corrected (proofs_check RP14.Lemma7.*); spec A.11, E-A2", "dist(q, W)", _ev_lemma7(False), _INF,
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


def _check_targets(kinds=("bound", "empirical", "refuted")) -> Dict[str, Target]:
    from .registry import REGISTRY
    from .suite import load_checks

    load_checks()
    out = {}
    for cid, chk in sorted(REGISTRY.items()):
        if chk.kind not in kinds:
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
        t.update(_check_targets())
        _TARGETS = t
    return _TARGETS


def target_ids() -> List[str]:
    return list(targets())


def get_target(tid: str) -> Target:
    T = targets()
    if tid not in T:
        raise ValueError(f"unknown bound {tid!r}; known: {', '.join(T)} (or 'all', 'algorithms', 'checks')")
    return T[tid]


class _Lazy(dict):
    def __missing__(self, key):
        return targets()[key]


TARGETS = _Lazy()


# -- tasks ----------------------------------------------------------------------------------------


def _json(v) -> str:
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


def _spec_label(spec: dict) -> str:
    if spec.get("family") == "explicit":
        return _json({k: v for k, v in spec.items() if k not in ("X", "y")} | {"n": len(spec["y"])})
    return _json(spec)


def evaluate_task(task: dict) -> dict:
    """Evaluate one task ``{"target", "spec", "args", "opts", "phase"}`` -> one row (a dict with
    :data:`CSV_COLUMNS`).  Pure: the same task gives the same row.  Never raises: an error is
    recorded in ``status`` (``error: ...``) with ratio nan."""
    tgt = get_target(task["target"])
    spec, args, opts = task["spec"], dict(task.get("args") or {}), dict(task.get("opts") or {})
    base = {"target": tgt.id, "phase": task.get("phase", "sweep"), "family": spec.get("family", "?"),
            "args": _json(args), "spec": _spec_label(spec)}
    try:
        inst = make_instance(spec)
    except FileNotFoundError as exc:
        return dict(base, instance=f"missing data: {exc}", status="skipped", ratio=math.nan)
    except (ValueError, RuntimeError) as exc:  # parameters outside the family's domain
        return dict(base, instance="-", status=f"bad spec: {exc}"[:200], ratio=math.nan)
    base.update(instance=inst.name, n=inst.n, d=inst.d, kernel=inst.kernel)
    try:
        r = tgt.evaluate(inst, args, opts)
    except Exception as exc:  # recorded, never swallowed
        return dict(base, status=f"error: {type(exc).__name__}: {exc}"[:200], ratio=math.nan)
    if r is None:
        return dict(base, status="n/a", ratio=math.nan)
    ratio = r.pop("slack", None)
    if ratio is None:
        ob, bd = r["observed"], r["bound"]
        ratio = 0.0 if bd == math.inf else (ob / bd if bd > 0 else (0.0 if ob <= 0 else math.inf))
    row = dict(base)
    row.update({k: r[k] for k in ("quantity", "observed", "bound", "status", "margin_kind", "margin", "margin_source", "R")})
    row["ratio"] = float(ratio)
    if r.get("Delta") is not None and "Delta" not in args:
        row["args"] = _json(dict(args, Delta=r["Delta"]))
    return row


def sweep_tasks(tgt: Target, *, families: Optional[Sequence[str]] = None, ns=None, margins=None, ds=None,
                seeds: int = 2, seed: int = 0, args_override: Optional[dict] = None, opts: Optional[dict] = None,
                quick: bool = False) -> List[dict]:
    """The tasks of a sweep: for each family (default: the target's), the product of its grid (n, d,
    margin, extra axes; overridden by ``ns``/``margins``/``ds``), ``seeds`` seeds starting at
    ``seed``, and the target's argument grid (each entry updated with ``args_override``)."""
    fams = list(families) if families else list(tgt.families)
    have_real = set(real_available())
    tasks = []
    for fname in fams:
        if fname not in FAMILIES:
            raise ValueError(f"unknown family {fname!r}; known: {', '.join(sorted(FAMILIES))}")
        fam = FAMILIES[fname]
        defaults = tgt.families.get(fname, fam.defaults)
        extra = dict(defaults.get("extra", {}))
        if fname == "real":
            extra["dataset"] = [d for d in extra.get("dataset", ["heart_scale"]) if d in have_real]
            if not extra["dataset"]:
                continue
        if quick:
            extra = {k: v[:1] if k != "kernel" else v for k, v in extra.items()}
        gn = list(ns) if ns else list(defaults.get("n", [None]))
        gd = list(ds) if ds else list(defaults.get("d", [None]))
        gm = list(margins) if margins else list(defaults.get("margin", [None]))
        if quick:
            gn, gd, gm = gn[:1], gd[:1], gm
        specs = []
        from itertools import product
        keys = sorted(extra)
        for n, d, m, *ev in product(gn, gd, gm, *[extra[k] for k in keys]):
            for s in range(int(seeds)):
                sp = {"family": fname, "n": n, "d": d, "margin": m, "seed": seed + s}
                sp.update(dict(zip(keys, ev)))
                specs.append({k: v for k, v in sp.items() if v is not None})
        grid = list(tgt.arg_grid)
        if args_override:
            grid = [dict(a, **args_override) for a in grid]
            grid = [dict(t) for t in {_json(a): a for a in grid}.values()]
        for sp in specs:
            for a in grid:
                tasks.append({"target": tgt.id, "spec": sp, "args": a, "opts": dict(opts or {}), "phase": "sweep"})
    return tasks


class Progress:
    """A one-line progress bar on stderr, shown only once the work has taken ``after`` seconds."""

    def __init__(self, total: int, label: str, stream=None, after: float = 2.0, enabled: bool = True):
        self.total, self.label, self.done = max(total, 1), label, 0
        self.stream = stream if stream is not None else sys.stderr
        self.t0, self.after, self.enabled, self.shown = time.perf_counter(), after, enabled, False

    def update(self, k: int = 1):
        self.done += k
        el = time.perf_counter() - self.t0
        if not self.enabled or el < self.after:
            return
        self.shown = True
        w = 30
        f = int(w * self.done / self.total)
        eta = el / self.done * (self.total - self.done) if self.done else 0.0
        self.stream.write(f"\r{self.label} [{'#' * f}{'.' * (w - f)}] {self.done}/{self.total}  {el:5.1f}s  eta {eta:5.1f}s ")
        self.stream.flush()

    def close(self):
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def run_tasks(tasks: Sequence[dict], *, jobs: int = 1, executor: Optional[cf.Executor] = None,
              progress: Optional[Progress] = None) -> List[dict]:
    """Evaluate tasks, in order.  ``executor``: any ``concurrent.futures.Executor`` (its ``submit``
    is used; e.g. ``dask.distributed.Client(...).get_executor()``); else ``jobs > 1`` starts a local
    ``ProcessPoolExecutor(jobs)``, and ``jobs == 1`` runs in this process."""
    tasks = list(tasks)
    if not tasks:
        return []
    if executor is None and jobs <= 1:
        out = []
        for t in tasks:
            out.append(evaluate_task(t))
            if progress:
                progress.update()
        return out
    own = executor is None
    ex = executor or cf.ProcessPoolExecutor(max_workers=jobs)
    try:
        futs = [ex.submit(evaluate_task, t) for t in tasks]
        if progress:
            for _ in cf.as_completed(futs):
                progress.update()
        return [f.result() for f in futs]
    finally:
        if own:
            ex.shutdown()


# -- search ---------------------------------------------------------------------------------------

_NUMERIC_SPEC = {"margin": (1e-3, 0.95), "spread": (0.02, 20.0), "radius": (1.0, 20.0), "sigma": (0.05, 5.0),
                 "r": (1.01, 20.0), "height": (0.05, 20.0)}
_INT_SPEC = {"n": (2, 80), "d": (2, 12)}


BEATEN_TOL = 1e-9  # a ratio counts as > 1 only beyond round-off of the bound's formula (e.g. n vs 1/(1/sqrt n)^2)


def beaten(row: dict) -> bool:
    """Whether a row refutes its statement: a registered check said FAILS, or (algorithm targets)
    observed > bound (1 + BEATEN_TOL)."""
    if str(row.get("status")) == "FAILS":
        return True
    if str(row.get("status")) == "holds":
        return False
    return _finite_ratio(row) > 1 + BEATEN_TOL


def _finite_ratio(row: dict) -> float:
    r = row.get("ratio", math.nan)
    try:
        r = float(r)
    except (TypeError, ValueError):
        return -math.inf
    return r if math.isfinite(r) else (-math.inf if math.isnan(r) else r)


def _mutate(spec: dict, args: dict, tgt: Target, rng: np.random.Generator) -> Tuple[dict, dict]:
    """One random move: a family parameter, an algorithm argument, or (explicit data) a point."""
    spec, args = json.loads(json.dumps(spec)), json.loads(json.dumps(args))
    moves = ["args"] if tgt.arg_ranges else []
    if spec.get("family") != "explicit":
        moves += ["param", "param", "seed", "explicit"]
    else:
        moves += ["point", "point", "point", "flip", "dup", "drop"]
    move = moves[int(rng.integers(len(moves)))]
    if move == "args":
        key = sorted(tgt.arg_ranges)[int(rng.integers(len(tgt.arg_ranges)))]
        lo, hi = tgt.arg_ranges[key]
        if key.startswith("q."):
            q = dict(args.get("q") or {"mix": 1.0, "seed": 0, "alpha": 1.0})
            sub = key[2:]
            if rng.random() < 0.3:
                q["seed"] = int(rng.integers(1 << 30))
            else:
                q[sub] = float(np.clip(q.get(sub, 1.0) * math.exp(rng.normal(0, 1.0)), lo, hi))
            args["q"] = q
        else:
            cur = float(args.get(key, math.sqrt(lo * hi)))
            args[key] = float(np.clip(cur * math.exp(rng.normal(0, 0.5)), lo, hi))
        return spec, args
    if move == "seed":
        spec["seed"] = int(rng.integers(1 << 30))
        return spec, args
    if move == "param":
        keys = [k for k in list(_NUMERIC_SPEC) + list(_INT_SPEC) if k in spec]
        if not keys:
            spec["seed"] = int(rng.integers(1 << 30))
            return spec, args
        k = keys[int(rng.integers(len(keys)))]
        if k in _INT_SPEC:
            lo, hi = _INT_SPEC[k]
            spec[k] = int(np.clip(spec[k] + int(rng.choice([-2, -1, 1, 2, 4])), lo, hi))
        else:
            lo, hi = _NUMERIC_SPEC[k]
            spec[k] = float(np.clip(spec[k] * math.exp(rng.normal(0, 0.5)), lo, hi))
        return spec, args
    if move == "explicit":
        inst = make_instance(spec)
        return explicit_spec(inst), args
    spec.pop("known", None)  # the data change: nothing is known by construction any more
    X = np.array(spec["X"], dtype=float)
    y = np.array(spec["y"], dtype=int)
    n = X.shape[0]
    i = int(rng.integers(n))
    scale = float(np.max(np.linalg.norm(X, axis=1)))
    if move == "point":
        step = scale * math.exp(rng.uniform(math.log(1e-3), math.log(0.3)))
        X[i] = X[i] + step * rng.standard_normal(X.shape[1])
        if not np.any(X[i] != 0):
            X[i, 0] = scale * 1e-3
    elif move == "flip":
        y[i] = -y[i]
    elif move == "dup" and n < 80:
        X = np.vstack([X, X[i] + 1e-3 * scale * rng.standard_normal(X.shape[1])])
        y = np.append(y, y[i])
    elif move == "drop" and n > 2:
        X = np.delete(X, i, axis=0)
        y = np.delete(y, i)
    spec["X"] = [[float(v) for v in row] for row in X]
    spec["y"] = [int(v) for v in y]
    spec["name"] = f"explicit(n={X.shape[0]},d={X.shape[1]},#{zlib.crc32(X.tobytes() + y.tobytes()):08x})"
    return spec, args


def search(tgt: Target, start: Sequence[dict], *, budget: int = 60, seed: int = 0, jobs: int = 1,
           executor: Optional[cf.Executor] = None, batch: int = 8, keep: int = 4, opts: Optional[dict] = None,
           progress: Optional[Progress] = None) -> List[dict]:
    """Seeded, batched hill climbing for the task maximizing observed / bound.

    ``start``: evaluated rows (with ``_task``) to start from (the best sweep rows).  Each round
    mutates members of the current elite (the ``keep`` best so far, ties broken by evaluation
    order) ``batch`` times and evaluates the batch; ``budget`` evaluations in all.  Returns every
    evaluated row (phase ``search``), each with its ``_task``.
    """
    rng = np.random.default_rng([int(seed), 0x5EA2C4])
    pool = [r for r in start if math.isfinite(_finite_ratio(r)) and _finite_ratio(r) > -math.inf]
    pool.sort(key=lambda r: -_finite_ratio(r))
    elite = pool[:keep]
    if not elite:
        return []
    out: List[dict] = []
    seen = {_json([r["_task"]["spec"], r["_task"]["args"]]) for r in start if "_task" in r}
    done = 0
    while done < budget:
        k = min(batch, budget - done)
        tasks = []
        tries = 0
        while len(tasks) < k and tries < 20 * k:
            tries += 1
            # bias towards the best: pick among the elite with weights 1/(rank+1)
            w = np.array([1.0 / (i + 1) for i in range(len(elite))])
            parent = elite[int(rng.choice(len(elite), p=w / w.sum()))]
            pt = parent["_task"]
            spec, args = pt["spec"], pt["args"]
            nmoves = 1 + int(rng.integers(2))
            try:
                for _ in range(nmoves):
                    spec, args = _mutate(spec, args, tgt, rng)
            except Exception:  # e.g. a family parameter out of its domain: try a fresh seed instead
                spec = dict(pt["spec"], seed=int(rng.integers(1 << 30))) if pt["spec"].get("family") != "explicit" else pt["spec"]
                args = pt["args"]
            key = _json([spec, args])
            if key in seen:
                continue  # evaluated already: the same task gives the same row
            seen.add(key)
            tasks.append({"target": tgt.id, "spec": spec, "args": args, "opts": dict(opts or {}), "phase": "search"})
        if not tasks:
            break
        rows = run_tasks(tasks, jobs=jobs, executor=executor, progress=progress)
        for t, r in zip(tasks, rows):
            r["_task"] = t
            out.append(r)
        cand = elite + [r for r in rows if _finite_ratio(r) > -math.inf and math.isfinite(_finite_ratio(r))]
        # stable sort: earlier rows win ties, so the elite is deterministic
        cand = sorted(enumerate(cand), key=lambda ir: (-_finite_ratio(ir[1]), ir[0]))
        elite = [r for _, r in cand[:keep]]
        done += k
    return out


# -- outputs --------------------------------------------------------------------------------------


def _cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return repr(v) if math.isfinite(v) else str(v)
    return str(v)


def csv_text(rows: Sequence[dict]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in rows:
        w.writerow([_cell(r.get(c)) for c in CSV_COLUMNS])
    return buf.getvalue()


def write_csv(path, rows: Sequence[dict]) -> None:
    Path(path).write_text(csv_text(rows), encoding="utf-8")


def _jsonable(v):
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items() if not k.startswith("_")}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return v if math.isfinite(v) else str(v)
    return v


def write_json(path, doc) -> None:
    Path(path).write_text(json.dumps(_jsonable(doc), indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def write_plot(path, rows: Sequence[dict], title: str) -> Optional[str]:
    """Log-log scatter of observed vs bound, one colour per family, the bound as the line
    observed = bound.  Returns ``None`` on success, else the message saying why no PNG was made."""
    if not _have_matplotlib():
        return PLOT_MISSING
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts = [r for r in rows if isinstance(r.get("observed"), float) and isinstance(r.get("bound"), float)
           and r["observed"] > 0 and r["bound"] > 0 and math.isfinite(r["bound"]) and math.isfinite(r["observed"])]
    fig, ax = plt.subplots(figsize=(6.4, 4.8), dpi=100)
    fams = sorted({r["family"] for r in pts})
    for f in fams:
        for phase, marker in (("sweep", "o"), ("search", "x")):
            sel = [r for r in pts if r["family"] == f and r.get("phase") == phase]
            if sel:
                ax.scatter([r["bound"] for r in sel], [r["observed"] for r in sel], marker=marker, s=18,
                           label=f"{f} ({phase})", alpha=0.75)
    if pts:
        lo = min(min(r["bound"], r["observed"]) for r in pts)
        hi = max(max(r["bound"], r["observed"]) for r in pts)
        ax.plot([lo, hi], [lo, hi], "k-", lw=1, label="observed = bound")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.legend(fontsize=7, loc="upper left")
    else:
        ax.text(0.5, 0.5, "no positive (observed, bound) pairs", ha="center", transform=ax.transAxes)
    zeros = sum(1 for r in rows if isinstance(r.get("observed"), float) and r["observed"] == 0)
    ax.set_xlabel("paper's bound" + (f"   ({zeros} rows with observed = 0 not shown on the log axis)" if zeros else ""))
    ax.set_ylabel("observed")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
    return None


def _fmt(v, digits: int = 4) -> str:
    if v is None or v == "":
        return "-"
    if isinstance(v, str):
        return v
    v = float(v)
    if math.isnan(v):
        return "-"
    if not math.isfinite(v):
        return str(v)
    if float(v).is_integer() and abs(v) < 1e9:
        return str(int(v))
    return f"{v:.{digits}g}"


def table(headers: Sequence[str], rows: List[Sequence[str]]) -> str:
    widths = [max([len(str(h))] + [len(str(r[i])) for r in rows]) for i, h in enumerate(headers)]
    out = ["  ".join(str(h).ljust(w) for h, w in zip(headers, widths)), "  ".join("-" * w for w in widths)]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(out)


def rows_table(rows: Sequence[dict], limit: int = 30) -> str:
    valid = [r for r in rows if math.isfinite(_finite_ratio(r)) and _finite_ratio(r) > -math.inf]
    shown = sorted(valid, key=lambda r: -_finite_ratio(r))[:limit] if len(valid) > limit else valid
    hdr = ["phase", "instance", "n", "d", "kernel", "margin", "R", "args", "status", "observed", "bound", "ratio"]
    body = [[r.get("phase"), r.get("instance"), _fmt(r.get("n")), _fmt(r.get("d")), r.get("kernel"),
             f"{r.get('margin_kind', '')}={_fmt(r.get('margin'))}", _fmt(r.get("R")), r.get("args"), r.get("status"),
             _fmt(r.get("observed")), _fmt(r.get("bound")), _fmt(r.get("ratio"))] for r in shown]
    note = f"\n({len(shown)} of {len(valid)} applicable rows shown, largest ratios first; all {len(rows)} rows in the CSV)" if len(valid) > limit else ""
    return table(hdr, body) + note


# -- case files -----------------------------------------------------------------------------------


def case_document(row: dict, command: str = "") -> dict:
    """A versioned, replayable case file for one evaluated row (the worst instance)."""
    task = row["_task"]
    tgt = get_target(task["target"])
    inst = make_instance(task["spec"])
    known = {k: (list(v) if isinstance(v, tuple) else v) for k, v in inst.known.items()}
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": CASE_KIND,
        "id": f"{tgt.id}/{inst.name}",
        "target": tgt.id,
        "statement": tgt.statement,
        "source": tgt.source,
        "flags": list(inst.flags),
        "instance": {"name": inst.name, "X": [[float(v) for v in r] for r in np.asarray(inst.X, dtype=float)],
                     "y": [int(v) for v in inst.y], "kernel": inst.kernel, "params": dict(inst.params),
                     "known": known},
        "spec": {k: v for k, v in task["spec"].items() if k not in ("X", "y")},
        "algorithm": tgt.algorithm,
        "args": task["args"],
        "quantity": row.get("quantity"),
        "observed": row.get("observed"),
        "bound": row.get("bound"),
        "ratio": row.get("ratio"),
        "status": row.get("status"),
        "beaten": beaten(row),
        "reproduce": command,
    }


def write_case(path, row: dict, command: str = "") -> dict:
    doc = case_document(row, command)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_json(path, doc)
    return doc


def load_case(path_or_doc) -> dict:
    """Read and check a case file (``schema_version`` and ``kind``); returns the document."""
    doc = path_or_doc if isinstance(path_or_doc, dict) else json.loads(Path(path_or_doc).read_text(encoding="utf-8"))
    if doc.get("kind") != CASE_KIND:
        raise ValueError(f"not a bounds case file (kind={doc.get('kind')!r}, expected {CASE_KIND!r})")
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"bounds case schema_version {doc.get('schema_version')!r} unsupported (know {SCHEMA_VERSION})")
    for key in ("target", "instance", "args"):
        if key not in doc:
            raise ValueError(f"bounds case file lacks {key!r}")
    return doc


def case_task(doc: dict) -> dict:
    ins = doc["instance"]
    spec = {"family": "explicit", "X": ins["X"], "y": ins["y"], "kernel": ins.get("kernel", "linear"),
            "params": ins.get("params", {}), "name": ins.get("name", "case"), "known": ins.get("known", {})}
    return {"target": doc["target"], "spec": spec, "args": doc.get("args", {}), "opts": {}, "phase": "replay"}


def replay_case(path_or_doc) -> dict:
    """Re-evaluate a case file's instance and arguments; returns the row (compare ``ratio``)."""
    return evaluate_task(case_task(load_case(path_or_doc)))


def validate_case(row_or_doc):
    """The worst instance of an *algorithm* target as a case of the validation harness
    (:func:`theorems.validate.make_case`, with the row's arguments: NVN/ISNKPVN epsilon, SNKPVN
    delta and q, ISNKPVN gamma, the Perceptron's rule, PT11 eps and Delta), or None for a target
    that runs no algorithm (registered checks, ``lemma7*``: no implementation to validate, replay
    them with :func:`replay_case`) or when the algorithm does not apply.  Takes an evaluated row (with ``_task``) or a bounds-case document.  The case's iteration
    bound is the harness's (the proved statements), not the target's formula: e.g. for
    ``snkpvn.printed`` it is Lemma 9 with the *proved* Lemma 7."""
    from .validate import _slug, make_case

    if "_task" in row_or_doc:
        task = row_or_doc["_task"]
        args = json.loads(row_or_doc["args"]) if isinstance(row_or_doc.get("args"), str) else dict(task.get("args") or {})
    else:
        task = case_task(load_case(row_or_doc))
        args = dict(task["args"])
    tgt = get_target(task["target"])
    if tgt.algorithm is None:
        return None
    inst = make_instance(task["spec"])
    alg = tgt.algorithm
    over: Dict[str, Any] = {}
    if tgt.id == "perceptron.most_violated":
        over["rule"] = "most_violated"
    elif alg == "nvn":
        over["epsilon"] = float(args.get("epsilon", 0.05))  # the defaults of the _ev_* functions
    elif alg == "snkpvn":
        over.update(delta=float(args.get("delta", 0.01)), q=_q_vector(inst, args.get("q")))
    elif alg == "isnkpvn":
        over.update(gamma=float(args.get("gamma", 2.0)), epsilon=float(args.get("epsilon", 1e-3)))
    pt11 = {"eps": float(args.get("eps", 0.1)), "Delta": args.get("Delta")} if alg in ("pfm", "pdm", "pdm_succ") else {}
    return make_case(alg, inst, variant="worst=" + _slug(tgt.id), arguments=over, **pt11)


def write_validate_case(directory, row_or_doc) -> Optional[Path]:
    """Write :func:`validate_case` as a one-case corpus ``<directory>/<algorithm>.json`` (the format
    of ``margins export-cases``), so ``margins validate ALGORITHM MODULE:CALLABLE --cases
    <directory>`` and ``margins validate --answers FILE --cases <directory>`` replay it.  None
    when there is no case (check targets)."""
    from .validate import write_corpus

    case = validate_case(row_or_doc)
    if case is None:
        return None
    return write_corpus(directory, case.algorithm, [case], generator="theorems.bounds --search (worst instance)")


# -- the driver -----------------------------------------------------------------------------------


def _select(name: str) -> List[str]:
    T = targets()
    if name == "all":
        return [t for t in T]
    if name == "algorithms":
        return [t for t, v in T.items() if v.kind == "algorithm"]
    if name == "checks":
        return [t for t, v in T.items() if v.kind == "check"]
    if name.endswith(".") or name.endswith("*"):
        pre = name.rstrip("*")
        sel = [t for t in T if t.startswith(pre)]
        if not sel:
            raise ValueError(f"no bound id starts with {pre!r}")
        return sel
    get_target(name)
    return [name]


def _safe(tid: str) -> str:
    return tid.replace("/", "_")


def explore(name: str, *, families=None, ns=None, margins=None, ds=None, seeds: int = 2, seed: int = 0,
            do_search: bool = False, budget: int = 60, out: Optional[str] = None, jobs: int = 1,
            quick: bool = False, executor: Optional[cf.Executor] = None, args_override: Optional[dict] = None,
            max_iter: Optional[int] = None, plot: bool = True, command: str = "", stream=None,
            progress: bool = True) -> dict:
    """Sweep (and optionally search) one target or a group (``all``, ``algorithms``, ``checks``, a
    prefix like ``RP14.``); write ``<target>.csv``, ``<target>.json``, ``<target>.png`` and the
    worst instance ``cases/<target>.json`` into ``out``, plus ``summary.{csv,json,md}`` for a group.
    For an algorithm target the worst instance is also written as a one-case
    validation corpus ``validate/<target>/<algorithm>.json`` (:func:`write_validate_case`).
    Returns the summary document."""
    stream = stream or sys.stdout
    tids = _select(name)
    outdir = Path(out) if out else None
    if outdir:
        outdir.mkdir(parents=True, exist_ok=True)
    if quick:
        seeds = min(seeds, 1)
        budget = min(budget, 24)
    opts = {"max_iter": max_iter} if max_iter else {}
    summary = []
    plot_msgs = set()
    own_ex = None
    if executor is None and jobs > 1:
        own_ex = executor = cf.ProcessPoolExecutor(max_workers=jobs)
    try:
        for tid in tids:
            tgt = get_target(tid)
            t0 = time.perf_counter()
            tasks = sweep_tasks(tgt, families=families, ns=ns, margins=margins, ds=ds, seeds=seeds, seed=seed,
                                args_override=args_override, opts=opts, quick=quick)
            prog = Progress(len(tasks), f"{tid} sweep", enabled=progress)
            rows = run_tasks(tasks, jobs=jobs, executor=executor, progress=prog)
            prog.close()
            for t, r in zip(tasks, rows):
                r["_task"] = t
            srows: List[dict] = []
            if do_search:
                prog = Progress(budget, f"{tid} search", enabled=progress)
                srows = search(tgt, rows, budget=budget, seed=seed, jobs=jobs, executor=executor, opts=opts, progress=prog)
                prog.close()
            allrows = rows + srows
            valid = [r for r in allrows if math.isfinite(_finite_ratio(r)) and _finite_ratio(r) > -math.inf]
            best_sweep = max((r for r in rows if r in valid), key=_finite_ratio, default=None)
            best_search = max((r for r in srows if r in valid), key=_finite_ratio, default=None)
            worst = max(valid, key=_finite_ratio, default=None)
            entry = {
                "target": tid, "kind": tgt.kind, "statement": tgt.statement, "source": tgt.source,
                "rows": len(allrows), "applicable": len(valid),
                "max_sweep_ratio": _finite_ratio(best_sweep) if best_sweep else None,
                "max_search_ratio": _finite_ratio(best_search) if best_search else None,
                "worst_instance": worst["instance"] if worst else None,
                "worst_args": worst["args"] if worst else None,
                "worst_observed": worst.get("observed") if worst else None,
                "worst_bound": worst.get("bound") if worst else None,
                "beaten": any(beaten(r) for r in valid),
                "beaten_rows": sum(1 for r in valid if beaten(r)),
                "errors": sum(1 for r in allrows if str(r.get("status", "")).startswith("error")),
                "case": None,
                "validate_cases": None,
                "seconds": round(time.perf_counter() - t0, 1),
            }
            if outdir:
                write_csv(outdir / f"{_safe(tid)}.csv", allrows)
                write_json(outdir / f"{_safe(tid)}.json", {"schema_version": SCHEMA_VERSION, "target": tid,
                                                           "statement": tgt.statement, "source": tgt.source,
                                                           "command": command, "rows": allrows})
                if plot:
                    msg = write_plot(outdir / f"{_safe(tid)}.png", allrows, f"{tid}: {tgt.statement[:70]}")
                    if msg:
                        plot_msgs.add(msg)
                if worst is not None:
                    cpath = outdir / "cases" / f"{_safe(tid)}.json"
                    write_case(cpath, worst, command)
                    entry["case"] = str(cpath)
                    if tgt.algorithm is not None:
                        vpath = write_validate_case(outdir / "validate" / _safe(tid), worst)
                        entry["validate_cases"] = str(vpath.parent) if vpath else None
            summary.append(entry)
            if len(tids) == 1:
                print(f"{tid}: {tgt.statement}  [{tgt.source}]", file=stream)
                print(rows_table(allrows), file=stream)
                print("", file=stream)
                if entry.get("validate_cases"):
                    print(f"replay the worst instance on an implementation: margins validate {tgt.algorithm} "
                          f"MODULE:CALLABLE --cases {entry['validate_cases']}\n", file=stream)
    finally:
        if own_ex is not None:
            own_ex.shutdown()
    print(summary_table(summary), file=stream)
    for msg in sorted(plot_msgs):
        print(msg, file=sys.stderr)
    doc = {"schema_version": SCHEMA_VERSION, "command": command, "targets": summary}
    if outdir:
        if len(tids) > 1:
            write_json(outdir / "summary.json", doc)
            (outdir / "summary.md").write_text(summary_markdown(summary), encoding="utf-8")
            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            cols = ["target", "kind", "max_sweep_ratio", "max_search_ratio", "worst_instance", "worst_args",
                    "worst_observed", "worst_bound", "beaten", "applicable", "errors", "case"]
            w.writerow(cols)
            for e in summary:
                w.writerow([_cell(e.get(c)) for c in cols])
            (outdir / "summary.csv").write_text(buf.getvalue(), encoding="utf-8")
        print(f"\nwrote {outdir}/ (" + ", ".join(f"{_safe(t)}.csv/.json" for t in tids[:3])
              + (", ..." if len(tids) > 3 else "") + ", cases/"
              + (", validate/" if any(e.get("validate_cases") for e in summary) else "") + ")", file=stream)
    doc["plot_message"] = sorted(plot_msgs)
    return doc


def summary_table(summary: Sequence[dict]) -> str:
    hdr = ["bound", "max ratio (sweep)", "max ratio (search)", "beaten", "attained on"]
    body = [[e["target"], _fmt(e["max_sweep_ratio"]), _fmt(e["max_search_ratio"]), "YES" if e["beaten"] else "no",
             f"{e['worst_instance'] or '-'} {e['worst_args'] or ''}".strip()] for e in summary]
    return table(hdr, body)


def summary_markdown(summary: Sequence[dict]) -> str:
    lines = ["| bound | statement | max ratio (sweep) | max ratio (search) | beaten | attained on |",
             "|---|---|---|---|---|---|"]
    for e in summary:
        lines.append(f"| `{e['target']}` | {e['statement'][:90]} | {_fmt(e['max_sweep_ratio'])} | {_fmt(e['max_search_ratio'])} | "
                     f"{'**YES**' if e['beaten'] else 'no'} | `{e['worst_instance']}` {e['worst_args'] or ''} |")
    return "\n".join(lines) + "\n"


# -- CLI glue (theorems.cli adds the subparser and dispatches here) -------------------------------


def add_arguments(p) -> None:
    p.add_argument("target", help="an algorithm (snkp, nvn, pdm, ...), a check id (RP14.theorem1, RP14.lemma7.printed, "
                                   "...), a prefix (RP14.), or a group: all, algorithms, checks")
    p.add_argument("--family", action="append", default=None,
                   help=f"instance family (repeatable); default: the target's. One of {', '.join(sorted(FAMILIES))}")
    p.add_argument("--n", type=int, nargs="+", default=None, help="numbers of points (override the family grid)")
    p.add_argument("--d", type=int, nargs="+", default=None, help="dimensions (override the family grid)")
    p.add_argument("--margin", type=float, nargs="+", default=None,
                   help="planted margins rho / delta_max (or the kernel families' gap / noise)")
    p.add_argument("--seeds", type=int, default=2, help="instances per grid point (default 2)")
    p.add_argument("--seed", type=int, default=0, help="base seed of the instances and of the search (default 0)")
    p.add_argument("--eps", type=float, default=None, help="accuracy argument: epsilon (nvn, isnkpvn), delta (snkpvn), eps (pfm, pdm)")
    p.add_argument("--search", action="store_true", help="after the sweep, search for the instance maximizing observed/bound")
    p.add_argument("--budget", type=int, default=60, help="evaluations of the search (default 60)")
    p.add_argument("--out", default=None, help="directory for the CSV, JSON, PNG and case files")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--max-iter", type=int, default=None, help=f"largest iteration budget of one run (default {MAX_RUN})")
    p.add_argument("--quick", action="store_true", help="one seed, the first grid point per family, a search budget <= 24")
    p.add_argument("--no-plot", action="store_true", help="do not write the PNG")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def _eps_override(tids: Sequence[str], eps: Optional[float]) -> Optional[dict]:
    if eps is None:
        return None
    keys = set()
    for t in tids:
        tgt = get_target(t)
        for a in tgt.arg_grid:
            keys |= {k for k in a if k in ("epsilon", "delta", "eps")}
    return {k: eps for k in keys} or None


def main(args, argv: Optional[Sequence[str]] = None) -> int:
    tids = _select(args.target)
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "bounds":
        argv = sys.argv[1:]
    cmd = "margins " + " ".join(argv) if argv else ""
    override = _eps_override(tids, args.eps)
    explore(args.target, families=args.family, ns=args.n, margins=args.margin, ds=args.d, seeds=args.seeds,
            seed=args.seed, do_search=args.search or args.quick, budget=args.budget, out=args.out, jobs=args.jobs,
            quick=args.quick, args_override=override, max_iter=args.max_iter, plot=not args.no_plot, command=cmd,
            progress=not args.no_progress)
    return 0
