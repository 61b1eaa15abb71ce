"""Is the worktree exactly the planned checkout? (SECURITY.md invariant 5.) No repository code runs.

`verify` refuses a worktree whose config could run code or that carries agent configuration, then
checks: top level = planned worktree (real path), branch = planned branch, HEAD = start commit, the
base commit is an ancestor of the start commit, and the tree is clean including untracked and
ignored files (an earlier attempt's ignored leftovers are loaded by what runs next; only now may
`git status` run, with fsmonitor off, no optional locks, never entering a submodule: each
submodule's checked-out commit is compared with its gitlink at object level instead). The relaunch
of a running attempt (`oms worker resume` after its pane ended) checks everything but cleanliness:
the changes in the tree are the attempt's own work (an agent cannot commit: git metadata is
read-only in its sandbox).

`ready` makes a new attempt's checkout what `verify` wants before its first launch (ADR 0029).
Agents cannot commit, so an attempt that lapsed (its lease ran out, its worker ended without a
result, a `failed` result, a launch refused) leaves its work uncommitted: the work is salvaged —
once: the same content keeps the salvage ref its worker's end already made — and the worktree
restored to the recorded commit (`restore_after_expiry` after an expired lease whose HEAD moved;
else the start commit, HEAD), only when no session or pane is bound to the dispatch. What a
restore cannot make right — ignored leftovers (oms deletes nothing it has not kept), a branch or
`.git` changed by hand, work it cannot keep (a FIFO, a file too large) — is a
`WorktreeNeedsPersonError`: the conductor blocks the ticket for a person with that reason instead
of retrying it.

`restore_after_expiry` resets an expired attempt's checkout to its recorded start commit, only when
no session or pane is bound to the dispatch, and never loses work: the old HEAD is kept under
`refs/oms/expired/<ticket>-<attempt>`, and uncommitted or untracked changes are first committed to
`refs/oms/salvage/<ticket>/<attempt>` (`salvage.py` beside this; a salvage that fails resets
nothing).

The host reads only what the main repository records of the worktree (`git.linked_worktree`);
whatever reads the worktree's files — the cleanliness, ignored files, submodules, smuggled
configuration, the salvage and the reset — runs in a tree job (docs/adr/0024), which sees what the
agent saw and nothing more.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from oms.adapters import git, tree_job
from oms.adapters.sandbox import PLACEHOLDERS
from oms.canonical import JsonObject, access
from oms.domain import tree_jobs
from oms.errors import (
    AuthorityChangedError,
    CheckoutChangedError,
    ConflictError,
    FileTooLargeError,
    LeftoversError,
    ProcessFailedError,
    UnsafeFileError,
    WorktreeNeedsPersonError,
    reason_line,
    shown,
)
from oms.fsio.trees import placeholders, read_dotgit
from oms.limits import LIMITS
from oms.process import Completed
from oms.services.checkout import salvage

if TYPE_CHECKING:
    from oms.schemas.payloads import DispatchPayload


def _binding(payload: DispatchPayload) -> tuple[str, str, str, str]:
    return (
        payload["worktree_path"],
        payload["worktree_branch"],
        payload["worktree_base_commit"],
        payload["worktree_start_commit"],
    )


def verify(payload: DispatchPayload, repository: str, *, own_work: bool = False) -> None:
    """Raise `CheckoutChangedError` unless the worktree is exactly the planned, clean checkout of
    `repository` (`own_work`: the relaunch of an attempt whose changes, uncommitted and ignored, are
    its own).

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
        names_its_gitdir(linked)
        for name, kind in placeholders(linked.worktree, PLACEHOLDERS).items():
            # (an empty folder is a sandbox's mount point: it carries nothing)
            if kind not in ("missing", "empty"):  # (a salvage and restore may clear it)
                raise LeftoversError(tree_jobs.smuggled(name))
        if linked.branch != branch:
            raise WorktreeNeedsPersonError(tree_jobs.on_branch(linked.branch, branch))
        if linked.head != start:
            head = str(linked.head)[:12]
            expected = f"expected start commit {start[:12]}"
            raise WorktreeNeedsPersonError(f"worktree HEAD is {head} ({expected})")
        if not git.is_ancestor(repository, base, start):
            raise WorktreeNeedsPersonError("start commit is outside the trusted base lineage")
        if git.gitlinks(repository, start):  # submodules: compared with their gitlinks in a job
            job = {"branch": branch, "head": start, "own_work": own_work}
            tree_job.run_job("check", repository, linked, job, unsafe_none=unsafe)
        elif status is not None:
            what = f"git status in {linked.worktree}"
            try:
                cap = LIMITS.tree_status_bytes
                said = tree_job.finish(status, what, LIMITS.process_timeout_s, cap)
            except ProcessFailedError as exc:  # so much to say: not clean either
                raise LeftoversError(f"worktree is not clean ({exc.message})") from exc
            _clean(linked, said)
    finally:
        if status is not None:
            status.kill()  # (unless collected)


