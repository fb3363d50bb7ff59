"""Certified margins of a data set at scale (reference.margin_from_data): planted margins,
agreement with the dense reference.margin, exact Gordan certificates, witnesses that the
certification does not trust, dense vs CSR bit for bit, and the real data sets (slow)."""

from __future__ import annotations

import math
import re
import sys
import warnings
from fractions import Fraction
from importlib import resources
from pathlib import Path

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

import reference
import reference as ref
import reference.data_margin as DM
from reference import data_margin as dm
from reference.arithmetic import scaled_pow2_exact
from reference.patterns import make_patterns
from tests.support.margin import MARGIN2, _dot, _exact_wolfe_corrals, _q, _solve
from theorems.instances.families import data_dir


DATA = data_dir() or Path("shared-data-absent")  # $MARGINS_DATA or ../shared/data beside the repository


def _heart():
    with resources.as_file(resources.files("reference.data_files") / "heart_scale.txt") as p:
        return ref.load_libsvm(p, n_features=13)


def _dense_margin(X, y, rho, Delta):
    Y = make_patterns(X, y, rho=rho, Delta=Delta).dense()
    return ref.margin(Y @ Y.T)


def _exact_zero(X, y, rho, support, c):
    acc = [Fraction(0)] * (X.shape[1] + (rho is not None))
    for k, ck in zip(support, c):
        row = list(X[k]) + ([rho] if rho is not None else [])
        for j, v in enumerate(row):
            acc[j] += ck * Fraction(float(v)) * int(y[k])
    return all(a == 0 for a in acc)


def _real(name, fname):
    path = DATA / name / fname
    if not path.is_file():
        pytest.skip(f"{path} not present (the shared LIBSVM data sets are optional)")
    return ref.load_libsvm(path)


#: 9 points in 3 dimensions, small integers, not separable without a bias (0 is a convex
#: combination of the z_k = l_k x_k); with rows 0-2 times 2^-20 or 1e-6 HiGHS's default
#: tolerance 1e-7 let the LP answer a support that is no convex combination (the decision was None).
SMALL_X = np.array([[1, -2, -1], [-1, 1, -1], [0, -2, -3], [1, 0, -2], [3, 3, 1], [-3, 0, -1], [-2, 1, -3], [-2, -3, -1], [1, 1, -2]], dtype=float)


SMALL_Y = np.array([-1, -1, -1, 1, -1, 1, 1, 1, 1])


#: XOR with two points far out; with a bias not separable; with rows 0-2 times 1e6 the LP's support did not verify.
XOR_X = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1], [2, 1], [1, 3]], dtype=float)


XOR_Y = np.array([1, 1, -1, -1, 1, 1])


def _scaled_rows(X, rows, c):
    Xs = np.array(X, dtype=float)
    Xs[list(rows)] *= c
    return Xs


def _check_certified_infeasible(M, X, y, rho, name):
    assert M.separable is False and M.upper == 0.0 and M.gordan is not None, f"{name}: {M.separable}, [{M.lower}, {M.upper}], {M.method}"
    support, c = M.gordan
    assert all(ck > 0 for ck in c) and sum(c) == 1, name
    assert _exact_zero(X, y, rho, support, c), f"{name}: the certificate is not an exact zero of the data as passed"
    assert M.lower == -M.R, name  # the trivial bound, with R of the data as passed
    R = max(math.sqrt(float(np.sum(X[k] ** 2)) + (rho or 0.0) ** 2) for k in range(X.shape[0]))
    assert R <= M.R <= R * (1 + 1e-14), name


def _exact_lower_holds(P, u, L, normalize=False):
    """L <= min_k u . y_k / ||u||  (y_k / ||z_k|| with normalize), decided in rationals."""
    if L == -math.inf:
        return True
    uu = [Fraction(float(x)) for x in u]
    Q = sum(x * x for x in uu)
    Y, Z = P.dense(), P.Z().toarray()
    L = Fraction(L)
    for k in range(P.m):
        t = sum(Fraction(float(a)) * b for a, b in zip(Y[k], uu))
        D = Q * sum(Fraction(float(v)) ** 2 for v in Z[k]) if normalize else Q
        if L > 0 and (t <= 0 or L * L * D > t * t):
            return False
        if L <= 0 and t < 0 and L * L * D < t * t:
            return False
    return True


_TINY = [1e-170, 2.0**-560, 1e-300]


U = Fraction(1, 2**53)


