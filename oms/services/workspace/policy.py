"""The role policy as committed: its digest is taken from HEAD, never from an edited file.

`load_tracked` reads `.oms/role-policy.json` at HEAD with object-level git (no filters run) and
refuses unless the index and the working tree hold exactly that blob: an untracked, staged, edited
or deleted policy is "not tracked" and blocks, with a clear error.
"""

from __future__ import annotations

import os

from oms.adapters import git
from oms.domain.policy import POLICY_PATH, Policy, parse_policy
from oms.errors import NotFoundError, PolicyNotTrackedError
from oms.fsio import Root
from oms.limits import LIMITS
from oms.schemas.loader import packaged_data


def load_tracked(
    config_root: str,
    repo: Root,
    committed_at_head: dict[str, tuple[str, bytes] | None] | None = None,
) -> Policy:
    """The committed role policy of `config_root`, or `PolicyNotTrackedError` saying why not
    (`committed_at_head`: the files at HEAD an authority check already read,
    `committed.head_files`)."""
    where = os.path.join(config_root, POLICY_PATH)
    top = git.toplevel(config_root)
    if top != os.path.realpath(config_root):
        raise PolicyNotTrackedError(
            f"config root {config_root} is not the top of its repository ({top})"
        )
    if committed_at_head is not None and POLICY_PATH in committed_at_head:
        committed = committed_at_head[POLICY_PATH]
    else:
        committed = git.committed_blob(config_root, POLICY_PATH)
    if committed is None:
        raise PolicyNotTrackedError(f"{where} is not tracked: it is not committed at HEAD")
    oid, data = committed
    staged = git.index_entries(config_root, POLICY_PATH)
    if not staged:
        raise PolicyNotTrackedError(f"{where} is not tracked: it is removed from the index")
    if any(entry[1] != oid or entry[2] != 0 for entry in staged):
        raise PolicyNotTrackedError(f"{where} is not tracked: it has staged changes")
    try:
        working = repo.read_bytes(POLICY_PATH, LIMITS.policy_bytes)
    except NotFoundError as exc:
        raise PolicyNotTrackedError(
            f"{where} is not tracked: it is deleted in the working tree"
        ) from exc
    if git.blob_id(working, git.object_format(config_root)) != oid:
        raise PolicyNotTrackedError(f"{where} is not tracked: it is edited in the working tree")
    return parse_policy(data, f"{where}@HEAD")


def default_policy_bytes() -> bytes:
    """The policy oms ships (`policy/role-policy.json`)."""
    return packaged_data("policy", "role-policy.json")
