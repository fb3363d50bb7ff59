"""The readers of data files: LIBSVM / svmlight text (plain or ``.gz``) into a sparse ``(X, y)``,
``.npz`` archives, ``.npy`` arrays (X and y in two files) and dense CSV text (plain or ``.gz``);
:func:`load_data` picks the reader by the file's name.

Both validate the file before anything is parsed (a path that is a file, a size cap, text that is
UTF-8) and raise a ``ValueError`` naming the file, the line and the fix; the matrix they return
is what :mod:`reference.data`'s validators accept (canonical CSR, :func:`reference.data.check_csr`).
"""

from __future__ import annotations

import gzip
import re
import zipfile
from array import array
from pathlib import Path
from typing import Optional, Tuple

import numpy as np
import scipy.sparse as sp

from .data import MAX_LIBSVM_BYTES, check_int

__all__ = ["FORMATS", "MAX_LIBSVM_BYTES", "load_csv", "load_data", "load_libsvm", "load_npy", "load_npz"]

#: The data files :func:`load_data` reads, as its messages name them.
FORMATS = (
    "LIBSVM/svmlight text (.gz ok), "
    ".npz with arrays X and y, "
    ".npy of X with a .npy of y (labels=), "
    "CSV with the label in the first column (.csv, .csv.gz; an optional header row)"
)

#: Most columns a LIBSVM file may have: canonical CSR indices are int64 (:func:`check_csr`).
_MAX_COLUMNS = 2**63 - 1
_TOO_WIDE = f"exceeds 2^63 - 1 = {_MAX_COLUMNS}, the most columns a sparse matrix can index"


#: Bytes read (and parsed) at a time.
_CHUNK = 1 << 22
#: A line whose content before any ``#`` is not only whitespace (the only lines parsed; blank and
#: comment lines are skipped by the regex engine).  ``\s`` is str.isspace / str.strip's set.
_DATA_LINE = re.compile(r"^[^\S\n]*[^\s#].*", re.MULTILINE)


def _text_size(path: Path, opener, cap: Optional[int]) -> None:
    """Raise the cap's ValueError when the file holds more than ``cap`` bytes of text, before any
    of it is parsed: the size of a plain file, the inflated size of a ``.gz`` (inflated and
    counted, never kept: a 1 MB file can inflate to gigabytes)."""
    if cap is None:
        return
    if opener is open:
        size = path.stat().st_size
    else:
        size = 0
        with opener(path, "rb") as fh:
            while size <= cap:
                block = fh.read(min(_CHUNK, cap + 1 - size))
                if not block:
                    break
                size += len(block)
    if size > cap:
        raise ValueError(
            f"{path}: more than max_bytes = {cap} bytes of text{' (inflated)' if opener is not open else ''}; "
            "a larger file needs load_libsvm(..., max_bytes=N) (or None: no cap), margins --max-bytes N"
        )


#: The ASCII characters ``str.split()`` splits on (``str.isspace``): tab, LF, VT, FF, CR, 0x1c-0x1f, space.
_ASCII_SPACE = np.zeros(256, dtype=bool)
_ASCII_SPACE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True


