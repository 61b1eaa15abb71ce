"""The latest version of every record of a kind, kept between reads, so a read costs what changed (issue 12,
ADR 0018).

How a change is seen. Publishing a version adds a file to `records/<kind>/<id>/`, which sets that
directory's modification time; every record write also sets the time of `records/<kind>/` itself, before
and after it publishes (`RecordStore._write`). So a refresh

* stats `records/<kind>/`: unchanged since the last scan, that scan settled and recent, nothing of the kind
  changed and nothing is read;
* else stats every id directory (one scan) and reads only the records whose directory's time changed, or
  was not yet settled when it was read.

A time is settled once it is RACY_NS older than the scan that saw it: file times are coarse (a kernel
tick), so two changes within one tick share a time, and a time seen too soon after it was set is looked at
again by the next scan. A writer killed after its publish and before its second mark, having stalled over
RACY_NS after its first, is seen by the next full scan (at most FULL_SCAN_NS apart) or its record's next
change.

The summary lives in the process (a conductor's ticks) and in `index/<kind>/<generation>.json` for the next
process (`oms status`, `oms ticket list`): a cache, never an authority. Its entries were parsed and checked
from their version files, each carries its version's digest, and `oms store verify` checks every entry
against its record (`check`). A summary file that is damaged or names another kind is ignored: everything
is read again. Writing one is best effort (a read-only state root reads without it).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from oms.errors import AlreadyExistsError, NotFoundError, OmsError
from oms.fsio import Root
from oms.store.records import Record

RACY_NS = 2_000_000_000  # a time this close to the scan that saw it is looked at again
FULL_SCAN_NS = 300_000_000_000  # every id directory is stat'ed at least this often
PERSIST_AFTER = 64  # records read again since the summary file was written: write a new one (or 5 % of the
PERSIST_SHARE = 20  # records, whichever is more: writing n entries every n/20 reads is 20 a read at most)
SUMMARY_CAP = 256 * 1024 * 1024
INDEX_DIR = "index"
FORMAT = "oms-summary-v1"

Reader = Callable[[str], Record | None]


@dataclass(slots=True)
class _Entry:
    mtime_ns: int  # its directory's time when it was read
    seen_ns: int  # when it was read
    record: Record


@dataclass(slots=True)
class _Cache:
    entries: dict[str, _Entry] = field(default_factory=dict)
    kind_mtime_ns: int = -1
    seen_ns: int = 0  # the last full scan
    errors: dict[str, OmsError] = field(default_factory=dict)
    unsaved: int = 0
    ordered: list[Record] | None = None  # by id, made again after a change
    grouped: dict[str, list[Record]] | None = None  # by state, each by id


@dataclass(frozen=True, slots=True)
class Latest:
    """The latest version of every readable record of a kind (sorted by id), and why the others cannot be
    read (id -> the error reading it raised)."""

    records: list[Record]
    errors: dict[str, OmsError]
    read: int  # records read from their files by this refresh
    grouped: dict[str, list[Record]] = field(default_factory=dict)

    def checked(self) -> list[Record]:
        """The records, or the error of the first (by id) that cannot be read."""
        if self.errors:
            raise self.errors[min(self.errors)]
        return self.records

    def in_states(self, states: Collection[str]) -> list[Record]:
        """The records whose latest version is in one of `states` (by id; costs what it returns)."""
        found = [r for state in states for r in self.grouped.get(state, ())]
        return sorted(found, key=lambda r: r.record_id) if len(states) > 1 else found


_LOCK = threading.Lock()
_CACHES: dict[tuple[tuple[int, int], str], _Cache] = {}


def _settled(mtime_ns: int, seen_ns: int) -> bool:
    return mtime_ns < seen_ns - RACY_NS


def refresh(root: Root, kind: str, read: Reader, clock: Callable[[], int] = time.time_ns) -> Latest:
    """The latest version of every record of `kind` under `root`, reading only what changed (`read` reads
    one record's latest version, None for an empty directory; an `OmsError` is that record's error;
    `clock`: the wall clock in ns, the one file times are set from)."""
    with _LOCK:
        key = (root.identity(), kind)
        cache = _CACHES.get(key)
        if cache is None:
            cache = _CACHES[key] = _load(root, kind) or _Cache()
        now = clock()
        top = f"records/{kind}"
        try:
            st = root.lstat(top)
        except NotFoundError:
            st = None
        if st is None:
            _CACHES[key] = _Cache()
            return Latest([], {}, 0)
        fresh = now - cache.seen_ns < FULL_SCAN_NS and _settled(cache.kind_mtime_ns, cache.seen_ns)
        if st.st_mtime_ns == cache.kind_mtime_ns and fresh and not cache.errors:
            return Latest(_ordered(cache), {}, 0, _grouped(cache))
        count = _scan(root, top, cache, read, now)
        cache.kind_mtime_ns, cache.seen_ns = st.st_mtime_ns, now
        cache.unsaved += count
        if cache.unsaved >= max(PERSIST_AFTER, len(cache.entries) // PERSIST_SHARE):
            _save(root, kind, cache)
        return Latest(_ordered(cache), dict(cache.errors), count, _grouped(cache))


def _scan(root: Root, top: str, cache: _Cache, read: Reader, now: int) -> int:
    """Stat every id directory; read those that changed. The number read."""
    count = 0
    present = set()
    errors: dict[str, OmsError] = {}
    for name, st in root.scan(top):
        present.add(name)
        entry = cache.entries.get(name)
        if entry is not None and entry.mtime_ns == st.st_mtime_ns and _settled(entry.mtime_ns, entry.seen_ns):
            continue
        count += 1
        cache.ordered = cache.grouped = None
        try:
            record = read(name)
        except OmsError as exc:
            errors[name] = exc
            cache.entries.pop(name, None)
            continue
        if record is None:
            cache.entries.pop(name, None)
        else:
            cache.entries[name] = _Entry(st.st_mtime_ns, now, record)
    for gone in set(cache.entries) - present:
        del cache.entries[gone]
        cache.ordered = cache.grouped = None
    cache.errors = errors
    return count


def _ordered(cache: _Cache) -> list[Record]:
    if cache.ordered is None:
        cache.ordered = [cache.entries[k].record for k in sorted(cache.entries)]
    return list(cache.ordered)


def _grouped(cache: _Cache) -> dict[str, list[Record]]:
    if cache.grouped is None:
        grouped: dict[str, list[Record]] = {}
        for record in _ordered(cache):
            grouped.setdefault(record.state, []).append(record)
        cache.grouped = grouped
    return {state: list(records) for state, records in cache.grouped.items()}


def forget() -> None:
    """Drop every summary this process keeps (the next refresh starts from the summary file)."""
    with _LOCK:
        _CACHES.clear()


# ---------------------------------------------------------------------- the summary file
def _generations(root: Root, kind: str) -> list[int]:
    try:
        names = root.listdir(f"{INDEX_DIR}/{kind}")
    except OmsError:
        return []
    return sorted(int(n[:-5]) for n in names if n.endswith(".json") and n[:-5].isdigit() and len(n) < 25)


def summary_path(kind: str, generation: int) -> str:
    """Where generation `generation` of `kind`'s summary lives."""
    return f"{INDEX_DIR}/{kind}/{generation}.json"


