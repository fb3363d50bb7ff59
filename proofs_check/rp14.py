"""Proof steps of Ramdas & Pena, *Margins, Kernels and Non-linear Smoothed Perceptrons* (ICML 2014).

Every function below is one registered step (see :mod:`proofs_check`).  Its keyword arguments are
the constants / exponents / formulas the step checks; the registered ``perturb`` replaces one of
them by a wrong value and the step must then report ``fails``.
"""

from __future__ import annotations

import sympy as sp
from sympy import Rational as Q
from sympy import exp, log, sqrt

from .steps import bad, combine, identity, nonneg, ok, register, search_negative, sign_of

P = "RP14"

# positive symbols: every domain below is reduced to positive variables by substitution
t, rho, s, k, n, M, g, r, mu, W, A, u, eps, gam, lg, v = sp.symbols(
    "t rho s k n M g r mu W A u epsilon gamma logn v", positive=True
)
theta = sp.Symbol("theta", positive=True)


def _sign_result(expr, syms, what, counter=None):
    return nonneg(expr, syms, counter=counter, what=what)


# ------------------------------------------------------------------------------------------------
# eq. (7)
# ------------------------------------------------------------------------------------------------


@register(
    "RP14.eq7",
    P,
    "eq. (7)",
    "inf_{t>0} (-t rho_K + t^2/2) = -rho_K^2/2, attained at t = rho_K (rho_K > 0)",
    perturb=dict(value=-rho**2 / 4),
)
def eq7(coef=Q(1, 2), value=None):
    """[RP14 eq. (7)] ``phi(t) = -t rho + coef t^2`` has minimum ``value`` at ``t = rho``.

    Shown by the derivative (``phi'(rho) = 0``, ``phi'' > 0``) and the factored difference
    ``phi(t) - value = (t - rho)^2/2 >= 0``.
    """
    value = -rho**2 / 2 if value is None else value
    phi = -t * rho + coef * t**2
    r1 = identity(sp.diff(phi, t).subs(t, rho), 0, "phi'(rho) = 0")
    r2 = nonneg(sp.diff(phi, t, 2), [t, rho], what="phi'' > 0")
    r3 = nonneg(phi - value, [t, rho], what="phi(t) - value")
    r4 = identity(phi.subs(t, rho), value, "phi(rho) = value")
    res = combine(r1, r2, r3, r4)
    res.method = "derivative + factored sign"
    return res


@register(
    "RP14.eq7.infeasible",
    P,
    "eq. (7), rho_K <= 0",
    "if rho_K = -s <= 0, inf_{t>0} (-t rho_K + t^2/2) = 0, approached as t -> 0 (not attained)",
    perturb=dict(value=-s**2 / 2),
)
def eq7_infeasible(value=0):
    """[RP14 eq. (7), remark] For ``rho = -s <= 0`` the function ``t s + t^2/2`` is increasing on
    ``t > 0`` (derivative ``s + t > 0``), so its infimum is the limit at ``t -> 0``."""
    phi = t * s + t**2 / 2
    r1 = nonneg(sp.diff(phi, t), [t, s], what="phi'(t) = s + t > 0")
    lim = sp.limit(phi, t, 0, "+")
    r2 = identity(lim, value, "lim_{t->0+} phi = value")
    res = combine(r1, r2)
    res.method = "derivative (monotone) + limit"
    return res


# ------------------------------------------------------------------------------------------------
# mu_k closed forms and the excessive-gap step condition (A.13)
# ------------------------------------------------------------------------------------------------


def _mu_closed(mu0, theta_f, closed):
    j = sp.Symbol("j", integer=True, nonnegative=True)
    kk = sp.Symbol("k", integer=True, nonnegative=True)
    base = identity(closed(0), mu0, "mu_0 = closed(0)")
    step = identity(closed(kk + 1), (1 - theta_f(kk)) * closed(kk), "closed(k+1) = (1 - theta_k) closed(k)")
    prod = sp.simplify(mu0 * sp.product(1 - theta_f(j), (j, 0, kk - 1)))
    direct = identity(prod, closed(kk), f"mu_0 prod_(j<k)(1 - theta_j) = {prod}")
    res = combine(base, step, direct)
    res.method = "induction (identity) + telescoping product"
    return res


@register(
    "RP14.Alg4.mu_k",
    P,
    "Alg. 4",
    "mu_{k+1} = (1-theta_k) mu_k, theta_k = 2/(k+3), mu_0 = 2  =>  mu_k = 4/((k+1)(k+2))",
    perturb=dict(mu0=3),
)
def alg4_mu(mu0=2, theta_f=lambda kk: Q(2) / (kk + 3), closed=lambda kk: Q(4) / ((kk + 1) * (kk + 2))):
    """[RP14 Alg. 4] Closed form of ``mu_k`` by induction and by the telescoping product."""
    return _mu_closed(mu0, theta_f, closed)


@register(
    "RP14.Alg6.mu_k",
    P,
    "Alg. 6",
    "mu_{k+1} = (1-theta_k) mu_k, theta_k = 2/(k+3), mu_0 = 2n  =>  mu_k = 4n/((k+1)(k+2))",
    perturb=dict(theta_f=lambda kk: Q(2) / (kk + 2)),
)
def alg6_mu(mu0=2 * n, theta_f=lambda kk: Q(2) / (kk + 3), closed=lambda kk: 4 * n / ((kk + 1) * (kk + 2))):
    """[RP14 Alg. 6] Closed form of ``mu_k`` for SNKPVN."""
    return _mu_closed(mu0, theta_f, closed)


@register(
    "RP14.mu_k.bound",
    P,
    "Thm. 1 / Lemma 8",
    "mu_k = 4M/((k+1)(k+2)) < 4M/(k+1)^2 for k >= 0",
    perturb=dict(bound=lambda kk: 4 * M / (kk + 2) ** 2),
)
def mu_bound(bound=lambda kk: 4 * M / (kk + 1) ** 2):
    """[RP14 Thm. 1, Lemma 8] ``bound(k) - mu_k`` factors as ``4M/((k+1)^2 (k+2)) > 0``."""
    return nonneg(bound(k) - 4 * M / ((k + 1) * (k + 2)), [k, M], what="bound - mu_k")


@register(
    "RP14.A13.step_condition",
    P,
    "App. (A.13), step condition",
    "theta_k^2 M <= (1-theta_k) mu_k = mu_{k+1} with theta_k = 2/(k+3), mu_k = 4M/((k+1)(k+2))",
    perturb=dict(theta_f=lambda kk: Q(3) / (kk + 3)),
)
def step_condition(theta_f=lambda kk: Q(2) / (kk + 3), closed=lambda kk: 4 * M / ((kk + 1) * (kk + 2))):
    """[RP14 App., excessive gap] ``mu_{k+1} - theta_k^2 M = 4M/((k+2)(k+3)^2) >= 0``; also checks
    that ``mu_{k+1} = (1 - theta_k) mu_k``."""
    r1 = identity((1 - theta_f(k)) * closed(k), closed(k + 1), "(1-theta_k) mu_k = mu_{k+1}")
    r2 = nonneg(closed(k + 1) - theta_f(k) ** 2 * M, [k, M], what="mu_{k+1} - theta_k^2 M")
    return combine(r1, r2)


@register(
    "RP14.A13.base_case",
    P,
    "App. (A.13), base case; erratum E-A4",
    "mu_0 = 2M >= M (the base case of the excessive gap condition needs mu_0 >= M)",
    perturb=dict(closed=lambda kk: M / ((kk + 1) * (kk + 2))),
)
def base_case(closed=lambda kk: 4 * M / ((kk + 1) * (kk + 2))):
    """[RP14 App., base case] ``mu_0 - M = M >= 0``."""
    return nonneg(closed(0) - M, [M], what="mu_0 - M")


def _gram3():
    """Symmetric symbolic 3x3 matrix and the bilinear form <x, y>_G."""
    G = sp.Matrix(3, 3, lambda i, j: sp.Symbol(f"G{min(i, j)}{max(i, j)}"))

    def ip(x, y):
        return (sp.Matrix(x).T * G * sp.Matrix(y))[0, 0]

    vec = lambda name: [sp.Symbol(f"{name}{i}") for i in range(3)]
    return ip, vec


