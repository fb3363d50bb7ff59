"""Proof steps of Panagiotakopoulos & Tsampouka, *The Perceptron with Dynamic Margin* (ALT 2011).

Every function below is one registered step (see :mod:`proofs_check`).  Its keyword arguments are
the constants / exponents the step checks; the registered ``perturb`` replaces one of them by a
wrong value and the step must then report ``fails``.

Notation: ``l = ||a_t||^2``, ``p = a_t . y_k``, ``q = ||y_k||^2``, ``x = gamma_d/R``.  Domains are
reduced to positive variables by substitution (``eps = 1/(1+e)`` for ``eps in (0,1]``,
``x = 1/(1+w)`` for ``x in (0,1]``, ...); hypotheses are written as equalities with slack
variables ``s_i >= 0``.
"""

from __future__ import annotations

import mpmath
import sympy as sp
from mpmath import iv
from sympy import E
from sympy import Rational as Q
from sympy import exp, floor, log, sqrt

from .steps import (bad, combine, identity, interval_positive, is_zero, nonneg, ok, register,
                    search_negative, sign_of)

P = "PT11"

t, l, q, R, gam, N, al, s, s1, s2, s3, e, w, x, z, y, C, dl, m, h, K = sp.symbols(
    "t l q R gamma N alpha_N s s1 s2 s3 e w x z y C delta m h K", positive=True
)
p = sp.Symbol("p", real=True)
eps = sp.Symbol("epsilon", positive=True)

EPS01 = 1 / (1 + e)  # eps in (0, 1]
EPS_LT_HALF = 1 / (2 * (1 + e))  # eps in (0, 1/2)
EPS_GT_HALF = Q(1, 2) + 1 / (2 * (1 + e))  # eps in (1/2, 1)


def _power_ge_one(base_minus_one, exponent, syms, what):
    """Known fact instantiated: ``b >= 1`` and ``c >= 0``  =>  ``b^c >= 1``."""
    s_b, how_b = sign_of(base_minus_one, syms)
    s_c, how_c = sign_of(exponent, syms)
    if s_b == 1 and s_c == 1:
        return ok("known inequality", f"{what}: base - 1 = {base_minus_one} >= 0 and exponent {exponent} >= 0 => power >= 1")
    return bad("known inequality", f"{what}: cannot apply b>=1, c>=0 => b^c>=1 (base-1: {how_b}; exponent: {how_c})")


# ------------------------------------------------------------------------------------------------
# eq. (6)
# ------------------------------------------------------------------------------------------------


def _eq6(pref, sq):
    l1 = l + 2 * p + q  # ||a_{t+1}||^2
    p1 = p + q  # a_{t+1}.y_k
    nrm = (lambda v: v) if sq else sqrt  # squares restored, or dropped as printed
    lhs = nrm(l) / t ** (2 if sq else 1) - nrm(l1) / (t + 1) ** (2 if sq else 1)
    rhs = pref(t) * ((nrm(l) / t - p) + (nrm(l1) / (t + 1) - p1))
    return lhs, rhs


@register(
    "PT11.eq6",
    P,
    "eq. (6), squares restored",
    "||a_t||^2/t^2 - ||a_{t+1}||^2/(t+1)^2 = (1/(t(t+1))){(||a_t||^2/t - a_t.y) + (||a_{t+1}||^2/(t+1) - a_{t+1}.y)}",
    perturb=dict(pref=lambda tt: 1 / (tt + 1) ** 2),
)
def eq6(pref=lambda tt: 1 / (tt * (tt + 1))):
    """[PT11 eq. (6)] Exact identity in ``l, p, q, t`` with ``a_{t+1} = a_t + y_k``."""
    lhs, rhs = _eq6(pref, True)
    return identity(lhs, rhs)


@register(
    "PT11.eq6.printed",
    P,
    "eq. (6) as printed, erratum E-B1",
    "||a_t||/t - ||a_{t+1}||/(t+1) = (1/(t(t+1))){(||a_t||/t - a_t.y) + (||a_{t+1}||/(t+1) - a_{t+1}.y)}",
    expected=False,
    corrected="||a_t||^2/t^2 - ||a_{t+1}||^2/(t+1)^2 = (1/(t(t+1))){(||a_t||^2/t - a_t.y_k) + (||a_{t+1}||^2/(t+1) - a_{t+1}.y_k)}",
)
def eq6_printed(pref=lambda tt: 1 / (tt * (tt + 1))):
    """[PT11 eq. (6), E-B1] Without squares: exact counterexample ``t = 1``, ``a_t = (1,0)``, ``y = (0,1)``."""
    lhs, rhs = _eq6(pref, False)
    pt = {t: 1, l: 1, p: 0, q: 1}
    dv = sp.nsimplify(sp.simplify((lhs - rhs).subs(pt)))
    if dv == 0 and is_zero(lhs - rhs):
        return ok("identity", "identity holds")
    return bad("counterexample", f"t=1, a_t=(1,0), y=(0,1): lhs - rhs = {dv} = {sp.N(dv, 6)} != 0")


@register(
    "PT11.eq6.norm_step",
    P,
    "eq. (6), derivation",
    "||a_{t+1}||^2 - ||a_t||^2 = a_t.y_k + a_{t+1}.y_k",
    perturb=dict(c=2),
)
def eq6_norm_step(c=1):
    """[PT11 eq. (6)] Vector identity (3-D symbolic vectors)."""
    a = sp.Matrix(sp.symbols("a0:3", real=True))
    yv = sp.Matrix(sp.symbols("y0:3", real=True))
    a1 = a + yv
    return identity(a1.dot(a1) - a.dot(a), c * a.dot(yv) + a1.dot(yv))


# ------------------------------------------------------------------------------------------------
# Conditions (7), (8), eq. (5), Remark 1, PDM-succ
# ------------------------------------------------------------------------------------------------


@register(
    "PT11.eq8.after_update",
    P,
    "eq. (8), consequences",
    "(8), ||y|| <= R, t >= 1 => ||a_{t+1}||^2/(t+1) - a_{t+1}.y >= (t/(t+1))(eps||a_t||^2/t - R^2) >= (t/(t+1))(eps gamma^2 t - R^2)",
    perturb=dict(c=2),
)
def eq8_after(c=1):
    """[PT11 eq. (8)] Slacks ``p = (1-eps)l/t - s1``, ``q = R^2 - s2``, ``l = gamma^2 t^2 + s3``, ``t = 1+h``,
    ``eps = 1/(1+e)``: both differences are polynomials with non-negative coefficients."""
    tt = 1 + h
    l1 = l + 2 * p + q
    lhs = l1 / (tt + 1) - (p + q)
    mid = tt / (tt + 1) * (c * eps * l / tt - R**2)
    sub = {p: (1 - eps) * l / tt - s1, q: R**2 - s2}
    d1 = (lhs - mid).subs(sub).subs(eps, EPS01)
    r1 = nonneg(d1, [l, s1, s2, h, e, R], what="lhs - (t/(t+1))(eps l/t - R^2)",
                counter=lambda: f"s1=s2=0, t=1+h large: {sp.factor(d1.subs({s1: 0, s2: 0}))}")
    d2 = (mid - tt / (tt + 1) * (c * eps * gam**2 * tt - R**2)).subs(l, gam**2 * tt**2 + s3).subs(eps, EPS01)
    r2 = nonneg(d2, [gam, s3, h, e, R], what="l >= gamma^2 t^2 step")
    return combine(r1, r2)


@register(
    "PT11.eq5",
    P,
    "eq. (5)",
    "(gamma_d - gamma'_d)/gamma_d <= 1 - gamma'_d t_c/||a_{t_c}||  (using (4): ||a_t|| >= gamma_d t)",
    perturb=dict(c=2),
)
def eq5(c=1):
    """[PT11 eq. (5)] With ``||a|| = t(gamma + s)`` (eq. (4)): RHS - LHS = ``gamma' s/(gamma(gamma+s)) >= 0``."""
    gp = sp.Symbol("gp", positive=True)
    a_norm = t * (gam + s)
    d = (1 - c * gp * t / a_norm) - (gam - gp) / gam
    return nonneg(d, [gp, t, gam, s], what="rhs - lhs", counter=lambda: f"s = 0: {sp.simplify(d.subs(s, 0))}")


