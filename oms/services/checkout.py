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

The host reads only what the main repository records of the worktree (`git.linked_worktree`);
whatever reads the worktree's files — the cleanliness, ignored files, submodules, smuggled
configuration, the salvage and the reset — runs in a tree job (docs/adr/0024), which sees what the
agent saw and nothing more.
"""

from __future__ import annotations

import os

from oms.adapters import git, tree_job
from oms.adapters.sandbox import PLACEHOLDERS
from oms.canonical import JsonObject, access
from oms.domain import tree_jobs
from oms.errors import (
    AuthorityChangedError,
    CheckoutChangedError,
    ProcessFailedError,
    reason_line,
    shown,
)
from oms.fsio.trees import placeholders, read_dotgit
from oms.limits import LIMITS
from oms.process import Completed
from oms.services import salvage


def _binding(payload: JsonObject) -> tuple[str, str, str, str]:
    return (
        access.text(payload, "worktree_path"),
        access.text(payload, "worktree_branch"),
        access.text(payload, "worktree_base_commit"),
        access.text(payload, "worktree_start_commit"),
    )


def verify(payload: JsonObject, repository: str, *, own_work: bool = False) -> None:
    """Raise `CheckoutChangedError` unless the worktree is exactly the planned, clean checkout of `repository`
    (`own_work`: the relaunch of an attempt whose changes, uncommitted and ignored, are its own).

    What the main repository records of the worktree (its admin dir, branch and HEAD) is read on the
    host; everything that reads the worktree's files runs in a tree job (docs/adr/0024)."""
    path, branch, base, start = _binding(payload)
    if not os.path.isdir(path):  # (the worktree's own root: no component an agent can change)
        raise CheckoutChangedError(f"worktree {path} is missing")
    linked = git.linked_worktree(repository, path)
    config = git.refuse_unsafe_config(repository, linked.gitdir)
    unsafe = tree_job.unsafe_of(payload)  # (no cgroup where the approved limits say so)
    status = None
    if not own_work:
        status = tree_job.start_git(repository, linked, *STATUS, config=config, unsafe_none=unsafe)
    try:  # (the sandboxed `git status` runs while the host checks what the repository records)
        _names_its_gitdir(linked)
        for name, kind in placeholders(linked.worktree, PLACEHOLDERS).items():
            # (an empty folder is a sandbox's mount point: it carries nothing)
            if kind not in ("missing", "empty"):
                raise CheckoutChangedError(tree_jobs.smuggled(name))
        if linked.branch != branch:
            raise CheckoutChangedError(f"worktree is on {linked.branch} (expected {branch})")
        if linked.head != start:
            head = str(linked.head)[:12]
            expected = f"expected start commit {start[:12]}"
            raise CheckoutChangedError(f"worktree HEAD is {head} ({expected})")
        if not git.is_ancestor(repository, base, start):
            raise CheckoutChangedError("start commit is outside the trusted base lineage")
        if git.gitlinks(repository, start):  # submodules: compared with their gitlinks in a job
            job = {"branch": branch, "head": start, "own_work": own_work}
            tree_job.run_job("check", repository, linked, job, unsafe_none=unsafe)
        elif status is not None:
            what = f"git status in {linked.worktree}"
            try:
                cap = LIMITS.tree_status_bytes
                said = tree_job.finish(status, what, LIMITS.process_timeout_s, cap)
            except ProcessFailedError as exc:  # so much to say: not clean either
                raise CheckoutChangedError(f"worktree is not clean ({exc.message})") from exc
            _clean(linked, said)
    finally:
        if status is not None:
            status.kill()  # (unless collected)


def _names_its_gitdir(linked: git.Linked) -> None:
    """The worktree's `.git` names its admin dir (read through the root's descriptor, never
    followed: a `.git` redirected to a copy of the gitdir, where commits would land outside the
    repository, is refused)."""
    said = read_dotgit(linked.worktree).decode("utf-8", "surrogateescape").strip()
    named = said.removeprefix("gitdir: ")
    if not os.path.isabs(named):
        named = os.path.normpath(os.path.join(linked.worktree, named))
    if not said.startswith("gitdir: ") or named != linked.gitdir:
        said = f"its .git names another git dir ({shown(named)})"
        raise CheckoutChangedError(f"worktree {linked.worktree}: {said}")


STATUS = (
    "status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignored=traditional",
    "--ignore-submodules=all",
)  # fmt: skip


def _clean(linked: git.Linked, done: Completed) -> None:
    """Nothing changed, untracked or ignored in the worktree, as `git status` in its tree sandbox
    says (ignored entries in the same call; git only, on delivery's hot path)."""
    if done.returncode != 0:
        said = reason_line(done.stderr)
        raise CheckoutChangedError(f"git status failed in worktree {linked.worktree}: {said}")
    entries = [e for e in done.stdout.split(b"\x00") if e]
    ignored = [e[2:].decode("utf-8", "surrogateescape") for e in entries if e.startswith(b"! ")]
    dirty = len(entries) - len(ignored)
    if dirty:
        raise CheckoutChangedError(tree_jobs.not_clean(dirty))
    if ignored:  # what an earlier attempt left where `status` does not look
        why = tree_jobs.carries_ignored(len(ignored), ignored[0])
        raise CheckoutChangedError(why, hint=tree_jobs.clean_hint(linked.worktree))


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
    # no ref kept, nothing reset, in a repository oms did not make
    linked = git.linked_worktree(repository, path)
    git.refuse_unsafe_config(repository, linked.gitdir)
    if linked.branch != branch:
        raise CheckoutChangedError("expired lease checkout binding changed")
    head = linked.head
    if head == start:
        return False
    if bound:
        raise CheckoutChangedError("expired lease checkout cannot be reset while a session or pane is bound")
    if not git.is_ancestor(repository, base, start):
        raise CheckoutChangedError("expired lease restart is outside the trusted base lineage")
    ticket_id = access.text(payload, "ticket_id")
    git.keep_ref(repository, f"refs/oms/expired/{ticket_id}-{body['attempt']}", str(head))
    # the expired attempt's uncommitted work is kept first; then the checkout is reset (one tree
    # job)
    attempt = access.integer(body, "attempt")
    unsafe = tree_job.unsafe_of(payload)
    salvage.keep_before_reset(repository, path, ticket_id, attempt, start, unsafe_none=unsafe)
    return True
