"""The algorithms as scikit-learn estimators (optional extra: ``pip install "perceptron-margins[sklearn]"``).

* :class:`PDMClassifier`  PT11's PDM, PFM and PDM-succ on dense or CSR data, with a bias (rho) and
  optionally the extended space (Delta, the 2-norm soft margin of PT11 Sec. 5);
* :class:`KernelPerceptronClassifier`  RP14's Gram algorithms (NKP, SNKP, NVN, SNKPVN, ISNKPVN)
  in the RKHS of a linear, polynomial or RBF kernel (scikit-learn's parameter names).

Each binary problem is one call of the public reference function (:func:`reference.pdm`,
:func:`reference.isnkpvn`, ...), and its :class:`~reference.Result` -- whose claim the reference
verified before returning it -- is kept in ``results_``.  The estimators add only what a
classifier needs around it: the label mapping (two labels to +-1 and back), multi-class
one-vs-rest (as ``LinearSVC``), the layout of the weight vector, and prediction.  A fit that did
not end in a verified separator says so (``status_``, and a warning), it is never silent:

* ``"max_iter"``: the budget ran out (``ConvergenceWarning``; the last iterate predicts);
* ``"certificate"`` (NVN, SNKPVN, ISNKPVN): a verified p in the simplex with ||p||_G < epsilon,
  so the max margin rho_K of the data in the RKHS is below epsilon: no separator with margin
  epsilon exists there (:class:`NotSeparableWarning`; ``certificate_``, ``separable_``).

scikit-learn is imported when this module is; ``import reference`` does not import it.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Optional

import numpy as np
import scipy.sparse as sp

try:
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.utils import check_random_state
    from sklearn.utils.extmath import safe_sparse_dot
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import check_is_fitted
except ImportError as error:  # pragma: no cover - exercised in an environment without scikit-learn
    raise ImportError(
        "reference.estimators needs scikit-learn (an optional extra): "
        'pip install "perceptron-margins[sklearn]" or pip install "scikit-learn>=1.3"'
    ) from error

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _validate_data
except ImportError:  # scikit-learn 1.3 - 1.5: the estimator's own method

    def _validate_data(estimator, *args, **kwargs):
        return estimator._validate_data(*args, **kwargs)


from . import algorithms
from .gram import gram, kernel_matrix
from .margins import margin_from_data
from .result import CERTIFICATE, MAX_ITER, SEPARATOR

__all__ = ["PDMClassifier", "KernelPerceptronClassifier", "NotSeparableWarning"]

PT11_ALGORITHMS = ("pdm", "pfm", "pdm_succ")
RP14_GRAM_ALGORITHMS = ("nkp", "snkp", "nvn", "snkpvn", "isnkpvn")
KERNELS = ("linear", "poly", "rbf")


class NotSeparableWarning(UserWarning):
    """A von Neumann algorithm returned a verified certificate: no separator with margin epsilon."""


# -- what both estimators share ------------------------------------------------------------------


def _binary_problems(estimator, y) -> list:
    """The +-1 labels of each binary problem: one for two classes (``classes_[1]`` is +1), else one
    per class against the rest; sets ``classes_``."""
    check_classification_targets(y)
    estimator.classes_, index = np.unique(y, return_inverse=True)
    k = len(estimator.classes_)
    if k < 2:
        raise ValueError(
            f"{type(estimator).__name__} needs samples of at least two classes in y; got one class "
            f"({estimator.classes_[0]!r})"
        )
    if k == 2:
        return [np.where(index == 1, 1, -1)]
    return [np.where(index == c, 1, -1) for c in range(k)]


def _report(estimator, results) -> None:
    """``results_``, ``status_``, ``n_iter_`` from the Results, and a warning for every problem
    that did not end in a verified separator."""
    estimator.results_ = tuple(results)
    estimator.status_ = np.array([r.status for r in results])
    estimator.n_iter_ = max(int(r.iterations) for r in results)
    name = type(estimator).__name__
    for c, r in enumerate(results):
        which = "" if len(results) == 1 else f" (class {estimator.classes_[c]} against the rest)"
        if r.status == MAX_ITER:
            more = "max_iter or max_epochs" if getattr(estimator, "max_epochs", None) is not None else "max_iter"
            warnings.warn(f"{name}{which}: {r.message}; increase {more}", ConvergenceWarning, stacklevel=3)
        elif r.status == CERTIFICATE:
            warnings.warn(
                f"{name}{which}: {r.message}: the margin in the feature space is below epsilon "
                "(see certificate_); the classifier is the certificate's combination",
                NotSeparableWarning,
                stacklevel=3,
            )


def _predict(estimator, X):
    scores = estimator.decision_function(X)
    index = (scores > 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)
    return estimator.classes_[index]


def _seed(random_state) -> int:
    """The reference's ``seed``: ``random_state`` itself when an int, else drawn from it."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return int(random_state)
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


