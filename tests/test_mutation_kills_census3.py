"""Kills for survivors of the full mutmut 3.8.1 census of reference/ outside margin.py (issue 13,
session 6), modules data_margin, fast.engine, data, dynamic_margin; see
benchmarks/mutation/census_survivors3.md.  Each kill was checked by applying the mutant to the
source by hand: the test fails on the mutant and passes on the original."""
import sys
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

import reference.data_margin as DM

MARGIN = sys.modules["reference.margin"]  # the module (the package exports the function `margin`)


# =============================================================================================
# reference.data_margin._polish_mp: the candidate set is enlarged until no point violates
# =============================================================================================

# A = (1, 1), B = (1, -1), C = (1, -10), E = (1, -20), D_j = (2, j) for j = 1..7, E' = (1, -50).
# Every point has x >= 1 and A, B give (1, 0) = (A + B) / 2: the min-norm point is u* = (1, 0),
# with C, E, E' on its boundary (margin 1 = |u*|^2) and the D_j inside (margin 2).
_POLISH_Y = np.array([[1, 1], [1, -1], [1, -10], [1, -20]] + [[2, j] for j in range(1, 8)] + [[1, -50]], dtype=float)
_POLISH_START = 2  # the float "support" handed to the polish: p = e_C, u = C


def _spy_rounds(monkeypatch):
    """Record, for every mpmath Wolfe run of _polish_mp (one per round), the candidates' squared norms."""
    rounds = []
    real = MARGIN._wolfe

    def spy(K, ar, max_iter, start=None):
        rounds.append(sorted(int(round(float(K[i, i]))) for i in range(K.shape[0])))
        return real(K, ar, max_iter, start=start)

    monkeypatch.setattr(MARGIN, "_wolfe", spy)
    return rounds


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
    p, u = DM._polish_mp(sp.csr_matrix(Y), p0)
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
    p, u = DM._polish_mp(sp.csr_matrix(_POLISH_Y), p0)
    assert rounds[0] == sorted([101] + [4 + j * j for j in range(2, 8)])
    assert len(rounds) == 2
    assert rounds[1][:2] == [2, 2]  # A and B (|A|^2 = |B|^2 = 2) are candidates now
    assert abs(u[0] - 1) <= 1e-15 and abs(u[1]) <= 1e-15


# =============================================================================================
# reference.data_margin.margin_from_data: the fields of its answer
# =============================================================================================


def test_extended_space_answer_carries_its_witnesses_delta_and_time():
    """x = 1 (label +1), x = -1 (label -1), Delta: gamma_d = sqrt(1 + Delta^2 / 2) (closed form, see
    test_mutation_kills_data).  The answer records Delta, and its witnesses reproduce its bounds:
    certified_lower(P, u) = lower and certified_upper(P, beta) = upper (the certification is
    deterministic); seconds is the measured time of this call."""
    import time

    X, y, D = np.array([[1.0], [-1.0]]), np.array([1, -1]), 0.5
    t0 = time.perf_counter()
    M = DM.margin_from_data(X, y, Delta=D)
    elapsed = time.perf_counter() - t0
    assert M.Delta == D and M.rho is None and M.separable is True
    P = DM.make_patterns(X, y, rho=None, Delta=D)
    assert M.u is not None and M.u.shape == (P.dim,) and DM.certified_lower(P, M.u) == M.lower
    assert M.beta is not None and M.beta.shape == (2,) and DM.certified_upper(P, M.beta) == M.upper
    assert M.lower <= np.sqrt(1 + D * D / 2) <= M.upper
    assert 0 < M.seconds <= elapsed and M.as_dict()["Delta"] == D


def test_gordan_answer_records_its_time():
    """The non-separable path (Gordan) also reports the measured time of the call."""
    import time

    t0 = time.perf_counter()
    M = DM.margin_from_data(np.array([[1.0], [1.0]]), np.array([1, -1]))  # z = 1, -1: 0 = (z_1 + z_2) / 2
    elapsed = time.perf_counter() - t0
    assert M.separable is False and dict(zip(*M.gordan)) == {0: Fraction(1, 2), 1: Fraction(1, 2)}
    assert 0 < M.seconds <= elapsed


