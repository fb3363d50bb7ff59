"""Kills for the session-9 re-census 4 survivors (benchmarks/mutation/recensus9b_entry.md) in
reference.exact.verify_exact (its ``rho=``, the length check and its fixes) and reference.margin's
``_prepare`` / ``margin`` (the refusal of an object K that float64 cannot hold, the crossed-bounds
message).  Every claim is decided by hand in exact rationals (fractions.Fraction) or is the
message contract: the argument's name and the fix, word for word."""

from __future__ import annotations

import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import reference as ref
from reference.exact import GRAM_ALGORITHMS, PRIMAL_ALGORITHMS, rational
from reference.margin import lower_bound, margin, min_norm_point, upper_bound
from reference.result import Result

PERCEPTRONS = ("perceptron", "normalized_perceptron")

# X = (1, 0), (2, 0), labels (1, -1): separable only through the bias.  With rho the patterns are
# y_i [x_i, rho] = [1, 0, rho] and [-2, 0, -rho]; w = (-1, 0, c) gives the margins c rho - 1 and
# 2 - c rho, both > 0 exactly iff 1 < c rho < 2.
X2 = np.array([[1.0, 0.0], [2.0, 0.0]])
Y2 = np.array([1, -1])


def _sep(name, w, **info):
    return Result(algorithm=name, status="separator", iterations=1, w=np.array(w, dtype=float), info=info)


def _margins(w, rho):
    """y_i <w, [x_i, rho]> in rationals (the claim verify_exact decides)."""
    w = [Fraction(v) for v in w]
    return [int(yi) * (sum(Fraction(a) * b for a, b in zip(xi, w[:-1])) + w[-1] * Fraction(rho)) for xi, yi in zip(X2, Y2)]


# -- verify_exact: rho= is taken for the two Perceptrons, and only for them -----------------------


@pytest.mark.parametrize("name", PERCEPTRONS)
@pytest.mark.parametrize("c, rho", [(1.5, 1.0), (3.0, 0.5), (0.5, 1.0), (1.0, 2.0), (4.0, 0.5)])
def test_verify_exact_decides_the_perceptrons_claim_with_their_rho(name, c, rho):
    """Both Perceptrons' w = (-1, 0, c) is a separator of the augmented patterns iff 1 < c rho < 2
    (rationals); verify_exact agrees for each, and names the first failing point otherwise."""
    holds = min(_margins([-1.0, 0.0, c], rho)) > 0
    assert holds == (1 < Fraction(c) * Fraction(rho) < 2)
    reason = ref.verify_exact(_sep(name, [-1.0, 0.0, c]), X2, Y2, rho=rho)
    if holds:
        assert reason == ""
    else:
        i = next(i for i, v in enumerate(_margins([-1.0, 0.0, c], rho)) if not v > 0)
        assert reason.startswith(f"y_i <w, x_i>_{i} = ") and reason.endswith(" is not > 0 in exact arithmetic")


@pytest.mark.parametrize("name", [n for n in GRAM_ALGORITHMS + PRIMAL_ALGORITHMS if n not in PERCEPTRONS])
@pytest.mark.parametrize("status", ["separator", "certificate", "max_iter"])
def test_verify_exact_refuses_rho_for_every_other_algorithm(name, status):
    """rho= is a Perceptron's bias; every other result records what it ran on, so rho= is refused
    by name with the fix (drop it) -- before anything else, whatever the result's status."""
    res = Result(algorithm=name, status=status, iterations=1, w=np.zeros(2), alpha=np.ones(2), p=np.ones(2) / 2)
    msg = f"rho is the bias of the Perceptrons' runs; a {name} result records what it ran on: drop rho="
    with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
        ref.verify_exact(res, X2, Y2, rho=1.0)


@pytest.mark.parametrize("name", PERCEPTRONS)
def test_verify_exact_without_rho_reads_the_patterns_unaugmented(name):
    """No rho: the claim is y_i <w, x_i> > 0 on the data as given.  X = (1, 0), (-1, 1), labels (1, -1):
    w = (1, 0) gives 1 and 1 (holds), w = (0, -1) gives 0 and 1 (fails at point 0)."""
    X, y = np.array([[1.0, 0.0], [-1.0, 1.0]]), np.array([1, -1])
    assert ref.verify_exact(_sep(name, [1.0, 0.0]), X, y) == ""
    assert ref.verify_exact(_sep(name, [0.0, -1.0]), X, y) == "y_i <w, x_i>_0 = 0.000e+00 is not > 0 in exact arithmetic"


