"""Shared pytest configuration: hypothesis profiles, the quality tier, the random order's seed.

* ``ci``  (default): fixed example budget, derandomized, no deadline -- the same run every time.
* ``dev``: more examples, random seeds, for local bug hunting (HYPOTHESIS_PROFILE=dev).

The run's last lines name pytest-randomly's seed and the command that replays the order
(``pytest -q`` prints no header, where pytest-randomly puts it).
"""

import os
import shlex
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=25,
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("dev", max_examples=200, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# The "quality" tier is the folder tests/quality/: tests that prove the suite catches deliberately
# broken algorithms (theorem checks fed a broken variant or a doctored trace, the validation
# harness's mutant zoo, proof steps with a perturbed constant).  They run in every default run;
# `pytest -m quality` runs them alone.
QUALITY_DIR = Path(__file__).parent / "quality"


def pytest_collection_modifyitems(config, items):
    for item in items:
        if QUALITY_DIR in Path(item.fspath).parents:
            item.add_marker(pytest.mark.quality)


@pytest.fixture
def solve_path(monkeypatch):
    """Count the path of ``reference.margins.search._solve_mp``: ``{"solve": float64 solves so far,
    "at_elimination": the solve count when exact elimination (_gauss_mp) was called, or None}``.
    Reset the entries by hand between calls."""
    import numpy as np

    from reference.margins import search

    calls = {"solve": 0, "at_elimination": None}
    solve, gauss = np.linalg.solve, search._gauss_mp

    def counting_solve(*args, **kwargs):
        calls["solve"] += 1
        return solve(*args, **kwargs)

    def counting_gauss(A, b):
        calls["at_elimination"] = calls["solve"]
        return gauss(A, b)

    monkeypatch.setattr(np.linalg, "solve", counting_solve)
    monkeypatch.setattr(search, "_gauss_mp", counting_gauss)
    return calls


def replay_command(config) -> str:
    """The command line of this run with pytest-randomly's seed pinned (``--randomly-seed=N``):
    the same tests in the same order.  The interpreter is named relative to the invocation
    directory when it lies inside it (``.venv/bin/python``)."""
    args, skip = [], False
    for a in config.invocation_params.args:
        if skip:
            skip = False
        elif a == "--randomly-seed":
            skip = True
        elif not a.startswith("--randomly-seed="):
            args.append(a)
    python = Path(sys.executable)
    try:
        python = python.relative_to(config.invocation_params.dir)
    except ValueError:
        pass
    seed = config.getoption("randomly_seed")
    return shlex.join([str(python), "-m", "pytest", *args, f"--randomly-seed={seed}"])


def pytest_terminal_summary(terminalreporter, config):
    """One line, at every verbosity: ``random order: --randomly-seed=N; replay: <command>``, or
    ``random order: off`` when pytest-randomly is not active (``-p no:randomly``, not installed)."""
    if not config.pluginmanager.hasplugin("randomly"):
        terminalreporter.write_line("random order: off (file order)")
        return
    seed = config.getoption("randomly_seed")
    terminalreporter.write_line(f"random order: --randomly-seed={seed}; replay: {replay_command(config)}")
