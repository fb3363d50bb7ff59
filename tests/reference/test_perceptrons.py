"""Tests of reference/test_perceptrons.py."""

from __future__ import annotations

import dataclasses
import inspect

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, strategies as st

import reference
import reference as ref
from reference import gram, isnkpvn, nkp, normalized_perceptron, nvn, perceptron, perceptrons, snkp, snkpvn
from reference.exact import verify_exact
from tests.support.instances import (
    CID,
    G3,
    G_OPPOSITE,
    PAIR,
    TRI,
    XOR_LIN_G,
    XOR_X,
    XOR_Y,
    X_OK,
    X_OK2,
    Y_OK,
    Y_OK2,
    _,
    _SEP_X,
    _SEP_Y,
    _perceptron_case,
    f64,
    in_simplex,
    planted,
    seeds,
)
from tests.support.margin import _X, _Y
from tests.support.numba import needs_numba
from theorems.instances.instance import Instance
from theorems.validate.checks import run_case
from theorems.validate.report import CheckResult, FAIL, PASS


E = 1000  # the data are the working rows times 2^E (largest |entry| 0.75 2^E: rescale_pow2's e = E)


def _underflowing_instance():
    """65 points in R^64 whose working copy Z = Z_data 2^-1000 loses bits of the last point.

    Rows 0..63: z_i = 0.75 s_i h_i, h_i the rows of the Sylvester-Hadamard matrix H (64 x 64,
    h_i . h_j = 0 for i != j), s_i = (-1)^f(i) with f the bent function x1 x2 + x3 x4 + x5 x6 of
    the bits of i, so every entry of H^T s is +-8.  Each z_i is orthogonal to the sum of the
    earlier ones (margin exactly 0: a mistake), so the cyclic rule updates on rows 0..63 in turn:
    w_64 = 0.75 H^T s, every entry +-6, ||w_64||_1 = 384.
    Row 64, in units of UNDERFLOW = 2^-1074 on the working scale: (p_c - 0.49 sign(w_c)), p_c =
    sign(w_c) for c < 24, else 0.  Z rounds it to p (0.51 -> 1, 0.49 -> 0): margin 24 * 6 = 144 >
    the allowance (2 dim + 4) = 132 (the relative part is below 1), no mistake; on the data the
    margin is 144 - 0.49 * 384 = -44.16 < 0: the claim at k = 64 is refused, with no mistake on Z.
    """
    H = np.array([[1.0]])
    for _ in range(6):
        H = np.block([[H, H], [H, -H]])
    bits = (np.arange(64)[:, None] >> np.arange(6)) & 1
    s = np.where((bits[:, 0] & bits[:, 1]) ^ (bits[:, 2] & bits[:, 3]) ^ (bits[:, 4] & bits[:, 5]), -1.0, 1.0)
    w = 0.75 * (H.T @ s)
    assert np.all(np.abs(w) == 6.0)  # the bent function: |H^T s| = 8 everywhere
    p = np.where(np.arange(64) < 24, np.sign(w), 0.0)
    last = (p - 0.49 * np.sign(w)) * 2.0 ** (E - 1074)  # times 2^-E: (p_c - 0.49 sign w_c) UNDERFLOW
    X = np.vstack([np.ldexp(0.75 * s[:, None] * H, E), last])
    return X, np.ones(65, dtype=int), w


def _refusing_first(verify, count):
    def refusing(*args, **kw):
        count[0] += 1
        return "refused by the test" if count[0] == 1 else verify(*args, **kw)

    return refusing


# z0 = (1,0), z1 = (-1,1), z2 = (2,-1), all labels +1: separable (w = (1, 1.5)).
SEP3 = np.array([[1.0, 0.0], [-1.0, 1.0], [2.0, -1.0]])


# z0 = (3,0), z1 = (-1,1), z2 = (-1,2): separable (w = (1, 2)); cyclic and most-violated differ.
SEP3B = np.array([[3.0, 0.0], [-1.0, 1.0], [-1.0, 2.0]])


ONES3 = np.ones(3)


_SEP_G = gram(_SEP_X, _SEP_Y)


_GAUSS_X = np.random.RandomState(3).normal(size=(6, 2))


_GAUSS_Y = np.array([1, -1, 1, -1, 1, -1])


_GAUSS_G = gram(_GAUSS_X, _GAUSS_Y, "gaussian", sigma=0.7)


