"""One ended ticket compacted on an etcd store (ADR 0043, amendment `upkeep`), by the state root's
rule (`admin/compaction.py`, ADR 0022) and under the compaction lock's fence
(`adapters/etcd/compaction.py`).

Every key to be moved must be as its ledger entry has it (the entry created in its transaction).
The archive's bytes are a function of the keys (its `ended_at` is the ticket's last change), so a
retry makes the same archive; it is created once, with its entry, as `compacted/<ticket>.json.z`
— a key, so another host verifies what it holds without this host. An archive found there is used
only when its entry is one oms wrote. Then the events (each with its receipts) and evidence go,
then the records, each whole; every delete compares the key it read, the ticket's latest pointer
as the rule decided on it (a person's reopen meanwhile keeps the ticket whole: amendment `cross4`)
and the lock's token. What a
compaction stopped anywhere leaves — the archive alone, or its files gone and its records not — is
finished by the next, which works from the archive it finds.
"""

from __future__ import annotations

from collections.abc import Callable

from oms.adapters.etcd import compaction as keys
from oms.adapters.etcd.client import KeyValue
from oms.adapters.etcd.store import EtcdStore
from oms.canonical import JsonObject
from oms.errors import LeaseError
from oms.limits import LIMITS
from oms.store import Record, compaction
from oms.store.backend import Fence
from oms.store.events import EVENTS_DIR

Step = Callable[[str], None]


def no_step(_: str) -> None:
    """No test between the steps."""


def one(
    store: EtcdStore,
    ticket: Record,
    records: dict[str, list[Record]],
    files: list[str],
    receipts: dict[str, list[str]],
    entries: dict[int, str],
    fence: Fence | None,
    *,
    dry_run: bool,
    step: Step = no_step,
) -> JsonObject:
    """Compact `ticket` (`records`: its dispatch, worker and session records by kind; `files`: its
    evidence and events; `receipts`: each event id's receipts; `entries`: the ledger's entry keys
    by create revision, `keys.entries_by_revision`); the report's row."""
    tid = ticket.record_id
    rel = compaction.archive_path(tid)
    at = keys.read(store, [f"latest/ticket/{tid}"]).get(f"latest/ticket/{tid}")
    if at is None or at.value != str(ticket.version).encode():
        return _moved(tid, ticket.version)
    pointers = keys.read(
        store, [f"latest/{kind}/{r.record_id}" for kind, recs in records.items() for r in recs]
    )
    versions: dict[tuple[str, str], list[KeyValue]] = {}
    members: dict[str, KeyValue] = {}
    for kind, recs in records.items():
        for rec in recs:
            top = f"records/{kind}/{rec.record_id}"
            kvs = [kv for kv in keys.under(store, top) if "/ops/" not in kv.key]
            versions[(kind, rec.record_id)] = kvs
            members.update((kv.key[len(store.prefix) :], kv) for kv in kvs)
    event_receipts = [r for p in files for r in receipts.get(_event_id(p), [])]
    found = keys.read(store, [*files, *event_receipts])
    members.update((p, kv) for p, kv in found.items() if p in files)
    latest = f"records/ticket/{tid}/{ticket.version}.json"
    asked = {**members, **{p: kv for p, kv in found.items() if p not in files}}
    asked.update(keys.read(store, [latest, rel]))
    ok = keys.noted(store, asked, entries)
    if latest not in ok:  # what the rule decided on, as oms wrote it
        return {
            "ticket_id": tid,
            "why": f"{latest} is not as the ledger has it (run `oms audit verify`)",
        }
    for path in sorted(p for p in asked if p not in ok and p != rel):
        return {
            "ticket_id": tid,
            "why": f"{path} is not as the ledger has it (run `oms audit verify`)",
        }
    before = sum(len(kv.value) for p, kv in asked.items() if p not in (latest, rel))
    row: JsonObject = {
        "ticket_id": tid,
        "archive": rel,
        "files": len(members),
        "bytes_before": before,
    }
    existing = asked.get(rel)
    if existing is None:
        data = compaction.encode(
            tid, ticket.observed_at, {p: kv.value for p, kv in members.items()}
        )
        if dry_run:
            row["bytes_after"] = len(data)
            return row
        other = store.create_once("compact", rel, data, LIMITS.archive_bytes, fence=fence)
        if other is not None and other != data:  # made meanwhile, and not of these keys
            return {
                "ticket_id": tid,
                "why": f"{rel} appeared meanwhile (the next compaction looks)",
            }
    elif rel not in ok:  # an archive oms never noted: it vouches for nothing, removes nothing
        return {
            "ticket_id": tid,
            "why": f"{rel} is not an archive oms wrote (run `oms audit verify`)",
        }
    else:
        data = existing.value
    archive = compaction.decode(data, rel)
    row["bytes_after"] = len(data)
    if dry_run:
        return row
    if fence is None:  # (a compaction that deletes holds its lock)
        raise LeaseError(f"{rel}: no compaction lock held: nothing deleted")
    step("archived")
    held = compaction.owned(archive)
    for path, kv in sorted(members.items()):
        if held.get(path) != kv.value:  # written after it?
            why = f"archived, but a key stays: {path} is not in the archive with these bytes"
            return {"ticket_id": tid, "why": why}
    groups = [  # each event with its receipts, each evidence key: never apart
        [members[p]] + [found[r] for r in receipts.get(_event_id(p), []) if r in found]
        for p in sorted(members)
        if not p.startswith("records/")
    ]
    for batch in keys.packed(groups):
        if not keys.delete_held(store, batch, fence, at):
            if _changed(store, at):
                return _moved(tid, ticket.version)
            return {"ticket_id": tid, "why": "archived, but a key changed (the next one looks)"}
        step("deleted files")
    whole = [
        keys.Whole(kind, rid, pointers[f"latest/{kind}/{rid}"], kvs)
        for (kind, rid), kvs in sorted(versions.items())
        if kvs and f"latest/{kind}/{rid}" in pointers
    ]
    for records_batch in keys.packed_records(whole):
        if not keys.delete_records(store, records_batch, fence, at):
            if _changed(store, at):
                return _moved(tid, ticket.version)
            return {"ticket_id": tid, "why": "archived, but a record moved (the next one looks)"}
        step("deleted records")
    return row


def _changed(store: EtcdStore, at: KeyValue) -> bool:
    """Whether the ticket's latest pointer moved since `at` was read."""
    now = keys.read(store, [at.key[len(store.prefix) :]])
    return [kv.mod_revision for kv in now.values()] != [at.mod_revision]


def _moved(ticket_id: str, version: int) -> JsonObject:
    """The row of a ticket written since the rule found it ended (a person's reopen): kept."""
    return {"ticket_id": ticket_id, "why": compaction.changed(version)}


def _event_id(path: str) -> str:
    return (
        path.removeprefix(f"{EVENTS_DIR}/").removesuffix(".json")
        if path.startswith(f"{EVENTS_DIR}/")
        else ""
    )
