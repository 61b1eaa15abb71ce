"""Landlock scoping for a worker's sandbox: no abstract Unix socket and no signal beyond it (ADR
0012).

The sandbox shares the host's network namespace (the model API), and abstract Unix sockets live in
the network namespace, not the file system: without more, an agent could connect to any abstract
socket on the host (a desktop session's, a container runtime's) — the escape suite did. Landlock's
scopes (ABI 6, Linux 6.12) close that: a process in a scoped domain may not connect to an abstract
socket created outside it, nor signal a process outside it. The supervisor applies the domain in its
child just before it executes bubblewrap, so the sandbox and everything in it inherit it, and the
supervisor (outside) keeps serving and signalling them. No file-system or network rule is set: only
the two scopes.

On an older kernel the scopes do not exist; `abi()` says so, and `oms doctor` reports it.
"""

from __future__ import annotations

import ctypes
import os

SYS_CREATE_RULESET, SYS_RESTRICT_SELF = (
    444,
    446,
)  # the same number on every architecture (asm-generic)
CREATE_RULESET_VERSION = 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2
SCOPES_SINCE_ABI = 6
PR_SET_NO_NEW_PRIVS = 38


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def abi() -> int:
    """The kernel's Landlock ABI version (0 when Landlock is absent or disabled)."""
    found = _libc().syscall(
        SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION)
    )
    return int(found) if found > 0 else 0


def scoping() -> bool:
    """Whether this kernel can scope a sandbox (abstract sockets and signals)."""
    return abi() >= SCOPES_SINCE_ABI


def scope_self() -> None:
    """Put this process (and what it will execute) in a domain scoped for abstract sockets and
    signals. Called in the child between fork and exec; raises OSError when the kernel refuses."""
    libc = _libc()
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    attr = _RulesetAttr(0, 0, SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL)
    fd = libc.syscall(
        SYS_CREATE_RULESET,
        ctypes.byref(attr),
        ctypes.c_size_t(ctypes.sizeof(attr)),
        ctypes.c_uint32(0),
    )
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        if libc.syscall(SYS_RESTRICT_SELF, ctypes.c_int(fd), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(fd)
