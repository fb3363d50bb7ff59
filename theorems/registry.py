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
from typing import Any, Callable, Dict, List

__all__ = ["Verdict", "Check", "REGISTRY", "register", "get", "ids", "slack_of"]


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check on one instance.

    Attributes
    ----------
    id : str                 the statement's id (``RP14.theorem1``)
    holds : bool             whether the statement held on this instance
    lhs, rhs : float         the two sides (the observed quantity and the bound); for a chain
                             or an identity, the worst side-pair found
    slack : float            tightness = observed / bound (<= 1 when a bound holds); ``nan``
                             where a ratio means nothing (identities report the error)
    details : dict           the instance, the iteration where it failed, the statement text
    """

    id: str
    holds: bool
    lhs: float
    rhs: float
    slack: float
    details: Dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        word = "holds" if self.holds else "FAILS"
        where = self.details.get("instance", "")
        it = self.details.get("iteration")
        at = f" at iteration {it}" if it is not None else ""
        return f"{self.id}: {word}{at}: lhs={self.lhs:.6g} rhs={self.rhs:.6g} slack={self.slack:.4g} on {where}"

    def as_dict(self) -> dict:
        def num(v):
            v = float(v)
            return v if math.isfinite(v) else str(v)

        return {
            "id": self.id,
            "holds": bool(self.holds),
            "lhs": num(self.lhs),
            "rhs": num(self.rhs),
            "slack": num(self.slack),
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
