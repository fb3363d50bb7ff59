"""Tests of reference/margins/matrix.py: the matrix a certificate is about -- K exactly as stored.

In float64 an entry float64 cannot hold is refused by every certifying function (the certificates
would be about the rounded matrix); at D digits exact ints and binary Fractions are kept exact; an
asymmetric pair is averaged, a symmetric one kept as stored; integer arrays beyond 2^53 are read as
their Python ints.  The rules are observed through the public functions that apply them.
"""

from __future__ import annotations

import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import reference as ref
from reference import verify_margin_exact
from reference.exact import rational
from reference.margins import bounds, driver, lower_bound, margin, matrix, min_norm_point, search, upper_bound
from tests.support.margin import A, _obj, _q_2


REFUSAL = (
    "K has entries that float64 cannot hold (K[{ij}] = {v} rounds to {f!r}), and with precision=None the "
    "certificates are evaluated in float64 -- on the rounded matrix, not on K as stored; pass precision=D (the "
    "digits K was built at), or round K to float64 yourself (np.asarray(K, dtype=float)) to get the interval "
    "of the rounded matrix"
)


# K = [[2, b], [b, 2]] with b not a float64: PSD (|b| < 2); the first entry float64 cannot hold is K[0, 1]
UNHELD = [
    (Fraction(1, 3), "1/3"),  # a Fraction (rational() would round it: it must be compared as it is)
    (2**60 + 1, str(2**60 + 1)),  # a Python int beyond 2^53
]


K_INT = np.array([[A, -A + 1], [-A + 1, A]], dtype=np.int64)  # PD: eigenvalues 2A - 1 and 1


def _fine_gram():
    with mpmath.workdps(40):
        off = mpmath.mpf(-1) + mpmath.mpf(10) ** -30
        return np.array([[mpmath.mpf(1), off], [off, mpmath.mpf(1)]], dtype=object)


def test_precision_symmetrizes_K_exactly():
    """check_gram allows 1e-10 asymmetry; at D digits K is replaced by (K + K^T) / 2 exactly, for
    every pair i < j (the neighbours j = i + 1 included)."""
    n = 4
    K = 4.0 * np.eye(n)
    asym = {}
    for i in range(n):
        for j in range(i + 1, n):
            a = 0.25 * (i + j) / n
            K[i, j], K[j, i] = a, a + 2.0**-40 * (1 + i)  # dyadic: the mean is exact in float64
            asym[i, j] = (K[i, j] + K[j, i]) / 2
    Kf, Km, ar = matrix._prepare(K, 40)
    with ar.context():
        for (i, j), mean in asym.items():
            assert Km[i, j] == Km[j, i] == mpmath.mpf(mean), (i, j)
    # and the certified margin is the one of the symmetrized matrix
    S = K.copy()
    for (i, j), mean in asym.items():
        S[i, j] = S[j, i] = mean
    a, b = margin(K, precision=40), margin(S, precision=40)
    assert (a.lower, a.upper, a.value) == (b.lower, b.upper, b.value)


@pytest.mark.parametrize("precision", [None, 30])
def test_asymmetric_k_is_replaced_by_the_average_of_its_pairs(precision):
    """K = [[2, 1 + 2^-40], [1, 2]] passes check_gram's symmetry test (|K_12 - K_21| = 2^-40 <=
    1e-10 max|K|) and is read as its symmetric part, whose off-diagonal (1 + 2^-40)/2 + 1/2 =
    1 + 2^-41 is exact: the answer is that of K_sym = [[2, c], [c, 2]], c = 1 + 2^-41, field by field.
    Closed form: two points of norm^2 2 and inner product c, p* = (1/2, 1/2) by symmetry, so
    m(K_sym)^2 = (2 + c) / 2 [RP14 Lemma 3].  Mutants of the average (a/2 - b/2, a/3 + b/2,
    a/2 + b/3): the off-diagonal becomes ~0 or ~5/6, and m^2 moves to ~1 or ~1.42 (from 1.5)."""
    c = 1 + 2.0**-41
    K_asym = np.array([[2.0, 1 + 2.0**-40], [1.0, 2.0]])
    K_sym = np.array([[2.0, c], [c, 2.0]])
    assert (1 + 2.0**-40) / 2 + 1.0 / 2 == c  # the average is exact in float64
    m, ms = driver.margin(K_asym, precision=precision), driver.margin(K_sym, precision=precision)
    assert (m.value, m.lower, m.upper, m.feasible) == (ms.value, ms.lower, ms.upper, ms.feasible)
    m2 = (2 + Fraction(c)) / 2
    assert m.feasible is True and 0 < _q_2(m.lower) ** 2 <= m2 <= _q_2(m.upper) ** 2
    assert verify_margin_exact(m, K_sym) == ""


