"""Tests written against the mutmut survivors of issue 13 item 8 in reference/data.py,
reference/data_margin.py, reference/exact.py, reference/gram.py and reference/arithmetic.py
(each was checked by hand: the mutated code fails the test, the original passes).

Expected values come from closed forms (hand-computed min-norm points, exact rationals), never
from our own output.
"""

import re
import sys
from dataclasses import replace
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp

import reference
from reference import data_margin as DM
from reference.arithmetic import Arithmetic
from reference.exact import ratio_at_least, verify_margin_exact

MARGIN = sys.modules["reference.margin"]  # the package re-exports the function `margin` under the module's name


# -- reference.data -------------------------------------------------------------------------------


def test_load_npz_names_a_single_npy_array(tmp_path):
    """An .npy file (one array, no archive) under an .npz name: the error says what it is."""
    path = tmp_path / "points.npz"
    with open(path, "wb") as fh:
        np.save(fh, np.eye(2))
    with pytest.raises(ValueError, match=r"points\.npz: not a readable \.npz archive \(a single \.npy array, not an \.npz archive\)"):
        reference.load_npz(path)


# -- reference.exact ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "N, Q, bound, expected",
    [
        (3, 9, 1, True),  # N / sqrt(Q) = 1 == bound: ">=" holds with equality
        (3, 9, Fraction(1) + Fraction(1, 10**30), False),  # just above
        (3, 9, Fraction(1) - Fraction(1, 10**30), True),
        (0, 4, 0, True),  # 0 >= 0
        (-2, 4, -1, True),  # -1 >= -1, both negative: equality
        (-2, 4, Fraction(-1) + Fraction(1, 10**30), False),
        (-2, 4, Fraction(-1) - Fraction(1, 10**30), True),
        (-1, 4, 0, False),
        (1, 4, -5, True),
    ],
)
def test_ratio_at_least_is_exact_at_the_boundary(N, Q, bound, expected):
    """N / sqrt(Q) >= bound is decided exactly, equality included (sqrt(9) = 3, sqrt(4) = 2)."""
    assert ratio_at_least(Fraction(N), Fraction(Q), Fraction(bound)) is expected


def _margin_identity2():
    """K = I_2: m(K) = 1/sqrt(2) (alpha = p = (1/2, 1/2)); a Margin object to edit with replace()."""
    K = np.eye(2)
    m = reference.margin(K)
    assert m.feasible is True
    return m, K


def test_verify_margin_exact_zero_norm_witness_message():
    m, _ = _margin_identity2()
    K0 = np.zeros((2, 2))  # every alpha has ||alpha||_K = 0
    bad = replace(m, lower=0.25, upper=1.0, feasible=None, alpha=np.array([0.5, 0.5]), p=np.array([0.5, 0.5]))
    assert verify_margin_exact(bad, K0) == "the witness alpha has ||alpha||_K = 0 in exact arithmetic"


def test_verify_margin_exact_reports_the_witness_ratio():
    """lower too high for alpha = (1, 1) on K = I: min(K alpha) / ||alpha||_K = 1 / sqrt(2) in the message."""
    m, K = _margin_identity2()
    bad = replace(m, lower=0.75, upper=1.0, alpha=np.array([1.0, 1.0]), p=np.array([0.5, 0.5]))
    msg = verify_margin_exact(bad, K)
    got = re.fullmatch(r"lower = 0\.75 exceeds min\(K alpha\)/\|\|alpha\|\|_K = (\S+) in exact arithmetic", msg)
    assert got is not None, msg
    assert abs(float(got.group(1)) - 2**-0.5) <= 4e-16


def test_verify_margin_exact_checks_an_upper_bound_between_0_and_1():
    """upper in [0, 1) is a Lemma-3 bound ||p||_K / 1^T p: checked against p, not as a negative upper."""
    m, K = _margin_identity2()
    p = np.array([0.5, 0.5])  # ||p||_K / 1^T p = 1/sqrt(2) ~ 0.7071
    ok = replace(m, lower=0.5, upper=0.75, alpha=p, p=p)
    assert verify_margin_exact(ok, K) == ""
    low = replace(m, lower=0.5, upper=0.5, alpha=p, p=p)
    msg = verify_margin_exact(low, K)
    got = re.fullmatch(r"upper = 0\.5 is below \|\|p\|\|_K / 1\^T p = (\S+) in exact arithmetic", msg)
    assert got is not None, msg
    assert abs(float(got.group(1)) - 2**-0.5) <= 4e-16
    zero = replace(m, lower=-1.0, upper=0.0, feasible=None, alpha=p, p=p)
    assert verify_margin_exact(zero, K).startswith("upper = 0.0 is below ||p||_K / 1^T p")


# -- reference.arithmetic -------------------------------------------------------------------------


def test_mp_sqrt_keeps_the_shape_of_a_matrix():
    ar = Arithmetic(30)
    with ar.context():
        v = np.array([[mpmath.mpf(4), mpmath.mpf(9)], [mpmath.mpf(16), mpmath.mpf(2)]], dtype=object)
        r = ar.sqrt(v)
        assert r.shape == (2, 2)
        assert r[0, 0] == 2 and r[0, 1] == 3 and r[1, 0] == 4
        assert abs(r[1, 1] ** 2 - 2) < mpmath.mpf(10) ** -29


# -- reference.data_margin ------------------------------------------------------------------------


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


def _spy_wolfe(monkeypatch):
    calls = []
    real = MARGIN._wolfe

    def spy(K, ar, max_iter, start=None):
        calls.append(start)
        return real(K, ar, max_iter, start=start)

    monkeypatch.setattr(MARGIN, "_wolfe", spy)
    return calls


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


def test_polish_breaks_margin_ties_by_the_lower_index(monkeypatch):
    """Candidates are the support and the 2 (d0 + 1) smallest margins, ties to the lower index (a
    stable sort: numpy's default sort orders ties differently on different CPUs).  300 points
    (1 or 2, i / 1024); u = (1, 0) gives margin 1 to every 7th point: the six candidates are 0, 7, ..., 35."""
    seen = []
    real = MARGIN._wolfe

    def spy(K, ar, max_iter, start=None):
        seen.append(sorted(int(mpmath.nint((K[i, i] - (1 if K[i, i] < 4 else 4)) * 1024**2)) for i in range(K.shape[0])))
        return real(K, ar, max_iter, start=start)

    monkeypatch.setattr(MARGIN, "_wolfe", spy)
    i = np.arange(300)
    Y = np.column_stack([np.where(i % 7 == 0, 1.0, 2.0), i / 1024])
    p0 = np.zeros(300)
    p0[0] = 1.0  # u = (1, 0): the min-norm point already
    p, u = DM._polish_mp(sp.csr_matrix(Y), p0)
    assert seen[0] == [k * k for k in (0, 7, 14, 21, 28, 35)]  # K_ii = x_i^2 + (i / 1024)^2
    np.testing.assert_array_equal(u, [1.0, 0.0])
    np.testing.assert_array_equal(p, p0)


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


@pytest.mark.parametrize("K", [np.eye(2)[:, :1], np.ones((2, 3)), np.ones(2), np.ones((2, 2, 2))])
def test_verify_margin_exact_refuses_a_non_square_K(K):
    m, _ = _margin_identity2()
    neg = replace(m, lower=-1.0, upper=-0.5, feasible=False)
    for mm in (m, neg):
        with pytest.raises(ValueError, match=r"K must be the square Gram matrix the margin was computed from, got shape"):
            verify_margin_exact(mm, K)
