"""Tests of theorems/validate/test_schema.py."""

from __future__ import annotations

import json
import locale
import math
from pathlib import Path

import pytest

from theorems.validate import schema
from theorems.validate.schema import (SHAPES, check_document, from_number, load_schema, read_json, schema_errors, schema_text,
                                      write_json)


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


def test_schema_errors_supports_the_subset_the_case_schema_uses():
    """type (a name or a list), const, enum, minimum, pattern, required, properties,
    additionalProperties (false or a schema), items, minItems, oneOf (exactly one), anyOf (at
    least one), local $ref; each error names the path."""
    assert schema_errors(1, {"type": "integer"}) == [] and schema_errors(True, {"type": "integer"}) == ["$: expected integer, got bool"]
    assert schema_errors(1.5, {"type": "number"}) == [] and schema_errors(True, {"type": "number"}) == ["$: expected number, got bool"]
    assert schema_errors(None, {"type": ["string", "null"]}) == []
    assert schema_errors(2, {"type": ["string", "null"]}) == ["$: expected string/null, got int"]
    for t, ok, bad in (("object", {}, []), ("array", [], {}), ("string", "", 0), ("boolean", False, 0), ("null", None, 0)):
        assert schema_errors(ok, {"type": t}) == [] and schema_errors(bad, {"type": t}) != []
    assert schema_errors(2, {"const": 1}) == ["$: must be 1, got 2"] and schema_errors(1, {"const": 1}) == []
    assert schema_errors("c", {"enum": ["a", "b"]}) == ["$: 'c' is not one of ['a', 'b']"] and schema_errors("a", {"enum": ["a"]}) == []
    assert schema_errors(-1, {"minimum": 0}) == ["$: -1 < minimum 0"] and schema_errors(0, {"minimum": 0}) == []
    assert schema_errors("x", {"minimum": 0}) == []  # minimum constrains numbers only
    assert schema_errors("ab", {"pattern": "^a"}) == [] and schema_errors("ba", {"pattern": "^a"}) == ["$: 'ba' does not match '^a'"]
    obj = {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}, "additionalProperties": False}
    assert schema_errors({"a": 1}, obj) == []
    assert schema_errors({"b": 1}, obj) == ["$: missing required key 'a'", "$: unexpected key 'b'"]
    assert schema_errors({"a": "1"}, obj) == ["$.a: expected integer, got str"]
    assert schema_errors({"b": "1"}, {"additionalProperties": {"type": "integer"}}) == ["$.b: expected integer, got str"]
    assert schema_errors({"b": "1"}, {}) == []  # additional keys are allowed by default
    assert schema_errors({"b": "1"}, {"required": ["a"], "additionalProperties": {"type": "integer"}}) == [
        "$: missing required key 'a'", "$.b: expected integer, got str"]
    defs = {"$defs": {"n": {"type": "integer"}}, "additionalProperties": {"$ref": "#/$defs/n"}}
    assert schema_errors({"b": "1"}, defs) == ["$.b: expected integer, got str"] and schema_errors({"b": 1}, defs) == []
    arr = {"type": "array", "items": {"type": "integer"}, "minItems": 2}
    assert schema_errors([1, 2], arr) == [] and schema_errors([1], arr) == ["$: fewer than 2 items"]
    assert schema_errors([1, "x", 3], arr) == ["$[1]: expected integer, got str"]
    one = {"oneOf": [{"type": "integer"}, {"minimum": 0}]}
    assert schema_errors(-1, one) == [] and schema_errors(1, one) == ["$: matches 2 of the oneOf alternatives"]
    assert schema_errors("x", {"oneOf": [{"type": "integer"}]}) == ["$: matches 0 of the oneOf alternatives"]
    anyof = {"anyOf": [{"type": "integer"}, {"minimum": 0}]}
    assert schema_errors(1, anyof) == [] and schema_errors("x", {"anyOf": [{"type": "integer"}]}) == ["$: matches 0 of the anyOf alternatives"]
    root = {"$defs": {"n": {"type": "integer"}}, "properties": {"k": {"$ref": "#/$defs/n"}}}
    assert schema_errors({"k": "1"}, root) == ["$.k: expected integer, got str"] and schema_errors({"k": 1}, root) == []
    with pytest.raises(ValueError, match="^only local \\$ref are supported, got 'other.json#/n'$"):
        schema_errors(1, {"$ref": "other.json#/n"})


def test_the_case_schema_is_the_file_shipped_with_the_package():
    """schema_text is theorems/validate/case_schema.json; load_schema parses it; schema_errors
    checks against it by default."""
    text = (Path(schema.__file__).parent / "case_schema.json").read_text(encoding="utf-8")
    assert schema_text() == text and load_schema() == json.loads(text)
    assert schema_errors({"schema_version": 1, "kind": "answers", "answers": []}) == []
    assert schema_errors({"schema_version": 1, "kind": "answers"}) != []


def test_json_files_are_strict_json_with_a_final_newline(tmp_path):
    """write_json: indent 1, keys in order (or sorted), a final newline; read_json reads it back;
    from_number reads a number or its string ('inf', '-inf', 'nan')."""
    p = tmp_path / "d.json"
    write_json(p, {"b": 1, "a": [1.5]})
    assert p.read_text(encoding="utf-8") == '{\n "b": 1,\n "a": [\n  1.5\n ]\n}\n' and read_json(p) == {"b": 1, "a": [1.5]}
    write_json(p, {"b": 1, "a": 2}, sort_keys=True)
    assert p.read_text(encoding="utf-8") == '{\n "a": 2,\n "b": 1\n}\n'
    write_json(p, {"é": "é"})
    assert read_json(p) == {"é": "é"}
    assert from_number(None) is None and from_number("-inf") == -math.inf and math.isnan(from_number("nan"))
    assert from_number("1e-3") == 1e-3 and from_number(2) == 2.0 and isinstance(from_number(2), float)


def test_read_json_reads_utf8_under_an_ascii_locale(tmp_path):
    """Case documents are UTF-8 JSON: read_json reads one written by another program (non-ASCII
    text included) under an ASCII locale too."""
    p = tmp_path / "answers.json"
    p.write_bytes('{"implementation": "solveur \u00e9t\u00e9"}'.encode("utf-8"))
    saved = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")  # the locale's encoding: ASCII
    try:
        doc = read_json(p)
    finally:
        locale.setlocale(locale.LC_CTYPE, saved)
    assert doc == {"implementation": "solveur \u00e9t\u00e9"}
