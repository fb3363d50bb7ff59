"""The hypothesis search: instances drawn from :mod:`theorems.instances.strategies`, derandomized,
shrunk to a minimal failing instance.
"""

from __future__ import annotations

from typing import Callable, Optional

from .call import TIMEOUT
from .case import CAP, RP14_GRAM, RP14_PRIMAL, make_case
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
    return inst, opts


class _CaseFailed(Exception):
    def __init__(self, case, ans, results):
        super().__init__(case.case_id)
        self.case, self.ans, self.results = case, ans, results


def _hypothesis_search(algorithm: str, impl: Callable, report: Report, *, examples: int, seed: int, strict: bool,
                       timeout: Optional[float] = TIMEOUT, cap: int = CAP) -> Optional[Failure]:
    from hypothesis import HealthCheck, Phase, assume, given, settings
    from hypothesis import seed as hseed

    inst_st, opt_st = _strategy(algorithm)
    cfg = settings(
        max_examples=examples, derandomize=(seed == 0), deadline=None, database=None, print_blob=False,
        suppress_health_check=list(HealthCheck), phases=(Phase.explicit, Phase.generate, Phase.shrink),
        report_multiple_bugs=False,
    )

    def prop(inst, opt):
        eps, Delta = opt
        tag = "" if eps is None else f"eps={eps:g}" + ("" if Delta is None else f",Delta={Delta:g}")
        case = make_case(algorithm, inst, eps=eps, Delta=Delta, variant=tag, cap=cap)
        assume(case is not None)
        ans, results = run_case(impl, case, strict=strict, timeout=timeout)
        report.record(case.case_id, results)
        report.cases += 1
        if any(r.outcome == FAIL for r in results):
            raise _CaseFailed(case, ans, results)

    test = given(inst_st, opt_st)(prop)
    if seed != 0:
        test = hseed(seed)(test)
    test = cfg(test)
    try:
        test()
    except _CaseFailed as exc:
        return _failure(exc.case, exc.ans, exc.results, shrunk=True)
    except Exception as exc:  # hypothesis' own errors (e.g. Unsatisfiable) are not findings
        if type(exc).__name__ in ("Unsatisfiable", "FailedHealthCheck"):
            report.notes.append(f"hypothesis: {type(exc).__name__}: {exc}")
            return None
        raise
    return None
