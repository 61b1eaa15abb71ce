"""The live view `oms conductor run` draws on a terminal after each tick."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from oms.canonical import parse_ts

if TYPE_CHECKING:
    from oms.services.conductor.tick import Tick
    from oms.services.workspace import Workspace

RECENT = 5


def _age(since: object, now_ms: int) -> str:
    if not isinstance(since, str):
        return "-"
    seconds = max(0, (now_ms - parse_ts(since)) // 1000)
    return (
        f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
        if seconds >= 3600
        else f"{seconds // 60}m{seconds % 60:02d}s"
    )


def render(ws: Workspace, report: Tick) -> str:
    """The screen: pool, workers with health, activity, what their agent does, age and last
    heartbeat, the queue, recent ends, the tick."""
    from oms.services.admin.status import agent_of, snapshot

    snap = snapshot(ws)
    now_ms = parse_ts(ws.now())
    sessions = {s.payload.get("dispatch_id"): s for s in snap.sessions}
    running = [w for w in snap.workers if w.payload["health"] != "stopped"]
    ended = sorted(
        (w for w in snap.workers if w.payload["health"] == "stopped"), key=lambda w: w.observed_at
    )
    queue = [t for t in snap.tickets if t.state == "open"]
    lines = [
        f"oms conductor  {time.strftime('%H:%M:%S')}  pool "
        f"{len(running)}/{ws.config().max_workers}  queue {len(queue)}  tick "
        f"{sum(p.ms for p in report.phases):.0f} ms",
        "",
        f"{'WORKER':<28} {'HEALTH':<9} {'ACTIVITY':<9} {'AGENT':<11} {'AGE':>7} {'BEAT':>7}  CLASS",
    ]
    for w in running:
        session = sessions.get(w.record_id)
        beat = None if session is None else session.payload.get("last_observed_at")
        started = None if session is None else session.observed_at
        agent = str(agent_of(w, session)["agent"])
        shown = report.classes.get(w.record_id, "-")
        lines.append(
            f"{w.record_id:<28} {w.payload['health']!s:<9} {w.state:<9} {agent:<11} "
            f"{_age(started, now_ms):>7} {_age(beat, now_ms):>7}  {shown}"
        )
    if not running:
        lines.append("(no running workers)")
    lines += [
        "",
        "QUEUE " + (" ".join(t.record_id for t in queue[:10]) or "(empty)"),
        "",
        "RECENT ENDS",
    ]
    lines += [
        f"  {w.record_id} {w.payload.get('end_reason')}: {w.payload.get('end_detail')}"
        for w in ended[-RECENT:]
    ]
    skipped = [f"  {p.name}: {line}" for p in report.phases for line in p.skipped]
    if skipped:
        lines += ["", "SKIPPED THIS TICK", *skipped[:RECENT]]
    return "\n".join(lines) + "\n"
