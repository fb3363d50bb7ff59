"""The ``margins`` console script.

    margins demo                      every algorithm on a small built-in suite, one table
    margins run ALGORITHM --data FILE run one algorithm on a LIBSVM or .npz file
    margins margin --data FILE        the certified max margin of a data set (at scale)
    margins check [--json]            every registered theorem check on the built-in suite
    margins bounds TARGET [...]       how tight is a bound: sweep, search, worst case (theorems.bounds)
    margins validate ALGORITHM MODULE:CALLABLE | --answers FILE | --trace FILE [--cases DIR]   check an implementation
    margins export-cases DIR          the validation corpus (JSON) for implementations in any language
    margins soak [--minutes N] [--runs N] [--seed S]   adversarial instances, every claim re-checked exactly
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from typing import List, Optional, Sequence, Tuple

import numpy as np

import reference
from reference.arithmetic import scale_rows_pow2
from reference.algorithms import SPECS

from .cli_common import Progress, add_max_bytes, positive_int
from .registry import REGISTRY
from .text import fields, fmt, json_text, table

__all__ = ["main"]


# -- demo -------------------------------------------------------------------------------------------


def cmd_demo(args) -> int:
    from .demo import MARGINS, run_demo

    t0 = time.perf_counter()
    rows, ok = run_demo()
    headers = ["algorithm", "instance", "status", "iterations", "paper bound", "certified margin", "verified"]
    print(table(headers, [[r[h] for h in headers] for r in rows]))
    shown = {r["certified margin"].split()[0] for r in rows}
    print("\ncertified margin: which margin the interval [lower, upper] is, certified by reference.margin:")
    print(fields([(k, v) for k, v in MARGINS.items() if k in shown]))
    print(f"\n{len(rows)} runs in {time.perf_counter() - t0:.1f} s; "
          + ("every claim verified." if ok else "SOME CLAIM FAILED VERIFICATION."))
    return 0 if ok else 1


# -- run --------------------------------------------------------------------------------------------


def _load(path: str, n_features: Optional[int] = None, max_bytes=reference.data.MAX_LIBSVM_BYTES, labels: Optional[str] = None):
    """``(X, y)`` from ``path`` by :func:`reference.load_data` (the reader chosen by the file's name)."""
    return reference.load_data(path, labels=labels, n_features=n_features, max_bytes=max_bytes)


def _load_data(args):
    """The data of ``--data`` with ``--n-features``, ``--max-bytes``, ``--limit`` and ``--drop-zero-rows`` applied."""
    X, y = _load(args.data, getattr(args, "n_features", None), getattr(args, "max_bytes", reference.data.MAX_LIBSVM_BYTES), getattr(args, "labels", None))
    if getattr(args, "limit", None) is not None:
        X, y = X[: args.limit], y[: args.limit]
    if getattr(args, "drop_zero_rows", False):
        from reference.data import drop_zero_rows

        n0 = X.shape[0]
        X, y, kept = drop_zero_rows(X, y)
        print(f"--drop-zero-rows: dropped {n0 - kept.size} of {n0} points", file=sys.stderr)
    return X, y


DEFAULT_ACCURACY = 1e-3  # margins run: epsilon of NVN / ISNKPVN and delta of SNKPVN when not given


def _accuracy(value: Optional[float]) -> float:
    return DEFAULT_ACCURACY if value is None else value


#: What the statuses mean, printed by ``margins run`` under the result (``max_iter``: :func:`_meaning`).
STATUS_NOTES = {
    "separator": "a verified separator: every point has a strictly positive margin (beyond round-off)",
    "certificate": ("a verified point p of the simplex with ||p||_G below the accuracy asked for: the margin is "
                    "below that accuracy (RP14 Lemma 3); the data may still be separable with a smaller margin"),
    "max_iter": "the budget ran out (or a claim failed verification; see message): no claim",
}

#: The algorithms that can only stop with a separator.
_SEPARATOR_ONLY = {name for name, spec in SPECS.items() if "certificate" not in spec.statuses}


def _meaning(name: str, status: str, certified) -> str:
    """The ``meaning:`` line: the status note, and for ``max_iter`` what the certified margin beside
    it says about it (``certified``: a DataMargin, an error text, or None)."""
    note = STATUS_NOTES[status]
    if status != "max_iter":
        return note
    m = _certified_margin(certified)
    lower, upper, separable = (None, None, None) if m is None else (m.lower, m.upper, m.separable)
    if lower is not None and lower > 0:
        return note + (". The data are separable (certified margin > 0, below): a larger budget gives a "
                       "separator -- see 'how far' for one that would likely suffice")
    if separable is False or (upper is not None and upper <= 0):
        if name in _SEPARATOR_ONLY:
            return note + (". The data are certified NOT separable (below): no budget gives this algorithm a "
                           "claim; a von Neumann algorithm (nvn, isnkpvn) returns a certificate")
        return note + ". The data are certified NOT separable (below): a larger budget gives a certificate"
    return note + ". The margin is not certified either way: see 'how far'"


def _certified_margin(certified):
    """The DataMargin, or None (not computed, or the error text of a margin that could not be)."""
    return None if certified is None or isinstance(certified, str) else certified


def _default_budget(args, name, X, y, G, certified):
    """``(max_iter, Budget or None)``: ``--max-iter``, or the default of the Python function
    (:func:`reference.budgets.default_budget`, the same sizing; PT11 reuses the certified margin)."""
    if args.max_iter is not None:
        return args.max_iter, None
    from reference import budgets

    spec = SPECS[name]
    if spec.data == "patterns":
        first = {"pfm": args.beta, "pdm": args.epsilon, "pdm_succ": args.epsilon}[name]
        margin = _certified_margin(certified)
        b = budgets.default_budget(name, (X, y), first, margin=margin, rho=1.0 if args.rho is None else args.rho, Delta=args.Delta)
    elif spec.data == "primal":
        b = budgets.default_budget(name, (X, y), rho=args.rho)
    else:
        b = budgets.default_budget(name, G, *_gram_args(args, name, X.shape[0]))
    return b.max_iter, b


def _gram_args(args, name, n):
    """The positional arguments after G of a Gram algorithm, as ``margins run`` passes them."""
    if name == "nvn":
        return (_accuracy(args.epsilon),)
    if name == "snkpvn":
        return (np.full(n, 1.0 / n), _accuracy(args.delta))
    if name == "isnkpvn":
        return (args.gamma, _accuracy(args.epsilon))
    return ()


def _margins_for_run(args, name, X, y, res, G=None, pt11_certified=None):
    """(achieved margin of the returned vector, certified DataMargin or None, or the one-line reason
    why it could not be computed); certified for the linear kernel only (PT11: ``pt11_certified``,
    computed before the run, when given)."""
    if G is not None and res.alpha is not None:  # Gram algorithms: min_i (G alpha)_i / ||alpha||_G
        a = np.asarray(res.alpha, dtype=np.float64)
        Ga = G.matvec(a) if hasattr(G, "matvec") else np.asarray(G, dtype=np.float64) @ a  # (the operator G = Z Z^T)
        q = float(a @ Ga)
        achieved_g = float(np.min(Ga)) / q**0.5 if q > 0 else None
    else:
        achieved_g = None
    if args.kernel != "linear":
        return achieved_g, None
    pt11 = SPECS[name].data == "patterns"
    rho = (1.0 if args.rho is None else args.rho) if pt11 else args.rho
    Delta = args.Delta if pt11 else None
    normalize = name != "perceptron" and not pt11
    achieved = achieved_g
    if res.w is not None:
        P = reference.make_patterns(X, y, rho=rho, Delta=Delta)
        w = np.asarray(res.w, dtype=np.float64)
        marg = P.matvec(w)
        if normalize:  # rows times powers of two first (exact): ||z_k||^2 overflowed past 1.3e154 (rho = 1e300 gave 0)
            Zs = scale_rows_pow2(P.Z())
            marg = (Zs @ w) / np.sqrt(Zs.multiply(Zs).sum(axis=1).A1)
        nw = float(np.sqrt(w @ w))
        achieved = float(np.min(marg)) / nw if nw > 0 else None
    if pt11 and pt11_certified is not None:
        return achieved, pt11_certified
    try:
        certified = reference.margin_from_data(X, y, rho=rho, Delta=Delta, normalize=normalize)
    except ValueError as exc:  # e.g. Delta past float64's squares: the run's own result still stands
        certified = str(exc).splitlines()[0]
    return achieved, certified


def _pt11_certified(args, name, X, y):
    """The certified gamma_d of a PT11 run's patterns (linear kernel, not --no-certify; else None),
    computed before the run: the default budget is sized from it and it is printed beside the result."""
    if args.no_certify and args.max_iter is not None:
        return None
    try:
        return reference.margin_from_data(X, y, rho=1.0 if args.rho is None else args.rho, Delta=args.Delta)
    except ValueError as exc:
        return str(exc).splitlines()[0]


def cmd_run(args) -> int:
    name = args.algorithm
    X, y = _load_data(args)
    t_start = time.perf_counter()
    fn = getattr(reference, name)
    kw = {"precision": args.precision, "engine": args.engine}
    kernel_params = {}
    if args.kernel == "polynomial":
        kernel_params = {"degree": args.degree, "c": args.c}
    elif args.kernel == "gaussian":
        kernel_params = {"sigma": args.sigma}
    G, pt11_certified = None, None
    spec = SPECS[name]
    if spec.data == "patterns":
        first = {"pfm": args.beta, "pdm": args.epsilon, "pdm_succ": args.epsilon}[name]
        if first is None:
            flag = "--beta" if name == "pfm" else "--epsilon"
            raise ValueError(f"{name} needs {flag}: pass e.g. {flag} 0.01")
        pt11_certified = _pt11_certified(args, name, X, y)
    elif spec.data == "gram":
        if args.engine == "fast" and args.kernel == "linear":  # G = Z Z^T as an operator: no n x n matrix
            from reference.fast.operator import linear_gram

            G = linear_gram(X, y, rho=args.rho)
        else:
            G = reference.gram(X, y, args.kernel, rho=args.rho, **kernel_params)
    max_iter, budget = _default_budget(args, name, X, y, G, pt11_certified)
    kw["max_iter"] = max_iter
    if not args.json and not args.quiet:  # progress on stderr, both engines
        kw["progress"] = Progress(name, max_iter=max_iter)
    if spec.data == "primal":
        res = fn(X, y, rho=args.rho, **kw)
    elif spec.data == "patterns":
        kw.update(rho=1.0 if args.rho is None else args.rho, Delta=args.Delta, max_epochs=args.max_epochs,
                  active_sets=args.active_sets, multiple_updates=args.multiple_updates)
        res = fn(X, y, first, **kw)
    else:
        res = fn(G, *_gram_args(args, name, X.shape[0]), **kw)
    seconds = time.perf_counter() - t_start
    d = res.as_dict()
    d["seconds"] = seconds
    d["max_iter"] = max_iter
    d["budget"] = budget.describe() if budget is not None else "given (--max-iter)"
    if args.no_certify:
        achieved, certified = None, None
    else:
        achieved, certified = _margins_for_run(args, name, X, y, res, G, pt11_certified)
    from reference.budgets import budget_report

    lower = None if _certified_margin(certified) is None else certified.lower
    how_far = budget_report(res, budget, G, lower if spec.data == "patterns" else None)
    d["how_far"] = how_far or None
    d["achieved_margin"] = achieved
    if isinstance(certified, str):
        d["certified_margin"] = {"error": certified}
    else:
        d["certified_margin"] = None if certified is None else {"lower": certified.lower, "upper": certified.upper,
                                                                "method": certified.method}
    if args.json:
        print(json_text(d))
    else:
        rows = [(k, d[k]) for k in ("algorithm", "status", "iterations", "precision", "engine", "message")]
        rows.append(("budget", f"{max_iter:,} ({d['budget']})"))
        rows += [("meaning", _meaning(name, res.status, certified))]
        if how_far:
            rows.append(("how far", how_far))
        rows.append(("time", f"{seconds:.2f} s"))
        if achieved is not None:
            rows.append(("achieved", f"margin {achieved:.10g} of the returned vector (min_k w.y_k/||w||)"))
        if isinstance(certified, str):
            rows.append(("certified", f"not computed: {certified}"))
        elif certified is not None:
            what = "gamma_d" if SPECS[name].data == "patterns" else ("rho" if name == "perceptron" else "rho_K = rho_2")
            rows.append(("certified", f"{certified.lower!r} <= {what} <= {certified.upper!r}"
                         + (f"  (achieved / certified = {achieved / certified.upper:.6g})" if achieved is not None and certified.upper > 0 else "")))
        for k in ("alpha", "w", "p"):
            if d[k] is not None:
                v = d[k]
                shown = ", ".join(f"{x:.4g}" for x in v[:8]) + (", ..." if len(v) > 8 else "")
                rows.append((k, f"[{shown}] (length {len(v)})"))
        rows += [(k, v) for k, v in d["info"].items() if not isinstance(v, list)]
        print(fields(rows))
    return 0


# -- margin -----------------------------------------------------------------------------------------


def _optional_float(text: str) -> Optional[float]:
    """A float, or ``none`` for None (e.g. ``--rho none``: no augmentation)."""
    return None if text.lower() == "none" else float(text)


def cmd_margin(args) -> int:
    X, y = _load_data(args)
    M = reference.margin_from_data(X, y, rho=args.rho, Delta=args.Delta, normalize=args.normalize)
    d = M.as_dict()
    if args.json:
        print(json_text(d))
        return 0
    verdict = {True: "separable (certified: lower > 0)", False: "NOT separable (certified exactly: Gordan)", None: "undecided"}
    rows = [
        ("data", f"{args.data}: m = {M.m} points, d = {M.d} features, nnz = {M.nnz}, R = {fmt(M.R, 6)}"),
        ("patterns", f"rho = {M.rho}, Delta = {M.Delta}, normalize = {M.normalize}"),
        ("margin", f"{M.lower!r} <= gamma <= {M.upper!r}"),
        ("width", f"relative {fmt(M.relative_width, 3)}"),
        ("verdict", verdict[M.separable]),
        ("method", M.method),
        ("time", f"{M.seconds:.2f} s"),
    ]
    print(fields(rows))
    return 0


# -- check ------------------------------------------------------------------------------------------


def _rank(v) -> float:
    """A verdict's tightness for ordering (no ratio: last)."""
    r, _why = v.tightness()
    return r if r is not None and not math.isnan(r) else -math.inf


def _worst_per_id(verdicts):
    """For each id, the verdict that matters most: the first failing one, else the tightest (largest
    ratio of its sides; a row without a ratio only when no row has one)."""
    worst, count = {}, {}
    for v in verdicts:
        count[v.id] = count.get(v.id, 0) + 1
        w = worst.get(v.id)
        if w is None or (w.holds and not v.holds):
            worst[v.id] = v
        elif w.holds == v.holds and w.holds and _rank(v) > _rank(w):
            worst[v.id] = v
    return [(worst[i], count[i]) for i in sorted(worst)]


#: What ``n/a`` in the tightness column stands for, by reason (the legend under ``margins check``).
NO_RATIO = {
    "dichotomy": "exactly one of two alternatives holds: no ratio",
    "identity": "an equality: lhs and rhs are the two sides (or the error and its tolerance), no ratio",
    "both sides within the allowance": "both sides are below the allowance, i.e. round-off: their ratio means nothing",
}


def _tightness(v) -> str:
    """The Verdict's ratio of its two sides for the table, or why there is none (``n/a (dichotomy)``)."""
    r, why = v.tightness()
    return f"n/a ({why})" if r is None else fmt(r)


def _allowance(v) -> str:
    a = float(v.allowance)
    return "0" if a == 0 else f"{a:.2g}"


def _word(v) -> str:
    """'holds' / 'FAILS'; a bound that holds only thanks to its allowance (lhs > rhs) says so:
    'holds (within allowance)'; a refuted statement (registry kind ``refuted``, e.g.
    RP14.lemma7.printed) failing on an exactly decided instance is the expected outcome: 'FAILS
    (refuted, exact)'."""
    if v.holds:
        return "holds (within allowance)" if v.within_allowance() else "holds"
    if REGISTRY[v.id].kind == "refuted":
        return "FAILS (refuted, exact)" if v.details.get("exact_failure") else "FAILS (refuted, float64)"
    return "FAILS"


def check_outcome(verdicts) -> Tuple[int, List[str]]:
    """``(unexpected, refuted_ids)``: the number of failing verdicts of statements that should hold,
    and the ids of ``refuted`` statements.  A refuted statement must fail on at least one instance,
    decided exactly (``details["exact_failure"]``); otherwise it counts as one unexpected outcome."""
    unexpected = sum(not v.holds for v in verdicts if REGISTRY[v.id].kind != "refuted")
    refuted = sorted({v.id for v in verdicts if REGISTRY[v.id].kind == "refuted"})
    for cid in refuted:
        if not any((not v.holds) and v.details.get("exact_failure") for v in verdicts if v.id == cid):
            unexpected += 1
    return unexpected, refuted


def cmd_check(args) -> int:
    from .instances.suite import run_checks

    ids = args.ids or None
    verdicts = run_checks(ids=ids)
    unexpected, refuted = check_outcome(verdicts)
    if args.json:
        print(json_text([v.as_dict() for v in verdicts]))
    else:
        def cells(v):
            return [v.statement_kind(), _word(v), fmt(v.lhs), fmt(v.rhs), _allowance(v), _tightness(v)]

        if args.all:
            rows = [[v.id, *cells(v), str(v.details.get("instance", "")), v.clause] for v in verdicts]
            print(table(["id", "kind", "holds", "lhs (observed)", "rhs (bound)", "allowance", "tightness",
                         "instance", "clause"], rows))
        else:
            rows = [[v.id, *cells(v)[:2], str(c), *cells(v)[2:], str(v.details.get("instance", "")), v.clause]
                    for v, c in _worst_per_id(verdicts)]
            print(table(["id", "kind", "holds", "instances", "lhs (observed)", "rhs (bound)", "allowance",
                         "max tightness", "worst instance", "clause"], rows))
        reasons = sorted({why for v in verdicts for r, why in [v.tightness()] if r is None})
        print("\nkind: bound (lhs <= rhs), identity (lhs = rhs), dichotomy (exactly one of two alternatives), "
              "refuted (a bound known false).  allowance: how far lhs may exceed rhs and the verdict still hold "
              "(round-off of the computation and the certified margin interval's width, as each check decides); "
              "'holds (within allowance)' marks lhs > rhs.  tightness = lhs / rhs of the row's two sides (the "
              "clause named, for a statement of several parts; 1 + (lhs - rhs)/|rhs| for a negative rhs in RP14's "
              "checks): <= 1 while a bound holds, 1 = met with equality "
              "(the bound is attained), near 0 = far from tight."
              + "".join(f"  n/a ({why}): {NO_RATIO.get(why, why)}." for why in reasons))
        bad = sum(not v.holds for v in verdicts)
        ref_bad = sum(not v.holds for v in verdicts if v.id in refuted)
        print(f"\n{len(verdicts)} verdicts over {len({v.id for v in verdicts})} checks, {bad} failing"
              + (f" ({ref_bad} of them of refuted statements, as expected: {', '.join(refuted)})" if refuted else "")
              + (f"; {unexpected} UNEXPECTED" if unexpected else ""))
    return 0 if unexpected == 0 else 1


# -- entry point ------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse with the house's one-line errors (exit 2): the message names the argument, and
    ``--help`` has the usage, which is not printed first.  Every subcommand's parser is of this
    class too (``add_subparsers`` uses the parent's class)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="margins", description="Verified reference implementations of perceptron / von Neumann max-margin algorithms (RP14, PT11).")
    sub = p.add_subparsers(dest="command", required=True)

    sub.add_parser("demo", help="run every algorithm on a small built-in suite and print one table")

    r = sub.add_parser("run", help="run one algorithm on a LIBSVM or .npz file")
    r.add_argument("algorithm", choices=reference.ALGORITHMS,
                   help="the algorithm: RP14's perceptron (Alg. 1), normalized_perceptron (Alg. 2), nkp (Alg. 3), "
                        "snkp (Alg. 4), nvn (Alg. 5), snkpvn (Alg. 6), isnkpvn (Alg. 7); PT11's pfm, pdm, pdm_succ")
    r.add_argument("--data", required=True, help="the data: LIBSVM/svmlight text (.gz ok), .npz with arrays X and y, .npy of X (with --labels), or CSV with the label in the first column (.csv, .csv.gz)")
    r.add_argument("--labels", default=None, metavar="Y.npy", help="the .npy file of the labels y (+1/-1) when --data is an .npy of X")
    r.add_argument("--limit", type=positive_int, default=None, help="use only the first N points (N >= 1)")
    r.add_argument("--n-features", type=int, default=None, help="number of features of a LIBSVM file (default: its largest index)")
    add_max_bytes(r)
    r.add_argument("--drop-zero-rows", action="store_true", help="remove all-zero points (RP14 normalizes by ||x_i||)")
    r.add_argument("--kernel", default="linear", choices=["linear", "polynomial", "gaussian"],
                   help="the kernel K of RP14 Sec. 3 for the Gram algorithms (nkp, snkp, nvn, snkpvn, isnkpvn): "
                        "linear a.b, polynomial (a.b + c)^degree, gaussian exp(-||a - b||^2/(2 sigma^2)) "
                        "(default linear; the other algorithms are linear only)")
    r.add_argument("--degree", type=int, default=2, metavar="D",
                   help="degree of the polynomial kernel (a.b + c)^D, an integer >= 1 (default 2)")
    r.add_argument("--c", type=float, default=1.0, metavar="C",
                   help="constant c >= 0 of the polynomial kernel (a.b + c)^degree (default 1.0)")
    r.add_argument("--sigma", type=float, default=1.0, metavar="SIGMA",
                   help="width sigma > 0 of the gaussian kernel exp(-||a - b||^2/(2 sigma^2)) (default 1.0)")
    r.add_argument("--epsilon", type=float, default=None, metavar="EPS",
                   help=f"accuracy epsilon: RP14's epsilon of nvn and isnkpvn (stop with a certificate once "
                        f"||p||_G < epsilon; default {DEFAULT_ACCURACY:g}); PT11's epsilon of pdm and pdm_succ "
                        f"(margin >= (1 - epsilon) gamma_d on convergence; required, e.g. 0.01)")
    r.add_argument("--delta", type=float, default=None, metavar="DELTA_RP14",
                   help=f"RP14's delta of snkpvn (Alg. 6): stop with a certificate once ||p||_G < delta, q the "
                        f"uniform point of the simplex (default {DEFAULT_ACCURACY:g}); not PT11's --Delta")
    r.add_argument("--gamma", type=float, default=2.0, metavar="GAMMA",
                   help="RP14's gamma > 1 of isnkpvn (Alg. 7): each outer loop divides the target delta_t by "
                        "gamma (default 2.0)")
    r.add_argument("--beta", type=float, default=None, metavar="BETA",
                   help="PT11's fixed margin beta > 0 of pfm (update while a_t.y_k <= beta ||a_t||, eq. (7)); "
                        "required for pfm, e.g. (1 - eps) times the certified gamma_d")
    r.add_argument("--rho", type=float, default=None, metavar="RHO",
                   help="bias by augmentation x -> [x, rho] (PT11's rho, eq. (1); default: 1.0 for PT11, no "
                        "augmentation for RP14)")
    r.add_argument("--Delta", type=float, default=None, metavar="DELTA_PT11",
                   help="PT11's Delta (Sec. 5): run in the extended space y_k = [ybar_k, l_k Delta e_k], where "
                        "every data set is separable (the 2-norm soft-margin constant; default: none, the plain "
                        "patterns); not RP14's --delta")
    r.add_argument("--max-iter", type=int, default=None, metavar="N",
                   help="budget on the paper's counter (default: sized to the problem, as the Python functions' "
                        "max_iter=None: the paper's bound from the certified margin, times 2, within [1000, 10^8]; "
                        "see docs/cli.md)")
    r.add_argument("--max-epochs", type=int, default=None, metavar="N", help="PT11: budget on full passes (default: none)")
    r.add_argument("--active-sets", action="store_true", help="PT11 Sec. 4 three-level active sets")
    r.add_argument("--multiple-updates", action="store_true", help="PT11 Sec. 4 multiple updates")
    r.add_argument("--precision", type=int, default=None, metavar="DIGITS",
                   help="run in mpmath with this many decimal digits (default: float64)")
    r.add_argument("--engine", default="textbook", choices=["textbook", "fast"],
                   help="textbook (default): the paper's code line by line; fast: the compiled engine (needs numba: pip install 'perceptron-margins[fast]'); "
                        "with the linear kernel the Gram algorithms use G = Z Z^T as an operator (no n x n matrix)")
    r.add_argument("--json", action="store_true",
                   help="print the result as one JSON object (status, iterations, vectors, margins, info)")
    r.add_argument("--quiet", action="store_true", help="no progress on stderr (by default: every 5 s after the first 3 s, "
                                                         "the counter against the budget, the rate and an estimate)")
    r.add_argument("--no-certify", action="store_true", help="skip the certified margin (linear kernel) printed beside the result")

    mg = sub.add_parser("margin", help="the certified max margin of a data set (linear kernel; O(nnz + m) memory)")
    mg.add_argument("--data", required=True, help="the data: LIBSVM/svmlight text (.gz ok), .npz with arrays X and y, .npy of X (with --labels), or CSV with the label in the first column (.csv, .csv.gz)")
    mg.add_argument("--labels", default=None, metavar="Y.npy", help="the .npy file of the labels y (+1/-1) when --data is an .npy of X")
    mg.add_argument("--n-features", type=int, default=None, help="number of features of a LIBSVM file (default: its largest index)")
    add_max_bytes(mg)
    mg.add_argument("--limit", type=positive_int, default=None, help="use only the first N points (N >= 1)")
    mg.add_argument("--drop-zero-rows", action="store_true", help="remove all-zero points")
    mg.add_argument("--rho", type=_optional_float, default=1.0, metavar="RHO", help="augmentation x -> [x, rho] (default 1.0, as PT11; 'none' for no bias)")
    mg.add_argument("--Delta", type=float, default=None, metavar="DELTA_PT11",
                    help="PT11's Delta (Sec. 5): the margin gamma_d of the extended patterns [ybar_k, l_k Delta e_k] "
                         "(the 2-norm soft margin; default: none, the plain patterns)")
    mg.add_argument("--normalize", action="store_true", help="RP14's normalized points (rho_2 = rho_K, linear kernel)")
    mg.add_argument("--json", action="store_true", help="print a JSON object (lower, upper, method, m, d, nnz, ...)")

    b = sub.add_parser("bounds", help="explore how tight a paper bound is: sweep, search, worst case (see README)")
    from .bounds.cli import add_arguments as _bounds_arguments

    _bounds_arguments(b)

    c = sub.add_parser("check", help="run every registered theorem check on the built-in suite")
    c.add_argument("ids", nargs="*", help="only these check ids")
    c.add_argument("--json", action="store_true", help="every verdict as a JSON list (id, holds, lhs, rhs, slack, details)")
    c.add_argument("--all", action="store_true", help="one row per verdict instead of the worst per check")

    so = sub.add_parser("soak", help="every algorithm and margin on adversarial instances, every claim re-checked exactly")
    from .soak import add_arguments as _soak_arguments

    _soak_arguments(so)

    from .validate.cli import add_arguments as add_validate_arguments

    add_validate_arguments(sub)  # `validate` and `export-cases` (theorems/validate/cli.py)
    return p


def cmd_validate(args) -> int:
    from .validate.cli import cmd_validate as run

    return run(args)


def cmd_export_cases(args) -> int:
    from .validate.cli import cmd_export_cases as run

    return run(args)


def cmd_soak(args) -> int:
    from .soak import main as soak_main

    return soak_main(args)


def cmd_bounds(args) -> int:
    from .bounds.cli import main as bounds_main

    return bounds_main(args, getattr(args, "_argv", None))


COMMANDS = {"demo": cmd_demo, "run": cmd_run, "margin": cmd_margin, "check": cmd_check, "bounds": cmd_bounds, "validate": cmd_validate, "export-cases": cmd_export_cases, "soak": cmd_soak}


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    args._argv = list(argv) if argv is not None else None
    from reference.blas import single_threaded

    try:
        with single_threaded():  # the same bits at any BLAS thread count (reference.blas)
            return COMMANDS[args.command](args)
    except BrokenPipeError:  # the reader went away (`margins ... | head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's own flush at exit must not fail again
        return 1
    except (ValueError, OSError, EOFError, RecursionError, OverflowError, MemoryError, KeyError, TypeError) as exc:
        # bad input (a file, a JSON document, an argument) never reaches the user as a traceback:
        # one line, exit code 2
        what = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if isinstance(exc, RecursionError):
            what = "input nested too deeply"
        elif not isinstance(exc, ValueError):
            what = f"{type(exc).__name__}: {what}"
        print(f"margins {args.command}: error: {what[:500]}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
