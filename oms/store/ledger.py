"""The tamper-evident ledger (ADR 0022, ADR 0027): one hash chain over every file of the state root
that oms writes once and keeps, with checkpoints signed by the state key.

`ledger/log` is append-only, one canonical JSON line an entry: `seq` (1, 2, ...), `prev` (the sha256
of the previous line, `GENESIS` for the first), `at`, `kind` (`KINDS`), `path` (under the state
root), `sha256` (of the file's bytes as published) and `mac`: an HMAC of the rest under a key
derived from the state key, so no line can be written, or rewritten, without it.

**One unit** (ADR 0027). A file the ledger covers is published by `publish_noted` alone, inside one
exclusive flock of the log: the last line is checked (a line oms did not write stops the writer
before anything is published), the new line is appended without its newline and made durable, the
file is published (no-replace), and the newline ends the line. A write the ledger refuses is never
published. A writer that dies inside the block leaves an unfinished last line, which the next writer
(or `oms store sweep`) settles under the same lock before anything else: the line is finished when
its file is there with its bytes (the writer died after publishing), and cut off otherwise (it died
before). Readers never take an unfinished line for an entry.

A checkpoint (`ledger/checkpoints/<seq>.json`) names the chain's head at `seq`, signed, and is
itself noted (kind `checkpoint`); the anchor outside the state root (`anchor.py`) pins the chain
against a rollback of the whole root. Files that predate the ledger are adopted only by a person
(`adopt`, `oms audit adopt`): a deleted ledger is never silently rebuilt over what is there.

What verification (`ledger_check.verify_ledger`) proves, and what it cannot, is ADR 0022's and
0027's."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import re
import stat
import threading
from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from oms.canonical import JsonObject, dumps, format_ts
from oms.canonical.strict_json import loads_foreign
from oms.errors import (
    AlreadyExistsError,
    ConflictError,
    IntegrityError,
    NotFoundError,
    OmsError,
)
from oms.fsio import Root
from oms.fsio.root import LockedLog, LogReader
from oms.limits import LIMITS
from oms.store import keys
from oms.store.keys import SigningKey

LOG = "ledger/log"
CHECKPOINTS = "ledger/checkpoints"
ROLLBACKS = "ledger/rollbacks"
META = "oms-state.json"  # (stateroot.META: the first entry of every ledger this oms starts)
GENESIS = "0" * 64
MAX_LINE = LIMITS.ledger_line_bytes  # a line longer than this is not one oms writes
READ_BACK_STEP = LIMITS.ledger_read_back_bytes  # read from the end this much at a time
MAX_FILE = LIMITS.ledger_file_bytes  # the largest covered file, hashed in pieces
TAIL_BYTES = LIMITS.ledger_tail_bytes
KINDS = (
    "record",
    "event",
    "evidence",
    "journal",
    "adopt",
    "compact",
    "state",
    "content",
    "worktree",
    "receipt",
    "checkpoint",
    "rollback",
    "output",
    "sandboxes",
    "repository",
    "hostname",
)
AREAS = (
    "records",
    "events",
    "evidence",
    "journals",
    "compacted",
    "tickets",
    "worktree-records",
    "outbox",
    "ledger",
    "verify",
    "archive",
)
_NUMBER = r"(?:0|[1-9][0-9]{0,15})"
_SHA = r"[0-9a-f]{64}"
# what the ledger covers: every file oms writes once and keeps (not indexes, ops, locks, panes)
COVERED = (
    re.compile(rf"records/[a-z-]+/[^/]+/{_NUMBER}\.json"),
    re.compile(r"events/[^/]+\.json"),
    re.compile(rf"evidence/{_SHA}\.json"),
    re.compile(rf"journals/[a-z-]+/{_NUMBER}\.json"),
    re.compile(r"compacted/[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?\.json\.z"),
    re.compile(r"oms-state\.json"),
    re.compile(rf"tickets/[^/]+/{_SHA}\.json"),
    re.compile(r"worktree-records/[^/]+\.json"),
    re.compile(r"outbox/[^/]+/[^/]+\.receipt\.json"),
    re.compile(rf"ledger/(?:checkpoints|rollbacks)/{_NUMBER}\.json"),
    re.compile(rf"verify/[^/]+/{_SHA}-[1-9][0-9]{{0,3}}\.log"),  # a check's output (ADR 0021)
    re.compile(r"archive/[^/]+\.bundle"),  # a discarded attempt's bundle (ADR 0021)
    re.compile(r"sandboxes\.json"),  # where the sandbox directory is (ADR 0026)
    re.compile(r"repository\.json"),  # the repository the state root serves (ADR 0032)
)
# kinds an oms before ADR 0027 did not ledger: adopted once, by a person, on upgrade (`adopt`)
UPGRADE = (
    re.compile(r"oms-state\.json"),
    re.compile(r"(?:tickets|worktree-records|outbox)/.*"),
    re.compile(r"ledger/checkpoints/.*"),
    re.compile(r"(?:verify|archive)/.*"),
)
_ENTRY = re.compile(
    rb'\{"at":"[0-9TZ:.+-]{10,40}","kind":"[a-z]{1,12}","mac":"[0-9a-f]{64}",'
    rb'"path":"[A-Za-z0-9._/-]{1,400}",'
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


def upgraded(path: str) -> bool:
    """Is `path` of a kind an oms before ADR 0027 did not ledger (adopted once on upgrade)?"""
    return any(p.fullmatch(path) for p in UPGRADE)


def line_key(root: Root) -> bytes:
    """The key of the lines' MACs, derived from the state key (only oms, holding the key, writes
    one)."""
    seed = root.read_secret(_STATE_KEY, _SEED_BYTES)
    return hashlib.sha256(_MAC_CONTEXT + seed).digest()


def line_of(
    seq: int,
    prev: str,
    at: str,
    kind: str,
    path: str,
    data: bytes,
    key: bytes | None = None,
) -> bytes:
    """The canonical line of an entry (with its newline); `key`: the line key (None: no MAC, never
    valid)."""
    doc: JsonObject = {
        "at": at,
        "kind": kind,
        "path": path,
        "prev": prev,
        "seq": seq,
        "sha256": _sha(data),
    }
    if key is not None:
        doc["mac"] = hmac.new(key, dumps(doc), hashlib.sha256).hexdigest()
    return dumps(doc) + b"\n"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def hash_of(line: bytes) -> str:
    """An entry's hash: the sha256 of its line (without the newline)."""
    return _sha(line.rstrip(b"\n"))


