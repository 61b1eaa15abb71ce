"""Identifier grammars and stable ids.

Every id that reaches a path, a record or a command line is checked here with `re.fullmatch` (JSON
Schema `pattern` lets `"abc\\n"` through: SECURITY.md attack case 21). `stable_id(prefix, *parts)`
derives an id from a digest of its parts, so retrying an operation yields the same id.
"""

from __future__ import annotations

import os
import re

from oms.canonical.digest import digest, digest_bytes
from oms.errors import InvalidIdError
from oms.limits import LIMITS

OPAQUE_ID = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?")
ROLE_ID = re.compile(r"[a-z][a-z0-9-]{0,30}(?:\.[a-z][a-z0-9-]{0,30}){0,3}")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
PREFIX = re.compile(r"[a-z](?:[a-z0-9-]{0,22}[a-z0-9])?")
SHA256 = re.compile(r"[0-9a-f]{64}")
COMMIT = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


_LABEL_BAD = re.compile(r"[^A-Za-z0-9._-]")


def folder_label(path: str, *, tagged: bool = False) -> str:
    """A folder name for what oms keeps per repository (its default state root, its worktrees;
    ADR 0032): the last component of `path` in ASCII letters, digits, `.`, `_` and `-` (anything
    else becomes `-`, a leading `.` goes), at most `Limits.folder_label_chars`; then `-` and 8 hex
    digits of the path's digest when `tagged` or when the name had to change, so that two paths
    never share one (short: a state root's path must leave room for its tmux socket's)."""
    name = os.path.basename(path.rstrip("/"))
    label = _LABEL_BAD.sub("-", name)[: LIMITS.folder_label_chars].lstrip(".") or "repository"
    if tagged or label != name:
        tag = digest_bytes("repository-folder", path.encode("utf-8", "surrogateescape"))[:8]
        return f"{label}-{tag}"
    return label


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check(value: object, what: str, pattern: re.Pattern[str] = OPAQUE_ID) -> str:
    """Return `value` if it is a string matching `pattern` exactly; else `InvalidIdError` naming
    `what`."""
    if not isinstance(value, str):
        raise InvalidIdError(f"{what} must be text (got {type(value).__name__})")
    if len(value) > LIMITS.id_length:
        raise InvalidIdError(
            f"{what} is {len(value)} characters long (expected at most {LIMITS.id_length})"
        )
    if pattern.fullmatch(value) is None:
        lower = value.lower()
        raise InvalidIdError(
            f"{what} {_show(value)} is not a valid id (expected {pattern.pattern})",
            hint=f"ids are lower case: {lower}" if pattern.fullmatch(lower) else None,
        )
    return value


def check_uuid(value: object, what: str) -> str:
    """A lowercase RFC 4122 UUID (Claude Code session ids must be UUIDs)."""
    return check(value, what, UUID)


def new_uuid() -> str:
    """A fresh random UUID (version 4)."""
    import uuid  # only here: `uuid` pulls in `platform`, a cost every hook would pay

    return str(uuid.uuid4())


def stable_id(prefix: str, *parts: str | int) -> str:
    """`<prefix>-<32 hex>`: 128 bits of a domain-separated digest of the canonical list of parts."""
    check(prefix, "stable id prefix", PREFIX)
    for part in parts:
        if isinstance(part, bool) or not isinstance(part, str | int):
            raise InvalidIdError(
                f"stable id part must be text or an integer (got {type(part).__name__})"
            )
    return f"{prefix}-{digest('stable-id', [prefix, *parts])[:32]}"


def operation_nonce(event_id: str, consumer_id: str) -> str:
    """The nonce a consumer derives from (event, consumer): the same on every retry, unique per
    pair."""
    return digest(
        "operation-nonce", [check(event_id, "event id"), check(consumer_id, "consumer id")]
    )
