"""Whether a worker pane's supervisor may start its agent on the session it found (pure; ADR 0043,
"branch `ownpane`").

A launch registers the worker's session naming the pane it was registered for: the pane's first
process (`pane_process`: the kernel's boot id, the pid tmux reports for the pane, that process's
start time in clock ticks). The supervisor is that process (`exec` in the pane's command) — or its
child, when a onefile build's bootloader runs oms in a child process —, so it knows the identity
for certain (its own, or its parent's); no other process of any boot — any host, any relaunch — has
the same one, and no other pane's process is ever its parent. It starts only on a session of its
dispatch that names it: a stale deliverer's pane (its lock lapsed, another deliverer launched and
registered the session meanwhile) finds the session naming the other pane and starts nothing
(`GAP_LOCAL_BEGUN`, tests/model/hosts.pml). A session written before sessions named their pane
names none, and is started on as before.

A relaunch on the agent's native session (`oms worker resume`) moves the existing session to its new
pane only once that pane exists: its supervisor waits while the session still names the old one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, NamedTuple

from oms.canonical import JsonObject

Verdict = Literal["start", "wait", "refuse"]
ANOTHER_PANE = "its session names another pane"
ANOTHERS = "its session is another's"


class PaneProcess(NamedTuple):
    """A pane's first process: what a session names as the pane it was registered for."""

    boot_id: str
    pid: int
    start_ticks: int  # 0: the process had ended when the session was registered (no one is it)

    def to_json(self) -> JsonObject:
        """The session payload's `pane_process`."""
        return {"boot_id": self.boot_id, "pid": self.pid, "start_ticks": self.start_ticks}


def named(session: Mapping[str, object]) -> PaneProcess | None:
    """The pane a session payload names; None for a session written before sessions named one."""
    doc = session.get("pane_process")
    if not isinstance(doc, Mapping):
        return None
    boot, pid, ticks = doc.get("boot_id"), doc.get("pid"), doc.get("start_ticks")
    if not isinstance(boot, str) or not isinstance(pid, int) or not isinstance(ticks, int):
        return None  # the schema holds the shape: unreachable for a stored record
    return PaneProcess(boot, pid, ticks)


def decide(
    session: Mapping[str, object] | None,
    dispatch_id: str,
    own: Sequence[PaneProcess],
    *,
    relaunch: bool = False,
) -> tuple[Verdict, str]:
    """What the supervisor does on finding `session` (None: not registered yet) — start, wait (for
    a launch to register it, or a relaunch to move it to this pane), or refuse with the reason its
    end record gives. `own`: what its pane's first process may be (itself, its parent)."""
    if session is None:
        return "wait", ""
    if session.get("dispatch_id") != dispatch_id:
        return "refuse", ANOTHERS
    pane = named(session)
    if pane is None or (pane.start_ticks > 0 and pane in own):
        return "start", ""
    if relaunch:  # the session still names the pane before this one, until the relaunch moves it
        return "wait", ""
    return "refuse", ANOTHER_PANE
