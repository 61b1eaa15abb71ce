"""What a sandbox's first process takes on between fork and exec (issue 23, ADR 0025): its cgroups,
the largest file it may write, and its share of its host user's kernel quotas.

The caller opens each of the sandbox's `cgroup.procs` (close-on-exec) before it forks; the child
writes `0` to each — the kernel moves the writing process, whole, into that cgroup — and sets
RLIMIT_FSIZE, and only then executes bubblewrap. So nothing of the sandbox ever runs outside its
cgroup (moving bubblewrap after it started would miss what it forked first), and no process is added
to do it. A write the kernel refuses fails the start: the sandbox never runs unbounded.

Some kernel quotas count per user up the user-namespace chain (inotify instances and watches,
fanotify groups and marks; POSIX message-queue bytes against RLIMIT_MSGQUEUE): whatever a sandbox
takes, its host user's own processes lose. A uid of its own does not help, as the kernel charges
each level's count to the namespace's owner (`kernel/ucount.c`). So the first process lowers its
RLIMIT_MSGQUEUE, makes a user namespace of its own (its own uid and gid mapped to themselves) and,
holding every capability in it, sets that namespace's `/proc/sys/user/max_*` to its share (`shares`)
before bubblewrap makes the sandbox's namespaces beneath it: what every process of the sandbox
takes is counted against that share as well, and the agent can raise none of it.

`end_members` kills what is left in a cgroup once its sandbox ended, by pidfd, each pid checked to
still be a member after its pidfd was opened (a recycled pid is never hit).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

from oms.fsio.procinfo import read_int, write_proc

CLONE_NEWUSER = 0x10000000
# the per-user quotas a user namespace bounds for itself (`/proc/sys/user/<name>`) and the host
# user's own value of each: in the namespace oms runs in, and system-wide
QUOTAS = {
    "max_inotify_instances": "fs/inotify/max_user_instances",
    "max_inotify_watches": "fs/inotify/max_user_watches",
    "max_fanotify_groups": "fs/fanotify/max_user_groups",
    "max_fanotify_marks": "fs/fanotify/max_user_marks",
}
_LIBC = ctypes.CDLL(None, use_errno=True)


class UserQuotas(NamedTuple):
    """A sandbox's share of its host user's kernel quotas: `/proc/sys/user/<name>` values for its
    own user namespace, and its RLIMIT_MSGQUEUE."""

    sysctls: tuple[tuple[str, int], ...]
    msgqueue_bytes: int


def shares(host: Mapping[str, int], msgqueue_bytes: int, share: int) -> UserQuotas:
    """Each of the host user's quotas (`host`: name -> value, the names of QUOTAS; an absent one is
    not bounded) divided by `share`, at least 1; the message-queue bytes likewise (at least 0)."""
    sysctls = tuple((name, max(1, host[name] // share)) for name in sorted(QUOTAS) if name in host)
    return UserQuotas(sysctls, max(0, msgqueue_bytes // share))


def host_quotas(share: int) -> UserQuotas:
    """This host user's share for one sandbox: each quota as the lower of this namespace's and the
    system's value (what the kernel does not have is not bounded)."""
    host: dict[str, int] = {}
    for name, system in QUOTAS.items():
        values = [
            v
            for v in (read_int(f"/proc/sys/user/{name}"), read_int(f"/proc/sys/{system}"))
            if v is not None
        ]
        if values:
            host[name] = min(values)
    soft, _ = resource.getrlimit(resource.RLIMIT_MSGQUEUE)
    msgqueue = soft if soft != resource.RLIM_INFINITY else 1 << 40
    return shares(host, msgqueue, share)


class Confinement(NamedTuple):
    """The cgroups to join (descriptors on their `cgroup.procs`) and the largest file (None: as
    now)."""

    join_fds: tuple[int, ...] = ()
    file_bytes: int | None = None
    quotas: UserQuotas | None = None  # its share of the host user's kernel quotas (None: as now)


def enter(confinement: Confinement) -> None:
    """Join the cgroups and bound the file size: in the child, between fork and exec (raises
    OSError)."""
    for fd in confinement.join_fds:
        os.write(fd, b"0")
    if confinement.file_bytes is not None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (confinement.file_bytes, confinement.file_bytes))
    if confinement.quotas is not None:
        _take_share(confinement.quotas)


def _take_share(quotas: UserQuotas) -> None:
    """Lower RLIMIT_MSGQUEUE, enter a user namespace of its own and bound its per-user quotas there
    (in the child, before exec; raises OSError)."""
    _, hard = resource.getrlimit(resource.RLIMIT_MSGQUEUE)
    limit = (
        quotas.msgqueue_bytes
        if hard == resource.RLIM_INFINITY
        else min(hard, quotas.msgqueue_bytes)
    )
    resource.setrlimit(resource.RLIMIT_MSGQUEUE, (limit, limit))
    uid, gid = os.getuid(), os.getgid()
    if _LIBC.unshare(CLONE_NEWUSER) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"unshare(CLONE_NEWUSER): {os.strerror(err)}")
    write_proc("/proc/self/uid_map", f"{uid} {uid} 1")
    write_proc("/proc/self/setgroups", "deny")
    write_proc("/proc/self/gid_map", f"{gid} {gid} 1")
    for name, value in quotas.sysctls:
        write_proc(f"/proc/sys/user/{name}", str(value))


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
