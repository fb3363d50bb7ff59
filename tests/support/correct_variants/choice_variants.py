"""Correct variant 5: every choice the papers leave open, taken differently from the reference,
and implementation techniques the reference does not use.  NKP's first best response is the
uniform point 1_n/n (spec A.7: at alpha_0 = 0 every point of the simplex is one); SNKP in the
log domain with mu_k in closed form; SNKPVN projecting onto the simplex by bisection (no sort);
a PDM that reads CSR rows directly and makes PT11 Sec. 4's multiple updates by counting; claims
made only where they survive round-off (the reference's own allowance).  numpy (and
scipy.sparse for CSR input) only."""

import numpy as np

EPS = np.finfo(float).eps


def _separates(G, a):
    """G a > 0 beyond the round-off of the product (a claim about G, not about its rounding)."""
    m = G @ a
    slack = (np.abs(G) @ np.abs(a)) * (G.shape[1] + 16) * EPS
    return bool(np.all(m > slack))


def nkp(G, *, max_iter=100_000, trace=False):
    G = np.asarray(G, dtype=float)
    n = G.shape[0]
    a = np.zeros(n)
    states = [{"k": 0, "alpha": a.copy()}]
    for k in range(max_iter + 1):
        if k >= 1 and _separates(G, a):
            return {"status": "separator", "iterations": k, "alpha": a, "trace": states if trace else None}
        if k == max_iter:
            break
        if k == 0:
            a = np.full(n, 1.0 / n)  # any point of the simplex is a best response at alpha_0 = 0
        else:
            j = int(np.argmin(G @ a))
            a = a * (k / (k + 1.0))
            a[j] += 1.0 / (k + 1.0)
        states.append({"k": k + 1, "alpha": a.copy()})
    return {"status": "max_iter", "iterations": max_iter, "alpha": a, "trace": states if trace else None}


def _log_softmax_best(v):
    """softmax(v) through log-sum-exp."""
    m = np.max(v)
    lse = m + np.log(np.sum(np.exp(v - m)))
    return np.exp(v - lse)


def snkp(G, *, max_iter=10_000, trace=False):
    G = np.asarray(G, dtype=float)
    n = G.shape[0]
    a = np.full(n, 1.0 / n)
    mu = lambda k: 4.0 / ((k + 1) * (k + 2))  # closed form of mu_0 = 2, mu_(k+1) = (1 - theta_k) mu_k
    p = _log_softmax_best(-(G @ a) / mu(0))
    states = [{"k": 0, "alpha": a.copy(), "p": p.copy(), "mu": mu(0)}]
    k = 0
    while not _separates(G, a) and k < max_iter:
        t = 2.0 / (k + 3)
        a_new = (1 - t) * (a + t * p) + t * t * _log_softmax_best(-(G @ a) / mu(k))
        p = (1 - t) * p + t * _log_softmax_best(-(G @ a_new) / mu(k + 1))
        a = a_new
        k += 1
        states.append({"k": k, "alpha": a.copy(), "p": p.copy(), "mu": mu(k)})
    status = "separator" if _separates(G, a) else "max_iter"
    return {"status": status, "iterations": k, "alpha": a, "p": p, "trace": states if trace else None}


def _proj_bisect(v):
    """The Euclidean projection onto the simplex, max(v - tau, 0) summing to 1, without sorting:
    bisection on tau until the support {v > tau} settles, then tau exactly from the support."""
    lo, hi = float(np.min(v)) - 1.0, float(np.max(v))
    support = None
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.sum(np.maximum(v - mid, 0.0)) > 1.0:
            lo = mid
        else:
            hi = mid
        s = v > lo
        tau = (float(np.sum(v[s])) - 1.0) / int(np.sum(s))
        if support is not None and np.array_equal(s, support) and np.all(v[s] > tau) and np.all(v[~s] <= tau):
            break
        support = s
    x = np.maximum(v - tau, 0.0)
    return x / np.sum(x)


def snkpvn(G, q, delta, *, max_iter=100_000):
    G, q = np.asarray(G, dtype=float), np.asarray(q, dtype=float)
    n = G.shape[0]
    a, mu = q.copy(), 2.0 * n
    p = _proj_bisect(q - G @ a / mu)
    k = 0
    while True:
        if _separates(G, a):
            return {"status": "separator", "iterations": k, "alpha": a, "p": p}
        nrm2 = float(p @ G @ p)
        if nrm2 < (1 - 1e-9) * delta * delta and abs(np.sum(p) - 1.0) <= 4 * n * EPS:
            return {"status": "certificate", "iterations": k, "alpha": a, "p": p}
        if k >= max_iter:
            return {"status": "max_iter", "iterations": k, "alpha": a, "p": p}
        t = 2.0 / (k + 3)
        a_new = (1 - t) * (a + t * p) + t * t * _proj_bisect(q - G @ a / mu)
        mu = (1 - t) * mu
        p = (1 - t) * p + t * _proj_bisect(q - G @ a_new / mu)
        a = a_new
        k += 1


def pdm(X, y, epsilon, *, rho=1.0, Delta=None, max_iter=100_000, multiple_updates=False, trace=False):
    """PDM over CSR rows (dense input converted), patterns y_k = l_k [x_k, rho, Delta e_k] formed
    on the fly; multiple updates after the first epoch, lambda counted one presentation at a time."""
    import scipy.sparse as sp

    C = sp.csr_matrix(X, dtype=float)
    m, d = C.shape
    lab = np.asarray(y, dtype=float)
    dim = d + (rho is not None) + (m if Delta is not None else 0)

    def row(k):
        v = np.zeros(dim)
        lo, hi = C.indptr[k], C.indptr[k + 1]
        v[C.indices[lo:hi]] = C.data[lo:hi] * lab[k]
        if rho is not None:
            v[d] = rho * lab[k]
        if Delta is not None:
            v[d + (rho is not None) + k] = Delta * lab[k]
        return v

    a, t, ell = np.zeros(dim), 0, 0.0
    states = [{"t": 0, "w": a.copy()}]
    epoch = 0
    while True:
        updated = False
        for k in range(m):
            yk = row(k)
            pk, qk = float(a @ yk), float(yk @ yk)
            if not pk <= (0.0 if t == 0 else (1 - epsilon) * ell / t):
                continue
            if t >= max_iter:
                return {"status": "max_iter", "iterations": t, "w": a, "trace": states if trace else None}
            lam = 1
            if multiple_updates and epoch >= 1:
                while lam < max_iter - t and pk + lam * qk <= (1 - epsilon) * (ell + 2 * lam * pk + lam * lam * qk) / (t + lam):
                    lam += 1
            a = a + lam * yk
            ell = ell + 2 * lam * pk + lam * lam * qk
            t += lam
            updated = True
            states.append({"t": t, "w": a.copy()})
        epoch += 1
        if not updated:
            return {"status": "separator", "iterations": t, "w": a, "trace": states if trace else None}
