"""Strict JSON in, canonical bytes out (ADR 0002; SECURITY.md attack case 20).

The record profile: objects with ASCII keys and no duplicates; integers within +-(2**53 - 1); no
floats, NaN or Infinity; strings without lone surrogates; bounded nesting. Within that profile the
canonical form (sorted keys, no whitespace, UTF-8, `json.dumps` escaping) is byte-identical to RFC
8785 (property-tested against the `rfc8785` package).
"""

from __future__ import annotations

import json
from typing import Any, NoReturn, TypeAlias

from oms.errors import CanonicalJsonError
from oms.limits import LIMITS

Json: TypeAlias = bool | int | str | list["Json"] | dict[str, "Json"] | None
JsonObject: TypeAlias = dict[str, Json]

MAX_SAFE_INT = 2**53 - 1


def _reject_float(text: str) -> NoReturn:
    raise CanonicalJsonError(f"floating-point number {text[:40]} is not allowed (integers only)")


def _reject_constant(text: str) -> NoReturn:
    raise CanonicalJsonError(f"{text} is not allowed")


def _parse_int(text: str) -> int:
    digits = text.lstrip("-")
    if len(digits) > 16:
        raise CanonicalJsonError(f"integer {text[:40]} is out of range (limit +-(2**53-1))")
    value = int(text)
    if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
        raise CanonicalJsonError(f"integer {text} is out of range (limit +-(2**53-1))")
    return value


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if not key.isascii():
            raise CanonicalJsonError(f"object key {key[:40]!a} is not ASCII")
        if key in out:
            raise CanonicalJsonError(f"duplicate object key {key[:40]!a}")
        out[key] = value
    return out


class _TreeError(Exception):
    """A profile violation deep in a value; the path is filled in while unwinding."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.path: list[str | int] = []

    def render(self) -> str:
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in self.path)
        return f"{where}: {self.message}" if self.path else self.message


def _check_tree(value: object, depth: int, max_depth: int) -> None:
    if depth > max_depth:
        raise _TreeError(f"nesting deeper than {max_depth} levels")
    if isinstance(value, str):
        _check_text(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str) or not key.isascii():
                raise _TreeError(f"object key {str(key)[:40]!a} is not ASCII text")
            try:
                _check_tree(item, depth + 1, max_depth)
            except _TreeError as exc:
                exc.path.insert(0, key)
                raise
    elif (
        isinstance(value, list) or type(value) is tuple
    ):  # never a NamedTuple: a record is not JSON
        for index, item in enumerate(value):
            try:
                _check_tree(item, depth + 1, max_depth)
            except _TreeError as exc:
                exc.path.insert(0, index)
                raise
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int):
        if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
            raise _TreeError(f"integer {value} is out of range (limit +-(2**53-1))")
    elif isinstance(value, float):
        raise _TreeError("floating-point numbers are not allowed (integers only)")
    else:
        raise _TreeError(f"{type(value).__name__} is not a JSON value")


def check_profile(value: object, *, max_depth: int = LIMITS.json_depth) -> None:
    """Raise `CanonicalJsonError` ("$.path: why") unless `value` is in the record profile."""
    try:
        _check_tree(value, 0, max_depth)
    except _TreeError as exc:
        raise CanonicalJsonError(exc.render()) from None


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _TreeError("string contains a lone surrogate") from None


def loads(data: bytes, *, max_depth: int = LIMITS.json_depth) -> Json:
    """Parse `data` under the record profile, or raise `CanonicalJsonError` saying why."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise CanonicalJsonError(f"expected bytes (got {type(data).__name__})")
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CanonicalJsonError(f"not UTF-8 at byte {exc.start}") from exc
    if text.startswith("\ufeff"):
        raise CanonicalJsonError("byte-order mark is not allowed")
    try:
        value = json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_float=_reject_float,
            parse_constant=_reject_constant,
            parse_int=_parse_int,
        )
    except CanonicalJsonError:
        raise
    except RecursionError as exc:
        raise CanonicalJsonError(f"nesting deeper than {max_depth} levels") from exc
    except json.JSONDecodeError as exc:
        raise CanonicalJsonError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg.lower()}"
        ) from exc
    except ValueError as exc:
        raise CanonicalJsonError(f"invalid JSON: {exc}") from exc
    check_profile(value, max_depth=max_depth)
    return value  # type: ignore[no-any-return]


def dumps(value: object, *, max_depth: int = LIMITS.json_depth) -> bytes:
    """The canonical bytes of `value` (which must be in the record profile)."""
    check_profile(value, max_depth=max_depth)
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def loads_canonical(data: bytes, *, max_depth: int = LIMITS.json_depth) -> Json:
    """Parse `data` and require that it already is in canonical form (stored files must be)."""
    value = loads(data, max_depth=max_depth)
    if dumps(value, max_depth=max_depth) != bytes(data):
        raise CanonicalJsonError("bytes are valid JSON but not in canonical form")
    return value


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise CanonicalJsonError(f"duplicate object key {key[:40]!a}")
        out[key] = value
    return out


def loads_message(data: bytes) -> Any:
    """Parse a message from outside oms's records (a hook's stdin, an MCP line): any JSON value,
    floats and non-ASCII keys too, but UTF-8, no duplicate keys and no NaN/Infinity. Raises
    `CanonicalJsonError` saying why."""
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CanonicalJsonError(f"not UTF-8 at byte {exc.start}") from exc
    try:
        return json.loads(text, object_pairs_hook=_unique_pairs, parse_constant=_reject_constant)
    except CanonicalJsonError:
        raise
    except RecursionError as exc:
        raise CanonicalJsonError("nesting too deep") from exc
    except json.JSONDecodeError as exc:
        raise CanonicalJsonError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg.lower()}"
        ) from exc
    except ValueError as exc:
        raise CanonicalJsonError(f"invalid JSON: {str(exc)[:80]}") from exc


def loads_foreign(data: bytes | str) -> Any:
    """Parse a document in no profile of oms's: a model API's body or stream event, an agent
    CLI's or the advisor's output, a ledger line or anchor read before its own checks. Python's
    `json.loads` as is (floats, duplicate keys: the last wins); raises `ValueError`. The caller
    bounds `data` and checks the shape it needs."""
    return json.loads(data)


def loads_object(
    data: bytes, *, max_depth: int = LIMITS.json_depth, canonical: bool = False
) -> JsonObject:
    """Parse a JSON object (not an array or scalar)."""
    value = (
        loads_canonical(data, max_depth=max_depth)
        if canonical
        else loads(data, max_depth=max_depth)
    )
    if not isinstance(value, dict):
        raise CanonicalJsonError(f"expected a JSON object (got {type(value).__name__})")
    return value