@register(
    "PT11.Remark1",
    P,
    "Remark 1 ((7) => (8))",
    "a_t.y <= (1-eps) gamma_d ||a_t|| implies a_t.y <= (1-eps)||a_t||^2/t, since gamma_d <= ||a_t||/t",
    perturb=dict(c=Q(1, 2)),
)
def remark1(c=1):
    """[PT11 Remark 1] ``c(1-eps)||a||^2/t - (1-eps) gamma ||a|| >= 0`` with ``||a|| = t(gamma + s)``."""
    a_norm = t * (gam + s)
    d = ((1 - eps) * c * a_norm**2 / t - (1 - eps) * gam * a_norm).subs(eps, EPS01)
    return nonneg(d, [t, gam, s, e], what="threshold(8) - threshold(7)",
                  counter=lambda: f"s = 0: {sp.factor(d.subs(s, 0))}")


@register(
    "PT11.eq8.monotone_eps",
    P,
    "eq. (8) in eps (used for E-B4)",
    "for eps' <= eps every update under (8) with eps is an update under (8) with eps'",
    perturb=dict(thr=lambda ee: ee),
)
def eq8_monotone(thr=lambda ee: 1 - ee):
    """[PT11 eq. (8)] ``thr(eps') - thr(eps) >= 0`` for ``eps = eps' + d``, ``d >= 0`` (thresholds
    ``(1-eps) l/t``)."""
    d = sp.Symbol("d", positive=True)
    return nonneg((thr(eps) - thr(eps + d)) * l / t, [eps, d, l, t], what="threshold(eps') - threshold(eps)")


@register(
    "PT11.succ.alpha",
    P,
    "Sect. 5 (PDM-succ), observation 1",
    "on convergence (1-eps)||a||^2/t < gamma_d ||a||  =>  alpha_t = ||a||/(R t) < (1-eps)^{-1} gamma_d/R",
    perturb=dict(claimed=lambda ee: gam / R),
)
def succ_alpha(claimed=lambda ee: gam / ((1 - ee) * R)):
    """[PT11 Sect. 5] With ``gamma ||a|| = (1-eps)||a||^2/t + s``: ``claimed - ||a||/(Rt) >= 0``."""
    An = sp.Symbol("A", positive=True)  # ||a||
    gval = ((1 - eps) * An**2 / t + s) / An
    d = (claimed(eps).subs(gam, gval) - An / (R * t)).subs(eps, EPS01)
    return nonneg(d, [An, t, s, R, e], what="claimed - alpha_t",
                  counter=lambda: f"s -> 0: {sp.factor(d.subs(s, 0))}")


# ------------------------------------------------------------------------------------------------
# eq. (12) and the norm growth of Theorem 1
# ------------------------------------------------------------------------------------------------


@register(
    "PT11.eq12",
    P,
    "eq. (12) (Thm. 2)",
    "||a_{t+1}||^2 <= ||a_t||^2 (1 + 2(1-eps)/t) + R^2 under (8) and ||y|| <= R",
    perturb=dict(c=1),
)
def eq12(c=2):
    """[PT11 eq. (12)] Slacks ``p = (1-eps)l/t - s1``, ``q = R^2 - s2``: difference ``= 2 s1 + s2``."""
    d = (l * (1 + c * (1 - eps) / t) + R**2 - (l + 2 * p + q)).subs({p: (1 - eps) * l / t - s1, q: R**2 - s2})
    d = d.subs(eps, EPS01)
    return nonneg(d, [l, t, s1, s2, e, R], what="bound - ||a_{t+1}||^2",
                  counter=lambda: f"s1=s2=0: {sp.factor(d.subs({s1: 0, s2: 0}))}")


@register(
    "PT11.Thm1.norm_growth",
    P,
    "Thm. 1 proof, first line",
    "||a_{t+1}||^2 <= ||a_t||^2 (1 + R^2/||a_t||^2 + 2(1-eps) gamma_d/||a_t||) under (7)",
    perturb=dict(c=1),
)
def thm1_growth(c=2):
    """[PT11 Thm. 1] With ``A = ||a_t||``, ``p = (1-eps) gamma A - s1``, ``q = R^2 - s2``: difference ``2 s1 + s2``."""
    An = sp.Symbol("A", positive=True)
    d = (An**2 * (1 + R**2 / An**2 + c * (1 - eps) * gam / An) - (An**2 + 2 * p + q)).subs(
        {p: (1 - eps) * gam * An - s1, q: R**2 - s2}).subs(eps, EPS01)
    return nonneg(d, [An, gam, s1, s2, e, R], what="bound - ||a_{t+1}||^2",
                  counter=lambda: f"s1=s2=0: {sp.factor(d.subs({s1: 0, s2: 0}))}")


@register(
    "PT11.Thm1.sqrt",
    P,
    "Thm. 1 proof",
    "sqrt(1+x) <= 1 + x/2, hence ||a_{t+1}|| - ||a_t|| <= R^2/(2||a_t||) + (1-eps)gamma_d <= R^2/(2 gamma_d t) + (1-eps) gamma_d",
    perturb=dict(c=Q(1, 3)),
)
def thm1_sqrt(c=Q(1, 2)):
    """[PT11 Thm. 1] ``(1 + c x)^2 - (1 + x) = x^2/4 >= 0`` (c = 1/2) and ``1 + c x > 0`` (sqrt is monotone);
    then ``A(1 + c X) - A`` with ``X = R^2/A^2 + 2(1-eps)gamma/A`` is the stated increment, and
    ``A = gamma t + s`` (eq. (3)) gives the last bound."""
    r1 = nonneg((1 + c * x) ** 2 - (1 + x), [x], what="(1+cx)^2 - (1+x)",
                counter=lambda: search_negative(lambda xx: (1 + c * xx) ** 2 - (1 + xx), [[Q(1, 2), 1, 4]]))
    An = sp.Symbol("A", positive=True)
    X = R**2 / An**2 + 2 * (1 - eps) * gam / An
    r2 = identity(An * (1 + c * X) - An, R**2 / (2 * An) + (1 - eps) * gam, "increment")
    r3 = nonneg((R**2 / (2 * gam * t) - R**2 / (2 * An)).subs(An, gam * t + s), [R, gam, t, s], what="A >= gamma t")
    return combine(r1, r2, r3)


@register(
    "PT11.Thm1.harmonic",
    P,
    "Thm. 1 proof (harmonic sum)",
    "1/k <= ln(k/(k-1)) for k >= 2, so sum_{k=N}^{t-1} 1/k <= N^{-1} + ln(t/N)",
    perturb=dict(term=lambda kk: 1 / (kk - 1)),
)
def thm1_harmonic(term=lambda kk: 1 / kk):
    """[PT11 Thm. 1] ``D(k) = ln(k/(k-1)) - term(k)``: ``D'(k) = -1/(k^2 (k-1)) < 0`` (with ``k = 1+w``) and
    ``D -> 0`` as ``k -> oo``, so ``D >= 0`` (monotonicity through the derivative)."""
    kk = 1 + w
    D = log(kk / (kk - 1)) - term(kk)
    dD = sp.together(sp.diff(D, w))
    sgn, how = sign_of(-dD, [w])
    lim = sp.limit(D, w, sp.oo)
    if sgn == 1 and lim == 0:
        return ok("derivative (monotone) + limit", f"D'(k) = {sp.factor(dD)} <= 0 and lim D = 0, so D >= 0")
    ce = search_negative(sp.lambdify(w, D, "mpmath"), [[1, 2, 5, 10]])
    return bad("derivative (monotone) + limit", f"D' sign: {how}; lim D = {lim}; counterexample {ce}")


