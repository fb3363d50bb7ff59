"""Tests of theorems/validate/test_schema.py."""

from __future__ import annotations

import pytest

from theorems.validate.schema import SHAPES, check_document


def _msg(doc, kind=None, source="answers.json"):
    with pytest.raises(ValueError) as e:
        check_document(doc, kind, source=source)
    return str(e.value)


EXPECT = {k: f"expected {SHAPES[k]} (theorems/validate/case_schema.json)" for k in SHAPES}


ANY = "expected a corpus, answers or trace document (theorems/validate/case_schema.json)"


BAD = "answers.json: document does not follow theorems/validate/case_schema.json: "


def test_check_document_messages():
    assert _msg([], "answers") == f"answers.json: a case document must be a JSON object; {EXPECT['answers']}"
    assert _msg("x", None, None) == f"a case document must be a JSON object; {ANY}"
    assert _msg({}, "answers") == f"answers.json: the document is an empty JSON object {{}}: no case answered; {EXPECT['answers']}"
    assert _msg({}, "trace") == f"answers.json: the document is an empty JSON object {{}}: nothing to check; {EXPECT['trace']}"
    assert _msg({}) == f"answers.json: the document is an empty JSON object {{}}: nothing to check; {ANY}"
    keys = {k: [] for k in ("a", "b", "c", "d", "e", "f")}
    assert _msg(keys, "corpus") == f"answers.json: no \"schema_version\" key (keys: a, b, c, d, e); {EXPECT['corpus']}"
    for v in (2, True, None, "1"):  # true == 1 in Python, not in the schema
        assert _msg({"schema_version": v, "kind": "answers", "answers": []}) == (
            f"answers.json: schema_version {v!r} is not supported (this reader knows version 1)")
    assert _msg({"schema_version": 1, "kind": "corpus"}, "answers") == "answers.json: expected a 'answers' document, got kind='corpus'"
    assert _msg({"schema_version": 1}, "answers") == "answers.json: expected a 'answers' document, got kind=None"


def test_check_document_schema_errors_name_the_field():
    """They said "$: matches 0 of the oneOf alternatives" (the three kinds), whatever was wrong."""
    doc = {"schema_version": 1, "kind": "answers", "answers": [{"case_id": "nkp/x", "status": "done", "iterations": 0}]}
    assert _msg(doc) == BAD + "$.answers[0].status: 'done' is not one of ['separator', 'certificate', 'max_iter']"
    assert _msg(doc, "answers") == BAD + "$.answers[0].status: 'done' is not one of ['separator', 'certificate', 'max_iter']"
    assert _msg({"schema_version": 1, "kind": "answers"}) == BAD + "$: missing required key 'answers'"
    doc = {"schema_version": 1, "kind": "trace", "traces": [{"case_id": "nkp/x", "iterates": [{"k": "1"}]}]}
    assert _msg(doc, source=None) == BAD[len("answers.json: "):] + "$.traces[0].iterates[0].k: expected integer, got str"
    assert _msg({"schema_version": 1, "kind": "answer", "answers": []}) == BAD + "$.kind: 'answer' is not one of 'corpus', 'answers', 'trace'"
    assert _msg({"schema_version": 1, "kind": ["answers"]}) == BAD + "$.kind: ['answers'] is not one of 'corpus', 'answers', 'trace'"
    # the first five errors
    doc = {"schema_version": 1, "kind": "answers", "answers": [{"case_id": f"nkp/{i}", "status": "done", "iterations": 0} for i in range(6)]}
    errs = [f"$.answers[{i}].status: 'done' is not one of ['separator', 'certificate', 'max_iter']" for i in range(5)]
    assert _msg(doc) == BAD + "; ".join(errs)
    # and a valid document passes
    check_document({"schema_version": 1, "kind": "answers", "answers": [{"case_id": "nkp/x", "status": "max_iter", "iterations": 0}]}, "answers")