MP_CASES = [
    ("perceptron", lambda **kw: perceptron(_SEP_X, _SEP_Y, **kw)),
    ("perceptron_mv", lambda **kw: perceptron(_SEP_X, _SEP_Y, rule="most_violated", **kw)),
    ("normalized_perceptron", lambda **kw: normalized_perceptron(_SEP_X, _SEP_Y, **kw)),
    ("nkp", lambda **kw: nkp(_SEP_G, **kw)),
    ("nkp_gauss", lambda **kw: nkp(_GAUSS_G, **kw)),
    ("snkp", lambda **kw: snkp(_SEP_G, **kw)),
    ("nvn_sep", lambda **kw: nvn(_SEP_G, 1e-3, **kw)),
    ("nvn_inf", lambda **kw: nvn(G3, 0.05, **kw)),
    ("snkpvn_inf", lambda **kw: snkpvn(G3, [0.7, 0.1, 0.2], 0.01, **kw)),
    ("snkpvn_gauss", lambda **kw: snkpvn(_GAUSS_G, np.full(6, 1 / 6), 1e-3, **kw)),
    ("isnkpvn_inf", lambda **kw: isnkpvn(G3, 2.0, 0.01, **kw)),
    ("isnkpvn_sep", lambda **kw: isnkpvn(_SEP_G, 2.0, 1e-3, **kw)),
]


X_OK = np.array([[1.0, 0.0], [0.0, 1.0]])


Y_OK = np.array([1, 1])


PRIMAL = [perceptron, normalized_perceptron]


GRAM = [
    ("nkp", lambda G, **kw: nkp(G, **kw)),
    ("snkp", lambda G, **kw: snkp(G, **kw)),
    ("nvn", lambda G, **kw: nvn(G, 0.1, **kw)),
    ("snkpvn", lambda G, **kw: snkpvn(G, np.full(G.shape[0], 1 / G.shape[0]) if G.ndim == 2 else [1.0], 0.1, **kw)),
    ("isnkpvn", lambda G, **kw: isnkpvn(G, **kw)),
]


GRAM_IDS = [g[0] for g in GRAM]


@pytest.mark.parametrize(
    "fn,budget",
    [(perceptron, 100_000), (normalized_perceptron, 100_000), (nkp, 100_000), (nvn, 100_000),
     (snkp, 10_000), (snkpvn, 10_000), (isnkpvn, 100_000)],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_documented_default_budgets_and_trace_off(fn, budget):
    """The public functions' max_iter defaults to None (sized: reference.budgets), falling back to
    these budgets where no finite bound is known; trace is off by default."""
    params = inspect.signature(fn).parameters
    assert params["max_iter"].default is None and reference.budgets.FALLBACK[fn.__name__] == budget
    assert params["trace"].default is False
    # and a default call records no trace
    if fn in (perceptron, normalized_perceptron):
        r = fn(X_OK, Y_OK)
    elif fn is snkpvn:
        r = fn(np.eye(2), [0.5, 0.5], 0.1)
    else:
        r = fn(np.eye(2))
    assert r.trace is None and r.status == "separator"


def test_a_claim_refused_on_the_data_with_no_mistake_on_the_working_copy_ends_the_run():
    X, y, w64 = _underflowing_instance()
    slow, fast = reference.perceptron(X, y, max_iter=1000), reference.perceptron(X, y, max_iter=1000, engine="fast")
    for r in (slow, fast):
        assert (r.status, r.iterations) == (reference.MAX_ITER, 64), r.message
        assert "the last claim (separator, iteration 64) was not verified: y_64 <w, x_64>" in r.message
        np.testing.assert_array_equal(r.w, w64)
        assert r.info["scale"] == "2^-1000"
    assert fast.message == slow.message


def test_the_working_copy_alone_would_accept_the_claim():
    """The same instance with the last point as Z holds it (p UNDERFLOW, no bits lost): the claim
    at k = 64 is verified, so the refusal above comes from the lost bits alone."""
    X, y, w64 = _underflowing_instance()
    X[-1] = np.ldexp(np.ldexp(X[-1], -E), E)  # exactly p 2^(E - 1074)
    for engine in ("textbook", "fast"):
        r = reference.perceptron(X, y, max_iter=1000, engine=engine)
        assert (r.status, r.iterations) == (reference.SEPARATOR, 64), r.message
        np.testing.assert_array_equal(r.w, w64)


def test_a_faked_refusal_ends_both_engines_alike(monkeypatch):
    """X = (e1, e2), y = 1: w_1 = e1, w_2 = e1 + e2, every margin 1 (no mistake): the claim at
    k = 2, refused by the faked verifiers, leaves the cyclic rule nothing to update on."""
    from reference.fast import engine

    X, y = np.eye(2), np.ones(2, dtype=int)
    slow_count, fast_count = [0], [0]
    algo = perceptrons.PERCEPTRON
    monkeypatch.setattr(perceptrons, "PERCEPTRON", dataclasses.replace(algo, verify=_refusing_first(algo.verify, slow_count)))
    monkeypatch.setattr(engine, "verify_separator_primal", _refusing_first(engine.verify_separator_primal, fast_count))
    slow, fast = reference.perceptron(X, y, trace=True), reference.perceptron(X, y, trace=True, engine="fast")
    assert slow_count[0] == fast_count[0] == 1
    for r in (slow, fast):
        assert (r.status, r.iterations, len(r.trace)) == (reference.MAX_ITER, 2, 3)
        assert r.message == "budget exhausted after 2 iterations; the last claim (separator, iteration 2) was not verified: refused by the test"
        np.testing.assert_array_equal(r.w, [1.0, 1.0])


def test_fast_perceptron_records_the_trace():
    pytest.importorskip("numba")
    res = ref.perceptron(_X, _Y, engine="fast", trace=True)
    assert res.engine == "fast" and res.trace is not None and len(res.trace) == res.iterations + 1


@pytest.mark.parametrize(
    "call",
    [
        # points x, -x: no w has both margins positive; the Perceptron updates forever
        lambda: perceptron([[1.0], [1.0]], [1, -1], engine="fast"),
        lambda: normalized_perceptron([[1.0], [1.0]], [1, -1], engine="fast"),
        # G of the points a, -a: G alpha = (a0 - a1, a1 - a0) is never > 0
        lambda: nkp(np.array([[1.0, -1.0], [-1.0, 1.0]]), engine="fast"),
        # a_1 = e_1, a_2 = -e_1, a_3 = e_2: 0 lies on the hull's boundary, NVN's ||w_k|| decays only
        # sublinearly (about 1/(2 sqrt(k))), far above 1e-6 within 10^5 steps (the sized budget of
        # nvn is 2/eps^2 + 2 = 2,000,002 here, so it is given); G p_k > 0 never holds
        lambda: nvn(np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), 1e-6, engine="fast", max_iter=100_000),
    ],
    ids=["perceptron", "normalized_perceptron", "nkp", "nvn"],
)
def test_default_budget_of_the_rp14_algorithms_is_100_000(call):
    """On data certified not separable there is no finite bound: the default (max_iter=None) is the
    fallback 100_000, passed on to the compiled engine; the run stops exactly there (a default of
    100001 is caught)."""
    pytest.importorskip("numba")
    r = call()
    assert (r.status, r.iterations) == ("max_iter", 100_000)


