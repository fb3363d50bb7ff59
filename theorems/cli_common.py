"""What the ``margins`` subcommands share: the argument types ``positive_int`` and ``--max-bytes``,
and the progress printer of the runs (``margins run``, ``margins validate ... --data``).

:mod:`theorems.cli` and the subcommands' own modules (:mod:`theorems.validate.cli`) import it; it
imports nothing of theirs, so the console script and its subcommands import each other in one
direction only.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Optional

import reference

__all__ = ["positive_int", "add_max_bytes", "Progress"]


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (``--limit 0`` / ``-1`` would silently mean 'all' / 'all but one')."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def _max_bytes(text: str) -> Optional[int]:
    """argparse type of ``--max-bytes``: a positive integer, or ``none`` for no cap."""
    return None if text.lower() == "none" else positive_int(text)


def add_max_bytes(parser) -> None:
    """Add ``--max-bytes N|none`` (the cap of :func:`reference.load_libsvm`) to ``parser``."""
    parser.add_argument("--max-bytes", type=_max_bytes, default=reference.data.MAX_LIBSVM_BYTES, metavar="N",
                        help=f"most bytes of text a LIBSVM file may hold, a .gz counted inflated (default "
                             f"{reference.data.MAX_LIBSVM_BYTES} = 1 GiB; 'none': no cap)")


def _counter(state) -> int:
    """The paper's counter of a state: t (PT11), the total inner iterations (ISNKPVN's OuterState), k."""
    for name in ("t", "iterations", "k"):
        v = getattr(state, name, None)
        if v is not None:
            return int(v)
    return 0


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Progress:
    """Progress of a run on stderr, after ``after`` seconds and then every ``every`` seconds: the
    counter against the budget ``max_iter`` (when known), the rate, the time the rest of the budget
    would take at that rate (an upper estimate: a run may end with a claim much earlier), and for
    PT11 the epochs and ||a_t||/t (an upper bound on gamma_d, PT11 eq. (4)).  Any algorithm's
    states, either engine (the compiled engine reports between chunks of its kernel)."""

    def __init__(self, name: str, after: float = 3.0, every: float = 5.0, stream=None, max_iter: Optional[int] = None):
        self.name, self.after, self.every, self.max_iter = name, after, every, max_iter
        self.stream = stream if stream is not None else sys.stderr
        self.t0 = time.perf_counter()
        self.next = self.t0 + after

    def __call__(self, state) -> None:
        now = time.perf_counter()
        if now < self.next:
            return
        self.next = now + self.every
        n = _counter(state)
        elapsed = now - self.t0
        rate = n / elapsed if elapsed > 0 else 0.0
        what = "updates t" if hasattr(state, "ell") else "iterations"
        text = f"[{self.name} {elapsed:7.1f} s] {what} = {n:,}"
        if self.max_iter:
            text += f" of {self.max_iter:,} ({100.0 * n / self.max_iter:.1f}%)"
        text += f", {rate:,.0f}/s"
        if self.max_iter and rate > 0 and n < self.max_iter:
            text += f", budget reached in <= {_duration((self.max_iter - n) / rate)}"
        if hasattr(state, "ell"):
            t = int(state.t)
            ratio = (max(float(state.ell), 0.0) ** 0.5) / t if t else float("nan")
            text += f", epochs = {state.epoch}, ||a_t||/t = {ratio:.6g}"
        print(text, file=self.stream, flush=True)
