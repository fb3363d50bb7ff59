"""Tasks: a sweep is a list of small JSON-able dicts ``{"target", "spec", "args", "opts"}``;
:func:`evaluate_task` is a pure top-level function of one task (it pickles and runs anywhere), and
:func:`run_tasks` hands the tasks to any ``concurrent.futures.Executor`` and returns the rows in
task order.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import json
import math
import sys
import time
from typing import Iterator, List, Optional, Sequence

from ..instances.families import make_instance
from .targets import get_target


def _json(v) -> str:
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


def _spec_label(spec: dict) -> str:
    if spec.get("family") == "explicit":
        return _json({k: v for k, v in spec.items() if k not in ("X", "y")} | {"n": len(spec["y"])})
    return _json(spec)


ROUNDOFF_ROW = "no ratio: observed and bound both within the round-off floor"


def roundoff(observed: float, bound: float, floor: float) -> bool:
    """Whether ``observed`` and ``bound`` are both round-off: within ``floor`` (> 0) of zero.  Their
    ratio then means nothing (8.5e-18 against -1.5e-33 is not a ratio of 5.5e15) and is not ranked."""
    return floor > 0 and max(abs(float(observed)), abs(float(bound))) <= floor


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
    ob, bd = r["observed"], r["bound"]
    if ratio is None:
        ratio = 0.0 if bd == math.inf else (ob / bd if bd > 0 else (0.0 if ob <= 0 else math.inf))
    row = dict(base)
    row.update({k: r[k] for k in ("quantity", "observed", "bound", "status", "margin_kind", "margin", "margin_source", "R")})
    row["ratio"] = float(ratio)
    floor = float(r.get("floor") or 0.0)  # the round-off floor of the two sides (the check's allowance)
    row["floor"] = floor
    if r.get("note"):
        row["note"] = r["note"]
    if roundoff(ob, bd, floor):
        row["ratio"] = math.nan
        row["note"] = f"{ROUNDOFF_ROW} {floor:.3g}"
    if r.get("Delta") is not None and "Delta" not in args:
        row["args"] = _json(dict(args, Delta=r["Delta"]))
    if r.get("q") is not None:  # lemma7*: the q that attained the ratio, explicitly (replayable)
        row["args"] = _json(dict(args, q=r["q"]))
    return row


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


@contextlib.contextmanager
def open_executor(address: Optional[str]) -> Iterator[Optional[cf.Executor]]:
    """The executor named on the command line (``margins bounds --executor ADDRESS``).

    ``None``: no executor (``--jobs`` decides).  ``dask://HOST:PORT`` (or ``tcp://HOST:PORT``): a
    client of the running dask scheduler at that address, whose ``get_executor()`` is a
    ``concurrent.futures.Executor`` (needs ``pip install 'perceptron-margins[distributed]'``); the
    client is closed on exit.  Tasks come back in task order, so the outputs are those of
    ``--jobs 1``, byte for byte.
    """
    if address is None:
        yield None
        return
    scheme, sep, rest = address.partition("://")
    if not sep or scheme not in ("dask", "tcp") or not rest:
        raise ValueError(f"--executor must be dask://HOST:PORT (a running dask scheduler), got {address!r}")
    try:
        from distributed import Client
    except ImportError:
        raise ValueError("--executor dask://... needs dask.distributed: pip install 'perceptron-margins[distributed]'") from None
    client = Client(f"tcp://{rest}", timeout=30)
    try:
        yield client.get_executor()
    finally:
        client.close()
