"""Tests of reference/margins/search.py: the searches that only propose witnesses -- Wolfe's
min-norm point in Gram form (float64 and warm-started at D digits), the KKT solves and the mpmath
solver behind them, and the local search over facets used when enumeration is too expensive."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import reference
from reference.arithmetic import Arithmetic, arithmetic
from reference.exact import exact_det, rational
from reference.margins import facets, margin, min_norm_point, search
from tests.support.margin import (
    TRI,
    _centred,
    _exact_wolfe_corrals,
    _gram,
    _is_supporting_facet,
    _record_hyperplanes,
    gram_of,
)
def _mp_solve(A, b, dps=50):
    ar = Arithmetic(dps)
    with ar.context():
        return search._solve_mp(ar.array(A), ar.array(b), ar), ar


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
        assert search._gauss_mp(A, b).shape == (3,)
        with pytest.raises(ZeroDivisionError, match="singular KKT matrix"):
            search._gauss_mp(np.array([[one, one], [one, one]], dtype=object), np.array([one, one]))


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

    monkeypatch.setattr(search, "_gauss_mp", no_elimination)
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
    assert mnp.norm**2 <= search._zero_tol(K)  # the trap: ||p*||_K^2 below the float tolerance
    assert np.linalg.matrix_rank(K) == facets._span_coordinates(K)[0].shape[1] == 4  # no rank cut
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
    w, lam = search.kkt(np.eye(2), ar)
    np.testing.assert_allclose(w, [0.5, 0.5], rtol=1e-14)
    assert lam == pytest.approx(0.5, rel=1e-14)  # lambda = w^T K w
    # duplicate point: singular KKT matrix -> least-squares (min-norm) solution
    w, lam = search.kkt(np.ones((2, 2)), ar)
    np.testing.assert_allclose(w, [0.5, 0.5], rtol=1e-12)
    assert lam == pytest.approx(1.0, rel=1e-12)


def test_kkt_mp_keeps_full_precision():
    ar = arithmetic(50)
    with ar.context():
        KSS = np.array([[mpmath.mpf(1), mpmath.mpf(0)], [mpmath.mpf(0), mpmath.mpf(1) / 3]], dtype=object)
        w, lam = search.kkt(KSS, ar)
        # w_i proportional to 1/K_ii: (1, 3)/4; lambda = 1/4
        assert abs(w[0] - mpmath.mpf(1) / 4) < mpmath.mpf(10) ** -45
        assert abs(w[1] - mpmath.mpf(3) / 4) < mpmath.mpf(10) ** -45
        assert abs(lam - mpmath.mpf(1) / 4) < mpmath.mpf(10) ** -45


def test_gauss_mp_pivots_on_a_zero_leading_entry():
    with mpmath.workdps(50):
        A = np.array([[mpmath.mpf(0), mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(0)]], dtype=object)
        b = np.array([mpmath.mpf(1), mpmath.mpf(2)], dtype=object)
        x = search._gauss_mp(A, b)
        assert x[0] == 2 and x[1] == 1


def test_gauss_mp_pivoting_keeps_the_working_precision():
    """A tiny leading pivot (1e-40): without pivoting the elimination loses ~40 of 50 digits."""
    with mpmath.workdps(50):
        e = mpmath.mpf("1e-40")
        A = np.array([[e, mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(1)]], dtype=object)
        b = np.array([mpmath.mpf(1), mpmath.mpf(2)], dtype=object)
        x = search._gauss_mp(A, b)
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
        x = search._gauss_mp(A, b)
        assert all(x[i] == x_true[i] for i in range(3)), x
        e = mpmath.mpf("1e-40")
        A = np.array([[one, one], [e, one]], dtype=object)
        b = np.array([2 * one, one], dtype=object)
        x = search._gauss_mp(A, b)
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

    monkeypatch.setattr(search, "_gauss_mp", no_elimination)
    ar = Arithmetic(50)
    for m in (3, 8):
        for cond in (1e3, 1e6, 1e9, 1e12):
            for seed in range(3):
                A, b, x_true = _system(cond, m, seed, ar)
                with ar.context():
                    x = search._solve_mp(A, b, ar)
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

    monkeypatch.setattr(search, "_gauss_mp", no_elimination)
    ar = Arithmetic(16)
    for m in (3, 8):
        for cond in (1e4, 1e6, 1e12, 1e14, 1e16):
            for seed in range(3):
                A, b, _ = _system(cond, m, seed, ar)
                exact = _exact_solution(A, b)
                with ar.context():
                    x = search._solve_mp(A, b, ar)
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
            x = search._solve_mp(A, b, ar)
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
    p, support, iterations, converged = search.wolfe(K, F64, 10, start=np.array([1.0, 0.0]))
    assert converged and iterations == 1
    assert p.tolist() == [1.0, 0.0] and support == (0,)


def test_min_norm_point_at_exactly_the_zero_tolerance_is_zero():
    """``||p*||_K^2 <= 64 n u max_i K_ii`` is the float test for a zero min-norm point (Margin's
    docstring).  K = [[1, c], [c, 1]], c = -1 + 2^-45: by symmetry p* = (1/2, 1/2) and
    ||p*||_K^2 = (1 + c) / 2 = 2^-46 = 64 * 2 * 2^-53 * 1, exactly the tolerance: zero.
    Mutant: ``<`` in the test."""
    c = -1 + 2.0**-45
    K = np.array([[1.0, c], [c, 1.0]])
    mnp, is_zero = search._mnp(K, K, F64, 100)
    assert mnp.p.tolist() == [0.5, 0.5] and mnp.converged
    assert float(mnp.p @ (K @ mnp.p)) == 64 * 2 * u == search._zero_tol(K)
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
    w, _ = search.kkt(K, F64)
    assert np.allclose(w, [3.5, -1.5, -1.0], rtol=0, atol=1e-12)  # the signs are what matters
    for budget in (1, 2, 3):
        p, support, iterations, converged = search.wolfe(K, F64, budget, start=np.array([0.25, 0.75, 0.0]))
        assert iterations <= budget and not converged
        assert p.tolist() == [0.25, 0.75, 0.0]
    assert search.wolfe(K, F64, 2, start=np.array([0.25, 0.75, 0.0]))[2] == 2


def test_wolfe_warm_start_keeps_the_support_of_the_start():
    """A warm start p with support S continues Wolfe from S.  Triangle z_a = (-1, -1),
    z_b = (1, -1), z_c = (0, 1) around the origin, started at the affine minimizer of {a, b},
    p = (1/2, 1/2, 0) (the point (0, -1)): the major cycle adds c (K p = (1, 1, -1)), the affine
    minimizer of {a, b, c} is the origin with weights (1/4, 1/4, 1/2) > 0, and the next major
    cycle finds the gap 0: 2 cycles.  A cold start needs at least 3 (one vertex, two additions,
    the final test).  Mutant: the start's support taken as {i : p_i > 1} = {} (a cold start from
    the first point added)."""
    K = _gram([[-1, -1], [1, -1], [0, 1]])
    p, support, iterations, converged = search.wolfe(K, F64, 100, start=np.array([0.5, 0.5, 0.0]))
    assert p.tolist() == [0.25, 0.25, 0.5] and support == (0, 1, 2) and converged
    assert iterations == 2
    assert search.wolfe(K, F64, 100)[2] >= 3


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
    w, _ = search.kkt(K, F64)
    assert w.tolist() == [0.0, 0.5, 0.5]
    p, support, iterations, converged = search.wolfe(K, F64, 100, start=np.array([0.5, 0.5, 0.0]))
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
        p = search.wolfe(K, F64, budget)[0]
        assert np.all(p >= 0) and abs(p.sum() - 1) < 1e-15
        q.append(float(p @ K @ p))
    assert all(b <= a * (1 + 1e-12) for a, b in zip(q, q[1:])), q
    assert q[-1] < 1e-12  # the origin is in the hull: ||p*||_K = 0


@pytest.mark.parametrize("diag", [[1.0, 3.0, 2.0], [0.5, 0.25], [7.0, 7.0, 1.0, 2.0, 5.0]])
def test_zero_tol_is_64_n_u_max_diag(diag):
    """_zero_tol is the documented 64 n u max_i K_ii (u = 2^-53), exactly (powers of two)."""
    K = np.diag(diag)
    n = len(diag)
    assert search._zero_tol(K) == Fraction(64 * n) * Fraction(1, 2**53) * Fraction(max(diag))


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
        x = search._solve_mp(A, b, ar)
        err = max(abs(x[i] - x_true[i]) for i in range(3)) / max(abs(v) for v in x_true)
    assert err < mpmath.mpf(10) ** -45, err


def test_float_min_norm_point_respects_its_budget():
    """Float64 Wolfe stops after max_iter cycles (major + minor): a run that needs 4 reports at
    most 1, 2, 3 iterations with those budgets, unconverged (mutant: ``it <= max_iter``)."""
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((10, 3))
    Z -= Z.mean(axis=0)
    K = Z @ Z.T
    assert search.min_norm_point(K).iterations == 4
    for budget in (1, 2, 3):
        r = search.min_norm_point(K, max_iter=budget)
        assert r.iterations <= budget and not r.converged, (budget, r.iterations)


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
        x = search._solve_mp(A, b, ar)
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


def test_exact_wolfe_reference_is_not_vacuous():
    """The exact reference distinguishes corrals: on the segment [(3, -1), (-1, 3)] plus (2, 2) it ends
    at {0, 1} (u* = (1, 1)), not at a single point."""
    corrals, norms = _exact_wolfe_corrals([[3, -1], [-1, 3], [2, 2]])
    assert corrals[0] == {2} and corrals[-1] == {0, 1} and norms[-1] == 2


def _best_single_swap(Zs, T, tol_side=1e-10):
    """max b over the supporting hyperplanes through T with one point swapped (None if none)."""
    nu, r = Zs.shape[0], len(T)
    others = np.setdiff1d(np.arange(nu), T)
    cand = np.repeat(np.asarray(T)[None, :], r * len(others), axis=0)
    cand[np.arange(len(cand)), np.repeat(np.arange(r), len(others))] = np.tile(others, r)
    rows, a, b = facets._hyperplanes(Zs, cand, tol_side)
    return float(np.max(b)) if rows.size else None


def _centred_2(n, r, seed):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, r))
    Z -= Z.mean(axis=0)  # the origin is inside the hull (infeasible case)
    return Z / np.max(np.linalg.norm(Z, axis=1))


def _spy_hyperplanes(monkeypatch):
    """Record every block of subsets _local_search hands to _hyperplanes, with the running best
    supporting hyperplane (max b, first found on ties) *before* that block."""
    real = facets._hyperplanes
    calls = []
    best = [None]

    def spy(Zs, subsets, tol_side):
        calls.append((np.array(subsets), best[0]))
        rows, a, b = real(Zs, subsets, tol_side)
        if rows.size:
            k = int(np.argmax(b))
            if best[0] is None or b[k] > best[0][0]:
                best[0] = (float(b[k]), a[k], np.array(subsets[rows[k]]))
        return rows, a, b

    monkeypatch.setattr(search, "_hyperplanes", spy)  # _local_search's name for it
    return calls


def _centred_3(n, r, seed):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, r))
    Z -= Z.mean(axis=0)  # the origin is inside the hull
    return Z / np.max(np.linalg.norm(Z, axis=1))


def _blocks(sizes, chunk):
    """The blocks consider() makes of calls of the given sizes: chunk after chunk, the rest last."""
    out = []
    for s in sizes:
        out += [chunk] * (s // chunk) + ([s % chunk] if s % chunk else [])
    return out


def _first_best(calls):
    """(b, a, subset) of the first maximal supporting hyperplane over the recorded blocks."""
    best = None
    for subsets, (rows, a, b) in calls:
        if rows.size:
            k = int(np.argmax(b))
            if best is None or b[k] > best[0]:
                best = (float(b[k]), a[k], subsets[rows[k]])
    return best


def _swaps(T, points):
    """Every subset T with one position replaced by one of ``points``, as a set of tuples."""
    return {tuple(int(x) for x in T[:i]) + (int(q),) + tuple(int(x) for x in T[i + 1 :]) for i in range(len(T)) for q in points}


def test_local_search_returns_a_facet_no_single_swap_improves():
    """60 points in R^8: C(60, 8) ~ 2.6e9 subsets, far beyond enumeration.  The pivoting walk
    must end on a facet that no single swap improves (with the walk switched off, the sampled /
    ascended facet is improvable)."""
    Zs = _centred(60, 8, seed=1)
    b, a, T = search._local_search(Zs, 8, 1e-10, 50, np.random.default_rng(0))
    assert T is not None and _is_supporting_facet(Zs, b, a, T)
    best_swap = _best_single_swap(Zs, T)
    assert best_swap is None or best_swap <= b + 1e-12


def test_local_search_capped_branch_on_1500_points():
    """1500 points in rank 8: a swap round (8 * 1492 hyperplanes) exceeds the cap, so the walk
    tries the points nearest the facet first (the capped branch); it must run and return a
    supporting facet at least as good as the best of a plain sampled search."""
    Zs = _centred(1500, 8, seed=2)
    cap = max(2_000, int(5e7 / (8**3 + 1500 * 8)))
    assert 8 * (1500 - 8) > cap  # the capped branch is taken
    b, a, T = search._local_search(Zs, 8, 1e-10, 200, np.random.default_rng(0))
    assert T is not None and _is_supporting_facet(Zs, b, a, T)
    rng = np.random.default_rng(5)
    sampled = np.array([np.sort(rng.choice(1500, 8, replace=False)) for _ in range(2000)])
    rows, _, bs = facets._hyperplanes(Zs, sampled, 1e-10)
    assert rows.size == 0 or b >= float(np.max(bs))


def test_local_search_ascent_finds_the_facet_of_a_polygon():
    """A regular 12-gon with the origin inside (rank 2): the facet found is an edge, at distance
    cos(pi/12) * R from the centre -- so b = -cos(pi/12) after the scaling to max norm 1."""
    k = 12
    t = 2 * np.pi * np.arange(k) / k
    Zs = np.c_[np.cos(t), np.sin(t)]
    b, a, T = search._local_search(Zs, 2, 1e-10, 3, np.random.default_rng(0))
    assert T is not None and abs(b + np.cos(np.pi / k)) < 1e-12


LOCAL_SEARCH_CASES = [(30, 4, 0), (30, 4, 3), (25, 5, 3), (20, 6, 0), (20, 6, 1), (20, 6, 2)]


def test_local_search_reaches_the_enumerated_optimum():
    """Quality pin of the heuristic on instances small enough to enumerate: with one sampled
    subset, the smoothed ascent (tau_k = 0.1 * 0.98^k, cooling) and the walk never go past the
    best facet of the complete enumeration, and reach it on at least 5 of these 6 instances (all
    6 on one machine; (20, 6, 0) ends on another, still supporting, facet with OpenBLAS's
    Sandybridge kernel or numpy 1.x's AVX-512 exp, whose last bits the 300-step ascent amplifies;
    a heating schedule misses the optimum on each of them)."""
    reached = []
    for n, r, seed in LOCAL_SEARCH_CASES:
        Zs = _centred(n, r, seed)
        exact = facets._enumerate_facets(Zs, r, 1e-10)[0]
        b, a, T = search._local_search(Zs, r, 1e-10, 1, np.random.default_rng(0))
        assert b <= exact + 1e-9, (n, r, seed, b, exact)
        reached.append(abs(b - exact) < 1e-9)
    assert sum(reached) >= 5, list(zip(LOCAL_SEARCH_CASES, reached))


def test_local_search_last_capped_round_tries_the_documented_number_of_nearest_points(monkeypatch):
    """3200 centred points in R^2 (data seed 38): cap = int(5e7 / (2^3 + 3200 * 2)) = 7802
    hyperplanes.  The sample takes 1368 subsets, the ascent 32, the first walk round all
    r (n - r) = 6396 single swaps (they fit: 7802 - 1400 = 6402) and improves, so a second round
    runs with 6 hyperplanes of budget left: fewer than its 6396 swaps, so it tries the swaps with
    the (cap - used) // (2 r) = 6 // 4 = 1 point nearest the facet (_local_search's docstring):
    r * 1 = 2 subsets.  Mutant: at least 2 nearest points (4 subsets)."""
    nu, r = 3200, 2
    rng = np.random.default_rng(38)
    Z = rng.standard_normal((nu, r))
    Z -= Z.mean(axis=0)  # the origin is inside the hull: every facet supports it
    Zs = Z / np.max(np.linalg.norm(Z, axis=1))
    calls = _record_hyperplanes(monkeypatch)
    search._local_search(Zs, r, 1e-10, 1368, np.random.default_rng(0))
    sizes = [len(subsets) for subsets, _ in calls]
    cap = int(5e7 / (r**3 + nu * r))
    assert cap == 7802
    # _hyperplanes gets each round in blocks of `chunk` subsets: a block shorter than that ends a round
    chunk = int(4e6 // (r * (r + 1) + nu))
    rounds, acc = [], 0
    for size in sizes:
        acc += size
        if size < chunk:
            rounds.append(acc)
            acc = 0
    if acc:
        rounds.append(acc)
    assert rounds[0] == 1368, rounds  # the sample (the ascent and the walk rounds follow)
    if rounds[-1] == r * (nu - r):
        # the first walk round did not improve here (its path follows the rounding of the BLAS at
        # hand): no capped round to observe
        pytest.skip(f"no capped round on this machine's path (rounds {rounds})")
    used = sum(rounds[:-1])
    assert used == 1368 + 32 + r * (nu - r), rounds  # the sample, the ascent, one full round
    assert rounds[-1] == r * ((cap - used) // (2 * r)) == 2, rounds


@pytest.mark.parametrize(
    "n, r, seed, rng_seed",
    [
        (736, 8, 0, 0),  # the walk's last capped round is cut to the 3 hyperplanes left
        (378, 19, 10, 0),  # 19^3 + 378 * 19 = 14041 divides 5e7 + 1: the cap is int(3560.99...)
    ],
)
def test_local_search_never_exceeds_its_hyperplane_cap(monkeypatch, n, r, seed, rng_seed):
    """The docstring's cap: at most max(2000, 5e7 / (r^3 + n r)) hyperplanes are computed.  These
    instances take the walk to the end of its budget (a round that would overshoot is cut)."""
    calls = _spy_hyperplanes(monkeypatch)
    Zs = _centred_2(n, r, seed)
    b, a, T = search._local_search(Zs, r, 1e-10, 10**6, np.random.default_rng(rng_seed))
    cap = max(2_000, int(5e7 / (r**3 + n * r)))
    used = sum(len(s) for s, _ in calls)
    assert used <= cap
    assert T is not None and np.all(Zs @ a - b >= -1e-9) and np.allclose(Zs[T] @ a, b, atol=1e-9)


def test_local_search_walk_swaps_in_the_points_nearest_the_facet(monkeypatch):
    """The pivoting walk: each candidate is the current best facet T with ONE point replaced by a
    point outside T (r distinct points); when a full swap round exceeds the remaining budget, the
    points swapped in are the ones nearest T's hyperplane (smallest <a, z> - b)."""
    calls = _spy_hyperplanes(monkeypatch)
    Zs = _centred_2(1500, 8, seed=2)
    r, nu = 8, 1500
    search._local_search(Zs, r, 1e-10, 200, np.random.default_rng(0))
    walk = 0
    capped = 0
    for subsets, best in calls[2:]:  # after the sampled subsets and the ascent's subsets
        b, a, T = best
        Tset = set(int(t) for t in T)
        assert all(len(set(int(v) for v in s)) == r for s in subsets)  # r distinct points
        swapped = set()
        for s in subsets:
            new = set(int(v) for v in s) - Tset
            assert len(new) == 1 and len(Tset & set(int(v) for v in s)) == r - 1
            swapped |= new
        walk += 1
        if len(swapped) < nu - r:  # a capped round
            capped += 1
            others = np.setdiff1d(np.arange(nu), T)
            dist = Zs @ a - b
            out = np.setdiff1d(others, sorted(swapped))
            assert max(dist[sorted(swapped)]) <= min(dist[out]) + 1e-12
    assert walk >= 2 and capped >= 1


