"""``margins demo``: every algorithm on a small built-in suite, with its paper bound and the
certified margin, in one table.  Every returned claim is re-verified here, independently of the
library's own verification, before the row is marked verified.
"""

from __future__ import annotations

from importlib import resources
from typing import Dict, List, Tuple

import numpy as np

import reference

from . import paper_bounds as pb

__all__ = ["demo_instances", "run_demo", "MARGINS", "margin_of"]

EPS_NVN = 1e-3  # NVN / SNKPVN / ISNKPVN accuracy
EPS_PDM = 0.1  # PFM / PDM / PDM-succ accuracy
GAMMA = 2.0  # ISNKPVN

#: The margins the demo certifies, by the name each row prints (the papers' symbols, in ASCII).
MARGINS = {
    "rho": "RP14's margin of the points as given: max over unit w of min_i y_i w.x_i (Block-Novikoff, R^2/rho^2)",
    "rho_2": "RP14's margin of the unit-norm points x_i/||x_i|| (Normalized Perceptron, 1/rho_2^2)",
    "rho_K": "RP14's margin of the normalized kernel Gram matrix G (Sec. 3; rho_2 for the linear kernel; "
             "negative, -delta_max, on infeasible data)",
    "gamma_d": "PT11's directional margin of the patterns [x, rho = 1] (extended by Delta when the instance says so)",
}


def margin_of(name: str) -> str:
    """Which margin the certified interval of algorithm ``name``'s row is (a key of :data:`MARGINS`)."""
    if name == "perceptron":
        return "rho"
    if name == "normalized_perceptron":
        return "rho_2"
    if name in ("pfm", "pdm", "pdm_succ"):
        return "gamma_d"
    return "rho_K"


def _separable(seed: int = 0, n: int = 40, d: int = 3, gap: float = 0.05):
    """Points of the unit cube, labelled by sign(<u, x>), kept only if |<u, x>| >= gap."""
    rng = np.random.default_rng(seed)
    u = np.array([1.0, -2.0, 0.5][:d])
    u = u / np.linalg.norm(u)
    X = []
    while len(X) < n:
        x = rng.uniform(-1, 1, size=d)
        if abs(x @ u) >= gap:
            X.append(x)
    X = np.array(X)
    return X, np.where(X @ u > 0, 1, -1)


def _infeasible(seed: int = 1, n: int = 9, d: int = 3):
    """Unit vectors whose convex hull contains the origin (labels all +1): Gordan's case 2."""
    rng = np.random.default_rng(seed)
    while True:
        X = rng.normal(size=(n, d))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        y = np.ones(n, dtype=int)
        if reference.margin(reference.gram(X, y), of="span").upper < 0:
            return X, y


