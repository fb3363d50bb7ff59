"""Kills for the last NOT KILLED survivors of reference.data_margin (issue 13): the Armijo line
search of _newton_l2svm (mutants 67, 69, 72, 75), the minor cycle of _wolfe_primal (94; 69 is
argued equivalent in benchmarks/mutation/census_survivors3.md) and the "polished" wording of
margin_from_data (265, 266, 267).  Each kill was checked by applying the mutant to the source by
hand: the test fails on the mutant and passes on the original.

The searches are untrusted, so their tests check the documented algorithm itself, step by step, in
exact rational arithmetic on the float iterates: successive iterates are read by running the search
with its iteration limit set to 1, 2, ... (the module constants NEWTON_MAX_STEPS, WOLFE_MAX_ITER).
"""
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

import reference.data_margin as DM
from reference.patterns import make_patterns

EPS = 2.0**-52


def _q(x) -> Fraction:
    return Fraction(float(x))


def _dot(a, b) -> Fraction:
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


def _solve(A, b):
    """Exact Gauss-Jordan solve of a small nonsingular rational system."""
    n = len(b)
    M = [list(row) + [bi] for row, bi in zip(A, b)]
    for c in range(n):
        p = next(i for i in range(c, n) if M[i][c] != 0)
        M[c], M[p] = M[p], M[c]
        for i in range(n):
            if i != c and M[i][c] != 0:
                f = M[i][c] / M[c][c]
                M[i] = [a - f * b for a, b in zip(M[i], M[c])]
    return [M[i][n] / M[i][i] for i in range(n)]


# =============================================================================================
# _newton_l2svm: every step is the Armijo backtracking step (halving, c = 1e-4) of its docstring
# =============================================================================================


class _L2SVM:
    """f(v) = ||v||^2 + Delta^-2 sum_k max(0, 1 - v . z_k)^2, its gradient and its semismooth Newton
    direction, all in exact rationals."""

    def __init__(self, Z, Delta):
        self.Z = [[_q(a) for a in row] for row in Z]
        self.D2 = _q(Delta) ** 2

    def res(self, v):
        return [1 - _dot(z, v) for z in self.Z]

    def f(self, v):
        return _dot(v, v) + sum(max(Fraction(0), r) ** 2 for r in self.res(v)) / self.D2

    def grad(self, v):
        g = [2 * a for a in v]
        for z, r in zip(self.Z, self.res(v)):
            if r > 0:
                g = [gi - 2 * r * zi / self.D2 for gi, zi in zip(g, z)]
        return g

    def newton_direction(self, v):
        n = len(v)
        H = [[Fraction(2 * (i == j)) for j in range(n)] for i in range(n)]
        for z, r in zip(self.Z, self.res(v)):
            if r > 0:  # the active set of v
                for i in range(n):
                    for j in range(n):
                        H[i][j] += 2 * z[i] * z[j] / self.D2
        return _solve(H, [-g for g in self.grad(v)])


def _newton_iterates(monkeypatch, P, cap=40):
    """v_0 = 0, v_1, ... of _newton_l2svm: the v it returns with NEWTON_MAX_STEPS = 1, 2, ..."""
    its = [np.zeros(P.d0)]
    for k in range(1, cap + 1):
        monkeypatch.setattr(DM, "NEWTON_MAX_STEPS", k)
        v, _, steps = DM._newton_l2svm(P)
        if steps < k:  # converged after k - 1 steps
            break
        its.append(v)
    return its


# (X, y, Delta, what the instance exercises); found by a search over small random instances.
_BACKTRACKING = [
    ([[6.1, 0.4], [0.9, -0.1], [-2.0, 2.4], [1.6, 1.8], [1.3, -5.4]], [-1, -1, 1, -1, 1], 0.1,
     "step 4 backtracks to t = 1/128"),
    ([[4.5982, 1.1], [-0.7, 0.3], [4.8, -0.9]], [-1, -1, 1], 0.3,
     "step 2 rejects t = 1/32 although f(v + d/32) is within 1e-5 t |slope| of f(v); t = 1/64"),
]


