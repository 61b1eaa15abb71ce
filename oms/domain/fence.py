"""When an attempt is fenced (DESIGN.md §5.4, §7): its authority has lapsed while its worker may still run. Pure.

An attempt (one dispatch) may change state only while the dispatch is neither cancelled, rejected nor
resolved, the ticket's lease is still the one it was given — leased, with its token, worker, session and
attempt, and not past its expiry — and, for a GitHub ticket, while a person's live authorisation of the
repository is in force; a worker once parked for a lapse stays fenced until `oms worker resume`.
`reason` says why not (one line), or None. Everything the attempt's hooks and bridge would record, and
every resume, asks it first; a fenced attempt's worker is parked (its worktree untouched) and no later
attempt is launched into the worktree while it still runs.
"""

from __future__ import annotations

from oms.canonical import JsonObject, equal, parse_ts

PREFIX = "attempt fenced"


def lease_lapse(dispatch: JsonObject, ticket_state: str, ticket: JsonObject, now: str) -> str | None:
    """Why the ticket's lease no longer authorises the dispatch's attempt, or None."""
    attempt = dispatch.get("attempt")
    held = ticket.get("attempt")
    if ticket_state != "leased":
        if isinstance(held, int) and isinstance(attempt, int) and held > attempt:
            why = ticket.get("reason")
            return f"attempt {attempt}'s lease has ended: the ticket is on attempt {held}" + (
                f" ({why})" if isinstance(why, str) and why else ""
            )
        return f"attempt {attempt}'s lease has ended: the ticket is {ticket_state}"
    token, mine = ticket.get("lease_token"), dispatch.get("lease_token")
    if (
        not isinstance(token, str)
        or not isinstance(mine, str)
        or not equal(token, mine)
        or ticket.get("session_id") != dispatch.get("session_id")
        or ticket.get("worker_id") != dispatch.get("worker_id")
        or held != attempt
    ):
        return f"attempt {attempt}'s lease is no longer held: the ticket was leased again (attempt {held})"
    expires = ticket.get("lease_expires_at")
    if not isinstance(expires, str) or parse_ts(expires) <= parse_ts(now):
        return f"attempt {attempt}'s lease expired at {expires}"
    return None


def authorization_lapse(repository: str, state: str | None, authorization: JsonObject | None) -> str | None:
    """Why a GitHub ticket's repository is no longer live-authorised, or None."""
    if state == "authorized":
        return None
    if state is None or authorization is None:
        return f"no live authorisation for {repository}"
    revoked_at, why = authorization.get("revoked_at"), authorization.get("reason")
    return f"the live authorisation of {repository} was revoked at {revoked_at}" + (
        f" ({why})" if isinstance(why, str) and why else ""
    )


def dispatch_lapse(state: str, why: object) -> str | None:
    """Why the dispatch itself no longer authorises its attempt (cancelled, rejected, resolved), or None."""
    if state not in ("cancelled", "rejected", "resolved"):
        return None
    return f"the dispatch is {state}" + (f" ({why})" if isinstance(why, str) and why else "")


def parked_by_fence(health: object, health_reason: object) -> str | None:
    """A worker parked because its attempt was fenced stays fenced, even once the lease or authorisation
    is good again, until `oms worker resume` (which checks again, and journals a GitHub contact)."""
    if health == "parked" and isinstance(health_reason, str) and health_reason.startswith(f"{PREFIX}: "):
        return health_reason.removeprefix(f"{PREFIX}: ") + " (parked until `oms worker resume`)"
    return None


def reason(lapses: tuple[str | None, ...]) -> str | None:
    """The one-line reason an attempt is fenced (the first lapse found), or None."""
    for lapse in lapses:
        if lapse is not None:
            return f"{PREFIX}: {lapse}"
    return None
