"""``margins validate`` and ``margins export-cases`` (dispatched from :mod:`theorems.cli`).
"""

from __future__ import annotations

from typing import List

from ..cli_common import Progress, add_max_bytes
from ..text import json_text
from .call import load_callable
from .case import ALGORITHMS
from .files import export_cases, validate_answers, validate_trace
from .report import Report
from .run import validate
from .schema import read_json, SCHEMA_VERSION


def add_arguments(sub) -> None:
    """Register ``validate`` and ``export-cases`` on the CLI's subparsers."""
    v = sub.add_parser("validate", help="check an implementation (Python callable, or answers/traces written by any program) against the reference")
    v.add_argument("algorithm", nargs="?", choices=ALGORITHMS, help="reference function name")
    v.add_argument("callable", nargs="?", help="MODULE:CALLABLE or path/to/file.py:CALLABLE")
    v.add_argument("--kwargs", help="JSON object of algorithm options (active_sets, multiple_updates, ...) bound into "
                                                  "the callable and given to the reference wherever trajectories are compared")
    v.add_argument("--answers", help="an answers document (see theorems/validate/case_schema.json)")
    v.add_argument("--trace", help="a trace document (see theorems/validate/case_schema.json)")
    v.add_argument("--cases", help="corpus directory written by export-cases or by `margins bounds --search` "
                                                 "(default: regenerate the fixed corpus); with MODULE:CALLABLE, run exactly "
                                                 "its cases of ALGORITHM (add --budget N for hypothesis examples too)")
    v.add_argument("--budget", type=int, help="hypothesis examples beyond the cases (default 20; 0 with --cases)")
    v.add_argument("--strict", action="store_true", help="also require step-by-step agreement with the reference, run with the "
                                                         "same algorithm options (--kwargs) (layer 3)")
    v.add_argument("--deep", action="store_true", help="add the deep tier: one long PT11 run (eps = 0.01, ~2e5 updates) and one "
                                                       "long RP14 run (SNKP ~3e4 iterations), each under a minute")
    v.add_argument("--seed", type=int, default=0, help="seed of the hypothesis search (default 0): the same seed and budget give "
                                                       "the same verdict on every run, in every directory")
    v.add_argument("--database", metavar="DIR", help="keep hypothesis' example database in DIR (failing examples "
                                                                   "are replayed first next time); default: none, nothing written")
    v.add_argument("--skip-flags", default="", metavar="FLAGS", help="comma-separated edge-case classes not to run or require "
                                                                      "(e.g. n1 for an implementation that refuses one-point data)")
    v.add_argument("--subset", action="store_true", help="with --answers: check only the cases answered (default: a corpus "
                                                         "case without an answer fails)")
    v.add_argument("--json", action="store_true", help="print the report as JSON (the checks, each case's verdict and the failures) instead of text")
    g = v.add_argument_group("validation on a data set (PT11 algorithms; layers 1-2 with the certified margin)")
    g.add_argument("--data", help="LIBSVM file (.gz ok): run the implementation on the whole data set")
    g.add_argument("--n-features", type=int, help="number of features of the LIBSVM file")
    add_max_bytes(g)
    g.add_argument("--rho", type=lambda t: None if t.lower() == "none" else float(t), default=1.0,
                   help="augmentation (default 1.0; 'none' for no bias)")
    g.add_argument("--Delta", type=float, help="extended space of PT11 Sec. 5")
    g.add_argument("--epsilon", type=float, nargs="+", default=[0.1], help="accuracies (beta values for pfm) to run")
    g.add_argument("--max-iter", type=int, help="budget handed to the implementation")
    g.add_argument("--data-answers",
                   help="answers computed elsewhere on a data file named by file name and sha256 (kind 'data-answers')")
    g.add_argument("--data-dir", help="where to look for the data file of --data-answers")
    e = sub.add_parser("export-cases", help="write the validation corpus (JSON, schema_version 1) for implementations in any language")
    e.add_argument("directory", help="folder to write into (created if missing): one JSON file of cases per algorithm, and case_schema.json")
    e.add_argument("--algorithms", nargs="*", choices=ALGORITHMS, metavar="ALGORITHM",
                   help="the algorithms whose cases to write (default: all ten)")


