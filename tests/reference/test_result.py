"""Tests of reference/test_result.py."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp

from reference import result as rs
from reference.arithmetic import Arithmetic, arithmetic, g_norm_upper
from reference.exact import rational
from reference.result import (
    Algorithm,
    CERTIFICATE,
    EXACT_CERTIFICATE_N,
    MAX_ITER,
    Result,
    SEPARATOR,
    drive,
    simplex_tolerance,
    unit_roundoff,
    verify_certificate,
    verify_separator_gram,
    verify_separator_patterns,
    verify_separator_primal,
    with_info,
)
from tests.support.instances import F64
from tests.support.margin import MP


def _toy_algorithm(claim_ok: bool):
    """Counts to 3, then claims a separator that is (or is not) genuine."""
    G = np.eye(2)
    return Algorithm(
        name="toy",
        init=lambda pb: 0,
        step=lambda pb, s: s + 1,
        exit=lambda pb, s: SEPARATOR if s == 3 else None,
        counter=lambda s: s,
        verify=lambda pb, s, c: verify_separator_gram(G, np.array([1.0, 1.0]) if claim_ok else np.array([1.0, -1.0])),
        output=lambda pb, s: {"alpha": np.array([float(s)]), "info": {"x": 1}},
    )


EPS = float(np.finfo(np.float64).eps)  # 2^-52


def _counter_algorithm(stop_at, out, seen_dps=None, verify_reason=""):
    return Algorithm(
        name="counter",
        init=lambda pb: 0,
        step=lambda pb, s: (seen_dps.append(mpmath.mp.dps) if seen_dps is not None else None) or s + 1,
        exit=lambda pb, s: CERTIFICATE if s == stop_at else None,
        counter=lambda s: s,
        verify=lambda pb, s, c: verify_reason,
        output=out,
    )


def _f64():
    from reference.arithmetic import Arithmetic

    return Arithmetic(None)


def _ones_gram(n):
    # G = 1 1^T (every point the same unit vector), p = 1_n/n (dyadic for n = 32, 64):
    # p^T G p = 1 exactly, computed exactly; the a-priori bound on ||p||_G is 1 + O(n u).
    return np.ones((n, n)), np.full(n, 1.0 / n)


_U = 2.0**-52  # MACHINE_EPS = 2u


_UF = 2.0**-1074  # UNDERFLOW


def _csr(rows):
    return sp.csr_matrix(np.array(rows, dtype=float))


def test_verifiers():
    G = np.array([[1.0, -0.5], [-0.5, 1.0]])
    assert verify_separator_gram(G, np.array([0.5, 0.5])) == ""
    assert "is not > 0" in verify_separator_gram(G, np.array([1.0, 0.0]) * 0 + np.array([0.0, 0.0]))
    Z = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert verify_separator_primal(Z, np.array([1.0, 1.0])) == ""
    assert "y_1" in verify_separator_primal(Z, np.array([1.0, 0.0]))
    Gi = np.array([[1.0, -1.0], [-1.0, 1.0]])
    assert verify_certificate(Gi, np.array([0.5, 0.5]), 1e-9, F64) == ""
    assert "negative" in verify_certificate(Gi, np.array([1.5, -0.5]), 1.0, F64)
    assert "sum(p)" in verify_certificate(Gi, np.array([0.5, 0.6]), 1.0, F64)
    assert "is not <" in verify_certificate(Gi, np.array([1.0, 0.0]), 0.5, F64)
    # boundary: ||p||_G == accuracy is a certificate only when not strict
    assert verify_certificate(Gi, np.array([1.0, 0.0]), 1.0, F64) != ""
    assert verify_certificate(Gi, np.array([1.0, 0.0]), 1.0, F64, strict=False) == ""


def test_drive_verifies_claims_and_honours_budget():
    r = drive(_toy_algorithm(True), None, F64, max_iter=10, trace=True)
    assert r.status == SEPARATOR and r.iterations == 3 and r.trace == (0, 1, 2, 3) and r.converged
    bad = drive(_toy_algorithm(False), None, F64, max_iter=10)
    assert bad.status == MAX_ITER and "not verified" in bad.message and not bad.converged
    short = drive(_toy_algorithm(True), None, F64, max_iter=2)
    assert short.status == MAX_ITER and short.iterations == 2 and short.trace is None
    exact = drive(_toy_algorithm(True), None, F64, max_iter=3)
    assert exact.status == SEPARATOR  # the exit test is evaluated before the budget
    stopped = drive(_toy_algorithm(True), None, F64, max_iter=10, budget=lambda pb, s: s >= 1)
    assert stopped.status == MAX_ITER and stopped.iterations == 1
    d = r.as_dict()
    assert d["status"] == "separator" and d["alpha"] == [3.0] and d["info"] == {"x": 1}


def test_result_defaults():
    r = Result("toy", SEPARATOR, 0)
    assert r.alpha is None and r.w is None and r.p is None and r.trace is None
    assert r.precision == "float64" and r.message == "" and r.info == {} and r.engine == "textbook"
    assert r.converged and Result("toy", CERTIFICATE, 0).converged
    assert not Result("toy", MAX_ITER, 0).converged


def test_result_as_dict_converts_every_field():
    with MP.context():
        third = mpmath.mpf(1) / 3
        r = Result(
            "toy",
            CERTIFICATE,
            np.int64(7),
            alpha=np.array([[1.0, 2.0]]),
            w=MP.array([0.5]),
            p=np.array([0.25, 0.75]),
            precision=MP.label,
            message="done",
            info={"mu": third, "k": np.int64(3), "x": np.float64(0.5), "s": "txt", "n": None},
        )
    d = r.as_dict()
    assert d == {
        "algorithm": "toy",
        "status": "certificate",
        "iterations": 7,
        "alpha": [1.0, 2.0],
        "w": [0.5],
        "p": [0.25, 0.75],
        "precision": "mpmath, 50 decimal digits",
        "engine": "textbook",
        "message": "done",
        "info": {"mu": float(third), "k": 3, "x": 0.5, "s": "txt", "n": None},
    }
    assert type(d["iterations"]) is int and type(d["info"]["mu"]) is float and type(d["info"]["k"]) is int


def test_drive_passes_all_output_fields_and_runs_at_precision():
    seen = []
    alg = _counter_algorithm(2, lambda pb, s: {"w": np.array([1.0]), "p": np.array([0.5, 0.5])}, seen)
    before = mpmath.mp.dps
    r = drive(alg, None, MP, max_iter=5)
    assert seen == [50, 50] and mpmath.mp.dps == before
    assert r.status == CERTIFICATE and r.algorithm == "counter" and r.iterations == 2
    assert r.alpha is None and r.w.tolist() == [1.0] and r.p.tolist() == [0.5, 0.5]
    assert r.info == {} and r.precision == "mpmath, 50 decimal digits"
    assert r.message == "certificate verified in mpmath, 50 decimal digits"
    assert r.trace is None


def test_drive_messages_name_the_reason():
    out = lambda pb, s: {"info": {"k": s}}  # noqa: E731
    r = drive(_counter_algorithm(9, out), None, F64, max_iter=4, trace=True)
    assert r.status == MAX_ITER and r.message == "budget exhausted after 4 iterations"
    assert r.trace == (0, 1, 2, 3, 4) and r.info == {"k": 4}
    r = drive(_counter_algorithm(1, out, verify_reason="because"), None, F64, max_iter=4)
    # a claim that fails verification does not end the run: it goes on until the budget ends
    assert r.status == MAX_ITER and r.iterations == 4
    assert r.message == (
        "budget exhausted after 4 iterations; the last claim (certificate, iteration 1) was not verified: because"
    )
    # a claim at the initial state needs no step
    r = drive(_counter_algorithm(0, out), None, F64, max_iter=0, trace=True)
    assert r.status == CERTIFICATE and r.iterations == 0 and r.trace == (0,)


def test_simplex_tolerance_and_unit_roundoff():
    assert simplex_tolerance(3, F64) == 48 * EPS
    assert simplex_tolerance(0, F64) == 16 * EPS
    with MP.context():
        assert simplex_tolerance(2, MP) == 32 * mpmath.mpf(10) ** -50
        assert unit_roundoff(MP.array([1.0])) == mpmath.mpf(10) ** -50
    assert unit_roundoff(np.array([1.0])) == EPS


def test_separator_allowance_is_k_plus_16_units_of_roundoff():
    """For z = (1, -(1 - d)) and w = (1, 1) the computed margin is exactly d and the allowance is
    (k + 16) u sum_j |z_j||w_j| = 18 (2 - d) u, just under 36 u: d = 37 u passes, d = 35 u fails."""
    for d_units, ok in ((37, True), (35, False)):
        Z = np.array([[1.0, -(1.0 - d_units * EPS)]])
        assert (verify_separator_primal(Z, np.array([1.0, 1.0])) == "") is ok
    # in the Gram form, k is the number of columns as well
    G = np.array([[1.0, -(1.0 - 37 * EPS)], [-(1.0 - 37 * EPS), 1.0]])
    assert verify_separator_gram(G, np.array([1.0, 1.0])) == ""
    G = np.array([[1.0, -(1.0 - 35 * EPS)], [-(1.0 - 35 * EPS), 1.0]])
    assert verify_separator_gram(G, np.array([1.0, 1.0])).startswith("(G alpha)_0 = ")


def test_separator_messages_name_the_first_offending_index():
    G = np.array([[1.0, 0.0], [0.0, 1.0]])
    msg = verify_separator_gram(G, np.array([1.0, -1.0]))
    assert msg.startswith("(G alpha)_1 = -1.000e+00 is not > 0")
    msg = verify_separator_primal(np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]), np.array([1.0, 0.0]))
    assert msg.startswith("y_1 <w, x_1> = 0.000e+00 is not > 0")


def test_verify_certificate_boundaries_and_messages():
    Gi = np.array([[1.0, -1.0], [-1.0, 1.0]])
    # the sum tolerance is 16 n u = 32 u for n = 2
    assert verify_certificate(Gi, np.array([0.5, 0.5 + 24 * EPS]), 1.0, F64) == ""
    assert verify_certificate(Gi, np.array([0.5, 0.5 + 40 * EPS]), 1.0, F64).startswith("sum(p) = ")
    assert verify_certificate(Gi, np.array([0.5, 0.5 - 40 * EPS]), 1.0, F64).startswith("sum(p) = ")
    assert verify_certificate(Gi, np.array([0.0, 1.0]), 1.5, F64) == ""  # a zero entry is allowed
    assert verify_certificate(Gi, np.array([-0.0, 1.0]), 1.5, F64) == ""
    assert verify_certificate(Gi, np.array([1.0, 0.0]), 0.5, F64) == "||p||_G = 1.000e+00 is not < 5.000e-01"
    assert verify_certificate(Gi, np.array([1.0, 0.0]), 0.5, F64, strict=False) == (
        "||p||_G = 1.000e+00 is not <= 5.000e-01"
    )
    with MP.context():
        p = MP.array([0.5, 0.5])
        p[1] += mpmath.mpf(10) ** -30  # far below float64 round-off, far above 10^-50
        assert verify_certificate(MP.array(Gi), p, 1.0, MP).startswith("sum(p) = ")


def test_with_info_replaces_fields():
    @dataclasses.dataclass(frozen=True)
    class S:
        k: int
        mu: float

    s = S(1, 0.5)
    t = with_info(s, mu=0.25)
    assert t == S(1, 0.25) and s == S(1, 0.5)


def test_verify_certificate_sum_tolerance_is_inclusive():
    Gi = np.array([[1.0, -1.0], [-1.0, 1.0]])
    assert verify_certificate(Gi, np.array([0.5, 0.5 + 32 * EPS]), 1.0, F64) == ""  # |sum - 1| == 16 n u
    assert verify_certificate(Gi, np.array([1.5, -0.5]), 1.0, F64) == "p has a negative entry"


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


def test_separator_allowance_in_mpmath_is_relative_to_the_working_precision():
    """For arrays of mpf, separator_allowance uses the unit round-off of the mpmath precision
    (10^-dps), not float64's: at 50 digits (~166 bits) a margin of exactly 2^-100 ~ 8e-31, obtained
    by cancellation (1 * 1 - 1 * (1 - 2^-100), all exact), is ~10^18 times its allowance
    2 (2 + 16) 10^-50, so the separator verifies; the same data with the margin 0 or -2^-100 is
    refused."""
    from reference.result import separator_allowance, verify_separator_gram, verify_separator_primal

    with mpmath.workdps(50):
        one = mpmath.mpf(1)
        Z = np.array([[one, -one]], dtype=object)
        for t, ok in [(Fraction(1, 2**100), True), (Fraction(0), False), (Fraction(-1, 2**100), False)]:
            tm = mpmath.mpf(t.numerator) / t.denominator  # a power of two: exact
            w = np.array([one, one - tm], dtype=object)
            margins, slack = separator_allowance(Z, w, 2)
            assert margins[0] == tm
            assert slack[0] < mpmath.mpf(10) ** -45
            assert (verify_separator_primal(Z, w) == "") is ok
        off = -one + mpmath.mpf(2) ** -100
        G = np.array([[one, off], [off, one]], dtype=object)
        assert verify_separator_gram(G, np.array([one / 2, one / 2], dtype=object)) == ""


def test_separator_allowance_covers_underflow_by_2k_plus_4_units():
    """The documented allowance has the term (2k + 4) UNDERFLOW (UNDERFLOW = 2^-1074, the smallest
    subnormal) for products that underflow: with k = 10 columns a margin of 10 UNDERFLOW (a
    subnormal, computed exactly) is inside the 24 UNDERFLOW allowance and is not claimed, while
    30 UNDERFLOW is beyond it."""
    from reference.arithmetic import UNDERFLOW
    from reference.result import separator_allowance, verify_separator_primal

    k = 10
    w = np.zeros(k)
    w[0] = 1.0
    for units, ok in [(10, False), (23, False), (30, True)]:
        Z = np.zeros((1, k))
        Z[0, 0] = units * UNDERFLOW
        margins, slack = separator_allowance(Z, w, k)
        assert margins[0] == units * UNDERFLOW
        assert slack[0] >= (2 * k + 4) * UNDERFLOW
        assert (verify_separator_primal(Z, w) == "") is ok


@pytest.mark.parametrize("rho, Delta", [(1.0, None), (None, 1.0), (2.0, 0.5)])
def test_pattern_allowance_counts_the_rho_and_delta_coordinates(rho, Delta):
    """The implicit PT11 patterns y_k = l_k [x_k, rho, Delta e_k] get verify_separator_primal's
    allowance (K + 16) eps |y_k| . |a| with the rho and Delta coordinates included ("both engines
    accept exactly the same claims").  One pattern, x = [1], a = [1, a_rho, a_Delta] with the
    extra coordinates cancelling 1 up to t = 2^-47 (all exact): the margin t is below the full
    allowance (about 2 (K + 16) 2^-52 >= 2.25 * 2^-48) but above the part of x alone, so neither
    verifier may claim it; with t = 2^-40 both do."""
    from reference.result import pattern_allowance, verify_separator_patterns, verify_separator_primal

    data, indices, indptr, labels = np.array([1.0]), np.array([0]), np.array([0, 1]), np.array([1.0])
    extra = [v for v in (rho, Delta) if v is not None]
    for t, ok in [(2.0**-47, False), (2.0**-40, True)]:
        # split -(1 - t) over the extra coordinates: coefficient c_j on value v_j, sum c_j v_j = -(1 - t)
        coef = [-(1 - t) / extra[0]] if len(extra) == 1 else [-0.5 / extra[0], -(0.5 - t) / extra[1]]
        a = np.array([1.0] + coef)
        Z = np.array([[1.0] + extra])  # the pattern, formed
        margins, slack = pattern_allowance(data, indices, indptr, labels, rho, Delta, a, 1)
        assert margins[0] == float(Fraction(1) + sum(Fraction(c) * Fraction(v) for c, v in zip(coef, extra)))
        assert slack[0] >= float(np.abs(Z[0]) @ np.abs(a)) * 2.0**-52 * (a.shape[0] + 16)
        assert (verify_separator_patterns(data, indices, indptr, labels, rho, Delta, a, 1) == "") is ok
        assert (verify_separator_primal(Z, a) == "") is ok


def test_verify_certificate_reports_the_norm_of_p_as_stored_at_the_working_precision():
    """At 30 digits, G = I except G_12 = G_21 = -1 + 2^-60 (not a float64: float64 reads it as -1),
    p = (1/2, 1/2, 0, ...): ||p||_G^2 = (2 - 2 + 2^-59) / 4 = 2^-61.  With accuracy just above the
    computed norm but below its rigorous round-off bound (n > EXACT_CERTIFICATE_N: no exact
    fallback), the certificate is refused and the message reports ||p||_G = 2^-30.5 -- the norm
    of the stored p in the working arithmetic, not of G rounded to float64 (which would be 0)."""
    n = EXACT_CERTIFICATE_N + 8
    ar = Arithmetic(30)
    with ar.context():
        G = ar.array(np.eye(n))
        G[0, 1] = G[1, 0] = -1 + mpmath.mpf(2) ** -60
        p = ar.zeros(n)
        p[0] = p[1] = mpmath.mpf(1) / 2
        norm = mpmath.sqrt(mpmath.mpf(2) ** -61)
        accuracy = norm * (1 + mpmath.mpf(10) ** -15)
        why = verify_certificate(G, p, accuracy, ar)
    true = f"{2.0**-30.5:.3e}"
    assert why.startswith(f"||p||_G = {true}, at most "), why
    assert why.endswith(f"with its round-off, is not certified < {float(accuracy):.3e}"), why


@pytest.mark.parametrize("dps", [None, 30])
def test_verify_certificate_decides_exactly_when_its_bound_equals_the_accuracy(dps):
    """strict: ||p||_G < accuracy.  With accuracy equal to the a-priori bound on ||p||_G itself the
    bound cannot decide (it is not < accuracy), so for n <= EXACT_CERTIFICATE_N p^T G p is compared
    with accuracy^2 exactly: here 0.1 (the float) < accuracy^2, so p is a certificate."""
    ar = Arithmetic(dps)
    with ar.context():
        G = ar.array(np.array([[1.0, -0.8], [-0.8, 1.0]]))
        p = ar.array(np.array([0.5, 0.5]))  # p^T G p = (2 - 1.6) / 4 = 0.1 (of the stored -0.8)
        accuracy = g_norm_upper(G, p, ar)
        Q = sum(Fraction(0.25) * Fraction(float(G[i, j])) for i in range(2) for j in range(2))
        assert Q < rational(accuracy) ** 2
        assert verify_certificate(G, p, accuracy, ar, strict=True) == ""
        assert verify_certificate(G, p, accuracy, ar, strict=False) == ""


def test_verify_certificate_at_norm_equal_to_the_accuracy_decided_exactly():
    """p = (1/2, 1/2) and G with g11 + 2 g12 + g22 = 1 exactly (floats as stored): ||p||_G = 1/2
    exactly, though float64 computes 0.49999999999999994.  strict (||p||_G < accuracy) at
    accuracy = 1/2 must refuse, non-strict accepts; and non-strict at accuracy = the computed
    0.49999999999999994 (< ||p||_G) must refuse: the exact comparison decides (n = 2)."""
    ar = Arithmetic(None)
    G = np.array([[1.9404908970831065, -0.6340525375340301], [-0.6340525375340301, 0.32761417798495374]])
    p = np.array([0.5, 0.5])
    assert sum(Fraction(p[i]) * Fraction(G[i, j]) * Fraction(p[j]) for i in range(2) for j in range(2)) == Fraction(1, 4)
    below = 0.49999999999999994
    assert below < 0.5 and float(np.sqrt(p @ (G @ p))) == below  # the float norm errs low
    why = verify_certificate(G, p, 0.5, ar, strict=True)
    assert why == "||p||_G = 5.000e-01, at most 5.000e-01 with its round-off, is not certified < 5.000e-01", why
    assert verify_certificate(G, p, 0.5, ar, strict=False) == ""
    why = verify_certificate(G, p, below, ar, strict=False)
    assert why.startswith("||p||_G = 5.000e-01, at most 5.000e-01 with its round-off, is not certified <= "), why


def test_verify_certificate_strict_needs_its_bound_below_the_accuracy_beyond_the_exact_size():
    """n > EXACT_CERTIFICATE_N (no exact fallback): strict, with accuracy equal to the rigorous bound
    on ||p||_G, is not certified (the bound is not < accuracy); non-strict is."""
    n = EXACT_CERTIFICATE_N + 8
    ar = Arithmetic(None)
    G = np.eye(n)
    G[0, 1] = G[1, 0] = -0.8
    p = np.zeros(n)
    p[0] = p[1] = 0.5
    bound = g_norm_upper(G, p, ar)
    why = verify_certificate(G, p, bound, ar, strict=True)
    assert why.startswith("||p||_G = 3.162e-01, at most ") and why.endswith(
        f"with its round-off, is not certified < {bound:.3e}"
    ), why
    assert verify_certificate(G, p, bound, ar, strict=False) == ""


def test_status_messages_have_one_builder_each():
    """Both engines build their messages here (reference.result); the texts are pinned."""
    assert rs.verified_message("separator", "float64") == "separator verified in float64"
    note = rs.unverified_note("certificate", 63, "||p||_G = 1.4e-08 is not < 1.0e-12")
    assert note == "; the last claim (certificate, iteration 63) was not verified: ||p||_G = 1.4e-08 is not < 1.0e-12"
    assert rs.budget_message(7) == "budget exhausted after 7 iterations"
    assert rs.budget_message(7, note) == "budget exhausted after 7 iterations" + note
    assert rs.refused_claim_message("separator", "(G alpha)_1 = -1 <= 0") == "separator claimed but not verified: (G alpha)_1 = -1 <= 0"
    # and nowhere else: no other module of reference/ spells these messages out
    import pathlib

    root = pathlib.Path(rs.__file__).parent
    phrases = ("verified in {", "was not verified: {", "budget exhausted after {", "claimed but not verified: {")
    spelled = sorted(
        f"{path.relative_to(root)}: {phrase}"
        for path in root.rglob("*.py")
        if path.name != "result.py" or path.parent != root
        for phrase in phrases
        if phrase in path.read_text(encoding="utf-8")
    )
    assert not spelled, f"status messages built outside reference/result.py: {spelled}"