@pytest.mark.parametrize("fn", [perceptron, normalized_perceptron], ids=lambda f: f.__name__)
@pytest.mark.parametrize("rho", [-1.0, 0.0, -1e-300])
def test_perceptron_rho_message_names_the_fix(fn, rho):
    """A bad rho is refused naming both fixes, the value to pass and rho=None (kills
    the `rho=none` mutant of prepare.check_primal_data)."""
    with pytest.raises(ValueError, match=r"^rho must lie in \(0, inf\), got .*; the augmentation \(bias\) coordinate, "
                                         r"e\.g\. rho=1\.0; or rho=None$"):
        fn(X_OK2, Y_OK2, rho=rho)


def test_normalized_perceptron_verifies_on_the_given_data_when_scaling_is_inexact():
    """Rows x_1 = (2^100, 0), x_2 = (0, 2^-1000): normalized they are e_1, e_2, and Alg. 2 gives
    w_1 = e_1, w_2 = (e_1 + e_2)/2, which separates X (margins 2^99, 2^-1001).  Scaling X as a whole
    by 2^-101 would flush x_2 to zero, so the separator must be verified on X itself (kills
    prepare._exact_or's `... or True` mutant: it verifies on the flushed copy, where x_2's margin is 0, and
    the run never ends).  normalize=True runs on X_2, no power-of-two scaling: no info["scale"]
    (not e = 1 there)."""
    X = np.array([[2.0**100, 0.0], [0.0, 2.0**-1000]])
    r = normalized_perceptron(X, [1, 1], max_iter=10)
    assert (r.status, r.iterations) == ("separator", 2)
    np.testing.assert_array_equal(r.w, [0.5, 0.5])
    assert "scale" not in r.info
    assert "scale" not in normalized_perceptron(X_OK2, Y_OK2).info
    # normalize=False on the same data does run scaled, and says so
    assert normalized_perceptron(X, [1, 1], normalize=False, max_iter=3).info["scale"] == "2^-101"


def test_normalized_perceptron_normalizes_in_mpmath_at_full_precision():
    """In mpmath the rows x_i / ||x_i|| of X_2 have unit norm to the working precision: w_1 is the
    first normalized point, ||w_1||^2 = 1 to 30 digits, not only to float64's 16 (kills
    perceptrons.normalized_perceptron_65: scale_rows_pow2 reads the mpf rows as float64, and the
    squared norm 1 + 0.1^2 is then rounded to 53 bits)."""
    r = normalized_perceptron([[1.0, 0.1]], [1], precision=30, trace=True)
    assert r.status == "separator" and r.iterations == 1
    w1 = r.trace[1].w
    with mpmath.workdps(60):
        assert abs(sum(mpmath.mpf(v) ** 2 for v in w1) - 1) < mpmath.mpf(10) ** -28


@needs_numba
@pytest.mark.parametrize("max_iter", [0, 1, 5])
def test_nkp_without_a_separator_exhausts_its_budget(max_iter):
    """G_OPPOSITE has no separator (alpha^T G alpha = (a_1 - a_2)^2 while G alpha = (a_1 - a_2) (1, -1)
    is never > 0): NKP stops at its budget and claims nothing."""
    r = reference.nkp(G_OPPOSITE, engine="fast", max_iter=max_iter)
    assert (r.status, r.iterations, r.message) == (reference.MAX_ITER, max_iter, f"budget exhausted after {max_iter} iterations")


