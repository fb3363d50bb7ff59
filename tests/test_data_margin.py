"""Certified margins of a data set at scale (reference.margin_from_data): planted margins,
agreement with the dense reference.margin, exact Gordan certificates, witnesses that the
certification does not trust, dense vs CSR bit for bit, and the real data sets (slow)."""

import math
from fractions import Fraction
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from reference import data_margin as dm
from reference.patterns import make_patterns
from theorems.instances.families import data_dir

DATA = data_dir() or Path("shared-data-absent")  # $MARGINS_DATA or ../shared/data beside the repository


def _heart():
    with resources.as_file(resources.files("reference.data_files") / "heart_scale.txt") as p:
        return ref.load_libsvm(p, n_features=13)


def _dense_margin(X, y, rho, Delta):
    Y = make_patterns(X, y, rho=rho, Delta=Delta).dense()
    return ref.margin(Y @ Y.T)


def test_planted_margins_without_delta():
    # {(1, 0), (0, 1)}, both labelled +1: gamma = 1/sqrt(2) (the min-norm point (1/2, 1/2))
    M = ref.margin_from_data(np.array([[1.0, 0.0], [0.0, 1.0]]), [1, 1])
    assert M.separable is True and M.lower <= 1 / math.sqrt(2) <= M.upper and M.relative_width < 1e-13
    # normalized: the scale of the points does not matter (rho_2)
    Mn = ref.margin_from_data(np.array([[2.0, 0.0], [0.0, 3.0]]), [1, 1], normalize=True)
    assert Mn.lower <= 1 / math.sqrt(2) <= Mn.upper and Mn.relative_width < 1e-13
    # unnormalized the same points have margin 6/sqrt(13) (distance from 0 to the segment)
    Mu = ref.margin_from_data(np.array([[2.0, 0.0], [0.0, 3.0]]), [1, 1])
    assert Mu.lower <= 6 / math.sqrt(13) <= Mu.upper and Mu.relative_width < 1e-13


def test_planted_margin_in_the_extended_space():
    # one point x = (1), label +1, rho = None, Delta = 1: y = (1, 1), gamma_d = sqrt(2)
    M = ref.margin_from_data(np.array([[1.0]]), [1], Delta=1.0)
    assert M.lower <= math.sqrt(2) <= M.upper and M.relative_width < 1e-13
    # x_1 = x_2 = (1) with labels +1, -1 (not separable), Delta: gamma_d = Delta / sqrt(2) (exact: the
    # patterns (1, D, 0), (-1, 0, -D) have min-norm point (y_1 + y_2)/2 = (0, D/2, -D/2))
    for D in (0.5, 1.0, 3.0):
        M = ref.margin_from_data(np.array([[1.0], [1.0]]), [1, -1], Delta=D)
        assert M.lower <= D / math.sqrt(2) <= M.upper and M.relative_width < 1e-12, D


@pytest.mark.parametrize("kw", [dict(rho=1.0, Delta=1.0), dict(rho=None, Delta=0.5), dict(rho=2.0, Delta=3.0)])
def test_agrees_with_the_dense_margin_on_heart_scale(kw):
    X, y = _heart()
    X, y = X[:120], y[:120]
    M = ref.margin_from_data(X, y, **kw)
    D = _dense_margin(X, y, kw["rho"], kw["Delta"])
    assert M.lower <= D.upper and D.lower <= M.upper  # both intervals contain the margin
    assert M.relative_width < 1e-11 and abs(M.value - D.value) <= 1e-9 * D.value


def test_separable_without_delta_agrees_with_the_dense_margin():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 4))
    w = np.array([1.0, -2.0, 0.5, 1.0])
    y = np.where(X @ w > 0, 1, -1)
    X = X + 0.3 * y[:, None] * w / np.linalg.norm(w)  # a planted gap around the hyperplane
    for normalize in (False, True):
        M = ref.margin_from_data(X, y, rho=None, normalize=normalize)
        G = ref.gram(X, y) if normalize else ref.signed_gram(X, y)
        D = ref.margin(G)
        assert M.separable is True and D.feasible is True
        assert M.lower <= D.upper and D.lower <= M.upper and M.relative_width < 1e-9


def _exact_zero(X, y, rho, support, c):
    acc = [Fraction(0)] * (X.shape[1] + (rho is not None))
    for k, ck in zip(support, c):
        row = list(X[k]) + ([rho] if rho is not None else [])
        for j, v in enumerate(row):
            acc[j] += ck * Fraction(float(v)) * int(y[k])
    return all(a == 0 for a in acc)


