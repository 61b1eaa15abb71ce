"""Predicates of the `pane-registry` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: object = 'oms-pane-v1'


def _v849(x: object) -> bool:
    # pane-registry#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v850(x: object) -> bool:
    # pane-registry#/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v851(x: object) -> bool:
    # pane-registry#/properties/session
    if not _m_defs._v7(x):
        return False
    return True


def _v852(x: object) -> bool:
    # pane-registry#/properties/pane_id
    if not _m_defs._v342(x):
        return False
    return True


def _v853(x: object) -> bool:
    # pane-registry#/properties/pane_pid
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 2:
            return False
        if x > 4194304:
            return False
    return True


def _v854(x: object) -> bool:
    # pane-registry#/properties/provider_mode
    if not _m_defs._v26(x):
        return False
    return True


def _v855(x: object) -> bool:
    # pane-registry#/properties/created_at
    if not _m_defs._v118(x):
        return False
    return True


def _v848(x: object) -> bool:
    # pane-registry#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('created_at', 'dispatch_id', 'format', 'pane_id', 'pane_pid', 'provider_mode', 'session'):
            if k not in x:
                return False
        if 'format' in x and not _v849(x['format']):
            return False
        if 'dispatch_id' in x and not _v850(x['dispatch_id']):
            return False
        if 'session' in x and not _v851(x['session']):
            return False
        if 'pane_id' in x and not _v852(x['pane_id']):
            return False
        if 'pane_pid' in x and not _v853(x['pane_pid']):
            return False
        if 'provider_mode' in x and not _v854(x['provider_mode']):
            return False
        if 'created_at' in x and not _v855(x['created_at']):
            return False
        for k in x:
            if k not in ('format', 'dispatch_id', 'session', 'pane_id', 'pane_pid', 'provider_mode', 'created_at'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'pane-registry': _v848,
}
