"""Compiled kernels of RP14 Alg. 1-6 (numba).  No validation here: :mod:`reference.fast.engine`
validates once and hands over contiguous float64 arrays and plain scalars.

**One kernel matvec per iteration.**  The textbook code recomputes G alpha_k (and G p_k) from
scratch, several times per step.  Every iterate is an affine combination of the previous ones,
so its G-product is the same combination of theirs (linearity):

* NKP:    G alpha_{k+1} = (1 - theta) G alpha_k + theta G e_j          (one column of G)
* NVN:    G p_{k+1}     = (1 - theta) G p_k     + theta G e_j          (one column of G)
* SNKP / SNKPVN, with b_k := p_{mu_k}(alpha_k) (resp. p^q_{mu_k}(alpha_k)):
  G alpha_{k+1} = (1 - theta)(G alpha_k + theta G p_k) + theta^2 G b_k,
  b_{k+1} is computed from G alpha_{k+1} (one softmax / projection), and
  G p_{k+1} = (1 - theta) G p_k + theta G b_{k+1} -- the one G-product of the step, G b_{k+1},
  is also the G b_k of the next step.

Carried products drift from fresh ones by round-off (relative ~ k u); they are refreshed every
:data:`REFRESH_EVERY` steps, and whenever an exit test is within :data:`REFRESH_TOL` of deciding,
the test is taken on a fresh product (so the engine exits where the textbook does, up to a
near-tie in the fresh product itself).

**The Gram operator** ``(kind, G, data, indices, indptr)``: ``kind = 0``: a dense G, passed
column-major (``G[:, j]`` contiguous) so that ``G v`` is a sum of columns (no reduction inside
the inner loop); ``kind = 1``: the linear kernel's ``G = Z Z^T`` on the normalized reflected
rows ``Z`` in CSR form, ``G v = Z (Z^T v)``, never an n x n matrix.
"""

from __future__ import annotations

import numpy as np

from ..arithmetic import MACHINE_EPS, UNDERFLOW
from . import njit

#: Carried products are recomputed from scratch every this many steps.
REFRESH_EVERY = 1024
#: An exit test within this (absolute) distance of flipping is taken on a fresh product.
#: |(G alpha)_i| <= 1 for alpha in the simplex and |G_ij| <= 1, and the drift is ~ k u.
REFRESH_TOL = 1e-9

DENSE, FACTORED = 0, 1

# MACHINE_EPS = 2^-52 and UNDERFLOW = 2^-1074 (reference.arithmetic, compile-time constants here):
# the round-off allowance of reference.result.verify_separator_gram / _factored.


# -- the Gram operator ---------------------------------------------------------------------------


@njit()
def _dense_matvec(G, v, out):
    """out := G v = sum_j v_j G[:, j] over the j with v_j != 0, in increasing j: each out[i] is the
    sum ((0 + G_i,j1 v_j1) + G_i,j2 v_j2) + ... in that order, four columns per sweep over out (the
    same additions in the same order as one column per sweep, with a quarter of the loads and
    stores of out: the product runs at the speed of reading G, as BLAS's does, but BLAS would
    sum in another order)."""
    n = out.shape[0]
    cols = np.empty(n, dtype=np.int64)
    k = 0
    for j in range(n):
        if v[j] != 0.0:
            cols[k] = j
            k += 1
    out[:] = 0.0
    c = 0
    while c + 4 <= k:
        j0, j1, j2, j3 = cols[c], cols[c + 1], cols[c + 2], cols[c + 3]
        v0, v1, v2, v3 = v[j0], v[j1], v[j2], v[j3]
        for i in range(n):
            out[i] = (((out[i] + G[i, j0] * v0) + G[i, j1] * v1) + G[i, j2] * v2) + G[i, j3] * v3
        c += 4
    while c < k:
        j0 = cols[c]
        v0 = v[j0]
        for i in range(n):
            out[i] += G[i, j0] * v0
        c += 1


