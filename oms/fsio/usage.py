"""What directory trees an agent writes hold on disk, measured in steps (issue 23, ADR 0025): a
worker's worktree and private home, a check's checkout.

Only metadata is read, and never through a link: each directory is opened relative to its parent's
descriptor with `O_NOFOLLOW | O_DIRECTORY` (a directory swapped for a symlink mid-walk is skipped,
not followed), entries are `lstat`ed, and another file system (a mount below a top) is not entered.
What a file takes is its allocated blocks (a sparse file counts what it holds); a hard-linked file
counts once while `links` are remembered. A walk stops at `max_entries` entries or `max_depth`
levels and says so (`beyond`): a tree too large to measure counts as over its bound. `step(n)`
measures at most `n` entries, so a caller with other work (the broker's loop) can walk between its
turns.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class TreeWalk:
    """One measurement of `tops`, made by calls to `step` until it is over."""

    def __init__(
        self,
        tops: tuple[str, ...],
        *,
        max_entries: int,
        max_depth: int,
        links: int,
    ) -> None:
        self.bytes = 0
        self.entries = 0
        self.beyond: str | None = None  # why it stopped early (the tree counts as over its bound)
        self._tops = list(tops)
        self._max_entries = max_entries
        self._max_depth = max_depth
        self._links = links
        self._seen: set[tuple[int, int]] = set()
        self._stack: list[tuple[int, Iterator[os.DirEntry[str]], int]] = []  # (fd, entries, dev)

    @property
    def over(self) -> bool:
        """Nothing is left to measure (or it stopped early)."""
        return self.beyond is not None or (not self._stack and not self._tops)

    def step(self, budget: int) -> bool:
        """Measure up to `budget` entries; True once the walk is over."""
        while budget > 0 and not self.over:
            if not self._stack:
                self._enter(self._tops.pop(0), None)
                continue
            fd, entries, device = self._stack[-1]
            entry = next(entries, None)
            if entry is None:
                self._pop()
                continue
            budget -= 1
            self._count(fd, entry, device)
        if self.over:
            self.close()
        return self.over

    def _count(self, fd: int, entry: os.DirEntry[str], device: int) -> None:
        self.entries += 1
        if self.entries > self._max_entries:
            self.beyond = f"more than {self._max_entries} entries"
            return
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            return  # gone meanwhile
        if stat.S_ISDIR(st.st_mode):
            if st.st_dev == device:
                self._enter(entry.name, fd, st)
            return
        if st.st_nlink > 1:
            key = (st.st_dev, st.st_ino)
            if key in self._seen:
                return
            if len(self._seen) < self._links:
                self._seen.add(key)
        self.bytes += st.st_blocks * 512

    def _enter(self, name: str, parent: int | None, listed: os.stat_result | None = None) -> None:
        """Open and count directory `name` (below `parent`; a top when None), then walk into it."""
        if len(self._stack) >= self._max_depth:
            self.beyond = f"deeper than {self._max_depth} levels"
            return
        try:
            fd = os.open(name, _DIR, dir_fd=parent) if parent is not None else os.open(name, _DIR)
        except OSError:
            return  # gone, or no longer a directory (a symlink now: not followed)
        try:
            st = os.fstat(fd)
            if listed is not None and (st.st_dev, st.st_ino) != (listed.st_dev, listed.st_ino):
                os.close(fd)  # swapped since it was listed: what is there now is another walk's
                return
            entries = os.scandir(fd)
        except OSError:
            os.close(fd)
            return
        self.bytes += st.st_blocks * 512
        self._stack.append((fd, iter(entries), st.st_dev))

    def _pop(self) -> None:
        fd, entries, _ = self._stack.pop()
        with contextlib.suppress(OSError):
            if hasattr(entries, "close"):
                entries.close()
        os.close(fd)

    def close(self) -> None:
        """Release every descriptor (the walk may be dropped unfinished)."""
        while self._stack:
            self._pop()
        self._tops = []