@pytest.mark.parametrize("X, y, Delta, what", _BACKTRACKING, ids=[c[3][:12] for c in _BACKTRACKING])
def test_newton_steps_are_armijo_backtracking_by_halving(monkeypatch, X, y, Delta, what):
    """Each step of _newton_l2svm is v_{k+1} = v_k + t d_k with d_k the Newton direction of v_k's
    active set (computed here exactly), t a power of 1/2, f(v_{k+1}) <= f(v_k) + 1e-4 grad f(v_k) .
    (v_{k+1} - v_k) (sufficient decrease: in particular f decreases) and t the largest such power:
    2 t fails that test (its docstring; Nocedal & Wright Alg. 3.1).  f, grad f and d_k are evaluated
    in exact rationals at the float iterates.  On these instances the full step is rejected at least
    once, so the line search is exercised (from v = 0 it never is: every point is active there)."""
    P = make_patterns(np.array(X, dtype=float), np.array(y), rho=None, Delta=Delta)
    L = _L2SVM(P.Z().toarray(), Delta)
    its = _newton_iterates(monkeypatch, P)
    c = Fraction(1, 10**4)
    ts = []
    for a, b in zip(its, its[1:]):
        v0, v1 = [_q(x) for x in a], [_q(x) for x in b]
        d, g = L.newton_direction(v0), L.grad(v0)
        step = [y1 - y0 for y0, y1 in zip(v0, v1)]
        t_hat = _dot(step, d) / _dot(d, d)
        assert t_hat > 0, (what, float(t_hat))
        j = round(-np.log2(float(t_hat)))
        assert j >= 0, (what, float(t_hat))
        t = Fraction(1, 2**j)
        # v_{k+1} = fl(v_k + t d_k): the solve's and the addition's round-off only
        err = max(abs(s - t * di) for s, di in zip(step, d))
        assert err <= 1e-9 * t * max(abs(di) for di in d) + 4 * EPS * max(abs(x) for x in v1), (what, j, float(t_hat))
        f0 = L.f(v0)
        assert L.f(v1) - f0 <= c * _dot(g, step), (what, "sufficient decrease", j)
        if j > 0:  # the larger step 2 t was rejected
            v2 = [x + 2 * s for x, s in zip(v0, step)]
            assert L.f(v2) - f0 > c * 2 * _dot(g, step), (what, "2 t satisfies the test but was not taken", j)
        ts.append(j)
    assert len(ts) >= 2 and max(ts) >= 1, (what, ts)  # the line search backtracked (the check is not vacuous)


def test_newton_armijo_check_rejects_a_full_step_that_raises_f(monkeypatch):
    """The check above is not vacuous: an iterate taken with t = 1 where f rises (the second
    instance's step 2, v_1 + d_1) violates sufficient decrease in exact arithmetic."""
    X, y, Delta, _ = _BACKTRACKING[1]
    P = make_patterns(np.array(X, dtype=float), np.array(y), rho=None, Delta=Delta)
    L = _L2SVM(P.Z().toarray(), Delta)
    v1 = [_q(x) for x in _newton_iterates(monkeypatch, P)[1]]
    d, g = L.newton_direction(v1), L.grad(v1)
    full = [x + di for x, di in zip(v1, d)]
    assert _dot(g, d) < 0 and L.f(full) > L.f(v1)


# =============================================================================================
# _wolfe_primal: the corrals of its major cycles are Wolfe's, computed in exact rationals
# =============================================================================================