@register(
    "PT11.Thm1.t_inequality",
    P,
    "Thm. 1 proof",
    "gamma t - R N < (R^2/(2gamma))(1/N + ln(t/N)) + (1-eps)gamma(t-N) <=> t < (1/(2eps))(R^2/gamma^2){1/N - ln N + 2(gamma/R)(1-(gamma/R)(1-eps))N + ln t}",
    perturb=dict(c=1),
)
def thm1_t_ineq(c=2):
    """[PT11 Thm. 1] Isolating ``t`` (divide by ``eps gamma > 0``) is an exact identity."""
    lhs = (R * N - (1 - eps) * gam * N + R**2 / (2 * gam) * (1 / N + log(t) - log(N))) / (eps * gam)
    rhs = R**2 / (2 * eps * gam**2) * (1 / N - log(N) + c * (gam / R) * (1 - (gam / R) * (1 - eps)) * N + log(t))
    return identity(lhs, rhs)


def _alpha_expr(xx, ee):
    return 2 * xx * (1 - xx * (1 - ee))


@register(
    "PT11.Thm1.N_choice",
    P,
    "Thm. 1 proof, N = 1 + [alpha^{-1/2}]",
    "alpha N + N^{-1} - ln N < 1 + 2 sqrt(alpha) + ln sqrt(alpha) for N = 1 + [alpha^{-1/2}], 0 < alpha <= 2",
    perturb=dict(c_sqrt=1),
)
def thm1_N_choice(rhs_const=1, c_sqrt=2):
    """[PT11 Thm. 1, choice of N] With ``s = alpha^{-1/2}``:

    - ``alpha = 2x(1 - x(1-eps)) <= 2`` (``2 - alpha`` has a positive factored form);
    - ``s >= 1``: ``N in (s, s+1]``; ``g(N) = N/s^2 + 1/N - ln N`` is convex (``g'' > 0``), so
      ``g(N) <= max(g(s), g(s+1))``; ``RHS - g(s) = rhs_const + (c-2)/s`` (linear in ``u = 1/s in
      (0,1]``, checked at the endpoints) and ``RHS - g(s+1) > 0`` by interval arithmetic on ``u``;
    - ``1 < alpha <= 2``: ``N = 1`` and ``RHS - g(1) > 0`` by interval arithmetic on ``alpha``.
    """
    xx = 1 / (1 + w)
    r0 = nonneg(2 - _alpha_expr(xx, EPS01), [w, e], what="2 - alpha")
    sv, NN = sp.symbols("s_ N_", positive=True)
    gN = NN / sv**2 + 1 / NN - log(NN)
    r1 = nonneg(sp.diff(gN, NN, 2), [NN, sv], what="g''(N)")
    # endpoint N = s (u = 1/s in (0,1]): RHS - g(s) = rhs_const + (c-2) u, linear in u
    end_vals = [rhs_const + (c_sqrt - 2) * uu for uu in (0, 1)]
    r2 = ok("linear", f"RHS - g(s) = {rhs_const} + ({c_sqrt}-2)u >= 0 on [0,1]") if all(
        v >= 0 for v in end_vals) else bad("linear", f"RHS - g(s) at u in {{0,1}}: {end_vals}")
    c_sqrt_f, k_f = float(c_sqrt), float(rhs_const)

    def f_s1(uu):  # RHS - g(s+1) in u = 1/s
        return k_f + c_sqrt_f * uu - uu - uu * uu - uu / (1 + uu) + iv.log(1 + uu)

    ok3, d3 = interval_positive(f_s1, [(0.0, 1.0)])
    r3 = StepOK(ok3, "interval", "RHS - g(s+1), u=1/s in [0,1]: " + d3)

    def f_a(aa):  # RHS - g(1), alpha in [1, 2]
        return k_f + c_sqrt_f * iv.sqrt(aa) + iv.log(aa) / 2 - aa - 1

    ok4, d4 = interval_positive(f_a, [(1.0, 2.0)])
    if not ok4:
        ce = search_negative(lambda aa: k_f + c_sqrt_f * mpmath.sqrt(aa) + mpmath.log(aa) / 2 - aa - 1,
                             [[1, 1.25, 1.5, 1.75, 2]])
        d4 += f"; counterexample alpha {ce}"
    r4 = StepOK(ok4, "interval", "RHS - g(1), alpha in [1,2]: " + d4)
    res = combine(r0, r1, r2, r3, r4)
    res.method = "convexity + factored sign + interval (mpmath.iv)"
    return res


def StepOK(flag, method, detail):  # noqa: N802 - small adapter
    return ok(method, detail) if flag else bad(method, detail)


def _Phi_iv(scale):
    # C + ln(delta * scale) with delta = 1/(2 eps x^2), C = 2 sqrt(alpha) + ln sqrt(alpha)
    lsc = iv.log(iv.mpf(scale))

    def f(xx, ee):
        a = 2 * xx * (1 - xx * (1 - ee))
        return 2 * iv.sqrt(a) + iv.log(a) / 2 - iv.log(2 * ee * xx * xx) + lsc

    return f


def _Phi_mp(scale):
    def f(xx, ee):
        a = 2 * xx * (1 - xx * (1 - ee))
        return 2 * mpmath.sqrt(a) + mpmath.log(a) / 2 - mpmath.log(2 * ee * xx * xx) + mpmath.log(scale)

    return f


def _h(xx, ee):
    """alpha^{-1/2} <= delta  <=>  h >= 0."""
    return 1 - xx * (1 - ee) - 2 * ee**2 * xx**3


@register(
    "PT11.Thm1.lemma1_applies",
    P,
    "Thm. 1 proof, hypothesis of Lemma 1 (erratum E-B2)",
    "e^{-C} < alpha^{-1/2} and e^{-C} < delta on the whole domain 0 < gamma_d/R <= 1, 0 < eps <= 1",
    perturb=dict(scale=Q(1, 100)),
)
def thm1_lemma1_applies(scale=1):
    """[PT11 Thm. 1] ``e^{-C} = e^{-2 sqrt(alpha)} alpha^{-1/2} < alpha^{-1/2}``.  Where
    ``h = 1 - x(1-eps) - 2 eps^2 x^3 >= 0`` we have ``alpha^{-1/2} <= delta`` (so ``e^{-C} < delta``):
    this covers ``eps <= 1/2`` (``h = (1-x) + eps x(1-x^2) + eps x^3(1-2eps)``) and ``x <= 2^{-1/3}``
    (``h = (1-eps)(1+eps-x) + eps^2(1-2x^3)``).  On the rest, the box ``x in [0.79, 1]``,
    ``eps in [1/2, 1]``, ``C + ln(delta) > 0`` is shown by interval arithmetic.  ``scale`` multiplies
    ``delta`` (the perturbation)."""
    ce = search_negative(_Phi_mp(scale), [[Q(i, 10) for i in range(1, 11)], [Q(i, 10) for i in range(1, 11)]],
                         strict=True)
    if ce:
        return bad("counterexample", f"C + ln(scale delta) <= 0 {ce}")
    if scale < 1:
        return bad("region split", "the region argument alpha^{-1/2} <= delta needs scale >= 1")
    ex, ee = sp.symbols("x eps", positive=True)
    hh = _h(ex, ee)
    terms1 = [(1 - ex), ee * ex * (1 - ex**2), ee * ex**3 * (1 - 2 * ee)]
    dec1 = sum(terms1)
    dec2 = (1 - ee) * (1 + ee - ex) + ee**2 * (1 - 2 * ex**3)
    r1 = identity(hh, dec1, "h decomposition for eps <= 1/2")
    sub1 = {ex: 1 / (1 + w), ee: EPS_LT_HALF}
    r1b = combine(*[nonneg(term.subs(sub1), [w, e], what=f"term {term}") for term in terms1])
    r2 = identity(hh, dec2, "h decomposition for 2x^3 <= 1")
    sub2 = {ee: EPS01, ex: 1 / (1 + w)}
    r2b = combine(nonneg((1 - ee).subs(sub2), [e], what="1-eps"), nonneg((1 + ee - ex).subs(sub2), [w, e], what="1+eps-x"),
                  ok("region", "1 - 2x^3 >= 0 on x <= 2^(-1/3)"))
    r2c = (ok("sign", "0.79 < 2^(-1/3): the interval box covers the rest") if sp.Rational(79, 100) ** 3 * 2 < 1
           else bad("sign", "box does not cover"))
    okb, db = interval_positive(_Phi_iv(float(scale)), [(0.79, 1.0), (0.5, 1.0)])
    r3 = StepOK(okb, "interval", "C + ln delta on x in [0.79,1] x eps in [1/2,1]: " + db)
    res = combine(r1, r1b, r2, r2b, r2c, r3)
    res.method = "region split: identity + factored sign, interval (mpmath.iv)"
    return res


