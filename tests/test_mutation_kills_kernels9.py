"""Kills of the session-9 kernel mutants: mutmut's operators on the lines of
reference/fast/rp14_kernels.py and pt11_kernels.py changed since the session-5 run (e823882), applied
by benchmarks/mutation/kernel_mut.py (benchmarks/mutation/kernels.md, "Session 9").

Each test runs the compiled engine on an instance that reaches the mutated line and asks for what
the README promises: the textbook engine's status, counter and iterates.  Expected values are
worked by hand in the comments (dyadic data: every sum and product is exact), never read off the
library.
"""

from __future__ import annotations

import numpy as np
import pytest

import reference

numba = pytest.importorskip("numba", reason="the compiled engine needs numba: pip install 'perceptron-margins[fast]'")

UNDER = 2.0**-1074  # the smallest subnormal (reference.arithmetic.UNDERFLOW)


def _both(fn, *args, **kw):
    return fn(*args, **kw), fn(*args, engine="fast", **kw)


def test_cyclic_perceptron_underflow_allowance_is_the_textbooks():
    """A mistake is a margin not above (dim + 16) eps |z_i|.|w| + (2 dim + 4) UNDERFLOW
    (reference.result.separator_allowance); with margins in the subnormal range only the
    second term counts.  z_0 = z_1 = (0, t), z_2 = (1, 0), t = 3 2^-537 (t^2 = 9 UNDERFLOW,
    exact), dim = 2: allowance 8 UNDERFLOW.
    k = 0: every margin is 0, z_0 is the mistake: w_1 = (0, t).  k = 1: the scan starts at z_1,
    margin t^2 = 9 UNDERFLOW > 8 UNDERFLOW: no mistake; z_2 has margin 0: w_2 = (1, t), every
    margin > 0 (9 UNDERFLOW, 9 UNDERFLOW, 1) beyond the allowance: a separator at k = 2.
    An allowance of 9 UNDERFLOW (2 dim + 5) takes z_1 as the mistake instead (separator at k = 3)."""
    t = 3 * 2.0**-537
    assert t * t == 9 * UNDER
    X = np.array([[0.0, t], [0.0, t], [1.0, 0.0]])
    a, b = _both(reference.perceptron, X, np.ones(3, dtype=int), trace=True)
    for r in (a, b):
        assert (r.status, r.iterations) == (reference.SEPARATOR, 2), r.message
        np.testing.assert_array_equal(r.w, [1.0, t])
        np.testing.assert_array_equal(r.trace[1].w, [0.0, t])


@pytest.mark.parametrize("name", ["nkp", "nvn", "snkp", "snkpvn"])
def test_a_trace_with_no_step_records_the_start(name):
    """max_iter = 0 with trace=True: one state, the algorithm's start (alpha_0 = 0 for NKP,
    p_0 = 1_n/n for NVN, alpha_0 = 1_n/n and mu_0 for SNKP / SNKPVN), as the textbook records it.
    X = (e1, -e1, e2), y = 1: not separable, so no exit at k = 0."""
    G = reference.gram(np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]]), np.ones(3))
    third = np.full(3, 1.0 / 3)
    calls = {
        "nkp": lambda **kw: reference.nkp(G, **kw),
        "nvn": lambda **kw: reference.nvn(G, 1e-3, **kw),
        "snkp": lambda **kw: reference.snkp(G, **kw),
        "snkpvn": lambda **kw: reference.snkpvn(G, third, 1e-3, **kw),
    }
    a, b = _both(calls[name], max_iter=0, trace=True)
    assert (a.status, a.iterations, len(a.trace)) == (b.status, b.iterations, len(b.trace)) == (reference.MAX_ITER, 0, 1)
    start = {"nkp": ("alpha", np.zeros(3)), "nvn": ("p", third), "snkp": ("alpha", third), "snkpvn": ("alpha", third)}[name]
    for r in (a, b):
        np.testing.assert_array_equal(getattr(r.trace[0], start[0]), start[1])
    if name.startswith("snkp"):
        assert a.trace[0].mu == b.trace[0].mu == (2.0 if name == "snkp" else 6.0)  # mu_0 := 2, or 2n
        np.testing.assert_allclose(b.trace[0].p, a.trace[0].p, rtol=1e-15)