def test_extended_space_witness_that_proves_nothing_is_undecided(monkeypatch):
    """With Delta every data set is separable (PT11 Sec. 5), but the claim rests on the witness: an
    untrusted search that returns u with min_k u . y_k = 0 proves only lower = 0.  Then the answer is
    undecided (None), never 'separable' (lower > 0 is not certified) nor 'not separable' (False means
    a Gordan certificate, which the extended space never has).
    x_1 = (1, 0), x_2 = (0, 1), both +1, Delta = 1: y_1 = (1, 0, 1, 0), y_2 = (0, 1, 0, 1); the witness
    v = (0, 1), s = (0, 1) gives u = (0, 1, 0, 1): u . y_1 = 0 exactly (disjoint supports), u . y_2 = 2."""
    monkeypatch.setattr(DM, "_newton_l2svm", lambda P: (np.array([0.0, 1.0]), np.array([0.0, 1.0]), 1))
    M = DM.margin_from_data(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, 1]), Delta=1.0)
    # lower is 0 less certified_lower's absolute underflow allowance (a few 2^-1074)
    assert -1e-320 < M.lower <= 0.0 and M.separable is None
    assert M.upper >= 1 / np.sqrt(2)  # beta = s / Delta = (0, 1): ||y_2|| / 1 = sqrt(2) >= gamma_d


# =============================================================================================
# reference.data_margin._newton_l2svm: semismooth Newton, traced by hand
# =============================================================================================


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
    P = DM.make_patterns(np.array(x)[:, None], np.array(labels), rho=None, Delta=Delta)
    v, s, n = DM._newton_l2svm(P)
    assert n == steps
    assert abs(v[0] - float(v_star)) <= 1e-15
    z = np.array(x) * np.array(labels)
    want = [float(max(Fraction(0), 1 - v_star * Fraction(zk)) / Fraction(Delta)) for zk in z]
    np.testing.assert_allclose(s, want, rtol=0, atol=1e-15)


# =============================================================================================
# reference.data_margin._wolfe_primal: Wolfe's min-norm point, small cases by hand
# =============================================================================================


def test_wolfe_primal_starts_at_the_shortest_point():
    """Wolfe starts at the shortest point y_j0, |y_j0| = min_k |y_k|.  conv{(3, 0), (1, 0)} has min-norm
    point (1, 0), the shortest point itself: the first optimality test passes, one cycle, p = e_2."""
    p, it, converged = DM._wolfe_primal(sp.csr_matrix(np.array([[3.0, 0.0], [1.0, 0.0]])))
    assert (it, converged) == (1, True)
    np.testing.assert_array_equal(p, [0.0, 1.0])


def test_wolfe_primal_cycle_budget_and_convergence_flag(monkeypatch):
    """conv{(1, 1), (1, -1)}: cycle 1 starts at y_1 (first of the two shortest), adds y_2 and moves to the
    affine minimizer (1/2, 1/2); cycle 2 finds (1, 0) optimal.  With a budget of 1 cycle the answer is
    (1/2, 1/2) with converged=False (the optimality test never passed); with 2 cycles converged=True."""
    Y = sp.csr_matrix(np.array([[1.0, 1.0], [1.0, -1.0]]))
    monkeypatch.setattr(DM, "WOLFE_MAX_ITER", 1)
    p, it, converged = DM._wolfe_primal(Y)
    assert (it, converged) == (1, False)
    np.testing.assert_array_equal(p, [0.5, 0.5])
    monkeypatch.setattr(DM, "WOLFE_MAX_ITER", 2)
    p, it, converged = DM._wolfe_primal(Y)
    assert (it, converged) == (2, True)
    np.testing.assert_array_equal(p, [0.5, 0.5])


