"""Typed access to fields of parsed JSON objects.

Documents are schema-validated before they are read, so these checks should never fire; when one
does, the document and the schema disagree, which is an integrity problem, not a crash.
"""

from __future__ import annotations

from oms.canonical.strict_json import Json, JsonObject
from oms.errors import IntegrityError


def _field(doc: JsonObject, key: str) -> Json:
    if key not in doc:
        raise IntegrityError(f"field {key!r} is missing")
    return doc[key]


def text(doc: JsonObject, key: str) -> str:
    """A string field."""
    value = _field(doc, key)
    if not isinstance(value, str):
        raise IntegrityError(f"field {key!r} is not text")
    return value


def text_or_none(doc: JsonObject, key: str) -> str | None:
    """A nullable string field."""
    value = _field(doc, key)
    return None if value is None else text(doc, key)


def integer(doc: JsonObject, key: str) -> int:
    """An integer field (booleans are not integers here)."""
    value = _field(doc, key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise IntegrityError(f"field {key!r} is not an integer")
    return value


def integer_or_none(doc: JsonObject, key: str) -> int | None:
    """A nullable integer field."""
    value = _field(doc, key)
    return None if value is None else integer(doc, key)


def obj(doc: JsonObject, key: str) -> JsonObject:
    """An object field."""
    value = _field(doc, key)
    if not isinstance(value, dict):
        raise IntegrityError(f"field {key!r} is not an object")
    return value


def array(doc: JsonObject, key: str) -> list[Json]:
    """An array field."""
    value = _field(doc, key)
    if not isinstance(value, list):
        raise IntegrityError(f"field {key!r} is not an array")
    return value


def obj_at(items: list[Json], index: int) -> JsonObject:
    """An object element of an array."""
    value = items[index] if -len(items) <= index < len(items) else None
    if not isinstance(value, dict):
        raise IntegrityError(f"element {index} is not an object")
    return value
