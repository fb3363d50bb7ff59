"""Tests written against the mutmut 3.8.1 survivors of reference/margin.py (issue 13 item 8,
the census of _lower, _upper, lower_bound, upper_bound, _check_vector, _exact_lower, _gauss_mp,
_solve_mp and _origin_in_simplex).  Each test checks a property that follows from the math or
from the docstring -- exact rationals, closed-form instances, soundness of a certificate -- and
each was run by hand against the mutated code it is meant to kill.  The survivors that are not
killed here are argued in the equivalence note of the census (margin_equivalent.md).
"""

import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import reference  # noqa: F401  (imports the package; the module is reached through sys.modules)
from reference.arithmetic import Arithmetic
from reference.exact import exact_det, rational

M = sys.modules["reference.margin"]  # the package re-exports the function `margin` under the module's name
U = 2.0**-53


def _exact_quotient(K, alpha):
    """(N, Q) = (min_i (K alpha)_i, alpha^T K alpha) in exact rationals, K and alpha as given."""
    Kq = [[rational(v) for v in row] for row in np.asarray(K, dtype=object)]
    a = [v if isinstance(v, Fraction) else rational(v) for v in alpha]
    Ka = [sum(k * x for k, x in zip(row, a)) for row in Kq]
    return min(Ka), sum(x * y for x, y in zip(a, Ka))


# -- lower_bound / _lower: a lower bound at every scale of the witness --------------------------


@pytest.mark.parametrize("precision", [None, 30])
def test_lower_bound_is_below_the_exact_quotient_at_every_scale(precision):
    """lower_bound(K, c alpha) bounds min(K alpha)/||alpha||_K (scale-free) from below for every
    c = 2^k: also when min(K alpha) <= 1, where the positive branch must still be taken (mutant
    ``N_lo > 1`` sent 0 < N_lo <= 1 to the negative branch, whose 1 + 8u and sqrt(Q - eQ) push a
    positive quotient *up*, above the exact value)."""
    cases = [
        (np.eye(2), [1.0, 1.0]),  # exact value 1/sqrt(2)
        (np.array([[2.0, 1.0], [1.0, 2.0]]), [1.0, 1.0]),  # sqrt(3/2)
        (np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 5.0]]), [1.0, 2.0, 1.0]),
    ]
    for K, alpha in cases:
        for k in range(-40, 41, 5):
            a = [x * 2.0**k for x in alpha]  # exact scaling
            lo = M.lower_bound(K, a, precision=precision)
            N, Q = _exact_quotient(K, a)
            assert N > 0 and lo > 0, (K.tolist(), a, lo)
            assert rational(lo) ** 2 * Q <= N * N, f"lower_bound(K={K.tolist()}, alpha={a}) = {lo} exceeds N/sqrt(Q)"


# -- upper_bound / _upper -----------------------------------------------------------------------


@pytest.mark.parametrize("precision", [None, 30])
def test_upper_bound_is_above_the_exact_quotient_at_every_scale(precision):
    """upper_bound(K, c p) >= ||p||_K / (1^T p) for every c = 2^k, including ||p||_K^2 < 1 (mutant
    ``Q_hi > 1`` returned 0 there) and a K with a zero row (the point z_2 = 0; mutant
    ``e = g / (|K| p)`` divided by (|K| p)_2 = 0 and returned 0, or raised in mpmath)."""
    cases = [
        (np.eye(2), [1.0, 1.0]),
        (np.array([[2.0, 1.0], [1.0, 2.0]]), [1.0, 3.0]),
        (np.array([[1.0, 0.0], [0.0, 0.0]]), [1.0, 0.0]),  # z_2 = 0, p = e_1: value 1
        (np.array([[1.0, 0.0], [0.0, 0.0]]), [1.0, 1.0]),  # value 1/2
    ]
    for K, p in cases:
        for k in range(-40, 41, 5):
            q = [x * 2.0**k for x in p]
            hi = M.upper_bound(K, q, precision=precision)
            Q, s = _exact_quotient(K, q)[1], sum(rational(x) for x in q)
            assert rational(hi) ** 2 * s * s >= Q, f"upper_bound(K={K.tolist()}, p={q}) = {hi} is below ||p||_K / 1^T p"