class _LeftToRight:
    """numpy, except that ``sum(a)`` (no axis) adds the entries of ``a`` one by one, left to right, in
    float64 (Python floats: IEEE binary64, round to nearest)."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def sum(a, *args, **kwargs):
        if args or kwargs:
            return np.sum(a, *args, **kwargs)
        acc = 0.0
        for x in np.asarray(a, dtype=np.float64).ravel():
            acc += float(x)
        return np.float64(acc)


def _adverse_beta(m):
    """beta = (1, t, ..., t): t^2 is just below 2^-53, so added to a partial sum of squares 1 it is
    rounded away (the sum of squares comes out ~(m - 1) u low); t modulo 2^-52 is just above 2^-53,
    so each addition to a partial sum in [1, 2) rounds up by ~u (sum beta comes out ~(m - 1) u high)."""
    q = 2.0**-52
    t = (math.floor(math.sqrt(2.0**-53) / q) - 1) * q + 2.0**-53 + 2.0**-79
    assert t * t < 2.0**-53 < math.fmod(t, q)
    return np.array([1.0] + [t] * (m - 1))


MARGIN = sys.modules["reference.margin"]  # the module (the package exports the function `margin`)


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


def _stalled_wolfe(Yn):
    """A float Wolfe that stops early: weights (0.501, 0.499) instead of the optimal (1/2, 1/2)."""
    return np.array([0.501, 0.499]), 1, False


# Pythagorean patterns: |z| is an integer, so the true values below are exact rationals.
_TRIPLES = [(3.0, 4.0, 5.0), (5.0, 12.0, 13.0), (8.0, 15.0, 17.0), (20.0, 21.0, 29.0), (119.0, 120.0, 169.0)]


U2 = Fraction(1, 2**53)  # unit roundoff


def _line():
    """Patterns z_0 = (1), z_1 = (2) (rho=None): for u = (s), s > 0, min_k u.y_k / ||u|| = 1 exactly;
    normalized, every y_k / ||y_k|| = (1) and the margin of u is 1 too; for beta = (s, 0) the
    RP14 Lemma 3 quantity ||sum beta_k y_k|| / sum beta_k is 1 (also normalized: beta_0 ||z_0|| = s)."""
    return make_patterns(np.array([[1.0], [2.0]]), np.array([1, 1]), rho=None)


# tiny witnesses (whose squares underflow) and huge ones (whose squares overflow): the quantities
# are invariant under positive scaling, so the certified bounds must stay sound and tight.
SCALES = [1.0, 3e-162, 1e-160, 1e-170, 1e-310, 5e-324, 1e200, 1e300, 1.7e308]


_NORM_ROWS = [
    [1.0, 0.0, 0.0],
    [0.0011360465324896428, 0.00010970639932180819, -0.0005526473205362325],
    [-9.270512969397014, -1.7385313546667398, 2.9431166664586503],
    [-8.369619281702581e-05, -0.0011632259734447486, -0.0006292880940615545],
    [0.1, 0.2, 0.3],
    [1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0],
]


_XS = [1.0, 0.5, 0.75, 1.5, 3.0, 1e-300, 5e-324, 1e300, 0.1]


def _spy_wolfe(monkeypatch):
    calls = []
    real = MARGIN2._wolfe

    def spy(K, ar, max_iter, start=None):
        calls.append(start)
        return real(K, ar, max_iter, start=start)

    monkeypatch.setattr(MARGIN2, "_wolfe", spy)
    return calls


_DMX, _DMY = np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([1, -1])


_SCALE_FIX = "rescale X, rho and Delta by one factor c (the margin scales by c)"


DATA_MARGIN_ERRORS = [
    (lambda: DM.margin_from_data(_DMX, _DMY, normalize=1), "normalize must be True or False, got 1"),
    (lambda: DM.margin_from_data(_DMX, _DMY, normalize=True, Delta=1.0),
     "normalize=True (RP14's rho_2) has no extended space; pass Delta=None, or normalize=False for PT11's gamma_d"),
    (lambda: DM.margin_from_data(_DMX, _DMY, rho=0), "rho must lie in (0, inf), got 0; pass e.g. rho=1.0, or rho=None for no augmentation"),
    (lambda: DM.margin_from_data(_DMX, _DMY, Delta=-1), "Delta must lie in (0, inf), got -1; pass e.g. Delta=1.0, or Delta=None for the original space"),
    (lambda: DM.margin_from_data(_DMX * 1e80, _DMY),
     "X has an entry of size 2e+80: its square overflows float64 here (entries up to 2^250 ~ 1.8e75); " + _SCALE_FIX),
    (lambda: DM.margin_from_data(_DMX, _DMY, rho=1e80), "rho=1e+80: rho^2 overflows float64 here (rho up to 2^250 ~ 1.8e75); " + _SCALE_FIX),
    (lambda: DM.margin_from_data(_DMX, _DMY, Delta=1e80), "Delta=1e+80: Delta^2 overflows float64 here (Delta up to 2^250 ~ 1.8e75); " + _SCALE_FIX),
    (lambda: DM.margin_from_data(_DMX, _DMY, Delta=1e-80),
     "Delta=1e-80 is too small beside the largest entry 2 of X and rho: Delta^-2 Z^T Z overflows float64 here "
     "(Delta >= 1.11e-75); pass a larger Delta, or " + _SCALE_FIX),
    (lambda: DM.margin_from_data(_DMX * 1e70, _DMY, Delta=1e-5),
     "Delta=1e-05 is too small beside the largest entry 2e+70 of X and rho: Delta^-2 Z^T Z overflows float64 here "
     "(Delta >= 1.11e-05); pass a larger Delta, or " + _SCALE_FIX),
    (lambda: DM.margin_from_data(_DMX, _DMY, rho=1e-70, Delta=1e-80),
     "Delta=1e-80 is too small beside the largest entry 2 of X and rho: Delta^-2 Z^T Z overflows float64 here "
     "(Delta >= 1.11e-75); pass a larger Delta, or " + _SCALE_FIX),
    (lambda: DM.margin_from_data(_DMX, _DMY, rho=1e70, Delta=1e-6),  # rho is the largest entry
     "Delta=1e-06 is too small beside the largest entry 1e+70 of X and rho: Delta^-2 Z^T Z overflows float64 here "
     "(Delta >= 5.53e-06); pass a larger Delta, or " + _SCALE_FIX),
    (lambda: DM.margin_from_data(_DMX * 1e-10, _DMY, Delta=1e-80),  # tiny data: the floor 2^-250 applies
     "Delta=1e-80 is too small beside the largest entry 2e-10 of X and rho: Delta^-2 Z^T Z overflows float64 here "
     "(Delta >= 5.53e-76); pass a larger Delta, or " + _SCALE_FIX),
    (lambda: DM.margin_from_data([[0.0, 0.0], [1.0, 0.0]], _DMY, normalize=True),
     "X has 1 zero rows (first: [0]): a zero point cannot be normalized and is never strictly separated; add a "
     "bias by augmentation (rho=1.0), or drop them with reference.drop_zero_rows(X, y)"),
    (lambda: DM.certified_lower(DM.make_patterns(_DMX, _DMY, rho=1.0), np.ones(2)),
     "u must be a finite vector of length 3 (the pattern space), got shape (2,)"),
    (lambda: DM.certified_lower(DM.make_patterns(_DMX, _DMY, rho=1.0), np.array([np.inf, 1.0, 1.0])),
     "u must be a finite vector of length 3 (the pattern space), got shape (3,)"),
    (lambda: DM.certified_upper(DM.make_patterns(_DMX, _DMY, rho=1.0), np.zeros(2)), "beta must be a finite nonnegative nonzero vector of length 2"),
    (lambda: DM.certified_upper(DM.make_patterns(_DMX, _DMY, rho=1.0), np.array([-1.0, 2.0])), "beta must be a finite nonnegative nonzero vector of length 2"),
    (lambda: DM.certified_upper(DM.make_patterns(_DMX, _DMY, rho=1.0), np.array([np.nan, 2.0])), "beta must be a finite nonnegative nonzero vector of length 2"),
    (lambda: DM.certified_upper(DM.make_patterns(_DMX, _DMY, rho=1.0), np.ones(3)), "beta must be a finite nonnegative nonzero vector of length 2"),
]


def _dm(**kw):
    base = dict(lower=1.0, upper=1.0, value=1.0, separable=True, u=None, beta=None, gordan=None, method="m", m=1, d=1,
                nnz=1, R=1.0, rho=None, Delta=None, normalize=False)
    base.update(kw)
    return DM.DataMargin(**base)


ETA = math.ldexp(1.0, -1074)  # the smallest positive subnormal


F_ETA = Fraction(1, 2**1074)


def _exact_margin_parts(P, u):
    """(min_k u . y_k, u . u) in exact rationals (the float data and witness are rationals)."""
    Y = P.dense()
    fu = [Fraction(float(x)) for x in u]
    N = min(sum((Fraction(float(y)) * a for y, a in zip(row, fu)), Fraction(0)) for row in Y)
    return N, sum((a * a for a in fu), Fraction(0))


def _at_most(b, N, Q):
    """b <= N / sqrt(Q) exactly (Q > 0), b a float (-0.0 reads as 0) or a Fraction."""
    b = Fraction(b)
    if b <= 0 <= N:
        return True
    if b > 0 >= N:
        return False
    if b > 0:  # both positive
        return b * b * Q <= N * N
    return b * b * Q >= N * N  # b <= 0, N < 0: |b| >= |N| / sqrt(Q)


#: (name, X, y, u): one pattern (no rho, no Delta), its entries multiples of 2^-1074, u exactly in [1/2, 1)
#: (scaled_pow2_exact leaves it as it is).  Worked by hand (u = 0.75 everywhere unless said):
#: - ties_up_10: x = 2 eta in 10 coordinates: each product 1.5 eta rounds to 2 eta, the float dot product is
#:   20 eta against the exact 15 eta; exact margin 15 eta / (0.75 sqrt 10) = 6.32 eta.  The allowance
#:   2 n eta (n = 12) takes it below 0; with 2 / n eta (rounds to 0) the bound is fl(20 / 2.37) - 1 = 7 eta,
#:   above the exact margin.
#: - negative_tie_1024: x = -2 eta in one of 1024 coordinates: float product -2 eta, exact -1.5 eta;
#:   ||u|| = 24; num = -2 - 6 = -8 eta, -8 / 24 eta rounds to -0.0, so only the final - eta keeps the
#:   bound (-eta) below the exact -1.5 / 24 eta = -0.0625 eta (+ eta, or - 0, gives a bound above it).
#: - num_zero: x = 12 eta, u = 0.5 (1-d): u . y = 6 eta exactly = e (the relative part underflows, the
#:   absolute one is 2 * 3 eta): num = 0 exactly; the bound is 0 (num = 0 is exact), within the
#:   allowance of the exact 12 eta (a bound of -1 is not).
LOWER_SUBNORMAL = [
    ("ties_up_10", np.full((1, 10), 2 * ETA), [1], np.full(10, 0.75)),
    ("negative_tie_1024", np.eye(1, 1024) * (-2 * ETA), [1], np.full(1024, 0.75)),
    ("num_zero", np.array([[12 * ETA]]), [1], np.array([0.5])),
]


#: (p, nrm, ez, overflows): every p_k / nrm_k and every power of two exact, so the expected values are exact.
Z_COEFF = [
    ([0.25, 0.75], [0.5, 0.75], [3, -2], False),  # p / ||z|| = (1/16, 4): no overflow, no common factor
    ([0.5, 0.5], [0.5, 1.0], [-1030, 0], True),  # p / ||z|| = (2^1030, 1/2): overflows; times 2^-1030
]


#: (kwargs, X, y, exact margin squared): closed forms.  Delta = 1, one point x = 1: y = (1, 1), margin sqrt 2.
#: x = (3, 4), (4, 3), both +1: min-norm point (3.5, 3.5), margin^2 = 24.5; normalized: (0.7, 0.7), 0.98.
VALUE_CASES = [
    (dict(Delta=1.0), [[1.0]], [1], Fraction(2)),
    (dict(), [[3.0, 4.0], [4.0, 3.0]], [1, 1], Fraction(49, 2)),
    (dict(normalize=True), [[3.0, 4.0], [4.0, 3.0]], [1, 1], Fraction(49, 50)),
]


def _stalled_wolfe_2(Yn):
    """A float Wolfe that stopped at the first point: p = e_1 (a valid but not optimal witness)."""
    p = np.zeros(Yn.shape[0])
    p[0] = 1.0
    return p, 1, False


POLISH_CASES = [
    # the polish returns the float witness unchanged: nothing replaced, the method does not say polished
    ("identity", lambda Yn, p: (p, Yn.T @ p), False),
    # the polish improves the lower witness only (u = the min-norm point (3.5, 3.5), p unchanged): says polished
    ("lower only", lambda Yn, p: (p, np.array([3.5, 3.5])), True),
]


ETA2 = 2.0**-1074  # the smallest positive subnormal


_WITNESSES = "lower = min_k u.y_k/||u||, upper = ||sum beta_k y_k||/sum beta_k [RP14 Lemma 3], rounding bounded"


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


def test_planted_margins_without_delta():
    # {(1, 0), (0, 1)}, both labelled +1: gamma = 1/sqrt(2) (the min-norm point (1/2, 1/2))
    M = ref.margin_from_data(np.array([[1.0, 0.0], [0.0, 1.0]]), [1, 1])
    assert M.separable is True and M.lower <= 1 / math.sqrt(2) <= M.upper and M.relative_width < 1e-13
    # normalized: the scale of the points does not matter (rho_2)
    Mn = ref.margin_from_data(np.array([[2.0, 0.0], [0.0, 3.0]]), [1, 1], normalize=True)
    assert Mn.lower <= 1 / math.sqrt(2) <= Mn.upper and Mn.relative_width < 1e-13
    # unnormalized the same points have margin 6/sqrt(13) (distance from 0 to the segment)
    Mu = ref.margin_from_data(np.array([[2.0, 0.0], [0.0, 3.0]]), [1, 1])
    assert Mu.lower <= 6 / math.sqrt(13) <= Mu.upper and Mu.relative_width < 1e-13


def test_planted_margin_in_the_extended_space():
    # one point x = (1), label +1, rho = None, Delta = 1: y = (1, 1), gamma_d = sqrt(2)
    M = ref.margin_from_data(np.array([[1.0]]), [1], Delta=1.0)
    assert M.lower <= math.sqrt(2) <= M.upper and M.relative_width < 1e-13
    # x_1 = x_2 = (1) with labels +1, -1 (not separable), Delta: gamma_d = Delta / sqrt(2) (exact: the
    # patterns (1, D, 0), (-1, 0, -D) have min-norm point (y_1 + y_2)/2 = (0, D/2, -D/2))
    for D in (0.5, 1.0, 3.0):
        M = ref.margin_from_data(np.array([[1.0], [1.0]]), [1, -1], Delta=D)
        assert M.lower <= D / math.sqrt(2) <= M.upper and M.relative_width < 1e-12, D


@pytest.mark.parametrize("kw", [dict(rho=1.0, Delta=1.0), dict(rho=None, Delta=0.5), dict(rho=2.0, Delta=3.0)])
def test_agrees_with_the_dense_margin_on_heart_scale(kw):
    X, y = _heart()
    X, y = X[:120], y[:120]
    M = ref.margin_from_data(X, y, **kw)
    D = _dense_margin(X, y, kw["rho"], kw["Delta"])
    assert M.lower <= D.upper and D.lower <= M.upper  # both intervals contain the margin
    assert M.relative_width < 1e-11 and abs(M.value - D.value) <= 1e-9 * D.value


def test_separable_without_delta_agrees_with_the_dense_margin():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 4))
    w = np.array([1.0, -2.0, 0.5, 1.0])
    y = np.where(X @ w > 0, 1, -1)
    X = X + 0.3 * y[:, None] * w / np.linalg.norm(w)  # a planted gap around the hyperplane
    for normalize in (False, True):
        M = ref.margin_from_data(X, y, rho=None, normalize=normalize)
        G = ref.gram(X, y) if normalize else ref.signed_gram(X, y)
        D = ref.margin(G)
        assert M.separable is True and D.feasible is True
        assert M.lower <= D.upper and D.lower <= M.upper and M.relative_width < 1e-9


def test_gordan_certificate_is_exact():
    # XOR with a bias: not separable
    X = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    y = np.array([1, 1, -1, -1])
    M = ref.margin_from_data(X, y, rho=1.0)
    assert M.separable is False and M.upper == 0.0 and M.lower == -M.R
    support, c = M.gordan
    assert all(ck > 0 for ck in c) and sum(c) == 1 and len(support) <= X.shape[1] + 2
    assert _exact_zero(X, y, 1.0, support, c)
    D = _dense_margin(X, y, 1.0, None)
    assert D.upper <= 0 and M.lower <= D.lower  # the dense negative margin lies inside [-R, 0]
    # with Delta the same data are separable (PT11 Sec. 5)
    assert ref.margin_from_data(X, y, rho=1.0, Delta=1.0).separable is True


def test_gordan_on_heart_scale_is_exact():
    X, y = _heart()
    M = ref.margin_from_data(X, y, rho=1.0)
    assert M.separable is False
    support, c = M.gordan
    assert len(support) <= 13 + 2 and _exact_zero(X.toarray(), y, 1.0, support, c)


def test_exact_check_rejects_a_wrong_support():
    # z_1 = (1), z_2 = (2): no nonnegative combination is 0 -> None, never a false certificate
    P = make_patterns(np.array([[1.0], [2.0]]), [1, 1], rho=None)
    assert dm._exact_null_combination(P, np.array([0, 1])) is None
    # z_1 = (1), z_2 = (-3): c = (3/4, 1/4) exactly
    P = make_patterns(np.array([[1.0], [3.0]]), [1, -1], rho=None)
    assert dm._exact_null_combination(P, np.array([0, 1])) == (Fraction(3, 4), Fraction(1, 4))


def test_certification_does_not_trust_the_solver(monkeypatch):
    X, y = _heart()
    X, y = X[:100], y[:100]
    good = ref.margin_from_data(X, y, rho=1.0, Delta=1.0)
    real = dm._newton_l2svm

    def bad(P):  # a perturbed, suboptimal witness
        v, s, steps = real(P)
        return v * 0.9 + 0.01, s + 0.05, steps

    monkeypatch.setattr(dm, "_newton_l2svm", bad)
    worse = ref.margin_from_data(X, y, rho=1.0, Delta=1.0)
    # still a valid interval containing the margin, just wider
    assert worse.lower <= good.upper and good.lower <= worse.upper
    assert worse.lower < good.lower and worse.upper > good.upper and worse.relative_width > 1e-4


def test_certified_bounds_are_rigorous_on_random_witnesses():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 3))
    y = rng.choice([-1, 1], 30)
    P = make_patterns(X, y, rho=1.0, Delta=0.7)
    true = _dense_margin(X, y, 1.0, 0.7)
    for _ in range(20):
        u = rng.standard_normal(P.dim)
        beta = rng.random(P.m)
        assert dm.certified_lower(P, u) <= true.upper
        assert dm.certified_upper(P, beta) >= true.lower
    with pytest.raises(ValueError, match="u must be a finite vector of length"):
        dm.certified_lower(P, np.ones(3))
    with pytest.raises(ValueError, match="beta must be a finite nonnegative nonzero"):
        dm.certified_upper(P, -np.ones(P.m))


@settings(max_examples=25)
@given(
    st.integers(2, 12).flatmap(
        lambda m: st.tuples(
            st.lists(st.lists(st.sampled_from([0.0, 0.0, 1.0, -1.0, 0.5, 2.0]), min_size=3, max_size=3), min_size=m, max_size=m),
            st.lists(st.sampled_from([1, -1]), min_size=m, max_size=m),
        )
    ),
    st.sampled_from([dict(rho=1.0, Delta=1.0), dict(rho=1.0), dict(rho=0.5, Delta=2.0)]),
)
def test_dense_and_csr_inputs_bit_identical(data, kw):
    X, y = np.array(data[0]), np.array(data[1])
    A = ref.margin_from_data(X, y, **kw)
    B = ref.margin_from_data(sp.csr_matrix(X), y, **kw)
    assert (A.lower, A.upper, A.separable, A.method) == (B.lower, B.upper, B.separable, B.method)
    assert A.lower <= A.upper


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(Delta=0.0), "Delta must lie in"),
        (dict(Delta=-1.0), "Delta must lie in"),
        (dict(rho=-1.0), "rho must lie in"),
        (dict(Delta=1.0, normalize=True), "normalize=True .* has no extended space"),
        (dict(normalize=1), "normalize must be True or False"),
    ],
)
def test_bad_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        ref.margin_from_data(np.eye(2), [1, -1], **kw)


@pytest.mark.parametrize(
    "X, kw, match",
    [
        (np.eye(2), dict(Delta=1e308), r"Delta=1e\+308: Delta\^2 overflows float64.*rescale X, rho and Delta"),
        (np.eye(2), dict(rho=1e308), r"rho=1e\+308: rho\^2 overflows float64.*rescale X, rho and Delta"),
        (np.eye(2), dict(rho=1.0, Delta=1e200), r"Delta=1e\+200: Delta\^2 overflows"),
        (np.eye(2), dict(Delta=1e-200), r"Delta=1e-200 is too small beside the largest entry 1 of X and rho.*pass a larger Delta"),
        (np.eye(2), dict(rho=1e70, Delta=1e-10), r"Delta=1e-10 is too small beside the largest entry 1e\+70"),
        (1e200 * np.eye(2), dict(), r"X has an entry of size 1e\+200.*rescale X, rho and Delta"),
        (1e200 * np.eye(2), dict(normalize=True), r"X has an entry of size 1e\+200"),
    ],
)
def test_scales_whose_squares_leave_float64_are_value_errors_naming_the_argument(X, kw, match):
    """Delta = 1e308 raised OverflowError (34, 'Numerical result out of range') from Delta**2,
    X = 1e200 'u must be a finite vector', Delta = 1e-200 a ZeroDivisionError (new-user trial)."""
    with pytest.raises(ValueError, match=match):
        ref.margin_from_data(X, [1, -1], **kw)


def test_scales_at_the_limit_are_computed_and_correct():
    # x_1 = x_2 = (1), labels +1, -1: gamma_d = Delta / sqrt(2) exactly (see above), at the edges of the range
    for D in (dm.SCALE_LIMIT, 2.0**-200):
        M = ref.margin_from_data(np.array([[1.0], [1.0]]), [1, -1], Delta=D)
        assert M.lower <= D / math.sqrt(2) <= M.upper and M.lower > 0, D
    M = ref.margin_from_data(np.array([[1.0], [1.0]]), [1, -1], Delta=dm.SCALE_LIMIT)
    assert M.relative_width < 1e-12
    M = ref.margin_from_data(dm.SCALE_LIMIT * np.array([[1.0, 0.0], [0.0, 1.0]]), [1, 1])  # gamma = 2^250 / sqrt(2)
    assert M.lower <= dm.SCALE_LIMIT / math.sqrt(2) <= M.upper and M.relative_width < 1e-12


def test_zero_rows():
    X = np.array([[0.0, 0.0], [1.0, 0.0]])
    for kw in (dict(rho=None), dict(rho=None, normalize=True)):
        with pytest.raises(ValueError, match="X has 1 zero rows"):
            ref.margin_from_data(X, [1, -1], **kw)
    assert ref.margin_from_data(X, [1, -1], rho=1.0).separable is True  # augmentation makes it nonzero
    assert ref.margin_from_data(X, [1, -1], rho=None, Delta=1.0).separable is True


def test_cli_margin(tmp_path, capsys):
    import json

    from theorems import cli

    f = tmp_path / "xor.svm"
    f.write_text("+1\n+1 1:1 2:1\n-1 1:1\n-1 2:1\n")
    assert cli.main(["margin", "--data", str(f), "--n-features", "2"]) == 0
    out = capsys.readouterr().out
    assert "NOT separable (certified exactly: Gordan)" in out and "m = 4 points, d = 2 features, nnz = 4" in out
    assert cli.main(["margin", "--data", str(f), "--Delta", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert {"lower", "upper", "method", "m", "d", "nnz"} <= set(d) and 0 < d["lower"] <= d["upper"]
    assert cli.main(["margin", "--data", str(f), "--rho", "none"]) == 2  # zero row without a bias
    assert "zero rows" in capsys.readouterr().err


@pytest.mark.parametrize("name,fname,rows", [("heart_scale", "heart_scale", 120), ("sonar", "sonar", 120), ("ionosphere", "ionosphere", 120)])
def test_small_real_sets_against_the_dense_margin(name, fname, rows):
    X, y = _real(name, fname)
    M = ref.margin_from_data(X[:rows], y[:rows], rho=1.0, Delta=1.0)
    D = _dense_margin(X[:rows], y[:rows], 1.0, 1.0)
    assert M.lower <= D.upper and D.lower <= M.upper and M.relative_width < 1e-10


@pytest.mark.slow
@pytest.mark.parametrize("name,fname", [("a9a", "a9a.gz"), ("w8a", "w8a.gz")])
def test_full_size_real_sets(name, fname):
    X, y = _real(name, fname)
    M = ref.margin_from_data(X, y, rho=1.0, Delta=1.0)
    assert M.separable is True and M.relative_width <= 1e-9 and M.seconds < 60
    N = ref.margin_from_data(X, y, rho=1.0)
    assert N.separable is False and N.upper == 0.0 and len(N.gordan[0]) <= X.shape[1] + 2


def test_wdbc_is_separable_witness_checked_exactly():
    # wdbc (unscaled, R ~ 5e3) with a bias is linearly separable with margin ~4.1e-5: the certified
    # lower bound is re-checked here in exact rational arithmetic from the witness u alone.
    X, y = _real("wdbc", "wdbc")
    M = ref.margin_from_data(X, y, rho=1.0)
    assert M.separable is True and M.relative_width < 1e-6
    u = [Fraction(float(v)) for v in M.u]
    D = X.toarray()
    exact = min(int(y[k]) * (sum(Fraction(float(D[k, j])) * u[j] for j in range(D.shape[1])) + u[-1]) for k in range(len(y)))
    norm_sq = sum(v * v for v in u)
    assert exact > 0 and Fraction(M.lower) ** 2 * norm_sq <= exact**2  # lower <= min_k u.y_k / ||u||, exactly


def test_wdbc_dense_margin_never_calls_separable_data_infeasible():
    # Regression: ||p*||_K^2 ~ 1.7e-9 is below Wolfe's round-off tolerance 64 n u max_i K_ii ~ 1e-4
    # here (R ~ 5e3), and margin(of='span') used to answer feasible=False from that float test alone,
    # although the witness u above separates wdbc exactly.  Undecided (None) is the honest answer.
    X, y = _real("wdbc", "wdbc")
    K = ref.signed_gram(X, y, rho=1.0)
    for of in ("span", "matrix"):
        m = ref.margin(K, of=of)
        assert m.feasible is not False and m.upper > 0, (of, m.method)
        assert m.feasible is True or "undecided" in m.method


@pytest.mark.parametrize("X, y, rho, label", [pytest.param(SMALL_X, SMALL_Y, None, "9 points in 3-D, no bias", id="small-no-bias"),
                                               pytest.param(XOR_X, XOR_Y, 1.0, "XOR + 2 points, bias 1", id="xor-bias")])
@pytest.mark.parametrize("c", [2.0**-20, 1e-6, 1e6])
def test_gordan_certificate_survives_scaling_rows(X, y, rho, label, c):
    name = f"{label}, rows 0-2 times {c!r}"
    _check_certified_infeasible(ref.margin_from_data(X, y, rho=rho), X, y, rho, label)
    Xs = _scaled_rows(X, (0, 1, 2), c)
    _check_certified_infeasible(ref.margin_from_data(Xs, y, rho=rho), Xs, y, rho, name)


def test_gordan_certificate_under_power_of_two_row_scaling_is_the_rescaled_one():
    # z_k -> 2^-20 z_k for k = 0, 1, 2 is exact: the certificate has the same support and weights
    # c_k 2^20 on the scaled rows, renormalized -- exactly
    M = ref.margin_from_data(SMALL_X, SMALL_Y)
    Ms = ref.margin_from_data(_scaled_rows(SMALL_X, (0, 1, 2), 2.0**-20), SMALL_Y)
    assert Ms.separable is False and Ms.gordan is not None, f"9 points in 3-D, rows 0-2 times 2^-20: {Ms.method}"
    assert Ms.gordan[0] == M.gordan[0], "9 points in 3-D, rows 0-2 times 2^-20: support changed"
    w = [ck * (2**20 if k < 3 else 1) for k, ck in zip(*M.gordan)]
    assert Ms.gordan[1] == tuple(wk / sum(w) for wk in w), "9 points in 3-D, rows 0-2 times 2^-20: weights not the rescaled ones"


@pytest.mark.parametrize("c, rho", [(1e-6, None), (2.0**-20, None), (1e6, 1.0), (1e-6, 1.0)])
def test_ionosphere_stays_not_separable_with_three_rows_scaled(c, rho):
    X, y = _real("ionosphere", "ionosphere")
    Xs = sp.diags([c] * 3 + [1.0] * (X.shape[0] - 3)) @ X
    M = ref.margin_from_data(Xs, y, rho=rho)
    _check_certified_infeasible(M, Xs.toarray(), y, rho, f"ionosphere, rows 0-2 times {c!r}, rho={rho}")


def test_wolfe_fallback_cost_is_bounded_on_a_scaled_non_separable_instance(monkeypatch):
    # Without the LP's certificate the data go to Wolfe.  Non-separable: the float iterates approach the
    # min-norm point 0 and then circle (a point added and dropped again, |x|^2 no longer decreasing);
    # they used to go on to WOLFE_MAX_ITER = 100000 cycles.  Now a cycle without progress ends the run,
    # and the run has at most WOLFE_CYCLES_PER_DIM (d0 + 2) cycles whatever WOLFE_MAX_ITER is.
    monkeypatch.setattr(dm, "gordan_certificate", lambda P: None)
    rng = np.random.default_rng(3)
    X = rng.integers(-3, 4, size=(60, 8)).astype(float)
    X[np.all(X == 0, axis=1), 0] = 1.0
    X[:3] *= 1e-6
    y = np.where(rng.random(60) < 0.5, 1, -1)
    M = ref.margin_from_data(X, y)
    m, d = X.shape
    assert M.separable is None and M.upper < 1e-12, f"60 random points in 8-D, rows 0-2 times 1e-6: {M.method}"
    assert M.info["wolfe_cycles"] <= 2 * (m + d), f"60 random points in 8-D, rows 0-2 times 1e-6: {M.info['wolfe_cycles']} Wolfe cycles"
    monkeypatch.setattr(dm, "WOLFE_MAX_ITER", 10**9)  # the cap relative to the dimension holds alone
    monkeypatch.setattr(dm, "WOLFE_CYCLES_PER_DIM", 2)
    assert ref.margin_from_data(X, y).info["wolfe_cycles"] <= 2 * (X.shape[1] + 2), "60 random points in 8-D: the cap per dimension"


@pytest.mark.parametrize("c", [1.0, 1e-6])
def test_wolfe_fallback_on_ionosphere_scaled_stops_when_it_stalls(monkeypatch, c):
    X, y = _real("ionosphere", "ionosphere")
    monkeypatch.setattr(dm, "gordan_certificate", lambda P: None)
    M = ref.margin_from_data(sp.diags([c] * 3 + [1.0] * (X.shape[0] - 3)) @ X, y)
    assert M.separable is None and M.info["wolfe_cycles"] <= X.shape[0], f"ionosphere, rows 0-2 times {c!r}: {M.info}"


@pytest.mark.parametrize("s", _TINY)
def test_normalized_lower_bound_of_rows_whose_squares_underflow(s):
    """z_1 = s (3, 4), z_2 = s (4, 3), normalized: (3/5, 4/5) and (4/5, 3/5); u = (1, 1) gives
    min_k u . y_k / ||u|| = (7/5) / sqrt(2), i.e. squared 49/50, at any scale s.  The squares of
    entries ~1e-170 underflow to 0: the norm bounds were 0 and the bound was inf (a false claim)."""
    P = make_patterns(np.array([[3.0, 4.0], [4.0, 3.0]]) * s, np.array([1, 1]), rho=None)
    lo = DM.certified_lower(P, np.array([1.0, 1.0]), normalize=True)
    assert 0 < lo and Fraction(lo) ** 2 <= Fraction(49, 50)
    assert Fraction(lo) ** 2 > Fraction(49, 50) * (1 - Fraction(1, 10**12))  # tight, not just sound
    assert _exact_lower_holds(P, [1.0, 1.0], lo, normalize=True)


@pytest.mark.parametrize("s", _TINY)
def test_normalized_upper_bound_of_rows_whose_squares_underflow_is_sound(s):
    """beta = (1, 1) on z_1 = s (3, 4), z_2 = s (4, 3): ||z_1 + z_2|| / (||z_1|| + ||z_2||) =
    7 sqrt(2) / 10, squared 98/100; the upper bound must stay above it (it may be loose there)."""
    P = make_patterns(np.array([[3.0, 4.0], [4.0, 3.0]]) * s, np.array([1, 1]), rho=None)
    up = DM.certified_upper(P, np.array([1.0, 1.0]), normalize=True)
    assert math.isfinite(up) and Fraction(up) ** 2 >= Fraction(98, 100)


@pytest.mark.parametrize("s", _TINY)
def test_margin_from_data_of_tiny_rows(s):
    """The normalized margin of {s (3, 4), s (4, 3)} is (7/5)/sqrt(2) (u = (1, 1) is optimal by
    symmetry), squared 49/50: certified, positive, at any scale s (the search divided by norms 0 and
    stopped on a non-finite witness); R = max ||y_k|| = 5 s rounded up (it was 0)."""
    X = np.array([[3.0, 4.0], [4.0, 3.0]]) * s
    M = DM.margin_from_data(X, np.array([1, 1]), normalize=True)
    assert M.separable and 0 < M.lower and Fraction(M.lower) ** 2 <= Fraction(49, 50) <= Fraction(M.upper) ** 2
    M = DM.margin_from_data(X, np.array([1, 1]))
    exact_sq = max(Fraction(float(a)) ** 2 + Fraction(float(b)) ** 2 for a, b in X)
    assert exact_sq <= Fraction(M.R) ** 2 <= exact_sq * (1 + Fraction(1, 10**12))


def test_R_bounds_a_pattern_whose_square_underflows():
    """y = +-1e-170 (one feature, no rho): max ||y_k|| = 1e-170, squared 1e-340 underflows; R was 0."""
    M = DM.margin_from_data(np.array([[1e-170], [-1e-170]]), np.array([1, 1]))
    assert Fraction(M.R) >= Fraction(1e-170) and M.lower <= -1e-170  # lower: gamma = -1e-170 here


def test_certified_lower_of_a_witness_whose_square_overflows_claims_nothing_false():
    """u = (1e300, 1e-320) cannot be scaled by a power of two exactly (the 1e-320 would underflow),
    and u . u overflows: the bound was num / sqrt(inf) = -0.0, but y_2 = (-1, 0) has
    u . y_2 / ||u|| ~ -1.  Any bound returned must stay <= the exact minimum."""
    P = make_patterns(np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1, 1]), rho=None)
    u = np.array([1e300, 1e-320])
    lo = DM.certified_lower(P, u)
    assert _exact_lower_holds(P, u, lo)


@pytest.mark.parametrize("label", [1, -1])
def test_lower_bound_divides_by_an_upper_bound_of_the_witness_norm(label):
    """d = 40 features, one pattern y = label (1/2, 0, ..., 0), u = e_1: min_k u . y_k / ||u|| = label / 2
    exactly.  Every rounding is exact here, so the bound is below label / 2 only by its allowances; the
    one on ||u||^2 = u . u is 2 gamma_{d+1} ~ 82 u, bigger than all the others together: dividing by a
    lower instead of an upper bound of ||u|| (for num > 0, or for num <= 0 the other way round) crosses
    label / 2."""
    d = 40
    X = np.zeros((1, d))
    X[0, 0] = 0.5
    P = make_patterns(X, np.array([label]), rho=None)
    u = np.zeros(d)
    u[0] = 1.0
    lo = Fraction(DM.certified_lower(P, u))
    assert lo <= Fraction(label, 2)
    assert lo > Fraction(label, 2) - 200 * U  # a few dozen u below, not more
    assert _exact_lower_holds(P, u, float(lo))


def test_lower_bound_allows_for_the_rounding_of_a_cancelling_two_term_dot_product():
    """y = [x, rho] = (3, 1), u = (fl(1/3), -1 + 2^-20): fl(3 fl(1/3)) = 1 (the exact product is
    1 - 2^-54), so the float dot product 2^-20 is 2^-54 above the exact u . y = 2^-20 - 2^-54: the
    allowance gamma_{nnz + 2} |u| . |y| (~2^-51 here) must be there even for a row of two terms
    (gamma_{nnz - 2} = 0)."""
    P = make_patterns(np.array([[3.0]]), np.array([1]), rho=1.0)
    u = np.array([1 / 3, -1 + 2.0**-20])
    assert Fraction(3) * Fraction(u[0]) + Fraction(u[1]) == Fraction(2) ** -20 - Fraction(2) ** -54  # the exact u . y
    lo = DM.certified_lower(P, u)
    assert 0 < lo and _exact_lower_holds(P, u, lo)


def test_upper_bound_of_a_single_sparse_pattern_in_many_dimensions():
    """d = 40 features, one pattern z = (1/2, 0, ..., 0), beta = 1: ||beta z|| / beta = 1/2 exactly;
    the allowance on the sum of the d squares must enlarge it."""
    d = 40
    X = np.zeros((1, d))
    X[0, 0] = 0.5
    P = make_patterns(X, np.array([1]), rho=None)
    up = Fraction(DM.certified_upper(P, np.array([1.0])))
    assert Fraction(1, 2) <= up < Fraction(1, 2) + 200 * U


def test_upper_bound_denominator_is_bounded_from_below():
    """m = 40 patterns z_k = e_k / 2, beta = 1: ||sum_k z_k|| / sum_k beta_k = sqrt(40) / 2 / 40, squared
    1/160.  Every column has one term (allowance 4u there) but the denominator sums 40: its allowance
    2 gamma_{m+2} must shrink it."""
    m = 40
    P = make_patterns(np.eye(m) * 0.5, np.ones(m, dtype=int), rho=None)
    up = Fraction(DM.certified_upper(P, np.ones(m)))
    assert Fraction(1, 160) <= up**2 < Fraction(1, 160) * (1 + 400 * U)


def test_upper_bound_allows_for_a_cancelling_column():
    """z_1 = 1, z_2 = -(1 - 2^-50), beta = (1, 1): sum_k beta_k z_k = 2^-50 (exact), sum beta = 2, so
    the bound is 2^-51; the column's allowance e ~ 2^-50 is as large as |w| itself and must be
    added to |w|, not subtracted."""
    P = make_patterns(np.array([[1.0], [-(1 - 2.0**-50)]]), np.array([1, 1]), rho=None)
    up = Fraction(DM.certified_upper(P, np.array([1.0, 1.0])))
    assert up >= Fraction(2) ** -51


@pytest.mark.parametrize("a", [46, 47, 65, 111])
def test_lower_bound_that_underflows_stays_below_the_exact_value(a):
    """1000 features, one pattern y = (2 a 2^-1074, 0, ..., 0), u = (1/2, ..., 1/2): min u . y / ||u|| =
    a 2^-1074 / sqrt(250), about 0.063 a subnormal steps.  The quotient num / sqrt(.) is rounded to
    the subnormal grid (absolute error up to half a step, beyond any relative allowance): the bound
    came out one step above the exact value (e.g. 3 steps for a = 46, exact 2.909)."""
    d = 1000
    X = np.zeros((1, d))
    X[0, 0] = 2 * a * 2.0**-1074
    P = make_patterns(X, np.array([1]), rho=None)
    u = np.full(d, 0.5)
    lo = DM.certified_lower(P, u)
    assert Fraction(lo) ** 2 * 250 <= (a * Fraction(2) ** -1074) ** 2 or lo <= 0
    assert _exact_lower_holds(P, u, lo)


@pytest.mark.parametrize("q", [1, 4, 16, 64])
def test_R_is_an_upper_bound_of_exact_norms(q):
    """One pattern y = (1, ..., 1) with q entries: ||y|| = sqrt(q) in {1, 2, 4, 8}, exact, and every
    square and sum is exact, so R lies above sqrt(q) only by its allowance (2 gamma_{q+2} on the sum
    of squares and 4u after the square root, then one step up): an allowance that shrinks R instead
   ."""
    M = DM.margin_from_data(np.ones((1, q)), np.array([1]))
    assert q <= Fraction(M.R) ** 2 < q * (1 + 400 * U)


@pytest.mark.parametrize("e", [-560, -1000])
@pytest.mark.parametrize("normalize", [False, True])
def test_upper_bound_of_tiny_data_is_tight(e, normalize):
    """{2^e (3, 4), 2^e (4, 3)} (exact): the margin is 2^e (7/2) sqrt(2), squared 2^2e 49/2, and
    normalized (7/5) / sqrt(2), squared 49/50.  The documented relative width ~1e-12 of separable data
    holds at this scale too: the squares of W underflowed and their absolute allowance 2^-1074 made
    the upper bound ~1e8 times too large (valid, but useless)."""
    X = np.ldexp(np.array([[3.0, 4.0], [4.0, 3.0]]), e)
    M = DM.margin_from_data(X, np.array([1, 1]), normalize=normalize)
    exact = Fraction(49, 50) if normalize else Fraction(49, 2) * Fraction(2) ** (2 * e)
    assert Fraction(M.lower) ** 2 <= exact <= Fraction(M.upper) ** 2 <= exact * (1 + Fraction(1, 10**11))


def test_upper_bound_holds_when_the_sums_are_added_left_to_right(monkeypatch):
    """m = 100 patterns y_k = [0, e_k] (one zero feature, Delta = 1): sum_k beta_k y_k = [0, beta], so the
    margin bound ||sum beta_k y_k|| / sum beta_k is ||beta|| / sum beta, squared sum beta^2 / (sum beta)^2.
    Left to right, sum beta^2 is rounded down and sum beta up by ~99 u each: the allowances must cover
    (m - 1) u on both (gamma_{m+4} on the squares of the extended coordinates); E / (1 + 2 gamma) or
    E (1 - 2 gamma) instead of E (1 + 2 gamma) is ~34 u below the exact value (and caught here; under
    numpy's pairwise order both stay above it)."""
    m = 100
    beta = _adverse_beta(m)
    P = make_patterns(np.zeros((m, 1)), np.ones(m, dtype=int), rho=None, Delta=1.0)
    monkeypatch.setattr(DM, "np", _LeftToRight())
    # the instance does what it is built for: both sums err by ~(m - 1) u, the adverse way
    b = scaled_pow2_exact(beta)  # certified_upper's first step: beta / 2, exact
    for terms, sign in ((b * b, -1), (b, 1)):
        exact = sum(Fraction(float(x)) for x in terms)
        rel = (Fraction(float(DM.np.sum(terms))) - exact) / exact
        assert sign * rel > (m - 2) * U
    up = Fraction(DM.certified_upper(P, beta))
    num = sum(Fraction(float(x)) ** 2 for x in beta)
    den = sum(Fraction(float(x)) for x in beta)
    assert up**2 * den**2 >= num
    assert up**2 * den**2 < num * (1 + 1000 * U)  # and not by far (the square ~350 u above)


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


@pytest.mark.parametrize("s", SCALES)
@pytest.mark.parametrize("normalize", [False, True])
def test_certified_bounds_sound_and_tight_for_any_scale_of_the_witness(s, normalize):
    # found by a search: u = (1e-160) gave a lower bound 1.0000056 > 1 (a false claim),
    # u = (1e-170) a ZeroDivisionError, beta = (1e-170, 0) an upper bound 0 < 1 (a false claim).
    P = _line()
    lo = DM.certified_lower(P, np.array([s]), normalize=normalize)
    up = DM.certified_upper(P, np.array([s, 0.0]), normalize=normalize)
    assert Fraction(lo) <= 1 <= Fraction(up)
    # the a-priori allowances are a few dozen u for these 1- and 2-term sums
    assert 1 - 100 * U2 < Fraction(lo) and Fraction(up) < 1 + 100 * U2


def test_certified_upper_allowance_covers_a_cancelling_column():
    # z_0 = (1), z_1 = -(1 - t), beta = (1, 1): w = t exactly (Sterbenz), and the column's
    # allowance e ~ 2 gamma_3 (|z_0| + |z_1|) ~ 12 u = t is as large as w itself; the bound is
    # ||w|| / 2 = t / 2 exactly, and the certificate must lie above it (an allowance subtracted
    # instead of added would give ~0).
    t = 6 * 2.0**-52
    P = make_patterns(np.array([[1.0], [1.0 - t]]), np.array([1, -1]), rho=None)
    up = DM.certified_upper(P, np.array([1.0, 1.0]))
    assert Fraction(up) >= Fraction(t) / 2
    assert Fraction(up) <= 4 * Fraction(t)  # and it is still of the right size


def test_certified_upper_accepts_exact_rational_and_big_integer_weights():
    # beta is converted to float64: Fractions and Python ints beyond int64 are weights like others
    P = make_patterns(np.array([[3.0, 0.0], [0.0, 4.0]]), np.array([1, 1]), rho=None)
    # beta = (1/3, 2/3): sum beta_k z_k = (1, 8/3), norm sqrt(73)/3, sum beta = 1
    up = DM.certified_upper(P, [Fraction(1, 3), Fraction(2, 3)])
    assert Fraction(up) ** 2 >= Fraction(73, 9) and Fraction(up) ** 2 < Fraction(73, 9) * (1 + 100 * U2)
    big = DM.certified_upper(P, [2**70, 2**70])  # (3, 4) / 2: exactly 5/2
    assert Fraction(5, 2) <= Fraction(big) < Fraction(5, 2) * (1 + 100 * U2)


@pytest.mark.parametrize("normalize, exact", [(False, -5), (True, -1)])
def test_certified_lower_of_a_non_separating_witness_is_sound_and_tight(normalize, exact):
    # z_0 = (3, 4), z_1 = (-3, -4) (norms 5), u = (3, 4) (norm 5): u.y = (25, -25), so
    # min u.y_k / ||u|| = -5, and with normalized patterns -1; the bound is negative here.
    P = make_patterns(np.array([[3.0, 4.0], [-3.0, -4.0]]), np.array([1, 1]), rho=None)
    lo = DM.certified_lower(P, np.array([3.0, 4.0]), normalize=normalize)
    assert Fraction(lo) <= exact
    assert Fraction(lo) > exact * (1 + 100 * U2)  # a few dozen u below the truth, not a factor off


@pytest.mark.parametrize("rho", [None, 1.0, 0.1])
def test_row_norm_bounds_enclose_the_exact_norms(rho):
    X = np.array(_NORM_ROWS)
    P = make_patterns(X, np.array([1, -1, 1, -1, 1, -1]), rho=rho)
    lo, hi, e = DM._row_norm_bounds(P)  # bounds on ||2^-e_k z_k||
    for k, row in enumerate(_NORM_ROWS):
        sq = (sum(Fraction(v) ** 2 for v in row) + (Fraction(rho) ** 2 if rho is not None else 0)) / Fraction(4) ** int(e[k])
        assert Fraction(lo[k]) ** 2 <= sq <= Fraction(hi[k]) ** 2
        assert sq * (1 - 100 * U2) < Fraction(lo[k]) ** 2 and Fraction(hi[k]) ** 2 < sq * (1 + 100 * U2)


@pytest.mark.parametrize("x", _XS + [-v for v in _XS])
def test_up_and_down_cover_a_relative_error_of_2u(x):
    X = Fraction(x)
    # the extreme true values t with |x - t| <= 2u |t|
    t_lo = X / (1 + 2 * U2) if x > 0 else X / (1 - 2 * U2)
    t_hi = X / (1 - 2 * U2) if x > 0 else X / (1 + 2 * U2)
    dn, up = Fraction(DM._down(x)), Fraction(DM._up(x))
    if abs(x) >= 1e-290:  # away from underflow the rounding of the product x (1 -+ 4u) is relative
        assert dn <= t_lo and up >= t_hi
    assert dn <= X <= up
    assert abs(dn - X) <= 16 * U2 * abs(X) and abs(up - X) <= 16 * U2 * abs(X)  # a few u, not more


def test_up_and_down_of_zero():
    for z in (0.0, -0.0):
        assert DM._down(z) == 0 and DM._up(z) == 0


@pytest.mark.parametrize("n", [1, 2, 3, 10, 1000, 10**6, 10**9, 2**40])
def test_gamma_is_highams_gamma(n):
    exact = n * U2 / (1 - n * U2)
    for g in (DM._gamma(n), DM._gamma(np.array([n]))[0], DM._gamma(np.array([float(n)]))[0]):
        assert abs(Fraction(float(g)) - exact) <= 4 * U2 * exact


@pytest.mark.parametrize("rho, Delta", [(None, None), (1.0, None), (0.5, None), (3.0, None), (None, 0.5),
                                        (0.5, 2.0), (1.0, 1.0)])
def test_R_is_the_largest_pattern_norm_rounded_up(rho, Delta):
    X = np.array([[1e-3, 0.0], [0.1, 0.2], [0.3, -0.25]])
    P = make_patterns(X, np.array([1, -1, 1]), rho=rho, Delta=Delta)
    extra = (Fraction(rho) ** 2 if rho is not None else 0) + (Fraction(Delta) ** 2 if Delta is not None else 0)
    true_sq = max(sum(Fraction(v) ** 2 for v in row) + extra for row in X)
    R = Fraction(DM._R(P, False))
    assert true_sq <= R**2 < true_sq * (1 + 100 * U2)
    assert DM._R(P, True) == 1.0


def test_certified_lower_allowance_covers_a_cancelling_dot_product():
    # y = -[x, rho] = (0.797..., -1) and u = (1.63..., 1.30...): u.y ~ -1.2e-3 is the difference of
    # two numbers ~ 1.3, so its float value carries an error ~ u |u|.|y|, far above u |u.y|; the
    # bound must stay below the exact min_k u.y_k / ||u|| (checked in rationals, squared).
    X, u = np.array([[-0.7970092393721301]]), np.array([1.6305228573863613, 1.3006839703204864])
    P = make_patterns(X, np.array([-1]), rho=1.0)
    lo = Fraction(DM.certified_lower(P, u))
    N = -Fraction(X[0, 0]) * Fraction(u[0]) - Fraction(u[1])  # u . y with y = -(x, rho), rho = 1
    Q = Fraction(u[0]) ** 2 + Fraction(u[1]) ** 2
    assert N < 0 and lo < 0 and lo * lo * Q >= N * N  # lo <= N / sqrt(Q) < 0
    assert lo * lo * Q <= N * N * (1 + Fraction(1, 10**6))  # and not far below


def test_as_dict_lists_the_gordan_support():
    """z = (2, 1, -1): 0 = c_a z_a + c_b z_b exactly; as_dict names the support indices (not the c_k)."""
    X = np.array([[2.0], [1.0], [1.0]])
    y = np.array([1, 1, -1])
    dm = DM.margin_from_data(X, y)
    assert dm.separable is False and dm.gordan is not None
    support, c = dm.gordan
    z = X[:, 0] * y
    assert sum(ck * Fraction(float(z[k])) for k, ck in zip(support, c)) == 0 and sum(c) == 1
    d = dm.as_dict()
    assert d["gordan_support"] == [int(k) for k in support]
    assert 2 in d["gordan_support"]  # the one negative pattern must be in every such combination


def test_wolfe_primal_lstsq_fallback_finds_the_min_norm_point(monkeypatch):
    """When np.linalg.solve reports a singular system, the least-squares fallback must give the same
    affine minimizer: conv{(1, 1), (1, -1), (3, 0)} has min-norm point (1, 0) = (y_0 + y_1) / 2."""
    def singular(*args, **kwargs):
        raise np.linalg.LinAlgError("forced")

    monkeypatch.setattr(np.linalg, "solve", singular)
    Yn = sp.csr_matrix(np.array([[1.0, 1.0], [1.0, -1.0], [3.0, 0.0]]))
    p, it, converged = DM._wolfe_primal(Yn)
    assert converged
    np.testing.assert_allclose(p, [0.5, 0.5, 0.0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(Yn.T @ p, [1.0, 0.0], rtol=0, atol=1e-15)


def test_polish_warm_starts_from_the_float_support(monkeypatch):
    """The float64 support {(1, 1), (1, -1)} has affine minimizer (1/2, 1/2) > 0: the mpmath Wolfe
    starts there (as margin._mnp), and the result is the min-norm point (1, 0)."""
    calls = _spy_wolfe(monkeypatch)
    Yn = sp.csr_matrix(np.array([[1.0, 1.0], [1.0, -1.0], [3.0, 0.0]]))
    p, u = DM._polish_mp(Yn, np.array([0.5, 0.5, 0.0]))
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
    p, u = DM._polish_mp(Yn, np.array([0.5, 0.0, 0.5]))
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
    p, it, converged = DM._wolfe_primal(sp.csr_matrix(Y))
    assert converged
    np.testing.assert_array_equal(p, [0.0, 0.5, 0.5, 0.0])
    assert it == 4  # 3 major cycles + 1 minor cycle


@pytest.mark.parametrize("call, message", DATA_MARGIN_ERRORS)
def test_data_margin_errors_in_full(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value) == message


@pytest.mark.parametrize("kwargs", [{}, {"rho": 1.0}, {"Delta": 1.0}, {"normalize": True}])
def test_data_margin_records_its_time_and_size(kwargs):
    X = np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]) if "normalize" not in kwargs else np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]])
    y = np.array([1, 1, -1]) if "rho" in kwargs or "Delta" in kwargs else np.array([1, 1, 1])
    if not kwargs:
        X = X[:2]
        y = y[:2]
    m = DM.margin_from_data(X, y, **kwargs)
    assert isinstance(m.seconds, float) and 0 <= m.seconds < 60
    assert m.m == X.shape[0] and m.d == 2 and m.nnz == np.count_nonzero(X)
    d = m.as_dict()
    assert d["seconds"] == m.seconds and d["nnz"] == m.nnz and d["m"] == m.m and d["normalize"] is bool(kwargs.get("normalize", False))
    assert m.lower <= m.value <= m.upper


