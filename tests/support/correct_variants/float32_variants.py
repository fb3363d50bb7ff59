"""Correct variant 1: the Gram-space algorithms iterated entirely in float32 (well-conditioned
data must pass).  A claim is a statement about the float64 matrix it was given, judged as the
reference judges its own: NVN states its certificate as p / sum(p) in float64 (a float32 p sums
to 1 only within 1e-7, not a point of the simplex).  numpy only."""

import numpy as np


def _separates(G, v):
    """G v > 0 beyond the round-off of the product: a separator of the data, not of G's rounding
    (the allowance the reference's own verifier uses)."""
    eps = np.finfo(np.result_type(G, v)).eps
    return bool(np.all(G @ v > (np.abs(G) @ np.abs(v)) * (G.shape[1] + 16) * eps))

F = np.float32


def _softmax(v):
    z = np.exp(v - np.max(v))
    return z / z.sum(dtype=F)


def nkp(G, *, max_iter=100_000, trace=False):
    G = np.asarray(G, dtype=F)
    n = G.shape[0]
    a = np.zeros(n, dtype=F)
    states = [{"k": 0, "alpha": a.copy()}]
    for k in range(max_iter + 1):
        Ga = G @ a
        if _separates(G, a):
            return {"status": "separator", "iterations": k, "alpha": a, "trace": states if trace else None}
        if k == max_iter:
            break
        j = int(np.argmin(Ga))
        th = F(1.0) / F(k + 1)
        a = (F(1) - th) * a
        a[j] += th
        states.append({"k": k + 1, "alpha": a.copy()})
    return {"status": "max_iter", "iterations": max_iter, "alpha": a, "trace": states if trace else None}


def snkp(G, *, max_iter=10_000, trace=False):
    G = np.asarray(G, dtype=F)
    n = G.shape[0]
    a = np.full(n, F(1.0) / F(n), dtype=F)
    mu = F(2.0)
    p = _softmax(-(G @ a) / mu)
    states = [{"k": 0, "alpha": a.copy(), "p": p.copy(), "mu": float(mu)}]
    k = 0
    while True:
        if _separates(G, a):
            return {"status": "separator", "iterations": k, "alpha": a, "p": p, "trace": states if trace else None}
        if k >= max_iter:
            return {"status": "max_iter", "iterations": k, "alpha": a, "p": p, "trace": states if trace else None}
        th = F(2.0) / F(k + 3)
        a_new = (F(1) - th) * (a + th * p) + th * th * _softmax(-(G @ a) / mu)
        mu = (F(1) - th) * mu
        p = (F(1) - th) * p + th * _softmax(-(G @ a_new) / mu)
        a = a_new
        k += 1
        states.append({"k": k, "alpha": a.copy(), "p": p.copy(), "mu": float(mu)})


def nvn(G, epsilon=1e-3, *, max_iter=100_000):
    G = np.asarray(G, dtype=F)
    n = G.shape[0]
    p = np.full(n, F(1.0) / F(n), dtype=F)
    for k in range(max_iter + 1):
        Gp = G @ p
        if np.sqrt(max(float(p @ Gp), 0.0)) <= epsilon:
            c = p.astype(np.float64) / np.sum(p, dtype=np.float64)
            return {"status": "certificate", "iterations": k, "p": c}
        if _separates(G, p):
            return {"status": "separator", "iterations": k, "alpha": p, "p": p}
        if k == max_iter:
            break
        j = int(np.argmin(Gp))
        ww, wa, aa = float(p @ Gp), float(Gp[j]), float(G[j, j])
        den = ww - 2 * wa + aa
        th = F(min(max((ww - wa) / den, 0.0), 1.0)) if den > 0 else F(0)
        p = (F(1) - th) * p
        p[j] += th
    return {"status": "max_iter", "iterations": max_iter, "p": p}
