"""Plausible wrong implementations whose claims can still hold: a counter that is off, an update
that uses the neighbouring quantity, an exit test without a round-off allowance, a prox-centre
ignored, a sparse row read short, a multiple update that is not capped or counts one too many, a
PDM-succ schedule that starts at the wrong accuracy, a counter that wraps on long runs.  numpy (and scipy.sparse
for the CSR reader) only; each written as a user would write it."""

import numpy as np


def _softmax(v):
    z = np.exp(v - np.max(v))
    return z / z.sum()


def _proj(v):
    u = np.sort(v)[::-1]
    c = np.cumsum(u)
    r = np.nonzero(u - (c - 1) / np.arange(1, len(v) + 1) > 0)[0][-1]
    return np.maximum(v - (c[r] - 1) / (r + 1), 0.0)


def _gnorm(G, v):
    return float(np.sqrt(max(v @ G @ v, 0.0)))


# -- RP14 ----------------------------------------------------------------------------------------


def snkp_counts_from_one(G, *, max_iter=10_000):
    """Counts the initial best response p_0 as the first iteration (k starts at 1): every counter
    is one too high, the vector is right."""
    G = np.asarray(G, dtype=float)
    n = G.shape[0]
    a, mu = np.full(n, 1.0 / n), 2.0
    p = _softmax(-(G @ a) / mu)
    k = 0
    while not np.all(G @ a > 0) and k < max_iter:
        t = 2.0 / (k + 3)
        a_new = (1 - t) * (a + t * p) + t * t * _softmax(-(G @ a) / mu)
        mu = (1 - t) * mu
        p = (1 - t) * p + t * _softmax(-(G @ a_new) / mu)
        a = a_new
        k += 1
    return {"status": "separator" if np.all(G @ a > 0) else "max_iter", "iterations": k + 1, "alpha": a, "p": p}


def snkpvn_old_mu_in_p(G, q, delta, *, max_iter=100_000):
    """SNKPVN's p-update takes the best response at the *old* mu_k (mu is updated after p, not
    before): the excessive-gap argument needs mu_(k+1) there."""
    G, q = np.asarray(G, dtype=float), np.asarray(q, dtype=float)
    n = G.shape[0]
    a, mu = q.copy(), 2.0 * n
    p = _proj(q - G @ a / mu)
    k = 0
    while True:
        if np.all(G @ a > 0):
            return {"status": "separator", "iterations": k, "alpha": a, "p": p}
        if _gnorm(G, p) < delta:
            return {"status": "certificate", "iterations": k, "alpha": a, "p": p}
        if k >= max_iter:
            return {"status": "max_iter", "iterations": k, "alpha": a, "p": p}
        t = 2.0 / (k + 3)
        a_new = (1 - t) * (a + t * p) + t * t * _proj(q - G @ a / mu)
        p = (1 - t) * p + t * _proj(q - G @ a_new / mu)
        mu = (1 - t) * mu
        a = a_new
        k += 1


def snkpvn_uniform_prox_centre(G, q, delta, *, max_iter=100_000):
    """Starts at alpha_0 = q but smooths towards the uniform point 1_n/n instead of q (the prox
    function d_q(x) = ||x - q||^2/2 read as ||x - 1_n/n||^2/2): right only when q = 1_n/n."""
    G, q = np.asarray(G, dtype=float), np.asarray(q, dtype=float)
    n = G.shape[0]
    c = np.full(n, 1.0 / n)
    a, mu = q.copy(), 2.0 * n
    p = _proj(c - G @ a / mu)
    k = 0
    while True:
        if np.all(G @ a > 0):
            return {"status": "separator", "iterations": k, "alpha": a, "p": p}
        if _gnorm(G, p) < delta:
            return {"status": "certificate", "iterations": k, "alpha": a, "p": p}
        if k >= max_iter:
            return {"status": "max_iter", "iterations": k, "alpha": a, "p": p}
        t = 2.0 / (k + 3)
        a_new = (1 - t) * (a + t * p) + t * t * _proj(c - G @ a / mu)
        mu = (1 - t) * mu
        p = (1 - t) * p + t * _proj(c - G @ a_new / mu)
        a = a_new
        k += 1


