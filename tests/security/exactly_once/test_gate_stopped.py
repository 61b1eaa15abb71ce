"""A pane's supervisor SIGSTOPped as it starts bubblewrap, through the real CLI: does its agent hang
at the exec gate (`adapters/sandbox.exec_marked`) for ever? No: the supervisor is the pane's own
process, and tmux continues a pane's process the moment it stops (it answers the stop with
SIGCONT). The launch goes on: the init recorded, then the agent started, once; `oms worker stop`
ends it all. (A supervisor held stopped outside tmux holds its agent at the gate, and a kill then
starts nothing: `tests/security/containment/test_exec_gate.py`.)"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from tests.chain import Chain, accepted
from tests.security.kill_rig import Rig, poll


@pytest.fixture
def rig(deliverable: Chain, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    made = Rig(deliverable, tmp_path_factory.mktemp("bin"))
    yield made
    made.cleanup()  # (by PID: a supervisor still stopped is SIGKILLed here, and reported below)


def _starting_bubblewrap(pids: list[int]) -> int:
    """The one of `pids` (the pane's `oms worker supervise`, and the shell of a wrapper that
    started it) whose child is bubblewrap already; 0: none yet."""
    for pid in pids:
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                children = f.read().split()
            for child in children:
                with open(f"/proc/{child}/comm") as f:
                    if f.read().strip() == "bwrap":
                        return pid
        except OSError:
            continue
    return 0


def test_a_pane_supervisor_stopped_as_bubblewrap_starts_goes_on_and_starts_once(rig: Rig) -> None:
    dispatch_id, event_id = accepted(rig.chain, "Stopped at the gate")
    rig.started.add(dispatch_id)
    deliverer = rig.spawn("worker", "deliver", "--event-id", event_id)

    def supervisors() -> list[int]:
        return [p.pid for p in rig.procs(dispatch_id) if p.role == "supervisor"]

    poll(lambda: bool(supervisors()), 30, "the supervisor appears", interval=0.001)
    while not (pid := _starting_bubblewrap(supervisors())):  # spin: stop it as it starts bubblewrap
        pass
    os.kill(pid, signal.SIGSTOP)  # this dispatch's own supervisor, by PID
    deliverer.communicate(timeout=60)
    poll(lambda: rig.starts(dispatch_id) == 1, 30, "tmux continued the supervisor: it starts")
    assert (rig.chain.state / "panes" / f"{dispatch_id}.init.json").exists()  # recorded first
    seen = rig.observe(dispatch_id)
    assert seen["pane_live"] is True, seen
    code, out, err = rig.run("worker", "stop", dispatch_id)
    assert code == 0, (out, err)
    poll(lambda: not rig.procs(dispatch_id), 15, "nothing runs after stop", stable=0.2)
    assert rig.starts(dispatch_id) == 1
    assert rig.live_panes(dispatch_id) == []
