"""Tests written against the survivors of the full mutmut 3.8.1 screen of reference/margin.py in
the facet machinery (issue 13 item 8: _origin_in_simplex, _hyperplanes, _span_coordinates,
_enumerate_facets, _gauss_mp, _solve_mp).  Each test checks a property that follows from the math
or from a docstring -- a closed-form instance in exact rationals, a documented rule on both sides
of its threshold -- and each was run by hand against the mutated code it is meant to kill.
Survivors not killed here are argued in benchmarks/mutation/margin_facets_equivalent.md.
"""

import math
import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import reference  # noqa: F401  (imports the package; the module is reached through sys.modules)

M = sys.modules["reference.margin"]  # the package re-exports the function `margin` under the module's name
U = 2.0**-53


# -- _origin_in_simplex: the documented certification rule, on both sides of its threshold ------


def _rule_threshold(Z, p):
    """The threshold of _origin_in_simplex's docstring, 2 ||res||_2 / s_min, computed apart from
    the code: res = |c| + gamma_{r+2} (|A||p| + e) in exact rationals (c = fl(A p) - e is the
    docstring's definition, a float computation), sigma_min and sigma_max at 50 digits."""
    r = Z.shape[1]
    A = np.vstack([Z.T, np.ones(r + 1)])
    e = np.zeros(r + 1)
    e[-1] = 1.0
    c = A @ p - e
    u = Fraction(U)
    g = (r + 2) * u / (1 - (r + 2) * u)
    res = [
        abs(Fraction(c[i])) + g * (sum(abs(Fraction(A[i, j])) * abs(Fraction(p[j])) for j in range(r + 1)) + Fraction(e[i]))
        for i in range(r + 1)
    ]
    with mpmath.workdps(50):
        sv = mpmath.svd_r(mpmath.matrix(A.tolist()), compute_uv=False)
        sv = sorted(sv[i] for i in range(r + 1))
        s_min = sv[0] - (r + 1) * 64 * mpmath.mpf(U) * sv[-1]
        norm = mpmath.sqrt(mpmath.fsum(mpmath.mpf(x.numerator) ** 2 / mpmath.mpf(x.denominator) ** 2 for x in res))
        return float(2 * norm / s_min)


def _near_vertex(m, j=0):
    """Span points z_0 = -m u, z_1 = 1 - m u (r = 1): the origin's exact barycentric weights are
    (1 - m u, m u) -- both floats, and np.linalg.solve finds them exactly.  With j > 0 the weights
    handed to the check are (1 - (m - j) u, m u): one correction off, so fl(p_0 + p_1) - 1 = j u
    (for even j) and the residual c is not zero."""
    b = m * U
    a = 1.0 - b
    Z = np.array([[-b], [a]])
    return Z, np.array([a + j * U, b])


@pytest.mark.parametrize("j", [0, 2, 4])
def test_origin_in_simplex_certifies_exactly_beyond_its_documented_threshold(monkeypatch, j):
    """The origin sits m u from the vertex z_0 (weight m u on z_1, exactly): inside, but by only
    ~20 round-off units.  The docstring's rule certifies it exactly when m u > 2 ||res|| / s_min;
    here that threshold is ~19 u (j = 0: c = 0, the gamma term alone) or ~26 u, ~32 u (j = 2, 4:
    the residual c = (~0, j u) adds to it).  Weights 10 % below the threshold are not certified,
    10 % above they are.  Mutants: gamma / 2 (``2 - (r+2) u``), ``|c| - gamma ...``,
    ``gamma / (|A||p| + e)``, ``|A||p| - e``, ``3 ||res||``: each moves the threshold by a factor
    >= 1.3 and flips one side."""
    real_solve = np.linalg.solve
    if j:  # hand the check the weights one correction off (the rule holds for whatever p it checks)
        monkeypatch.setattr(np.linalg, "solve", lambda A, e: p.copy())
    T = _rule_threshold(*_near_vertex(20, j))
    assert 15 * U < T < 40 * U  # the family does sit at the round-off scale
    below, above = math.floor(0.9 * T / U), math.ceil(1.1 * T / U)
    for m, expected in ((below, False), (above, True)):
        Z, p = _near_vertex(m, j)
        if not j:
            A = np.vstack([Z.T, np.ones(2)])
            assert np.array_equal(real_solve(A, np.array([0.0, 1.0])), p)  # the exact weights
        T_m = _rule_threshold(Z, p)
        assert (p.min() < 0.95 * T_m) if expected is False else (p.min() > 1.05 * T_m)
        assert M._origin_in_simplex(Z, (0, 1)) is expected, (m, j, T_m / U)


def test_origin_in_simplex_wants_r_plus_1_points():
    Z, _ = _near_vertex(1000)
    assert M._origin_in_simplex(Z, (0, 1))
    assert not M._origin_in_simplex(Z, (0,))


# -- _hyperplanes: the two documented cuts of affine independence, at the cut and one ulp above -


def _svd_with(monkeypatch, edit):
    """np.linalg.svd as numpy computes it, then ``edit(sv, vh)`` in place (a pinned value)."""
    real = np.linalg.svd

    def svd(A, *args, **kwargs):
        out = real(A, *args, **kwargs)
        edit(out[1], out[2])
        return out

    monkeypatch.setattr(np.linalg, "svd", svd)


