"""Helpers shared by several test files."""

from theorems.strategies import degenerate_cases


ORTHO = lambda: [i for i in degenerate_cases() if i.name.startswith("deg:orthonormal")][0]  # noqa: E731  (bounds attained exactly)
