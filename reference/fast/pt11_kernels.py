"""Compiled kernel of PT11's algorithm box (PDM, PFM, PDM-succ) with the Sec. 4 fast paths (numba).

No validation here: :mod:`reference.fast.engine` validates once and hands over arrays.

**Implicit patterns.**  y_k = l_k [x_k, rho, Delta e_k] is never formed: the x part is a CSR
row ``data[indptr[k]:indptr[k+1]]`` at columns ``indices[...]``, and the weight vector is held
as three pieces, ``a = [a_x, a_rho, a_Delta]`` (``a_rho`` of length 1 or 0 without
augmentation, ``a_Delta`` of length m or 0 outside the extended space), so that

    p_tk = a_t . y_k = l_k (a_x . x_k + rho a_rho + Delta a_Delta[k])

costs O(nnz(x_k)) and the whole run O(nnz + m) memory.

**One pass per call, or all of them.**  The textbook box presents 0..m-1 every pass: the kernel
runs every pass until convergence or the budget.  With active sets, a full pass presents a fresh
random permutation from ``numpy.random.default_rng(seed)``; the kernel runs one full pass and the
nested active-set passes after it, and returns :data:`NEED_PERMUTATION` when the schedule asks for
the next full pass -- the wrapper draws it from the same generator as the textbook code, so the
two engines present patterns in the same order.

**Sets in memory order.**  With active sets, each pass over a set reads its rows from a contiguous copy in
the order it presents them (S1, S2, S3: a set's rows are copied as they are filtered into it,
from the pass that builds it), so that the many passes over a set read memory in order instead of
jumping through the CSR arrays; the same numbers are summed in the same order, so the trajectory
is that of the rows read in place, bit for bit (:func:`run_recorded` records the visits; a test
replays them on the rows in place).
"""

from __future__ import annotations

import numpy as np

from . import njit

PDM_KIND, PFM_KIND = 0, 1
GUARD_STEPS = 64  # reference.states.GUARD_STEPS: unit steps of the round-off guard before doubling (a kernel imports
# nothing of ours but reference.arithmetic and njit; a test keeps the two equal)
CONVERGED, BUDGET, NEED_PERMUTATION = 0, 1, 2
BELOW_ONE = 1.0 - 2.0**-39  # |C| <= B BELOW_ONE: mu_+ < 1 (_pdm_mu_plus_below_one)
TINY, HUGE = 2.0**-500, 2.0**500

#: The machine's state between calls of :func:`run`, by name: ``istate[T]`` (int64) is t, the
#: number of updates; then the epochs, the passes, the current run of PDM-succ and the runs done;
#: ``fstate[ELL]``, ``fstate[THETA]`` (float64) are ell_t and theta_t.
T, EPOCH, PASSES, RUN, RUNS_DONE = 0, 1, 2, 3, 4
ISTATE_SIZE = 5
ELL, THETA = 0, 1
FSTATE_SIZE = 2

# (c_1, c_2, c_3), c_1 in plain PDM's first epoch and (N_ep1, N_ep2, N_ep3)  [PT11 Sec. 4; spec B.9]
# are reference.states' ACTIVE_SET_C, ACTIVE_SET_C1_FIRST_EPOCH, ACTIVE_SET_N_EP, passed in.


@njit()
def _threshold(kind, val, t, ell):
    if kind == PDM_KIND:
        eps_bar = 1 - val
        return eps_bar * ell / t  # [PT11 eq. (8); box] theta_t = eps_bar ell_t / t
    return val * np.sqrt(ell if ell > 0 else 0.0)  # [PT11 eq. (7)] theta_t = beta sqrt(ell_t)


@njit()
def _pdm_coefficients(eps, p, q, ell, t):
    """(A, B, C) of PDM's quadratic A mu^2 + B mu + C = 0, as reference.dynamic_margin.pdm_mu_plus
    computes them  [PT11 Sec. 4; spec B.9]."""
    return eps * q, t * q + (2 * eps - 1) * p, t * p - (1 - eps) * ell


