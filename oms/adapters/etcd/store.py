"""The store's records, events and locks in an etcd cluster (ADR 0043).

Keys under the store's prefix mirror the state root's names:

* `records/<kind>/<id>/<version>.json` — a record version's canonical bytes, created once;
* `records/<kind>/<id>/ops/<operation-id>.json` — the op index, written with its version;
* `latest/<kind>/<id>` — the latest version number (ASCII digits);
* `events/<id>.json` — an event, created once;
* `evidence/<sha256>.json` — a signed evidence envelope, created once, named by its body's digest
  (`store/evidence.py`; ADR 0043 amendment `etcdtick`);
* `tickets/<ticket id>/<sha256>.json` — a ticket's content, created once (`store/content.py`);
* `locks/<name>` — a lock, created under a lease; its create revision is the fencing token
  (`locks/conductor/<host>`: a host's conductor, ADR 0043 amendment `etcdhost`;
  `locks/outbox/<consumer>/<event>`: a processing lock, amendment `etcddeliver`);
* `hosts/<host>` — a host's heartbeat under its lease (`adapters/etcd/hosts.py`).
* `rollbacks/<sha256>.json` — an accepted rollback's ticket floor, signed, created once (every
  host numbers above it: `store/anchor.shared_rollback`, ADR 0043 amendment `floor`).

Version N+1 is one transaction: `If(create_revision(records/…/N+1.json) == 0 ∧ value(latest) == N
[∧ create_revision(lock) == token]) Then(put the version, put latest = N+1, put its op entry)`.
The compare on the latest pointer's value is the compare-and-set: version numbers only grow, so
"latest is still N" is "nobody wrote since the N I decided on", with nothing carried from the read.
etcd is not trusted: every read is parsed and checked by the record store as a file is, and
`verify_keys` walks every key under the prefix as `oms store verify` walks files.
"""

from __future__ import annotations

import hashlib
import random
import re
import threading
import time
from collections.abc import Callable, Generator, Sequence
from contextlib import AbstractContextManager
from typing import NamedTuple

from oms.adapters.etcd import summary
from oms.adapters.etcd.client import Compare, Delete, Etcd, Get, KeyValue, Op, Put, TxnResult
from oms.adapters.etcd.hosts import EtcdBeats, beat_problem
from oms.canonical import access
from oms.domain import hosts as rules
from oms.domain.etcd_settings import PinnedHost
from oms.errors import (
    EtcdError,
    FileTooLargeError,
    HostNameTakenError,
    IntegrityError,
    InvalidInputError,
    LeaseError,
    LockHeldError,
    OmsError,
    shown,
    suppress_faults,
)
from oms.fsio import Root
from oms.limits import LIMITS, Limits
from oms.store import KeysAudit, compaction, ledger
from oms.store import hosts as hosts_store
from oms.store import keys as state_keys
from oms.store.anchor import SHARED_ROLLBACKS, shared_problem
from oms.store.backend import VERSION_NAME, Fence, Publish
from oms.store.content import parse_content
from oms.store.documents import parse_document
from oms.store.events import parse_event
from oms.store.evidence import PAYLOAD_TYPE, open_unsigned
from oms.store.ledger import LineKey
from oms.store.outbox import parse_receipt
from oms.store.records import parse_record, version_digest
from oms.store.summary import Latest

_PREFIX = re.compile(r"/(?:[A-Za-z0-9._-]+/)+")
_DIGITS = re.compile(r"0|[1-9][0-9]{0,15}")
_PART = r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}"
# `conductor/<host>`: a lock per host; `outbox/<consumer>/<event>`: a processing lock
_NAME = re.compile(rf"{_PART}(?:/{_PART}){{0,2}}")


# the directories of a store's keys: a prefix with one of them as a part would put its store's keys
# among another store's own (`<its prefix>ledger/…`), where that store reads them as its own
OWN_DIRS = frozenset(
    (
        "records",
        "latest",
        "events",
        "outbox",
        "locks",
        "ledger",
        "evidence",
        "tickets",
        "hosts",
        "names",
        "compacted",
        "rollbacks",
    )
)


def check_prefix(prefix: str) -> str:
    """A key prefix: `/name/…/`, ASCII, no empty or dot-dot part, and no part that is the name
    of a store's own key directory (`OWN_DIRS`; ADR 0043 amendment `repoparts`)."""
    if not _PREFIX.fullmatch(prefix) or "/../" in prefix or "/./" in prefix:
        raise InvalidInputError(
            f"etcd prefix {shown(prefix)} is not /name/.../", hint="e.g. /oms/my-repository/"
        )
    own = sorted(OWN_DIRS.intersection(prefix.split("/")))
    if own:
        raise InvalidInputError(
            f"etcd prefix {shown(prefix)} has the part {own[0]!r}, a name oms gives its own keys "
            "(under another store's prefix, this store's keys would be among that store's)",
            hint="name the store's prefix otherwise, e.g. /oms/my-repository/",
        )
    return prefix


