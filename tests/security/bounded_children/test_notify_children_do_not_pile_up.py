"""The conductor keeps one `oms conductor notify` child running at a time (SECURITY.md "Talking
to an agent; hearing back", item 4). A look claims at most `notify_per_tick` notices and starts a
detached child for them, which runs each command in turn, each up to its time limit (60 s at
most): with a command that hangs (a webhook whose host does not answer), a child lives
`notify_per_tick` times the commands times the limit, and each tick that found more notices
started another beside it: a burst of a thousand notices was fifty oms processes at once, each
with a hung command. Now a look claims nothing while the child of an earlier one runs; the
notices wait for the next look (within `notify_window_s`)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from oms.limits import LIMITS
from oms.process import reap
from oms.services.chain import tickets
from oms.services.conductor import tick as conductor
from oms.services.notify import notices
from tests.chain import Chain
from tests.helpers import eventually
from tests.integration.test_notify import (
    HANG,
    _configure,
    _phase_of,
    _script,
    _settings_home,
    _sleepers,
)

__all__ = ["_settings_home"]  # its fixture, shared


def _alive(pid: int) -> bool:
    """`pid` runs (not ended, nor a zombie waiting to be collected)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _running() -> list[int]:
    """The notify children this test's process started that run still."""
    return [pid for pid in notices._STARTED if _alive(pid)]


def test_a_second_look_waits_for_the_running_child(chain: Chain) -> None:
    _configure(chain, [_script(chain, "hang.sh", HANG)], timeout=1)
    with chain.workspace() as ws:
        for i in range(LIMITS.notify_per_tick + 5):
            ticket = tickets.add(ws, f"Ticket {i}", "It fails.")
            tickets.block(ws, ticket.record_id, f"question {i}")
        try:
            first = _phase_of(conductor.tick(ws), "notify")
            second = _phase_of(conductor.tick(ws), "notify")
            assert len(first) == LIMITS.notify_per_tick
            assert second == []  # the first look's child runs still (20 hung commands)
            assert len(_running()) == 1
        finally:
            for pid in _running():  # this test's own children, by pid, then their commands
                os.kill(pid, signal.SIGKILL)
            eventually(lambda: not _running(), timeout=10, what="the notify children ending")
            for pid in notices._STARTED:
                reap(pid)
            for pid in _sleepers():
                os.kill(pid, signal.SIGKILL)
