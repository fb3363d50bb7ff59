"""The statements of PT11 (Panagiotakopoulos & Tsampouka, *The Perceptron with Dynamic Margin*,
ALT 2011) as executable checks; spec/algorithms.md Part B.

Every check has the registry's signature ``check(instance, **options) -> Verdict | None`` and
returns ``None`` when the statement does not apply to the instance (a kernel instance -- PT11 is
primal --, or a statement about separable data on an infeasible instance).

The margin.  gamma_d is the maximum directional margin of the augmented, reflected patterns
y_k = [l_k x_k, l_k rho] (PT11 eq. (1)), i.e. the margin of their Gram matrix P P^T, taken from
:func:`reference.margin`, which certifies an interval ``lower <= gamma_d <= upper``.  Every
statement is evaluated at the *worst* end of that interval for the statement (the end that makes
it hardest to hold: ``upper`` for ``gamma_d <= ...`` and for the iteration bounds, which decrease
in gamma_d; ``lower`` for ``... >= Delta/sqrt(m)``); a statement that holds there holds for the
true gamma_d.

Equality cases.  Several statements are attained with equality (eq. (4) and (5) when the run
only uses support patterns, the margin on convergence for n = 2, the extension bound when the
data part cancels); at the worst end of the certified interval they then fail by the interval's
width.  So every such comparison also allows the certified interval's width ``upper - lower``:
the statement is refuted only if it fails for every gamma_d in the interval by more than
round-off.

Round-off.  The traces are float64 (or mpmath) computations, so comparisons that can be tight
(eq. (4) at equality, identity (6), the margin on convergence) carry an explicit relative
tolerance derived from the standard error bounds, stated in each check (``details["tol"]``):

* a stored a_t is a recursive sum of t patterns: ``||a_t - exact|| <= (t-1) u sum ||y|| <= t^2 u R``,
  i.e. relative error ``<= t u R/gamma_d`` since ``||a_t|| >= gamma_d t``;
* a dot product of length D has absolute error ``<= D u ||a|| ||y||`` (u = unit round-off).

The iteration bounds (Theorems 1, 2, Remark 1) compare the integer t with the bound at the
worst end; in the equality cases (n = 1: t = 1 = R^2/gamma_d^2 at eps = 1) the bound at the other
end decides and the verdict says ``within_interval``.  Lemma 1 is evaluated in mpmath.

Corrections found while encoding (see the module-level notes at each check and the tests):

* eq. (5) needs the extra hypothesis gamma'_d >= 0 (true on convergence): for gamma'_d < 0 the
  inequality is equivalent to ``||a_t||/t <= gamma_d``, the reverse of (4), and fails;
  :func:`check_eq5` returns ``None`` then, and the test keeps a counterexample.
* erratum E-B3 (multiple updates: "smallest" vs "larger" non-negative root) describes a state that
  cannot occur: if (8) holds with equality at a state with l = ||a_t||^2, p = a_t.y_k and t >= 1,
  then ``t q + (2 eps - 1) p >= eps t q / (1 - eps) > 0`` (Cauchy-Schwarz), so the other root is
  negative and both readings give the same lambda.  The check records the smallest linear
  coefficient seen at equality-like states.
"""

from __future__ import annotations

import dataclasses
import math
import weakref
import zlib
from typing import Any, Dict, List, Optional, Sequence, Tuple

import mpmath
import numpy as np

import reference
from reference.arithmetic import UNIT_ROUNDOFF

from . import paper_bounds
from .instances import Instance
from .memo import code_fingerprint
from .registry import Verdict, register, slack_of

__all__ = [
    "patterns",
    "gamma_d",
    "planted_pt11",
    "lemma1_t0",
    "lemma1_largest_t",
    "mu_plus_pdm",
    "mu_plus_pfm",
    "repeated_presentations",
    "check_eq4",
    "check_eq5",
    "check_eq6",
    "check_lemma1",
    "check_theorem1",
    "check_theorem2",
    "check_remark1",
    "check_pdm_margin",
    "check_multiple_updates",
    "check_extension",
]

E = math.e
DEFAULT_EPS = 0.2
DEFAULT_CAP = 200_000  # largest number of updates a check will run before giving up (-> None)


# -- instances, patterns and the certified gamma_d --------------------------------------------------


def _rho(instance: Instance, rho) -> float:
    if rho is not None:
        return float(rho)
    return float(instance.known.get("pt11_rho", 1.0))


def _applies(instance: Instance) -> bool:
    """PT11 is primal: only the linear kernel."""
    return isinstance(instance.kernel, str) and instance.kernel == "linear"


def patterns(instance: Instance, rho=None, Delta=None) -> np.ndarray:
    """The patterns y_k as rows (float64): :func:`reference.dynamic_margin.patterns`, i.e.
    reflect(augment(X, rho), y), extended (PT11 Sec. 5) when ``Delta`` is given -- the very
    patterns PDM/PFM run on (looked up at call time, so a test can break it)."""
    from reference import dynamic_margin

    P = dynamic_margin.patterns(instance.X, instance.y, rho=_rho(instance, rho), Delta=Delta)
    return np.asarray(P, dtype=np.float64)


_GAMMA_CACHE: "weakref.WeakKeyDictionary[Instance, Dict[Any, Any]]" = weakref.WeakKeyDictionary()


def gamma_d(instance: Instance, rho=None, Delta=None):
    """The certified directional margin of the patterns: ``reference.margin(P @ P.T)`` (cached per
    instance and per reference code: :mod:`theorems.memo`)."""
    key = (_rho(instance, rho), None if Delta is None else float(Delta), code_fingerprint())  # not past a monkeypatch
    per = _GAMMA_CACHE.setdefault(instance, {})
    if key not in per:
        P = patterns(instance, rho, Delta)
        per[key] = reference.margin(P @ P.T, of="span")
    return per[key]


def _interval(m) -> Tuple[float, float, float]:
    return float(m.lower), float(m.value), float(m.upper)