@register(
    "RP14.A13.i",
    P,
    "App. (A.13) (i)",
    "F((1-th)a + th b) = (1-th)F(a) + th F(b) - (1/2) th(1-th) ||a-b||_G^2, F(b) = -<b,pbar>_G + ||b||_G^2/2",
    perturb=dict(c=1),
)
def a13_i(c=Q(1, 2)):
    """[RP14 App. (i)] Exact identity for the quadratic ``F`` (general symmetric ``G``, n = 3)."""
    ip, vec = _gram3()
    a, b, pb = vec("a"), vec("b"), vec("pb")
    F = lambda x: -ip(x, pb) + ip(x, x) / 2
    mix = [(1 - theta) * ai + theta * bi for ai, bi in zip(a, b)]
    d = [ai - bi for ai, bi in zip(a, b)]
    return identity(F(mix), (1 - theta) * F(a) + theta * F(b) - c * theta * (1 - theta) * ip(d, d))


@register(
    "RP14.A13.iii",
    P,
    "App. (A.13) (iii)",
    "F(phat) = (1/2)||phat - pbar||_G^2 - (1/2)||pbar||_G^2",
    perturb=dict(c=1),
)
def a13_iii(c=Q(1, 2)):
    """[RP14 App. (iii)] Completing the square in ``F``."""
    ip, vec = _gram3()
    ph, pb = vec("ph"), vec("pb")
    F = lambda x: -ip(x, pb) + ip(x, x) / 2
    d = [x - y for x, y in zip(ph, pb)]
    return identity(F(ph), c * ip(d, d) - ip(pb, pb) / 2)


@register(
    "RP14.A13.v",
    P,
    "App. (A.13) (v)",
    "-(1-th)||p||_G^2/2 - th||pbar||_G^2/2 = -||p+||_G^2/2 - th(1-th)||p - pbar||_G^2/2, p+ = (1-th)p + th pbar",
    perturb=dict(c=Q(1, 4)),
)
def a13_v(c=Q(1, 2)):
    """[RP14 App. (v)] Exact identity (general symmetric ``G``, n = 3)."""
    ip, vec = _gram3()
    p, pb = vec("p"), vec("pb")
    pp = [(1 - theta) * x + theta * y for x, y in zip(p, pb)]
    d = [x - y for x, y in zip(p, pb)]
    return identity(-(1 - theta) * ip(p, p) / 2 - theta * ip(pb, pb) / 2, -ip(pp, pp) / 2 - c * theta * (1 - theta) * ip(d, d))


@register(
    "RP14.A13.combine",
    P,
    "App. (A.13), combining (i)-(vi)",
    "L_{mu+}(alpha+) + ||p+||_G^2/2 <= (1/2)[th^2 M - (1-th)mu] ||pbar - p_mu(alpha)||^2 - (1/2)th(1-th)||alpha - phat||_G^2",
    perturb=dict(c_vi=1),
)
def a13_combine(c_vi=Q(1, 2)):
    """[RP14 App.] The bookkeeping of the induction step.

    Scalars stand for the norms: ``P=||p||_G^2``, ``Pb=||pbar||_G^2``, ``X=||p-pbar||_G^2``,
    ``D2=||pbar-p_mu(alpha)||^2``, ``Z=||alpha-phat||_G^2``, ``h=h(pbar)``.  Each inequality used is
    written as an equality with a slack ``s_i >= 0``:

    - (ii)  ``F(alpha) = -P/2 + mu h - (mu/2) D2 - s1``;
    - (vi)  ``||phat-pbar||_G^2 = (1-th) X + th ||p_mu-pbar||_G^2 - s2``;
    - Lemma 2 constant ``||p_mu-pbar||_G^2 = M D2 - s3``.

    Then (i), (iii), (iv), (v) are substituted.  The step holds iff the residual is a combination
    of the slacks with non-positive coefficients for every ``th in (0,1)``.
    """
    Pp, Pb, X, D2, Z, h, s1, s2, s3, Fa = sp.symbols("P Pb X D2 Z h s1 s2 s3 Fa", positive=True)
    Fa = -Pp / 2 + mu * h - mu / 2 * D2 - s1
    YG = M * D2 - s3
    Wn = (1 - theta) * X + theta * YG - s2
    F_phat = c_vi * Wn - Pb / 2  # (iii) with (vi)
    F_alpha_plus = (1 - theta) * Fa + theta * F_phat - theta * (1 - theta) * Z / 2  # (i)
    L_plus = F_alpha_plus - (1 - theta) * mu * h  # (iv)
    norm_p_plus = (1 - theta) * Pp + theta * Pb - theta * (1 - theta) * X  # (v)
    claimed = (theta**2 * M - (1 - theta) * mu) * D2 / 2 - theta * (1 - theta) * Z / 2
    resid = sp.expand(L_plus + norm_p_plus / 2 - claimed)
    # th in (0,1): th = 1/(1+w), w > 0
    w = sp.Symbol("w", positive=True)
    resid_w = sp.together(resid.subs(theta, 1 / (1 + w)))
    poly = sp.Poly(sp.numer(resid_w), s1, s2, s3)
    if poly.as_expr().free_symbols - {s1, s2, s3, w}:
        return bad("slack substitution", f"residual is not a combination of the slacks: {sp.factor(resid)}")
    sgn, how = sign_of(-resid_w, [s1, s2, s3, w])
    if sgn == 1:
        return ok("slack substitution", f"residual = {sp.factor(resid)} <= 0 (slacks s_i >= 0, 0 < th < 1)")
    return bad("slack substitution", f"residual = {sp.factor(resid)}: {how}")


# ------------------------------------------------------------------------------------------------
# Theorem 1 and Lemma 8 arithmetic
# ------------------------------------------------------------------------------------------------


def _count(c_mu, dmax, a, b):
    # L(alpha_k) <= c_mu dmax/(k+1)^2 - rho^2/2 <= 0 once k+1 >= a sqrt(b dmax)/rho
    K = a * sqrt(b * dmax) / rho * (1 + s)  # any k+1 beyond the threshold, s >= 0
    expr = rho**2 / 2 - c_mu * dmax / K**2
    syms = [rho, s, n, lg]
    return nonneg(expr, syms, what="rho^2/2 - c dmax/(k+1)^2 at k+1 = threshold(1+s)")


@register(
    "RP14.Thm1.count",
    P,
    "Thm. 1",
    "L(alpha_k) <= mu_k log n - rho^2/2 < 4 log n/(k+1)^2 - rho^2/2 <= 0 once k+1 >= 2 sqrt(2 log n)/rho",
    perturb=dict(a=sqrt(2)),
)
def thm1_count(c_mu=4, a=2, b=2):
    """[RP14 Thm. 1] With ``k+1 = (2 sqrt(2 log n)/rho)(1+s)``, ``rho^2/2 - 4 log n/(k+1)^2 =
    rho^2 (1 - 1/(1+s)^2)/2 >= 0``."""
    return _count(c_mu, lg, a, b)


@register(
    "RP14.Lemma8.count",
    P,
    "Lemma 8",
    "L(alpha_k) <= mu_k - rho^2/2 < 4n/(k+1)^2 - rho^2/2 <= 0 once k+1 >= 2 sqrt(2n)/rho",
    perturb=dict(b=1),
)
def lemma8_count(c_mu=4, a=2, b=2):
    """[RP14 Lemma 8] As Theorem 1 with ``max d_q <= 1`` in place of ``log n`` and ``M = n``."""
    return _count(c_mu * n, 1, a, b * n)


# ------------------------------------------------------------------------------------------------
# Entropy smoothing: p_mu(alpha), L_mu, Lemma 4
# ------------------------------------------------------------------------------------------------

G3 = sp.symbols("g0:3", real=True)  # (G alpha)_i


@register(
    "RP14.eq11.softmax",
    P,
    "eq. (11)",
    "p_mu(alpha) = softmax(-G alpha/mu) satisfies the KKT conditions of min_{Delta} <G alpha,p> + mu d(p)",
    perturb=dict(temp=2),
)
def softmax_kkt(temp=1):
    """[RP14 eq. (11)] Stationarity ``(G alpha)_i + mu(log p_i + 1) + nu = 0`` with one ``nu`` for all
    ``i`` (the differences between coordinates vanish), ``sum p = 1``, ``p > 0`` (so the multipliers
    of ``p >= 0`` are 0).  The objective is strictly convex (Hessian ``mu diag(1/p_i)``), so KKT is
    sufficient.  Checked for n = 3 with symbolic ``G alpha``.
    """
    e = [exp(-gi / (temp * mu)) for gi in G3]
    S = sum(e)
    p = [ei / S for ei in e]
    stat = [gi + mu * (sp.expand_log(log(pi), force=True) + 1) for gi, pi in zip(G3, p)]
    rs = [identity(stat[i], stat[0], f"stationarity coordinate {i} vs 0") for i in (1, 2)]
    rs.append(identity(sum(p), 1, "sum p = 1"))
    res = combine(*rs)
    res.method = "KKT (identity)"
    return res


