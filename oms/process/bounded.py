"""A command whose output is hostile (issue 14: a repository's checks, agent-written code): run outside any
shell in its own session, its stdout and stderr kept together up to a bound and the rest read and dropped
(a flood neither fills memory nor blocks the command), killed with its whole process group at its time
limit.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from oms.errors import ToolNotFoundError


@dataclass(frozen=True, slots=True)
class Bounded:
    """How it ran: its exit code (None: killed at its time limit), its output (bounded), whether more was
    dropped, and how long it took."""

    returncode: int | None
    output: bytes
    truncated: bool
    duration_ms: int


def run_bounded(
    argv: Sequence[str], *, env: Mapping[str, str], timeout: float, max_output: int, pass_fds: tuple[int, ...] = ()
) -> Bounded:
    """Run `argv` (an absolute program) to its end or its time limit (`pass_fds`: descriptors it inherits)."""
    started = time.monotonic()
    try:
        proc = subprocess.Popen(  # argv list, never a shell
            tuple(argv),
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            close_fds=True,
            pass_fds=pass_fds,
            start_new_session=True,
        )
    except OSError as exc:
        raise ToolNotFoundError(f"{argv[0]} cannot run ({exc.strerror})") from exc
    assert proc.stdout is not None  # noqa: S101 - a pipe was requested
    kept: list[bytes] = []
    size, truncated, timed_out = 0, False, False
    deadline = started + timeout
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout.fileno(), selectors.EVENT_READ)
            while sel.get_map():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    timed_out = True
                    break
                if not sel.select(remaining):
                    continue
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    sel.unregister(proc.stdout.fileno())
                    continue
                room = max_output - size
                if room > 0:
                    kept.append(chunk[:room])
                    size += min(room, len(chunk))
                truncated = truncated or len(chunk) > room
        if not timed_out:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
    finally:
        if proc.poll() is None:  # its time is up (or we are interrupted): its whole session goes, unreaped yet
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    elapsed = int((time.monotonic() - started) * 1000)
    return Bounded(None if timed_out else proc.returncode, b"".join(kept), truncated, elapsed)
