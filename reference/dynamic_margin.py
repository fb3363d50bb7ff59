"""The Perceptron with Dynamic Margin of PT11: PDM (Sec. 3), PFM (eq. (7)) and PDM-succ (Sec. 4).

All three are one state machine, the algorithm box of PT11 Sec. 3 (spec B.4)::

    Define:     q_k = ||y_k||^2 ,  eps_bar = 1 - eps
    Initialize: t = 0 , a_0 = 0 , ell_0 = 0 , theta_0 = 0
    repeat
        for k = 1 to m do
            p_tk = a_t . y_k
            if p_tk <= theta_t then
                a_{t+1} = a_t + y_k ;  ell_{t+1} = ell_t + 2 p_tk + q_k ;  t <- t + 1
                theta_t = eps_bar ell_t / t
    until no update made within the for loop

They differ only in the threshold ``theta_t`` of the misclassification test ``p_tk <= theta_t``:

* PDM, condition (8):  theta_t = (1 - eps) ||a_t||^2 / t   (0 at t = 0, erratum E-B7);
* PFM, condition (7):  theta_t = beta ||a_t||              (beta = (1 - eps) gamma_d given);
* PDM-succ (Sec. 4):   PDM whose eps is lowered from run to run (0.5, 0.5/eta, ..., eps;
  erratum E-B5), every run continuing from the previous (a, t, ell).

Each threshold is a small function (:func:`pdm_threshold`, :func:`pfm_threshold`); the loop
(:func:`_step`) is written once.  ``ell_t`` is carried by its recurrence and is never recomputed.

The two fast paths of PT11 Sec. 4 (spec B.9) sit beside the box, off by default:

* ``active_sets=True``: three-level nested active sets (c_1 = 2.2, c_2 = 1.1, c_3 = 1;
  N_ep1 = 9, N_ep2 = N_ep3 = 12), a fresh random permutation for every full pass;
* ``multiple_updates=True``: lambda = floor(mu_+) + 1 updates with one pattern at once, which is
  exactly what presenting it lambda times in a row would do (:func:`pdm_mu_plus`,
  :func:`pfm_mu_plus`).

They only change the order in which patterns are presented, so the guarantee is unchanged: on
convergence every pattern fails the test, hence ``min_k a.y_k/||a|| > theta_t/||a_t|| >=
(1 - eps) gamma_d``.

Conventions.  Patterns are rows: ``y_k = [l_k x_k, l_k rho]`` (augmentation by ``rho``, then
reflection; PT11 Sec. 2), extended by ``[l_k Delta delta_{1k}, ..., l_k Delta delta_{mk}]``
when ``Delta`` is given (PT11 Sec. 5).  Pattern indices in states and traces are 0-based.
The textbook engine: ``reference.pdm`` etc. (:mod:`reference.algorithms`) prepare a call once
(:func:`reference.prepare.prepare_pt11`) and :func:`run` it here, or in the compiled engine.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Optional, Tuple

import numpy as np

from .arithmetic import Arithmetic, arithmetic
from .data import augment, check_data, check_real, extend, reflect
from .patterns import Patterns
from .prepare import PT11Run, prepare_pt11, succ_schedule
from .result import (
    SEPARATOR,
    Algorithm,
    Result,
    drive,
    pattern_allowance,
    separator_allowance,
    verify_separator_patterns,
    verify_separator_primal,
)
from .blas import one_thread
from .states import ACTIVE_SET_C, ACTIVE_SET_C1_FIRST_EPOCH, ACTIVE_SET_N_EP, GUARD_STEPS, DynamicMarginState

__all__ = [
    "DynamicMarginState", "pdm", "pfm", "pdm_succ", "pdm_threshold", "pfm_threshold", "pdm_mu_plus", "pfm_mu_plus",
    "succ_schedule", "patterns", "run", "ACTIVE_SET_C", "ACTIVE_SET_N_EP",
]  # fmt: skip

# -- the problem ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Problem:
    P: Patterns  # the patterns y_k = l_k [x_k, rho, Delta e_k], held implicitly (O(nnz + m))
    q: np.ndarray  # q_k = ||y_k||^2
    ar: Arithmetic
    threshold: Callable  # (schedule value, t, ell, ar) -> theta_t
    mu_plus: Callable  # (schedule value, p, q, ell, t, ar) -> mu_+ or None (unbounded)
    schedule: tuple  # per run: eps_n (PDM, PDM-succ) or beta (PFM), in the arithmetic
    active_sets: bool
    multiple_updates: bool
    warmup: bool  # plain PDM: single updates and c_1 = 1.1 during the first epoch
    max_iter: int
    max_epochs: Optional[int]
    seed: int
    P_verify: Optional[Patterns] = None  # the patterns a separator is verified on (None: P itself)

    @property
    def m(self) -> int:
        return self.P.m

    @property
    def verified_on(self) -> Patterns:
        """P, or the patterns before an exact-but-underflowing rescaling (:func:`reference.prepare.prepare_pt11`)."""
        return self.P if self.P_verify is None else self.P_verify


# -- the thresholds of conditions (8) and (7) -----------------------------------------------------


def pdm_threshold(eps, t: int, ell, ar: Arithmetic):
    """theta_t = eps_bar ell_t / t with eps_bar = 1 - eps, for t >= 1  [PT11 eq. (8); box].

    (At t = 0 the box sets theta_0 = 0, E-B7; this function is not called there.)
    """
    eps_bar = 1 - eps
    return eps_bar * ell / t


def pfm_threshold(beta, t: int, ell, ar: Arithmetic):
    """theta_t = beta ||a_t|| = beta sqrt(ell_t)  [PT11 eq. (7)].

    ell_t = ||a_t||^2 >= 0 exactly; its recurrence can round to a tiny negative number when
    a_t returns to 0, so the square root is guarded as in :func:`reference.arithmetic.g_norm`.
    """
    return beta * ar.sqrt(ell if ell > 0 else ar.scalar(0))


# -- multiple updates (PT11 Sec. 4; spec B.9) -----------------------------------------------------


def pdm_mu_plus(eps, p, q, ell, t: int, ar: Arithmetic):
    """The larger root mu_+ of  eps q mu^2 + (t q + (2 eps - 1) p) mu + (t p - (1 - eps) ell) = 0.

    This is ``(t + mu) a_{t+mu}.y_k - (1 - eps) ||a_{t+mu}||^2 = 0`` with ``p = a_t.y_k``,
    ``q = ||y_k||^2``, ``ell = ||a_t||^2``  [PT11 Sec. 4; spec B.9; erratum E-B3: the larger
    root].  When (8) holds the constant term is <= 0, so mu_+ >= 0.  For B > 0 the same root is
    evaluated as 2C / (-B - sqrt(D)) to avoid cancellation.
    """
    A = eps * q
    B = t * q + (2 * eps - 1) * p
    C = t * p - (1 - eps) * ell
    D = B * B - 4 * A * C
    root = ar.sqrt(D if D > 0 else 0 * D)
    if B > 0:
        return 2 * C / (-B - root)
    return (-B + root) / (2 * A)


def pfm_mu_plus(beta, p, q, ell, t: int, ar: Arithmetic):
    """The larger root mu_+ of  (q - beta^2)(q mu^2 + 2 p mu) + p^2 - beta^2 ell = 0, or None.

    Presenting y_k again after mu updates with it tests ``p + mu q <= beta ||a_t + mu y_k||``;
    on the branch ``p + mu q >= 0`` this is the squared quadratic above  [PT11 Sec. 4; spec B.9].
    Its vertex is at ``p + mu q = 0``, so the larger root always lies on that branch, and it is
    ``mu_+ = (-p + beta sqrt((q ell - p^2)/(q - beta^2))) / q``.

    Returns ``None`` when ``q <= beta^2``: then the pattern satisfies (7) after any number of
    updates with it (lambda is unbounded; PFM cannot converge since beta >= ||y_k|| >= gamma_d).
    """
    s = q - beta * beta
    if not s > 0:
        return None
    disc = s * beta * beta * (q * ell - p * p)  # a quarter of the discriminant
    root = ar.sqrt(disc if disc > 0 else 0 * disc)
    return (-s * p + root) / (s * q)


def _holds_after(pb: _Problem, s: DynamicMarginState, j: int, p, n: int) -> bool:
    """Would y_j still satisfy the test after n more updates with it?  (p_{t+n} <= theta_{t+n})"""
    t = s.t + n
    ell = s.ell + 2 * n * p + n * n * pb.q[j]
    return p + n * pb.q[j] <= pb.threshold(pb.schedule[s.run], t, ell, pb.ar)


def _lambda(pb: _Problem, s: DynamicMarginState, j: int, p) -> int:
    """lambda = floor(mu_+) + 1, the number of repeated presentations of y_j that update.

    The quadratic formula is evaluated in the arithmetic at hand; at a root that is (nearly) an
    integer it can land on the wrong side, so lambda is then moved until the test holds after
    lambda - 1 updates and fails after lambda, which is the definition.  At t = 0 the threshold
    is 0 by definition (E-B7), not the formula: one update.  Capped so that t <= max_iter.
    """
    room = pb.max_iter - s.t
    if s.t == 0:
        return 1  # [E-B7] theta_0 = 0 is not (1 - eps) ell_0 / 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # a non-finite mu_+ is handled next
        mu = pb.mu_plus(pb.schedule[s.run], p, pb.q[j], s.ell, s.t, pb.ar)
    if mu is None or not mu == mu or mu in (np.inf, -np.inf):
        return 1  # unbounded (PFM with beta >= ||y_j||), or overflowed: plain single update
    lam = pb.ar.floor(mu) + 1  # [PT11 Sec. 4] lambda = [mu_+] + 1
    lam = max(1, min(lam, room))
    return _settle(lambda n: _holds_after(pb, s, j, p, n), lam, room)


def _settle(holds: Callable[[int], bool], lam: int, room: int) -> int:
    """The round-off guard of :func:`_lambda`: move lam in [1, room] until ``holds(lam - 1)``
    (or lam = 1) and ``not holds(lam)`` (or lam = room).

    Unit steps, as many as a root off by round-off needs; after GUARD_STEPS of them the steps
    double and the last one is bisected.  (With a subnormal q_k, B^2 in mu_+ underflows and mu_+
    can be off by 10^11: unit steps would not end.)  Mirrored by reference.fast.pt11_kernels._lambda.
    """
    steps = 0
    while lam > 1 and not holds(lam - 1):  # round-off guard: down
        if steps < GUARD_STEPS:
            lam -= 1
            steps += 1
            continue
        hi, d = lam - 1, 1  # not holds(hi)
        lo = hi - d
        while lo >= 1 and not holds(lo):
            hi, d = lo, 2 * d
            lo = hi - d
        lo = max(lo, 0)  # lo = 0: no update kept the test, lambda = 1
        while hi - lo > 1:  # lo = 0 or holds(lo); not holds(hi)
            mid = (lo + hi) // 2
            if holds(mid):
                lo = mid
            else:
                hi = mid
        return lo + 1
    steps = 0
    while lam < room and holds(lam):  # round-off guard: up
        if steps < GUARD_STEPS:
            lam += 1
            steps += 1
            continue
        lo, d = lam, 1  # holds(lo)
        hi = lo + d
        while hi < room and holds(hi):
            lo, d = hi, 2 * d
            hi = lo + d if d < room - lo else room
        while hi - lo > 1:  # holds(lo); hi = room or not holds(hi)
            mid = (lo + hi) // 2
            if holds(mid):
                lo = mid
            else:
                hi = mid
        return hi
    return lam


# -- the loop body (the box) ----------------------------------------------------------------------


def _update(pb: _Problem, s: DynamicMarginState, j: int, p) -> DynamicMarginState:
    """One perceptron update with y_j  [PT11 eq. (2); Sec. 3, algorithm box]."""
    a = pb.P.add(s.a, j)  # [PT11 box] a_{t+1} = a_t + y_k
    ell = s.ell + 2 * p + pb.q[j]  # [PT11 box] ell_{t+1} = ell_t + 2 p_tk + q_k
    t = s.t + 1  # [PT11 box] t <- t + 1
    theta = pb.threshold(pb.schedule[s.run], t, ell, pb.ar)  # [PT11 box] theta_t = eps_bar ell_t / t
    return replace(s, t=t, a=a, ell=ell, theta=theta, pattern=j, lam=1)


def _multiple_update(pb: _Problem, s: DynamicMarginState, j: int, p, lam: int) -> DynamicMarginState:
    """lambda updates with y_j at once  [PT11 Sec. 4, multiple updates; spec B.9]."""
    a = pb.P.add(s.a, j, lam)  # a <- a + lambda y_k
    ell = s.ell + 2 * lam * p + lam * lam * pb.q[j]  # ell <- ell + 2 lambda p + lambda^2 q
    t = s.t + lam  # t <- t + lambda
    theta = pb.threshold(pb.schedule[s.run], t, ell, pb.ar)
    return replace(s, t=t, a=a, ell=ell, theta=theta, pattern=j, lam=lam)


def _multiple_allowed(pb: _Problem, s: DynamicMarginState) -> bool:
    """Multiple updates are on, and (plain PDM) the first epoch is over  [spec B.9]."""
    return pb.multiple_updates and not (pb.warmup and s.epoch == 0)


def _step(pb: _Problem, s: DynamicMarginState) -> DynamicMarginState:
    """Present the patterns of the current pass from position k on, until one update is made
    or the pass ends  [PT11 Sec. 3, algorithm box: the body of ``for k = 1 to m``]."""
    if s.converged:  # converged, but the separator did not verify: see _unverified_update
        return _unverified_update(pb, s)
    a, theta, built, k = s.a, s.theta, s.built, s.k
    c = _filter_constant(pb, s) if pb.active_sets else None
    while k < len(s.order):
        j = s.order[k]
        p = pb.P.dot(a, j)  # [PT11 box] p_tk = a_t . y_k
        k += 1
        if c is not None and p <= c * theta:  # [PT11 Sec. 4] filter into the next set (pre-update state)
            built = (j, built)
        if p <= theta:  # [PT11 box; eqs. (7)/(8)] misclassification test, `<=` (E-B7)
            lam = _lambda(pb, s, j, p) if _multiple_allowed(pb, s) else 1
            s = _update(pb, s, j, p) if lam == 1 else _multiple_update(pb, s, j, p, lam)
            s = replace(s, k=k, built=built, updates_in_pass=s.updates_in_pass + 1)
            return _end_of_pass(pb, s) if k == len(s.order) else s
    return _end_of_pass(pb, replace(s, k=k, built=built, pattern=None, lam=0))


def _unverified_update(pb: _Problem, s: DynamicMarginState) -> DynamicMarginState:
    """A full pass made no update (p_tk > theta_t for every k), yet some a.y_k is not above its
    round-off allowance, so the separator is not verified.  Such a pattern counts as a mistake
    (the box's test read in floating point): one update with the first of them, then a fresh
    pass.  The exit test and the verification thus agree, and the run goes on."""
    j = _first_unverified(pb, s.a)
    s = _update(pb, replace(s, converged=False), j, pb.P.dot(s.a, j))
    if pb.active_sets:
        return _start_full_pass(pb, s)
    return replace(s, k=0, updates_in_pass=0)


def _end_of_pass(pb: _Problem, s: DynamicMarginState) -> DynamicMarginState:
    """``until no update made within the for loop``  [PT11 box]; or the active-set schedule."""
    if pb.active_sets:
        return _end_of_active_pass(pb, s)
    s = replace(s, epoch=s.epoch + 1, passes=s.passes + 1)
    if s.updates_in_pass == 0:
        return _end_of_run(pb, s)
    return replace(s, k=0, updates_in_pass=0)  # repeat: the next for loop


def _end_of_run(pb: _Problem, s: DynamicMarginState) -> DynamicMarginState:
    """A full pass made no update: the run has converged.  PDM-succ goes on with the next eps,
    continuing from the same (a, t, ell)  [PT11 Sec. 4, successive runs; spec B.8]."""
    s = replace(s, t_c=s.t_c + (s.t,))
    if s.run + 1 == len(pb.schedule):
        return replace(s, converged=True)
    run = s.run + 1
    theta = pb.threshold(pb.schedule[run], s.t, s.ell, pb.ar)  # theta_t with eps_{n+1}
    s = replace(s, run=run, theta=theta)
    return _start_full_pass(pb, s) if pb.active_sets else replace(s, k=0, updates_in_pass=0)


# -- three-level nested active sets (PT11 Sec. 4; spec B.9) ---------------------------------------


def _filter_constant(pb: _Problem, s: DynamicMarginState):
    """c of the set built by the current pass: c_1 (full pass), c_2 (S1), c_3 (S2); None (S3)."""
    if s.level == 3:
        return None
    if s.level == 0 and pb.warmup and s.epoch == 0:
        return pb.ar.scalar(ACTIVE_SET_C1_FIRST_EPOCH)  # plain PDM, first epoch: c_1 = 1.1
    return pb.ar.scalar(ACTIVE_SET_C[s.level])


def _unroll(built: tuple) -> Tuple[int, ...]:
    """The cons list (j, (j', (...))) as a tuple in presentation order."""
    out = []
    while built:
        out.append(built[0])
        built = built[1]
    return tuple(reversed(out))


def _permutation(m: int, rng_state: dict) -> Tuple[Tuple[int, ...], dict]:
    """The next random permutation of 0..m-1 from the generator in state ``rng_state``."""
    rng = np.random.default_rng()
    rng.bit_generator.state = rng_state
    perm = tuple(int(i) for i in rng.permutation(m))
    return perm, rng.bit_generator.state


def _start_pass(s: DynamicMarginState, level: int, order, **changes) -> DynamicMarginState:
    return replace(s, level=level, order=tuple(order), k=0, updates_in_pass=0, built=(), **changes)


def _start_full_pass(pb: _Problem, s: DynamicMarginState) -> DynamicMarginState:
    """A pass over the full data set in a fresh random permutation."""
    perm, rng_state = _permutation(pb.m, s.rng_state)
    return _start_pass(s, 0, perm, rng_state=rng_state, sets=((), (), ()), uses=(0, 0, 0))


def _back_to_s1(pb: _Problem, s: DynamicMarginState, n1: int) -> DynamicMarginState:
    """Return to S1: use it again (building a new S2), or after N_ep1 uses reload the data set."""
    if n1 < ACTIVE_SET_N_EP[0]:
        return _start_pass(s, 1, s.sets[0], uses=(n1, 0, 0))
    return _start_full_pass(pb, s)


def _end_of_active_pass(pb: _Problem, s: DynamicMarginState) -> DynamicMarginState:
    """The nested schedule: full pass -> S1 (x N_ep1) -> S2 (x N_ep2) -> S3 (x N_ep3).

    Every pass updates when the test holds and filters with the pre-update state; a loop at
    any level ends early after a pass without an update; a full pass without an update ends
    the run.
    """
    s = replace(s, passes=s.passes + 1)
    made_update = s.updates_in_pass > 0
    new_set = _unroll(s.built)
    S1, S2, S3 = s.sets
    n1, n2, n3 = s.uses
    if s.level == 0:  # full pass, built S1
        s = replace(s, epoch=s.epoch + 1)
        if not made_update:
            return _end_of_run(pb, s)  # no pattern satisfies the test: stop
        return _start_pass(s, 1, new_set, sets=(new_set, (), ()), uses=(0, 0, 0))
    if s.level == 1:  # pass over S1, built S2
        n1 += 1
        if not made_update:
            return _start_full_pass(pb, s)
        return _start_pass(s, 2, new_set, sets=(S1, new_set, ()), uses=(n1, 0, 0))
    if s.level == 2:  # pass over S2, built S3
        n2 += 1
        if not made_update:
            return _back_to_s1(pb, s, n1)
        return _start_pass(s, 3, new_set, sets=(S1, S2, new_set), uses=(n1, n2, 0))
    n3 += 1  # pass over S3 (a mini-epoch)
    if made_update and n3 < ACTIVE_SET_N_EP[2]:
        return _start_pass(s, 3, S3, uses=(n1, n2, n3))
    if n2 < ACTIVE_SET_N_EP[1]:
        return _start_pass(s, 2, S2, uses=(n1, n2, 0))  # use S2 again: build a new S3
    return _back_to_s1(pb, s, n1)


# -- init, exit, verify, output -------------------------------------------------------------------


def _init(pb: _Problem) -> DynamicMarginState:
    ar, d = pb.ar, pb.P.dim
    s = DynamicMarginState(
        t=0,  # [PT11 box] t = 0
        a=ar.zeros(d),  # a_0 = 0
        ell=ar.scalar(0),  # ell_0 = 0
        theta=ar.scalar(0),  # theta_0 = 0  (E-B7)
        k=0,
        order=tuple(range(pb.m)),  # for k = 1 to m
    )
    if pb.active_sets:
        s = _start_full_pass(pb, replace(s, rng_state=np.random.default_rng(pb.seed).bit_generator.state))
    return s


def _first_unverified(pb: _Problem, a: np.ndarray) -> int:
    """The first pattern whose a . y_k is not above the verifier's round-off allowance."""
    P = pb.verified_on
    if a.dtype == object:
        Y = pb.ar.array(P.dense())
        margins, slack = separator_allowance(Y, a, Y.shape[1])
    else:
        margins, slack = pattern_allowance(P.data, P.indices, P.indptr, P.labels, P.rho, P.Delta, a, P.n_features)
    return next(i for i in range(P.m) if not margins[i] > slack[i])


def _verify(pb: _Problem, s: DynamicMarginState, claim: str) -> str:
    P = pb.verified_on
    if s.a.dtype == object:  # mpmath: small problems only; the dense patterns at this precision
        return verify_separator_primal(pb.ar.array(P.dense()), s.a)
    # float64: the implicit patterns, with verify_separator_primal's allowance (as the fast engine)
    return verify_separator_patterns(P.data, P.indices, P.indptr, P.labels, P.rho, P.Delta, s.a, P.n_features)


def _output(pb: _Problem, s: DynamicMarginState) -> dict:
    ar = pb.ar
    info = {
        "ell": s.ell,
        "theta": s.theta,
        "epochs": s.epoch,
        "passes": s.passes,
        "t_c": s.t_c,
        "R": ar.sqrt(max(pb.q)),  # R = max_k ||y_k||
        "margin": None,
        "upper_bound": None,
    }
    norm = ar.sqrt(s.a @ s.a)  # computed fresh, not from ell
    if norm > 0:  # (a_t = 0 at t = 0, or after cancelling updates on non-separable data)
        info["margin"] = min(pb.P.matvec(s.a)) / norm  # achieved directional margin min_k a.y_k/||a||
    if s.t > 0:
        info["upper_bound"] = norm / s.t  # ||a_t||/t >= gamma_d  [PT11 eq. (4)] (fresh norm: ell may round below 0)
    return {"w": s.a, "info": info}


def _algorithm(name: str) -> Algorithm:
    return Algorithm(
        name=name,
        init=_init,
        step=_step,
        exit=lambda pb, s: SEPARATOR if s.converged else None,
        counter=lambda s: s.t,
        verify=_verify,
        output=_output,
    )


PDM = _algorithm("pdm")
PFM = _algorithm("pfm")
PDM_SUCC = _algorithm("pdm_succ")


# -- public functions -----------------------------------------------------------------------------


def patterns(X, y, *, rho=1.0, Delta=None, precision: Optional[int] = None) -> np.ndarray:
    """The patterns y_k as rows: ``[l_k x_k, l_k rho]``, extended by ``l_k Delta e_k`` if Delta.

    Augmentation by rho, then reflection [PT11 Sec. 2], then the extended space [PT11 Sec. 5]
    (``rho=None``: no augmentation; ``Delta=None``: no extension).  Inputs are validated as in
    :func:`pdm`.
    """
    ar = arithmetic(precision)
    X, y = _check_data(X, y, rho, Delta)
    with ar.context():
        return _patterns(X, y, rho, Delta, ar)


def _check_data(X, y, rho, Delta):
    _check_optional_positive("rho", rho, "pass rho=1.0, or rho=None for no augmentation")
    _check_optional_positive("Delta", Delta, "pass e.g. Delta=1.0, or Delta=None for the original space")
    # A zero point is allowed when augmentation or extension makes its pattern nonzero.
    return check_data(X, y, nonzero=rho is None and Delta is None)


def _patterns(X, y, rho, Delta, ar: Arithmetic) -> np.ndarray:
    Z = ar.array(X)
    if rho is not None:
        Z = augment(Z, ar.scalar(rho))  # x_k -> [x_k, rho]
    Z = reflect(Z, y)  # y_k = [l_k x_k, l_k rho]
    if Delta is not None:
        Z = extend(Z, y, ar.scalar(Delta))  # [ybar_k, l_k Delta delta_{1k}, ..., l_k Delta delta_{mk}]
    return ar.array(Z)


def _check_optional_positive(name: str, value, hint: str) -> None:
    if value is not None:
        check_real(name, value, low=0, hint=hint)


def run(pt: PT11Run, progress=None) -> Result:
    """Drive the PT11 machine on a prepared call (:func:`reference.prepare.prepare_pt11`)."""
    algorithm = {"pdm": PDM, "pfm": PFM, "pdm_succ": PDM_SUCC}[pt.name]
    threshold, mu_plus = (pfm_threshold, pfm_mu_plus) if pt.pfm else (pdm_threshold, pdm_mu_plus)
    ar, P = pt.ar, pt.P
    with ar.context():
        q = ar.array([P.sqnorm(k, ar) for k in range(P.m)]) if ar.is_mp else P.sqnorms()  # q_k = ||y_k||^2
        pb = _Problem(
            P=P, P_verify=pt.P_verify, q=q, ar=ar, threshold=threshold, mu_plus=mu_plus,
            schedule=tuple(ar.scalar(v) for v in pt.schedule), active_sets=pt.active_sets,
            multiple_updates=pt.multiple_updates, warmup=pt.warmup, max_iter=pt.max_iter, max_epochs=pt.max_epochs, seed=pt.seed,
        )  # fmt: skip
    budget = None if pt.max_epochs is None else (lambda pb, s: s.epoch >= pb.max_epochs)
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a callable progress(state) or None, got {progress!r}")
    result = drive(algorithm, pb, ar, pt.max_iter, pt.trace, budget=budget, progress=progress)
    return replace(result, info={**result.info, **pt.info})


_KEYWORDS_DOC = """
    rho : float or None, default 1.0
        Augmentation x_k -> [x_k, rho] (a bias); ``None`` for none (then zero rows of X are
        rejected).  The last entry of the augmented part of ``Result.w`` multiplies rho: the
        classifier is ``sign(w[:d] . x + rho w[d])``.
    Delta : float or None
        Solve in the extended space of PT11 Sec. 5 (2-norm soft margin): patterns get m more
        coordinates ``l_k Delta delta_{ik}``, which makes any data set separable with margin
        >= Delta/sqrt(m).  ``Result.w[d+1:]`` (``w[d:]`` without rho) are those coordinates.
    active_sets : bool
        Three-level nested active sets of PT11 Sec. 4 (off in the textbook box).
    multiple_updates : bool
        lambda = floor(mu_+) + 1 updates at once (PT11 Sec. 4; off in the textbook box).
    max_iter : int
        Budget on t (the number of updates); a run stops once t reaches it.
    max_epochs : int or None, default None
        Optional budget on full passes over the data set.  None: no cap -- every pass but the
        last makes an update, so ``max_iter`` already bounds the work.
    seed : int
        Seed of ``np.random.default_rng`` for the permutations of the active sets.
    trace : bool
        Record every state (one per update; see :class:`DynamicMarginState`).
    precision : int, optional
        Run in mpmath at this many decimal digits.
    progress : callable, optional
        Textbook engine: called as ``progress(state)`` after every step (a
        :class:`DynamicMarginState`: t, epoch, ell = ||a_t||^2, ...), e.g. to report on stderr.

    Returns
    -------
    Result
        ``status="separator"`` once a full pass makes no update and ``a . y_k > 0`` is verified
        for every pattern; else ``"max_iter"``.  ``iterations`` = t, ``w`` = a_t (in the
        augmented / extended space).  ``info``: ``ell`` (= ||a_t||^2 by recurrence), ``theta``,
        ``epochs``, ``passes``, ``margin`` (min_k a.y_k/||a||, computed fresh), ``R``
        (max_k ||y_k||), ``upper_bound`` (||a_t||/t >= gamma_d, eq. (4)), ``t_c``, ``rho``,
        ``Delta``.
"""


@one_thread
def pdm(
    X,
    y,
    epsilon: float,
    *,
    rho: Optional[float] = 1.0,
    Delta: Optional[float] = None,
    active_sets: bool = False,
    multiple_updates: bool = False,
    max_iter: int = 1_000_000,
    max_epochs: Optional[int] = None,
    seed: int = 0,
    trace: bool = False,
    precision: Optional[int] = None,
    progress: Optional[Callable[[DynamicMarginState], None]] = None,
) -> Result:
    """The Perceptron with Dynamic Margin  [PT11 Sec. 3, algorithm box; spec B.4].

    Patterns y_k = [l_k x_k, l_k rho]; q_k = ||y_k||^2, eps_bar = 1 - eps; t = 0, a_0 = 0,
    ell_0 = 0, theta_0 = 0; repeat: for k = 1..m: p_tk = a_t.y_k; if p_tk <= theta_t:
    a_{t+1} = a_t + y_k, ell_{t+1} = ell_t + 2 p_tk + q_k, t += 1, theta_t = eps_bar ell_t / t;
    until no update within a full for loop.

    On convergence the directional margin is >= (1 - eps) gamma_d (Theorem 2 bounds t).
    With ``multiple_updates`` / ``active_sets`` (PT11 Sec. 4), multiple updates start, and c_1
    is 2.2 instead of 1.1, only after the first epoch.

    Parameters
    ----------
    X : array_like, shape (m, d)
        The points x_k (rows).
    y : array_like, shape (m,)
        Labels l_k in {+1, -1}.
    epsilon : float
        Accuracy eps in (0, 1]; eps = 1 is the classical perceptron (test p_tk <= 0).
    """
    return run(prepare_pt11(
        "pdm", X, y, epsilon, rho=rho, Delta=Delta, active_sets=active_sets, multiple_updates=multiple_updates,
        max_iter=max_iter, max_epochs=max_epochs, seed=seed, trace=trace, precision=precision,
    ), progress)  # fmt: skip


@one_thread
def pfm(
    X,
    y,
    beta: float,
    *,
    rho: Optional[float] = 1.0,
    Delta: Optional[float] = None,
    active_sets: bool = False,
    multiple_updates: bool = False,
    max_iter: int = 1_000_000,
    max_epochs: Optional[int] = None,
    seed: int = 0,
    trace: bool = False,
    precision: Optional[int] = None,
    progress: Optional[Callable[[DynamicMarginState], None]] = None,
) -> Result:
    """The Perceptron with Fixed Margin: the box of PDM with condition (7)  [PT11 eq. (7)].

    An update is made when ``a_t . y_k <= beta ||a_t||``, with ``||a_t|| = sqrt(ell_t)``.
    With ``beta = (1 - eps) gamma_d < gamma_d`` it converges (Theorem 1) to a directional
    margin > beta; with beta >= gamma_d it cannot converge.

    Parameters
    ----------
    X : array_like, shape (m, d)
    y : array_like, shape (m,)
    beta : float
        The fixed margin beta >= 0 (beta = 0 is the classical perceptron).
    """
    return run(prepare_pt11(
        "pfm", X, y, beta, rho=rho, Delta=Delta, active_sets=active_sets, multiple_updates=multiple_updates,
        max_iter=max_iter, max_epochs=max_epochs, seed=seed, trace=trace, precision=precision,
    ), progress)  # fmt: skip


@one_thread
def pdm_succ(
    X,
    y,
    epsilon: float,
    eta: float = 8.0,
    *,
    rho: Optional[float] = 1.0,
    Delta: Optional[float] = None,
    active_sets: bool = False,
    multiple_updates: bool = False,
    max_iter: int = 1_000_000,
    max_epochs: Optional[int] = None,
    seed: int = 0,
    trace: bool = False,
    precision: Optional[int] = None,
    progress: Optional[Callable[[DynamicMarginState], None]] = None,
) -> Result:
    """PDM with successive runs  [PT11 Sec. 4; spec B.8; erratum E-B5].

    Runs PDM with eps_1 = 1/2, eps_2 = eps_1/eta, ..., the last clamped to ``epsilon``
    (:func:`succ_schedule`; eta = 8, eps = 0.01 gives 0.5, 0.0625, 0.01); each run continues
    from the previous (a, t, ell) with a fresh for loop.  ``iterations`` is the total t;
    ``info["eps_schedule"]`` the accuracies and ``info["t_c"]`` t at the end of each run.

    Parameters
    ----------
    X : array_like, shape (m, d)
    y : array_like, shape (m,)
    epsilon : float
        Target accuracy in (0, 1].
    eta : float
        Ratio eta > 1 of successive accuracies.
    """
    return run(prepare_pt11(
        "pdm_succ", X, y, epsilon, eta, rho=rho, Delta=Delta, active_sets=active_sets, multiple_updates=multiple_updates,
        max_iter=max_iter, max_epochs=max_epochs, seed=seed, trace=trace, precision=precision,
    ), progress)  # fmt: skip


for _f in (pdm, pfm, pdm_succ):
    if _f.__doc__:  # None under python -OO
        _f.__doc__ = _f.__doc__.rstrip() + "\n" + _KEYWORDS_DOC
