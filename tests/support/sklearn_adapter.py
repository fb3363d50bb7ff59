"""scikit-learn's Perceptron behind the reference's signature: the README's worked example of
validating a real library (``margins validate perceptron tests.sklearn_adapter:perceptron
--skip-flags n1``).  scikit-learn is optional: this module is imported only where it is installed.

scikit-learn counts epochs, not updates, so the adapter reports no counter (``iterations=None``:
the harness then skips the bound checks, a capability the library lacks) and decides the status
from the returned vector, as a user would.
"""

import numpy as np
from sklearn.linear_model import Perceptron


def _run(model, X, y):
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    model.fit(X, y)  # refuses one-class data (ValueError): reported as a refusal
    w = model.coef_.ravel().copy()
    if model.classes_[1] != 1:  # coef_ points to classes_[1]
        w = -w
    status = "separator" if np.all(y * (X @ w) > 0) else "max_iter"
    return {"status": status, "iterations": None, "w": w}


def perceptron(X, y, *, max_iter=100_000):
    """The textbook Perceptron [RP14 Alg. 1] in scikit-learn: no bias, no shuffling, no early
    stop, step 1.  It scans the points in order and continues after each update -- the
    reference's ``rule="cyclic"``.  ``max_iter`` epochs make at least ``max_iter`` updates unless
    the data are separated first."""
    model = Perceptron(fit_intercept=False, shuffle=False, tol=None, eta0=1.0, max_iter=int(max(1, max_iter)))
    return _run(model, X, y)


def perceptron_defaults(X, y, *, max_iter=100_000):
    """scikit-learn's defaults (tol=1e-3, shuffle=True), without the intercept the problem has
    not got: the default early stop ends the run before the data are separated."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _run(Perceptron(fit_intercept=False, random_state=0), X, y)
