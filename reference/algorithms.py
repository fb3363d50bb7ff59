"""The ten algorithms: the table of what each takes and may claim, and the functions users call.

One place for what the rest of the project would otherwise spell out again (the validation
harness, the ``margins`` command line, the bound explorer): the data an algorithm runs on, its
positional arguments after the data, in order, and the statuses it may return (:data:`SPECS`).

And the one place that chooses the engine: ``reference.perceptron``, ..., ``reference.pdm_succ``
are defined here.  Each checks ``engine=`` (:func:`reference.engines.check_engine`), then runs the
textbook function of its module (:mod:`reference.perceptrons`, :mod:`reference.von_neumann`,
:mod:`reference.smoothed`, :mod:`reference.dynamic_margin`) or the compiled engine's
(:mod:`reference.fast.engine`, imported on the first ``engine="fast"`` call); PT11's calls are
validated and prepared once (:func:`reference.prepare.prepare_pt11`) for either.  No other
module outside :mod:`reference.fast` imports it.

* ``data="gram"``      RP14's kernelized algorithms take the normalized signed Gram matrix G;
* ``data="primal"``    RP14's Perceptron and Normalized Perceptron take (X, y);
* ``data="patterns"``  PT11's algorithms take (X, y) and run on the augmented, reflected (and
  possibly extended) patterns y_k = l_k [x_k, rho, Delta e_k].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Optional, Tuple

from . import dynamic_margin, perceptrons, smoothed, von_neumann
from .blas import one_thread
from .engines import FAST, check_engine
from .prepare import prepare_pt11
from .result import CERTIFICATE, MAX_ITER, SEPARATOR, Result
from .states import DynamicMarginState

__all__ = [
    "AlgorithmSpec",
    "SPECS",
    "perceptron",
    "normalized_perceptron",
    "nkp",
    "snkp",
    "nvn",
    "snkpvn",
    "isnkpvn",
    "pfm",
    "pdm",
    "pdm_succ",
]


@dataclass(frozen=True)
class AlgorithmSpec:
    """One algorithm: its reference function's name, source, data, positional arguments, statuses."""

    name: str
    source: str
    data: str  # "gram", "primal" or "patterns"
    positional: Tuple[str, ...]  # the arguments after the data, in the reference function's order
    statuses: Tuple[str, ...]  # the statuses it may return


_SEP = (SEPARATOR, MAX_ITER)
_BOTH = (SEPARATOR, CERTIFICATE, MAX_ITER)

SPECS: Dict[str, AlgorithmSpec] = {s.name: s for s in (
    AlgorithmSpec("perceptron", "RP14 Alg. 1", "primal", (), _SEP),
    AlgorithmSpec("normalized_perceptron", "RP14 Alg. 2", "primal", (), _SEP),
    AlgorithmSpec("nkp", "RP14 Alg. 3", "gram", (), _SEP),
    AlgorithmSpec("snkp", "RP14 Alg. 4", "gram", (), _SEP),
    AlgorithmSpec("nvn", "RP14 Alg. 5", "gram", ("epsilon",), _BOTH),
    AlgorithmSpec("snkpvn", "RP14 Alg. 6", "gram", ("q", "delta"), _BOTH),
    AlgorithmSpec("isnkpvn", "RP14 Alg. 7", "gram", ("gamma", "epsilon"), _BOTH),
    AlgorithmSpec("pfm", "PT11 (7)", "patterns", ("beta",), _SEP),
    AlgorithmSpec("pdm", "PT11 algorithm box, (8)", "patterns", ("epsilon",), _SEP),
    AlgorithmSpec("pdm_succ", "PT11 Sec. 3", "patterns", ("epsilon", "eta"), _SEP),
)}


# -- the ten public functions: the one place that chooses the engine ---------------------------------

_RP14_ENGINE_DOC = '''    engine : {"textbook", "fast"}
        ``"fast"``: the compiled engine (:mod:`reference.fast`, needs numba), same algorithm,
        same Result (``Result.engine == "fast"``), float64 only.
'''
_PT11_ENGINE_DOC = '''    engine : {"textbook", "fast"}
        ``"fast"``: the compiled engine (:mod:`reference.fast`, needs numba): same algorithm and
        Result (``Result.engine == "fast"``), float64, no trace and no ``progress`` calls; the
        same implicit patterns (O(nnz + m) memory).
'''


