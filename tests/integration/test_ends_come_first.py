"""The supervisor ends its sandbox first and records the end after (issue 11: "ends that go
unrecorded").

A supervisor that could not record its end (the state root unusable) used to stop before ending what
ran in its pane. It now kills its sandbox's init by the identity it holds in memory (not the one it
wrote to the state root), and only then records; a failed record no longer keeps it from ending its
own group.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.chain import Chain
from tests.helpers import eventually
from tests.integration.test_delivery import _processes_of, _running


def test_an_agent_does_not_outlive_its_pane_when_the_end_cannot_be_recorded(
    deliverable: Chain, tmp_path: Path
) -> None:
    dispatch_id = _running(deliverable, "stubborn")  # ignores SIGHUP and SIGTERM
    assert len(_processes_of(dispatch_id)) >= 2
    panes = deliverable.state / "panes"
    away = tmp_path / "panes-away"
    panes.rename(away)
    panes.symlink_to(
        away
    )  # oms never follows a symlink: every read and write under panes/ now fails
    try:
        subprocess.run(
            ["tmux", "-S", str(deliverable.state / "tmux.sock"), "kill-server"], check=True
        )
        eventually(
            lambda: not _processes_of(dispatch_id),
            timeout=20,
            what="every process ends with the tmux server",
        )
    finally:
        panes.unlink()
        away.rename(panes)
    assert not (
        panes / f"{dispatch_id}.exit.json"
    ).exists()  # the end could not be recorded, and nothing ran on


def test_an_agent_does_not_outlive_its_pane_when_the_state_root_is_gone(
    deliverable: Chain, tmp_path: Path
) -> None:
    import os
    import shutil
    import signal

    dispatch_id = _running(deliverable, "stubborn")
    sock = str(deliverable.state / "tmux.sock")
    server = int(
        subprocess.run(
            ["tmux", "-S", sock, "display", "-p", "#{pid}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    shutil.move(str(deliverable.state), str(tmp_path / "state-away"))
    shutil.rmtree(tmp_path / "state-away")
    os.kill(server, signal.SIGKILL)
    eventually(
        lambda: not _processes_of(dispatch_id),
        timeout=20,
        what="every process ends with the tmux server",
    )
