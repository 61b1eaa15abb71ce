"""The tamper-evident ledger (issue 14 item 5, ADR 0022): one hash chain over every record version, event,
evidence and journal entry the store writes, with checkpoints signed by the state key.

`ledger/log` is append-only, one canonical JSON line an entry: `seq` (1, 2, ...), `prev` (the sha256 of
the previous line, `GENESIS` for the first), `at`, `kind` (record | event | evidence | journal | adopt |
compact: an archive of an ended ticket's files, `compaction.py`),
`path` (under the state root), `sha256` (of the file's bytes as published) and `mac`: an HMAC of the rest
under a key derived from the state key, so no line can be written, or rewritten, without it. A writer
appends under an flock of the log, right after its publish (`note`). A checkpoint
(`ledger/checkpoints/<seq>.json`) names the chain's head at `seq`, signed; one exported outside the state
root pins the chain against a rollback of the whole root. Files that predate the ledger are adopted only
by a person (`adopt`, `oms audit adopt`): a deleted ledger is never silently rebuilt over what is there.

What verification (`ledger_check.verify_ledger`) proves, and what it cannot, is ADR 0022's.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import re
import stat
from dataclasses import dataclass, field
from datetime import UTC, datetime

from oms.canonical import JsonObject, dumps, format_ts
from oms.errors import AlreadyExistsError, ConflictError, IntegrityError, NotFoundError, OmsError
from oms.fsio import Root

LOG = "ledger/log"
CHECKPOINTS = "ledger/checkpoints"
GENESIS = "0" * 64
MAX_LOG_BYTES = 512 * 1024 * 1024
KINDS = ("record", "event", "evidence", "journal", "adopt", "compact")
AREAS = ("records", "events", "evidence", "journals", "compacted")
_NUMBER = r"(?:0|[1-9][0-9]{0,15})"
# what the ledger covers: record versions, events, evidence, journal entries (never indexes, ops, locks)
COVERED = (
    re.compile(rf"records/[a-z-]+/[^/]+/{_NUMBER}\.json"),
    re.compile(r"events/[^/]+\.json"),
    re.compile(r"evidence/[0-9a-f]{64}\.json"),
    re.compile(rf"journals/[a-z-]+/{_NUMBER}\.json"),
    re.compile(r"compacted/[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?\.json\.z"),
)
_ENTRY = re.compile(
    rb'\{"at":"[0-9TZ:.+-]{10,40}","kind":"[a-z]{1,12}","mac":"[0-9a-f]{64}","path":"[A-Za-z0-9._/-]{1,400}",'
    rb'"prev":"[0-9a-f]{64}","seq":[1-9][0-9]{0,11},"sha256":"[0-9a-f]{64}"\}'
)
_MAC_CONTEXT = b"oms-ledger-mac-v1\0"
_STATE_KEY = "keys/state.ed25519"  # (stateroot.KEY: the seed the line key is derived from)
_SEED_BYTES = 32


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


def line_key(root: Root) -> bytes:
    """The key of the lines' MACs, derived from the state key (only oms, holding the key, writes a line)."""
    seed = root.read_secret(_STATE_KEY, _SEED_BYTES)
    return hashlib.sha256(_MAC_CONTEXT + seed).digest()


def line_of(seq: int, prev: str, at: str, kind: str, path: str, data: bytes, key: bytes | None = None) -> bytes:
    """The canonical line of an entry (with its newline); `key`: the line key (None: no MAC, never valid)."""
    doc: JsonObject = {"at": at, "kind": kind, "path": path, "prev": prev, "seq": seq, "sha256": _sha(data)}
    if key is not None:
        doc["mac"] = hmac.new(key, dumps(doc), hashlib.sha256).hexdigest()
    return dumps(doc) + b"\n"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def hash_of(line: bytes) -> str:
    """An entry's hash: the sha256 of its line (without the newline)."""
    return _sha(line.rstrip(b"\n"))


def parse_line(line: bytes, key: bytes | None = None) -> Entry:
    """An entry from its line; IntegrityError when the line is not one oms writes (with `key`: also when
    its MAC is not the line key's)."""
    if _ENTRY.fullmatch(line) is None:
        raise IntegrityError("not a ledger line")
    doc = json.loads(line)
    if doc["kind"] not in KINDS:
        raise IntegrityError(f"unknown kind {doc['kind']!r}")
    if key is not None:
        mac = doc.pop("mac")
        if not hmac.compare_digest(mac, hmac.new(key, dumps(doc), hashlib.sha256).hexdigest()):
            raise IntegrityError("not written with the state key (its mac does not match)")
    return Entry(doc["seq"], doc["prev"], doc["at"], doc["kind"], doc["path"], doc["sha256"], hash_of(line))


