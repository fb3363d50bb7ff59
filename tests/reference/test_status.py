"""Tests of reference/status.py: the status values of a Result."""

from __future__ import annotations

import reference
from reference import exact, result, status


def test_the_status_values_are_defined_once():
    assert status.STATUSES == ("separator", "certificate", "max_iter")
    for name in ("SEPARATOR", "CERTIFICATE", "MAX_ITER"):
        assert getattr(result, name) is getattr(status, name) is getattr(reference, name), name
    assert (exact.SEPARATOR, exact.CERTIFICATE) == (status.SEPARATOR, status.CERTIFICATE)
    assert result.STATUSES is status.STATUSES
