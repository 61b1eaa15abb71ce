"""Predicates of the `record-envelope` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

_P0 = '^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$'
_P1 = '^[a-z][a-z-]{0,31}$'
_P2 = '^[a-z][a-z0-9-]{0,62}(?:[.:][a-z0-9][a-z0-9-]{0,62}){0,3}$'
_P3 = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'
_P4 = '^[0-9a-f]{64}$'
_C0: object = 'oms-record-v1'
_C1: tuple[object, ...] = ('authorization', 'dispatch', 'session', 'ticket', 'worker')


def _v1(x: object) -> bool:
    # record-envelope#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v2(x: object) -> bool:
    # record-envelope#/properties/kind
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v4(x: object) -> bool:
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


def _v3(x: object) -> bool:
    # record-envelope#/properties/record_id
    if not _v4(x):
        return False
    return True


def _v6(x: object) -> bool:
    # defs#/$defs/version
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v5(x: object) -> bool:
    # record-envelope#/properties/version
    if not _v6(x):
        return False
    return True


def _v7(x: object) -> bool:
    # record-envelope#/properties/state
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
    return True


def _v9(x: object) -> bool:
    # record-envelope#/properties/expected_version/anyOf/0
    if not _v6(x):
        return False
    return True


def _v10(x: object) -> bool:
    # record-envelope#/properties/expected_version/anyOf/1
    if not (x is None):
        return False
    return True


def _v8(x: object) -> bool:
    # record-envelope#/properties/expected_version
    if not (_v9(x) or _v10(x)):
        return False
    return True


def _v11(x: object) -> bool:
    # record-envelope#/properties/operation_id
    if not _v4(x):
        return False
    return True


def _v13(x: object) -> bool:
    # defs#/$defs/actor
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v12(x: object) -> bool:
    # record-envelope#/properties/actor
    if not _v13(x):
        return False
    return True


def _v15(x: object) -> bool:
    # defs#/$defs/timestamp
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
    return True


def _v14(x: object) -> bool:
    # record-envelope#/properties/observed_at
    if not _v15(x):
        return False
    return True


def _v18(x: object) -> bool:
    # defs#/$defs/sha256
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
    return True


def _v17(x: object) -> bool:
    # record-envelope#/properties/previous_sha256/anyOf/0
    if not _v18(x):
        return False
    return True


def _v19(x: object) -> bool:
    # record-envelope#/properties/previous_sha256/anyOf/1
    if not (x is None):
        return False
    return True


def _v16(x: object) -> bool:
    # record-envelope#/properties/previous_sha256
    if not (_v17(x) or _v19(x)):
        return False
    return True


def _v20(x: object) -> bool:
    # record-envelope#/properties/payload
    if not (isinstance(x, dict)):
        return False
    return True


def _v0(x: object) -> bool:
    # record-envelope#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('actor', 'expected_version', 'format', 'kind', 'observed_at', 'operation_id', 'payload', 'previous_sha256', 'record_id', 'state', 'version'):
            if k not in x:
                return False
        if 'format' in x and not _v1(x['format']):
            return False
        if 'kind' in x and not _v2(x['kind']):
            return False
        if 'record_id' in x and not _v3(x['record_id']):
            return False
        if 'version' in x and not _v5(x['version']):
            return False
        if 'state' in x and not _v7(x['state']):
            return False
        if 'expected_version' in x and not _v8(x['expected_version']):
            return False
        if 'operation_id' in x and not _v11(x['operation_id']):
            return False
        if 'actor' in x and not _v12(x['actor']):
            return False
        if 'observed_at' in x and not _v14(x['observed_at']):
            return False
        if 'previous_sha256' in x and not _v16(x['previous_sha256']):
            return False
        if 'payload' in x and not _v20(x['payload']):
            return False
        for k in x:
            if k not in ('format', 'kind', 'record_id', 'version', 'state', 'expected_version', 'operation_id', 'actor', 'observed_at', 'previous_sha256', 'payload'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'record-envelope': _v0,
}
