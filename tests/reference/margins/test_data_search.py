"""Tests of reference/margins/data_search.py: the searches that only propose witnesses for the
data-set margins -- semismooth Newton on the L2-SVM (Armijo backtracking), Wolfe's min-norm point in
primal form (the corrals of Wolfe's algorithm), its mpmath polish, and the Gordan LP."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp

from reference.margins import data_search
from reference.patterns import make_patterns
from tests.support.margin import _dot, _exact_wolfe_corrals, _q, _solve


# A = (1, 1), B = (1, -1), C = (1, -10), E = (1, -20), D_j = (2, j) for j = 1..7, E' = (1, -50).
# Every point has x >= 1 and A, B give (1, 0) = (A + B) / 2: the min-norm point is u* = (1, 0),
# with C, E, E' on its boundary (margin 1 = |u*|^2) and the D_j inside (margin 2).
_POLISH_Y = np.array([[1, 1], [1, -1], [1, -10], [1, -20]] + [[2, j] for j in range(1, 8)] + [[1, -50]], dtype=float)


_POLISH_START = 2  # the float "support" handed to the polish: p = e_C, u = C


def _spy_rounds(monkeypatch):
    """Record, for every mpmath Wolfe run of _polish_mp (one per round), the candidates' squared norms."""
    rounds = []
    real = data_search.wolfe

    def spy(K, ar, max_iter, start=None):
        rounds.append(sorted(int(round(float(K[i, i]))) for i in range(K.shape[0])))
        return real(K, ar, max_iter, start=start)

    monkeypatch.setattr(data_search, "wolfe", spy)
    return rounds


def _spy_wolfe(monkeypatch):
    calls = []
    real = data_search.wolfe

    def spy(K, ar, max_iter, start=None):
        calls.append(start)
        return real(K, ar, max_iter, start=start)

    monkeypatch.setattr(data_search, "wolfe", spy)
    return calls


EPS = 2.0**-52


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
        monkeypatch.setattr(data_search, "NEWTON_MAX_STEPS", k)
        v, _, steps = data_search._newton_l2svm(P)
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


def _float_wolfe_corrals(monkeypatch, Y):
    """The supports of _wolfe_primal's point with WOLFE_MAX_ITER = 0, 1, 2, ... (consecutive repeats
    merged: a minor cycle also counts as an iteration), up to its final answer."""
    Yn = sp.csr_matrix(np.array(Y, dtype=float))
    monkeypatch.setattr(data_search, "WOLFE_MAX_ITER", 10**5)
    p_end, it_end, converged = data_search._wolfe_primal(Yn)
    corrals, points = [], []
    for k in range(it_end + 1):
        monkeypatch.setattr(data_search, "WOLFE_MAX_ITER", k)
        p, _, _ = data_search._wolfe_primal(Yn)
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


@pytest.mark.parametrize(
    "Y, start, u_star",
    [
        # the instance above: u* = (1, 0)
        (_POLISH_Y, _POLISH_START, (Fraction(1), Fraction(0))),
        # 12 integer points; the min-norm point lies on the segment from (1, 4) to (4, -6):
        # (1 + 3t, 4 - 10t) with 3 (1 + 3t) = 10 (4 - 10t), t = 37/109: u* = (220, 66) / 109, and
        # every point has margin >= |u*|^2 = 484/109 (checked in the test).  A candidate set that
        # forgets the previous round's support cycles here between two wrong corrals.
        (np.array([[4, -6], [6, -6], [4, -1], [3, 6], [4, -3], [4, -2], [6, -3], [4, -6], [4, -2], [7, 6], [1, 4], [7, 4]],
                  dtype=float), 8, (Fraction(220, 109), Fraction(66, 109))),
    ],
)
def test_polish_enlarges_the_candidates_until_the_min_norm_point(Y, start, u_star):
    """_polish_mp returns the min-norm point of conv{rows} even when the first candidate set (the
    float support and the 2 (d0 + 1) smallest margins) misses its support: the points that violate
    optimality (margin < |u|^2) are added and Wolfe runs again.  The answer is checked against the
    closed form, exactly: every margin y_k . u* >= |u*|^2 (so u* is the min-norm point)."""
    Yq = [[Fraction(int(v)) for v in row] for row in Y]
    norm2 = u_star[0] ** 2 + u_star[1] ** 2
    assert min(r[0] * u_star[0] + r[1] * u_star[1] for r in Yq) == norm2  # u* is optimal, exactly
    p0 = np.zeros(len(Y))
    p0[start] = 1.0
    p, u = data_search._polish_mp(sp.csr_matrix(Y), p0)
    want = np.array([float(v) for v in u_star])
    assert np.all(np.abs(u - want) <= 1e-15 * np.abs(want).max()), u
    assert np.all(p >= 0) and abs(p.sum() - 1) <= 1e-15 * len(p)
    assert np.all(np.abs(Y.T @ p - u) <= 1e-14 * np.abs(want).max())


