"""The fixed corpus of edge cases every validation runs (the cases ``margins export-cases`` writes).
"""

from __future__ import annotations

from dataclasses import replace
from typing import List, Tuple

from reference.data import check_int

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
    insts += _random_infeasible()
    insts.append(_rounded_antipodal())
    return insts


def _rounded_antipodal() -> Instance:
    """x = (1, 1) and -x under the same label: infeasible, but the normalized Gram matrix rounds
    G_12 = -1 to -0.9999999999999998, so G alpha > 0 holds at alpha = (1/2, 1/2) by round-off
    alone -- a separator claimed there is false (judged by the reference's own allowance)."""
    import numpy as np

    X = np.array([[1.0, 1.0], [-1.0, -1.0]])
    return Instance("antipodal-rounded", X, np.array([1, 1]), flags=("antipodal", "infeasible", "one_class"))


def _random_infeasible() -> List[Instance]:
    """Random infeasible instances of small dimension (8 points, d = 1 and d = 2): the origin
    inside the hull of random unit vectors, which is where the smoothed algorithms' infeasible
    branch (SNKPVN's certificate) is exercised away from regular shapes."""
    from ..instances import strategies as S

    return [S.planted_infeasible("random", d, seed, m=8) for d, seed in ((1, 3), (1, 7), (2, 4), (2, 9))]


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
    """The fixed corpus of ``algorithm`` (built once per reference code: :mod:`theorems.memo`), no
    case's budget above ``cap`` (an integer >= 1)."""
    cap = check_int("cap", cap, low=1)
    return list(_CORPORA.get((algorithm, cap), lambda: _corpus(algorithm, cap)))


