"""Predicates of the `role-policy` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_P0 = '^[A-Za-z][A-Za-z0-9_]{0,63}\\Z'
_C0: object = 'oms-role-policy-v1'


def _v918(x: object) -> bool:
    # role-policy#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v922(x: object) -> bool:
    # role-policy#/properties/roles/additionalProperties/properties/capabilities/items
    if not _m_defs._v31(x):
        return False
    return True


def _v921(x: object) -> bool:
    # role-policy#/properties/roles/additionalProperties/properties/capabilities
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 8:
            return False
        for v in x:
            if not _v922(v):
                return False
        if not _unique(x):
            return False
    return True


def _v924(x: object) -> bool:
    # role-policy#/properties/roles/additionalProperties/properties/tools/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
    return True


def _v923(x: object) -> bool:
    # role-policy#/properties/roles/additionalProperties/properties/tools
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 64:
            return False
        for v in x:
            if not _v924(v):
                return False
        if not _unique(x):
            return False
    return True


def _v925(x: object) -> bool:
    # role-policy#/properties/roles/additionalProperties/properties/may_review
    if not (isinstance(x, bool)):
        return False
    return True


def _v926(x: object) -> bool:
    # role-policy#/properties/roles/additionalProperties/properties/needs_person
    if not (isinstance(x, bool)):
        return False
    return True


def _v920(x: object) -> bool:
    # role-policy#/properties/roles/additionalProperties
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('capabilities', 'may_review', 'tools'):
            if k not in x:
                return False
        if 'capabilities' in x and not _v921(x['capabilities']):
            return False
        if 'tools' in x and not _v923(x['tools']):
            return False
        if 'may_review' in x and not _v925(x['may_review']):
            return False
        if 'needs_person' in x and not _v926(x['needs_person']):
            return False
        for k in x:
            if k not in ('capabilities', 'tools', 'may_review', 'needs_person'):
                return False
    return True


def _v927(x: object) -> bool:
    # role-policy#/properties/roles/propertyNames
    if not _m_defs._v17(x):
        return False
    return True


def _v919(x: object) -> bool:
    # role-policy#/properties/roles
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if len(x) < 1:
            return False
        if len(x) > 64:
            return False
        for k, v in x.items():
            if k not in () and not _v920(v):
                return False
        for k in x:
            if not _v927(k):
                return False
    return True


def _v928(x: object) -> bool:
    # role-policy#/properties/human_approval
    if not (isinstance(x, bool)):
        return False
    return True


def _v917(x: object) -> bool:
    # role-policy#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('format', 'human_approval', 'roles'):
            if k not in x:
                return False
        if 'format' in x and not _v918(x['format']):
            return False
        if 'roles' in x and not _v919(x['roles']):
            return False
        if 'human_approval' in x and not _v928(x['human_approval']):
            return False
        for k in x:
            if k not in ('format', 'roles', 'human_approval'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'role-policy': _v917,
}
