"""Notifications (`[notify]`, ADR 0036 and its amendment), pure: the table, and which record
version is worth which notice.

`[notify]` lives in the person's own settings, `$XDG_CONFIG_HOME/oms/notify.toml` (else
`~/.config/oms/notify.toml`; `SETTINGS`), beside the ledger's anchors: a command that runs on the
host outside every sandbox never comes from a file an agent can write. A repository's
`.oms/config.toml` may hold a result's edits (a branch checked out to try it, or merged), so a
`[notify]` table there is ignored (`Config.stale_notify`: status and doctor say where it moved).

A ticket version is worth one when it is `done` (but not by a merge: `oms result merge` notifies
`merged` itself, once per merged commit), `blocked`, or waits for a person (its reason begins
"needs a person: ", open or blocked); a dispatch version that waits for a person's approval
(`needs-a-person` too, ADR 0008 amendment `waits`); a worker version when its health is `parked` (a
quota, no result within its turns or minutes, a fence, a person's park), or when it was ended at a
bound of its sandbox (`limit`). A notice's id is the record and the version it is about, so the
same version is notified once, whoever looks (the conductor's `notify` phase, `oms result merge`).
Only versions observed within `Limits.notify_window_s` are looked at: a configuration added today
does not notify last year's tickets."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from oms.canonical import JsonObject, dumps, parse_ts, stable_id
from oms.domain.conductor import NEEDS_PERSON
from oms.errors import CanonicalJsonError, ConfigError, SchemaValidationError, one_line
from oms.limits import LIMITS
from oms.schemas import validate

if TYPE_CHECKING:
    from oms.schemas.payloads import TicketPayload, WorkerPayload

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


SETTINGS = "oms/notify.toml"  # under `$XDG_CONFIG_HOME`, else `~/.config`
MOVED = (
    "[notify] in .oms/config.toml is ignored: notify commands run on the host, so they live in "
    "your own settings now, {path} (ADR 0036 amendment); move the table there"
)


def settings_path(env: Mapping[str, str]) -> str:
    """Where the person's `[notify]` lives: `$XDG_CONFIG_HOME/oms/notify.toml`, else
    `$HOME/.config/oms/notify.toml` (the environment is given: no IO here)."""
    base = env.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(base):  # unset, empty or relative: ignored (the XDG spec)
        base = os.path.join(env.get("HOME") or "/", ".config")
    return os.path.join(os.path.abspath(base), SETTINGS)


def parse_settings(data: bytes, where: str) -> NotifyConfig:
    """The person's settings file (`schemas/settings.schema.json`): its `[notify]` table;
    `ConfigError` names `where` and the key."""
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{where}: not UTF-8 at byte {exc.start}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: invalid TOML: {exc}") from exc
    try:
        dumps(doc)  # the JSON profile: no floats, dates or times
        validate("settings", doc, where=where)
    except (CanonicalJsonError, SchemaValidationError) as exc:
        raise ConfigError(
            exc.message if exc.message.startswith(where) else f"{where}: {exc.message}"
        ) from exc
    table = doc["notify"]  # required by the schema
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
    ticket_id: str, version: int, state: str, payload: TicketPayload, at: str
) -> Notice | None:
    """The notice a ticket version is worth, if any."""
    why = payload["reason"] or ""
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
    title = one_line(payload["title"], 512)
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
    dispatch_id: str, version: int, payload: WorkerPayload, title: str, at: str
) -> Notice | None:
    """The notice a worker version is worth, if any: `parked`, or `limit` when it was ended at a
    bound of its sandbox (`limit: pids`, `memory`, `disk`: a failed attempt, retried)."""
    ended = payload["end_reason"]
    if payload["health"] == "stopped" and str(ended).startswith("limit: "):
        kind = "limit"
        reason = one_line(str(payload["end_detail"] or ended), 512)
    elif payload["health"] == "parked":
        kind = "parked"
        reason = one_line(payload["health_reason"] or "parked", 512)
    else:
        return None
    ticket_id = payload["ticket_id"]
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


def of_approval_wait(
    dispatch_id: str, version: int, ticket_id: str, title: str, waits: str, at: str
) -> Notice:
    """The notice of a dispatch version waiting for a person's approval (`needs-a-person`; `waits`:
    the phrase every view shows, `status_reason.awaits_approval`), once per version."""
    title = one_line(title, 512)
    return Notice(
        stable_id("ntf", "approval", dispatch_id, version),
        "needs-a-person",
        at,
        ticket_id,
        title,
        dispatch_id,
        one_line(waits, 512),
        _summary("needs-a-person", ticket_id, title, one_line(waits, 200)),
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
