"""`oms store compact [--dry-run]` (issue 14 item 5, ADR 0022): an ended ticket's dispatch, worker
and session records, its evidence, events and their receipts, moved into one archive that keeps the
ledger verifiable.

A ticket is compacted only when `finishing.compaction_blocker` finds nothing in the way (ended long
enough ago, every part of it ended, no pane registered, its worktree gone), and only if every file
it would move still has the bytes of its ledger entry (a file edited in place is never archived as
if oms wrote it). The archive is published and noted in the ledger first; then each file goes only
while it still holds the archived bytes (`store/compaction.py`). A compaction killed anywhere is
finished by the next one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

from oms.adapters.etcd import compaction as keys
from oms.adapters.etcd.store import EtcdStore, Keeper
from oms.canonical import JsonObject, parse_ts
from oms.domain import finishing
from oms.errors import LeaseError, LockHeldError, OmsError
from oms.fsio import Root
from oms.fsio.locks import acquire
from oms.limits import LIMITS
from oms.services.admin import compaction_keys
from oms.services.admin.compaction_parts import Parts, names
from oms.services.workspace import Workspace
from oms.store import Record, compaction
from oms.store.backend import Fence
from oms.store.events import EVENTS_DIR
from oms.store.ledger import line_key, read_chain
from oms.store.outbox import OUTBOX_DIR, RECEIPT_SUFFIX


@dataclass
class Report:
    """What a compaction did (or, dry, would do): tickets compacted with their bytes, tickets kept
    and why."""

    dry_run: bool
    off: bool = False  # [retention] compact_after_days = 0
    not_due: int = 0  # ended tickets whose retention has not run out yet
    compacted: list[JsonObject] = field(default_factory=list)
    kept: list[JsonObject] = field(default_factory=list)

    @property
    def bytes_freed(self) -> int:
        """Allocated bytes of the moved files, less the archives'."""
        return sum(int(str(r["bytes_before"])) - int(str(r["bytes_after"])) for r in self.compacted)


def compact(
    ws: Workspace,
    *,
    dry_run: bool,
    limit: int | None = None,
    step: compaction_keys.Step = compaction_keys.no_step,
) -> Report:
    """One pass over the ended tickets (at most `limit` compacted). On an etcd store the keys
    (`admin/compaction_keys.py`), under the cluster's compaction lock, each delete fenced by it;
    `step` is called between the steps (on files: "archived"; a test stops a compaction at one)."""
    report = Report(dry_run)
    after = finishing.parse(ws.config().raw).compact_after_days
    root = ws.store.state.root
    if after <= 0:
        report.off = True
        return report
    cluster = _cluster(ws)
    if cluster is None:
        root.mkdirs(compaction.DIR)
    with _Lock(ws, cluster, dry_run).held() as lock:
        ledger: dict[str, str] = {}

        def last() -> dict[
            str, str
        ]:  # each ledgered path's last digest, read once, only when needed
            if not ledger:
                ledger.update((e.path, e.sha256) for e in read_chain(root, line_key(root)).entries)
            return ledger

        retired = cluster is None and root.exists(compaction.RETIRED)
        if not dry_run and retired and root.listdir(compaction.RETIRED):
            report.kept.extend(
                {"ticket_id": "-", "why": why} for why in compaction.sweep_retired(root, last())
            )
        now_ms = parse_ts(ws.now())
        ended = ws.store.latest("ticket").in_states(finishing.ENDED_TICKET)
        due = [t for t in ended if now_ms >= parse_ts(t.observed_at) + after * finishing.DAY_MS]
        report.not_due = len(ended) - len(due)
        parts = Parts(ws, due, cluster)
        todo: list[Record] = []
        for ticket in due:
            if not parts.has_files(ticket.record_id):
                continue  # compacted already
            why = parts.elsewhere(ticket.record_id) or finishing.compaction_blocker(
                parts.of(ticket), now_ms, after
            )
            if why is not None:
                report.kept.append({"ticket_id": ticket.record_id, "why": why})
            elif limit is None or len(todo) < limit:
                todo.append(ticket)
        for ticket in todo:
            try:
                if cluster is None:
                    row = _one(ws, ticket, parts, last(), dry_run, step)
                else:
                    row = compaction_keys.one(
                        cluster,
                        ticket,
                        parts.records[ticket.record_id],
                        parts.files()[ticket.record_id],
                        parts.receipts(),
                        parts.entries(),
                        lock.fence(),
                        dry_run=dry_run,
                        step=step,
                    )
            except (LeaseError, LockHeldError):
                raise  # the lock is lost (nothing more is deleted), or another compaction's
            except OmsError as exc:
                row = {"ticket_id": ticket.record_id, "why": exc.message}
            (report.kept if "why" in row else report.compacted).append(row)
    return report


