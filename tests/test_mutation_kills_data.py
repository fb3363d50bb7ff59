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


# -- the validators of reference.data: every message, in full ----------------------------------------
# Each bad input -> the whole ValueError text (the argument, what is wrong, the fix).  Pinned in full
# so that a message that loses its start, its end or its hint is caught.

from reference.data import (  # noqa: E402
    check_bool,
    check_csr,
    check_data,
    check_gram,
    check_int,
    check_real,
    check_simplex,
    check_sparse_data,
    drop_zero_rows,
)


def _bad_csr_indptr():
    X = sp.csr_matrix(np.eye(3))
    X.indptr = np.array([0, 2, 1, 3])  # starts at 0, ends at nnz = 3, but decreases
    return X


def _bad_csr_index():
    X = sp.csr_matrix(np.eye(2))
    X.indices = np.array([0, 2])
    return X


def _bad_coo_index():
    C = sp.coo_matrix(np.eye(2))
    C.col = np.array([0, 5])
    return C


def _mp_third():
    with mpmath.workdps(30):
        return np.array([[mpmath.mpf(1) / 3]], dtype=object)


_CONSISTENT = (
    "X is not a consistent CSR matrix (indptr must have length n + 1 = 4, start at 0, not decrease, and end at "
    "nnz = len(indices) = len(data)); rebuild it with scipy.sparse.csr_matrix((data, indices, indptr), shape=(n, d))"
)
_ZERO_ROW = (
    "X has 1 zero rows (first: [1]): a zero point cannot be normalized and is never strictly separated; add a "
    "bias by augmentation (rho=1.0), or drop them with reference.drop_zero_rows(X, y)"
)

DATA_ERRORS = [
    (lambda: check_data(np.array([[True, 1.0]], dtype=object), [1]), "X must hold real numbers, found True (bool); convert it first"),
    (lambda: check_data(np.array([["a"]]), [1]), "X must be a numeric array of real numbers, got strings (dtype <U1); pass a real (float) array"),
    (lambda: check_data([[1.0]], ["a"]), "y must be a numeric array of real numbers, got strings (dtype <U1); map the labels to +1/-1 integers"),
    (lambda: check_data([[1.0]], np.array([1 + 2j])), "y must be a numeric array of real numbers, got complex numbers (dtype complex128); map the labels to +1/-1 integers"),
    (lambda: check_data(np.ones(3), [1]), "X must be a 2-D array of shape (n_points, n_features), got ndim=1; reshape a single feature with X.reshape(-1, 1)"),
    (lambda: check_data(np.ones((0, 2)), []), "X is empty (shape (0, 2)); pass at least one point with one feature"),
    (lambda: check_data(np.ones((2, 0)), [1, 1]), "X is empty (shape (2, 0)); pass at least one point with one feature"),
    (lambda: check_data([[np.nan]], [1]), "X contains NaN or inf; remove or impute those entries"),
    (lambda: check_data([[1.0], [2.0]], np.ones((2, 1))), "y must be a 1-D array of labels, got shape (2, 1); use y.ravel()"),
    (lambda: check_data([[1.0], [2.0]], [1, 1, 1]), "X has 2 rows but y has 3 labels; pass one label per row of X"),
    (lambda: check_data([[1.0], [2.0]], [1, 0]), "y must contain only +1 and -1, found [0.0]; map your classes to +1/-1"),
    (lambda: check_data([[1.0]], [2]), "y must contain only +1 and -1, found [2.0]; map your classes to +1/-1"),
    (lambda: check_data([[1.0], [0.0]], [1, -1]), _ZERO_ROW),
    (lambda: check_sparse_data(sp.csr_matrix(np.array([[1.0], [0.0]])), [1, -1]), _ZERO_ROW),
    (lambda: check_data(sp.csr_matrix((10**5, 10**4 + 1)), np.ones(10**5)),
     "X is sparse of shape (100000, 10001): a dense copy (1e+09 entries) is too large; pass n_features= no larger "
     "than the data need, or use pfm / pdm / pdm_succ, which keep X sparse"),
    (lambda: check_csr(np.eye(2)), "X must be a scipy.sparse matrix here, got ndarray"),
    (lambda: check_csr(np.eye(2), name="Z"), "Z must be a scipy.sparse matrix here, got ndarray"),
    (lambda: check_csr(sp.coo_array(np.ones(3))), "X must be 2-D of shape (n_points, n_features), got shape (3,)"),
    (lambda: check_csr(sp.csr_matrix((0, 3))), "X is empty (shape (0, 3)); pass at least one point with one feature"),
    (lambda: check_csr(sp.csr_matrix(np.array([[1j]]))), "X must hold real numbers, got dtype complex128; pass the real part explicitly"),
    (lambda: check_csr(_bad_csr_indptr()), _CONSISTENT),
    (lambda: check_csr(_bad_csr_index()), "X has a column index out of range [0, 2) (found 0..2); indices are 0-based and must be < the number of features"),
    (lambda: check_csr(_bad_coo_index()), "X has a row or column index out of range for shape (2, 2)"),
    (lambda: check_csr(sp.csr_matrix(np.array([[np.inf]]))), "X contains NaN or inf; remove or impute those entries"),
    (lambda: check_csr(sp.csr_matrix((np.array([1e308, 1e308]), np.array([0, 0]), np.array([0, 2])), shape=(1, 1))),
     "X contains NaN or inf; remove or impute those entries (duplicates overflowed)"),
    (lambda: check_sparse_data(_mp_third(), [1]), "X holds mpf entries that are not float64 numbers; the patterns are stored in float64 -- round X first"),
    (lambda: check_gram(np.ones((2, 3))), "G must be a square matrix, got shape (2, 3); build it with reference.gram(X, y)"),
    (lambda: check_gram(np.zeros((0, 0))), "G is empty; pass the Gram matrix of at least one point"),
    (lambda: check_gram(np.array([[1.0, np.nan], [np.nan, 1.0]])), "G contains NaN or inf; check the kernel and the data"),
    (lambda: check_gram(np.array([[1.0, 0.5], [0.0, 1.0]])), "G is not symmetric; a Gram matrix satisfies G == G.T"),
    (lambda: check_gram(np.array([[2.0, 0.0], [0.0, 1.0]])),
     "G must have unit diagonal (the normalized signed Gram matrix of RP14 Sec. 3); build it with reference.gram(X, y, kernel=...)"),
    (lambda: check_gram(np.array([[1.0, 0.0], [0.0, -1.0]]), unit_diagonal=False),
     "G is not positive semidefinite (G_11 = -1.000e+00 < 0); use a positive-definite kernel"),
    (lambda: check_gram(np.array([[1.0, 2.0], [2.0, 1.0]]), psd=True),
     "G is not positive semidefinite (smallest eigenvalue -1.000e+00); use a positive-definite kernel"),
    (lambda: check_gram(np.array([[1.0, 0.0, 0.0], [0.0, 1.0, -2.0], [0.0, -2.0, 1.0]]), name="K"),
     "K is not positive semidefinite: the 2 x 2 submatrix of rows 1, 2 has eigenvalue -1.000e+00 (|K_ij| > "
     "sqrt(K_ii K_jj), Cauchy-Schwarz fails); use a positive-definite kernel"),
    (lambda: drop_zero_rows(np.zeros((2, 2)), [1, -1]), "every row of X is zero; nothing is left to separate"),
    (lambda: drop_zero_rows(sp.csr_matrix((2, 2)), [1, -1]), "every row of X is zero; nothing is left to separate"),
    (lambda: check_simplex(np.array([0.5, 0.5]), 3), "q must be a vector of length 3 (one entry per point), got shape (2,)"),
    (lambda: check_simplex(np.array([0.5, 0.6]), 2, name="p"), "p must lie in the simplex (entries >= 0 summing to 1); e.g. np.full(n, 1/n)"),
    (lambda: check_simplex(np.array([1.5, -0.5]), 2), "q must lie in the simplex (entries >= 0 summing to 1); e.g. np.full(n, 1/n)"),
    (lambda: check_real("rho", 0, low=0, hint="pass e.g. rho=1.0"), "rho must lie in (0, inf), got 0; pass e.g. rho=1.0"),
    (lambda: check_real("t", 2, low=0, high=1, low_open=False, high_open=True), "t must lie in [0, 1), got 2"),
    (lambda: check_real("t", -1, low=0, high=1, low_open=False), "t must lie in [0, 1], got -1"),
    (lambda: check_real("t", 2, high=1), "t must lie in (-inf, 1], got 2"),
    (lambda: check_real("t", 1, high=1, high_open=True), "t must lie in (-inf, 1), got 1"),
    (lambda: check_real("t", float("inf")), "t must be finite, got inf"),
    (lambda: check_real("t", "a"), "t must be a real number, got 'a'"),
    (lambda: check_real("t", True), "t must be a real number, got True"),
    (lambda: check_int("n", 0, low=1), "n must be an integer >= 1, got 0"),
    (lambda: check_int("n", 2.0), "n must be an integer >= 0, got 2.0"),
    (lambda: check_int("n", True), "n must be an integer >= 0, got True"),
    (lambda: check_bool("flag", 1), "flag must be True or False, got 1"),
]


