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

from dataclasses import dataclass, replace
from typing import Callable, Dict, Optional, Tuple

from . import budgets, dynamic_margin, perceptrons, smoothed, von_neumann
from .blas import one_thread
from .engines import FAST, check_engine
from .prepare import prepare_pt11
from .result import CERTIFICATE, MAX_ITER, SEPARATOR, Result, with_report
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

_BUDGET_DOC = '''    max_iter : int or None, default None
        The budget on the paper's counter.  ``None``: *sized* to the problem
        (:mod:`reference.budgets`): the paper's bound for this instance times 2, within
        [1,000, 10^8], from the certified margin (computed for this, only when ``max_iter`` is
        not given); the former fixed default where no finite bound is known.  A sized run that
        stops at its budget says in ``Result.message`` how far it got and what budget would
        likely suffice.
    progress : callable, optional
        Called as ``progress(state)`` with the algorithm's state: after every step (textbook
        engine), or every ~10^5 iterations or updates (compiled engine, which runs its kernel in
        chunks and resumes it: the same steps, bit for bit).  Silent by default.
'''
_RP14_ENGINE_DOC = _BUDGET_DOC + '''    engine : {"textbook", "fast"}
        ``"fast"``: the compiled engine (:mod:`reference.fast`, needs numba), same algorithm,
        same Result (``Result.engine == "fast"``), float64 only.
'''
_PT11_ENGINE_DOC = '''    engine : {"textbook", "fast"}
        ``"fast"``: the compiled engine (:mod:`reference.fast`, needs numba): same algorithm and
        Result (``Result.engine == "fast"``), float64, no trace; ``progress`` is called at the end
        of every chunk of passes (~10^5 updates) with a state holding t, a_t, ell_t, theta_t and
        the epochs; the same implicit patterns (O(nnz + m) memory).
    max_iter : int or None, default None
        ``None``: sized to the problem (:mod:`reference.budgets`: PT11 Thm. 2 where finite, else
        Thm. 1's bound at the same accuracy, from the certified gamma_d; times 2 within
        [1,000, 10^8]); a sized run that stops at its budget says how far it got.
'''


def _drop_parameter(doc: str, name: str) -> str:
    """``doc`` without the numpy-style entry of parameter ``name`` (its line and the indented ones after it)."""
    lines, out, skipping = doc.split("\n"), [], False
    for line in lines:
        if line.startswith(f"    {name} :"):
            skipping = True
            continue
        if skipping and line.startswith("        "):
            continue
        skipping = False
        out.append(line)
    return "\n".join(out)


def _with_engine(textbook: Callable, entry: str) -> Callable[[Callable], Callable]:
    """The textbook function's docstring, with the ``max_iter``, ``progress`` and ``engine``
    parameters of the public function (``entry``) as its last ones."""

    def document(fn: Callable) -> Callable:
        doc = textbook.__doc__
        if doc:  # None under python -OO
            for name in ("max_iter", "progress"):
                if f"    {name} :" in entry:
                    doc = _drop_parameter(doc, name)
            i = doc.index("\n    Returns\n")
            fn.__doc__ = doc[:i] + entry + doc[i:]
        return fn

    return document


def _compiled():
    """The compiled engine's wrappers (imported on the first ``engine="fast"`` call)."""
    from .fast import engine

    return engine


def _sized(name: str, max_iter, trace, size: Callable) -> Tuple[object, Optional[budgets.Budget]]:
    """``(max_iter, None)`` when given; else the sized budget (:mod:`reference.budgets`) and its
    Budget.  Arguments the algorithm will refuse make the sizing fail: then the FALLBACK, and the
    algorithm raises its own error."""
    if max_iter is not None:
        return max_iter, None
    b = size()
    return b.max_iter, b


def _reported(result: Result, b: Optional[budgets.Budget], G=None) -> Result:
    """A sized run: the budget in ``info``; one that stopped at it says how far it got."""
    if b is None:
        return result
    info = {**result.info, "max_iter": b.max_iter, "budget": b.basis}
    return replace(result, message=with_report(result.message, budgets.budget_report(result, b, G)), info=info)


def _gram_size(name: str, G, *args, trace=False) -> Callable:
    return lambda: budgets.default_budget(name, G, *args, trace=trace is True)


def _primal_size(name: str, X, y, rho, normalize=True, trace=False) -> Callable:
    return lambda: budgets.default_budget(name, (X, y), rho=rho, normalize=normalize, trace=trace is True)