def test_polish_repairs_a_stalled_wolfe_with_normalized_points(monkeypatch):
    """A float Wolfe that stalls near the optimum (simulated) leaves a wide interval; the mpmath polish must
    close it, with the normalized bounds (RP14's rho_2): points of norm ~0.01, y_k = z_k / ||z_k||,
    margin = z_12 / ||z_1|| (the two points are mirror images), evaluated at 50 digits."""
    monkeypatch.setattr(DM, "_wolfe_primal", lambda Yn: (np.array([0.501, 0.499]), 1, False))
    X = np.array([[0.01, 1e-3], [0.02, -2e-3]])  # z_2 = -2 z_1 mirrored: norms differ, directions mirror
    y = np.array([1, -1])
    m = DM.margin_from_data(X, y, normalize=True)
    with mpmath.workdps(50):
        true = mpmath.mpf(1e-3) / mpmath.sqrt(mpmath.mpf(0.01) ** 2 + mpmath.mpf(1e-3) ** 2)
    assert m.separable is True and "polished at 40 digits" in m.method
    assert m.lower <= true <= m.upper
    assert m.upper - m.lower <= 1e-12 * true


def test_data_margin_accepts_the_scale_limit_itself():
    """|X|, rho, Delta = 2^250 exactly are allowed (the limit is inclusive).  One point: gamma = ||y_1||."""
    top = 2.0**250
    m = DM.margin_from_data(np.array([[top]]), np.array([1]))
    assert m.separable is True and m.lower <= top <= m.upper
    m = DM.margin_from_data(np.array([[1.0]]), np.array([1]), rho=top, Delta=top)  # y_1 = (1, 2^250, 2^250)
    with mpmath.workdps(60):
        true = mpmath.sqrt(1 + 2 * mpmath.mpf(2) ** 500)
    assert m.separable is True and m.lower <= true <= m.upper
    m = DM.margin_from_data(np.array([[1.0]]), np.array([1]), Delta=2.0**-250)  # Delta at its lower limit
    with mpmath.workdps(200):
        true = mpmath.sqrt(1 + mpmath.mpf(2) ** -500)
    assert m.separable is True and m.lower <= true <= m.upper


