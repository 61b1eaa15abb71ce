"""A child oms feeds on stdin is held to its time limit whether or not it reads (SECURITY.md
"Talking to an agent; hearing back": a `[notify]` command gets the notice on stdin; so do `gh`,
the advisor and the tree jobs). `process.run` wrote the whole input before it looked at the clock
or read a byte of output: more than a pipe holds (64 KiB) to a child that never read it blocked
oms until the child ended — never, for one that hangs — and a child that wrote a pipe's worth
before reading its input deadlocked with oms. Now the input is written as the child takes it,
beside the reads, within the same time limit."""

from __future__ import annotations

import time

import pytest

from oms.errors import ProcessTimeoutError
from oms.process import run

MORE_THAN_A_PIPE = b"x" * (1 << 20)


def test_a_child_that_never_reads_is_killed_at_its_time_limit() -> None:
    began = time.monotonic()
    with pytest.raises(ProcessTimeoutError, match=r"did not finish within 0\.5s"):
        run(["sleep", "30"], stdin=MORE_THAN_A_PIPE, timeout=0.5)
    assert time.monotonic() - began < 10  # before: the child's whole 30 s


def test_a_child_that_writes_before_it_reads_is_no_deadlock() -> None:
    done = run(
        ["sh", "-c", "head -c 300000 /dev/zero; wc -c"],
        stdin=MORE_THAN_A_PIPE,
        timeout=20,
        max_output=1 << 21,
    )
    assert done.stdout[:300000] == b"\0" * 300000
    assert done.stdout[300000:].strip() == str(len(MORE_THAN_A_PIPE)).encode()
