"""The conductor killed with SIGKILL and restarted, over a real fleet (`tests/fleet.py`): the
acceptance scenario of reconciliation after `kill -9`, shared by
`tests/integration/test_conductor_restart.py` and `bench/conductor_restart_bench.py`.

`oms conductor run --interval 1 --json` runs as a real process on the fleet's state root; each round
it is killed with SIGKILL after a seeded random delay and started again; after the last round it
runs until the queue is worked through and every pane is closed, then it is asked to stop (SIGTERM).
The worker is the fleet's, with two changes: its first act is to log `agent started` in its private
home (which outlives its pane: a second start of one dispatch's agent appends a second line to the
same log), and it naps the seconds its ticket's title names (`... nap 1.25`) before recording its
result, then exits.

What is counted (`Outcome`):
- duplicate launches: dispatches whose agent logged `agent started` more than once;
- lost results: a ticket not `done`; a dispatch with a recorded result (its agent was told
  `result-received`, or it holds result evidence) that is not `resolved`, or whose ticket did not
  take it; two dispatches of one ticket for the same attempt;
- unclassified: after a restart, workers (every worker record there was when it started: nothing
  else makes one while the conductor is dead) missing from the `workers` of its first tick;
- left running: live panes, and processes of this fleet (`bwrap`, `oms worker supervise`) at the
  end.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from oms.adapters.providers.command import home
from oms.services.chain import tickets
from tests.fleet import Fleet, make_fleet
from tests.helpers import eventually, oms_command

STARTED = "agent started"
RECORDED = "record_dispatch_result: dispatch result-received"
SANDBOX_ENDED = "sandbox ended ("  # the supervisor's log line once a sandbox it started has ended
CLASSES = ("alive", "pane-dead", "pane-gone", "not-started", "ended")


def prepare(base: Path, *, tickets_n: int, max_workers: int, seed: int) -> Iterator[Fleet]:
    """The fleet in `base`: its worker logs its start and naps before its result; `tickets_n`
    tickets whose naps (0-2 s) come from `seed`. Closing the generator ends what the fleet left
    (`clean_up`)."""
    fleets = make_fleet(base, after="exit", max_workers=max_workers)
    fleet = next(fleets)
    try:
        script = Path(base, "worker.sh")
        text = script.read_text()
        started = 'initialize=\'{"jsonrpc"'
        assert started in text
        text = text.replace(started, f'say "{STARTED}"\n{started}', 1)
        result = "reply=$(tool record_dispatch_result"
        assert result in text
        nap = (
            "nap=$(printf '%s' \"$title\" | sed -n 's/.* nap \\([0-9.]*\\)$/\\1/p')\n"
            '[ -z "$nap" ] || sleep "$nap"\n'
        )
        text = text.replace(result, nap + result, 1)
        script.write_text(text)
        rng = random.Random(seed)
        with fleet.workspace() as ws:
            for n in range(tickets_n):
                tickets.add(ws, f"Ticket {n:02d} nap {rng.uniform(0, 2):.2f}", "do it", None)
        yield fleet
    finally:
        clean_up(fleet)
        with contextlib.suppress(StopIteration):
            next(fleets)  # make_fleet's own end: its tmux server, its environment


@dataclass
class Run:
    """One `oms conductor run` process and what it printed."""

    proc: subprocess.Popen[bytes]
    out: Path
    workers_before: list[str]

    def events(self) -> list[dict[str, object]]:
        """Its complete JSON lines (a line cut by SIGKILL is not one)."""
        out = []
        for line in self.out.read_bytes().split(b"\n")[:-1]:
            with contextlib.suppress(ValueError):
                out.append(json.loads(line))
        return out

    def ticks(self) -> list[dict[str, object]]:
        return [e for e in self.events() if e.get("type") == "tick"]


@dataclass
class Outcome:
    """What a scenario counted (see the module's docstring)."""

    rounds: int = 0
    kills: int = 0
    restarts_classified: int = (
        0  # runs whose first tick came before their kill (checked); the last's too
    )
    ticks: int = 0
    tick_failures: list[str] = field(default_factory=list)
    duplicates: dict[str, str] = field(default_factory=dict)  # dispatch -> how often what started
    lost: list[str] = field(default_factory=list)
    unclassified: list[str] = field(default_factory=list)
    left_running: list[str] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)  # the last run did not settle in time
    dispatches: int = 0
    attempts_failed: list[str] = field(
        default_factory=list
    )  # why each cancelled dispatch was cancelled
    seconds: float = 0.0
    kill_delays: list[float] = field(default_factory=list)

    def bad(self) -> list[str]:
        """Every violation, one line each (empty: the scenario holds)."""
        out = [f"{d}: {what}" for d, what in sorted(self.duplicates.items())]
        out += self.stuck + self.lost + self.unclassified + self.left_running
        out += [f"a tick failed: {line}" for line in self.tick_failures]
        return out

    def to_json(self) -> dict[str, object]:
        return {
            "rounds": self.rounds,
            "kills": self.kills,
            "restarts_classified": self.restarts_classified,
            "ticks": self.ticks,
            "dispatches": self.dispatches,
            "failed_attempts": len(self.attempts_failed),
            "failed_attempt_reasons": self.attempts_failed,
            "duplicates": len(self.duplicates),
            "lost": len(self.lost),
            "unclassified": len(self.unclassified),
            "left_running": len(self.left_running),
            "stuck": len(self.stuck),
            "tick_failures": len(self.tick_failures),
            "seconds": round(self.seconds, 1),
            "violations": self.bad(),
        }


