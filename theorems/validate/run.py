"""The public entry points: :func:`validate` (a :class:`Report`) and :func:`parametrize_with_checks`
(one pytest test per corpus case plus a hypothesis search).
"""

from __future__ import annotations

import time
from typing import Callable, Dict, Optional

from .call import TIMEOUT, _name_of
from .case import ALGORITHMS, CAP, Case
from .checks import _failure, run_case
from .corpus import corpus
from .files import _load_cases
from .report import FAIL, Failure, Report
from .search import _hypothesis_search


def validate(algorithm: str, impl: Callable, *, budget: int = 20, strict: bool = False, seed: int = 0,
             timeout: Optional[float] = TIMEOUT, cap: int = CAP, hypothesis: bool = True, cases_dir=None) -> Report:
    """Check ``impl`` against ``reference.<algorithm>``: layers 1-2 (and 3 with ``strict``).

    Parameters
    ----------
    algorithm : str
        A reference function name (``"snkp"``, ``"pdm"``, ...).
    impl : callable
        Takes the reference function's arguments (keywords it does not accept are not passed) and
        returns a Result-like object or a mapping with ``status``, ``iterations``, ``alpha``,
        ``w``, ``p`` (and optionally ``trace``: a sequence of states with fields among
        ``k``/``t``, ``alpha``, ``p``, ``w``/``a``, ``mu``).
    budget : int
        Number of hypothesis examples on top of the fixed corpus (default 20: well under 30 s per
        algorithm for a fast implementation); raise it to go deeper.
    strict : bool
        Add layer 3 (step-by-step agreement with the reference trajectory).
    seed : int
        0 = derandomized (the same run every time); anything else seeds hypothesis.
    timeout : float
        Seconds per call before the implementation is declared non-terminating (main thread only).
    cases_dir : path, optional
        Run the cases of ``<cases_dir>/<algorithm>.json`` (a corpus written by ``margins
        export-cases`` or by ``margins bounds --search``) instead of the fixed corpus.

    Returns
    -------
    Report
        ``conforms``, per-check counts, the failures (first one per check), and ``minimal``: the
        smallest failing instance with the reference's answer beside the implementation's.
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    if not callable(impl):
        raise ValueError(f"impl must be callable, got {type(impl).__name__}")
    t0 = time.perf_counter()
    report = Report(algorithm=algorithm, implementation=_name_of(impl), conforms=True, strict=strict)
    failures: Dict[str, Failure] = {}
    cases = corpus(algorithm, cap=cap) if cases_dir is None else list(_load_cases([algorithm], cases_dir).values())
    for case in cases:
        ans, results = run_case(impl, case, strict=strict, timeout=timeout)
        report.record(case.case_id, results)
        report.cases += 1
        if any(r.outcome == FAIL for r in results):
            f = _failure(case, ans, results)
            failures.setdefault(f.check, f)
    shrunk = None
    if hypothesis and budget > 0:
        shrunk = _hypothesis_search(algorithm, impl, report, examples=budget, seed=seed, strict=strict, timeout=timeout, cap=cap)
        if shrunk is not None:
            failures.setdefault(shrunk.check, shrunk)
    report.failures = list(failures.values())
    report.conforms = not report.failures
    if report.failures:
        cands = ([shrunk] if shrunk is not None else []) + sorted(report.failures, key=lambda f: (f.size[0] * max(1, f.size[1]), f.case_id))
        best = min(cands, key=lambda f: (f.size[0] * max(1, f.size[1]), not f.shrunk))
        report.minimal = best
    report.seconds = time.perf_counter() - t0
    return report


def parametrize_with_checks(algorithm: str, impl: Callable, *, budget: int = 20, strict: bool = False, seed: int = 0):
    """A ``pytest.mark.parametrize`` over the validation of ``impl``, one test per corpus case
    plus one hypothesis search (in the spirit of scikit-learn's ``parametrize_with_checks``)::

        from theorems.validate import parametrize_with_checks

        @parametrize_with_checks("snkp", my_snkp)
        def test_my_snkp(check):
            check()

    Each ``check()`` raises ``AssertionError`` with the failing check, the instance and both answers.
    """
    import pytest

    def case_check(case: Case):
        def check():
            ans, results = run_case(impl, case, strict=strict)
            if any(r.outcome == FAIL for r in results):
                raise AssertionError("\n" + _failure(case, ans, results).format())
        return check

    def search_check():
        report = Report(algorithm=algorithm, implementation=_name_of(impl), conforms=True, strict=strict)
        f = _hypothesis_search(algorithm, impl, report, examples=budget, seed=seed, strict=strict)
        if f is not None:
            raise AssertionError("\n" + f.format())

    params = [pytest.param(case_check(c), id=c.case_id) for c in corpus(algorithm)]
    params.append(pytest.param(search_check, id=f"{algorithm}/hypothesis"))
    return pytest.mark.parametrize("check", params)
