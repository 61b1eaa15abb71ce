"""Predicates of the `kill-marker` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: object = 'oms-kill-v1'


def _v760(x: object) -> bool:
    # kill-marker#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v761(x: object) -> bool:
    # kill-marker#/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v762(x: object) -> bool:
    # kill-marker#/properties/by
    if not _m_defs._v139(x):
        return False
    return True


def _v763(x: object) -> bool:
    # kill-marker#/properties/pid
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 4194304:
            return False
    return True


def _v764(x: object) -> bool:
    # kill-marker#/properties/reason
    if not _m_defs._v124(x):
        return False
    return True


def _v765(x: object) -> bool:
    # kill-marker#/properties/requested_at
    if not _m_defs._v118(x):
        return False
    return True


def _v759(x: object) -> bool:
    # kill-marker#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('by', 'dispatch_id', 'format', 'pid', 'reason', 'requested_at'):
            if k not in x:
                return False
        if 'format' in x and not _v760(x['format']):
            return False
        if 'dispatch_id' in x and not _v761(x['dispatch_id']):
            return False
        if 'by' in x and not _v762(x['by']):
            return False
        if 'pid' in x and not _v763(x['pid']):
            return False
        if 'reason' in x and not _v764(x['reason']):
            return False
        if 'requested_at' in x and not _v765(x['requested_at']):
            return False
        for k in x:
            if k not in ('format', 'dispatch_id', 'by', 'pid', 'reason', 'requested_at'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'kill-marker': _v759,
}