def test_gordan_certificate_is_exact():
    # XOR with a bias: not separable
    X = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    y = np.array([1, 1, -1, -1])
    M = ref.margin_from_data(X, y, rho=1.0)
    assert M.separable is False and M.upper == 0.0 and M.lower == -M.R
    support, c = M.gordan
    assert all(ck > 0 for ck in c) and sum(c) == 1 and len(support) <= X.shape[1] + 2
    assert _exact_zero(X, y, 1.0, support, c)
    D = _dense_margin(X, y, 1.0, None)
    assert D.upper <= 0 and M.lower <= D.lower  # the dense negative margin lies inside [-R, 0]
    # with Delta the same data are separable (PT11 Sec. 5)
    assert ref.margin_from_data(X, y, rho=1.0, Delta=1.0).separable is True


def test_gordan_on_heart_scale_is_exact():
    X, y = _heart()
    M = ref.margin_from_data(X, y, rho=1.0)
    assert M.separable is False
    support, c = M.gordan
    assert len(support) <= 13 + 2 and _exact_zero(X.toarray(), y, 1.0, support, c)


def test_exact_check_rejects_a_wrong_support():
    # z_1 = (1), z_2 = (2): no nonnegative combination is 0 -> None, never a false certificate
    P = make_patterns(np.array([[1.0], [2.0]]), [1, 1], rho=None)
    assert dm._exact_null_combination(P, np.array([0, 1])) is None
    # z_1 = (1), z_2 = (-3): c = (3/4, 1/4) exactly
    P = make_patterns(np.array([[1.0], [3.0]]), [1, -1], rho=None)
    assert dm._exact_null_combination(P, np.array([0, 1])) == (Fraction(3, 4), Fraction(1, 4))


def test_certification_does_not_trust_the_solver(monkeypatch):
    X, y = _heart()
    X, y = X[:100], y[:100]
    good = ref.margin_from_data(X, y, rho=1.0, Delta=1.0)
    real = dm._newton_l2svm

    def bad(P):  # a perturbed, suboptimal witness
        v, s, steps = real(P)
        return v * 0.9 + 0.01, s + 0.05, steps

    monkeypatch.setattr(dm, "_newton_l2svm", bad)
    worse = ref.margin_from_data(X, y, rho=1.0, Delta=1.0)
    # still a valid interval containing the margin, just wider
    assert worse.lower <= good.upper and good.lower <= worse.upper
    assert worse.lower < good.lower and worse.upper > good.upper and worse.relative_width > 1e-4


def test_certified_bounds_are_rigorous_on_random_witnesses():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 3))
    y = rng.choice([-1, 1], 30)
    P = make_patterns(X, y, rho=1.0, Delta=0.7)
    true = _dense_margin(X, y, 1.0, 0.7)
    for _ in range(20):
        u = rng.standard_normal(P.dim)
        beta = rng.random(P.m)
        assert dm.certified_lower(P, u) <= true.upper
        assert dm.certified_upper(P, beta) >= true.lower
    with pytest.raises(ValueError, match="u must be a finite vector of length"):
        dm.certified_lower(P, np.ones(3))
    with pytest.raises(ValueError, match="beta must be a finite nonnegative nonzero"):
        dm.certified_upper(P, -np.ones(P.m))


@settings(max_examples=25)
@given(
    st.integers(2, 12).flatmap(
        lambda m: st.tuples(
            st.lists(st.lists(st.sampled_from([0.0, 0.0, 1.0, -1.0, 0.5, 2.0]), min_size=3, max_size=3), min_size=m, max_size=m),
            st.lists(st.sampled_from([1, -1]), min_size=m, max_size=m),
        )
    ),
    st.sampled_from([dict(rho=1.0, Delta=1.0), dict(rho=1.0), dict(rho=0.5, Delta=2.0)]),
)
def test_dense_and_csr_inputs_bit_identical(data, kw):
    X, y = np.array(data[0]), np.array(data[1])
    A = ref.margin_from_data(X, y, **kw)
    B = ref.margin_from_data(sp.csr_matrix(X), y, **kw)
    assert (A.lower, A.upper, A.separable, A.method) == (B.lower, B.upper, B.separable, B.method)
    assert A.lower <= A.upper


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(Delta=0.0), "Delta must lie in"),
        (dict(Delta=-1.0), "Delta must lie in"),
        (dict(rho=-1.0), "rho must lie in"),
        (dict(Delta=1.0, normalize=True), "normalize=True .* has no extended space"),
        (dict(normalize=1), "normalize must be True or False"),
    ],
)
def test_bad_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        ref.margin_from_data(np.eye(2), [1, -1], **kw)