def _parse_block(text: str):
    """A block of LIBSVM lines parsed at once, or None where :func:`load_libsvm`'s line loop must
    read it (a comment, a non-ASCII character, a token it would refuse or an unsorted row: the
    loop then raises its message naming the line, or sorts the row).

    Returns ``(labels, row ends, indices, values, width)``: the labels (``float`` of each line's
    first token), the cumulative entry count at the end of each data line, the 0-based indices,
    the values (``float`` of each value token), the largest 1-based index -- the numbers the loop
    computes, for a block where every other token is ``index:value`` with an index of 1-18 ASCII
    digits (below 2^63, read exactly) and every row's indices are strictly increasing.  The
    tokens are found on the bytes (``str.split``'s whitespace, lines at ``\\n``); only the
    labels and values are turned into Python strings, for ``float``."""
    if "#" in text or not text.isascii():
        return None
    T = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    if T.size == 0:
        return None
    ws = _ASCII_SPACE[T]
    edge = np.diff(np.concatenate(([True], ws, [True])).view(np.int8))  # -1: a token starts, +1: it ended
    starts, ends = np.flatnonzero(edge == -1), np.flatnonzero(edge == 1)
    if starts.size == 0:
        return None
    line = np.searchsorted(np.flatnonzero(T == 10), starts)  # each token's line
    first = np.concatenate(([True], line[1:] != line[:-1]))  # a line's first token: its label
    heads = np.flatnonzero(first)
    try:
        labels = np.array([float(text[i:j]) for i, j in zip(starts[heads].tolist(), ends[heads].tolist())], dtype=np.float64)
    except ValueError:
        return None
    counts = np.diff(np.append(heads, starts.size)) - 1
    row_ends = np.cumsum(counts)
    fs, fe = starts[~first], ends[~first]
    if fs.size == 0:
        return labels, row_ends, np.zeros(0, dtype=np.int64), np.zeros(0), 0
    at = np.flatnonzero(T == 58)  # every ':' -- one inside each feature token, none elsewhere
    if at.size != fs.size or np.any(at <= fs) or np.any(at >= fe - 1):
        return None
    width_i = at - fs  # index digits
    if width_i.max() > 18:
        return None
    idx = np.zeros(fs.size, dtype=np.int64)
    for k in range(int(width_i.max())):  # idx = int(the digits), exactly (< 10^18 < 2^63)
        more = np.flatnonzero(k < width_i)
        digit = T[fs[more] + k].astype(np.int64) - 48
        if np.any((digit < 0) | (digit > 9)):
            return None  # an index with a character other than an ASCII digit
        idx[more] = idx[more] * 10 + digit
    keep = np.zeros(T.size + 1, dtype=np.int8)  # the value characters, at + 1 .. fe - 1 of each token
    keep[at + 1] = 1
    keep[fe] -= 1
    V = np.where(np.cumsum(keep[:-1], dtype=np.int8) > 0, T, np.uint8(32))
    try:
        values = np.array(list(map(float, V.tobytes().decode("ascii").split())), dtype=np.float64)
    except ValueError:
        return None
    if idx.min() < 1 or values.size != idx.size:
        return None
    rowstart = np.zeros(idx.size, dtype=bool)  # the first entry of each row
    rowstart[(row_ends - counts)[counts > 0]] = True
    if np.any(np.diff(idx)[~rowstart[1:]] <= 0):  # a row with indices out of order or repeated: the loop decides
        return None
    return labels, row_ends, idx - 1, values, int(idx.max())


def _text_blocks(fh):
    """The decoded text of ``fh`` (binary) in blocks of whole lines, with universal newlines (as
    text mode reads it: ``\r\n`` and ``\r`` become ``\n``); each block but the last ends with a
    newline.  Linear time whatever the line lengths."""
    pending: list = []
    while True:
        chunk = fh.read(_CHUNK)
        if not chunk:
            break
        cut = chunk.rfind(b"\n")
        if cut < 0:
            cut = chunk.rfind(b"\r", 0, len(chunk) - 1)  # (a final \r may be the first half of \r\n)
        if cut < 0:
            pending.append(chunk)
            continue
        pending.append(chunk[: cut + 1])
        yield b"".join(pending)
        pending = [chunk[cut + 1 :]]
    if pending and any(pending):
        yield b"".join(pending)


