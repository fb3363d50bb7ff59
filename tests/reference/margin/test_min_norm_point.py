"""Tests of reference/margin/test_min_norm_point.py."""

from __future__ import annotations

import importlib
import itertools
import math
import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import reference
from reference.arithmetic import Arithmetic, arithmetic
from reference.exact import exact_det, rational
from reference.margin import _affine_distance2_exact, lower_bound, margin, min_norm_point, upper_bound
from tests.support.margin import M, TRI, _exact_wolfe_corrals, _gram, _obj, gram_of, margin_module, rm


margin_module = importlib.import_module("reference.margin")  # `reference.margin` is the function


def _mp_solve(A, b, dps=50):
    ar = Arithmetic(dps)
    with ar.context():
        return margin_module._solve_mp(ar.array(A), ar.array(b), ar), ar


def _pinned_separable(seed=1, n=60, d=3, lo=10_000):
    """Integer data, exactly separable by y_k (w.x_k - c) >= 1/2 (bias rho = 1), with points
    pinned at functional distance 1/2 on both sides: margin ~1e-6 against R ~ 3e5, below Wolfe's
    round-off tolerance 64 n u max_i K_ii (the wdbc trap without the data set)."""
    rng = np.random.default_rng(seed)
    w = np.r_[1, rng.integers(1, 10, size=d - 1)].astype(float)
    X = rng.integers(lo, 5 * lo, size=(n, d)).astype(float)
    c = float(np.round(np.median(X @ w))) + 0.5
    for k in range(10):
        X[k, 0] += c + (0.5 if k % 2 else -0.5) - X[k] @ w
    keep = (np.abs(X @ w - c) >= 0.5) & (X[:, 0] > 0)
    X = X[keep]
    return X, np.where(X @ w - c > 0, 1, -1), w, c


def _brute_min_norm(Z):
    """Min-norm point of conv(rows of Z) by enumerating supports (independent of Wolfe)."""
    n, d = Z.shape
    best = None
    import itertools

    for k in range(1, min(n, d + 1) + 1):
        for S in itertools.combinations(range(n), k):
            A = Z[list(S)]
            M = np.ones((k + 1, k + 1))
            M[:k, :k] = A @ A.T
            M[k, k] = 0
            rhs = np.zeros(k + 1)
            rhs[k] = 1
            try:
                w = np.linalg.solve(M, rhs)[:k]
            except np.linalg.LinAlgError:
                continue
            if np.all(w > -1e-12):
                x = w @ A
                q = x @ x
                if np.all(Z @ x >= q - 1e-9 * max(1, q)) and (best is None or q < best[0]):
                    best = (q, S)
    return best


def _triangle_gram():
    Z = np.array([[1.0, 0.0], [0.0, 1.0], [-0.25, -0.5]])
    return Z @ Z.T  # z1 + 2 z2 + 4 z3 = 0: min-norm point (1/7, 2/7, 4/7), norm 0


def _feasible_gram(n=30, d=6, seed=4):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[:, 0] = np.abs(X[:, 0]) + 0.3  # every point on one side of e_1: separable, margin > 0
    return X @ X.T


def _system(cond, m, seed, ar):
    rng = np.random.default_rng(seed)
    Q1, _ = np.linalg.qr(rng.standard_normal((m, m)))
    Q2, _ = np.linalg.qr(rng.standard_normal((m, m)))
    Af = (Q1 * np.logspace(0, -np.log10(cond), m)) @ Q2.T
    with ar.context():
        A = ar.array(Af)
        x_true = ar.array(rng.standard_normal(m))
        return A, A @ x_true, x_true


def _exact_solution(A, b):
    """The solution of A x = b over Q (A, b as stored; Cramer's rule with exact determinants)."""
    det = exact_det(A)
    cols = []
    for i in range(A.shape[0]):
        Ai = A.copy()
        Ai[:, i] = b
        cols.append(exact_det(Ai) / det)
    return cols


F64 = Arithmetic(None)


u = 2.0**-53


def _stall_instance(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 9))
    d = int(rng.integers(2, 5))
    Z = rng.standard_normal((n, d)) + rng.choice([0, 1, 5]) * rng.standard_normal(d)
    for _ in range(int(rng.integers(0, 4))):  # near duplicates: an ill-conditioned KKT system
        i, j = rng.choice(n, 2, replace=False)
        Z[i] = Z[j] + 10.0 ** -rng.integers(3, 9) * rng.standard_normal(d)
    return gram_of(Z)


M = sys.modules["reference.margin"]  # the package re-exports the function `margin` under the module's name


def _quarter_system(D, X):
    """A x = b with A = [[1, 1, 0], [1, 1 + 5 2^-53, 0], [0, 0, 1]], x_true = (1, -1, X), at D digits.

    float64 rounds A_22 = 1 + 5 2^-53 (a tie) to even, 1 + 2^-51 = 1 + h, so with E = A - fl(A) =
    2^-53 e_22 the float64 solve maps the error e of the 2x2 block to (I - fl(A)^-1 A) e =
    -fl(A)^-1 E e, whose only nonzero column is (E_22 / h) (1, -1) = (1, -1) / 4: on e = t (1, -1) the
    error is multiplied by -1/4 exactly.  Every number involved is dyadic and float64 computes
    every step exactly: the first solve gives (5/4, -5/4, X), the error (1, -1) / 4; the residual
    b - A x is (0, +-(5/4) 2^-53 4^-k, 0), correction k has max|dx| = (5/16) 4^-k, and x_3 = X stays
    exact, so for X > 2 the relative correction of step k is exactly (5/16) 4^-k / X (rounded once
    at the working precision) -- and each is a quarter of the one before."""
    ar = Arithmetic(D)
    with ar.context():
        one, zero = mpmath.mpf(1), mpmath.mpf(0)
        A = np.array([[one, one, zero], [one, one + 5 * mpmath.mpf(2) ** -53, zero], [zero, zero, one]], dtype=object)
        x_true = [one, -one, mpmath.mpf(X)]
        b = np.array([mpmath.fsum(A[i, j] * x_true[j] for j in range(3)) for i in range(3)], dtype=object)
    assert float(A[1, 1]) == 1 + 2.0**-51 and b[0] == 0 and b[1] == -5 * mpmath.mpf(2) ** -53 and b[2] == X
    return ar, A, b, x_true