@pytest.mark.parametrize("call, message", DATA_ERRORS)
def test_data_validators_say_what_and_how_to_fix_in_full(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value) == message


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: check_real("rho", 0, low=0, low_open=False), 0),
        (lambda: check_real("rho", 1, high=1), 1),
        (lambda: check_real("rho", mpmath.mpf("0.5"), low=0, high=1, high_open=True), mpmath.mpf("0.5")),
        (lambda: check_real("rho", -1e-300, high=0), -1e-300),
        (lambda: check_int("n", 1, low=1), 1),
        (lambda: check_int("n", np.int64(3)), 3),
        (lambda: check_bool("flag", np.bool_(False)), False),
    ],
)
def test_data_validators_accept_the_boundary(call, expected):
    """Closed bounds include their end point; the value comes back (check_int / check_bool as int / bool)."""
    got = call()
    assert got == expected and type(got) is type(expected)


def test_check_pairs_names_the_rows_in_a_later_block():
    """The pairwise test runs in blocks of 512 rows: a bad pair in the second block is named by its own rows."""
    G = np.eye(600)
    G[550, 551] = G[551, 550] = -2.0
    with pytest.raises(ValueError) as err:
        check_gram(G)
    assert str(err.value) == (
        "G is not positive semidefinite: the 2 x 2 submatrix of rows 550, 551 has eigenvalue -1.000e+00 "
        "(|G_ij| > sqrt(G_ii G_jj), Cauchy-Schwarz fails); use a positive-definite kernel"
    )


FILE_ERRORS = [  # (file name, content, kwargs, message with {p} for the path)
    ("a.txt", "+1 1:1 \u00e9\n", {}, "{p}:1: not LIBSVM format (non-ASCII characters)"),
    ("b.txt", "+1 1:1\n-1 a:1\n", {}, "{p}:2: not LIBSVM format (feature index 'a' is not a positive integer)"),
    ("c.txt", "+1 0:1\n", {}, "{p}:1: not LIBSVM format (feature indices are 1-based)"),
    ("d.txt", "+1 2:1 2:3\n", {}, "{p}:1: not LIBSVM format (feature index 2 appears twice)"),
    ("e.txt", "# header\n\n+1 1:x\n", {}, "{p}:3: not LIBSVM format (could not convert string to float: 'x')"),
    ("f.txt", "+1 1:2:3\n", {}, "{p}:1: not LIBSVM format (could not convert string to float: '2:3')"),
    ("g.txt", "# only a comment\n\n", {}, "data file '{p}' has no data lines"),
    ("h.txt", "+1 3:1\n-1 1:2\n", {"n_features": 2}, "n_features=2 but the file uses feature index 3; raise n_features"),
    ("i.txt", "1 1:1\n0 1:2\n", {}, "{p}: labels must be +1/-1, found [0.0, 1.0]; relabel the file"),
    ("l.txt", "+1 1:1\n", {"n_features": 0}, "n_features must be an integer >= 1, got 0"),
]