@njit()
def gram_matvec(kind, G, data, indices, indptr, tmp, v, out):
    """out := G v.  kind 0: G dense (column-major); kind 1: G = Z Z^T, Z in CSR, tmp of length d."""
    n = out.shape[0]
    if kind == DENSE:
        _dense_matvec(G, v, out)
    else:
        tmp[:] = 0.0
        for i in range(n):  # tmp := Z^T v
            vi = v[i]
            if vi != 0.0:
                for jj in range(indptr[i], indptr[i + 1]):
                    tmp[indices[jj]] += data[jj] * vi
        for i in range(n):  # out := Z tmp
            s = 0.0
            for jj in range(indptr[i], indptr[i + 1]):
                s += data[jj] * tmp[indices[jj]]
            out[i] = s


@njit()
def gram_column(kind, G, data, indices, indptr, tmp, j, out):
    """out := G e_j (one kernel matvec: O(n) dense, O(nnz) factored)."""
    n = out.shape[0]
    if kind == DENSE:
        for i in range(n):
            out[i] = G[i, j]
    else:
        tmp[:] = 0.0  # (gram_matvec leaves Z^T v in tmp)
        for jj in range(indptr[j], indptr[j + 1]):  # tmp := z_j (scattered)
            tmp[indices[jj]] = data[jj]
        for i in range(n):  # out := Z z_j
            s = 0.0
            for jj in range(indptr[i], indptr[i + 1]):
                s += data[jj] * tmp[indices[jj]]
            out[i] = s


# -- shared building blocks (the one softmax / projection of reference.arithmetic, compiled) ----


@njit()
def _softmax_neg(Ga, mu, out):
    """out := softmax(-Ga / mu)  [reference.arithmetic.softmax; RP14 eq. (11)]."""
    n = Ga.shape[0]
    vmax = -np.inf
    for i in range(n):
        v = -Ga[i] / mu
        out[i] = v
        if v > vmax:
            vmax = v
    s = 0.0
    for i in range(n):  # z = exp(v - max(v))
        out[i] = np.exp(out[i] - vmax)
        s += out[i]
    for i in range(n):  # z / sum(z)
        out[i] = out[i] / s


#: Bits per digit of :func:`_sort_descending`'s radix sort (6 passes over 64-bit keys).
RADIX_BITS = 11


@njit()
def _sort_descending(v):
    """sort(v, descending) for v <= 0 (v - max(v)), the same array as ``np.sort(v)[::-1]``, by a
    radix sort: the float64 values -v >= 0 are ordered as their bit patterns (uint64), so sorting
    the keys bits(-v) ascending sorts v descending, and -v is read back exactly from them.  A
    sorted array is one array whatever sorts it (equal floats are equal bits: the zeros of
    v - max(v) are all +0.0); NumPy's sort is 5-15x faster than numba's here, and this one is
    faster still.  A NaN (not sortable this way) goes to ``np.sort``."""
    n = v.shape[0]
    keys = np.empty(n, dtype=np.uint64)
    for i in range(n):
        x = v[i]
        if not x <= 0.0:  # NaN (or a positive entry: not the shifted v)
            return np.sort(v)[::-1].copy()
        keys[i] = np.float64(-x + 0.0).view(np.uint64)  # -x + 0.0: +0.0 for x = +-0.0
    n_digits = (64 + RADIX_BITS - 1) // RADIX_BITS
    size = 1 << RADIX_BITS
    mask = np.uint64(size - 1)
    counts = np.zeros((n_digits, size), dtype=np.int64)
    for i in range(n):  # every digit's histogram, in one pass
        k = keys[i]
        for dg in range(n_digits):
            counts[dg, np.int64((k >> np.uint64(dg * RADIX_BITS)) & mask)] += 1
    other = np.empty(n, dtype=np.uint64)
    for dg in range(n_digits):  # least significant digit first: each pass is stable
        shift = np.uint64(dg * RADIX_BITS)
        if counts[dg, np.int64((keys[0] >> shift) & mask)] == n:
            continue  # one digit value for all: this pass would not move anything
        pos = np.empty(size, dtype=np.int64)
        total = 0
        for b in range(size):
            pos[b] = total
            total += counts[dg, b]
        for i in range(n):
            b = np.int64((keys[i] >> shift) & mask)
            other[pos[b]] = keys[i]
            pos[b] += 1
        keys, other = other, keys
    u = np.empty(n)
    for i in range(n):
        u[i] = 0.0 if keys[i] == 0 else -keys[i:i + 1].view(np.float64)[0]
    return u


