"""Attacks on the conductor and the pool (issue 12, ADR 0016; SECURITY.md "The conductor"): from
inside a worker (a result and a pane that outlives it, an agent slower than its lease, one parked
`no_result`), as a person running other oms commands at the same time (`oms worker stop`, `oms
ticket lease --worker`, `oms pool scale`, a lowered `max_workers`), and as the machine (a clock that
jumps past a lease or a deadline, a conductor away longer than a lease, a tmux server that dies, a
corrupt record, no file descriptor left). Real git, tmux, panes and sandboxes (`tests/fleet.py`);
the clock is moved, never waited for; every wait polls a condition against a deadline."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from oms.adapters import git
from oms.canonical import add_ms
from oms.domain import pool as pool_rules
from oms.domain.gate import NO_RESULT
from oms.errors import VersionConflictError
from oms.services.chain import tickets
from oms.services.conductor import pool
from oms.services.delivery.service import Delivery
from oms.store.outbox import ProcessingLock
from tests.fleet import Fleet, make_fleet
from tests.helpers import OmsCommand, eventually


@pytest.fixture
def lone(tmp_path: Path) -> Iterator[Fleet]:
    """A pool of one; each worker waits in its pane after its result (its pane lives on)."""
    yield from make_fleet(tmp_path / "fleet", after="wait", max_workers=1)


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Fleet]:
    """A pool of two whose workers wait in their panes after their results."""
    yield from make_fleet(tmp_path / "fleet", after="wait", max_workers=2)


@pytest.fixture
def quick(tmp_path: Path) -> Iterator[Fleet]:
    """A pool of one whose workers end after their results."""
    yield from make_fleet(tmp_path / "fleet", after="exit", max_workers=1)


def _live_agents(fleet: Fleet) -> list[str]:
    """The dispatches whose pane is live on oms's tmux server (what actually runs)."""
    done = subprocess.run(
        [
            "tmux",
            "-S",
            f"{fleet.state}/tmux.sock",
            "list-panes",
            "-a",
            "-F",
            "#{pane_dead} #{@oms_dispatch}",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return sorted(
        line.split()[1]
        for line in done.stdout.splitlines()
        if line.startswith("0 ") and len(line) > 2
    )


def _poll(what: Callable[[], bool], timeout: float = 60.0) -> None:
    eventually(what, timeout=timeout)


def _dispatches(fleet: Fleet, ticket: str) -> list[str]:
    with fleet.workspace() as ws:
        records = ws.store.records("dispatch")
        found = [records.read(i) for i in records.ids()]
    return sorted(
        f"{d.payload['attempt']}:{d.state}" for d in found if d.payload["ticket_id"] == ticket
    )


def _ticks_watching(fleet: Fleet, n: int) -> int:
    """Run `n` ticks; the most agents live at once after any of them (a launch makes its pane within
    the tick that delivers it)."""
    most = 0
    for _ in range(n):
        fleet.tick()
        most = max(most, len(_live_agents(fleet)))
    return most


def _running(fleet: Fleet, ticket: str) -> str:
    """Tick until the ticket's agent is live in its pane; its dispatch id."""
    fleet.until(lambda: bool(fleet.reports) and "alive" in fleet.reports[-1].classes.values())
    (dispatch,) = _live_agents(fleet)
    assert _dispatches(fleet, ticket) in (["1:acknowledged"], ["1:accepted"])
    return dispatch


def _ticket_of(fleet: Fleet, dispatch: str) -> str:
    with fleet.workspace() as ws:
        return str(ws.store.records("dispatch").read(dispatch).payload["ticket_id"])


def _attempt(fleet: Fleet, ticket: str) -> tuple[str, object]:
    state, payload = fleet.tickets()[ticket]
    return state, payload["attempt"]


# ---------------------------------------------------------- (a) never more agents than the pool has
def test_a_worker_still_running_after_a_failed_result_keeps_its_slot(lone: Fleet) -> None:
    """The agent records `failed` and stays in its pane: its ticket goes back to the queue (its
    `worker_id` cleared), and its slot must stay busy while that agent runs — else a pool of one
    runs two agents. Once the result is acted on its supervisor ends it (ADR 0028): only then does
    the slot take the other ticket."""
    failing = lone.add("Please fail")
    other = lone.add("Second ticket")
    most = 0

    def settled() -> bool:
        nonlocal most
        most = max(most, len(_live_agents(lone)))
        return "failures" in lone.tickets()[failing][1] and lone.tickets()[other][0] != "open"

    lone.until(settled)  # the failed result resolved, its agent ended, the other ticket launched
    assert max(most, _ticks_watching(lone, 3)) <= 1
    assert max(sum(1 for c in r.classes.values() if c == "alive") for r in lone.reports) <= 1


def test_a_worker_that_outlives_its_result_does_not_hold_its_slot_for_good(lone: Fleet) -> None:
    """An interactive agent (Claude Code, Codex) waits at its prompt after its result: nothing of
    its own ends its pane. A pool of K must not stop taking tickets after K results — its supervisor
    ends it once its result was acted on (ADR 0028; the conductor stops one still running two
    minutes after, the backstop) — and never runs two agents meanwhile."""
    first = lone.add("First ticket")
    second = lone.add("Second ticket")
    lone.until(lambda: lone.tickets()[first][0] == "done")
    # no clock moved: the conductor's two minutes never pass, the supervisor alone frees the slot
    lone.until(lambda: lone.tickets()[second][0] == "done", timeout=60)
    assert max(sum(1 for c in r.classes.values() if c == "alive") for r in lone.reports) <= 1
    with lone.workspace() as ws:
        records = ws.store.records("worker")
        ends = [records.read(i).payload for i in records.ids()]
    assert [w["health"] for w in ends if w["ticket_id"] == first] == ["stopped"]


def test_a_ticket_a_person_leases_to_a_slot_never_runs_beside_its_agent(lone: Fleet) -> None:
    """`oms ticket lease --worker worker-1` (the manual flow names pool slots) while the conductor
    runs worker-1 — or `--worker worker-9`, a slot the pool does not have: the conductor must not
    launch an agent for it beside the one the slot runs (nor one the pool has no slot for)."""
    hanging = lone.add("Ticket that would hang")
    _running(lone, hanging)
    by_hand = [lone.add("Leased by a person"), lone.add("Leased by a person to no slot")]
    with lone.workspace() as ws:
        tickets.lease(ws, by_hand[0], "worker-1")
        tickets.lease(ws, by_hand[1], "worker-9")
    assert _ticks_watching(lone, 3) == 1
    assert [_dispatches(lone, t) for t in by_hand] == [[], []]
    skipped = [line for p in lone.reports[-1].phases for line in p.skipped]
    assert any(
        line.startswith(f"{by_hand[0]}: leased to worker-1, which is not a free slot")
        for line in skipped
    )


def test_a_pool_above_a_lowered_max_workers_runs_no_more_than_max_workers(pair: Fleet) -> None:
    """The pool record keeps the slots it had when `[pool] max_workers` is lowered (and committed):
    the conductor must still run at most `max_workers` agents."""
    pair.tick()  # the pool record: worker-1, worker-2
    config = Path(pair.repo, ".oms/config.toml")
    config.write_text(config.read_text().replace("max_workers = 2", "max_workers = 1"))
    git.commit_all(pair.repo, "one worker now")
    for n in range(2):
        pair.add(f"Ticket {n} that would hang")
    assert _ticks_watching(pair, 3) == 1


# -------------------------------------------------- (a, b, f) a lease never runs out under an agent
def test_a_worker_running_past_its_lease_is_not_launched_again(lone: Fleet) -> None:
    """An agent that works longer than the lease (60 min; its role's deadline is 480) while the
    conductor ticks: the lease must not run out under it — else the ticket is reopened, the agent
    fenced but left running, and every later attempt refused in the same worktree until the ticket
    is quarantined."""
    ticket = lone.add("Ticket that would hang")
    dispatch = _running(lone, ticket)
    _poll(lambda: _dispatches(lone, ticket) == ["1:acknowledged"])  # the agent works
    for _ in range(5):  # 100 minutes, a tick every 20
        lone.shift_ms += 20 * 60_000
        lone.tick()
    assert _dispatches(lone, ticket) == ["1:acknowledged"]
    assert _attempt(lone, ticket) == ("leased", 1)
    assert _live_agents(lone) == [dispatch]


def test_a_draining_slot_keeps_its_work_past_the_lease(oms: OmsCommand, pair: Fleet) -> None:
    """`oms pool scale --force` parks a draining slot's worker for a day: its ticket's lease must
    not run out meanwhile (else the slot is settled away, the ticket handed to another agent, the
    parked one orphaned)."""
    hanging = [pair.add(f"Ticket {n} that would hang") for n in range(2)]
    pair.until(lambda: len(_live_agents(pair)) == 2)
    scaled = oms.run(
        "pool",
        "scale",
        "--to",
        "1",
        "--force",
        "--state-root",
        pair.state,
        "--config-root",
        pair.repo,
    )
    assert scaled.returncode == 0, scaled.stderr
    assert "parked" in scaled.stdout
    for _ in range(4):  # 80 minutes, a tick every 20
        pair.shift_ms += 20 * 60_000
        pair.tick()
    assert [_attempt(pair, t) for t in hanging] == [("leased", 1), ("leased", 1)]
    with pair.workspace() as ws:
        assert pool_rules.names(pool.current(ws)) == [
            "worker-1",
            "worker-2",
        ]  # worker-2 still drains
    assert len(_live_agents(pair)) == 2


def test_a_conductor_back_after_the_lease_ran_out_ends_the_fenced_agent(lone: Fleet) -> None:
    """The conductor was down longer than the lease: the lease (the fence) ran out under a live
    agent and the ticket is reopened. The fenced agent, which can record nothing any more, is ended
    (not left running for good, holding its slot and its worktree), and the next attempt is tried —
    one agent at a time."""
    ticket = lone.add("Ticket that would hang")
    first = _running(lone, ticket)
    lone.shift_ms += 61 * 60_000
    assert _ticks_watching(lone, 2) <= 1
    assert first not in _live_agents(lone)
    assert _dispatches(lone, ticket)[0] == "1:cancelled"
    assert [d.split(":")[0] for d in _dispatches(lone, ticket)] == ["1", "2"]  # attempt 2 was tried


def test_an_attempt_after_an_expiry_and_a_failure_can_still_be_proposed(quick: Fleet) -> None:
    """A lease that ran out leaves `prior_failure_evidence` on the ticket; a failed attempt after it
    must not keep it: every later proposal would be refused ("not this ticket's last expired lease")
    and the ticket burnt through its attempts to quarantine without an agent ever running again."""
    ticket = quick.add("Please fail")
    with quick.workspace() as ws:
        tickets.lease(ws, ticket, "alice", minutes=1)  # a person's lease, left to run out
    quick.shift_ms += 2 * 60_000
    quick.until(lambda: _attempt(quick, ticket) == ("open", 3))  # expired (2), then failed (3)
    quick.shift_ms += 11_000  # past the backoff
    quick.until(
        lambda: len(_dispatches(quick, ticket)) == 2 or quick.tickets()[ticket][1]["attempt"] != 3
    )
    assert "not this ticket's last expired lease" not in str(
        quick.tickets()[ticket][1].get("reason")
    )
    assert [d.split(":")[0] for d in _dispatches(quick, ticket)] == ["2", "3"]


# ----------------------------------------------------- (d) what waits for a person is never retried
def test_a_worker_a_person_stopped_is_not_retried_when_its_lease_runs_out(lone: Fleet) -> None:
    """SECURITY.md: a worker a person stopped waits for a person. Its ticket must not come back to
    the queue an hour later (the lease running out) and be launched again."""
    ticket = lone.add("Ticket that would hang")
    dispatch = _running(lone, ticket)
    with lone.workspace() as ws:
        Delivery.open(ws).stop(dispatch, "a person looks at it")
    lone.tick()
    lone.shift_ms += 61 * 60_000
    lone.tick()
    lone.tick()
    assert _dispatches(lone, ticket) == ["1:cancelled"]
    state, payload = lone.tickets()[ticket]
    assert state == "blocked"
    assert "a person looks at it" in str(payload["reason"])
    assert _live_agents(lone) == []


def _park_no_result(fleet: Fleet, dispatch: str) -> None:
    """What the broker does at the bound (`progress.park_no_result`), retried if a hook wrote
    meanwhile; once the agent has acknowledged its dispatch (as an agent parked at the bound
    has)."""
    eventually(
        lambda: _dispatches(fleet, _ticket_of(fleet, dispatch)) == ["1:acknowledged"],
        timeout=30,
        what="the agent acknowledges its dispatch",
    )

    def parked() -> bool:
        with fleet.workspace() as ws:
            Delivery.open(ws).park(dispatch, NO_RESULT, add_ms(ws.now(), 60_000))
        return True

    eventually(parked, timeout=30, ignoring=(VersionConflictError,), what="the park is written")


def test_a_worker_parked_no_result_is_never_retried(lone: Fleet) -> None:
    """ADR 0015: a worker parked `no_result` waits for a person (its agent would loop again).
    Neither its lease running out under a ticking conductor nor its role's deadline may hand the
    ticket to a new agent: at the deadline it is stopped and its ticket blocked for the person."""
    ticket = lone.add("Ticket that would hang")
    dispatch = _running(lone, ticket)
    _park_no_result(lone, dispatch)
    for _ in range(4):  # 80 minutes, a tick every 20
        lone.shift_ms += 20 * 60_000
        lone.tick()
    assert _dispatches(lone, ticket) == ["1:acknowledged"]
    assert _live_agents(lone) == [dispatch]
    for _ in range(21):  # on to its role's deadline (480 minutes)
        lone.shift_ms += 20 * 60_000
        lone.tick()
    assert _dispatches(lone, ticket) == ["1:cancelled"]
    state, payload = lone.tickets()[ticket]
    assert state == "blocked"
    assert "waiting for a person" in str(payload["reason"])


def test_a_worker_parked_no_result_waits_through_a_conductor_outage_and_a_dead_tmux_server(
    lone: Fleet,
) -> None:
    """The same worker when the machine misbehaves: the conductor away longer than the lease (its
    lease ran out: the worker is fenced, its ticket kept leased), then the tmux server dies (the
    worker ends with its pane). Its ticket waits for a person all along: blocked, never launched
    again."""
    ticket = lone.add("Ticket that would hang")
    dispatch = _running(lone, ticket)
    _park_no_result(lone, dispatch)
    lone.shift_ms += 61 * 60_000
    assert _ticks_watching(lone, 2) == 1
    assert _dispatches(lone, ticket) == ["1:acknowledged"]
    assert _attempt(lone, ticket) == ("leased", 1)
    lone.kill_tmux()
    lone.tick()  # the pane gone: its supervisor's end may be recorded after this tick looked
    lone.until(lambda: _dispatches(lone, ticket) != ["1:acknowledged"])
    assert _dispatches(lone, ticket) == ["1:cancelled"]  # (a second launch would be "2:…")
    state, payload = lone.tickets()[ticket]
    assert state == "blocked"
    assert NO_RESULT in str(payload["reason"])


# --------------------------------------------------- (f) a scale decides on who holds the slots now
def test_a_scale_never_removes_a_slot_leased_while_it_waited_for_the_pool_lock(
    pair: Fleet, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`oms pool scale --to 1` while a conductor tick leases a slot: whatever the scale read before
    it held the pool lock is stale. The lease lands just before the scale takes the lock (the lock
    call is where the two interleave); the slot that holds the ticket must drain, not leave as
    idle."""
    from oms.cli.boundary import run_cli
    from oms.store.outbox import Outbox

    pair.tick()  # the pool record: worker-1, worker-2, both idle
    ticket = pair.add("Leased while the scale waits")
    real = Outbox.lock
    landed: list[str] = []

    def lock(self: Outbox, event_id: str, *, wait_s: float = 0.0) -> ProcessingLock:
        if self.consumer_id == "oms-pool" and not landed:
            with pair.workspace() as ws:  # what the tick's fill does to a free slot
                landed.append(tickets.lease(ws, ticket, "worker-2").ticket.record_id)
        return real(self, event_id, wait_s=wait_s)

    monkeypatch.setattr(Outbox, "lock", lock)
    code = run_cli(
        [
            "pool",
            "scale",
            "--to",
            "1",
            "--json",
            "--state-root",
            pair.state,
            "--config-root",
            pair.repo,
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert landed == [ticket]
    with pair.workspace() as ws:
        assert pool_rules.names(pool.current(ws)) == ["worker-2"], (
            out
        )  # it holds the ticket: the idle one left


# --------------------------------------------------------------- (e) one bad record, one bad moment
def _corrupt_latest(fleet: Fleet, kind: str, record_id: str) -> None:
    directory = Path(fleet.state, "records", kind, record_id)
    latest = max(directory.glob("*.json"), key=lambda p: int(p.stem))
    latest.write_bytes(b"{not json")


def test_one_damaged_ticket_never_stops_the_others_expiring(quick: Fleet, oms: OmsCommand) -> None:
    """A crash (or a disk) leaves one ticket's record unreadable: every other lease must still run
    out and be worked, and `oms pool show` must still answer."""
    leased = quick.add("Leased by a person, left to run out")
    damaged = quick.add("Damaged")
    with quick.workspace() as ws:
        tickets.lease(ws, leased, "alice", minutes=1)
    _corrupt_latest(quick, "ticket", damaged)
    quick.shift_ms += 2 * 60_000
    report = quick.tick()
    expire = next(p for p in report.phases if p.name == "expire")
    assert f"{leased}: lease expired, open for attempt 2" in expire.done, report.to_json()
    assert any(line.startswith(f"{damaged}: ") for line in expire.skipped)
    shown = oms.run("pool", "show", "--state-root", quick.state, "--config-root", quick.repo)
    assert shown.returncode == 0, shown.stderr
    assert "worker-1" in shown.stdout


def _event(proc: subprocess.Popen[str]) -> dict[str, object]:
    """The loop's next JSON line (it must still be running to write one)."""
    import json

    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, (
        f"the loop ended: {proc.wait(timeout=30)} {proc.stderr.read() if proc.stderr else ''}"
    )
    event = json.loads(line)
    assert isinstance(event, dict)
    return event


def _python_of(pid: int, frozen: bool) -> int:
    """The process that runs oms's code: `pid` itself from source (the wrapper execs Python); a
    frozen binary's bootloader runs it in a child of the same executable."""
    if not frozen:
        return pid
    exe = os.readlink(f"/proc/{pid}/exe")
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        if os.readlink(f"/proc/{child}/exe") == exe:
            return int(child)
    return pid


def test_a_machine_out_of_file_descriptors_never_ends_the_loop(
    quick: Fleet, oms: OmsCommand
) -> None:
    """`oms conductor run` when the machine refuses new file descriptors for a while (an agent's
    fork bomb or fd leak starves the host; here: its soft RLIMIT_NOFILE lowered to what it holds):
    each tick fails in one line, the loop goes on, and works again once descriptors are back; no
    traceback."""
    import json
    import resource
    import signal

    quick.add("Ticket")
    proc = subprocess.Popen(
        [*oms.argv, "conductor", "run", "--interval", "1", "--json", "--state-root", quick.state],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "OMS_CONFIG_ROOT": quick.repo},
    )
    try:
        assert proc.stdout is not None
        assert _event(proc)["type"] == "tick"
        pid = _python_of(proc.pid, oms.frozen)
        soft, hard = resource.prlimit(pid, resource.RLIMIT_NOFILE)
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (len(os.listdir(f"/proc/{pid}/fd")), hard))
        starved = [_event(proc) for _ in range(2)]
        assert all(e["type"] == "tick-failed" or "phases" in e for e in starved), starved
        assert any("open files" in json.dumps(e) for e in starved), starved
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (soft, hard))
        deadline = time.monotonic() + 30
        while True:  # ticks again once the machine gives descriptors back
            assert time.monotonic() < deadline
            event = _event(proc)
            if event["type"] == "tick" and "open files" not in json.dumps(event):
                break
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert json.loads(out.splitlines()[-1])["type"] == "stopped"
    assert "Traceback" not in err
