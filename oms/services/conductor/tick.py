"""`oms conductor tick`: one idempotent pass over the fleet (ADR 0016; rules in
`domain/conductor.py`).

Phases, in `PHASES`'s order, each timed and reported, each item on its own (one bad ticket or
worker is a line in the report, never the end of the pass). Where each lives is named below: a
module of this package, `notify/notices.py`, or a function of this one (reconcile, expire, close,
compact, checkpoint). This list is the one place that says what each does; `oms conductor tick
--help` and README's tour only name them, and `tests/unit/services/test_conductor_phases.py`
holds this list, those two and the `run` calls of `_phases` to `PHASES`
(docs/architecture.md "How to add a conductor phase"):
1. reconcile — every worker against one `tmux list-panes`: alive, pane dead, pane gone, not started;
   an ended pane ends its session and worker with its end reason; a tagged pane with no worker
   record is reported, never touched;
2. expire — tickets whose lease ran out go back to `open` (attempt + 1);
3. deadlines — leases renewed under running pool workers, fenced attempts and silent channels park,
   a session past its heartbeat deadline is `stalled`, a worker past its role's wall-clock limit is
   stopped (`deadline`; one a forced drain holds parked gives its ticket back, nothing counted), a
   worker running on in a forced slot parks (`deadlines.py`);
4. providers — the model proxy kept running while workers need it, every quota probe read once,
   running workers of a provider that ran out parked until its reset, and those over their token
   budget (`quota.phase`, ADR 0019);
5. resume — workers parked until a time that has come, none of a forced slot; those a forced drain
   that is over parked, at once (`work.resume_due`);
6. deliver — accepted dispatches whose delivery event has no receipt (`oms worker deliver`'s own
   path), and a launched attempt's event a killed deliverer left without one (closed: `recovered`);
7. resolve — results decide their tickets; workers that ended without one are failed attempts
   (`resolve.py`);
8. fill — free pool slots take open tickets: lease → worktree → propose → review → accept → deliver,
   none of it while a launch check fails (`services/conductor/preflight.py`: the ticket waits for a
   person, ADR 0031);
9. close — dead panes of ended workers, only oms's own: the pane the worker's registry names; a pool
   worker still running two minutes after its result was acted on is stopped;
10. notify — tickets done, blocked or waiting for a person and workers parked since they were last
   looked at are notified to the `[notify]` commands, each once, by a detached child the tick does
   not wait on (`services/notify/notices.py`, ADR 0036);
11. compact — ended tickets whose `[retention] compact_after_days` ran out, a few a tick
   (`admin/compaction.py`);
12. checkpoint — the ledger's head signed and anchored outside the state root (ADR 0022, 0027).

A tick refuses to start on a state root its anchor shows was rolled back (ADR 0027).

A conductor acts only on its own host's workers (ADR 0043, amendment `hosts`;
`resolve.own_workers`): reconcile, deadlines, resume, deliver and close pass over a worker whose
record names another host (its pane is there). Each tick first renews this host's heartbeat once a
third of its lease has gone (`store/hosts.py`): a host whose heartbeat lapsed is `unreachable` in
`oms status`.

Only one conductor works on a state root: the tick holds the conductor lock (`oms conductor run`
holds it for its whole life), and every launch still takes the deliverer's own lock. On an etcd
store the lock is this host's (`HostLock`, ADR 0043 amendment `etcdhost`): one conductor per host,
under a lease, its fence carried by the tick's record writes and heartbeat, and a tick whose lock
lapsed acts on nothing (`still_held`).
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING

from oms.adapters.panes import Pane
from oms.canonical import JsonObject, parse_ts, stable_id
from oms.domain import hosts as host_rules
from oms.errors import IntegrityError, LeaseError, LockHeldError, OmsError, one_line
from oms.limits import LIMITS
from oms.schemas.payloads import DispatchState, WorkerState
from oms.services.admin import compaction
from oms.services.chain import dispatches, tickets
from oms.services.conductor import deadlines as conductor_deadlines
from oms.services.conductor import doing
from oms.services.conductor import quota as conductor_providers
from oms.services.conductor import resolve as conductor_results
from oms.services.conductor import work as conductor_work
from oms.services.conductor.preflight import Preflight
from oms.services.conductor.resolve import ACTOR, latest, own_workers
from oms.services.delivery.interface import Panes
from oms.services.delivery.service import Delivery
from oms.services.notify import notices
from oms.services.workspace import Workspace
from oms.store import Record, panefiles
from oms.store import compaction as store_compaction
from oms.store.anchor import ROLLBACK_HINT
from oms.store.outbox import ProcessingLock
from oms.store.payloads import ticket_payload, worker_payload

if TYPE_CHECKING:
    from oms.adapters.etcd.store import EtcdStore, Keeper

LOCK_CONSUMER = "oms-conductor"


PHASES = (
    "reconcile",
    "expire",
    "deadlines",
    "providers",
    "resume",
    "deliver",
    "resolve",
    "fill",
    "close",
    "notify",
    "compact",
    "checkpoint",
)  # a tick's phases in the order it runs them (the module's docstring says what each does)


@dataclass
class Memory:
    """What a conductor remembers from one tick to the next (the loop keeps one for its life;
    `oms conductor tick` starts with a fresh one), each keyed by state root."""

    last_compact_ms: dict[str, int] = field(default_factory=dict)  # when it last looked (ws clock)
    anchored: dict[str, int] = field(default_factory=dict)  # the ledger entry it anchored last
    anchor_held: set[str] = field(default_factory=set)  # roots whose anchor it found on the ledger
    beats: dict[str, JsonObject] = field(default_factory=dict)  # (root, host) -> its last heartbeat


@dataclass
class Phase:
    """One phase of a tick: what it did (one line each) and what it skipped, and how long it
    took."""

    name: str
    ms: float = 0.0
    done: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def to_json(self) -> JsonObject:
        return {
            "phase": self.name,
            "ms": round(self.ms),
            "done": list(self.done),
            "skipped": list(self.skipped),
        }


@dataclass
class Tick:
    """A tick's report: its phases, and every worker's class (alive, pane-dead, pane-gone,
    not-started, ended) as reconcile found it."""

    started_at: str
    host: str = ""  # the host this conductor runs on: the only one whose workers it acts on
    phases: list[Phase] = field(default_factory=list)
    classes: dict[str, str] = field(default_factory=dict)
    unknown_panes: list[str] = field(default_factory=list)
    internal: list[str] = field(default_factory=list)  # phases an unexpected error stopped (a bug)

    def to_json(self) -> JsonObject:
        return {
            "started_at": self.started_at,
            "host": self.host,
            "ms": round(sum(p.ms for p in self.phases)),
            "phases": [p.to_json() for p in self.phases],
            "workers": dict(sorted(self.classes.items())),
            "unknown_panes": list(self.unknown_panes),
            "internal_errors": list(self.internal),
        }


class SeenPanes:
    """`Panes` whose `list` answers from one listing taken at the start of a tick (a tick asks tmux
    once); everything that acts (ensure, stop, keys) still goes to the server, and `fresh` is the
    server itself."""

    def __init__(self, panes: Panes, listed: list[Pane]) -> None:
        self.panes = panes.fresh()
        self.listed = listed

    def list(self) -> list[Pane]:
        return list(self.listed)

    def fresh(self) -> Panes:
        return self.panes

    def server_running(self) -> bool:
        return self.panes.server_running()

    def observe(self, dispatch_id: str) -> Pane | None:
        for pane in self.list():
            if pane.dispatch_id == dispatch_id and pane.session == dispatch_id:
                return pane
        return None

    def ensure(
        self, dispatch_id: str, *, argv: tuple[str, ...], cwd: str, create: bool = True
    ) -> tuple[str, Pane]:
        return self.panes.ensure(dispatch_id, argv=argv, cwd=cwd, create=create)

    def send_text(self, dispatch_id: str, text: str) -> None:
        self.panes.send_text(dispatch_id, text)

    def send_keys(self, dispatch_id: str, *keys: str) -> None:
        self.panes.send_keys(dispatch_id, *keys)

    def capture(self, dispatch_id: str) -> str:
        return self.panes.capture(dispatch_id)

    def stop(
        self, dispatch_id: str, *, quit_keys: tuple[tuple[str, ...], ...] = (), grace: float = 5.0
    ) -> bool:
        return self.panes.stop(dispatch_id, quit_keys=quit_keys, grace=grace)

    def close(self, dispatch_id: str) -> None:
        self.panes.close(dispatch_id)

    def group_ends(self, pgid: int, timeout: float = LIMITS.pane_group_end_s) -> bool:
        return self.panes.group_ends(pgid, timeout)

    def kill_server_if_idle(self) -> bool:
        return self.panes.kill_server_if_idle()

    def kill_server(self) -> None:
        self.panes.kill_server()


class HostLock:
    """The conductor's lock of this host on an etcd store (ADR 0043, amendment `etcdhost`):
    `locks/conductor/<host>` under a lease its own thread keeps alive (`Keeper`). While it is
    held, `ws.store.fence` is its fence, so every record version written through `ws.store` and the
    host's heartbeat land only while the lock is still the one taken (`LeaseError` otherwise)."""

    def __init__(self, ws: Workspace, keeper: Keeper) -> None:
        self.ws = ws
        self.keeper = keeper
        self.fence = keeper.held.fence
        ws.store.fence = self.fence

    @property
    def lost(self) -> bool:
        """The keeper found the lease gone."""
        return self.keeper.lost

    def release(self) -> None:
        """Let the lock go (idempotent)."""
        if self.ws.store.fence == self.fence:
            self.ws.store.fence = None
        self.keeper.close()

    def __enter__(self) -> HostLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def lock(ws: Workspace, *, ttl: int = LIMITS.etcd_lock_ttl_s) -> ProcessingLock | HostLock:
    """The conductor lock: on files, the state root's (one conductor per state root); on an etcd
    store, this host's (`HostLock`: one conductor per host, another host's conductor runs beside
    it; `ttl`: its lease). `LockHeldError` names a live holder."""
    backend = etcd_of(ws)
    if backend is not None:
        return _host_lock(ws, backend, ttl)
    try:
        return ws.store.outbox(LOCK_CONSUMER).lock("conductor")
    except LockHeldError as exc:
        who = f" (pid {exc.holder_pid})" if exc.holder_pid is not None else ""
        raise LockHeldError(
            f"another conductor works on this state root{who}: {exc.message}",
            holder_pid=exc.holder_pid,
            hint=(
                "one conductor per state root: stop the other (`oms "
                "conductor run` ends on Ctrl-C or SIGTERM)"
            ),
        ) from None


