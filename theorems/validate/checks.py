"""The check layers of the harness (layer 1: the claim; layer 2: the papers' guarantees; layer 3:
the reference's trajectory) and :func:`evaluate`, which runs the ones that apply to a case.
"""

from __future__ import annotations

import inspect
import math
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

import reference
from reference.arithmetic import Arithmetic

from .call import TIMEOUT, call_impl
from ..memo import Memo
from ..text import json_text
from .answer import normalize_answer
from .case import ALLOWED_STATUSES, KEYWORDS, POSITIONAL, PT11, RP14_GRAM, Case, _reference_trace
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


def _normalized(case: Case) -> bool:
    """Whether the Normalized Perceptron of this case runs on the normalized points (its
    ``normalize`` argument; a case that does not say: yes, the reference's default)."""
    return bool(case.args.get("normalize", True))


def _np_points(case: Case) -> np.ndarray:
    """The points the Normalized Perceptron averages: the reflected points y_i x_i, normalized
    when the case says so (:func:`_normalized`)."""
    Z = case.Z
    return Z / np.linalg.norm(Z, axis=1, keepdims=True) if _normalized(case) else Z


def _counter_of(s: dict, first: str, default=None):
    """A state's counter: its ``first`` field ("t" for PT11, "k" for RP14), else the other one,
    else ``default`` (its position)."""
    v = s.get(first)
    if v is None:
        v = s.get("k" if first == "t" else "t")
    return default if v is None else v


def _separation(margins: np.ndarray, scale: float, v: Optional[np.ndarray] = None, name: str = "vector",
                verdict: Callable[[], str] = lambda: "") -> Tuple[str, str]:
    """(outcome, message) for normalized margins ``margins/scale`` of the returned ``v``;
    ``verdict()`` is the reference's own verifier on ``v`` ('' = a separator beyond round-off),
    asked only of a vector with a finite, positive norm."""
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
    verdict = verdict()
    if not verdict:  # (A v)_i > its allowance > 0 for every i: a separator, whatever m rounds to
        return PASS, f"min normalized margin {m:.3g}"
    if m == 0.0:
        return FAIL, f"point {i} has margin exactly 0: not separated"
    if m > 0:  # positive as computed, but not beyond the reference's round-off allowance
        return FAIL, (f"point {i} has normalized margin {m:.3g} > 0 only within round-off: {verdict} "
                      f"(the reference's own verifier, {JUDGE}, refuses this claim)")
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


#: The rule every claim is judged by -- the reference's and the implementation's alike.
JUDGE = "reference.result.verify_separator_gram / verify_separator_primal / verify_certificate"


def _separator_verdict(case: Case, v) -> str:
    """The reference's own separator verification of ``v`` (with its round-off allowance,
    :func:`reference.result.separator_allowance`) on the case's G, reflected rows Z or PT11
    patterns: '' when ``v`` separates beyond round-off, else why.  The one judge of a claimed
    separator: the reference makes no claim this rejects, and neither may an implementation."""
    v = np.asarray(v, dtype=np.float64)
    if case.algorithm in RP14_GRAM:
        return reference.result.verify_separator_gram(case.G, v)
    Z = case.P if case.algorithm in PT11 else case.Z
    return reference.result.verify_separator_primal(np.asarray(Z, dtype=np.float64), v)


def _verified_separator(case: Case, v) -> bool:
    """Whether ``v`` passes the reference's own separator verification (:func:`_separator_verdict`):
    the exit test a 'max_iter' must not have skipped.  A vector that separates only within
    round-off is no claim, so giving up on it is honest."""
    return not _separator_verdict(case, v)