def load_libsvm(path, n_features: Optional[int] = None, *, max_bytes: Optional[int] = MAX_LIBSVM_BYTES) -> Tuple[sp.csr_matrix, np.ndarray]:
    """Read a LIBSVM / svmlight file (plain or ``.gz``) into a sparse ``(X, y)``.

    Lines are ``label index:value index:value ...`` with 1-based indices; ``#`` starts a
    comment.  Labels must be +1/-1 (``1``, ``+1``, ``-1``, ``1.0`` ...); a 0/1 file raises.
    The file is read as UTF-8 whatever the locale.  An index repeated on a line, an index
    above 2^63 - 1 (int64, the CSR index type), a non-ASCII digit or a file that is not text
    (or a broken ``.gz``) raises a ValueError naming the line.

    Parameters
    ----------
    path : str or Path
    n_features : int, optional
        Number of columns (at most 2^63 - 1); default: the largest index seen.
    max_bytes : int or None, default :data:`MAX_LIBSVM_BYTES` (1 GiB)
        Most bytes of text the file may hold (a ``.gz`` counted inflated); a file over it
        raises a ValueError before anything is parsed.  None: no cap.

    Returns
    -------
    X : scipy.sparse.csr_matrix, shape (n, d)
        Canonical CSR (:func:`check_csr`), memory O(nnz + n); ``X.toarray()`` for a dense copy.
        Every public function of :mod:`reference` accepts it.
    y : ndarray of int64

    Notes
    -----
    Work and memory are bounded by ``max_bytes``: a block of lines without comments is parsed at
    once (:func:`_parse_block`: the tokens found with NumPy, only the labels and values made
    Python strings, for ``float``); other blocks line by line, blank and comment lines skipped by
    the regex engine.  The entries go into compact arrays (16 bytes per stored entry) block by
    block, joined at the end (a peak of about twice the CSR itself).
    """
    path = _data_path(path, "a LIBSVM file")
    if n_features is not None:
        n_features = check_int("n_features", n_features, low=1)
        if n_features > _MAX_COLUMNS:
            raise ValueError(f"n_features={n_features} {_TOO_WIDE}; pass a smaller n_features")
    if max_bytes is not None:
        max_bytes = check_int("max_bytes", max_bytes, low=1)
    opener = gzip.open if path.suffix == ".gz" else open
    labels, indptr, indices, values = array("d"), array("q"), array("q"), array("d")  # the line loop's rows
    chunks = ([], [np.zeros(1, dtype=np.int64)], [], [])  # labels, row ends, indices, values: numpy pieces
    offset = 0  # entries in the pieces

    def flush():
        nonlocal offset
        for piece, arr, t in zip(chunks, (labels, indptr, indices, values), (np.float64, np.int64, np.int64, np.float64)):
            piece.append(np.array(arr, dtype=t))
            del arr[:]
        offset += len(chunks[2][-1])

    width, lineno, base = 0, 0, 0
    try:
        _text_size(path, opener, max_bytes)
        with opener(path, "rb") as fh:
            for block in _text_blocks(fh):
                if block.isspace():  # only ASCII whitespace (str's too): no data line, count the lines
                    base += block.count(b"\n") + block.count(b"\r") - block.count(b"\r\n")
                    lineno = base
                    continue
                try:
                    text = block.decode("utf-8")
                except UnicodeDecodeError as exc:
                    head = block[: exc.start].decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
                    lineno = base + head.count("\n")  # the bad byte is on line lineno + 1
                    raise
                if "\r" in text:
                    text = text.replace("\r\n", "\n").replace("\r", "\n")
                fast = _parse_block(text)
                if fast is not None:  # the same numbers as the loop below, parsed a block at a time
                    flush()
                    chunks[0].append(fast[0])
                    chunks[1].append(fast[1] + offset)
                    chunks[2].append(fast[2])
                    chunks[3].append(fast[3])
                    offset += len(fast[2])
                    width = max(width, fast[4])
                    base += text.count("\n")
                    lineno = base
                    continue
                for match in _DATA_LINE.finditer(text):
                    line = match.group().split("#", 1)[0].strip()
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
                        lineno = base + text.count("\n", 0, match.start()) + 1
                        raise ValueError(f"{path}:{lineno}: not LIBSVM format ({exc})") from None
                    labels.append(label)
                    for j in sorted(row):
                        indices.append(j)
                        values.append(row[j])
                    indptr.append(offset + len(indices))
                base += text.count("\n")
                lineno = base
    except (OSError, EOFError, UnicodeDecodeError) as exc:  # gzip.BadGzipFile is an OSError
        raise ValueError(f"{path}: cannot be read as a LIBSVM text file near line {lineno + 1} ({type(exc).__name__}: {exc})") from None
    flush()
    y, ptr, cols, data = (np.concatenate(piece) for piece in chunks)
    del chunks
    if not len(y):
        raise ValueError(f"data file {str(path)!r} has no data lines")
    if n_features is not None:
        if n_features < width:
            raise ValueError(f"n_features={n_features} but the file uses feature index {width}; raise n_features")
        width = n_features
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError(f"{path}: labels must be +1/-1, found {sorted(set(y.tolist()))[:5]}; relabel the file")
    if width == 0:
        return sp.csr_matrix((data, cols, ptr), shape=(len(y), width)), y.astype(np.int64)
    # check_csr's canonical form, built in place (its copy would double the peak memory): the rows
    # are sorted and free of duplicates already; what is left is its finiteness test and its
    # elimination of explicit zeros
    if not np.all(np.isfinite(data)):
        raise ValueError("X contains NaN or inf; remove or impute those entries")
    keep = data != 0
    if not keep.all():
        ptr = np.concatenate(([0], np.cumsum(keep, dtype=np.int64)))[ptr]
        data, cols = data[keep], cols[keep]
    del keep
    X = sp.csr_matrix((len(y), width), dtype=np.float64)
    X.data, X.indices, X.indptr = data, cols, ptr  # int64, as check_csr leaves them
    X.has_sorted_indices = True
    X.has_canonical_format = True
    return X, y.astype(np.int64)


