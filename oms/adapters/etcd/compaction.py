"""Compaction's keys on an etcd store (ADR 0043, amendment `upkeep`): what a compaction reads, how
it checks a key is as its ledger entry has it, and how it deletes keys under its lock's fence.

The rule is the state root's (`store/compaction.py`, ADR 0022): an ended ticket's dispatch, worker
and session records, its evidence and events go into one archive, created once as the key
`compacted/<ticket>.json.z` with its ledger entry (kind `compact`) in one transaction, so every
host reads and verifies it; only then do the members go, each only while it still holds the bytes
that were archived. Every delete is a transaction that also compares the compaction lock's create
revision (`Fence`) and each key's mod revision as it was read: once the lease lapsed, or the lock
was taken again, nothing more is deleted (`LeaseError`). An event goes in the same transaction as
its receipts, so no receipt outlives its event; a record's versions, op entries and latest pointer
go in one transaction, so a reader finds the record whole or gone. Keys are packed into as few
transactions as etcd takes (`LIMITS.etcd_txn_ops`): a ticket's evidence and events in one, its
records in another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import NamedTuple, TypeVar

from oms.adapters.etcd.client import Compare, Delete, Get, KeyValue, Op, TxnResult
from oms.adapters.etcd.store import EtcdStore
from oms.errors import IntegrityError, LeaseError, shown
from oms.limits import LIMITS
from oms.store import ledger
from oms.store.backend import Fence

_T = TypeVar("_T")
LOCK = "compact"  # `locks/compact`: one compaction at a time on the cluster, whichever host


def documents(store: EtcdStore, rel_dir: str) -> Iterator[tuple[str, bytes]]:
    """Every key under `rel_dir/` with its bytes, by its relative name (one walk, in pages)."""
    for kv in store.client.range_prefix(store.key(f"{rel_dir}/")):
        yield kv.key[len(store.prefix) :], kv.value


def read(store: EtcdStore, rels: Sequence[str]) -> dict[str, KeyValue]:
    """The keys `rels` that exist, by relative name, a transaction of gets at a time."""
    found: dict[str, KeyValue] = {}
    for start in range(0, len(rels), LIMITS.etcd_txn_ops):
        batch = rels[start : start + LIMITS.etcd_txn_ops]
        done = store.client.txn([], [Get(store.key(rel)) for rel in batch], [])
        found.update((rel, kv) for rel, kv in zip(batch, done.reads, strict=True) if kv is not None)
    return found


def under(store: EtcdStore, rel_dir: str) -> list[KeyValue]:
    """Every key under `rel_dir/` (a record's versions and op entries)."""
    return list(store.client.range_prefix(store.key(f"{rel_dir}/")))


def entries_by_revision(store: EtcdStore) -> dict[int, str]:
    """Each ledger entry's key by its create revision (one walk of the keys, no values): a key
    oms creates once is created in the same transaction as its entry, at the same revision."""
    return {
        kv.create_revision: kv.key
        for kv in store.client.range_prefix(store.key(ledger.ENTRY_DIR + "/"), keys_only=True)
    }


def noted(store: EtcdStore, found: dict[str, KeyValue], entries: dict[int, str]) -> set[str]:
    """Which of `found` (relative name -> key) are as the ledger has them: the ledger entry created
    in the key's own transaction (`entries`: by create revision) is an entry oms writes (this state
    key's MAC, or a pinned host's signature), names the key and the sha256 of its bytes. A key
    written by hand, or deleted and written again, has no such entry."""
    rels = [rel for rel in found if found[rel].create_revision in entries]
    ok: set[str] = set()
    for start in range(0, len(rels), LIMITS.etcd_txn_ops):
        batch = rels[start : start + LIMITS.etcd_txn_ops]
        asks: list[Op] = [Get(entries[found[rel].create_revision]) for rel in batch]
        done = store.client.txn([], asks, [])
        for rel, kv in zip(batch, done.reads, strict=True):
            if kv is None or kv.create_revision != found[rel].create_revision:
                continue
            digest = hashlib.sha256(found[rel].value).hexdigest()
            try:
                entry = ledger.parse_key_entry(kv.value, store.line, store.pins())
            except IntegrityError:
                continue
            if entry.path == rel and entry.sha256 == digest and (entry.checked or entry.vouched):
                ok.add(rel)
    return ok


def delete_held(store: EtcdStore, keys: Sequence[KeyValue], fence: Fence) -> bool:
    """Delete `keys` in one transaction, only while each is still the key that was read (its mod
    revision) and the lock is still the one taken; False when a key changed (nothing deleted: the
    next compaction looks again); `LeaseError` when the lock was lost."""
    compares = [Compare.modified_at(kv.key, kv.mod_revision) for kv in keys]
    return _fenced(store, fence, compares, [Delete(kv.key) for kv in keys], "keys")


class Whole(NamedTuple):
    """A record to delete whole: its kind, id, latest pointer and versions, as read."""

    kind: str
    record_id: str
    pointer: KeyValue
    versions: Sequence[KeyValue]


def delete_records(store: EtcdStore, records: Sequence[Whole], fence: Fence) -> bool:
    """Delete records whole — each one's versions, op entries and latest pointer — in one
    transaction, only while each pointer still names the version it named when it was read (a
    version written since moves it), each version read is unchanged, and the lock is still the one
    taken; False otherwise (nothing deleted); `LeaseError` when the lock was lost."""
    compares: list[Compare] = []
    ops: list[Op] = []
    for rec in records:
        compares.append(Compare.modified_at(rec.pointer.key, rec.pointer.mod_revision))
        compares += [Compare.modified_at(kv.key, kv.mod_revision) for kv in rec.versions]
        ops.append(Delete(store.key(f"records/{rec.kind}/{rec.record_id}/"), prefix=True))
        ops.append(Delete(rec.pointer.key))
    what = ", ".join(f"{rec.kind} {rec.record_id}" for rec in records)
    return _fenced(store, fence, compares, ops, what)


def packed(groups: Sequence[Sequence[KeyValue]]) -> list[list[KeyValue]]:
    """`groups` of keys packed into transactions' worth (`LIMITS.etcd_txn_ops`, one compare kept
    for the fence), no group split (a group larger than a transaction is refused)."""
    return _pack([(list(g), len(g)) for g in groups])


def packed_records(records: Sequence[Whole]) -> list[list[Whole]]:
    """Records packed into transactions' worth (a record's compares: its pointer and versions)."""
    return _pack([([rec], len(rec.versions) + 1) for rec in records])


def _pack(items: list[tuple[list[_T], int]]) -> list[list[_T]]:
    room = LIMITS.etcd_txn_ops - 1
    out: list[list[_T]] = []
    size = room + 1
    for group, cost in items:
        if cost > room:
            raise IntegrityError(f"{cost} keys to delete together: more than one transaction holds")
        if size + cost > room:
            out.append([])
            size = 0
        out[-1].extend(group)
        size += cost
    return out


def _fenced(
    store: EtcdStore, fence: Fence, compares: list[Compare], ops: list[Op], what: str
) -> bool:
    if len(compares) + 1 > LIMITS.etcd_txn_ops or len(ops) > LIMITS.etcd_txn_ops:
        raise IntegrityError(f"{what}: more keys than one transaction holds")
    done: TxnResult = store.client.txn(
        [*compares, Compare.created_at(fence.key, fence.token)], ops, [Get(fence.key)]
    )
    if done.succeeded:
        return True
    holder = done.reads[0] if done.reads else None
    if holder is None or holder.create_revision != fence.token:
        raise LeaseError(
            f"lock {shown(fence.key)} was lost (its lease lapsed): {what} not deleted, and "
            "nothing more will be",
            hint="run the compaction again: it finishes what this one archived",
        )
    return False
