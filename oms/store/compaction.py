"""Compaction archives (issue 14 item 5, ADR 0022): an ended ticket's dispatch, worker and session
records, its evidence, events and their receipts, kept as one file, `compacted/<ticket>.json.z`.

An archive is zlib-compressed canonical JSON: `{"format": "oms-compacted-v1", "ticket_id",
"ended_at", "files": {path: base64 of the exact bytes}}`. It is published once and noted in the
ledger (kind `compact`), and only then are its members removed from their places, each only while it
still holds the archived bytes: a record's directory is first moved aside whole
(`compacted/retired/`), so a reader sees the record either whole or gone, never an older version as
its latest. An archive is noted in one unit with its publish (ADR 0027; so only bytes oms noted are
ever taken for one), and `oms audit verify` accepts a ledgered file that is gone when a ledgered
archive of the ticket that owns it holds it with the bytes of its last entry.

The ticket's own record stays where it is (its id is never reused, a re-import is a no-op, and `oms
ticket show` shows it); so do its ticket content, worktree record and journals."""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import re
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from oms.canonical import JsonObject, dumps
from oms.canonical.ids import OPAQUE_ID
from oms.canonical.strict_json import loads_foreign
from oms.errors import (
    AlreadyExistsError,
    ConflictError,
    IntegrityError,
    NotFoundError,
    OmsError,
    suppress_faults,
)
from oms.fsio import Root
from oms.limits import LIMITS
from oms.store import ledger

DIR = "compacted"
RETIRED = f"{DIR}/retired"
LOCK = f"{DIR}/compact.lock"
SUFFIX = ".json.z"
FORMAT = "oms-compacted-v1"
RECORD_KINDS = ("dispatch", "worker", "session")
LOOKED = "index/compact/looked"  # when a conductor last looked for due tickets (ms of its clock)
_ID = r"[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?"
MEMBER = (
    re.compile(rf"records/(?:dispatch|worker|session)/{_ID}/(?:0|[1-9][0-9]{{0,15}})\.json"),
    re.compile(r"evidence/[0-9a-f]{64}\.json"),
    re.compile(rf"events/{_ID}\.json"),
)


@dataclass(frozen=True, slots=True)
class Archive:
    """A decoded archive: whose, when, and every member's exact bytes."""

    ticket_id: str
    ended_at: str  # the ticket's last change (so the same files always make the same archive)
    files: dict[str, bytes]


def looked_at(root: Root) -> int | None:
    """When a conductor last looked for tickets due for compaction (ms of the workspace's clock;
    None: never, or unreadable): a one-shot `oms conductor tick` from cron looks at most as often as
    a long-lived one (issue 26 item 4: the look walks every ended ticket). A cache, never an
    authority: `oms store compact` looks whenever it is run."""
    try:
        data = root.read_optional(LOOKED, 32)
    except OmsError:
        return None
    text = (data or b"").decode("ascii", "replace")
    return int(text) if text.isdigit() and len(text) < 17 else None


def mark_looked(root: Root, at_ms: int) -> None:
    """A conductor looked for due tickets at `at_ms` (best effort)."""
    with suppress_faults(OmsError, OSError):
        root.mkdirs(LOOKED.rsplit("/", 1)[0])
        with contextlib.suppress(NotFoundError):
            root.unlink(LOOKED, durable=False)
        root.publish(LOOKED, str(at_ms).encode("ascii"), durable=False)


def archive_path(ticket_id: str) -> str:
    """Where ticket `ticket_id`'s archive lives."""
    if OPAQUE_ID.fullmatch(ticket_id) is None:
        raise IntegrityError(f"{ticket_id[:60]!r} is not a ticket id")
    return f"{DIR}/{ticket_id}{SUFFIX}"


def ticket_of(name: str) -> str | None:
    """The ticket id an archive's file name (in `compacted/`) names, or None."""
    tid = name.removesuffix(SUFFIX)
    return tid if name.endswith(SUFFIX) and OPAQUE_ID.fullmatch(tid) else None


def member(path: str) -> bool:
    """May `path` be a member of an archive?"""
    return any(p.fullmatch(path) for p in MEMBER)


def encode(ticket_id: str, at: str, files: dict[str, bytes]) -> bytes:
    """The archive's bytes (deterministic for the same input)."""
    for path in files:
        if not member(path):
            raise IntegrityError(f"{path}: not something an archive holds")
    doc: JsonObject = {
        "format": FORMAT,
        "ticket_id": ticket_id,
        "ended_at": at,
        "files": {p: base64.b64encode(files[p]).decode("ascii") for p in sorted(files)},
    }
    return zlib.compress(dumps(doc), 9)