def etcd_of(ws: Workspace) -> EtcdStore | None:
    """The workspace's etcd store, or None on files (the etcd client is imported only then)."""
    if getattr(ws.store.backend, "name", "files") != "etcd":
        return None
    from oms.adapters.etcd.store import EtcdStore

    return ws.store.backend if isinstance(ws.store.backend, EtcdStore) else None


def _host_lock(ws: Workspace, backend: EtcdStore, ttl: int) -> HostLock:
    from oms.adapters.etcd import store as etcd

    host = ws.host()
    try:
        held = etcd.acquire(backend, f"conductor/{host}", f"host {host} pid {os.getpid()}", ttl=ttl)
    except LockHeldError as exc:
        raise LockHeldError(
            f"another conductor works for host {host}: {exc.message}",
            hint=(
                "one conductor per host: stop the other (`oms conductor run` ends on Ctrl-C or "
                f"SIGTERM); one that died frees it within {ttl} s, when its lease lapses"
            ),
        ) from None
    return HostLock(ws, etcd.Keeper(backend, held, ttl))


def still_held(ws: Workspace) -> None:
    """Raise `LeaseError` when the conductor's lock whose fence `ws.store` carries is no longer
    the one taken (its lease lapsed: paused or cut off past its TTL, or revoked): a tick then acts
    on nothing, panes included — its record writes would be refused, its tmux actions would not.
    One read; nothing on files (a file lock cannot lapse while its holder lives)."""
    from oms.services.workspace.backend import fence_lost

    lost = fence_lost(ws.store)
    if lost is not None:
        raise LeaseError(
            f"this conductor's lock {lost} was lost (its lease lapsed): the tick acts on nothing",
            hint="start the conductor again: it takes the lock afresh when it is free",
        )


