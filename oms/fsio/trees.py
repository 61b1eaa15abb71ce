"""An agent's worktree: read, walked and removed only inside a tree job (docs/adr/0024).

An agent writes its worktree while oms works on it, and between two system calls it can turn a
directory into a link to a host directory (the state root's `keys/`, `~/.ssh`). So oms never reads,
walks or runs git in such a tree on the host: a tree job (`oms worker tree-job`,
`adapters/tree_work.py`) does it, inside a sandbox that shows exactly what the agent saw, and
switches this module on first (`enter_tree_job`). Anywhere else the helpers here — and
`adapters/git.git` — refuse a path inside a linked worktree (one whose `.git` is a file:
`refuse_agent_tree`): a host-side read through an agent's files is an oms bug, stopped before it
reads.

Inside the job the reads still follow no link at any component (each directory opened `O_NOFOLLOW`
from its parent's descriptor, a file opened `O_NONBLOCK` and checked to be the entry that was looked
at), so what a race swaps in is named, never read: `read_entry`, `remove_kept_files`, `empty_tree`,
`hidden_git_entries`, `tree_bytes`. `remove_tree` (a scratch checkout oms made, after its checks ran
in it) and `placeholders` (one name below a worktree's root, looked at through the root's
descriptor) are safe on the host too.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from typing import NamedTuple

from oms.errors import AgentTreeError, FileTooLargeError, UnsafeFileError, shown
from oms.limits import LIMITS

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
_INSIDE = [False]


def enter_tree_job() -> None:
    """This process is a tree job, in its sandbox: agent trees may be read (called once, at its
    start)."""
    _INSIDE[0] = True


def in_tree_job() -> bool:
    """Is this process a tree job?"""
    return _INSIDE[0]


def agent_tree_of(path: str) -> str | None:
    """The linked worktree `path` lies in (the nearest directory at or above it whose `.git` is a
    regular file, looking all the way up: a repository nested in a worktree is in it too), or
    None."""
    current = os.path.abspath(path)
    found: str | None = None
    while True:
        with contextlib.suppress(OSError):
            if stat.S_ISREG(os.lstat(os.path.join(current, ".git")).st_mode):
                found = current
        parent = os.path.dirname(current)
        if parent == current:
            return found
        current = parent


def refuse_agent_tree(path: str, what: str) -> None:
    """Raise `AgentTreeError` if `path` lies in an agent's worktree and this is not a tree job."""
    if _INSIDE[0]:
        return
    tree = agent_tree_of(path)
    if tree is not None:
        where = f"{shown(path)} on the host, in the worktree {shown(tree)}"
        raise AgentTreeError(f"oms was about to {what} in {where}")


class Entry(NamedTuple):
    """What is at a path, never following a link: `kind` is file, link, dir, missing, fifo, socket
    or device; `mode` the git mode of a file (100644, 100755) or a link (120000); `data` a file's
    bytes or a link's target."""

    kind: str
    mode: str = ""
    data: bytes = b""


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISDIR(mode):
        return "dir"
    return "fifo" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode) else "device"


def _parts(rel: str) -> list[str]:
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\x00" in rel:
        raise UnsafeFileError(f"{shown(rel)} is not a plain relative path")
    return parts


def _open_parent(top_fd: int, rel: str, parts: list[str]) -> int | None:
    """A descriptor of the directory holding `rel`'s last component, each component opened
    `O_NOFOLLOW` from its parent's descriptor (None: a component is missing). A link or a
    non-directory on the way is an `UnsafeFileError` naming it (the tree changed under us: nothing
    beneath it is read)."""
    fd = os.dup(top_fd)
    for i, part in enumerate(parts[:-1]):
        try:
            nxt = os.open(part, _DIR, dir_fd=fd)
        except FileNotFoundError:
            os.close(fd)
            return None
        except OSError as exc:
            what = "not a folder"
            with contextlib.suppress(OSError):
                what = "a " + _named(_kind(os.stat(part, dir_fd=fd, follow_symlinks=False).st_mode))
            os.close(fd)
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                raise
            where = f"{shown('/'.join(parts[: i + 1]))} is {what}"
            raise UnsafeFileError(f"{where} (on the way to {shown(rel)}); nothing read") from exc
        os.close(fd)
        fd = nxt
    return fd