# -- a refused claim: the kernel goes on from its state, past the exit test already taken -----------
# Natural refusals of Gram claims are rare (the kernels' exit tests take the verifier's allowance), so
# the verifiers of both engines are made to refuse the first separator claim of a run; the textbook
# driver then steps on from that state (reference.result.drive), and the fast engine must resume its
# kernel there, the exit test at that iteration not taken again.


def _refusing_first(verify, count):
    def refusing(*args, **kw):
        count[0] += 1
        return "refused by the test" if count[0] == 1 else verify(*args, **kw)

    return refusing


def _feasible():
    """39 points in R^3, separable with a margin (tests/test_fast_resume.py's instance)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    s = X @ np.array([1.0, -2.0, 0.5])
    keep = np.abs(s) > 0.05
    return X[keep], np.where(s[keep] >= 0, 1, -1)


def _infeasible():
    """40 points in R^3 with random labels: no separator (tests/test_fast_resume.py's instance)."""
    rng = np.random.default_rng(6)
    return rng.normal(size=(40, 3)), rng.choice([-1, 1], size=40)


# (Not the cyclic Perceptron: its textbook step takes the first margin within the allowance as the
# mistake, and a refusal the allowance does not explain leaves it none: the run ends, max_iter --
# tests/test_cyclic_perceptron_refused_claim.py.)
_REFUSED = {
    # name: (textbook module, its Algorithm, the fast engine's verifier, the run, the data)
    "most_violated": (
        "perceptrons",
        "PERCEPTRON",
        "verify_separator_primal",
        lambda X, y, G, **kw: reference.perceptron(X, y, rule="most_violated", **kw),
        _feasible,
    ),
    "normalized_perceptron": (
        "perceptrons",
        "NORMALIZED_PERCEPTRON",
        "verify_separator_primal",
        lambda X, y, G, **kw: reference.normalized_perceptron(X, y, **kw),
        _feasible,
    ),
    "nkp": ("perceptrons", "NKP", "verify_separator_gram", lambda X, y, G, **kw: reference.nkp(G, **kw), _feasible),
    "nvn": ("von_neumann", "NVN", "verify_separator_gram", lambda X, y, G, **kw: reference.nvn(G, 1e-9, **kw), _feasible),
    "nvn-certificate": ("von_neumann", "NVN", "verify_certificate", lambda X, y, G, **kw: reference.nvn(G, 0.05, **kw), _infeasible),
    "snkp": ("smoothed", "SNKP", "verify_separator_gram", lambda X, y, G, **kw: reference.snkp(G, **kw), _feasible),
    "snkpvn": (
        "smoothed",
        "SNKPVN",
        "verify_separator_gram",
        lambda X, y, G, **kw: reference.snkpvn(G, np.full(G.shape[0], 1.0 / G.shape[0]), 1e-9, **kw),
        _feasible,
    ),
    "snkpvn-certificate": (
        "smoothed",
        "SNKPVN",
        "verify_certificate",
        lambda X, y, G, **kw: reference.snkpvn(G, np.full(G.shape[0], 1.0 / G.shape[0]), 0.05, **kw),
        _infeasible,
    ),
}


@pytest.mark.parametrize("name", list(_REFUSED))
def test_after_a_refused_first_claim_both_engines_go_on_alike(monkeypatch, name):
    import dataclasses
    import importlib

    from reference.fast import engine

    module, algorithm, verifier, run, data = _REFUSED[name]
    X, y = data()
    G = reference.gram(X, y)
    plain, plain_fast = run(X, y, G, max_iter=2000), run(X, y, G, max_iter=2000, engine="fast")
    expected = reference.CERTIFICATE if name.endswith("certificate") else reference.SEPARATOR
    assert plain.status == expected  # the claim the verifiers will refuse, at plain.iterations
    mod = importlib.import_module(f"reference.{module}")
    algo = getattr(mod, algorithm)
    slow_count, fast_count = [0], [0]
    monkeypatch.setattr(mod, algorithm, dataclasses.replace(algo, verify=_refusing_first(algo.verify, slow_count)))
    monkeypatch.setattr(engine, verifier, _refusing_first(getattr(engine, verifier), fast_count))
    slow, fast = run(X, y, G, max_iter=2000, trace=True), run(X, y, G, max_iter=2000, trace=True, engine="fast")
    assert slow_count[0] >= 2 and fast_count[0] >= 2  # the refused claim, then at least one more
    assert slow.iterations > plain.iterations  # the textbook stepped on past the refused claim
    assert (fast.status, fast.iterations, fast.message) == (slow.status, slow.iterations, slow.message), (fast.message, slow.message)
    vs = next(v for v in (slow.w, slow.alpha, slow.p) if v is not None)
    vf = next(v for v in (fast.w, fast.alpha, fast.p) if v is not None)
    np.testing.assert_allclose(vf, vs, rtol=1e-9, atol=1e-12)
    assert len(fast.trace) == len(slow.trace) == slow.iterations + 1  # the states before and after the refusal
    # G-products, counted across the resume: NKP one column per step; SNKP G alpha_0 and G b_0, then
    # one G b per step (no refresh below REFRESH_EVERY = 1024 steps, no certificate test)
    if name in ("nkp", "snkp"):
        start = {"nkp": 0, "snkp": 2}[name]
        assert fast.info["products"] == fast.iterations + start and plain_fast.info["products"] == plain.iterations + start
    for a, b in zip(slow.trace, fast.trace):
        assert a.k == b.k
        for field in ("w", "alpha", "p"):
            if hasattr(a, field):
                np.testing.assert_allclose(getattr(b, field), getattr(a, field), rtol=1e-9, atol=1e-12, err_msg=f"{field}_{a.k}")


def test_pdm_threshold_after_the_unverified_update_is_at_t():
    """PDM (eps = 1/2, active sets, multiple updates) on z = y_i [x_i, 1] with x = (1 - 2^-52, -3, -2),
    y = (1, 1, -1): the run converges at t = 8 with a separator the verifier refuses (a margin of
    2^-52-ish scale), counts the first pattern within round-off as a mistake, and goes on to the budget.
    After that update theta_t = eps_bar ell_t / t  [PT11 box] with t = 9, the update count (not another
    counter of the state: the epoch count is 8): the fast engine must take the textbook's steps, bit
    for bit."""
    X, y = np.array([[1.0 - 2.0**-52], [-3.0], [-2.0]]), np.array([1, 1, -1])
    opts = dict(active_sets=True, multiple_updates=True, max_iter=300)
    a, b = _both(reference.pdm, X, y, 0.5, **opts)
    assert a.info["t_c"] == (8,) and a.status == reference.MAX_ITER  # the refused convergence at t = 8
    assert (b.status, b.iterations, b.message) == (a.status, a.iterations, a.message)
    np.testing.assert_array_equal(b.w, a.w)
    for key in ("t_c", "epochs", "passes", "ell", "theta"):
        assert b.info[key] == a.info[key], key


def test_nvn_certificate_near_epsilon_is_decided_on_a_fresh_product():
    """rp14_kernels: a carried G p drifts from G p by round-off, so an exit test within REFRESH_TOL
    of deciding is taken on a fresh product.  The NVN kernel is resumed (past both exit tests at k = 0)
    from p_0 = 1_3/3 with a carried G p off by delta = 2^-32 in every entry, on
    G = 3/2 I - 1/4 J (points at 120 degrees lifted by 1/2: G p_0 = 1/4, ||p_0||_G = 1/2).
    The step: j = 0 (a tie), theta = delta / ||p_0 - e_0||_G^2 (tiny: G p_0 is constant, only the
    drift moves it), so ||p_1||_G^2 = 1/4 + theta^2 ||p_0 - e_0||_G^2 = 1/4 + O(delta^2), while the
    carried product gives ||p_1||^2 = 1/4 + (1 - theta) delta.  With epsilon = 1/2 + delta / 2, between
    the two norms (1/2 + O(delta^2) and 1/2 + delta), the fresh one decides: a certificate at k = 1
    (the carried one would not, and G p > 0 would then claim a separator)."""
    from reference.arithmetic import Arithmetic, g_norm
    from reference.fast import rp14_kernels as K

    n, delta = 3, 2.0**-32
    G = 1.5 * np.eye(n) - 0.25 * np.ones((n, n))
    p = np.full(n, 1.0 / n)
    Gp = G @ p + delta
    eps = 0.5 + delta / 2
    sparse = (np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64), 1)
    k, p1, claim, products = K.nvn(
        0, np.asfortranarray(G), *sparse, eps, 1, np.zeros((0, n)), np.zeros(0), p, Gp,
        np.full(1, -1, dtype=np.int64), np.zeros(n), 0, 2,
    )  # fmt: skip
    assert (k, claim) == (1, 2)  # a certificate at k = 1
    assert abs(float(g_norm(G, p1, Arithmetic(None))) - 0.5) < 1e-15 and p1[0] > 1.0 / 3  # p_1 moved toward e_0, a hair
    np.testing.assert_allclose(Gp, G @ p1, rtol=0, atol=1e-16)  # the decision was taken on a fresh G p_1


