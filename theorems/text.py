"""The one text-table printer of the console script (``margins check``, ``margins demo``,
``margins bounds``): numbers to short strings, rows to aligned columns; and ``key: value``
listings (``margins run``, ``margins margin``) with the keys aligned.  Dependency-free."""

from __future__ import annotations

import math
from typing import Any, Sequence, Tuple

__all__ = ["fmt", "table", "fields"]


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
