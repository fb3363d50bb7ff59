"""Tests of reference/readers.py: the LIBSVM / svmlight reader (plain and ``.gz``, sparse, line
numbers in every message, the size cap, UTF-8 whatever the locale, int64 feature indices) and the
``.npz`` reader (no pickles), pinned exactly against an independent list-based reader."""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import reference
import reference as ref
from reference import readers
from reference.data import check_csr, check_int
from tests.support.instances import GOOD_X, GOOD_Y, files


def _load_libsvm_lists(path, n_features=None):
    """The reader as it was before it streamed (text-mode lines into Python lists, then CSR): the
    reference its replacement must match bit for bit."""
    import gzip

    import scipy.sparse as sp

    from reference.data import check_csr, check_int
    from reference.readers import _MAX_COLUMNS, _TOO_WIDE, _data_path

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


def test_load_libsvm_details(tmp_path):
    from reference.readers import load_libsvm

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
    from reference.readers import load_npz

    f = tmp_path / "obj.npz"
    np.savez(f, X=np.array([[1.0]], dtype=object), y=np.array([1]))
    with pytest.raises(ValueError):
        load_npz(f)


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


BLOCK_TEXTS = [  # (name, text, parsed a block at a time?)
    ("plain", "+1 1:0.5 3:1e-3 10:-2.5E+2\n-1 2:1 5:0 6:-0.0\n1 2:.25 4:3. 7:+4\n", True),
    ("spaces", " \t+1\x0b1:1e-320\x1c 9:1.7976931348623157e308 \n\n  \n-1.0\n+1 12:7 \x0c 13:2  \n1.0 100:1", True),
    ("digits", "1 007:1_0 999999999999999999:-3\n-1 1:inf\n", True),  # leading zeros; float('1_0'); an 18-digit index
    ("unsorted", "+1 2:1 1:1\n-1 1:1\n", False),
    ("comment", "+1 1:1 # c\n-1 1:1\n", False),
    ("duplicate", "+1 2:1 2:3\n", False),
    ("no-label", "1:1 2:1\n", False),
    ("no-colon", "+1 1 2:1:3\n", False),
    ("empty-value", "+1 1: 2:1\n", False),
    ("zero-index", "+1 0:1\n", False),
    ("long-index", "+1 1234567890123456789:1\n", False),
    ("sign-index", "+1 +1:1\n", False),
    ("non-ascii", "+1 1:\u0661\n", False),
]


@pytest.mark.parametrize("name,text,fast", BLOCK_TEXTS, ids=[t[0] for t in BLOCK_TEXTS])
def test_load_libsvm_block_parser_reads_what_the_line_loop_reads(tmp_path, monkeypatch, name, text, fast):
    """readers._parse_block reads a whole block where it can (the tokens found on the bytes, labels
    and values by float, indices by exact digit arithmetic) and declines (None) where the line loop
    must decide (a comment, a token the loop refuses, an unsorted or repeated index, a non-ASCII
    character).  Either way load_libsvm returns what the line loop alone returns, bit for bit, or
    raises its message; and the block parser is the one that read the valid texts."""
    f = tmp_path / f"{name}.svm"
    f.write_bytes(text.encode("utf-8"))
    calls = []
    real = readers._parse_block
    monkeypatch.setattr(readers, "_parse_block", lambda t: calls.append(real(t)) or calls[-1])
    got = _outcome(ref.load_libsvm, f)
    assert (calls[-1] is not None) == fast
    monkeypatch.setattr(readers, "_parse_block", lambda t: None)  # the line loop alone
    assert got == _outcome(ref.load_libsvm, f)
    assert got == _outcome(_load_libsvm_lists, f)


