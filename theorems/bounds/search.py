"""The targeted search: a seeded, batched hill climb over specs and arguments (fixed batch size,
so the result does not depend on ``--jobs``).
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import math
import zlib
from typing import List, Optional, Sequence, Tuple

import numpy as np

from .. import paper_bounds as pb
from ..instances.families import explicit_spec, make_instance
from .targets import Target
from .tasks import Progress, _json, run_tasks

_NUMERIC_SPEC = {"margin": (1e-3, 0.95), "spread": (0.02, 20.0), "radius": (1.0, 20.0), "sigma": (0.05, 5.0),
                 "r": (1.01, 20.0), "height": (0.05, 20.0)}
_INT_SPEC = {"n": (2, 80), "d": (2, 12)}


BEATEN_TOL = 1e-9  # a ratio counts as > 1 only beyond round-off of the bound's formula (e.g. n vs 1/(1/sqrt n)^2)


def beaten(row: dict) -> bool:
    """Whether a row refutes its statement: a registered check said FAILS, or (algorithm targets)
    observed > bound (1 + BEATEN_TOL)."""
    st = str(row.get("status"))
    if st == "FAILS" or st.startswith("exact: FAILS"):
        return True
    if st == "holds" or st.startswith("exact: holds"):
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
    if move == "explicit":  # the same instance as explicit data, then a move of its points (else a duplicate row)
        return _mutate(explicit_spec(make_instance(spec)), args, tgt, rng)
    spec.pop("known", None)  # the data change: nothing is known by construction any more
    X = np.array(spec["X"], dtype=float)
    y = np.array(spec["y"], dtype=int)
    n = X.shape[0]
    i = int(rng.integers(n))
    scale = pb.radius(X)
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