@pytest.mark.parametrize(
    "X, kw, match",
    [
        (np.eye(2), dict(Delta=1e308), r"Delta=1e\+308: Delta\^2 overflows float64.*rescale X, rho and Delta"),
        (np.eye(2), dict(rho=1e308), r"rho=1e\+308: rho\^2 overflows float64.*rescale X, rho and Delta"),
        (np.eye(2), dict(rho=1.0, Delta=1e200), r"Delta=1e\+200: Delta\^2 overflows"),
        (np.eye(2), dict(Delta=1e-200), r"Delta=1e-200 is too small beside the largest entry 1 of X and rho.*pass a larger Delta"),
        (np.eye(2), dict(rho=1e70, Delta=1e-10), r"Delta=1e-10 is too small beside the largest entry 1e\+70"),
        (1e200 * np.eye(2), dict(), r"X has an entry of size 1e\+200.*rescale X, rho and Delta"),
        (1e200 * np.eye(2), dict(normalize=True), r"X has an entry of size 1e\+200"),
    ],
)
def test_scales_whose_squares_leave_float64_are_value_errors_naming_the_argument(X, kw, match):
    """Delta = 1e308 raised OverflowError (34, 'Numerical result out of range') from Delta**2,
    X = 1e200 'u must be a finite vector', Delta = 1e-200 a ZeroDivisionError (new-user trial)."""
    with pytest.raises(ValueError, match=match):
        ref.margin_from_data(X, [1, -1], **kw)


def test_scales_at_the_limit_are_computed_and_correct():
    # x_1 = x_2 = (1), labels +1, -1: gamma_d = Delta / sqrt(2) exactly (see above), at the edges of the range
    for D in (dm.SCALE_LIMIT, 2.0**-200):
        M = ref.margin_from_data(np.array([[1.0], [1.0]]), [1, -1], Delta=D)
        assert M.lower <= D / math.sqrt(2) <= M.upper and M.lower > 0, D
    M = ref.margin_from_data(np.array([[1.0], [1.0]]), [1, -1], Delta=dm.SCALE_LIMIT)
    assert M.relative_width < 1e-12
    M = ref.margin_from_data(dm.SCALE_LIMIT * np.array([[1.0, 0.0], [0.0, 1.0]]), [1, 1])  # gamma = 2^250 / sqrt(2)
    assert M.lower <= dm.SCALE_LIMIT / math.sqrt(2) <= M.upper and M.relative_width < 1e-12


def test_zero_rows():
    X = np.array([[0.0, 0.0], [1.0, 0.0]])
    for kw in (dict(rho=None), dict(rho=None, normalize=True)):
        with pytest.raises(ValueError, match="X has 1 zero rows"):
            ref.margin_from_data(X, [1, -1], **kw)
    assert ref.margin_from_data(X, [1, -1], rho=1.0).separable is True  # augmentation makes it nonzero
    assert ref.margin_from_data(X, [1, -1], rho=None, Delta=1.0).separable is True


