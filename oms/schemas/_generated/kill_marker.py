"""Predicates of the `kill-marker` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

_P0 = '^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$'
_P1 = '^[a-z][a-z0-9-]{0,62}(?:[.:][a-z0-9][a-z0-9-]{0,62}){0,3}$'
_P2 = '^[^\\u0000-\\u001f\\u007f]*$'
_P3 = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'
_C0: object = 'oms-kill-v1'


def _v1(x: object) -> bool:
    # kill-marker#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v3(x: object) -> bool:
    # defs#/$defs/opaque_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v2(x: object) -> bool:
    # kill-marker#/properties/dispatch_id
    if not _v3(x):
        return False
    return True


def _v5(x: object) -> bool:
    # defs#/$defs/actor
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v4(x: object) -> bool:
    # kill-marker#/properties/by
    if not _v5(x):
        return False
    return True


def _v6(x: object) -> bool:
    # kill-marker#/properties/pid
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 4194304:
            return False
    return True


def _v8(x: object) -> bool:
    # defs#/$defs/reason
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 512:
            return False
    return True


def _v7(x: object) -> bool:
    # kill-marker#/properties/reason
    if not _v8(x):
        return False
    return True


def _v10(x: object) -> bool:
    # defs#/$defs/timestamp
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
    return True


def _v9(x: object) -> bool:
    # kill-marker#/properties/requested_at
    if not _v10(x):
        return False
    return True


def _v0(x: object) -> bool:
    # kill-marker#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('by', 'dispatch_id', 'format', 'pid', 'reason', 'requested_at'):
            if k not in x:
                return False
        if 'format' in x and not _v1(x['format']):
            return False
        if 'dispatch_id' in x and not _v2(x['dispatch_id']):
            return False
        if 'by' in x and not _v4(x['by']):
            return False
        if 'pid' in x and not _v6(x['pid']):
            return False
        if 'reason' in x and not _v7(x['reason']):
            return False
        if 'requested_at' in x and not _v9(x['requested_at']):
            return False
        for k in x:
            if k not in ('format', 'dispatch_id', 'by', 'pid', 'reason', 'requested_at'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'kill-marker': _v0,
}
