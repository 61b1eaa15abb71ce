"""`oms conductor tick` over a real fleet (`tests/fleet.py`): real git, tmux, panes, sandboxes and
bridges; the demo worker records the result its ticket asks for."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.errors import LockHeldError
from oms.services.conductor import pool
from oms.services.conductor import tick as conductor
from tests.fleet import Fleet, make_fleet
from tests.helpers import eventually


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    yield from make_fleet(tmp_path / "fleet")


def _all(fleet: Fleet, *states: str) -> bool:
    return all(state in states for state, _ in fleet.tickets().values())


def _dispatches_per_ticket(fleet: Fleet) -> dict[str, list[str]]:
    with fleet.workspace() as ws:
        records = ws.store.records("dispatch")
        out: dict[str, list[str]] = {}
        for dispatch_id in records.ids():
            d = records.read(dispatch_id)
            out.setdefault(str(d.payload["ticket_id"]), []).append(
                f"{d.payload['attempt']}:{d.state}"
            )
        return out


def test_a_queue_is_worked_through_never_above_the_pool(fleet: Fleet) -> None:
    ids = [fleet.add(f"Ticket {n}", priority=None if n else 1) for n in range(4)]
    first = fleet.tick()
    leased = [
        line.split(":")[0]
        for p in first.phases
        if p.name == "fill"
        for line in p.done
        if "leased" in line
    ]
    assert leased == [ids[0], ids[1]]  # priority 1, then the oldest; two slots
    assert [
        line.split(" to ")[1]
        for p in first.phases
        if p.name == "fill"
        for line in p.done
        if "leased" in line
    ] == [
        "worker-1",
        "worker-2",
    ]
    fleet.until(lambda: _all(fleet, "done"))
    assert max(sum(1 for c in r.classes.values() if c == "alive") for r in fleet.reports) <= 2
    assert _dispatches_per_ticket(fleet) == {
        t: ["1:resolved"] for t in ids
    }  # one attempt each, all resolved
    for report in fleet.reports:
        names = [p.name for p in report.phases]
        assert names == list(conductor.PHASES)  # every phase, in order, every tick


def _files(root: str) -> dict[str, int]:
    out = {}
    for path in Path(root).rglob("*"):
        if path.is_file() and path.suffix not in (".log", ".sock") and "tmp" not in path.parts:
            out[str(path)] = path.stat().st_mtime_ns
    return out


def test_a_tick_with_nothing_to_do_writes_nothing(fleet: Fleet) -> None:
    fleet.add("Only ticket")
    fleet.until(lambda: _all(fleet, "done"))
    # the ticks that close what the last one left (on a loaded machine the worker's pane may end
    # a tick later): until one does nothing, and then that tick wrote nothing either

    def quiet() -> bool:
        before = _files(fleet.state)
        again = fleet.tick()
        return all(not p.done for p in again.phases) and _files(fleet.state) == before

    eventually(quiet, what="a tick with nothing to do that writes nothing")


def test_an_idle_tick_takes_no_pool_lock(fleet: Fleet, monkeypatch: pytest.MonkeyPatch) -> None:
    """With nothing queued and nothing for the pool to settle, filling decides without the pool's
    lock (on an etcd store it is a lease: three round trips of every idle tick)."""
    fleet.add("Only ticket")
    fleet.until(lambda: _all(fleet, "done"))
    fleet.until(lambda: all(not p.done for p in fleet.tick().phases))

    def no_lock(_ws: object, **_: object) -> object:
        raise AssertionError("an idle tick took the pool lock")

    monkeypatch.setattr(pool, "lock", no_lock)
    idle = fleet.tick()  # (its reconcile may still see the ended worker's pane go: not fill's)
    assert not idle.internal, idle.internal
    (filled,) = [p for p in idle.phases if p.name == "fill"]
    assert not filled.done, idle
    assert not filled.skipped, idle


def test_a_failed_attempt_is_retried_after_its_backoff_and_a_blocked_one_waits(
    fleet: Fleet,
) -> None:
    failing = fleet.add("Please fail")
    blocked = fleet.add("Please block")
    fleet.until(
        lambda: (
            fleet.tickets()[blocked][0] == "blocked" and fleet.tickets()[failing][1]["attempt"] == 2
        )
    )
    state, payload = fleet.tickets()[blocked]
    assert state == "blocked"
    assert "the agent needs a person: blocked by the test worker" in str(payload["reason"])
    state, payload = fleet.tickets()[failing]
    assert state == "open"
    assert payload["attempt"] == 2
    failures = payload["failures"]
    assert isinstance(failures, list)
    assert [f["attempt"] for f in failures] == [1]
    assert "failed: failed by the test worker" in failures[0]["reason"]
    fleet.tick()  # the backoff (10 s) has not passed: nothing is leased
    assert fleet.tickets()[failing][0] == "open"
    fleet.shift_ms += 11_000
    before = len(fleet.reports)

    def leased_again() -> (
        bool
    ):  # a tick leases it once the failed attempt's pane has let its slot go
        return any(
            line.startswith(f"{failing}: leased to worker-")
            for report in fleet.reports[before:]
            for p in report.phases
            for line in p.done
        )

    fleet.until(leased_again)
    assert fleet.tickets()[blocked][0] == "blocked"  # never retried blindly


def test_five_failures_within_an_hour_quarantine_the_ticket(fleet: Fleet) -> None:
    failing = fleet.add("Always fail")
    for attempt in range(1, 6):

        def moved_on(a: int = attempt) -> bool:
            state, payload = fleet.tickets()[failing]
            return state == "blocked" or int(str(payload["attempt"])) > a

        fleet.until(moved_on)
        fleet.shift_ms += 301_000  # past any backoff, well within the hour over five attempts
    state, payload = fleet.tickets()[failing]
    assert state == "blocked"
    reason = str(payload["reason"])
    assert reason.startswith("quarantined after 5 failures within an hour (attempts 1, 2, 3, 4, 5;")
    failures = payload["failures"]
    assert isinstance(failures, list)
    assert [f["attempt"] for f in failures] == [
        1,
        2,
        3,
        4,
        5,
    ]  # every attempt listed, with its reason
    attempts = sorted(_dispatches_per_ticket(fleet)[failing])
    assert [a.split(":")[0] for a in attempts] == [
        "1",
        "2",
        "3",
        "4",
        "5",
    ]  # one dispatch per attempt
    assert all(a.split(":")[1] in ("resolved", "cancelled") for a in attempts)


def test_a_pane_oms_cannot_prove_it_started_is_left_alone(fleet: Fleet) -> None:
    sock = f"{fleet.state}/tmux.sock"
    fleet.add("Ticket")
    fleet.tick()  # the server runs now
    subprocess.run(
        ["tmux", "-S", sock, "new-session", "-d", "-s", "dsp-notours", "sleep 300"], check=True
    )
    subprocess.run(
        [
            "tmux",
            "-S",
            sock,
            "set-option",
            "-p",
            "-t",
            "=dsp-notours:",
            "@oms_dispatch",
            "dsp-notours",
        ],
        check=True,
    )
    report = fleet.tick()
    assert report.unknown_panes == ["dsp-notours"]
    fleet.until(lambda: _all(fleet, "done"))
    fleet.tick()
    listed = subprocess.run(
        ["tmux", "-S", sock, "list-sessions", "-F", "#{session_name}"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "dsp-notours" in listed.stdout.split()


def test_one_conductor_per_state_root(fleet: Fleet) -> None:
    with fleet.workspace() as ws, conductor.lock(ws):
        with pytest.raises(LockHeldError, match="another conductor works on this state root"):
            fleet.tick()


def test_a_worker_past_its_deadline_is_stopped_and_its_attempt_retried(tmp_path: Path) -> None:
    for fleet in make_fleet(tmp_path / "fleet", after="wait", role="deadline_minutes = 2\n"):
        _deadline_case(fleet)


def _deadline_case(fleet: Fleet) -> None:
    ticket = fleet.add("Ticket that would hang")
    fleet.until(lambda: "alive" in (fleet.reports[-1].classes.values() if fleet.reports else ()))
    fleet.tick()
    assert fleet.tickets()[ticket][0] == "leased"  # within its deadline: left alone
    fleet.shift_ms += 2 * 60_000 + 1000
    report = fleet.tick()
    deadlines = next(p for p in report.phases if p.name == "deadlines")
    assert any("stopped at its 2-minute deadline" in line for line in deadlines.done), (
        report.to_json()
    )
    with fleet.workspace() as ws:
        (worker,) = [ws.store.records("worker").read(w) for w in ws.store.records("worker").ids()]
    assert (worker.payload["health"], worker.payload["end_reason"]) == ("stopped", "deadline")
    fleet.tick()  # the ended attempt is a failed one: retried after its backoff
    state, payload = fleet.tickets()[ticket]
    assert (state, payload["attempt"]) == ("open", 2)
    failures = payload["failures"]
    assert isinstance(failures, list)
    assert "ran past its role's 2-minute limit" in str(failures[0]["reason"])