def parse_line(line: bytes, key: bytes | None = None) -> Entry:
    """An entry from its line; IntegrityError when the line is not one oms writes (with `key`: also
    when its MAC is not the line key's)."""
    if _ENTRY.fullmatch(line) is None:
        raise IntegrityError("not a ledger line")
    doc = loads_foreign(line)
    if doc["kind"] not in KINDS:
        raise IntegrityError(f"unknown kind {doc['kind']!r}")
    if key is not None:
        mac = doc.pop("mac")
        if not hmac.compare_digest(mac, hmac.new(key, dumps(doc), hashlib.sha256).hexdigest()):
            raise IntegrityError("not written with the state key (its mac does not match)")
    return Entry(
        doc["seq"], doc["prev"], doc["at"], doc["kind"], doc["path"], doc["sha256"], hash_of(line)
    )


def now() -> str:
    """The ledger's clock: the wall clock (entries order by `seq`; `at` is for people)."""
    return format_ts(datetime.now(UTC))


# ---------------------------------------------------------------------- writing
def publish_noted(root: Root, kind: str, path: str, data: bytes) -> int:
    """Publish `path` with `data` (no-replace) and its ledger entry as one unit; its sequence
    number.

    Refused by the ledger (its last line is not oms's, or it is missing over existing files):
    nothing is published. `AlreadyExistsError` when something is at `path` (nothing is noted). A
    crash anywhere leaves nothing visible, or a file the next writer's settling notes (see the
    module docstring)."""
    key = line_key(root)
    _ensure_log(root, path)
    with root.locked_log(LOG) as log:
        last, _ = _settle(root, log, key)
        if root.lstat(path) is not None:
            raise AlreadyExistsError(f"{path}: already exists; nothing was overwritten")
        seq, line = _next(last, kind, path, data, key)
        start = log.size
        log.append(line.rstrip(b"\n"))  # unfinished until its file is published
        log.sync()
        try:
            root.publish(path, data)
        except BaseException:
            if _holds(root, path, _sha(data)):  # published after all (the error came later): noted
                log.append(b"\n")
            else:
                log.truncate(start)
            raise
        log.append(b"\n")
        return seq


