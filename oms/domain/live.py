"""Live authorisation of one GitHub repository: `authorized <-> revoked`. Pure.

Only a person starts it (the CLI asks on a TTY, or needs `--person` naming them); revoking is always
allowed. While it is `authorized`, oms may contact agents about that repository's tickets, and each
contact is journaled first.
"""

from __future__ import annotations

from oms.canonical import JsonObject
from oms.domain.machine import Next, authorization_with, step, with_fields
from oms.schemas.payloads import AuthorizationPayload

TABLE: dict[str, dict[str, str]] = {
    "authorize": {"revoked": "authorized"},
    "revoke": {"authorized": "revoked"},
}


def new(repository: str, *, person: str, confirmed_by: str, now: str) -> Next[AuthorizationPayload]:
    """A fresh authorisation."""
    payload: JsonObject = {
        "repository": repository,
        "person": person,
        "confirmed_by": confirmed_by,
        "authorized_at": now,
        "revoked_at": None,
        "reason": None,
    }
    return Next("authorized", authorization_with(payload))


def reauthorize(
    state: str, payload: JsonObject, *, person: str, confirmed_by: str, now: str
) -> Next[AuthorizationPayload]:
    """Authorise a revoked repository again."""
    return Next(
        step("authorization", TABLE, state, "authorize"),
        authorization_with(
            with_fields(payload, confirmed_by=confirmed_by),  # a `tty` or `flag` the schema checks
            person=person,
            authorized_at=now,
            revoked_at=None,
            reason=None,
        ),
    )


def revoke(state: str, payload: JsonObject, *, now: str, reason: str) -> Next[AuthorizationPayload]:
    """Withdraw it."""
    return Next(
        step("authorization", TABLE, state, "revoke"),
        authorization_with(payload, revoked_at=now, reason=reason),
    )