@register(
    "RP14.Lmu.closed_form",
    P,
    "smoothed loss L_mu",
    "sup_p {-<G alpha,p> - mu d(p)} = mu log((1/n) sum_i exp(-(G alpha)_i/mu)), attained at p_mu",
    perturb=dict(average=False),
)
def lmu_closed(average=True):
    """[RP14 L_mu closed form] Value of the objective at the softmax point (n = 3), exact."""
    nn = 3
    e = [exp(-gi / mu) for gi in G3]
    S = sum(e)
    p = [ei / S for ei in e]
    d = sum(pi * log(pi) for pi in p) + log(nn)
    val = -sum(gi * pi for gi, pi in zip(G3, p)) - mu * d
    claim = mu * log((S / nn) if average else S)
    diff = sp.expand_log(val - claim, force=True)
    return identity(sp.simplify(diff), 0, "objective at p_mu minus closed form")


@register(
    "RP14.Lmu.shift",
    P,
    "smoothed loss L_mu, stable evaluation",
    "mu log((1/n) sum exp(-g_i/mu)) = -m + mu log((1/n) sum exp(-(g_i - m)/mu))",
    perturb=dict(sign=1),
)
def lmu_shift(sign=-1):
    """[RP14 L_mu] Shift by ``m = min_j g_j`` before exponentiating (exact identity)."""
    m = sp.Symbol("m", real=True)
    lhs = mu * log(sum(exp(-gi / mu) for gi in G3) / 3)
    rhs = sign * m + mu * log(sum(exp(-(gi - m) / mu) for gi in G3) / 3)
    d = sp.expand_log(lhs - rhs, force=True)
    d = sp.simplify(sp.expand_log(sp.simplify(sp.expand(sp.powsimp(d))), force=True))
    return identity(d, 0)


@register(
    "RP14.Lemma4",
    P,
    "Lemma 4 (and eq. (12))",
    "max_{Delta_n} d = log n (so L_mu >= L - mu log n), min d = d(1/n) = 0",
    perturb=dict(dmax=log(2 + u) / 2),
)
def lemma4(dmax=log(2 + u)):
    """[RP14 Lemma 4] ``d(p) = sum p_i log p_i + log n <= log n`` because every ``p log p <= 0`` on
    ``[0,1]`` (write ``p = e^{-v}``, ``v >= 0``: ``p log p = -v e^{-v} <= 0``), with equality at a
    vertex (``0 log 0 = 0``).  The constant used in Lemma 4 must be ``>= log n``; ``n = 2+u >= 2``.
    """
    term = exp(-v) * log(exp(-v))
    r1 = ok("sign", "p log p = -v e^{-v} <= 0") if sp.simplify(-term).is_nonnegative else bad("sign", str(term))
    nn = 2 + u
    r2 = nonneg(dmax - log(nn), [u], what="dmax - log n", counter=lambda: search_negative(
        sp.lambdify(u, dmax - log(2 + u), "mpmath"), [[0, 1, 10]]))
    r3 = identity(nn * (1 / nn) * log(1 / nn) + log(nn), 0, "d(1/n) = 0")
    return combine(r1, r2, r3)


# ------------------------------------------------------------------------------------------------
# Euclidean smoothing: projection
# ------------------------------------------------------------------------------------------------


@register(
    "RP14.pq.complete_square",
    P,
    "p^q_mu(alpha)",
    "<G alpha,p> + (mu/2)||p-q||^2 = (mu/2)||p - (q - G alpha/mu)||^2 + const, so p^q_mu = Proj(q - G alpha/mu)",
    perturb=dict(scale=2),
)
def pq_square(scale=1):
    """[RP14 p^q_mu] The difference of the two sides has zero gradient in ``p`` (n = 3)."""
    p = sp.symbols("p0:3", real=True)
    q = sp.symbols("q0:3", real=True)
    obj = sum(gi * pi for gi, pi in zip(G3, p)) + mu / 2 * sum((pi - qi) ** 2 for pi, qi in zip(p, q))
    center = [qi - gi / (scale * mu) for qi, gi in zip(q, G3)]
    sq = mu / 2 * sum((pi - ci) ** 2 for pi, ci in zip(p, center))
    rs = [identity(sp.diff(obj - sq, pi), 0, f"d/dp{i} (difference) = 0") for i, pi in enumerate(p)]
    return combine(*rs)


@register(
    "RP14.proj.sort_threshold",
    P,
    "simplex projection (by sorting)",
    "tau = (c_r - 1)/r gives sum_{j<=r}(u_j - tau) = 1, and u_{r+1} - (c_{r+1}-1)/(r+1) = (r/(r+1))(u_{r+1} - tau)",
    perturb=dict(tau_f=lambda c, rr: c / rr),
)
def proj_threshold(tau_f=lambda c, rr: (c - 1) / rr):
    """[RP14 projection] KKT of ``min ||p - v||^2`` over the simplex for ``p = max(v - tau, 0)``:
    the sum constraint is met, and the multiplier ``tau - u_{r+1}`` of the first excluded
    coordinate is ``>= 0`` exactly when the sorting rule stops at ``r`` (the identity shows the
    two signs agree).  Strict convexity makes the KKT point the unique projection.
    """
    c, uu = sp.symbols("c u_next", real=True)
    rr = sp.Symbol("r", positive=True)
    tau = tau_f(c, rr)
    r1 = identity(c - rr * tau, 1, "sum of the r kept coordinates = 1")
    r2 = identity(uu - (c + uu - 1) / (rr + 1), rr / (rr + 1) * (uu - tau), "next-coordinate test")
    return combine(r1, r2)


# ------------------------------------------------------------------------------------------------
# Lemma 2
# ------------------------------------------------------------------------------------------------


@register(
    "RP14.Lemma2.G_le_l1",
    P,
    "Lemma 2, first inequality",
    "||alpha||_G <= ||alpha||_1 (G_ii = 1, |G_ij| <= 1)",
    perturb=dict(gdiag=2),
)
def lemma2_first(gdiag=1):
    """[RP14 Lemma 2] With ``alpha_i = sigma_i a_i`` (``a_i >= 0``, ``sigma_i = +-1``) and
    ``G_ij = sigma_i sigma_j (1 - w_ij)`` (``w_ij = 1 - sigma_i sigma_j G_ij in [0, 2]``),
    ``||alpha||_1^2 - alpha^T G alpha`` is a polynomial with non-negative coefficients in ``a, w``.
    Checked for n = 3."""
    a = sp.symbols("a0:3", positive=True)
    sg = sp.symbols("sigma0:3", real=True)
    w = {(i, j): sp.Symbol(f"w{i}{j}", positive=True) for i in range(3) for j in range(i + 1, 3)}
    G = sp.Matrix(3, 3, lambda i, j: gdiag if i == j else sg[i] * sg[j] * (1 - w[(min(i, j), max(i, j))]))
    al = sp.Matrix([sg[i] * a[i] for i in range(3)])
    quad = sp.expand((al.T * G * al)[0, 0]).subs({x**2: 1 for x in sg})
    quad = sp.expand(quad.subs({x**4: 1 for x in sg}))
    diff = sp.expand(sum(a) ** 2 - quad)
    return nonneg(diff, list(a) + list(w.values()), what="||alpha||_1^2 - ||alpha||_G^2",
                  counter=lambda: f"alpha = e_1: {sp.sympify(diff).subs({a[0]: 1, a[1]: 0, a[2]: 0})}")