@pytest.mark.parametrize("name, content, kwargs, message", FILE_ERRORS)
def test_load_libsvm_errors_in_full(tmp_path, name, content, kwargs, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError) as err:
        reference.load_libsvm(path, **kwargs)
    assert str(err.value) == message.format(p=path)


def test_data_paths_and_archives_errors_in_full(tmp_path):
    cases = [
        (lambda: reference.load_libsvm(3), "path must be a str or pathlib.Path of a LIBSVM file, got int"),
        (lambda: reference.load_npz(3.0), "path must be a str or pathlib.Path of an .npz file, got float"),
        (lambda: reference.load_libsvm(tmp_path), f"data file '{tmp_path}' is a directory; pass the path of a LIBSVM file"),
        (lambda: reference.load_npz(tmp_path), f"data file '{tmp_path}' is a directory; pass the path of an .npz file"),
        (lambda: reference.load_libsvm(str(tmp_path / "no.txt")), f"data file '{tmp_path / 'no.txt'}' does not exist; pass the path of a LIBSVM file"),
        (lambda: reference.load_npz(tmp_path / "no.npz"), f"data file '{tmp_path / 'no.npz'}' does not exist"),
    ]
    np.savez(tmp_path / "x_only.npz", X=np.eye(2))
    cases.append((lambda: reference.load_npz(tmp_path / "x_only.npz"), f"{tmp_path / 'x_only.npz'}: an .npz data file must hold arrays named 'X' and 'y'"))
    for call, message in cases:
        with pytest.raises(ValueError) as err:
            call()
        assert str(err.value) == message
    bad_gz = tmp_path / "f.gz"
    bad_gz.write_bytes(b"not gzip")
    with pytest.raises(ValueError) as err:
        reference.load_libsvm(bad_gz)
    assert re.fullmatch(re.escape(f"{bad_gz}: cannot be read as a LIBSVM text file near line 1 (BadGzipFile: ") + r".+\)", str(err.value))
    garbage = tmp_path / "n.npz"
    garbage.write_text("garbage")
    with pytest.raises(ValueError) as err:
        reference.load_npz(garbage)
    assert re.fullmatch(re.escape(f"{garbage}: not a readable .npz archive (") + r".+\)", str(err.value), flags=re.S)


def test_load_libsvm_reads_a_small_file_exactly(tmp_path):
    """Comments, blank lines, unsorted indices, '+1' / '-1' / '1.0' labels; n_features widens."""
    path = tmp_path / "s.txt"
    path.write_text("# two points\n+1 3:2.5 1:-1 # tail\n\n-1 2:4\n1.0 1:0.5\n", encoding="utf-8")
    X, y = reference.load_libsvm(path)
    np.testing.assert_array_equal(X.toarray(), [[-1.0, 0.0, 2.5], [0.0, 4.0, 0.0], [0.5, 0.0, 0.0]])
    np.testing.assert_array_equal(y, [1, -1, 1])
    assert y.dtype == np.int64 and X.indices.dtype == np.int64 and X.indptr.dtype == np.int64
    X3, _ = reference.load_libsvm(path, n_features=3)  # exactly the largest index: accepted
    np.testing.assert_array_equal(X3.toarray(), X.toarray())
    labels_only = tmp_path / "l.txt"
    labels_only.write_text("+1\n-1\n", encoding="utf-8")
    X0, y0 = reference.load_libsvm(labels_only)  # no features at all: an (n, 0) matrix, refused later by check_data
    assert X0.shape == (2, 0) and y0.tolist() == [1, -1]
    X5, _ = reference.load_libsvm(path, n_features=5)
    assert X5.shape == (3, 5)
    np.testing.assert_array_equal(X5.toarray()[:, :3], X.toarray())


def test_check_simplex_returns_float64_or_the_mpf_array_itself():
    q = check_simplex([0.25, 0.75], 2)
    assert isinstance(q, np.ndarray) and q.dtype == np.float64 and q.tolist() == [0.25, 0.75]
    q32 = np.array([0.5, 0.5], dtype=np.float32)
    assert check_simplex(q32, 2).dtype == np.float64
    qm = np.array([mpmath.mpf(1) / 4, mpmath.mpf(3) / 4], dtype=object)
    assert check_simplex(qm, 2) is qm  # mpf entries kept, not rounded


def test_check_sparse_data_keeps_a_huge_sparse_matrix_sparse():
    """10^5 x 10^5 with 3 entries: far beyond the dense limit (MAX_DENSE_ENTRIES), fine in CSR."""
    n = 10**5
    X = sp.csr_matrix((np.array([1.0, -2.0, 3.0]), (np.array([0, 7, n - 1]), np.array([5, 0, n - 1]))), shape=(n, n))
    y = np.ones(n)
    C, yv = check_sparse_data(X, y, nonzero=False)
    assert sp.issparse(C) and C.shape == (n, n) and C.nnz == 3
    assert C[7, 0] == -2.0 and C[n - 1, n - 1] == 3.0 and yv.dtype == np.int64
    Xd, yd, kept = drop_zero_rows(X, y)
    assert sp.issparse(Xd) and kept.tolist() == [0, 7, n - 1] and Xd.shape == (3, n)


# -- reference.gram -------------------------------------------------------------------------------


class _NegKernel:
    def __call__(self, A, B):
        return -(A @ B.T)

    def __repr__(self):
        return "NegKernel()"


