"""The hypothesis search: instances drawn from :mod:`theorems.instances.strategies`, derandomized,
shrunk to a minimal failing instance.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from typing import Callable, Optional

from .call import TIMEOUT, edge_flags
from .case import CAP, PT11, RP14_GRAM, RP14_PRIMAL, make_case
from .corpus import as_csr, simplex_point
from .checks import _failure, run_case
from .report import FAIL, Failure, Report


def _strategy(algorithm: str):
    from hypothesis import strategies as st

    from ..instances import strategies as S

    sep = S.separable_instances(n=(2, 8), d=(2, 4), rho=(0.1, 0.9))
    rat = S.rational_instances(n=(1, 5), d=(1, 3))
    deg = S.degenerate_instances()
    if algorithm in RP14_GRAM:
        inst = st.one_of(sep, S.infeasible_instances(d=(1, 3)), S.kernel_instances(n=(2, 8), d=(1, 3)), rat, deg)
    elif algorithm in RP14_PRIMAL:
        inst = st.one_of(sep, S.infeasible_instances(d=(1, 3)), rat, deg)
    else:
        inst = st.one_of(sep, rat, deg)
    if algorithm == "pdm":
        opts = st.tuples(st.sampled_from([0.3, 0.5, 0.7, 1.0, 0.1]), st.sampled_from([None, None, 1.0]))
    elif algorithm == "pdm_succ":
        opts = st.tuples(st.sampled_from([0.1, 0.3, 0.05]), st.sampled_from([None, None, 1.0]))
    elif algorithm == "pfm":
        opts = st.tuples(st.sampled_from([0.3, 0.5, 0.1]), st.sampled_from([None, None, 1.0]))
    else:
        opts = st.just((None, None))
    if algorithm == "snkpvn":  # the prox-centre q: 1_n/n or a point drawn from the simplex
        opts = st.tuples(opts, st.one_of(st.none(), st.integers(0, 2**16)))
    elif algorithm in PT11:  # X dense or as scipy CSR
        opts = st.tuples(opts, st.booleans())
    else:
        opts = st.tuples(opts, st.none())
    return inst, opts


class _CaseFailed(Exception):
    def __init__(self, case, ans, results):
        super().__init__(case.case_id)
        self.case, self.ans, self.results = case, ans, results


class _TimedOut(BaseException):
    """Raised on a timeout: a BaseException, so hypothesis neither retries nor shrinks it."""

    def __init__(self, case, ans, results):
        super().__init__(case.case_id)
        self.case, self.ans, self.results = case, ans, results


@contextlib.contextmanager
def _isolated(database):
    """Hypothesis with nothing hidden: its storage directory (where it caches the constants it
    reads from local source files) is a temporary directory unless the user gave ``database``
    (then that directory), and the constants of local modules -- which depend on what happens to
    be imported and would make the examples drawn for a seed depend on the process -- are not
    mixed into the draws (hypothesis' internal hook, left alone when absent)."""
    from hypothesis import configuration

    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # older hypothesis (6.90) has no providers module, nor local constants to leave out
        providers = None
    name = "__hypothesis_home_directory"
    old_home = getattr(configuration, name, None)
    old_local = getattr(providers, "_get_local_constants", None)
    with tempfile.TemporaryDirectory(prefix="margins-hypothesis-") as tmp:
        configuration.set_hypothesis_home_dir(Path(database) if database is not None else Path(tmp))
        if old_local is not None:
            empty = type(providers._local_constants)() if hasattr(providers, "_local_constants") else None
            providers._get_local_constants = (lambda: empty) if empty is not None else old_local
        if hasattr(providers, "CONSTANTS_CACHE"):
            providers.CONSTANTS_CACHE.cache.clear()
        try:
            yield
        finally:
            configuration.set_hypothesis_home_dir(old_home)
            if old_local is not None:
                providers._get_local_constants = old_local
            if hasattr(providers, "CONSTANTS_CACHE"):
                providers.CONSTANTS_CACHE.cache.clear()


def _hypothesis_search(algorithm: str, impl: Callable, report: Report, *, examples: int, seed: int, strict: bool,
                       timeout: Optional[float] = TIMEOUT, cap: int = CAP, skip_flags=(), database=None,
                       options=None) -> Optional[Failure]:
    """Draw ``examples`` instances (seeded by ``seed``: the same draws on every run, in every
    directory), run the checks, and shrink the first failure.  Only the examples up to the first
    failure are recorded in ``report`` (the shrinking attempts are not cases of their own); the
    first timeout ends the search without shrinking."""
    from hypothesis import HealthCheck, Phase, assume, given, settings
    from hypothesis import seed as hseed
    from hypothesis.database import DirectoryBasedExampleDatabase

    inst_st, opt_st = _strategy(algorithm)
    phases = (Phase.explicit, Phase.generate, Phase.shrink)
    db = None
    if database is not None:
        db = DirectoryBasedExampleDatabase(str(Path(database) / "examples"))
        phases = (Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink)
    cfg = settings(
        max_examples=examples, derandomize=False, deadline=None, database=db, print_blob=False,
        suppress_health_check=list(HealthCheck), phases=phases, report_multiple_bugs=False,
    )
    skip = set(skip_flags)
    failed = []

    def prop(inst, opt):
        (eps, Delta), extra = opt
        tag = "" if eps is None else f"eps={eps:g}" + ("" if Delta is None else f",Delta={Delta:g}")
        kw = {}
        if algorithm == "snkpvn" and extra is not None:
            kw["arguments"] = {"q": simplex_point(len(inst.y), int(extra))}
            tag = f"q=simplex({int(extra)})"
        case = make_case(algorithm, inst, eps=eps, Delta=Delta, variant=tag, cap=cap, **kw)
        if case is not None and algorithm in PT11 and extra:
            case = as_csr(case)
        assume(case is not None and not (skip & set(case.flags)))
        ans, results = run_case(impl, case, strict=strict, timeout=timeout, options=options)
        bad = any(r.outcome == FAIL for r in results)
        if not failed:
            report.record(case.case_id, results, edge_flags(case))
            report.cases += 1
        if ans.get("timeout"):
            report.notes.insert(0, f"{case.case_id}: no answer within {timeout:g} s: stopped at the first timeout")
            raise _TimedOut(case, ans, results)
        if bad:
            failed.append(case.case_id)
            raise _CaseFailed(case, ans, results)

    test = hseed(seed)(given(inst_st, opt_st)(prop))
    test = cfg(test)
    try:
        with _isolated(database):
            test()
    except _TimedOut as exc:
        return _failure(exc.case, exc.ans, exc.results)
    except _CaseFailed as exc:
        return _failure(exc.case, exc.ans, exc.results, shrunk=True)
    except Exception as exc:  # hypothesis' own errors (e.g. Unsatisfiable) are not findings
        if type(exc).__name__ in ("Unsatisfiable", "FailedHealthCheck"):
            report.notes.append(f"hypothesis: {type(exc).__name__}: {exc}")
            return None
        raise
    return None