def now() -> str:
    """The ledger's clock: the wall clock (entries order by `seq`; `at` is for people)."""
    return format_ts(datetime.now(UTC))


def note(root: Root, kind: str, path: str, data: bytes) -> int:
    """Append the entry of a file just published; its sequence number. The first entry of a state root
    starts the log with a whole-file publish (never torn); files already there are not adopted."""
    key = line_key(root)
    root.mkdirs("ledger")
    if not root.exists(LOG):
        if covered_files(root)[0] - {path}:  # records from before the ledger (or a ledger deleted): a person decides
            raise IntegrityError(
                "this state root holds records but no ledger",
                hint="if it predates the ledger, run `oms audit adopt` once; if not, its ledger was deleted: "
                "`oms audit verify` against an exported checkpoint",
            )
        first = line_of(1, GENESIS, now(), kind, path, data, key)
        try:
            root.publish(LOG, first)
            return 1
        except AlreadyExistsError:
            pass  # another writer started it: append after its line
    seq_of: list[int] = []

    def make(last: bytes) -> bytes:  # never chained onto a line oms did not write (IntegrityError: stop)
        seq, prev = (1, GENESIS) if not last else (parse_line(last, key).seq + 1, hash_of(last))
        seq_of.append(seq)
        return line_of(seq, prev, now(), kind, path, data, key)

    root.append_chained(LOG, make)
    return seq_of[-1]


def start_empty(root: Root) -> None:
    """A new state root starts with an empty ledger (one with records but none is never adopted silently)."""
    if not root.exists(LOG) and not covered_files(root)[0]:
        root.mkdirs("ledger")
        with contextlib.suppress(AlreadyExistsError):  # a concurrent init made it
            root.publish(LOG, b"")


def adopt(root: Root) -> int:
    """Start the ledger of a state root that predates it: every covered file, as it is now, in one
    whole-file publish. Refused when a ledger exists (a person decides this, once)."""
    if root.exists(LOG):
        raise ConflictError("this state root has a ledger already: nothing adopted")
    key = line_key(root)
    lines, prev, seq = b"", GENESIS, 0
    for path in sorted(covered_files(root)[0]):
        seq += 1
        line = line_of(seq, prev, now(), "adopt", path, root.read_bytes(path, MAX_LOG_BYTES), key)
        lines, prev = lines + line, hash_of(line)
    if not lines:
        raise ConflictError("nothing to adopt: the ledger starts with the next write")
    root.mkdirs("ledger")
    root.publish(LOG, lines)
    return seq


def covered_files(root: Root) -> tuple[set[str], list[str]]:
    """Every covered file under the state root, and every entry in the covered areas that is neither a
    folder nor a regular file (a link, a FIFO: never something oms writes)."""
    found: set[str] = set()
    odd: list[str] = []
    for top in AREAS:
        _walk(root, top, found, odd, depth=3)
    return {p for p in found if covered(p)}, odd


def _walk(root: Root, rel: str, out: set[str], odd: list[str], depth: int) -> None:
    try:
        entries = list(root.scan(rel))
    except (NotFoundError, OSError):
        return
    except OmsError:
        odd.append(rel)
        return
    for name, st in entries:
        path = f"{rel}/{name}"
        if stat.S_ISDIR(st.st_mode):
            if depth > 0:
                _walk(root, path, out, odd, depth - 1)
        elif stat.S_ISREG(st.st_mode):
            out.add(path)
        elif covered(path) or rel in AREAS:
            odd.append(path)


@dataclass
class Chain:
    """The ledger read back: its entries in order, the first fault found (None: it links), the head."""

    entries: list[Entry] = field(default_factory=list)
    fault: str | None = None

    @property
    def head(self) -> tuple[int, str]:
        """(seq, hash) of the last entry ((0, GENESIS): none)."""
        return (self.entries[-1].seq, self.entries[-1].line_hash) if self.entries else (0, GENESIS)


def read_chain(root: Root, key: bytes | None = None) -> Chain:
    """Every entry, checked to link: `seq` counts up from 1, each `prev` is the previous line's hash, and
    (with `key`) each line carries the line key's MAC."""
    chain = Chain()
    try:
        data = root.read_optional(LOG, MAX_LOG_BYTES)
    except OmsError as exc:
        chain.fault = f"{LOG}: {exc.message}"
        return chain
    if data is None:
        return chain
    if data and not data.endswith(b"\n"):
        chain.fault = "the last line is torn (a writer died mid-write); the next write cuts it off"
        data = data[: data.rfind(b"\n") + 1]
    prev, seq = GENESIS, 0
    for number, line in enumerate(data.splitlines(), 1):
        try:
            entry = parse_line(line, key)
        except (IntegrityError, ValueError, RecursionError) as exc:
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
