"""Predicates of the `state-meta` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: object = 'oms-state-v1'


def _v992(x: object) -> bool:
    # state-meta#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v993(x: object) -> bool:
    # state-meta#/properties/created_at
    if not _m_defs._v118(x):
        return False
    return True


def _v994(x: object) -> bool:
    # state-meta#/properties/public_key
    if not _m_defs._v343(x):
        return False
    return True


def _v995(x: object) -> bool:
    # state-meta#/properties/key_id
    if not _m_defs._v3(x):
        return False
    return True


def _v991(x: object) -> bool:
    # state-meta#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('created_at', 'format', 'key_id', 'public_key'):
            if k not in x:
                return False
        if 'format' in x and not _v992(x['format']):
            return False
        if 'created_at' in x and not _v993(x['created_at']):
            return False
        if 'public_key' in x and not _v994(x['public_key']):
            return False
        if 'key_id' in x and not _v995(x['key_id']):
            return False
        for k in x:
            if k not in ('format', 'created_at', 'public_key', 'key_id'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'state-meta': _v991,
}
