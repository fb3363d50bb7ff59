"""Validate a PT11 implementation on a real data set: layers 1-2 with the certified margin.

    from theorems.validate.data import validate_on_data
    report = validate_on_data("pdm", my_pdm, X, y, rho=1.0, Delta=1.0, epsilons=(0.1,))
    report.conforms, print(report.format())

The implementation is called as the reference is, ``fn(X, y, epsilon, rho=rho, Delta=Delta,
max_iter=max_iter)`` (``beta`` instead of ``epsilon`` for PFM), with ``X`` as
:func:`reference.load_libsvm` returns it (scipy CSR), and must return ``status``,
``iterations`` and ``w`` (an object with those attributes or a mapping) with ``w`` in the
documented layout ``[weights (d), bias (1 if rho), extended coordinates (m if Delta)]``.
Nothing of size m x m is formed: the patterns are :class:`reference.Patterns` and gamma_d is
certified by :func:`reference.margin_from_data`.

Checks (each failure names the pattern index and both sides):

* ``answer.contract``   status in {separator, max_iter}, iterations an integer >= 0, w finite of
  the right length.
* ``claim.separator``   a claimed separator separates: a . y_k > (K + 16) u |y_k| . |a| for every
  pattern k (the allowance of :func:`reference.result.verify_separator_primal`).
* ``claim.max_iter``    "max_iter" only with iterations >= max_iter (no early stop without a claim),
  and never iterations > max_iter.
* ``run.converged``     a run that returns "max_iter" did not converge: its margin guarantee cannot
  be checked, so the report is never "conforms" (it says which runs did not converge).
* ``guarantee.margin``  PDM / PDM-succ: min_k a . y_k / ||a|| >= (1 - eps) gamma_d; PFM: > beta
  [PT11 Sec. 3, Thm. 1]; gamma_d is the certified lower end (so a failure is certain, up to a
  relative round-off allowance of 1e-9).
* ``bound.iterations``  PDM: t <= the bound of [PT11 Thm. 2] at the certified lower end of gamma_d
  and R = max_k ||y_k|| rounded up; when that bound is below max_iter, "max_iter" fails too.
* ``invariant.final``   gamma_d <= ||a_t|| / t  [PT11 eq. (4)]; in the extended space the update
  counts a_ext[k] / (Delta l_k) are nonnegative integers summing to t.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

import reference
from reference.budgets import default_budget
from reference.result import verify_separator_patterns

from .. import paper_bounds

__all__ = ["DATA_ALGORITHMS", "DataCheck", "DataReport", "validate_on_data", "validate_data_answers", "sha256_of"]

#: The algorithms validated on data, and the name of their accuracy argument.
DATA_ALGORITHMS = {"pdm": "epsilon", "pdm_succ": "epsilon", "pfm": "beta"}
#: Relative allowance for round-off when comparing margins computed in float64.
MARGIN_RTOL = 1e-9

@dataclass(frozen=True)
class DataCheck:
    """One check on one run: ``id``, ``passed``, ``detail`` (both sides; the pattern index)."""

    id: str
    passed: bool
    detail: str
    accuracy: float


@dataclass
class DataReport:
    """Outcome of :func:`validate_on_data`: every check of every run, and the certified margin."""

    algorithm: str
    checks: List[DataCheck] = field(default_factory=list)
    margin: Optional[reference.DataMargin] = None

    @property
    def conforms(self) -> bool:
        return all(c.passed for c in self.checks)

    @property
    def failures(self) -> List[DataCheck]:
        return [c for c in self.checks if not c.passed]

    def summary(self) -> str:
        """One line: the verdict and the certified margin."""
        return self.format().splitlines()[0]

    def as_dict(self) -> dict:
        """JSON-friendly: verdict, certified margin, every check."""
        return {
            "algorithm": self.algorithm, "conforms": self.conforms,
            "margin": None if self.margin is None else {"lower": self.margin.lower, "upper": self.margin.upper,
                                                        "m": self.margin.m, "d": self.margin.d, "nnz": self.margin.nnz},
            "checks": [{"id": c.id, "passed": c.passed, "detail": c.detail, "accuracy": c.accuracy} for c in self.checks],
        }  # fmt: skip

    def format(self) -> str:
        head = (f"{self.algorithm} on data (m = {self.margin.m}, d = {self.margin.d}, nnz = {self.margin.nnz}; "
                f"certified gamma_d in [{self.margin.lower!r}, {self.margin.upper!r}]): ")
        if self.conforms:
            return head + f"conforms ({len(self.checks)} checks passed, every run converged)"
        unconverged = [c for c in self.failures if c.id == "run.converged"]
        wrong = [c for c in self.failures if c.id != "run.converged"]
        verdict = f"{len(wrong)} of {len(self.checks)} checks FAIL" if wrong else "no check failed"
        if unconverged:
            verdict += (f"; {len(unconverged)} of {len({c.accuracy for c in self.checks})} runs did NOT converge "
                        "(their margin guarantee could not be checked): not conforming")
        lines = [head + verdict]
        lines += [f"  FAIL {c.id} (accuracy {c.accuracy:g}): {c.detail}" for c in self.failures]
        return "\n".join(lines)


def _field(ans, name):
    if isinstance(ans, dict):
        return ans.get(name)
    return getattr(ans, name, None)


def _checks_one(alg: str, acc: float, ans, P: reference.Patterns, M: reference.DataMargin, R: float,
                max_iter: int) -> List[DataCheck]:
    out: List[DataCheck] = []

    def add(cid, ok, detail):
        out.append(DataCheck(cid, bool(ok), detail, acc))

    status, t, w = _field(ans, "status"), _field(ans, "iterations"), _field(ans, "w")
    try:
        w = None if w is None else np.asarray(w, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        w = None
    problems = []
    if status not in ("separator", "max_iter"):
        problems.append(f"status {status!r} is not 'separator' or 'max_iter'")
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or t < 0:
        problems.append(f"iterations {t!r} is not an integer >= 0")
    if w is None or w.shape != (P.dim,) or not np.all(np.isfinite(w)):
        problems.append(f"w must be a finite vector of length {P.dim} = d {P.n_features} + {int(P.rho is not None)} (bias)"
                        f" + {P.m if P.Delta is not None else 0} (extended), got {None if w is None else w.shape}")
    add("answer.contract", not problems, "; ".join(problems) or "ok")
    if problems:
        return out
    t = int(t)
    margins = P.matvec(w)
    k = int(np.argmin(margins))
    if status == "separator":
        reason = verify_separator_patterns(P.data, P.indices, P.indptr, P.labels, P.rho, P.Delta, w, P.n_features)
        add("claim.separator", not reason,
            f"{reason} (a.y_k > 0 must hold for every pattern; the most violated is pattern {k}: a.y_{k} = {margins[k]:.6e})"
            if reason else "ok")
    else:
        add("claim.max_iter", t >= max_iter, f"'max_iter' after t = {t} < max_iter = {max_iter} updates: stopped early without a claim"
            if t < max_iter else "ok")
        if t > max_iter:
            add("claim.max_iter", False, f"'max_iter' after t = {t} updates, above the budget max_iter = {max_iter} it was given")
        # a run that did not converge is no verdict of conformance: the guarantee was never checked
        add("run.converged", False, f"'max_iter' after t = {t} updates (max_iter = {max_iter}): the run did not converge, so "
            "guarantee.margin (and claim.separator) could not be checked -- no verdict on the implementation; raise --max-iter")
    norm = float(np.sqrt(w @ w))
    if status == "separator" and norm > 0:
        achieved = float(margins[k]) / norm
        if alg == "pfm":
            need, rel = acc, "> beta"
            ok = achieved > acc * (1 - MARGIN_RTOL)
        else:
            need, rel = (1 - acc) * M.lower, ">= (1 - eps) gamma_d"
            ok = achieved >= need * (1 - MARGIN_RTOL)
        add("guarantee.margin", ok, f"pattern {k}: min_k a.y_k/||a|| = a.y_{k}/||a|| = {achieved:.10e} must be {rel} = {need:.10e}"
            " [PT11 Sec. 3 / Thm. 1]" if not ok else "ok")
    if alg == "pdm" and M.lower > 0:
        bound = paper_bounds.pdm_theorem2(R, M.lower, acc)
        if status == "separator":
            add("bound.iterations", t <= bound + 1, f"t = {t} updates must be <= {bound:.6g} [PT11 Thm. 2]" if t > bound + 1 else "ok")
        elif bound + 1 <= max_iter:
            add("bound.iterations", False, f"'max_iter' after t = {t} updates, but PT11 Thm. 2 guarantees convergence within {bound:.6g} <= max_iter")
    if t > 0 and M.lower > 0:
        ratio = norm / t
        ok = ratio >= M.lower * (1 - MARGIN_RTOL)
        add("invariant.final", ok, f"||a_t||/t = {ratio:.10e} must be >= gamma_d >= {M.lower:.10e} [PT11 eq. (4)]" if not ok else "ok")
    if P.Delta is not None:
        counts = w[P.d0:] / (P.Delta * P.labels)
        bad = np.flatnonzero((counts < -0.5) | (np.abs(counts - np.round(counts)) > 1e-6 * np.maximum(1.0, np.abs(counts))))
        total = float(np.round(counts).sum())
        if bad.size:
            j = int(bad[0])
            add("invariant.final", False, f"pattern {j}: a_ext[{j}]/(Delta l_{j}) = {counts[j]!r} must be a nonnegative integer "
                "(the number of updates with y_{j}, PT11 Sec. 5)")
        else:
            add("invariant.final", abs(total - t) <= 0.5, f"the update counts of the extended coordinates sum to {total:.0f}, but t = {t}"
                if abs(total - t) > 0.5 else "ok")
    return out


def validate_on_data(
    algorithm: str,
    fn: Callable,
    X,
    y,
    *,
    rho: Optional[float] = 1.0,
    Delta: Optional[float] = None,
    epsilons: Sequence[float] = (0.1,),
    max_iter: Optional[int] = None,
    kwargs: Optional[dict] = None,
) -> DataReport:
    """Run ``fn`` on the whole data set for each accuracy and apply layers 1-2  [PT11 Sec. 3-5].

    Parameters
    ----------
    algorithm : {"pdm", "pdm_succ", "pfm"}
    fn : callable
        ``fn(X, y, eps_or_beta, rho=..., Delta=..., max_iter=..., **kwargs)``.
    X, y : the data, as :func:`reference.load_libsvm` returns them (CSR) or dense.
    rho, Delta : the patterns y_k = l_k [x_k, rho, Delta e_k].
    epsilons : accuracies (PDM, PDM-succ) or beta values (PFM) to run.
    max_iter : budget handed to ``fn``; default: the reference's own default for this accuracy
        (:func:`reference.budgets.default_budget`, sized from the certified margin).  On data
        certified NOT separable (no Delta) PT11's algorithms cannot converge, so a budget must be
        given explicitly (or pass Delta).

    Returns
    -------
    DataReport
        ``conforms`` and, per failure, the check id, the pattern index and both sides.
    """
    if algorithm not in DATA_ALGORITHMS:
        raise ValueError(f"validation on data covers {sorted(DATA_ALGORITHMS)} (the PT11 algorithms), got {algorithm!r}")
    if not callable(fn):
        raise ValueError("fn must be a callable fn(X, y, epsilon, rho=..., Delta=..., max_iter=...)")
    P = reference.make_patterns(X, y, rho=rho, Delta=Delta)
    M = reference.margin_from_data(X, y, rho=rho, Delta=Delta)
    report = DataReport(algorithm=algorithm, margin=M)
    if max_iter is None:
        if M.separable is False:
            raise ValueError("the data are certified NOT separable (Gordan): PT11's algorithms cannot converge on them; "
                             "pass Delta (the extended space of PT11 Sec. 5) or an explicit max_iter")
    R = M.R
    for acc in epsilons:
        reference.data.check_real(DATA_ALGORITHMS[algorithm], acc, low=0, low_open=algorithm != "pfm", high=1 if algorithm != "pfm" else None)
        # the budget the reference itself would take: sized from the certified margin (reference.budgets)
        budget = max_iter if max_iter is not None else default_budget(algorithm, (X, y), acc, margin=M, rho=rho, Delta=Delta).max_iter
        try:
            ans = fn(X, y, acc, rho=rho, Delta=Delta, max_iter=budget, **(kwargs or {}))
        except Exception as exc:  # the implementation's own failure is a contract failure
            report.checks.append(DataCheck("answer.contract", False, f"the call raised {type(exc).__name__}: {exc}", acc))
            continue
        report.checks.extend(_checks_one(algorithm, float(acc), ans, P, M, R, budget))
    return report


# -- answers computed elsewhere (any language), on a data file named by path and sha256 ------------


def sha256_of(path) -> str:
    """The sha256 (hex) of a file's bytes, as the data sets' PROVENANCE.md files give it."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


