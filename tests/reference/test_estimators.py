"""Tests of reference/estimators.py: the scikit-learn estimators over the reference functions."""

from __future__ import annotations

import importlib
from importlib import resources
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

sklearn = pytest.importorskip("sklearn", reason="reference.estimators needs scikit-learn (the sklearn extra)")

from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel  # noqa: E402
from sklearn.model_selection import cross_val_score  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import reference  # noqa: E402
from reference.estimators import KernelPerceptronClassifier, NotSeparableWarning, PDMClassifier  # noqa: E402
from reference.result import CERTIFICATE, MAX_ITER, SEPARATOR  # noqa: E402
from tests.support.numba import needs_numba  # noqa: E402

# Two separated clusters in the plane, labelled "a" / "b" (not +-1: the mapping is the estimator's).
_RNG = np.random.default_rng(0)
X2 = np.vstack([_RNG.normal(size=(15, 2)) + [3.0, 3.0], _RNG.normal(size=(15, 2)) - [3.0, 3.0]])
Y2 = np.array(["b"] * 15 + ["a"] * 15)
# Three clusters, for one-vs-rest.
X3 = np.vstack([X2, _RNG.normal(size=(15, 2)) + [6.0, -6.0]])
Y3 = np.concatenate([Y2, ["c"] * 15])
# The same point twice with opposite labels: not separable in any feature space.
X_DUP = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 2.0]])
Y_DUP = np.array([0, 1, 0, 1])


# -- scikit-learn's own conformance suite, default parameters --------------------------------------


@pytest.mark.slow
@parametrize_with_checks([PDMClassifier(), KernelPerceptronClassifier()])
def test_sklearn_estimator_checks_default_parameters(estimator, check):
    """Every check of ``parametrize_with_checks`` passes with the default parameters (textbook engine)."""
    check(estimator)