@njit()
def _project_q(q, Ga, mu, out):
    """out := Proj_Delta(q - Ga / mu), by sorting  [reference.arithmetic.project_simplex; RP14 Sec. 5.3]."""
    n = q.shape[0]
    v = np.empty(n)
    for i in range(n):
        v[i] = q[i] - Ga[i] / mu
    vmax = v[0]
    for i in range(1, n):
        if v[i] > vmax:
            vmax = v[i]
    for i in range(n):  # v := v - max(v) 1_n: the same projection, no loss of the 1 in c_j - 1
        v[i] = v[i] - vmax
    u = _sort_descending(v)  # u := sort(v, descending)  [spec A.11]
    c = 0.0
    r = 0
    cr = 0.0
    for j in range(n):  # r = max{ j : u_j - (c_j - 1)/j > 0 }
        c += u[j]
        if u[j] - (c - 1.0) / (j + 1) > 0:
            r = j
            cr = c
    tau = (cr - 1.0) / (r + 1)  # tau := (c_r - 1)/r
    for i in range(n):  # Proj(v) := max(v - tau, 0)
        x = v[i] - tau
        out[i] = x if x > 0.0 else 0.0


@njit()
def _min(v):
    m = v[0]
    for i in range(1, v.shape[0]):
        if v[i] < m:
            m = v[i]
    return m


@njit()
def _argmin(v):
    """First index of the minimum (numpy.argmin's tie-break)."""
    j = 0
    for i in range(1, v.shape[0]):
        if v[i] < v[j]:
            j = i
    return j


