"""`procinfo.group_alive`: a process group counts as alive while a live member exists — zombies that
nobody has reaped yet (an orphan's parent may be a minimal init) do not."""

from __future__ import annotations

import os
import signal
import subprocess

from oms.fsio import procinfo
from tests.helpers import eventually


def _state(pid: int) -> bytes:
    with open(f"/proc/{pid}/stat", "rb") as stat:
        raw = stat.read()
    return raw[raw.rfind(b")") + 2 :].split()[0]


def test_a_group_is_alive_while_a_member_runs_and_not_as_a_zombie() -> None:
    child = subprocess.Popen(["sleep", "30"], start_new_session=True)  # its own group: pgid == pid
    try:
        assert procinfo.group_alive(child.pid)
        os.kill(child.pid, signal.SIGKILL)
        eventually(
            lambda: _state(child.pid) == b"Z", timeout=10, what="killed, not reaped: a zombie"
        )
        assert not procinfo.group_alive(child.pid)
    finally:
        child.kill()
        child.wait()
    assert not procinfo.group_alive(child.pid)


def test_our_own_group_is_alive() -> None:
    assert procinfo.group_alive(os.getpgrp())