@njit()
def _pdm_mu_plus_below_one(eps, p, q, ell, t):
    """True only where the computed mu_+ of :func:`_mu_plus` lies in [0, 1), so floor(mu_+) + 1 = 1,
    decided without its square root and division.  For computed B > 0 and C <= 0 (with A >= 0),
    D = B^2 + 4 A |C| adds two non-negative terms, so sqrt(D) >= B (1 - 2u) and the computed
    2C / (-B - sqrt(D)) is at most (|C| / B)(1 + 4u) (u = 2^-53): below 1 when |C| <= B (1 - 2^-39),
    a test whose own product rounds by one u.  B is held in [2^-500, 2^500] so that nothing in that
    bound underflows or overflows (an overflowing D gives mu_+ = 0, still in [0, 1)); NaN fails it.
    That also keeps 4A finite, so 4AC is never inf * 0: A = eps q >= 2^1021 needs t q >= 2^1021, and
    a B = t q + (2 eps - 1) p below 2^500 would then be an exact difference (Sterbenz) of two
    multiples of 2^968, so 0."""
    A, B, C = _pdm_coefficients(eps, p, q, ell, t)
    return TINY < B < HUGE and C <= 0 and -C <= B * BELOW_ONE


@njit()
def _mu_plus(kind, val, p, q, ell, t):
    """(defined, mu_+): reference.dynamic_margin.pdm_mu_plus / pfm_mu_plus  [PT11 Sec. 4; E-B3].

    Not defined (False) where the reference's numpy division gives inf or nan (a zero
    denominator, e.g. q_k underflowed at an extreme scale): numba's floats raise
    ZeroDivisionError there instead, so the denominator is tested first."""
    if kind == PDM_KIND:
        eps = val
        A, B, C = _pdm_coefficients(eps, p, q, ell, t)
        D = B * B - 4 * A * C
        root = np.sqrt(D if D > 0 else 0 * D)
        if B > 0:
            den = -B - root
            if den == 0:
                return False, 0.0  # x/0 is inf or nan in the reference's numpy arithmetic: plain single update
            return True, 2 * C / den
        if 2 * A == 0:  # eps q underflowed (or eps = 0): mu_+ is inf or nan, as in the reference
            return False, 0.0
        return True, (-B + root) / (2 * A)
    beta = val
    s = q - beta * beta
    if not s > 0:
        return False, 0.0  # lambda unbounded: plain single update
    disc = s * beta * beta * (q * ell - p * p)
    root = np.sqrt(disc if disc > 0 else 0 * disc)
    if s * q == 0:  # (q - beta^2) q underflowed: mu_+ is inf or nan, as in the reference
        return False, 0.0
    return True, (-s * p + root) / (s * q)


@njit()
def _ell_after(ell, p, qj, lam):
    """ell_{t+lambda} = ||a_t + lambda y_j||^2 from ell_t, p = a_t . y_j and q_j: the one formula
    :func:`_theta_after` and every update use, so that a threshold predicted by the guards is the
    one the box computes after the update, bit for bit  [PT11 box; Sec. 4, multiple updates]."""
    if lam == 1:
        return ell + 2 * p + qj  # [PT11 box] ell_{t+1} = ell_t + 2 p_tk + q_k
    return ell + 2.0 * lam * p + _square(lam) * qj  # ell <- ell + 2 lambda p + lambda^2 q