def test_data_margin_relative_width_and_as_dict():
    assert _dm().relative_width == 0.0
    assert _dm(lower=0.5, upper=1.5, value=-2.0).relative_width == 0.5
    assert _dm(lower=-1.0, upper=0.0, value=0.0).relative_width == np.inf
    d = _dm(lower=0.5, upper=1.5, value=1.0, info={"newton_steps": 3}, seconds=0.25).as_dict()
    assert d == {"lower": 0.5, "upper": 1.5, "value": 1.0, "relative_width": 1.0, "separable": True, "method": "m",
                 "m": 1, "d": 1, "nnz": 1, "R": 1.0, "rho": None, "Delta": None, "normalize": False, "seconds": 0.25,
                 "newton_steps": 3}
    g = _dm(gordan=((2, 5), (Fraction(1, 3), Fraction(2, 3)))).as_dict()
    assert g["gordan_support"] == [2, 5]


@pytest.mark.parametrize("sparse", [False, True])
def test_gordan_certificate_exact_weights(sparse):
    """z = (1, 0), (-1, 1), (-1, -1): 0 = z_0 / 2 + z_1 / 4 + z_2 / 4, the only convex combination (0 is
    interior to the triangle); the labels reflect x_1 = (1, -1) with y = -1."""
    X = np.array([[1.0, 0.0], [1.0, -1.0], [-1.0, -1.0], [5.0, 5.0]])
    y = np.array([1, -1, 1, 1])  # a 4th point far away, not needed
    Xin = sp.csr_matrix(X) if sparse else X
    m = DM.margin_from_data(Xin, y)
    assert m.separable is False and m.upper == 0.0 and m.value == 0.0 and m.u is None and m.beta is None
    support, c = m.gordan
    assert dict(zip(support, c)) == {0: Fraction(1, 2), 1: Fraction(1, 4), 2: Fraction(1, 4)}
    R = np.sqrt(50.0)  # the longest pattern, (5, 5)
    assert -R * (1 + 1e-14) <= m.lower == -m.R <= -R
    assert m.info == {"support": 3}
    assert "not separable" in m.method and "on 3 points" in m.method