def _corpus(algorithm: str, cap: int = CAP) -> Tuple[Case, ...]:
    """The fixed, deterministic corpus of ``algorithm`` (what ``margins export-cases`` writes):
    every edge case of :func:`theorems.strategies.degenerate_cases`, RP14's worked example, planted
    separable / infeasible instances and two kernel instances; for PT11 several eps and the
    extended space (Delta = 1)."""
    out: List[Case] = []
    seen = set()
    for idx, inst in enumerate(_corpus_instances()):
        variants: List[Tuple[str, dict]] = [("", {})]
        if algorithm == "snkpvn":  # the prox-centre q is an argument: also a q drawn from the simplex
            variants.append(("q=simplex", {"arguments": {"q": simplex_point(len(inst.y), idx)}}))
        if algorithm == "pdm":
            variants = [("eps=0.3", {"eps": 0.3}), ("eps=0.7", {"eps": 0.7}), ("eps=0.3,Delta=1", {"eps": 0.3, "Delta": 1.0})]
        elif algorithm in ("pfm", "pdm_succ"):
            variants = [("", {}), ("Delta=1", {"Delta": 1.0})]
        elif algorithm == "perceptron":  # both rules; the implementation is held to the rule it is given
            variants = [("", {}), ("rule=most_violated", {"arguments": {"rule": "most_violated"}})]
        for tag, kw in variants:
            c = make_case(algorithm, inst, variant=tag, cap=cap, **kw)
            if c is not None and c.case_id not in seen:
                if tag == "q=simplex":
                    c = replace(c, flags=c.flags + ("q_simplex",))
                seen.add(c.case_id)
                out.append(c)
    # budget exhaustion: the two first cases on which the reference needs >= 6 iterations, rerun
    # with half that budget -- a 'max_iter' must then be honest and any claim must still be true
    slow = [c for c in out if c.reference["status"] != "max_iter" and c.reference["iterations"] >= 6][:2]
    for c in slow:
        inst = next(i for i in _corpus_instances() if i.name == c.name)
        tag = _and_variant(c.case_id, "budget")
        kw = {"arguments": {"rule": c.args["rule"]}} if "rule" in c.args else {}
        if c.algorithm in PT11:
            kw = {"Delta": c.args.get("Delta")}
            if c.algorithm != "pfm":
                kw["eps"] = c.args["epsilon"]
        b = make_case(algorithm, inst, variant=tag, cap=cap, budget=c.reference["iterations"] // 2, **kw)
        if b is not None:
            out.append(b)
    if algorithm in PT11:
        out += _crossing_budgets(algorithm, out)
        out += [as_csr(c) for c in out]  # every PT11 case also with X as scipy CSR
    return tuple(out)


def simplex_point(n: int, seed: int):
    """A point of the simplex drawn from Dirichlet(1, ..., 1) (a prox-centre q of SNKPVN other
    than 1_n/n), rounded to multiples of 2^-40 that sum to exactly 1: the draw rounded down, the
    first coordinate taking the remainder, so every coordinate is within n 2^-40 of the draw and
    q lies on the simplex exactly, in float64 summed in any order (partial sums are multiples of
    2^-40 below 2) and in exact arithmetic."""
    import numpy as np

    draw = np.random.default_rng(1000 + seed).dirichlet(np.ones(n))
    k = np.floor(draw * 2.0**40)  # integers below 2^53: their floors, sums and differences are exact in float64
    k[0] += 2.0**40 - k.sum()
    return k / 2.0**40


def as_csr(case: Case) -> Case:
    """The same case with X passed to the implementation as a scipy CSR matrix (flag ``csr``)."""
    algorithm, instance = case.case_id.split("/")[:2]
    return replace(case, case_id=f"{algorithm}/{instance}/{_and_variant(case.case_id, 'csr')}", flags=case.flags + ("csr",))


def _crossing_budgets(algorithm: str, cases: List[Case]) -> List[Case]:
    """Budget cases that a multiple update (PT11 Sec. 4) crosses: the reference run with
    ``multiple_updates`` makes an update of lambda >= 2 from t; the budget t + 1 lies inside it,
    so an implementation that does not cap lambda at max_iter - t returns iterations > max_iter.
    Built from the first two cases whose reference separates (budget cases do not: their budget
    is half the reference's count) and whose run with multiple updates makes one; that run goes
    to convergence (no budget: the case separates, so PT11 Theorem 1 bounds it), and its first
    update is always single ([E-B7] theta_0 = 0)."""
    import reference

    out: List[Case] = []
    for c in cases:
        if len(out) >= 2 or c.reference["status"] != "separator":
            continue
        kw = {k: v for k, v in c.args.items() if k in ("rho", "Delta")}
        pos = [c.args[p] for p in ("beta",) if algorithm == "pfm"] or [c.args["epsilon"]]
        res = getattr(reference, algorithm)(c.X, c.y, *pos, multiple_updates=True, trace=True, **kw)
        ts = [s.t for s in res.trace]
        jump = next((a for a, b in zip(ts, ts[1:]) if b - a >= 2), None)
        if jump is None:
            continue
        inst = next(i for i in _corpus_instances() if i.name == c.name)
        okw = {"Delta": c.args.get("Delta")}
        if algorithm != "pfm":
            okw["eps"] = c.args["epsilon"]
        b = make_case(algorithm, inst, variant=_and_variant(c.case_id, "budget=crossing"), budget=jump + 1, **okw)
        if b is not None:
            out.append(replace(b, flags=b.flags + ("crossing",)))
    return out


def _and_variant(case_id: str, tag: str) -> str:
    """The variant of the case ``case_id`` ("algorithm/instance[/variant]") with ``tag`` added:
    "variant,tag", or "tag" for a case without a variant."""
    parts = case_id.split("/")
    return f"{parts[2]},{tag}" if len(parts) == 3 else tag


def deep_corpus(algorithm: str) -> List[Case]:
    """The deep tier (``validate(..., deep=True)``, ``--deep``): one long run per family, each a
    few seconds for the reference and for a fast implementation.

    * RP14 (SNKP, SNKPVN): the long, ill-conditioned instance of the corpus with a margin ten
      times smaller (rho = 3e-5): SNKP needs about 32,000 iterations, SNKPVN about 48,000.
    * PT11: 30 points in R^3 with margin 2e-3, at eps = 0.01 (PDM, PDM-succ; PFM at beta =
      0.99 gamma_d): about 10^5 updates, where a float32 accumulation of a_t drifts away from the
      dynamic margin condition; budget 2,000,000 updates (PT11's bound does not fit in it, so
      ``max_iter`` is a budget, not a theorem's).
    """
    return list(_DEEP.get(algorithm, lambda: _deep(algorithm)))


_DEEP = Memo(16)


def _deep(algorithm: str) -> Tuple[Case, ...]:
    from ..instances import strategies as S

    pt11 = algorithm in PT11
    inst = S.planted_separable(3, 3, 27, 2e-3, seed=3) if pt11 else S.planted_separable(5, 3, 4, 3e-5, seed=0)
    inst = replace(inst, flags=tuple(dict.fromkeys(tuple(inst.flags) + ("long_run", "deep"))))  # (small_margin: its builder's)
    if pt11:
        c = make_case(algorithm, inst, eps=0.01, variant="eps=0.01,deep", cap=2_000_000)
        return (c, as_csr(c))  # every PT11 algorithm applies to separable data: c is never None
    c = make_case(algorithm, inst, variant="deep", cap=60_000)
    return () if c is None or c.reference["iterations"] < 10_000 else (c,)  # only where the run is long
