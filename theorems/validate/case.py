"""A validation case: one instance + arguments of one algorithm, with the reference's answer and
what the papers guarantee on it (:class:`Case`, built by :func:`make_case`).  Also the table of
the algorithms the harness knows: their data kind, positional arguments and allowed statuses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Tuple

import numpy as np

import reference

from .. import paper_bounds as pbounds
from ..memo import Memo
from ..instances import Instance
from .answer import normalize_answer
from .schema import from_number, to_jsonable

ALGORITHMS = tuple(reference.ALGORITHMS)
_SPECS = reference.algorithms.SPECS  # the one table: data kind, positional arguments, statuses
RP14_PRIMAL = tuple(a for a in ALGORITHMS if _SPECS[a].data == "primal")
RP14_GRAM = tuple(a for a in ALGORITHMS if _SPECS[a].data == "gram")
PT11 = tuple(a for a in ALGORITHMS if _SPECS[a].data == "patterns")
ALLOWED_STATUSES = {a: _SPECS[a].statuses for a in ALGORITHMS}
POSITIONAL = {a: _SPECS[a].positional for a in ALGORITHMS if _SPECS[a].positional}  # after the data
KEYWORDS = ("normalize", "rule", "rho", "Delta", "max_iter", "max_epochs", "trace")

CAP = 20_000  # largest budget handed to an implementation
CAP_NO_BOUND = 500  # budget when no theorem promises termination (e.g. a Perceptron on infeasible data)


@dataclass
class Case:
    """One instance + arguments of one algorithm, with what the reference and the papers say.

    ``bound`` is the paper's bound on the counter (None: no theorem applies);
    ``termination_required`` says the bound is within ``max_iter``, so "max_iter" is a failure.
    """

    case_id: str
    algorithm: str
    flags: Tuple[str, ...]
    X: np.ndarray
    y: np.ndarray
    kernel: str
    params: Dict[str, Any]
    args: Dict[str, Any]  # algorithm arguments (epsilon, q, delta, gamma, beta, eta, rho, Delta, normalize)
    max_iter: int
    margin_name: str
    m_lo: float
    m_hi: float
    R: Optional[float]
    bound: Optional[float]
    bound_source: str
    termination_required: bool
    margin_guarantee: Optional[float]
    reference: Dict[str, Any]
    G: Optional[np.ndarray] = None  # Gram algorithms: the matrix they take; all: used for certificates
    P: Optional[np.ndarray] = None  # PT11 patterns (augmented, extended), rows
    name: str = ""

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def Z(self) -> np.ndarray:
        """Reflected points y_i x_i (rows)."""
        return self.X * self.y.reshape(-1, 1)

    def instance_dict(self) -> Dict[str, Any]:
        d = {"name": self.name, "X": self.X, "y": self.y, "kernel": self.kernel, "params": self.params}
        if self.G is not None and self.algorithm in RP14_GRAM:
            d["G"] = self.G
        if self.P is not None:
            d["patterns"] = self.P
        return d

    def to_json(self) -> dict:
        return to_jsonable({
            "case_id": self.case_id,
            "algorithm": self.algorithm,
            "flags": list(self.flags),
            "instance": self.instance_dict(),
            "arguments": dict(self.args, max_iter=self.max_iter),
            "reference": _answer_json(self.reference),
            "bounds": {
                "margin_name": self.margin_name,
                "margin_lower": self.m_lo,
                "margin_upper": self.m_hi,
                "R": self.R,
                "iterations": self.bound,
                "iterations_source": self.bound_source,
                "termination_required": self.termination_required,
                "margin_guarantee": self.margin_guarantee,
            },
        })

    @classmethod
    def from_json(cls, d: dict) -> "Case":
        inst, b = d["instance"], d["bounds"]
        args = dict(d["arguments"])
        max_iter = int(args.pop("max_iter"))
        if "q" in args and args["q"] is not None:
            args["q"] = np.asarray(args["q"], dtype=np.float64)
        G = np.asarray(inst["G"], dtype=np.float64) if inst.get("G") is not None else None
        P = np.asarray(inst["patterns"], dtype=np.float64) if inst.get("patterns") is not None else None
        X = np.asarray(inst["X"], dtype=np.float64)
        y = np.asarray(inst["y"], dtype=np.int64)
        if G is None:
            try:
                G = reference.gram(X, y, inst["kernel"], **inst.get("params", {}))
            except ValueError:
                G = None
        return cls(
            case_id=d["case_id"], algorithm=d["algorithm"], flags=tuple(d["flags"]), X=X, y=y,
            kernel=inst["kernel"], params=dict(inst.get("params", {})), args=args, max_iter=max_iter,
            margin_name=b["margin_name"], m_lo=from_number(b["margin_lower"]), m_hi=from_number(b["margin_upper"]),
            R=from_number(b.get("R")), bound=from_number(b.get("iterations")), bound_source=b.get("iterations_source", ""),
            termination_required=bool(b.get("termination_required")),
            margin_guarantee=from_number(b.get("margin_guarantee")),
            reference=normalize_answer(d["reference"]), G=G, P=P, name=inst.get("name", ""),
        )


def _answer_json(a: Mapping[str, Any]) -> dict:
    out = {k: a.get(k) for k in ("status", "iterations", "alpha", "w", "p")}
    if a.get("trace") is not None:
        out["trace"] = a["trace"]
    return out


_MARGINS = Memo(512)


def _margin(K: np.ndarray) -> Tuple[float, float]:
    """The certified margin interval (lower, upper) of ``K`` (cached on its bytes and on the
    reference code: :mod:`theorems.memo`)."""
    K = np.ascontiguousarray(np.asarray(K, dtype=np.float64))

    def compute():
        m = reference.margin(K, of="span")
        return float(m.lower), float(m.upper)

    return _MARGINS.get((K.shape, K.tobytes()), compute)


def _slug(s: str) -> str:
    out = "".join(c if (c.isalnum() or c in "_.:=,()+-") else "_" for c in s)
    return out.strip("_") or "case"


class _Theory(NamedTuple):
    """What the papers say about one algorithm on one instance (the ``bounds`` of a case)."""

    margin_name: str
    lo: float  # the certified margin interval [lo, hi]
    hi: float
    R: Optional[float] = None
    bound: Optional[float] = None  # the paper's bound on the counter (None: no theorem applies)
    source: str = ""
    infeasible: bool = False  # certified margin <= 0: the Perceptrons, NKP and SNKP have nothing to find
    guarantee: Optional[float] = None  # PT11: the margin a separator must reach
    P: Optional[np.ndarray] = None  # PT11: the patterns the algorithm runs on


def make_case(algorithm: str, inst: Instance, *, eps: Optional[float] = None, Delta: Optional[float] = None,
              variant: str = "", cap: int = CAP, budget: Optional[int] = None,
              arguments: Optional[Mapping[str, Any]] = None) -> Optional[Case]:
    """The case of ``algorithm`` on ``inst`` (None when the algorithm does not apply to it).

    Arguments are chosen so that the papers' theorems apply where they can: NVN/ISNKPVN accuracy
    0.05; SNKPVN with q = 1_n/n and delta = min(0.05, rho_K/2) on feasible data (Lemma 8); PFM with
    beta = (1 - eps) gamma_d (eps = 0.3 by default) at the lower end of the certified gamma_d;
    PDM eps = 0.3 and PDM-succ eps = 0.1, eta = 8 by default; PT11 rho = 1 (bias by augmentation),
    Delta = the extended space when given.  ``arguments`` overrides the RP14 defaults (``rule`` of
    the Perceptron, ``epsilon`` of NVN / ISNKPVN, ``q`` and ``delta`` of SNKPVN, ``gamma`` of
    ISNKPVN); the paper's bound follows them.  (``margins bounds --search`` uses this to turn its
    worst instance into a case.)
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    if not isinstance(inst.kernel, str):
        return None  # a callable kernel cannot be exported
    X = np.asarray(inst.X, dtype=np.float64)
    y = np.asarray(inst.y, dtype=np.int64)
    try:
        G = reference.gram(X, y, inst.kernel, **inst.params)  # float64
    except ValueError:
        G = None
    args: Dict[str, Any] = {}
    over = dict(arguments or {})
    if algorithm in RP14_PRIMAL or algorithm in RP14_GRAM:
        if G is None:
            return None
        theory = (_rp14_primal_theory(algorithm, X, y, G, inst.kernel, over, args) if algorithm in RP14_PRIMAL
                  else _rp14_gram_theory(algorithm, G, over, args))
    else:
        theory = _pt11_theory(algorithm, X, y, inst.kernel, eps, Delta, args)
    if theory is None:
        return None
    bound = theory.bound if theory.bound is not None and math.isfinite(theory.bound) else None
    termination, max_iter, ref = _budget_and_answer(algorithm, X, y, G, args, bound, theory.infeasible, cap, budget)
    extra = ((("one_class",) if np.unique(y).size == 1 else ())  # all labels equal: libraries that classify refuse it
             + (("extended",) if Delta is not None else ()) + (("budget",) if budget is not None else ()) + (("pt11",) if algorithm in PT11 else ()))
    return Case(
        case_id=f"{algorithm}/{_slug(inst.name)}" + (f"/{_slug(variant)}" if variant else ""),
        algorithm=algorithm, flags=tuple(dict.fromkeys(tuple(inst.flags) + extra)), X=X, y=y, kernel=inst.kernel,
        params=dict(inst.params), args=args, max_iter=max_iter, margin_name=theory.margin_name, m_lo=theory.lo,
        m_hi=theory.hi, R=theory.R, bound=bound, bound_source=theory.source,
        termination_required=termination, margin_guarantee=theory.guarantee, reference=ref, G=G, P=theory.P,
        name=inst.name,
    )