@register(
    "PT11.Thm1.side_claim.printed",
    P,
    "Thm. 1 proof as printed, erratum E-B2",
    "e^{-C} < alpha^{-1/2} <= delta for all 0 < gamma_d/R <= 1, 0 < eps <= 1",
    expected=False,
    corrected="alpha^{-1/2} <= delta iff 2 eps^2 x^3 <= 1 - x(1-eps) (x = gamma_d/R), false for some eps > 1/2, "
    "x > 2^{-1/3}; what Lemma 1 needs, e^{-C} < delta, holds everywhere (PT11.Thm1.lemma1_applies)",
)
def thm1_side_claim_printed():
    """[PT11 Thm. 1, E-B2] ``alpha^{-1/2} <= delta <=> h = 1 - x(1-eps) - 2eps^2x^3 >= 0``; exact
    counterexample at ``x = eps = 1`` (``alpha = 2``, ``delta = 1/2``)."""
    ex, ee = sp.symbols("x eps", positive=True)
    alpha = _alpha_expr(ex, ee)
    delta = 1 / (2 * ee * ex**2)
    r0 = identity(sp.expand((alpha - 1 / delta**2) / (2 * ex)), sp.expand(_h(ex, ee)), "alpha - delta^{-2} = 2x h")
    pt = {ex: 1, ee: 1}
    lhs, rhs = alpha.subs(pt) ** Q(-1, 2), delta.subs(pt)
    if not r0.holds:
        return r0
    if sp.simplify(lhs - rhs) > 0:
        return bad("counterexample", f"x = eps = 1: alpha^(-1/2) = {lhs} = {sp.N(lhs, 5)} > delta = {rhs}; "
                   "h < 0 only if eps > 1/2 and x > 2^(-1/3) (see PT11.Thm1.lemma1_applies)")
    return ok("identity", "no counterexample")


@register(
    "PT11.Thm1.compact_form",
    P,
    "Thm. 1 statement",
    "long form of the bound = (1+e^{-1}) delta (C + ln((1+e)delta)), delta = R^2/(2eps gamma^2), alpha = 2x(1-x(1-eps)), C = 2sqrt(alpha) + ln sqrt(alpha)",
    perturb=dict(c=2),
)
def thm1_compact(c=2 * sqrt(2)):
    """[PT11 Thm. 1] Exact identity (positive symbols, logs expanded)."""
    xx = gam / R
    alpha = _alpha_expr(xx, eps)
    delta = R**2 / (2 * eps * gam**2)
    Cc = 2 * sqrt(alpha) + log(sqrt(alpha))
    compact = (1 + 1 / E) * delta * (Cc + log((1 + E) * delta))
    om = sp.Symbol("omega", positive=True)  # omega = 1 - x(1-eps) > 0
    long = (1 + 1 / E) / (2 * eps) * R**2 / gam**2 * (
        c * sqrt(xx * om) + log((1 + E) / (sqrt(2) * eps) * (R / gam) ** Q(3, 2) * sqrt(om)))
    compact = compact.subs(1 - xx * (1 - eps), om)
    compact = compact.subs(alpha, 2 * xx * om)
    d = sp.expand_log(sp.expand(compact - long), force=True)
    return identity(sp.simplify(sp.expand_log(sp.powsimp(sp.expand_power_base(d, force=True), force=True), force=True)), 0)


# ------------------------------------------------------------------------------------------------
# Lemma 1
# ------------------------------------------------------------------------------------------------


@register(
    "PT11.Lemma1.f_increasing",
    P,
    "Lemma 1 proof",
    "f(t) = t/(1+C+ln t) - delta has f' = (C + ln t)/(1+C+ln t)^2 > 0 for t > e^{-C}, and f(e^{-C}) = e^{-C} - delta < 0",
    perturb=dict(one=Q(1, 2)),
)
def lemma1_f(one=1):
    """[PT11 Lemma 1] With ``t = e^{v - C}``, ``v > 0``: ``f'(t) = v/(one + v)^2`` (for one = 1); sign of the
    factored derivative.  ``f(e^{-C}) - (e^{-C} - delta) = 0``."""
    v = sp.Symbol("v", positive=True)
    tt = sp.Symbol("tt", positive=True)
    f = tt / (one + C + log(tt)) - dl
    df = sp.simplify(sp.diff(f, tt).subs(tt, exp(v - C)))
    r1 = nonneg(df, [v, C], what="f'(e^{v-C})", counter=lambda: f"v -> 0: f' = {sp.simplify(df.subs(v, 0))}")
    r2 = identity(sp.simplify(f.subs(tt, exp(-C))), exp(-C) / one - dl, "f(e^{-C})")
    r3 = identity(sp.simplify(f.subs(tt, exp(-C))), exp(-C) - dl, "f(e^{-C}) = e^{-C} - delta < 0")
    res = combine(r1, r2, r3)
    res.method = "derivative (monotone) + identity"
    return res


@register(
    "PT11.Lemma1.t0",
    P,
    "Lemma 1, eq. (10)",
    "t_0 = (1+e^{-1}) delta (C + ln((1+e)delta)) satisfies f(t_0) >= 0 (uses ln y/y <= 1/e)",
    perturb=dict(c1=1 + 1 / (2 * E)),
)
def lemma1_t0(c1=1 + 1 / E, c2=1 + E):
    """[PT11 Lemma 1] Let ``y = ln(e^C c2 delta) > ln c2 > 1``.  Then ``t_0 = c1 delta y``,
    ``1 + C + ln t_0 = 1 + ln(c1/c2) + y + ln y`` (identity), and ``f(t_0) >= 0`` iff
    ``phi(y) = (c1-1) y - ln y - 1 - ln(c1/c2) >= 0``.  ``phi`` is convex (``phi'' = 1/y^2``) with
    minimiser ``y* = 1/(c1-1) = e`` and ``phi(y*) = ln((c1-1)c2/c1) = 0`` exactly."""
    yy = C + log(c2 * dl)
    t0 = c1 * dl * yy
    r1 = identity(sp.expand_log(1 + C + log(t0), force=True),
                  sp.expand_log(1 + log(c1) - log(c2) + yy + log(yy), force=True), "1 + C + ln t_0")
    phi = (c1 - 1) * y - log(y) - 1 - log(c1 / c2)
    ystar = sp.solve(sp.diff(phi, y), y)
    r2 = nonneg(sp.diff(phi, y, 2), [y], what="phi''")
    if len(ystar) != 1:
        return bad("derivative", f"critical points {ystar}")
    val = sp.simplify(phi.subs(y, ystar[0]))
    r3 = (ok("derivative", f"min phi = phi({ystar[0]}) = {val} >= 0") if (val == 0 or val.is_nonnegative)
          else bad("derivative", f"min phi = phi({ystar[0]}) = {val} = {sp.N(val, 5)} < 0"))
    r4 = (ok("sign", "y* = e lies in the domain y > ln(1+e)") if sp.N(ystar[0] - log(c2)) > 0 else
          bad("sign", "critical point outside the domain"))
    res = combine(r1, r2, r3, r4)
    res.method = "identity + convexity/derivative"
    return res


@register(
    "PT11.Lemma1.t0_admissible",
    P,
    "Lemma 1 proof",
    "t_0 > delta > e^{-C}: t_0/delta = (1+e^{-1}) ln x with x = e^C(1+e)delta > 1+e",
    perturb=dict(c1=Q(1, 2)),
)
def lemma1_t0_adm(c1=1 + 1 / E):
    """[PT11 Lemma 1] ``t_0/delta - 1 = c1 y - 1 >= c1 ln(1+e) - 1 > 0`` (monotone in ``y``; exact sign of a
    constant)."""
    val = sp.simplify(c1 * log(1 + E) - 1)
    if val.is_positive:
        return ok("sign", f"c1 ln(1+e) - 1 = {val} = {sp.N(val, 5)} > 0 and c1 > 0")
    return bad("sign", f"c1 ln(1+e) - 1 = {sp.N(val, 5)} <= 0")