@pytest.mark.parametrize("precision", [None, 30])
def test_upper_bound_of_the_origin_point_is_zero(precision):
    """p on a point at the origin: ||p||_K = 0, and every product in the evaluation (K p, |K| p,
    p^T K p) is an exact zero, so there is no round-off to allow for and the bound is exactly 0
    (the certificate m(K) <= 0 of a data set containing the origin).  Mutants replacing the
    clamp ``else 0`` by None or 1 fail."""
    K = np.array([[1.0, 0.0], [0.0, 0.0]])
    assert M.upper_bound(K, [0.0, 1.0], precision=precision) == 0
    assert M.upper_bound(K, [0.0, 2.0**-30], precision=precision) == 0


# -- _exact_lower ------------------------------------------------------------------------------


def _exact_lower(K, alpha, precision):
    _, Km, ar = M._prepare(np.asarray(K, dtype=np.float64), precision)
    with ar.context():
        return M._exact_lower(Km, ar.array(alpha) if ar.is_mp else np.asarray(alpha, dtype=np.float64), ar), ar


@pytest.mark.parametrize("precision", [None, 30, 50])
def test_exact_lower_is_the_quotient_rounded_down(precision):
    """Closed-form instances with Q > 1, Q = 1/2 (a denominator) and Q < 1: the result is
    N/sqrt(Q) rounded down -- never above it (exact check), and within a few hundred units of
    round-off of it.  Mutants computing N * sqrt(Q) (gives None, or a value far too small) or
    sqrt(Q.numerator * Q.denominator) fail."""
    cases = [
        (np.eye(2), [1.0, 1.0]),  # N = 1, Q = 2: 1/sqrt(2)
        (np.eye(2), [0.5, 0.5]),  # N = 1/2, Q = 1/2: 1/sqrt(2)
        (np.eye(2), [0.25, 0.125]),  # N = 1/8, Q = 5/64: 1/sqrt(5)
        (np.array([[2.0, 1.0], [1.0, 2.0]]), [1.0, 1.0]),  # N = 3, Q = 6: sqrt(3/2)
        (np.array([[4.0]]), [3.0]),  # N = 12, Q = 36: exactly 2
    ]
    for K, alpha in cases:
        c, ar = _exact_lower(K, alpha, precision)
        N, Q = _exact_quotient(K, alpha)
        assert c is not None and c > 0, (K.tolist(), alpha, c)
        c = rational(c)
        assert c * c * Q <= N * N, f"_exact_lower(K={K.tolist()}, alpha={alpha}) = {float(c)} exceeds N/sqrt(Q)"
        tol = 1000 * (U if precision is None else Fraction(1, 10**precision))
        assert (c / (1 - tol)) ** 2 * Q >= N * N, f"_exact_lower(K={K.tolist()}, alpha={alpha}) = {float(c)} is not N/sqrt(Q) rounded down"


def test_exact_lower_never_exceeds_the_quotient_when_float64_underflows():
    """K = [[3 * 2^-1074]] (a subnormal Gram matrix), alpha = [0.5000001]: float(N) and float(Q)
    round by ~33 %, so the first float estimate of N/sqrt(Q) = sqrt(K_11) is 15 % too high.  The
    exact confirmation must then refuse it (None: not certified) rather than return it (mutant
    ``c > 0 or ratio_at_least(...)`` returned it unchecked)."""
    K, alpha = np.array([[3 * 2.0**-1074]]), [0.5000001]
    c, _ = _exact_lower(K, alpha, None)
    N, Q = _exact_quotient(K, alpha)
    assert N > 0
    assert c is None or (c > 0 and rational(c) ** 2 * Q <= N * N), c


def test_exact_lower_returns_a_positive_bound_or_none():
    """min(K alpha) = 2^-1200 > 0, below the smallest float64: the quotient rounds down to 0.0, which
    certifies nothing (margin() reads the value as ``lower > 0``, feasible=True).  The answer must
    be None or positive; mutants ``c >= 0`` / ``c > 0 or ...`` returned 0.0."""
    K, alpha = np.diag([1.0, 2.0**-600]), [1.0, 2.0**-600]
    N, Q = _exact_quotient(K, alpha)
    assert N == Fraction(1, 2**1200) and Q > 0
    c, _ = _exact_lower(K, alpha, None)
    assert c is None or c > 0, c


# -- _check_vector: coefficients are real numbers, taken as given ------------------------------


