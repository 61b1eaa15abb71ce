"""The live view `oms conductor run` draws on a terminal after each tick, and the line under it
that says, while a tick runs, what it is doing (`services/conductor/doing.py`)."""

from __future__ import annotations

import time
import unicodedata
from typing import TYPE_CHECKING

from oms.canonical import parse_ts
from oms.domain.panelog import escaped
from oms.limits import LIMITS
from oms.schemas.payloads import TicketState
from oms.store.payloads import session_payload, ticket_payload, worker_payload

if TYPE_CHECKING:
    from oms.services.conductor.tick import Tick
    from oms.services.workspace import Workspace


def cells(text: str) -> int:
    """How many terminal cells `text` takes (a wide character two, a combining mark none)."""
    return sum(_cells(c) for c in text)


def _cells(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def cell(text: str, width: int) -> str:
    """`text` as one column `width` cells wide: on one line, every control escaped
    (`domain/panelog.escaped`), cut with `…` when longer, padded with spaces when shorter."""
    flat = escaped(text)
    if cells(flat) > width:
        out, used = "", 0
        for char in flat:
            if used + _cells(char) > width - 1:
                break
            out, used = out + char, used + _cells(char)
        flat = out + "…"
    return flat + " " * (width - cells(flat))


def _age(since: object, now_ms: int) -> str:
    if not isinstance(since, str):
        return "-"
    seconds = max(0, (now_ms - parse_ts(since)) // 1000)
    return (
        f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
        if seconds >= 3600
        else f"{seconds // 60}m{seconds % 60:02d}s"
    )


def doing_line(what: str) -> str:
    """The last line of the screen: what the tick is doing now ('' between ticks)."""
    return f"now: {what}…" if what else "now: waiting for the next tick"


def render(ws: Workspace, report: Tick) -> str:
    """The screen: pool, workers (their ticket and its title, health, activity, what their agent
    does, age, last heartbeat, class, dispatch), the queue, recent ends, the tick."""
    from oms.services.admin.status import agent_of, snapshot

    snap = snapshot(ws)
    now_ms = parse_ts(ws.now())
    sessions = {session_payload(s).get("dispatch_id"): s for s in snap.sessions}
    titles = {t.record_id: str(ticket_payload(t).get("title") or "") for t in snap.tickets}
    running = [w for w in snap.workers if worker_payload(w)["health"] != "stopped"]
    ended = sorted(
        (w for w in snap.workers if worker_payload(w)["health"] == "stopped"),
        key=lambda w: w.observed_at,
    )
    queue = [t for t in snap.tickets if t.state == TicketState.OPEN]
    width = max([6, *(len(str(worker_payload(w).get("ticket_id"))) for w in snap.workers)])
    width = max([width, *(len(t.record_id) for t in queue[: LIMITS.dashboard_queue_shown])])
    lines = [
        f"oms conductor  {time.strftime('%H:%M:%S')}  pool "
        f"{len(running)}/{ws.config().max_workers}  queue {len(queue)}  tick "
        f"{sum(p.ms for p in report.phases):.0f} ms",
        "",
        f"{cell('TICKET', width)} {cell('TITLE', LIMITS.dashboard_title_cells)} "
        f"{'HEALTH':<9} {'ACTIVITY':<9} {'AGENT':<11} {'AGE':>7} {'BEAT':>7}  {'CLASS':<8} WORKER",
    ]
    for w in running:
        session = sessions.get(w.record_id)
        beat = None if session is None else session_payload(session).get("last_observed_at")
        started = None if session is None else session.observed_at
        agent = str(agent_of(w, session)["agent"])
        shown = report.classes.get(w.record_id, "-")
        ticket = str(worker_payload(w).get("ticket_id"))
        lines.append(
            f"{cell(ticket, width)} {cell(titles.get(ticket, ''), LIMITS.dashboard_title_cells)} "
            f"{worker_payload(w)['health']!s:<9} {w.state:<9} {agent:<11} "
            f"{_age(started, now_ms):>7} {_age(beat, now_ms):>7}  {shown:<8} {w.record_id}"
        )
    if not running:
        lines.append("(no running workers)")
    lines += ["", f"QUEUE ({len(queue)})" if queue else "QUEUE (empty)"]
    lines += [
        f"  {cell(t.record_id, width)} "
        f"{cell(titles[t.record_id], LIMITS.dashboard_title_cells)}".rstrip()
        for t in queue[: LIMITS.dashboard_queue_shown]
    ]
    if len(queue) > LIMITS.dashboard_queue_shown:
        lines.append(f"  … and {len(queue) - LIMITS.dashboard_queue_shown} more")
    lines += ["", "RECENT ENDS"]
    for w in ended[-LIMITS.dashboard_recent :]:
        wp = worker_payload(w)
        ticket = wp["ticket_id"]
        lines.append(
            f"  {cell(ticket, width)} {cell(titles.get(ticket, ''), LIMITS.dashboard_title_cells)} "
            f"{wp['end_reason']}: {cell(str(wp['end_detail']), 60).rstrip()}"
            f"  ({w.record_id})"
        )
    skipped = [f"  {p.name}: {line}" for p in report.phases for line in p.skipped]
    if skipped:
        lines += ["", "SKIPPED THIS TICK", *skipped[: LIMITS.dashboard_recent]]
    return "\n".join(lines) + "\n"
