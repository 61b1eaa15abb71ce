"""The guard that keeps a stopped worker from getting a running agent (the one-attempt-per-worktree
guard is `fence.require_alone`): asked by a launch once its pane exists
(`services/delivery/launch.py`) and by the pane's supervisor before it starts the sandbox
(`services/supervisor/supervise.py`), so a `stop` that lands anywhere in a launch is seen by one of
them (ADR 0014)."""

from __future__ import annotations

import signal
import time

from oms.errors import OmsError
from oms.fsio import Root
from oms.schemas.payloads import WorkerState
from oms.store import RecordStore, panefiles
from oms.store.payloads import session_payload, worker_payload

REGISTRATION_WAIT_S = (
    60.0  # a deliverer killed between the pane and the session: time for a re-delivery
)
REGISTRATION_POLL_S = 0.05


def stopped(root: Root, dispatch_id: str) -> str | None:
    """Why the worker must not run, if `oms worker stop` came: its kill marker, or its end (stop
    ends the worker before it drops the marker, so one of the two is always seen). A record that
    cannot be read is a reason too: nothing starts on a worker oms cannot read."""
    try:
        if panefiles.read_kill(root, dispatch_id) is not None:
            return "the worker was stopped while it launched"
        worker = RecordStore(root, "worker").read_if_exists(dispatch_id)
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
    wait_s: float = REGISTRATION_WAIT_S,
) -> str | None:
    """Why the sandbox must not start — `oms worker stop` came (`stopped`), the terminal hung
    up, or no launch registered the worker's session in time —, or None once the session exists.

    The agent starts only once its session exists: its Stop gate holds it only then, and a
    re-delivery tells a launched worker from a fresh one by it. A launch registers the session just
    after the pane, so this waits a few milliseconds at most; a deliverer killed in between leaves
    this supervisor waiting until a re-delivery finds the pane live and registers it (or
    `REGISTRATION_WAIT_S` passes)."""
    deadline = time.monotonic() + wait_s
    sessions = RecordStore(root, "session")
    while True:
        why = stopped(root, dispatch_id)
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
        if session is not None:
            return (
                None
                if session_payload(session).get("dispatch_id") == dispatch_id
                else "its session is another's"
            )
        if time.monotonic() >= deadline:
            return f"no launch registered its session within {wait_s:g} s (its deliverer stopped)"
        time.sleep(REGISTRATION_POLL_S)