@njit()
def _square(n):
    """lambda^2 as the textbook's float(n * n): the exact square of an int64 n >= 0 rounded once, to
    nearest-even.  (lam * lam overflows int64 past 3.04e9, and float(n) * float(n) rounds twice past
    2^53: both gave another ell_t than the textbook's.)"""
    u = np.uint64(n)
    if n < 2**32:
        return float(u * u)  # n^2 < 2^64: the uint64 product is exact, its conversion rounds once
    h, l = u >> np.uint64(32), u & np.uint64(0xFFFFFFFF)  # n = h 2^32 + l, h < 2^31
    mid = np.uint64(2) * h * l  # < 2^64
    lo = l * l + (mid << np.uint64(32))  # n^2 = hi 2^64 + lo, exactly
    hi = h * h + (mid >> np.uint64(32)) + (np.uint64(1) if lo < l * l else np.uint64(0))
    k = np.uint64(0)  # the bit length of hi (>= 1: n^2 >= 2^64)
    while (hi >> k) != np.uint64(0):
        k += np.uint64(1)
    top = (hi << (np.uint64(64) - k)) | (lo >> k)  # the leading 64 bits of n^2
    if (lo & ((np.uint64(1) << k) - np.uint64(1))) != np.uint64(0):
        top |= np.uint64(1)  # the bits below them, as a sticky bit: converting top rounds as n^2 would
    return float(top) * 2.0 ** float(k)


@njit()
def _theta_after(kind, val, t, ell, p, qj, n):
    """theta_{t+n} after n more updates with y_j, ell_{t+n} by :func:`_ell_after` as the update itself computes it."""
    return _threshold(kind, val, t + n, _ell_after(ell, p, qj, n))


@njit()
def _holds_after(kind, val, t, ell, p, qj, n):
    """Would y_j still satisfy the test after n more updates with it?  (p_{t+n} <= theta_{t+n})"""
    return p + n * qj <= _theta_after(kind, val, t, ell, p, qj, n)


@njit()
def _lambda(kind, val, t, ell, p, qj, max_iter):
    """(lambda, theta_{t+lambda} or NaN): lambda = floor(mu_+) + 1 with the reference's round-off
    guards  [reference _lambda].  Where the last guard evaluated is the one at lambda itself (the
    common case: y_j fails the test after lambda updates), its threshold is theta_{t+lambda}, the
    number the box computes after the update (:func:`_theta_after`): returned, so the caller need
    not divide again; else NaN."""
    room = max_iter - t
    if t == 0:
        return 1, np.nan  # [E-B7] theta_0 = 0 is not (1 - eps) ell_0 / 0
    if kind == PDM_KIND and _pdm_mu_plus_below_one(val, p, qj, ell, t):
        lam = 1  # [PT11 Sec. 4] lambda = [mu_+] + 1 = 1: mu_+ in [0, 1), not computed (the common case)
    else:
        ok, mu = _mu_plus(kind, val, p, qj, ell, t)
        if not ok or not mu == mu or mu == np.inf or mu == -np.inf:
            return 1, np.nan  # unbounded (PFM with beta >= ||y_j||), zero denominator or overflow: plain single update
        fl = np.floor(mu)
        if fl + 1 < 1:
            lam = 1  # (max(1, .) of the reference; int() of a float below -2^63 is not defined)
        elif fl >= 2.0**63 or int(fl) + 1 >= room:  # in integers, as the reference's min(., room): not fl + 1 in floats
            lam = room  # [PT11 Sec. 4] lambda = [mu_+] + 1, capped so that t <= max_iter
        else:
            lam = int(fl) + 1  # [PT11 Sec. 4] lambda = [mu_+] + 1
    steps = 0  # [reference _settle] unit steps, then doubling steps and bisection
    while lam > 1 and not _holds_after(kind, val, t, ell, p, qj, lam - 1):  # round-off guard: down
        if steps < GUARD_STEPS:
            lam -= 1
            steps += 1
            continue
        hi = lam - 1  # not holds(hi)
        d = 1
        lo = hi - d
        while lo >= 1 and not _holds_after(kind, val, t, ell, p, qj, lo):
            hi = lo
            d = 2 * d
            lo = hi - d
        if lo < 0:
            lo = 0  # lo = 0: no update kept the test, lambda = 1
        while hi - lo > 1:  # lo = 0 or holds(lo); not holds(hi)
            mid = (lo + hi) // 2
            if _holds_after(kind, val, t, ell, p, qj, mid):
                lo = mid
            else:
                hi = mid
        return lo + 1, np.nan
    steps = 0
    while lam < room:  # round-off guard: up, while y_j still satisfies the test after lambda updates
        theta = _theta_after(kind, val, t, ell, p, qj, lam)
        if not p + lam * qj <= theta:  # not _holds_after(..., lam): lambda stands, theta is theta_{t+lambda}
            return lam, theta
        if steps < GUARD_STEPS:
            lam += 1
            steps += 1
            continue
        lo = lam  # holds(lo)
        d = 1
        hi = lo + d
        while hi < room and _holds_after(kind, val, t, ell, p, qj, hi):
            lo = hi
            d = 2 * d
            hi = lo + d if d < room - lo else room
        while hi - lo > 1:  # holds(lo); hi = room or not holds(hi)
            mid = (lo + hi) // 2
            if _holds_after(kind, val, t, ell, p, qj, mid):
                lo = mid
            else:
                hi = mid
        return hi, np.nan
    return lam, np.nan


