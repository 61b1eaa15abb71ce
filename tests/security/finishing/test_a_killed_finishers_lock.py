"""A merge, publish or request for changes SIGKILLed while it holds the ticket's finishing lock
(ADR 0039 as amended) leaves no lock that holds for ever: the next one takes it (the lock names its
holder, which is gone), and while its holder lives a second one is refused at once, in one line
that says what to do."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from oms.errors import ConflictError
from oms.services.finishing import finish
from tests.chain import Chain

TICKET = "tkt-" + "1" * 32
HOLD = """
import sys
from oms.services.finishing import finish
from oms.services.workspace import Workspace
with Workspace.open(sys.argv[1], sys.argv[2]) as ws, finish.ticket_lock(ws, sys.argv[3]):
    print("held", flush=True)
    sys.stdin.read()
"""


def _holder(chain: Chain) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(chain.state), str(chain.repo), TICKET],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "held\n"
    return proc


def test_a_live_holder_refuses_in_one_line_and_a_killed_one_does_not(chain: Chain) -> None:
    proc = _holder(chain)
    try:
        with chain.workspace() as ws, pytest.raises(ConflictError) as caught:
            finish.ticket_lock(ws, TICKET)
        assert "\n" not in caught.value.message
        assert "retry" in caught.value.remedy
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)  # reaped, its pipes closed
    with chain.workspace() as ws, finish.ticket_lock(ws, TICKET):
        pass  # taken: the killed holder's lock was stale
