"""float64 against mpmath: run one algorithm twice on one instance and say where and why the two
runs part ways.

:func:`crosscheck` runs ``reference.<algorithm>`` in float64 and at ``digits`` mpmath digits
(``precision=digits``; the Gram matrix / patterns are rebuilt at that precision from the same
float data, so the mpmath run is the exact-arithmetic reference up to 10^-digits), then walks the
two traces in lockstep comparing

* the discrete choices recorded in the states (the chosen index ``j`` / ``pattern``, the number
  of updates ``lam``, the counters), and
* every vector of the state (alpha, p, w, a, q): the iterate error at step i is
  ``max |float - mp| / max(1, max |mp|)`` (absolute for iterates of size <= 1, relative above).

The first step where a discrete choice differs, or where the iterate error jumps above
``diverge_tol``, or where one trace ends, is the *divergence*.  It is then explained from the
(accurate) mpmath states around it by the *decision quantities* the algorithm branches on:

* an argmin (Perceptron "most_violated", Normalized Perceptron, NKP, NVN): the gap between the
  two smallest values of ``Z w`` / ``G alpha``;
* a stopping / misclassification test: ``min_i (G alpha)_i`` or ``min_i y_i w.x_i`` against 0,
  ``||p||_G`` against the accuracy, ``p_tk = a_t.y_k`` against ``theta_t`` (PT11);

A decision whose gap is below ``tie_factor * u * scale + 10 * err * scale`` (u = 2^-52, scale =
the magnitude of the compared quantities, err = the iterate error already accumulated) can flip
under float64 round-off: the divergence is then reported as ``near-tie at iteration k`` and is
not a failure (``agree`` is False -- the runs differ -- but ``near_tie`` is True and ``reason``
says which decision).  A divergence with no near-tie is a genuine discrepancy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

import reference
from reference.arithmetic import MACHINE_EPS

from .instances import Instance

__all__ = ["CrossCheck", "crosscheck", "primal_data", "DEFAULTS"]

U = MACHINE_EPS  # 2^-52 (reference.arithmetic.MACHINE_EPS)

PRIMAL = ("perceptron", "normalized_perceptron")
PT11 = ("pfm", "pdm", "pdm_succ")
GRAM = ("nkp", "snkp", "nvn", "snkpvn", "isnkpvn")
DISCRETE_FIELDS = ("j", "pattern", "lam", "t", "k", "run", "level")

#: Default algorithm parameters used when the caller gives none.
DEFAULTS: Dict[str, Dict[str, Any]] = {
    "nvn": {"epsilon": 1e-3},
    "snkpvn": {"delta": 1e-3},
    "isnkpvn": {"gamma": 2.0, "epsilon": 1e-3},
    "pdm": {"epsilon": 0.2},
    "pdm_succ": {"epsilon": 0.1},
    "pfm": {"eps": 0.2},  # beta = (1 - eps) * certified lower end of gamma_d
}


@dataclass(frozen=True)
class CrossCheck:
    """The comparison of a float64 run with a ``digits``-digit mpmath run.

    Attributes
    ----------
    algorithm, instance : str
    digits : int
    agree : bool                 same status, same iteration count, iterates within ``atol``
    first_divergence : int|None  the trace index (= iteration, for one state per iteration) where
                                 the runs part ways; None if they never do
    reason : str                 why they part ways (``"near-tie at iteration k: ..."``), or ''
    near_tie : bool              the divergence is explained by a decision within round-off
    max_iterate_error : float    max iterate error over the common prefix up to the divergence
    status, iterations : tuple   (float64, mpmath)
    details : dict               per-step errors summary, the decision quantities at the divergence
    """

    algorithm: str
    instance: str
    digits: int
    agree: bool
    first_divergence: Optional[int]
    reason: str
    near_tie: bool
    max_iterate_error: float
    status: Tuple[str, str]
    iterations: Tuple[int, int]
    details: Dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        word = "agree" if self.agree else ("near-tie" if self.near_tie else "DISAGREE")
        return (f"crosscheck {self.algorithm} on {self.instance} (float64 vs {self.digits} digits): {word}; "
                f"status {self.status}, iterations {self.iterations}, max iterate error {self.max_iterate_error:.2e}"
                + (f"; diverge at {self.first_divergence}: {self.reason}" if self.first_divergence is not None else ""))


# -- inputs -----------------------------------------------------------------------------------


def primal_data(instance: Instance) -> np.ndarray:
    """The points a primal algorithm (Perceptron, PDM, ...) runs on: X for the linear kernel, the
    explicit feature map for the polynomial kernel (a.b + c)^degree; ValueError for others."""
    X = np.asarray(instance.X, dtype=np.float64)
    if instance.kernel == "linear":
        return X
    if instance.kernel == "polynomial":
        deg, c = int(instance.params.get("degree", 2)), float(instance.params.get("c", 1.0))
        # (a.b + c)^deg = sum over multi-indices of multinomial coefficients: explicit features of [x, sqrt(c)]
        Xc = np.hstack([X, np.full((X.shape[0], 1), math.sqrt(c))])
        D = Xc.shape[1]
        feats = []
        from itertools import combinations_with_replacement
        from collections import Counter

        for combo in combinations_with_replacement(range(D), deg):
            cnt = Counter(combo)
            coef = math.factorial(deg)
            for v in cnt.values():
                coef //= math.factorial(v)
            feats.append(math.sqrt(coef) * np.prod(Xc[:, list(combo)], axis=1))
        return np.column_stack(feats)
    raise ValueError(f"{instance.kernel!r} kernel has no finite explicit feature map; a primal algorithm does not apply")


def _call(algorithm: str, instance: Instance, precision, kwargs: Dict[str, Any]):
    fn = getattr(reference, algorithm)
    kw = dict(DEFAULTS.get(algorithm, {}))
    kw.update(kwargs)
    if algorithm in PRIMAL or algorithm in PT11:
        X = primal_data(instance)
        if algorithm == "pfm":
            eps = kw.pop("eps")
            if "beta" not in kw:
                P = reference.dynamic_margin.patterns(X, instance.y, rho=kw.get("rho", 1.0))
                m = reference.margin(np.asarray(P, dtype=np.float64) @ np.asarray(P, dtype=np.float64).T, of="span")
                kw["beta"] = (1 - eps) * max(float(m.lower), 0.0)
            beta = kw.pop("beta")
            return fn(X, instance.y, beta, trace=True, precision=precision, **kw), X
        if algorithm in PT11:
            eps = kw.pop("epsilon")
            return fn(X, instance.y, eps, trace=True, precision=precision, **kw), X
        return fn(X, instance.y, trace=True, precision=precision, **kw), X
    G = reference.gram(instance.X, instance.y, instance.kernel, precision=precision, **instance.params)
    if algorithm == "nvn":
        return fn(G, kw.pop("epsilon"), trace=True, precision=precision, **kw), G
    if algorithm == "snkpvn":
        q = kw.pop("q", None)
        n = G.shape[0]
        q = np.full(n, 1.0 / n) if q is None else q
        return fn(G, q, kw.pop("delta"), trace=True, precision=precision, **kw), G
    if algorithm == "isnkpvn":
        return fn(G, kw.pop("gamma"), kw.pop("epsilon"), trace=True, precision=precision, **kw), G
    return fn(G, trace=True, precision=precision, **kw), G


# -- reading states ---------------------------------------------------------------------------------


def _f(v) -> np.ndarray:
    return np.array([float(x) for x in np.asarray(v).ravel()], dtype=np.float64)


def _state_items(s) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
    """(vectors, discrete values) of a state."""
    vecs, disc = {}, {}
    if not is_dataclass(s):
        return vecs, disc
    for fd in fields(s):
        v = getattr(s, fd.name)
        if isinstance(v, np.ndarray):
            vecs[fd.name] = _f(v)
        elif fd.name in DISCRETE_FIELDS and (v is None or isinstance(v, (int, np.integer))):
            disc[fd.name] = v
    return vecs, disc


def _err(a: Dict[str, np.ndarray], b: Dict[str, np.ndarray]) -> float:
    """max over common vector fields of max|a - b| / max(1, max|b|)  (b = the mpmath state)."""
    e = 0.0
    for k in a.keys() & b.keys():
        if a[k].shape != b[k].shape:
            return math.inf
        if a[k].size:
            e = max(e, float(np.max(np.abs(a[k] - b[k]))) / max(1.0, float(np.max(np.abs(b[k])))))
    return e


# -- the decisions an algorithm branches on ---------------------------------------------------------


def _decisions(algorithm: str, data: np.ndarray, s, kw: Dict[str, Any]) -> List[Tuple[str, float, float]]:
    """(label, gap, scale) of every decision taken at state ``s`` (mpmath state, as floats):
    the decision flips when the sign of ``gap`` does (or, for an argmin, when gap reaches 0)."""
    vecs, _ = _state_items(s)
    out: List[Tuple[str, float, float]] = []
    kw = {**DEFAULTS.get(algorithm, {}), **kw}
    if algorithm in PRIMAL or algorithm in PT11:
        w = vecs.get("a", vecs.get("w"))
        if w is None:
            return out
        Z = _f(data).reshape(np.asarray(data).shape)
        if algorithm in PT11:
            theta = float(getattr(s, "theta"))
            v = Z @ w
            scale = float(np.max(np.linalg.norm(Z, axis=1))) * float(np.linalg.norm(w)) + abs(theta)
            i = int(np.argmin(np.abs(v - theta)))
            out.append((f"p_tk ~ theta_t (pattern {i}: a.y_k - theta = {v[i] - theta:.3e})", float(v[i] - theta), scale))
            return out
        v = Z @ w
        scale = float(np.max(np.linalg.norm(Z, axis=1))) * max(float(np.linalg.norm(w)), 1e-300)
        i = int(np.argmin(np.abs(v)))
        out.append((f"y_i w.x_i ~ 0 (point {i}: {v[i]:.3e})", float(v[i]), scale))
        if v.size > 1 and (algorithm == "normalized_perceptron" or kw.get("rule") == "most_violated"):
            srt = np.sort(v)
            out.append((f"argmin_i y_i w.x_i: two smallest differ by {srt[1] - srt[0]:.3e}", float(srt[1] - srt[0]), scale))
        return out
    G = _f(data).reshape(np.asarray(data).shape)
    gscale = float(np.max(np.abs(G)))
    for name in ("alpha", "p", "q"):
        x = vecs.get(name)
        if x is None:
            continue
        v = G @ x
        scale = gscale * max(float(np.sum(np.abs(x))), 1e-300)
        out.append((f"min_i (G {name})_i ~ 0 ({float(np.min(v)):.3e})", float(np.min(v)), scale))
        if v.size > 1 and algorithm in ("nkp", "nvn") and name in ("alpha", "p"):
            srt = np.sort(v)
            out.append((f"argmin_i (G {name})_i: two smallest differ by {srt[1] - srt[0]:.3e}", float(srt[1] - srt[0]), scale))
        if algorithm == "isnkpvn" and name == "q":
            nq = math.sqrt(max(float(x @ v), 0.0))
            out.append((f"||q||_G ~ 0 (the E-A7 guard; {nq:.3e})", nq, scale))
        if name == "p" or (algorithm == "isnkpvn" and name == "q"):
            norm = math.sqrt(max(float(x @ v), 0.0))
            acc = kw.get("epsilon") if algorithm in ("nvn", "isnkpvn") else kw.get("delta")
            if acc is not None:
                acc = float(acc)
                out.append((f"||{name}||_G ~ accuracy ({norm:.3e} vs {acc:.3e})", norm - acc, max(norm, acc)))
    return out


def _nan_fields(s) -> List[str]:
    """Names of the fields of a (float64) state holding NaN."""
    out = []
    if is_dataclass(s):
        for fd in fields(s):
            v = getattr(s, fd.name)
            if v is None or isinstance(v, (dict, tuple, str)):
                continue
            try:
                arr = np.asarray(v, dtype=np.float64)
            except (TypeError, ValueError):
                continue
            if arr.size and np.any(np.isnan(arr)):
                out.append(fd.name)
    return out


@dataclass(frozen=True)
class _Initial:
    """A stand-in for the state before the first step when a trace records none (ISNKPVN: q_0 = 1_n/n)."""

    q: np.ndarray


def _near_tie(algorithm, data, states, err: float, tie_factor: float, kw) -> Optional[Tuple[int, str]]:
    """The first (index, description) among ``states`` [(index, mp state)] with a decision
    within round-off: |gap| <= tie_factor u scale + 10 err scale."""
    for idx, s in states:
        if idx < 0:
            n = np.asarray(data).shape[0]
            idx, s = 0, (_Initial(np.full(n, 1.0 / n)) if algorithm == "isnkpvn" else None)
        if s is None:
            continue
        for label, gap, scale in _decisions(algorithm, data, s, kw):
            if abs(gap) <= tie_factor * U * scale + 10.0 * err * max(scale, 1.0):
                return idx, label
    return None


# -- the comparison -------------------------------------------------------------------------------


def crosscheck(
    algorithm_name: str,
    instance: Instance,
    digits: int = 50,
    *,
    atol: float = 1e-10,
    diverge_tol: float = 1e-6,
    tie_factor: float = 1e3,
    **kwargs,
) -> CrossCheck:
    """Run ``reference.<algorithm_name>`` on ``instance`` in float64 and at ``digits`` digits and
    compare status, iteration count and the iterates along the traces.

    Parameters
    ----------
    algorithm_name : one of :data:`reference.ALGORITHMS`
    instance : Instance
        Primal algorithms (Perceptron, Normalized Perceptron, PFM, PDM, PDM-succ) run on X, or on
        the explicit features of a polynomial kernel; the others on ``reference.gram``.
    digits : int
        mpmath digits of the reference run.
    atol : float
        Agreement tolerance on the iterate error (see the module docstring).
    diverge_tol : float
        Iterate error that counts as the runs having parted ways.
    tie_factor : float
        A decision gap below ``tie_factor * u * scale`` (+ the accumulated error) is a near-tie.
    **kwargs
        Algorithm parameters (``epsilon``, ``delta``, ``rule``, ``beta`` / ``eps`` for PFM, ...).
    """
    if algorithm_name not in reference.ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm_name!r}; one of {reference.ALGORITHMS}")
    rf, data_f = _call(algorithm_name, instance, None, kwargs)
    rm, data_m = _call(algorithm_name, instance, digits, kwargs)
    tf, tm = list(rf.trace), list(rm.trace)
    data = data_f if algorithm_name in PRIMAL else data_m
    if algorithm_name in PT11:  # decisions are taken on the patterns
        data = np.asarray(reference.dynamic_margin.patterns(data_f, instance.y, rho=kwargs.get("rho", 1.0), Delta=kwargs.get("Delta")), dtype=np.float64)
    max_err, first, reason, tie = 0.0, None, "", False
    errs: List[float] = []
    n_common = min(len(tf), len(tm))
    prev_err = 0.0
    for i in range(n_common):
        vf, df = _state_items(tf[i])
        vm, dm = _state_items(tm[i])
        e = _err(vf, vm)
        diff = [k for k in df.keys() & dm.keys() if df[k] != dm[k]]
        if diff or e > diverge_tol:
            first = i
            what = (f"{', '.join(f'{k}: {df[k]} (float64) vs {dm[k]} (mpmath)' for k in sorted(diff))}" if diff
                    else f"iterate error {e:.2e} > {diverge_tol:g}")
            nans = _nan_fields(tf[i - 1]) if i >= 1 else []
            nt = None if nans else _near_tie(algorithm_name, data, [(i - 1, tm[i - 1] if i >= 1 else None), (i, tm[i])], prev_err, tie_factor, kwargs)
            if nans:
                reason = f"divergence at trace index {i}: the float64 state {i - 1} holds NaN in {', '.join(nans)} ({what})"
            elif nt is not None:
                tie = True
                reason = f"near-tie at iteration {nt[0]}: {nt[1]} (runs differ from trace index {i}: {what})"
            else:
                reason = f"divergence at trace index {i} without a near-tie: {what}"
            break
        errs.append(e)
        max_err = max(max_err, e)
        prev_err = e
    if first is None and (len(tf) != len(tm) or rf.iterations != rm.iterations) and n_common == 0:
        first = 0
        nt = _near_tie(algorithm_name, data, [(-1, None)], 0.0, tie_factor, kwargs)
        what = f"no states recorded; iterations {rf.iterations} (float64) vs {rm.iterations} (mpmath)"
        tie = nt is not None
        reason = f"near-tie at iteration {nt[0]}: {nt[1]} ({what})" if tie else f"divergence at the start without a near-tie: {what}"
    if first is None and len(tf) != len(tm):
        first = n_common
        last = n_common - 1
        nans = _nan_fields(tf[last]) if last >= 0 else []
        which = "float64" if len(tf) < len(tm) else "mpmath"
        what = f"the {which} run stopped after {n_common} states ({rf.status}/{rm.status})"
        nt = None if nans else _near_tie(algorithm_name, data, [(last, tm[last] if last >= 0 else None), (last + 1, tm[last + 1] if last + 1 < len(tm) else None)], prev_err, tie_factor, kwargs)
        if nans:
            reason = f"divergence at trace index {first}: the float64 state {last} holds NaN in {', '.join(nans)} ({what})"
        elif nt is not None:
            tie = True
            reason = f"near-tie at iteration {nt[0]}: {nt[1]} ({what})"
        else:
            reason = f"divergence at trace index {first} without a near-tie: {what}"
    if first is None and rf.status != rm.status:
        first = n_common - 1
        nt = _near_tie(algorithm_name, data, [(first, tm[first])], prev_err, tie_factor, kwargs)
        what = f"same trace, status {rf.status} (float64) vs {rm.status} (mpmath)"
        tie = nt is not None
        reason = f"near-tie at iteration {nt[0]}: {nt[1]} ({what})" if tie else f"{what}; no near-tie found"
    agree = first is None and rf.status == rm.status and rf.iterations == rm.iterations and max_err <= atol
    if first is None and not agree:
        reason = f"iterate error {max_err:.2e} above atol {atol:g}"
    return CrossCheck(
        algorithm=algorithm_name,
        instance=instance.name,
        digits=digits,
        agree=agree,
        first_divergence=first,
        reason=reason,
        near_tie=tie,
        max_iterate_error=max_err,
        status=(rf.status, rm.status),
        iterations=(int(rf.iterations), int(rm.iterations)),
        details={"states": (len(tf), len(tm)), "final_error": errs[-1] if errs else 0.0, "messages": (rf.message, rm.message)},
    )
