"""The one input validator (reference/data.py), pinned exactly: which inputs pass, which raise,
and that every message names the argument and the fix."""

from __future__ import annotations

import importlib
import math
import re
import tracemalloc
import warnings

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp

import reference
import reference as ref
from reference.arithmetic import gamma
from reference.data import (
    PSD_RTOL,
    augment,
    check_bool,
    check_csr,
    check_data,
    check_gram,
    check_int,
    check_real,
    check_simplex,
    check_sparse_data,
    drop_zero_rows,
    extend,
    reflect,
)
from reference.exact import margin_witness_value
from reference.gram import kernel_matrix
from reference.margins import lower_bound, margin
from tests.support.instances import GOOD_X, GOOD_Y, _cancelling_duplicates
from tests.support.margin import ETA, MP, raises_starting


DATA = importlib.import_module("reference.data")  # the module (the package re-exports function names)
X0 = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, -1.5], [3.0, 0.5, 0.0], [-1.0, -1.0, 0.0]])


def _point_segment(x, a, b) -> float:
    x, a, b = (np.asarray(v, float) for v in (x, a, b))
    t = min(max((x - a) @ (b - a) / ((b - a) @ (b - a)), 0.0), 1.0)
    return float(np.linalg.norm(a + t * (b - a) - x))


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


def _coo_1d():
    """A 1-D sparse array; skips where scipy has none (scipy 1.10 makes every sparse array 2-D)."""
    a = sp.coo_array(np.ones(3))
    if a.ndim != 1:
        pytest.skip(f"scipy {__import__('scipy').__version__} has no 1-D sparse arrays")
    return a


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
    (lambda: check_csr(_coo_1d()), "X must be 2-D of shape (n_points, n_features), got shape (3,)"),
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


_NOT_POSITIVE_REAL = [  # (value, id, check_real's message after "<name> ")
    ("0.5", "str", "must be a real number, got '0.5'"),
    (None, "None", "must be a real number, got None"),
    (True, "True", "must be a real number, got True"),
    (1j, "1j", "must be a real number, got 1j"),
    (10**400, "10^400", "must be finite, got " + repr(10**400)),
    (float("nan"), "nan", "must be finite, got nan"),
    (float("inf"), "inf", "must be finite, got inf"),
    (0.0, "0", "must lie in (0, inf), got 0.0"),
    (-1, "-1", "must lie in (0, inf), got -1"),
]


Y0 = np.array([1, -1, 1, -1])


def _csr(data, indices, indptr, shape):
    # built field by field: scipy's constructor would itself reject some of these
    M = sp.csr_matrix(shape)
    M.data, M.indices, M.indptr = np.asarray(data, float), np.asarray(indices), np.asarray(indptr)
    return M


def test_single_feature_is_accepted_and_zero_features_rejected():
    X, y = check_data(np.array([[2.0], [-1.0]]), [1, -1])
    assert X.shape == (2, 1) and y.tolist() == [1, -1]
    with pytest.raises(ValueError, match=r"X is empty \(shape \(2, 0\)\)"):
        check_data(np.zeros((2, 0)), [1, -1])
    with pytest.raises(ValueError, match=r"reshape a single feature with X\.reshape\(-1, 1\)"):
        check_data(np.array([1.0, 2.0]), [1, -1])


def test_messages_name_the_argument():
    with pytest.raises(ValueError, match=r"^X contains NaN or inf; remove or impute those entries$"):
        check_data(np.array([[np.nan]]), [1])
    with pytest.raises(ValueError, match=r"^X has 3 rows but y has 2 labels; pass one label per row of X$"):
        check_data(np.ones((3, 5)), [1, -1])
    with pytest.raises(ValueError, match=r"^y must contain only \+1 and -1, found \[0\.0, 2\.0\]; map your classes to \+1/-1$"):
        check_data(np.ones((4, 1)), [1, 0, 2, -1])
    with pytest.raises(ValueError, match=r"^X must be a numeric array"):
        check_data([["a"]], [1])
    with pytest.raises(ValueError, match=r"^y must be a numeric array"):
        check_data([[1.0]], ["a"])
    with pytest.raises(ValueError, match=r"^X must hold real numbers"):
        check_data(np.array([[mpmath.mpc(1, 1)]], dtype=object), [1])


def test_bad_labels_are_listed_sorted_and_capped_at_five():
    y = [3, 7, 5, 4, 6, 8, 9, -1]
    with pytest.raises(ValueError, match=r"found \[3\.0, 4\.0, 5\.0, 6\.0, 7\.0\];"):
        check_data(np.ones((8, 1)), y)
    with pytest.raises(ValueError, match=r"found \[-2\.0\];"):  # -2 is not a label
        check_data(np.ones((2, 1)), [1, -2])


def test_zero_rows_listed_and_capped_at_five():
    X = np.zeros((7, 2))
    X[6] = 1.0
    with pytest.raises(ValueError, match=r"^X has 6 zero rows \(first: \[0, 1, 2, 3, 4\]\): a zero point cannot be normalized and is never strictly separated; add a bias by augmentation \(rho=1\.0\), or drop them with reference\.drop_zero_rows\(X, y\)$"):
        check_data(X, [1] * 7)


def test_mpf_data_keeps_its_entries_float_data_is_converted():
    with mpmath.workdps(30):
        X = np.array([[mpmath.mpf(1) / 3]], dtype=object)
        Xo, _ = check_data(X, [1])
        assert Xo is X and Xo.dtype == object
    Xl, _ = check_data([[1, 2]], [1])
    assert isinstance(Xl, np.ndarray) and Xl.dtype == np.float64
    G = np.array([[mpmath.mpf(1)]], dtype=object)
    assert check_gram(G) is G
    Gl = check_gram([[1.0]])
    assert isinstance(Gl, np.ndarray) and Gl.dtype == np.float64