def note(root: Root, kind: str, path: str, data: bytes) -> int:
    """Append an entry for `path` without publishing it (a compaction notes its archive before it
    publishes it, `compaction.py`); its sequence number."""
    key = line_key(root)
    _ensure_log(root, path)
    with root.locked_log(LOG) as log:
        last, _ = _settle(root, log, key)
        seq, line = _next(last, kind, path, data, key)
        log.append(line)
        log.sync()
        return seq


def settle(root: Root) -> str | None:
    """Settle an unfinished last line now (what the next writer would do first; `oms store sweep`):
    what was done, or None when the log ends with a whole line."""
    if not root.exists(LOG):
        return None
    key = line_key(root)
    with root.locked_log(LOG) as log:
        return _settle(root, log, key)[1]


def _ensure_log(root: Root, path: str) -> None:
    """The log is there, or is started now for a root that holds nothing it covers; a root with
    covered files and no log (made before the ledger, or its ledger deleted) refuses: a person
    decides."""
    if root.exists(LOG):
        return
    if covered_files(root)[0] - {path, META}:
        raise IntegrityError(
            "this state root holds records but no ledger",
            hint="if it predates the ledger, run `oms audit adopt` once; if not, its ledger was "
            "deleted: `oms audit verify` against its anchor or an exported checkpoint",
        )
    start(root)


def _next(last: bytes, kind: str, path: str, data: bytes, key: bytes) -> tuple[int, bytes]:
    seq, prev = (1, GENESIS) if not last else (parse_line(last, key).seq + 1, hash_of(last))
    return seq, line_of(seq, prev, now(), kind, path, data, key)


def _settle(root: Root, log: LockedLog, key: bytes) -> tuple[bytes, str | None]:
    """Under the log's lock: check its last whole line is oms's (IntegrityError: stop, nothing
    changed), then finish or cut an unfinished line after it. The last whole line after that, and
    what was done."""
    tail = log.tail(TAIL_BYTES)
    cut = tail.rfind(b"\n")
    torn = 0
    if cut < 0 and log.size > TAIL_BYTES:  # no line oms writes is this long: cut to a whole one
        end = log.last_newline()
        if end < 0:
            raise IntegrityError(f"{LOG}: holds no whole line", hint="`oms audit verify`")
        torn = log.size - end - 1
        log.truncate(end + 1)
        tail = log.tail(TAIL_BYTES)
        cut = tail.rfind(b"\n")
    whole, pending = tail[: cut + 1].rstrip(b"\n"), tail[cut + 1 :]
    last = whole.rsplit(b"\n", 1)[-1]
    if last:
        try:  # never chain onto (or settle after) a line oms did not write: stop, nothing written
            parse_line(last, key)
        except IntegrityError as exc:
            raise IntegrityError(
                f"{LOG}: its last line is not one oms wrote ({exc.message}): nothing was written",
                hint="`oms audit verify` names what changed",
            ) from None
    if not pending:
        return last, (f"cut a torn tail of {torn} bytes" if torn else None)
    entry = _pending_entry(pending, last, key)
    if entry is not None and _holds(root, entry.path, entry.sha256):
        log.append(b"\n")  # its writer published the file and died before ending the line
        return pending, f"finished ledger line {entry.seq} ({entry.path} was published)"
    log.truncate(log.size - len(pending))
    what = f"line {entry.seq} ({entry.path} was never published)" if entry else "a torn line"
    return last, f"cut {what}"


