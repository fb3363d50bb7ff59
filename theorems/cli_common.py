"""What the ``margins`` subcommands share: the argument types ``positive_int`` and ``--max-bytes``,
and the progress printer of the PT11 runs (``margins run``, ``margins validate ... --data``).

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


class Progress:
    """PT11 progress on stderr: after ``after`` seconds, then every ``every`` seconds: updates t,
    epochs, and ||a_t||/t (an upper bound on gamma_d, PT11 eq. (4))."""

    def __init__(self, name: str, after: float = 3.0, every: float = 5.0, stream=None):
        self.name, self.after, self.every = name, after, every
        self.stream = stream if stream is not None else sys.stderr
        self.t0 = time.perf_counter()
        self.next = self.t0 + after

    def __call__(self, state) -> None:
        now = time.perf_counter()
        if now < self.next:
            return
        self.next = now + self.every
        t = int(state.t)
        ratio = (max(float(state.ell), 0.0) ** 0.5) / t if t else float("nan")
        print(f"[{self.name} {now - self.t0:7.1f} s] updates t = {t}, epochs = {state.epoch}, ||a_t||/t = {ratio:.6g}",
              file=self.stream, flush=True)
