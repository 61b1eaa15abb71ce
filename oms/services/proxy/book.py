"""Each dispatch's model usage as the proxy counts it (ADR 0020, ADR 0028), durable before it
matters: read from the state root on first use (what a proxy that died left reserved is charged), a
request's reservation written before it is forwarded (`reserve`) and its answer's cost written
before the answer's last chunk is released (`settle`), so a proxy killed at any moment has every
answer on disk — settled, or charged at most what it reserved (`proxy/usage/`,
`services/proxy/tokens.py`). A write that failed is retried once a second (`flush`).
"""

from __future__ import annotations

import errno
import sys
import threading
from collections.abc import Callable

from oms.domain import proxy_usage as counting
from oms.errors import OmsError, one_line
from oms.fsio import Root
from oms.services.proxy import tokens as proxy_tokens


def note(line: str) -> None:
    """One line to the proxy's log (its stderr)."""
    sys.stderr.write(one_line(line) + "\n")
    sys.stderr.flush()


def failure(error: BaseException | None) -> str:
    """What the log says of a failed connection: the error's type, and for an OS error its errno
    name — never its text, which may quote a header (a key) or a body."""
    if error is None:
        return "unknown"
    if isinstance(error, OSError) and error.errno is not None:
        return f"{type(error).__name__} ({errno.errorcode.get(error.errno, error.errno)})"
    return type(error).__name__


class _Entry:
    """One dispatch's count: settled costs, reservations of answers in flight, requests, the file's
    sequence, and the lock its writes take turns under."""

    __slots__ = ("pending", "requests", "sequence", "settled", "writing")

    def __init__(self, settled: counting.Usage, requests: int, sequence: int) -> None:
        self.settled = settled
        self.pending = counting.Usage()
        self.requests = requests
        self.sequence = sequence
        self.writing = threading.Lock()


class Book:
    """Each dispatch's usage: read from the state root on first use, changed in memory and written
    at once (`reserve`, `settle`); `flush` writes again what could not be written."""

    def __init__(self, root: Root, clock: Callable[[], str]) -> None:
        self._root = root
        self._clock = clock
        self._lock = threading.Lock()
        self._seen: dict[str, _Entry] = {}
        self._dirty: set[str] = set()

    def _entry(self, dispatch_id: str) -> _Entry:
        with self._lock:
            entry = self._seen.get(dispatch_id)
            if entry is None:  # what a proxy that died had reserved is charged: its answers came
                found = proxy_tokens.read_usage(self._root, dispatch_id, charged=True)
                usage, requests, sequence = found
                entry = self._seen[dispatch_id] = _Entry(usage, requests, sequence)
            return entry

    def used(self, dispatch_id: str) -> counting.Usage:
        """What the dispatch used so far (and what is reserved for its answers in flight)."""
        entry = self._entry(dispatch_id)
        with self._lock:
            return entry.settled + entry.pending

    def reserve(self, dispatch_id: str, charge: counting.Usage) -> bool:
        """Count one request and reserve `charge` for it, on disk before it is forwarded; False
        (nothing counted) if that cannot be written: the request must not be forwarded."""
        entry = self._entry(dispatch_id)
        with entry.writing:
            with self._lock:
                entry.pending, entry.requests = entry.pending + charge, entry.requests + 1
            if self._write(dispatch_id, entry):
                return True
            with self._lock:
                entry.pending, entry.requests = _less(entry.pending, charge), entry.requests - 1
            return False

    def settle(self, dispatch_id: str, charge: counting.Usage, cost: counting.Usage | None) -> bool:
        """A request's answer cost `cost`: its reservation `charge` is replaced by it, on disk now;
        False if that could not be written (the cost is kept, and written by the next `flush`)."""
        entry = self._entry(dispatch_id)
        with entry.writing:
            with self._lock:
                entry.pending = _less(entry.pending, charge)
                entry.settled = entry.settled + (cost or counting.Usage())
            if self._write(dispatch_id, entry):
                return True
            with self._lock:
                self._dirty.add(dispatch_id)
            return False

    def _write(self, dispatch_id: str, entry: _Entry) -> bool:
        """Write the entry as it is now (its `writing` lock held); False if it could not be."""
        with self._lock:
            settled, pending = entry.settled, entry.pending
            requests, sequence = entry.requests, entry.sequence
        try:
            written = proxy_tokens.write_usage(
                self._root, dispatch_id, settled, requests, sequence, self._clock(), pending
            )
        except OmsError as exc:
            note(f"usage of {dispatch_id} not written: {exc.message}")
            return False
        with self._lock:
            entry.sequence = written
        if written != sequence + 1:  # another writer's later file: ours was not written
            note(f"usage of {dispatch_id} not written: sequence {written} is another writer's")
            return False
        return True

    def flush(self) -> None:
        """Write again every dispatch whose last write failed (it stays to retry if it fails
        again)."""
        with self._lock:
            dirty, self._dirty = self._dirty, set()
        for dispatch_id in sorted(dirty):
            entry = self._entry(dispatch_id)
            with entry.writing:
                if not self._write(dispatch_id, entry):
                    with self._lock:
                        self._dirty.add(dispatch_id)


def _less(usage: counting.Usage, charge: counting.Usage) -> counting.Usage:
    return counting.Usage(
        max(0, usage.input_tokens - charge.input_tokens),
        max(0, usage.output_tokens - charge.output_tokens),
    )
