"""List the surviving mutants that are not yet decided.

A survivor is matched by its edit -- (module, function, original line(s), mutated line(s)) -- against
the argued-equivalent mutants in equivalents.json; mutmut's positional names (x_f__mutmut_<N>) are only
used to find the edit, because they change whenever the function changes.

    python benchmarks/mutation/triage.py undecided [--mutants DIR] [--results FILE] [--handmut FILE ...]
            [--equivalents FILE] [--module-wide] [--show]
        DIR: mutmut's mutants/ directory (default ./mutants); the survivors are read from its .meta
        files, or only the names listed in FILE (the output of `mutmut results`, or one name a line).
        --handmut: results of handmut.py (mutated numba kernels), matched the same way.
        Prints the undecided survivors' names, one a line (so `mutmut run $(... undecided)` reruns
        only them); a summary on stderr; --show adds each one's edit.  --module-wide matches an
        edit anywhere in the module (for a function that was renamed or split).
    python benchmarks/mutation/triage.py edits SOURCE MODULE [NAME ...]
        The edit of every mutmut mutant of one source file (or of the NAMEs given), generated in
        process with mutmut's own generator (needs mutmut installed), as JSON lines: how an
        argument is entered in equivalents.json.
    python benchmarks/mutation/triage.py --self-test
"""

import argparse
import difflib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NAME_RE = re.compile(r"^(?P<module>.*?)\.(?P<func>x[_ǁ].*?)__mutmut_(?P<n>\d+|orig)$")
DEF_RE = re.compile(r"^(?P<indent> {0,4})def (?P<name>x[_ǁ]\S*?__mutmut_(?:\d+|orig))\(", re.M)
SURVIVED = {0}  # mutmut's exit code of a survivor (stats.status_by_exit_code)


def function_of(mangled):
    """mutmut's mangled function name -> the function's name: x_f -> f, xǁCǁm -> C.m"""
    if mangled.startswith("xǁ"):
        return ".".join(mangled[2:].split("ǁ"))
    return mangled[2:]


def split_name(name):
    """'reference.gram.x_gram__mutmut_<N>' -> ('reference.gram', 'x_gram', '<N>')"""
    m = NAME_RE.match(name)
    if not m:
        raise ValueError(f"not a mutmut mutant name: {name}")
    return m.group("module"), m.group("func"), m.group("n")


def functions_in(source):
    """The generated functions of a mutated file: {'x_f__mutmut_orig': text, 'x_f__mutmut_<N>': text, ...}.
    A function ends at the next line indented no deeper than its def that is not a closing bracket."""
    out = {}
    lines = source.split("\n")
    starts = [(source.count("\n", 0, m.start()), m) for m in DEF_RE.finditer(source)]
    for i, m in starts:
        ind = len(m.group("indent"))
        j = i + 1
        while j < len(lines):
            ln = lines[j]
            if ln.strip() and len(ln) - len(ln.lstrip()) <= ind and not ln.lstrip().startswith((")", "]", "}")):
                break
            j += 1
        out[m.group("name")] = "\n".join(lines[i:j])
    return out


def edit(orig, mutant):
    """(original, mutated): the changed lines of a function, stripped, joined by newlines; the def line
    (which holds mutmut's name) is left out."""
    o = [ln.strip() for ln in orig.split("\n")[1:] if ln.strip()]
    m = [ln.strip() for ln in mutant.split("\n")[1:] if ln.strip()]
    a, b = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, o, m, autojunk=False).get_opcodes():
        if tag != "equal":
            a += o[i1:i2]
            b += m[j1:j2]
    return "\n".join(a), "\n".join(b)


def key(module, function, original, mutated, module_wide=False):
    return (module, "" if module_wide else function, original, mutated)


def edits_of_source(module, funcs, names=None):
    """{name: (module, function, original, mutated)} for the mutants in funcs (functions_in's dict)."""
    out = {}
    for fname in funcs:
        if fname.endswith("__mutmut_orig"):
            continue
        full = f"{module}.{fname}"
        if names is not None and full not in names:
            continue
        _, mangled, _ = split_name(full)
        orig = funcs.get(mangled + "__mutmut_orig")
        if orig is None:
            continue
        out[full] = (module, function_of(mangled), *edit(orig, funcs[fname]))
    return out