def test_wolfe_primal_reaches_the_origin_exactly():
    """conv{(1, 0), (-1, 0)} contains 0: Wolfe moves to (y_1 + y_2) / 2 = 0 exactly, where
    q - min_i (K p)_i = 0 - 0 <= WOLFE_RTOL q = 0: converged (the test is <=, and holds with equality)."""
    p, it, converged = DM._wolfe_primal(sp.csr_matrix(np.array([[1.0, 0.0], [-1.0, 0.0]])))
    assert converged is True and it == 2
    np.testing.assert_array_equal(p, [0.5, 0.5])


@pytest.mark.parametrize("scale", [2.0**-14, 1.0, 2.0**14])
def test_wolfe_primal_is_scale_invariant(scale):
    """The optimality test is relative (q - min (K p)_i <= WOLFE_RTOL q), so scaling the points by a power
    of two changes nothing: conv{(1, 1), (1, -1)} * scale has weights (1/2, 1/2), 2 cycles, converged."""
    p, it, converged = DM._wolfe_primal(sp.csr_matrix(scale * np.array([[1.0, 1.0], [1.0, -1.0]])))
    assert (it, converged) == (2, True)
    np.testing.assert_array_equal(p, [0.5, 0.5])


# =============================================================================================
# reference.data_margin.margin_from_data: the Wolfe path (separable data, no Delta)
# =============================================================================================


@pytest.mark.parametrize("d", [2, DM.POLISH_MAX_DIM + 1])  # the larger one is never polished: the float witnesses must do
@pytest.mark.parametrize("normalize", [False, True])
def test_wolfe_answer_carries_its_witnesses_and_time(normalize, d):
    """z = (3, 4) and (6, -8) (norms 5 and 10, mirror directions): the segment (3 + 3t, 4 - 12t) is nearest 0
    at t = 13/51, (192, 48) / 51: gamma = 48 sqrt(17) / 51 = 16 / sqrt(17); normalized: (0.6, +-0.8), gamma = 0.6.
    The witnesses reproduce the bounds (normalized: beta holds the coefficients of the z_k, so the
    normalized weights (1/2, 1/2) become (1/10, 1/20)); the interval is tight; seconds is measured."""
    import time

    X, y = np.zeros((2, d)), np.array([1, -1])
    X[:, :2] = [[3.0, 4.0], [-6.0, 8.0]]
    t0 = time.perf_counter()
    M = DM.margin_from_data(X, y, normalize=normalize)
    elapsed = time.perf_counter() - t0
    P = DM.make_patterns(X, y, rho=None)
    true = 0.6 if normalize else 16 / np.sqrt(17.0)
    assert M.separable is True and M.lower <= true * (1 + 1e-15) and true * (1 - 1e-15) <= M.upper
    assert M.upper - M.lower <= 1e-12 * true  # the docstring's ~1e-12 (the allowances grow with d)
    assert M.u is not None and DM.certified_lower(P, M.u, normalize=normalize) == M.lower
    assert DM.certified_upper(P, M.beta, normalize=normalize) == M.upper
    assert 0 < M.seconds <= elapsed


def _stalled_wolfe(Yn):
    """A float Wolfe that stops early: weights (0.501, 0.499) instead of the optimal (1/2, 1/2)."""
    return np.array([0.501, 0.499]), 1, False


@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("d, scale", [(DM.POLISH_MAX_DIM, 1.0), (2, 2.0**-40), (2, 2.0**40)])
def test_stalled_wolfe_is_polished_at_every_scale_and_up_to_the_dimension_limit(monkeypatch, d, scale, normalize):
    """x_1 = s (1, 1, 0, ...), x_2 = s (1, -1, 0, ...), both +1: the min-norm point is s (1, 0, ...), gamma = s
    (normalized: 1/sqrt(2)).  A stalled float Wolfe leaves a wide interval; the mpmath polish closes it for
    pattern length d0 <= POLISH_MAX_DIM (inclusive) and at any scale s (the width test is relative)."""
    monkeypatch.setattr(DM, "_wolfe_primal", _stalled_wolfe)
    X = np.zeros((2, d))
    X[:, 0], X[0, 1], X[1, 1] = scale, scale, -scale
    M = DM.margin_from_data(X, np.array([1, 1]), normalize=normalize)
    true = 1 / np.sqrt(2.0) if normalize else scale
    assert M.separable is True and M.lower <= true <= M.upper
    assert M.upper - M.lower <= 1e-12 * true and "polished at 40 digits" in M.method  # ~1e-12 (docstring)