def test_polish_candidates_and_rounds(monkeypatch):
    """The rounds of _polish_mp on the instance above, by hand.

    Round 1: candidates = the support of p (C, |C|^2 = 101) and the 6 smallest margins at u = C, the
    D_j with j = 2..7 (margins 2 - 10 j; |D_j|^2 = 4 + j^2).  Their min-norm point is on the segment
    C D_7, u_1 = (459, -27) / 290, where A and B violate (margins 432/290, 486/290 < |u_1|^2 = 729/290)
    and E, E', D_1 do not.  Round 2 adds them and ends at u* = (1, 0).  There E and E' lie ON the
    boundary (margin 1 = |u*|^2): they do not violate optimality, so there is no third round."""
    rounds = _spy_rounds(monkeypatch)
    p0 = np.zeros(len(_POLISH_Y))
    p0[_POLISH_START] = 1.0
    p, u = data_search._polish_mp(sp.csr_matrix(_POLISH_Y), p0)
    assert rounds[0] == sorted([101] + [4 + j * j for j in range(2, 8)])
    assert len(rounds) == 2
    assert rounds[1][:2] == [2, 2]  # A and B (|A|^2 = |B|^2 = 2) are candidates now
    assert abs(u[0] - 1) <= 1e-15 and abs(u[1]) <= 1e-15


@pytest.mark.parametrize(
    "x, labels, Delta, v_star, steps",
    [
        # z = (1, -1) (x = 1 twice, labels +1, -1): the gradient at v = 0 is -2 Delta^-2 (1 - 1) = 0, so
        # v = 0 is the optimum; the first step is 0, keeps the active set {1, 2}: one step.
        ([1.0, 1.0], [1, -1], 0.5, Fraction(0), 1),
        # z = (1, 1), Delta^2 = 1/4: the first step solves the quadratic of the active set {1, 2}:
        # v = sum z / (Delta^2 + sum z^2) = 2 / (9/4) = 8/9 < 1, so both stay active: one step.
        ([1.0, -1.0], [1, -1], 0.5, Fraction(8, 9), 1),
        # z = (3, 1, 4, 2), Delta = 2: step 1 (all active): H = 2 + 30/2 = 17, g = -10/2: v = 5/17, active
        # {z = 1, 2, 3}; step 2: H = 2 + 14/2 = 9, g = 9 v - 3: v = 1/3, where 1 - 3 v = 0: active {1, 2};
        # step 3: H = 2 + 5/2, g = 4.5 v - 1.5 = 0 at v = 1/3: a full zero step keeping the active set.
        ([3.0, 1.0, 4.0, 2.0], [1, 1, 1, 1], 2.0, Fraction(1, 3), 3),
    ],
)
def test_newton_steps_and_minimizer_by_hand(x, labels, Delta, v_star, steps):
    """_newton_l2svm minimizes ||v||^2 + Delta^-2 sum_k max(0, 1 - v z_k)^2 and stops after the first full
    step that keeps the active set (the minimizer of that piece's quadratic); s_k = max(0, 1 - v z_k) / Delta."""
    P = make_patterns(np.array(x)[:, None], np.array(labels), rho=None, Delta=Delta)
    v, s, n = data_search._newton_l2svm(P)
    assert n == steps
    assert abs(v[0] - float(v_star)) <= 1e-15
    z = np.array(x) * np.array(labels)
    want = [float(max(Fraction(0), 1 - v_star * Fraction(zk)) / Fraction(Delta)) for zk in z]
    np.testing.assert_allclose(s, want, rtol=0, atol=1e-15)