@register(
    "RP14.Lemma2.l1_le_l2",
    P,
    "Lemma 2, second inequality (Cauchy-Schwarz)",
    "||alpha||_1 <= sqrt(n) ||alpha||_2: n sum a_i^2 - (sum a_i)^2 = sum_{i<j}(a_i - a_j)^2 (n = 2..5)",
    perturb=dict(cfun=lambda nn: nn - 1),
)
def lemma2_second(cfun=lambda nn: nn):
    """[RP14 Lemma 2] Lagrange's identity: ``c sum a^2 - (sum a)^2 - sum_{i<j}(a_i-a_j)^2 =
    (c - n) sum a^2``, which is ``>= 0`` iff ``c >= n`` (``c = n`` gives Cauchy-Schwarz)."""
    rs = []
    for nn in range(2, 6):
        a = sp.symbols(f"a0:{nn}", positive=True)
        sos = sum((a[i] - a[j]) ** 2 for i in range(nn) for j in range(i + 1, nn))
        resid = sp.expand(cfun(nn) * sum(x**2 for x in a) - sum(a) ** 2 - sos)
        rs.append(nonneg(resid, list(a), what=f"n={nn}: residual after sum of squares",
                         counter=lambda nn=nn: f"alpha = 1_n (n={nn}): {cfun(nn) * nn - nn**2}"))
    res = combine(*rs)
    res.method = "sum of squares (Lagrange identity)"
    return res


# ------------------------------------------------------------------------------------------------
# Lemma 7 and E-A2
# ------------------------------------------------------------------------------------------------


@register(
    "RP14.Lemma7.beta_in_W",
    P,
    "Lemma 7, construction of beta",
    "beta = lam alpha + (1-lam) p, lam = ||p||_G/(||p||_G + |rho|), p~ = -|rho| Y phi p/||p||_G: <Y phi, beta> = 0, lam in [0,1]",
    perturb=dict(lam_f=lambda gg, rr: gg / (gg + 2 * rr)),
)
def lemma7_beta(lam_f=lambda gg, rr: gg / (gg + rr)):
    """[RP14 Lemma 7] ``<Y phi_X, beta> = lam p~ + (1-lam) Y phi p`` vanishes identically (the map is
    linear, so one coordinate ``x`` of ``Y phi p`` suffices); ``0 <= lam <= 1`` by sign."""
    x = sp.Symbol("x", real=True)  # a coordinate of Y phi~_X p
    lam = lam_f(g, r)
    ptilde = -r * x / g
    r1 = identity(lam * ptilde + (1 - lam) * x, 0, "<Y phi, beta> = 0")
    r2 = nonneg(lam, [g, r], what="lam >= 0")
    r3 = nonneg(1 - lam, [g, r], what="1 - lam >= 0")
    return combine(r1, r2, r3)


@register(
    "RP14.Lemma7.distance",
    P,
    "Lemma 7",
    "||p - beta||_2 = lam ||p - alpha||_2",
    perturb=dict(beta_f=lambda lam, a, p: lam * p + (1 - lam) * a),
)
def lemma7_distance(beta_f=lambda lam, a, p: lam * a + (1 - lam) * p):
    """[RP14 Lemma 7] ``p - beta = lam (p - alpha)`` coordinatewise (identity)."""
    lam, a, p = sp.symbols("lam a p", real=True)
    return identity(p - beta_f(lam, a, p), lam * (p - a))


@register(
    "RP14.simplex.diameter",
    P,
    "Lemma 7 (sqrt 2), Lemma 8 (max d_q <= 1)",
    "||p - a||_2^2 <= 2 for p, a in Delta_n; hence max d_q <= 1",
    perturb=dict(diam2=1),
)
def simplex_diameter(diam2=2):
    """[RP14 Lemma 7/8] Homogenised: ``(diam2/2)((sum p)^2 + (sum a)^2) - ||p - a||^2`` has
    non-negative coefficients for ``diam2 = 2`` (it equals ``2 sum_{i<j} p_i p_j + 2 sum_{i<j}
    a_i a_j + 2 <p, a>``); tight at ``p = e_1, a = e_2``.  Checked for n = 3."""
    p = sp.symbols("p0:3", positive=True)
    a = sp.symbols("a0:3", positive=True)
    expr = sp.Rational(diam2, 2) * (sum(p) ** 2 + sum(a) ** 2) - sum((x - y) ** 2 for x, y in zip(p, a))
    r1 = nonneg(expr, list(p) + list(a), what="diam^2 - ||p-a||^2 (homogenised)",
                counter=lambda: f"p = e_1, a = e_2: {diam2} - 2 < 0")
    return r1


@register(
    "RP14.Lemma8.dq_uniform",
    P,
    "Lemma 8, erratum E-A10",
    "for q = 1_n/n, max_{Delta} d_q = d_q(e_1) = (1 - 1/n)/2 (so max d_q <= 1 is loose)",
    perturb=dict(value=Q(1, 2)),
)
def dq_uniform(value=(1 - 1 / n) / 2):
    """[RP14 Lemma 8] ``d_q`` is convex, so its max over the simplex is at a vertex; exact value."""
    val = ((1 - 1 / n) ** 2 + (n - 1) / n**2) / 2
    return identity(val, value, "d_q(e_1) = value")


def _lemma7_bound(a, b):
    # the proof gives dist <= B := sqrt2 g/(g + r); is B <= min{a g/r, b} for g in (0,1], r > 0 ?
    B = sqrt(2) * g / (g + r)
    r1 = nonneg(a * g / r - B, [g, r], what="a g/r - sqrt2 g/(g+r)")
    r2 = nonneg(b - B, [g, r], what="b - sqrt2 g/(g+r)")
    if r1.holds and r2.holds:
        return ok("factored sign", r1.detail + "; " + r2.detail)
    region = []
    if not r1.holds:
        sol = sp.solve(sp.Eq(a * g / r, B), g)
        region.append(f"a g/r < proof bound iff ||q||_G < {sp.nsimplify(sol[0]) if sol else '?'}")
        ce = (Q(1, 10), 1)
        region.append(f"e.g. ||q||_G=1/10, |rho|=1: proof bound {sp.N(B.subs({g: ce[0], r: ce[1]}), 5)} > "
                      f"{sp.N((a * g / r).subs({g: ce[0], r: ce[1]}), 5)}")
    if not r2.holds:
        region.append(f"b < proof bound for large ||q||_G/|rho|: {r2.detail}")
    return bad("factored sign", "; ".join(region))


@register(
    "RP14.Lemma7.proved",
    P,
    "Lemma 7 (as proved), erratum E-A2",
    "dist(q,W) <= sqrt2 ||q||_G/(||q||_G + |rho|) <= sqrt2 min{1, ||q||_G/|rho|}",
    perturb=dict(b=1),
)
def lemma7_proved(a=sqrt(2), b=sqrt(2)):
    """[RP14 Lemma 7] ``a g/r - B = sqrt2 g^2/(r(g+r)) >= 0`` and ``b - B = sqrt2 r/(g+r) >= 0``."""
    return _lemma7_bound(a, b)


@register(
    "RP14.Lemma7.printed",
    P,
    "Lemma 7 as printed, erratum E-A2",
    "the proof's bound sqrt2 ||q||_G/(||q||_G+|rho|) implies the printed min{||q||_G/|rho|, sqrt2}",
    expected=False,
    corrected="dist(q,W) <= min{sqrt(3/2) ||q||_G/|rho_K|, sqrt2 ||q||_G/(||q||_G + |rho_K|), sqrt2} "
    "(RP14.Lemma7.corrected); the printed form follows from the argument only when ||q||_G >= (sqrt2 - 1)|rho_K|, "
    "and it is false (RP14.Lemma7.printed.counterexample)",
)
def lemma7_printed(a=1, b=sqrt(2)):
    """[RP14 Lemma 7, E-A2] The printed first term ``||q||_G/|rho|`` lacks ``sqrt 2``: the proof's bound
    exceeds it exactly when ``||q||_G < (sqrt 2 - 1)|rho|``."""
    return _lemma7_bound(a, b)


# ------------------------------------------------------------------------------------------------
# Lemma 7 corrected: dist(q, W) <= sqrt(3/2) ||q||_G/|rho_K|  (erratum E-A2)
#
# Notation: g = ||q||_G = ||Y phi q|| > 0, r = |rho_K| > 0, p* = Proj_W(q), q_t = p* + t(q - p*),
# alpha in Delta_n with Y phi alpha = -r Y phi q/g (Theorem 3: the r-ball is in the hull).
# ------------------------------------------------------------------------------------------------

_pv = sp.symbols("p0:4", real=True)
_qv = sp.symbols("q0:4", real=True)
_wv = sp.symbols("w0:4", real=True)
_yv = sp.symbols("y0:4", real=True)


