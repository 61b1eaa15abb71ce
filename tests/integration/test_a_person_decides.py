"""What a person decides, and what waits for one (issue 26 item 2, ADR 0031): `oms ticket reopen`
and `retry` of a blocked or quarantined ticket, journaled with the person's name, over a real
fleet (`tests/fleet.py`: real git, tmux, panes, sandboxes)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.canonical import JsonObject
from oms.domain import conductor as rules
from oms.services.chain import tickets
from tests.fleet import Fleet, make_fleet
from tests.helpers import OmsCommand


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    yield from make_fleet(tmp_path / "fleet")


def _cli(oms: OmsCommand, fleet: Fleet, *args: str) -> subprocess.CompletedProcess[str]:
    return oms.run(*args, "--state-root", fleet.state, "--config-root", fleet.repo)


def test_a_blocked_ticket_reopened_by_a_person_runs_again(fleet: Fleet, oms: OmsCommand) -> None:
    """Nothing let a person send a blocked ticket back ('a person decides', but no command)."""
    ticket = fleet.add("Please block")
    fleet.until(lambda: fleet.tickets()[ticket][0] == "blocked")
    off_tty = _cli(oms, fleet, "ticket", "reopen", ticket, "--reason", "answered its question")
    assert off_tty.returncode == 2  # who decides is named off a terminal
    assert "--person" in off_tty.stderr
    reopened = _cli(
        oms,
        fleet,
        "ticket",
        "reopen",
        ticket,
        "--person",
        "Ann Lee",
        "--reason",
        "answered",
        "--json",
    )
    assert reopened.returncode == 0, reopened.stderr
    shown = json.loads(reopened.stdout)["ticket"]
    assert (shown["state"], shown["attempt"], shown["reason"]) == (
        "open",
        2,
        "reopened by Ann Lee: answered",
    )
    log = _cli(oms, fleet, "audit", "log", "--ticket", ticket).stdout
    assert "-> open by person:ann-lee" in log  # the ledger names the person
    assert "event ticket-reopened" in log
    assert "by Ann Lee: answered" in log
    first = fleet.tick()
    leased = [line for p in first.phases if p.name == "fill" for line in p.done]
    assert f"{ticket}: leased to worker-1" in leased  # at the next tick, no backoff
    with fleet.workspace() as ws:
        (dispatch,) = [
            d.record_id
            for d in ws.store.latest("dispatch").records
            if d.payload["ticket_id"] == ticket and d.payload["attempt"] == 2
        ]
    again = _cli(oms, fleet, "ticket", "reopen", ticket, "--person", "Ann")
    assert again.returncode == 1
    assert again.stderr.splitlines() == [
        "oms: error: ticket cannot reopen from state leased",
        f"  hint: its attempt 2 holds it (leased to worker-1): `oms "
        f"worker stop {dispatch}` ends it for a person first",
    ]
    stopped = _cli(oms, fleet, "worker", "stop", dispatch)  # the hint, as printed
    assert stopped.returncode == 0, stopped.stderr
    fleet.until(lambda: fleet.tickets()[ticket][0] == "blocked")  # a stop is a person's decision
    assert _cli(oms, fleet, "ticket", "reopen", ticket, "--person", "Ann").returncode == 0


def test_a_quarantined_ticket_reopened_counts_its_failures_afresh(
    fleet: Fleet, oms: OmsCommand
) -> None:
    """A reopened quarantine would be quarantined again by its next failure, its five still within
    the hour."""
    ticket = fleet.add("Always fail")
    with fleet.workspace() as ws:
        for attempt in range(1, 6):
            grant = tickets.lease(ws, ticket, "w1")
            session = str(grant.ticket.payload["session_id"])
            failure: JsonObject = {
                "attempt": attempt,
                "dispatch_id": None,
                "failed_at": ws.now(),
                "reason": "failed",
            }
            kept = grant.ticket.payload.get("failures")
            so_far = [f for f in (kept if isinstance(kept, list) else []) if isinstance(f, dict)]
            so_far.append(failure)
            decision = rules.resolve("failed", "failed", failures=so_far, now=ws.now())
            if decision.resolution == rules.Resolution.QUARANTINE:
                tickets.give_up(
                    ws,
                    grant.ticket,
                    session_id=session,
                    attempt=attempt,
                    reason=decision.reason,
                    failure=failure,
                )
            else:
                tickets.retry(
                    ws, grant.ticket, session_id=session, failure=failure, retry_after=ws.now()
                )
    state, payload = fleet.tickets()[ticket]
    assert state == "blocked"
    assert str(payload["reason"]).startswith("quarantined after 5 failures")
    done = _cli(
        oms, fleet, "ticket", "retry", ticket, "--person", "ann", "--reason", "fixed the check"
    )
    assert done.returncode == 0, done.stderr
    state, payload = fleet.tickets()[ticket]
    assert (state, payload["attempt"], payload["failures"]) == ("open", 6, [])
    fleet.until(lambda: fleet.tickets()[ticket][1]["attempt"] == 7)  # it ran, failed, is retried
    state, payload = fleet.tickets()[ticket]
    assert state == "open"  # one failure since the reopen: no quarantine
    after = payload["failures"]
    assert isinstance(after, list)
    assert [f["attempt"] for f in after] == [6]


def test_retry_takes_an_open_ticket_without_its_backoff(fleet: Fleet, oms: OmsCommand) -> None:
    ticket = fleet.add("Please fail")
    fleet.until(lambda: fleet.tickets()[ticket][1]["attempt"] == 2)
    assert fleet.tickets()[ticket][1]["retry_after"] is not None
    waited = fleet.tick()  # within its backoff (10 s): not leased
    assert not any(ticket in line for p in waited.phases if p.name == "fill" for line in p.done)
    assert _cli(oms, fleet, "ticket", "retry", ticket, "--person", "ann").returncode == 0
    taken = fleet.tick()
    leased = [line for p in taken.phases for line in p.done if line.startswith(f"{ticket}: leased")]
    assert leased, (
        taken.phases
    )  # to whichever slot is free (the last attempt's may still be closing)
    done = _cli(oms, fleet, "ticket", "reopen", "tkt-99", "--person", "ann")
    assert (done.returncode, done.stderr.splitlines()[0]) == (1, "oms: error: no ticket tkt-99")