def _with_engine(textbook: Callable, entry: str) -> Callable[[Callable], Callable]:
    """The textbook function's docstring, with the ``engine`` parameter as its last one."""

    def document(fn: Callable) -> Callable:
        doc = textbook.__doc__
        if doc:  # None under python -OO
            i = doc.index("\n    Returns\n")
            fn.__doc__ = doc[:i] + entry + doc[i:]
        return fn

    return document


def _compiled():
    """The compiled engine's wrappers (imported on the first ``engine="fast"`` call)."""
    from .fast import engine

    return engine


@one_thread
@_with_engine(perceptrons.perceptron, _RP14_ENGINE_DOC)
def perceptron(
    X,
    y,
    *,
    rule: str = "cyclic",
    rho: Optional[float] = None,
    max_iter: int = 100_000,
    trace: bool = False,
    precision: Optional[int] = None,
    engine: str = "textbook",
) -> Result:
    if check_engine(engine, precision) == FAST:
        return _compiled().perceptron(X, y, rule=rule, rho=rho, max_iter=max_iter, trace=trace)
    return perceptrons.perceptron(X, y, rule=rule, rho=rho, max_iter=max_iter, trace=trace, precision=precision)


@one_thread
@_with_engine(perceptrons.normalized_perceptron, _RP14_ENGINE_DOC)
def normalized_perceptron(
    X,
    y,
    *,
    normalize: bool = True,
    rho: Optional[float] = None,
    max_iter: int = 100_000,
    trace: bool = False,
    precision: Optional[int] = None,
    engine: str = "textbook",
) -> Result:
    if check_engine(engine, precision) == FAST:
        return _compiled().normalized_perceptron(X, y, normalize=normalize, rho=rho, max_iter=max_iter, trace=trace)
    return perceptrons.normalized_perceptron(
        X, y, normalize=normalize, rho=rho, max_iter=max_iter, trace=trace, precision=precision
    )


@one_thread
@_with_engine(perceptrons.nkp, _RP14_ENGINE_DOC)
def nkp(G, *, max_iter: int = 100_000, trace: bool = False, precision: Optional[int] = None, engine: str = "textbook") -> Result:
    if check_engine(engine, precision) == FAST:
        return _compiled().nkp(G, max_iter=max_iter, trace=trace)
    return perceptrons.nkp(G, max_iter=max_iter, trace=trace, precision=precision)


@one_thread
@_with_engine(smoothed.snkp, _RP14_ENGINE_DOC)
def snkp(G, *, max_iter: int = 10_000, trace: bool = False, precision: Optional[int] = None, engine: str = "textbook") -> Result:
    if check_engine(engine, precision) == FAST:
        return _compiled().snkp(G, max_iter=max_iter, trace=trace)
    return smoothed.snkp(G, max_iter=max_iter, trace=trace, precision=precision)


@one_thread
@_with_engine(von_neumann.nvn, _RP14_ENGINE_DOC)
def nvn(
    G,
    epsilon=1e-3,
    *,
    max_iter: int = 100_000,
    trace: bool = False,
    precision: Optional[int] = None,
    engine: str = "textbook",
) -> Result:
    if check_engine(engine, precision) == FAST:
        return _compiled().nvn(G, epsilon, max_iter=max_iter, trace=trace)
    return von_neumann.nvn(G, epsilon, max_iter=max_iter, trace=trace, precision=precision)


@one_thread
@_with_engine(smoothed.snkpvn, _RP14_ENGINE_DOC)
def snkpvn(
    G,
    q,
    delta,
    *,
    max_iter: int = 10_000,
    trace: bool = False,
    precision: Optional[int] = None,
    engine: str = "textbook",
) -> Result:
    if check_engine(engine, precision) == FAST:
        return _compiled().snkpvn(G, q, delta, max_iter=max_iter, trace=trace)
    return smoothed.snkpvn(G, q, delta, max_iter=max_iter, trace=trace, precision=precision)


