"""The parts of the tickets a compaction pass looks at (`admin/compaction.py`): their dispatch,
worker and session records, evidence and events, read once a pass — from the state root's files,
or on an etcd store from its keys with the outbox's receipts and the ledger's entries by create
revision (ADR 0043, amendment `upkeep`) — and what the rule (`finishing.compaction_blocker`)
decides on."""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Iterator

from oms.adapters.etcd import compaction as keys
from oms.adapters.etcd.store import EtcdStore
from oms.canonical import JsonObject, access, parse_ts
from oms.canonical.strict_json import loads_foreign
from oms.domain import finishing, hosts
from oms.domain.config import worktrees_directory
from oms.errors import OmsError
from oms.fsio import Root
from oms.limits import LIMITS
from oms.services.workspace import Workspace
from oms.store import Record, compaction, panefiles
from oms.store.events import EVENTS_DIR
from oms.store.evidence import EVIDENCE_DIR
from oms.store.hosts import current_name, name_path
from oms.store.outbox import OUTBOX_DIR, RECEIPT_SUFFIX
from oms.store.payloads import session_payload, worker_payload


class Parts:
    """The records, evidence and events of the tickets due, each read once."""

    def __init__(self, ws: Workspace, due: list[Record], cluster: EtcdStore | None) -> None:
        self.ws = ws
        self.root = ws.store.state.root
        self.cluster = cluster
        self._receipts: dict[str, list[str]] | None = None
        self._entries: dict[int, str] | None = None
        wanted = {t.record_id for t in due}
        self.records: dict[str, dict[str, list[Record]]] = {
            t: {k: [] for k in compaction.RECORD_KINDS} for t in wanted
        }
        for kind in compaction.RECORD_KINDS:
            for rec in ws.store.latest(kind).records:
                tid = rec.payload.get("ticket_id")
                if isinstance(tid, str) and tid in wanted:
                    self.records[tid][kind].append(rec)
        self._files: dict[str, list[str]] | None = None
        self._gone: dict[str, bool] = {}

    def has_files(self, ticket_id: str) -> bool:
        """Does a record of the ticket's still live outside an archive? (Its records go last.)"""
        return any(self.records[ticket_id].values())

    def elsewhere(self, ticket_id: str) -> str | None:
        """On a cluster, why a ticket another host's worker ran is that host's to compact: its
        worktree and panes are there, which this host cannot see (None: this host's, or every
        other host it ran on is gone for good — `gone`)."""
        if self.cluster is None:
            return None
        me = self.ws.host()
        for worker in self.records[ticket_id]["worker"]:
            host = hosts.host_of(worker_payload(worker), me)
            if host != me and not self.gone(host):
                return (
                    f"its worker {worker.record_id} ran on host {host}: compact it there (if "
                    f"that host is gone for good, `oms host release-name {host}` first)"
                )
        return None

    def gone(self, host: str) -> bool:
        """Is `host` gone for good on the cluster: its name bound once and released by the person
        (`oms host release-name`, which the host's live heartbeat or conductor lock refuses), and
        not bound again? Its worktree and panes went with its state root, so any host may
        compact what it ran (ADR 0043, amendment `cross5`). Asked once a pass per host."""
        if host not in self._gone:
            cluster = self.cluster
            self._gone[host] = (
                cluster is not None
                and cluster.read(name_path(host), LIMITS.host_claim_bytes) is not None
                and current_name(cluster, host) is None
            )
        return self._gone[host]

    def entries(self) -> dict[int, str]:
        """On a cluster, the ledger's entry keys by create revision (read once, keys only)."""
        if self._entries is None:
            self._entries = {} if self.cluster is None else keys.entries_by_revision(self.cluster)
        return self._entries

    def receipts(self) -> dict[str, list[str]]:
        """On a cluster, event id -> its receipts' keys (read once, keys only)."""
        if self._receipts is None:
            self._receipts = {}
            if self.cluster is not None:
                for kv in self.cluster.client.range_prefix(
                    self.cluster.key(f"{OUTBOX_DIR}/"), keys_only=True
                ):
                    rel = kv.key[len(self.cluster.prefix) :]
                    if rel.endswith(RECEIPT_SUFFIX) and rel.count("/") == 2:
                        eid = rel.rsplit("/", 1)[1].removesuffix(RECEIPT_SUFFIX)
                        self._receipts.setdefault(eid, []).append(rel)
        return self._receipts

    def of(self, ticket: Record) -> finishing.TicketParts:
        """What the rule decides on."""
        recs = self.records[ticket.record_id]
        dispatches = tuple((r.record_id, r.state) for r in recs["dispatch"])
        worktree = self.ws.store.worktrees.get(ticket.record_id)
        path = access.text(worktree, "worktree_root") if worktree is not None else None
        if path is None or not os.path.lexists(
            path
        ):  # (its record is not ledgered: where oms would make it too)
            path = os.path.join(
                worktrees_directory(self.ws.config(), self.ws.config_root), ticket.record_id
            )
        return finishing.TicketParts(
            state=ticket.state,
            ended_ms=parse_ts(ticket.observed_at),
            dispatches=dispatches,
            workers=tuple((r.record_id, worker_payload(r)["health"]) for r in recs["worker"]),
            sessions=tuple(
                (r.record_id, r.state, session_payload(r)["dispatch_id"]) for r in recs["session"]
            ),
            registered_panes=tuple(
                d for d, _ in dispatches if self.root.exists(panefiles.registry_path(d))
            ),
            worktree=path if os.path.lexists(path) else None,
            gone=self._gone_workers(ticket.record_id),
        )

    def _gone_workers(self, ticket_id: str) -> tuple[str, ...]:
        """The ticket's workers (by dispatch id) that ran on a host gone for good: no conductor
        will ever stop them, and their panes went with that host (a gone host's worker left
        running kept its ticket from compaction for ever)."""
        me = self.ws.host() if self.cluster is not None else ""
        return tuple(
            worker.record_id
            for worker in self.records[ticket_id]["worker"]
            if self.cluster is not None
            and (host := hosts.host_of(worker_payload(worker), me)) != me
            and self.gone(host)
        )

    def files(self) -> dict[str, list[str]]:
        """ticket id -> its evidence and events (read once, for every ticket due)."""
        if self._files is not None:
            return self._files
        found: dict[str, list[str]] = {t: [] for t in self.records}
        dispatches = {
            r.record_id: t for t, kinds in self.records.items() for r in kinds["dispatch"]
        }
        for rel, doc in self._documents(EVIDENCE_DIR, evidence=True):
            tid = doc.get("ticket_id")
            if isinstance(tid, str) and tid in found:
                found[tid].append(rel)
        for rel, doc in self._documents(EVENTS_DIR):
            payload = doc.get("payload")
            if not isinstance(payload, dict):
                continue
            tid, did = payload.get("ticket_id"), payload.get("dispatch_id")
            owner = (
                tid
                if isinstance(tid, str) and tid in found
                else dispatches.get(did if isinstance(did, str) else "")
            )
            if owner is not None:
                found[owner].append(rel)
        self._files = found
        return found

    def _documents(
        self, rel_dir: str, *, evidence: bool = False
    ) -> Iterator[tuple[str, JsonObject]]:
        """Each file (or, on a cluster, key) under `rel_dir` with its JSON document (an evidence's
        body; {} when it cannot be read as one)."""
        if self.cluster is not None:
            for rel, data in keys.documents(self.cluster, rel_dir):
                yield rel, _document(data, evidence=evidence)
            return
        for name in names(self.root, rel_dir):
            rel = f"{rel_dir}/{name}"
            try:
                found = self.root.read_optional(rel, LIMITS.admin_read_bytes)
            except OmsError:
                found = None
            yield rel, {} if found is None else _document(found, evidence=evidence)


def names(root: Root, rel: str) -> list[str]:
    """The names in `rel` (none when it cannot be listed), sorted, hidden ones left out."""
    try:
        return sorted(n for n in root.listdir(rel) if not n.startswith("."))
    except OmsError:
        return []


def _document(data: bytes, *, evidence: bool = False) -> JsonObject:
    """Bytes' JSON document (an evidence's body), or {} when they cannot be read as one."""
    try:
        doc = loads_foreign(data)
        if evidence and isinstance(doc, dict):
            doc = loads_foreign(base64.b64decode(str(doc.get("payload", "")), validate=True))
    except (ValueError, RecursionError, binascii.Error):
        return {}
    return doc if isinstance(doc, dict) else {}