def _rp14_primal_theory(algorithm, X, y, G, kernel, over, args) -> Optional[_Theory]:
    """Perceptron (Block-Novikoff on the raw data) and Normalized Perceptron (on X_2)."""
    if kernel != "linear":
        return None
    if algorithm == "perceptron":
        if over.get("rule", "cyclic") != "cyclic":
            args["rule"] = str(over["rule"])
        lo, hi = _margin(reference.signed_gram(X, y))
        R = pbounds.radius(X)
        bound, source = (pbounds.novikoff(R, lo), "RP14 Sec. 2 Block-Novikoff: max||x||^2/rho^2") if lo > 0 else (None, "")
        name = "rho"
    else:
        args["normalize"] = True
        lo, hi = _margin(G)
        R = 1.0
        bound, source = (pbounds.normalized_perceptron(lo), "RP14 Sec. 2.1: 1/rho_2^2") if lo > 0 else (None, "")
        name = "rho_2"
    return _Theory(name, lo, hi, R, bound, source, hi <= 0)  # as for the Gram algorithms: margin <= 0 is nothing to find


def _rp14_gram_theory(algorithm, G, over, args) -> _Theory:
    """The Gram algorithms: NKP, SNKP, NVN, SNKPVN, ISNKPVN (their arguments go into ``args``)."""
    n = len(G)
    lo, hi = _margin(G)
    bound, source = None, ""
    if algorithm == "nkp":
        if lo > 0:
            bound, source = pbounds.nkp(lo), "RP14 Sec. 3.2: 1/rho_K^2"
    elif algorithm == "snkp":
        if lo > 0:
            bound, source = pbounds.snkp(lo, n), "RP14 Thm. 1: 2 sqrt(2 log n)/rho_K"
    elif algorithm == "nvn":
        args["epsilon"] = float(over.get("epsilon", 0.05))
        if hi <= 0:
            bound, source = pbounds.nvn(args["epsilon"]), "RP14 Sec. 5.1: 1/eps^2 (infeasible)"
    elif algorithm == "snkpvn":
        q = np.asarray(over["q"], dtype=np.float64) if over.get("q") is not None else np.full(n, 1.0 / n)
        delta = float(over["delta"]) if "delta" in over else (0.05 if lo <= 0 else min(0.05, lo / 2))
        args["q"], args["delta"] = q, float(delta)
        if lo > 0:
            bound, source = pbounds.snkpvn_feasible(lo, n), "RP14 Lemma 8: 2 sqrt(2n)/rho_K"
        elif hi <= 0:
            bound = pbounds.snkpvn_infeasible(delta, n, reference.g_norm(G, q), hi)  # hi <= 0 here
            source = "RP14 Lemma 9 with the corrected Lemma 7 (E-A2)"
    elif algorithm == "isnkpvn":
        gamma, epsilon = float(over.get("gamma", 2.0)), float(over.get("epsilon", 0.05))
        args["gamma"], args["epsilon"] = gamma, epsilon
        if lo > 0 or hi < 0:  # the conservative end: the smaller |rho_K|
            bound = pbounds.isnkpvn_total(n, reference.g_norm(G, np.full(n, 1.0 / n)), lo if lo > 0 else hi, gamma, epsilon)
            source = "RP14 Thm. 4 with Lemmas 8, 9 (corrected Lemma 7) and (15): theorems.paper_bounds.isnkpvn_total"
    return _Theory("rho_K", lo, hi, None, bound, source, hi <= 0)


