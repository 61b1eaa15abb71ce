"""Attack (issue 15): an interrupted `oms demo` leaves no worker and no tmux server running.

Before its fix, `demo.run` ended the worker and the server (`_end`) only on the path that returns:
with no try/finally, a KeyboardInterrupt (^C while it waits for the worker, the moment a newcomer is
most likely to press it) or any error between delivery and `_end` skipped it, and the boundary
printed "oms: interrupted" with a tmux server and a sandboxed worker left behind that nothing named
(the --keep hints were not printed). The fix: `_end` in a `finally` (unless --keep), for the
single-ticket demo and for `--tickets` (demo_fleet) alike."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from tests.helpers import oms_command


def _server_alive(socket: Path) -> bool:
    done = subprocess.run(
        ["tmux", "-S", str(socket), "list-sessions"], capture_output=True, check=False
    )
    return done.returncode == 0


def test_interrupted_demo_leaves_no_tmux_server(tmp_path: Path) -> None:
    base = tmp_path / "demo"
    socket = base / "state" / "tmux.sock"
    proc = subprocess.Popen(
        [*oms_command().argv, "demo", "--dir", str(base)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ},
        cwd=tmp_path,
    )
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stderr.readline().decode()
            if not line or "delivered into tmux pane" in line:
                break
        assert "delivered into tmux pane" in line, line
        proc.send_signal(signal.SIGINT)  # the person presses ^C while the demo waits
        proc.wait(timeout=30)  # it ends its server before it exits (in a `finally`)
        assert not _server_alive(socket), (
            "the interrupted demo left its tmux server (and worker) running"
        )
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
        subprocess.run(["tmux", "-S", str(socket), "kill-server"], capture_output=True, check=False)