def test_strict_rejects_a_perceptron_that_ignores_its_most_violated_rule():
    """End to end: an implementation that accepts ``rule`` but always scans cyclically.
    x_1 = e1, x_2 = (-1/2, 1), x_3 = (-2, 1), all labelled +1.  w_0 = 0: all three are mistakes,
    both rules take x_1: w_1 = e1.  Scores at w_1: 1, -1/2, -2 (no tie): cyclic takes x_2,
    w_2 = (1/2, 1); most violated takes x_3, w_2 = (-1, 1)."""
    inst = Instance("three", np.array([[1.0, 0.0], [-0.5, 1.0], [-2.0, 1.0]]), np.array([1, 1, 1]))
    case = _perceptron_case(inst, "most_violated")

    def cyclic_only(X, y, *, rule="cyclic", max_iter=1000, trace=False):
        return reference.perceptron(X, y, rule="cyclic", max_iter=max_iter, trace=trace)

    ans, results = run_case(cyclic_only, case, strict=True)
    assert ans["rule_passed"] == "most_violated"
    assert [r for r in results if r.id == CID] == [
        CheckResult(CID, FAIL, "iterate 2: w = [0.5, 1] differs from the reference's [-1, 1]", at=2)]
    _, results = run_case(reference.perceptron, case, strict=True)
    assert [r for r in results if r.id == CID] == [CheckResult(CID, PASS)]


def test_perceptron_near_the_overflow_threshold():
    X, y = np.array([[1e308, 1e308], [-1e308, 1e308]]), np.array([1, -1])
    res = ref.perceptron(X, y)
    assert res.status == ref.SEPARATOR and verify_exact(res, X, y) == ""
    assert res.info["scale"] == "2^-1024"


def test_unverified_claim_does_not_end_the_run():
    """w_1 = z_1/||z_1|| has y_2 <w_1, x_2> = 0 exactly, but > 0 in the normalized float
    coordinates: the run must go on (w_2 separates), not stop as max_iter after 1 of 100,000."""
    res = ref.normalized_perceptron([[1, 2], [-1, 0.5]], [1, -1])
    assert res.status == ref.SEPARATOR and res.iterations > 1
    assert verify_exact(res, np.array([[1, 2], [-1, 0.5]]), np.array([1, -1])) == ""


def test_cyclic_perceptron_treats_a_margin_within_roundoff_as_a_mistake():
    Z = np.array([[1.0, -(1.0 - 35 * 2.0**-52)]])  # y <w, x> = 35 eps > 0 for w = (1, 1): within round-off
    res = ref.perceptron(Z, np.array([1]), max_iter=10)
    assert res.status == ref.SEPARATOR and verify_exact(res, Z, np.array([1])) == ""


@pytest.mark.parametrize(
    "X, y, match",
    [
        ([[1 + 1j, 2.0]], [1], "X must be a numeric array of real numbers, got complex"),
        ([[1.0, 2.0]], [True], "y must be a numeric array of real numbers, got booleans"),
        ([[1.0, 2.0]], ["1"], "y must be a numeric array of real numbers, got strings"),
    ],
)
def test_values_that_are_not_real_numbers_are_refused(X, y, match):
    with pytest.raises(ValueError, match=match):
        ref.perceptron(X, y)
    with pytest.raises(ValueError, match=match):
        ref.gram(X, y)


def test_complex_gram_and_truthy_flags_are_refused():
    with pytest.raises(ValueError, match="G must be a numeric array of real numbers, got complex"):
        ref.nkp(np.eye(2) + 0j)
    with pytest.raises(ValueError, match="trace must be True or False, got 'yes'"):
        ref.nkp(np.eye(2), trace="yes")
    with pytest.raises(ValueError, match="normalize must be True or False"):
        ref.normalized_perceptron([[1.0]], [1], normalize=1)


def test_csr_duplicates_whose_sum_float64_cannot_hold_are_refused():
    import scipy.sparse as sp

    X = sp.csr_matrix((np.array([1.0, 2.0**-60]), np.array([0, 0]), np.array([0, 2])), shape=(1, 2))
    with pytest.raises(ValueError, match="duplicate entries at \\(row 0, column 0\\)"):
        ref.perceptron(X, [1])
    X = sp.csr_matrix((np.array([1e308, 1e308]), np.array([1, 1]), np.array([0, 2])), shape=(1, 2))
    with pytest.raises(ValueError, match="duplicates overflowed"):
        ref.perceptron(X, [1])
    # duplicates whose sum is exact, unsorted indices and explicit zeros are the matrix scipy means
    X = sp.csr_matrix((np.array([0.0, 0.5, 0.25, 0.25]), np.array([1, 0, 1, 1]), np.array([0, 4])), shape=(1, 2))
    from reference.data import check_csr

    C = check_csr(X)
    assert C.toarray().tolist() == [[0.5, 0.5]] and C.nnz == 2


