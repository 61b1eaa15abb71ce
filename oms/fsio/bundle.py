"""The files of a frozen oms: the digests that name a build, and reading what it carries.

`tree_digest` is the digest of a onedir bundle (the product, docs/adr/0005): build/freeze.py
writes it to `dist/SHA256SUMS`, the installer names the installed copy by it, and `oms version`
computes it again over the bundle it runs from, so the three agree by construction (one function).
It covers every entry below the top, sorted by relative path: a directory as `D rel`, a link as
`L rel target` (never followed), a regular file as `F rel mode sha256`; anything else is refused.
"""

from __future__ import annotations

import hashlib
import os
import stat

from oms.errors import FileTooLargeError, UnsafeFileError, shown
from oms.limits import LIMITS

_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def file_digest(path: str) -> str:
    """sha256 of one regular file (never through a link)."""
    fd = _open_regular(path)
    with os.fdopen(fd, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def tree_digest(top: str) -> str:
    """sha256 over every entry below directory `top` (the module docstring gives the lines)."""
    lines: list[tuple[str, str]] = []
    _walk(top, "", lines)
    digest = hashlib.sha256()
    for _, line in sorted(lines):
        digest.update(line.encode("utf-8", "surrogateescape") + b"\n")
    return digest.hexdigest()


def _walk(top: str, prefix: str, lines: list[tuple[str, str]]) -> None:
    fd = os.open(os.path.join(top, prefix) if prefix else top, _DIR)
    try:
        names = os.listdir(fd)
    finally:
        os.close(fd)
    for name in names:
        rel = prefix + name
        if len(lines) >= LIMITS.bundle_entries:
            raise FileTooLargeError(f"{shown(top)}: more than {LIMITS.bundle_entries} entries")
        path = os.path.join(top, rel)
        mode = os.lstat(path).st_mode
        if stat.S_ISLNK(mode):
            lines.append((rel, f"L {rel} {os.readlink(path)}"))
        elif stat.S_ISDIR(mode):
            lines.append((rel, f"D {rel}"))
            _walk(top, rel + "/", lines)
        elif stat.S_ISREG(mode):
            lines.append((rel, f"F {rel} {stat.S_IMODE(mode) & 0o777:o} {file_digest(path)}"))
        else:
            raise UnsafeFileError(f"{shown(path)}: neither a file, a directory nor a link")


def read_bundle_file(path: str) -> bytes | None:
    """A small file the bundle carries (its build information), or None when it has none."""
    try:
        fd = _open_regular(path)
    except FileNotFoundError:
        return None
    try:
        data = os.read(fd, LIMITS.build_info_bytes + 1)
    finally:
        os.close(fd)
    if len(data) > LIMITS.build_info_bytes:
        raise FileTooLargeError(f"{shown(path)}: more than {LIMITS.build_info_bytes} bytes")
    return data


def _open_regular(path: str) -> int:
    try:
        fd = os.open(path, _FILE)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise UnsafeFileError(f"{shown(path)}: {(exc.strerror or 'cannot open').lower()}") from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UnsafeFileError(f"{shown(path)}: not a regular file")
    return fd
