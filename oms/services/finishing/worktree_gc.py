"""`oms worktree gc [--dry-run]` (issue 14, ADR 0021): remove the worktrees (and branches) of
finished tickets whose work is provably kept elsewhere, and say why every other one stays.

A worktree goes only when all of these hold, checked in this order (the first that fails is the
reason it stays): oms made it (its write-once record names it, and git lists it as a worktree of the
configured repository); its ticket ended (done or blocked) at least `[worktrees] gc_after_days` ago;
no worker of the ticket is still running; it has no uncommitted or untracked work; and its branch's
work is merged into the target branch (its head an ancestor, or every commit an equal patch: `git
cherry`) or archived (`refs/oms/archive/<ticket>/...` holds its head). Equal patches are not enough
(`git cherry` ignores whitespace): only a merge that would change nothing counts. Entries named
`.git` below the worktree's top, which `git status` never lists, keep it too. Removing checks again
for unkept work, empties the worktree and removes its directory and admin dir (`remove`), then
deletes the branch only while it still points at the head that was checked. Whatever reads the
worktree's files — what is unkept, its size, the removal — runs in a tree job (docs/adr/0024), never
on the host.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from oms.adapters import git, git_finish, tree_job
from oms.canonical import JsonObject, access, add_ms, parse_ts
from oms.domain import finishing
from oms.errors import CheckoutChangedError, OmsError, one_line
from oms.fsio.trees import remove_empty_dir, remove_tree
from oms.schemas.payloads import TicketState
from oms.services.chain import worktrees
from oms.services.finishing import verify
from oms.services.workspace import Workspace
from oms.store import Record
from oms.store.payloads import worker_payload

DAY_MS = 24 * 3600 * 1000


@dataclass
class Report:
    """What gc removed (or, dry, would remove), what it kept and why, and the bytes freed."""

    dry_run: bool
    removed: list[JsonObject] = field(default_factory=list)
    kept: list[JsonObject] = field(default_factory=list)

    @property
    def bytes_freed(self) -> int:
        """The removed worktrees' bytes on disk."""
        return sum(int(str(r["bytes"])) for r in self.removed)


def gc(ws: Workspace, *, dry_run: bool) -> Report:
    """One pass over every ticket's worktree."""
    report = Report(dry_run)
    fin = finishing.parse(ws.config().raw)
    repo = ws.config_root
    git.refuse_unsafe_config(repo)
    target = verify.target_of(ws, fin)
    listed = {os.path.realpath(w.path) for w in git.worktrees(repo)}
    now = ws.now()
    for ticket in ws.store.latest("ticket").records:
        record = ws.store.worktrees.get(ticket.record_id)
        if record is None:
            continue
        path = access.text(record, "worktree_root")
        row: JsonObject = {
            "ticket_id": ticket.record_id,
            "path": path,
            "branch": access.text(record, "branch"),
        }
        if not os.path.isdir(path):
            continue  # gone already (an earlier gc, or a discard)
        try:
            why = _why_kept(ws, ticket, record, listed, target, fin, now)
        except OmsError as exc:
            why = f"could not be checked: {exc.message}"
        if isinstance(why, str):
            report.kept.append({**row, "why": why})
            continue
        size = why.size
        if not dry_run:
            try:
                _remove(repo, record, why.head, unsafe_none=ws.config().limits.unsafe)
            except OmsError as exc:
                report.kept.append({**row, "why": f"removal failed: {one_line(exc.message)}"})
                continue
        report.removed.append({**row, "bytes": size})
    return report


@dataclass(frozen=True, slots=True)
class Checked:
    """A worktree that may go, the branch head its work was found kept at, and its bytes on disk."""

    head: str
    size: int