def names_its_gitdir(linked: git.Linked) -> None:
    """The worktree's `.git` names its admin dir (read through the root's descriptor, never
    followed: a `.git` redirected to a copy of the gitdir, where commits would land outside the
    repository, is refused; so is a `.git` that is no such file: a folder, a link, a FIFO)."""
    try:
        read = read_dotgit(linked.worktree)
    except (UnsafeFileError, FileTooLargeError) as exc:
        said = f"its .git is not the file that names its git dir ({exc.message})"
        raise WorktreeNeedsPersonError(f"worktree {linked.worktree}: {said}") from exc
    said = read.decode("utf-8", "surrogateescape").strip()
    named = said.removeprefix("gitdir: ")
    if not os.path.isabs(named):
        named = os.path.normpath(os.path.join(linked.worktree, named))
    if not said.startswith("gitdir: ") or named != linked.gitdir:
        said = f"its .git names another git dir ({shown(named)})"
        raise WorktreeNeedsPersonError(f"worktree {linked.worktree}: {said}")


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
        raise LeftoversError(tree_jobs.not_clean(dirty))
    if ignored:  # what an earlier attempt left where `status` does not look
        why = tree_jobs.carries_ignored(len(ignored), ignored[0])
        raise WorktreeNeedsPersonError(why, hint=tree_jobs.clean_hint(linked.worktree))


def ready(
    payload: DispatchPayload,
    evidence: JsonObject | None,
    repository: str,
    *,
    bound: bool,
) -> None:
    """Make a new attempt's checkout the planned, clean one before its first launch (see the module
    docstring), then `verify` it: an expired attempt's moved HEAD is reset (`restore_after_expiry`),
    and what an earlier attempt left uncommitted or untracked is salvaged and the tree restored to
    the start commit — HEAD, which a restore never moves — at most `Limits.restore_rounds` times (a
    reset `.gitignore` can uncover what it hid). A first attempt restores nothing: what is in its
    fresh worktree no attempt left (it is refused, as ever). `WorktreeNeedsPersonError` when that
    cannot make it right."""
    ticket_id, attempt = payload["ticket_id"], payload["attempt"]
    path, _branch, _base, start = _binding(payload)
    made = _work_of(evidence, attempt)
    restore_after_expiry(payload, evidence, repository, bound=bound)
    for _ in range(LIMITS.restore_rounds):
        try:
            verify(payload, repository)
            return
        except LeftoversError as exc:
            if bound or made < 1:
                raise
            if git.linked_worktree(repository, path).head != start:  # (moved by hand: kept as is)
                raise WorktreeNeedsPersonError(exc.message, hint=exc.remedy or None) from exc
        why = f"before attempt {attempt} starts"
        unsafe = tree_job.unsafe_of(payload)
        _restore(repository, path, ticket_id, made, start, why, head=start, unsafe_none=unsafe)
    try:
        verify(payload, repository)
    except LeftoversError as exc:
        rounds = LIMITS.restore_rounds
        left = "what is left no salvage keeps (a nested repository, files .gitignore files hid)"
        said = f"{exc.message}, still after {rounds} salvages and restores: {left}"
        look = f"look with `git -C {path} status --ignored`; keep what you need, then clean it"
        raise WorktreeNeedsPersonError(said, hint=exc.remedy or look) from exc


