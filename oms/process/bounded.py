"""A command whose output is hostile (issue 14: a repository's checks, agent-written code): run
outside any shell in its own session, its stdout and stderr kept together up to a bound and the rest
read and dropped (a flood neither fills memory nor blocks the command), killed with its whole
process group at its time limit — or as soon as `watch` names a bound it reached (issue 23: its
cgroup's counters, its disk).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from oms.errors import ProcessFailedError, ToolNotFoundError
from oms.process.confine import Confinement, before_exec


@dataclass(frozen=True, slots=True)
class Bounded:
    """How it ran: its exit code (None: killed at its time limit), its output (bounded), whether
    more was dropped, how long it took, and the bound `watch` said it reached (then it was
    killed)."""

    returncode: int | None
    output: bytes
    truncated: bool
    duration_ms: int
    reached: str | None = None


Watch = Callable[[], str | None]  # the bound a running command reached, or None


def run_bounded(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    timeout: float,
    max_output: int,
    pass_fds: tuple[int, ...] = (),
    confine: Confinement | None = None,
    watch: Watch | None = None,
    watch_every: float = 1.0,
) -> Bounded:
    """Run `argv` (an absolute program) to its end or its time limit (`pass_fds`: descriptors it
    inherits; `confine`: its cgroups and largest file, `confine.py`), asking `watch` every
    `watch_every` seconds and once it ended whether it reached a bound."""
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
            preexec_fn=before_exec(confine),  # noqa: PLW1509 - writes to descriptors, no lock taken
        )
    except subprocess.SubprocessError as exc:  # its cgroup refused it: it never runs unbounded
        why = "could not join its cgroup"
        raise ProcessFailedError(tuple(argv), 1, str(exc).encode(), why=why) from exc
    except OSError as exc:
        raise ToolNotFoundError(f"{argv[0]} cannot run ({exc.strerror})") from exc
    assert proc.stdout is not None  # noqa: S101 - a pipe was requested
    kept: list[bytes] = []
    size, truncated, timed_out = 0, False, False
    reached: str | None = None
    deadline = started + timeout
    next_watch = started + watch_every
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout.fileno(), selectors.EVENT_READ)
            while sel.get_map():
                now = time.monotonic()
                remaining = deadline - now
                if remaining <= 0:
                    timed_out = True
                    break
                if watch is not None and now >= next_watch:
                    reached = watch()
                    if reached is not None:
                        break
                    next_watch = time.monotonic() + watch_every
                wait = remaining
                if watch is not None:
                    wait = max(0.0, min(remaining, next_watch - time.monotonic()))
                if not sel.select(wait):
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
        if not timed_out and reached is None:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
    finally:
        if (
            proc.poll() is None
        ):  # its time is up (or we are interrupted): its whole session goes, unreaped yet
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    if reached is None and watch is not None and not timed_out:
        reached = watch()  # a bound reached just before the end (the kernel's OOM kill ended it)
    elapsed = int((time.monotonic() - started) * 1000)
    code = None if timed_out else proc.returncode
    return Bounded(code, b"".join(kept), truncated, elapsed, reached)