def _exact_wolfe_corrals(Y):
    """Wolfe's (1976) algorithm on the rows of Y in exact rationals (as _wolfe_primal's docstring
    states it, with exact optimality x . y_j >= x . x); returns the corral (a frozenset) at the start
    and after every major cycle, and the squared norms of the corresponding points."""
    Yq = [[_q(a) for a in row] for row in Y]
    m = len(Yq)
    K = [[_dot(Yq[i], Yq[k]) for k in range(m)] for i in range(m)]
    j0 = min(range(m), key=lambda i: (K[i][i], i))
    S, w = [j0], {j0: Fraction(1)}

    def norm2(w):
        return sum(w[i] * w[k] * K[i][k] for i in w for k in w)

    corrals, norms = [frozenset(S)], [norm2(w)]
    while True:
        Kx = [sum(w[i] * K[k][i] for i in w) for k in range(m)]
        q = norm2(w)
        j = min(range(m), key=lambda k: (Kx[k], k))
        if Kx[j] >= q:
            return corrals, norms
        S.append(j)
        w[j] = Fraction(0)
        while True:  # minor cycle
            n = len(S)
            A = [[K[S[r]][S[s]] for s in range(n)] + [Fraction(1)] for r in range(n)] + [[Fraction(1)] * n + [Fraction(0)]]
            a = dict(zip(S, _solve(A, [Fraction(0)] * n + [Fraction(1)])[:n]))
            if all(a[i] > 0 for i in S):
                w = a
                break
            theta = min(w[i] / (w[i] - a[i]) for i in S if a[i] <= 0)
            w = {i: w[i] + theta * (a[i] - w[i]) for i in S}
            S = [i for i in S if w[i] > 0]
            w = {i: w[i] for i in S}
        corrals.append(frozenset(S))
        norms.append(norm2(w))


def _float_wolfe_corrals(monkeypatch, Y):
    """The supports of _wolfe_primal's point with WOLFE_MAX_ITER = 0, 1, 2, ... (consecutive repeats
    merged: a minor cycle also counts as an iteration), up to its final answer."""
    Yn = sp.csr_matrix(np.array(Y, dtype=float))
    monkeypatch.setattr(DM, "WOLFE_MAX_ITER", 10**5)
    p_end, it_end, converged = DM._wolfe_primal(Yn)
    corrals, points = [], []
    for k in range(it_end + 1):
        monkeypatch.setattr(DM, "WOLFE_MAX_ITER", k)
        p, _, _ = DM._wolfe_primal(Yn)
        S = frozenset(np.flatnonzero(p > 0).tolist())
        if not corrals or S != corrals[-1]:
            corrals.append(S)
            points.append(Yn.T @ p)
    return corrals, points, converged


# 20 points in R^5 with positive first coordinates (separable; found by a search over small random
# instances): the fifth major cycle leaves the affine hull of {11, 12, 2, 0, 10} with two weights <= 0;
# Wolfe's step to the boundary of the simplex zeroes only the weight of 12 and 0 and keeps 2 (weight 0.0024).
_WOLFE_Y = [[1.2, -0.6, -1.5, 0.6, -3.0], [2.3, 0.7, -0.1, -1.3, 2.4], [0.9, -1.4, 1.3, -2.5, -5.1],
            [1.7, -0.1, 2.1, 0.9, 1.8], [6.2, 0.9, -1.1, -0.7, -1.7], [3.4, -0.3, 0.1, 3.3, -2.4],
            [4.3, -0.8, 1.1, 0.1, -2.7], [3.9, -1.0, 0.2, -0.4, 1.3], [2.3, -0.0, -2.8, 1.5, 3.3],
            [2.4, 1.3, 0.0, 0.3, 7.3], [1.5, 1.1, -0.2, 0.6, -0.1], [1.2, -1.0, -0.1, -0.7, 0.0],
            [1.9, 1.3, -0.1, 2.4, 3.3], [3.9, -0.6, 0.2, 0.6, -1.9], [3.0, 0.8, -3.7, -0.5, -0.8],
            [1.8, -0.1, -1.7, 0.8, 0.2], [3.1, 1.5, -0.7, 0.1, 2.9], [2.1, -1.8, 0.6, 1.6, -2.1],
            [2.7, 0.9, -2.2, 0.5, 0.9], [2.5, -0.0, -2.9, 1.9, -0.7]]  # fmt: skip