class EtcdStore:
    """A `Backend` (oms/store/backend.py) on an etcd cluster, under `prefix`."""

    name = "etcd"

    def __init__(
        self, client: Etcd, prefix: str, line: LineKey | None = None, public: bytes | None = None
    ) -> None:
        self.client = client
        self.prefix = check_prefix(prefix)
        self.line = line  # the state root's line key: its writes' ledger entries (None: reads only)
        self.public = public  # the state key's public half: evidence signatures checked by verify
        # other hosts' state keys by key id, as the person pinned them (`[hosts]` in their own
        # `oms/etcd.toml`; ADR 0043, amendment `hostkeys`): what vouches for their entries
        self.pinned: dict[str, PinnedHost] = {}
        # the members' URLs as the pinned `[store]` named them (ADR 0043, amendment `clusterpin`):
        # what a launch spec names, so a worker's processes use the cluster this store was opened on
        self.urls: tuple[str, ...] = ()
        self.wrote = 0  # the writes this store made (a command that wrote anchors the head)
        # the release of the name binding this command acts under, which no write may follow
        # (`fence_name`; ADR 0043, amendment `cross5`), and the name
        self._released: tuple[str, str] | None = None
        # asked before this store's first write when no name fences it yet (`Workspace.host`):
        # a command that never asked its host learns it, and is fenced, before it writes (ADR
        # 0043, amendment `cross6`); None once asked, or for a store that binds no name
        self.learn_host: Callable[[], object] | None = None
        self._head: _Head | None = None  # the ledger's last entry as this store last saw it

    def summary(self, root: Root, kind: str, limits: Limits) -> Latest:
        return summary.refresh(self, root, kind, limits)

    def steady(self) -> AbstractContextManager[None]:
        """A scope in which each kind's summary is ranged once, and again after this process
        writes (`adapters/etcd/summary.py`)."""
        return summary.steady()

    def hold(self, name: str, holder: str, *, wait_s: float) -> Keeper:
        """Take lock `name` under a lease of `LIMITS.etcd_lock_ttl_s` kept alive by its own
        thread while held (`Keeper`; `release` revokes it), waiting up to `wait_s` seconds for
        a holder to let it go; then `LockHeldError` naming the holder (`KeepsLocks`)."""
        deadline = time.monotonic() + wait_s
        while True:
            try:
                held = acquire(self, name, holder)
            except LockHeldError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(LIMITS.etcd_lock_poll_s)
                continue
            return Keeper(self, held, LIMITS.etcd_lock_ttl_s)

    def beats(self) -> EtcdBeats:
        """Hosts' heartbeats: a key per host under its lease (`adapters/etcd/hosts.py`)."""
        return EtcdBeats(self)

    def close(self) -> None:
        """Close the client's connections."""
        self.client.close()

    def audit(self, limits: Limits) -> KeysAudit:
        """Every key and the ledger over them (`walk_keys`), as `oms audit verify` reports it:
        each problem `etcd:<key>: …`."""
        walked = walk_keys(self, limits)
        return KeysAudit(
            walked.entries,
            walked.noted,
            [f"etcd:{printable_key(p.key)}: {p.problem}" for p in walked.problems],
            [f"etcd: {note}" for note in walked.notes],
            walked.compacted,
        )

    def fence_name(self, host: str, released: str) -> None:
        """Every later write compares `released` absent — the release of the binding `host`
        holds for this state key (`store/hosts.release_path`) — in its own transaction: a
        command still running once `oms host release-name` released its name writes nothing
        more, each write refused in one line (ADR 0043, amendment `cross5`)."""
        self._released = (host, released)

    def key(self, rel: str) -> str:
        """The key of the relative name `rel`."""
        return self.prefix + rel

    def _latest_key(self, kind: str, record_id: str) -> str:
        return f"{self.prefix}latest/{kind}/{record_id}"

    def read(self, rel: str, limit: int) -> bytes | None:
        found = self.client.get(self.key(rel))
        if found is None:
            return None
        if len(found.value) > limit:
            raise FileTooLargeError(f"{shown(self.key(rel))}: over {limit} bytes")
        return found.value

    def names(self, rel_dir: str) -> list[str]:
        parts = rel_dir.split("/")
        if len(parts) == 2 and parts[0] == "records":
            under = f"{self.prefix}latest/{parts[1]}/"  # one key a record, not one a version
        else:
            under = f"{self.prefix}{rel_dir}/"
        found = {
            kv.key[len(under) :].split("/", 1)[0]
            for kv in self.client.range_prefix(under, keys_only=True)
        }
        return sorted(found)

    def latest(self, kind: str, record_id: str) -> int | None:
        found = self.client.get(self._latest_key(kind, record_id))
        if found is None:
            return None
        text = found.value.decode("ascii", "replace")
        if not _DIGITS.fullmatch(text):
            raise IntegrityError(f"{shown(found.key)}: not a version number ({shown(text)})")
        return int(text)

    def read_latest(self, kind: str, record_id: str, limit: int) -> tuple[int, bytes] | None:
        """One round trip: the pointer and the newest keys under the record, in one transaction
        (one revision), so they agree unless the keys were tampered with."""
        under = f"{self.prefix}records/{kind}/{record_id}/"
        done = self.client.txn(
            [],
            [
                Get(self._latest_key(kind, record_id)),
                Get(under, prefix=True, limit=2, newest_first=True),
            ],
        )
        pointer, newest = done.reads[0], done.ranges[1]
        if pointer is None:
            return None
        text = pointer.value.decode("ascii", "replace")
        if not _DIGITS.fullmatch(text):
            raise IntegrityError(f"{shown(pointer.key)}: not a version number ({shown(text)})")
        rel = f"{text}.json"
        for kv in newest:  # the version and its op entry share their transaction's revision
            if kv.key == under + rel:
                if len(kv.value) > limit:
                    raise FileTooLargeError(f"{shown(kv.key)}: over {limit} bytes")
                return int(text), kv.value
        raise IntegrityError(
            f"{shown(pointer.key)}: names version {text}, which is not the newest key of the record"
        )

    def versions(self, kind: str, record_id: str) -> list[int]:
        under = f"{self.prefix}records/{kind}/{record_id}/"
        return sorted(
            int(m.group(1))
            for kv in self.client.range_prefix(under, keys_only=True)
            if (m := VERSION_NAME.fullmatch(kv.key[len(under) :]))
        )

    def publish_version(self, item: Publish, fence: Fence | None) -> bool:
        latest = self._latest_key(item.kind, item.record_id)
        entry_rel, entry = item.own_entry
        compares = [Compare.absent(self.key(item.rel)), Compare.absent(self.key(entry_rel))]
        if item.version == 0:
            compares.append(Compare.absent(latest))
        else:
            compares.append(Compare.value_is(latest, str(item.version - 1).encode()))
        if fence is not None:
            compares.append(Compare.created_at(fence.key, fence.token))
        done = self._noted(
            "record",
            item.rel,
            item.data,
            compares,
            [
                Put(self.key(item.rel), item.data),
                Put(latest, str(item.version).encode()),
                Put(self.key(entry_rel), entry),
            ],
            [] if fence is None else [Get(fence.key)],
        )
        if done.succeeded:
            return True
        if fence is not None:
            holder = done.reads[0] if done.reads else None
            if holder is None or holder.create_revision != fence.token:
                raise LeaseError(
                    f"lock {shown(fence.key)} was lost (its lease lapsed): "
                    f"{item.kind} {item.record_id} version {item.version} was not written",
                    hint="take the lock again and decide again on what the store holds now",
                )
        return False

    def create_once(
        self,
        note: str,
        rel: str,
        data: bytes,
        limit: int,
        *,
        fence: Fence | None = None,
    ) -> bytes | None:
        key = self.key(rel)
        compares = [Compare.absent(key)]
        if fence is not None:
            compares.append(Compare.created_at(fence.key, fence.token))
        done = self._noted(
            note,
            rel,
            data,
            compares,
            [Put(key, data)],
            [Get(key)] + ([] if fence is None else [Get(fence.key)]),
        )
        if done.succeeded:
            return None
        if fence is not None:
            holder = done.reads[1]
            if holder is None or holder.create_revision != fence.token:
                raise LeaseError(
                    f"lock {shown(fence.key)} was lost (its lease lapsed): "
                    f"{shown(rel)} was not written",
                    hint="take the lock again and look at what the store holds now",
                )
        existing = done.reads[0] if done.reads else None
        if existing is None:  # deleted between the compare and the read: not possible in one txn
            raise IntegrityError(f"{shown(key)}: exists and does not")
        if len(existing.value) > limit:
            raise FileTooLargeError(f"{shown(key)}: over {limit} bytes")
        return existing.value

    def create_once_unless(
        self, note: str, rel: str, data: bytes, alive: Sequence[str]
    ) -> list[str]:
        """Create `rel` once, with its ledger entry, unless one of the keys `alive` is there (a
        host's heartbeat, its conductor's lock: ADR 0043 amendment `names2`), all compared in
        the one transaction; the names of those found there and `rel` itself when it was there
        already (empty: created)."""
        names = [rel, *alive]
        done = self._noted(
            note,
            rel,
            data,
            [Compare.absent(self.key(name)) for name in names],
            [Put(self.key(rel), data)],
            [Get(self.key(name)) for name in names],
        )
        if done.succeeded:
            return []
        found = zip(names, done.reads[: len(names)], strict=True)
        return [name for name, kv in found if kv is not None]

    # ------------------------------------------------------------------ the ledger on keys
    def chain(self) -> KeysChain:
        """The ledger on keys as the anchor outside the cluster follows it (`store/anchor.py`;
        ADR 0043, amendment `etcdtick`)."""
        return KeysChain(self)

    def written_head(self) -> tuple[int, str] | None:
        """The entry this store's last write made (seq, hash), or None: it wrote nothing."""
        return (
            None if self._head is None or self.wrote == 0 else (self._head.seq, self._head.digest)
        )

    def entries_back(self) -> Backward:
        """The ledger on keys read from its end (`oms audit log`), as `ledger.Backward` reads
        the log."""
        return Backward(self)

    def _noted(
        self,
        kind: str,
        rel: str,
        data: bytes,
        compares: Sequence[Compare],
        puts: Sequence[Op],
        reads: Sequence[Op],
    ) -> TxnResult:
        """Run a write's transaction with its ledger entry (ADR 0043, amendment `etcdledger`): the
        entry `ledger/<seq>` is created in the same transaction, chained onto the last entry, which
        must still be the one this store saw; a head that moved is read in the failed branch and
        the write tried again. The result is the transaction that succeeded, or one that failed
        for the write's own compares (its `reads` are the caller's; the head read is last)."""
        if self.line is None:
            raise IntegrityError(
                f"{shown(rel)}: this etcd store was opened without the state key: nothing written"
            )
        if self._released is None and self.learn_host is not None:
            learn, self.learn_host = self.learn_host, None
            learn()  # its host claimed (a write of its own) and fenced, or `host-name-taken`
        if self._released is not None:
            compares = [*compares, Compare.absent(self.key(self._released[1]))]
            reads = [*reads, Get(self.key(self._released[1]))]
        head = self._head
        for lost in range(LIMITS.etcd_ledger_rounds):
            if lost > 1:  # writers contend for one order: the losers step back, at random
                pause = min(LIMITS.etcd_ledger_backoff_s, 0.0005 * 2**lost)
                time.sleep(random.uniform(0, pause))  # noqa: S311 (a jitter, not a secret)
            seq = 1 if head is None else head.seq + 1
            entry = ledger.key_entry(
                seq, ledger.GENESIS if head is None else head.digest, kind, rel, data, self.line
            )
            entry_key = self.key(ledger.entry_name(seq))
            chained = [Compare.absent(entry_key)]
            if head is not None:
                chained.append(Compare.modified_at(self.key(ledger.entry_name(head.seq)), head.at))
            done = self.client.txn(
                [*compares, *chained],
                [*puts, Put(entry_key, entry)],
                [
                    *reads,
                    Get(self.key(ledger.ENTRY_DIR + "/"), prefix=True, limit=1, last_first=True),
                ],
            )
            if done.succeeded:
                self._head = _Head(seq, hashlib.sha256(entry).hexdigest(), done.revision)
                self.wrote += 1
                summary.wrote()  # a steady scope's summaries range again
                return done
            newest = self._head_of(done.ranges[-1])
            if newest == head:  # the ledger did not move: the write's own compares failed
                if self._released is not None and done.reads[len(reads) - 1] is not None:
                    host = self._released[0]
                    raise HostNameTakenError(
                        f"host name {host} was released (`oms host release-name`) while this "
                        f"command ran under it: {shown(rel)} was not written, nor will any "
                        "other write of it be",
                        hint=f"stop this command: the name is another state root's now; give "
                        f"this host a name of its own ({rules.FIX})",
                    )
                return done
            head = self._head = newest
        raise EtcdError(
            f"{shown(rel)}: the ledger moved under this write {LIMITS.etcd_ledger_rounds} times: "
            "nothing was written",
            hint="run the command again",
        )

    def shared_rollbacks(self) -> list[tuple[str, bytes]]:
        """The accepted rollbacks kept for every host (`rollbacks/<sha256>.json`), each cut at an
        anchor's bound. One walk. More than `Limits.shared_rollbacks_read` keys there is refused
        (`IntegrityError`), never read in part: keys planted to sort first would otherwise hide
        the floor that counts, and a lost id would be given again."""
        under = self.key(SHARED_ROLLBACKS + "/")
        found: list[tuple[str, bytes]] = []
        for kv in self.client.range_prefix(under):
            if len(found) >= LIMITS.shared_rollbacks_read:
                raise IntegrityError(
                    f"{shown(under)}: more than {LIMITS.shared_rollbacks_read} keys (oms writes "
                    "one per accepted rollback): no ticket is numbered until they are looked at",
                    hint="`oms store verify` names each one that is not an accepted rollback",
                )
            found.append((kv.key[len(under) :], kv.value[: LIMITS.anchor_bytes + 1]))
        return found

    def pins(self) -> dict[str, bytes]:
        """The pinned hosts' raw public keys by key id (`ledger.parse_key_entry`'s `pinned`)."""
        return {keyid: pin.public for keyid, pin in self.pinned.items()}

    def _head_of(self, found: list[KeyValue]) -> _Head | None:
        """The last entry of the ledger as read (None: there is none); IntegrityError when the last
        key under `ledger/` is not an entry oms writes: nothing is chained onto it."""
        if not found:
            return None
        kv = found[0]
        rel = kv.key[len(self.prefix) :]
        try:
            m = _ENTRY.fullmatch(rel)
            if m is None:
                raise IntegrityError("not a ledger entry's key")
            entry = ledger.parse_key_entry(kv.value, self.line, self.pins())
            if entry.seq != int(m.group(1)):
                raise IntegrityError(f"holds entry {entry.seq}")
        except IntegrityError as exc:
            raise IntegrityError(
                f"the ledger's last key {shown(kv.key)} is not an entry oms wrote "
                f"({exc.message}): nothing was written",
                hint="`oms audit verify` names what changed",
            ) from None
        return _Head(entry.seq, entry.digest, kv.mod_revision)