def test_coefficients_must_be_real():
    """A complex coefficient is refused with a ValueError naming the argument (float() of a numpy
    complex silently dropped the imaginary part); so are None and an int beyond float64."""
    K = np.eye(2)
    for bad in ([1 + 1j, 1.0], np.array([1 + 1j, 1.0]), [np.complex64(1.0), 1.0], np.array([1, 1], dtype=np.complex64),
                [None, 1.0], [10**400, 1]):
        for precision in (None, 30):
            with pytest.raises(ValueError, match=r"^alpha must hold real numbers"):
                M.lower_bound(K, bad, precision=precision)
            with pytest.raises(ValueError, match=r"^p must hold real numbers"):
                M.upper_bound(K, bad, precision=precision)


def test_precision_mode_takes_integer_and_float32_coefficients_exactly():
    """Precision mode converts int64 / float32 / Fraction coefficients (it raised TypeError: mpf takes
    no numpy scalars) and keeps a Python int wider than float64 exact, also beside a float:
    alpha = (2^60 + 1, 1/2) on K = I has quotient (1/2)/sqrt((2^60+1)^2 + 1/4); rounding alpha to
    float64 first (2^60, 1/2) -- what numpy's dtype inference does to the mixed list -- would give
    a 'lower bound' above it by ~2^-60, far beyond the 30-digit allowance."""
    K = np.eye(2)
    for alpha in (np.array([1, 1]), [np.int64(1), 1], np.array([1, 1], dtype=np.float32), [Fraction(1), 1]):
        lo, hi = M.lower_bound(K, alpha, precision=30), M.upper_bound(K, alpha, precision=30)
        assert rational(lo) ** 2 * 2 <= 1 <= rational(hi) ** 2 * 2  # the exact value is 1/sqrt(2)
    big = [2**60 + 1, 0.5]
    lo = M.lower_bound(K, big, precision=30)
    N, Q = _exact_quotient(K, [Fraction(2**60 + 1), Fraction(1, 2)])
    assert lo > 0 and rational(lo) ** 2 * Q <= N * N, lo


# -- _gauss_mp: partial pivoting by magnitude ---------------------------------------------------


def test_gauss_mp_pivots_on_the_largest_entry_not_the_last_row():
    """The largest entry of column 0 is in the middle row and the last row has a 0 there: partial
    pivoting solves the (nonsingular) system exactly; always swapping in the last row (mutants
    ``key=None``, no key) divides by that 0 (ZeroDivisionError).  Second system: the first row
    holds the pivot 1 and the last row a tiny 1e-40; using the tiny pivot loses ~40 of 50 digits."""
    with mpmath.workdps(50):
        one = mpmath.mpf(1)
        A = np.array([[one, 2 * one, 0 * one], [4 * one, one, one], [0 * one, one, 3 * one]], dtype=object)
        x_true = [one, -2 * one, 3 * one]
        b = np.array([sum(A[i, j] * x_true[j] for j in range(3)) for i in range(3)], dtype=object)
        x = M._gauss_mp(A, b)
        assert all(x[i] == x_true[i] for i in range(3)), x
        e = mpmath.mpf("1e-40")
        A = np.array([[one, one], [e, one]], dtype=object)
        b = np.array([2 * one, one], dtype=object)
        x = M._gauss_mp(A, b)
        # exact: x0 = 1/(1-e), x1 = (1-2e)/(1-e)
        assert abs(x[0] - 1 / (1 - e)) < mpmath.mpf("1e-45")
        assert abs(x[1] - (1 - 2 * e) / (1 - e)) < mpmath.mpf("1e-45")


# -- _solve_mp: refinement, not O(m^3) mpmath elimination, for a system float64 can factor ------


def _system(cond, m, seed, ar):
    rng = np.random.default_rng(seed)
    Q1, _ = np.linalg.qr(rng.standard_normal((m, m)))
    Q2, _ = np.linalg.qr(rng.standard_normal((m, m)))
    Af = (Q1 * np.logspace(0, -np.log10(cond), m)) @ Q2.T
    with ar.context():
        A = ar.array(Af)
        x_true = ar.array(rng.standard_normal(m))
        return A, A @ x_true, x_true


