"""`OMS_HOST` reaches oms's own children (a worker's supervisor and broker act as the host that
launched it), never the agent: its sandbox's environment is the pane's terminal and its launch
spec's, so nothing in it names a host, and what the agent sets in its own environment reaches no
process outside (its hooks and bridge are relays to the broker, which acts with the supervisor's
environment). SECURITY.md, Hosts."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.helpers import oms_command
from tests.integration.test_supervise import _spec, state

__all__ = ["state"]  # the fixture


def test_the_agents_environment_names_no_host(state: Path, tmp_path: Path) -> None:
    worktree = tmp_path / "wt"
    worktree.mkdir()
    _spec(state, worktree, ["/bin/sh", "-c", "env > env.txt"])
    argv = [*oms_command().argv, "worker", "supervise", "--dispatch-id", "dsp-1"]
    done = subprocess.run(
        [*argv, "--state-root", str(state)],
        stdin=subprocess.DEVNULL,
        env={**os.environ, "OMS_HOST": "host-b"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen = (worktree / "env.txt").read_text()
    assert "PATH=/usr/bin:/bin" in seen  # the launch spec's environment is there
    assert "OMS_HOST" not in seen
    assert "host-b" not in seen