class _DiagDisagrees:
    def __call__(self, A, B):
        return A @ B.T if A.shape[0] == 1 else -(A @ B.T)

    def __repr__(self):
        return "DiagDisagrees()"


_X2, _Y2 = np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([1, -1])
_OVER = "overflowed float64 (non-finite entries; the largest |X_ij| is 1e+200): rescale X (e.g. X / np.abs(X).max()), change the kernel parameters, or pass precision=50"

GRAM_ERRORS = [
    (lambda: reference.gram(_X2, _Y2, kernel="rbf"), "kernel must be one of ('linear', 'polynomial', 'gaussian') or a callable K(A, B), got 'rbf'"),
    (lambda: reference.gram(_X2, _Y2, kernel=_NegKernel(), degree=2), "parameters ['degree'] are only for the built-in kernels; bind them into your callable"),
    (lambda: reference.gram(_X2, _Y2, kernel=lambda A, B: np.ones((3, 3))), "kernel callable returned shape (3, 3), expected (1, 1)"),
    (lambda: reference.gram(_X2, _Y2, sigma=1), "unknown parameter(s) ['sigma'] for kernel 'linear'; allowed: none"),
    (lambda: reference.gram(_X2, _Y2, kernel="polynomial", sigma=1), "unknown parameter(s) ['sigma'] for kernel 'polynomial'; allowed: ['c', 'degree']"),
    (lambda: reference.gram(_X2, _Y2, kernel="gaussian", degree=2), "unknown parameter(s) ['degree'] for kernel 'gaussian'; allowed: ['sigma']"),
    (lambda: reference.gram(_X2, _Y2, kernel="polynomial", degree=0), "degree must be a positive integer, got 0"),
    (lambda: reference.gram(_X2, _Y2, kernel="polynomial", degree=True), "degree must be a positive integer, got True"),
    (lambda: reference.gram(_X2, _Y2, kernel="polynomial", degree=2.0), "degree must be a positive integer, got 2.0"),
    (lambda: reference.gram(_X2, _Y2, kernel="polynomial", c=-1), "c must lie in [0, inf), got -1"),
    (lambda: reference.gram(_X2, _Y2, kernel="gaussian", sigma=0), "sigma must lie in (0, inf), got 0"),
    (lambda: reference.gram(_X2, _Y2, kernel="gaussian", sigma=1e-300),
     "sigma=1e-300: 2 sigma^2 = 0.0 under- or overflows float64; pass a sigma between 1e-150 and 1e150 (or precision=50)"),
    (lambda: reference.gram(_X2, _Y2, kernel="gaussian", sigma=1e300),
     "sigma=1e+300: 2 sigma^2 = inf under- or overflows float64; pass a sigma between 1e-150 and 1e150 (or precision=50)"),
    (lambda: reference.gram([[0.0, 0.0], [1.0, 0.0]], _Y2),
     "X has 1 zero rows (first: [0]): a zero point cannot be normalized and is never strictly separated; add a "
     "bias by augmentation (rho=1.0), or drop them with reference.drop_zero_rows(X, y)"),
    (lambda: reference.gram(_X2, _Y2, kernel=_NegKernel()),
     "K(x_i, x_i) <= 0 for 2 point(s) (first: i = [0, 1]), points with K(x, x) <= 0 under kernel NegKernel(): G divides by "
     "sqrt(K(x_i, x_i)); add a bias by augmentation (rho=1.0) or drop those points"),
    (lambda: reference.gram(_X2, _Y2, kernel=_DiagDisagrees()), "K(x_i, x_i) <= 0 on the diagonal of the kernel matrix; check the kernel callable"),
    (lambda: reference.signed_gram([[1e200]], [1]), "signed_gram " + _OVER),
    (lambda: reference.gram([[1e200, 1e200]], [1], kernel="polynomial", degree=2), "the kernel matrix " + _OVER),
    (lambda: reference.gram(_X2, _Y2, rho=0), "rho must lie in (0, inf), got 0; the augmentation (bias) coordinate, e.g. rho=1.0; or rho=None"),
    (lambda: reference.signed_gram(_X2, _Y2, rho=-1), "rho must lie in (0, inf), got -1; the augmentation (bias) coordinate, e.g. rho=1.0; or rho=None"),
]


@pytest.mark.parametrize("call, message", GRAM_ERRORS)
def test_gram_errors_in_full(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value) == message


def test_gram_with_rho_keeps_a_zero_point():
    """rho augments before the zero-row test: x_0 = 0 becomes (0, 0, 1).  G_01 = y_0 y_1 (1) / (1 sqrt(2))."""
    G = reference.gram([[0.0, 0.0], [1.0, 0.0]], _Y2, rho=1.0)
    assert G[0, 0] == G[1, 1] == 1.0
    assert abs(G[0, 1] + 2**-0.5) <= 2**-53 and G[0, 1] == G[1, 0]
    S = reference.signed_gram([[0.0, 0.0], [1.0, 0.0]], _Y2, rho=1.0)
    np.testing.assert_array_equal(S, [[1.0, -1.0], [-1.0, 2.0]])


def test_gaussian_kernel_closed_form_small_sigma():
    """|a - b|^2 = 1, sigma = 1/2: K = exp(-1 / (2 / 4)) = exp(-2); sigma below 1 is allowed."""
    K = reference.kernel_matrix(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]]), np.array([[0.0, 0.0], [0.0, 1.0]]), "gaussian", sigma=0.5)
    assert K.shape == (3, 2)
    np.testing.assert_allclose(K, [[1.0, np.exp(-1 / 0.5)], [np.exp(-1 / 0.5), np.exp(-2 / 0.5)], [1.0, np.exp(-1 / 0.5)]], rtol=4e-16, atol=0)


