"""The tamper-evident ledger (issue 14 item 5, ADR 0022): one hash chain over every record version, event,
evidence and journal entry the store writes, with checkpoints signed by the state key.

`ledger/log` is append-only, one canonical JSON line an entry: `seq` (1, 2, ...), `prev` (the sha256 of
the previous line, `GENESIS` for the first), `at`, `kind` (record | event | evidence | journal | adopt),
`path` (under the state root) and `sha256` (of the file's bytes as published). A writer appends under an
flock of the log, right after its publish (`note`). A checkpoint (`ledger/checkpoints/<seq>.json`) names
the chain's head at `seq`, signed; one exported outside the state root pins the chain against a rollback
of the whole root. The first note on a state root that has none adopts every file already there.

What verification (`verify_ledger`) proves, and what it cannot, is ADR 0022's: it finds an in-place edit or
deletion of any ledgered file (a record's latest version included), a file no entry names (an injected
version, or a writer that died between its publish and its note: said so), a chain that does not link, a
checkpoint the chain does not contain, and, given an exported checkpoint, a state root rolled back past it.
Anyone with the state key can rewrite the chain and sign new checkpoints: only an exported checkpoint
catches that.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from oms.canonical import JsonObject, dumps, format_ts
from oms.errors import IntegrityError
from oms.fsio import Root

LOG = "ledger/log"
CHECKPOINTS = "ledger/checkpoints"
GENESIS = "0" * 64
MAX_LOG_BYTES = 1024 * 1024 * 1024
KINDS = ("record", "event", "evidence", "journal", "adopt")
# what the ledger covers: record versions, events, evidence, journal entries (never indexes, ops, locks)
COVERED = (
    re.compile(r"records/[a-z-]+/[^/]+/[0-9]{1,12}\.json"),
    re.compile(r"events/[^/]+\.json"),
    re.compile(r"evidence/[0-9a-f]{64}\.json"),
    re.compile(r"journals/[a-z-]+/[0-9]{1,12}\.json"),
)
_ENTRY = re.compile(
    rb'\{"at":"[^"]{1,40}","kind":"[a-z]{1,12}","path":"[^"\\]{1,400}","prev":"[0-9a-f]{64}","seq":[1-9][0-9]{0,11},"sha256":"[0-9a-f]{64}"\}'
)


@dataclass(frozen=True, slots=True)
class Entry:
    """One ledger line."""

    seq: int
    prev: str
    at: str
    kind: str
    path: str
    sha256: str
    line_hash: str


def covered(path: str) -> bool:
    """Is `path` (under the state root) a file the ledger covers?"""
    return any(p.fullmatch(path) for p in COVERED)


def line_of(seq: int, prev: str, at: str, kind: str, path: str, data: bytes) -> bytes:
    """The canonical line of an entry (with its newline)."""
    doc: JsonObject = {"at": at, "kind": kind, "path": path, "prev": prev, "seq": seq, "sha256": _sha(data)}
    return dumps(doc) + b"\n"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def hash_of(line: bytes) -> str:
    """An entry's hash: the sha256 of its line (without the newline)."""
    return _sha(line.rstrip(b"\n"))


def parse_line(line: bytes) -> Entry:
    """An entry from its line; IntegrityError when the line is not one oms writes."""
    if _ENTRY.fullmatch(line) is None:
        raise IntegrityError("not a ledger line")
    doc = json.loads(line)
    if doc["kind"] not in KINDS:
        raise IntegrityError(f"unknown kind {doc['kind']!r}")
    return Entry(doc["seq"], doc["prev"], doc["at"], doc["kind"], doc["path"], doc["sha256"], hash_of(line))


def now() -> str:
    """The ledger's clock: the wall clock (entries order by `seq`; `at` is for people)."""
    return format_ts(datetime.now(UTC))


def note(root: Root, kind: str, path: str, data: bytes) -> int:
    """Append the entry of a file just published; its sequence number."""
    root.mkdirs("ledger")
    adopt = not root.exists(LOG)
    seq_of: list[int] = []

    def make(last: bytes) -> bytes:
        seq, prev = (1, GENESIS) if not last else (parse_line(last).seq + 1, hash_of(last))
        lines = b""
        if not last and adopt:  # the first note: every file already there, adopted as it is now
            for found, body in _existing(root, skip=path):
                line = line_of(seq, prev, now(), "adopt", found, body)
                lines, seq, prev = lines + line, seq + 1, hash_of(line)
        line = line_of(seq, prev, now(), kind, path, data)
        seq_of.append(seq)
        return lines + line

    root.append_chained(LOG, make)
    return seq_of[-1]


def _existing(root: Root, *, skip: str) -> Iterator[tuple[str, bytes]]:
    for path in sorted(covered_files(root)):
        if path != skip:
            yield path, root.read_bytes(path, MAX_LOG_BYTES)


def covered_files(root: Root) -> set[str]:
    """Every file under the state root the ledger covers."""
    found: set[str] = set()
    for top in ("records", "events", "evidence", "journals"):
        _walk(root, top, found, depth=3)
    return {p for p in found if covered(p)}


def _walk(root: Root, rel: str, out: set[str], depth: int) -> None:
    import stat

    try:
        entries = list(root.scan(rel))
    except OSError:
        return
    except Exception:  # noqa: BLE001 - a missing folder (NotFoundError) or one that is not ours: nothing covered
        return
    for name, st in entries:
        path = f"{rel}/{name}"
        if stat.S_ISDIR(st.st_mode) and depth > 0:
            _walk(root, path, out, depth - 1)
        elif stat.S_ISREG(st.st_mode):
            out.add(path)


@dataclass
class Chain:
    """The ledger read back: its entries in order, the first fault found (None: it links), the head."""

    entries: list[Entry] = field(default_factory=list)
    fault: str | None = None

    @property
    def head(self) -> tuple[int, str]:
        """(seq, hash) of the last entry ((0, GENESIS): none)."""
        return (self.entries[-1].seq, self.entries[-1].line_hash) if self.entries else (0, GENESIS)


def read_chain(root: Root) -> Chain:
    """Every entry, checked to link: `seq` counts up from 1 and each `prev` is the previous line's hash."""
    chain = Chain()
    data = root.read_optional(LOG, MAX_LOG_BYTES)
    if data is None:
        return chain
    if data and not data.endswith(b"\n"):
        chain.fault = "the last line is torn (a writer died mid-write); the next write cuts it off"
        data = data[: data.rfind(b"\n") + 1]
    prev, seq = GENESIS, 0
    for number, line in enumerate(data.splitlines(), 1):
        try:
            entry = parse_line(line)
        except (IntegrityError, ValueError) as exc:
            chain.fault = f"ledger line {number}: {exc}"
            return chain
        if entry.seq != seq + 1 or entry.prev != prev:
            chain.fault = f"ledger line {number} (seq {entry.seq}): does not link to the line before it"
            return chain
        chain.entries.append(entry)
        prev, seq = entry.line_hash, entry.seq
    return chain


def read_chain_from(state_root: str) -> list[Entry]:
    """The entries of the ledger of the state root at `state_root` (for tools and tests)."""
    with Root.open(state_root) as root:
        return read_chain(root).entries
