"""Tests of reference/engines.py: the engine names and the check of ``engine=``."""

from __future__ import annotations

import importlib.util

import pytest

import reference.engines as F
import reference.fast


def test_check_engine():
    pytest.importorskip("numba")  # check_engine("fast") needs it
    for name in ("TEXTBOOK", "FAST", "ENGINES", "INSTALL_HINT", "available", "check_engine"):
        assert getattr(reference.fast, name) is getattr(F, name), name  # re-exported by reference.fast
    assert (F.TEXTBOOK, F.FAST, F.ENGINES) == ("textbook", "fast", ("textbook", "fast"))
    assert F.check_engine("textbook") == "textbook" and F.check_engine("fast") == "fast"
    assert F.check_engine("textbook", 30) == "textbook"  # precision= is the textbook engine's
    assert F.check_engine("fast", None) == "fast"
    with pytest.raises(ValueError, match=r"^engine must be one of \('textbook', 'fast'\), got 'turbo'$"):
        F.check_engine("turbo")
    with pytest.raises(ValueError, match=r"^engine must be one of \('textbook', 'fast'\), got None$"):
        F.check_engine(None)
    msg = r"^engine='fast' runs in float64 only; precision= is the textbook engine's \(pass engine='textbook' with precision=\.\.\., or drop precision\)$"
    with pytest.raises(ValueError, match=msg):
        F.check_engine("fast", 30)
    with pytest.raises(ValueError, match=msg):
        F.check_engine("fast", 0)  # any precision, even a falsy one
    assert F.available() is True
    assert F.INSTALL_HINT == "pip install 'perceptron-margins[fast]'"


def test_check_engine_without_numba(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "numba" else real(name, *a))
    assert F.available() is False
    with pytest.raises(ValueError, match=r"^engine='fast' needs numba, which is not installed; run: pip install 'perceptron-margins\[fast\]'$"):
        F.check_engine("fast")
    assert F.check_engine("textbook") == "textbook"
