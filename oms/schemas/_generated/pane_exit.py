"""Predicates of the `pane-exit` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: object = 'oms-exit-v1'
_C1: tuple[object, ...] = ('pids', 'memory', 'disk')


def _v835(x: object) -> bool:
    # pane-exit#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v836(x: object) -> bool:
    # pane-exit#/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v838(x: object) -> bool:
    # pane-exit#/properties/status/anyOf/0
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 255:
            return False
    return True


def _v839(x: object) -> bool:
    # pane-exit#/properties/status/anyOf/1
    if not (x is None):
        return False
    return True


def _v837(x: object) -> bool:
    # pane-exit#/properties/status
    if not (_v838(x) or _v839(x)):
        return False
    return True


def _v841(x: object) -> bool:
    # pane-exit#/properties/signal/anyOf/0
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 64:
            return False
    return True


def _v842(x: object) -> bool:
    # pane-exit#/properties/signal/anyOf/1
    if not (x is None):
        return False
    return True


def _v840(x: object) -> bool:
    # pane-exit#/properties/signal
    if not (_v841(x) or _v842(x)):
        return False
    return True


def _v843(x: object) -> bool:
    # pane-exit#/properties/ended_at
    if not _m_defs._v118(x):
        return False
    return True


def _v844(x: object) -> bool:
    # pane-exit#/properties/detail
    if not _m_defs._v124(x):
        return False
    return True


def _v845(x: object) -> bool:
    # pane-exit#/properties/pane_pid
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 4194304:
            return False
    return True


def _v846(x: object) -> bool:
    # pane-exit#/properties/pane_started
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740992:
            return False
    return True


def _v847(x: object) -> bool:
    # pane-exit#/properties/limit
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v834(x: object) -> bool:
    # pane-exit#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'ended_at', 'format', 'signal', 'status'):
            if k not in x:
                return False
        if 'format' in x and not _v835(x['format']):
            return False
        if 'dispatch_id' in x and not _v836(x['dispatch_id']):
            return False
        if 'status' in x and not _v837(x['status']):
            return False
        if 'signal' in x and not _v840(x['signal']):
            return False
        if 'ended_at' in x and not _v843(x['ended_at']):
            return False
        if 'detail' in x and not _v844(x['detail']):
            return False
        if 'pane_pid' in x and not _v845(x['pane_pid']):
            return False
        if 'pane_started' in x and not _v846(x['pane_started']):
            return False
        if 'limit' in x and not _v847(x['limit']):
            return False
        for k in x:
            if k not in ('format', 'dispatch_id', 'status', 'signal', 'ended_at', 'detail', 'pane_pid', 'pane_started', 'limit'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'pane-exit': _v834,
}
