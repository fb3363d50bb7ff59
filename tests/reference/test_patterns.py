"""Tests of reference/test_patterns.py."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp

from reference.arithmetic import Arithmetic
from reference.patterns import Patterns, make_patterns
from reference.margins import data_bounds
from tests.support.fast import FLOAT64, LP, XP


def _dense_by_definition(X, l, rho, Delta):
    m = X.shape[0]
    rows = []
    for k in range(m):
        y = list(X[k])
        if rho is not None:
            y.append(rho)
        if Delta is not None:
            y.extend(Delta if j == k else 0.0 for j in range(m))
        rows.append([l[k] * v for v in y])
    return np.array(rows)


@pytest.mark.parametrize("rho,Delta", [(1.0, None), (None, 0.5), (2.0, 0.25), (0.5, 3.0)])
def test_patterns_against_the_definition(rho, Delta):
    P = make_patterns(XP, LP, rho=rho, Delta=Delta)
    Y = _dense_by_definition(XP, LP, rho, Delta)
    d0 = 3 + (rho is not None)
    assert (P.m, P.n_features, P.d0, P.dim, P.nnz) == (3, 3, d0, d0 + (3 if Delta is not None else 0), 4)
    assert (P.rho, P.Delta) == (rho, Delta)
    assert P.labels.tolist() == [1, -1, -1]
    assert np.array_equal(P.dense(), Y)
    assert np.array_equal(P.X().toarray(), XP)
    Zd = _dense_by_definition(XP, LP, rho, None)
    assert np.array_equal(P.Z().toarray(), Zd) and P.Z().shape == Zd.shape
    assert P.row_nnz().tolist() == [np.count_nonzero(y) for y in Y]
    assert np.array_equal(P.sqnorms(), np.sum(Y * Y, axis=1))
    for k in range(3):
        assert P.sqnorm(k, None) == float(Y[k] @ Y[k])
        assert P.sqnorm(k, FLOAT64) == Y[k] @ Y[k]
        idx, val = P.row(k)
        assert np.array_equal(XP[k][idx], val) and np.count_nonzero(XP[k]) == idx.size
    a = np.arange(1.0, P.dim + 1.0) * np.where(np.arange(P.dim) % 2, -1.0, 1.0)  # small integers: exact
    assert np.array_equal(P.matvec(a), Y @ a)
    assert np.array_equal(P.abs_matvec(a), np.abs(Y) @ np.abs(a))
    for k in range(3):
        assert P.dot(a, k) == Y[k] @ a
        for lam in (1, 3.0, -0.5):
            out = P.add(a, k, lam)
            assert np.array_equal(out, a + lam * Y[k]) and out is not a
    assert np.array_equal(P.add(a, 0), a + Y[0])  # lam defaults to 1


@pytest.mark.parametrize("rho,Delta", [(1.0, None), (None, 0.5), (2.0, 0.25)])
def test_patterns_in_mpmath_are_exact(rho, Delta):
    """On dtype=object mpf vectors every method computes in mpmath, exactly here: a = 1/3 + j
    is not a float, and the results are compared with Fractions."""
    P = make_patterns(XP, LP, rho=rho, Delta=Delta)
    Y = _dense_by_definition(XP, LP, rho, Delta)
    with mpmath.workdps(60):
        a = np.array([mpmath.mpf(1) / 3 + j for j in range(P.dim)], dtype=object)
        af = [Fraction(1, 3) + j for j in range(P.dim)]
        mv = P.matvec(a)
        assert mv.dtype == object
        for k in range(3):
            want = sum(Fraction(float(Y[k, j])) * af[j] for j in range(P.dim))
            assert isinstance(P.dot(a, k), mpmath.mpf)
            assert abs(Fraction(str(mpmath.nstr(P.dot(a, k), 50))) - want) < Fraction(1, 10**45)
            assert abs(Fraction(str(mpmath.nstr(mv[k], 50))) - want) < Fraction(1, 10**45)
            out = P.add(a, k, mpmath.mpf(1) / 7)
            assert out.dtype == object and a[0] == mpmath.mpf(1) / 3  # a unchanged
            for j in range(P.dim):
                want_j = af[j] + Fraction(1, 7) * Fraction(float(Y[k, j]))
                assert abs(Fraction(str(mpmath.nstr(out[j], 50))) - want_j) < Fraction(1, 10**45)
        ar = Arithmetic(40)
        for k in range(3):
            s = P.sqnorm(k, ar)
            assert isinstance(s, mpmath.mpf) and s == mpmath.mpf(float(Y[k] @ Y[k]))  # dyadic entries: exact


def test_patterns_dot_on_an_empty_row_is_zero_of_the_vector_type():
    P = make_patterns(XP, LP, rho=None, Delta=1.0)  # row 1 is empty
    a = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    assert P.dot(a, 1) == -(1.0 * 5.0)  # l_1 (Delta a_ext[1]) = -(1 * a[3 + 1])
    P0 = make_patterns(XP, LP, rho=1.0)
    assert P0.dot(np.array([1.0, 2.0, 3.0, 4.0]), 1) == -4.0  # l_1 (rho a_rho) = -4
    assert P0.sqnorm(1, None) == 1.0
    Pn = Patterns(data=np.zeros(0), indices=np.zeros(0, np.int64), indptr=np.zeros(2, np.int64), labels=np.array([1]), n_features=2, rho=None, Delta=None)
    assert Pn.dot(np.array([1.0, 2.0]), 0) == 0.0 and Pn.sqnorm(0, None) == 0.0


def test_make_patterns_keeps_the_canonical_csr():
    P = make_patterns(sp.csr_matrix(XP), LP)
    Q = make_patterns(XP, LP)
    for f in ("data", "indices", "indptr", "labels"):
        assert np.array_equal(getattr(P, f), getattr(Q, f))
    assert P.indices.dtype == np.int64 and P.indptr.dtype == np.int64 and P.data.dtype == np.float64
    assert (P.rho, P.Delta) == (1.0, None)  # the defaults: rho = 1.0, the original space


def test_patterns_float_path_stays_float():
    P = make_patterns(XP, LP, rho=2.0, Delta=0.5)
    a = np.arange(1.0, P.dim + 1.0)
    for k in range(3):
        assert not isinstance(P.dot(a, k), mpmath.mpf) and not isinstance(P._scalar(2.0, a), mpmath.mpf)
        assert P.add(a, k).dtype == np.float64 and P._values(np.array([1.5]), a).dtype == np.float64
    ao = a.astype(object)
    assert isinstance(P._scalar(2.0, ao), mpmath.mpf) and P._scalar(mpmath.mpf(3), ao) == 3
    assert all(isinstance(v, mpmath.mpf) for v in P._values(np.array([1.5, 2.0]), ao))


def test_patterns_dot_on_an_empty_row_with_a_zero_first_entry():
    P = make_patterns(XP, LP, rho=None, Delta=1.0)  # row 1 is empty
    a = np.array([0.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    assert P.dot(a, 1) == -5.0  # l_1 (Delta a_ext[1]) = -(1 * a[3 + 1]); no 0/0 anywhere


def test_normalized_bounds_of_patterns_made_of_rho_alone():
    """Patterns of the bias coordinate alone (d = 0 features, built directly: z_k = l_k rho): every
    normalized point is l_k, so with labels (1, 1) min_k u . y_k / |u| = 1 for u = 1, and the upper
    bound of beta = (1, 1) is |2 rho| / (2 rho) = 1.  _row_norm_bounds must take the row maxima of an
    X without columns as 0 (the max of an empty row raises)."""
    P = Patterns(data=np.zeros(0), indices=np.zeros(0, dtype=np.int64), indptr=np.zeros(3, dtype=np.int64),
                 labels=np.array([1, 1]), n_features=0, rho=0.75, Delta=None)  # fmt: skip
    lo = data_bounds.certified_lower(P, np.array([1.0]), normalize=True)
    up = data_bounds.certified_upper(P, np.array([1.0, 1.0]), normalize=True)
    assert 1 - Fraction(1, 10**12) < Fraction(lo) <= 1 <= Fraction(up) < 1 + Fraction(1, 10**12)
