"""The record summary's file, `index/<kind>/<generation>.json` (ADR 0018): what a new process starts
from.

A summary file is authenticated: its first line carries an HMAC-SHA256 of the body under a key
derived from the state root's signing key, so only an oms process of this state root writes a file
another one trusts — an edited, forged or foreign file is ignored (everything is read again) and
`oms store verify` reports it. A file is read only up to `Limits.summary_entry_bytes` bytes per
record directory, and only its ASCII generation names count (`generation_of`), the same for the
reader and for `store verify`.

The body (`oms-summary-v2`, ADR 0043 as amended by `etcdspeed`) is columnar: one JSON array per
field of the entries (ids, times, the envelopes' fields), and each payload as the index of its key
list in `shapes` and its values in that order. Every new process of `oms status` parses it, so it
is made to parse fast: no key is repeated per entry (a third of v1's bytes at 10,000 tickets), and
each column is checked and each record built by C loops (`map`) rather than per entry in Python.
The checks are v1's: every id is an id, every field its type, every payload an object with unique
ASCII keys. A v1 body (the envelopes row by row) is still read, and written again as v2 by the next
refresh that saves.
"""

from __future__ import annotations

import gc
import hashlib
import hmac
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

from oms.canonical import check
from oms.canonical.ids import OPAQUE_ID
from oms.canonical.strict_json import loads_foreign
from oms.errors import AlreadyExistsError, IntegrityError, InvalidIdError, OmsError
from oms.fsio import Root
from oms.limits import LIMITS
from oms.store import keys
from oms.store.records import Record
from oms.store.stateroot import KEY

INDEX_DIR = "index"
FORMAT = "oms-summary-v2"
FORMAT_V1 = "oms-summary-v1"  # read, never written
HEADER = b"oms-summary-v1 "
GENERATION_NAME = re.compile(r"([1-9][0-9]{0,17})\.json")
_MAC_KEYS: dict[tuple[int, int], bytes] = {}


@dataclass(slots=True)
class Entry:
    """One record's latest version, with its directory's time when it was read and when that was."""

    mtime_ns: int
    seen_ns: int
    record: Record


@dataclass(slots=True)
class Cache:
    """A kind's summary: what a refresh starts from and leaves."""

    entries: dict[str, Entry] = field(default_factory=dict)
    kind_mtime_ns: int = -1
    seen_ns: int = 0  # the last full scan
    errors: dict[str, OmsError] = field(default_factory=dict)
    unsaved: int = 0
    ordered: list[Record] | None = None  # by id, made again after a change
    grouped: dict[str, list[Record]] | None = None  # by state, each by id
    origin: str = ""  # where the records are read from: "" the state root, else an etcd store's


def generation_of(name: str) -> int | None:
    """The generation a summary file's name gives (ASCII digits only), or None for any other
    name."""
    found = GENERATION_NAME.fullmatch(name)
    return int(found.group(1)) if found is not None else None


def generations(root: Root, kind: str) -> list[int]:
    """The generations of `kind`'s summary present, ascending."""
    try:
        names = root.listdir(f"{INDEX_DIR}/{kind}")
    except OmsError:
        return []
    return sorted(g for name in names if (g := generation_of(name)) is not None)


def summary_path(kind: str, generation: int) -> str:
    """Where generation `generation` of `kind`'s summary lives."""
    return f"{INDEX_DIR}/{kind}/{generation}.json"


def mac_key(root: Root) -> bytes | None:
    """The key summaries are authenticated with, derived from the state root's signing key (None:
    the key cannot be read, and no summary is written or trusted)."""
    key = _MAC_KEYS.get(root.identity())
    if key is None:
        try:
            seed = root.read_secret(KEY, keys.SEED_BYTES)
        except OmsError:
            return None
        key = _MAC_KEYS[root.identity()] = hmac.new(
            seed, b"oms-summary-v1", hashlib.sha256
        ).digest()
    return key


def _mac(key: bytes, kind: str, body: bytes) -> bytes:
    return (
        hmac.new(key, kind.encode("ascii") + b"\0" + body, hashlib.sha256)
        .hexdigest()
        .encode("ascii")
    )


def seal(key: bytes, kind: str, body: bytes) -> bytes:
    """A summary file: the header with the body's MAC, a newline, the body."""
    return HEADER + _mac(key, kind, body) + b"\n" + body


def unseal(key: bytes, kind: str, data: bytes) -> bytes:
    """The body of a summary file whose MAC is right (ValueError otherwise)."""
    head, _, body = data.partition(b"\n")
    if not head.startswith(HEADER) or not hmac.compare_digest(
        head[len(HEADER) :], _mac(key, kind, body)
    ):
        raise ValueError("not authenticated by this state root's key (not written by oms here)")
    return body


