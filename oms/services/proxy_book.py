"""Each dispatch's model usage as the proxy counts it (ADR 0020): read from the state root on first use,
added to in memory as answers pass, written at most once a second (`proxy/usage/`, `services/proxy_tokens.py`).
"""

from __future__ import annotations

import errno
import sys
import threading
from collections.abc import Callable

from oms.domain import proxy_usage as counting
from oms.errors import OmsError, one_line
from oms.fsio import Root
from oms.services import proxy_tokens


def note(line: str) -> None:
    """One line to the proxy's log (its stderr)."""
    sys.stderr.write(one_line(line) + "\n")
    sys.stderr.flush()


def failure(error: BaseException | None) -> str:
    """What the log says of a failed connection: the error's type, and for an OS error its errno name —
    never its text, which may quote a header (a key) or a body."""
    if error is None:
        return "unknown"
    if isinstance(error, OSError) and error.errno is not None:
        return f"{type(error).__name__} ({errno.errorcode.get(error.errno, error.errno)})"
    return type(error).__name__


class Book:
    """Each dispatch's usage: read from the state root on first use, added to in memory, written by `flush`."""

    def __init__(self, root: Root, clock: Callable[[], str]) -> None:
        self._root = root
        self._clock = clock
        self._lock = threading.Lock()
        self._seen: dict[str, list[object]] = {}  # dispatch -> [usage, requests, sequence]
        self._dirty: set[str] = set()

    def _entry(self, dispatch_id: str) -> list[object]:
        entry = self._seen.get(dispatch_id)
        if entry is None:
            usage, requests, sequence = proxy_tokens.read_usage(self._root, dispatch_id)
            entry = self._seen[dispatch_id] = [usage, requests, sequence]
        return entry

    def used(self, dispatch_id: str) -> counting.Usage:
        """What the dispatch used so far."""
        with self._lock:
            usage = self._entry(dispatch_id)[0]
        assert isinstance(usage, counting.Usage)  # noqa: S101 - the entry's shape
        return usage

    def add(self, dispatch_id: str, usage: counting.Usage | None) -> None:
        """Count one request and what it used."""
        with self._lock:
            entry = self._entry(dispatch_id)
            before, requests = entry[0], entry[1]
            assert isinstance(before, counting.Usage)  # noqa: S101
            assert isinstance(requests, int)  # noqa: S101
            entry[0], entry[1] = before + (usage or counting.Usage()), requests + 1
            self._dirty.add(dispatch_id)

    def flush(self) -> None:
        """Write every changed dispatch's usage (a failure is noted and retried at the next flush)."""
        with self._lock:
            dirty, self._dirty = self._dirty, set()
            pending = {d: tuple(self._seen[d]) for d in dirty}
        for dispatch_id, (usage, requests, sequence) in pending.items():
            assert isinstance(usage, counting.Usage)  # noqa: S101
            assert isinstance(requests, int)  # noqa: S101
            assert isinstance(sequence, int)  # noqa: S101
            try:
                written = proxy_tokens.write_usage(self._root, dispatch_id, usage, requests, sequence, self._clock())
            except OmsError as exc:
                note(f"usage of {dispatch_id} not written: {exc.message}")
                with self._lock:
                    self._dirty.add(dispatch_id)
                continue
            with self._lock:
                self._seen[dispatch_id][2] = written