# -- PT11 ----------------------------------------------------------------------------------------


class PDMClassifier(ClassifierMixin, BaseEstimator):
    """The Perceptron with Dynamic Margin as a linear classifier  [PT11 Sec. 3-5].

    Each binary problem (two classes, or one class against the rest) is one call of
    :func:`reference.pdm` (or :func:`reference.pfm`, :func:`reference.pdm_succ`) on the
    patterns y_k = l_k [x_k, rho, Delta e_k]; the classifier is
    ``sign(coef_ . x + intercept_)`` with ``coef_ = w[:d] / ||w||`` and
    ``intercept_ = rho w[d] / ||w||`` (``w`` = ``Result.w``, the extended coordinates
    ``w[d+1:]`` dropped).

    Parameters
    ----------
    epsilon : float, default 0.01
        PDM's accuracy: on convergence the achieved margin is >= (1 - epsilon) gamma_d.
        PDM-succ's target accuracy.  Not used by PFM.
    rho : float or None, default 1.0
        Augmentation x -> [x, rho] (the bias); ``None``: a classifier through the origin.
    Delta : float or None, default None
        The extended space of PT11 Sec. 5 (the 2-norm soft margin; ``LinearSVC(C=1/(2 Delta^2))``
        with its squared hinge loss solves the same problem): every data set is separable
        there.  ``None``: the original space (non-separable data end with ``"max_iter"``).
    algorithm : {"pdm", "pfm", "pdm_succ"}, default "pdm"
    beta : float or None, default None
        PFM's fixed margin (required with ``algorithm="pfm"``).
    eta : float, default 8.0
        PDM-succ's ratio of successive accuracies.
    active_sets, multiple_updates : bool, default False
        The fast paths of PT11 Sec. 4.
    max_iter : int, default 1_000_000
        Budget on the number of updates t of each binary problem (the reference's ``max_iter``).
    max_epochs : int or None, default 1000
        Budget on full passes over the data (the reference's ``max_epochs``; scikit-learn's
        ``Perceptron`` and ``LinearSVC`` stop after 1000 passes too); ``None``: ``max_iter`` only.
        Without the fast paths an epoch costs at most m updates, so this bounds the work on data
        that are not separable.  On large data sets PDM may need far more (a9a with Delta=1:
        about 47,000 passes, or 8 with ``active_sets=True``): raise both, see docs/estimators.md.
    engine : {"textbook", "fast"}, default "textbook"
        ``"fast"``: the compiled engine (needs numba).
    random_state : int, RandomState or None, default 0
        The seed of the active sets' permutations (an int is passed as ``seed``).
    certify : bool, default False
        Also compute the certified max margin of the training data of each binary problem
        (:func:`reference.margin_from_data`, linear kernel) into ``data_margin_``.

    Attributes
    ----------
    classes_ : ndarray, shape (n_classes,)
    coef_ : ndarray, shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray, shape (1,) or (n_classes,)
    results_ : tuple of Result
        The verified Result of each binary problem.
    status_ : ndarray of str, shape (n_problems,)
        ``"separator"`` (verified) or ``"max_iter"``.
    n_iter_ : int
        The largest number of updates t over the binary problems.
    margin_ : ndarray, shape (n_problems,)
        The achieved directional margin min_k w.y_k / ||w|| in the pattern space (extended
        when Delta), computed by the reference (``Result.info["margin"]``; NaN when w = 0).
    data_margin_ : tuple of DataMargin
        With ``certify=True``: ``lower <= gamma_d <= upper``, certified.
    n_features_in_ : int
    """

    def __init__(
        self,
        epsilon: float = 0.01,
        rho: Optional[float] = 1.0,
        Delta: Optional[float] = None,
        algorithm: str = "pdm",
        beta: Optional[float] = None,
        eta: float = 8.0,
        active_sets: bool = False,
        multiple_updates: bool = False,
        max_iter: int = 1_000_000,
        max_epochs: Optional[int] = 1000,
        engine: str = "textbook",
        random_state=0,
        certify: bool = False,
    ):
        self.epsilon = epsilon
        self.rho = rho
        self.Delta = Delta
        self.algorithm = algorithm
        self.beta = beta
        self.eta = eta
        self.active_sets = active_sets
        self.multiple_updates = multiple_updates
        self.max_iter = max_iter
        self.max_epochs = max_epochs
        self.engine = engine
        self.random_state = random_state
        self.certify = certify

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _positional(self) -> tuple:
        if self.algorithm not in PT11_ALGORITHMS:
            raise ValueError(f"algorithm must be one of {PT11_ALGORITHMS}, got {self.algorithm!r}")
        if self.algorithm == "pfm":
            if self.beta is None:
                raise ValueError("beta is PFM's fixed margin: pass e.g. beta=0.1 with algorithm='pfm'")
            return (self.beta,)
        return (self.epsilon,) if self.algorithm == "pdm" else (self.epsilon, self.eta)

    def fit(self, X, y):
        """Fit one reference run per binary problem on (X, y); X dense or sparse (CSR)."""
        X, y = _validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        if self.certify not in (True, False):
            raise ValueError(f"certify must be True or False, got {self.certify!r}")
        args = self._positional()
        run = getattr(algorithms, self.algorithm)
        seed = _seed(self.random_state)
        problems = _binary_problems(self, y)
        results = [
            run(
                X, labels, *args, rho=self.rho, Delta=self.Delta, active_sets=self.active_sets,
                multiple_updates=self.multiple_updates, max_iter=self.max_iter, max_epochs=self.max_epochs,
                seed=seed, engine=self.engine,
            )  # fmt: skip
            for labels in problems
        ]
        d = X.shape[1]
        coef, intercept = np.zeros((len(results), d)), np.zeros(len(results))
        for c, r in enumerate(results):
            w = np.asarray(r.w, dtype=np.float64)
            norm = float(np.sqrt(w @ w))
            if norm > 0:
                coef[c] = w[:d] / norm
                intercept[c] = 0.0 if self.rho is None else float(self.rho) * w[d] / norm
        self.coef_, self.intercept_ = coef, intercept
        self.margin_ = np.array([np.nan if r.info.get("margin") is None else float(r.info["margin"]) for r in results])
        if self.certify:
            rho = None if self.rho is None else float(self.rho)
            Delta = None if self.Delta is None else float(self.Delta)
            self.data_margin_ = tuple(margin_from_data(X, labels, rho=rho, Delta=Delta) for labels in problems)
        _report(self, results)
        return self

    def decision_function(self, X):
        """``coef_ . x + intercept_`` per binary problem: shape (n,) for two classes, else (n, n_classes)."""
        check_is_fitted(self)
        X = _validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        scores = np.asarray(safe_sparse_dot(X, self.coef_.T, dense_output=True)) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        """The class of the largest decision value (two classes: ``classes_[1]`` where it is > 0)."""
        return _predict(self, X)


