"""Plausible wrong Perceptron / Normalized Perceptron / NKP implementations, written the way a
user would write them (numpy, no import of ``reference``).  Each public function is one mutant."""

import numpy as np


def _result(status, k, trace, **vecs):
    out = {"status": status, "iterations": int(k), "trace": trace}
    out.update(vecs)
    return out


def _perceptron(X, y, max_iter, trace, *, strict=False, use_labels=True, count_offset=0):
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    Z = X * y[:, None] if use_labels else X
    w = np.zeros(X.shape[1])
    k = 0
    states = [{"k": 0, "w": w.copy()}] if trace else None
    while True:
        m = Z @ w
        bad = np.flatnonzero(m < 0) if strict else np.flatnonzero(m <= 0)
        if bad.size == 0:
            return _result("separator", k + count_offset, states, w=w)
        if k >= max_iter:
            return _result("max_iter", k + count_offset, states, w=w)
        w = w + Z[bad[0]]
        k += 1
        if trace:
            states.append({"k": k, "w": w.copy()})


def perceptron_strict_less(X, y, *, max_iter=100_000, trace=False):
    """Mistake test ``y <w, x> < 0`` instead of ``<= 0``: w_0 = 0 has no mistakes and is returned."""
    return _perceptron(X, y, max_iter, trace, strict=True)


def perceptron_ignores_labels(X, y, *, max_iter=100_000, trace=False):
    """Sign flip: updates with x_i instead of y_i x_i (the labels are never used)."""
    return _perceptron(X, y, max_iter, trace, use_labels=False)


def perceptron_off_by_one(X, y, *, max_iter=100_000, trace=False):
    """Counts the final check as an iteration: reports k + 1."""
    return _perceptron(X, y, max_iter, False, count_offset=1)


def _normalized(X, y, max_iter, trace, *, normalize=True, argmax=False, theta=lambda k: 1.0 / (k + 1)):
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    Z = X * y[:, None]
    Zw = Z / np.linalg.norm(Z, axis=1, keepdims=True) if normalize else Z
    w = np.zeros(X.shape[1])
    k = 0
    states = [{"k": 0, "w": w.copy()}] if trace else None
    while True:
        if np.all(Z @ w > 0):
            return _result("separator", k, states, w=w)
        if k >= max_iter:
            return _result("max_iter", k, states, w=w)
        m = Zw @ w
        j = int(np.argmax(m)) if argmax else int(np.argmin(m))
        t = theta(k)
        w = (1 - t) * w + t * Zw[j]
        k += 1
        if trace:
            states.append({"k": k, "w": w.copy()})


def normalized_perceptron_unnormalized(X, y, *, normalize=True, max_iter=100_000, trace=False):
    """Data not normalized: runs Alg. 2 on X instead of X_2 (ignores ``normalize``)."""
    return _normalized(X, y, max_iter, trace, normalize=False)


def normalized_perceptron_argmax(X, y, *, normalize=True, max_iter=100_000, trace=False):
    """argmax for argmin: moves towards the best-classified point."""
    return _normalized(X, y, max_iter, trace, argmax=True)


def _nkp(G, max_iter, trace, *, theta=lambda k: 1.0 / (k + 1), argmax=False):
    G = np.asarray(G, dtype=float)
    n = G.shape[0]
    a = np.zeros(n)
    k = 0
    states = [{"k": 0, "alpha": a.copy()}] if trace else None
    while True:
        Ga = G @ a
        if np.all(Ga > 0):
            return _result("separator", k, states, alpha=a)
        if k >= max_iter:
            return _result("max_iter", k, states, alpha=a)
        j = int(np.argmax(Ga)) if argmax else int(np.argmin(Ga))
        t = theta(k)
        e = np.zeros(n)
        e[j] = 1.0
        a = (1 - t) * a + t * e
        k += 1
        if trace:
            states.append({"k": k, "alpha": a.copy()})


def nkp_theta_off(G, *, max_iter=100_000, trace=False):
    """theta_k = 1/(k+2) instead of 1/(k+1): alpha_k is no longer an average (leaves the simplex)."""
    return _nkp(G, max_iter, trace, theta=lambda k: 1.0 / (k + 2))


def nkp_argmax(G, *, max_iter=100_000, trace=False):
    """argmax for argmin in p(alpha)."""
    return _nkp(G, max_iter, trace, argmax=True)


def _ruled_perceptron(X, y, rule, max_iter, trace, *, restart=False):
    """A Perceptron that takes ``rule``: cyclic (continuing, or restarting at 0 with ``restart``)
    or most-violated."""
    Z = np.asarray(X, dtype=float) * np.asarray(y, dtype=float)[:, None]
    n = Z.shape[0]
    w = np.zeros(Z.shape[1])
    k, start = 0, 0
    states = [{"k": 0, "w": w.copy()}] if trace else None
    while True:
        m = Z @ w
        if np.all(m > 0):
            return _result("separator", k, states, w=w)
        if k >= max_iter:
            return _result("max_iter", k, states, w=w)
        if rule == "most_violated":
            j = int(np.argmin(m))
        else:
            j = next(i for i in ((start + o) % n for o in range(n)) if m[i] <= 0)
        w = w + Z[j]
        k += 1
        start = 0 if restart else (j + 1) % n
        if trace:
            states.append({"k": k, "w": w.copy()})


def perceptron_ignores_rule(X, y, *, rule="cyclic", max_iter=100_000, trace=False):
    """Accepts ``rule`` but always scans cyclically (``rule="most_violated"`` is ignored)."""
    return _ruled_perceptron(X, y, "cyclic", max_iter, trace)


def perceptron_cyclic_restarts(X, y, *, rule="cyclic", max_iter=100_000, trace=False):
    """Its cyclic scan restarts at index 0 after every update instead of continuing after it."""
    return _ruled_perceptron(X, y, rule, max_iter, trace, restart=True)


def perceptron_ignores_rule_untraced(X, y, *, rule="cyclic", max_iter=100_000):
    """Accepts ``rule``, always scans cyclically, and returns no trace (only --strict can see it)."""
    return _ruled_perceptron(X, y, "cyclic", max_iter, False)
