"""Predicates of the `record-envelope` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_P0 = '^[a-z][a-z-]{0,31}\\Z'
_C0: object = 'oms-record-v1'
_C1: tuple[object, ...] = ('authorization', 'dispatch', 'pool', 'provider', 'session', 'ticket', 'worker')


def _v128(x: object) -> bool:
    # record-envelope#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v129(x: object) -> bool:
    # record-envelope#/properties/kind
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v130(x: object) -> bool:
    # record-envelope#/properties/record_id
    if not _m_defs._v7(x):
        return False
    return True


def _v131(x: object) -> bool:
    # record-envelope#/properties/version
    if not _m_defs._v132(x):
        return False
    return True


def _v133(x: object) -> bool:
    # record-envelope#/properties/state
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
    return True


def _v135(x: object) -> bool:
    # record-envelope#/properties/expected_version/anyOf/0
    if not _m_defs._v132(x):
        return False
    return True


def _v136(x: object) -> bool:
    # record-envelope#/properties/expected_version/anyOf/1
    if not (x is None):
        return False
    return True


def _v134(x: object) -> bool:
    # record-envelope#/properties/expected_version
    if not (_v135(x) or _v136(x)):
        return False
    return True


def _v137(x: object) -> bool:
    # record-envelope#/properties/operation_id
    if not _m_defs._v7(x):
        return False
    return True


def _v138(x: object) -> bool:
    # record-envelope#/properties/actor
    if not _m_defs._v139(x):
        return False
    return True


def _v140(x: object) -> bool:
    # record-envelope#/properties/observed_at
    if not _m_defs._v118(x):
        return False
    return True


def _v142(x: object) -> bool:
    # record-envelope#/properties/previous_sha256/anyOf/0
    if not _m_defs._v3(x):
        return False
    return True


def _v143(x: object) -> bool:
    # record-envelope#/properties/previous_sha256/anyOf/1
    if not (x is None):
        return False
    return True


def _v141(x: object) -> bool:
    # record-envelope#/properties/previous_sha256
    if not (_v142(x) or _v143(x)):
        return False
    return True


def _v144(x: object) -> bool:
    # record-envelope#/properties/payload
    if not (isinstance(x, dict)):
        return False
    return True


def _v127(x: object) -> bool:
    # record-envelope#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('actor', 'expected_version', 'format', 'kind', 'observed_at', 'operation_id', 'payload', 'previous_sha256', 'record_id', 'state', 'version'):
            if k not in x:
                return False
        if 'format' in x and not _v128(x['format']):
            return False
        if 'kind' in x and not _v129(x['kind']):
            return False
        if 'record_id' in x and not _v130(x['record_id']):
            return False
        if 'version' in x and not _v131(x['version']):
            return False
        if 'state' in x and not _v133(x['state']):
            return False
        if 'expected_version' in x and not _v134(x['expected_version']):
            return False
        if 'operation_id' in x and not _v137(x['operation_id']):
            return False
        if 'actor' in x and not _v138(x['actor']):
            return False
        if 'observed_at' in x and not _v140(x['observed_at']):
            return False
        if 'previous_sha256' in x and not _v141(x['previous_sha256']):
            return False
        if 'payload' in x and not _v144(x['payload']):
            return False
        for k in x:
            if k not in ('format', 'kind', 'record_id', 'version', 'state', 'expected_version', 'operation_id', 'actor', 'observed_at', 'previous_sha256', 'payload'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'record-envelope': _v127,
}