def test_gram_in_precision_mode_and_polynomial_degree_one():
    """precision=30: mpf entries, G_01 = -1/sqrt(2) to 30 digits; polynomial degree 1, c = 0 is the linear kernel."""
    X = np.array([[1.0, 0.0], [1.0, 1.0]])
    G = reference.gram(X, _Y2, precision=30)
    assert G.dtype == object and isinstance(G[0, 1], mpmath.mpf)
    with mpmath.workdps(30):
        assert abs(G[0, 1] + 1 / mpmath.sqrt(2)) < mpmath.mpf(10) ** -29
    S = reference.signed_gram(X, _Y2, precision=30)
    assert [[int(v) for v in row] for row in S] == [[1, -1], [-1, 2]]
    P1 = reference.gram(X, _Y2, kernel="polynomial", degree=1, c=0.0)
    np.testing.assert_array_equal(P1, reference.gram(X, _Y2))
    P2 = reference.signed_gram(X, _Y2, kernel="polynomial", degree=3, c=1.0)  # (a.b + 1)^3
    np.testing.assert_array_equal(P2, [[8.0, -8.0], [-8.0, 27.0]])


# -- reference.data_margin ------------------------------------------------------------------------


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


# -- reference.arithmetic (closed forms) -------------------------------------------------------------

from reference.arithmetic import (  # noqa: E402
    arithmetic,
    log_mean_exp,
    pow2_exponent,
    project_simplex,
    rescale_pow2,
    softmax,
)


@pytest.mark.parametrize("dps", [None, 30])
def test_log_mean_exp_closed_forms(dps):
    """mu log((1/n) sum exp(-v_i/mu)): v constant c -> -c; v = (0, mu log 3) -> mu log(2/3)."""
    ar = Arithmetic(dps)
    with ar.context():
        assert log_mean_exp(ar.array([2.0, 2.0, 2.0, 2.0]), ar.scalar(0.5), ar) == -2
        mu = ar.scalar(0.25)
        v = ar.array([0.0, 0.0])
        v[1] = mu * ar.log(ar.scalar(3))  # exp(-v_1/mu) = 1/3
        got = log_mean_exp(v, mu, ar)
        want = mu * ar.log(ar.scalar(2) / 3)  # (1 + 1/3) / 2 = 2/3
        assert abs(got - want) <= (1e-15 if dps is None else mpmath.mpf(10) ** -28)


@pytest.mark.parametrize("dps", [None, 30])
def test_softmax_and_project_simplex_closed_forms(dps):
    ar = Arithmetic(dps)
    with ar.context():
        p = softmax(ar.array([0.0, 0.0, 0.0, 0.0]), ar)
        assert all(x == ar.scalar(0.25) for x in p)
        v = ar.array([0.5, 0.2, -1.0])  # tau = (0.5 + 0.2 - 1) / 2 = -0.15: (0.65, 0.35, 0)
        q = project_simplex(v, ar)
        assert q.dtype == v.dtype and q.shape == (3,)
        assert abs(q[0] - ar.scalar(0.65)) <= 1e-15 and abs(q[1] - ar.scalar(0.35)) <= 1e-15 and q[2] == 0
        w = ar.array([3.0, 0.0])  # far outside: the vertex e_0
        assert [float(x) for x in project_simplex(w, ar)] == [1.0, 0.0]


def test_project_simplex_keeps_the_dtype():
    """float32 in, float32 out (the list comprehension must not widen or narrow the type)."""
    v = np.array([1.0, 0.25, -1.0], dtype=np.float32)  # tau = (1.25 - 1) / 2: (0.875, 0.125, 0)
    q = project_simplex(v, Arithmetic(None))
    assert q.dtype == np.float32 and q.tolist() == [0.875, 0.125, 0.0]


def test_rescale_pow2_and_pow2_exponent():
    """1e300 = m 2^997 with 1/2 <= m < 1 (2^996 < 1e300 < 2^997): scaled exactly into [1/2, 1)."""
    assert pow2_exponent(np.array([1e300, -3.0])) == 997 and pow2_exponent(np.zeros(3)) == 0 and pow2_exponent(np.array([])) == 0
    assert pow2_exponent(np.array([0.75])) == 0 and pow2_exponent(np.array([1.0])) == 1
    A = np.array([[1e300, -2.0], [0.0, 3.0]])
    S, e = rescale_pow2(A)
    assert e == 997 and 0.5 <= np.max(np.abs(S)) < 1
    np.testing.assert_array_equal(np.ldexp(S, e), A)  # exact
    tiny = np.array([2.0**-100, 2.0**-101])
    S, e = rescale_pow2(tiny)
    assert e == -99 and S.tolist() == [0.5, 0.25]
    ordinary = np.array([1e10, 1.0])
    S, e = rescale_pow2(ordinary)
    assert e == 0 and S is ordinary
    S, e = rescale_pow2(np.array([2.0**63]))  # e = 64: outside [-64, 64)
    assert e == 64 and S.tolist() == [0.5]
    S, e = rescale_pow2(np.array([2.0**-65]))  # e = -64: inside
    assert e == 0
    M = np.array([mpmath.mpf(10) ** 400], dtype=object)
    S, e = rescale_pow2(M)
    assert S is M and e == 0  # mpmath: no overflow, left alone


@pytest.mark.parametrize("bad", [5, 15, 1001, True, 20.0, "30"])
def test_arithmetic_precision_errors_in_full(bad):
    with pytest.raises(ValueError) as err:
        arithmetic(bad)
    assert str(err.value) == (
        "precision must be None (float64) or an integer number of decimal digits from 16 (float64 carries about 16) "
        f"to 1000, got {bad!r}; pass e.g. precision=50"
    )


@pytest.mark.parametrize("good", [16, 1000, np.int64(50)])
def test_arithmetic_precision_bounds_are_inclusive(good):
    ar = arithmetic(good)
    assert ar.dps == int(good) and type(ar.dps) is int and ar.label == f"mpmath, {int(good)} decimal digits"
    assert arithmetic(None).label == "float64" and arithmetic(None).eps == 2.0**-52 and arithmetic(None).u == 2.0**-53


