"""`workspace/shapes`: the one JSON shape of each record kind (ADR 0007, "one shape per object").

For any record of a kind — its identity, a lease token or none, the fields a payload may leave out —
the shape is the record's identity and its payload less its secrets, and it is valid against
schemas/cli/objects/<kind>.schema.json (what every `--json` printing it promises)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from oms.services.workspace import shapes
from oms.store import Record
from tests.helpers import SESSION, T0, payload

REPO = Path(__file__).resolve().parents[3]
DOCS = [json.loads(p.read_text()) for p in (REPO / "schemas").rglob("*.schema.json")]
REGISTRY: Registry[Any] = Registry().with_resources(
    (d["$id"], Resource.from_contents(d)) for d in DOCS
)
STATES = {"ticket": "leased", "dispatch": "proposed", "worker": "working", "session": "running"}
TOKENS = st.one_of(st.none(), st.text(alphabet="0123456789abcdef", min_size=64, max_size=64))


def _valid(kind: str, shape: object) -> list[str]:
    schema = json.loads((REPO / "schemas" / "cli" / "objects" / f"{kind}.schema.json").read_text())
    return [e.message for e in Draft202012Validator(schema, registry=REGISTRY).iter_errors(shape)]


def _record(kind: str, body: dict[str, Any], version: int, at: str) -> Record:
    rid = SESSION if kind == "session" else "rec-1"  # (a session's id is a uuid)
    return Record(kind, rid, version, STATES[kind], None, "op", "me", at, None, body, "0" * 64)


@given(
    kind=st.sampled_from(["ticket", "dispatch"]),
    token=TOKENS,
    version=st.integers(min_value=0, max_value=10_000),
)
def test_a_leased_record_shows_everything_but_its_token(
    kind: str, token: str | None, version: int
) -> None:
    body = dict(payload(kind)) | {"lease_token": token}
    shape = shapes.record(_record(kind, body, version, T0))
    assert "lease_token" not in shape
    assert token is None or token not in json.dumps(shape)
    assert shape == {k: v for k, v in body.items() if k != "lease_token"} | {
        "id": "rec-1", "state": STATES[kind], "version": version, "observed_at": T0,
    }  # fmt: skip
    assert _valid(kind, shape) == []


@given(version=st.integers(min_value=0, max_value=10_000), session=st.booleans())
def test_a_worker_shows_what_its_agent_does_with_or_without_a_session(
    version: int, session: bool
) -> None:
    worker = _record("worker", dict(payload("worker")), version, T0)
    seen = _record("session", dict(payload("session")), 1, T0) if session else None
    shape = shapes.worker(worker, seen)
    assert {"agent", "agent_stopped_at"} <= set(shape)
    assert _valid("worker", shape) == []
    if seen is not None:
        assert _valid("session", shapes.session(seen)) == []
