"""`oms conductor run`: the tick in a loop, one conductor per state root (the conductor lock, held
for the loop's whole life; on an etcd store one per host, and a loop whose lock lapsed ends), woken
early when something new arrives (a ticket, a dispatch, an event; on an etcd store a record's
latest pointer moved, heard by a watch: `changed_since`), ending when asked (SIGINT, SIGTERM: the
CLI's handlers set `stopping`) between two ticks — workers keep running.

A tick that fails as a whole (an unexpected error) is reported and the loop goes on; one bad ticket
or worker is a line of the tick's report (`tick.py`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from oms.errors import LeaseError, OmsError, one_line
from oms.limits import LIMITS
from oms.services.conductor import tick as conductor
from oms.services.workspace import Workspace

WATCHED = (
    "events",
    "records/ticket",
    "records/dispatch",
    "records/worker",
)  # new entries wake the loop


@dataclass
class Loop:
    """One conductor's loop over `ws`."""

    ws: Workspace
    interval_s: float
    report: Callable[
        [conductor.Tick | None, str | None], None
    ]  # a tick's report, or a failed tick's line
    stopping: Callable[[], bool]
    max_ticks: int | None = None
    memory: conductor.Memory = field(default_factory=conductor.Memory)  # between its ticks
    held: bool = False  # the caller holds the conductor lock already (`conductor.lock`)

    def run(self) -> int:
        """Tick until stopped (or `max_ticks`); the number of ticks run."""
        ticks = 0
        with contextlib.nullcontext() if self.held else conductor.lock(self.ws):
            while not self.stopping():
                seen = self._marks()
                try:
                    self.report(conductor.tick(self.ws, held=True, memory=self.memory), None)
                except LeaseError:  # its lock per host lapsed (etcd): it ends, acting on nothing
                    raise
                except OmsError as exc:
                    self.report(None, one_line(exc.message))
                # the machine (EMFILE, EAGAIN from fork, ENOMEM): one line
                except Exception as exc:  # noqa: BLE001
                    self.report(None, conductor.unexpected(exc)[0])
                ticks += 1
                if self.max_ticks is not None and ticks >= self.max_ticks:
                    break
                self._wait(seen)
        return ticks

    def _marks(self) -> tuple[tuple[int, int], ...] | None:
        """What the watched directories look like now (their change times and link counts; on an
        etcd store the cluster's revision); None when they cannot be looked at (no file
        descriptor left, say, or the cluster did not answer): the loop then waits its interval."""
        backend = conductor.etcd_of(self.ws)
        if backend is not None:
            from oms.adapters.etcd.store import current_revision

            try:
                return ((current_revision(backend), 0),)
            except OmsError:
                return None
        root = self.ws.store.state.root
        marks = []
        try:
            for rel in WATCHED:
                st = root.lstat(rel)
                marks.append((0, 0) if st is None else (st.st_mtime_ns, st.st_nlink))
        except (OmsError, OSError):
            return None
        return tuple(marks)

    def _wait(self, seen: tuple[tuple[int, int], ...] | None) -> None:
        """Until the interval has passed, something new arrived since `seen`, or the loop is
        stopping."""
        deadline = time.monotonic() + self.interval_s
        backend = conductor.etcd_of(self.ws)
        while time.monotonic() < deadline and not self.stopping():
            if backend is not None and seen is not None:  # a watch, not a poll, on etcd
                from oms.adapters.etcd.store import changed_since

                left = max(0.0, deadline - time.monotonic())
                try:
                    moved = changed_since(
                        backend, seen[0][0] + 1, wait_s=min(left, LIMITS.etcd_wake_wait_s)
                    )
                except OmsError:  # unreachable, or a compacted revision: a tick looks again
                    return
                if moved.records:
                    return
                continue
            now = self._marks()
            if seen is not None and now is not None and now != seen:
                return
            time.sleep(min(LIMITS.conductor_poll_s, max(0.0, deadline - time.monotonic())))
