"""The guard that keeps a stopped worker from getting a running agent at launch (`services/launcher.py`;
the one-attempt-per-worktree guard is `fence.require_alone`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from oms.store import panefiles

if TYPE_CHECKING:
    from oms.services.delivery import Delivery


def stopped_meanwhile(d: Delivery, dispatch_id: str) -> str | None:
    """Why the worker must not run on, if `oms worker stop` came while it launched: its kill marker, or
    its end (stop ends the worker before it drops the marker, so one of the two is always seen)."""
    if panefiles.read_kill(d.ws.store.state.root, dispatch_id) is not None:
        return "the worker was stopped while it launched"
    worker = d.worker(dispatch_id)
    if worker.state not in ("idle", "working") or worker.payload["health"] == "stopped":
        return "the worker ended while it launched"
    return None
