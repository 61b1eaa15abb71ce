"""Predicates of the `outbox-receipt` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

_P0 = '^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$'
_P1 = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'
_P2 = '^[0-9a-f]{64}$'
_P3 = '^[a-z][a-z-]{0,31}$'
_P4 = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
_P5 = '^%[0-9]{1,9}$'
_P6 = '^[^\\u0000-\\u001f\\u007f]*$'
_C0: object = 'oms-receipt-v1'
_C1: tuple[object, ...] = ('created', 'reused', 'parked', 'stopped', 'recovered', 'refused', 'done')
_C2: tuple[object, ...] = ('claude_interactive', 'claude_print', 'codex_exec', 'codex_goal', 'command')


def _v1(x: object) -> bool:
    # outbox-receipt#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v3(x: object) -> bool:
    # defs#/$defs/opaque_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v2(x: object) -> bool:
    # outbox-receipt#/properties/event_id
    if not _v3(x):
        return False
    return True


def _v4(x: object) -> bool:
    # outbox-receipt#/properties/consumer_id
    if not _v3(x):
        return False
    return True


def _v6(x: object) -> bool:
    # defs#/$defs/timestamp
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
    return True


def _v5(x: object) -> bool:
    # outbox-receipt#/properties/processed_at
    if not _v6(x):
        return False
    return True


def _v8(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/status
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v10(x: object) -> bool:
    # defs#/$defs/sha256
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
    return True


def _v9(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/operation_nonce
    if not _v10(x):
        return False
    return True


def _v11(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/dispatch_id
    if not _v3(x):
        return False
    return True


def _v12(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/dispatch_state
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
    return True


def _v14(x: object) -> bool:
    # defs#/$defs/uuid
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
    return True


def _v13(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/session_id
    if not _v14(x):
        return False
    return True


def _v15(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/session_state
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
    return True


def _v17(x: object) -> bool:
    # defs#/$defs/pane_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P5, x) is None:
            return False
    return True


def _v16(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/pane_id
    if not _v17(x):
        return False
    return True


def _v19(x: object) -> bool:
    # defs#/$defs/transport
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v18(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/provider_mode
    if not _v19(x):
        return False
    return True


def _v20(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/activation_pending
    if not (isinstance(x, bool)):
        return False
    return True


def _v22(x: object) -> bool:
    # defs#/$defs/reason
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P6, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 512:
            return False
    return True


def _v21(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/reason
    if not _v22(x):
        return False
    return True


def _v7(x: object) -> bool:
    # outbox-receipt#/properties/result
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('operation_nonce', 'status'):
            if k not in x:
                return False
        if 'status' in x and not _v8(x['status']):
            return False
        if 'operation_nonce' in x and not _v9(x['operation_nonce']):
            return False
        if 'dispatch_id' in x and not _v11(x['dispatch_id']):
            return False
        if 'dispatch_state' in x and not _v12(x['dispatch_state']):
            return False
        if 'session_id' in x and not _v13(x['session_id']):
            return False
        if 'session_state' in x and not _v15(x['session_state']):
            return False
        if 'pane_id' in x and not _v16(x['pane_id']):
            return False
        if 'provider_mode' in x and not _v18(x['provider_mode']):
            return False
        if 'activation_pending' in x and not _v20(x['activation_pending']):
            return False
        if 'reason' in x and not _v21(x['reason']):
            return False
        for k in x:
            if k not in ('status', 'operation_nonce', 'dispatch_id', 'dispatch_state', 'session_id', 'session_state', 'pane_id', 'provider_mode', 'activation_pending', 'reason'):
                return False
    return True


def _v0(x: object) -> bool:
    # outbox-receipt#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('consumer_id', 'event_id', 'format', 'processed_at', 'result'):
            if k not in x:
                return False
        if 'format' in x and not _v1(x['format']):
            return False
        if 'event_id' in x and not _v2(x['event_id']):
            return False
        if 'consumer_id' in x and not _v4(x['consumer_id']):
            return False
        if 'processed_at' in x and not _v5(x['processed_at']):
            return False
        if 'result' in x and not _v7(x['result']):
            return False
        for k in x:
            if k not in ('format', 'event_id', 'consumer_id', 'processed_at', 'result'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'outbox-receipt': _v0,
}
