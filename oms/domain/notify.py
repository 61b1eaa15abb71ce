"""Notifications (`[notify]` in .oms/config.toml, ADR 0036), pure: the table, and which record
version is worth which notice.

A ticket version is worth one when it is `done` (but not by a merge: `oms result merge` notifies
`merged` itself, once per merged commit), `blocked`,
or waits for a person (its reason begins "needs a person: ", open or blocked); a worker version
when its health is `parked` (a quota, no result within its turns or minutes, a fence, a person's
park), or when it was ended at a bound of its sandbox (`limit`). A notice's id
is the record and the version it is about, so the same version is notified once, whoever looks
(the conductor's `notify` phase, `oms result merge`). Only versions observed within
`Limits.notify_window_s` are looked at: a configuration added today does not notify last year's
tickets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from oms.canonical import JsonObject, parse_ts, stable_id
from oms.domain.conductor import NEEDS_PERSON
from oms.errors import one_line
from oms.limits import LIMITS

KINDS = ("done", "blocked", "needs-a-person", "parked", "limit", "merged")
FORMAT = "oms-notification-v1"


@dataclass(frozen=True, slots=True)
class NotifyConfig:
    """`[notify]`: the commands (argv each), what they are run on, the variables of the
    conductor's environment they get beside the minimal one, and each command's time limit."""

    commands: tuple[tuple[str, ...], ...]
    on: frozenset[str]
    pass_env: tuple[str, ...] = ()
    timeout_s: float = LIMITS.notify_timeout_s


def parse(table: dict[str, Any] | None) -> NotifyConfig | None:
    """The `[notify]` table (validated by the config schema already), or None without one."""
    if table is None:
        return None
    return NotifyConfig(
        tuple(tuple(argv) for argv in table["commands"]),
        frozenset(table.get("on", KINDS)),
        tuple(table.get("pass_env", ())),
        table.get("timeout_seconds", LIMITS.notify_timeout_s),
    )


class Notice(NamedTuple):
    """One thing worth telling a person."""

    notice_id: str
    kind: str
    at: str
    ticket_id: str
    title: str
    dispatch_id: str | None
    reason: str
    summary: str

    def document(self) -> JsonObject:
        """What a command reads on its stdin (`schemas/notification.schema.json`)."""
        return {"format": FORMAT, **self._asdict()}


def _summary(kind: str, ticket_id: str, title: str, reason: str) -> str:
    said = {
        "done": "is done",
        "merged": "is merged",
        "blocked": "is blocked",
        "needs-a-person": "needs a person",
        "parked": "has its worker parked",
        "limit": "had its worker ended at a bound",
    }[kind]
    tail = f": {reason}" if reason and kind != "merged" else ""
    return one_line(f"oms: {ticket_id} {title!r} {said}{tail}", 1024)


def of_ticket(
    ticket_id: str, version: int, state: str, payload: JsonObject, at: str
) -> Notice | None:
    """The notice a ticket version is worth, if any."""
    reason = payload.get("reason")
    why = reason if isinstance(reason, str) else ""
    if state == "done" and why == "merged":
        return None  # `oms result merge` notifies its merge itself (`merged`)
    if state == "done":
        kind = "done"
    elif why.startswith(NEEDS_PERSON) and state in ("open", "blocked"):
        kind = "needs-a-person"
    elif state == "blocked":
        kind = "blocked"
    else:
        return None
    title = one_line(str(payload.get("title", "")), 512)
    return Notice(
        stable_id("ntf", "ticket", ticket_id, version),
        kind,
        at,
        ticket_id,
        title,
        None,
        one_line(why, 512),
        _summary(kind, ticket_id, title, one_line(why, 200)),
    )


def of_worker(
    dispatch_id: str, version: int, payload: JsonObject, title: str, at: str
) -> Notice | None:
    """The notice a worker version is worth, if any: `parked`, or `limit` when it was ended at a
    bound of its sandbox (`limit: pids`, `memory`, `disk`: a failed attempt, retried)."""
    ended = payload.get("end_reason")
    if payload.get("health") == "stopped" and str(ended).startswith("limit: "):
        kind = "limit"
        reason = one_line(str(payload.get("end_detail") or ended), 512)
    elif payload.get("health") == "parked":
        kind = "parked"
        reason = one_line(str(payload.get("health_reason") or "parked"), 512)
    else:
        return None
    ticket_id = str(payload.get("ticket_id"))
    title = one_line(title, 512)
    return Notice(
        stable_id("ntf", "worker", dispatch_id, version),
        kind,
        at,
        ticket_id,
        title,
        dispatch_id,
        reason,
        _summary(kind, ticket_id, title, one_line(reason, 200)),
    )


def merged(ticket_id: str, title: str, dispatch_id: str, commit: str, at: str) -> Notice:
    """The notice of a merge (`oms result merge`), once per merged commit."""
    title = one_line(title, 512)
    return Notice(
        stable_id("ntf", "merge", dispatch_id, commit),
        "merged",
        at,
        ticket_id,
        title,
        dispatch_id,
        f"merged as {commit}",
        _summary("merged", ticket_id, title, ""),
    )


def fresh(observed_at: str, now: str, window_s: float) -> bool:
    """Was a version observed recently enough to be notified?"""
    return parse_ts(now) - parse_ts(observed_at) <= int(window_s * 1000)