def save(root: Root, kind: str, cache: Cache, *, label: str | None = None) -> bool:
    """Write the next generation, then drop the older ones; False if none was written (a race, a
    read-only root, no key: the summary stays in the process). `label`: the summary's name under
    `index/` (and in its MAC) when it is not `kind`'s (an etcd store's: `etcd.<kind>`)."""
    key = mac_key(root)
    if key is None:
        return False
    name = label or kind
    present = generations(root, name)
    generation = (present[-1] if present else 0) + 1
    body = encode(cache, kind)
    try:
        root.mkdirs(f"{INDEX_DIR}/{name}")
        root.publish(summary_path(name, generation), seal(key, name, body))
    except (AlreadyExistsError, OmsError):
        return False
    for old in present:
        try:
            root.unlink(summary_path(name, old))
        except OmsError:
            continue
    return True


def load(
    root: Root, kind: str, ids: int, now_ns: int, racy_ns: int, *, label: str | None = None
) -> Cache | None:
    """The newest summary of `kind` (named `label`, as for `save`), or None: none, too large for
    `ids` record directories, not authenticated, damaged, or claiming a scan in the future."""
    name = label or kind
    present = generations(root, name)
    key = mac_key(root)
    if not present or key is None:
        return None
    cap = min(LIMITS.summary_bytes, (ids + 16) * LIMITS.summary_entry_bytes)
    try:
        cache = decode(
            unseal(key, name, root.read_bytes(summary_path(name, present[-1]), cap)), kind
        )
    except (OmsError, ValueError, TypeError, KeyError, RecursionError):
        return None
    return cache if cache.seen_ns <= now_ns + racy_ns else None


# v2's columns, in the order `encode` writes them and `Record`'s fields take them
COLUMNS = (
    "ids", "mtimes", "seens", "versions", "states", "expected", "operations", "actors",
    "observed", "previous", "sha256", "shapes_of", "values",
)  # fmt: skip


def encode(cache: Cache, kind: str) -> bytes:
    """The body of `cache` as a summary of `kind` (`oms-summary-v2`: see the module)."""
    shapes: dict[tuple[str, ...], int] = {}
    entries = cache.entries.values()
    records = [e.record for e in entries]
    doc: dict[str, object] = {
        "format": FORMAT,
        "kind": kind,
        "kind_mtime_ns": cache.kind_mtime_ns,
        "seen_ns": cache.seen_ns,
        "origin": cache.origin,
        "errors": sorted(cache.errors),
        "ids": list(cache.entries),
        "mtimes": [e.mtime_ns for e in entries],
        "seens": [e.seen_ns for e in entries],
        "versions": [r.version for r in records],
        "states": [r.state for r in records],
        "expected": [r.expected_version for r in records],
        "operations": [r.operation_id for r in records],
        "actors": [r.actor for r in records],
        "observed": [r.observed_at for r in records],
        "previous": [r.previous_sha256 for r in records],
        "sha256": [r.sha256 for r in records],
        "shapes_of": [shapes.setdefault(tuple(r.payload), len(shapes)) for r in records],
        "values": [list(r.payload.values()) for r in records],
    }
    doc["shapes"] = [list(keys) for keys in shapes]
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


