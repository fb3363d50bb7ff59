"""Normalizing whatever an implementation returns (a Result-like object or a mapping, with or
without a trace) into one answer dict.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

import numpy as np


def _get(obj, key):
    """The field ``key`` of a mapping or an object; None when it has none."""
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


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
    status, iterations, alpha, w, p (float64 vectors or None), trace (list of dicts or None);
    ``error`` when a vector was returned that is not a vector of numbers (e.g. ``[None, 1.0]``)."""
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
    out = {
        "status": None if status is None else str(status),
        "iterations": it_int,
        "alpha": _vec(_get(obj, "alpha")),
        "w": _vec(_get(obj, "w")),
        "p": _vec(_get(obj, "p")),
        "trace": tr,
    }
    for key in ("alpha", "w", "p"):  # a vector that is not one is a wrong answer, not a missing vector
        raw = _get(obj, key)
        if raw is not None and out[key] is None:
            shown = repr(raw) if len(repr(raw)) <= 60 else repr(raw)[:57] + "..."
            out["error"] = f"{key} = {shown} is not a vector of numbers (return a 1-D array of floats, or None)"
            break
    return out
