"""Kills for survivors of the full mutmut 3.8.1 census of reference/ outside margin.py (issue 13,
session 6; see benchmarks/mutation/census_survivors.md).  Each kill was checked by applying the
mutant to the source by hand: the test fails on the mutant and passes on the original."""
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import reference
from reference import nkp, normalized_perceptron, nvn, perceptron
from reference.arithmetic import g_norm

X_OK = np.array([[1.0, 0.5], [-0.5, -1.0]])
Y_OK = np.array([1, -1])


# =============================================================================================
# engine= and precision= (every public algorithm with an engine)
# =============================================================================================

_G2 = np.eye(2)
_ENGINE_CALLS = {
    "perceptron": lambda **kw: reference.perceptron(X_OK, Y_OK, **kw),
    "normalized_perceptron": lambda **kw: reference.normalized_perceptron(X_OK, Y_OK, **kw),
    "nkp": lambda **kw: reference.nkp(_G2, **kw),
    "nvn": lambda **kw: reference.nvn(_G2, **kw),
    "snkp": lambda **kw: reference.snkp(_G2, **kw),
    "snkpvn": lambda **kw: reference.snkpvn(_G2, [0.5, 0.5], 0.1, **kw),
    "isnkpvn": lambda **kw: reference.isnkpvn(_G2, **kw),
    "pdm": lambda **kw: reference.pdm(X_OK, Y_OK, 0.1, **kw),
    "pfm": lambda **kw: reference.pfm(X_OK, Y_OK, 0.1, **kw),
    "pdm_succ": lambda **kw: reference.pdm_succ(X_OK, Y_OK, 0.1, **kw),
}


@pytest.mark.parametrize("name", sorted(_ENGINE_CALLS))
def test_fast_engine_with_precision_is_refused_before_anything_runs(name):
    """engine="fast" is float64 only (reference.fast.check_engine's contract): every public algorithm
    refuses precision= with it, naming the fix, whether or not numba is installed (kills
    perceptrons.perceptron_8/_10, normalized_perceptron_7/_9, nkp_6/_8, von_neumann.nvn_7/_9:
    check_engine(engine, None) / check_engine(engine) let the compiled engine run at float64)."""
    with pytest.raises(ValueError, match=r"^engine='fast' runs in float64 only; precision= is the textbook engine's "
                                         r"\(pass engine='textbook' with precision=\.\.\., or drop precision\)$"):
        _ENGINE_CALLS[name](engine="fast", precision=30)
    assert _ENGINE_CALLS[name](precision=30).status == "separator"  # the textbook engine takes it


# =============================================================================================
# default budgets, by behaviour (mutmut's trampolines hide mutated defaults from inspect)
# =============================================================================================


@pytest.mark.parametrize(
    "call",
    [
        # points x, -x: no w has both margins positive; the Perceptron updates forever
        lambda: perceptron([[1.0], [1.0]], [1, -1], engine="fast"),
        lambda: normalized_perceptron([[1.0], [1.0]], [1, -1], engine="fast"),
        # G of the points a, -a: G alpha = (a0 - a1, a1 - a0) is never > 0
        lambda: nkp(np.array([[1.0, -1.0], [-1.0, 1.0]]), engine="fast"),
        # a_1 = e_1, a_2 = -e_1, a_3 = e_2: 0 lies on the hull's boundary, NVN's ||w_k|| decays only
        # sublinearly (about 1/(2 sqrt(k))), far above 1e-12 within 10^5 steps; G p_k > 0 never holds
        # (the first two entries are opposite)
        lambda: nvn(np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), 1e-12, engine="fast"),
    ],
    ids=["perceptron", "normalized_perceptron", "nkp", "nvn"],
)
def test_default_budget_of_the_rp14_algorithms_is_100_000(call):
    """The default max_iter is 100_000 (the signatures, tests/test_algorithm_mutations.py) and the
    textbook wrapper passes it on to the compiled engine; on data that never separate (nor certify)
    the run stops exactly there (kills perceptrons.perceptron_3, normalized_perceptron_2, nkp_1,
    von_neumann.nvn_2: max_iter = 100001)."""
    pytest.importorskip("numba")
    r = call()
    assert (r.status, r.iterations) == ("max_iter", 100_000)