def generate(source_text, module, path="x.py"):
    """The mutants mutmut generates from one source file, with its own generator (mutmut 3.8.1)."""
    from mutmut.mutation.file_mutation import mutate_file_contents

    return functions_in(mutate_file_contents(path, source_text).code)


def mutmut_survivors(mutants_dir, listed=None):
    """{module: [names]} of the survivors recorded in mutants_dir/**/*.py.meta (or only those listed)."""
    out = {}
    for root, _, files in os.walk(mutants_dir):
        for f in files:
            if not f.endswith(".py.meta"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, mutants_dir)[: -len(".py.meta")]
            module = rel.replace(os.sep, ".").removesuffix(".__init__")
            codes = json.load(open(path))["exit_code_by_key"]
            codes = {(k if "." in k else f"{module}.{k}"): v for k, v in codes.items()}
            names = [k for k, v in codes.items() if (k in listed if listed is not None else v in SURVIVED)]
            if names:
                out[(module, path[: -len(".meta")])] = names
    return out


def read_listing(path):
    """Names from `mutmut results` output ('    name: survived') or one name a line; only survivors
    when statuses are given."""
    names = set()
    for ln in open(path):
        ln = ln.strip()
        if not ln:
            continue
        name, _, status = ln.partition(": ")
        if status and status.strip() != "survived":
            continue
        names.add(name.strip())
    return names


def load_equivalents(path, module_wide=False):
    out = {}
    for e in json.load(open(path)):
        out[key(e["module"], e["function"], e["original"], e["mutated"], module_wide)] = e
    return out


def undecided(survivors, equivalents, module_wide=False):
    """survivors: {name: (module, function, original, mutated)} -> (decided {name: entry}, open [names])"""
    decided, todo = {}, []
    for name, (mod, fn, o, m) in sorted(survivors.items()):
        e = equivalents.get(key(mod, fn, o, m, module_wide))
        if e is None:
            todo.append(name)
        else:
            decided[name] = e
    return decided, todo


def cmd_undecided(a):
    eqs = load_equivalents(a.equivalents, a.module_wide)
    listed = read_listing(a.results) if a.results else None
    surv = {}
    if a.mutants and os.path.isdir(a.mutants):
        for (module, path), names in mutmut_survivors(a.mutants, listed).items():
            surv.update(edits_of_source(module, functions_in(open(path).read()), set(names)))
    elif not a.handmut:
        sys.exit(f"no mutants directory {a.mutants!r} (run mutmut first, or pass --mutants)")
    for f in a.handmut or []:
        for r in json.load(open(f)):
            if r["status"] == "survived":
                surv[f"{r['module']}:{r['line']}:{r['original']} -> {r['mutated']}"] = (
                    r["module"], r["function"], r["original"], r["mutated"])
    decided, todo = undecided(surv, eqs, a.module_wide)
    for n in todo:
        print(n)
        if a.show:
            print("    -", surv[n][2].replace("\n", "\n      "), "\n    +", surv[n][3].replace("\n", "\n      "))
    kinds = {}
    for e in decided.values():
        kinds[e["verdict"]] = kinds.get(e["verdict"], 0) + 1
    print(f"{len(surv)} survivors: {len(todo)} undecided, {len(decided)} argued ({kinds})", file=sys.stderr)


def cmd_edits(a):
    funcs = generate(open(a.source).read(), a.module, a.source)
    for name, (mod, fn, o, m) in edits_of_source(a.module, funcs, set(a.names) or None).items():
        print(json.dumps(dict(name=name, module=mod, function=fn, original=o, mutated=m), ensure_ascii=False))


MUT = "__mut" + "mut_"  # mutmut's infix; spelled in two pieces, so that no literal mutant name is stored here
SELF_TEST_MUTANTS = '''
def x_half__MUT__orig(v, ar):
    """Half of v."""
    n = len(v)
    return [x / 2 for x in v[:n]]
def x_half__MUT__1(v, ar):
    """Half of v."""
    n = None
    return [x / 2 for x in v[:n]]
def x_half__MUT__2(v, ar):
    """Half of v."""
    n = len(v)
    return [x * 2 for x in v[:n]]
x_half__MUT__mutants = {'x_half__MUT__1': x_half__MUT__1, 'x_half__MUT__2': x_half__MUT__2}
class Box:
    def xǁBoxǁget__MUT__orig(self, i):
        return self.items[
            i
        ]
    def xǁBoxǁget__MUT__1(self, i):
        return self.items[
            i + 1
        ]
'''.replace("__MUT__", MUT)
SELF_TEST_EQUIVALENTS = [
    dict(module="pkg.m", function="half", original="n = len(v)", mutated="n = None",
         verdict="equivalent", argument="v[:None] is v[:len(v)]"),
]


def self_test():
    def M(name):  # the fixture's names, spelled as mutmut spells them
        return name.replace("__MUT__", MUT)

    funcs = functions_in(SELF_TEST_MUTANTS)
    assert sorted(funcs) == [M("x_half__MUT__1"), M("x_half__MUT__2"), M("x_half__MUT__orig"),
                             M("xǁBoxǁget__MUT__1"), M("xǁBoxǁget__MUT__orig")], sorted(funcs)
    eds = edits_of_source("pkg.m", funcs)
    assert eds[M("pkg.m.x_half__MUT__2")] == ("pkg.m", "half", "return [x / 2 for x in v[:n]]",
                                             "return [x * 2 for x in v[:n]]"), eds
    assert eds[M("pkg.m.xǁBoxǁget__MUT__1")] == ("pkg.m", "Box.get", "i", "i + 1"), eds
    assert split_name(M("reference.fast.engine.xǁLinearGramǁ__post_init____MUT__3")) == (
        "reference.fast.engine", "xǁLinearGramǁ__post_init__", "3")
    eqs = {key(e["module"], e["function"], e["original"], e["mutated"]): e for e in SELF_TEST_EQUIVALENTS}
    decided, todo = undecided(eds, eqs)
    assert list(decided) == [M("pkg.m.x_half__MUT__1")] and todo == [M("pkg.m.x_half__MUT__2"),
                                                                     M("pkg.m.xǁBoxǁget__MUT__1")], (decided, todo)
    # the same edit after the function moved: positional names differ, the key does not
    moved = {M("pkg.m.x_half__MUT__7"): eds[M("pkg.m.x_half__MUT__1")]}
    assert list(undecided(moved, eqs)[0]) == [M("pkg.m.x_half__MUT__7")]
    eqw = {key(*k[:2], *k[2:], module_wide=True): e for k, e in eqs.items()}
    renamed = {M("pkg.m.x_halve__MUT__1"): ("pkg.m", "halve", "n = len(v)", "n = None")}
    assert undecided(renamed, eqs)[1] == [M("pkg.m.x_halve__MUT__1")]
    assert list(undecided(renamed, eqw, module_wide=True)[0]) == [M("pkg.m.x_halve__MUT__1")]
    # the shipped equivalents file is well formed
    path = os.path.join(HERE, "equivalents.json")
    if os.path.exists(path):
        entries = json.load(open(path))
        keys = {key(e["module"], e["function"], e["original"], e["mutated"]) for e in entries}
        assert len(keys) == len(entries), "duplicate edits in equivalents.json"
        assert all(e["verdict"] in ("equivalent", "equivalent under the contract") for e in entries)
        assert all(e["argument"].strip() for e in entries)
    print("self-test passed")


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--self-test"]:
        return self_test()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    u = sub.add_parser("undecided")
    u.add_argument("--mutants", default="mutants")
    u.add_argument("--results")
    u.add_argument("--handmut", nargs="+")
    u.add_argument("--equivalents", default=os.path.join(HERE, "equivalents.json"))
    u.add_argument("--module-wide", action="store_true")
    u.add_argument("--show", action="store_true")
    e = sub.add_parser("edits")
    e.add_argument("source")
    e.add_argument("module")
    e.add_argument("names", nargs="*")
    a = ap.parse_args(argv)
    (cmd_undecided if a.cmd == "undecided" else cmd_edits)(a)


if __name__ == "__main__":
    main()