def tick(
    ws: Workspace,
    *,
    d: Delivery | None = None,
    held: bool = False,
    memory: Memory | None = None,
) -> Tick:
    """One pass (see the module's docstring). `held`: the caller holds the conductor lock
    already; `memory`: what this conductor's earlier ticks left (none: a first tick)."""
    memory = memory if memory is not None else Memory()
    if not held:
        with lock(ws):
            return tick(ws, d=d, held=True, memory=memory)
    with ws.store.steady():  # each kind's summary asked once, and again after a write of its own
        return _phases(ws, d, memory)


def _phases(ws: Workspace, d: Delivery | None, memory: Memory) -> Tick:
    """The phases of one tick, under the conductor lock."""
    still_held(ws)
    _rollback_guard(ws, memory)
    ws.next_operation()  # what HEAD holds, read once for this tick (and once per launch in it)
    d = d if d is not None else Delivery.open(ws)
    report = Tick(ws.now(), ws.host())
    listed = d.panes.list()
    seen = replace(d, panes=SeenPanes(d.panes, listed))
    run = _Runner(report, ws)

    def reconcile(phase: Phase) -> None:
        heartbeat(ws, memory, phase)
        every = latest(ws, "worker")
        own = host_rules.ours(every, worker_payload, ws.host())
        _reconcile(seen, own, {w.record_id for w in every}, listed, report, phase)

    run("reconcile", reconcile)
    run("expire", lambda p: _expire(d, p))
    run(
        "deadlines", lambda p: conductor_deadlines.deadlines(d, p.done, p.skipped)
    )  # it acts (stop): on tmux as it is now
    run("providers", lambda p: conductor_providers.phase(d, p.done, p.skipped))
    run("resume", lambda p: conductor_work.resume_due(d, p.done, p.skipped))
    checks = Preflight(ws)  # what a launch needs: asked once a tick, when first needed (ADR 0031)
    run("deliver", lambda p: conductor_work.deliver_pending(d, p.done, p.skipped, checks))
    run("resolve", lambda p: conductor_results.resolve(ws, p.done, p.skipped))
    run("fill", lambda p: conductor_work.fill(d, p.done, p.skipped, checks))
    run("close", lambda p: _close(d, p))
    waiting = partial(dispatches.awaiting_person, ws)
    run("notify", lambda p: notices.phase(ws, p.done, p.skipped, waiting))
    run("compact", lambda p: _compact(ws, p, memory))
    run("checkpoint", lambda p: _checkpoint(ws, p, memory))
    return report


