"""Questions about paths that are not beneath an open root (where a root may go, what encloses it)."""

from __future__ import annotations

import os


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
    """Create `path` and its parents if missing (for places outside the state root, e.g. worktrees)."""
    os.makedirs(path, mode=mode, exist_ok=True)


def scratch_directory(prefix: str) -> str:
    """A new private (0700) directory under the system temporary directory (for `oms demo`)."""
    import tempfile

    return os.path.realpath(tempfile.mkdtemp(prefix=prefix))


def read_user_file(path: str, cap: int) -> bytes:
    """Read a file the user named on the command line (outside any root): regular, bounded, non-blocking."""
    import stat

    from oms.errors import FileTooLargeError, InvalidInputError

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as exc:
        raise InvalidInputError(f"{path}: {(exc.strerror or 'cannot open').lower()}") from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InvalidInputError(f"{path}: not a regular file")
        chunks, total = [], 0
        while chunk := os.read(fd, min(1 << 20, cap + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > cap:
                raise FileTooLargeError(f"{path}: more than {cap} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def regular_file_target(path: str) -> str:
    """The real path of `path`, which must itself be a regular file (not a symlink) — e.g. a user's
    Codex `auth.json`, the one file an agent home links to."""
    import stat

    from oms.errors import UnsafeFileError

    try:
        st = os.lstat(path)
    except OSError as exc:
        raise UnsafeFileError(f"{path}: {(exc.strerror or 'missing').lower()}") from exc
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeFileError(f"{path}: must be one regular file (not a link or anything else)")
    return os.path.realpath(path)
