"""The fleet chaos run (issue 24 item 7), shared by `tests/integration/test_fleet_chaos.py` (one
CI-sized run) and `bench/fleet_chaos_bench.py` (the soak: the same code, longer).

A real fleet (`tests/fleet.py`: git, oms's tmux server, panes, sandboxes) whose workers are the
scripted stand-in for Claude Code (`tests/chaos_agent.py`, installed as `claude` on the PATH of
the conductor under test): each talks to the model only through the real model proxy (its
dispatch's token, the door into its sandbox), and the upstream is the loopback model mock
(`tests/model_mock.py`), which keeps the wall time, text and status of every request it hears.
`oms conductor run --interval 1 --json` runs as a real process. For `seconds` a seeded RNG picks,
every `gap` seconds or so, one of:
- `proxy`: SIGKILL the model proxy (the conductor or the next launch starts it again);
- `conductor`: SIGKILL the conductor and start it again;
- `broker`: SIGKILL one worker's supervisor (its pane's first process: the sandbox's parent and its
  broker);
- `tmux`: SIGKILL oms's tmux server (every pane goes);
- `lapse`: the earliest lease runs out — `oms ticket expire` with a clock moved to that lease's
  expiry (the injectable clock: only that lease, and any as old, has run out);
- `cancel`: `oms dispatch cancel` of a running attempt;
- `storm`: the upstream answers its next requests with 429 (`retry-after`), a 429 storm.
Then the conductor works until the fleet settles, and everything is counted (`Outcome`):
- duplicate launches: an agent that found another agent of its dispatch or ticket alive (it takes
  an exclusive lock on each at start), or two dispatches for one attempt of a ticket (but for one
  cancelled before it was accepted: that attempt never launched, and is proposed again);
- lost results: a result recorded (its agent was told `result-received`, or result evidence) that
  is not its dispatch's resolution and its ticket's end;
- forwarded after the end: a request the upstream heard that its agent sent after its attempt ended
  or was fenced. The end is the earliest of: the time a lapse or cancel the run made returned; the
  `observed_at` of the dispatch's first version cancelled, rejected or resolved, or of its worker's
  first version stopped or parked, plus `WRITE_WINDOW_S` (a record's time is taken just before it
  is written: a request sent in between is still the attempt's);
- over budget: a dispatch whose upstream answers cost more than its budget and one answer;
- unsettled: a ticket neither done nor waiting for a person with a reason (blocked with a reason,
  or its worker parked with one), a worker neither stopped nor parked, a pane or sandbox left;
- `oms audit verify` not clean.
The seed is printed first: a failure reproduces with it (the schedule, not the machine's timing)."""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from oms.adapters import git
from oms.adapters.providers.claude import home as claude_home
from oms.canonical import add_ms, parse_ts
from oms.services.chain import dispatches, fence, tickets
from oms.services.workspace import Workspace
from oms.store import Record
from tests.fleet import Fleet, make_fleet
from tests.helpers import oms_command
from tests.model_mock import ModelMock, Script
from tests.proxy_rig import proxies_of
from tests.restart import clean_up, fleet_processes, poll

ROLE = "oms.ticket-executor"  # (in the default role policy)
PROVIDER = "chaos-up"
ANSWER_TOKENS = 15  # what one mock answer costs: 10 input + 5 output (tests/model_mock.py)
BUDGET_ANSWERS = 40  # a dispatch's token budget, in answers
WRITE_WINDOW_S = 0.5  # a record's observed_at is taken before it is written (see the docstring)
RETRY_AFTER_S = 2
PROCESS_END_S = 30  # a supervisor whose worker's end is recorded may still be salvaging, no longer
ACTIONS = ("proxy", "conductor", "broker", "tmux", "lapse", "cancel", "storm")
SENT = re.compile(r"chaos (\S+) sent (\d+\.\d+) turn (\d+)")
REAL_KEY = "sk-ant-chaos-real-key-held-by-the-proxy"
OVER = ("cancelled", "rejected", "resolved")


