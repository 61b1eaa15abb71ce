"""Predicates of the `outbox-receipt` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_P0 = '^[a-z][a-z-]{0,31}\\Z'
_C0: object = 'oms-receipt-v1'
_C1: tuple[object, ...] = ('created', 'reused', 'parked', 'stopped', 'recovered', 'refused', 'done')
_C2: object = True


def _v818(x: object) -> bool:
    # outbox-receipt#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v819(x: object) -> bool:
    # outbox-receipt#/properties/event_id
    if not _m_defs._v7(x):
        return False
    return True


def _v820(x: object) -> bool:
    # outbox-receipt#/properties/consumer_id
    if not _m_defs._v7(x):
        return False
    return True


def _v821(x: object) -> bool:
    # outbox-receipt#/properties/processed_at
    if not _m_defs._v118(x):
        return False
    return True


def _v823(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/status
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v824(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/operation_nonce
    if not _m_defs._v3(x):
        return False
    return True


def _v825(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v826(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/dispatch_state
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
    return True


def _v827(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/session_id
    if not _m_defs._v15(x):
        return False
    return True


def _v828(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/session_state
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
    return True


def _v829(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/pane_id
    if not _m_defs._v342(x):
        return False
    return True


def _v830(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/provider_mode
    if not _m_defs._v26(x):
        return False
    return True


def _v831(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/activation_pending
    if not (isinstance(x, bool)):
        return False
    return True


def _v832(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/waits_for_person
    if not _eq(x, _C2):
        return False
    return True


def _v833(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/reason
    if not _m_defs._v124(x):
        return False
    return True


def _v822(x: object) -> bool:
    # outbox-receipt#/properties/result
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('operation_nonce', 'status'):
            if k not in x:
                return False
        if 'status' in x and not _v823(x['status']):
            return False
        if 'operation_nonce' in x and not _v824(x['operation_nonce']):
            return False
        if 'dispatch_id' in x and not _v825(x['dispatch_id']):
            return False
        if 'dispatch_state' in x and not _v826(x['dispatch_state']):
            return False
        if 'session_id' in x and not _v827(x['session_id']):
            return False
        if 'session_state' in x and not _v828(x['session_state']):
            return False
        if 'pane_id' in x and not _v829(x['pane_id']):
            return False
        if 'provider_mode' in x and not _v830(x['provider_mode']):
            return False
        if 'activation_pending' in x and not _v831(x['activation_pending']):
            return False
        if 'waits_for_person' in x and not _v832(x['waits_for_person']):
            return False
        if 'reason' in x and not _v833(x['reason']):
            return False
        for k in x:
            if k not in ('status', 'operation_nonce', 'dispatch_id', 'dispatch_state', 'session_id', 'session_state', 'pane_id', 'provider_mode', 'activation_pending', 'waits_for_person', 'reason'):
                return False
    return True


def _v817(x: object) -> bool:
    # outbox-receipt#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('consumer_id', 'event_id', 'format', 'processed_at', 'result'):
            if k not in x:
                return False
        if 'format' in x and not _v818(x['format']):
            return False
        if 'event_id' in x and not _v819(x['event_id']):
            return False
        if 'consumer_id' in x and not _v820(x['consumer_id']):
            return False
        if 'processed_at' in x and not _v821(x['processed_at']):
            return False
        if 'result' in x and not _v822(x['result']):
            return False
        for k in x:
            if k not in ('format', 'event_id', 'consumer_id', 'processed_at', 'result'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'outbox-receipt': _v817,
}
