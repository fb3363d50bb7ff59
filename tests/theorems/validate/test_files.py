"""Tests of theorems/validate/test_files.py."""

import json

import reference
from theorems import cli
from theorems.validate import validate_answers, write_answers


def test_partial_answers_fail_unless_a_subset_is_asked_for(tmp_path, capsys):
    path = write_answers(tmp_path / "answers.json", reference.nvn, "nvn")
    doc = json.loads(path.read_text())
    n = len(doc["answers"])
    doc["answers"] = doc["answers"][:3]
    path.write_text(json.dumps(doc))
    (r,) = validate_answers(path)
    assert not r.conforms and r.failed_checks == ["answer.contract"]
    assert len(r.failing["answer.contract"]) == n - 3 and r.cases == n
    assert "not answered" in r.format() and f"{n - 3} of {n}" in r.summary()
    (r,) = validate_answers(path, subset=True)
    assert r.conforms and r.cases == 3 and any("--subset" in x for x in r.notes)
    assert cli.main(["validate", "--answers", str(path)]) == 1
    assert cli.main(["validate", "--answers", str(path), "--subset"]) == 0
