"""Reproduce PT11 Sec. 6 (Tables 1 and 2) with the compiled engine, beside LIBLINEAR's DCD-L2.

    pip install -e ".[fast]" liblinear-official      # liblinear-official: benchmark-only
    python benchmarks/table1.py --out DIR [--data-dir DATA] [--sets a9a w8a a1a ...]

PT11 Sec. 6 runs, with Delta = 1 and rho = 1 (the extended space of Sec. 5, so every data set is
separable; the hard-margin problem there is the 2-norm soft-margin SVM):

* Table 1 -- PDM with eps = 0.01; PFM with the fixed margin beta set to the directional margin
  gamma'_d that PDM achieved; PDM-succ with eta = 8 (each with the Sec. 4 active sets and
  multiple updates);
* Table 2 -- other solvers at accuracy 0.01, among them DCD-L2, LIBLINEAR's dual coordinate
  descent for the L2-loss SVM, which solves the same problem with ``C = 1/(2 Delta^2)`` and
  ``-B rho``: its (w, w_b) and slacks xi_k = max(0, 1 - l_k(w.x_k + w_b rho)) give the extended
  vector a = [w, w_b, l_k xi_k / Delta] (||a||^2 = ||w||^2 + w_b^2 + sum xi_k^2 / Delta^2).

Rows here: those, plus the classical perceptron (the box with eps = 1) and plain PDM (no Sec. 4
mechanisms), SNKP in the extended space (through the linear operator, budget ``--snkp-iters``),
and DCD-L2 at every tolerance ``-e`` of :data:`DCD_SWEEP` (0.001 to 10; tighter ones, 0.001/3^k, if
none reaches PDM's gamma'_d).

**At equal achieved margin.**  A speed comparison is made between runs that reach the same
margin: for each set, PDM (eps = 0.01, Sec. 4) against DCD-L2 at the loosest tolerance of the
sweep whose gamma'_d still reaches PDM's, and at ``-e 0.01``; and, at equal time, the margin
DCD-L2 reaches in no more CPU time than PDM takes.  These are CPU-time medians of ``--repeats``
interleaved rounds with BLAS on one thread (:func:`compare_at_equal_margin`), written under the
table; the table's own ``seconds`` are single wall-clock runs.

Columns: updates (PT11's t; SNKP: iterations; LIBLINEAR: none), epochs (full passes; LIBLINEAR's
are not exposed), seconds (the solver call only, kernels already compiled), peak memory (MB, the
tracemalloc peak of the call and its verification: NumPy/Python allocations, which include
LIBLINEAR's problem copy but not the numba kernels' own O(m) work arrays; ``baseline`` = the
certified margin computation), gamma'_d = min_k a.y_k/||a|| (computed here in NumPy from the returned vector), and
gamma'_d / gamma_d with gamma_d certified by :func:`reference.margin_from_data` (the interval is
in the JSON/CSV; the ratio uses its upper end, so it is rounded down), and how close the run came
to its paper bound (``theorems.paper_bounds`` at the certified gamma_d's lower end, R = max_k
||y_k||): Block-Novikoff for the perceptron, PT11 Thm. 2 for PDM, Thm. 1 for PFM (with
eps' = 1 - beta/gamma_d), as log10 of the bound and updates / bound.

Writes DIR/table1.md, DIR/table1.csv, DIR/table1.json.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import platform
import sys
import time
import tracemalloc
from functools import lru_cache
from pathlib import Path

import numpy as np

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"  # ../shared/data beside the repository
SETS = ("a9a", "w8a", "a1a", "heart_scale", "sonar", "ionosphere")
EPS, ETA, DELTA, RHO = 0.01, 8.0, 1.0, 1.0
#: LIBLINEAR's tolerances -e, tightest first: the sweep that finds the loosest one still reaching PDM's gamma'_d
DCD_SWEEP = (0.001, 0.01, 0.03, 0.1, 0.3, 1.0, 2.0, 5.0, 10.0)
FILES = {"a9a": "a9a/a9a.gz", "w8a": "w8a/w8a.gz", "a1a": "a1a/a1a", "a8a": "a8a/a8a.gz", "heart_scale": "heart_scale/heart_scale",
         "sonar": "sonar/sonar", "ionosphere": "ionosphere/ionosphere", "breast-cancer": "breast-cancer_scale/breast-cancer_scale",
         "wdbc": "wdbc/wdbc", "svmguide1": "svmguide1/svmguide1"}  # fmt: skip


# -- in the child process ----------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _load(data_dir: str, name: str):
    """(X as canonical CSR, y, the implicit extended patterns)."""
    import reference
    from reference.patterns import make_patterns

    X, y = reference.load_libsvm(Path(data_dir) / FILES[name])
    P = make_patterns(X, y, rho=RHO, Delta=DELTA)
    return P.X(), P.labels.astype(np.float64), P


def _gamma(P, a):
    """gamma'_d = min_k a.y_k / ||a|| on the implicit extended patterns."""
    return float(np.min(P.matvec(a))) / float(np.sqrt(a @ a))