def _work_of(evidence: JsonObject | None, attempt: int) -> int:
    """The attempt whose work a restore before `attempt` salvages: the expired one, else the one
    before (0: there was none)."""
    if evidence is not None and evidence.get("evidence_kind") == "lease-expiry":
        expired = access.obj(evidence, "payload").get("attempt")
        if isinstance(expired, int) and not isinstance(expired, bool) and 0 <= expired < attempt:
            return expired
    return max(attempt - 1, 0)


UNKEPT = (CheckoutChangedError, ConflictError, UnsafeFileError, FileTooLargeError)


def _restore(
    repository: str,
    path: str,
    ticket_id: str,
    attempt: int,
    start: str,
    why: str,
    *,
    head: str | None = None,
    unsafe_none: bool = False,
) -> None:
    """Salvage `attempt`'s work and restore `start` (`salvage.keep_before_reset`); work it cannot
    keep — a FIFO, a file too large, a worktree that changed under it, something in the way of the
    reset, a HEAD that is not `head` — waits for a person (nothing was reset). A process that
    failed (a timeout on a busy machine) stays what it is: the attempt failed, and the next one
    tries again."""
    try:
        salvage.keep_before_reset(
            repository, path, ticket_id, attempt, start, why, head=head, unsafe_none=unsafe_none
        )
    except WorktreeNeedsPersonError:
        raise
    except UNKEPT as exc:
        said = f"its leftovers cannot be salvaged ({exc.message}); nothing was reset"
        raise WorktreeNeedsPersonError(said, hint=exc.remedy or None) from exc


def restore_after_expiry(
    payload: DispatchPayload, evidence: JsonObject | None, repository: str, *, bound: bool
) -> bool:
    """Reset to the start commit after an expired lease whose HEAD moved; True if a reset
    happened."""
    if evidence is None or evidence.get("evidence_kind") != "lease-expiry":
        return False
    path, branch, base, start = _binding(payload)
    body = access.obj(evidence, "payload")
    if (
        evidence.get("ticket_id") != payload["ticket_id"]
        or body.get("attempt") != payload["attempt"] - 1
        or body.get("worktree_start_commit") not in (start, None)
    ):
        raise AuthorityChangedError("expired-lease evidence no longer matches the dispatch")
    # no ref kept, nothing reset, in a repository oms did not make
    linked = git.linked_worktree(repository, path)
    if linked.branch != branch:
        raise WorktreeNeedsPersonError(tree_jobs.on_branch(linked.branch, branch))
    head = linked.head
    if head == start:
        return False
    if bound:
        raise CheckoutChangedError(
            "expired lease checkout cannot be reset while a session or pane is bound"
        )
    if not git.is_ancestor(repository, base, start):
        raise CheckoutChangedError("expired lease restart is outside the trusted base lineage")
    ticket_id = payload["ticket_id"]
    attempt = access.integer(body, "attempt")
    git.keep_ref(repository, f"refs/oms/expired/{ticket_id}-{attempt}", str(head))
    # the expired attempt's uncommitted work is kept first; then the checkout is reset (one tree
    # job, whatever the repository's config says: its git sees only the sanitised one)
    _restore(
        repository,
        path,
        ticket_id,
        attempt,
        start,
        "before its lease-expiry restore",
        unsafe_none=tree_job.unsafe_of(payload),
    )
    return True
