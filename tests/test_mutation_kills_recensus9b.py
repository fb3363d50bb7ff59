"""The fast engine's wrappers at their edges (issue 13, the session-9 re-census survivors of
reference.fast.engine; verdicts in benchmarks/mutation/recensus9_engine.md).

The contract (reference.fast.engine, tests/test_fast_resume.py): the compiled engine validates its
arguments as the textbook engine does, goes on after a refused claim exactly where the textbook
driver (reference.result.drive) goes on, and so ends with the same status, counter, message and
iterate; every claim is verified before return.  Each instance below is built for one path --
a refused PT11 convergence whose first pattern within round-off sits exactly at the allowance, or
is told apart only by the extended coordinates, or comes at t > 2^53, or at a budget counted in
epochs; a coordinate that underflows to 0 in the scaled run; a kernel resumed after a claim -- and
is checked against the textbook engine and, where a claim verifies, in exact rational arithmetic
(reference.verify_exact).
"""

from fractions import Fraction

import numpy as np
import pytest

import reference

pytest.importorskip("numba", reason="the compiled engine needs numba: pip install 'perceptron-margins[fast]'")

from reference.fast import pt11_kernels, rp14_kernels  # noqa: E402

U = 2.0**-52


def _both(fn, *args, **kw):
    return fn(*args, **kw), fn(*args, engine="fast", **kw)


def _pt11_same(a, b):
    """Same status, counter, message and iterate (bit for bit), and the same PT11 bookkeeping."""
    assert (b.status, b.iterations, b.message) == (a.status, a.iterations, a.message), (a.message, b.message)
    np.testing.assert_array_equal(b.w, a.w)
    for key in ("t_c", "ell", "theta", "epochs", "passes"):
        assert b.info[key] == a.info[key], key


# -- PT11: the first pattern not above the allowance (engine.pt11 after a refused convergence) -------


@pytest.mark.parametrize("fn, arg", [(reference.pdm, 1.0), (reference.pfm, 0.0)], ids=["pdm", "pfm"])
def test_pt11_margin_exactly_at_the_allowance_is_the_mistake(fn, arg):
    """y_1 = (1, 1), y_2 = (1 + 18u, -(1 - 18u)), rho = None (K = 2 coordinates): after a = y_1
    (t = 1) the run converges (a.y_2 = 36u > 0 = theta), and a.y_2 = 36u equals the verifier's
    allowance (K + 16) u |y_2|.|a| = 18u * 2 exactly (the (2K + 4) 2^-1074 term is absorbed): not
    above it, so the claim is refused and y_2 is the pattern to update with (`not margin > slack`,
    as the textbook's _first_unverified).  Reading `margin < slack` finds no pattern at all."""
    from reference.result import pattern_allowance

    A, B = 1 + 18 * U, -(1 - 18 * U)
    X, y = np.array([[1.0, 1.0], [A, B]]), np.array([1, 1])
    assert Fraction(A) + Fraction(B) == 36 * Fraction(U) and Fraction(abs(A)) + Fraction(abs(B)) == 2  # exact
    margins, slack = pattern_allowance(np.array([A, B]), np.array([0, 1]), np.array([0, 2]), np.ones(1), None, None, np.ones(2), 2)
    assert margins[0] == slack[0] == 36 * U  # the instance sits exactly at the allowance
    a, b = _both(fn, X, y, arg, rho=None)
    _pt11_same(a, b)
    assert b.info["t_c"] == (1, 2)  # refused at t = 1, then one update with y_2
    np.testing.assert_array_equal(b.w, [1 + A, 1 + B])
    assert b.status == reference.SEPARATOR and reference.verify_exact(b, X, y) == ""