class Backward:
    """The entries of the ledger on keys, newest first, a page of keys at a time; each is checked
    as `walk_keys` checks it (its form, its number, this key's MAC) and to link to the one after
    it; the first that does not stops it, and `fault` says where."""

    def __init__(self, store: EtcdStore) -> None:
        self.store = store
        self.fault: str | None = None

    def entries(self) -> Generator[ledger.Entry]:
        """The entries, newest first."""
        store, newer = self.store, None
        for kv in store.client.range_back(store.key(ledger.ENTRY_DIR + "/")):
            m = _ENTRY.fullmatch(kv.key[len(store.prefix) :])
            try:
                if m is None:
                    raise IntegrityError("a foreign key (oms writes no such key)")
                entry = ledger.parse_key_entry(kv.value, store.line, store.pins())
                if entry.seq != int(m.group(1)):
                    raise IntegrityError(f"holds entry {entry.seq}")
            except IntegrityError as exc:
                self.fault = f"etcd:{printable_key(kv.key)}: {exc.message}"
                return
            if newer is not None and (newer.seq != entry.seq + 1 or newer.prev != entry.digest):
                self.fault = f"ledger entry {newer.seq} on etcd does not link to the key before it"
                return
            yield ledger.Entry(
                entry.seq, entry.prev, entry.at, entry.kind, entry.path, entry.sha256, entry.digest
            )
            newer = entry
        if newer is not None and (newer.seq != 1 or newer.prev != ledger.GENESIS):
            self.fault = f"ledger entry {newer.seq} on etcd does not start the chain"