def _pt11_theory(algorithm, X, y, kernel, eps, Delta, args) -> Optional[_Theory]:
    """PFM, PDM, PDM-succ on the augmented (rho = 1), reflected, possibly extended patterns."""
    if kernel != "linear":
        return None
    args["rho"] = rho = 1.0
    args["Delta"] = Delta
    P = np.asarray(reference.dynamic_margin.patterns(X, y, rho=rho, Delta=Delta), dtype=np.float64)
    lo, hi = _margin(P @ P.T)
    if not lo > 0:
        return None  # PT11 needs separable (augmented / extended) data
    R = pbounds.radius(P)
    if algorithm == "pfm":
        e = 0.3 if eps is None else eps
        args["beta"] = beta = (1.0 - e) * lo
        bound, source, guarantee = pbounds.pfm_theorem1(R, lo, 1.0 - beta / lo), "PT11 Thm. 1", beta
    else:
        e = (0.3 if algorithm == "pdm" else 0.1) if eps is None else eps
        args["epsilon"] = e
        if algorithm == "pdm_succ":
            args["eta"] = 8.0
        bound = pbounds.pdm_theorem2(R, lo, e)
        source = "PT11 Thm. 2" + (" (the whole run is a PDM(eps) run, Sec. 3)" if algorithm == "pdm_succ" else "")
        guarantee = (1.0 - e) * lo
    return _Theory("gamma_d", lo, hi, R, bound, source, False, guarantee, P)


