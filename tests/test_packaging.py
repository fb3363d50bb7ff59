"""Tests of pyproject.toml's package list: a wheel ships only the packages it names."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _listed_packages(text: str) -> set:
    """The names in [tool.setuptools]'s ``packages = [...]`` (read without tomllib: Python 3.10 lacks it)."""
    section = text.split("[tool.setuptools]", 1)[1].split("\n[", 1)[0]
    block = re.search(r"^packages\s*=\s*\[(.*?)\]", section, re.S | re.M)
    assert block, "no packages = [...] under [tool.setuptools]"
    return set(re.findall(r'"([^"]+)"', block.group(1)))


def test_every_package_of_the_source_tree_is_in_the_wheel():
    """Every directory of reference/, theorems/ and proofs_check/ with an __init__.py is listed (an
    editable install imports a package missing there; a wheel does not: `import reference` failed
    from a wheel when reference.margins was left out), and nothing listed is missing."""
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for top in ("reference", "theorems", "proofs_check")
        for p in (ROOT / top).rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    listed = _listed_packages((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert found - listed == set(), f"packages not in pyproject.toml's [tool.setuptools] packages: {sorted(found - listed)}"
    assert listed - found == set(), f"listed in pyproject.toml but not packages of the tree: {sorted(listed - found)}"


def test_the_package_list_is_read_as_written():
    text = '[project]\nname = "x"\n[tool.setuptools]\npackages = [\n    "a",\n    "a.b",\n]\n\n[tool.other]\npackages = ["c"]\n'
    assert _listed_packages(text) == {"a", "a.b"}
