"""Shared pytest configuration: hypothesis profiles.

* ``ci``  (default): fixed example budget, derandomized, no deadline -- the same run every time.
* ``dev``: more examples, random seeds, for local bug hunting (HYPOTHESIS_PROFILE=dev).
"""

import os

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


# The "quality" tier: tests that prove the suite catches deliberately broken algorithms
# (theorem checks fed a broken variant or a doctored trace, the validation harness's mutant zoo,
# proof steps with a perturbed constant).  They run in every default run; `pytest -m quality`
# runs them alone.
QUALITY_MARKERS = ("can_fail", "mutant", "doctored", "perturbed", "rejects_broken")


def pytest_collection_modifyitems(config, items):
    import pytest

    for item in items:
        if any(word in item.name for word in QUALITY_MARKERS):
            item.add_marker(pytest.mark.quality)
