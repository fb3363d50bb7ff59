"""The README and the pages of docs/ are part of the suite.

* Every fenced code block of README.md and docs/*.md carries a language, and the language says
  what the suite does with it:

  - ``python``: run, in order with the other ``python`` blocks of its page (one namespace per
    page, so a later block may use the names of an earlier one);
  - ``python no-run``: compiled only (code that needs a cluster, a scheduler or a long run);
  - ``bash`` / ``text``: every ``margins ...`` line (also after a ``$ `` prompt) is parsed by the
    console script's own argument parser, so a stale command or option fails here; nothing is
    run.

* The README's pytest example for the public strategies (now in docs/validation.md) runs and
  passes as written, and its tests reject a wrong solver (so the example is not an assert-nothing
  test).

* Every erratum id (``E-A2``) and every specification section id (``spec A.7``) that the code of
  reference/, theorems/ and proofs_check/ cites is a heading of docs/errata.md or docs/spec.md.
"""

import importlib.util
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README] + sorted(DOCS.glob("*.md"))
KINDS = {"python", "python no-run", "bash", "text"}
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", flags=re.S | re.M)


def _blocks(page: Path):
    """(info string, body, line number) of every fenced block of ``page``."""
    text = page.read_text(encoding="utf-8")
    return [(m.group(1).strip(), m.group(2), text.count("\n", 0, m.start()) + 1) for m in FENCE.finditer(text)]


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def test_there_are_pages_and_blocks():
    assert len(PAGES) >= 9 and all(p.is_file() for p in PAGES)
    assert sum(len(_blocks(p)) for p in PAGES) >= 20


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_block_says_what_the_suite_does_with_it(page):
    bad = [(line, info) for info, _, line in _blocks(page) if info not in KINDS]
    assert not bad, f"{_name(page)}: blocks without one of {sorted(KINDS)} (line, info): {bad}"
    assert page.read_text(encoding="utf-8").count("```") % 2 == 0, f"{_name(page)}: an unclosed fence"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_python_blocks_run(page, tmp_path, monkeypatch):
    blocks = [(info, body, line) for info, body, line in _blocks(page) if info.startswith("python")]
    if any('engine="fast"' in body for info, body, _ in blocks if info == "python"):
        if importlib.util.find_spec("numba") is None:
            pytest.skip("a block uses the compiled engine: pip install 'perceptron-margins[fast]'")
    monkeypatch.chdir(tmp_path)  # a block that writes files writes them here
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    for info, body, line in blocks:
        code = compile("\n" * (line) + body, _name(page), "exec")  # tracebacks name the page's lines
        if info == "python":
            exec(code, namespace)


def _margins_lines(body: str):
    for raw in body.splitlines():
        line = raw.strip()
        if line.startswith("$ "):
            line = line[2:]
        if line.startswith("margins ") or line == "margins":
            yield line


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_margins_commands_parse(page):
    from theorems.cli import build_parser

    parser = build_parser()
    seen = 0
    for info, body, line in _blocks(page):
        if info.startswith("python"):
            continue
        for command in _margins_lines(body):
            argv = shlex.split(command, comments=True)[1:]
            try:
                parser.parse_args(argv)
            except SystemExit as exc:  # argparse's error exit
                pytest.fail(f"{_name(page)}:{line}: `{command}` does not parse (exit {exc.code})")
            seen += 1
    if page.name in ("README.md", "cli.md", "bounds.md", "validation.md"):
        assert seen > 0  # the check is not vacuous on the pages that show commands