def test_check_gram_tolerances_are_absolute_and_scaled():
    # symmetry: atol 1e-10 * max(1, max|G|), rtol 0
    ok = np.array([[1.0, 0.5], [0.5 + 5e-11, 1.0]])
    assert check_gram(ok) is not None
    bad = np.array([[1.0, 0.5], [0.5 + 2e-10, 1.0]])
    with pytest.raises(ValueError, match=r"^G is not symmetric; a Gram matrix satisfies G == G\.T$"):
        check_gram(bad)
    big = np.array([[1e4, 0.5], [0.5 + 5e-7, 1e4]])  # 5e-7 < 1e-10 * 1e4 = 1e-6: accepted
    assert check_gram(big, unit_diagonal=False) is not None
    big_bad = np.array([[1e4, 0.5], [0.5 + 2e-6, 1e4]])
    with pytest.raises(ValueError, match="not symmetric"):
        check_gram(big_bad, unit_diagonal=False)
    # a large off-diagonal entry must not loosen the check through a relative tolerance
    rel = np.array([[4.0, 3.0], [3.0 + 1e-8, 4.0]])
    with pytest.raises(ValueError, match="not symmetric"):
        check_gram(rel, unit_diagonal=False)
    # unit diagonal: atol 1e-10, rtol 0
    assert check_gram(np.array([[1.0 + 5e-11]])) is not None
    with pytest.raises(ValueError, match=r"^G must have unit diagonal \(the normalized signed Gram matrix of RP14 Sec\. 3\); build it with reference\.gram\(X, y, kernel=\.\.\.\)$"):
        check_gram(np.array([[1.0 + 2e-10]]))


@pytest.mark.parametrize("psd", [False, True], ids=["pairwise-O(n^2)", "eigenvalues-O(n^3)"])
def test_check_gram_psd_threshold(psd):
    # smallest eigenvalue -lam (of G, and of its one 2 x 2 principal submatrix);
    # threshold -1e-8 * n * max(1, max|G|) in both tests
    lam = 1e-9
    G = np.array([[1.0, 1.0 + lam], [1.0 + lam, 1.0]])  # eigenvalues 2 + lam, -lam
    assert check_gram(G, psd=psd) is not None  # -1e-9 >= -2e-8
    G2 = np.array([[1.0, 1.0 + 1e-7], [1.0 + 1e-7, 1.0]])  # -1e-7 < -2e-8 * 1.0000001
    msg = (r"^G is not positive semidefinite \(smallest eigenvalue -1\.000e-07\); use a positive-definite kernel$"
           if psd else r"^G is not positive semidefinite: the 2 x 2 submatrix of rows 0, 1 has eigenvalue -1\.000e-07 ")
    with pytest.raises(ValueError, match=msg):
        check_gram(G2, psd=psd)
    # just past the threshold (n = 2: -2e-8 * scale): -2.5e-8 is rejected
    G4 = np.array([[1.0, 1.0 + 2.5e-8], [1.0 + 2.5e-8, 1.0]])
    with pytest.raises(ValueError, match="not positive semidefinite"):
        check_gram(G4, psd=psd)
    # the threshold grows with n: eigenvalue -3e-8 with n = 6 (threshold ~ -6e-8) is accepted
    G3 = np.eye(6)
    G3[0, 1] = G3[1, 0] = 1.0 + 3e-8
    assert check_gram(G3, psd=psd) is not None


def test_check_gram_full_psd_test_only_when_asked(monkeypatch):
    # I + c (J - I), c = -0.9: every |G_ij| <= 1 (every 2 x 2 submatrix is PSD) but the
    # eigenvalue 1 + 2c = -0.8 < 0.  Only the explicit O(n^3) test sees it.
    G = np.full((3, 3), -0.9)
    np.fill_diagonal(G, 1.0)
    with pytest.raises(ValueError, match=r"^G is not positive semidefinite \(smallest eigenvalue -8\.000e-01\)"):
        check_gram(G, psd=True)
    def no_eig(*a, **k):
        raise AssertionError("eigvalsh called by the default O(n^2) validation")
    monkeypatch.setattr(np.linalg, "eigvalsh", no_eig)
    assert check_gram(G) is not None  # the default does not decompose G


def test_check_gram_pairwise_names_the_rows():
    G = np.eye(4)
    G[2, 3] = G[3, 2] = -1.5  # |G_23| > 1
    with pytest.raises(ValueError, match=r"rows 2, 3 has eigenvalue -5\.000e-01"):
        check_gram(G)
    K = np.diag([1.0, 4.0, 1.0])
    K[0, 1] = K[1, 0] = 2.0  # = sqrt(K_00 K_11): PSD, accepted without unit diagonal
    assert check_gram(K, unit_diagonal=False) is not None
    K[0, 1] = K[1, 0] = 2.1
    with pytest.raises(ValueError, match="rows 0, 1"):
        check_gram(K, unit_diagonal=False)


