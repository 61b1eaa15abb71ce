"""Evidence: content-addressed, signed by the state key, verified on every read.

On files it lives in the state root; on an etcd store (ADR 0043, amendment `etcdtick`) as the key
`evidence/<sha256>.json` under the store's prefix, created once with its ledger entry in one
transaction (`Backend.create_once`), so another host reads what a result rests on.

`evidence/<sha256>.json` holds a DSSE envelope: `payloadType`, `payload` (base64 of the exact body
bytes) and one signature by the state key over `PAE(payloadType, body)`. The name is the sha256 of
the body bytes. A read checks, in order: envelope schema, base64, name = sha256(body), key id =
state key, signature, then the body (canonical, schema-valid). Only a holder of the state key can
mint evidence that passes, so an agent cannot forge an advisor approval.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import NamedTuple

from oms.canonical import JsonObject, access, check, equal, parse_ts, sha256_hex
from oms.canonical.ids import SHA256
from oms.errors import (
    AlreadyExistsError,
    IntegrityError,
    NotFoundError,
    RecordNotFoundError,
    SignatureError,
)
from oms.fsio import Root
from oms.limits import LIMITS, Limits
from oms.store import keys, ledger
from oms.store.backend import Backend, Fence, PinsHosts
from oms.store.documents import encode_document, parse_document

EVIDENCE_DIR = "evidence"
PAYLOAD_TYPE = "application/vnd.oms.evidence+json"


class Evidence(NamedTuple):
    """A verified evidence body and its content address."""

    ref: str
    body: JsonObject

    @property
    def kind(self) -> str:
        """The evidence kind (`advisor-output`, `lease-expiry`, ...)."""
        return str(self.body["evidence_kind"])


def open_envelope(
    data: bytes,
    ref: str,
    public_raw: bytes,
    key_id: str,
    where: str,
    pinned: Mapping[str, bytes] | None = None,
) -> Evidence:
    """Verify an envelope completely and return its body: signed by this state key, or (on a store
    hosts share) by a host's state key the person pinned (`pinned`, raw public keys by key id)."""
    found = open_unsigned(data, ref, where)
    if equal(found.keyid, key_id):
        public = public_raw
    elif pinned is not None and found.keyid in pinned:
        public = pinned[found.keyid]  # another host's, as the person pinned it
    else:
        raise SignatureError(f"{where}: signed by another key")
    keys.verify(public, found.sig, PAYLOAD_TYPE, found.body, where)
    return found.evidence


class Unsigned(NamedTuple):
    """An envelope whose address and body were checked, its signature not yet: the key id it
    names, the signature, the body's bytes and the evidence."""

    keyid: str
    sig: bytes
    body: bytes
    evidence: Evidence


def open_unsigned(data: bytes, ref: str, where: str) -> Unsigned:
    """Check an envelope but for its signature: its schema, its address (the sha256 of its body)
    and its body (canonical, schema-valid). `open_envelope` then checks the signature; evidence of
    another host's state key on an etcd store is checked by `walk_keys` against the key the person
    pinned for that host (ADR 0043, amendment `hostkeys`), named when no pinned host holds it."""
    envelope = parse_document(data, "evidence-envelope", where)
    body = keys.b64decode(access.text(envelope, "payload"), where)
    if not equal(sha256_hex(body), ref):
        raise IntegrityError(f"{where}: content does not match its address")
    signature = access.obj_at(access.array(envelope, "signatures"), 0)
    sig = keys.b64decode(access.text(signature, "sig"), where)
    doc = parse_document(body, "evidence", f"{where}: body")
    check(access.text(doc, "ticket_id"), f"{where}: ticket_id")
    parse_ts(access.text(doc, "created_at"), f"{where}: created_at")
    return Unsigned(access.text(signature, "keyid"), sig, body, Evidence(ref, doc))


class EvidenceStore:
    """Signed evidence under a state root, or as keys of an etcd store (`backend`)."""

    def __init__(
        self,
        root: Root,
        public_raw: bytes,
        key_id: str,
        limits: Limits = LIMITS,
        *,
        backend: Backend | None = None,
    ) -> None:
        self.root = root
        self.public_raw = public_raw
        self.key_id = key_id
        self.limits = limits
        self.backend = backend  # None: the state root's files

    def put(
        self, body: JsonObject, signer: keys.SigningKey, *, fence: Fence | None = None
    ) -> Evidence:
        """Sign and store `body` (idempotent: the same body gives the same ref); on an etcd
        store its key lands only while `fence` is still the lock taken (`LeaseError` else)."""
        where = f"{EVIDENCE_DIR}/(new)"
        data = encode_document(body, "evidence", where, self.limits.evidence_bytes)
        ref = sha256_hex(data)
        rel = f"{EVIDENCE_DIR}/{ref}.json"
        envelope: JsonObject = {
            "payloadType": PAYLOAD_TYPE,
            "payload": keys.b64encode(data),
            "signatures": [
                {"keyid": self.key_id, "sig": keys.b64encode(signer.sign(PAYLOAD_TYPE, data))}
            ],
        }
        stored = encode_document(envelope, "evidence-envelope", rel, self.limits.evidence_bytes)
        # Same body, same signature (Ed25519 is deterministic); the read below verifies whatever is
        # there.
        if self.backend is not None:  # etcd: created once with its ledger entry, in one txn
            there = self.backend.create_once(
                "evidence", rel, stored, self.limits.evidence_bytes, fence=fence
            )
            data = stored if there is None else there
            return open_envelope(data, ref, self.public_raw, self.key_id, f"etcd:{rel}")
        with contextlib.suppress(AlreadyExistsError):
            ledger.publish_noted(self.root, "evidence", rel, stored)  # with its entry, or none
        return self.get(ref)

    def get(self, ref: str) -> Evidence:
        """Read and fully verify evidence `ref`."""
        check(ref, "evidence ref", SHA256)
        rel = f"{EVIDENCE_DIR}/{ref}.json"
        if self.backend is not None:
            found = self.backend.read(rel, self.limits.evidence_bytes)
            if found is None:
                raise RecordNotFoundError(f"no evidence {ref}")
            pinned = self.backend.pins() if isinstance(self.backend, PinsHosts) else None
            where = f"etcd:{rel}"
            return open_envelope(found, ref, self.public_raw, self.key_id, where, pinned)
        try:
            data = self.root.read_bytes(rel, self.limits.evidence_bytes)
        except NotFoundError as exc:
            raise RecordNotFoundError(f"no evidence {ref}") from exc
        return open_envelope(data, ref, self.public_raw, self.key_id, rel)

    def refs(self) -> list[str]:
        """Every evidence ref (sorted)."""
        if self.backend is not None:
            names = self.backend.names(EVIDENCE_DIR)
        else:
            try:
                names = self.root.listdir(EVIDENCE_DIR)
            except NotFoundError:
                return []
        return [n[:-5] for n in names if n.endswith(".json") and SHA256.fullmatch(n[:-5])]
