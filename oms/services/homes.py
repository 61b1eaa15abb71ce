"""Materialise a provider plan through fsio: the private agent home, its files, its one link.

The home is created 0700 and verified (owner, mode, not a link); a pre-existing home that is loose,
foreign-owned or a symlink is refused. Files are published no-replace; on reuse they must be byte
identical to the plan (a swapped `hooks.json` is refused). The `auth.json` link is created once and
re-read before every launch: retargeted or replaced by a file, it is refused. Its target must still be a
regular file.
"""

from __future__ import annotations

import os

from oms.adapters.providers.base import LaunchPlan
from oms.errors import AlreadyExistsError, CheckoutChangedError, NotFoundError, UnsafeFileError
from oms.fsio import Root
from oms.fsio.outside import regular_file_target
from oms.limits import LIMITS


def home_path(state_root: str, rel: str) -> str:
    """The absolute path of a home relative to the state root."""
    return os.path.join(state_root, rel)


def materialise(root: Root, plan: LaunchPlan) -> None:
    """Create or re-verify the plan's agent home."""
    if plan.home is None:
        return
    root.mkdirs(plan.home)  # 0700, owner checked; refuses links and loose modes
    for item in plan.files:
        rel = f"{plan.home}/{item.name}"
        try:
            root.publish(rel, item.data, mode=0o600)
        except AlreadyExistsError:
            if root.read_bytes(rel, LIMITS.config_bytes) == item.data:
                continue
            if not item.regenerate:
                raise UnsafeFileError(f"{rel}: changed since oms wrote it; refusing to launch") from None
            root.unlink(rel)  # the agent CLI rewrote its own first-run state: start again from oms's version
            root.publish(rel, item.data, mode=0o600)
    if plan.auth_link is not None:
        target = regular_file_target(plan.auth_link)
        rel = f"{plan.home}/auth.json"
        try:
            current = root.readlink(rel)
        except NotFoundError:
            root.symlink(rel, target)
            current = root.readlink(rel)
        if current != target:
            raise UnsafeFileError(f"{rel}: points at {current} (expected {target}); refusing to launch")


def refuse_smuggled_config(worktree: str) -> None:
    """A worktree must not carry agent configuration that a trusted project would load (DESIGN.md §8)."""
    for name in (".codex", ".claude", ".mcp.json"):
        if os.path.lexists(os.path.join(worktree, name)):
            raise CheckoutChangedError(f"worktree carries {name}, which an agent CLI could load; refusing")
