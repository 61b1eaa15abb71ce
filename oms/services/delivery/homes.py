"""Materialise a provider plan through fsio: the private agent home and its files.

The home lives in the sandbox directory, outside the state root (`store/sandboxes.py`, ADR 0026). A
home an older oms made under the state root (`tmp/<provider>-<session>`) is moved there the first
time its worker launches again (a rename, never a copy: Codex resumes its session from it), with a
note. The home is created 0700 and verified (owner, mode, not a link); a pre-existing home that is
loose, foreign-owned or a symlink is refused. Files are published no-replace; on reuse they must be
byte identical to the plan (a swapped `hooks.json` is refused), except the files the agent CLI
rewrites itself, which are replaced by oms's version (unlink + create; also a link left by an older
oms). The one credential a plan names (Codex's `auth.json`) is not copied or linked: it must still
be a regular file, and the sandbox shows it read-only over an empty placeholder (ADR 0012).
"""

from __future__ import annotations

import os
import stat

from oms.adapters.providers.base import LaunchPlan
from oms.errors import AlreadyExistsError, UnsafeFileError
from oms.fsio import Root
from oms.fsio.outside import regular_file_target
from oms.limits import LIMITS

LEGACY = "tmp"  # where an older oms kept homes, under the state root


def home_path(base: str, rel: str) -> str:
    """The absolute path of a home relative to the sandbox directory at `base`."""
    return os.path.join(base, rel)


def adopt_legacy(state: Root, root: Root, plan: LaunchPlan) -> str | None:
    """Move the plan's home from under the state root (an older oms's `tmp/<name>`) into the sandbox
    directory `root`, if it is there and the new one is not; a note saying so, or None."""
    if plan.home is None:
        return None
    name = os.path.basename(plan.home)
    old = f"{LEGACY}/{name}"
    if root.exists(plan.home) or not state.exists(old):
        return None
    state.move_dir_to(old, root, plan.home)
    return f"moved the agent home {old} out of the state root into the sandbox directory (ADR 0026)"


def materialise(root: Root, plan: LaunchPlan) -> None:
    """Create or re-verify the plan's agent home in the sandbox directory `root`."""
    if plan.home is None:
        return
    root.mkdirs(plan.home)  # 0700, owner checked; refuses links and loose modes
    for item in plan.files:
        rel = f"{plan.home}/{item.name}"
        try:
            root.publish(rel, item.data, mode=0o600)
        except AlreadyExistsError:
            st = root.lstat(rel)
            regular = st is not None and stat.S_ISREG(st.st_mode)
            if regular and root.read_bytes(rel, LIMITS.config_bytes) == item.data:
                continue
            if not item.regenerate:
                raise UnsafeFileError(
                    f"{rel}: changed since oms wrote it; refusing to launch"
                ) from None
            root.unlink(
                rel
            )  # the agent CLI rewrote its own first-run state: start again from oms's version
            root.publish(rel, item.data, mode=0o600)
    for source, _view in plan.ro_files:
        regular_file_target(source)  # still one regular file (not swapped for a link)