# ------------------------------------------------------------------------------------------------
# Theorem 2
# ------------------------------------------------------------------------------------------------


@register(
    "PT11.bernoulli",
    P,
    "Thm. 2 proof, eps < 1/2",
    "(1+x)^zeta >= 1 + zeta x for x >= 0, zeta = 2(1-eps) >= 1; with x = 1/t: 1 + 2(1-eps)/t <= (1+1/t)^{2(1-eps)}",
    perturb=dict(zeta_lo=Q(1, 2)),
)
def bernoulli(zeta_lo=1):
    """[PT11 Thm. 2] ``g(x) = (1+x)^zeta - 1 - zeta x``: ``g(0) = 0``, ``g'(x) = zeta((1+x)^{zeta-1} - 1) >= 0``
    since ``1+x >= 1`` and ``zeta - 1 >= 0`` on the domain ``zeta = zeta_lo + z``."""
    zeta = zeta_lo + z
    g = (1 + x) ** zeta - 1 - zeta * x
    r1 = identity(g.subs(x, 0), 0, "g(0) = 0")
    r2 = identity(sp.diff(g, x), zeta * ((1 + x) ** (zeta - 1) - 1), "g'")
    r3 = _power_ge_one(x, zeta - 1, [x, z], "(1+x)^(zeta-1) >= 1")
    res = combine(r1, r2, r3)
    res.method = "derivative (monotone) + known inequality"
    if not res.holds:
        ce = search_negative(lambda xx, zz: (1 + xx) ** zz - 1 - zz * xx, [[1, 2], [zeta_lo]])
        res.detail += f"; counterexample (x, zeta) {ce}"
    return res


@register(
    "PT11.bernoulli2",
    P,
    "Thm. 2 proof, eps > 1/2",
    "(1+x)^zeta + zeta(1-zeta)x^2/2 >= 1 + zeta x for x >= 0, 0 <= zeta = 2(1-eps) <= 1",
    perturb=dict(coef=Q(1, 4)),
)
def bernoulli2(coef=Q(1, 2)):
    """[PT11 Thm. 2] ``g(0) = g'(0) = 0`` and ``g''(x) = zeta(1-zeta)(2 coef - (1+x)^{zeta-2})``;
    ``(1+x)^{zeta-2} <= 1`` (base >= 1, exponent <= 0), so ``g'' >= 0`` when ``2 coef >= 1``."""
    zeta = 1 / (1 + z)  # zeta in (0, 1)
    g = (1 + x) ** zeta + coef * zeta * (1 - zeta) * x**2 - 1 - zeta * x
    r1 = identity(g.subs(x, 0), 0, "g(0)")
    r2 = identity(sp.diff(g, x).subs(x, 0), 0, "g'(0)")
    r3 = identity(sp.diff(g, x, 2), zeta * (1 - zeta) * (2 * coef - (1 + x) ** (zeta - 2)), "g''")
    r4 = _power_ge_one(x, 2 - zeta, [x, z], "(1+x)^(2-zeta) >= 1, i.e. (1+x)^(zeta-2) <= 1")
    r5 = (ok("sign", f"2 coef - 1 = {2 * coef - 1} >= 0") if 2 * coef - 1 >= 0 else
          bad("sign", f"2 coef - 1 = {2 * coef - 1} < 0: g''(0) < 0; counterexample " + str(search_negative(
              lambda xx, zz: (1 + xx) ** zz + coef * zz * (1 - zz) * xx**2 - 1 - zz * xx,
              [[Q(1, 10), Q(1, 2)], [Q(1, 2)]]))))
    res = combine(r1, r2, r3, r4, r5)
    res.method = "convexity (second derivative) + known inequality"
    return res


@register(
    "PT11.Thm2.gt_half.constant",
    P,
    "Thm. 2 proof, eps > 1/2",
    "zeta(1-zeta)/2 = (1-eps)(2eps-1) for zeta = 2(1-eps), and (1-eps)(2eps-1) R^2 + R^2 = eps(3-2eps) R^2",
    perturb=dict(c3=2),
)
def thm2_gt_const(c3=3):
    """[PT11 Thm. 2] Two exact identities (the second uses ``||a_t||^2 <= R^2 t^2``)."""
    zeta = 2 * (1 - eps)
    r1 = identity(zeta * (1 - zeta) / 2, (1 - eps) * (2 * eps - 1))
    r2 = identity((1 - eps) * (2 * eps - 1) * R**2 + R**2, eps * (c3 - 2 * eps) * R**2)
    return combine(r1, r2)


@register(
    "PT11.Thm2.eps_3_2eps",
    P,
    "Thm. 2 proof, eps > 1/2",
    "eps(3 - 2eps) >= 1 for 1/2 <= eps <= 1 (so ||a_1||^2 <= R^2 <= eps(3-2eps)R^2)",
    perturb=dict(lo=Q(1, 4)),
)
def thm2_eps_3_2eps(lo=Q(1, 2)):
    """[PT11 Thm. 2] ``eps(3-2eps) - 1 = (2eps-1)(1-eps) >= 0`` on ``[lo, 1]`` (``eps = lo + (1-lo)/(1+e)``)."""
    ee = lo + (1 - lo) / (1 + e)
    d = ee * (3 - 2 * ee) - 1
    return nonneg(d, [e], what="eps(3-2eps) - 1",
                  counter=lambda: f"eps = {lo}: {lo * (3 - 2 * lo) - 1}")


@register(
    "PT11.Thm2.eq13",
    P,
    "eq. (13)",
    "sum_{k=N+1}^t k^{-2(1-eps)} <= int_N^t k^{-2(1-eps)} dk = (N^{2eps-1}/(2eps-1))((t/N)^{2eps-1} - 1)",
    perturb=dict(closed=lambda tt, NN, ee: ((tt / NN) ** (2 * ee - 1) - 1) / (2 * ee - 1)),
)
def thm2_eq13(closed=lambda tt, NN, ee: NN ** (2 * ee - 1) / (2 * ee - 1) * ((tt / NN) ** (2 * ee - 1) - 1)):
    """[PT11 eq. (13)] ``k^{-zeta}`` is decreasing (derivative ``-zeta k^{-zeta-1} < 0``), so each term is at most
    the integral over ``[k-1, k]``; the closed form is checked by the fundamental theorem of calculus
    (``d/dt closed = t^{-2(1-eps)}`` and ``closed(N) = 0``)."""
    kk = sp.Symbol("k", positive=True)
    zeta = 2 * (1 - eps)
    r1 = nonneg(-sp.diff(kk ** (-2 * (1 - EPS01)), kk), [kk, e], what="-(d/dk) k^{-zeta} (eps = 1/(1+e))")
    cf = closed(t, N, eps)
    r2 = identity(sp.diff(cf, t), t ** (-zeta), "d/dt closed form")
    r3 = identity(cf.subs(t, N), 0, "closed form at t = N")
    res = combine(r1, r2, r3)
    res.method = "monotone integrand + FTC (identity)"
    return res


@register(
    "PT11.Thm2.eq14",
    P,
    "eq. (14)",
    "(13) with ||a_N|| = alpha_N R N and ||a_t|| >= gamma t gives t^{2eps} <= (alpha_N^2R^2/gamma^2) N^{2eps}{1 + (alpha_N^{-2}N^{-1}/(2eps-1))((t/N)^{2eps-1} - 1)}",
    perturb=dict(nexp=lambda ee: 2 * ee - 1),
)
def thm2_eq14(nexp=lambda ee: 2 * ee):
    """[PT11 eq. (14)] Exact identity: ``t^{2(1-eps)}[alpha^2R^2N^2/N^{2(1-eps)} + R^2 (13)] / (gamma^2 t^{2(1-eps)})``
    equals the right side of (14) times ``t^{2eps}/t^2`` (positive symbols)."""
    zeta = 2 * (1 - eps)
    bound_a = t**zeta * (al**2 * R**2 * N**2 / N**zeta + R**2 * N ** (2 * eps - 1) / (2 * eps - 1) * ((t / N) ** (2 * eps - 1) - 1))
    claimed_a = t**zeta * al**2 * R**2 * N ** nexp(eps) * (1 + al**-2 / N / (2 * eps - 1) * ((t / N) ** (2 * eps - 1) - 1))
    r1 = identity(sp.powsimp(sp.expand_power_base(bound_a, force=True), force=True),
                  sp.powsimp(sp.expand_power_base(claimed_a, force=True), force=True), "||a_t||^2 bound")
    r2 = identity(t**2 / t**zeta, t ** (2 * eps), "gamma^2 t^2 <= ||a_t||^2 divided by gamma^2 t^{2(1-eps)}")
    return combine(r1, r2)