def _certificate_verdict(case: Case, p) -> str:
    """The reference's own certificate verification (:func:`reference.result.verify_certificate`:
    p in the simplex, ||p||_G below the accuracy with its round-off bound, exactly when that bound
    is inconclusive on small n): '' when ``p`` certifies."""
    acc, strict = _accuracy(case)
    return reference.result.verify_certificate(case.G, np.asarray(p, dtype=np.float64), acc, Arithmetic(None), strict=strict)


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
    k = ans.get("iterations")
    if ans.get("max_iter_passed", True) and k is not None and k > case.max_iter:
        out.append(CheckResult("claim.max_iter", FAIL, f"{st!r} after {k} iterations, above the budget max_iter={case.max_iter} "
                                                       f"it was given (a step -- e.g. a multiple update -- crossed the budget)"))
    if st == "separator":
        v, name = _sep_vector(case, ans)
        m, scale = _sep_margins(case, v)
        o, msg = _separation(m, scale, v, name, lambda: _separator_verdict(case, v))
        out.append(CheckResult("claim.separator", o, msg))
    elif st == "certificate":
        p = ans["p"]
        acc, strict = _accuracy(case)
        nrm = reference.g_norm(case.G, p)
        verdict = _certificate_verdict(case, p)
        if not verdict:
            out.append(CheckResult("claim.certificate", PASS, f"||p||_G = {nrm:.6g} {'<' if strict else '<='} accuracy {acc:g}"))
        else:
            bad = _in_simplex(p, 0.0, reference.result.simplex_tolerance(case.n, Arithmetic(None)))
            what = f"p {bad}: not a point of the simplex" if bad else f"||p||_G = {nrm:.6g} is not certified {'<' if strict else '<='} accuracy {acc:g}"
            out.append(CheckResult("claim.certificate", FAIL, f"{what} ({verdict}; the reference's own verifier refuses this claim)"))
    else:  # max_iter: honest?
        msg = ""
        gave_up = (ans.get("max_iter_passed", True) and ans["iterations"] is not None and ans["iterations"] < case.max_iter
                   and not (case.algorithm in PT11 and ans.get("max_epochs_passed")))
        if gave_up:
            msg = f"'max_iter' after {ans['iterations']} iterations, below the budget max_iter={case.max_iter}: gave up without a claim"
            if case.algorithm == "isnkpvn":
                msg += _isnkpvn_gave_up(case, ans)
        elif case.algorithm not in PT11:
            if case.algorithm in ("nvn", "snkpvn", "isnkpvn") and ans.get("p") is not None:
                acc, _ = _accuracy(case)
                nrm = reference.g_norm(case.G, ans["p"])
                # the reference's own exit test: a certificate only where it survives round-off
                # (the judge of a claimed certificate), and below the accuracy by more than 1e-6
                if nrm < acc * (1 - 1e-6) and not _certificate_verdict(case, ans["p"]):
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


def _isnkpvn_gave_up(case: Case, ans: Dict[str, Any]) -> str:
    """What an ISNKPVN that stops early without a claim got wrong: its only budget is max_iter,
    and each outer round divides ||q_t||_G by at least gamma (RP14 Alg. 7, Thm. 4), so the outer
    loop ends by itself -- unless delta_t = ||q_t||_G / gamma does not shrink."""
    p = ans.get("p")
    if p is None or _in_simplex(p):
        return " (RP14 Alg. 7 has no budget but max_iter)"
    g = case.args.get("gamma", 2.0)
    q0 = reference.g_norm(case.G, np.full(case.n, 1.0 / case.n))
    nrm = reference.g_norm(case.G, p)
    return (f" (RP14 Alg. 7 has no budget but max_iter: each outer round sets q_(t+1) = p with ||p||_G < delta_t = ||q_t||_G/gamma, "
            f"so delta_t shrinks by gamma = {g:g} per round and the loop ends within log_gamma(||q_0||_G/epsilon) rounds; "
            f"here ||q_0||_G = {q0:.3g} and the returned p has ||p||_G = {nrm:.3g}: does delta_t shrink?)")


def check_bound(case: Case, ans: Dict[str, Any]) -> List[CheckResult]:
    cid = "bound.iterations"
    if case.bound is None:
        return [CheckResult(cid, SKIP, "no theorem bounds the counter on this instance")]
    k = ans["iterations"]
    if ans["status"] == "max_iter":
        if case.termination_required:
            after = "" if k is None else f" after {int(k)} iterations"
            return [CheckResult(cid, FAIL, f"returned 'max_iter'{after}, but {case.bound_source} guarantees termination within {case.bound:.6g} "
                                           f"({_bound_basis(case)}; budget max_iter={case.max_iter})")]
        return [CheckResult(cid, SKIP, "the bound exceeds the budget")]
    if k is None:
        return [CheckResult(cid, SKIP, "no counter returned (iterations=None): the bound cannot be checked")]
    k = int(k)
    if k > case.bound * (1 + 1e-9) + 1:
        return [CheckResult(cid, FAIL, f"{k} iterations exceed {case.bound_source} = {case.bound:.6g} ({_bound_basis(case)})")]
    return [CheckResult(cid, PASS, f"{k} <= {case.bound:.6g}")]