# =============================================================================================
# NVN (reference.von_neumann)
# =============================================================================================


def test_nvn_float_only_certificate_does_not_hide_the_primal_exit():
    """G = [[1, c], [c, 1]] with c = -5/8, p_0 = (1/2, 1/2): ||p_0||_G^2 = (1 + c)/2 = 3/16 exactly and
    G p_0 = (3/16, 3/16) > 0.  With epsilon = fl(sqrt(3)/4), which is below sqrt(3)/4, the computed
    ||p_0||_G equals epsilon (the float test passes) but the exact one exceeds it: no certificate
    (RP14 Alg. 5's test is ||p_k||_G <= epsilon), and the primal exit of E-A6 returns p_0 at k = 0
    (kills von_neumann._exit_1: `or not _verify(...)` keeps claiming the unverifiable certificate
    and never reaches the primal exit)."""
    c = -0.625
    G = np.array([[1.0, c], [c, 1.0]])
    epsilon = float(np.sqrt(3.0)) / 4
    assert Fraction(epsilon) ** 2 < Fraction(3, 16)  # exactly: ||p_0||_G > epsilon
    assert g_norm(G, np.array([0.5, 0.5])) <= epsilon  # ... while the float test says <=
    r = nvn(G, epsilon, max_iter=50)
    assert (r.status, r.iterations) == ("separator", 0)
    np.testing.assert_array_equal(r.alpha, [0.5, 0.5])


def test_nvn_primal_exit_is_strict():
    """E-A6's primal exit needs min_i (G p_k)_i > 0.  For a_1 = e_1, a_2 = e_2, a_3 = -e_2,
    G p_0 = (1/3, 0, 0) exactly (in float64 too): no claim at k = 0, so a run stopped there reports
    a plain budget exhaustion, not a rejected separator claim (kills von_neumann._exit_18: `>= 0`
    claims a separator that its verification then refuses)."""
    G = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, -1.0], [0.0, -1.0, 1.0]])
    assert (G @ np.full(3, 1 / 3))[1] == 0.0
    r = nvn(G, 0.1, max_iter=0)
    assert r.status == "max_iter" and r.iterations == 0
    assert "not verified" not in r.message and "separator" not in r.message


def test_nvn_line_search_step_is_positive_when_den_rounds_to_one():
    """RP14 Alg. 5's theta_k = clip(<w, w - a> / ||w - a||^2, 0, 1) for any ||w - a||^2 > 0.  Points
    a_1 = e_1, a_2 = -e_1, a_3 = e_2, a_4 = (0, -c, s) with c = 1 - 2^-53: ||w_0||^2 = (1 - c)/8 = 2^-56
    (so ||w_0|| > epsilon = 1e-9), (G p_0)_1 = 0, j = 1, and ||w_0 - a_1||^2 = 1 + 2^-56, which is 1.0
    in float64.  theta_0 must still be the (tiny, positive) exact ratio, up to round-off (kills
    von_neumann._step_33: `den > 1` takes theta = 0 when the denominator rounds to 1)."""
    c = np.nextafter(1.0, 0.0)
    G = np.array([[1, -1, 0, 0], [-1, 1, 0, 0], [0, 0, 1, -c], [0, 0, -c, 1.0]])
    r = nvn(G, 1e-9, max_iter=1, trace=True)
    s1 = r.trace[1]
    assert s1.j == 0
    Gq = [[Fraction(v) for v in row] for row in G]
    p = [Fraction(1, 4)] * 4
    d = [p[i] - (1 if i == 0 else 0) for i in range(4)]
    Gd = [sum(Gq[i][k] * d[k] for k in range(4)) for i in range(4)]
    num, den = sum(p[i] * Gd[i] for i in range(4)), sum(d[i] * Gd[i] for i in range(4))
    assert num > 0 and den > 0
    exact = num / den
    assert abs(Fraction(float(s1.theta)) - exact) <= exact * Fraction(2, 2**52)


