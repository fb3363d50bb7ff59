"""Correct but different implementations: the harness must accept every one (no false alarms).
:data:`VARIANTS` lists ``(id, algorithm, callable)``; five independent modules.  :data:`OPTIONS`
gives the algorithm options a variant is (also) validated with."""

from . import choice_variants as choice, float32_variants as f32, late_stop_variants as late, pt11_variants as pt, tiebreak_variants as tie

VARIANTS = [
    ("float32.nkp", "nkp", f32.nkp),
    ("float32.snkp", "snkp", f32.snkp),
    ("float32.nvn", "nvn", f32.nvn),
    ("tiebreak.perceptron", "perceptron", tie.perceptron),
    ("tiebreak.normalized_perceptron", "normalized_perceptron", tie.normalized_perceptron),
    ("tiebreak.nkp", "nkp", tie.nkp),
    ("tiebreak.nvn", "nvn", tie.nvn),
    ("shuffled.pdm", "pdm", pt.pdm),
    ("shuffled.pfm", "pfm", pt.pfm),
    ("shuffled.pdm_succ", "pdm_succ", pt.pdm_succ),
    ("late_stop.snkp", "snkp", late.snkp),
    ("late_stop.snkpvn", "snkpvn", late.snkpvn),
    ("late_stop.isnkpvn", "isnkpvn", late.isnkpvn),
    ("choice.nkp_uniform_first_step", "nkp", choice.nkp),
    ("choice.snkp_log_domain", "snkp", choice.snkp),
    ("choice.snkpvn_bisection_projection", "snkpvn", choice.snkpvn),
    ("choice.pdm_csr_rows", "pdm", choice.pdm),
]

#: variant id -> the algorithm options it is validated with, besides its defaults
OPTIONS = {"choice.pdm_csr_rows": {"multiple_updates": True}}
