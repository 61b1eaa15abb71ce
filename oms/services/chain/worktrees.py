"""`oms worktree create`: a git worktree per ticket, on `oms/<ticket-id>`, at a verified base
commit.

Checks (none runs repository-configured code): the config root is a repository top level whose own
config sets no command git could run; the base resolves to a commit; the branch does not exist and
is not checked out anywhere; the target path does not exist and lies outside the state root and the
repository. The record's id is a digest of (repository root, worktree root, branch, base commit). If
a previous run created the worktree but died before writing the record, the exact same worktree is
adopted instead of refused.

A ticket that has its worktree already (a new attempt) gets it as the record says (ADR 0029): a
worktree deleted by hand is made again on its branch when nothing can be lost — the branch holds
what was committed, its index nothing staged, it is not locked, and the folder is gone or empty —
and otherwise a `WorktreeNeedsPersonError` says what is wrong (the branch is gone too, the folder
lost its `.git` but holds files, it is locked, on another branch, or its repository no longer lists
it). Everything is asked of the main repository; nothing reads the worktree's files.
"""

from __future__ import annotations

import os

from oms.adapters import git
from oms.canonical import JsonObject, access, check, stable_id
from oms.domain import hosts, tree_jobs
from oms.domain.config import worktrees_directory
from oms.errors import (
    CheckoutChangedError,
    ConflictError,
    InvalidInputError,
    OtherHostError,
    WorktreeNeedsPersonError,
)
from oms.fsio.outside import ensure_directory
from oms.fsio.trees import placeholders, remove_empty_dir
from oms.services.chain import tickets
from oms.services.checkout import planned as checkout
from oms.services.workspace import Workspace
from oms.store.payloads import worker_payload


def branch_for(ticket_id: str) -> str:
    """The branch a ticket's worktree uses."""
    return f"oms/{ticket_id}"


def worktree_id(repository_root: str, worktree_root: str, branch: str, base_commit: str) -> str:
    """The id of a worktree record: a digest of what it binds."""
    return stable_id("wt", repository_root, worktree_root, branch, base_commit)


def _inside(child: str, parent: str) -> bool:
    return child == parent or child.startswith(parent.rstrip("/") + "/")


def host_of(
    ws: Workspace, ticket_id: str, worktree_id: str | None = None, *, running: bool = False
) -> str | None:
    """On a cluster (ADR 0043, amendment `upkeep`): the host, when it is not this one, of the
    ticket's newest worker — of the newest that used the worktree `worktree_id`, when given; only
    one that has not stopped, when `running` — else None (and always on files, where every host's
    clone is this repository)."""
    if ws.store.backend is None:
        return None
    me = ws.host()
    workers = [
        w
        for w in ws.store.latest("worker").records
        if (found := worker_payload(w))["ticket_id"] == ticket_id
        and (worktree_id is None or found["worktree_id"] == worktree_id)
        and (not running or found["health"] != "stopped")
    ]
    if not workers:
        return None
    newest = max(workers, key=lambda w: (w.observed_at, w.record_id))
    host = hosts.host_of(worker_payload(newest), me)
    return None if host == me else host


def refuse_elsewhere(
    ws: Workspace, ticket_id: str, worktree_id: str | None = None, *, running: bool = False
) -> None:
    """Refuse, in one line naming the host, to act on a ticket's worktree that another host's
    worker has (`host_of`): it is in that host's clone (`OtherHostError`)."""
    host = host_of(ws, ticket_id, worktree_id, running=running)
    if host is not None:
        raise OtherHostError(
            f"the worktree of {ticket_id} is on host {host}, in its clone; run this there",
            hint=f"run it on host {host} (OMS_HOST={host})",
        )


def create(ws: Workspace, ticket_id: str, base: str | None = None) -> tuple[JsonObject, bool]:
    """Create (or adopt) the ticket's worktree and write its record; returns (record, created)."""
    ticket = tickets.require(ws, check(ticket_id, "ticket id"))
    existing = ws.store.worktrees.get(ticket.record_id)
    if existing is not None:
        ready(ws.config_root, existing)
        return existing, False
    repo = ws.config_root
    if git.toplevel(repo) != repo:
        raise CheckoutChangedError(f"config root {repo} is not the top level of a git repository")
    git.refuse_unsafe_config(repo)
    base_commit = git.resolve_commit(repo, base or "HEAD")
    if base_commit is None:
        raise InvalidInputError(f"base {base or 'HEAD'!r} does not name a commit in {repo}")
    directory = worktrees_directory(ws.config(), repo)
    path = os.path.join(directory, ticket.record_id)
    real_dir = os.path.realpath(directory)
    if _inside(real_dir, os.path.realpath(ws.store.path)) or _inside(
        os.path.realpath(ws.store.path), real_dir
    ):
        raise InvalidInputError(f"worktrees directory {directory} overlaps the state root")
    if _inside(real_dir, repo):
        raise InvalidInputError(f"worktrees directory {directory} is inside the repository {repo}")
    branch = branch_for(ticket.record_id)
    adopted = _adoptable(repo, path, branch, base_commit)
    if not adopted:
        if os.path.lexists(path):
            hint = "not this ticket's: move it away (or give each repository its own directory)"
            raise ConflictError(f"worktree path {path} already exists", hint=hint)
        if git.branch_exists(repo, branch):
            raise ConflictError(f"branch {branch} already exists")
        in_use = [w.path for w in git.worktrees(repo) if w.branch == branch]
        if in_use:
            raise ConflictError(f"branch {branch} is in use by the worktree {in_use[0]}")
        ensure_directory(directory)
        git.add_worktree(repo, path, branch, base_commit)
    real = os.path.realpath(path)
    _verify(repo, real, branch, base_commit)
    record: JsonObject = {
        "format": "oms-worktree-v1",
        "ticket_id": ticket.record_id,
        "repository_root": repo,
        "worktree_root": real,
        "branch": branch,
        "base_commit": base_commit,
        "worktree_id": worktree_id(repo, real, branch, base_commit),
        "created_at": ws.now(),
    }
    return ws.store.worktrees.put(record), not adopted