def test_check_gram_pair_bound_never_passes_what_the_full_pair_test_refuses():
    """check_gram skips its O(n^2) pairwise test when an O(n) bound proves every 2 x 2 principal
    submatrix passes it (data._pairs_pass_by_bound).  The bound must never pass a matrix the full
    test (data._check_pairs) refuses: random symmetric matrices with diagonals in [0.5, 2] and
    off-diagonal entries up to and past sqrt(G_ii G_jj), at thresholds from 0 to -1e-2, and the
    edge |G_ij| = 1 + t of a unit diagonal.  A Gram matrix of reference.gram passes by the bound
    (the fast path is the common one), and a matrix the bound cannot prove still goes through
    the full test (accepted or refused as before)."""
    from reference.data import _check_pairs, _pairs_pass_by_bound

    rng = np.random.default_rng(11)
    proved = 0
    for trial in range(400):
        n = int(rng.integers(1, 7))
        d = rng.uniform(0.5, 2.0, n) if trial % 2 else np.ones(n)
        B = rng.uniform(-1, 1, (n, n)) * np.sqrt(np.outer(d, d)) * rng.uniform(0.9, 1.1)
        G = (B + B.T) / 2
        np.fill_diagonal(G, d)
        tol = -float(rng.choice([0.0, 1e-12, 1e-8, 1e-4, 1e-2]))
        if _pairs_pass_by_bound(G, tol, float(np.max(np.abs(G)))):
            proved += 1
            _check_pairs(G, "G", tol)  # must not raise
    assert proved > 20
    for t in (-1e-9, 0.0, 1e-9, 1e-7):  # unit diagonal, |G_01| = 1 + t: the bound's edge
        G = np.array([[1.0, 1.0 + t], [1.0 + t, 1.0]])
        for tol in (-2e-8, -1e-9, 0.0):
            if _pairs_pass_by_bound(G, tol, float(np.max(np.abs(G)))):
                _check_pairs(G, "G", tol)
    X = rng.normal(size=(50, 4))
    G = reference.gram(X, np.where(X[:, 0] > 0, 1, -1))
    assert _pairs_pass_by_bound(G, -1e-8 * 50, float(np.max(np.abs(G))))
    K = np.diag([1.0, 4.0, 1.0])
    K[0, 1] = K[1, 0] = 2.0  # PSD, but the bound (2 min/2 - (D + M) < 0) cannot prove it: the full test accepts
    assert not _pairs_pass_by_bound(K, -1e-8 * 3, 4.0) and check_gram(K, unit_diagonal=False) is not None


def test_check_gram_symmetry_is_tested_on_every_pair_across_tiles(monkeypatch):
    """The symmetry test reads G by tiles of the upper triangle (data._SYM_TILE, here 3): an
    asymmetry in any tile, on either side of the diagonal, is refused, one within the tolerance
    is not."""
    import reference.data as rd

    monkeypatch.setattr(rd, "_SYM_TILE", 3)
    for i, j in [(0, 1), (1, 0), (2, 3), (7, 1), (6, 6), (0, 7)]:
        G = np.eye(8)
        G[i, j] += 2e-10
        if i == j:
            continue  # a diagonal entry is symmetric with itself
        with pytest.raises(ValueError, match="not symmetric"):
            check_gram(G)
        G[i, j] = 5e-11
        assert check_gram(G) is not None
    with pytest.raises(ValueError, match=r"K_11 = -1\.000e\+00 < 0"):
        check_gram(np.diag([1.0, -1.0]), unit_diagonal=False, name="K")


def test_check_simplex_boundaries():
    q = check_simplex(np.array([0.0, 1.0]), 2)  # a zero entry is in the simplex
    assert q.tolist() == [0.0, 1.0]
    assert check_simplex(np.array([0.5, 0.5 + 9e-10]), 2) is not None  # |sum - 1| <= 1e-9
    with pytest.raises(ValueError, match=r"^q must lie in the simplex"):
        check_simplex(np.array([0.5, 0.5 + 2e-9]), 2)
    with pytest.raises(ValueError, match=r"^q must be a vector of length 3 \(one entry per point\), got shape \(2,\)$"):
        check_simplex(np.array([0.5, 0.5]), 3)


def test_check_real_messages_render_the_interval():
    cases = [
        (dict(low=0, high=1), 2.0, r"^eps must lie in \(0, 1\], got 2\.0$"),
        (dict(low=0, high=1, high_open=True), 1.0, r"^eps must lie in \(0, 1\), got 1\.0$"),
        (dict(low=0, low_open=False), -1.0, r"^eps must lie in \[0, inf\), got -1\.0$"),
        (dict(high=1), 2.0, r"^eps must lie in \(-inf, 1\], got 2\.0$"),
        (dict(low=1, hint="shrink by gamma > 1"), 1.0, r"^eps must lie in \(1, inf\), got 1\.0; shrink by gamma > 1$"),
    ]
    for kw, value, pattern in cases:
        with pytest.raises(ValueError, match=pattern):
            check_real("eps", value, **kw)
    assert check_real("eps", 1.0, low=0, high=1, high_open=False) == 1.0
    assert check_real("eps", 0.0, low=0, low_open=False) == 0.0
    with pytest.raises(ValueError, match=r"^eps must be finite, got inf$"):
        check_real("eps", float("inf"))
    with pytest.raises(ValueError, match=r"^eps must be a real number, got 'x'$"):
        check_real("eps", "x")


def test_reflect_multiplies_rows_by_labels():
    X = np.array([[2.0, -4.0], [3.0, 0.5]])
    assert reflect(X, np.array([-1, 1])).tolist() == [[-2.0, 4.0], [3.0, 0.5]]


def test_extend_puts_label_times_delta_on_the_diagonal():
    from reference.data import extend

    Z = np.array([[1.0], [2.0]])
    assert extend(Z, np.array([-1, 1]), 0.5).tolist() == [[1.0, -0.5, 0.0], [2.0, 0.0, 0.5]]


