"""Read and write single JSON documents under a root: bounded, canonical, schema-valid both ways."""

from __future__ import annotations

from oms.canonical import JsonObject, dumps, loads_object
from oms.errors import FileTooLargeError, InvalidInputError
from oms.fsio import FileId, Root
from oms.schemas import validate


def parse_document(data: bytes, schema: str, where: str) -> JsonObject:
    """Canonical strict JSON object that satisfies `schema`, or an error naming `where`."""
    try:
        doc = loads_object(data, canonical=True)
    except InvalidInputError as exc:
        raise type(exc)(f"{where}: {exc.message}") from exc
    validate(schema, doc, where=where)
    return doc


def read_document(root: Root, rel: str, schema: str, cap: int) -> JsonObject:
    """Read `rel` (bounded by `cap`) and parse it as `schema`."""
    return parse_document(root.read_bytes(rel, cap), schema, rel)


def read_document_optional(root: Root, rel: str, schema: str, cap: int) -> JsonObject | None:
    """Like `read_document`, but None when the file is absent."""
    data = root.read_optional(rel, cap)
    return None if data is None else parse_document(data, schema, rel)


def encode_document(doc: JsonObject, schema: str, where: str, cap: int) -> bytes:
    """Validate `doc` against `schema` and return its canonical bytes (bounded by `cap`)."""
    validate(schema, doc, where=where)
    data = dumps(doc)
    if len(data) > cap:
        raise FileTooLargeError(f"{where}: {len(data)} bytes (expected at most {cap})")
    return data


def write_document(root: Root, rel: str, doc: JsonObject, schema: str, cap: int) -> FileId:
    """Validate, encode and publish `doc` at `rel` (no-replace)."""
    return root.publish(rel, encode_document(doc, schema, rel, cap))
