"""The compiled engine's three speed ratios, measured in one run.

    python benchmarks/engine_ratios.py [--data-dir DATA] [--quick] [--json OUT]

1. **floor**: plain PDM (textbook order, no active sets) with ``engine="fast"`` on a9a, eps = 0.01,
   rho = Delta = 1, against a plain compiled loop written here that does nothing but the box's
   dot product, test and update over the CSR rows (the floor for this algorithm).  Both must
   make the same number of updates.  Target: ratio <= 1.5.
2. **fast paths**: the same run with active sets and multiple updates (PT11 Sec. 4).  Target: >= 4x.
3. **SNKP step / one G-product**: seconds per SNKP step (``engine="fast"``, difference of two budgets,
   so set-up and verification cancel) over the seconds of one G-product, on a dense G with
   n >= 2000 (linear kernel on the first n points of a9a: not separable, so SNKP runs to its
   budget) and on the whole of a9a through the linear operator G v = Z (Z^T v).  The G-product is
   timed twice: the engine's own compiled product, and NumPy's ``G @ v`` (BLAS) for the dense G.
   Target: <= 1.5.  The product is timed on v = 1_n/n (every column used); inside SNKP the
   product G b skips the columns where b_j = 0 (the softmax underflows to 0 once mu_k is small),
   so a step can cost less than that product.  Medians of interleaved repeats.

A benchmark, not a timed test: this machine is shared and noisy; the ratios are taken within one
run.  ``--quick`` uses a 4,000-point subset of a9a for 1-2 (a smoke run, not the measurement).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numba
import numpy as np

import reference
from reference.fast.operator import linear_gram
from reference.patterns import make_patterns
from reference.fast.rp14_kernels import gram_matvec

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"  # ../shared/data beside the repository


@numba.njit(cache=True)
def floor_pdm(data, indices, indptr, labels, q, rho, Delta, eps, d):
    """PT11's box and nothing else: dot, test, update, over the CSR rows in order 0..m-1."""
    m = labels.shape[0]
    a_x = np.zeros(d)
    a_D = np.zeros(m)
    a_r = 0.0
    t = 0
    ell = 0.0
    theta = 0.0
    epochs = 0
    while True:
        updated = False
        for k in range(m):
            s = 0.0
            for jj in range(indptr[k], indptr[k + 1]):
                s += data[jj] * a_x[indices[jj]]
            lk = labels[k]
            p = lk * (s + rho * a_r + Delta * a_D[k])
            if p <= theta:
                for jj in range(indptr[k], indptr[k + 1]):
                    a_x[indices[jj]] += data[jj] * lk
                a_r += rho * lk
                a_D[k] += Delta * lk
                ell = ell + 2 * p + q[k]
                t += 1
                theta = (1 - eps) * ell / t
                updated = True
        epochs += 1
        if not updated:
            return t, epochs


def _clock(f):
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def pdm_ratios(X, y, eps=0.01) -> dict:
    P = make_patterns(X, y, rho=1.0, Delta=1.0)
    data, indices, indptr, m, d = P.data, P.indices, P.indptr, P.m, P.n_features
    labels = P.labels.astype(np.float64)
    rows = np.repeat(np.arange(m), np.diff(indptr))
    q = np.bincount(rows, weights=data * data, minlength=m) + 2.0  # rho^2 + Delta^2
    floor_pdm(data[:0], indices[:0], np.zeros(2, np.int64), labels[:1], q[:1], 1.0, 1.0, eps, d)  # compile
    reference.pdm(X[:50], y[:50], eps, Delta=1.0, engine="fast")  # compile
    t_floor, (t_updates, epochs) = _clock(lambda: floor_pdm(data, indices, indptr, labels, q, 1.0, 1.0, eps, d))
    t_plain, plain = _clock(lambda: reference.pdm(X, y, eps, Delta=1.0, max_iter=10**10, engine="fast"))
    t_fast, fastp = _clock(
        lambda: reference.pdm(X, y, eps, Delta=1.0, max_iter=10**10, active_sets=True, multiple_updates=True, engine="fast")
    )
    assert plain.iterations == t_updates and plain.info["epochs"] == epochs, "the floor loop is not the same algorithm"
    return {
        "m": m,
        "floor_seconds": t_floor,
        "floor_updates": int(t_updates),
        "floor_epochs": int(epochs),
        "plain_seconds": t_plain,
        "plain_status": plain.status,
        "plain_updates": plain.iterations,
        "plain_epochs": plain.info["epochs"],
        "plain_margin": plain.info["margin"],
        "ratio_plain_over_floor": t_plain / t_floor,
        "fastpaths_seconds": t_fast,
        "fastpaths_status": fastp.status,
        "fastpaths_updates": fastp.iterations,
        "fastpaths_epochs": fastp.info["epochs"],
        "fastpaths_margin": fastp.info["margin"],
        "speedup_fastpaths_over_plain": t_plain / t_fast,
    }


