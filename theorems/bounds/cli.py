"""``margins bounds`` (:mod:`theorems.cli` adds the subparser and dispatches here).
"""

from __future__ import annotations

import sys
from typing import Optional, Sequence

from ..instances.families import FAMILIES
from .sweep import _select, explore
from .targets import MAX_RUN, get_target
from .tasks import open_executor


def add_arguments(p) -> None:
    p.add_argument("target", help="an algorithm (snkp, nvn, pdm, ...), a check id (RP14.theorem1, RP14.lemma7.printed, "
                                   "...), a prefix (RP14.), or a group: all, algorithms, checks")
    p.add_argument("--family", action="append", default=None,
                   help=f"instance family (repeatable); default: the target's. One of {', '.join(sorted(FAMILIES))}")
    p.add_argument("--n", type=int, nargs="+", default=None, help="numbers of points (override the family grid)")
    p.add_argument("--d", type=int, nargs="+", default=None, help="dimensions (override the family grid)")
    p.add_argument("--margin", type=float, nargs="+", default=None,
                   help="planted margins rho / delta_max (or the kernel families' gap / noise)")
    p.add_argument("--seeds", type=int, default=2, help="instances per grid point (default 2)")
    p.add_argument("--seed", type=int, default=0, help="base seed of the instances and of the search (default 0)")
    p.add_argument("--eps", type=float, default=None, metavar="ACC",
                   help="the accuracy argument, one value for every run: RP14's epsilon (nvn, isnkpvn) and delta "
                        "(snkpvn), PT11's eps (pfm, pdm, pdm_succ) (default: each target's grid)")
    p.add_argument("--search", action="store_true", help="after the sweep, search for the instance maximizing observed/bound")
    p.add_argument("--budget", type=int, default=60, help="evaluations of the search (default 60; --quick: at most 24)")
    p.add_argument("--out", default=None, help="directory for the CSV, JSON, PNG and case files (default: none, print the tables only)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--executor", default=None, metavar="dask://HOST:PORT",
                   help="evaluate the tasks on a running dask scheduler (pip install 'perceptron-margins[distributed]'); "
                        "the outputs are those of --jobs 1, byte for byte")
    p.add_argument("--max-iter", type=int, default=None, help=f"largest iteration budget of one run (default {MAX_RUN})")
    p.add_argument("--quick", action="store_true", help="one seed, the first grid point per family, a search budget <= 24")
    p.add_argument("--no-plot", action="store_true", help="do not write the PNG")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def _eps_override(tids: Sequence[str], eps: Optional[float]) -> Optional[dict]:
    if eps is None:
        return None
    keys = set()
    for t in tids:
        tgt = get_target(t)
        for a in tgt.arg_grid:
            keys |= {k for k in a if k in ("epsilon", "delta", "eps")}
    return {k: eps for k in keys} or None


def main(args, argv: Optional[Sequence[str]] = None) -> int:
    tids = _select(args.target)
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "bounds":
        argv = sys.argv[1:]
    cmd = "margins " + " ".join(argv) if argv else ""
    override = _eps_override(tids, args.eps)
    with open_executor(args.executor) as executor:
        explore(args.target, families=args.family, ns=args.n, margins=args.margin, ds=args.d, seeds=args.seeds,
                seed=args.seed, do_search=args.search or args.quick, budget=args.budget, out=args.out, jobs=args.jobs,
                quick=args.quick, executor=executor, args_override=override, max_iter=args.max_iter,
                plot=not args.no_plot, command=cmd, progress=not args.no_progress)
    return 0