# The fast tier's representative: the same checks, on a budget that keeps each fit short on
# scikit-learn's random (non-separable) data sets.  The checks themselves are not changed.
@parametrize_with_checks([PDMClassifier(max_epochs=50), KernelPerceptronClassifier(max_iter=500)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# -- PDMClassifier -----------------------------------------------------------------------------------


def test_pdm_keeps_the_verified_result_and_reads_coef_from_w():
    """coef_ / intercept_ are w[:d] / ||w|| and rho w[d] / ||w|| of the Result kept in results_, and
    a verified separator classifies every training point correctly."""
    est = PDMClassifier(rho=2.0).fit(X2, Y2)
    (r,) = est.results_
    assert r.status == SEPARATOR and est.status_.tolist() == [SEPARATOR]
    expected = reference.pdm(X2, np.where(Y2 == "b", 1, -1), 0.01, rho=2.0, max_iter=1_000_000, max_epochs=1000)
    assert np.array_equal(r.w, expected.w) and r.iterations == expected.iterations == est.n_iter_
    norm = np.linalg.norm(r.w)
    assert np.array_equal(est.coef_, (r.w[:2] / norm).reshape(1, 2))
    assert est.intercept_[0] == 2.0 * r.w[2] / norm
    assert est.margin_[0] == r.info["margin"]
    assert est.classes_.tolist() == ["a", "b"]
    assert (est.predict(X2) == Y2).all()
    scores = est.decision_function(X2)
    assert scores.shape == (30,) and ((scores > 0) == (Y2 == "b")).all()


def test_pdm_without_bias_passes_through_the_origin():
    est = PDMClassifier(rho=None).fit(X2, Y2)
    assert est.intercept_.tolist() == [0.0] and est.coef_.shape == (1, 2)


def test_pdm_one_vs_rest():
    """Three classes: one reference run per class against the rest, predictions by the largest score."""
    est = PDMClassifier(max_epochs=None).fit(X3, Y3)
    assert est.status_.tolist() == [SEPARATOR] * 3
    assert est.coef_.shape == (3, 2) and est.intercept_.shape == (3,) and len(est.results_) == 3
    for c, r in zip(est.classes_, est.results_):
        again = reference.pdm(X3, np.where(Y3 == c, 1, -1), 0.01, max_iter=1_000_000)
        assert np.array_equal(r.w, again.w)
    scores = est.decision_function(X3)
    assert scores.shape == (45, 3)
    assert (est.predict(X3) == est.classes_[scores.argmax(axis=1)]).all()
    assert est.n_iter_ == max(r.iterations for r in est.results_)


def test_pdm_sparse_and_dense_fit_the_same_classifier():
    dense = PDMClassifier(Delta=1.0).fit(X3, Y3)
    sparse = PDMClassifier(Delta=1.0).fit(sp.csr_matrix(X3), Y3)
    assert np.array_equal(dense.coef_, sparse.coef_) and np.array_equal(dense.intercept_, sparse.intercept_)
    assert (sparse.predict(sp.csr_matrix(X3)) == dense.predict(X3)).all()


def test_pdm_extended_space_drops_the_extended_coordinates():
    """With Delta, w has m extended coordinates; coef_ is still the d weights (the norm is w's)."""
    est = PDMClassifier(Delta=1.0).fit(X_DUP, Y_DUP)
    (r,) = est.results_
    assert r.status == SEPARATOR and r.w.shape == (2 + 1 + 4,)
    assert np.array_equal(est.coef_[0], r.w[:2] / np.linalg.norm(r.w))


def test_pdm_budget_exhausted_warns_and_says_so():
    with pytest.warns(ConvergenceWarning, match="budget exhausted"):
        est = PDMClassifier(max_iter=5).fit(X_DUP, Y_DUP)
    assert est.status_.tolist() == [MAX_ITER] and est.n_iter_ == 5


def test_pdm_variants_run_their_reference_functions():
    labels = np.where(Y2 == "b", 1, -1)
    succ = PDMClassifier(algorithm="pdm_succ", eta=4.0).fit(X2, Y2).results_[0]
    assert succ.algorithm == "pdm_succ" and succ.info["eta"] == 4.0
    pfm = PDMClassifier(algorithm="pfm", beta=0.1).fit(X2, Y2).results_[0]
    assert pfm.algorithm == "pfm" and np.array_equal(pfm.w, reference.pfm(X2, labels, 0.1, max_iter=1_000_000, max_epochs=1000).w)
    fast_paths = PDMClassifier(active_sets=True, multiple_updates=True, random_state=3).fit(X2, Y2).results_[0]
    again = reference.pdm(X2, labels, 0.01, active_sets=True, multiple_updates=True, seed=3, max_iter=1_000_000, max_epochs=1000)
    assert np.array_equal(fast_paths.w, again.w)


def test_pdm_certified_margin_on_request():
    """certify=True: the certified gamma_d of the training data; the achieved margin is below it."""
    est = PDMClassifier(Delta=1.0, certify=True).fit(X2, Y2)
    (dm,) = est.data_margin_
    assert dm.lower <= dm.upper and dm.Delta == 1.0 and dm.rho == 1.0
    assert est.margin_[0] <= dm.upper
    assert not hasattr(PDMClassifier(Delta=1.0).fit(X2, Y2), "data_margin_")


@pytest.mark.parametrize(
    "params, name",
    [
        (dict(algorithm="perceptron"), "algorithm"),
        (dict(algorithm="pfm"), "beta"),
        (dict(epsilon=2.0), "epsilon"),
        (dict(Delta=-1.0), "Delta"),
        (dict(engine="gpu"), "engine"),
        (dict(certify="yes"), "certify"),
        (dict(max_iter=1.5), "max_iter"),
    ],
)
def test_pdm_bad_parameters_name_the_argument(params, name):
    with pytest.raises(ValueError, match=name):
        PDMClassifier(**params).fit(X2, Y2)


def test_one_class_is_refused():
    for est in (PDMClassifier(), KernelPerceptronClassifier()):
        with pytest.raises(ValueError, match="one class"):
            est.fit(X2, np.zeros(30))


@needs_numba
def test_cross_validation_on_csr_with_the_compiled_engine():
    """cross_val_score runs PDMClassifier(Delta=1, engine="fast") on CSR input (heart_scale, shipped)."""
    with resources.as_file(resources.files("reference.data_files") / "heart_scale.txt") as path:
        X, y = reference.load_libsvm(path)
    assert sp.issparse(X)
    scores = cross_val_score(PDMClassifier(Delta=1.0, engine="fast", max_epochs=None), X, y, cv=3)
    assert scores.shape == (3,) and scores.min() > 0.7


@needs_numba
def test_cross_validation_on_a9a():
    """The estimator in scikit-learn's model selection at scale: cross_val_score of
    PDMClassifier(Delta=1, engine="fast") on a9a as read (CSR, int64 indices), default budget."""
    from theorems.instances.families import data_dir

    root = data_dir()
    if root is None or not (root / "a9a" / "a9a.gz").is_file():
        pytest.skip("a9a is not in the data directory ($MARGINS_DATA or ../shared/data)")
    X, y = reference.load_libsvm(root / "a9a" / "a9a.gz")
    assert sp.issparse(X) and X.shape == (32561, 123)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the default budget of 1000 passes ends first
        scores = cross_val_score(PDMClassifier(Delta=1, engine="fast"), X, y)
    assert scores.shape == (5,) and scores.min() > 0.8


# -- KernelPerceptronClassifier ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "kernel, params, sklearn_kernel",
    [
        ("rbf", dict(gamma=0.3), lambda A, B: rbf_kernel(A, B, gamma=0.3)),
        ("poly", dict(gamma=0.5, degree=2, coef0=1.0), lambda A, B: polynomial_kernel(A, B, degree=2, gamma=0.5, coef0=1.0)),
        ("linear", dict(), linear_kernel),
    ],
)
def test_kernels_are_scikit_learns_plus_the_bias(kernel, params, sklearn_kernel):
    """K'(a, b) = K(a, b) + rho^2, K as scikit-learn defines it under the same parameter names."""
    est = KernelPerceptronClassifier(kernel=kernel, rho=0.5, **params).fit(X2, Y2)
    np.testing.assert_allclose(est._K(X2[:5], X2[5:9]), sklearn_kernel(X2[:5], X2[5:9]) + 0.25, rtol=1e-12)
    np.testing.assert_allclose(est._K_diagonal(X2[:5]), np.diag(sklearn_kernel(X2[:5], X2[:5])) + 0.25, rtol=1e-12)


@pytest.mark.parametrize("algorithm", ["isnkpvn", "snkp", "nkp", "nvn", "snkpvn"])
def test_kernel_decision_on_training_points_is_g_alpha(algorithm):
    """decision_function(x_j) y_j = (G alpha)_j for the Gram matrix the reference ran on, and the
    verified separator classifies every training point correctly."""
    est = KernelPerceptronClassifier(algorithm=algorithm, epsilon=1e-6).fit(X2, Y2)
    (r,) = est.results_
    assert r.algorithm == algorithm and r.status == SEPARATOR and est.separable_.tolist() == [True]
    labels = np.where(Y2 == "b", 1, -1)
    G = reference.gram(X2, labels, kernel=est._K)
    assert np.array_equal(est.dual_coef_[0], r.alpha)
    np.testing.assert_allclose(est.decision_function(X2) * labels, G @ r.alpha, rtol=1e-9, atol=1e-12)
    assert (est.predict(X2) == Y2).all()
    assert est.margin_[0] > 0 and est.certificate_ == [None]
    assert set(est.support_) == set(np.flatnonzero(r.alpha))


def test_kernel_certificate_is_an_attribute_and_a_warning():
    """ISNKPVN's verified certificate on data no feature space separates: status_, certificate_,
    separable_ False, a NotSeparableWarning; the fit does not pass silently."""
    with pytest.warns(NotSeparableWarning, match="certificate verified"):
        est = KernelPerceptronClassifier(kernel="linear", rho=0.0).fit(X_DUP[:2], Y_DUP[:2])
    (r,) = est.results_
    assert r.status == CERTIFICATE and est.status_.tolist() == [CERTIFICATE]
    assert np.array_equal(est.certificate_[0], r.p) and est.separable_.tolist() == [False]
    assert np.isnan(est.margin_[0])


def test_kernel_one_vs_rest_and_sparse_input():
    est = KernelPerceptronClassifier().fit(X3, Y3)
    assert est.dual_coef_.shape == (3, 45) and est.decision_function(X3).shape == (45, 3)
    sparse = KernelPerceptronClassifier().fit(sp.csr_matrix(X3), Y3)
    assert np.array_equal(sparse.dual_coef_, est.dual_coef_)
    assert (sparse.predict(sp.csr_matrix(X3)) == est.predict(X3)).all()


def test_kernel_budget_exhausted_warns():
    with pytest.warns(ConvergenceWarning):
        est = KernelPerceptronClassifier(algorithm="snkp", kernel="linear", rho=0.0, max_iter=3).fit(X_DUP[:2], Y_DUP[:2])
    assert est.status_.tolist() == [MAX_ITER] and est.separable_.tolist() == [None]


@pytest.mark.parametrize(
    "params, name",
    [
        (dict(algorithm="pdm"), "algorithm"),
        (dict(kernel="sigmoid"), "kernel"),
        (dict(gamma="big"), "gamma"),
        (dict(gamma=-1.0), "gamma"),
        (dict(rho=-1.0), "rho"),
        (dict(kernel="poly", coef0=-1.0), "c"),
        (dict(shrink=0.5), "gamma"),
        (dict(engine="gpu"), "engine"),
    ],
)
def test_kernel_bad_parameters_name_the_argument(params, name):
    with pytest.raises(ValueError, match=name):
        KernelPerceptronClassifier(**params).fit(X2, Y2)


def test_gamma_scale_and_auto():
    assert KernelPerceptronClassifier(gamma="auto").fit(X2, Y2).gamma_ == 0.5
    assert KernelPerceptronClassifier().fit(X2, Y2).gamma_ == 1.0 / (2 * X2.var())


# -- the optional extra ------------------------------------------------------------------------------


def test_without_scikit_learn_the_import_error_says_how_to_install(monkeypatch):
    monkeypatch.delitem(sys.modules, "reference.estimators")
    monkeypatch.setitem(sys.modules, "sklearn.base", None)  # `from sklearn.base import ...` fails
    with pytest.raises(ImportError, match=r"perceptron-margins\[sklearn\]"):
        importlib.import_module("reference.estimators")


def test_importing_reference_does_not_import_scikit_learn():
    code = "import sys, reference; print('sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
