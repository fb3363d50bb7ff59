"""PDMClassifier beside scikit-learn's LinearSVC and Perceptron on a9a and w8a.

    pip install -e ".[fast,sklearn]"
    python benchmarks/estimators.py [--out benchmarks/estimators/table.md] [--sets a9a w8a]

The data sets are the shipped LIBSVM files (found by ``theorems.instances.families.data_dir()``:
``$MARGINS_DATA`` or ``../shared/data``): a9a's own train / test files (a9a, a9a.t), and for
w8a, which ships one file, a stratified 75 / 25 split (``train_test_split``, random_state=0).
Every classifier is fitted on the training part (CSR: as read for PDMClassifier, with 32-bit indices
for scikit-learn's) and scored on the test part.

Rows, with Delta = 1 and rho = 1 (the extended space of PT11 Sec. 5, whose hard-margin problem is
the 2-norm soft-margin SVM ``LinearSVC(C=1/(2 Delta^2))`` with its squared hinge loss and its
regularized intercept, intercept_scaling = rho = 1):

* ``PDMClassifier(Delta=1, engine="fast")``: the defaults (the textbook box, epsilon = 0.01,
  budget of 1000 passes);
* the same with PT11 Sec. 4's active sets and multiple updates and no pass budget, run to its
  verified separator;
* ``LinearSVC(C=1/(2 Delta^2))`` (primal solver, ``dual=False``), ``Perceptron()`` (random_state=0).

Columns: test accuracy; fit seconds (wall clock, the compiled kernels compiled beforehand);
status and updates of the reference run; and two margins:

* gamma_Delta(w, b): the margin in the extended space of the classifier's (w, b) with its best
  extended coordinates: for f = w.x + b, max_s min_k (s l_k f_k + Delta e_k) / ||[s w, s b, e]||
  over e >= 0 is 1 / sqrt(min_s g(s)), g(s) = s^2 (||w||^2 + b^2) + sum_k max(0, 1 - s l_k
  f_k)^2 / Delta^2 (convex in s; minimized numerically here, float64, not certified).  It is at
  most gamma_d, the max margin of the training data, certified by
  :func:`reference.margin_from_data` (shown in the caption); the SVM optimum attains it.
* PDM's own achieved margin min_k a.y_k / ||a|| (``margin_``, its own extended coordinates).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

DELTA, RHO = 1.0, 1.0


def load(name: str, data_dir: Path):
    """(X_train, y_train, X_test, y_test) of a9a (its own test file) or w8a (a stratified split)."""
    import reference
    from sklearn.model_selection import train_test_split

    if name == "a9a":
        X, y = reference.load_libsvm(data_dir / "a9a" / "a9a.gz", n_features=123)
        Xt, yt = reference.load_libsvm(data_dir / "a9a" / "a9a.t.gz", n_features=123)
        return X, y, Xt, yt
    X, y = reference.load_libsvm(data_dir / name / f"{name}.gz")
    X, Xt, y, yt = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
    return X, y, Xt, yt


def extended_margin(f: np.ndarray, y: np.ndarray, w_norm2: float, Delta: float = DELTA) -> float:
    """1 / sqrt(min_s g(s)) for g(s) = s^2 w_norm2 + sum max(0, 1 - s y f)^2 / Delta^2 (see the module)."""
    from scipy.optimize import minimize_scalar

    yf = y * f
    m = yf.shape[0]

    def g(s):
        return s * s * w_norm2 + np.sum(np.maximum(0.0, 1.0 - s * yf) ** 2) / Delta**2

    top = np.sqrt(m) / (Delta * np.sqrt(w_norm2))  # g(s) > g(0) = m / Delta^2 beyond it
    best = minimize_scalar(g, bounds=(0.0, top), method="bounded", options={"xatol": top * 1e-12})
    return float(1.0 / np.sqrt(min(best.fun, g(0.0))))


def classifiers():
    from sklearn.linear_model import Perceptron
    from sklearn.svm import LinearSVC

    from reference.estimators import PDMClassifier

    return [
        ('PDMClassifier(Delta=1, engine="fast")', PDMClassifier(Delta=DELTA, engine="fast")),
        (
            'PDMClassifier(Delta=1, engine="fast", active_sets=True, multiple_updates=True, max_iter=10**9, max_epochs=None)',
            PDMClassifier(Delta=DELTA, engine="fast", active_sets=True, multiple_updates=True, max_iter=10**9, max_epochs=None),
        ),
        ("LinearSVC(C=1/(2 Delta^2), dual=False)", LinearSVC(C=1 / (2 * DELTA**2), dual=False)),
        ("Perceptron(random_state=0)", Perceptron(random_state=0)),
    ]


def _int32_indices(M):
    M = M.copy()
    M.indices, M.indptr = M.indices.astype(np.int32), M.indptr.astype(np.int32)
    return M


def run(name: str, data_dir: Path) -> list:
    import reference

    X, y, Xt, yt = load(name, data_dir)
    gamma_d = reference.margin_from_data(X, y, rho=RHO, Delta=DELTA)
    X32, Xt32 = (_int32_indices(M) for M in (X, Xt))  # liblinear takes 32-bit CSR indices only
    rows = []
    for label, est in classifiers():
        ours = hasattr(est, "engine")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t0 = time.perf_counter()
            est.fit(X if ours else X32, y)
            seconds = time.perf_counter() - t0
        w = np.ravel(est.coef_)
        b = float(np.ravel(est.intercept_)[0])
        f = np.asarray(X @ w).ravel() + b
        pos = est.classes_[1]
        labels = np.where(y == pos, 1.0, -1.0)
        results = getattr(est, "results_", None)
        rows.append(
            {
                "data": name,
                "m": X.shape[0],
                "m_test": Xt.shape[0],
                "classifier": label,
                "accuracy": float(est.score(Xt if ours else Xt32, yt)),
                "seconds": seconds,
                "status": results[0].status if results else ("converged" if not caught else "warned: " + str(caught[0].category.__name__)),
                "updates": int(results[0].iterations) if results else None,
                "gamma_Delta": extended_margin(f, labels, float(w @ w + b * b)),
                "own_margin": float(est.margin_[0]) if results else None,
                "gamma_d": (gamma_d.lower, gamma_d.upper),
            }
        )
    return rows


def markdown(rows: list) -> str:
    out = [
        "# PDMClassifier beside LinearSVC and Perceptron (Delta = 1, rho = 1)",
        "",
        "Regenerate: `python benchmarks/estimators.py --out benchmarks/estimators/table.md` "
        "(needs the data sets, numba and scikit-learn; the columns are described in the script's docstring).",
        "",
    ]
    for name in dict.fromkeys(r["data"] for r in rows):
        part = [r for r in rows if r["data"] == name]
        lo, up = part[0]["gamma_d"]
        out += [
            f"**{name}** (train {part[0]['m']}, test {part[0]['m_test']}); certified max margin of the training data "
            f"gamma_d in [{lo:.10g}, {up:.10g}]",
            "",
            "| classifier | test accuracy | fit seconds | status | updates | gamma_Delta(w, b) | own margin |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in part:
            updates = "" if r["updates"] is None else f"{r['updates']:,}"
            own = "" if r["own_margin"] is None else f"{r['own_margin']:.6g}"
            out.append(
                f"| `{r['classifier']}` | {r['accuracy']:.4f} | {r['seconds']:.2f} | {r['status']} | {updates} | "
                f"{r['gamma_Delta']:.6g} | {own} |"
            )
        out.append("")
    return "\n".join(out)


def main(argv=None) -> int:
    from theorems.instances.families import data_dir

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the markdown table here (default: print only)")
    parser.add_argument("--sets", nargs="+", default=["a9a", "w8a"], choices=["a9a", "w8a"])
    args = parser.parse_args(argv)
    from reference.estimators import PDMClassifier

    warm = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])  # compile the kernels first
    for kw in ({}, {"active_sets": True, "multiple_updates": True}):
        PDMClassifier(Delta=DELTA, engine="fast", **kw).fit(warm, [0, 0, 1, 1])
    rows = [row for name in args.sets for row in run(name, data_dir())]
    text = markdown(rows)
    print(text)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
