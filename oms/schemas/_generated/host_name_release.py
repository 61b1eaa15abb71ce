"""Predicates of the `host-name-release` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: object = 'oms-host-name-release-v1'


def _v721(x: object) -> bool:
    # host-name-release#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v722(x: object) -> bool:
    # host-name-release#/properties/host
    if not _m_defs._v339(x):
        return False
    return True


def _v723(x: object) -> bool:
    # host-name-release#/properties/generation
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 999:
            return False
    return True


def _v724(x: object) -> bool:
    # host-name-release#/properties/keyid
    if not _m_defs._v3(x):
        return False
    return True


def _v725(x: object) -> bool:
    # host-name-release#/properties/released_by
    if not _m_defs._v3(x):
        return False
    return True


def _v726(x: object) -> bool:
    # host-name-release#/properties/released_at
    if not _m_defs._v118(x):
        return False
    return True


def _v720(x: object) -> bool:
    # host-name-release#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('format', 'generation', 'host', 'keyid', 'released_at', 'released_by'):
            if k not in x:
                return False
        if 'format' in x and not _v721(x['format']):
            return False
        if 'host' in x and not _v722(x['host']):
            return False
        if 'generation' in x and not _v723(x['generation']):
            return False
        if 'keyid' in x and not _v724(x['keyid']):
            return False
        if 'released_by' in x and not _v725(x['released_by']):
            return False
        if 'released_at' in x and not _v726(x['released_at']):
            return False
        for k in x:
            if k not in ('format', 'host', 'generation', 'keyid', 'released_by', 'released_at'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'host-name-release': _v720,
}