def _per_step(G, k1: int, k2: int) -> float:
    t1, r1 = _clock(lambda: reference.snkp(G, max_iter=k1, engine="fast"))
    t2, r2 = _clock(lambda: reference.snkp(G, max_iter=k2, engine="fast"))
    assert r1.iterations == k1 and r2.iterations == k2, "SNKP stopped before its budget"
    return (t2 - t1) / (k2 - k1)


def _per_product(args, n: int, reps: int) -> float:
    kind, G, data, indices, indptr, d = args
    v, out, tmp = np.full(n, 1.0 / n), np.empty(n), np.zeros(d)
    gram_matvec(kind, G, data, indices, indptr, tmp, v, out)
    t0 = time.perf_counter()
    for _ in range(reps):
        gram_matvec(kind, G, data, indices, indptr, tmp, v, out)
    return (time.perf_counter() - t0) / reps


def _numpy_product(G, reps: int) -> float:
    v = np.full(G.shape[0], 1.0 / G.shape[0])
    t0 = time.perf_counter()
    for _ in range(reps):
        G @ v
    return (time.perf_counter() - t0) / reps


def snkp_ratios(X, y, n_dense: int = 2000, repeats: int = 5) -> dict:
    """Medians over ``repeats`` interleaved measurements (the machine is shared: load comes and goes)."""
    from reference.fast.engine import _Gram

    out = {}
    G = reference.gram(X[:n_dense].toarray(), y[:n_dense])
    reference.snkp(G, max_iter=2, engine="fast")  # compile
    g = _Gram(G)
    steps, owns, blas = [], [], []
    for _ in range(repeats):
        steps.append(_per_step(G, 50, 250))
        owns.append(_per_product(g.args, n_dense, 100))
        blas.append(_numpy_product(G, 100))
    step, own, blas = float(np.median(steps)), float(np.median(owns)), float(np.median(blas))
    out["dense"] = {"n": n_dense, "step_seconds": step, "product_seconds": own, "numpy_product_seconds": blas,
                    "ratio_step_over_product": step / own, "ratio_step_over_numpy_product": step / blas}  # fmt: skip
    L = linear_gram(X, y)
    gl = _Gram(L)
    steps, owns = [], []
    for _ in range(repeats):
        steps.append(_per_step(L, 50, 350))
        owns.append(_per_product(gl.args, L.n, 100))
    step, own = float(np.median(steps)), float(np.median(owns))
    out["a9a_linear"] = {"n": L.n, "nnz": int(L.Z.nnz), "step_seconds": step, "product_seconds": own,
                         "ratio_step_over_product": step / own}  # fmt: skip
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR),
                    help="the LIBSVM data sets (default: ../shared/data beside the repository)")
    ap.add_argument("--quick", action="store_true", help="4,000 points of a9a for the PDM ratios (smoke run)")
    ap.add_argument("--json", default=None, help="also write the numbers to this file")
    ap.add_argument("--only", choices=["pdm", "snkp"], default=None, help="measure only these ratios")
    a = ap.parse_args(argv)
    X, y = reference.load_libsvm(Path(a.data_dir) / "a9a" / "a9a.gz")
    res = {"numba": numba.__version__}
    Xp, yp = (X[:4000], y[:4000]) if a.quick else (X, y)
    if a.only != "snkp":
        res["pdm"] = pdm_ratios(Xp, yp)
    if a.only != "pdm":
        res["snkp"] = snkp_ratios(X, y)
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=2) + "\n")
    if "pdm" in res:
        _print_pdm(res["pdm"], a.quick)
    if "snkp" in res:
        _print_snkp(res["snkp"])
    return 0


def _print_pdm(p: dict, quick: bool) -> None:
    print(f"a9a{'[:4000]' if quick else ''} PDM eps=0.01 rho=Delta=1: {p['plain_updates']} updates, {p['plain_epochs']} epochs")
    print(f"  1. plain PDM (fast engine) {p['plain_seconds']:.2f} s / floor loop {p['floor_seconds']:.2f} s = {p['ratio_plain_over_floor']:.2f}  (target <= 1.5)")
    print(f"  2. active sets + multiple updates {p['fastpaths_seconds']:.2f} s ({p['fastpaths_updates']} updates, "
          f"{p['fastpaths_epochs']} epochs): {p['speedup_fastpaths_over_plain']:.1f}x faster than plain  (target >= 4)")  # fmt: skip


def _print_snkp(s: dict) -> None:
    d, l = s["dense"], s["a9a_linear"]
    print(f"  3. SNKP step / one G-product: dense n={d['n']}: {d['step_seconds'] * 1e3:.3f} ms / {d['product_seconds'] * 1e3:.3f} ms"
          f" = {d['ratio_step_over_product']:.2f} (NumPy's G@v {d['numpy_product_seconds'] * 1e3:.3f} ms: {d['ratio_step_over_numpy_product']:.2f});"
          f" a9a linear operator n={l['n']}: {l['step_seconds'] * 1e3:.3f} ms / {l['product_seconds'] * 1e3:.3f} ms = {l['ratio_step_over_product']:.2f}  (target <= 1.5)")  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
