"""Tests of reference/test_von_neumann.py."""

from __future__ import annotations

import inspect
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, strategies as st

import reference
import reference as ref
from reference import gram, nvn
from reference.arithmetic import g_norm
from reference.exact import rational, verify_exact
from tests.support.instances import G3, PAIR, TRI, XOR_LIN_G, XOR_X, XOR_Y, _, f64, gnorm, in_simplex, planted, seeds
from tests.support.numba import needs_numba


def test_nvn_default_epsilon_is_1e_3():
    # G = [[1, c], [c, 1]], p_0 = (1/2, 1/2): ||p_0||_G^2 = (1 + c)/2.  With 1 + c = 2^-19,
    # ||p_0||_G = 2^-10 = 9.77e-4 <= 1e-3: a certificate at k = 0; with 1 + c = 2^-17,
    # ||p_0||_G = 2^-9 = 1.95e-3 > 1e-3, and G p_0 > 0: the primal exit at k = 0.
    assert inspect.signature(nvn).parameters["epsilon"].default == 1e-3
    for e, status in ((19, "certificate"), (17, "separator")):
        c = -1 + 2.0**-e
        r = nvn(np.array([[1.0, c], [c, 1.0]]))
        assert (r.status, r.iterations) == (status, 0)


def test_nvn_certificate_test_is_made_in_the_working_precision():
    # G = [[1, c], [c, 1]], c = fl(-1/3), p_0 = (1/2, 1/2): ||p_0||_G^2 = (1 + c)/2 exactly.  At
    # 30 digits, epsilon just above ||p_0||_G (relative 1e-20) makes p_0 an epsilon-certificate,
    # and NVN tests ||p_k||_G <= epsilon before G p_k > 0 (docstring: "in order") -- though
    # p_0 also separates.  In float64 that norm rounds up, above epsilon: the test must be made
    # at the working precision.
    import mpmath
    from reference.arithmetic import arithmetic, g_norm
    from reference.exact import rational

    G = np.array([[1.0, -1 / 3], [-1 / 3, 1.0]])
    Q = (1 + Fraction(-1 / 3)) / 2
    ar = arithmetic(30)
    with ar.context():
        eps = mpmath.sqrt(mpmath.mpf(Q.numerator) / Q.denominator) * (1 + mpmath.mpf(10) ** -20)
        assert rational(eps) ** 2 > Q  # exactly: p_0 is an epsilon-certificate
        assert g_norm(G, np.array([0.5, 0.5])) > eps  # the float64 norm is above epsilon
    res = ref.nvn(G, eps, precision=30)
    assert res.status == ref.CERTIFICATE and res.iterations == 0
    assert [float(v) for v in res.p] == [0.5, 0.5]
    assert ref.nvn(G, float(eps)).status == ref.SEPARATOR  # float64: the norm is above epsilon


def test_nvn_float_only_certificate_does_not_hide_the_primal_exit():
    """G = [[1, c], [c, 1]] with c = -5/8, p_0 = (1/2, 1/2): ||p_0||_G^2 = (1 + c)/2 = 3/16 exactly and
    G p_0 = (3/16, 3/16) > 0.  With epsilon = fl(sqrt(3)/4), which is below sqrt(3)/4, the computed
    ||p_0||_G equals epsilon (the float test passes) but the exact one exceeds it: no certificate
    (RP14 Alg. 5's test is ||p_k||_G <= epsilon), and the primal exit of E-A6 returns p_0 at k = 0
    (`or not _verify(...)` keeps claiming the unverifiable certificate
    and never reaches the primal exit)."""
    c = -0.625
    G = np.array([[1.0, c], [c, 1.0]])
    epsilon = float(np.sqrt(3.0)) / 4
    assert Fraction(epsilon) ** 2 < Fraction(3, 16)  # exactly: ||p_0||_G > epsilon
    assert g_norm(G, np.array([0.5, 0.5])) <= epsilon  # ... while the float test says <=
    r = nvn(G, epsilon, max_iter=50)
    assert (r.status, r.iterations) == ("separator", 0)
    np.testing.assert_array_equal(r.alpha, [0.5, 0.5])


def test_nvn_primal_exit_is_strict():
    """E-A6's primal exit needs min_i (G p_k)_i > 0.  For a_1 = e_1, a_2 = e_2, a_3 = -e_2,
    G p_0 = (1/3, 0, 0) exactly (in float64 too): no claim at k = 0, so a run stopped there reports
    a plain budget exhaustion, not a rejected separator claim (`>= 0`
    claims a separator that its verification then refuses)."""
    G = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, -1.0], [0.0, -1.0, 1.0]])
    assert (G @ np.full(3, 1 / 3))[1] == 0.0
    r = nvn(G, 0.1, max_iter=0)
    assert r.status == "max_iter" and r.iterations == 0
    assert "not verified" not in r.message and "separator" not in r.message