@pytest.mark.parametrize(
    "X, y, match",
    [
        (np.array([[np.nan, 1.0], [1.0, 1.0]]), GOOD_Y, "NaN or inf"),
        (np.array([[np.inf, 1.0], [1.0, 1.0]]), GOOD_Y, "NaN or inf"),
        (np.zeros((0, 2)), np.zeros(0), "empty"),
        (np.array([1.0, 2.0]), GOOD_Y, "2-D"),
        (GOOD_X, np.array([1, -1, 1]), "2 rows but y has 3"),
        (GOOD_X, np.array([1, 0]), r"\+1 and -1"),
        (GOOD_X, np.array([1, 2]), r"\+1 and -1"),
        (GOOD_X, np.array([[1, -1]]), "1-D"),
        (np.array([[1.0, 0.0], [0.0, 0.0]]), GOOD_Y, "zero rows"),
        (np.array([["a", "b"]]), np.array([1]), "numeric"),
    ],
)
def test_check_data_rejects(X, y, match):
    with pytest.raises(ValueError, match=match):
        check_data(X, y)


def test_check_data_accepts_and_allows_zero_rows_on_request():
    X, y = check_data(GOOD_X, [1.0, -1.0])
    assert y.dtype == np.int64 and y.tolist() == [1, -1]
    X0, _ = check_data(np.array([[0.0, 0.0]]), [1], nonzero=False)
    assert X0.shape == (1, 2)


@pytest.mark.parametrize(
    "G, match",
    [
        (np.ones((2, 3)), "square"),
        (np.zeros((0, 0)), "square|empty"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), "NaN"),
        (np.array([[1.0, 0.5], [0.4, 1.0]]), "symmetric"),
        (np.array([[2.0, 0.0], [0.0, 1.0]]), "unit diagonal"),
        (np.array([[1.0, 2.0], [2.0, 1.0]]), "positive semidefinite"),
    ],
)
def test_check_gram_rejects(G, match):
    with pytest.raises(ValueError, match=match):
        check_gram(G)


def test_check_gram_accepts_psd_without_unit_diagonal_when_asked():
    K = np.array([[4.0, 2.0], [2.0, 1.0]])  # rank one, PSD
    assert check_gram(K, unit_diagonal=False) is not None
    with pytest.raises(ValueError, match="unit diagonal"):
        check_gram(K)


@pytest.mark.parametrize("q", [[0.5, 0.6], [-0.1, 1.1], [1.0], [np.nan, 1.0]])
def test_check_simplex_rejects(q):
    with pytest.raises(ValueError, match="q"):
        check_simplex(np.array(q), 2)


def test_check_real_and_int():
    assert check_real("eps", 0.5, low=0, high=1) == 0.5
    assert check_real("eps", 1.0, low=0, high=1) == 1.0
    for bad in (0.0, 1.5, float("nan"), "x", True):
        with pytest.raises(ValueError, match="eps"):
            check_real("eps", bad, low=0, high=1)
    with pytest.raises(ValueError, match=r"\[0"):
        check_real("c", -1, low=0, low_open=False)
    assert check_int("max_iter", 0) == 0
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="max_iter"):
            check_int("max_iter", bad)


def test_augment_reflect_extend():
    X = np.array([[1.0, 2.0], [3.0, 4.0]])
    y = np.array([1, -1])
    A = augment(X, 0.5)
    assert A.tolist() == [[1.0, 2.0, 0.5], [3.0, 4.0, 0.5]]
    Z = reflect(A, y)
    assert Z.tolist() == [[1.0, 2.0, 0.5], [-3.0, -4.0, -0.5]]
    E = extend(Z, y, 2.0)
    assert E.tolist() == [[1.0, 2.0, 0.5, 2.0, 0.0], [-3.0, -4.0, -0.5, 0.0, -2.0]]


def test_gram_linear_is_normalized_reflected_inner_product():
    X = np.array([[3.0, 4.0], [1.0, 0.0], [0.0, 2.0]])
    y = np.array([1, -1, 1])
    G = ref.gram(X, y)
    Z = reflect(X / np.linalg.norm(X, axis=1, keepdims=True), y)
    assert np.allclose(G, Z @ Z.T, atol=1e-15)
    assert G[0, 1] == pytest.approx(-0.6) and G[0, 2] == pytest.approx(0.8) and G[1, 2] == 0.0
    assert np.all(np.diag(G) == 1.0)
    K = ref.signed_gram(X, y)
    assert K.tolist() == [[25.0, -3.0, 8.0], [-3.0, 1.0, 0.0], [8.0, 0.0, 4.0]]


def test_check_simplex_names_the_argument_and_keeps_mpf():
    with raises_starting("q must lie in the simplex"):
        check_simplex(np.array([0.5, 0.6]), 2)
    with raises_starting("p0 must be a numeric array"):
        check_simplex(np.array(["a", "b"]), 2, name="p0")
    with raises_starting("q must be a vector of length 2 (one entry per point), got shape (3,)"):
        check_simplex([0.2, 0.3, 0.5], 2)
    q = check_simplex([0.25, 0.75], 2)
    assert isinstance(q, np.ndarray) and q.dtype == np.float64 and q.tolist() == [0.25, 0.75]
    with MP.context():
        qm = MP.array([mpmath.mpf(1) / 3, mpmath.mpf(2) / 3])
    assert check_simplex(qm, 2) is qm


