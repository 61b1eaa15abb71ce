"""mypy catches a misspelt payload key, a misspelt state and a value outside an enum once a payload
is read through its TypedDict (docs/adr/0044-typed-payloads.md); the same reads of a `JsonObject`
pass unseen."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mypy import api

from tests.helpers import REPO

TYPED = """
from oms.schemas.payloads import DispatchState, WorkerPayload


def health(p: WorkerPayload, state: str) -> object:
    ok = p["health"] == "parked" and state == DispatchState.ACCEPTED
    key = p["helth"]
    parked = p["health"] == "parkd"
    accepted = state == DispatchState.ACCEPTD
    again: WorkerPayload = {**p, "health": "sleeping"}
    return (ok, key, parked, accepted, again)
"""

UNTYPED = """
from oms.canonical import JsonObject


def health(p: JsonObject, state: str) -> object:
    ok = p["health"] == "parked" and state == "accepted"
    key = p["helth"]
    parked = p["health"] == "parkd"
    accepted = state == "acceptd"
    again: JsonObject = {**p, "health": "sleeping"}
    return (ok, key, parked, accepted, again)
"""


def _mypy(tmp_path: Path, source: str) -> list[str]:
    snippet = tmp_path / "snippet.py"
    snippet.write_text(source)
    out, _, _ = api.run(
        [
            "--strict",
            "--follow-imports=silent",
            "--no-error-summary",
            "--cache-dir",
            str(tmp_path / "cache"),
            str(snippet),
        ]
    )
    return [line for line in out.splitlines() if ": error:" in line]


def test_mypy_refuses_a_misspelt_key_state_or_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)  # mypy finds `oms` from the repository's top
    errors = _mypy(tmp_path, TYPED)
    lines = {int(m.group(1)): e for e in errors if (m := re.search(r":(\d+): error", e))}
    assert sorted(lines) == [7, 8, 9, 10], errors
    assert '"helth"' in lines[7]  # a key the payload does not have
    assert "'parkd'" in lines[8]  # a health outside the enum (mypy's strict equality)
    assert "ACCEPTD" in lines[9]  # a state that is not one
    assert "sleeping" in lines[10]  # a value outside the enum, written
    assert _mypy(tmp_path, UNTYPED) == []
