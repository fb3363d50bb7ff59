"""Everything the explorer writes: the CSV and JSON of the rows, the PNG, the text tables, the
versioned bounds-case file of the worst instance (and its replay), and that instance as a one-case
validation corpus.
"""

from __future__ import annotations

import csv
import io
import json
import math
import textwrap
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

import numpy as np

from .. import text
from ..instances.families import explicit_spec, make_instance, rationalize
from ..validate import schema
from ..validate.case import _slug, make_case
from ..validate.files import write_corpus
from ..validate.schema import SCHEMA_VERSION
from .search import _finite_ratio, beaten
from .targets import SAME_STATEMENT, _q_vector, get_target
from .tasks import evaluate_task

CASE_KIND = "bounds-case"
PLOT_MISSING = ("matplotlib is not installed, so no PNG plot was written; install the optional extra with "
                "`pip install 'perceptron-margins[plot]'` (or `pip install matplotlib`). Table, CSV and JSON are complete.")

CSV_COLUMNS = [
    "target", "phase", "family", "instance", "n", "d", "kernel", "margin_kind", "margin", "margin_source",
    "R", "args", "status", "quantity", "observed", "bound", "ratio", "floor", "note", "spec",
]
SUMMARY_COLUMNS = [
    "target", "kind", "max_sweep_ratio", "max_search_ratio", "worst_instance", "worst_args",
    "worst_observed", "worst_bound", "beaten", "applicable", "roundoff", "errors", "case",
]


# -- CSV and JSON ---------------------------------------------------------------------------------


def _cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return repr(v) if math.isfinite(v) else str(v)
    return str(v)


def csv_text(rows: Sequence[dict], columns: Sequence[str] = CSV_COLUMNS) -> str:
    """``rows`` as CSV with a header line: one column per name in ``columns``, floats by ``repr``."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([_cell(r.get(c)) for c in columns])
    return buf.getvalue()


def write_csv(path, rows: Sequence[dict], columns: Sequence[str] = CSV_COLUMNS) -> None:
    Path(path).write_text(csv_text(rows, columns), encoding="utf-8")


def write_json(path, doc) -> None:
    """The explorer's JSON: keys sorted, private keys (``_task``) left out (:func:`theorems.validate.schema.write_json`)."""
    schema.write_json(path, doc, sort_keys=True)


# -- the plot -------------------------------------------------------------------------------------


def _have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def write_plot(path, rows: Sequence[dict], title: str) -> Optional[str]:
    """Log-log scatter of observed vs bound, one colour per family, the bound as the line
    observed = bound.  Returns ``None`` on success, else the message saying why no PNG was made."""
    if not _have_matplotlib():
        return PLOT_MISSING
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts = [r for r in rows if isinstance(r.get("observed"), float) and isinstance(r.get("bound"), float)
           and r["observed"] > 0 and r["bound"] > 0 and math.isfinite(r["bound"]) and math.isfinite(r["observed"])]
    fig, ax = plt.subplots(figsize=(6.4, 4.8), dpi=100)
    fams = sorted({r["family"] for r in pts})
    for f in fams:
        for phase, marker in (("sweep", "o"), ("search", "x")):
            sel = [r for r in pts if r["family"] == f and r.get("phase") == phase]
            if sel:
                ax.scatter([r["bound"] for r in sel], [r["observed"] for r in sel], marker=marker, s=18,
                           label=f"{f} ({phase})", alpha=0.75)
    if pts:
        lo = min(min(r["bound"], r["observed"]) for r in pts)
        hi = max(max(r["bound"], r["observed"]) for r in pts)
        ax.plot([lo, hi], [lo, hi], "k-", lw=1, label="observed = bound")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.legend(fontsize=7, loc="upper left")
    else:
        ax.text(0.5, 0.5, "no positive (observed, bound) pairs", ha="center", transform=ax.transAxes)
    zeros = sum(1 for r in rows if isinstance(r.get("observed"), float) and r["observed"] == 0)
    ax.set_xlabel("paper's bound" + (f"   ({zeros} rows with observed = 0 not shown on the log axis)" if zeros else ""))
    ax.set_ylabel("observed")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
    return None