def test_augment_and_extend_do_not_truncate_on_integer_data():
    Xi = np.array([[1, 2], [3, 4]])
    assert augment(Xi, 0.5).tolist() == [[1.0, 2.0, 0.5], [3.0, 4.0, 0.5]]
    y = np.array([1, -1])
    assert extend(Xi, y, 0.5).tolist() == [[1.0, 2.0, 0.5, 0.0], [3.0, 4.0, 0.0, -0.5]]


def test_augment_reflect_extend_keep_mpf_exactly():
    with MP.context():
        third = mpmath.mpf(1) / 3
        X = MP.array([[1.0, 2.0], [3.0, 4.0]])
        A = augment(X, third)
        assert A.dtype == object and A[1, 2] is third
        Z = reflect(A, np.array([1, -1]))
        E = extend(Z, np.array([1, -1]), third)
        assert E.dtype == object and E.shape == (2, 5)
        assert E[0, 3] == third and E[1, 4] == -third and isinstance(E[1, 4], mpmath.mpf)
        assert E[0, 4] == 0 and E[1, 3] == 0


def test_pt11_gamma_d_on_augmented_data():
    """gamma_d (PT11 eq. (1)) is the margin of the augmented, reflected data, and
    gamma_d <= gamma <= (R / rho) gamma_d with gamma = half the distance between the class hulls."""
    X = np.array([[0.0, 1.0], [1.0, 2.0], [3.0, -1.0], [4.0, 0.5]])
    y = np.array([1, 1, -1, -1])
    (a, b), (c, d) = X[:2], X[2:]  # two disjoint segments: distance = min endpoint-to-segment
    gamma = min(_point_segment(a, c, d), _point_segment(b, c, d), _point_segment(c, a, b), _point_segment(d, a, b)) / 2
    for rho in (0.5, 1.0, 4.0):
        Xa = reference.augment(X, rho)
        m = margin(reference.signed_gram(Xa, y))
        R = float(np.max(np.linalg.norm(Xa, axis=1)))
        assert m.feasible is True
        assert m.upper >= m.lower > 0
        assert m.lower <= gamma + 1e-12 and gamma <= R / rho * m.upper + 1e-12


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


def test_a_list_of_mpf_or_fractions_is_converted_like_an_object_array():
    """A nested list holding mpf (or None) becomes an object array inside _as_float_matrix and takes the
    object-array path: mpf -> float64, None refused with the argument named."""
    X, y = check_data([[mpmath.mpf(1), 0.5], [mpmath.mpf(-3), 2]], [mpmath.mpf(1), -1])
    assert X.dtype == np.float64 and X.tolist() == [[1.0, 0.5], [-3.0, 2.0]]
    assert y.dtype == np.int64 and y.tolist() == [1, -1]
    with pytest.raises(ValueError) as err:
        check_data([[1.0, None]], [1])
    assert str(err.value) == "X must hold real numbers, found None (NoneType); convert it first"


@pytest.mark.parametrize(
    "X",
    [
        [[1.0], [1.0, 2.0]],  # ragged: np.asarray itself refuses it
        np.zeros((2, 1), dtype=[("a", np.float64), ("b", np.float64)]),  # two-field records: no float64 cast
    ],
    ids=["ragged", "records"],
)
def test_what_numpy_cannot_convert_is_a_value_error_naming_x(X):
    with pytest.raises(ValueError) as err:
        check_data(X, [1, 1])
    assert re.fullmatch(r"X must be a numeric array; could not convert it \(.+\)", str(err.value), flags=re.S)


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint16, np.float32])
def test_integer_and_float32_data_come_back_float64(dtype):
    """_as_float_matrix converts to float64 (its docstring): check_data's X and check_gram's G are float64."""
    X, _ = check_data(np.array([[3, 1], [0, 2]], dtype=dtype), [1, -1])
    assert X.dtype == np.float64 and X[0, 0] == 3.0 and X[1, 1] == 2.0
    G = check_gram(np.array([[1, 0], [0, 1]], dtype=dtype))
    assert G.dtype == np.float64 and G.tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_numpy_variable_width_strings_are_refused_like_other_strings():
    """Regression: numpy 2's StringDType (kind 'T') was converted, so X = ["1.5"] became 1.5 -- the
    docstring refuses strings ('1' would become 1.0)."""
    if not hasattr(getattr(np, "dtypes", None), "StringDType"):
        pytest.skip("numpy < 2 has no StringDType")
    S = np.array([["1.5"], ["2"]], dtype=np.dtypes.StringDType())
    with pytest.raises(ValueError) as err:
        check_data(S, [1, -1])
    assert str(err.value) == "X must be a numeric array of real numbers, got strings (dtype StringDType()); pass a real (float) array"
    with pytest.raises(ValueError) as err:
        check_data([[1.0], [2.0]], S.ravel())
    assert str(err.value) == "y must be a numeric array of real numbers, got strings (dtype StringDType()); map the labels to +1/-1 integers"


def test_the_dense_limit_is_inclusive(monkeypatch):
    """MAX_DENSE_ENTRIES is the *largest* n * d that check_data densifies: n * d equal to it is accepted."""
    monkeypatch.setattr(DATA, "MAX_DENSE_ENTRIES", 6)
    X, y = check_data(sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, -1.0, 0.0]])), [1, -1])  # 2 x 3 = 6
    assert X.tolist() == [[1.0, 0.0, 2.0], [0.0, -1.0, 0.0]] and y.tolist() == [1, -1]
    with pytest.raises(ValueError, match=r"^X is sparse of shape \(1, 7\): a dense copy \(7 entries\) is too large"):
        check_data(sp.csr_matrix(np.ones((1, 7))), [1])