@one_thread
@_with_engine(perceptrons.perceptron, _RP14_ENGINE_DOC)
def perceptron(
    X,
    y,
    *,
    rule: str = "cyclic",
    rho: Optional[float] = None,
    max_iter: Optional[int] = None,
    trace: bool = False,
    precision: Optional[int] = None,
    engine: str = "textbook",
    progress: Optional[Callable] = None,
) -> Result:
    fast = check_engine(engine, precision) == FAST
    max_iter, b = _sized("perceptron", max_iter, trace, _primal_size("perceptron", X, y, rho, trace=trace))
    if fast:
        r = _compiled().perceptron(X, y, rule=rule, rho=rho, max_iter=max_iter, trace=trace, progress=progress)
    else:
        r = perceptrons.perceptron(X, y, rule=rule, rho=rho, max_iter=max_iter, trace=trace, precision=precision, progress=progress)
    return _reported(r, b)


@one_thread
@_with_engine(perceptrons.normalized_perceptron, _RP14_ENGINE_DOC)
def normalized_perceptron(
    X,
    y,
    *,
    normalize: bool = True,
    rho: Optional[float] = None,
    max_iter: Optional[int] = None,
    trace: bool = False,
    precision: Optional[int] = None,
    engine: str = "textbook",
    progress: Optional[Callable] = None,
) -> Result:
    fast = check_engine(engine, precision) == FAST
    max_iter, b = _sized("normalized_perceptron", max_iter, trace,
                         _primal_size("normalized_perceptron", X, y, rho, normalize is not False, trace))
    if fast:
        r = _compiled().normalized_perceptron(X, y, normalize=normalize, rho=rho, max_iter=max_iter, trace=trace, progress=progress)
    else:
        r = perceptrons.normalized_perceptron(
            X, y, normalize=normalize, rho=rho, max_iter=max_iter, trace=trace, precision=precision, progress=progress
        )
    return _reported(r, b)


@one_thread
@_with_engine(perceptrons.nkp, _RP14_ENGINE_DOC)
def nkp(G, *, max_iter: Optional[int] = None, trace: bool = False, precision: Optional[int] = None, engine: str = "textbook",
        progress: Optional[Callable] = None) -> Result:
    fast = check_engine(engine, precision) == FAST
    max_iter, b = _sized("nkp", max_iter, trace, _gram_size("nkp", G, trace=trace))
    if fast:
        r = _compiled().nkp(G, max_iter=max_iter, trace=trace, progress=progress)
    else:
        r = perceptrons.nkp(G, max_iter=max_iter, trace=trace, precision=precision, progress=progress)
    return _reported(r, b, G)


@one_thread
@_with_engine(smoothed.snkp, _RP14_ENGINE_DOC)
def snkp(G, *, max_iter: Optional[int] = None, trace: bool = False, precision: Optional[int] = None, engine: str = "textbook",
         progress: Optional[Callable] = None) -> Result:
    fast = check_engine(engine, precision) == FAST
    max_iter, b = _sized("snkp", max_iter, trace, _gram_size("snkp", G, trace=trace))
    if fast:
        r = _compiled().snkp(G, max_iter=max_iter, trace=trace, progress=progress)
    else:
        r = smoothed.snkp(G, max_iter=max_iter, trace=trace, precision=precision, progress=progress)
    return _reported(r, b, G)


@one_thread
@_with_engine(von_neumann.nvn, _RP14_ENGINE_DOC)
def nvn(
    G,
    epsilon=1e-3,
    *,
    max_iter: Optional[int] = None,
    trace: bool = False,
    precision: Optional[int] = None,
    engine: str = "textbook",
    progress: Optional[Callable] = None,
) -> Result:
    fast = check_engine(engine, precision) == FAST
    budgets.check_certifiable("epsilon", epsilon, G, precision)
    max_iter, b = _sized("nvn", max_iter, trace, _gram_size("nvn", G, epsilon, trace=trace))
    if fast:
        r = _compiled().nvn(G, epsilon, max_iter=max_iter, trace=trace, progress=progress)
    else:
        r = von_neumann.nvn(G, epsilon, max_iter=max_iter, trace=trace, precision=precision, progress=progress)
    return _reported(r, b, G)


