"""The one writer of worker transitions (a worker record's id is its dispatch's).

Whatever moves a worker — a launch, `oms worker park|resume|stop`, the end of its pane, liveness,
the fence, a recorded result — says *what* in a pure `decide(worker, now)` built from
`domain/workers.py`, and `move` writes it: the latest version is read, `decide` sees it and returns
the next state and payload (or None: nothing to write), and that is written as the next version.
When another writer won the race for that version (hooks, liveness and delivery do race) the worker
is read again and `decide` asked again, at most `LIMITS.worker_move_rounds` times
(`RecordStore.update`, the one writer of a record's next version); after that nothing is written and
None is returned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from oms.canonical import next_after
from oms.domain.machine import Next
from oms.errors import RecordNotFoundError, VersionConflictError
from oms.limits import LIMITS
from oms.store import Change, Record
from oms.store.payloads import as_json

if TYPE_CHECKING:
    from oms.schemas.payloads import WorkerPayload
    from oms.services.workspace import Workspace

Decide = Callable[[Record, str], "Next[WorkerPayload] | None"]


def move(
    ws: Workspace,
    dispatch_id: str,
    decide: Decide,
    *,
    op: str | Callable[[Record], str],
    actor: str,
) -> Record | None:
    """Write the move `decide` makes of the latest worker; the version written (or replayed: the
    operation `op` names was done already), or None when nothing was written (no worker, nothing to
    do, or the race was lost `LIMITS.worker_move_rounds` times)."""
    records = ws.store.records("worker")
    first = records.read_if_exists(dispatch_id)
    if first is None:
        return None

    def change(worker: Record) -> Change | None:
        now = next_after(worker.observed_at, ws.now())
        nxt = decide(worker, now)
        if nxt is None:
            return None
        operation = op(worker) if callable(op) else op
        return Change(nxt.state, as_json(nxt.payload), operation, actor, now)

    try:
        written = records.update(dispatch_id, change, rounds=LIMITS.worker_move_rounds, first=first)
    except (VersionConflictError, RecordNotFoundError):
        return None
    return None if written is None else written.record
