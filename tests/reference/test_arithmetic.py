"""Tests of reference/test_arithmetic.py."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, strategies as st

from reference.arithmetic import (
    Arithmetic,
    UNDERFLOW,
    arithmetic,
    g_norm,
    g_norm_upper,
    gamma,
    gram_pow4_exponent,
    log_mean_exp,
    pow2_exponent,
    project_simplex,
    quadratic_form,
    rescale_pow2,
    row_pow2_exponents,
    scale_rows_pow2,
    softmax,
    to_float,
)
from reference.dynamic_margin import pdm_mu_plus
from reference.margins import lower_bound, upper_bound
from reference.result import verify_certificate
from tests.support.fast import FLOAT64
from tests.support.instances import F64
from tests.support.margin import ETA, MP, _lower_holds, _upper_holds, raises_ending


MP = Arithmetic(50)


vectors = st.lists(st.floats(-50, 50, allow_nan=False), min_size=1, max_size=12).map(np.array)


def _proj_bruteforce(v):
    """Projection onto the simplex by exact enumeration of supports (Fractions)."""
    n = len(v)
    best = None
    for mask in range(1, 2**n):
        S = [i for i in range(n) if mask >> i & 1]
        tau = (sum(Fraction(v[i]) for i in S) - 1) / len(S)
        p = [Fraction(v[i]) - tau if i in S else Fraction(0) for i in range(n)]
        if min(p) < 0:
            continue
        d = sum((Fraction(v[i]) - p[i]) ** 2 for i in range(n))
        if best is None or d < best[0]:
            best = (d, p)
    return [float(x) for x in best[1]]


from reference.arithmetic import gram_pow4_exponent  # noqa: E402  (the module, although `reference.arithmetic` is the function)


def _is_row_power_of_two_multiple(out_row, in_row):
    """out = in * 2^k for one integer k, exactly, and max|out| in [1/2, 1) (or a zero row kept)."""
    a = [Fraction(float(v)) for v in in_row]
    b = [Fraction(float(v)) for v in out_row]
    top = max(abs(v) for v in a)
    if top == 0:
        return all(v == 0 for v in b)
    r = max(abs(v) for v in b) / top
    k = r.numerator.bit_length() - r.denominator.bit_length()
    return r == Fraction(2) ** k and all(x * r == y for x, y in zip(a, b)) and Fraction(1, 2) <= max(abs(v) for v in b) < 1


@pytest.mark.parametrize("bad", [0, -3, 2.5, "50", True])
def test_precision_must_be_positive_int(bad):
    with pytest.raises(ValueError, match="precision"):
        arithmetic(bad)


def test_arithmetic_labels_and_eps():
    assert arithmetic(None).label == "float64"
    assert arithmetic(30).label == "mpmath, 30 decimal digits"
    assert F64.eps == np.finfo(float).eps
    with MP.context():
        assert MP.eps == mpmath.mpf(10) ** -50
    assert not F64.is_mp and MP.is_mp


def test_mp_context_sets_and_restores_dps():
    before = mpmath.mp.dps
    with Arithmetic(77).context():
        assert mpmath.mp.dps == 77
    assert mpmath.mp.dps == before


def test_array_conversion_is_exact():
    with MP.context():
        a = MP.array([0.1, 2.0])
        assert a.dtype == object and a[0] == mpmath.mpf(0.1) and isinstance(a[1], mpmath.mpf)
        assert MP.unit(3, 1).tolist() == [0, 1, 0]
        u = MP.uniform(4)
        assert all(v == mpmath.mpf(1) / 4 for v in u)
    assert F64.uniform(4).tolist() == [0.25] * 4
    assert to_float(MP.array([1.5]))[0] == 1.5 and to_float(mpmath.mpf(2)) == 2.0


def test_elementary_functions_both_backends():
    v = np.array([0.0, 1.0, 4.0])
    assert F64.sqrt(v).tolist() == [0.0, 1.0, 2.0]
    with MP.context():
        m = MP.array(v)
        assert [float(x) for x in MP.sqrt(m)] == [0.0, 1.0, 2.0]
        assert abs(MP.exp(m)[1] - mpmath.e) < mpmath.mpf(10) ** -45
        assert MP.log(MP.array([1.0]))[0] == 0
        assert MP.floor(mpmath.mpf("2.9")) == 2
    assert F64.floor(2.9) == 2 and F64.floor(-0.5) == -1


@given(vectors)
def test_softmax_is_a_distribution_proportional_to_exp(v):
    p = softmax(v, F64)
    assert np.all(p >= 0) and abs(p.sum() - 1) < 1e-12
    # ratio property p_i / p_j = exp(v_i - v_j) on the largest entries
    i, j = np.argsort(v)[-1], np.argsort(v)[0]
    if v[i] - v[j] < 30:
        assert math.isclose(p[i] / p[j], math.exp(v[i] - v[j]), rel_tol=1e-9)


def test_softmax_known_values_and_stability():
    assert np.allclose(softmax(np.array([0.0, math.log(3.0)]), F64), [0.25, 0.75], atol=1e-15)
    p = softmax(np.array([1000.0, 1000.0]), F64)  # naive exp overflows
    assert p.tolist() == [0.5, 0.5]


def test_log_mean_exp_known_value():
    # mu log((1/2)(e^{-1/mu} + e^{-3/mu})) with mu = 1
    v = np.array([1.0, 3.0])
    expected = math.log((math.exp(-1) + math.exp(-3)) / 2)
    assert math.isclose(log_mean_exp(v, 1.0, F64), expected, rel_tol=1e-14)
    # limit mu -> 0 gives -min v
    assert abs(log_mean_exp(v, 1e-6, F64) - (-1.0 - 1e-6 * math.log(2))) < 1e-9


@given(st.lists(st.integers(-20, 20), min_size=1, max_size=6))
def test_project_simplex_matches_bruteforce(ints):
    v = np.array(ints, dtype=float) / 8.0
    assert np.allclose(project_simplex(v, F64), _proj_bruteforce(v), atol=1e-12)


def test_project_simplex_known_cases():
    assert project_simplex(np.array([0.2, 0.3, 0.5]), F64).tolist() == pytest.approx([0.2, 0.3, 0.5], abs=1e-15)
    assert project_simplex(np.array([2.0, 0.0]), F64).tolist() == [1.0, 0.0]
    assert project_simplex(np.array([1.0, 1.0]), F64).tolist() == [0.5, 0.5]
    assert project_simplex(np.array([3.0, 1.0, -5.0]), F64).tolist() == [1.0, 0.0, 0.0]
    # tie at the threshold: u_j - (c_j - 1)/j == 0 must NOT enter the support
    assert project_simplex(np.array([1.0, 0.0]), F64).tolist() == [1.0, 0.0]
    with MP.context():
        p = project_simplex(MP.array([0.5, 0.25, 0.0]), MP)  # tau = -1/12: (7/12, 4/12, 1/12)
        assert all(abs(a - mpmath.mpf(b) / 12) < mpmath.mpf(10) ** -48 for a, b in zip(p, (7, 4, 1)))


def test_g_norm_and_round_off_guard():
    G = np.array([[1.0, -1.0], [-1.0, 1.0]])
    assert g_norm(G, np.array([0.5, 0.5]), F64) == 0.0
    assert g_norm(G, np.array([1.0, 0.0]), F64) == 1.0
    Gneg = np.array([[-1e-20]])  # round-off negative quadratic form
    assert g_norm(Gneg, np.array([1.0]), F64) == 0.0
    assert math.isclose(g_norm(np.eye(2), np.array([3.0, 4.0]), F64), 5.0)


def test_default_arithmetic_is_float64():
    a = Arithmetic()
    assert a.dps is None and not a.is_mp and a.label == "float64"


def test_arithmetic_accepts_sixteen_digits_and_numpy_integers():
    assert arithmetic(16).dps == 16 and arithmetic(1000).dps == 1000
    a = arithmetic(np.int64(30))
    assert a.dps == 30 and type(a.dps) is int and a.label == "mpmath, 30 decimal digits"
    with raises_ending("; pass e.g. precision=50"):
        arithmetic(-1)


def test_mp_array_and_scalar_keep_mpf_inputs_exactly():
    """An mpf computed at higher precision is kept as is, not re-rounded to the working dps."""
    with mpmath.workdps(100):
        third = mpmath.mpf(1) / 3
    with MP.context():
        a = MP.array([third, 0.5])
        assert a[0] is third and a[1] == mpmath.mpf(0.5) and isinstance(a[1], mpmath.mpf)
        assert MP.scalar(third) is third
        assert isinstance(MP.scalar(2), mpmath.mpf) and MP.scalar(2) == 2
    assert type(F64.scalar(np.float32(0.5))) is float and F64.scalar(3) == 3.0


def test_mp_elementary_functions_keep_shape_and_take_scalars():
    with MP.context():
        M = MP.array([[1.0, 4.0], [9.0, 16.0]])
        for f in (MP.exp, MP.log, MP.sqrt):
            out = f(M)
            assert out.shape == (2, 2) and out.dtype == object
        assert [float(x) for x in MP.sqrt(M).ravel()] == [1.0, 2.0, 3.0, 4.0]
        assert abs(MP.log(M)[1, 1] - 4 * mpmath.log(2)) < mpmath.mpf(10) ** -48
        assert MP.exp(mpmath.mpf(1)) == mpmath.e
        assert abs(MP.log(mpmath.mpf(8)) - 3 * mpmath.log(2)) < mpmath.mpf(10) ** -48
        assert MP.sqrt(mpmath.mpf(2)) == mpmath.sqrt(2)
    # within numpy's documented accuracy, not correctly rounded: numpy 1.x's AVX-512 log gives
    # log(e) = 1 - 2^-53
    np.testing.assert_array_max_ulp(F64.log(np.array([1.0, math.e])), np.array([0.0, 1.0]), maxulp=4)
    assert F64.exp(0.0) == 1.0


def test_f64_unit_and_zeros():
    assert F64.unit(3, 2).tolist() == [0.0, 0.0, 1.0]
    assert F64.zeros(2).dtype == np.float64 and F64.ones(2).tolist() == [1.0, 1.0]


def test_log_mean_exp_in_mpmath():
    with MP.context():
        v = MP.array([1.0, 3.0])
        got = log_mean_exp(v, MP.scalar(1), MP)
        expected = mpmath.log((mpmath.exp(-1) + mpmath.exp(-3)) / 2)
        assert abs(got - expected) < mpmath.mpf(10) ** -45


def test_softmax_in_mpmath():
    with MP.context():
        p = softmax(MP.array([0.0, mpmath.log(3)]), MP)
        assert abs(p[0] - mpmath.mpf(1) / 4) < mpmath.mpf(10) ** -45
        assert abs(p[1] - mpmath.mpf(3) / 4) < mpmath.mpf(10) ** -45


def test_project_simplex_keeps_dtype_and_clips_below():
    p = project_simplex(np.array([0.9, 0.9, -3.0]), F64)  # tau = 0.4 -> (0.5, 0.5, 0)
    assert p.dtype == np.float64 and p.tolist() == pytest.approx([0.5, 0.5, 0.0], abs=1e-15)


def test_gram_pow4_exponent():
    """Even, exact, and only at extreme scales: 4^-k K has its largest entry in [1/4, 1) unless a
    smaller entry would lose a bit (then only as far as it stays normal)."""
    from reference.arithmetic import gram_pow4_exponent
    assert gram_pow4_exponent(np.array([[3.0, 1e-300], [1e-300, 2.0**60]])) == 0
    k = gram_pow4_exponent(np.array([[1e-310]]))
    assert 0.25 <= np.ldexp(1e-310, -2 * k) < 1
    k = gram_pow4_exponent(np.array([[2.0**1000, 2.0**-1000], [2.0**-1000, 1.0]]))
    assert k == 11 and np.ldexp(2.0**-1000, -2 * k) == 2.0**-1022  # as far as 2^-1000 stays normal
    assert gram_pow4_exponent(np.array([[2.0**1000, 2.0**-1074], [2.0**-1074, 1.0]])) == 0  # a subnormal bit


def test_g_norm_without_ar_is_computed_in_float64():
    """g_norm(G, alpha) without ``ar``: "the norm is computed in float64 and returned as a Python float"
    -- also for mpf arrays and inside a wider mpmath context, where evaluating on the mpf entries would
    round differently (G or alpha not read as float64)."""
    from reference.arithmetic import g_norm

    cases = [(Fraction(575, 10000), Fraction(19, 51)), (Fraction(1, 3), Fraction(1, 31)), (Fraction(7, 11), Fraction(2, 9))]
    with mpmath.workdps(40):
        for c, a in cases:
            cm, am = mpmath.mpf(c.numerator) / c.denominator, mpmath.mpf(a.numerator) / a.denominator
            G = np.array([[mpmath.mpf(1), cm], [cm, mpmath.mpf(1)]], dtype=object)
            p = np.array([am, 1 - am], dtype=object)
            Gf, pf = G.astype(np.float64), p.astype(np.float64)
            expected = float(np.sqrt(pf @ (Gf @ pf)))  # the definition, in float64
            for GG, pp in ((G, p), (G, pf), (Gf, p), (G.tolist(), p.tolist())):
                got = g_norm(GG, pp)
                assert type(got) is float and got == expected, (c, a)


def test_arithmetic_array_in_float64_rounds_everything_to_float64():
    """Arithmetic(None).array: "float64 rounds what is not a float64" -- ints, Fractions and mpf come back
    as a float64 array (np.array(x) without the dtype keeps int64 / object)."""
    from reference.arithmetic import Arithmetic

    ar = Arithmetic(None)
    for x, want in (([1, 2], [1.0, 2.0]), ([Fraction(1, 3)], [1 / 3]), ([mpmath.mpf(2), mpmath.mpf("0.5")], [2.0, 0.5])):
        a = ar.array(x)
        assert a.dtype == np.float64
        np.testing.assert_array_equal(a, want)


def test_mpmath_elementwise_functions_keep_the_element_type_for_every_shape():
    """In mpmath mode arrays are dtype=object arrays of mpf (module docstring); exp / log / sqrt of an
    array keep that, for every shape, the empty one included (kills Arithmetic.exp_5/_7, log_5/_7,
    sqrt_5/_7: without dtype=object an empty result becomes float64)."""
    from reference.arithmetic import Arithmetic

    ar = Arithmetic(30)
    with ar.context():
        for shape in ((0,), (2, 0), (2, 2)):
            v = ar.array(np.full(shape, 4.0))
            for f, val in ((ar.sqrt, mpmath.mpf(2)), (ar.exp, mpmath.exp(4)), (ar.log, mpmath.log(4))):
                out = f(v)
                assert out.dtype == object and out.shape == shape
                assert all(isinstance(x, mpmath.mpf) and x == val for x in out.ravel())


def test_floor_in_mpmath_is_exact_below_an_integer():
    """floor(3 - 10^-25) = 2 at 30 digits (a value float64 cannot hold: it rounds to 3.0); in float64
    floor(2.5) = 2 and floor(-0.5) = -1 (numpy's floor on an mpf goes
    through float64 and gives 3)."""
    from reference.arithmetic import Arithmetic

    ar = Arithmetic(30)
    with ar.context():
        x = mpmath.mpf(3) - mpmath.mpf(10) ** -25
        assert x < 3 and ar.floor(x) == 2 and ar.floor(mpmath.mpf(3)) == 3
    assert (Arithmetic(None).floor(2.5), Arithmetic(None).floor(-0.5), Arithmetic(None).floor(3.0)) == (2, -1, 3)


@pytest.mark.parametrize("shape", [(3, 0), (0, 2), (0, 0)])
def test_scale_rows_pow2_keeps_an_empty_matrix(shape):
    """scale_rows_pow2 multiplies each row by a power of two: a matrix without entries comes back as it
    is, same shape (np.max over an empty axis raises; _40: np.zeros(None)
    raises; _41: np.zeros(A.shape[1]) gives one exponent per column, which does not broadcast)."""
    from reference.arithmetic import scale_rows_pow2

    out = scale_rows_pow2(np.zeros(shape))
    assert out.shape == shape and out.dtype == np.float64


def test_g_norm_upper_bounds_also_a_negative_quadratic_form():
    """For a G with p^T G p < 0 (not PSD: only the verifiers' inputs are), ||p||_G = sqrt(max(p^T G p, 0))
    = 0, and g_norm_upper still returns a number >= 0, not an error (ar.scalar(None) would raise a
    TypeError in the branch where Q + err rounds to <= 0)."""
    from reference.arithmetic import Arithmetic, g_norm, g_norm_upper

    for G, p in ((np.array([[-1.0]]), np.array([1.0])), (np.array([[1.0, -3.0], [-3.0, 1.0]]), np.array([0.5, 0.5]))):
        b = g_norm_upper(G, p, Arithmetic(None))
        assert g_norm(G, p) == 0.0 and b >= 0.0 and np.isfinite(b)


def test_project_simplex_at_an_extreme_scale():
    """Proj(v + t 1_n) = Proj(v): the projection of (t, t) is (1/2, 1/2) and of (t, t - 256) is (1, 0) for
    every t, also t = 2^60 or 1e20, where c_1 - 1 == c_1 in float64 (the unshifted sort method returned
    0_n, off the simplex: the finding behind arithmetic.project_simplex_12/_13); mpmath alike beyond its
    digits, and the compiled engine's copy (p^q_mu with a tiny mu) too."""
    from reference.arithmetic import Arithmetic, project_simplex

    F = Arithmetic(None)
    for t in (2.0**60, 1e20, -1e20, 1e300):
        assert project_simplex(np.array([t]), F).tolist() == [1.0]
        assert project_simplex(np.array([t, t]), F).tolist() == [0.5, 0.5]
        assert project_simplex(np.array([t - abs(t) * 2.0**-40, t, t]), F).tolist() == [0.0, 0.5, 0.5]
    MP = Arithmetic(20)
    with MP.context():
        t = mpmath.mpf(10) ** 30
        p = project_simplex(np.array([t, t, t - t / 10**10], dtype=object), MP)
        assert list(p) == [mpmath.mpf(1) / 2, mpmath.mpf(1) / 2, 0]
    numba = pytest.importorskip("numba")  # noqa: F841
    from reference.fast.rp14_kernels import _project_q

    out = np.empty(3)
    _project_q(np.array([0.5, 0.25, 0.25]), np.array([-1.0, -1.0, 1.0]), 1e-20, out)  # v = q - Ga/mu ~ (1e20, 1e20, -1e20)
    assert out.tolist() == [0.5, 0.5, 0.0]


def test_certificate_verifiers_name_a_negative_entry_and_a_bad_sum():
    """Both certificate verifiers (dense and factored) refuse a p outside the simplex and say why:
    a negative entry, or a sum away from 1 beyond the round-off of p's own arithmetic (for an
    mpf p at 50 digits, 10^-20 off is far beyond 16 n 10^-50)."""
    import scipy.sparse as sp

    from reference.result import verify_certificate, verify_certificate_factored

    ar = Arithmetic(None)
    G = np.eye(2)
    Z = sp.csr_matrix(np.eye(2))
    bad_p = np.array([1.5, -0.5])
    assert verify_certificate(G, bad_p, 1.0, ar) == "p has a negative entry"
    assert verify_certificate_factored(Z, bad_p, 1.0) == "p has a negative entry"
    assert verify_certificate_factored(Z, np.array([0.5, 0.5 + 1e-9]), 1.0).startswith("sum(p) = 1.000000001 is not 1")
    with mpmath.workdps(50):
        p = np.array([mpmath.mpf(1) / 2, mpmath.mpf(1) / 2 + mpmath.mpf(10) ** -20], dtype=object)
        assert verify_certificate_factored(Z, p, 1.0).startswith("sum(p) = ")
        assert verify_certificate_factored(Z, p, 1.0).endswith(" is not 1")


def test_mp_sqrt_keeps_the_shape_of_a_matrix():
    ar = Arithmetic(30)
    with ar.context():
        v = np.array([[mpmath.mpf(4), mpmath.mpf(9)], [mpmath.mpf(16), mpmath.mpf(2)]], dtype=object)
        r = ar.sqrt(v)
        assert r.shape == (2, 2)
        assert r[0, 0] == 2 and r[0, 1] == 3 and r[1, 0] == 4
        assert abs(r[1, 1] ** 2 - 2) < mpmath.mpf(10) ** -29


@pytest.mark.parametrize("dps", [None, 30])
def test_log_mean_exp_closed_forms(dps):
    """mu log((1/n) sum exp(-v_i/mu)): v constant c -> -c; v = (0, mu log 3) -> mu log(2/3)."""
    ar = Arithmetic(dps)
    with ar.context():
        assert log_mean_exp(ar.array([2.0, 2.0, 2.0, 2.0]), ar.scalar(0.5), ar) == -2
        mu = ar.scalar(0.25)
        v = ar.array([0.0, 0.0])
        v[1] = mu * ar.log(ar.scalar(3))  # exp(-v_1/mu) = 1/3
        got = log_mean_exp(v, mu, ar)
        want = mu * ar.log(ar.scalar(2) / 3)  # (1 + 1/3) / 2 = 2/3
        assert abs(got - want) <= (1e-15 if dps is None else mpmath.mpf(10) ** -28)


@pytest.mark.parametrize("dps", [None, 30])
def test_softmax_and_project_simplex_closed_forms(dps):
    ar = Arithmetic(dps)
    with ar.context():
        p = softmax(ar.array([0.0, 0.0, 0.0, 0.0]), ar)
        assert all(x == ar.scalar(0.25) for x in p)
        v = ar.array([0.5, 0.2, -1.0])  # tau = (0.5 + 0.2 - 1) / 2 = -0.15: (0.65, 0.35, 0)
        q = project_simplex(v, ar)
        assert q.dtype == v.dtype and q.shape == (3,)
        assert abs(q[0] - ar.scalar(0.65)) <= 1e-15 and abs(q[1] - ar.scalar(0.35)) <= 1e-15 and q[2] == 0
        w = ar.array([3.0, 0.0])  # far outside: the vertex e_0
        assert [float(x) for x in project_simplex(w, ar)] == [1.0, 0.0]


def test_project_simplex_keeps_the_dtype():
    """float32 in, float32 out (the list comprehension must not widen or narrow the type)."""
    v = np.array([1.0, 0.25, -1.0], dtype=np.float32)  # tau = (1.25 - 1) / 2: (0.875, 0.125, 0)
    q = project_simplex(v, Arithmetic(None))
    assert q.dtype == np.float32 and q.tolist() == [0.875, 0.125, 0.0]


def test_rescale_pow2_and_pow2_exponent():
    """1e300 = m 2^997 with 1/2 <= m < 1 (2^996 < 1e300 < 2^997): scaled exactly into [1/2, 1)."""
    assert pow2_exponent(np.array([1e300, -3.0])) == 997 and pow2_exponent(np.zeros(3)) == 0 and pow2_exponent(np.array([])) == 0
    assert pow2_exponent(np.array([0.75])) == 0 and pow2_exponent(np.array([1.0])) == 1
    A = np.array([[1e300, -2.0], [0.0, 3.0]])
    S, e = rescale_pow2(A)
    assert e == 997 and 0.5 <= np.max(np.abs(S)) < 1
    np.testing.assert_array_equal(np.ldexp(S, e), A)  # exact
    tiny = np.array([2.0**-100, 2.0**-101])
    S, e = rescale_pow2(tiny)
    assert e == -99 and S.tolist() == [0.5, 0.25]
    ordinary = np.array([1e10, 1.0])
    S, e = rescale_pow2(ordinary)
    assert e == 0 and S is ordinary
    S, e = rescale_pow2(np.array([2.0**63]))  # e = 64: outside [-64, 64)
    assert e == 64 and S.tolist() == [0.5]
    S, e = rescale_pow2(np.array([2.0**-65]))  # e = -64: inside
    assert e == 0
    M = np.array([mpmath.mpf(10) ** 400], dtype=object)
    S, e = rescale_pow2(M)
    assert S is M and e == 0  # mpmath: no overflow, left alone


@pytest.mark.parametrize("bad", [5, 15, 1001, True, 20.0, "30"])
def test_arithmetic_precision_errors_in_full(bad):
    with pytest.raises(ValueError) as err:
        arithmetic(bad)
    assert str(err.value) == (
        "precision must be None (float64) or an integer number of decimal digits from 16 (float64 carries about 16) "
        f"to 1000, got {bad!r}; pass e.g. precision=50"
    )


@pytest.mark.parametrize("good", [16, 1000, np.int64(50)])
def test_arithmetic_precision_bounds_are_inclusive(good):
    ar = arithmetic(good)
    assert ar.dps == int(good) and type(ar.dps) is int and ar.label == f"mpmath, {int(good)} decimal digits"
    assert arithmetic(None).label == "float64" and arithmetic(None).eps == 2.0**-52 and arithmetic(None).u == 2.0**-53


def test_arithmetic_helpers_closed_forms():
    ar, mp = Arithmetic(None), Arithmetic(30)
    assert gamma(3, ar) == 3 * 2.0**-53 / (1 - 3 * 2.0**-53)
    with mp.context():
        assert gamma(2, mp) == 2 * mpmath.mpf(10) ** -30 / (1 - 2 * mpmath.mpf(10) ** -30)
        assert mp.eps == mp.u == mpmath.mpf(10) ** -30
        e = mp.unit(3, 1)
        assert e.dtype == object and [float(v) for v in e] == [0.0, 1.0, 0.0]
        assert all(v == mpmath.mpf(1) / 4 for v in mp.uniform(4))
        assert mp.floor(mpmath.mpf("2.5")) == 2 and mp.floor(mpmath.mpf("-2.5")) == -3
        m = mp.array([[1, 2], [3, 4]])
        assert m.shape == (2, 2) and mp.exp(mp.array([0.0, 0.0])).tolist() == [1, 1]
        lg = mp.log(mp.array([[1.0, 4.0]]))
        assert lg.shape == (1, 2) and lg[0, 0] == 0 and abs(lg[0, 1] - 2 * mpmath.log(2)) < mpmath.mpf(10) ** -29
        assert mp.array([Fraction(1, 3)])[0] == mpmath.mpf(1) / 3 and mp.array([np.int64(2**62)])[0] == 2**62
    assert ar.floor(2.5) == 2 and ar.floor(-2.5) == -3 and ar.unit(2, 0).tolist() == [1.0, 0.0] and ar.uniform(2).tolist() == [0.5, 0.5]
    assert to_float(mpmath.mpf(1) / 4) == 0.25 and to_float(np.array([mpmath.mpf(2)], dtype=object)).dtype == np.float64


def test_g_norm_and_rigorous_quadratic_form():
    G = np.array([[1.0, -0.5], [-0.5, 1.0]])
    assert g_norm(G, [0.5, 0.5]) == 0.5  # sqrt(1/4)
    assert g_norm(-np.eye(2), [1.0, 0.0]) == 0.0  # a negative form is clipped to 0, not NaN
    Q, err = quadratic_form(G, np.array([0.5, 0.5]), Arithmetic(None))
    assert Q == 0.25 and 0 < err <= 1e-14
    # |p|^T |G| |p| = 0.75 and |p|^T |G p| = 0.25: err = 2 gamma_{n+2} (0.75 + 0.25) + (4n + 4) UNDERFLOW, n = 2
    assert err == 2 * gamma(4, Arithmetic(None)) * 1.0 + 12 * UNDERFLOW
    up = g_norm_upper(G, np.array([0.5, 0.5]), Arithmetic(None))
    assert 0.5 <= up <= 0.5 * (1 + 1e-14)
    assert g_norm_upper(np.zeros((2, 2)), np.array([0.5, 0.5]), Arithmetic(None)) == np.sqrt(12 * UNDERFLOW) * (1 + 4 * 2.0**-53)
    assert np.isnan(g_norm_upper(np.array([[np.nan]]), np.array([1.0]), Arithmetic(None)))
    mp = Arithmetic(30)
    with mp.context():
        assert g_norm_upper(mp.array(np.zeros((1, 1))), mp.array([1.0]), mp) == 0


def test_scale_rows_pow2_dense_and_sparse():
    """Each row times the power of two bringing its largest |entry| into [1/2, 1); zero rows stay 0."""
    A = np.array([[3.0, -1.0], [0.0, 0.0], [1e-200, 2e-200], [1e200, 0.0]])
    S = scale_rows_pow2(A)
    np.testing.assert_array_equal(S[0], [0.75, -0.25])
    np.testing.assert_array_equal(S[1], [0.0, 0.0])
    for i in (2, 3):
        assert 0.5 <= np.max(np.abs(S[i])) < 1 and S[i][0] / A[i][0] == np.max(np.abs(S[i])) / np.max(np.abs(A[i]))
    Ss = scale_rows_pow2(sp.csr_matrix(A))
    assert sp.issparse(Ss) and Ss.format == "csr"
    np.testing.assert_array_equal(Ss.toarray(), S)


def test_compiled_mu_plus_is_the_textbook_root_bit_for_bit():
    """pt11_kernels._mu_plus promises reference.dynamic_margin.pdm_mu_plus / pfm_mu_plus: the same
    formulas in the same order, so the same float64 bits, on both branches of each (B > 0 or not
    for PDM; q > beta^2 or not, and a positive or clamped discriminant, for PFM)."""
    from reference.arithmetic import Arithmetic
    from reference.dynamic_margin import pdm_mu_plus, pfm_mu_plus
    from reference.fast import pt11_kernels as K

    FLOAT64 = Arithmetic(None)
    rng = np.random.default_rng(7)
    seen = set()
    for _ in range(400):
        t = int(rng.integers(1, 50))
        q = float(rng.uniform(0.1, 4.0))
        ell = float(rng.uniform(0.0, 9.0))
        p = float(rng.uniform(-3.0, 3.0))
        eps = float(rng.uniform(0.01, 0.99))
        ok, mu = K._mu_plus(K.PDM_KIND, eps, p, q, ell, t)
        assert ok and mu == pdm_mu_plus(eps, p, q, ell, t, FLOAT64), (eps, p, q, ell, t)
        seen.add(("pdm", t * q + (2 * eps - 1) * p > 0))
        beta = float(rng.uniform(0.05, 2.5))
        ok, mu = K._mu_plus(K.PFM_KIND, beta, p, q, ell, t)
        want = pfm_mu_plus(beta, p, q, ell, t, FLOAT64)
        if want is None:
            assert not ok, (beta, q)
        else:
            assert ok and mu == want, (beta, p, q, ell, t)
        seen.add(("pfm", want is None, q * ell - p * p > 0))
    # q = beta^2 exactly (s = 0): lambda unbounded, no root
    assert pfm_mu_plus(0.5, 0.25, 0.25, 1.0, 3, FLOAT64) is None
    assert not K._mu_plus(K.PFM_KIND, 0.5, 0.25, 0.25, 1.0, 3)[0]
    # every branch was exercised
    assert {("pdm", True), ("pdm", False), ("pfm", True, True), ("pfm", False, True), ("pfm", False, False)} <= seen, seen


def test_row_pow2_exponents_of_an_int64_row_reads_it_as_float64():
    # without dtype=float64 the int64
    # row's |-2^63| wraps to -2^63 and its largest |entry| is lost.  max |A_k.| = 2^63 = (1/2) 2^64.
    A = np.array([[-(2**63), 1], [3, -4]], dtype=np.int64)
    assert row_pow2_exponents(A).tolist() == [64, 3]
    assert row_pow2_exponents([[-(2**63), 1]]).tolist() == [64]


@pytest.mark.parametrize(
    "K, limit",
    [
        # largest 2^1000 (e = 1001, k = 501 wanted); smallest (1 + 2^-52) 2^-101, f = -100 even:
        # k = 460 keeps it at (1 + 2^-52) 2^-1021, one more step makes it subnormal and drops its last bit
        (np.array([[2.0**1000, (1 + 2.0**-52) * 2.0**-101], [(1 + 2.0**-52) * 2.0**-101, 2.0**1000]]), 64),
        # limit = 1: 2 = 2^-1 2^2 is already "huge" (e = 2, k = 1), but 2^-1022 allows no step down
        (np.array([[2.0, 2.0**-1022], [2.0**-1022, 2.0]]), 1),
        (np.array([[2.0, (1 + 2.0**-52) * 2.0**-1021], [(1 + 2.0**-52) * 2.0**-1021, 2.0]]), 1),
    ],
)
def test_gram_pow4_exponent_keeps_the_smallest_entry_normal(K, limit):
    """The docstring: a huge K is scaled down only as far as its smallest nonzero |entry| stays normal
    (>= 2^-1022), so no bit is lost; and as far as that allows (largest |entry| into [1/4, 1) if it can).
    The broken variants it catches: ((f + 1022) // 2: one step too far for even f)
    and _14 (`k > 1`: k = 1 skips the clamp; reached with limit <= 2)."""
    k = gram_pow4_exponent(K, limit=limit)
    S = np.ldexp(K, -2 * k)
    a = np.abs(K[K != 0])
    assert np.min(np.abs(S[S != 0])) >= 2.0**-1022
    assert np.array_equal(np.ldexp(S, 2 * k), K)  # no bit lost
    # and it goes as far as allowed: one more power of four would take the smallest entry below 2^-1022,
    # or the largest already lies in [1/4, 1)
    assert np.min(a) * 4.0 ** -(k + 1) < 2.0**-1022 or 0.25 <= np.max(a) * 4.0**-k < 1


def test_huge_gram_matrix_scaled_only_by_4_keeps_finite_tight_bounds():
    """K = diag(max float, 2^-1019): scaling down is limited by the small entry (it must stay
    normal), to k = 1.  On 4^-1 K the quadratic form of p = (1 - 2^-53, 0) and its allowance stay
    finite, so upper_bound states ||p||_K / 1^T p = sqrt(K_11) up to its round-off (unscaled, they
    overflow: no claim)."""
    K, p = np.diag([np.finfo(np.float64).max, 2.0**-1019]), np.array([1 - 2.0**-53, 0.0])
    assert gram_pow4_exponent(K) == 1
    ub = upper_bound(K, p)
    assert ub < math.inf and _upper_holds(K, p, ub)
    assert ub <= math.sqrt(np.finfo(np.float64).max) * (1 + 1e-13)


def test_bounds_scaled_back_by_2_stay_tight():
    """K = diag(2^-1019, 2^102): k = 1 (limited by the small entry), so the bounds of 4^-1 K are
    doubled on the way back.  p = e_1: ||p||_K / 1^T p = 2^-509.5 exactly; alpha = (1/2, 2^-1074):
    min(K alpha) = 2^-1020, ||alpha||_K^2 = 2^-1021 + 2^-2046, quotient just below 2^-509.5.  Both
    bounds on the right side and within the relative round-off of a 2 x 2 matrix (1e-13)."""
    K, T = np.diag([2.0**-1019, 2.0**102]), 2.0**-509.5
    assert gram_pow4_exponent(K) == 1
    p, alpha = np.array([1.0, 0.0]), np.array([0.5, ETA])
    ub, lb = upper_bound(K, p), lower_bound(K, alpha)
    assert _upper_holds(K, p, ub) and T <= ub <= T * (1 + 1e-13)
    assert _lower_holds(K, alpha, lb) and T * (1 - 1e-13) <= lb <= T


def test_witness_whose_products_overflow_with_both_signs_gives_no_claim_and_no_warning():
    """K = [[2^100, -2^100, 0], [-2^100, 2^100, 0], [0, 0, 2^-1022]] (not scalable: its small entry
    must stay normal), p = (2^1000, 2^1000, 2^-1074) (not scalable: its small entry would vanish):
    (K p)_1 = 2^1100 - 2^1100 is inf - inf = nan in float64 -- a handled case: no RuntimeWarning,
    and the upper bound is +inf (no claim), never 0 or nan; the same vector as alpha gives -inf."""
    K = np.array([[2.0**100, -(2.0**100), 0.0], [-(2.0**100), 2.0**100, 0.0], [0.0, 0.0, 2.0**-1022]])
    v = np.array([2.0**1000, 2.0**1000, ETA])
    assert gram_pow4_exponent(K) == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert upper_bound(K, v) == math.inf
        assert lower_bound(K, v) == -math.inf


@pytest.mark.parametrize(
    "a, e",
    [
        (np.array([-(2**63)], dtype=np.int64), 64),  # |a| = 2^63 = (1/2) 2^64; int64 abs would wrap to -2^63
        (np.array([3, -128], dtype=np.int8), 8),  # |-128| = 128 = (1/2) 2^8; int8 abs wraps to -128
        ([0.75, -(2**63)], 64),
    ],
)
def test_pow2_exponent_of_integer_arrays_at_the_wrap_of_abs(a, e):
    """max|a| = m 2^e with 1/2 <= m < 1 for the values a holds, also where the integer type's own
    abs() overflows (the most negative integer): the entries are read as real numbers."""
    assert pow2_exponent(a) == e
    top = max(abs(Fraction(int(v)) if isinstance(v, (int, np.integer)) else Fraction(v)) for v in np.ravel(a))
    assert Fraction(1, 2) <= top / Fraction(2) ** e < 1


def test_scale_rows_pow2_sparse_path_is_exact_for_rows_below_2_to_the_minus_1024():
    """Every row times the power of two bringing its largest |entry| into [1/2, 1), exactly, on
    both paths -- also a row whose largest entry is 2^-1070 (its factor 2^1069 is not a float64).
    [Bug found here: the CSR path multiplied by the factor np.ldexp(1, -e) itself, which overflows
    to inf for e <= -1024, and returned -inf for the entry -2^-1070.]"""
    A = np.array([[0.25, 2.0**-1070], [0.0, -(2.0**-1070)], [0.0, 2.0**-1020], [0.0, 0.0], [1e308, -1e308]])
    dense = scale_rows_pow2(A)
    sparse = scale_rows_pow2(sp.csr_matrix(A))
    assert sp.issparse(sparse) and sparse.format == "csr" and sparse.dtype == np.float64
    np.testing.assert_array_equal(sparse.toarray(), dense)
    for i in range(A.shape[0]):
        assert _is_row_power_of_two_multiple(dense[i], A[i]), (i, dense[i])
    assert dense[1, 1] == -0.5 and dense[0, 1] == 2.0**-1069
    # a CSR matrix with duplicate entries stands for their sum: (1) + (-3) = -2 in the first place
    D = sp.csr_matrix((np.array([1.0, -3.0, 1.0]), np.array([0, 0, 1]), np.array([0, 3])), shape=(1, 2))
    np.testing.assert_array_equal(scale_rows_pow2(D).toarray(), [[-0.5, 0.25]])


def test_scale_rows_pow2_sparse_path_reads_a_longdouble_matrix_as_float64():
    """Both paths read A as float64 (the dense one by np.asarray(A, float64)): a row whose largest
    entry is 1 - 2^-60 in long double (1.0 once read as float64) becomes 1/2 on both, in float64.
    [Bug found by mutation testing of _exponents: the CSR path kept the long doubles and took the
    exponent of the rounded maximum, leaving (1 - 2^-60) / 2 < 1/2.]"""
    t = np.longdouble(1) - np.longdouble(2) ** -60
    if t == 1:  # long double is float64 on this platform: nothing to distinguish
        pytest.skip("numpy.longdouble has no more precision than float64 here")
    A = np.array([[t, 0.25], [3, 0]], dtype=np.longdouble)
    dense = scale_rows_pow2(A)
    sparse = scale_rows_pow2(sp.csr_matrix(A))
    assert dense.dtype == np.float64 and sparse.dtype == np.float64
    expected = np.array([[0.5, 0.125], [0.75, 0.0]])
    np.testing.assert_array_equal(dense, expected)
    np.testing.assert_array_equal(sparse.toarray(), expected)


def test_scale_rows_pow2_sparse_is_the_dense_scaling():
    from reference.arithmetic import scale_rows_pow2

    A = np.array([[1e300, 3.0, 0.0], [0.0, 0.0, 0.0], [1e-300, -2e-300, 0.0], [0.75, 0.0, -0.5]])
    S = scale_rows_pow2(sp.csr_matrix(A))
    assert sp.issparse(S) and np.array_equal(S.toarray(), scale_rows_pow2(A))
    assert np.array_equal(S.toarray()[3], A[3])  # largest entry already in [1/2, 1): untouched


def test_g_norm_of_a_nan_vector_is_nan_not_zero():
    """max(alpha^T G alpha, 0) turned a NaN form into ||alpha||_G = 0 -- a norm below any accuracy
    for a vector that is no vector (None entries read as NaN)."""
    import math

    import reference

    G = np.array([[1.0, 0.5], [0.5, 1.0]])
    assert math.isnan(reference.g_norm(G, np.array([np.nan, 0.5])))
    assert math.isnan(reference.g_norm(G, [None, None]))
    assert math.isnan(reference.g_norm(np.array([[np.nan, 0.0], [0.0, 1.0]]), np.array([0.5, 0.5])))
    assert reference.g_norm(G, np.array([1.0, -1.0])) == 1.0  # sqrt(1 - 1 + 1)
    assert reference.g_norm(np.array([[1.0, -1.0], [-1.0, 1.0]]), np.array([0.5, 0.5])) == 0.0
