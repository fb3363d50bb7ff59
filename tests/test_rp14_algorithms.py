"""Tests of the RP14 algorithms: Perceptron (Alg. 1), Normalized Perceptron (Alg. 2), NKP (Alg. 3),
SNKP (Alg. 4), NVN (Alg. 5), SNKPVN (Alg. 6) and ISNKPVN (Alg. 7).

Expected values are hand-computed (the derivations are in the comments) or known by
construction (planted margins, points whose convex hull contains the origin).  Instances are
chosen so that every decision (argmin, exit test) is exact in float64 where a test pins it.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference import (
    gram,
    isnkpvn,
    nkp,
    normalized_perceptron,
    nvn,
    perceptron,
    snkp,
    snkpvn,
)
from reference.arithmetic import Arithmetic
from reference.smoothed import OuterRecord, loss, p_mu_q, smoothed_loss, smoothed_loss_q

# -- instances --------------------------------------------------------------------------------

# z0 = (1,0), z1 = (-1,1), z2 = (2,-1), all labels +1: separable (w = (1, 1.5)).
SEP3 = np.array([[1.0, 0.0], [-1.0, 1.0], [2.0, -1.0]])
# z0 = (3,0), z1 = (-1,1), z2 = (-1,2): separable (w = (1, 2)); cyclic and most-violated differ.
SEP3B = np.array([[3.0, 0.0], [-1.0, 1.0], [-1.0, 2.0]])
ONES3 = np.ones(3)

# XOR: not linearly separable (z0 + z1 = 0), separable by a degree-2 polynomial or Gaussian kernel.
XOR_X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
XOR_Y = np.array([1, 1, -1, -1])
# its linear normalized signed Gram, written exactly (gram() rounds the -1 entries to
# -(1 - 2^-52) in float64, which makes the instance barely feasible: G 1_4/4 = 5.6e-17 > 0).
XOR_LIN_G = np.array([[1.0, -1, 0, 0], [-1, 1, 0, 0], [0, 0, 1, -1], [0, 0, -1, 1]])

# x and -x with equal labels: G = [[1,-1],[-1,1]], W = {(1/2,1/2)}, ||1/2 1_2||_G = 0.
PAIR = np.array([[1.0, -1.0], [-1.0, 1.0]])
# three unit vectors at 120 degrees (inner products -1/2): ||1_3/3||_G = 0 exactly.
TRI = np.array([[1.0, -0.5, -0.5], [-0.5, 1.0, -0.5], [-0.5, -0.5, 1.0]])
# a0 = (1,0), a1 = (-1,0), a2 = (0,1): infeasible, W = {(1/2,1/2,0)}, ||1_3/3||_G = 1/3.
G3 = np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


def f64(v) -> np.ndarray:
    return np.array([float(x) for x in np.ravel(v)])


def gnorm(G, p) -> float:
    p = f64(p)
    return math.sqrt(max(float(p @ np.asarray(G, dtype=float) @ p), 0.0))


def in_simplex(p, tol=1e-12) -> bool:
    p = f64(p)
    return bool(np.all(p >= 0) and abs(p.sum() - 1) <= tol)


def planted(seed: int, n: int, d: int = 2, gap: float = 0.1):
    """Points of [-1,1]^d labelled by a unit u, keeping only those with |u.x| >= gap.

    Returns X, y, u and gamma_u = min_i y_i u.x_i >= gap (a lower bound on rho)."""
    rng = np.random.RandomState(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = np.empty((0, d))
    while X.shape[0] < n:
        x = rng.uniform(-1, 1, size=(4 * n, d))
        X = np.vstack([X, x[np.abs(x @ u) >= gap]])
    X = X[:n]
    y = np.where(X @ u > 0, 1, -1)
    return X, y, u, float(np.min(y * (X @ u)))


seeds = st.integers(min_value=0, max_value=10_000)


# =============================================================================================
# Algorithm 1: Perceptron
# =============================================================================================


def test_perceptron_cyclic_hand_run():
    # w0=0: all margins 0 -> j=0; w1=(1,0): margins (1,-1,2), scan from 1 -> j=1; w2=(0,1):
    # (0,1,-1), scan from 2 -> j=2 (a scan from 0 would take z0, margin 0); w3=(2,0) -> j=1;
    # w4=(1,1): (1,0,1) -> j=1; w5=(0,2) -> j=2; w6=(2,1) -> j=1; w7=(1,2): (1,1,0) -> j=2;
    # w8=(3,1) -> j=1; w9=(2,2): (2,0,2) -> j=1; w10=(1,3) -> j=2; w11=(3,2) -> j=1; w12=(2,3).
    r = perceptron(SEP3, ONES3, trace=True)
    assert r.status == "separator" and r.iterations == 12
    assert f64(r.w).tolist() == [2.0, 3.0]
    assert [s.j for s in r.trace[1:]] == [0, 1, 2, 1, 1, 2, 1, 2, 1, 1, 2, 1]
    assert [s.start for s in r.trace] == [0, 1, 2, 0, 2, 2, 0, 2, 0, 2, 2, 0, 2]
    assert f64(r.trace[2].w).tolist() == [0.0, 1.0]
    assert [s.k for s in r.trace] == list(range(13))
    assert r.alpha is None and r.p is None


def test_perceptron_cyclic_vs_most_violated():
    # cyclic: w1=(3,0): margins (9,-3,-3) -> j=1; w2=(2,1): (6,-1,0), scan from 2 -> j=2;
    # w3=(1,3): (3,2,5) separates.  (Restarting the scan at the last updated point would
    # take z1 again, whose margin is still -1.)
    r = perceptron(SEP3B, ONES3, trace=True)
    assert (r.status, r.iterations, f64(r.w).tolist()) == ("separator", 3, [1.0, 3.0])
    assert [s.j for s in r.trace[1:]] == [0, 1, 2]
    # most violated: w1=(3,0): tie -3,-3 -> smallest index 1; w2=(2,1): (6,-1,0) -> j=1;
    # w3=(1,2): (3,1,3).
    r = perceptron(SEP3B, ONES3, rule="most_violated", trace=True)
    assert (r.status, r.iterations, f64(r.w).tolist()) == ("separator", 3, [1.0, 2.0])
    assert [s.j for s in r.trace[1:]] == [0, 1, 1]


def test_perceptron_cyclic_scans_forward_with_wraparound():
    # z0 = (1,0), z1 = (1,1), z2 = (-1,2), z3 = (-1,3).  w1 = (1,0), start 1: margins
    # (1,1,-1,-1): the forward scan 1,2,3,0 takes j=2 (a backward scan 1,0,3,2 would take 3);
    # w2 = (0,2), start 3: margins (0,2,4,6): the scan 3,0 wraps to z0 (margin 0) -> j=0;
    # w3 = (1,2): margins (1,3,3,5).
    X = np.array([[1.0, 0.0], [1.0, 1.0], [-1.0, 2.0], [-1.0, 3.0]])
    r = perceptron(X, np.ones(4), trace=True)
    assert (r.status, r.iterations, f64(r.w).tolist()) == ("separator", 3, [1.0, 2.0])
    assert [s.j for s in r.trace] == [None, 0, 2, 0]
    assert [s.start for s in r.trace] == [0, 1, 3, 1]


def test_perceptron_zero_margin_is_a_mistake_and_labels_reflect():
    # z0 = (1,0), z1 = (0,1) after reflection.  w1 = (1,0) gives z1 margin exactly 0: a mistake.
    X = np.array([[-1.0, 0.0], [0.0, 1.0]])
    y = np.array([-1, 1])
    for rule in ("cyclic", "most_violated"):
        r = perceptron(X, y, rule=rule, trace=True)
        assert (r.status, r.iterations) == ("separator", 2)
        assert f64(r.trace[1].w).tolist() == [1.0, 0.0]
        assert f64(r.w).tolist() == [1.0, 1.0]
        assert np.all(y * (X @ f64(r.w)) > 0)


def test_perceptron_infeasible_runs_out_of_budget():
    # z0 = (1,0), z1 = (-1,0): w alternates (1,0), 0, (1,0), ...
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    r = perceptron(X, [1, 1], max_iter=7)
    assert (r.status, r.iterations) == ("max_iter", 7)
    assert f64(r.w).tolist() == [1.0, 0.0]
    r = perceptron(X, [1, 1], max_iter=0)
    assert (r.status, r.iterations) == ("max_iter", 0) and f64(r.w).tolist() == [0.0, 0.0]


def test_perceptron_already_separated_at_max_iter_zero():
    r = perceptron(np.array([[1.0, 0.0]]), [1], max_iter=0)
    assert (r.status, r.iterations) == ("max_iter", 0)  # w_0 = 0 never separates
    r = perceptron(np.array([[1.0, 0.0]]), [1], max_iter=1)
    assert (r.status, r.iterations, f64(r.w).tolist()) == ("separator", 1, [1.0, 0.0])


@given(seeds, st.integers(2, 25), st.sampled_from(["cyclic", "most_violated"]))
def test_perceptron_novikoff_and_verified(seed, n, rule):
    X, y, u, gamma = planted(seed, n)
    r = perceptron(X, y, rule=rule, trace=True)
    assert r.status == "separator"
    assert np.all(y * (X @ f64(r.w)) > 0)
    R2 = float(np.max(np.sum(X * X, axis=1)))
    assert r.iterations <= R2 / gamma**2  # Block-Novikoff, rho >= gamma_u
    # every update is on a mistake, and w_k is the sum of the chosen reflected points
    Z = X * y[:, None]
    for a, b in zip(r.trace, r.trace[1:]):
        assert Z[b.j] @ f64(a.w) <= 0
        if rule == "most_violated":
            assert b.j == int(np.argmin(Z @ f64(a.w)))
        np.testing.assert_array_equal(f64(b.w), f64(a.w) + Z[b.j])


# =============================================================================================
# Algorithm 2: Normalized Perceptron
# =============================================================================================


def test_normalized_perceptron_hand_run():
    X = np.array([[2.0, 0.0], [0.0, 3.0]])
    # X_2 = I: w0 = 0, tie -> j=0, theta_0 = 1, w1 = (1,0); margins (1,0): 0 is not > 0;
    # j=1, theta_1 = 1/2, w2 = (1/2,1/2).
    r = normalized_perceptron(X, [1, 1], trace=True)
    assert (r.status, r.iterations) == ("separator", 2)
    assert [s.j for s in r.trace[1:]] == [0, 1]
    assert f64(r.trace[1].w).tolist() == [1.0, 0.0]
    assert f64(r.w).tolist() == [0.5, 0.5]
    # unnormalized: w1 = (2,0), margins (4,0) -> j=1, w2 = (1, 1.5).
    r = normalized_perceptron(X, [1, 1], normalize=False)
    assert (r.status, r.iterations, f64(r.w).tolist()) == ("separator", 2, [1.0, 1.5])


def test_normalized_perceptron_infeasible_iterates():
    # z0 = (1,0), z1 = (-1,0): w1 = z0, w2 = 0, w3 = z0/3, w4 = 0 (w_k = average of choices).
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    r = normalized_perceptron(X, [1, 1], max_iter=4, trace=True)
    assert (r.status, r.iterations) == ("max_iter", 4)
    assert [s.j for s in r.trace[1:]] == [0, 1, 0, 1]
    np.testing.assert_allclose([f64(s.w)[0] for s in r.trace], [0, 1, 0, 1 / 3, 0], atol=1e-15)


@given(seeds, st.integers(2, 25))
def test_normalized_perceptron_bound_and_average(seed, n):
    X, y, u, _ = planted(seed, n)
    X = X * np.random.RandomState(seed).uniform(0.2, 5.0, size=(n, 1))  # unequal norms
    rho2_lower = float(np.min(y * (X @ u) / np.linalg.norm(X, axis=1)))
    r = normalized_perceptron(X, y, trace=True)
    assert r.status == "separator" and np.all(y * (X @ f64(r.w)) > 0)
    assert r.iterations <= 1 / rho2_lower**2  # 1/rho_2^2 guarantee on X_2
    Z2 = X * y[:, None] / np.linalg.norm(X, axis=1)[:, None]
    chosen = []
    for a, b in zip(r.trace, r.trace[1:]):
        assert b.j == int(np.argmin(Z2 @ f64(a.w)))
        chosen.append(b.j)
        np.testing.assert_allclose(f64(b.w), Z2[chosen].mean(axis=0), atol=1e-12)


# =============================================================================================
# Algorithm 3: NKP
# =============================================================================================


@pytest.mark.parametrize("kernel,params", [("polynomial", {"degree": 2, "c": 1.0}), ("gaussian", {"sigma": 1.0})])
def test_nkp_kernel_xor_hand_run(kernel, params):
    # Polynomial: G = (1/9)[[9,1,-1,-1],[1,9,-1,-1],[-1,-1,9,1],[-1,-1,1,9]]; Gaussian: the same
    # sign pattern with 1/9 -> e^-4 (same class) and e^-2 (other class).
    # alpha1 = e0: G alpha1 = row 0 -> min at 2; alpha2 = (1/2,0,1/2,0): G alpha2 has exact zeros
    # at 1 and 3 (polynomial) / equal negatives (Gaussian) -> j=1; alpha3 = (1/3,1/3,1/3,0) ->
    # row 3 is the only negative one -> j=3; alpha4 = 1_4/4 separates.
    G = gram(XOR_X, XOR_Y, kernel, **params)
    r = nkp(G, trace=True)
    assert (r.status, r.iterations) == ("separator", 4)
    assert [s.j for s in r.trace[1:]] == [0, 2, 1, 3]
    expected = [[0, 0, 0, 0], [1, 0, 0, 0], [0.5, 0, 0.5, 0], [1 / 3, 1 / 3, 1 / 3, 0], [0.25] * 4]
    for s, e in zip(r.trace, expected):
        np.testing.assert_allclose(f64(s.alpha), e, atol=1e-15)
    assert np.all(np.asarray(G, dtype=float) @ f64(r.alpha) > 0)
    # and the linear kernel cannot separate XOR (z0 + z1 = 0)
    assert nkp(XOR_LIN_G, max_iter=50).status == "max_iter"


@pytest.mark.parametrize("c,k", [(0.5, 1), (0.0, 2), (-0.5, 2)])
def test_nkp_two_points(c, k):
    # alpha1 = e0, G alpha1 = (1, c): separated iff c > 0 (c = 0 is not > 0); else alpha2 = 1/2.
    r = nkp(np.array([[1.0, c], [c, 1.0]]))
    assert (r.status, r.iterations) == ("separator", k)
    np.testing.assert_array_equal(f64(r.alpha), [1.0, 0.0] if k == 1 else [0.5, 0.5])


def test_nkp_infeasible_pair():
    # alpha1 = e0, alpha2 = (1/2,1/2) with G alpha2 = 0 exactly -> tie -> e0: alpha3 = (2/3,1/3);
    # G alpha3 = (1/3,-1/3) -> e1: alpha4 = (1/2,1/2).
    r = nkp(PAIR, max_iter=4, trace=True)
    assert (r.status, r.iterations) == ("max_iter", 4)
    assert [s.j for s in r.trace[1:]] == [0, 1, 0, 1]
    np.testing.assert_allclose(f64(r.trace[3].alpha), [2 / 3, 1 / 3], atol=1e-15)
    np.testing.assert_allclose(f64(r.alpha), [0.5, 0.5], atol=1e-15)
    assert nkp(TRI, max_iter=30).status == "max_iter"


@given(seeds, st.integers(2, 20))
def test_nkp_bound_and_simplex(seed, n):
    X, y, u, _ = planted(seed, n, d=3)
    rhoK_lower = float(np.min(y * (X @ u) / np.linalg.norm(X, axis=1)))  # rho_K = rho_2 (linear)
    G = gram(X, y)
    r = nkp(G, trace=True)
    assert r.status == "separator" and np.all(G @ f64(r.alpha) > 0)
    assert r.iterations <= 1 / rhoK_lower**2
    for a, b in zip(r.trace, r.trace[1:]):
        assert in_simplex(b.alpha)
        assert b.j == int(np.argmin(G @ f64(a.alpha)))


# =============================================================================================
# Algorithm 4: SNKP
# =============================================================================================


def softmax_list(v):
    e = [math.exp(x - max(v)) for x in v]
    return [x / sum(e) for x in e]


def test_snkp_hand_first_step():
    # z0 = z1 = z2 = (1,0), z3 = (-0.6, 0.8): G alpha_0 = (0.6, 0.6, 0.6, -0.2) is not > 0.
    # p0 = softmax(-G alpha_0 / 2); theta_0 = 2/3; p_{mu_0}(alpha_0) = p0, so
    # alpha1 = (1/3)(alpha0 + (2/3) p0) + (4/9) p0 = alpha0/3 + (2/3) p0; mu1 = 2/3;
    # p1 = p0/3 + (2/3) softmax(-G alpha1 / mu1).
    Z = np.array([[1.0, 0.0]] * 3 + [[-0.6, 0.8]])
    G = Z @ Z.T
    r = snkp(G, max_iter=1, trace=True)
    a0 = [0.25] * 4
    Ga0 = [0.6, 0.6, 0.6, -0.2]
    p0 = softmax_list([-v / 2 for v in Ga0])
    a1 = [a / 3 + 2 * p / 3 for a, p in zip(a0, p0)]
    Ga1 = list(G @ np.array(a1))
    p1 = [x / 3 + 2 * s / 3 for x, s in zip(p0, softmax_list([-v / (2 / 3) for v in Ga1]))]
    np.testing.assert_allclose(f64(r.trace[0].p), p0, rtol=1e-14)
    np.testing.assert_allclose(f64(r.trace[1].alpha), a1, rtol=1e-14)
    np.testing.assert_allclose(f64(r.trace[1].p), p1, rtol=1e-14)
    assert (r.status, r.iterations) == ("max_iter", 1)
    assert float(r.info["mu"]) == pytest.approx(2 / 3, rel=1e-15)


@given(seeds, st.integers(3, 20))
def test_snkp_mu_closed_form_simplex_and_theorem1(seed, n):
    X, y, u, _ = planted(seed, n, d=3, gap=0.05)
    rhoK_lower = float(np.min(y * (X @ u) / np.linalg.norm(X, axis=1)))
    G = gram(X, y)
    r = snkp(G, trace=True)
    assert r.status == "separator" and np.all(G @ f64(r.alpha) > 0)
    assert r.iterations <= 2 * math.sqrt(2 * math.log(n)) / rhoK_lower  # Theorem 1
    for s in r.trace:
        assert float(s.mu) == pytest.approx(4 / ((s.k + 1) * (s.k + 2)), rel=1e-13)
        assert in_simplex(s.alpha) and in_simplex(s.p)


def test_losses_by_hand():
    ar = Arithmetic(None)
    a = np.array([0.4, 0.3, 0.3])  # G3 a = (0.1, -0.1, 0.3), a^T G3 a = 0.1
    assert float(loss(G3, a, ar)) == pytest.approx(0.1 + 0.05, rel=1e-14)  # -min + ||a||_G^2/2
    for mu in (1.0, 0.25):
        lme = mu * math.log((math.exp(-0.1 / mu) + math.exp(0.1 / mu) + math.exp(-0.3 / mu)) / 3)
        assert float(smoothed_loss(G3, a, mu, ar)) == pytest.approx(lme + 0.05, rel=1e-13)
    # PAIR, alpha = q = e0, mu = 4: p = (3/4,1/4), <G alpha, p> = 1/2, (mu/2)||p-q||^2 = 1/4,
    # ||alpha||_G^2/2 = 1/2  ->  L^q_mu = -1/2 - 1/4 + 1/2 = -1/4.
    e0 = np.array([1.0, 0.0])
    np.testing.assert_allclose(p_mu_q(PAIR, e0, 4.0, e0, ar), [0.75, 0.25], rtol=1e-15)
    assert float(smoothed_loss_q(PAIR, e0, 4.0, e0, ar)) == pytest.approx(-0.25, rel=1e-14)
    # G3, alpha = e2, q = 1_3/3, mu = 2: q - G e2/2 = (1/3,1/3,-1/6) -> Proj = (1/2,1/2,0);
    # <G alpha, p> = 0, (mu/2)||p - q||^2 = 1/6, ||e2||_G^2/2 = 1/2  ->  1/3.
    q = np.full(3, 1 / 3)
    e2 = np.array([0.0, 0.0, 1.0])
    np.testing.assert_allclose(p_mu_q(G3, e2, 2.0, q, ar), [0.5, 0.5, 0.0], atol=1e-15)
    assert float(smoothed_loss_q(G3, e2, 2.0, q, ar)) == pytest.approx(1 / 3, rel=1e-14)


@given(seeds, st.integers(3, 12))
def test_snkp_lemmas_4_5_and_snkpvn_lemma8_gap(seed, n):
    # Lemma 4: L_mu(alpha_k) >= L(alpha_k) - mu_k log n;  Lemma 5: L_mu(alpha_k) <= -||p_k||_G^2/2;
    # SNKPVN (A.13): L^q_mu(alpha_k) <= -||p_k||_G^2/2 and >= L(alpha_k) - mu_k.
    ar = Arithmetic(None)
    X, y, _, _ = planted(seed, n, d=3, gap=0.02)
    G = gram(X, y)
    for s in snkp(G, max_iter=30, trace=True).trace:
        Lmu = smoothed_loss(G, s.alpha, s.mu, ar)
        assert Lmu <= -gnorm(G, s.p) ** 2 / 2 + 1e-12
        assert Lmu >= loss(G, s.alpha, ar) - s.mu * math.log(n) - 1e-12
    q = np.random.RandomState(seed).dirichlet(np.ones(n))
    for s in snkpvn(G, q, 1e-9, max_iter=30, trace=True).trace:
        Lq = smoothed_loss_q(G, s.alpha, s.mu, q, ar)
        assert Lq <= -gnorm(G, s.p) ** 2 / 2 + 1e-12
        assert Lq >= loss(G, s.alpha, ar) - s.mu - 1e-12


def test_snkp_infeasible_and_kernel():
    assert snkp(TRI, max_iter=40).status == "max_iter"
    r = snkp(gram(XOR_X, XOR_Y, "gaussian", sigma=0.5))
    assert r.status == "separator" and r.iterations == 0  # 1_4/4 already separates XOR here


# =============================================================================================
# Algorithm 5: NVN
# =============================================================================================


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
    r = nvn(G, 1e-12)  # ||1_n/n||_G = 0
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


# =============================================================================================
# Algorithm 6: SNKPVN
# =============================================================================================


def test_snkpvn_hand_infeasible():
    # G = [[1,-1],[-1,1]], q = (1,0), mu0 = 4: p0 = Proj((1,0) - (1,-1)/4) = (3/4,1/4),
    # ||p0||_G = 1/2 which is not < delta = 1/2.  theta0 = 2/3:
    # alpha1 = (1/3)((1,0) + (2/3)(3/4,1/4)) + (4/9)(3/4,1/4) = (5/6,1/6); mu1 = 4/3;
    # G alpha1/mu1 = (1/2,-1/2), Proj((1/2,1/2)) = (1/2,1/2), p1 = (7/12,5/12), ||p1||_G = 1/6.
    r = snkpvn(PAIR, [1.0, 0.0], 0.5, trace=True)
    assert (r.status, r.iterations) == ("certificate", 1)
    np.testing.assert_allclose(f64(r.trace[0].p), [0.75, 0.25], rtol=1e-15)
    np.testing.assert_allclose(f64(r.alpha), [5 / 6, 1 / 6], rtol=1e-15)
    np.testing.assert_allclose(f64(r.p), [7 / 12, 5 / 12], rtol=1e-15)
    assert [float(s.mu) for s in r.trace] == pytest.approx([4.0, 4 / 3], rel=1e-15)
    r = snkpvn(PAIR, [1.0, 0.0], 0.5 + 2**-30)  # the strict test fires at k = 0
    assert (r.status, r.iterations) == ("certificate", 0)
    np.testing.assert_array_equal(f64(r.p), [0.75, 0.25])


def test_snkpvn_hand_feasible():
    # G = I, q = e0: G alpha0 = (1,0) is not > 0.  p0 = Proj((3/4,0)) = (7/8,1/8);
    # alpha1 = (1/3)(e0 + (2/3)(7/8,1/8)) + (4/9)(7/8,1/8) = (11/12,1/12) > 0;
    # p1 = (1/3)(7/8,1/8) + (2/3) Proj((5/16,-1/16)) = (1/3)(7/8,1/8) + (2/3)(11/16,5/16) = (3/4,1/4).
    r = snkpvn(np.eye(2), [1.0, 0.0], 0.1, trace=True)
    assert (r.status, r.iterations) == ("separator", 1)
    np.testing.assert_allclose(f64(r.trace[0].p), [7 / 8, 1 / 8], rtol=1e-15)
    np.testing.assert_allclose(f64(r.alpha), [11 / 12, 1 / 12], rtol=1e-15)
    np.testing.assert_allclose(f64(r.p), [0.75, 0.25], rtol=1e-15)


def test_snkpvn_separator_is_tested_before_certificate():
    # q = 1_2/2: G alpha0 = q > 0 and ||p0||_G = ||q||_G = 0.707 < delta = 1: separator wins.
    r = snkpvn(np.eye(2), [0.5, 0.5], 1.0)
    assert (r.status, r.iterations) == ("separator", 0)
    np.testing.assert_array_equal(f64(r.alpha), [0.5, 0.5])


def test_snkpvn_infeasible_lemma9_and_mu():
    # G3: W = {(1/2,1/2,0)}; Lemma 9: ||p_k||_G <= sqrt(mu_k) dist(q, W) on every iterate.
    q = np.array([0.7, 0.1, 0.2])
    dist = float(np.linalg.norm(q - [0.5, 0.5, 0]))
    r = snkpvn(G3, q, 1e-4, trace=True)
    assert r.status == "certificate" and gnorm(G3, r.p) < 1e-4
    for s in r.trace:
        assert float(s.mu) == pytest.approx(12 / ((s.k + 1) * (s.k + 2)), rel=1e-13)  # 4n/((k+1)(k+2))
        assert gnorm(G3, s.p) <= math.sqrt(float(s.mu)) * dist + 1e-15
        assert in_simplex(s.alpha) and in_simplex(s.p)
    assert all(gnorm(G3, s.p) >= 1e-4 for s in r.trace[:-1])
    assert r.iterations <= 2 * math.sqrt(3) * math.sqrt(2) / 1e-4  # (2 sqrt(n)/delta) sqrt(2)


@given(seeds, st.integers(2, 15))
def test_snkpvn_feasible_lemma8(seed, n):
    X, y, u, _ = planted(seed, n, d=3)
    rhoK_lower = float(np.min(y * (X @ u) / np.linalg.norm(X, axis=1)))
    G = gram(X, y)
    q = np.random.RandomState(seed).dirichlet(np.ones(n))
    r = snkpvn(G, q, rhoK_lower / 2, trace=True)
    assert r.status == "separator" and np.all(G @ f64(r.alpha) > 0)
    assert r.iterations + 1 <= max(1.0, 2 * math.sqrt(2 * n) / rhoK_lower)  # Lemma 8
    np.testing.assert_allclose(f64(r.trace[0].alpha), q, rtol=1e-15)  # alpha_0 = q


def test_snkpvn_kernel_and_budget():
    r = snkpvn(gram(XOR_X, XOR_Y, "gaussian", sigma=1.0), [1.0, 0, 0, 0], 1e-3)
    assert r.status == "separator" and np.all(gram(XOR_X, XOR_Y, "gaussian") @ f64(r.alpha) > 0)
    r = snkpvn(G3, [1.0, 0, 0], 1e-6, max_iter=3)
    assert (r.status, r.iterations) == ("max_iter", 3)


# =============================================================================================
# Algorithm 7: ISNKPVN
# =============================================================================================


def test_isnkpvn_feasible_at_once():
    # q0 = 1_2/2 separates G = I: delta_0 = ||q0||_G/2 = sqrt(1/2)/2; SNKPVN halts at k = 0.
    r = isnkpvn(np.eye(2), 2.0, 1e-3)
    assert (r.status, r.iterations) == ("separator", 0)
    assert r.info["T"] == 1 and r.info["inner_iterations"] == [0]
    assert [float(d) for d in r.info["deltas"]] == pytest.approx([math.sqrt(0.5) / 2], rel=1e-15)
    np.testing.assert_array_equal(f64(r.alpha), [0.5, 0.5])


@pytest.mark.parametrize("G", [PAIR, TRI], ids=["pair", "tri"])
def test_isnkpvn_guard_EA7(G):
    r = isnkpvn(G, 2.0, 1e-3, trace=True)
    assert (r.status, r.iterations, r.info["T"], r.trace) == ("certificate", 0, 0, ())
    np.testing.assert_allclose(f64(r.p), np.full(G.shape[0], 1 / G.shape[0]), rtol=1e-15)


@pytest.mark.parametrize("gamma,eps", [(2.0, 1e-3), (3.0, 0.05), (1.5, 1e-2)])
def test_isnkpvn_infeasible_outer_loop(gamma, eps):
    r = isnkpvn(G3, gamma, eps, trace=True)
    assert r.status == "certificate" and r.alpha is None
    assert gnorm(G3, r.p) < eps and in_simplex(r.p)
    deltas = [float(d) for d in r.info["deltas"]]
    T = r.info["T"]
    assert len(deltas) == T == len(r.trace) == len(r.info["inner_iterations"])
    assert deltas[0] == pytest.approx((1 / 3) / gamma, rel=1e-15)  # ||q_0||_G = 1/3
    assert deltas[-1] < eps and all(d >= eps for d in deltas[:-1])
    assert T <= math.log((1 / 3) / eps) / math.log(gamma) + 1
    assert r.iterations == sum(r.info["inner_iterations"])
    for t, rec in enumerate(r.trace):
        assert isinstance(rec, OuterRecord) and rec.t == t
        assert rec.inner.status == "certificate"
        assert float(rec.delta) == pytest.approx(gnorm(G3, rec.q) / gamma, rel=1e-14)
        np.testing.assert_array_equal(f64(rec.inner.trace[0].alpha), f64(rec.q))  # SNKPVN(q_t, .)
        assert gnorm(G3, rec.inner.p) < float(rec.delta)
        if t + 1 < T:
            np.testing.assert_array_equal(f64(r.trace[t + 1].q), f64(rec.inner.p))  # q_{t+1}
            assert deltas[t + 1] < deltas[t] / gamma  # (15)
    np.testing.assert_array_equal(f64(r.p), f64(r.trace[-1].inner.p))
    first = snkpvn(G3, np.full(3, 1 / 3), (1 / 3) / gamma)
    assert first.iterations == r.info["inner_iterations"][0]
    np.testing.assert_allclose(f64(first.p), f64(r.trace[1].q), rtol=1e-15)


def test_isnkpvn_large_epsilon_stops_after_one_loop():
    r = isnkpvn(G3, 2.0, 1.0)  # delta_0 = 1/6 < 1
    assert r.status == "certificate" and r.info["T"] == 1


def test_isnkpvn_budget_is_on_total_inner_iterations():
    full = isnkpvn(G3, 2.0, 1e-3, trace=True)
    assert full.info["inner_iterations"][0] >= 2
    budget = full.info["inner_iterations"][0] + 1
    r = isnkpvn(G3, 2.0, 1e-3, max_iter=budget)
    assert (r.status, r.iterations) == ("max_iter", budget)
    assert sum(r.info["inner_iterations"]) == budget and r.info["T"] == 2
    r2 = isnkpvn(G3, 2.0, 1e-3, max_iter=budget, trace=True)
    assert r2.trace[-1].inner.status == "max_iter"
    np.testing.assert_array_equal(f64(r2.p), f64(r2.trace[-1].q))  # q_t is kept when SNKPVN fails
    np.testing.assert_array_equal(f64(r2.trace[1].q), f64(full.trace[1].q))


@given(seeds, st.integers(2, 15))
def test_isnkpvn_feasible_theorem4(seed, n):
    X, y, u, _ = planted(seed, n, d=3)
    rhoK_lower = float(np.min(y * (X @ u) / np.linalg.norm(X, axis=1)))
    G = gram(X, y)
    r = isnkpvn(G, 2.0, rhoK_lower / 2, trace=True)
    assert r.status == "separator" and np.all(G @ f64(r.alpha) > 0)
    np.testing.assert_array_equal(f64(r.alpha), f64(r.trace[-1].inner.alpha))
    np.testing.assert_array_equal(f64(r.p), f64(r.trace[-1].q))  # p is the last prox-centre q_t
    per_call = 2 * math.sqrt(2 * n) / rhoK_lower
    assert max(r.info["inner_iterations"]) <= per_call
    assert r.info["T"] <= math.log(1 / rhoK_lower) / math.log(2.0) + 1


def test_isnkpvn_kernel():
    G = gram(XOR_X, XOR_Y, "polynomial", degree=2)
    r = isnkpvn(G)
    assert r.status == "separator" and np.all(np.asarray(G, dtype=float) @ f64(r.alpha) > 0)
    assert isnkpvn(XOR_LIN_G, 2.0, 1e-3).status == "certificate"  # linear XOR: infeasible


def test_states_are_frozen_and_start_empty():
    import dataclasses

    runs = [
        perceptron(SEP3, ONES3, trace=True),
        normalized_perceptron(SEP3, ONES3, trace=True),
        nkp(PAIR, max_iter=2, trace=True),
        snkp(TRI, max_iter=2, trace=True),
        nvn(G3, 0.1, max_iter=2, trace=True),
        snkpvn(G3, [0.7, 0.1, 0.2], 1e-3, max_iter=2, trace=True),
    ]
    for r in runs:
        s0 = r.trace[0]
        assert s0.k == 0
        for name in ("j", "theta"):
            if hasattr(s0, name):
                assert getattr(s0, name) is None  # nothing chosen before the first step
        with pytest.raises(dataclasses.FrozenInstanceError):
            s0.k = 5
    rec = isnkpvn(G3, 2.0, 0.1, trace=True).trace[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.t = 5
    from reference.smoothed import OuterState

    with pytest.raises(dataclasses.FrozenInstanceError):
        OuterState(t=0, q=np.ones(1), iterations=0).t = 1


# =============================================================================================
# float64 versus mpmath (precision=50)
# =============================================================================================

_SEP_X, _SEP_Y, _, _ = planted(7, 8, d=3, gap=0.2)
_SEP_G = gram(_SEP_X, _SEP_Y)
_GAUSS_X = np.random.RandomState(3).normal(size=(6, 2))
_GAUSS_Y = np.array([1, -1, 1, -1, 1, -1])
_GAUSS_G = gram(_GAUSS_X, _GAUSS_Y, "gaussian", sigma=0.7)

MP_CASES = [
    ("perceptron", lambda **kw: perceptron(_SEP_X, _SEP_Y, **kw)),
    ("perceptron_mv", lambda **kw: perceptron(_SEP_X, _SEP_Y, rule="most_violated", **kw)),
    ("normalized_perceptron", lambda **kw: normalized_perceptron(_SEP_X, _SEP_Y, **kw)),
    ("nkp", lambda **kw: nkp(_SEP_G, **kw)),
    ("nkp_gauss", lambda **kw: nkp(_GAUSS_G, **kw)),
    ("snkp", lambda **kw: snkp(_SEP_G, **kw)),
    ("nvn_sep", lambda **kw: nvn(_SEP_G, 1e-3, **kw)),
    ("nvn_inf", lambda **kw: nvn(G3, 0.05, **kw)),
    ("snkpvn_inf", lambda **kw: snkpvn(G3, [0.7, 0.1, 0.2], 0.01, **kw)),
    ("snkpvn_gauss", lambda **kw: snkpvn(_GAUSS_G, np.full(6, 1 / 6), 1e-3, **kw)),
    ("isnkpvn_inf", lambda **kw: isnkpvn(G3, 2.0, 0.01, **kw)),
    ("isnkpvn_sep", lambda **kw: isnkpvn(_SEP_G, 2.0, 1e-3, **kw)),
]


@pytest.mark.parametrize("name,run", MP_CASES, ids=[c[0] for c in MP_CASES])
def test_float64_agrees_with_mpmath(name, run):
    a = run()
    b = run(precision=50)
    assert b.precision == "mpmath, 50 decimal digits" and a.precision == "float64"
    assert (a.status, a.iterations) == (b.status, b.iterations)
    assert a.status != "max_iter"
    for field in ("w", "alpha", "p"):
        va, vb = getattr(a, field), getattr(b, field)
        assert (va is None) == (vb is None)
        if va is not None:
            assert all(isinstance(x, mpmath.mpf) for x in vb)
            np.testing.assert_allclose(f64(va), f64(vb), rtol=0, atol=1e-10)


def test_mpmath_input_gram():
    G = gram(XOR_X, XOR_Y, "polynomial", degree=2, precision=40)
    r = nkp(G, precision=40)
    assert (r.status, r.iterations) == ("separator", 4)
    assert all(isinstance(x, mpmath.mpf) for x in r.alpha)


# =============================================================================================
# argument validation
# =============================================================================================

X_OK = np.array([[1.0, 0.0], [0.0, 1.0]])
Y_OK = np.array([1, 1])
PRIMAL = [perceptron, normalized_perceptron]
GRAM = [
    ("nkp", lambda G, **kw: nkp(G, **kw)),
    ("snkp", lambda G, **kw: snkp(G, **kw)),
    ("nvn", lambda G, **kw: nvn(G, 0.1, **kw)),
    ("snkpvn", lambda G, **kw: snkpvn(G, np.full(G.shape[0], 1 / G.shape[0]) if G.ndim == 2 else [1.0], 0.1, **kw)),
    ("isnkpvn", lambda G, **kw: isnkpvn(G, **kw)),
]
GRAM_IDS = [g[0] for g in GRAM]


@pytest.mark.parametrize(
    "X,y,match",
    [
        (np.array([[np.nan, 0.0], [0.0, 1.0]]), Y_OK, "NaN"),
        (np.zeros((0, 2)), np.zeros(0), "empty"),
        (X_OK, np.array([1, 1, 1]), "labels"),
        (X_OK, np.array([1, 0]), r"\+1 and -1"),
        (np.array([[0.0, 0.0], [0.0, 1.0]]), Y_OK, "zero rows"),
    ],
    ids=["nan", "empty", "lengths", "labels", "zero-row"],
)
@pytest.mark.parametrize("algo", PRIMAL, ids=["perceptron", "normalized_perceptron"])
def test_primal_data_errors(algo, X, y, match):
    with pytest.raises(ValueError, match=match):
        algo(X, y)


def test_perceptron_bad_rule():
    with pytest.raises(ValueError, match="rule"):
        perceptron(X_OK, Y_OK, rule="random")


@pytest.mark.parametrize(
    "G,match",
    [
        (np.ones((2, 3)), "square"),
        (np.array([[1.0, 0.5], [0.2, 1.0]]), "symmetric"),
        (np.array([[2.0, 0.0], [0.0, 1.0]]), "unit diagonal"),
        (np.array([[1.0, 2.0], [2.0, 1.0]]), "positive semidefinite"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), "NaN"),
    ],
    ids=["not-square", "not-symmetric", "diagonal", "not-psd", "nan"],
)
@pytest.mark.parametrize("name,algo", GRAM, ids=GRAM_IDS)
def test_gram_errors(name, algo, G, match):
    with pytest.raises(ValueError, match=match):
        algo(G)


@pytest.mark.parametrize("precision", [0, -3, 2.5, True, "50"])
def test_precision_errors(precision):
    for run in (lambda: perceptron(X_OK, Y_OK, precision=precision),
                lambda: normalized_perceptron(X_OK, Y_OK, precision=precision)):
        with pytest.raises(ValueError, match="precision"):
            run()
    for _, algo in GRAM:
        with pytest.raises(ValueError, match="precision"):
            algo(np.eye(2), precision=precision)


@pytest.mark.parametrize("max_iter", [-1, 2.0, True])
def test_max_iter_errors(max_iter):
    with pytest.raises(ValueError, match="max_iter"):
        perceptron(X_OK, Y_OK, max_iter=max_iter)
    with pytest.raises(ValueError, match="max_iter"):
        normalized_perceptron(X_OK, Y_OK, max_iter=max_iter)
    for _, algo in GRAM:
        with pytest.raises(ValueError, match="max_iter"):
            algo(np.eye(2), max_iter=max_iter)


@pytest.mark.parametrize("epsilon", [0.0, -0.1, 1.0 + 1e-12, float("nan"), float("inf"), "0.1"])
def test_nvn_epsilon_range(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        nvn(np.eye(2), epsilon)


def test_nvn_epsilon_one_is_allowed():
    r = nvn(PAIR, 1.0)  # ||p0||_G <= 1 always
    assert (r.status, r.iterations) == ("certificate", 0)


@pytest.mark.parametrize("delta", [0.0, -1.0, float("nan")])
def test_snkpvn_delta_range(delta):
    with pytest.raises(ValueError, match="delta"):
        snkpvn(np.eye(2), [0.5, 0.5], delta)


@pytest.mark.parametrize("q", [[0.5, 0.6], [1.5, -0.5], [1.0], [0.2, 0.3, 0.5], [np.nan, 1.0]])
def test_snkpvn_q_not_in_simplex(q):
    with pytest.raises(ValueError, match="q"):
        snkpvn(np.eye(2), q, 0.1)


@pytest.mark.parametrize("gamma", [1.0, 0.5, -2.0, float("inf")])
def test_isnkpvn_gamma_range(gamma):
    with pytest.raises(ValueError, match="gamma"):
        isnkpvn(np.eye(2), gamma, 1e-3)


@pytest.mark.parametrize("epsilon", [0.0, -1e-3, float("nan")])
def test_isnkpvn_epsilon_range(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        isnkpvn(np.eye(2), 2.0, epsilon)


def test_rounded_gram_does_not_yield_a_false_separator():
    """Linear XOR: y_0 x_0 + y_1 x_1 = 0, so the data are infeasible (Gordan).  gram() rounds the
    -1 entries to -(1 - 2^-52), and G alpha = 5.6e-17 > 0 for that rounded G; the verifier's
    round-off allowance must refuse the claim (it used to be returned as a verified separator)."""
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    y = np.array([1, 1, -1, -1])
    G = gram(X, y)
    for algorithm in (nkp, snkp):
        r = algorithm(G, max_iter=200)
        assert r.status == "max_iter", (algorithm.__name__, r.message)
        assert "not verified" in r.message and "round-off" in r.message
    assert nvn(G, 1e-3).status == "certificate"  # the true alternative is certified


def test_isnkpvn_guard_fires_when_norm_is_below_float_resolution():
    """q_0^T G q_0 = 2.8e-17 (round-off; exactly 0 in exact arithmetic).  delta_0 = 2.6e-9 is
    below what float64 resolves for ||.||_G, so SNKPVN(q_0, delta_0) would spin until the budget
    ran out.  The E-A7 guard, read in floating point, returns q_0 (verified < epsilon)."""
    from theorems.strategies import random_kernel_instance

    G = random_kernel_instance("linear", 4, 1, seed=1).G
    q = np.full(4, 0.25)
    assert 0 < q @ G @ q < 4 * np.finfo(float).eps
    r = isnkpvn(G, 2.0, 1e-3, max_iter=20_000)
    assert r.status == "certificate" and r.iterations == 0 and r.info["T"] == 0
    assert np.array_equal(r.p, q)