def test_check_csr_refuses_non_numeric_stored_data():
    """A CSR whose data array holds objects or strings (scipy builds none, but .data can be assigned)."""
    for data, dtype in [(np.array([1.0, 2.0], dtype=object), "object"), (np.array(["a", "b"]), "<U1")]:
        X = sp.csr_matrix(np.eye(2))
        X.data = data
        with pytest.raises(ValueError) as err:
            check_csr(X)
        assert str(err.value) == (
            f"X must be a numeric sparse matrix, got dtype {dtype}; store real numbers in it (e.g. X.astype(np.float64))"
        )


def test_check_sparse_data_accepts_mpf_entries_that_are_floats():
    """mpf entries equal to float64 numbers are kept (as float64) in the canonical CSR."""
    Xm = np.array([[mpmath.mpf(1), mpmath.mpf("0.5")], [mpmath.mpf(0), mpmath.mpf(-3)]], dtype=object)
    C, y = check_sparse_data(Xm, [1, -1])
    assert sp.isspmatrix_csr(C) and C.dtype == np.float64
    assert C.toarray().tolist() == [[1.0, 0.5], [0.0, -3.0]] and C.nnz == 3 and y.tolist() == [1, -1]
    assert C.indices.tolist() == [0, 1, 1] and C.indptr.tolist() == [0, 2, 3]


def test_negative_diagonal_names_the_first_negative_entry():
    """G_00 = 0 is allowed (>= 0); the first negative diagonal entry is G_11, and that is the one named."""
    G = np.array([[0.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 0.5]])
    with pytest.raises(ValueError) as err:
        check_gram(G, unit_diagonal=False)
    assert str(err.value) == "G is not positive semidefinite (G_11 = -1.000e+00 < 0); use a positive-definite kernel"


def test_pairwise_allowance_is_inclusive():
    """[[0, b], [b, 0]] has smallest eigenvalue -b; with n = 2 and max|G| < 1 the allowance is
    -PSD_RTOL * 2 (both computed exactly): b = 2 PSD_RTOL is accepted, the next double is refused."""
    b = PSD_RTOL * 2
    G = np.array([[0.0, b], [b, 0.0]])
    assert check_gram(G, unit_diagonal=False) is not None
    b1 = np.nextafter(b, 1.0)
    with pytest.raises(ValueError, match=r"^G is not positive semidefinite: the 2 x 2 submatrix of rows 0, 1 has eigenvalue"):
        check_gram(np.array([[0.0, b1], [b1, 0.0]]), unit_diagonal=False)


def test_full_psd_allowance_is_inclusive():
    """psd=True: diag(-t, 1) has eigenvalues exactly -t and 1 (a diagonal matrix); t = 2 PSD_RTOL is
    the allowance for n = 2, max|G| = 1: accepted; the next double is refused."""
    t = PSD_RTOL * 2
    G = np.diag([-t, 1.0])
    assert check_gram(G, unit_diagonal=False, psd=True) is G
    with pytest.raises(ValueError, match=r"^G is not positive semidefinite \(smallest eigenvalue -2\.000e-08\)"):
        check_gram(np.diag([-np.nextafter(t, 1.0), 1.0]), unit_diagonal=False, psd=True)


def test_pairwise_check_needs_memory_for_one_row_block_only():
    """_PAIR_BLOCK's promise: the O(n^2) pairwise test works on _PAIR_BLOCK rows at a time, so its
    temporaries are a few (_PAIR_BLOCK x n) arrays -- never the n x n matrix at once."""
    n = 3 * DATA._PAIR_BLOCK
    G = np.eye(n)
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        DATA._check_pairs(G, "G", -PSD_RTOL * n)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        if started:
            tracemalloc.stop()
    block = DATA._PAIR_BLOCK * n * 8  # bytes of one (_PAIR_BLOCK x n) float64 temporary
    assert peak <= 8 * block  # an n x n temporary alone is 3 blocks; the computation needs several at once


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64])
def test_reflect_integer_points_do_not_wrap_around(sparse, dtype):
    """y_i x_i for x = (-128, 1) (int8's minimum) and y = -1 is (128, -1): the reflected points are
    float64 (as augment / extend give for integer input); integer arithmetic would wrap -(-128) to -128."""
    X = np.array([[-128, 1], [3, 0]], dtype=dtype)
    y = np.array([-1, 1], dtype=dtype)
    Z = reflect(sp.csr_matrix(X) if sparse else X, y)
    Zd = Z.toarray() if sparse else Z
    assert Zd.dtype == np.float64 and Zd.tolist() == [[128.0, -1.0], [3.0, 0.0]]


def test_reflect_keeps_mpf_points_exact():
    """An object (mpf) X stays object: y_i x_i exactly, no rounding to float64."""
    third = mpmath.mpf(1) / 3
    Z = reflect(np.array([[third, mpmath.mpf(2)]], dtype=object), np.array([-1]))
    assert Z.dtype == object and Z[0, 0] == -third and Z[0, 1] == -2


def test_extend_of_float_points_is_float64():
    """Z float64 -> float64 (the object dtype is kept for mpf Z only)."""
    E = extend(np.array([[1.0], [2.0]]), np.array([1, -1]), 0.5)
    assert E.dtype == np.float64 and E.tolist() == [[1.0, 0.5, 0.0], [2.0, 0.0, -0.5]]


