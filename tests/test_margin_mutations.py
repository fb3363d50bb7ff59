"""Mutation-targeted tests for reference.margin: margin() branches, _kkt, _wolfe.

Every expected value is derived by hand from a planted instance (closed-form polygons,
hand-traced Wolfe steps), never copied from the implementation's output.
"""

import math

import mpmath
import numpy as np
import pytest

import sys

import reference  # noqa: F401
from reference.arithmetic import arithmetic
from reference.margin import margin, min_norm_point, lower_bound

rm = sys.modules["reference.margin"]  # the package re-exports the function under the same name


def gram(Z):
    Z = np.asarray(Z, dtype=float)
    return Z @ Z.T


# Square (+-1, +-1): origin at the centre, rank 2, C(4, 2) = 6 subsets, delta_max = 1.
SQUARE = gram([[1, 1], [1, -1], [-1, 1], [-1, -1]])
# Kite with the origin strictly inside; the first Wolfe step (from the shortest point
# z0 = (1, 0) to the affine minimizer of {z0, z2}) does not reach 0.
# Edges: z0-z1 on x/2 + y/2... the facets are computed in the test that needs them.
# Triangle (1,0), (-1,2), (2,-3): separable; min-norm point on edge z1-z2 at (5,3)/34,
# margin 1/sqrt(34), weights (0, 21/34, 13/34).  One Wolfe major step from z0 (the
# shortest point) adds z1 (K_01 = -1 is the smallest) -> affine minimizer (1/2, 1/2),
# weights (3/4, 1/4, 0), norm 1/sqrt(2), and K p = (1/2, 1/2, -1/2) has a negative entry.
TRI_Z = np.array([[1.0, 0.0], [-1.0, 2.0], [2.0, -3.0]])
TRI = gram(TRI_Z)


# -- argument validation ------------------------------------------------------------------------


def test_max_iter_and_max_subsets_low_is_one():
    K = np.eye(2)
    assert margin(K, max_iter=1).feasible is True
    assert margin(K, max_subsets=1).feasible is True
    with pytest.raises(ValueError, match=r"^max_iter must be an integer >= 1"):
        margin(K, max_iter=0)
    with pytest.raises(ValueError, match=r"^max_subsets must be an integer >= 1"):
        margin(K, max_subsets=0)


# -- feasible, Wolfe branch -------------------------------------------------------------------


def test_feasible_wolfe_branch_fields_float():
    # z = e1, e2: p* = (1/2, 1/2), margin 1/sqrt(2) < 1.
    m = margin(np.eye(2))
    assert m.feasible is True
    assert m.value == pytest.approx(1 / math.sqrt(2), rel=1e-12)
    assert m.lower <= 1 / math.sqrt(2) <= m.upper
    assert m.support == (0, 1)
    np.testing.assert_allclose(np.asarray(m.p, float), [0.5, 0.5], rtol=1e-14)
    np.testing.assert_allclose(np.asarray(m.alpha, float), [0.5, 0.5], rtol=1e-14)
    assert m.precision == "float64"
    assert m.method == (
        "feasible: Wolfe min-norm point + KKT on its support; lower = min(K p*)/||p*||_K, "
        "upper = ||p*||_K [RP14 Lemma 3]"
    )


def test_feasible_wolfe_branch_method_mp():
    m = margin(np.eye(2), precision=30)
    assert m.feasible is True
    assert m.method.startswith("feasible: Wolfe min-norm point + KKT on its support (re-solved at 30 digits); ")
    with mpmath.workdps(40):
        assert abs(m.value - 1 / mpmath.sqrt(2)) < mpmath.mpf(10) ** -25
    assert m.precision == "mpmath, 30 decimal digits"


# -- feasible, decided by the facet enumeration ----------------------------------------------


