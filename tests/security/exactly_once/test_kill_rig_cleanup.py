"""The kill rig's own end (`tests/security/kill_rig.py`): a tmux server started on a rig's socket
never outlives the test, also one that `tmux -S <socket>` can no longer reach. After one quiet run
of the suite a server of a kill-anywhere test, with one dispatch's session in it, was found still
running; the rig had only asked the socket to end its server."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

from tests.helpers import eventually
from tests.security.kill_rig import servers_on


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


def test_a_server_whose_socket_is_gone_is_found_by_its_socket_and_ended(tmp_path: Path) -> None:
    sock = str(tmp_path / "tmux.sock")
    subprocess.run(["tmux", "-S", sock, "new-session", "-d", "-s", "left", "sleep 600"], check=True)

    def one() -> list[int] | None:  # a pane's process forked by the server looks the same until
        found = servers_on(sock)  # it execs its command: wait for the server alone
        return found if len(found) == 1 else None

    found: list[int] = []
    try:
        found = eventually(one, what="the server is seen, alone")
        os.unlink(sock)  # what no `tmux -S` reaches any more
        ended = subprocess.run(
            ["tmux", "-S", sock, "kill-server"], capture_output=True, check=False
        )
        assert ended.returncode != 0  # asking the socket is not enough
        assert _alive(found[0])
        assert servers_on(sock) == found  # it is still found, by the command line it keeps
    finally:
        for pid in found or servers_on(sock):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)  # the server this test started, by PID
    eventually(lambda: not _alive(found[0]), what="the server ends")
    assert servers_on(sock) == []