def _data_path(path, what: str) -> Path:
    """``path`` as a Path to an existing regular file, or a ValueError saying what is wrong."""
    if not isinstance(path, (str, Path)):
        raise ValueError(f"path must be a str or pathlib.Path of {what}, got {type(path).__name__}")
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"data file {str(path)!r} is a directory; pass the path of {what}")
    if not path.is_file():
        hint = "; pass the path of a LIBSVM file" if "LIBSVM" in what else ""
        raise ValueError(f"data file {str(path)!r} does not exist{hint}")
    return path


def load_npz(path) -> Tuple[np.ndarray, np.ndarray]:
    """Read ``X`` and ``y`` from a ``.npz`` archive (keys ``X`` and ``y``; no pickles)."""
    path = _data_path(path, "an .npz file")
    try:
        z = np.load(path, allow_pickle=False)
        if not hasattr(z, "files"):  # np.load gave an array (an .npy file): no context manager
            raise ValueError("a single .npy array, not an .npz archive")
        with z:
            if "X" not in z or "y" not in z:
                raise ValueError(f"{path}: an .npz data file must hold arrays named 'X' and 'y'")
            return np.array(z["X"]), np.array(z["y"])
    except ValueError as exc:
        if str(exc).startswith(str(path)):
            raise
        raise ValueError(f"{path}: not a readable .npz archive ({exc})") from None
    except (OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path}: not a readable .npz archive ({type(exc).__name__}: {exc})") from None


def load_npy(path, labels) -> Tuple[np.ndarray, np.ndarray]:
    """Read ``X`` from the ``.npy`` file ``path`` and ``y`` from the ``.npy`` file ``labels`` (no pickles)."""
    if labels is None:
        raise ValueError(f"{path}: an .npy file holds one array (X); pass the .npy file of the labels y as labels= (margins: --labels FILE)")
    out = []
    for p in (path, labels):
        p = _data_path(p, "an .npy file")
        try:
            a = np.load(p, allow_pickle=False)
        except (ValueError, OSError, EOFError) as exc:
            raise ValueError(f"{p}: not a readable .npy array ({type(exc).__name__}: {exc})") from None
        if not isinstance(a, np.ndarray):  # an .npz archive given as .npy
            a.close()
            raise ValueError(f"{p}: an .npz archive, not an .npy array; read it with load_npz")
        out.append(np.array(a))
    return out[0], out[1]