def _bound_basis(case: Case) -> str:
    """The quantity a case's iteration bound is computed from, as the bound's source names it."""
    a = case.algorithm
    if a == "nvn":
        return f"epsilon = {case.args['epsilon']:g}, on data certified infeasible (rho_K <= {case.m_hi:.6g} <= 0)"
    if a == "snkpvn" and case.m_lo <= 0:
        return f"delta = {case.args['delta']:g}, ||q||_G, and certified rho_K <= {case.m_hi:.6g} < 0"
    if a == "isnkpvn":
        end = case.m_lo if case.m_lo > 0 else case.m_hi
        return f"gamma = {case.args['gamma']:g}, epsilon = {case.args['epsilon']:g}, certified |rho_K| >= {abs(end):.6g}"
    return f"certified {case.margin_name} >= {case.m_lo:.6g}"


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
            # alpha_k = (p_0 + e_(j_1) + ... + e_(j_(k-1)))/k: the first step takes any point p_0 of
            # the simplex (at alpha_0 = 0 every point is a best response, spec A.7), every later one
            # a vertex.  So k alpha_k minus a nonnegative integer vector summing to k - 1 lies in the
            # simplex: the fractional parts of k alpha_k sum to at most 1.
            c = k * alpha
            tol = 1e-3 + 1e-7 * k
            frac = c - np.floor(c + tol)
            if float(np.sum(np.maximum(frac, 0.0))) > 1.0 + tol * case.n:
                bad.append(f"k alpha_k = {_short(c)} is not a point of the simplex plus k-1 vertices: its fractional parts sum to "
                           f"{float(np.sum(np.maximum(frac, 0.0))):.6g} > 1 (RP14 Alg. 3: alpha_k averages the first best response "
                           f"and k-1 vertices e_j)")
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
        R2 = 1.0 if _normalized(case) else float(np.max(np.sum(case.X**2, axis=1)))
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
        k = _counter_of(s, cnt)
        states.append((i if k is None else int(k), s))
    prev, start = None, 0
    phase = [0]  # PDM-succ: the run of the schedule eps_1 = 1/2, eps_1/eta, ..., eps the trace is in
    for k, s in states:
        alpha, w, p = s.get("alpha"), s.get("w"), s.get("p")
        if a != "isnkpvn":
            bad = _final_invariants(case, {}, k, alpha, w, p)  # (no status: an iterate claims nothing)
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
            msg = _step_ok(case, prev, (k, s), phase)
            if not msg and rule is not None and a == "perceptron":
                msg, start = _rule_step(case, rule, prev, (k, s), start)
            if msg:
                return [CheckResult(cid, FAIL, msg, at=k)]
        prev = (k, s)
    return [CheckResult(cid, PASS, f"{len(states)} iterates")]


def _pt11_threshold(case: Case, eps: Optional[float], a: np.ndarray, t: int) -> Tuple[float, str]:
    """(the update threshold at (a_t, t), its name): (7) for PFM, (8) with accuracy ``eps`` else."""
    ell = float(a @ a)
    if case.algorithm == "pfm":
        return case.args["beta"] * math.sqrt(ell), "(7) a.y <= beta ||a||"
    return (0.0 if t == 0 else (1 - eps) * ell / t), f"(8) a.y <= (1-eps)||a||^2/t with eps = {eps:g}"


def _pt11_converged(case: Case, eps: float, a: np.ndarray, t: int) -> bool:
    """Whether no pattern satisfies (8) at (a_t, t) with accuracy ``eps``: PDM(eps) has converged."""
    thr, _ = _pt11_threshold(case, eps, a, t)
    return t >= 1 and bool(np.all(case.P @ a > thr + 1e-9 * max(1.0, abs(thr))))


