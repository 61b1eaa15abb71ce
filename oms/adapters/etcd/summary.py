"""The record summary on etcd (ADR 0018 on a cluster, ADR 0043): the latest version of every record
of a kind, reading only what changed.

On files a change is seen by directory times (`store/summary.py`). On etcd every record has one
pointer key, `latest/<kind>/<id>`, rewritten in the transaction that publishes each version
(`EtcdStore.publish_version`), so a refresh

* ranges the pointers of the kind — small keys, read in pages at one revision — and
* reads, in transactions of `LIMITS.etcd_txn_ops` gets, only the version keys of the records whose
  pointer's version or mod revision is not the one the summary holds.

Nothing depends on a clock: a pointer's mod revision changes with every write and never comes back.
The summary is kept in the process and in the state root's `index/etcd.<kind>/` summary file
(`store/summary_file.py`: authenticated by the state key, a cache, never an authority), so a new
process (`oms status`, `oms ticket list`) reads only what changed since it was written. Its entries
hold each record's pointer mod revision where files hold a directory time. Every version read is
parsed and checked as a file is (`parse_record`): etcd is not trusted to vouch for the bytes.
"""

from __future__ import annotations

import threading
import time

from oms.adapters.etcd.client import Get, KeyValue
from oms.adapters.etcd.store import EtcdStore
from oms.errors import FileTooLargeError, IntegrityError, OmsError, shown
from oms.fsio import Root
from oms.limits import LIMITS, Limits
from oms.store import summary_file
from oms.store.records import Record, parse_record
from oms.store.summary import PERSIST_AFTER, PERSIST_SHARE, Latest
from oms.store.summary_file import Cache, Entry

_LOCK = threading.Lock()
_CACHES: dict[tuple[tuple[int, int], str, str], Cache] = {}
_DIGITS = "0123456789"


def label(kind: str) -> str:
    """The summary file's name for an etcd store's `kind` (`index/etcd.<kind>/`)."""
    return f"etcd.{kind}"


def refresh(store: EtcdStore, root: Root, kind: str, limits: Limits = LIMITS) -> Latest:
    """The latest version of every record of `kind` in `store`, reading only the records whose
    pointer moved since this process's (or the summary file's) last refresh; a record that cannot
    be read is named with its error, not raised."""
    with _LOCK:
        key = (root.identity(), store.prefix, kind)
        cache = _CACHES.get(key)
        under = f"{store.prefix}latest/{kind}/"
        pointers, revision = store.client.range_at(under)
        if cache is None:
            cache = (
                summary_file.load(root, kind, len(pointers), time.time_ns(), 0, label=label(kind))
                or Cache()
            )
            _CACHES[key] = cache
        if revision == cache.kind_mtime_ns and not cache.errors:
            return _latest(cache, 0)
        stale: list[tuple[str, int, int]] = []  # (id, version, pointer mod revision)
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
            if (
                entry is None
                or entry.mtime_ns != kv.mod_revision
                or entry.record.version != version
            ):
                stale.append((rid, version, kv.mod_revision))
        for gone in set(cache.entries) - present:
            del cache.entries[gone]
        cache.ordered = cache.grouped = None
        now = time.time_ns()
        for start in range(0, len(stale), limits.etcd_txn_ops):
            batch = stale[start : start + limits.etcd_txn_ops]
            rels = [f"records/{kind}/{rid}/{version}.json" for rid, version, _ in batch]
            got = store.client.txn([], [Get(store.key(rel)) for rel in rels], [])
            for (rid, version, at), rel, found in zip(batch, rels, got.reads, strict=True):
                try:
                    record = _parse(found, kind, rid, version, rel, limits)
                except OmsError as exc:
                    errors[rid] = exc
                    cache.entries.pop(rid, None)
                    continue
                cache.entries[rid] = Entry(at, now, record)
        cache.errors = errors
        cache.kind_mtime_ns, cache.seen_ns = revision, now
        cache.unsaved += len(stale)
        if cache.unsaved >= max(
            PERSIST_AFTER, len(cache.entries) // PERSIST_SHARE
        ) and summary_file.save(root, kind, cache, label=label(kind)):
            cache.unsaved = 0
        return _latest(cache, len(stale))


def _parse(
    kv: KeyValue | None, kind: str, rid: str, version: int, rel: str, limits: Limits
) -> Record:
    if kv is None:
        raise IntegrityError(f"{kind} {rid}: its pointer names version {version}, which is absent")
    if len(kv.value) > limits.record_bytes:
        raise FileTooLargeError(f"{shown(kv.key)}: over {limits.record_bytes} bytes")
    return parse_record(kv.value, kind, rid, version, rel)


def _latest(cache: Cache, read: int) -> Latest:
    if cache.ordered is None:
        cache.ordered = [cache.entries[k].record for k in sorted(cache.entries)]
    grouped: dict[str, list[Record]] = {}
    for record in cache.ordered:
        grouped.setdefault(record.state, []).append(record)
    return Latest(list(cache.ordered), dict(cache.errors), read, grouped)


def forget() -> None:
    """Drop every summary this process keeps."""
    with _LOCK:
        _CACHES.clear()
