"""Skip markers for optional dependencies."""

from importlib.util import find_spec

import pytest

needs_numba = pytest.mark.skipif(find_spec("numba") is None, reason="the compiled engine needs numba: pip install -e '.[fast]'")