def _expected_path(D, X):
    """(float64 solves, eliminated?) by the rule of _solve_mp's docstring: stop after the first correction k
    with max|dx| / max|x| = (5/16) 4^-k / X <= 10 eps (eps = 10^-D; both rounded at the working precision,
    as computed); every correction is a quarter of the previous one, which still contracts; at most 60."""
    with mpmath.workdps(D):
        target = mpmath.mpf(10) ** (-D) * 10
        for k in range(60):
            if mpmath.mpf(5) / 16 * mpmath.mpf(4) ** (-k) / mpmath.mpf(X) <= target:
                return 1 + (k + 1), False
    return 1 + 60, True


def test_solve_mp_refines_to_working_precision():
    """A well-conditioned system with an exact rational solution: refined to ~10^-50, far below
    the float64 first solve."""
    with mpmath.workdps(50):
        A = np.array([[mpmath.mpf(4), mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(3)]], dtype=object)
        b = np.array([mpmath.mpf(1), mpmath.mpf(2)], dtype=object)  # x = (1/11, 7/11)
        x, _ = _mp_solve(A, b)
        assert abs(x[0] - mpmath.mpf(1) / 11) < mpmath.mpf(10) ** -48
        assert abs(x[1] - mpmath.mpf(7) / 11) < mpmath.mpf(10) ** -48


def test_solve_mp_falls_back_to_exact_elimination_with_pivoting():
    """The float64 rounding of A is singular (rows 2 and 3 agree, A[0,0] rounds to 1e-30 ~ 0 and
    needs a pivot); Gaussian elimination at 80 digits still recovers x = (1, 2, 3)."""
    with mpmath.workdps(80):
        d = mpmath.mpf(10) ** -30
        one = mpmath.mpf(1)
        A = np.array([[d, one, 0 * one], [one, one, one], [one, one, one + d]], dtype=object)
        x_true = np.array([one, 2 * one, 3 * one], dtype=object)
        b = A @ x_true
        x, _ = _mp_solve(A, b, dps=80)
        assert all(abs(x[i] - x_true[i]) < mpmath.mpf(10) ** -40 for i in range(3))
        assert margin_module._gauss_mp(A, b).shape == (3,)
        with pytest.raises(ZeroDivisionError, match="singular KKT matrix"):
            margin_module._gauss_mp(np.array([[one, one], [one, one]], dtype=object), np.array([one, one]))


def test_solve_mp_singular_system_gives_least_squares_solution():
    with mpmath.workdps(50):
        one = mpmath.mpf(1)
        A = np.array([[one, one], [one, one]], dtype=object)
        x, _ = _mp_solve(A, np.array([2 * one, 2 * one], dtype=object))
        assert [float(v) for v in x] == pytest.approx([1.0, 1.0], abs=1e-12)  # min-norm solution
        assert x.dtype == object and x.shape == (2,)


def test_solve_mp_well_conditioned_needs_no_elimination(monkeypatch):
    """Iterative refinement alone reaches the working precision on a well-conditioned system,
    also for a tiny solution (the stopping test is relative to the size of x)."""

    def no_elimination(A, b):
        raise AssertionError("exact elimination should not be needed")

    monkeypatch.setattr(margin_module, "_gauss_mp", no_elimination)
    with mpmath.workdps(50):
        A = np.array([[mpmath.mpf(4), mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(3)]], dtype=object)
        for scale in (mpmath.mpf(1), mpmath.mpf(10) ** -20):
            b = np.array([scale, 2 * scale], dtype=object)  # x = scale * (1/11, 7/11)
            x, _ = _mp_solve(A, b)
            assert abs(x[0] / scale - mpmath.mpf(1) / 11) < mpmath.mpf(10) ** -46
            assert abs(x[1] / scale - mpmath.mpf(7) / 11) < mpmath.mpf(10) ** -46


def test_min_norm_point_feasible_and_infeasible():
    Z = np.array([[0.6, 0.8], [-0.8, -0.6]])  # worked example, reflected
    p, S = min_norm_point(gram_of(Z))
    assert S == (0, 1) and np.allclose(p, [0.5, 0.5])
    res = min_norm_point(gram_of(Z))
    assert res.converged and res.norm == pytest.approx(math.sqrt(2) / 10, rel=1e-14)
    sq = min_norm_point(gram_of([[1, 1], [1, -1], [-1, 1], [-1, -1.0]]))
    assert sq.norm <= 1e-7 and abs(sq.p.sum() - 1) <= 1e-12 and np.all(sq.p >= 0)
    mp = min_norm_point(gram_of(10 * Z), precision=30)  # integer Gram: exact input
    with mpmath.workdps(30):
        assert abs(mp.norm - mpmath.sqrt(2)) <= mpmath.mpf("1e-28")
    assert mp.precision == "mpmath, 30 decimal digits"


def test_tiny_positive_margin_below_the_zero_tolerance_is_not_called_infeasible():
    X, y, w, c = _pinned_separable()
    # separable, checked exactly: every entry is an integer (or c a half-integer)
    wi, c2 = [int(v) for v in w], int(2 * c)
    assert all(int(yk) * (2 * sum(int(a) * b for a, b in zip(x, wi)) - c2) >= 1 for x, yk in zip(X, y))
    K = reference.signed_gram(X, y, rho=1.0)
    mnp = min_norm_point(K)
    assert mnp.norm**2 <= margin_module._zero_tol(K)  # the trap: ||p*||_K^2 below the float tolerance
    assert np.linalg.matrix_rank(K) == margin_module._span_coordinates(K)[0].shape[1] == 4  # no rank cut
    for of in ("span", "matrix"):
        m = margin(K, of=of)
        assert m.feasible is not False and m.upper > 0, (of, m.method)
        assert m.feasible is True or "undecided" in m.method


