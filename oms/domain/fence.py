"""The one rule of whether an attempt may still act (ADR 0013, ADR 0028). Pure.

An attempt (one dispatch) may act only while
- it is not *over*: its dispatch is neither cancelled, rejected nor resolved, and its worker has not
  ended (health `stopped`);
- it is not *fenced*: the ticket's lease is still the one it was given — leased, with its token,
  worker, session and attempt, and not past its expiry —, for a GitHub ticket a person's live
  authorisation of the repository is in force, and its worker is not parked for an earlier lapse
  (that lasts until `oms worker resume`).
`judge` says which (`Standing`), with one line of why; `reason` gives the first lapse's line.

Who asks, at every act (ADR 0028): the broker's hooks and bridge before anything is recorded, result
recording (twice), `oms worker resume`, the model proxy on every request, and the worker's
supervisor on every request it serves and once a second. An attempt that is over has its agent ended
by its supervisor (salvaged first); a fenced one is parked for a person (its pane and worktree
kept); neither gets a model request forwarded. An attempt that holds a result (`has_result`) may
still finish its agent's turn: its hooks let the CLI's own bookkeeping of a goal through
(`FINISHING_TOOLS`) and never hold its Stop.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from oms.canonical import JsonObject, equal, parse_ts

PREFIX = "attempt fenced"
FINISHING_TOOLS = frozenset({"update_goal", "get_goal"})  # Codex's goal bookkeeping (no effect)


class Standing(StrEnum):
    """What an attempt may do now."""

    LIVE = "live"  # it may act
    FENCED = "fenced"  # its authority lapsed while it may run: parked for a person, never ended
    OVER = "over"  # it is finished (its dispatch ended, or its worker): its agent is ended


@dataclass(frozen=True, slots=True)
class Verdict:
    """The rule's answer: the standing, the one line of why (None while live), and whether the
    dispatch holds a result (its agent may finish its turn)."""

    standing: Standing
    reason: str | None = None
    has_result: bool = False

    @property
    def live(self) -> bool:
        """May the attempt act?"""
        return self.standing is Standing.LIVE


def lease_lapse(
    dispatch: JsonObject, ticket_state: str, ticket: JsonObject, now: str
) -> str | None:
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
        return (
            f"attempt {attempt}'s lease is no longer held: the "
            f"ticket was leased again (attempt {held})"
        )
    expires = ticket.get("lease_expires_at")
    if not isinstance(expires, str) or parse_ts(expires) <= parse_ts(now):
        return f"attempt {attempt}'s lease expired at {expires}"
    return None


def authorization_lapse(
    repository: str, state: str | None, authorization: JsonObject | None
) -> str | None:
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
    """Why the dispatch itself no longer authorises its attempt (cancelled, rejected, resolved), or
    None."""
    if state not in ("cancelled", "rejected", "resolved"):
        return None
    return f"the dispatch is {state}" + (f" ({why})" if isinstance(why, str) and why else "")


def parked_by_fence(health: object, health_reason: object) -> str | None:
    """A worker parked because its attempt was fenced stays fenced, even once the lease or
    authorisation is good again, until `oms worker resume` (which checks again, and journals a
    GitHub contact)."""
    if (
        health == "parked"
        and isinstance(health_reason, str)
        and health_reason.startswith(f"{PREFIX}: ")
    ):
        return health_reason.removeprefix(f"{PREFIX}: ") + " (parked until `oms worker resume`)"
    return None


def worker_lapse(health: object) -> str | None:
    """Why the attempt's worker no longer authorises it (it has ended), or None."""
    return "its worker has ended" if health == "stopped" else None


def has_result(dispatch_state: str, dispatch: JsonObject) -> bool:
    """Does the dispatch hold a recorded result?"""
    recorded = isinstance(dispatch.get("result_evidence"), str)
    return recorded and dispatch_state in ("result-received", "resolved")


def judge(
    over: tuple[str | None, ...],
    fenced: tuple[str | None, ...],
    *,
    result: bool = False,
) -> Verdict:
    """The verdict of an attempt's lapses: over (the first of `over` found) before fenced."""
    why = reason(over)
    if why is not None:
        return Verdict(Standing.OVER, why, result)
    why = reason(fenced)
    if why is not None:
        return Verdict(Standing.FENCED, why, result)
    return Verdict(Standing.LIVE, None, result)


def reason(lapses: tuple[str | None, ...]) -> str | None:
    """The one-line reason an attempt is fenced (the first lapse found), or None."""
    for lapse in lapses:
        if lapse is not None:
            return f"{PREFIX}: {lapse}"
    return None
