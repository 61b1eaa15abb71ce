"""Lock files that name their holder, and are stale only when that exact holder is gone.

A lock is a file created atomically and no-replace (`Root.publish`), whose one line names the
holder: `oms-lock v1 pid=<pid> start=<ticks> boot=<boot id>`. Acquiring an existing lock:

* holder alive (same boot, pid and start time): `LockHeldError`;
* holder gone: the lock is stale. It is removed under `flock` on its directory, after re-reading it,
  so two breakers never remove a fresh lock that a third process just created; then acquisition
  retries.

Release removes the file only if the name still refers to the inode we created.
"""

from __future__ import annotations

import contextlib
import fcntl
import re
import time
from collections.abc import Callable
from types import TracebackType
from typing import NamedTuple

from oms.errors import AlreadyExistsError, FsioError, LockHeldError
from oms.fsio import procinfo
from oms.fsio.root import FileId, Root

_LINE = re.compile(
    r"oms-lock v1 pid=([1-9][0-9]{0,9}) start=([0-9]{1,20}) boot=([0-9a-f-]{1,64})\n"
)
LOCK_SUFFIX = ".lock"


def render(identity: procinfo.ProcessIdentity) -> bytes:
    """The lock file body for `identity`."""
    return (
        f"oms-lock v1 pid={identity.pid} start={identity.start_ticks} boot={identity.boot_id}\n"
    ).encode()


def parse(data: bytes) -> procinfo.ProcessIdentity | None:
    """The holder named by a lock body, or None if the body is not one oms wrote."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return None
    match = _LINE.fullmatch(text)
    if match is None:
        return None
    return procinfo.ProcessIdentity(match.group(3), int(match.group(1)), int(match.group(2)))


class LockState(NamedTuple):
    """What a lock file says about its holder."""

    holder: procinfo.ProcessIdentity | None  # None: unreadable body (never written by oms)
    alive: bool


def inspect(root: Root, rel: str) -> LockState | None:
    """The state of lock `rel`, or None when no lock exists."""
    data = root.read_optional(rel, root.options.limits.lock_bytes)
    if data is None:
        return None
    holder = parse(data)
    return LockState(holder, holder is not None and procinfo.is_alive(holder))


class Lock:
    """A held lock; release it with `release()` or by leaving a `with` block."""

    def __init__(self, root: Root, rel: str, file_id: FileId, body: bytes) -> None:
        self.root = root
        self.rel = rel
        self._file_id: FileId | None = file_id
        self._body = body

    @property
    def held(self) -> bool:
        """False once released."""
        return self._file_id is not None

    def release(self) -> None:
        """Remove the lock file if it is still ours (idempotent)."""
        if self._file_id is None:
            return
        file_id, self._file_id = self._file_id, None
        # Same inode *and* our own body: inode numbers can be reused, our (boot, pid, start) cannot.
        if self.root.read_optional(
            self.rel, len(self._body) + 1
        ) != self._body or not self.root.unlink(self.rel, expect=file_id):
            raise FsioError(f"{self.rel}: lock was removed or replaced while held")

    def __enter__(self) -> Lock:
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def acquire(root: Root, rel: str) -> Lock:
    """Take lock `rel` (its directory must exist) or raise `LockHeldError` naming the live
    holder."""
    body = render(procinfo.current())
    for _ in range(3):
        try:
            return Lock(root, rel, root.publish(rel, body), body)
        except AlreadyExistsError:
            pass
        state = inspect(root, rel)
        if state is None:
            continue  # released between our attempt and our look: try again
        if state.holder is None:
            raise LockHeldError(
                f"{rel}: lock file is not one oms wrote; refusing to guess",
                hint="inspect it, then remove it by hand if no oms process is running",
            )
        if state.alive:
            raise LockHeldError(
                f"{rel}: held by live process {state.holder.pid}", holder_pid=state.holder.pid
            )
        break_stale(root, rel, state.holder)
    raise LockHeldError(f"{rel}: lock keeps changing hands; retry later")


def acquire_waiting(
    root: Root,
    rel: str,
    timeout_s: float,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Lock:
    """Take lock `rel`, waiting up to `timeout_s` for a live holder to finish (polling every 10 ms);
    then `LockHeldError` as from `acquire`. For short critical sections that callers must not fail
    on."""
    deadline = clock() + timeout_s
    while True:
        try:
            return acquire(root, rel)
        except LockHeldError:
            if clock() >= deadline:
                raise
        sleep(0.01)


def break_stale(root: Root, rel: str, holder: procinfo.ProcessIdentity) -> bool:
    """Remove lock `rel` if it still names `holder` and `holder` is gone. Serialised by flock on the
    directory."""
    parent = rel.rpartition("/")[0]
    with root.dir_fd(parent) as dfd:
        fcntl.flock(dfd, fcntl.LOCK_EX)
        try:
            st = root.lstat(rel)
            if st is None:
                return False
            data = root.read_optional(rel, root.options.limits.lock_bytes)
            if data is None or parse(data) != holder or procinfo.is_alive(holder):
                return False
            return root.unlink(rel, expect=FileId(st.st_dev, st.st_ino))
        finally:
            with contextlib.suppress(OSError):
                fcntl.flock(dfd, fcntl.LOCK_UN)