# -- reference.exact: every message, closed-form claims ------------------------------------------------

from reference.exact import exact_matvec, exact_quadratic_form, exact_rank, rational, verify_exact  # noqa: E402
from reference.result import Result  # noqa: E402

_G = np.array([[1.0, -0.5], [-0.5, 1.0]])  # p = (1/2, 1/2): p^T G p = 1/4 exactly
_ALGOS = "('nkp', 'snkp', 'nvn', 'snkpvn', 'isnkpvn', 'perceptron', 'normalized_perceptron', 'pfm', 'pdm', 'pdm_succ')"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: rational(float("nan")), "nan is not a finite number"),
        (lambda: rational(float("-inf")), "-inf is not a finite number"),
        (lambda: rational(mpmath.mpf("inf")), "+inf is not a finite number"),
        (lambda: rational(None), "None is not a number; pass a float, an int or an mpmath.mpf"),
        (lambda: rational("a"), "'a' is not a number; pass a float, an int or an mpmath.mpf"),
        (lambda: exact_matvec(np.eye(2), [1.0, 2.0, 3.0]), "the vector has length 3, the matrix 2 columns"),
        (lambda: verify_exact(Result("nkp", "certificate", 1, p=np.array([0.5, 0.5])), _G), "pass accuracy=: the nkp result does not record its accuracy"),
        (lambda: verify_exact(Result("foo", "separator", 1), _G), f"unknown algorithm 'foo'; expected one of {_ALGOS}"),
        (lambda: verify_exact(Result("perceptron", "separator", 1, w=np.array([1.0])), np.ones((2, 1))), "perceptron claims a separator of data: pass y, the labels"),
    ],
)
def test_exact_errors_in_full(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value) == message


def test_rational_is_exact():
    assert rational(0.1) == Fraction(3602879701896397, 2**55)
    assert rational(np.float32(0.1)) == Fraction(13421773, 2**27)
    assert rational(np.int64(-7)) == -7 and rational(True) == 1 and rational(np.bool_(False)) == 0
    assert rational(-(mpmath.mpf(3) / 8)) == Fraction(-3, 8) and rational(mpmath.mpf(0)) == 0
    assert rational(mpmath.mpf(2) ** 2000) == Fraction(2**2000)
    assert rational(2**70 + 1) == 2**70 + 1  # an int is taken exactly, not through float


def test_exact_matvec_rank_and_quadratic_form():
    A = np.array([[0.5, 0.25], [3.0, -1.0]])
    assert exact_matvec(A, [0.1, 2.0]) == [Fraction(1, 2) * rational(0.1) + Fraction(1, 2), 3 * rational(0.1) - 2]
    assert exact_matvec([[1, 2]], [2**-60, 1]) == [Fraction(1, 2**60) + 2]
    assert exact_quadratic_form(_G, [0.5, 0.5]) == Fraction(1, 4)
    assert exact_quadratic_form(_G, [1.0, 0.0]) == 1
    assert exact_rank(np.array([[1.0, 2.0], [2.0, 4.0]])) == 1 and exact_rank(np.eye(3)) == 3
    assert exact_rank(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])) == 2
    assert exact_rank(np.eye(5), at_most=2) > 2 and exact_rank(np.zeros((2, 2))) == 0
    P = float(2**31 - 1)  # the prime of the modular shortcut: rank 1 modulo it, rank 2 over Q
    assert exact_rank(np.array([[P, 0.0], [0.0, 1.0]]), at_most=1) == 2
    assert exact_rank(np.array([[P, 0.0], [0.0, 1.0]])) == 2
    eps = 2.0**-40  # rank 2 over Q, though float64 rounding would call [[1, 1], [1, 1 + eps]] nearly singular
    assert exact_rank(np.array([[1.0, 1.0], [1.0, 1.0 + eps]])) == 2