def _on_W(vec, free):
    """Substitution putting ``vec`` (4 coordinates) on the affine set {sum = 1, <y, vec> = 0}."""
    sol = sp.solve([sum(vec) - 1, sum(a * b for a, b in zip(_yv, vec))], free, dict=True)[0]
    return [sp.simplify(c.subs(sol)) for c in vec]


@register(
    "RP14.Lemma7.ray_scaling",
    P,
    "Lemma 7, erratum E-A2 (ray from the projection)",
    "q_t = p* + t(q - p*), 0 < t <= 1: q_t in Delta_n, Y phi q_t = t Y phi q, q_t - p* = t(q - p*) (so q_t "
    "projects onto p*: dist(q_t, W) = t dist(q, W)); the ratio dist/||.||_G is constant on the ray",
    perturb=dict(qt_f=lambda p, q, tt: [tt * a + (1 - tt) * Q(1, 4) for a in q]),
)
def lemma7_ray(qt_f=lambda p, q, tt: [b + tt * (a - b) for a, b in zip(q, p)]):
    """[RP14 Lemma 7, E-A2] In R^4 with a generic row ``y`` of Y phi: ``p`` and ``w`` on W's affine
    set (sum 1, <y, .> = 0), ``q`` with sum 1.  Identities: ``sum q_t = 1``, ``<y, q_t> = t <y, q>``,
    ``<q_t - p, w - p> = t <q - p, w - p>`` (so the normal-cone condition <q - p*, w - p*> <= 0 of
    the projection carries over to q_t); coordinatewise ``q_t,i = (1-t) p_i + t q_i >= 0`` with
    ``t = 1/(1+u)``; finally ``t d/(t g) = d/g``."""
    tt = sp.Symbol("t", positive=True)
    p = _on_W(list(_pv), [_pv[2], _pv[3]])
    w = _on_W(list(_wv), [_wv[2], _wv[3]])
    q = list(_qv[:3]) + [1 - sum(_qv[:3])]
    qt = qt_f(p, q, tt)
    dot = lambda a, b: sum(x * y for x, y in zip(a, b))
    r1 = identity(sum(qt), 1, "sum q_t = 1")
    r2 = identity(dot(_yv, qt), tt * dot(_yv, q), "<y, q_t> = t <y, q> (p* in W)")
    diff = [a - b for a, b in zip(qt, p)]
    r3 = identity(dot(diff, [a - b for a, b in zip(w, p)]), tt * dot([a - b for a, b in zip(q, p)], [a - b for a, b in zip(w, p)]),
                  "<q_t - p*, w - p*> = t <q - p*, w - p*>")
    pi, qi = sp.symbols("pi qi", positive=True)
    coord = qt_f([pi] * 4, [qi] * 4, 1 / (1 + u))[0]
    r4 = nonneg(coord, [pi, qi, u], what="q_t,i >= 0")
    d_, g_ = sp.symbols("d g_", positive=True)
    r5 = identity((tt * d_) / (tt * g_), d_ / g_, "ratio constant along the ray")
    res = combine(r1, r2, r3, r4, r5)
    res.method = "identity + factored sign"
    return res


@register(
    "RP14.Lemma7.W_coordinates",
    P,
    "Lemma 7, erratum E-A2 (points of W)",
    "unit-norm data: every p in W has p_i = ||sum_{j!=i} p_j y_j phi~_j|| <= 1 - p_i, so p_i <= 1/2 and ||p||_2^2 <= 1/2",
    perturb=dict(norm=2),
)
def lemma7_W_coords(norm=1, claimed=Q(1, 2)):
    """[RP14 Lemma 7, E-A2] From ``p_i ||z_i|| = ||sum_{j!=i} p_j z_j|| <= (1 - p_i) max_j ||z_j||``
    with ``||z_i|| = 1`` and ``max ||z_j|| = norm`` (1 for the normalized kernel): the largest
    admissible p_i solves ``P = norm (1 - P)``; it must be <= ``claimed``.  Then, writing
    ``p_i = claimed a_i/(1+a_i)`` (so 0 <= p_i <= claimed), ``claimed sum p_i - sum p_i^2 >= 0``,
    i.e. ``||p||^2 <= claimed`` on the simplex.  Tight: two antipodal points, p = (1/2, 1/2)."""
    Pm = sp.Symbol("P", positive=True)
    top = sp.solve(sp.Eq(Pm, norm * (1 - Pm)), Pm)[0]
    gap = sp.nsimplify(claimed - top)
    r1 = (ok("exact", f"claimed - max p_i = {gap} >= 0") if gap >= 0
          else bad("exact", f"p_i may reach {top} > {claimed}"))
    a = sp.symbols("a0:3", positive=True)
    pv = [claimed * x / (1 + x) for x in a]
    r2 = nonneg(claimed * sum(pv) - sum(x**2 for x in pv), list(a), what="claimed sum p - ||p||^2")
    return combine(r1, r2)


@register(
    "RP14.Lemma7.cross_term",
    P,
    "Lemma 7, erratum E-A2 (sqrt(3/2))",
    "p*, alpha in Delta_n: ||p* - alpha||^2 = ||p*||^2 + ||alpha||^2 - 2<p*, alpha> <= ||p*||^2 + ||alpha||^2 <= 1/2 + 1 = 3/2",
    perturb=dict(alpha_sign=-1),
)
def lemma7_cross(alpha_sign=1, C2=Q(3, 2), W_bound=Q(1, 2)):
    """[RP14 Lemma 7, E-A2] For non-negative coordinates (n = 3 positive symbols):
    ``||p||^2 + ||a||^2 - ||p - a||^2 = 2<p, a> >= 0`` and ``(sum a)^2 - ||a||^2 >= 0``; the
    constants add up: ``C2 - (W_bound + 1) >= 0``.  ``alpha_sign = -1`` (alpha not in the simplex,
    e.g. Lemma 3's unconstrained alpha) breaks the cross term."""
    p = sp.symbols("pp0:3", positive=True)
    a = [alpha_sign * x for x in sp.symbols("aa0:3", positive=True)]
    syms = list(p) + [abs(x) for x in a]
    sq = lambda v: sum(x**2 for x in v)
    r1 = nonneg(sq(p) + sq(a) - sq([x - y for x, y in zip(p, a)]), syms, what="cross term 2<p*, alpha>")
    r2 = nonneg(sum(a) ** 2 - sq(a), syms, what="(sum alpha)^2 - ||alpha||^2")
    r3 = nonneg(C2 - (W_bound + 1), [], what="C^2 - (1/2 + 1)")
    return combine(r1, r2, r3)


@register(
    "RP14.Lemma7.limit",
    P,
    "Lemma 7, erratum E-A2 (t -> 0)",
    "beta_t = lam q_t + (1-lam) alpha in W for lam = r/(t g + r); dist(q, W) = dist(q_t, W)/t <= (g/(t g + r)) ||q_t - alpha|| "
    "-> (g/r) ||p* - alpha|| as t -> 0",
    perturb=dict(lam_f=lambda tt, gg, rr: rr / (gg + rr)),
)
def lemma7_limit(lam_f=lambda tt, gg, rr: rr / (tt * gg + rr)):
    """[RP14 Lemma 7, E-A2] alpha is the same for every t, because Y phi q_t/||Y phi q_t|| = Y phi q/g.
    With ``x`` a coordinate of Y phi q: ``lam t x + (1 - lam)(-r x/g) = 0`` (beta_t in W); ``0 <= lam <= 1``;
    ``(1 - lam)/t = g/(t g + r)``; and with ``||q_t - alpha||^2 = D + 2 t B + t^2 C``
    (D = ||p* - alpha||^2) the limit of ``(g/(t g + r)) sqrt(D + 2tB + t^2 C)`` at ``t -> 0+`` is
    ``(g/r) sqrt(D)`` (sympy ``limit``).  The bound holds for every t in (0, 1], so also in the limit."""
    tt = sp.Symbol("t", positive=True)
    x = sp.Symbol("x", real=True)
    lam_ = lam_f(tt, g, r)
    r1 = identity(lam_ * tt * x + (1 - lam_) * (-r * x / g), 0, "<Y phi, beta_t> = 0")
    r2 = nonneg(lam_, [tt, g, r], what="lam >= 0")
    r3 = nonneg(1 - lam_, [tt, g, r], what="1 - lam >= 0")
    Dd, Bb, Cc = sp.symbols("D B C", positive=True)
    per_t = (1 - lam_) / tt * sqrt(Dd + 2 * tt * Bb + tt**2 * Cc)
    lim = sp.limit(per_t, tt, 0, "+")
    r4 = identity(lim, g / r * sqrt(Dd), "limit t -> 0+")
    res = combine(r1, r2, r3, r4)
    res.method = "identity + factored sign + limit"
    return res