def test_wolfe_trace_on_triangle():
    # Hand trace: major 1 adds z1 (affine minimizer inside); major 2 adds z2, the affine
    # minimizer of all three (weights (-1/4, 3/4, 1/2)) leaves the simplex -> one minor
    # step (theta = 3/4) drops z0, then the affine minimizer of {z1, z2} is inside;
    # major 3 passes the optimality test.  Major + minor cycles = 4.
    r = min_norm_point(TRI)
    assert r.converged is True
    assert r.iterations == 4
    assert r.support == (1, 2)
    np.testing.assert_allclose(np.asarray(r.p, float), [0, 21 / 34, 13 / 34], atol=1e-14)
    assert r.norm == pytest.approx(1 / math.sqrt(34), rel=1e-12)


def test_wolfe_one_major_step_is_polished_and_not_converged():
    r = min_norm_point(TRI, max_iter=1)
    assert r.iterations == 1
    assert r.converged is False
    np.testing.assert_allclose(np.asarray(r.p, float), [0.75, 0.25, 0.0], atol=1e-15)
    assert r.support == (0, 1)


def test_wolfe_two_cycles_stop_before_the_minor_step():
    # max_iter=2: major 1 (it=1) then major 2 adds z2 (it=2); no budget for the minor cycle,
    # and the affine minimizer of {z0, z1, z2} is outside the simplex, so no polish.
    r = min_norm_point(TRI, max_iter=2)
    assert r.iterations == 2 and r.converged is False
    np.testing.assert_allclose(np.asarray(r.p, float), [0.75, 0.25, 0.0], atol=1e-15)
    assert r.support == (0, 1)


def test_wolfe_norm_is_monotone_in_the_budget():
    # Wolfe's iterates have non-increasing norm (each minor step moves towards the affine
    # minimizer, a convex decrease), so ||p(max_iter = k)||_K is non-increasing in k.
    for seed in range(25):
        rng = np.random.default_rng(seed)
        d, n = 2 + seed % 4, 5 + seed % 9
        Z = rng.standard_normal((n, d)) + (2.0 if seed % 2 else 0.5) * rng.standard_normal(d)
        K = gram_of(Z)
        prev = math.inf
        for mi in range(1, 10):
            nr = float(min_norm_point(K, max_iter=mi).norm)
            assert nr <= prev * (1 + 1e-12), (seed, mi)
            prev = nr


def test_wolfe_starts_at_the_shortest_point():
    # the shortest point z2 = (1, 0) is already the min-norm point: K p = (3, 2, 1) >= 1
    K = gram_of([[3.0, -1.0], [2.0, 5.0], [1.0, 0.0]])
    r = min_norm_point(K)
    assert r.iterations == 1 and r.converged is True
    assert r.support == (2,)


@pytest.mark.parametrize("s", [1e-5, 1e-8])
def test_wolfe_tolerance_scales_with_the_data(s):
    K = TRI * s * s
    true = s / math.sqrt(34)
    r = min_norm_point(K)
    assert r.support == (1, 2)
    assert r.norm == pytest.approx(true, rel=1e-9)
    m = margin(K)
    assert m.feasible is True
    assert m.value == pytest.approx(true, rel=1e-9)
    assert m.lower <= true <= m.upper


@pytest.mark.parametrize("seed", range(12))
def test_wolfe_matches_brute_force(seed):
    rng = np.random.default_rng(1000 + seed)
    d = 2 + seed % 3
    n = 6 + seed % 4
    Z = rng.standard_normal((n, d)) + (1.5 if seed % 2 else 0.2) * rng.standard_normal(d)
    q, S = _brute_min_norm(Z)
    r = min_norm_point(gram_of(Z))
    assert r.norm**2 == pytest.approx(q, rel=1e-8, abs=1e-10)
    if q > 1e-6:
        assert r.support == S


def test_mp_wolfe_adds_point_below_float_tolerance():
    # A = (1, 1), B = (1, -1): min-norm point x* = (1, 0).  C = (1 - eps, 2) with eps = 5e-14:
    # <C, x*> = 1 - eps < ||x*||^2, so the true min-norm point lies on edge B-C (support
    # {1, 2}); float64 Wolfe stops at x* (gap 5e-14 is below its ~2e-13 tolerance).
    with mpmath.workdps(80):
        eps = mpmath.mpf("5e-14")
        Z = [[mpmath.mpf(1), mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(-1)], [1 - eps, mpmath.mpf(2)]]
        K = np.empty((3, 3), dtype=object)
        for i in range(3):
            for j in range(3):
                K[i, j] = Z[i][0] * Z[j][0] + Z[i][1] * Z[j][1]
        B, C = Z[1], Z[2]
        D = [C[0] - B[0], C[1] - B[1]]
        s = -(B[0] * D[0] + B[1] * D[1]) / (D[0] ** 2 + D[1] ** 2)
        x = [B[0] + s * D[0], B[1] + s * D[1]]
        true = mpmath.sqrt(x[0] ** 2 + x[1] ** 2)
    assert min_norm_point(K).support == (0, 1)  # float64 cannot see C
    r = min_norm_point(K, precision=50)
    assert r.support == (1, 2) and r.converged is True
    m = margin(K, precision=50)
    assert m.feasible is True and m.support == (1, 2)
    with mpmath.workdps(80):
        assert abs(r.norm - true) < mpmath.mpf(10) ** -45
        assert abs(m.value - true) < mpmath.mpf(10) ** -45
        assert m.lower <= true <= m.upper


def test_kkt_float_nonsingular_and_singular():
    ar = arithmetic(None)
    w, lam = rm._kkt(np.eye(2), ar)
    np.testing.assert_allclose(w, [0.5, 0.5], rtol=1e-14)
    assert lam == pytest.approx(0.5, rel=1e-14)  # lambda = w^T K w
    # duplicate point: singular KKT matrix -> least-squares (min-norm) solution
    w, lam = rm._kkt(np.ones((2, 2)), ar)
    np.testing.assert_allclose(w, [0.5, 0.5], rtol=1e-12)
    assert lam == pytest.approx(1.0, rel=1e-12)