def _cluster(ws: Workspace) -> EtcdStore | None:
    """The workspace's etcd store, or None on files."""
    backend = ws.store.backend
    return backend if isinstance(backend, EtcdStore) else None


class _Lock:
    """The compaction lock: the state root's lock file, held for the whole pass; or on a cluster
    `locks/compact` under a lease kept alive while it works (`LockHeldError` naming its holder when
    another compaction, of any host, holds it), taken when the first ticket is to be compacted (an
    idle pass, a tick's most, writes no key), whose fence every write and delete carries. A dry
    run on a cluster takes none: it writes nothing."""

    def __init__(self, ws: Workspace, cluster: EtcdStore | None, dry_run: bool) -> None:
        self.ws, self.cluster, self.dry_run = ws, cluster, dry_run
        self._held: Keeper | None = None

    def fence(self) -> Fence | None:
        """The cluster lock's fence, taken now if it is not yet (None: files, or a dry run)."""
        if self.cluster is None or self.dry_run:
            return None
        if self._held is None:
            holder = f"host {self.ws.host()} pid {os.getpid()}"
            self._held = self.cluster.hold(keys.LOCK, holder, wait_s=0)
        return self._held.fence

    @contextlib.contextmanager
    def held(self) -> Iterator[_Lock]:
        """Hold it for the pass (on files, now), and let it go."""
        try:
            if self.cluster is None:
                with acquire(self.ws.store.state.root, compaction.LOCK):
                    yield self
            else:
                yield self
        finally:
            if self._held is not None:
                self._held.close()


def summary(ws: Workspace, ticket_id: str) -> JsonObject | None:
    """The ticket's archive (path, member count, the ticket's end), or None when it has none; an
    archive oms never noted in the ledger is said to be one (the ledger is read only when an archive
    is there). On a cluster, its key."""
    root = ws.store.state.root
    rel = compaction.archive_path(ticket_id)
    cluster = _cluster(ws)
    try:
        if cluster is not None:  # the archive's key, noted in its own transaction (ADR 0043)
            found = keys.read(cluster, [rel])
            if not found:
                return None
            data = found[rel].value
            entries = keys.entries_by_revision(cluster)
            noted = _sha(data) if keys.noted(cluster, found, entries) else None
        else:
            on_disk = root.read_optional(rel, LIMITS.archive_bytes)
            if on_disk is None:
                return None
            data = on_disk
            noted = {e.path: e.sha256 for e in read_chain(root, line_key(root)).entries}.get(rel)
        if noted != _sha(data):
            return {"archive": rel, "error": "not an archive oms wrote (run `oms audit verify`)"}
        archive = compaction.decode(data, rel)
    except OmsError as exc:  # damaged: said, never the end of the command
        return {"archive": rel, "error": exc.message}
    return {"archive": rel, "files": len(archive.files), "ended_at": archive.ended_at}


