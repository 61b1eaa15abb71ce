"""Hosts' heartbeats in the state root: `hosts/<host>.<beat ms>.json` (`host-beat`), one file per
beat, published no-replace; the newest of a host's files is its heartbeat, and its older ones are
removed once the new one is there (a reader always finds one). Not ledgered and not signed: a
heartbeat says only whether a host's conductor was alive lately (ADR 0043, amendment `hosts`).
`oms store verify` reads each one.

`Beats` is the seam: `FileBeats` keeps these files; an etcd store keeps a key per host under the
host's lease instead (`adapters/etcd/hosts.py`, amendment `etcdhost`), which lapses with the lease:
there, a beat that is there is live, and no clock is compared (`leased`).
"""

from __future__ import annotations

import contextlib
import re
from typing import Protocol

from oms.canonical import JsonObject, parse_ts
from oms.errors import AlreadyExistsError, IntegrityError, NotFoundError, OmsError, shown
from oms.fsio import Root
from oms.limits import LIMITS
from oms.store.backend import Backend, Fence
from oms.store.documents import encode_document, parse_document, read_document_optional

DIR = "hosts"
SCHEMA = "host-beat"
NAMES_DIR = "names"  # a host name's binding to a state key, on an etcd store (`claim_name`)
NAME_SCHEMA = "host-name"
_FILE = re.compile(r"(?P<host>[A-Za-z0-9._-]{1,63})\.(?P<ms>[0-9]{1,16})\.json")


def path(host: str, beat_ms: int) -> str:
    """Where `host`'s heartbeat at `beat_ms` lives."""
    return f"{DIR}/{host}.{beat_ms}.json"


def parse_name(name: str) -> tuple[str, int] | None:
    """(host, beat ms) a heartbeat's file name says, or None for a name oms never writes."""
    found = _FILE.fullmatch(name)
    return None if found is None else (found["host"], int(found["ms"]))


def _names(root: Root, host: str | None = None) -> dict[str, list[int]]:
    """Each host's beats (ms, newest first), from the directory (`host`: only that one's): the
    `LIMITS.hosts_listed` hosts that beat last, whatever else the directory holds. The bound is on
    hosts, not on the sorted listing: names sorted first must hide no host that beats, nor a host's
    own older beats from its prune."""
    by_host: dict[str, list[int]] = {}
    try:
        names = root.listdir(DIR)
    except NotFoundError:
        return by_host
    for name in names:
        parsed = parse_name(name)
        if parsed is not None and (host is None or parsed[0] == host):
            by_host.setdefault(parsed[0], []).append(parsed[1])
    for beats in by_host.values():
        beats.sort(reverse=True)
    if len(by_host) > LIMITS.hosts_listed:
        latest = sorted(by_host, key=lambda h: by_host[h][0], reverse=True)
        by_host = {h: by_host[h] for h in latest[: LIMITS.hosts_listed]}
    return by_host


def read_all(root: Root) -> dict[str, JsonObject]:
    """Every host's newest readable heartbeat, by host (one that cannot be read is skipped: `oms
    store verify` names it)."""
    out: dict[str, JsonObject] = {}
    for host, beats in sorted(_names(root).items()):
        for ms in beats[: LIMITS.host_beats_kept + 1]:  # the newest few: a host keeps no more
            try:
                doc = read_document_optional(root, path(host, ms), SCHEMA, LIMITS.host_beat_bytes)
            except OmsError:
                continue
            if doc is not None and doc["host"] == host:
                out[host] = doc
                break
    return out


def write(root: Root, doc: JsonObject) -> None:
    """Publish `doc` (a heartbeat), then remove its host's beats beyond the newest few and any
    dated after it (a clock stepped back: the newest name is the beat that counts)."""
    host, at = str(doc["host"]), parse_ts(doc["beat_at"])
    rel = path(host, at)
    root.mkdirs(DIR)
    with contextlib.suppress(AlreadyExistsError):  # the same millisecond: that beat stands
        root.publish(rel, encode_document(doc, SCHEMA, rel, LIMITS.host_beat_bytes), durable=False)
    beats = _names(root, host).get(host, [])
    for n, old in enumerate(beats):
        if old == at or (old < at and n < LIMITS.host_beats_kept):
            continue
        with contextlib.suppress(NotFoundError):
            root.unlink(path(host, old), durable=False)


