"""The suite's own configuration (tests/conftest.py): the random order's seed reaches every log.

``pytest -q`` prints no header, where pytest-randomly names its seed; the conftest prints it in the
terminal summary with the command that replays the order.  Checked on a tiny test folder run in a
subprocess with the conftest's hook: the printed command, run as printed, runs the tests in the
same order, and ``-p no:randomly`` says the order is off.
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(cmd, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_seed_line_names_the_seed_and_a_command_that_replays_the_order(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "conftest.py").write_text("from tests.conftest import pytest_terminal_summary  # noqa: F401\n")
    (tmp_path / "test_order.py").write_text(
        "import pathlib\n"
        + "".join(f"def test_{i}():\n    pathlib.Path('order.txt').open('a').write('{i} ')\n" for i in range(12))
    )
    first = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_order.py"], tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    lines = [ln for ln in first.stdout.splitlines() if ln.startswith("random order:")]
    assert len(lines) == 1, first.stdout
    m = re.fullmatch(r"random order: --randomly-seed=(\d+); replay: (.*)", lines[0])
    assert m, lines[0]
    seed, replay = m.group(1), shlex.split(m.group(2))
    assert replay[:3] == [sys.executable, "-m", "pytest"] and replay[-1] == f"--randomly-seed={seed}", replay
    assert replay[3:-1] == ["-q", "-p", "no:cacheprovider", "test_order.py"], replay
    order = (tmp_path / "order.txt").read_text()
    (tmp_path / "order.txt").unlink()

    again = _run(replay, tmp_path)  # the command exactly as printed
    assert again.returncode == 0, again.stdout + again.stderr
    assert (tmp_path / "order.txt").read_text() == order
    assert f"random order: --randomly-seed={seed}; replay: {m.group(2)}" in again.stdout  # a pinned seed is not repeated

    off = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "test_order.py"], tmp_path)
    assert off.returncode == 0 and "random order: off" in off.stdout, off.stdout + off.stderr
