"""Live authorisation of one GitHub repository: `authorized <-> revoked`. Pure.

Only a person starts it (the CLI asks on a TTY, or needs `--person` naming them); revoking is always
allowed. While it is `authorized`, oms may contact agents about that repository's tickets, and each
contact is journaled first.
"""

from __future__ import annotations

from oms.canonical import JsonObject
from oms.domain.machine import Next, step, with_fields

TABLE: dict[str, dict[str, str]] = {
    "authorize": {"revoked": "authorized"},
    "revoke": {"authorized": "revoked"},
}


def new(repository: str, *, person: str, confirmed_by: str, now: str) -> Next:
    """A fresh authorisation."""
    return Next(
        "authorized",
        {
            "repository": repository,
            "person": person,
            "confirmed_by": confirmed_by,
            "authorized_at": now,
            "revoked_at": None,
            "reason": None,
        },
    )


def reauthorize(
    state: str, payload: JsonObject, *, person: str, confirmed_by: str, now: str
) -> Next:
    """Authorise a revoked repository again."""
    return Next(
        step("authorization", TABLE, state, "authorize"),
        with_fields(
            payload,
            person=person,
            confirmed_by=confirmed_by,
            authorized_at=now,
            revoked_at=None,
            reason=None,
        ),
    )


def revoke(state: str, payload: JsonObject, *, now: str, reason: str) -> Next:
    """Withdraw it."""
    return Next(
        step("authorization", TABLE, state, "revoke"),
        with_fields(payload, revoked_at=now, reason=reason),
    )
