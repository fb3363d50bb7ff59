"""Tests written against the mutmut survivors of the second mutation sample (issue 13 item 8,
benchmarks/mutation/sample_B.txt) and the survivors known outside the samples.

Each was checked by hand: the mutated code fails the test, the original passes.  Expected values
are closed forms (powers of two, exact rationals, hand-built instances), never our own output.
"""

import re
import sys
import types
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp

from reference import data_margin as DM
from reference.arithmetic import UNIT_ROUNDOFF, Arithmetic, g_norm_upper, pow2_exponent, scale_rows_pow2
from reference.exact import exact_matvec, exact_rank, rational
from reference.patterns import make_patterns
from reference.result import EXACT_CERTIFICATE_N, verify_certificate, verify_separator_patterns, verify_separator_primal

M = sys.modules["reference.margin"]
DYN = sys.modules["reference.dynamic_margin"]
SMOOTHED = sys.modules["reference.smoothed"]  # the package re-exports the function `margin` under the module's name

u = UNIT_ROUNDOFF


# -- reference.arithmetic ---------------------------------------------------------------------------


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
    [Bug found by the survivors of _exponents: the CSR path kept the long doubles and took the
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


# -- reference.exact ----------------------------------------------------------------------------------


def test_exact_matvec_keeps_wide_integers_of_a_list_exact():
    """A nested list mixing an int beyond 2^53 with floats: (A x)_i exactly (numpy's inference
    would round 2^53 + 1 to the float 2^53)."""
    big = 2**53 + 1
    assert exact_matvec([[big, 0.5], [1, 0.25]], [1, 2]) == [Fraction(big + 1), Fraction(3, 2)]
    assert exact_matvec([[big, 1]], [1.0, -1.0]) == [Fraction(2**53)]


def test_exact_rank_keeps_wide_integers_of_a_list_exact():
    """Rows (2^53 + 1, 0.5) and (2^53, 0.5) differ by (1, 0): rank 2 over the rationals (read as
    float64 both would be (2^53, 0.5): rank 1)."""
    assert exact_rank([[2**53 + 1, 0.5], [2**53, 0.5]]) == 2
    assert exact_rank([[2**53 + 1, 0.5], [2**54 + 2, 1]]) == 1


# -- reference.margin -----------------------------------------------------------------------------------


def _indefinite_2_2_psd_matrix(n):
    """K = 2I - 11^T (diagonal 1, off-diagonal -1): every 2 x 2 principal submatrix is PSD
    (eigenvalues 0 and 2), so check_gram's default O(n^2) test accepts it, but K 1 = (2 - n) 1."""
    return 2 * np.eye(n) - np.ones((n, n))


def test_exact_lower_refuses_a_witness_of_zero_K_norm():
    """alpha with K alpha > 0 but ||alpha||_K = 0 (K not PSD): there is no alpha / ||alpha||_K to
    take the quotient at, so _exact_lower certifies nothing (None), it does not divide by 0."""
    K = _indefinite_2_2_psd_matrix(5)
    alpha = np.array([-6.0, -6.0, -6.0, -2.0, 4.0])
    Ka = [2 * Fraction(a) - sum(Fraction(b) for b in alpha) for a in alpha]  # (2I - 11^T) alpha
    assert Ka == [4, 4, 4, 12, 24] and sum(Fraction(a) * k for a, k in zip(alpha, Ka)) == 0
    M.check_gram(K, unit_diagonal=False, name="K")  # admitted as a Gram matrix
    assert M._exact_lower(K, alpha, Arithmetic(None)) is None
    ar = Arithmetic(30)
    with ar.context():
        assert M._exact_lower(ar.array(K), ar.array(alpha), ar) is None


def test_upper_bound_is_rigorous_under_cancellation_in_p_K_p():
    """upper_bound(K, p) >= ||p||_K / 1^T p exactly, for a K admitted as PSD up to round-off whose
    p^T K p cancels: K = diag(1, [[0, -b], [-b, 0]]) (smallest eigenvalue -b = -2^-27, within
    check_gram's tolerance), p = (s, 1, 1) with s = (2^27 + 1) 2^-40, 2b = fl(s^2) = s^2 - 2^-80.
    Then p^T K p = s^2 - 2b = 2^-80 exactly, while the float evaluation gives fl(s^2) - 2b = 0:
    only the a-priori allowance for the round-off of p^T K p keeps the bound above the true value."""
    s = (2**27 + 1) * 2.0**-40
    b = (2**53 + 2**27) * 2.0**-80
    assert 2 * Fraction(b) == Fraction(s) ** 2 - Fraction(2) ** -80
    K = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -b], [0.0, -b, 0.0]])
    p = np.array([s, 1.0, 1.0])
    hi = M.upper_bound(K, p)
    # hi >= sqrt(2^-80) / (s + 2), squared and cleared of denominators
    assert Fraction(hi) ** 2 * (Fraction(s) + 2) ** 2 >= Fraction(2) ** -80


