"""Salvage: no byte of an attempt's work is lost when it ends (issue 14, ADR 0021).

Whenever oms ends a worker — `oms worker stop`, a deadline, a pane that ended by a signal, an exit or its
supervisor's loss — and before a lease-expiry restore resets a checkout, the uncommitted and untracked
files of the attempt's worktree are committed by oms (no hook, the worktree untouched:
`adapters/salvage_git.py`) and kept at `refs/oms/salvage/<ticket>/<attempt>`; a later salvage of the
same attempt with other content gets `<attempt>-2`, `-3`, ... (the same content keeps its ref). The end
record names the ref; `oms ticket show` lists every salvage of the ticket. An agent cannot write these
refs: git metadata is read-only in its sandbox.

A salvage that fails (a repository config oms refuses, git failing) records why and deletes nothing:
the work stays in the worktree, and the restore that needed the salvage refuses.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from oms.adapters import git, salvage_git
from oms.canonical import JsonObject, access
from oms.errors import ConflictError, OmsError, one_line
from oms.services.workspace import Workspace
from oms.store import Record

PREFIX = "refs/oms/salvage"
MAX_REFS_PER_ATTEMPT = 1000


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
    """Salvage the worktree of `dispatch`'s attempt (None: no worktree, or nothing uncommitted)."""
    payload = dispatch.payload
    path = access.text(payload, "worktree_path")
    if not os.path.isdir(path):
        return None
    ticket_id, attempt = access.text(payload, "ticket_id"), access.integer(payload, "attempt")
    try:
        git.check_worktree_of(path, ws.config_root)  # only a worktree of the configured repository
        snap = salvage_git.snapshot(path, f"oms salvage: {ticket_id} attempt {attempt} ({one_line(why)[:200]})")
        if snap is None:
            return None
        ref, commit = _free_ref(path, ticket_id, attempt, snap.commit)
    except OmsError as exc:
        return Kept(error=exc.message)
    return Kept(ref, commit, len(snap.paths))


def keep_before_reset(path: str, ticket_id: str, attempt: int, start: str) -> Kept | None:
    """Salvage, then reset `path` to `start` and remove the untracked files the salvage holds (the
    lease-expiry restore); OmsError when the work cannot be kept (nothing is reset then)."""
    snap = salvage_git.snapshot(path, f"oms salvage: {ticket_id} attempt {attempt} (before its lease-expiry restore)")
    if snap is None:
        return None
    ref, commit = _free_ref(path, ticket_id, attempt, snap.commit)
    salvage_git.discard_changes(path, start, snap)
    return Kept(ref, commit, len(snap.paths))


def _free_ref(path: str, ticket_id: str, attempt: int, commit: str) -> tuple[str, str]:
    """Point the attempt's first free salvage ref at `commit` — or name the one that already holds the same
    tree (a salvage taken twice of the same work)."""
    tree = salvage_git.tree_of(path, commit)
    for n in range(1, MAX_REFS_PER_ATTEMPT + 1):
        ref = ref_name(ticket_id, attempt, n)
        held = git.resolve_commit(path, ref)
        if held is None and git.git(path, "update-ref", ref, commit, "", check=False).returncode == 0:
            return ref, commit  # created only where none was (a racing salvage takes the next name)
        held = git.resolve_commit(path, ref)
        if held is None:
            raise ConflictError(f"salvage ref {ref} could not be written")
        if salvage_git.tree_of(path, held) == tree:
            return ref, held
    raise ConflictError(f"attempt {attempt} of {ticket_id} has {MAX_REFS_PER_ATTEMPT} salvage refs already")


def listed(repository: str, ticket_id: str) -> list[JsonObject]:
    """Every salvage of a ticket: ref, commit, when (for `oms ticket show`)."""
    return [
        {"ref": ref, "commit": commit, "at": at}
        for ref, commit, at in salvage_git.refs_under(repository, f"{PREFIX}/{ticket_id}/")
    ]