def test_kkt_mp_keeps_full_precision():
    ar = arithmetic(50)
    with ar.context():
        KSS = np.array([[mpmath.mpf(1), mpmath.mpf(0)], [mpmath.mpf(0), mpmath.mpf(1) / 3]], dtype=object)
        w, lam = rm._kkt(KSS, ar)
        # w_i proportional to 1/K_ii: (1, 3)/4; lambda = 1/4
        assert abs(w[0] - mpmath.mpf(1) / 4) < mpmath.mpf(10) ** -45
        assert abs(w[1] - mpmath.mpf(3) / 4) < mpmath.mpf(10) ** -45
        assert abs(lam - mpmath.mpf(1) / 4) < mpmath.mpf(10) ** -45


def test_gauss_mp_pivots_on_a_zero_leading_entry():
    with mpmath.workdps(50):
        A = np.array([[mpmath.mpf(0), mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(0)]], dtype=object)
        b = np.array([mpmath.mpf(1), mpmath.mpf(2)], dtype=object)
        x = M._gauss_mp(A, b)
        assert x[0] == 2 and x[1] == 1


def test_gauss_mp_pivoting_keeps_the_working_precision():
    """A tiny leading pivot (1e-40): without pivoting the elimination loses ~40 of 50 digits."""
    with mpmath.workdps(50):
        e = mpmath.mpf("1e-40")
        A = np.array([[e, mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(1)]], dtype=object)
        b = np.array([mpmath.mpf(1), mpmath.mpf(2)], dtype=object)
        x = M._gauss_mp(A, b)
        # exact: x0 = 1/(1-e), x1 = (1-2e)/(1-e)
        assert abs(x[0] - 1 / (1 - e)) < mpmath.mpf("1e-45")
        assert abs(x[1] - (1 - 2 * e) / (1 - e)) < mpmath.mpf("1e-45")


def test_precision_min_norm_point_normalizes_a_zero_norm_point():
    with mpmath.workdps(50):
        res = min_norm_point(_triangle_gram(), precision=50)
        assert abs(sum(res.p) - 1) < mpmath.mpf("1e-45")
        assert all(abs(v - mpmath.mpf(c) / 7) < mpmath.mpf("1e-12") for v, c in zip(res.p, (1, 2, 4)))
        assert res.norm < mpmath.mpf("1e-7")  # 0 up to the float64 point's distance from (1, 2, 4)/7
        # z and -z: the float64 point (1/2, 1/2) is exact, p^T K p is exactly 0 at any precision
        res = min_norm_point(np.array([[1.0, -1.0], [-1.0, 1.0]]), precision=50)
        assert res.norm == 0 and list(res.p) == [0.5, 0.5]


def test_precision_min_norm_point_norm():
    """z1 = (sqrt 2, 0), z2 = (0, sqrt 3): p* = (3/5, 2/5), ||p*|| = sqrt(6/5) -- to 50 digits,
    which the float64 point converted and renormalized (no mpmath re-solve) does not reach."""
    K = np.array([[2.0, 0.0], [0.0, 3.0]])
    res = min_norm_point(K, precision=50)
    with mpmath.workdps(50):
        assert abs(res.norm - mpmath.sqrt(mpmath.mpf(6) / 5)) < mpmath.mpf("1e-45")
        assert abs(res.p[0] - mpmath.mpf(3) / 5) < mpmath.mpf("1e-45")
        assert abs(res.norm - mpmath.sqrt(res.p @ (K @ res.p))) < mpmath.mpf("1e-45")


def test_precision_min_norm_point_is_warm_started():
    """The mpmath Wolfe starts from the float64 support's KKT point: it adds at most a couple of
    cycles to the float64 count (a cold start from one vertex repeats the whole run)."""
    K = _feasible_gram()
    f = min_norm_point(K)
    m = min_norm_point(K, precision=40)
    assert f.iterations >= 5
    assert f.iterations <= m.iterations <= f.iterations + 3
    assert m.support == f.support and m.converged  # from the KKT point the optimality test passes at once


def test_precision_min_norm_point_respects_the_budget():
    K = _feasible_gram()
    for budget in (1, 2, 4):
        m = min_norm_point(K, precision=30, max_iter=budget)
        assert m.iterations <= budget + 1  # the float64 run, then at least one mpmath cycle
        assert not m.converged


def test_gauss_mp_pivots_on_the_largest_entry_not_the_last_row():
    """The largest entry of column 0 is in the middle row and the last row has a 0 there: partial
    pivoting solves the (nonsingular) system exactly; always swapping in the last row (mutants
    ``key=None``, no key) divides by that 0 (ZeroDivisionError).  Second system: the first row
    holds the pivot 1 and the last row a tiny 1e-40; using the tiny pivot loses ~40 of 50 digits."""
    with mpmath.workdps(50):
        one = mpmath.mpf(1)
        A = np.array([[one, 2 * one, 0 * one], [4 * one, one, one], [0 * one, one, 3 * one]], dtype=object)
        x_true = [one, -2 * one, 3 * one]
        b = np.array([sum(A[i, j] * x_true[j] for j in range(3)) for i in range(3)], dtype=object)
        x = M._gauss_mp(A, b)
        assert all(x[i] == x_true[i] for i in range(3)), x
        e = mpmath.mpf("1e-40")
        A = np.array([[one, one], [e, one]], dtype=object)
        b = np.array([2 * one, one], dtype=object)
        x = M._gauss_mp(A, b)
        # exact: x0 = 1/(1-e), x1 = (1-2e)/(1-e)
        assert abs(x[0] - 1 / (1 - e)) < mpmath.mpf("1e-45")
        assert abs(x[1] - (1 - 2 * e) / (1 - e)) < mpmath.mpf("1e-45")