@pytest.mark.parametrize("sparse", [False, True])
def test_extend_accepts_labels_held_as_mpf(sparse):
    """Labels equal to +-1 pass extend's check whatever their type (mpf from an exact run here); the CSR
    path gives the same [z_k, l_k Delta e_k] as the dense one."""
    y = np.array([mpmath.mpf(1), mpmath.mpf(-1)], dtype=object)
    Z = np.array([[1.0], [2.0]])
    E = extend(sp.csr_matrix(Z) if sparse else Z, y, 0.5)
    assert sp.issparse(E) is sparse
    assert (E.toarray() if sparse else E).tolist() == [[1.0, 0.5, 0.0], [2.0, 0.0, -0.5]]


def test_extend_keeps_an_exact_delta_exactly():
    """With mpf Z (exact mode) E_kk = l_k Delta exactly: an integer Delta = 2^53 + 1 (not a double) stays
    2^53 + 1, it is not rounded through float division."""
    D = 2**53 + 1
    Z = np.array([[mpmath.mpf(1)], [mpmath.mpf(-2)]], dtype=object)
    E = extend(Z, np.array([1, -1]), D)
    assert E.dtype == object and E[0, 1] == D and E[1, 2] == -D and E[0, 2] == 0 and E[1, 1] == 0


@pytest.mark.parametrize("value, message", [(v, m) for v, _, m in _NOT_POSITIVE_REAL], ids=[i for _, i, _ in _NOT_POSITIVE_REAL])
@pytest.mark.parametrize("sparse", [False, True])
def test_augment_and_extend_refuse_what_is_not_a_positive_real(value, message, sparse):
    """Regression: extend accepted Delta = "0.5" (float() parsed it) and True, and raised TypeError /
    OverflowError for None / 10**400; augment checked nothing: rho = None gave a column of NaN,
    "0.5" and -1 were used as given.  Both now go through check_real, the one validator."""
    X = sp.csr_matrix(np.eye(2)) if sparse else np.eye(2)
    with pytest.raises(ValueError) as err:
        reference.augment(X, value)
    assert str(err.value) == f"rho {message}; pass e.g. rho=1.0 (PT11 Sec. 2: rho > 0)"
    with pytest.raises(ValueError) as err:
        extend(X, np.array([1, -1]), value)
    assert str(err.value) == f"Delta {message}; pass e.g. Delta=1.0 (PT11 Sec. 5: Delta > 0)"


@pytest.mark.parametrize("value", [10**400, -(10**400)], ids=["10^400", "-10^400"])
def test_check_real_treats_an_int_beyond_float64_as_not_finite(value):
    """Regression: float(10**400) raised OverflowError out of check_real."""
    with pytest.raises(ValueError) as err:
        check_real("rho", value, low=0, hint="pass e.g. rho=1.0")
    assert str(err.value) == f"rho must be finite, got {value!r}; pass e.g. rho=1.0"


def test_no_claim_when_the_quadratic_form_is_negative_and_its_allowance_overflows():
    """K = 2^-1072 [[4, 3, 1], [3, 1, 0], [1, 0, 4]] is indefinite (det < 0 in the leading 2 x 2) but
    tiny, so check_gram's absolute PSD tolerance accepts it; alpha = (s, -s, 2^-1074) with
    s = 0.99^(1/2) 2^513.5 (not scalable: its small entry would vanish).  On 4^-k K, K alpha > 0 in
    every row and finite, alpha^T K alpha is finite and NEGATIVE (exactly too), while |alpha| .
    |K alpha| overflows, so the allowance eQ is inf: ||alpha||_K is not certified positive and the
    docstring's -inf is the only answer (any finite bound would claim a quotient that does not
    exist; with the check on eQ dropped the bound was -2^-1074)."""
    K = np.ldexp(np.array([[4.0, 3.0, 1.0], [3.0, 1.0, 0.0], [1.0, 0.0, 4.0]]), -1072)
    check_gram(K, unit_diagonal=False, psd=True)  # an accepted input
    s = math.sqrt(0.99) * 2.0**513.5
    alpha = np.array([s, -s, ETA])
    N, Q = margin_witness_value(K, alpha)
    assert N > 0 > Q
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lower_bound(K, alpha) == -math.inf


def test_check_csr_refuses_indptr_ending_before_nnz():
    """scipy accepts a CSR whose indptr ends before len(data) (trailing storage); its rows then hold
    fewer entries than data, so check_csr must refuse it even though len(indices) == len(data)
    (kills data.check_csr_32, `and` for `or`)."""
    import pytest
    import scipy.sparse as sp

    from reference.data import check_csr

    X = sp.csr_matrix((np.array([1.0]), np.array([0]), np.array([0, 1])), shape=(1, 2))
    X.data, X.indices = np.array([1.0, 2.0]), np.array([0, 1], dtype=X.indices.dtype)  # storage past indptr[-1]
    assert len(X.indices) == len(X.data) == 2 and X.indptr[-1] == 1
    with pytest.raises(ValueError, match="not a consistent CSR matrix.*end at nnz"):
        check_csr(X)


def test_extend_validates_labels_and_delta():
    """extend is public: labels other than +-1 and Delta <= 0 / not finite are refused, not turned into a
    wrong extended space (E-entries l_k Delta)."""
    import pytest

    from reference.data import extend

    Z = np.array([[1.0, 2.0], [-3.0, 1.0]])
    np.testing.assert_array_equal(extend(Z, np.array([1, -1]), 0.5), [[1.0, 2.0, 0.5, 0.0], [-3.0, 1.0, 0.0, -0.5]])
    for y in (np.array([1, 2]), np.array([1, 0]), np.array([1]), np.array([[1, -1]])):
        with pytest.raises(ValueError, match="y must hold the 2 labels l_k of Z's rows, each -1 or \\+1"):
            extend(Z, y, 0.5)
    for Delta in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match=r"^Delta must (lie in \(0, inf\)|be finite), got "):
            extend(Z, np.array([1, -1]), Delta)