@pytest.mark.parametrize("rule", ["cyclic", "most_violated"])
def test_perceptron_budget_message_names_no_claim_the_textbook_did_not_make(rule):
    """x = (1, 0), (-1, 0), y = 1 (no separator): w_0 = 0 has every margin 0, w_1 = (1, 0) has margins
    (1, -1), w_2 = 0 again.  The exit test is every margin > 0 (RP14 Alg. 1), so no iterate is
    claimed and no claim was refused: the budget message is the bare one.  (A compiled exit test
    `>= 0` would claim w_0 and w_2, and the refusal would be named in the message.)"""
    X, y = np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1, 1])
    for max_iter in (0, 1, 2, 3):
        a, b = _both(reference.perceptron, X, y, rule=rule, max_iter=max_iter)
        for r in (a, b):
            assert (r.status, r.iterations, r.message) == (reference.MAX_ITER, max_iter, f"budget exhausted after {max_iter} iterations")
        np.testing.assert_array_equal(b.w, a.w)
        np.testing.assert_array_equal(b.w, [1.0, 0.0] if max_iter % 2 else [0.0, 0.0])


# -- the kernels stay inside their arrays ------------------------------------------------------------
# numba does not check indices: a kernel that writes one row past its trace array (or reads a cursor
# entry that is not there) corrupts memory silently, or crashes later.  The kernels are compiled here
# again with boundscheck=True (an out-of-range index raises IndexError) and run at the edges: no trace
# (a 0-row array), a trace of one row (max_iter = 0), a resume.


