"""The status values of a :class:`reference.Result`: what a run claims.

A leaf module (it imports nothing of ours): :mod:`reference.result`, which builds Results, and
:mod:`reference.exact`, which re-checks their claims, both take the status values from here.
"""

from __future__ import annotations

__all__ = ["SEPARATOR", "CERTIFICATE", "MAX_ITER", "STATUSES"]

SEPARATOR = "separator"  # a verified separator: G alpha > 0, or y_i <w, x_i> > 0 for every point
CERTIFICATE = "certificate"  # a verified certificate: p in the simplex, ||p||_G within its accuracy
MAX_ITER = "max_iter"  # no verified claim within the budget
STATUSES = (SEPARATOR, CERTIFICATE, MAX_ITER)
