"""Validators generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

import re
from collections.abc import Callable

SOURCE_SHA256 = '881d2e7365bca7b01f723cd39d1d91b3da05886bb8d4dd84b705055f94c5d49a'


def _is_integer(x: object) -> bool:
    return (isinstance(x, int) and not isinstance(x, bool)) or (isinstance(x, float) and x.is_integer())


def _is_number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _eq(a: object, b: object) -> bool:
    """jsonschema's equality: booleans are not numbers, 1 == 1.0, containers compare deeply."""
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_eq(i, j) for i, j in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_eq(a[k], b[k]) for k in a)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, list | dict) or isinstance(b, list | dict):
        return False
    return a == b


def _unique(items: list[object]) -> bool:
    return all(not _eq(items[i], items[j]) for i in range(len(items)) for j in range(i + 1, len(items)))

_P0 = re.compile('^[0-9a-f]{64}$')
_P1 = re.compile('^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$')
_P2 = re.compile('^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')
_P3 = re.compile('^[a-z][a-z0-9-]{0,30}(?:\\.[a-z][a-z0-9-]{0,30}){0,3}$')
_P4 = re.compile('^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$')
_P5 = re.compile('^(https://[A-Za-z0-9.-]+(:[0-9]{1,5})?|http://(127\\.0\\.0\\.1|localhost|\\[::1\\])(:[0-9]{1,5})?)(/[A-Za-z0-9._~%/-]*)?$')
_P6 = re.compile('^/[^\\u0000-\\u001f\\u007f]*$')
_P7 = re.compile('^oms/[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$')
_P8 = re.compile('^[0-9a-f]{40}(?:[0-9a-f]{24})?$')
_P9 = re.compile('^[^\\u0000-\\u001f\\u007f]*$')
_P10 = re.compile('^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$')
_P11 = re.compile('^https://[^\\u0000-\\u0020\\u007f]+$')
_P12 = re.compile('^[^\\u0000-\\u001f\\u007f]+$')
_P13 = re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$')
_P14 = re.compile('^[a-z][a-z-]{0,31}$')
_P15 = re.compile('^[a-z][a-z0-9-]{0,62}(?:[.:][a-z0-9][a-z0-9-]{0,62}){0,3}$')
_P16 = re.compile('^[0-9a-f]{40}([0-9a-f]{24})?$')
_P17 = re.compile('^[A-Za-z0-9._/-]+$')
_P18 = re.compile('^[0-9a-f]{32,64}$')
_P19 = re.compile('^%[0-9]{1,9}$')
_P20 = re.compile('^[A-Za-z0-9+/]{43}=$')
_P21 = re.compile('^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$')
_P22 = re.compile('^[A-Za-z]{1,40}$')
_P23 = re.compile('^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$')
_P24 = re.compile('^[A-Za-z][A-Za-z0-9_]{0,63}$')
_C0: object = 'oms-advisor-request-v1'
_C1: tuple[object, ...] = ('claude_interactive', 'claude_print', 'codex_exec', 'codex_goal', 'command')
_C2: tuple[object, ...] = ('codex', 'claude', 'command')
_C3: tuple[object, ...] = ('repository-read', 'ticket-worktree-write')
_C4: tuple[object, ...] = ('local', 'github')
_C5: tuple[object, ...] = ('approve', 'reject')
_C6: object = 'authorization'
_C7: tuple[object, ...] = ('authorized', 'revoked')
_C8: tuple[object, ...] = ('tty', 'flag')
_C9: object = 'oms-record-v1'
_C10: tuple[object, ...] = ('authorization', 'dispatch', 'session', 'ticket', 'worker')
_C11: tuple[object, ...] = ('acknowledged', 'result-received', 'resolved')
_C12: tuple[object, ...] = ('completed', 'blocked', 'failed')
_C13: tuple[object, ...] = ('result-received', 'resolved')
_C14: object = 1
_C15: tuple[object, ...] = ('read-only', 'ticket-worktree-write')
_C16: object = 'command'
_C17: object = 'dispatch'
_C18: tuple[object, ...] = ('proposed', 'accepted', 'acknowledged', 'result-received', 'resolved', 'rejected', 'cancelled')
_C19: tuple[object, ...] = ('approve', 'reject')
_C20: object = 'oms-event-v1'
_C21: tuple[object, ...] = ('bridge-acknowledged', 'dispatch-delivery-requested', 'hook-observed', 'session-parked', 'session-registered', 'session-resumed', 'session-stopped')
_C22: object = 'dispatch-delivery-requested'
_C23: object = 'session-parked'
_C24: object = 'session-registered'
_C25: object = 'session-resumed'
_C26: object = 'session-stopped'
_C27: object = 'bridge-acknowledged'
_C28: tuple[object, ...] = ('codex', 'claude', 'command')
_C29: object = 'hook-observed'
_C30: object = 'application/vnd.oms.evidence+json'
_C31: object = 'oms-evidence-v1'
_C32: tuple[object, ...] = ('advisor-output', 'dispatch-result', 'human-approval', 'lease-expiry')
_C33: tuple[object, ...] = ('oms', 'advisor', 'human')
_C34: tuple[object, ...] = ('approve', 'reject')
_C35: object = 'advisor-output'
_C36: tuple[object, ...] = ('completed', 'blocked', 'failed')
_C37: object = 'dispatch-result'
_C38: tuple[object, ...] = ('approve', 'reject')
_C39: object = 'human-approval'
_C40: object = 'lease-expiry'
_C41: object = 'oms-journal-v1'
_C42: tuple[object, ...] = ('live-contact',)
_C43: tuple[object, ...] = ('worker-session', 'advisor-review')
_C44: tuple[object, ...] = ('codex-goal', 'claude-interactive', 'command', 'codex-exec', 'claude-print')
_C45: object = 'oms-kill-v1'
_C46: object = 'oms-op-v1'
_C47: object = 'oms-receipt-v1'
_C48: tuple[object, ...] = ('created', 'reused', 'parked', 'stopped', 'recovered', 'refused', 'done')
_C49: object = 'oms-exit-v1'
_C50: object = 'oms-pane-v1'
_C51: object = 'oms-role-policy-v1'
_C52: object = 'session'
_C53: tuple[object, ...] = ('running', 'parked', 'stalled', 'stopped')
_C54: tuple[object, ...] = ('goal', 'pane', 'command')
_C55: object = 'oms-state-v1'
_C56: object = 'oms-ticket-content-v1'
_C57: tuple[object, ...] = ('local', 'github')
_C58: object = 'ticket'
_C59: tuple[object, ...] = ('open', 'leased', 'done', 'blocked')
_C60: tuple[object, ...] = ('local', 'github')
_C61: object = 'worker'
_C62: tuple[object, ...] = ('idle', 'working', 'done', 'blocked')
_C63: tuple[object, ...] = ('healthy', 'parked', 'stalled', 'stopped')
_C64: tuple[object, ...] = ('result-recorded', 'exit', 'stopped', 'deadline', 'parent-gone', 'signal')
_C65: object = 'oms-worktree-v1'


def _v1(x: object) -> bool:
    # advisor-request#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v3(x: object) -> bool:
    # defs#/$defs/sha256
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P0.search(x) is None:
            return False
    return True


def _v2(x: object) -> bool:
    # advisor-request#/properties/dispatch_intent_sha256
    if not _v3(x):
        return False
    return True


def _v7(x: object) -> bool:
    # defs#/$defs/opaque_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P1.search(x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v6(x: object) -> bool:
    # dispatch-intent#/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v8(x: object) -> bool:
    # dispatch-intent#/properties/ticket_id
    if not _v7(x):
        return False
    return True


def _v9(x: object) -> bool:
    # dispatch-intent#/properties/ticket_content_sha256
    if not _v3(x):
        return False
    return True


def _v11(x: object) -> bool:
    # defs#/$defs/count
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 1000000:
            return False
    return True


def _v10(x: object) -> bool:
    # dispatch-intent#/properties/attempt
    if not _v11(x):
        return False
    return True


def _v12(x: object) -> bool:
    # dispatch-intent#/properties/worker_id
    if not _v7(x):
        return False
    return True


def _v13(x: object) -> bool:
    # dispatch-intent#/properties/lease_token_sha256
    if not _v3(x):
        return False
    return True


def _v15(x: object) -> bool:
    # defs#/$defs/uuid
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P2.search(x) is None:
            return False
    return True


def _v14(x: object) -> bool:
    # dispatch-intent#/properties/session_id
    if not _v15(x):
        return False
    return True


def _v17(x: object) -> bool:
    # defs#/$defs/role_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P3.search(x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 127:
            return False
    return True


def _v16(x: object) -> bool:
    # dispatch-intent#/properties/role_id
    if not _v17(x):
        return False
    return True


def _v19(x: object) -> bool:
    # defs#/$defs/model_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P4.search(x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v18(x: object) -> bool:
    # dispatch-intent#/properties/model_id
    if not _v19(x):
        return False
    return True


def _v23(x: object) -> bool:
    # defs#/$defs/model_endpoint
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P5.search(x) is None:
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
    # dispatch-intent#/properties/model_endpoint
    if not _v21(x):
        return False
    return True


def _v26(x: object) -> bool:
    # defs#/$defs/transport
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v25(x: object) -> bool:
    # dispatch-intent#/properties/provider_mode
    if not _v26(x):
        return False
    return True


def _v28(x: object) -> bool:
    # defs#/$defs/engine
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v27(x: object) -> bool:
    # dispatch-intent#/properties/engine
    if not _v28(x):
        return False
    return True


def _v31(x: object) -> bool:
    # defs#/$defs/capability
    if not any(_eq(x, c) for c in _C3):
        return False
    return True


def _v30(x: object) -> bool:
    # dispatch-intent#/properties/capabilities/items
    if not _v31(x):
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
    if not _v3(x):
        return False
    return True


def _v33(x: object) -> bool:
    # dispatch-intent#/properties/worktree_id
    if not _v7(x):
        return False
    return True


def _v35(x: object) -> bool:
    # defs#/$defs/abs_path
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P6.search(x) is None:
            return False
        if len(x) < 2:
            return False
        if len(x) > 4096:
            return False
    return True


def _v34(x: object) -> bool:
    # dispatch-intent#/properties/worktree_path
    if not _v35(x):
        return False
    return True


def _v37(x: object) -> bool:
    # defs#/$defs/branch
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P7.search(x) is None:
            return False
        if len(x) > 160:
            return False
    return True


def _v36(x: object) -> bool:
    # dispatch-intent#/properties/worktree_branch
    if not _v37(x):
        return False
    return True


def _v39(x: object) -> bool:
    # defs#/$defs/commit
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P8.search(x) is None:
            return False
    return True


def _v38(x: object) -> bool:
    # dispatch-intent#/properties/worktree_base_commit
    if not _v39(x):
        return False
    return True


def _v40(x: object) -> bool:
    # dispatch-intent#/properties/worktree_start_commit
    if not _v39(x):
        return False
    return True


def _v42(x: object) -> bool:
    # dispatch-intent#/properties/prior_failure_evidence/anyOf/0
    if not _v3(x):
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


def _v5(x: object) -> bool:
    # dispatch-intent#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'capabilities', 'dispatch_id', 'engine', 'lease_token_sha256', 'model_endpoint', 'model_id', 'policy_digest', 'prior_failure_evidence', 'provider_mode', 'role_id', 'session_id', 'ticket_content_sha256', 'ticket_id', 'worker_id', 'worktree_base_commit', 'worktree_branch', 'worktree_id', 'worktree_path', 'worktree_start_commit'):
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
        for k in x:
            if k not in ('dispatch_id', 'ticket_id', 'ticket_content_sha256', 'attempt', 'worker_id', 'lease_token_sha256', 'session_id', 'role_id', 'model_id', 'model_endpoint', 'provider_mode', 'engine', 'capabilities', 'policy_digest', 'worktree_id', 'worktree_path', 'worktree_branch', 'worktree_base_commit', 'worktree_start_commit', 'prior_failure_evidence'):
                return False
    return True


def _v4(x: object) -> bool:
    # advisor-request#/properties/intent
    if not _v5(x):
        return False
    return True