def test_solve_mp_refines_moderately_conditioned_systems_without_elimination(monkeypatch):
    """cond(A) <= 1e12: the float64 factorization contracts the error by ~cond u64 <= 1e-4 per step,
    and with the residual summed exactly and rounded once (mpmath.fdot) refinement reaches x within
    10 eps of the exact solution (here x_true: b = A x_true is exact at 50 digits, 53-bit entries),
    so the O(m^3) mpmath elimination is never needed.  A residual rounded at the working precision
    (b - A @ x: error ~eps |A| |x|) stalls at relative corrections ~cond eps and falls back to
    elimination (or, with the old stagnation exit, returns x off by ~cond eps up to 10^4 m eps)."""

    def no_elimination(A, b):
        raise AssertionError("exact elimination should not be needed")

    monkeypatch.setattr(M, "_gauss_mp", no_elimination)
    ar = Arithmetic(50)
    for m in (3, 8):
        for cond in (1e3, 1e6, 1e9, 1e12):
            for seed in range(3):
                A, b, x_true = _system(cond, m, seed, ar)
                with ar.context():
                    x = M._solve_mp(A, b, ar)
                    err = max(abs(x[i] - x_true[i]) for i in range(m)) / max(abs(v) for v in x_true)
                assert err <= 10 * mpmath.mpf(10) ** -50, (m, cond, seed, err)


def test_solve_mp_at_the_smallest_precision_reaches_10_eps_without_elimination(monkeypatch):
    """At 16 digits (MIN_PRECISION; mpmath carries 56 bits, its rounding 2^-56 ~ 0.14 eps) the
    refinement's last corrections are a fraction of eps, so the target 10 eps is reached for every
    system float64 can factor (cond up to 1e16): x within 10 eps of the exact solution of the stored
    system, no elimination.  A target below the working precision's rounding (eps / 10) stalls on
    some of them and hands over to elimination (error ~cond eps)."""

    def no_elimination(A, b):
        raise AssertionError("exact elimination should not be needed")

    monkeypatch.setattr(M, "_gauss_mp", no_elimination)
    ar = Arithmetic(16)
    for m in (3, 8):
        for cond in (1e4, 1e6, 1e12, 1e14, 1e16):
            for seed in range(3):
                A, b, _ = _system(cond, m, seed, ar)
                exact = _exact_solution(A, b)
                with ar.context():
                    x = M._solve_mp(A, b, ar)
                err = max(abs(rational(x[i]) - exact[i]) for i in range(m)) / max(abs(v) for v in exact)
                assert err <= 10 * Fraction(1, 10**16), (m, cond, seed, float(err))


def test_solve_mp_gives_up_refinement_at_once_when_float64_cannot_factor(solve_path):
    """A built with cond 1e25 rounds to a float64 matrix of cond ~5e17..2e18 (measured, 1-norm):
    float64's factorization of it is useless (cond u64 >> 1), the corrections do not shrink, and
    refinement must hand over to elimination after a few float64 solves -- not run its 60 steps
    first (mutants ``prev = None``, ``continue`` for ``break``).  Elimination at 50 digits still
    gives x within ~cond eps ~ 1e-32 of x_true (asserted: 1e-24)."""
    calls = solve_path
    ar = Arithmetic(50)
    for seed in range(3):
        calls["solve"], calls["at_elimination"] = 0, None
        A, b, x_true = _system(1e25, 6, seed, ar)
        with ar.context():
            x = M._solve_mp(A, b, ar)
            err = max(abs(x[i] - x_true[i]) for i in range(6)) / max(abs(v) for v in x_true)
        assert calls["at_elimination"] is not None and calls["at_elimination"] <= 5, (seed, calls)
        assert err < mpmath.mpf(10) ** -24, (seed, err)


def test_wolfe_stops_when_the_gap_equals_its_round_off_tolerance():
    """Wolfe's optimality test is ``p^T K p - min_i (K p)_i <= tol`` with the round-off tolerance
    64 n u max_i K_ii (margin()'s method text and _zero_tol name it; the relative part 1e-13 p^T K p
    is below half an ulp of it here).  Two points, K = [[2^-80, c], [c, 1]], c = -(2^-46 - 2^-80)
    (PSD: c^2 < 2^-80), started at p = e_1: p^T K p = 2^-80, min (K p) = c, so the gap is exactly
    2^-46 = 64 * 2 * 2^-53 * 1 -- equal to the tolerance: the start passes at once (one major
    cycle, p unchanged, converged).  Mutants: ``<`` for ``<=``; 64 / n instead of 64 n."""
    c = -(2.0**-46 - 2.0**-80)
    K = np.array([[2.0**-80, c], [c, 1.0]])
    assert 2.0**-80 - c == 64 * 2 * u * 1.0  # the gap, exactly the tolerance
    p, support, iterations, converged = M._wolfe(K, F64, 10, start=np.array([1.0, 0.0]))
    assert converged and iterations == 1
    assert p.tolist() == [1.0, 0.0] and support == (0,)


def test_min_norm_point_at_exactly_the_zero_tolerance_is_zero():
    """``||p*||_K^2 <= 64 n u max_i K_ii`` is the float test for a zero min-norm point (Margin's
    docstring).  K = [[1, c], [c, 1]], c = -1 + 2^-45: by symmetry p* = (1/2, 1/2) and
    ||p*||_K^2 = (1 + c) / 2 = 2^-46 = 64 * 2 * 2^-53 * 1, exactly the tolerance: zero.
    Mutant: ``<`` in the test."""
    c = -1 + 2.0**-45
    K = np.array([[1.0, c], [c, 1.0]])
    mnp, is_zero = M._mnp(K, K, F64, 100)
    assert mnp.p.tolist() == [0.5, 0.5] and mnp.converged
    assert float(mnp.p @ (K @ mnp.p)) == 64 * 2 * u == M._zero_tol(K)
    assert is_zero is True


