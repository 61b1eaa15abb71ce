"""Predicates of the `state-meta` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

_P0 = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'
_P1 = '^[A-Za-z0-9+/]{43}=$'
_P2 = '^[0-9a-f]{64}$'
_C0: object = 'oms-state-v1'


def _v1(x: object) -> bool:
    # state-meta#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v3(x: object) -> bool:
    # defs#/$defs/timestamp
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
    return True


def _v2(x: object) -> bool:
    # state-meta#/properties/created_at
    if not _v3(x):
        return False
    return True


def _v5(x: object) -> bool:
    # defs#/$defs/public_key
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
    return True


def _v4(x: object) -> bool:
    # state-meta#/properties/public_key
    if not _v5(x):
        return False
    return True


def _v7(x: object) -> bool:
    # defs#/$defs/sha256
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
    return True


def _v6(x: object) -> bool:
    # state-meta#/properties/key_id
    if not _v7(x):
        return False
    return True


def _v0(x: object) -> bool:
    # state-meta#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('created_at', 'format', 'key_id', 'public_key'):
            if k not in x:
                return False
        if 'format' in x and not _v1(x['format']):
            return False
        if 'created_at' in x and not _v2(x['created_at']):
            return False
        if 'public_key' in x and not _v4(x['public_key']):
            return False
        if 'key_id' in x and not _v6(x['key_id']):
            return False
        for k in x:
            if k not in ('format', 'created_at', 'public_key', 'key_id'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'state-meta': _v0,
}
