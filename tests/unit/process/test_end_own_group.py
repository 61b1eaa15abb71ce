"""`end_own_group`, a hung-up supervisor's last act: it may only ever take down a group it leads."""

from __future__ import annotations

import subprocess
import sys

from oms.fsio import procinfo
from tests.helpers import eventually

PROBE = """
import os, subprocess, sys
from oms.process import end_own_group
helper = subprocess.Popen(["sleep", "30"])  # a straggler in the same group
print(os.getpid(), helper.pid, flush=True)
end_own_group()
print("survived", flush=True)
helper.kill()
"""


def test_a_process_that_does_not_lead_its_group_signals_nothing() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout.split()[2] == "survived"
    )  # and pytest, in the same group, is still here to see it


def test_a_group_leader_ends_itself_and_every_straggler() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        start_new_session=True,
    )
    leader, helper = (int(pid) for pid in done.stdout.split())
    assert done.returncode == -9
    assert "survived" not in done.stdout
    # SIGKILL to a group returns before every member is gone: the straggler (now init's child) may
    # take a moment to die and be reaped; the group must be empty well within the deadline
    eventually(  # the leader's pid is the group id: nothing of it is left
        lambda: not procinfo.group_alive(leader), timeout=10, what="the group is empty"
    )
    assert procinfo.start_ticks(helper) is None  # the straggler went with it