def decode(data: bytes, where: str) -> Archive:
    """An archive from its bytes, bounded (a member that is not one an archive holds, or more than
    LIMITS.archive_bytes expanded, is an IntegrityError)."""
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(data[: LIMITS.archive_bytes], LIMITS.archive_bytes)
        if inflater.unconsumed_tail or not inflater.eof:
            raise ValueError("larger than the limit, or cut short")
        doc = loads_foreign(raw)
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError("not an archive")
        ticket_id, at, files = doc["ticket_id"], doc["ended_at"], doc["files"]
        if not isinstance(ticket_id, str) or not isinstance(at, str) or not isinstance(files, dict):
            raise TypeError("not an archive")
        out: dict[str, bytes] = {}
        for path, text in files.items():
            if not member(path) or not isinstance(text, str):
                raise ValueError(f"a member {str(path)[:80]!r} no archive holds")
            out[path] = base64.b64decode(text, validate=True)
    except (zlib.error, ValueError, KeyError, TypeError, RecursionError, binascii.Error) as exc:
        raise IntegrityError(f"{where}: not an archive oms writes ({exc})") from None
    if where.endswith(SUFFIX) and ticket_of(where.rsplit("/", 1)[-1]) != ticket_id:
        raise IntegrityError(f"{where}: holds ticket {ticket_id[:60]!r}, not the one its name says")
    return Archive(ticket_id, at, out)


def read(root: Root, ticket_id: str) -> Archive | None:
    """Ticket `ticket_id`'s archive, or None when it has none."""
    rel = archive_path(ticket_id)
    data = root.read_optional(rel, LIMITS.archive_bytes)
    return None if data is None else decode(data, rel)


def archives(root: Root) -> list[str]:
    """Every archive's path (sorted)."""
    try:
        names = root.listdir(DIR)
    except NotFoundError:
        return []
    return sorted(f"{DIR}/{n}" for n in names if ticket_of(n) is not None)


def publish_noted(root: Root, ticket_id: str, data: bytes) -> bool:
    """Publish an archive with its ledger entry, as one unit (ADR 0027): only bytes oms noted are
    ever taken for one. False when a file is there already (nothing written, nothing noted)."""
    root.mkdirs(DIR)
    try:
        ledger.publish_noted(root, "compact", archive_path(ticket_id), data)
    except AlreadyExistsError:
        return False
    return True


def publish(root: Root, ticket_id: str, data: bytes) -> bool:
    """Publish an archive noted already (by a compaction of an oms before ADR 0027 that died before
    its publish); False when a file is there already (nothing written)."""
    root.mkdirs(DIR)
    try:
        root.publish(archive_path(ticket_id), data)
    except AlreadyExistsError:
        return False
    return True


def changed(version: int) -> str:
    """Why a ticket written since the rule found it ended at `version` (a person's reopen, a request
    for changes) is kept: its records stay."""
    return (
        f"the ticket changed since version {version} was found ended (reopened?): its records stay"
    )


@contextlib.contextmanager
def unless_changed(root: Root, ticket_id: str, version: int) -> Iterator[None]:
    """Hold the ledger's lock for one delete of ticket `ticket_id`'s parts: every ledgered write
    takes that lock, so no version of the ticket lands while it is held; `ConflictError` (nothing
    done) when a version after `version` landed before it."""
    with root.locked_log(ledger.LOG):
        if root.lstat(f"records/ticket/{ticket_id}/{version + 1}.json") is not None:
            raise ConflictError(changed(version))
        yield


def retire_record(root: Root, kind: str, record_id: str, archived: dict[str, bytes]) -> str | None:
    """Remove a record directory whose every version the archive holds with the same bytes: moved
    aside whole, looked at again there (a version written meanwhile moves it back), then deleted.
    None when done (or gone already); else why it stays."""
    top = f"records/{kind}/{record_id}"
    try:
        why = _unarchived(root, top, archived)
    except NotFoundError:
        return None
    if why is not None:
        return why
    root.mkdirs(RETIRED)
    aside = f"{RETIRED}/{kind}.{record_id}"
    if root.lstat(aside) is not None:
        _remove_entry(root, aside)
    if not root.move_dir(top, aside):
        return None
    why = _unarchived(root, aside, archived, top)
    if why is not None:  # a writer published a version between the look and the move: it goes back
        root.move_dir(aside, top)
        return why
    root.remove_tree(aside)
    return None


def _unarchived(
    root: Root, top: str, archived: dict[str, bytes], named: str | None = None
) -> str | None:
    """The first version file in `top` the archive does not hold with its bytes (None: all held)."""
    for name in root.listdir(top):
        if name == "ops":
            continue
        path = f"{named or top}/{name}"
        data = root.read_optional(f"{top}/{name}", LIMITS.archive_bytes)
        if data is not None and archived.get(path) != data:
            return f"{path} is not in the archive with these bytes (written after it?)"
    return None


def _remove_entry(root: Root, rel: str) -> None:
    st = root.lstat(rel)
    if st is not None and stat.S_ISDIR(st.st_mode):
        root.remove_tree(rel)
    elif st is not None:
        root.unlink(rel)


