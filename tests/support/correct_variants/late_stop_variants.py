"""Correct variant 4: different but valid stopping iterates and an independent ISNKPVN.
SNKP tests its exit only at even k (so it may stop one iterate later); SNKPVN tests the
certificate before the separator; ISNKPVN written from the paper's box with its own inner loop.
numpy only."""

import numpy as np


def _separates(G, v):
    """G v > 0 beyond the round-off of the product: a separator of the data, not of G's rounding
    (the allowance the reference's own verifier uses)."""
    eps = np.finfo(np.result_type(G, v)).eps
    return bool(np.all(G @ v > (np.abs(G) @ np.abs(v)) * (G.shape[1] + 16) * eps))


def _softmax(v):
    z = np.exp(v - np.max(v))
    return z / z.sum()


def _proj(v):
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1
    ind = np.arange(1, len(v) + 1)
    r = ind[u - css / ind > 0][-1]
    return np.maximum(v - css[r - 1] / r, 0)


def snkp(G, *, max_iter=10_000, trace=False):
    G = np.asarray(G, float)
    n = len(G)
    a = np.ones(n) / n
    mu = 2.0
    p = _softmax(-G @ a / mu)
    k = 0
    while True:
        if (k % 2 == 0 or k >= max_iter) and _separates(G, a):
            return {"status": "separator", "iterations": k, "alpha": a, "p": p}
        if k >= max_iter:
            return {"status": "max_iter", "iterations": k, "alpha": a, "p": p}
        th = 2 / (k + 3)
        a2 = (1 - th) * (a + th * p) + th**2 * _softmax(-G @ a / mu)
        mu *= 1 - th
        p = (1 - th) * p + th * _softmax(-G @ a2 / mu)
        a = a2
        k += 1


def _snkpvn(G, q, delta, max_iter):
    n = len(G)
    a, mu = q.copy(), 2.0 * n
    p = _proj(q - G @ a / mu)
    k = 0
    while True:
        if np.sqrt(max(p @ G @ p, 0)) < delta:
            return "certificate", k, a, p
        if _separates(G, a):
            return "separator", k, a, p
        if k >= max_iter:
            return "max_iter", k, a, p
        th = 2 / (k + 3)
        a2 = (1 - th) * (a + th * p) + th**2 * _proj(q - G @ a / mu)
        mu *= 1 - th
        p = (1 - th) * p + th * _proj(q - G @ a2 / mu)
        a = a2
        k += 1


def snkpvn(G, q, delta, *, max_iter=100_000):
    st, k, a, p = _snkpvn(np.asarray(G, float), np.asarray(q, float), delta, max_iter)
    return {"status": st, "iterations": k, "alpha": a, "p": p}


def isnkpvn(G, gamma=2.0, epsilon=1e-3, *, max_iter=100_000):
    G = np.asarray(G, float)
    q = np.ones(len(G)) / len(G)
    total = 0
    while True:
        nq = np.sqrt(max(q @ G @ q, 0))
        if nq * nq <= len(G) * np.finfo(float).eps:  # ||q||_G = 0 as far as float64 can tell (erratum E-A7's guard)
            return {"status": "certificate", "iterations": total, "p": q}
        delta = nq / gamma
        st, k, a, p = _snkpvn(G, q, delta, max_iter - total)
        total += k
        if st == "separator":
            return {"status": "separator", "iterations": total, "alpha": a}
        if st == "max_iter":
            return {"status": "max_iter", "iterations": total, "p": p}
        q = p
        if delta < epsilon:
            return {"status": "certificate", "iterations": total, "p": q}
