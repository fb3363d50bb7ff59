"""Tests of theorems/validate/test_call.py."""

from __future__ import annotations

from tests.support.instances import files


def test_validate_user_file_named_numpy_does_not_shadow_numpy(files):
    import sys

    from theorems.validate.call import load_callable

    np_before = sys.modules["numpy"]
    fn = load_callable(f"{files['numpy_py']}:fn")
    assert callable(fn) and sys.modules["numpy"] is np_before
