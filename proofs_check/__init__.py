"""Step-by-step symbolic checks of the proofs of both papers.

Every algebraic step of the proofs of

- [RP14] A. Ramdas, J. Pena, *Margins, Kernels and Non-linear Smoothed Perceptrons*, ICML 2014, and
- [PT11] C. Panagiotakopoulos, P. Tsampouka, *The Perceptron with Dynamic Margin*, ALT 2011,

as restated in ``spec/algorithms.md``, is registered here as a named :class:`Step`.  Each step is
a function returning a :class:`StepResult`:

- identities are confirmed exactly by sympy (``simplify(lhs - rhs) == 0``);
- inequalities are confirmed by a symbolic argument: the sign of a factored difference, all
  coefficients non-negative after substituting slack variables, monotonicity through the sign of
  a derivative, or a known inequality instantiated;
- where symbolic reasoning cannot close a step, by rigorous interval evaluation with
  ``mpmath.iv`` over the stated domain (the domain is subdivided into boxes and the interval lower
  bound is shown to be positive on every box).

A step is never declared ``holds`` from sampling.  Sampling is only used to *exhibit* a
counterexample when a step fails.

Steps that are wrong as printed are registered with ``expected=False`` and carry their corrected
form in :attr:`Step.corrected`.  Every step with ``expected=True`` also registers ``perturb``, the
keyword arguments (a perturbed constant or exponent) that make the checked statement false; the
test-suite verifies that the check then reports ``fails``.

The steps are in :mod:`proofs_check.rp14` and :mod:`proofs_check.pt11`; what a step is, the
registry and the helpers that prove a step are in :mod:`proofs_check.steps`, which both import.
This package is self-contained: it imports only sympy and mpmath.

Run ``python -m proofs_check`` to print one line per step.
"""

from __future__ import annotations

import time
from typing import List, Tuple

from .steps import REGISTRY, Step, StepResult, register
from . import rp14  # noqa: F401  (registers the RP14 steps first)
from . import pt11  # noqa: F401  (then the PT11 steps)

__all__ = [
    "Step",
    "StepResult",
    "REGISTRY",
    "register",
    "all_steps",
    "get_step",
    "run_all",
]


def all_steps() -> List[Step]:
    """All registered steps, RP14 first, in registration order."""
    return list(REGISTRY.values())


def get_step(step_id: str) -> Step:
    """The step with the given id."""
    return REGISTRY[step_id]


def run_all() -> List[Tuple[Step, StepResult, float]]:
    """Run every step; returns ``(step, result, seconds)`` triples."""
    out = []
    for st in all_steps():
        t0 = time.perf_counter()
        res = st.run()
        out.append((st, res, time.perf_counter() - t0))
    return out