class KeysChain:
    """The ledger on keys as `store/anchor.py` follows it (`anchor.Chain`): its anchor's folder is
    named by the store's prefix, so a restore of the cluster (or deleting its last entries with
    their keys) leaves the anchor naming an entry the keys no longer hold."""

    def __init__(self, store: EtcdStore) -> None:
        self.store = store
        self.folder = "etcd-" + hashlib.sha256(store.prefix.encode()).hexdigest()[:32]
        self.what = f"the etcd store under {shown(store.prefix)}"

    def holds(self, seq: int, head: str) -> bool:
        """Does `ledger/<seq>` hold the entry whose bytes hash to `head`? (one read)"""
        found = self.store.client.get(self.store.key(ledger.entry_name(seq)))
        return found is not None and hashlib.sha256(found.value).hexdigest() == head

    def ends(self) -> int:
        """The number of the last `ledger/` key (0: none; a key that is no entry's: 0)."""
        for kv in self.store.client.range_back(self.store.key(ledger.ENTRY_DIR + "/")):
            m = _ENTRY.fullmatch(kv.key[len(self.store.prefix) :])
            return 0 if m is None else int(m.group(1))
        return 0

    def head(self) -> tuple[int, str, str]:
        """(seq, sha256, cluster id) of the ledger's last entry now, checked as a writer checks
        the entry it chains onto (`EtcdStore._head_of`: its form, its number, this key's MAC or a
        pinned host's signature); seq 0 when there is none. One read."""
        found, cluster = self.store.client.last(self.store.key(ledger.ENTRY_DIR + "/"))
        head = self.store._head_of([] if found is None else [found])
        return (0, ledger.GENESIS, cluster) if head is None else (head.seq, head.digest, cluster)

    def first(self) -> str | None:
        """The sha256 of `ledger/1`'s bytes (None: no entry yet). One read."""
        found = self.store.client.get(self.store.key(ledger.entry_name(1)))
        return None if found is None else hashlib.sha256(found.value).hexdigest()

    def moved(self) -> int:
        """The mod revision of the last `ledger/` key (0: none): it moves with every write of
        every host. One read, nothing checked."""
        found, _ = self.store.client.last(self.store.key(ledger.ENTRY_DIR + "/"))
        return 0 if found is None else found.mod_revision

    def highest_ticket(self) -> int:
        """The highest local ticket number (`tkt-N`) the cluster's pointers name (0: none)."""
        under = self.store.key("latest/ticket/")
        return max(
            (
                int(m.group(1))
                for kv in self.store.client.range_prefix(under, keys_only=True)
                if (m := _LOCAL_TICKET.fullmatch(kv.key[len(under) :]))
            ),
            default=0,
        )


_LOCAL_TICKET = re.compile(r"tkt-([1-9][0-9]{0,9})")


class _Head(NamedTuple):
    """The ledger's last entry: its number, the sha256 of its bytes, its key's mod revision."""

    seq: int
    digest: str
    at: int


class Changed(NamedTuple):
    """What `changed_since` saw: the records whose latest version moved, and where to look next."""

    records: list[tuple[str, str]]  # (kind, id), in the order they changed, each once
    next_revision: int


def current_revision(store: EtcdStore) -> int:
    """The cluster's revision now: watch from here to hear of every later change."""
    answer = store.client.call("/v3/kv/range", {"key": "AA==", "limit": "1"})
    header = answer.get("header")
    revision = header.get("revision", "0") if isinstance(header, dict) else "0"
    return int(str(revision))


def changed_since(store: EtcdStore, revision: int, *, wait_s: float) -> Changed:
    """The records whose latest pointer changed from `revision` on (what wakes a conductor instead
    of directory mtimes, ADR 0017): waits up to `wait_s` for the first change, returns at once when
    there is one already. A pointer names nothing but a record; the record itself is read, and
    checked, as any read is."""
    got = store.client.watch(store.prefix + "latest/", revision, wait_s=wait_s)
    seen: dict[tuple[str, str], None] = {}
    for event in got.events:
        if m := _LATEST.fullmatch(event.key[len(store.prefix) :]):
            seen[(m.group(1), m.group(2))] = None
    return Changed(list(seen), got.next_revision)


# ---------------------------------------------------------------------------------------- locks
class Held(NamedTuple):
    """A lock held under a lease: the fence its writes carry, and the lease to keep alive."""

    fence: Fence
    lease_id: int


def acquire(store: EtcdStore, name: str, holder: str, *, ttl: int = LIMITS.etcd_lock_ttl_s) -> Held:
    """Take lock `name` under a new lease of `ttl` seconds, or raise `LockHeldError` naming its
    holder. The holder keeps it with `keep` (each third of `ttl`) and lets it go with `release`;
    a holder that stops keeping it loses it when the lease lapses, and its fenced writes fail."""
    if not _NAME.fullmatch(name):
        raise InvalidInputError(f"bad lock name {shown(name)}")
    key = store.key(f"locks/{name}")
    lease = store.client.grant(ttl)
    done = store.client.txn(
        [Compare.absent(key)], [Put(key, holder.encode(), lease=lease.lease_id)], [Get(key)]
    )
    if not done.succeeded:
        store.client.revoke(lease.lease_id)
        other = done.reads[0] if done.reads else None
        who = "" if other is None else other.value.decode("ascii", "replace")
        raise LockHeldError(
            f"lock {name} is held by {shown(who)}",
            hint=f"another oms process is working on this; retry when it finishes (one that was "
            f"killed lets it go when its lease lapses, within {ttl} s)",
        )
    return Held(Fence(key, done.revision), lease.lease_id)


