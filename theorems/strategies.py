"""The public hypothesis strategies, at their stable import path.

The code lives in :mod:`theorems.instances.strategies`; ``from theorems.strategies import
separable_instances`` keeps working.
"""

from .instances.strategies import *  # noqa: F401,F403  (the public face, see __all__)
from .instances.strategies import __all__  # noqa: F401