def test_mpf_k_that_float64_cannot_hold_is_refused_in_float64_mode():
    """Regression (bug found here): K = [[1, -1 + 10^-20], [-1 + 10^-20, 1]] at 40 digits is the Gram
    matrix of two unit vectors at angle just below pi: separable, m = sqrt(10^-20 / 2) ~ 7.07e-11
    (p* = (1/2, 1/2)) [RP14 Lemma 3].  With precision=None, margin() rounded K to float64 (K_12 =
    -1, the pair z, -z) and certified feasible=False, upper = -1 < 0 < m -- a false claim about K as
    stored, refuted by verify_margin_exact.  Now a ValueError naming precision and the fix; with
    precision=30 the interval holds m.  lower_bound / upper_bound (same float64 certificates) refuse
    too; an object K that float64 holds exactly keeps working, as does min_norm_point (an estimate)."""
    import mpmath

    with mpmath.workdps(40):
        d = mpmath.mpf("1e-20")
        K = np.array([[mpmath.mpf(1), -1 + d], [-1 + d, mpmath.mpf(1)]], dtype=object)
        m2 = rational(d) / 2  # exact m^2 of K as stored
    for call in (lambda: driver.margin(K), lambda: bounds.lower_bound(K, [1, 1]), lambda: bounds.upper_bound(K, [1, 1])):
        with pytest.raises(ValueError, match=r"K has entries that float64 cannot hold \(K\[0, 1\] = .* rounds to -1\.0\)") as err:
            call()
        assert "pass precision=D" in str(err.value) and "np.asarray(K, dtype=float)" in str(err.value)
    m = driver.margin(K, precision=30)
    assert m.feasible is True and _q_2(m.lower) ** 2 <= m2 <= _q_2(m.upper) ** 2
    assert verify_margin_exact(m, K) == ""
    assert search.min_norm_point(K).p.tolist() == [0.5, 0.5]  # on the rounded K: an estimate, not refused
    Kx = np.array([[mpmath.mpf(1), mpmath.mpf(-0.5)], [mpmath.mpf(-0.5), 1]], dtype=object)  # exact in float64
    mx = driver.margin(Kx)
    assert mx.feasible is True and _q_2(mx.lower) ** 2 <= Fraction(1, 4) <= _q_2(mx.upper) ** 2


@pytest.mark.parametrize("b, shown", UNHELD)
@pytest.mark.parametrize("call", ["margin", "lower_bound", "upper_bound"])
def test_certifying_functions_refuse_an_object_k_float64_cannot_hold(b, shown, call):
    K = _obj(2, b, 2) if not isinstance(b, int) else _obj(2**62, b, 2**62)
    assert Fraction(b) != Fraction(float(b))  # float64 rounds it
    msg = REFUSAL.format(ij="0, 1", v=shown, f=float(b))
    fn = {"margin": lambda: margin(K), "lower_bound": lambda: lower_bound(K, [1.0, 1.0]), "upper_bound": lambda: upper_bound(K, [1.0, 1.0])}[call]
    with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
        fn()


def test_an_int64_k_beyond_2_53_is_refused_like_its_python_ints():
    K = np.array([[2**62, 2**60 + 1], [2**60 + 1, 2**62]], dtype=np.int64)
    msg = REFUSAL.format(ij="0, 1", v=str(2**60 + 1), f=float(2**60 + 1))
    with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
        margin(K)


@pytest.mark.parametrize(
    "entries",
    [
        (Fraction(2), Fraction(1, 2), Fraction(2)),  # Fractions float64 holds
        (2, 1, 3),  # Python ints
        (mpmath.mpf(2), mpmath.mpf(0.5), mpmath.mpf(2)),  # mpf entries float64 holds
        (np.float64(2.0), np.float64(-0.25), np.float64(1.0)),
    ],
)
def test_an_object_k_float64_holds_is_certified_as_its_float64_copy(entries):
    """Held exactly, an object K is the float64 matrix: margin, lower_bound and upper_bound give the
    bit-identical answers of np.asarray(K, dtype=float) (no refusal, nothing rounded)."""
    K = _obj(*entries)
    Kf = np.array([[float(v) for v in row] for row in K])
    m, mf = margin(K), margin(Kf)
    assert (m.lower, m.upper, m.feasible) == (mf.lower, mf.upper, mf.feasible)
    assert lower_bound(K, [1.0, 2.0]) == lower_bound(Kf, [1.0, 2.0])
    assert upper_bound(K, [1.0, 2.0]) == upper_bound(Kf, [1.0, 2.0])