def sweep_locks(store: EtcdStore) -> list[str]:
    """Delete the lock keys no lease holds (ADR 0043, amendment `upkeep`): `acquire` takes every
    lock under a lease, which lapses with its holder, so one under none is not oms's and would hold
    its lock for ever. Each goes only while it is the key that was read. The keys deleted."""
    removed: list[str] = []
    for kv in store.client.range_prefix(store.key("locks/")):
        if kv.lease == 0:
            done = store.client.txn(
                [Compare.modified_at(kv.key, kv.mod_revision)], [Delete(kv.key)], []
            )
            if done.succeeded:
                removed.append(printable_key(kv.key))
    return removed


def keep(store: EtcdStore, held: Held) -> bool:
    """Renew the lock's lease; False when it lapsed already (the lock is gone)."""
    return store.client.keepalive(held.lease_id) > 0


def release(store: EtcdStore, held: Held) -> None:
    """Let the lock go (its lease revoked: the key is deleted with it)."""
    store.client.revoke(held.lease_id)


class Keeper:
    """A lock held for a process's life (`acquire`), its lease kept alive each third of its TTL by
    a thread of its own, so a long step of the holder does not lose it. `lost` turns True once a
    keepalive finds the lease gone (lapsed: the holder was paused or cut off longer than its TTL,
    or it was revoked); the holder's fenced writes are refused from then on whatever `lost` says.
    `close` stops the thread and releases the lock."""

    def __init__(self, store: EtcdStore, held: Held, ttl: int) -> None:
        self.store = store
        self.held = held
        self.fence = held.fence
        self.lost = False
        self.kept = 0  # keepalives answered
        self._closed = False
        self._every = max(ttl / 3, 0.1)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="oms-lease-keeper", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            try:
                alive = keep(self.store, self.held)
            except OmsError:  # the cluster did not answer: again at the next third
                continue
            if not alive:
                self.lost = True
                return
            self.kept += 1

    def release(self) -> None:
        """`close` (a `LeaseHeld`)."""
        self.close()

    def confirm(self) -> None:
        """The lock is still this holder's (its key, created at its token), asked of the cluster
        now; else `LeaseError` (a holder paused or cut off past its TTL lost it meanwhile)."""
        found = self.store.client.get(self.fence.key)
        if found is None or found.create_revision != self.fence.token:
            self.lost = True
            raise LeaseError(
                f"lock {shown(self.fence.key)} was lost (its lease lapsed)",
                hint="take the lock again and look at what the store holds now",
            )

    def close(self) -> None:
        """Stop keeping the lease, and let the lock go (a cluster that does not answer: it
        lapses)."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._thread.join()
        if not self.lost:
            with suppress_faults():  # unreachable: the lease lapses within its TTL
                release(self.store, self.held)


# ---------------------------------------------------------------------------------------- verify
_RECORD = re.compile(r"records/([a-z][a-z0-9-]*)/([^/]+)/((?:0|[1-9][0-9]{0,15})\.json)")
_OP = re.compile(r"records/([a-z][a-z0-9-]*)/([^/]+)/ops/([^/]+)\.json")
_LATEST = re.compile(r"latest/([a-z][a-z0-9-]*)/([^/]+)")
_EVENT = re.compile(r"events/([^/]+)\.json")
_EVIDENCE = re.compile(r"evidence/([0-9a-f]{64})\.json")
_CONTENT = re.compile(r"tickets/([^/]+)/([0-9a-f]{64})\.json")
_LOCK = re.compile(r"locks/([^/]+)(?:/[^/]+){0,2}")
_HOST = re.compile(r"hosts/(.*)", re.DOTALL)
_NAMED_AGAIN = re.compile(r"names/([^/]+)/([1-9][0-9]{0,2})\.json")  # after a release (`names2`)
_RELEASED = re.compile(r"names/([^/]+)/released/(0|[1-9][0-9]{0,2})\.json")
_NAMED = re.compile(r"names/(.*)\.json", re.DOTALL)
_ENTRY = re.compile(r"ledger/([0-9]{20})")
_RECEIPT = re.compile(r"outbox/([^/]+)/([^/]+)\.receipt\.json")
_ARCHIVE = re.compile(r"compacted/([^/]+)\.json\.z")
_SHARED_ROLLBACK = re.compile(rf"{SHARED_ROLLBACKS}/(.*)", re.DOTALL)  # (amendment `floor`)


def printable_key(key: str) -> str:
    """A key as a report names it: one that is not UTF-8 by its bytes, escaped (`\\xff`)."""
    return key.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


class KeyProblem(NamedTuple):
    """One problem `verify_keys` found: the key and what is wrong with it (one line)."""

    key: str
    problem: str

    def __str__(self) -> str:
        return f"{shown(self.key)}: {self.problem}"


def verify_keys(store: EtcdStore, limits: Limits = LIMITS) -> tuple[list[KeyProblem], int]:
    """Every problem under the store's prefix, and how many keys were read (`walk_keys`)."""
    walked = walk_keys(store, limits)
    return walked.problems, walked.read


class Walked(NamedTuple):
    """What `walk_keys` found: every problem, how many keys it read, how many ledger entries and
    noted keys it checked, and notes (another host's entries and evidence vouched for by its
    pinned key)."""

    problems: list[KeyProblem]
    read: int
    entries: int
    noted: int
    notes: list[str]
    compacted: int = 0  # noted keys gone, held by a noted archive of their ticket


class _Covered(NamedTuple):
    """A key the ledger notes, as found: the digest of its bytes and its create revision."""

    sha256: str
    created: int