def test_ci_runs_the_readme_commands():
    """.ci/run runs the README's two quick-start commands, as written, before anything else."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    quick = [body.strip() for info, body, _ in _blocks(README) if info == "bash"][:2]
    assert len(quick) == 2
    install, tests = quick
    plain = ci.replace("--quiet ", "").replace("pip install --upgrade pip && ", "")  # CI's quieter pip, same commands
    commands = [ln for ln in plain.splitlines() if ln.strip() and not ln.startswith("#")]
    assert commands[:2] == ["set -euo pipefail", 'cd "$(dirname "$0")/.."'], commands[:2]
    assert commands[2:4] == [install, tests], commands[2:4]


# -- the pytest example for the public strategies -----------------------------------------------


def _example() -> dict:
    page, block = next(
        (p, body) for p in PAGES for info, body, _ in _blocks(p) if info == "python" and "test_my_solver.py" in body
    )
    namespace: dict = {}
    exec(compile(block, f"{_name(page)}:test_my_solver.py", "exec"), namespace)
    return namespace


def test_readme_strategy_example_passes():
    ns = _example()
    ns["test_perceptron_separates_within_novikoff"]()
    ns["test_margin_is_the_planted_one"]()


def test_readme_strategy_example_rejects_a_wrong_solver():
    ns = _example()
    ns["my_margin"] = lambda G: 0.99 * float(np.min(np.diag(G)))  # not the margin
    with pytest.raises(AssertionError):
        ns["test_margin_is_the_planted_one"]()
    ns["my_perceptron"] = lambda X, y: (np.zeros(X.shape[1]), 0)  # claims nothing is needed
    with pytest.raises(AssertionError):
        ns["test_perceptron_separates_within_novikoff"]()


# -- every tag of the code resolves in docs/ ------------------------------------------------------

CODE = ("reference", "theorems", "proofs_check")
ERRATUM = re.compile(r"\bE-[AB][0-9]+\b")
SPEC = re.compile(r"\bspec ((?:[ABC]\.[0-9]+)(?:(?:, | and |, and )[ABC]\.[0-9]+)*)")
SECTION = re.compile(r"[ABC]\.[0-9]+")


def _code_text():
    for package in CODE:
        for path in sorted((ROOT / package).rglob("*")):
            if path.suffix in (".py", ".json", ".md", ".txt") and "__pycache__" not in path.parts:
                yield path, path.read_text(encoding="utf-8", errors="replace")


def code_ids(texts=None):
    """The erratum ids and the specification section ids the code cites."""
    errata, sections = set(), set()
    for _, text in texts if texts is not None else _code_text():
        errata |= set(ERRATUM.findall(text))
        for group in SPEC.findall(text):
            sections |= set(SECTION.findall(group))
    return errata, sections


def doc_ids():
    """The ids that docs/errata.md and docs/spec.md define: each as the start of a heading."""
    heading = re.compile(r"^#{2,4} ((?:E-[AB][0-9]+)|(?:[ABC]\.[0-9]+))\b", flags=re.M)
    ids = set()
    for page in ("errata.md", "spec.md"):
        ids |= set(heading.findall((DOCS / page).read_text(encoding="utf-8")))
    return ids


def unresolved(texts=None):
    errata, sections = code_ids(texts)
    return sorted((errata | sections) - doc_ids())


def test_every_tag_of_the_code_resolves_in_docs():
    errata, sections = code_ids()
    assert len(errata) >= 15 and len(sections) >= 20  # the scan finds the tags at all
    missing = unresolved()
    assert not missing, f"ids cited in {', '.join(CODE)} with no heading in docs/errata.md or docs/spec.md: {missing}"


def test_an_unknown_tag_is_reported():
    """A planted erratum id or section id that no page defines is reported by name."""
    planted = [(Path("planted.py"), "# [spec A.99, B.3; erratum E-B42]")]
    assert unresolved(list(_code_text()) + planted) == ["A.99", "E-B42"]


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_relative_links_resolve(page):
    """Every relative link of the README and docs/ names a file of the repository, and an anchor
    names a heading of that file."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+://", target):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.is_file() and ROOT in dest.parents, f"{_name(page)}: link {target!r} names no file of the repository"
        if anchor:
            headings = re.findall(r"^#+ (.*)$", FENCE.sub("", dest.read_text(encoding="utf-8")), flags=re.M)
            assert anchor in {_slug(h) for h in headings}, f"{_name(page)}: link {target!r}: no such heading"