def test_load_libsvm_matches_the_list_reader_on_heart_scale_and_the_real_sets(tmp_path, monkeypatch):
    from importlib import resources

    from reference import readers
    from theorems.instances.families import data_dir

    with resources.as_file(resources.files("reference.data_files") / "heart_scale.txt") as p:
        assert _outcome(ref.load_libsvm, p) == _outcome(_load_libsvm_lists, p)
        monkeypatch.setattr(readers, "_CHUNK", 1000)  # many blocks: lines cut at every block boundary
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

    from reference.readers import MAX_LIBSVM_BYTES
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
    from reference import readers

    f = tmp_path / "lines.svm"
    f.write_bytes(b"\n\r\n \r\r\n+1 1:1\r\n\n\n   \n\r# c\n\t\r\n-1 1:1\n\n\r\n\r-1 3:1 3:2\n\n")
    monkeypatch.setattr(readers, "_CHUNK", chunk)
    new = _outcome(ref.load_libsvm, f)
    assert new == _outcome(_load_libsvm_lists, f) and new[1].startswith(f"{f}:16: not LIBSVM format")
    g = tmp_path / "ok.svm"
    g.write_bytes(f.read_bytes().replace(b"3:1 3:2", b"3:2"))
    assert _outcome(ref.load_libsvm, g) == _outcome(_load_libsvm_lists, g)


def test_load_libsvm_plain_and_gz(tmp_path):
    text = "+1 1:0.5 3:-1\n-1 2:2 # comment\n\n1 3:1.5\n"
    f = tmp_path / "d.svm"
    f.write_text(text)
    X, y = ref.load_libsvm(f)
    assert sp.isspmatrix_csr(X) and X.nnz == 4
    X = X.toarray()
    assert X.tolist() == [[0.5, 0.0, -1.0], [0.0, 2.0, 0.0], [0.0, 0.0, 1.5]]
    assert y.tolist() == [1, -1, 1]
    g = tmp_path / "d.svm.gz"
    with gzip.open(g, "wt") as fh:
        fh.write(text)
    X2, y2 = ref.load_libsvm(g, n_features=5)
    X2 = X2.toarray()
    assert X2.shape == (3, 5) and np.array_equal(X2[:, :3], X) and y2.tolist() == y.tolist()


@pytest.mark.parametrize(
    "text, match",
    [("1 0:1\n", "1-based"), ("1 a:1\n", "not LIBSVM"), ("0 1:1\n1 1:2\n", r"\+1/-1"), ("\n# only\n", "no data")],
)
def test_load_libsvm_rejects(tmp_path, text, match):
    f = tmp_path / "bad.svm"
    f.write_text(text)
    with pytest.raises(ValueError, match=match):
        ref.load_libsvm(f)