def _pending_entry(pending: bytes, last: bytes, key: bytes | None) -> Entry | None:
    """The entry of an unfinished line, when it is one oms wrote after `last` (None: torn, or not
    ours)."""
    try:
        entry = parse_line(pending, key)
    except (IntegrityError, ValueError, RecursionError):
        return None
    seq, prev = (1, GENESIS) if not last else (parse_line(last).seq + 1, hash_of(last))
    return entry if (entry.seq, entry.prev) == (seq, prev) else None


def _holds(root: Root, path: str, digest: str) -> bool:
    """Is `path` a file with these bytes?"""
    try:
        return root.digest(path, MAX_FILE) == digest
    except OmsError:
        return False


def start(root: Root) -> None:
    """A new state root's ledger starts with the entry of its `oms-state.json`, in one whole-file
    publish (a root with other covered files and no ledger is never adopted silently: `adopt`)."""
    if root.exists(LOG) or covered_files(root)[0] - {META}:
        return
    data = root.read_bytes(META, MAX_FILE)
    first = line_of(1, GENESIS, now(), "state", META, data, line_key(root))
    root.mkdirs("ledger")
    with contextlib.suppress(AlreadyExistsError):  # a concurrent init or writer started it
        root.publish(LOG, first)


def adopt(root: Root) -> int:
    """Start the ledger of a state root that predates it: every covered file, as it is now, in one
    whole-file publish. On a ledger an oms before ADR 0027 started (no `state` entry): note once
    every file of the kinds it did not cover that no entry names. Refused otherwise (a person
    decides this, once)."""
    key = line_key(root)
    if root.exists(LOG):
        return _adopt_upgrade(root, key)
    lines, prev, seq = b"", GENESIS, 0
    for path in sorted(covered_files(root)[0]):
        seq += 1
        data = root.read_bytes(path, LIMITS.ledger_log_bytes)
        line = line_of(seq, prev, now(), "state" if path == META else "adopt", path, data, key)
        lines, prev = lines + line, hash_of(line)
    if not lines:
        raise ConflictError("nothing to adopt: the ledger starts with the next write")
    root.mkdirs("ledger")
    root.publish(LOG, lines)
    return seq


def _adopt_upgrade(root: Root, key: bytes) -> int:
    chain = read_chain(root, key)
    if chain.fault is not None:
        raise IntegrityError(f"the ledger does not hold: {chain.fault}", hint="oms audit verify")
    if any(e.kind == "state" for e in chain.entries):
        raise ConflictError("this state root has a ledger already: nothing adopted")
    named = {e.path for e in chain.entries}
    todo = sorted(p for p in covered_files(root)[0] if upgraded(p) and p not in named)
    if META not in todo:
        raise IntegrityError(f"{META} is missing or noted already: nothing adopted")
    todo.remove(META)
    for path in todo:
        note(root, "adopt", path, root.read_bytes(path, MAX_FILE))
    note(root, "state", META, root.read_bytes(META, MAX_FILE))  # last: the upgrade is done
    return len(todo) + 1