@one_thread
@_with_engine(smoothed.snkpvn, _RP14_ENGINE_DOC)
def snkpvn(
    G,
    q,
    delta,
    *,
    max_iter: Optional[int] = None,
    trace: bool = False,
    precision: Optional[int] = None,
    engine: str = "textbook",
    progress: Optional[Callable] = None,
) -> Result:
    fast = check_engine(engine, precision) == FAST
    budgets.check_certifiable("delta", delta, G, precision)
    max_iter, b = _sized("snkpvn", max_iter, trace, _gram_size("snkpvn", G, q, delta, trace=trace))
    if fast:
        r = _compiled().snkpvn(G, q, delta, max_iter=max_iter, trace=trace, progress=progress)
    else:
        r = smoothed.snkpvn(G, q, delta, max_iter=max_iter, trace=trace, precision=precision, progress=progress)
    return _reported(r, b, G)


@one_thread
@_with_engine(smoothed.isnkpvn, _RP14_ENGINE_DOC)
def isnkpvn(
    G,
    gamma=2.0,
    epsilon=1e-3,
    *,
    max_iter: Optional[int] = None,
    trace: bool = False,
    precision: Optional[int] = None,
    engine: str = "textbook",
    progress: Optional[Callable] = None,
) -> Result:
    fast = check_engine(engine, precision) == FAST
    budgets.check_certifiable("epsilon", epsilon, G, precision)
    max_iter, b = _sized("isnkpvn", max_iter, trace, _gram_size("isnkpvn", G, gamma, epsilon, trace=trace))
    if fast:
        r = _compiled().isnkpvn(G, gamma, epsilon, max_iter=max_iter, trace=trace, progress=progress)
    else:
        r = smoothed.isnkpvn(G, gamma, epsilon, max_iter=max_iter, trace=trace, precision=precision, progress=progress)
    return _reported(r, b, G)


def _pt11(name: str, X, y, args: tuple, engine: str, progress, max_iter, **keywords) -> Result:
    """PDM / PFM / PDM-succ: validated and prepared once (:func:`reference.prepare.prepare_pt11`),
    then driven by the textbook machine or run by the compiled kernel; ``max_iter=None``: sized
    (:func:`reference.budgets.pt11_budget`) from the certified gamma_d of the validated data."""
    pt = prepare_pt11(name, X, y, *args, engine=engine, max_iter=budgets.FALLBACK[name] if max_iter is None else max_iter, **keywords)
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a callable progress(state) or None, got {progress!r}")
    b = None
    if max_iter is None:
        _, b = _sized(name, None, pt.trace, lambda: budgets.default_budget(
            name, (X, y), *args, rho=keywords["rho"], Delta=keywords["Delta"], trace=pt.trace))
        pt = replace(pt, max_iter=b.max_iter)
    if engine == FAST:
        if pt.trace:
            raise ValueError("trace=True is the textbook engine's for PT11 (one state per update); pass engine='textbook'")
        return _reported(_compiled().pt11(pt, progress), b)
    return _reported(dynamic_margin.run(pt, progress), b)


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
    max_iter: Optional[int] = None,
    max_epochs: Optional[int] = None,
    seed: int = 0,
    trace: bool = False,
    precision: Optional[int] = None,
    engine: str = "textbook",
    progress: Optional[Callable[[DynamicMarginState], None]] = None,
) -> Result:
    return _pt11(
        "pdm", X, y, (epsilon,), engine, progress, max_iter, rho=rho, Delta=Delta, active_sets=active_sets,
        multiple_updates=multiple_updates, max_epochs=max_epochs, seed=seed, trace=trace, precision=precision,
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
    max_iter: Optional[int] = None,
    max_epochs: Optional[int] = None,
    seed: int = 0,
    trace: bool = False,
    precision: Optional[int] = None,
    engine: str = "textbook",
    progress: Optional[Callable[[DynamicMarginState], None]] = None,
) -> Result:
    return _pt11(
        "pfm", X, y, (beta,), engine, progress, max_iter, rho=rho, Delta=Delta, active_sets=active_sets,
        multiple_updates=multiple_updates, max_epochs=max_epochs, seed=seed, trace=trace, precision=precision,
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
    max_iter: Optional[int] = None,
    max_epochs: Optional[int] = None,
    seed: int = 0,
    trace: bool = False,
    precision: Optional[int] = None,
    engine: str = "textbook",
    progress: Optional[Callable[[DynamicMarginState], None]] = None,
) -> Result:
    return _pt11(
        "pdm_succ", X, y, (epsilon, eta), engine, progress, max_iter, rho=rho, Delta=Delta, active_sets=active_sets,
        multiple_updates=multiple_updates, max_epochs=max_epochs, seed=seed, trace=trace, precision=precision,
    )  # fmt: skip
