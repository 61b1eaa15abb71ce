"""The raw system calls fsio needs, behind one object so tests can inject failures and watch order.

Python 3.11 has no `os.openat2` or `os.renameat2`; both are reached through `ctypes` and
`syscall(2)` (ADR 0003). Everything that matters for crash safety (fsync, link, rename, unlink) also
goes through `Syscalls`, so a test can subclass it, record the sequence, or raise ENOSYS/EINVAL on
demand.
"""

from __future__ import annotations

import ctypes
import errno
import os
from typing import ClassVar

RESOLVE_NO_XDEV = 0x01
RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_NO_SYMLINKS = 0x04
RESOLVE_BENEATH = 0x08
RESOLVE_STRICT = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS

RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2

# syscall numbers: openat2 is 437 on every architecture with the generic table; renameat2 differs.
_SYS_OPENAT2 = 437
_SYS_RENAMEAT2 = {"x86_64": 316, "aarch64": 276, "arm64": 276}


class _OpenHow(ctypes.Structure):
    _fields_: ClassVar[list[tuple[str, type[ctypes.c_uint64]]]] = [
        ("flags", ctypes.c_uint64),
        ("mode", ctypes.c_uint64),
        ("resolve", ctypes.c_uint64),
    ]


class Syscalls:
    """Thin wrappers; each raises `OSError` with the kernel's errno, exactly like `os` functions."""

    def __init__(self) -> None:
        self._libc: ctypes.CDLL | None = None

    def _lib(self) -> ctypes.CDLL:
        if self._libc is None:
            lib = ctypes.CDLL(None, use_errno=True)
            lib.syscall.restype = ctypes.c_long
            self._libc = lib
        return self._libc

    def openat2(self, dirfd: int, path: str, flags: int, mode: int, resolve: int) -> int:
        """openat2(2); raises OSError(ENOSYS) where the kernel or architecture lacks it."""
        how = _OpenHow(flags, mode, resolve)
        encoded = os.fsencode(path)
        res = self._lib().syscall(
            ctypes.c_long(_SYS_OPENAT2),
            ctypes.c_long(dirfd),
            ctypes.c_char_p(encoded),
            ctypes.byref(how),
            ctypes.c_size_t(ctypes.sizeof(how)),
        )
        if res < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err), path)
        return int(res)

    def renameat2(self, olddirfd: int, old: str, newdirfd: int, new: str, flags: int) -> None:
        """renameat2(2); EINVAL means the filesystem (or glibc) cannot do it."""
        number = _SYS_RENAMEAT2.get(
            os.uname().machine
        )  # what platform.machine() returns, without importing it
        if number is None:
            raise OSError(errno.ENOSYS, "renameat2 syscall number unknown on this architecture")
        res = self._lib().syscall(
            ctypes.c_long(number),
            ctypes.c_long(olddirfd),
            ctypes.c_char_p(os.fsencode(old)),
            ctypes.c_long(newdirfd),
            ctypes.c_char_p(os.fsencode(new)),
            ctypes.c_uint(flags),
        )
        if res < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err), new)

    # The calls below are plain `os` functions, routed here so that tests can observe their order.
    def open(self, path: str, flags: int, mode: int = 0o600, *, dir_fd: int | None = None) -> int:
        """os.open relative to `dir_fd`."""
        return os.open(path, flags, mode, dir_fd=dir_fd)

    def fsync(self, fd: int) -> None:
        """os.fsync."""
        os.fsync(fd)

    def link_fd(self, fd: int, dst_dir_fd: int, name: str) -> None:
        """Give an O_TMPFILE inode a name; fails with EEXIST rather than replacing."""
        os.link(f"/proc/self/fd/{fd}", name, dst_dir_fd=dst_dir_fd, follow_symlinks=True)

    def link(self, src_dir_fd: int, src: str, dst_dir_fd: int, dst: str) -> None:
        """link(2) without following symlinks; never replaces `dst`."""
        os.link(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd, follow_symlinks=False)

    def unlink(self, dir_fd: int, name: str) -> None:
        """unlinkat(2)."""
        os.unlink(name, dir_fd=dir_fd)


DEFAULT_SYSCALLS = Syscalls()