def test_pt11_first_unverified_pattern_counts_the_extended_coordinates():
    """x_0 = 0 in the extended space (Delta = 2^-20, no bias): y_0 = [0, Delta e_0] has, after its
    update, a.y_0 = Delta^2 = 2^-40, far above its allowance -- but 0 without the extended
    coordinates.  The refused claim (a.y_2 = 2^-52 after a = y_0 + y_1, x_1 = (1, 0, 1),
    x_2 = (-(1 - u), 5, 1)) is y_2's, the pattern the textbook updates with: then a verifies
    (t = 3).  Choosing y_0 instead adds Delta e_0 again and again: the same refusal until the
    budget."""
    X, y = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [-(1 - U), 5.0, 1.0]]), np.array([1, 1, 1])
    D = 2.0**-20
    a, b = _both(reference.pfm, X, y, 0.0, rho=None, Delta=D, max_iter=100)
    _pt11_same(a, b)
    assert b.info["t_c"] == (2, 3)
    np.testing.assert_array_equal(b.w, [U, 5.0, 2.0, D, D, D])  # y_0 + y_1 + y_2, exactly
    assert b.status == reference.SEPARATOR and reference.verify_exact(b, X, y) == ""


def test_pt11_refused_convergence_beyond_2_53_keeps_t_exact():
    """x = (1, 0), (0, 2^-54), (1 + 4u, -1), labels +1, no bias, PDM(1/2) with multiple updates: y_2
    is updated about 2^54 times at once, and the run converges at t = 2^54 + 3 with a = (1, 1),
    where a.y_3 = 4u is within round-off: refused, one update with y_3, then a verified separator.
    t_c keeps both convergences as integers, as the textbook's Python ints (2^54 + 3 is no double:
    held as a float64 it reads 2^54 + 4)."""
    X, y = np.array([[1.0, 0.0], [0.0, 2.0**-54], [1 + 4 * U, -1.0]]), np.array([1, 1, 1])
    a, b = _both(reference.pdm, X, y, 0.5, rho=None, multiple_updates=True, max_iter=2**62)
    _pt11_same(a, b)
    t1 = b.info["t_c"][0]
    assert len(b.info["t_c"]) == 2 and t1 == 2**54 + 3 and float(t1) != t1  # the instance does what it is built for
    assert all(type(t) is int for t in b.info["t_c"])
    assert b.status == reference.SEPARATOR and reference.verify_exact(b, X, y) == ""


# -- PT11: an extended coordinate that underflows in the scaled run ----------------------------------


@pytest.mark.parametrize("fn, arg", [(reference.pdm, 1.0), (reference.pfm, 0.0)], ids=["pdm", "pfm"])
def test_pt11_extended_coordinate_that_underflows_stays_zero(fn, arg):
    """X at 2^1000 and Delta = 2^-1074 (no bias): the run is on the patterns times 2^-1002, where
    Delta underflows to 0 -- extended coordinates that are exactly 0.  Every update (and the one
    after the refused convergence at t = 3) adds Delta l_k = 0 to them, as the textbook does: w's
    extended part stays 0, bit for bit the textbook's (not 1 for a Delta read as `Delta or 1`)."""
    X, y = np.array([[-(1 + 2 * U), 0.5], [-3.0, -1.0]]) * 2.0**1000, np.array([1, -1])
    a, b = _both(fn, X, y, arg, rho=None, Delta=5e-324)
    assert b.info["scale"] == "2^-1002" and 5e-324 * 2.0**-1002 == 0.0  # the instance does what it is built for
    _pt11_same(a, b)
    assert b.info["t_c"] == (3, 4)  # a refused convergence, then the unverified update
    np.testing.assert_array_equal(b.w[2:], [0.0, 0.0])
    assert b.status == reference.SEPARATOR and reference.verify_exact(b, X, y) == ""


# -- PT11: the budget after a refused convergence counts epochs, not passes ---------------------------


@pytest.mark.parametrize("fn, arg", [(reference.pdm, 1.0), (reference.pfm, 0.0)], ids=["pdm", "pfm"])
def test_pt11_active_sets_budget_after_a_refusal_counts_epochs(fn, arg):
    """X_TINY of tests/test_fast_resume.py (y_1 = (1, 0, 1), y_2 = (-(1 - u), 5, 1) with rho = 1)
    with active sets and max_epochs = 3: the convergence at t = 1 is refused after 2 epochs but
    more passes (the passes over the active sets count as passes, not epochs); the budget of 3
    epochs is not exhausted, so both engines update with y_2 and verify a = (u, 5, 2) at t = 2."""
    X, y = np.array([[1.0, 0.0], [-(1.0 - U), 5.0]]), np.array([1, 1])
    a, b = _both(fn, X, y, arg, active_sets=True, max_epochs=3)
    _pt11_same(a, b)
    assert b.info["passes"] > b.info["epochs"] == 3 and b.info["t_c"] == (1, 2)
    assert (b.status, b.iterations) == (reference.SEPARATOR, 2)
    np.testing.assert_array_equal(b.w, [U, 5.0, 2.0])


