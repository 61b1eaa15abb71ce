"""Ctrl-C says what it is doing, a second ends it, and no child outlives the conductor or a tick
(issue 26 item 3, ADR 0031). Real `oms conductor` processes over a real fleet, real signals, and
an advisor that takes its time (a model call can take minutes): before, the first Ctrl-C printed
only ^C, the second was ignored, and the advisor ran on after the conductor ended."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from oms.adapters import git
from tests.fleet import Fleet, make_fleet
from tests.helpers import OmsCommand, eventually

SLOW_ADVISOR = """#!/bin/sh
echo $$ > "{pid}.tmp" && mv "{pid}.tmp" "{pid}"
exec sleep 600
"""


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    for made in make_fleet(tmp_path / "fleet", max_workers=1):
        script = tmp_path / "slow-advisor.sh"
        script.write_text(SLOW_ADVISOR.format(pid=tmp_path / "advisor.pid"))
        config = Path(made.repo, ".oms/config.toml")
        text = config.read_text()
        head, _, tail = text.partition('[roles."oms.exec-advisor"]')
        argv = json.dumps(["/bin/sh", str(script)])
        section = tail.split("\n[", 1)
        rest = "" if len(section) == 1 else "\n[" + section[1]
        lines = [x for x in section[0].splitlines() if not x.startswith("argv")]
        body = "\n".join([*lines, f"argv = {argv}"]) + "\n"
        config.write_text(head + '[roles."oms.exec-advisor"]' + body + rest)
        git.commit_all(made.repo, "a slow advisor")
        made.add("Add a line")
        yield made


def _until(what: Callable[[], bool], seconds: float = 180.0) -> None:
    eventually(what, timeout=seconds)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class Conductor:
    """An `oms conductor` process whose stderr is read as it comes."""

    def __init__(self, oms: OmsCommand, fleet: Fleet, *args: str) -> None:
        roots = ("--state-root", fleet.state, "--config-root", fleet.repo)
        self.proc = subprocess.Popen(
            [*oms.argv, "conductor", *args, *roots],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.err: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.err.append(line.rstrip("\n"))

    def said(self, start: str) -> bool:
        return any(line.startswith(start) for line in self.err)

    def end(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=60)
        self.reader.join(timeout=10)
        if self.proc.stderr is not None:
            self.proc.stderr.close()


def _advisor(tmp_path: Path, conductor: Conductor) -> int:
    pid_file = tmp_path / "advisor.pid"
    _until(lambda: pid_file.exists() or conductor.proc.poll() is not None)
    assert pid_file.exists(), conductor.err
    return int(pid_file.read_text())


def test_ctrl_c_says_what_it_waits_for_and_a_second_ends_it_and_its_advisor(
    fleet: Fleet, oms: OmsCommand, tmp_path: Path
) -> None:
    conductor = Conductor(oms, fleet, "run", "--interval", "1")
    advisor = None
    try:
        advisor = _advisor(tmp_path, conductor)
        conductor.proc.send_signal(signal.SIGINT)
        _until(lambda: conductor.said("oms: stopping after this tick"))
        line = next(x for x in conductor.err if x.startswith("oms: stopping after this tick"))
        assert "this tick is at fill: tkt-1: the advisor reviews dsp-" in line, line
        assert "(again to stop now; workers keep running)" in line
        assert conductor.proc.poll() is None  # the first waits for the tick
        assert _alive(advisor)
        conductor.proc.send_signal(signal.SIGINT)
        assert conductor.proc.wait(timeout=120) == 130
        _until(lambda: not _alive(advisor), 30)  # its advisor ended with it
    finally:
        conductor.end()
        if advisor is not None and _alive(advisor):
            os.kill(advisor, signal.SIGKILL)
    assert not any("Traceback" in line for line in conductor.err)


def test_a_ticks_ctrl_c_ends_it_and_its_advisor_at_once(
    fleet: Fleet, oms: OmsCommand, tmp_path: Path
) -> None:
    conductor = Conductor(oms, fleet, "tick")
    advisor = None
    try:
        advisor = _advisor(tmp_path, conductor)
        conductor.proc.send_signal(signal.SIGINT)
        assert conductor.proc.wait(timeout=120) == 130
        _until(lambda: not _alive(advisor), 30)
    finally:
        conductor.end()
        if advisor is not None and _alive(advisor):
            os.kill(advisor, signal.SIGKILL)
    assert any(
        x.startswith("oms: stopping now, at fill: tkt-1: the advisor") for x in conductor.err
    )


def test_a_conductor_killed_leaves_no_advisor_behind(
    fleet: Fleet, oms: OmsCommand, tmp_path: Path
) -> None:
    """SIGKILL: nothing of the conductor runs to end it; the kernel does (PR_SET_PDEATHSIG)."""
    conductor = Conductor(oms, fleet, "run", "--interval", "1")
    advisor = None
    try:
        advisor = _advisor(tmp_path, conductor)
        conductor.proc.send_signal(signal.SIGKILL)
        conductor.proc.wait(timeout=60)
        _until(lambda: not _alive(advisor), 30)
    finally:
        conductor.end()
        if advisor is not None and _alive(advisor):
            os.kill(advisor, signal.SIGKILL)
