"""The one input validator (reference/data.py), pinned exactly: which inputs pass, which raise,
and that every message names the argument and the fix.  Written against the mutants mutmut left
alive in data.py with the core tests alone."""

import mpmath
import numpy as np
import pytest

import reference as ref
from reference.data import check_csr, check_data, check_gram, check_real, check_simplex, reflect


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


# -- load_libsvm: the streaming reader gives what the list-building reader gave, within a size cap --


def _load_libsvm_lists(path, n_features=None):
    """The reader as it was before it streamed (text-mode lines into Python lists, then CSR): the
    reference its replacement must match bit for bit."""
    import gzip

    import scipy.sparse as sp

    from reference.data import _MAX_COLUMNS, _TOO_WIDE, _data_path, check_csr, check_int

    path = _data_path(path, "a LIBSVM file")
    if n_features is not None:
        n_features = check_int("n_features", n_features, low=1)
    opener = gzip.open if path.suffix == ".gz" else open
    labels, indptr, indices, values, width = [], [0], [], [], 0
    with opener(path, "rt", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            try:
                if not line.isascii():
                    raise ValueError("non-ASCII characters")
                label = float(parts[0])
                row = {}
                for tok in parts[1:]:
                    k, v = tok.split(":", 1)
                    if not k.isdigit():
                        raise ValueError(f"feature index {k!r} is not a positive integer")
                    idx = int(k)
                    if idx < 1:
                        raise ValueError("feature indices are 1-based")
                    if idx > _MAX_COLUMNS:
                        raise ValueError(f"feature index {idx} {_TOO_WIDE}; renumber the features from 1")
                    if idx - 1 in row:
                        raise ValueError(f"feature index {idx} appears twice")
                    row[idx - 1] = float(v)
                    width = max(width, idx)
            except ValueError as exc:
                raise ValueError(f"{path}:{lineno}: not LIBSVM format ({exc})") from None
            labels.append(label)
            for j in sorted(row):
                indices.append(j)
                values.append(row[j])
            indptr.append(len(indices))
    if not labels:
        raise ValueError(f"data file {str(path)!r} has no data lines")
    if n_features is not None:
        if n_features < width:
            raise ValueError(f"n_features={n_features} but the file uses feature index {width}; raise n_features")
        width = n_features
    y = np.array(labels)
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError(f"{path}: labels must be +1/-1, found {sorted(set(y.tolist()))[:5]}; relabel the file")
    X = sp.csr_matrix((np.array(values, dtype=np.float64), np.array(indices, dtype=np.int64), np.array(indptr, dtype=np.int64)),
                      shape=(len(labels), width))
    if width == 0:
        return X, y.astype(np.int64)
    return check_csr(X), y.astype(np.int64)


def _outcome(load, path, **kw):
    try:
        X, y = load(path, **kw)
    except ValueError as exc:
        return ("error", str(exc))
    return ("ok", X.shape, X.format, X.data.dtype, X.indices.dtype, X.indptr.dtype, X.has_canonical_format,
            X.data.tobytes(), X.indices.tobytes(), X.indptr.tobytes(), y.dtype, y.tobytes())


TRICKY = (
    "# a header comment, then a blank line and one of spaces\n\n   \t \n"
    "+1 1:0.5 3:1e-3 10:-2.5E+2   # a trailing comment # with a second '#'\n"
    "-1 2:1 5:0 6:-0.0\r\n"  # explicit zeros (dropped), CRLF
    "1 7:+4 2:.25 4:3.\r"  # unsorted indices, a lone CR
    "\t# an indented comment\n"
    "-1.0 1:1e-320 9:1.7976931348623157e308\n"  # a subnormal, the largest float
    "+1\n"  # a label with no features
    "\u00a0\u2003\n"  # only (non-ASCII) whitespace: a blank line
    "-1 12:7 \x0b 3:2\n"  # a vertical tab between the entries
    "1.0 100:1"  # an index gap, no final newline
)


@pytest.mark.parametrize("name,text", [
    ("tricky.svm", TRICKY),
    ("tricky.svm.gz", TRICKY),
    ("dup.svm", "# c\n\n+1 1:1\r\n\r\n-1 2:1 2:3\n"),  # the error names line 5 (of 5)
    ("cr.svm", "+1 1:1\r\r-1 1:\u0661\n"),  # an Arabic-Indic digit on line 3
    ("zero.svm", "0 1:1\n1 2:1\n"),  # 0/1 labels
    ("nan.svm", "+1 1:nan\n"),
    ("blank.svm", "\n \n# only comments\n\r\n"),
    ("badutf8.svm", "+1 1:1\n# caf\xe9\n"),  # (written as latin-1 below)
])
def test_load_libsvm_matches_the_list_reader(tmp_path, name, text):
    import gzip

    f = tmp_path / name
    raw = text.encode("latin-1" if name == "badutf8.svm" else "utf-8")
    f.write_bytes(gzip.compress(raw) if name.endswith(".gz") else raw)
    new = _outcome(ref.load_libsvm, f)
    if name == "badutf8.svm":  # the old reader said "near line 1" (wherever its decode buffer ended)
        assert new[0] == "error" and new[1].startswith(f"{f}: cannot be read as a LIBSVM text file near line 2 "
                                                       "(UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9")
        with pytest.raises(UnicodeDecodeError):
            _load_libsvm_lists(f)
        return
    assert new == _outcome(_load_libsvm_lists, f)
    if name.startswith("tricky"):
        assert new[0] == "ok" and new[1] == (7, 100)
        assert _outcome(ref.load_libsvm, f, n_features=120) == _outcome(_load_libsvm_lists, f, n_features=120)
        X, _ = ref.load_libsvm(f)
        X.check_format(full_check=True)
        assert _outcome(lambda p: (check_csr(X), _), f)[1:10] == new[1:10]  # canonical already


def test_load_libsvm_matches_the_list_reader_on_heart_scale_and_the_real_sets(tmp_path, monkeypatch):
    from importlib import resources

    from reference import data as data_module
    from theorems.instances.families import data_dir

    with resources.as_file(resources.files("reference.data_files") / "heart_scale.txt") as p:
        assert _outcome(ref.load_libsvm, p) == _outcome(_load_libsvm_lists, p)
        monkeypatch.setattr(data_module, "_CHUNK", 1000)  # many blocks: lines cut at every block boundary
        assert _outcome(ref.load_libsvm, p) == _outcome(_load_libsvm_lists, p)
        monkeypatch.undo()
    root = data_dir()
    for name in ("a1a/a1a", "svmguide3/svmguide3.gz", "breast-cancer_scale/breast-cancer_scale"):
        if root is not None and (root / name).is_file():
            assert _outcome(ref.load_libsvm, root / name) == _outcome(_load_libsvm_lists, root / name)


def test_load_libsvm_caps_the_text_it_reads(tmp_path, capsys):
    """A small .gz can inflate to gigabytes (of blank lines: minutes to say "no data lines"; of
    data: a MemoryError): the inflated text is counted before anything is parsed, and a file over
    max_bytes (default MAX_LIBSVM_BYTES = 1 GiB) is one ValueError naming the cap and its knobs."""
    import gzip

    from reference.data import MAX_LIBSVM_BYTES
    from theorems import cli

    assert MAX_LIBSVM_BYTES == 2**30
    cap = 1 << 20
    blank, full = tmp_path / "blank.svm.gz", tmp_path / "full.svm.gz"
    blank.write_bytes(gzip.compress(b"\n" * (2 * cap), 1))
    full.write_bytes(gzip.compress(b"+1 1:1 2:0.5\n" * (2 * cap // 13), 1))
    plain = tmp_path / "plain.svm"
    plain.write_bytes(b"+1 1:1\n" * (cap // 7 + 1))
    for f, inflated in ((blank, " (inflated)"), (full, " (inflated)"), (plain, "")):
        with pytest.raises(ValueError) as exc:
            ref.load_libsvm(f, max_bytes=cap)
        assert str(exc.value) == (f"{f}: more than max_bytes = {cap} bytes of text{inflated}; a larger file needs "
                                  "load_libsvm(..., max_bytes=N) (or None: no cap), margins --max-bytes N")
    with pytest.raises(ValueError, match="has no data lines"):
        ref.load_libsvm(blank, max_bytes=None)
    assert ref.load_libsvm(full, max_bytes=3 * cap)[0].shape == (2 * cap // 13, 2)
    assert ref.load_libsvm(plain, max_bytes=cap + 7)[0].shape == (cap // 7 + 1, 1)
    for bad in (0, -1, 1.5, True, "1"):
        with pytest.raises(ValueError, match="max_bytes must be an integer >= 1"):
            ref.load_libsvm(plain, max_bytes=bad)
    assert cli.main(["margin", "--data", str(full), "--max-bytes", str(cap)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("margins margin: error: ") and "max_bytes = 1048576" in err and len(err.splitlines()) == 1
    assert cli.main(["margin", "--data", str(plain), "--max-bytes", "none", "--json"]) == 0
    assert cli.main(["run", "perceptron", "--data", str(plain), "--max-bytes", str(cap), "--json"]) == 2
    assert "max_bytes" in capsys.readouterr().err


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 64])
def test_load_libsvm_line_numbers_across_blocks_of_blank_lines(tmp_path, monkeypatch, chunk):
    """Blocks of whitespace only are skipped whole (counted, not parsed); the line an error names is
    still the one the list reader named, with CRLF, lone CR and blank lines cut at any block size."""
    from reference import data as data_module

    f = tmp_path / "lines.svm"
    f.write_bytes(b"\n\r\n \r\r\n+1 1:1\r\n\n\n   \n\r# c\n\t\r\n-1 1:1\n\n\r\n\r-1 3:1 3:2\n\n")
    monkeypatch.setattr(data_module, "_CHUNK", chunk)
    new = _outcome(ref.load_libsvm, f)
    assert new == _outcome(_load_libsvm_lists, f) and new[1].startswith(f"{f}:16: not LIBSVM format")
    g = tmp_path / "ok.svm"
    g.write_bytes(f.read_bytes().replace(b"3:1 3:2", b"3:2"))
    assert _outcome(ref.load_libsvm, g) == _outcome(_load_libsvm_lists, g)
