"""What a validation run reports: one :class:`CheckResult` per check and case, the
:class:`Failure` with both answers, and the :class:`Report` of a whole run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .schema import to_jsonable

PASS, FAIL, SKIP, NOTE = "pass", "fail", "skip", "note"
REFUSED = "refused"  # the implementation raised ValueError: it refuses the input (not a wrong answer)
LAYERS = {
    "answer.contract": 1,
    "claim.separator": 1,
    "claim.certificate": 1,
    "claim.max_iter": 1,
    "bound.iterations": 2,
    "guarantee.margin": 2,
    "invariant.final": 2,
    "invariant.trace": 2,
    "trajectory.final": 2,
    "strict.trajectory": 3,
}


@dataclass(frozen=True)
class CheckResult:
    """One check on one case: ``outcome`` in {pass, fail, skip, note, refused}; ``at`` is the
    iterate (counter value) where a per-iterate check failed."""

    id: str
    outcome: str
    message: str = ""
    at: Optional[int] = None

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
    iterate: Optional[int] = None  # set when the check failed at an iterate: the vectors are that iterate's

    @property
    def size(self) -> Tuple[int, int]:
        X = self.instance.get("X")
        if X is None:
            return (10**9, 1)  # no instance: never the "minimal" one while another failure has one
        return (len(X), len(X[0]) if X else 0)

    def as_dict(self) -> dict:
        return to_jsonable(self.__dict__)

    def format(self) -> str:
        X, y = self.instance.get("X"), self.instance.get("y")
        if X is None:  # no instance to show (an unknown or unanswered case)
            return f"FAILED {self.check}: {self.message}\n  case     : {self.case_id}"
        lines = [
            f"FAILED {self.check}: {self.message}",
            f"  case     : {self.case_id}" + (" (minimal instance, shrunk by hypothesis)" if self.shrunk else ""),
            f"  instance : n={len(X)} d={len(X[0]) if X else 0} kernel={self.instance.get('kernel')} {self.instance.get('params') or ''}",
            f"    X = {np.array2string(np.asarray(X, dtype=float), precision=6, separator=', ', max_line_width=100)}",
            f"    y = {list(y)}",
            f"  arguments: {_short(self.arguments)}",
            "  answer          reference                         implementation",
        ]
        for key in ("status", "iterations"):
            r, i = self.reference.get(key), self.implementation.get(key)
            if r is not None or i is not None:
                lines.append(f"    {key:<12}  {_short(r):<32}  {_short(i)}")
        if self.iterate is not None:
            lines.append(f"  at iterate {self.iterate} (where the check failed):")
        for key in ("alpha", "w", "p"):
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
    failing: Dict[str, List[Tuple[str, str]]] = field(default_factory=dict)  # check id -> every failing (case id, message)
    refusals: List[Tuple[str, Tuple[str, ...], str]] = field(default_factory=list)  # (case id, flags, message)
    minimal: Optional[Failure] = None  # the smallest failing instance (hypothesis-shrunk when found there)
    notes: List[str] = field(default_factory=list)
    cases: int = 0
    seconds: float = 0.0
    strict: bool = False

    def record(self, case_id: str, results: Sequence[CheckResult], flags: Sequence[str] = ()) -> None:
        for r in results:
            self.counts.setdefault(r.id, {}).setdefault(r.outcome, 0)
            self.counts[r.id][r.outcome] += 1
            if r.outcome == NOTE and len(self.notes) < 20:
                self.notes.append(f"{case_id}: {r.id}: {r.message}")
            elif r.outcome == FAIL:
                self.failing.setdefault(r.id, []).append((case_id, r.message))
            elif r.outcome == REFUSED:
                self.refusals.append((case_id, tuple(flags), r.message))

    def settle(self) -> None:
        """``conforms``: no check failed and no case was refused."""
        self.conforms = not self.failures and not self.failing and not self.refusals

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
        what = [f"{c} on {len(self.failing.get(c, ())) or '?'} of {self.cases} cases" for c in self.failed_checks]
        if self.refusals:
            what.append(f"refused {len(self.refusals)} of {self.cases} cases{self._refused_flags()}")
        return (f"{self.implementation} does NOT conform to reference.{self.algorithm}: "
                f"{'failed ' if self.failed_checks else ''}{'; '.join(what)} ({self.seconds:.1f} s)")

    def _refused_flags(self) -> str:
        """The edge-case classes every refused case shares (else all their flags), and the way out
        (of a report with refusals)."""
        sets = [set(fl) for _, fl, _ in self.refusals]
        common = sorted(set.intersection(*sets))
        if common:
            return f" (all flagged {', '.join(common)}; exclude with --skip-flags {','.join(common)})"
        flags = sorted(set.union(*sets))
        return f" (flags {', '.join(flags)}; exclude classes with --skip-flags)" if flags else ""

    def format(self) -> str:
        """The summary, the minimal failing instance side by side with the reference, then every
        failing case of every failed check, and every refused case."""
        out = [self.summary()]
        if not self.conforms and self.minimal is not None:
            out.append(self.minimal.format())
        for c in self.failed_checks:
            cases = self.failing.get(c, [])
            out.append(f"  {c} failed on {len(cases)} of {self.cases} cases:")
            out += [f"    {cid}: {msg}" for cid, msg in cases]
        if self.refusals:
            out.append(f"  refused (the implementation raised ValueError) on {len(self.refusals)} of {self.cases} cases:")
            out += [f"    {cid} [{', '.join(fl)}]: {msg}" for cid, fl, msg in self.refusals]
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
            "failing": {c: [{"case_id": cid, "message": m} for cid, m in v] for c, v in self.failing.items()},
            "refusals": [{"case_id": cid, "flags": list(fl), "message": m} for cid, fl, m in self.refusals],
            "minimal": self.minimal.as_dict() if self.minimal else None,
            "notes": self.notes,
            "cases": self.cases,
            "seconds": self.seconds,
            "strict": self.strict,
        })
