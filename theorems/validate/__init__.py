"""Validate any implementation of an RP14 / PT11 algorithm against the reference.

    from theorems.validate import validate
    report = validate("snkp", my_snkp)          # my_snkp(G, *, max_iter=..., trace=...) -> Result-like
    report.conforms, print(report.format())

What is checked, in layers (each check has an id, reported with its outcome):

**Layer 1 -- the claim** (always).

* ``answer.contract``  the call returned (no exception, no timeout) an object with the Result
  attributes (or a mapping with those keys): ``status`` in {separator, certificate, max_iter} and
  allowed for the algorithm, an integer ``iterations >= 0`` (or None: no counter), and the vector
  the status needs, of the right length and finite.  With answers files: every case of the
  corpus is answered (unless ``subset=True``).
* ``claim.separator``  one judge for both sides: a claimed separator is accepted exactly when
  the reference's own verifier accepts it (:func:`reference.result.verify_separator_gram` /
  ``verify_separator_primal``: y_i <w, x_i> > 0 (primal), G alpha > 0 (Gram algorithms), a.y_k > 0
  on the augmented/extended patterns (PT11), each beyond its round-off allowance).  A zero
  vector, an exact 0 margin, or a margin positive only within round-off fails.
* ``claim.certificate``  accepted exactly when :func:`reference.result.verify_certificate` accepts
  it: p in the simplex (to float64 accuracy) and ||p||_G certified within the algorithm's accuracy
  (NVN: <= epsilon; SNKPVN: < delta; ISNKPVN: < epsilon).
* ``claim.max_iter``  a "max_iter" is *honest*: it is dishonest (a) to stop before the budget
  (``iterations < max_iter``) without a claim, or (b) to return a vector that already passes the
  reference's verifier -- the claim was left on the table; and no answer reports more iterations
  than the budget it was given (a multiple update must be capped).  Whether the *reference* converged is not part of honesty (that is layer 2,
  and only where a theorem guarantees it).  (b) is not applied to PT11, whose exit test is "a full
  pass without an update", a property of the run, not of the vector.

**Layer 2 -- the papers' guarantees** (always; skipped where the instance gives no theorem or the
implementation lacks the capability).

* ``bound.iterations``  the counter is within the paper's bound (:mod:`theorems.paper_bounds`,
  evaluated at the conservative end of the certified margin interval from
  :func:`reference.margin`); and when that bound is within the budget, "max_iter" is a failure
  (the theorem guarantees termination).  One iteration of slack absorbs counter conventions.
* ``guarantee.margin``  PT11: a separator's directional margin min_k a.y_k/||a|| is
  >= (1-eps) gamma_d (PDM, PDM-succ) or > beta (PFM).
* ``invariant.final``  statements about the returned iterate that every correct run satisfies:
  alpha, p in the simplex (NKP k >= 1, SNKP, SNKPVN, ISNKPVN, NVN); NKP: k alpha_k is a vector
  of nonnegative integers (an average of k vertices) and ||alpha_k||_G^2 <= 1/k; Normalized
  Perceptron: ||w_k||^2 <= 1/k (R^2/k unnormalized); Perceptron: ||w_k||^2 <= k R^2 and
  ||w_k|| >= k rho (Block-Novikoff's two halves); NVN: ||p_k||_G^2 (k+1) <= 1; SNKP: the excessive
  gap condition L_{mu_k}(alpha_k) <= -||p_k||_G^2/2 with mu_k = 4/((k+1)(k+2)) (Lemma 5); SNKPVN:
  the same with L^q and mu_k = 4n/((k+1)(k+2)) (Lemmas 8/9); PT11: eq. (4) gamma_d <= ||a_t||/t,
  ||a_t|| <= R t, PDM's exit (8) with the returned t (min a.y_k > (1-eps)||a_t||/t), and in the
  extended space (Delta given) the update counts read off the extra coordinates are nonnegative
  integers summing to t.
* ``invariant.trace``  when the implementation returns a trace: every iterate satisfies the
  per-iterate statements above (Lemma 5 / Lemma 8-9 EGC, mu_k's closed form, eq. (4), NVN's
  1/sqrt(k+1)), and every step is a legitimate step of the algorithm (NKP / Normalized Perceptron:
  a vertex chosen among the near-argmin; Perceptron: a mistake; PDM/PFM: an update on a pattern
  satisfying (8) / (7)).

* ``trajectory.final``  where the reference's trajectory is determined (no decision within
  round-off up to the returned counter k: SNKP, SNKPVN, NVN, NKP and the Normalized Perceptron
  after their free first step, a Perceptron given ``rule="cyclic"``), the returned vector is the
  reference's iterate k; a counter off by j is named as such.  Where it is not determined (NKP's
  first best response, spec A.7; ties; PT11's order of presentation; no counter; a later stop)
  the result is a skip that says why.

**Layer 3 -- ``strict=True``**: the trajectory agrees with the reference's step by step (rtol
1e-6, atol 1e-9; float32 answers rtol 1e-3), the reference run with the same algorithm options
(``options=``, or the keywords of a ``functools.partial``: ``--kwargs``).  A divergence right after
a free choice of the reference (an argmin whose two best candidates are within 1e-9, another
pattern presented first in PT11, final answers without a trace after such a choice, a later stop
at a valid claim) is reported as a note; any other divergence, or a different final status /
counter, fails.

Legitimate differences -- argmin tie-breaking, which misclassified point a Perceptron takes, a
later (but valid) stopping iterate, float32 arithmetic on well-conditioned data -- pass layers 1-2.

**The Perceptron's rule.**  A callable that accepts ``rule`` is passed the case's rule and held to
it (layer 2 on its trace, layer 3 on its trajectory).  ``cyclic``: the first mistake scanning from
the index after the last update, wrapping around (the scan continues; it does not restart at 0);
``most_violated``: argmin_i y_i <w_k, x_i>.  A callable without ``rule`` claims none: the
most-violated cases are skipped and any mistake is a legitimate update.

**Capabilities, refusals, edge-case classes.**  ``iterations=None`` (no counter) skips the
iteration-bound checks, as a missing trace skips ``invariant.trace``.  A ``ValueError`` raised on
an edge case is a *refusal* (``Report.refusals``), reported apart from wrong answers and still
not conforming; ``skip_flags`` (``--skip-flags``) leaves classes out (``one_class``, ``n1``,
``long_run``, ...).  The report lists every failing case of every check (``Report.failing``).

**Hangs and reproducibility.**  The first call that times out ends the run.  The hypothesis search
is seeded (``seed``), draws without hypothesis' local-constants pool, writes nothing (its storage
directory is a temporary one) and uses an example database only when given one (``database``),
so a seed and budget give the same verdict on every run, in every directory.

Instances: a fixed corpus of edge cases (:func:`corpus`, the same cases ``margins export-cases``
writes) and instances drawn by hypothesis from :mod:`theorems.strategies`, with derandomized
settings (so a run is deterministic) and shrinking (so a failure is reported on a minimal
instance).

The harness is a package with one module per room: :mod:`.case` (the case and the algorithm
table), :mod:`.corpus`, :mod:`.answer` and :mod:`.call` (what an implementation returns, and calling
it), :mod:`.checks` (the layers), :mod:`.search` (hypothesis), :mod:`.run` (the entry points),
:mod:`.schema` and :mod:`.files` (the JSON format, files in and out), :mod:`.cli`.  This file only
re-exports the public face.
"""

from .call import load_callable
from .case import ALGORITHMS, Case, make_case
from .checks import evaluate, run_case
from .corpus import corpus
from .files import export_cases, validate_answers, validate_trace, write_answers, write_corpus
from .report import LAYERS, CheckResult, Failure, Report
from .data import validate_data_answers, validate_on_data
from .run import parametrize_with_checks, validate

__all__ = [
    "ALGORITHMS",
    "LAYERS",
    "CheckResult",
    "Case",
    "Failure",
    "Report",
    "validate",
    "parametrize_with_checks",
    "corpus",
    "make_case",
    "run_case",
    "evaluate",
    "export_cases",
    "write_corpus",
    "write_answers",
    "validate_answers",
    "validate_trace",
    "load_callable",
    "validate_on_data",
    "validate_data_answers",
]