def test_load_libsvm_missing_file_and_small_n_features(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        ref.load_libsvm(tmp_path / "nope")
    f = tmp_path / "d.svm"
    f.write_text("1 4:1\n")
    with pytest.raises(ValueError, match="n_features"):
        ref.load_libsvm(f, n_features=2)


def test_load_npz(tmp_path):
    f = tmp_path / "d.npz"
    np.savez(f, X=GOOD_X, y=GOOD_Y)
    X, y = ref.load_npz(f)
    assert np.array_equal(X, GOOD_X) and np.array_equal(y, GOOD_Y)
    g = tmp_path / "e.npz"
    np.savez(g, A=GOOD_X)
    with pytest.raises(ValueError, match="'X' and 'y'"):
        ref.load_npz(g)


def test_shipped_heart_scale_reads():
    from importlib import resources

    with resources.as_file(resources.files("reference.data_files") / "heart_scale.txt") as p:
        X, y = ref.load_libsvm(p, n_features=13)
    assert X.shape == (270, 13)
    assert (y == 1).sum() == 120 and (y == -1).sum() == 150  # Statlog Heart: 120 present / 150 absent


def test_load_npz_errors_and_no_pickles(tmp_path):
    with pytest.raises(ValueError, match=r"^data file '[^']*nope\.npz' does not exist$"):
        ref.load_npz(tmp_path / "nope.npz")
    only_x = tmp_path / "x.npz"
    np.savez(only_x, X=np.eye(2))
    with pytest.raises(ValueError, match="must hold arrays named 'X' and 'y'"):
        ref.load_npz(only_x)
    pickled = tmp_path / "obj.npz"
    np.savez(pickled, X=np.array([[1.0, None]], dtype=object), y=np.array([1]))
    with pytest.raises(ValueError):  # object arrays would need unpickling: refused
        ref.load_npz(pickled)


def test_load_npz_names_a_single_npy_array(tmp_path):
    """An .npy file (one array, no archive) under an .npz name: the error says what it is."""
    path = tmp_path / "points.npz"
    with open(path, "wb") as fh:
        np.save(fh, np.eye(2))
    with pytest.raises(ValueError, match=r"points\.npz: not a readable \.npz archive \(a single \.npy array, not an \.npz archive\)"):
        reference.load_npz(path)


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


def test_load_libsvm_reads_utf8_under_a_simulated_ascii_locale(tmp_path, monkeypatch):
    """In-process (fast) twin of the next test: an ``open`` that, like the builtin under an ASCII locale,
    decodes as ASCII when no encoding is given; the reader names UTF-8, so the UTF-8 comment is fine."""
    import builtins

    def ascii_locale_open(file, mode="r", *args, encoding=None, **kwargs):  # (binary mode takes no encoding)
        return builtins.open(file, mode, *args, encoding=encoding or (None if "b" in mode else "ascii"), **kwargs)

    path = tmp_path / "c.txt"
    path.write_text("+1 1:0.5 # caf\u00e9\n-1 2:2\n", encoding="utf-8")
    monkeypatch.setattr(readers, "open", ascii_locale_open, raising=False)
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
    """An empty file: np.load raises EOFError, reported with the path and the exception's type
    (numpy 1.24 reads an empty file as a pickle and refuses it with a ValueError of its own)."""
    path = tmp_path / "e.npz"
    path.write_bytes(b"")
    with pytest.raises(ValueError) as err:
        reference.load_npz(path)
    old = re.escape("Cannot load file containing pickled data when allow_pickle=False")
    assert re.fullmatch(re.escape(f"{path}: not a readable .npz archive (") + rf"(EOFError: .+|{old})\)", str(err.value))


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


def test_readers_refuse_what_they_used_to_accept_or_crash_on(files, tmp_path):
    with pytest.raises(ValueError, match="feature index 1 appears twice"):
        ref.load_libsvm(files["dup"])
    (tmp_path / "uni.svm").write_text("1 \u0661:1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="non-ASCII"):
        ref.load_libsvm(tmp_path / "uni.svm")
    with pytest.raises(ValueError, match="path must be a str or pathlib.Path"):
        ref.load_libsvm(None)
    with pytest.raises(ValueError, match="n_features must be an integer"):
        ref.load_libsvm(files["ok"], n_features="abc")
    X, _ = ref.load_libsvm(files["ok"], n_features=10**12)  # sparse: no 8 TB allocation
    assert X.shape == (2, 10**12)
    with pytest.raises(ValueError, match="too large"):
        ref.gram(X, np.array([1, -1]))
    with pytest.raises(ValueError, match="is a directory"):
        ref.load_npz(tmp_path)
    with pytest.raises(ValueError, match="not a readable .npz archive"):
        ref.load_npz(files["garbage_gz"])
    with pytest.raises(ValueError, match="BadGzipFile"):
        ref.load_libsvm(files["garbage_gz"])


# -- load_data: the reader chosen by the file's name; .npy pairs; CSV -------------------------------


def _csv(tmp_path, text, name="d.csv"):
    p = tmp_path / name
    if name.endswith(".gz"):
        with gzip.open(p, "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def test_csv_reads_label_first_rows_with_or_without_a_header(tmp_path):
    """A header of column numbers (0, 1, ..., d) or of names is skipped; the rows are read exactly."""
    rows = "-1,0.5,0\n1,0,0.25\n\n1,3,-2\n"
    want_X = np.array([[0.5, 0.0], [0.0, 0.25], [3.0, -2.0]])
    want_y = np.array([-1, 1, 1])
    for header in ("", "0,1,2\n", "label,a,b\n"):
        for name in ("d.csv", "d.csv.gz"):
            X, y = reference.load_data(_csv(tmp_path, header + rows, name))
            assert np.array_equal(X, want_X) and X.dtype == np.float64, (header, name)
            assert np.array_equal(y, want_y) and y.dtype == np.int64, (header, name)


def test_csv_first_row_with_a_bad_label_is_refused_not_taken_for_a_header(tmp_path):
    """Only a line of names or of the column numbers 0..d is a header: a data row with label 2 (or
    1, 2, 3, ...) is refused or read, never silently dropped."""
    with pytest.raises(ValueError, match=r"d.csv:1: not a CSV data row \(label '2' is not \+1/-1\)"):
        reference.load_csv(_csv(tmp_path, "2,0.5\n1,1\n"))
    X, y = reference.load_csv(_csv(tmp_path, "1,2,3\n-1,0,1\n"))
    assert np.array_equal(y, [1, -1]) and np.array_equal(X, [[2, 3], [0, 1]])


def test_csv_errors_name_the_line(tmp_path):
    with pytest.raises(ValueError, match=r"d.csv:3: 2 fields where the rows above have 3"):
        reference.load_csv(_csv(tmp_path, "0,1,2\n1,1,1\n-1,1\n"))
    with pytest.raises(ValueError, match=r"d.csv:2: not a CSV data row .*'x'"):
        reference.load_csv(_csv(tmp_path, "1,1\n-1,x\n"))
    with pytest.raises(ValueError, match="has no data rows"):
        reference.load_csv(_csv(tmp_path, "0,1\n"))
    with pytest.raises(ValueError, match="max_bytes = 4 bytes"):
        reference.load_csv(_csv(tmp_path, "1,1\n-1,1\n"), max_bytes=4)


def test_the_shipped_csv_export_is_the_libsvm_file():
    """The CSV export beside a1a (header 0..123, label first) reads to the same matrix as the LIBSVM file."""
    from theorems.instances.families import data_dir

    root = data_dir()
    folder = None if root is None else root / "a1a"
    if folder is None or not (folder / "a1a.csv.gz").is_file() or not (folder / "a1a").is_file():
        pytest.skip("a1a and its CSV export are not in the data directory")
    X, y = reference.load_data(folder / "a1a.csv.gz")
    X2, y2 = reference.load_data(folder / "a1a", n_features=123)
    assert np.array_equal(X, X2.toarray()) and np.array_equal(y, y2)


def test_npy_pairs_read_and_a_lone_npy_says_what_is_missing(tmp_path):
    X = np.array([[1.0, 2.0], [-3.0, 0.5]])
    y = np.array([1, -1])
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "y.npy", y)
    X2, y2 = reference.load_data(tmp_path / "X.npy", labels=tmp_path / "y.npy")
    assert np.array_equal(X2, X) and np.array_equal(y2, y)
    with pytest.raises(ValueError, match=r"X.npy: an .npy file holds one array \(X\); pass the .npy file of the labels y as labels="):
        reference.load_data(tmp_path / "X.npy")
    pair = np.empty(2, dtype=object)
    pair[0], pair[1] = X, y
    np.save(tmp_path / "obj.npy", pair, allow_pickle=True)
    with pytest.raises(ValueError, match="obj.npy: not a readable .npy array"):
        reference.load_npy(tmp_path / "obj.npy", tmp_path / "y.npy")
    np.savez(tmp_path / "z.npz", X=X, y=y)
    (tmp_path / "z.npz").rename(tmp_path / "z.npy")
    with pytest.raises(ValueError, match="an .npz archive, not an .npy array"):
        reference.load_npy(tmp_path / "z.npy", tmp_path / "y.npy")


def test_load_data_refuses_options_of_another_format_and_names_the_formats(tmp_path):
    np.save(tmp_path / "X.npy", np.eye(2))
    with pytest.raises(ValueError, match="n_features applies to LIBSVM files only"):
        reference.load_data(tmp_path / "X.npy", labels=tmp_path / "X.npy", n_features=3)
    with pytest.raises(ValueError, match="labels= is the .npy of y beside an .npy of X"):
        reference.load_data(_csv(tmp_path, "1,1\n"), labels="y.npy")
    (tmp_path / "X.bin").write_bytes((tmp_path / "X.npy").read_bytes())
    with pytest.raises(ValueError, match=r"cannot be read as a LIBSVM text file.*the data files read are: LIBSVM/svmlight text .*\.npz.*\.npy.*CSV"):
        reference.load_data(tmp_path / "X.bin")
    (tmp_path / "d.txt").write_text("0,1,2\n1,1,1\n")
    with pytest.raises(ValueError, match=r"d.txt:1: not LIBSVM format.*the data files read are:"):
        reference.load_data(tmp_path / "d.txt")
    (tmp_path / "e.txt").write_text("1 1:1\n1 x\n")
    with pytest.raises(ValueError, match=r"e.txt:2: not LIBSVM format") as info:
        reference.load_data(tmp_path / "e.txt")
    assert "the data files read are" not in str(info.value)  # a LIBSVM file with a bad line 2 is told about line 2 only
