"""The bridge's tool schemas are whole (issue 27): an MCP client (the inspector, a CLI) resolves no
reference into another oms schema, so none may name one — the frozen CLI suite's inspector run
failed on `urn:oms:schema:defs#/$defs/changes_requested`. The copy of `changes_requested` there is
defs' own, references resolved."""

from __future__ import annotations

import json
from typing import Any

from oms.schemas import load_schema


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if set(node) == {"$ref"} and isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inline(defs[ref.removeprefix("#/$defs/")], defs)
        return {k: _inline(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def test_no_tool_schema_names_another_schema() -> None:
    assert "urn:oms:schema:" not in json.dumps(load_schema("bridge-tools")["$defs"])


def test_the_follow_ups_fields_are_defs_own() -> None:
    defs = load_schema("defs")["$defs"]
    text = json.dumps(load_schema("bridge-tools"))
    copy = next(iter(_found(json.loads(text))))
    copy = {k: v for k, v in copy.items() if k != "description"}
    own = {k: v for k, v in _inline(defs["changes_requested"], defs).items() if k != "description"}
    assert copy == own


def _found(node: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "changes_requested" and isinstance(value, dict):
                out.append(value)
            else:
                out += _found(value)
    elif isinstance(node, list):
        for value in node:
            out += _found(value)
    return out
