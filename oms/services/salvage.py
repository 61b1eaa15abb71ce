"""Salvage: no byte of an attempt's work is lost when it ends (issue 14, ADR 0021).

Whenever oms ends a worker — `oms worker stop`, a deadline, a pane that ended by a signal, an exit or its
supervisor's loss — and before a lease-expiry restore resets a checkout, the uncommitted and untracked
files of the attempt's worktree are committed by oms (no hook, the worktree untouched:
`adapters/salvage_git.py`) and kept at `refs/oms/salvage/<ticket>/<attempt>`; a later salvage of the
same attempt with other content gets `<attempt>-2`, `-3`, ... (the same content keeps its ref). The end
record names the ref; `oms ticket show` lists every salvage of the ticket. An agent cannot write these
refs: git metadata is read-only in its sandbox.

A salvage that fails (a repository config oms refuses, git failing) records why and deletes nothing:
the work stays in the worktree, and the restore that needed the salvage refuses. The worktree is
read only in a tree job (docs/adr/0024): a sandbox that shows what the agent saw, nothing more.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from oms.adapters import git, salvage_git, tree_job
from oms.canonical import JsonObject, access
from oms.errors import CheckoutChangedError, ConflictError, OmsError, one_line
from oms.limits import LIMITS
from oms.services.workspace import Workspace
from oms.store import Record

PREFIX = "refs/oms/salvage"
MAX_REFS_PER_ATTEMPT = LIMITS.salvage_refs


@dataclass(frozen=True, slots=True)
class Kept:
    """What a salvage kept: the ref, its commit, how many paths; or why it could not (`error`)."""

    ref: str | None = None
    commit: str | None = None
    paths: int = 0
    error: str | None = None

    def fields(self) -> JsonObject:
        """The end record's fields naming it."""
        if self.error is not None:
            return {"salvage_error": one_line(self.error)[:300]}
        return {"salvage_ref": self.ref, "salvage_commit": self.commit}


def ref_name(ticket_id: str, attempt: int, n: int = 1) -> str:
    """The salvage ref of an attempt (`n` > 1: a later salvage of the same attempt)."""
    return f"{PREFIX}/{ticket_id}/{attempt}" + (f"-{n}" if n > 1 else "")


def keep(ws: Workspace, dispatch: Record, why: str) -> Kept | None:
    """Salvage the worktree of `dispatch`'s attempt (None: no worktree, or nothing uncommitted): the
    commit is made in a tree job (docs/adr/0024), checked and kept at its ref on the host, in the
    main repository."""
    payload = dispatch.payload
    path = access.text(payload, "worktree_path")
    if not os.path.isdir(path):  # (the worktree's own root: no component an agent can change)
        return None
    ticket_id, attempt = access.text(payload, "ticket_id"), access.integer(payload, "attempt")
    repository = ws.config_root
    try:
        linked = git.linked_worktree(repository, path)  # only a worktree of the repository
        if linked.head is None:
            return None
        message = f"oms salvage: {ticket_id} attempt {attempt} ({one_line(why)[:200]})"
        job = {"head": linked.head, "message": message}
        unsafe = tree_job.unsafe_of(payload)
        writes, repo = ("objects",), repository
        done = tree_job.run_job("salvage", repo, linked, job, writable=writes, unsafe_none=unsafe)
        commit = done["commit"]
        if not isinstance(commit, str):
            return None
        if git.git(repository, "rev-list", "--parents", "-n", "1", commit).text().split() != [
            commit,
            linked.head,
        ]:
            raise ConflictError(f"the salvage commit {commit[:12]} is not on the worktree's HEAD")
        ref, commit = _free_ref(repository, ticket_id, attempt, commit)
    except OmsError as exc:
        return Kept(error=exc.message)
    return Kept(ref, commit, access.integer(done, "paths"))


def keep_before_reset(
    repository: str,
    path: str,
    ticket_id: str,
    attempt: int,
    start: str,
    *,
    unsafe_none: bool = False,
) -> Kept | None:
    """Salvage, keep at the attempt's ref, reset `path` to `start` and remove the untracked files
    the salvage holds (the lease-expiry restore), all in one tree job (docs/adr/0024); OmsError when
    the work cannot be kept (nothing is reset then). None: there was nothing to keep (a reset
    happened if HEAD was not `start`)."""
    linked = git.linked_worktree(repository, path)
    if linked.head is None:
        raise CheckoutChangedError(f"worktree {path} has no HEAD")
    job = {
        "head": linked.head,
        "start": start,
        "message": f"oms salvage: {ticket_id} attempt {attempt} (before its lease-expiry restore)",
        "ref_base": ref_name(ticket_id, attempt),
    }
    writable = ("objects", "refs", "gitdir", "worktree")
    unsafe, repo = unsafe_none, repository
    done = tree_job.run_job("restore", repo, linked, job, writable=writable, unsafe_none=unsafe)
    ref, commit = done["salvage_ref"], done["salvage_commit"]
    if not isinstance(ref, str) or not isinstance(commit, str):
        return None
    ours = ref.startswith(ref_name(ticket_id, attempt))
    if not ours or git.resolve_commit(repository, ref) != commit:
        raise ConflictError(f"the restore's salvage ref {ref[:200]} does not hold {commit[:12]}")
    return Kept(ref, commit, access.integer(done, "paths"))


def _free_ref(repository: str, ticket_id: str, attempt: int, commit: str) -> tuple[str, str]:
    """Point the attempt's first free salvage ref at `commit` — or name the one that already holds the same
    tree (a salvage taken twice of the same work). Object-level git in the main repository."""
    tree = salvage_git.tree_of(repository, commit)
    for n in range(1, MAX_REFS_PER_ATTEMPT + 1):
        ref = ref_name(ticket_id, attempt, n)
        held = git.resolve_commit(repository, ref)
        made = held is None and git.git(repository, "update-ref", ref, commit, "", check=False)
        if made and made.returncode == 0:
            return ref, commit  # created only where none was (a racing salvage takes the next name)
        held = git.resolve_commit(repository, ref)
        if held is None:
            raise ConflictError(f"salvage ref {ref} could not be written")
        if salvage_git.tree_of(repository, held) == tree:
            return ref, held
    raise ConflictError(f"attempt {attempt} of {ticket_id} has {MAX_REFS_PER_ATTEMPT} salvage refs already")


def listed(repository: str, ticket_id: str) -> list[JsonObject]:
    """Every salvage of a ticket: ref, commit, when (for `oms ticket show`)."""
    return [
        {"ref": ref, "commit": commit, "at": at}
        for ref, commit, at in salvage_git.refs_under(repository, f"{PREFIX}/{ticket_id}/")
    ]
