"""`oms worker supervise`: the first process in a worker's pane (seed 004's runner).

It runs the agent as its child on the same terminal, waits, and records how it ended
(`panes/<dispatch>.exit.json`: exit status or signal) — tmux 3.3a does not report a pane's exit status
reliably when a client command overlaps the exit (ADR 0009), and end reasons must not be guessed.
When the terminal hangs up (the pane or the tmux server is gone) it takes the agent down with it —
SIGHUP, then SIGTERM, then SIGKILL — records that end, and then ends its whole process group.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

from oms.canonical import JsonObject, check, now
from oms.errors import AlreadyExistsError, NotFoundError
from oms.fsio import Root
from oms.process import end_own_group
from oms.process import supervise as run_supervised
from oms.store.documents import encode_document


def exit_path(dispatch_id: str) -> str:
    """Where the supervisor records the end of `dispatch_id`'s process."""
    return f"panes/{check(dispatch_id, 'dispatch id')}.exit.json"


def supervise(state_root: str, dispatch_id: str, argv: Sequence[str]) -> int:
    """Run the agent, record its end, return the exit code this process should end with."""
    rel = exit_path(dispatch_id)
    ended = run_supervised(argv)
    code = ended.returncode
    doc: JsonObject = {
        "format": "oms-exit-v1",
        "dispatch_id": dispatch_id,
        "status": code if code >= 0 else None,
        "signal": -code if code < 0 else None,
        "ended_at": now(),
    }
    with Root.open(state_root) as root:
        root.mkdirs("panes")
        data = encode_document(doc, "pane-exit", rel, 4096)
        with contextlib.suppress(AlreadyExistsError):
            root.publish(rel, data)
    if ended.hung_up:
        end_own_group()  # nothing of this pane's group may outlive it (a no-op unless we lead the group)
    return code if code >= 0 else 128 - code


def clear(root: Root, dispatch_id: str) -> None:
    """Forget an earlier launch's exit record (a new pane is starting)."""
    with contextlib.suppress(NotFoundError):
        root.unlink(exit_path(dispatch_id))