def test_wolfe_primal_major_cycles_are_wolfes(monkeypatch):
    """The corrals of _wolfe_primal after each major cycle are those of Wolfe's algorithm run in exact
    rationals (its docstring), the norms of its points decrease strictly, and the last point is the
    exact min-norm point of conv{rows} to round-off.  The instance has a minor cycle with two
    negative affine weights, of which Wolfe's boundary step drops only one."""
    corrals, points, converged = _float_wolfe_corrals(monkeypatch, _WOLFE_Y)
    exact, norms = _exact_wolfe_corrals(_WOLFE_Y)
    assert converged and corrals == exact, (corrals, exact)
    assert all(a > b for a, b in zip(norms, norms[1:]))
    assert any(len(b) < len(a) + 1 for a, b in zip(exact, exact[1:]))  # some minor cycle dropped a point
    for x, n2 in zip(points, norms):
        assert abs(float(x @ x) - float(n2)) <= 1e-12 * float(n2)


def test_exact_wolfe_reference_is_not_vacuous():
    """The exact reference distinguishes corrals: on the segment [(3, -1), (-1, 3)] plus (2, 2) it ends
    at {0, 1} (u* = (1, 1)), not at a single point."""
    corrals, norms = _exact_wolfe_corrals([[3, -1], [-1, 3], [2, 2]])
    assert corrals[0] == {2} and corrals[-1] == {0, 1} and norms[-1] == 2


# =============================================================================================
# margin_from_data: "polished at 40 digits" exactly when the polish improved a bound (DataMargin.method)
# =============================================================================================


def test_method_says_polished_when_the_polish_improves_only_the_upper_bound(monkeypatch):
    """y_1 = (3, -1), y_2 = (-1, 3), y_3 = (2, 2): u* = (1, 1) = (y_1 + y_2) / 2, gamma = sqrt 2.  A float
    Wolfe stalled at p = e_3 (simulated) gives u = (2, 2) = 2 u*: its lower bound is already the
    polished one (u and u* differ by a power of 2, so every rounding of certified_lower is the same),
    its upper bound ||y_3|| = 2 sqrt 2 is not.  The polish improves the upper bound only: the text
    must say so, and the witnesses must be the polished beta and the (tied) float u."""
    monkeypatch.setattr(DM, "_wolfe_primal", lambda Yn: (np.array([0.0, 0.0, 1.0]), 1, False))
    X, y = np.array([[3.0, -1.0], [-1.0, 3.0], [2.0, 2.0]]), np.array([1, 1, 1])
    P = make_patterns(X, y, rho=None)
    lo_float = DM.certified_lower(P, np.array([2.0, 2.0]))
    assert lo_float == DM.certified_lower(P, np.array([1.0, 1.0]))  # the tie of the lower bound
    M = DM.margin_from_data(X, y)
    assert M.upper < DM.certified_upper(P, np.array([0.0, 0.0, 1.0])) and M.lower == lo_float
    assert M.lower <= np.sqrt(2) <= M.upper and list(M.beta) == [0.5, 0.5, 0.0] and list(M.u) == [2.0, 2.0]
    assert "; polished at 40 digits" in M.method


def test_method_does_not_say_polished_when_the_polish_ties_both_bounds(monkeypatch):
    """y_1 = (M, 2 - M), y_2 = (2 - M, M), M = 2^20: u* = (1, 1) = (y_1 + y_2) / 2 exactly in float64, but
    u* . y_k = M + (2 - M) cancels, so the certified bounds are ~1e-9 apart and the polish runs.  It
    returns the same witnesses (the exact optimum), so it improves neither bound: no "polished"."""
    calls = []
    real = DM._polish_mp

    def spy(Yn, p):
        out = real(Yn, p)
        calls.append((p.copy(), out))
        return out

    monkeypatch.setattr(DM, "_polish_mp", spy)
    Mv = 2.0**20
    M = DM.margin_from_data(np.array([[Mv, 2 - Mv], [2 - Mv, Mv]]), np.array([1, 1]))
    assert len(calls) == 1  # the polish ran
    p, (p2, u2) = calls[0]
    assert list(p) == list(p2) == [0.5, 0.5] and list(u2) == [1.0, 1.0] and list(M.u) == [1.0, 1.0]
    assert M.lower <= np.sqrt(2) <= M.upper and M.upper - M.lower > 1e-12 * M.upper
    assert "polished" not in M.method