def _one(
    ws: Workspace,
    ticket: Record,
    parts: Parts,
    last: dict[str, str],
    dry_run: bool,
    step: compaction_keys.Step,
) -> JsonObject:
    ticket_id, ended_at = ticket.record_id, ticket.observed_at
    root = ws.store.state.root
    latest = f"records/ticket/{ticket_id}/{ticket.version}.json"
    if last.get(latest) != _sha(
        root.read_bytes(latest, LIMITS.admin_read_bytes)
    ):  # what the rule decided on, as oms wrote it
        return {
            "ticket_id": ticket_id,
            "why": f"{latest} is not as the ledger has it (run `oms audit verify`)",
        }
    members: dict[str, bytes] = {}
    dirs: list[tuple[str, str]] = []
    for kind, recs in parts.records[ticket_id].items():
        for rec in recs:
            top = f"records/{kind}/{rec.record_id}"
            dirs.append((kind, rec.record_id))
            for name in root.listdir(top):
                if name != "ops":
                    members[f"{top}/{name}"] = root.read_bytes(
                        f"{top}/{name}", LIMITS.admin_read_bytes
                    )
    for path in parts.files()[ticket_id]:
        data = root.read_optional(path, LIMITS.admin_read_bytes)
        if data is not None:
            members[path] = data
    for path, data in sorted(members.items()):
        if last.get(path) != _sha(data):
            return {
                "ticket_id": ticket_id,
                "why": f"{path} is not as the ledger has it (run `oms audit verify`)",
            }
    before = sum(_blocks(root, p) for p in members)
    rel = compaction.archive_path(ticket_id)
    row: JsonObject = {
        "ticket_id": ticket_id,
        "archive": rel,
        "files": len(members),
        "bytes_before": before,
    }
    on_disk = root.read_optional(rel, LIMITS.archive_bytes)
    if (
        on_disk is None
    ):  # the same files always make the same bytes: a noted intent is made again exactly
        data = compaction.encode(ticket_id, ended_at, members)
        if last.get(rel) not in (None, _sha(data)):
            return {
                "ticket_id": ticket_id,
                "why": f"{rel} was noted with other bytes (run `oms audit verify`)",
            }
        if dry_run:
            row["bytes_after"] = -(-len(data) // 4096) * 4096
            return row
        if last.get(rel) is None:  # noted and published in one unit (ADR 0027)
            published = compaction.publish_noted(root, ticket_id, data)
            last = {**last, rel: _sha(data)} if published else last
        else:  # noted by a compaction that died before publishing (an oms before ADR 0027)
            published = compaction.publish(root, ticket_id, data)
        on_disk = data if published else root.read_bytes(rel, LIMITS.archive_bytes)
    if last.get(rel) != _sha(
        on_disk
    ):  # an archive oms never noted: it vouches for nothing, removes nothing
        return {
            "ticket_id": ticket_id,
            "why": f"{rel} is not an archive oms wrote (run `oms audit verify`)",
        }
    archive = compaction.decode(on_disk, rel)
    if dry_run:
        row["bytes_after"] = _blocks(root, rel)
        return row
    held = compaction.owned(archive)
    for path, content in held.items():
        if last.get(path) != _sha(content):
            return {"ticket_id": ticket_id, "why": f"{rel} holds {path} not as the ledger has it"}
    step("archived")

    def unchanged() -> AbstractContextManager[None]:  # each delete: the ticket still as decided
        return compaction.unless_changed(root, ticket_id, ticket.version)

    # events and evidence, then the receipts of those events (derived: not archived), records last:
    # what a kill leaves, the next compaction finds
    whys: list[str | None] = []
    for path in sorted(held):
        if not path.startswith("records/"):
            with unchanged():
                whys.append(compaction.retire_file(root, path, held))
    if any(w is not None for w in whys):  # the records stay, so the next compaction looks again
        return {
            "ticket_id": ticket_id,
            "why": f"archived, but a file stays: {next(w for w in whys if w)}",
        }
    for event in (p for p in held if p.startswith(f"{EVENTS_DIR}/")):
        eid = event.removeprefix(f"{EVENTS_DIR}/").removesuffix(".json")
        for consumer in names(root, OUTBOX_DIR):
            receipt = f"{OUTBOX_DIR}/{consumer}/{eid}{RECEIPT_SUFFIX}"
            found = root.lstat(receipt) is not None
            data = root.read_optional(receipt, LIMITS.admin_read_bytes) if found else None
            if data is not None and last.get(receipt) not in (None, _sha(data)):  # (ADR 0027)
                why = f"{receipt} is not as the ledger has it (run `oms audit verify`)"
                return {"ticket_id": ticket_id, "why": why}
            with unchanged():
                if root.lstat(receipt) is not None:
                    root.unlink(receipt)
    whys = []
    for kind, rid in dirs:
        with unchanged():
            whys.append(compaction.retire_record(root, kind, rid, held))
    left = [w for w in whys if w is not None]
    if left:
        return {"ticket_id": ticket_id, "why": f"archived, but {len(left)} file(s) stay: {left[0]}"}
    row["bytes_after"] = _blocks(root, rel)
    return row


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _blocks(root: Root, rel: str) -> int:
    st = root.lstat(rel)
    return 0 if st is None else st.st_blocks * 512
