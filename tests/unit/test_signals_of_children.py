"""A process a test starts can be interrupted whatever started the test run. A run started in the
background by a non-interactive shell (`./.ci/run &`, a CI runner's script) inherits SIGINT and
SIGQUIT ignored, which POSIX asks of such a shell, and an ignored signal stays ignored across
`exec`: every `oms` a test started then ignored Ctrl-C, so `oms worker log --follow` never ended on
SIGINT (`tests/cli/test_worker_log.py`, failed in a run beside a CPU hog, "SigIgn: …1006" in
its /proc status). `tests/conftest.py` gives the run back its default dispositions. Here a shell
started with both ignored runs pytest on a probe: the children it starts see the defaults."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

PROBE = """
import signal, subprocess, sys

def test_probe():
    child = subprocess.run(
        [sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT))"],
        capture_output=True, text=True, check=True,
    )
    assert child.stdout.strip() == "<built-in function default_int_handler>", child.stdout
"""


def _ignoring() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGQUIT, signal.SIG_IGN)


def test_a_run_started_with_sigint_ignored_gives_its_children_the_default(tmp_path: Path) -> None:
    probe = tmp_path / "test_probe.py"
    probe.write_text(PROBE)
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
         "-p", "no:xdist", "-p", "tests.conftest", "--rootdir", str(tmp_path), str(probe)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        preexec_fn=_ignoring,  # what a background shell does to its children
        env={**os.environ, "PYTHONPATH": str(root)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