def test_an_mpf_k_float64_holds_is_accepted_whatever_mpmaths_working_precision():
    """K_12 = 1 + 2^-40 is a float64 (and an mpf of 41 bits).  With precision=None the check "float64
    holds K as stored" is exact (rationals), so it does not depend on the caller's mpmath context: at
    mp.prec = 20 the entry is still accepted, and the answer is the one of the float64 matrix
    (an mpf compared with the float's Fraction would round the Fraction to 20 bits: 1 != 1 + 2^-40)."""
    b = 1 + 2.0**-40
    with mpmath.workprec(60):
        K = _obj(mpmath.mpf(2), mpmath.mpf(b), mpmath.mpf(2))
    Kf = np.array([[2.0, b], [b, 2.0]])
    with mpmath.workprec(20):
        m = margin(K)
        lb = lower_bound(K, [1.0, 1.0])
    mf = margin(Kf)
    assert (m.lower, m.upper, m.feasible) == (mf.lower, mf.upper, mf.feasible)
    assert lb == lower_bound(Kf, [1.0, 1.0])
    # and the interval holds the exact margin sqrt((2 + b) / 2) of K = [[2, b], [b, 2]]
    m2 = (2 + Fraction(b)) / 2
    assert rational(m.lower) ** 2 <= m2 <= rational(m.upper) ** 2


def test_margin_of_an_int64_gram_beyond_float64_is_not_a_claim_about_the_rounding():
    """float64 reads -A + 1 as -A: the pair z, -z, infeasible.  Before: feasible=False, upper ~ -1e9,
    refuted by alpha = (1/2, 1/2): (K alpha)_i = 1/2, alpha^T K alpha = 1/2, so m(K) >= 1/sqrt(2)."""
    half = [Fraction(1, 2)] * 2
    Ka = [sum(int(K_INT[i, j]) * half[j] for j in range(2)) for i in range(2)]
    assert Ka == [Fraction(1, 2)] * 2 and sum(h * k for h, k in zip(half, Ka)) == Fraction(1, 2)
    with pytest.raises(ValueError, match=r"K has entries that float64 cannot hold \(K\[0, 1\] = -1152921504606846975 "):
        ref.margin(K_INT)
    with pytest.raises(ValueError, match="float64 cannot hold"):
        lower_bound(K_INT, np.array([0.5, 0.5]))
    for K in (K_INT, K_INT.tolist()):
        m = ref.margin(K, precision=40)
        assert m.feasible is True and ref.verify_margin_exact(m, K_INT) == ""
        lo2, up2 = ref.exact.rational(m.lower) ** 2, ref.exact.rational(m.upper) ** 2
        assert lo2 <= Fraction(1, 2) <= up2 and up2 - lo2 < Fraction(1, 10**18)  # m(K) = 1/sqrt(2); allowance ~ 10^-40 max|K|


def test_margin_of_a_small_int_gram_is_unchanged():
    """Integers float64 holds are read as before (no object array, same floats)."""
    K = np.array([[4, -2], [-2, 4]])
    a, b = ref.margin(K), ref.margin(K.astype(float))
    assert (a.lower, a.upper, a.feasible) == (b.lower, b.upper, b.feasible) and np.array_equal(a.alpha, b.alpha)


def test_margin_at_fewer_digits_than_k_certifies_k_as_stored():
    """K_12 = -1 + 10^-30 (40 digits), margin at 20 digits: the symmetrization (a + a) / 2 rounded
    K_12 to -1 before, and the certificate was about z, -z (feasible=False, upper = -1, refuted
    exactly).  Now the symmetric entries are kept: m(K) = sqrt(10^-30 / 2) is bracketed."""
    K = _fine_gram()
    m = ref.margin(K, precision=20)
    assert ref.verify_margin_exact(m, K) == ""
    assert m.lower > 0 and m.feasible is True


def test_float64_refusal_of_an_mpf_k_shows_the_entry_in_full():
    """The message showed K[0, 1] = -1.0 (mpf's 15-digit str) for -1 + 10^-30."""
    with pytest.raises(ValueError, match=r"K\[0, 1\] = -0\.99999999999999999999999999999"):
        ref.margin(_fine_gram())