def rows_table(rows: Sequence[dict], limit: int = 30) -> str:
    valid = [r for r in rows if math.isfinite(_finite_ratio(r)) and _finite_ratio(r) > -math.inf]
    shown = sorted(valid, key=lambda r: -_finite_ratio(r))[:limit] if len(valid) > limit else valid
    hdr = ["phase", "instance", "n", "d", "kernel", "margin", "R", "args", "status", "observed", "bound", "ratio"]
    body = [[r.get("phase"), r.get("instance"), text.fmt(r.get("n")), text.fmt(r.get("d")), r.get("kernel"),
             f"{r.get('margin_kind', '')}={text.fmt(r.get('margin'))}", text.fmt(r.get("R")), r.get("args"), r.get("status"),
             text.fmt(r.get("observed")), text.fmt(r.get("bound")), text.fmt(r.get("ratio"))] for r in shown]
    note = f"\n({len(shown)} of {len(valid)} applicable rows shown, largest ratios first; all {len(rows)} rows in the CSV)" if len(valid) > limit else ""
    return text.table(hdr, body) + note


# -- case files -----------------------------------------------------------------------------------


def case_document(row: dict, command: str = "") -> dict:
    """A versioned, replayable case file for one evaluated row (the worst instance).

    The arguments are the row's (for ``lemma7*`` they hold the attaining q explicitly).  For the
    ``lemma7*`` targets (and ``RP14.lemma7*``, evaluated as they are) on float planar/spatial data the instance is first rationalized
    (:func:`theorems.instances.families.rationalize`: every point moved by ~1e-9 to a rational unit
    vector, ``known["exact_X"]``) and re-evaluated, so that the case file -- and its replay --
    decide the statement in exact rational arithmetic."""
    task = row["_task"]
    tgt = get_target(task["target"])
    inst = make_instance(task["spec"])
    if isinstance(row.get("args"), str):
        task = dict(task, args=json.loads(row["args"]))
    if SAME_STATEMENT.get(tgt.id, tgt.id) in ("lemma7", "lemma7.printed") and "exact_X" not in inst.known and inst.kernel == "linear" and 2 <= inst.d <= 3:
        inst = rationalize(inst)
        known = {k: (list(v) if isinstance(v, tuple) else v) for k, v in inst.known.items()}
        task = dict(task, spec=explicit_spec(inst, known=known))
        row = dict(evaluate_task(task), _task=task)
    known = {k: (list(v) if isinstance(v, tuple) else v) for k, v in inst.known.items()}
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": CASE_KIND,
        "id": f"{tgt.id}/{inst.name}",
        "target": tgt.id,
        "statement": tgt.statement,
        "source": tgt.source,
        "flags": list(inst.flags),
        "instance": {"name": inst.name, "X": [[float(v) for v in r] for r in np.asarray(inst.X, dtype=float)],
                     "y": [int(v) for v in inst.y], "kernel": inst.kernel, "params": dict(inst.params),
                     "known": known},
        "spec": {k: v for k, v in task["spec"].items() if k not in ("X", "y")},
        "algorithm": tgt.algorithm,
        "args": task["args"],
        "quantity": row.get("quantity"),
        "observed": row.get("observed"),
        "bound": row.get("bound"),
        "ratio": row.get("ratio"),
        "status": row.get("status"),
        "beaten": beaten(row),
        "reproduce": command,
    }


def write_case(path, row: dict, command: str = "") -> dict:
    doc = case_document(row, command)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_json(path, doc)
    return doc


