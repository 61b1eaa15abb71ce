"""Predicates of the `op-index` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: object = 'oms-op-v1'


def _v814(x: object) -> bool:
    # op-index#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v815(x: object) -> bool:
    # op-index#/properties/operation_id
    if not _m_defs._v7(x):
        return False
    return True


def _v816(x: object) -> bool:
    # op-index#/properties/version
    if not _m_defs._v132(x):
        return False
    return True


def _v813(x: object) -> bool:
    # op-index#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('format', 'operation_id', 'version'):
            if k not in x:
                return False
        if 'format' in x and not _v814(x['format']):
            return False
        if 'operation_id' in x and not _v815(x['operation_id']):
            return False
        if 'version' in x and not _v816(x['version']):
            return False
        for k in x:
            if k not in ('format', 'operation_id', 'version'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'op-index': _v813,
}
