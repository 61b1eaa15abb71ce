"""Every parser of stored or untrusted bytes either returns a valid object or raises an OmsError:
never another exception, for any input (hypothesis)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import dumps
from oms.errors import OmsError
from oms.fsio import temp_owner
from oms.fsio.locks import parse as parse_lock
from oms.store.events import parse_event
from oms.store.evidence import open_envelope
from oms.store.outbox import parse_receipt
from oms.store.records import parse_record
from oms.store.stateroot import parse_meta
from tests.strategies import profile_values

PUBLIC = bytes(32)

# Raw bytes, JSON documents of any shape, and near-miss documents (valid envelopes with random
# fields).
near_records = st.fixed_dictionaries(
    {
        "format": st.just("oms-record-v1"),
        "kind": st.sampled_from(["worker", "ticket"]),
        "record_id": st.text(max_size=5),
        "version": st.integers(-2, 3),
        "state": st.text(max_size=8),
        "expected_version": st.none() | st.integers(-1, 3),
        "operation_id": st.text(max_size=5),
        "actor": st.text(max_size=5),
        "observed_at": st.text(max_size=25),
        "previous_sha256": st.none() | st.text(max_size=64),
        "payload": profile_values,
    },
).map(lambda d: json.dumps(d, sort_keys=True, separators=(",", ":")).encode())
inputs = st.binary(max_size=300) | profile_values.map(dumps) | near_records


def _never_crashes(fn: object, *args: object) -> None:
    try:
        fn(*args)  # type: ignore[operator]
    except OmsError:
        pass


@given(inputs)
def test_record_parser(data: bytes) -> None:
    _never_crashes(parse_record, data, "worker", "r1", 0, "records/worker/r1/0.json")


@given(inputs)
def test_event_receipt_meta_evidence_parsers(data: bytes) -> None:
    _never_crashes(parse_event, data, "e1", "events/e1.json")
    _never_crashes(parse_receipt, data, "c1", "e1", "outbox/c1/e1.receipt.json")
    _never_crashes(open_envelope, data, "0" * 64, PUBLIC, "0" * 64, "evidence/x.json")
    try:
        doc = json.loads(data)
    except ValueError:
        return
    if isinstance(doc, dict):
        _never_crashes(parse_meta, doc)


@given(st.binary(max_size=200))
def test_lock_body_parser(data: bytes) -> None:
    parse_lock(data)  # returns None for anything oms did not write


@given(st.text(max_size=120))
def test_temp_name_parser(name: str) -> None:
    temp_owner(".oms-tmp." + name)
