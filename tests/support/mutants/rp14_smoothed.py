"""Plausible wrong SNKP / SNKPVN / ISNKPVN / NVN implementations (numpy only; one mutant per
public function)."""

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


def _softmax_max_shift(v):
    """exp(v - min(v)): the shift on the wrong side, so the largest entry is exp((max - min) / mu)."""
    z = np.exp(v - np.min(v))
    return z / z.sum()


def _snkp(G, max_iter, trace, *, theta=lambda k: 2.0 / (k + 3), update_mu=True, stale_p=False, softmax=_softmax):
    G = np.asarray(G, dtype=float)
    n = G.shape[0]
    a = np.full(n, 1.0 / n)
    mu = 2.0
    _softmax = softmax
    p = _softmax(-(G @ a) / mu)
    k = 0
    states = [{"k": 0, "alpha": a.copy(), "p": p.copy(), "mu": mu}] if trace else None
    while True:
        if np.all(G @ a > 0):
            return {"status": "separator", "iterations": k, "alpha": a, "p": p, "trace": states}
        if k >= max_iter:
            return {"status": "max_iter", "iterations": k, "alpha": a, "p": p, "trace": states}
        t = theta(k)
        pm = _softmax(-(G @ a) / mu)
        a_new = (1 - t) * (a + t * p) + t * t * pm
        mu_new = (1 - t) * mu if update_mu else mu
        pb = pm if stale_p else _softmax(-(G @ a_new) / mu_new)
        p = (1 - t) * p + t * pb
        a, mu = a_new, mu_new
        k += 1
        if trace:
            states.append({"k": k, "alpha": a.copy(), "p": p.copy(), "mu": mu})


def snkp_theta_k2(G, *, max_iter=10_000, trace=False):
    """theta_k = 1/(k+2) instead of 2/(k+3)."""
    return _snkp(G, max_iter, trace, theta=lambda k: 1.0 / (k + 2))


def snkp_max_shift_softmax(G, *, max_iter=10_000, trace=False):
    """The softmax exp(-G alpha / mu) is shifted by max(G alpha) instead of min(G alpha): it
    overflows (NaN) once mu_k is small, i.e. on runs longer than about 50 iterations."""
    return _snkp(G, max_iter, trace, softmax=_softmax_max_shift)


def snkp_mu_frozen(G, *, max_iter=10_000, trace=False):
    """mu is never updated (mu_k = 2 throughout)."""
    return _snkp(G, max_iter, trace, update_mu=False)


def snkp_stale_best_response(G, *, max_iter=10_000, trace=False):
    """The p-update reuses p_{mu_k}(alpha_k) (old mu, old alpha) instead of p_{mu_k+1}(alpha_k+1)."""
    return _snkp(G, max_iter, trace, stale_p=True)


def _snkpvn(G, q, delta, max_iter, trace, *, project=True, mu0=None, check_cert=True):
    G = np.asarray(G, dtype=float)
    q = np.asarray(q, dtype=float)
    n = G.shape[0]
    best = (lambda v: _proj(v)) if project else (lambda v: v)
    a = q.copy()
    mu = 2.0 * n if mu0 is None else mu0
    p = best(q - G @ a / mu)
    k = 0
    states = [{"k": 0, "alpha": a.copy(), "p": p.copy(), "mu": mu}] if trace else None
    while True:
        if np.all(G @ a > 0):
            return {"status": "separator", "iterations": k, "alpha": a, "p": p, "trace": states}
        if _gnorm(G, p) < delta:
            return {"status": "certificate", "iterations": k, "alpha": a, "p": p, "trace": states}
        if k >= max_iter:
            return {"status": "certificate" if not check_cert else "max_iter", "iterations": k, "alpha": a, "p": p, "trace": states}
        t = 2.0 / (k + 3)
        a_new = (1 - t) * (a + t * p) + t * t * best(q - G @ a / mu)
        mu = (1 - t) * mu
        p = (1 - t) * p + t * best(q - G @ a_new / mu)
        a = a_new
        k += 1
        if trace:
            states.append({"k": k, "alpha": a.copy(), "p": p.copy(), "mu": mu})