def test_wolfe_primal_starts_at_the_shortest_point():
    """Wolfe starts at the shortest point y_j0, |y_j0| = min_k |y_k|.  conv{(3, 0), (1, 0)} has min-norm
    point (1, 0), the shortest point itself: the first optimality test passes, one cycle, p = e_2."""
    p, it, converged = data_search._wolfe_primal(sp.csr_matrix(np.array([[3.0, 0.0], [1.0, 0.0]])))
    assert (it, converged) == (1, True)
    np.testing.assert_array_equal(p, [0.0, 1.0])


def test_wolfe_primal_cycle_budget_and_convergence_flag(monkeypatch):
    """conv{(1, 1), (1, -1)}: cycle 1 starts at y_1 (first of the two shortest), adds y_2 and moves to the
    affine minimizer (1/2, 1/2); cycle 2 finds (1, 0) optimal.  With a budget of 1 cycle the answer is
    (1/2, 1/2) with converged=False (the optimality test never passed); with 2 cycles converged=True."""
    Y = sp.csr_matrix(np.array([[1.0, 1.0], [1.0, -1.0]]))
    monkeypatch.setattr(data_search, "WOLFE_MAX_ITER", 1)
    p, it, converged = data_search._wolfe_primal(Y)
    assert (it, converged) == (1, False)
    np.testing.assert_array_equal(p, [0.5, 0.5])
    monkeypatch.setattr(data_search, "WOLFE_MAX_ITER", 2)
    p, it, converged = data_search._wolfe_primal(Y)
    assert (it, converged) == (2, True)
    np.testing.assert_array_equal(p, [0.5, 0.5])


def test_wolfe_primal_reaches_the_origin_exactly():
    """conv{(1, 0), (-1, 0)} contains 0: Wolfe moves to (y_1 + y_2) / 2 = 0 exactly, where
    q - min_i (K p)_i = 0 - 0 <= WOLFE_RTOL q = 0: converged (the test is <=, and holds with equality)."""
    p, it, converged = data_search._wolfe_primal(sp.csr_matrix(np.array([[1.0, 0.0], [-1.0, 0.0]])))
    assert converged is True and it == 2
    np.testing.assert_array_equal(p, [0.5, 0.5])


@pytest.mark.parametrize("scale", [2.0**-14, 1.0, 2.0**14])
def test_wolfe_primal_is_scale_invariant(scale):
    """The optimality test is relative (q - min (K p)_i <= WOLFE_RTOL q), so scaling the points by a power
    of two changes nothing: conv{(1, 1), (1, -1)} * scale has weights (1/2, 1/2), 2 cycles, converged."""
    p, it, converged = data_search._wolfe_primal(sp.csr_matrix(scale * np.array([[1.0, 1.0], [1.0, -1.0]])))
    assert (it, converged) == (2, True)
    np.testing.assert_array_equal(p, [0.5, 0.5])


def test_gordan_certificate_keeps_only_positive_weights(monkeypatch):
    """The certificate does not trust the LP: an LP answer that is not a vertex (here p = (1/4, 1/4, 1/2) on
    z = 1, 1, -1, as an interior-point method could return) still gives a certificate with c_k > 0 only:
    the duplicate gets c = 0 in the exact solve and is left out of the support."""
    import scipy.optimize
    from types import SimpleNamespace

    monkeypatch.setattr(scipy.optimize, "linprog", lambda *a, **k: SimpleNamespace(status=0, x=np.array([0.25, 0.25, 0.5])))
    P = make_patterns(np.array([[1.0], [1.0], [1.0]]), np.array([1, 1, -1]), rho=None)
    support, c = data_search.gordan_certificate(P)
    assert all(ck > 0 for ck in c) and sum(c) == 1
    assert support == (0, 2) and c == (Fraction(1, 2), Fraction(1, 2))