@register(
    "RP14.Lemma7.corrected",
    P,
    "Lemma 7 corrected, erratum E-A2",
    "dist(q, W) <= min{ sqrt(3/2) ||q||_G/|rho_K|, sqrt2 ||q||_G/(||q||_G + |rho_K|), sqrt2 }",
    perturb=dict(C=1),
)
def lemma7_corrected(C=sqrt(Q(3, 2))):
    """[RP14 Lemma 7, E-A2] Composition: the limit step gives ``dist <= (g/r) ||p* - alpha||``, the
    cross-term step ``||p* - alpha||^2 <= 3/2``, so ``C g/r - (g/r) sqrt(3/2) >= 0`` is needed;
    the other two terms are the paper's own argument (``RP14.Lemma7.proved``).  ``C = 1`` (the
    printed constant) is not reached by this argument -- and is false (``RP14.Lemma7.printed.counterexample``)."""
    r1 = nonneg(C * g / r - g / r * sqrt(Q(3, 2)), [g, r], what="C g/r - sqrt(3/2) g/r")
    r2 = _lemma7_bound(sqrt(2), sqrt(2))
    return combine(r1, r2)


@register(
    "RP14.Lemma7.simplex_case",
    P,
    "Lemma 7 when n = d + 1 (W = {p_bar}, an interior point)",
    "affinely independent z_1..z_{d+1} around 0: |rho_K| dist(q, W)/||q||_G <= sqrt(sum p_bar_i^2) <= 1/sqrt2 (< 1)",
    perturb=dict(claimed=Q(1, 4)),
)
def lemma7_simplex(claimed=Q(1, 2)):
    """[RP14 Lemma 7, E-A2] d = 2, generic triangle (symbols).  M = [Z; 1^T] is invertible; its
    inverse is [B | p_bar] with p_bar the barycentric coordinates of 0 (W = {p_bar}), and for
    v = q - p_bar (sum v = 0): v = B Z v (identity ``B Z = I - p_bar 1^T``).  Row i of B is normal to
    the facet F_i opposite z_i with ``||B_i|| = 1/H_i`` (H_i the height of z_i over F_i) and the
    facet's distance from 0 is ``h_i = p_bar_i H_i`` (identities, with H_i, h_i from 2x2
    determinants).  Since |rho_K| = delta_max = min_i h_i (Thm. 3):
    ``(h_min ||v||/||Zv||)^2 <= h_min^2 sum ||B_i||^2 = sum (h_min p_bar_i/h_i)^2 <= sum p_bar_i^2
    <= max p_bar_i <= 1/2`` (``RP14.Lemma7.W_coordinates``), shown term by term with
    ``h_i = h_min(1 + e)``, ``p_bar_i = a/(2(1 + a))``."""
    z = sp.Matrix(3, 2, sp.symbols("z0:6", real=True))
    M = sp.Matrix.vstack(z.T, sp.ones(1, 3))
    Mi = M.inv()
    B, pbar = Mi[:, :2], Mi[:, 2]
    BZ = B * z.T
    r1 = combine(*[identity(BZ[i, j], int(i == j) - pbar[i], f"(B Z)_{i}{j}") for i in range(3) for j in range(3)])
    det = lambda a, b: a[0] * b[1] - a[1] * b[0]
    zs = [z.row(i) for i in range(3)]
    rows = []
    for i in range(3):
        j, k = [m for m in range(3) if m != i]
        e2 = (zs[j] - zs[k]).dot(zs[j] - zs[k])
        H2 = det(zs[j] - zs[i], zs[k] - zs[i]) ** 2 / e2
        h2 = det(zs[j], zs[k]) ** 2 / e2
        rows.append(identity(B.row(i).dot(B.row(i)) * H2, 1, f"||B_{i}|| H_{i} = 1"))
        rows.append(identity(pbar[i] ** 2 * H2, h2, f"h_{i} = p_bar_{i} H_{i}"))
    a, e = sp.symbols("a e", positive=True)
    pb = a / (2 * (1 + a))
    r3 = nonneg(claimed * pb - (pb / (1 + e)) ** 2, [a, e],
                what="each term of claimed sum p_bar_i - sum (h_min p_bar_i/h_i)^2 (sum p_bar = 1)")
    r4 = nonneg(1 - claimed, [], what="1 - claimed")
    res = combine(r1, *rows, r3, r4)
    res.method = "identity + factored sign"
    return res


@register(
    "RP14.Lemma7.planar",
    P,
    "Lemma 7 in the plane (d = 2), erratum E-A2",
    "d = 2: |rho_K| dist(q, W)/||q||_G <= max{1, sqrt(3/2) |rho_K|}; so the printed first term holds whenever "
    "delta_max <= sqrt(2/3)",
    perturb=dict(C2=Q(6, 5)),
)
def lemma7_planar(C2=Q(3, 2)):
    """[RP14 Lemma 7, E-A2] Let u = Y phi q/||q||_G, b = -rho u the point where the ray -u leaves the
    hull (rho >= r = |rho_K|), on the edge [z_1, z_2] at distance h >= r from 0.  The limit step
    (``RP14.Lemma7.limit``) holds for any alpha with Y phi alpha = -s u; with
    alpha = (1 - theta) p* + theta gamma (gamma the edge weights of b, s = theta rho):
    ``(r/s) ||p* - alpha|| = (r/rho) ||p* - gamma||`` (identity), and by the cross-term step
    ``||p* - gamma||^2 <= 1/2 + ||gamma||^2``.  Unit vectors: z_{1,2} = (h, +-L), L^2 = 1 - h^2,
    b = (h, x), |x| <= L: gamma = ((1 + x/L)/2, (1 - x/L)/2), ||gamma||^2 = 1/2 + x^2/(2L^2),
    rho^2 = h^2 + x^2 (identities).  So c^2 <= F(X) = r^2 (2L^2 + X)/(2L^2 (h^2 + X)), X = x^2 in
    [0, L^2], whose derivative r^2 (h^2 - 2L^2)/(2L^2 (h^2 + X)^2) has one sign: the max is at an
    end, F(0) = r^2/h^2 <= 1 and F(L^2) = (3/2) r^2 <= ``C2`` r^2.  (h = 2m/(1 + m^2), L = (1 - m^2)/(1 + m^2),
    m = 1/(1 + k); r = h/(1 + w).)"""
    k, w, th, X = sp.symbols("k w theta X", positive=True)
    m = 1 / (1 + k)
    h = 2 * m / (1 + m**2)
    L = (1 - m**2) / (1 + m**2)
    rr = h / (1 + w)
    x = sp.Symbol("x", real=True)
    pv, gv = sp.symbols("pv gv", real=True)  # a coordinate of p*, gamma
    rho_ = sp.Symbol("rho_b", positive=True)
    alpha = (1 - th) * pv + th * gv
    r1 = identity((pv - alpha) / (th * rho_), (pv - gv) / rho_, "(1/s)(p* - alpha) = (1/rho)(p* - gamma), s = theta rho")
    g1, g2 = (1 + x / L) / 2, (1 - x / L) / 2
    r2 = combine(identity(g1 * h + g2 * h, h, "b_1 = h"), identity(g1 * L - g2 * L, x, "b_2 = x"),
                 identity(g1 + g2, 1, "sum gamma = 1"), identity(h**2 + L**2, 1, "||z_i|| = 1"),
                 identity(g1**2 + g2**2, Q(1, 2) + x**2 / (2 * L**2), "||gamma||^2"))
    F = rr**2 * (Q(1, 2) + Q(1, 2) + X / (2 * L**2)) / (h**2 + X)
    r3 = identity(sp.diff(F, X), rr**2 * (h**2 - 2 * L**2) / (2 * L**2 * (h**2 + X) ** 2), "F'(X): one sign on [0, L^2]")
    r4 = nonneg(1 - F.subs(X, 0), [k, w], what="1 - F(0) (r <= h)")
    r5 = combine(identity(F.subs(X, L**2), Q(3, 2) * rr**2, "F(L^2) = (3/2) r^2"),
                 nonneg(C2 * rr**2 - F.subs(X, L**2), [k, w], what="C2 r^2 - F(L^2)"))
    res = combine(r1, r2, r3, r4, r5)
    res.method = "identity + derivative + factored sign"
    return res


