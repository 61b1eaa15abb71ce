"""Does the store still authorise this dispatch? (ADR 0008; used by accept and by delivery.)

Every check re-reads the records and raises a named error with a one-line reason: the intent digest,
the approval (signed advisor evidence for this exact digest, or a person's where the policy allows),
the committed policy digest, the role as committed (model, endpoint, transport, sandbox, argv,
granted tools, executor instructions: `check_role`), the capabilities, the ticket lease (state,
worker, token, session, attempt, expiry), and the worktree record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from oms.adapters import programs
from oms.canonical import Json, JsonObject, access, equal, sha256_hex
from oms.domain import approval, dispatches, routing, tickets
from oms.domain.config import Role, is_worker_role, role
from oms.domain.dispatches import OPT_OUTS
from oms.domain.policy import Policy, needs_person, role_tools, worker_capabilities
from oms.errors import AuthorityChangedError, ConfigError, LeaseError
from oms.services.chain.worktrees import worktree_id
from oms.services.workspace import Workspace
from oms.services.workspace import policy as policy_service
from oms.services.workspace.committed import Head, committed_instructions, uncommitted
from oms.store import Record
from oms.store.payloads import dispatch_payload, ticket_payload

if TYPE_CHECKING:
    from oms.schemas.payloads import DispatchPayload


@dataclass(frozen=True, slots=True)
class Authority:
    """What the checks read, for the caller to use."""

    ticket: Record
    worktree: JsonObject
    role: Role
    policy: Policy
    instructions: str  # the executor instructions, read once, whose digest the intent approved


def check_intent(dispatch: Record) -> str:
    """The stored intent digest, after recomputing it from the stored payload."""
    stored = dispatch_payload(dispatch)["dispatch_intent_sha256"]
    if not equal(
        dispatches.intent_digest(dispatches.capture_intent(dispatch.record_id, dispatch.payload)),
        stored,
    ):
        raise AuthorityChangedError(
            "dispatch intent digest does not match its payload (the record was altered)"
        )
    return stored


def check_approval(ws: Workspace, dispatch: Record, policy: Policy, intent: str) -> None:
    """Signed approval of exactly this intent: the advisor's, or a person's where policy allows
    it — a person's alone for a role the policy says needs one (`needs_person`)."""
    ticket_id = dispatch_payload(dispatch)["ticket_id"]
    human = dispatch_payload(dispatch).get("approval_evidence")
    if isinstance(human, str):
        if not policy.human_approval:
            raise AuthorityChangedError("the role policy does not allow human approval")
        approval.check_human_approval(
            ws.store.evidence.get(human).body,
            ticket_id=ticket_id,
            dispatch_id=dispatch.record_id,
            intent=intent,
        )
        return
    if needs_person(policy, dispatch_payload(dispatch)["role_id"]):  # no advisor's will do
        raise AuthorityChangedError(
            f"role {dispatch_payload(dispatch)['role_id']} needs a person's approval; "
            f"dispatch {dispatch.record_id} has none",
            hint=f"a person runs `oms dispatch approve {dispatch.record_id}`, then it is accepted",
        )
    ref = dispatch_payload(dispatch).get("advisor_evidence")
    if not isinstance(ref, str):
        how = f"`oms dispatch review {dispatch.record_id}`"
        if policy.human_approval:
            how += f" (or a person's `oms dispatch approve {dispatch.record_id}`)"
        hint = f"run {how}, then accept it"
        raise AuthorityChangedError("dispatch has no approval yet", hint=hint)
    approval.check_advisor_approval(
        ws.store.evidence.get(ref).body,
        ticket_id=ticket_id,
        dispatch_id=dispatch.record_id,
        intent=intent,
        advisor_role=ws.config().advisor_role,
    )


def role_fields(
    ws: Workspace,
    configured: Role,
    policy: Policy,
    instructions: str | None = None,
    provider_id: str | None = None,
) -> JsonObject:
    """What of a role the intent binds, as it is now: the role as committed at HEAD (model,
    endpoint, transport, sandbox, argv) — routed to `provider_id`, the model and endpoint are the
    provider's (`routing.what_runs`) —, the files its launch would run (`adapters/programs.py`), the
    tools the policy grants it, what bounds its sandbox (`[limits]` and its own) and the executor
    instructions' digest."""
    argv: list[Json] | None = list(configured.argv) if configured.argv is not None else None
    files: list[Json] = list(programs.approved(configured.transport, configured.argv))
    tools: list[Json] = list(role_tools(policy, configured.role_id))
    model, endpoint = configured.model, configured.endpoint
    if provider_id is not None:
        provider = ws.config().routing.providers.get(provider_id)
        if provider is None or not provider.enabled:
            raise ConfigError(
                f"provider {provider_id} is {'disabled' if provider else 'no longer configured'}"
            )
        try:
            model, endpoint = routing.what_runs(provider, configured.route, configured.model)
        except KeyError:
            raise ConfigError(
                f"provider {provider_id} has no model alias {configured.route.alias}"
            ) from None
    return {
        "model_id": model,
        "model_endpoint": endpoint,
        "provider_mode": configured.transport,
        "role_sandbox": configured.sandbox,
        "role_network": configured.network,
        "role_credential": configured.credential,
        "role_argv": argv,
        "role_programs": files,
        "role_tools": tools,
        "role_limits": configured.limits.to_json(),  # what bounds its sandbox (ADR 0025)
        "instructions_sha256": sha256_hex(
            (
                committed_instructions(ws.config_root, ws.head())
                if instructions is None
                else instructions
            ).encode("ascii")
        ),
    }


