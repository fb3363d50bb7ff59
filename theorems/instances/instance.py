"""Concrete instances the checks run on: a labelled data set plus a kernel, and what is known
about it by construction (planted margins, supports, delta_max).

Checks take an :class:`Instance`; hypothesis strategies (:mod:`theorems.strategies`) and the
built-in suite (:func:`builtin_suite`) produce them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Tuple, Union

import numpy as np

import reference

__all__ = ["Instance"]


@dataclass(frozen=True, eq=False)
class Instance:
    """A labelled data set, its kernel, and the quantities known by construction.

    Attributes
    ----------
    name : str                 readable id, used in failure messages (``"planted(n=8,d=3,rho=0.2,seed=4)"``)
    X : ndarray (n, d)         points as rows
    y : ndarray (n,)           +-1 labels
    kernel : str or callable   as in :func:`reference.gram`
    params : dict              kernel parameters
    known : dict               planted values, e.g. ``rho_2`` (normalized margin), ``rho``, ``gamma_d``,
                               ``delta_max``, ``support``; absent keys are unknown
    flags : tuple of str       edge-case classes: ``separable``, ``infeasible``, ``kernel``,
                               ``rational``, ``n1``, ``d1``, ``duplicates``, ``antipodal``,
                               ``collinear``, ``small_margin``, ``ties``
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    kernel: Union[str, Callable] = "linear"
    params: Dict[str, Any] = field(default_factory=dict)
    known: Dict[str, Any] = field(default_factory=dict)
    flags: Tuple[str, ...] = ()

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    def _memo(self, name: str, compute):
        """``compute()`` cached on the instance and on the reference code (:mod:`theorems.memo`),
        so a value computed by monkeypatched reference code is never served to anyone else.  A
        value set explicitly (``inst.__dict__[name] = ...``, how the "can fail" tests doctor a
        margin) wins."""
        from ..memo import code_fingerprint

        if name in self.__dict__:
            return self.__dict__[name]
        memo = self.__dict__.setdefault("_memo_values", {})
        key = (name, code_fingerprint())
        if key not in memo:
            memo[key] = compute()
        return memo[key]

    @property
    def G(self) -> np.ndarray:
        """The normalized signed Gram matrix (RP14 Sec. 3)."""
        return self._memo("G", lambda: reference.gram(self.X, self.y, self.kernel, **self.params))

    @property
    def K(self) -> np.ndarray:
        """The unnormalized signed Gram matrix Y K Y."""
        return self._memo("K", lambda: reference.signed_gram(self.X, self.y, self.kernel, **self.params))

    @property
    def margin_G(self):
        """Certified rho_K (margin of G)."""
        return self._memo("margin_G", lambda: reference.margin(self.G, of="span"))

    @property
    def margin_K(self):
        """Certified rho (margin of the unnormalized signed Gram)."""
        return self._memo("margin_K", lambda: reference.margin(self.K, of="span"))

    def __str__(self) -> str:
        return self.name


# -- small linear-algebra helpers of the builders (strategies and families) ----------------------


def _random_rotation(d: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random orthogonal d x d matrix (QR of a Gaussian matrix, sign-fixed)."""
    A = rng.standard_normal((d, d))
    Q, R = np.linalg.qr(A)
    return Q * np.sign(np.where(np.diag(R) == 0, 1.0, np.diag(R)))


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)