def test_pt11_kernel_converging_without_a_pass_is_stopped(monkeypatch):
    """A PT11 kernel that, asked to go on after a refused convergence, claims convergence again
    without making a full pass is a broken kernel: the engine ends the run with "max_iter" and the
    verifier's reason (its guard: no full pass made, yet "converged") -- not an endless round of
    unverified updates until the budget.  The instance (pdm, eps = 1) has its first convergence
    refused at t = 2 (the textbook's t_c is (2, 4, 6)); the state after the update with the first
    pattern within round-off (t = 3) does not verify."""
    X = np.array([[2.0, -(1 - U)], [1.0, -3.0], [1.0, -(1 - U)], [0.0, -1.0]])
    y = np.array([-1, 1, 1, 1])
    slow = reference.pdm(X, y, 1.0)
    assert slow.info["t_c"] == (2, 4, 6) and slow.status == reference.SEPARATOR  # the instance
    real, calls = pt11_kernels.run, []

    def lazy(*args):  # the real kernel once; then "converged" at once, the state untouched
        calls.append(int(args[-3][2]))  # istate[2]: the passes made so far
        return real(*args) if len(calls) == 1 else pt11_kernels.CONVERGED

    monkeypatch.setattr(pt11_kernels, "run", lazy)
    r = reference.pdm(X, y, 1.0, engine="fast", max_iter=50)
    assert len(calls) == 2 and calls[1] > 0  # resumed once, after a run that made passes
    assert (r.status, r.iterations) == (reference.MAX_ITER, 3)
    assert r.message.startswith("separator claimed but not verified: y_")


# -- RP14 Gram algorithms: the G-products of a resumed run (engine._drive) ----------------------------


def test_products_count_every_kernel_call_of_a_resumed_run(monkeypatch):
    """SNKP makes G alpha_0 and G p_0, then one G b per step (rp14_kernels.smoothed; no refresh
    before k = 1024): info["products"] = k + 2.  A kernel that returns a claim at k = 3 (its
    true state; the claim does not verify there) is resumed by the engine; the products of both
    calls are the run's, so the count is still k + 2 -- and the run ends as the run without the
    false claim."""
    rng = np.random.default_rng(6)
    G = reference.gram(rng.normal(size=(40, 3)), rng.choice([-1, 1], size=40))  # no separator
    expected = reference.snkp(G, max_iter=300, engine="fast")
    assert expected.iterations == 300 < rp14_kernels.REFRESH_EVERY and expected.info["products"] == 302
    real, calls = rp14_kernels.smoothed, []

    def claiming_at_3(*args):
        calls.append(args[-1])
        if args[-1] == 0:  # the first call: run to k = 3 (max_iter is argument 9), then claim a separator
            out = list(real(*args[:9], 3, *args[10:]))
            out[4] = 1
            return tuple(out)
        return real(*args)

    monkeypatch.setattr(rp14_kernels, "smoothed", claiming_at_3)
    r = reference.snkp(G, max_iter=300, engine="fast")
    assert calls == [0, 1]
    assert (r.status, r.iterations) == (expected.status, expected.iterations)
    assert r.info["products"] == r.iterations + 2


# -- RP14 primal algorithms: rho is validated by the fast wrapper itself ------------------------------