def test_gordan_with_rho_and_a_dependent_support():
    """1-D data with a bias: z_k = l_k (x_k, 1).  Points 2, -1 (label +1) and 1 (label -1): z = (2, 1), (-1, 1), (-1, -1);
    0 is interior to their triangle: the one convex combination is c = (1/3, 1/6, 1/2)."""
    X = np.array([[2.0], [-1.0], [1.0]])
    y = np.array([1, 1, -1])
    m = DM.margin_from_data(X, y, rho=1.0)
    support, c = m.gordan
    w = dict(zip(support, c))
    Z = [(Fraction(2), Fraction(1)), (Fraction(-1), Fraction(1)), (Fraction(-1), Fraction(-1))]
    assert sum(w.values()) == 1 and all(v > 0 for v in w.values())
    assert all(sum(w[k] * Z[k][i] for k in w) == 0 for i in range(2))
    assert w == {0: Fraction(1, 3), 1: Fraction(1, 6), 2: Fraction(1, 2)}


def test_exact_null_combination_rejects_what_is_not_a_combination():
    """Support {0, 1} of z = (1, 0), (0, 1): no c >= 0 sums them to 0 -> None; support {0, 2} with z_2 = (-2, 0):
    c = (2/3, 1/3); support {0, 3} with z_3 = (1, 1): inconsistent."""
    P = DM.make_patterns(np.array([[1.0, 0.0], [0.0, 1.0], [-2.0, 0.0], [1.0, 1.0]]), np.array([1, 1, 1, 1]), rho=None)
    assert DM._exact_null_combination(P, np.array([0, 1])) is None
    assert DM._exact_null_combination(P, np.array([0, 2])) == (Fraction(2, 3), Fraction(1, 3))
    assert DM._exact_null_combination(P, np.array([0, 3])) is None
    assert DM._exact_null_combination(P, np.array([2, 0])) == (Fraction(1, 3), Fraction(2, 3))