def load_case(path_or_doc) -> dict:
    """Read and check a case file (``schema_version`` and ``kind``); returns the document."""
    doc = path_or_doc if isinstance(path_or_doc, dict) else json.loads(Path(path_or_doc).read_text(encoding="utf-8"))
    if doc.get("kind") != CASE_KIND:
        raise ValueError(f"not a bounds case file (kind={doc.get('kind')!r}, expected {CASE_KIND!r})")
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"bounds case schema_version {doc.get('schema_version')!r} unsupported (know {SCHEMA_VERSION})")
    for key in ("target", "instance", "args"):
        if key not in doc:
            raise ValueError(f"bounds case file lacks {key!r}")
    return doc


def case_task(doc: dict) -> dict:
    ins = doc["instance"]
    spec = {"family": "explicit", "X": ins["X"], "y": ins["y"], "kernel": ins.get("kernel", "linear"),
            "params": ins.get("params", {}), "name": ins.get("name", "case"), "known": ins.get("known", {})}
    return {"target": doc["target"], "spec": spec, "args": doc.get("args", {}), "opts": {}, "phase": "replay"}


def replay_case(path_or_doc) -> dict:
    """Re-evaluate a case file's instance and arguments; returns the row (compare ``ratio``)."""
    return evaluate_task(case_task(load_case(path_or_doc)))


def validate_case(row_or_doc):
    """The worst instance of an *algorithm* target as a case of the validation harness
    (:func:`theorems.validate.make_case`, with the row's arguments: NVN/ISNKPVN epsilon, SNKPVN
    delta and q, ISNKPVN gamma, the Perceptron's rule, PT11 eps and Delta), or None for a target
    that runs no algorithm (registered checks, ``lemma7*``: no implementation to validate, replay
    them with :func:`replay_case`) or when the algorithm does not apply.  Takes an evaluated row (with ``_task``) or a bounds-case document.  The case's iteration
    bound is the harness's (the proved statements), not the target's formula: e.g. for
    ``snkpvn.printed`` it is Lemma 9 with the *proved* Lemma 7."""
    if "_task" in row_or_doc:
        task = row_or_doc["_task"]
        args = json.loads(row_or_doc["args"]) if isinstance(row_or_doc.get("args"), str) else dict(task.get("args") or {})
    else:
        task = case_task(load_case(row_or_doc))
        args = dict(task["args"])
    tgt = get_target(task["target"])
    if tgt.algorithm is None:
        return None
    inst = make_instance(task["spec"])
    alg = tgt.algorithm
    over: Dict[str, Any] = {}
    if tgt.id == "perceptron.most_violated":
        over["rule"] = "most_violated"
    elif alg == "nvn":
        over["epsilon"] = float(args.get("epsilon", 0.05))  # the defaults of the _ev_* functions
    elif alg == "snkpvn":
        over.update(delta=float(args.get("delta", 0.01)), q=_q_vector(inst, args.get("q")))
    elif alg == "isnkpvn":
        over.update(gamma=float(args.get("gamma", 2.0)), epsilon=float(args.get("epsilon", 1e-3)))
    pt11 = {"eps": float(args.get("eps", 0.1)), "Delta": args.get("Delta")} if alg in ("pfm", "pdm", "pdm_succ") else {}
    return make_case(alg, inst, variant="worst=" + _slug(tgt.id), arguments=over, **pt11)


def write_validate_case(directory, row_or_doc) -> Optional[Path]:
    """Write :func:`validate_case` as a one-case corpus ``<directory>/<algorithm>.json`` (the format
    of ``margins export-cases``), so ``margins validate ALGORITHM MODULE:CALLABLE --cases
    <directory>`` and ``margins validate --answers FILE --cases <directory>`` replay it.  None
    when there is no case (check targets)."""
    case = validate_case(row_or_doc)
    if case is None:
        return None
    return write_corpus(directory, case.algorithm, [case], generator="theorems.bounds --search (worst instance)")


def _safe(tid: str) -> str:
    return tid.replace("/", "_")


