"""Attack case 22 of SECURITY.md (signatures) and forged evidence: only the state key mints
evidence."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest

from oms.canonical import sha256_hex
from oms.errors import IntegrityError, RecordNotFoundError, SchemaValidationError, SignatureError
from oms.store import Store
from oms.store.keys import SigningKey, key_id
from tests.helpers import evidence_body


def _rewrite(path: Path, envelope: dict[str, Any]) -> None:
    if path.exists():
        os.unlink(path)
    path.write_bytes(json.dumps(envelope, sort_keys=True, separators=(",", ":")).encode())
    os.chmod(path, 0o600)


def _stored(store: Store, state_path: Path) -> tuple[str, Path, dict[str, Any]]:
    ev = store.put_evidence(evidence_body())
    path = state_path / "evidence" / f"{ev.ref}.json"
    return ev.ref, path, json.loads(path.read_bytes())


def test_round_trip_and_idempotent(store: Store) -> None:
    first = store.put_evidence(evidence_body())
    second = store.put_evidence(evidence_body())
    assert first == second
    assert store.evidence.get(first.ref).kind == "lease-expiry"
    assert store.evidence.refs() == [first.ref]


def test_case22_tampered_payload_refused(store: Store, state_path: Path) -> None:
    ref, path, env = _stored(store, state_path)
    body = base64.b64decode(str(env["payload"])).replace(b'"attempt":1', b'"attempt":2')
    env["payload"] = base64.b64encode(body).decode()
    _rewrite(path, env)
    with pytest.raises(IntegrityError, match="address"):
        store.evidence.get(ref)


def test_case22_tampered_payload_at_its_new_address_fails_signature(
    store: Store, state_path: Path
) -> None:
    _, _, env = _stored(store, state_path)
    body = base64.b64decode(str(env["payload"])).replace(b'"attempt":1', b'"attempt":2')
    env["payload"] = base64.b64encode(body).decode()
    new_ref = sha256_hex(body)
    _rewrite(state_path / "evidence" / f"{new_ref}.json", env)
    with pytest.raises(SignatureError, match="does not verify"):
        store.evidence.get(new_ref)


def test_case22_wrong_payload_type_refused(store: Store, state_path: Path) -> None:
    ref, path, env = _stored(store, state_path)
    env["payloadType"] = "application/vnd.in-toto+json"
    _rewrite(path, env)
    with pytest.raises(SchemaValidationError):
        store.evidence.get(ref)


@pytest.mark.parametrize("cut", [1, 32, 63])
def test_case22_truncated_signature_refused(store: Store, state_path: Path, cut: int) -> None:
    ref, path, env = _stored(store, state_path)
    sig = base64.b64decode(env["signatures"][0]["sig"])
    env["signatures"][0]["sig"] = base64.b64encode(sig[:cut]).decode()
    _rewrite(path, env)
    with pytest.raises(SignatureError):
        store.evidence.get(ref)


def test_evidence_signed_by_another_key_refused(store: Store, state_path: Path) -> None:
    other, _ = SigningKey.generate()
    from oms.canonical import dumps

    data = dumps(evidence_body(ticket_id="tkt-forged"))
    ref = sha256_hex(data)
    forged: dict[str, Any] = {
        "payloadType": "application/vnd.oms.evidence+json",
        "payload": base64.b64encode(data).decode(),
        "signatures": [
            {
                "keyid": key_id(other.public_raw()),
                "sig": base64.b64encode(
                    other.sign("application/vnd.oms.evidence+json", data)
                ).decode(),
            }
        ],
    }
    _rewrite(state_path / "evidence" / f"{ref}.json", forged)
    with pytest.raises(SignatureError, match="another key"):
        store.evidence.get(ref)
    forged["signatures"][0]["keyid"] = store.state.meta.key_id
    _rewrite(state_path / "evidence" / f"{ref}.json", forged)
    with pytest.raises(SignatureError, match="does not verify"):
        store.evidence.get(ref)


def test_bad_refs_refused(store: Store) -> None:
    with pytest.raises(RecordNotFoundError):
        store.evidence.get("0" * 64)
    with pytest.raises(Exception, match="valid id"):
        store.evidence.get("../" + "0" * 61)


def test_body_must_satisfy_its_kind(store: Store) -> None:
    with pytest.raises(SchemaValidationError):
        store.put_evidence(evidence_body(evidence_kind="advisor-output"))
