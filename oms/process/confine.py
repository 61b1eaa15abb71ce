"""What a sandbox's first process takes on between fork and exec (issue 23, ADR 0025): its cgroups
and the largest file it may write.

The caller opens each of the sandbox's `cgroup.procs` (close-on-exec) before it forks; the child
writes `0` to each — the kernel moves the writing process, whole, into that cgroup — and sets
RLIMIT_FSIZE, and only then executes bubblewrap. So nothing of the sandbox ever runs outside its
cgroup (moving bubblewrap after it started would miss what it forked first), and no process is added
to do it. A write the kernel refuses fails the start: the sandbox never runs unbounded.

`end_members` kills what is left in a cgroup once its sandbox ended, by pidfd, each pid checked to
still be a member after its pidfd was opened (a recycled pid is never hit).
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
from collections.abc import Callable, Iterable
from typing import NamedTuple


class Confinement(NamedTuple):
    """The cgroups to join (descriptors on their `cgroup.procs`) and the largest file (None: as
    now)."""

    join_fds: tuple[int, ...] = ()
    file_bytes: int | None = None


def enter(confinement: Confinement) -> None:
    """Join the cgroups and bound the file size: in the child, between fork and exec (raises
    OSError)."""
    for fd in confinement.join_fds:
        os.write(fd, b"0")
    if confinement.file_bytes is not None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (confinement.file_bytes, confinement.file_bytes))


def before_exec(
    confinement: Confinement | None,
    also: Callable[[], None] | None = None,
) -> Callable[[], None] | None:
    """What a child runs before it executes: `enter`, then `also` (e.g. a Landlock scope)."""
    if confinement is None and also is None:
        return None

    def child() -> None:
        if confinement is not None:
            enter(confinement)
        if also is not None:
            also()

    return child


def end_members(pids: Iterable[int], members: Callable[[], set[int]]) -> int:
    """SIGKILL each of `pids` that `members()`, asked once their pidfds are held, still lists; how
    many were signalled."""
    held: dict[int, int] = {}
    try:
        for pid in pids:
            if pid > 1 and pid not in held:
                with contextlib.suppress(OSError):
                    held[pid] = os.pidfd_open(pid)
        if not held:
            return 0
        still = members()
        killed = 0
        for pid, fd in held.items():
            if pid in still:
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(fd, signal.SIGKILL)
                    killed += 1
        return killed
    finally:
        for fd in held.values():
            os.close(fd)