def test_cli_margin(tmp_path, capsys):
    import json

    from theorems import cli

    f = tmp_path / "xor.svm"
    f.write_text("+1\n+1 1:1 2:1\n-1 1:1\n-1 2:1\n")
    assert cli.main(["margin", "--data", str(f), "--n-features", "2"]) == 0
    out = capsys.readouterr().out
    assert "NOT separable (certified exactly: Gordan)" in out and "m = 4 points, d = 2 features, nnz = 4" in out
    assert cli.main(["margin", "--data", str(f), "--Delta", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert {"lower", "upper", "method", "m", "d", "nnz"} <= set(d) and 0 < d["lower"] <= d["upper"]
    assert cli.main(["margin", "--data", str(f), "--rho", "none"]) == 2  # zero row without a bias
    assert "zero rows" in capsys.readouterr().err


def _real(name, fname):
    path = DATA / name / fname
    if not path.is_file():
        pytest.skip(f"{path} not present (the shared LIBSVM data sets are optional)")
    return ref.load_libsvm(path)


@pytest.mark.parametrize("name,fname,rows", [("heart_scale", "heart_scale", 120), ("sonar", "sonar", 120), ("ionosphere", "ionosphere", 120)])
def test_small_real_sets_against_the_dense_margin(name, fname, rows):
    X, y = _real(name, fname)
    M = ref.margin_from_data(X[:rows], y[:rows], rho=1.0, Delta=1.0)
    D = _dense_margin(X[:rows], y[:rows], 1.0, 1.0)
    assert M.lower <= D.upper and D.lower <= M.upper and M.relative_width < 1e-10


@pytest.mark.slow
@pytest.mark.parametrize("name,fname", [("a9a", "a9a.gz"), ("w8a", "w8a.gz")])
def test_full_size_real_sets(name, fname):
    X, y = _real(name, fname)
    M = ref.margin_from_data(X, y, rho=1.0, Delta=1.0)
    assert M.separable is True and M.relative_width <= 1e-9 and M.seconds < 60
    N = ref.margin_from_data(X, y, rho=1.0)
    assert N.separable is False and N.upper == 0.0 and len(N.gordan[0]) <= X.shape[1] + 2


def test_wdbc_is_separable_witness_checked_exactly():
    # wdbc (unscaled, R ~ 5e3) with a bias is linearly separable with margin ~4.1e-5: the certified
    # lower bound is re-checked here in exact rational arithmetic from the witness u alone.
    X, y = _real("wdbc", "wdbc")
    M = ref.margin_from_data(X, y, rho=1.0)
    assert M.separable is True and M.relative_width < 1e-6
    u = [Fraction(float(v)) for v in M.u]
    D = X.toarray()
    exact = min(int(y[k]) * (sum(Fraction(float(D[k, j])) * u[j] for j in range(D.shape[1])) + u[-1]) for k in range(len(y)))
    norm_sq = sum(v * v for v in u)
    assert exact > 0 and Fraction(M.lower) ** 2 * norm_sq <= exact**2  # lower <= min_k u.y_k / ||u||, exactly


def test_wdbc_dense_margin_never_calls_separable_data_infeasible():
    # Regression: ||p*||_K^2 ~ 1.7e-9 is below Wolfe's round-off tolerance 64 n u max_i K_ii ~ 1e-4
    # here (R ~ 5e3), and margin(of='span') used to answer feasible=False from that float test alone,
    # although the witness u above separates wdbc exactly.  Undecided (None) is the honest answer.
    X, y = _real("wdbc", "wdbc")
    K = ref.signed_gram(X, y, rho=1.0)
    for of in ("span", "matrix"):
        m = ref.margin(K, of=of)
        assert m.feasible is not False and m.upper > 0, (of, m.method)
        assert m.feasible is True or "undecided" in m.method


# -- scaling rows by c > 0 changes no Gordan certificate (z_k -> c_k z_k: weights c_k -> c_k / c_k, renormalized)

#: 9 points in 3 dimensions, small integers, not separable without a bias (0 is a convex
#: combination of the z_k = l_k x_k); with rows 0-2 times 2^-20 or 1e-6 HiGHS's default
#: tolerance 1e-7 let the LP answer a support that is no convex combination (the decision was None).
SMALL_X = np.array([[1, -2, -1], [-1, 1, -1], [0, -2, -3], [1, 0, -2], [3, 3, 1], [-3, 0, -1], [-2, 1, -3], [-2, -3, -1], [1, 1, -2]], dtype=float)
SMALL_Y = np.array([-1, -1, -1, 1, -1, 1, 1, 1, 1])
#: XOR with two points far out; with a bias not separable; with rows 0-2 times 1e6 the LP's support did not verify.
XOR_X = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1], [2, 1], [1, 3]], dtype=float)
XOR_Y = np.array([1, 1, -1, -1, 1, 1])


def _scaled_rows(X, rows, c):
    Xs = np.array(X, dtype=float)
    Xs[list(rows)] *= c
    return Xs


def _check_certified_infeasible(M, X, y, rho, name):
    assert M.separable is False and M.upper == 0.0 and M.gordan is not None, f"{name}: {M.separable}, [{M.lower}, {M.upper}], {M.method}"
    support, c = M.gordan
    assert all(ck > 0 for ck in c) and sum(c) == 1, name
    assert _exact_zero(X, y, rho, support, c), f"{name}: the certificate is not an exact zero of the data as passed"
    assert M.lower == -M.R, name  # the trivial bound, with R of the data as passed
    R = max(math.sqrt(float(np.sum(X[k] ** 2)) + (rho or 0.0) ** 2) for k in range(X.shape[0]))
    assert R <= M.R <= R * (1 + 1e-14), name


@pytest.mark.parametrize("X, y, rho, label", [pytest.param(SMALL_X, SMALL_Y, None, "9 points in 3-D, no bias", id="small-no-bias"),
                                               pytest.param(XOR_X, XOR_Y, 1.0, "XOR + 2 points, bias 1", id="xor-bias")])
