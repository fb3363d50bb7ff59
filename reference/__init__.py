"""perceptron-margins: textbook-literal reference implementations of

* Ramdas & Pena, *Margins, Kernels and Non-linear Smoothed Perceptrons* (ICML 2014)  -- "RP14"
* Panagiotakopoulos & Tsampouka, *The Perceptron with Dynamic Margin* (ALT 2011)     -- "PT11"

Every algorithm runs in float64 or, with ``precision=<digits>``, in mpmath, with the same code,
and returns a :class:`Result` whose claim was verified before it was returned.
"""

from .algorithms import (
    SPECS,
    isnkpvn,
    nkp,
    normalized_perceptron,
    nvn,
    pdm,
    pdm_succ,
    perceptron,
    pfm,
    snkp,
    snkpvn,
)
from .arithmetic import Arithmetic, arithmetic, g_norm, project_simplex, softmax
from .data import augment, drop_zero_rows, extend, reflect
from .exact import verify_exact, verify_margin_exact
from .gram import gram, kernel_matrix, signed_gram
from .margins import DataMargin, Margin, margin, margin_from_data
from .patterns import Patterns, make_patterns
from .readers import load_csv, load_data, load_libsvm, load_npy, load_npz
from .result import CERTIFICATE, MAX_ITER, SEPARATOR, Result

ALGORITHMS = tuple(SPECS)  # the ten algorithms, in the papers' order (reference.algorithms.SPECS)

__all__ = [
    "ALGORITHMS",
    "Arithmetic",
    "CERTIFICATE",
    "DataMargin",
    "Patterns",
    "MAX_ITER",
    "Margin",
    "Result",
    "SEPARATOR",
    "arithmetic",
    "augment",
    "drop_zero_rows",
    "extend",
    "g_norm",
    "gram",
    "isnkpvn",
    "kernel_matrix",
    "load_csv",
    "load_data",
    "load_libsvm",
    "load_npy",
    "load_npz",
    "margin",
    "margin_from_data",
    "make_patterns",
    "nkp",
    "normalized_perceptron",
    "nvn",
    "pdm",
    "pdm_succ",
    "perceptron",
    "pfm",
    "project_simplex",
    "reflect",
    "signed_gram",
    "snkp",
    "snkpvn",
    "softmax",
    "verify_exact",
    "verify_margin_exact",
]
