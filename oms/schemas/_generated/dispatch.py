"""Predicates of the `dispatch` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

_P0 = '^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$'
_P1 = '^[0-9a-f]{32,64}$'
_P2 = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
_P3 = '^[a-z][a-z0-9-]{0,30}(?:\\.[a-z][a-z0-9-]{0,30}){0,3}$'
_P4 = '^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$'
_P5 = '^(https://[A-Za-z0-9.-]+(:[0-9]{1,5})?|http://(127\\.0\\.0\\.1|localhost|\\[::1\\])(:[0-9]{1,5})?)(/[A-Za-z0-9._~%/-]*)?$'
_P6 = '^[0-9a-f]{64}$'
_P7 = '^/[^\\u0000-\\u001f\\u007f]*$'
_P8 = '^oms/[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$'
_P9 = '^[0-9a-f]{40}(?:[0-9a-f]{24})?$'
_P10 = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'
_P11 = '^[^\\u0000-\\u001f\\u007f]*$'
_P12 = '^[a-z][a-z-]{0,31}$'
_P13 = '^[a-z][a-z0-9-]{0,62}(?:[.:][a-z0-9][a-z0-9-]{0,62}){0,3}$'
_C0: object = 'dispatch'
_C1: tuple[object, ...] = ('proposed', 'accepted', 'acknowledged', 'result-received', 'resolved', 'rejected', 'cancelled')
_C2: tuple[object, ...] = ('claude_interactive', 'claude_print', 'codex_exec', 'codex_goal', 'command')
_C3: tuple[object, ...] = ('codex', 'claude', 'command')
_C4: tuple[object, ...] = ('repository-read', 'ticket-worktree-write')
_C5: tuple[object, ...] = ('approve', 'reject')
_C6: object = 'oms-record-v1'
_C7: tuple[object, ...] = ('authorization', 'dispatch', 'session', 'ticket', 'worker')


def _v1(x: object) -> bool:
    # dispatch#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v2(x: object) -> bool:
    # dispatch#/properties/state
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
    # dispatch#/properties/payload/properties/ticket_id
    if not _v5(x):
        return False
    return True


def _v7(x: object) -> bool:
    # defs#/$defs/version
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v6(x: object) -> bool:
    # dispatch#/properties/payload/properties/ticket_version
    if not _v7(x):
        return False
    return True


def _v9(x: object) -> bool:
    # defs#/$defs/count
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 1000000:
            return False
    return True


def _v8(x: object) -> bool:
    # dispatch#/properties/payload/properties/attempt
    if not _v9(x):
        return False
    return True


def _v10(x: object) -> bool:
    # dispatch#/properties/payload/properties/worker_id
    if not _v5(x):
        return False
    return True


def _v11(x: object) -> bool:
    # dispatch#/properties/payload/properties/worker_record_id
    if not _v5(x):
        return False
    return True


def _v13(x: object) -> bool:
    # defs#/$defs/token
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
    return True


def _v12(x: object) -> bool:
    # dispatch#/properties/payload/properties/lease_token
    if not _v13(x):
        return False
    return True


def _v15(x: object) -> bool:
    # defs#/$defs/uuid
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
    return True


def _v14(x: object) -> bool:
    # dispatch#/properties/payload/properties/session_id
    if not _v15(x):
        return False
    return True


def _v17(x: object) -> bool:
    # defs#/$defs/role_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 127:
            return False
    return True


def _v16(x: object) -> bool:
    # dispatch#/properties/payload/properties/role_id
    if not _v17(x):
        return False
    return True


def _v19(x: object) -> bool:
    # defs#/$defs/model_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v18(x: object) -> bool:
    # dispatch#/properties/payload/properties/model_id
    if not _v19(x):
        return False
    return True


def _v23(x: object) -> bool:
    # defs#/$defs/model_endpoint
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P5, x) is None:
            return False
        if len(x) < 8:
            return False
        if len(x) > 512:
            return False
    return True


def _v22(x: object) -> bool:
    # defs#/$defs/model_endpoint_or_null/anyOf/0
    if not _v23(x):
        return False
    return True


def _v24(x: object) -> bool:
    # defs#/$defs/model_endpoint_or_null/anyOf/1
    if not (x is None):
        return False
    return True


def _v21(x: object) -> bool:
    # defs#/$defs/model_endpoint_or_null
    if not (_v22(x) or _v24(x)):
        return False
    return True


def _v20(x: object) -> bool:
    # dispatch#/properties/payload/properties/model_endpoint
    if not _v21(x):
        return False
    return True


def _v26(x: object) -> bool:
    # defs#/$defs/transport
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v25(x: object) -> bool:
    # dispatch#/properties/payload/properties/provider_mode
    if not _v26(x):
        return False
    return True


def _v28(x: object) -> bool:
    # defs#/$defs/engine
    if not any(_eq(x, c) for c in _C3):
        return False
    return True


def _v27(x: object) -> bool:
    # dispatch#/properties/payload/properties/engine
    if not _v28(x):
        return False
    return True


def _v31(x: object) -> bool:
    # defs#/$defs/capability
    if not any(_eq(x, c) for c in _C4):
        return False
    return True


def _v30(x: object) -> bool:
    # dispatch#/properties/payload/properties/capabilities/items
    if not _v31(x):
        return False
    return True


def _v29(x: object) -> bool:
    # dispatch#/properties/payload/properties/capabilities
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 8:
            return False
        for v in x:
            if not _v30(v):
                return False
    return True


def _v33(x: object) -> bool:
    # defs#/$defs/sha256
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P6, x) is None:
            return False
    return True


def _v32(x: object) -> bool:
    # dispatch#/properties/payload/properties/policy_digest
    if not _v33(x):
        return False
    return True


def _v34(x: object) -> bool:
    # dispatch#/properties/payload/properties/worktree_id
    if not _v5(x):
        return False
    return True


def _v36(x: object) -> bool:
    # defs#/$defs/abs_path
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P7, x) is None:
            return False
        if len(x) < 2:
            return False
        if len(x) > 4096:
            return False
    return True


def _v35(x: object) -> bool:
    # dispatch#/properties/payload/properties/worktree_path
    if not _v36(x):
        return False
    return True


def _v38(x: object) -> bool:
    # defs#/$defs/branch
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P8, x) is None:
            return False
        if len(x) > 160:
            return False
    return True


def _v37(x: object) -> bool:
    # dispatch#/properties/payload/properties/worktree_branch
    if not _v38(x):
        return False
    return True


def _v40(x: object) -> bool:
    # defs#/$defs/commit
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P9, x) is None:
            return False
    return True


def _v39(x: object) -> bool:
    # dispatch#/properties/payload/properties/worktree_base_commit
    if not _v40(x):
        return False
    return True


def _v41(x: object) -> bool:
    # dispatch#/properties/payload/properties/worktree_start_commit
    if not _v40(x):
        return False
    return True


def _v42(x: object) -> bool:
    # dispatch#/properties/payload/properties/dispatch_intent_sha256
    if not _v33(x):
        return False
    return True


def _v44(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_evidence/anyOf/0
    if not _v33(x):
        return False
    return True


def _v45(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v43(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_evidence
    if not (_v44(x) or _v45(x)):
        return False
    return True


def _v47(x: object) -> bool:
    # dispatch#/properties/payload/properties/approval_evidence/anyOf/0
    if not _v33(x):
        return False
    return True


def _v48(x: object) -> bool:
    # dispatch#/properties/payload/properties/approval_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v46(x: object) -> bool:
    # dispatch#/properties/payload/properties/approval_evidence
    if not (_v47(x) or _v48(x)):
        return False
    return True


def _v50(x: object) -> bool:
    # dispatch#/properties/payload/properties/prior_failure_evidence/anyOf/0
    if not _v33(x):
        return False
    return True


def _v51(x: object) -> bool:
    # dispatch#/properties/payload/properties/prior_failure_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v49(x: object) -> bool:
    # dispatch#/properties/payload/properties/prior_failure_evidence
    if not (_v50(x) or _v51(x)):
        return False
    return True


def _v53(x: object) -> bool:
    # dispatch#/properties/payload/properties/result_evidence/anyOf/0
    if not _v33(x):
        return False
    return True


def _v54(x: object) -> bool:
    # dispatch#/properties/payload/properties/result_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v52(x: object) -> bool:
    # dispatch#/properties/payload/properties/result_evidence
    if not (_v53(x) or _v54(x)):
        return False
    return True


def _v56(x: object) -> bool:
    # dispatch#/properties/payload/properties/delivery_event_id/anyOf/0
    if not _v5(x):
        return False
    return True


def _v57(x: object) -> bool:
    # dispatch#/properties/payload/properties/delivery_event_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v55(x: object) -> bool:
    # dispatch#/properties/payload/properties/delivery_event_id
    if not (_v56(x) or _v57(x)):
        return False
    return True


def _v60(x: object) -> bool:
    # defs#/$defs/timestamp
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P10, x) is None:
            return False
    return True


def _v59(x: object) -> bool:
    # dispatch#/properties/payload/properties/accepted_at/anyOf/0
    if not _v60(x):
        return False
    return True


def _v61(x: object) -> bool:
    # dispatch#/properties/payload/properties/accepted_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v58(x: object) -> bool:
    # dispatch#/properties/payload/properties/accepted_at
    if not (_v59(x) or _v61(x)):
        return False
    return True


def _v62(x: object) -> bool:
    # dispatch#/properties/payload/properties/created_at
    if not _v60(x):
        return False
    return True


def _v65(x: object) -> bool:
    # defs#/$defs/reason
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P11, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 512:
            return False
    return True


def _v64(x: object) -> bool:
    # dispatch#/properties/payload/properties/reason/anyOf/0
    if not _v65(x):
        return False
    return True


def _v66(x: object) -> bool:
    # dispatch#/properties/payload/properties/reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v63(x: object) -> bool:
    # dispatch#/properties/payload/properties/reason
    if not (_v64(x) or _v66(x)):
        return False
    return True


def _v67(x: object) -> bool:
    # dispatch#/properties/payload/properties/ticket_content_sha256
    if not _v33(x):
        return False
    return True


def _v69(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_verdict/anyOf/0
    if not any(_eq(x, c) for c in _C5):
        return False
    return True


def _v70(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_verdict/anyOf/1
    if not (x is None):
        return False
    return True


def _v68(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_verdict
    if not (_v69(x) or _v70(x)):
        return False
    return True


def _v3(x: object) -> bool:
    # dispatch#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('accepted_at', 'advisor_evidence', 'advisor_verdict', 'approval_evidence', 'attempt', 'capabilities', 'created_at', 'delivery_event_id', 'dispatch_intent_sha256', 'engine', 'lease_token', 'model_endpoint', 'model_id', 'policy_digest', 'prior_failure_evidence', 'provider_mode', 'reason', 'result_evidence', 'role_id', 'session_id', 'ticket_content_sha256', 'ticket_id', 'ticket_version', 'worker_id', 'worker_record_id', 'worktree_base_commit', 'worktree_branch', 'worktree_id', 'worktree_path', 'worktree_start_commit'):
            if k not in x:
                return False
        if 'ticket_id' in x and not _v4(x['ticket_id']):
            return False
        if 'ticket_version' in x and not _v6(x['ticket_version']):
            return False
        if 'attempt' in x and not _v8(x['attempt']):
            return False
        if 'worker_id' in x and not _v10(x['worker_id']):
            return False
        if 'worker_record_id' in x and not _v11(x['worker_record_id']):
            return False
        if 'lease_token' in x and not _v12(x['lease_token']):
            return False
        if 'session_id' in x and not _v14(x['session_id']):
            return False
        if 'role_id' in x and not _v16(x['role_id']):
            return False
        if 'model_id' in x and not _v18(x['model_id']):
            return False
        if 'model_endpoint' in x and not _v20(x['model_endpoint']):
            return False
        if 'provider_mode' in x and not _v25(x['provider_mode']):
            return False
        if 'engine' in x and not _v27(x['engine']):
            return False
        if 'capabilities' in x and not _v29(x['capabilities']):
            return False
        if 'policy_digest' in x and not _v32(x['policy_digest']):
            return False
        if 'worktree_id' in x and not _v34(x['worktree_id']):
            return False
        if 'worktree_path' in x and not _v35(x['worktree_path']):
            return False
        if 'worktree_branch' in x and not _v37(x['worktree_branch']):
            return False
        if 'worktree_base_commit' in x and not _v39(x['worktree_base_commit']):
            return False
        if 'worktree_start_commit' in x and not _v41(x['worktree_start_commit']):
            return False
        if 'dispatch_intent_sha256' in x and not _v42(x['dispatch_intent_sha256']):
            return False
        if 'advisor_evidence' in x and not _v43(x['advisor_evidence']):
            return False
        if 'approval_evidence' in x and not _v46(x['approval_evidence']):
            return False
        if 'prior_failure_evidence' in x and not _v49(x['prior_failure_evidence']):
            return False
        if 'result_evidence' in x and not _v52(x['result_evidence']):
            return False
        if 'delivery_event_id' in x and not _v55(x['delivery_event_id']):
            return False
        if 'accepted_at' in x and not _v58(x['accepted_at']):
            return False
        if 'created_at' in x and not _v62(x['created_at']):
            return False
        if 'reason' in x and not _v63(x['reason']):
            return False
        if 'ticket_content_sha256' in x and not _v67(x['ticket_content_sha256']):
            return False
        if 'advisor_verdict' in x and not _v68(x['advisor_verdict']):
            return False
        for k in x:
            if k not in ('ticket_id', 'ticket_version', 'attempt', 'worker_id', 'worker_record_id', 'lease_token', 'session_id', 'role_id', 'model_id', 'model_endpoint', 'provider_mode', 'engine', 'capabilities', 'policy_digest', 'worktree_id', 'worktree_path', 'worktree_branch', 'worktree_base_commit', 'worktree_start_commit', 'dispatch_intent_sha256', 'advisor_evidence', 'approval_evidence', 'prior_failure_evidence', 'result_evidence', 'delivery_event_id', 'accepted_at', 'created_at', 'reason', 'ticket_content_sha256', 'advisor_verdict'):
                return False
    return True


def _v73(x: object) -> bool:
    # record-envelope#/properties/format
    if not _eq(x, _C6):
        return False
    return True


def _v74(x: object) -> bool:
    # record-envelope#/properties/kind
    if not any(_eq(x, c) for c in _C7):
        return False
    return True


def _v75(x: object) -> bool:
    # record-envelope#/properties/record_id
    if not _v5(x):
        return False
    return True


def _v76(x: object) -> bool:
    # record-envelope#/properties/version
    if not _v7(x):
        return False
    return True


def _v77(x: object) -> bool:
    # record-envelope#/properties/state
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P12, x) is None:
            return False
    return True


def _v79(x: object) -> bool:
    # record-envelope#/properties/expected_version/anyOf/0
    if not _v7(x):
        return False
    return True


def _v80(x: object) -> bool:
    # record-envelope#/properties/expected_version/anyOf/1
    if not (x is None):
        return False
    return True


def _v78(x: object) -> bool:
    # record-envelope#/properties/expected_version
    if not (_v79(x) or _v80(x)):
        return False
    return True


def _v81(x: object) -> bool:
    # record-envelope#/properties/operation_id
    if not _v5(x):
        return False
    return True


def _v83(x: object) -> bool:
    # defs#/$defs/actor
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P13, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v82(x: object) -> bool:
    # record-envelope#/properties/actor
    if not _v83(x):
        return False
    return True


def _v84(x: object) -> bool:
    # record-envelope#/properties/observed_at
    if not _v60(x):
        return False
    return True


def _v86(x: object) -> bool:
    # record-envelope#/properties/previous_sha256/anyOf/0
    if not _v33(x):
        return False
    return True


def _v87(x: object) -> bool:
    # record-envelope#/properties/previous_sha256/anyOf/1
    if not (x is None):
        return False
    return True


def _v85(x: object) -> bool:
    # record-envelope#/properties/previous_sha256
    if not (_v86(x) or _v87(x)):
        return False
    return True


def _v88(x: object) -> bool:
    # record-envelope#/properties/payload
    if not (isinstance(x, dict)):
        return False
    return True


def _v72(x: object) -> bool:
    # record-envelope#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('actor', 'expected_version', 'format', 'kind', 'observed_at', 'operation_id', 'payload', 'previous_sha256', 'record_id', 'state', 'version'):
            if k not in x:
                return False
        if 'format' in x and not _v73(x['format']):
            return False
        if 'kind' in x and not _v74(x['kind']):
            return False
        if 'record_id' in x and not _v75(x['record_id']):
            return False
        if 'version' in x and not _v76(x['version']):
            return False
        if 'state' in x and not _v77(x['state']):
            return False
        if 'expected_version' in x and not _v78(x['expected_version']):
            return False
        if 'operation_id' in x and not _v81(x['operation_id']):
            return False
        if 'actor' in x and not _v82(x['actor']):
            return False
        if 'observed_at' in x and not _v84(x['observed_at']):
            return False
        if 'previous_sha256' in x and not _v85(x['previous_sha256']):
            return False
        if 'payload' in x and not _v88(x['payload']):
            return False
        for k in x:
            if k not in ('format', 'kind', 'record_id', 'version', 'state', 'expected_version', 'operation_id', 'actor', 'observed_at', 'previous_sha256', 'payload'):
                return False
    return True


def _v71(x: object) -> bool:
    # dispatch#/allOf/0
    if not _v72(x):
        return False
    return True


def _v0(x: object) -> bool:
    # dispatch#
    if isinstance(x, dict):
        if 'kind' in x and not _v1(x['kind']):
            return False
        if 'state' in x and not _v2(x['state']):
            return False
        if 'payload' in x and not _v3(x['payload']):
            return False
    if not _v71(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'dispatch': _v0,
}
