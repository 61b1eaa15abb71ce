"""Time as the adapters that wait see it: a `Clock` they are given, never `time` called directly, so
a test drives polling loops with a fake clock (no real sleep) and production passes
`SYSTEM_CLOCK`."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """A monotonic reading and a way to wait."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait `seconds`."""
        ...


class SystemClock:
    """The real clock."""

    def monotonic(self) -> float:
        """`time.monotonic()`."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        """`time.sleep(seconds)`."""
        time.sleep(seconds)


SYSTEM_CLOCK: Clock = SystemClock()
