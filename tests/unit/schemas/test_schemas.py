"""The schema files: valid 2020-12 schemas, found as package data, rejecting unknown fields
everywhere."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from oms.errors import SchemaValidationError
from oms.schemas import SCHEMA_NAMES, load_schema, validate, validator
from oms.schemas.loader import find_schema_dir
from tests.helpers import REPO, SESSION, T0, contact_entry, evidence_body, payload

ENVELOPE = {
    "format": "oms-record-v1",
    "record_id": "r1",
    "version": 0,
    "expected_version": None,
    "operation_id": "op-1",
    "actor": "oms-system",
    "observed_at": T0,
    "previous_sha256": None,
}

VALID: dict[str, dict[str, Any]] = {
    "ticket": {**ENVELOPE, "kind": "ticket", "state": "open", "payload": payload("ticket")},
    "dispatch": {
        **ENVELOPE,
        "kind": "dispatch",
        "state": "proposed",
        "payload": payload("dispatch"),
    },
    "worker": {**ENVELOPE, "kind": "worker", "state": "idle", "payload": payload("worker")},
    "session": {**ENVELOPE, "kind": "session", "state": "running", "payload": payload("session")},
    "event": {
        "format": "oms-event-v1",
        "event_id": "e1",
        "event_type": "dispatch-delivery-requested",
        "created_at": T0,
        "payload": {
            "dispatch_id": "d1",
            "dispatch_version": 1,
            "worker_record_id": "d1",
            "ticket_id": "t1",
            "attempt": 1,
            "lease_token": "a" * 64,
        },
    },
    "evidence": evidence_body(),
    "outbox-receipt": {
        "format": "oms-receipt-v1",
        "event_id": "e1",
        "consumer_id": "c1",
        "processed_at": T0,
        "result": {"status": "created", "operation_nonce": "f" * 64, "session_id": SESSION},
    },
    "journal-entry": {
        "format": "oms-journal-v1",
        "journal": "live-contact",
        "seq": 0,
        "previous_sha256": None,
        "recorded_at": T0,
        "entry": contact_entry(),
    },
    "op-index": {"format": "oms-op-v1", "operation_id": "op-1", "version": 3},
    "state-meta": {
        "format": "oms-state-v1",
        "created_at": T0,
        "public_key": "A" * 43 + "=",
        "key_id": "0" * 64,
    },
    "evidence-envelope": {
        "payloadType": "application/vnd.oms.evidence+json",
        "payload": "e30=",
        "signatures": [{"keyid": "0" * 64, "sig": "AAAA"}],
    },
    "role-policy": json.loads((REPO / "policy" / "role-policy.json").read_text()),
}


def _objects(doc: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Paths of every object in `doc` whose schema forbids extra fields (all of them)."""
    out = []
    if isinstance(doc, dict):
        out.append(path)
        for key, value in doc.items():
            if isinstance(value, dict) and key != "roles":
                out.extend(_objects(value, (*path, key)))
    return out


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_every_schema_is_a_valid_2020_12_schema(name: str) -> None:
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"urn:oms:schema:{name}"
    assert validator(name) is validator(name)  # compiled once per process


@pytest.mark.parametrize("name", sorted(VALID))
def test_examples_are_valid(name: str) -> None:
    validate(name, VALID[name], where=name)


@pytest.mark.parametrize("name", sorted(VALID))
def test_unknown_fields_are_rejected_at_every_level(name: str) -> None:
    for path in _objects(VALID[name]):
        doc = copy.deepcopy(VALID[name])
        target = doc
        for key in path:
            target = target[key]
        target["surprise"] = 1
        with pytest.raises(SchemaValidationError, match="surprise"):
            validate(name, doc, where=name)


def test_error_names_where_and_the_field() -> None:
    doc = copy.deepcopy(VALID["worker"])
    doc["payload"]["health"] = "excellent"
    with pytest.raises(SchemaValidationError) as info:
        validate("worker", doc, where="records/worker/r1/0.json")
    assert info.value.message.startswith(
        "records/worker/r1/0.json: $.payload.health: 'excellent' is not one of"
    )


def test_schema_files_are_exactly_the_known_set() -> None:
    on_disk = sorted(
        p.name.removesuffix(".schema.json") for p in (REPO / "schemas").glob("*.schema.json")
    )
    assert on_disk == sorted(SCHEMA_NAMES)


def test_found_in_the_source_tree_when_not_packaged() -> None:
    assert str(find_schema_dir()).endswith("schemas")


def test_config_transport_command_requires_argv() -> None:
    base = {
        "format": 1,
        "advisor": {"role": "a"},
        "worker": {"role": "a"},
        "pool": {"max_workers": 1},
        "lease": {"duration_minutes": 5},
        "worktrees": {"directory": "../w"},
    }
    with pytest.raises(SchemaValidationError, match="argv"):
        validate(
            "config",
            {
                **base,
                "roles": {"a": {"model": "m", "transport": "command", "sandbox": "read-only"}},
            },
            where="c",
        )
    with pytest.raises(SchemaValidationError):
        validate(
            "config",
            {
                **base,
                "roles": {
                    "a": {
                        "model": "m",
                        "transport": "codex_goal",
                        "sandbox": "read-only",
                        "argv": ["x"],
                    }
                },
            },
            where="c",
        )
