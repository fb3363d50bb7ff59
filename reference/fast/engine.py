"""Python wrappers of the compiled engine: validate once, hand arrays to a kernel, re-verify.

Each function here is what ``reference.<algorithm>(..., engine="fast")`` runs.  It validates its
arguments with :mod:`reference.data`'s checks (once), builds contiguous float64 arrays, calls the
numba kernel of :mod:`reference.fast.rp14_kernels` / :mod:`reference.fast.pt11_kernels`, and
checks the kernel's claim with the verifiers of :mod:`reference.result` in NumPy -- the kernel's
verdict is never trusted.  A refused claim does not end the run, as in the textbook driver: the
kernel returns at every claim with its state, and after a refusal it is called again from that
state with the remaining budget (:func:`_drive`; PT11: one update with the first pattern within
round-off, then a fresh pass).  The Result is the textbook's (same fields, ``info`` keys and
messages) with ``engine="fast"``.  The public functions of :mod:`reference.algorithms` call these
for ``engine="fast"``; PT11 calls arrive validated and prepared (:func:`reference.prepare.prepare_pt11`),
and ISNKPVN runs the textbook's outer loop (:func:`reference.smoothed.outer_loop`) around the
compiled SNKPVN.

Traces: the RP14 algorithms record their iterates (``trace=True``) as the same state classes as
the textbook code; the PT11 machine's trace (one state per update, active-set bookkeeping) is the
textbook engine's only.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, NamedTuple, Optional, Tuple

import numpy as np

from ..arithmetic import Arithmetic, g_norm
from ..data import check_gram, check_int, check_real, check_simplex
from ..prepare import PT11Run, check_primal_data, with_scale, working_points
from ..result import (
    CERTIFICATE,
    MAX_ITER,
    SEPARATOR,
    Result,
    budget_message,
    pattern_allowance,
    refused_claim_message,
    unverified_note,
    verified_message,
    verify_certificate,
    verify_certificate_factored,
    verify_separator_gram,
    verify_separator_factored,
    verify_separator_patterns,
    verify_separator_primal,
)
from ..smoothed import outer_loop
from ..states import (
    ACTIVE_SET_C,
    ACTIVE_SET_C1_FIRST_EPOCH,
    ACTIVE_SET_N_EP,
    RULES,
    DynamicMarginState,
    NKPState,
    NVNState,
    PerceptronState,
    SmoothState,
)
from . import FAST
from .operator import LinearGram

F64 = Arithmetic(None)


# -- the claim, verified, as a Result ----------------------------------------------------------------

CLAIMS = {0: None, 1: SEPARATOR, 2: CERTIFICATE}  # the kernels' claim codes

#: With a ``progress`` callable, the kernels run in chunks of this many iterations (RP14) or of
#: about this many updates (PT11, whole passes), and ``progress(state)`` is called between them.
CHUNK = 100_000


def _drive(
    call: Callable, tests: Tuple[str, ...], verify: Callable, noted: Tuple[str, ...], declined: Optional[Callable] = None,
    max_iter: Optional[int] = None, progress: Optional[Callable] = None,
) -> Tuple[int, str, str, int]:
    """The textbook driver's loop (reference.result.drive) around a compiled kernel.

    ``call(k, resume) -> (k, code, products)`` runs the kernel: afresh (``resume`` 0), or on from
    the state it left after a refused claim at k, its first ``resume`` exit tests at k already
    taken.  ``tests`` are the kernel's exit tests in the order it takes them.  Every claim is
    verified here (``verify(claim) -> reason``); a refused one does not end the run: the kernel
    goes on from that state, where the textbook loop goes on, until a claim verifies or the
    budget runs out.  A refused claim of ``noted`` kind is named in the message, as the textbook
    driver does (the others are part of the textbook's exit test itself, which refuses silently).

    ``declined() -> (k, reason) or None``: the last separator claim the kernel did not make
    because G v > 0 held only within round-off -- the textbook's exit test makes it and its
    verifier refuses it, so it is named too when it is the last.

    Returns ``(k, status, message, products)``.  A kernel that claims again what was just refused
    (it did not go on) ends the run with ``"max_iter"`` and the reason.

    ``call(k, resume, limit)``: ``limit`` is the kernel's budget for this call.  Without
    ``progress`` it is ``max_iter``; with it, the run goes in chunks of :data:`CHUNK` iterations:
    at the end of each, ``progress(k)`` is called and the kernel resumes from the state it left,
    every exit test at k already taken -- the same steps as one call, bit for bit.
    """
    k, resume, products, unverified, noted_at = 0, 0, 0, "", -1

    def limit_from(k):
        return max_iter if progress is None or max_iter is None else min(max_iter, k + CHUNK)

    limit = limit_from(0)
    while True:
        k_new, code, used = call(k, resume, limit)
        products += used
        claim = CLAIMS[code]
        if claim is None and progress is not None and max_iter is not None and limit < max_iter and k_new >= limit:
            progress(k_new)  # the end of a chunk: go on from this state, its exit tests taken
            k, resume, limit = k_new, len(tests), limit_from(k_new)
            continue
        if claim is None:
            last = declined() if declined is not None else None
            if last is not None and last[0] > noted_at:
                unverified = unverified_note(SEPARATOR, last[0], last[1])
            return k_new, MAX_ITER, budget_message(k_new, unverified), products
        reason = verify(claim)
        if not reason:
            return k_new, claim, verified_message(claim, F64.label), products
        position = tests.index(claim) + 1
        if k_new < k or (k_new == k and position <= resume):  # no progress: a broken kernel
            return k_new, MAX_ITER, refused_claim_message(claim, reason), products
        if claim in noted:
            unverified, noted_at = unverified_note(claim, k_new, reason), k_new
        k, resume = k_new, position


_INT64_MAX = int(np.iinfo(np.int64).max)


def _budget(max_iter) -> int:
    """``max_iter`` validated (:func:`reference.data.check_int`) and within the kernels' int64
    counters (k, t, the epochs)."""
    max_iter = check_int("max_iter", max_iter)
    if max_iter > _INT64_MAX:
        raise ValueError(f"max_iter must be <= 2^63 - 1 with engine='fast' (its counter is an int64), got {max_iter}; pass engine='textbook'")
    return max_iter


def _result(name: str, status: str, message: str, k: int, **fields) -> Result:
    return Result(algorithm=name, status=status, iterations=int(k), message=message, engine=FAST, **fields)


class GramArgs(NamedTuple):
    """The Gram operator as the RP14 kernels take it, their first arguments (reference.fast.rp14_kernels)."""

    kind: int  # DENSE (0) or FACTORED (1)
    G: np.ndarray  # the dense G, column-major (kind 0; else 0 x 0)
    data: np.ndarray  # Z in CSR (kind 1; else empty)
    indices: np.ndarray
    indptr: np.ndarray
    d: int  # columns of Z (kind 1; else 1)


class _Gram:
    """A validated Gram operator as kernel arguments, with its verifiers."""

    def __init__(self, G):
        if isinstance(G, LinearGram):
            self.kind, self.n, self.d = 1, G.shape[0], G.shape[1]
            self.G = np.zeros((0, 0))
            self.data, self.indices, self.indptr = G.Z.data, G.Z.indices, G.Z.indptr
            self.op = G
        else:
            Gf = check_gram(G)
            if Gf.dtype == object:
                Gf = Gf.astype(np.float64)
            self.kind, self.n, self.d = 0, Gf.shape[0], 1
            self.G = np.asfortranarray(Gf)  # columns contiguous: G v is a sum of columns
            self.data, self.indices, self.indptr = np.zeros(0), np.zeros(0, np.int64), np.zeros(1, np.int64)
            self.op = Gf

    @property
    def args(self) -> GramArgs:
        return GramArgs(self.kind, self.G, self.data, self.indices, self.indptr, self.d)

    def norm(self, v: np.ndarray) -> float:
        """||v||_G (g_norm of reference.arithmetic on a dense G; ||Z^T v|| on the operator)."""
        if self.kind == 0:
            return float(g_norm(self.op, v, F64))
        w = self.op.matvec(v)
        q = float(v @ w)
        return float(np.sqrt(q)) if q > 0 else 0.0

    def verify_separator(self, alpha: np.ndarray) -> str:
        if self.kind == 0:
            return verify_separator_gram(self.op, alpha)
        return verify_separator_factored(self.op.Z, alpha)

    def verify_certificate(self, p: np.ndarray, accuracy, strict: bool = True) -> str:
        if self.kind == 0:
            return verify_certificate(self.op, p, accuracy, F64, strict=strict)
        return verify_certificate_factored(self.op.Z, p, accuracy, strict=strict)


class _Declined:
    """The kernel's record of its last declined claim (:func:`rp14_kernels._note`): arrays it fills."""

    def __init__(self, g: _Gram):
        self.g, self.k, self.v = g, np.full(1, -1, dtype=np.int64), np.zeros(g.n)

    def __call__(self):
        """(k, the verifier's reason) of the last declined claim, or None."""
        return None if self.k[0] < 0 else (int(self.k[0]), self.g.verify_separator(self.v))


def _records(trace: bool, max_iter: int, n: int) -> np.ndarray:
    return np.zeros((max_iter + 1, n)) if trace else np.zeros((0, n))


# -- RP14 Gram algorithms ------------------------------------------------------------------------


def nkp(G, *, max_iter: int, trace: bool, progress: Optional[Callable] = None) -> Result:
    """NKP  [RP14 Alg. 3], compiled."""
    from . import rp14_kernels as K

    g = _Gram(G)
    max_iter = _budget(max_iter)
    rec = _records(trace, max_iter, g.n)
    alpha, Ga = np.zeros(g.n), np.zeros(g.n)  # the state: alpha_k, G alpha_k
    declined = _Declined(g)

    def call(k, resume, limit):
        nonlocal alpha
        k, alpha, separated, products = K.nkp(*g.args, limit, rec, alpha, Ga, declined.k, declined.v, k, resume)
        return k, int(separated), products

    report = None if progress is None else (lambda k: progress(NKPState(k=k, alpha=alpha.copy())))
    k, status, message, products = _drive(call, (SEPARATOR,), lambda claim: g.verify_separator(alpha), (SEPARATOR,), declined,
                                          max_iter, report)
    states = tuple(NKPState(k=i, alpha=rec[i].copy()) for i in range(k + 1)) if trace else None
    return _result("nkp", status, message, k, alpha=alpha, trace=states, info={"products": int(products)})


def nvn(G, epsilon, *, max_iter: int, trace: bool, progress: Optional[Callable] = None) -> Result:
    """NVN with the primal exit  [RP14 Alg. 5, E-A6], compiled."""
    from . import rp14_kernels as K

    g = _Gram(G)
    epsilon = check_real("epsilon", epsilon, low=0, high=1, hint="NVN's accuracy satisfies 0 < epsilon <= 1")
    max_iter = _budget(max_iter)
    rec = _records(trace, max_iter, g.n)
    rec_theta = np.zeros(rec.shape[0])
    p, Gp = np.zeros(g.n), np.zeros(g.n)  # the state: p_k, G p_k
    declined = _Declined(g)

    def call(k, resume, limit):
        nonlocal p
        k, p, code, products = K.nvn(*g.args, float(epsilon), limit, rec, rec_theta, p, Gp, declined.k, declined.v, k, resume)
        return k, code, products

    def verify(claim):
        if claim == SEPARATOR:
            return g.verify_separator(p)
        return g.verify_certificate(p, float(epsilon), strict=False)

    # the textbook's certificate exit is verified within the test: its refusal is not named
    report = None if progress is None else (lambda k: progress(NVNState(k=k, p=p.copy())))
    k, status, message, products = _drive(call, (CERTIFICATE, SEPARATOR), verify, (SEPARATOR,), declined, max_iter, report)
    states = None
    if trace:
        states = tuple(NVNState(k=i, p=rec[i].copy(), theta=None if i == 0 else float(rec_theta[i])) for i in range(k + 1))
    info = {"norm_p": g.norm(p), "epsilon": float(epsilon), "products": int(products)}
    return _result("nvn", status, message, k, p=p, alpha=p if status == SEPARATOR else None, trace=states, info=info)


def _smoothed(name: str, g: _Gram, q: Optional[np.ndarray], delta: Optional[float], max_iter: int, trace: bool,
              progress: Optional[Callable] = None) -> Result:
    """SNKP (q None) or SNKPVN(q, delta) on validated arguments."""
    from . import rp14_kernels as K

    prox = 0 if q is None else 1
    qv = np.zeros(g.n) if q is None else np.ascontiguousarray(q, dtype=np.float64)
    rec_a, rec_p = _records(trace, max_iter, g.n), _records(trace, max_iter, g.n)
    rec_mu = np.zeros(rec_a.shape[0])
    alpha, Ga, p, Gp, b, Gb = (np.zeros(g.n) for _ in range(6))  # the state: alpha_k, p_k, b = p_{mu_k}(alpha_k), G times each
    mu = 0.0
    declined = _Declined(g)  # SNKP only: SNKPVN's textbook exit verifies its separator itself

    def call(k, resume, limit):
        nonlocal alpha, p, mu
        args = (*g.args, prox, qv, 0.0 if delta is None else float(delta), limit, rec_a, rec_p, rec_mu)
        k, alpha, p, mu, code, products = K.smoothed(*args, alpha, Ga, p, Gp, b, Gb, mu, declined.k, declined.v, k, resume)
        return k, code, products

    def verify(claim):
        if claim == SEPARATOR:
            return g.verify_separator(alpha)
        return g.verify_certificate(p, delta)

    # SNKPVN's separator exit is verified within the textbook's test: its refusal is not named
    tests, noted = ((SEPARATOR,), (SEPARATOR,)) if q is None else ((SEPARATOR, CERTIFICATE), (CERTIFICATE,))
    report = None if progress is None else (lambda k: progress(SmoothState(k=k, alpha=alpha.copy(), p=p.copy(), mu=float(mu))))
    k, status, message, products = _drive(call, tests, verify, noted, declined, max_iter, report)
    states = None
    if trace:
        states = tuple(
            SmoothState(
                k=i, alpha=rec_a[i].copy(), p=rec_p[i].copy(), mu=float(rec_mu[i]), theta=None if i == 0 else 2.0 / (i + 2)
            )
            for i in range(k + 1)
        )
    info = {"mu": float(mu), "products": int(products)}
    if delta is not None:  # SNKPVN records its accuracy, as the textbook does
        info["delta"] = float(delta)
    return _result(name, status, message, k, alpha=alpha, p=p, trace=states, info=info)


def snkp(G, *, max_iter: int, trace: bool, progress: Optional[Callable] = None) -> Result:
    """SNKP  [RP14 Alg. 4], compiled: one softmax and one G-product per step."""
    g = _Gram(G)
    return _smoothed("snkp", g, None, None, _budget(max_iter), trace, progress)


def snkpvn(G, q, delta, *, max_iter: int, trace: bool, progress: Optional[Callable] = None) -> Result:
    """SNKPVN(q, delta)  [RP14 Alg. 6], compiled."""
    g = _Gram(G)
    q = check_simplex(q, g.n)
    delta = check_real("delta", delta, low=0, hint="SNKPVN's accuracy delta must be positive")
    return _smoothed("snkpvn", g, np.asarray(q, dtype=np.float64), float(delta), _budget(max_iter), trace, progress)


def isnkpvn(G, gamma, epsilon, *, max_iter: int, trace: bool, progress: Optional[Callable] = None) -> Result:
    """ISNKPVN(gamma, epsilon)  [RP14 Alg. 7]: the textbook's outer loop
    (:func:`reference.smoothed.outer_loop`) around the compiled SNKPVN."""
    g = _Gram(G)
    gamma = float(check_real("gamma", gamma, low=1, hint="ISNKPVN shrinks delta_t by gamma > 1 per outer loop"))
    epsilon = float(check_real("epsilon", epsilon, low=0, hint="the target accuracy must be positive"))
    max_iter = _budget(max_iter)
    last = {}  # the last SNKPVN call: its Result and the budget it was given

    def snkpvn(q, delta, budget, trace):
        last["inner"], last["budget"] = _smoothed("snkpvn", g, q, delta, budget, trace), budget  # SNKPVN(q_t, delta_t)
        return last["inner"]

    result = outer_loop(
        g.n, gamma, epsilon, F64, max_iter, trace, norm=g.norm, snkpvn=snkpvn, verify_separator=g.verify_separator,
        verify_certificate=lambda p, accuracy: g.verify_certificate(p, accuracy, strict=True), progress=progress,
    )  # fmt: skip
    message, inner = result.message, last.get("inner")
    if result.status == MAX_ITER and inner is not None and inner.status == MAX_ITER and inner.iterations < last["budget"]:
        message = f"SNKPVN call t = {result.info['T'] - 1}: {inner.message}"  # a broken SNKPVN kernel: budget left
    return replace(result, message=message, engine=FAST)


# -- RP14 primal algorithms ----------------------------------------------------------------------


def perceptron(X, y, *, rule: str, rho, max_iter: int, trace: bool, progress: Optional[Callable] = None) -> Result:
    """The Perceptron  [RP14 Alg. 1], compiled (dense X), on the textbook's working points."""
    from . import rp14_kernels as K

    X, y = check_primal_data(X, y, rho)
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    max_iter = _budget(max_iter)
    Z, Z_verify, e = working_points(X, y, rho, F64)  # rows y_i [x_i, rho], times 2^-e at extreme scales
    Z = np.ascontiguousarray(Z)
    rec = _records(trace, max_iter, Z.shape[1])
    w, cursor = np.zeros(Z.shape[1]), np.zeros(1, dtype=np.int64)  # the state: w_k, the next scan's start

    def call(k, resume, limit):
        nonlocal w
        k, w, separated = K.perceptron(Z, rule == "most_violated", limit, rec, w, k, cursor, resume)
        return k, int(separated), 0

    report = None if progress is None else (lambda k: progress(PerceptronState(k=k, w=w.copy(), start=int(cursor[0]))))
    k, status, message, _ = _drive(call, (SEPARATOR,), lambda claim: verify_separator_primal(Z_verify, w), (SEPARATOR,), None,
                                   max_iter, report)
    states = tuple(PerceptronState(k=i, w=rec[i].copy()) for i in range(k + 1)) if trace else None
    return with_scale(_result("perceptron", status, message, k, w=w, trace=states), e)


def normalized_perceptron(X, y, *, normalize: bool, rho, max_iter: int, trace: bool, progress: Optional[Callable] = None) -> Result:
    """The Normalized Perceptron  [RP14 Alg. 2], compiled (dense X), on the textbook's working points."""
    from . import rp14_kernels as K

    X, y = check_primal_data(X, y, rho)
    max_iter = _budget(max_iter)
    Z, Z_verify, e = working_points(X, y, rho, F64, normalize)  # X_2, or the points times 2^-e
    Z = np.ascontiguousarray(Z)
    rec = _records(trace, max_iter, Z.shape[1])
    w = np.zeros(Z.shape[1])  # the state: w_k

    def call(k, resume, limit):
        nonlocal w
        k, w, separated = K.normalized_perceptron(Z, limit, rec, w, k, resume)
        return k, int(separated), 0

    report = None if progress is None else (lambda k: progress(PerceptronState(k=k, w=w.copy())))
    k, status, message, _ = _drive(call, (SEPARATOR,), lambda claim: verify_separator_primal(Z_verify, w), (SEPARATOR,), None,
                                   max_iter, report)
    states = tuple(PerceptronState(k=i, w=rec[i].copy()) for i in range(k + 1)) if trace else None
    return with_scale(_result("normalized_perceptron", status, message, k, w=w, trace=states), e)


# -- PT11 ------------------------------------------------------------------------------------------


def pt11(pt: PT11Run, progress: Optional[Callable] = None) -> Result:
    """PDM / PFM / PDM-succ [PT11 box, Sec. 4, Sec. 5], compiled, on a call validated and prepared
    by :func:`reference.prepare.prepare_pt11` (as for the textbook engine): the implicit patterns
    y_k = l_k [x_k, rho, Delta e_k] of ``pt.P`` (times a power of two at extreme scales), a
    separator verified on ``pt.P_verify``.

    With ``progress``: the kernel runs whole passes in chunks of about :data:`CHUNK` updates (a
    cap on the epochs of the call; with active sets it returns at every full pass anyway), and
    ``progress(state)`` sees a :class:`~reference.states.DynamicMarginState` (t, a_t, ell_t,
    theta_t, epochs, passes) between chunks: a pass boundary, where the kernel's whole state is
    its arguments, so the steps are those of one call, bit for bit."""
    from . import pt11_kernels as K

    P, V, schedule = pt.P, pt.P_verify, np.asarray(pt.schedule, dtype=np.float64)
    rho, Delta = float(P.rho or 0.0), float(P.Delta or 0.0)
    data, indices, indptr, m, d = P.data, P.indices, P.indptr, P.m, P.n_features
    labels = np.ascontiguousarray(P.labels, dtype=np.float64)
    kind = K.PFM_KIND if pt.pfm else K.PDM_KIND
    max_iter = _budget(pt.max_iter)
    max_epochs = _INT64_MAX if pt.max_epochs is None or pt.max_epochs > _INT64_MAX else pt.max_epochs  # a pass count never reaches 2^63
    rows = np.repeat(np.arange(m), np.diff(indptr))
    q = np.bincount(rows, weights=data * data, minlength=m)  # q_k = ||y_k||^2 = ||x_k||^2 + rho^2 + Delta^2
    if P.rho is not None:
        q = q + float(P.rho) ** 2
    if P.Delta is not None:
        q = q + float(P.Delta) ** 2
    a_x = np.zeros(d)  # [PT11 box] a_0 = 0
    a_r = np.zeros(1 if P.rho is not None else 0)
    a_D = np.zeros(m if P.Delta is not None else 0)
    fstate = np.zeros(K.FSTATE_SIZE)  # ell_0 = 0, theta_0 = 0 (E-B7)
    istate = np.zeros(K.ISTATE_SIZE, dtype=np.int64)  # t = 0, no epochs, passes or runs yet
    t_c = np.zeros(len(schedule), dtype=np.int64)  # t at the end of every run
    c_sets, c1_first = np.array([float(c) for c in ACTIVE_SET_C]), float(ACTIVE_SET_C1_FIRST_EPOCH)
    n_ep = np.asarray(ACTIVE_SET_N_EP, dtype=np.int64)

    def run(perm, epochs):
        return K.run(
            data, indices, indptr, labels, q, rho, Delta, kind, schedule, pt.warmup, pt.active_sets, pt.multiple_updates,
            c_sets, c1_first, n_ep, max_iter, epochs, a_x, a_r, a_D, fstate, istate, t_c, perm,
        )  # fmt: skip

    def epochs_of_chunk():
        """The epoch cap of the next call: max_epochs, or with progress (no active sets) the passes
        of about CHUNK updates at the rate so far (at least one)."""
        if progress is None or pt.active_sets:
            return max_epochs
        epoch, t = int(istate[K.EPOCH]), int(istate[K.T])
        per = max(1, int(CHUNK * epoch / t)) if t > 0 and epoch > 0 else 1
        return min(max_epochs, epoch + per)

    def report():
        progress(DynamicMarginState(
            t=int(istate[K.T]), a=np.concatenate([a_x, a_r, a_D]), ell=float(fstate[K.ELL]), theta=float(fstate[K.THETA]), k=0,
            order=(), epoch=int(istate[K.EPOCH]), run=int(istate[K.RUN]), passes=int(istate[K.PASSES]),
        ))  # fmt: skip

    rng = np.random.default_rng(pt.seed) if pt.active_sets else None
    status, unverified = None, ""
    while status is None:  # the textbook driver: a refused claim does not end the run (reference.result.drive)
        passes = int(istate[K.PASSES])
        perm = rng.permutation(m).astype(np.int64) if pt.active_sets else np.arange(m, dtype=np.int64)
        cap = epochs_of_chunk()
        code = run(perm, cap)
        if code == K.NEED_PERMUTATION:
            if progress is not None:
                report()
            continue
        if code == K.BUDGET and cap < max_epochs and istate[K.T] < max_iter and istate[K.EPOCH] < max_epochs:
            report()  # the end of a chunk, at a pass boundary: go on
            continue
        a = np.concatenate([a_x, a_r, a_D])  # the layout of Patterns: [weights, bias, extended]
        t = int(istate[K.T])
        if code != K.CONVERGED:
            status, message = MAX_ITER, budget_message(t, unverified)
            break
        reason = verify_separator_patterns(V.data, V.indices, V.indptr, V.labels, V.rho, V.Delta, a, V.n_features)
        if not reason:
            status, message = SEPARATOR, verified_message(SEPARATOR, F64.label)
        elif istate[K.PASSES] == passes:  # no full pass made, yet "converged": a broken kernel
            status, message = MAX_ITER, refused_claim_message(SEPARATOR, reason)
        else:
            unverified = unverified_note(SEPARATOR, t, reason)
            if t >= max_iter or istate[K.EPOCH] >= max_epochs:  # drive(): the budget, checked before every step
                status, message = MAX_ITER, budget_message(t, unverified)
                break
            # [reference.dynamic_margin._unverified_update] the first pattern not above the verifier's
            # round-off allowance counts as a mistake: one update with it, then a fresh pass
            margins, slack = pattern_allowance(V.data, V.indices, V.indptr, V.labels, V.rho, V.Delta, a, V.n_features)
            j = int(np.flatnonzero(~(margins > slack))[0])
            p = float(P.dot(a, j))  # p_tk = a_t . y_k, as the textbook computes it
            K.unverified_update(data, indices, indptr, labels, q, rho, Delta, kind, schedule, a_x, a_r, a_D, fstate, istate, j, p)
            t_c = np.concatenate([t_c, np.zeros(1, dtype=np.int64)])  # room for one more convergence
    t, epoch, passes, n_tc = (int(istate[i]) for i in (K.T, K.EPOCH, K.PASSES, K.RUNS_DONE))
    norm = float(np.sqrt(a @ a))  # computed fresh, not from ell
    info = {
        "ell": float(fstate[K.ELL]),
        "theta": float(fstate[K.THETA]),
        "epochs": epoch,
        "passes": passes,
        "t_c": tuple(int(v) for v in t_c[:n_tc]),
        "R": float(np.sqrt(np.max(q))),  # R = max_k ||y_k||
        "margin": None,
        "upper_bound": None,
    }
    if norm > 0:
        info["margin"] = float(np.min(P.matvec(a))) / norm
    if t > 0:
        info["upper_bound"] = norm / t  # ||a_t||/t >= gamma_d  [PT11 eq. (4)]
    return _result(pt.name, status, message, t, w=a, info={**info, **pt.info})