# =============================================================================================
# Perceptrons (reference.perceptrons)
# =============================================================================================


@pytest.mark.parametrize("fn", [perceptron, normalized_perceptron], ids=lambda f: f.__name__)
@pytest.mark.parametrize("rho", [-1.0, 0.0, -1e-300])
def test_perceptron_rho_message_names_the_fix(fn, rho):
    """A bad rho is refused naming both fixes, the value to pass and rho=None (kills
    perceptrons._check_primal_data_14, `rho=none`)."""
    with pytest.raises(ValueError, match=r"^rho must lie in \(0, inf\), got .*; the augmentation \(bias\) coordinate, "
                                         r"e\.g\. rho=1\.0; or rho=None$"):
        fn(X_OK, Y_OK, rho=rho)


def test_normalized_perceptron_verifies_on_the_given_data_when_scaling_is_inexact():
    """Rows x_1 = (2^100, 0), x_2 = (0, 2^-1000): normalized they are e_1, e_2, and Alg. 2 gives
    w_1 = e_1, w_2 = (e_1 + e_2)/2, which separates X (margins 2^99, 2^-1001).  Scaling X as a whole
    by 2^-101 would flush x_2 to zero, so the separator must be verified on X itself (kills
    perceptrons._exact_or_2: `... or True` verifies on the flushed copy, where x_2's margin is 0, and
    the run never ends).  normalize=True runs on X_2, no power-of-two scaling: no info["scale"]
    (kills normalized_perceptron_85, e = 1 there)."""
    X = np.array([[2.0**100, 0.0], [0.0, 2.0**-1000]])
    r = normalized_perceptron(X, [1, 1], max_iter=10)
    assert (r.status, r.iterations) == ("separator", 2)
    np.testing.assert_array_equal(r.w, [0.5, 0.5])
    assert "scale" not in r.info
    assert "scale" not in normalized_perceptron(X_OK, Y_OK).info
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


# =============================================================================================
# The arithmetic (reference.arithmetic)
# =============================================================================================


def test_g_norm_without_ar_is_computed_in_float64():
    """g_norm(G, alpha) without ``ar``: "the norm is computed in float64 and returned as a Python float"
    -- also for mpf arrays and inside a wider mpmath context, where evaluating on the mpf entries would
    round differently (kills arithmetic.g_norm_4/_6/_8/_10: G or alpha not read as float64)."""
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
    as a float64 array (kills Arithmetic.array_3/_5: np.array(x) without the dtype keeps int64 / object)."""
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
    floor(2.5) = 2 and floor(-0.5) = -1 (kills Arithmetic.floor_2/_5: numpy's floor on an mpf goes
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
    is, same shape (kills scale_rows_pow2_33: np.max over an empty axis raises; _40: np.zeros(None)
    raises; _41: np.zeros(A.shape[1]) gives one exponent per column, which does not broadcast)."""
    from reference.arithmetic import scale_rows_pow2

    out = scale_rows_pow2(np.zeros(shape))
    assert out.shape == shape and out.dtype == np.float64


def test_g_norm_upper_bounds_also_a_negative_quadratic_form():
    """For a G with p^T G p < 0 (not PSD: only the verifiers' inputs are), ||p||_G = sqrt(max(p^T G p, 0))
    = 0, and g_norm_upper still returns a number >= 0, not an error (kills g_norm_upper_19:
    ar.scalar(None) raises TypeError in the branch where Q + err rounds to <= 0)."""
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
