"""The papers' iteration bounds, as the statements use them: :mod:`reference.paper_bounds`.

The formulas live in :mod:`reference` (the sized default budgets of :mod:`reference.budgets` are
taken from them); the checks (:mod:`theorems.rp14`, :mod:`theorems.pt11`), the demo, the bounds
explorer and the validation harness import them from here or from there: one place for every
formula.
"""

from reference.paper_bounds import *  # noqa: F401,F403
from reference.paper_bounds import __all__  # noqa: F401
