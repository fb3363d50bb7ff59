"""Correct variant 2: different but legitimate choices -- the Perceptron updates on the *last*
misclassified point of each scan, the argmins break ties towards the *largest* index, and the
answer is an object with attributes (not a mapping).  numpy only."""

from types import SimpleNamespace

import numpy as np


def _separates(G, v):
    """G v > 0 beyond the round-off of the product: a separator of the data, not of G's rounding
    (the allowance the reference's own verifier uses)."""
    eps = np.finfo(np.result_type(G, v)).eps
    return bool(np.all(G @ v > (np.abs(G) @ np.abs(v)) * (G.shape[1] + 16) * eps))


def _last_argmin(v, tol=1e-12):
    m = np.min(v)
    return int(np.flatnonzero(v <= m + tol)[-1])


def perceptron(X, y, *, max_iter=100_000, trace=False):
    Z = np.asarray(X, float) * np.asarray(y, float)[:, None]
    w = np.zeros(Z.shape[1])
    states = [SimpleNamespace(k=0, w=w.copy())]
    k = 0
    while True:
        bad = np.flatnonzero(Z @ w <= 0)
        if bad.size == 0:
            return SimpleNamespace(status="separator", iterations=k, w=w, alpha=None, p=None, trace=states if trace else None)
        if k >= max_iter:
            return SimpleNamespace(status="max_iter", iterations=k, w=w, alpha=None, p=None, trace=states if trace else None)
        w = w + Z[bad[-1]]
        k += 1
        states.append(SimpleNamespace(k=k, w=w.copy()))


def normalized_perceptron(X, y, *, normalize=True, max_iter=100_000, trace=False):
    Z = np.asarray(X, float) * np.asarray(y, float)[:, None]
    Zn = Z / np.linalg.norm(Z, axis=1, keepdims=True) if normalize else Z
    w = np.zeros(Z.shape[1])
    states = [SimpleNamespace(k=0, w=w.copy())]
    k = 0
    while not np.all(Z @ w > 0):
        if k >= max_iter:
            return SimpleNamespace(status="max_iter", iterations=k, w=w, trace=states if trace else None)
        j = _last_argmin(Zn @ w)
        w = w + (Zn[j] - w) / (k + 1)
        k += 1
        states.append(SimpleNamespace(k=k, w=w.copy()))
    return SimpleNamespace(status="separator", iterations=k, w=w, trace=states if trace else None)


def nkp(G, *, max_iter=100_000, trace=False):
    G = np.asarray(G, float)
    n = G.shape[0]
    counts = np.zeros(n)  # k alpha_k: how often each vertex was chosen
    k = 0
    states = [SimpleNamespace(k=0, alpha=np.zeros(n))]
    while True:
        a = counts / k if k else np.zeros(n)
        Ga = G @ a
        if _separates(G, a):
            return SimpleNamespace(status="separator", iterations=k, alpha=a, trace=states if trace else None)
        if k >= max_iter:
            return SimpleNamespace(status="max_iter", iterations=k, alpha=a, trace=states if trace else None)
        counts[_last_argmin(Ga)] += 1
        k += 1
        states.append(SimpleNamespace(k=k, alpha=counts / k))


def nvn(G, epsilon=1e-3, *, max_iter=100_000, trace=False):
    G = np.asarray(G, float)
    n = G.shape[0]
    p = np.full(n, 1.0 / n)
    states = [SimpleNamespace(k=0, p=p.copy())]
    for k in range(max_iter + 1):
        Gp = G @ p
        if np.sqrt(max(p @ Gp, 0.0)) <= epsilon:
            return SimpleNamespace(status="certificate", iterations=k, p=p, alpha=None, trace=states if trace else None)
        if _separates(G, p):
            return SimpleNamespace(status="separator", iterations=k, p=p, alpha=p, trace=states if trace else None)
        if k == max_iter:
            break
        j = _last_argmin(Gp)
        d = p.copy()
        d[j] -= 1
        den = d @ G @ d
        th = min(max((p @ G @ d) / den, 0.0), 1.0) if den > 0 else 0.0
        p = (1 - th) * p
        p[j] += th
        states.append(SimpleNamespace(k=k + 1, p=p.copy()))
    return SimpleNamespace(status="max_iter", iterations=max_iter, p=p, alpha=None, trace=states if trace else None)
