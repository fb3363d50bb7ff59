"""The states of the ten algorithms, and the constants both engines share.

A state is what one step of the paper's loop leaves behind (:func:`reference.result.drive`
records them as the trace).  The textbook modules (:mod:`reference.perceptrons`,
:mod:`reference.von_neumann`, :mod:`reference.smoothed`, :mod:`reference.dynamic_margin`) step
them; the compiled engine (:mod:`reference.fast`) returns its traces as the same classes.  Both
import them from here, and this module imports neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from .result import Result

__all__ = [
    "RULES",
    "PerceptronState",
    "NKPState",
    "NVNState",
    "SmoothState",
    "OuterRecord",
    "OuterState",
    "DynamicMarginState",
    "ACTIVE_SET_C",
    "ACTIVE_SET_C1_FIRST_EPOCH",
    "ACTIVE_SET_N_EP",
    "GUARD_STEPS",
]


# -- RP14 Alg. 1-3: the perceptrons (reference.perceptrons) ------------------------------------

#: The Perceptron's choice of the mistake it updates on  [RP14 Alg. 1].
RULES = ("cyclic", "most_violated")


@dataclass(frozen=True)
class PerceptronState:
    """The state of Algorithms 1 and 2.

    Attributes
    ----------
    k : int
        Iteration counter (number of updates).
    w : ndarray
        w_k.
    start : int
        Alg. 1, cyclic rule: the index the next scan starts from (the point after the last
        update, wrapping); unused by Alg. 2.
    j : int or None
        The index used by the update that produced this state (``None`` for k = 0).
    """

    k: int
    w: np.ndarray
    start: int = 0
    j: Optional[int] = None


@dataclass(frozen=True)
class NKPState:
    """The state (k, alpha_k) of Algorithm 3; ``j`` is the index chosen by the last step."""

    k: int
    alpha: np.ndarray
    j: Optional[int] = None


# -- RP14 Alg. 5: NVN (reference.von_neumann) --------------------------------------------------


@dataclass(frozen=True)
class NVNState:
    """The state (k, p_k) of Algorithm 5; ``theta`` is theta_{k-1} and ``j`` the index used
    by the step that produced this state (``None`` at k = 0)."""

    k: int
    p: np.ndarray
    theta: object = None
    j: Optional[int] = None


# -- RP14 Alg. 4, 6, 7: the smoothed perceptrons (reference.smoothed) ---------------------------


@dataclass(frozen=True)
class SmoothState:
    """The state (k, alpha_k, p_k, mu_k) of Algorithms 4 and 6; ``theta`` is theta_{k-1}."""

    k: int
    alpha: np.ndarray
    p: np.ndarray
    mu: object
    theta: object = None


@dataclass(frozen=True)
class OuterRecord:
    """One outer loop t of Alg. 7: the prox-centre q_t, delta_t, and the SNKPVN(q_t, delta_t) run."""

    t: int
    q: np.ndarray
    delta: object
    inner: Result


@dataclass(frozen=True)
class OuterState:
    """The state of Alg. 7 after t outer loops.

    Attributes
    ----------
    t : int
        Outer loops done (calls of SNKPVN made).
    q : ndarray
        q_t, the current prox-centre (q_0 = 1_n/n).
    iterations : int
        Total inner iterations so far (the budget counter).
    deltas, inner_iterations : tuple
        delta_0 .. delta_{t-1} and the iteration counts of the t SNKPVN calls.
    alpha : ndarray or None
        The separator returned by the last SNKPVN call, if it returned one.
    exhausted : bool
        The last SNKPVN call ended without a verified claim (budget exhausted).
    last : OuterRecord or None
        The record of the loop that produced this state.
    """

    t: int
    q: np.ndarray
    iterations: int
    deltas: tuple = ()
    inner_iterations: tuple = ()
    alpha: Optional[np.ndarray] = None
    exhausted: bool = False
    last: Optional[OuterRecord] = None


# -- PT11: PDM, PFM, PDM-succ (reference.dynamic_margin) ------------------------------------------

#: Filtering constants (c_1, c_2, c_3) of the three-level active sets  [PT11 Sec. 4; spec B.9].
ACTIVE_SET_C = ("2.2", "1.1", "1")
#: c_1 during the first epoch of plain PDM  [spec B.9].
ACTIVE_SET_C1_FIRST_EPOCH = "1.1"
#: Number of uses (N_ep1, N_ep2, N_ep3) of S1, S2, S3  [PT11 Sec. 4; spec B.9, E-B6].
ACTIVE_SET_N_EP = (9, 12, 12)
#: Unit steps of the round-off guard before it doubles its steps (:func:`reference.dynamic_margin._settle`;
#: the compiled kernel :mod:`reference.fast.pt11_kernels` restates it, a test keeps the two equal).
GUARD_STEPS = 64


@dataclass(frozen=True)
class DynamicMarginState:
    """The state of the PDM / PFM / PDM-succ machine after one step.

    A step presents patterns from position ``k`` of the current pass until one update (or one
    multiple update) is made or the pass ends, so a trace holds one state per update (plus one
    state for every pass whose tail made no update).

    Attributes
    ----------
    t : int
        Number of updates so far (the paper's t).
    a : ndarray
        The weight vector a_t.
    ell : scalar
        ell_t, equal to ||a_t||^2, carried by the recurrence ell_{t+1} = ell_t + 2 p_tk + q_k.
    theta : scalar
        The threshold theta_t of the misclassification test p_tk <= theta_t.
    k : int
        Position in ``order`` of the next pattern to present.
    order : tuple of int
        The current pass: 0..m-1 in the textbook box; a permutation or an active set otherwise.
    epoch : int
        Completed passes over the whole data set (for loops of the box).
    updates_in_pass : int
        Update events (single or multiple) made so far in the current pass.
    pattern : int or None
        The (0-based) pattern updated by the step that produced this state; ``None`` if that
        step ended a pass without an update.
    lam : int
        Number of updates made by that step (1 in the box; lambda with multiple updates; 0).
    run : int
        Index of the current run of PDM-succ (0 for PDM and PFM).
    t_c : tuple of int
        t at the end of every completed run.
    converged : bool
        A full pass of the last run made no update.
    passes : int
        Passes of any kind so far (full passes and active-set passes).
    level : int
        Active sets: 0 = full pass, 1/2/3 = pass over S1/S2/S3.
    sets : tuple of tuples
        Active sets (S1, S2, S3) in presentation order.
    built : tuple
        The set being built by the current pass, as a cons list ``(index, rest)``.
    uses : tuple of int
        Uses (n1, n2, n3) of S1, S2, S3 in their current loops.
    rng_state : dict or None
        State of the permutation generator (active sets), so that every step is a pure function.
    """

    t: int
    a: np.ndarray
    ell: object
    theta: object
    k: int
    order: Tuple[int, ...]
    epoch: int = 0
    updates_in_pass: int = 0
    pattern: Optional[int] = None
    lam: int = 0
    run: int = 0
    t_c: Tuple[int, ...] = ()
    converged: bool = False
    passes: int = 0
    level: int = 0
    sets: Tuple[Tuple[int, ...], ...] = ((), (), ())
    built: tuple = ()
    uses: Tuple[int, int, int] = (0, 0, 0)
    rng_state: Optional[dict] = None