def test_boolean_data_are_refused_dense_and_sparse_alike():
    import scipy.sparse as sp

    Xb = np.array([[True, False], [False, True]])
    for X in (Xb, sp.csr_matrix(Xb)):
        with pytest.raises(ValueError, match="booleans"):
            ref.perceptron(X, [1, 1])


def test_integers_float64_cannot_hold_are_refused():
    """An int64 entry 2^53 + 1 would be rounded to 2^53: the claim would be about other data.
    (Python ints in an object array are kept exactly by the mpmath engine, as before.)"""
    import scipy.sparse as sp

    X = np.array([[2**53 + 1, 1]])
    for data in (X, sp.csr_matrix(X)):
        with pytest.raises(ValueError, match="cannot represent exactly"):
            ref.perceptron(data, [1])
    assert ref.perceptron(np.array([[2**60, 1]]), [1]).status == "separator"  # 2^60 is a float


def test_coo_duplicates_are_summed_exactly_not_by_scipy():
    """scipy's COO -> CSR conversion sums duplicates in the input's dtype: int64 wraps around
    (2^62 + 2^62 -> -2^63) and float64 rounds (1 + 2^-60 - 1 -> 0).  The matrix meant is the
    exact sum: [[2^63]], or refused when float64 cannot hold it."""
    import scipy.sparse as sp

    from reference.data import check_csr

    X = sp.coo_matrix((np.array([2**62, 2**62], dtype=np.int64), ([0, 0], [0, 0])), shape=(1, 1))
    assert check_csr(X).toarray().tolist() == [[2.0**63]]
    r = ref.perceptron(X, [1], max_iter=10)
    assert r.status == "separator" and r.w[0] > 0 and verify_exact(r, X, [1]) == ""
    F = sp.coo_matrix((np.array([1.0, -1.0, 1.0, 2.0**-60, -1.0]), ([0, 1, 1, 1, 1], [0, 0, 1, 1, 1])), shape=(2, 2))
    # the same matrix as CSC with its duplicates stored (column 1 holds 1, 2^-60, -1 of row 1)
    C = sp.csc_matrix((np.array([1.0, -1.0, 1.0, 2.0**-60, -1.0]), np.array([0, 1, 1, 1, 1]), np.array([0, 2, 5])), shape=(2, 2))
    for M in (F, C):
        assert check_csr(M).toarray().tolist() == [[1.0, 0.0], [-1.0, 2.0**-60]], M.format
    with pytest.raises(ValueError, match="duplicate entries"):
        check_csr(sp.coo_matrix((np.array([1.0, 2.0**-60]), ([0, 0], [0, 0])), shape=(1, 1)))


def test_python_lists_of_integers_float64_cannot_hold_are_refused():
    with pytest.raises(ValueError, match="cannot represent exactly"):
        ref.perceptron([[2**53 + 1, 1]], [1])


def test_perceptron_cyclic_hand_run():
    # w0=0: all margins 0 -> j=0; w1=(1,0): margins (1,-1,2), scan from 1 -> j=1; w2=(0,1):
    # (0,1,-1), scan from 2 -> j=2 (a scan from 0 would take z0, margin 0); w3=(2,0) -> j=1;
    # w4=(1,1): (1,0,1) -> j=1; w5=(0,2) -> j=2; w6=(2,1) -> j=1; w7=(1,2): (1,1,0) -> j=2;
    # w8=(3,1) -> j=1; w9=(2,2): (2,0,2) -> j=1; w10=(1,3) -> j=2; w11=(3,2) -> j=1; w12=(2,3).
    r = perceptron(SEP3, ONES3, trace=True)
    assert r.status == "separator" and r.iterations == 12
    assert f64(r.w).tolist() == [2.0, 3.0]
    assert [s.j for s in r.trace[1:]] == [0, 1, 2, 1, 1, 2, 1, 2, 1, 1, 2, 1]
    assert [s.start for s in r.trace] == [0, 1, 2, 0, 2, 2, 0, 2, 0, 2, 2, 0, 2]
    assert f64(r.trace[2].w).tolist() == [0.0, 1.0]
    assert [s.k for s in r.trace] == list(range(13))
    assert r.alpha is None and r.p is None


def test_perceptron_cyclic_vs_most_violated():
    # cyclic: w1=(3,0): margins (9,-3,-3) -> j=1; w2=(2,1): (6,-1,0), scan from 2 -> j=2;
    # w3=(1,3): (3,2,5) separates.  (Restarting the scan at the last updated point would
    # take z1 again, whose margin is still -1.)
    r = perceptron(SEP3B, ONES3, trace=True)
    assert (r.status, r.iterations, f64(r.w).tolist()) == ("separator", 3, [1.0, 3.0])
    assert [s.j for s in r.trace[1:]] == [0, 1, 2]
    # most violated: w1=(3,0): tie -3,-3 -> smallest index 1; w2=(2,1): (6,-1,0) -> j=1;
    # w3=(1,2): (3,1,3).
    r = perceptron(SEP3B, ONES3, rule="most_violated", trace=True)
    assert (r.status, r.iterations, f64(r.w).tolist()) == ("separator", 3, [1.0, 2.0])
    assert [s.j for s in r.trace[1:]] == [0, 1, 1]


