"""The fixed corpus of edge cases every validation runs (the cases ``margins export-cases`` writes).
"""

from __future__ import annotations

from typing import List, Tuple

from ..instances import Instance
from ..memo import Memo
from .case import CAP, Case, make_case, PT11


def _corpus_instances() -> List[Instance]:
    from ..instances import strategies as S

    insts = list(S.degenerate_cases())
    insts.append(S.worked_example(3.0))
    insts.append(S.planted_separable(3, 3, 5, 0.3, seed=1))
    insts.append(S.planted_separable(4, 3, 6, 0.2, seed=2, unit=False, scale=2.0))
    insts.append(S.planted_infeasible("simplex", 2, 0))
    insts.append(S.planted_infeasible("random", 3, 5, m=6))
    insts.append(S.random_kernel_instance("gaussian", 8, 2, seed=3, sigma=1.0))
    insts.append(S.random_kernel_instance("polynomial", 6, 2, seed=4, degree=2, c=1.0))
    insts.append(_long_run())
    return insts


def _long_run() -> Instance:
    """A long, ill-conditioned run: 7 points with margin rho = 3e-4, on which SNKP needs about
    3,000 iterations (SNKPVN about 4,800), so mu_k falls to ~1e-7 and (G alpha)/mu_k spans
    ~1e5: an implementation that is only right while exp(-(G alpha)/mu_k) does not overflow or
    underflow (a softmax shifted by the wrong end) fails here, and nowhere on short runs."""
    from dataclasses import replace

    from ..instances import strategies as S

    inst = S.planted_separable(5, 3, 4, 3e-4, seed=0)
    return replace(inst, flags=tuple(dict.fromkeys(tuple(inst.flags) + ("small_margin", "long_run"))))


_CORPORA = Memo(32)


def corpus(algorithm: str, cap: int = CAP) -> List[Case]:
    """The fixed corpus of ``algorithm`` (built once per reference code: :mod:`theorems.memo`)."""
    return list(_CORPORA.get((algorithm, cap), lambda: _corpus(algorithm, cap)))


def _corpus(algorithm: str, cap: int = CAP) -> Tuple[Case, ...]:
    """The fixed, deterministic corpus of ``algorithm`` (what ``margins export-cases`` writes):
    every edge case of :func:`theorems.strategies.degenerate_cases`, RP14's worked example, planted
    separable / infeasible instances and two kernel instances; for PT11 several eps and the
    extended space (Delta = 1)."""
    out: List[Case] = []
    seen = set()
    for inst in _corpus_instances():
        variants: List[Tuple[str, dict]] = [("", {})]
        if algorithm == "pdm":
            variants = [("eps=0.3", {"eps": 0.3}), ("eps=0.7", {"eps": 0.7}), ("eps=0.3,Delta=1", {"eps": 0.3, "Delta": 1.0})]
        elif algorithm in ("pfm", "pdm_succ"):
            variants = [("", {}), ("Delta=1", {"Delta": 1.0})]
        elif algorithm == "perceptron":  # both rules; the implementation is held to the rule it is given
            variants = [("", {}), ("rule=most_violated", {"arguments": {"rule": "most_violated"}})]
        for tag, kw in variants:
            c = make_case(algorithm, inst, variant=tag, cap=cap, **kw)
            if c is not None and c.case_id not in seen:
                seen.add(c.case_id)
                out.append(c)
    # budget exhaustion: the two first cases on which the reference needs >= 6 iterations, rerun
    # with half that budget -- a 'max_iter' must then be honest and any claim must still be true
    slow = [c for c in out if c.reference["status"] != "max_iter" and c.reference["iterations"] >= 6][:2]
    for c in slow:
        inst = next(i for i in _corpus_instances() if i.name == c.name)
        tag = (c.case_id.split("/", 2)[2] + "," if c.case_id.count("/") == 2 else "") + "budget"
        kw = {"arguments": {"rule": c.args["rule"]}} if "rule" in c.args else {}
        if c.algorithm in PT11:
            kw = {"Delta": c.args.get("Delta")}
            if c.algorithm != "pfm":
                kw["eps"] = c.args["epsilon"]
        b = make_case(algorithm, inst, variant=tag, cap=cap, budget=c.reference["iterations"] // 2, **kw)
        if b is not None:
            out.append(b)
    return tuple(out)