def _named(kind: str) -> str:
    return {"link": "symlink", "dir": "folder", "fifo": "FIFO"}.get(kind, kind)


def read_entry(top: str, rel: str, cap: int) -> Entry:
    """What `rel` (relative to `top`) is, and a file's bytes (at most `cap`: more is
    `FileTooLargeError`) or a link's target; read with no link followed anywhere (a link on the way:
    `UnsafeFileError` naming it), a FIFO never opened, a file that changed between the look and the
    read refused."""
    refuse_agent_tree(top, "read a file")
    parts = _parts(rel)
    top_fd = os.open(top, _DIR)
    try:
        fd = _open_parent(top_fd, rel, parts)
    finally:
        os.close(top_fd)
    if fd is None:
        return Entry("missing")
    name = parts[-1]
    try:
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return Entry("missing")
        kind = _kind(st.st_mode)
        if kind == "link":
            return Entry("link", "120000", os.fsencode(os.readlink(name, dir_fd=fd)))
        if kind != "file":
            return Entry(kind)
        mode = "100755" if st.st_mode & 0o100 else "100644"
        return Entry("file", mode, _read_file(fd, name, rel, st, cap))
    finally:
        os.close(fd)


def _read_file(dir_fd: int, name: str, rel: str, looked: os.stat_result, cap: int) -> bytes:
    try:
        fd = os.open(name, _FILE, dir_fd=dir_fd)
    except OSError as exc:
        raise UnsafeFileError(f"{shown(rel)} changed while it was read ({exc.strerror})") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (looked.st_dev, looked.st_ino):
            now = _named(_kind(st.st_mode))
            raise UnsafeFileError(f"{shown(rel)} was replaced while it was read (now a {now})")
        if st.st_size > cap:
            raise FileTooLargeError(f"{shown(rel)} holds more than {cap} bytes")
        chunks: list[bytes] = []
        total = 0
        while chunk := os.read(fd, min(1 << 20, cap + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > cap:
                raise FileTooLargeError(f"{shown(rel)} holds more than {cap} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def entry_kind(path: str) -> tuple[str, str]:
    """What is at `path` (its last component not followed): ("file", "100644" | "100755"), ("link",
    its target), ("dir", ""), ("missing", ""), or ("fifo" | "socket" | "device", "")."""
    refuse_agent_tree(path, "look at a file")
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return "missing", ""
    kind = _kind(st.st_mode)
    if kind == "link":
        return "link", os.readlink(path)
    if kind == "file":
        return "file", "100755" if st.st_mode & 0o100 else "100644"
    return kind, ""


def remove_kept_files(top: str, rels: list[str]) -> list[str]:
    """Remove the files `rels` (relative to `top`) that a salvage holds, then the folders they leave
    empty; each through its parent's descriptor (a link or a non-folder on the way: left alone).
    What could not be removed is returned."""
    refuse_agent_tree(top, "remove files")
    left: list[str] = []
    parents: set[str] = set()
    top_fd = os.open(top, _DIR)
    try:
        for rel in rels:
            parts = _parts(rel)
            try:
                fd = _open_parent(top_fd, rel, parts)
            except (UnsafeFileError, OSError):
                left.append(rel)
                continue
            if fd is None:
                continue
            try:
                os.unlink(parts[-1], dir_fd=fd)
            except FileNotFoundError:
                pass
            except OSError:
                left.append(rel)
                continue
            finally:
                os.close(fd)
            parents.update("/".join(parts[:i]) for i in range(len(parts) - 1, 0, -1))
        for rel in sorted(parents, key=lambda p: -p.count("/")):
            parts = rel.split("/")
            with contextlib.suppress(OSError, UnsafeFileError):
                fd = _open_parent(top_fd, rel, parts)
                if fd is not None:
                    try:
                        os.rmdir(parts[-1], dir_fd=fd)  # only an empty one; follows no link
                    finally:
                        os.close(fd)
    finally:
        os.close(top_fd)
    return left


def _walk(fd: int, prefix: str, skip: str = "") -> Iterator[tuple[str, str, int]]:
    """(relative path, kind, bytes on disk) of every entry below the directory `fd` (but `skip`, a
    name directly below it), depth first, never following a link; a folder that cannot be opened is
    listed, not entered."""
    with os.scandir(fd) as entries:
        found = [(e.name, e.stat(follow_symlinks=False)) for e in entries if e.name != skip]
    for name, st in found:
        rel = f"{prefix}{name}"
        kind = _kind(st.st_mode)
        yield rel, kind, st.st_blocks * 512
        if kind == "dir":
            try:
                sub = os.open(name, _DIR, dir_fd=fd)
            except OSError:
                continue
            try:
                yield from _walk(sub, rel + "/")
            finally:
                os.close(sub)


def hidden_git_entries(top: str, budget: int = 200_000) -> list[str]:
    """Entries named `.git` below `top` (its own `.git` aside), which `git status` never lists: a
    nested repository, or a file or folder an agent named so. Relative paths; at most the first 100.
    Walking more than `budget` entries counts as finding one (a worktree too large to prove clean is
    not clean)."""
    refuse_agent_tree(top, "walk a worktree")
    found: list[str] = []
    top_fd = os.open(top, _DIR)
    try:
        for seen, (rel, _, _) in enumerate(_walk(top_fd, "", skip=".git"), 1):
            if rel.rsplit("/", 1)[-1] == ".git":
                found.append(rel)
            if seen > budget:
                found.append(f"(more than {budget} entries: not walked further)")
                break
            if len(found) >= 100:
                break
    finally:
        os.close(top_fd)
    return found


def tree_bytes(top: str) -> int:
    """The bytes the entries under `top` take on disk (links not followed)."""
    refuse_agent_tree(top, "walk a worktree")
    top_fd = os.open(top, _DIR)
    try:
        return sum(size for _, _, size in _walk(top_fd, ""))
    finally:
        os.close(top_fd)


def _unlock(parent_fd: int, name: str) -> None:
    """Make the folder `name` (a checked folder, never followed: through an `O_PATH` descriptor)
    enterable and writable, as a check or an agent may have left it `chmod 000`."""
    with contextlib.suppress(OSError):
        fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent_fd)
        try:
            if stat.S_ISDIR(os.fstat(fd).st_mode):
                os.chmod(f"/proc/self/fd/{fd}", 0o700)  # the very inode opened above
        finally:
            os.close(fd)


def _empty(fd: int, left: list[str], prefix: str) -> None:
    """Remove everything below the directory `fd`, never following a link; what stays goes to
    `left`."""
    with os.scandir(fd) as entries:
        names = [e.name for e in entries]
    for name in names:
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            continue
        if not stat.S_ISDIR(st.st_mode):
            try:
                os.unlink(name, dir_fd=fd)
            except FileNotFoundError:
                pass
            except OSError:
                left.append(prefix + name)
            continue
        try:
            sub = os.open(name, _DIR, dir_fd=fd)
        except PermissionError:
            _unlock(fd, name)
            try:
                sub = os.open(name, _DIR, dir_fd=fd)
            except OSError:
                left.append(prefix + name)
                continue
        except OSError:
            left.append(prefix + name)
            continue
        try:
            if not os.access(f"/proc/self/fd/{sub}", os.W_OK | os.X_OK):
                _unlock(fd, name)
            _empty(sub, left, prefix + name + "/")
        finally:
            os.close(sub)
        try:
            os.rmdir(name, dir_fd=fd)
        except FileNotFoundError:
            pass
        except OSError:
            left.append(prefix + name + "/")


def empty_tree(top: str) -> list[str]:
    """Remove every entry below the directory `top` (which stays), following no link; what could not
    be removed (relative paths, at most 100) is returned."""
    refuse_agent_tree(top, "remove a worktree's files")
    left: list[str] = []
    fd = os.open(top, _DIR)
    try:
        _empty(fd, left, "")
    finally:
        os.close(fd)
    return left[:100]


def remove_tree(path: str) -> bool:
    """Remove a directory oms made outside any root (a scratch checkout) with everything in it,
    following no link (each entry through its parent's descriptor); False when something could not
    be removed (it is left). Safe on the host whatever the tree holds now (a check may have left
    links and a `.git` file)."""
    parent, name = os.path.split(os.path.abspath(path))
    try:
        parent_fd = os.open(parent, _DIR)
    except OSError:
        return False
    try:
        try:
            st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
        except FileNotFoundError:
            return True
        if not stat.S_ISDIR(st.st_mode):
            os.unlink(name, dir_fd=parent_fd)
            return True
        _unlock(parent_fd, name)
        fd = os.open(name, _DIR, dir_fd=parent_fd)
        try:
            left: list[str] = []
            _empty(fd, left, "")
        finally:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.rmdir(name, dir_fd=parent_fd)
        try:
            os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
        except FileNotFoundError:
            return True
        return False
    finally:
        os.close(parent_fd)


def placeholders(worktree: str, names: tuple[str, ...]) -> dict[str, str]:
    """For each of `names` (plain names) directly below the worktree's root: "missing", "empty" (an
    empty folder: a sandbox's mount point), "folder" (with entries), or what else it is ("file",
    "link", ...). Safe on the host: the root is opened `O_NOFOLLOW` and each name looked at through
    its descriptor, so no path component an agent can change is resolved."""
    out: dict[str, str] = {}
    fd = os.open(worktree, _DIR)
    try:
        for name in names:
            if "/" in name or name in ("", ".", ".."):
                raise ValueError(f"not a plain name: {name[:40]!r}")
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                out[name] = "missing"
                continue
            kind = _kind(st.st_mode)
            if kind != "dir":
                out[name] = kind
                continue
            try:
                sub = os.open(name, _DIR, dir_fd=fd)
            except OSError:
                out[name] = "folder"
                continue
            try:
                with os.scandir(sub) as entries:
                    out[name] = "empty" if next(iter(entries), None) is None else "folder"
            finally:
                os.close(sub)
    finally:
        os.close(fd)
    return out


def read_dotgit(worktree: str, cap: int = LIMITS.gitdir_pointer_bytes) -> bytes:
    """The bytes of the `.git` file at the worktree's root (what names its git dir), at most `cap`:
    opened through the root's descriptor, `O_NOFOLLOW` and `O_NONBLOCK`, a regular file or
    `UnsafeFileError`. Safe on the host (no component an agent can change is resolved; an agent sees
    this file read-only)."""
    fd = os.open(worktree, _DIR)
    try:
        try:
            file_fd = os.open(".git", _FILE, dir_fd=fd)
        except OSError as exc:
            why = exc.strerror
            raise UnsafeFileError(f"{shown(worktree)}/.git cannot be read ({why})") from exc
    finally:
        os.close(fd)
    try:
        if not stat.S_ISREG(os.fstat(file_fd).st_mode):
            raise UnsafeFileError(f"{shown(worktree)}/.git is not a file")
        data = os.read(file_fd, cap + 1)
    finally:
        os.close(file_fd)
    if len(data) > cap:
        raise FileTooLargeError(f"{shown(worktree)}/.git holds more than {cap} bytes")
    return data


def remove_empty_dir(path: str) -> bool:
    """Remove `path` if it is an empty directory (rmdir: never a link, never with entries); True if
    gone."""
    parent, name = os.path.split(os.path.abspath(path))
    fd = os.open(parent, _DIR)
    try:
        os.rmdir(name, dir_fd=fd)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return True