@njit()
def unverified_update(data, indices, indptr, labels, q, rho, Delta, kind, schedule, a_x, a_r, a_D, fstate, istate, j, p):
    """One update with y_j (p = a_t . y_j) after a convergence whose separator did not verify
    (y_j: the first pattern not above the verifier's round-off allowance), on the state of
    :func:`run`; the next call of :func:`run` starts a fresh pass
    [reference.dynamic_margin._unverified_update]."""
    lj = labels[j]
    for jj in range(indptr[j], indptr[j + 1]):
        a_x[indices[jj]] += data[jj] * lj  # [PT11 box] a_{t+1} = a_t + y_k
    if a_r.shape[0] > 0:
        a_r[0] += rho * lj
    if a_D.shape[0] > 0:
        a_D[j] += Delta * lj
    ell = _ell_after(fstate[ELL], p, q[j], 1)  # [PT11 box] ell_{t+1} = ell_t + 2 p_tk + q_k
    istate[T] += 1  # [PT11 box] t <- t + 1
    fstate[ELL] = ell
    fstate[THETA] = _threshold(kind, schedule[istate[RUN]], istate[T], ell)  # [PT11 box] theta_t = eps_bar ell_t / t


@njit()
def run(data, indices, indptr, labels, q, rho, Delta, kind, schedule, warmup, active, multiple,
        c_sets, c1_first, n_ep, max_iter, max_epochs, a_x, a_r, a_D, fstate, istate, t_c, perm):
    """Run the box from the state (a, fstate[ELL, THETA], istate[T, EPOCH, PASSES, RUN, RUNS_DONE])
    on ``perm`` -> CONVERGED, BUDGET or NEED_PERMUTATION (state updated in place)."""
    no_record = np.zeros(0, dtype=np.int64)
    return run_recorded(data, indices, indptr, labels, q, rho, Delta, kind, schedule, warmup, active, multiple,
                        c_sets, c1_first, n_ep, max_iter, max_epochs, a_x, a_r, a_D, fstate, istate, t_c, perm,
                        no_record, no_record, no_record, no_record)  # fmt: skip


