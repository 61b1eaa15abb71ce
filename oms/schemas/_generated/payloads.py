"""The record kinds' payloads, typed. Generated from schemas/*.schema.json by build/gen_payloads.py. Do not edit.

A TypedDict describes a payload its kind's validator accepted (oms/store/payloads.py casts to it
after the store has validated the record); tests/unit/schemas/test_typed_payloads.py proves each
TypedDict and its validator agree.
"""

# ruff: noqa
# (no `from __future__ import annotations`: a TypedDict's `__required_keys__` are right at run time
# only when its annotations are evaluated)
from enum import StrEnum
from typing import Literal, NotRequired, TypedDict

from oms.canonical.strict_json import Json


class AuthorizationState(StrEnum):
    # authorization#/properties/state

    AUTHORIZED = 'authorized'
    REVOKED = 'revoked'


class DispatchState(StrEnum):
    # dispatch#/properties/state

    PROPOSED = 'proposed'
    ACCEPTED = 'accepted'
    ACKNOWLEDGED = 'acknowledged'
    RESULT_RECEIVED = 'result-received'
    RESOLVED = 'resolved'
    REJECTED = 'rejected'
    CANCELLED = 'cancelled'


class PoolState(StrEnum):
    # pool#/properties/state

    ACTIVE = 'active'


class ProviderState(StrEnum):
    # provider#/properties/state

    KNOWN = 'known'


class SessionState(StrEnum):
    # session#/properties/state

    RUNNING = 'running'
    PARKED = 'parked'
    STALLED = 'stalled'
    STOPPED = 'stopped'


class TicketState(StrEnum):
    # ticket#/properties/state

    OPEN = 'open'
    LEASED = 'leased'
    DONE = 'done'
    BLOCKED = 'blocked'


class WorkerState(StrEnum):
    # worker#/properties/state

    IDLE = 'idle'
    WORKING = 'working'
    DONE = 'done'
    BLOCKED = 'blocked'


class PoolSlotsItemState(StrEnum):
    # pool#/properties/payload/properties/slots/items/properties/state

    ACTIVE = 'active'
    DRAINING = 'draining'


class WorkerHealth(StrEnum):
    # worker#/properties/payload/properties/health

    HEALTHY = 'healthy'
    PARKED = 'parked'
    STALLED = 'stalled'
    STOPPED = 'stopped'


class AuthorizationPayload(TypedDict):
    # authorization#/properties/payload

    repository: str
    person: str
    confirmed_by: Literal['tty', 'flag']
    authorized_at: str
    revoked_at: str | None
    reason: str | None


class SandboxLimits(TypedDict):
    # defs#/$defs/sandbox_limits: The bounds a sandbox runs with (ADR 0025)

    pids: int
    memory_bytes: int
    cpu_weight: int
    disk_bytes: int
    file_bytes: int
    cgroup: Literal['required', 'unsafe-none']


class ChangesRequestedCommentsItem(TypedDict):
    # defs#/$defs/changes_requested/properties/comments/items

    path: str | None
    line: int | None
    text: str


class ChangesRequested(TypedDict):
    # defs#/$defs/changes_requested: What a follow-up attempt carries of the result it follows (issue 27, ADR 0039): part of the approved intent

    dispatch_id: str
    result_commit: str
    previous_summary: str
    summary_truncated: bool
    person: str
    comments: list[ChangesRequestedCommentsItem]


class DispatchPayload(TypedDict):
    # dispatch#/properties/payload

    ticket_id: str
    ticket_version: int
    attempt: int
    worker_id: str
    worker_record_id: str
    lease_token: str
    session_id: str
    role_id: str
    model_id: str
    model_endpoint: str | None
    provider_mode: Literal['claude_interactive', 'claude_print', 'codex_exec', 'codex_goal', 'command']
    engine: Literal['codex', 'claude', 'command']
    capabilities: list[Literal['repository-read', 'ticket-worktree-write']]
    policy_digest: str
    worktree_id: str
    worktree_path: str
    worktree_branch: str
    worktree_base_commit: str
    worktree_start_commit: str
    dispatch_intent_sha256: str
    advisor_evidence: str | None
    approval_evidence: str | None
    prior_failure_evidence: str | None
    result_evidence: str | None
    delivery_event_id: str | None
    accepted_at: str | None
    created_at: str
    reason: str | None
    ticket_content_sha256: str
    advisor_verdict: Literal['approve', 'reject'] | None
    role_sandbox: Literal['read-only', 'ticket-worktree-write']
    role_network: NotRequired[Literal['none', 'host']]
    role_credential: NotRequired[Literal['token', 'raw']]
    role_argv: list[str] | None
    role_tools: list[str]
    role_programs: list[str]
    instructions_sha256: str
    provider_id: NotRequired[str]
    role_limits: NotRequired[SandboxLimits]
    changes_requested: NotRequired[ChangesRequested]


