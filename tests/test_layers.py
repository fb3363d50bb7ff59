"""The import layers of ``reference/``, ``theorems/`` and ``proofs_check/``, read from the source.

The graph is built with :mod:`ast` from every import statement anywhere in a module -- at the top,
inside functions and methods, under ``if TYPE_CHECKING:`` -- so a lazy import cannot hide a cycle
or a layer breach.  Relative imports are resolved; ``from pkg import name`` is an edge to the
submodule ``pkg.name`` when that is a module, else to ``pkg`` itself; a package's ``__init__`` is
the module ``pkg``.  Only edges between modules of the three packages are kept.

The rules (``docs/development.md``, "Layout"):

* no import cycle anywhere;
* ``reference`` imports neither ``theorems`` nor ``proofs_check`` (the algorithms do not know
  their checks); ``proofs_check`` imports neither ``theorems`` nor ``reference`` (it stands alone:
  sympy and mpmath only); ``theorems`` may import ``reference``;
* outside ``reference/fast/``, only the modules in :data:`ENGINE_DISPATCH` import
  ``reference.fast`` or anything under it (the textbook never imports the compiled engine; one
  dispatch hands a run to it);
* the numba kernel modules import nothing of ours but :mod:`reference.arithmetic` and
  :mod:`reference.fast` (for its ``njit``).

Each check is a function of the graph returning its violations (one line each, naming the
importing module, the line of the import and the imported module), so the tests below can plant
each kind of violation in a temporary tree and see it reported.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterable, List, NamedTuple, Sequence, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("reference", "theorems", "proofs_check")

# The modules that may hand a run to the compiled engine (import ``reference.fast...``).
ENGINE_DISPATCH = ("reference.algorithms", "reference.engines")

# The numba kernels and the only modules of ours they may import.
KERNELS = ("reference.fast.rp14_kernels", "reference.fast.pt11_kernels")
KERNEL_IMPORTS = ("reference.arithmetic", "reference.fast")

# Packages each package must not import (a module ``p`` or anything under ``p.``).
FORBIDDEN = {
    "reference": ("theorems", "proofs_check"),
    "proofs_check": ("theorems", "reference"),
}


class Edge(NamedTuple):
    """``source`` imports ``target`` at ``line`` of ``source``'s file."""

    source: str
    target: str
    line: int

    def __str__(self) -> str:
        return f"{self.source} (line {self.line}) imports {self.target}"


Graph = Dict[str, List[Edge]]  # every module of the packages -> its import edges, in file order


# --------------------------------------------------------------------------------------------
# The graph
# --------------------------------------------------------------------------------------------


