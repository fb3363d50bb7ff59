"""The one input validator (reference/data.py), pinned exactly: which inputs pass, which raise,
and that every message names the argument and the fix.  Written against the mutants mutmut left
alive in data.py with the core tests alone."""

import mpmath
import numpy as np
import pytest

from reference.data import check_data, check_gram, check_real, check_simplex, reflect


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


def test_load_libsvm_details(tmp_path):
    from reference.data import load_libsvm

    # a '#' inside a comment, labels only (no features), int labels
    f = tmp_path / "a.svm"
    f.write_text("+1 # first # second\n-1\n")
    X, y = load_libsvm(f)
    assert X.shape == (2, 0) and y.dtype == np.int64 and y.tolist() == [1, -1]
    # errors name the file and the 1-based line number
    g = tmp_path / "b.svm"
    g.write_text("1 1:2\n1 2:3:4\n")
    with pytest.raises(ValueError, match=r"b\.svm:2: not LIBSVM format"):
        load_libsvm(g)
    h = tmp_path / "c.svm"
    h.write_text("1 0:1\n")
    with pytest.raises(ValueError, match=r"c\.svm:1: not LIBSVM format \(feature indices are 1-based\)$"):
        load_libsvm(h)
    with pytest.raises(ValueError, match=r"^data file '.*nope\.svm' does not exist; pass the path of a LIBSVM file$"):
        load_libsvm(tmp_path / "nope.svm")
    e = tmp_path / "empty.svm"
    e.write_text("# nothing\n")
    with pytest.raises(ValueError, match=r"^data file '.*empty\.svm' has no data lines$"):
        load_libsvm(e)
    lab = tmp_path / "lab.svm"
    lab.write_text("".join(f"{v} 1:1\n" for v in (2, 3, 4, 5, 6, 7, 1)))
    with pytest.raises(ValueError, match=r"labels must be \+1/-1, found \[1\.0, 2\.0, 3\.0, 4\.0, 5\.0\]; relabel the file$"):
        load_libsvm(lab)


def test_load_npz_refuses_pickled_objects(tmp_path):
    from reference.data import load_npz

    f = tmp_path / "obj.npz"
    np.savez(f, X=np.array([[1.0]], dtype=object), y=np.array([1]))
    with pytest.raises(ValueError):
        load_npz(f)


def test_extend_puts_label_times_delta_on_the_diagonal():
    from reference.data import extend

    Z = np.array([[1.0], [2.0]])
    assert extend(Z, np.array([-1, 1]), 0.5).tolist() == [[1.0, -0.5, 0.0], [2.0, 0.0, 0.5]]
