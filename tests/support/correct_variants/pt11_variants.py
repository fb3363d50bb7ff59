"""Correct variant 3: PFM / PDM / PDM-succ presenting the patterns in a fresh random order every
epoch (a different, equally valid sequence of updates), ||a||^2 recomputed instead of tracked,
eta keyword-only, answers as plain dicts without a trace.  numpy only."""

import numpy as np


def _patterns(X, y, rho, Delta):
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, float)  # scipy CSR as LIBSVM data come, or dense
    y = np.asarray(y, float)
    A = np.hstack([X, np.full((len(y), 1), rho)]) if rho is not None else X
    P = A * y[:, None]
    if Delta is not None:
        P = np.hstack([P, Delta * np.diag(y)])
    return P


def _run(P, cond, max_iter, seed, a=None, t=0):
    rng = np.random.default_rng(seed)
    a = np.zeros(P.shape[1]) if a is None else a
    while True:
        updated = False
        for k in rng.permutation(len(P)):
            if cond(a, t, float(a @ P[k])):
                if t >= max_iter:
                    return "max_iter", t, a
                a = a + P[k]
                t += 1
                updated = True
        if not updated:
            return "separator", t, a


def pdm(X, y, epsilon, *, rho=1.0, Delta=None, max_iter=100_000, seed=7):
    cond = lambda a, t, pk: pk <= (0.0 if t == 0 else (1 - epsilon) * float(a @ a) / t)
    st, t, a = _run(_patterns(X, y, rho, Delta), cond, max_iter, seed)
    return {"status": st, "iterations": t, "w": a}


def pfm(X, y, beta, *, rho=1.0, Delta=None, max_iter=100_000, seed=7):
    cond = lambda a, t, pk: pk <= beta * float(np.linalg.norm(a))
    st, t, a = _run(_patterns(X, y, rho, Delta), cond, max_iter, seed)
    return {"status": st, "iterations": t, "w": a}


def pdm_succ(X, y, epsilon, *, eta=8.0, rho=1.0, Delta=None, max_iter=100_000, seed=7):
    P = _patterns(X, y, rho, Delta)
    a, t, e = None, 0, 0.5
    while True:
        e = max(e, epsilon)
        cond = lambda a_, t_, pk, e=e: pk <= (0.0 if t_ == 0 else (1 - e) * float(a_ @ a_) / t_)
        st, t, a = _run(P, cond, max_iter, seed, a, t)
        if st != "separator" or e <= epsilon:
            return {"status": st, "iterations": t, "w": a}
        e = e / eta