# the exact counterexample to the printed Lemma 7 (d = 2, n = 8, labels +1, unit circle)
LEMMA7_COUNTEREXAMPLE = dict(
    points=[(Q(999999, 1000001), Q(2000, 1000001)), (Q(21, 29), Q(20, 29)), (0, 1), (Q(-21, 29), Q(20, 29)),
            (Q(-999999, 1000001), Q(2000, 1000001)), (Q(-45, 53), Q(-28, 53)), (0, -1), (Q(45, 53), Q(-28, 53))],
    q=[Q(1, 2), 0, 0, 0, Q(1, 2), 0, 0, 0],
    support=(0, 4, 5, 6, 7),
)


def lemma7_exact_ratio2(points, q, support):
    """Exact ``(delta_max^2, dist(q, W)^2, ||q||_G^2)`` for unit-norm planar points in
    counter-clockwise order around 0 (labels +1), by two certificates:

    * hull: every edge (z_i, z_{i+1}) leaves all other points strictly on the side of 0
      (``det(z_{i+1} - z_i, z_k - z_i) > 0``) and 0 strictly inside (``det(z_i, z_{i+1}) > 0``), so
      the edges are the facets and ``delta_max^2 = min det(z_i, z_{i+1})^2/||z_{i+1} - z_i||^2``;
    * projection: on ``support`` S solve the KKT system of min ||w - q||^2, w >= 0, A w = b
      (A = [1^T; Z^T], b = e_1): ``w_S = q_S - A_S^T lam``; it is the projection iff w_S >= 0 and
      the multipliers ``(A^T lam - q)_i >= 0`` off S (KKT is sufficient for this convex QP).

    Raises ValueError when a certificate does not verify (so nothing is decided from a wrong
    active set)."""
    Z = sp.Matrix([[sp.Rational(c) for c in row] for row in points])
    nn = Z.rows
    if any(Z.row(i).dot(Z.row(i)) != 1 for i in range(nn)):
        raise ValueError("points must have unit norm")
    det = lambda a, b: a[0] * b[1] - a[1] * b[0]
    zs = [Z.row(i) for i in range(nn)]
    d2 = []
    for i in range(nn):
        a, b = zs[i], zs[(i + 1) % nn]
        if det(a, b) <= 0 or any(det(b - a, zs[k] - a) <= 0 for k in range(nn) if k not in (i, (i + 1) % nn)):
            raise ValueError(f"edge {i}: not a facet with 0 strictly inside")
        d2.append(det(a, b) ** 2 / (b - a).dot(b - a))
    A = sp.Matrix.vstack(sp.ones(1, nn), Z.T)
    bb = sp.Matrix([1, 0, 0])
    qv = sp.Matrix([sp.Rational(c) for c in q])
    S = list(support)
    AS = A[:, S]
    try:
        lam_ = (AS * AS.T).LUsolve(AS * qv.extract(S, [0]) - bb)
    except ValueError as exc:  # singular normal equations: no certificate on this support
        raise ValueError(f"the KKT certificate of the projection cannot be formed on this support ({exc})") from exc
    w = sp.zeros(nn, 1)
    for j, i in enumerate(S):
        w[i] = qv[i] - (AS.T * lam_)[j]
    nu = A.T * lam_ - qv
    if not (all(w[i] >= 0 for i in S) and A * w == bb and all(nu[i] >= 0 for i in range(nn) if i not in S)):
        raise ValueError("the KKT certificate of the projection does not verify on this support")
    g2 = (Z.T * qv).dot(Z.T * qv)
    return min(d2), (qv - w).dot(qv - w), g2


@register(
    "RP14.Lemma7.printed.counterexample",
    P,
    "Lemma 7 as printed, erratum E-A2",
    "dist(q, W) <= ||q||_G/|rho_K| on the 8-point unit-circle instance, q = (e_1 + e_5)/2 (exact rationals)",
    expected=False,
    corrected="dist(q, W) <= min{ sqrt(3/2) ||q||_G/|rho_K|, sqrt2 ||q||_G/(||q||_G + |rho_K|), sqrt2 }; "
    "the sharp constant of the first term lies in [1.0357, sqrt(3/2)]",
)
def lemma7_printed_counterexample(C2=1, **instance):
    """[RP14 Lemma 7, E-A2] Decides ``C2 ||q||_G^2 - delta_max^2 dist(q, W)^2 >= 0`` exactly
    (:func:`lemma7_exact_ratio2`); with |rho_K| = delta_max (Thm. 3) this is the printed first term
    for ``C2 = 1``.  Here ratio^2 = 1.0678...: the printed form is false.  ``instance`` overrides
    the points/q/support (a regular hexagon satisfies it: the machinery can say "holds")."""
    inst = dict(LEMMA7_COUNTEREXAMPLE, **instance)
    d2, dist2, g2 = lemma7_exact_ratio2(**inst)
    ratio2 = d2 * dist2 / g2
    detail = (f"delta_max^2 = {d2}, dist^2 = {sp.N(dist2, 8)}, ||q||_G^2 = {g2}: "
              f"(|rho_K| dist/||q||_G)^2 = {sp.N(ratio2, 10)} (exact rational), ratio = {sp.N(sqrt(ratio2), 8)}")
    return ok("exact rationals", detail) if C2 - ratio2 >= 0 else bad("exact rationals", detail)


@register(
    "RP14.Lemma7.corrected.counterexample",
    P,
    "Lemma 7 corrected, erratum E-A2",
    "the corrected first term sqrt(3/2) ||q||_G/|rho_K| holds on the counterexample (exact rationals)",
    perturb=dict(C2=1),
)
def lemma7_corrected_counterexample(C2=Q(3, 2)):
    """[RP14 Lemma 7, E-A2] ``C2 ||q||_G^2 >= delta_max^2 dist(q, W)^2`` exactly on the counterexample."""
    return lemma7_printed_counterexample(C2=C2)


# ------------------------------------------------------------------------------------------------
# NVN (Alg. 5)
# ------------------------------------------------------------------------------------------------

Pw = sp.Symbol("P", real=True)  # w.a
lam = sp.Symbol("lam", real=True)


def _phi(W_, P_, A_):
    return (1 - lam) ** 2 * W_ + 2 * lam * (1 - lam) * P_ + lam**2 * A_


@register(
    "RP14.NVN.line_search",
    P,
    "Alg. 5, line search",
    "theta = <w, w-a>/||w-a||^2 minimises ||(1-lam) w + lam a||^2",
    perturb=dict(theta_f=lambda W_, P_, A_: (W_ - P_) / (W_ - P_ + A_)),
)
def nvn_line_search(theta_f=lambda W_, P_, A_: (W_ - P_) / (W_ - 2 * P_ + A_)):
    """[RP14 Alg. 5] ``phi'(theta) = 0`` exactly and ``phi'' = 2||w - a||^2 >= 0`` (convex)."""
    phi = _phi(W, Pw, A)
    th = theta_f(W, Pw, A)
    r1 = identity(sp.diff(phi, lam).subs(lam, th), 0, "phi'(theta) = 0")
    r2 = identity(sp.diff(phi, lam, 2), 2 * (W - 2 * Pw + A), "phi'' = 2||w-a||^2 >= 0")
    return combine(r1, r2)


@register(
    "RP14.NVN.no_clip",
    P,
    "Alg. 5, line search",
    "if w.a <= 0 (infeasible case) then theta in (0, 1] (no clipping)",
    perturb=dict(sign=1),
)
def nvn_no_clip(sign=-1):
    """[RP14 Alg. 5] With ``w.a = sign * s`` (``s >= 0``): ``theta = (W+s)/(W+2s+A) > 0`` and
    ``1 - theta = (s+A)/(W+2s+A) >= 0``."""
    th = (W - sign * s) / (W - 2 * sign * s + A)
    cnt = lambda: search_negative(lambda W_, s_, A_: (W_ - sign * s_) / (W_ - 2 * sign * s_ + A_),
                                  [[Q(1, 2)], [1, 2], [1]])
    r1 = nonneg(th, [W, s, A], what="theta", counter=cnt)
    r2 = nonneg(1 - th, [W, s, A], what="1 - theta")
    return combine(r1, r2)


