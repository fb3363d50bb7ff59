"""Certified values table: the max margin of every LIBSVM data set in ../shared/data.

    python benchmarks/data_margins/certified_margins.py [DATA_DIR] [--out benchmarks/data_margins]

For each data set (training file): m, d, nnz, R = max_k ||x_k||, the certified gamma_d of the PT11
patterns y_k = l_k [x_k, rho, Delta e_k] with rho = Delta = 1 (an interval lower <= gamma_d <= upper,
reference.margin_from_data), and without Delta (rho = 1): the certified separable / not-separable
decision with its interval.  Writes table.md, table.csv and table.json (with timings).  Other
implementations compare against these numbers, as numerical libraries compare against NIST's
certified values.  Everything here is recomputed; nothing is copied from a previous run.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

import reference

#: folder -> (training file, number of features as documented in the folder's PROVENANCE.md)
DATASETS = {
    "a1a": ("a1a", 123),
    "a8a": ("a8a.gz", 123),
    "a9a": ("a9a.gz", 123),
    "breast-cancer_scale": ("breast-cancer_scale", 10),
    "heart_scale": ("heart_scale", 13),
    "ionosphere": ("ionosphere", 34),
    "sonar": ("sonar", 60),
    "svmguide1": ("svmguide1", 4),
    "svmguide3": ("svmguide3.gz", 21),
    "w8a": ("w8a.gz", 300),
    "wdbc": ("wdbc", 30),
}
COLUMNS = ["data set", "m", "d", "nnz", "R", "gamma_d lower (rho=Delta=1)", "gamma_d upper", "rel. width",
           "seconds", "without Delta (rho=1)", "lower", "upper", "seconds (no Delta)"]


def row(root: Path, name: str) -> dict:
    fname, nf = DATASETS[name]
    X, y = reference.load_libsvm(root / name / fname, n_features=nf)
    R = math.sqrt(float(X.multiply(X).sum(axis=1).max()))
    M = reference.margin_from_data(X, y, rho=1.0, Delta=1.0)
    N = reference.margin_from_data(X, y, rho=1.0)
    verdict = {True: "separable", False: f"NOT separable (Gordan, {len(N.gordan[0]) if N.gordan else 0} points)", None: "undecided"}
    return {
        "data set": f"{name}/{fname}", "m": M.m, "d": M.d, "nnz": M.nnz, "R": R,
        "gamma_d lower (rho=Delta=1)": M.lower, "gamma_d upper": M.upper, "rel. width": M.relative_width,
        "seconds": M.seconds, "without Delta (rho=1)": verdict[N.separable], "lower": N.lower, "upper": N.upper,
        "seconds (no Delta)": N.seconds, "method (Delta=1)": M.method, "method (no Delta)": N.method,
    }  # fmt: skip


def fmt(v) -> str:
    if isinstance(v, float):
        return repr(v) if abs(v) < 1e-3 or abs(v) >= 1e4 or v != round(v, 4) else f"{v:g}"
    return str(v)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", nargs="?", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent))
    args = ap.parse_args(argv)
    root, out = Path(args.data_dir), Path(args.out)
    names = [n for n in DATASETS if (root / n / DATASETS[n][0]).is_file()]
    if not names:
        print(f"no data sets under {root}", file=sys.stderr)
        return 1
    rows = []
    for n in names:
        t0 = time.perf_counter()
        rows.append(row(root, n))
        print(f"{n}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    (out / "table.json").write_text(json.dumps(rows, indent=2) + "\n")
    with open(out / "table.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(fmt(r[c]) if not isinstance(r[c], float) or "seconds" not in c else f"{r[c]:.2f}" for c in COLUMNS) + " |" for r in rows]
    (out / "table.md").write_text(
        "# Certified max margins of the LIBSVM data sets (linear kernel)\n\n"
        "Regenerate: `python benchmarks/data_margins/certified_margins.py /path/to/shared/data`.\n"
        "gamma_d = max_{||u||=1} min_k u.y_k for y_k = l_k [x_k, rho, Delta e_k] (PT11 eq. (1), Sec. 5); "
        "each interval is certified (witnesses re-evaluated with bounded rounding; 'NOT separable' is an "
        "exact rational Gordan certificate, and its lower end -R is only the trivial bound).  Timings are "
        "wall-clock seconds of reference.margin_from_data on the machine that generated the table (2 cores, shared).\n\n"
        + "\n".join(lines) + "\n"
    )
    print((out / "table.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