def test_extended_space_margin_closed_form():
    """x = 1 (label +1) and x = -1 (label -1): z_k = 1, patterns y_1 = (1, Delta, 0), y_2 = (1, 0, -Delta); the
    min-norm point is (1, Delta/2, -Delta/2): gamma_d = sqrt(1 + Delta^2 / 2).  Newton's s_k = Delta / (2 + Delta^2)."""
    for Delta in (1.0, 0.25, 8.0):
        m = DM.margin_from_data(np.array([[1.0], [-1.0]]), np.array([1, -1]), Delta=Delta)
        with mpmath.workdps(40):
            true = mpmath.sqrt(1 + mpmath.mpf(Delta) ** 2 / 2)
        assert m.separable is True and m.lower <= true <= m.upper
        assert m.upper - m.lower <= 1e-13 * true
        assert m.lower <= m.value <= m.upper
        assert m.info["newton_steps"] >= 1 and "semismooth Newton" in m.method
        R = np.sqrt(1 + Delta**2)
        assert R <= m.R <= R * (1 + 1e-14)


@pytest.mark.parametrize("normalize", [False, True])
def test_separable_margin_closed_form(normalize):
    """z = (3, 4) and (3, -4) (norm 5): min-norm point (3, 0), gamma = 3; normalized: (0.6, 0), gamma = 0.6.
    A third, far point (30, 0) changes nothing."""
    X = np.array([[3.0, 4.0], [-3.0, 4.0], [30.0, 0.0]])
    y = np.array([1, -1, 1])
    m = DM.margin_from_data(X, y, normalize=normalize)
    true = 0.6 if normalize else 3.0
    assert m.separable is True and m.lower <= true <= m.upper and m.upper - m.lower <= 1e-14 * true
    assert m.R == (1.0 if normalize else pytest.approx(30.0, rel=1e-15)) and m.R >= (1.0 if normalize else 30.0)
    assert m.info["wolfe_converged"] is True and "separable" in m.method
    np.testing.assert_allclose(m.beta / m.beta.sum(), [0.5, 0.5, 0.0], rtol=0, atol=1e-15)


def test_certified_bounds_are_tight_and_sound_on_closed_forms():
    """u = (1, 0) on z = (3, 4), (3, -4): min u.z / ||u|| = 3 exactly; beta = (1, 1): ||z_0 + z_1|| / 2 = 3.
    The certified floats bracket 3 within a few ulps, and a longer u (scale 2^40) gives the same."""
    P = DM.make_patterns(np.array([[3.0, 4.0], [-3.0, 4.0]]), np.array([1, -1]), rho=None)
    for scale in (1.0, 2.0**40, 2.0**-40):
        lo = DM.certified_lower(P, np.array([scale, 0.0]))
        assert 3 * (1 - 1e-14) <= lo <= 3
        up = DM.certified_upper(P, np.array([scale, scale]))
        assert 3 <= up <= 3 * (1 + 1e-14)
    lo_n = DM.certified_lower(P, np.array([1.0, 0.0]), normalize=True)  # normalized: 3/5
    assert 0.6 * (1 - 1e-14) <= lo_n <= 0.6
    up_n = DM.certified_upper(P, np.array([0.2, 0.2]), normalize=True)  # beta_k ||z_k|| = 1: ||(1.2, 0)|| / 2 = 0.6
    assert 0.6 <= up_n <= 0.6 * (1 + 1e-14)
    assert DM.certified_lower(P, np.array([0.0, 0.0])) == -np.inf  # u = 0 proves nothing
    neg = DM.certified_lower(P, np.array([-1.0, 0.0]))  # min = -3
    assert -3 * (1 + 1e-14) <= neg <= -3


def test_exact_null_combination_refuses_negative_weights():
    """z_0 = (1, 0), z_1 = (2, 0) on one ray: c_0 + 2 c_1 = 0, c_0 + c_1 = 1 has the one solution (2, -1): no certificate."""
    P = DM.make_patterns(np.array([[1.0, 0.0], [2.0, 0.0]]), np.array([1, 1]), rho=None)
    assert DM._exact_null_combination(P, np.array([0, 1])) is None


