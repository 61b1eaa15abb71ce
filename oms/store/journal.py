"""Append-only journals: one immutable file per entry, `journals/<name>/<seq>.json`.

Each entry carries its sequence number and the sha256 of the previous entry's bytes, so a gap, an
edit or a reorder is detectable. Appending races for `seq` with a no-replace create and retries on
the next number; nothing is ever rewritten.
"""

from __future__ import annotations

import re

from oms.canonical import JsonObject, access, digest_bytes, parse_ts
from oms.errors import AlreadyExistsError, IntegrityError, NotFoundError
from oms.fsio import Root
from oms.limits import LIMITS, Limits
from oms.store import ledger
from oms.store.documents import encode_document, parse_document

JOURNALS_DIR = "journals"
JOURNAL_NAMES = ("live-contact",)
SEQ_NAME = re.compile(r"(0|[1-9][0-9]{0,15})\.json")


def entry_digest(data: bytes) -> str:
    """The chain digest of a stored entry."""
    return digest_bytes("journal-entry", data)


class Journal:
    """One named journal."""

    def __init__(self, root: Root, name: str, limits: Limits = LIMITS) -> None:
        if name not in JOURNAL_NAMES:
            raise IntegrityError(f"unknown journal {name!r}")
        self.root = root
        self.name = name
        self.limits = limits
        self.dir = f"{JOURNALS_DIR}/{name}"

    def seqs(self) -> list[int]:
        """The sequence numbers present, ascending."""
        try:
            names = self.root.listdir(self.dir)
        except NotFoundError:
            return []
        return sorted(int(m.group(1)) for n in names if (m := SEQ_NAME.fullmatch(n)))

    def _read(self, seq: int) -> tuple[JsonObject, bytes]:
        rel = f"{self.dir}/{seq}.json"
        data = self.root.read_bytes(rel, self.limits.journal_entry_bytes)
        doc = parse_document(data, "journal-entry", rel)
        if doc["seq"] != seq or doc["journal"] != self.name:
            raise IntegrityError(f"{rel}: holds {doc['journal']} entry {doc['seq']}")
        parse_ts(access.text(doc, "recorded_at"), f"{rel}: recorded_at")
        return doc, data

    def append(self, entry: JsonObject, recorded_at: str) -> int:
        """Append `entry`; returns its sequence number."""
        self.root.mkdirs(self.dir)
        for _ in range(LIMITS.journal_append_rounds):
            seqs = self.seqs()
            seq = seqs[-1] + 1 if seqs else 0
            previous = None if not seqs else entry_digest(self._read(seqs[-1])[1])
            rel = f"{self.dir}/{seq}.json"
            doc: JsonObject = {
                "format": "oms-journal-v1",
                "journal": self.name,
                "seq": seq,
                "previous_sha256": previous,
                "recorded_at": recorded_at,
                "entry": entry,
            }
            data = encode_document(doc, "journal-entry", rel, self.limits.journal_entry_bytes)
            try:
                ledger.publish_noted(self.root, "journal", rel, data)  # with its entry, or none
                return seq
            except AlreadyExistsError:
                continue
        raise IntegrityError(
            f"{self.dir}: could not append after {LIMITS.journal_append_rounds} races"
        )

    def entries(self) -> list[JsonObject]:
        """Every entry in order, checking the chain."""
        out: list[JsonObject] = []
        previous: str | None = None
        for expected, seq in enumerate(self.seqs()):
            if seq != expected:
                raise IntegrityError(f"{self.dir}: entry {expected} is missing")
            doc, data = self._read(seq)
            if doc["previous_sha256"] != previous:
                raise IntegrityError(f"{self.dir}/{seq}.json: does not follow entry {seq - 1}")
            previous = entry_digest(data)
            out.append(doc)
        return out
