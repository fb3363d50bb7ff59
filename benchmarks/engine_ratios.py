"""The compiled engine's speed ratios, measured in one run.

    python benchmarks/engine_ratios.py [--data-dir DATA] [--quick] [--json OUT] [--only PART ...] [--repeats N]

Every figure is a ratio of two CPU times (``time.process_time``) taken in this one process, the
two contenders interleaved, BLAS pinned to one thread (threadpoolctl), the median of ``--repeats``
rounds; the load average is printed before and after.  This 2-core machine is shared: absolute
times move between runs, ratios much less.

1. **pdm** -- plain PDM (textbook order, no active sets) with ``engine="fast"`` on a9a, eps = 0.01,
   rho = Delta = 1, over a bare compiled loop written here that does nothing but the box's dot
   product, test and update over the CSR rows; both make the same updates.  Target <= 1.5.
2. **sec4** -- the same run with active sets and multiple updates (PT11 Sec. 4): its speedup over
   plain PDM, and its time over the floors of its own visit sequence (recorded by
   ``pt11_kernels.run_recorded``): a bare compiled loop replaying the visits (each one a dot
   product and the recorded updates) with the rows (a) read in place, (b) read from one
   contiguous block per set, gathered beforehand (the memory-order floor), (c) like (b) but each
   update decided by the box's test p <= theta, theta recomputed after it (lambda still from the
   record), and (d) like (c) plus the box's own lambda with its round-off guards.  (c) and (d)
   must follow the run's trajectory: their update counts and final ell_t are checked against it.
   Target <= 1.2 over the floor (b), >= 2x faster than before the sets were read in memory order.
3. **snkp** -- seconds per SNKP step (difference of two budgets: set-up and verification cancel)
   over the seconds of one G-product, on three instances: a dense G, n = 2000, where the softmax
   p stays dense (Gaussian points, random labels: not separable); a dense G, n = 2000, where it
   underflows to a sparse p (the first 2000 points of a9a); the whole of a9a through the linear
   operator G v = Z (Z^T v).  The product is the engine's own (v = 1_n/n, every column) and, for
   the dense G, NumPy's ``G @ v`` (BLAS, one thread).  Target <= 1.5.
4. **snkpvn** -- the same for SNKPVN(q = 1_n/n), ISNKPVN's inner step (one projection onto the
   simplex and one G-product), on the a9a operator.  Target <= 2.
5. **check_gram** -- ``reference.data.check_gram`` on a dense n = 5000 Gram matrix, in G-products
   (NumPy's ``G @ v``).
6. **loader** -- ``reference.load_libsvm`` over scikit-learn's ``load_svmlight_file`` on a9a.gz
   (the same matrix).  Target <= 1.5.

A benchmark, not a timed test.  ``--quick`` uses a 4,000-point subset of a9a for 1-2 (a smoke run,
not the measurement).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numba
import numpy as np
from threadpoolctl import threadpool_limits

import reference
from reference.fast import pt11_kernels
from reference.fast.operator import linear_gram
from reference.fast.rp14_kernels import gram_matvec
from reference.patterns import make_patterns

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"  # ../shared/data beside the repository
PARTS = ("pdm", "sec4", "snkp", "snkpvn", "check_gram", "loader")
BUDGET = 10**10  # max_iter of the PDM runs (none reaches it; the replays' lambda is capped by it as the run's is)


def _cpu(f):
    t0 = time.process_time()
    out = f()
    return time.process_time() - t0, out


def _median_rounds(contenders: dict, repeats: int) -> dict:
    """{name: median CPU seconds} over ``repeats`` rounds, each round running every contender once
    in turn (interleaved), and the last outputs."""
    times, outs = {k: [] for k in contenders}, {}
    for _ in range(repeats):
        for name, f in contenders.items():
            t, outs[name] = _cpu(f)
            times[name].append(t)
    return {k: float(np.median(v)) for k, v in times.items()}, outs


# -- 1. plain PDM over its floor ------------------------------------------------------------------


# the loops below compile in memory: numba's on-disk cache is keyed by the module's name, and this
# file is run as a script and loaded by its test under other names
@numba.njit
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


def _patterns(X, y):
    P = make_patterns(X, y, rho=1.0, Delta=1.0)
    labels = P.labels.astype(np.float64)
    rows = np.repeat(np.arange(P.m), np.diff(P.indptr))
    q = np.bincount(rows, weights=P.data * P.data, minlength=P.m) + 2.0  # rho^2 + Delta^2
    return P, labels, q


def pdm_ratios(X, y, eps: float, repeats: int) -> dict:
    P, labels, q = _patterns(X, y)
    args = (P.data, P.indices, P.indptr, labels, q, 1.0, 1.0, eps, P.n_features)
    floor_pdm(P.data[:0], P.indices[:0], np.zeros(2, np.int64), labels[:1], q[:1], 1.0, 1.0, eps, P.n_features)  # compile
    reference.pdm(X[:50], y[:50], eps, Delta=1.0, engine="fast")  # compile
    med, outs = _median_rounds({
        "floor": lambda: floor_pdm(*args),
        "plain": lambda: reference.pdm(X, y, eps, Delta=1.0, max_iter=BUDGET, engine="fast"),
    }, repeats)  # fmt: skip
    (t_updates, epochs), plain = outs["floor"], outs["plain"]
    assert plain.iterations == t_updates and plain.info["epochs"] == epochs, "the floor loop is not the same algorithm"
    return {"m": P.m, "updates": plain.iterations, "epochs": plain.info["epochs"], "floor_seconds": med["floor"],
            "plain_seconds": med["plain"], "ratio_plain_over_floor": med["plain"] / med["floor"]}  # fmt: skip


# -- 2. PT11 Sec. 4 over the floors of its own visit sequence ---------------------------------------


def record_visits(X, y, eps: float, cap: int = 60_000_000):
    """PDM with active sets + multiple updates, its visits recorded (pt11_kernels.run_recorded in
    place of run, through the engine's own driver) -> (Result, rec_j, rec_lam, passes)."""
    rec_j, rec_lam = np.zeros(cap, np.int64), np.zeros(cap, np.int64)
    rec_pass, rec_n = np.zeros(2 * cap // 16, np.int64), np.zeros(2, np.int64)
    real = pt11_kernels.run
    pt11_kernels.run = lambda *args: pt11_kernels.run_recorded(*args, rec_j, rec_lam, rec_pass, rec_n)
    try:
        res = reference.pdm(X, y, eps, Delta=1.0, max_iter=BUDGET, active_sets=True, multiple_updates=True, engine="fast")
    finally:
        pt11_kernels.run = real
    n_visits, n_passes = (int(v) for v in rec_n)
    if n_visits > cap or 2 * n_passes > rec_pass.shape[0]:
        raise RuntimeError(f"{n_visits} visits / {n_passes} passes: raise cap")
    return res, rec_j[:n_visits].copy(), rec_lam[:n_visits].copy(), rec_pass[: 2 * n_passes].reshape(-1, 2).copy()


@numba.njit
def replay_in_place(data, indices, indptr, labels, q, rho, Delta, rec_j, rec_lam, d, m):
    """The recorded visits, rows read in place: per visit the dot product, then the recorded updates."""
    a_x, a_D = np.zeros(d), np.zeros(m)
    a_r, ell = 0.0, 0.0
    for v in range(rec_j.shape[0]):
        j = rec_j[v]
        s = 0.0
        for jj in range(indptr[j], indptr[j + 1]):
            s += data[jj] * a_x[indices[jj]]
        lj = labels[j]
        p = lj * (s + rho * a_r + Delta * a_D[j])
        lam = rec_lam[v]
        if lam > 0:
            for jj in range(indptr[j], indptr[j + 1]):
                a_x[indices[jj]] += lam * (data[jj] * lj)
            a_r += lam * (rho * lj)
            a_D[j] += lam * (Delta * lj)
            ell = pt11_kernels._ell_after(ell, p, q[j], lam)
    return ell


RECORDED, DECIDED, BOX = 0, 1, 2  # replay_blocks' modes


@numba.njit
def replay_blocks(bdata, bind, bptr, blab, bq, bj, pass_block, block_start, rho, Delta, rec_lam, d, m, eps, mode):
    """The recorded visits, every pass reading its set's rows from a contiguous block (gathered
    beforehand, not timed).  ``mode``: RECORDED, each visit updates as recorded (the decision and
    lambda known in advance); DECIDED, the update decided by the box's test p <= theta as the run
    decides it, theta = eps_bar ell / t after each update, lambda from the record; BOX, also lambda
    by the box's arithmetic (pt11_kernels._lambda with its round-off guards; single updates in the
    first epoch, plain PDM's warm-up).  ell as the kernel computes it (pt11_kernels._ell_after).
    Returns (t, ell): the run's own, bit for bit, only if the replay followed its trajectory."""
    a_x, a_D = np.zeros(d), np.zeros(m)
    a_r, ell, theta = 0.0, 0.0, 0.0
    t = 0
    v = 0
    for i in range(pass_block.shape[0]):
        b = pass_block[i]
        for r in range(block_start[b], block_start[b + 1]):
            s = 0.0
            for jj in range(bptr[r], bptr[r + 1]):
                s += bdata[jj] * a_x[bind[jj]]
            j = bj[r]
            lj = blab[r]
            p = lj * (s + rho * a_r + Delta * a_D[j])
            lam = rec_lam[v]
            v += 1
            if mode != RECORDED:
                if not p <= theta:
                    lam = 0
                elif mode == BOX and i > 0:
                    lam = pt11_kernels._lambda(0, eps, t, ell, p, bq[r], BUDGET)[0]
                elif mode == BOX:
                    lam = 1
            if lam > 0:
                for jj in range(bptr[r], bptr[r + 1]):
                    a_x[bind[jj]] += lam * (bdata[jj] * lj)
                a_r += lam * (rho * lj)
                a_D[j] += lam * (Delta * lj)
                ell = pt11_kernels._ell_after(ell, p, bq[r], lam)
                t += lam
                if mode != RECORDED:
                    theta = pt11_kernels._threshold(0, eps, t, ell)
    return t, ell


def _blocks(P, labels, q, rec_j, passes):
    """One contiguous CSR block per distinct set a pass visits (a pass over the same set as the
    last pass at its level reuses that block) -> the arrays replay_blocks reads."""
    starts = np.append(passes[:, 0], rec_j.size)
    blocks, pass_block, last = [], [], {}
    for i, level in enumerate(passes[:, 1]):
        js = rec_j[starts[i] : starts[i + 1]]
        prev = last.get(level)
        if prev is not None and blocks[prev].size == js.size and np.array_equal(blocks[prev], js):
            pass_block.append(prev)
        else:
            blocks.append(js)
            last[level] = len(blocks) - 1
            pass_block.append(last[level])
    bj = np.concatenate(blocks)
    block_start = np.append(0, np.cumsum([b.size for b in blocks]))
    lens = np.diff(P.indptr)[bj]
    bptr = np.append(0, np.cumsum(lens))
    take = np.repeat(P.indptr[bj] - bptr[:-1], lens) + np.arange(bptr[-1])  # the rows' entries, in block order
    return P.data[take], P.indices[take], bptr, labels[bj], q[bj], bj, np.asarray(pass_block, np.int64), block_start


def sec4_ratios(X, y, eps: float, repeats: int, plain_seconds=None) -> dict:
    P, labels, q = _patterns(X, y)
    d, m = P.n_features, P.m
    reference.pdm(X[:50], y[:50], eps, Delta=1.0, active_sets=True, multiple_updates=True, engine="fast")  # compile
    res, rec_j, rec_lam, passes = record_visits(X, y, eps)
    assert int(rec_lam.sum()) == res.iterations, "the recorded updates are not the run's"
    blk = _blocks(P, labels, q, rec_j, passes)
    replay_in_place(P.data, P.indices, P.indptr, labels, q, 1.0, 1.0, rec_j[:1], rec_lam[:1], d, m)  # compile
    replay_blocks(*blk[:6], blk[6][:1], blk[7], 1.0, 1.0, rec_lam, d, m, eps, BOX)  # compile
    med, outs = _median_rounds({
        "sec4": lambda: reference.pdm(X, y, eps, Delta=1.0, max_iter=BUDGET, active_sets=True, multiple_updates=True, engine="fast"),
        "floor_in_place": lambda: replay_in_place(P.data, P.indices, P.indptr, labels, q, 1.0, 1.0, rec_j, rec_lam, d, m),
        "floor_memory_order": lambda: replay_blocks(*blk, 1.0, 1.0, rec_lam, d, m, eps, RECORDED),
        "floor_deciding": lambda: replay_blocks(*blk, 1.0, 1.0, rec_lam, d, m, eps, DECIDED),
        "floor_with_box_arithmetic": lambda: replay_blocks(*blk, 1.0, 1.0, rec_lam, d, m, eps, BOX),
    }, repeats)  # fmt: skip
    run = outs["sec4"]
    assert run.iterations == res.iterations and np.array_equal(run.w, res.w), "recording changed the run"
    for k in ("floor_memory_order", "floor_deciding", "floor_with_box_arithmetic"):
        assert outs[k] == (res.iterations, res.info["ell"]), f"{k}: the replay left the run's trajectory"
    out = {"updates": run.iterations, "epochs": run.info["epochs"], "passes": run.info["passes"], "visits": int(rec_j.size),
           "update_visits": int(np.count_nonzero(rec_lam)), "distinct_sets": int(blk[7].size - 1), "seconds": med["sec4"]}  # fmt: skip
    for k in ("floor_in_place", "floor_memory_order", "floor_deciding", "floor_with_box_arithmetic"):
        out[k + "_seconds"] = med[k]
        out["ratio_over_" + k] = med["sec4"] / med[k]
    if plain_seconds is not None:
        out["speedup_over_plain"] = plain_seconds / med["sec4"]
    return out


# -- 3-4. RP14 steps over G-products -----------------------------------------------------------------


def _per_step(run, k1: int, k2: int):
    """CPU seconds of one step: (time of k2 steps - time of k1 steps) / (k2 - k1)."""
    t1, r1 = _cpu(lambda: run(k1))
    t2, r2 = _cpu(lambda: run(k2))
    assert r1.iterations == k1 and r2.iterations == k2, "stopped before its budget"
    return (t2 - t1) / (k2 - k1), r2


def _own_product(G, reps: int = 20) -> float:
    from reference.fast.engine import _Gram

    kind, Gk, data, indices, indptr, d = _Gram(G).args
    n = G.shape[0]
    v, out, tmp = np.full(n, 1.0 / n), np.empty(n), np.zeros(d)
    gram_matvec(kind, Gk, data, indices, indptr, tmp, v, out)
    t, _ = _cpu(lambda: [gram_matvec(kind, Gk, data, indices, indptr, tmp, v, out) for _ in range(reps)])
    return t / reps


def _numpy_product(G, reps: int = 20) -> float:
    v = np.full(G.shape[0], 1.0 / G.shape[0])
    t, _ = _cpu(lambda: [G @ v for _ in range(reps)])
    return t / reps


def _step_ratios(G, run, k1: int, k2: int, repeats: int, numpy_product: bool) -> dict:
    steps, owns, blas = [], [], []
    for _ in range(repeats):
        s, _ = _per_step(run, k1, k2)
        steps.append(s)
        owns.append(_own_product(G))
        if numpy_product:
            blas.append(_numpy_product(G))
    step, own = float(np.median(steps)), float(np.median(owns))
    out = {"n": int(G.shape[0]), "step_seconds": step, "product_seconds": own, "ratio_step_over_product": step / own}
    if numpy_product:
        b = float(np.median(blas))
        out.update(numpy_product_seconds=b, ratio_step_over_numpy_product=step / b)
    return out


def snkp_ratios(X, y, repeats: int, n_dense: int = 2000) -> dict:
    rng = np.random.default_rng(0)
    Xg = rng.normal(size=(n_dense, 20))
    dense_p = reference.gram(Xg, rng.choice([-1, 1], n_dense))  # not separable; the softmax stays dense
    sparse_p = reference.gram(X[:n_dense].toarray(), y[:n_dense])  # the softmax underflows to a sparse p
    L = linear_gram(X, y)
    reference.snkp(np.eye(2), max_iter=2, engine="fast")  # compile
    out = {}
    for name, G, k1, k2, dense in (("dense_p", dense_p, 50, 250, True), ("sparse_p", sparse_p, 50, 250, True), ("a9a_operator", L, 50, 250, False)):
        out[name] = _step_ratios(G, lambda k, G=G: reference.snkp(G, max_iter=k, engine="fast"), k1, k2, repeats, dense)
    return out


def snkpvn_ratios(X, y, repeats: int) -> dict:
    L = linear_gram(X, y)
    q = np.full(L.n, 1.0 / L.n)
    # delta above the round-off floor of ||p||_G on a9a (2.2e-12, refused below it) and far below what
    # 220 steps reach: the run goes to its budget (_per_step checks it)
    run = lambda k: reference.snkpvn(L, q, 1e-10, max_iter=k, engine="fast")  # noqa: E731
    run(2)  # compile
    return {"a9a_operator": _step_ratios(L, run, 20, 220, repeats, False)}


# -- 5-6. fixed costs ----------------------------------------------------------------------------------


def check_gram_ratio(repeats: int, n: int = 5000) -> dict:
    from reference.data import check_gram

    rng = np.random.default_rng(1)
    Xg = rng.normal(size=(n, 30))
    G = reference.gram(Xg, np.where(Xg[:, 0] > 0, 1, -1))
    v = np.full(n, 1.0 / n)
    med, _ = _median_rounds({"check_gram": lambda: check_gram(G), "product": lambda: [G @ v for _ in range(10)]}, repeats)
    product = med["product"] / 10
    return {"n": n, "check_gram_seconds": med["check_gram"], "product_seconds": product, "products": med["check_gram"] / product}


def loader_ratio(path: Path, repeats: int) -> dict:
    try:
        from sklearn.datasets import load_svmlight_file
    except ImportError:
        return {"file": path.name, "skipped": "scikit-learn is not installed (pip install scikit-learn)"}

    med, outs = _median_rounds({"reference": lambda: reference.load_libsvm(path), "sklearn": lambda: load_svmlight_file(str(path))}, repeats)
    (X, y), (Xs, ys) = outs["reference"], outs["sklearn"]
    assert X.shape == Xs.shape and abs(X - Xs).max() == 0 and np.array_equal(y, ys), "not the same matrix"
    return {"file": path.name, "reference_seconds": med["reference"], "sklearn_seconds": med["sklearn"],
            "ratio_reference_over_sklearn": med["reference"] / med["sklearn"]}  # fmt: skip


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR),
                    help="the LIBSVM data sets (default: ../shared/data beside the repository)")
    ap.add_argument("--quick", action="store_true", help="4,000 points of a9a for the PDM ratios (smoke run)")
    ap.add_argument("--json", default=None, help="also write the numbers to this file")
    ap.add_argument("--only", nargs="+", choices=PARTS, default=list(PARTS), help="measure only these parts")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved rounds per figure (medians)")
    a = ap.parse_args(argv)
    path = Path(a.data_dir) / "a9a" / "a9a.gz"
    res = {"numba": numba.__version__, "numpy": np.__version__, "load_average_before": os.getloadavg()}
    with threadpool_limits(limits=1):
        X, y = reference.load_libsvm(path)
        Xp, yp = (X[:4000], y[:4000]) if a.quick else (X, y)
        if "pdm" in a.only:
            res["pdm"] = pdm_ratios(Xp, yp, 0.01, a.repeats)
        if "sec4" in a.only:
            res["sec4"] = sec4_ratios(Xp, yp, 0.01, a.repeats, res.get("pdm", {}).get("plain_seconds"))
        if "snkp" in a.only:
            res["snkp"] = snkp_ratios(X, y, a.repeats)
        if "snkpvn" in a.only:
            res["snkpvn"] = snkpvn_ratios(X, y, a.repeats)
        if "check_gram" in a.only:
            res["check_gram"] = check_gram_ratio(a.repeats)
        if "loader" in a.only:
            res["loader"] = loader_ratio(path, a.repeats)
    res["load_average_after"] = os.getloadavg()
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=2) + "\n")
    _print(res, a.quick)
    return 0