def test_feasible_found_by_facets_when_wolfe_is_cut_short():
    m = margin(TRI, max_iter=1)
    true = 1 / math.sqrt(34)
    assert m.feasible is True
    assert m.method.startswith("feasible (the facet enumeration found a separating hyperplane)")
    assert m.lower == pytest.approx(true, rel=1e-9) and m.lower <= true
    # value is the (non-converged) min-norm estimate ||(3/4, 1/4, 0)||_K = 1/sqrt(2), inside the bracket
    assert m.value == pytest.approx(1 / math.sqrt(2), rel=1e-12)
    assert m.upper >= 1 / math.sqrt(2) and m.upper == pytest.approx(1 / math.sqrt(2), rel=1e-12)
    np.testing.assert_allclose(np.asarray(m.p, float), [0.75, 0.25, 0.0], atol=1e-15)
    assert m.support == (0, 1)
    assert m.alpha is not None
    assert lower_bound(TRI, m.alpha) == pytest.approx(true, rel=1e-9)


# -- infeasible, complete enumeration ---------------------------------------------------------


def test_square_complete_enumeration_at_exact_budget():
    m = margin(SQUARE, max_subsets=6)  # C(4, 2) = 6: still complete
    assert m.feasible is False
    assert m.lower <= -1 <= m.upper
    assert m.upper == pytest.approx(-1, abs=1e-9)
    assert m.value == pytest.approx(-1, abs=1e-12)
    assert m.method.startswith("infeasible: complete enumeration of the C(4, 2) = 6 point subsets (rank 2)")
    assert m.method.endswith(
        "; value = -delta_max^rel [RP14 Theorem 3, E-A3]; lower from the facet normal (alpha-form), "
        "upper = -delta_max exact up to round-off"
    )
    assert m.p is not None and m.support is not None and m.precision == "float64"
    assert sum(np.asarray(m.p, float)) == pytest.approx(1)


def test_square_complete_enumeration_mp_method():
    m = margin(SQUARE, precision=30)
    assert m.feasible is False
    assert m.method.startswith("infeasible: complete enumeration")
    assert m.method.endswith("exact up to round-off; facet re-solved at 30 digits")
    assert abs(m.value + 1) < mpmath.mpf(10) ** -20


def test_complete_enumeration_decides_infeasible_without_converged_wolfe():
    # max_iter=1: Wolfe does not converge (so it proves nothing); the complete facet
    # enumeration alone certifies 0 in the hull -> feasible False, margin -1.
    m = margin(SQUARE, max_iter=1)
    assert min_norm_point(SQUARE, max_iter=1).converged is False
    assert m.feasible is False
    assert m.lower <= -1 <= m.upper
    assert m.upper == pytest.approx(-1, abs=1e-9)
    assert m.method.startswith("infeasible: complete enumeration")


def test_regular_polygon_bracket_contains_inradius():
    # regular k-gon of circumradius R about the origin: m = -delta_max = -R cos(pi / k)
    bad = []
    for k in range(3, 13):
        for R in (1.0, 3.3e3, 1e6, 7.7e8):
            for phase in (0.1, 0.5, 1.3, 2.9):
                t = phase + 2 * np.pi * np.arange(k) / k
                m = margin(gram(R * np.c_[np.cos(t), np.sin(t)]), of="span")
                true = -R * math.cos(math.pi / k)
                if not (m.feasible is False and m.lower <= true <= m.upper and m.upper - m.lower <= 1e-9 * R):
                    bad.append((k, R, phase, m.lower, m.upper))
    assert bad == []


# -- infeasible / undecided, local search -----------------------------------------------------


def test_square_local_search_infeasible():
    m = margin(SQUARE, max_subsets=5)  # 6 > 5: local search
    assert m.feasible is False  # Wolfe converged to the origin
    assert m.method.startswith("infeasible: C(4, 2) = 6 subsets exceed max_subsets=5; ")
    assert m.method.endswith(
        "; value and lower from a local search over facets (NOT certified tight); "
        "upper = ||p*||_K of the min-norm point (~0)"
    )
    assert m.lower <= -1 + 1e-9
    assert m.upper >= -1e-12 and m.upper == pytest.approx(0, abs=1e-6)


KITE = gram([[1.0, 0.0], [0.0, 2.0], [-3.0, 0.0], [0.0, -2.0]])