def test_csr_duplicates_are_summed_exactly():
    X, _ = _cancelling_duplicates()
    from reference.data import check_csr

    C = check_csr(X)
    assert C.toarray().tolist() == [[2.0**-60, -(2.0**-90)], [-(2.0**30), 1.0]]
    assert C.has_canonical_format


def test_check_csr_canonical_form_and_input_untouched():
    M = sp.csr_matrix((np.array([2.0, 0.0, 1.0, 1.0]), np.array([2, 0, 0, 0]), np.array([0, 3, 4])), shape=(2, 3))
    before = (M.data.copy(), M.indices.copy())
    C = check_csr(M)
    assert C.indices.tolist() == [0, 2, 0] and C.data.tolist() == [1.0, 2.0, 1.0]  # sorted, zero dropped
    assert C.indices.dtype == np.int64 and C.indptr.dtype == np.int64 and C.data.dtype == np.float64
    assert np.array_equal(M.data, before[0]) and np.array_equal(M.indices, before[1])
    D = sp.csr_matrix(M.toarray())
    Cd = check_csr(D)
    assert (Cd.data.tolist(), Cd.indices.tolist(), Cd.indptr.tolist()) == (C.data.tolist(), C.indices.tolist(), C.indptr.tolist())
    # duplicates are summed, as toarray() does
    dup = sp.csr_matrix((np.array([1.0, 2.0]), np.array([1, 1]), np.array([0, 2])), shape=(1, 2))
    assert check_csr(dup).toarray().tolist() == [[0.0, 3.0]]


@pytest.mark.parametrize(
    "M, match",
    [
        (_csr([np.nan], [0], [0, 1], (1, 2)), "NaN or inf"),
        (_csr([np.inf], [1], [0, 1], (1, 2)), "NaN or inf"),
        (_csr([1.0], [2], [0, 1], (1, 2)), r"column index out of range \[0, 2\)"),
        (_csr([1.0], [-1], [0, 1], (1, 2)), "column index out of range"),
        (_csr([1.0], [0], [0, 1, 0], (2, 2)), "not a consistent CSR"),
        (_csr([1.0], [0], [1, 1], (1, 2)), "not a consistent CSR"),
        (_csr([1.0], [0], [0, 1], (2, 2)), "not a consistent CSR"),
        (sp.csr_matrix((0, 3)), "X is empty"),
        (sp.csr_matrix(np.array([[1 + 1j, 0]])), "real numbers"),
        (sp.coo_matrix((np.array([1e308, 1e308]), (np.array([0, 0]), np.array([0, 0]))), shape=(1, 1)), "NaN or inf"),  # summed duplicates overflow
    ],
)
def test_check_csr_rejects(M, match):
    with pytest.raises(ValueError, match=match):
        check_csr(M)


def test_sparse_and_dense_inputs_fail_alike():
    for X, y, match in [
        (np.array([[np.nan, 1.0]]), [1], "NaN or inf"),
        (X0, Y0[:3], "4 rows but y has 3 labels"),
        (X0, [1, 2, 1, -1], r"only \+1 and -1"),
        (np.array([[0.0, 0.0], [1.0, 0.0]]), [1, -1], "X has 1 zero rows"),
    ]:
        for Xi in (X, sp.csr_matrix(X)):
            with pytest.raises(ValueError, match=match):
                check_data(Xi, y)
            with pytest.raises(ValueError, match=match):
                check_sparse_data(Xi, y)


def test_check_sparse_data_same_csr_from_dense_and_sparse():
    A, ya = check_sparse_data(X0, Y0)
    B, yb = check_sparse_data(sp.csr_matrix(X0), Y0)
    for f in ("data", "indices", "indptr"):
        assert getattr(A, f).tolist() == getattr(B, f).tolist()
    assert ya.tolist() == yb.tolist()


def test_transforms_and_kernel_matrix_accept_csr():
    from reference.data import augment, drop_zero_rows, extend, reflect

    S = sp.csr_matrix(X0)
    assert augment(S, 2.0).toarray().tolist() == augment(X0, 2.0).tolist()
    assert reflect(S, Y0).toarray().tolist() == reflect(X0, Y0).tolist()
    E = extend(reflect(augment(S, 1.0), Y0), Y0, 0.5)
    assert sp.issparse(E) and E.nnz == sp.csr_matrix(X0).nnz + 2 * 4  # rho column + one Delta per point
    assert E.toarray().tolist() == extend(reflect(augment(X0, 1.0), Y0), Y0, 0.5).tolist()
    from reference.gram import kernel_matrix

    for k in ("linear", "polynomial", "gaussian"):
        assert kernel_matrix(S, S, k).tobytes() == kernel_matrix(X0, X0, k).tobytes()
    Z = np.array([[0.0, 1.0], [0.0, 0.0], [2.0, 0.0]])
    Xd, yd, kd = drop_zero_rows(sp.csr_matrix(Z), [1, -1, 1])
    assert sp.issparse(Xd) and Xd.toarray().tolist() == [[0.0, 1.0], [2.0, 0.0]] and kd.tolist() == [0, 2]