@pytest.mark.parametrize("scale", [1.0, 1e-200, 2.0**-1070, 1e-30, 1e200, 2.0**1000])
def test_lower_and_upper_bounds_of_tiny_witnesses(scale):
    """K = diag(4, 1): alpha = c (1, 4) gives min(K alpha)/||alpha||_K = 4/sqrt(20), p = c (1, 2)
    gives ||p||_K / 1^T p = sqrt(8)/3, for every c > 0.  The certified bounds hold (exactly, in
    rationals) and are tight for a witness at any scale.  [Bug found here: with c = 1e-200, v^T K v
    underflowed to 0 and lower_bound returned inf, upper_bound 0.0 -- both false claims.  With c = 1e200
    it overflowed: the bounds were the true but useless 0.0 and inf.]"""
    K = np.array([[4.0, 0.0], [0.0, 1.0]])
    lo = M.lower_bound(K, scale * np.array([1.0, 4.0]))
    hi = M.upper_bound(K, scale * np.array([1.0, 2.0]))
    assert 0 < lo and Fraction(lo) ** 2 * 20 <= 16 and lo >= 4 / np.sqrt(20) * (1 - 1e-14), lo
    assert Fraction(hi) ** 2 * 9 >= 8 and hi <= np.sqrt(8) / 3 * (1 + 1e-14), hi


def test_witness_is_not_scaled_down_when_an_entry_would_lose_bits():
    """alpha = (2^1000, -2^-1074), K = I: min(K alpha)/||alpha||_K = -2^-2074 < 0.  Scaling alpha by
    2^-1000 would flush the second entry to -0 and certify the false lower bound 0; the witness is
    scaled only when the scaling is exact, and the bound must stay <= the exact value."""
    lo = M.lower_bound(np.eye(2), np.array([2.0**1000, -(2.0**-1074)]))
    assert lo == -np.inf or Fraction(lo) <= -Fraction(2) ** -2074, lo


def test_upper_bound_of_a_negative_quadratic_form_is_zero():
    """K = 2I - 11^T (5 x 5; admitted: its 2 x 2 principal minors are PSD) and p = 1: p^T K p =
    5 - 20 < 0, and ||p||_K = sqrt(max(p^T K p, 0)) = 0 (the G-seminorm's convention), so the
    upper bound is 0 -- not the NaN of a square root of a negative number."""
    assert M.upper_bound(_indefinite_2_2_psd_matrix(5), np.ones(5)) == 0.0


def test_infeasible_upper_is_minus_delta_within_the_facet_allowance():
    """30 copies of z = 1 and 30 of z = -1 (K = z z^T, exact rank 1): the hull is [-1, 1] and the
    margin relative to the span is -delta_max = -1 [RP14 Theorem 3, E-A3].  ``upper`` is -delta_max
    up to the round-off allowance of the facet computation, 64 n u max_i ||z_i|| (tol_side is in
    units of max_i ||z_i||): at most -1 + 128 n u here (twice the allowance, for the facet value's own
    round-off), and certified: >= -1."""
    z = np.array([1.0] * 30 + [-1.0] * 30)
    n = z.size
    m = M.margin(np.outer(z, z))
    assert m.feasible is False
    assert m.lower <= -1 <= m.upper <= -1 + 128 * n * u, (m.lower, m.upper)