def _worker_ids(fleet: Fleet) -> list[str]:
    """Every worker record (not a directory a kill left before its record's first version)."""
    with fleet.workspace() as ws:
        records = ws.store.records("worker")
        return sorted(w for w in records.ids() if records.read_if_exists(w) is not None)


def start(fleet: Fleet, out: Path) -> Run:
    """`oms conductor run --interval 1 --json` on the fleet, its stdout in `out` (its stderr beside
    it)."""
    argv = [
        *oms_command().argv,
        "conductor",
        "run",
        "--interval",
        "1",
        "--json",
        "--state-root",
        fleet.state,
        "--config-root",
        fleet.repo,
    ]
    before = _worker_ids(fleet)
    with out.open("wb") as stdout, out.with_suffix(".err").open("wb") as stderr:
        proc = subprocess.Popen(argv, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL)
    return Run(proc, out, before)


def poll(done: Callable[[], bool], timeout: float, what: str, step: float = 0.1) -> None:
    """Until `done()` holds; an AssertionError naming `what` after `timeout` seconds (scaled:
    `tests.helpers.eventually`, polling at most every `step` seconds)."""
    eventually(done, timeout=timeout, what=what, max_poll=step)


def _check_first_tick(run: Run, outcome: Outcome) -> None:
    ticks = run.ticks()
    outcome.ticks += len(ticks)
    outcome.tick_failures += [
        str(e.get("error")) for e in run.events() if e.get("type") == "tick-failed"
    ]
    if not ticks:
        return
    outcome.restarts_classified += 1
    workers = ticks[0].get("workers")
    assert isinstance(workers, dict)
    missing = sorted(set(run.workers_before) - set(workers))
    outcome.unclassified += [
        f"{run.out.name}: worker {w} not classified by its first tick" for w in missing
    ]
    odd = sorted(f"{w}={c}" for w, c in workers.items() if c not in CLASSES)
    outcome.unclassified += [f"{run.out.name}: worker {w} has no known class" for w in odd]


def scenario(
    fleet: Fleet, *, rounds: int, seed: int, min_delay: float, max_delay: float, settle_s: float
) -> Outcome:
    """Kill and restart the conductor `rounds` times, then let it finish; count (see `Outcome`)."""
    outcome = Outcome()
    rng = random.Random(seed)
    began = time.monotonic()
    runs_dir = Path(fleet.base, "runs")
    runs_dir.mkdir()
    for n in range(rounds):
        run = start(fleet, runs_dir / f"run-{n:02d}.jsonl")
        delay = rng.uniform(min_delay, max_delay)
        outcome.kill_delays.append(round(delay, 2))
        try:
            run.proc.wait(timeout=delay)  # it never ends on its own: the kill always comes
        except subprocess.TimeoutExpired:
            run.proc.send_signal(signal.SIGKILL)
            outcome.kills += 1
        run.proc.wait(timeout=30)
        outcome.rounds += 1
        _check_first_tick(run, outcome)
    last = start(fleet, runs_dir / "run-last.jsonl")
    try:
        poll(
            lambda: _settled(fleet),
            settle_s,
            "the queue to be worked through and every pane closed",
            0.25,
        )
    except AssertionError as exc:
        outcome.stuck.append(str(exc))
    finally:
        last.proc.send_signal(signal.SIGTERM)
        try:
            last.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            last.proc.kill()
            last.proc.wait()
    _check_first_tick(last, outcome)
    outcome.seconds = time.monotonic() - began
    count(fleet, outcome)
    return outcome


