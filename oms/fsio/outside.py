"""Questions about paths that are not beneath an open root (where a root may go, what encloses it)."""

from __future__ import annotations

import os


def enclosing_git(path: str) -> str | None:
    """The nearest directory at or above `path` that holds a `.git` entry, or None.

    Used to refuse a state root inside a git worktree, where an agent could reach it.
    """
    current = os.path.abspath(path)
    while True:
        try:
            os.lstat(os.path.join(current, ".git"))
        except FileNotFoundError:
            pass
        except OSError:
            return None
        else:
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
