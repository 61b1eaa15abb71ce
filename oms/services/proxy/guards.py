"""What keeps one worker from taking the model proxy from the others (issue 13, ADR 0020, round 3).

- `Deadlines`: a request's line, headers and body must all arrive within `Limits.proxy_header_s`
  of the moment the connection waits for it (a new connection, or the end of the previous answer
  on a kept-alive one); a watchdog shuts a connection down once its deadline passes. A per-read
  timeout alone let a sender that dribbles a byte every few seconds keep its connection for ever.
- `Held`: the request bodies the proxy holds at once, in bytes: at most `PER_DISPATCH` for one
  dispatch and `TOTAL` for all (a body is counted from its announced length, a chunked one at the
  bound, before a byte of it is read, until its answer is done); beyond, the request is refused with
  a 503 at once.
- Room for a new connection (`server.ProxyServer`): when every slot is taken, or the process's
  descriptors run short (`Limits.proxy_descriptor_reserve` left: a request being answered must
  still open its token file and its upstream), the connection that has waited longest for its
  request makes room (`Deadlines.evict_oldest`), among the port's own connections only: a door's
  are never closed for the port, nor a request whose token was admitted while its body comes
  (`Deadlines.spare`, `Limits.proxy_uploads_spared` per dispatch; it keeps its deadline). Idle
  connections cost their holder the earliest eviction; a worker that sends its request at once is
  answered.
- A connection is shut down only while it is still registered, under the lock its handler's
  `disarm` takes before the connection is closed: a descriptor the handler closed and the process
  gave to another connection (an upstream's, or another worker's) is never shut down in its
  place.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable

from oms.limits import LIMITS


class Deadlines:
    """Connections with a deadline, and the watchdog thread that shuts down those past it."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._due: dict[int, tuple[socket.socket, float]] = {}
        self._spared: dict[int, str] = {}  # connection -> the dispatch whose upload it carries
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="oms-proxy-deadlines", daemon=True)
        self._thread.start()

    def arm(self, conn: socket.socket, seconds: float = LIMITS.proxy_header_s) -> None:
        """`conn` must deliver its request within `seconds` from now."""
        with self._lock:
            self._due[id(conn)] = (conn, self._clock() + seconds)

    def disarm(self, conn: socket.socket) -> None:
        """`conn`'s request is in (or it is closing)."""
        with self._lock:
            self._due.pop(id(conn), None)
            self._spared.pop(id(conn), None)

    def spare(self, conn: socket.socket, dispatch_id: str) -> bool:
        """`conn`'s request was admitted (a valid token of `dispatch_id`) and its body is coming:
        it keeps its deadline but is not closed to make room, at most
        `Limits.proxy_uploads_spared` per dispatch at once (False: past that, it stays
        evictable)."""
        with self._lock:
            if id(conn) not in self._due:
                return False
            mine = sum(1 for spared in self._spared.values() if spared == dispatch_id)
            if mine >= LIMITS.proxy_uploads_spared:
                return False
            self._spared[id(conn)] = dispatch_id
            return True

    def evict_oldest(self, family: int) -> bool:
        """Shut down the connection of `family` nearest its deadline (one still waiting for its
        request, none being answered) to make room for a new one; False when none waits. Only the
        TCP port makes room (`socket.AF_INET`): a door's connections (`AF_UNIX`) have their own
        slots and hold none of the port's, so closing one would take another worker's request and
        free nothing."""
        with self._lock:
            waiting = [
                key
                for key, (conn, _) in self._due.items()
                if conn.family == family and key not in self._spared
            ]
            if not waiting:
                return False
            key = min(waiting, key=lambda k: self._due[k][1])
            _shut(self._due.pop(key)[0])  # its handler's read ends at once; its slot comes back
        return True

    def expire(self) -> int:
        """Shut down every connection past its deadline now; how many."""
        now = self._clock()
        with self._lock:
            late = [key for key, (_, due) in self._due.items() if due <= now]
        shut = 0
        for key in late:  # the lock is taken for one at a time: never held across hundreds
            with self._lock:
                found = self._due.get(key)
                if found is None or found[1] > now:
                    continue  # disarmed meanwhile (its handler may have closed it), or re-armed
                del self._due[key]
                self._spared.pop(key, None)
                _shut(found[0])  # its handler's read ends at once; it closes it
                shut += 1
        return shut

    def close(self) -> None:
        """Stop the watchdog."""
        self._stop.set()

    def _watch(self) -> None:
        while not self._stop.wait(LIMITS.proxy_deadlines_every_s):
            self.expire()


def _shut(conn: socket.socket) -> None:
    """Shut `conn` down (the caller holds the lock of `Deadlines`, and `conn` was registered: its
    handler has not closed it, so its descriptor is still its own)."""
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_RDWR)


class Held:
    """Request-body bytes held, per dispatch and in all."""

    def __init__(self, per_dispatch: int, total: int = LIMITS.proxy_held_bytes) -> None:
        self.per_dispatch = per_dispatch
        self.total = total
        self._lock = threading.Lock()
        self._by: dict[str, int] = {}
        self._all = 0

    def take(self, dispatch_id: str, size: int) -> bool:
        """Count `size` bytes for `dispatch_id`, if both bounds allow it."""
        with self._lock:
            mine = self._by.get(dispatch_id, 0)
            if mine + size > self.per_dispatch or self._all + size > self.total:
                return False
            self._by[dispatch_id] = mine + size
            self._all += size
            return True

    def give(self, dispatch_id: str, size: int) -> None:
        """Those bytes are no longer held."""
        with self._lock:
            left = self._by.get(dispatch_id, 0) - size
            if left > 0:
                self._by[dispatch_id] = left
            else:
                self._by.pop(dispatch_id, None)
            self._all = max(0, self._all - size)

    @property
    def held(self) -> int:
        """Bytes held now, in all."""
        return self._all
