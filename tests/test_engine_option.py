"""engine= on the public algorithms without numba: the textbook engine needs nothing, and
engine="fast" without numba says how to install it (runs whether numba is installed or not)."""

import numpy as np
import pytest

import reference
import reference.fast


def _planted(m, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    return X, np.where(X @ rng.normal(size=d) >= 0, 1, -1)


def test_unknown_engine_is_refused():
    X, y = _planted(10, 2)
    with pytest.raises(ValueError, match="engine must be one of"):
        reference.pdm(X, y, 0.1, engine="turbo")


def test_missing_numba_names_the_install_command(monkeypatch):
    monkeypatch.setattr(reference.fast, "available", lambda: False)
    X, y = _planted(10, 2)
    for call in (lambda: reference.nkp(reference.gram(X, y), engine="fast"), lambda: reference.pdm(X, y, 0.1, engine="fast")):
        with pytest.raises(ValueError, match=r"pip install 'perceptron-margins\[fast\]'"):
            call()
    assert reference.nkp(reference.gram(X, y)).engine == "textbook"  # the textbook engine needs no numba


