"""The compiled engine: ``engine="fast"`` on every public algorithm.

The textbook modules (:mod:`reference.smoothed`, :mod:`reference.dynamic_margin`, ...) are the
definition; this package runs the same algorithms compiled with numba, on arrays and scalars
only (the house pattern of style-examples Sec. 2):

* :mod:`reference.fast.engine`       Python wrappers: validate once, build arrays, call a kernel,
                                     re-verify the claim with :mod:`reference.result`'s verifiers
                                     in NumPy, return the same :class:`reference.Result`
                                     (``Result.engine == "fast"``);
* :mod:`reference.fast.rp14_kernels`  RP14 Alg. 1-6 at one kernel matvec per iteration;
* :mod:`reference.fast.pt11_kernels`  PT11's box, PFM, PDM-succ, active sets, multiple updates,
                                     on CSR patterns with the rho and Delta coordinates implicit.

Imports point one way: this package imports the textbook's states and constants
(:mod:`reference.states`), its preparation of the data (:mod:`reference.prepare`), its verifiers
and status messages (:mod:`reference.result`) and, where a loop is the same, its driver (ISNKPVN's
outer loop, :func:`reference.smoothed.outer_loop`); no textbook module imports it.  The engine is
chosen in one place, :mod:`reference.algorithms`; the engine names live in :mod:`reference.engines`
(re-exported here).

Every compiled line carries the reference line and paper tag it replaces.  No kernel uses
``fastmath``: their outputs feed round-off allowances, and the engine's verdict is never
trusted anyway -- every claim is recomputed from the returned vector by the reference's
verifiers before it leaves.

numba is an optional dependency (``pip install 'perceptron-margins[fast]'``); nothing here
imports it until a fast run is asked for.  Kernels are compiled on first use and cached on disk
by numba (``cache=True``: in ``$NUMBA_CACHE_DIR`` if set, else in ``__pycache__`` beside these
files, as Python caches bytecode, else in the user's cache directory).  Where none of these is
writable (a read-only install, no home directory) the on-disk cache is not required: the kernels
are compiled in memory, once per process (:func:`njit`), and nothing is written anywhere.
"""

from __future__ import annotations

from ..engines import ENGINES, FAST, INSTALL_HINT, TEXTBOOK, available, check_engine

__all__ = ["ENGINES", "TEXTBOOK", "FAST", "available", "check_engine", "INSTALL_HINT", "njit"]


def njit(**options):
    """The kernels' decorator: ``numba.njit(cache=True, **options)``, or without the on-disk cache
    (compiled in memory) when numba finds no writable cache location for the function.

    numba refuses ``cache=True`` outright there (``RuntimeError: cannot cache function ...: no
    locator available``, at import of the kernel module); the cache only saves compile time, so
    its absence must not stop a run.  Imports numba (called by the kernel modules only).
    """
    import numba

    def decorate(fn):
        try:
            return numba.njit(cache=True, **options)(fn)
        except RuntimeError as exc:
            if "no locator available" not in str(exc):
                raise
            return numba.njit(cache=False, **options)(fn)

    return decorate