def cmd_validate(args) -> int:
    import json

    reports: List[Report] = []
    skip = tuple(f.strip() for f in args.skip_flags.split(",") if f.strip())
    if args.data_answers:
        from .data import validate_data_answers

        reports = list(validate_data_answers(args.data_answers, args.data_dir))
    elif args.data:
        import reference

        if not args.algorithm or not args.callable:
            raise ValueError("pass ALGORITHM MODULE:CALLABLE with --data FILE")
        X, y = reference.load_libsvm(args.data, n_features=args.n_features, max_bytes=args.max_bytes)
        impl = load_callable(args.callable)
        kwargs = json.loads(args.kwargs) if args.kwargs else {}
        if not args.json:
            _announce_data_run(args, impl, kwargs, X.shape[0])
        if kwargs:
            import functools

            impl = functools.partial(impl, **kwargs)
        reports.append(validate(args.algorithm, impl, data=(X, y), rho=args.rho, Delta=args.Delta,
                                epsilons=args.epsilon, max_iter=args.max_iter))
    elif args.answers or args.trace:
        if args.algorithm or args.callable:  # they would be ignored: the files are the claims
            given = " ".join(a for a in (args.algorithm, args.callable) if a)
            raise ValueError(f"--answers / --trace check answers written elsewhere and run nothing: drop {given!r}, "
                             "or drop --answers / --trace to run ALGORITHM MODULE:CALLABLE")
        if args.answers:
            reports = list(validate_answers(args.answers, args.cases, strict=args.strict, subset=args.subset, skip_flags=skip))
        if args.trace:
            reports += validate_trace(args.trace, args.cases)
    else:
        if not args.algorithm or not args.callable:
            raise ValueError("pass ALGORITHM MODULE:CALLABLE, or --answers FILE / --trace FILE")
        impl = load_callable(args.callable)
        if args.kwargs:
            import functools

            impl = functools.partial(impl, **json.loads(args.kwargs))
        budget = args.budget if args.budget is not None else (0 if args.cases else 20)
        reports.append(validate(args.algorithm, impl, budget=budget, strict=args.strict, seed=args.seed, cases_dir=args.cases,
                                skip_flags=skip, database=args.database, deep=args.deep))
    if args.json:
        print(json_text([r.as_dict() for r in reports], indent=1))
    else:
        for r in reports:
            print(r.format() if not r.conforms else r.summary())
    return 0 if reports and all(r.conforms for r in reports) else 1


def _announce_data_run(args, impl, kwargs: dict, m: int) -> None:
    """``margins validate ... --data``: say on stderr what runs and that it can take minutes; the
    reference's own textbook function also reports its progress (the one printer of ``margins run``,
    added to ``kwargs``)."""
    import sys

    import reference

    textbook = impl is getattr(reference, args.algorithm) and kwargs.get("engine", "textbook") == "textbook"
    accuracy = "beta" if args.algorithm == "pfm" else "epsilon"
    print(f"margins validate: certifying gamma_d of the {m} patterns, then calling {args.callable}(X, y, {accuracy}, "
          f"rho={args.rho}, Delta={args.Delta}, ...) for {accuracy} in {args.epsilon}; on large data this can take minutes"
          + (" (the textbook engine; --kwargs '{\"engine\": \"fast\"}' runs the compiled one, much faster); "
             "progress every 5 s" if textbook else ""),
          file=sys.stderr)  # fmt: skip (stderr is line-buffered: the line is out before the run starts)
    if textbook:
        kwargs["progress"] = Progress(args.algorithm)


def cmd_export_cases(args) -> int:
    paths = export_cases(args.directory, args.algorithms)
    n = sum(len(read_json(p)["cases"]) for p in paths if p.name != "case_schema.json")
    print(f"wrote {n} cases in {len(paths) - 1} files and case_schema.json to {args.directory} (schema_version {SCHEMA_VERSION})")
    return 0
