"""What `oms web` shows, as JSON: the queue (its first `LIMITS.web_queue_rows` tickets, and how
many in all), the pool, each worker (ticket, title, health, reason,
heartbeat age, time running), a worker's timeline and pane log, a result (its summary, diff stat
and verify output) and its diff, and the audit log's last entries. Read through the services `oms
status`, `oms audit log --worker`, `oms worker log`, `oms result show`, `oms result diff` and `oms
audit log` use, after the same handle resolution; every bound is `LIMITS`'; every text an agent
wrote is escaped as those commands escape it (a terminal's controls and bytes that are not UTF-8
as `\\xNN`); nothing here writes (what a person does is `actions.py`)."""

from __future__ import annotations

from oms.canonical import Json, JsonObject, parse_ts
from oms.domain.review import Kept, for_terminal
from oms.errors import OmsError
from oms.limits import LIMITS
from oms.services.admin import audit
from oms.services.admin.status import Snapshot, snapshot
from oms.services.chain import handles
from oms.services.conductor import pool
from oms.services.delivery import panelog
from oms.services.finishing import review
from oms.services.workspace import Workspace
from oms.store import Anchored
from oms.store.ledger import LOG as LEDGER_LOG
from oms.store.payloads import (
    as_json,
    dispatch_payload,
    session_payload,
    ticket_payload,
    worker_payload,
)