def test_wolfe_witness_that_proves_nothing_is_undecided(monkeypatch):
    """x_1 = (1, 0), x_2 = (0, 1), both +1 (separable: no Gordan certificate).  A float Wolfe that returns
    p = e_2 gives u = (0, 1) with u . z_1 = 0 exactly: lower = 0 certifies nothing, so separable is None
    ('True' needs a certified lower > 0)."""
    monkeypatch.setattr(DM, "_wolfe_primal", lambda Yn: (np.array([0.0, 1.0]), 1, False))
    M = DM.margin_from_data(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, 1]))
    assert M.gordan is None
    assert M.separable is (True if M.lower > 0 else None)
    assert M.lower <= 1 / np.sqrt(2) <= M.upper


# =============================================================================================
# reference.data_margin: the exact Gordan check, the LP's support, the scale check
# =============================================================================================


def test_exact_null_combination_with_a_duplicate_point_and_a_redundant_equation():
    """(a) z = 1, 1, -1 (a duplicated point): after the first pivot the duplicate's column vanishes (a free
    variable, c = 0) but elimination must go on to the third column: c = (1/2, 0, 1/2), the one solution
    with c_2 = 0 (checked: 1/2 - 1/2 = 0, sum 1).  (b) z = (1, 1), (-1, -1): the two coordinate equations
    are the same, one is left over as 0 = 0 (consistent): c = (1/2, 1/2)."""
    P = DM.make_patterns(np.array([[1.0], [1.0], [1.0]]), np.array([1, 1, -1]), rho=None)
    assert DM._exact_null_combination(P, np.array([0, 1, 2])) == (Fraction(1, 2), Fraction(0), Fraction(1, 2))
    P = DM.make_patterns(np.array([[1.0, 1.0], [1.0, 1.0]]), np.array([1, -1]), rho=None)
    assert DM._exact_null_combination(P, np.array([0, 1])) == (Fraction(1, 2), Fraction(1, 2))


def test_gordan_certificate_keeps_only_positive_weights(monkeypatch):
    """The certificate does not trust the LP: an LP answer that is not a vertex (here p = (1/4, 1/4, 1/2) on
    z = 1, 1, -1, as an interior-point method could return) still gives a certificate with c_k > 0 only:
    the duplicate gets c = 0 in the exact solve and is left out of the support."""
    import scipy.optimize
    from types import SimpleNamespace

    monkeypatch.setattr(scipy.optimize, "linprog", lambda *a, **k: SimpleNamespace(status=0, x=np.array([0.25, 0.25, 0.5])))
    P = DM.make_patterns(np.array([[1.0], [1.0], [1.0]]), np.array([1, 1, -1]), rho=None)
    support, c = DM.gordan_certificate(P)
    assert all(ck > 0 for ck in c) and sum(c) == 1
    assert support == (0, 2) and c == (Fraction(1, 2), Fraction(1, 2))


def test_scale_check_message_for_all_zero_x():
    """X = 0 (allowed with rho and Delta: every pattern is nonzero): the largest entry of X and rho is rho."""
    with pytest.raises(ValueError) as err:
        DM.margin_from_data(np.zeros((2, 2)), np.array([1, -1]), rho=0.5, Delta=1e-80)
    assert str(err.value) == ("Delta=1e-80 is too small beside the largest entry 0.5 of X and rho: Delta^-2 Z^T Z overflows "
                              "float64 here (Delta >= 5.53e-76); pass a larger Delta, or rescale X, rho and Delta by one "
                              "factor c (the margin scales by c)")