def walk_keys(store: EtcdStore, limits: Limits = LIMITS) -> Walked:
    """Every problem under the store's prefix: a key oms does not write (foreign), bytes that are
    not what their key says (tampered: not canonical, not schema-valid, another record, id,
    version or operation), a chain of versions that does not link, a latest pointer that names no
    version, and the ledger on keys that does not hold (`_ledger`). Keys are read, parsed and
    checked, never followed."""
    problems: list[KeyProblem] = []
    read = 0
    versions: dict[tuple[str, str], dict[int, bytes]] = {}
    created: dict[tuple[str, str, int], int] = {}  # a version key's create revision
    ops: list[tuple[str, str, str, bytes, str]] = []
    latest: dict[tuple[str, str], str] = {}
    latest_at: dict[tuple[str, str], int] = {}  # the revision the pointer was last set at
    entries: list[KeyValue] = []
    covered: dict[str, _Covered] = {}  # what the ledger must note: versions, events, receipts
    archives: dict[str, tuple[str, compaction.Archive]] = {}  # compaction's: sha256, decoded
    others = _Others()  # evidence signed by another state key
    names = _Names()  # host names' bindings and their releases
    for kv in store.client.range_prefix(store.prefix):
        read += 1
        rel = kv.key[len(store.prefix) :]
        try:
            if m := _HOST.fullmatch(rel):  # a heartbeat: put again at each beat
                why = _beat_problem(store, kv, m.group(1), limits)
                if why is not None:
                    problems.append(KeyProblem(kv.key, why))
                continue
            if not _LATEST.fullmatch(rel) and not _LOCK.fullmatch(rel) and kv.version != 1:
                raise IntegrityError(
                    f"written {kv.version} times (oms creates this key once and never changes it)"
                )
            if m := _RECORD.fullmatch(rel):
                covered[rel] = _Covered(hashlib.sha256(kv.value).hexdigest(), kv.create_revision)
                if len(kv.value) > limits.record_bytes:
                    raise FileTooLargeError(f"over {limits.record_bytes} bytes")
                version = int(m.group(3)[: -len(".json")])
                parse_record(kv.value, m.group(1), m.group(2), version, kv.key)
                versions.setdefault((m.group(1), m.group(2)), {})[version] = kv.value
                created[(m.group(1), m.group(2), version)] = kv.create_revision
            elif m := _OP.fullmatch(rel):
                ops.append((m.group(1), m.group(2), m.group(3), kv.value, kv.key))
            elif m := _LATEST.fullmatch(rel):
                latest[(m.group(1), m.group(2))] = kv.value.decode("ascii", "replace")
                latest_at[(m.group(1), m.group(2))] = kv.mod_revision
            elif m := _EVENT.fullmatch(rel):
                covered[rel] = _Covered(hashlib.sha256(kv.value).hexdigest(), kv.create_revision)
                if len(kv.value) > limits.event_bytes:
                    raise FileTooLargeError(f"over {limits.event_bytes} bytes")
                parse_event(kv.value, m.group(1), kv.key)
            elif m := _CONTENT.fullmatch(rel):
                covered[rel] = _Covered(hashlib.sha256(kv.value).hexdigest(), kv.create_revision)
                if len(kv.value) > limits.evidence_bytes:
                    raise FileTooLargeError(f"over {limits.evidence_bytes} bytes")
                parse_content(kv.value, m.group(1), m.group(2), kv.key)
            elif m := _EVIDENCE.fullmatch(rel):
                covered[rel] = _Covered(hashlib.sha256(kv.value).hexdigest(), kv.create_revision)
                _evidence(store, kv, m.group(1), limits, others)
            elif m := _RECEIPT.fullmatch(rel):
                covered[rel] = _Covered(hashlib.sha256(kv.value).hexdigest(), kv.create_revision)
                if len(kv.value) > limits.receipt_bytes:
                    raise FileTooLargeError(f"over {limits.receipt_bytes} bytes")
                parse_receipt(kv.value, m.group(1), m.group(2), kv.key)
            elif m := _RELEASED.fullmatch(rel):
                covered[rel] = _Covered(hashlib.sha256(kv.value).hexdigest(), kv.create_revision)
                names.releases[(m.group(1), int(m.group(2)))] = _release(kv, m.group(1), limits)
            elif m := _NAMED_AGAIN.fullmatch(rel) or _NAMED.fullmatch(rel):
                covered[rel] = _Covered(hashlib.sha256(kv.value).hexdigest(), kv.create_revision)
                generation = int(m.group(2)) if m.re is _NAMED_AGAIN else 0
                names.bound[(m.group(1), generation)] = (
                    kv.key,
                    _name_problem(kv, m.group(1), limits),
                )
            elif m := _SHARED_ROLLBACK.fullmatch(rel):
                covered[rel] = _Covered(hashlib.sha256(kv.value).hexdigest(), kv.create_revision)
                why = shared_problem(m.group(1), kv.value, _keys_by_id(store), store.chain())
                if why is not None:
                    raise IntegrityError(why)
            elif _ARCHIVE.fullmatch(rel):
                covered[rel] = _Covered(hashlib.sha256(kv.value).hexdigest(), kv.create_revision)
                archives[rel] = (covered[rel].sha256, compaction.decode(kv.value, rel))
            elif _ENTRY.fullmatch(rel):
                entries.append(kv)
            elif not _LOCK.fullmatch(rel):
                problems.append(KeyProblem(kv.key, "a foreign key (oms writes no such key)"))
        except OmsError as exc:
            problems.append(KeyProblem(kv.key, exc.message))
    for (kind, record_id), found in sorted(versions.items()):
        at = latest_at.get((kind, record_id))
        problems.extend(_chain(store, kind, record_id, found, latest.pop((kind, record_id), None)))
        newest = max(found)
        if at is not None and created[(kind, record_id, newest)] != at:
            problems.append(
                KeyProblem(
                    store.key(f"records/{kind}/{record_id}/{newest}.json"),
                    "was not written with the latest pointer (replaced after its write)",
                )
            )
    for (kind, record_id), text in sorted(latest.items()):
        problems.append(
            KeyProblem(
                store.key(f"latest/{kind}/{record_id}"),
                f"names {shown(text)} but the record has no version",
            )
        )
    for kind, record_id, op_id, data, key in ops:
        problems.extend(_op_entry(kind, op_id, data, key, versions.get((kind, record_id), {})))
    problems.extend(names.problems(store))
    noted = len(covered)
    found_problems, notes, compacted = _ledger(store, entries, covered, archives)
    found_problems += others.problems("evidence documents")
    notes += others.notes(store, "evidence documents", "signatures")
    if compacted:
        notes.append(f"{compacted} noted keys compacted into archives the ledger notes")
    return Walked(problems + found_problems, read, len(entries), noted, notes, compacted)


PIN_FIX = (
    "if they are another host's, pin its key: run `oms host key` on that host and add the line "
    "it prints under [hosts] in your ~/.config/oms/etcd.toml"
)


