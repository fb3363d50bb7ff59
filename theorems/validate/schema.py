"""The versioned, language-neutral case format of ``margins export-cases`` / ``validate --answers``.

Three JSON documents, all described by ``theorems/validate/case_schema.json`` (JSON Schema, draft 2020-12):

* a **corpus file** ``<algorithm>.json``  -- ``{"schema_version": 1, "kind": "corpus", "algorithm",
  "cases": [case, ...]}``, where each *case* holds a stable ``case_id``, the edge-case ``flags``,
  the ``instance`` (X, y, kernel, and the ready-made ``G`` / PT11 ``patterns``), the call
  ``arguments`` (epsilon, q, delta, gamma, beta, rho, Delta, eta, max_iter), the ``reference``
  answer and the ``bounds`` (certified margin interval, R, the paper's iteration bound, the margin
  guarantee);
* an **answers file**  -- ``{"schema_version": 1, "kind": "answers", "answers": [{"case_id",
  "status", "iterations", "alpha", "w", "p", "trace"?}, ...]}`` written by the implementation
  under test;
* a **trace file**  -- ``{"schema_version": 1, "kind": "trace", "traces": [{"case_id",
  "iterates": [{"k" (or "t"), "alpha", "p", "mu", "w", ...}, ...]}]}``.

``schema_version`` changes only when a field changes meaning; readers must reject versions they do
not know.  A tiny JSON-Schema checker (:func:`schema_errors`, the subset the schema uses) keeps
the project free of a ``jsonschema`` dependency.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any, List, Optional

from ..text import json_text, to_jsonable  # (the one JSON writer; to_jsonable kept importable from here)

__all__ = ["SCHEMA_VERSION", "SHAPES", "schema_text", "load_schema", "schema_errors", "check_document", "to_jsonable", "read_json", "write_json"]

SCHEMA_VERSION = 1


def schema_text() -> str:
    """The text of ``theorems/validate/case_schema.json`` (copied beside every exported corpus)."""
    return (resources.files(__package__) / "case_schema.json").read_text(encoding="utf-8")


def load_schema() -> dict:
    """The JSON Schema of the three documents (``theorems/validate/case_schema.json``)."""
    return json.loads(schema_text())


_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _resolve(root: dict, ref: str) -> dict:
    if not ref.startswith("#/"):
        raise ValueError(f"only local $ref are supported, got {ref!r}")
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def schema_errors(doc: Any, schema: Optional[dict] = None, *, _root: Optional[dict] = None, _path: str = "$") -> List[str]:
    """Validate ``doc`` against ``schema`` (default: the case schema); return the error messages.

    Supports the subset of JSON Schema the case schema uses: ``$ref`` (local), ``type`` (string or
    list), ``enum``, ``const``, ``required``, ``properties``, ``additionalProperties`` (bool or
    schema), ``items``, ``minItems``, ``minimum``, ``pattern``, ``oneOf``, ``anyOf``.
    """
    if schema is None:
        schema = load_schema()
    root = _root if _root is not None else schema
    errs: List[str] = []
    if "$ref" in schema:
        errs += schema_errors(doc, _resolve(root, schema["$ref"]), _root=root, _path=_path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPES[t](doc) for t in types):
            return errs + [f"{_path}: expected {'/'.join(types)}, got {type(doc).__name__}"]
    if "const" in schema and doc != schema["const"]:
        errs.append(f"{_path}: must be {schema['const']!r}, got {doc!r}")
    if "enum" in schema and doc not in schema["enum"]:
        errs.append(f"{_path}: {doc!r} is not one of {schema['enum']}")
    if "minimum" in schema and _TYPES["number"](doc) and doc < schema["minimum"]:
        errs.append(f"{_path}: {doc} < minimum {schema['minimum']}")
    if "pattern" in schema and isinstance(doc, str) and not re.search(schema["pattern"], doc):
        errs.append(f"{_path}: {doc!r} does not match {schema['pattern']!r}")
    if isinstance(doc, dict):
        for key in schema.get("required", []):
            if key not in doc:
                errs.append(f"{_path}: missing required key {key!r}")
        props = schema.get("properties", {})
        for key, val in doc.items():
            if key in props:
                errs += schema_errors(val, props[key], _root=root, _path=f"{_path}.{key}")
            else:
                extra = schema.get("additionalProperties", True)
                if extra is False:
                    errs.append(f"{_path}: unexpected key {key!r}")
                elif isinstance(extra, dict):
                    errs += schema_errors(val, extra, _root=root, _path=f"{_path}.{key}")
    if isinstance(doc, list):
        if "minItems" in schema and len(doc) < schema["minItems"]:
            errs.append(f"{_path}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, v in enumerate(doc):
                errs += schema_errors(v, schema["items"], _root=root, _path=f"{_path}[{i}]")
    for key in ("oneOf", "anyOf"):
        if key in schema:
            matches = [not schema_errors(doc, s, _root=root, _path=_path) for s in schema[key]]
            n = sum(matches)
            if (key == "oneOf" and n != 1) or (key == "anyOf" and n == 0):
                errs.append(f"{_path}: matches {n} of the {key} alternatives")
    return errs


#: The shape of each document, for error messages (the full format: case_schema.json).
SHAPES = {
    "corpus": '{"schema_version": 1, "kind": "corpus", "algorithm": ..., "cases": [...]} (as `margins export-cases DIR` writes)',
    "answers": ('{"schema_version": 1, "kind": "answers", "answers": [{"case_id": "snkp/deg:n1", "status": "separator", '
                '"iterations": 0, "alpha": [1.0]}, ...]}, one answer per case of the corpus'),
    "trace": '{"schema_version": 1, "kind": "trace", "traces": [{"case_id": ..., "iterates": [{"k": 0, "alpha": [...], ...}, ...]}, ...]}',
}


def check_document(doc: Any, kind: Optional[str] = None, source: Optional[str] = None) -> None:
    """Raise ``ValueError`` unless ``doc`` is a valid corpus / answers / trace document
    (of ``kind`` when given) at a ``schema_version`` this reader knows; the message starts with
    ``source`` (the file) when given and, for a document of the wrong shape, shows the expected one."""
    at = f"{source}: " if source else ""
    expected = f"expected {SHAPES[kind] if kind else 'a corpus, answers or trace document'} (theorems/validate/case_schema.json)"
    if not isinstance(doc, dict):
        raise ValueError(f"{at}a case document must be a JSON object; {expected}")
    if not doc:
        nothing = "no case answered" if kind == "answers" else "nothing to check"
        raise ValueError(f"{at}the document is an empty JSON object {{}}: {nothing}; {expected}")
    if "schema_version" not in doc:
        raise ValueError(f"{at}no \"schema_version\" key (keys: {', '.join(map(str, list(doc)[:5]))}); {expected}")
    version = doc.get("schema_version")
    if isinstance(version, bool) or version != SCHEMA_VERSION:  # true == 1 in Python, not in the schema
        raise ValueError(f"{at}schema_version {version!r} is not supported (this reader knows version {SCHEMA_VERSION})")
    if kind is not None and doc.get("kind") != kind:
        raise ValueError(f"{at}expected a {kind!r} document, got kind={doc.get('kind')!r}")
    # Checked against its own kind's definition, an error names the field ("$.answers[0].status: ...");
    # against the whole schema, a oneOf of the three kinds, it would only say "$: matches 0 of the
    # oneOf alternatives".  Both accept the same documents: each kind's definition fixes "kind".
    own = doc.get("kind")
    if isinstance(own, str) and own in SHAPES:
        errs = schema_errors(doc, {"$ref": f"#/$defs/{own}"}, _root=load_schema())
    else:
        errs = [f"$.kind: {own!r} is not one of {', '.join(map(repr, SHAPES))}"]
    if errs:
        raise ValueError(f"{at}document does not follow theorems/validate/case_schema.json: " + "; ".join(errs[:5]))


def from_number(v: Any) -> Optional[float]:
    if v is None:
        return None
    if isinstance(v, str):
        return float(v)
    return float(v)


def read_json(path) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write_json(path, doc: Any, *, sort_keys: bool = False) -> None:
    """``doc`` as strict JSON (:func:`theorems.text.json_text`, indent 1, a final newline)."""
    Path(path).write_text(json_text(doc, indent=1, sort_keys=sort_keys) + "\n", encoding="utf-8")
