"""theorems/bounds/outputs.py: the summary tables."""

from theorems.bounds.outputs import summary_markdown, summary_table


def _entry(**kw):
    e = {"target": "lemma7", "statement": "dist(q, W) <= min{sqrt(3/2) ||q||_G/|rho_K|, sqrt 2 ||q||_G/(||q||_G + |rho_K|), sqrt 2} "
                                         "(Lemma 7 CORRECTED; q maximized as for lemma7.printed)",
         "max_sweep_ratio": 0.8779, "max_search_ratio": 0.8779, "beaten": False, "worst_instance": "chord(n=8)",
         "worst_args": '{"q":["0","1"]}', "roundoff": 0, "roundoff_sweep": 0, "roundoff_search": 0}
    e.update(kw)
    return e


def _cells(line):
    """The cells of a markdown table row: split at the pipes that are not escaped."""
    out, cur, i = [], "", 0
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line):
            cur += line[i:i + 2]
            i += 2
            continue
        if line[i] == "|":
            out.append(cur)
            cur = ""
        else:
            cur += line[i]
        i += 1
    return [c.strip() for c in out[1:]]


def test_summary_markdown_keeps_every_statement_whole():
    """No statement cut at a fixed width, and its ||.|| do not end the cell: six cells a row, the
    statement cell is the statement (pipes escaped)."""
    e = _entry()
    md = summary_markdown([e])
    row = md.splitlines()[2]
    cells = _cells(row)
    assert len(cells) == 6, cells
    assert cells[1].replace("\\|", "|") == e["statement"]


def test_summary_says_round_off_instead_of_a_ratio():
    e = _entry(max_sweep_ratio=None, max_search_ratio=None, roundoff=8, roundoff_sweep=8, worst_instance=None, worst_args=None)
    text = summary_table([e])
    line = next(l for l in text.splitlines() if l.startswith("lemma7 "))
    assert "n/a (round-off)" in line and line.count("n/a (round-off)") == 1  # the search found none: '-'
    assert "never ranked" in text
    md = summary_markdown([e])
    assert "n/a (round-off)" in md and "never ranked" in md


def test_a_case_of_the_check_target_of_lemma7_is_as_exact_as_its_twins(tmp_path):
    """The case file of RP14.lemma7.printed's worst row, like lemma7.printed's, holds a rationalized
    instance (known["exact_X"]) and replays exactly."""
    from theorems import bounds

    spec = {"family": "circle", "n": 8, "seed": 0}
    docs = {}
    for tid in ("lemma7.printed", "RP14.lemma7.printed"):
        task = {"target": tid, "spec": spec, "args": {}, "opts": {}, "phase": "sweep"}
        row = dict(bounds.evaluate_task(task), _task=task)
        docs[tid] = bounds.write_case(tmp_path / f"{tid}.json", row)
    a, b = docs["lemma7.printed"], docs["RP14.lemma7.printed"]
    assert "exact_X" in a["instance"]["known"] and a["instance"] == b["instance"] and a["ratio"] == b["ratio"]
    assert bounds.replay_case(tmp_path / "RP14.lemma7.printed.json")["status"].startswith("exact:")
