"""A root directory handle that never follows a symlink and never overwrites a file.

`Root.open(path)` opens the root once (`O_DIRECTORY|O_NOFOLLOW`) and checks its owner (and, for a
private root, its mode). Every later path is relative, passes the lexical grammar of `paths.py`, and
is resolved beneath the root by one of two resolvers:

* `openat2` with `RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS` (one system call), or
* a component walk: `open(part, O_DIRECTORY|O_NOFOLLOW, dir_fd=parent)` for every directory, then
  the leaf with `O_NOFOLLOW`.

`auto` uses openat2 and falls back to the walk when the kernel says ENOSYS/EPERM/E2BIG; tests force
the walk. A symlink, a non-directory in the middle, or an escape is a `PathEscapeError`.

Reads accept only regular files with one link, owned by the euid, bounded in bytes, opened
`O_NONBLOCK` so a FIFO cannot hang us. Writes are atomic and no-replace (see `publish`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple, NoReturn, Self

from oms.errors import (
    AlreadyExistsError,
    FileTooLargeError,
    FsioError,
    NotFoundError,
    PathEscapeError,
    ResourcesShortError,
    UnsafeFileError,
    shown,
)
from oms.fsio import procinfo
from oms.fsio._syscalls import DEFAULT_SYSCALLS, RENAME_NOREPLACE, RESOLVE_STRICT, Syscalls
from oms.fsio.paths import check_component, split_rel
from oms.limits import LIMITS, Limits

if TYPE_CHECKING:
    import socket

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
TEMP_PREFIX = ".oms-tmp."
_ESCAPE_ERRNOS = (errno.ELOOP, errno.EXDEV, errno.ENOTDIR)
_OPENAT2_UNSUPPORTED = (errno.ENOSYS, errno.EPERM, errno.E2BIG)
ELSEWHERE = "another filesystem; move it there by hand"  # a directory `move_dir_to` cannot rename
_TMPFILE_UNSUPPORTED = (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT)


class Resolver(StrEnum):
    """How relative paths are resolved beneath the root."""

    AUTO = "auto"
    OPENAT2 = "openat2"
    WALK = "walk"


class Publisher(StrEnum):
    """How a new file gets its final name (all are no-replace)."""

    AUTO = "auto"
    TMPFILE = "tmpfile"  # O_TMPFILE + linkat: no name until published, so no debris after a crash
    RENAME = "rename"  # O_EXCL temp + renameat2(RENAME_NOREPLACE)
    LINK = "link"  # O_EXCL temp + link + unlink (filesystems without renameat2)


class FileId(NamedTuple):
    """Identity of a published inode (to recognise our own file later)."""

    dev: int
    ino: int


class FsioOptions:
    """Strategy choices; `auto` is the product default, tests force the others."""

    __slots__ = ("limits", "publisher", "resolver", "syscalls")

    def __init__(
        self,
        resolver: Resolver = Resolver.AUTO,
        publisher: Publisher = Publisher.AUTO,
        syscalls: Syscalls = DEFAULT_SYSCALLS,
        limits: Limits = LIMITS,
    ) -> None:
        self.resolver = resolver
        self.publisher = publisher
        self.syscalls = syscalls
        self.limits = limits

    def __repr__(self) -> str:
        return (
            f"FsioOptions(resolver={self.resolver!r}, publisher={self.publisher!r}, "
            f"syscalls={self.syscalls!r}, limits={self.limits!r})"
        )

    @classmethod
    def from_env(cls, env: dict[str, str] | os._Environ[str] | None = None) -> FsioOptions:
        """`OMS_FSIO_RESOLVER` / `OMS_FSIO_PUBLISH` force a strategy (both choices are equally
        safe)."""
        source = os.environ if env is None else env
        try:
            resolver = Resolver(source.get("OMS_FSIO_RESOLVER", "auto"))
            publisher = Publisher(source.get("OMS_FSIO_PUBLISH", "auto"))
        except ValueError as exc:
            raise FsioError(f"bad fsio strategy in the environment: {exc}") from exc
        return cls(resolver=resolver, publisher=publisher)


def _raise_for(err: OSError, rel: str) -> NoReturn:
    if err.errno in _ESCAPE_ERRNOS:
        raise PathEscapeError(
            f"{shown(rel)}: refused: a symlink, a non-directory or an escape is in the path"
        ) from err
    if err.errno == errno.ENOENT:
        raise NotFoundError(f"{shown(rel)}: no such file or directory") from err
    if err.errno == errno.EEXIST:
        raise AlreadyExistsError(f"{shown(rel)}: already exists") from err
    if err.errno in (errno.EMFILE, errno.ENFILE, errno.ENOMEM):
        raise ResourcesShortError(f"{shown(rel)}: {os.strerror(err.errno).lower()}") from err
    raise FsioError(f"{shown(rel)}: {os.strerror(err.errno or 0).lower()}") from err


class Root:
    """An open directory under which every operation stays (see the module docstring)."""

    def __init__(self, fd: int, path: str, *, private: bool, options: FsioOptions) -> None:
        self._fd = fd
        self.path = path
        self.private = private
        self.options = options
        self._sys = options.syscalls
        self._limits = options.limits
        self._openat2_ok: bool | None = (
            None if options.resolver is Resolver.AUTO else (options.resolver is Resolver.OPENAT2)
        )
        self._publisher = options.publisher

    # ------------------------------------------------------------------ lifecycle
    @classmethod
    def open(
        cls,
        path: str,
        *,
        private: bool = True,
        create: bool = False,
        options: FsioOptions | None = None,
    ) -> Self:
        """Open `path` as a root. With `create`, make it (0700) if missing; its parents are created
        too."""
        opts = options or FsioOptions.from_env()
        absolute = os.path.abspath(path)
        created = False
        if create:
            parent = os.path.dirname(absolute)
            try:
                os.makedirs(parent, mode=0o700, exist_ok=True)
                os.mkdir(absolute, 0o700 if private else 0o755)
                created = True
            except FileExistsError:
                pass
            except OSError as err:
                _raise_for(err, absolute)
        try:
            fd = os.open(absolute, _DIR_FLAGS)
        except OSError as err:
            if err.errno in (errno.ELOOP, errno.ENOTDIR):
                raise PathEscapeError(
                    f"{shown(absolute)}: is a symlink or not a directory"
                ) from err
            _raise_for(err, absolute)
        try:
            st = os.fstat(fd)
            if st.st_uid != os.geteuid():
                raise UnsafeFileError(
                    f"{shown(absolute)}: owned by uid {st.st_uid} (expected {os.geteuid()})"
                )
            if created:
                os.fchmod(fd, 0o700 if private else 0o755)  # the umask may have trimmed it
            elif private and stat.S_IMODE(st.st_mode) & 0o077:
                raise UnsafeFileError(
                    f"{shown(absolute)}: mode {stat.S_IMODE(st.st_mode):04o} is open to others "
                    f"(expected 0700)"
                )
        except BaseException:
            os.close(fd)
            raise
        return cls(fd, absolute, private=private, options=opts)

    def close(self) -> None:
        """Release the root descriptor (idempotent)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def fd(self) -> int:
        """The root directory descriptor."""
        if self._fd < 0:
            raise FsioError(f"{shown(self.path)}: root is closed")
        return self._fd

    # ------------------------------------------------------------------ resolution
    def _use_openat2(self) -> bool:
        if self._openat2_ok is None:
            try:
                probe = self._sys.openat2(self.fd, ".", _DIR_FLAGS, 0, RESOLVE_STRICT)
            except OSError as err:
                if err.errno not in _OPENAT2_UNSUPPORTED and err.errno != errno.EINVAL:
                    raise
                self._openat2_ok = False
            else:
                os.close(probe)
                self._openat2_ok = True
        return self._openat2_ok

    def _openat2(self, rel: str, flags: int, mode: int = 0) -> int:
        for _ in range(self._limits.openat2_eagain_retries):
            try:
                return self._sys.openat2(
                    self.fd, rel, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, RESOLVE_STRICT
                )
            except OSError as err:
                if err.errno == errno.EAGAIN:  # the kernel suspects a rename race: retry
                    continue
                if err.errno in _OPENAT2_UNSUPPORTED and self.options.resolver is Resolver.AUTO:
                    self._openat2_ok = False
                    return self._walk(split_rel(rel, self._limits), flags, mode)
                _raise_for(err, rel)
        raise PathEscapeError(f"{shown(rel)}: resolution kept racing with a rename; refused")

    def _walk(self, parts: tuple[str, ...], flags: int, mode: int = 0) -> int:
        cur = os.dup(self.fd)
        try:
            for i, part in enumerate(parts):
                last = i == len(parts) - 1
                step_flags = (flags | os.O_NOFOLLOW | os.O_CLOEXEC) if last else _DIR_FLAGS
                try:
                    nxt = self._sys.open(part, step_flags, mode, dir_fd=cur)
                except OSError as err:
                    _raise_for(err, "/".join(parts[: i + 1]))
                os.close(cur)
                cur = nxt
            return cur
        except BaseException:
            os.close(cur)
            raise

    def _open(self, parts: tuple[str, ...], flags: int) -> int:
        """Open the object at `parts` (the root itself when empty) with `flags`, never following
        links."""
        if not parts:
            return os.dup(self.fd)
        if self._use_openat2():
            return self._openat2("/".join(parts), flags)
        return self._walk(parts, flags)

    def _dir(self, parts: tuple[str, ...]) -> int:
        return self._open(parts, _DIR_FLAGS)

    def _split(self, rel: str) -> tuple[str, ...]:
        return () if rel == "" else split_rel(rel, self._limits)

    # ------------------------------------------------------------------ queries
    def lstat(self, rel: str) -> os.stat_result | None:
        """Stat `rel` without following a final symlink; None if it does not exist."""
        parts = self._split(rel)
        if not parts:
            return os.fstat(self.fd)
        parent = self._dir(parts[:-1])
        try:
            return os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            return None
        finally:
            os.close(parent)

    def identity(self) -> tuple[int, int]:
        """(device, inode) of the root directory: names this root across `Root` objects of one
        process."""
        st = os.fstat(self.fd)
        return st.st_dev, st.st_ino

    def touch_dir(self, rel: str) -> None:
        """Set directory `rel`'s modification time to now (a change mark for readers that scan
        it)."""
        fd = self._dir(self._split(rel))
        try:
            os.utime(fd)
        except OSError as err:
            _raise_for(err, rel)
        finally:
            os.close(fd)

    def exists(self, rel: str) -> bool:
        """True if a directory entry named `rel` exists (of any type)."""
        try:
            return self.lstat(rel) is not None
        except NotFoundError:
            return False

    def listdir(self, rel: str = "") -> list[str]:
        """Sorted names in directory `rel`; a missing directory raises `NotFoundError`."""
        fd = self._dir(self._split(rel))
        try:
            return sorted(os.listdir(fd))
        finally:
            os.close(fd)

    def scan(self, rel: str = "") -> Iterator[tuple[str, os.stat_result]]:
        """(name, lstat) for every entry of directory `rel`, sorted by name."""
        fd = self._dir(self._split(rel))
        try:
            for name in sorted(os.listdir(fd)):
                with contextlib.suppress(FileNotFoundError):
                    yield name, os.stat(name, dir_fd=fd, follow_symlinks=False)
        finally:
            os.close(fd)

    def writable(self, rel: str = "") -> bool:
        """Whether this process may create entries in directory `rel` (faccessat, effective ids):
        checked before a command creates anything, so that a refusal leaves nothing behind."""
        with self.dir_fd(rel) as fd:
            return os.access(".", os.W_OK | os.X_OK, dir_fd=fd, effective_ids=True)

    # ------------------------------------------------------------------ reads
    def read_bytes(self, rel: str, cap: int, *, any_mode: bool = False) -> bytes:
        """Read a regular file of at most `cap` bytes (one link, owned by us). `any_mode`: a file an
        agent wrote in its private home, whose mode its own umask chose (read as untrusted data,
        never trusted)."""
        parts = split_rel(rel, self._limits)
        for attempt in range(2):
            fd = self._open(parts, _READ_FLAGS)
            try:
                st = os.fstat(fd)
                self._check_regular(rel, st, any_mode=any_mode)
                if st.st_nlink != 1:
                    if attempt == 0:  # a link+unlink publish is mid-flight: look once more
                        continue
                    raise UnsafeFileError(f"{shown(rel)}: has {st.st_nlink} links (expected 1)")
                if st.st_size > cap:
                    raise FileTooLargeError(
                        f"{shown(rel)}: {st.st_size} bytes (expected at most {cap})"
                    )
                return self._read_capped(fd, rel, cap)
            finally:
                os.close(fd)
        raise UnsafeFileError(f"{shown(rel)}: unstable link count")  # pragma: no cover

    def digest(self, rel: str, cap: int) -> str | None:
        """The sha256 (hex) of regular file `rel` (one link, ours, at most `cap` bytes), read in
        pieces; None when it does not exist."""
        import hashlib

        try:
            fd = self._open(split_rel(rel, self._limits), _READ_FLAGS)
        except NotFoundError:
            return None
        try:
            st = os.fstat(fd)
            self._check_regular(rel, st)
            if st.st_nlink != 1:
                raise UnsafeFileError(f"{shown(rel)}: has {st.st_nlink} links (expected 1)")
            if st.st_size > cap:
                too_large = f"{shown(rel)}: {st.st_size} bytes (expected at most {cap})"
                raise FileTooLargeError(too_large)
            hasher, total = hashlib.sha256(), 0
            while chunk := os.read(fd, 1 << 20):
                total += len(chunk)
                if total > cap:
                    raise FileTooLargeError(f"{shown(rel)}: more than {cap} bytes")
                hasher.update(chunk)
            return hasher.hexdigest()
        finally:
            os.close(fd)

    def read_tail(self, rel: str, size: int) -> bytes:
        """The last `size` bytes (at most) of private regular file `rel`."""
        fd = self._open(self._split(rel), os.O_RDONLY | os.O_NONBLOCK)
        try:
            st = os.fstat(fd)
            self._check_regular(rel, st)
            return os.pread(fd, min(size, st.st_size), max(0, st.st_size - size))
        finally:
            os.close(fd)

    def read_optional(self, rel: str, cap: int, *, any_mode: bool = False) -> bytes | None:
        """Like `read_bytes`, but None when the file does not exist."""
        try:
            return self.read_bytes(rel, cap, any_mode=any_mode)
        except NotFoundError:
            return None

    def read_secret(self, rel: str, size: int) -> bytes:
        """Read a secret: exactly `size` bytes, regular, one link, ours, and private (no group/other
        bits)."""
        st = self.lstat(rel)
        if st is None:
            raise NotFoundError(f"{shown(rel)}: no such file")
        if stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) & 0o077:
            raise UnsafeFileError(
                f"{shown(rel)}: mode {stat.S_IMODE(st.st_mode):04o} (expected 0600)"
            )
        data = self.read_bytes(rel, size)
        if len(data) != size:
            raise UnsafeFileError(f"{shown(rel)}: {len(data)} bytes (expected {size})")
        return data

    def _check_regular(self, rel: str, st: os.stat_result, *, any_mode: bool = False) -> None:
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFileError(f"{shown(rel)}: not a regular file")
        if st.st_uid != os.geteuid():
            raise UnsafeFileError(
                f"{shown(rel)}: owned by uid {st.st_uid} (expected {os.geteuid()})"
            )
        if self.private and not any_mode and stat.S_IMODE(st.st_mode) & 0o077:
            raise UnsafeFileError(
                f"{shown(rel)}: mode {stat.S_IMODE(st.st_mode):04o} is open to others"
            )

    @staticmethod
    def _read_capped(fd: int, rel: str, cap: int) -> bytes:
        chunks: list[bytes] = []
        total = 0
        while True:
            try:
                chunk = os.read(fd, min(1 << 20, cap + 1 - total))
            except BlockingIOError as err:
                raise UnsafeFileError(f"{shown(rel)}: not readable without blocking") from err
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > cap:
                raise FileTooLargeError(f"{shown(rel)}: more than {cap} bytes")
        return b"".join(chunks)

    # ------------------------------------------------------------------ writes
    def mkdirs(self, rel: str) -> None:
        """Create every directory of `rel` that is missing; verify all of them (owner, type,
        privacy)."""
        parts = self._split(rel)
        cur = os.dup(self.fd)
        want = 0o700 if self.private else 0o755
        try:
            for i, part in enumerate(parts):
                where = "/".join(parts[: i + 1])
                created = False
                try:
                    os.mkdir(part, want, dir_fd=cur)
                    created = True
                except FileExistsError:
                    pass
                except OSError as err:
                    _raise_for(err, where)
                try:
                    nxt = self._sys.open(part, _DIR_FLAGS, dir_fd=cur)
                except OSError as err:
                    _raise_for(err, where)
                try:
                    st = os.fstat(nxt)
                    if st.st_uid != os.geteuid():
                        raise UnsafeFileError(
                            f"{shown(where)}: owned by uid {st.st_uid} (expected {os.geteuid()})"
                        )
                    mode = stat.S_IMODE(st.st_mode)
                    if created and mode != want:
                        os.fchmod(nxt, want)  # the umask trimmed it; set exactly what we asked for
                    elif self.private and mode & 0o077:
                        raise UnsafeFileError(
                            f"{shown(where)}: mode {mode:04o} is open to others (expected 0700)"
                        )
                    if created:
                        self._sys.fsync(cur)
                except BaseException:
                    os.close(nxt)
                    raise
                os.close(cur)
                cur = nxt
        finally:
            os.close(cur)

    def publish(self, rel: str, data: bytes, *, mode: int = 0o600, durable: bool = True) -> FileId:
        """Atomically create `rel` with `data`; never replaces anything (`AlreadyExistsError`).

        Order (power-loss safe): write, fsync(file), give it its name, fsync(directory). Readers see
        either no file or the complete one. The directory must already exist. `durable=False` skips
        the fsyncs: the file survives its writer's death (the kernel has it), not the machine's.
        """
        parts = split_rel(rel, self._limits)
        leaf = check_component(parts[-1], self._limits)
        parent = self._dir(parts[:-1])
        try:
            file_id = self._publish_in(parent, rel, leaf, data, mode, durable)
            if durable:
                self._sys.fsync(parent)
            return file_id
        finally:
            os.close(parent)

    def _publish_in(
        self,
        parent: int,
        rel: str,
        leaf: str,
        data: bytes,
        mode: int,
        durable: bool = True,
    ) -> FileId:
        if self._publisher in (Publisher.AUTO, Publisher.TMPFILE):
            result = self._publish_tmpfile(parent, rel, leaf, data, mode, durable)
            if result is not None:
                return result
            if self.options.publisher is Publisher.TMPFILE:
                raise FsioError(f"{shown(rel)}: O_TMPFILE publishing is not supported here")
            self._publisher = Publisher.RENAME
        return self._publish_named(parent, rel, leaf, data, mode, durable)

    def _publish_tmpfile(
        self,
        parent: int,
        rel: str,
        leaf: str,
        data: bytes,
        mode: int,
        durable: bool = True,
    ) -> FileId | None:
        try:
            fd = self._sys.open(".", os.O_TMPFILE | os.O_WRONLY | os.O_CLOEXEC, mode, dir_fd=parent)
        except OSError as err:
            if err.errno in _TMPFILE_UNSUPPORTED:
                return None
            _raise_for(err, rel)
        try:
            os.fchmod(fd, mode)
            _write_all(fd, data)
            if durable:
                self._sys.fsync(fd)
            try:
                self._sys.link_fd(fd, parent, leaf)
            except FileExistsError as err:
                raise AlreadyExistsError(
                    f"{shown(rel)}: already exists; nothing was overwritten"
                ) from err
            except OSError as err:
                if err.errno == errno.ENOENT:  # no /proc: fall back to a named temp file
                    return None
                _raise_for(err, rel)
            st = os.fstat(fd)
            return FileId(st.st_dev, st.st_ino)
        finally:
            os.close(fd)

    def _publish_named(
        self,
        parent: int,
        rel: str,
        leaf: str,
        data: bytes,
        mode: int,
        durable: bool = True,
    ) -> FileId:
        temp = f"{TEMP_PREFIX}{procinfo.current().token()}.{os.urandom(6).hex()}"
        try:
            fd = self._sys.open(
                temp,
                os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC,
                mode,
                dir_fd=parent,
            )
        except OSError as err:
            _raise_for(err, rel)
        named = True
        try:
            try:
                os.fchmod(fd, mode)
                _write_all(fd, data)
                if durable:
                    self._sys.fsync(fd)
                st = os.fstat(fd)
            finally:
                os.close(fd)
            if self._publisher is not Publisher.LINK:
                try:
                    self._sys.renameat2(parent, temp, parent, leaf, RENAME_NOREPLACE)
                    named = False
                except OSError as err:
                    if err.errno == errno.EEXIST:
                        raise AlreadyExistsError(
                            f"{shown(rel)}: already exists; nothing was overwritten"
                        ) from err
                    if (
                        err.errno not in (errno.EINVAL, errno.ENOSYS)
                        or self.options.publisher is Publisher.RENAME
                    ):
                        _raise_for(err, rel)
                    self._publisher = Publisher.LINK
            if named:
                try:
                    self._sys.link(parent, temp, parent, leaf)
                except FileExistsError as err:
                    raise AlreadyExistsError(
                        f"{shown(rel)}: already exists; nothing was overwritten"
                    ) from err
                except OSError as err:
                    _raise_for(err, rel)
            return FileId(st.st_dev, st.st_ino)
        finally:
            if named:
                with contextlib.suppress(OSError):
                    self._sys.unlink(parent, temp)

    def unlink(self, rel: str, *, expect: FileId | None = None, durable: bool = True) -> bool:
        """Remove `rel` (locks and debris only). With `expect`, only if it is still that inode;
        `durable=False`: without the directory's fsync.

        Returns False when the name is gone or now names another inode.
        """
        parts = split_rel(rel, self._limits)
        parent = self._dir(parts[:-1])
        try:
            try:
                st = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
            except FileNotFoundError:
                return False
            if stat.S_ISDIR(st.st_mode):
                raise UnsafeFileError(f"{shown(rel)}: is a directory")
            if expect is not None and (st.st_dev, st.st_ino) != (expect.dev, expect.ino):
                return False
            try:
                self._sys.unlink(parent, parts[-1])
            except FileNotFoundError:  # another process removed it after we looked: gone
                return False
            if durable:
                self._sys.fsync(parent)
            return True
        finally:
            os.close(parent)

    def symlink(self, rel: str, target: str) -> None:
        """Create symlink `rel` -> absolute `target`; never replaces anything.

        oms itself makes no link under the state root any more (SECURITY.md invariant 1: an agent
        home's `auth.json` is shown read-only, not linked); attack case 19 keeps this checked. A
        caller re-verifies a link with `readlink` before every use.
        """
        if not target.startswith("/") or "\x00" in target:
            raise UnsafeFileError(f"{shown(rel)}: link target must be an absolute path without NUL")
        parts = split_rel(rel, self._limits)
        parent = self._dir(parts[:-1])
        try:
            try:
                os.symlink(target, check_component(parts[-1], self._limits), dir_fd=parent)
            except OSError as err:
                _raise_for(err, rel)
            self._sys.fsync(parent)
        finally:
            os.close(parent)

    def readlink(self, rel: str) -> str:
        """The target of symlink `rel`, which must be a symlink we own (anything else is
        refused)."""
        parts = split_rel(rel, self._limits)
        parent = self._dir(parts[:-1])
        try:
            try:
                st = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
            except OSError as err:
                _raise_for(err, rel)
            if not stat.S_ISLNK(st.st_mode):
                raise UnsafeFileError(f"{shown(rel)}: is not a symlink (it was replaced)")
            if st.st_uid != os.geteuid():
                raise UnsafeFileError(
                    f"{shown(rel)}: link owned by uid {st.st_uid} (expected {os.geteuid()})"
                )
            return os.readlink(parts[-1], dir_fd=parent)
        finally:
            os.close(parent)

    def listen_unix(self, rel: str, backlog: int = 16) -> socket.socket:
        """A listening Unix socket at `rel`, mode 0600 (a worker's broker). A stale socket of ours
        there is replaced; anything else is refused. Bound through the parent's descriptor, so
        neither a symlink nor the 108-byte limit of socket paths applies to the state root's
        path."""
        import socket

        parts = split_rel(rel, self._limits)
        parent = self._dir(parts[:-1])
        leaf = check_component(parts[-1], self._limits)
        try:
            try:
                st = os.stat(leaf, dir_fd=parent, follow_symlinks=False)
            except FileNotFoundError:
                pass
            else:
                if not stat.S_ISSOCK(st.st_mode) or st.st_uid != os.geteuid():
                    raise UnsafeFileError(f"{shown(rel)}: exists and is not a socket of ours")
                if _answers(
                    f"/proc/self/fd/{parent}/{leaf}"
                ):  # another process serves it: never take it away
                    raise AlreadyExistsError(f"{shown(rel)}: a live socket is there")
                self._sys.unlink(parent, leaf)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
            old = os.umask(0o177)
            try:
                sock.bind(f"/proc/self/fd/{parent}/{leaf}")
                sock.listen(backlog)
            except OSError as err:
                sock.close()
                _raise_for(err, rel)
            finally:
                os.umask(old)
            return sock
        finally:
            os.close(parent)

    def remove_socket(self, rel: str) -> bool:
        """Remove socket `rel` if it is one of ours (anything else is left alone); True if
        removed."""
        parts = split_rel(rel, self._limits)
        parent = self._dir(parts[:-1])
        try:
            try:
                st = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
            except FileNotFoundError:
                return False
            if not stat.S_ISSOCK(st.st_mode) or st.st_uid != os.geteuid():
                return False
            self._sys.unlink(parent, parts[-1])
            return True
        finally:
            os.close(parent)

    def remove_empty_dir(self, rel: str) -> bool:
        """Remove directory `rel` if it is empty (anything else is left alone); True if removed."""
        parts = split_rel(rel, self._limits)
        parent = self._dir(parts[:-1])
        try:
            os.rmdir(check_component(parts[-1], self._limits), dir_fd=parent)
        except OSError:
            return False
        finally:
            os.close(parent)
        return True

    def move_dir(self, rel: str, to: str) -> bool:
        """Rename directory `rel` to `to` (never replacing anything: AlreadyExistsError), so that it
        is gone from its place at once; False when `rel` is not there. Both parents must exist."""
        src, dst = split_rel(rel, self._limits), split_rel(to, self._limits)
        old, new = self._dir(src[:-1]), self._dir(dst[:-1])
        try:
            try:
                st = os.stat(src[-1], dir_fd=old, follow_symlinks=False)
            except FileNotFoundError:
                return False
            if not stat.S_ISDIR(st.st_mode):
                raise UnsafeFileError(f"{shown(rel)}: not a directory")
            try:
                self._sys.renameat2(old, src[-1], new, dst[-1], RENAME_NOREPLACE)
            except OSError as err:
                if err.errno == errno.EEXIST:
                    raise AlreadyExistsError(
                        f"{shown(to)}: already exists; nothing was moved"
                    ) from err
                _raise_for(err, rel)
            self._sys.fsync(old)
            self._sys.fsync(new)
            return True
        finally:
            os.close(old)
            os.close(new)

    def move_dir_to(self, rel: str, dest: Root, to: str) -> None:
        """Rename directory `rel` of this root to `to` under root `dest` (never replacing anything:
        AlreadyExistsError; another filesystem: FsioError, nothing moved). Both parents must
        exist."""
        src, dst = split_rel(rel, self._limits), split_rel(to, dest._limits)
        old = self._dir(src[:-1])
        try:
            new = dest._dir(dst[:-1])
            try:
                st = os.stat(src[-1], dir_fd=old, follow_symlinks=False)
                if not stat.S_ISDIR(st.st_mode):
                    raise UnsafeFileError(f"{shown(rel)}: not a directory")
                try:
                    self._sys.renameat2(old, src[-1], new, dst[-1], RENAME_NOREPLACE)
                except OSError as err:
                    if err.errno == errno.EXDEV:
                        target = shown(os.path.join(dest.path, to))
                        why = f"{shown(rel)} cannot be moved to {target}: {ELSEWHERE}"
                        raise FsioError(why) from err
                    if err.errno == errno.EEXIST:
                        why = f"{shown(to)}: already exists; nothing was moved"
                        raise AlreadyExistsError(why) from err
                    _raise_for(err, rel)
                self._sys.fsync(old)
                self._sys.fsync(new)
            finally:
                os.close(new)
        finally:
            os.close(old)

    def remove_tree(self, rel: str, depth: int = 2) -> int:
        """Remove directory `rel` and what is in it, `depth` levels down (links and other odd
        entries are removed as names, never followed); the number of files removed. A deeper tree is
        left, and so is `rel` (OSError from rmdir is not raised: the caller looks again)."""
        removed = 0
        for name, st in list(self.scan(rel)):
            path = f"{rel}/{name}"
            if stat.S_ISDIR(st.st_mode):
                if depth > 0:
                    removed += self.remove_tree(path, depth - 1)
            else:
                removed += self.unlink(path)
        self.remove_empty_dir(rel)
        return removed

    def open_log(self, rel: str) -> int:
        """An append-only descriptor of private log file `rel` (created 0600; a regular file with
        one link, ours, or refused). The caller bounds what it writes."""
        parts = split_rel(rel, self._limits)
        parent = self._dir(parts[:-1])
        try:
            flags = (
                os.O_WRONLY
                | os.O_APPEND
                | os.O_CREAT
                | os.O_NOFOLLOW
                | os.O_NONBLOCK
                | os.O_CLOEXEC
            )
            try:
                fd = os.open(check_component(parts[-1], self._limits), flags, 0o600, dir_fd=parent)
            except OSError as err:
                _raise_for(err, rel)
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1 or st.st_uid != os.geteuid():
                os.close(fd)
                raise UnsafeFileError(f"{shown(rel)}: not a private regular file of ours")
            return fd
        finally:
            os.close(parent)

    def rotate_log(self, rel: str, old: str) -> bool:
        """Rename private log file `rel` to `old` in the same directory, replacing the `old` before
        it (one file plus one old); False when `rel` is not there. Neither may be anything but a
        regular file of ours."""
        parts, dest = split_rel(rel, self._limits), split_rel(old, self._limits)
        if parts[:-1] != dest[:-1]:
            raise UnsafeFileError(f"{shown(old)}: not beside {shown(rel)}")
        parent = self._dir(parts[:-1])
        try:
            for leaf in (parts[-1], dest[-1]):
                name = check_component(leaf, self._limits)
                try:
                    st = os.stat(name, dir_fd=parent, follow_symlinks=False)
                except FileNotFoundError:
                    if leaf == parts[-1]:
                        return False
                    continue
                if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
                    raise UnsafeFileError(f"{shown(rel)}: not a private regular file of ours")
            try:
                os.rename(parts[-1], dest[-1], src_dir_fd=parent, dst_dir_fd=parent)
            except OSError as err:
                _raise_for(err, rel)
            return True
        finally:
            os.close(parent)

    @contextlib.contextmanager
    def locked_log(self, rel: str) -> Iterator[LockedLog]:
        """Private log file `rel` (it must exist), opened for appending under an exclusive flock of
        it, held until the block ends: the store's ledger writes its entry and publishes the file it
        names inside one such block (`store/ledger.py`)."""
        import fcntl

        flags = os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        fd = self._open(split_rel(rel, self._limits), flags)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1 or st.st_uid != os.geteuid():
                raise UnsafeFileError(f"{shown(rel)}: not a private regular file of ours")
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield LockedLog(fd, rel)
        finally:
            os.close(fd)  # (the lock goes with it)

    def read_locked(self, rel: str, cap: int) -> bytes:
        """Read log file `rel` (bounded) under a shared flock of it: no `locked_log` block is under
        way, so what it holds is what its last writer left."""
        import fcntl

        fd = self._open(split_rel(rel, self._limits), _READ_FLAGS)
        try:
            st = os.fstat(fd)
            self._check_regular(rel, st)
            fcntl.flock(fd, fcntl.LOCK_SH)
            return self._read_capped(fd, rel, cap)
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def log_reader(self, rel: str, *, locked: bool = False) -> Iterator[LogReader]:
        """Private regular file `rel` (an append-only log of ours) open for reads by offset, so a
        reader takes only the part it needs (its end first: `oms audit log --limit`, `oms worker
        log`); `locked`: under a shared flock (no `locked_log` block is under way)."""
        import fcntl

        fd = self._open(split_rel(rel, self._limits), _READ_FLAGS)
        try:
            self._check_regular(rel, os.fstat(fd))
            if locked:
                fcntl.flock(fd, fcntl.LOCK_SH)
            yield LogReader(fd)
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def dir_fd(self, rel: str) -> Iterator[int]:
        """A short-lived descriptor of directory `rel` (for flock); closed on exit."""
        fd = self._dir(self._split(rel))
        try:
            yield fd
        finally:
            os.close(fd)