def decode(body: bytes, kind: str) -> Cache:
    """A summary body (ValueError, TypeError, KeyError or RecursionError if it is not one of
    `kind`).

    The cyclic garbage collector is paused meanwhile: decoding makes a container or more per entry
    and none is garbage (nor in a cycle), yet each collection of the oldest generation would walk
    all that was made so far (measured: v2 at 10,000 tickets 98 ms with it, 51 ms without)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return _decode(body, kind)
    finally:
        if paused:
            gc.enable()


def _decode(body: bytes, kind: str) -> Cache:
    doc = loads_foreign(body)
    if not isinstance(doc, dict) or doc.get("kind") != kind:
        raise ValueError("not a summary of this kind")
    if doc.get("format") == FORMAT_V1:
        return _decode_v1(doc, kind)
    if doc.get("format") != FORMAT:
        raise ValueError("not a summary of this kind")
    cache = _head(doc, kind)
    ids, mtimes, seens, *fields, shapes_of, values = (_list(doc[name]) for name in COLUMNS)
    if any(len(column) != len(ids) for column in (mtimes, seens, *fields, shapes_of, values)):
        raise ValueError("the columns are not of one length")
    _each(ids, str)
    if ids and (max(map(len, ids)) > LIMITS.id_length or not all(map(OPAQUE_ID.fullmatch, ids))):
        try:  # `check`'s rule, in one C loop; `check` names the first that breaks it
            for rid in ids:
                check(rid, "record id")
        except InvalidIdError as exc:
            raise ValueError(exc.message) from None
        raise ValueError("a record id is not one")
    _each(mtimes, int)
    _each(seens, int)
    for column, types in zip(fields, _FIELD_TYPES, strict=True):
        _each(column, *types)
    shapes = [_shape(keys) for keys in _list(doc["shapes"])]
    _each(shapes_of, int)
    _each(values, list)
    if shapes_of and (min(shapes_of) < 0 or max(shapes_of) >= len(shapes)):
        raise ValueError("a payload names a shape that is not there")
    keys = list(map(shapes.__getitem__, shapes_of))
    if list(map(len, keys)) != list(map(len, values)):
        raise ValueError("a payload's values are not its keys'")
    payloads = list(map(dict, map(zip, keys, values)))
    records = map(Record, repeat(kind), ids, *fields[:-1], payloads, fields[-1])
    cache.entries = dict(zip(ids, map(Entry, mtimes, seens, records), strict=True))
    return cache


# the types of v2's columns `versions` … `sha256`, Record's fields from `version` on (no payload)
_FIELD_TYPES: tuple[tuple[type, ...], ...] = (
    (int,), (str,), (int, type(None)), (str,), (str,), (str,), (str, type(None)), (str,),
)  # fmt: skip


def _list(value: object) -> list[Any]:
    """`value`, a JSON array (its items checked by the caller: `_each`)."""
    if type(value) is not list:
        raise TypeError("not a list")
    return value


def _each(column: Sequence[object], *types: type) -> None:
    """Every item of `column` is exactly of one of `types` (so a bool is not an int)."""
    if not set(map(type, column)) <= set(types):
        raise TypeError(f"not every item is {' or '.join(t.__name__ for t in types)}")


def _shape(keys: object) -> tuple[str, ...]:
    """A payload's keys: unique ASCII text."""
    out: tuple[str, ...] = tuple(_list(keys))
    _each(out, str)
    if len(set(out)) != len(out) or not all(map(_isascii, out)):
        raise ValueError("a payload's keys are not unique ASCII text")
    return out


_isascii: Callable[[str], bool] = str.isascii


def _head(doc: dict[str, object], kind: str) -> Cache:
    cache = Cache(
        kind_mtime_ns=_int(doc["kind_mtime_ns"]),
        seen_ns=_int(doc["seen_ns"]),
        origin=_text(doc.get("origin", "")),
    )
    for rid in _list(doc["errors"]):  # named again by the first refresh, which reads them again
        cache.errors[check(_text(rid), "record id")] = IntegrityError(
            f"{kind} {rid} could not be read"
        )
    return cache


def _decode_v1(doc: dict[str, object], kind: str) -> Cache:
    """A v1 body: the entries row by row, each with its whole envelope."""
    cache = _head(doc, kind)
    for item in _list(doc["entries"]):
        rid, mtime_ns, seen_ns, sha256, envelope = _list(item)
        record = _record(envelope, kind, check(_text(rid), "record id"), _text(sha256))
        cache.entries[record.record_id] = Entry(_int(mtime_ns), _int(seen_ns), record)
    cache.unsaved = len(cache.entries)  # written again as v2 by the next refresh that saves
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


def problems(
    data: bytes,
    kind: str,
    key: bytes,
    latest: dict[str, Record],
    mtimes: dict[str, int],
    kind_mtime_ns: int,
    racy_ns: int,
) -> list[tuple[str, str]]:
    """What is wrong with a summary file (`oms store verify`), given the latest version of every
    readable record of the kind, every record directory's time and the kind directory's: (record id
    or "", problem). A file a refresh would serve as it is (the kind unchanged since a settled scan)
    must agree with every record exactly; otherwise each entry whose time is still its directory's
    must."""
    try:
        cache = decode(unseal(key, kind, data), kind)
    except ValueError as exc:
        return [("", f"{exc}: oms ignores it and reads every record")]
    except (TypeError, KeyError, RecursionError) as exc:
        return [("", f"damaged ({type(exc).__name__}): oms ignores it and reads every record")]
    served = cache.kind_mtime_ns == kind_mtime_ns and cache.kind_mtime_ns < cache.seen_ns - racy_ns
    out = []
    for rid, entry in sorted(cache.entries.items()):
        current = served or entry.mtime_ns == mtimes.get(rid)
        if rid not in mtimes:
            if served:
                out.append((rid, "names a record that does not exist"))
        elif rid not in latest:
            if current:
                out.append((rid, "names a record that cannot be read"))
        elif current and entry.record != latest[rid]:
            out.append((rid, f"disagrees with the record's latest version {latest[rid].version}"))
    if served:
        out += [
            (rid, "misses this record")
            for rid in sorted(set(latest) - set(cache.entries) - set(cache.errors))
        ]
    return out
