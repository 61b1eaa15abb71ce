"""Predicates of the `evidence` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

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
_P2 = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'
_P3 = '^[0-9a-f]{64}$'
_P4 = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
_P5 = '^[0-9a-f]{40}(?:[0-9a-f]{24})?$'
_P6 = '^[^\\u0000-\\u001f\\u007f]*$'
_C0: object = 'oms-evidence-v1'
_C1: tuple[object, ...] = ('advisor-output', 'dispatch-result', 'human-approval', 'lease-expiry')
_C2: tuple[object, ...] = ('oms', 'advisor', 'human')
_C3: tuple[object, ...] = ('approve', 'reject')
_C4: object = 'advisor-output'
_C5: tuple[object, ...] = ('completed', 'blocked', 'failed')
_C6: object = 'dispatch-result'
_C7: tuple[object, ...] = ('approve', 'reject')
_C8: object = 'human-approval'
_C9: object = 'lease-expiry'


def _v1(x: object) -> bool:
    # evidence#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v2(x: object) -> bool:
    # evidence#/properties/evidence_kind
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v4(x: object) -> bool:
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


def _v3(x: object) -> bool:
    # evidence#/properties/ticket_id
    if not _v4(x):
        return False
    return True


def _v5(x: object) -> bool:
    # evidence#/properties/producer
    if not any(_eq(x, c) for c in _C2):
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
    # evidence#/properties/producer_role/anyOf/0
    if not _v8(x):
        return False
    return True


def _v9(x: object) -> bool:
    # evidence#/properties/producer_role/anyOf/1
    if not (x is None):
        return False
    return True


def _v6(x: object) -> bool:
    # evidence#/properties/producer_role
    if not (_v7(x) or _v9(x)):
        return False
    return True


def _v11(x: object) -> bool:
    # defs#/$defs/timestamp
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
    return True


def _v10(x: object) -> bool:
    # evidence#/properties/created_at
    if not _v11(x):
        return False
    return True


def _v12(x: object) -> bool:
    # evidence#/properties/payload
    if not (isinstance(x, dict)):
        return False
    return True


def _v16(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/dispatch_id
    if not _v4(x):
        return False
    return True


def _v18(x: object) -> bool:
    # defs#/$defs/sha256
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
    return True


def _v17(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/dispatch_intent_sha256
    if not _v18(x):
        return False
    return True


def _v19(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/verdict
    if not any(_eq(x, c) for c in _C3):
        return False
    return True


def _v20(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/rationale
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 8192:
            return False
    return True


def _v22(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/argv_sha256
    if not _v18(x):
        return False
    return True


def _v23(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/exit_code
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < -255:
            return False
        if x > 255:
            return False
    return True


def _v24(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/output_sha256
    if not _v18(x):
        return False
    return True


def _v25(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/started_at
    if not _v11(x):
        return False
    return True


def _v26(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/finished_at
    if not _v11(x):
        return False
    return True


def _v21(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('argv_sha256', 'exit_code', 'finished_at', 'output_sha256', 'started_at'):
            if k not in x:
                return False
        if 'argv_sha256' in x and not _v22(x['argv_sha256']):
            return False
        if 'exit_code' in x and not _v23(x['exit_code']):
            return False
        if 'output_sha256' in x and not _v24(x['output_sha256']):
            return False
        if 'started_at' in x and not _v25(x['started_at']):
            return False
        if 'finished_at' in x and not _v26(x['finished_at']):
            return False
        for k in x:
            if k not in ('argv_sha256', 'exit_code', 'output_sha256', 'started_at', 'finished_at'):
                return False
    return True


def _v15(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'dispatch_intent_sha256', 'provenance', 'rationale', 'verdict'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v16(x['dispatch_id']):
            return False
        if 'dispatch_intent_sha256' in x and not _v17(x['dispatch_intent_sha256']):
            return False
        if 'verdict' in x and not _v19(x['verdict']):
            return False
        if 'rationale' in x and not _v20(x['rationale']):
            return False
        if 'provenance' in x and not _v21(x['provenance']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'dispatch_intent_sha256', 'verdict', 'rationale', 'provenance'):
                return False
    return True


def _v14(x: object) -> bool:
    # evidence#/allOf/0/then
    if isinstance(x, dict):
        if 'payload' in x and not _v15(x['payload']):
            return False
    return True


def _v28(x: object) -> bool:
    # evidence#/allOf/0/if/properties/evidence_kind
    if not _eq(x, _C4):
        return False
    return True


def _v27(x: object) -> bool:
    # evidence#/allOf/0/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v28(x['evidence_kind']):
            return False
    return True


def _v13(x: object) -> bool:
    # evidence#/allOf/0
    if _v27(x):
        if not _v14(x):
            return False
    else:
        pass
    return True


def _v32(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/dispatch_id
    if not _v4(x):
        return False
    return True


def _v34(x: object) -> bool:
    # defs#/$defs/uuid
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
    return True


def _v33(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/session_id
    if not _v34(x):
        return False
    return True


def _v35(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/status
    if not any(_eq(x, c) for c in _C5):
        return False
    return True


def _v36(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/summary
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 8192:
            return False
    return True


def _v39(x: object) -> bool:
    # defs#/$defs/commit
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P5, x) is None:
            return False
    return True


def _v38(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/result_commit/anyOf/0
    if not _v39(x):
        return False
    return True


def _v40(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/result_commit/anyOf/1
    if not (x is None):
        return False
    return True


def _v37(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/result_commit
    if not (_v38(x) or _v40(x)):
        return False
    return True


def _v31(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'result_commit', 'session_id', 'status', 'summary'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v32(x['dispatch_id']):
            return False
        if 'session_id' in x and not _v33(x['session_id']):
            return False
        if 'status' in x and not _v35(x['status']):
            return False
        if 'summary' in x and not _v36(x['summary']):
            return False
        if 'result_commit' in x and not _v37(x['result_commit']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'session_id', 'status', 'summary', 'result_commit'):
                return False
    return True


def _v30(x: object) -> bool:
    # evidence#/allOf/1/then
    if isinstance(x, dict):
        if 'payload' in x and not _v31(x['payload']):
            return False
    return True


def _v42(x: object) -> bool:
    # evidence#/allOf/1/if/properties/evidence_kind
    if not _eq(x, _C6):
        return False
    return True


def _v41(x: object) -> bool:
    # evidence#/allOf/1/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v42(x['evidence_kind']):
            return False
    return True


def _v29(x: object) -> bool:
    # evidence#/allOf/1
    if _v41(x):
        if not _v30(x):
            return False
    else:
        pass
    return True


def _v46(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/dispatch_id
    if not _v4(x):
        return False
    return True


def _v47(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/dispatch_intent_sha256
    if not _v18(x):
        return False
    return True


def _v48(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/verdict
    if not any(_eq(x, c) for c in _C7):
        return False
    return True


def _v49(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/person
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


def _v50(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/rationale
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 8192:
            return False
    return True


def _v45(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'dispatch_intent_sha256', 'person', 'rationale', 'verdict'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v46(x['dispatch_id']):
            return False
        if 'dispatch_intent_sha256' in x and not _v47(x['dispatch_intent_sha256']):
            return False
        if 'verdict' in x and not _v48(x['verdict']):
            return False
        if 'person' in x and not _v49(x['person']):
            return False
        if 'rationale' in x and not _v50(x['rationale']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'dispatch_intent_sha256', 'verdict', 'person', 'rationale'):
                return False
    return True


def _v44(x: object) -> bool:
    # evidence#/allOf/2/then
    if isinstance(x, dict):
        if 'payload' in x and not _v45(x['payload']):
            return False
    return True


def _v52(x: object) -> bool:
    # evidence#/allOf/2/if/properties/evidence_kind
    if not _eq(x, _C8):
        return False
    return True


def _v51(x: object) -> bool:
    # evidence#/allOf/2/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v52(x['evidence_kind']):
            return False
    return True


def _v43(x: object) -> bool:
    # evidence#/allOf/2
    if _v51(x):
        if not _v44(x):
            return False
    else:
        pass
    return True


def _v57(x: object) -> bool:
    # defs#/$defs/count
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 1000000:
            return False
    return True


def _v56(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/attempt
    if not _v57(x):
        return False
    return True


def _v58(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/lease_expired_at
    if not _v11(x):
        return False
    return True


def _v60(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/worktree_start_commit/anyOf/0
    if not _v39(x):
        return False
    return True


def _v61(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/worktree_start_commit/anyOf/1
    if not (x is None):
        return False
    return True


def _v59(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/worktree_start_commit
    if not (_v60(x) or _v61(x)):
        return False
    return True


def _v55(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'lease_expired_at', 'worktree_start_commit'):
            if k not in x:
                return False
        if 'attempt' in x and not _v56(x['attempt']):
            return False
        if 'lease_expired_at' in x and not _v58(x['lease_expired_at']):
            return False
        if 'worktree_start_commit' in x and not _v59(x['worktree_start_commit']):
            return False
        for k in x:
            if k not in ('attempt', 'lease_expired_at', 'worktree_start_commit'):
                return False
    return True


def _v54(x: object) -> bool:
    # evidence#/allOf/3/then
    if isinstance(x, dict):
        if 'payload' in x and not _v55(x['payload']):
            return False
    return True


def _v63(x: object) -> bool:
    # evidence#/allOf/3/if/properties/evidence_kind
    if not _eq(x, _C9):
        return False
    return True


def _v62(x: object) -> bool:
    # evidence#/allOf/3/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v63(x['evidence_kind']):
            return False
    return True


def _v53(x: object) -> bool:
    # evidence#/allOf/3
    if _v62(x):
        if not _v54(x):
            return False
    else:
        pass
    return True


def _v0(x: object) -> bool:
    # evidence#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('created_at', 'evidence_kind', 'format', 'payload', 'producer', 'producer_role', 'ticket_id'):
            if k not in x:
                return False
        if 'format' in x and not _v1(x['format']):
            return False
        if 'evidence_kind' in x and not _v2(x['evidence_kind']):
            return False
        if 'ticket_id' in x and not _v3(x['ticket_id']):
            return False
        if 'producer' in x and not _v5(x['producer']):
            return False
        if 'producer_role' in x and not _v6(x['producer_role']):
            return False
        if 'created_at' in x and not _v10(x['created_at']):
            return False
        if 'payload' in x and not _v12(x['payload']):
            return False
        for k in x:
            if k not in ('format', 'evidence_kind', 'ticket_id', 'producer', 'producer_role', 'created_at', 'payload'):
                return False
    if not _v13(x):
        return False
    if not _v29(x):
        return False
    if not _v43(x):
        return False
    if not _v53(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'evidence': _v0,
}
