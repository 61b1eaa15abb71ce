"""Predicates of the `dispatch-intent` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: tuple[object, ...] = ('none', 'host')
_C1: tuple[object, ...] = ('token', 'raw')


def _v6(x: object) -> bool:
    # dispatch-intent#/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v8(x: object) -> bool:
    # dispatch-intent#/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v9(x: object) -> bool:
    # dispatch-intent#/properties/ticket_content_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v10(x: object) -> bool:
    # dispatch-intent#/properties/attempt
    if not _m_defs._v11(x):
        return False
    return True


def _v12(x: object) -> bool:
    # dispatch-intent#/properties/worker_id
    if not _m_defs._v7(x):
        return False
    return True


def _v13(x: object) -> bool:
    # dispatch-intent#/properties/lease_token_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v14(x: object) -> bool:
    # dispatch-intent#/properties/session_id
    if not _m_defs._v15(x):
        return False
    return True


def _v16(x: object) -> bool:
    # dispatch-intent#/properties/role_id
    if not _m_defs._v17(x):
        return False
    return True


def _v18(x: object) -> bool:
    # dispatch-intent#/properties/model_id
    if not _m_defs._v19(x):
        return False
    return True


def _v20(x: object) -> bool:
    # dispatch-intent#/properties/model_endpoint
    if not _m_defs._v21(x):
        return False
    return True


def _v25(x: object) -> bool:
    # dispatch-intent#/properties/provider_mode
    if not _m_defs._v26(x):
        return False
    return True


def _v27(x: object) -> bool:
    # dispatch-intent#/properties/engine
    if not _m_defs._v28(x):
        return False
    return True


def _v30(x: object) -> bool:
    # dispatch-intent#/properties/capabilities/items
    if not _m_defs._v31(x):
        return False
    return True


def _v29(x: object) -> bool:
    # dispatch-intent#/properties/capabilities
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 8:
            return False
        for v in x:
            if not _v30(v):
                return False
    return True


def _v32(x: object) -> bool:
    # dispatch-intent#/properties/policy_digest
    if not _m_defs._v3(x):
        return False
    return True


def _v33(x: object) -> bool:
    # dispatch-intent#/properties/worktree_id
    if not _m_defs._v7(x):
        return False
    return True


def _v34(x: object) -> bool:
    # dispatch-intent#/properties/worktree_path
    if not _m_defs._v35(x):
        return False
    return True


def _v36(x: object) -> bool:
    # dispatch-intent#/properties/worktree_branch
    if not _m_defs._v37(x):
        return False
    return True


def _v38(x: object) -> bool:
    # dispatch-intent#/properties/worktree_base_commit
    if not _m_defs._v39(x):
        return False
    return True


def _v40(x: object) -> bool:
    # dispatch-intent#/properties/worktree_start_commit
    if not _m_defs._v39(x):
        return False
    return True


def _v42(x: object) -> bool:
    # dispatch-intent#/properties/prior_failure_evidence/anyOf/0
    if not _m_defs._v3(x):
        return False
    return True


def _v43(x: object) -> bool:
    # dispatch-intent#/properties/prior_failure_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v41(x: object) -> bool:
    # dispatch-intent#/properties/prior_failure_evidence
    if not (_v42(x) or _v43(x)):
        return False
    return True


def _v44(x: object) -> bool:
    # dispatch-intent#/properties/role_sandbox
    if not _m_defs._v45(x):
        return False
    return True


def _v46(x: object) -> bool:
    # dispatch-intent#/properties/role_network
    if not any(_eq(x, c) for c in _C0):
        return False
    return True


def _v47(x: object) -> bool:
    # dispatch-intent#/properties/role_credential
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v48(x: object) -> bool:
    # dispatch-intent#/properties/role_argv
    if not _m_defs._v49(x):
        return False
    return True


def _v53(x: object) -> bool:
    # dispatch-intent#/properties/role_tools
    if not _m_defs._v54(x):
        return False
    return True


def _v56(x: object) -> bool:
    # dispatch-intent#/properties/role_programs
    if not _m_defs._v57(x):
        return False
    return True


def _v59(x: object) -> bool:
    # dispatch-intent#/properties/instructions_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v60(x: object) -> bool:
    # dispatch-intent#/properties/provider_id
    if not _m_defs._v7(x):
        return False
    return True


def _v61(x: object) -> bool:
    # dispatch-intent#/properties/role_limits
    if not _m_defs._v62(x):
        return False
    return True


def _v75(x: object) -> bool:
    # dispatch-intent#/properties/changes_requested
    if not _m_defs._v76(x):
        return False
    return True


def _v5(x: object) -> bool:
    # dispatch-intent#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'capabilities', 'dispatch_id', 'engine', 'instructions_sha256', 'lease_token_sha256', 'model_endpoint', 'model_id', 'policy_digest', 'prior_failure_evidence', 'provider_mode', 'role_argv', 'role_id', 'role_programs', 'role_sandbox', 'role_tools', 'session_id', 'ticket_content_sha256', 'ticket_id', 'worker_id', 'worktree_base_commit', 'worktree_branch', 'worktree_id', 'worktree_path', 'worktree_start_commit'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v6(x['dispatch_id']):
            return False
        if 'ticket_id' in x and not _v8(x['ticket_id']):
            return False
        if 'ticket_content_sha256' in x and not _v9(x['ticket_content_sha256']):
            return False
        if 'attempt' in x and not _v10(x['attempt']):
            return False
        if 'worker_id' in x and not _v12(x['worker_id']):
            return False
        if 'lease_token_sha256' in x and not _v13(x['lease_token_sha256']):
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
        if 'worktree_id' in x and not _v33(x['worktree_id']):
            return False
        if 'worktree_path' in x and not _v34(x['worktree_path']):
            return False
        if 'worktree_branch' in x and not _v36(x['worktree_branch']):
            return False
        if 'worktree_base_commit' in x and not _v38(x['worktree_base_commit']):
            return False
        if 'worktree_start_commit' in x and not _v40(x['worktree_start_commit']):
            return False
        if 'prior_failure_evidence' in x and not _v41(x['prior_failure_evidence']):
            return False
        if 'role_sandbox' in x and not _v44(x['role_sandbox']):
            return False
        if 'role_network' in x and not _v46(x['role_network']):
            return False
        if 'role_credential' in x and not _v47(x['role_credential']):
            return False
        if 'role_argv' in x and not _v48(x['role_argv']):
            return False
        if 'role_tools' in x and not _v53(x['role_tools']):
            return False
        if 'role_programs' in x and not _v56(x['role_programs']):
            return False
        if 'instructions_sha256' in x and not _v59(x['instructions_sha256']):
            return False
        if 'provider_id' in x and not _v60(x['provider_id']):
            return False
        if 'role_limits' in x and not _v61(x['role_limits']):
            return False
        if 'changes_requested' in x and not _v75(x['changes_requested']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'ticket_id', 'ticket_content_sha256', 'attempt', 'worker_id', 'lease_token_sha256', 'session_id', 'role_id', 'model_id', 'model_endpoint', 'provider_mode', 'engine', 'capabilities', 'policy_digest', 'worktree_id', 'worktree_path', 'worktree_branch', 'worktree_base_commit', 'worktree_start_commit', 'prior_failure_evidence', 'role_sandbox', 'role_network', 'role_credential', 'role_argv', 'role_tools', 'role_programs', 'instructions_sha256', 'provider_id', 'role_limits', 'changes_requested'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'dispatch-intent': _v5,
}