@pytest.mark.parametrize("c", [2.0**-20, 1e-6, 1e6])
def test_gordan_certificate_survives_scaling_rows(X, y, rho, label, c):
    name = f"{label}, rows 0-2 times {c!r}"
    _check_certified_infeasible(ref.margin_from_data(X, y, rho=rho), X, y, rho, label)
    Xs = _scaled_rows(X, (0, 1, 2), c)
    _check_certified_infeasible(ref.margin_from_data(Xs, y, rho=rho), Xs, y, rho, name)


def test_gordan_certificate_under_power_of_two_row_scaling_is_the_rescaled_one():
    # z_k -> 2^-20 z_k for k = 0, 1, 2 is exact: the certificate has the same support and weights
    # c_k 2^20 on the scaled rows, renormalized -- exactly
    M = ref.margin_from_data(SMALL_X, SMALL_Y)
    Ms = ref.margin_from_data(_scaled_rows(SMALL_X, (0, 1, 2), 2.0**-20), SMALL_Y)
    assert Ms.separable is False and Ms.gordan is not None, f"9 points in 3-D, rows 0-2 times 2^-20: {Ms.method}"
    assert Ms.gordan[0] == M.gordan[0], "9 points in 3-D, rows 0-2 times 2^-20: support changed"
    w = [ck * (2**20 if k < 3 else 1) for k, ck in zip(*M.gordan)]
    assert Ms.gordan[1] == tuple(wk / sum(w) for wk in w), "9 points in 3-D, rows 0-2 times 2^-20: weights not the rescaled ones"


@pytest.mark.parametrize("c, rho", [(1e-6, None), (2.0**-20, None), (1e6, 1.0), (1e-6, 1.0)])
def test_ionosphere_stays_not_separable_with_three_rows_scaled(c, rho):
    X, y = _real("ionosphere", "ionosphere")
    Xs = sp.diags([c] * 3 + [1.0] * (X.shape[0] - 3)) @ X
    M = ref.margin_from_data(Xs, y, rho=rho)
    _check_certified_infeasible(M, Xs.toarray(), y, rho, f"ionosphere, rows 0-2 times {c!r}, rho={rho}")


def test_wolfe_fallback_cost_is_bounded_on_a_scaled_non_separable_instance(monkeypatch):
    # Without the LP's certificate the data go to Wolfe.  Non-separable: the float iterates approach the
    # min-norm point 0 and then circle (a point added and dropped again, |x|^2 no longer decreasing);
    # they used to go on to WOLFE_MAX_ITER = 100000 cycles.  Now a cycle without progress ends the run,
    # and the run has at most WOLFE_CYCLES_PER_DIM (d0 + 2) cycles whatever WOLFE_MAX_ITER is.
    monkeypatch.setattr(dm, "gordan_certificate", lambda P: None)
    rng = np.random.default_rng(3)
    X = rng.integers(-3, 4, size=(60, 8)).astype(float)
    X[np.all(X == 0, axis=1), 0] = 1.0
    X[:3] *= 1e-6
    y = np.where(rng.random(60) < 0.5, 1, -1)
    M = ref.margin_from_data(X, y)
    m, d = X.shape
    assert M.separable is None and M.upper < 1e-12, f"60 random points in 8-D, rows 0-2 times 1e-6: {M.method}"
    assert M.info["wolfe_cycles"] <= 2 * (m + d), f"60 random points in 8-D, rows 0-2 times 1e-6: {M.info['wolfe_cycles']} Wolfe cycles"
    monkeypatch.setattr(dm, "WOLFE_MAX_ITER", 10**9)  # the cap relative to the dimension holds alone
    monkeypatch.setattr(dm, "WOLFE_CYCLES_PER_DIM", 2)
    assert ref.margin_from_data(X, y).info["wolfe_cycles"] <= 2 * (X.shape[1] + 2), "60 random points in 8-D: the cap per dimension"


@pytest.mark.parametrize("c", [1.0, 1e-6])
def test_wolfe_fallback_on_ionosphere_scaled_stops_when_it_stalls(monkeypatch, c):
    X, y = _real("ionosphere", "ionosphere")
    monkeypatch.setattr(dm, "gordan_certificate", lambda P: None)
    M = ref.margin_from_data(sp.diags([c] * 3 + [1.0] * (X.shape[0] - 3)) @ X, y)
    assert M.separable is None and M.info["wolfe_cycles"] <= X.shape[0], f"ionosphere, rows 0-2 times {c!r}: {M.info}"

