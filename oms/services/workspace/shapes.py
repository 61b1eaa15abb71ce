"""The one JSON shape of each object kind a command prints with `--json` (ADR 0007, "One shape per
object"): a ticket is the same object in `oms ticket list --json`, `oms status --json` and every
ticket command; so is a dispatch, a worker, a session and a live authorisation. Each shape is the
record's identity (`id`, `state`, `version`, `observed_at`) and its whole payload, less what is
secret (`lease_token`: a lease's bearer secret); a worker adds what its agent is doing. The shapes'
JSON Schemas are schemas/cli/objects/ (`tests/cli/test_json_shapes.py` holds every command's
output to them)."""

from __future__ import annotations

from oms.canonical import JsonObject
from oms.domain import workers
from oms.store import Record
from oms.store.payloads import worker_payload

SECRET = frozenset({"lease_token"})  # never printed: whoever holds it acts for the lease


def record(rec: Record) -> JsonObject:
    """The common shape: identity, then the payload without its secrets."""
    out: JsonObject = dict(rec.payload)  # (a copy, then a pop: 3x a filtered comprehension)
    for key in SECRET:
        out.pop(key, None)
    out.update(id=rec.record_id, state=rec.state, version=rec.version, observed_at=rec.observed_at)
    return out


def ticket(rec: Record) -> JsonObject:
    """A ticket (schemas/cli/objects/ticket.schema.json)."""
    return record(rec)


def dispatch(rec: Record, waits: dict[str, str] | None = None) -> JsonObject:
    """A dispatch (schemas/cli/objects/dispatch.schema.json); where a view asked which dispatches
    wait for a person's approval (`waits`, by id: `dispatches.awaiting_person`), with
    `waits_for_person`, what it waits for or null."""
    out = record(rec)
    if waits is not None:
        out["waits_for_person"] = waits.get(rec.record_id)
    return out


def session(rec: Record) -> JsonObject:
    """A worker's session (schemas/cli/objects/session.schema.json)."""
    return record(rec)


def authorization(rec: Record) -> JsonObject:
    """A live authorisation (schemas/cli/objects/authorization.schema.json)."""
    return record(rec)


def worker(rec: Record, session_rec: Record | None) -> JsonObject:
    """A worker (schemas/cli/objects/worker.schema.json), with what its agent is doing and since
    when it rests (`agent_of`), read from its session (`session_rec`, None before it has one)."""
    return record(rec) | agent_of(rec, session_rec)


def agent_of(worker_rec: Record, session_rec: Record | None) -> JsonObject:
    """What the worker's agent is doing (`domain/workers.agent`: a `working`, `healthy` worker
    whose agent rests shows `stopped`) and since when it rests."""
    state, payload = (
        (None, None) if session_rec is None else (session_rec.state, session_rec.payload)
    )
    return {
        "agent": workers.agent(
            worker_payload(worker_rec)["health"], worker_rec.state, state, payload
        ),
        "agent_stopped_at": None if payload is None else payload.get("agent_stopped_at"),
    }