# -- reference.data_margin --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "X, y, Delta, true",
    [
        # z = (3, 4), (3, -4), (30, 0): min-norm point (3, 0), gamma = 3
        (np.array([[3.0, 4.0], [-3.0, 4.0], [30.0, 0.0]]), np.array([1, -1, 1]), None, mpmath.mpf(3)),
        # x = 1 (+1), x = -1 (-1), Delta = 1: patterns (1, 1, 0), (1, 0, -1), gamma_d = sqrt(1 + 1/2)
        (np.array([[1.0], [-1.0]]), np.array([1, -1]), 1.0, mpmath.sqrt(mpmath.mpf(3) / 2)),
    ],
)
def test_margin_from_data_method_names_its_witnesses(X, y, Delta, true):
    """The method text says what ``lower`` and ``upper`` are (the witnesses u and beta, the lemma,
    rounding accounted for), in the original space and in the extended one; the bounds hold."""
    m = DM.margin_from_data(X, y, Delta=Delta)
    assert m.method.endswith(
        "; lower = min_k u.y_k/||u||, upper = ||sum beta_k y_k||/sum beta_k [RP14 Lemma 3], rounding bounded"
    ), m.method
    assert m.separable is True and m.lower <= true <= m.upper


# -- reference.result -------------------------------------------------------------------------------


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


# -- reference.dynamic_margin -------------------------------------------------------------------------


def _rejected_index(why: str) -> int:
    """The pattern a verifier's message names ("y_i <w, x_i> = ... is not > 0 beyond round-off")."""
    match = re.match(r"y_(\d+) <w, x_\1> = .* is not > 0 beyond round-off", why)
    assert match, why
    return int(match.group(1))


def _first_unverified_cases():
    """(patterns, a, arithmetic): separators the verifier rejects, some exactly at its allowance."""
    U = 2.0**-1074
    # a . y_0 = 6 U is exactly the allowance (2K + 4) U of a 1-coordinate pattern (the relative
    # term underflows to 0); a . y_1 = 12 U is above it
    yield make_patterns(np.array([[1.0], [2.0]]), np.array([1, 1]), rho=None, Delta=None), np.array([6 * U]), None
    # y = l [x, rho, Delta e_k]: margins a.y_k with the bias and the extended coordinates counted
    P = make_patterns(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.array([1, -1, 1]), rho=2.0, Delta=0.5)
    yield P, np.array([1.0, 1.0, 0.25, 0.0, -1.0, 0.0]), None  # y_0: 1 + 0.5 = 1.5; y_1: -(1 + 0.5) + 0.5 = -1 < 0
    yield P, np.array([1.0, -1.0, -0.25, 0.0, 8.0, 0.0]), None  # y_0: 0.5; y_1: 1 - 0.5 + 4 = 4.5; y_2: -0.5
    yield P, np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0]), 30  # the zero vector: every margin 0 = its allowance 0 at 30 digits
    yield P, np.array([1.0, 1.0, 0.0, 0.0, 0.0, 0.0]), 30  # y_1 . a = -1


@pytest.mark.parametrize("case", range(5))
def test_first_unverified_is_the_pattern_the_verifier_rejects(case):
    """_unverified_update: "such a pattern counts as a mistake ... The exit test and the verification
    thus agree" -- the pattern _first_unverified picks is the first one the verifier rejects (``not
    a.y_k > allowance``), also exactly at the allowance, in float64 and at 30 digits."""
    P, a, dps = list(_first_unverified_cases())[case]
    ar = Arithmetic(dps)
    with ar.context():
        if dps is None:
            why = verify_separator_patterns(P.data, P.indices, P.indptr, P.labels, P.rho, P.Delta, a, P.n_features)
        else:
            a = ar.array(a)
            why = verify_separator_primal(ar.array(P.dense()), a)
        pb = types.SimpleNamespace(P=P, P_verify=None, verified_on=P, ar=ar)
        assert DYN._first_unverified(pb, a) == _rejected_index(why)


