"""The registry of executable statements and the :class:`Verdict` each check returns.

A *check* is a function ``check(instance, **options) -> Verdict`` registered under an id such as
``RP14.lemma5`` or ``PT11.theorem2`` (sub-ids like ``RP14.lemma7.printed`` are allowed).  It
evaluates both sides of the statement on a concrete instance (and, for statements about runs, on
the run's trace) and reports what it found; it never raises for a false statement, it returns
``holds=False``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

__all__ = ["Verdict", "Check", "REGISTRY", "register", "get", "ids", "slack_of"]


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check on one instance.

    Attributes
    ----------
    id : str                 the statement's id (``RP14.theorem1``)
    holds : bool             whether the statement held on this instance
    lhs, rhs : float         the two sides (the observed quantity and the bound); for a chain or
                             a conjunction, the sides of the clause named by ``clause`` -- the one
                             whose ``slack`` is reported
    slack : float            tightness of those two sides (lhs / rhs when rhs > 0; <= 1 when a
                             bound holds); ``nan`` where a ratio means nothing
    details : dict           the instance, the iteration where it failed, the statement text
    kind : str               what the row states: ``bound`` (lhs <= rhs), ``identity`` (lhs = rhs),
                             ``dichotomy`` (exactly one of two alternatives), ``refuted`` (a bound
                             known false); ``""``: the registered statement's kind
    allowance : float        the absolute amount by which lhs may exceed rhs and the verdict still
                             holds (round-off of the computation, the certified margin interval's
                             width); 0 when the comparison is exact
    clause : str             which part of the statement lhs / rhs / slack are about (``""``: the
                             whole statement)
    """

    id: str
    holds: bool
    lhs: float
    rhs: float
    slack: float
    details: Dict[str, Any] = field(default_factory=dict)
    kind: str = ""
    allowance: float = 0.0
    clause: str = ""

    def statement_kind(self) -> str:
        """``kind``, or the registered statement's kind when ``kind`` is empty (``bound`` if unregistered)."""
        if self.kind:
            return self.kind
        chk = REGISTRY.get(self.id)
        return chk.kind if chk is not None else "bound"

    def tightness(self) -> Tuple[Optional[float], str]:
        """``(ratio, "")`` for a bound, else ``(None, reason)``: a dichotomy or an identity has no
        ratio, nor has a pair of sides that both lie within the allowance (two round-off values)."""
        kind = self.statement_kind()
        if kind == "dichotomy":
            return None, "dichotomy"
        if kind == "identity":
            return None, "identity"
        lhs, rhs, tol = float(self.lhs), float(self.rhs), float(self.allowance)
        if tol > 0 and max(abs(lhs), abs(rhs)) <= tol:
            return None, "both sides within the allowance"
        sl = float(self.slack)
        if math.isnan(sl):
            return None, kind
        return sl, ""

    def within_allowance(self) -> bool:
        """Holds only thanks to the allowance: a bound whose lhs exceeds its rhs."""
        return bool(self.holds) and self.statement_kind() in ("bound", "refuted", "empirical") and float(self.lhs) > float(self.rhs)

    def __str__(self) -> str:
        word = "holds" if self.holds else "FAILS"
        where = self.details.get("instance", "")
        it = self.details.get("iteration")
        at = f" at iteration {it}" if it is not None else ""
        extra = f" allowance={self.allowance:.3g}" if self.allowance else ""
        clause = f" [{self.clause}]" if self.clause else ""
        return f"{self.id}: {word}{at}: lhs={self.lhs:.6g} rhs={self.rhs:.6g}{extra} slack={self.slack:.4g}{clause} on {where}"

    def as_dict(self) -> dict:
        def num(v):
            v = float(v)
            return v if math.isfinite(v) else str(v)

        ratio, why = self.tightness()
        return {
            "id": self.id,
            "holds": bool(self.holds),
            "kind": self.statement_kind(),
            "lhs": num(self.lhs),
            "rhs": num(self.rhs),
            "allowance": num(self.allowance),
            "slack": num(self.slack),
            "tightness": num(ratio) if ratio is not None else f"n/a ({why})",
            "clause": self.clause,
            "details": {k: (v if isinstance(v, (int, float, str, bool, type(None), list)) else str(v)) for k, v in self.details.items()},
        }


@dataclass(frozen=True)
class Check:
    """A registered statement: its id, where it is in the paper, and the function."""

    id: str
    statement: str
    source: str
    func: Callable[..., Verdict]
    kind: str = "bound"  # "bound" (lhs <= rhs), "identity", "dichotomy", "empirical", "refuted" (false as printed:
    #                      expected to fail, decided exactly, on a known counterexample)


REGISTRY: Dict[str, Check] = {}


def register(id: str, statement: str, source: str, kind: str = "bound"):
    """Decorator: register ``func`` under ``id``."""

    def deco(func):
        if id in REGISTRY:
            raise ValueError(f"check id {id!r} registered twice")
        REGISTRY[id] = Check(id=id, statement=statement, source=source, func=func, kind=kind)
        func.check_id = id
        return func

    return deco


def get(id: str) -> Check:
    if id not in REGISTRY:
        raise ValueError(f"no check registered as {id!r}; known ids: {', '.join(sorted(REGISTRY))}")
    return REGISTRY[id]


def ids() -> List[str]:
    return sorted(REGISTRY)


def slack_of(observed: float, bound: float) -> float:
    """observed / bound, with the conventions 0/0 = 0 and x/0 = inf for x > 0."""
    observed, bound = float(observed), float(bound)
    if bound == 0:
        return 0.0 if observed <= 0 else math.inf
    return observed / bound
