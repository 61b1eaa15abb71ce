"""mypy refuses a misspelt field of a machine's `Next`: a transition's payload is its kind's
TypedDict (`Next[SessionPayload]`, ...), read or built with the kind's `*_with`
(docs/adr/0042-decisions-in-machines-a-simulator.md, "Amendment"); the same through the unchecked
`with_fields` and a `JsonObject` passes unseen."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import REPO
from tests.unit.test_typed_payload_use import _mypy

TYPED = """
from oms.domain import sessions, tickets, workers
from oms.domain.machine import session_with, ticket_with, worker_with
from oms.canonical import JsonObject


def use(p: JsonObject) -> object:
    parked = sessions.park("running", p, until="b", now="a")
    until = parked.payload["parked_untill"]
    again = session_with(parked.payload, parked_untill=None)
    ended = workers.change("idle", p, now="a", health="parked").payload["helth"]
    sick = worker_with(p, health="sleeping")
    lease = tickets.renew("leased", p, token="t", expires_at="b", now="a").payload["lease_expiry"]
    count = ticket_with(p, attempt="2")
    return (until, again, ended, sick, lease, count)
"""

UNTYPED = """
from oms.canonical import JsonObject
from oms.domain.machine import with_fields


def use(p: JsonObject) -> object:
    until = p["parked_untill"]
    again = with_fields(p, parked_untill=None)
    helth = p["helth"]
    sick = with_fields(p, health="sleeping")
    lease = p["lease_expiry"]
    count = with_fields(p, attempt="2")
    return (until, again, helth, sick, lease, count)
"""


def test_mypy_refuses_a_misspelt_field_of_a_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)  # mypy finds `oms` from the repository's top
    errors = _mypy(tmp_path, TYPED)
    lines = {int(m.group(1)): e for e in errors if (m := re.search(r":(\d+): error", e))}
    assert sorted(lines) == [9, 10, 11, 12, 13, 14], errors
    assert '"parked_untill"' in lines[9]  # a key a session's payload does not have, read
    assert '"parked_untill"' in lines[10]  # ... and written into the next version
    assert '"helth"' in lines[11]  # a worker's
    assert "sleeping" in lines[12]  # a value outside the kind's enum
    assert '"lease_expiry"' in lines[13]  # a ticket's
    assert '"attempt"' in lines[14]  # a value of the wrong type


def test_the_same_through_untyped_json_passes_unseen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    assert _mypy(tmp_path, UNTYPED) == []
