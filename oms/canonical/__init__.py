"""Layer 2: canonical JSON, digests, identifier grammars, stable ids and timestamps.

See docs/architecture.md "Layers".
"""

from __future__ import annotations

from oms.canonical import access
from oms.canonical.digest import digest, digest_bytes, equal, sha256_hex
from oms.canonical.ids import check, check_uuid, new_uuid, operation_nonce, stable_id
from oms.canonical.strict_json import Json, JsonObject, dumps, loads, loads_canonical, loads_object
from oms.canonical.timestamps import add_ms, format_ts, next_after, now, parse_ts

__all__ = [
    "Json",
    "JsonObject",
    "access",
    "add_ms",
    "check",
    "check_uuid",
    "digest",
    "digest_bytes",
    "dumps",
    "equal",
    "format_ts",
    "loads",
    "loads_canonical",
    "loads_object",
    "new_uuid",
    "next_after",
    "now",
    "operation_nonce",
    "parse_ts",
    "sha256_hex",
    "stable_id",
]
