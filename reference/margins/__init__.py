"""Certified max margins, split by trust: what must be rigorous, and what only proposes.

Trusted (a claim is only as good as these; the proofs of rigour are checked against them):

* :mod:`.matrix` -- the matrix certified: validation of K, its exact value, its exact scaling;
* :mod:`.bounds` -- the certified bounds on m(K) from a Gram matrix and their rounding allowances
  [RP14 Lemma 3, Theorems 2-3];
* :mod:`.data_bounds` -- the certified bounds on the margin of a data set, from X, and the exact
  Gordan check [RP14 Lemma 3, Lemma 6].

Proposing only (their answers are witnesses the trusted modules evaluate; a wrong search can
widen an interval, never falsify it):

* :mod:`.search` -- Wolfe's min-norm point in Gram form, its KKT solves, the mpmath solver, the
  local search over facets;
* :mod:`.facets` -- the facets of the hull in span coordinates (complete enumeration), taken as an
  upper bound only with :func:`.bounds._facet_allowance`;
* :mod:`.data_search` -- Newton on the L2-SVM, the Gordan LP, Wolfe in primal form, the polish.

Drivers: :mod:`.driver` (:class:`Margin`, :func:`margin`) and :mod:`.data_driver`
(:class:`DataMargin`, :func:`margin_from_data`) put the two together.  :mod:`reference` exports
``Margin``, ``margin``, ``DataMargin`` and ``margin_from_data``; the rest of ``__all__`` here is the
second tier (stable for :mod:`theorems` and advanced users).
"""

from .bounds import lower_bound, upper_bound
from .data_bounds import certified_lower, certified_upper
from .data_driver import DataMargin, margin_from_data
from .data_search import gordan_certificate
from .driver import DEFAULT_MAX_SUBSETS, Margin, margin
from .facets import span_cut
from .search import DEFAULT_MAX_ITER, MinNormPoint, min_norm_point

__all__ = [
    "DEFAULT_MAX_ITER",
    "DEFAULT_MAX_SUBSETS",
    "DataMargin",
    "Margin",
    "MinNormPoint",
    "certified_lower",
    "certified_upper",
    "gordan_certificate",
    "lower_bound",
    "margin",
    "margin_from_data",
    "min_norm_point",
    "span_cut",
    "upper_bound",
]