def test_wolfe_never_exceeds_its_budget_when_it_stalls_at_the_last_cycle():
    """max_iter is the budget of major plus minor cycles.  z_a = (-1, 1), z_b = (1, 1),
    z_j = (-5, 2), started at p = (1/4, 3/4, 0) (the point x = (1/2, 1)): K p = (1/2, 3/2, -1/2),
    so the first major cycle adds j; the affine minimizer of {a, b, j} is the origin, barycentric
    weights (7/2, -3/2, -1) -- j's own weight is negative, its ratio 0 / (0 + 1) = 0 is the
    smallest, so the first minor cycle (cycle 2) is the stall break.  With max_iter = 2 the run
    must stop there: 2 cycles, not converged.  Mutant: ``while it <= max_iter`` (a third, major,
    cycle)."""
    K = _gram([[-1, 1], [1, 1], [-5, 2]])
    w, _ = M._kkt(K, F64)
    assert np.allclose(w, [3.5, -1.5, -1.0], rtol=0, atol=1e-12)  # the signs are what matters
    for budget in (1, 2, 3):
        p, support, iterations, converged = M._wolfe(K, F64, budget, start=np.array([0.25, 0.75, 0.0]))
        assert iterations <= budget and not converged
        assert p.tolist() == [0.25, 0.75, 0.0]
    assert M._wolfe(K, F64, 2, start=np.array([0.25, 0.75, 0.0]))[2] == 2


def test_wolfe_warm_start_keeps_the_support_of_the_start():
    """A warm start p with support S continues Wolfe from S.  Triangle z_a = (-1, -1),
    z_b = (1, -1), z_c = (0, 1) around the origin, started at the affine minimizer of {a, b},
    p = (1/2, 1/2, 0) (the point (0, -1)): the major cycle adds c (K p = (1, 1, -1)), the affine
    minimizer of {a, b, c} is the origin with weights (1/4, 1/4, 1/2) > 0, and the next major
    cycle finds the gap 0: 2 cycles.  A cold start needs at least 3 (one vertex, two additions,
    the final test).  Mutant: the start's support taken as {i : p_i > 1} = {} (a cold start from
    the first point added)."""
    K = _gram([[-1, -1], [1, -1], [0, 1]])
    p, support, iterations, converged = M._wolfe(K, F64, 100, start=np.array([0.5, 0.5, 0.0]))
    assert p.tolist() == [0.25, 0.25, 0.5] and support == (0, 1, 2) and converged
    assert iterations == 2
    assert M._wolfe(K, F64, 100)[2] >= 3


def test_wolfe_takes_a_minor_cycle_for_a_kkt_weight_exactly_zero():
    """Wolfe moves to the affine minimizer of S only when all its weights are > 0 (the relative
    interior of conv S); otherwise a minor cycle steps to the boundary and drops the points whose
    weight vanishes.  z_a = (1, -1), z_b = (1, 1), z_j = (-1, -1), started at p = (1/2, 1/2, 0)
    (the point (1, 0)): K p = (1, 1, -1) adds j; the affine minimizer of {a, b, j} is the origin
    = (z_b + z_j) / 2, weights (0, 1/2, 1/2) exactly.  Cycle 2 is the minor cycle: the ratio of a
    is p_a / (p_a - 0) = 1, theta = 1, a is dropped; {b, j} has weights (1/2, 1/2) > 0; cycle 3
    (major) finds the gap 0.  Result p = (0, 1/2, 1/2), ||p||_K = 0, 3 cycles.  Mutants: ``w < 0``
    in the ratio test (no ratio at all: min() of nothing), ``x >= 0`` for accepting the affine
    minimizer (no minor cycle: 2 cycles)."""
    K = _gram([[1, -1], [1, 1], [-1, -1]])
    w, _ = M._kkt(K, F64)
    assert w.tolist() == [0.0, 0.5, 0.5]
    p, support, iterations, converged = M._wolfe(K, F64, 100, start=np.array([0.5, 0.5, 0.0]))
    assert p.tolist() == [0.0, 0.5, 0.5] and support == (1, 2) and converged
    assert float(p @ K @ p) == 0.0
    assert iterations == 3


def test_wolfe_budget_limited_points_never_grow_in_norm():
    """Every cycle of Wolfe's algorithm lowers ||p||_K (a major cycle moves to the affine minimizer
    of a larger set, a minor one along the segment from p to it), so the point returned after a
    budget of k cycles is no longer than after k - 1 (up to a relative round-off of 1e-12; the
    integer instance below has minor cycles, and the run needs 5 cycles).  Mutant: the minor step
    p + theta (w + p) (off the segment)."""
    K = _gram([[0, 5, 2], [5, -5, 6], [1, 6, -5], [4, 0, -3], [1, 2, 4], [0, -5, -2]])
    q = []
    for budget in range(1, 9):
        p = M._wolfe(K, F64, budget)[0]
        assert np.all(p >= 0) and abs(p.sum() - 1) < 1e-15
        q.append(float(p @ K @ p))
    assert all(b <= a * (1 + 1e-12) for a, b in zip(q, q[1:])), q
    assert q[-1] < 1e-12  # the origin is in the hull: ||p*||_K = 0


def test_affine_distance2_exact_closed_forms():
    """The squared distance from the origin to the affine hull of S, over Q: the line x + y = 1
    through (1, 0), (0, 1) is at distance^2 1/2; the plane x + y + z = 1 at 1/3; (3, 4) alone at 25;
    the line x = 3 through (3, 1), (3, -2) at 9; a singular K_SS (z_1 = z_2, or z = 0) gives None."""
    assert M._affine_distance2_exact(np.eye(2)) == Fraction(1, 2)
    assert M._affine_distance2_exact(np.eye(3)) == Fraction(1, 3)
    assert M._affine_distance2_exact(np.array([[25.0]])) == 25
    assert M._affine_distance2_exact(_gram([[3, 1], [3, -2]])) == 9  # the line x = 3
    assert M._affine_distance2_exact(np.array([[1.0, 1.0], [1.0, 1.0]])) is None
    assert M._affine_distance2_exact(np.zeros((1, 1))) is None