def _v46(x: object) -> bool:
    # defs#/$defs/title
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P9.search(x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 256:
            return False
    return True


def _v45(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/title
    if not _v46(x):
        return False
    return True


def _v47(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/body
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 262144:
            return False
    return True


def _v48(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/source
    if not any(_eq(x, c) for c in _C4):
        return False
    return True


def _v51(x: object) -> bool:
    # defs#/$defs/repository
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P10.search(x) is None:
            return False
        if len(x) > 140:
            return False
    return True


def _v50(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/repository/anyOf/0
    if not _v51(x):
        return False
    return True


def _v52(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/repository/anyOf/1
    if not (x is None):
        return False
    return True


def _v49(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/repository
    if not (_v50(x) or _v52(x)):
        return False
    return True


def _v55(x: object) -> bool:
    # defs#/$defs/url
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P11.search(x) is None:
            return False
        if len(x) > 2048:
            return False
    return True


def _v54(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/url/anyOf/0
    if not _v55(x):
        return False
    return True


def _v56(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/url/anyOf/1
    if not (x is None):
        return False
    return True


def _v53(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/url
    if not (_v54(x) or _v56(x)):
        return False
    return True


def _v44(x: object) -> bool:
    # advisor-request#/properties/ticket
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('body', 'repository', 'source', 'title', 'url'):
            if k not in x:
                return False
        if 'title' in x and not _v45(x['title']):
            return False
        if 'body' in x and not _v47(x['body']):
            return False
        if 'source' in x and not _v48(x['source']):
            return False
        if 'repository' in x and not _v49(x['repository']):
            return False
        if 'url' in x and not _v53(x['url']):
            return False
        for k in x:
            if k not in ('title', 'body', 'source', 'repository', 'url'):
                return False
    return True


def _v57(x: object) -> bool:
    # advisor-request#/properties/instructions
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 8192:
            return False
    return True


def _v0(x: object) -> bool:
    # advisor-request#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_intent_sha256', 'format', 'instructions', 'intent', 'ticket'):
            if k not in x:
                return False
        if 'format' in x and not _v1(x['format']):
            return False
        if 'dispatch_intent_sha256' in x and not _v2(x['dispatch_intent_sha256']):
            return False
        if 'intent' in x and not _v4(x['intent']):
            return False
        if 'ticket' in x and not _v44(x['ticket']):
            return False
        if 'instructions' in x and not _v57(x['instructions']):
            return False
        for k in x:
            if k not in ('format', 'dispatch_intent_sha256', 'intent', 'ticket', 'instructions'):
                return False
    return True


def _v59(x: object) -> bool:
    # advisor-verdict#/properties/verdict
    if not any(_eq(x, c) for c in _C5):
        return False
    return True


def _v60(x: object) -> bool:
    # advisor-verdict#/properties/rationale
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 8192:
            return False
    return True


def _v61(x: object) -> bool:
    # advisor-verdict#/properties/dispatch_intent_sha256
    if not _v3(x):
        return False
    return True


def _v58(x: object) -> bool:
    # advisor-verdict#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_intent_sha256', 'rationale', 'verdict'):
            if k not in x:
                return False
        if 'verdict' in x and not _v59(x['verdict']):
            return False
        if 'rationale' in x and not _v60(x['rationale']):
            return False
        if 'dispatch_intent_sha256' in x and not _v61(x['dispatch_intent_sha256']):
            return False
        for k in x:
            if k not in ('verdict', 'rationale', 'dispatch_intent_sha256'):
                return False
    return True


def _v63(x: object) -> bool:
    # authorization#/properties/kind
    if not _eq(x, _C6):
        return False
    return True


def _v64(x: object) -> bool:
    # authorization#/properties/state
    if not any(_eq(x, c) for c in _C7):
        return False
    return True


def _v66(x: object) -> bool:
    # authorization#/properties/payload/properties/repository
    if not _v51(x):
        return False
    return True


def _v68(x: object) -> bool:
    # defs#/$defs/person
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P12.search(x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v67(x: object) -> bool:
    # authorization#/properties/payload/properties/person
    if not _v68(x):
        return False
    return True


def _v69(x: object) -> bool:
    # authorization#/properties/payload/properties/confirmed_by
    if not any(_eq(x, c) for c in _C8):
        return False
    return True


def _v71(x: object) -> bool:
    # defs#/$defs/timestamp
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P13.search(x) is None:
            return False
    return True


def _v70(x: object) -> bool:
    # authorization#/properties/payload/properties/authorized_at
    if not _v71(x):
        return False
    return True


def _v73(x: object) -> bool:
    # authorization#/properties/payload/properties/revoked_at/anyOf/0
    if not _v71(x):
        return False
    return True


def _v74(x: object) -> bool:
    # authorization#/properties/payload/properties/revoked_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v72(x: object) -> bool:
    # authorization#/properties/payload/properties/revoked_at
    if not (_v73(x) or _v74(x)):
        return False
    return True


def _v77(x: object) -> bool:
    # defs#/$defs/reason
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P9.search(x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 512:
            return False
    return True


def _v76(x: object) -> bool:
    # authorization#/properties/payload/properties/reason/anyOf/0
    if not _v77(x):
        return False
    return True


def _v78(x: object) -> bool:
    # authorization#/properties/payload/properties/reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v75(x: object) -> bool:
    # authorization#/properties/payload/properties/reason
    if not (_v76(x) or _v78(x)):
        return False
    return True


def _v65(x: object) -> bool:
    # authorization#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('authorized_at', 'confirmed_by', 'person', 'reason', 'repository', 'revoked_at'):
            if k not in x:
                return False
        if 'repository' in x and not _v66(x['repository']):
            return False
        if 'person' in x and not _v67(x['person']):
            return False
        if 'confirmed_by' in x and not _v69(x['confirmed_by']):
            return False
        if 'authorized_at' in x and not _v70(x['authorized_at']):
            return False
        if 'revoked_at' in x and not _v72(x['revoked_at']):
            return False
        if 'reason' in x and not _v75(x['reason']):
            return False
        for k in x:
            if k not in ('repository', 'person', 'confirmed_by', 'authorized_at', 'revoked_at', 'reason'):
                return False
    return True


def _v81(x: object) -> bool:
    # record-envelope#/properties/format
    if not _eq(x, _C9):
        return False
    return True


def _v82(x: object) -> bool:
    # record-envelope#/properties/kind
    if not any(_eq(x, c) for c in _C10):
        return False
    return True


def _v83(x: object) -> bool:
    # record-envelope#/properties/record_id
    if not _v7(x):
        return False
    return True


def _v85(x: object) -> bool:
    # defs#/$defs/version
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v84(x: object) -> bool:
    # record-envelope#/properties/version
    if not _v85(x):
        return False
    return True


def _v86(x: object) -> bool:
    # record-envelope#/properties/state
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P14.search(x) is None:
            return False
    return True


def _v88(x: object) -> bool:
    # record-envelope#/properties/expected_version/anyOf/0
    if not _v85(x):
        return False
    return True


def _v89(x: object) -> bool:
    # record-envelope#/properties/expected_version/anyOf/1
    if not (x is None):
        return False
    return True


def _v87(x: object) -> bool:
    # record-envelope#/properties/expected_version
    if not (_v88(x) or _v89(x)):
        return False
    return True


def _v90(x: object) -> bool:
    # record-envelope#/properties/operation_id
    if not _v7(x):
        return False
    return True


def _v92(x: object) -> bool:
    # defs#/$defs/actor
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P15.search(x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v91(x: object) -> bool:
    # record-envelope#/properties/actor
    if not _v92(x):
        return False
    return True


def _v93(x: object) -> bool:
    # record-envelope#/properties/observed_at
    if not _v71(x):
        return False
    return True


def _v95(x: object) -> bool:
    # record-envelope#/properties/previous_sha256/anyOf/0
    if not _v3(x):
        return False
    return True


def _v96(x: object) -> bool:
    # record-envelope#/properties/previous_sha256/anyOf/1
    if not (x is None):
        return False
    return True


def _v94(x: object) -> bool:
    # record-envelope#/properties/previous_sha256
    if not (_v95(x) or _v96(x)):
        return False
    return True


def _v97(x: object) -> bool:
    # record-envelope#/properties/payload
    if not (isinstance(x, dict)):
        return False
    return True


def _v80(x: object) -> bool:
    # record-envelope#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('actor', 'expected_version', 'format', 'kind', 'observed_at', 'operation_id', 'payload', 'previous_sha256', 'record_id', 'state', 'version'):
            if k not in x:
                return False
        if 'format' in x and not _v81(x['format']):
            return False
        if 'kind' in x and not _v82(x['kind']):
            return False
        if 'record_id' in x and not _v83(x['record_id']):
            return False
        if 'version' in x and not _v84(x['version']):
            return False
        if 'state' in x and not _v86(x['state']):
            return False
        if 'expected_version' in x and not _v87(x['expected_version']):
            return False
        if 'operation_id' in x and not _v90(x['operation_id']):
            return False
        if 'actor' in x and not _v91(x['actor']):
            return False
        if 'observed_at' in x and not _v93(x['observed_at']):
            return False
        if 'previous_sha256' in x and not _v94(x['previous_sha256']):
            return False
        if 'payload' in x and not _v97(x['payload']):
            return False
        for k in x:
            if k not in ('format', 'kind', 'record_id', 'version', 'state', 'expected_version', 'operation_id', 'actor', 'observed_at', 'previous_sha256', 'payload'):
                return False
    return True


def _v79(x: object) -> bool:
    # authorization#/allOf/0
    if not _v80(x):
        return False
    return True


def _v62(x: object) -> bool:
    # authorization#
    if isinstance(x, dict):
        if 'kind' in x and not _v63(x['kind']):
            return False
        if 'state' in x and not _v64(x['state']):
            return False
        if 'payload' in x and not _v65(x['payload']):
            return False
    if not _v79(x):
        return False
    return True


def _v98(x: object) -> bool:
    # bridge-tools#
    return True


def _v99(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_input
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in x:
            if k not in ():
                return False
    return True


def _v101(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/dispatch_id
    if not (isinstance(x, str)):
        return False
    return True


def _v102(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/state
    if not (isinstance(x, str)):
        return False
    return True


def _v104(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket/properties/id
    if not (isinstance(x, str)):
        return False
    return True


def _v105(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket/properties/title
    if not (isinstance(x, str)):
        return False
    return True


def _v106(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket/properties/body
    if not (isinstance(x, str)):
        return False
    return True


def _v107(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket/properties/body_truncated
    if not (isinstance(x, bool)):
        return False
    return True


def _v108(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket/properties/source
    if not (isinstance(x, str)):
        return False
    return True


def _v110(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket/properties/url/anyOf/0
    if not (isinstance(x, str)):
        return False
    return True


def _v111(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket/properties/url/anyOf/1
    if not (x is None):
        return False
    return True


def _v109(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket/properties/url
    if not (_v110(x) or _v111(x)):
        return False
    return True


def _v103(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('body', 'body_truncated', 'id', 'source', 'title', 'url'):
            if k not in x:
                return False
        if 'id' in x and not _v104(x['id']):
            return False
        if 'title' in x and not _v105(x['title']):
            return False
        if 'body' in x and not _v106(x['body']):
            return False
        if 'body_truncated' in x and not _v107(x['body_truncated']):
            return False
        if 'source' in x and not _v108(x['source']):
            return False
        if 'url' in x and not _v109(x['url']):
            return False
        for k in x:
            if k not in ('id', 'title', 'body', 'body_truncated', 'source', 'url'):
                return False
    return True


def _v112(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/instructions
    if not (isinstance(x, str)):
        return False
    return True


def _v113(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/worktree_path
    if not (isinstance(x, str)):
        return False
    return True


def _v114(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/branch
    if not (isinstance(x, str)):
        return False
    return True


def _v115(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/base_commit
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P16.search(x) is None:
            return False
    return True


def _v116(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/start_commit
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P16.search(x) is None:
            return False
    return True


def _v117(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/result_contract
    if not (isinstance(x, str)):
        return False
    return True


def _v100(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('base_commit', 'branch', 'dispatch_id', 'instructions', 'result_contract', 'start_commit', 'state', 'ticket', 'worktree_path'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v101(x['dispatch_id']):
            return False
        if 'state' in x and not _v102(x['state']):
            return False
        if 'ticket' in x and not _v103(x['ticket']):
            return False
        if 'instructions' in x and not _v112(x['instructions']):
            return False
        if 'worktree_path' in x and not _v113(x['worktree_path']):
            return False
        if 'branch' in x and not _v114(x['branch']):
            return False
        if 'base_commit' in x and not _v115(x['base_commit']):
            return False
        if 'start_commit' in x and not _v116(x['start_commit']):
            return False
        if 'result_contract' in x and not _v117(x['result_contract']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'state', 'ticket', 'instructions', 'worktree_path', 'branch', 'base_commit', 'start_commit', 'result_contract'):
                return False
    return True


def _v118(x: object) -> bool:
    # bridge-tools#/$defs/acknowledge_dispatch_input
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in x:
            if k not in ():
                return False
    return True


def _v120(x: object) -> bool:
    # bridge-tools#/$defs/acknowledge_dispatch_output/properties/dispatch_id
    if not (isinstance(x, str)):
        return False
    return True


def _v121(x: object) -> bool:
    # bridge-tools#/$defs/acknowledge_dispatch_output/properties/state
    if not any(_eq(x, c) for c in _C11):
        return False
    return True


def _v122(x: object) -> bool:
    # bridge-tools#/$defs/acknowledge_dispatch_output/properties/already
    if not (isinstance(x, bool)):
        return False
    return True


def _v119(x: object) -> bool:
    # bridge-tools#/$defs/acknowledge_dispatch_output
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('already', 'dispatch_id', 'state'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v120(x['dispatch_id']):
            return False
        if 'state' in x and not _v121(x['state']):
            return False
        if 'already' in x and not _v122(x['already']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'state', 'already'):
                return False
    return True


def _v124(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_input/properties/status
    if not any(_eq(x, c) for c in _C12):
        return False
    return True


def _v125(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_input/properties/summary
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 8192:
            return False
    return True


def _v127(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_input/properties/result_commit/anyOf/0
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P16.search(x) is None:
            return False
    return True


def _v128(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_input/properties/result_commit/anyOf/1
    if not (x is None):
        return False
    return True


def _v126(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_input/properties/result_commit
    if not (_v127(x) or _v128(x)):
        return False
    return True


def _v123(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_input
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('status', 'summary'):
            if k not in x:
                return False
        if 'status' in x and not _v124(x['status']):
            return False
        if 'summary' in x and not _v125(x['summary']):
            return False
        if 'result_commit' in x and not _v126(x['result_commit']):
            return False
        for k in x:
            if k not in ('status', 'summary', 'result_commit'):
                return False
    return True


def _v130(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_output/properties/dispatch_id
    if not (isinstance(x, str)):
        return False
    return True


def _v131(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_output/properties/state
    if not any(_eq(x, c) for c in _C13):
        return False
    return True


def _v132(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_output/properties/evidence
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P0.search(x) is None:
            return False
    return True


def _v133(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_output/properties/already
    if not (isinstance(x, bool)):
        return False
    return True


def _v135(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_output/properties/result_commit/anyOf/0
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P16.search(x) is None:
            return False
    return True


def _v136(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_output/properties/result_commit/anyOf/1
    if not (x is None):
        return False
    return True


def _v134(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_output/properties/result_commit
    if not (_v135(x) or _v136(x)):
        return False
    return True


def _v129(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_output
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('already', 'dispatch_id', 'evidence', 'result_commit', 'state'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v130(x['dispatch_id']):
            return False
        if 'state' in x and not _v131(x['state']):
            return False
        if 'evidence' in x and not _v132(x['evidence']):
            return False
        if 'already' in x and not _v133(x['already']):
            return False
        if 'result_commit' in x and not _v134(x['result_commit']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'state', 'evidence', 'already', 'result_commit'):
                return False
    return True


def _v138(x: object) -> bool:
    # config#/properties/format
    if not _eq(x, _C14):
        return False
    return True


def _v141(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/model
    if not _v19(x):
        return False
    return True


def _v142(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/endpoint
    if not _v23(x):
        return False
    return True


def _v143(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/transport
    if not _v26(x):
        return False
    return True


def _v145(x: object) -> bool:
    # defs#/$defs/sandbox
    if not any(_eq(x, c) for c in _C15):
        return False
    return True


def _v144(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/sandbox
    if not _v145(x):
        return False
    return True


def _v147(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/argv/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P9.search(x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 4096:
            return False
    return True


def _v146(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/argv
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 64:
            return False
        for v in x:
            if not _v147(v):
                return False
    return True


def _v148(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/instructions
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P17.search(x) is None:
            return False
        if len(x) > 256:
            return False
    return True


def _v149(x: object) -> bool:
    # config#/properties/roles/additionalProperties/then
    if isinstance(x, dict):
        for k in ('argv',):
            if k not in x:
                return False
    return True


def _v151(x: object) -> bool:
    # config#/properties/roles/additionalProperties/else/not
    if isinstance(x, dict):
        for k in ('argv',):
            if k not in x:
                return False
    return True


def _v150(x: object) -> bool:
    # config#/properties/roles/additionalProperties/else
    if _v151(x):
        return False
    return True


def _v153(x: object) -> bool:
    # config#/properties/roles/additionalProperties/if/properties/transport
    if not _eq(x, _C16):
        return False
    return True


def _v152(x: object) -> bool:
    # config#/properties/roles/additionalProperties/if
    if isinstance(x, dict):
        if 'transport' in x and not _v153(x['transport']):
            return False
    return True


def _v140(x: object) -> bool:
    # config#/properties/roles/additionalProperties
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('model', 'transport', 'sandbox'):
            if k not in x:
                return False
        if 'model' in x and not _v141(x['model']):
            return False
        if 'endpoint' in x and not _v142(x['endpoint']):
            return False
        if 'transport' in x and not _v143(x['transport']):
            return False
        if 'sandbox' in x and not _v144(x['sandbox']):
            return False
        if 'argv' in x and not _v146(x['argv']):
            return False
        if 'instructions' in x and not _v148(x['instructions']):
            return False
        for k in x:
            if k not in ('model', 'endpoint', 'transport', 'sandbox', 'argv', 'instructions'):
                return False
    if _v152(x):
        if not _v149(x):
            return False
    else:
        if not _v150(x):
            return False
    return True


def _v154(x: object) -> bool:
    # config#/properties/roles/propertyNames
    if not _v17(x):
        return False
    return True


def _v139(x: object) -> bool:
    # config#/properties/roles
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if len(x) < 1:
            return False
        if len(x) > 64:
            return False
        for k, v in x.items():
            if k not in () and not _v140(v):
                return False
        for k in x:
            if not _v154(k):
                return False
    return True


def _v156(x: object) -> bool:
    # config#/properties/advisor/properties/role
    if not _v17(x):
        return False
    return True


def _v155(x: object) -> bool:
    # config#/properties/advisor
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('role',):
            if k not in x:
                return False
        if 'role' in x and not _v156(x['role']):
            return False
        for k in x:
            if k not in ('role',):
                return False
    return True


def _v158(x: object) -> bool:
    # config#/properties/worker/properties/role
    if not _v17(x):
        return False
    return True


def _v157(x: object) -> bool:
    # config#/properties/worker
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('role',):
            if k not in x:
                return False
        if 'role' in x and not _v158(x['role']):
            return False
        for k in x:
            if k not in ('role',):
                return False
    return True


def _v160(x: object) -> bool:
    # config#/properties/pool/properties/max_workers
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 256:
            return False
    return True


def _v159(x: object) -> bool:
    # config#/properties/pool
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('max_workers',):
            if k not in x:
                return False
        if 'max_workers' in x and not _v160(x['max_workers']):
            return False
        for k in x:
            if k not in ('max_workers',):
                return False
    return True


def _v162(x: object) -> bool:
    # config#/properties/lease/properties/duration_minutes
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 10080:
            return False
    return True


def _v161(x: object) -> bool:
    # config#/properties/lease
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('duration_minutes',):
            if k not in x:
                return False
        if 'duration_minutes' in x and not _v162(x['duration_minutes']):
            return False
        for k in x:
            if k not in ('duration_minutes',):
                return False
    return True


def _v164(x: object) -> bool:
    # config#/properties/worktrees/properties/directory
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P9.search(x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 4096:
            return False
    return True


def _v163(x: object) -> bool:
    # config#/properties/worktrees
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('directory',):
            if k not in x:
                return False
        if 'directory' in x and not _v164(x['directory']):
            return False
        for k in x:
            if k not in ('directory',):
                return False
    return True


def _v137(x: object) -> bool:
    # config#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('advisor', 'format', 'lease', 'pool', 'roles', 'worker', 'worktrees'):
            if k not in x:
                return False
        if 'format' in x and not _v138(x['format']):
            return False
        if 'roles' in x and not _v139(x['roles']):
            return False
        if 'advisor' in x and not _v155(x['advisor']):
            return False
        if 'worker' in x and not _v157(x['worker']):
            return False
        if 'pool' in x and not _v159(x['pool']):
            return False
        if 'lease' in x and not _v161(x['lease']):
            return False
        if 'worktrees' in x and not _v163(x['worktrees']):
            return False
        for k in x:
            if k not in ('format', 'roles', 'advisor', 'worker', 'pool', 'lease', 'worktrees'):
                return False
    return True


def _v165(x: object) -> bool:
    # defs#
    return True


def _v166(x: object) -> bool:
    # defs#/$defs/text
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 65536:
            return False
    return True


def _v167(x: object) -> bool:
    # defs#/$defs/token
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P18.search(x) is None:
            return False
    return True


def _v168(x: object) -> bool:
    # defs#/$defs/pane_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P19.search(x) is None:
            return False
    return True


def _v169(x: object) -> bool:
    # defs#/$defs/public_key
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P20.search(x) is None:
            return False
    return True


def _v170(x: object) -> bool:
    # defs#/$defs/base64
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P21.search(x) is None:
            return False
        if len(x) > 2000000:
            return False
    return True


def _v172(x: object) -> bool:
    # dispatch#/properties/kind
    if not _eq(x, _C17):
        return False
    return True


def _v173(x: object) -> bool:
    # dispatch#/properties/state
    if not any(_eq(x, c) for c in _C18):
        return False
    return True


def _v175(x: object) -> bool:
    # dispatch#/properties/payload/properties/ticket_id
    if not _v7(x):
        return False
    return True


def _v176(x: object) -> bool:
    # dispatch#/properties/payload/properties/ticket_version
    if not _v85(x):
        return False
    return True


def _v177(x: object) -> bool:
    # dispatch#/properties/payload/properties/attempt
    if not _v11(x):
        return False
    return True


def _v178(x: object) -> bool:
    # dispatch#/properties/payload/properties/worker_id
    if not _v7(x):
        return False
    return True


def _v179(x: object) -> bool:
    # dispatch#/properties/payload/properties/worker_record_id
    if not _v7(x):
        return False
    return True


def _v180(x: object) -> bool:
    # dispatch#/properties/payload/properties/lease_token
    if not _v167(x):
        return False
    return True


def _v181(x: object) -> bool:
    # dispatch#/properties/payload/properties/session_id
    if not _v15(x):
        return False
    return True


def _v182(x: object) -> bool:
    # dispatch#/properties/payload/properties/role_id
    if not _v17(x):
        return False
    return True


def _v183(x: object) -> bool:
    # dispatch#/properties/payload/properties/model_id
    if not _v19(x):
        return False
    return True


def _v184(x: object) -> bool:
    # dispatch#/properties/payload/properties/model_endpoint
    if not _v21(x):
        return False
    return True


def _v185(x: object) -> bool:
    # dispatch#/properties/payload/properties/provider_mode
    if not _v26(x):
        return False
    return True


def _v186(x: object) -> bool:
    # dispatch#/properties/payload/properties/engine
    if not _v28(x):
        return False
    return True


def _v188(x: object) -> bool:
    # dispatch#/properties/payload/properties/capabilities/items
    if not _v31(x):
        return False
    return True


def _v187(x: object) -> bool:
    # dispatch#/properties/payload/properties/capabilities
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 8:
            return False
        for v in x:
            if not _v188(v):
                return False
    return True


def _v189(x: object) -> bool:
    # dispatch#/properties/payload/properties/policy_digest
    if not _v3(x):
        return False
    return True


def _v190(x: object) -> bool:
    # dispatch#/properties/payload/properties/worktree_id
    if not _v7(x):
        return False
    return True


def _v191(x: object) -> bool:
    # dispatch#/properties/payload/properties/worktree_path
    if not _v35(x):
        return False
    return True


def _v192(x: object) -> bool:
    # dispatch#/properties/payload/properties/worktree_branch
    if not _v37(x):
        return False
    return True


def _v193(x: object) -> bool:
    # dispatch#/properties/payload/properties/worktree_base_commit
    if not _v39(x):
        return False
    return True


def _v194(x: object) -> bool:
    # dispatch#/properties/payload/properties/worktree_start_commit
    if not _v39(x):
        return False
    return True


def _v195(x: object) -> bool:
    # dispatch#/properties/payload/properties/dispatch_intent_sha256
    if not _v3(x):
        return False
    return True


def _v197(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_evidence/anyOf/0
    if not _v3(x):
        return False
    return True


def _v198(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v196(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_evidence
    if not (_v197(x) or _v198(x)):
        return False
    return True


def _v200(x: object) -> bool:
    # dispatch#/properties/payload/properties/approval_evidence/anyOf/0
    if not _v3(x):
        return False
    return True


def _v201(x: object) -> bool:
    # dispatch#/properties/payload/properties/approval_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v199(x: object) -> bool:
    # dispatch#/properties/payload/properties/approval_evidence
    if not (_v200(x) or _v201(x)):
        return False
    return True


def _v203(x: object) -> bool:
    # dispatch#/properties/payload/properties/prior_failure_evidence/anyOf/0
    if not _v3(x):
        return False
    return True


def _v204(x: object) -> bool:
    # dispatch#/properties/payload/properties/prior_failure_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v202(x: object) -> bool:
    # dispatch#/properties/payload/properties/prior_failure_evidence
    if not (_v203(x) or _v204(x)):
        return False
    return True


def _v206(x: object) -> bool:
    # dispatch#/properties/payload/properties/result_evidence/anyOf/0
    if not _v3(x):
        return False
    return True


def _v207(x: object) -> bool:
    # dispatch#/properties/payload/properties/result_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v205(x: object) -> bool:
    # dispatch#/properties/payload/properties/result_evidence
    if not (_v206(x) or _v207(x)):
        return False
    return True


def _v209(x: object) -> bool:
    # dispatch#/properties/payload/properties/delivery_event_id/anyOf/0
    if not _v7(x):
        return False
    return True


def _v210(x: object) -> bool:
    # dispatch#/properties/payload/properties/delivery_event_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v208(x: object) -> bool:
    # dispatch#/properties/payload/properties/delivery_event_id
    if not (_v209(x) or _v210(x)):
        return False
    return True


def _v212(x: object) -> bool:
    # dispatch#/properties/payload/properties/accepted_at/anyOf/0
    if not _v71(x):
        return False
    return True


def _v213(x: object) -> bool:
    # dispatch#/properties/payload/properties/accepted_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v211(x: object) -> bool:
    # dispatch#/properties/payload/properties/accepted_at
    if not (_v212(x) or _v213(x)):
        return False
    return True


def _v214(x: object) -> bool:
    # dispatch#/properties/payload/properties/created_at
    if not _v71(x):
        return False
    return True


def _v216(x: object) -> bool:
    # dispatch#/properties/payload/properties/reason/anyOf/0
    if not _v77(x):
        return False
    return True


def _v217(x: object) -> bool:
    # dispatch#/properties/payload/properties/reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v215(x: object) -> bool:
    # dispatch#/properties/payload/properties/reason
    if not (_v216(x) or _v217(x)):
        return False
    return True


def _v218(x: object) -> bool:
    # dispatch#/properties/payload/properties/ticket_content_sha256
    if not _v3(x):
        return False
    return True


def _v220(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_verdict/anyOf/0
    if not any(_eq(x, c) for c in _C19):
        return False
    return True


def _v221(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_verdict/anyOf/1
    if not (x is None):
        return False
    return True


def _v219(x: object) -> bool:
    # dispatch#/properties/payload/properties/advisor_verdict
    if not (_v220(x) or _v221(x)):
        return False
    return True


def _v174(x: object) -> bool:
    # dispatch#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('accepted_at', 'advisor_evidence', 'advisor_verdict', 'approval_evidence', 'attempt', 'capabilities', 'created_at', 'delivery_event_id', 'dispatch_intent_sha256', 'engine', 'lease_token', 'model_endpoint', 'model_id', 'policy_digest', 'prior_failure_evidence', 'provider_mode', 'reason', 'result_evidence', 'role_id', 'session_id', 'ticket_content_sha256', 'ticket_id', 'ticket_version', 'worker_id', 'worker_record_id', 'worktree_base_commit', 'worktree_branch', 'worktree_id', 'worktree_path', 'worktree_start_commit'):
            if k not in x:
                return False
        if 'ticket_id' in x and not _v175(x['ticket_id']):
            return False
        if 'ticket_version' in x and not _v176(x['ticket_version']):
            return False
        if 'attempt' in x and not _v177(x['attempt']):
            return False
        if 'worker_id' in x and not _v178(x['worker_id']):
            return False
        if 'worker_record_id' in x and not _v179(x['worker_record_id']):
            return False
        if 'lease_token' in x and not _v180(x['lease_token']):
            return False
        if 'session_id' in x and not _v181(x['session_id']):
            return False
        if 'role_id' in x and not _v182(x['role_id']):
            return False
        if 'model_id' in x and not _v183(x['model_id']):
            return False
        if 'model_endpoint' in x and not _v184(x['model_endpoint']):
            return False
        if 'provider_mode' in x and not _v185(x['provider_mode']):
            return False
        if 'engine' in x and not _v186(x['engine']):
            return False
        if 'capabilities' in x and not _v187(x['capabilities']):
            return False
        if 'policy_digest' in x and not _v189(x['policy_digest']):
            return False
        if 'worktree_id' in x and not _v190(x['worktree_id']):
            return False
        if 'worktree_path' in x and not _v191(x['worktree_path']):
            return False
        if 'worktree_branch' in x and not _v192(x['worktree_branch']):
            return False
        if 'worktree_base_commit' in x and not _v193(x['worktree_base_commit']):
            return False
        if 'worktree_start_commit' in x and not _v194(x['worktree_start_commit']):
            return False
        if 'dispatch_intent_sha256' in x and not _v195(x['dispatch_intent_sha256']):
            return False
        if 'advisor_evidence' in x and not _v196(x['advisor_evidence']):
            return False
        if 'approval_evidence' in x and not _v199(x['approval_evidence']):
            return False
        if 'prior_failure_evidence' in x and not _v202(x['prior_failure_evidence']):
            return False
        if 'result_evidence' in x and not _v205(x['result_evidence']):
            return False
        if 'delivery_event_id' in x and not _v208(x['delivery_event_id']):
            return False
        if 'accepted_at' in x and not _v211(x['accepted_at']):
            return False
        if 'created_at' in x and not _v214(x['created_at']):
            return False
        if 'reason' in x and not _v215(x['reason']):
            return False
        if 'ticket_content_sha256' in x and not _v218(x['ticket_content_sha256']):
            return False
        if 'advisor_verdict' in x and not _v219(x['advisor_verdict']):
            return False
        for k in x:
            if k not in ('ticket_id', 'ticket_version', 'attempt', 'worker_id', 'worker_record_id', 'lease_token', 'session_id', 'role_id', 'model_id', 'model_endpoint', 'provider_mode', 'engine', 'capabilities', 'policy_digest', 'worktree_id', 'worktree_path', 'worktree_branch', 'worktree_base_commit', 'worktree_start_commit', 'dispatch_intent_sha256', 'advisor_evidence', 'approval_evidence', 'prior_failure_evidence', 'result_evidence', 'delivery_event_id', 'accepted_at', 'created_at', 'reason', 'ticket_content_sha256', 'advisor_verdict'):
                return False
    return True


def _v222(x: object) -> bool:
    # dispatch#/allOf/0
    if not _v80(x):
        return False
    return True


def _v171(x: object) -> bool:
    # dispatch#
    if isinstance(x, dict):
        if 'kind' in x and not _v172(x['kind']):
            return False
        if 'state' in x and not _v173(x['state']):
            return False
        if 'payload' in x and not _v174(x['payload']):
            return False
    if not _v222(x):
        return False
    return True


def _v224(x: object) -> bool:
    # event#/properties/format
    if not _eq(x, _C20):
        return False
    return True


def _v225(x: object) -> bool:
    # event#/properties/event_id
    if not _v7(x):
        return False
    return True


def _v226(x: object) -> bool:
    # event#/properties/event_type
    if not any(_eq(x, c) for c in _C21):
        return False
    return True


def _v227(x: object) -> bool:
    # event#/properties/created_at
    if not _v71(x):
        return False
    return True


def _v228(x: object) -> bool:
    # event#/properties/payload
    if not (isinstance(x, dict)):
        return False
    return True


def _v232(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v233(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/dispatch_version
    if not _v85(x):
        return False
    return True


def _v234(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/worker_record_id
    if not _v7(x):
        return False
    return True


def _v235(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/ticket_id
    if not _v7(x):
        return False
    return True


def _v236(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/attempt
    if not _v11(x):
        return False
    return True


def _v237(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/lease_token
    if not _v167(x):
        return False
    return True


def _v231(x: object) -> bool:
    # event#/allOf/0/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'dispatch_id', 'dispatch_version', 'lease_token', 'ticket_id', 'worker_record_id'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v232(x['dispatch_id']):
            return False
        if 'dispatch_version' in x and not _v233(x['dispatch_version']):
            return False
        if 'worker_record_id' in x and not _v234(x['worker_record_id']):
            return False
        if 'ticket_id' in x and not _v235(x['ticket_id']):
            return False
        if 'attempt' in x and not _v236(x['attempt']):
            return False
        if 'lease_token' in x and not _v237(x['lease_token']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'dispatch_version', 'worker_record_id', 'ticket_id', 'attempt', 'lease_token'):
                return False
    return True


def _v230(x: object) -> bool:
    # event#/allOf/0/then
    if isinstance(x, dict):
        if 'payload' in x and not _v231(x['payload']):
            return False
    return True


def _v239(x: object) -> bool:
    # event#/allOf/0/if/properties/event_type
    if not _eq(x, _C22):
        return False
    return True


def _v238(x: object) -> bool:
    # event#/allOf/0/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v239(x['event_type']):
            return False
    return True


def _v229(x: object) -> bool:
    # event#/allOf/0
    if _v238(x):
        if not _v230(x):
            return False
    else:
        pass
    return True


def _v243(x: object) -> bool:
    # event#/allOf/1/then/properties/payload/properties/session_id
    if not _v15(x):
        return False
    return True


def _v244(x: object) -> bool:
    # event#/allOf/1/then/properties/payload/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v245(x: object) -> bool:
    # event#/allOf/1/then/properties/payload/properties/parked_until
    if not _v71(x):
        return False
    return True


def _v242(x: object) -> bool:
    # event#/allOf/1/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'parked_until', 'session_id'):
            if k not in x:
                return False
        if 'session_id' in x and not _v243(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v244(x['dispatch_id']):
            return False
        if 'parked_until' in x and not _v245(x['parked_until']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id', 'parked_until'):
                return False
    return True


def _v241(x: object) -> bool:
    # event#/allOf/1/then
    if isinstance(x, dict):
        if 'payload' in x and not _v242(x['payload']):
            return False
    return True


def _v247(x: object) -> bool:
    # event#/allOf/1/if/properties/event_type
    if not _eq(x, _C23):
        return False
    return True


def _v246(x: object) -> bool:
    # event#/allOf/1/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v247(x['event_type']):
            return False
    return True


def _v240(x: object) -> bool:
    # event#/allOf/1
    if _v246(x):
        if not _v241(x):
            return False
    else:
        pass
    return True


def _v251(x: object) -> bool:
    # event#/allOf/2/then/properties/payload/properties/session_id
    if not _v15(x):
        return False
    return True


def _v252(x: object) -> bool:
    # event#/allOf/2/then/properties/payload/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v250(x: object) -> bool:
    # event#/allOf/2/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'session_id'):
            if k not in x:
                return False
        if 'session_id' in x and not _v251(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v252(x['dispatch_id']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id'):
                return False
    return True


def _v249(x: object) -> bool:
    # event#/allOf/2/then
    if isinstance(x, dict):
        if 'payload' in x and not _v250(x['payload']):
            return False
    return True


def _v254(x: object) -> bool:
    # event#/allOf/2/if/properties/event_type
    if not _eq(x, _C24):
        return False
    return True


def _v253(x: object) -> bool:
    # event#/allOf/2/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v254(x['event_type']):
            return False
    return True


def _v248(x: object) -> bool:
    # event#/allOf/2
    if _v253(x):
        if not _v249(x):
            return False
    else:
        pass
    return True


def _v258(x: object) -> bool:
    # event#/allOf/3/then/properties/payload/properties/session_id
    if not _v15(x):
        return False
    return True


def _v259(x: object) -> bool:
    # event#/allOf/3/then/properties/payload/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v257(x: object) -> bool:
    # event#/allOf/3/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'session_id'):
            if k not in x:
                return False
        if 'session_id' in x and not _v258(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v259(x['dispatch_id']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id'):
                return False
    return True


def _v256(x: object) -> bool:
    # event#/allOf/3/then
    if isinstance(x, dict):
        if 'payload' in x and not _v257(x['payload']):
            return False
    return True


def _v261(x: object) -> bool:
    # event#/allOf/3/if/properties/event_type
    if not _eq(x, _C25):
        return False
    return True


def _v260(x: object) -> bool:
    # event#/allOf/3/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v261(x['event_type']):
            return False
    return True


def _v255(x: object) -> bool:
    # event#/allOf/3
    if _v260(x):
        if not _v256(x):
            return False
    else:
        pass
    return True


def _v265(x: object) -> bool:
    # event#/allOf/4/then/properties/payload/properties/session_id
    if not _v15(x):
        return False
    return True


def _v266(x: object) -> bool:
    # event#/allOf/4/then/properties/payload/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v267(x: object) -> bool:
    # event#/allOf/4/then/properties/payload/properties/reason
    if not _v77(x):
        return False
    return True


def _v264(x: object) -> bool:
    # event#/allOf/4/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'reason', 'session_id'):
            if k not in x:
                return False
        if 'session_id' in x and not _v265(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v266(x['dispatch_id']):
            return False
        if 'reason' in x and not _v267(x['reason']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id', 'reason'):
                return False
    return True


def _v263(x: object) -> bool:
    # event#/allOf/4/then
    if isinstance(x, dict):
        if 'payload' in x and not _v264(x['payload']):
            return False
    return True


def _v269(x: object) -> bool:
    # event#/allOf/4/if/properties/event_type
    if not _eq(x, _C26):
        return False
    return True


def _v268(x: object) -> bool:
    # event#/allOf/4/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v269(x['event_type']):
            return False
    return True


def _v262(x: object) -> bool:
    # event#/allOf/4
    if _v268(x):
        if not _v263(x):
            return False
    else:
        pass
    return True


def _v273(x: object) -> bool:
    # event#/allOf/5/then/properties/payload/properties/session_id
    if not _v15(x):
        return False
    return True


def _v274(x: object) -> bool:
    # event#/allOf/5/then/properties/payload/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v275(x: object) -> bool:
    # event#/allOf/5/then/properties/payload/properties/nonce
    if not _v3(x):
        return False
    return True


def _v272(x: object) -> bool:
    # event#/allOf/5/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'nonce', 'session_id'):
            if k not in x:
                return False
        if 'session_id' in x and not _v273(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v274(x['dispatch_id']):
            return False
        if 'nonce' in x and not _v275(x['nonce']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id', 'nonce'):
                return False
    return True


def _v271(x: object) -> bool:
    # event#/allOf/5/then
    if isinstance(x, dict):
        if 'payload' in x and not _v272(x['payload']):
            return False
    return True


def _v277(x: object) -> bool:
    # event#/allOf/5/if/properties/event_type
    if not _eq(x, _C27):
        return False
    return True


def _v276(x: object) -> bool:
    # event#/allOf/5/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v277(x['event_type']):
            return False
    return True


def _v270(x: object) -> bool:
    # event#/allOf/5
    if _v276(x):
        if not _v271(x):
            return False
    else:
        pass
    return True


def _v281(x: object) -> bool:
    # event#/allOf/6/then/properties/payload/properties/session_id
    if not _v15(x):
        return False
    return True


def _v282(x: object) -> bool:
    # event#/allOf/6/then/properties/payload/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v283(x: object) -> bool:
    # event#/allOf/6/then/properties/payload/properties/nonce
    if not _v3(x):
        return False
    return True


def _v284(x: object) -> bool:
    # event#/allOf/6/then/properties/payload/properties/provider
    if not any(_eq(x, c) for c in _C28):
        return False
    return True


def _v285(x: object) -> bool:
    # event#/allOf/6/then/properties/payload/properties/hook_event
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P22.search(x) is None:
            return False
    return True


def _v286(x: object) -> bool:
    # event#/allOf/6/then/properties/payload/properties/native_session_ref
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P23.search(x) is None:
            return False
        if len(x) > 128:
            return False
    return True


def _v280(x: object) -> bool:
    # event#/allOf/6/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'hook_event', 'native_session_ref', 'nonce', 'provider', 'session_id'):
            if k not in x:
                return False
        if 'session_id' in x and not _v281(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v282(x['dispatch_id']):
            return False
        if 'nonce' in x and not _v283(x['nonce']):
            return False
        if 'provider' in x and not _v284(x['provider']):
            return False
        if 'hook_event' in x and not _v285(x['hook_event']):
            return False
        if 'native_session_ref' in x and not _v286(x['native_session_ref']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id', 'nonce', 'provider', 'hook_event', 'native_session_ref'):
                return False
    return True


def _v279(x: object) -> bool:
    # event#/allOf/6/then
    if isinstance(x, dict):
        if 'payload' in x and not _v280(x['payload']):
            return False
    return True


def _v288(x: object) -> bool:
    # event#/allOf/6/if/properties/event_type
    if not _eq(x, _C29):
        return False
    return True


def _v287(x: object) -> bool:
    # event#/allOf/6/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v288(x['event_type']):
            return False
    return True


def _v278(x: object) -> bool:
    # event#/allOf/6
    if _v287(x):
        if not _v279(x):
            return False
    else:
        pass
    return True


def _v223(x: object) -> bool:
    # event#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('created_at', 'event_id', 'event_type', 'format', 'payload'):
            if k not in x:
                return False
        if 'format' in x and not _v224(x['format']):
            return False
        if 'event_id' in x and not _v225(x['event_id']):
            return False
        if 'event_type' in x and not _v226(x['event_type']):
            return False
        if 'created_at' in x and not _v227(x['created_at']):
            return False
        if 'payload' in x and not _v228(x['payload']):
            return False
        for k in x:
            if k not in ('format', 'event_id', 'event_type', 'created_at', 'payload'):
                return False
    if not _v229(x):
        return False
    if not _v240(x):
        return False
    if not _v248(x):
        return False
    if not _v255(x):
        return False
    if not _v262(x):
        return False
    if not _v270(x):
        return False
    if not _v278(x):
        return False
    return True


def _v290(x: object) -> bool:
    # evidence-envelope#/properties/payloadType
    if not _eq(x, _C30):
        return False
    return True


def _v291(x: object) -> bool:
    # evidence-envelope#/properties/payload
    if not _v170(x):
        return False
    return True


def _v294(x: object) -> bool:
    # evidence-envelope#/properties/signatures/items/properties/keyid
    if not _v3(x):
        return False
    return True


def _v295(x: object) -> bool:
    # evidence-envelope#/properties/signatures/items/properties/sig
    if not _v170(x):
        return False
    return True


def _v293(x: object) -> bool:
    # evidence-envelope#/properties/signatures/items
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('keyid', 'sig'):
            if k not in x:
                return False
        if 'keyid' in x and not _v294(x['keyid']):
            return False
        if 'sig' in x and not _v295(x['sig']):
            return False
        for k in x:
            if k not in ('keyid', 'sig'):
                return False
    return True


def _v292(x: object) -> bool:
    # evidence-envelope#/properties/signatures
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 1:
            return False
        for v in x:
            if not _v293(v):
                return False
    return True


def _v289(x: object) -> bool:
    # evidence-envelope#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('payload', 'payloadType', 'signatures'):
            if k not in x:
                return False
        if 'payloadType' in x and not _v290(x['payloadType']):
            return False
        if 'payload' in x and not _v291(x['payload']):
            return False
        if 'signatures' in x and not _v292(x['signatures']):
            return False
        for k in x:
            if k not in ('payloadType', 'payload', 'signatures'):
                return False
    return True


def _v297(x: object) -> bool:
    # evidence#/properties/format
    if not _eq(x, _C31):
        return False
    return True


def _v298(x: object) -> bool:
    # evidence#/properties/evidence_kind
    if not any(_eq(x, c) for c in _C32):
        return False
    return True


def _v299(x: object) -> bool:
    # evidence#/properties/ticket_id
    if not _v7(x):
        return False
    return True


def _v300(x: object) -> bool:
    # evidence#/properties/producer
    if not any(_eq(x, c) for c in _C33):
        return False
    return True


def _v302(x: object) -> bool:
    # evidence#/properties/producer_role/anyOf/0
    if not _v17(x):
        return False
    return True


def _v303(x: object) -> bool:
    # evidence#/properties/producer_role/anyOf/1
    if not (x is None):
        return False
    return True


def _v301(x: object) -> bool:
    # evidence#/properties/producer_role
    if not (_v302(x) or _v303(x)):
        return False
    return True


def _v304(x: object) -> bool:
    # evidence#/properties/created_at
    if not _v71(x):
        return False
    return True


def _v305(x: object) -> bool:
    # evidence#/properties/payload
    if not (isinstance(x, dict)):
        return False
    return True


def _v309(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v310(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/dispatch_intent_sha256
    if not _v3(x):
        return False
    return True


def _v311(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/verdict
    if not any(_eq(x, c) for c in _C34):
        return False
    return True


def _v312(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/rationale
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 8192:
            return False
    return True


def _v314(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/argv_sha256
    if not _v3(x):
        return False
    return True


def _v315(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/exit_code
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < -255:
            return False
        if x > 255:
            return False
    return True


def _v316(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/output_sha256
    if not _v3(x):
        return False
    return True


def _v317(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/started_at
    if not _v71(x):
        return False
    return True


def _v318(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/finished_at
    if not _v71(x):
        return False
    return True


def _v313(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('argv_sha256', 'exit_code', 'finished_at', 'output_sha256', 'started_at'):
            if k not in x:
                return False
        if 'argv_sha256' in x and not _v314(x['argv_sha256']):
            return False
        if 'exit_code' in x and not _v315(x['exit_code']):
            return False
        if 'output_sha256' in x and not _v316(x['output_sha256']):
            return False
        if 'started_at' in x and not _v317(x['started_at']):
            return False
        if 'finished_at' in x and not _v318(x['finished_at']):
            return False
        for k in x:
            if k not in ('argv_sha256', 'exit_code', 'output_sha256', 'started_at', 'finished_at'):
                return False
    return True


def _v308(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'dispatch_intent_sha256', 'provenance', 'rationale', 'verdict'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v309(x['dispatch_id']):
            return False
        if 'dispatch_intent_sha256' in x and not _v310(x['dispatch_intent_sha256']):
            return False
        if 'verdict' in x and not _v311(x['verdict']):
            return False
        if 'rationale' in x and not _v312(x['rationale']):
            return False
        if 'provenance' in x and not _v313(x['provenance']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'dispatch_intent_sha256', 'verdict', 'rationale', 'provenance'):
                return False
    return True


def _v307(x: object) -> bool:
    # evidence#/allOf/0/then
    if isinstance(x, dict):
        if 'payload' in x and not _v308(x['payload']):
            return False
    return True


def _v320(x: object) -> bool:
    # evidence#/allOf/0/if/properties/evidence_kind
    if not _eq(x, _C35):
        return False
    return True


def _v319(x: object) -> bool:
    # evidence#/allOf/0/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v320(x['evidence_kind']):
            return False
    return True


def _v306(x: object) -> bool:
    # evidence#/allOf/0
    if _v319(x):
        if not _v307(x):
            return False
    else:
        pass
    return True


def _v324(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v325(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/session_id
    if not _v15(x):
        return False
    return True


def _v326(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/status
    if not any(_eq(x, c) for c in _C36):
        return False
    return True


def _v327(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/summary
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 8192:
            return False
    return True


def _v329(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/result_commit/anyOf/0
    if not _v39(x):
        return False
    return True


def _v330(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/result_commit/anyOf/1
    if not (x is None):
        return False
    return True


def _v328(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/result_commit
    if not (_v329(x) or _v330(x)):
        return False
    return True


def _v323(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'result_commit', 'session_id', 'status', 'summary'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v324(x['dispatch_id']):
            return False
        if 'session_id' in x and not _v325(x['session_id']):
            return False
        if 'status' in x and not _v326(x['status']):
            return False
        if 'summary' in x and not _v327(x['summary']):
            return False
        if 'result_commit' in x and not _v328(x['result_commit']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'session_id', 'status', 'summary', 'result_commit'):
                return False
    return True


def _v322(x: object) -> bool:
    # evidence#/allOf/1/then
    if isinstance(x, dict):
        if 'payload' in x and not _v323(x['payload']):
            return False
    return True


def _v332(x: object) -> bool:
    # evidence#/allOf/1/if/properties/evidence_kind
    if not _eq(x, _C37):
        return False
    return True


def _v331(x: object) -> bool:
    # evidence#/allOf/1/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v332(x['evidence_kind']):
            return False
    return True


def _v321(x: object) -> bool:
    # evidence#/allOf/1
    if _v331(x):
        if not _v322(x):
            return False
    else:
        pass
    return True


def _v336(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v337(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/dispatch_intent_sha256
    if not _v3(x):
        return False
    return True


def _v338(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/verdict
    if not any(_eq(x, c) for c in _C38):
        return False
    return True


def _v339(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/person
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P9.search(x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v340(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/rationale
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 8192:
            return False
    return True


def _v335(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'dispatch_intent_sha256', 'person', 'rationale', 'verdict'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v336(x['dispatch_id']):
            return False
        if 'dispatch_intent_sha256' in x and not _v337(x['dispatch_intent_sha256']):
            return False
        if 'verdict' in x and not _v338(x['verdict']):
            return False
        if 'person' in x and not _v339(x['person']):
            return False
        if 'rationale' in x and not _v340(x['rationale']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'dispatch_intent_sha256', 'verdict', 'person', 'rationale'):
                return False
    return True


def _v334(x: object) -> bool:
    # evidence#/allOf/2/then
    if isinstance(x, dict):
        if 'payload' in x and not _v335(x['payload']):
            return False
    return True


def _v342(x: object) -> bool:
    # evidence#/allOf/2/if/properties/evidence_kind
    if not _eq(x, _C39):
        return False
    return True


def _v341(x: object) -> bool:
    # evidence#/allOf/2/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v342(x['evidence_kind']):
            return False
    return True


def _v333(x: object) -> bool:
    # evidence#/allOf/2
    if _v341(x):
        if not _v334(x):
            return False
    else:
        pass
    return True


def _v346(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/attempt
    if not _v11(x):
        return False
    return True


def _v347(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/lease_expired_at
    if not _v71(x):
        return False
    return True


def _v349(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/worktree_start_commit/anyOf/0
    if not _v39(x):
        return False
    return True


def _v350(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/worktree_start_commit/anyOf/1
    if not (x is None):
        return False
    return True


def _v348(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/worktree_start_commit
    if not (_v349(x) or _v350(x)):
        return False
    return True


def _v345(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'lease_expired_at', 'worktree_start_commit'):
            if k not in x:
                return False
        if 'attempt' in x and not _v346(x['attempt']):
            return False
        if 'lease_expired_at' in x and not _v347(x['lease_expired_at']):
            return False
        if 'worktree_start_commit' in x and not _v348(x['worktree_start_commit']):
            return False
        for k in x:
            if k not in ('attempt', 'lease_expired_at', 'worktree_start_commit'):
                return False
    return True


def _v344(x: object) -> bool:
    # evidence#/allOf/3/then
    if isinstance(x, dict):
        if 'payload' in x and not _v345(x['payload']):
            return False
    return True


def _v352(x: object) -> bool:
    # evidence#/allOf/3/if/properties/evidence_kind
    if not _eq(x, _C40):
        return False
    return True


def _v351(x: object) -> bool:
    # evidence#/allOf/3/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v352(x['evidence_kind']):
            return False
    return True


def _v343(x: object) -> bool:
    # evidence#/allOf/3
    if _v351(x):
        if not _v344(x):
            return False
    else:
        pass
    return True


def _v296(x: object) -> bool:
    # evidence#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('created_at', 'evidence_kind', 'format', 'payload', 'producer', 'producer_role', 'ticket_id'):
            if k not in x:
                return False
        if 'format' in x and not _v297(x['format']):
            return False
        if 'evidence_kind' in x and not _v298(x['evidence_kind']):
            return False
        if 'ticket_id' in x and not _v299(x['ticket_id']):
            return False
        if 'producer' in x and not _v300(x['producer']):
            return False
        if 'producer_role' in x and not _v301(x['producer_role']):
            return False
        if 'created_at' in x and not _v304(x['created_at']):
            return False
        if 'payload' in x and not _v305(x['payload']):
            return False
        for k in x:
            if k not in ('format', 'evidence_kind', 'ticket_id', 'producer', 'producer_role', 'created_at', 'payload'):
                return False
    if not _v306(x):
        return False
    if not _v321(x):
        return False
    if not _v333(x):
        return False
    if not _v343(x):
        return False
    return True


def _v354(x: object) -> bool:
    # journal-entry#/properties/format
    if not _eq(x, _C41):
        return False
    return True


def _v355(x: object) -> bool:
    # journal-entry#/properties/journal
    if not any(_eq(x, c) for c in _C42):
        return False
    return True


def _v356(x: object) -> bool:
    # journal-entry#/properties/seq
    if not _v85(x):
        return False
    return True


def _v358(x: object) -> bool:
    # journal-entry#/properties/previous_sha256/anyOf/0
    if not _v3(x):
        return False
    return True


def _v359(x: object) -> bool:
    # journal-entry#/properties/previous_sha256/anyOf/1
    if not (x is None):
        return False
    return True


def _v357(x: object) -> bool:
    # journal-entry#/properties/previous_sha256
    if not (_v358(x) or _v359(x)):
        return False
    return True


def _v360(x: object) -> bool:
    # journal-entry#/properties/recorded_at
    if not _v71(x):
        return False
    return True


def _v362(x: object) -> bool:
    # journal-entry#/properties/entry/properties/authorization_id
    if not _v7(x):
        return False
    return True


def _v363(x: object) -> bool:
    # journal-entry#/properties/entry/properties/authorization_version
    if not _v85(x):
        return False
    return True


def _v364(x: object) -> bool:
    # journal-entry#/properties/entry/properties/repository
    if not _v51(x):
        return False
    return True


def _v365(x: object) -> bool:
    # journal-entry#/properties/entry/properties/operation
    if not any(_eq(x, c) for c in _C43):
        return False
    return True


def _v366(x: object) -> bool:
    # journal-entry#/properties/entry/properties/contact_surface
    if not any(_eq(x, c) for c in _C44):
        return False
    return True


def _v367(x: object) -> bool:
    # journal-entry#/properties/entry/properties/subject_id
    if not _v7(x):
        return False
    return True


def _v369(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v370(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/ticket_id
    if not _v7(x):
        return False
    return True


def _v371(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/role_id
    if not _v17(x):
        return False
    return True


def _v372(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/model_id
    if not _v19(x):
        return False
    return True


def _v373(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/provider_mode
    if not _v26(x):
        return False
    return True


def _v374(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/worktree_id
    if not _v7(x):
        return False
    return True


def _v368(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'model_id', 'provider_mode', 'role_id', 'ticket_id', 'worktree_id'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v369(x['dispatch_id']):
            return False
        if 'ticket_id' in x and not _v370(x['ticket_id']):
            return False
        if 'role_id' in x and not _v371(x['role_id']):
            return False
        if 'model_id' in x and not _v372(x['model_id']):
            return False
        if 'provider_mode' in x and not _v373(x['provider_mode']):
            return False
        if 'worktree_id' in x and not _v374(x['worktree_id']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'ticket_id', 'role_id', 'model_id', 'provider_mode', 'worktree_id'):
                return False
    return True


def _v375(x: object) -> bool:
    # journal-entry#/properties/entry/properties/disclosed_at
    if not _v71(x):
        return False
    return True


def _v361(x: object) -> bool:
    # journal-entry#/properties/entry
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('authorization_id', 'authorization_version', 'contact_surface', 'disclosed_at', 'operation', 'repository', 'request', 'subject_id'):
            if k not in x:
                return False
        if 'authorization_id' in x and not _v362(x['authorization_id']):
            return False
        if 'authorization_version' in x and not _v363(x['authorization_version']):
            return False
        if 'repository' in x and not _v364(x['repository']):
            return False
        if 'operation' in x and not _v365(x['operation']):
            return False
        if 'contact_surface' in x and not _v366(x['contact_surface']):
            return False
        if 'subject_id' in x and not _v367(x['subject_id']):
            return False
        if 'request' in x and not _v368(x['request']):
            return False
        if 'disclosed_at' in x and not _v375(x['disclosed_at']):
            return False
        for k in x:
            if k not in ('authorization_id', 'authorization_version', 'repository', 'operation', 'contact_surface', 'subject_id', 'request', 'disclosed_at'):
                return False
    return True


def _v353(x: object) -> bool:
    # journal-entry#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('entry', 'format', 'journal', 'previous_sha256', 'recorded_at', 'seq'):
            if k not in x:
                return False
        if 'format' in x and not _v354(x['format']):
            return False
        if 'journal' in x and not _v355(x['journal']):
            return False
        if 'seq' in x and not _v356(x['seq']):
            return False
        if 'previous_sha256' in x and not _v357(x['previous_sha256']):
            return False
        if 'recorded_at' in x and not _v360(x['recorded_at']):
            return False
        if 'entry' in x and not _v361(x['entry']):
            return False
        for k in x:
            if k not in ('format', 'journal', 'seq', 'previous_sha256', 'recorded_at', 'entry'):
                return False
    return True


def _v377(x: object) -> bool:
    # kill-marker#/properties/format
    if not _eq(x, _C45):
        return False
    return True


def _v378(x: object) -> bool:
    # kill-marker#/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v379(x: object) -> bool:
    # kill-marker#/properties/by
    if not _v92(x):
        return False
    return True


def _v380(x: object) -> bool:
    # kill-marker#/properties/pid
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 4194304:
            return False
    return True


def _v381(x: object) -> bool:
    # kill-marker#/properties/reason
    if not _v77(x):
        return False
    return True


def _v382(x: object) -> bool:
    # kill-marker#/properties/requested_at
    if not _v71(x):
        return False
    return True


def _v376(x: object) -> bool:
    # kill-marker#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('by', 'dispatch_id', 'format', 'pid', 'reason', 'requested_at'):
            if k not in x:
                return False
        if 'format' in x and not _v377(x['format']):
            return False
        if 'dispatch_id' in x and not _v378(x['dispatch_id']):
            return False
        if 'by' in x and not _v379(x['by']):
            return False
        if 'pid' in x and not _v380(x['pid']):
            return False
        if 'reason' in x and not _v381(x['reason']):
            return False
        if 'requested_at' in x and not _v382(x['requested_at']):
            return False
        for k in x:
            if k not in ('format', 'dispatch_id', 'by', 'pid', 'reason', 'requested_at'):
                return False
    return True


def _v384(x: object) -> bool:
    # op-index#/properties/format
    if not _eq(x, _C46):
        return False
    return True


def _v385(x: object) -> bool:
    # op-index#/properties/operation_id
    if not _v7(x):
        return False
    return True


def _v386(x: object) -> bool:
    # op-index#/properties/version
    if not _v85(x):
        return False
    return True


def _v383(x: object) -> bool:
    # op-index#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('format', 'operation_id', 'version'):
            if k not in x:
                return False
        if 'format' in x and not _v384(x['format']):
            return False
        if 'operation_id' in x and not _v385(x['operation_id']):
            return False
        if 'version' in x and not _v386(x['version']):
            return False
        for k in x:
            if k not in ('format', 'operation_id', 'version'):
                return False
    return True


def _v388(x: object) -> bool:
    # outbox-receipt#/properties/format
    if not _eq(x, _C47):
        return False
    return True


def _v389(x: object) -> bool:
    # outbox-receipt#/properties/event_id
    if not _v7(x):
        return False
    return True


def _v390(x: object) -> bool:
    # outbox-receipt#/properties/consumer_id
    if not _v7(x):
        return False
    return True


def _v391(x: object) -> bool:
    # outbox-receipt#/properties/processed_at
    if not _v71(x):
        return False
    return True


def _v393(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/status
    if not any(_eq(x, c) for c in _C48):
        return False
    return True


def _v394(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/operation_nonce
    if not _v3(x):
        return False
    return True


def _v395(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v396(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/dispatch_state
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P14.search(x) is None:
            return False
    return True


def _v397(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/session_id
    if not _v15(x):
        return False
    return True


def _v398(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/session_state
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P14.search(x) is None:
            return False
    return True


def _v399(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/pane_id
    if not _v168(x):
        return False
    return True


def _v400(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/provider_mode
    if not _v26(x):
        return False
    return True


def _v401(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/activation_pending
    if not (isinstance(x, bool)):
        return False
    return True


def _v402(x: object) -> bool:
    # outbox-receipt#/properties/result/properties/reason
    if not _v77(x):
        return False
    return True


def _v392(x: object) -> bool:
    # outbox-receipt#/properties/result
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('operation_nonce', 'status'):
            if k not in x:
                return False
        if 'status' in x and not _v393(x['status']):
            return False
        if 'operation_nonce' in x and not _v394(x['operation_nonce']):
            return False
        if 'dispatch_id' in x and not _v395(x['dispatch_id']):
            return False
        if 'dispatch_state' in x and not _v396(x['dispatch_state']):
            return False
        if 'session_id' in x and not _v397(x['session_id']):
            return False
        if 'session_state' in x and not _v398(x['session_state']):
            return False
        if 'pane_id' in x and not _v399(x['pane_id']):
            return False
        if 'provider_mode' in x and not _v400(x['provider_mode']):
            return False
        if 'activation_pending' in x and not _v401(x['activation_pending']):
            return False
        if 'reason' in x and not _v402(x['reason']):
            return False
        for k in x:
            if k not in ('status', 'operation_nonce', 'dispatch_id', 'dispatch_state', 'session_id', 'session_state', 'pane_id', 'provider_mode', 'activation_pending', 'reason'):
                return False
    return True


def _v387(x: object) -> bool:
    # outbox-receipt#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('consumer_id', 'event_id', 'format', 'processed_at', 'result'):
            if k not in x:
                return False
        if 'format' in x and not _v388(x['format']):
            return False
        if 'event_id' in x and not _v389(x['event_id']):
            return False
        if 'consumer_id' in x and not _v390(x['consumer_id']):
            return False
        if 'processed_at' in x and not _v391(x['processed_at']):
            return False
        if 'result' in x and not _v392(x['result']):
            return False
        for k in x:
            if k not in ('format', 'event_id', 'consumer_id', 'processed_at', 'result'):
                return False
    return True


def _v404(x: object) -> bool:
    # pane-exit#/properties/format
    if not _eq(x, _C49):
        return False
    return True


def _v405(x: object) -> bool:
    # pane-exit#/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v407(x: object) -> bool:
    # pane-exit#/properties/status/anyOf/0
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 255:
            return False
    return True


def _v408(x: object) -> bool:
    # pane-exit#/properties/status/anyOf/1
    if not (x is None):
        return False
    return True


def _v406(x: object) -> bool:
    # pane-exit#/properties/status
    if not (_v407(x) or _v408(x)):
        return False
    return True


def _v410(x: object) -> bool:
    # pane-exit#/properties/signal/anyOf/0
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 64:
            return False
    return True


def _v411(x: object) -> bool:
    # pane-exit#/properties/signal/anyOf/1
    if not (x is None):
        return False
    return True


def _v409(x: object) -> bool:
    # pane-exit#/properties/signal
    if not (_v410(x) or _v411(x)):
        return False
    return True


def _v412(x: object) -> bool:
    # pane-exit#/properties/ended_at
    if not _v71(x):
        return False
    return True


def _v403(x: object) -> bool:
    # pane-exit#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'ended_at', 'format', 'signal', 'status'):
            if k not in x:
                return False
        if 'format' in x and not _v404(x['format']):
            return False
        if 'dispatch_id' in x and not _v405(x['dispatch_id']):
            return False
        if 'status' in x and not _v406(x['status']):
            return False
        if 'signal' in x and not _v409(x['signal']):
            return False
        if 'ended_at' in x and not _v412(x['ended_at']):
            return False
        for k in x:
            if k not in ('format', 'dispatch_id', 'status', 'signal', 'ended_at'):
                return False
    return True


def _v414(x: object) -> bool:
    # pane-registry#/properties/format
    if not _eq(x, _C50):
        return False
    return True


def _v415(x: object) -> bool:
    # pane-registry#/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v416(x: object) -> bool:
    # pane-registry#/properties/session
    if not _v7(x):
        return False
    return True


def _v417(x: object) -> bool:
    # pane-registry#/properties/pane_id
    if not _v168(x):
        return False
    return True


def _v418(x: object) -> bool:
    # pane-registry#/properties/pane_pid
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 2:
            return False
        if x > 4194304:
            return False
    return True


def _v419(x: object) -> bool:
    # pane-registry#/properties/provider_mode
    if not _v26(x):
        return False
    return True


def _v420(x: object) -> bool:
    # pane-registry#/properties/created_at
    if not _v71(x):
        return False
    return True


def _v413(x: object) -> bool:
    # pane-registry#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('created_at', 'dispatch_id', 'format', 'pane_id', 'pane_pid', 'provider_mode', 'session'):
            if k not in x:
                return False
        if 'format' in x and not _v414(x['format']):
            return False
        if 'dispatch_id' in x and not _v415(x['dispatch_id']):
            return False
        if 'session' in x and not _v416(x['session']):
            return False
        if 'pane_id' in x and not _v417(x['pane_id']):
            return False
        if 'pane_pid' in x and not _v418(x['pane_pid']):
            return False
        if 'provider_mode' in x and not _v419(x['provider_mode']):
            return False
        if 'created_at' in x and not _v420(x['created_at']):
            return False
        for k in x:
            if k not in ('format', 'dispatch_id', 'session', 'pane_id', 'pane_pid', 'provider_mode', 'created_at'):
                return False
    return True


def _v422(x: object) -> bool:
    # role-policy#/properties/format
    if not _eq(x, _C51):
        return False
    return True


def _v426(x: object) -> bool:
    # role-policy#/properties/roles/additionalProperties/properties/capabilities/items
    if not _v31(x):
        return False
    return True


def _v425(x: object) -> bool:
    # role-policy#/properties/roles/additionalProperties/properties/capabilities
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 8:
            return False
        for v in x:
            if not _v426(v):
                return False
        if not _unique(x):
            return False
    return True


def _v428(x: object) -> bool:
    # role-policy#/properties/roles/additionalProperties/properties/tools/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P24.search(x) is None:
            return False
    return True


def _v427(x: object) -> bool:
    # role-policy#/properties/roles/additionalProperties/properties/tools
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 64:
            return False
        for v in x:
            if not _v428(v):
                return False
        if not _unique(x):
            return False
    return True


def _v429(x: object) -> bool:
    # role-policy#/properties/roles/additionalProperties/properties/may_review
    if not (isinstance(x, bool)):
        return False
    return True


def _v424(x: object) -> bool:
    # role-policy#/properties/roles/additionalProperties
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('capabilities', 'may_review', 'tools'):
            if k not in x:
                return False
        if 'capabilities' in x and not _v425(x['capabilities']):
            return False
        if 'tools' in x and not _v427(x['tools']):
            return False
        if 'may_review' in x and not _v429(x['may_review']):
            return False
        for k in x:
            if k not in ('capabilities', 'tools', 'may_review'):
                return False
    return True


def _v430(x: object) -> bool:
    # role-policy#/properties/roles/propertyNames
    if not _v17(x):
        return False
    return True


def _v423(x: object) -> bool:
    # role-policy#/properties/roles
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if len(x) < 1:
            return False
        if len(x) > 64:
            return False
        for k, v in x.items():
            if k not in () and not _v424(v):
                return False
        for k in x:
            if not _v430(k):
                return False
    return True


def _v431(x: object) -> bool:
    # role-policy#/properties/human_approval
    if not (isinstance(x, bool)):
        return False
    return True


def _v421(x: object) -> bool:
    # role-policy#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('format', 'human_approval', 'roles'):
            if k not in x:
                return False
        if 'format' in x and not _v422(x['format']):
            return False
        if 'roles' in x and not _v423(x['roles']):
            return False
        if 'human_approval' in x and not _v431(x['human_approval']):
            return False
        for k in x:
            if k not in ('format', 'roles', 'human_approval'):
                return False
    return True


def _v433(x: object) -> bool:
    # session#/properties/kind
    if not _eq(x, _C52):
        return False
    return True


def _v434(x: object) -> bool:
    # session#/properties/state
    if not any(_eq(x, c) for c in _C53):
        return False
    return True


def _v436(x: object) -> bool:
    # session#/properties/payload/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v437(x: object) -> bool:
    # session#/properties/payload/properties/ticket_id
    if not _v7(x):
        return False
    return True


def _v438(x: object) -> bool:
    # session#/properties/payload/properties/role_id
    if not _v17(x):
        return False
    return True


def _v439(x: object) -> bool:
    # session#/properties/payload/properties/engine
    if not _v28(x):
        return False
    return True


def _v440(x: object) -> bool:
    # session#/properties/payload/properties/mode
    if not any(_eq(x, c) for c in _C54):
        return False
    return True


def _v441(x: object) -> bool:
    # session#/properties/payload/properties/native_session_ref
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _P23.search(x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v443(x: object) -> bool:
    # session#/properties/payload/properties/tmux_pane_id/anyOf/0
    if not _v168(x):
        return False
    return True


def _v444(x: object) -> bool:
    # session#/properties/payload/properties/tmux_pane_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v442(x: object) -> bool:
    # session#/properties/payload/properties/tmux_pane_id
    if not (_v443(x) or _v444(x)):
        return False
    return True


def _v445(x: object) -> bool:
    # session#/properties/payload/properties/source_event_id
    if not _v7(x):
        return False
    return True


def _v446(x: object) -> bool:
    # session#/properties/payload/properties/last_observed_at
    if not _v71(x):
        return False
    return True


def _v447(x: object) -> bool:
    # session#/properties/payload/properties/heartbeat_deadline_at
    if not _v71(x):
        return False
    return True


def _v449(x: object) -> bool:
    # session#/properties/payload/properties/parked_until/anyOf/0
    if not _v71(x):
        return False
    return True


def _v450(x: object) -> bool:
    # session#/properties/payload/properties/parked_until/anyOf/1
    if not (x is None):
        return False
    return True


def _v448(x: object) -> bool:
    # session#/properties/payload/properties/parked_until
    if not (_v449(x) or _v450(x)):
        return False
    return True


def _v452(x: object) -> bool:
    # session#/properties/payload/properties/stop_reason/anyOf/0
    if not _v77(x):
        return False
    return True


def _v453(x: object) -> bool:
    # session#/properties/payload/properties/stop_reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v451(x: object) -> bool:
    # session#/properties/payload/properties/stop_reason
    if not (_v452(x) or _v453(x)):
        return False
    return True


def _v454(x: object) -> bool:
    # session#/properties/payload/properties/stop_blocks
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 1000:
            return False
    return True


def _v435(x: object) -> bool:
    # session#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'engine', 'heartbeat_deadline_at', 'last_observed_at', 'mode', 'native_session_ref', 'parked_until', 'role_id', 'source_event_id', 'stop_blocks', 'stop_reason', 'ticket_id', 'tmux_pane_id'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v436(x['dispatch_id']):
            return False
        if 'ticket_id' in x and not _v437(x['ticket_id']):
            return False
        if 'role_id' in x and not _v438(x['role_id']):
            return False
        if 'engine' in x and not _v439(x['engine']):
            return False
        if 'mode' in x and not _v440(x['mode']):
            return False
        if 'native_session_ref' in x and not _v441(x['native_session_ref']):
            return False
        if 'tmux_pane_id' in x and not _v442(x['tmux_pane_id']):
            return False
        if 'source_event_id' in x and not _v445(x['source_event_id']):
            return False
        if 'last_observed_at' in x and not _v446(x['last_observed_at']):
            return False
        if 'heartbeat_deadline_at' in x and not _v447(x['heartbeat_deadline_at']):
            return False
        if 'parked_until' in x and not _v448(x['parked_until']):
            return False
        if 'stop_reason' in x and not _v451(x['stop_reason']):
            return False
        if 'stop_blocks' in x and not _v454(x['stop_blocks']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'ticket_id', 'role_id', 'engine', 'mode', 'native_session_ref', 'tmux_pane_id', 'source_event_id', 'last_observed_at', 'heartbeat_deadline_at', 'parked_until', 'stop_reason', 'stop_blocks'):
                return False
    return True


def _v455(x: object) -> bool:
    # session#/allOf/0
    if not _v80(x):
        return False
    return True


def _v432(x: object) -> bool:
    # session#
    if isinstance(x, dict):
        if 'kind' in x and not _v433(x['kind']):
            return False
        if 'state' in x and not _v434(x['state']):
            return False
        if 'payload' in x and not _v435(x['payload']):
            return False
    if not _v455(x):
        return False
    return True


def _v457(x: object) -> bool:
    # state-meta#/properties/format
    if not _eq(x, _C55):
        return False
    return True


def _v458(x: object) -> bool:
    # state-meta#/properties/created_at
    if not _v71(x):
        return False
    return True


def _v459(x: object) -> bool:
    # state-meta#/properties/public_key
    if not _v169(x):
        return False
    return True


def _v460(x: object) -> bool:
    # state-meta#/properties/key_id
    if not _v3(x):
        return False
    return True


def _v456(x: object) -> bool:
    # state-meta#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('created_at', 'format', 'key_id', 'public_key'):
            if k not in x:
                return False
        if 'format' in x and not _v457(x['format']):
            return False
        if 'created_at' in x and not _v458(x['created_at']):
            return False
        if 'public_key' in x and not _v459(x['public_key']):
            return False
        if 'key_id' in x and not _v460(x['key_id']):
            return False
        for k in x:
            if k not in ('format', 'created_at', 'public_key', 'key_id'):
                return False
    return True


def _v462(x: object) -> bool:
    # ticket-content#/properties/format
    if not _eq(x, _C56):
        return False
    return True


def _v463(x: object) -> bool:
    # ticket-content#/properties/ticket_id
    if not _v7(x):
        return False
    return True


def _v464(x: object) -> bool:
    # ticket-content#/properties/source
    if not any(_eq(x, c) for c in _C57):
        return False
    return True


def _v465(x: object) -> bool:
    # ticket-content#/properties/title
    if not _v46(x):
        return False
    return True


def _v466(x: object) -> bool:
    # ticket-content#/properties/body
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 262144:
            return False
    return True


def _v468(x: object) -> bool:
    # ticket-content#/properties/repository/anyOf/0
    if not _v51(x):
        return False
    return True


def _v469(x: object) -> bool:
    # ticket-content#/properties/repository/anyOf/1
    if not (x is None):
        return False
    return True


def _v467(x: object) -> bool:
    # ticket-content#/properties/repository
    if not (_v468(x) or _v469(x)):
        return False
    return True


def _v471(x: object) -> bool:
    # ticket-content#/properties/url/anyOf/0
    if not _v55(x):
        return False
    return True


def _v472(x: object) -> bool:
    # ticket-content#/properties/url/anyOf/1
    if not (x is None):
        return False
    return True


def _v470(x: object) -> bool:
    # ticket-content#/properties/url
    if not (_v471(x) or _v472(x)):
        return False
    return True


def _v474(x: object) -> bool:
    # ticket-content#/properties/number/anyOf/0
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 1000000000:
            return False
    return True


def _v475(x: object) -> bool:
    # ticket-content#/properties/number/anyOf/1
    if not (x is None):
        return False
    return True


def _v473(x: object) -> bool:
    # ticket-content#/properties/number
    if not (_v474(x) or _v475(x)):
        return False
    return True


def _v461(x: object) -> bool:
    # ticket-content#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('body', 'format', 'number', 'repository', 'source', 'ticket_id', 'title', 'url'):
            if k not in x:
                return False
        if 'format' in x and not _v462(x['format']):
            return False
        if 'ticket_id' in x and not _v463(x['ticket_id']):
            return False
        if 'source' in x and not _v464(x['source']):
            return False
        if 'title' in x and not _v465(x['title']):
            return False
        if 'body' in x and not _v466(x['body']):
            return False
        if 'repository' in x and not _v467(x['repository']):
            return False
        if 'url' in x and not _v470(x['url']):
            return False
        if 'number' in x and not _v473(x['number']):
            return False
        for k in x:
            if k not in ('format', 'ticket_id', 'source', 'title', 'body', 'repository', 'url', 'number'):
                return False
    return True


def _v477(x: object) -> bool:
    # ticket#/properties/kind
    if not _eq(x, _C58):
        return False
    return True


def _v478(x: object) -> bool:
    # ticket#/properties/state
    if not any(_eq(x, c) for c in _C59):
        return False
    return True


def _v480(x: object) -> bool:
    # ticket#/properties/payload/properties/title
    if not _v46(x):
        return False
    return True


def _v481(x: object) -> bool:
    # ticket#/properties/payload/properties/source
    if not any(_eq(x, c) for c in _C60):
        return False
    return True


def _v483(x: object) -> bool:
    # ticket#/properties/payload/properties/repository/anyOf/0
    if not _v51(x):
        return False
    return True


def _v484(x: object) -> bool:
    # ticket#/properties/payload/properties/repository/anyOf/1
    if not (x is None):
        return False
    return True


def _v482(x: object) -> bool:
    # ticket#/properties/payload/properties/repository
    if not (_v483(x) or _v484(x)):
        return False
    return True


def _v485(x: object) -> bool:
    # ticket#/properties/payload/properties/content_sha256
    if not _v3(x):
        return False
    return True


def _v486(x: object) -> bool:
    # ticket#/properties/payload/properties/attempt
    if not _v11(x):
        return False
    return True


def _v488(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token/anyOf/0
    if not _v167(x):
        return False
    return True


def _v489(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token/anyOf/1
    if not (x is None):
        return False
    return True


def _v487(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token
    if not (_v488(x) or _v489(x)):
        return False
    return True


def _v491(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id/anyOf/0
    if not _v7(x):
        return False
    return True


def _v492(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v490(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id
    if not (_v491(x) or _v492(x)):
        return False
    return True


def _v494(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id/anyOf/0
    if not _v15(x):
        return False
    return True


def _v495(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v493(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id
    if not (_v494(x) or _v495(x)):
        return False
    return True


def _v497(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at/anyOf/0
    if not _v71(x):
        return False
    return True


def _v498(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v496(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at
    if not (_v497(x) or _v498(x)):
        return False
    return True


def _v499(x: object) -> bool:
    # ticket#/properties/payload/properties/created_at
    if not _v71(x):
        return False
    return True


def _v501(x: object) -> bool:
    # ticket#/properties/payload/properties/reason/anyOf/0
    if not _v77(x):
        return False
    return True


def _v502(x: object) -> bool:
    # ticket#/properties/payload/properties/reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v500(x: object) -> bool:
    # ticket#/properties/payload/properties/reason
    if not (_v501(x) or _v502(x)):
        return False
    return True


def _v504(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence/anyOf/0
    if not _v3(x):
        return False
    return True


def _v505(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v503(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence
    if not (_v504(x) or _v505(x)):
        return False
    return True


def _v479(x: object) -> bool:
    # ticket#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'content_sha256', 'created_at', 'lease_expires_at', 'lease_token', 'prior_failure_evidence', 'reason', 'repository', 'session_id', 'source', 'title', 'worker_id'):
            if k not in x:
                return False
        if 'title' in x and not _v480(x['title']):
            return False
        if 'source' in x and not _v481(x['source']):
            return False
        if 'repository' in x and not _v482(x['repository']):
            return False
        if 'content_sha256' in x and not _v485(x['content_sha256']):
            return False
        if 'attempt' in x and not _v486(x['attempt']):
            return False
        if 'lease_token' in x and not _v487(x['lease_token']):
            return False
        if 'worker_id' in x and not _v490(x['worker_id']):
            return False
        if 'session_id' in x and not _v493(x['session_id']):
            return False
        if 'lease_expires_at' in x and not _v496(x['lease_expires_at']):
            return False
        if 'created_at' in x and not _v499(x['created_at']):
            return False
        if 'reason' in x and not _v500(x['reason']):
            return False
        if 'prior_failure_evidence' in x and not _v503(x['prior_failure_evidence']):
            return False
        for k in x:
            if k not in ('title', 'source', 'repository', 'content_sha256', 'attempt', 'lease_token', 'worker_id', 'session_id', 'lease_expires_at', 'created_at', 'reason', 'prior_failure_evidence'):
                return False
    return True


def _v506(x: object) -> bool:
    # ticket#/allOf/0
    if not _v80(x):
        return False
    return True


def _v476(x: object) -> bool:
    # ticket#
    if isinstance(x, dict):
        if 'kind' in x and not _v477(x['kind']):
            return False
        if 'state' in x and not _v478(x['state']):
            return False
        if 'payload' in x and not _v479(x['payload']):
            return False
    if not _v506(x):
        return False
    return True


def _v508(x: object) -> bool:
    # worker#/properties/kind
    if not _eq(x, _C61):
        return False
    return True


def _v509(x: object) -> bool:
    # worker#/properties/state
    if not any(_eq(x, c) for c in _C62):
        return False
    return True


def _v511(x: object) -> bool:
    # worker#/properties/payload/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v512(x: object) -> bool:
    # worker#/properties/payload/properties/ticket_id
    if not _v7(x):
        return False
    return True


def _v513(x: object) -> bool:
    # worker#/properties/payload/properties/session_id
    if not _v15(x):
        return False
    return True


def _v514(x: object) -> bool:
    # worker#/properties/payload/properties/role_id
    if not _v17(x):
        return False
    return True


def _v515(x: object) -> bool:
    # worker#/properties/payload/properties/provider_mode
    if not _v26(x):
        return False
    return True


def _v516(x: object) -> bool:
    # worker#/properties/payload/properties/worktree_id
    if not _v7(x):
        return False
    return True


def _v517(x: object) -> bool:
    # worker#/properties/payload/properties/health
    if not any(_eq(x, c) for c in _C63):
        return False
    return True


def _v518(x: object) -> bool:
    # worker#/properties/payload/properties/updated_at
    if not _v71(x):
        return False
    return True


def _v520(x: object) -> bool:
    # worker#/properties/payload/properties/end_reason/anyOf/0
    if not any(_eq(x, c) for c in _C64):
        return False
    return True


def _v521(x: object) -> bool:
    # worker#/properties/payload/properties/end_reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v519(x: object) -> bool:
    # worker#/properties/payload/properties/end_reason
    if not (_v520(x) or _v521(x)):
        return False
    return True


def _v523(x: object) -> bool:
    # worker#/properties/payload/properties/end_detail/anyOf/0
    if not _v77(x):
        return False
    return True


def _v524(x: object) -> bool:
    # worker#/properties/payload/properties/end_detail/anyOf/1
    if not (x is None):
        return False
    return True


def _v522(x: object) -> bool:
    # worker#/properties/payload/properties/end_detail
    if not (_v523(x) or _v524(x)):
        return False
    return True


def _v526(x: object) -> bool:
    # worker#/properties/payload/properties/health_reason/anyOf/0
    if not _v77(x):
        return False
    return True


def _v527(x: object) -> bool:
    # worker#/properties/payload/properties/health_reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v525(x: object) -> bool:
    # worker#/properties/payload/properties/health_reason
    if not (_v526(x) or _v527(x)):
        return False
    return True


def _v510(x: object) -> bool:
    # worker#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'end_detail', 'end_reason', 'health', 'health_reason', 'provider_mode', 'role_id', 'session_id', 'ticket_id', 'updated_at', 'worktree_id'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v511(x['dispatch_id']):
            return False
        if 'ticket_id' in x and not _v512(x['ticket_id']):
            return False
        if 'session_id' in x and not _v513(x['session_id']):
            return False
        if 'role_id' in x and not _v514(x['role_id']):
            return False
        if 'provider_mode' in x and not _v515(x['provider_mode']):
            return False
        if 'worktree_id' in x and not _v516(x['worktree_id']):
            return False
        if 'health' in x and not _v517(x['health']):
            return False
        if 'updated_at' in x and not _v518(x['updated_at']):
            return False
        if 'end_reason' in x and not _v519(x['end_reason']):
            return False
        if 'end_detail' in x and not _v522(x['end_detail']):
            return False
        if 'health_reason' in x and not _v525(x['health_reason']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'ticket_id', 'session_id', 'role_id', 'provider_mode', 'worktree_id', 'health', 'updated_at', 'end_reason', 'end_detail', 'health_reason'):
                return False
    return True


def _v528(x: object) -> bool:
    # worker#/allOf/0
    if not _v80(x):
        return False
    return True


def _v507(x: object) -> bool:
    # worker#
    if isinstance(x, dict):
        if 'kind' in x and not _v508(x['kind']):
            return False
        if 'state' in x and not _v509(x['state']):
            return False
        if 'payload' in x and not _v510(x['payload']):
            return False
    if not _v528(x):
        return False
    return True


def _v530(x: object) -> bool:
    # worktree-record#/properties/format
    if not _eq(x, _C65):
        return False
    return True


def _v531(x: object) -> bool:
    # worktree-record#/properties/ticket_id
    if not _v7(x):
        return False
    return True


def _v532(x: object) -> bool:
    # worktree-record#/properties/repository_root
    if not _v35(x):
        return False
    return True


def _v533(x: object) -> bool:
    # worktree-record#/properties/worktree_root
    if not _v35(x):
        return False
    return True


def _v534(x: object) -> bool:
    # worktree-record#/properties/branch
    if not _v37(x):
        return False
    return True


def _v535(x: object) -> bool:
    # worktree-record#/properties/base_commit
    if not _v39(x):
        return False
    return True


def _v536(x: object) -> bool:
    # worktree-record#/properties/worktree_id
    if not _v7(x):
        return False
    return True


def _v537(x: object) -> bool:
    # worktree-record#/properties/created_at
    if not _v71(x):
        return False
    return True


def _v529(x: object) -> bool:
    # worktree-record#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('base_commit', 'branch', 'created_at', 'format', 'repository_root', 'ticket_id', 'worktree_id', 'worktree_root'):
            if k not in x:
                return False
        if 'format' in x and not _v530(x['format']):
            return False
        if 'ticket_id' in x and not _v531(x['ticket_id']):
            return False
        if 'repository_root' in x and not _v532(x['repository_root']):
            return False
        if 'worktree_root' in x and not _v533(x['worktree_root']):
            return False
        if 'branch' in x and not _v534(x['branch']):
            return False
        if 'base_commit' in x and not _v535(x['base_commit']):
            return False
        if 'worktree_id' in x and not _v536(x['worktree_id']):
            return False
        if 'created_at' in x and not _v537(x['created_at']):
            return False
        for k in x:
            if k not in ('format', 'ticket_id', 'repository_root', 'worktree_root', 'branch', 'base_commit', 'worktree_id', 'created_at'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'advisor-request': _v0,
    'advisor-verdict': _v58,
    'authorization': _v62,
    'bridge-tools': _v98,
    'bridge-tools#/$defs/acknowledge_dispatch_input': _v118,
    'bridge-tools#/$defs/acknowledge_dispatch_output': _v119,
    'bridge-tools#/$defs/read_dispatch_input': _v99,
    'bridge-tools#/$defs/read_dispatch_output': _v100,
    'bridge-tools#/$defs/record_dispatch_result_input': _v123,
    'bridge-tools#/$defs/record_dispatch_result_output': _v129,
    'config': _v137,
    'defs': _v165,
    'defs#/$defs/abs_path': _v35,
    'defs#/$defs/actor': _v92,
    'defs#/$defs/base64': _v170,
    'defs#/$defs/branch': _v37,
    'defs#/$defs/capability': _v31,
    'defs#/$defs/commit': _v39,
    'defs#/$defs/count': _v11,
    'defs#/$defs/engine': _v28,
    'defs#/$defs/model_endpoint': _v23,
    'defs#/$defs/model_endpoint_or_null': _v21,
    'defs#/$defs/model_id': _v19,
    'defs#/$defs/opaque_id': _v7,
    'defs#/$defs/pane_id': _v168,
    'defs#/$defs/person': _v68,
    'defs#/$defs/public_key': _v169,
    'defs#/$defs/reason': _v77,
    'defs#/$defs/repository': _v51,
    'defs#/$defs/role_id': _v17,
    'defs#/$defs/sandbox': _v145,
    'defs#/$defs/sha256': _v3,
    'defs#/$defs/text': _v166,
    'defs#/$defs/timestamp': _v71,
    'defs#/$defs/title': _v46,
    'defs#/$defs/token': _v167,
    'defs#/$defs/transport': _v26,
    'defs#/$defs/url': _v55,
    'defs#/$defs/uuid': _v15,
    'defs#/$defs/version': _v85,
    'dispatch': _v171,
    'dispatch-intent': _v5,
    'event': _v223,
    'evidence': _v296,
    'evidence-envelope': _v289,
    'journal-entry': _v353,
    'kill-marker': _v376,
    'op-index': _v383,
    'outbox-receipt': _v387,
    'pane-exit': _v403,
    'pane-registry': _v413,
    'record-envelope': _v80,
    'role-policy': _v421,
    'session': _v432,
    'state-meta': _v456,
    'ticket': _v476,
    'ticket-content': _v461,
    'worker': _v507,
    'worktree-record': _v529,
}