def _panes(fleet: Fleet) -> list[tuple[str, bool]]:
    """(session name, dead) of every pane on the fleet's tmux server (none when it does not run)."""
    listed = subprocess.run(
        [
            "tmux",
            "-S",
            f"{fleet.state}/tmux.sock",
            "list-panes",
            "-a",
            "-F",
            "#{session_name} #{pane_dead}",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode != 0:
        return []
    return [
        (name, dead == "1")
        for name, _, dead in (line.partition(" ") for line in listed.stdout.splitlines())
    ]


def _settled(fleet: Fleet) -> bool:
    states = {state for state, _ in fleet.tickets().values()}
    if not states <= {"done", "blocked"}:
        return False
    with fleet.workspace() as ws:
        records = ws.store.records("worker")
        for worker_id in records.ids():
            worker = records.read_if_exists(
                worker_id
            )  # None: a create a kill cut short, before its version
            if worker is None or worker.payload["health"] != "stopped":
                return False
    return not _panes(fleet)


def fleet_processes(fleet: Fleet) -> list[tuple[int, str]]:
    """(pid, command line) of live `bwrap` sandboxes and `oms worker supervise` processes of this
    fleet."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        line = " ".join(a.decode("utf-8", "replace") for a in argv if a)
        ours = str(fleet.base) in line
        if ours and (os.path.basename(argv[0]) == b"bwrap" or "worker supervise" in line):
            out.append((int(entry.name), line[:200]))
    return out


def count(fleet: Fleet, outcome: Outcome) -> None:
    """Duplicates, lost results and what is left running, from the store, the logs and the
    machine."""
    with fleet.workspace() as ws:
        all_tickets = {t.record_id: t for t in tickets.list_all(ws)}
        records = ws.store.records("dispatch")
        seen: dict[tuple[str, object], str] = {}
        for dispatch_id in sorted(records.ids()):
            dispatch = records.read(dispatch_id)
            outcome.dispatches += 1
            ticket_id = str(dispatch.payload["ticket_id"])
            attempt = dispatch.payload["attempt"]
            if (ticket_id, attempt) in seen:
                outcome.lost.append(
                    f"{ticket_id}: two dispatches for attempt {attempt}: {seen[ticket_id, attempt]}"
                )
            seen[ticket_id, attempt] = dispatch_id
            session_id = str(dispatch.payload["session_id"])
            rel = f"{home(session_id)}/worker.log"
            log = ws.store.sandboxes().read_optional(rel, 1 << 20, any_mode=True) or b""
            text = log.decode("utf-8", "replace")
            starts = text.count(STARTED)
            supervised = (
                ws.store.state.root.read_optional(
                    f"panes/{dispatch_id}.log", 1 << 20, any_mode=True
                )
                or b""
            )
            sandboxes = supervised.decode("utf-8", "replace").count(SANDBOX_ENDED)
            if starts > 1 or sandboxes > 1:
                outcome.duplicates[dispatch_id] = (
                    f"its agent started {starts} times, in {sandboxes} sandboxes"
                )
            recorded = RECORDED in text or dispatch.payload.get("result_evidence") is not None
            if dispatch.state == "cancelled":
                outcome.attempts_failed.append(f"{dispatch_id}: {dispatch.payload.get('reason')}")
            if recorded and dispatch.state != "resolved":
                outcome.lost.append(
                    f"{dispatch_id}: its result was recorded, the dispatch is {dispatch.state}"
                )
            ticket = all_tickets[ticket_id]
            if recorded and (ticket.state != "done" or ticket.payload.get("attempt") != attempt):
                outcome.lost.append(
                    f"{dispatch_id}: its result was recorded, its ticket is {ticket.state} "
                    f"(attempt {ticket.payload.get('attempt')}, the result's {attempt})"
                )
        for ticket_id, ticket in sorted(all_tickets.items()):
            if ticket.state != "done":
                outcome.lost.append(
                    f"{ticket_id}: ends {ticket.state} ({ticket.payload.get('reason')})"
                )
        workers = ws.store.records("worker")
        for worker_id in sorted(workers.ids()):
            worker = workers.read_if_exists(worker_id)
            if worker is None:
                outcome.left_running.append(
                    f"worker {worker_id}: its record has no version (a create cut short)"
                )
            elif worker.payload["health"] != "stopped":
                outcome.left_running.append(
                    f"worker {worker_id}: {worker.state}, {worker.payload['health']}"
                )
    outcome.left_running += [f"pane {name} (dead: {dead})" for name, dead in _panes(fleet)]
    outcome.left_running += [f"process {pid}: {line}" for pid, line in fleet_processes(fleet)]


def clean_up(fleet: Fleet) -> None:
    """End what the fleet left (its tmux server; then any of its sandboxes or supervisors, by
    pid)."""
    fleet.kill_tmux()
    with contextlib.suppress(AssertionError):
        poll(lambda: not fleet_processes(fleet), 10, "the fleet's processes to end")
    for pid, _ in fleet_processes(fleet):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