def _adoptable(repo: str, path: str, branch: str, base_commit: str) -> bool:
    """True when `path` is already exactly the worktree we would create (a crash before the
    record)."""
    real = os.path.realpath(path)
    for entry in git.worktrees(repo):
        if (
            os.path.realpath(entry.path) == real
            and entry.branch == branch
            and entry.head == base_commit
        ):
            return True
    return False


def ready(repo: str, record: JsonObject) -> bool:
    """The recorded worktree, there as its repository records it, or made again when it is gone and
    nothing can be lost (see the module docstring); True if it was made again.
    `WorktreeNeedsPersonError` otherwise."""
    path, branch = access.text(record, "worktree_root"), access.text(record, "branch")
    there = os.path.isdir(path)  # (the root itself; below it only `.git`, through its descriptor)
    if os.path.lexists(path) and (not there or os.path.realpath(path) != path):
        raise WorktreeNeedsPersonError(f"worktree {path} is no longer a folder", hint=_AWAY)
    if there and placeholders(path, (".git",))[".git"] != "missing":
        try:  # there: as its repository records it
            linked = git.linked_worktree(repo, path)
        except CheckoutChangedError as exc:
            why = f"{exc.message} (changed by hand)"
            raise WorktreeNeedsPersonError(why, hint=_repair(repo, path)) from exc
        if linked.branch != branch:
            raise WorktreeNeedsPersonError(tree_jobs.on_branch(linked.branch, branch))
        if linked.head is None:
            why = f"worktree {path}: its repository records no HEAD commit for it"
            raise WorktreeNeedsPersonError(why, hint=_repair(repo, path))
        checkout.names_its_gitdir(linked)  # (not a repository made in its place)
        return False
    head = git.resolve_commit(repo, f"refs/heads/{branch}")
    if head is None:
        why = f"worktree {path} is gone, and so is its branch {branch}: nothing to make it from"
        raise WorktreeNeedsPersonError(why, hint=f"`git branch {branch} <commit>` brings it back")
    listed = git.worktrees(repo)
    elsewhere = [w.path for w in listed if w.branch == branch and os.path.realpath(w.path) != path]
    if elsewhere:
        why = f"worktree {path} is gone and its branch {branch} is checked out in {elsewhere[0]}"
        raise WorktreeNeedsPersonError(why)
    if there and not remove_empty_dir(path):  # (an empty folder has nothing to lose)
        why = f"worktree {path} lost its .git and holds files oms cannot tell are kept elsewhere"
        raise WorktreeNeedsPersonError(why, hint=_repair(repo, path))
    if any(os.path.realpath(w.path) == path for w in listed):  # its registration is left
        _forget(repo, path, head)
    git.readd_worktree(repo, path, branch)
    _verify(repo, os.path.realpath(path), branch, head)
    return True


_AWAY = "move it away (oms makes the worktree again on its branch), or keep the ticket as it is"


def _repair(repo: str, path: str) -> str:
    return f"keep what you need, then `git -C {repo} worktree repair {path}` or remove the folder"


def _forget(repo: str, path: str, head: str) -> None:
    """Drop the registration a deleted worktree left, when it holds nothing that would be lost: not
    locked (a worktree on a disk not mounted), no staged change in its index."""
    linked = git.linked_worktree(repo, path)
    if os.path.lexists(os.path.join(linked.gitdir, "locked")):
        why = f"worktree {path} is gone but locked (a disk not mounted?)"
        unlock = f"`git -C {repo} worktree unlock {path}` if it is gone"
        raise WorktreeNeedsPersonError(why, hint=unlock)
    if linked.head != head or git.staged(repo, linked.gitdir, head):
        why = f"worktree {path} is gone but its index holds changes its branch does not"
        raise WorktreeNeedsPersonError(why, hint=f"look with `git -C {repo} worktree list`")
    git.forget_worktree(repo, path)


def _verify(repo: str, path: str, branch: str, base_commit: str) -> None:
    """The repository lists `path` as its worktree on `branch` at `base_commit` (asked of the main
    repository, never of git inside the worktree: docs/adr/0024)."""
    linked = git.linked_worktree(repo, path)
    if linked.worktree != path:
        raise CheckoutChangedError(f"worktree {path} is not a git worktree top level")
    if linked.branch != branch:
        raise CheckoutChangedError(f"worktree {path} is not on {branch}")
    if linked.head != base_commit:
        raise CheckoutChangedError(f"worktree {path} HEAD is not {base_commit}")