def test_perceptron_cyclic_scans_forward_with_wraparound():
    # z0 = (1,0), z1 = (1,1), z2 = (-1,2), z3 = (-1,3).  w1 = (1,0), start 1: margins
    # (1,1,-1,-1): the forward scan 1,2,3,0 takes j=2 (a backward scan 1,0,3,2 would take 3);
    # w2 = (0,2), start 3: margins (0,2,4,6): the scan 3,0 wraps to z0 (margin 0) -> j=0;
    # w3 = (1,2): margins (1,3,3,5).
    X = np.array([[1.0, 0.0], [1.0, 1.0], [-1.0, 2.0], [-1.0, 3.0]])
    r = perceptron(X, np.ones(4), trace=True)
    assert (r.status, r.iterations, f64(r.w).tolist()) == ("separator", 3, [1.0, 2.0])
    assert [s.j for s in r.trace] == [None, 0, 2, 0]
    assert [s.start for s in r.trace] == [0, 1, 3, 1]


def test_perceptron_zero_margin_is_a_mistake_and_labels_reflect():
    # z0 = (1,0), z1 = (0,1) after reflection.  w1 = (1,0) gives z1 margin exactly 0: a mistake.
    X = np.array([[-1.0, 0.0], [0.0, 1.0]])
    y = np.array([-1, 1])
    for rule in ("cyclic", "most_violated"):
        r = perceptron(X, y, rule=rule, trace=True)
        assert (r.status, r.iterations) == ("separator", 2)
        assert f64(r.trace[1].w).tolist() == [1.0, 0.0]
        assert f64(r.w).tolist() == [1.0, 1.0]
        assert np.all(y * (X @ f64(r.w)) > 0)


def test_perceptron_infeasible_runs_out_of_budget():
    # z0 = (1,0), z1 = (-1,0): w alternates (1,0), 0, (1,0), ...
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    r = perceptron(X, [1, 1], max_iter=7)
    assert (r.status, r.iterations) == ("max_iter", 7)
    assert f64(r.w).tolist() == [1.0, 0.0]
    r = perceptron(X, [1, 1], max_iter=0)
    assert (r.status, r.iterations) == ("max_iter", 0) and f64(r.w).tolist() == [0.0, 0.0]


def test_perceptron_already_separated_at_max_iter_zero():
    r = perceptron(np.array([[1.0, 0.0]]), [1], max_iter=0)
    assert (r.status, r.iterations) == ("max_iter", 0)  # w_0 = 0 never separates
    r = perceptron(np.array([[1.0, 0.0]]), [1], max_iter=1)
    assert (r.status, r.iterations, f64(r.w).tolist()) == ("separator", 1, [1.0, 0.0])


@given(seeds, st.integers(2, 25), st.sampled_from(["cyclic", "most_violated"]))
def test_perceptron_novikoff_and_verified(seed, n, rule):
    X, y, u, gamma = planted(seed, n)
    r = perceptron(X, y, rule=rule, trace=True)
    assert r.status == "separator"
    assert np.all(y * (X @ f64(r.w)) > 0)
    R2 = float(np.max(np.sum(X * X, axis=1)))
    assert r.iterations <= R2 / gamma**2  # Block-Novikoff, rho >= gamma_u
    # every update is on a mistake, and w_k is the sum of the chosen reflected points
    Z = X * y[:, None]
    for a, b in zip(r.trace, r.trace[1:]):
        assert Z[b.j] @ f64(a.w) <= 0
        if rule == "most_violated":
            assert b.j == int(np.argmin(Z @ f64(a.w)))
        np.testing.assert_array_equal(f64(b.w), f64(a.w) + Z[b.j])


def test_normalized_perceptron_hand_run():
    X = np.array([[2.0, 0.0], [0.0, 3.0]])
    # X_2 = I: w0 = 0, tie -> j=0, theta_0 = 1, w1 = (1,0); margins (1,0): 0 is not > 0;
    # j=1, theta_1 = 1/2, w2 = (1/2,1/2).
    r = normalized_perceptron(X, [1, 1], trace=True)
    assert (r.status, r.iterations) == ("separator", 2)
    assert [s.j for s in r.trace[1:]] == [0, 1]
    assert f64(r.trace[1].w).tolist() == [1.0, 0.0]
    assert f64(r.w).tolist() == [0.5, 0.5]
    # unnormalized: w1 = (2,0), margins (4,0) -> j=1, w2 = (1, 1.5).
    r = normalized_perceptron(X, [1, 1], normalize=False)
    assert (r.status, r.iterations, f64(r.w).tolist()) == ("separator", 2, [1.0, 1.5])


