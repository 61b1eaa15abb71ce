"""Probe what the kernel and filesystem under a directory offer fsio (for `oms doctor`).

Each probe runs in a fresh private scratch directory made beneath an open directory (`probe_at`:
never through a path string, so a symlink in its place cannot send the probe elsewhere) and removes
what it made. A probe returns None when the capability works, or a short reason when it does not.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets

from oms.fsio._syscalls import DEFAULT_SYSCALLS, RENAME_NOREPLACE, RESOLVE_STRICT

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _reason(err: OSError) -> str:
    return f"{errno.errorcode.get(err.errno or 0, 'error')} ({os.strerror(err.errno or 0).lower()})"


def probe(where: str) -> dict[str, str | None]:
    """`probe_at` the directory `where` (opened without following a final symlink)."""
    fd = os.open(where, _DIR)
    try:
        return probe_at(fd)
    finally:
        os.close(fd)


def probe_at(parent: int) -> dict[str, str | None]:
    """{"openat2": ..., "renameat2": ..., "o_tmpfile": ...} measured in a scratch dir made in
    `parent`."""
    sys_ = DEFAULT_SYSCALLS
    scratch = f".oms-probe-{os.getpid()}-{secrets.token_hex(4)}"
    os.mkdir(scratch, 0o700, dir_fd=parent)
    dfd = os.open(scratch, _DIR, dir_fd=parent)
    results: dict[str, str | None] = {}
    made: list[str] = []
    try:
        try:
            os.close(sys_.openat2(dfd, ".", _DIR, 0, RESOLVE_STRICT))
            results["openat2"] = None
        except OSError as err:
            results["openat2"] = _reason(err)
        try:
            fd = os.open(
                "a", os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_CLOEXEC, 0o600, dir_fd=dfd
            )
            os.close(fd)
            made.append("a")
            sys_.renameat2(dfd, "a", dfd, "b", RENAME_NOREPLACE)
            made[-1] = "b"
            results["renameat2"] = None
        except OSError as err:
            results["renameat2"] = _reason(err)
        try:
            fd = os.open(".", os.O_TMPFILE | os.O_WRONLY | os.O_CLOEXEC, 0o600, dir_fd=dfd)
            try:
                sys_.link_fd(fd, dfd, "c")
                made.append("c")
            finally:
                os.close(fd)
            results["o_tmpfile"] = None
        except OSError as err:
            results["o_tmpfile"] = _reason(err)
    finally:
        for name in made:
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=dfd)
        os.close(dfd)
        with contextlib.suppress(OSError):
            os.rmdir(scratch, dir_fd=parent)
    return results
