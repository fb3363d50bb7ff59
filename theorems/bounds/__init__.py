"""``margins bounds``: how tight are the papers' bounds?  Sweeps, a targeted search, and the worst
instance written out as a replayable case file.

A *target* is a bound to explore:

* every algorithm's iteration bound (``perceptron``, ``normalized_perceptron``, ``nkp``, ``snkp``,
  ``nvn``, ``snkpvn``, ``snkpvn.printed``, ``isnkpvn``, ``isnkpvn.outer``, ``pfm``, ``pdm``,
  ``pdm_succ``): the algorithm is run and its counter compared with the formula of
  :mod:`theorems.paper_bounds` (the one place for the formulas);
* every registered statement of kind ``bound`` / ``empirical`` (``RP14.theorem1``,
  ``RP14.lemma7.printed``, ``PT11.theorem2``, ...): its check is run and the Verdict's
  ``lhs`` / ``rhs`` / ``slack`` are the observed quantity, the bound and the ratio.

For every instance a row: the observed quantity, the bound, **ratio = observed / bound** (<= 1 when
the bound holds), and the instance's parameters (n, d, kernel, margin or delta_max, R).

Margins.  Planted families use the value known by construction (exact); all other instances the
certified interval of :func:`reference.margin`, at the end that makes the bound *largest* (the
lower end of rho for 1/rho-type bounds, the smaller |rho_K| for infeasible ones).  So a ratio > 1
for an algorithm target is a certain refutation of the formula on that instance, not round-off of
the margin.  (Registered checks apply their own convention, documented in :mod:`theorems.rp14` and
:mod:`theorems.pt11`.)

Design for parallel and distributed runs.  A sweep is a list of *tasks*, each a small JSON-able
dict ``{"target", "spec", "args", "opts"}`` (the spec names a family of :mod:`theorems.instances.families`
and its parameters, or carries explicit data); :func:`evaluate_task` is a pure, top-level function
of the task, so it pickles and runs anywhere.  :func:`run_tasks` hands the tasks to any
``concurrent.futures.Executor`` (``--jobs J``: a local ``ProcessPoolExecutor``; a dask
``Client.get_executor()`` or any object with ``submit`` works the same) and returns the rows in
task order, so the output does not depend on the executor or the number of workers.

The search (``--search``) is a seeded, batched hill climb over specs: it starts from the best
sweep rows, and each round evaluates a fixed number of mutations (family parameters, algorithm
arguments, or -- after turning the instance into explicit data -- moving, flipping, duplicating or
dropping points) and keeps the best.  Batches have a fixed size, so the result is the same for
every ``--jobs``.

The explorer is a package with one module per room: :mod:`.targets` (what is explored),
:mod:`.tasks` (one task -> one row; executors), :mod:`.sweep` (the grids and the driver
:func:`explore`), :mod:`.search`, :mod:`.outputs` (CSV, JSON, PNG, case files) and :mod:`.cli`.
This file only re-exports the public face.  (``bounds.search`` is the search function; the module
is ``theorems.bounds.search`` for ``from ... import``.)
"""

from . import targets as _targets  # the module (its targets() function is not re-exported)
from .cli import main
from .outputs import (
    CSV_COLUMNS,
    PLOT_MISSING,
    SCHEMA_VERSION,
    load_case,
    replay_case,
    validate_case,
    write_case,
    write_csv,
    write_json,
    write_plot,
    write_validate_case,
)
from .search import beaten, search
from .sweep import explore, sweep_tasks
from .targets import Target, get_target, target_ids
from .tasks import evaluate_task, run_tasks


def __getattr__(name: str):
    if name == "TARGETS":  # {id: Target}, built on first use (it loads the registered checks)
        return _targets.targets()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "SCHEMA_VERSION",
    "CSV_COLUMNS",
    "Target",
    "TARGETS",
    "target_ids",
    "get_target",
    "evaluate_task",
    "sweep_tasks",
    "run_tasks",
    "search",
    "beaten",
    "write_csv",
    "write_json",
    "write_plot",
    "write_case",
    "load_case",
    "replay_case",
    "validate_case",
    "write_validate_case",
    "explore",
    "main",
    "PLOT_MISSING",
]