def test_normalized_perceptron_infeasible_iterates():
    # z0 = (1,0), z1 = (-1,0): w1 = z0, w2 = 0, w3 = z0/3, w4 = 0 (w_k = average of choices).
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    r = normalized_perceptron(X, [1, 1], max_iter=4, trace=True)
    assert (r.status, r.iterations) == ("max_iter", 4)
    assert [s.j for s in r.trace[1:]] == [0, 1, 0, 1]
    np.testing.assert_allclose([f64(s.w)[0] for s in r.trace], [0, 1, 0, 1 / 3, 0], atol=1e-15)


@given(seeds, st.integers(2, 25))
def test_normalized_perceptron_bound_and_average(seed, n):
    X, y, u, _ = planted(seed, n)
    X = X * np.random.RandomState(seed).uniform(0.2, 5.0, size=(n, 1))  # unequal norms
    rho2_lower = float(np.min(y * (X @ u) / np.linalg.norm(X, axis=1)))
    r = normalized_perceptron(X, y, trace=True)
    assert r.status == "separator" and np.all(y * (X @ f64(r.w)) > 0)
    assert r.iterations <= 1 / rho2_lower**2  # 1/rho_2^2 guarantee on X_2
    Z2 = X * y[:, None] / np.linalg.norm(X, axis=1)[:, None]
    chosen = []
    for a, b in zip(r.trace, r.trace[1:]):
        assert b.j == int(np.argmin(Z2 @ f64(a.w)))
        chosen.append(b.j)
        np.testing.assert_allclose(f64(b.w), Z2[chosen].mean(axis=0), atol=1e-12)


@pytest.mark.parametrize("kernel,params", [("polynomial", {"degree": 2, "c": 1.0}), ("gaussian", {"sigma": 1.0})])
def test_nkp_kernel_xor_hand_run(kernel, params):
    # Polynomial: G = (1/9)[[9,1,-1,-1],[1,9,-1,-1],[-1,-1,9,1],[-1,-1,1,9]]; Gaussian: the same
    # sign pattern with 1/9 -> e^-4 (same class) and e^-2 (other class).
    # alpha1 = e0: G alpha1 = row 0 -> min at 2; alpha2 = (1/2,0,1/2,0): G alpha2 has exact zeros
    # at 1 and 3 (polynomial) / equal negatives (Gaussian) -> j=1; alpha3 = (1/3,1/3,1/3,0) ->
    # row 3 is the only negative one -> j=3; alpha4 = 1_4/4 separates.
    G = gram(XOR_X, XOR_Y, kernel, **params)
    r = nkp(G, trace=True)
    assert (r.status, r.iterations) == ("separator", 4)
    assert [s.j for s in r.trace[1:]] == [0, 2, 1, 3]
    expected = [[0, 0, 0, 0], [1, 0, 0, 0], [0.5, 0, 0.5, 0], [1 / 3, 1 / 3, 1 / 3, 0], [0.25] * 4]
    for s, e in zip(r.trace, expected):
        np.testing.assert_allclose(f64(s.alpha), e, atol=1e-15)
    assert np.all(np.asarray(G, dtype=float) @ f64(r.alpha) > 0)
    # and the linear kernel cannot separate XOR (z0 + z1 = 0)
    assert nkp(XOR_LIN_G, max_iter=50).status == "max_iter"


@pytest.mark.parametrize("c,k", [(0.5, 1), (0.0, 2), (-0.5, 2)])
def test_nkp_two_points(c, k):
    # alpha1 = e0, G alpha1 = (1, c): separated iff c > 0 (c = 0 is not > 0); else alpha2 = 1/2.
    r = nkp(np.array([[1.0, c], [c, 1.0]]))
    assert (r.status, r.iterations) == ("separator", k)
    np.testing.assert_array_equal(f64(r.alpha), [1.0, 0.0] if k == 1 else [0.5, 0.5])


def test_nkp_infeasible_pair():
    # alpha1 = e0, alpha2 = (1/2,1/2) with G alpha2 = 0 exactly -> tie -> e0: alpha3 = (2/3,1/3);
    # G alpha3 = (1/3,-1/3) -> e1: alpha4 = (1/2,1/2).
    r = nkp(PAIR, max_iter=4, trace=True)
    assert (r.status, r.iterations) == ("max_iter", 4)
    assert [s.j for s in r.trace[1:]] == [0, 1, 0, 1]
    np.testing.assert_allclose(f64(r.trace[3].alpha), [2 / 3, 1 / 3], atol=1e-15)
    np.testing.assert_allclose(f64(r.alpha), [0.5, 0.5], atol=1e-15)
    assert nkp(TRI, max_iter=30).status == "max_iter"