@register(
    "PT11.Thm2.eq15",
    P,
    "eq. (15)",
    "eps < 1/2: drop the negative term, t <= N (alpha_N R/gamma)^{1/eps} (1 + alpha_N^{-2}N^{-1}/(1-2eps))^{1/(2eps)}",
    perturb=dict(pexp=lambda ee: 1 / (2 * ee)),
)
def thm2_eq15(pexp=lambda ee: 1 / ee):
    """[PT11 eq. (15)] With ``c = alpha^{-2}N^{-1}/(1-2eps) > 0`` the bracket is ``1 + c - c(t/N)^{2eps-1} <= 1 + c``;
    taking the ``1/(2eps)`` power (monotone) is the exact identity
    ``((alpha R/gamma)^2 N^{2eps}(1+c))^{1/(2eps)} = N (alpha R/gamma)^{pexp} (1+c)^{1/(2eps)}``."""
    ee = EPS_LT_HALF
    c = al**-2 / N / (1 - 2 * ee)
    r1 = nonneg(c, [al, N, e], what="c")
    r2 = identity((1 + al**-2 / N / (2 * ee - 1) * ((t / N) ** (2 * ee - 1) - 1)), 1 + c - c * (t / N) ** (2 * ee - 1),
                  "bracket = 1 + c - c (t/N)^{2eps-1}")
    cc = sp.Symbol("c", positive=True)
    lhs = ((al * R / gam) ** 2 * N ** (2 * eps) * (1 + cc)) ** (1 / (2 * eps))
    rhs = N * (al * R / gam) ** pexp(eps) * (1 + cc) ** (1 / (2 * eps))
    r3 = identity(sp.powdenest(sp.expand_power_base(lhs, force=True), force=True),
                  sp.powdenest(sp.expand_power_base(rhs, force=True), force=True), "1/(2eps) power")
    return combine(r1, r2, r3)


@register(
    "PT11.Thm2.lt_half.final",
    P,
    "Thm. 2, case eps < 1/2",
    "t <= t_0 and (14) give t <= t_0 (1 - R^2/((1-2eps) gamma^2 t_0))^{1/(2eps)}, t_0 as stated with N = [1/eps], alpha_N = 1",
    perturb=dict(pexp=lambda ee: 1 / ee),
)
def thm2_lt_final(pexp=lambda ee: 1 / (2 * ee)):
    """[PT11 Thm. 2, eps < 1/2] (i) ``N^{2eps} N^{-1} (t/N)^{2eps-1} = t^{2eps-1}``; with ``alpha = 1``
    (14) reads ``t^{2eps} <= t_0^{2eps} - k t^{2eps-1}``, ``k = (R/gamma)^2/(1-2eps)``; (ii) ``t^{2eps-1}`` is
    decreasing (exponent < 0), so ``t <= t_0`` gives ``t^{2eps-1} >= t_0^{2eps-1}``; (iii)
    ``(t_0(1 - k/t_0)^{pexp})^{2eps} = t_0^{2eps} - k t_0^{2eps-1}`` (identity).  Also checks that the stated
    ``t_0`` is (15) at ``N = [1/eps]``, ``alpha_N = 1``."""
    ee = EPS_LT_HALF
    r1 = identity(sp.powsimp(N ** (2 * ee) / N * (t / N) ** (2 * ee - 1), force=True), t ** (2 * ee - 1), "(i)")
    r2 = nonneg(-sp.diff(t ** (2 * ee - 1), t), [t, e], what="(ii) -(d/dt) t^{2eps-1}")
    t0 = sp.Symbol("t0", positive=True)
    kq = sp.Symbol("kq", positive=True)  # k/t0 < 1 written as kq = k/t0 in (0,1)
    lhs = (t0 * (1 - kq) ** pexp(eps)) ** (2 * eps)
    rhs = t0 ** (2 * eps) - (kq * t0) * t0 ** (2 * eps - 1)
    r3 = identity(sp.powsimp(sp.expand_power_base(sp.powdenest(lhs, force=True), force=True), force=True),
                  sp.powsimp(sp.expand(rhs), force=True), "(iii)")
    Nn = floor(1 / eps)
    t0_15 = Nn * (R / gam) ** (1 / eps) * (1 + 1 / Nn / (1 - 2 * eps)) ** (1 / (2 * eps))
    t0_stated = Nn * (R / gam) ** (1 / eps) * (1 + 1 / ((1 - 2 * eps) * Nn)) ** (1 / (2 * eps))
    r4 = identity(t0_15, t0_stated, "t_0 = (15) at N=[1/eps], alpha_N=1")
    return combine(r1, r2, r3, r4)


@register(
    "PT11.Thm2.alphaN_worst",
    P,
    "Thm. 2 proof (alpha_N = 1 least favourable), Remark 1",
    "t_0 of (15) is increasing in alpha_N, so alpha_N <= 1 is worst at alpha_N = 1",
    perturb=dict(pexp=lambda ee: 1 / (2 * ee)),
)
def thm2_alpha_worst(pexp=lambda ee: 1 / ee):
    """[PT11 eq. (15)] ``d/d alpha ln t_0 = alpha/(eps(alpha^2 + c)) > 0`` with ``c = 1/(N(1-2eps))``."""
    ee = EPS_LT_HALF
    c = 1 / (N * (1 - 2 * ee))
    lt0 = log(N) + pexp(ee) * log(al * R / gam) + log(1 + c / al**2) / (2 * ee)
    d = sp.together(sp.diff(lt0, al))
    return nonneg(d, [al, N, e, R, gam], what="d/d alpha ln t_0",
                  counter=lambda: f"alpha -> 0: {sp.limit(d * al, al, 0)} ...")


@register(
    "PT11.Thm2.eq17",
    P,
    "eq. (17)",
    "eps(3-2eps)R^2 (1 + int_1^t k^{-2(1-eps)} dk) = eps(3-2eps)R^2 (t^{2eps-1} - 2(1-eps))/(2eps-1)",
    perturb=dict(c=1),
)
def thm2_eq17(c=2):
    """[PT11 eq. (17)] ``1 + (t^{2eps-1} - 1)/(2eps-1) = (t^{2eps-1} - c(1-eps))/(2eps-1)`` (identity; the integral by FTC)."""
    integral = (t ** (2 * eps - 1) - 1) / (2 * eps - 1)
    r1 = identity(sp.diff(integral, t), t ** (-2 * (1 - eps)), "FTC")
    r2 = identity(integral.subs(t, 1), 0, "integral at t = 1")
    r3 = identity(1 + integral, (t ** (2 * eps - 1) - c * (1 - eps)) / (2 * eps - 1))
    return combine(r1, r2, r3)


@register(
    "PT11.Thm2.eq18",
    P,
    "eq. (18) and the eps > 1/2 bound",
    "t^{2eps} <= K (t^{2eps-1} - 2(1-eps))/(2eps-1) <=> t <= (K/(2eps-1))(1 - 2(1-eps)t^{1-2eps}); then t <= t_0 gives t <= t_0(1 - 2(1-eps)t_0^{1-2eps})",
    perturb=dict(texp=lambda ee: 2 * ee - 1),
)
def thm2_eq18(texp=lambda ee: 1 - 2 * ee):
    """[PT11 eq. (18)] Dividing by ``t^{2eps-1} > 0`` is an exact identity; for ``eps > 1/2``, ``t^{1-2eps}`` is
    decreasing, so ``t <= t_0`` gives ``-t^{1-2eps} <= -t_0^{1-2eps}``."""
    ee = EPS_GT_HALF
    lhs = K * (t ** (2 * ee - 1) - 2 * (1 - ee)) / ((2 * ee - 1) * t ** (2 * ee - 1))
    rhs = K / (2 * ee - 1) * (1 - 2 * (1 - ee) * t ** texp(ee))
    r1 = identity(sp.expand(sp.powsimp(sp.expand(lhs), force=True)), sp.expand(sp.powsimp(sp.expand(rhs), force=True)), "(17)/t^{2eps-1}")
    r2 = nonneg(-sp.diff(t ** texp(ee), t), [t, e], what="-(d/dt) t^{1-2eps}")
    return combine(r1, r2)