@pytest.mark.parametrize("above", [False, True])
def test_hyperplanes_sigma_cut_is_strict(monkeypatch, above):
    """sigma_min of [Z_T, -1] pinned to exactly 1e-9 sigma_max: not 'above', so no hyperplane; one
    ulp higher, the line through the two points (y = 0.8, oriented towards the third point).
    Mutant: ``>=`` (takes the pair at the cut)."""

    def pin(sv, vh):
        cut = 1e-9 * sv[:, 0]
        sv[:, -1] = np.nextafter(cut, np.inf) if above else cut

    Zs = np.array([[0.6, 0.8], [-0.6, 0.8], [0.0, -1.0]])
    _svd_with(monkeypatch, pin)
    rows, a, b = M._hyperplanes(Zs, np.array([[0, 1]]), 1e-10)
    if not above:
        assert rows.size == 0
    else:
        assert rows.tolist() == [0]
        assert np.allclose(a[0], [0.0, -1.0], atol=1e-15) and abs(b[0] + 0.8) < 1e-15


@pytest.mark.parametrize("above", [False, True])
def test_hyperplanes_normal_cut_is_strict(monkeypatch, above):
    """r = 1, the 'hyperplane' through z = 1e12 is the point itself: its unit null vector is
    (1, 1e12) / sqrt(1 + 1e24) ~ (1e-12, 1).  With the normal part pinned to exactly 1e-12 it is
    refused (the cut is 'above 1e-12'); one ulp higher it gives a = -1, b = -1e12 (oriented
    towards the other point, 0; tol_side 1e-3 covers the ulps of 1e12).  Mutant: ``na >= 1e-12``."""

    def pin(sv, vh):
        x = np.nextafter(1e-12, np.inf) if above else 1e-12
        vh[:, 1, :] = [x, 1.0]

    assert np.linalg.norm(np.array([[1e-12]]), axis=1)[0] == 1e-12  # the cut is hit exactly
    Zs = np.array([[1e12], [0.0]])
    _svd_with(monkeypatch, pin)
    rows, a, b = M._hyperplanes(Zs, np.array([[0]]), 1e-3)  # 1e-3: a few ulps of 1e12
    if not above:
        assert rows.size == 0
    else:
        assert rows.tolist() == [0] and a[0].tolist() == [-1.0]
        assert b[0] == -1.0 / np.nextafter(1e-12, np.inf)


@pytest.mark.parametrize("a, expected", [(1.102396379610098, True), (1.1023963796101568, False)])
def test_origin_in_simplex_threshold_to_within_a_hundred_ulps(a, expected):
    """Span points -20u and a (r = 1), the weights as np.linalg.solve finds them: a was chosen
    (bisection on the independent threshold of the docstring's rule) so that the smallest weight
    is 1 + ~80 u resp. 1 - ~80 u times that threshold.  The rule decides both: the certificate is
    as strong as documented, to ~1e-14.  Mutant: sigma_min lowered by (r+2) 64 u sigma_max instead
    of (r+1) (the threshold ~170 u higher: the first is no longer certified)."""
    Z = np.array([[-20 * U], [a]])
    p = np.linalg.solve(np.vstack([Z.T, np.ones(2)]), np.array([0.0, 1.0]))
    ratio = p.min() / _rule_threshold(Z, p)
    assert (ratio > 1 + 40 * U) if expected else (ratio < 1 - 40 * U)
    assert M._origin_in_simplex(Z, (0, 1)) is expected


@pytest.mark.parametrize("m, sigma_max", [(20, 0.0), (1000, 0.0), (20, 1.0)])
def test_origin_in_simplex_rule_to_the_bit(monkeypatch, m, sigma_max):
    """The documented rule evaluated as stated, in float64: with res = |c| + gamma_{r+2} (|A||p| + e)
    and the singular values pinned to (sigma_max, s) -- so s_min = s - (r+1) 64 u sigma_max, exact
    here -- the threshold 2 ||res|| / s_min is made exactly equal to min(p) (a search over s): the
    rule's '>' refuses, and one ulp of s higher (threshold just below min(p)) it certifies.
    Mutants: ``>=``; gamma's denominator (1 + ku), (2 - ku), (1 - (r-2) u), (1 - (r+3) u) or gamma
    multiplied by (1 - ku); 65 u instead of 64 u (each moves the threshold by a few ulps)."""
    Z, p = _near_vertex(m)
    r = 1
    A = np.vstack([Z.T, np.ones(r + 1)])
    e = np.array([0.0, 1.0])
    g = (r + 2) * U / (1 - (r + 2) * U)
    N = float(np.linalg.norm(np.abs(A @ p - e) + g * (np.abs(A) @ np.abs(p) + e)))
    low = (r + 1) * 64 * U * sigma_max  # 2^-46 or 0: exact
    s = 2 * N / p.min() + low
    for _ in range(64):  # walk s to the float where the threshold is min(p) to the bit
        t = 2 * N / (s - low)
        if t == p.min():
            break
        s = np.nextafter(s, np.inf if t > p.min() else 0.0)
    assert 2 * N / (s - low) == p.min()
    s_up = np.nextafter(s, np.inf)
    assert 2 * N / (s_up - low) < p.min()
    for sigma_min, expected in ((s, False), (s_up, True)):
        monkeypatch.setattr(np.linalg, "svd", lambda A, compute_uv=True, s=sigma_min: np.array([sigma_max, s]))
        assert M._origin_in_simplex(Z, (0, 1)) is expected, (m, sigma_min)