@given(seeds, st.integers(2, 20))
def test_nkp_bound_and_simplex(seed, n):
    X, y, u, _ = planted(seed, n, d=3)
    rhoK_lower = float(np.min(y * (X @ u) / np.linalg.norm(X, axis=1)))  # rho_K = rho_2 (linear)
    G = gram(X, y)
    r = nkp(G, trace=True)
    assert r.status == "separator" and np.all(G @ f64(r.alpha) > 0)
    assert r.iterations <= 1 / rhoK_lower**2
    for a, b in zip(r.trace, r.trace[1:]):
        assert in_simplex(b.alpha)
        assert b.j == int(np.argmin(G @ f64(a.alpha)))


def test_states_are_frozen_and_start_empty():
    import dataclasses

    runs = [
        perceptron(SEP3, ONES3, trace=True),
        normalized_perceptron(SEP3, ONES3, trace=True),
        nkp(PAIR, max_iter=2, trace=True),
        snkp(TRI, max_iter=2, trace=True),
        nvn(G3, 0.1, max_iter=2, trace=True),
        snkpvn(G3, [0.7, 0.1, 0.2], 1e-3, max_iter=2, trace=True),
    ]
    for r in runs:
        s0 = r.trace[0]
        assert s0.k == 0
        for name in ("j", "theta"):
            if hasattr(s0, name):
                assert getattr(s0, name) is None  # nothing chosen before the first step
        with pytest.raises(dataclasses.FrozenInstanceError):
            s0.k = 5
    rec = isnkpvn(G3, 2.0, 0.1, trace=True).trace[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.t = 5
    from reference.smoothed import OuterState

    with pytest.raises(dataclasses.FrozenInstanceError):
        OuterState(t=0, q=np.ones(1), iterations=0).t = 1


@pytest.mark.parametrize("name,run", MP_CASES, ids=[c[0] for c in MP_CASES])
def test_float64_agrees_with_mpmath(name, run):
    a = run()
    b = run(precision=50)
    assert b.precision == "mpmath, 50 decimal digits" and a.precision == "float64"
    assert (a.status, a.iterations) == (b.status, b.iterations)
    assert a.status != "max_iter"
    for field in ("w", "alpha", "p"):
        va, vb = getattr(a, field), getattr(b, field)
        assert (va is None) == (vb is None)
        if va is not None:
            assert all(isinstance(x, mpmath.mpf) for x in vb)
            np.testing.assert_allclose(f64(va), f64(vb), rtol=0, atol=1e-10)


@pytest.mark.parametrize(
    "X,y,match",
    [
        (np.array([[np.nan, 0.0], [0.0, 1.0]]), Y_OK, "NaN"),
        (np.zeros((0, 2)), np.zeros(0), "empty"),
        (X_OK, np.array([1, 1, 1]), "labels"),
        (X_OK, np.array([1, 0]), r"\+1 and -1"),
        (np.array([[0.0, 0.0], [0.0, 1.0]]), Y_OK, "zero rows"),
    ],
    ids=["nan", "empty", "lengths", "labels", "zero-row"],
)
@pytest.mark.parametrize("algo", PRIMAL, ids=["perceptron", "normalized_perceptron"])
def test_primal_data_errors(algo, X, y, match):
    with pytest.raises(ValueError, match=match):
        algo(X, y)


def test_perceptron_bad_rule():
    with pytest.raises(ValueError, match="rule"):
        perceptron(X_OK, Y_OK, rule="random")


@pytest.mark.parametrize(
    "G,match",
    [
        (np.ones((2, 3)), "square"),
        (np.array([[1.0, 0.5], [0.2, 1.0]]), "symmetric"),
        (np.array([[2.0, 0.0], [0.0, 1.0]]), "unit diagonal"),
        (np.array([[1.0, 2.0], [2.0, 1.0]]), "positive semidefinite"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), "NaN"),
    ],
    ids=["not-square", "not-symmetric", "diagonal", "not-psd", "nan"],
)
@pytest.mark.parametrize("name,algo", GRAM, ids=GRAM_IDS)
def test_gram_errors(name, algo, G, match):
    with pytest.raises(ValueError, match=match):
        algo(G)


@pytest.mark.parametrize("precision", [0, -3, 2.5, True, "50"])
def test_precision_errors(precision):
    for run in (lambda: perceptron(X_OK, Y_OK, precision=precision),
                lambda: normalized_perceptron(X_OK, Y_OK, precision=precision)):
        with pytest.raises(ValueError, match="precision"):
            run()
    for _, algo in GRAM:
        with pytest.raises(ValueError, match="precision"):
            algo(np.eye(2), precision=precision)


@pytest.mark.parametrize("max_iter", [-1, 2.0, True])
def test_max_iter_errors(max_iter):
    with pytest.raises(ValueError, match="max_iter"):
        perceptron(X_OK, Y_OK, max_iter=max_iter)
    with pytest.raises(ValueError, match="max_iter"):
        normalized_perceptron(X_OK, Y_OK, max_iter=max_iter)
    for _, algo in GRAM:
        with pytest.raises(ValueError, match="max_iter"):
            algo(np.eye(2), max_iter=max_iter)
