"""Bit-for-bit determinism across BLAS thread counts: every public computation runs on one thread.

A threaded BLAS splits the sum of a matrix-vector product (``G @ p``, ``X @ w``) between its
threads, and the split depends on the thread count: the same call returns other bits with
``OPENBLAS_NUM_THREADS=1`` and ``=2``, and an argmin or an exit test that sits within round-off
then falls the other way (another iterate, another iteration count).  The promise is the same
output for the same input, so the public functions of :mod:`reference` run their BLAS calls on a
single thread, through threadpoolctl: :func:`one_thread` wraps them.  Nested calls pay nothing;
the limit is lifted when the outermost call returns, so the user's own BLAS work is untouched.

The compiled engine's kernels do their own loops in a fixed order; the limit covers the NumPy
work around them (verifiers, the ISNKPVN outer loop, PT11's pattern products).
"""

from __future__ import annotations

import functools
import threading
from typing import Callable, TypeVar

__all__ = ["one_thread", "single_threaded"]

F = TypeVar("F", bound=Callable)

_state = threading.local()
_controller = None
_controller_lock = threading.Lock()


def _blas_controller():
    """One threadpoolctl controller over every BLAS loaded (scipy.linalg's included), made once."""
    global _controller
    with _controller_lock:
        if _controller is None:
            import scipy.linalg  # noqa: F401  (loads scipy's own BLAS, so the controller sees it)
            from threadpoolctl import ThreadpoolController

            _controller = ThreadpoolController()
        return _controller


class single_threaded:
    """Context manager: BLAS on one thread inside (re-entrant; the outermost one sets the limit)."""

    def __enter__(self):
        depth = getattr(_state, "depth", 0)
        _state.depth = depth + 1
        self._limit = None
        if depth == 0:
            self._limit = _blas_controller().limit(limits=1, user_api="blas")
        return self

    def __exit__(self, *exc):
        _state.depth -= 1
        if self._limit is not None:
            self._limit.restore_original_limits()
        return False


def one_thread(fn: F) -> F:
    """Decorator: run ``fn`` with BLAS limited to one thread (:class:`single_threaded`)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with single_threaded():
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
