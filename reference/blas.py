"""Bit-for-bit determinism across BLAS thread counts: every public computation runs on one thread.

A threaded BLAS splits the sum of a matrix-vector product (``G @ p``, ``X @ w``) between its
threads, and the split depends on the thread count: the same call returns other bits with
``OPENBLAS_NUM_THREADS=1`` and ``=2``, and an argmin or an exit test that sits within round-off
then falls the other way (another iterate, another iteration count).  The promise is the same
output for the same input, so the public functions of :mod:`reference` run their BLAS calls on a
single thread, through threadpoolctl: :func:`one_thread` wraps them.  Nested calls pay nothing;
the limit is lifted when the outermost call returns (also on an exception, and across threads:
the limit is process-wide, as BLAS's pool is), so the user's own BLAS work is untouched.

The compiled engine's kernels do their own loops in a fixed order; the limit covers the NumPy
work around them (verifiers, the ISNKPVN outer loop, PT11's pattern products).
"""

from __future__ import annotations

import functools
import threading
from typing import Callable, Optional, TypeVar

__all__ = ["one_thread", "single_threaded"]

F = TypeVar("F", bound=Callable)

_lock = threading.Lock()
_depth = 0  # process-wide: BLAS's thread pool is process-wide, so is the limit
_limiter = None
_owner: Optional[threading.Thread] = None
_controller = None


def _blas_controller():
    """One threadpoolctl controller over every BLAS loaded (scipy.linalg's included), made once."""
    global _controller
    if _controller is None:
        import scipy.linalg  # noqa: F401  (loads scipy's own BLAS, so the controller sees it)
        from threadpoolctl import ThreadpoolController

        _controller = ThreadpoolController()
    return _controller


def _release_control(force: bool) -> None:
    """Let other threads set OpenBLAS's limits again (threadpoolctl >= 3.6 gives the process-wide
    OpenBLAS pool to the thread that last set it; older versions have no such notion)."""
    try:
        from threadpoolctl import OpenBLASController
    except ImportError:  # pragma: no cover - threadpoolctl < 3.0
        return
    clear = getattr(OpenBLASController, "clear_controlling_thread", None)
    if clear is not None:
        clear(force=force)


class single_threaded:
    """Context manager: BLAS on one thread inside.

    Re-entrant and process-wide: the first call to enter (in any thread) sets the limit, the last
    to leave restores the limits it found and releases OpenBLAS's controlling thread, so the
    user's own limits work afterwards.  A failure to set the limit leaves no state behind.
    """

    def __enter__(self):
        global _depth, _limiter, _owner
        with _lock:
            if _depth == 0:
                _limiter = _blas_controller().limit(limits=1, user_api="blas")
                _owner = threading.current_thread()
            _depth += 1
        return self

    def __exit__(self, *exc):
        global _depth, _limiter, _owner
        with _lock:
            _depth -= 1
            if _depth == 0:
                limiter, owner, _limiter, _owner = _limiter, _owner, None, None
                if owner is not threading.current_thread():
                    _release_control(force=True)  # the limit was set from the owner thread
                limiter.restore_original_limits()
                _release_control(force=False)
        return False


def one_thread(fn: F) -> F:
    """Decorator: run ``fn`` with BLAS limited to one thread (:class:`single_threaded`)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with single_threaded():
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
