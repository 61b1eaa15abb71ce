"""Predicates of the `dispatch-intent` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

_P0 = '^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$'
_P1 = '^[0-9a-f]{64}$'
_P2 = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
_P3 = '^[a-z][a-z0-9-]{0,30}(?:\\.[a-z][a-z0-9-]{0,30}){0,3}$'
_P4 = '^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$'
_P5 = '^(https://[A-Za-z0-9.-]+(:[0-9]{1,5})?|http://(127\\.0\\.0\\.1|localhost|\\[::1\\])(:[0-9]{1,5})?)(/[A-Za-z0-9._~%/-]*)?$'
_P6 = '^/[^\\u0000-\\u001f\\u007f]*$'
_P7 = '^oms/[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$'
_P8 = '^[0-9a-f]{40}(?:[0-9a-f]{24})?$'
_C0: tuple[object, ...] = ('claude_interactive', 'claude_print', 'codex_exec', 'codex_goal', 'command')
_C1: tuple[object, ...] = ('codex', 'claude', 'command')
_C2: tuple[object, ...] = ('repository-read', 'ticket-worktree-write')


def _v2(x: object) -> bool:
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


def _v1(x: object) -> bool:
    # dispatch-intent#/properties/dispatch_id
    if not _v2(x):
        return False
    return True


def _v3(x: object) -> bool:
    # dispatch-intent#/properties/ticket_id
    if not _v2(x):
        return False
    return True


def _v5(x: object) -> bool:
    # defs#/$defs/sha256
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
    return True


def _v4(x: object) -> bool:
    # dispatch-intent#/properties/ticket_content_sha256
    if not _v5(x):
        return False
    return True


def _v7(x: object) -> bool:
    # defs#/$defs/count
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 1000000:
            return False
    return True


def _v6(x: object) -> bool:
    # dispatch-intent#/properties/attempt
    if not _v7(x):
        return False
    return True


def _v8(x: object) -> bool:
    # dispatch-intent#/properties/worker_id
    if not _v2(x):
        return False
    return True


def _v9(x: object) -> bool:
    # dispatch-intent#/properties/lease_token_sha256
    if not _v5(x):
        return False
    return True


def _v11(x: object) -> bool:
    # defs#/$defs/uuid
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
    return True


def _v10(x: object) -> bool:
    # dispatch-intent#/properties/session_id
    if not _v11(x):
        return False
    return True


def _v13(x: object) -> bool:
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


def _v12(x: object) -> bool:
    # dispatch-intent#/properties/role_id
    if not _v13(x):
        return False
    return True


def _v15(x: object) -> bool:
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


def _v14(x: object) -> bool:
    # dispatch-intent#/properties/model_id
    if not _v15(x):
        return False
    return True


def _v19(x: object) -> bool:
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


def _v18(x: object) -> bool:
    # defs#/$defs/model_endpoint_or_null/anyOf/0
    if not _v19(x):
        return False
    return True


def _v20(x: object) -> bool:
    # defs#/$defs/model_endpoint_or_null/anyOf/1
    if not (x is None):
        return False
    return True


def _v17(x: object) -> bool:
    # defs#/$defs/model_endpoint_or_null
    if not (_v18(x) or _v20(x)):
        return False
    return True


def _v16(x: object) -> bool:
    # dispatch-intent#/properties/model_endpoint
    if not _v17(x):
        return False
    return True


def _v22(x: object) -> bool:
    # defs#/$defs/transport
    if not any(_eq(x, c) for c in _C0):
        return False
    return True


def _v21(x: object) -> bool:
    # dispatch-intent#/properties/provider_mode
    if not _v22(x):
        return False
    return True


def _v24(x: object) -> bool:
    # defs#/$defs/engine
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v23(x: object) -> bool:
    # dispatch-intent#/properties/engine
    if not _v24(x):
        return False
    return True


def _v27(x: object) -> bool:
    # defs#/$defs/capability
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v26(x: object) -> bool:
    # dispatch-intent#/properties/capabilities/items
    if not _v27(x):
        return False
    return True


def _v25(x: object) -> bool:
    # dispatch-intent#/properties/capabilities
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 8:
            return False
        for v in x:
            if not _v26(v):
                return False
    return True


def _v28(x: object) -> bool:
    # dispatch-intent#/properties/policy_digest
    if not _v5(x):
        return False
    return True


def _v29(x: object) -> bool:
    # dispatch-intent#/properties/worktree_id
    if not _v2(x):
        return False
    return True


def _v31(x: object) -> bool:
    # defs#/$defs/abs_path
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P6, x) is None:
            return False
        if len(x) < 2:
            return False
        if len(x) > 4096:
            return False
    return True


def _v30(x: object) -> bool:
    # dispatch-intent#/properties/worktree_path
    if not _v31(x):
        return False
    return True


def _v33(x: object) -> bool:
    # defs#/$defs/branch
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P7, x) is None:
            return False
        if len(x) > 160:
            return False
    return True


def _v32(x: object) -> bool:
    # dispatch-intent#/properties/worktree_branch
    if not _v33(x):
        return False
    return True


def _v35(x: object) -> bool:
    # defs#/$defs/commit
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P8, x) is None:
            return False
    return True


def _v34(x: object) -> bool:
    # dispatch-intent#/properties/worktree_base_commit
    if not _v35(x):
        return False
    return True


def _v36(x: object) -> bool:
    # dispatch-intent#/properties/worktree_start_commit
    if not _v35(x):
        return False
    return True


def _v38(x: object) -> bool:
    # dispatch-intent#/properties/prior_failure_evidence/anyOf/0
    if not _v5(x):
        return False
    return True


def _v39(x: object) -> bool:
    # dispatch-intent#/properties/prior_failure_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v37(x: object) -> bool:
    # dispatch-intent#/properties/prior_failure_evidence
    if not (_v38(x) or _v39(x)):
        return False
    return True


def _v0(x: object) -> bool:
    # dispatch-intent#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'capabilities', 'dispatch_id', 'engine', 'lease_token_sha256', 'model_endpoint', 'model_id', 'policy_digest', 'prior_failure_evidence', 'provider_mode', 'role_id', 'session_id', 'ticket_content_sha256', 'ticket_id', 'worker_id', 'worktree_base_commit', 'worktree_branch', 'worktree_id', 'worktree_path', 'worktree_start_commit'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v1(x['dispatch_id']):
            return False
        if 'ticket_id' in x and not _v3(x['ticket_id']):
            return False
        if 'ticket_content_sha256' in x and not _v4(x['ticket_content_sha256']):
            return False
        if 'attempt' in x and not _v6(x['attempt']):
            return False
        if 'worker_id' in x and not _v8(x['worker_id']):
            return False
        if 'lease_token_sha256' in x and not _v9(x['lease_token_sha256']):
            return False
        if 'session_id' in x and not _v10(x['session_id']):
            return False
        if 'role_id' in x and not _v12(x['role_id']):
            return False
        if 'model_id' in x and not _v14(x['model_id']):
            return False
        if 'model_endpoint' in x and not _v16(x['model_endpoint']):
            return False
        if 'provider_mode' in x and not _v21(x['provider_mode']):
            return False
        if 'engine' in x and not _v23(x['engine']):
            return False
        if 'capabilities' in x and not _v25(x['capabilities']):
            return False
        if 'policy_digest' in x and not _v28(x['policy_digest']):
            return False
        if 'worktree_id' in x and not _v29(x['worktree_id']):
            return False
        if 'worktree_path' in x and not _v30(x['worktree_path']):
            return False
        if 'worktree_branch' in x and not _v32(x['worktree_branch']):
            return False
        if 'worktree_base_commit' in x and not _v34(x['worktree_base_commit']):
            return False
        if 'worktree_start_commit' in x and not _v36(x['worktree_start_commit']):
            return False
        if 'prior_failure_evidence' in x and not _v37(x['prior_failure_evidence']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'ticket_id', 'ticket_content_sha256', 'attempt', 'worker_id', 'lease_token_sha256', 'session_id', 'role_id', 'model_id', 'model_endpoint', 'provider_mode', 'engine', 'capabilities', 'policy_digest', 'worktree_id', 'worktree_path', 'worktree_branch', 'worktree_base_commit', 'worktree_start_commit', 'prior_failure_evidence'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'dispatch-intent': _v0,
}
