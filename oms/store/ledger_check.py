"""Ledger checkpoints and verification (issue 14 item 5, ADR 0022; the chain itself is `ledger.py`).

A checkpoint is `{"format": "oms-checkpoint-v1", "seq", "head", "at", "keyid", "sig"}`: the chain's
head hash at `seq`, signed by the state key over the canonical `{"at", "head", "seq"}`. `checkpoint`
writes one (`ledger/checkpoints/<seq>.json`, once per seq); `verify_ledger` checks, in order, and
names the first bad thing exactly: the chain links; every checkpoint is signed by this state root's
key and is on the chain; an exported checkpoint (outside the root) is on the chain (a shorter chain:
rolled back; another hash: rewritten); every ledgered file is there with the bytes of its last entry
(or, compacted, a ledgered archive holds those bytes: `compaction.py`); every covered file has an
entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from oms.canonical import JsonObject, dumps
from oms.canonical.strict_json import loads_foreign
from oms.errors import AlreadyExistsError, IntegrityError, OmsError, SignatureError
from oms.fsio import Root
from oms.limits import LIMITS
from oms.store import compaction, keys
from oms.store.ledger import (
    CHECKPOINTS,
    LOG,
    TAIL_BYTES,
    Chain,
    covered_files,
    hash_of,
    line_key,
    parse_line,
    publish_noted,
    read_chain,
    upgraded,
)
from oms.store.ledger import now as ledger_now
from oms.store.outbox import RECEIPT_SUFFIX

PAYLOAD_TYPE = "application/vnd.oms.ledger-checkpoint+json"
MAX_FILE = LIMITS.ledger_file_bytes


def _signed_part(doc: JsonObject) -> bytes:
    return dumps({"at": doc["at"], "head": doc["head"], "seq": doc["seq"]})


def _last_line(tail: bytes) -> bytes:
    """The last complete line of a log's tail (a torn last line is not one)."""
    whole = tail[: tail.rfind(b"\n") + 1] if b"\n" in tail else b""
    return whole.rstrip(b"\n").rsplit(b"\n", 1)[-1] if whole else b""


def checkpoint(root: Root, signer: keys.SigningKey, key_id: str) -> tuple[JsonObject, bool] | None:
    """The signed checkpoint of the chain's head now, and whether this call wrote it (an earlier,
    valid one of the same head is returned as it is); None: the ledger is empty. Reads only the
    log's tail. A checkpoint is noted in the ledger itself (kind `checkpoint`): a head whose last
    entry notes the checkpoint of the entry before it is signed already. The head is signed only
    when its line is oms's (IntegrityError)."""
    last = _last_line(root.read_tail(LOG, TAIL_BYTES)) if root.exists(LOG) else b""
    if not last:
        return None
    entry = parse_line(last, line_key(root))
    public = signer.public_raw()
    if entry.kind == "checkpoint" and entry.path == f"{CHECKPOINTS}/{entry.seq - 1}.json":
        kept = _kept(root, entry.path, public, key_id)
        if kept is not None:
            return kept, False
    head = hash_of(last)
    rel = f"{CHECKPOINTS}/{entry.seq}.json"
    kept = _kept(root, rel, public, key_id)
    if kept is not None and (kept["seq"], kept["head"]) == (entry.seq, head):
        return kept, False
    doc: JsonObject = {"at": ledger_now(), "head": head, "seq": entry.seq}
    doc = {"format": "oms-checkpoint-v1", **doc, "keyid": key_id}
    doc["sig"] = keys.b64encode(signer.sign(PAYLOAD_TYPE, _signed_part(doc)))
    try:
        root.mkdirs(CHECKPOINTS)
        publish_noted(root, "checkpoint", rel, dumps(doc))
    except AlreadyExistsError:  # another writer kept this seq's checkpoint first (or something did)
        return doc, False
    return doc, True