#: The shape of a ``data-answers`` document, named in every error about one.
DATA_ANSWERS_FORMAT = ('{"kind": "data-answers", "data": {"file", "sha256", "n_features"?}, '
                       '"answers": [{"algorithm", "epsilon" (or "beta" for pfm), "rho"?, "Delta"?, "max_iter"?, '
                       '"status", "iterations", "w"}, ...]}')


def _check_answers(path: Path, answers) -> list:
    """The ``answers`` of a data-answers document: a non-empty list of objects, each naming an
    algorithm of :data:`DATA_ALGORITHMS` with its accuracy, or a ValueError naming the file and
    the expected format (before any data file is read)."""
    if not isinstance(answers, list) or not answers:
        got = "none (missing or null)" if answers is None else ("an empty list" if answers == [] else f"{type(answers).__name__} {answers!r:.60}")
        raise ValueError(f'{path}: "answers" must be a non-empty list of answer objects, got {got}; expected {DATA_ANSWERS_FORMAT}')
    for i, ans in enumerate(answers):
        if not isinstance(ans, dict):
            raise ValueError(f"{path}: answers[{i}] must be an object, got {type(ans).__name__} {ans!r:.60}; "
                             f"expected {DATA_ANSWERS_FORMAT}")
        alg = ans.get("algorithm")
        if not isinstance(alg, str) or alg not in DATA_ALGORITHMS:
            raise ValueError(f"{path}: answers[{i}]: algorithm must be one of {sorted(DATA_ALGORITHMS)}, got {alg!r}")
        name = DATA_ALGORITHMS[alg]
        try:
            reference.data.check_real(name, ans.get(name), low=0, low_open=alg != "pfm", high=1 if alg != "pfm" else None)
            for key in ("rho", "Delta"):
                if ans.get(key) is not None:
                    reference.data.check_real(key, ans[key], low=0)
            if "max_iter" in ans:
                reference.data.check_int("max_iter", ans["max_iter"], low=0)
        except ValueError as exc:
            raise ValueError(f"{path}: answers[{i}] ({alg}): {exc}") from None
    return answers