def heartbeat(ws: Workspace, memory: Memory, phase: Phase) -> None:
    """Renew this host's heartbeat once a third of its lease has gone (`domain/hosts.beat_due`): a
    tick with nothing to do writes nothing in between. A heartbeat that cannot be written is a
    line of the report; the tick goes on (others see the host unreachable once it lapses)."""
    host, now = ws.host(), ws.now()
    key = f"{ws.store.path}\0{host}"
    try:
        beats = ws.store.beats()  # files, or a key under the host's lease on etcd
        last = memory.beats.get(key)
        if last is None:
            last = beats.read_all().get(host)
        if last is not None and not host_rules.beat_due(last, now):
            memory.beats[key] = last
            return
        beat = host_rules.beat(host, now, os.getpid())
        beats.write(beat, ws.store.fence)  # etcd: fenced by this host's conductor lock
        memory.beats[key] = beat
    except OmsError as exc:
        phase.skipped.append(f"host {host}: its heartbeat was not written: {one_line(exc.message)}")


def _compact(ws: Workspace, phase: Phase, memory: Memory) -> None:
    """Compact ended tickets whose retention ran out, a few a tick, at most once an hour of the
    workspace's clock (finding them walks every ended ticket: 40 ms at 10,000; `oms store compact`
    says why others stay). On an etcd store its keys, under the cluster's compaction lock (ADR
    0043, amendment `upkeep`); a compaction another host runs is skipped."""
    now = parse_ts(ws.now())
    last = memory.last_compact_ms.get(ws.store.path)
    if last is None:  # a new process (a one-shot tick from cron): when any conductor last looked
        looked = store_compaction.looked_at(ws.store.state.root)
        last = looked if looked is not None and looked <= now else -LIMITS.compact_every_ms
        memory.last_compact_ms[ws.store.path] = last
    if now < last + LIMITS.compact_every_ms:
        return
    memory.last_compact_ms[ws.store.path] = now
    store_compaction.mark_looked(ws.store.state.root, now)
    try:
        report = compaction.compact(ws, dry_run=False, limit=LIMITS.compact_per_tick)
    except LockHeldError:
        phase.skipped.append("a compaction is under way (`oms store compact`)")
        return
    for row in report.compacted:
        phase.done.append(f"compacted {row['ticket_id']} into {row['archive']}")


