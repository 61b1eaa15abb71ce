"""The supervisor loads the sandbox, the doors and the broker only after its socket listens (issue
23 item 5). A load that fails there (a broken bundle, a module that raises) must start no agent,
leave no socket a relay could reach, and record the end: the pane's `exit.json` says the
supervisor failed; the command says so in one line (ADR 0007), never a traceback. SECURITY.md,
"The lazy supervisor"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.integration.test_supervise import _ended, _sandbox_dir, _spec, state

__all__ = ["state"]  # the fixture

BROKEN = """import os, sys
from oms.fsio import Root
listen = Root.listen_unix
def broken(self, rel, *args):
    sock = listen(self, rel, *args)
    sys.modules[os.environ["OMS_TEST_BREAK"]] = None  # its import now raises ImportError
    return sock
Root.listen_unix = broken
from oms.cli.entry import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_load_failing_after_the_socket_listens_starts_nothing_and_is_recorded(
    state: Path, tmp_path: Path
) -> None:
    worktree = tmp_path / "wt"
    worktree.mkdir()
    _spec(state, worktree, ["/bin/sh", "-c", "echo ran > ran.txt"])
    argv = ["worker", "supervise", "--dispatch-id", "dsp-1", "--state-root", str(state)]
    done = subprocess.run(
        [sys.executable, "-c", BROKEN, *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "OMS_TEST_BREAK": "oms.services.doors.broker",
            "PYTHONPATH": str(Path(__file__).parents[3]),
        },
        timeout=120,
        check=False,
    )
    assert done.returncode != 0
    assert not (worktree / "ran.txt").exists()  # no agent ran
    assert not Path(_sandbox_dir(state), "brokers", "dsp-1.sock").exists()
    ended = _ended(state)
    assert ended["status"] == 1
    assert "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2, done.stderr  # the error and its hint