def test_nvn_line_search_step_is_positive_when_den_rounds_to_one():
    """RP14 Alg. 5's theta_k = clip(<w, w - a> / ||w - a||^2, 0, 1) for any ||w - a||^2 > 0.  Points
    a_1 = e_1, a_2 = -e_1, a_3 = e_2, a_4 = (0, -c, s) with c = 1 - 2^-53: ||w_0||^2 = (1 - c)/8 = 2^-56
    (so ||w_0|| > epsilon = 1e-9), (G p_0)_1 = 0, j = 1, and ||w_0 - a_1||^2 = 1 + 2^-56, which is 1.0
    in float64.  theta_0 must still be the (tiny, positive) exact ratio, up to round-off (kills
    von_neumann._step_33: `den > 1` takes theta = 0 when the denominator rounds to 1)."""
    c = np.nextafter(1.0, 0.0)
    G = np.array([[1, -1, 0, 0], [-1, 1, 0, 0], [0, 0, 1, -c], [0, 0, -c, 1.0]])
    r = reference.von_neumann.nvn(G, 1e-9, max_iter=1, trace=True)  # (the textbook's: 1e-9 is below the floor)
    s1 = r.trace[1]
    assert s1.j == 0
    Gq = [[Fraction(v) for v in row] for row in G]
    p = [Fraction(1, 4)] * 4
    d = [p[i] - (1 if i == 0 else 0) for i in range(4)]
    Gd = [sum(Gq[i][k] * d[k] for k in range(4)) for i in range(4)]
    num, den = sum(p[i] * Gd[i] for i in range(4)), sum(d[i] * Gd[i] for i in range(4))
    assert num > 0 and den > 0
    exact = num / den
    assert abs(Fraction(float(s1.theta)) - exact) <= exact * Fraction(2, 2**52)


@needs_numba
def test_norm_p_on_the_factored_operator_is_never_nan():
    """Three unit vectors about 120 degrees apart (exact binary64 values): p_0 = (1/3, 1/3, 1/3) has
    Z^T p_0 ~ 0, and p^T (Z (Z^T p)) rounds to a negative number (about -4e-34).  ||p||_G >= 0
    always: NVN's certificate at k = 0 reports norm_p in [0, epsilon], not sqrt(negative) = NaN."""
    from reference.fast.operator import linear_gram

    X = np.array([[float.fromhex(v) for v in row] for row in [
        ["-0x1.bb6d26ffa7a17p-1", "-0x1.ffed0c23295aep-2"],
        ["0x1.bb6235d789fadp-1", "-0x1.000979d07cbefp-1"],
        ["0x1.5e2503b4d2c3ap-14", "0x1.ffffffe2116c4p-1"],
    ]])  # fmt: skip
    L = linear_gram(X, np.ones(3))
    p0 = np.full(3, 1.0 / 3)
    assert float(p0 @ L.matvec(p0)) < 0  # the instance does what it is here for
    r = reference.nvn(L, 0.5, engine="fast")
    assert (r.status, r.iterations) == (reference.CERTIFICATE, 0)
    assert 0.0 <= r.info["norm_p"] <= 0.5