def test_margin_at_d_digits_keeps_python_ints_wider_than_d_digits():
    """K = [[A, -A + 1], [-A + 1, A]] with A = 2^200 (Python ints): at 30 digits ar.array read -A + 1
    as -A (z, -z) and the claim was feasible=False, upper ~ -1.3e30, refuted by alpha = (1/2, 1/2)."""
    a = 2**200
    K = np.array([[a, -a + 1], [-a + 1, a]], dtype=object)
    m = ref.margin(K, precision=30)
    assert ref.verify_margin_exact(m, K) == ""
    assert m.feasible is True and ref.exact.rational(m.lower) ** 2 <= Fraction(1, 2) <= ref.exact.rational(m.upper) ** 2


def test_margin_at_d_digits_keeps_a_binary_fraction_and_refuses_one_no_mpf_holds():
    """K_12 = -1 + 2^-140 as a Fraction: at 30 digits it was rounded to -1 (feasible=False, upper =
    -1: a false claim the verifier could not see, since it rounded the Fraction too).  Now it is
    exact (m(K) = sqrt(2^-141) ~ 6.0e-22 is bracketed); -1 + 10^-40 has no binary value: refused."""
    off = Fraction(-1) + Fraction(1, 2**140)
    K = np.array([[Fraction(1), off], [off, Fraction(1)]], dtype=object)
    for D in (30, 50):
        m = ref.margin(K, precision=D)
        assert ref.verify_margin_exact(m, K) == "" and m.feasible is True
        assert ref.exact.rational(m.lower) ** 2 <= Fraction(1, 2**141) <= ref.exact.rational(m.upper) ** 2
    off = Fraction(-1) + Fraction(1, 10**40)
    K = np.array([[Fraction(1), off], [off, Fraction(1)]], dtype=object)
    with pytest.raises(ValueError, match=r"K\[0, 1\] = .* is not a binary number m 2\^e.*precision=30"):
        ref.margin(K, precision=30)


def test_min_norm_point_accepts_an_mpf_gram_matrix_that_float64_rounds():
    """min_norm_point is an estimate (no certificate): with precision=None an mpf K is rounded to float64
    (docstring: float64 or mpf entries), unlike lower_bound / upper_bound / margin, which refuse it.
    K = [[1, -1 + 1e-20], [-1 + 1e-20, 1]] (two points z, -z + tiny) rounds to [[1, -1], [-1, 1]], whose
    min-norm point is (1/2, 1/2) with norm 0; at 30 digits the same p has ||p||_K^2 = (1 + K_12) / 2 ~ 5e-21.  Mutants ``as_stored=True`` / default: a ValueError for the float64 call."""
    with mpmath.workdps(30):
        one, t = mpmath.mpf(1), mpmath.mpf("1e-20")
        K = np.array([[one, -one + t], [-one + t, one]], dtype=object)
    r = min_norm_point(K)
    assert [float(v) for v in r.p] == [0.5, 0.5] and r.norm == 0.0 and r.precision == "float64"
    with pytest.raises(ValueError, match="precision=D"):
        bounds.lower_bound(K, np.array([1.0, 0.0]))  # the certifying functions do refuse it
    r30 = min_norm_point(K, precision=30)
    q = (1 + rational(K[0, 1])) / 2  # ||p||_K^2 of p = (1/2, 1/2) on K as stored (K_12 = -1 + 1e-20 at 30 digits)
    assert [rational(v) for v in r30.p] == [Fraction(1, 2)] * 2
    assert abs(rational(r30.norm) ** 2 - q) <= q * Fraction(1, 10**25)


@pytest.mark.parametrize("b", [Fraction(2**60 + 1, 2**60), 2**60 + 1])
def test_the_refused_object_k_is_accepted_at_d_digits_and_by_min_norm_point(b):
    """The fix the message names works: at precision=30 the same K is accepted (K as stored: 1 + 2^-60
    and 2^60 + 1 are binary numbers of 61 bits) and its interval holds the exact margin; min_norm_point (an
    estimate, no certificate) reads the rounded K in float64 mode without refusing it.
    K = [[a, b], [b, a]], 0 < b < a: p* = (1/2, 1/2), m = sqrt((a + b) / 2), so lower^2 <= (a + b) / 2 <= upper^2."""
    a = 2 if isinstance(b, Fraction) else 2**62
    K = _obj(a, b, a)
    m2 = (Fraction(a) + Fraction(b)) / 2
    m = margin(K, precision=30)
    assert m.feasible is True
    lo = rational(m.lower)
    up = rational(m.upper)
    assert 0 < lo and lo * lo <= m2 <= up * up
    assert (up - lo) / lo < Fraction(1, 10**20)  # the 30-digit interval, not the float64 one
    assert lower_bound(K, [1.0, 1.0], precision=30) > 0 and upper_bound(K, [1.0, 1.0], precision=30) > 0
    mnp = min_norm_point(K)
    assert list(mnp.p) == [0.5, 0.5]
