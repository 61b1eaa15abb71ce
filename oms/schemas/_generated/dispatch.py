"""Predicates of the `dispatch` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs
from oms.schemas._generated import record_envelope as _m_record_envelope

_C0: object = 'dispatch'
_C1: tuple[object, ...] = ('proposed', 'accepted', 'acknowledged', 'result-received', 'resolved', 'rejected', 'cancelled')
_C2: tuple[object, ...] = ('approve', 'reject')
_C3: tuple[object, ...] = ('none', 'host')
_C4: tuple[object, ...] = ('token', 'raw')


def _v346(x: object) -> bool:
    # dispatch#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v347(x: object) -> bool:
    # dispatch#/properties/state
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v349(x: object) -> bool:
    # dispatch#/properties/payload/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v350(x: object) -> bool:
    # dispatch#/properties/payload/properties/ticket_version
    if not _m_defs._v132(x):
        return False
    return True


def _v351(x: object) -> bool:
    # dispatch#/properties/payload/properties/attempt
    if not _m_defs._v11(x):
        return False
    return True


def _v352(x: object) -> bool:
    # dispatch#/properties/payload/properties/worker_id
    if not _m_defs._v7(x):
        return False
    return True


def _v353(x: object) -> bool:
    # dispatch#/properties/payload/properties/worker_record_id
    if not _m_defs._v7(x):
        return False
    return True


def _v354(x: object) -> bool:
    # dispatch#/properties/payload/properties/lease_token
    if not _m_defs._v341(x):
        return False
    return True


def _v355(x: object) -> bool:
    # dispatch#/properties/payload/properties/session_id
    if not _m_defs._v15(x):
        return False
    return True


def _v356(x: object) -> bool:
    # dispatch#/properties/payload/properties/role_id
    if not _m_defs._v17(x):
        return False
    return True


def _v357(x: object) -> bool:
    # dispatch#/properties/payload/properties/model_id
    if not _m_defs._v19(x):
        return False
    return True


def _v358(x: object) -> bool:
    # dispatch#/properties/payload/properties/model_endpoint
    if not _m_defs._v21(x):
        return False
    return True


def _v359(x: object) -> bool:
    # dispatch#/properties/payload/properties/provider_mode
    if not _m_defs._v26(x):
        return False
    return True


def _v360(x: object) -> bool:
    # dispatch#/properties/payload/properties/engine
    if not _m_defs._v28(x):
        return False
    return True


def _v362(x: object) -> bool:
    # dispatch#/properties/payload/properties/capabilities/items
    if not _m_defs._v31(x):
        return False
    return True


def _v361(x: object) -> bool:
    # dispatch#/properties/payload/properties/capabilities
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 8:
            return False
        for v in x:
            if not _v362(v):
                return False
    return True


def _v363(x: object) -> bool:
    # dispatch#/properties/payload/properties/policy_digest
    if not _m_defs._v3(x):
        return False
    return True


def _v364(x: object) -> bool:
    # dispatch#/properties/payload/properties/worktree_id
    if not _m_defs._v7(x):
        return False
    return True


def _v365(x: object) -> bool:
    # dispatch#/properties/payload/properties/worktree_path
    if not _m_defs._v35(x):
        return False
    return True


def _v366(x: object) -> bool:
    # dispatch#/properties/payload/properties/worktree_branch
    if not _m_defs._v37(x):
        return False
    return True


def _v367(x: object) -> bool:
    # dispatch#/properties/payload/properties/worktree_base_commit
    if not _m_defs._v39(x):
        return False
    return True


def _v368(x: object) -> bool:
    # dispatch#/properties/payload/properties/worktree_start_commit
    if not _m_defs._v39(x):
        return False
    return True


def _v369(x: object) -> bool:
    # dispatch#/properties/payload/properties/dispatch_intent_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v371(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_evidence/anyOf/0
    if not _m_defs._v3(x):
        return False
    return True


def _v372(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v370(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_evidence
    if not (_v371(x) or _v372(x)):
        return False
    return True


def _v374(x: object) -> bool:
    # dispatch#/properties/payload/properties/approval_evidence/anyOf/0
    if not _m_defs._v3(x):
        return False
    return True


def _v375(x: object) -> bool:
    # dispatch#/properties/payload/properties/approval_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v373(x: object) -> bool:
    # dispatch#/properties/payload/properties/approval_evidence
    if not (_v374(x) or _v375(x)):
        return False
    return True


def _v377(x: object) -> bool:
    # dispatch#/properties/payload/properties/prior_failure_evidence/anyOf/0
    if not _m_defs._v3(x):
        return False
    return True


def _v378(x: object) -> bool:
    # dispatch#/properties/payload/properties/prior_failure_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v376(x: object) -> bool:
    # dispatch#/properties/payload/properties/prior_failure_evidence
    if not (_v377(x) or _v378(x)):
        return False
    return True


def _v380(x: object) -> bool:
    # dispatch#/properties/payload/properties/result_evidence/anyOf/0
    if not _m_defs._v3(x):
        return False
    return True


def _v381(x: object) -> bool:
    # dispatch#/properties/payload/properties/result_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v379(x: object) -> bool:
    # dispatch#/properties/payload/properties/result_evidence
    if not (_v380(x) or _v381(x)):
        return False
    return True


def _v383(x: object) -> bool:
    # dispatch#/properties/payload/properties/delivery_event_id/anyOf/0
    if not _m_defs._v7(x):
        return False
    return True


def _v384(x: object) -> bool:
    # dispatch#/properties/payload/properties/delivery_event_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v382(x: object) -> bool:
    # dispatch#/properties/payload/properties/delivery_event_id
    if not (_v383(x) or _v384(x)):
        return False
    return True


def _v386(x: object) -> bool:
    # dispatch#/properties/payload/properties/accepted_at/anyOf/0
    if not _m_defs._v118(x):
        return False
    return True


def _v387(x: object) -> bool:
    # dispatch#/properties/payload/properties/accepted_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v385(x: object) -> bool:
    # dispatch#/properties/payload/properties/accepted_at
    if not (_v386(x) or _v387(x)):
        return False
    return True


def _v388(x: object) -> bool:
    # dispatch#/properties/payload/properties/created_at
    if not _m_defs._v118(x):
        return False
    return True


def _v390(x: object) -> bool:
    # dispatch#/properties/payload/properties/reason/anyOf/0
    if not _m_defs._v124(x):
        return False
    return True


def _v391(x: object) -> bool:
    # dispatch#/properties/payload/properties/reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v389(x: object) -> bool:
    # dispatch#/properties/payload/properties/reason
    if not (_v390(x) or _v391(x)):
        return False
    return True


def _v392(x: object) -> bool:
    # dispatch#/properties/payload/properties/ticket_content_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v394(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_verdict/anyOf/0
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v395(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_verdict/anyOf/1
    if not (x is None):
        return False
    return True


def _v393(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_verdict
    if not (_v394(x) or _v395(x)):
        return False
    return True


def _v396(x: object) -> bool:
    # dispatch#/properties/payload/properties/role_sandbox
    if not _m_defs._v45(x):
        return False
    return True


def _v397(x: object) -> bool:
    # dispatch#/properties/payload/properties/role_network
    if not any(_eq(x, c) for c in _C3):
        return False
    return True


def _v398(x: object) -> bool:
    # dispatch#/properties/payload/properties/role_credential
    if not any(_eq(x, c) for c in _C4):
        return False
    return True


def _v399(x: object) -> bool:
    # dispatch#/properties/payload/properties/role_argv
    if not _m_defs._v49(x):
        return False
    return True


def _v400(x: object) -> bool:
    # dispatch#/properties/payload/properties/role_tools
    if not _m_defs._v54(x):
        return False
    return True


def _v401(x: object) -> bool:
    # dispatch#/properties/payload/properties/role_programs
    if not _m_defs._v57(x):
        return False
    return True


def _v402(x: object) -> bool:
    # dispatch#/properties/payload/properties/instructions_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v403(x: object) -> bool:
    # dispatch#/properties/payload/properties/provider_id
    if not _m_defs._v7(x):
        return False
    return True


def _v404(x: object) -> bool:
    # dispatch#/properties/payload/properties/role_limits
    if not _m_defs._v62(x):
        return False
    return True


def _v405(x: object) -> bool:
    # dispatch#/properties/payload/properties/changes_requested
    if not _m_defs._v76(x):
        return False
    return True


def _v348(x: object) -> bool:
    # dispatch#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('accepted_at', 'advisor_evidence', 'advisor_verdict', 'approval_evidence', 'attempt', 'capabilities', 'created_at', 'delivery_event_id', 'dispatch_intent_sha256', 'engine', 'instructions_sha256', 'lease_token', 'model_endpoint', 'model_id', 'policy_digest', 'prior_failure_evidence', 'provider_mode', 'reason', 'result_evidence', 'role_argv', 'role_id', 'role_programs', 'role_sandbox', 'role_tools', 'session_id', 'ticket_content_sha256', 'ticket_id', 'ticket_version', 'worker_id', 'worker_record_id', 'worktree_base_commit', 'worktree_branch', 'worktree_id', 'worktree_path', 'worktree_start_commit'):
            if k not in x:
                return False
        if 'ticket_id' in x and not _v349(x['ticket_id']):
            return False
        if 'ticket_version' in x and not _v350(x['ticket_version']):
            return False
        if 'attempt' in x and not _v351(x['attempt']):
            return False
        if 'worker_id' in x and not _v352(x['worker_id']):
            return False
        if 'worker_record_id' in x and not _v353(x['worker_record_id']):
            return False
        if 'lease_token' in x and not _v354(x['lease_token']):
            return False
        if 'session_id' in x and not _v355(x['session_id']):
            return False
        if 'role_id' in x and not _v356(x['role_id']):
            return False
        if 'model_id' in x and not _v357(x['model_id']):
            return False
        if 'model_endpoint' in x and not _v358(x['model_endpoint']):
            return False
        if 'provider_mode' in x and not _v359(x['provider_mode']):
            return False
        if 'engine' in x and not _v360(x['engine']):
            return False
        if 'capabilities' in x and not _v361(x['capabilities']):
            return False
        if 'policy_digest' in x and not _v363(x['policy_digest']):
            return False
        if 'worktree_id' in x and not _v364(x['worktree_id']):
            return False
        if 'worktree_path' in x and not _v365(x['worktree_path']):
            return False
        if 'worktree_branch' in x and not _v366(x['worktree_branch']):
            return False
        if 'worktree_base_commit' in x and not _v367(x['worktree_base_commit']):
            return False
        if 'worktree_start_commit' in x and not _v368(x['worktree_start_commit']):
            return False
        if 'dispatch_intent_sha256' in x and not _v369(x['dispatch_intent_sha256']):
            return False
        if 'advisor_evidence' in x and not _v370(x['advisor_evidence']):
            return False
        if 'approval_evidence' in x and not _v373(x['approval_evidence']):
            return False
        if 'prior_failure_evidence' in x and not _v376(x['prior_failure_evidence']):
            return False
        if 'result_evidence' in x and not _v379(x['result_evidence']):
            return False
        if 'delivery_event_id' in x and not _v382(x['delivery_event_id']):
            return False
        if 'accepted_at' in x and not _v385(x['accepted_at']):
            return False
        if 'created_at' in x and not _v388(x['created_at']):
            return False
        if 'reason' in x and not _v389(x['reason']):
            return False
        if 'ticket_content_sha256' in x and not _v392(x['ticket_content_sha256']):
            return False
        if 'advisor_verdict' in x and not _v393(x['advisor_verdict']):
            return False
        if 'role_sandbox' in x and not _v396(x['role_sandbox']):
            return False
        if 'role_network' in x and not _v397(x['role_network']):
            return False
        if 'role_credential' in x and not _v398(x['role_credential']):
            return False
        if 'role_argv' in x and not _v399(x['role_argv']):
            return False
        if 'role_tools' in x and not _v400(x['role_tools']):
            return False
        if 'role_programs' in x and not _v401(x['role_programs']):
            return False
        if 'instructions_sha256' in x and not _v402(x['instructions_sha256']):
            return False
        if 'provider_id' in x and not _v403(x['provider_id']):
            return False
        if 'role_limits' in x and not _v404(x['role_limits']):
            return False
        if 'changes_requested' in x and not _v405(x['changes_requested']):
            return False
        for k in x:
            if k not in ('ticket_id', 'ticket_version', 'attempt', 'worker_id', 'worker_record_id', 'lease_token', 'session_id', 'role_id', 'model_id', 'model_endpoint', 'provider_mode', 'engine', 'capabilities', 'policy_digest', 'worktree_id', 'worktree_path', 'worktree_branch', 'worktree_base_commit', 'worktree_start_commit', 'dispatch_intent_sha256', 'advisor_evidence', 'approval_evidence', 'prior_failure_evidence', 'result_evidence', 'delivery_event_id', 'accepted_at', 'created_at', 'reason', 'ticket_content_sha256', 'advisor_verdict', 'role_sandbox', 'role_network', 'role_credential', 'role_argv', 'role_tools', 'role_programs', 'instructions_sha256', 'provider_id', 'role_limits', 'changes_requested'):
                return False
    return True


def _v406(x: object) -> bool:
    # dispatch#/allOf/0
    if not _m_record_envelope._v127(x):
        return False
    return True


def _v345(x: object) -> bool:
    # dispatch#
    if isinstance(x, dict):
        if 'kind' in x and not _v346(x['kind']):
            return False
        if 'state' in x and not _v347(x['state']):
            return False
        if 'payload' in x and not _v348(x['payload']):
            return False
    if not _v406(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'dispatch': _v345,
}