# -- verify_exact: a w of the wrong length names the fix that works -------------------------------

PASS_RHO = "pass rho=, the bias it ran with (w[-1] multiplies it)"
DROP_RHO = "drop rho=: w has no bias coordinate, the run had none"
PASS_DATA = "pass the data it ran on"


@pytest.mark.parametrize("name", PERCEPTRONS)
@pytest.mark.parametrize(
    "len_w, rho, fix",
    [
        (3, None, PASS_RHO),  # w = [w_x, bias], rho forgotten
        (2, 1.0, DROP_RHO),  # w = w_x, rho given for a run without bias
        (4, None, PASS_DATA),  # two coordinates too many: no rho fixes it
        (1, None, PASS_DATA),  # one too few, no rho given: dropping it is no fix
        (4, 1.0, PASS_DATA),  # one too many with rho: passing rho is no fix (it is passed)
        (1, 1.0, PASS_DATA),  # two too few with rho
        (5, 1.0, PASS_DATA),
    ],
)
def test_verify_exact_w_of_the_wrong_length_names_the_fix(name, len_w, rho, fix):
    d = X2.shape[1] + (rho is not None)
    msg = f"w has {len_w} coordinates, the patterns of the data {d}: {fix}"
    with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
        ref.verify_exact(_sep(name, np.ones(len_w)), X2, Y2, rho=rho)


@pytest.mark.parametrize("name, info", [("pfm", {}), ("pdm", {"rho": 1.0}), ("pdm_succ", {"rho": 1.0, "Delta": 0.5})])
@pytest.mark.parametrize("extra", [-1, 1])
def test_verify_exact_pt11_w_of_the_wrong_length_asks_for_the_data(name, info, extra):
    """PT11 results record rho and Delta: their patterns have 2 (+1 for rho, +2 for Delta) coordinates;
    a w one longer or shorter is data of another run, never a rho= question."""
    d = 2 + ("rho" in info) + 2 * ("Delta" in info)
    msg = f"w has {d + extra} coordinates, the patterns of the data {d}: {PASS_DATA}"
    with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
        ref.verify_exact(_sep(name, np.ones(d + extra), **info), X2, Y2)


# -- _prepare: an object K that float64 cannot hold is refused in float64 mode, by name, with the fix --

REFUSAL = (
    "K has entries that float64 cannot hold (K[{ij}] = {v} rounds to {f!r}), and with precision=None the "
    "certificates are evaluated in float64 -- on the rounded matrix, not on K as stored; pass precision=D (the "
    "digits K was built at), or round K to float64 yourself (np.asarray(K, dtype=float)) to get the interval "
    "of the rounded matrix"
)


def _obj(a, b, c):
    K = np.empty((2, 2), dtype=object)
    K[0, 0], K[0, 1], K[1, 0], K[1, 1] = a, b, b, c
    return K


# K = [[2, b], [b, 2]] with b not a float64: PSD (|b| < 2); the first entry float64 cannot hold is K[0, 1]
UNHELD = [
    (Fraction(1, 3), "1/3"),  # a Fraction (rational() would round it: it must be compared as it is)
    (2**60 + 1, str(2**60 + 1)),  # a Python int beyond 2^53
]


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


# -- margin: crossed bounds prove K is not PSD; the message gives the cause and both fixes -----------