# ---------------------------------------------------------------------- entries on keys
# On an etcd store (ADR 0043, amendment `etcdledger`) each entry is a key `ledger/<seq:020d>`
# created once in the transaction of the key it notes; its bytes are one canonical document, a
# line's fields with the id of the key whose line key made its MAC.
ENTRY_DIR = "ledger"
_KEY_ENTRY = re.compile(
    rb'\{"at":"[0-9TZ:.+-]{10,40}","keyid":"[0-9a-f]{64}","kind":"[a-z]{1,12}",'
    rb'"mac":"[0-9a-f]{64}","path":"[A-Za-z0-9._/:-]{1,400}",'
    rb'"prev":"[0-9a-f]{64}","seq":[1-9][0-9]{0,15},"sha256":"[0-9a-f]{64}",'
    rb'"sig":"[0-9a-f]{128}"\}'
)
# an entry's signature covers PAE(this, its canonical bytes but `mac` and `sig`) (ADR 0004's
# encoding); its MAC covers every other field, the signature too (ADR 0043, amendment `hostkeys`)
ENTRY_PAYLOAD_TYPE = "application/vnd.oms.ledger-entry+json"


_SAFE = 2**53 - 1


class LineKey:
    """The line key of one state root and its key id, and (to sign the entries on keys, ADR 0043
    amendment `hostkeys`) its state key; each secret is read on first use, so a command that only
    reads never reads it."""

    def __init__(
        self,
        key_id: str,
        load: Callable[[], bytes],
        signer: Callable[[], SigningKey] | None = None,
    ) -> None:
        self.key_id = key_id
        self._load = load
        self._signer = signer
        self._key: bytes | None = None
        self._lock = threading.Lock()  # (writers in threads share one)

    @classmethod
    def of(cls, root: Root, key_id: str, signer: Callable[[], SigningKey] | None = None) -> LineKey:
        """The line key of the state root `root` (whose state key has `key_id`, and whose
        `StateRoot.signer` is `signer`)."""
        return cls(key_id, lambda: line_key(root), signer)

    def sign(self, body: bytes) -> bytes:
        """The state key's signature of an entry's body (`ENTRY_PAYLOAD_TYPE`); IntegrityError
        when this line key was given no state key (it notes nothing on keys)."""
        if self._signer is None:
            raise IntegrityError("this store was opened without the state key: nothing signed")
        return self._signer().sign(ENTRY_PAYLOAD_TYPE, body)

    def key(self) -> bytes:
        """The key of the MACs."""
        with self._lock:
            if self._key is None:
                self._key = self._load()
            return self._key


@dataclass(frozen=True, slots=True)
class KeyEntry:
    """One entry of the ledger on keys: a line's fields, the key id of its MAC, and whether that
    MAC was checked (only this state root's key can check its own)."""

    seq: int
    prev: str
    at: str
    kind: str
    path: str
    sha256: str
    keyid: str
    digest: str  # the sha256 of the entry's bytes: what the next entry's `prev` names
    checked: bool
    vouched: bool = False  # another key's, whose signature checked against its pinned public key


def entry_name(seq: int) -> str:
    """The relative key of entry `seq`: its number zero-padded, so the keys sort as the entries."""
    return f"{ENTRY_DIR}/{seq:020d}"


def key_entry(seq: int, prev: str, kind: str, path: str, data: bytes, line: LineKey) -> bytes:
    """The canonical bytes of the entry noting `path` with `data`."""
    doc: JsonObject = {
        "at": now(),
        "keyid": line.key_id,
        "kind": kind,
        "path": path,
        "prev": prev,
        "seq": seq,
        "sha256": _sha(data),
    }
    doc["sig"] = line.sign(dumps(doc)).hex()  # what another host checks, by the pinned key
    doc["mac"] = hmac.new(line.key(), dumps(doc), hashlib.sha256).hexdigest()  # this host's check
    return dumps(doc)