@one_thread
@_with_engine(smoothed.isnkpvn, _RP14_ENGINE_DOC)
def isnkpvn(
    G,
    gamma=2.0,
    epsilon=1e-3,
    *,
    max_iter: int = 100_000,
    trace: bool = False,
    precision: Optional[int] = None,
    engine: str = "textbook",
) -> Result:
    if check_engine(engine, precision) == FAST:
        return _compiled().isnkpvn(G, gamma, epsilon, max_iter=max_iter, trace=trace)
    return smoothed.isnkpvn(G, gamma, epsilon, max_iter=max_iter, trace=trace, precision=precision)


def _pt11(name: str, X, y, args: tuple, engine: str, progress, **keywords) -> Result:
    """PDM / PFM / PDM-succ: validated and prepared once (:func:`reference.prepare.prepare_pt11`),
    then driven by the textbook machine or run by the compiled kernel."""
    pt = prepare_pt11(name, X, y, *args, engine=engine, **keywords)
    if engine == FAST:
        if pt.trace:
            raise ValueError("trace=True is the textbook engine's for PT11 (one state per update); pass engine='textbook'")
        return _compiled().pt11(pt)
    return dynamic_margin.run(pt, progress)


@one_thread
@_with_engine(dynamic_margin.pdm, _PT11_ENGINE_DOC)
def pdm(
    X,
    y,
    epsilon: float,
    *,
    rho: Optional[float] = 1.0,
    Delta: Optional[float] = None,
    active_sets: bool = False,
    multiple_updates: bool = False,
    max_iter: int = 1_000_000,
    max_epochs: Optional[int] = None,
    seed: int = 0,
    trace: bool = False,
    precision: Optional[int] = None,
    engine: str = "textbook",
    progress: Optional[Callable[[DynamicMarginState], None]] = None,
) -> Result:
    return _pt11(
        "pdm", X, y, (epsilon,), engine, progress, rho=rho, Delta=Delta, active_sets=active_sets,
        multiple_updates=multiple_updates, max_iter=max_iter, max_epochs=max_epochs, seed=seed, trace=trace, precision=precision,
    )  # fmt: skip


@one_thread
@_with_engine(dynamic_margin.pfm, _PT11_ENGINE_DOC)
def pfm(
    X,
    y,
    beta: float,
    *,
    rho: Optional[float] = 1.0,
    Delta: Optional[float] = None,
    active_sets: bool = False,
    multiple_updates: bool = False,
    max_iter: int = 1_000_000,
    max_epochs: Optional[int] = None,
    seed: int = 0,
    trace: bool = False,
    precision: Optional[int] = None,
    engine: str = "textbook",
    progress: Optional[Callable[[DynamicMarginState], None]] = None,
) -> Result:
    return _pt11(
        "pfm", X, y, (beta,), engine, progress, rho=rho, Delta=Delta, active_sets=active_sets,
        multiple_updates=multiple_updates, max_iter=max_iter, max_epochs=max_epochs, seed=seed, trace=trace, precision=precision,
    )  # fmt: skip


@one_thread
@_with_engine(dynamic_margin.pdm_succ, _PT11_ENGINE_DOC)
def pdm_succ(
    X,
    y,
    epsilon: float,
    eta: float = 8.0,
    *,
    rho: Optional[float] = 1.0,
    Delta: Optional[float] = None,
    active_sets: bool = False,
    multiple_updates: bool = False,
    max_iter: int = 1_000_000,
    max_epochs: Optional[int] = None,
    seed: int = 0,
    trace: bool = False,
    precision: Optional[int] = None,
    engine: str = "textbook",
    progress: Optional[Callable[[DynamicMarginState], None]] = None,
) -> Result:
    return _pt11(
        "pdm_succ", X, y, (epsilon, eta), engine, progress, rho=rho, Delta=Delta, active_sets=active_sets,
        multiple_updates=multiple_updates, max_iter=max_iter, max_epochs=max_epochs, seed=seed, trace=trace, precision=precision,
    )  # fmt: skip
