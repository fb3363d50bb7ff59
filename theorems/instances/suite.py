"""The built-in suite of instances and the runner that checks every registered statement on it.

* :func:`builtin_suite`  a small deterministic list of :class:`~theorems.instances.Instance`
* :func:`run_checks`     run registered checks on instances, skipping where a check does not apply
* :func:`slack_table`    summarise verdicts: per id, max tightness and whether every verdict held

Applicability convention (compatible with :mod:`theorems.registry`)
-------------------------------------------------------------------
A registered check is ``func(instance, **options) -> Verdict | None``.  It returns ``None`` when
the statement does not apply to the instance (e.g. an iteration bound for separable data run on
infeasible data, Lemma 6 on non-rational data, Theorem 3 without a known delta_max, or a bound
too large to run within the check's iteration budget); :func:`run_checks` then skips the pair.
A check never raises for a false statement; if it raises for any other reason, :func:`run_checks`
records a failing Verdict whose ``details["error"]`` holds the exception (so nothing is silently
dropped).
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence

import numpy as np

import reference

from .. import registry
from ..registry import REGISTRY, Verdict
from .instance import Instance
from .strategies import (
    degenerate_cases,
    lemma7_counterexample,
    planted_infeasible,
    planted_separable,
    random_kernel_instance,
    rational_instance,
    worked_example,
)

__all__ = ["builtin_suite", "heart_scale_instance", "run_checks", "slack_table", "load_checks"]

_CHECK_MODULES = ("theorems.rp14", "theorems.pt11")


def load_checks() -> List[str]:
    """Import the modules that register checks (``theorems.rp14``, ``theorems.pt11``); a module
    that does not exist yet is skipped.  Returns the ids registered."""
    for mod in _CHECK_MODULES:
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name != mod:
                raise
    return registry.ids()


def heart_scale_instance(rows: int = 40) -> Instance:
    """The first ``rows`` rows of ``reference/data_files/heart_scale.txt`` (LIBSVM, 13 features;
    real data, nothing planted; flag ``real_data``)."""
    path = Path(reference.__file__).parent / "data_files" / "heart_scale.txt"
    X, y = reference.load_libsvm(path)
    X, y = X[:rows].toarray(), y[:rows]
    keep = np.any(X != 0, axis=1)
    return Instance(name=f"heart_scale[:{rows}]", X=X[keep], y=y[keep], flags=("real_data",))


def builtin_suite() -> List[Instance]:
    """A small deterministic list of instances covering every class of the strategies.

    * planted separable: unit norm (d=3, n=8, rho_K = 0.3) and rescaled (d=4, n=10, rho_K=0.25,
      rho = 0.5), and an embedded low-rank one;
    * planted infeasible: regular simplex (d=3, delta_max=1/3), cross-polytope (d=2, 1/sqrt 2),
      random d=2 with enumerated delta_max and duplicates;
    * kernels: gaussian (sigma=1) and polynomial (degree 2, c=1) on random data;
    * the RP14 worked example with r = 3 (norms 1/3, 1, 3 for each class);
    * real data: the first 40 rows of heart_scale;
    * rational: a feasible and an infeasible integer instance, and the exact counterexample to the
      printed RP14 Lemma 7 (:func:`theorems.strategies.lemma7_counterexample`);
    * degenerate cases (:func:`theorems.strategies.degenerate_cases`).
    """
    out = [
        planted_separable(3, 3, 5, 0.3, seed=1),
        planted_separable(4, 4, 6, 0.25, seed=2, unit=False, scale=2.0),
        planted_separable(2, 2, 4, 0.4, seed=3, ambient=4),
        planted_infeasible("simplex", 3, seed=4),
        planted_infeasible("cross", 2, seed=5, duplicates=1),
        planted_infeasible("random", 2, seed=6, m=6, duplicates=1, ambient=3),
        random_kernel_instance("gaussian", 12, 2, seed=7, sigma=1.0),
        random_kernel_instance("polynomial", 10, 2, seed=8, degree=2, c=1.0),
        worked_example(3.0),
        heart_scale_instance(40),
        rational_instance([[2, 1], [1, 3], [3, -1], [-1, -1]], [1, 1, 1, -1], name="rational(feasible,n=4)"),
        rational_instance([[1, 2], [-2, -1], [1, -1], [0, 1]], [1, 1, 1, -1], name="rational(infeasible,n=4)"),
        lemma7_counterexample(),
    ]
    out.extend(degenerate_cases())
    return out


def run_checks(
    ids: Optional[Iterable[str]] = None,
    instances: Optional[Sequence[Instance]] = None,
    **options,
) -> List[Verdict]:
    """Run every requested check on every instance it applies to.

    Parameters
    ----------
    ids : iterable of str, optional
        Check ids (default: every registered id, sorted).  A prefix ending in ``.`` or ``*``
        (e.g. ``"RP14."``) selects all ids starting with it.
    instances : sequence of Instance, optional
        Default :func:`builtin_suite`.
    **options
        Passed to every check function.

    Returns
    -------
    list of Verdict
        One per (id, instance) pair where the check applied (returned a Verdict, not ``None``),
        in id-major order.
    """
    load_checks()
    if ids is None:
        selected = registry.ids()
    else:
        selected = []
        for i in ids:
            if i.endswith("*") or i.endswith("."):
                pre = i.rstrip("*")
                selected.extend(k for k in registry.ids() if k.startswith(pre))
            else:
                registry.get(i)
                selected.append(i)
    insts = list(instances) if instances is not None else builtin_suite()
    out: List[Verdict] = []
    for cid in selected:
        chk = REGISTRY[cid]
        for inst in insts:
            try:
                v = chk.func(inst, **options)
            except Exception as exc:  # recorded, never swallowed
                v = Verdict(cid, False, math.nan, math.nan, math.nan,
                            {"instance": str(inst), "error": f"{type(exc).__name__}: {exc}", "statement": chk.statement})
            if v is not None:
                out.append(v)
    return out


def slack_table(verdicts: Iterable[Verdict]) -> Dict[str, dict]:
    """Per id: number of verdicts, whether all held, the kinds of statement its rows are, and the
    max tightness (with its instance) -- over the rows that have one (:meth:`Verdict.tightness`:
    no dichotomy, identity or pair of round-off sides)."""
    table: Dict[str, dict] = {}
    for v in verdicts:
        row = table.setdefault(v.id, {"count": 0, "holds": True, "max_slack": -math.inf, "worst": None, "kinds": set()})
        row["count"] += 1
        row["holds"] = row["holds"] and bool(v.holds)
        row["kinds"].add(v.statement_kind())
        s, _why = v.tightness()
        if s is not None and math.isfinite(s) and s > row["max_slack"]:
            row["max_slack"], row["worst"] = s, v.details.get("instance")
    return table
