"""`tests.helpers.read_line`, how the tests read a program's answers line by line: two answers
written at once are both read at once (a buffered file object under `select` waited out its
deadline for the second: the real Codex's `hooks/list` answer, beside a CPU hog), a pipe's end
and a deadline are None, and what follows a line is kept for the next call."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator

import pytest

from tests.helpers import read_line


@pytest.fixture
def two_at_once() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        ["sh", "-c", "printf 'one\\ntwo\\nthr'; exec sleep 30"], stdout=subprocess.PIPE, bufsize=0
    )
    yield proc
    proc.kill()
    proc.wait()
    assert proc.stdout is not None
    proc.stdout.close()


def test_two_lines_written_at_once_are_both_read_at_once(
    two_at_once: subprocess.Popen[bytes],
) -> None:
    assert two_at_once.stdout is not None
    fd, pending = two_at_once.stdout.fileno(), bytearray()
    started = time.monotonic()
    assert read_line(fd, pending, started + 20) == b"one"
    assert read_line(fd, pending, started + 20) == b"two"
    assert time.monotonic() - started < 10  # not waited out
    assert read_line(fd, pending, time.monotonic() + 0.3) is None  # `thr` is no whole line yet
    assert pending == b"thr"


def test_a_pipes_end_is_none() -> None:
    proc = subprocess.Popen(["printf", "last\\nno newline"], stdout=subprocess.PIPE, bufsize=0)
    assert proc.stdout is not None
    pending = bytearray()
    assert read_line(proc.stdout.fileno(), pending, time.monotonic() + 20) == b"last"
    assert read_line(proc.stdout.fileno(), pending, time.monotonic() + 20) is None
    proc.wait()
    proc.stdout.close()
