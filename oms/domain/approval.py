"""Does this evidence approve this dispatch? Pure checks on verified evidence bodies.

The store has already verified the signature and the content address. These checks bind the evidence
to one dispatch: its kind and producer, the ticket, the dispatch id, the exact intent digest, and
the verdict. Evidence copied from another ticket or dispatch, or for an older intent, is refused.
"""

from __future__ import annotations

from oms.canonical import JsonObject, access, equal
from oms.errors import AuthorityChangedError


def _common(
    body: JsonObject, *, kind: str, producer: str, ticket_id: str, dispatch_id: str, intent: str
) -> JsonObject:
    if body.get("evidence_kind") != kind or body.get("producer") != producer:
        raise AuthorityChangedError(
            f"evidence is {body.get('evidence_kind')} by "
            f"{body.get('producer')} (expected {kind} by {producer})"
        )
    if body.get("ticket_id") != ticket_id:
        raise AuthorityChangedError(
            f"evidence is for ticket {body.get('ticket_id')} (expected {ticket_id})"
        )
    payload = access.obj(body, "payload")
    if payload.get("dispatch_id") != dispatch_id:
        raise AuthorityChangedError(
            f"evidence is for dispatch {payload.get('dispatch_id')} (expected {dispatch_id})"
        )
    if not equal(access.text(payload, "dispatch_intent_sha256"), intent):
        raise AuthorityChangedError(
            "evidence approves another dispatch intent (the intent changed after review)"
        )
    if payload.get("verdict") != "approve":
        raise AuthorityChangedError(f"verdict is {payload.get('verdict')} (expected approve)")
    return payload


def check_advisor_approval(
    body: JsonObject, *, ticket_id: str, dispatch_id: str, intent: str, advisor_role: str
) -> None:
    """Raise `AuthorityChangedError` unless `body` is the advisor approving exactly this intent."""
    _common(
        body,
        kind="advisor-output",
        producer="advisor",
        ticket_id=ticket_id,
        dispatch_id=dispatch_id,
        intent=intent,
    )
    if body.get("producer_role") != advisor_role:
        raise AuthorityChangedError(
            f"advisor evidence comes from role {body.get('producer_role')} (expected "
            f"{advisor_role})"
        )


def check_human_approval(
    body: JsonObject, *, ticket_id: str, dispatch_id: str, intent: str
) -> None:
    """Raise `AuthorityChangedError` unless `body` is a person approving exactly this intent."""
    _common(
        body,
        kind="human-approval",
        producer="human",
        ticket_id=ticket_id,
        dispatch_id=dispatch_id,
        intent=intent,
    )