class _Others:
    """What another state key wrote, as a walk found it (ADR 0043, amendment `hostkeys`): by key
    id, the keys of those whose signature checked against the host's pinned key (vouched), and of
    those no pinned host holds (nothing vouches for them); and those nothing could check (the
    store was opened without a state key)."""

    def __init__(self) -> None:
        self.vouched: dict[str, int] = {}
        self.unpinned: dict[str, list[str]] = {}
        self.unchecked = 0

    def problems(self, what: str) -> list[KeyProblem]:
        """One problem per key id no pinned host holds, on the first key it wrote."""
        return [
            KeyProblem(
                keys[0],
                f"{len(keys)} {what} by state key {keyid[:16]}, which no host pinned in your "
                f"etcd settings holds: nothing vouches for them (forged, or a host not pinned "
                f"yet); {PIN_FIX}",
            )
            for keyid, keys in sorted(self.unpinned.items())
        ]

    def notes(self, store: EtcdStore, what: str, proof: str) -> list[str]:
        """A note per pinned host whose writes were vouched for."""
        found = [
            f"{count} {what} by host {store.pinned[keyid].name} (state key {keyid[:16]}): their "
            f"{proof} check against its pinned key"
            for keyid, count in sorted(self.vouched.items())
        ]
        if self.unchecked:
            found.append(f"{self.unchecked} {what} of another state key: no state key given")
        return found


def _keys_by_id(store: EtcdStore) -> dict[str, bytes]:
    """The state keys a shared rollback may be signed by: the pinned hosts', and this one's."""
    mine = {} if store.public is None or store.line is None else {store.line.key_id: store.public}
    return {**store.pins(), **mine}


def _evidence(store: EtcdStore, kv: KeyValue, ref: str, limits: Limits, others: _Others) -> None:
    """Check an evidence key as `oms store verify` checks its file: its address, its body and its
    signature, by this state key or by the pinned key of the host whose key id it names; one no
    pinned host holds is counted in `others` (raises the problem)."""
    if len(kv.value) > limits.evidence_bytes:
        raise FileTooLargeError(f"over {limits.evidence_bytes} bytes")
    found = open_unsigned(kv.value, ref, kv.key)
    mine = None if store.line is None else store.line.key_id
    if store.public is None or store.line is None:
        others.unchecked += 1
        return
    if found.keyid == mine:
        state_keys.verify(store.public, found.sig, PAYLOAD_TYPE, found.body, kv.key)
        return
    pin = store.pinned.get(found.keyid)
    if pin is None:
        others.unpinned.setdefault(found.keyid, []).append(kv.key)
        return
    try:
        state_keys.verify(pin.public, found.sig, PAYLOAD_TYPE, found.body, kv.key)
    except OmsError:
        raise IntegrityError(
            f"its signature does not check against host {pin.name}'s pinned key (forged)"
        ) from None
    others.vouched[found.keyid] = others.vouched.get(found.keyid, 0) + 1


def _ledger(
    store: EtcdStore,
    kvs: list[KeyValue],
    covered: dict[str, _Covered],
    archives: dict[str, tuple[str, compaction.Archive]],
) -> tuple[list[KeyProblem], list[str], int]:
    """The ledger on keys (ADR 0043, amendment `etcdledger`), as `ledger_check` checks the log:
    entries count up from 1 with no gap, each links to the one before it, each of this state key's
    carries its MAC and each of a pinned host's its signature (one of a key id no pinned host
    holds is named: amendment `hostkeys`), each holds its own number, each was created in the
    transaction of the key it notes, and each noted key holds the bytes of its last entry; a key
    the ledger must note and does not is named. `covered` is consumed."""
    problems: list[KeyProblem] = []
    present: set[int] = set()
    parsed: dict[int, tuple[ledger.KeyEntry, KeyValue]] = {}
    for kv in kvs:
        number = int(kv.key[-20:])
        present.add(number)
        try:
            entry = ledger.parse_key_entry(kv.value, store.line, store.pins())
        except (IntegrityError, ValueError, RecursionError) as exc:
            problems.append(KeyProblem(kv.key, f"ledger entry {number}: {exc}"))
            continue
        if entry.seq != number:
            problems.append(
                KeyProblem(kv.key, f"holds entry {entry.seq}, not entry {number} (moved there)")
            )
            continue
        parsed[number] = (entry, kv)
    below = 0
    for number in sorted(present):  # each gap once, however wide (a number may be planted)
        if number == below + 2:
            gap = f"ledger entry {below + 1} is missing"
        elif number > below + 2:
            gap = f"ledger entries {below + 1}..{number - 1} are missing"
        if number > below + 1:
            problems.append(
                KeyProblem(
                    store.key(ledger.entry_name(below + 1)),
                    f"{gap} (deleted): the chain has a gap",
                )
            )
        below = number
    last: dict[str, tuple[int, str, int]] = {}
    others = _Others()
    for number, (entry, kv) in sorted(parsed.items()):
        before = parsed.get(number - 1)
        if number == 1 and entry.prev != ledger.GENESIS:
            problems.append(KeyProblem(kv.key, "ledger entry 1 does not start the chain"))
        elif before is not None and entry.prev != before[0].digest:
            problems.append(
                KeyProblem(kv.key, f"ledger entry {number} does not link to entry {number - 1}")
            )
        if entry.vouched:
            others.vouched[entry.keyid] = others.vouched.get(entry.keyid, 0) + 1
        elif not entry.checked and store.line is not None:
            others.unpinned.setdefault(entry.keyid, []).append(kv.key)
        earlier = last.get(entry.path)
        if earlier is not None and earlier[1] != entry.sha256:
            problems.append(
                KeyProblem(
                    kv.key,
                    f"ledger entry {number}: {shown(entry.path)} was noted before "
                    f"(entry {earlier[0]}) with other bytes",
                )
            )
        last[entry.path] = (number, entry.sha256, kv.create_revision)
    held = _held(archives, last)
    compacted = 0
    for path, (number, digest, at) in sorted(last.items()):
        found = covered.pop(path, None)
        if found is None and _compacted(path, digest, held):
            compacted += 1
        elif found is None:
            problems.append(
                KeyProblem(
                    store.key(path), f"ledger entry {number}: gone (deleted after it was written)"
                )
            )
        elif found.sha256 != digest:
            problems.append(
                KeyProblem(store.key(path), f"ledger entry {number}: changed after it was written")
            )
        elif found.created != at:
            problems.append(
                KeyProblem(
                    store.key(path),
                    f"was not created with its ledger entry {number} (deleted and written again)",
                )
            )
    problems.extend(
        KeyProblem(
            store.key(path),
            "is in no ledger entry (put there by hand: oms notes every key it keeps)",
        )
        for path in sorted(covered)
    )
    problems.extend(others.problems("ledger entries"))
    notes = others.notes(store, "ledger entries", "signatures")
    if parsed and store.line is None:
        notes = [f"{len(parsed)} ledger entries: no state key given, no MAC checked"]
    return problems, notes, compacted


