"""The two engines, by name, and the check of an ``engine=`` argument.

``"textbook"`` is the pure-Python reference (:mod:`reference.perceptrons`, ... ), ``"fast"`` the
compiled one (:mod:`reference.fast`, numba, optional).  A leaf module: it imports nothing of
ours, so the function that chooses the engine (:mod:`reference.algorithms`) and the preparation
both engines share (:mod:`reference.prepare`) can check the argument without importing either
engine; :mod:`reference.fast` re-exports these names.
"""

from __future__ import annotations

import importlib.util
from typing import Optional

__all__ = ["ENGINES", "TEXTBOOK", "FAST", "available", "check_engine", "INSTALL_HINT"]

TEXTBOOK = "textbook"
FAST = "fast"
ENGINES = (TEXTBOOK, FAST)
INSTALL_HINT = "pip install 'perceptron-margins[fast]'"


def available() -> bool:
    """True when numba can be imported (the compiled engine can run)."""
    return importlib.util.find_spec("numba") is not None


def check_engine(engine, precision: Optional[int] = None) -> str:
    """Validate ``engine`` (and its compatibility with ``precision``); return it.

    ``trace=`` needs no check here: the RP14 fast kernels record traces, and PDM, whose fast path
    does not, refuses ``trace=True`` with ``engine="fast"`` itself (reference.algorithms).

    Raises
    ------
    ValueError
        ``engine`` is not one of :data:`ENGINES`; ``engine="fast"`` with ``precision=`` (the
        compiled engine is float64 only) or with numba missing (the message says how to
        install it).
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    if engine == FAST:
        if precision is not None:
            raise ValueError(
                "engine='fast' runs in float64 only; precision= is the textbook engine's "
                "(pass engine='textbook' with precision=..., or drop precision)"
            )
        if not available():
            raise ValueError(f"engine='fast' needs numba, which is not installed; run: {INSTALL_HINT}")
    return engine
