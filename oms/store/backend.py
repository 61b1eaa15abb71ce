"""Where the store's versioned writes land: the seam between the store's rules and its medium
(ADR 0043).

The record store (`records.py`) and the events (`events.py`) decide *what* to write: canonical,
schema-valid bytes under a relative name (`records/<kind>/<id>/<version>.json`,
`events/<id>.json`). A `Backend` decides *where*: `Files`, the state root (the default; ADR 0002,
0027, 0035), or an etcd cluster (`oms/adapters/etcd/store.py`). Both publish a name at most once,
and both refuse a version whose predecessor is not the latest, so the record store's
compare-and-set, replay and conflict rules are the same on either.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple, Protocol, runtime_checkable

from oms.errors import AlreadyExistsError, NotFoundError, RecordNotFoundError
from oms.fsio import Root
from oms.store import ledger, live

VERSION_NAME = re.compile(r"(0|[1-9][0-9]{0,15})\.json")  # a record version's name


class Fence(NamedTuple):
    """A lock's fencing token: a write it protects lands only while the lock `key` is still the
    one created at `token` (etcd: its create revision). Files hold locks by flock, which cannot
    lapse while their holder lives, so `Files` has nothing to check."""

    key: str
    token: int


class Publish(NamedTuple):
    """One record version to publish: its name and bytes, its state (the live index), how to index
    the version before it (`Files` does it first: ADR 0002's index invariant) and its own op-index
    entry (a backend that writes both in one transaction writes this one with it)."""

    kind: str
    record_id: str
    version: int
    state: str
    rel: str
    data: bytes
    index_previous: Callable[[], None] | None
    own_entry: tuple[str, bytes]


class Backend(Protocol):
    """Where records and events are kept. Names are relative paths as on files."""

    name: str

    def read(self, rel: str, limit: int) -> bytes | None:
        """The bytes stored under `rel`, or None."""
        ...

    def names(self, rel_dir: str) -> list[str]:
        """The names directly under `rel_dir`, sorted (empty when there is none)."""
        ...

    def latest(self, kind: str, record_id: str) -> int | None:
        """The latest version number of the record, or None."""
        ...

    def versions(self, kind: str, record_id: str) -> list[int]:
        """Every version number of the record, ascending."""
        ...

    def read_latest(self, kind: str, record_id: str, limit: int) -> tuple[int, bytes] | None:
        """The latest version's number and bytes, or None when the record does not exist."""
        ...

    def publish_version(self, item: Publish, fence: Fence | None) -> bool:
        """Publish version `item.version` if version `item.version - 1` is still the latest (or the
        record does not exist, for version 0); False when another writer's version landed first."""
        ...

    def create_once(
        self, note: str, rel: str, data: bytes, limit: int, *, fence: Fence | None = None
    ) -> bytes | None:
        """Publish `data` under `rel` unless something is there; None when this call created it,
        else the bytes already there (`note`: the ledger's name for the kind; `fence`: as for
        `publish_version`)."""
        ...


class LeaseHeld(Protocol):
    """A lock a backend keeps itself while it is held (etcd: a key under a lease its own thread
    keeps alive): `fence` is what every write it protects carries."""

    fence: Fence

    def release(self) -> None:
        """Let the lock go (idempotent; a cluster that does not answer: it lapses)."""
        ...

    def confirm(self) -> None:
        """Raise (`LeaseError`; a cluster that does not answer: its error) unless the lock is
        still this holder's now: for what it guards that is no store write (a key typed)."""
        ...


@runtime_checkable
class KeepsLocks(Backend, Protocol):
    """A backend that keeps oms's processing locks itself (etcd: `locks/<name>` under a lease,
    `adapters/etcd/store.py`, ADR 0043 amendment `etcddeliver`); the state root's are holder-named
    lock files (`fsio/locks.py`). `Outbox.lock` is the one place that asks."""

    def hold(self, name: str, holder: str, *, wait_s: float) -> LeaseHeld:
        """Take lock `name` (`outbox/<consumer>/<event>`), waiting up to `wait_s` seconds for a
        live holder to let it go; then `LockHeldError` naming the holder."""
        ...


@runtime_checkable
class FencesNames(Backend, Protocol):
    """A backend on which a host name is bound to a state key (etcd, ADR 0043 amendments
    `hostname`, `names2`): once a command learnt its host, each of its writes carries the name's
    binding as a fence (amendment `cross5`)."""

    def fence_name(self, host: str, released: str) -> None:
        """Refuse every later write of this store (`HostNameTakenError`, nothing written) once
        `released` — the release of the binding `host` holds for this state key — is there."""
        ...


@runtime_checkable
class PinsHosts(Backend, Protocol):
    """A backend shared by hosts whose state keys the person pinned (etcd: `[hosts]` in their own
    settings, ADR 0043 amendment `hostkeys`): what they signed is read as theirs."""

    def pins(self) -> dict[str, bytes]:
        """The pinned hosts' raw public keys by key id."""
        ...


class Files:
    """The state root (ADR 0002): version files published no-replace, each noted in the ledger
    (ADR 0027), the live index kept around each publish (ADR 0035)."""

    name = "files"

    def __init__(self, root: Root) -> None:
        self.root = root

    def read(self, rel: str, limit: int) -> bytes | None:
        return self.root.read_optional(rel, limit)

    def names(self, rel_dir: str) -> list[str]:
        try:
            return self.root.listdir(rel_dir)
        except NotFoundError:
            return []

    def versions(self, kind: str, record_id: str) -> list[int]:
        names = self.names(f"records/{kind}/{record_id}")
        return sorted(int(m.group(1)) for name in names if (m := VERSION_NAME.fullmatch(name)))

    def latest(self, kind: str, record_id: str) -> int | None:
        found = self.versions(kind, record_id)
        return found[-1] if found else None

    def read_latest(self, kind: str, record_id: str, limit: int) -> tuple[int, bytes] | None:
        version = self.latest(kind, record_id)
        if version is None:
            return None
        data = self.read(f"records/{kind}/{record_id}/{version}.json", limit)
        if data is None:
            raise RecordNotFoundError(f"{kind} {record_id} has no version {version}")
        return version, data

    def publish_version(self, item: Publish, fence: Fence | None) -> bool:  # noqa: ARG002
        root = self.root
        if item.version == 0:
            root.mkdirs(f"records/{item.kind}/{item.record_id}")
        if item.index_previous is not None:
            item.index_previous()
        kind_dir = f"records/{item.kind}"
        live.before(root, item.kind, item.record_id, item.version, item.state)  # store/live.py
        root.touch_dir(kind_dir)  # change marks around the publish: store/summary.py
        try:
            ledger.publish_noted(root, "record", item.rel, item.data)  # with its entry, or none
        except AlreadyExistsError:
            return False
        root.touch_dir(kind_dir)
        live.after(root, item.kind, item.record_id, item.version)
        return True

    def create_once(
        self,
        note: str,
        rel: str,
        data: bytes,
        limit: int,
        *,
        fence: Fence | None = None,  # noqa: ARG002 (a file lock cannot lapse while held)
    ) -> bytes | None:
        try:
            ledger.publish_noted(self.root, note, rel, data)  # with its entry, or not at all
        except AlreadyExistsError:
            return self.root.read_bytes(rel, limit)
        return None