def snkpvn_no_projection(G, q, delta, *, max_iter=100_000, trace=False):
    """Missing projection onto the simplex: p^q_mu(alpha) = q - G alpha / mu."""
    return _snkpvn(G, q, delta, max_iter, trace, project=False)


def snkpvn_mu0_two(G, q, delta, *, max_iter=100_000, trace=False):
    """mu_0 = 2 (SNKP's value) instead of 2n: the excessive gap condition can fail (E-A4)."""
    return _snkpvn(G, q, delta, max_iter, trace, mu0=2.0)


def snkpvn_unchecked_certificate(G, q, delta, *, max_iter=100_000, trace=False):
    """Returns p as a certificate when the budget runs out, without checking ||p||_G < delta."""
    return _snkpvn(G, q, delta, max_iter, False, check_cert=False)


def isnkpvn_certificate_unchecked(G, gamma=2.0, epsilon=1e-3, *, max_iter=100_000, trace=False):
    """Returns the first inner certificate as the answer without checking delta_t < eps."""
    G = np.asarray(G, dtype=float)
    n = G.shape[0]
    qv = np.full(n, 1.0 / n)
    total = 0
    while total < max_iter:
        nq = _gnorm(G, qv)
        if nq == 0:
            return {"status": "certificate", "iterations": total, "p": qv}
        r = _snkpvn(G, qv, nq / gamma, max_iter - total, False)
        total += r["iterations"]
        if r["status"] == "separator":
            return {"status": "separator", "iterations": total, "alpha": r["alpha"]}
        if r["status"] == "certificate":
            return {"status": "certificate", "iterations": total, "p": r["p"]}  # BUG: delta_t < eps not checked
        break
    return {"status": "max_iter", "iterations": total, "p": qv}


def _nvn(G, epsilon, max_iter, trace, *, argmax=False, squared=False, wrong_sign=False):
    G = np.asarray(G, dtype=float)
    n = G.shape[0]
    p = np.full(n, 1.0 / n)
    k = 0
    states = [{"k": 0, "p": p.copy()}] if trace else None
    while True:
        nrm2 = max(p @ G @ p, 0.0)
        if (nrm2 if squared else np.sqrt(nrm2)) <= epsilon:
            return {"status": "certificate", "iterations": k, "p": p, "trace": states}
        Gp = G @ p
        if np.all(Gp > 0):
            return {"status": "separator", "iterations": k, "alpha": p, "p": p, "trace": states}
        if k >= max_iter:
            return {"status": "max_iter", "iterations": k, "p": p, "trace": states}
        j = int(np.argmax(Gp)) if argmax else int(np.argmin(Gp))
        e = np.zeros(n)
        e[j] = 1.0
        d = p - e
        num = -(p @ G @ d) if wrong_sign else p @ G @ d
        den = d @ G @ d
        th = min(max(num / den, 0.0), 1.0) if den > 0 else 0.0
        p = (1 - th) * p + th * e
        k += 1
        if trace:
            states.append({"k": k, "p": p.copy()})


def nvn_argmax(G, epsilon=1e-3, *, max_iter=100_000, trace=False):
    """argmax for argmin in the choice of the von Neumann vertex."""
    return _nvn(G, epsilon, max_iter, trace, argmax=True)


def nvn_squared_test(G, epsilon=1e-3, *, max_iter=100_000, trace=False):
    """Certificate test on ||p||_G^2 <= eps instead of ||p||_G <= eps."""
    return _nvn(G, epsilon, max_iter, trace, squared=True)


def nvn_line_search_sign(G, epsilon=1e-3, *, max_iter=100_000, trace=False):
    """Sign error in the closed-form line search: theta = clip(<w, a - w>/||w - a||^2, 0, 1)."""
    return _nvn(G, epsilon, max_iter, trace, wrong_sign=True)
