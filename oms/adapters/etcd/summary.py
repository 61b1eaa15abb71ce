"""The record summary on etcd (ADR 0018 on a cluster, ADR 0043): the latest version of every record
of a kind, reading only what changed.

On files a change is seen by directory times (`store/summary.py`). On etcd every record has one
pointer key, `latest/<kind>/<id>`, rewritten in the transaction that publishes each version
(`EtcdStore.publish_version`), and etcd's revision orders every write, so a refresh from a summary
taken at revision R asks one range of the kind's pointers filtered by the server to those modified
after R (`min_mod_revision`), with the count of every pointer:

* nothing modified, the count unchanged: the summary is served as it is (one round trip);
* some modified: only their versions are read, in transactions of `LIMITS.etcd_txn_ops` gets;
* a count that the known and modified ids do not make up (a pointer deleted: oms never deletes
  one), more modified than a page, no summary, or records that could not be read: every pointer is
  ranged, in pages at one revision, and each whose version or mod revision the summary does not
  hold is read.

Within a steady scope (`steady()`, what a conductor tick opens around its phases) a kind is
ranged once: a later refresh of the same kind is served from the summary as the scope's first
refresh left it, unless this process wrote a record since (`wrote()`, from every write
transaction of `EtcdStore`), which ranges it again. So a phase sees the writes of the phases
before it, and an idle tick on 1,000 tickets asks three ranges, not twelve. A write of another
process during the scope (a deliverer the tick started) is seen by the next scope, as if it had
come a moment after the tick: no decision rests on the summary alone (every write compares the
revision it read, ADR 0043).

Nothing depends on a clock. A watch from R would answer the same question for a process that waits
for changes (a conductor); a one-shot command cannot tell "nothing changed" from a watch without
waiting, and a compacted R would need the full range anyway.

The summary is kept in the process and in the state root's `index/etcd.<kind>/` summary file
(`store/summary_file.py`: authenticated by the state key, a cache, never an authority), so a new
process (`oms status`, `oms ticket list`) reads only what changed since it was written; its origin
(the cluster's id and the prefix) must be this store's, or it is not used. Its entries hold each
record's pointer mod revision where files hold a directory time. Every version read is parsed and
checked as a file is (`parse_record`): etcd is not trusted to vouch for the bytes.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from oms.adapters.etcd.client import Etcd, Get, KeyValue, Since
from oms.errors import FileTooLargeError, IntegrityError, OmsError, shown
from oms.fsio import Root
from oms.limits import LIMITS, Limits
from oms.store import summary_file
from oms.store.records import Record, parse_record
from oms.store.summary import Latest
from oms.store.summary_file import Cache, Entry

_LOCK = threading.Lock()
_CACHES: dict[tuple[tuple[int, int], str, str], Cache] = {}
_DIGITS = "0123456789"
_WRITES = itertools.count(1)  # this process's write transactions, numbered (next() is atomic)
_written = [0]  # the number of the last one
_SCOPE = threading.local()  # `memo`: kind key -> the write number its summary was ranged after


def label(kind: str) -> str:
    """The summary file's name for an etcd store's `kind` (`index/etcd.<kind>/`)."""
    return f"etcd.{kind}"


class Keyed(Protocol):
    """What a refresh needs of an etcd store (`EtcdStore`): its client, its prefix, its keys."""

    client: Etcd
    prefix: str

    def key(self, rel: str) -> str: ...


def refresh(store: Keyed, root: Root, kind: str, limits: Limits = LIMITS) -> Latest:
    """The latest version of every record of `kind` in `store`, reading only the records whose
    pointer moved since this process's (or the summary file's) last refresh; a record that cannot
    be read is named with its error, not raised."""
    with _LOCK:
        key = (root.identity(), store.prefix, kind)
        memo: dict[tuple[tuple[int, int], str, str], int] | None = getattr(_SCOPE, "memo", None)
        cache = _CACHES.get(key)
        if memo is not None and cache is not None and memo.get(key) == _written[0]:
            return _latest(cache, 0)  # ranged in this scope, and nothing written since
        under = f"{store.prefix}latest/{kind}/"
        if memo is not None:
            memo[key] = _written[0]  # (read before the range: a write during it ranges again)
        if cache is None:
            most = limits.summary_bytes // limits.summary_entry_bytes  # (the count comes after)
            loaded = summary_file.load(root, kind, most, time.time_ns(), 0, label=label(kind))
            cache = loaded or Cache()
        found = _changed(store, under, cache)
        if found is None:  # every pointer
            found = store.client.range_at(under)
            whole = True
        else:
            whole = False
        origin = f"{found.cluster}:{store.prefix}"
        if cache.origin != origin:  # another cluster's or prefix's, or none
            cache = Cache(origin=origin)
            if not whole:
                found, whole = store.client.range_at(under), True
        _CACHES[key] = cache
        stale, errors = _stale(found.kvs, under, cache, whole)
        now = time.time_ns()
        _read(store, kind, stale, cache, errors, now, limits)
        cache.errors = errors
        cache.kind_mtime_ns, cache.seen_ns = found.revision, now
        cache.unsaved += len(stale)
        if cache.unsaved >= max(
            limits.summary_persist_after, len(cache.entries) // limits.summary_persist_share
        ) and summary_file.save(root, kind, cache, label=label(kind)):
            cache.unsaved = 0
        return _latest(cache, len(stale))


def _changed(store: Keyed, under: str, cache: Cache) -> Since | None:
    """The pointers modified since the summary's revision, if that answers (see the module)."""
    if cache.kind_mtime_ns <= 0 or cache.errors or not cache.origin:
        return None
    found = store.client.range_since(under, cache.kind_mtime_ns)
    if found is None:
        return None
    ids = set(cache.entries) | {kv.key[len(under) :] for kv in found.kvs}
    return found if found.total == len(ids) else None