def retire_file(root: Root, path: str, archived: dict[str, bytes]) -> str | None:
    """Remove a file the archive holds with the same bytes; None when done (or gone), else why it
    stays."""
    data = root.read_optional(path, LIMITS.archive_bytes)
    if data is None:
        return None
    if archived.get(path) != data:
        return f"{path} is not in the archive with these bytes"
    root.unlink(path)
    return None


def sweep_retired(root: Root, last: dict[str, str]) -> list[str]:
    """Finish what a compaction that died while deleting left aside: a record directory goes only
    when a ledgered archive of the ticket its versions name holds every version with its bytes;
    otherwise it moves back to its place (or, that place taken, stays and is reported). Anything
    else there goes as a name. What stays, and why."""
    try:
        names = root.listdir(RETIRED)
    except NotFoundError:
        return []
    left: list[str] = []
    for name in names:
        rel = f"{RETIRED}/{name}"
        try:
            st = root.lstat(rel)
            kind, _, rid = name.partition(".")
            if st is None or not stat.S_ISDIR(st.st_mode) or kind not in RECORD_KINDS or not rid:
                _remove_entry(root, rel)
                continue
            why = _unheld(root, rel, f"records/{kind}/{rid}", last)
            if why is None:
                root.remove_tree(rel)
            elif not root.move_dir(rel, f"records/{kind}/{rid}"):
                left.append(f"{rel}: {why}")
        except OmsError as exc:
            left.append(f"{rel}: {exc.message}")  # `oms store verify` names it
    return left


def _unheld(root: Root, aside: str, top: str, last: dict[str, str]) -> str | None:
    """Why the record moved aside at `aside` may not be deleted (None: a ledgered archive of its
    ticket holds every version with its bytes)."""
    versions = {
        f"{top}/{n}": root.read_bytes(f"{aside}/{n}", LIMITS.archive_bytes)
        for n in root.listdir(aside)
        if n != "ops"
    }
    tickets = {_payload(_json(data)).get("ticket_id") for data in versions.values()}
    tid = next(iter(tickets)) if len(tickets) == 1 else None
    if not isinstance(tid, str) or OPAQUE_ID.fullmatch(tid) is None:
        return "its versions name no one ticket"
    data = root.read_optional(archive_path(tid), LIMITS.archive_bytes)
    if data is None or last.get(archive_path(tid)) != hashlib.sha256(data).hexdigest():
        return f"no archive of {tid} that oms wrote"
    held = owned(decode(data, archive_path(tid)))
    for path, content in versions.items():
        if held.get(path) != content:
            return f"{path} is in no archive"
    return None


def owned(archive: Archive) -> dict[str, bytes]:
    """The members that belong to the archive's ticket: its dispatch, worker and session records,
    its evidence, the events of it or its dispatches (a member naming another ticket is vouched for
    by no archive of this one)."""
    tid = archive.ticket_id
    docs = {path: _json(data) for path, data in archive.files.items()}
    records = {p: d for p, d in docs.items() if p.startswith("records/")}
    mine = {p for p, d in records.items() if _payload(d).get("ticket_id") == tid}
    dispatches = {p.split("/")[2] for p in mine if p.startswith("records/dispatch/")}
    for path, doc in docs.items():
        if path.startswith("evidence/") and _json(_body(doc)).get("ticket_id") == tid:
            mine.add(path)
        elif path.startswith("events/"):
            payload = _payload(doc)
            did = payload.get("dispatch_id")
            if payload.get("ticket_id") == tid or (isinstance(did, str) and did in dispatches):
                mine.add(path)
    return {p: archive.files[p] for p in mine}


def _json(data: bytes) -> dict[str, object]:
    try:
        doc = loads_foreign(data)
    except (ValueError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _payload(doc: dict[str, object]) -> dict[str, object]:
    payload = doc.get("payload")
    return payload if isinstance(payload, dict) else {}


def _body(envelope: dict[str, object]) -> bytes:
    try:
        return base64.b64decode(str(envelope.get("payload", "")), validate=True)
    except (binascii.Error, ValueError):
        return b""


def held(root: Root, last_sha: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """path -> the archive holding it with the bytes of its ledger entry (`last_sha`: each ledgered
    path's last sha256), over every archive whose own bytes are its ledger entry's; and every
    problem found."""
    out: dict[str, str] = {}
    problems: list[str] = []
    for rel in archives(root):
        try:
            data = root.read_bytes(rel, LIMITS.archive_bytes)
            if last_sha.get(rel) != hashlib.sha256(data).hexdigest():
                continue  # not ledgered as it is: `audit verify` names it; it vouches for nothing
            archive = decode(data, rel)
        except OmsError as exc:
            problems.append(exc.message)
            continue
        for path, content in owned(archive).items():
            if last_sha.get(path) == hashlib.sha256(content).hexdigest():
                out[path] = rel
    return out, problems