@pytest.mark.parametrize("scale", [1e200, 1e-200, 2.0**600, 2.0**-1060])
def test_linear_gram_at_extreme_scales_is_the_scaled_operator(scale):
    """linear_gram is invariant under x_i -> c x_i: rows far beyond sqrt(max float) or below
    sqrt(min normal) give the same Z as the unscaled row (no zero or inf row, no warning), and
    on X = [[s, s], [-1, 0]], y = (1, 1) -- separable, w = (-1, 2) -- no certificate is claimed."""
    import warnings

    pytest.importorskip("numba")
    from reference.fast.operator import linear_gram

    X = np.array([[scale, scale], [-1.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Z = linear_gram(X, np.ones(2)).Z.toarray()
    Z1 = linear_gram(np.array([[1.0, 1.0], [-1.0, 0.0]]), np.ones(2)).Z.toarray()
    if np.frexp(scale)[0] == 0.5:  # a power of two: the scaling back is exact, Z the same bits
        assert np.array_equal(Z, Z1), f"scale {scale}"
    else:
        np.testing.assert_allclose(Z, Z1, rtol=4 * 2.0**-52, atol=0, err_msg=f"scale {scale}")
    op = linear_gram(X, np.ones(2))
    for r in (ref.nvn(op, 1e-3, engine="fast"), ref.isnkpvn(op, 2, 1e-3, engine="fast")):
        assert r.status == "separator", f"{r.algorithm} at scale {scale}: {r.status} ({r.message})"
        assert verify_exact(r, op) == ""


def test_the_operator_outside_the_compiled_engine_is_a_clear_value_error():
    from reference.fast.operator import linear_gram

    op = linear_gram(np.eye(2), [1, 1])
    with pytest.raises(ValueError, match="pass engine='fast'"):
        ref.nvn(op, 0.1)
    with pytest.raises(ValueError, match="margin_from_data"):
        ref.margin(op)


def test_nvn_hand_first_steps():
    # p0 = 1/3: w0 = (0,1/3), G p0 = (0,0,1/3) -> tie, j=0; a = (1,0):
    # theta0 = <w,w-a>/||w-a||^2 = (1/9)/(10/9) = 1/10, p1 = (0.4,0.3,0.3), w1 = (0.1,0.3);
    # G p1 = (0.1,-0.1,0.3) -> j=1, a = (-1,0): theta1 = (0.1+0.1)/(0.1+0.2+1) = 2/13,
    # p2 = (11/13) p1 + (2/13) e1 = (4.4, 5.3, 3.3)/13.
    r = nvn(G3, 0.01, max_iter=2, trace=True)
    assert (r.status, r.iterations) == ("max_iter", 2)
    assert [s.j for s in r.trace[1:]] == [0, 1]
    assert float(r.trace[1].theta) == pytest.approx(0.1, rel=1e-14)
    assert float(r.trace[2].theta) == pytest.approx(2 / 13, rel=1e-14)
    np.testing.assert_allclose(f64(r.trace[1].p), [0.4, 0.3, 0.3], rtol=1e-14)
    np.testing.assert_allclose(f64(r.p), np.array([4.4, 5.3, 3.3]) / 13, rtol=1e-14)
    assert r.alpha is None


def test_nvn_certificate_boundary_and_exit_order():
    G = np.array([[1.0, -0.5], [-0.5, 1.0]])  # ||p0||_G = 1/2 exactly, G p0 = (1/4, 1/4) > 0
    r = nvn(G, 0.5)  # ||p0||_G <= eps (non-strict) is tested before the primal exit
    assert (r.status, r.iterations, r.alpha) == ("certificate", 0, None)
    np.testing.assert_array_equal(f64(r.p), [0.5, 0.5])
    r = nvn(G, 0.5 - 2**-30)  # E-A6 primal exit
    assert (r.status, r.iterations) == ("separator", 0)
    np.testing.assert_array_equal(f64(r.alpha), [0.5, 0.5])
    np.testing.assert_array_equal(f64(r.p), [0.5, 0.5])


@pytest.mark.parametrize("G", [PAIR, TRI], ids=["pair", "tri"])
def test_nvn_witness_at_start(G):
    r = nvn(G, 2e-8)  # ||1_n/n||_G = 0
    assert (r.status, r.iterations) == ("certificate", 0)
    assert float(r.info["norm_p"]) == 0.0


def test_nvn_infeasible_bound_and_line_search():
    eps = 0.02
    r = nvn(G3, eps, trace=True)
    assert r.status == "certificate" and r.alpha is None
    assert gnorm(G3, r.p) <= eps and in_simplex(r.p)
    assert r.iterations <= 1 / eps**2
    # ||w_k|| <= 1/sqrt(k+1) (1/||w_{k+1}||^2 >= 1/||w_k||^2 + 1), the exit fired first at k
    norms = [gnorm(G3, s.p) for s in r.trace]
    assert all(nm <= 1 / math.sqrt(s.k + 1) + 1e-15 for nm, s in zip(norms, r.trace))
    assert all(nm > eps for nm in norms[:-1])
    for a, b in zip(r.trace, r.trace[1:]):
        pa, pb = f64(a.p), f64(b.p)
        assert b.j == int(np.argmin(G3 @ pa))
        assert 0 <= float(b.theta) <= 1 and in_simplex(pb)
        e = np.eye(3)[b.j]
        assert pb @ G3 @ (pa - e) == pytest.approx(0, abs=1e-14)  # exact line search: optimality


@given(seeds, st.integers(2, 20))
def test_nvn_feasible_primal_exit(seed, n):
    X, y, _, _ = planted(seed, n, d=3)
    G = gram(X, y)
    r = nvn(G, 1e-6)
    assert r.status == "separator"
    assert np.all(G @ f64(r.alpha) > 0)
    np.testing.assert_array_equal(f64(r.alpha), f64(r.p))


def test_nvn_kernel():
    r = nvn(gram(XOR_X, XOR_Y, "polynomial", degree=2), 1e-3)
    # p0 = 1_4/4, G p0 = (8/36) 1_4 > 0 and ||p0||_G = sqrt(8/36)/2 > 1e-3
    assert (r.status, r.iterations) == ("separator", 0)
    assert nvn(XOR_LIN_G, 1e-3).status == "certificate"  # linear: z0 + z1 = 0


@pytest.mark.parametrize("epsilon", [0.0, -0.1, 1.0 + 1e-12, float("nan"), float("inf"), "0.1"])
def test_nvn_epsilon_range(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        nvn(np.eye(2), epsilon)


def test_nvn_epsilon_one_is_allowed():
    r = nvn(PAIR, 1.0)  # ||p0||_G <= 1 always
    assert (r.status, r.iterations) == ("certificate", 0)
