"""Parsed record versions are kept by the digest of their bytes (`store/records.parse_record`): the
same bytes give the same record without a second parse, and bytes changed in place are parsed and
checked anew — a kept parse never hides an edit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oms.errors import OmsError
from oms.store import Store
from oms.store import records as records_module
from oms.store.payloads import as_json


def _create(store: Store) -> Path:
    store.records("ticket")  # the kind exists
    from oms.domain import tickets

    nxt = tickets.new(
        title="t",
        source="local",
        repository=None,
        content_sha256="0" * 64,
        created_at="2026-12-01T00:00:00.000Z",
        repository_root="/repo",
        added_by="a" * 64,
    )
    store.records("ticket").create(
        "tkt-1",
        state=nxt.state,
        payload=as_json(nxt.payload),
        operation_id="op-1",
        actor="oms",
        observed_at="2026-12-01T00:00:00.000Z",
    )
    return Path(store.path) / "records" / "ticket" / "tkt-1" / "0.json"


def test_the_same_bytes_are_parsed_once(store: Store) -> None:
    _create(store)
    first = store.records("ticket").read("tkt-1")
    calls = []
    original = records_module._parse_record

    def counting(*args: object) -> records_module.Record:
        calls.append(args)
        return original(*args)  # type: ignore[arg-type]

    records_module._parse_record = counting  # type: ignore[assignment]
    try:
        again = store.records("ticket").read("tkt-1")
    finally:
        records_module._parse_record = original
    assert again == first
    assert calls == []


def test_bytes_changed_in_place_are_checked_again(store: Store) -> None:
    path = _create(store)
    assert store.records("ticket").read("tkt-1").state == "open"
    data = path.read_bytes().replace(b'"open"', b'"opem"')
    os.chmod(path, 0o600)
    path.write_bytes(data)
    with pytest.raises(OmsError):
        store.records("ticket").read("tkt-1")
