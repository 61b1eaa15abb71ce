"""The guards that keep one agent per worker and per worktree at launch (`services/launcher.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from oms.errors import AuthorityChangedError
from oms.services import fence
from oms.store import Record, panefiles

if TYPE_CHECKING:
    from oms.services.delivery import Delivery


def alone_in_worktree(d: Delivery, dispatch: Record, running: list[str]) -> None:
    """No attempt is launched into a worktree another attempt's pane still runs in (it may still write)."""
    other = fence.still_running(d.ws, dispatch, running)
    if other is not None:
        attempt = d.dispatch(other.record_id).payload.get("attempt")
        raise AuthorityChangedError(
            f"{other.record_id} (attempt {attempt}) still runs in this worktree: stop it first",
            hint=f"`oms worker stop {other.record_id}` (its work stays in the worktree), then deliver again",
        )


def stopped_meanwhile(d: Delivery, dispatch_id: str) -> str | None:
    """Why the worker must not run on, if `oms worker stop` came while it launched: its kill marker, or
    its end (stop ends the worker before it drops the marker, so one of the two is always seen)."""
    if panefiles.read_kill(d.ws.store.state.root, dispatch_id) is not None:
        return "the worker was stopped while it launched"
    worker = d.worker(dispatch_id)
    if worker.state not in ("idle", "working") or worker.payload["health"] == "stopped":
        return "the worker ended while it launched"
    return None
