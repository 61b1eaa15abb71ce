"""Predicates of the `proxy-token` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: object = 1


def _v898(x: object) -> bool:
    # proxy-token#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v899(x: object) -> bool:
    # proxy-token#/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v900(x: object) -> bool:
    # proxy-token#/properties/provider_id
    if not _m_defs._v7(x):
        return False
    return True


def _v902(x: object) -> bool:
    # proxy-token#/properties/role_id/oneOf/0
    if not (x is None):
        return False
    return True


def _v903(x: object) -> bool:
    # proxy-token#/properties/role_id/oneOf/1
    if not _m_defs._v17(x):
        return False
    return True


def _v901(x: object) -> bool:
    # proxy-token#/properties/role_id
    if [_v902(x), _v903(x)].count(True) != 1:
        return False
    return True


def _v904(x: object) -> bool:
    # proxy-token#/properties/approved_endpoint
    if not _m_defs._v21(x):
        return False
    return True


def _v905(x: object) -> bool:
    # proxy-token#/properties/token_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v906(x: object) -> bool:
    # proxy-token#/properties/issued_at
    if not _m_defs._v118(x):
        return False
    return True


def _v897(x: object) -> bool:
    # proxy-token#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'format', 'issued_at', 'provider_id', 'role_id', 'token_sha256'):
            if k not in x:
                return False
        if 'format' in x and not _v898(x['format']):
            return False
        if 'dispatch_id' in x and not _v899(x['dispatch_id']):
            return False
        if 'provider_id' in x and not _v900(x['provider_id']):
            return False
        if 'role_id' in x and not _v901(x['role_id']):
            return False
        if 'approved_endpoint' in x and not _v904(x['approved_endpoint']):
            return False
        if 'token_sha256' in x and not _v905(x['token_sha256']):
            return False
        if 'issued_at' in x and not _v906(x['issued_at']):
            return False
        for k in x:
            if k not in ('format', 'dispatch_id', 'provider_id', 'role_id', 'approved_endpoint', 'token_sha256', 'issued_at'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'proxy-token': _v897,
}
