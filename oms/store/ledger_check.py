"""Ledger checkpoints and verification (issue 14 item 5, ADR 0022; the chain itself is `ledger.py`).

A checkpoint is `{"format": "oms-checkpoint-v1", "seq", "head", "at", "keyid", "sig"}`: the chain's head
hash at `seq`, signed by the state key over the canonical `{"at", "head", "seq"}`. `checkpoint` writes
one (`ledger/checkpoints/<seq>.json`, once per seq); `verify_ledger` checks, in order, and names the first
bad thing exactly: the chain links; every checkpoint is signed by this state root's key and is on the
chain; an exported checkpoint (outside the root) is on the chain (a shorter chain: rolled back; another
hash: rewritten); every ledgered file is there with the bytes of its last entry; every covered file has
an entry.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from oms.canonical import JsonObject, dumps
from oms.errors import IntegrityError, OmsError, SignatureError
from oms.fsio import Root
from oms.store import keys
from oms.store.ledger import CHECKPOINTS, LOG, Chain, covered_files, read_chain
from oms.store.ledger import now as ledger_now

PAYLOAD_TYPE = "application/vnd.oms.ledger-checkpoint+json"
MAX_CHECKPOINT = 4096
MAX_FILE = 64 * 1024 * 1024


def _signed_part(doc: JsonObject) -> bytes:
    return dumps({"at": doc["at"], "head": doc["head"], "seq": doc["seq"]})


def checkpoint(root: Root, signer: keys.SigningKey, key_id: str) -> tuple[JsonObject, bool] | None:
    """The signed checkpoint of the chain's head now, and whether this call wrote it (an earlier one of the
    same head is returned as it is); None: the ledger is empty. Reads only the log's tail."""
    tail = root.read_tail(LOG, 4096) if root.exists(LOG) else b""
    lines = tail.rstrip(b"\n").rsplit(b"\n", 1)
    last = lines[-1] if tail.endswith(b"\n") else (lines[-2] if len(lines) > 1 else b"")
    if not last:
        return None
    from oms.store.ledger import hash_of, parse_line

    entry = parse_line(last)
    rel = f"{CHECKPOINTS}/{entry.seq}.json"
    kept = root.read_optional(rel, MAX_CHECKPOINT)
    if kept is not None:
        found = json.loads(kept)
        if isinstance(found, dict) and found.get("head") == hash_of(last):
            return found, False
    doc: JsonObject = {"at": ledger_now(), "head": hash_of(last), "seq": entry.seq}
    doc = {"format": "oms-checkpoint-v1", **doc, "keyid": key_id}
    doc["sig"] = keys.b64encode(signer.sign(PAYLOAD_TYPE, _signed_part(doc)))
    root.mkdirs(CHECKPOINTS)
    try:
        root.publish(rel, dumps(doc))
    except OmsError:  # another writer kept this seq's checkpoint first (or a damaged one is there: audit says)
        return doc, False
    return doc, True


def parse_checkpoint(data: bytes, public_raw: bytes, key_id: str, where: str) -> tuple[int, str]:
    """(seq, head) of a checkpoint whose signature is this state root's; IntegrityError otherwise."""
    try:
        doc = json.loads(data[:MAX_CHECKPOINT])
        seq, head, sig = doc["seq"], doc["head"], doc["sig"]
        if doc.get("format") != "oms-checkpoint-v1" or not isinstance(seq, int) or not isinstance(head, str):
            raise ValueError("not a checkpoint")
    except (ValueError, KeyError, TypeError) as exc:
        raise IntegrityError(f"{where}: not a checkpoint oms writes ({exc})") from exc
    if doc.get("keyid") != key_id:
        raise SignatureError(f"{where}: signed by another key")
    keys.verify(public_raw, keys.b64decode(str(sig), where), PAYLOAD_TYPE, _signed_part(doc), where)
    return seq, head


@dataclass
class Audit:
    """What verification found: counts, and every problem (the first is the one to look at)."""

    entries: int = 0
    files: int = 0
    checkpoints: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Nothing found."""
        return not self.problems


def verify_ledger(root: Root, public_raw: bytes, key_id: str, exported: bytes | None = None) -> Audit:
    """Check the chain, its checkpoints, an exported checkpoint, and every covered file against it."""
    audit = Audit()
    chain = read_chain(root)
    audit.entries = len(chain.entries)
    if chain.fault is not None:
        audit.problems.append(chain.fault)
    on_chain = {e.seq: e.line_hash for e in chain.entries}
    try:
        names = root.listdir(CHECKPOINTS)
    except OmsError:
        names = []
    for name in names:
        rel = f"{CHECKPOINTS}/{name}"
        try:
            seq, head = parse_checkpoint(root.read_bytes(rel, MAX_CHECKPOINT), public_raw, key_id, rel)
        except OmsError as exc:
            audit.problems.append(exc.message)
            continue
        audit.checkpoints += 1
        _against(audit, on_chain, seq, head, rel)
    if exported is not None:
        try:
            seq, head = parse_checkpoint(exported, public_raw, key_id, "the exported checkpoint")
            _against(audit, on_chain, seq, head, "the exported checkpoint")
        except OmsError as exc:
            audit.problems.append(exc.message)
    _files(root, chain, audit)
    return audit


def _against(audit: Audit, on_chain: dict[int, str], seq: int, head: str, where: str) -> None:
    if seq not in on_chain:
        last = max(on_chain, default=0)
        audit.problems.append(
            f"{where}: names entry {seq}, but the ledger ends at {last}: the state root was rolled back or cut"
        )
    elif on_chain[seq] != head:
        audit.problems.append(f"{where}: entry {seq} is not the one it signed: the ledger was rewritten")


def _files(root: Root, chain: Chain, audit: Audit) -> None:
    last: dict[str, tuple[int, str]] = {}
    for entry in chain.entries:
        last[entry.path] = (entry.seq, entry.sha256)
    for path, (seq, digest) in last.items():
        data = root.read_optional(path, MAX_FILE)
        audit.files += 1
        if data is None:
            audit.problems.append(f"ledger entry {seq}: {path} is gone (deleted after it was written)")
        elif hashlib.sha256(data).hexdigest() != digest:
            audit.problems.append(f"ledger entry {seq}: {path} was changed after it was written")
    for path in sorted(covered_files(root) - set(last)):
        audit.problems.append(f"{path} is in no ledger entry (put there by hand, or its writer died before its entry)")