def _pt11_step(case: Case, k0: int, k1: int, s0: dict, s1: dict, phase: List[int]) -> str:
    """An update of lambda = k1 - k0 >= 1 repeated presentations of one pattern y_j: each of the
    lambda updates satisfies the condition where it is made -- in particular the last one, after
    lambda - 1 of them (PT11 Sec. 4: lambda = floor(mu_+) + 1).  PDM-succ: with the accuracy of the
    run of the schedule it is in; a run ends only where PDM(eps_i) has converged (PT11 Sec. 4)."""
    a = case.algorithm
    lam = k1 - k0
    r = (s1["w"] - s0["w"]) / lam
    dist = np.linalg.norm(case.P - r, axis=1)
    j = int(np.argmin(dist))
    if dist[j] > 1e-6 * max(1.0, float(np.linalg.norm(r))):
        return ""  # several patterns between two recorded states: cannot judge the single step
    if a == "pdm_succ":
        from reference.dynamic_margin import succ_schedule

        sched = succ_schedule(float(case.args["epsilon"]), float(case.args.get("eta", 8.0)))
        eps = sched[phase[0]]
        while phase[0] + 1 < len(sched) and _pt11_converged(case, eps, s0["w"], k0):
            phase[0] += 1
            eps = sched[phase[0]]
    else:
        eps = case.args.get("epsilon")
    for n in sorted({0, lam - 1}):
        at = s0["w"] + n * case.P[j]
        t = k0 + n
        pj = float(case.P[j] @ at)
        thr, name = _pt11_threshold(case, eps, at, t)
        if pj > thr + 1e-9 * max(1.0, abs(thr)):
            which = f"update {k0}->{k1}" if lam == 1 else f"the {'first' if n == 0 else 'last'} of the lambda = {lam} updates {k0}->{k1}"
            run = ""
            if a == "pdm_succ":
                run = (f" (run {phase[0] + 1} of the schedule {', '.join(f'{e:g}' for e in sched)}: the run with eps = {eps:g} "
                       f"has not converged at t = {k0}, so a later accuracy is not yet in force)")
            return f"{which} on pattern {j} with a.y_k = {pj:.6g} > threshold {thr:.6g} at t = {t}: the condition {name} does not hold{run}"
    return ""


def _step_ok(case: Case, prev, cur, phase: List[int]) -> str:
    """'' if cur follows from prev by one legitimate step of the algorithm (or cannot be judged);
    ``phase``: PDM-succ's run of the schedule, carried from step to step (:func:`_pt11_step`)."""
    a = case.algorithm
    (k0, s0), (k1, s1) = prev, cur
    if k1 != k0 + 1 and a not in PT11:
        return ""
    if a == "nkp" and s0.get("alpha") is not None and s1.get("alpha") is not None:
        th = 1.0 / (k0 + 1)
        r = (s1["alpha"] - (1 - th) * s0["alpha"]) / th
        if k0 == 0 and not np.any(case.G @ s0["alpha"]):
            return ""  # G alpha_0 = 0: every point of the simplex is a best response (spec A.7; alpha_1 in the simplex is checked as an iterate)
        j = int(np.argmax(r))
        e = np.zeros_like(r)
        e[j] = 1.0
        if np.max(np.abs(r - e)) > 1e-5 * (k0 + 1):
            return f"step {k0}->{k1}: alpha_(k+1) is not (1-theta_k) alpha_k + theta_k e_j with theta_k = 1/(k+1)"
        if not _near_argmin(case.G @ s0["alpha"], j):
            return f"step {k0}->{k1}: took e_{j}, but (G alpha_k)_{j} is not (near) minimal (RP14 eq. (10): argmin)"
    if a == "normalized_perceptron" and s0.get("w") is not None and s1.get("w") is not None:
        if k0 == 0 and not np.any(s0["w"]):  # w_0 = 0: every point ties (any average of them is a best response)
            return ""
        th = 1.0 / (k0 + 1)
        r = (s1["w"] - (1 - th) * s0["w"]) / th
        Z = _np_points(case)
        dist = np.linalg.norm(Z - r, axis=1)
        j = int(np.argmin(dist))
        if dist[j] > 1e-5 * (k0 + 1) * max(1.0, float(np.linalg.norm(r))):
            return f"step {k0}->{k1}: w_(k+1) - (1-theta_k) w_k is not theta_k times a {'normalized ' if _normalized(case) else ''}reflected point"
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
        return _pt11_step(case, k0, k1, s0, s1, phase)
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


DECISION = 1e-9  # a normalized score this close to 0 (a mistake or not) is a decision within round-off

_RUNS = Memo(256)


