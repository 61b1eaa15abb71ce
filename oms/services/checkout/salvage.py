"""Salvage: no byte of an attempt's work is lost when it ends (issue 14, ADR 0021, ADR 0029).

Whenever oms ends a worker — `oms worker stop`, a deadline, a pane that ended by a signal, an exit
or its supervisor's loss — and before a new attempt's launch restores the recorded commit
(`checkout.ready`), the uncommitted and untracked files of the attempt's worktree are committed by
oms (no hook, the worktree untouched: `adapters/salvage_git.py`) and kept at
`refs/oms/salvage/<ticket>/<attempt>`; a later salvage of other content gets `<attempt>-2`, `-3`,
...; the same content, whichever attempt salvages it again, keeps the ref that already holds it.
The end record names the ref; `oms ticket show` lists every salvage of the ticket. An agent cannot
write these refs: git metadata is read-only in its sandbox.

No repository setting can stop or steer a salvage: it runs in a tree job (docs/adr/0024) whose git
sees only the sanitised config oms writes (`git.sandbox_config`: no per-worktree config, no include,
no command), and oms reads the files itself; on the host only object- and ref-level git runs in the
main repository, with git's hardening. So a repository config oms would refuse to launch into is
read (to write the sanitised one), never refused. A salvage that still fails (a FIFO, a file too
large, a worktree that changed under it, a worktree gone) records why — the end record's
`salvage_error` and its detail say it, and `oms status` warns — and deletes nothing: the work stays
in the worktree, and a restore that needed the salvage resets nothing.
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
from oms.store.payloads import dispatch_payload

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
    """Salvage the worktree of `dispatch`'s attempt (None: nothing uncommitted): the commit is made
    in a tree job (docs/adr/0024), checked and kept at its ref on the host, in the main
    repository. A worktree that is gone, or that its repository no longer lists, is said
    (`Kept.error`)."""
    payload = dispatch_payload(dispatch)
    path = payload["worktree_path"]
    if not os.path.isdir(path):  # (the worktree's own root: no component an agent can change)
        return Kept(error=f"worktree {path} is gone: nothing left to salvage")
    ticket_id, attempt = payload["ticket_id"], payload["attempt"]
    repository = ws.config_root
    try:
        linked = git.linked_worktree(repository, path)  # only a worktree of the repository
        if linked.head is None:
            raise CheckoutChangedError(f"worktree {path} has no HEAD commit its repository records")
        message = f"oms salvage: {ticket_id} attempt {attempt} ({one_line(why)[:200]})"
        job = {"head": linked.head, "message": message}
        config = git.repository_config(repository, linked.gitdir)  # read, never refused
        done = tree_job.run_job(
            "salvage",
            repository,
            linked,
            job,
            writable=("objects",),  # (the host keeps the commit at its ref)
            config=config,
            unsafe_none=tree_job.unsafe_of(payload),
        )
        commit = done["commit"]
        if not isinstance(commit, str):
            return None
        parents = git.git(repository, "rev-list", "--parents", "-n", "1", commit).text().split()
        if parents != [commit, linked.head]:
            raise ConflictError(f"the salvage commit {commit[:12]} is not on the worktree's HEAD")
        base = ref_name(ticket_id, attempt)
        ref, commit = salvage_git.free_ref(repository, base, commit, MAX_REFS_PER_ATTEMPT)
    except OmsError as exc:
        return Kept(error=exc.message)
    return Kept(ref, commit, access.integer(done, "paths"))


def keep_before_reset(
    repository: str,
    path: str,
    ticket_id: str,
    attempt: int,
    start: str,
    why: str = "before a restore",
    *,
    head: str | None = None,
    unsafe_none: bool = False,
) -> Kept | None:
    """Salvage (the work of `attempt`), keep at its ref, reset `path` to `start` and remove the
    untracked files the salvage holds, all in one tree job (docs/adr/0024), whatever the
    repository's config says; OmsError when the work cannot be kept (nothing is reset then).
    None: there was nothing to keep (a reset happened if HEAD was not `start`). `head`: the HEAD
    the worktree must be at (the job checks it too), else nothing is done."""
    linked = git.linked_worktree(repository, path)
    if linked.head is None:
        raise CheckoutChangedError(f"worktree {path} has no HEAD commit its repository records")
    if head is not None and linked.head != head:
        moved = f"worktree HEAD is {linked.head[:12]} (expected {head[:12]}); nothing reset"
        raise CheckoutChangedError(moved)
    job = {
        "head": linked.head,
        "start": start,
        "message": f"oms salvage: {ticket_id} attempt {attempt} ({one_line(why)[:200]})",
        "ref_base": ref_name(ticket_id, attempt),
    }
    writable = ("objects", "refs", "gitdir", "worktree")
    config = git.repository_config(repository, linked.gitdir)  # read, never refused
    done = tree_job.run_job(
        "restore",
        repository,
        linked,
        job,
        writable=writable,
        config=config,
        unsafe_none=unsafe_none,
    )
    ref, commit = done["salvage_ref"], done["salvage_commit"]
    if not isinstance(ref, str) or not isinstance(commit, str):
        return None
    ours = ref.startswith(f"{PREFIX}/{ticket_id}/")
    if not ours or git.resolve_commit(repository, ref) != commit:
        raise ConflictError(f"the restore's salvage ref {ref[:200]} does not hold {commit[:12]}")
    return Kept(ref, commit, access.integer(done, "paths"))


def listed(repository: str, ticket_id: str) -> list[JsonObject]:
    """Every salvage of a ticket: ref, commit, when (for `oms ticket show`)."""
    return [
        {"ref": ref, "commit": commit, "at": at}
        for ref, commit, at in salvage_git.refs_under(repository, f"{PREFIX}/{ticket_id}/")
    ]
