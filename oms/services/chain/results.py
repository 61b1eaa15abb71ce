"""Recording a dispatch's result (from `record_dispatch_result`): verify, sign, transition.

An agent either commits its work itself (a command worker may) or leaves it in the worktree: Codex's
workspace-write sandbox keeps git metadata read-only, so a Codex agent in a worktree cannot commit
(observed: `Unable to create '<repo>/.git/worktrees/<id>/index.lock': Read-only file system`). For a
`completed` result without `result_commit`, oms commits the worktree's changes itself — while the
agent's processes may still run, so in a tree job (docs/adr/0024: a sandbox that shows what the
agent saw and nothing more; its files read byte for byte, no link followed), never on the host. The
commit is built on the worktree's HEAD without moving anything; the host verifies it at object level
in the main repository, signs the evidence, records the result, and only then moves the branch to it
by compare-and-swap (and the worktree's index with it): a refused result leaves the worktree and its
branch exactly as they were. A move interrupted after the record is made by the next call of the
same result, or when the worker ends (`finish_recorded`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oms.adapters import git, tree_job
from oms.canonical import JsonObject, access, next_after, stable_id
from oms.canonical.ids import COMMIT
from oms.domain import dispatches as machine
from oms.domain import workers
from oms.domain.machine import Next, step
from oms.errors import (
    CheckoutChangedError,
    InvalidInputError,
    VersionConflictError,
    one_line,
    suppress_faults,
)
from oms.schemas.payloads import DispatchPayload, DispatchState, WorkerState
from oms.services.chain import fence, worker_moves
from oms.services.chain.end_lock import end_lock
from oms.services.workspace import Workspace
from oms.store import Change, Record
from oms.store.payloads import as_json, dispatch_payload, text_set

if TYPE_CHECKING:
    from oms.schemas.payloads import WorkerPayload

ACTOR = "oms-bridge"
WORKER_IDENTITY = ("oms worker", "worker@oms.invalid")


def verify_commit(
    dispatch: Record,
    commit: str,
    repository: str,
    *,
    built_on: str | None = None,
) -> None:
    """The commit is in the repository, descends from the start commit and adds no submodule; the
    worktree is on its branch; and the commit is HEAD of the worktree with a clean tree — or
    (`built_on`) the commit oms just built from the worktree's files, whose only parent is
    `built_on`, HEAD.

    Runs no repository code, reads nothing through the worktree on the host: object-level git in the
    main repository, what it records of the worktree (`git.linked_worktree`), and the cleanliness of
    an agent's own commit checked in a tree job.
    """
    path = dispatch_payload(dispatch)["worktree_path"]
    unsafe = tree_job.unsafe_of(
        dispatch_payload(dispatch)
    )  # (no cgroup where its approved limits say so)
    if COMMIT.fullmatch(commit) is None:
        raise InvalidInputError(f"result_commit {commit[:70]!r} is not a full commit id")
    linked = git.linked_worktree(repository, path)
    git.refuse_unsafe_config(repository, linked.gitdir)
    if git.resolve_commit(repository, commit) != commit:
        raise CheckoutChangedError(f"result_commit {commit[:12]} does not exist in the worktree")
    start = dispatch_payload(dispatch)["worktree_start_commit"]
    if not git.is_ancestor(repository, start, commit):
        raise CheckoutChangedError(
            f"result_commit {commit[:12]} does not descend from the start commit"
        )
    if built_on is not None:
        parents = git.git(repository, "rev-list", "--parents", "-n", "1", commit).text().split()[1:]
        if parents != [built_on] or linked.head != built_on:
            raise CheckoutChangedError(f"result_commit {commit[:12]} is not what oms built on HEAD")
    elif linked.head != commit:
        raise CheckoutChangedError(f"result_commit {commit[:12]} is not HEAD of the worktree")
    if linked.branch != dispatch_payload(dispatch)["worktree_branch"]:
        raise CheckoutChangedError("the worktree is not on its dispatch branch")
    if built_on is None:  # the agent's own commit: its tree must be clean (asked inside a tree job)
        job = _commit_job(dispatch, linked, commit, "oms result")
        tree_job.run_job("commit", repository, linked, job, unsafe_none=unsafe)
    added = sorted(git.gitlinks(repository, commit) - git.gitlinks(repository, start))
    if added:
        raise CheckoutChangedError(
            f"result_commit adds a submodule at {added[0][:200]}; oms accepts files only"
        )


def _commit_job(
    dispatch: Record,
    linked: git.Linked,
    commit: str | None,
    message: str,
) -> JsonObject:
    name, email = WORKER_IDENTITY
    return {
        "branch": dispatch_payload(dispatch)["worktree_branch"],
        "head": linked.head,
        "start": dispatch_payload(dispatch)["worktree_start_commit"],
        "commit": commit,
        "message": message,
        "author_name": name,
        "author_email": email,
    }


def commit_leftovers(dispatch: Record, summary: str, repository: str) -> tuple[str, str | None]:
    """Commit what the agent left in its worktree (as `oms worker`), in a tree job, without moving
    anything: (the new commit, the HEAD it was built on) — or (HEAD, None) if HEAD is already a
    commit after the start commit and the tree is clean."""
    path = dispatch_payload(dispatch)["worktree_path"]
    linked = git.linked_worktree(repository, path)
    if linked.branch != dispatch_payload(dispatch)["worktree_branch"] or linked.head is None:
        raise CheckoutChangedError("the worktree is not on its dispatch branch")
    first = summary.strip().splitlines()[0] if summary.strip() else ""
    subject = one_line(first, 200) or "oms result"  # printable: no terminal escapes in `git log`
    why = f"Committed by oms for dispatch {dispatch.record_id}: the agent left it uncommitted."
    job = _commit_job(dispatch, linked, None, f"{subject}\n\n{why}\n")
    unsafe = tree_job.unsafe_of(dispatch_payload(dispatch))
    writes = ("objects",)
    done = tree_job.run_job("commit", repository, linked, job, writable=writes, unsafe_none=unsafe)
    made = access.text(done, "commit")
    if done["made"] is True:
        return made, linked.head
    if made == dispatch_payload(dispatch)["worktree_start_commit"]:
        raise InvalidInputError(
            "nothing to record: the worktree has no changes and no commit after start_commit"
        )
    return made, None


def record_result(
    ws: Workspace, dispatch: Record, *, status: str, summary: str, commit: object
) -> tuple[Record, str, bool]:
    """Store the signed result and move the dispatch and worker on; (dispatch, evidence ref,
    already). Only while the attempt holds its lease (and, for a GitHub ticket, its live
    authorisation).

    Exactly one result wins. Callers of one dispatch take turns under its end lock
    (`chain/end_lock.py`, which a message typed into its pane holds too), and each decides on the
    dispatch as it is once the lock is held: a later caller finds the result recorded and gets
    `already` (the same result) or a refusal (another one), and signs no evidence of its own.

    The git work — the leftovers' commit, the commit's checks, tree jobs of up to
    `LIMITS.tree_job_timeout_s` over files the agent chose — is done before the lock, on the
    dispatch as read then: it moves nothing. Held across it, the lock let an agent keep a cancel
    and its lease's lapse waiting past `LIMITS.end_lock_wait_s` (refused) for as long as it asked
    for results. Under the lock the fence is asked again and the result is written only on the
    version the work was done on (compare-and-swap): an end recorded meanwhile refuses it."""
    seen = ws.store.records("dispatch").read(dispatch.record_id)
    prepared = _prepare(ws, seen, status=status, summary=summary, commit=commit)
    with end_lock(ws, dispatch.record_id):
        current = ws.store.records("dispatch").read(dispatch.record_id)
        return _record_locked(
            ws, current, seen, prepared, status=status, summary=summary, commit=commit
        )


def _prepare(
    ws: Workspace, dispatch: Record, *, status: str, summary: str, commit: object
) -> tuple[str | None] | None:
    """The git work of a new result, outside the end lock: `(result commit or None,)`, or None
    for a dispatch whose result is recorded (a retry, decided under the lock). Asks the fence
    first, so a fenced attempt runs no tree job."""
    if dispatch.state in (DispatchState.RESULT_RECEIVED, DispatchState.RESOLVED):
        return None
    fence.require(ws, dispatch, ACTOR)
    if dispatch.state == DispatchState.ACCEPTED:
        raise InvalidInputError("call acknowledge_dispatch before record_dispatch_result")
    built_on: str | None = None  # the HEAD oms built the result on: the branch moves once recorded
    if status == "completed" and not isinstance(commit, str):
        commit, built_on = commit_leftovers(dispatch, summary, ws.config_root)
    if isinstance(commit, str):
        verify_commit(dispatch, commit, ws.config_root, built_on=built_on)
        if status == "completed" and commit == dispatch_payload(dispatch)["worktree_start_commit"]:
            raise InvalidInputError(
                "result_commit is the start commit: a completed result needs a new commit"
            )
    return (commit if isinstance(commit, str) else None,)


def _record_locked(
    ws: Workspace,
    dispatch: Record,
    seen: Record,
    prepared: tuple[str | None] | None,
    *,
    status: str,
    summary: str,
    commit: object,
) -> tuple[Record, str, bool]:
    """Under the end lock: `dispatch` as it is now, `seen` as `_prepare` found it."""
    fence.require(ws, dispatch, ACTOR)
    if dispatch.state == DispatchState.ACCEPTED:
        raise InvalidInputError("call acknowledge_dispatch before record_dispatch_result")
    if dispatch.state in (
        DispatchState.RESULT_RECEIVED,
        DispatchState.RESOLVED,
    ):  # a retry: the same result again, or a refusal
        ref = text_set(dispatch_payload(dispatch)["result_evidence"], "result_evidence")
        previous = access.obj(ws.store.evidence.get(ref).body, "payload")
        same_commit = commit is None or commit == previous["result_commit"]
        if (previous["status"], previous["summary"]) != (status, summary) or not same_commit:
            raise InvalidInputError("a different result was already recorded for this dispatch")
        _land(ws, dispatch, previous.get("result_commit"))  # completes an interrupted first call
        _finish_worker(ws, dispatch.record_id, status, summary)  # (and so does this)
        return dispatch, ref, True
    if prepared is None:  # recorded when read, not now: a store moved backwards
        raise InvalidInputError("the dispatch changed while its result was checked: call again")
    (result_commit,) = prepared
    if dispatch.version != seen.version:  # written since the git work read it: nothing signed
        raise VersionConflictError("dispatch", seen.record_id, seen.version, dispatch.version)
    body: JsonObject = {
        "format": "oms-evidence-v1",
        "evidence_kind": "dispatch-result",
        "ticket_id": dispatch_payload(seen)["ticket_id"],
        "producer": "oms",
        "producer_role": None,
        "created_at": ws.now(),
        "payload": {
            "dispatch_id": seen.record_id,
            "session_id": dispatch_payload(seen)["session_id"],
            "status": status,
            "summary": summary,
            "result_commit": result_commit,
        },
    }
    evidence = ws.store.put_evidence(body)
    recorded: DispatchPayload = {**dispatch_payload(seen), "result_evidence": evidence.ref}
    nxt = Next(step("dispatch", machine.TABLE, seen.state, "record-result"), as_json(recorded))
    op = stable_id("dsp-result", seen.record_id)
    change = Change(nxt.state, nxt.payload, op, ACTOR, next_after(seen.observed_at, ws.now()))
    # on the version the git work was done on: one written since (an end) is a conflict
    written = ws.store.records("dispatch").write_next(seen, change)
    _land(ws, seen, result_commit)  # recorded: only now do the branch and the index move to it
    _finish_worker(ws, seen.record_id, status, summary)
    return written.record, evidence.ref, written.replayed


def _land(ws: Workspace, dispatch: Record, commit: object) -> None:
    """Move the dispatch's branch to the recorded result `commit` when it still stands at the
    commit's only parent — the HEAD oms built the commit of the leftovers on — by compare-and-swap,
    and the worktree's index with it (`git.follow_branch`). Idempotent: a branch already there, or
    elsewhere, is left."""
    if not isinstance(commit, str):
        return
    repository = ws.config_root
    branch = dispatch_payload(dispatch)["worktree_branch"]
    head = git.resolve_commit(repository, f"refs/heads/{branch}")
    parents = git.git(repository, "rev-list", "--parents", "-n", "1", commit).text().split()[1:]
    if head == commit or parents != [head] or head is None:
        return
    git.move_branch(repository, branch, commit, head)
    linked = git.linked_worktree(repository, dispatch_payload(dispatch)["worktree_path"])
    git.follow_branch(repository, linked.gitdir, head, commit)


def finish_recorded(ws: Workspace, dispatch: Record) -> None:
    """A dispatch with a recorded result ends its worker with that result (`_finish_worker`),
    whoever ends the worker: a stop or an observed end after a crash between the two writes of
    `record_result` must not end it otherwise (the worker and the dispatch agree)."""
    if dispatch.state not in (DispatchState.RESULT_RECEIVED, DispatchState.RESOLVED):
        return
    ref = text_set(dispatch_payload(dispatch)["result_evidence"], "result_evidence")
    result = access.obj(ws.store.evidence.get(ref).body, "payload")
    with suppress_faults():  # (a worktree gone since: nothing to land)
        _land(ws, dispatch, result.get("result_commit"))
    _finish_worker(
        ws, dispatch.record_id, access.text(result, "status"), access.text(result, "summary")
    )


def _finish_worker(ws: Workspace, dispatch_id: str, status: str, summary: str) -> None:
    """The worker ends `done` (completed) or `blocked`, end reason `result-recorded`
    (idempotent)."""

    def decide(
        worker: Record, now: str
    ) -> Next[WorkerPayload] | None:  # hooks and liveness may move it meanwhile
        if worker.state not in (WorkerState.IDLE, WorkerState.WORKING):
            return None
        activity = "done" if status == "completed" else "blocked"
        detail = one_line(f"{status}: {summary}", 512)
        return workers.set_activity(
            worker.state,
            worker.payload,
            activity,
            now=now,
            end_reason="result-recorded",
            end_detail=detail,
        )

    worker_moves.move(ws, dispatch_id, decide, op=stable_id("wkr-result", dispatch_id), actor=ACTOR)