def _rings(n: int = 24):
    """Two concentric rings (radius 0.5 labelled +1, radius 1.5 labelled -1): separable only by a kernel."""
    ang = np.linspace(0, 2 * np.pi, n // 2, endpoint=False)
    inner = 0.5 * np.c_[np.cos(ang), np.sin(ang)]
    outer = 1.5 * np.c_[np.cos(ang + 0.1), np.sin(ang + 0.1)]
    return np.vstack([inner, outer]), np.r_[np.ones(n // 2, int), -np.ones(n // 2, int)]


def _heart(limit: int = 80):
    """The first ``limit`` rows of LIBSVM's heart_scale (Statlog Heart), shipped in the package."""
    path = resources.files("reference.data_files") / "heart_scale.txt"
    with resources.as_file(path) as p:
        X, y = reference.load_libsvm(p, n_features=13)
    return X[:limit].toarray(), y[:limit]


def demo_instances() -> Dict[str, dict]:
    """name -> dict(X, y, kernel, params, algorithms, Delta)."""
    Xs, ys = _separable()
    Xi, yi = _infeasible()
    Xr, yr = _rings()
    Xh, yh = _heart()
    gram_algos = ["nkp", "snkp", "nvn", "snkpvn", "isnkpvn"]
    return {
        "separable(n=40,d=3)": dict(X=Xs, y=ys, kernel="linear", params={}, algorithms=list(reference.ALGORITHMS), Delta=None),
        "infeasible(n=9,d=3)": dict(X=Xi, y=yi, kernel="linear", params={}, algorithms=["nvn", "snkpvn", "isnkpvn"], Delta=None),
        "rings+gaussian(n=24)": dict(X=Xr, y=yr, kernel="gaussian", params={"sigma": 1.0}, algorithms=gram_algos, Delta=None),
        "heart_scale[:80]+gaussian": dict(X=Xh, y=yh, kernel="gaussian", params={"sigma": 1.0}, algorithms=gram_algos, Delta=None),
        "heart_scale[:80]+extension(Delta=1)": dict(X=Xh, y=yh, kernel="linear", params={}, algorithms=["pfm", "pdm", "pdm_succ"], Delta=1.0),
    }


def _patterns(X, y, Delta):
    """PT11's augmented (rho = 1), reflected and optionally extended patterns."""
    P = reference.reflect(reference.augment(X, 1.0), y)
    return reference.extend(P, y, Delta) if Delta is not None else P


def _independent_verify(name: str, res, G, Pprimal) -> bool:
    """Re-check the returned claim from scratch (never trust the status alone)."""
    if res.status == reference.SEPARATOR:
        if res.alpha is not None and name not in ("perceptron", "normalized_perceptron", "pfm", "pdm", "pdm_succ"):
            return bool(np.all(np.asarray(G @ res.alpha, dtype=float) > 0))
        return bool(np.all(np.asarray(Pprimal @ res.w, dtype=float) > 0))
    if res.status == reference.CERTIFICATE:
        p = np.asarray(res.p, dtype=float)
        acc = {"nvn": EPS_NVN, "snkpvn": EPS_NVN, "isnkpvn": EPS_NVN}[name]
        return bool(np.all(p >= 0) and abs(p.sum() - 1) < 1e-9 and np.sqrt(max(p @ G @ p, 0)) <= acc)
    return False


def run_demo() -> Tuple[List[dict], bool]:
    """Run the demo; return (rows, all_verified)."""
    rows, ok = [], True
    for iname, inst in demo_instances().items():
        X, y, kernel, params, Delta = inst["X"], inst["y"], inst["kernel"], inst["params"], inst["Delta"]
        n = X.shape[0]
        G = reference.gram(X, y, kernel, **params)
        mG = reference.margin(G, of="span")
        P = _patterns(X, y, Delta)
        for name in inst["algorithms"]:
            fn = getattr(reference, name)
            bound, m = None, mG
            if name == "perceptron":
                m = reference.margin(reference.signed_gram(X, y), of="span")
                res = fn(X, y)
                bound = pb.novikoff(pb.radius(X), m.lower)
                Pv = reference.reflect(X, y)
            elif name == "normalized_perceptron":
                res = fn(X, y)
                bound = pb.normalized_perceptron(mG.lower)
                Pv = reference.reflect(X / np.linalg.norm(X, axis=1, keepdims=True), y)
            elif name in ("pfm", "pdm", "pdm_succ"):
                m = reference.margin(P @ P.T, of="span")
                R = pb.radius(P)
                if name == "pfm":
                    beta = (1 - EPS_PDM) * m.lower
                    res = fn(X, y, beta, rho=1.0, Delta=Delta)
                    bound = pb.pfm_theorem1(R, m.lower, 1 - beta / m.upper)
                else:
                    res = fn(X, y, EPS_PDM, rho=1.0, Delta=Delta)
                    bound = pb.pdm_theorem2(R, m.lower, EPS_PDM)
                Pv = P
            else:
                Pv = None
                if name == "nkp":
                    res = fn(G)
                    bound = pb.nkp(mG.lower) if mG.lower > 0 else None
                elif name == "snkp":
                    res = fn(G)
                    bound = pb.snkp(mG.lower, n) if mG.lower > 0 else None
                elif name == "nvn":
                    res = fn(G, EPS_NVN)
                    bound = pb.nvn(EPS_NVN) if mG.upper < 0 else None
                elif name == "snkpvn":
                    q = np.full(n, 1.0 / n)
                    res = fn(G, q, EPS_NVN)
                    qn = reference.g_norm(G, q)
                    bound = (pb.snkpvn_feasible(mG.lower, n) if mG.lower > EPS_NVN
                             else pb.snkpvn_infeasible(EPS_NVN, n, qn, mG.value) if mG.upper < 0 else None)
                else:  # isnkpvn
                    res = fn(G, GAMMA, EPS_NVN)
                    q = np.full(n, 1.0 / n)
                    qn = reference.g_norm(G, q)
                    if mG.lower > EPS_NVN or mG.upper < 0:
                        bound = pb.isnkpvn_total(n, qn, mG.lower if mG.lower > 0 else mG.value, GAMMA, EPS_NVN)
            verified = _independent_verify(name, res, G, Pv)
            ok &= verified
            rows.append({
                "algorithm": name,
                "instance": iname,
                "status": res.status,
                "iterations": str(res.iterations),
                "paper bound": "-" if bound is None else f"{bound:.4g}",
                "certified margin": f"{margin_of(name)} in [{float(m.lower):.4g}, {float(m.upper):.4g}]",
                "verified": "yes" if verified else "NO",
            })
    return rows, ok