# -- reference.smoothed -----------------------------------------------------------------------------


def _gram_with_one_pair(c, ar):
    """The 4 x 4 normalized Gram matrix I with G_12 = G_21 = c (PSD for |c| <= 1)."""
    G = ar.array(np.eye(4))
    G[0, 1] = G[1, 0] = c
    return G


@pytest.mark.parametrize(
    "dps, c, indistinguishable",
    [
        # q = (1/2, 1/2, 0, 0): ||q||_G^2 = (1 + c) / 2, against the guard n eps = 4 eps
        (None, 2.0**-49 - 1, True),  # (1 + c) / 2 = 2^-50 = 4 * 2^-52: exactly the guard (every step exact)
        (None, 2.0**-53 - 1, True),  # 2^-54: below
        (None, 2.0**-39 - 1, False),  # 2^-40: above
        (None, -1.0, True),  # 0
        (30, "-1 + 2^-60", False),  # 2^-61 at 30 digits, far above 4e-30 (G_12 is no float64: float64 reads -1, norm 0)
    ],
)
def test_indistinguishable_from_zero_is_the_guard_norm_squared_at_most_n_eps(dps, c, indistinguishable):
    """[E-A7] ||q||_G^2 <= n eps (eps of the arithmetic: 2^-52, or 10^-dps), with ||q||_G in the
    working arithmetic; at the guard itself q counts as zero."""
    ar = Arithmetic(dps)
    with ar.context():
        c = -1 + mpmath.mpf(2) ** -60 if c == "-1 + 2^-60" else c
        G = _gram_with_one_pair(c, ar)
        q = ar.array(np.array([0.5, 0.5, 0.0, 0.0]))
        pb = types.SimpleNamespace(G=G, ar=ar)
        assert bool(SMOOTHED._indistinguishable_from_zero(pb, q)) is indistinguishable


