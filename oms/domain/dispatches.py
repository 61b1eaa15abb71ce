"""The dispatch state machine and the dispatch intent (ADR 0008). Pure.

States and events:
- `proposed --review--> proposed`      an advisor verdict `approve` is recorded (evidence ref +
  verdict)
- `proposed --review-reject--> rejected` an advisor verdict `reject` is recorded
- `proposed --accept--> accepted`      only with approving evidence for this exact intent digest
- `proposed --reject--> rejected`      a person or the conductor declines it
- `accepted --acknowledge--> acknowledged` (the agent, through the bridge)
- `acknowledged --record-result--> result-received`
- `result-received --resolve--> resolved`
- every non-terminal state `--cancel--> cancelled`
`resolved`, `rejected` and `cancelled` are terminal.

The *intent* is what the dispatch would do: every field delivery compares. Its digest is
`sha256("oms-dispatch-intent-v1\\0" + canonical(intent))`; the advisor approves that digest, and any
change to a field afterwards changes the digest and voids the approval. The lease token itself is
never shown to the advisor: the intent carries its sha256.
"""

from __future__ import annotations

from oms.canonical import JsonObject, digest, sha256_hex
from oms.domain.machine import Next, dispatch_with, step
from oms.errors import one_line
from oms.provider_names import ENGINES as ENGINES  # noqa: PLC0414 (re-exported)
from oms.schemas.payloads import DispatchPayload
from oms.schemas.payloads import DispatchState as DispatchState  # noqa: PLC0414 (re-exported)

TERMINAL = frozenset({DispatchState.RESOLVED, DispatchState.REJECTED, DispatchState.CANCELLED})
NON_TERMINAL = ("proposed", "accepted", "acknowledged", "result-received")

TABLE: dict[str, dict[str, str]] = {
    "review": {"proposed": "proposed"},
    "review-reject": {"proposed": "rejected"},
    "accept": {"proposed": "accepted"},
    "reject": {"proposed": "rejected"},
    "acknowledge": {"accepted": "acknowledged"},
    "record-result": {"acknowledged": "result-received"},
    "resolve": {"result-received": "resolved"},
    "cancel": dict.fromkeys(NON_TERMINAL, "cancelled"),
}

INTENT_FIELDS = (
    "ticket_id",
    "ticket_content_sha256",
    "attempt",
    "worker_id",
    "session_id",
    "role_id",
    "model_id",
    "model_endpoint",
    "provider_mode",
    "engine",
    "capabilities",
    "policy_digest",
    "worktree_id",
    "worktree_path",
    "worktree_branch",
    "worktree_base_commit",
    "worktree_start_commit",
    "prior_failure_evidence",
    "role_sandbox",
    "role_argv",
    "role_tools",
    "role_programs",
    "instructions_sha256",
)


# A role's opt-outs of containment (ADR 0026) and what their absence means: a dispatch proposed
# before they existed holds neither, and is launched contained and keyless.
OPT_OUTS = {"role_network": "none", "role_credential": "token"}


def capture_intent(dispatch_id: str, payload: JsonObject) -> JsonObject:
    """The intent of a dispatch payload (schema `dispatch-intent`)."""
    intent: JsonObject = {name: payload[name] for name in INTENT_FIELDS}
    # routed (issue 13), opt-outs (ADR 0026), what bounds its sandbox (ADR 0025; none: it does
    # not launch): each is part of what was approved
    # and a follow-up's requested changes (ADR 0039): the comments are approved with the rest
    for name in ("provider_id", *OPT_OUTS, "role_limits", "changes_requested"):
        if name in payload:
            intent[name] = payload[name]
    intent["dispatch_id"] = dispatch_id
    intent["lease_token_sha256"] = sha256_hex(str(payload["lease_token"]).encode("ascii"))
    return intent


def intent_digest(intent: JsonObject) -> str:
    """The digest an approval is bound to."""
    return digest("dispatch-intent", intent)


def propose(fields: JsonObject, *, dispatch_id: str, created_at: str) -> Next[DispatchPayload]:
    """A new proposed dispatch from the intent fields plus the lease token; computes the intent
    digest."""
    payload: JsonObject = {
        **fields,
        "worker_record_id": dispatch_id,
        "advisor_evidence": None,
        "advisor_verdict": None,
        "approval_evidence": None,
        "result_evidence": None,
        "delivery_event_id": None,
        "accepted_at": None,
        "created_at": created_at,
        "reason": None,
        "dispatch_intent_sha256": "0" * 64,
    }
    payload["dispatch_intent_sha256"] = intent_digest(capture_intent(dispatch_id, payload))
    return Next(DispatchState.PROPOSED, dispatch_with(payload))


def record_review(
    state: str, payload: JsonObject, *, evidence_ref: str, verdict: str, rationale: str
) -> Next[DispatchPayload]:
    """Record the advisor's verdict: approve keeps it proposed, reject rejects it."""
    if verdict == "approve":
        return Next(
            step("dispatch", TABLE, state, "review"),
            dispatch_with(payload, advisor_evidence=evidence_ref, advisor_verdict="approve"),
        )
    return Next(
        step("dispatch", TABLE, state, "review-reject"),
        dispatch_with(
            payload,
            advisor_evidence=evidence_ref,
            advisor_verdict="reject",
            reason=one_line(f"advisor rejected: {rationale}", default="no reason given"),
        ),
    )


def record_human_approval(
    state: str, payload: JsonObject, *, evidence_ref: str
) -> Next[DispatchPayload]:
    """Record a person's approval (only where the policy allows it; checked by the caller)."""
    return Next(
        step("dispatch", TABLE, state, "review"),
        dispatch_with(payload, approval_evidence=evidence_ref),
    )


def accept(
    state: str, payload: JsonObject, *, delivery_event_id: str, accepted_at: str
) -> Next[DispatchPayload]:
    """Accept a proposed dispatch (the approval checks happen before, in `approval.py`)."""
    return Next(
        step("dispatch", TABLE, state, "accept"),
        dispatch_with(payload, delivery_event_id=delivery_event_id, accepted_at=accepted_at),
    )


def reject(state: str, payload: JsonObject, *, reason: str) -> Next[DispatchPayload]:
    """Decline a proposed dispatch."""
    return Next(
        step("dispatch", TABLE, state, "reject"),
        dispatch_with(payload, reason=one_line(reason, default="no reason given")),
    )


def resolve(state: str, payload: JsonObject, *, reason: str) -> Next[DispatchPayload]:
    """The conductor acted on the result (its ticket done, blocked or retried): the dispatch is
    resolved."""
    return Next(
        step("dispatch", TABLE, state, "resolve"),
        dispatch_with(payload, reason=one_line(reason, default="resolved")),
    )


def cancel(state: str, payload: JsonObject, *, reason: str) -> Next[DispatchPayload]:
    """Cancel a dispatch that has not ended."""
    return Next(
        step("dispatch", TABLE, state, "cancel"),
        dispatch_with(payload, reason=one_line(reason, default="no reason given")),
    )
