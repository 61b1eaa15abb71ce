"""The store's records, events and locks in an etcd cluster (ADR 0043).

Keys under the store's prefix mirror the state root's names:

* `records/<kind>/<id>/<version>.json` — a record version's canonical bytes, created once;
* `records/<kind>/<id>/ops/<operation-id>.json` — the op index, written with its version;
* `latest/<kind>/<id>` — the latest version number (ASCII digits);
* `events/<id>.json` — an event, created once;
* `locks/<name>` — a lock, created under a lease; its create revision is the fencing token
  (`locks/conductor/<host>`: a host's conductor, ADR 0043 amendment `etcdhost`);
* `hosts/<host>` — a host's heartbeat under its lease (`adapters/etcd/hosts.py`).

Version N+1 is one transaction: `If(create_revision(records/…/N+1.json) == 0 ∧ value(latest) == N
[∧ create_revision(lock) == token]) Then(put the version, put latest = N+1, put its op entry)`.
The compare on the latest pointer's value is the compare-and-set: version numbers only grow, so
"latest is still N" is "nobody wrote since the N I decided on", with nothing carried from the read.
etcd is not trusted: every read is parsed and checked by the record store as a file is, and
`verify_keys` walks every key under the prefix as `oms store verify` walks files.
"""

from __future__ import annotations

import contextlib
import re
import threading
from typing import TYPE_CHECKING, NamedTuple

from oms.adapters.etcd.client import Compare, Etcd, Get, KeyValue, Put
from oms.canonical import access
from oms.errors import (
    FileTooLargeError,
    IntegrityError,
    InvalidInputError,
    LeaseError,
    LockHeldError,
    OmsError,
    shown,
)
from oms.fsio import Root
from oms.limits import LIMITS, Limits
from oms.store.backend import VERSION_NAME, Fence, Publish
from oms.store.documents import parse_document
from oms.store.events import parse_event
from oms.store.outbox import parse_receipt
from oms.store.records import parse_record, version_digest
from oms.store.summary import Latest

if TYPE_CHECKING:
    from oms.adapters.etcd.hosts import EtcdBeats

_PREFIX = re.compile(r"/(?:[A-Za-z0-9._-]+/)+")
_DIGITS = re.compile(r"0|[1-9][0-9]{0,15}")
_PART = r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}"
_NAME = re.compile(rf"{_PART}(?:/{_PART})?")  # `conductor/<host>`: a lock per host


def check_prefix(prefix: str) -> str:
    """A key prefix: `/name/…/`, ASCII, no empty or dot-dot part."""
    if not _PREFIX.fullmatch(prefix) or "/../" in prefix or "/./" in prefix:
        raise InvalidInputError(
            f"etcd prefix {shown(prefix)} is not /name/.../", hint="e.g. /oms/my-repository/"
        )
    return prefix


class EtcdStore:
    """A `Backend` (oms/store/backend.py) on an etcd cluster, under `prefix`."""

    name = "etcd"

    def __init__(self, client: Etcd, prefix: str) -> None:
        self.client = client
        self.prefix = check_prefix(prefix)

    def summary(self, root: Root, kind: str, limits: Limits) -> Latest:
        from oms.adapters.etcd import summary  # (summary -> store)

        return summary.refresh(self, root, kind, limits)

    def beats(self) -> EtcdBeats:
        """Hosts' heartbeats: a key per host under its lease (`adapters/etcd/hosts.py`)."""
        from oms.adapters.etcd.hosts import EtcdBeats  # (hosts -> store)

        return EtcdBeats(self)

    def close(self) -> None:
        """Close the client's connections."""
        self.client.close()

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
        done = self.client.txn(
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
        note: str,  # noqa: ARG002 (etcd keeps no ledger)
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
        done = self.client.txn(
            compares, [Put(key, data)], [Get(key)] + ([] if fence is None else [Get(fence.key)])
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
        raise LockHeldError(f"lock {name} is held by {shown(who)}")
    return Held(Fence(key, done.revision), lease.lease_id)


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

    def close(self) -> None:
        """Stop keeping the lease, and let the lock go (a cluster that does not answer: it
        lapses)."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._thread.join()
        if not self.lost:
            with contextlib.suppress(OmsError):  # unreachable: the lease lapses within its TTL
                release(self.store, self.held)


# ---------------------------------------------------------------------------------------- verify
_RECORD = re.compile(r"records/([a-z][a-z0-9-]*)/([^/]+)/((?:0|[1-9][0-9]{0,15})\.json)")
_OP = re.compile(r"records/([a-z][a-z0-9-]*)/([^/]+)/ops/([^/]+)\.json")
_LATEST = re.compile(r"latest/([a-z][a-z0-9-]*)/([^/]+)")
_EVENT = re.compile(r"events/([^/]+)\.json")
_LOCK = re.compile(r"locks/([^/]+)(?:/[^/]+)?")
_HOST = re.compile(r"hosts/(.*)", re.DOTALL)
_RECEIPT = re.compile(r"outbox/([^/]+)/([^/]+)\.receipt\.json")


class KeyProblem(NamedTuple):
    """One problem `verify_keys` found: the key and what is wrong with it (one line)."""

    key: str
    problem: str

    def __str__(self) -> str:
        return f"{shown(self.key)}: {self.problem}"


def verify_keys(store: EtcdStore, limits: Limits = LIMITS) -> tuple[list[KeyProblem], int]:
    """Every problem under the store's prefix, and how many keys were read: a key oms does not
    write (foreign),
    bytes that are not what their key says (tampered: not canonical, not schema-valid, another
    record, id, version or operation), a chain that does not link, a latest pointer that names no
    version. Keys are read, parsed and checked, never followed."""
    problems: list[KeyProblem] = []
    read = 0
    versions: dict[tuple[str, str], dict[int, bytes]] = {}
    created: dict[tuple[str, str, int], int] = {}  # a version key's create revision
    ops: list[tuple[str, str, str, bytes, str]] = []
    latest: dict[tuple[str, str], str] = {}
    latest_at: dict[tuple[str, str], int] = {}  # the revision the pointer was last set at
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
                if len(kv.value) > limits.event_bytes:
                    raise FileTooLargeError(f"over {limits.event_bytes} bytes")
                parse_event(kv.value, m.group(1), kv.key)
            elif m := _RECEIPT.fullmatch(rel):
                if len(kv.value) > limits.receipt_bytes:
                    raise FileTooLargeError(f"over {limits.receipt_bytes} bytes")
                parse_receipt(kv.value, m.group(1), m.group(2), kv.key)
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
    return problems, read


def _beat_problem(store: EtcdStore, kv: KeyValue, name: str, limits: Limits) -> str | None:
    """What is wrong with a heartbeat key (`hosts.beat_problem`), or with its lease: granted for
    longer than a host's lease, it would outlive its conductor by that much."""
    from oms.adapters.etcd.hosts import beat_problem  # (hosts -> store)

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