def test_local_search_without_any_facet_returns_its_best_ascent_direction():
    """With tol_side = -1 no hyperplane counts as supporting, so the result is the fallback: the
    best of the 32 smoothed-ascent directions, a unit a with b = min_i <a, z_i> (a lower-bound
    witness, subset None).  The origin is 0.02 from the edge y = 0.02 of this triangle: the best
    direction approaches (0, 1) (b -> -0.02); a poor start direction stays near -0.7."""
    Zs = np.array([[1.0, 0.02], [-1.0, 0.02], [0.0, -1.0]])
    Zs /= np.max(np.linalg.norm(Zs, axis=1))
    b, a, T = search._local_search(Zs, 2, -1.0, 1, np.random.default_rng(0))
    assert T is None
    assert np.linalg.norm(a) == pytest.approx(1.0, rel=1e-12) and b == pytest.approx(float(np.min(Zs @ a)), abs=1e-15)
    assert -0.1 <= b <= -0.02 / np.linalg.norm([1.0, 0.02]) + 1e-12  # never above the true optimum


@pytest.mark.parametrize("budget", [1374, 1375])
def test_local_search_walk_spends_exactly_its_budget(monkeypatch, budget):
    """3200 centred points in R^2: cap = int(5e7 / (2^3 + 3200 * 2)) = 7802 hyperplanes, blocks of
    int(4e6 // (2 * 3 + 3200)) = 1247 subsets.  The sample takes ``budget`` subsets, the ascent 32,
    so the first swap round of the walk -- the r (n - r) = 6396 single swaps of the best facet so
    far -- fits the remaining budget exactly when budget = 1374 (all of them are tried, and the
    whole cap is spent), and exceeds it by one when budget = 1375 (then only the swaps with the
    (cap - used) // (2 r) = 1598 points nearest that facet are tried).  Mutants: r^4 in the cap, a
    budget that starts at 1, ``>=`` / ``cap + used`` in the too-many-swaps test, ``cap + used``
    in the number of nearest points, a different block size, the first subset of a block
    skipped."""
    nu, r = 3200, 2
    Zs = _centred_3(nu, r, seed=7)
    cap, chunk = int(5e7 / (r**3 + nu * r)), int(4e6 // (r * (r + 1) + nu))
    assert (cap, chunk) == (7802, 1247)
    calls = _record_hyperplanes(monkeypatch)
    b, a, T = search._local_search(Zs, r, 1e-10, budget, np.random.default_rng(0))
    sizes = [len(s) for s, _ in calls]
    assert sum(sizes) <= cap
    n_sample = len(_blocks([budget], chunk))
    sample = np.concatenate([s for s, _ in calls[:n_sample]])
    assert sample.shape == (budget, r) and all(len(set(row)) == r for row in sample.tolist())
    assert sizes[n_sample] == 32  # the r most active points of each of the 32 ascent directions
    before = _first_best(calls[: n_sample + 1])
    assert before is not None and before[2] is not None
    remaining = cap - budget - 32
    others = np.setdiff1d(np.arange(nu), before[2])
    if budget == 1374:
        assert remaining == r * (nu - r)
        assert sizes == _blocks([budget, 32, r * (nu - r)], chunk) and sum(sizes) == cap
        tried = {tuple(int(x) for x in row) for s, _ in calls[n_sample + 1 :] for row in s}
        assert tried == _swaps(before[2], others)
    else:
        assert remaining == r * (nu - r) - 1
        k = remaining // (2 * r)
        assert sizes[: n_sample + 1 + len(_blocks([r * k], chunk))] == _blocks([budget, 32, r * k], chunk)
        round1 = [s for s, _ in calls[n_sample + 1 : n_sample + 1 + len(_blocks([r * k], chunk))]]
        tried = {tuple(int(x) for x in row) for s in round1 for row in s}
        dist = Zs[others] @ before[1] - before[0]  # height above the facet (>= 0 up to tol_side)
        nearest = others[np.argsort(dist)[:k]]
        assert dist[np.argsort(dist)[k]] > dist[np.argsort(dist)[k - 1]]  # no tie at the cut
        assert tried == _swaps(before[2], nearest)
    assert b >= before[0] and T is not None


def test_local_search_sample_is_a_quarter_of_the_cap_at_most(monkeypatch):
    """40 points in R^30: cap = max(2000, int(5e7 / (30^3 + 40 * 30))) = 2000, so a budget of 1000
    sampled subsets is cut to cap // 4 = 500 (mutant: cap // 5), each of r distinct points; the
    ascent adds 32 subsets of the r most active points (sorted); nothing beyond the cap."""
    nu, r = 40, 30
    Zs = _centred_3(nu, r, seed=1)
    calls = _record_hyperplanes(monkeypatch)
    search._local_search(Zs, r, 1e-10, 1000, np.random.default_rng(0))
    sizes = [len(s) for s, _ in calls]
    assert sizes[:2] == [500, 32] and sum(sizes) <= 2000
    assert all(len(set(row)) == r for row in calls[0][0].tolist())
    asc = calls[1][0]
    assert np.array_equal(asc, np.sort(asc, axis=1)) and all(len(set(row)) == r for row in asc.tolist())


def test_local_search_ascent_ends_on_edges_of_a_polygon(monkeypatch):
    """A regular 12-gon around the origin: the smoothed ascent of g(f) = min_i <f, z_i> on the
    circle ends, from every one of its 32 random starts, at an edge normal -- its two most active
    points are adjacent vertices (an edge of the polygon)."""
    k = 12
    t = 2 * np.pi * np.arange(k) / k
    Zs = np.c_[np.cos(t), np.sin(t)]
    calls = _record_hyperplanes(monkeypatch)
    search._local_search(Zs, 2, 1e-10, 1, np.random.default_rng(0))
    asc = calls[1][0]
    assert asc.shape == (32, 2)
    assert all((j - i) % k in (1, k - 1) for i, j in asc.tolist()), asc.tolist()


def test_local_search_capped_round_at_the_floor_of_the_cap(monkeypatch):
    """100 centred points in R^30: 5e7 / (30^3 + 100 * 30) = 1666 < 2000, so the cap is its floor,
    2000 hyperplanes (_local_search's docstring).  The sample takes 469 subsets, the ascent 32; the
    first walk round's r (n - r) = 2100 swaps exceed the 2000 - 501 = 1499 left, so it tries the
    swaps with the (cap - used) // (2 r) = 1499 // 60 = 24 points nearest the facet: 720 subsets
    (a floor of 2001 would give 1500 // 60 = 25 points)."""
    nu, r = 100, 30
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((nu, r))
    Z -= Z.mean(axis=0)  # the origin is inside the hull: every facet supports it
    Zs = Z / np.max(np.linalg.norm(Z, axis=1))
    sizes, found = [], []
    real = facets._hyperplanes

    def spy(Zs, subsets, tol_side):
        out = real(Zs, subsets, tol_side)
        sizes.append(len(subsets))
        found.append(out[0].size > 0)
        return out

    monkeypatch.setattr(search, "_hyperplanes", spy)
    search._local_search(Zs, r, 1e-10, 469, np.random.default_rng(0))
    assert any(found[:2])  # a supporting facet before the walk: the walk runs
    assert sizes[:3] == [469, 32, r * ((2000 - 469 - 32) // (2 * r))] == [469, 32, 720]
