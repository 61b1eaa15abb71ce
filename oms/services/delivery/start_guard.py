"""The guard that keeps a stopped worker from getting a running agent (the one-attempt-per-worktree
guard is `fence.require_alone`): asked by a launch once its pane exists
(`services/delivery/launch.py`) and by the pane's supervisor before it starts the sandbox
(`services/supervisor/supervise.py`), so a `stop` that lands anywhere in a launch is seen by one of
them (ADR 0014). The pane's supervisor starts only on a session that names its own pane
(`domain/own_pane.py`, ADR 0043 "branch `ownpane`"), and reads the records through the store backend
its launch wrote them through (the launch spec's `store`)."""

from __future__ import annotations

import signal
import time
from collections.abc import Mapping

from oms.domain import own_pane
from oms.domain.own_pane import PaneProcess
from oms.errors import OmsError
from oms.fsio import Root
from oms.fsio.procinfo import boot_id, start_ticks
from oms.limits import LIMITS
from oms.schemas.payloads import WorkerState
from oms.store import RecordStore, panefiles
from oms.store.backend import Backend, Files
from oms.store.payloads import worker_payload


def pane_process(pid: int) -> PaneProcess:
    """The process `pid` of this boot, as a session names its pane (the pid tmux reports for a
    pane is its supervisor's: the pane's command `exec`s it); start time 0 once it has ended."""
    return PaneProcess(boot_id(), pid, start_ticks(pid) or 0)


def backend_of(root: Root, store: Mapping[str, object] | None) -> Backend:
    """The store backend a launch spec's `store` names (None, `files`: the state root's); etcd's
    client is loaded only for a spec that names it."""
    if store is None or store.get("backend") != "etcd":
        return Files(root)
    from oms.services.workspace.backend import etcd_at

    endpoints = store.get("endpoints")
    prefix = store.get("prefix")
    if not isinstance(endpoints, list) or not isinstance(prefix, str):
        return Files(root)  # unreachable: the launch spec's schema requires both with etcd
    return etcd_at([str(e) for e in endpoints], prefix)


def stopped(root: Root, dispatch_id: str, backend: Backend | None = None) -> str | None:
    """Why the worker must not run, if `oms worker stop` came: its kill marker, or its end (stop
    ends the worker before it drops the marker, so one of the two is always seen). A record that
    cannot be read is a reason too: nothing starts on a worker oms cannot read."""
    try:
        if panefiles.read_kill(root, dispatch_id) is not None:
            return "the worker was stopped while it launched"
        worker = RecordStore(root, "worker", backend=backend).read_if_exists(dispatch_id)
    except OmsError as exc:
        return f"the worker's records cannot be read: {exc.message}"
    if worker is None:
        return "the worker has no record"
    if (
        worker.state not in (WorkerState.IDLE, WorkerState.WORKING)
        or worker_payload(worker)["health"] == "stopped"
    ):
        return "the worker ended while it launched"
    return None


def await_registration(
    root: Root,
    dispatch_id: str,
    session_id: str,
    received: list[int],
    wait_s: float = LIMITS.registration_wait_s,
    *,
    own: tuple[PaneProcess, ...],
    relaunch: bool = False,
    backend: Backend | None = None,
) -> str | None:
    """Why the sandbox must not start — `oms worker stop` came (`stopped`), the terminal hung
    up, no launch registered the worker's session in time, or its session names another pane than
    `own` (this supervisor's process or its parent: `domain/own_pane.py`) —, or None once the
    session names this pane.
    A `relaunch` waits while the session names the pane before it (the relaunch moves it).

    The agent starts only once its session exists: its Stop gate holds it only then, and a
    re-delivery tells a launched worker from a fresh one by it. A launch registers the session just
    after the pane, so this waits a few milliseconds at most; a deliverer killed in between leaves
    this supervisor waiting until a re-delivery finds the pane live and registers it (or
    `LIMITS.registration_wait_s` passes)."""
    deadline = time.monotonic() + wait_s
    sessions = RecordStore(root, "session", backend=backend)
    while True:
        why = stopped(root, dispatch_id, backend)
        if why is not None:
            return why
        if (
            signal.SIGHUP in received
        ):  # the pane is gone: a session a later launch registers is another pane's
            return "its terminal hung up while it waited for its session"
        try:
            session = sessions.read_if_exists(session_id)
        except OmsError as exc:
            return f"its session's record cannot be read: {exc.message}"
        verdict, why = own_pane.decide(
            None if session is None else session.payload, dispatch_id, own, relaunch=relaunch
        )
        if verdict == "start":
            return None
        if verdict == "refuse":
            return why
        if time.monotonic() >= deadline:
            if session is not None:  # a relaunch whose session was never moved to its pane
                return own_pane.ANOTHER_PANE
            return f"no launch registered its session within {wait_s:g} s (its deliverer stopped)"
        time.sleep(LIMITS.registration_poll_s)
