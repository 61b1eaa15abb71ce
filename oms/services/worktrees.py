"""`oms worktree create`: a git worktree per ticket, on `oms/<ticket-id>`, at a verified base commit.

Checks (none runs repository-configured code): the config root is a repository top level whose own
config sets no command git could run; the base resolves to a commit; the branch does not exist and is
not checked out anywhere; the target path does not exist and lies outside the state root and the
repository. The record's id is a digest of (repository root, worktree root, branch, base commit).
If a previous run created the worktree but died before writing the record, the exact same worktree is
adopted instead of refused.
"""

from __future__ import annotations

import os

from oms.adapters import git
from oms.canonical import JsonObject, check, stable_id
from oms.domain.config import worktrees_directory
from oms.errors import CheckoutChangedError, ConflictError, InvalidInputError
from oms.fsio.outside import ensure_directory
from oms.services import tickets
from oms.services.workspace import Workspace


def branch_for(ticket_id: str) -> str:
    """The branch a ticket's worktree uses."""
    return f"oms/{ticket_id}"


def worktree_id(repository_root: str, worktree_root: str, branch: str, base_commit: str) -> str:
    """The id of a worktree record: a digest of what it binds."""
    return stable_id("wt", repository_root, worktree_root, branch, base_commit)


def _inside(child: str, parent: str) -> bool:
    return child == parent or child.startswith(parent.rstrip("/") + "/")


def create(ws: Workspace, ticket_id: str, base: str | None = None) -> tuple[JsonObject, bool]:
    """Create (or adopt) the ticket's worktree and write its record; returns (record, created)."""
    ticket = tickets.require(ws, check(ticket_id, "ticket id"))
    existing = ws.store.worktrees.get(ticket.record_id)
    if existing is not None:
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
    if _inside(real_dir, os.path.realpath(ws.store.path)) or _inside(os.path.realpath(ws.store.path), real_dir):
        raise InvalidInputError(f"worktrees directory {directory} overlaps the state root")
    if _inside(real_dir, repo):
        raise InvalidInputError(f"worktrees directory {directory} is inside the repository {repo}")
    branch = branch_for(ticket.record_id)
    adopted = _adoptable(repo, path, branch, base_commit)
    if not adopted:
        if os.path.lexists(path):
            raise ConflictError(f"worktree path {path} already exists")
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
    """True when `path` is already exactly the worktree we would create (a crash before the record)."""
    real = os.path.realpath(path)
    for entry in git.worktrees(repo):
        if os.path.realpath(entry.path) == real and entry.branch == branch and entry.head == base_commit:
            return True
    return False


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