def _print(r: dict, quick: bool) -> None:
    la = lambda key: "/".join(f"{x:.2f}" for x in r[key])  # noqa: E731
    print(f"load average {la('load_average_before')} -> {la('load_average_after')}; CPU-time medians, BLAS on one thread")
    tag = "a9a" + ("[:4000]" if quick else "")
    if "pdm" in r:
        p = r["pdm"]
        print(f"1. {tag} plain PDM eps=0.01 ({p['updates']} updates, {p['epochs']} epochs): {p['plain_seconds']:.2f} s / "
              f"floor loop {p['floor_seconds']:.2f} s = {p['ratio_plain_over_floor']:.2f}  (target <= 1.5)")  # fmt: skip
    if "sec4" in r:
        s = r["sec4"]
        speed = f"; {s['speedup_over_plain']:.1f}x faster than plain PDM" if "speedup_over_plain" in s else ""
        print(f"2. {tag} Sec. 4 ({s['updates']} updates, {s['epochs']} epochs, {s['visits']} visits, {s['distinct_sets']} sets): "
              f"{s['seconds']:.2f} s{speed}")  # fmt: skip
        for k, what in (("floor_in_place", "rows in place"), ("floor_memory_order", "rows in memory order"),
                        ("floor_deciding", "memory order, deciding p <= theta"),
                        ("floor_with_box_arithmetic", "memory order + lambda/theta")):  # fmt: skip
            print(f"     over its replay floor, {what}: {s[k + '_seconds']:.2f} s -> {s['ratio_over_' + k]:.2f}")
    if "snkp" in r:
        for name, d in r["snkp"].items():
            blas = f", NumPy G@v {d['numpy_product_seconds'] * 1e3:.3f} ms: {d['ratio_step_over_numpy_product']:.2f}" if "numpy_product_seconds" in d else ""
            print(f"3. SNKP step / G-product, {name} n={d['n']}: "
                  f"{d['step_seconds'] * 1e3:.3f} ms / {d['product_seconds'] * 1e3:.3f} ms = {d['ratio_step_over_product']:.2f}{blas}  (target <= 1.5)")  # fmt: skip
    if "snkpvn" in r:
        d = r["snkpvn"]["a9a_operator"]
        print(f"4. SNKPVN step / G-product, a9a operator n={d['n']}: {d['step_seconds'] * 1e3:.3f} ms / "
              f"{d['product_seconds'] * 1e3:.3f} ms = {d['ratio_step_over_product']:.2f}  (target <= 2)")  # fmt: skip
    if "check_gram" in r:
        c = r["check_gram"]
        print(f"5. check_gram n={c['n']}: {c['check_gram_seconds'] * 1e3:.1f} ms = {c['products']:.1f} G-products")
    if "loader" in r and "skipped" in r["loader"]:
        print(f"6. load_libsvm: {r['loader']['skipped']}")
    elif "loader" in r:
        ld = r["loader"]
        print(f"6. load_libsvm {ld['file']}: {ld['reference_seconds'] * 1e3:.0f} ms / scikit-learn {ld['sklearn_seconds'] * 1e3:.0f} ms"
              f" = {ld['ratio_reference_over_sklearn']:.2f}  (target <= 1.5)")  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