# -- RP14 ----------------------------------------------------------------------------------------


class KernelPerceptronClassifier(ClassifierMixin, BaseEstimator):
    """RP14's normalized kernel perceptrons (Alg. 3-7) as a kernel classifier.

    The kernel is K'(a, b) = K(a, b) + rho^2: the feature map phi(x) augmented by rho (a bias in
    the RKHS).  Each binary problem builds the normalized signed Gram matrix
    G_ij = y_i y_j K'(x_i, x_j) / sqrt(K'(x_i, x_i) K'(x_j, x_j)) (:func:`reference.gram`) and
    runs the reference function on it; the separator f = sum_i alpha_i y_i phi~(x_i)
    (G alpha > 0, verified) is evaluated through the kernel:

        decision_function(x) = sum_i alpha_i y_i K'(x_i, x) / sqrt(K'(x_i, x_i) K'(x, x)),

    which on a training point x_j is (G alpha)_j y_j.

    Parameters
    ----------
    algorithm : {"isnkpvn", "snkp", "nkp", "nvn", "snkpvn"}, default "isnkpvn"
        ISNKPVN (Alg. 7) ends with a separator or an epsilon-certificate; NVN (Alg. 5) and
        SNKPVN (Alg. 6, prox-centre q = 1/n, delta = epsilon) likewise; NKP and SNKP (Alg. 3, 4)
        only with a separator (else ``"max_iter"``).
    kernel : {"rbf", "linear", "poly"}, default "rbf"
        ``"rbf"``: exp(-gamma ||a - b||^2); ``"poly"``: (gamma a.b + coef0)^degree;
        ``"linear"``: a.b (scikit-learn's names and formulas), computed by
        :func:`reference.kernel_matrix`.
    gamma : {"scale", "auto"} or float, default "scale"
        ``"scale"``: 1 / (n_features X.var()); ``"auto"``: 1 / n_features.
    degree : int, default 3
    coef0 : float, default 0.0
        Must be >= 0.
    rho : float, default 1.0
        The bias of the feature space (0: none).
    epsilon : float, default 1e-3
        The accuracy of a certificate (NVN, ISNKPVN; SNKPVN's delta).
    shrink : float, default 2.0
        ISNKPVN's gamma > 1 (the shrink factor of its accuracies; renamed here because
        ``gamma`` is the kernel's).
    max_iter : int, default 10_000
        The reference function's budget.
    engine : {"textbook", "fast"}, default "textbook"

    Attributes
    ----------
    classes_ : ndarray
    results_ : tuple of Result
        The verified Result of each binary problem (one, or one per class against the rest).
    status_ : ndarray of str, shape (n_problems,)
        ``"separator"``, ``"certificate"`` or ``"max_iter"``.
    n_iter_ : int
        The largest iteration count over the binary problems.
    dual_coef_ : ndarray, shape (n_problems, n_samples)
        The alpha the algorithm returned (on the simplex), or the certificate p where there is no
        alpha.
    support_ : ndarray of int
        The training points with a nonzero coefficient in some problem.
    support_vectors_ : ndarray, shape (n_support, n_features)
    certificate_ : list
        Per problem: the verified certificate p (``status_ == "certificate"``), else None.
    separable_ : ndarray of object, shape (n_problems,)
        True: a verified separator.  False: a verified certificate, so no separator has margin
        epsilon or more in the RKHS (rho_K <= ||p||_G < epsilon; rho_K = 0, not separable at
        all, when the data are).  None: the budget ran out, no claim.
    margin_ : ndarray, shape (n_problems,)
        With a separator: the achieved margin min_i (G alpha)_i / ||alpha||_G (computed in
        float64; rho_K is at least this, up to round-off); else NaN.
    gamma_ : float
        The kernel's gamma as used.
    n_features_in_ : int
    """

    def __init__(
        self,
        algorithm: str = "isnkpvn",
        kernel: str = "rbf",
        gamma="scale",
        degree: int = 3,
        coef0: float = 0.0,
        rho: float = 1.0,
        epsilon: float = 1e-3,
        shrink: float = 2.0,
        max_iter: int = 10_000,
        engine: str = "textbook",
    ):
        self.algorithm = algorithm
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.rho = rho
        self.epsilon = epsilon
        self.shrink = shrink
        self.max_iter = max_iter
        self.engine = engine

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # the kernel K'(a, b) = K(a, b) + rho^2 and its diagonal

    def _gamma(self, X) -> float:
        if isinstance(self.gamma, str):
            if self.gamma == "scale":
                var = float(X.var())
                return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
            if self.gamma == "auto":
                return 1.0 / X.shape[1]
            raise ValueError(f"gamma must be 'scale', 'auto' or a positive float, got {self.gamma!r}")
        if isinstance(self.gamma, bool) or not isinstance(self.gamma, numbers.Real) or not self.gamma > 0:
            raise ValueError(f"gamma must be 'scale', 'auto' or a positive float, got {self.gamma!r}")
        return float(self.gamma)

    def _check_params(self) -> None:
        if self.algorithm not in RP14_GRAM_ALGORITHMS:
            raise ValueError(f"algorithm must be one of {RP14_GRAM_ALGORITHMS}, got {self.algorithm!r}")
        if self.kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS}, got {self.kernel!r}")
        if isinstance(self.rho, bool) or not isinstance(self.rho, numbers.Real) or not self.rho >= 0:
            raise ValueError(f"rho must be a float >= 0 (the feature space's bias), got {self.rho!r}")

    def _K(self, A, B) -> np.ndarray:
        """K'(a_i, b_j) = K(a_i, b_j) + rho^2."""
        g = self.gamma_
        if self.kernel == "linear":
            K = kernel_matrix(A, B, "linear")
        elif self.kernel == "poly":
            s = np.sqrt(g)
            K = kernel_matrix(s * A, s * B, "polynomial", degree=self.degree, c=self.coef0)
        else:
            K = kernel_matrix(A, B, "gaussian", sigma=1.0 / np.sqrt(2.0 * g))
        return K + float(self.rho) ** 2

    def _K_diagonal(self, X) -> np.ndarray:
        """K'(x, x) for every row."""
        if self.kernel == "rbf":
            K = np.ones(X.shape[0])
        else:
            sq = np.einsum("ij,ij->i", X, X)
            K = sq if self.kernel == "linear" else (self.gamma_ * sq + self.coef0) ** self.degree
        return K + float(self.rho) ** 2

    def _run(self, G):
        fn = getattr(algorithms, self.algorithm)
        keywords = dict(max_iter=self.max_iter, engine=self.engine)
        if self.algorithm in ("nkp", "snkp"):
            return fn(G, **keywords)
        if self.algorithm == "nvn":
            return fn(G, self.epsilon, **keywords)
        if self.algorithm == "snkpvn":
            n = G.shape[0]
            return fn(G, np.full(n, 1.0 / n), self.epsilon, **keywords)
        return fn(G, self.shrink, self.epsilon, **keywords)

    def fit(self, X, y):
        """Fit one reference run per binary problem on the Gram matrix of (X, y); sparse X is densified."""
        X, y = _validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        if sp.issparse(X):
            X = X.toarray()
        self._check_params()
        self.gamma_ = self._gamma(X)
        problems = _binary_problems(self, y)
        results, coefs, certificates, separable, margins = [], [], [], [], []
        for labels in problems:
            G = gram(X, labels, kernel=self._K)
            r = self._run(G)
            alpha = r.alpha if r.alpha is not None else r.p
            alpha = np.asarray(alpha, dtype=np.float64)
            results.append(r)
            coefs.append(alpha)
            certificates.append(r.p if r.status == CERTIFICATE else None)
            if r.status == SEPARATOR:
                Ga = G @ alpha
                margins.append(float(Ga.min() / np.sqrt(alpha @ Ga)))
                separable.append(True)
            else:
                margins.append(np.nan)
                separable.append(False if r.status == CERTIFICATE else None)
        self.dual_coef_ = np.array(coefs)
        self.certificate_ = certificates
        self.separable_ = np.array(separable, dtype=object)
        self.margin_ = np.array(margins)
        self.support_ = np.flatnonzero(np.any(self.dual_coef_ != 0, axis=0))
        self.support_vectors_ = X[self.support_]
        diag = self._K_diagonal(self.support_vectors_)
        signs = np.array(problems, dtype=np.float64)[:, self.support_]
        self._weights = self.dual_coef_[:, self.support_] * signs / np.sqrt(diag)  # alpha_i y_i / sqrt(K'_ii)
        _report(self, results)
        return self

    def decision_function(self, X):
        """sum_i alpha_i y_i K'(x_i, x) / sqrt(K'(x_i, x_i) K'(x, x)): shape (n,) for two classes, else (n, n_classes)."""
        check_is_fitted(self)
        X = _validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        if sp.issparse(X):
            X = X.toarray()
        diag = self._K_diagonal(X)
        norm = np.sqrt(np.where(diag > 0, diag, 1.0))
        scores = (self._K(X, self.support_vectors_) @ self._weights.T) / norm[:, None]
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        """The class of the largest decision value (two classes: ``classes_[1]`` where it is > 0)."""
        return _predict(self, X)
