"""Predicates of the `host-name` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: object = 'oms-host-name-v1'


def _v728(x: object) -> bool:
    # host-name#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v729(x: object) -> bool:
    # host-name#/properties/host
    if not _m_defs._v339(x):
        return False
    return True


def _v730(x: object) -> bool:
    # host-name#/properties/keyid
    if not _m_defs._v3(x):
        return False
    return True


def _v731(x: object) -> bool:
    # host-name#/properties/claimed_at
    if not _m_defs._v118(x):
        return False
    return True


def _v727(x: object) -> bool:
    # host-name#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('claimed_at', 'format', 'host', 'keyid'):
            if k not in x:
                return False
        if 'format' in x and not _v728(x['format']):
            return False
        if 'host' in x and not _v729(x['host']):
            return False
        if 'keyid' in x and not _v730(x['keyid']):
            return False
        if 'claimed_at' in x and not _v731(x['claimed_at']):
            return False
        for k in x:
            if k not in ('format', 'host', 'keyid', 'claimed_at'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'host-name': _v727,
}