def _held(
    archives: dict[str, tuple[str, compaction.Archive]], last: dict[str, tuple[int, str, int]]
) -> dict[str, str]:
    """Each key an archive holds for its own ticket (`compaction.owned`) -> the sha256 of the bytes
    it holds, over the archives whose own bytes are their last entry's (one written by hand, or
    changed, vouches for nothing)."""
    held: dict[str, str] = {}
    for rel, (sha256, archive) in archives.items():
        noted = last.get(rel)
        if noted is None or noted[1] != sha256:
            continue
        held.update(
            (path, hashlib.sha256(data).hexdigest())
            for path, data in compaction.owned(archive).items()
        )
    return held


def _compacted(path: str, digest: str, held: dict[str, str]) -> bool:
    """Is the noted key `path`, gone, held by a noted archive with the bytes of its last entry (a
    receipt: its event held)?"""
    if m := _RECEIPT.fullmatch(path):
        return f"events/{m.group(2)}.json" in held
    return held.get(path) == digest


def _name_problem(kv: KeyValue, name: str, limits: Limits) -> str:
    """A host name's binding (`store/hosts.claim_name`, amendment `hostname`): a `host-name`
    naming the host its key names (`IntegrityError` otherwise); the state key it binds, which
    `_Names` checks."""
    if rules.NAME.fullmatch(name) is None:
        raise IntegrityError("not a host name's binding (its name is not a host name)")
    if len(kv.value) > limits.host_claim_bytes:
        raise FileTooLargeError(f"over {limits.host_claim_bytes} bytes")
    doc = parse_document(kv.value, hosts_store.NAME_SCHEMA, kv.key)
    if doc["host"] != name:
        raise IntegrityError(f"names host {shown(str(doc['host']))}, not {name}")
    return str(doc["keyid"])


def _release(kv: KeyValue, name: str, limits: Limits) -> tuple[str, str, int]:
    """A release of a host name's binding (`oms host release-name`, amendment `names2`): its key,
    the state key it released and the generation it names."""
    if rules.NAME.fullmatch(name) is None:
        raise IntegrityError("not a host name's release (its name is not a host name)")
    if len(kv.value) > limits.host_claim_bytes:
        raise FileTooLargeError(f"over {limits.host_claim_bytes} bytes")
    doc = parse_document(kv.value, hosts_store.RELEASE_SCHEMA, kv.key)
    if doc["host"] != name:
        raise IntegrityError(f"names host {shown(str(doc['host']))}, not {name}")
    return kv.key, str(doc["keyid"]), access.integer(doc, "generation")


class _Names:
    """Host names' bindings by (name, generation) — their key and the state key each binds — and
    their releases (ADR 0043, amendments `hostname` and `names2`): a binding after the first
    follows the release of the one before it, a release names the key its binding binds, and
    the binding that holds (none released it) binds this store's state key or a pinned host's."""

    def __init__(self) -> None:
        self.bound: dict[tuple[str, int], tuple[str, str]] = {}
        self.releases: dict[tuple[str, int], tuple[str, str, int]] = {}

    def problems(self, store: EtcdStore) -> list[KeyProblem]:
        out = []
        for (name, generation), (key, keyid) in sorted(self.bound.items()):
            if generation > 0 and (name, generation - 1) not in self.releases:
                out.append(
                    KeyProblem(
                        key,
                        f"binds host {name} again, but binding {generation - 1} was never released",
                    )
                )
            released = self.releases.get((name, generation))
            if released is not None:
                if (released[1], released[2]) != (keyid, generation):
                    out.append(
                        KeyProblem(
                            released[0],
                            f"releases state key {released[1][:16]}"
                            f" (binding {released[2]}), not the key binding "
                            f"{generation} binds ({keyid[:16]})",
                        )
                    )
            elif (
                store.line is not None and keyid != store.line.key_id and keyid not in store.pins()
            ):
                out.append(
                    KeyProblem(
                        key,
                        f"binds host {name} to state key {keyid[:16]}, which "
                        "no host pinned in your etcd settings holds: nothing "
                        f"vouches for it; {PIN_FIX}",
                    )
                )
        for (name, generation), (key, _, _) in sorted(self.releases.items()):
            if (name, generation) not in self.bound:
                out.append(
                    KeyProblem(
                        key, f"releases binding {generation} of host {name}, which is not there"
                    )
                )
        return out


def _beat_problem(store: EtcdStore, kv: KeyValue, name: str, limits: Limits) -> str | None:
    """What is wrong with a heartbeat key (`hosts.beat_problem`), or with its lease: granted for
    longer than a host's lease, it would outlive its conductor by that much."""
    why = beat_problem(kv, name)
    if why is not None:
        return why
    granted = store.client.lease_granted(kv.lease)
    if granted > limits.host_lease_s:
        return (
            f"under a lease granted for {granted} s, longer than a host's "
            f"({limits.host_lease_s} s): it would outlive its conductor"
        )
    return None


def _chain(
    store: EtcdStore, kind: str, record_id: str, found: dict[int, bytes], pointer: str | None
) -> list[KeyProblem]:
    base = store.key(f"records/{kind}/{record_id}")
    out: list[KeyProblem] = []
    numbers = sorted(found)
    if numbers != list(range(len(numbers))):
        out.append(KeyProblem(base + "/", f"versions are not 0..{len(numbers) - 1}"))
    for version in numbers[1:]:
        if version - 1 not in found:
            continue
        previous, current = found[version - 1], found[version]
        rec = parse_record(current, kind, record_id, version, base)
        before = parse_record(previous, kind, record_id, version - 1, base)
        if rec.previous_sha256 != version_digest(previous) or rec.observed_at <= before.observed_at:
            out.append(
                KeyProblem(f"{base}/{version}.json", f"does not follow version {version - 1}")
            )
    if pointer != str(numbers[-1]):
        out.append(
            KeyProblem(
                store.key(f"latest/{kind}/{record_id}"),
                f"names {shown(str(pointer))}, the newest version is {numbers[-1]}",
            )
        )
    return out


def _op_entry(
    kind: str, op_id: str, data: bytes, key: str, found: dict[int, bytes]
) -> list[KeyProblem]:
    try:
        entry = parse_document(data, "op-index", key)
        version = access.integer(entry, "version")
        if access.text(entry, "operation_id") != op_id:
            return [KeyProblem(key, f"names operation {shown(str(entry['operation_id']))}")]
        if version not in found:
            return [KeyProblem(key, f"names version {version}, which is not stored")]
        rec = parse_record(found[version], kind, key.split("/")[-3], version, key)
        if rec.operation_id != op_id:
            return [KeyProblem(key, "points at a version with another operation id")]
    except OmsError as exc:
        return [KeyProblem(key, exc.message)]
    return []