class LogReader:
    """A log open for reads by offset (`Root.log_reader`)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    @property
    def size(self) -> int:
        """Its size in bytes now."""
        return os.fstat(self._fd).st_size

    def read_at(self, offset: int, size: int) -> bytes:
        """At most `size` bytes from `offset` (fewer at its end)."""
        return os.pread(self._fd, max(0, size), max(0, offset))


class LockedLog:
    """An append-only log held under an exclusive flock (`Root.locked_log`)."""

    def __init__(self, fd: int, rel: str) -> None:
        self._fd = fd
        self.rel = rel

    @property
    def size(self) -> int:
        """Its size in bytes now."""
        return os.fstat(self._fd).st_size

    def tail(self, size: int) -> bytes:
        """Its last `size` bytes (at most)."""
        end = self.size
        return os.pread(self._fd, min(size, end), max(0, end - size)) if end else b""

    def last_newline(self, step: int = 1 << 16) -> int:
        """The offset of its last newline (-1: none), read from its end `step` bytes at a time."""
        end = self.size
        while end > 0:
            start = max(0, end - step)
            found = os.pread(self._fd, end - start, start).rfind(b"\n")
            if found >= 0:
                return start + found
            end = start
        return -1

    def append(self, data: bytes) -> None:
        """Append `data` (not yet durable: `sync`)."""
        _write_all(self._fd, data)

    def truncate(self, size: int) -> None:
        """Cut it back to `size` bytes."""
        os.ftruncate(self._fd, size)

    def sync(self) -> None:
        """Make what was appended durable."""
        os.fsync(self._fd)


def _answers(path: str) -> bool:
    """Does a process accept connections on the Unix socket at `path`? (A connection made and
    closed.)"""
    import socket

    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    probe.settimeout(1.0)
    try:
        probe.connect(path)
    except (BlockingIOError, TimeoutError):
        return True  # a full backlog: it lives
    except OSError:
        return False  # refused: nobody listens
    finally:
        probe.close()
    return True


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def is_temp_name(name: str) -> bool:
    """True for the names `publish` gives its temporary files."""
    return name.startswith(TEMP_PREFIX)


def temp_owner(name: str) -> procinfo.ProcessIdentity | None:
    """The process that created temp file `name`, parsed from its name; None if malformed."""
    fields = name[len(TEMP_PREFIX) :].split(".")
    if len(fields) != 4 or not fields[0].isdigit() or not fields[1].isdigit():
        return None
    raw = fields[2]
    if len(raw) != 32:
        return None
    boot = f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"
    return procinfo.ProcessIdentity(boot, int(fields[0]), int(fields[1]))