def test_kite_local_search_undecided():
    # Origin inside the kite; Wolfe cut at one major step (not converged) and local search
    # (6 > 5 subsets): neither certifies tightness -- but the one Wolfe step already lands on
    # p with p^T K p = 0 in exact arithmetic (K and p are dyadic), so 0 is in the hull: upper = 0.
    m = margin(KITE, max_iter=1, max_subsets=5, of="span")
    assert m.feasible is False and m.upper == 0
    assert m.method.startswith("infeasible: C(4, 2) = 6 subsets exceed max_subsets=5; ")
    assert "NOT certified tight" in m.method
    assert m.lower <= 0
    # facet z0-z1: through (1,0),(0,2): distance 2/sqrt(5) is the nearest facet
    assert m.lower <= -2 / math.sqrt(5) + 1e-9
    # with complete enumeration it is decided
    m2 = margin(KITE, max_iter=1, of="span")
    assert m2.feasible is False
    assert m2.lower <= -2 / math.sqrt(5) <= m2.upper
    assert m2.upper == pytest.approx(-2 / math.sqrt(5), abs=1e-9)


def test_local_search_is_deterministic(monkeypatch):
    rng = np.random.default_rng(12345)
    Z = rng.standard_normal((40, 6))
    Z -= Z.mean(axis=0)  # origin inside
    K = gram(Z)
    seeds = []
    orig = np.random.default_rng

    def spy(seed=None):
        seeds.append(seed)
        return orig(seed)

    monkeypatch.setattr(rm.np.random, "default_rng", spy)
    a = margin(K, max_subsets=50, of="span")
    b = margin(K, max_subsets=50, of="span")
    assert seeds and all(s is not None for s in seeds)
    assert a.method.startswith("infeasible: C(40, 6) = 3838380 subsets exceed max_subsets=50")
    assert a.lower == b.lower and a.value == b.value
    np.testing.assert_array_equal(np.asarray(a.alpha, float), np.asarray(b.alpha, float))


# -- origin on the hull boundary --------------------------------------------------------------


def test_origin_is_a_data_point_margin_zero():
    # z0 = 0, z1 = (1, 0): every alpha has (K alpha)_0 = 0, so m = 0; no strict separator.
    K = gram([[0.0, 0.0], [1.0, 0.0]])
    m = margin(K)
    assert m.feasible is False
    assert m.value == 0 and m.upper == 0
    assert m.lower <= 0
    assert m.method.startswith("infeasible: complete enumeration")


def test_origin_on_an_edge_margin_zero():
    K = gram([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    m = margin(K)
    assert m.feasible is False
    assert m.lower <= 0 <= m.upper
    assert abs(m.value) < 1e-12


# -- _wolfe: iterations, convergence, polish, tolerance scaling ------------------------------


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
        K = gram(Z)
        prev = math.inf
        for mi in range(1, 10):
            nr = float(min_norm_point(K, max_iter=mi).norm)
            assert nr <= prev * (1 + 1e-12), (seed, mi)
            prev = nr


def test_wolfe_starts_at_the_shortest_point():
    # the shortest point z2 = (1, 0) is already the min-norm point: K p = (3, 2, 1) >= 1
    K = gram([[3.0, -1.0], [2.0, 5.0], [1.0, 0.0]])
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


@pytest.mark.parametrize("seed", range(12))
def test_wolfe_matches_brute_force(seed):
    rng = np.random.default_rng(1000 + seed)
    d = 2 + seed % 3
    n = 6 + seed % 4
    Z = rng.standard_normal((n, d)) + (1.5 if seed % 2 else 0.2) * rng.standard_normal(d)
    q, S = _brute_min_norm(Z)
    r = min_norm_point(gram(Z))
    assert r.norm**2 == pytest.approx(q, rel=1e-8, abs=1e-10)
    if q > 1e-6:
        assert r.support == S


# -- precision mode: the warm-started Wolfe must add a point the float64 test cannot see -------


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


# -- _kkt ------------------------------------------------------------------------------------


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