def check_role(
    ws: Workspace,
    configured: Role,
    policy: Policy,
    payload: DispatchPayload,
    head: Head | None = None,
) -> str:
    """What runs is what was approved: `role_fields` now must be the intent's, and nothing of the
    role may differ in the working tree. The refusal names the fields; returns the instructions it
    checked (what a launch gives the agent: read once)."""
    instructions = committed_instructions(ws.config_root, head)
    provider_id = payload.get("provider_id")
    try:
        now = role_fields(
            ws,
            configured,
            policy,
            instructions,
            provider_id,
        )
    except (
        ConfigError
    ) as exc:  # e.g. argv[0] no longer found: what would run is not what was approved
        raise AuthorityChangedError(f"role {configured.role_id}: {exc.message}") from exc
    changed = [f for f, value in now.items() if payload.get(f, OPT_OUTS.get(f)) != value]
    if changed:
        raise AuthorityChangedError(
            f"role {configured.role_id} changed since it was approved: {', '.join(changed)}"
        )
    if not is_worker_role(configured):
        raise AuthorityChangedError(f"role {configured.role_id} is not a worker role")
    drift = uncommitted(ws.config_root, ws.repo, head)
    if drift:
        raise AuthorityChangedError(
            f"uncommitted changes to {', '.join(drift)}: what runs "
            f"comes from HEAD (commit or revert them)"
        )
    return instructions


def check_lease_of(ws: Workspace, ticket: Record, payload: DispatchPayload) -> None:
    """The ticket's lease is still the dispatch's attempt's (state, token, worker, session,
    attempt, not run out), else `AuthorityChangedError`: asked by every accept and delivery, and
    by a person's approval (a lapsed attempt's approval could never be accepted: ADR 0043,
    amendment `cross3`)."""
    try:
        tickets.check_lease(
            ticket.state,
            ticket_payload(ticket),
            token=payload["lease_token"],
            now=ws.now(),
            worker_id=payload["worker_id"],
            session_id=payload["session_id"],
            attempt=payload["attempt"],
        )
    except LeaseError as exc:
        raise AuthorityChangedError(f"ticket lease no longer matches: {exc.message}") from exc


def check_dispatch(ws: Workspace, dispatch: Record, *, approved: bool = True) -> Authority:
    """Every authority check of ADR 0008 except the live authorisation (the caller's, before
    contact); without `approved`, every one but the approval: is the intent still current (what
    a review asks before it pays the advisor, ADR 0031)?"""
    payload = dispatch_payload(dispatch)
    intent = check_intent(dispatch)
    head = ws.reread()  # config, instructions and policy at HEAD: one read for the whole launch
    policy = policy_service.load_tracked(ws.config_root, ws.repo, head)
    if not equal(policy.digest, payload["policy_digest"]):
        raise AuthorityChangedError("role policy changed since the dispatch was proposed")
    if approved:
        check_approval(ws, dispatch, policy, intent)
    config = ws.config()
    configured = role(config, payload["role_id"])
    instructions = check_role(ws, configured, policy, payload, head)
    if payload["capabilities"] != worker_capabilities(policy, configured.role_id):
        raise AuthorityChangedError(
            "dispatch capabilities are not exactly repository-read, ticket-worktree-write"
        )
    ticket = ws.store.records("ticket").read(payload["ticket_id"])
    check_lease_of(ws, ticket, payload)
    asked = ticket_payload(ticket).get("changes_requested")
    if payload.get("changes_requested") != asked:  # ADR 0039
        raise AuthorityChangedError("the changes requested of the ticket are not the dispatch's")
    worktree = ws.store.worktrees.get(ticket.record_id)
    if worktree is None:
        raise AuthorityChangedError(f"ticket {ticket.record_id} has no worktree record")
    expected = {
        "repository_root": ws.config_root,
        "worktree_root": payload["worktree_path"],
        "branch": payload["worktree_branch"],
        "base_commit": payload["worktree_base_commit"],
    }
    if (
        any(worktree[k] != v for k, v in expected.items())
        or worktree["worktree_id"] != payload["worktree_id"]
        or (
            worktree_id(
                *(
                    access.text(worktree, k)
                    for k in ("repository_root", "worktree_root", "branch", "base_commit")
                )
            )
            != payload["worktree_id"]
        )
    ):
        raise AuthorityChangedError("worktree record no longer matches the dispatch")
    return Authority(ticket, worktree, configured, policy, instructions)