def planted_pt11(
    n: int = 12,
    d: int = 3,
    gamma: float = 0.2,
    rho: float = 1.0,
    spread: float = 1.0,
    seed: int = 0,
    n_support: int = 2,
) -> Instance:
    """A separable data set whose augmented, reflected patterns have directional margin gamma_d = gamma.

    Construction in the pattern space R^D, D = d + 1 (last coordinate = l_k rho):

    * a random unit u with u_D = s != 0; e_D = s u + r f with f a unit vector orthogonal to u;
    * every pattern is y = c u + ((l rho - c s)/r) f + w, with w orthogonal to u and f, so that its
      last coordinate is exactly l rho and u.y = c;
    * support patterns have c = gamma and come in +/- pairs weighted so that their convex
      combination is exactly gamma u (the f-components and the w-components cancel); all other
      patterns have c > gamma.

    gamma u is then in the hull and every pattern has u.y >= gamma = ||gamma u||, so gamma u is
    the min-norm point of the hull and gamma_d = gamma (requires gamma |s| < rho, enforced).  The
    data are x_k = y_k[:d] / l_k.  ``known``: ``gamma_d``, ``u_aug``, ``support``, ``pt11_rho``,
    ``R_aug`` (= max ||y_k||).  ``spread`` scales the w-components (and so R/gamma_d).
    """
    if n < 2 or d < 1:
        raise ValueError("planted_pt11 needs n >= 2 points and d >= 1")
    rng = np.random.default_rng(seed)
    D = d + 1
    while True:
        u = rng.standard_normal(D)
        u /= np.linalg.norm(u)
        s = u[-1]
        if 0.2 < abs(s) < 0.95 and gamma * abs(s) < 0.9 * rho:
            break
    eD = np.zeros(D)
    eD[-1] = 1.0
    f = eD - s * u
    r = float(np.linalg.norm(f))
    f /= r
    # orthonormal basis of the complement of span{u, f}
    Q, _ = np.linalg.qr(np.column_stack([u, f, rng.standard_normal((D, max(D - 2, 0)))]))
    W = Q[:, 2:D]  # D x (D-2)

    def pattern(c: float, lab: int, w: np.ndarray) -> np.ndarray:
        return c * u + ((lab * rho - c * s) / r) * f + w

    def rand_w() -> np.ndarray:
        if W.shape[1] == 0:
            return np.zeros(D)
        return W @ (spread * rng.standard_normal(W.shape[1]))

    n_support = max(2, min(n_support - n_support % 2, n - n % 2))
    Y: List[np.ndarray] = []
    labels: List[int] = []
    # weights: lambda_+ (rho - gamma s) = lambda_- (rho + gamma s) cancels the f-components
    for _ in range(n_support // 2):
        w = rand_w()
        lp, lm = rho + gamma * s, rho - gamma * s  # lambda_+ , lambda_- (up to scale)
        Y.append(pattern(gamma, +1, w))
        Y.append(pattern(gamma, -1, -(lp / lm) * w))
        labels += [1, -1]
    support = tuple(range(len(Y)))
    while len(Y) < n:
        c = gamma * (1.0 + rng.exponential(1.0))
        lab = 1 if rng.random() < 0.5 else -1
        Y.append(pattern(c, lab, rand_w()))
        labels.append(lab)
    Yarr = np.array(Y)
    lab = np.array(labels, dtype=np.int64)
    perm = rng.permutation(n)
    Yarr, lab = Yarr[perm], lab[perm]
    support = tuple(sorted(int(np.flatnonzero(perm == i)[0]) for i in support))
    X = Yarr[:, :d] * lab.reshape(-1, 1)
    R_aug = paper_bounds.radius(Yarr)
    name = f"planted_pt11(n={n},d={d},gamma={gamma:g},rho={rho:g},spread={spread:g},seed={seed})"
    return Instance(
        name=name,
        X=X,
        y=lab,
        known={"gamma_d": float(gamma), "u_aug": tuple(float(v) for v in u), "support": support, "pt11_rho": float(rho), "R_aug": R_aug, "feasible": True},
        flags=("separable", "planted", "pt11"),
    )


# -- running the algorithms and reading their traces ---------------------------------------------


def _get(obj, *names, default=None):
    for nm in names:
        if hasattr(obj, nm):
            return getattr(obj, nm)
    if isinstance(obj, dict):
        for nm in names:
            if nm in obj:
                return obj[nm]
    return default


def _vec(v) -> np.ndarray:
    return np.array([float(x) for x in np.asarray(v).ravel()], dtype=np.float64)


def _state_a(s) -> np.ndarray:
    return _vec(_get(s, "a", "w"))


def _state_t(s) -> int:
    t = _get(s, "t")
    if t is None:
        t = _get(s, "k")
    return int(t)


def _run(name: str, instance: Instance, *args, **kwargs):
    """Call ``reference.<name>(X, y, *args, **kwargs)``, looked up at call time (monkeypatchable)."""
    fn = getattr(reference, name)
    return fn(instance.X, instance.y, *args, **kwargs)


def _pt_kwargs(instance: Instance, rho, cap: int, **extra) -> dict:
    kw = {"rho": _rho(instance, rho), "max_iter": int(cap), "trace": True}
    kw["max_epochs"] = 10**9
    kw.update(extra)
    return kw


def _pdm_run(instance, eps, rho, cap, **extra):
    return _run("pdm", instance, eps, **_pt_kwargs(instance, rho, cap, **extra))


def _pfm_run(instance, beta, rho, cap, **extra):
    return _run("pfm", instance, beta, **_pt_kwargs(instance, rho, cap, **extra))


def _succ_run(instance, eps, rho, cap, **extra):
    return _run("pdm_succ", instance, eps, **_pt_kwargs(instance, rho, cap, **extra))


def _perceptron_run(instance, P, cap, rule):
    """RP14 Alg. 1 on the PT11 patterns (X = P, all labels +1): the classical update of eq. (2)."""
    return reference.perceptron(P, np.ones(P.shape[0], dtype=np.int64), rule=rule, max_iter=int(cap), trace=True)


def _states(res) -> List[Tuple[int, np.ndarray]]:
    """(t, a_t) for every recorded state of a run (t = number of updates so far)."""
    if res.trace is None:
        raise ValueError(f"{res.algorithm}: no trace recorded (run with trace=True)")
    return [(_state_t(s), _state_a(s)) for s in res.trace]


def _achieved(P: np.ndarray, a: np.ndarray) -> float:
    """gamma'_d = min_k a.y_k / ||a||  (the achieved directional margin)."""
    na = float(np.linalg.norm(a))
    return float(np.min(P @ a)) / na if na > 0 else -math.inf


def _separable_gamma(instance: Instance, rho):
    """The certified interval (lo, val, hi) of gamma_d when a PT11 check applies: linear kernel
    and data certified separable (lo > 0); ``None`` otherwise (the check does not apply)."""
    if not _applies(instance):
        return None
    lo, val, hi = _interval(gamma_d(instance, rho))
    return (lo, val, hi) if lo > 0 else None


def _runs_for(instance: Instance, which: Sequence[str], eps: float, rho, cap: int):
    """The runs a per-update statement is checked on: (label, Result)."""
    P = patterns(instance, rho)
    lo, val, hi = _interval(gamma_d(instance, rho))
    out = []
    for w in which:
        if w == "pdm":
            out.append((f"pdm(eps={eps:g})", _pdm_run(instance, eps, rho, cap)))
        elif w == "pdm_classical":  # eps = 1: threshold 0, i.e. the classical perceptron condition
            out.append(("pdm(eps=1)", _pdm_run(instance, 1.0, rho, cap)))
        elif w == "pfm" and lo > 0:
            out.append((f"pfm(beta=(1-{eps:g}) gamma_d)", _pfm_run(instance, (1 - eps) * lo, rho, cap)))
        elif w == "pdm_succ" and lo > 0:
            out.append((f"pdm_succ(eps={eps:g})", _succ_run(instance, eps, rho, cap)))
        elif w.startswith("perceptron"):
            rule = w.split(":", 1)[1] if ":" in w else "cyclic"
            out.append((f"perceptron(rule={rule}) on the patterns", _perceptron_run(instance, P, cap, rule)))
    return out


def _verdict(id: str, holds: bool, lhs, rhs, slack, instance: Instance, statement: str, *, allowance: float = 0.0,
             clause: str = "", **details) -> Verdict:
    """A Verdict; ``allowance``: the absolute amount by which lhs may exceed rhs and still hold
    (the check's round-off tolerance and certified-interval width, as it decided)."""
    d = {"instance": instance.name, "statement": statement}
    d.update(details)
    return Verdict(id=id, holds=bool(holds), lhs=float(lhs), rhs=float(rhs), slack=float(slack), details=d,
                   allowance=float(allowance), clause=clause)


def _rank(v: Verdict) -> float:
    """A verdict's tightness for picking the worst (no ratio -- two round-off sides -- ranks last)."""
    r, _why = v.tightness()
    return r if r is not None and math.isfinite(r) else -1.0


def _worst(verdicts: List[Verdict]) -> Optional[Verdict]:
    """Combine several verdicts of one id: the first failure, else the one with the largest slack."""
    verdicts = [v for v in verdicts if v is not None]
    if not verdicts:
        return None
    bad = [v for v in verdicts if not v.holds]
    pick = bad[0] if bad else max(verdicts, key=_rank)
    runs = [{"run": v.details.get("run"), "holds": v.holds, "slack": v.slack} for v in verdicts]
    return dataclasses.replace(pick, details={**pick.details, "runs": runs})


# -- PT11 eq. (4) --------------------------------------------------------------------------------

EQ4 = "gamma_d <= ||a_t||/t for every t >= 1, for any run of the update a_{t+1} = a_t + y_k (whatever the misclassification condition)"


@register("PT11.eq4", EQ4, "PT11 Sec. 2, eq. (4); spec B.2")
def check_eq4(instance: Instance, *, eps: float = DEFAULT_EPS, rho=None, cap: int = 20_000, runs=("pdm", "pfm", "pdm_classical", "perceptron:cyclic", "perceptron:most_violated")) -> Optional[Verdict]:
    """eq. (4) at every update of PDM, PFM and perceptron-like runs (PDM with eps = 1, RP14 Alg. 1
    on the patterns, both rules).  lhs = gamma_d (upper end), rhs = min_t ||a_t||/t.

    Tolerance: ||a_t|| carries relative error <= t u R/gamma_d (recursive summation, module
    docstring), plus the certified interval's relative width (equality cases), so the check is
    ``gamma_hi <= (||a_t||/t) (1 + (t + D + 4) u R/gamma_lo + (gamma_hi - gamma_lo)/gamma_lo)``.
    On infeasible data (gamma_d <= 0) the statement holds trivially and is still evaluated."""
    if not _applies(instance):
        return None
    lo, val, hi = _interval(gamma_d(instance, rho))
    P = patterns(instance, rho)
    R = paper_bounds.radius(P)
    D = P.shape[1]
    out = []
    for label, res in _runs_for(instance, runs, eps, rho, cap):
        worst_ratio, worst_t, ok, fail_t = -math.inf, None, True, None
        rhs_at, tol_at = math.inf, 0.0
        for t, a in _states(res):
            if t < 1:
                continue
            bound = float(np.linalg.norm(a)) / t
            tol = (t + D + 4) * UNIT_ROUNDOFF * R / lo if lo > 0 else 0.0
            ratio = slack_of(hi, bound) if lo > 0 else slack_of(lo, bound)
            if ratio > worst_ratio:
                worst_ratio, worst_t, rhs_at, tol_at = ratio, t, bound, bound * tol + (hi - lo)
            if not hi <= bound * (1 + tol) + (hi - lo) and ok:
                ok, fail_t = False, t
        if worst_t is None:
            continue
        out.append(_verdict("PT11.eq4", ok, hi, rhs_at, worst_ratio, instance, EQ4, allowance=tol_at, clause=f"t = {worst_t}, {label}", run=label, iteration=fail_t if not ok else worst_t, gamma_interval=[lo, hi], updates=res.iterations, tol_rule="(t + D + 4) u R / gamma_lo + (gamma_hi - gamma_lo)/gamma_lo (relative)"))
    return _worst(out)


# -- PT11 eq. (5) --------------------------------------------------------------------------------

EQ5 = "after convergence at t_c with achieved directional margin gamma'_d >= 0: (gamma_d - gamma'_d)/gamma_d <= 1 - gamma'_d t_c/||a_{t_c}||"


def _eq5_from(instance, P, lo, hi, t, a, label) -> Optional[Verdict]:
    gp = _achieved(P, a)
    if not (gp >= 0 and t >= 1 and lo > 0):
        return None  # the extra hypothesis gamma'_d >= 0 (see module docstring)
    na = float(np.linalg.norm(a))
    lhs = (hi - gp) / hi  # worst end: largest lhs
    rhs = 1.0 - gp * t / na
    R = paper_bounds.radius(P)
    tol = (gp / lo) * ((t + P.shape[1] + 4) * UNIT_ROUNDOFF * R / lo + (hi - lo) / lo) + 4 * UNIT_ROUNDOFF
    # slack of the printed sides; given gamma'_d > 0, (5) <=> gamma_d t_c/||a_{t_c}|| <= 1 (recorded as
    # ``equivalent_ratio``): at equality both sides are round-off, within ``tol``
    return _verdict("PT11.eq5", lhs <= rhs + tol, lhs, rhs, slack_of(lhs, rhs), instance, EQ5, allowance=tol,
                    clause=f"at t_c = {t}, {label}", run=label, iteration=t, achieved=gp, gamma_interval=[lo, hi],
                    tol=tol, equivalent_ratio=hi * t / na)


@register("PT11.eq5", EQ5, "PT11 Sec. 2, eq. (5); spec B.2")
def check_eq5(instance: Instance, *, eps: float = DEFAULT_EPS, rho=None, cap: int = 50_000, runs=("pdm", "pfm", "pdm_succ", "pdm_classical")) -> Optional[Verdict]:
    """eq. (5) on the final state of converged runs (PDM, PFM, PDM-succ, PDM with eps = 1).

    Extra hypothesis (encoded): gamma'_d >= 0.  Given gamma'_d >= 0, (5) is equivalent to (4) at
    t_c; for gamma'_d < 0 it is equivalent to its reverse and is false in general."""
    g = _separable_gamma(instance, rho)
    if g is None:
        return None
    lo, val, hi = g
    P = patterns(instance, rho)
    out = []
    for label, res in _runs_for(instance, runs, eps, rho, cap):
        if not res.converged:
            continue
        out.append(_eq5_from(instance, P, lo, hi, int(res.iterations), _vec(res.w), label))
    return _worst(out)


# -- PT11 eq. (6) --------------------------------------------------------------------------------

EQ6 = ("||a_t||^2/t^2 - ||a_{t+1}||^2/(t+1)^2 = (1/(t(t+1))) {(||a_t||^2/t - a_t.y_k) + "
       "(||a_{t+1}||^2/(t+1) - a_{t+1}.y_k)} at every update t >= 1 (squares restored, E-B1)")


def _identify(P: np.ndarray, step: np.ndarray, lam: int) -> Tuple[Optional[int], float]:
    """The pattern y_k with a_{t+lam} - a_t = lam y_k: its index and the residual (relative)."""
    y = step / lam
    dist = np.linalg.norm(P - y, axis=1)
    k = int(np.argmin(dist))
    scale = max(float(np.linalg.norm(P[k])), 1e-300)
    return k, float(dist[k]) / scale


def eq6_terms(a_t: np.ndarray, a_next: np.ndarray, y: np.ndarray, t: int) -> Tuple[float, float, float]:
    """(LHS, RHS, S) of identity (6); S bounds the magnitudes entering the round-off of LHS - RHS."""
    n0, n1 = float(a_t @ a_t), float(a_next @ a_next)
    p0, p1 = float(a_t @ y), float(a_next @ y)
    lhs = n0 / t**2 - n1 / (t + 1) ** 2
    rhs = ((n0 / t - p0) + (n1 / (t + 1) - p1)) / (t * (t + 1))
    ny = float(np.linalg.norm(y))
    S = n0 / t**2 + n1 / (t + 1) ** 2 + (n0 / t + math.sqrt(n0) * ny + n1 / (t + 1) + math.sqrt(n1) * ny) / (t * (t + 1))
    return lhs, rhs, S


@register("PT11.eq6", EQ6, "PT11 Sec. 2, eq. (6) (reconstructed); spec B.2, E-B1", kind="identity")
def check_eq6(instance: Instance, *, eps: float = DEFAULT_EPS, rho=None, cap: int = 5_000, runs=("pdm", "pfm", "pdm_classical"), max_expand: int = 10_000) -> Optional[Verdict]:
    """Identity (6) at every update of PDM / PFM / classical runs.  Each recorded step must be
    a_{t+lam} = a_t + lam y_k for a pattern y_k (lam > 1 for multiple updates, expanded into lam
    single updates); the identity is then evaluated with the exact pattern.

    Error measure: |LHS - RHS| / S with S = sum of the magnitudes of the terms (the dot products
    counted as ||a|| ||y||), because LHS is a difference of nearly equal numbers and a relative
    error w.r.t. |LHS| is meaningless.  Tolerance (argued): each of the O(1) terms is a norm or a
    dot product of length D with error <= D u times its magnitude bound, and the stored a_{t+1}
    differs from a_t + y_k by <= u |a_t + y_k| componentwise; so |LHS - RHS| <= (2D + 32) u S.
    lhs = max relative error found, rhs = that tolerance, slack = lhs/rhs."""
    if not _applies(instance):
        return None
    P = patterns(instance, rho)
    D = P.shape[1]
    tol = (2 * D + 32) * UNIT_ROUNDOFF
    out = []
    for label, res in _runs_for(instance, runs, eps, rho, cap):
        st = _states(res)
        worst, worst_t, ok, fail_t, why = 0.0, None, True, None, ""
        expanded = 0
        for (t0, a0), (t1, a1) in zip(st, st[1:]):
            lam = t1 - t0
            if lam < 1:
                continue
            k, resid = _identify(P, a1 - a0, lam)
            if resid > 1e-9 * lam * max(1.0, float(np.linalg.norm(a0)) / max(float(np.linalg.norm(P[k])), 1e-300)):
                if ok:
                    ok, fail_t, why = False, t0, f"step {t0}->{t1} is not a_t + {lam} y_k for any pattern (relative residual {resid:.3e})"
                continue
            y = P[k]
            a = a0
            for j in range(lam):
                t = t0 + j
                a_next = a1 if j == lam - 1 else a + y
                if t >= 1:
                    L, Rr, S = eq6_terms(a, a_next, y, t)
                    err = abs(L - Rr) / S if S > 0 else 0.0
                    if err > worst:
                        worst, worst_t = err, t
                    if err > tol and ok:
                        ok, fail_t, why = False, t, f"|LHS - RHS|/S = {err:.3e} > tol {tol:.3e}"
                a = a_next
                expanded += 1
                if expanded > max_expand:
                    break
        out.append(_verdict("PT11.eq6", ok, worst, tol, slack_of(worst, tol), instance, EQ6, clause=f"relative error vs its tolerance, {label}", run=label, iteration=fail_t if not ok else worst_t, reason=why, max_relative_error=worst, tol_rule="(2D + 32) u, relative to the term magnitudes S"))
    return _worst(out)


# -- PT11 Lemma 1 ------------------------------------------------------------------------------------

LEMMA1 = "if delta > e^{-C} and t >= e^{-C} satisfies t < delta (1 + C + ln t) (9), then t < t_0 = (1 + e^{-1}) delta (C + ln((1 + e) delta)) (10)"


def lemma1_t0(C, delta):
    """t_0 of (10) (float or mpmath, following the arguments)."""
    log = mpmath.log if isinstance(C, mpmath.mpf) or isinstance(delta, mpmath.mpf) else math.log
    e = mpmath.e if log is mpmath.log else E
    return (1 + 1 / e) * delta * (C + log((1 + e) * delta))


def lemma1_largest_t(C, delta, digits: int = 40) -> Tuple[object, object]:
    """Bracket [lo, hi] (mpmath, ``digits`` digits) of sup{t >= e^{-C} : t < delta (1 + C + ln t)},
    found by bisection on f(t) = t/(1 + C + ln t) - delta, which increases for t > e^{-C} from
    f(e^{-C}) < 0 (spec B.5).  Bisection runs on ln t; f(lo) < 0 <= f(hi)."""
    with mpmath.workdps(digits):
        C, delta = mpmath.mpf(C), mpmath.mpf(delta)

        def f(lt):
            return mpmath.exp(lt) / (1 + C + lt) - delta

        llo = -C
        if not f(llo) < 0:
            raise ValueError(f"(C, delta) = ({C}, {delta}) is not admissible: need delta > e^-C")
        lhi = max(llo + 1, mpmath.log(delta) + 1)
        while f(lhi) < 0:
            lhi = llo + 2 * (lhi - llo)
        tol = mpmath.mpf(10) ** (-(digits - 3))
        while lhi - llo > tol * (1 + abs(lhi)):
            mid = (llo + lhi) / 2
            if f(mid) < 0:
                llo = mid
            else:
                lhi = mid
        return mpmath.exp(llo), mpmath.exp(lhi)


def _lemma1_samples(instance: Instance, samples: int, seed) -> List[Tuple[float, float, str]]:
    rng = np.random.default_rng(zlib.crc32(instance.name.encode()) if seed is None else seed)
    out = []
    for i in range(samples):
        C = float(rng.uniform(-4.0, 10.0))
        delta = math.exp(-C) * (1.0 + 10.0 ** float(rng.uniform(-6.0, 6.0)))
        out.append((C, delta, "random"))
    # the equality case of the proof: ln y / y = 1/e at y = ln x = e, i.e. e^C (1 + e) delta = e^e
    for C in (-2.0, 0.0, 3.0):
        out.append((C, math.exp(E - C) / (1 + E), "tight (e^C (1+e) delta = e^e)"))
    # the (C, delta) the proofs feed to Lemma 1 on this instance
    if _applies(instance):
        lo, val, hi = _interval(gamma_d(instance))
        if lo > 0:
            R = paper_bounds.radius(patterns(instance))
            for e in (0.05, 0.3, 0.7, 1.0):
                x = lo / R
                alpha = 2 * x * (1 - x * (1 - e))
                out.append((2 * math.sqrt(alpha) + math.log(math.sqrt(alpha)), R * R / (2 * e * lo * lo), f"theorem1(eps={e})"))
            if R > lo:
                out.append((0.0, (R / lo) ** 2, "theorem2(eps=1/2)"))
    return out


@register("PT11.lemma1", LEMMA1, "PT11 Lemma 1; spec B.5")
def check_lemma1(instance: Instance, *, samples: int = 200, seed=None, digits: int = 40) -> Verdict:
    """Lemma 1 on random admissible (C, delta) (seeded by the instance name) plus the (C, delta)
    that Theorems 1 and 2 (eps = 1/2) produce on the instance, and the tight case.
    lhs = the upper end of the bisection bracket of sup{t : (9)} (worst end), rhs = t_0.

    Lemma 1 is TIGHT: at e^C (1 + e) delta = e^e the proof's ln y / y <= 1/e is an equality and
    sup{t : (9)} = t_0 exactly (t itself, satisfying the strict (9), stays < t_0).  So the check
    is sup <= t_0, evaluated at ``digits`` mpmath digits with relative tolerance 10^-(digits-6)."""
    worst: Optional[Verdict] = None
    for C, delta, src in _lemma1_samples(instance, samples, seed):
        if not delta > math.exp(-C):
            continue
        with mpmath.workdps(digits):
            _, t_hi = lemma1_largest_t(C, delta, digits)
            t0 = lemma1_t0(mpmath.mpf(C), mpmath.mpf(delta))
            holds = t_hi <= t0 * (1 + mpmath.mpf(10) ** (-(digits - 6)))
        v = _verdict("PT11.lemma1", holds, t_hi, t0, slack_of(t_hi, t0), instance, LEMMA1,
                     allowance=float(t0 * mpmath.mpf(10) ** (-(digits - 6))), clause=f"C = {C:.6g}, delta = {delta:.6g} ({src})", C=C, delta=delta, source=src, digits=digits)
        if worst is None or (not v.holds and worst.holds) or (v.holds == worst.holds and v.slack > worst.slack):
            worst = v
    return worst


# -- PT11 Theorems 1, 2 and Remark 1 ---------------------------------------------------------------

THM1 = "PFM with beta = (1 - eps) gamma_d makes t <= (1 + e^-1) delta (C + ln((1 + e) delta)) updates, delta = R^2/(2 eps gamma_d^2), alpha = 2 x (1 - x (1 - eps)), x = gamma_d/R, C = 2 sqrt(alpha) + ln sqrt(alpha)"
THM2 = "PDM with accuracy eps makes at most the Theorem 2 number of updates (cases eps < 1/2, = 1/2, > 1/2; spec B.7)"
REM1 = "the bound of Theorem 2 also holds for PFM with beta = (1 - eps) gamma_d"


def _count_verdict(id, statement, instance, label, run_fn, bound: float, cap: int, bound_best: Optional[float] = None, **details) -> Optional[Verdict]:
    """Run with a budget of floor(bound) + 1 updates (capped): t > bound is then observable.

    ``bound`` is the bound at the worst end of the certified interval, ``bound_best`` at the
    other end.  t <= bound decides; when only t <= bound_best (1 + 16 u) holds (an equality
    case such as n = 1, where t = R^2/gamma_d^2 exactly), the statement is not refuted by the
    certified interval and holds with ``details["within_interval"] = True``."""
    if not math.isfinite(bound):
        return None
    top = max(bound, bound_best if bound_best is not None and math.isfinite(bound_best) else bound) * (1 + 16 * UNIT_ROUNDOFF)
    budget = int(math.floor(top)) + 1
    if budget > cap:
        res = run_fn(cap)
        if not res.converged:
            return None  # inconclusive: the bound exceeds what we are willing to run
    else:
        res = run_fn(budget)
    t = int(res.iterations)
    strict = res.converged and t <= bound
    within = (not strict) and res.converged and bound_best is not None and t <= bound_best * (1 + 16 * UNIT_ROUNDOFF)
    holds = strict or within
    allowance = max(0.0, bound_best * (1 + 16 * UNIT_ROUNDOFF) - bound) if within else 0.0
    return _verdict(id, holds, t, bound, slack_of(t, bound), instance, statement, allowance=allowance, clause=label, run=label, iteration=t if not holds else None, status=res.status, within_interval=within, **details)


def _pfm_bound_worst(R, lo, hi, beta, which: str) -> Tuple[float, float, float]:
    """(bound at the worst end of [lo, hi], the eps = 1 - beta/gamma there, bound at the other end)."""
    vals = []
    for g in (lo, hi):
        e = 1.0 - beta / g
        b = paper_bounds.pfm_theorem1(R, g, e) if which == "theorem1" else paper_bounds.pdm_theorem2(R, g, e)
        vals.append((b, e))
    vals.sort(key=lambda v: v[0])
    return vals[0][0], vals[0][1], vals[-1][0]


@register("PT11.theorem1", THM1, "PT11 Theorem 1; spec B.6 (E-B2)")
def check_theorem1(instance: Instance, *, eps_values=(0.1, 0.3, 0.5, 0.8, 1.0), rho=None, cap: int = DEFAULT_CAP, **run_opts) -> Optional[Verdict]:
    """PFM update count vs Theorem 1, beta = (1 - eps) gamma_lo; the bound is evaluated at the worst
    end of the certified interval with the eps that beta then implies (eps = 1 - beta/gamma)."""
    g = _separable_gamma(instance, rho)
    if g is None:
        return None
    lo, val, hi = g
    R = paper_bounds.radius(patterns(instance, rho))
    out = []
    for e in eps_values:
        beta = (1 - e) * lo
        bound, e_eff, best = _pfm_bound_worst(R, lo, hi, beta, "theorem1")
        out.append(_count_verdict("PT11.theorem1", THM1, instance, f"pfm(eps={e:g})", lambda c, beta=beta: _pfm_run(instance, beta, rho, c, **run_opts), bound, cap, best, eps=e, eps_effective=e_eff, R=R, gamma_interval=[lo, hi]))
    return _worst(out)


@register("PT11.theorem2", THM2, "PT11 Theorem 2; spec B.7 (E-B4)")
def check_theorem2(instance: Instance, *, eps_values=(0.2, 0.35, 0.5, 0.7, 1.0), rho=None, cap: int = DEFAULT_CAP, **run_opts) -> Optional[Verdict]:
    """PDM update count vs the three cases of Theorem 2 (bound at gamma_hi, where it is smallest)."""
    g = _separable_gamma(instance, rho)
    if g is None:
        return None
    lo, val, hi = g
    R = paper_bounds.radius(patterns(instance, rho))
    out = []
    for e in eps_values:
        bounds = sorted(paper_bounds.pdm_theorem2(R, g, e) for g in (lo, hi))
        bound = bounds[0]
        case = "eps<1/2" if e < 0.5 else ("eps=1/2" if e == 0.5 else "eps>1/2")
        out.append(_count_verdict("PT11.theorem2", THM2, instance, f"pdm(eps={e:g})", lambda c, e=e: _pdm_run(instance, e, rho, c, **run_opts), bound, cap, bounds[-1], eps=e, case=case, R=R, gamma_interval=[lo, hi]))
    return _worst(out)


@register("PT11.remark1", REM1, "PT11 Remark 1; spec B.7")
def check_remark1(instance: Instance, *, eps_values=(0.2, 0.35, 0.5, 0.7, 1.0), rho=None, cap: int = DEFAULT_CAP, **run_opts) -> Optional[Verdict]:
    """PFM (beta = (1 - eps) gamma_lo) update count vs Theorem 2's bound, at the worst end."""
    g = _separable_gamma(instance, rho)
    if g is None:
        return None
    lo, val, hi = g
    R = paper_bounds.radius(patterns(instance, rho))
    out = []
    for e in eps_values:
        beta = (1 - e) * lo
        bound, e_eff, best = _pfm_bound_worst(R, lo, hi, beta, "theorem2")
        out.append(_count_verdict("PT11.remark1", REM1, instance, f"pfm(eps={e:g})", lambda c, beta=beta: _pfm_run(instance, beta, rho, c, **run_opts), bound, cap, best, eps=e, eps_effective=e_eff, R=R, gamma_interval=[lo, hi]))
    return _worst(out)


# -- PT11: margin on convergence ------------------------------------------------------------------

MARGIN = "on convergence, min_k a.y_k/||a|| >= (1 - eps) gamma_d (PDM, with active sets / multiple updates, and PDM-succ)"

PDM_VARIANTS = (
    ("pdm", {}),
    ("pdm", {"active_sets": True}),
    ("pdm", {"multiple_updates": True}),
    ("pdm", {"active_sets": True, "multiple_updates": True}),
    ("pdm_succ", {}),
    ("pdm_succ", {"active_sets": True, "multiple_updates": True}),
)


@register("PT11.pdm_margin", MARGIN, "PT11 Sec. 3 (after (8)), Sec. 4; spec B.3, B.8, B.9")
def check_pdm_margin(instance: Instance, *, eps: float = DEFAULT_EPS, rho=None, cap: int = DEFAULT_CAP, variants=PDM_VARIANTS, seed: int = 0) -> Optional[Verdict]:
    """lhs = (1 - eps) gamma_hi, rhs = gamma'_d = min_k a.y_k/||a|| of the returned a.
    Tolerance: gamma'_d is computed from dot products of length D: absolute error
    <= (D + 4) u R; plus (1 - eps)(gamma_hi - gamma_lo) for the equality case.  Runs that do not converge within ``cap`` are skipped."""
    g = _separable_gamma(instance, rho)
    if g is None:
        return None
    lo, val, hi = g
    P = patterns(instance, rho)
    R = paper_bounds.radius(patterns(instance, rho))
    tol = (P.shape[1] + 4) * UNIT_ROUNDOFF * R + (1 - eps) * (hi - lo)
    out = []
    for name, opts in variants:
        kw = _pt_kwargs(instance, rho, cap, seed=seed, **opts)
        kw["trace"] = False
        res = _run(name, instance, eps, **kw)
        if not res.converged:
            continue
        gp = _achieved(P, _vec(res.w))
        lhs = (1 - eps) * hi
        label = f"{name}(eps={eps:g}{''.join(f', {k}={v}' for k, v in opts.items())})"
        out.append(_verdict("PT11.pdm_margin", lhs <= gp + tol, lhs, gp, slack_of(lhs, gp), instance, MARGIN, allowance=tol, clause=label, run=label, iteration=int(res.iterations), gamma_interval=[lo, hi], tol=tol))
    return _worst(out)


# -- PT11: multiple updates ------------------------------------------------------------------------

MULTI = ("a multiple update lambda = [mu_+] + 1 (mu_+ the larger root, E-B3) equals lambda single "
         "presentations of the same pattern: same a, t, ell (PDM; PFM with its own quadratic)")


def mu_plus_pdm(p, q, l, t, eps):
    """The larger root of eps q mu^2 + (t q + (2 eps - 1) p) mu + (t p - (1 - eps) l) = 0 (spec B.9)."""
    b = t * q + (2 * eps - 1) * p
    c = t * p - (1 - eps) * l
    sq = mpmath.sqrt(b * b - 4 * eps * q * c) if isinstance(p, mpmath.mpf) else math.sqrt(max(b * b - 4 * eps * q * c, 0.0))
    return (-b + sq) / (2 * eps * q)


def mu_plus_pfm(p, q, l, beta):
    """The larger root of (q - beta^2)(q mu^2 + 2 p mu) + p^2 - beta^2 l = 0 (spec B.9, PFM)."""
    A = (q - beta**2) * q
    B = 2 * (q - beta**2) * p
    C = p * p - beta**2 * l
    disc = B * B - 4 * A * C
    sq = mpmath.sqrt(disc) if isinstance(p, mpmath.mpf) else math.sqrt(max(disc, 0.0))
    return (-B + sq) / (2 * A)


def repeated_presentations(a, y, t: int, l, cond, limit: int = 10**6):
    """Present y repeatedly from state (a, t, l = ||a||^2) while ``cond(p, l, t)`` holds, with the
    box's recurrences (p += q, l += 2 p + q): returns (count, a, t, l)."""
    q = y @ y
    p = a @ y
    count = 0
    while count < limit and cond(p, l, t):
        a = a + y
        l = l + 2 * p + q
        p = p + q
        t += 1
        count += 1
    return count, a, t, l


def _pdm_cond(eps):
    return lambda p, l, t: (p <= 0) if t == 0 else (p <= (1 - eps) * l / t)


def _pfm_cond(beta, sqrt):
    return lambda p, l, t: p <= beta * sqrt(l)


@register("PT11.multiple_updates", MULTI, "PT11 Sec. 4; spec B.9, E-B3", kind="identity")
def check_multiple_updates(instance: Instance, *, eps_values=(0.05, 0.2, 0.5, 0.9), rho=None, states: int = 40, seed=None, digits: int = 40, run_opts: Optional[dict] = None) -> Optional[Verdict]:
    """(a) On states (a_t, t) visited by plain PDM on the instance and on patterns y_k satisfying
    the condition there: lambda = [mu_+] + 1 from the closed form equals the number of repeated
    presentations, and the final a, t, ell agree (computed exactly enough: at ``digits`` mpmath
    digits; a closed form within 1e-9 of an integer is a near-tie and is reported, not failed).
    (b) On the trace of ``pdm(multiple_updates=True)``: every step with lambda > 1 must be what
    repeated presentation from the recorded state gives (same lambda, a, t).
    lhs = number of mismatches, rhs = 0; slack = max relative difference of a."""
    if not _applies(instance):
        return None
    lo, val, hi = _interval(gamma_d(instance, rho))
    P = patterns(instance, rho)
    rng = np.random.default_rng(zlib.crc32(instance.name.encode()) if seed is None else seed)
    mismatches, near_ties, checked, max_rel, min_b_eq = [], 0, 0, 0.0, math.inf
    first_fail = None
    with mpmath.workdps(digits):
        for e in eps_values:
            res = _pdm_run(instance, e, rho, 400)
            st = _states(res)
            picks = rng.choice(len(st), size=min(states, len(st)), replace=False)
            for i in picks:
                t, a = st[i]
                if t < 1:
                    continue
                am = np.array([mpmath.mpf(float(v)) for v in a], dtype=object)
                l = am @ am
                ks = [k for k in range(P.shape[0]) if am @ P[k] <= (1 - mpmath.mpf(e)) * l / t]
                if not ks:
                    continue
                k = int(rng.choice(ks))
                y = np.array([mpmath.mpf(float(v)) for v in P[k]], dtype=object)
                p, q = am @ y, y @ y
                b = t * q + (2 * e - 1) * p
                if abs(t * p - (1 - e) * l) <= mpmath.mpf(10) ** (-digits // 2) * (abs(t * p) + l):
                    min_b_eq = min(min_b_eq, float(b / (t * q)))
                from reference import dynamic_margin
                from reference.arithmetic import Arithmetic

                mu = dynamic_margin.pdm_mu_plus(mpmath.mpf(e), p, q, l, t, Arithmetic(digits))  # the library's closed form
                mu_own = mu_plus_pdm(p, q, l, t, mpmath.mpf(e))  # this module's, independently
                if abs(mu - mu_own) > mpmath.mpf(10) ** (-(digits // 2)) * (1 + abs(mu_own)):
                    mismatches.append(f"eps={e}, t={t}, k={k}: library mu_+ = {mpmath.nstr(mu, 12)} vs {mpmath.nstr(mu_own, 12)}")
                    first_fail = first_fail or t
                lam = int(mpmath.floor(mu)) + 1
                cnt, a2, t2, l2 = repeated_presentations(am, y, t, l, _pdm_cond(mpmath.mpf(e)))
                checked += 1
                frac = float(mu - mpmath.floor(mu))
                if cnt != lam:
                    if min(frac, 1 - frac) < 1e-9:
                        near_ties += 1
                        continue
                    mismatches.append(f"eps={e}, t={t}, k={k}: lambda={lam} vs {cnt} presentations")
                    first_fail = first_fail or t
                    continue
                a_cf = am + lam * y
                l_cf = l + 2 * lam * p + lam * lam * q
                rel = float(max(abs(x) for x in (a_cf - a2)) / (1 + max(abs(x) for x in a2)))
                rel = max(rel, float(abs(l_cf - l2) / (1 + l2)))
                max_rel = max(max_rel, rel)
                if rel > 1e-20 or t2 != t + lam:
                    mismatches.append(f"eps={e}, t={t}, k={k}: a/ell/t differ (rel {rel:.2e})")
                    first_fail = first_fail or t
    # (b) the library's multiple-update runs
    trace_steps = 0
    budget = 2000
    for e in eps_values:
        res = _pdm_run(instance, e, rho, budget, multiple_updates=True, **(run_opts or {}))
        st = list(res.trace)
        for s0, s1 in zip(st, st[1:]):
            t0, a0 = _state_t(s0), _state_a(s0)
            t1, a1 = _state_t(s1), _state_a(s1)
            lam = t1 - t0
            if lam <= 1 or t1 >= budget:  # lambda is capped so that t <= max_iter: not the definition
                continue
            trace_steps += 1
            k, resid = _identify(P, a1 - a0, lam)
            l0 = _get(s0, "ell", "l")
            l0 = float(l0) if l0 is not None else float(a0 @ a0)
            cnt, a2, t2, l2 = repeated_presentations(a0, P[k], t0, l0, _pdm_cond(e))
            if cnt != lam:
                # near-tie: the stopping quantity of the last presentation within round-off
                pp, th = float(a0 @ P[k]) + lam * float(P[k] @ P[k]), (1 - e) * (l0 + 2 * lam * float(a0 @ P[k]) + lam * lam * float(P[k] @ P[k])) / (t0 + lam)
                if abs(pp - th) <= 1e-9 * (abs(pp) + abs(th)):
                    near_ties += 1
                    continue
                mismatches.append(f"trace eps={e}: step t={t0}->{t1} (lambda={lam}) but repeated presentation gives {cnt}")
                first_fail = first_fail or t0
                continue
            rel = float(np.max(np.abs(a2 - a1)) / (1 + np.max(np.abs(a1))))
            max_rel = max(max_rel, rel)
            if rel > 1e-9:
                mismatches.append(f"trace eps={e}: step t={t0}: a differs from repeated presentation (rel {rel:.2e})")
                first_fail = first_fail or t0
    holds = not mismatches
    return _verdict("PT11.multiple_updates", holds, len(mismatches), 0, max_rel, instance, MULTI, iteration=first_fail, checked_states=checked, trace_multi_steps=trace_steps, near_ties=near_ties, mismatches=mismatches[:5], min_linear_coeff_at_equality_over_tq=(min_b_eq if math.isfinite(min_b_eq) else None))


# -- PT11: the extended space ------------------------------------------------------------------------

EXT = "in the extended space y_k = [ybar_k, l_k Delta e_k] the directional margin is >= Delta/sqrt(m) (witness u = (0, l_1..l_m)/sqrt(m))"


@register("PT11.extension", EXT, "PT11 Sec. 5; spec B.10")
def check_extension(instance: Instance, *, Deltas=(0.1, 1.0, 3.0), rho=None) -> Optional[Verdict]:
    """gamma_d of reference.extend(...) (lower end, the worst) vs Delta/sqrt(m), and the witness u
    giving exactly Delta/sqrt(m) on every extended pattern.  Tolerance: relative 8 u (the bound is
    computed with a sqrt and a division) plus the witness's dot products (D u max||y||)."""
    if not _applies(instance):
        return None
    out = []
    m = instance.n
    for Delta in Deltas:
        Pe = patterns(instance, rho, Delta)
        base = patterns(instance, rho)
        dext = Pe.shape[1] - base.shape[1]
        bound = Delta / math.sqrt(m)
        mg = gamma_d(instance, rho, Delta)
        lo, val, hi = _interval(mg)
        u = np.zeros(Pe.shape[1])
        u[base.shape[1]:] = np.asarray(instance.y, dtype=np.float64) / math.sqrt(m) if dext == m else 0.0
        wit = float(np.min(Pe @ u))
        R = paper_bounds.radius(Pe)
        tol = 8 * UNIT_ROUNDOFF * bound + Pe.shape[1] * UNIT_ROUNDOFF * R + (hi - lo)
        holds = dext == m and lo >= bound - tol and abs(wit - bound) <= tol
        out.append(_verdict("PT11.extension", holds, bound, lo, slack_of(bound, lo), instance, EXT, allowance=tol, clause=f"Delta = {Delta:g}", run=f"Delta={Delta:g}", Delta=Delta, witness_margin=wit, extra_dims=dext, gamma_interval=[lo, hi], tol=tol))
    return _worst(out)
