"""Materialise a provider plan through fsio: the private agent home and its files.

The home lives in the sandbox directory, outside the state root (`store/sandboxes.py`, ADR 0026). A
home an older oms made under the state root (`tmp/<provider>-<session>`) is moved there the first
time its worker launches again (a rename, never a copy: Codex resumes its session from it), with a
note. The home is created 0700 and verified (owner, mode, not a link); a pre-existing home that is
loose, foreign-owned or a symlink is refused. Files are published no-replace; on reuse they must be
byte identical to the plan (a swapped `hooks.json` is refused), except the files the agent CLI
rewrites itself, which are replaced by oms's version (unlink + create; also a link left by an older
oms), and oms's own files as another build wrote them (the same bytes naming another oms path in
every place: a relaunch after oms was installed again), which are replaced by this build's. The
one credential a plan names (Codex's `auth.json`) is not copied or linked: it must still be a
regular file, and the sandbox shows it read-only over an empty placeholder (ADR 0012).
"""

from __future__ import annotations

import os
import re
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


# A path an oms executable may have (`oms_executable`: absolute, its name starting `oms`), in the
# characters a hook command and a JSON string carry as they are (no quote, no backslash, no space)
_WORD = rb"[\x21\x23-\x26\x28-\x5b\x5d-\x7e]"
_EXECUTABLE = rb"/(?:" + _WORD + rb"*/)?oms" + _WORD + rb"*"


def written_by_another_build(found: bytes, wanted: bytes, executable: str | None) -> bool:
    """Whether `found` is `wanted` as an oms at another path wrote it: the same bytes but for the
    executable's path, which is one other oms path in every place (oms was installed again since:
    each build has its own directory, ADR 0033)."""
    if not executable:
        return False
    parts = wanted.split(executable.encode("ascii"))
    if len(parts) < 2:
        return False
    same = b"(?P=exe)".join(re.escape(part) for part in parts[1:])
    pattern = re.escape(parts[0]) + b"(?P<exe>" + _EXECUTABLE + b")" + same
    return re.fullmatch(pattern, found, re.DOTALL) is not None


def materialise(root: Root, plan: LaunchPlan, executable: str | None = None) -> None:
    """Create or re-verify the plan's agent home in the sandbox directory `root`. A file of oms's
    own that names another oms `executable` (the build before this one) is replaced by this
    build's; one changed in any other way is refused."""
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
            found = root.read_bytes(rel, LIMITS.config_bytes) if regular else None
            if found == item.data:
                continue
            upgraded = found is not None and written_by_another_build(found, item.data, executable)
            if not item.regenerate and not upgraded:
                raise UnsafeFileError(
                    f"{rel}: changed since oms wrote it; refusing to launch"
                ) from None
            root.unlink(
                rel
            )  # the agent CLI rewrote its own first-run state: start again from oms's version
            root.publish(rel, item.data, mode=0o600)
    for source, _view in plan.ro_files:
        regular_file_target(source)  # still one regular file (not swapped for a link)
