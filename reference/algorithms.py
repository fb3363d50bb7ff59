"""The table of the ten algorithms: what each takes and what it may claim.

One place for what the rest of the project would otherwise spell out again (the validation
harness, the ``margins`` command line, the bound explorer): the data an algorithm runs on, its
positional arguments after the data, in order, and the statuses it may return.

* ``data="gram"``      RP14's kernelized algorithms take the normalized signed Gram matrix G;
* ``data="primal"``    RP14's Perceptron and Normalized Perceptron take (X, y);
* ``data="patterns"``  PT11's algorithms take (X, y) and run on the augmented, reflected (and
  possibly extended) patterns y_k = l_k [x_k, rho, Delta e_k].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple

from .result import CERTIFICATE, MAX_ITER, SEPARATOR

__all__ = ["AlgorithmSpec", "SPECS"]


@dataclass(frozen=True)
class AlgorithmSpec:
    """One algorithm: its reference function's name, source, data, positional arguments, statuses."""

    name: str
    source: str
    data: str  # "gram", "primal" or "patterns"
    positional: Tuple[str, ...]  # the arguments after the data, in the reference function's order
    statuses: Tuple[str, ...]  # the statuses it may return


_SEP = (SEPARATOR, MAX_ITER)
_BOTH = (SEPARATOR, CERTIFICATE, MAX_ITER)

SPECS: Dict[str, AlgorithmSpec] = {s.name: s for s in (
    AlgorithmSpec("perceptron", "RP14 Alg. 1", "primal", (), _SEP),
    AlgorithmSpec("normalized_perceptron", "RP14 Alg. 2", "primal", (), _SEP),
    AlgorithmSpec("nkp", "RP14 Alg. 3", "gram", (), _SEP),
    AlgorithmSpec("snkp", "RP14 Alg. 4", "gram", (), _SEP),
    AlgorithmSpec("nvn", "RP14 Alg. 5", "gram", ("epsilon",), _BOTH),
    AlgorithmSpec("snkpvn", "RP14 Alg. 6", "gram", ("q", "delta"), _BOTH),
    AlgorithmSpec("isnkpvn", "RP14 Alg. 7", "gram", ("gamma", "epsilon"), _BOTH),
    AlgorithmSpec("pfm", "PT11 (7)", "patterns", ("beta",), _SEP),
    AlgorithmSpec("pdm", "PT11 algorithm box, (8)", "patterns", ("epsilon",), _SEP),
    AlgorithmSpec("pdm_succ", "PT11 Sec. 3", "patterns", ("epsilon", "eta"), _SEP),
)}