def test_solve_mp_refines_moderately_conditioned_systems_without_elimination(monkeypatch):
    """cond(A) <= 1e12: the float64 factorization contracts the error by ~cond u64 <= 1e-4 per step,
    and with the residual summed exactly and rounded once (mpmath.fdot) refinement reaches x within
    10 eps of the exact solution (here x_true: b = A x_true is exact at 50 digits, 53-bit entries),
    so the O(m^3) mpmath elimination is never needed.  A residual rounded at the working precision
    (b - A @ x: error ~eps |A| |x|) stalls at relative corrections ~cond eps and falls back to
    elimination (or, with the old stagnation exit, returns x off by ~cond eps up to 10^4 m eps)."""

    def no_elimination(A, b):
        raise AssertionError("exact elimination should not be needed")

    monkeypatch.setattr(M, "_gauss_mp", no_elimination)
    ar = Arithmetic(50)
    for m in (3, 8):
        for cond in (1e3, 1e6, 1e9, 1e12):
            for seed in range(3):
                A, b, x_true = _system(cond, m, seed, ar)
                with ar.context():
                    x = M._solve_mp(A, b, ar)
                    err = max(abs(x[i] - x_true[i]) for i in range(m)) / max(abs(v) for v in x_true)
                assert err <= 10 * mpmath.mpf(10) ** -50, (m, cond, seed, err)


def _exact_solution(A, b):
    """The solution of A x = b over Q (A, b as stored; Cramer's rule with exact determinants)."""
    det = exact_det(A)
    cols = []
    for i in range(A.shape[0]):
        Ai = A.copy()
        Ai[:, i] = b
        cols.append(exact_det(Ai) / det)
    return cols


def test_solve_mp_at_the_smallest_precision_reaches_10_eps_without_elimination(monkeypatch):
    """At 16 digits (MIN_PRECISION; mpmath carries 56 bits, its rounding 2^-56 ~ 0.14 eps) the
    refinement's last corrections are a fraction of eps, so the target 10 eps is reached for every
    system float64 can factor (cond up to 1e16): x within 10 eps of the exact solution of the stored
    system, no elimination.  A target below the working precision's rounding (eps / 10) stalls on
    some of them and hands over to elimination (error ~cond eps)."""

    def no_elimination(A, b):
        raise AssertionError("exact elimination should not be needed")

    monkeypatch.setattr(M, "_gauss_mp", no_elimination)
    ar = Arithmetic(16)
    for m in (3, 8):
        for cond in (1e4, 1e6, 1e12, 1e14, 1e16):
            for seed in range(3):
                A, b, _ = _system(cond, m, seed, ar)
                exact = _exact_solution(A, b)
                with ar.context():
                    x = M._solve_mp(A, b, ar)
                err = max(abs(rational(x[i]) - exact[i]) for i in range(m)) / max(abs(v) for v in exact)
                assert err <= 10 * Fraction(1, 10**16), (m, cond, seed, float(err))


def test_solve_mp_gives_up_refinement_at_once_when_float64_cannot_factor(solve_path):
    """A built with cond 1e25 rounds to a float64 matrix of cond ~5e17..2e18 (measured, 1-norm):
    float64's factorization of it is useless (cond u64 >> 1), the corrections do not shrink, and
    refinement must hand over to elimination after a few float64 solves -- not run its 60 steps
    first (mutants ``prev = None``, ``continue`` for ``break``).  Elimination at 50 digits still
    gives x within ~cond eps ~ 1e-32 of x_true (asserted: 1e-24)."""
    calls = solve_path
    ar = Arithmetic(50)
    for seed in range(3):
        calls["solve"], calls["at_elimination"] = 0, None
        A, b, x_true = _system(1e25, 6, seed, ar)
        with ar.context():
            x = M._solve_mp(A, b, ar)
            err = max(abs(x[i] - x_true[i]) for i in range(6)) / max(abs(v) for v in x_true)
        assert calls["at_elimination"] is not None and calls["at_elimination"] <= 5, (seed, calls)
        assert err < mpmath.mpf(10) ** -24, (seed, err)


# -- _origin_in_simplex: a certificate, never a false claim -------------------------------------