def _modules(root: Path, packages: Sequence[str]) -> Dict[str, Tuple[Path, bool]]:
    """Module name -> (file, is a package ``__init__``) for every ``.py`` file of ``packages``."""
    found = {}
    for pkg in packages:
        for path in sorted((root / pkg).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if "__pycache__" in parts:
                continue
            is_init = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_init else parts)] = (path, is_init)
    return found


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _ours(name: str, modules: Iterable[str]) -> str | None:
    """The longest prefix of the dotted ``name`` that is one of ``modules`` (``None``: not ours)."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        head = ".".join(parts[:k])
        if head in modules:
            return head
    return None


def import_graph(root: Path, packages: Sequence[str] = PACKAGES) -> Graph:
    """The import graph of ``packages`` (directories under ``root``), read from the source."""
    modules = _modules(root, packages)
    graph: Graph = {}
    for name, (path, is_init) in modules.items():
        package = name if is_init else name.rpartition(".")[0]
        edges = []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                    base_name = ".".join(base + ([node.module] if node.module else []))
                else:
                    base_name = node.module or ""
                for alias in node.names:
                    sub = f"{base_name}.{alias.name}"
                    targets.append(sub if alias.name != "*" and sub in modules else base_name)
            for target in targets:
                mod = _ours(target, modules)
                if mod is not None and mod != name:
                    edges.append(Edge(name, mod, node.lineno))
        graph[name] = sorted(set(edges), key=lambda e: (e.line, e.target))
    return graph


# --------------------------------------------------------------------------------------------
# The checks (each returns its violations)
# --------------------------------------------------------------------------------------------


def _components(graph: Graph) -> List[List[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack = set()
    out = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted({e.target for e in graph[start]})))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted({e.target for e in graph.get(child, ())}))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def _cycle_through(graph: Graph, component: Sequence[str]) -> List[Edge]:
    """One cycle through the first module of ``component``, as its edges (breadth-first: shortest)."""
    inside = set(component)
    start = component[0]
    came: Dict[str, Edge] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for node in frontier:
            for edge in graph[node]:
                if edge.target not in inside:
                    continue
                if edge.target == start:
                    path = [edge]
                    while path[0].source != start:
                        path.insert(0, came[path[0].source])
                    return path
                if edge.target not in came:
                    came[edge.target] = edge
                    nxt.append(edge.target)
        frontier = nxt
    raise AssertionError(f"{component} is not strongly connected")  # pragma: no cover


def cycles(graph: Graph) -> List[str]:
    """One entry per import cycle (strongly connected component): its modules, one cycle path
    through it, and the other imports between its modules (any of them may be the one to cut)."""
    out = []
    for comp in _components(graph):
        path = _cycle_through(graph, comp)
        rest = [e for m in comp for e in graph[m] if e.target in comp and e not in path]
        out.append(f"cycle among {', '.join(comp)}: {'; '.join(map(str, path))}"
                   + (f"\n    other imports within it: {'; '.join(map(str, rest))}" if rest else ""))
    return out


def layer_violations(graph: Graph, forbidden: Dict[str, Sequence[str]] = FORBIDDEN) -> List[str]:
    """Imports of a package from one it must not import."""
    return [str(e) for name, edges in sorted(graph.items()) for e in edges for pkg, banned in forbidden.items()
            if _within(name, pkg) and any(_within(e.target, b) for b in banned)]


def fast_imports(graph: Graph, allowed: Sequence[str] = ENGINE_DISPATCH) -> List[str]:
    """Imports of ``reference.fast`` (or anything under it) from ``reference`` outside
    ``reference/fast/``, except from the modules in ``allowed``."""
    return [str(e) for name, edges in sorted(graph.items()) for e in edges
            if _within(name, "reference") and not _within(name, "reference.fast") and name not in allowed
            and _within(e.target, "reference.fast")]


def kernel_imports(graph: Graph, kernels: Sequence[str] = KERNELS, allowed: Sequence[str] = KERNEL_IMPORTS) -> List[str]:
    """Imports of the kernel modules other than ``allowed``."""
    return [str(e) for k in kernels for e in graph.get(k, ()) if e.target not in allowed]


def _report(what: str, violations: List[str]) -> str:
    return f"{len(violations)} {what}:\n  " + "\n  ".join(violations)


# --------------------------------------------------------------------------------------------
# The rules, on this repository
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def graph() -> Graph:
    return import_graph(ROOT)


def test_the_graph_covers_the_packages(graph):
    """The builder finds the packages and their imports (a graph read from nowhere passes every rule)."""
    assert {"reference", "reference.fast", "theorems.cli", "theorems.validate.cli", "proofs_check"} <= set(graph)
    assert "reference" in {e.target for e in graph["theorems.cli"]}


def test_no_import_cycle(graph):
    found = cycles(graph)
    assert not found, _report("import cycle(s)", found)


def test_layers_point_one_way(graph):
    """``reference`` never imports ``theorems`` or ``proofs_check``; ``proofs_check`` imports neither."""
    found = layer_violations(graph)
    assert not found, _report("import(s) against the layers", found)


def test_textbook_never_imports_the_compiled_engine(graph):
    """Outside ``reference/fast/`` only the engine dispatch (:data:`ENGINE_DISPATCH`) imports it."""
    found = fast_imports(graph)
    assert not found, _report(f"import(s) of reference.fast outside {ENGINE_DISPATCH}", found)


def test_kernels_import_only_arithmetic_and_njit(graph):
    assert set(KERNELS) <= set(graph), sorted(set(KERNELS) - set(graph))
    found = kernel_imports(graph)
    assert not found, _report(f"kernel import(s) beyond {KERNEL_IMPORTS}", found)


# --------------------------------------------------------------------------------------------
# The checks can fail: violations planted in a temporary tree
# --------------------------------------------------------------------------------------------


def _plant(root: Path, files: Dict[str, str]) -> Graph:
    """Write ``files`` (relative path -> source) under ``root``, every folder a package."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for folder in {p.parent for p in root.rglob("*.py")}:
        if not (folder / "__init__.py").exists() and folder != root:
            (folder / "__init__.py").write_text("", encoding="utf-8")
    return import_graph(root)


def test_a_two_module_cycle_is_reported(tmp_path):
    g = _plant(tmp_path, {"theorems/a.py": "import os\nfrom theorems import b\n",
                          "theorems/b.py": "\n\nfrom .a import thing\n"})
    assert cycles(g) == ["cycle among theorems.a, theorems.b: "
                         "theorems.a (line 2) imports theorems.b; theorems.b (line 3) imports theorems.a"]