def _age_s(now_ms: int, at: object) -> int | None:
    """Seconds from `at` (a timestamp) to now; None when there is none."""
    if not isinstance(at, str):
        return None
    try:
        return max(0, (now_ms - parse_ts(at)) // 1000)
    except OmsError:
        return None


def board(ws: Workspace) -> JsonObject:
    """The whole board, as the page draws it."""
    snap = snapshot(ws)
    now = ws.now()
    now_ms = parse_ts(now)
    titles = {t.record_id: ticket_payload(t)["title"] for t in snap.tickets}
    sessions = {s.record_id: session_payload(s) for s in snap.sessions}
    dispatches = {d.record_id: d for d in snap.dispatches}
    ordered = sorted(snap.tickets, key=lambda r: ticket_payload(r)["created_at"])
    shown = ordered[: LIMITS.web_queue_rows]  # the page draws no more; it says how many in all
    reasons = Snapshot(
        shown, snap.dispatches, snap.workers, [], [], awaiting=snap.awaiting
    ).reasons(now)
    awaiting = {  # ticket id -> its dispatch that waits for a person's approval
        dispatch_payload(d)["ticket_id"]: d.record_id
        for d in snap.dispatches
        if d.record_id in snap.awaiting
    }
    queue: list[Json] = [
        {
            "id": t.record_id,
            "state": t.state,
            "title": titles[t.record_id],
            "worker_id": ticket_payload(t)["worker_id"],
            "reason": reasons.get(t.record_id, ""),
            "awaiting": awaiting.get(t.record_id),
        }
        for t in shown
    ]
    workers: list[Json] = []
    for w in snap.workers:
        wp = worker_payload(w)
        ticket_id = wp["ticket_id"]
        session = sessions.get(wp["session_id"])
        dispatch = dispatches.get(w.record_id)
        workers.append(
            {
                "id": w.record_id,
                "state": w.state,
                "ticket_id": ticket_id,
                "title": titles.get(ticket_id, ""),
                "health": wp["health"],
                "dispatch_state": None if dispatch is None else dispatch.state,
                "reason": wp["health_reason"] or wp["end_reason"] or "",
                "heartbeat_age_s": None
                if session is None
                else _age_s(now_ms, session["last_observed_at"]),
                "running_s": None
                if dispatch is None
                else _age_s(now_ms, dispatch_payload(dispatch)["accepted_at"]),
            }
        )
    try:
        pool_doc: JsonObject = as_json(pool.current(ws))
    except OmsError as exc:  # no committed config: the page says why
        pool_doc = {"error": exc.message}
    results: list[Json] = [
        {
            "dispatch_id": d.record_id,
            "ticket_id": dispatch_payload(d)["ticket_id"],
            "state": d.state,
        }
        for d in snap.dispatches
        if dispatch_payload(d)["result_evidence"] is not None
    ]
    return {
        "now": now,
        "poll_ms": LIMITS.web_poll_ms,
        "warnings": list(snap.warnings),
        "queue": queue,
        "queue_total": len(ordered),
        "pool": pool_doc,
        "workers": workers,
        "results": results,
    }


def marker(ws: Workspace) -> tuple[int, int, int]:
    """What changes whenever the state does: every write oms makes is noted in the ledger's log
    (ADR 0027), so its size and time stand for the whole state; one `lstat`, nothing read. On an
    etcd store every host's write is an entry of the keys' ledger (ADR 0043, amendment
    `etcdledger`): its last key's revision too, one read."""
    st = ws.store.state.root.lstat(LEDGER_LOG)
    backend = ws.store.backend
    moved = backend.chain().moved() if isinstance(backend, Anchored) else 0
    return (0, 0, moved) if st is None else (st.st_size, st.st_mtime_ns, moved)


def audit_tail(ws: Workspace) -> JsonObject:
    """The audit log's last entries (`oms audit log`)."""
    rows, fault = audit.timeline(ws, limit=LIMITS.web_audit_entries)
    entries: list[Json] = list(rows)
    return {"entries": entries, "fault": fault}


def worker_log(ws: Workspace, dispatch_id: str) -> JsonObject:
    """The last lines of a worker's pane log (`oms worker log`), already escaped."""
    panelog.ended(ws, dispatch_id)  # NotFoundError: no such worker
    lines, _ = panelog.read(ws, dispatch_id, None)
    shown: list[Json] = [{"at": ln.at, "text": ln.text} for ln in lines]
    return {"id": dispatch_id, "lines": shown}


def worker(ws: Workspace, handle: str) -> JsonObject:
    """A worker's timeline, what `oms audit log --worker` shows (its last
    `LIMITS.web_timeline_entries` entries, oldest first, each with its time), and its pane log's
    last lines (`oms worker log`: its last `LIMITS.pane_log_tail_bytes`)."""
    dispatch_id = handles.dispatch(ws, handle)
    log = worker_log(ws, dispatch_id)
    rows, fault = audit.timeline(ws, dispatch=dispatch_id, limit=LIMITS.web_timeline_entries)
    return {
        "id": dispatch_id,
        "timeline": _escaped(list(rows)),
        "timeline_fault": fault,
        "timeline_limit": LIMITS.web_timeline_entries,
        "lines": log["lines"],
        "log_tail_bytes": LIMITS.pane_log_tail_bytes,
    }


def result(ws: Workspace, handle: str) -> JsonObject:
    """A result as `oms result show --json` gives it: its summary, diff stat and verify output
    (each check's output's tail), its texts escaped as the command prints them."""
    dispatch_id = handles.dispatch(ws, handle, handles.Want.RESULT)
    doc = _escaped(review.show(ws, dispatch_id).to_json())
    assert isinstance(doc, dict)  # noqa: S101 - an object escaped is an object
    return doc


def diff(ws: Workspace, handle: str) -> JsonObject:
    """A result's diff against the base it would merge onto, as `oms result diff` streams it
    (escaped): its `--stat` first (its first `LIMITS.web_diff_stat_bytes` and its summary line),
    then the diff's first `LIMITS.web_diff_bytes`, cut at a line's end, and a line that says so
    when it was cut (git is ended there: nothing more is read)."""
    dispatch_id = handles.dispatch(ws, handle, handles.Want.RESULT)
    stat = Kept(LIMITS.web_diff_stat_bytes, last=True)
    review.diff(ws, dispatch_id, stat.feed, stat=True)
    full = Kept(LIMITS.web_diff_bytes)
    change = review.diff(ws, dispatch_id, full.feed)
    text = full.end()
    if full.truncated:  # a line of its own, even after a line cut at a character
        ended = text if text.endswith("\n") or not text else text + "\n"
        text = (
            f"{ended}... truncated: the diff is longer than {LIMITS.web_diff_bytes // 1024} KiB; "
            f"`oms result diff {dispatch_id}` shows it all\n"
        )
    return {
        "id": dispatch_id,
        "target": change.target.branch,
        "diff_from": change.old,
        "diff_to": change.new,
        "conflict": None if change.conflict is None else for_terminal(change.conflict),
        "stat": stat.end(),
        "diff": text,
        "truncated": full.truncated,
        "diff_limit_bytes": LIMITS.web_diff_bytes,
    }


def _escaped(value: Json) -> Json:
    """Every string in `value` as `for_terminal` prints it (a control, a bidi override, a byte that
    is not UTF-8: `\\xNN`); the page draws each as text besides."""
    if isinstance(value, str):
        return for_terminal(value)
    if isinstance(value, list):
        return [_escaped(v) for v in value]
    if isinstance(value, dict):
        return {k: _escaped(v) for k, v in value.items()}
    return value