def _why_kept(
    ws: Workspace,
    ticket: Record,
    record: JsonObject,
    listed: set[str],
    target: verify.Target,
    fin: finishing.Finishing,
    now: str,
) -> str | Checked:
    path, branch = access.text(record, "worktree_root"), access.text(record, "branch")
    host = worktrees.host_of(ws, ticket.record_id, access.text(record, "worktree_id"))
    if host is not None:  # on a cluster: that host's worker's (ADR 0043, amendment `upkeep`)
        return f"its worker ran on host {host}, in whose clone its worktree is: gc it there"
    if os.path.realpath(path) not in listed:
        return "git does not list it as a worktree of the repository (oms did not make it there)"
    linked = git.linked_worktree(ws.config_root, path)
    if ticket.state not in (TicketState.DONE, TicketState.BLOCKED):
        return f"its ticket is {ticket.state}"
    due = add_ms(ticket.observed_at, fin.gc_after_days * DAY_MS)
    if fin.gc_after_days > 0 and parse_ts(now) < parse_ts(due):
        return (
            f"its ticket ended {ticket.observed_at}; kept until {due} ([worktrees] gc_after_days)"
        )
    running = running_worker(ws, ticket.record_id)
    if running is not None:
        return f"worker {running} still runs in it"
    unsafe = ws.config().limits.unsafe
    looked = tree_job.run_job("inspect", ws.config_root, linked, unsafe_none=unsafe)
    dirty = looked["unkept"]
    if isinstance(dirty, str):
        return dirty
    size = access.integer(looked, "bytes")
    head = git_finish.head_of(ws.config_root, branch)
    if head is None:
        return f"its branch {branch} is gone; remove it by hand if you are sure"
    if git.is_ancestor(ws.config_root, head, target.head) or git_finish.merges_to_nothing(
        ws.config_root, target.head, head
    ):
        return Checked(head, size)
    if git_finish.refs_at(ws.config_root, f"refs/oms/archive/{ticket.record_id}/", head):
        return Checked(head, size)
    return (
        f"its branch {branch} holds work that is neither merged into {target.branch} nor archived "
        f"(`oms result discard` archives it)"
    )


def running_worker(ws: Workspace, ticket_id: str) -> str | None:
    """A worker of the ticket that has not ended (its worktree is in use), if any."""
    for worker in ws.store.latest("worker").records:
        found = worker_payload(worker)
        if found["ticket_id"] == ticket_id and found["health"] != "stopped":
            return worker.record_id
    return None


def remove(repo: str, path: str, *, unsafe_none: bool = False) -> str | None:
    """Remove the worktree at `path` unless it holds work nothing else keeps (changed or untracked
    files, entries named `.git` below its top) or is locked: None when it is gone, else why it
    stays. Its files are looked at and removed in a tree job, following no link (docs/adr/0024); the
    host then removes the empty directory (rmdir: never a link, never with entries) and its admin
    dir in the repository's `.git`."""
    linked = git.linked_worktree(repo, path)
    if os.path.lexists(os.path.join(linked.gitdir, "locked")):
        return "it is locked (`git worktree unlock` it first)"
    writable = ("worktree", "dotgit")
    done = tree_job.run_job("remove", repo, linked, writable=writable, unsafe_none=unsafe_none)
    if isinstance(done["unkept"], str):
        return f"{done['unkept']}; commit or move it, then discard again"
    left = done["left"]
    if isinstance(left, list) and left:
        return f"{len(left)} entries could not be removed (first: {left[0]})"
    if not remove_empty_dir(linked.worktree):
        return "entries appeared in it while it was removed"
    remove_tree(linked.gitdir)  # the admin dir: only oms and the user write it
    return None


def _remove(repo: str, record: JsonObject, head: str, *, unsafe_none: bool = False) -> None:
    """The worktree, then its branch only while it still points at the head whose work was found
    kept."""
    path, branch = access.text(record, "worktree_root"), access.text(record, "branch")
    if git_finish.head_of(repo, branch) != head:
        raise CheckoutChangedError(f"branch {branch} moved since it was checked; kept")
    why = remove(repo, path, unsafe_none=unsafe_none)
    if why is not None:
        raise CheckoutChangedError(f"{why}; kept")
    git_finish.delete_branch(repo, branch, head)