@pytest.mark.parametrize(
    "result, data, y, expected",
    [
        (Result("nkp", "separator", 1, alpha=np.array([1.0, 0.0])), _G, None, "(G alpha)_1 = -5.000e-01 is not > 0 in exact arithmetic"),
        (Result("snkp", "separator", 1, alpha=np.array([1.0, 3.0])), _G, None, "(G alpha)_0 = -5.000e-01 is not > 0 in exact arithmetic"),
        (Result("nkp", "separator", 1, alpha=np.array([1.0, 1.0])), _G, None, ""),
        (Result("nkp", "certificate", 1, p=np.array([0.5, 0.5]), info={"epsilon": 0.5}), _G, None,
         "p^T G p = 2.500000e-01 is not < accuracy^2 = 2.500000e-01 in exact arithmetic"),
        (Result("nkp", "certificate", 1, p=np.array([0.5, 0.5]), info={"epsilon": 0.5000001}), _G, None, ""),
        (Result("nvn", "certificate", 1, p=np.array([0.5, 0.5]), info={"epsilon": 0.5}), _G, None, ""),  # NVN: <=
        (Result("nvn", "certificate", 1, p=np.array([0.5, 0.5]), info={"epsilon": 0.4999999}), _G, None,
         "p^T G p = 2.500000e-01 is not <= accuracy^2 = 2.499999e-01 in exact arithmetic"),
        (Result("snkpvn", "certificate", 1, p=np.array([0.5, 0.5]), info={"delta": 0.5, "epsilon": 1.0}), _G, None,
         "p^T G p = 2.500000e-01 is not < accuracy^2 = 2.500000e-01 in exact arithmetic"),
        (Result("isnkpvn", "certificate", 1, p=np.array([0.5, 0.5]), info={"delta": 0.1, "epsilon": 1.0}), _G, None, ""),
        (Result("nkp", "certificate", 1, p=np.array([1.5, -0.5]), info={"epsilon": 5}), _G, None, "p has a negative entry"),
        (Result("nkp", "certificate", 1, p=np.array([0.5, 0.6]), info={"epsilon": 5}), _G, None, "sum(p) = 1.1 is not 1 within 17 n eps"),
        (Result("nkp", "max_iter", 1), _G, None, ""),
        (Result("perceptron", "separator", 1, w=np.array([1.0])), np.array([[1.0], [2.0]]), np.array([1, -1]),
         "y_i <w, x_i>_1 = -2.000e+00 is not > 0 in exact arithmetic"),
        (Result("pdm", "separator", 1, w=np.array([1.0, 1.0]), info={"rho": 1.0}), np.array([[1.0], [-3.0]]), np.array([1, -1]), ""),
        (Result("pdm", "separator", 1, w=np.array([1.0, -2.0]), info={"rho": 1.0}), np.array([[1.0], [-3.0]]), np.array([1, -1]),
         "y_i <w, x_i>_0 = -1.000e+00 is not > 0 in exact arithmetic"),
        # without rho the pattern of point 1 is 3 > 0 for w = 1: a perceptron ignores info['rho']
        (Result("normalized_perceptron", "separator", 1, w=np.array([1.0]), info={"rho": -100.0}), np.array([[1.0], [-3.0]]), np.array([1, -1]), ""),
        # PT11 extended space: y_k = l_k [x_k, rho, Delta e_k]; w = (0, 0, 1, 1) gives l_k Delta > 0 only for l_k = +1
        (Result("pdm_succ", "separator", 1, w=np.array([0.0, 0.0, 1.0, 1.0]), info={"rho": 1.0, "Delta": 2.0}), np.array([[1.0], [-3.0]]), np.array([1, -1]),
         "y_i <w, x_i>_1 = -2.000e+00 is not > 0 in exact arithmetic"),
        (Result("pfm", "separator", 1, w=np.array([0.0, 0.0, 1.0, -1.0]), info={"rho": 1.0, "Delta": 2.0}), np.array([[1.0], [-3.0]]), np.array([1, -1]), ""),
    ],
)
def test_verify_exact_closed_form_claims(result, data, y, expected):
    assert verify_exact(result, data, y) == expected


def test_verify_exact_certificate_sum_tolerance_is_17_n_eps():
    """|1^T p - 1| <= 17 n eps: at n = 2, 34 eps passes and 36 eps fails (float64 eps = 2^-52; mpmath 10^-dps)."""
    eps = 2.0**-52
    ok = Result("nkp", "certificate", 1, p=np.array([0.5, 0.5 + 34 * eps]), info={"epsilon": 5})
    bad = Result("nkp", "certificate", 1, p=np.array([0.5, 0.5 + 36 * eps]), info={"epsilon": 5})
    assert verify_exact(ok, _G) == "" and verify_exact(bad, _G).startswith("sum(p) = ")
    with mpmath.workdps(40):
        pm = np.array([mpmath.mpf(1) / 2, mpmath.mpf(1) / 2 + mpmath.mpf(30) * mpmath.mpf(10) ** -30], dtype=object)
        pb = np.array([mpmath.mpf(1) / 2, mpmath.mpf(1) / 2 + mpmath.mpf(40) * mpmath.mpf(10) ** -30], dtype=object)
    mp = "mpmath, 30 decimal digits"
    assert verify_exact(Result("nkp", "certificate", 1, p=pm, precision=mp, info={"epsilon": 5}), _G) == ""
    assert verify_exact(Result("nkp", "certificate", 1, p=pb, precision=mp, info={"epsilon": 5}), _G).startswith("sum(p) = ")
    assert verify_exact(Result("nkp", "certificate", 1, p=pb, info={"epsilon": 5}), _G) == ""  # float64's allowance is wider


# -- reference.data_margin: closed-form instances -------------------------------------------------------


def _dm(**kw):
    base = dict(lower=1.0, upper=1.0, value=1.0, separable=True, u=None, beta=None, gordan=None, method="m", m=1, d=1,
                nnz=1, R=1.0, rho=None, Delta=None, normalize=False)
    base.update(kw)
    return DM.DataMargin(**base)


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


# -- reference.data: PT11 transformations (closed forms, dense = sparse) -----------------------------

from reference.data import augment, extend, reflect  # noqa: E402


@pytest.mark.parametrize("sparse", [False, True])
def test_augment_reflect_extend_closed_forms(sparse):
    """augment: x -> [x, rho] (an integer X does not truncate rho); reflect: rows y_i x_i; extend: [z_k, l_k Delta e_k]."""
    conv = sp.csr_matrix if sparse else (lambda A: A)
    dense = (lambda A: A.toarray()) if sparse else (lambda A: A)
    A = augment(conv(np.array([[1, 2], [0, 0]])), 0.5)
    assert sp.issparse(A) is sparse
    np.testing.assert_array_equal(dense(A), [[1.0, 2.0, 0.5], [0.0, 0.0, 0.5]])
    R = reflect(conv(np.array([[1.0, 2.0], [3.0, 4.0]])), np.array([1, -1]))
    assert sp.issparse(R) is sparse
    np.testing.assert_array_equal(dense(R), [[1.0, 2.0], [-3.0, -4.0]])
    E = extend(conv(np.array([[1.0], [2.0], [3.0]])), np.array([1, -1, 1]), 0.5)
    assert sp.issparse(E) is sparse and E.shape == (3, 4)
    np.testing.assert_array_equal(dense(E), [[1.0, 0.5, 0.0, 0.0], [2.0, 0.0, -0.5, 0.0], [3.0, 0.0, 0.0, 0.5]])
    if sparse:
        assert E.format == "csr" and A.format == "csr" and R.format == "csr" and E.nnz == 6