def _budget_and_answer(algorithm, X, y, G, args, bound, infeasible, cap, budget):
    """(termination_required, max_iter, the reference's answer).  Where the bound fits in ``cap``
    the budget is floor(bound) + 2 and "max_iter" fails; otherwise, where the reference finishes
    within ``cap``, 20 times its count + 100 (at least CAP_NO_BOUND, at most ``cap``), and
    CAP_NO_BOUND where it does not (on data certified infeasible, the Perceptrons, NKP and SNKP
    have nothing to find: their reference runs only CAP_NO_BOUND); never above ``cap``.
    ``budget`` makes a budget-exhaustion case."""
    termination = bound is not None and bound + 2 <= cap
    if termination:
        max_iter = int(math.floor(bound)) + 2
    elif infeasible and algorithm in ("perceptron", "normalized_perceptron", "nkp", "snkp"):
        max_iter = min(CAP_NO_BOUND, cap)  # nothing to find: a short budget keeps the run cheap
    else:
        max_iter = cap
    if budget is not None:  # a budget-exhaustion case: honesty when the budget runs out
        termination, max_iter = False, int(budget)
    ref = _reference_answer(algorithm, X, y, G, args, max_iter)
    if budget is None and not termination:  # (a max_iter answer has iterations = max_iter: no change)
        max_iter = int(min(max_iter, max(CAP_NO_BOUND, 20 * ref["iterations"] + 100)))
    if not termination and ref["status"] == "max_iter":
        max_iter = min(max_iter, CAP_NO_BOUND)
        ref = _reference_answer(algorithm, X, y, G, args, max_iter)
    return termination, max_iter, ref


def _reference_answer(algorithm, X, y, G, args, max_iter, trace: bool = False) -> Dict[str, Any]:
    fn = getattr(reference, algorithm)
    kw = {k: v for k, v in args.items() if k in KEYWORDS}
    pos = [args[p] for p in POSITIONAL.get(algorithm, ())]
    if algorithm in PT11:
        kw["max_epochs"] = 10**9
    data = (G,) if algorithm in RP14_GRAM else (X, y)
    res = fn(*data, *pos, max_iter=max_iter, trace=trace, **kw)
    return normalize_answer(res)


def _reference_trace(case: Case) -> Optional[List[dict]]:
    return _reference_answer(case.algorithm, case.X, case.y, case.G, case.args, case.max_iter, trace=True).get("trace")
