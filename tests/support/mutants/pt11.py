"""Plausible wrong PFM / PDM / PDM-succ implementations (numpy only; one mutant per public
function).  Bias by augmentation with rho, like the paper."""

import numpy as np


def _patterns(X, y, rho, Delta=None):
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if rho is not None:
        X = np.hstack([X, np.full((X.shape[0], 1), float(rho))])
    P = X * y[:, None]
    if Delta is not None:
        P = np.hstack([P, np.diag(Delta * y)])
    return P


def _pdm(P, eps, max_iter, *, threshold="dynamic", beta=None, strict=False, t_offset=0, a=None, t=0, max_epochs=100_000):
    a = np.zeros(P.shape[1]) if a is None else a
    l = float(a @ a)
    for _ in range(max_epochs):
        updated = False
        for yk in P:
            pk = float(a @ yk)
            if threshold == "dynamic":
                thr = 0.0 if t == 0 else (1 - eps) * l / t
            elif threshold == "dynamic_norm":
                thr = 0.0 if t == 0 else (1 - eps) * np.sqrt(l) / t
            elif threshold == "fixed":
                thr = beta * np.sqrt(l)
            else:  # "fixed_no_norm"
                thr = beta
            if (pk < thr) if strict else (pk <= thr):
                if t >= max_iter:
                    return "max_iter", t + t_offset, a
                a = a + yk
                l = l + 2 * pk + float(yk @ yk)
                t += 1
                updated = True
        if not updated:
            return "separator", t + t_offset, a
    return "max_iter", t + t_offset, a


def _answer(res):
    status, t, a = res
    return {"status": status, "iterations": int(t), "w": a}


def pdm_norm_not_squared(X, y, epsilon, *, rho=1.0, Delta=None, max_iter=100_000):
    """PDM's threshold with ||a_t|| instead of ||a_t||^2: (1-eps)||a_t||/t."""
    return _answer(_pdm(_patterns(X, y, rho, Delta), epsilon, max_iter, threshold="dynamic_norm"))


def pdm_off_by_one(X, y, epsilon, *, rho=1.0, Delta=None, max_iter=100_000):
    """Off-by-one in t: reports t + 1 updates."""
    return _answer(_pdm(_patterns(X, y, rho, Delta), epsilon, max_iter, t_offset=1))


def pdm_strict_less(X, y, epsilon, *, rho=1.0, Delta=None, max_iter=100_000):
    """< instead of <= in the condition (8): at t = 0 nothing updates (E-B7), a = 0 is returned."""
    return _answer(_pdm(_patterns(X, y, rho, Delta), epsilon, max_iter, strict=True))


def pdm_no_bias(X, y, epsilon, *, max_iter=100_000):
    """Forgets the augmentation (no rho coordinate): w lives in the wrong space."""
    return _answer(_pdm(_patterns(X, y, None), epsilon, max_iter))


def pdm_own_budget_no_bias(X, y, epsilon, *, rho=1.0, Delta=None, max_iter=100_000):
    """Ignores max_iter (runs its own budget of 10^8 epochs) and forgets the bias (its w carries a
    0 in the bias coordinate): on data that need the bias it never converges, and takes hours to
    give up."""
    status, t, a = _pdm(_patterns(X, y, None, Delta), epsilon, 10**12, max_epochs=10**8)
    d = X.shape[1]
    return _answer((status, t, np.insert(a, d, 0.0)))


def pfm_threshold_without_norm(X, y, beta, *, rho=1.0, Delta=None, max_iter=100_000):
    """PFM's condition a.y <= beta instead of a.y <= beta ||a||."""
    return _answer(_pdm(_patterns(X, y, rho, Delta), None, max_iter, threshold="fixed_no_norm", beta=beta))


def pdm_succ_restarts(X, y, epsilon, eta=8.0, *, rho=1.0, Delta=None, max_iter=100_000):
    """Successive runs that restart from a = 0 each time but keep counting t."""
    P = _patterns(X, y, rho, Delta)
    eps_n, t = 0.5, 0
    while True:
        e = max(eps_n, epsilon)
        status, dt, a = _pdm(P, e, max_iter - t, t=0)
        t += dt
        if status != "separator" or e <= epsilon:
            return {"status": status, "iterations": t, "w": a}
        eps_n /= eta
