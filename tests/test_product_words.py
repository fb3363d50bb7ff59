"""The repository speaks of the product only.

A tracked file may say what the code does and why, but not the history of how it was made (the
kinds of words are the labels of :data:`PATTERNS`) and not where it sat on one machine (absolute
paths of the build host).  :func:`scan` lists every ``file:line`` that matches a pattern (and every
tracked file whose *name* matches); the first test asserts there is none, in every tracked file this
one included; the second plants each kind of word in a temporary file and asserts the scanner
reports it, while ordinary text passes (a verb "to review", "would round 1/3", "Round 2" of an
algorithm, "proof helpers", Higham's ``gamma_3``, ``tmp_path``).  A numbered round is not a
pattern: here it is always an algorithm's.

The words are built from pieces, so this file is scanned like every other one.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Iterable, List, Optional, Sequence

import pytest

REPO = Path(__file__).resolve().parents[1]

# pieces of the words the patterns look for (whole, they would be flagged here too)
_T = "iss" + "ue"
_S = "sess" + "ion"
_SC = "cen" + "sus"
_C = "camp" + "aign"
_R = "rev" + "iew"
_H = "hel" + "per"
_M = "mut" + "mut"
_W = "w" + "t"

#: (kind, regex) -- matched case-insensitively, line by line.
PATTERNS = [
    ("numbered ticket", rf"(?<![a-z]){_T}s? ?#?\d"),
    ("numbered meeting", rf"(?<![a-z]){_S}s?[ _-]?\d"),
    ("numbered meeting", rf"\b(?:this|that|the|earlier|previous|next|last) {_S}\b|\b{_S} tooling\b"),
    ("mutation screen", rf"(?:re)?{_SC}"),
    ("drive", _C),
    ("numbered round of comments", rf"(?<![a-z]){_R}[ _-]?\d"),
    ("named assistant", rf"\b{_H} kill\w*|\b(?:the other|that) {_H}\b"),
    ("mutant id", rf"_{_M}_\d"),
    ("checkout name", rf"\b{_W}-[a-z][\w-]*|\b{_W}\d+\b"),
    ("commit of a branch", r"\bmain [0-9a-f]{7,40}\b"),
    ("machine path", r"(?<![\w.~-])/(?:wo" r"rk|tm" r"p|ro" r"ot)\b"),
]


def _product_functions(root: Path) -> List[str]:
    """Names of the functions of the product (``def`` in reference/, theorems/, proofs_check/)."""
    names = set()
    for sub in ("reference", "theorems", "proofs_check"):
        for f in (root / sub).rglob("*.py"):
            try:
                names.update(re.findall(r"^\s*def (\w+)", f.read_text(encoding="utf-8"), re.M))
            except (OSError, UnicodeDecodeError):
                continue
    return sorted(names, key=len, reverse=True)


class _MutantPosition:
    """A positional mutant name is a function name and a number (``<function>_<N>``, as mutmut
    numbers a function's mutants) or its abbreviation after a comma (``_<word>_<N>``).  Single-word names followed by a number are
    ordinary subscripts (Higham's ``gamma_3``, ``rho_2``): only names of two or more words, or
    written with a leading underscore, count.  ``search`` as for a compiled pattern."""

    _candidate = re.compile(r"(?<![\w.])(\w+?)_\d+\b")

    def __init__(self, functions: Sequence[str]):
        self.names = {n for n in functions if len(n.strip("_")) >= 4 and ("_" in n.strip("_") or n.startswith("_"))}

    def search(self, line: str):
        return next((m for m in self._candidate.finditer(line) if m.group(1) in self.names), None)


def compile_patterns(root: Path = REPO) -> list:
    return [(name, re.compile(rx, re.I)) for name, rx in PATTERNS] + [("mutant id", _MutantPosition(_product_functions(root)))]


def tracked_files(root: Path = REPO) -> List[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
    return [p for p in out.decode("utf-8").split("\0") if p]


def _text(path: Path) -> Optional[str]:
    """The file's text, or None for a binary file (a NUL byte, or not UTF-8) or one that is absent."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def scan(root: Path = REPO, files: Optional[Iterable[str]] = None, patterns=None) -> List[str]:
    """Every ``file:line: [kind] text`` of ``files`` (default: ``git ls-files`` of ``root``) that
    matches a pattern, and ``file: [kind] (file name)`` for a file whose path matches one."""
    root = Path(root)
    pats = compile_patterns(root) if patterns is None else patterns
    hits = []
    for rel in (tracked_files(root) if files is None else files):
        for name, rx in pats:
            if rx.search(rel):
                hits.append(f"{rel}: [{name}] (file name)")
                break
        text = _text(root / rel)
        if text is None:
            continue
        for i, line in enumerate(text.splitlines(), 1):
            for name, rx in pats:
                if rx.search(line):
                    hits.append(f"{rel}:{i}: [{name}] {line.strip()[:160]}")
                    break
    return hits


def test_repository_speaks_of_the_product_only():
    hits = scan()
    assert not hits, f"{len(hits)} lines speak of how the work was organised or of this machine:\n" + "\n".join(hits)


PLANTED = [
    f"# see {_T} 11, item 7",
    f"(found in {_S} 7b)",
    f"verdicts in {_S}-8",
    f"the {_S} found two bugs",
    f"screened by the full re{_SC}8 of margin.py",
    f"the {_C} of mutation tests",
    f"as {_R}9 asked",
    f"left to the other {_H}",
    f"{_H} killM",
    f"reference.data.x_load__{_M}_140",
    "kills certified_lower" "_71, _76",
    "(mutant _lower" "_53: eQ = 0)",
    f"tree {_W}78",
    f"checkout {_W}-abc",
    "screen of main " "ee6882a",
    "python x.py --data-dir /wo" "rk/shared/data",
    "--out /tm" "p/bench/cases/a.json",
    "/ro" "ot/.cache",
]

CLEAN = [
    "Review the input before it is read.",
    "float(v) would round 1/3, or -1 + 10^-40 to -1",
    "points around 0 (labels +1)",
    "# -- proof helpers ----",
    "e ~ 2 gamma_3 (|z_0| + |z_1|), rho_2, theta_0",
    "def test_x(tmp_path): (tmp_path / 'a').write_text('')",
    "``$MARGINS_DATA`` or ``../shared/data`` relative to the repository",
    "one task -> one row; the tasks come back in task order",
    "on the branch ``p + mu q >= 0``",
    "Pass 2: p = x^2 > x^2/2: no update",
    "Round 2 adds them and ends at u* = (1, 0); round1 = calls[:n]",
]


def test_scanner_reports_planted_words(tmp_path):
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "data_margin.py").write_text(
        "def certified_lower():\n    pass\n\n\ndef _lower():\n    pass\n", encoding="utf-8")
    (tmp_path / "planted.md").write_text("\n".join(PLANTED) + "\n", encoding="utf-8")
    (tmp_path / "clean.md").write_text("\n".join(CLEAN) + "\n", encoding="utf-8")
    (tmp_path / "binary.bin").write_bytes(b"\0\1" + f"{_T} 11".encode())
    name = f"notes_{_S}9.md"
    (tmp_path / name).write_text("nothing here\n", encoding="utf-8")
    files = ["reference/data_margin.py", "planted.md", "clean.md", "binary.bin", name, "absent.txt"]
    hits = scan(tmp_path, files)
    lines = {int(h.split(":")[1]) for h in hits if h.startswith("planted.md:")}
    assert lines == set(range(1, len(PLANTED) + 1)), (sorted(lines), hits)
    assert not [h for h in hits if h.startswith(("clean.md", "binary.bin", "reference/"))], hits
    assert f"{name}: [numbered meeting] (file name)" in hits


def test_scanner_flags_a_planted_word_in_a_copy_of_a_tracked_file(tmp_path):
    rel = "reference/exact.py"
    text = (REPO / rel).read_text(encoding="utf-8")
    (tmp_path / "reference").mkdir()
    (tmp_path / rel).write_text(text, encoding="utf-8")
    assert scan(tmp_path, [rel]) == []
    (tmp_path / rel).write_text(text + f"# [{_T} 11]\n", encoding="utf-8")
    n = len(text.splitlines()) + 1
    assert scan(tmp_path, [rel]) == [f"{rel}:{n}: [numbered ticket] # [{_T} 11]"]