def _extended_operator(X, y):
    """The linear kernel's G = Z Z^T on the normalized extended patterns [x_k, rho, Delta e_k]
    (O(nnz + m): the extended block is the diagonal Delta I)."""
    import scipy.sparse as sp

    from reference.fast.operator import linear_gram

    m = X.shape[0]
    return linear_gram(sp.hstack([X, sp.csr_matrix(np.full((m, 1), RHO)), sp.identity(m, format="csr") * DELTA], format="csr"), y)


def _row(job):
    """One solver run: (row dict)."""
    data_dir, name, solver, arg = job
    import reference

    X, y, P = _load(data_dir, name)
    m, d = X.shape
    row = {"set": name, "m": m, "d": d, "solver": solver}
    pt11 = dict(rho=RHO, Delta=DELTA, engine="fast", max_iter=10**11)
    sec4 = dict(active_sets=True, multiple_updates=True)
    if True:  # load the compiled kernels (cached on disk) before the clock, in the baseline too
        reference.pdm(X[:2], y[:2], 0.5, **pt11)
        reference.snkp(np.eye(2), max_iter=1, engine="fast")
    tracemalloc.start()
    t0 = time.perf_counter()
    res = None
    if solver == "baseline":
        pass
    elif solver == "perceptron":
        res = reference.pdm(X, y, 1.0, **pt11)  # eps = 1: the test p <= 0, the classical perceptron
    elif solver == "pdm_plain":
        res = reference.pdm(X, y, EPS, **pt11)
    elif solver == "pdm":
        res = reference.pdm(X, y, EPS, **pt11, **sec4)
    elif solver == "pfm":
        res = reference.pfm(X, y, arg, **pt11, **sec4)
    elif solver == "pdm_succ":
        res = reference.pdm_succ(X, y, EPS, ETA, **pt11, **sec4)
    elif solver == "snkp":
        L = _extended_operator(X, y)
        t0 = time.perf_counter()
        res = reference.snkp(L, max_iter=arg, engine="fast")
    elif solver.startswith("dcd_l2"):
        from liblinear import liblinearutil as lu

        prob = lu.problem(y, X)
        param = lu.parameter(f"-s 1 -c {1 / (2 * DELTA**2)} -B {RHO} -e {arg} -q")
        t0 = time.perf_counter()
        model = lu.train(prob, param)
        seconds = time.perf_counter() - t0
        w, b = model.get_decfun()
        w = np.array(list(w[:d]) + [0.0] * (d - len(w[:d])))
        sign = 1.0 if model.get_labels()[0] == 1 else -1.0
        w, wb = sign * w, sign * b / RHO  # decision value w.x + b, b = w_b rho
        xi = np.maximum(0.0, 1.0 - y * (X @ w + wb * RHO))
        a = np.concatenate([w, [wb], y * xi / DELTA])  # the extended vector [w, w_b, l_k xi_k / Delta]
        row.update(seconds=seconds, updates=None, epochs=None, status="solved", e=arg)
        row["gamma"] = _gamma(P, a)
    if res is not None:
        seconds = time.perf_counter() - t0
        row.update(seconds=seconds, updates=res.iterations, status=res.status)
        if solver == "snkp":
            a = L.Z.T @ res.alpha  # sum_i alpha_i y_i / ||y_i||, columns [x, rho, Delta e_k] as the PT11 rows
            row["epochs"] = None
            row["gamma"] = _gamma(P, a)
        else:
            row["epochs"] = res.info["epochs"]
            row["gamma"] = res.info["margin"]
            row["upper"] = res.info["upper_bound"]
    if solver == "baseline":  # and the certified gamma_d of the data (margin_from_data), off the clock
        dm = reference.margin_from_data(X, y, rho=RHO, Delta=DELTA)
        row.update(seconds=0.0, updates=None, epochs=None, status="", gamma=None, gamma_d_lower=dm.lower, gamma_d_upper=dm.upper,
                   R=float(np.sqrt(np.max(np.asarray(X.multiply(X).sum(axis=1)).ravel()) + RHO**2 + DELTA**2)))  # fmt: skip
    row["peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return row


# -- PDM against DCD-L2 at equal achieved margin, and at equal time -----------------------------------


def compare_at_equal_margin(data_dir: str, name: str, rows: list, repeats: int) -> dict:
    """PDM (eps = 0.01, Sec. 4) against DCD-L2 at the loosest tolerance of the sweep whose margin
    gamma'_d still reaches PDM's, and at -e 0.01, as CPU-time medians of ``repeats`` interleaved
    rounds with BLAS on one thread (``time.process_time``: the solver calls only); and the margin
    DCD reaches in no more time than PDM takes (the tightest tolerance of the sweep within PDM's
    CPU time)."""
    import reference
    from liblinear import liblinearutil as lu
    from threadpoolctl import threadpool_limits

    X, y, P = _load(data_dir, name)
    pdm = next(r for r in rows if r["solver"] == "pdm")
    dcd = sorted((r for r in rows if r["solver"].startswith("dcd_l2")), key=lambda r: r["e"])
    reaching = [r for r in dcd if r["gamma"] >= pdm["gamma"]]
    if not reaching:
        return {}
    e_eq = max(r["e"] for r in reaching)  # the loosest tolerance that reaches PDM's gamma'_d
    prob = lu.problem(y, X)

    def dcd_run(e):
        return lambda: lu.train(prob, lu.parameter(f"-s 1 -c {1 / (2 * DELTA**2)} -B {RHO} -e {e} -q"))

    contenders = {"pdm": lambda: reference.pdm(X, y, EPS, rho=RHO, Delta=DELTA, engine="fast", max_iter=10**11, active_sets=True, multiple_updates=True)}
    contenders.update({e: dcd_run(e) for e in sorted({e_eq, EPS} | {r["e"] for r in dcd})})
    times = {k: [] for k in contenders}
    with threadpool_limits(limits=1):
        for _ in range(repeats):
            for k, f in contenders.items():
                t0 = time.process_time()
                f()
                times[k].append(time.process_time() - t0)
    med = {k: float(np.median(v)) for k, v in times.items()}
    in_time = [r for r in dcd if med[r["e"]] <= med["pdm"]]
    best_in_time = min(in_time, key=lambda r: r["e"]) if in_time else None
    gamma_of = {r["e"]: r["gamma"] for r in dcd}
    return {"set": name, "pdm_seconds": med["pdm"], "pdm_gamma": pdm["gamma"], "e_equal_margin": e_eq,
            "dcd_equal_margin_seconds": med[e_eq], "dcd_equal_margin_gamma": gamma_of[e_eq],
            "ratio_pdm_over_dcd_equal_margin": med["pdm"] / med[e_eq],
            "dcd_e001_seconds": med[EPS], "ratio_pdm_over_dcd_e001": med["pdm"] / med[EPS],
            "dcd_seconds": {str(e): med[e] for e in gamma_of},
            "e_in_pdm_time": None if best_in_time is None else best_in_time["e"],
            "dcd_gamma_in_pdm_time": None if best_in_time is None else best_in_time["gamma"], "repeats": repeats}  # fmt: skip


# -- the driver -----------------------------------------------------------------------------------------


def _run(pool, job):
    return _row(job)


def table_for(pool, data_dir: str, name: str, snkp_iters: int, log) -> list:
    rows = [_run(pool, (data_dir, name, "baseline", None))]
    for solver in ("perceptron", "pdm_plain", "pdm"):
        rows.append(_run(pool, (data_dir, name, solver, None)))
        log(rows[-1])
    pdm = rows[-1]
    rows.append(_run(pool, (data_dir, name, "pfm", pdm["gamma"])))  # beta = gamma'_d achieved by PDM
    log(rows[-1])
    rows.append(_run(pool, (data_dir, name, "pdm_succ", None)))
    log(rows[-1])
    rows.append(_run(pool, (data_dir, name, "snkp", snkp_iters)))
    log(rows[-1])
    for e in DCD_SWEEP:  # DCD-L2's tolerance sweep: the margin it reaches at each
        rows.append(dict(_run(pool, (data_dir, name, "dcd_l2", e)), solver=f"dcd_l2 (-e {e:g})"))
        log(rows[-1])
    e, reached = DCD_SWEEP[0], any(r["gamma"] >= pdm["gamma"] for r in rows[-len(DCD_SWEEP):])
    while not reached and e > 1e-7:  # no tolerance of the sweep reached PDM's gamma'_d: tighter ones
        e /= 3
        rows.append(dict(_run(pool, (data_dir, name, "dcd_l2", e)), solver=f"dcd_l2 (-e {e:.2g})"))
        log(rows[-1])
        reached = rows[-1]["gamma"] >= pdm["gamma"]
    lo, up = rows[0]["gamma_d_lower"], rows[0]["gamma_d_upper"]
    R = rows[0]["R"]
    for r in rows:  # gamma'_d / gamma_d, rounded down: gamma_d <= its certified upper end
        r["gamma_over_gamma_d"] = None if r.get("gamma") is None else r["gamma"] / up
        r["gamma_d_lower"], r["gamma_d_upper"], r["R"] = lo, up, R
        r["log10_bound"] = _log10_bound(r["solver"], R, lo, pdm["gamma"])
        if r["log10_bound"] is not None and r.get("updates"):
            r["updates_over_bound"] = 10 ** (math.log10(r["updates"]) - r["log10_bound"])
    return rows


def _log10_bound(solver: str, R: float, gamma_d: float, beta: float):
    """log10 of the paper's bound on the updates, at the certified lower end of gamma_d (the
    largest bound): Block-Novikoff R^2/gamma_d^2 (perceptron), PT11 Thm. 2 (PDM, eps = 0.01),
    PT11 Thm. 1 (PFM with beta = (1 - eps') gamma_d); None for the other rows."""
    from theorems import paper_bounds as pb

    if solver == "perceptron":
        return math.log10(pb.novikoff(R, gamma_d))
    if solver in ("pdm", "pdm_plain"):
        b = pb.pdm_theorem2(R, gamma_d, EPS)
        if math.isinf(b):  # t_0 = [1/eps] (R/gamma_d)^{1/eps} (...) overflows: its logarithm
            N = math.floor(1 / EPS)
            return (math.log(N) + math.log(R / gamma_d) / EPS + math.log1p(1 / ((1 - 2 * EPS) * N)) / (2 * EPS)) / math.log(10)
        return math.log10(b)
    if solver == "pfm" and beta < gamma_d:
        return math.log10(pb.pfm_theorem1(R, gamma_d, 1 - beta / gamma_d))
    return None


def _fmt(v, f="{:.4g}"):
    return "" if v is None else (f.format(v) if isinstance(v, float) else str(v))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="PT11 Tables 1 and 2 with the compiled engine, beside LIBLINEAR DCD-L2")
    ap.add_argument("--out", required=True)
    ap.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR),
                    help="the LIBSVM data sets (default: ../shared/data beside the repository)")
    ap.add_argument("--sets", nargs="+", default=list(SETS), choices=sorted(FILES))
    ap.add_argument("--snkp-iters", type=int, default=2000, help="SNKP budget in the extended space")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved rounds of the equal-margin comparison")
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    t_all = time.perf_counter()
    rows = []

    def log(r):
        print(f"  {r['set']:>12} {r['solver']:<18} {_fmt(r.get('updates')):>12} {_fmt(r.get('seconds'), '{:.2f}'):>8} s  gamma'_d {_fmt(r.get('gamma'))}", flush=True)

    comparisons = []
    for name in a.sets:
        rows += table_for(None, a.data_dir, name, a.snkp_iters, log)
        c = compare_at_equal_margin(a.data_dir, name, [r for r in rows if r["set"] == name], a.repeats)
        if c:
            comparisons.append(c)
            print(f"  {name:>12} PDM {c['pdm_seconds']:.2f} s CPU vs DCD-L2 at equal margin (-e {c['e_equal_margin']:g}) "
                  f"{c['dcd_equal_margin_seconds']:.2f} s: {c['ratio_pdm_over_dcd_equal_margin']:.1f}x", flush=True)  # fmt: skip
    total = time.perf_counter() - t_all
    cols = ["set", "m", "d", "solver", "status", "updates", "epochs", "seconds", "peak_mb", "gamma", "gamma_over_gamma_d",
            "gamma_d_lower", "gamma_d_upper", "R", "log10_bound", "updates_over_bound"]  # fmt: skip
    with open(out / "table1.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    meta = {"command": "python benchmarks/table1.py " + " ".join(argv if argv is not None else sys.argv[1:]), "total_seconds": total,
            "python": platform.python_version(), "machine": platform.machine(), "Delta": DELTA, "rho": RHO, "eps": EPS, "eta": ETA}  # fmt: skip
    (out / "table1.json").write_text(json.dumps({"meta": meta, "rows": rows, "equal_margin": comparisons}, indent=2, default=float) + "\n")
    lines = ["# PT11 Tables 1-2 reproduced (Delta = rho = 1, eps = 0.01, eta = 8)\n", f"`{meta['command']}` -- {total:.0f} s in all.\n"]
    lines.append("| set | solver | status | updates | epochs | seconds | peak MB | gamma'_d | gamma'_d / gamma_d | log10 bound | updates / bound |")
    lines.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        lines.append(f"| {r['set']} | {r['solver']} | {r.get('status', '')} | {_fmt(r.get('updates'))} | {_fmt(r.get('epochs'))} | "
                     f"{_fmt(r.get('seconds'), '{:.2f}')} | {_fmt(r['peak_mb'], '{:.1f}')} | {_fmt(r.get('gamma'), '{:.6f}')} | {_fmt(r.get('gamma_over_gamma_d'), '{:.4f}')} | "
                     f"{_fmt(r.get('log10_bound'), '{:.1f}')} | {_fmt(r.get('updates_over_bound'), '{:.3g}')} |")  # fmt: skip
    lines += ["", f"## PDM (eps = 0.01, Sec. 4) against DCD-L2 at equal achieved margin (CPU-time medians of {a.repeats} interleaved rounds, BLAS on one thread)", "",
              "| set | PDM s | PDM gamma'_d | DCD -e at equal margin | its s | its gamma'_d | PDM / DCD at equal margin | DCD -e 0.01 s | PDM / DCD -e 0.01 | DCD's gamma'_d in PDM's time (-e) |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for c in comparisons:
        in_time = "" if c["e_in_pdm_time"] is None else f"{c['dcd_gamma_in_pdm_time']:.6f} (-e {c['e_in_pdm_time']:g})"
        lines.append(f"| {c['set']} | {c['pdm_seconds']:.3f} | {c['pdm_gamma']:.6f} | {c['e_equal_margin']:g} | {c['dcd_equal_margin_seconds']:.3f} | "
                     f"{c['dcd_equal_margin_gamma']:.6f} | **{c['ratio_pdm_over_dcd_equal_margin']:.1f}x** | {c['dcd_e001_seconds']:.3f} | "
                     f"{c['ratio_pdm_over_dcd_e001']:.1f}x | {in_time} |")  # fmt: skip
    (out / "table1.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {out}/table1.{{md,csv,json}} in {total:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
