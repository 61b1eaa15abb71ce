"""The latest version of every record of a kind, kept between reads, so a read costs what changed
(issue 12, ADR 0018).

How a change is seen. Publishing a version adds a file to `records/<kind>/<id>/`, which sets that
directory's modification time; every record write also sets the time of `records/<kind>/` itself,
before and after it publishes (`RecordStore._write`). So a refresh

* stats `records/<kind>/`: unchanged since the last scan, that scan settled and recent, nothing of
  the kind changed and nothing is read;
* else stats every id directory (one scan) and reads only the records whose directory's time
  changed, or was not yet settled when it was read.

A time is settled once it is `Limits.summary_racy_ns` older than the scan that saw it: file times
are coarse (a kernel tick), so two changes within one tick share a time, and a time seen too soon
after it was set is looked at again by the next scan. A writer killed after its publish and before
its second mark, having stalled over `Limits.summary_racy_ns` after its first, is seen by the next
full scan (at most `Limits.summary_full_scan_ns` apart) or its record's next change.

The summary lives in the process (a conductor's ticks) and in `index/<kind>/<generation>.json` for
the next process (`oms status`, `oms ticket list`; `store/summary_file.py`): a cache, never an
authority. Its entries were parsed and checked from their version files by an oms process of this
state root (the file is authenticated with a key derived from the state key), and `oms store verify`
checks every entry against its record. A summary file that is damaged, foreign or too large is
ignored: everything is read again. Writing one is best effort (a read-only state root reads without
it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from oms.errors import NotFoundError, OmsError
from oms.fsio import Root
from oms.limits import LIMITS
from oms.store import summary_file
from oms.store.records import Record
from oms.store.summary_file import Cache, Entry

Reader = Callable[[str], Record | None]


@dataclass(frozen=True, slots=True)
class Latest:
    """The latest version of every readable record of a kind (sorted by id), and why the others
    cannot be read (id -> the error reading it raised)."""

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
_CACHES: dict[tuple[tuple[int, int], str], Cache] = {}


def _settled(mtime_ns: int, seen_ns: int) -> bool:
    return mtime_ns < seen_ns - LIMITS.summary_racy_ns


def refresh(root: Root, kind: str, read: Reader, clock: Callable[[], int] = time.time_ns) -> Latest:
    """The latest version of every record of `kind` under `root`, reading only what changed (`read`
    reads one record's latest version, None for an empty directory; an `OmsError` is that record's
    error; `clock`: the wall clock in ns, the one file times are set from)."""
    with _LOCK:
        key = (root.identity(), kind)
        now = clock()
        top = f"records/{kind}"
        try:
            st = root.lstat(top)
        except NotFoundError:
            st = None
        if st is None:
            _CACHES[key] = Cache()
            return Latest([], {}, 0)
        cache = _CACHES.get(key)
        if cache is None:
            loaded = summary_file.load(
                root, kind, len(root.listdir(top)), now, LIMITS.summary_racy_ns
            )
            cache = _CACHES[key] = loaded or Cache()
        fresh = now - cache.seen_ns < LIMITS.summary_full_scan_ns and _settled(
            cache.kind_mtime_ns, cache.seen_ns
        )
        if st.st_mtime_ns == cache.kind_mtime_ns and fresh and not cache.errors:
            return Latest(_ordered(cache), {}, 0, _grouped(cache))
        count = _scan(root, top, cache, read, now)
        cache.kind_mtime_ns, cache.seen_ns = st.st_mtime_ns, now
        cache.unsaved += count
        if cache.unsaved >= max(
            LIMITS.summary_persist_after, len(cache.entries) // LIMITS.summary_persist_share
        ) and summary_file.save(root, kind, cache):
            cache.unsaved = 0
        return Latest(_ordered(cache), dict(cache.errors), count, _grouped(cache))


def _scan(root: Root, top: str, cache: Cache, read: Reader, now: int) -> int:
    """Stat every id directory; read those that changed. The number read."""
    count = 0
    present = set()
    errors: dict[str, OmsError] = {}
    for name, st in root.scan(top):
        present.add(name)
        entry = cache.entries.get(name)
        if (
            entry is not None
            and entry.mtime_ns == st.st_mtime_ns
            and _settled(entry.mtime_ns, entry.seen_ns)
        ):
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
            cache.entries[name] = Entry(st.st_mtime_ns, now, record)
    for gone in set(cache.entries) - present:
        del cache.entries[gone]
        cache.ordered = cache.grouped = None
    cache.errors = errors
    return count


def _ordered(cache: Cache) -> list[Record]:
    if cache.ordered is None:
        cache.ordered = [cache.entries[k].record for k in sorted(cache.entries)]
    return list(cache.ordered)


def _grouped(cache: Cache) -> dict[str, list[Record]]:
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