def nvn_float_exit(G, epsilon=1e-3, *, max_iter=100_000):
    """NVN whose separator exit is G p > 0 in plain float64: where G was rounded (x and -x under
    one label, ||x||^2 not a power of 2) G p > 0 holds by round-off alone, and it claims a
    separator of data that have none."""
    G = np.asarray(G, dtype=float)
    n = G.shape[0]
    p = np.full(n, 1.0 / n)
    for k in range(max_iter + 1):
        Gp = G @ p
        if np.all(Gp > 0):
            return {"status": "separator", "iterations": k, "alpha": p, "p": p}
        if np.sqrt(max(float(p @ Gp), 0.0)) <= epsilon:
            return {"status": "certificate", "iterations": k, "p": p}
        if k == max_iter:
            break
        j = int(np.argmin(Gp))
        ww, wa, aa = float(p @ Gp), float(Gp[j]), float(G[j, j])
        den = ww - 2 * wa + aa
        th = min(max((ww - wa) / den, 0.0), 1.0) if den > 0 else 0.0
        p = (1 - th) * p
        p[j] += th
    return {"status": "max_iter", "iterations": max_iter, "p": p}


def nkp_average_lags(G, *, max_iter=100_000, trace=False):
    """Updates the average with theta_k = 1/k from k = 1 on (the first vertex counted twice): the
    average of k iterates is off by one vertex, the vertices are right."""
    G = np.asarray(G, dtype=float)
    n = G.shape[0]
    a = np.zeros(n)
    states = [{"k": 0, "alpha": a.copy()}]
    k = 0
    while True:
        Ga = G @ a
        if k >= 1 and np.all(Ga > 0):
            return {"status": "separator", "iterations": k, "alpha": a, "trace": states if trace else None}
        if k >= max_iter:
            return {"status": "max_iter", "iterations": k, "alpha": a, "trace": states if trace else None}
        j = int(np.argmin(Ga))
        th = 1.0 if k == 0 else 1.0 / (k + 1) if k == 1 else 1.0 / k
        a = (1 - th) * a
        a[j] += th
        k += 1
        states.append({"k": k, "alpha": a.copy()})


# -- PT11 ----------------------------------------------------------------------------------------


def _patterns(X, y, rho, Delta):
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    A = np.hstack([X, np.full((len(y), 1), rho)]) if rho is not None else X
    P = A * y[:, None]
    if Delta is not None:
        P = np.hstack([P, Delta * np.diag(y)])
    return P


def _cyclic(P, cond, max_iter, *, multiple=None, cap=True, a=None, t=0, dtype=float, trace=None):
    """The PDM box: a full pass over the patterns in order, an update wherever ``cond`` holds;
    ``multiple(a, t, k)``: how many repeated updates with y_k (PT11 Sec. 4)."""
    a = np.zeros(P.shape[1], dtype=dtype) if a is None else a
    while True:
        updated = False
        for k in range(len(P)):
            yk = P[k].astype(dtype)
            if cond(a, t, float(a @ yk)):
                if t >= max_iter:
                    return "max_iter", t, a
                lam = 1 if multiple is None or t == 0 else multiple(a, t, k)
                if cap:
                    lam = min(lam, max_iter - t)
                a = a + lam * yk
                t += lam
                updated = True
                if trace is not None:
                    trace.append({"t": t, "w": a.astype(float)})
        if not updated:
            return "separator", t, a


def _pdm_cond(eps):
    return lambda a, t, pk: pk <= (0.0 if t == 0 else (1 - eps) * float(a @ a) / t)


def _lambda_by_counting(P, eps, extra=0):
    """The number of repeated updates with y_k that keep condition (8), counted one by one."""
    def lam(a, t, k):
        n = 1
        while True:
            b = a + n * P[k]
            if float(b @ P[k]) <= (1 - eps) * float(b @ b) / (t + n) and n < 10**6:
                n += 1
            else:
                return n + extra
    return lam


