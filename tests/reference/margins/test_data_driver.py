"""Certified margins of a data set at scale (reference.margin_from_data): planted margins,
agreement with the dense reference.margin, exact Gordan certificates, witnesses that the
certification does not trust, dense vs CSR bit for bit, and the real data sets (slow)."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from importlib import resources
from pathlib import Path

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

import reference as ref
from reference.margins import data_bounds, data_driver, data_search
from reference.patterns import make_patterns
from tests.support.margin import U2, _TINY, _dense_margin
from theorems.instances.families import data_dir

U = Fraction(1, 2**53)  # unit roundoff
ETA = math.ldexp(1.0, -1074)  # the smallest positive subnormal


DATA = data_dir() or Path("shared-data-absent")  # $MARGINS_DATA or ../shared/data beside the repository


def _heart():
    with resources.as_file(resources.files("reference.data_files") / "heart_scale.txt") as p:
        return ref.load_libsvm(p, n_features=13)


def _exact_zero(X, y, rho, support, c):
    acc = [Fraction(0)] * (X.shape[1] + (rho is not None))
    for k, ck in zip(support, c):
        row = list(X[k]) + ([rho] if rho is not None else [])
        for j, v in enumerate(row):
            acc[j] += ck * Fraction(float(v)) * int(y[k])
    return all(a == 0 for a in acc)


def _real(name, fname):
    path = DATA / name / fname
    if not path.is_file():
        pytest.skip(f"{path} not present (the shared LIBSVM data sets are optional)")
    return ref.load_libsvm(path)


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


def _stalled_wolfe(Yn):
    """A float Wolfe that stops early: weights (0.501, 0.499) instead of the optimal (1/2, 1/2)."""
    return np.array([0.501, 0.499]), 1, False


_DMX, _DMY = np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([1, -1])


_SCALE_FIX = "rescale X, rho and Delta by one factor c (the margin scales by c)"


DATA_MARGIN_ERRORS = [
    (lambda: data_driver.margin_from_data(_DMX, _DMY, normalize=1), "normalize must be True or False, got 1"),
    (lambda: data_driver.margin_from_data(_DMX, _DMY, normalize=True, Delta=1.0),
     "normalize=True (RP14's rho_2) has no extended space; pass Delta=None, or normalize=False for PT11's gamma_d"),
    (lambda: data_driver.margin_from_data(_DMX, _DMY, rho=0), "rho must lie in (0, inf), got 0; pass e.g. rho=1.0, or rho=None for no augmentation"),
    (lambda: data_driver.margin_from_data(_DMX, _DMY, Delta=-1), "Delta must lie in (0, inf), got -1; pass e.g. Delta=1.0, or Delta=None for the original space"),
    (lambda: data_driver.margin_from_data(_DMX * 1e80, _DMY),
     "X has an entry of size 2e+80: its square overflows float64 here (entries up to 2^250 ~ 1.8e75); " + _SCALE_FIX),
    (lambda: data_driver.margin_from_data(_DMX, _DMY, rho=1e80), "rho=1e+80: rho^2 overflows float64 here (rho up to 2^250 ~ 1.8e75); " + _SCALE_FIX),
    (lambda: data_driver.margin_from_data(_DMX, _DMY, Delta=1e80), "Delta=1e+80: Delta^2 overflows float64 here (Delta up to 2^250 ~ 1.8e75); " + _SCALE_FIX),
    (lambda: data_driver.margin_from_data(_DMX, _DMY, Delta=1e-80),
     "Delta=1e-80 is too small beside the largest entry 2 of X and rho: Delta^-2 Z^T Z overflows float64 here "
     "(Delta >= 1.11e-75); pass a larger Delta, or " + _SCALE_FIX),
    (lambda: data_driver.margin_from_data(_DMX * 1e70, _DMY, Delta=1e-5),
     "Delta=1e-05 is too small beside the largest entry 2e+70 of X and rho: Delta^-2 Z^T Z overflows float64 here "
     "(Delta >= 1.11e-05); pass a larger Delta, or " + _SCALE_FIX),
    (lambda: data_driver.margin_from_data(_DMX, _DMY, rho=1e-70, Delta=1e-80),
     "Delta=1e-80 is too small beside the largest entry 2 of X and rho: Delta^-2 Z^T Z overflows float64 here "
     "(Delta >= 1.11e-75); pass a larger Delta, or " + _SCALE_FIX),
    (lambda: data_driver.margin_from_data(_DMX, _DMY, rho=1e70, Delta=1e-6),  # rho is the largest entry
     "Delta=1e-06 is too small beside the largest entry 1e+70 of X and rho: Delta^-2 Z^T Z overflows float64 here "
     "(Delta >= 5.53e-06); pass a larger Delta, or " + _SCALE_FIX),
    (lambda: data_driver.margin_from_data(_DMX * 1e-10, _DMY, Delta=1e-80),  # tiny data: the floor 2^-250 applies
     "Delta=1e-80 is too small beside the largest entry 2e-10 of X and rho: Delta^-2 Z^T Z overflows float64 here "
     "(Delta >= 5.53e-76); pass a larger Delta, or " + _SCALE_FIX),
    (lambda: data_driver.margin_from_data([[0.0, 0.0], [1.0, 0.0]], _DMY, normalize=True),
     "X has 1 zero rows (first: [0]): a zero point cannot be normalized and is never strictly separated; add a "
     "bias by augmentation (rho=1.0), or drop them with reference.drop_zero_rows(X, y)"),
    (lambda: data_bounds.certified_lower(make_patterns(_DMX, _DMY, rho=1.0), np.ones(2)),
     "u must be a finite vector of length 3 (the pattern space), got shape (2,)"),
    (lambda: data_bounds.certified_lower(make_patterns(_DMX, _DMY, rho=1.0), np.array([np.inf, 1.0, 1.0])),
     "u must be a finite vector of length 3 (the pattern space), got shape (3,)"),
    (lambda: data_bounds.certified_upper(make_patterns(_DMX, _DMY, rho=1.0), np.zeros(2)), "beta must be a finite nonnegative nonzero vector of length 2"),
    (lambda: data_bounds.certified_upper(make_patterns(_DMX, _DMY, rho=1.0), np.array([-1.0, 2.0])), "beta must be a finite nonnegative nonzero vector of length 2"),
    (lambda: data_bounds.certified_upper(make_patterns(_DMX, _DMY, rho=1.0), np.array([np.nan, 2.0])), "beta must be a finite nonnegative nonzero vector of length 2"),
    (lambda: data_bounds.certified_upper(make_patterns(_DMX, _DMY, rho=1.0), np.ones(3)), "beta must be a finite nonnegative nonzero vector of length 2"),
]


def _dm(**kw):
    base = dict(lower=1.0, upper=1.0, value=1.0, separable=True, u=None, beta=None, gordan=None, method="m", m=1, d=1,
                nnz=1, R=1.0, rho=None, Delta=None, normalize=False)
    base.update(kw)
    return data_driver.DataMargin(**base)


#: (p, nrm, ez, overflows): every p_k / nrm_k and every power of two exact, so the expected values are exact.
Z_COEFF = [
    ([0.25, 0.75], [0.5, 0.75], [3, -2], False),  # p / ||z|| = (1/16, 4): no overflow, no common factor
    ([0.5, 0.5], [0.5, 1.0], [-1030, 0], True),  # p / ||z|| = (2^1030, 1/2): overflows; times 2^-1030
]


#: (kwargs, X, y, exact margin squared): closed forms.  Delta = 1, one point x = 1: y = (1, 1), margin sqrt 2.
#: x = (3, 4), (4, 3), both +1: min-norm point (3.5, 3.5), margin^2 = 24.5; normalized: (0.7, 0.7), 0.98.
VALUE_CASES = [
    (dict(Delta=1.0), [[1.0]], [1], Fraction(2)),
    (dict(), [[3.0, 4.0], [4.0, 3.0]], [1, 1], Fraction(49, 2)),
    (dict(normalize=True), [[3.0, 4.0], [4.0, 3.0]], [1, 1], Fraction(49, 50)),
]


def _stalled_wolfe_2(Yn):
    """A float Wolfe that stopped at the first point: p = e_1 (a valid but not optimal witness)."""
    p = np.zeros(Yn.shape[0])
    p[0] = 1.0
    return p, 1, False


POLISH_CASES = [
    # the polish returns the float witness unchanged: nothing replaced, the method does not say polished
    ("identity", lambda Yn, p: (p, Yn.T @ p), False),
    # the polish improves the lower witness only (u = the min-norm point (3.5, 3.5), p unchanged): says polished
    ("lower only", lambda Yn, p: (p, np.array([3.5, 3.5])), True),
]


_WITNESSES = "lower = min_k u.y_k/||u||, upper = ||sum beta_k y_k||/sum beta_k [RP14 Lemma 3], rounding bounded"


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


def test_certification_does_not_trust_the_solver(monkeypatch):
    X, y = _heart()
    X, y = X[:100], y[:100]
    good = ref.margin_from_data(X, y, rho=1.0, Delta=1.0)
    real = data_search._newton_l2svm

    def bad(P):  # a perturbed, suboptimal witness
        v, s, steps = real(P)
        return v * 0.9 + 0.01, s + 0.05, steps

    monkeypatch.setattr(data_driver, "_newton_l2svm", bad)
    worse = ref.margin_from_data(X, y, rho=1.0, Delta=1.0)
    # still a valid interval containing the margin, just wider
    assert worse.lower <= good.upper and good.lower <= worse.upper
    assert worse.lower < good.lower and worse.upper > good.upper and worse.relative_width > 1e-4


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
    for D in (data_driver.SCALE_LIMIT, 2.0**-200):
        M = ref.margin_from_data(np.array([[1.0], [1.0]]), [1, -1], Delta=D)
        assert M.lower <= D / math.sqrt(2) <= M.upper and M.lower > 0, D
    M = ref.margin_from_data(np.array([[1.0], [1.0]]), [1, -1], Delta=data_driver.SCALE_LIMIT)
    assert M.relative_width < 1e-12
    M = ref.margin_from_data(data_driver.SCALE_LIMIT * np.array([[1.0, 0.0], [0.0, 1.0]]), [1, 1])  # gamma = 2^250 / sqrt(2)
    assert M.lower <= data_driver.SCALE_LIMIT / math.sqrt(2) <= M.upper and M.relative_width < 1e-12


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
    monkeypatch.setattr(data_driver, "gordan_certificate", lambda P: None)
    rng = np.random.default_rng(3)
    X = rng.integers(-3, 4, size=(60, 8)).astype(float)
    X[np.all(X == 0, axis=1), 0] = 1.0
    X[:3] *= 1e-6
    y = np.where(rng.random(60) < 0.5, 1, -1)
    M = ref.margin_from_data(X, y)
    m, d = X.shape
    assert M.separable is None and M.upper < 1e-12, f"60 random points in 8-D, rows 0-2 times 1e-6: {M.method}"
    assert M.info["wolfe_cycles"] <= 2 * (m + d), f"60 random points in 8-D, rows 0-2 times 1e-6: {M.info['wolfe_cycles']} Wolfe cycles"
    monkeypatch.setattr(data_search, "WOLFE_MAX_ITER", 10**9)  # the cap relative to the dimension holds alone
    monkeypatch.setattr(data_search, "WOLFE_CYCLES_PER_DIM", 2)
    assert ref.margin_from_data(X, y).info["wolfe_cycles"] <= 2 * (X.shape[1] + 2), "60 random points in 8-D: the cap per dimension"


@pytest.mark.parametrize("c", [1.0, 1e-6])
def test_wolfe_fallback_on_ionosphere_scaled_stops_when_it_stalls(monkeypatch, c):
    X, y = _real("ionosphere", "ionosphere")
    monkeypatch.setattr(data_driver, "gordan_certificate", lambda P: None)
    M = ref.margin_from_data(sp.diags([c] * 3 + [1.0] * (X.shape[0] - 3)) @ X, y)
    assert M.separable is None and M.info["wolfe_cycles"] <= X.shape[0], f"ionosphere, rows 0-2 times {c!r}: {M.info}"


@pytest.mark.parametrize("s", _TINY)
def test_margin_from_data_of_tiny_rows(s):
    """The normalized margin of {s (3, 4), s (4, 3)} is (7/5)/sqrt(2) (u = (1, 1) is optimal by
    symmetry), squared 49/50: certified, positive, at any scale s (the search divided by norms 0 and
    stopped on a non-finite witness); R = max ||y_k|| = 5 s rounded up (it was 0)."""
    X = np.array([[3.0, 4.0], [4.0, 3.0]]) * s
    M = data_driver.margin_from_data(X, np.array([1, 1]), normalize=True)
    assert M.separable and 0 < M.lower and Fraction(M.lower) ** 2 <= Fraction(49, 50) <= Fraction(M.upper) ** 2
    M = data_driver.margin_from_data(X, np.array([1, 1]))
    exact_sq = max(Fraction(float(a)) ** 2 + Fraction(float(b)) ** 2 for a, b in X)
    assert exact_sq <= Fraction(M.R) ** 2 <= exact_sq * (1 + Fraction(1, 10**12))


def test_R_bounds_a_pattern_whose_square_underflows():
    """y = +-1e-170 (one feature, no rho): max ||y_k|| = 1e-170, squared 1e-340 underflows; R was 0."""
    M = data_driver.margin_from_data(np.array([[1e-170], [-1e-170]]), np.array([1, 1]))
    assert Fraction(M.R) >= Fraction(1e-170) and M.lower <= -1e-170  # lower: gamma = -1e-170 here


@pytest.mark.parametrize("q", [1, 4, 16, 64])
def test_R_is_an_upper_bound_of_exact_norms(q):
    """One pattern y = (1, ..., 1) with q entries: ||y|| = sqrt(q) in {1, 2, 4, 8}, exact, and every
    square and sum is exact, so R lies above sqrt(q) only by its allowance (2 gamma_{q+2} on the sum
    of squares and 4u after the square root, then one step up): an allowance that shrinks R instead
   ."""
    M = data_driver.margin_from_data(np.ones((1, q)), np.array([1]))
    assert q <= Fraction(M.R) ** 2 < q * (1 + 400 * U)


@pytest.mark.parametrize("e", [-560, -1000])
@pytest.mark.parametrize("normalize", [False, True])
def test_upper_bound_of_tiny_data_is_tight(e, normalize):
    """{2^e (3, 4), 2^e (4, 3)} (exact): the margin is 2^e (7/2) sqrt(2), squared 2^2e 49/2, and
    normalized (7/5) / sqrt(2), squared 49/50.  The documented relative width ~1e-12 of separable data
    holds at this scale too: the squares of W underflowed and their absolute allowance 2^-1074 made
    the upper bound ~1e8 times too large (valid, but useless)."""
    X = np.ldexp(np.array([[3.0, 4.0], [4.0, 3.0]]), e)
    M = data_driver.margin_from_data(X, np.array([1, 1]), normalize=normalize)
    exact = Fraction(49, 50) if normalize else Fraction(49, 2) * Fraction(2) ** (2 * e)
    assert Fraction(M.lower) ** 2 <= exact <= Fraction(M.upper) ** 2 <= exact * (1 + Fraction(1, 10**11))


def test_extended_space_answer_carries_its_witnesses_delta_and_time():
    """x = 1 (label +1), x = -1 (label -1), Delta: gamma_d = sqrt(1 + Delta^2 / 2) (closed form, see
    test_mutation_kills_data).  The answer records Delta, and its witnesses reproduce its bounds:
    certified_lower(P, u) = lower and certified_upper(P, beta) = upper (the certification is
    deterministic); seconds is the measured time of this call."""
    import time

    X, y, D = np.array([[1.0], [-1.0]]), np.array([1, -1]), 0.5
    t0 = time.perf_counter()
    M = data_driver.margin_from_data(X, y, Delta=D)
    elapsed = time.perf_counter() - t0
    assert M.Delta == D and M.rho is None and M.separable is True
    P = make_patterns(X, y, rho=None, Delta=D)
    assert M.u is not None and M.u.shape == (P.dim,) and data_bounds.certified_lower(P, M.u) == M.lower
    assert M.beta is not None and M.beta.shape == (2,) and data_bounds.certified_upper(P, M.beta) == M.upper
    assert M.lower <= np.sqrt(1 + D * D / 2) <= M.upper
    assert 0 < M.seconds <= elapsed and M.as_dict()["Delta"] == D


def test_gordan_answer_records_its_time():
    """The non-separable path (Gordan) also reports the measured time of the call."""
    import time

    t0 = time.perf_counter()
    M = data_driver.margin_from_data(np.array([[1.0], [1.0]]), np.array([1, -1]))  # z = 1, -1: 0 = (z_1 + z_2) / 2
    elapsed = time.perf_counter() - t0
    assert M.separable is False and dict(zip(*M.gordan)) == {0: Fraction(1, 2), 1: Fraction(1, 2)}
    assert 0 < M.seconds <= elapsed


def test_extended_space_witness_that_proves_nothing_is_undecided(monkeypatch):
    """With Delta every data set is separable (PT11 Sec. 5), but the claim rests on the witness: an
    untrusted search that returns u with min_k u . y_k = 0 proves only lower = 0.  Then the answer is
    undecided (None), never 'separable' (lower > 0 is not certified) nor 'not separable' (False means
    a Gordan certificate, which the extended space never has).
    x_1 = (1, 0), x_2 = (0, 1), both +1, Delta = 1: y_1 = (1, 0, 1, 0), y_2 = (0, 1, 0, 1); the witness
    v = (0, 1), s = (0, 1) gives u = (0, 1, 0, 1): u . y_1 = 0 exactly (disjoint supports), u . y_2 = 2."""
    monkeypatch.setattr(data_driver, "_newton_l2svm", lambda P: (np.array([0.0, 1.0]), np.array([0.0, 1.0]), 1))
    M = data_driver.margin_from_data(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, 1]), Delta=1.0)
    # lower is 0 less certified_lower's absolute underflow allowance (a few 2^-1074)
    assert -1e-320 < M.lower <= 0.0 and M.separable is None
    assert M.upper >= 1 / np.sqrt(2)  # beta = s / Delta = (0, 1): ||y_2|| / 1 = sqrt(2) >= gamma_d


@pytest.mark.parametrize("d", [2, data_search.POLISH_MAX_DIM + 1])  # the larger one is never polished: the float witnesses must do
@pytest.mark.parametrize("normalize", [False, True])
def test_wolfe_answer_carries_its_witnesses_and_time(normalize, d):
    """z = (3, 4) and (6, -8) (norms 5 and 10, mirror directions): the segment (3 + 3t, 4 - 12t) is nearest 0
    at t = 13/51, (192, 48) / 51: gamma = 48 sqrt(17) / 51 = 16 / sqrt(17); normalized: (0.6, +-0.8), gamma = 0.6.
    The witnesses reproduce the bounds (normalized: beta holds the coefficients of the z_k, so the
    normalized weights (1/2, 1/2) become (1/10, 1/20)); the interval is tight; seconds is measured."""
    import time

    X, y = np.zeros((2, d)), np.array([1, -1])
    X[:, :2] = [[3.0, 4.0], [-6.0, 8.0]]
    t0 = time.perf_counter()
    M = data_driver.margin_from_data(X, y, normalize=normalize)
    elapsed = time.perf_counter() - t0
    P = make_patterns(X, y, rho=None)
    true = 0.6 if normalize else 16 / np.sqrt(17.0)
    assert M.separable is True and M.lower <= true * (1 + 1e-15) and true * (1 - 1e-15) <= M.upper
    assert M.upper - M.lower <= 1e-12 * true  # the docstring's ~1e-12 (the allowances grow with d)
    assert M.u is not None and data_bounds.certified_lower(P, M.u, normalize=normalize) == M.lower
    assert data_bounds.certified_upper(P, M.beta, normalize=normalize) == M.upper
    assert 0 < M.seconds <= elapsed


@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("d, scale", [(data_search.POLISH_MAX_DIM, 1.0), (2, 2.0**-40), (2, 2.0**40)])
def test_stalled_wolfe_is_polished_at_every_scale_and_up_to_the_dimension_limit(monkeypatch, d, scale, normalize):
    """x_1 = s (1, 1, 0, ...), x_2 = s (1, -1, 0, ...), both +1: the min-norm point is s (1, 0, ...), gamma = s
    (normalized: 1/sqrt(2)).  A stalled float Wolfe leaves a wide interval; the mpmath polish closes it for
    pattern length d0 <= POLISH_MAX_DIM (inclusive) and at any scale s (the width test is relative)."""
    monkeypatch.setattr(data_driver, "_wolfe_primal", _stalled_wolfe)
    X = np.zeros((2, d))
    X[:, 0], X[0, 1], X[1, 1] = scale, scale, -scale
    M = data_driver.margin_from_data(X, np.array([1, 1]), normalize=normalize)
    true = 1 / np.sqrt(2.0) if normalize else scale
    assert M.separable is True and M.lower <= true <= M.upper
    assert M.upper - M.lower <= 1e-12 * true and "polished at 40 digits" in M.method  # ~1e-12 (docstring)


def test_wolfe_witness_that_proves_nothing_is_undecided(monkeypatch):
    """x_1 = (1, 0), x_2 = (0, 1), both +1 (separable: no Gordan certificate).  A float Wolfe that returns
    p = e_2 gives u = (0, 1) with u . z_1 = 0 exactly: lower = 0 certifies nothing, so separable is None
    ('True' needs a certified lower > 0)."""
    monkeypatch.setattr(data_driver, "_wolfe_primal", lambda Yn: (np.array([0.0, 1.0]), 1, False))
    M = data_driver.margin_from_data(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, 1]))
    assert M.gordan is None
    assert M.separable is (True if M.lower > 0 else None)
    assert M.lower <= 1 / np.sqrt(2) <= M.upper


def test_scale_check_message_for_all_zero_x():
    """X = 0 (allowed with rho and Delta: every pattern is nonzero): the largest entry of X and rho is rho."""
    with pytest.raises(ValueError) as err:
        data_driver.margin_from_data(np.zeros((2, 2)), np.array([1, -1]), rho=0.5, Delta=1e-80)
    assert str(err.value) == ("Delta=1e-80 is too small beside the largest entry 0.5 of X and rho: Delta^-2 Z^T Z overflows "
                              "float64 here (Delta >= 5.53e-76); pass a larger Delta, or rescale X, rho and Delta by one "
                              "factor c (the margin scales by c)")


@pytest.mark.parametrize("kw", [dict(rho=4.0), dict(Delta=4.0), dict(rho=4.0, Delta=12.0)])
def test_R_is_the_longest_pattern_rounded_up(kw):
    """R = max_k ||y_k||, rounded up: x = (3) with rho = 4 or Delta = 4 gives ||y|| = 5; with both,
    y = (3, 4, 12): 13.  Exact Pythagorean values, so R must lie in [true, true (1 + 1e-14)]."""
    M = data_driver.margin_from_data(np.array([[3.0]]), np.array([1]), **kw)
    true = 13.0 if len(kw) == 2 else 5.0
    assert true <= M.R <= true * (1 + 1e-14)


@pytest.mark.parametrize("rho, Delta", [(None, None), (1.0, None), (0.5, None), (3.0, None), (None, 0.5),
                                        (0.5, 2.0), (1.0, 1.0)])
def test_R_is_the_largest_pattern_norm_rounded_up(rho, Delta):
    X = np.array([[1e-3, 0.0], [0.1, 0.2], [0.3, -0.25]])
    P = make_patterns(X, np.array([1, -1, 1]), rho=rho, Delta=Delta)
    extra = (Fraction(rho) ** 2 if rho is not None else 0) + (Fraction(Delta) ** 2 if Delta is not None else 0)
    true_sq = max(sum(Fraction(v) ** 2 for v in row) + extra for row in X)
    R = Fraction(data_driver._R(P, False))
    assert true_sq <= R**2 < true_sq * (1 + 100 * U2)
    assert data_driver._R(P, True) == 1.0


def test_as_dict_lists_the_gordan_support():
    """z = (2, 1, -1): 0 = c_a z_a + c_b z_b exactly; as_dict names the support indices (not the c_k)."""
    X = np.array([[2.0], [1.0], [1.0]])
    y = np.array([1, 1, -1])
    dm = data_driver.margin_from_data(X, y)
    assert dm.separable is False and dm.gordan is not None
    support, c = dm.gordan
    z = X[:, 0] * y
    assert sum(ck * Fraction(float(z[k])) for k, ck in zip(support, c)) == 0 and sum(c) == 1
    d = dm.as_dict()
    assert d["gordan_support"] == [int(k) for k in support]
    assert 2 in d["gordan_support"]  # the one negative pattern must be in every such combination


@pytest.mark.parametrize("call, message", DATA_MARGIN_ERRORS)
def test_data_margin_errors_in_full(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value) == message


@pytest.mark.parametrize("kwargs", [{}, {"rho": 1.0}, {"Delta": 1.0}, {"normalize": True}])
def test_data_margin_records_its_time_and_size(kwargs):
    X = np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]) if "normalize" not in kwargs else np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]])
    y = np.array([1, 1, -1]) if "rho" in kwargs or "Delta" in kwargs else np.array([1, 1, 1])
    if not kwargs:
        X = X[:2]
        y = y[:2]
    m = data_driver.margin_from_data(X, y, **kwargs)
    assert isinstance(m.seconds, float) and 0 <= m.seconds < 60
    assert m.m == X.shape[0] and m.d == 2 and m.nnz == np.count_nonzero(X)
    d = m.as_dict()
    assert d["seconds"] == m.seconds and d["nnz"] == m.nnz and d["m"] == m.m and d["normalize"] is bool(kwargs.get("normalize", False))
    assert m.lower <= m.value <= m.upper


def test_polish_repairs_a_stalled_wolfe_with_normalized_points(monkeypatch):
    """A float Wolfe that stalls near the optimum (simulated) leaves a wide interval; the mpmath polish must
    close it, with the normalized bounds (RP14's rho_2): points of norm ~0.01, y_k = z_k / ||z_k||,
    margin = z_12 / ||z_1|| (the two points are mirror images), evaluated at 50 digits."""
    monkeypatch.setattr(data_driver, "_wolfe_primal", lambda Yn: (np.array([0.501, 0.499]), 1, False))
    X = np.array([[0.01, 1e-3], [0.02, -2e-3]])  # z_2 = -2 z_1 mirrored: norms differ, directions mirror
    y = np.array([1, -1])
    m = data_driver.margin_from_data(X, y, normalize=True)
    with mpmath.workdps(50):
        true = mpmath.mpf(1e-3) / mpmath.sqrt(mpmath.mpf(0.01) ** 2 + mpmath.mpf(1e-3) ** 2)
    assert m.separable is True and "polished at 40 digits" in m.method
    assert m.lower <= true <= m.upper
    assert m.upper - m.lower <= 1e-12 * true


def test_data_margin_accepts_the_scale_limit_itself():
    """|X|, rho, Delta = 2^250 exactly are allowed (the limit is inclusive).  One point: gamma = ||y_1||."""
    top = 2.0**250
    m = data_driver.margin_from_data(np.array([[top]]), np.array([1]))
    assert m.separable is True and m.lower <= top <= m.upper
    m = data_driver.margin_from_data(np.array([[1.0]]), np.array([1]), rho=top, Delta=top)  # y_1 = (1, 2^250, 2^250)
    with mpmath.workdps(60):
        true = mpmath.sqrt(1 + 2 * mpmath.mpf(2) ** 500)
    assert m.separable is True and m.lower <= true <= m.upper
    m = data_driver.margin_from_data(np.array([[1.0]]), np.array([1]), Delta=2.0**-250)  # Delta at its lower limit
    with mpmath.workdps(200):
        true = mpmath.sqrt(1 + mpmath.mpf(2) ** -500)
    assert m.separable is True and m.lower <= true <= m.upper


def test_data_margin_relative_width_and_as_dict():
    assert _dm().relative_width == 0.0
    assert _dm(lower=0.5, upper=1.5, value=-2.0).relative_width == 0.5
    assert _dm(lower=-1.0, upper=0.0, value=0.0).relative_width == np.inf
    d = _dm(lower=0.5, upper=1.5, value=1.0, info={"newton_steps": 3}, seconds=0.25).as_dict()
    assert d == {"lower": 0.5, "upper": 1.5, "value": 1.0, "relative_width": 1.0, "separable": True, "method": "m",
                 "m": 1, "d": 1, "nnz": 1, "R": 1.0, "rho": None, "Delta": None, "normalize": False, "seconds": 0.25,
                 "newton_steps": 3}
    g = _dm(gordan=((2, 5), (Fraction(1, 3), Fraction(2, 3)))).as_dict()
    assert g["gordan_support"] == [2, 5]


@pytest.mark.parametrize("sparse", [False, True])
def test_gordan_certificate_exact_weights(sparse):
    """z = (1, 0), (-1, 1), (-1, -1): 0 = z_0 / 2 + z_1 / 4 + z_2 / 4, the only convex combination (0 is
    interior to the triangle); the labels reflect x_1 = (1, -1) with y = -1."""
    X = np.array([[1.0, 0.0], [1.0, -1.0], [-1.0, -1.0], [5.0, 5.0]])
    y = np.array([1, -1, 1, 1])  # a 4th point far away, not needed
    Xin = sp.csr_matrix(X) if sparse else X
    m = data_driver.margin_from_data(Xin, y)
    assert m.separable is False and m.upper == 0.0 and m.value == 0.0 and m.u is None and m.beta is None
    support, c = m.gordan
    assert dict(zip(support, c)) == {0: Fraction(1, 2), 1: Fraction(1, 4), 2: Fraction(1, 4)}
    R = np.sqrt(50.0)  # the longest pattern, (5, 5)
    assert -R * (1 + 1e-14) <= m.lower == -m.R <= -R
    assert m.info == {"support": 3}
    assert "not separable" in m.method and "on 3 points" in m.method


def test_gordan_with_rho_and_a_dependent_support():
    """1-D data with a bias: z_k = l_k (x_k, 1).  Points 2, -1 (label +1) and 1 (label -1): z = (2, 1), (-1, 1), (-1, -1);
    0 is interior to their triangle: the one convex combination is c = (1/3, 1/6, 1/2)."""
    X = np.array([[2.0], [-1.0], [1.0]])
    y = np.array([1, 1, -1])
    m = data_driver.margin_from_data(X, y, rho=1.0)
    support, c = m.gordan
    w = dict(zip(support, c))
    Z = [(Fraction(2), Fraction(1)), (Fraction(-1), Fraction(1)), (Fraction(-1), Fraction(-1))]
    assert sum(w.values()) == 1 and all(v > 0 for v in w.values())
    assert all(sum(w[k] * Z[k][i] for k in w) == 0 for i in range(2))
    assert w == {0: Fraction(1, 3), 1: Fraction(1, 6), 2: Fraction(1, 2)}


def test_extended_space_margin_closed_form():
    """x = 1 (label +1) and x = -1 (label -1): z_k = 1, patterns y_1 = (1, Delta, 0), y_2 = (1, 0, -Delta); the
    min-norm point is (1, Delta/2, -Delta/2): gamma_d = sqrt(1 + Delta^2 / 2).  Newton's s_k = Delta / (2 + Delta^2)."""
    for Delta in (1.0, 0.25, 8.0):
        m = data_driver.margin_from_data(np.array([[1.0], [-1.0]]), np.array([1, -1]), Delta=Delta)
        with mpmath.workdps(40):
            true = mpmath.sqrt(1 + mpmath.mpf(Delta) ** 2 / 2)
        assert m.separable is True and m.lower <= true <= m.upper
        assert m.upper - m.lower <= 1e-13 * true
        assert m.lower <= m.value <= m.upper
        assert m.info["newton_steps"] >= 1 and "semismooth Newton" in m.method
        R = np.sqrt(1 + Delta**2)
        assert R <= m.R <= R * (1 + 1e-14)


@pytest.mark.parametrize("normalize", [False, True])
def test_separable_margin_closed_form(normalize):
    """z = (3, 4) and (3, -4) (norm 5): min-norm point (3, 0), gamma = 3; normalized: (0.6, 0), gamma = 0.6.
    A third, far point (30, 0) changes nothing."""
    X = np.array([[3.0, 4.0], [-3.0, 4.0], [30.0, 0.0]])
    y = np.array([1, -1, 1])
    m = data_driver.margin_from_data(X, y, normalize=normalize)
    true = 0.6 if normalize else 3.0
    assert m.separable is True and m.lower <= true <= m.upper and m.upper - m.lower <= 1e-14 * true
    assert m.R == (1.0 if normalize else pytest.approx(30.0, rel=1e-15)) and m.R >= (1.0 if normalize else 30.0)
    assert m.info["wolfe_converged"] is True and "separable" in m.method
    np.testing.assert_allclose(m.beta / m.beta.sum(), [0.5, 0.5, 0.0], rtol=0, atol=1e-15)


def test_gordan_keeps_a_small_weight():
    """z = (1, 0) and (-20, 0): c = (20/21, 1/21); the weight 1/21 ~ 0.048 is part of the support."""
    m = data_driver.margin_from_data(np.array([[1.0, 0.0], [20.0, 0.0]]), np.array([1, -1]))
    assert m.separable is False
    assert dict(zip(*m.gordan)) == {0: Fraction(20, 21), 1: Fraction(1, 21)}


def test_newton_lstsq_fallback_and_normalized_with_rho(monkeypatch):
    """Newton's least-squares fallback (np.linalg.solve reporting a singular system) reaches the same
    closed form gamma_d = sqrt(1 + Delta^2 / 2); with rho: z = (3, 4), (3, -4), normalized gamma = 3/5."""
    m = data_driver.margin_from_data(np.array([[3.0], [-3.0]]), np.array([1, -1]), rho=4.0, normalize=True)
    assert m.separable is True and m.lower <= 0.6 <= m.upper and m.upper - m.lower <= 1e-14 and m.R == 1.0 and m.rho == 4.0

    def singular(*args, **kwargs):
        raise np.linalg.LinAlgError("forced")

    monkeypatch.setattr(np.linalg, "solve", singular)
    m = data_driver.margin_from_data(np.array([[1.0], [-1.0]]), np.array([1, -1]), Delta=2.0)
    true = np.sqrt(3.0)  # sqrt(1 + 4 / 2)
    assert m.separable is True and m.lower <= true <= m.upper and m.upper - m.lower <= 1e-13 * true


@pytest.mark.parametrize("p, nrm, ez, overflows", Z_COEFF)
def test_z_coefficients_are_p_over_the_norms(p, nrm, ez, overflows):
    """The docstring: beta_k = p_k / ||z_k||, or that times the one factor 2^min(ez) where it overflows, finite,
    and without a warning (caught: errstate(over=None), always the common factor, an infinite beta, a
    TypeError, p nrm for p / nrm, 2^(min(ez) + ez))."""
    p, nrm, ez = np.array(p), np.array(nrm), np.array(ez)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        beta = data_driver._z_coefficients(p, nrm, ez)
    want = [Fraction(a) / (Fraction(b) * Fraction(2) ** int(e)) for a, b, e in zip(p, nrm, ez)]
    factor = Fraction(2) ** int(min(ez)) if overflows else Fraction(1)
    assert np.all(np.isfinite(beta))
    assert [Fraction(float(b)) for b in beta] == [w * factor for w in want]


@pytest.mark.parametrize("kw, X, y, g2", VALUE_CASES, ids=["Delta", "plain", "normalize"])
def test_value_is_the_converged_estimate_not_a_bound(kw, X, y, g2):
    """value = the search's own margin (1 / ||u|| with Delta, ||u|| without), converged to a few units of
    round-off, inside [lower, upper]; the certified ends carry the a-priori allowances (~10 to 40 units each
    side), so the best estimate is within a quarter of the width of the exact margin.  A value clamped to
    an end (||u|| or 2 / ||u|| for 1 / ||u||; the Wolfe search on twice the normalized points) is not."""
    M = data_driver.margin_from_data(np.array(X), np.array(y), **kw)
    assert M.lower <= M.value <= M.upper
    g = math.sqrt(g2)  # within half a unit of the last place of the exact margin
    assert M.lower < g < M.upper
    assert abs(M.value - g) <= (M.upper - M.lower) / 4


def test_extended_space_witness_that_proves_nothing_is_undecided_in_certified_lower(monkeypatch):
    """x = 14 * 2^-1074, Delta = 1: y = (14 eta, 1).  A Newton step that returns v = 0.5, s = eta gives
    u . y = 7 eta + eta = 8 eta exactly, = the allowance 2 * 4 eta (the relative part underflows): num = 0,
    lower = 0 certifies nothing, so separable is None ('True' needs a certified lower > 0, not lo >= 0)."""
    monkeypatch.setattr(data_driver, "_newton_l2svm", lambda P: (np.array([0.5]), np.array([ETA]), 1))
    M = data_driver.margin_from_data(np.array([[14 * ETA]]), np.array([1]), Delta=1.0)
    assert M.lower <= 0.0  # = 0 here: the witness certifies nothing (a wider allowance gives < 0)
    assert M.separable is None


def test_min_norm_witness_that_proves_nothing_is_undecided():
    """One point x = (8, 8) 2^-1074 (no monkeypatch: Wolfe's p = (1), u = x, scaled exactly to (1/2, 1/2)):
    u . y = 8 eta exactly = the allowance 2 * 4 eta (the relative part underflows): num = 0, lower = 0 certifies
    nothing (the margin 8 sqrt 2 eta is positive, but 'True' needs a certified lower > 0), so separable is None
    (not lo >= 0; test_wolfe_witness_that_proves_nothing_is_undecided no longer reaches lower = 0 since
    the allowance got its absolute part 2 n 2^-1074)."""
    M = data_driver.margin_from_data(np.array([[8 * ETA, 8 * ETA]]), np.array([1]))
    assert M.gordan is None
    assert M.lower <= 0.0  # = 0 here (a wider allowance gives < 0)
    assert M.separable is None
    assert "undecided" in M.method


@pytest.mark.parametrize("name, polish, says", POLISH_CASES, ids=[c[0] for c in POLISH_CASES])
def test_method_says_polished_exactly_when_a_polished_witness_is_reported(monkeypatch, name, polish, says):
    """x = (3, 4), (4, 3), both +1; Wolfe stalled at p = e_1 (u = (3, 4): lower 24/5, upper 5, wide, so the
    polish runs).  The method text mentions the polish iff a bound reported comes from it (an 'and' for
    the 'or', lo2 >= lo or up2 <= up for the strict comparisons are caught)."""
    monkeypatch.setattr(data_driver, "_wolfe_primal", _stalled_wolfe_2)
    monkeypatch.setattr(data_driver, "_polish_mp", polish)
    M = data_driver.margin_from_data(np.array([[3.0, 4.0], [4.0, 3.0]]), np.array([1, 1]))
    from_polish = not np.array_equal(M.u, [3.0, 4.0])
    assert from_polish is says
    assert ("polished at 40 digits" in M.method) is says
    assert M.lower <= math.sqrt(24.5) <= M.upper


@pytest.mark.parametrize("x, Delta", [(2.0**-700, 1.0), (2.0**-1074, 2.0**-200), (2.0**-600, 2.0**-50)])
def test_margin_in_the_extended_space_of_tiny_data_keeps_its_width(x, Delta):
    """One point x, label 1, in the extended space: the margin is ||[x, Delta]||, squared x^2 + Delta^2.
    margin_from_data documents a relative width ~1e-12 with Delta; the common power of two that
    scales tiny data up must be read from Delta too, else Delta^2 scaled by it overflows and the upper
    bound is inf."""
    M = data_driver.margin_from_data(np.array([[x]]), np.array([1]), Delta=Delta)
    exact = Fraction(x) ** 2 + Fraction(Delta) ** 2
    assert M.separable and math.isfinite(M.upper)
    assert Fraction(M.lower) ** 2 <= exact <= Fraction(M.upper) ** 2 <= exact * (1 + Fraction(1, 10**11))


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
    m = data_driver.margin_from_data(X, y, Delta=Delta)
    assert m.method.endswith(
        "; lower = min_k u.y_k/||u||, upper = ||sum beta_k y_k||/sum beta_k [RP14 Lemma 3], rounding bounded"
    ), m.method
    assert m.separable is True and m.lower <= true <= m.upper


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
    m = data_driver.margin_from_data(X, y)
    assert m.separable is verdict
    assert set(m.info) == {"wolfe_cycles", "wolfe_converged"} and m.info["wolfe_cycles"] >= 1
    word = "separable" if verdict else "undecided"
    assert m.method == (
        f"{word}: Wolfe min-norm point in primal form ({m.info['wolfe_cycles']} cycles, support 2); " + _WITNESSES
    ), m.method


def test_margin_from_data_gordan_method_text_in_full():
    """x = 1 and x = -1, both labelled +1: z_1 + z_2 = 0, Gordan's certificate c = (1/2, 1/2) on
    2 points; upper = 0 exact, lower = -R the trivial bound -- and the text says exactly that."""
    m = data_driver.margin_from_data(np.array([[1.0], [-1.0]]), np.array([1, 1]))
    assert m.separable is False and m.upper == 0 and m.lower == -m.R and m.R >= 1
    support, c = m.gordan
    assert support == (0, 1) and c[0] == c[1] > 0 and m.info == {"support": 2}  # c_1 z_1 + c_2 z_2 = 0 exactly
    assert m.method == (
        "not separable: 0 = sum_k c_k y_k with c >= 0 on 2 points, verified exactly in rational arithmetic "
        "(Gordan, [RP14 Lemma 6]); upper = 0 exact; lower = -R is only the trivial bound (the negative "
        "margin is NOT certified tight)"
    )


def test_method_says_polished_when_the_polish_improves_only_the_upper_bound(monkeypatch):
    """y_1 = (3, -1), y_2 = (-1, 3), y_3 = (2, 2): u* = (1, 1) = (y_1 + y_2) / 2, gamma = sqrt 2.  A float
    Wolfe stalled at p = e_3 (simulated) gives u = (2, 2) = 2 u*: its lower bound is already the
    polished one (u and u* differ by a power of 2, so every rounding of certified_lower is the same),
    its upper bound ||y_3|| = 2 sqrt 2 is not.  The polish improves the upper bound only: the text
    must say so, and the witnesses must be the polished beta and the (tied) float u."""
    monkeypatch.setattr(data_driver, "_wolfe_primal", lambda Yn: (np.array([0.0, 0.0, 1.0]), 1, False))
    X, y = np.array([[3.0, -1.0], [-1.0, 3.0], [2.0, 2.0]]), np.array([1, 1, 1])
    P = make_patterns(X, y, rho=None)
    lo_float = data_bounds.certified_lower(P, np.array([2.0, 2.0]))
    assert lo_float == data_bounds.certified_lower(P, np.array([1.0, 1.0]))  # the tie of the lower bound
    M = data_driver.margin_from_data(X, y)
    assert M.upper < data_bounds.certified_upper(P, np.array([0.0, 0.0, 1.0])) and M.lower == lo_float
    assert M.lower <= np.sqrt(2) <= M.upper and list(M.beta) == [0.5, 0.5, 0.0] and list(M.u) == [2.0, 2.0]
    assert "; polished at 40 digits" in M.method


def test_method_does_not_say_polished_when_the_polish_ties_both_bounds(monkeypatch):
    """y_1 = (M, 2 - M), y_2 = (2 - M, M), M = 2^20: u* = (1, 1) = (y_1 + y_2) / 2 exactly in float64, but
    u* . y_k = M + (2 - M) cancels, so the certified bounds are ~1e-9 apart and the polish runs.  It
    returns the same witnesses (the exact optimum), so it improves neither bound: no "polished"."""
    calls = []
    real = data_search._polish_mp

    def spy(Yn, p):
        out = real(Yn, p)
        calls.append((p.copy(), out))
        return out

    monkeypatch.setattr(data_driver, "_polish_mp", spy)
    Mv = 2.0**20
    M = data_driver.margin_from_data(np.array([[Mv, 2 - Mv], [2 - Mv, Mv]]), np.array([1, 1]))
    assert len(calls) == 1  # the polish ran
    p, (p2, u2) = calls[0]
    assert list(p) == list(p2) == [0.5, 0.5] and list(u2) == [1.0, 1.0] and list(M.u) == [1.0, 1.0]
    assert M.lower <= np.sqrt(2) <= M.upper and M.upper - M.lower > 1e-12 * M.upper
    assert "polished" not in M.method