def test_local_search_capped_round_at_the_floor_of_the_cap(monkeypatch):
    """100 centred points in R^30: 5e7 / (30^3 + 100 * 30) = 1666 < 2000, so the cap is its floor,
    2000 hyperplanes (_local_search's docstring).  The sample takes 469 subsets, the ascent 32; the
    first walk round's r (n - r) = 2100 swaps exceed the 2000 - 501 = 1499 left, so it tries the
    swaps with the (cap - used) // (2 r) = 1499 // 60 = 24 points nearest the facet: 720 subsets
    (a floor of 2001 would give 1500 // 60 = 25 points)."""
    nu, r = 100, 30
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((nu, r))
    Z -= Z.mean(axis=0)  # the origin is inside the hull: every facet supports it
    Zs = Z / np.max(np.linalg.norm(Z, axis=1))
    sizes, found = [], []
    real = M._hyperplanes

    def spy(Zs, subsets, tol_side):
        out = real(Zs, subsets, tol_side)
        sizes.append(len(subsets))
        found.append(out[0].size > 0)
        return out

    monkeypatch.setattr(M, "_hyperplanes", spy)
    M._local_search(Zs, r, 1e-10, 469, np.random.default_rng(0))
    assert any(found[:2])  # a supporting facet before the walk: the walk runs
    assert sizes[:3] == [469, 32, r * ((2000 - 469 - 32) // (2 * r))] == [469, 32, 720]


_WITNESSES = "lower = min_k u.y_k/||u||, upper = ||sum beta_k y_k||/sum beta_k [RP14 Lemma 3], rounding bounded"


@pytest.mark.parametrize(
    "X, y, verdict",
    [
        # z = (3, 4), (3, -4), (30, 0): separable, min-norm point (3, 0) on the first two (support 2)
        (np.array([[3.0, 4.0], [-3.0, 4.0], [30.0, 0.0]]), np.array([1, -1, 1]), True),
        # z = (0.1, 1e-20), (-0.3, 1e-20): separable exactly (by (0, 1)), margin ~1e-20, far below
        # float64's round-off: neither certified nor refuted
        (np.array([[0.1, 1e-20], [-0.3, 1e-20]]), np.array([1, 1]), None),
    ],
)
def test_margin_from_data_wolfe_method_text_in_full(X, y, verdict):
    """The primal-Wolfe branch says its verdict, the cycles and support it reports in ``info`` and
    ``u`` (no polishing here: the first instance is exact, the second is not separable in float64
    beyond round-off), and what the bounds are."""
    m = DM.margin_from_data(X, y)
    assert m.separable is verdict
    assert set(m.info) == {"wolfe_cycles", "wolfe_converged"} and m.info["wolfe_cycles"] >= 1
    word = "separable" if verdict else "undecided"
    assert m.method == (
        f"{word}: Wolfe min-norm point in primal form ({m.info['wolfe_cycles']} cycles, support 2); " + _WITNESSES
    ), m.method


def test_margin_from_data_gordan_method_text_in_full():
    """x = 1 and x = -1, both labelled +1: z_1 + z_2 = 0, Gordan's certificate c = (1/2, 1/2) on
    2 points; upper = 0 exact, lower = -R the trivial bound -- and the text says exactly that."""
    m = DM.margin_from_data(np.array([[1.0], [-1.0]]), np.array([1, 1]))
    assert m.separable is False and m.upper == 0 and m.lower == -m.R and m.R >= 1
    support, c = m.gordan
    assert support == (0, 1) and c[0] == c[1] > 0 and m.info == {"support": 2}  # c_1 z_1 + c_2 z_2 = 0 exactly
    assert m.method == (
        "not separable: 0 = sum_k c_k y_k with c >= 0 on 2 points, verified exactly in rational arithmetic "
        "(Gordan, [RP14 Lemma 6]); upper = 0 exact; lower = -R is only the trivial bound (the negative "
        "margin is NOT certified tight)"
    )


def _minus_delta_2d(points):
    """-delta_max for integer points in R^2 whose hull holds the origin: minus the distance from the
    origin to the nearest supporting line through two of the points (an edge line of the hull)
    [RP14 Theorem 3], in 50-digit arithmetic."""
    P = sorted(set(map(tuple, points)))
    with mpmath.workdps(50):
        dist = []
        for (ax, ay), (bx, by) in ((a, b) for i, a in enumerate(P) for b in P[i + 1 :]):
            nx, ny = by - ay, ax - bx
            c = nx * ax + ny * ay
            side = [nx * x + ny * y - c for x, y in P]
            if all(v <= 0 for v in side) or all(v >= 0 for v in side):
                dist.append(abs(mpmath.mpf(c)) / mpmath.sqrt(nx * nx + ny * ny))
        return -min(dist)


@pytest.mark.parametrize(
    "points",
    [
        [[-7, 9], [5, 9], [-8, 4], [-4, 1], [8, -4], [4, -6], [-3, 9], [-1, 0], [-4, -7], [-1, 2], [-1, 5],
         [-3, 2], [5, 8], [-1, -9], [4, 1], [7, -1], [-3, -8], [-1, 3], [5, 7], [-5, 2], [6, -5], [-3, 6]],
        [[1, 1], [3, -9], [3, 5], [5, 4], [-8, -4], [8, -1], [-9, 5], [-6, 6], [5, -5], [2, 5], [-3, -1], [9, 9],
         [-9, 7], [9, -3], [2, -3], [8, 0], [5, 9], [4, -7], [-2, 1], [2, 3], [9, 4], [9, -8], [-5, 2], [3, -1]],
    ],
)
def test_infeasible_margin_of_integer_points_brackets_minus_delta(points):
    """Integer points in R^2 around the origin (K = Z Z^T exact, rank 2): lower <= -delta_max <=
    upper with -delta_max from the edge lines in 50 digits.  The facet value carries a round-off of
    a few u max_i ||z_i|| (here up to ~8e-15 below -delta_max), which the allowance 64 n u max_i ||z_i||
    must cover."""
    Z = np.array(points, dtype=float)
    m = M.margin(Z @ Z.T)
    true = _minus_delta_2d(points)
    assert m.feasible is False
    assert mpmath.mpf(m.lower) <= true <= mpmath.mpf(m.upper), (m.lower, float(true), m.upper)
