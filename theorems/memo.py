"""The one memo of ``theorems``: results of the reference cached so that no cache outlives a
monkeypatch.

A result of ``reference`` depends on its input *and on the code that computed it*.  Tests (and
the checks' "can fail" self-tests) replace reference functions with broken ones; a cache keyed
on the input alone would hand the broken result to the next caller, or an earlier correct one
to a test that has just broken the code -- and the suite would depend on its order.  So every
key carries :func:`code_fingerprint`: the identities of every callable bound in the ``reference``
modules at the time of the call.  Rebinding any of them (``monkeypatch.setattr``, or undoing
it) changes the fingerprint, and the stale entries are simply never found again.

Mutation testing switches the code *behind* the same callables: mutmut 3 routes every reference
function through a trampoline that picks the mutant named by the environment variable
``MUTANT_UNDER_TEST``, and forks its test processes from one that may already hold a memo filled by
the original code.  So the fingerprint also carries that variable; without it a mutant would be
answered from the original's cache and survive unseen.  And while mutmut maps each test to the
functions it runs (``MUTANT_UNDER_TEST=stats``) nothing is cached: a value computed by one test and
read from the memo by the next would credit only the first with the code behind it, and a mutant
of that code would then be run against that test alone.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Dict, Hashable, Tuple

__all__ = ["code_fingerprint", "Memo"]

# objects whose id is part of a fingerprint are kept alive, so an id is never reused by a new
# object (a later monkeypatch) while a key holding it may still be looked up
_ALIVE: Dict[int, Any] = {}


def code_fingerprint() -> Tuple[int, ...]:
    """The ids of the callables bound in ``reference`` and its submodules, right now (and the
    mutant under test, if a mutation tester has selected one)."""
    out = [hash(os.environ.get("MUTANT_UNDER_TEST", ""))]
    for name in sorted(n for n in sys.modules if n == "reference" or n.startswith("reference.")):
        mod = sys.modules[name]
        if mod is None:
            continue
        for v in list(vars(mod).values()):
            if callable(v) and not isinstance(v, type):
                i = id(v)
                _ALIVE.setdefault(i, v)
                out.append(i)
    return tuple(out)


class Memo:
    """A bounded memo ``key -> value`` whose keys include :func:`code_fingerprint`.

    ``maxsize`` entries at most (the oldest go first); ``clear()`` empties it.
    """

    def __init__(self, maxsize: int = 512) -> None:
        self.maxsize = int(maxsize)
        self._d: Dict[Tuple[Hashable, Tuple[int, ...]], Any] = {}

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The value of ``compute()`` for ``key`` under the current reference code."""
        if os.environ.get("MUTANT_UNDER_TEST") == "stats":  # mutmut mapping tests to code: every test computes
            return compute()
        k = (key, code_fingerprint())
        if k in self._d:
            return self._d[k]
        v = compute()
        if len(self._d) >= self.maxsize:
            self._d.pop(next(iter(self._d)))
        self._d[k] = v
        return v

    def clear(self) -> None:
        self._d.clear()

    def __len__(self) -> int:
        return len(self._d)
