"""Three hosts on one etcd cluster under faults (issue 28; ADR 0043, amendment `hosts3`), shared by
`tests/integration/etcd/test_hosts_chaos.py` (one CI-sized run) and `bench/hosts_chaos_bench.py`
(the soak: 60 tickets).

The rig (`tests/hosts_rig.py`): each host a network namespace with its own state root, settings,
clone and `oms conductor run --interval 1 --json`; the worker the demo's command worker, its first
act to log `agent started` in its private home (which outlives its pane: a second start of one
dispatch's agent on any host appends a second line to a log of that dispatch). Tickets are added
from every host in turn. For `seconds` a seeded RNG picks, every `gap` seconds or so, one of:
- `conductor`: SIGKILL a host's conductor and start it again;
- `deliverer`: SIGKILL a host's `oms worker deliver` in flight (if one is);
- `broker`: SIGKILL a host's `oms worker supervise` (its pane's first process: the sandbox's
  parent and broker);
- `member`: SIGKILL an etcd member and start it again a gap later;
- `partition`: cut a host's link for longer than its conductor lock's lease
  (`LIMITS.etcd_lock_ttl_s` + `PARTITION_MARGIN_S`), then heal it — once a run;
- `clock`: step the stepped host's wall clock ahead by two hours (`Host.step_clock`) — once a run.
A partition or a clock step the draw did not pick is made after the last action.
A conductor that ended — one started while its killed predecessor's lock still held exits
`lock-held` instead of waiting (`oms conductor run`), one whose lock lapsed ends on it — is started
again at each action and while the hosts settle. Then the conductors work until every ticket is
done or waits for a person, and it is counted:
- duplicate launches: a dispatch whose agent logged `agent started` more than once, on all hosts;
- lost results: a dispatch whose agent was told `result-received` that is not resolved and its
  ticket's end;
- fenced: a dispatch version written under a conductor lock after that lock's lease was gone (the
  partitioned host's: the versions its conductor wrote after it was cut off longer than its lease
  and before it took a new lock) — read from each version's `actor` and the partition's window;
- unsettled: a ticket neither done nor waiting for a person with a reason;
- `oms audit verify` not clean on any host.
The seed is printed first: a failure reproduces with it (the schedule, not the machine's timing)."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from oms.adapters.providers.command import home
from oms.limits import LIMITS
from oms.services.chain import tickets
from oms.services.workspace import Workspace
from tests.etcd_cluster import Cluster, settings_of
from tests.helpers import eventually
from tests.hosts_rig import Host, Rig
from tests.restart import RECORDED, STARTED

ACTIONS = ("conductor", "deliverer", "broker", "member", "partition", "clock")
PARTITION_MARGIN_S = 5.0
STEP_S = 2 * 3600


@dataclass
class Outcome:
    """What a run counted (the module's docstring)."""

    seed: int
    actions: dict[str, int] = field(default_factory=dict)
    tickets: int = 0
    dispatches: int = 0
    launches: int = 0
    done: int = 0
    waiting: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    unfenced: list[str] = field(default_factory=list)
    unsettled: list[str] = field(default_factory=list)
    audit: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def bad(self) -> list[str]:
        return self.duplicates + self.lost + self.unfenced + self.unsettled + self.audit

    def to_json(self) -> dict[str, object]:
        return {
            "seed": self.seed,
            "actions": self.actions,
            "tickets": self.tickets,
            "dispatches": self.dispatches,
            "launches": self.launches,
            "done": self.done,
            "waiting_for_a_person": self.waiting,
            "duplicates": len(self.duplicates),
            "lost": len(self.lost),
            "unfenced": len(self.unfenced),
            "unsettled": len(self.unsettled),
            "audit": self.audit,
            "seconds": round(self.seconds, 1),
        }


def log_starts(rig: Rig) -> None:
    """The rig's worker logs `agent started` first (the script every host's role runs)."""
    script = Path(rig.base, "seed", "worker.sh")
    text = script.read_text()
    started = 'initialize=\'{"jsonrpc"'
    assert started in text
    script.write_text(text.replace(started, f'say "{STARTED}"\n{started}', 1))


def _processes(host: Host, needle: str) -> list[int]:
    """Pids of this host's processes whose command line holds `needle` and its state root."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if needle in line and str(host.state) in line:
            out.append(int(entry.name))
    return out


@dataclass
class Window:
    """A partition: the host, when its lock's lease was surely gone, when it was healed."""

    host: str
    lapsed_at: str = ""
    healed_at: str = ""


MIN_ACTIONS = 5  # faults a run makes at least (the test asks for them)


def run(
    rig: Rig, cluster: Cluster, *, seed: int, tickets_n: int, seconds: float, gap: float,
    settle_s: float,
) -> Outcome:  # fmt: skip
    rng = random.Random(seed)
    outcome = Outcome(seed)
    started = time.monotonic()
    hosts = list(rig.hosts.values())
    log_starts(rig)
    for n in range(tickets_n):
        host = hosts[n % len(hosts)]
        done = host.oms("ticket", "add", "--title", f"Ticket {n:02d}", "--body", "do it")
        assert done.returncode == 0, done.stdout + done.stderr
    outcome.tickets = tickets_n
    conductors = {h.name: h.start_conductor() for h in hosts}
    windows: list[Window] = []
    once: set[str] = set()
    stopped_member = None
    deadline = time.monotonic() + seconds
    # the draw's time, and at least MIN_ACTIONS faults whatever it drew (a partition alone takes
    # a lease and more), never past twice the time
    hard = time.monotonic() + 2 * seconds
    while time.monotonic() < deadline or (
        sum(outcome.actions.values()) < MIN_ACTIONS and time.monotonic() < hard
    ):
        time.sleep(rng.uniform(0.5 * gap, 1.5 * gap))
        action = rng.choice([a for a in ACTIONS if a not in once])
        host = rng.choice(hosts)
        outcome.actions[action] = outcome.actions.get(action, 0) + 1
        _revive(hosts, conductors)
        if stopped_member is not None:  # a member killed at the last action starts again
            cluster.restart(stopped_member)
            stopped_member = None
        if action == "conductor":
            host.kill(conductors[host.name])
            conductors[host.name] = host.start_conductor()
        elif action in ("deliverer", "broker"):
            needle = "worker deliver" if action == "deliverer" else "worker supervise"
            for pid in _processes(host, needle)[:1]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        elif action == "member":
            stopped_member = rng.choice([m for m in cluster.members if m.proc is not None])
            cluster.kill(stopped_member)
        elif action in ("partition", "clock"):
            once.add(action)
            _fault(rig, host, action, windows)
    if stopped_member is not None:
        cluster.restart(stopped_member)
    for action in ("partition", "clock"):  # each once a run, whatever the draw
        if action not in once:
            outcome.actions[action] = outcome.actions.get(action, 0) + 1
            _fault(rig, rng.choice(hosts), action, windows)
    cluster.wait_healthy()

    def settled() -> bool:
        _revive(hosts, conductors)
        return _settled(rig)

    with contextlib.suppress(AssertionError):
        eventually(settled, timeout=settle_s, what="the hosts settle")
    outcome.seconds = time.monotonic() - started
    count(rig, outcome, windows)
    for host in hosts:
        host.kill(conductors[host.name])
    return outcome


def _fault(rig: Rig, host: Host, action: str, windows: list[Window]) -> None:
    """A partition of `host` longer than its lock's lease, healed; or the stepped host's clock
    moved two hours ahead."""
    if action == "clock":
        stepped = [h for h in rig.hosts.values() if h.stepped]
        for each in stepped[:1]:
            each.step_clock(STEP_S)
        return
    window = Window(host.name)
    rig.network.cut(host.name)
    time.sleep(LIMITS.etcd_lock_ttl_s + PARTITION_MARGIN_S)
    window.lapsed_at = _cluster_now(rig)
    rig.network.heal(host.name)
    window.healed_at = _cluster_now(rig)
    windows.append(window)


def _revive(hosts: list[Host], conductors: dict[str, subprocess.Popen[bytes]]) -> None:
    """Start again a host's conductor that ended: one started while its killed predecessor's
    lock still held (`lock-held`, until that lease lapses), or one that ended on a lost lock."""
    for host in hosts:
        if conductors[host.name].poll() is not None:
            host.kill(conductors[host.name])
            conductors[host.name] = host.start_conductor()


@contextlib.contextmanager
def _workspace(host: Host) -> Iterator[Workspace]:
    """`host`'s workspace on the cluster, opened in this process with that host's own settings
    (where its cluster and the other hosts' keys are pinned)."""
    with (
        settings_of(host.config_home),
        Workspace.open(str(host.state), str(host.repo), etcd=True) as ws,
    ):
        yield ws


def _cluster_now(rig: Rig) -> str:
    host = next(iter(rig.hosts.values()))
    with _workspace(host) as ws:
        return ws.now()


def _tickets(rig: Rig) -> dict[str, tuple[str, dict[str, object]]]:
    host = next(iter(rig.hosts.values()))
    with _workspace(host) as ws:
        return {t.record_id: (t.state, dict(t.payload)) for t in tickets.list_all(ws)}


def _settled(rig: Rig) -> bool:
    for state, payload in _tickets(rig).values():
        if state == "done":
            continue
        if state == "blocked" and payload.get("reason"):
            continue
        return False
    return True


def count(rig: Rig, outcome: Outcome, windows: list[Window]) -> None:
    """Duplicates, lost and unfenced results, the unsettled, and each host's audit."""
    starts: dict[str, int] = {}
    recorded: set[str] = set()
    first = next(iter(rig.hosts.values()))
    for host in rig.hosts.values():
        with _workspace(host) as ws:
            for dispatch_id in ws.store.records("dispatch").ids():
                dispatch = ws.store.records("dispatch").read(dispatch_id)
                rel = f"{home(str(dispatch.payload['session_id']))}/worker.log"
                log = ws.store.sandboxes().read_optional(rel, 1 << 20, any_mode=True) or b""
                text = log.decode("utf-8", "replace")
                starts[dispatch_id] = starts.get(dispatch_id, 0) + text.count(STARTED)
                if RECORDED in text:
                    recorded.add(dispatch_id)
    outcome.launches = sum(starts.values())
    outcome.duplicates = [f"{d}: its agent started {n} times" for d, n in starts.items() if n > 1]
    with _workspace(first) as ws:
        records = ws.store.records("dispatch")
        all_tickets = {t.record_id: t for t in tickets.list_all(ws)}
        for dispatch_id in records.ids():
            outcome.dispatches += 1
            dispatch = records.read(dispatch_id)
            ticket = all_tickets[str(dispatch.payload["ticket_id"])]
            if dispatch_id in recorded and (dispatch.state != "resolved" or ticket.state != "done"):
                outcome.lost.append(f"{dispatch_id}: result recorded, {dispatch.state}")
            for window in windows:
                for version in records.history(dispatch_id):
                    late = window.lapsed_at <= version.observed_at <= window.healed_at
                    if late and window.host in version.actor:
                        outcome.unfenced.append(f"{dispatch_id} v{version.version}: {window}")
        for ticket_id, ticket in all_tickets.items():
            if ticket.state == "done":
                outcome.done += 1
            elif ticket.state == "blocked" and ticket.payload.get("reason"):
                failures = ticket.payload.get("failures")
                each = [
                    f"attempt {f.get('attempt')}: {f.get('reason')}"
                    for f in (failures if isinstance(failures, list) else [])
                    if isinstance(f, dict)
                ]  # what each failure was, for a person reading the soak's outcome
                outcome.waiting.append(f"{ticket_id}: {ticket.payload['reason']} {each}")
            else:
                outcome.unsettled.append(f"{ticket_id}: {ticket.state}")
    for host in rig.hosts.values():
        done = host.oms("audit", "verify")
        if done.returncode != 0:
            outcome.audit.append(f"{host.name}: {(done.stdout + done.stderr).strip()[:500]}")


def dumps(outcome: Outcome) -> str:
    return json.dumps(outcome.to_json(), sort_keys=True)