def validate_data_answers(path, data_dir=None) -> List[DataReport]:
    """Check answers computed by any program on a data file named by file name and sha256.

    The document is JSON::

        {"kind": "data-answers",
         "data": {"file": "a9a.gz", "sha256": "<hex>", "n_features": 123},
         "answers": [{"algorithm": "pdm", "epsilon": 0.01, "rho": 1.0, "Delta": 1.0,
                      "max_iter": 10000000, "status": "separator", "iterations": 123456,
                      "w": [...]}]}

    (``beta`` instead of ``epsilon`` for PFM.)  The file is looked up beside the document, then
    in ``data_dir``; its sha256 must match.  Each answer gets the checks of
    :func:`validate_on_data` (the implementation is not run: its answer is the claim).
    """
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a readable JSON document ({exc})") from None
    if not isinstance(doc, dict) or doc.get("kind") != "data-answers" or not isinstance(doc.get("data"), dict):
        raise ValueError(f"{path}: expected {DATA_ANSWERS_FORMAT}")
    answers = _check_answers(path, doc.get("answers"))
    spec = doc["data"]
    name, digest = spec.get("file"), spec.get("sha256")
    if not isinstance(name, str) or not isinstance(digest, str):
        raise ValueError(f'{path}: "data" needs "file" (a file name) and "sha256" (hex)')
    candidates = [path.parent / name] + ([Path(data_dir) / name] if data_dir else [])
    found = next((c for c in candidates if c.is_file()), None)
    if found is None:
        raise ValueError(f"data file {name!r} not found beside {path} or in --data-dir; pass --data-dir DIR")
    actual = sha256_of(found)
    if actual != digest.lower():
        raise ValueError(f"{found}: sha256 {actual} does not match the document's {digest}; the answers were computed on other data")
    X, y = reference.load_libsvm(found, n_features=spec.get("n_features"))
    reports: List[DataReport] = []
    margins = {}
    for ans in answers:
        alg = ans["algorithm"]
        acc = ans[DATA_ALGORITHMS[alg]]
        rho, Delta = ans.get("rho", 1.0), ans.get("Delta")
        key = (rho, Delta)
        if key not in margins:
            margins[key] = (reference.make_patterns(X, y, rho=rho, Delta=Delta), reference.margin_from_data(X, y, rho=rho, Delta=Delta))
        P, M = margins[key]
        rep = DataReport(algorithm=alg, margin=M)
        budget = ans.get("max_iter")  # absent: the reference's own default for this accuracy
        budget = int(budget) if budget is not None else default_budget(alg, (X, y), acc, margin=M, rho=rho, Delta=Delta).max_iter
        rep.checks.extend(_checks_one(alg, float(acc), ans, P, M, M.R, budget))
        reports.append(rep)
    return reports
