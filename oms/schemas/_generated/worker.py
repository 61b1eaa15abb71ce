"""Predicates of the `worker` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

_P0 = '^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$'
_P1 = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
_P2 = '^[a-z][a-z0-9-]{0,30}(?:\\.[a-z][a-z0-9-]{0,30}){0,3}$'
_P3 = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'
_P4 = '^[^\\u0000-\\u001f\\u007f]*$'
_P5 = '^[a-z][a-z-]{0,31}$'
_P6 = '^[a-z][a-z0-9-]{0,62}(?:[.:][a-z0-9][a-z0-9-]{0,62}){0,3}$'
_P7 = '^[0-9a-f]{64}$'
_C0: object = 'worker'
_C1: tuple[object, ...] = ('idle', 'working', 'done', 'blocked')
_C2: tuple[object, ...] = ('claude_interactive', 'claude_print', 'codex_exec', 'codex_goal', 'command')
_C3: tuple[object, ...] = ('healthy', 'parked', 'stalled', 'stopped')
_C4: tuple[object, ...] = ('result-recorded', 'exit', 'stopped', 'deadline', 'parent-gone', 'signal')
_C5: object = 'oms-record-v1'
_C6: tuple[object, ...] = ('authorization', 'dispatch', 'session', 'ticket', 'worker')


def _v1(x: object) -> bool:
    # worker#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v2(x: object) -> bool:
    # worker#/properties/state
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
    # worker#/properties/payload/properties/dispatch_id
    if not _v5(x):
        return False
    return True


def _v6(x: object) -> bool:
    # worker#/properties/payload/properties/ticket_id
    if not _v5(x):
        return False
    return True


def _v8(x: object) -> bool:
    # defs#/$defs/uuid
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
    return True


def _v7(x: object) -> bool:
    # worker#/properties/payload/properties/session_id
    if not _v8(x):
        return False
    return True


def _v10(x: object) -> bool:
    # defs#/$defs/role_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 127:
            return False
    return True


def _v9(x: object) -> bool:
    # worker#/properties/payload/properties/role_id
    if not _v10(x):
        return False
    return True


def _v12(x: object) -> bool:
    # defs#/$defs/transport
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v11(x: object) -> bool:
    # worker#/properties/payload/properties/provider_mode
    if not _v12(x):
        return False
    return True


def _v13(x: object) -> bool:
    # worker#/properties/payload/properties/worktree_id
    if not _v5(x):
        return False
    return True


def _v14(x: object) -> bool:
    # worker#/properties/payload/properties/health
    if not any(_eq(x, c) for c in _C3):
        return False
    return True


def _v16(x: object) -> bool:
    # defs#/$defs/timestamp
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
    return True


def _v15(x: object) -> bool:
    # worker#/properties/payload/properties/updated_at
    if not _v16(x):
        return False
    return True


def _v18(x: object) -> bool:
    # worker#/properties/payload/properties/end_reason/anyOf/0
    if not any(_eq(x, c) for c in _C4):
        return False
    return True


def _v19(x: object) -> bool:
    # worker#/properties/payload/properties/end_reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v17(x: object) -> bool:
    # worker#/properties/payload/properties/end_reason
    if not (_v18(x) or _v19(x)):
        return False
    return True


def _v22(x: object) -> bool:
    # defs#/$defs/reason
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 512:
            return False
    return True


def _v21(x: object) -> bool:
    # worker#/properties/payload/properties/end_detail/anyOf/0
    if not _v22(x):
        return False
    return True


def _v23(x: object) -> bool:
    # worker#/properties/payload/properties/end_detail/anyOf/1
    if not (x is None):
        return False
    return True


def _v20(x: object) -> bool:
    # worker#/properties/payload/properties/end_detail
    if not (_v21(x) or _v23(x)):
        return False
    return True


def _v25(x: object) -> bool:
    # worker#/properties/payload/properties/health_reason/anyOf/0
    if not _v22(x):
        return False
    return True


def _v26(x: object) -> bool:
    # worker#/properties/payload/properties/health_reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v24(x: object) -> bool:
    # worker#/properties/payload/properties/health_reason
    if not (_v25(x) or _v26(x)):
        return False
    return True


def _v3(x: object) -> bool:
    # worker#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'end_detail', 'end_reason', 'health', 'health_reason', 'provider_mode', 'role_id', 'session_id', 'ticket_id', 'updated_at', 'worktree_id'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v4(x['dispatch_id']):
            return False
        if 'ticket_id' in x and not _v6(x['ticket_id']):
            return False
        if 'session_id' in x and not _v7(x['session_id']):
            return False
        if 'role_id' in x and not _v9(x['role_id']):
            return False
        if 'provider_mode' in x and not _v11(x['provider_mode']):
            return False
        if 'worktree_id' in x and not _v13(x['worktree_id']):
            return False
        if 'health' in x and not _v14(x['health']):
            return False
        if 'updated_at' in x and not _v15(x['updated_at']):
            return False
        if 'end_reason' in x and not _v17(x['end_reason']):
            return False
        if 'end_detail' in x and not _v20(x['end_detail']):
            return False
        if 'health_reason' in x and not _v24(x['health_reason']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'ticket_id', 'session_id', 'role_id', 'provider_mode', 'worktree_id', 'health', 'updated_at', 'end_reason', 'end_detail', 'health_reason'):
                return False
    return True


def _v29(x: object) -> bool:
    # record-envelope#/properties/format
    if not _eq(x, _C5):
        return False
    return True


def _v30(x: object) -> bool:
    # record-envelope#/properties/kind
    if not any(_eq(x, c) for c in _C6):
        return False
    return True


def _v31(x: object) -> bool:
    # record-envelope#/properties/record_id
    if not _v5(x):
        return False
    return True


def _v33(x: object) -> bool:
    # defs#/$defs/version
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v32(x: object) -> bool:
    # record-envelope#/properties/version
    if not _v33(x):
        return False
    return True


def _v34(x: object) -> bool:
    # record-envelope#/properties/state
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P5, x) is None:
            return False
    return True


def _v36(x: object) -> bool:
    # record-envelope#/properties/expected_version/anyOf/0
    if not _v33(x):
        return False
    return True


def _v37(x: object) -> bool:
    # record-envelope#/properties/expected_version/anyOf/1
    if not (x is None):
        return False
    return True


def _v35(x: object) -> bool:
    # record-envelope#/properties/expected_version
    if not (_v36(x) or _v37(x)):
        return False
    return True


def _v38(x: object) -> bool:
    # record-envelope#/properties/operation_id
    if not _v5(x):
        return False
    return True


def _v40(x: object) -> bool:
    # defs#/$defs/actor
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P6, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v39(x: object) -> bool:
    # record-envelope#/properties/actor
    if not _v40(x):
        return False
    return True


def _v41(x: object) -> bool:
    # record-envelope#/properties/observed_at
    if not _v16(x):
        return False
    return True


def _v44(x: object) -> bool:
    # defs#/$defs/sha256
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P7, x) is None:
            return False
    return True


def _v43(x: object) -> bool:
    # record-envelope#/properties/previous_sha256/anyOf/0
    if not _v44(x):
        return False
    return True


def _v45(x: object) -> bool:
    # record-envelope#/properties/previous_sha256/anyOf/1
    if not (x is None):
        return False
    return True


def _v42(x: object) -> bool:
    # record-envelope#/properties/previous_sha256
    if not (_v43(x) or _v45(x)):
        return False
    return True


def _v46(x: object) -> bool:
    # record-envelope#/properties/payload
    if not (isinstance(x, dict)):
        return False
    return True


def _v28(x: object) -> bool:
    # record-envelope#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('actor', 'expected_version', 'format', 'kind', 'observed_at', 'operation_id', 'payload', 'previous_sha256', 'record_id', 'state', 'version'):
            if k not in x:
                return False
        if 'format' in x and not _v29(x['format']):
            return False
        if 'kind' in x and not _v30(x['kind']):
            return False
        if 'record_id' in x and not _v31(x['record_id']):
            return False
        if 'version' in x and not _v32(x['version']):
            return False
        if 'state' in x and not _v34(x['state']):
            return False
        if 'expected_version' in x and not _v35(x['expected_version']):
            return False
        if 'operation_id' in x and not _v38(x['operation_id']):
            return False
        if 'actor' in x and not _v39(x['actor']):
            return False
        if 'observed_at' in x and not _v41(x['observed_at']):
            return False
        if 'previous_sha256' in x and not _v42(x['previous_sha256']):
            return False
        if 'payload' in x and not _v46(x['payload']):
            return False
        for k in x:
            if k not in ('format', 'kind', 'record_id', 'version', 'state', 'expected_version', 'operation_id', 'actor', 'observed_at', 'previous_sha256', 'payload'):
                return False
    return True


def _v27(x: object) -> bool:
    # worker#/allOf/0
    if not _v28(x):
        return False
    return True


def _v0(x: object) -> bool:
    # worker#
    if isinstance(x, dict):
        if 'kind' in x and not _v1(x['kind']):
            return False
        if 'state' in x and not _v2(x['state']):
            return False
        if 'payload' in x and not _v3(x['payload']):
            return False
    if not _v27(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'worker': _v0,
}
