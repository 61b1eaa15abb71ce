"""What a `[notify]` command leaves running ends with it (SECURITY.md "Talking to an agent;
hearing back", item 4: "each within its time limit (its process group killed)"). The group was
killed only at the time limit: a command that started a child in the background (`curl ... &`, a
helper) and exited at once was "ok", and its child ran on, unbounded, outside every sandbox, one
more for each notice. Now its process group is ended once it exits, too. Known limit: a child that
leaves the group (`setsid`) is not followed (that needs a cgroup)."""

from __future__ import annotations

import os
from pathlib import Path

from oms.process import child_env
from oms.services.notify import notices
from tests.helpers import eventually

MARK = "4245"  # the background child's `sleep` argument: no other process sleeps this long


def _left() -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if cmdline == f"sleep\0{MARK}\0".encode():
                found.append(int(entry))
    return found


def test_a_child_the_notifier_left_in_the_background_is_ended() -> None:
    script = f"sleep {MARK} </dev/null >/dev/null 2>&1 & echo started"
    try:
        said = notices._one(("sh", "-c", script), b"{}\n", child_env(), 5.0)
        assert said == "ok"
        # SIGKILLed, it is gone as soon as the kernel ends it (left running: never)
        eventually(lambda: not _left(), timeout=10, what="the notifier's background child ending")
    finally:
        for pid in _left():  # this test's own grandchild, by its pid
            os.kill(pid, 9)