def test_a_cycle_through_a_lazy_import_is_reported(tmp_path):
    g = _plant(tmp_path, {"theorems/cli.py": "from .sub.cli import add\n",
                          "theorems/sub/cli.py": "def add():\n    if True:\n        from ..cli import helper\n"})
    assert cycles(g) == ["cycle among theorems.cli, theorems.sub.cli: "
                         "theorems.cli (line 1) imports theorems.sub.cli; theorems.sub.cli (line 3) imports theorems.cli"]


def test_a_cycle_through_a_package_init_is_reported(tmp_path):
    """``from . import sub`` in ``__init__`` is an edge to the submodule; ``from . import name`` in the
    submodule (a name, not a module) is an edge back to the package."""
    g = _plant(tmp_path, {"proofs_check/__init__.py": "def load():\n    from . import rp14\n",
                          "proofs_check/rp14.py": "from . import ok, register\n"})
    assert cycles(g) == ["cycle among proofs_check, proofs_check.rp14: "
                         "proofs_check (line 2) imports proofs_check.rp14; proofs_check.rp14 (line 1) imports proofs_check"]


def test_a_cycle_under_type_checking_is_reported(tmp_path):
    g = _plant(tmp_path, {"reference/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import reference.b\n",
                          "reference/b.py": "import reference.a as a\n"})
    assert [c.split(":")[0] for c in cycles(g)] == ["cycle among reference.a, reference.b"]


def test_a_three_module_cycle_is_reported_once_with_its_path(tmp_path):
    g = _plant(tmp_path, {"theorems/a.py": "from . import b\n", "theorems/b.py": "from . import c\n",
                          "theorems/c.py": "from . import a\n", "theorems/d.py": "from . import a\n"})
    assert cycles(g) == ["cycle among theorems.a, theorems.b, theorems.c: theorems.a (line 1) imports theorems.b; "
                         "theorems.b (line 1) imports theorems.c; theorems.c (line 1) imports theorems.a"]


def test_an_acyclic_tree_has_no_cycle(tmp_path):
    g = _plant(tmp_path, {"theorems/a.py": "from . import b\nfrom .b import x\n", "theorems/b.py": "import reference\n",
                          "reference/__init__.py": "from .c import y\n", "reference/c.py": "import numpy\n"})
    assert cycles(g) == []
    assert [(e.target, e.line) for e in g["theorems.a"]] == [("theorems.b", 1), ("theorems.b", 2)]
    assert g["theorems.b"] == [Edge("theorems.b", "reference", 1)] and g["reference.c"] == []


def test_an_up_layer_import_is_reported(tmp_path):
    g = _plant(tmp_path, {"reference/margin.py": "import numpy\n\ndef f():\n    from theorems.registry import REGISTRY\n",
                          "theorems/registry.py": "import reference.margin\n",
                          "proofs_check/__init__.py": "from reference import margin\n"})
    assert layer_violations(g) == ["proofs_check (line 1) imports reference.margin",
                                   "reference.margin (line 4) imports theorems.registry"]


def test_a_textbook_import_of_the_compiled_engine_is_reported(tmp_path):
    g = _plant(tmp_path, {"reference/smoothed.py": "from .fast.engine import run\n",
                          "reference/perceptrons.py": "from . import fast\n",
                          "reference/fast/__init__.py": "", "reference/fast/engine.py": "from ..smoothed import SNKP\n",
                          "reference/algorithms.py": "from .fast import engine\n"})
    assert fast_imports(g) == ["reference.perceptrons (line 1) imports reference.fast",
                               "reference.smoothed (line 1) imports reference.fast.engine"]
    assert fast_imports(g, allowed=()) == ["reference.algorithms (line 1) imports reference.fast.engine",
                                           "reference.perceptrons (line 1) imports reference.fast",
                                           "reference.smoothed (line 1) imports reference.fast.engine"]


def test_a_kernel_import_beyond_arithmetic_is_reported(tmp_path):
    g = _plant(tmp_path, {"reference/fast/rp14_kernels.py": "from . import njit\nfrom ..arithmetic import f\n"
                                                            "from ..result import Result\n",
                          "reference/fast/pt11_kernels.py": "from reference.fast import engine\n",
                          "reference/fast/engine.py": "", "reference/arithmetic.py": "", "reference/result.py": ""})
    assert kernel_imports(g) == ["reference.fast.rp14_kernels (line 3) imports reference.result",
                                 "reference.fast.pt11_kernels (line 1) imports reference.fast.engine"]