@dataclass
class Outcome:
    """What a chaos run counted (see the module's docstring)."""

    seed: int
    actions: dict[str, int] = field(default_factory=dict)
    requests: int = 0
    forwarded: int = 0
    refused_429: int = 0
    dispatches: int = 0
    launches: int = 0
    results: int = 0
    done: int = 0
    waiting: list[str] = field(
        default_factory=list
    )  # tickets waiting for a person, with the reason
    duplicates: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    after_end: list[str] = field(default_factory=list)
    over_budget: list[str] = field(default_factory=list)
    overshoot_answers: int = 0  # the most answers any dispatch got past its budget
    unsettled: list[str] = field(default_factory=list)
    audit: str = ""
    seconds: float = 0.0
    time_to_done: list[float] = field(default_factory=list)  # ticket added -> done, seconds

    def bad(self) -> list[str]:
        out = self.duplicates + self.lost + self.after_end + self.over_budget + self.unsettled
        return out + ([f"oms audit verify: {self.audit}"] if self.audit else [])

    def to_json(self) -> dict[str, object]:
        ordered = sorted(self.time_to_done)
        return {
            "seed": self.seed,
            "actions": self.actions,
            "requests": self.requests,
            "forwarded": self.forwarded,
            "upstream_429": self.refused_429,
            "dispatches": self.dispatches,
            "launches": self.launches,
            "results": self.results,
            "done": self.done,
            "waiting_for_a_person": self.waiting,
            "duplicates": len(self.duplicates),
            "lost": len(self.lost),
            "forwarded_after_end": len(self.after_end),
            "over_budget": len(self.over_budget),
            "overshoot_answers": self.overshoot_answers,
            "unsettled": len(self.unsettled),
            "seconds": round(self.seconds, 1),
            "time_to_done_p50": round(statistics.median(ordered), 1) if ordered else None,
            "time_to_done_p95": round(_nearest_rank(ordered, 0.95), 1) if ordered else None,
            "violations": self.bad(),
        }


@dataclass
class ChaosFleet:
    """The fleet, its upstream and the conductor's environment."""

    fleet: Fleet
    mock: ModelMock
    env: dict[str, str]
    added: dict[str, float] = field(default_factory=dict)  # ticket -> time.time() it was added
    ends: dict[str, float] = field(default_factory=dict)  # dispatch -> when the run ended/fenced it
    tickets_n: int = 0
    log: list[str] = field(default_factory=list)


def prepare(base: Path, *, tickets_n: int, max_workers: int, seed: int) -> Iterator[ChaosFleet]:
    """The fleet in `base` with `tickets_n` tickets (turns 1-8 each, one in ten over its budget,
    from `seed`). Closing the generator ends what it left."""
    mock = ModelMock(Script([])).start()
    fleets = make_fleet(base, after="exit", max_workers=max_workers)
    fleet = next(fleets)
    try:
        tools = base / "bin"
        (tools / "locks").mkdir(parents=True)
        agent = tools / "claude"
        shutil.copyfile(Path(__file__).with_name("chaos_agent.py"), agent)
        agent.chmod(0o755)
        config = Path(fleet.repo, ".oms/config.toml")
        body = config.read_text().replace('role = "oms.command-executor"', f'role = "{ROLE}"', 1)
        body += (
            f'\n[roles."{ROLE}"]\nmodel = "claude-test"\ntransport = "claude_interactive"\n'
            f'sandbox = "ticket-worktree-write"\ntoken_budget = {BUDGET_ANSWERS * ANSWER_TOKENS}\n'
            f'\n[providers.{PROVIDER}]\nfamily = "anthropic"\nendpoint = "{mock.base}"\n'
        )
        config.write_text(body)
        git.commit_all(fleet.repo, "the chaos fleet's role and provider")
        env = dict(os.environ, PATH=f"{tools}:{os.environ['PATH']}", ANTHROPIC_API_KEY=REAL_KEY)
        chaos = ChaosFleet(fleet, mock, env)
        rng = random.Random(seed)
        for _ in range(tickets_n):
            _add(chaos, rng)
        yield chaos
    finally:
        clean_up(fleet)
        _end_the_fleets_servers(fleet)
        mock.stop()
        with contextlib.suppress(StopIteration):
            next(fleets)


