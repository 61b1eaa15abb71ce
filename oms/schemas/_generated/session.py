"""Predicates of the `session` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

_P0 = '^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$'
_P1 = '^[a-z][a-z0-9-]{0,30}(?:\\.[a-z][a-z0-9-]{0,30}){0,3}$'
_P2 = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$'
_P3 = '^%[0-9]{1,9}$'
_P4 = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'
_P5 = '^[^\\u0000-\\u001f\\u007f]*$'
_P6 = '^[a-z][a-z-]{0,31}$'
_P7 = '^[a-z][a-z0-9-]{0,62}(?:[.:][a-z0-9][a-z0-9-]{0,62}){0,3}$'
_P8 = '^[0-9a-f]{64}$'
_C0: object = 'session'
_C1: tuple[object, ...] = ('running', 'parked', 'stalled', 'stopped')
_C2: tuple[object, ...] = ('codex', 'claude', 'command')
_C3: tuple[object, ...] = ('goal', 'pane', 'command')
_C4: object = 'oms-record-v1'
_C5: tuple[object, ...] = ('authorization', 'dispatch', 'session', 'ticket', 'worker')


def _v1(x: object) -> bool:
    # session#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v2(x: object) -> bool:
    # session#/properties/state
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v5(x: object) -> bool:
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


def _v4(x: object) -> bool:
    # session#/properties/payload/properties/dispatch_id
    if not _v5(x):
        return False
    return True


def _v6(x: object) -> bool:
    # session#/properties/payload/properties/ticket_id
    if not _v5(x):
        return False
    return True


def _v8(x: object) -> bool:
    # defs#/$defs/role_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 127:
            return False
    return True


def _v7(x: object) -> bool:
    # session#/properties/payload/properties/role_id
    if not _v8(x):
        return False
    return True


def _v10(x: object) -> bool:
    # defs#/$defs/engine
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v9(x: object) -> bool:
    # session#/properties/payload/properties/engine
    if not _v10(x):
        return False
    return True


def _v11(x: object) -> bool:
    # session#/properties/payload/properties/mode
    if not any(_eq(x, c) for c in _C3):
        return False
    return True


def _v12(x: object) -> bool:
    # session#/properties/payload/properties/native_session_ref
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v15(x: object) -> bool:
    # defs#/$defs/pane_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
    return True


def _v14(x: object) -> bool:
    # session#/properties/payload/properties/tmux_pane_id/anyOf/0
    if not _v15(x):
        return False
    return True


def _v16(x: object) -> bool:
    # session#/properties/payload/properties/tmux_pane_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v13(x: object) -> bool:
    # session#/properties/payload/properties/tmux_pane_id
    if not (_v14(x) or _v16(x)):
        return False
    return True


def _v17(x: object) -> bool:
    # session#/properties/payload/properties/source_event_id
    if not _v5(x):
        return False
    return True


def _v19(x: object) -> bool:
    # defs#/$defs/timestamp
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
    return True


def _v18(x: object) -> bool:
    # session#/properties/payload/properties/last_observed_at
    if not _v19(x):
        return False
    return True


def _v20(x: object) -> bool:
    # session#/properties/payload/properties/heartbeat_deadline_at
    if not _v19(x):
        return False
    return True


def _v22(x: object) -> bool:
    # session#/properties/payload/properties/parked_until/anyOf/0
    if not _v19(x):
        return False
    return True


def _v23(x: object) -> bool:
    # session#/properties/payload/properties/parked_until/anyOf/1
    if not (x is None):
        return False
    return True


def _v21(x: object) -> bool:
    # session#/properties/payload/properties/parked_until
    if not (_v22(x) or _v23(x)):
        return False
    return True


def _v26(x: object) -> bool:
    # defs#/$defs/reason
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P5, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 512:
            return False
    return True


def _v25(x: object) -> bool:
    # session#/properties/payload/properties/stop_reason/anyOf/0
    if not _v26(x):
        return False
    return True


def _v27(x: object) -> bool:
    # session#/properties/payload/properties/stop_reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v24(x: object) -> bool:
    # session#/properties/payload/properties/stop_reason
    if not (_v25(x) or _v27(x)):
        return False
    return True


def _v28(x: object) -> bool:
    # session#/properties/payload/properties/stop_blocks
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 1000:
            return False
    return True


def _v30(x: object) -> bool:
    # session#/properties/payload/properties/agent_stopped_at/anyOf/0
    if not _v19(x):
        return False
    return True


def _v31(x: object) -> bool:
    # session#/properties/payload/properties/agent_stopped_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v29(x: object) -> bool:
    # session#/properties/payload/properties/agent_stopped_at
    if not (_v30(x) or _v31(x)):
        return False
    return True


def _v3(x: object) -> bool:
    # session#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'engine', 'heartbeat_deadline_at', 'last_observed_at', 'mode', 'native_session_ref', 'parked_until', 'role_id', 'source_event_id', 'stop_blocks', 'stop_reason', 'ticket_id', 'tmux_pane_id'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v4(x['dispatch_id']):
            return False
        if 'ticket_id' in x and not _v6(x['ticket_id']):
            return False
        if 'role_id' in x and not _v7(x['role_id']):
            return False
        if 'engine' in x and not _v9(x['engine']):
            return False
        if 'mode' in x and not _v11(x['mode']):
            return False
        if 'native_session_ref' in x and not _v12(x['native_session_ref']):
            return False
        if 'tmux_pane_id' in x and not _v13(x['tmux_pane_id']):
            return False
        if 'source_event_id' in x and not _v17(x['source_event_id']):
            return False
        if 'last_observed_at' in x and not _v18(x['last_observed_at']):
            return False
        if 'heartbeat_deadline_at' in x and not _v20(x['heartbeat_deadline_at']):
            return False
        if 'parked_until' in x and not _v21(x['parked_until']):
            return False
        if 'stop_reason' in x and not _v24(x['stop_reason']):
            return False
        if 'stop_blocks' in x and not _v28(x['stop_blocks']):
            return False
        if 'agent_stopped_at' in x and not _v29(x['agent_stopped_at']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'ticket_id', 'role_id', 'engine', 'mode', 'native_session_ref', 'tmux_pane_id', 'source_event_id', 'last_observed_at', 'heartbeat_deadline_at', 'parked_until', 'stop_reason', 'stop_blocks', 'agent_stopped_at'):
                return False
    return True


def _v34(x: object) -> bool:
    # record-envelope#/properties/format
    if not _eq(x, _C4):
        return False
    return True


def _v35(x: object) -> bool:
    # record-envelope#/properties/kind
    if not any(_eq(x, c) for c in _C5):
        return False
    return True


def _v36(x: object) -> bool:
    # record-envelope#/properties/record_id
    if not _v5(x):
        return False
    return True


def _v38(x: object) -> bool:
    # defs#/$defs/version
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v37(x: object) -> bool:
    # record-envelope#/properties/version
    if not _v38(x):
        return False
    return True


def _v39(x: object) -> bool:
    # record-envelope#/properties/state
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P6, x) is None:
            return False
    return True


def _v41(x: object) -> bool:
    # record-envelope#/properties/expected_version/anyOf/0
    if not _v38(x):
        return False
    return True


def _v42(x: object) -> bool:
    # record-envelope#/properties/expected_version/anyOf/1
    if not (x is None):
        return False
    return True


def _v40(x: object) -> bool:
    # record-envelope#/properties/expected_version
    if not (_v41(x) or _v42(x)):
        return False
    return True


def _v43(x: object) -> bool:
    # record-envelope#/properties/operation_id
    if not _v5(x):
        return False
    return True


def _v45(x: object) -> bool:
    # defs#/$defs/actor
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P7, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v44(x: object) -> bool:
    # record-envelope#/properties/actor
    if not _v45(x):
        return False
    return True


def _v46(x: object) -> bool:
    # record-envelope#/properties/observed_at
    if not _v19(x):
        return False
    return True


def _v49(x: object) -> bool:
    # defs#/$defs/sha256
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P8, x) is None:
            return False
    return True


def _v48(x: object) -> bool:
    # record-envelope#/properties/previous_sha256/anyOf/0
    if not _v49(x):
        return False
    return True


def _v50(x: object) -> bool:
    # record-envelope#/properties/previous_sha256/anyOf/1
    if not (x is None):
        return False
    return True


def _v47(x: object) -> bool:
    # record-envelope#/properties/previous_sha256
    if not (_v48(x) or _v50(x)):
        return False
    return True


def _v51(x: object) -> bool:
    # record-envelope#/properties/payload
    if not (isinstance(x, dict)):
        return False
    return True


def _v33(x: object) -> bool:
    # record-envelope#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('actor', 'expected_version', 'format', 'kind', 'observed_at', 'operation_id', 'payload', 'previous_sha256', 'record_id', 'state', 'version'):
            if k not in x:
                return False
        if 'format' in x and not _v34(x['format']):
            return False
        if 'kind' in x and not _v35(x['kind']):
            return False
        if 'record_id' in x and not _v36(x['record_id']):
            return False
        if 'version' in x and not _v37(x['version']):
            return False
        if 'state' in x and not _v39(x['state']):
            return False
        if 'expected_version' in x and not _v40(x['expected_version']):
            return False
        if 'operation_id' in x and not _v43(x['operation_id']):
            return False
        if 'actor' in x and not _v44(x['actor']):
            return False
        if 'observed_at' in x and not _v46(x['observed_at']):
            return False
        if 'previous_sha256' in x and not _v47(x['previous_sha256']):
            return False
        if 'payload' in x and not _v51(x['payload']):
            return False
        for k in x:
            if k not in ('format', 'kind', 'record_id', 'version', 'state', 'expected_version', 'operation_id', 'actor', 'observed_at', 'previous_sha256', 'payload'):
                return False
    return True


def _v32(x: object) -> bool:
    # session#/allOf/0
    if not _v33(x):
        return False
    return True


def _v0(x: object) -> bool:
    # session#
    if isinstance(x, dict):
        if 'kind' in x and not _v1(x['kind']):
            return False
        if 'state' in x and not _v2(x['state']):
            return False
        if 'payload' in x and not _v3(x['payload']):
            return False
    if not _v32(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'session': _v0,
}
