"""`oms worker log DSP [--follow]` (issue 26 item 4): a worker's pane log — the lines that say why
an attempt went as it did ("attempt fenced", "stop gate released") — with their times; --follow
until the attempt ends (exit 0) or Ctrl-C (exit 130, one line); --json one object a line. A hostile
agent's bytes in the log reach the person's terminal escaped, never as a control sequence."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.chain import Chain, accepted
from tests.helpers import OmsCommand

pytestmark = pytest.mark.cli

HOSTILE = (
    b"2026-12-02T10:00:01Z hook note: \x1b]0;owned\x07\x1b[2J\x1b[31mred\r\x9b1m "
    b"\xe2\x80\xae fdp.exe \xff done\n"
)


def _roots(chain: Chain) -> tuple[str, ...]:
    return ("--state-root", str(chain.state), "--config-root", str(chain.repo))


def _append(chain: Chain, dispatch_id: str, data: bytes) -> None:
    panes = chain.state / "panes"
    panes.mkdir(mode=0o700, exist_ok=True)
    fd = os.open(panes / f"{dispatch_id}.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def test_the_log_is_shown_with_its_times_and_a_hostile_line_escaped(
    oms: OmsCommand, chain: Chain
) -> None:
    dispatch_id, _ = accepted(chain)
    empty = oms.run("worker", "log", dispatch_id, *_roots(chain))
    assert empty.returncode == 0, empty.stderr
    assert "nothing logged" in empty.stdout
    _append(chain, dispatch_id, b"2026-12-02T10:00:00Z attempt fenced: its lease ran out\n")
    _append(chain, dispatch_id, HOSTILE)
    shown = oms.run("worker", "log", dispatch_id, *_roots(chain))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0].split() == ["2026-12-02T10:00:00Z", "attempt", "fenced:", "its", "lease"] + [
        "ran",
        "out",
    ]
    assert len(lines) == 2  # the carriage return and the escapes did not make lines
    assert all(ch == "\n" or 0x20 <= ord(ch) != 0x7F for ch in shown.stdout)  # no control at all
    assert "\u202e" not in shown.stdout
    assert "\\x1b]0;owned\\x07\\x1b[2J" in lines[1]
    assert "\\u202e" in lines[1]
    assert "\\xff" in lines[1]
    as_json = oms.run("worker", "log", dispatch_id, "--json", *_roots(chain))
    docs = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [d["at"] for d in docs] == ["2026-12-02T10:00:00Z", "2026-12-02T10:00:01Z"]
    assert "\x1b" not in docs[1]["line"]
    missing = oms.run("worker", "log", "dsp-" + "0" * 32, *_roots(chain))
    assert missing.returncode == 1
    assert missing.stderr.startswith("oms: error: no worker dsp-")  # one line and its fix


def _follow(oms: OmsCommand, chain: Chain, dispatch_id: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*oms.argv, "worker", "log", dispatch_id, "--follow", "--json", *_roots(chain)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Kill it if it still runs and close its pipes: a pipe left open is a ResourceWarning in
    whichever test of the worker collects it next (a failed run named the next test)."""
    proc.kill()
    proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def _next_line(proc: subprocess.Popen[bytes], timeout: float = 60.0) -> bytes:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "no line from --follow"
    return proc.stdout.readline()


def test_follow_prints_new_lines_until_the_attempt_ends(oms: OmsCommand, chain: Chain) -> None:
    dispatch_id, _ = accepted(chain)
    _append(chain, dispatch_id, b"2026-12-02T10:00:00Z first\n")
    proc = _follow(oms, chain, dispatch_id)
    try:
        assert json.loads(_next_line(proc))["line"] == "first"
        _append(chain, dispatch_id, b"2026-12-02T10:00:02Z stop gate released after 3 blocks\n")
        assert "stop gate released" in json.loads(_next_line(proc))["line"]
        _append(chain, dispatch_id, b"2026-12-02T10:00:03Z the last line before its end\n")
        stopped = oms.run("worker", "stop", dispatch_id, *_roots(chain))
        assert stopped.returncode == 0, stopped.stderr
        out, err = proc.communicate(timeout=60)
    finally:
        _end(proc)
    assert proc.returncode == 0, err
    assert [json.loads(line)["line"] for line in out.splitlines()] == [
        "the last line before its end"
    ]


def test_ctrl_c_ends_follow_with_one_line_and_exit_130(oms: OmsCommand, chain: Chain) -> None:
    dispatch_id, _ = accepted(chain)
    _append(chain, dispatch_id, b"2026-12-02T10:00:00Z first\n")
    proc = _follow(oms, chain, dispatch_id)
    try:
        _next_line(proc)
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # what the process made of it (tests/conftest.py: a run
            # started in the background once gave every process SIGINT ignored)
            raise AssertionError(f"no end 60 s after SIGINT: {_signal_state(proc.pid)}") from None
    finally:
        _end(proc)
    assert proc.returncode == 130
    said = err.decode().strip().splitlines()
    assert len(said) == 1, said
    assert said[0].startswith("oms: interrupted")


def _signal_state(pid: int) -> str:
    """Its signal masks (blocked, ignored, caught) and where its main thread waits, from /proc."""
    try:
        status = Path(f"/proc/{pid}/status").read_text().splitlines()
        wchan = Path(f"/proc/{pid}/wchan").read_text()
    except OSError as exc:
        return f"(/proc/{pid} unreadable: {exc})"
    masks = [
        line
        for line in status
        if line.startswith(("State", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt", "Threads"))
    ]
    return "; ".join([*masks, f"wchan {wchan}"])


def test_a_log_line_longer_than_a_read_is_shown_in_pieces(oms: OmsCommand, chain: Chain) -> None:
    dispatch_id, _ = accepted(chain)
    _append(chain, dispatch_id, b"x" * (200 * 1024) + b"\n" + b"2026-12-02T10:00:00Z end\n")
    started = time.monotonic()
    shown = oms.run("worker", "log", dispatch_id, *_roots(chain))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[-1].endswith(" end")
    assert len(shown.stdout) < 20 * 1024  # its tail, bounded
    assert time.monotonic() - started < 60
    assert Path(chain.state, "panes", f"{dispatch_id}.log").stat().st_size > 200 * 1024