class PoolSlotsItem(TypedDict):
    # pool#/properties/payload/properties/slots/items

    index: int
    name: str
    state: Literal['active', 'draining']
    since: str
    forced: NotRequired[bool]


class PoolPayload(TypedDict):
    # pool#/properties/payload

    next_index: int
    slots: list[PoolSlotsItem]
    updated_at: str


class ProviderPayload(TypedDict):
    # provider#/properties/payload

    provider_id: str
    cooldown_until: None | str
    cooldown_kind: Literal['quota', 'transient'] | None
    cooldown_reason: str | None
    cooldown_source: str | None
    quota_percent: int | None
    probed_at: None | str
    probe_note: str | None
    updated_at: str


class SessionPaneProcess(TypedDict):
    # session#/properties/payload/properties/pane_process: the pane the session was registered for: its first process, the worker's supervisor (boot id, pid, start time in clock ticks; 0: it had ended). A pane's supervisor starts its agent only on a session naming it (ADR 0043, branch ownpane); absent in sessions written before

    boot_id: str
    pid: int
    start_ticks: int


class SessionPayload(TypedDict):
    # session#/properties/payload

    dispatch_id: str
    ticket_id: str
    role_id: str
    engine: Literal['codex', 'claude', 'command']
    mode: Literal['goal', 'pane', 'command', 'exec']
    native_session_ref: str
    tmux_pane_id: str | None
    pane_process: NotRequired[SessionPaneProcess]
    source_event_id: str
    last_observed_at: str
    heartbeat_deadline_at: str
    parked_until: str | None
    stop_reason: str | None
    stop_blocks: int
    agent_stopped_at: NotRequired[str | None]
    turns_without_result: NotRequired[int]
    progress_since: NotRequired[str]
    max_turns_without_result: NotRequired[int]
    max_minutes_without_result: NotRequired[int]
    agent_prompted_at: NotRequired[str | None]
    last_prompted_at: NotRequired[str]
    prompt_due_at: NotRequired[str]


class TicketFailuresItem(TypedDict):
    # ticket#/properties/payload/properties/failures/items

    attempt: int
    dispatch_id: str | None
    failed_at: str
    reason: str


class TicketPayload(TypedDict):
    # ticket#/properties/payload

    title: str
    source: Literal['local', 'github']
    repository: str | None
    repository_root: NotRequired[str]
    added_by: NotRequired[str]
    content_sha256: str
    attempt: int
    lease_token: str | None
    worker_id: str | None
    lease_host: NotRequired[str | None]
    session_id: str | None
    lease_expires_at: str | None
    created_at: str
    reason: str | None
    prior_failure_evidence: str | None
    priority: NotRequired[int]
    retry_after: NotRequired[str | None]
    failures: NotRequired[list[TicketFailuresItem]]
    changes_requested: NotRequired[ChangesRequested]


class WorkerPayload(TypedDict):
    # worker#/properties/payload

    dispatch_id: str
    ticket_id: str
    session_id: str
    role_id: str
    provider_mode: Literal['claude_interactive', 'claude_print', 'codex_exec', 'codex_goal', 'command']
    worktree_id: str
    health: Literal['healthy', 'parked', 'stalled', 'stopped']
    updated_at: str
    end_reason: Literal['result-recorded', 'exit', 'stopped', 'deadline', 'parent-gone', 'signal', 'limit: pids', 'limit: memory', 'limit: disk'] | None
    end_detail: str | None
    health_reason: str | None
    salvage_ref: NotRequired[str]
    salvage_commit: NotRequired[str]
    salvage_error: NotRequired[str]
    host: NotRequired[str]


class AuthorizationFields(TypedDict, total=False):
    # some keys of a authorization payload: what a transition changes

    repository: str
    person: str
    confirmed_by: Literal['tty', 'flag']
    authorized_at: str
    revoked_at: str | None
    reason: str | None


