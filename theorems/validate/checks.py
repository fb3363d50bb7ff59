"""The check layers of the harness (layer 1: the claim; layer 2: the papers' guarantees; layer 3:
the reference's trajectory) and :func:`evaluate`, which runs the ones that apply to a case.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

import reference
from reference.arithmetic import Arithmetic

from .call import TIMEOUT, call_impl
from .case import ALLOWED_STATUSES, PT11, RP14_GRAM, Case, _reference_trace
from .report import CheckResult, FAIL, Failure, NOTE, PASS, REFUSED, _short, SKIP
from .schema import to_jsonable

TIE = 1e-9  # two argmin candidates closer than this are a near tie
NEAR = 1e-7  # normalized margins in [-NEAR, 0) are a near tie (round-off), not a failure
SIMPLEX_NEG, SIMPLEX_SUM = 1e-6, 1e-5  # simplex membership of returned iterates (float32-friendly)


def _in_simplex(v: np.ndarray, neg=SIMPLEX_NEG, tol=SIMPLEX_SUM) -> str:
    if np.min(v) < -neg:
        return f"has a negative entry {float(np.min(v)):.3g}"
    if abs(float(np.sum(v)) - 1.0) > tol:
        return f"sums to {float(np.sum(v)):.9g}, not 1"
    return ""


def _separation(margins: np.ndarray, scale: float, v: Optional[np.ndarray] = None, name: str = "vector") -> Tuple[str, str]:
    """(outcome, message) for normalized margins ``margins/scale`` of the returned ``v``."""
    if not math.isfinite(scale):
        return FAIL, f"the returned {name} has a non-finite norm: it separates nothing"
    if not scale > 0:
        if v is not None and np.any(v != 0):
            return FAIL, (f"the returned {name} is nonzero but has norm 0 in the feature space "
                          f"(||{name}||_G = 0, G {name} = 0): it separates nothing")
        return FAIL, f"the returned {name} is the zero vector: it separates nothing"
    c = margins / scale
    i = int(np.argmin(c))
    m = float(c[i])
    if m > 0:
        return PASS, f"min normalized margin {m:.3g}"
    if m == 0.0:
        return FAIL, f"point {i} has margin exactly 0: not separated"
    if m >= -NEAR:
        return NOTE, f"near tie: point {i} has normalized margin {m:.2e} (round-off level), not counted as a failure"
    return FAIL, f"point {i} has normalized margin {m:.3g} <= 0: not separated"


def _sep_vector(case: Case, ans: Dict[str, Any]) -> Tuple[Optional[np.ndarray], str]:
    a = case.algorithm
    if a in RP14_GRAM:
        v = ans.get("alpha")
        if v is None and a == "nvn":
            v = ans.get("p")
        return v, "alpha"
    return ans.get("w"), "w"


def _sep_margins(case: Case, v: np.ndarray) -> Tuple[np.ndarray, float]:
    a = case.algorithm
    if a in RP14_GRAM:
        return case.G @ v, reference.g_norm(case.G, v)  # G_ii = 1: rows are unit vectors in feature space
    Z = case.P if a in PT11 else case.Z
    norms = np.linalg.norm(Z, axis=1)
    return (Z @ v) / norms, float(np.linalg.norm(v))


def _verified_separator(case: Case, v) -> bool:
    """Whether ``v`` passes the reference's own separator verification (with its round-off
    allowance) on the case's G or reflected rows Z: the exit test a 'max_iter' must not have
    skipped.  A vector that separates only within round-off is no claim, so giving up on it is
    honest."""
    v = np.asarray(v, dtype=np.float64)
    if case.algorithm in RP14_GRAM:
        return not reference.result.verify_separator_gram(case.G, v)
    return not reference.result.verify_separator_primal(case.Z, v)


def _accuracy(case: Case) -> Tuple[Optional[float], bool]:
    """(accuracy, strict '<') of a certificate."""
    a = case.algorithm
    if a == "nvn":
        return case.args["epsilon"], False
    if a == "snkpvn":
        return case.args["delta"], True
    if a == "isnkpvn":
        return case.args["epsilon"], True
    return None, False


def _expected_len(case: Case, key: str) -> int:
    if key in ("alpha", "p"):
        return case.n
    if case.algorithm in PT11:
        return case.P.shape[1]
    return case.X.shape[1]


def check_contract(case: Case, ans: Dict[str, Any]) -> List[CheckResult]:
    cid = "answer.contract"
    if "error" in ans:
        return [CheckResult(cid, FAIL, ans["error"])]
    st = ans.get("status")
    if st not in ALLOWED_STATUSES[case.algorithm]:
        return [CheckResult(cid, FAIL, f"status {st!r} is not one of {ALLOWED_STATUSES[case.algorithm]}")]
    it = ans.get("iterations")
    if it is not None and (not isinstance(it, (int, np.integer)) or it < 0):  # None: no counter (a capability it lacks)
        return [CheckResult(cid, FAIL, f"iterations {it!r} is not a nonnegative integer (or None: no counter)")]
    for key in ("alpha", "w", "p"):
        v = ans.get(key)
        if v is None:
            continue
        if v.shape[0] != _expected_len(case, key):
            return [CheckResult(cid, FAIL, f"{key} has length {v.shape[0]}, expected {_expected_len(case, key)}")]
        if not np.all(np.isfinite(v)):
            return [CheckResult(cid, FAIL, f"{key} is not finite")]
    if st == "separator" and _sep_vector(case, ans)[0] is None:
        return [CheckResult(cid, FAIL, f"status 'separator' without the vector ({_sep_vector(case, ans)[1]})")]
    if st == "certificate" and ans.get("p") is None:
        return [CheckResult(cid, FAIL, "status 'certificate' without p")]
    return [CheckResult(cid, PASS)]


def check_claim(case: Case, ans: Dict[str, Any]) -> List[CheckResult]:
    st = ans["status"]
    out: List[CheckResult] = []
    if st == "separator":
        v, name = _sep_vector(case, ans)
        m, scale = _sep_margins(case, v)
        o, msg = _separation(m, scale, v, name)
        out.append(CheckResult("claim.separator", o, msg))
    elif st == "certificate":
        p = ans["p"]
        acc, strict = _accuracy(case)
        bad = _in_simplex(p, 1e-9, 1e-6)
        if bad:
            out.append(CheckResult("claim.certificate", FAIL, f"p {bad}: not a point of the simplex"))
        else:
            nrm = reference.g_norm(case.G, p)
            slack = acc * 1e-6 + 1e-12
            ok = nrm < acc + slack if strict else nrm <= acc + slack
            out.append(CheckResult("claim.certificate", PASS if ok else FAIL,
                                   f"||p||_G = {nrm:.6g} {'<' if ok else 'is not ' + ('<' if strict else '<=')} accuracy {acc:g}"))
    else:  # max_iter: honest?
        msg = ""
        gave_up = (ans.get("max_iter_passed", True) and ans["iterations"] is not None and ans["iterations"] < case.max_iter
                   and not (case.algorithm in PT11 and ans.get("max_epochs_passed")))
        if gave_up:
            msg = f"'max_iter' after {ans['iterations']} iterations, below the budget max_iter={case.max_iter}: gave up without a claim"
        elif case.algorithm not in PT11:
            if case.algorithm in ("nvn", "snkpvn", "isnkpvn") and ans.get("p") is not None:
                acc, _ = _accuracy(case)
                nrm = reference.g_norm(case.G, ans["p"])
                # the reference's own exit test: a certificate only where it survives round-off
                if (not _in_simplex(ans["p"], 1e-12, 1e-9) and nrm < acc * (1 - 1e-6)
                        and not reference.result.verify_certificate(
                            case.G, np.asarray(ans["p"], dtype=np.float64), acc, Arithmetic(None), strict=False)):
                    msg = f"'max_iter' but the returned p already certifies: ||p||_G = {nrm:.3g} < {acc:g}"
            v, _ = _sep_vector(case, ans)
            if not msg and v is not None:
                m, scale = _sep_margins(case, v)
                # ... and a separator only where G alpha > 0 (Z w > 0) beyond round-off, as the
                # reference's verifier demands before it claims one (a G alpha > 0 within round-off is no claim)
                if scale > 0 and float(np.min(m / scale)) > 1e-9 and _verified_separator(case, v):
                    msg = f"'max_iter' but the returned vector already separates (min normalized margin {float(np.min(m / scale)):.3g})"
        out.append(CheckResult("claim.max_iter", FAIL if msg else PASS, msg))
    return out


def check_bound(case: Case, ans: Dict[str, Any]) -> List[CheckResult]:
    cid = "bound.iterations"
    if case.bound is None:
        return [CheckResult(cid, SKIP, "no theorem bounds the counter on this instance")]
    k = ans["iterations"]
    if ans["status"] == "max_iter":
        if case.termination_required:
            after = "" if k is None else f" after {int(k)} iterations"
            return [CheckResult(cid, FAIL, f"returned 'max_iter'{after}, but {case.bound_source} guarantees termination within {case.bound:.6g} "
                                           f"(certified {case.margin_name} >= {case.m_lo:.6g}; budget max_iter={case.max_iter})")]
        return [CheckResult(cid, SKIP, "the bound exceeds the budget")]
    if k is None:
        return [CheckResult(cid, SKIP, "no counter returned (iterations=None): the bound cannot be checked")]
    k = int(k)
    if k > case.bound * (1 + 1e-9) + 1:
        return [CheckResult(cid, FAIL, f"{k} iterations exceed {case.bound_source} = {case.bound:.6g} (certified {case.margin_name} >= {case.m_lo:.6g})")]
    return [CheckResult(cid, PASS, f"{k} <= {case.bound:.6g}")]


def check_margin_guarantee(case: Case, ans: Dict[str, Any]) -> List[CheckResult]:
    cid = "guarantee.margin"
    if case.algorithm not in PT11:
        return []
    if ans["status"] != "separator":
        return [CheckResult(cid, SKIP, "no separator")]
    w = ans["w"]
    nw = float(np.linalg.norm(w))
    ach = float(np.min(case.P @ w)) / nw if nw > 0 else -math.inf
    g = case.margin_guarantee
    if case.algorithm == "pfm":
        ok = ach > g * (1 - 1e-7) - 1e-12
        what = f"> beta = {g:.6g} (PT11 (7) at convergence)"
    else:
        ok = ach >= g * (1 - 1e-7) - 1e-12
        what = f">= (1-eps) gamma_d = {g:.6g} (PT11 Sec. 3)"
    return [CheckResult(cid, PASS if ok else FAIL, f"achieved directional margin {ach:.6g} {'' if ok else 'is not '}{what}")]


def _egc(case: Case, alpha: np.ndarray, p: np.ndarray, k: int) -> Tuple[float, float]:
    """(L_mu(alpha), -||p||_G^2/2) at mu_k of SNKP (entropy) or SNKPVN (Euclidean, prox-centre q)."""
    from reference import smoothed

    ar = Arithmetic(None)
    n = case.n
    if case.algorithm == "snkp":
        mu = 4.0 / ((k + 1) * (k + 2))
        lhs = float(smoothed.smoothed_loss(case.G, alpha, mu, ar))
    else:
        mu = 4.0 * n / ((k + 1) * (k + 2))
        lhs = float(smoothed.smoothed_loss_q(case.G, alpha, mu, np.asarray(case.args["q"], dtype=np.float64), ar))
    return lhs, -0.5 * reference.g_norm(case.G, p) ** 2


def _final_invariants(case: Case, ans: Dict[str, Any], k: Optional[int], alpha, w, p) -> List[str]:
    """Violations of the statements every iterate (or every final iterate) of a correct run
    satisfies; ``k`` None (no counter returned): only the statements that do not involve k."""
    a = case.algorithm
    bad: List[str] = []
    if k is None:
        for key, v in (("alpha", alpha if a in ("snkp", "snkpvn", "isnkpvn") else None),
                       ("p", p if a in ("snkp", "snkpvn", "isnkpvn", "nvn") else None)):
            s = _in_simplex(v) if v is not None else ""
            if s:
                bad.append(f"{key} {s} (RP14: {key}_k stays in the simplex)")
        return bad
    if a == "nkp" and alpha is not None and k >= 1:
        s = _in_simplex(alpha)
        if s:
            bad.append(f"alpha_k {s} (NKP: alpha_k is in the simplex for k >= 1)")
        else:
            c = k * alpha
            if np.max(np.abs(c - np.round(c))) > 1e-3 + 1e-7 * k:
                bad.append(f"k alpha_k = {_short(c)} is not a vector of integers (alpha_k is the average of k vertices, theta_k = 1/(k+1))")
            ng2 = reference.g_norm(case.G, alpha) ** 2
            if ng2 * k > 1 + 1e-5:
                bad.append(f"||alpha_k||_G^2 k = {ng2 * k:.6g} > 1 (RP14 Sec. 3.2 proof: ||k w_k||^2 <= k)")
    if a in ("snkp", "snkpvn", "isnkpvn") and alpha is not None:
        s = _in_simplex(alpha)
        if s:
            bad.append(f"alpha {s} (RP14 Alg. 4/6/7 keep alpha_k in the simplex)")
    if a in ("snkp", "snkpvn", "isnkpvn", "nvn") and p is not None:
        s = _in_simplex(p)
        if s:
            bad.append(f"p {s} (p_k stays in the simplex)")
    if a in ("snkp", "snkpvn") and alpha is not None and p is not None and not bad:
        lhs, rhs = _egc(case, alpha, p, k)
        if lhs > rhs + 1e-5 * (1 + abs(rhs)):
            lemma = "Lemma 5" if a == "snkp" else "Lemmas 8/9"
            bad.append(f"excessive gap condition fails at the returned iterate: L_mu_k(alpha_k) = {lhs:.6g} > -||p_k||_G^2/2 = {rhs:.6g} "
                       f"(RP14 {lemma}, mu_k = {'4' if a == 'snkp' else '4n'}/((k+1)(k+2)), k = {k})")
    if a == "nvn" and p is not None and not bad:
        ng2 = reference.g_norm(case.G, p) ** 2
        if ng2 * (k + 1) > 1 + 1e-5:
            bad.append(f"||p_k||_G^2 (k+1) = {ng2 * (k + 1):.6g} > 1 (RP14 Sec. 5.1: ||w_k|| <= 1/sqrt(k+1) while not separated)")
    if a == "normalized_perceptron" and w is not None and k >= 1:
        nw2 = float(w @ w)
        R2 = 1.0 if case.args.get("normalize", True) else float(np.max(np.sum(case.X**2, axis=1)))
        if nw2 * k > R2 * (1 + 1e-5):
            bad.append(f"||w_k||^2 k = {nw2 * k:.6g} > {R2:.6g} (RP14 Alg. 2: w_k averages k {'unit ' if R2 == 1.0 else ''}points, each a mistake: ||k w_k||^2 <= k{'' if R2 == 1.0 else ' R^2'})")
        if case.m_lo > 0 and math.sqrt(nw2) < case.m_lo * (1 - 1e-6):
            bad.append(f"||w_k|| = {math.sqrt(nw2):.6g} < rho_2 = {case.m_lo:.6g} (an average of the normalized points has norm >= rho_2)")
    if a == "perceptron" and w is not None:
        nw = float(np.linalg.norm(w))
        if nw * nw > k * case.R**2 * (1 + 1e-6) + 1e-12:
            bad.append(f"||w_k||^2 = {nw * nw:.6g} > k R^2 = {k * case.R**2:.6g} (Block-Novikoff: each update is a mistake)")
        if case.m_lo > 0 and nw < k * case.m_lo * (1 - 1e-6):
            bad.append(f"||w_k|| = {nw:.6g} < k rho = {k * case.m_lo:.6g} (Block-Novikoff: <u, w_k> >= k rho, so k is not the number of updates)")
    if a in PT11 and w is not None:
        t = k
        nw = float(np.linalg.norm(w))
        if t >= 1 and nw / t < case.m_lo * (1 - 1e-6):
            bad.append(f"||a_t||/t = {nw / t:.6g} < gamma_d = {case.m_lo:.6g} with t = {t} (PT11 eq. (4): t overcounts the updates)")
        if nw > t * case.R * (1 + 1e-6) + 1e-12:
            bad.append(f"||a_t|| = {nw:.6g} > t R = {t * case.R:.6g} (each update adds at most R: t undercounts)")
        if ans.get("status") == "separator" and a != "pfm" and t >= 1 and nw > 0:
            ach = float(np.min(case.P @ w)) / nw
            thr = (1 - case.args["epsilon"]) * nw / t
            if ach < thr * (1 - 1e-6) - 1e-12:
                bad.append(f"min_k a.y_k/||a|| = {ach:.6g} < (1-eps)||a_t||/t = {thr:.6g}: some pattern still satisfies the dynamic margin condition (8)")
        Delta = case.args.get("Delta")
        if Delta is not None:
            d0 = case.P.shape[1] - case.n
            c = w[d0:] * case.y / Delta
            if np.min(c) < -1e-6 or np.max(np.abs(c - np.round(c))) > 1e-4 * max(1, t) or abs(float(np.sum(c)) - t) > 1e-4 * max(1, t):
                bad.append(f"in the extended space the update counts a_ext * l_k / Delta = {_short(c)} must be nonnegative integers summing to t = {t}")
    return bad


def check_final(case: Case, ans: Dict[str, Any]) -> List[CheckResult]:
    k = None if ans["iterations"] is None else int(ans["iterations"])
    bad = _final_invariants(case, ans, k, ans.get("alpha"), ans.get("w"), ans.get("p"))
    if bad:
        return [CheckResult("invariant.final", FAIL, bad[0])]
    return [CheckResult("invariant.final", PASS)]


def _near_argmin(scores: np.ndarray, j: int, scale: float = 1.0) -> bool:
    return scores[j] <= float(np.min(scores)) + 1e-6 * max(1.0, scale)


def check_trace(case: Case, trace: Optional[List[dict]], rule: Optional[str] = None) -> List[CheckResult]:
    """Every iterate satisfies the per-iterate statements and every step is a legitimate step;
    ``rule`` (a Perceptron given ``rule=``): every update is the one that rule picks."""
    cid = "invariant.trace"
    if not trace:
        return [CheckResult(cid, SKIP, "no trace returned")]
    a = case.algorithm
    cnt = "t" if a in PT11 else "k"
    states = []
    for i, s in enumerate(trace):
        k = s.get(cnt, s.get("k", s.get("t")))
        states.append((i if k is None else int(k), s))
    prev, start = None, 0
    for k, s in states:
        alpha, w, p = s.get("alpha"), s.get("w"), s.get("p")
        if a != "isnkpvn":
            ans = {"status": None}
            bad = _final_invariants(case, ans, k, alpha, w, p)
            if bad:
                return [CheckResult(cid, FAIL, f"at iterate {k}: {bad[0]}", at=k)]
        if a == "snkp" and s.get("mu") is not None:
            mu = 4.0 / ((k + 1) * (k + 2))
            if abs(s["mu"] - mu) > 1e-6 * mu:
                return [CheckResult(cid, FAIL, f"at iterate {k}: mu_k = {s['mu']:.6g}, but mu_0 = 2, mu_(k+1) = (1-theta_k) mu_k give 4/((k+1)(k+2)) = {mu:.6g}", at=k)]
        if a == "snkpvn" and s.get("mu") is not None:
            mu = 4.0 * case.n / ((k + 1) * (k + 2))
            if abs(s["mu"] - mu) > 1e-6 * mu:
                return [CheckResult(cid, FAIL, f"at iterate {k}: mu_k = {s['mu']:.6g}, expected 4n/((k+1)(k+2)) = {mu:.6g}", at=k)]
        if prev is not None:
            msg = _step_ok(case, prev, (k, s))
            if not msg and rule is not None and a == "perceptron":
                msg, start = _rule_step(case, rule, prev, (k, s), start)
            if msg:
                return [CheckResult(cid, FAIL, msg, at=k)]
        prev = (k, s)
    return [CheckResult(cid, PASS, f"{len(states)} iterates")]


def _step_ok(case: Case, prev, cur) -> str:
    """'' if cur follows from prev by one legitimate step of the algorithm (or cannot be judged)."""
    a = case.algorithm
    (k0, s0), (k1, s1) = prev, cur
    if k1 != k0 + 1 and a not in PT11:
        return ""
    if a == "nkp" and s0.get("alpha") is not None and s1.get("alpha") is not None:
        th = 1.0 / (k0 + 1)
        r = (s1["alpha"] - (1 - th) * s0["alpha"]) / th
        j = int(np.argmax(r))
        e = np.zeros_like(r)
        e[j] = 1.0
        if np.max(np.abs(r - e)) > 1e-5 * (k0 + 1):
            return f"step {k0}->{k1}: alpha_(k+1) is not (1-theta_k) alpha_k + theta_k e_j with theta_k = 1/(k+1)"
        if not _near_argmin(case.G @ s0["alpha"], j):
            return f"step {k0}->{k1}: took e_{j}, but (G alpha_k)_{j} is not (near) minimal (RP14 eq. (10): argmin)"
    if a == "normalized_perceptron" and s0.get("w") is not None and s1.get("w") is not None:
        th = 1.0 / (k0 + 1)
        r = (s1["w"] - (1 - th) * s0["w"]) / th
        Z = case.Z
        if case.args.get("normalize", True):
            Z = Z / np.linalg.norm(Z, axis=1, keepdims=True)
        dist = np.linalg.norm(Z - r, axis=1)
        j = int(np.argmin(dist))
        if dist[j] > 1e-5 * (k0 + 1) * max(1.0, float(np.linalg.norm(r))):
            return f"step {k0}->{k1}: w_(k+1) - (1-theta_k) w_k is not theta_k times a {'normalized ' if case.args.get('normalize', True) else ''}reflected point"
        if not _near_argmin(Z @ s0["w"], j):
            return f"step {k0}->{k1}: used point {j}, which is not the (near) most misclassified one (RP14 eq. (4))"
    if a == "perceptron" and s0.get("w") is not None and s1.get("w") is not None:
        r = s1["w"] - s0["w"]
        dist = np.linalg.norm(case.Z - r, axis=1)
        j = int(np.argmin(dist))
        if dist[j] > 1e-6 * max(1.0, float(np.linalg.norm(r))):
            return f"step {k0}->{k1}: w_(k+1) - w_k is not a reflected point y_i x_i"
        if float(case.Z[j] @ s0["w"]) > 1e-9 * max(1.0, float(np.linalg.norm(s0["w"]))):
            return f"step {k0}->{k1}: updated on point {j}, which is not a mistake (y_j <w_k, x_j> = {float(case.Z[j] @ s0['w']):.3g} > 0)"
    if a in PT11 and s0.get("w") is not None and s1.get("w") is not None and k1 > k0:
        lam = k1 - k0
        r = (s1["w"] - s0["w"]) / lam
        dist = np.linalg.norm(case.P - r, axis=1)
        j = int(np.argmin(dist))
        if dist[j] > 1e-6 * max(1.0, float(np.linalg.norm(r))):
            return ""  # several patterns between two recorded states: cannot judge the single step
        at, pj = s0["w"], float(case.P[j] @ s0["w"])
        l = float(at @ at)
        if a == "pfm":
            thr = case.args["beta"] * math.sqrt(l)
            name = "(7) a.y <= beta ||a||"
        else:
            thr = 0.0 if k0 == 0 else (1 - case.args["epsilon"]) * l / k0
            name = "(8) a.y <= (1-eps)||a||^2/t"
        if pj > thr + 1e-9 * max(1.0, abs(thr)):
            return f"update {k0}->{k1} on pattern {j} with a.y_k = {pj:.6g} > threshold {thr:.6g}: the condition {name} does not hold"
    return ""


def _rule_step(case: Case, rule: str, prev, cur, start: int) -> Tuple[str, int]:
    """('' or what is wrong, the next cyclic start) for a Perceptron step under ``rule``.

    ``cyclic``: the update is on the first mistake (y_i <w_k, x_i> <= 0) at or after ``start``,
    scanning i = start, start+1, ..., n-1, 0, 1, ... (wrapping around); ``start`` is 0 for the
    first update and then the index after the last update -- the scan *continues*, it does not
    restart at 0 (an epoch over the points in order, as scikit-learn's ``shuffle=False``).
    ``most_violated``: the update is on argmin_i y_i <w_k, x_i> (ties: any of the minimizers)."""
    (k0, s0), (k1, s1) = prev, cur
    if k1 != k0 + 1 or s0.get("w") is None or s1.get("w") is None:
        return "", start
    Z, w0 = case.Z, s0["w"]
    m = Z @ w0
    n = Z.shape[0]
    step = s1["w"] - w0
    if rule == "cyclic":
        mistakes = [i for i in ((start + o) % n for o in range(n)) if m[i] <= 0]
        if not mistakes:
            return "", start
        j = mistakes[0]
        if np.linalg.norm(step - Z[j]) > 1e-6 * max(1.0, float(np.linalg.norm(Z[j]))):
            return (f"step {k0}->{k1}: rule 'cyclic' updates on point {j} (the first mistake scanning from index {start}, "
                    f"the point after the last update), but w_(k+1) - w_k is not y_{j} x_{j}"), start
        return "", (j + 1) % n
    dist = np.linalg.norm(Z - step, axis=1)
    j = int(np.argmin(dist))
    if not _near_argmin(m, j, float(np.max(np.abs(m))) if m.size else 1.0):
        return f"step {k0}->{k1}: rule 'most_violated' updates on argmin_i y_i <w_k, x_i> = point {int(np.argmin(m))}, not on point {j}", start
    return "", start


def _key_vector(case: Case) -> str:
    a = case.algorithm
    if a in ("nkp", "snkp", "snkpvn", "isnkpvn"):
        return "alpha"
    if a == "nvn":
        return "p"
    return "w"


def check_strict(case: Case, ans: Dict[str, Any]) -> List[CheckResult]:
    cid = "strict.trajectory"
    ref_tr = _reference_trace(case)
    key = _key_vector(case)
    mine = ans.get("trace")
    if mine and ref_tr:
        for i, (r, m) in enumerate(zip(ref_tr, mine)):
            rv, mv = r.get(key), m.get(key)
            if rv is None or mv is None:
                continue
            if rv.shape != mv.shape or not np.allclose(mv, rv, rtol=1e-6, atol=1e-9):
                tie = _reference_tie(case, ref_tr[i - 1], ans.get("rule_passed")) if i > 0 else ""
                if tie:
                    return [CheckResult(cid, NOTE, f"trajectories diverge at step {i} after a near-tie decision of the reference ({tie}); not a failure")]
                return [CheckResult(cid, FAIL, f"iterate {i}: {key} = {_short(mv)} differs from the reference's {_short(rv)}", at=i)]
    elif not mine:
        # no trace: compare the final answer
        rv, mv = case.reference.get(key), ans.get(key)
        if rv is not None and mv is not None and (rv.shape != mv.shape or not np.allclose(mv, rv, rtol=1e-6, atol=1e-9)):
            return [CheckResult(cid, FAIL, f"final {key} = {_short(mv)} differs from the reference's {_short(rv)} (no trace to locate the step)")]
    if ans["status"] != case.reference["status"] or (ans["iterations"] is not None and ans["iterations"] != case.reference["iterations"]):
        return [CheckResult(cid, FAIL, f"final (status, iterations) = ({ans['status']}, {ans['iterations']}) vs the reference's "
                                       f"({case.reference['status']}, {case.reference['iterations']})")]
    return [CheckResult(cid, PASS)]


def _reference_tie(case: Case, s: dict, rule: Optional[str] = None) -> str:
    """What made the reference's step from state ``s`` a free choice ('' = none).  A Perceptron
    not told its rule may take any mistake; one given ``rule="cyclic"`` has no choice, one given
    ``rule="most_violated"`` only among near-equal minimizers."""
    a = case.algorithm
    if a == "perceptron" and rule == "cyclic":
        return ""
    if a in ("nkp", "nvn"):
        v = s.get("alpha") if a == "nkp" else s.get("p")
        scores = case.G @ v
    elif a in ("perceptron", "normalized_perceptron"):
        Z = case.Z
        if a == "normalized_perceptron":
            Z = Z / np.linalg.norm(Z, axis=1, keepdims=True)
        scores = Z @ s["w"]
        if a == "perceptron" and rule is None:  # a Perceptron may take any mistake: two or more mistakes = a choice
            if int(np.sum(scores <= TIE)) >= 2:
                return "more than one misclassified point"
            return ""
    else:
        return ""
    srt = np.sort(scores)
    if srt.size >= 2 and srt[1] - srt[0] <= TIE * max(1.0, abs(srt[0])):
        return f"argmin candidates {srt[0]:.3g} and {srt[1]:.3g}"
    return ""


def evaluate(case: Case, ans: Dict[str, Any], *, strict: bool = False) -> List[CheckResult]:
    """Every check of layers 1-2 (and 3 with ``strict``) on one answer."""
    if "skip" in ans:
        return [CheckResult("answer.contract", SKIP, ans["skip"])]
    if "refused" in ans:
        return [CheckResult("answer.contract", REFUSED, ans["refused"])]
    res = check_contract(case, ans)
    if res[0].outcome == FAIL:
        return res
    res += check_claim(case, ans)
    res += check_bound(case, ans)
    res += check_margin_guarantee(case, ans)
    res += check_final(case, ans)
    res += check_trace(case, ans.get("trace"), ans.get("rule_passed"))
    if strict:
        res += check_strict(case, ans)
    return res


def run_case(impl: Callable, case: Case, *, strict: bool = False, timeout: Optional[float] = TIMEOUT) -> Tuple[Dict[str, Any], List[CheckResult]]:
    ans, _ = call_impl(impl, case, timeout=timeout)
    return ans, evaluate(case, ans, strict=strict)


def _state_at(trace: Optional[List[dict]], k: int, counter: str) -> Optional[dict]:
    for i, s in enumerate(trace or ()):
        if s.get(counter, s.get("k", s.get("t", i))) == k:
            return s
    return None


def _failure(case: Case, ans: Dict[str, Any], results: Sequence[CheckResult], shrunk: bool = False) -> Failure:
    """The first failed check of a case, with the reference's answer beside the implementation's:
    the final answers, or -- when the check failed at an iterate -- both iterates there."""
    first = next(r for r in results if r.outcome == FAIL)
    keys = ("status", "iterations", "alpha", "w", "p")
    impl_ans = {k: ans.get(k) for k in keys}
    ref_ans = {k: case.reference.get(k) for k in keys}
    iterate = None
    if first.at is not None:
        counter = "t" if case.algorithm in PT11 else "k"
        mine = _state_at(ans.get("trace"), first.at, counter)
        ref = _state_at(_reference_trace(case), first.at, counter)
        if mine is not None:
            iterate = first.at
            for k in ("alpha", "w", "p"):
                impl_ans[k] = mine.get(k)
                ref_ans[k] = None if ref is None else ref.get(k)
    if ans.get("error"):
        impl_ans["error"] = ans["error"]
    return Failure(
        check=first.id, message=first.message, case_id=case.case_id,
        instance={"name": case.name, "X": case.X.tolist(), "y": case.y.tolist(), "kernel": case.kernel, "params": case.params},
        arguments=to_jsonable(dict(case.args, max_iter=case.max_iter)),
        reference=ref_ans, implementation=impl_ans, shrunk=shrunk, iterate=iterate,
    )