def _end_the_fleets_servers(fleet: Fleet) -> None:
    """SIGKILL a conductor or proxy of this fleet still running: a run that stopped on an error
    never reached its own end (a soak's first run left its proxy serving for an hour)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            if str(fleet.base) in line and ("proxy serve" in line or "conductor run" in line):
                _kill_if(int(entry.name), str(fleet.base))


def _add(chaos: ChaosFleet, rng: random.Random, over: bool = True) -> None:
    """One more ticket: 1-8 turns, or (one in ten, if `over`) more than its budget allows (its
    worker parks: it holds its pool slot until a person comes, so a soak adds no more of them)."""
    n = chaos.tickets_n
    chaos.tickets_n += 1
    Path(chaos.fleet.base, "bin", "locks", f"{n:02d}").write_bytes(b"")
    turns = BUDGET_ANSWERS + 5 if over and rng.random() < 0.1 else rng.randint(1, 8)
    with chaos.fleet.workspace() as ws:
        rec = tickets.add(ws, f"Ticket {n:02d} turns {turns}", "do it", None)
    chaos.added[rec.record_id] = time.time()


def _feed(chaos: ChaosFleet, rng: random.Random, keep: int) -> None:
    """Tickets added until `keep` are neither done nor waiting for a person."""
    with chaos.fleet.workspace() as ws:
        working = sum(1 for t in tickets.list_all(ws) if t.state in ("open", "leased"))
    for _ in range(keep - working):
        _add(chaos, rng, over=False)


class Conductor:
    """`oms conductor run --interval 1 --json` as a real process, restarted after each kill."""

    def __init__(self, chaos: ChaosFleet) -> None:
        self.chaos = chaos
        self.runs = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.dir = Path(chaos.fleet.base, "runs")
        self.dir.mkdir(exist_ok=True)

    def start(self) -> None:
        fleet = self.chaos.fleet
        argv = [*oms_command().argv, "conductor", "run", "--interval", "1", "--json"]
        argv += ["--state-root", fleet.state, "--config-root", fleet.repo]
        out = self.dir / f"run-{self.runs:03d}.jsonl"
        self.runs += 1
        with out.open("wb") as stdout, out.with_suffix(".err").open("wb") as stderr:
            self.proc = subprocess.Popen(
                argv, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL, env=self.chaos.env
            )

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)
            self.proc = None

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def said_of(self, record_id: str, last: int = 6) -> list[str]:
        """The last `last` lines the conductor's ticks wrote that name `record_id` (what it did or
        skipped of it), each with its run's file: what a fleet that did not settle is read by."""
        found: list[str] = []
        for path in sorted(self.dir.glob("run-*.jsonl")):
            for line in path.read_bytes().split(b"\n")[:-1]:
                with contextlib.suppress(ValueError, AttributeError, TypeError):
                    for phase in json.loads(line).get("phases", []):
                        said = [*phase.get("done", []), *phase.get("skipped", [])]
                        name = f"{path.name} {phase.get('phase')}"
                        found.extend(f"{name}: {x}" for x in said if record_id in x)
        return found[-last:]

    def failures(self) -> list[str]:
        out = []
        for path in sorted(self.dir.glob("run-*.jsonl")):
            for line in path.read_bytes().split(b"\n")[:-1]:
                with contextlib.suppress(ValueError):
                    event = json.loads(line)
                    if event.get("type") == "tick-failed":
                        out.append(f"{path.name}: {event.get('error')}")
        return out


def run(
    chaos: ChaosFleet, *, seed: int, seconds: float, gap: float, settle_s: float, feed: int = 0
) -> Outcome:
    """The chaos for `seconds` (an action every `gap` seconds or so; `feed`: keep at least that many
    tickets not done, adding new ones, for a soak), then until the fleet settles (at most
    `settle_s`); what was counted."""
    outcome = Outcome(seed)
    rng = random.Random(seed)
    began = time.monotonic()
    feed_rng = random.Random(
        seed + 1
    )  # (tickets come from their own sequence: the schedule stays the seed's)
    conductor = Conductor(chaos)
    conductor.start()
    try:
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            with contextlib.suppress(subprocess.TimeoutExpired):  # the chaos's own pace
                assert conductor.proc is not None
                conductor.proc.wait(timeout=rng.uniform(0.5, 2 * gap))
            if feed:
                _feed(chaos, feed_rng, feed)
            action = rng.choice(ACTIONS)
            if act(chaos, conductor, action, rng):
                outcome.actions[action] = outcome.actions.get(action, 0) + 1
            if conductor.proc is None or conductor.proc.poll() is not None:
                conductor.start()
        try:
            poll(lambda: _settled(chaos), settle_s, "the fleet to settle", 0.5)
        except AssertionError as exc:
            outcome.unsettled.append(f"{exc}: {_unsettled(chaos)[:8]}")
            try:
                outcome.unsettled += _why_unsettled(chaos, conductor)
            except Exception as exc:  # a reading aid: never the failure itself
                outcome.unsettled.append(f"  (what was read of it failed: {exc!r})")
    finally:
        conductor.stop()
    outcome.seconds = time.monotonic() - began
    outcome.unsettled += [f"a tick failed: {line}" for line in conductor.failures()[:5]]
    count(chaos, outcome)
    return outcome