def reference_options(algorithm: str, options: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """The algorithm options of ``options`` (active_sets, multiple_updates, seed, engine, ...) the
    reference function accepts, without the case's own arguments (max_iter, trace, q, rule, ...),
    which every case sets itself."""
    if not options:
        return {}
    params = inspect.signature(getattr(reference, algorithm)).parameters
    own = set(KEYWORDS) | set(POSITIONAL.get(algorithm, ())) | {"progress"}
    return {k: v for k, v in options.items() if k in params and k not in own}


def _reference_run(case: Case, options: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """The reference's answer on ``case`` with its trace, run with the same algorithm options as
    the implementation (``options``; cached on the case and the reference code)."""
    opts = reference_options(case.algorithm, options)
    key = (case.case_id, case.max_iter, case.X.tobytes(), case.y.tobytes(), json_text(to_jsonable(case.args)),
           json_text(to_jsonable(sorted(opts.items()))))

    def compute():
        fn = getattr(reference, case.algorithm)
        kw = {k: v for k, v in case.args.items() if k in KEYWORDS}
        pos = [case.args[p] for p in POSITIONAL.get(case.algorithm, ())]
        if case.algorithm in PT11:
            kw["max_epochs"] = 10**9
        data = (case.G,) if case.algorithm in RP14_GRAM else (case.X, case.y)
        return normalize_answer(fn(*data, *pos, max_iter=case.max_iter, trace=True, **kw, **opts))

    return _RUNS.get(key, compute)


def _key_vectors(case: Case) -> Tuple[str, ...]:
    a = case.algorithm
    if a in ("snkp", "snkpvn"):
        return ("alpha", "p")
    if a == "nkp":
        return ("alpha",)
    if a == "nvn":
        return ("p",)
    return ("w",)


def _key_vector(case: Case) -> str:
    return _key_vectors(case)[0]


def _free_decision(case: Case, s: dict, rule: Optional[str], tie: float = TIE) -> str:
    """Why the step the reference takes from state ``s`` is a free choice ('' = it is determined:
    no decision within round-off).  NKP at alpha_0 = 0 and the Normalized Perceptron at w_0 = 0
    choose among ties (spec A.7: any best response); an argmin whose two best candidates are
    within 1e-9 is a tie; a Perceptron told no rule may take any mistake, one told ``cyclic``
    decides only whether each point is a mistake (a score within round-off of 0 is no decision)."""
    a = case.algorithm
    if a in ("snkp", "snkpvn"):
        return ""  # smooth updates: no decision but the exit test, which moves no iterate
    if a == "perceptron":
        w = s.get("w")
        if w is None:
            return "no iterate to judge"
        m = case.Z @ w
        if rule == "cyclic":
            if not np.any(w):
                return ""  # w_0 = 0: every point is a mistake, exactly
            scale = np.linalg.norm(case.Z, axis=1) * float(np.linalg.norm(w))
            near = np.flatnonzero((np.abs(m) <= DECISION * scale) & (m != 0))  # an exact 0 is a mistake, for certain
            return f"y_{int(near[0])} <w_k, x_{int(near[0])}> = {float(m[near[0]]):.2e} is 0 within round-off" if near.size else ""
        if rule is None:
            return "more than one misclassified point" if int(np.sum(m <= TIE)) >= 2 else ""
        scores = m
    elif a in ("nkp", "nvn"):
        v = s.get("alpha") if a == "nkp" else s.get("p")
        scores = case.G @ v
    elif a == "normalized_perceptron":
        scores = _np_points(case) @ s["w"]
    else:
        return "not a single trajectory"
    srt = np.sort(scores)
    if srt.size >= 2 and srt[1] - srt[0] <= tie * max(1.0, abs(srt[0])):
        return f"argmin candidates {srt[0]:.3g} and {srt[1]:.3g} tie"
    return ""


def _exit_within_roundoff(case: Case, ref: Dict[str, Any], mine: Optional[np.ndarray]) -> bool:
    """Whether the reference's final separator is one only by margins within the round-off of the
    implementation's precision ((A v)_i <= 1e-9 (|A| |v|)_i in float64, 1e-5 in float32): an exit
    test with its own round-off allowance may stop there or a little later, both legitimately."""
    v, _ = _sep_vector(case, ref)
    if ref.get("status") != "separator" or v is None:
        return False
    A = case.G if case.algorithm in RP14_GRAM else (case.P if case.algorithm in PT11 else case.Z)
    size = np.abs(A) @ np.abs(v)  # what the round-off of A v is relative to
    tol = 1e-5 if mine is not None and _is_float32(mine) else DECISION
    return bool(np.any(size > 0)) and float(np.min((A @ v) / np.where(size > 0, size, 1.0))) <= tol


def _per_counter(trace: Optional[List[dict]]) -> Optional[List[dict]]:
    """The first state of each counter value t (a PT11 trace may repeat t at the end of a pass)."""
    if not trace:
        return trace
    out, seen = [], set()
    for i, st in enumerate(trace):
        t = _counter_of(st, "t", i)
        if t not in seen:
            seen.add(t)
            out.append(st)
    return out


def _pt11_pattern(case: Case, s0: dict, s1: dict) -> Optional[int]:
    """The pattern of the update s0 -> s1 (lambda repeated presentations of one y_j), or None."""
    if s0.get("w") is None or s1.get("w") is None:
        return None
    t0, t1 = _counter_of(s0, "t"), _counter_of(s1, "t")
    lam = (t1 - t0) if t0 is not None and t1 is not None and t1 > t0 else 1
    r = (s1["w"] - s0["w"]) / lam
    dist = np.linalg.norm(case.P - r, axis=1)
    j = int(np.argmin(dist))
    return j if dist[j] <= 1e-6 * max(1.0, float(np.linalg.norm(r))) else None


def _pt11_order(case: Case, r0: dict, r1: dict, m0: dict, m1: dict) -> str:
    """Why a PT11 divergence at this step is the free order of presentation ('' = it is not):
    the reference and the implementation update on different patterns (each one the
    implementation may present next), not on the same pattern by different amounts."""
    jr, jm = _pt11_pattern(case, r0, r1), _pt11_pattern(case, m0, m1)
    if jr is not None and jm is not None and jr != jm:
        return f"the reference updates on pattern {jr}, the implementation on pattern {jm}: the order of presentation is free"
    return ""


def _pt11_first_choice(case: Case, states: Sequence[dict]) -> Tuple[Optional[int], str]:
    """(the first state where more than one pattern satisfies the update condition, why): from
    there on another order of presentation is another trajectory."""
    for j, st in enumerate(states[:-1]):
        a, t = st.get("w"), _counter_of(st, "t", j)
        if a is None:
            continue
        thr, _ = _pt11_threshold(case, case.args.get("epsilon", 0.0) if case.algorithm != "pfm" else None, a, int(t))
        if int(np.sum(case.P @ a <= thr + 1e-9 * max(1.0, abs(thr)))) >= 2:
            return j, "more than one pattern satisfies the update condition: the order of presentation is free"
    return None, ""


def _reference_tie(case: Case, s: dict, rule: Optional[str] = None, tie: float = TIE) -> str:
    """What made the reference's step from state ``s`` a free choice ('' = none); ``tie``: how
    close two argmin candidates are a tie (1e-9; float32's 1e-5 for an implementation in float32)."""
    if case.algorithm == "perceptron" and rule == "cyclic":
        return ""
    return _free_decision(case, s, rule, tie)


def _precision_tol(v: np.ndarray, ref: np.ndarray) -> float:
    """The allowance of an iterate comparison: float64 round-off of another evaluation order
    (1e-6 relative), or float32's (1e-3) when every entry returned is a float32 number."""
    scale = max(1.0, float(np.max(np.abs(ref))) if ref.size else 1.0)
    return (1e-3 if _is_float32(v) else 1e-6) * scale


def _is_float32(v: np.ndarray) -> bool:
    """Every entry is a float32 number (and not all of them small dyadic ones a float64 run gives too)."""
    return bool(v.size) and np.array_equal(v.astype(np.float32).astype(np.float64), v) and not np.array_equal(v * 1024, np.round(v * 1024))


def _strict_close(mv: np.ndarray, rv: np.ndarray) -> bool:
    """Layer 3's agreement: rtol 1e-6, atol 1e-9 (float64 round-off of another evaluation order);
    rtol 1e-3, atol 1e-6 for a vector returned in float32."""
    if _is_float32(mv):
        return bool(np.allclose(mv, rv, rtol=1e-3, atol=1e-6))
    return bool(np.allclose(mv, rv, rtol=1e-6, atol=1e-9))


def _differs(mine: Optional[np.ndarray], ref: Optional[np.ndarray]) -> Optional[float]:
    """max |mine - ref| when it exceeds the allowance (None: they agree, or nothing to compare)."""
    if mine is None or ref is None:
        return None
    if mine.shape != ref.shape:
        return math.inf
    d = float(np.max(np.abs(mine - ref))) if ref.size else 0.0
    return d if d > _precision_tol(mine, ref) else None


def _first_free(case: Case, states: Sequence[dict], upto: int, rule: Optional[str]) -> Tuple[Optional[int], str]:
    """(the first reference state, among the first ``upto``, whose step is a free choice; why)."""
    for j, st in enumerate(states[:upto]):
        why = _free_decision(case, st, rule)
        if why:
            return j, why
    return None, ""


def check_trajectory(case: Case, ans: Dict[str, Any], options: Optional[Mapping[str, Any]] = None) -> List[CheckResult]:
    """Layer 2: where the reference's trajectory is determined (no decision within round-off up to
    the returned counter k), the returned vector is the reference's iterate at k -- so a counter
    that is off, or an update that uses the wrong quantity, fails even when the claim holds.
    Where it is not determined, or cannot be compared, the result says why (a skip)."""
    cid = "trajectory.final"
    a = case.algorithm
    rule = ans.get("rule_passed")
    if a in PT11:
        return [CheckResult(cid, SKIP, "PT11: the order the patterns are presented in is free, so the trajectory is not "
                                       "compared (--strict compares it with the reference's order and options)")]
    if a == "isnkpvn":
        return [CheckResult(cid, SKIP, "ISNKPVN: nested runs, not compared (--strict compares the totals)")]
    if a == "perceptron" and rule is None:
        return [CheckResult(cid, SKIP, "the callable takes no rule: any mistake is a legitimate update")]
    k = ans.get("iterations")
    if k is None:
        return [CheckResult(cid, SKIP, "no counter returned: the iterate cannot be located on the reference's trajectory")]
    k = int(k)
    ref = _reference_run(case, options)
    states = ref.get("trace") or []
    K = int(ref["iterations"])
    upto = min(k, len(states) - 1)
    j, why = _first_free(case, states, upto, rule)
    if j is not None:
        return [CheckResult(cid, SKIP, f"cannot compare at k = {k}: the reference's step from iterate {j} is a free choice ({why})")]
    if k > K or k >= len(states):
        if _same_iterate(case, ans, states, len(states) - 1):
            return [CheckResult(cid, FAIL, f"the returned iterate is the reference's final one, at k = {K}, but the counter says "
                                           f"k = {k}: the counter is off by {k - K} (the trajectory is determined: no decision "
                                           f"within round-off up to iterate {K})")]
        return [CheckResult(cid, SKIP, f"stopped at k = {k}, after the reference (k = {K}): beyond the reference's run, "
                                       "nothing to compare")]
    for key in _key_vectors(case):
        d = _differs(ans.get(key), states[k].get(key))
        if d is not None:
            near = [i for i in (k - 1, k + 1, k - 2, k + 2) if 0 <= i < len(states) and _same_iterate(case, ans, states, i)]
            if near:
                return [CheckResult(cid, FAIL, f"the returned {key} is the reference's iterate {key}_{near[0]}, but the counter says "
                                               f"k = {k}: the counter is off by {k - near[0]} (the trajectory is determined: no "
                                               f"decision within round-off up to iterate {k})")]
            return [CheckResult(cid, FAIL, f"the returned {key} is not the reference's iterate {key}_{k} at the returned counter "
                                           f"k = {k} (max |difference| {d:.3g}): the trajectory is determined here (no decision "
                                           f"within round-off up to iterate {k}), so an update computes the wrong quantity")]
    return [CheckResult(cid, PASS, f"the returned iterate is the reference's at k = {k}")]


def _same_iterate(case: Case, ans: Dict[str, Any], states: Sequence[dict], i: int) -> bool:
    """Whether the returned vectors are the reference's iterate ``i`` -- within the allowance and
    within a tenth of the steps to its neighbours (near convergence two iterates can be closer
    than the allowance: then the counter cannot be read off the vector, and this is False)."""
    keys = [key for key in _key_vectors(case) if ans.get(key) is not None and states[i].get(key) is not None]
    if not keys:
        return False
    for key in keys:
        mine, ref = ans[key], states[i][key]
        if mine.shape != ref.shape:
            return False
        d = float(np.max(np.abs(mine - ref))) if ref.size else 0.0
        steps = [float(np.max(np.abs(states[j][key] - ref))) for j in (i - 1, i + 1)
                 if 0 <= j < len(states) and states[j].get(key) is not None and states[j][key].shape == ref.shape]
        if d > _precision_tol(mine, ref) or (steps and d > 0.1 * min(steps)):
            return False
    return True


def check_strict(case: Case, ans: Dict[str, Any], options: Optional[Mapping[str, Any]] = None) -> List[CheckResult]:
    """Layer 3: the trajectory agrees with the reference's, run with the same algorithm options
    (``options``), step by step; a divergence after a free choice of the reference, or a stop
    after the reference's at a valid claim, is stated (a note), not failed."""
    cid = "strict.trajectory"
    ref = _reference_run(case, options)
    ref_tr = ref.get("trace")
    key = _key_vector(case)
    rule = ans.get("rule_passed")
    mine = ans.get("trace")
    k = ans.get("iterations")
    if case.algorithm in PT11:  # PT11 traces may record a state without an update (a pass ends): one state per t
        ref_tr, mine = _per_counter(ref_tr), _per_counter(mine)
    if mine and ref_tr:
        for i, (r, m) in enumerate(zip(ref_tr, mine)):
            rv, mv = r.get(key), m.get(key)
            if rv is None or mv is None:
                continue
            if rv.shape != mv.shape or not _strict_close(mv, rv):
                tie = _reference_tie(case, ref_tr[i - 1], rule, 1e-5 if _is_float32(mv) else TIE) if i > 0 else ""
                if i > 0 and case.algorithm in PT11:
                    tie = _pt11_order(case, ref_tr[i - 1], ref_tr[i], mine[i - 1], m)
                if tie:
                    return [CheckResult(cid, NOTE, f"trajectories diverge at step {i} after a near-tie decision of the reference ({tie}); not a failure")]
                return [CheckResult(cid, FAIL, f"iterate {i}: {key} = {_short(mv)} differs from the reference's {_short(rv)}", at=i)]
    elif not mine and ref_tr:
        at = ref_tr[int(k)] if k is not None and int(k) < len(ref_tr) else (ref if k is None else None)
        rv, mv = (None, None) if at is None else (at.get(key), ans.get(key))
        if rv is not None and mv is not None and (rv.shape != mv.shape or not _strict_close(mv, rv)):
            upto = len(ref_tr) if k is None else min(int(k), len(ref_tr))
            j, why = _first_free(case, ref_tr, upto, rule) if case.algorithm not in PT11 else _pt11_first_choice(case, ref_tr)
            if j is not None:
                return [CheckResult(cid, NOTE, f"no trace, and the reference's step from iterate {j} is a free choice ({why}): "
                                               "the final answers differ but cannot be compared; not a failure")]
            where = "final" if k is None else f"at k = {int(k)}, the returned"
            return [CheckResult(cid, FAIL, f"{where} {key} = {_short(mv)} differs from the reference's {_short(rv)} (no trace to locate the step)")]
    if ans["status"] != ref["status"] or (k is not None and k != ref["iterations"]):
        later = (k is not None and k > ref["iterations"] and ans["status"] != "max_iter" and ref["status"] != "max_iter"
                 and (not (ref_tr and _same_iterate(case, ans, ref_tr, len(ref_tr) - 1))  # moved on from the reference's last iterate
                      or _exit_within_roundoff(case, ref, ans.get(key))))
        both = k is not None and k == ref["iterations"] and "max_iter" not in (ans["status"], ref["status"])
        if later or both:
            return [CheckResult(cid, NOTE, f"final (status, iterations) = ({ans['status']}, {k}) vs the reference's "
                                           f"({ref['status']}, {ref['iterations']}): a valid claim at another stopping iterate; not a failure")]
        if not mine and ref_tr:  # no trace to tell a free choice from a wrong step: a free choice on the way excuses it
            upto = len(ref_tr) if k is None else min(int(k), len(ref_tr))
            j, why = _first_free(case, ref_tr, upto, rule) if case.algorithm not in PT11 else _pt11_first_choice(case, ref_tr)
            if j is not None:
                return [CheckResult(cid, NOTE, f"final (status, iterations) = ({ans['status']}, {k}) vs the reference's "
                                               f"({ref['status']}, {ref['iterations']}), after a free choice of the reference at "
                                               f"iterate {j} ({why}); no trace to compare the steps; not a failure")]
        return [CheckResult(cid, FAIL, f"final (status, iterations) = ({ans['status']}, {k}) vs the reference's "
                                       f"({ref['status']}, {ref['iterations']})")]
    return [CheckResult(cid, PASS)]


def evaluate(case: Case, ans: Dict[str, Any], *, strict: bool = False, options: Optional[Mapping[str, Any]] = None) -> List[CheckResult]:
    """Every check of layers 1-2 (and 3 with ``strict``) on one answer; ``options`` are the
    algorithm options the implementation ran with (the reference's trajectory is run with them)."""
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
    res += check_trajectory(case, ans, options)
    if strict:
        res += check_strict(case, ans, options)
    return res


def run_case(impl: Callable, case: Case, *, strict: bool = False, timeout: Optional[float] = TIMEOUT,
             options: Optional[Mapping[str, Any]] = None) -> Tuple[Dict[str, Any], List[CheckResult]]:
    ans, _ = call_impl(impl, case, timeout=timeout)
    return ans, evaluate(case, ans, strict=strict, options=options)


def _state_at(trace: Optional[List[dict]], k: int, counter: str) -> Optional[dict]:
    for i, s in enumerate(trace or ()):
        if _counter_of(s, counter, i) == k:
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
