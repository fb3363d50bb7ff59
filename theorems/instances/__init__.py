"""What the papers' statements are tried on.

* :mod:`.instance`    :class:`Instance`: data, kernel, Gram matrix and what is known by construction;
* :mod:`.strategies`  the public hypothesis strategies (planted margins, known optima), also
  importable as :mod:`theorems.strategies`;
* :mod:`.families`    the parametrized families of the bound explorer (``margins bounds --family``);
* :mod:`.suite`       the built-in suite every registered check runs on (``margins check``).
"""

from .instance import Instance

__all__ = ["Instance"]
