"""Questions about paths that are not beneath an open root (where a root may go, what encloses
it)."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator


def enclosing_git(path: str) -> str | None:
    """The nearest directory at or above `path` that holds a `.git` entry, or None.

    Used to refuse a state root inside a git worktree, where an agent could reach it.
    """
    current = os.path.abspath(path)
    while True:
        try:
            os.lstat(os.path.join(current, ".git"))
        except FileNotFoundError:
            pass
        except OSError:
            return None
        else:
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def ensure_directory(path: str, mode: int = 0o755) -> None:
    """Create `path` and its parents if missing (for places outside the state root, e.g.
    worktrees)."""
    os.makedirs(path, mode=mode, exist_ok=True)


def scratch_directory(prefix: str) -> str:
    """A new private (0700) directory under the system temporary directory (for `oms demo`)."""
    import tempfile

    return os.path.realpath(tempfile.mkdtemp(prefix=prefix))


def write_new_user_file(path: str, data: bytes) -> None:
    """Create the file the user named (outside any root) with `data`: never an existing file, never
    through a link (0600)."""
    from oms.errors import InvalidInputError, shown

    try:
        fd = os.open(
            path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
        )
    except OSError as exc:
        raise InvalidInputError(
            f"{shown(path)}: {(exc.strerror or 'cannot create').lower()}"
        ) from exc
    try:
        _write_synced(fd, data)
    finally:
        os.close(fd)


def _write_synced(fd: int, data: bytes) -> None:
    """All of `data` to the open file `fd`, then synced (its caller closes it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


@contextlib.contextmanager
def user_file_lock(path: str) -> Iterator[None]:
    """Hold the person's settings file `path` for one read-decide-replace (`replace_user_file`),
    so two commands at once never lose one's change (the second reads after the first renamed):
    an exclusive flock of its folder (made 0700 when missing; never an agent's worktree), waited
    for up to `LIMITS.settings_lock_wait_s`, then `LockHeldError` in one line. Readers take no
    lock: a rename shows them the old bytes or the new ones."""
    import fcntl
    import time

    from oms.errors import InvalidInputError, LockHeldError, shown
    from oms.fsio.trees import refuse_agent_tree
    from oms.limits import LIMITS

    refuse_agent_tree(path, "write a file")
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        why = (exc.strerror or "cannot open").lower()
        raise InvalidInputError(f"{shown(folder)}: {why}") from exc
    try:
        deadline = time.monotonic() + LIMITS.settings_lock_wait_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockHeldError(
                        f"{shown(path)}: another oms command has been writing it for "
                        f"{LIMITS.settings_lock_wait_s:g} s: nothing was written",
                        hint="run the command again once the other has finished",
                    ) from None
                time.sleep(0.02)  # the holder renames within milliseconds
        yield
    finally:
        os.close(fd)  # the flock goes with its descriptor


def replace_user_file(path: str, data: bytes) -> None:
    """Replace the person's settings file `path` (outside any root, never in an agent's worktree)
    with `data` at once: a new 0600 file beside it, synced, renamed over it (never through a link:
    the rename replaces a link itself); its folder is made 0700 when missing. A reader sees the
    old bytes or the new ones, never half."""
    import tempfile

    from oms.errors import InvalidInputError, shown
    from oms.fsio.trees import refuse_agent_tree

    refuse_agent_tree(path, "write a file")
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".oms-", dir=folder)  # O_EXCL, 0600
    except OSError as exc:
        raise InvalidInputError(
            f"{shown(path)}: {(exc.strerror or 'cannot create').lower()}"
        ) from exc
    try:
        try:
            _write_synced(fd, data)
        finally:
            os.close(fd)
        os.rename(temp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise InvalidInputError(
                f"{shown(path)}: {(exc.strerror or 'cannot write').lower()}"
            ) from exc
        raise
    with contextlib.suppress(OSError):  # the rename's entry, durable
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def read_user_file(
    path: str, cap: int, *, private: bool = False, secret: bool = False, trusted: bool = False
) -> bytes:
    """Read a file the user named on the command line (outside any root): regular, bounded,
    non-blocking; never one in an agent's worktree outside a tree job
    (`trees.refuse_agent_tree`), by its path or by where the file opened is (a symlink into a
    worktree is refused too). `private`: a file whose contents oms runs (the person's settings)
    must also be the user's own and writable by nobody else. `secret` (a private key): private,
    and readable by nobody else either. `trusted` (what oms trusts, a CA bundle): the user's or
    root's, and writable by nobody else."""
    import stat

    from oms.errors import FileTooLargeError, InvalidInputError, shown
    from oms.fsio.trees import refuse_agent_tree

    refuse_agent_tree(path, "read a file")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as exc:
        raise InvalidInputError(
            f"{shown(path)}: {(exc.strerror or 'cannot open').lower()}"
        ) from exc
    try:
        with contextlib.suppress(OSError):  # where the file opened is, however it was reached
            refuse_agent_tree(os.readlink(f"/proc/self/fd/{fd}"), "read a file")
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InvalidInputError(f"{shown(path)}: not a regular file")
        private = private or secret
        if trusted and st.st_uid not in (os.geteuid(), 0):
            raise InvalidInputError(
                f"{shown(path)}: owned by uid {st.st_uid} (expected {os.geteuid()} or root)",
                hint="keep it in your own configuration folder, owned by you",
            )
        if trusted and stat.S_IMODE(st.st_mode) & 0o022:
            raise InvalidInputError(
                f"{shown(path)}: writable by others (mode {stat.S_IMODE(st.st_mode):o})",
                hint=f"chmod go-w {shown(path)}",
            )
        if private and st.st_uid != os.geteuid():
            raise InvalidInputError(
                f"{shown(path)}: owned by uid {st.st_uid} (expected {os.geteuid()})",
                hint="keep it in your own configuration folder, owned by you",
            )
        if private and stat.S_IMODE(st.st_mode) & 0o022:
            raise InvalidInputError(
                f"{shown(path)}: writable by others (mode {stat.S_IMODE(st.st_mode):o})",
                hint=f"chmod go-w {shown(path)}",
            )
        if secret and stat.S_IMODE(st.st_mode) & 0o077:
            raise InvalidInputError(
                f"{shown(path)}: a private key open to group or others "
                f"(mode {stat.S_IMODE(st.st_mode):o})",
                hint=f"chmod 600 {shown(path)}",
            )
        chunks, total = [], 0
        while chunk := os.read(fd, min(1 << 20, cap + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > cap:
                raise FileTooLargeError(f"{shown(path)}: more than {cap} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


@contextlib.contextmanager
def memory_file(data: bytes, name: str) -> Iterator[str]:
    """A path that reads `data` from memory (a memfd, closed on leaving): for an API that takes
    only a path (`ssl.SSLContext.load_cert_chain`), so a key read and checked once by
    `read_user_file` is loaded as read, never opened again by its name."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        yield f"/proc/self/fd/{fd}"
    finally:
        os.close(fd)


def file_signature(path: str) -> tuple[int, ...] | None:
    """What changes when a file outside any root is replaced or rewritten (device, inode, size,
    change time), or None when it is not there: a reader reads it again only when this changes."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def discard_file(path: str) -> None:
    """Remove a file oms made outside any root (e.g. a private git index), if it is there."""
    from oms.fsio.trees import refuse_agent_tree

    refuse_agent_tree(path, "remove a file")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def regular_file_target(path: str) -> str:
    """The real path of `path`, which must itself be a regular file (not a symlink) — e.g. a user's
    Codex `auth.json`, the one file an agent home links to."""
    import stat

    from oms.errors import UnsafeFileError, shown

    try:
        st = os.lstat(path)
    except OSError as exc:
        raise UnsafeFileError(f"{shown(path)}: {(exc.strerror or 'missing').lower()}") from exc
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeFileError(
            f"{shown(path)}: must be one regular file (not a link or anything else)"
        )
    return os.path.realpath(path)


def read_head(path: str, size: int) -> bytes:
    """The first `size` bytes of a regular file outside any root (e.g. an installed program's `#!`
    line); empty when it cannot be read."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError:
        return b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        return os.read(fd, size)
    except OSError:
        return b""
    finally:
        os.close(fd)


def remove_empty_dirs(base: str, names: tuple[str, ...]) -> None:
    """Remove each `base/<name>` that is an empty directory (not a link); anything else is left as
    it is.

    A worker sandbox's mount points (`.codex`, `.claude`, `.mcp.json` in its worktree) remain as
    empty directories on the host after the sandbox ends; they carry nothing and go."""
    import errno

    try:
        fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return
    try:
        for name in names:
            if "/" in name or name in ("", ".", ".."):
                raise ValueError(f"not a plain name: {name[:40]!r}")
            try:
                os.rmdir(
                    name, dir_fd=fd
                )  # rmdir never follows a link and refuses a non-empty directory
            except OSError as exc:
                if exc.errno not in (
                    errno.ENOENT,
                    errno.ENOTEMPTY,
                    errno.EEXIST,
                    errno.ENOTDIR,
                    errno.EBUSY,
                ):
                    raise
    finally:
        os.close(fd)


def is_empty_dir(path: str) -> bool:
    """True when `path` is a directory (not a link) with no entries (never one in an agent's
    worktree outside a tree job: `fsio/trees.placeholders` looks below a worktree's root)."""
    from oms.fsio.trees import refuse_agent_tree

    refuse_agent_tree(path, "look at a folder")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        with os.scandir(fd) as entries:
            return next(iter(entries), None) is None
    finally:
        os.close(fd)


def reserve_descriptor() -> int:
    """The lowest free descriptor, held open on /dev/null (close-on-exec) until the caller dup2()s
    over it."""
    return os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)


def unreadable_by_others(top: str, budget: int = 20000) -> tuple[list[str], list[str]]:
    """(files, directories) under `top` that other users cannot read (directories: not listable or
    not searchable by them; not descended into), not following links; at most `budget` entries are
    looked at — what a root-run sandbox must mask, since its agent maps to the owner of root's
    files."""
    import stat

    files: list[str] = []
    dirs: list[str] = []
    left = [budget]

    def walk(path: str) -> None:
        try:
            entries = os.scandir(path)
        except OSError:
            return
        with entries:
            for entry in entries:
                left[0] -= 1
                if left[0] < 0:
                    return
                try:
                    mode = entry.stat(follow_symlinks=False).st_mode
                except OSError:
                    continue
                if stat.S_ISDIR(mode):
                    if mode & 0o005 != 0o005:
                        dirs.append(entry.path)
                    else:
                        walk(entry.path)
                elif stat.S_ISREG(mode) and not mode & 0o004:
                    files.append(entry.path)

    walk(top)
    return files, dirs


def find_in_file(path: str, needle: bytes, after: int) -> bytes | None:
    """The `after` bytes from the first `needle` in the regular file at `path` (mapped, never read
    whole: an agent CLI's binary is hundreds of MB); None when it is not there or the file cannot be
    mapped."""
    import mmap

    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as view:
            at = view.find(needle)
            return None if at < 0 else view[at : at + len(needle) + after]
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