def test_crossed_bounds_message_in_full():
    """K = [[0, 1e-9], [1e-9, 1]] passes check_gram's PSD tolerance but det K = -1e-18 < 0 exactly: the
    certified bounds cross.  The whole message: the argument, the two bounds (lower > upper as
    printed), the general fix, the float64 cause (underflowed squared norms) and its fix."""
    K = np.array([[0.0, 1e-9], [1e-9, 1.0]])
    assert Fraction(K[0, 0]) * Fraction(K[1, 1]) < Fraction(K[0, 1]) ** 2
    with pytest.raises(ValueError) as err:
        margin(K)
    pattern = (
        r"K is not positive semidefinite: the certified bounds cross \(lower = (\S+) from alpha > upper = (\S+) "
        r"from p, impossible for a PSD K \[RP14 Lemma 3\]\); pass a PSD matrix, e\.g\. the Gram matrix of your "
        r"points \(reference\.gram / signed_gram\); in float64 the Gram matrix of points of very different "
        r"norms can lose PSD-ness to underflow \(a squared norm rounded to 0 beside a nonzero inner product\): "
        r"then build it at D digits, signed_gram\(X, y, precision=D\), and pass precision=D"
    )
    found = re.fullmatch(pattern, str(err.value))
    assert found, str(err.value)
    assert float(found.group(1)) > float(found.group(2))


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


# -- rational() rounded a Fraction to float64 (found here, fixed on main by review9 cf83d7a meanwhile) --


def test_verify_margin_exact_reads_a_fraction_k_exactly():
    """margin() accepts a K of Fractions at D digits (_prepare compares a Fraction as it is), but
    rational() rounded each Fraction to float64 (float(v)), so verify_margin_exact checked the
    rounded matrix.  K = [[1, 1/9], [1/9, 1]]: m(K) = ||(1/2, 1/2)||_K = sqrt(5/9) (RP14 Lemma 3; the
    points are at angle < 90 degrees, p* = (1/2, 1/2) by symmetry).  u = 0.7453559924999299 has
    u^2 < 5/9, so upper = u is a false claim -- accepted before, since float(1/9) < 1/9 makes the
    rounded matrix's ||p||_K^2 <= u^2.  And K_12 = -1 + 10^-20: the 40-digit margin (~7.07e-11) was
    refuted before ("||alpha||_K = 0": K_12 rounded to -1)."""
    K = _obj(Fraction(1), Fraction(1, 9), Fraction(1))
    u = 0.7453559924999299
    assert Fraction(u) ** 2 < Fraction(5, 9) <= Fraction(u) ** 2 + Fraction(1, 10**15)  # just below m(K)
    false = ref.Margin(value=u, lower=-np.inf, upper=u, feasible=None, alpha=None, p=np.array([0.5, 0.5]),
                       support=(0, 1), precision="float64", method="a false upper bound")
    assert ref.verify_margin_exact(false, K).startswith("upper = 0.7453559924999299 is below ||p||_K / 1^T p")
    true = ref.Margin(value=u, lower=-np.inf, upper=np.nextafter(u, 1), feasible=None, alpha=None,
                      p=np.array([0.5, 0.5]), support=(0, 1), precision="float64", method="its successor")
    assert Fraction(true.upper) ** 2 >= Fraction(5, 9) and ref.verify_margin_exact(true, K) == ""
    K2 = _obj(Fraction(1), Fraction(-1) + Fraction(1, 2**70), Fraction(1))
    m = margin(K2, precision=40)
    m2 = Fraction(1, 2**71)  # ((1 + K_12) / 2 with p* = (1/2, 1/2))
    assert rational(m.lower) ** 2 <= m2 <= rational(m.upper) ** 2 and m.lower > 0
    assert ref.verify_margin_exact(m, K2) == ""


def test_exact_helpers_read_fractions_exactly():
    """rational(1/3) is 1/3; (A x) of Fraction entries is the rational one."""
    assert rational(Fraction(1, 3)) == Fraction(1, 3)
    from reference.exact import exact_matvec
    A = np.array([[Fraction(1, 3), 0.5], [Fraction(2, 3), 1.0]], dtype=object)
    assert exact_matvec(A, [Fraction(3), 2**-60]) == [1 + Fraction(1, 2**61), 2 + Fraction(1, 2**60)]


def test_verify_exact_reads_fraction_data_exactly():
    """X = (1/3, -1), label 1, w = (3, 1): y <w, x> = 1 - 1 = 0 exactly, so not a separator, and the
    reason shows the exact 0 (before: float(1/3) * 3 - 1 = -2^-54, the datum rounded)."""
    X = np.array([[Fraction(1, 3), Fraction(-1)]], dtype=object)
    reason = ref.verify_exact(_sep("perceptron", [3.0, 1.0]), X, [1])
    assert reason == "y_i <w, x_i>_0 = 0.000e+00 is not > 0 in exact arithmetic"