def parse_key_entry(
    data: bytes, line: LineKey | None, pinned: Mapping[str, bytes] | None = None
) -> KeyEntry:
    """An entry from its key's bytes; IntegrityError when they are not an entry oms writes, when
    the entry is `line`'s key's and its MAC does not match, or when it is of a key id `pinned`
    holds (key id -> raw public key) and its signature does not check against that key."""
    try:
        if len(data) > MAX_LINE or _KEY_ENTRY.fullmatch(data) is None:
            raise ValueError("not its form")
        doc = loads_foreign(data)
        if doc["seq"] > _SAFE:  # a number JSON does not hold exactly is not one oms writes
            raise ValueError("seq")
    except (ValueError, OmsError):
        raise IntegrityError("not a ledger entry oms writes") from None
    if doc["kind"] not in KINDS:
        raise IntegrityError(f"unknown kind {doc['kind']!r}")
    mac, checked, vouched = doc.pop("mac"), False, False
    macced = dumps(doc)  # every field but the MAC, the signature too
    sig = bytes.fromhex(doc.pop("sig"))
    signed = dumps(doc)  # every field but the MAC and the signature
    if line is not None and doc["keyid"] == line.key_id:
        expected = hmac.new(line.key(), macced, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(mac, expected):
            raise IntegrityError("not written with the state key (its mac does not match)")
        checked = True
    elif pinned is not None and (public := pinned.get(doc["keyid"])) is not None:
        try:
            keys.verify(public, sig, ENTRY_PAYLOAD_TYPE, signed, "the entry")
        except OmsError:
            raise IntegrityError(
                f"its signature does not check against the key pinned for state key "
                f"{doc['keyid'][:16]} (forged)"
            ) from None
        vouched = True
    return KeyEntry(
        doc["seq"],
        doc["prev"],
        doc["at"],
        doc["kind"],
        doc["path"],
        doc["sha256"],
        doc["keyid"],
        _sha(data),
        checked,
        vouched,
    )


# ---------------------------------------------------------------------- reading
def covered_files(root: Root) -> tuple[set[str], list[str]]:
    """Every covered file under the state root, and every entry in the covered areas that is neither
    a folder nor a regular file (a link, a FIFO: never something oms writes)."""
    found: set[str] = set()
    odd: list[str] = []
    try:
        meta = root.lstat(META)
    except OmsError:
        meta = None
    if meta is not None:
        (found.add if stat.S_ISREG(meta.st_mode) else odd.append)(META)
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
    """The ledger read back: its entries in order, the first fault found (None: it links), the head,
    and an unfinished last line (its writer died inside its unit; the next writer settles it)."""

    entries: list[Entry] = field(default_factory=list)
    fault: str | None = None
    pending: Entry | None = None

    @property
    def head(self) -> tuple[int, str]:
        """(seq, hash) of the last entry ((0, GENESIS): none)."""
        return (self.entries[-1].seq, self.entries[-1].line_hash) if self.entries else (0, GENESIS)


def read_chain(root: Root, key: bytes | None = None) -> Chain:
    """Every entry, checked to link: `seq` counts up from 1, each `prev` is the previous line's
    hash, and (with `key`) each line carries the line key's MAC. A log that ends inside a line is
    read again under its lock (a writer under way finishes first); a line still unfinished then is
    its dead writer's."""
    chain = Chain()
    try:
        data = root.read_optional(LOG, LIMITS.ledger_log_bytes)
        if data and not data.endswith(b"\n"):
            data = root.read_locked(LOG, LIMITS.ledger_log_bytes)
    except OmsError as exc:
        chain.fault = f"{LOG}: {exc.message}"
        return chain
    if data is None:
        return chain
    cut = data.rfind(b"\n") + 1
    data, rest = data[:cut], data[cut:]
    prev, seq = GENESIS, 0
    for number, line in enumerate(data.splitlines(), 1):
        try:
            entry = parse_line(line, key)
        except (IntegrityError, ValueError, RecursionError) as exc:
            chain.fault = f"ledger line {number}: {exc}"
            return chain
        if entry.seq != seq + 1 or entry.prev != prev:
            chain.fault = (
                f"ledger line {number} (seq {entry.seq}): does not link to the line before it"
            )
            return chain
        chain.entries.append(entry)
        prev, seq = entry.line_hash, entry.seq
    if rest:
        last = data.rstrip(b"\n").rsplit(b"\n", 1)[-1] if data else b""
        chain.pending = _pending_entry(rest, last, key)
        chain.fault = (
            "the last line is torn (a writer died mid-write); the next write cuts it off"
            if chain.pending is None
            else f"ledger line {seq + 1} is unfinished: its writer died inside its write of "
            f"{chain.pending.path}; the next write or `oms store sweep` settles it"
        )
    return chain


def read_chain_from(state_root: str) -> list[Entry]:
    """The entries of the ledger of the state root at `state_root` (for tools and tests)."""
    with Root.open(state_root) as root:
        return read_chain(root).entries


class Backward:
    """The ledger read from its end, newest entry first, a piece at a time: a reader that wants the
    last N entries (`oms audit log --limit N`) reads what they take, not the whole log. Each line it
    yields is checked as `read_chain` checks it (its MAC with `key`, and that it links to the line
    before it); the first that does not stops it, and `fault` says where. The lines before the
    window it read are `oms audit verify`'s to check."""

    def __init__(self, root: Root, key: bytes | None = None) -> None:
        self.root = root
        self.key = key
        self.fault: str | None = None

    def entries(self) -> Generator[Entry]:
        """The entries, newest first, each checked to link to the one before it."""
        try:
            with self.root.log_reader(LOG) as reader:
                end = reader.size
                if end and reader.read_at(end - 1, 1) != b"\n":  # a writer under way: let it end
                    with self.root.log_reader(LOG, locked=True) as settled:
                        end = settled.size
                        yield from self._walk(settled, end)
                        return
                yield from self._walk(reader, end)
        except NotFoundError:
            return
        except OmsError as exc:
            self.fault = f"{LOG}: {exc.message}"

    def _walk(self, reader: LogReader, end: int) -> Iterator[Entry]:
        whole = _after_last_newline(reader, end)
        if whole < end:
            self.fault = (
                "the last line is unfinished (a writer died mid-write); the next write or "
                "`oms store sweep` settles it"
            )
        newer: Entry | None = None
        for line in _lines_back(reader, whole):
            try:
                if len(line) > MAX_LINE:
                    raise IntegrityError(f"a line of over {MAX_LINE} bytes")
                entry = parse_line(line, self.key)
            except (IntegrityError, ValueError, RecursionError) as exc:
                where = "the last" if newer is None else f"the one before entry {newer.seq}"
                self.fault = f"ledger line ({where}): {exc}"
                return
            if newer is not None and (newer.seq != entry.seq + 1 or newer.prev != entry.line_hash):
                self.fault = (
                    f"ledger line of entry {newer.seq}: does not link to the line before it"
                )
                return
            yield entry
            newer = entry
        if newer is not None and (newer.seq != 1 or newer.prev != GENESIS):
            self.fault = f"ledger line 1 (seq {newer.seq}): does not start the chain"


def _after_last_newline(reader: LogReader, end: int) -> int:
    """Where the part of `reader`'s first `end` bytes that ends with a newline ends (0: none)."""
    pos = end
    while pos > 0:
        start = max(0, pos - READ_BACK_STEP)
        found = reader.read_at(start, pos - start).rfind(b"\n")
        if found >= 0:
            return start + found + 1
        pos = start
    return 0


def _lines_back(reader: LogReader, end: int) -> Iterator[bytes]:
    """The lines of `reader`'s first `end` bytes (which end with a newline), last first; a line
    longer than `MAX_LINE` is yielded as its last `MAX_LINE + 1` bytes (the caller refuses it)."""
    pos, buf = max(0, end - 1), b""
    while True:
        cut = buf.rfind(b"\n")
        if cut >= 0:
            yield buf[cut + 1 :]
            buf = buf[:cut]
            continue
        if pos == 0:
            if end:
                yield buf
            return
        if len(buf) > MAX_LINE:
            yield buf[-MAX_LINE - 1 :]
            return
        size = min(READ_BACK_STEP, pos)
        pos -= size
        buf = reader.read_at(pos, size) + buf
