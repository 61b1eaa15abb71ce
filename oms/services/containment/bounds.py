"""While a sandbox runs: has it reached a bound? (issue 23, ADR 0025.)

A `Guard` reads the counters of the sandbox's cgroup every `cgroup_poll_s` (the kernel enforces the
pids and memory limits; the counters say one was reached: `pids`, `memory`) and measures the trees
it writes (a worker's worktree and private home, a check's checkout) in slices of `disk_walk_slice`
entries (`fsio/usage.py`): a walk that ends above `disk_bytes`, or that finds a tree too large to
measure, is `disk`. A new walk starts `every_s` after the last one ended, or later, so that walking
takes at most `disk_walk_share` of the time. The caller ends the sandbox when `poll` names a bound,
and records why (`detail`). The largest file is the kernel's to bound (RLIMIT_FSIZE,
`process/confine.py`).
"""

from __future__ import annotations

import time

from oms.adapters.cgroups import Cgroup
from oms.domain.sandbox_limits import SandboxLimits
from oms.fsio.usage import TreeWalk
from oms.limits import LIMITS


class Guard:
    """One running sandbox's bounds, polled by its caller's loop."""

    def __init__(
        self,
        group: Cgroup,
        trees: tuple[str, ...],
        limits: SandboxLimits,
        *,
        every_s: float,
    ) -> None:
        self.group = group
        self.trees = trees
        self.limits = limits
        self.every_s = every_s
        now = time.monotonic()
        self._counters_at = now + LIMITS.cgroup_poll_s
        self._walk_at = now + every_s
        self._walk: TreeWalk | None = None
        self._spent = 0.0
        self.measured: tuple[int, int, str | None] | None = None  # bytes, entries, beyond

    def due(self) -> float | None:
        """When `poll` has something to do next (`time.monotonic()` clock); None: never (no cgroup,
        no tree)."""
        times = [self._walk_at] if self.trees else []
        if self.group.counters:
            times.append(self._counters_at)
        return min(times) if times else None

    def poll(self) -> str | None:
        """Do what is due; the bound the sandbox reached (`pids`, `memory`, `disk`), or None."""
        now = time.monotonic()
        if self.group.counters and now >= self._counters_at:
            self._counters_at = now + LIMITS.cgroup_poll_s
            reached = self.group.reached()
            if reached is not None:
                return reached
        if self.trees and now >= self._walk_at:
            return self._walk_slice(now)
        return None

    def _walk_slice(self, now: float) -> str | None:
        if self._walk is None:
            self._walk = TreeWalk(
                self.trees,
                max_entries=LIMITS.disk_walk_entries,
                max_depth=LIMITS.disk_walk_depth,
                links=LIMITS.disk_walk_links,
            )
            self._spent = 0.0
        walk = self._walk
        done = walk.step(LIMITS.disk_walk_slice)
        self._spent += time.monotonic() - now
        if not done:
            self._walk_at = now  # the rest at the loop's next turn
            return None
        self._walk = None
        self.measured = (walk.bytes, walk.entries, walk.beyond)
        self._walk_at = time.monotonic() + max(self.every_s, self._spent / LIMITS.disk_walk_share)
        return "disk" if walk.beyond is not None or walk.bytes > self.limits.disk_bytes else None

    def final(self) -> str | None:
        """Once the sandbox ended (a check): its counters, then its trees measured whole."""
        reached = self.group.reached()
        if reached is not None or not self.trees:
            return reached
        self.close()
        self._walk_at = time.monotonic()
        while (reached := self._walk_slice(time.monotonic())) is None and self._walk is not None:
            pass
        return reached

    def detail(self, reached: str) -> str:
        """Why the sandbox was ended, for its end record and its log."""
        if reached == "pids":
            return f"limit: pids: it reached its bound of {self.limits.pids} tasks"
        if reached == "memory":
            bound = self.limits.memory_bytes
            return f"limit: memory: it reached its bound of {bound} bytes (an OOM kill)"
        size, entries, beyond = self.measured or (0, 0, None)
        if beyond is not None:
            return f"limit: disk: what it wrote is too large to measure ({beyond})"
        bound = self.limits.disk_bytes
        return f"limit: disk: it holds {size} bytes ({entries} entries), above its bound of {bound}"

    def close(self) -> None:
        """Stop measuring (the sandbox ended)."""
        if self._walk is not None:
            self._walk.close()
            self._walk = None
