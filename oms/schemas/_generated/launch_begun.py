"""Predicates of the `launch-begun` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: object = 'oms-launch-begun-v1'


def _v767(x: object) -> bool:
    # launch-begun#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v768(x: object) -> bool:
    # launch-begun#/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v769(x: object) -> bool:
    # launch-begun#/properties/session_id
    if not _m_defs._v15(x):
        return False
    return True


def _v770(x: object) -> bool:
    # launch-begun#/properties/pid
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 4194304:
            return False
    return True


def _v771(x: object) -> bool:
    # launch-begun#/properties/begun_at
    if not _m_defs._v118(x):
        return False
    return True


def _v766(x: object) -> bool:
    # launch-begun#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('begun_at', 'dispatch_id', 'format', 'pid', 'session_id'):
            if k not in x:
                return False
        if 'format' in x and not _v767(x['format']):
            return False
        if 'dispatch_id' in x and not _v768(x['dispatch_id']):
            return False
        if 'session_id' in x and not _v769(x['session_id']):
            return False
        if 'pid' in x and not _v770(x['pid']):
            return False
        if 'begun_at' in x and not _v771(x['begun_at']):
            return False
        for k in x:
            if k not in ('format', 'dispatch_id', 'session_id', 'pid', 'begun_at'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'launch-begun': _v766,
}
