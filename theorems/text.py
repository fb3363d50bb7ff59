"""The one text-table printer of the console script (``margins check``, ``margins demo``,
``margins bounds``): numbers to short strings, rows to aligned columns; and ``key: value``
listings (``margins run``, ``margins margin``) with the keys aligned; and the one JSON writer of
every ``--json`` output and JSON file (:func:`json_text`): strict JSON (RFC 8259), with
non-finite numbers as the strings ``"inf"``, ``"-inf"``, ``"nan"``."""

from __future__ import annotations

import json
import math
from typing import Any, Sequence, Tuple

import numpy as np

__all__ = ["fmt", "table", "fields", "to_jsonable", "json_text"]


def fmt(v: Any, digits: int = 4) -> str:
    """A cell: ``-`` for a missing value (None, "" or NaN), strings as they are, integral values
    below 1e9 as integers, other numbers with ``digits`` significant digits (``inf`` as ``inf``)."""
    if v is None or (isinstance(v, str) and v == ""):
        return "-"
    if isinstance(v, str):
        return v
    v = float(v)
    if math.isnan(v):
        return "-"
    if not math.isfinite(v):
        return str(v)
    if v.is_integer() and abs(v) < 1e9:
        return str(int(v))
    return f"{v:.{digits}g}"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Left-aligned columns separated by two spaces, a dashed rule under the headers."""
    widths = [max([len(str(h))] + [len(str(r[i])) for r in rows]) for i, h in enumerate(headers)]
    out = ["  ".join(str(h).ljust(w) for h, w in zip(headers, widths)), "  ".join("-" * w for w in widths)]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(out)


def fields(rows: Sequence[Tuple[str, Any]]) -> str:
    """``key: value`` lines, the keys right-aligned to the longest one (so the colons line up)."""
    width = max((len(k) for k, _ in rows), default=0)
    return "\n".join(f"{k:>{width}}: {v}" for k, v in rows)


def to_jsonable(v: Any) -> Any:
    """numpy / mpmath values -> plain JSON values (non-finite floats as the strings "inf", "-inf",
    "nan"); dict keys starting with ``_`` are private and left out."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, dict):
        return {str(k): to_jsonable(x) for k, x in v.items() if not str(k).startswith("_")}
    if isinstance(v, (list, tuple)):
        return [to_jsonable(x) for x in v]
    if isinstance(v, np.ndarray):
        return [to_jsonable(x) for x in v.tolist()] if v.dtype == object else to_jsonable(v.tolist())
    if isinstance(v, (int, np.integer)):
        return int(v)
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isfinite(f):
        return f
    return "inf" if f > 0 else ("-inf" if f < 0 else "nan")


def json_text(doc: Any, *, indent: int = 2, sort_keys: bool = False) -> str:
    """``doc`` as strict JSON (RFC 8259 has no Infinity or NaN): :func:`to_jsonable` first, so a
    non-finite number is the string ``"inf"``, ``"-inf"`` or ``"nan"`` (``float()`` reads each
    back), and ``allow_nan=False`` as the guard that nothing else slips through."""
    return json.dumps(to_jsonable(doc), indent=indent, sort_keys=sort_keys, allow_nan=False)
