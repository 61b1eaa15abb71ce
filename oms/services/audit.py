"""`oms audit log`: the ledger as a readable timeline (issue 14 item 5, ADR 0022). Each entry says what it
wrote: a record's kind, id, version and state; an evidence's kind and ticket; an event's type; a journal
entry. Filters by ticket, dispatch (a worker's id is its dispatch's) and time."""

from __future__ import annotations

import json

from oms.canonical import JsonObject, parse_ts
from oms.services.workspace import Workspace
from oms.store.ledger import Entry, line_key, read_chain

MAX_READ = 1024 * 1024


def timeline(
    ws: Workspace,
    *,
    ticket: str | None = None,
    dispatch: str | None = None,
    since: str | None = None,
    until: str | None = None,
    limit: int = 200,
) -> tuple[list[JsonObject], str | None]:
    """The last `limit` entries that match, oldest first, and where the chain breaks (None: it holds)."""
    low = None if since is None else parse_ts(since, "--since")
    high = None if until is None else parse_ts(until, "--until")
    rows: list[JsonObject] = []
    chain = read_chain(ws.store.state.root, line_key(ws.store.state.root))
    for entry in chain.entries:
        at = parse_ts(entry.at)
        if (low is not None and at < low) or (high is not None and at > high):
            continue
        doc = _doc(ws, entry)
        names = _names(entry, doc)
        if (ticket is not None and ticket not in names) or (dispatch is not None and dispatch not in names):
            continue
        rows.append(
            {"seq": entry.seq, "at": entry.at, "kind": entry.kind, "path": entry.path, "what": _what(entry, doc)}
        )
    return rows[-limit:], chain.fault


def _doc(ws: Workspace, entry: Entry) -> JsonObject:
    if entry.kind == "evidence":
        try:
            return ws.store.evidence.get(entry.path.rsplit("/", 1)[-1].removesuffix(".json")).body
        except Exception:  # noqa: BLE001 - gone or damaged: `oms audit verify` says which
            return {}
    data = ws.store.state.root.read_optional(entry.path, MAX_READ)
    try:
        doc = json.loads(data) if data is not None else {}
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def _names(entry: Entry, doc: JsonObject) -> set[str]:
    """Every id the entry concerns: its path's parts, and the ids its document names."""
    names = set(entry.path.removesuffix(".json").split("/"))
    payload = doc.get("payload")
    for source in (doc, payload if isinstance(payload, dict) else {}):
        for key in ("record_id", "ticket_id", "dispatch_id", "event_id"):
            value = source.get(key)
            if isinstance(value, str):
                names.add(value)
    return names


def _what(entry: Entry, doc: JsonObject) -> str:
    parts = entry.path.split("/")
    if entry.kind in ("record", "adopt") and parts[0] == "records" and len(parts) == 4:
        state = doc.get("state")
        return f"{parts[1]} {parts[2]} v{parts[3].removesuffix('.json')}" + (
            f" -> {state}" if isinstance(state, str) else ""
        )
    if entry.kind == "evidence" or (entry.kind == "adopt" and parts[0] == "evidence"):
        return f"evidence {doc.get('evidence_kind', '?')} of {doc.get('ticket_id', '?')} ({parts[-1][:12]})"
    if parts[0] == "events":
        return f"event {doc.get('event_type', '?')} {parts[-1].removesuffix('.json')}"
    if parts[0] == "journals":
        return f"journal {parts[1]} #{parts[-1].removesuffix('.json')}"
    return entry.path
