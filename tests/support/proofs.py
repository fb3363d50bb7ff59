"""Helpers shared by several test files."""

from __future__ import annotations

from proofs_check import all_steps


STEPS = all_steps()


HOLDING = [st for st in STEPS if st.expected]
