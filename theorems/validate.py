"""Validate any implementation of an RP14 / PT11 algorithm against the reference.

    from theorems.validate import validate
    report = validate("snkp", my_snkp)          # my_snkp(G, *, max_iter=..., trace=...) -> Result-like
    report.conforms, print(report.format())

What is checked, in layers (each check has an id, reported with its outcome):

**Layer 1 -- the claim** (always).

* ``answer.contract``  the call returned (no exception, no timeout) an object with the Result
  attributes (or a mapping with those keys): ``status`` in {separator, certificate, max_iter} and
  allowed for the algorithm, an integer ``iterations >= 0``, and the vector the status needs, of
  the right length and finite.
* ``claim.separator``  a claimed separator separates, recomputed in float64 from the returned
  vector alone: y_i <w, x_i> > 0 (primal), G alpha > 0 (Gram algorithms), a.y_k > 0 on the
  augmented/extended patterns (PT11).  A zero vector, or an exact 0 margin, fails; a negative
  normalized margin above -1e-7 is a *near tie* and reported as a note, not a failure (float32).
* ``claim.certificate``  p is in the simplex (entries >= -1e-9, |sum - 1| <= 1e-6) and
  ||p||_G is within the algorithm's accuracy (NVN: <= epsilon; SNKPVN: < delta; ISNKPVN: < epsilon).
* ``claim.max_iter``  a "max_iter" is *honest*: it is dishonest (a) to stop before the budget
  (``iterations < max_iter``) without a claim, or (b) to return a vector that already passes the
  algorithm's own exit test (G alpha > 0 / y_i <w, x_i> > 0 / ||p||_G <= accuracy) -- the claim was
  left on the table.  Whether the *reference* converged is not part of honesty (that is layer 2,
  and only where a theorem guarantees it).  (b) is not applied to PT11, whose exit test is "a full
  pass without an update", a property of the run, not of the vector.

**Layer 2 -- the papers' guarantees** (always; skipped where the instance gives no theorem or the
implementation lacks the capability).

* ``bound.iterations``  the counter is within the paper's bound (:mod:`theorems.paper_bounds`,
  evaluated at the conservative end of the certified margin interval from
  :func:`reference.margin`); and when that bound is within the budget, "max_iter" is a failure
  (the theorem guarantees termination).  One iteration of slack absorbs counter conventions.
* ``guarantee.margin``  PT11: a separator's directional margin min_k a.y_k/||a|| is
  >= (1-eps) gamma_d (PDM, PDM-succ) or > beta (PFM).
* ``invariant.final``  statements about the returned iterate that every correct run satisfies:
  alpha, p in the simplex (NKP k >= 1, SNKP, SNKPVN, ISNKPVN, NVN); NKP: k alpha_k is a vector
  of nonnegative integers (an average of k vertices) and ||alpha_k||_G^2 <= 1/k; Normalized
  Perceptron: ||w_k||^2 <= 1/k (R^2/k unnormalized); Perceptron: ||w_k||^2 <= k R^2 and
  ||w_k|| >= k rho (Block-Novikoff's two halves); NVN: ||p_k||_G^2 (k+1) <= 1; SNKP: the excessive
  gap condition L_{mu_k}(alpha_k) <= -||p_k||_G^2/2 with mu_k = 4/((k+1)(k+2)) (Lemma 5); SNKPVN:
  the same with L^q and mu_k = 4n/((k+1)(k+2)) (Lemmas 8/9); PT11: eq. (4) gamma_d <= ||a_t||/t,
  ||a_t|| <= R t, PDM's exit (8) with the returned t (min a.y_k > (1-eps)||a_t||/t), and in the
  extended space (Delta given) the update counts read off the extra coordinates are nonnegative
  integers summing to t.
* ``invariant.trace``  when the implementation returns a trace: every iterate satisfies the
  per-iterate statements above (Lemma 5 / Lemma 8-9 EGC, mu_k's closed form, eq. (4), NVN's
  1/sqrt(k+1)), and every step is a legitimate step of the algorithm (NKP / Normalized Perceptron:
  a vertex chosen among the near-argmin; Perceptron: a mistake; PDM/PFM: an update on a pattern
  satisfying (8) / (7)).

**Layer 3 -- ``strict=True``**: the trajectory agrees with the reference's step by step (rtol
1e-6).  A divergence right after a near-tie decision of the reference (an argmin whose two best
candidates are within 1e-9) is reported as a note and ends the comparison; any other divergence,
or a different final status / counter, fails.

Legitimate differences -- argmin tie-breaking, which misclassified point a Perceptron takes, a
later (but valid) stopping iterate, float32 arithmetic on well-conditioned data -- pass layers 1-2.

Instances: a fixed corpus of edge cases (:func:`corpus`, the same cases ``margins export-cases``
writes) and instances drawn by hypothesis from :mod:`theorems.strategies`, with derandomized
settings (so a run is deterministic) and shrinking (so a failure is reported on a minimal
instance).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import math
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

import reference
from reference.arithmetic import Arithmetic

from . import paper_bounds as pbounds
from .cases import SCHEMA_VERSION, check_document, from_number, read_json, to_jsonable, write_json
from .instances import Instance

__all__ = [
    "ALGORITHMS",
    "LAYERS",
    "CheckResult",
    "Case",
    "Failure",
    "Report",
    "validate",
    "parametrize_with_checks",
    "corpus",
    "make_case",
    "run_case",
    "evaluate",
    "export_cases",
    "write_corpus",
    "validate_answers",
    "validate_trace",
    "load_callable",
]

ALGORITHMS = tuple(reference.ALGORITHMS)
PASS, FAIL, SKIP, NOTE = "pass", "fail", "skip", "note"
LAYERS = {
    "answer.contract": 1,
    "claim.separator": 1,
    "claim.certificate": 1,
    "claim.max_iter": 1,
    "bound.iterations": 2,
    "guarantee.margin": 2,
    "invariant.final": 2,
    "invariant.trace": 2,
    "strict.trajectory": 3,
}

RP14_PRIMAL = ("perceptron", "normalized_perceptron")
RP14_GRAM = ("nkp", "snkp", "nvn", "snkpvn", "isnkpvn")
PT11 = ("pfm", "pdm", "pdm_succ")
STATUSES = {
    "perceptron": ("separator", "max_iter"),
    "normalized_perceptron": ("separator", "max_iter"),
    "nkp": ("separator", "max_iter"),
    "snkp": ("separator", "max_iter"),
    "nvn": ("separator", "certificate", "max_iter"),
    "snkpvn": ("separator", "certificate", "max_iter"),
    "isnkpvn": ("separator", "certificate", "max_iter"),
    "pfm": ("separator", "max_iter"),
    "pdm": ("separator", "max_iter"),
    "pdm_succ": ("separator", "max_iter"),
}
# positional parameters after the data, in the reference's order
POSITIONAL = {
    "nvn": ("epsilon",),
    "snkpvn": ("q", "delta"),
    "isnkpvn": ("gamma", "epsilon"),
    "pfm": ("beta",),
    "pdm": ("epsilon",),
    "pdm_succ": ("epsilon", "eta"),
}
KEYWORDS = ("normalize", "rule", "rho", "Delta", "max_iter", "max_epochs", "trace")

CAP = 20_000  # largest budget handed to an implementation
CAP_NO_BOUND = 500  # budget when no theorem promises termination (e.g. a Perceptron on infeasible data)
TIE = 1e-9  # two argmin candidates closer than this are a near tie
NEAR = 1e-7  # normalized margins in [-NEAR, 0) are a near tie (round-off), not a failure
SIMPLEX_NEG, SIMPLEX_SUM = 1e-6, 1e-5  # simplex membership of returned iterates (float32-friendly)


# ================================================================================================
# results
# ================================================================================================


@dataclass(frozen=True)
class CheckResult:
    """One check on one case: ``outcome`` in {pass, fail, skip, note}."""

    id: str
    outcome: str
    message: str = ""

    @property
    def layer(self) -> int:
        return LAYERS.get(self.id, 0)


@dataclass
class Failure:
    """A failing case: the checks that failed, the instance, and both answers side by side."""

    check: str
    message: str
    case_id: str
    instance: Dict[str, Any]
    arguments: Dict[str, Any]
    reference: Dict[str, Any]
    implementation: Dict[str, Any]
    shrunk: bool = False

    @property
    def size(self) -> Tuple[int, int]:
        X = self.instance.get("X") or [[]]
        return (len(X), len(X[0]) if X else 0)

    def as_dict(self) -> dict:
        return to_jsonable(self.__dict__)

    def format(self) -> str:
        X, y = self.instance.get("X"), self.instance.get("y")
        lines = [
            f"FAILED {self.check}: {self.message}",
            f"  case     : {self.case_id}" + (" (minimal instance, shrunk by hypothesis)" if self.shrunk else ""),
            f"  instance : n={len(X)} d={len(X[0]) if X else 0} kernel={self.instance.get('kernel')} {self.instance.get('params') or ''}",
            f"    X = {np.array2string(np.asarray(X, dtype=float), precision=6, separator=', ', max_line_width=100)}",
            f"    y = {list(y)}",
            f"  arguments: {_short(self.arguments)}",
            "  answer          reference                         implementation",
        ]
        for key in ("status", "iterations", "alpha", "w", "p"):
            r, i = self.reference.get(key), self.implementation.get(key)
            if r is None and i is None:
                continue
            lines.append(f"    {key:<12}  {_short(r):<32}  {_short(i)}")
        if self.implementation.get("error"):
            lines.append(f"    error         {self.implementation['error']}")
        return "\n".join(lines)


def _short(v, n: int = 6) -> str:
    if v is None:
        return "-"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}={_short(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple, np.ndarray)):
        a = list(np.asarray(v, dtype=float).ravel()) if len(v) and not isinstance(v[0], (list, tuple)) else list(v)
        body = ", ".join(f"{x:.4g}" if isinstance(x, float) else str(x) for x in a[:n])
        return "[" + body + (", ..." if len(a) > n else "") + "]"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


@dataclass
class Report:
    """The outcome of :func:`validate` / :func:`validate_answers` / :func:`validate_trace`."""

    algorithm: str
    implementation: str
    conforms: bool
    counts: Dict[str, Dict[str, int]] = field(default_factory=dict)  # check id -> outcome -> count
    failures: List[Failure] = field(default_factory=list)  # first failure of each check id
    minimal: Optional[Failure] = None  # the smallest failing instance (hypothesis-shrunk when found there)
    notes: List[str] = field(default_factory=list)
    cases: int = 0
    seconds: float = 0.0
    strict: bool = False

    def record(self, case_id: str, results: Sequence[CheckResult]) -> None:
        for r in results:
            self.counts.setdefault(r.id, {}).setdefault(r.outcome, 0)
            self.counts[r.id][r.outcome] += 1
            if r.outcome == NOTE and len(self.notes) < 20:
                self.notes.append(f"{case_id}: {r.id}: {r.message}")

    @property
    def failed_checks(self) -> List[str]:
        return sorted(k for k, v in self.counts.items() if v.get(FAIL))

    @property
    def layers_failed(self) -> List[int]:
        return sorted({LAYERS.get(c, 0) for c in self.failed_checks})

    def summary(self) -> str:
        n_pass = sum(v.get(PASS, 0) for v in self.counts.values())
        n_skip = sum(v.get(SKIP, 0) for v in self.counts.values())
        layers = "1-3" if self.strict else "1-2"
        if self.conforms:
            return (f"{self.implementation} conforms to reference.{self.algorithm}: {self.cases} cases, "
                    f"{n_pass} checks passed, {n_skip} skipped (layers {layers}, {self.seconds:.1f} s)")
        return (f"{self.implementation} does NOT conform to reference.{self.algorithm}: "
                f"failed {', '.join(self.failed_checks)} ({self.cases} cases, {self.seconds:.1f} s)")

    def format(self) -> str:
        out = [self.summary()]
        if not self.conforms and self.minimal is not None:
            out.append(self.minimal.format())
        others = [f for f in self.failures if self.minimal is None or f.check != self.minimal.check]
        for f in others[:3]:
            out.append(f"  also failed {f.check} on {f.case_id}: {f.message}")
        for n in self.notes[:5]:
            out.append(f"  note: {n}")
        return "\n".join(out)

    def as_dict(self) -> dict:
        return to_jsonable({
            "algorithm": self.algorithm,
            "implementation": self.implementation,
            "conforms": self.conforms,
            "summary": self.summary(),
            "counts": self.counts,
            "failures": [f.as_dict() for f in self.failures],
            "minimal": self.minimal.as_dict() if self.minimal else None,
            "notes": self.notes,
            "cases": self.cases,
            "seconds": self.seconds,
            "strict": self.strict,
        })


# ================================================================================================
# cases
# ================================================================================================


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
            termination_required=bool(b.get("termination_required", False)),
            margin_guarantee=from_number(b.get("margin_guarantee")),
            reference=normalize_answer(d["reference"]), G=G, P=P, name=inst.get("name", ""),
        )


def _answer_json(a: Mapping[str, Any]) -> dict:
    out = {k: a.get(k) for k in ("status", "iterations", "alpha", "w", "p")}
    if a.get("trace") is not None:
        out["trace"] = a["trace"]
    return out


def _interval(m) -> Tuple[float, float]:
    return float(m.lower), float(m.upper)


@lru_cache(maxsize=512)
def _margin_cached(key: bytes, shape: Tuple[int, int], data: bytes):
    K = np.frombuffer(data, dtype=np.float64).reshape(shape)
    return reference.margin(K, of="span")


def _margin(K: np.ndarray) -> Tuple[float, float]:
    K = np.ascontiguousarray(np.asarray(K, dtype=np.float64))
    m = _margin_cached(b"", K.shape, K.tobytes())
    return _interval(m)


def _pt11_patterns(X, y, rho, Delta) -> np.ndarray:
    A = reference.augment(np.asarray(X, dtype=np.float64), rho) if rho is not None else np.asarray(X, dtype=np.float64)
    P = reference.reflect(A, np.asarray(y))
    if Delta is not None:
        P = reference.extend(P, np.asarray(y), Delta)
    return np.asarray(P, dtype=np.float64)


def _slug(s: str) -> str:
    out = "".join(c if (c.isalnum() or c in "_.:=,()+-") else "_" for c in s)
    return out.strip("_") or "case"


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
    over = dict(arguments or {})
    X = np.asarray(inst.X, dtype=np.float64)
    y = np.asarray(inst.y, dtype=np.int64)
    kernel = inst.kernel if isinstance(inst.kernel, str) else None
    if kernel is None:
        return None  # a callable kernel cannot be exported
    linear = kernel == "linear"
    n = X.shape[0]
    args: Dict[str, Any] = {}
    G = None
    P = None
    try:
        G = np.asarray(reference.gram(X, y, kernel, **inst.params), dtype=np.float64)
    except ValueError:
        if algorithm in RP14_GRAM or algorithm in RP14_PRIMAL:
            return None
    bound = None
    source = ""
    guarantee = None
    R = None
    feasible = None

    if algorithm in RP14_PRIMAL:
        if not linear:
            return None
        if algorithm == "perceptron":
            name = "rho"
            if over.get("rule", "cyclic") != "cyclic":
                args["rule"] = str(over["rule"])
            lo, hi = _margin(reference.signed_gram(X, y))
            R = float(np.max(np.linalg.norm(X, axis=1)))
            if lo > 0:
                bound, source = pbounds.novikoff(R, lo), "RP14 Sec. 2 Block-Novikoff: max||x||^2/rho^2"
        else:
            name = "rho_2"
            args["normalize"] = True
            lo, hi = _margin(G)
            R = 1.0
            if lo > 0:
                bound, source = pbounds.normalized_perceptron(lo), "RP14 Sec. 2.1: 1/rho_2^2"
        feasible = lo > 0 if lo > 0 or hi < 0 else None
    elif algorithm in RP14_GRAM:
        name = "rho_K"
        lo, hi = _margin(G)
        feasible = True if lo > 0 else (False if hi <= 0 else None)
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
                qn = math.sqrt(max(float(q @ G @ q), 0.0))
                bound = pbounds.snkpvn_infeasible(delta, n, qn, min(hi, 0.0))
                source = "RP14 Lemma 9 with the proved Lemma 7 (E-A2)"
        elif algorithm == "isnkpvn":
            gamma, epsilon = float(over.get("gamma", 2.0)), float(over.get("epsilon", 0.05))
            args["gamma"], args["epsilon"] = gamma, epsilon
            q0 = np.full(n, 1.0 / n)
            q0n = math.sqrt(max(float(q0 @ G @ q0), 0.0))
            inner = 2.0 * math.sqrt(2.0 * n)
            if lo > epsilon:
                calls = pbounds.isnkpvn_outer_loops(q0n, lo, gamma) + 1
                bound = calls * (math.floor(pbounds.snkpvn_feasible(lo, n)) + 1)
                source = "RP14 Thm. 4(1): (outer loops + 1) x (2 sqrt(2n)/rho_K + 1)"
            elif hi < 0:
                calls = pbounds.isnkpvn_outer_loops(q0n, epsilon, gamma) + 1
                per = inner * min(1.0 / epsilon, gamma / abs(hi))
                last = inner * gamma / abs(hi)
                bound = calls * (math.floor(per) + 1) + math.floor(last) + 1
                source = "RP14 Thm. 4(2) with Lemma 9 (proved Lemma 7)"
    else:  # PT11
        if not linear:
            return None
        rho = 1.0
        args["rho"] = rho
        args["Delta"] = Delta
        P = _pt11_patterns(X, y, rho, Delta)
        name = "gamma_d"
        lo, hi = _margin(P @ P.T)
        if not lo > 0:
            return None  # PT11 needs separable (augmented / extended) data
        feasible = True
        R = float(np.max(np.linalg.norm(P, axis=1)))
        if algorithm == "pfm":
            e = 0.3 if eps is None else eps
            beta = (1.0 - e) * lo
            args["beta"] = beta
            eff = 1.0 - beta / lo
            bound, source = pbounds.pfm_theorem1(R, lo, eff), "PT11 Thm. 1"
            guarantee = beta
        else:
            e = (0.3 if algorithm == "pdm" else 0.1) if eps is None else eps
            args["epsilon"] = e
            if algorithm == "pdm_succ":
                args["eta"] = 8.0
            bound, source = pbounds.pdm_theorem2(R, lo, e), "PT11 Thm. 2" + (" (the whole run is a PDM(eps) run, Sec. 3)" if algorithm == "pdm_succ" else "")
            guarantee = (1.0 - e) * lo
    if bound is not None and not math.isfinite(bound):
        bound = None
    termination = bound is not None and bound + 2 <= cap
    if termination:
        max_iter = int(math.floor(bound)) + 2
    elif feasible is False and algorithm in ("perceptron", "normalized_perceptron", "nkp", "snkp"):
        max_iter = CAP_NO_BOUND  # nothing to find: a short budget keeps the run cheap
    else:
        max_iter = cap
    if budget is not None:  # a budget-exhaustion case: honesty when the budget runs out
        termination, max_iter = False, int(budget)
    ref = _reference_answer(algorithm, X, y, G, args, max_iter)
    if budget is not None:
        pass
    elif not termination and ref["status"] != "max_iter":
        max_iter = int(min(max_iter, max(CAP_NO_BOUND, 20 * ref["iterations"] + 100)))
    if not termination and ref["status"] == "max_iter":
        max_iter = min(max_iter, CAP_NO_BOUND)
        ref = _reference_answer(algorithm, X, y, G, args, max_iter)
    flags = tuple(dict.fromkeys(tuple(inst.flags) + (("extended",) if Delta is not None else ()) + (("budget",) if budget is not None else ()) + (("pt11",) if algorithm in PT11 else ())))
    cid = f"{algorithm}/{_slug(inst.name)}" + (f"/{_slug(variant)}" if variant else "")
    return Case(
        case_id=cid, algorithm=algorithm, flags=flags, X=X, y=y, kernel=kernel, params=dict(inst.params),
        args=args, max_iter=max_iter, margin_name=name, m_lo=lo, m_hi=hi, R=R, bound=bound, bound_source=source,
        termination_required=termination, margin_guarantee=guarantee, reference=ref, G=G, P=P, name=inst.name,
    )


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


# ================================================================================================
# the fixed corpus
# ================================================================================================


def _corpus_instances() -> List[Instance]:
    from . import strategies as S

    insts = list(S.degenerate_cases())
    insts.append(S.worked_example(3.0))
    insts.append(S.planted_separable(3, 3, 5, 0.3, seed=1))
    insts.append(S.planted_separable(4, 3, 6, 0.2, seed=2, unit=False, scale=2.0))
    insts.append(S.planted_infeasible("simplex", 2, 0))
    insts.append(S.planted_infeasible("random", 3, 5, m=6))
    insts.append(S.random_kernel_instance("gaussian", 8, 2, seed=3, sigma=1.0))
    insts.append(S.random_kernel_instance("polynomial", 6, 2, seed=4, degree=2, c=1.0))
    return insts


def corpus(algorithm: str, cap: int = CAP) -> List[Case]:
    return list(_corpus(algorithm, cap))


@lru_cache(maxsize=32)
def _corpus(algorithm: str, cap: int = CAP) -> Tuple[Case, ...]:
    """The fixed, deterministic corpus of ``algorithm`` (what ``margins export-cases`` writes):
    every edge case of :func:`theorems.strategies.degenerate_cases`, RP14's worked example, planted
    separable / infeasible instances and two kernel instances; for PT11 several eps and the
    extended space (Delta = 1)."""
    out: List[Case] = []
    seen = set()
    for inst in _corpus_instances():
        variants: List[Tuple[str, dict]] = [("", {})]
        if algorithm == "pdm":
            variants = [("eps=0.3", {"eps": 0.3}), ("eps=0.7", {"eps": 0.7}), ("eps=0.3,Delta=1", {"eps": 0.3, "Delta": 1.0})]
        elif algorithm in ("pfm", "pdm_succ"):
            variants = [("", {}), ("Delta=1", {"Delta": 1.0})]
        for tag, kw in variants:
            c = make_case(algorithm, inst, variant=tag, cap=cap, **kw)
            if c is not None and c.case_id not in seen:
                seen.add(c.case_id)
                out.append(c)
    # budget exhaustion: the two first cases on which the reference needs >= 6 iterations, rerun
    # with half that budget -- a 'max_iter' must then be honest and any claim must still be true
    slow = [c for c in out if c.reference["status"] != "max_iter" and c.reference["iterations"] >= 6][:2]
    for c in slow:
        inst = next(i for i in _corpus_instances() if i.name == c.name)
        tag = (c.case_id.split("/", 2)[2] + "," if c.case_id.count("/") == 2 else "") + "budget"
        kw = {}
        if c.algorithm in PT11:
            kw = {"Delta": c.args.get("Delta")}
            if c.algorithm != "pfm":
                kw["eps"] = c.args["epsilon"]
        b = make_case(algorithm, inst, variant=tag, cap=cap, budget=c.reference["iterations"] // 2, **kw)
        if b is not None:
            out.append(b)
    return tuple(out)


# ================================================================================================
# answers: normalizing whatever an implementation returns
# ================================================================================================


def _get(obj, key, default=None):
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _vec(v) -> Optional[np.ndarray]:
    if v is None:
        return None
    try:
        a = np.asarray(v)
        if a.dtype == object:
            a = np.array([float(x) for x in a.ravel()])
        return np.asarray(a, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        return None


def _state_dict(s) -> Dict[str, Any]:
    if isinstance(s, Mapping):
        d = dict(s)
    elif hasattr(s, "__dataclass_fields__"):
        d = {k: getattr(s, k) for k in s.__dataclass_fields__}
    elif hasattr(s, "__dict__"):
        d = dict(vars(s))
    else:
        return {}
    out: Dict[str, Any] = {}
    for k, v in d.items():
        if k in ("alpha", "p", "w", "a", "q"):
            out["w" if k == "a" else k] = _vec(v)
        elif k in ("k", "t"):
            try:
                out[k] = int(v)
            except (TypeError, ValueError):
                pass
        elif k == "mu":
            try:
                out["mu"] = float(v)
            except (TypeError, ValueError):
                pass
    return out


def normalize_answer(obj) -> Dict[str, Any]:
    """An implementation's return value (Result-like object or mapping) as a plain dict:
    status, iterations, alpha, w, p (float64 vectors or None), trace (list of dicts or None)."""
    status = _get(obj, "status")
    it = _get(obj, "iterations")
    try:
        it_int = int(it) if it is not None and float(it) == int(it) else it
    except (TypeError, ValueError):
        it_int = it
    trace = _get(obj, "trace")
    tr = None
    if trace is not None:
        try:
            tr = [_state_dict(s) for s in trace]
        except TypeError:
            tr = None
    return {
        "status": status if isinstance(status, str) else (str(status) if status is not None else None),
        "iterations": it_int,
        "alpha": _vec(_get(obj, "alpha")),
        "w": _vec(_get(obj, "w")),
        "p": _vec(_get(obj, "p")),
        "trace": tr,
    }


# ================================================================================================
# calling an implementation
# ================================================================================================


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: Optional[float]):
    """SIGALRM-based time limit in the main thread (a no-op elsewhere / on Windows)."""
    if not seconds or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def handler(signum, frame):
        raise _Timeout()

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _accepts(impl) -> Tuple[Optional[set], bool, int]:
    """(names of keyword-passable parameters or None = anything, has **kwargs, # positional slots)."""
    try:
        sig = inspect.signature(impl)
    except (TypeError, ValueError):
        return None, True, 99
    names, varkw, npos = set(), False, 0
    for p in sig.parameters.values():
        if p.kind == p.VAR_KEYWORD:
            varkw = True
        elif p.kind == p.VAR_POSITIONAL:
            npos = 99
        else:
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                names.add(p.name)
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                npos += 1
    return names, varkw, npos


def call_impl(impl: Callable, case: Case, *, want_trace: bool = True, timeout: Optional[float] = 20.0) -> Tuple[Dict[str, Any], List[CheckResult]]:
    """Call ``impl`` on ``case`` the way the reference is called; return (answer, notes).

    Only keywords the callable accepts are passed (trace, max_iter, max_epochs, rho, Delta,
    normalize).  If the case needs a keyword the callable lacks (rho != 1 or Delta for PT11) the
    answer is ``{"skip": reason}``.
    """
    names, varkw, npos = _accepts(impl)
    ok = (lambda k: varkw or names is None or k in names)
    data = (case.G,) if case.algorithm in RP14_GRAM else (case.X, case.y)
    pos = [case.args[p] for p in POSITIONAL.get(case.algorithm, ())]
    kw: Dict[str, Any] = {}
    if case.algorithm == "pdm_succ":
        eta = pos.pop()  # eta has a default: by keyword, positionally, or not at all (8 is the default)
        if ok("eta"):
            kw["eta"] = eta
        elif npos >= len(data) + 2:
            pos.append(eta)
    for k in ("normalize", "rho", "Delta"):
        if k in case.args:
            if ok(k):
                kw[k] = case.args[k]
            elif k == "Delta" and case.args[k] is not None:
                return {"skip": f"the callable takes no 'Delta' (extended space)"}, []
    if ok("max_iter"):
        kw["max_iter"] = case.max_iter
    if case.algorithm in PT11 and ok("max_epochs"):
        kw["max_epochs"] = 10**9
    if want_trace and ok("trace"):
        kw["trace"] = True
    data = tuple(np.array(d, copy=True) for d in data)  # the callable may not modify our arrays
    pos = [np.array(v, copy=True) if isinstance(v, np.ndarray) else v for v in pos]
    try:
        with _time_limit(timeout):
            out = impl(*data, *pos, **kw)
    except _Timeout:
        return {"error": f"no answer within {timeout:g} s (non-termination?)"}, []
    except Exception as exc:  # noqa: BLE001 -- any crash of the implementation is a finding
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        return {"error": f"{type(exc).__name__}: {exc} (at {Path(tb.filename).name}:{tb.lineno})"}, []
    ans = normalize_answer(out)
    ans["max_iter_passed"] = "max_iter" in kw
    ans["max_epochs_passed"] = "max_epochs" in kw
    return ans, []


# ================================================================================================
# the checks
# ================================================================================================


def _gnorm(G, v) -> float:
    return math.sqrt(max(float(v @ G @ v), 0.0))


def _in_simplex(v: np.ndarray, neg=SIMPLEX_NEG, tol=SIMPLEX_SUM) -> str:
    if np.min(v) < -neg:
        return f"has a negative entry {float(np.min(v)):.3g}"
    if abs(float(np.sum(v)) - 1.0) > tol:
        return f"sums to {float(np.sum(v)):.9g}, not 1"
    return ""


def _separation(margins: np.ndarray, scale: float) -> Tuple[str, str]:
    """(outcome, message) for normalized margins ``margins/scale``."""
    if not (scale > 0 and math.isfinite(scale)):
        return FAIL, "the returned vector is zero (or not finite): it separates nothing"
    c = margins / scale
    i = int(np.argmin(c))
    m = float(c[i])
    if m > 0:
        return PASS, f"min normalized margin {m:.3g}"
    if m == 0.0:
        return FAIL, f"point {i} has margin exactly 0: not separated"
    if m >= -NEAR:
        return NOTE, f"near tie: point {i} has normalized margin {m:.2e} (round-off level), not counted as a failure"
    return FAIL, f"point {i} has normalized margin {m:.3g} <= 0: not separated"


def _sep_vector(case: Case, ans: Dict[str, Any]) -> Tuple[Optional[np.ndarray], str]:
    a = case.algorithm
    if a in RP14_GRAM:
        v = ans.get("alpha")
        if v is None and a == "nvn":
            v = ans.get("p")
        return v, "alpha"
    return ans.get("w"), "w"


def _sep_margins(case: Case, v: np.ndarray) -> Tuple[np.ndarray, float]:
    a = case.algorithm
    if a in RP14_GRAM:
        return case.G @ v, _gnorm(case.G, v)  # G_ii = 1: rows are unit vectors in feature space
    Z = case.P if a in PT11 else case.Z
    norms = np.linalg.norm(Z, axis=1)
    return (Z @ v) / norms, float(np.linalg.norm(v))


def _accuracy(case: Case) -> Tuple[Optional[float], bool]:
    """(accuracy, strict '<') of a certificate."""
    a = case.algorithm
    if a == "nvn":
        return case.args["epsilon"], False
    if a == "snkpvn":
        return case.args["delta"], True
    if a == "isnkpvn":
        return case.args["epsilon"], True
    return None, False


def _expected_len(case: Case, key: str) -> int:
    if key in ("alpha", "p"):
        return case.n
    if case.algorithm in PT11:
        return case.P.shape[1]
    return case.X.shape[1]


def check_contract(case: Case, ans: Dict[str, Any]) -> List[CheckResult]:
    cid = "answer.contract"
    if "error" in ans:
        return [CheckResult(cid, FAIL, ans["error"])]
    st = ans.get("status")
    if st not in STATUSES[case.algorithm]:
        return [CheckResult(cid, FAIL, f"status {st!r} is not one of {STATUSES[case.algorithm]}")]
    it = ans.get("iterations")
    if not isinstance(it, (int, np.integer)) or it < 0:
        return [CheckResult(cid, FAIL, f"iterations {it!r} is not a nonnegative integer")]
    for key in ("alpha", "w", "p"):
        v = ans.get(key)
        if v is None:
            continue
        if v.shape[0] != _expected_len(case, key):
            return [CheckResult(cid, FAIL, f"{key} has length {v.shape[0]}, expected {_expected_len(case, key)}")]
        if not np.all(np.isfinite(v)):
            return [CheckResult(cid, FAIL, f"{key} is not finite")]
    if st == "separator" and _sep_vector(case, ans)[0] is None:
        return [CheckResult(cid, FAIL, f"status 'separator' without the vector ({_sep_vector(case, ans)[1]})")]
    if st == "certificate" and ans.get("p") is None:
        return [CheckResult(cid, FAIL, "status 'certificate' without p")]
    return [CheckResult(cid, PASS)]


def check_claim(case: Case, ans: Dict[str, Any]) -> List[CheckResult]:
    st = ans["status"]
    out: List[CheckResult] = []
    if st == "separator":
        v, _ = _sep_vector(case, ans)
        m, scale = _sep_margins(case, v)
        o, msg = _separation(m, scale)
        out.append(CheckResult("claim.separator", o, msg))
    elif st == "certificate":
        p = ans["p"]
        acc, strict = _accuracy(case)
        bad = _in_simplex(p, 1e-9, 1e-6)
        if bad:
            out.append(CheckResult("claim.certificate", FAIL, f"p {bad}: not a point of the simplex"))
        else:
            nrm = _gnorm(case.G, p)
            slack = acc * 1e-6 + 1e-12
            ok = nrm < acc + slack if strict else nrm <= acc + slack
            out.append(CheckResult("claim.certificate", PASS if ok else FAIL,
                                   f"||p||_G = {nrm:.6g} {'<' if ok else 'is not ' + ('<' if strict else '<=')} accuracy {acc:g}"))
    else:  # max_iter: honest?
        msg = ""
        gave_up = (ans.get("max_iter_passed", True) and ans["iterations"] < case.max_iter
                   and not (case.algorithm in PT11 and ans.get("max_epochs_passed")))
        if gave_up:
            msg = f"'max_iter' after {ans['iterations']} iterations, below the budget max_iter={case.max_iter}: gave up without a claim"
        elif case.algorithm not in PT11:
            if case.algorithm in ("nvn", "snkpvn", "isnkpvn") and ans.get("p") is not None:
                acc, _ = _accuracy(case)
                nrm = _gnorm(case.G, ans["p"])
                if not _in_simplex(ans["p"], 1e-12, 1e-9) and nrm < acc * (1 - 1e-6):
                    msg = f"'max_iter' but the returned p already certifies: ||p||_G = {nrm:.3g} < {acc:g}"
            v, _ = _sep_vector(case, ans)
            if not msg and v is not None:
                m, scale = _sep_margins(case, v)
                if scale > 0 and float(np.min(m / scale)) > 1e-9:
                    msg = f"'max_iter' but the returned vector already separates (min normalized margin {float(np.min(m / scale)):.3g})"
        out.append(CheckResult("claim.max_iter", FAIL if msg else PASS, msg))
    return out


def check_bound(case: Case, ans: Dict[str, Any]) -> List[CheckResult]:
    cid = "bound.iterations"
    if case.bound is None:
        return [CheckResult(cid, SKIP, "no theorem bounds the counter on this instance")]
    k = int(ans["iterations"])
    if ans["status"] == "max_iter":
        if case.termination_required:
            return [CheckResult(cid, FAIL, f"returned 'max_iter' after {k} iterations, but {case.bound_source} guarantees termination within {case.bound:.6g} "
                                           f"(certified {case.margin_name} >= {case.m_lo:.6g})")]
        return [CheckResult(cid, SKIP, "the bound exceeds the budget")]
    if k > case.bound * (1 + 1e-9) + 1:
        return [CheckResult(cid, FAIL, f"{k} iterations exceed {case.bound_source} = {case.bound:.6g} (certified {case.margin_name} >= {case.m_lo:.6g})")]
    return [CheckResult(cid, PASS, f"{k} <= {case.bound:.6g}")]


def check_margin_guarantee(case: Case, ans: Dict[str, Any]) -> List[CheckResult]:
    cid = "guarantee.margin"
    if case.algorithm not in PT11:
        return []
    if ans["status"] != "separator":
        return [CheckResult(cid, SKIP, "no separator")]
    w = ans["w"]
    nw = float(np.linalg.norm(w))
    ach = float(np.min(case.P @ w)) / nw if nw > 0 else -math.inf
    g = case.margin_guarantee
    if case.algorithm == "pfm":
        ok = ach > g * (1 - 1e-7) - 1e-12
        what = f"> beta = {g:.6g} (PT11 (7) at convergence)"
    else:
        ok = ach >= g * (1 - 1e-7) - 1e-12
        what = f">= (1-eps) gamma_d = {g:.6g} (PT11 Sec. 3)"
    return [CheckResult(cid, PASS if ok else FAIL, f"achieved directional margin {ach:.6g} {'' if ok else 'is not '}{what}")]


def _egc(case: Case, alpha: np.ndarray, p: np.ndarray, k: int) -> Tuple[float, float]:
    """(L_mu(alpha), -||p||_G^2/2) at mu_k of SNKP (entropy) or SNKPVN (Euclidean, prox-centre q)."""
    from reference import smoothed

    ar = Arithmetic(None)
    n = case.n
    if case.algorithm == "snkp":
        mu = 4.0 / ((k + 1) * (k + 2))
        lhs = float(smoothed.smoothed_loss(case.G, alpha, mu, ar))
    else:
        mu = 4.0 * n / ((k + 1) * (k + 2))
        lhs = float(smoothed.smoothed_loss_q(case.G, alpha, mu, np.asarray(case.args["q"], dtype=np.float64), ar))
    return lhs, -0.5 * _gnorm(case.G, p) ** 2


def _final_invariants(case: Case, ans: Dict[str, Any], k: int, alpha, w, p) -> List[str]:
    """Violations of the statements every iterate (or every final iterate) of a correct run satisfies."""
    a = case.algorithm
    bad: List[str] = []
    tol = 1e-6
    if a == "nkp" and alpha is not None and k >= 1:
        s = _in_simplex(alpha)
        if s:
            bad.append(f"alpha_k {s} (NKP: alpha_k is in the simplex for k >= 1)")
        else:
            c = k * alpha
            if np.max(np.abs(c - np.round(c))) > 1e-3 + 1e-7 * k:
                bad.append(f"k alpha_k = {_short(c)} is not a vector of integers (alpha_k is the average of k vertices, theta_k = 1/(k+1))")
            ng2 = _gnorm(case.G, alpha) ** 2
            if ng2 * k > 1 + 1e-5:
                bad.append(f"||alpha_k||_G^2 k = {ng2 * k:.6g} > 1 (RP14 Sec. 3.2 proof: ||k w_k||^2 <= k)")
    if a in ("snkp", "snkpvn", "isnkpvn") and alpha is not None:
        s = _in_simplex(alpha)
        if s:
            bad.append(f"alpha {s} (RP14 Alg. 4/6/7 keep alpha_k in the simplex)")
    if a in ("snkp", "snkpvn", "isnkpvn", "nvn") and p is not None:
        s = _in_simplex(p)
        if s:
            bad.append(f"p {s} (p_k stays in the simplex)")
    if a in ("snkp", "snkpvn") and alpha is not None and p is not None and not bad:
        lhs, rhs = _egc(case, alpha, p, k)
        if lhs > rhs + 1e-5 * (1 + abs(rhs)):
            lemma = "Lemma 5" if a == "snkp" else "Lemmas 8/9"
            bad.append(f"excessive gap condition fails at the returned iterate: L_mu_k(alpha_k) = {lhs:.6g} > -||p_k||_G^2/2 = {rhs:.6g} "
                       f"(RP14 {lemma}, mu_k = {'4' if a == 'snkp' else '4n'}/((k+1)(k+2)), k = {k})")
    if a == "nvn" and p is not None and not bad:
        ng2 = _gnorm(case.G, p) ** 2
        if ng2 * (k + 1) > 1 + 1e-5:
            bad.append(f"||p_k||_G^2 (k+1) = {ng2 * (k + 1):.6g} > 1 (RP14 Sec. 5.1: ||w_k|| <= 1/sqrt(k+1) while not separated)")
    if a == "normalized_perceptron" and w is not None and k >= 1:
        nw2 = float(w @ w)
        R2 = 1.0 if case.args.get("normalize", True) else float(np.max(np.sum(case.X**2, axis=1)))
        if nw2 * k > R2 * (1 + 1e-5):
            bad.append(f"||w_k||^2 k = {nw2 * k:.6g} > {R2:.6g} (RP14 Alg. 2: w_k averages k {'unit ' if R2 == 1.0 else ''}points, each a mistake: ||k w_k||^2 <= k{'' if R2 == 1.0 else ' R^2'})")
        if case.m_lo > 0 and math.sqrt(nw2) < case.m_lo * (1 - 1e-6) * (1.0 if case.args.get("normalize", True) else 1.0):
            bad.append(f"||w_k|| = {math.sqrt(nw2):.6g} < rho_2 = {case.m_lo:.6g} (an average of the normalized points has norm >= rho_2)")
    if a == "perceptron" and w is not None:
        nw = float(np.linalg.norm(w))
        if nw * nw > k * case.R**2 * (1 + 1e-6) + 1e-12:
            bad.append(f"||w_k||^2 = {nw * nw:.6g} > k R^2 = {k * case.R**2:.6g} (Block-Novikoff: each update is a mistake)")
        if case.m_lo > 0 and nw < k * case.m_lo * (1 - 1e-6):
            bad.append(f"||w_k|| = {nw:.6g} < k rho = {k * case.m_lo:.6g} (Block-Novikoff: <u, w_k> >= k rho, so k is not the number of updates)")
    if a in PT11 and w is not None:
        t = k
        nw = float(np.linalg.norm(w))
        if t >= 1 and nw / t < case.m_lo * (1 - 1e-6):
            bad.append(f"||a_t||/t = {nw / t:.6g} < gamma_d = {case.m_lo:.6g} with t = {t} (PT11 eq. (4): t overcounts the updates)")
        if nw > t * case.R * (1 + 1e-6) + 1e-12:
            bad.append(f"||a_t|| = {nw:.6g} > t R = {t * case.R:.6g} (each update adds at most R: t undercounts)")
        if ans.get("status") == "separator" and a != "pfm" and t >= 1 and nw > 0:
            ach = float(np.min(case.P @ w)) / nw
            thr = (1 - case.args["epsilon"]) * nw / t
            if ach < thr * (1 - 1e-6) - 1e-12:
                bad.append(f"min_k a.y_k/||a|| = {ach:.6g} < (1-eps)||a_t||/t = {thr:.6g}: some pattern still satisfies the dynamic margin condition (8)")
        Delta = case.args.get("Delta")
        if Delta is not None:
            d0 = case.P.shape[1] - case.n
            c = w[d0:] * case.y / Delta
            if np.min(c) < -1e-6 or np.max(np.abs(c - np.round(c))) > 1e-4 * max(1, t) or abs(float(np.sum(c)) - t) > 1e-4 * max(1, t):
                bad.append(f"in the extended space the update counts a_ext * l_k / Delta = {_short(c)} must be nonnegative integers summing to t = {t}")
    return bad


def check_final(case: Case, ans: Dict[str, Any]) -> List[CheckResult]:
    bad = _final_invariants(case, ans, int(ans["iterations"]), ans.get("alpha"), ans.get("w"), ans.get("p"))
    if bad:
        return [CheckResult("invariant.final", FAIL, bad[0])]
    return [CheckResult("invariant.final", PASS)]


def _near_argmin(scores: np.ndarray, j: int, scale: float = 1.0) -> bool:
    return scores[j] <= float(np.min(scores)) + 1e-6 * max(1.0, scale)


def check_trace(case: Case, trace: Optional[List[dict]]) -> List[CheckResult]:
    cid = "invariant.trace"
    if not trace:
        return [CheckResult(cid, SKIP, "no trace returned")]
    a = case.algorithm
    cnt = "t" if a in PT11 else "k"
    states = []
    for i, s in enumerate(trace):
        k = s.get(cnt, s.get("k", s.get("t")))
        states.append((i if k is None else int(k), s))
    prev = None
    for k, s in states:
        alpha, w, p = s.get("alpha"), s.get("w"), s.get("p")
        if a != "isnkpvn":
            ans = {"status": None}
            bad = _final_invariants(case, ans, k, alpha, w, p)
            if bad:
                return [CheckResult(cid, FAIL, f"at iterate {k}: {bad[0]}")]
        if a == "snkp" and s.get("mu") is not None:
            mu = 4.0 / ((k + 1) * (k + 2))
            if abs(s["mu"] - mu) > 1e-6 * mu:
                return [CheckResult(cid, FAIL, f"at iterate {k}: mu_k = {s['mu']:.6g}, but mu_0 = 2, mu_(k+1) = (1-theta_k) mu_k give 4/((k+1)(k+2)) = {mu:.6g}")]
        if a == "snkpvn" and s.get("mu") is not None:
            mu = 4.0 * case.n / ((k + 1) * (k + 2))
            if abs(s["mu"] - mu) > 1e-6 * mu:
                return [CheckResult(cid, FAIL, f"at iterate {k}: mu_k = {s['mu']:.6g}, expected 4n/((k+1)(k+2)) = {mu:.6g}")]
        if prev is not None:
            msg = _step_ok(case, prev, (k, s))
            if msg:
                return [CheckResult(cid, FAIL, msg)]
        prev = (k, s)
    return [CheckResult(cid, PASS, f"{len(states)} iterates")]


def _step_ok(case: Case, prev, cur) -> str:
    """'' if cur follows from prev by one legitimate step of the algorithm (or cannot be judged)."""
    a = case.algorithm
    (k0, s0), (k1, s1) = prev, cur
    if k1 != k0 + 1 and a not in PT11:
        return ""
    if a == "nkp" and s0.get("alpha") is not None and s1.get("alpha") is not None:
        th = 1.0 / (k0 + 1)
        r = (s1["alpha"] - (1 - th) * s0["alpha"]) / th
        j = int(np.argmax(r))
        e = np.zeros_like(r)
        e[j] = 1.0
        if np.max(np.abs(r - e)) > 1e-5 * (k0 + 1):
            return f"step {k0}->{k1}: alpha_(k+1) is not (1-theta_k) alpha_k + theta_k e_j with theta_k = 1/(k+1)"
        if not _near_argmin(case.G @ s0["alpha"], j):
            return f"step {k0}->{k1}: took e_{j}, but (G alpha_k)_{j} is not (near) minimal (RP14 eq. (10): argmin)"
    if a == "normalized_perceptron" and s0.get("w") is not None and s1.get("w") is not None:
        th = 1.0 / (k0 + 1)
        r = (s1["w"] - (1 - th) * s0["w"]) / th
        Z = case.Z
        if case.args.get("normalize", True):
            Z = Z / np.linalg.norm(Z, axis=1, keepdims=True)
        dist = np.linalg.norm(Z - r, axis=1)
        j = int(np.argmin(dist))
        if dist[j] > 1e-5 * (k0 + 1) * max(1.0, float(np.linalg.norm(r))):
            return f"step {k0}->{k1}: w_(k+1) - (1-theta_k) w_k is not theta_k times a {'normalized ' if case.args.get('normalize', True) else ''}reflected point"
        if not _near_argmin(Z @ s0["w"], j):
            return f"step {k0}->{k1}: used point {j}, which is not the (near) most misclassified one (RP14 eq. (4))"
    if a == "perceptron" and s0.get("w") is not None and s1.get("w") is not None:
        r = s1["w"] - s0["w"]
        dist = np.linalg.norm(case.Z - r, axis=1)
        j = int(np.argmin(dist))
        if dist[j] > 1e-6 * max(1.0, float(np.linalg.norm(r))):
            return f"step {k0}->{k1}: w_(k+1) - w_k is not a reflected point y_i x_i"
        if float(case.Z[j] @ s0["w"]) > 1e-9 * max(1.0, float(np.linalg.norm(s0["w"]))):
            return f"step {k0}->{k1}: updated on point {j}, which is not a mistake (y_j <w_k, x_j> = {float(case.Z[j] @ s0['w']):.3g} > 0)"
    if a in PT11 and s0.get("w") is not None and s1.get("w") is not None and k1 > k0:
        lam = k1 - k0
        r = (s1["w"] - s0["w"]) / lam
        dist = np.linalg.norm(case.P - r, axis=1)
        j = int(np.argmin(dist))
        if dist[j] > 1e-6 * max(1.0, float(np.linalg.norm(r))):
            return ""  # several patterns between two recorded states: cannot judge the single step
        at, pj = s0["w"], float(case.P[j] @ s0["w"])
        l = float(at @ at)
        if a == "pfm":
            thr = case.args["beta"] * math.sqrt(l)
            name = "(7) a.y <= beta ||a||"
        else:
            thr = 0.0 if k0 == 0 else (1 - case.args["epsilon"]) * l / k0
            name = "(8) a.y <= (1-eps)||a||^2/t"
        if pj > thr + 1e-9 * max(1.0, abs(thr)):
            return f"update {k0}->{k1} on pattern {j} with a.y_k = {pj:.6g} > threshold {thr:.6g}: the condition {name} does not hold"
    return ""


def _key_vector(case: Case) -> str:
    a = case.algorithm
    if a in ("nkp", "snkp", "snkpvn", "isnkpvn"):
        return "alpha"
    if a == "nvn":
        return "p"
    return "w"


def check_strict(case: Case, ans: Dict[str, Any]) -> List[CheckResult]:
    cid = "strict.trajectory"
    ref_tr = _reference_trace(case)
    key = _key_vector(case)
    mine = ans.get("trace")
    if mine and ref_tr:
        for i, (r, m) in enumerate(zip(ref_tr, mine)):
            rv, mv = r.get(key), m.get(key)
            if rv is None or mv is None:
                continue
            if rv.shape != mv.shape or not np.allclose(mv, rv, rtol=1e-6, atol=1e-9):
                tie = _reference_tie(case, ref_tr[i - 1]) if i > 0 else ""
                if tie:
                    return [CheckResult(cid, NOTE, f"trajectories diverge at step {i} after a near-tie decision of the reference ({tie}); not a failure")]
                return [CheckResult(cid, FAIL, f"iterate {i}: {key} = {_short(mv)} differs from the reference's {_short(rv)}")]
    elif not mine:
        # no trace: compare the final answer
        rv, mv = case.reference.get(key), ans.get(key)
        if rv is not None and mv is not None and (rv.shape != mv.shape or not np.allclose(mv, rv, rtol=1e-6, atol=1e-9)):
            return [CheckResult(cid, FAIL, f"final {key} = {_short(mv)} differs from the reference's {_short(rv)} (no trace to locate the step)")]
    if ans["status"] != case.reference["status"] or ans["iterations"] != case.reference["iterations"]:
        return [CheckResult(cid, FAIL, f"final (status, iterations) = ({ans['status']}, {ans['iterations']}) vs the reference's "
                                       f"({case.reference['status']}, {case.reference['iterations']})")]
    return [CheckResult(cid, PASS)]


def _reference_tie(case: Case, s: dict) -> str:
    a = case.algorithm
    if a in ("nkp", "nvn"):
        v = s.get("alpha") if a == "nkp" else s.get("p")
        scores = case.G @ v
    elif a in ("perceptron", "normalized_perceptron"):
        Z = case.Z
        if a == "normalized_perceptron":
            Z = Z / np.linalg.norm(Z, axis=1, keepdims=True)
        scores = Z @ s["w"]
        if a == "perceptron":  # a Perceptron may take any mistake: two or more mistakes = a choice
            if int(np.sum(scores <= TIE)) >= 2:
                return "more than one misclassified point"
            return ""
    else:
        return ""
    srt = np.sort(scores)
    if srt.size >= 2 and srt[1] - srt[0] <= TIE * max(1.0, abs(srt[0])):
        return f"argmin candidates {srt[0]:.3g} and {srt[1]:.3g}"
    return ""


def evaluate(case: Case, ans: Dict[str, Any], *, strict: bool = False) -> List[CheckResult]:
    """Every check of layers 1-2 (and 3 with ``strict``) on one answer."""
    if "skip" in ans:
        return [CheckResult("answer.contract", SKIP, ans["skip"])]
    res = check_contract(case, ans)
    if res[0].outcome == FAIL:
        return res
    res += check_claim(case, ans)
    res += check_bound(case, ans)
    res += check_margin_guarantee(case, ans)
    res += check_final(case, ans)
    res += check_trace(case, ans.get("trace"))
    if strict:
        res += check_strict(case, ans)
    return res


def run_case(impl: Callable, case: Case, *, strict: bool = False, timeout: Optional[float] = 20.0) -> Tuple[Dict[str, Any], List[CheckResult]]:
    ans, _ = call_impl(impl, case, timeout=timeout)
    return ans, evaluate(case, ans, strict=strict)


def _failure(case: Case, ans: Dict[str, Any], results: Sequence[CheckResult], shrunk: bool = False) -> Failure:
    first = next(r for r in results if r.outcome == FAIL)
    impl_ans = {k: ans.get(k) for k in ("status", "iterations", "alpha", "w", "p")}
    if ans.get("error"):
        impl_ans["error"] = ans["error"]
    return Failure(
        check=first.id, message=first.message, case_id=case.case_id,
        instance={"name": case.name, "X": case.X.tolist(), "y": case.y.tolist(), "kernel": case.kernel, "params": case.params},
        arguments=to_jsonable(dict(case.args, max_iter=case.max_iter)),
        reference={k: case.reference.get(k) for k in ("status", "iterations", "alpha", "w", "p")},
        implementation=impl_ans, shrunk=shrunk,
    )


# ================================================================================================
# hypothesis
# ================================================================================================


def _strategy(algorithm: str):
    from hypothesis import strategies as st

    from . import strategies as S

    sep = S.separable_instances(n=(2, 8), d=(2, 4), rho=(0.1, 0.9))
    rat = S.rational_instances(n=(1, 5), d=(1, 3))
    deg = S.degenerate_instances()
    if algorithm in RP14_GRAM:
        inst = st.one_of(sep, S.infeasible_instances(d=(1, 3)), S.kernel_instances(n=(2, 8), d=(1, 3)), rat, deg)
    elif algorithm in RP14_PRIMAL:
        inst = st.one_of(sep, S.infeasible_instances(d=(1, 3)), rat, deg)
    else:
        inst = st.one_of(sep, rat, deg)
    if algorithm == "pdm":
        opts = st.tuples(st.sampled_from([0.3, 0.5, 0.7, 1.0, 0.1]), st.sampled_from([None, None, 1.0]))
    elif algorithm == "pdm_succ":
        opts = st.tuples(st.sampled_from([0.1, 0.3, 0.05]), st.sampled_from([None, None, 1.0]))
    elif algorithm == "pfm":
        opts = st.tuples(st.sampled_from([0.3, 0.5, 0.1]), st.sampled_from([None, None, 1.0]))
    else:
        opts = st.just((None, None))
    return inst, opts


class _CaseFailed(Exception):
    def __init__(self, case, ans, results):
        super().__init__(case.case_id)
        self.case, self.ans, self.results = case, ans, results


def _hypothesis_search(algorithm: str, impl: Callable, report: Report, *, examples: int, seed: int, strict: bool,
                       timeout: Optional[float], cap: int) -> Optional[Failure]:
    from hypothesis import HealthCheck, Phase, assume, given, settings
    from hypothesis import seed as hseed

    inst_st, opt_st = _strategy(algorithm)
    cfg = settings(
        max_examples=examples, derandomize=(seed == 0), deadline=None, database=None, print_blob=False,
        suppress_health_check=list(HealthCheck), phases=(Phase.explicit, Phase.generate, Phase.shrink),
        report_multiple_bugs=False,
    )

    def prop(inst, opt):
        eps, Delta = opt
        tag = "" if eps is None else f"eps={eps:g}" + ("" if Delta is None else f",Delta={Delta:g}")
        case = make_case(algorithm, inst, eps=eps, Delta=Delta, variant=tag, cap=cap)
        assume(case is not None)
        ans, results = run_case(impl, case, strict=strict, timeout=timeout)
        report.record(case.case_id, results)
        report.cases += 1
        if any(r.outcome == FAIL for r in results):
            raise _CaseFailed(case, ans, results)

    test = given(inst_st, opt_st)(prop)
    if seed != 0:
        test = hseed(seed)(test)
    test = cfg(test)
    try:
        test()
    except _CaseFailed as exc:
        return _failure(exc.case, exc.ans, exc.results, shrunk=True)
    except Exception as exc:  # hypothesis' own errors (e.g. Unsatisfiable) are not findings
        if type(exc).__name__ in ("Unsatisfiable", "FailedHealthCheck"):
            report.notes.append(f"hypothesis: {type(exc).__name__}: {exc}")
            return None
        raise
    return None


# ================================================================================================
# the public entry points
# ================================================================================================


def _name_of(impl) -> str:
    f = getattr(impl, "func", impl)  # functools.partial
    mod = getattr(f, "__module__", None) or "?"
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or type(f).__name__
    extra = ""
    if f is not impl and getattr(impl, "keywords", None):
        extra = "(" + ", ".join(f"{k}={v!r}" for k, v in impl.keywords.items()) + ")"
    return f"{mod}:{name}{extra}"


def validate(algorithm: str, impl: Callable, *, budget: int = 20, strict: bool = False, seed: int = 0,
             timeout: Optional[float] = 20.0, cap: int = CAP, hypothesis: bool = True, cases_dir=None) -> Report:
    """Check ``impl`` against ``reference.<algorithm>``: layers 1-2 (and 3 with ``strict``).

    Parameters
    ----------
    algorithm : str
        A reference function name (``"snkp"``, ``"pdm"``, ...).
    impl : callable
        Takes the reference function's arguments (keywords it does not accept are not passed) and
        returns a Result-like object or a mapping with ``status``, ``iterations``, ``alpha``,
        ``w``, ``p`` (and optionally ``trace``: a sequence of states with fields among
        ``k``/``t``, ``alpha``, ``p``, ``w``/``a``, ``mu``).
    budget : int
        Number of hypothesis examples on top of the fixed corpus (default 20: well under 30 s per
        algorithm for a fast implementation); raise it to go deeper.
    strict : bool
        Add layer 3 (step-by-step agreement with the reference trajectory).
    seed : int
        0 = derandomized (the same run every time); anything else seeds hypothesis.
    timeout : float
        Seconds per call before the implementation is declared non-terminating (main thread only).
    cases_dir : path, optional
        Run the cases of ``<cases_dir>/<algorithm>.json`` (a corpus written by ``margins
        export-cases`` or by ``margins bounds --search``) instead of the fixed corpus.

    Returns
    -------
    Report
        ``conforms``, per-check counts, the failures (first one per check), and ``minimal``: the
        smallest failing instance with the reference's answer beside the implementation's.
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    if not callable(impl):
        raise ValueError(f"impl must be callable, got {type(impl).__name__}")
    t0 = time.perf_counter()
    report = Report(algorithm=algorithm, implementation=_name_of(impl), conforms=True, strict=strict)
    failures: Dict[str, Failure] = {}
    cases = corpus(algorithm, cap=cap) if cases_dir is None else list(_load_cases([algorithm], cases_dir).values())
    for case in cases:
        ans, results = run_case(impl, case, strict=strict, timeout=timeout)
        report.record(case.case_id, results)
        report.cases += 1
        if any(r.outcome == FAIL for r in results):
            f = _failure(case, ans, results)
            failures.setdefault(f.check, f)
    shrunk = None
    if hypothesis and budget > 0:
        shrunk = _hypothesis_search(algorithm, impl, report, examples=budget, seed=seed, strict=strict, timeout=timeout, cap=cap)
        if shrunk is not None:
            failures.setdefault(shrunk.check, shrunk)
    report.failures = list(failures.values())
    report.conforms = not report.failures
    if report.failures:
        cands = ([shrunk] if shrunk is not None else []) + sorted(report.failures, key=lambda f: (f.size[0] * max(1, f.size[1]), f.case_id))
        best = min(cands, key=lambda f: (f.size[0] * max(1, f.size[1]), not f.shrunk))
        report.minimal = best
    report.seconds = time.perf_counter() - t0
    return report


def parametrize_with_checks(algorithm: str, impl: Callable, *, budget: int = 20, strict: bool = False, seed: int = 0):
    """A ``pytest.mark.parametrize`` over the validation of ``impl``, one test per corpus case
    plus one hypothesis search (in the spirit of scikit-learn's ``parametrize_with_checks``)::

        from theorems.validate import parametrize_with_checks

        @parametrize_with_checks("snkp", my_snkp)
        def test_my_snkp(check):
            check()

    Each ``check()`` raises ``AssertionError`` with the failing check, the instance and both answers.
    """
    import pytest

    def case_check(case: Case):
        def check():
            ans, results = run_case(impl, case, strict=strict)
            if any(r.outcome == FAIL for r in results):
                raise AssertionError("\n" + _failure(case, ans, results).format())
        return check

    def search_check():
        report = Report(algorithm=algorithm, implementation=_name_of(impl), conforms=True, strict=strict)
        f = _hypothesis_search(algorithm, impl, report, examples=budget, seed=seed, strict=strict, timeout=20.0, cap=CAP)
        if f is not None:
            raise AssertionError("\n" + f.format())

    params = [pytest.param(case_check(c), id=c.case_id) for c in corpus(algorithm)]
    params.append(pytest.param(search_check, id=f"{algorithm}/hypothesis"))
    return pytest.mark.parametrize("check", params)


# -- any language: export the corpus, check answers and traces ----------------------------------------


def _signature(algorithm: str) -> str:
    try:
        return f"{algorithm}{inspect.signature(getattr(reference, algorithm))}"
    except (TypeError, ValueError):  # pragma: no cover
        return algorithm


def write_corpus(directory, algorithm: str, cases: Iterable[Case], generator: str = "theorems.validate.export_cases") -> Path:
    """Write ``cases`` (all of ``algorithm``) as the corpus file ``<directory>/<algorithm>.json``
    (schema_version 1) beside a copy of ``case_schema.json``; returns the corpus path.  The one
    writer of the case format: :func:`export_cases` and ``margins bounds --search`` both use it."""
    from importlib import resources

    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}")
    cases = list(cases)
    if any(c.algorithm != algorithm for c in cases):
        raise ValueError(f"a corpus file holds the cases of one algorithm ({algorithm!r})")
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    doc = {
        "schema_version": SCHEMA_VERSION,
        "kind": "corpus",
        "algorithm": algorithm,
        "generator": f"perceptron-margins {generator}",
        "signature": _signature(algorithm),
        "cases": [c.to_json() for c in cases],
    }
    p = d / f"{algorithm}.json"
    write_json(p, doc)
    (d / "case_schema.json").write_text((resources.files("theorems") / "case_schema.json").read_text(encoding="utf-8"), encoding="utf-8")
    return p


def export_cases(directory, algorithms: Optional[Iterable[str]] = None) -> List[Path]:
    """Write the corpus: ``<directory>/<algorithm>.json`` for each algorithm (schema_version 1)
    and a copy of ``case_schema.json``.  Returns the paths written."""
    paths = []
    for alg in (list(algorithms) if algorithms else ALGORITHMS):
        if alg not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {alg!r}")
        paths.append(write_corpus(directory, alg, corpus(alg)))
    paths.append(Path(directory) / "case_schema.json")
    return paths


def _load_cases(algorithms: Iterable[str], cases_dir=None) -> Dict[str, Case]:
    out: Dict[str, Case] = {}
    for alg in sorted(set(algorithms)):
        if cases_dir is not None:
            path = Path(cases_dir) / f"{alg}.json"
            if not path.is_file():
                raise ValueError(f"{path} does not exist; write the corpus with `margins export-cases {cases_dir}`")
            doc = read_json(path)
            check_document(doc, "corpus")
            for c in doc["cases"]:
                out[c["case_id"]] = Case.from_json(c)
        else:
            for c in corpus(alg):
                out[c.case_id] = c
    return out


def _algorithm_of(case_id: str) -> str:
    alg = case_id.split("/", 1)[0]
    if alg not in ALGORITHMS:
        raise ValueError(f"case id {case_id!r} does not start with an algorithm name")
    return alg


def _from_file_answer(a: dict) -> Dict[str, Any]:
    ans = normalize_answer({k: (np.asarray([from_number(x) for x in v], dtype=np.float64) if isinstance(v, list) and k in ("alpha", "w", "p") else v)
                            for k, v in a.items()})
    if isinstance(a.get("trace"), list):
        ans["trace"] = [_state_dict({k: (np.asarray([from_number(x) for x in v]) if isinstance(v, list) else v) for k, v in s.items()}) for s in a["trace"]]
    ans["max_iter_passed"] = True
    return ans


def validate_answers(path, cases_dir=None, *, strict: bool = False) -> List[Report]:
    """Check an answers document (one :class:`Report` per algorithm it answers).

    Cases are read from ``cases_dir`` (as written by :func:`export_cases`) or, by default,
    regenerated: the corpus is deterministic and case ids are stable."""
    t0 = time.perf_counter()
    doc = read_json(path)
    check_document(doc, "answers")
    answers = doc["answers"]
    if not answers:
        raise ValueError(f"{path}: no answers")
    cases = _load_cases({_algorithm_of(a["case_id"]) for a in answers}, cases_dir)
    impl_name = doc.get("implementation", str(path))
    reports: Dict[str, Report] = {}
    failures: Dict[str, Dict[str, Failure]] = {}
    for a in answers:
        alg = _algorithm_of(a["case_id"])
        rep = reports.setdefault(alg, Report(algorithm=alg, implementation=impl_name, conforms=True, strict=strict))
        case = cases.get(a["case_id"])
        if case is None:
            rep.record(a["case_id"], [CheckResult("answer.contract", FAIL, f"unknown case id {a['case_id']!r}")])
            failures.setdefault(alg, {}).setdefault("answer.contract", Failure("answer.contract", f"unknown case id {a['case_id']!r}", a["case_id"], {}, {}, {}, {}))
            continue
        ans = _from_file_answer(a)
        results = evaluate(case, ans, strict=strict)
        rep.record(case.case_id, results)
        rep.cases += 1
        if any(r.outcome == FAIL for r in results):
            f = _failure(case, ans, results)
            failures.setdefault(alg, {}).setdefault(f.check, f)
    for alg, rep in reports.items():
        answered = {a["case_id"] for a in answers}
        missing = [cid for cid, c in cases.items() if c.algorithm == alg and cid not in answered]
        if missing:
            rep.notes.append(f"{len(missing)} corpus cases not answered, e.g. {missing[0]}")
        rep.failures = list(failures.get(alg, {}).values())
        rep.conforms = not rep.failures
        if rep.failures:
            rep.minimal = min(rep.failures, key=lambda f: (f.size[0] * max(1, f.size[1]), f.case_id))
        rep.seconds = time.perf_counter() - t0
    return list(reports.values())


def validate_trace(path, cases_dir=None) -> List[Report]:
    """Check a trace document: the per-iterate invariants of layer 2 on every trace."""
    t0 = time.perf_counter()
    doc = read_json(path)
    check_document(doc, "trace")
    cases = _load_cases({_algorithm_of(t["case_id"]) for t in doc["traces"]}, cases_dir)
    reports: Dict[str, Report] = {}
    for tr in doc["traces"]:
        alg = _algorithm_of(tr["case_id"])
        rep = reports.setdefault(alg, Report(algorithm=alg, implementation=str(path), conforms=True))
        case = cases.get(tr["case_id"])
        if case is None:
            res = [CheckResult("answer.contract", FAIL, f"unknown case id {tr['case_id']!r}")]
        else:
            states = [_state_dict({k: (np.asarray([from_number(x) for x in v]) if isinstance(v, list) else v) for k, v in s.items()}) for s in tr["iterates"]]
            res = check_trace(case, states)
        rep.record(tr["case_id"], res)
        rep.cases += 1
        bad = [r for r in res if r.outcome == FAIL]
        if bad and case is not None:
            rep.failures.append(_failure(case, {"status": "-", "iterations": len(tr["iterates"])}, res))
        elif bad:
            rep.failures.append(Failure(bad[0].id, bad[0].message, tr["case_id"], {}, {}, {}, {}))
    for rep in reports.values():
        rep.conforms = not rep.failures
        rep.minimal = rep.failures[0] if rep.failures else None
        rep.seconds = time.perf_counter() - t0
    return list(reports.values())


def write_answers(path, impl: Callable, algorithm: str, cases_dir=None, *, trace: bool = False) -> Path:
    """Run ``impl`` on the corpus of ``algorithm`` and write an answers document (what a program
    in another language does; used to test the round trip)."""
    cases = _load_cases([algorithm], cases_dir)
    out = []
    for cid, case in cases.items():
        ans, _ = call_impl(impl, case, want_trace=trace)
        if "error" in ans or "skip" in ans:
            continue
        entry = {"case_id": cid, **{k: ans.get(k) for k in ("status", "iterations", "alpha", "w", "p")}}
        if trace and ans.get("trace"):
            entry["trace"] = [{k: v for k, v in s.items() if v is not None} for s in ans["trace"]]
        out.append(entry)
    write_json(path, {"schema_version": SCHEMA_VERSION, "kind": "answers", "implementation": _name_of(impl), "answers": out})
    return Path(path)


# ================================================================================================
# command line (dispatched from theorems.cli)
# ================================================================================================


def load_callable(spec: str) -> Callable:
    """``package.module:callable`` or ``path/to/file.py:callable`` (dots in the callable name
    walk attributes)."""
    if ":" not in spec:
        raise ValueError(f"expected MODULE:CALLABLE, got {spec!r}")
    mod_name, attr = spec.rsplit(":", 1)
    if mod_name.endswith(".py") or "/" in mod_name:
        path = Path(mod_name)
        if not path.is_file():
            raise ValueError(f"{mod_name} does not exist")
        sp = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(sp)
        sys.modules[path.stem] = module
        sp.loader.exec_module(module)
    else:
        if "" not in sys.path and str(Path.cwd()) not in sys.path:
            sys.path.insert(0, str(Path.cwd()))
        try:
            module = importlib.import_module(mod_name)
        except ImportError as exc:
            raise ValueError(f"cannot import {mod_name!r}: {exc}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{mod_name} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"{spec} is not callable")
    return obj


def add_arguments(sub) -> None:
    """Register ``validate`` and ``export-cases`` on the CLI's subparsers."""
    v = sub.add_parser("validate", help="check an implementation (Python callable, or answers/traces written by any program) against the reference")
    v.add_argument("algorithm", nargs="?", choices=ALGORITHMS, help="reference function name")
    v.add_argument("callable", nargs="?", help="MODULE:CALLABLE or path/to/file.py:CALLABLE")
    v.add_argument("--kwargs", default=None, help="JSON object of extra keyword arguments bound into the callable")
    v.add_argument("--answers", default=None, help="an answers document (see theorems/case_schema.json)")
    v.add_argument("--trace", default=None, help="a trace document (see theorems/case_schema.json)")
    v.add_argument("--cases", default=None, help="corpus directory written by export-cases or by `margins bounds --search` "
                                                 "(default: regenerate the fixed corpus); with MODULE:CALLABLE, run exactly "
                                                 "its cases of ALGORITHM (add --budget N for hypothesis examples too)")
    v.add_argument("--budget", type=int, default=None, help="hypothesis examples beyond the cases (default 20; 0 with --cases)")
    v.add_argument("--strict", action="store_true", help="also require step-by-step agreement with the reference (layer 3)")
    v.add_argument("--seed", type=int, default=0, help="0 = derandomized (default)")
    v.add_argument("--json", action="store_true")
    e = sub.add_parser("export-cases", help="write the validation corpus (JSON, schema_version 1) for implementations in any language")
    e.add_argument("directory")
    e.add_argument("--algorithms", nargs="*", choices=ALGORITHMS, default=None)


def cmd_validate(args) -> int:
    import json

    reports: List[Report] = []
    if args.answers or args.trace:
        if args.answers:
            reports += validate_answers(args.answers, args.cases, strict=args.strict)
        if args.trace:
            reports += validate_trace(args.trace, args.cases)
    else:
        if not args.algorithm or not args.callable:
            raise ValueError("pass ALGORITHM MODULE:CALLABLE, or --answers FILE / --trace FILE")
        impl = load_callable(args.callable)
        if args.kwargs:
            import functools

            impl = functools.partial(impl, **json.loads(args.kwargs))
        budget = args.budget if args.budget is not None else (0 if args.cases else 20)
        reports.append(validate(args.algorithm, impl, budget=budget, strict=args.strict, seed=args.seed, cases_dir=args.cases))
    if args.json:
        print(json.dumps([r.as_dict() for r in reports], indent=1))
    else:
        for r in reports:
            print(r.format() if not r.conforms else r.summary())
    return 0 if reports and all(r.conforms for r in reports) else 1


def cmd_export_cases(args) -> int:
    paths = export_cases(args.directory, args.algorithms)
    n = sum(len(read_json(p)["cases"]) for p in paths if p.name != "case_schema.json")
    print(f"wrote {n} cases in {len(paths) - 1} files and case_schema.json to {args.directory} (schema_version {SCHEMA_VERSION})")
    return 0