def _kept(root: Root, rel: str, public: bytes, key_id: str) -> JsonObject | None:
    """The checkpoint at `rel` when it is this key's, parsed (None: absent, damaged or forged:
    `audit verify` names it)."""
    try:
        kept = root.read_optional(rel, LIMITS.anchor_bytes)
        if kept is None:
            return None
        parse_checkpoint(kept, public, key_id, rel)
        doc = loads_foreign(kept)
    except (OmsError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def parse_checkpoint(data: bytes, public_raw: bytes, key_id: str, where: str) -> tuple[int, str]:
    """(seq, head) of a checkpoint whose signature is this state root's; IntegrityError
    otherwise."""
    try:
        doc = loads_foreign(data[: LIMITS.anchor_bytes])
        if not isinstance(doc, dict) or doc.get("format") != "oms-checkpoint-v1":
            raise ValueError("not a checkpoint")
        seq, head, sig = doc["seq"], doc["head"], doc["sig"]
        if not isinstance(seq, int) or not isinstance(head, str) or not isinstance(sig, str):
            raise TypeError("not a checkpoint")
        signed = _signed_part(doc)
    except (ValueError, KeyError, TypeError, RecursionError, OmsError) as exc:
        raise IntegrityError(
            f"{where}: not a checkpoint oms writes ({type(exc).__name__})"
        ) from None
    if doc.get("keyid") != key_id:
        raise SignatureError(f"{where}: signed by another key")
    keys.verify(public_raw, keys.b64decode(sig, where), PAYLOAD_TYPE, signed, where)
    return seq, head


@dataclass
class Audit:
    """What verification found: counts, and every problem (the first is the one to look at)."""

    entries: int = 0
    files: int = 0
    checkpoints: int = 0
    compacted: int = 0  # ledgered files gone from their place, held by a ledgered archive
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what could not be checked, and why
    anchored: int | None = None  # the entry the anchor outside the state root names (None: none)

    @property
    def ok(self) -> bool:
        """Nothing found."""
        return not self.problems


def verify_ledger(
    root: Root, public_raw: bytes, key_id: str, exported: bytes | None = None
) -> Audit:
    """Check the chain, its checkpoints, an exported checkpoint, and every covered file against it.
    What is on disk is listed before the chain is read (a write meanwhile adds to the chain, never a
    false alarm)."""
    audit = Audit()
    files, odd = covered_files(root)
    pins = _checkpoints(root, public_raw, key_id, audit)
    key = line_key(root)
    chain = read_chain(root, key)
    audit.entries = len(chain.entries)
    if chain.fault is not None:
        audit.problems.append(chain.fault)
    on_chain = {e.seq: e.line_hash for e in chain.entries}
    for rel, seq, head in pins:
        _against(audit, on_chain, seq, head, rel)
    if exported is not None:
        try:
            seq, head = parse_checkpoint(exported, public_raw, key_id, "the exported checkpoint")
            _against(audit, on_chain, seq, head, "the exported checkpoint")
        except OmsError as exc:
            audit.problems.append(exc.message)
    for path in odd:
        audit.problems.append(
            f"{path}: not a regular file or folder (oms writes neither links nor FIFOs)"
        )
    _files(root, chain, audit, files, key)
    return audit


def _checkpoints(
    root: Root, public_raw: bytes, key_id: str, audit: Audit
) -> list[tuple[str, int, str]]:
    found: list[tuple[str, int, str]] = []
    if not root.exists(CHECKPOINTS):
        return found
    try:
        names = root.listdir(CHECKPOINTS)
    except OmsError as exc:
        audit.problems.append(f"{CHECKPOINTS}: {exc.message}")
        return found
    for name in names:
        rel = f"{CHECKPOINTS}/{name}"
        try:
            seq, head = parse_checkpoint(
                root.read_bytes(rel, LIMITS.anchor_bytes), public_raw, key_id, rel
            )
        except OmsError as exc:
            audit.problems.append(exc.message)
            continue
        audit.checkpoints += 1
        found.append((rel, seq, head))
    return found


def _against(audit: Audit, on_chain: dict[int, str], seq: int, head: str, where: str) -> None:
    if seq not in on_chain:
        last = max(on_chain, default=0)
        audit.problems.append(
            f"{where}: names entry {seq}, but the ledger ends at "
            f"{last}: the state root was rolled back or cut"
        )
    elif on_chain[seq] != head:
        audit.problems.append(
            f"{where}: entry {seq} is not the one it signed: the ledger was rewritten"
        )


def _files(root: Root, chain: Chain, audit: Audit, files: set[str], key: bytes) -> None:
    last: dict[str, tuple[int, str]] = {}
    for entry in chain.entries:
        before = last.get(entry.path)
        if before is not None and before[1] != entry.sha256:
            audit.problems.append(
                f"ledger entry {entry.seq}: {entry.path} was written "
                f"before (entry {before[0]}) with other bytes"
            )
        last[entry.path] = (entry.seq, entry.sha256)
    gone: list[tuple[str, int]] = []
    for path, (seq, digest) in last.items():
        audit.files += 1
        try:
            found = root.digest(path, MAX_FILE)
        except OmsError as exc:
            audit.problems.append(f"ledger entry {seq}: {path}: {exc.message}")
            continue
        if found is None:
            gone.append((path, seq))
        elif found != digest:
            audit.problems.append(f"ledger entry {seq}: {path} was changed after it was written")
    if (
        gone
    ):  # compacted into an archive the ledger holds, with the bytes of its last entry, or deleted
        held = _held(root, audit, {p: d for p, (_, d) in last.items()})
        if any(not _compacted(path, held) for path, _ in gone):  # a compaction may have noted since
            held = _held(root, audit, {e.path: e.sha256 for e in read_chain(root, key).entries})
        for path, seq in gone:
            if _compacted(path, held):
                audit.compacted += 1
            else:
                audit.problems.append(
                    f"ledger entry {seq}: {path} is gone (deleted after it was written)"
                )
    unnamed = files - set(last) - ({chain.pending.path} if chain.pending is not None else set())
    if unnamed and not chain.entries and chain.fault is None:
        audit.problems.append(
            f"{len(unnamed)} files and no ledger: the state root "
            f"predates it (`oms audit adopt`, once) "
            "or its ledger was deleted"
        )
        return
    if unnamed:  # a writer may have published between the listing and the chain: read it once more
        again = {e.path for e in read_chain(root, key).entries}
        unnamed -= again
    if unnamed and not any(e.kind == "state" for e in chain.entries):
        older = sorted(p for p in unnamed if upgraded(p))
        if older:  # a ledger an oms before ADR 0027 started: these kinds were not ledgered then
            audit.problems.append(
                f"{len(older)} files of kinds this oms ledgers ({older[0]}, ...) are in no entry: "
                "the ledger was started by an earlier oms (`oms audit adopt` notes them, once)"
            )
            unnamed -= set(older)
    for path in sorted(unnamed):
        audit.problems.append(
            f"{path} is in no ledger entry (put there by hand, or its writer died before its entry)"
        )


def _held(root: Root, audit: Audit, last_sha: dict[str, str]) -> dict[str, str]:
    held, problems = compaction.held(root, last_sha)
    audit.problems.extend(p for p in problems if p not in audit.problems)
    return held


def _compacted(path: str, held: dict[str, str]) -> bool:
    """Is `path` gone into an archive: held by one, or a receipt of an event held by one (receipts
    go with their events, `services/admin/compaction.py`)?"""
    if path in held:
        return True
    head, _, name = path.rpartition("/")
    if head.startswith("outbox/") and name.endswith(RECEIPT_SUFFIX):
        return f"events/{name.removesuffix(RECEIPT_SUFFIX)}.json" in held
    return False
