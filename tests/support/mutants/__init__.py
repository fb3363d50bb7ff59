"""The mutant zoo: plausible wrong implementations, each standalone (numpy only), each written as a
user would write it.  :data:`MUTANTS` lists ``(id, algorithm, callable, what is wrong)``;
``FAST`` is one mutant per algorithm family for the fast test tier.
"""

from dataclasses import dataclass, field
from typing import Callable

from . import counters_and_choices as cc, pt11, rp14_perceptrons as rp, rp14_smoothed as sm


@dataclass(frozen=True)
class Mutant:
    id: str
    algorithm: str
    impl: Callable
    bug: str
    options: dict = field(default_factory=dict)  # algorithm options it is validated with (bound and given to the reference)
    deep: bool = False  # rejected by the deep tier (validate(..., deep=True), --deep), within 60 s


def _m(algorithm, fn, deep=False, **options):
    return Mutant(fn.__name__, algorithm, fn, (fn.__doc__ or "").strip().splitlines()[0], options, deep)


MUTANTS = [
    _m("perceptron", rp.perceptron_strict_less),
    _m("perceptron", rp.perceptron_ignores_labels),
    _m("perceptron", rp.perceptron_off_by_one),
    _m("perceptron", rp.perceptron_ignores_rule),
    _m("perceptron", rp.perceptron_cyclic_restarts),
    _m("normalized_perceptron", rp.normalized_perceptron_unnormalized),
    _m("normalized_perceptron", rp.normalized_perceptron_argmax),
    _m("nkp", rp.nkp_theta_off),
    _m("nkp", rp.nkp_argmax),
    _m("snkp", sm.snkp_theta_k2),
    _m("snkp", sm.snkp_mu_frozen),
    _m("snkp", sm.snkp_max_shift_softmax),
    _m("snkp", sm.snkp_stale_best_response),
    _m("snkpvn", sm.snkpvn_no_projection),
    _m("snkpvn", sm.snkpvn_mu0_two),
    _m("snkpvn", sm.snkpvn_unchecked_certificate),
    _m("isnkpvn", sm.isnkpvn_certificate_unchecked),
    _m("nvn", sm.nvn_argmax),
    _m("nvn", sm.nvn_squared_test),
    _m("nvn", sm.nvn_line_search_sign),
    _m("pdm", pt11.pdm_norm_not_squared),
    _m("pdm", pt11.pdm_off_by_one),
    _m("pdm", pt11.pdm_strict_less),
    _m("pdm", pt11.pdm_no_bias),
    _m("pdm", pt11.pdm_own_budget_no_bias),
    _m("pfm", pt11.pfm_threshold_without_norm),
    _m("pdm_succ", pt11.pdm_succ_restarts),
    _m("snkp", cc.snkp_counts_from_one),
    _m("snkpvn", cc.snkpvn_old_mu_in_p),
    _m("snkpvn", cc.snkpvn_uniform_prox_centre),
    _m("nvn", cc.nvn_float_exit),
    _m("nkp", cc.nkp_average_lags),
    _m("pdm", cc.pdm_csr_drops_first_entry),
    _m("pdm", cc.pdm_multiple_uncapped, multiple_updates=True),
    _m("pdm", cc.pdm_multiple_one_too_many, multiple_updates=True),
    _m("pdm_succ", cc.pdm_succ_starts_at_eta_eps),
    _m("pdm", cc.pdm_short_counter, deep=True),
]

FAST = ["snkp_counts_from_one", "snkpvn_uniform_prox_centre", "nvn_float_exit", "pdm_csr_drops_first_entry",
        "pdm_multiple_uncapped", "pdm_succ_starts_at_eta_eps", "perceptron_strict_less", "perceptron_ignores_rule", "nkp_theta_off", "snkp_theta_k2", "snkp_max_shift_softmax", "snkpvn_no_projection", "nvn_squared_test", "pdm_off_by_one"]
