"""Who holds a lock or owns a temp file: a process identity that survives pid reuse.

An identity is (boot id, pid, start time in clock ticks since boot). A process is "that exact
process" only if all three still match, so a recycled pid or a reboot makes a stale lock provably
stale (ADR 0003: mtime-based stale detection steals locks from slow live holders).
"""

from __future__ import annotations

import errno
import os
import resource
from typing import NamedTuple

from oms.limits import LIMITS

_BOOT_ID_PATH = "/proc/sys/kernel/random/boot_id"


class ProcessIdentity(NamedTuple):
    """A running process, named so that it cannot be confused with a later one of the same pid."""

    boot_id: str
    pid: int
    start_ticks: int

    def token(self) -> str:
        """A filename-safe rendering: `<pid>.<start_ticks>.<boot id without dashes>`."""
        return f"{self.pid}.{self.start_ticks}.{self.boot_id.replace('-', '')}"


def _read_small(path: str, cap: int = LIMITS.proc_stat_bytes) -> bytes | None:
    # /proc files, never under a state root; missing means the process is gone.
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        return os.read(fd, cap)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_int(path: str) -> int | None:
    """A /proc number (a sysctl, say); None when absent or not a number."""
    data = _read_small(path, 64)
    try:
        return None if data is None else int(data.strip())
    except ValueError:
        return None


def write_proc(path: str, text: str) -> None:
    """Write `text` to a /proc file in one write (a map, a sysctl; raises OSError). Safe between
    fork and exec: no lock is taken."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def boot_id() -> str:
    """The kernel's boot id (changes at every boot)."""
    raw = _read_small(_BOOT_ID_PATH)
    return raw.decode("ascii", "replace").strip() if raw else "unknown"


def start_ticks(pid: int) -> int | None:
    """Field 22 of /proc/<pid>/stat, or None when the process does not exist or is a zombie."""
    raw = _read_small(f"/proc/{pid}/stat")
    if raw is None:
        return None
    # The command name (field 2) may contain spaces and parentheses: split after the last ')'.
    tail = raw[raw.rfind(b")") + 2 :].split()
    try:
        state, ticks = tail[0], int(tail[19])
    except (IndexError, ValueError):
        return None
    # A zombie (Z) or dead (X) process can never release what it holds.
    return None if state in (b"Z", b"X") else ticks


def group_alive(pgid: int) -> bool:
    """True while a live process (not a zombie) of process group `pgid` exists: a scan of /proc, so
    that zombies nobody reaps (an orphan's parent may be a minimal init) do not count as alive.

    The one liveness rule for a process group in oms (a pane's end, `kill_group`, `Panes.stop`): a
    zombie is not alive — it runs nothing, holds no file or terminal, and no signal ends it;
    counting it would make a pane whose agent is only a zombie look alive forever (`kill(-pgid, 0)`
    succeeds for it)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True  # cannot tell: assume alive
    want = str(pgid).encode()
    for name in entries:
        if not name.isdigit():
            continue
        raw = _read_small(f"/proc/{name}/stat")
        if raw is None:
            continue
        tail = raw[raw.rfind(b")") + 2 :].split()
        if len(tail) > 2 and tail[2] == want and tail[0] not in (b"Z", b"X"):
            return True
    return False


def carrying(comm: bytes, entries: tuple[bytes, ...]) -> list[ProcessIdentity]:
    """The live processes named `comm` whose environment holds every one of `entries` (`KEY=value`):
    a scan of /proc, which shows another user's environment to nobody but root (only looked at)."""
    found = []
    boot = boot_id()
    for name in os.listdir("/proc"):
        if not name.isdigit() or _read_small(f"/proc/{name}/comm", 64) != comm + b"\n":
            continue
        environ = _read_small(f"/proc/{name}/environ", 1 << 20)
        ticks = start_ticks(int(name))
        if environ is None or ticks is None:
            continue
        present = set(environ.split(b"\0"))
        if all(entry in present for entry in entries):
            found.append(ProcessIdentity(boot, int(name), ticks))
    return found


_SELF: ProcessIdentity | None = None


def current() -> ProcessIdentity:
    """The identity of this process (computed once; a fork gets its own)."""
    global _SELF  # noqa: PLW0603 - a per-process cache
    pid = os.getpid()
    if _SELF is None or _SELF.pid != pid:
        _SELF = ProcessIdentity(boot_id(), pid, start_ticks(pid) or 0)
    return _SELF


def is_alive(identity: ProcessIdentity) -> bool:
    """True only while that exact process (same boot, pid and start time) still exists."""
    if identity.boot_id != boot_id():
        return False
    ticks = start_ticks(identity.pid)
    return ticks is not None and ticks == identity.start_ticks


def descriptors_left() -> int:
    """How many more descriptors this process may open now (its soft `RLIMIT_NOFILE` less those
    open; a large number when it has no limit or /proc cannot be read, none when /proc/self/fd
    cannot even be listed for want of one)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 1 << 20
    try:
        used = len(os.listdir("/proc/self/fd"))
    except OSError as exc:
        return 0 if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOMEM) else 1 << 20
    return soft - used
