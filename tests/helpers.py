"""Helpers shared by tests (importable; conftest.py only holds fixtures)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from oms.fsio import FsioOptions, Publisher, Resolver
from oms.fsio._syscalls import Syscalls

REPO = Path(__file__).resolve().parent.parent


class EnosysSyscalls(Syscalls):
    """A kernel without openat2 (or with a seccomp filter on it): every openat2 call fails ENOSYS."""

    def openat2(self, dirfd: int, path: str, flags: int, mode: int, resolve: int) -> int:
        raise OSError(errno.ENOSYS, "injected: openat2 unavailable")


RESOLVERS = ("openat2", "walk", "auto-enosys")


def make_options(resolver: str, publisher: Publisher = Publisher.AUTO) -> FsioOptions:
    """fsio options for a resolver mode name used in parametrised tests."""
    if resolver == "auto-enosys":
        return FsioOptions(resolver=Resolver.AUTO, publisher=publisher, syscalls=EnosysSyscalls())
    return FsioOptions(resolver=Resolver(resolver), publisher=publisher)


@dataclass(frozen=True)
class OmsCommand:
    """How to run oms as a real process: from source or the frozen binary (OMS_TEST_BINARY)."""

    argv: tuple[str, ...]
    frozen: bool

    def run(self, *args: str, env: dict[str, str] | None = None, cwd: str | Path | None = None,
            stdin: bytes | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """Run `oms *args` and capture text output."""
        full_env = dict(os.environ)
        if env:
            full_env.update(env)
        return subprocess.run(
            [*self.argv, *args], capture_output=True, text=True, env=full_env, cwd=cwd,
            input=stdin.decode() if stdin is not None else None, timeout=timeout, check=False,
        )


def oms_command() -> OmsCommand:
    """The oms under test."""
    binary = os.environ.get("OMS_TEST_BINARY")
    if binary:
        return OmsCommand((os.path.abspath(binary),), True)
    return OmsCommand((sys.executable, "-m", "oms"), False)


def git(*args: str, cwd: str | Path) -> str:
    """Run git with the pinned test environment; return stdout."""
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout
