"""Run mutmut with another table of pyproject.toml than [tool.mutmut].

mutmut 3.8.1 reads its configuration only from pyproject.toml's [tool.mutmut] (or setup.cfg) in the
current directory.  `[tool.mutmut]` mutates reference/; `[tool.mutmut-validate]` mutates
theorems/validate/.  This runs mutmut's own command line with the table named:

    python benchmarks/mutation/section.py validate run "theorems.validate.checks.*" --max-children 1
    python benchmarks/mutation/section.py validate results
    python benchmarks/mutation/section.py validate show NAME
    python benchmarks/mutation/section.py validate apply NAME
    python benchmarks/mutation/section.py validate --tests tests/theorems/validate/test_answer.py run "theorems.validate.answer.*"

``--slow`` (first) also runs the tests marked slow (pytest's ``-m "slow or not slow"`` after the
project's ``-m 'not slow'``): for code that only the slow tier checks.  ``--tests PATH ... [-k EXPR]``
(before mutmut's subcommand) runs only those tests in place of the table's
``pytest_add_cli_args_test_selection``: one module's mutants against the tests of its own subject
(a survivor then costs seconds, not the whole suite).  mutmut sees a changed configuration, forgets
its earlier verdicts and collects which test covers which function again, over those tests only.

The table is read in place of [tool.mutmut]; mutmut's workers are forked from this process, so they
see it too.  mutmut keeps its mutants in ./mutants for every table, so the directory records the table
it was made for (mutants/.section) and a run with another table is refused: move mutants/ aside first.
"""

import os
import sys
import tomllib


SUBCOMMANDS = ("run", "results", "show", "apply", "browse", "print-time-estimates", "tests-for-mutant", "export-cicd-stats")


def reader(table, tests=None, slow=False):
    """A mutmut configuration reader of pyproject.toml's [tool.mutmut-TABLE] (with ``tests`` in
    place of its test selection when given; with the slow tier when ``slow``)."""
    with open("pyproject.toml", "rb") as f:
        conf = dict(tomllib.load(f)["tool"][f"mutmut-{table}"])
    if tests:
        conf["pytest_add_cli_args_test_selection"] = list(tests)
    if slow:  # mutmut appends these to every pytest command line: this -m overrides the project's addopts
        conf["pytest_add_cli_args"] = list(conf.get("pytest_add_cli_args", [])) + ["-m", "slow or not slow"]
    return lambda key, default: conf.get(key, default)


def claim_mutants_dir(table, path="mutants"):
    """Make sure ./mutants belongs to TABLE (creating it, marked, when absent); exit otherwise."""
    mark = os.path.join(path, ".section")
    if os.path.isdir(path):
        owner = open(mark).read().strip() if os.path.exists(mark) else "tool.mutmut"
        if owner != table:
            sys.exit(f"{path}/ was made with [{owner if owner == 'tool.mutmut' else 'tool.mutmut-' + owner}]; "
                     f"move it aside before running with [tool.mutmut-{table}]")
        return
    os.makedirs(path)
    with open(mark, "w") as f:
        f.write(table + "\n")


def main(argv):
    if len(argv) < 2 or argv[0].startswith("-"):
        sys.exit(__doc__)
    table, args = argv[0], argv[1:]
    slow = args[:1] == ["--slow"]
    if slow:
        args = args[1:]
    tests = []
    if args[:1] == ["--tests"]:  # pytest arguments (files, directories, -k EXPR) up to mutmut's subcommand
        args = args[1:]
        while args and args[0] not in SUBCOMMANDS:
            tests.append(args.pop(0))
        if not tests:
            sys.exit("--tests takes one or more test files or directories (and pytest's -k EXPR)")
    import mutmut.configuration

    mutmut.configuration._config_reader = lambda: reader(table, tests, slow)
    mutmut.configuration.reset_config()  # importing mutmut's command line reads the configuration
    from mutmut.__main__ import cli

    want = [os.path.normpath(p) for p in reader(table)("source_paths", [])]
    if [os.path.normpath(p) for p in mutmut.configuration.config().source_paths] != want:
        sys.exit(f"mutmut did not take [tool.mutmut-{table}] (this works with mutmut 3.8.1)")
    claim_mutants_dir(table)
    cli(args, prog_name="mutmut")


if __name__ == "__main__":
    main(sys.argv[1:])
