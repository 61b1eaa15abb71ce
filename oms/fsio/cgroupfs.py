"""The cgroup file system, outside every root (issue 23, ADR 0025): the few calls
`adapters/cgroups.py` makes — read a small file, make and remove a directory, write a value, list a
cgroup's processes, and open a `cgroup.procs` for a child to join through (`process/confine.py`).
Nothing follows a symlink at the last component; reads are bounded; writes never create a file (a
cgroup's files are the kernel's).

`CgroupFs` is the real one; a test drives the same calls against a simulated cgroup tree.
"""

from __future__ import annotations

import os
from typing import Protocol

_READ = os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NOCTTY
_WRITE = os.O_WRONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NOCTTY


class CgroupFiles(Protocol):
    """What oms does to a cgroup file system (`CgroupFs`, or a simulation)."""

    def read(self, path: str, cap: int) -> str:
        """The file's text, at most `cap` bytes (OSError when it cannot be read)."""
        ...

    def mkdir(self, path: str) -> None:
        """Make the directory (OSError: EEXIST when it exists)."""
        ...

    def rmdir(self, path: str) -> None:
        """Remove the directory (OSError: EBUSY while it holds a process)."""
        ...

    def write(self, path: str, value: str) -> None:
        """Write `value` to an existing file in one call (OSError when refused)."""
        ...

    def exists(self, path: str) -> bool:
        """Whether there is an entry (not followed when a link)."""
        ...

    def open_join(self, path: str) -> int:
        """A write-only descriptor on a `cgroup.procs` (close-on-exec): a child writes `0` to it."""
        ...


class CgroupFs:
    """The real cgroup file system."""

    def read(self, path: str, cap: int) -> str:
        """The file's text, at most `cap` bytes."""
        fd = os.open(path, _READ)
        try:
            chunks: list[bytes] = []
            left = cap
            while left > 0 and (chunk := os.read(fd, min(left, 65536))):
                chunks.append(chunk)
                left -= len(chunk)
            return b"".join(chunks).decode("utf-8", "replace")
        finally:
            os.close(fd)

    def mkdir(self, path: str) -> None:
        """Make the directory (the kernel fills it with the cgroup's files)."""
        os.mkdir(path, 0o755)

    def rmdir(self, path: str) -> None:
        """Remove the directory (a cgroup with a process in it is refused: EBUSY)."""
        os.rmdir(path)

    def write(self, path: str, value: str) -> None:
        """Write `value` in one call; a cgroup file takes a value whole or refuses it."""
        fd = os.open(path, _WRITE)
        try:
            os.write(fd, value.encode("ascii"))
        finally:
            os.close(fd)

    def exists(self, path: str) -> bool:
        """Whether there is an entry (a link is not followed)."""
        try:
            os.lstat(path)
        except OSError:
            return False
        return True

    def open_join(self, path: str) -> int:
        """A write-only descriptor on `path` (a `cgroup.procs`), close-on-exec."""
        return os.open(path, _WRITE)


def processes(files: CgroupFiles, procs: str, cap: int) -> list[int]:
    """The pids a `cgroup.procs` lists (at most `cap` bytes of it are read)."""
    return [int(word) for word in files.read(procs, cap).split() if word.isdigit()]