def _stale(
    pointers: list[KeyValue], under: str, cache: Cache, whole: bool
) -> tuple[list[tuple[str, int, int]], dict[str, OmsError]]:
    """The records to read (id, version, pointer mod revision), and the pointers that name none."""
    stale: list[tuple[str, int, int]] = []
    errors: dict[str, OmsError] = {}
    present = set()
    for kv in pointers:
        rid = kv.key[len(under) :]
        present.add(rid)
        text = kv.value.decode("ascii", "replace")
        if not text or len(text) > 16 or text.strip(_DIGITS) or str(int(text)) != text:
            errors[rid] = IntegrityError(f"{shown(kv.key)}: not a version number")
            cache.entries.pop(rid, None)
            continue
        entry = cache.entries.get(rid)
        version = int(text)
        if entry is None or entry.mtime_ns != kv.mod_revision or entry.record.version != version:
            stale.append((rid, version, kv.mod_revision))
    if whole:
        for gone in set(cache.entries) - present:
            del cache.entries[gone]
    if stale or errors or whole:
        cache.ordered = None
    return stale, errors


def _read(
    store: Keyed,
    kind: str,
    stale: list[tuple[str, int, int]],
    cache: Cache,
    errors: dict[str, OmsError],
    now: int,
    limits: Limits,
) -> None:
    """Read the versions the pointers name, a transaction of gets at a time, into the summary."""
    for start in range(0, len(stale), limits.etcd_txn_ops):
        batch = stale[start : start + limits.etcd_txn_ops]
        rels = [f"records/{kind}/{rid}/{version}.json" for rid, version, _ in batch]
        got = store.client.txn([], [Get(store.key(rel)) for rel in rels], [])
        for (rid, version, at), rel, kv in zip(batch, rels, got.reads, strict=True):
            try:
                record = _parse(kv, kind, rid, version, rel, limits, at)
            except OmsError as exc:
                errors[rid] = exc
                cache.entries.pop(rid, None)
                continue
            cache.entries[rid] = Entry(at, now, record)


def _parse(
    kv: KeyValue | None, kind: str, rid: str, version: int, rel: str, limits: Limits, at: int
) -> Record:
    """The version a pointer modified at revision `at` names. oms writes a pointer only in the
    transaction that creates the version it names, so the two revisions agree; a pointer put back
    to an older version (still there) or written again is modified later than that version was
    created, and is refused here as `EtcdStore.read_latest` refuses it (no extra round trip)."""
    if kv is None:
        raise IntegrityError(f"{kind} {rid}: its pointer names version {version}, which is absent")
    if kv.create_revision != at:
        raise IntegrityError(
            f"{kind} {rid}: its pointer names version {version}, which was not written with it "
            "(the pointer was put back or written again)"
        )
    if len(kv.value) > limits.record_bytes:
        raise FileTooLargeError(f"{shown(kv.key)}: over {limits.record_bytes} bytes")
    return parse_record(kv.value, kind, rid, version, rel)


def _latest(cache: Cache, read: int) -> Latest:
    if cache.ordered is None:
        cache.ordered = [cache.entries[k].record for k in sorted(cache.entries)]
        grouped: dict[str, list[Record]] = {}
        for record in cache.ordered:
            grouped.setdefault(record.state, []).append(record)
        cache.grouped = grouped
    grouped = cache.grouped or {}
    return Latest(
        list(cache.ordered), dict(cache.errors), read, {s: list(r) for s, r in grouped.items()}
    )


@contextmanager
def steady() -> Iterator[None]:
    """A scope in which each kind is ranged once, and again only after this process wrote (see
    the module); nested scopes are the outermost's. Per thread."""
    if getattr(_SCOPE, "memo", None) is not None:
        yield
        return
    _SCOPE.memo = {}
    try:
        yield
    finally:
        _SCOPE.memo = None


def wrote() -> None:
    """This process wrote a record (or any key): the next refresh in a steady scope ranges."""
    _written[0] = next(_WRITES)


def forget() -> None:
    """Drop every summary this process keeps."""
    with _LOCK:
        _CACHES.clear()
