"""perceptron-margins: textbook-literal reference implementations of

* Ramdas & Pena, *Margins, Kernels and Non-linear Smoothed Perceptrons* (ICML 2014)  -- "RP14"
* Panagiotakopoulos & Tsampouka, *The Perceptron with Dynamic Margin* (ALT 2011)     -- "PT11"

Every algorithm runs in float64 or, with ``precision=<digits>``, in mpmath, with the same code,
and returns a :class:`Result` whose claim was verified before it was returned.
"""

from .arithmetic import Arithmetic, arithmetic, g_norm, project_simplex, softmax
from .data import augment, extend, load_libsvm, load_npz, reflect
from .dynamic_margin import pdm, pdm_succ, pfm
from .gram import gram, kernel_matrix, signed_gram
from .margin import Margin, margin
from .perceptrons import nkp, normalized_perceptron, perceptron
from .result import CERTIFICATE, MAX_ITER, SEPARATOR, Result
from .smoothed import isnkpvn, snkp, snkpvn
from .von_neumann import nvn

ALGORITHMS = (
    "perceptron",
    "normalized_perceptron",
    "nkp",
    "snkp",
    "nvn",
    "snkpvn",
    "isnkpvn",
    "pfm",
    "pdm",
    "pdm_succ",
)

__all__ = [
    "ALGORITHMS",
    "Arithmetic",
    "CERTIFICATE",
    "MAX_ITER",
    "Margin",
    "Result",
    "SEPARATOR",
    "arithmetic",
    "augment",
    "extend",
    "g_norm",
    "gram",
    "isnkpvn",
    "kernel_matrix",
    "load_libsvm",
    "load_npz",
    "margin",
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
]
