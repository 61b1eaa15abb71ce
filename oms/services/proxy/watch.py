"""One model proxy per state root, and its log bounded (issue 24's soak; SECURITY.md).

The soak left 13 `oms proxy serve` processes for one state root: a launch's `ensure` started a
proxy and was SIGKILLed before it recorded it, the detached child served on, unrecorded, and held
the doors of every token, so the recorded proxy logged "a live socket is there" for each door ten
times a second (1.67 GB). Now, by construction:

- `serve_lock`: a proxy holds `proxy/serve.lock` (naming it: stale once it is gone, however it
  ended) for its whole life, taken before it listens; a second one waits `proxy_serve_wait_s` for
  the one before it to exit, then refuses to serve.
- `Watch`: a proxy that is not the one `proxy/proxy.json` names exits, unless the start that
  started it is still under way (the start lock's holder is the one it found at its start): a
  proxy whose starter died, or whose record was replaced or removed, stops serving within
  `proxy_watch_s`.
- `CappedLog`: the proxy's stderr (its log) is rotated at `proxy_log_bytes`, one old file kept.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from oms.canonical import access
from oms.errors import LockHeldError, OmsError, ProxyError
from oms.fsio import Root, locks
from oms.fsio.procinfo import ProcessIdentity, current
from oms.limits import LIMITS
from oms.store.documents import parse_document

SERVE_LOCK = "proxy/serve.lock"  # held by the one proxy that serves this state root
OLD_LOG_SUFFIX = ".1"


def serve_lock(root: Root) -> locks.Lock:
    """The state root's one serving proxy's lock, once the proxy before it is gone (ProxyError
    after `proxy_serve_wait_s`)."""
    try:
        return locks.acquire_waiting(root, SERVE_LOCK, LIMITS.proxy_serve_wait_s)
    except LockHeldError as exc:
        why = f"another proxy serves this state root ({exc.message})"
        raise ProxyError(why, hint="oms proxy status") from exc


def starter(root: Root, start_lock: str) -> tuple[ProcessIdentity, int, int] | None:
    """The start under way now: the start lock's live holder and that lock file's inode and
    change time (one process's second start is another start)."""
    try:
        found = locks.inspect(root, start_lock)
        st = root.lstat(start_lock)
    except OmsError:
        return None
    if found is None or not found.alive or found.holder is None or st is None:
        return None
    return found.holder, st.st_ino, st.st_ctime_ns


def recorded(root: Root, record: str, cap: int, me: ProcessIdentity) -> bool | None:
    """Does the proxy record name `me`? (Absent or not a proxy record: no. None: it could not be
    read now — out of descriptors while a sandbox holds hundreds of connections, say — which is
    no reason to stop serving.)"""
    try:
        data = root.read_optional(record, cap)
    except OmsError:
        return None
    try:
        doc = None if data is None else parse_document(data, "proxy-record", record)
    except OmsError:
        return False
    if doc is None:
        return False
    try:
        boot, pid = access.text(doc, "boot_id"), access.integer(doc, "pid")
        named = ProcessIdentity(boot, pid, access.integer(doc, "start_ticks"))
    except (KeyError, TypeError, ValueError):
        return False
    return named == me


class Watch:
    """Ends the proxy (`end`) once it is not the recorded one and its start is not under way."""

    def __init__(self, root: Root, record: str, cap: int, start_lock: str) -> None:
        self.root, self.record, self.cap, self.start_lock = root, record, cap, start_lock
        self.me = current()
        self.started_by = starter(root, start_lock)  # the start under way as this proxy began
        self._stop = threading.Event()

    def superseded(self) -> str | None:
        """Why this proxy must stop serving (None: it is the recorded one, or its start is under
        way)."""
        named = recorded(self.root, self.record, self.cap, self.me)
        if named is None:  # unreadable for now: asked again at the next check
            return None
        if named:
            self.started_by = None  # recorded once: its start is over
            return None
        if self.started_by is not None and starter(self.root, self.start_lock) == self.started_by:
            return None
        return f"{self.record} does not name this proxy (pid {self.me.pid}): it stops serving"

    def run(self, end: Callable[[str], None]) -> None:
        """Check every `proxy_watch_s` until `stop`; `end(why)` once superseded."""
        while not self._stop.wait(LIMITS.proxy_watch_s):
            why = self.superseded()
            if why is not None:
                end(why)
                return

    def stop(self) -> None:
        """Stop watching."""
        self._stop.set()


class CappedLog:
    """The proxy's stderr: its log at file descriptor 2, rotated once it would pass `cap` bytes
    (the old one kept as `<log>.1`, replacing the one before), written one line at a time."""

    def __init__(self, root: Root, log: str, cap: int = LIMITS.proxy_log_bytes) -> None:
        self.root, self.log, self.cap = root, log, cap
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        """Write `text` (a line, at most `cap` bytes of it), rotating first if it would not fit."""
        data = text.encode("utf-8", "replace")[: self.cap]
        with self._lock:
            try:
                if os.fstat(2).st_size + len(data) > self.cap:
                    self._rotate()
                os.write(2, data)
            except (OSError, OmsError):
                return 0  # a log that cannot be written loses the line, never the proxy
        return len(text)

    def _rotate(self) -> None:
        self.root.rotate_log(self.log, self.log + OLD_LOG_SUFFIX)
        fd = self.root.open_log(self.log)
        try:
            os.dup2(fd, 2)
        finally:
            os.close(fd)

    def flush(self) -> None:
        """Nothing is buffered."""

    def isatty(self) -> bool:
        """A file."""
        return False