def act(chaos: ChaosFleet, conductor: Conductor, action: str, rng: random.Random) -> bool:
    """One chaos action; False if it found nothing to act on."""
    fleet = chaos.fleet
    if action == "conductor":
        conductor.kill()
        conductor.start()
        return True
    if action == "proxy":
        with fleet.workspace() as ws:
            raw = ws.store.state.root.read_optional("proxy/proxy.json", 1 << 16)
        if raw is None:
            return False
        return _kill_if(int(json.loads(raw)["pid"]), "proxy serve")
    if action == "broker":
        supervisors = [pid for pid, line in fleet_processes(fleet) if "worker supervise" in line]
        return bool(supervisors) and _kill_if(rng.choice(sorted(supervisors)), "worker supervise")
    if action == "tmux":
        shown = subprocess.run(
            ["tmux", "-S", f"{fleet.state}/tmux.sock", "display-message", "-p", "#{pid}"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        return shown.returncode == 0 and _kill_if(int(shown.stdout.strip()), "tmux")
    if action == "storm":
        failure = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
        with chaos.mock._lock:
            chaos.mock.fail.extend(
                [(429, failure, {"retry-after": str(RETRY_AFTER_S)})] * rng.randint(3, 12)
            )
        return True
    if action == "lapse":
        return _lapse(chaos)
    if action == "cancel":
        return _cancel(chaos, rng)
    raise ValueError(action)


def _dispatch_of(pid: int) -> str | None:
    """The dispatch whose supervisor `pid` is, or descends from (None: none)."""
    for _ in range(4):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return None
        if b"--dispatch-id" in argv and b"supervise" in argv:
            return argv[argv.index(b"--dispatch-id") + 1].decode()
        pid = int(re.search(r"PPid:\s+(\d+)", status)[1])  # type: ignore[index]
    return None


def _kill_if(pid: int, marker: str) -> bool:
    """SIGKILL `pid` if its command line still names `marker` (a pid is not reused under us)."""
    try:
        line = (
            Path(f"/proc/{pid}/cmdline")
            .read_bytes()
            .replace(b"\0", b" ")
            .decode("utf-8", "replace")
        )
    except OSError:
        return False
    if marker not in line:
        return False
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    return True


def _lapse(chaos: ChaosFleet) -> bool:
    """`oms ticket expire` at the earliest lease's expiry: that lease runs out (and any as old)."""
    fleet = chaos.fleet
    with fleet.workspace() as ws:
        leased = [t for t in tickets.list_all(ws) if t.state == "leased"]
        latest = _current(ws)
    if not leased:
        return False
    expired: list[Record] = []
    for due in sorted({str(t.payload["lease_expires_at"]) for t in leased})[
        :3
    ]:  # (one may be kept)
        with Workspace.open(fleet.state, fleet.repo, clock=functools.partial(add_ms, due, 1)) as ws:
            expired, _parked = fence.expire_leases(ws)
        if expired:
            break
    when = time.time()
    for ticket in expired:
        dispatch = latest.get(ticket.record_id)
        if dispatch is not None:
            chaos.ends.setdefault(dispatch.record_id, when)
    chaos.log.append(f"lapse {[t.record_id for t in expired]} at {when:.3f}")
    return bool(expired)


def _cancel(chaos: ChaosFleet, rng: random.Random) -> bool:
    with chaos.fleet.workspace() as ws:
        running = sorted(
            d.record_id for d in _dispatches(ws) if d.state in ("accepted", "acknowledged")
        )
        if not running:
            return False
        dispatch_id = rng.choice(running)
        with contextlib.suppress(Exception):
            dispatches.cancel(ws, dispatch_id, "cancelled by the chaos run")
            when = time.time()
            chaos.ends.setdefault(dispatch_id, when)
            chaos.log.append(f"cancel {dispatch_id} at {when:.3f}")
            return True
    return False


def _never_accepted(dispatch: Record) -> bool:
    """A dispatch cancelled before it was accepted (no delivery event): a provider put to rest or
    a configuration fault found at its accept (ADR 0043, amendment `cross5`; ADR 0031). Its
    attempt never launched, its ticket waits, and the same attempt is proposed again: a second
    dispatch of that attempt is no second launch."""
    return dispatch.state == "cancelled" and not dispatch.payload.get("delivery_event_id")


def _current(ws: Workspace) -> dict[str, Record]:
    """Each ticket's current dispatch (`current_dispatches`)."""
    sessions = {t.record_id: t.payload.get("session_id") for t in tickets.list_all(ws)}
    return current_dispatches(sessions, _dispatches(ws))


def current_dispatches(
    sessions: Mapping[str, object], dispatches: list[Record]
) -> dict[str, Record]:
    """Each ticket's current dispatch, of `dispatches` in ticket and attempt order: the one of the
    session the ticket names (`sessions`; two can share an attempt: one proposed while its provider
    rested, never accepted, and the next); of a ticket that names none, its last."""
    current: dict[str, Record] = {}
    for d in dispatches:
        ticket_id = str(d.payload["ticket_id"])
        held = current.get(ticket_id)
        if held is None or held.payload["session_id"] != sessions.get(ticket_id):
            current[ticket_id] = d
    return current


def _dispatches(ws: Workspace) -> list[Record]:
    """Every dispatch, by ticket and attempt (the last of a ticket's is its latest)."""
    records = ws.store.records("dispatch")
    found = [r for r in (records.read_if_exists(d) for d in records.ids()) if r is not None]
    return sorted(
        found, key=lambda r: (str(r.payload["ticket_id"]), int(str(r.payload["attempt"])))
    )


def _nearest_rank(ordered: list[float], fraction: float) -> float:
    """The nearest-rank percentile of sorted values (never below the median: two values give the
    larger)."""
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def _workers(ws: Workspace) -> dict[str, Record | None]:
    records = ws.store.records("worker")
    return {w: records.read_if_exists(w) for w in records.ids()}


def _unsettled(chaos: ChaosFleet) -> list[str]:
    """Why the fleet has not settled (empty: it has)."""
    fleet = chaos.fleet
    out = []
    with fleet.workspace() as ws:
        workers = _workers(ws)
        for worker_id, worker in sorted(workers.items()):
            if worker is None:
                out.append(f"worker {worker_id}: no version")
                continue
            health = worker.payload["health"]
            if health not in ("stopped", "parked"):
                out.append(f"worker {worker_id}: {worker.state}/{health}")
        latest = _current(ws)
        for ticket in tickets.list_all(ws):
            if ticket.state == "done":
                continue
            if ticket.state == "blocked" and ticket.payload.get("reason"):
                continue
            if _parked_reason(ticket, latest, workers):
                continue
            out.append(f"ticket {ticket.record_id}: {ticket.state}")
    return out


def _parked_reason(
    ticket: Record, latest: dict[str, Record], workers: dict[str, Record | None]
) -> str:
    """Why a leased ticket's current attempt waits for a person: its worker is parked, with a
    reason ("" if it does not wait)."""
    dispatch = latest.get(ticket.record_id)
    if (
        ticket.state != "leased"
        or dispatch is None
        or dispatch.payload["attempt"] != ticket.payload.get("attempt")
    ):
        return ""
    worker = workers.get(dispatch.record_id)
    payload = worker.payload if worker is not None else {}
    return str(payload.get("health_reason") or "") if payload.get("health") == "parked" else ""


def _worker_of(ticket: Record, latest: dict[str, Record], workers: dict[str, Record | None]) -> str:
    """What a ticket that is neither done nor blocked waits on: its worker parked, with the reason
    (issue 24's soak said "its worker parked: " of workers that were working)."""
    reason = _parked_reason(ticket, latest, workers)
    if reason:
        return f"its worker parked: {reason}"
    dispatch = latest.get(ticket.record_id)
    worker = workers.get(dispatch.record_id) if dispatch is not None else None
    if worker is None:
        return "no worker"
    payload = worker.payload
    why = f" ({payload.get('health_reason')})" if payload.get("health_reason") else ""
    return f"its worker {worker.record_id} is {worker.state}/{payload.get('health')}{why}"


def _why_unsettled(chaos: ChaosFleet, conductor: Conductor) -> list[str]:
    """For each unsettled ticket: its record, its dispatches and their workers, and what the
    conductor last said of it (a failure is read by these, its run's files being gone)."""
    out = []
    with chaos.fleet.workspace() as ws:
        workers = _workers(ws)
        for line in _unsettled(chaos):
            ticket_id = line.split()[1].rstrip(":") if line.startswith("ticket ") else None
            if ticket_id is None:
                continue
            ticket = ws.store.records("ticket").read(ticket_id)
            keys = ("attempt", "worker_id", "session_id", "lease_expires_at", "reason")
            out.append(
                f"  {ticket_id} v{ticket.version} {ticket.state} "
                f"{ {k: ticket.payload.get(k) for k in keys} }"
            )
            for d in _dispatches(ws):
                if d.payload["ticket_id"] == ticket_id:
                    worker = workers.get(d.record_id)
                    health = None if worker is None else worker.payload.get("health")
                    out.append(
                        f"    {d.record_id} {d.state} attempt {d.payload['attempt']} "
                        f"session {d.payload['session_id']} worker {health}"
                    )
            out += [f"    said: {x}" for x in conductor.said_of(ticket_id)]
    return out


def _settled(chaos: ChaosFleet) -> bool:
    return not _unsettled(chaos)


def count(chaos: ChaosFleet, outcome: Outcome) -> None:
    """Everything the module's docstring lists, from the store, the agents' logs, the upstream."""
    fleet = chaos.fleet
    with fleet.workspace() as ws:
        all_tickets = {t.record_id: t for t in tickets.list_all(ws)}
        workers = _workers(ws)
        seen: dict[tuple[str, object], str] = {}
        ends = dict(chaos.ends)
        for dispatch in _dispatches(ws):
            d = dispatch
            dispatch_id = d.record_id
            payload = d.payload
            outcome.dispatches += 1
            ticket_id = str(payload["ticket_id"])
            key = (ticket_id, payload["attempt"])
            log = _log(ws, str(payload["session_id"]))
            outcome.launches += log.count("agent started")
            if not _never_accepted(d):  # (one never accepted left the attempt unlaunched)
                if key in seen:
                    outcome.duplicates.append(f"{ticket_id}: two dispatches for attempt {key[1]}")
                seen[key] = dispatch_id
            outcome.duplicates += [
                f"{dispatch_id}: {line}" for line in log.splitlines() if "DUPLICATE" in line
            ]
            recorded = (
                "record_dispatch_result: result-received" in log
                or payload.get("result_evidence") is not None
            )
            outcome.results += recorded
            ticket = all_tickets[ticket_id]
            if recorded and d.state != "resolved":
                outcome.lost.append(
                    f"{dispatch_id}: its result was recorded, the dispatch is {d.state}"
                )
            if recorded and (
                ticket.state not in ("done", "blocked")
                or ticket.payload.get("attempt") != payload["attempt"]
            ):
                outcome.lost.append(
                    f"{dispatch_id}: its result was recorded, its ticket is {ticket.state}"
                )
            recorded_end = _recorded_end(ws, dispatch_id)
            if recorded_end is not None:
                ends[dispatch_id] = min(ends.get(dispatch_id, recorded_end), recorded_end)
        resolved = {
            (str(r.payload["ticket_id"]), r.payload["attempt"]): r.record_id
            for r in _dispatches(ws)
            if r.state == "resolved"
        }
        for ticket_id, ticket in sorted(all_tickets.items()):
            won = resolved.get((ticket_id, ticket.payload.get("attempt")))
            if ticket.state == "done" and won is not None:
                outcome.done += 1
                at = _first(ws, "dispatch", won, lambda r: r.state == "resolved")
                if at is not None:  # (a lapse's clock moves the ticket's times, not the dispatch's)
                    outcome.time_to_done.append(at - WRITE_WINDOW_S - chaos.added[ticket_id])
        del workers
    outcome.waiting = _waiting(chaos)
    _count_requests(chaos, outcome, ends)
    with fleet.workspace() as ws:
        parked = {
            w
            for w, rec in _workers(ws).items()
            if rec is not None and rec.payload["health"] == "parked"
        }

    def outliving() -> list[
        tuple[int, str]
    ]:  # a parked worker's sandbox waits for a person, frozen
        return [
            (pid, line) for pid, line in fleet_processes(fleet) if _dispatch_of(pid) not in parked
        ]

    with contextlib.suppress(AssertionError):  # an ended worker's supervisor finishes its end first
        poll(lambda: not outliving(), PROCESS_END_S, "the ended workers' processes to exit", 0.2)
    outcome.unsettled += [f"process {pid}: {line}" for pid, line in outliving()]
    with contextlib.suppress(AssertionError):  # (a proxy being stopped: its record goes after it)
        poll(lambda: not proxy_violations(fleet.state), PROCESS_END_S, "one proxy only", 0.2)
    outcome.unsettled += proxy_violations(fleet.state)
    audit = subprocess.run(
        [*oms_command().argv, "audit", "verify", "--state-root", fleet.state,
         "--config-root", fleet.repo],
        capture_output=True, text=True, check=False, env=chaos.env,
    )  # fmt: skip
    if audit.returncode != 0:
        outcome.audit = (audit.stdout + audit.stderr).strip()[-2000:]


def proxy_violations(state_root: str) -> list[str]:
    """More than one model proxy alive for the state root, or one `proxy/proxy.json` does not
    name (issue 24's soak left 13, each holding doors the recorded one could not open)."""
    raw = None
    with contextlib.suppress(OSError):
        raw = Path(state_root, "proxy", "proxy.json").read_bytes()
    recorded = json.loads(raw).get("pid") if raw else None
    alive = proxies_of(state_root)
    out = [f"proxy {pid} serves {state_root}, not recorded" for pid in alive if pid != recorded]
    if len(alive) > 1:
        out.append(f"{len(alive)} proxies serve one state root: {alive}")
    return out


def _waiting(chaos: ChaosFleet) -> list[str]:
    out = []
    with chaos.fleet.workspace() as ws:
        workers = _workers(ws)
        latest = _current(ws)
        for ticket in tickets.list_all(ws):
            if ticket.state == "blocked":
                out.append(f"{ticket.record_id}: blocked: {ticket.payload.get('reason')}")
            elif ticket.state != "done":
                waits = _worker_of(ticket, latest, workers)
                out.append(f"{ticket.record_id}: {ticket.state}, {waits}")
    return out


def _recorded_end(ws: Workspace, dispatch_id: str) -> float | None:
    """The earliest time (wall clock, seconds) a record says the attempt is over or fenced, plus
    the write window; None if none does."""
    over = _first(ws, "dispatch", dispatch_id, lambda r: r.state in OVER)
    ended = _first(
        ws, "worker", dispatch_id, lambda r: r.payload.get("health") in ("stopped", "parked")
    )
    times = [t for t in (over, ended) if t is not None]
    return min(times) if times else None


def _first(
    ws: Workspace, kind: str, record_id: str, holds: Callable[[Record], bool]
) -> float | None:
    """The `observed_at` (seconds) of a record's first version for which `holds`, plus the write
    window (None: none)."""
    records = ws.store.records(kind)
    if records.read_if_exists(record_id) is None:
        return None
    for rec in records.history(record_id):
        if holds(rec):
            return parse_ts(rec.observed_at) / 1000 + WRITE_WINDOW_S
    return None


def _log(ws: Workspace, session_id: str) -> str:
    rel = f"{claude_home(session_id)}/worker.log"
    raw = ws.store.sandboxes().read_optional(rel, 1 << 22, any_mode=True) or b""
    return raw.decode("utf-8", "replace")


def _count_requests(chaos: ChaosFleet, outcome: Outcome, ends: dict[str, float]) -> None:
    billed: dict[str, int] = {}
    with chaos.mock._lock:
        arrivals = list(chaos.mock.arrivals)
    for heard, text, status in arrivals:
        outcome.requests += 1
        if status == 429:
            outcome.refused_429 += 1
            continue
        outcome.forwarded += 1
        found = SENT.search(text)
        if found is None:
            continue
        dispatch_id, sent = found[1], float(found[2])
        billed[dispatch_id] = billed.get(dispatch_id, 0) + ANSWER_TOKENS
        end = ends.get(dispatch_id)
        if end is not None and sent > end:
            outcome.after_end.append(
                f"{dispatch_id}: a request sent {sent - end:.3f} s after its end was forwarded "
                f"(heard {heard - end:.3f} s after it)"
            )
    budget = BUDGET_ANSWERS * ANSWER_TOKENS
    for dispatch_id, tokens in sorted(billed.items()):
        over = (tokens - budget) // ANSWER_TOKENS
        outcome.overshoot_answers = max(outcome.overshoot_answers, over)
        if tokens > budget + ANSWER_TOKENS:
            outcome.over_budget.append(
                f"{dispatch_id}: {tokens} tokens billed against a budget of {budget}"
            )
