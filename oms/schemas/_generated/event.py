"""Predicates of the `event` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

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
_P2 = '^[0-9a-f]{32,64}$'
_P3 = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
_P4 = '^[^\\u0000-\\u001f\\u007f]*$'
_P5 = '^[0-9a-f]{64}$'
_P6 = '^[A-Za-z]{1,40}$'
_P7 = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$'
_C0: object = 'oms-event-v1'
_C1: tuple[object, ...] = ('bridge-acknowledged', 'dispatch-delivery-requested', 'hook-observed', 'session-parked', 'session-registered', 'session-resumed', 'session-stopped')
_C2: object = 'dispatch-delivery-requested'
_C3: object = 'session-parked'
_C4: object = 'session-registered'
_C5: object = 'session-resumed'
_C6: object = 'session-stopped'
_C7: object = 'bridge-acknowledged'
_C8: tuple[object, ...] = ('codex', 'claude', 'command')
_C9: object = 'hook-observed'


def _v1(x: object) -> bool:
    # event#/properties/format
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
    # event#/properties/event_id
    if not _v3(x):
        return False
    return True


def _v4(x: object) -> bool:
    # event#/properties/event_type
    if not any(_eq(x, c) for c in _C1):
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
    # event#/properties/created_at
    if not _v6(x):
        return False
    return True


def _v7(x: object) -> bool:
    # event#/properties/payload
    if not (isinstance(x, dict)):
        return False
    return True


def _v11(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/dispatch_id
    if not _v3(x):
        return False
    return True


def _v13(x: object) -> bool:
    # defs#/$defs/version
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v12(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/dispatch_version
    if not _v13(x):
        return False
    return True


def _v14(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/worker_record_id
    if not _v3(x):
        return False
    return True


def _v15(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/ticket_id
    if not _v3(x):
        return False
    return True


def _v17(x: object) -> bool:
    # defs#/$defs/count
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 1000000:
            return False
    return True


def _v16(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/attempt
    if not _v17(x):
        return False
    return True


def _v19(x: object) -> bool:
    # defs#/$defs/token
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
    return True


def _v18(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/lease_token
    if not _v19(x):
        return False
    return True


def _v10(x: object) -> bool:
    # event#/allOf/0/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'dispatch_id', 'dispatch_version', 'lease_token', 'ticket_id', 'worker_record_id'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v11(x['dispatch_id']):
            return False
        if 'dispatch_version' in x and not _v12(x['dispatch_version']):
            return False
        if 'worker_record_id' in x and not _v14(x['worker_record_id']):
            return False
        if 'ticket_id' in x and not _v15(x['ticket_id']):
            return False
        if 'attempt' in x and not _v16(x['attempt']):
            return False
        if 'lease_token' in x and not _v18(x['lease_token']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'dispatch_version', 'worker_record_id', 'ticket_id', 'attempt', 'lease_token'):
                return False
    return True


def _v9(x: object) -> bool:
    # event#/allOf/0/then
    if isinstance(x, dict):
        if 'payload' in x and not _v10(x['payload']):
            return False
    return True


def _v21(x: object) -> bool:
    # event#/allOf/0/if/properties/event_type
    if not _eq(x, _C2):
        return False
    return True


def _v20(x: object) -> bool:
    # event#/allOf/0/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v21(x['event_type']):
            return False
    return True


def _v8(x: object) -> bool:
    # event#/allOf/0
    if _v20(x):
        if not _v9(x):
            return False
    else:
        pass
    return True


def _v26(x: object) -> bool:
    # defs#/$defs/uuid
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
    return True


def _v25(x: object) -> bool:
    # event#/allOf/1/then/properties/payload/properties/session_id
    if not _v26(x):
        return False
    return True


def _v27(x: object) -> bool:
    # event#/allOf/1/then/properties/payload/properties/dispatch_id
    if not _v3(x):
        return False
    return True


def _v28(x: object) -> bool:
    # event#/allOf/1/then/properties/payload/properties/parked_until
    if not _v6(x):
        return False
    return True


def _v24(x: object) -> bool:
    # event#/allOf/1/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'parked_until', 'session_id'):
            if k not in x:
                return False
        if 'session_id' in x and not _v25(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v27(x['dispatch_id']):
            return False
        if 'parked_until' in x and not _v28(x['parked_until']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id', 'parked_until'):
                return False
    return True


def _v23(x: object) -> bool:
    # event#/allOf/1/then
    if isinstance(x, dict):
        if 'payload' in x and not _v24(x['payload']):
            return False
    return True


def _v30(x: object) -> bool:
    # event#/allOf/1/if/properties/event_type
    if not _eq(x, _C3):
        return False
    return True


def _v29(x: object) -> bool:
    # event#/allOf/1/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v30(x['event_type']):
            return False
    return True


def _v22(x: object) -> bool:
    # event#/allOf/1
    if _v29(x):
        if not _v23(x):
            return False
    else:
        pass
    return True


def _v34(x: object) -> bool:
    # event#/allOf/2/then/properties/payload/properties/session_id
    if not _v26(x):
        return False
    return True


def _v35(x: object) -> bool:
    # event#/allOf/2/then/properties/payload/properties/dispatch_id
    if not _v3(x):
        return False
    return True


def _v33(x: object) -> bool:
    # event#/allOf/2/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'session_id'):
            if k not in x:
                return False
        if 'session_id' in x and not _v34(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v35(x['dispatch_id']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id'):
                return False
    return True


def _v32(x: object) -> bool:
    # event#/allOf/2/then
    if isinstance(x, dict):
        if 'payload' in x and not _v33(x['payload']):
            return False
    return True


def _v37(x: object) -> bool:
    # event#/allOf/2/if/properties/event_type
    if not _eq(x, _C4):
        return False
    return True


def _v36(x: object) -> bool:
    # event#/allOf/2/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v37(x['event_type']):
            return False
    return True


def _v31(x: object) -> bool:
    # event#/allOf/2
    if _v36(x):
        if not _v32(x):
            return False
    else:
        pass
    return True


def _v41(x: object) -> bool:
    # event#/allOf/3/then/properties/payload/properties/session_id
    if not _v26(x):
        return False
    return True


def _v42(x: object) -> bool:
    # event#/allOf/3/then/properties/payload/properties/dispatch_id
    if not _v3(x):
        return False
    return True


def _v40(x: object) -> bool:
    # event#/allOf/3/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'session_id'):
            if k not in x:
                return False
        if 'session_id' in x and not _v41(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v42(x['dispatch_id']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id'):
                return False
    return True


def _v39(x: object) -> bool:
    # event#/allOf/3/then
    if isinstance(x, dict):
        if 'payload' in x and not _v40(x['payload']):
            return False
    return True


def _v44(x: object) -> bool:
    # event#/allOf/3/if/properties/event_type
    if not _eq(x, _C5):
        return False
    return True


def _v43(x: object) -> bool:
    # event#/allOf/3/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v44(x['event_type']):
            return False
    return True


def _v38(x: object) -> bool:
    # event#/allOf/3
    if _v43(x):
        if not _v39(x):
            return False
    else:
        pass
    return True


def _v48(x: object) -> bool:
    # event#/allOf/4/then/properties/payload/properties/session_id
    if not _v26(x):
        return False
    return True


def _v49(x: object) -> bool:
    # event#/allOf/4/then/properties/payload/properties/dispatch_id
    if not _v3(x):
        return False
    return True


def _v51(x: object) -> bool:
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


def _v50(x: object) -> bool:
    # event#/allOf/4/then/properties/payload/properties/reason
    if not _v51(x):
        return False
    return True


def _v47(x: object) -> bool:
    # event#/allOf/4/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'reason', 'session_id'):
            if k not in x:
                return False
        if 'session_id' in x and not _v48(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v49(x['dispatch_id']):
            return False
        if 'reason' in x and not _v50(x['reason']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id', 'reason'):
                return False
    return True


def _v46(x: object) -> bool:
    # event#/allOf/4/then
    if isinstance(x, dict):
        if 'payload' in x and not _v47(x['payload']):
            return False
    return True


def _v53(x: object) -> bool:
    # event#/allOf/4/if/properties/event_type
    if not _eq(x, _C6):
        return False
    return True


def _v52(x: object) -> bool:
    # event#/allOf/4/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v53(x['event_type']):
            return False
    return True


def _v45(x: object) -> bool:
    # event#/allOf/4
    if _v52(x):
        if not _v46(x):
            return False
    else:
        pass
    return True


def _v57(x: object) -> bool:
    # event#/allOf/5/then/properties/payload/properties/session_id
    if not _v26(x):
        return False
    return True


def _v58(x: object) -> bool:
    # event#/allOf/5/then/properties/payload/properties/dispatch_id
    if not _v3(x):
        return False
    return True


def _v60(x: object) -> bool:
    # defs#/$defs/sha256
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P5, x) is None:
            return False
    return True


def _v59(x: object) -> bool:
    # event#/allOf/5/then/properties/payload/properties/nonce
    if not _v60(x):
        return False
    return True


def _v56(x: object) -> bool:
    # event#/allOf/5/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'nonce', 'session_id'):
            if k not in x:
                return False
        if 'session_id' in x and not _v57(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v58(x['dispatch_id']):
            return False
        if 'nonce' in x and not _v59(x['nonce']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id', 'nonce'):
                return False
    return True


def _v55(x: object) -> bool:
    # event#/allOf/5/then
    if isinstance(x, dict):
        if 'payload' in x and not _v56(x['payload']):
            return False
    return True


def _v62(x: object) -> bool:
    # event#/allOf/5/if/properties/event_type
    if not _eq(x, _C7):
        return False
    return True


def _v61(x: object) -> bool:
    # event#/allOf/5/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v62(x['event_type']):
            return False
    return True


def _v54(x: object) -> bool:
    # event#/allOf/5
    if _v61(x):
        if not _v55(x):
            return False
    else:
        pass
    return True


def _v66(x: object) -> bool:
    # event#/allOf/6/then/properties/payload/properties/session_id
    if not _v26(x):
        return False
    return True


def _v67(x: object) -> bool:
    # event#/allOf/6/then/properties/payload/properties/dispatch_id
    if not _v3(x):
        return False
    return True


def _v68(x: object) -> bool:
    # event#/allOf/6/then/properties/payload/properties/nonce
    if not _v60(x):
        return False
    return True


def _v69(x: object) -> bool:
    # event#/allOf/6/then/properties/payload/properties/provider
    if not any(_eq(x, c) for c in _C8):
        return False
    return True


def _v70(x: object) -> bool:
    # event#/allOf/6/then/properties/payload/properties/hook_event
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P6, x) is None:
            return False
    return True


def _v71(x: object) -> bool:
    # event#/allOf/6/then/properties/payload/properties/native_session_ref
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P7, x) is None:
            return False
        if len(x) > 128:
            return False
    return True


def _v65(x: object) -> bool:
    # event#/allOf/6/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'hook_event', 'native_session_ref', 'nonce', 'provider', 'session_id'):
            if k not in x:
                return False
        if 'session_id' in x and not _v66(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v67(x['dispatch_id']):
            return False
        if 'nonce' in x and not _v68(x['nonce']):
            return False
        if 'provider' in x and not _v69(x['provider']):
            return False
        if 'hook_event' in x and not _v70(x['hook_event']):
            return False
        if 'native_session_ref' in x and not _v71(x['native_session_ref']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id', 'nonce', 'provider', 'hook_event', 'native_session_ref'):
                return False
    return True


def _v64(x: object) -> bool:
    # event#/allOf/6/then
    if isinstance(x, dict):
        if 'payload' in x and not _v65(x['payload']):
            return False
    return True


def _v73(x: object) -> bool:
    # event#/allOf/6/if/properties/event_type
    if not _eq(x, _C9):
        return False
    return True


def _v72(x: object) -> bool:
    # event#/allOf/6/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v73(x['event_type']):
            return False
    return True


def _v63(x: object) -> bool:
    # event#/allOf/6
    if _v72(x):
        if not _v64(x):
            return False
    else:
        pass
    return True


def _v0(x: object) -> bool:
    # event#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('created_at', 'event_id', 'event_type', 'format', 'payload'):
            if k not in x:
                return False
        if 'format' in x and not _v1(x['format']):
            return False
        if 'event_id' in x and not _v2(x['event_id']):
            return False
        if 'event_type' in x and not _v4(x['event_type']):
            return False
        if 'created_at' in x and not _v5(x['created_at']):
            return False
        if 'payload' in x and not _v7(x['payload']):
            return False
        for k in x:
            if k not in ('format', 'event_id', 'event_type', 'created_at', 'payload'):
                return False
    if not _v8(x):
        return False
    if not _v22(x):
        return False
    if not _v31(x):
        return False
    if not _v38(x):
        return False
    if not _v45(x):
        return False
    if not _v54(x):
        return False
    if not _v63(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'event': _v0,
}