def test_transformations_keep_mpf():
    Xm = np.array([[mpmath.mpf(1) / 3]], dtype=object)
    A = augment(Xm, mpmath.mpf(2))
    assert A.dtype == object and A[0, 0] == Xm[0, 0] and A[0, 1] == 2
    E = extend(Xm, np.array([-1]), mpmath.mpf(3))
    assert E.dtype == object and E[0, 1] == -3
    Xo, yo = check_data(Xm, [1])
    assert Xo is Xm and yo.dtype == np.int64 and yo.tolist() == [1]
    C, yc = check_data(np.array([[1, 2]]), np.array([1.0]))
    assert C.dtype == np.float64 and yc.dtype == np.int64


def test_transformations_integer_and_coo_inputs():
    """An integer Z must not truncate Delta = 0.5; a COO input gives a CSR result (the docstrings' promise)."""
    E = extend(np.array([[1], [2]]), np.array([1, -1]), 0.5)
    np.testing.assert_array_equal(E, [[1.0, 0.5, 0.0], [2.0, 0.0, -0.5]])
    A = augment(sp.coo_matrix(np.array([[1.0, 0.0]])), 0.5)
    assert A.format == "csr" and A.toarray().tolist() == [[1.0, 0.0, 0.5]]
    E2 = extend(sp.coo_matrix(np.array([[1.0], [2.0]])), np.array([1, -1]), 0.5)
    assert E2.format == "csr" and E2.toarray().tolist() == [[1.0, 0.5, 0.0], [2.0, 0.0, -0.5]]


# -- reference.arithmetic: the round-off model and helpers (closed forms) ----------------------------

from reference.arithmetic import UNDERFLOW, g_norm, g_norm_upper, gamma, quadratic_form, scale_rows_pow2, to_float  # noqa: E402


def test_arithmetic_helpers_closed_forms():
    ar, mp = Arithmetic(None), Arithmetic(30)
    assert gamma(3, ar) == 3 * 2.0**-53 / (1 - 3 * 2.0**-53)
    with mp.context():
        assert gamma(2, mp) == 2 * mpmath.mpf(10) ** -30 / (1 - 2 * mpmath.mpf(10) ** -30)
        assert mp.eps == mp.u == mpmath.mpf(10) ** -30
        e = mp.unit(3, 1)
        assert e.dtype == object and [float(v) for v in e] == [0.0, 1.0, 0.0]
        assert all(v == mpmath.mpf(1) / 4 for v in mp.uniform(4))
        assert mp.floor(mpmath.mpf("2.5")) == 2 and mp.floor(mpmath.mpf("-2.5")) == -3
        m = mp.array([[1, 2], [3, 4]])
        assert m.shape == (2, 2) and mp.exp(mp.array([0.0, 0.0])).tolist() == [1, 1]
        lg = mp.log(mp.array([[1.0, 4.0]]))
        assert lg.shape == (1, 2) and lg[0, 0] == 0 and abs(lg[0, 1] - 2 * mpmath.log(2)) < mpmath.mpf(10) ** -29
        assert mp.array([Fraction(1, 3)])[0] == mpmath.mpf(1) / 3 and mp.array([np.int64(2**62)])[0] == 2**62
    assert ar.floor(2.5) == 2 and ar.floor(-2.5) == -3 and ar.unit(2, 0).tolist() == [1.0, 0.0] and ar.uniform(2).tolist() == [0.5, 0.5]
    assert to_float(mpmath.mpf(1) / 4) == 0.25 and to_float(np.array([mpmath.mpf(2)], dtype=object)).dtype == np.float64


def test_g_norm_and_rigorous_quadratic_form():
    G = np.array([[1.0, -0.5], [-0.5, 1.0]])
    assert g_norm(G, [0.5, 0.5]) == 0.5  # sqrt(1/4)
    assert g_norm(-np.eye(2), [1.0, 0.0]) == 0.0  # a negative form is clipped to 0, not NaN
    Q, err = quadratic_form(G, np.array([0.5, 0.5]), Arithmetic(None))
    assert Q == 0.25 and 0 < err <= 1e-14
    # |p|^T |G| |p| = 0.75 and |p|^T |G p| = 0.25: err = 2 gamma_{n+2} (0.75 + 0.25) + (4n + 4) UNDERFLOW, n = 2
    assert err == 2 * gamma(4, Arithmetic(None)) * 1.0 + 12 * UNDERFLOW
    up = g_norm_upper(G, np.array([0.5, 0.5]), Arithmetic(None))
    assert 0.5 <= up <= 0.5 * (1 + 1e-14)
    assert g_norm_upper(np.zeros((2, 2)), np.array([0.5, 0.5]), Arithmetic(None)) == np.sqrt(12 * UNDERFLOW) * (1 + 4 * 2.0**-53)
    assert np.isnan(g_norm_upper(np.array([[np.nan]]), np.array([1.0]), Arithmetic(None)))
    mp = Arithmetic(30)
    with mp.context():
        assert g_norm_upper(mp.array(np.zeros((1, 1))), mp.array([1.0]), mp) == 0


def test_scale_rows_pow2_dense_and_sparse():
    """Each row times the power of two bringing its largest |entry| into [1/2, 1); zero rows stay 0."""
    A = np.array([[3.0, -1.0], [0.0, 0.0], [1e-200, 2e-200], [1e200, 0.0]])
    S = scale_rows_pow2(A)
    np.testing.assert_array_equal(S[0], [0.75, -0.25])
    np.testing.assert_array_equal(S[1], [0.0, 0.0])
    for i in (2, 3):
        assert 0.5 <= np.max(np.abs(S[i])) < 1 and S[i][0] / A[i][0] == np.max(np.abs(S[i])) / np.max(np.abs(A[i]))
    Ss = scale_rows_pow2(sp.csr_matrix(A))
    assert sp.issparse(Ss) and Ss.format == "csr"
    np.testing.assert_array_equal(Ss.toarray(), S)


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