@njit()
def run_recorded(data, indices, indptr, labels, q, rho, Delta, kind, schedule, warmup, active, multiple,
                 c_sets, c1_first, n_ep, max_iter, max_epochs, a_x, a_r, a_D, fstate, istate, t_c, perm,
                 rec_j, rec_lam, rec_pass, rec_n):
    """:func:`run`, recording its visits when ``rec_n`` is non-empty: visit v presents pattern
    ``rec_j[v]`` and makes ``rec_lam[v]`` updates with it (0: none); pass i starts at visit
    ``rec_pass[2 i]`` at level ``rec_pass[2 i + 1]`` (0: a full pass, 1-3: S1-S3); ``rec_n`` holds
    the visits and passes made (those beyond the arrays' room are counted, not recorded;
    benchmarks/engine_ratios.py replays them).  Recording changes nothing else.

    A full pass reads its rows in place (each permutation is presented once); a pass over S1, S2 or
    S3 reads the contiguous copy of the set's rows made as they were filtered into it (module
    docstring).  The same numbers are summed in the same order: the trajectory is the one of the
    rows read in place."""
    m = labels.shape[0]
    has_rho = a_r.shape[0] > 0
    has_D = a_D.shape[0] > 0
    recording = rec_n.shape[0] > 0
    ell = fstate[ELL]
    theta = fstate[THETA]
    t = istate[T]
    epoch = istate[EPOCH]
    passes = istate[PASSES]
    run_i = istate[RUN]
    n_tc = istate[RUNS_DONE]
    sets = np.empty((4, m), dtype=np.int64)  # sets[0]: the full pass; sets[1..3]: S1, S2, S3
    lens = np.zeros(4, dtype=np.int64)
    sets[0, :] = perm
    lens[0] = m
    # the rows of S1..S3, gathered in the sets' order: row pos of set L is
    # g_data[L - 1, g_lo[L, pos]:g_hi[L, pos]] (the full pass reads data[g_lo[0, pos]:g_hi[0, pos]] in place)
    n_g = indptr[m] if active else 0
    g_data = np.empty((3, n_g))
    g_ind = np.empty((3, n_g), dtype=indices.dtype)
    g_lo = np.empty((4, m), dtype=np.int64)
    g_hi = np.empty((4, m), dtype=np.int64)
    g_lab = np.empty((4, m))  # l_k and q_k in the sets' order
    g_q = np.empty((4, m))
    for pos in range(m):
        j = perm[pos]
        g_lo[0, pos] = indptr[j]
        g_hi[0, pos] = indptr[j + 1]
        g_lab[0, pos] = labels[j]
        g_q[0, pos] = q[j]
    level = 0
    n1 = 0
    n2 = 0
    n3 = 0
    code = BUDGET
    while True:
        if t >= max_iter or epoch >= max_epochs:  # drive(): the budget, checked before every step
            code = BUDGET
            break
        c = -1.0  # no filtering (textbook box, or a pass over S3)
        if active and level < 3:
            c = c1_first if (level == 0 and warmup and epoch == 0) else c_sets[level]
        allow_multiple = multiple and not (warmup and epoch == 0)
        built = 0
        updates = 0
        L = lens[level]
        stopped = False
        if recording:
            if 2 * rec_n[1] + 1 < rec_pass.shape[0]:
                rec_pass[2 * rec_n[1]] = rec_n[0]
                rec_pass[2 * rec_n[1] + 1] = level
            rec_n[1] += 1
        # the rows of this pass: the data in place (a full pass) or the set's gathered block
        src_data = data if level == 0 else g_data[level - 1]
        src_ind = indices if level == 0 else g_ind[level - 1]
        dst = level if level < 3 else 0
        nxt = level + 1 if level < 3 else 0
        for pos in range(L):  # [PT11 box] for k = 1 to m
            j = sets[level, pos]
            lo, hi, lj, qj = g_lo[level, pos], g_hi[level, pos], g_lab[level, pos], g_q[level, pos]
            s = 0.0
            for jj in range(lo, hi):
                s += src_data[jj] * a_x[src_ind[jj]]
            if has_rho:
                s += rho * a_r[0]
            if has_D:
                s += Delta * a_D[j]
            p = lj * s  # [PT11 box] p_tk = a_t . y_k
            if c >= 0 and p <= c * theta:  # [PT11 Sec. 4] filter into the next set (pre-update state)
                sets[nxt, built] = j
                g_lab[nxt, built] = lj
                g_q[nxt, built] = qj
                b = 0 if built == 0 else g_hi[nxt, built - 1]
                g_lo[nxt, built] = b
                for jj in range(lo, hi):  # the row, copied into the next set's block
                    g_data[dst, b] = src_data[jj]
                    g_ind[dst, b] = src_ind[jj]
                    b += 1
                g_hi[nxt, built] = b
                built += 1
            lam = 0
            if p <= theta:  # [PT11 box; eqs. (7)/(8)] misclassification test, `<=` (E-B7)
                lam, theta_next = _lambda(kind, schedule[run_i], t, ell, p, qj, max_iter) if allow_multiple else (1, np.nan)
                # the update written out here, not a call: numba's inlining of a function of arrays adds
                # reference-count operations to every update (a fifth of the Sec. 4 run's time on a9a)
                for jj in range(lo, hi):
                    a_x[src_ind[jj]] += lam * (src_data[jj] * lj)  # [PT11 box; Sec. 4] a <- a + lambda y_k (exact for lambda = 1)
                if has_rho:
                    a_r[0] += lam * (rho * lj)
                if has_D:
                    a_D[j] += lam * (Delta * lj)
                ell = _ell_after(ell, p, qj, lam)  # [PT11 box; Sec. 4] ell <- ell + 2 lambda p + lambda^2 q
                t += lam  # [PT11 box] t <- t + 1 (lambda)
                # [PT11 box] theta_t = eps_bar ell_t / t (computed by the last guard of _lambda where it could)
                theta = theta_next if theta_next == theta_next else _threshold(kind, schedule[run_i], t, ell)
                updates += 1
            if recording:
                if rec_n[0] < rec_j.shape[0]:
                    rec_j[rec_n[0]] = j
                    rec_lam[rec_n[0]] = lam
                rec_n[0] += 1
            if lam > 0 and t >= max_iter and pos + 1 < L:  # drive(): budget after the step of this update
                stopped = True
                break
        if stopped:
            code = BUDGET
            break
        passes += 1
        need_full = False
        end_run = False
        if not active:  # [PT11 box] until no update made within the for loop
            epoch += 1
            end_run = updates == 0
        elif level == 0:  # full pass, built S1
            epoch += 1
            if updates == 0:
                end_run = True
            else:
                lens[1] = built
                level = 1
                n1 = 0
                n2 = 0
                n3 = 0
        elif level == 1:  # pass over S1, built S2
            n1 += 1
            if updates == 0:
                need_full = True
            else:
                lens[2] = built
                level = 2
                n2 = 0
                n3 = 0
        elif level == 2:  # pass over S2, built S3
            n2 += 1
            if updates == 0:
                if n1 < n_ep[0]:  # back to S1 (N_ep1 uses)
                    level = 1
                    n2 = 0
                    n3 = 0
                else:
                    need_full = True
            else:
                lens[3] = built
                level = 3
                n3 = 0
        else:  # pass over S3 (a mini-epoch)
            n3 += 1
            if updates > 0 and n3 < n_ep[2]:  # N_ep3
                level = 3
            elif n2 < n_ep[1]:  # N_ep2: use S2 again, build a new S3
                level = 2
                n3 = 0
            elif n1 < n_ep[0]:  # back to S1
                level = 1
                n2 = 0
                n3 = 0
            else:
                need_full = True
        if end_run:  # a full pass made no update: the run has converged  [PT11 Sec. 4, successive runs]
            t_c[n_tc] = t
            n_tc += 1
            if run_i + 1 == schedule.shape[0]:
                code = CONVERGED
                break
            run_i += 1
            theta = _threshold(kind, schedule[run_i], t, ell)  # theta_t with eps_{n+1}
            need_full = active
        if need_full:
            code = NEED_PERMUTATION
            break
    fstate[ELL] = ell
    fstate[THETA] = theta
    istate[T] = t
    istate[EPOCH] = epoch
    istate[PASSES] = passes
    istate[RUN] = run_i
    istate[RUNS_DONE] = n_tc
    return code