class DispatchFields(TypedDict, total=False):
    # some keys of a dispatch payload: what a transition changes

    ticket_id: str
    ticket_version: int
    attempt: int
    worker_id: str
    worker_record_id: str
    lease_token: str
    session_id: str
    role_id: str
    model_id: str
    model_endpoint: str | None
    provider_mode: Literal['claude_interactive', 'claude_print', 'codex_exec', 'codex_goal', 'command']
    engine: Literal['codex', 'claude', 'command']
    capabilities: list[Literal['repository-read', 'ticket-worktree-write']]
    policy_digest: str
    worktree_id: str
    worktree_path: str
    worktree_branch: str
    worktree_base_commit: str
    worktree_start_commit: str
    dispatch_intent_sha256: str
    advisor_evidence: str | None
    approval_evidence: str | None
    prior_failure_evidence: str | None
    result_evidence: str | None
    delivery_event_id: str | None
    accepted_at: str | None
    created_at: str
    reason: str | None
    ticket_content_sha256: str
    advisor_verdict: Literal['approve', 'reject'] | None
    role_sandbox: Literal['read-only', 'ticket-worktree-write']
    role_network: Literal['none', 'host']
    role_credential: Literal['token', 'raw']
    role_argv: list[str] | None
    role_tools: list[str]
    role_programs: list[str]
    instructions_sha256: str
    provider_id: str
    role_limits: SandboxLimits
    changes_requested: ChangesRequested


class PoolFields(TypedDict, total=False):
    # some keys of a pool payload: what a transition changes

    next_index: int
    slots: list[PoolSlotsItem]
    updated_at: str


class ProviderFields(TypedDict, total=False):
    # some keys of a provider payload: what a transition changes

    provider_id: str
    cooldown_until: None | str
    cooldown_kind: Literal['quota', 'transient'] | None
    cooldown_reason: str | None
    cooldown_source: str | None
    quota_percent: int | None
    probed_at: None | str
    probe_note: str | None
    updated_at: str


class SessionFields(TypedDict, total=False):
    # some keys of a session payload: what a transition changes

    dispatch_id: str
    ticket_id: str
    role_id: str
    engine: Literal['codex', 'claude', 'command']
    mode: Literal['goal', 'pane', 'command', 'exec']
    native_session_ref: str
    tmux_pane_id: str | None
    pane_process: SessionPaneProcess
    source_event_id: str
    last_observed_at: str
    heartbeat_deadline_at: str
    parked_until: str | None
    stop_reason: str | None
    stop_blocks: int
    agent_stopped_at: str | None
    turns_without_result: int
    progress_since: str
    max_turns_without_result: int
    max_minutes_without_result: int
    agent_prompted_at: str | None
    last_prompted_at: str
    prompt_due_at: str


class TicketFields(TypedDict, total=False):
    # some keys of a ticket payload: what a transition changes

    title: str
    source: Literal['local', 'github']
    repository: str | None
    repository_root: str
    added_by: str
    content_sha256: str
    attempt: int
    lease_token: str | None
    worker_id: str | None
    lease_host: str | None
    session_id: str | None
    lease_expires_at: str | None
    created_at: str
    reason: str | None
    prior_failure_evidence: str | None
    priority: int
    retry_after: str | None
    failures: list[TicketFailuresItem]
    changes_requested: ChangesRequested


class WorkerFields(TypedDict, total=False):
    # some keys of a worker payload: what a transition changes

    dispatch_id: str
    ticket_id: str
    session_id: str
    role_id: str
    provider_mode: Literal['claude_interactive', 'claude_print', 'codex_exec', 'codex_goal', 'command']
    worktree_id: str
    health: Literal['healthy', 'parked', 'stalled', 'stopped']
    updated_at: str
    end_reason: Literal['result-recorded', 'exit', 'stopped', 'deadline', 'parent-gone', 'signal', 'limit: pids', 'limit: memory', 'limit: disk'] | None
    end_detail: str | None
    health_reason: str | None
    salvage_ref: str
    salvage_commit: str
    salvage_error: str
    host: str


# record kind -> the TypedDict of its payload
PAYLOADS: dict[str, type] = {
    'authorization': AuthorizationPayload,
    'dispatch': DispatchPayload,
    'pool': PoolPayload,
    'provider': ProviderPayload,
    'session': SessionPayload,
    'ticket': TicketPayload,
    'worker': WorkerPayload,
}

__all__ = [
    'AuthorizationFields',
    'AuthorizationPayload',
    'AuthorizationState',
    'ChangesRequested',
    'ChangesRequestedCommentsItem',
    'DispatchFields',
    'DispatchPayload',
    'DispatchState',
    'PoolFields',
    'PoolPayload',
    'PoolSlotsItem',
    'PoolSlotsItemState',
    'PoolState',
    'ProviderFields',
    'ProviderPayload',
    'ProviderState',
    'SandboxLimits',
    'SessionFields',
    'SessionPaneProcess',
    'SessionPayload',
    'SessionState',
    'TicketFailuresItem',
    'TicketFields',
    'TicketPayload',
    'TicketState',
    'WorkerFields',
    'WorkerHealth',
    'WorkerPayload',
    'WorkerState',
]