@register(
    "PT11.Thm2.eps1_novikoff",
    P,
    "Thm. 2, eps = 1",
    "the eps > 1/2 bound at eps = 1 is the Novikoff bound R^2/gamma^2",
    perturb=dict(c3=4),
)
def thm2_eps1(c3=3):
    """[PT11 Thm. 2] Substitute ``eps = 1``: ``t_0 = R^2/gamma^2`` and the correction factor is 1."""
    ee = sp.Integer(1)
    rg = R**2 / gam**2
    t0 = ee * (c3 - 2 * ee) / (2 * ee - 1) * rg
    bound = t0 * (1 - 2 * (1 - ee) * t0 ** (1 - 2 * ee))
    return identity(bound, rg)


def _bound_half(rg):
    return (1 + 1 / E) * rg * log((1 + E) * rg)


@register(
    "PT11.Thm2.eps_half",
    P,
    "Thm. 2, eps = 1/2",
    "limit eps -> 1/2 of (14)/(17): t <= (R^2/gamma^2)(1 + ln t); Lemma 1 with C = 0, delta = R^2/gamma^2 gives (1+e^{-1})(R^2/gamma^2) ln((1+e)R^2/gamma^2)",
    perturb=dict(claimed_limit=2 * log(t)),
)
def thm2_half(claimed_limit=log(t)):
    """[PT11 Thm. 2, eps = 1/2] ``lim_{eps->1/2} (t^{2eps-1} - 1)/(2eps-1) = ln t`` (sympy limit, both sides),
    ``eps(3-2eps) -> 1``; then (10) with ``C = 0`` is the stated bound (identity)."""
    expr = (t ** (2 * eps - 1) - 1) / (2 * eps - 1)
    l1 = sp.limit(expr, eps, Q(1, 2), "+")
    l2 = sp.limit(expr, eps, Q(1, 2), "-")
    r1 = identity(l1, claimed_limit, "limit from above")
    r2 = identity(l2, claimed_limit, "limit from below")
    r3 = identity(sp.limit(eps * (3 - 2 * eps), eps, Q(1, 2)), 1, "eps(3-2eps) -> 1")
    rg = R**2 / gam**2
    r4 = identity((1 + 1 / E) * rg * (0 + log((1 + E) * rg)), _bound_half(rg), "(10) with C = 0")
    res = combine(r1, r2, r3, r4)
    res.method = "limit + identity"
    return res


@register(
    "PT11.Thm2.continuity.printed",
    P,
    "Thm. 2 at eps = 1/2, erratum E-B4",
    "the Theorem 2 bound is continuous at eps = 1/2 (lim_{eps -> 1/2+} of the eps > 1/2 bound = the eps = 1/2 bound)",
    expected=False,
    corrected="not an error but looseness: the eps > 1/2 bound ~ (R^2/gamma^2)(1 + ln(R^2/gamma^2) + ln(1/(2eps-1))) -> oo as "
    "eps -> 1/2+; since an update under (8) with eps is also one with any eps' <= eps (PT11.eq8.monotone_eps), the "
    "bound for eps may be replaced by min over eps' in [1/2, eps] of the bound, which removes the blow-up",
)
def thm2_continuity():
    """[PT11 Thm. 2, E-B4] With ``eps = (1+h)/2``: ``t_0 = (1+h)(2-h)/(2h) R^2/gamma^2`` and the bound
    ``t_0(1 - (1-h) t_0^{-h}) -> oo`` as ``h -> 0+`` (sympy limit), while the eps = 1/2 bound is finite."""
    rg = sp.Symbol("rg", positive=True)  # R^2/gamma^2 >= 1
    t0 = (1 + h) * (2 - h) / (2 * h) * rg
    bound = t0 * (1 - (1 - h) * exp(-h * log(t0)))
    lim = sp.limit(bound, h, 0, "+")
    num = lambda ee, rr: (lambda T0: T0 * (1 - 2 * (1 - ee) * T0 ** (1 - 2 * ee)))(
        ee * (3 - 2 * ee) / (2 * ee - 1) * rr)
    with mpmath.workdps(30):
        b1 = num(mpmath.mpf("0.5001"), 9)
        b2 = (1 + 1 / mpmath.e) * 9 * mpmath.log((1 + mpmath.e) * 9)
    if lim == _bound_half(rg):
        return ok("limit", "continuous")
    return bad("limit", f"lim_(eps->1/2+) bound = {lim}, but the eps = 1/2 bound is finite; R/gamma = 3: "
               f"bound(0.5001) = {mpmath.nstr(b1, 5)} vs bound(1/2) = {mpmath.nstr(b2, 4)}")


# ------------------------------------------------------------------------------------------------
# Multiple updates
# ------------------------------------------------------------------------------------------------

mu_ = sp.Symbol("mu", real=True)


def _Q(mu, tt=t):
    """Q(mu) = (t + mu) a_{t+mu}.y - (1-eps)||a_{t+mu}||^2."""
    return (tt + mu) * (p + mu * q) - (1 - eps) * (l + 2 * mu * p + mu**2 * q)


@register(
    "PT11.multi.quadratic",
    P,
    "Sect. 4, multiple updates",
    "(t+mu) a_{t+mu}.y - (1-eps)||a_{t+mu}||^2 = eps q mu^2 + (t q + (2eps-1)p) mu + (t p - (1-eps) l)",
    perturb=dict(c2=lambda ee: 1 - ee),
)
def multi_quadratic(c2=lambda ee: ee):
    """[PT11 Sect. 4] Exact identity (``a_{t+mu} = a_t + mu y_k``)."""
    return identity(_Q(mu_), c2(eps) * q * mu_**2 + (t * q + (2 * eps - 1) * p) * mu_ + (t * p - (1 - eps) * l))


@register(
    "PT11.multi.root",
    P,
    "Sect. 4, multiple updates",
    "mu_+ = [-b + sqrt(b^2 - 4 eps q c)]/(2 eps q) is a root, and mu_+ >= 0 when (8) holds (c = tp - (1-eps)l <= 0)",
    perturb=dict(sgn=-1),
)
def multi_root(sgn=1):
    """[PT11 Sect. 4] Substituting ``mu_+`` into the quadratic gives 0 (identity).  With ``c = -s <= 0``:
    ``disc - b^2 = 4 eps q s >= 0`` so ``sqrt(disc) >= |b| >= b`` and ``mu_+ >= 0`` (the product of the roots
    ``c/(eps q) <= 0``: opposite signs, ``mu_+`` the larger one)."""
    b = sp.Symbol("b", real=True)
    cc = sp.Symbol("c", real=True)
    a2 = eps * q
    disc = b**2 - 4 * a2 * cc
    mu_p = (-b + sgn * sqrt(disc)) / (2 * a2)
    r1 = identity(sp.expand(a2 * mu_p**2 + b * mu_p + cc), 0, "mu_+ is a root")
    r2 = nonneg((disc - b**2).subs(cc, -s), [eps, q, s], what="disc - b^2")
    if sgn > 0:
        r3 = ok("sign", "sqrt(disc) >= sqrt(b^2) = |b| >= b (sqrt monotone), so -b + sqrt(disc) >= 0")
    else:
        val = mu_p.subs({b: 1, cc: -1, eps: Q(1, 2), q: 1})
        r3 = bad("sign", f"-b - sqrt(disc) >= 0 fails: b = 1, c = -1, eps = 1/2, q = 1 gives mu = {sp.nsimplify(val)} < 0")
    return combine(r1, r2, r3)