def _checkpoint(ws: Workspace, phase: Phase, memory: Memory) -> None:
    """Sign the ledger's head and move the anchor outside the state root to it (ADR 0022, 0027),
    and on an etcd store the head of its keys' ledger this conductor wrote last (ADR 0043,
    amendment `etcdtick`). A tick that finds the heads signed and anchored by this conductor
    already writes nothing."""
    _checkpoint_root(ws, phase, memory)
    backend = etcd_of(ws)
    head = None if backend is None else backend.written_head()
    if head is None:
        return
    key = f"{ws.store.path}\0etcd"
    if memory.anchored.get(key) == head[0]:
        return
    why = ws.store.anchor_keys()
    if why is not None:
        phase.skipped.append(f"the keys' anchor stays: {why}")
        return
    memory.anchored[key] = head[0]


def _checkpoint_root(ws: Workspace, phase: Phase, memory: Memory) -> None:
    signed = ws.store.checkpoint()
    if signed is None:
        return
    seq = int(str(signed[0]["seq"]))
    if signed[1]:
        phase.done.append(f"ledger checkpoint at entry {seq}")
    if not signed[1] and memory.anchored.get(ws.store.path) == seq:
        return
    why = ws.store.anchor(signed[0])
    if why is not None:
        phase.skipped.append(f"the anchor stays: {why}")
        return
    memory.anchored[ws.store.path] = seq


def _rollback_guard(ws: Workspace, memory: Memory) -> None:
    """Refuse to act on a state root whose anchor names an entry its ledger does not hold (it was
    rolled back: a conductor would launch again what was done). Asked until it holds, then once a
    conductor."""
    if ws.store.path in memory.anchor_held:
        return
    problem = ws.store.rolled_back()
    if problem is not None:
        raise IntegrityError(problem, hint=ROLLBACK_HINT)
    memory.anchor_held.add(ws.store.path)


MACHINE_ERRNOS = frozenset(
    {errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EAGAIN, errno.ENOSPC, errno.EDQUOT},
)


def unexpected(exc: Exception) -> tuple[str, bool]:
    """An error no phase expected, in one line, and whether it is an internal error (a bug: the
    command exits 3, ADR 0007) — not when the machine refused a resource for a while (no file
    descriptor, process or memory left, a full disk: the loop goes on and it passes)."""
    said = one_line(f"{type(exc).__name__}: {exc}")
    if isinstance(exc, OSError) and exc.errno in MACHINE_ERRNOS:
        return f"the machine refused: {said}", False
    return f"internal error: {said}", True


