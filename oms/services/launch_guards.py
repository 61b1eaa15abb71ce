"""The guard that keeps a stopped worker from getting a running agent (the one-attempt-per-worktree guard
is `fence.require_alone`): asked by a launch once its pane exists (`services/launcher.py`) and by the
pane's supervisor before it starts the sandbox (`services/supervise.py`), so a `stop` that lands anywhere
in a launch is seen by one of them (ADR 0014)."""

from __future__ import annotations

from oms.errors import OmsError
from oms.fsio import Root
from oms.store import RecordStore, panefiles


def stopped(root: Root, dispatch_id: str) -> str | None:
    """Why the worker must not run, if `oms worker stop` came: its kill marker, or its end (stop ends the
    worker before it drops the marker, so one of the two is always seen). A record that cannot be read
    is a reason too: nothing starts on a worker oms cannot read."""
    try:
        if panefiles.read_kill(root, dispatch_id) is not None:
            return "the worker was stopped while it launched"
        worker = RecordStore(root, "worker").read_if_exists(dispatch_id)
    except OmsError as exc:
        return f"the worker's records cannot be read: {exc.message}"
    if worker is None:
        return "the worker has no record"
    if worker.state not in ("idle", "working") or worker.payload["health"] == "stopped":
        return "the worker ended while it launched"
    return None