def _save(root: Root, kind: str, cache: _Cache) -> None:
    """Write the next generation, then drop the older ones (best effort: a race or a read-only root keeps
    the summary in the process only)."""
    generations = _generations(root, kind)
    generation = (generations[-1] if generations else 0) + 1
    doc = {
        "format": FORMAT,
        "kind": kind,
        "kind_mtime_ns": cache.kind_mtime_ns,
        "seen_ns": cache.seen_ns,
        "entries": [
            [rid, e.mtime_ns, e.seen_ns, e.record.sha256, e.record.to_json()] for rid, e in cache.entries.items()
        ],
    }
    data = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
    try:
        root.mkdirs(f"{INDEX_DIR}/{kind}")
        root.publish(summary_path(kind, generation), data)
    except AlreadyExistsError:
        return  # another process wrote this generation: the next refresh may write the one after
    except OmsError:
        return
    cache.unsaved = 0
    for old in generations:
        try:
            root.unlink(summary_path(kind, old))
        except OmsError:
            continue


def _load(root: Root, kind: str) -> _Cache | None:
    """The newest summary file of `kind`, or None (none, or one that cannot be used)."""
    generations = _generations(root, kind)
    if not generations:
        return None
    try:
        data = root.read_bytes(summary_path(kind, generations[-1]), SUMMARY_CAP)
        return decode(data, kind)
    except (OmsError, ValueError, TypeError, KeyError):
        return None


def decode(data: bytes, kind: str) -> _Cache:
    """A summary file's entries (ValueError, TypeError or KeyError if it is not one of `kind`)."""
    doc = json.loads(data)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("kind") != kind:
        raise ValueError("not a summary of this kind")
    cache = _Cache(kind_mtime_ns=_int(doc["kind_mtime_ns"]), seen_ns=_int(doc["seen_ns"]))
    for item in doc["entries"]:
        rid, mtime_ns, seen_ns, sha256, envelope = item
        record = _record(envelope, kind, _text(rid), _text(sha256))
        cache.entries[record.record_id] = _Entry(_int(mtime_ns), _int(seen_ns), record)
    return cache


def _record(doc: object, kind: str, rid: str, sha256: str) -> Record:
    if not isinstance(doc, dict) or doc.get("kind") != kind or doc.get("record_id") != rid:
        raise ValueError("an entry names another record")
    expected = doc["expected_version"]
    previous = doc["previous_sha256"]
    payload = doc["payload"]
    if not isinstance(payload, dict):
        raise TypeError("payload")
    return Record(
        kind,
        rid,
        _int(doc["version"]),
        _text(doc["state"]),
        None if expected is None else _int(expected),
        _text(doc["operation_id"]),
        _text(doc["actor"]),
        _text(doc["observed_at"]),
        None if previous is None else _text(previous),
        payload,
        sha256,
    )


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("not an integer")
    return value


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("not a string")
    return value


def problems(data: bytes, kind: str, latest: dict[str, Record], mtimes: dict[str, int]) -> list[tuple[str, str]]:
    """What is wrong with a summary file of `kind` (`oms store verify`), given the latest version of every
    record of the kind and its directory's time: (record id or "", problem). An entry whose time is not its
    directory's any more is stale, and harmless (it is read again); one that claims the current time must
    be that record's latest version, exactly."""
    try:
        cache = decode(data, kind)
    except (ValueError, TypeError, KeyError) as exc:
        return [("", f"not a summary of {kind} records ({type(exc).__name__}): oms reads every record instead")]
    out = []
    for rid, entry in sorted(cache.entries.items()):
        if rid not in latest:
            if rid in mtimes and entry.mtime_ns == mtimes[rid]:
                out.append((rid, "names a record that cannot be read"))
            continue
        if entry.mtime_ns == mtimes.get(rid) and entry.record != latest[rid]:
            out.append((rid, f"disagrees with the record's latest version {latest[rid].version}"))
    return out
