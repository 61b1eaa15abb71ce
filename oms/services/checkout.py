"""Is the worktree exactly the planned checkout? (DESIGN.md §5.5, §5.6.) No repository code runs.

`verify` refuses a worktree whose config could run code or that carries agent configuration, then
checks: top level = planned worktree (real path), branch = planned branch, HEAD = start commit, the base
commit is an ancestor of the start commit, and the tree is clean including untracked and ignored files
(an earlier attempt's ignored leftovers are loaded by what runs next; only now may
`git status` run, with fsmonitor off, no optional locks, never entering a submodule: each submodule's
checked-out commit is compared with its gitlink at object level instead). The relaunch of a running
attempt (`oms worker resume` after its pane ended) checks everything but cleanliness: the changes in the
tree are the attempt's own work (an agent cannot commit: git metadata is read-only in its sandbox).

`restore_after_expiry` resets an expired attempt's checkout to its recorded start commit, only when no
session or pane is bound to the dispatch, and never loses work: the old HEAD is kept under
`refs/oms/expired/<ticket>-<attempt>`, and uncommitted or untracked changes are first committed to
`refs/oms/salvage/<ticket>/<attempt>` (`salvage.py`; a salvage that fails resets nothing).
"""

from __future__ import annotations

import os

from oms.adapters import git
from oms.canonical import JsonObject, access
from oms.errors import AuthorityChangedError, CheckoutChangedError, shown
from oms.services import salvage
from oms.services.homes import refuse_smuggled_config


def _binding(payload: JsonObject) -> tuple[str, str, str, str]:
    return (
        access.text(payload, "worktree_path"),
        access.text(payload, "worktree_branch"),
        access.text(payload, "worktree_base_commit"),
        access.text(payload, "worktree_start_commit"),
    )


def verify(payload: JsonObject, repository: str, *, own_work: bool = False) -> None:
    """Raise `CheckoutChangedError` unless the worktree is exactly the planned, clean checkout of `repository`
    (`own_work`: the relaunch of an attempt whose changes, uncommitted and ignored, are its own)."""
    path, branch, base, start = _binding(payload)
    if not os.path.isdir(path):
        raise CheckoutChangedError(f"worktree {path} is missing")
    git.refuse_unsafe_config(path)
    git.check_worktree_of(path, repository)
    refuse_smuggled_config(path)
    if git.toplevel(path) != os.path.realpath(path):
        raise CheckoutChangedError(f"worktree {path} is not its own git top level")
    if git.current_branch(path) != branch:
        raise CheckoutChangedError(f"worktree is on {git.current_branch(path)} (expected {branch})")
    head = git.resolve_commit(path, "HEAD")
    if head != start:
        raise CheckoutChangedError(f"worktree HEAD is {str(head)[:12]} (expected start commit {start[:12]})")
    if not git.is_ancestor(path, base, start):
        raise CheckoutChangedError("start commit is outside the trusted base lineage")
    if not own_work:
        _clean(path)
    moved = git.submodules_moved(path)
    if moved:
        raise CheckoutChangedError(f"submodule {moved[0][:200]} is not at the commit its gitlink records")


def _clean(path: str) -> None:
    """Nothing changed, untracked or ignored in the worktree."""
    dirty = git.status_entries(path)
    if dirty:
        raise CheckoutChangedError(f"worktree is not clean ({len(dirty)} changed or untracked paths)")
    ignored = git.ignored_paths(path)
    if ignored:  # what an earlier attempt left where `status` does not look: instructions, skills, caches
        raise CheckoutChangedError(
            f"worktree carries {len(ignored)} ignored path{'s' if len(ignored) != 1 else ''} (first: "
            f"{shown(ignored[0])}) that an agent CLI or the approved program could load; refusing",
            hint=f"look, keep what you need elsewhere, then `git -C {shown(path)} clean -fdX` (oms deletes nothing)",
        )


def restore_after_expiry(payload: JsonObject, evidence: JsonObject | None, repository: str, *, bound: bool) -> bool:
    """Reset to the start commit after an expired lease; True if a reset happened."""
    if evidence is None or evidence.get("evidence_kind") != "lease-expiry":
        return False
    path, branch, base, start = _binding(payload)
    body = access.obj(evidence, "payload")
    if (
        evidence.get("ticket_id") != payload["ticket_id"]
        or body.get("attempt") != access.integer(payload, "attempt") - 1
        or body.get("worktree_start_commit") not in (start, None)
    ):
        raise AuthorityChangedError("expired-lease evidence no longer matches the dispatch")
    git.refuse_unsafe_config(path)
    git.check_worktree_of(path, repository)  # no ref kept, nothing reset, in a repository oms did not make
    if git.toplevel(path) != os.path.realpath(path) or git.current_branch(path) != branch:
        raise CheckoutChangedError("expired lease checkout binding changed")
    head = git.resolve_commit(path, "HEAD")
    if head == start:
        return False
    if bound:
        raise CheckoutChangedError("expired lease checkout cannot be reset while a session or pane is bound")
    if not git.is_ancestor(path, base, start):
        raise CheckoutChangedError("expired lease restart is outside the trusted base lineage")
    ticket_id = access.text(payload, "ticket_id")
    git.keep_ref(path, f"refs/oms/expired/{ticket_id}-{body['attempt']}", str(head))
    if git.status_entries(path):  # the expired attempt's uncommitted work: kept, then the checkout reset
        salvage.keep_before_reset(path, ticket_id, access.integer(body, "attempt"), start)
    else:
        git.reset_hard(path, start)
    return True
