"""Tests of theorems/cli_common.py: the argument types and the progress printer the ``margins``
subcommands share."""

from __future__ import annotations

import argparse
import io

import numpy as np
import pytest

import reference as ref
from theorems.cli_common import Progress, add_max_bytes, positive_int


def test_progress_lines_on_stderr():
    buf = io.StringIO()
    prog = Progress("pdm", after=0.0, every=0.0, stream=buf)
    ref.pdm(np.array([[1.0, 2.0], [-1.0, 0.5]]), [1, -1], 0.5, progress=prog)
    lines = buf.getvalue().splitlines()
    assert lines and all(l.startswith("[pdm ") and "updates t = " in l and "epochs = " in l and "||a_t||/t = " in l
                         for l in lines)


@pytest.mark.parametrize("engine", ["textbook", "fast"])
def test_progress_shows_the_budget_rate_and_estimate(engine, monkeypatch):
    """Any algorithm, either engine: the counter against max_iter, the rate, the time left at most."""
    if engine == "fast":
        pytest.importorskip("numba")
        from reference.fast import engine as compiled

        monkeypatch.setattr(compiled, "CHUNK", 10)
    buf = io.StringIO()
    G = ref.gram(np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]]), np.ones(3))  # never separates
    ref.nkp(G, max_iter=100, engine=engine, progress=Progress("nkp", after=0.0, every=0.0, stream=buf, max_iter=100))
    lines = buf.getvalue().splitlines()
    assert lines and all(l.startswith("[nkp ") and "iterations = " in l and " of 100 (" in l and "/s" in l for l in lines)
    assert any("budget reached in <= " in l for l in lines)


def test_progress_is_silent_before_its_first_report():
    buf = io.StringIO()
    ref.pdm(np.array([[1.0, 2.0], [-1.0, 0.5]]), [1, -1], 0.5, progress=Progress("pdm", after=3600.0, stream=buf))
    assert buf.getvalue() == ""


@pytest.mark.parametrize("text", ["0", "-1", "1.5", "many"])
def test_positive_int_refuses_what_is_not_a_positive_integer(text):
    with pytest.raises(argparse.ArgumentTypeError, match=f"expected a positive integer, got {text!r}"):
        positive_int(text)


def test_max_bytes_takes_a_positive_integer_or_none():
    p = argparse.ArgumentParser()
    add_max_bytes(p)
    assert p.parse_args([]).max_bytes == ref.data.MAX_LIBSVM_BYTES
    assert p.parse_args(["--max-bytes", "10"]).max_bytes == 10 and positive_int("10") == 10
    assert p.parse_args(["--max-bytes", "None"]).max_bytes is None
    with pytest.raises(SystemExit):
        p.parse_args(["--max-bytes", "0"])
