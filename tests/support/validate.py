"""Helpers shared by several test files."""

from __future__ import annotations

import time

import numpy as np
import pytest

from theorems import cli
from theorems.instances.instance import Instance


# -- check_strict (layer 3) ---------------------------------------------------------------------------
#
# The Perceptron on e1, e2 (both labelled +1), by hand: at w_0 = 0 both points are mistakes
# (y_i <w_0, x_i> = 0 <= 0) -- a free choice for a Perceptron that claims no rule; the cyclic and
# the most-violated rule (smallest index on ties) both take x_1: w_1 = e1; then only x_2 is a
# mistake: w_2 = e1 + e2, which separates.  Status "separator" after 2 updates.
E1E2 = Instance("e1e2", np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, 1]))


# TWICE: the point (1, 0) labelled +1 and -1: certified infeasible, the Perceptrons, NKP and SNKP
# never stop.
TWICE = (np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([1, -1]))


def _cli(argv, capsys):
    from theorems.cli import main

    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse
        rc = exc.code
    err = capsys.readouterr().err.strip()
    return rc, err


@pytest.fixture(scope="module")
def cases_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("cases")
    assert cli.main(["export-cases", str(d), "--algorithms", "snkp", "pdm", "nvn"]) == 0
    return d


def _hangs(G, **kw):
    while True:  # ignores max_iter: its own (endless) budget
        time.sleep(0.01)