# =============================================================================================
# reference.data_margin.certified_lower / certified_upper: sound on exact instances
# =============================================================================================

# Pythagorean patterns: |z| is an integer, so the true values below are exact rationals.
_TRIPLES = [(3.0, 4.0, 5.0), (5.0, 12.0, 13.0), (8.0, 15.0, 17.0), (20.0, 21.0, 29.0), (119.0, 120.0, 169.0)]


@pytest.mark.parametrize("a, b, c", _TRIPLES)
@pytest.mark.parametrize("scale", [1.0, 2.0**-30, 2.0**30])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_certified_bounds_never_cross_the_exact_value(a, b, c, scale, sign):
    """One pattern z = (a, b) with a^2 + b^2 = c^2.  With u = sign * z: min_k u . z / ||u|| = sign * c and,
    normalized, sign * 1, exactly; with beta = 1: ||z|| / 1 = c and, normalized (beta_k ||z_k|| = 1), 1.
    certified_lower must stay <= these values and certified_upper >= them (RP14 Lemma 3, rigorous
    rounding), whatever the scale of u, beta and z."""
    P = DM.make_patterns(np.array([[a * scale, b * scale]]), np.array([1]), rho=None)
    u = sign * np.array([a, b])
    tight = 1e-13  # and tight: the allowances are a few dozen units of round-off here
    for lo, true in [(DM.certified_lower(P, u), sign * c * scale), (DM.certified_lower(P, u * scale), sign * c * scale),
                     (DM.certified_lower(P, u, normalize=True), sign)]:
        assert true - tight * abs(true) <= lo <= true, (lo, true)
    for up, true in [(DM.certified_upper(P, np.array([1.0])), c * scale),
                     (DM.certified_upper(P, np.array([scale]), normalize=True), 1.0),
                     (DM.certified_upper(P, np.array([1.0 / (c * scale)]), normalize=True), 1.0)]:
        assert true <= up <= true * (1 + tight), (up, true)


def test_certified_upper_reads_integer_coefficients_as_float64():
    """beta = (2^62, 2^62) as int64: sum_k beta_k = 2^63 wraps around in int64; read as float64 it is exact.
    z_1 = z_2 = (3, 4): ||sum beta_k z_k|| / sum beta_k = 5 exactly."""
    P = DM.make_patterns(np.array([[3.0, 4.0], [3.0, 4.0]]), np.array([1, 1]), rho=None)
    up = DM.certified_upper(P, np.array([2**62, 2**62], dtype=np.int64))
    assert 5 <= up <= 5 * (1 + 1e-13)


@pytest.mark.parametrize("kw", [dict(rho=4.0), dict(Delta=4.0), dict(rho=4.0, Delta=12.0)])
def test_R_is_the_longest_pattern_rounded_up(kw):
    """R = max_k ||y_k||, rounded up: x = (3) with rho = 4 or Delta = 4 gives ||y|| = 5; with both,
    y = (3, 4, 12): 13.  Exact Pythagorean values, so R must lie in [true, true (1 + 1e-14)]."""
    M = DM.margin_from_data(np.array([[3.0]]), np.array([1]), **kw)
    true = 13.0 if len(kw) == 2 else 5.0
    assert true <= M.R <= true * (1 + 1e-14)


# =============================================================================================
# reference.fast.engine
# =============================================================================================


def test_fast_engine_allocates_no_trace_unless_asked():
    """Without trace the fast engine keeps no per-iteration records, so a huge budget costs nothing:
    G = [[1, 1/2], [1/2, 1]] is separated at the first iteration (both points at 60 degrees)."""
    pytest.importorskip("numba")
    import reference

    G = np.array([[1.0, 0.5], [0.5, 1.0]])
    r = reference.nkp(G, engine="fast", max_iter=10**15)
    assert r.status == "separator" and r.iterations == 1 and r.trace is None
