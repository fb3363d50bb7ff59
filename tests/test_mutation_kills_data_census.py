"""Tests written against the last mutmut survivors of reference/data.py (issue 13, session 7; the
verdicts are in benchmarks/mutation/census_survivors_data.md).  Each kill was checked by hand: the
mutated function fails the test, the original passes.

Expected values are worked by hand (labels +-1 times small dyadic numbers, exact in float64) or are
the documented boundaries themselves (PSD_RTOL, MAX_DENSE_ENTRIES, _PAIR_BLOCK); none is read off
the library's own output.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp

import reference
from reference.data import (
    PSD_RTOL,
    check_csr,
    check_data,
    check_gram,
    check_real,
    check_sparse_data,
    extend,
    reflect,
)

DATA = importlib.import_module("reference.data")  # the module (the package re-exports function names)


# -- _as_float_matrix: lists of objects, inputs numpy cannot convert -------------------------------


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
    S = np.array([["1.5"], ["2"]], dtype=np.dtypes.StringDType())
    with pytest.raises(ValueError) as err:
        check_data(S, [1, -1])
    assert str(err.value) == "X must be a numeric array of real numbers, got strings (dtype StringDType()); pass a real (float) array"
    with pytest.raises(ValueError) as err:
        check_data([[1.0], [2.0]], S.ravel())
    assert str(err.value) == "y must be a numeric array of real numbers, got strings (dtype StringDType()); map the labels to +1/-1 integers"


# -- check_data / check_csr ---------------------------------------------------------------------------


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


# -- check_sparse_data: dense mpf X ------------------------------------------------------------------


def test_check_sparse_data_accepts_mpf_entries_that_are_floats():
    """mpf entries equal to float64 numbers are kept (as float64) in the canonical CSR."""
    Xm = np.array([[mpmath.mpf(1), mpmath.mpf("0.5")], [mpmath.mpf(0), mpmath.mpf(-3)]], dtype=object)
    C, y = check_sparse_data(Xm, [1, -1])
    assert sp.isspmatrix_csr(C) and C.dtype == np.float64
    assert C.toarray().tolist() == [[1.0, 0.5], [0.0, -3.0]] and C.nnz == 3 and y.tolist() == [1, -1]
    assert C.indices.tolist() == [0, 1, 1] and C.indptr.tolist() == [0, 2, 3]


# -- check_gram: boundaries of the round-off allowances ---------------------------------------------


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


# -- readers ------------------------------------------------------------------------------------------


def test_load_libsvm_reads_utf8_under_a_simulated_ascii_locale(tmp_path, monkeypatch):
    """In-process (fast) twin of the next test: an ``open`` that, like the builtin under an ASCII locale,
    decodes as ASCII when no encoding is given; the reader names UTF-8, so the UTF-8 comment is fine."""
    import builtins

    def ascii_locale_open(file, mode="r", *args, encoding=None, **kwargs):  # (binary mode takes no encoding)
        return builtins.open(file, mode, *args, encoding=encoding or (None if "b" in mode else "ascii"), **kwargs)

    path = tmp_path / "c.txt"
    path.write_text("+1 1:0.5 # caf\u00e9\n-1 2:2\n", encoding="utf-8")
    monkeypatch.setattr(DATA, "open", ascii_locale_open, raising=False)
    X, y = reference.load_libsvm(path)
    assert X.toarray().tolist() == [[0.5, 0.0], [0.0, 2.0]] and y.tolist() == [1, -1]


def test_load_libsvm_reads_utf8_whatever_the_locale(tmp_path):
    """The file is read as UTF-8 (comments may hold any text) even where the locale's encoding is ASCII."""
    path = tmp_path / "c.txt"
    path.write_text("+1 1:0.5 # caf\u00e9\n-1 2:2 # na\u00efve\n", encoding="utf-8")
    X, y = reference.load_libsvm(path)  # in this process too (mutmut maps tests to functions in-process)
    assert X.toarray().tolist() == [[0.5, 0.0], [0.0, 2.0]] and y.tolist() == [1, -1]
    pkg = str(Path(reference.__file__).resolve().parents[1])
    env = dict(os.environ, LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0")
    env["PYTHONPATH"] = pkg + os.pathsep + env.get("PYTHONPATH", "")
    code = (
        "import locale, sys, reference; X, y = reference.load_libsvm(sys.argv[1]); "
        "print(locale.getpreferredencoding(False)); print(X.toarray().tolist(), y.tolist())"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    encoding, arrays = out.stdout.splitlines()
    if encoding.lower().replace("-", "") == "utf8":
        pytest.skip("no non-UTF-8 locale on this platform")
    assert arrays == "[[0.5, 0.0], [0.0, 2.0]] [1, -1]"


def test_load_npz_names_an_empty_file(tmp_path):
    """An empty file: np.load raises EOFError, reported with the path and the exception's type."""
    path = tmp_path / "e.npz"
    path.write_bytes(b"")
    with pytest.raises(ValueError) as err:
        reference.load_npz(path)
    assert re.fullmatch(re.escape(f"{path}: not a readable .npz archive (EOFError: ") + r".+\)", str(err.value))


@pytest.mark.parametrize("index", [2**63, 2**64 + 5, 10**30], ids=["2^63", "2^64+5", "10^30"])
def test_load_libsvm_refuses_a_feature_index_beyond_int64(tmp_path, index):
    """Regression: an index >= 2^63 raised OverflowError while building the index array."""
    path = tmp_path / "big.txt"
    path.write_text(f"+1 1:1\n-1 {index}:2\n", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        reference.load_libsvm(path)
    assert str(err.value) == (
        f"{path}:2: not LIBSVM format (feature index {index} exceeds 2^63 - 1 = 9223372036854775807, the most "
        "columns a sparse matrix can index; renumber the features from 1)"
    )


def test_load_libsvm_accepts_the_largest_feature_index(tmp_path):
    """Index 2^63 - 1 is column 2^63 - 2 of a 1 x (2^63 - 1) CSR: the boundary itself is accepted, as
    an index and as n_features."""
    path = tmp_path / "edge.txt"
    path.write_text(f"-1 1:3 {2**63 - 1}:2\n", encoding="utf-8")
    X, y = reference.load_libsvm(path)
    assert X.shape == (1, 2**63 - 1) and X.indices.tolist() == [0, 2**63 - 2] and X.data.tolist() == [3.0, 2.0]
    assert y.tolist() == [-1]
    path.write_text("-1 2:3\n", encoding="utf-8")
    X, _ = reference.load_libsvm(path, n_features=2**63 - 1)
    assert X.shape == (1, 2**63 - 1) and X.indices.tolist() == [1] and X.data.tolist() == [3.0]


@pytest.mark.parametrize("n_features", [2**63, 10**30], ids=["2^63", "10^30"])
def test_load_libsvm_refuses_n_features_beyond_int64(tmp_path, n_features):
    """Regression: n_features >= 2^63 raised OverflowError."""
    path = tmp_path / "s.txt"
    path.write_text("+1 1:1\n", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        reference.load_libsvm(path, n_features=n_features)
    assert str(err.value) == (
        f"n_features={n_features} exceeds 2^63 - 1 = 9223372036854775807, the most columns a sparse matrix "
        "can index; pass a smaller n_features"
    )


# -- PT11 transformations --------------------------------------------------------------------------


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