def _checked(kernel):
    return numba.njit(boundscheck=True)(kernel.py_func)


def test_perceptron_kernel_stays_inside_its_arrays():
    from reference.fast import rp14_kernels as K

    Z = np.array([[1.0, 0.0], [-1.0, 0.5], [0.5, 1.0]])  # reflected rows; separable (w = (0, 1))
    dim = Z.shape[1]
    perceptron = _checked(K.perceptron)
    for max_iter in (0, 1, 50):
        for rows in (0, max_iter + 1):  # no trace; a trace
            for most_violated in (False, True):
                w, cursor = np.zeros(dim), np.zeros(1, dtype=np.int64)
                k, w, separated = perceptron(Z, most_violated, max_iter, np.zeros((rows, dim)), w, 0, cursor, 0)
                assert 0 <= cursor[0] < Z.shape[0]
                perceptron(Z, most_violated, max_iter, np.zeros((rows, dim)), w, k, cursor, 1)  # resume at k


def test_compiled_projection_is_the_textbook_projection_bit_for_bit():
    """rp14_kernels._project_q(q, Ga, mu) is reference.arithmetic.project_simplex(q - Ga / mu): the
    same operations in the same order (shift by the max, sort, running sums, tau), so the same bits --
    on random arguments with the maximum of v at every position, at ordinary and extreme scales
    (|v| ~ 1e20, where a shift by anything but the max loses the 1 in c_j - 1)."""
    from reference.arithmetic import Arithmetic, project_simplex
    from reference.fast.rp14_kernels import _project_q

    F = Arithmetic(None)
    rng = np.random.default_rng(9)
    for trial in range(400):
        n = int(rng.integers(1, 7))
        q = rng.dirichlet(np.ones(n))
        Ga = rng.normal(size=n)
        Ga[trial % n] = -abs(Ga).max() - rng.uniform(0.1, 2.0)  # v_i = q_i - Ga_i / mu largest at i = trial % n
        mu = [1.0, 0.3, 1e-3, 1e-20][trial % 4]
        out = np.empty(n)
        _project_q(q, Ga, mu, out)
        expected = project_simplex(q - Ga / mu, F)
        np.testing.assert_array_equal(out, expected, err_msg=f"q={q.tolist()} Ga={Ga.tolist()} mu={mu}")
        assert abs(out.sum() - 1.0) <= 4 * n * 2.0**-52 and (out >= 0).all()  # on the simplex


