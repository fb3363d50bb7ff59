"""Tests written against surviving mutmut mutants of the algorithm modules (issue 13 item 8):
reference.dynamic_margin, reference.perceptrons, reference.smoothed, reference.von_neumann and
reference.result.

Every expected value is worked by hand in the comments on small integer / dyadic instances
(exact in float64), or is a property of the paper checked independently (the separator
separates in exact rational arithmetic, the certificate certifies, counts within a theorem's
bound) -- never read off the library's output.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

import reference as ref
from reference import result as rs
from reference.exact import verify_exact

# =============================================================================================
# PT11: a full pass without an update whose separator does not verify (issue 11)
# =============================================================================================

# y_1 = l_1 [x_1, rho] = (1, 0, 1); y_2 = (-(1 - 2^-52), 5, 1).  eps = 1 (theta_t = 0, the
# classical test p <= 0): t = 0 updates with y_1 (p = 0 <= 0), a = (1, 0, 1); then
# a.y_2 = -(1 - 2^-52) + 1 = 2^-52 > 0, a.y_1 = 2 > 0: the next full pass makes no update.  But
# 2^-52 is far inside the verifier's allowance (K + 16) u |y_2|.|a| = 19 * 2 * u (u = 2^-52 in
# float64, 10^-16 at 16 digits), so the claim does not verify and y_2, the first (only)
# unverified pattern, counts as a mistake: a = (2^-52, 5, 2), whose margins 2 + 2^-52 and
# 27 - 2^-52 + 2^-104 verify.  So t = 2, the second update with pattern index 1.
_TINY_X = np.array([[1.0, 0.0], [-(1.0 - 2.0**-52), 5.0]])
_TINY_Y = np.array([1, 1])


def _exact_margins(w, X, y, rho=1.0):
    return [Fraction(int(l)) * (sum(Fraction(float(a)) * Fraction(float(b)) for a, b in zip(w[:-1], x)) + Fraction(float(w[-1])) * Fraction(rho)) for x, l in zip(X, y)]


@pytest.mark.parametrize("precision", [None, 16])
def test_pdm_unverified_pass_updates_with_the_first_unverified_pattern(precision):
    res = ref.pdm(_TINY_X, _TINY_Y, 1.0, trace=True, precision=precision)
    assert res.status == ref.SEPARATOR and res.iterations == 2
    assert [s.pattern for s in res.trace if s.pattern is not None] == [0, 1]
    w = [Fraction(float(v)) for v in res.w]
    assert w == [Fraction(1) - (1 - Fraction(1, 2**52)), Fraction(5), Fraction(2)]
    assert all(v > 0 for v in _exact_margins(res.w, _TINY_X, _TINY_Y))
    assert verify_exact(res, _TINY_X, _TINY_Y) == ""
    # ell_2 = ell_1 + 2 a_1.y_2 + ||y_2||^2 = 2 + 2^-51 + (27 - 2^-51 + 2^-104) = ||a_2||^2, 29 in float64
    assert res.info["ell"] == 29.0 and res.info["theta"] == 0
    # the unverified update starts a fresh full pass ("then a fresh pass"): k = 0, no update in
    # it yet, not converged; that pass makes no update and the run ends after 3 full passes
    s = next(s for s in res.trace if s.pattern == 1)
    assert (s.k, s.updates_in_pass, s.converged, s.t) == (0, 0, False, 2)
    assert res.info["epochs"] == 3 and res.info["passes"] == 3


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_pdm_active_sets_unverified_pass_goes_on_to_a_verified_separator(seed):
    # Whichever pattern the random permutation presents first, the first update leaves the
    # other one at margin +-2^-52 ... the run must go on through the unverified claim (a fresh
    # full pass) to a verified separator.
    res = ref.pdm(_TINY_X, _TINY_Y, 1.0, active_sets=True, seed=seed, max_iter=50)
    assert res.status == ref.SEPARATOR
    assert all(v > 0 for v in _exact_margins(res.w, _TINY_X, _TINY_Y))


# =============================================================================================
# reference.result: the factored certificate verifier
# =============================================================================================


def test_verify_certificate_factored_is_strict_by_default():
    # Z = [[3, 4]], p = (1): ||p||_G = ||Z^T p|| = 5 exactly.  The docstring: ``<`` unless
    # strict=False.
    Z = sp.csr_matrix(np.array([[3.0, 4.0]]))
    p = np.array([1.0])
    assert "is not < 5" in rs.verify_certificate_factored(Z, p, 5.0)
    assert rs.verify_certificate_factored(Z, p, 5.0, strict=False) == ""
    assert rs.verify_certificate_factored(Z, p, 5.0 * (1 + 2.0**-52)) == ""
    assert "is not <= 4.99" in rs.verify_certificate_factored(Z, p, 4.999, strict=False)


def test_verify_certificate_factored_simplex_tolerance_boundary():
    # |sum(p) - 1| <= 16 n u is accepted (as simplex_tolerance); one ulp more is not.  n = 1:
    # the tolerance is 16 * 2^-52 = 2^-48, and 1 + 2^-48, 1 + 2^-48 + 2^-52 are floats.
    Z = sp.csr_matrix(np.array([[1.0]]))
    assert rs.verify_certificate_factored(Z, np.array([1.0 + 2.0**-48]), 2.0) == ""
    assert "is not 1" in rs.verify_certificate_factored(Z, np.array([1.0 + 2.0**-48 + 2.0**-52]), 2.0)
    assert "is not 1" in rs.verify_certificate_factored(Z, np.array([1.0 - 2.0**-48 - 2.0**-52]), 2.0)
    # n = 2: tolerance 2^-47
    Z2 = sp.csr_matrix(np.array([[1.0], [1.0]]))
    assert rs.verify_certificate_factored(Z2, np.array([0.5, 0.5 + 2.0**-47]), 2.0) == ""
    assert "is not 1" in rs.verify_certificate_factored(Z2, np.array([0.5, 0.5 + 2.0**-47 + 2.0**-52]), 2.0)
    assert "negative" in rs.verify_certificate_factored(Z2, np.array([1.5, -0.5]), 2.0)
    assert "negative" in rs.verify_certificate_factored(Z2, np.array([np.nan, 1.0]), 2.0)


# =============================================================================================
# argument validation: every public algorithm names the argument and the fix
# =============================================================================================

_X = np.array([[1.0, 2.0], [-1.0, 0.5]])
_Y = np.array([1, -1])
_G = np.array([[1.0, 0.5], [0.5, 1.0]])  # a feasible normalized Gram matrix
_Q = np.array([0.5, 0.5])


@pytest.mark.parametrize(
    "call, match",
    [
        # RP14 perceptrons
        (lambda: ref.perceptron(_X, _Y, rule="bogus"), r"^rule must be one of \('cyclic', 'most_violated'\), got 'bogus'"),
        (lambda: ref.perceptron(_X, _Y, max_iter=-1), r"^max_iter must be an integer >= 0"),
        (lambda: ref.perceptron(_X, _Y, trace="yes"), r"^trace must be True or False"),
        (lambda: ref.perceptron(_X, _Y, rho=-1.0), r"^rho must lie in .*; the augmentation \(bias\) coordinate"),
        (lambda: ref.normalized_perceptron(_X, _Y, max_iter=2.5), r"^max_iter must be an integer >= 0"),
        (lambda: ref.normalized_perceptron(_X, _Y, normalize="yes"), r"^normalize must be True or False"),
        (lambda: ref.normalized_perceptron(_X, _Y, trace=1), r"^trace must be True or False"),
        (lambda: ref.nkp(_G, max_iter=-1), r"^max_iter must be an integer >= 0"),
        (lambda: ref.nkp(_G, trace="yes"), r"^trace must be True or False"),
        # RP14 smoothed and von Neumann
        (lambda: ref.snkp(_G, max_iter=-1), r"^max_iter must be an integer >= 0"),
        (lambda: ref.snkp(_G, trace="yes"), r"^trace must be True or False"),
        (lambda: ref.snkpvn(_G, _Q, 0.1, max_iter=-1), r"^max_iter must be an integer >= 0"),
        (lambda: ref.snkpvn(_G, _Q, 0.1, trace="yes"), r"^trace must be True or False"),
        (lambda: ref.snkpvn(_G, _Q, 0.0), r"^delta must lie in \(0, inf\), got 0.0; SNKPVN's accuracy delta must be positive"),
        (lambda: ref.snkpvn(_G, [0.75, 0.5], 0.1), r"^q must lie in the simplex"),
        (lambda: ref.snkpvn(_G, [1.0], 0.1), r"^q must be a vector of length 2"),
        (lambda: ref.isnkpvn(_G, max_iter=-1), r"^max_iter must be an integer >= 0"),
        (lambda: ref.isnkpvn(_G, trace="yes"), r"^trace must be True or False"),
        (lambda: ref.isnkpvn(_G, gamma=1.0), r"^gamma must lie in \(1, inf\), got 1.0; ISNKPVN shrinks delta_t by gamma > 1"),
        (lambda: ref.isnkpvn(_G, epsilon=0.0), r"^epsilon must lie in \(0, inf\), got 0.0; the target accuracy must be positive"),
        (lambda: ref.nvn(_G, 0.0), r"^epsilon must lie in \(0, 1\], got 0.0; NVN's accuracy satisfies 0 < epsilon <= 1"),
        (lambda: ref.nvn(_G, 1.5), r"^epsilon must lie in \(0, 1\]"),
        (lambda: ref.nvn(_G, 0.1, max_iter=-1), r"^max_iter must be an integer >= 0"),
        (lambda: ref.nvn(_G, 0.1, trace="yes"), r"^trace must be True or False"),
        # PT11
        (lambda: ref.pdm(_X, _Y, 0.0), r"^epsilon must lie in \(0, 1\], got 0.0; the accuracy of PDM, e.g. epsilon=0.01"),
        (lambda: ref.pdm(_X, _Y, 1.5), r"^epsilon must lie in \(0, 1\], got 1.5; the accuracy of PDM"),
        (lambda: ref.pdm_succ(_X, _Y, 1.5), r"^epsilon must lie in \(0, 1\], got 1.5; the target accuracy, e.g. epsilon=0.01"),
        (lambda: ref.pdm_succ(_X, _Y, 0.1, 1.0), r"^eta must lie in \(1, inf\), got 1.0; the ratio of successive accuracies"),
        (lambda: ref.pfm(_X, _Y, -0.5), r"^beta must lie in \[0, inf\), got -0.5; beta = \(1 - eps\) gamma_d, e.g. beta=0.1"),
        (lambda: ref.pdm(_X, _Y, 0.1, rho=-1.0), r"^rho must lie in \(0, inf\), got -1.0; pass rho=1.0, or rho=None"),
        (lambda: ref.pdm(_X, _Y, 0.1, Delta=0.0), r"^Delta must lie in \(0, inf\), got 0.0; pass e.g. Delta=1.0, or Delta=None"),
        (lambda: ref.pdm(_X, _Y, 0.1, max_iter=-1), r"^max_iter must be an integer >= 0"),
        (lambda: ref.pfm(_X, _Y, 0.1, max_epochs=-1), r"^max_epochs must be an integer >= 0"),
        (lambda: ref.pdm_succ(_X, _Y, 0.1, max_epochs=1.5), r"^max_epochs must be an integer >= 0"),
        (lambda: ref.pdm(_X, _Y, 0.1, seed=-1), r"^seed must be an integer >= 0"),
        (lambda: ref.pdm(_X, _Y, 0.1, active_sets="yes"), r"^active_sets must be True or False"),
        (lambda: ref.pdm(_X, _Y, 0.1, multiple_updates=1), r"^multiple_updates must be True or False"),
        (lambda: ref.pfm(_X, _Y, 0.1, trace=None), r"^trace must be True or False"),
        (lambda: ref.pdm(_X, _Y, 0.1, progress=3), r"^progress must be a callable progress\(state\) or None"),
        # the patterns helper
        (lambda: ref.dynamic_margin.patterns(_X, _Y, rho=-1.0), r"^rho must lie in .*pass rho=1.0, or rho=None"),
        (lambda: ref.dynamic_margin.patterns(_X, _Y, Delta=-1.0), r"^Delta must lie in .*Delta=None for the original space"),
        (lambda: ref.dynamic_margin.patterns([[0.0, 0.0], [1.0, 1.0]], _Y, rho=None), r"zero"),
    ],
)
def test_bad_arguments_name_the_argument_and_the_fix(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_boundary_arguments_are_accepted():
    # epsilon = 1 (PDM, PDM-succ, NVN), beta = 0 (PFM): the closed ends of their intervals
    assert ref.pdm(_X, _Y, 1.0).status == ref.SEPARATOR
    assert ref.pdm_succ(_X, _Y, 1.0).info["eps_schedule"] == (1.0,)
    assert ref.pfm(_X, _Y, 0.0).status == ref.SEPARATOR
    assert ref.nvn(_G, 1.0).status in (ref.SEPARATOR, ref.CERTIFICATE)


# =============================================================================================
# trace: off by default, one state per iteration when asked
# =============================================================================================


@pytest.mark.parametrize(
    "run",
    [
        lambda **kw: ref.perceptron(_X, _Y, **kw),
        lambda **kw: ref.normalized_perceptron(_X, _Y, **kw),
        lambda **kw: ref.nkp(_G, **kw),
        lambda **kw: ref.snkp(_G, **kw),
        lambda **kw: ref.snkpvn(_G, _Q, 0.1, **kw),
        lambda **kw: ref.nvn(_G, 0.1, **kw),
        lambda **kw: ref.pdm(_X, _Y, 0.1, **kw),
        lambda **kw: ref.pfm(_X, _Y, 0.1, **kw),
        lambda **kw: ref.pdm_succ(_X, _Y, 0.1, **kw),
    ],
)
def test_trace_is_off_by_default_and_has_one_state_per_step(run):
    res = run()
    assert res.trace is None
    res = run(trace=True)
    assert res.trace is not None and len(res.trace) >= res.iterations + 1 >= 1
    if res.algorithm not in ("pdm", "pfm", "pdm_succ"):  # RP14: one state per iteration k
        assert [s.k for s in res.trace] == list(range(res.iterations + 1))


def test_precision_is_honoured_and_labelled():
    for res in (ref.snkpvn(_G, _Q, 0.1, precision=30), ref.snkp(_G, precision=30), ref.nvn(_G, 0.1, precision=30)):
        assert res.precision == "mpmath, 30 decimal digits"
        assert all(isinstance(v, __import__("mpmath").mpf) for v in (res.alpha if res.alpha is not None else res.p))
    assert ref.snkpvn(_G, _Q, 0.1).precision == "float64"


# =============================================================================================
# reference.result: round-off allowances, the certificate verifier's exact fallback, the driver
# =============================================================================================

F64 = ref.Arithmetic(None) if hasattr(ref, "Arithmetic") else None


def _f64():
    from reference.arithmetic import Arithmetic

    return Arithmetic(None)


def test_unit_roundoff_is_the_arrays_own():
    import mpmath

    assert rs.unit_roundoff(np.zeros(3)) == 2.0**-52  # float64 arrays: MACHINE_EPS = 2u
    assert rs.unit_roundoff(np.float64(1.0)) == 2.0**-52
    with mpmath.workdps(40):
        assert rs.unit_roundoff(np.array([mpmath.mpf(1)], dtype=object)) == mpmath.mpf(10) ** -40


def test_simplex_tolerance_is_16_n_eps_with_n_at_least_1():
    ar = _f64()
    assert rs.simplex_tolerance(1, ar) == 16 * 2.0**-52
    assert rs.simplex_tolerance(0, ar) == 16 * 2.0**-52
    assert rs.simplex_tolerance(3, ar) == 48 * 2.0**-52
    # verify_certificate: n = 1, |sum(p) - 1| = 2^-48 = 16 eps is accepted, 2^-47 is not
    G = np.array([[1.0]])
    assert "sum(p)" not in rs.verify_certificate(G, np.array([1.0 + 2.0**-48]), 2.0, ar)
    assert "is not 1" in rs.verify_certificate(G, np.array([1.0 + 2.0**-47]), 2.0, ar)


def test_separator_allowance_covers_underflow():
    # z = (1), w = (2^-1074): the computed margin 2^-1074 > 0, but products this small are
    # lost to underflow, so (2k + 4) UNDERFLOW = 6 * 2^-1074 is added to the allowance:
    # the claim is refused; a margin of 7 * 2^-1074 is accepted.
    Z = np.array([[1.0]])
    margins, slack = rs.separator_allowance(Z, np.array([2.0**-1074]), 1)
    assert margins[0] == 2.0**-1074 and slack[0] >= 6 * 2.0**-1074
    assert "is not > 0 beyond round-off" in rs.verify_separator_primal(Z, np.array([2.0**-1074]))
    assert rs.verify_separator_primal(Z, np.array([7 * 2.0**-1074])) == ""
    assert "is not > 0" in rs.verify_separator_gram(Z, np.array([2.0**-1074]))


def _ones_gram(n):
    # G = 1 1^T (every point the same unit vector), p = 1_n/n (dyadic for n = 32, 64):
    # p^T G p = 1 exactly, computed exactly; the a-priori bound on ||p||_G is 1 + O(n u).
    return np.ones((n, n)), np.full(n, 1.0 / n)


def test_verify_certificate_decides_exactly_up_to_32_points():
    ar = _f64()
    acc = np.nextafter(1.0, 2.0)  # ||p||_G = 1 < acc, but only by 2^-52: the bound is inconclusive
    G, p = _ones_gram(rs.EXACT_CERTIFICATE_N)
    assert rs.EXACT_CERTIFICATE_N == 32
    assert rs.verify_certificate(G, p, acc, ar) == ""  # decided exactly: 1 < (1 + 2^-52)^2
    assert "is not < 1.000e+00" in rs.verify_certificate(G, p, 1.0, ar)  # exact: 1 < 1 is false
    assert rs.verify_certificate(G, p, 1.0, ar, strict=False) == ""  # exact: 1 <= 1
    G, p = _ones_gram(64)  # n > 32: no exact fallback, the inconclusive bound certifies nothing
    assert "is not certified < 1.000e+00" in rs.verify_certificate(G, p, acc, ar)
    assert "is not certified <= 1.000e+00" in rs.verify_certificate(G, p, acc, ar, strict=False)


def test_verify_certificate_non_strict_accepts_a_bound_equal_to_the_accuracy():
    # In mpmath the bound of the zero matrix is exactly 0 (no underflow term): ||p||_G = 0 <= 0.
    # n = 33 > EXACT_CERTIFICATE_N, so only the bound decides.
    from reference.arithmetic import arithmetic

    ar = arithmetic(30)
    with ar.context():
        G, p = ar.array(np.zeros((33, 33))), ar.uniform(33)
        assert rs.verify_certificate(G, p, ar.scalar(0), ar, strict=False) == ""
        assert "is not <" in rs.verify_certificate(G, p, ar.scalar(0), ar, strict=True)


def test_verify_certificate_rejects_each_defect():
    ar = _f64()
    G = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert rs.verify_certificate(G, np.array([0.5, 0.5]), 0.75, ar) == ""  # ||p||_G = sqrt(1/2)
    assert rs.verify_certificate(G, np.array([1.0, 0.0]), 1.5, ar) == ""  # a zero entry is fine
    assert rs.verify_certificate(G, np.array([1.5, -0.5]), 5.0, ar) == "p has a negative entry"
    assert rs.verify_certificate(G, np.array([np.nan, 1.0]), 5.0, ar) == "p has a negative entry"
    assert "sum(p) = 1.5 is not 1" in rs.verify_certificate(G, np.array([0.75, 0.75]), 5.0, ar)
    assert "is not < 7.000e-01" in rs.verify_certificate(G, np.array([0.5, 0.5]), 0.7, ar)


def test_drive_result_fields():
    res = ref.nvn(np.array([[1.0, -1.0], [-1.0, 1.0]]), 0.5)  # x and -x: ||1_2/2||_G = 0
    assert res.status == ref.CERTIFICATE and res.precision == "float64" and res.iterations == 0
    assert res.p.tolist() == [0.5, 0.5] and res.alpha is None
    assert res.message == "certificate verified in float64"
    res = ref.nkp(_G)
    assert res.alpha is not None and res.p is None and res.w is None


# =============================================================================================
# reference.perceptrons: data at an extreme scale
# =============================================================================================


@pytest.mark.parametrize("algo", ["perceptron", "normalized_perceptron"])
def test_perceptrons_at_the_edge_of_overflow(algo):
    # z_1 = (1.5 2^1023, 1.5 2^1023): the run is on z_1 2^-1024 = (0.75, 0.75) (largest entry in
    # [1/2, 1)), w_1 = (0.75, 0.75) (Alg. 1: w_0 + z_1; Alg. 2: the average of one point).
    # On the data as given, y <w_1, x_1> = 2 * 1.125 * 2^1023 overflows: the separator is
    # verified on the exactly scaled points, where it holds.
    X, y = np.array([[1.5 * 2.0**1023, 1.5 * 2.0**1023]]), np.array([1])
    kw = {"normalize": False} if algo == "normalized_perceptron" else {}
    res = getattr(ref, algo)(X, y, **kw)
    assert res.status == ref.SEPARATOR and res.iterations == 1
    assert res.w.tolist() == [0.75, 0.75]
    assert res.info["scale"] == "2^-1024"
    assert verify_exact(res, X, y) == ""
    res = getattr(ref, algo)(np.array([[3.0, 3.0]]), y, **kw)  # ordinary scale: no factor recorded
    assert res.w.tolist() == [3.0, 3.0] and "scale" not in res.info


@pytest.mark.parametrize("algo", ["perceptron", "normalized_perceptron"])
def test_perceptrons_at_the_edge_of_underflow(algo):
    # x = 2^-1070: margins of the data as given lose all bits (2^-1070 * 0.5 is below the
    # subnormal allowance); the scaled run (x 2^1069 = 1/2) verifies on the exact scaling.
    X, y = np.array([[2.0**-1070]]), np.array([1])
    kw = {"normalize": False} if algo == "normalized_perceptron" else {}
    res = getattr(ref, algo)(X, y, max_iter=5, **kw)
    assert res.status == ref.SEPARATOR and res.iterations == 1 and res.w.tolist() == [0.5]
    assert res.info["scale"] == "2^1069"


def test_fast_perceptron_records_the_trace():
    pytest.importorskip("numba")
    res = ref.perceptron(_X, _Y, engine="fast", trace=True)
    assert res.engine == "fast" and res.trace is not None and len(res.trace) == res.iterations + 1


# =============================================================================================
# reference.smoothed: ISNKPVN's E-A7 guard, bookkeeping and info
# =============================================================================================


def test_isnkpvn_zero_guard_boundary():
    # Two pairs of nearly opposite unit vectors: G = blockdiag([[1, c], [c, 1]] x 2) with
    # c = -1 + 2^-48, q_0 = 1_4/4: q^T G q = (4 + 4c)/16 = 2^-50 exactly (and so computed), so
    # ||q_0||_G^2 = 2^-50 = n eps (n = 4, eps = 2^-52): at the guard's edge, where the
    # arithmetic cannot tell ||q_0||_G from 0 -- returned at once as a certificate, T = 0.
    c = -1.0 + 2.0**-48
    B = np.array([[1.0, c], [c, 1.0]])
    G = np.block([[B, np.zeros((2, 2))], [np.zeros((2, 2)), B]])
    res = ref.isnkpvn(G, 2.0, 1e-3)
    assert res.status == ref.CERTIFICATE and res.info["T"] == 0 and res.iterations == 0
    assert res.p.tolist() == [0.25] * 4
    # one step off the edge (q^T G q = 2 n eps): SNKPVN is called
    c = -1.0 + 2.0**-47
    B = np.array([[1.0, c], [c, 1.0]])
    G = np.block([[B, np.zeros((2, 2))], [np.zeros((2, 2)), B]])
    assert ref.isnkpvn(G, 2.0, 1e-3, max_iter=200).info["T"] >= 1


def test_isnkpvn_bookkeeping_and_trace():
    # a0 = (1, 0), a1 = (-1, 0), a2 = (0, 1): infeasible, ||1_3/3||_G = 1/3 > 0
    Z = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    G = Z @ Z.T
    res = ref.isnkpvn(G, 2.0, 1e-2, trace=True)
    T = res.info["T"]
    assert res.status == ref.CERTIFICATE and T >= 2
    assert len(res.info["deltas"]) == len(res.info["inner_iterations"]) == T
    assert res.iterations == sum(res.info["inner_iterations"])
    assert res.info["epsilon"] == 1e-2
    assert len(res.trace) == T and [r.t for r in res.trace] == list(range(T))
    assert [r.inner.iterations for r in res.trace] == res.info["inner_iterations"]
    # Theorem 4: an epsilon-certificate after at most log(1/eps)/log(gamma) + 1 outer loops
    assert T <= np.log(1 / 1e-2) / np.log(2.0) + 1
    # the deltas shrink by gamma at least: delta_{t+1} = ||q_{t+1}||_G/gamma < delta_t/gamma
    d = res.info["deltas"]
    assert all(b < a / 2.0 for a, b in zip(d, d[1:]))
    assert res.info["deltas"][-1] < 1e-2 <= res.info["deltas"][-2]


def test_snkpvn_info_and_initial_state():
    res = ref.snkpvn(_G, _Q, 0.1, trace=True)
    assert res.info["delta"] == 0.1
    assert res.trace[0].mu == 2 * 2  # mu_0 := 2n  [RP14 Alg. 6]
    assert res.trace[0].alpha.tolist() == _Q.tolist()  # alpha_0 := q
    # mu_k = 4n / ((k+1)(k+2))  (docstring)
    for s in res.trace:
        assert s.mu == pytest.approx(4 * 2 / ((s.k + 1) * (s.k + 2)), rel=1e-14)
    res = ref.snkp(_G, trace=True)
    assert res.trace[0].mu == 2 and "delta" not in res.info  # mu_0 := 2  [RP14 Alg. 4]


# =============================================================================================
# PT11: small hand instances, the patterns, the thresholds, the schedule
# =============================================================================================


@pytest.mark.parametrize("x", [1.0, 0.25])
def test_pdm_one_point_hand_run(x):
    # y_1 = (x) (rho=None), eps = 1/2.  Pass 1: p = 0 <= theta_0 = 0: a_1 = (x), t = 1,
    # theta_1 = (1/2) x^2.  Pass 2: p = x^2 > x^2/2: no update, converged.  Two full passes
    # (epochs); the directional margin a.y/||a|| = x; ||a_1||/t = x.
    res = ref.pdm([[x]], [1], 0.5, rho=None)
    assert res.status == ref.SEPARATOR and res.iterations == 1
    assert res.info["epochs"] == 2 and res.info["passes"] == 2 and res.info["t_c"] == (1,)
    assert res.info["margin"] == x and res.info["upper_bound"] == x
    assert res.info["theta"] == x * x / 2 and res.info["ell"] == x * x
    assert res.info["R"] == x


def test_pdm_max_epochs_stops_after_that_many_full_passes():
    # y_1 = (1), y_2 = (-1): every pass updates twice (a: 0 -> 1 -> 0), never converges.
    for cap in (1, 2, 3):
        res = ref.pdm([[1.0], [1.0]], [1, -1], 0.5, rho=None, max_epochs=cap)
        assert res.status == ref.MAX_ITER and res.info["epochs"] == cap and res.iterations == 2 * cap


def test_pt11_default_rho_is_one():
    # pfm with beta = 0 on x_1 = (2): y_1 = (2, rho) = (2, 1); one update, a = y_1.
    for res in (ref.pfm([[2.0]], [1], 0.0), ref.pdm([[2.0]], [1], 1.0), ref.pdm_succ([[2.0]], [1], 1.0)):
        assert res.w.tolist() == [2.0, 1.0] and res.info["rho"] == 1.0 and res.info["Delta"] is None


def test_pdm_succ_info():
    res = ref.pdm_succ(_X, _Y, 0.01, 8.0)
    assert res.info["eta"] == 8.0 and res.info["epsilon"] == 0.01
    assert res.info["eps_schedule"] == (0.5, 0.0625, 0.01)
    assert len(res.info["t_c"]) == 3 and res.info["t_c"][-1] == res.iterations
    assert ref.pdm(_X, _Y, 0.01).info["eps_schedule"] == (0.01,)


@pytest.mark.parametrize("algo", ["pdm", "pfm", "pdm_succ"])
def test_progress_is_called_once_per_step(algo):
    seen = []
    res = getattr(ref, algo)(_X, _Y, 0.1, trace=True, progress=seen.append)
    assert len(seen) == len(res.trace) - 1 >= 1
    assert all(a is b for a, b in zip(seen, res.trace[1:]))


def test_succ_schedule_stops_at_the_target():
    # eps_1 = 1/2, eps_{n+1} = eps_n / eta, the last clamped to epsilon  [spec B.8, E-B5]
    assert ref.dynamic_margin.succ_schedule(0.0625, 8.0) == (0.5, 0.0625)  # 0.5/8 hits it exactly
    assert ref.dynamic_margin.succ_schedule(0.01, 8.0) == (0.5, 0.0625, 0.01)
    assert ref.dynamic_margin.succ_schedule(0.5, 8.0) == (0.5,)
    assert ref.dynamic_margin.succ_schedule(0.25, 2.0) == (0.5, 0.25)


def test_pdm_mu_plus_is_the_larger_root():
    # eps = 1/2, p = 3, q = 4, ell = 32, t = 2:  eps q = 2, t q + (2 eps - 1) p = 8,
    # t p - (1 - eps) ell = -10:  2 mu^2 + 8 mu - 10 = 2 (mu + 5)(mu - 1): mu_+ = 1.
    from reference.arithmetic import Arithmetic

    F = Arithmetic(None)
    assert ref.dynamic_margin.pdm_mu_plus(0.5, 3.0, 4.0, 32.0, 2, F) == 1.0
    # eps = 1/4, p = 2, q = 4, ell = 16, t = 1: mu^2 + 3 mu - 10 = (mu + 5)(mu - 2): mu_+ = 2
    assert ref.dynamic_margin.pdm_mu_plus(0.25, 2.0, 4.0, 16.0, 1, F) == 2.0


def test_pfm_threshold_is_beta_times_the_norm():
    from reference.arithmetic import Arithmetic

    F = Arithmetic(None)
    th = ref.dynamic_margin.pfm_threshold
    assert th(0.5, 1, 0.25, F) == 0.25  # 1/2 * sqrt(1/4)
    assert th(0.5, 3, 4.0, F) == 1.0
    assert th(0.5, 1, 1.0, F) == 0.5
    assert th(0.5, 1, -4e-16, F) == 0.0  # round-off below 0: ||a|| = 0


def test_patterns_are_augmented_reflected_extended():
    X, y = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1, -1])
    P = ref.dynamic_margin.patterns(X, y, rho=0.5, Delta=2.0)
    assert P.tolist() == [[1.0, 2.0, 0.5, 2.0, 0.0], [-3.0, -4.0, -0.5, 0.0, -2.0]]
    assert ref.dynamic_margin.patterns(X, y).tolist() == [[1.0, 2.0, 1.0], [-3.0, -4.0, -1.0]]
    assert ref.dynamic_margin.patterns(X, y, rho=None).tolist() == [[1.0, 2.0], [-3.0, -4.0]]
    assert ref.dynamic_margin.patterns(X, y, rho=None, Delta=1.0).tolist() == [[1.0, 2.0, 1.0, 0.0], [-3.0, -4.0, 0.0, -1.0]]
    # a zero point is allowed when augmentation or extension makes its pattern nonzero
    Z = np.array([[0.0, 0.0], [1.0, 1.0]])
    assert ref.dynamic_margin.patterns(Z, y).tolist() == [[0.0, 0.0, 1.0], [-1.0, -1.0, -1.0]]
    assert ref.dynamic_margin.patterns(Z, y, rho=None, Delta=1.0)[0].tolist() == [0.0, 0.0, 1.0, 0.0]
    import mpmath

    P = ref.dynamic_margin.patterns(X, y, precision=30)
    assert all(isinstance(v, mpmath.mpf) for v in P.ravel()) and [float(v) for v in P[1]] == [-3.0, -4.0, -1.0]


# PT11's decisions are invariant under a positive scaling of the patterns (p_tk and theta_t
# both scale by c^2 for PDM; by c for PFM when beta scales alike).  Patterns at an extreme scale
# run multiplied by 2^-e; here the largest entry of X, rho, Delta is 3/4, so X 2^100 with
# rho = Delta = 2^99 runs as exactly X with rho = Delta = 1/2.
_XS = np.array([[0.5, 0.75], [-0.25, 0.5], [0.75, -0.5], [0.125, 0.25]])
_YS = np.array([1, -1, 1, -1])


@pytest.mark.parametrize("kw", [dict(rho=0.5, Delta=0.5), dict(rho=0.5, Delta=None), dict(rho=None, Delta=0.5)])
@pytest.mark.parametrize("algo, arg", [("pdm", 0.1), ("pfm", 0.02), ("pdm_succ", 0.05)])
@pytest.mark.parametrize("k", [100, -200])
def test_pt11_extreme_scale_runs_the_same_decisions(kw, algo, arg, k):
    f = getattr(ref, algo)
    base = f(_XS, _YS, arg, max_iter=5000, **kw)
    c = 2.0**k
    big = {key: (None if v is None else v * c) for key, v in kw.items()}
    scaled_arg = arg * c if algo == "pfm" else arg  # beta is a margin: it scales with the data
    res = f(_XS * c, _YS, scaled_arg, max_iter=5000, **big)
    assert base.status == ref.SEPARATOR
    assert res.status == base.status and res.iterations == base.iterations
    assert res.w.tolist() == base.w.tolist()  # the iterate on the scaled patterns (= the base ones)
    assert res.info["scale"] == f"2^{-k}" and "scale" not in base.info
    assert res.info["rho"] == big["rho"] and res.info["Delta"] == big["Delta"]
    assert verify_exact(res, _XS * c, _YS) == ""


def test_snkpvn_schedule_and_lemma_9_on_an_infeasible_instance():
    # a0 = (1, 0), a1 = (-1, 0), a2 = (0, 1): infeasible, W = {(1/2, 1/2, 0)}; q = 1_3/3 has
    # dist(q, W)^2 = 1/36 + 1/36 + 1/9 = 1/6.  Lemma 9: ||p_k||_G <= sqrt(mu_k) dist(q, W), with
    # mu_k = 4n/((k+1)(k+2)) (theta_k = 2/(k+3), mu_{k+1} = (1 - theta_k) mu_k, mu_0 = 2n).
    Z = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    G = Z @ Z.T
    q = np.full(3, 1 / 3)
    res = ref.snkpvn(G, q, 1e-2, trace=True)
    assert res.status == ref.CERTIFICATE and len(res.trace) >= 5
    assert [s.k for s in res.trace] == list(range(res.iterations + 1))
    for s in res.trace:
        mu = Fraction(4 * 3, (s.k + 1) * (s.k + 2))
        assert s.mu == pytest.approx(float(mu), rel=1e-14)
        if s.k:
            assert s.theta == pytest.approx(2 / (s.k + 2), rel=1e-15)  # theta_{k-1} = 2/(k+2)
        w = Z.T @ s.p  # ||p||_G = ||X Y p||
        assert float(w @ w) <= float(mu) / 6 * (1 + 1e-9)
    res = ref.snkp(G, max_iter=6, trace=True)  # infeasible: runs to the budget
    assert [s.k for s in res.trace] == list(range(7))
    assert [s.mu for s in res.trace] == pytest.approx([4 / ((k + 1) * (k + 2)) for k in range(7)], rel=1e-14)


@pytest.mark.parametrize("big", [2**1000, "mpf"])
def test_pt11_rescales_a_huge_integer_or_mpf_rho(big):
    # rho = 2^1000 given as a Python int (beyond int64) or an mpmath.mpf: q_1 = 1 + rho^2
    # overflows float64 unless the patterns run scaled by 2^-1001 (largest entry 2^1000 ->
    # 1/2).  y_1 = (1, 2^1000): one update, then p = q_1 > q_1/2 = theta_1: converged.
    import mpmath

    rho = mpmath.mpf(2) ** 1000 if big == "mpf" else big
    res = ref.pdm([[1.0]], [1], 0.5, rho=rho, max_iter=10)
    assert res.status == ref.SEPARATOR and res.iterations == 1
    assert res.info["scale"] == "2^-1001"
    assert res.w.tolist() == [2.0**-1001, 0.5]


# =============================================================================================
# reference.von_neumann: the certificate test comes first, in the working arithmetic
# =============================================================================================


def test_nvn_certificate_test_is_made_in_the_working_precision():
    # G = [[1, c], [c, 1]], c = fl(-1/3), p_0 = (1/2, 1/2): ||p_0||_G^2 = (1 + c)/2 exactly.  At
    # 30 digits, epsilon just above ||p_0||_G (relative 1e-20) makes p_0 an epsilon-certificate,
    # and NVN tests ||p_k||_G <= epsilon before G p_k > 0 (docstring: "in order") -- though
    # p_0 also separates.  In float64 that norm rounds up, above epsilon: the test must be made
    # at the working precision.
    import mpmath
    from reference.arithmetic import arithmetic, g_norm
    from reference.exact import rational

    G = np.array([[1.0, -1 / 3], [-1 / 3, 1.0]])
    Q = (1 + Fraction(-1 / 3)) / 2
    ar = arithmetic(30)
    with ar.context():
        eps = mpmath.sqrt(mpmath.mpf(Q.numerator) / Q.denominator) * (1 + mpmath.mpf(10) ** -20)
        assert rational(eps) ** 2 > Q  # exactly: p_0 is an epsilon-certificate
        assert g_norm(G, np.array([0.5, 0.5])) > eps  # the float64 norm is above epsilon
    res = ref.nvn(G, eps, precision=30)
    assert res.status == ref.CERTIFICATE and res.iterations == 0
    assert [float(v) for v in res.p] == [0.5, 0.5]
    assert ref.nvn(G, float(eps)).status == ref.SEPARATOR  # float64: the norm is above epsilon


# =============================================================================================
# reference.result: the allowances of the implicit-pattern and factored verifiers, at their edge
# =============================================================================================

_U = 2.0**-52  # MACHINE_EPS = 2u
_UF = 2.0**-1074  # UNDERFLOW


def _csr(rows):
    return sp.csr_matrix(np.array(rows, dtype=float))


@pytest.mark.parametrize("rho, K", [(None, 2), (0.5, 3)])
def test_pattern_allowance_is_K_plus_16_units_plus_underflow(rho, K):
    # x = (1, -(1 - d u)), l = +1, a = (1, 1[, 0]): a . y = d u exactly; the allowance is
    # (K + 16) u (|x| . |a|) = (K + 16)(2 - d u) u, just under 2 (K + 16) u.
    edge = 2 * (K + 16)
    for d_units, ok in ((edge + 1, True), (edge - 1, False)):
        C = _csr([[1.0, -(1.0 - d_units * _U)]])
        a = np.array([1.0, 1.0] + ([0.0] if rho is not None else []))
        margins, slack = rs.pattern_allowance(C.data, C.indices, C.indptr, np.array([1.0]), rho, None, a, 2)
        assert margins[0] == d_units * _U
        assert bool(margins[0] > slack[0]) is ok
        msg = rs.verify_separator_patterns(C.data, C.indices, C.indptr, np.array([1.0]), rho, None, a, 2)
        assert (msg == "") is ok
        if not ok:
            assert msg.startswith("y_0 <w, x_0> = ")
    # a = 0: only the underflow term, (2K + 4) UNDERFLOW, remains
    C = _csr([[1.0, -2.0]])
    a = np.zeros(K)
    margins, slack = rs.pattern_allowance(C.data, C.indices, C.indptr, np.array([-1.0]), rho, None, a, 2)
    assert margins[0] == 0 and slack[0] == (2 * K + 4) * _UF


def test_pattern_margins_with_rho_and_delta_and_labels():
    # two points x_1 = (1, -2), x_2 = (0, 3), labels (+1, -1), rho = 0.5, Delta = 2;
    # a = (0.25, -1, 2 | 4, 8): a . y_1 = 0.25 + 2 + 1 + 2*4 = 11.25; a . y_2 = -(-3 + 1 + 2*8) = -14
    C = _csr([[1.0, -2.0], [0.0, 3.0]])
    a = np.array([0.25, -1.0, 2.0, 4.0, 8.0])
    m = rs.pattern_margins(C.data, C.indices, C.indptr, np.array([1.0, -1.0]), 0.5, 2.0, a, 2)
    assert m.tolist() == [11.25, -14.0]
    m = rs.pattern_margins(C.data, C.indices, C.indptr, np.array([1.0, -1.0]), 0.5, 2.0, a, 2, absolute=True)
    assert m.tolist() == [0.25 + 2 + 1 + 8, 3 + 1 + 16]
    m = rs.pattern_margins(C.data, C.indices, C.indptr, np.array([1.0, -1.0]), None, 2.0, np.array([0.25, -1.0, 4.0, 8.0]), 2)
    assert m.tolist() == [0.25 + 2 + 8, -(-3 + 16)]


def test_verify_separator_factored_allowance_edge():
    # Z = [[1, 0], [-(1 - d u), 1]], alpha = (1, 1): w = Z^T alpha = (d u, 1), G alpha = Z w =
    # (d u, 1 - (1 - d u) d u).  The allowance of row 0 is (n + d + 16) u (|Z| |Z|^T |alpha|)_0
    # = 20 (2 - d u) u, just under 40 u.
    for d_units, ok in ((41, True), (39, False)):
        Z = _csr([[1.0, 0.0], [-(1.0 - d_units * _U), 1.0]])
        msg = rs.verify_separator_factored(Z, np.array([1.0, 1.0]))
        assert (msg == "") is ok
        if not ok:
            assert msg.startswith(f"(G alpha)_0 = {d_units * _U:.3e} is not > 0 beyond round-off")
    assert rs.verify_separator_factored(_csr([[1.0, 0.0], [-1.0, 1.0]]), np.array([1.0, 1.0])).startswith("(G alpha)_0 = 0.000e+00")


def test_snkpvn_certificate_test_is_made_in_the_working_precision():
    # a0 = (1, 0), a1 = (-1, 0), a2 = (0, 1) (infeasible), q = (1, 2, 57)/60, mu_0 = 2n = 6:
    # X^T q = (-1/60, 57/60), G q = (-1, 1, 57)/60, q - G q/6 = (7, 11, 285)/360, projected onto
    # the simplex (+19/360 each): p_0 = (26, 30, 304)/360, ||p_0||_G = ||(-4, 304)/360||
    # = sqrt(92432)/360.  With delta just above it (relative 1e-20) at 30 digits, p_0 is a
    # delta-certificate at k = 0; the float64 norm rounds above delta.
    import mpmath
    from reference.arithmetic import g_norm

    Z = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    G = Z @ Z.T
    q = np.array([1 / 60, 2 / 60, 1 - 3 / 60])
    with mpmath.workdps(30):
        delta = mpmath.sqrt(92432) / 360 * (1 + mpmath.mpf(10) ** -20)
        res = ref.snkpvn(G, q, delta, precision=30)
        assert g_norm(G, [float(v) for v in res.p]) > delta  # float64 would not certify
    assert res.status == ref.CERTIFICATE and res.iterations == 0
    assert [float(v) for v in res.p] == pytest.approx([26 / 360, 30 / 360, 304 / 360], rel=1e-6)


def test_isnkpvn_in_mpmath_keeps_its_deltas_in_mpmath():
    # delta_t = ||q_t||_G / gamma at the working precision: delta_0 = (1/3)/2 = 1/6 for the
    # three points above (q_0 = 1_3/3: X^T q_0 = (0, 1/3)).
    import mpmath

    Z = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    res = ref.isnkpvn(Z @ Z.T, 2.0, 1e-2, precision=30)
    assert res.status == ref.CERTIFICATE
    assert all(isinstance(d, mpmath.mpf) for d in res.info["deltas"])
    with mpmath.workdps(30):
        assert abs(res.info["deltas"][0] - mpmath.mpf(1) / 6) < mpmath.mpf(10) ** -28


def test_active_sets_a_pass_over_S3_builds_nothing():
    # S3 is the innermost set: its passes only update (spec B.9: S1 <- full pass, S2 <- S1,
    # S3 <- S2); the state's `built` stays the empty cons list during them.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 3))
    y = np.where(X @ rng.normal(size=3) + 0.1 >= 0, 1, -1)
    res = ref.pdm(X, y, 0.05, active_sets=True, trace=True, seed=5)
    assert res.status == ref.SEPARATOR
    at3 = [s for s in res.trace if s.level == 3]
    assert len(at3) > 10 and all(s.built == () for s in at3)
    below = [s for s in res.trace if s.level < 3 and s.k > 0]
    assert any(s.built != () for s in below)  # the other levels do build
