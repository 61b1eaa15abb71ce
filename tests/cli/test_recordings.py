"""The terminal recordings README links (docs/recordings/*.txt) are what `oms demo` and `oms status`
print in a real terminal: each is made here by running the command in a tmux pane (a private server)
and reading it back with `capture-pane`. Ids, times, hashes and paths vary from run to run, so both
sides are normalised; every line of the kept recording must be on the screen now, so a change to
what oms prints fails here until the recording is made again (`OMS_RECORD=1 pytest
tests/cli/test_recordings.py`)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.helpers import OmsCommand, eventually

RECORDINGS = Path(__file__).resolve().parents[2] / "docs" / "recordings"
NORMALISE = (
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uuid>"),
    (re.compile(r"\b(dsp|evt-delivery|evt|wt|ses)-[0-9a-f]{8,64}\b"), r"\1-<id>"),
    (re.compile(r"\b[0-9a-f]{40}\b"), "<commit>"),
    (re.compile(r"\b[0-9a-f]{12,16}\b"), "<hex>"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"), "<timestamp>"),
    (re.compile(r"\b\d\d:\d\d:\d\d\.\d{3}\b"), "<time>"),
    (re.compile(r"%\d+"), "%<pane>"),
    (re.compile(r"(/[\w.+-]+)+/(demo|state|repo)\b"), r"<dir>/\2"),
    (re.compile(r"\b\d+(\.\d+)? ?(ms|s)\b"), "<n> \\2"),
)


def normalised(text: str) -> list[str]:
    """The screen's lines with what varies from run to run replaced, trailing blanks dropped."""
    lines = []
    for line in text.splitlines():
        for pattern, replacement in NORMALISE:
            line = pattern.sub(replacement, line)
        lines.append(re.sub(r"\s+", " ", line).rstrip())
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _screen(oms: OmsCommand, tmp_path: Path, command: list[str], done: str) -> str:
    """Run `oms <command>` in a 120x50 tmux pane; the whole pane (history too) once `done` shows.

    Each command gets its own tmux server: a `new-session` on a socket whose server is still
    exiting from the last `kill-server` can be lost ("server exited unexpectedly").
    """
    socket = tmp_path / f"record-{command[0]}.sock"
    line = (
        " ".join(shlex.quote(a) for a in [*oms.argv, *command]) + "; echo '[exit '$?']'; sleep 600"
    )
    subprocess.run(
        [
            "tmux",
            "-S",
            str(socket),
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "50",
            "sh",
            "-c",
            line,
        ],
        check=True,
        # the pane's own width decides what is cut (a COLUMNS an xdist worker inherits must not)
        env={
            **{k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")},
            "TERM": "xterm-256color",
            "OMS_HOST": "laptop",  # the host column shows a name, not this machine's
        },
    )
    try:

        def exited() -> str:
            shown = subprocess.run(
                ["tmux", "-S", str(socket), "capture-pane", "-p", "-J", "-S", "-"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            assert "[exit " in shown, shown[-3000:]
            return shown

        shown = eventually(exited, timeout=240, what="the recorded command exits")
        assert done in shown, shown[-3000:]
        assert "[exit 0]" in shown, shown[-3000:]
        return shown[: shown.index("[exit ")]
    finally:
        subprocess.run(["tmux", "-S", str(socket), "kill-server"], capture_output=True, check=False)


def _check(name: str, shown: str, where: Path) -> None:
    path = RECORDINGS / f"{name}.txt"
    if os.environ.get("OMS_RECORD") == "1":  # kept with a neutral directory in place of this run's
        RECORDINGS.mkdir(exist_ok=True)
        path.write_text(shown.replace(str(where), "/tmp/oms-recording").rstrip() + "\n")
    kept = [line for line in normalised(path.read_text()) if line]
    now = set(normalised(shown))
    missing = [line for line in kept if line not in now]
    assert missing == [], (
        f"{path.name} no longer shows what oms prints (OMS_RECORD=1 makes it again): {missing[:5]}"
    )


@pytest.fixture
def demo_dir(tmp_path: Path) -> Path:
    return tmp_path / "demo"


def test_the_demo_recording_is_what_oms_demo_shows(
    oms: OmsCommand, tmp_path: Path, demo_dir: Path
) -> None:
    shown = _screen(oms, tmp_path, ["demo", "--dir", str(demo_dir)], "Where to look")
    _check("demo", shown, tmp_path)
    status = _screen(
        oms,
        tmp_path,
        [
            "status",
            "--state-root",
            str(demo_dir / "state"),
            "--config-root",
            str(demo_dir / "repo"),
        ],
        "sessions",
    )
    _check("status", status, tmp_path)