def pdm_csr_drops_first_entry(X, y, epsilon, *, rho=1.0, Delta=None, max_iter=100_000):
    """Reads a CSR matrix row by row from data[indptr[i] + 1 : indptr[i + 1]] (an off-by-one
    in the slice): the first stored entry of every row is lost; dense input is right."""
    if hasattr(X, "indptr"):
        D = np.zeros(X.shape)
        for i in range(X.shape[0]):
            lo, hi = X.indptr[i] + 1, X.indptr[i + 1]
            D[i, X.indices[lo:hi]] = X.data[lo:hi]
        X = D
    st, t, a = _cyclic(_patterns(X, y, rho, Delta), _pdm_cond(epsilon), max_iter)
    return {"status": st, "iterations": t, "w": a}


def pdm_multiple_uncapped(X, y, epsilon, *, rho=1.0, Delta=None, max_iter=100_000, multiple_updates=False):
    """Multiple updates (PT11 Sec. 4) counted correctly but not capped at the budget: a multiple
    update that starts below max_iter ends above it."""
    P = _patterns(X, y, rho, Delta)
    mult = _lambda_by_counting(P, epsilon) if multiple_updates else None
    st, t, a = _cyclic(P, _pdm_cond(epsilon), max_iter, multiple=mult, cap=False)
    return {"status": st, "iterations": t, "w": a}


def pdm_multiple_one_too_many(X, y, epsilon, *, rho=1.0, Delta=None, max_iter=100_000, multiple_updates=False, trace=False):
    """Multiple updates that count the first presentation that no longer satisfies (8) as an
    update (lambda = mu_+ + 2 where PT11 has floor(mu_+) + 1)."""
    P = _patterns(X, y, rho, Delta)
    mult = _lambda_by_counting(P, epsilon, extra=1) if multiple_updates else None
    states = [{"t": 0, "w": np.zeros(P.shape[1])}] if trace else None
    st, t, a = _cyclic(P, _pdm_cond(epsilon), max_iter, multiple=mult, trace=states)
    return {"status": st, "iterations": t, "w": a, "trace": states}


def pdm_succ_starts_at_eta_eps(X, y, epsilon, eta=8.0, *, rho=1.0, Delta=None, max_iter=100_000, trace=False):
    """PDM-succ whose schedule starts at eps_1 = eta * eps (then eps) instead of eps_1 = 1/2,
    1/(2 eta), ... : the first run already asks for a margin PT11's schedule reaches later."""
    P = _patterns(X, y, rho, Delta)
    states = [{"t": 0, "w": np.zeros(P.shape[1])}] if trace else None
    a, t = None, 0
    for e in (min(eta * epsilon, 0.95), epsilon):
        st, t, a = _cyclic(P, _pdm_cond(e), max_iter, a=a, t=t, trace=states)
        if st != "separator":
            break
    return {"status": st, "iterations": t, "w": a, "trace": states}


def pdm_short_counter(X, y, epsilon, *, rho=1.0, Delta=None, max_iter=10**7):
    """Counts updates in a 16-bit integer (a kernel's short counter): exact for the first 32,767
    updates; on a long run t wraps to -32,768, the threshold (1 - eps) ell/t turns negative, no
    pattern satisfies it, and it reports convergence with a negative counter."""
    P = _patterns(X, y, rho, Delta)
    a, t = np.zeros(P.shape[1]), np.int16(0)
    with np.errstate(over="ignore"):
        while True:
            updated = False
            for yk in P:
                pk = float(a @ yk)
                if pk <= (0.0 if t == 0 else (1 - epsilon) * float(a @ a) / float(t)):
                    if int(t) >= max_iter:
                        return {"status": "max_iter", "iterations": int(t), "w": a}
                    a = a + yk
                    t = np.int16(t + np.int16(1))
                    updated = True
            if not updated:
                return {"status": "separator", "iterations": int(t), "w": a}
