"""Mutate source lines by hand, one at a time, and run tests against each mutant.

For code mutmut does not mutate (it skips decorated functions, e.g. the numba kernels of
reference/fast/).  Operators as mutmut's: comparison / arithmetic / boolean operator swaps and +1 on
integer literals, on code lines only (not docstrings, comments, strings, def / import lines).

    python benchmarks/mutation/handmut.py FILE [FILE ...] --tests PYTEST_ARG [...]
            [--sample N] [--seed S] [--pooled] [--since REV] [--out OUT.json] [--list]

--sample N: a seeded sample of N sites per file (all sites without it); --pooled: one sample of N over
  all files together.  --since REV: only sites on lines `git diff -U0 REV -- FILE` marks as added.
--list: print the sites and exit (no test run).  Each mutant runs `python -m pytest -x -q` on the
  --tests arguments in the current directory; the file is restored after each run.
OUT.json: one record a mutant (module, function, line, original, mutated, status, failed test), the
  input of `triage.py undecided --handmut OUT.json`.
"""

import argparse
import ast
import json
import os
import random
import re
import subprocess
import sys
import time

SWAP = [(" <= ", " < "), (" < ", " <= "), (" >= ", " > "), (" > ", " >= "), (" == ", " != "), (" != ", " == "),
        (" + ", " - "), (" - ", " + "), (" * ", " / "), (" / ", " * "), (" and ", " or "), (" or ", " and "),
        ("+= ", "-= "), ("-= ", "+= ")]


def enclosing_functions(source):
    """{0-based line: qualified name of the innermost function holding it}"""
    out = {}

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    for ln in range(child.lineno - 1, child.end_lineno):
                        out[ln] = name
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return out


def sites(path):
    out, in_doc = [], False
    for i, line in enumerate(open(path).read().split("\n")):
        if line.count('"""') % 2:  # a docstring opens or closes on this line
            in_doc = not in_doc
            continue
        if in_doc:
            continue
        code = line.split("#")[0]
        if not code.strip() or code.lstrip().startswith(("def ", "@", "import", "from", '"""')) or '"' in code:
            continue
        for a, b in SWAP:
            for m in re.finditer(re.escape(a), code):
                out.append((path, i, m.start(), a, b))
        for m in re.finditer(r"(?<![\w.])(\d+)(?![\w.])", code):
            out.append((path, i, m.start(), m.group(1), str(int(m.group(1)) + 1)))
    return out


def changed_lines(path, rev):
    """0-based line numbers of the working tree's `path` that `git diff -U0 rev` marks as added."""
    diff = subprocess.run(["git", "diff", "-U0", rev, "--", path], capture_output=True, text=True, check=True).stdout
    out = set()
    for m in re.finditer(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", diff, re.M):
        start, count = int(m.group(1)), int(m.group(2) or 1)
        out.update(range(start - 1, start - 1 + count))
    return out


def module_of(path):
    return os.path.relpath(path)[:-3].replace(os.sep, ".").removesuffix(".__init__")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--tests", nargs="+", default=[])
    ap.add_argument("--sample", type=int)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pooled", action="store_true")
    ap.add_argument("--since")
    ap.add_argument("--out")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if not a.list and not a.tests:
        ap.error("--tests is required (the pytest arguments each mutant runs)")
    rng = random.Random(a.seed)
    todo, pool = [], []
    for f in a.files:
        s = sites(f)
        if a.since:
            keep = changed_lines(f, a.since)
            s = [x for x in s if x[1] in keep]
        print(f, "sites", len(s), file=sys.stderr)
        if a.pooled:
            pool += s
        else:
            todo += rng.sample(s, min(a.sample, len(s))) if a.sample else s
    if a.pooled:
        todo = rng.sample(pool, min(a.sample or len(pool), len(pool)))
    res = []
    for path, i, col, before, after in todo:
        orig = open(path).read()
        lines = orig.split("\n")
        line = lines[i]
        lines[i] = line[:col] + after + line[col + len(before):]
        rec = dict(module=module_of(path), function=enclosing_functions(orig).get(i, ""), file=path, line=i + 1,
                   original=line.strip(), mutated=lines[i].strip())
        if a.list:
            print(f"{path}:{i + 1} {rec['function']}: {rec['original']}  ->  {rec['mutated']}")
            continue
        open(path, "w").write("\n".join(lines))
        t = time.time()
        try:
            r = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                                *a.tests], capture_output=True, text=True, timeout=600)
            status = "killed" if r.returncode != 0 else "survived"
            first = next((ln for ln in r.stdout.splitlines() if ln.startswith("FAILED")), "")
        except subprocess.TimeoutExpired:
            status, first = "timeout", ""
        finally:
            open(path, "w").write(orig)
        rec.update(status=status, failed=first, seconds=round(time.time() - t, 1))
        res.append(rec)
        print(status, f"{path}:{i + 1}", repr(before), "->", repr(after), rec["seconds"], first[:100], flush=True)
        if a.out:
            json.dump(res, open(a.out, "w"), indent=1)
    if not a.list:
        print(sum(r["status"] != "survived" for r in res), "of", len(res), "killed")


if __name__ == "__main__":
    main()
