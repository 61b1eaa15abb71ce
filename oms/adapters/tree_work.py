"""`oms worker tree-job`: one operation on an agent's worktree, run inside its tree sandbox
(docs/adr/0024).

Started by `adapters/tree_job.py` in `adapters/tree_sandbox.py`'s view (what the agent saw, nothing
more), never by hand. It reads one job on stdin (`domain/tree_jobs.py`), does it with the same
hardened git and salvage code oms used to run on the host (`adapters/git.py`,
`adapters/salvage_git.py`), and writes one answer on stdout: its result, or the `OmsError` that
stopped it (its code and message). Switched on first (`fsio/trees.enter_tree_job`): here, and only
here, git runs in a linked worktree and its files are read.

Every job first checks the worktree is the one the host named: its `.git` leads git to the job's
gitdir and common dir, and it is its own top level (a `.git` redirected to a copy of the gitdir,
where commits would land outside the repository, is refused). The kinds:

- `commit`: the agent's leftovers as a commit on `head` (the branch is not moved: the host moves it
  by compare-and-swap once the result is recorded), or, when the agent named its commit, that it is
  HEAD and the tree is clean; a nested repository is refused, never committed;
- `salvage`: a salvage commit on `head` (the host keeps it at its ref);
- `restore`: salvage (kept at its ref, here), then reset to `start` and remove exactly what was
  salvaged (`salvage_git.discard_changes`, which refuses if the worktree changed or something unkept
  is in the way);
- `inspect` / `remove`: what nothing else keeps (changed or untracked files, entries named `.git`
  below the top) and the tree's bytes; `remove` then empties the worktree, following no link (the
  host removes the empty directory and its admin dir);
- `check`: delivery's verification — no agent configuration smuggled in, on its branch at `head`,
  clean (changed, untracked and ignored files: what an earlier attempt left is loaded by what runs
  next) unless `own_work`, submodules at their gitlinks (compared at object level, never `status`
  inside one).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from oms.adapters import git, salvage_git
from oms.adapters.sandbox import PLACEHOLDERS
from oms.canonical import JsonObject, access
from oms.domain import tree_jobs
from oms.errors import (
    CheckoutChangedError,
    InvalidInputError,
    LeftoversError,
    OmsError,
    WorktreeNeedsPersonError,
    shown,
)
from oms.fsio.trees import empty_tree, enter_tree_job, hidden_git_entries, placeholders, tree_bytes
from oms.limits import LIMITS

MAX_SALVAGE_REFS = LIMITS.salvage_refs


def main() -> int:
    """Read the job, do it, answer; 0 unless the answer could not be written."""
    enter_tree_job()
    data = sys.stdin.buffer.read(LIMITS.tree_job_bytes + 1)
    try:
        job = tree_jobs.read_job(data)
        kind = access.text(job, "kind")
        out = tree_jobs.answer_ok(kind, KINDS[kind](job))
    except OmsError as exc:
        out = tree_jobs.answer_error(exc)
    sys.stdout.buffer.write(out)
    sys.stdout.buffer.flush()
    return 0


def _layout(job: JsonObject) -> str:
    """The worktree, once git inside it finds exactly the gitdir and common dir the host named."""
    worktree = access.text(job, "worktree")
    asked = ("rev-parse", "--absolute-git-dir", "--git-common-dir", "--show-toplevel")
    done = git.git(worktree, *asked, check=False)
    lines = done.text().splitlines()
    if done.returncode != 0 or len(lines) != 3:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = said[0][:200] if said else "it says nothing"  # (for a person: never told an agent)
        what = f"worktree {worktree}: {tree_jobs.NO_GITDIR}"
        raise CheckoutChangedError(what, hint=f"git says: {why}")
    common = lines[1] if os.path.isabs(lines[1]) else os.path.join(worktree, lines[1])
    same = os.path.realpath(lines[0]) == job["gitdir"] and os.path.realpath(common) == job["common"]
    if not same:
        named = f"its .git names another git dir ({shown(lines[0])})"
        raise CheckoutChangedError(f"worktree {worktree}: {named}")
    if os.path.realpath(lines[2]) != worktree:
        raise CheckoutChangedError(f"worktree {worktree} is not its own git top level")
    return worktree


def _at(worktree: str, job: JsonObject, branch: str | None = None) -> str:
    """HEAD, which must be the `head` the host read from the repository (and on `branch`)."""
    if branch is not None and git.current_branch(worktree) != branch:
        raise CheckoutChangedError("the worktree is not on its dispatch branch")
    head = git.resolve_commit(worktree, "HEAD")
    if head is None or head != job["head"]:
        expected = str(job["head"])[:12]
        raise CheckoutChangedError(f"the worktree's HEAD is {str(head)[:12]}, not {expected}")
    return head


def commit(job: JsonObject) -> JsonObject:
    """The result commit (see the module docstring)."""
    worktree = _layout(job)
    head = _at(worktree, job, access.text(job, "branch"))
    if job["commit"] is not None:  # the agent's own: HEAD (the host checked), its tree clean
        if git.status_entries(worktree):
            raise CheckoutChangedError(tree_jobs.UNCOMMITTED)
        return {"commit": head, "made": False, "paths": 0}
    nested = git.nested_repositories(worktree)
    if nested:  # oms commits files, never a repository (its gitlink points into unchecked config)
        raise InvalidInputError(tree_jobs.nested_repository(nested[0]))
    paths = git.parse_status_paths(git.status_entries(worktree))
    if not paths:
        return {"commit": head, "made": False, "paths": 0}
    author = (access.text(job, "author_name"), access.text(job, "author_email"))
    made = salvage_git.build(worktree, head, paths, access.text(job, "message"), author)
    if salvage_git.tree_of(worktree, made) == salvage_git.tree_of(worktree, head):
        return {"commit": head, "made": False, "paths": 0}  # the index lagged a move of the host's
    return {"commit": made, "made": True, "paths": len(paths)}


def salvage(job: JsonObject) -> JsonObject:
    """A salvage commit (see the module docstring)."""
    worktree = _layout(job)
    head = _at(worktree, job)
    paths = salvage_git.changed_paths(worktree)
    if not paths:
        return {"commit": None, "paths": 0}
    made = salvage_git.build(worktree, head, list(paths), access.text(job, "message"))
    return {"commit": made, "paths": len(paths)}


def restore(job: JsonObject) -> JsonObject:
    """Salvage, keep, reset to `start` (see the module docstring)."""
    worktree = _layout(job)
    head = _at(worktree, job)
    start = access.text(job, "start")
    paths = salvage_git.changed_paths(worktree)
    nothing: JsonObject = {"salvage_ref": None, "salvage_commit": None, "paths": 0}
    if not paths:
        if head == start:
            return {**nothing, "reset": False}
        git.git(worktree, *salvage_git.NO_REFLOG, "reset", "-q", "--hard", start, timeout=120.0)
        return {**nothing, "reset": True}
    made = salvage_git.build(worktree, head, list(paths), access.text(job, "message"))
    ref, kept = salvage_git.free_ref(worktree, access.text(job, "ref_base"), made, MAX_SALVAGE_REFS)
    salvage_git.discard_changes(worktree, start, salvage_git.Snapshot(made, paths))
    return {"salvage_ref": ref, "salvage_commit": kept, "paths": len(paths), "reset": True}


def unkept(worktree: str) -> str | None:
    """What in a worktree git does not keep and its removal would lose (None: nothing): changed or
    untracked files, and entries named `.git` below its top, which `git status` never lists."""
    dirty = salvage_git.changed_paths(worktree)
    if dirty:
        return f"{len(dirty)} uncommitted or untracked path(s) (first: {shown(dirty[0], 120)})"
    hidden = hidden_git_entries(worktree)
    if hidden:
        first = shown(hidden[0], 120)
        return f"{len(hidden)} entries named .git that git does not track (first: {first})"
    return None


def inspect(job: JsonObject) -> JsonObject:
    """What nothing else keeps, and the bytes."""
    worktree = _layout(job)
    return {"unkept": unkept(worktree), "bytes": tree_bytes(worktree)}


def remove(job: JsonObject) -> JsonObject:
    """Empty the worktree unless it holds what nothing else keeps."""
    worktree = _layout(job)
    why, size = unkept(worktree), tree_bytes(worktree)
    if why is not None:
        return {"unkept": why, "bytes": size, "left": []}
    return {"unkept": None, "bytes": size, "left": [shown(p) for p in empty_tree(worktree)]}


def check(job: JsonObject) -> JsonObject:
    """Delivery's checkout verification (see the module docstring)."""
    worktree = _layout(job)
    for name, kind in placeholders(worktree, PLACEHOLDERS).items():
        if kind not in ("missing", "empty"):  # an empty folder is a sandbox's mount point
            raise CheckoutChangedError(tree_jobs.smuggled(name))
    branch = access.text(job, "branch")
    on = git.current_branch(worktree)
    if on != branch:
        raise WorktreeNeedsPersonError(tree_jobs.on_branch(on, branch))
    _at(worktree, job)
    if not job["own_work"]:
        dirty = git.status_entries(worktree)
        if dirty:
            raise LeftoversError(tree_jobs.not_clean(len(dirty)))
        ignored = git.ignored_paths(worktree)
        if ignored:  # what an earlier attempt left where `status` does not look
            why = tree_jobs.carries_ignored(len(ignored), ignored[0])
            raise WorktreeNeedsPersonError(why, hint=tree_jobs.clean_hint(worktree))
    moved = git.submodules_moved(worktree)
    if moved:
        where = shown(moved[0], 200)
        raise CheckoutChangedError(f"submodule {where} is not at the commit its gitlink records")
    return {}


KINDS: dict[str, Callable[[JsonObject], JsonObject]] = {
    "commit": commit,
    "salvage": salvage,
    "restore": restore,
    "inspect": inspect,
    "remove": remove,
    "check": check,
}