@pytest.mark.parametrize("diag", [[1.0, 3.0, 2.0], [0.5, 0.25], [7.0, 7.0, 1.0, 2.0, 5.0]])
def test_zero_tol_is_64_n_u_max_diag(diag):
    """_zero_tol is the documented 64 n u max_i K_ii (u = 2^-53), exactly (powers of two)."""
    K = np.diag(diag)
    n = len(diag)
    assert M._zero_tol(K) == Fraction(64 * n) * Fraction(1, 2**53) * Fraction(max(diag))


def test_wolfe_converges_on_an_exact_zero_norm_point():
    """z and -z: one major cycle adds -z, the affine minimizer (1/2, 1/2) has p^T K p = 0 exactly;
    the second major cycle's optimality test 0 - 0 <= tol passes (tol >= 0 at q = 0)."""
    for c in (1.0, 3.0, 1e-6, 1e6):
        r = min_norm_point(np.array([[c, -c], [-c, c]]))
        assert r.converged is True and r.iterations == 2
        assert list(r.p) == [0.5, 0.5] and r.norm == 0 and r.support == (0, 1)


@pytest.mark.parametrize("seed", [305, 449, 553, 869])
def test_wolfe_stops_at_a_round_off_stall_instead_of_spending_its_budget(seed):
    """Near-duplicate points: the point j added by a major cycle gets weight <= 0 in the computed
    affine minimizer of S + {j} (round-off), so it would be dropped at once and re-added forever.
    Wolfe must stop there (converged False, a few cycles), not cycle until max_iter.  Whether the
    round-off stall happens for a given seed follows the BLAS (K = Z Z^T and the KKT solves are
    sums in its order: seed 553 converges in 5 cycles without FMA), so either way Wolfe ends within
    a few cycles, converged or stalled."""
    K = _stall_instance(seed)
    r = min_norm_point(K, max_iter=300)
    assert r.converged in (True, False)
    assert r.iterations <= 20
    assert abs(float(np.sum(r.p)) - 1) <= 1e-12 and np.all(r.p >= 0)
    m = margin(K, max_iter=300)
    assert m.lower <= m.upper


def test_solve_mp_reaches_the_working_precision_relative_to_a_tiny_solution():
    """A x = b with a well-conditioned A (cond ~ 10) and x ~ 1e-40: the refinement must stop on a
    *relative* correction (docstring: x at the working precision), so x has ~50 correct digits
    relative to its size.  The mutant that divides the correction by max(||x||, 1) instead of
    max(||x||, 1e-300) calls the first float64 correction (~1e-56 absolute) converged and returns
    x with only ~32 correct digits."""
    ar = Arithmetic(50)
    with ar.context():
        A = ar.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]])
        x_true = ar.array(["1e-40", "-2.5e-40", "3.75e-41"])  # mpf from decimal strings, at 50 digits
        b = A @ x_true
        x = M._solve_mp(A, b, ar)
        err = max(abs(x[i] - x_true[i]) for i in range(3)) / max(abs(v) for v in x_true)
    assert err < mpmath.mpf(10) ** -45, err


def test_float_min_norm_point_respects_its_budget():
    """Float64 Wolfe stops after max_iter cycles (major + minor): a run that needs 4 reports at
    most 1, 2, 3 iterations with those budgets, unconverged (mutant: ``it <= max_iter``)."""
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((10, 3))
    Z -= Z.mean(axis=0)
    K = Z @ Z.T
    assert M.min_norm_point(K).iterations == 4
    for budget in (1, 2, 3):
        r = M.min_norm_point(K, max_iter=budget)
        assert r.iterations <= budget and not r.converged, (budget, r.iterations)


# _affine_distance2_exact(K_SS) = min {w^T K_SS w : 1^T w = 1} = -det K_SS / det B over Q, on
# K_SS as stored in the chosen arithmetic (mpf entries of D digits, not float64).
def test_affine_distance2_exact_reads_mpf_entries_exactly():
    # (B in float64 rounds the mpf entries).
    # One point: the affine hull is the point itself, lambda = K_11.  Two points with K_SS =
    # [[x, 0], [0, x]]: lambda = x / 2 (w = (1/2, 1/2)).
    with mpmath.workdps(40):
        x = mpmath.mpf(1) / 3  # 1/3 to 133 bits: not a float64
        assert rational(x) != Fraction(float(x))
        assert _affine_distance2_exact(np.array([[x]], dtype=object)) == rational(x)
        two = np.array([[x, mpmath.mpf(0)], [mpmath.mpf(0), x]], dtype=object)
        assert _affine_distance2_exact(two) == rational(x) / 2


def test_affine_distance2_exact_is_none_when_the_kkt_system_is_singular():
    # (`and`: det B = 0 with det K_SS != 0
    # divides by zero).  K_SS = [[a, b], [b, c]] with b = (a + c) / 2 has det B = 2b - a - c = 0:
    # the KKT system [K_SS 1; 1^T 0] has no unique solution and no lambda = -det K_SS / det B.
    # (Such a K_SS is indefinite, det = -(a - c)^2 / 4: within round-off of PSD for a close to c.)
    a, c = 1.0, 1.0 + 2.0**-20
    KSS = np.array([[a, (a + c) / 2], [(a + c) / 2, c]])
    assert exact_det(KSS) == -Fraction(c - a) ** 2 / 4 != 0
    assert _affine_distance2_exact(KSS) is None