def test_gordan_keeps_a_small_weight():
    """z = (1, 0) and (-20, 0): c = (20/21, 1/21); the weight 1/21 ~ 0.048 is part of the support."""
    m = DM.margin_from_data(np.array([[1.0, 0.0], [20.0, 0.0]]), np.array([1, -1]))
    assert m.separable is False
    assert dict(zip(*m.gordan)) == {0: Fraction(20, 21), 1: Fraction(1, 21)}


def test_certified_lower_is_sound_under_cancellation():
    """y = (1e16, -1, -1e16), u = (1, 1, 1): float64 evaluates u . y = (1e16 - 1) - 1e16 = 0 (1e16 - 1 rounds to
    1e16), the exact value is -1.  The rounding allowance gamma |u| . |y| must cover it: lower <= -1 / sqrt(3)."""
    P = DM.make_patterns(np.array([[1e16, -1.0, -1e16]]), np.array([1]), rho=None)
    u = np.array([1.0, 1.0, 1.0])
    assert float(P.matvec(u)[0]) == 0.0  # the cancellation happens
    lo = DM.certified_lower(P, u)
    assert lo <= -1 / np.sqrt(3.0)


def test_newton_lstsq_fallback_and_normalized_with_rho(monkeypatch):
    """Newton's least-squares fallback (np.linalg.solve reporting a singular system) reaches the same
    closed form gamma_d = sqrt(1 + Delta^2 / 2); with rho: z = (3, 4), (3, -4), normalized gamma = 3/5."""
    m = DM.margin_from_data(np.array([[3.0], [-3.0]]), np.array([1, -1]), rho=4.0, normalize=True)
    assert m.separable is True and m.lower <= 0.6 <= m.upper and m.upper - m.lower <= 1e-14 and m.R == 1.0 and m.rho == 4.0

    def singular(*args, **kwargs):
        raise np.linalg.LinAlgError("forced")

    monkeypatch.setattr(np.linalg, "solve", singular)
    m = DM.margin_from_data(np.array([[1.0], [-1.0]]), np.array([1, -1]), Delta=2.0)
    true = np.sqrt(3.0)  # sqrt(1 + 4 / 2)
    assert m.separable is True and m.lower <= true <= m.upper and m.upper - m.lower <= 1e-13 * true


@pytest.mark.parametrize("name, X, y, u", LOWER_SUBNORMAL, ids=[c[0] for c in LOWER_SUBNORMAL])
def test_lower_bound_with_products_that_underflow(name, X, y, u):
    """certified_lower <= min_k u . y_k / ||u|| exactly where every product underflows and rounds up (ties),
    and not weaker than its allowance: exact - bound <= 4 (gamma_n |u|.|y_k| + n 2^-1074) / ||u|| + 4 * 2^-1074
    (the docstring's error bound gamma_{n} |u|.|y_k| with its safety factor 2, doubled again; n = nnz + 2).
    Caught: an absolute allowance of 2 / n 2^-1074, + 2^-1074 or no - 2^-1074, and - 1.0 at num = 0."""
    P = make_patterns(X, np.array(y), rho=None)
    b = DM.certified_lower(P, u)
    N, Q = _exact_margin_parts(P, u)
    assert _at_most(b, N, Q), f"{name}: bound {b!r} above the exact margin"
    n = int(P.row_nnz()[0]) + 2
    gam = Fraction(n, 2**53) / (1 - Fraction(n, 2**53))
    A = sum(abs(Fraction(float(a)) * Fraction(float(x))) for a, x in zip(u, P.dense()[0]))
    slack = 4 * (gam * A + n * F_ETA)
    # exact - b <= slack / ||u|| + 4 eta  <=>  -(b + 4 eta) <= (slack - N) / ||u||
    assert _at_most(-(Fraction(b) + 4 * F_ETA), slack - N, Q), f"{name}: bound {b!r} weaker than its allowance"