@register(
    "PT11.multi.equivalence",
    P,
    "Sect. 4, multiple updates",
    "presenting y_k repeatedly makes exactly lambda = [mu_+] + 1 updates: (8) holds at t+j iff Q(j) <= 0, and Q <= 0 exactly on [mu_-, mu_+] with mu_- <= 0",
    perturb=dict(offset=0),
)
def multi_equivalence(offset=1):
    """[PT11 Sect. 4] (a) ``(t+j)[(1-eps)||a_{t+j}||^2/(t+j) - a_{t+j}.y] = -Q(j)`` (identity);
    (b) ``Q(mu) = eps q (mu - mu_-)(mu - mu_+)`` (identity), so ``Q(j) <= 0`` for ``0 <= j <= mu_+`` and
    ``Q(j) > 0`` for ``j > mu_+``; (c) with ``mu_+ = m + f`` (``m`` integer, ``f = w/(1+w) in [0,1)``),
    ``lambda = m + offset`` satisfies ``lambda > mu_+`` and ``lambda - 1 <= mu_+``."""
    j = sp.Symbol("j", positive=True)
    lj = l + 2 * j * p + j**2 * q
    pj = p + j * q
    r1 = identity((t + j) * ((1 - eps) * lj / (t + j) - pj), -_Q(j), "(a)")
    b = t * q + (2 * eps - 1) * p
    cc = t * p - (1 - eps) * l
    disc = b**2 - 4 * eps * q * cc
    mp = (-b + sqrt(disc)) / (2 * eps * q)
    mm = (-b - sqrt(disc)) / (2 * eps * q)
    r2 = identity(sp.expand(eps * q * (mu_ - mm) * (mu_ - mp)), sp.expand(_Q(mu_)), "(b)")
    f = w / (1 + w)
    r3 = nonneg(offset - f, [w], what="lambda - mu_+ = offset - f > 0",
                counter=lambda: f"f = 1/2: lambda - mu_+ = {offset - Q(1, 2)} < 0, the pattern still satisfies (8)")
    r4 = nonneg(1 - offset + f, [w], what="mu_+ - (lambda - 1) >= 0")
    return combine(r1, r2, r3, r4)


@register(
    "PT11.multi.smallest_root.free",
    P,
    "Sect. 4, 'smallest non-negative root', erratum E-B3 (p, q, l treated as free reals)",
    "with (8) holding with equality, the smallest non-negative root of Q equals the larger root (p, q, l unconstrained)",
    expected=False,
    corrected="take mu_+ = the larger root; it equals the unique non-negative root whenever (8) holds strictly. "
    "(On realisable data the two readings agree, see PT11.multi.smallest_root.realizable.)",
)
def multi_smallest_free():
    """[PT11 Sect. 4, E-B3] Exact counterexample with free reals: ``eps = 1/4, q = 1, t = 1, p = 4, l = 16/3``:
    ``c = 0``, ``b = -1``, roots ``0`` and ``4``.  This point violates Cauchy-Schwarz (``p^2 = 16 > l q``)."""
    pt = {eps: Q(1, 4), q: 1, t: 1, p: 4, l: Q(16, 3)}
    roots = sorted(sp.solve(_Q(mu_).subs(pt), mu_))
    nonneg_roots = [rt for rt in roots if rt >= 0]
    if min(nonneg_roots) != max(roots):
        return bad("counterexample", f"eps=1/4, q=1, t=1, p=4, l=16/3: roots {roots}; smallest non-negative "
                   f"root {min(nonneg_roots)} gives lambda = 1 but (8) still holds after one update "
                   f"(Q(1) = {_Q(1).subs(pt)} <= 0); note p^2 = 16 > l q = 16/3 (not realisable)")
    return ok("counterexample search", "no counterexample")


@register(
    "PT11.multi.smallest_root.realizable",
    P,
    "Sect. 4, 'smallest non-negative root' with Cauchy-Schwarz (p^2 <= l q)",
    "if (8) holds with equality then b = tq + (2eps-1)p > 0, so the roots are 0 and -b/(eps q) < 0 and 'smallest non-negative root' = larger root",
    perturb=dict(cs=4),
)
def multi_smallest_real(cs=1):
    """[PT11 Sect. 4] ``c = 0`` forces ``p = (1-eps) l/t >= 0`` and, with ``p^2 <= cs l q = cs t p q/(1-eps)``,
    ``p <= cs t q/(1-eps)``.  For ``eps > 1/2``: ``b >= t q > 0``.  For ``eps <= 1/2`` write
    ``p = cs t q/(1-eps) - s``: ``b = t q eps/(1-eps) + (1-2eps) s > 0`` when ``cs = 1`` (factored sign)."""
    ee = EPS_LT_HALF
    b = t * q + (2 * ee - 1) * (cs * t * q / (1 - ee) - s)
    r1 = nonneg(b, [t, q, s, e], what="b (eps <= 1/2)",
                counter=lambda: f"s = 0, eps -> 0: b = {sp.limit(b.subs(s, 0), e, sp.oo)}")
    r2 = nonneg((t * q + (2 * EPS_GT_HALF - 1) * s).subs(s, s), [t, q, s, e], what="b (eps > 1/2, p = s >= 0)")
    return combine(r1, r2)


# ------------------------------------------------------------------------------------------------
# Extended space (2-norm soft margin)
# ------------------------------------------------------------------------------------------------

LAB = sp.symbols("l1:4", real=True)  # labels, l_i^2 = 1
DEL = sp.Symbol("Delta", positive=True)


def _sq1(expr):
    return sp.expand(expr).subs({li**2: 1 for li in LAB})


@register(
    "PT11.ext.margin",
    P,
    "Sect. 5, extended space",
    "u = (0, l_1, ..., l_m)/sqrt(m) is a unit vector with u.y_k = Delta/sqrt(m): the margin is >= Delta/sqrt(m)",
    perturb=dict(norm_exp=1),
)
def ext_margin(norm_exp=Q(1, 2)):
    """[PT11 Sect. 5] ``m = 3`` with symbolic labels (``l_i^2 = 1``): ``||u||^2 = 1`` and ``u.y_k = Delta/sqrt(3)``."""
    mm = 3
    u_ext = [li / sp.Integer(mm) ** norm_exp for li in LAB]
    r1 = identity(_sq1(sum(x_**2 for x_ in u_ext)), 1, "||u||^2 = 1")
    rs = [r1]
    for kk in range(mm):
        yk_ext = [LAB[kk] * DEL if i == kk else 0 for i in range(mm)]  # l_k Delta delta_{ik}
        rs.append(identity(_sq1(sum(a * b for a, b in zip(u_ext, yk_ext))), DEL / sqrt(mm), f"u.y_{kk + 1}"))
    return combine(*rs)


@register(
    "PT11.ext.soft_margin",
    P,
    "Sect. 5, extended space",
    "with xi_k = Delta l_k v_k: ||(w,v)||^2 = ||w||^2 + Delta^{-2} sum xi_k^2, (w,v).y_k = w.ybar_k + xi_k; DCD-L2 with C = 1/(2Delta^2)",
    perturb=dict(Cf=lambda D: 1 / D**2),
)
def ext_soft(Cf=lambda D: 1 / (2 * D**2)):
    """[PT11 Sect. 5] Exact identities for ``m = 3`` (``l_k^2 = 1``)."""
    v = sp.symbols("v1:4", real=True)
    wb = sp.Symbol("wybar", real=True)
    W2 = sp.Symbol("W2", positive=True)
    xi = [DEL * li * vi for li, vi in zip(LAB, v)]
    r1 = identity(_sq1(W2 + sum(vi**2 for vi in v)), _sq1(W2 + sum(x_**2 for x_ in xi) / DEL**2), "norms")
    r2 = identity(_sq1(wb + v[0] * LAB[0] * DEL), _sq1(wb + xi[0]), "margins")
    r3 = identity(W2 / 2 + Cf(DEL) * sum(x_**2 for x_ in xi), (W2 + sum(x_**2 for x_ in xi) / DEL**2) / 2, "DCD-L2 objective")
    return combine(r1, r2, r3)