def load_csv(path, *, max_bytes: Optional[int] = MAX_LIBSVM_BYTES) -> Tuple[np.ndarray, np.ndarray]:
    """Read dense CSV text (plain or ``.gz``): one point per line, the label (+1/-1) in the first
    column, the features after it, separated by commas.

    The first line is a header when a field is not a number, or when it reads ``0,1,2,...,d``
    (the column numbers a CSV export writes; label 0 is no label, so no data row is lost);
    every other line must be a data row of the same width.  Blank lines are skipped.  Errors
    name the file and the line.

    Returns
    -------
    X : ndarray of float64, shape (n, d)
    y : ndarray of int64
    """
    path = _data_path(path, "a CSV file")
    if max_bytes is not None:
        max_bytes = check_int("max_bytes", max_bytes, low=1)
    opener = gzip.open if path.suffix == ".gz" else open
    rows, labels, width, lineno = array("d"), array("d"), None, 0
    try:
        _text_size(path, opener, max_bytes)
        with opener(path, "rt", encoding="utf-8", newline=None) as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                fields = line.strip().split(",")
                if width is None and _is_header(fields):
                    width = -1
                    continue
                try:
                    values = [float(f) for f in fields]
                    if values[0] not in (-1.0, 1.0):
                        raise ValueError(f"label {fields[0].strip()!r} is not +1/-1")
                except ValueError as exc:
                    raise ValueError(f"{path}:{lineno}: not a CSV data row ({exc}); labels must be +1/-1 in the first column") from None
                if width in (None, -1):
                    width = len(values)
                elif len(values) != width:
                    raise ValueError(f"{path}:{lineno}: {len(values)} fields where the rows above have {width}")
                labels.append(values[0])
                rows.extend(values[1:])
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot be read as CSV text near line {lineno + 1} ({type(exc).__name__}: {exc})") from None
    if not labels:
        raise ValueError(f"data file {str(path)!r} has no data rows")
    X = np.frombuffer(rows, dtype=np.float64).reshape(len(labels), width - 1).copy()
    return X, np.frombuffer(labels, dtype=np.float64).astype(np.int64)


def _is_header(fields) -> bool:
    """A CSV first line that names columns: a field not a number, or the column numbers 0, 1, ..., d."""
    try:
        values = [float(f) for f in fields]
    except ValueError:
        return True
    return values == [float(j) for j in range(len(values))]


def load_data(path, *, labels=None, n_features: Optional[int] = None, max_bytes: Optional[int] = MAX_LIBSVM_BYTES):
    """Read ``(X, y)`` from a data file, the reader chosen by its name: ``.npz``
    (:func:`load_npz`), ``.npy`` with ``labels`` (:func:`load_npy`), ``.csv`` / ``.csv.gz``
    (:func:`load_csv`), anything else LIBSVM / svmlight text (:func:`load_libsvm`).  A file none
    of them can read raises a ValueError that names the formats accepted (:data:`FORMATS`).

    ``n_features`` is LIBSVM's (the other formats carry their width); ``labels`` is the .npy of y
    beside an .npy of X; ``max_bytes`` caps the text formats.
    """
    name = str(path).lower()
    kind = "npz" if name.endswith(".npz") else "npy" if name.endswith(".npy") else "csv" if name.endswith((".csv", ".csv.gz")) else "libsvm"
    if n_features is not None and kind != "libsvm":
        raise ValueError(f"n_features applies to LIBSVM files only (the {kind} file carries its own width)")
    if labels is not None and kind != "npy":
        raise ValueError(f"labels= is the .npy of y beside an .npy of X; the {kind} file holds its labels")
    if kind == "npz":
        return load_npz(path)
    if kind == "npy":
        return load_npy(path, labels)
    if kind == "csv":
        return load_csv(path, max_bytes=max_bytes)
    try:
        return load_libsvm(path, n_features=n_features, max_bytes=max_bytes)
    except ValueError as exc:
        if "cannot be read as a LIBSVM text file" in str(exc) or (":1: not LIBSVM format" in str(exc)):
            raise ValueError(f"{exc}; the data files read are: {FORMATS}") from None
        raise