@register(
    "RP14.NVN.decrease",
    P,
    "Alg. 5, 1/eps^2 proof",
    "||a|| = 1, w.a <= 0  =>  min_lam ||(1-lam)w + lam a||^2 <= ||w||^2/(1+||w||^2)",
    perturb=dict(claimed=lambda W_: W_ / (1 + 2 * W_)),
)
def nvn_decrease(claimed=lambda W_: W_ / (1 + W_)):
    """[RP14 Alg. 5] Minimum value ``(W A - P^2)/(W - 2P + A)``; with ``A = 1``, ``P = -s``:
    ``claimed - min = s (s(1+W) + 2W)/((1+W)(W+2s+1)) >= 0``."""
    phi = _phi(W, Pw, A)
    th = (W - Pw) / (W - 2 * Pw + A)
    mn = sp.simplify(phi.subs(lam, th))
    r1 = identity(mn, (W * A - Pw**2) / (W - 2 * Pw + A), "minimum value")
    r2 = nonneg(claimed(W) - mn.subs({A: 1, Pw: -s}), [W, s], what="claimed - min",
                counter=lambda: search_negative(sp.lambdify((W, s), claimed(W) - mn.subs({A: 1, Pw: -s}), "mpmath"),
                                                [[Q(1, 2), 1, 2], [0]]))
    return combine(r1, r2)


@register(
    "RP14.NVN.recursion",
    P,
    "Alg. 5, 1/eps^2 bound",
    "1/||w_{k+1}||^2 >= 1/||w_k||^2 + 1, ||w_0|| <= 1  =>  ||w_k|| <= 1/sqrt(k+1) <= eps once k >= 1/eps^2",
    perturb=dict(decrease=lambda W_: W_ / (1 + W_ / 2)),
)
def nvn_recursion(decrease=lambda W_: W_ / (1 + W_), iters=lambda e: 1 / e**2):
    """[RP14 Alg. 5] ``1/decrease(W) - 1/W`` must be a constant ``c``; ``u_{k+1} = u_k + c``,
    ``u_0 = 1`` solves to ``u_k = 1 + c k`` (rsolve); then ``u_K >= 1/eps^2`` at ``K = iters(eps)``."""
    c = sp.simplify(1 / decrease(W) - 1 / W)
    if c.free_symbols:
        return bad("recurrence", f"1/||w'||^2 - 1/||w||^2 >= {c} is not constant")
    uk = sp.Function("uk")
    kk = sp.Symbol("k", integer=True, nonnegative=True)
    sol = sp.rsolve(uk(kk + 1) - uk(kk) - c, uk(kk), {uk(0): 1})
    r1 = identity(sol, 1 + c * kk, "rsolve")
    r2 = nonneg(sol.subs(kk, iters(eps)) - 1 / eps**2, [eps], what="1/||w_K||^2 - 1/eps^2",
                counter=lambda: f"eps = 1/2: {sp.N(sol.subs(kk, iters(Q(1, 2))) - 4)}")
    res = combine(r1, r2)
    res.method = "recurrence (rsolve) + factored sign"
    return res


# ------------------------------------------------------------------------------------------------
# ISNKPVN: eq. (15) and Theorem 4
# ------------------------------------------------------------------------------------------------


@register(
    "RP14.eq15.outer",
    P,
    "eq. (15), Thm. 4",
    "delta_t <= ||q_0||_G/gamma^{t+1}; after T = log(||q_0||_G/eps)/log gamma <= log(1/eps)/log gamma loops delta < eps",
    perturb=dict(T_f=lambda g0, e, gm: log(g0 / e) / (2 * log(gm))),
)
def eq15(T_f=lambda g0, e, gm: log(g0 / e) / log(gm)):
    """[RP14 eq. (15), Thm. 4] ``d_{t+1} = d_t/gamma``, ``d_0 = g0/gamma`` solves to ``g0/gamma^{t+1}``;
    ``g0/gamma^T = eps`` at ``T``; ``g0 = e^{-v} <= 1`` (Lemma 2) gives ``T <= log(1/eps)/log gamma``."""
    dd = sp.Function("d")
    tt = sp.Symbol("t", integer=True, nonnegative=True)
    gm = 1 + u  # gamma > 1
    g0 = exp(-v)  # ||q_0||_G <= 1
    sol = sp.rsolve(dd(tt + 1) - dd(tt) / gm, dd(tt), {dd(0): g0 / gm})
    r1 = identity(sol, g0 / gm ** (tt + 1), "rsolve")
    T = T_f(g0, eps, gm)
    r2 = identity(g0 / gm**T, eps, "||q_0||_G/gamma^T = eps")
    r3 = nonneg(log(1 / eps) - log(g0 / eps), [v, eps], what="log(1/eps) - log(||q_0||/eps) = v")
    res = combine(r1, r2, r3)
    res.method = "recurrence (rsolve) + identity + sign"
    return res


@register(
    "RP14.Thm4.inner_dual",
    P,
    "Thm. 4 (case 2), Lemma 9",
    "||p_k||_G <= (2 sqrt(2n)/(k+1)) ||q||_G/|rho| < delta = ||q||_G/gamma once k+1 > 2 sqrt(2n) gamma/|rho|",
    perturb=dict(c=1),
)
def thm4_inner(c=2):
    """[RP14 Thm. 4, Lemma 9] At ``k+1 = c sqrt(2n) gamma/|rho| (1+s)``:
    ``delta - bound = (g/gamma)(1 - 2/(c(1+s))) >= 0`` iff ``c >= 2``."""
    gm = 1 + u
    K = c * sqrt(2 * n) * gm / r * (1 + s)
    bound = 2 * sqrt(2 * n) / K * g / r
    return nonneg(g / gm - bound, [g, r, n, s, u], what="delta - bound on ||p_k||_G",
                  counter=lambda: f"s = 0: {sp.simplify((g / gm - bound).subs(s, 0))}")


# ------------------------------------------------------------------------------------------------
# Perceptron / NKP bound, worked example
# ------------------------------------------------------------------------------------------------


@register(
    "RP14.NKP.bound",
    P,
    "Alg. 3 bound (and Block-Novikoff)",
    "||k w_k||^2 <= ||(k-1) w_{k-1}||^2 + 1 and <u, k w_k> >= k rho  =>  k <= 1/rho^2",
    perturb=dict(growth=2),
)
def nkp_bound(growth=1, claimed=lambda rr: 1 / rr**2):
    """[RP14 Alg. 3] ``||S + a||^2 = ||S||^2 + 2<S,a> + ||a||^2 <= ||S||^2 + growth`` (slack
    ``<S,a> = -s <= 0``, ``||a|| = 1``); then ``k rho <= sqrt(growth k)`` gives ``k <= growth/rho^2``,
    which must be ``<= claimed``."""
    Sn = sp.Symbol("S2", positive=True)
    r1 = nonneg(Sn + growth - (Sn - 2 * s + 1), [Sn, s], what="one-step growth")
    r2 = nonneg(claimed(rho) - growth / rho**2, [rho], what="claimed - growth/rho^2")
    return combine(r1, r2)


@register(
    "RP14.example",
    P,
    "Sect. 2.2 worked example",
    "rho_2 = sqrt2/10 at lam = 1/2 on [a, b], a = (.6,.8), b = -(.8,.6); Novikoff/normalized bound ratio = r^4",
    perturb=dict(exponent=2),
)
def example(rho2=sqrt(2) / 10, exponent=4):
    """[RP14 Sect. 2.2] Exact: ``phi(lam) = ||(1-lam)a + lam b||^2`` is convex with ``phi'(1/2) = 0``,
    ``sqrt(phi(1/2)) = rho_2``; with ``rho = rho_2/r``, ``max||x|| = r``: ``(r^2/rho^2)/(1/rho_2^2) = r^exponent``."""
    a = sp.Matrix([Q(3, 5), Q(4, 5)])
    b = -sp.Matrix([Q(4, 5), Q(3, 5)])
    z = (1 - lam) * a + lam * b
    phi = (z.T * z)[0, 0]
    r1 = identity(sp.diff(phi, lam).subs(lam, Q(1, 2)), 0, "phi'(1/2) = 0")
    r2 = nonneg(sp.diff(phi, lam, 2), [], what="phi'' > 0")
    r3 = identity(sqrt(phi.subs(lam, Q(1, 2))), rho2, "rho_2")
    rr = sp.Symbol("r", positive=True)
    r4 = identity((rr**2 / (rho2 / rr) ** 2) / (1 / rho2**2), rr**exponent, "bound ratio")
    return combine(r1, r2, r3, r4)