def _barycentric(Z):
    """Exact barycentric weights of the origin in the simplex of the rows of Z (None if singular)."""
    r = Z.shape[1]
    rows = [[rational(Z[s, i]) for s in range(r + 1)] + [Fraction(0)] for i in range(r)]
    rows.append([Fraction(1)] * (r + 1) + [Fraction(1)])
    m = r + 1
    for k in range(m):
        piv = next((i for i in range(k, m) if rows[i][k] != 0), None)
        if piv is None:
            return None
        rows[k], rows[piv] = rows[piv], rows[k]
        for i in range(k + 1, m):
            f = rows[i][k] / rows[k][k]
            rows[i] = [a - f * c for a, c in zip(rows[i], rows[k])]
    w = [Fraction(0)] * m
    for k in range(m - 1, -1, -1):
        w[k] = (rows[k][m] - sum(rows[k][j] * w[j] for j in range(k + 1, m))) / rows[k][k]
    return w


def _thin_triangles(seed, count, log_h=(-17.0, -12.0), scale=1.0):
    """Triangles a, b, c with b = -a nudged by a few ulps (so 0 lies within ulps of the edge ab, on
    either side) and c at height h above ab: 0 is just inside or just outside, and the simplex is
    ill-conditioned (sigma_min ~ h).  Scaling by a power of 2 is exact."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        th = rng.uniform(0, 2 * np.pi)
        a = np.array([np.cos(th), np.sin(th)])
        n = np.array([-a[1], a[0]])
        c = rng.uniform(-0.9, 0.9) * a + 10.0 ** rng.uniform(*log_h) * n
        b = -a
        for i in range(2):
            for _ in range(int(rng.integers(0, 3))):
                b[i] = np.nextafter(b[i], rng.choice([-np.inf, np.inf]))
        out.append(np.array([a, b, c]) * scale)
    return out


def _assert_sound(instances):
    outside = 0
    for Z in instances:
        w = _barycentric(Z)
        outside += w is not None and min(w) < 0
        if M._origin_in_simplex(Z, (0, 1, 2)):
            assert w is not None and min(w) > 0, f"0 certified inside the simplex {Z.tolist()}, exact weights {[float(v) for v in w]}"
    return outside


def test_origin_in_simplex_never_certifies_an_outside_origin():
    """Ill-conditioned triangles with the origin within round-off of an edge: whenever the
    certificate says 'inside', the exact barycentric weights are all positive.  Mutants that skip
    the sigma_min test (``or``), answer True when it fails, use sigma_{r-1} instead of sigma_min,
    raise instead of lower sigma_min, or make u negative certify origins that are outside."""
    outside = _assert_sound(_thin_triangles(0, 250))
    assert outside > 50  # the family does probe the outside


def test_origin_in_simplex_is_sound_for_any_svd_within_its_allowance(monkeypatch):
    """The docstring's premise: sigma_min is lowered by (r+1) 64 u sigma_max *to cover the SVD's own
    round-off*.  So the certificate must stay sound for every SVD whose sigma_min errs upward by
    less than that -- here an adversarial one returning sigma_min (computed at 60 digits) plus
    15/16 of the allowance.  Mutants that shrink the allowance (/ sigma_max, / 64, (r-1), sigma_1
    instead of sigma_max) then certify origins that are outside.  (IEEE's real SVD errs far less,
    which is why no ordinary input can tell them apart.)"""

    def adversarial_svd(A, compute_uv=True, **kwargs):
        assert not compute_uv
        with mpmath.workdps(60):
            s = sorted((float(v) for v in mpmath.svd_r(mpmath.matrix(A.tolist()), compute_uv=False)), reverse=True)
        s[-1] += A.shape[0] * 64 * U * s[0] * (1 - 1 / 16)
        return np.array(s)

    monkeypatch.setattr(np.linalg, "svd", adversarial_svd)
    outside = _assert_sound(_thin_triangles(4, 120, log_h=(-17.0, -15.0), scale=0.125))
    assert outside > 30


def test_origin_in_simplex_certifies_an_origin_inside_beyond_round_off():
    """Weights ~5e-7 on a well-conditioned triangle (cond ~ 3): ~1e8 times the round-off bound of
    the weights, so 'inside' must be certified (a mutant with u = -106 rejected it)."""
    Z = np.array([[-1e-6, 0.0], [1.0, 1.0], [1.0, -1.0]])
    w = _barycentric(Z)
    assert min(w) > Fraction(4, 10**7)
    assert M._origin_in_simplex(Z, (0, 1, 2))