def test_lower_bound_of_a_witness_whose_square_overflows_writes_no_warning():
    """u = (2^600, 2^-1000) cannot be scaled exactly (2^-1000 would leave the subnormal range), u . u overflows:
    the answer is -inf ("no claim") and nothing is written -- no RuntimeWarning (errstate(over=None) would
    let one through)."""
    P = make_patterns(np.array([[1.0, 1.0]]), np.array([1]), rho=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert DM.certified_lower(P, np.array([2.0**600, 2.0**-1000])) == -math.inf


@pytest.mark.parametrize("p, nrm, ez, overflows", Z_COEFF)
def test_z_coefficients_are_p_over_the_norms(p, nrm, ez, overflows):
    """The docstring: beta_k = p_k / ||z_k||, or that times the one factor 2^min(ez) where it overflows, finite,
    and without a warning (caught: errstate(over=None), always the common factor, an infinite beta, a
    TypeError, p nrm for p / nrm, 2^(min(ez) + ez))."""
    p, nrm, ez = np.array(p), np.array(nrm), np.array(ez)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        beta = DM._z_coefficients(p, nrm, ez)
    want = [Fraction(a) / (Fraction(b) * Fraction(2) ** int(e)) for a, b, e in zip(p, nrm, ez)]
    factor = Fraction(2) ** int(min(ez)) if overflows else Fraction(1)
    assert np.all(np.isfinite(beta))
    assert [Fraction(float(b)) for b in beta] == [w * factor for w in want]


@pytest.mark.parametrize("kw, X, y, g2", VALUE_CASES, ids=["Delta", "plain", "normalize"])
def test_value_is_the_converged_estimate_not_a_bound(kw, X, y, g2):
    """value = the search's own margin (1 / ||u|| with Delta, ||u|| without), converged to a few units of
    round-off, inside [lower, upper]; the certified ends carry the a-priori allowances (~10 to 40 units each
    side), so the best estimate is within a quarter of the width of the exact margin.  A value clamped to
    an end (||u|| or 2 / ||u|| for 1 / ||u||; the Wolfe search on twice the normalized points) is not."""
    M = DM.margin_from_data(np.array(X), np.array(y), **kw)
    assert M.lower <= M.value <= M.upper
    g = math.sqrt(g2)  # within half a unit of the last place of the exact margin
    assert M.lower < g < M.upper
    assert abs(M.value - g) <= (M.upper - M.lower) / 4


def test_extended_space_witness_that_proves_nothing_is_undecided_in_certified_lower(monkeypatch):
    """x = 14 * 2^-1074, Delta = 1: y = (14 eta, 1).  A Newton step that returns v = 0.5, s = eta gives
    u . y = 7 eta + eta = 8 eta exactly, = the allowance 2 * 4 eta (the relative part underflows): num = 0,
    lower = 0 certifies nothing, so separable is None ('True' needs a certified lower > 0, not lo >= 0)."""
    monkeypatch.setattr(DM, "_newton_l2svm", lambda P: (np.array([0.5]), np.array([ETA]), 1))
    M = DM.margin_from_data(np.array([[14 * ETA]]), np.array([1]), Delta=1.0)
    assert M.lower <= 0.0  # = 0 here: the witness certifies nothing (a wider allowance gives < 0)
    assert M.separable is None


def test_min_norm_witness_that_proves_nothing_is_undecided():
    """One point x = (8, 8) 2^-1074 (no monkeypatch: Wolfe's p = (1), u = x, scaled exactly to (1/2, 1/2)):
    u . y = 8 eta exactly = the allowance 2 * 4 eta (the relative part underflows): num = 0, lower = 0 certifies
    nothing (the margin 8 sqrt 2 eta is positive, but 'True' needs a certified lower > 0), so separable is None
    (not lo >= 0; test_wolfe_witness_that_proves_nothing_is_undecided no longer reaches lower = 0 since
    the allowance got its absolute part 2 n 2^-1074)."""
    M = DM.margin_from_data(np.array([[8 * ETA, 8 * ETA]]), np.array([1]))
    assert M.gordan is None
    assert M.lower <= 0.0  # = 0 here (a wider allowance gives < 0)
    assert M.separable is None
    assert "undecided" in M.method


@pytest.mark.parametrize("name, polish, says", POLISH_CASES, ids=[c[0] for c in POLISH_CASES])
def test_method_says_polished_exactly_when_a_polished_witness_is_reported(monkeypatch, name, polish, says):
    """x = (3, 4), (4, 3), both +1; Wolfe stalled at p = e_1 (u = (3, 4): lower 24/5, upper 5, wide, so the
    polish runs).  The method text mentions the polish iff a bound reported comes from it (an 'and' for
    the 'or', lo2 >= lo or up2 <= up for the strict comparisons are caught)."""
    monkeypatch.setattr(DM, "_wolfe_primal", _stalled_wolfe_2)
    monkeypatch.setattr(DM, "_polish_mp", polish)
    M = DM.margin_from_data(np.array([[3.0, 4.0], [4.0, 3.0]]), np.array([1, 1]))
    from_polish = not np.array_equal(M.u, [3.0, 4.0])
    assert from_polish is says
    assert ("polished at 40 digits" in M.method) is says
    assert M.lower <= math.sqrt(24.5) <= M.upper


@pytest.mark.parametrize("bound", ["lower", "upper"])
def test_normalize_refuses_patterns_with_an_extended_space(bound):
    """One point x = 1 with Delta = 1: y = (1, 1).  Normalized (y / ||y||) the margin of one point is 1,
    but certified_lower(u = (1, 1), normalize=True) returned sqrt(2): it divided u . y (Delta
    coordinate included) by ||z|| = ||x|| = 1, a bound above the margin (a false claim), and
    certified_upper mixed the two spaces the same way.  RP14's normalized points have no extended
    space (margin_from_data refuses the combination): both refuse it, naming the fix."""
    P = make_patterns(np.array([[1.0]]), np.array([1]), rho=None, Delta=1.0)
    call = {"lower": lambda: DM.certified_lower(P, np.array([1.0, 1.0]), normalize=True),
            "upper": lambda: DM.certified_upper(P, np.array([1.0]), normalize=True)}[bound]  # fmt: skip
    with pytest.raises(ValueError, match=r"normalize=True .* no extended space.*Delta=1\.0.*Delta=None, or pass normalize=False"):
        call()
    # without normalize the same patterns are fine: ||y|| = sqrt(2) is the margin of one point
    lo, up = DM.certified_lower(P, np.array([1.0, 1.0])), DM.certified_upper(P, np.array([1.0]))
    assert Fraction(lo) ** 2 <= 2 <= Fraction(up) ** 2


@pytest.mark.parametrize("m", [21, 100])
def test_upper_bound_of_extended_coordinates_whose_squares_underflow(m):
    """x_1 = 1 (keeps the data at scale 1: nothing is rescaled), x_k = 0 else, Delta = 2^-537, beta =
    (0, 0.7, ..., 0.7): sum_k beta_k y_k = [0, Delta beta], so the bound is Delta ||beta|| / sum beta,
    squared 2^-1074 0.49 (m - 1) / (0.7 (m - 1))^2.  Each (Delta beta_k)^2 = 0.49 2^-1074 underflows
    to 0, and E had no absolute allowance for it: the bound came out 0.64 (m = 21) and 0.29 (m = 100)
    times the exact one (a false claim; fixed by + 2 (m + 1) 2^-1074 on E, as on the squares of W)."""
    X = np.zeros((m, 1))
    X[0, 0] = 1.0
    Delta = 2.0**-537
    P = make_patterns(X, np.ones(m, dtype=int), rho=None, Delta=Delta)
    beta = np.array([0.0] + [0.7] * (m - 1))
    assert (Delta * 0.7) ** 2 == 0.0  # the instance does what it is built for
    up = DM.certified_upper(P, beta)
    num = sum((Fraction(Delta) * Fraction(b)) ** 2 for b in beta)
    den = sum(Fraction(b) for b in beta)
    assert Fraction(up) ** 2 * den**2 >= num


@pytest.mark.parametrize("top, e", [(3.0, 0), (1.0, 0), (0.5, 0), (0.75, 0), (0.375, -1), (2.0**-600, -599), (ETA2, -1073)])
def test_row_norm_bounds_scale_only_rows_below_one_half(top, e):
    """The documented exponents: a row whose largest |entry| is below 1/2 is scaled up into [1/2, 1)
    (e_k < 0), a row with a larger entry keeps e_k = 0 -- never scaled down (certified_lower relies on
    2^-e_k >= 1 to scale its numerators exactly; scaling rows with an entry >= 1 down by 2 is caught).  The bounds enclose the scaled row norm (row (top, -top): ||w||^2 = 2 top^2)."""
    P = make_patterns(np.array([[top, -top]]), np.array([1]), rho=None)
    lo, hi, ex = DM._row_norm_bounds(P)
    assert ex.tolist() == [e]
    assert e == 0 or Fraction(1, 2) <= Fraction(top) / Fraction(2) ** e < 1
    norm_sq = 2 * Fraction(top) ** 2 / Fraction(4) ** e  # ||2^-e w||^2
    assert Fraction(float(lo[0])) ** 2 <= norm_sq <= Fraction(float(hi[0])) ** 2


def test_normalized_upper_bound_keeps_its_witness_when_it_cannot_be_moved_exactly():
    """z_1 = 2^-1070 e_1, z_2 = 2^-1070 e_2 (orthogonal), beta = (1/2, 0.3), normalized: the bound is
    ||beta|| / sum beta (both ||z_k|| equal), squared (1/4 + 0.3^2) / 0.8^2.  Moving beta onto the rows
    scaled up by 2^1069 would need beta_2 2^-1069, which is not a float (rounded: 0.3125 2^-1069): the
    witness must stay as given (moving it whenever a row is scaled would bound the quotient of
    (1/2, 0.3125) instead: below the exact value)."""
    P = make_patterns(np.ldexp(np.eye(2), -1070), np.array([1, 1]), rho=None)
    beta = np.array([0.5, 0.3])
    assert np.ldexp(np.ldexp(beta[1], -1069), 1069) != beta[1]  # the instance does what it is built for
    up = DM.certified_upper(P, beta, normalize=True)
    assert Fraction(up) ** 2 * (Fraction(0.5) + Fraction(0.3)) ** 2 >= Fraction(0.5) ** 2 + Fraction(0.3) ** 2


@pytest.mark.parametrize("x, Delta", [(2.0**-700, 2.0**-700), (3 * 2.0**-900, 2.0**-899), (2.0**-40, 2.0**-40)])
def test_upper_bound_of_tiny_data_in_the_extended_space(x, Delta):
    """One pattern y = [x, Delta] with beta = 1: the bound is ||y||, squared x^2 + Delta^2.  Tiny data
    are scaled up by one power of two before the sums: Delta with them, by the same power (caught:
    Delta dropped, ldexp called wrongly (TypeError), Delta scaled down instead of up)."""
    P = make_patterns(np.array([[x]]), np.array([1]), rho=None, Delta=Delta)
    up = DM.certified_upper(P, np.array([1.0]))
    assert Fraction(up) ** 2 >= Fraction(x) ** 2 + Fraction(Delta) ** 2


@pytest.mark.parametrize("x, Delta", [(2.0**-700, 1.0), (2.0**-1074, 2.0**-200), (2.0**-600, 2.0**-50)])
def test_margin_in_the_extended_space_of_tiny_data_keeps_its_width(x, Delta):
    """One point x, label 1, in the extended space: the margin is ||[x, Delta]||, squared x^2 + Delta^2.
    margin_from_data documents a relative width ~1e-12 with Delta; the common power of two that
    scales tiny data up must be read from Delta too, else Delta^2 scaled by it overflows and the upper
    bound is inf."""
    M = DM.margin_from_data(np.array([[x]]), np.array([1]), Delta=Delta)
    exact = Fraction(x) ** 2 + Fraction(Delta) ** 2
    assert M.separable and math.isfinite(M.upper)
    assert Fraction(M.lower) ** 2 <= exact <= Fraction(M.upper) ** 2 <= exact * (1 + Fraction(1, 10**11))


@pytest.mark.parametrize("d0", [1, 3])
def test_upper_bound_of_columns_whose_squares_underflow(d0):
    """Patterns z_1 = 2^-537 (1, ..., 1) (d0 columns) and z_2 = e_1 (keeps the data at scale 1: nothing is
    rescaled), beta = (1, 0): the bound is ||z_1||, squared d0 2^-1074.  certified_upper halves beta
    (exact), so each column sum is 2^-538 and its square 2^-1076 underflows to 0: only the absolute
    allowance 2 (d0 + 1) 2^-1074 on the sum of squares keeps the bound above ||z_1|| (caught: - allowance,
    the square root of a negative number; 2 (d0 - 1), 0 for d0 = 1; 2 / (d0 + 1), where 2^-1075 rounds to
    0 for d0 = 3)."""
    X = np.zeros((2, d0))
    X[0] = 2.0**-537
    X[1, 0] = 1.0
    P = make_patterns(X, np.array([1, 1]), rho=None)
    up = DM.certified_upper(P, np.array([1.0, 0.0]))
    assert Fraction(up) ** 2 >= d0 * Fraction(2) ** -1074


@pytest.mark.parametrize("a", [12, 8])
def test_upper_bound_whose_normalized_denominator_underflows_claims_nothing_false(a):
    """Two one-feature points z_1 = a 2^-1074, z_2 = 2^-1074 (label 1), normalized, beta = (1/2, 3/8):
    every z_k points the same way, so ||sum beta_k z_k|| / sum beta_k ||z_k|| = 1 exactly.  beta cannot
    be moved onto the rows scaled to [1/2, 1) (3/8 2^-1073 is not a float), so the denominator
    sum_k beta_k ||z_k|| is formed at 2^-1074 scale: 6 2^-1074 for a = 12, 4 2^-1074 for a = 8, and
    its allowance 2 (m + 1) 2^-1074 = 6 2^-1074 takes it to 0 or below.  No claim can be made then
    (inf); dividing by it gave a negative "upper bound" (a = 8) or ZeroDivisionError (a = 12)."""
    P = make_patterns(np.array([[a * ETA2], [ETA2]]), np.array([1, 1]), rho=None)
    up = DM.certified_upper(P, np.array([0.5, 0.375]), normalize=True)
    assert up >= 1


@pytest.mark.parametrize("bound", ["lower", "upper"])
def test_normalize_with_delta_names_the_fix(bound):
    """The ValueError for normalize=True on patterns with Delta ends with the two ways out, verbatim
    (a changed word in it is caught)."""
    P = make_patterns(np.array([[1.0]]), np.array([1]), rho=None, Delta=1.0)
    call = {"lower": lambda: DM.certified_lower(P, np.array([1.0, 1.0]), normalize=True),
            "upper": lambda: DM.certified_upper(P, np.array([1.0]), normalize=True)}[bound]  # fmt: skip
    with pytest.raises(ValueError) as err:
        call()
    assert re.search(r"Delta=1\.0; make them with Delta=None, or pass normalize=False for PT11's gamma_d$", str(err.value))


@pytest.mark.parametrize(
    "X, y, Delta, true",
    [
        # z = (3, 4), (3, -4), (30, 0): min-norm point (3, 0), gamma = 3
        (np.array([[3.0, 4.0], [-3.0, 4.0], [30.0, 0.0]]), np.array([1, -1, 1]), None, mpmath.mpf(3)),
        # x = 1 (+1), x = -1 (-1), Delta = 1: patterns (1, 1, 0), (1, 0, -1), gamma_d = sqrt(1 + 1/2)
        (np.array([[1.0], [-1.0]]), np.array([1, -1]), 1.0, mpmath.sqrt(mpmath.mpf(3) / 2)),
    ],
)
def test_margin_from_data_method_names_its_witnesses(X, y, Delta, true):
    """The method text says what ``lower`` and ``upper`` are (the witnesses u and beta, the lemma,
    rounding accounted for), in the original space and in the extended one; the bounds hold."""
    m = DM.margin_from_data(X, y, Delta=Delta)
    assert m.method.endswith(
        "; lower = min_k u.y_k/||u||, upper = ||sum beta_k y_k||/sum beta_k [RP14 Lemma 3], rounding bounded"
    ), m.method
    assert m.separable is True and m.lower <= true <= m.upper


@pytest.mark.parametrize(
    "X, y, verdict",
    [
        # z = (3, 4), (3, -4), (30, 0): separable, min-norm point (3, 0) on the first two (support 2)
        (np.array([[3.0, 4.0], [-3.0, 4.0], [30.0, 0.0]]), np.array([1, -1, 1]), True),
        # z = (0.1, 1e-20), (-0.3, 1e-20): separable exactly (by (0, 1)), margin ~1e-20, far below
        # float64's round-off: neither certified nor refuted
        (np.array([[0.1, 1e-20], [-0.3, 1e-20]]), np.array([1, 1]), None),
    ],
)
def test_margin_from_data_wolfe_method_text_in_full(X, y, verdict):
    """The primal-Wolfe branch says its verdict, the cycles and support it reports in ``info`` and
    ``u`` (no polishing here: the first instance is exact, the second is not separable in float64
    beyond round-off), and what the bounds are."""
    m = DM.margin_from_data(X, y)
    assert m.separable is verdict
    assert set(m.info) == {"wolfe_cycles", "wolfe_converged"} and m.info["wolfe_cycles"] >= 1
    word = "separable" if verdict else "undecided"
    assert m.method == (
        f"{word}: Wolfe min-norm point in primal form ({m.info['wolfe_cycles']} cycles, support 2); " + _WITNESSES
    ), m.method


def test_margin_from_data_gordan_method_text_in_full():
    """x = 1 and x = -1, both labelled +1: z_1 + z_2 = 0, Gordan's certificate c = (1/2, 1/2) on
    2 points; upper = 0 exact, lower = -R the trivial bound -- and the text says exactly that."""
    m = DM.margin_from_data(np.array([[1.0], [-1.0]]), np.array([1, 1]))
    assert m.separable is False and m.upper == 0 and m.lower == -m.R and m.R >= 1
    support, c = m.gordan
    assert support == (0, 1) and c[0] == c[1] > 0 and m.info == {"support": 2}  # c_1 z_1 + c_2 z_2 = 0 exactly
    assert m.method == (
        "not separable: 0 = sum_k c_k y_k with c >= 0 on 2 points, verified exactly in rational arithmetic "
        "(Gordan, [RP14 Lemma 6]); upper = 0 exact; lower = -R is only the trivial bound (the negative "
        "margin is NOT certified tight)"
    )


def test_certified_lower_reads_integer_witness_as_float64():
    """certified_lower casts u to float64 before u . u: an int64 u with u . u >= 2^63 would wrap around
    (u = (2^40, 0): u . u = 2^80 = 0 mod 2^64) and the bound would be computed from a wrong ||u||.
    The exact value is min u.z / ||u|| = 3 for z = (3, 4), (3, -4)."""
    P = DM.make_patterns(np.array([[3.0, 4.0], [-3.0, 4.0]]), np.array([1, -1]), rho=None)
    for u in (np.array([2**40, 0]), np.array([3_037_000_500, 0]), np.array([-(2**40), 0])):
        lo = DM.certified_lower(P, u)
        true = 3.0 if u[0] > 0 else -3.0
        assert true * (1 + 1e-14 * np.sign(-true)) <= lo <= true, (u, lo)


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