class Beats(Protocol):
    """Where hosts' heartbeats are kept: the state root's files (`FileBeats`) or an etcd store's
    keys under leases (`adapters/etcd/hosts.py`)."""

    leased: bool  # True: a beat lapses with its lease (it is gone); False: by its `expires_at`

    def read_all(self) -> dict[str, JsonObject]:
        """Every host's heartbeat, by host (one that cannot be read is skipped: verify names it)."""
        ...

    def write(self, doc: JsonObject, fence: Fence | None = None) -> None:
        """Renew `doc`'s host's heartbeat (`fence`: it lands only while that lock is held)."""
        ...


class FileBeats:
    """Heartbeats as files in the state root (this module's functions)."""

    leased = False

    def __init__(self, root: Root) -> None:
        self.root = root

    def read_all(self) -> dict[str, JsonObject]:
        return read_all(self.root)

    def write(self, doc: JsonObject, fence: Fence | None = None) -> None:  # noqa: ARG002
        write(self.root, doc)  # (a file lock cannot lapse while its holder lives: no fence)


RELEASE_SCHEMA = "host-name-release"


def name_path(host: str, generation: int = 0) -> str:
    """Where `host`'s binding to a state key lives: `names/<host>.json`, and after `generation`
    releases `names/<host>/<generation>.json` (ADR 0043, amendment `names2`)."""
    return (
        f"{NAMES_DIR}/{host}.json" if generation == 0 else f"{NAMES_DIR}/{host}/{generation}.json"
    )


def release_path(host: str, generation: int) -> str:
    """Where the release of `host`'s binding `generation` lives (`oms host release-name`)."""
    return f"{NAMES_DIR}/{host}/released/{generation}.json"


def _holder(there: bytes, host: str, rel: str) -> JsonObject:
    holder = parse_document(there, NAME_SCHEMA, rel)
    if holder["host"] != host:
        raise IntegrityError(f"{rel} names host {shown(str(holder['host']))}, not {host}")
    return holder


def current_name(backend: Backend, host: str) -> tuple[int, JsonObject] | None:
    """`host`'s binding that holds — (its generation, the binding) — or None when the name is
    free (never bound, or its last binding released)."""
    return _walk(backend, host, None)


def claim_name(backend: Backend, claim: JsonObject) -> tuple[int, JsonObject]:
    """Bind `claim`'s host name to its state key unless the name is bound already: created once,
    with its ledger entry, by the first command that runs as that host (ADR 0043, amendment
    `hostname`); the binding that holds, this one or the earlier one. A binding the person
    released (`oms host release-name`, amendment `names2`) holds no more: the name's next
    generation is claimed the same way. Returns (its generation, the binding)."""
    found = _walk(backend, str(claim["host"]), claim)
    if found is None:  # (a claim binds the free generation, or finds the holder)
        raise IntegrityError(f"host name {shown(str(claim['host']))} was neither bound nor free")
    return found


def _walk(backend: Backend, host: str, claim: JsonObject | None) -> tuple[int, JsonObject] | None:
    """The name's generations in order, each bound once and perhaps released: the first one not
    released holds it; one not bound yet is `claim`'s (None: free, nothing written)."""
    for generation in range(LIMITS.host_name_generations):
        rel = name_path(host, generation)
        there = backend.read(rel, LIMITS.host_claim_bytes)  # bound once: every later command reads
        if there is None:
            if claim is None:
                return None
            data = encode_document(claim, NAME_SCHEMA, rel, LIMITS.host_claim_bytes)
            there = backend.create_once("hostname", rel, data, LIMITS.host_claim_bytes)
            if there is None:
                return generation, claim
        holder = _holder(there, host, rel)
        released = release_path(host, generation)
        if backend.read(released, LIMITS.host_claim_bytes) is None:
            return generation, holder
    raise IntegrityError(
        f"host name {host} was released {LIMITS.host_name_generations} times: no more releases"
    )