def test_cyclic_perceptron_resumes_its_scan_after_the_last_update():
    """RP14 Alg. 1, cyclic: each scan starts at the point after the last update, also after a refused
    claim (the kernel keeps that position in its state, cursor[0]).  Three points with entries one
    unit of round-off from +-1 (found by a search over tests/test_fast_resume.py's VALUES): the run
    makes refused claims and resumes; both engines take the same 12 steps, the same w bit for bit
    (every sum of these entries is exact or rounds alike); a scan restarted at point 0 after the
    refusal ends with the same count but another w."""
    U = 2.0**-52
    X = np.array([[5.0, 2.0, -3.0], [1 - U, 1 + 2 * U, -(1 - U)], [-0.5, -0.5, -1.0]])
    y = np.array([-1, 1, -1])
    a, b = _both(reference.perceptron, X, y, rho=1.0, max_iter=200)
    assert (a.status, a.iterations) == (reference.SEPARATOR, 12)
    assert (b.status, b.iterations, b.message) == (a.status, a.iterations, a.message)
    np.testing.assert_array_equal(b.w, a.w)


def test_pdm_multiple_updates_in_the_extended_space():
    """PDM with multiple updates [PT11 Sec. 4] in the extended space (Delta = 1/2, patterns
    y_k = l_k [x_k, rho, Delta e_k]  [PT11 Sec. 5]): lambda updates with y_j add lambda Delta l_j to
    the j-th extended coordinate.  40 planted points with three labels flipped (separable only in
    the extended space); the textbook's trace shows updates with lambda = 2.  Both engines take the
    same steps: same count, same weights bit for bit, same ell."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X @ np.array([1.0, -1.0, 0.5]) >= 0, 1, -1)
    y[:3] *= -1
    slow = reference.pdm(X, y, 0.5, Delta=0.5, multiple_updates=True, trace=True)
    fast = reference.pdm(X, y, 0.5, Delta=0.5, multiple_updates=True, engine="fast")
    assert any(s.lam is not None and s.lam > 1 for s in slow.trace)  # the multiple-update branch is taken
    assert slow.status == reference.SEPARATOR
    assert (fast.status, fast.iterations, fast.message) == (slow.status, slow.iterations, slow.message)
    np.testing.assert_array_equal(fast.w, slow.w)
    assert fast.info["ell"] == slow.info["ell"] and fast.info["t_c"] == slow.info["t_c"]
