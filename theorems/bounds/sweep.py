"""Sweeps: the tasks of a target's families and grids, and :func:`explore`, the driver behind
``margins bounds`` (for each target: sweep, optional search, a summary entry, the outputs).
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import sys
import time
from itertools import product
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from ..instances.families import FAMILIES, real_available
from .outputs import (
    SCHEMA_VERSION,
    _safe,
    rows_table,
    summary_table,
    write_summary,
    write_target,
)
from .search import _finite_ratio, beaten, search
from .targets import Target, get_target, targets
from .tasks import ROUNDOFF_ROW, Progress, _json, run_tasks


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


def explore_target(tgt: Target, *, families=None, ns=None, margins=None, ds=None, seeds: int = 2, seed: int = 0,
                   do_search: bool = False, budget: int = 60, jobs: int = 1, quick: bool = False,
                   executor: Optional[cf.Executor] = None, args_override: Optional[dict] = None,
                   opts: Optional[dict] = None, progress: bool = True) -> Tuple[dict, List[dict]]:
    """Sweep one target (and search, with ``do_search``); returns its summary entry and every row
    (sweep rows first, each with its task under ``_task``)."""
    t0 = time.perf_counter()
    tasks = sweep_tasks(tgt, families=families, ns=ns, margins=margins, ds=ds, seeds=seeds, seed=seed,
                        args_override=args_override, opts=opts, quick=quick)
    prog = Progress(len(tasks), f"{tgt.id} sweep", enabled=progress)
    rows = run_tasks(tasks, jobs=jobs, executor=executor, progress=prog)
    prog.close()
    for t, r in zip(tasks, rows):
        r["_task"] = t
    srows: List[dict] = []
    if do_search:
        prog = Progress(budget, f"{tgt.id} search", enabled=progress)
        srows = search(tgt, rows, budget=budget, seed=seed, jobs=jobs, executor=executor, opts=opts, progress=prog)
        prog.close()
    allrows = rows + srows
    entry = _summary_entry(tgt, rows, srows)
    entry["seconds"] = round(time.perf_counter() - t0, 1)
    return entry, allrows


def _is_roundoff(row: dict) -> bool:
    """A row given no ratio because observed and bound were both round-off (:func:`.tasks.roundoff`)."""
    return str(row.get("note", "")).startswith(ROUNDOFF_ROW)


def _summary_entry(tgt: Target, rows: List[dict], srows: List[dict]) -> dict:
    allrows = rows + srows
    valid = [r for r in allrows if math.isfinite(_finite_ratio(r)) and _finite_ratio(r) > -math.inf]
    best_sweep = max((r for r in rows if r in valid), key=_finite_ratio, default=None)
    best_search = max((r for r in srows if r in valid), key=_finite_ratio, default=None)
    worst = max(valid, key=_finite_ratio, default=None)
    return {
        "target": tgt.id, "kind": tgt.kind, "statement": tgt.statement, "source": tgt.source,
        "rows": len(allrows), "applicable": len(valid),
        "roundoff": sum(1 for r in allrows if _is_roundoff(r)),
        "roundoff_sweep": sum(1 for r in rows if _is_roundoff(r)),
        "roundoff_search": sum(1 for r in srows if _is_roundoff(r)),
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
        "_worst": worst,
    }


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
    ``executor``: any ``concurrent.futures.Executor`` (else ``jobs > 1`` starts a local process
    pool for the whole run).  Returns the summary document."""
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
            entry, allrows = explore_target(tgt, families=families, ns=ns, margins=margins, ds=ds, seeds=seeds,
                                            seed=seed, do_search=do_search, budget=budget, jobs=jobs, quick=quick,
                                            executor=executor, args_override=args_override, opts=opts,
                                            progress=progress)
            worst = entry.pop("_worst")
            if outdir:
                msg = write_target(outdir, tgt, allrows, worst, entry, command=command, plot=plot)
                if msg:
                    plot_msgs.add(msg)
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
            write_summary(outdir, doc)
        print(f"\nwrote {outdir}/ (" + ", ".join(f"{_safe(t)}.csv/.json" for t in tids[:3])
              + (", ..." if len(tids) > 3 else "") + ", cases/"
              + (", validate/" if any(e.get("validate_cases") for e in summary) else "") + ")", file=stream)
    doc["plot_message"] = sorted(plot_msgs)
    return doc
