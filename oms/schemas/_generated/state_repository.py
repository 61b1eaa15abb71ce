"""Predicates of the `state-repository` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

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


def _v997(x: object) -> bool:
    # state-repository#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v998(x: object) -> bool:
    # state-repository#/properties/repository_root
    if not _m_defs._v35(x):
        return False
    return True


def _v999(x: object) -> bool:
    # state-repository#/properties/created_at
    if not _m_defs._v118(x):
        return False
    return True


def _v996(x: object) -> bool:
    # state-repository#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('created_at', 'format', 'repository_root'):
            if k not in x:
                return False
        if 'format' in x and not _v997(x['format']):
            return False
        if 'repository_root' in x and not _v998(x['repository_root']):
            return False
        if 'created_at' in x and not _v999(x['created_at']):
            return False
        for k in x:
            if k not in ('format', 'repository_root', 'created_at'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'state-repository': _v996,
}