@njit()
def _dot(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


@njit()
def _g_norm(v, Gv):
    """||v||_G = sqrt(max(v^T G v, 0))  [reference.arithmetic.g_norm]."""
    q = _dot(v, Gv)
    return np.sqrt(q) if q > 0 else 0.0


#: What :func:`_separated` finds: G v > 0 is false; true beyond round-off (a claim); true only
#: within round-off (the textbook's exit test claims, its verifier refuses: no claim here).
NO, SEPARATED, WITHIN_ROUNDOFF = 0, 1, 2


@njit()
def _separated(kind, G, data, indices, indptr, tmp, v, Gv):
    """G v > 0_n -> NO / SEPARATED / WITHIN_ROUNDOFF, decided on the carried Gv unless it is
    within REFRESH_TOL of flipping; then Gv is recomputed (in place) and the test taken on it."""
    m = _min(Gv)
    if m <= -REFRESH_TOL:
        return NO
    if m > REFRESH_TOL:
        return SEPARATED
    gram_matvec(kind, G, data, indices, indptr, tmp, v, Gv)
    if not _min(Gv) > 0.0:
        return NO
    if _beyond_roundoff(kind, G, data, indices, indptr, tmp, v, Gv):
        return SEPARATED
    return WITHIN_ROUNDOFF


@njit()
def _note(k, v, note, note_v):
    """Record iteration k and its iterate: G v > 0 there only within round-off, a claim the
    textbook's driver makes and names when its verifier refuses it (the engine names it too)."""
    note[0] = k
    note_v[:] = v


@njit()
def _beyond_roundoff(kind, G, data, indices, indptr, tmp, v, Gv):
    """(G v)_i > its round-off allowance for every i: the exit test agrees with the verifier
    [reference.result.verify_separator_gram: (n + 16) eps (|G| |v|)_i + (2n + 4) UNDERFLOW;
    verify_separator_factored: (n + d + 16) eps (|Z| (|Z|^T |v|))_i + 2 (n (|Z| 1)_i + d + 4) UNDERFLOW],
    so a G v > 0 within round-off is no claim and the run goes on.  Taken only near the exit."""
    n = Gv.shape[0]
    if kind == DENSE:
        for i in range(n):
            s = 0.0
            for j in range(n):
                s += abs(G[i, j]) * abs(v[j])
            if not Gv[i] > s * (MACHINE_EPS * (n + 16)) + (2 * n + 4) * UNDERFLOW:
                return False
        return True
    d = tmp.shape[0]
    tmp[:] = 0.0
    for i in range(n):  # tmp := |Z|^T |v|
        for jj in range(indptr[i], indptr[i + 1]):
            tmp[indices[jj]] += abs(data[jj]) * abs(v[i])
    for i in range(n):
        s = 0.0
        l1 = 0.0
        for jj in range(indptr[i], indptr[i + 1]):
            s += abs(data[jj]) * tmp[indices[jj]]
            l1 += abs(data[jj])
        if not Gv[i] > s * (MACHINE_EPS * (n + d + 16)) + 2 * (n * l1 + d + 4) * UNDERFLOW:
            return False
    return True


# -- Algorithm 3: NKP ------------------------------------------------------------------------------


@njit()
def nkp(kind, G, data, indices, indptr, d, max_iter, rec, alpha, Ga, note, note_v, k, resume):
    """NKP  [RP14 Alg. 3] -> (k, alpha, separated, products).  ``rec`` (rows alpha_k) if non-empty.

    ``resume`` 0: start afresh (alpha_0); 1: go on from the state (alpha, Ga = G alpha, k) after
    a refused claim at k -- the exit test at k is not taken again.  ``note``/``note_v``: the last
    iteration where G alpha > 0 held only within round-off, and alpha there (:func:`_note`).
    """
    n = alpha.shape[0]
    tmp = np.zeros(d)
    Ge = np.empty(n)
    products = 0
    if resume == 0:
        alpha[:] = 0.0  # [RP14 Alg. 3] alpha_0 := 0
        Ga[:] = 0.0  # G alpha_0 = 0
        k = 0
    if rec.shape[0] > 0 and resume == 0:
        rec[0, :] = alpha
    while True:
        if resume < 1:
            found = _separated(kind, G, data, indices, indptr, tmp, alpha, Ga)
            if found == SEPARATED:  # G alpha_k > 0_n: exit
                return k, alpha, True, products
            if found == WITHIN_ROUNDOFF:
                _note(k, alpha, note, note_v)
        resume = 0
        if k >= max_iter:
            return k, alpha, False, products
        j = _argmin(Ga)  # [RP14 eq. (10)] j = argmin_i (G alpha_k)_i  (e_1 at k = 0, E-A7)
        theta = 1.0 / (k + 1)  # [RP14 Alg. 3] theta_k := 1/(k+1)
        gram_column(kind, G, data, indices, indptr, tmp, j, Ge)  # G e_j: the one matvec
        products += 1
        for i in range(n):  # alpha_{k+1} := (1 - theta_k) alpha_k + theta_k e_j
            alpha[i] = (1 - theta) * alpha[i]
            Ga[i] = (1 - theta) * Ga[i] + theta * Ge[i]  # by linearity
        alpha[j] += theta
        k += 1
        if k % REFRESH_EVERY == 0:
            gram_matvec(kind, G, data, indices, indptr, tmp, alpha, Ga)
            products += 1
        if rec.shape[0] > 0:
            rec[k, :] = alpha


# -- Algorithm 5: NVN ------------------------------------------------------------------------------


@njit()
def nvn(kind, G, data, indices, indptr, d, epsilon, max_iter, rec, rec_theta, p, Gp, note, note_v, k, resume):
    """NVN with the primal exit  [RP14 Alg. 5, E-A6] -> (k, p, claim, products);
    claim 0 = none, 1 = separator, 2 = certificate.

    ``resume`` 0: start afresh (p_0); r >= 1: go on from the state (p, Gp = G p, k) after a
    refused claim at k, the first r exit tests at k (certificate, then separator) already taken.
    ``note``/``note_v`` as in :func:`nkp`.
    """
    n = p.shape[0]
    tmp = np.zeros(d)
    products = 0
    if resume == 0:
        p[:] = 1.0 / n  # [RP14 Alg. 5] p_0 := 1_n/n
        gram_matvec(kind, G, data, indices, indptr, tmp, p, Gp)
        products = 1
        k = 0
    Ge = np.empty(n)
    Gd = np.empty(n)
    if rec.shape[0] > 0 and resume == 0:
        rec[0, :] = p
    while True:
        if resume < 1:
            nrm = _g_norm(p, Gp)
            if abs(nrm - epsilon) <= REFRESH_TOL:  # near the exit: decide on a fresh G p
                gram_matvec(kind, G, data, indices, indptr, tmp, p, Gp)
                products += 1
                nrm = _g_norm(p, Gp)
            if nrm <= epsilon:  # [RP14 Alg. 5] ||X Y p_k||_2 <= eps: an eps-solution of (13)
                return k, p, 2, products
        if resume < 2:
            found = _separated(kind, G, data, indices, indptr, tmp, p, Gp)
            if found == SEPARATED:  # [E-A6] primal exit
                return k, p, 1, products
            if found == WITHIN_ROUNDOFF:
                _note(k, p, note, note_v)
        resume = 0
        if k >= max_iter:
            return k, p, 0, products
        j = _argmin(Gp)  # [RP14 Alg. 5] j := argmin_i y_i x_i^T w_k
        gram_column(kind, G, data, indices, indptr, tmp, j, Ge)  # G e_j: the one matvec
        products += 1
        num = 0.0
        den = 0.0
        for i in range(n):  # d := p_k - e_j;  Gd = G p_k - G e_j
            Gd[i] = Gp[i] - Ge[i]
            num += p[i] * Gd[i]  # <w_k, w_k - a>
        for i in range(n):
            di = p[i] - 1.0 if i == j else p[i]
            den += di * Gd[i]  # ||w_k - a||^2
        theta = min(max(num / den, 0.0), 1.0) if den > 0 else 0.0  # theta_k (exact line search)
        for i in range(n):  # p_{k+1} := (1 - theta_k) p_k + theta_k e_j
            p[i] = (1 - theta) * p[i]
            Gp[i] = (1 - theta) * Gp[i] + theta * Ge[i]  # by linearity
        p[j] += theta
        k += 1
        if k % REFRESH_EVERY == 0:
            gram_matvec(kind, G, data, indices, indptr, tmp, p, Gp)
            products += 1
        if rec.shape[0] > 0:
            rec[k, :] = p
            rec_theta[k] = theta


# -- Algorithms 4 and 6: SNKP and SNKPVN -----------------------------------------------------------


@njit()
def _best_response(prox, q, Ga, mu, out):
    """p_mu(alpha) (entropy, Alg. 4: prox 0) or p^q_mu(alpha) (Euclidean, Alg. 6: prox 1)."""
    if prox == 0:
        _softmax_neg(Ga, mu, out)  # p_mu(alpha) = softmax(-G alpha / mu)  [RP14 eq. (11)]
    else:
        _project_q(q, Ga, mu, out)  # p^q_mu(alpha) = Proj_Delta(q - G alpha / mu)  [RP14 Sec. 5.3]


@njit()
def smoothed(kind, G, data, indices, indptr, d, prox, q, delta, max_iter, rec_alpha, rec_p, rec_mu,
             alpha, Ga, p, Gp, b, Gb, mu, note, note_v, k, resume):
    """SNKP (prox 0, [RP14 Alg. 4]) or SNKPVN(q, delta) (prox 1, [RP14 Alg. 6])
    -> (k, alpha, p, mu, claim, products); claim 0 = none, 1 = separator, 2 = certificate.

    One softmax (projection) and one G-product per step: b = p_{mu_k}(alpha_k) computed at the
    end of step k-1 is the best response step k needs, and G b is carried with it.

    The state is (alpha, Ga, p, Gp, b, Gb, mu, k), the arrays updated in place.  ``resume`` 0:
    start afresh (alpha_0, mu_0, p_0); r >= 1: go on from the state after a refused claim at k,
    the first r exit tests at k (separator, then certificate) already taken.  ``note``/``note_v``
    as in :func:`nkp`, for SNKP only (SNKPVN's textbook exit test verifies its separator itself).
    """
    n = alpha.shape[0]
    tmp = np.zeros(d)
    products = 0
    if resume == 0:
        if prox == 0:
            alpha[:] = 1.0 / n  # [RP14 Alg. 4] alpha_0 := 1_n / n
            mu = 2.0  # mu_0 := 2
        else:
            alpha[:] = q  # [RP14 Alg. 6] alpha_0 := q
            mu = 2.0 * n  # mu_0 := 2n
        gram_matvec(kind, G, data, indices, indptr, tmp, alpha, Ga)
        _best_response(prox, q, Ga, mu, b)  # p_0 := p_{mu_0}(alpha_0)
        gram_matvec(kind, G, data, indices, indptr, tmp, b, Gb)
        products = 2
        p[:] = b
        Gp[:] = Gb
        k = 0
    recording = rec_alpha.shape[0] > 0
    if recording and resume == 0:
        rec_alpha[0, :] = alpha
        rec_p[0, :] = p
        rec_mu[0] = mu
    while True:
        if resume < 1:
            found = _separated(kind, G, data, indices, indptr, tmp, alpha, Ga)
            if found == SEPARATED:  # G alpha_k > 0_n
                return k, alpha, p, mu, 1, products
            if found == WITHIN_ROUNDOFF and prox == 0:
                _note(k, alpha, note, note_v)
        if prox == 1 and resume < 2:
            nrm = _g_norm(p, Gp)
            if abs(nrm - delta) <= REFRESH_TOL:  # near the exit: decide on a fresh G p
                gram_matvec(kind, G, data, indices, indptr, tmp, p, Gp)
                products += 1
                nrm = _g_norm(p, Gp)
            if nrm < delta:  # [RP14 Alg. 6] else if ||p_k||_G < delta: return p_k
                return k, alpha, p, mu, 2, products
        resume = 0
        if k >= max_iter:
            return k, alpha, p, mu, 0, products
        theta = 2.0 / (k + 3)  # [RP14 Alg. 4/6] theta_k := 2/(k+3)
        for i in range(n):
            # alpha_{k+1} := (1 - theta)(alpha_k + theta p_k) + theta^2 p_{mu_k}(alpha_k)   (b = p_{mu_k}(alpha_k))
            alpha[i] = (1 - theta) * (alpha[i] + theta * p[i]) + theta**2 * b[i]
            Ga[i] = (1 - theta) * (Ga[i] + theta * Gp[i]) + theta**2 * Gb[i]  # by linearity
        mu = (1 - theta) * mu  # mu_{k+1} := (1 - theta_k) mu_k
        _best_response(prox, q, Ga, mu, b)  # b := p_{mu_{k+1}}(alpha_{k+1}), the one softmax
        gram_matvec(kind, G, data, indices, indptr, tmp, b, Gb)  # G b: the one G-product
        products += 1
        for i in range(n):
            p[i] = (1 - theta) * p[i] + theta * b[i]  # p_{k+1} := (1 - theta) p_k + theta p_{mu_{k+1}}(alpha_{k+1})
            Gp[i] = (1 - theta) * Gp[i] + theta * Gb[i]  # by linearity
        k += 1
        if k % REFRESH_EVERY == 0:
            gram_matvec(kind, G, data, indices, indptr, tmp, alpha, Ga)
            gram_matvec(kind, G, data, indices, indptr, tmp, p, Gp)
            products += 2
        if recording:
            rec_alpha[k, :] = alpha
            rec_p[k, :] = p
            rec_mu[k] = mu


# -- Algorithms 1 and 2: the Perceptron and the Normalized Perceptron (primal, dense Z) ------------


@njit()
def _margins(Z, w, out):
    """out := Z w, the margins y_i <w, x_i>."""
    for i in range(Z.shape[0]):
        s = 0.0
        for c in range(Z.shape[1]):
            s += Z[i, c] * w[c]
        out[i] = s


@njit()
def perceptron(Z, most_violated, max_iter, rec, w, k, cursor, resume):
    """The Perceptron  [RP14 Alg. 1] on the reflected rows Z -> (k, w, separated).

    The state is (w, k, cursor[0] = the index the next cyclic scan starts from), w and cursor
    updated in place.  ``resume`` 0: start afresh (w_0 = 0); 1: go on after a refused claim at k
    (the exit test at k is not taken again).

    A mistake is a margin not above its round-off allowance (reference.perceptrons'
    ``_perceptron_step`` via ``separator_allowance``: (dim + 16) eps |z_i| . |w| + (2 dim + 4)
    UNDERFLOW); the exit test is every margin > 0, as the textbook's.
    """
    n, dim = Z.shape
    margins = np.empty(n)
    if resume == 0:
        w[:] = 0.0  # [RP14 Alg. 1] w_0 := 0
        k = 0
        cursor[0] = 0
        if rec.shape[0] > 0:
            rec[0, :] = w
    start = cursor[0]
    c_eps, c_under = MACHINE_EPS * (dim + 16), (2 * dim + 4) * UNDERFLOW  # the allowance's constants
    row1 = np.empty(n)  # ||z_i||_1: a margin above 2 c_eps ||z_i||_1 ||w||_inf + c_under is above its allowance
    for i in range(n):
        row1[i] = 0.0
        for c in range(dim):
            row1[i] += abs(Z[i, c])
    while True:
        if most_violated:
            _margins(Z, w, margins)
            j = _argmin(margins)  # the most misclassified point (smallest index on ties)
            if resume < 1 and margins[j] > 0:
                return k, w, True  # no mistake left: halt
        else:  # cyclic: the first mistake at or after `start`, wrapping around
            w_inf = 0.0
            for c in range(dim):
                w_inf = max(w_inf, abs(w[c]))
            j = -1
            separated = True
            for o in range(n):
                i = (start + o) % n
                s = 0.0
                for c in range(dim):
                    s += Z[i, c] * w[c]  # y_i w_k^T x_i
                # y_i w_k^T x_i <= 0 read in floating point: not above its round-off allowance
                if j < 0 and not s > 2.0 * c_eps * row1[i] * w_inf + c_under:  # else clearly above it
                    a = 0.0
                    for c in range(dim):
                        a += abs(Z[i, c]) * abs(w[c])
                    if not s > a * c_eps + c_under:
                        j = i
                if not s > 0:
                    separated = False
                    break
            if resume < 1 and separated:
                return k, w, True  # every margin > 0: halt
        resume = 0
        if k >= max_iter or j < 0:  # (j < 0: a claim refused on other data than Z; no mistake here)
            return k, w, False
        for c in range(dim):
            w[c] = w[c] + Z[j, c]  # [RP14 Alg. 1] w_{k+1} := w_k + y_i x_i
        start = (j + 1) % n
        cursor[0] = start
        k += 1
        if rec.shape[0] > 0:
            rec[k, :] = w


@njit()
def normalized_perceptron(Z, max_iter, rec, w, k, resume):
    """The Normalized Perceptron  [RP14 Alg. 2] on the working rows Z -> (k, w, separated).

    The state is (w, k), w updated in place; ``resume`` as in :func:`perceptron`.
    """
    n, dim = Z.shape
    margins = np.empty(n)
    if resume == 0:
        w[:] = 0.0  # [RP14 Alg. 2] w_0 := 0
        k = 0
        if rec.shape[0] > 0:
            rec[0, :] = w
    while True:
        _margins(Z, w, margins)  # Y X^T w_k: one product serves the exit test and the argmin
        j = _argmin(margins)  # [RP14 eq. (4)] p(w_k) = e_j, j = argmin_i y_i x_i^T w_k
        if resume < 1 and margins[j] > 0:
            return k, w, True  # Y X^T w_k > 0: exit
        resume = 0
        if k >= max_iter:
            return k, w, False
        theta = 1.0 / (k + 1)  # [RP14 Alg. 2] theta_k := 1/(k+1)
        for c in range(dim):
            w[c] = (1 - theta) * w[c] + theta * Z[j, c]  # w_{k+1} := (1 - theta_k) w_k + theta_k y_j x_j
        k += 1
        if rec.shape[0] > 0:
            rec[k, :] = w