LAUNCHING = ("resume", "deliver", "fill")  # the phases that launch under the outbox's locks


def refused_on_etcd(ws: Workspace, name: str) -> str | None:
    """Why phase `name` does not run on this store yet, in one line (None: it runs). On an etcd
    store the phases that launch a worker (`LAUNCHING`) take the outbox's locks — the deliverer's,
    the pool's — which are still this host's files, so two hosts could launch one dispatch, or
    fill one pool slot, each: they wait for those locks as leases (ADR 0043, amendment
    `etcdtick`)."""
    if name not in LAUNCHING or etcd_of(ws) is None or _launch_locks_leased(ws):
        return None
    return refused_line(name)


def refused_line(name: str) -> str:
    """The line a launching phase reports on an etcd store whose outbox locks are files."""
    return (
        f"not on an etcd store yet: {name} launches workers under the outbox's locks, still "
        "this host's files (ADR 0043, amendment `etcdtick`)"
    )


def _launch_locks_leased(ws: Workspace) -> bool:
    """Whether the outbox's locks on this store are the backend's own leases (`KeepsLocks`: an
    etcd store since amendment `etcddeliver`), not this host's files."""
    from oms.store import KeepsLocks

    return isinstance(ws.store.backend, KeepsLocks)


class _Runner:
    def __init__(self, report: Tick, ws: Workspace) -> None:
        self.report = report
        self.ws = ws

    def __call__(self, name: str, body: Callable[[Phase], None]) -> None:
        phase = Phase(name)
        refused = refused_on_etcd(self.ws, name)
        if refused is not None:
            phase.skipped.append(refused)
            self.report.phases.append(phase)
            return
        doing.now(name)
        start = time.perf_counter()
        try:
            body(phase)
        except (
            OmsError
        ) as exc:  # a phase that cannot run at all (an unreadable directory): the next one runs
            phase.skipped.append(f"the phase stopped: {one_line(exc.message)}")
        except Exception as exc:  # noqa: BLE001 - the machine (no fd, no memory) or a bug: go on
            line, internal = unexpected(exc)
            phase.skipped.append(f"the phase stopped: {line}")
            if internal:
                self.report.internal.append(f"{name}: {line}")  # exit 3 says so (ADR 0007)
        phase.ms = (time.perf_counter() - start) * 1000
        self.report.phases.append(phase)
        doing.now(None)


def _classify(pane: Pane | None, health: str, session_exists: bool) -> str:
    if health == "stopped":
        return "ended"
    if pane is not None:
        return "alive" if not pane.dead else "pane-dead"
    return "pane-gone" if session_exists else "not-started"


def _reconcile(
    d: Delivery,
    records: list[Record],
    known: set[str],
    listed: list[Pane],
    report: Tick,
    phase: Phase,
) -> None:
    """Each of this host's workers (`records`) against the tmux listing; a tagged pane that no
    worker record (`known`, every host's) names is reported, never touched."""
    by_dispatch = {p.dispatch_id: p for p in listed if p.dispatch_id == p.session}
    for worker in records:
        dispatch_id = worker.record_id
        try:
            health, pane = worker_payload(worker)["health"], by_dispatch.get(dispatch_id)
            started = (
                pane is not None
                or health == "stopped"
                or d.session(worker_payload(worker)["session_id"]) is not None
            )
            before = _classify(pane, health, started)
            if health != "stopped" and before != "alive":
                d.reconcile(dispatch_id)
                after = d.worker(dispatch_id)
                if worker_payload(after)["health"] == "stopped":
                    phase.done.append(
                        f"{dispatch_id}: {before}, ended ({worker_payload(after)['end_reason']})"
                    )
                    before = "ended"
            report.classes[dispatch_id] = before
        except OmsError as exc:
            phase.skipped.append(f"{dispatch_id}: {one_line(exc.message)}")
    report.unknown_panes = sorted(p.session for p in listed if p.session not in known)
    for name in report.unknown_panes:
        phase.skipped.append(
            f"pane {name}: no worker record (left alone: oms cannot prove it started it)"
        )


