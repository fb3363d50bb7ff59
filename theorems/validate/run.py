"""The public entry points: :func:`validate` (a :class:`Report`) and :func:`parametrize_with_checks`
(one pytest test per corpus case plus a hypothesis search).
"""

from __future__ import annotations

import functools
import time
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

from reference.data import check_int

from .call import TIMEOUT, _name_of, edge_flags
from .case import ALGORITHMS, CAP, KEYWORDS, POSITIONAL, Case
from .checks import _failure, reference_options, run_case
from .corpus import corpus, deep_corpus
from .files import _load_cases
from .report import FAIL, Failure, Report
from .search import _hypothesis_search


def validate(algorithm: str, impl: Callable, *, budget: int = 20, strict: bool = False, seed: int = 0,
             timeout: Optional[float] = TIMEOUT, cap: int = CAP, hypothesis: bool = True, cases_dir=None,
             skip_flags: Sequence[str] = (), database=None,
             data=None, rho: Optional[float] = 1.0, Delta: Optional[float] = None, epsilons=(0.1,),
             max_iter: Optional[int] = None, options: Optional[Mapping[str, Any]] = None, deep: bool = False):
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
        Seeds the hypothesis search: the same seed and budget draw the same instances on every
        run, in every directory.
    timeout : float
        Seconds per call before the implementation is declared non-terminating (main thread
        only).  The first call that times out ends the run: the verdict comes within about
        ``timeout`` seconds, not after one timeout per case.
    cap : int
        The largest budget (``max_iter``) handed to the implementation on any case of the fixed
        corpus or the search (default 20,000); a case whose theorem's bound does not fit in it is
        run with a budget instead of a termination promise.
    hypothesis : bool
        Run the hypothesis search after the corpus (``budget`` examples).
    cases_dir : path, optional
        Run the cases of ``<cases_dir>/<algorithm>.json`` (a corpus written by ``margins
        export-cases`` or by ``margins bounds --search``) instead of the fixed corpus.
    skip_flags : sequence of str
        Edge-case classes not to run (cases and hypothesis instances with any of these flags,
        e.g. ``("one_class",)`` for a library that refuses data with one label); reported in the
        notes.
    database : path, optional
        A hypothesis example database directory: failing examples are saved there and replayed
        first on the next run.  Default None: no database, nothing written anywhere, and the
        verdict is a function of (implementation, seed, budget) alone.
    options : mapping, optional
        Algorithm options (``active_sets``, ``multiple_updates``, ``seed``, ``engine``, ...): bound
        into ``impl`` *and* given to the reference wherever its trajectory is compared
        (``trajectory.final``, ``strict``), so an implementation of PT11 Sec. 4 is compared with
        the reference's PT11 Sec. 4.  The keywords of a ``functools.partial`` ``impl`` (what
        ``--kwargs`` builds) count as options too.  The case's own arguments (``q``, ``rule``,
        ``gamma``, ``delta``, ``epsilon``, ``max_iter``, ...) are set by every case: binding one is
        a ValueError.
    deep : bool
        Add the deep tier (:func:`theorems.validate.corpus.deep_corpus`): one long PT11 run and one
        long RP14 run, each within seconds for a fast implementation (``--deep``).
    data : (X, y), optional
        Validate a PT11 implementation on this whole data set instead (X dense or CSR, as
        ``reference.load_libsvm`` returns it): layers 1-2 with the certified gamma_d of the
        patterns (``rho``, ``Delta``), one run per accuracy in ``epsilons`` (``max_iter`` its
        budget); returns a :class:`theorems.validate.data.DataReport`
        (:func:`theorems.validate.data.validate_on_data`).

    Returns
    -------
    Report
        ``conforms``, per-check counts, the failures (first one per check), ``failing`` (every
        failing case per check), ``refusals``, and ``minimal``: the smallest failing instance
        with the reference's answer beside the implementation's.
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    if not callable(impl):
        raise ValueError(f"impl must be callable, got {type(impl).__name__}")
    budget = check_int("budget", budget)  # hypothesis examples; 0: the corpus only
    cap = check_int("cap", cap, low=1)
    if data is not None:
        from .data import validate_on_data

        if not (isinstance(data, tuple) and len(data) == 2):
            raise ValueError("data must be a pair (X, y)")
        return validate_on_data(algorithm, impl, data[0], data[1], rho=rho, Delta=Delta, epsilons=tuple(epsilons),
                                max_iter=max_iter)
    impl, opts = _bind_options(algorithm, impl, options)
    t0 = time.perf_counter()
    report = Report(algorithm=algorithm, implementation=_name_of(impl), conforms=True, strict=strict)
    if opts:
        report.notes.append(f"the reference's trajectory is run with the same options {opts} (trajectory.final, strict.trajectory)")
    failures: Dict[str, Failure] = {}
    cases = corpus(algorithm, cap=cap) if cases_dir is None else list(_load_cases([algorithm], cases_dir).values())
    if deep:
        cases = cases + deep_corpus(algorithm)
    skip = set(skip_flags)
    skipped = [c.case_id for c in cases if skip & set(c.flags)]
    if skipped:
        report.notes.append(f"--skip-flags {','.join(sorted(skip))}: {len(skipped)} cases not run (e.g. {skipped[0]})")
    timed_out = False
    for case in cases:
        if skip & set(case.flags):
            continue
        ans, results = run_case(impl, case, strict=strict, timeout=timeout, options=opts)
        report.record(case.case_id, results, edge_flags(case))
        report.cases += 1
        for r in results:  # the first failure of each check (a case may fail several)
            if r.outcome == FAIL and r.id not in failures:
                failures[r.id] = _failure(case, ans, [r])
        if ans.get("timeout"):
            timed_out = True
            report.notes.insert(0, f"{case.case_id}: no answer within {timeout:g} s: stopped at the first timeout "
                                   f"(the remaining cases and the hypothesis search were not run)")
            break
    shrunk = None
    if hypothesis and budget > 0 and not timed_out:
        shrunk = _hypothesis_search(algorithm, impl, report, examples=budget, seed=seed, strict=strict, timeout=timeout, cap=cap,
                                    skip_flags=skip, database=database, options=opts)
        if shrunk is not None:
            failures.setdefault(shrunk.check, shrunk)
            if not any(cid == shrunk.case_id for cid, _ in report.failing.get(shrunk.check, [])):
                # the shrunk instance is a case of its own: counted in the numerator and the denominator
                report.failing.setdefault(shrunk.check, []).append((shrunk.case_id + " (shrunk)", shrunk.message))
                report.counts.setdefault(shrunk.check, {}).setdefault(FAIL, 0)
                report.counts[shrunk.check][FAIL] += 1
                report.cases += 1
    report.failures = list(failures.values())
    report.settle()
    if report.failures:  # the smallest failing instance (n d), a shrunk one first on ties, then by case id
        cands = list(report.failures) + ([shrunk] if shrunk is not None and all(f is not shrunk for f in report.failures) else [])
        report.minimal = min(cands, key=lambda f: (f.size[0] * max(1, f.size[1]), not f.shrunk, f.case_id))
    report.seconds = time.perf_counter() - t0
    return report


def _bind_options(algorithm: str, impl: Callable, options: Optional[Mapping[str, Any]]) -> Tuple[Callable, Dict[str, Any]]:
    """(the callable with ``options`` bound, the options the reference runs with): the explicit
    ``options`` and the keywords of a ``functools.partial``, less the case's own arguments."""
    own = set(KEYWORDS).union(*POSITIONAL.values())  # every algorithm's case arguments, whichever is validated
    if options:
        if not isinstance(options, Mapping):
            raise ValueError(f"options must be a mapping of keyword arguments, got {type(options).__name__}")
        bound = sorted(set(options) & own)
        if bound:
            raise ValueError(f"options {bound}: every case sets {', '.join(bound)} itself (the corpus varies them); "
                             "bind algorithm options only (active_sets, multiple_updates, seed, engine, ...)")
        impl = functools.partial(impl, **options)
    given = dict(impl.keywords) if isinstance(impl, functools.partial) else {}
    return impl, reference_options(algorithm, given)


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