def write_target(outdir: Path, tgt, rows: Sequence[dict], worst: Optional[dict], entry: dict, *,
                 command: str = "", plot: bool = True) -> Optional[str]:
    """Write one target's outputs into ``outdir``: ``<target>.csv``, ``<target>.json``, the PNG
    (``plot``), the worst instance ``cases/<target>.json`` and, for an algorithm target, the
    one-case corpus ``validate/<target>/<algorithm>.json``.  Records the case paths in ``entry``;
    returns the message saying why no PNG was written (None otherwise)."""
    tid = tgt.id
    write_csv(outdir / f"{_safe(tid)}.csv", rows)
    write_json(outdir / f"{_safe(tid)}.json", {"schema_version": SCHEMA_VERSION, "target": tid,
                                               "statement": tgt.statement, "source": tgt.source,
                                               "command": command, "rows": rows})
    msg = write_plot(outdir / f"{_safe(tid)}.png", rows, textwrap.fill(f"{tid}: {tgt.statement}", 100)) if plot else None
    if worst is not None:
        cpath = outdir / "cases" / f"{_safe(tid)}.json"
        write_case(cpath, worst, command)
        entry["case"] = str(cpath)
        if tgt.algorithm is not None:
            vpath = write_validate_case(outdir / "validate" / _safe(tid), worst)
            entry["validate_cases"] = str(vpath.parent) if vpath else None
    return msg


def write_summary(outdir: Path, doc: dict) -> None:
    """A group's ``summary.json``, ``summary.md`` and ``summary.csv``."""
    write_json(outdir / "summary.json", doc)
    (outdir / "summary.md").write_text(summary_markdown(doc["targets"]), encoding="utf-8")
    write_csv(outdir / "summary.csv", doc["targets"], SUMMARY_COLUMNS)


def _max_ratio(e: dict, key: str) -> str:
    """A summary cell: the largest ratio, or why there is none (every row round-off, or none applied)."""
    v = e.get(key)
    if v is not None:
        return text.fmt(v)
    if e.get(key.replace("max_", "roundoff_").replace("_ratio", "")):
        return "n/a (round-off)"
    return "-"


ROUNDOFF_NOTE = ("n/a (round-off): every applicable row had observed and bound both within the round-off "
                 "floor of its computation (the check's allowance), where a ratio means nothing; such rows are "
                 "never ranked.")


def summary_table(summary: Sequence[dict]) -> str:
    hdr = ["bound", "max ratio (sweep)", "max ratio (search)", "beaten", "attained on"]
    body = [[e["target"], _max_ratio(e, "max_sweep_ratio"), _max_ratio(e, "max_search_ratio"),
             "YES" if e["beaten"] else "no",
             f"{e['worst_instance'] or '-'} {e['worst_args'] or ''}".strip()] for e in summary]
    out = text.table(hdr, body)
    if any(e.get("roundoff") for e in summary):
        out += f"\n\n{ROUNDOFF_NOTE} Rows with no ratio for this reason: " + ", ".join(
            f"{e['target']} {e['roundoff']}" for e in summary if e.get("roundoff")) + "."
    return out


def _md_cell(value: str) -> str:
    """Text for a markdown table cell, whole: ``|`` (as in ||q||_G) escaped, not a cell boundary."""
    return str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def summary_markdown(summary: Sequence[dict]) -> str:
    """The summary as a markdown table; every statement whole (its ``|`` escaped)."""
    lines = ["| bound | statement | max ratio (sweep) | max ratio (search) | beaten | attained on |",
             "|---|---|---|---|---|---|"]
    for e in summary:
        args = _md_cell(e["worst_args"] or "")
        lines.append(f"| `{e['target']}` | {_md_cell(e['statement'])} | {_max_ratio(e, 'max_sweep_ratio')} | "
                     f"{_max_ratio(e, 'max_search_ratio')} | {'**YES**' if e['beaten'] else 'no'} | "
                     f"`{_md_cell(e['worst_instance'])}` {args} |")
    if any(e.get("roundoff") for e in summary):
        lines += ["", ROUNDOFF_NOTE]
    return "\n".join(lines) + "\n"