def _expire(d: Delivery, phase: Phase) -> None:
    """Leases that ran out (the conductor was away longer than half a lease): their tickets are open
    again — except one whose pool worker waits for a person (parked `no_result`, fenced, silent):
    that stays leased (its worker fenced all the same) until the person decides (`oms worker stop`:
    blocked)."""

    def keep(ticket: Record) -> str | None:
        session_id = ticket_payload(ticket).get("session_id")
        if not isinstance(session_id, str) or not conductor_deadlines.pooled_ticket(ticket):
            return None
        dispatch_id = stable_id(
            "dsp", ticket.record_id, ticket_payload(ticket)["attempt"], session_id
        )
        worker = d.ws.store.records("worker").read_if_exists(dispatch_id)
        if worker is None:
            return None
        # ended this tick: the resolve phase decides it
        if worker_payload(worker)["health"] == "stopped":
            ended = conductor_results.ended_attempt(d.ws, d.dispatch(dispatch_id))
            return (
                None
                if ended is None or ended[0] != "stopped"
                else f"its attempt {dispatch_id} was stopped"
            )
        if not conductor_deadlines.waits_for_person(d, worker):
            return None
        why = worker_payload(worker)["health_reason"]
        return f"its worker {dispatch_id} waits for a person: {why}"

    for ticket in tickets.expire_due(d.ws, phase.skipped, keep):
        phase.done.append(
            f"{ticket.record_id}: lease expired, open for attempt "
            f"{ticket_payload(ticket)['attempt']}"
        )


def _close(d: Delivery, phase: Phase) -> None:
    """Workers of the pool whose result was acted on and which still run after
    `Limits.result_grace_ms` (an interactive agent waits at its prompt for good: its slot would
    never free) are stopped through `oms worker stop`'s path; then dead panes of ended workers, only
    the pane the worker's own registry names (never one oms cannot prove it started)."""
    root = d.ws.store.state.root
    now = parse_ts(d.ws.now())
    for ended in own_workers(d.ws):
        if worker_payload(ended)["health"] == "stopped" or ended.state in (
            WorkerState.IDLE,
            WorkerState.WORKING,
        ):
            continue  # stopped, or still working on its attempt (the deadlines phase's)
        try:
            dispatch = d.dispatch(ended.record_id)
            acted_on = (
                dispatch.state == DispatchState.RESOLVED
                and now - parse_ts(dispatch.observed_at) >= LIMITS.result_grace_ms
            )
            if not conductor_deadlines.pooled(dispatch) or not acted_on:
                continue
            d.stop(
                ended.record_id, "its result was recorded and acted on: its work is over", by=ACTOR
            )
            phase.done.append(
                f"{ended.record_id}: stopped, its result was acted on (its slot is free)"
            )
        except OmsError as exc:
            phase.skipped.append(f"{ended.record_id}: {one_line(exc.message)}")
    for pane in d.panes.list():
        if not pane.dead or pane.session != pane.dispatch_id:
            continue
        try:
            worker = d.ws.store.records("worker").read_if_exists(pane.dispatch_id)
            registry = panefiles.read_registry(root, pane.dispatch_id)
            if worker is None or worker_payload(worker)["health"] != "stopped":
                continue
            if not host_rules.mine(worker_payload(worker), d.ws.host()):
                continue  # its host's (a pane of that name here is not its pane)
            if registry is None or (registry["pane_id"], registry["pane_pid"]) != (
                pane.pane_id,
                pane.pane_pid,
            ):
                phase.skipped.append(
                    f"{pane.dispatch_id}: its dead pane is not the one its registry names; kept"
                )
                continue
            d.panes.close(pane.dispatch_id)
            panefiles.drop_registry(root, pane.dispatch_id)
            phase.done.append(f"{pane.dispatch_id}: closed its ended pane {pane.pane_id}")
        except OmsError as exc:
            phase.skipped.append(f"{pane.dispatch_id}: {one_line(exc.message)}")