@pytest.mark.parametrize(
    "fn, kw",
    [(reference.perceptron, {}), (reference.normalized_perceptron, {}), (reference.normalized_perceptron, dict(normalize=False))],
    ids=["perceptron", "normalized", "normalized-raw"],
)
def test_fast_primal_algorithms_take_zero_rows_with_a_bias(fn, kw):
    """Zero rows are refused only without a bias (reference.perceptrons._check_primal_data: a zero
    point is never strictly separated, [0, rho] is): with rho = 1, X = (0, 0), (-1, -1), labels
    (1, -1), both engines separate, alike, and the separator holds exactly."""
    X, y = np.array([[0.0, 0.0], [-1.0, -1.0]]), np.array([1, -1])
    a, b = _both(fn, X, y, rho=1.0, **kw)
    assert (b.status, b.iterations, b.message) == (a.status, a.iterations, a.message)
    np.testing.assert_array_equal(b.w, a.w)
    assert b.status == reference.SEPARATOR and reference.verify_exact(b, X, y, rho=1.0) == ""


@pytest.mark.parametrize("name", ["perceptron", "normalized_perceptron"])
def test_fast_primal_algorithms_refuse_a_non_real_rho_by_name(name):
    """rho = "a" is no real number: a ValueError naming rho and the fix (e.g. rho=1.0, or rho=None),
    as the textbook engine raises -- not numpy's "could not convert string to float"."""
    X, y = np.array([[1.0, 2.0], [-1.0, -1.0]]), np.array([1, -1])
    for engine in ("textbook", "fast"):
        with pytest.raises(ValueError, match=r"^rho must be a real number, got 'a'; .*rho=1\.0"):
            getattr(reference, name)(X, y, rho="a", engine=engine)


# -- bug: verify_exact ignored the bias coordinate of the Perceptrons (reference.exact) ---------------
# The Perceptron and the Normalized Perceptron run with rho on [x_i, rho] and return w with a bias
# coordinate, but verify_exact checked y_i <w, x_i> over the coordinates of x_i alone (zip cut w):
# a true separator was refuted and a false one accepted.  Now rho= is passed as the run's, and a w
# whose length is not the patterns' is an error naming the fix.


def test_verify_exact_checks_a_perceptron_separator_with_its_bias():
    """X = (1, 0), (2, 0), labels (1, -1), rho = 1: separable only through the bias (the points
    lie on a ray from 0), so every separator has y_0 <w_x, x_0> = w_0 < 0 < w_0 + w_2: read without
    the bias coordinate, the returned separator was refuted."""
    X, y = np.array([[1.0, 0.0], [2.0, 0.0]]), np.array([1, -1])
    for engine in ("textbook", "fast"):
        for fn in (reference.perceptron, reference.normalized_perceptron):
            r = fn(X, y, rho=1.0, engine=engine)
            assert r.status == reference.SEPARATOR
            assert reference.verify_exact(r, X, y, rho=1.0) == ""
            with pytest.raises(ValueError, match=r"^w has 3 coordinates, the patterns of the data 2: pass rho=, the bias"):
                reference.verify_exact(r, X, y)
            assert r.w[0] < 0  # the x-part alone does not separate: the instance is the bug's


def test_verify_exact_refutes_a_false_separator_whose_bias_is_wrong():
    """X = (1), (-1), labels (1, -1), rho = 1: the patterns are [1, 1] and [1, -1].  w = (1, 5)
    has x-part margins 1, 1 (the old check accepted it), but [1, -1].(1, 5) = -4: refuted.  w = (1, 0)
    separates: accepted.  rho= for a result that records its own (PT11) is refused by name."""
    from dataclasses import replace

    X, y = np.array([[1.0], [-1.0]]), np.array([1, -1])
    r = reference.perceptron(X, y, rho=1.0)
    assert r.status == reference.SEPARATOR
    msg = reference.verify_exact(replace(r, w=np.array([1.0, 5.0])), X, y, rho=1.0)
    assert msg.startswith("y_i <w, x_i>_1 = -4")
    assert reference.verify_exact(replace(r, w=np.array([1.0, 0.0])), X, y, rho=1.0) == ""
    p = reference.pdm(X, y, 0.5)
    with pytest.raises(ValueError, match=r"^rho is the bias of the Perceptrons' runs; .*drop rho="):
        reference.verify_exact(p, X, y, rho=1.0)