@pytest.mark.parametrize(
    "D, X, case",
    [
        (16, 4.0, "contracting by exactly 1/4: refined, no elimination"),
        (30, 4.0, "contracting by exactly 1/4: refined, no elimination"),
        (38, 16.0, "the 60th correction reaches 10 eps: refined, no elimination"),
        (38, 4.0, "60 corrections do not reach 10 eps: elimination after them"),
        (16, 305175781250.0, "correction 5 is exactly 10 eps: stop there"),
        (16, 305175781250.0 / 1.05, "correction 5 is 10.5 eps: one more"),
    ],
)
def test_solve_mp_follows_its_refinement_rule_on_an_exactly_known_contraction(solve_path, D, X, case):
    """_quarter_system's corrections are known in closed form (relative size (5/16) 4^-k / X, each a
    quarter of the previous); the number of float64 solves and whether elimination is called follow from
    the rule stated in _solve_mp's docstring, and the answer is within 10 eps of x_true (exactly x_true
    after elimination: Gaussian elimination on these dyadic numbers is exact).  Mutants: ``size >=
    prev / 4`` and ``size > prev / 5`` (a quarter exactly called non-contracting: elimination after 3
    solves), ``range(61)`` (a 61st correction instead of elimination), ``size < target`` (goes on past a
    correction of exactly 10 eps), ``eps * 11`` (stops at 10.5 eps)."""
    ar, A, b, x_true = _quarter_system(D, X)
    with mpmath.workdps(D):  # the precondition of each row, in exact rationals
        rel = [Fraction(5, 16) / 4**k / Fraction(X) for k in range(61)]
        eps10 = 10 * rational(mpmath.mpf(10) ** (-D))
    if "exactly 10 eps" in case:
        assert rel[5] == Fraction(1, 10**15) and rel[4] > eps10
    if "10.5 eps" in case:
        assert eps10 < rel[5] < Fraction(21, 20) * eps10 * (1 + Fraction(1, 10**12)) and rel[5] <= Fraction(11, 10) * eps10
    calls = solve_path
    with ar.context():
        x = M._solve_mp(A, b, ar)
    assert (calls["solve"], calls["at_elimination"] is not None) == _expected_path(D, X), case
    err = max(abs(rational(x[i]) - rational(x_true[i])) for i in range(3)) / rational(mpmath.mpf(X))
    if calls["at_elimination"] is not None:
        assert err == 0, case
    else:
        assert err <= 10 * Fraction(1, 10**D), (case, float(err))


def test_solve_mp_refinement_rule_rows_cover_both_sides_of_each_threshold():
    """The table above is not vacuous: its rows take different paths under the stated rule (stop at k = 24,
    47, 59, give up after 60; stop at k = 5 vs k = 6 around 10 eps)."""
    assert _expected_path(16, 4.0) == (26, False)
    assert _expected_path(30, 4.0) == (49, False)
    assert _expected_path(38, 16.0) == (61, False)
    assert _expected_path(38, 4.0) == (61, True)
    assert _expected_path(16, 305175781250.0) == (7, False)
    assert _expected_path(16, 305175781250.0 / 1.05) == (8, False)


def test_min_norm_point_accepts_an_mpf_gram_matrix_that_float64_rounds():
    """min_norm_point is an estimate (no certificate): with precision=None an mpf K is rounded to float64
    (docstring: float64 or mpf entries), unlike lower_bound / upper_bound / margin, which refuse it.
    K = [[1, -1 + 1e-20], [-1 + 1e-20, 1]] (two points z, -z + tiny) rounds to [[1, -1], [-1, 1]], whose
    min-norm point is (1/2, 1/2) with norm 0; at 30 digits the same p has ||p||_K^2 = (1 + K_12) / 2 ~ 5e-21.  Mutants ``as_stored=True`` / default: a ValueError for the float64 call."""
    with mpmath.workdps(30):
        one, t = mpmath.mpf(1), mpmath.mpf("1e-20")
        K = np.array([[one, -one + t], [-one + t, one]], dtype=object)
    r = min_norm_point(K)
    assert [float(v) for v in r.p] == [0.5, 0.5] and r.norm == 0.0 and r.precision == "float64"
    with pytest.raises(ValueError, match="precision=D"):
        M.lower_bound(K, np.array([1.0, 0.0]))  # the certifying functions do refuse it
    r30 = min_norm_point(K, precision=30)
    q = (1 + rational(K[0, 1])) / 2  # ||p||_K^2 of p = (1/2, 1/2) on K as stored (K_12 = -1 + 1e-20 at 30 digits)
    assert [rational(v) for v in r30.p] == [Fraction(1, 2)] * 2
    assert abs(rational(r30.norm) ** 2 - q) <= q * Fraction(1, 10**25)


@pytest.mark.parametrize("b", [Fraction(2**60 + 1, 2**60), 2**60 + 1])
def test_the_refused_object_k_is_accepted_at_d_digits_and_by_min_norm_point(b):
    """The fix the message names works: at precision=30 the same K is accepted (K as stored: 1 + 2^-60
    and 2^60 + 1 are binary numbers of 61 bits) and its interval holds the exact margin; min_norm_point (an
    estimate, no certificate) reads the rounded K in float64 mode without refusing it.
    K = [[a, b], [b, a]], 0 < b < a: p* = (1/2, 1/2), m = sqrt((a + b) / 2), so lower^2 <= (a + b) / 2 <= upper^2."""
    a = 2 if isinstance(b, Fraction) else 2**62
    K = _obj(a, b, a)
    m2 = (Fraction(a) + Fraction(b)) / 2
    m = margin(K, precision=30)
    assert m.feasible is True
    lo = rational(m.lower)
    up = rational(m.upper)
    assert 0 < lo and lo * lo <= m2 <= up * up
    assert (up - lo) / lo < Fraction(1, 10**20)  # the 30-digit interval, not the float64 one
    assert lower_bound(K, [1.0, 1.0], precision=30) > 0 and upper_bound(K, [1.0, 1.0], precision=30) > 0
    mnp = min_norm_point(K)
    assert list(mnp.p) == [0.5, 0.5]


def test_exact_wolfe_reference_is_not_vacuous():
    """The exact reference distinguishes corrals: on the segment [(3, -1), (-1, 3)] plus (2, 2) it ends
    at {0, 1} (u* = (1, 1)), not at a single point."""
    corrals, norms = _exact_wolfe_corrals([[3, -1], [-1, 3], [2, 2]])
    assert corrals[0] == {2} and corrals[-1] == {0, 1} and norms[-1] == 2