def test_wolfe_primal_lstsq_fallback_finds_the_min_norm_point(monkeypatch):
    """When np.linalg.solve reports a singular system, the least-squares fallback must give the same
    affine minimizer: conv{(1, 1), (1, -1), (3, 0)} has min-norm point (1, 0) = (y_0 + y_1) / 2."""
    def singular(*args, **kwargs):
        raise np.linalg.LinAlgError("forced")

    monkeypatch.setattr(np.linalg, "solve", singular)
    Yn = sp.csr_matrix(np.array([[1.0, 1.0], [1.0, -1.0], [3.0, 0.0]]))
    p, it, converged = data_search._wolfe_primal(Yn)
    assert converged
    np.testing.assert_allclose(p, [0.5, 0.5, 0.0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(Yn.T @ p, [1.0, 0.0], rtol=0, atol=1e-15)


def test_polish_warm_starts_from_the_float_support(monkeypatch):
    """The float64 support {(1, 1), (1, -1)} has affine minimizer (1/2, 1/2) > 0: the mpmath Wolfe
    starts there (as search._mnp), and the result is the min-norm point (1, 0)."""
    calls = _spy_wolfe(monkeypatch)
    Yn = sp.csr_matrix(np.array([[1.0, 1.0], [1.0, -1.0], [3.0, 0.0]]))
    p, u = data_search._polish_mp(Yn, np.array([0.5, 0.5, 0.0]))
    assert calls and calls[0] is not None
    start = [float(v) for v in calls[0]]
    assert sorted(start) == [0.0, 0.5, 0.5]
    np.testing.assert_allclose(p, [0.5, 0.5, 0.0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(u, [1.0, 0.0], rtol=0, atol=1e-15)


def test_polish_without_a_positive_warm_start():
    """A float support {(1, 0), (2, 2)} whose affine minimizer has a negative weight (the line through
    them comes closest to 0 at (4/5, -2/5), outside the segment): Wolfe starts cold, and finds the
    min-norm point (1/2, 1/2) of conv{(1, 0), (0, 1), (2, 2)}."""
    Yn = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]))
    p, u = data_search._polish_mp(Yn, np.array([0.5, 0.0, 0.5]))
    np.testing.assert_allclose(p, [0.5, 0.5, 0.0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(u, [0.5, 0.5], rtol=0, atol=1e-15)


def test_wolfe_primal_drops_a_zero_weight_from_the_corral():
    """Wolfe's corral holds positive weights only: an affine weight exactly 0 is a minor cycle.

    y = (4, -2, 3), (4, 0, -3), (4, 0, 3), (4, -3, 0).  Trace: start at the first shortest point
    y_1 (|y|^2 = 25); major cycle 1 adds y_0 (y_1 . y_0 = 7 < 25, first of the ties); the segment's
    nearest point is (4, -0.9, -0.3), major cycle 2 adds y_2 (15.1 < 16.9); the plane x = 4 of
    {y_1, y_0, y_2} is nearest 0 at (4, 0, 0) = (y_1 + y_2) / 2, the weight of y_0 is exactly 0:
    minor cycle 3 drops it; major cycle 4 finds y . (4, 0, 0) = 16 = |x|^2 for every y: converged.
    """
    Y = np.array([[4.0, -2.0, 3.0], [4.0, 0.0, -3.0], [4.0, 0.0, 3.0], [4.0, -3.0, 0.0]])
    p, it, converged = data_search._wolfe_primal(sp.csr_matrix(Y))
    assert converged
    np.testing.assert_array_equal(p, [0.0, 0.5, 0.5, 0.0])
    assert it == 4  # 3 major cycles + 1 minor cycle


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


def test_polish_breaks_margin_ties_by_the_lower_index(monkeypatch):
    """Candidates are the support and the 2 (d0 + 1) smallest margins, ties to the lower index (a
    stable sort: numpy's default sort orders ties differently on different CPUs).  300 points
    (1 or 2, i / 1024); u = (1, 0) gives margin 1 to every 7th point: the six candidates are 0, 7, ..., 35."""
    seen = []
    real = data_search.wolfe

    def spy(K, ar, max_iter, start=None):
        seen.append(sorted(int(mpmath.nint((K[i, i] - (1 if K[i, i] < 4 else 4)) * 1024**2)) for i in range(K.shape[0])))
        return real(K, ar, max_iter, start=start)

    monkeypatch.setattr(data_search, "wolfe", spy)
    i = np.arange(300)
    Y = np.column_stack([np.where(i % 7 == 0, 1.0, 2.0), i / 1024])
    p0 = np.zeros(300)
    p0[0] = 1.0  # u = (1, 0): the min-norm point already
    p, u = data_search._polish_mp(sp.csr_matrix(Y), p0)
    assert seen[0] == [k * k for k in (0, 7, 14, 21, 28, 35)]  # K_ii = x_i^2 + (i / 1024)^2
    np.testing.assert_array_equal(u, [1.0, 0.0])
    np.testing.assert_array_equal(p, p0)
