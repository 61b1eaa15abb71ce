"""Recording a dispatch's result (from `record_dispatch_result`): verify, sign, transition.

An agent either commits its work itself (Claude Code, a command worker) or leaves it in the worktree:
Codex's workspace-write sandbox keeps git metadata read-only, so a Codex agent in a worktree cannot
commit (observed: `Unable to create '<repo>/.git/worktrees/<id>/index.lock': Read-only file system`).
For a `completed` result without `result_commit`, oms commits the worktree's changes itself, outside
the sandbox, running no repository code (config checked first; hooks and fsmonitor off).
"""

from __future__ import annotations

from oms.adapters import git
from oms.canonical import JsonObject, access, next_after, stable_id
from oms.canonical.ids import COMMIT
from oms.domain import dispatches as machine
from oms.domain import workers
from oms.domain.machine import Next, step
from oms.errors import CheckoutChangedError, InvalidInputError, one_line
from oms.services import fence, worker_moves
from oms.services.workspace import Workspace
from oms.store import Record

ACTOR = "oms-bridge"
RESULT_LOCKS = "record-result"  # the outbox consumer whose per-dispatch locks serialise result recording
RESULT_LOCK_WAIT_S = 30.0  # longer than one recording's git checks take
WORKER_IDENTITY = ("oms worker", "worker@oms.invalid")


def verify_commit(dispatch: Record, commit: str, repository: str) -> None:
    """The commit is HEAD of the worktree, descends from the start commit, and the tree is clean.

    Runs no repository code: the repository config is checked first, then object-level git only, then
    `status` with fsmonitor off.
    """
    path = access.text(dispatch.payload, "worktree_path")
    if COMMIT.fullmatch(commit) is None:
        raise InvalidInputError(f"result_commit {commit[:70]!r} is not a full commit id")
    git.refuse_unsafe_config(path)
    git.check_worktree_of(path, repository)
    if git.resolve_commit(path, commit) != commit:
        raise CheckoutChangedError(f"result_commit {commit[:12]} does not exist in the worktree")
    if not git.is_ancestor(path, access.text(dispatch.payload, "worktree_start_commit"), commit):
        raise CheckoutChangedError(f"result_commit {commit[:12]} does not descend from the start commit")
    if git.resolve_commit(path, "HEAD") != commit:
        raise CheckoutChangedError(f"result_commit {commit[:12]} is not HEAD of the worktree")
    if git.current_branch(path) != access.text(dispatch.payload, "worktree_branch"):
        raise CheckoutChangedError("the worktree is not on its dispatch branch")
    if git.status_entries(path):
        raise CheckoutChangedError("the worktree has uncommitted or untracked changes; commit them first")
    start = access.text(dispatch.payload, "worktree_start_commit")
    added = sorted(git.gitlinks(path, commit) - git.gitlinks(path, start))
    if added:
        raise CheckoutChangedError(f"result_commit adds a submodule at {added[0][:200]}; oms accepts files only")


def commit_leftovers(dispatch: Record, summary: str, repository: str) -> str:
    """Commit what the agent left in its worktree (as `oms worker`); the new HEAD, or HEAD if it is already
    a commit after the start commit and the tree is clean."""
    path = access.text(dispatch.payload, "worktree_path")
    git.refuse_unsafe_config(path)
    git.check_worktree_of(path, repository)
    if git.current_branch(path) != access.text(dispatch.payload, "worktree_branch"):
        raise CheckoutChangedError("the worktree is not on its dispatch branch")
    nested = git.nested_repositories(path)
    if nested:  # oms commits files, never a repository (its gitlink would point into unchecked config)
        raise InvalidInputError(
            f"the worktree holds a git repository at {nested[0][:200]}; remove it (oms commits files, not repositories)"
        )
    if git.status_entries(path):
        first = summary.strip().splitlines()[0] if summary.strip() else ""
        subject = one_line(first, 200) or "oms result"  # printable ASCII: no terminal escapes in `git log`
        why = f"Committed by oms for dispatch {dispatch.record_id}: the agent left its work uncommitted."
        message = f"{subject}\n\n{why}\n"
        return git.commit_all(path, message, author=WORKER_IDENTITY)
    head = git.resolve_commit(path, "HEAD")
    if head is None or head == access.text(dispatch.payload, "worktree_start_commit"):
        raise InvalidInputError("nothing to record: the worktree has no changes and no commit after start_commit")
    return head


def record_result(
    ws: Workspace, dispatch: Record, *, status: str, summary: str, commit: object
) -> tuple[Record, str, bool]:
    """Store the signed result and move the dispatch and worker on; (dispatch, evidence ref, already).
    Only while the attempt holds its lease (and, for a GitHub ticket, its live authorisation).

    Exactly one result wins. Callers of one dispatch take turns under its result lock, and each decides
    on the dispatch as it is once the lock is held: a later caller finds the result recorded and gets
    `already` (the same result) or a refusal (another one), and signs no evidence of its own."""
    with ws.store.outbox(RESULT_LOCKS).lock(dispatch.record_id, wait_s=RESULT_LOCK_WAIT_S):
        current = ws.store.records("dispatch").read(dispatch.record_id)
        return _record_locked(ws, current, status=status, summary=summary, commit=commit)


def _record_locked(
    ws: Workspace, dispatch: Record, *, status: str, summary: str, commit: object
) -> tuple[Record, str, bool]:
    fence.require(ws, dispatch, ACTOR)
    if dispatch.state == "accepted":
        raise InvalidInputError("call acknowledge_dispatch before record_dispatch_result")
    if dispatch.state in ("result-received", "resolved"):  # a retry: the same result again, or a refusal
        ref = access.text(dispatch.payload, "result_evidence")
        previous = access.obj(ws.store.evidence.get(ref).body, "payload")
        same_commit = commit is None or commit == previous["result_commit"]
        if (previous["status"], previous["summary"]) != (status, summary) or not same_commit:
            raise InvalidInputError("a different result was already recorded for this dispatch")
        _finish_worker(ws, dispatch.record_id, status, summary)  # completes an interrupted first call
        return dispatch, ref, True
    if status == "completed" and not isinstance(commit, str):
        commit = commit_leftovers(dispatch, summary, ws.config_root)
    if isinstance(commit, str):
        verify_commit(dispatch, commit, ws.config_root)
        if status == "completed" and commit == dispatch.payload["worktree_start_commit"]:
            raise InvalidInputError("result_commit is the start commit: a completed result needs a new commit")
    result_commit = commit if isinstance(commit, str) else None
    fence.require(ws, dispatch, ACTOR)  # again: a lease or authorisation may lapse while git verifies
    body: JsonObject = {
        "format": "oms-evidence-v1",
        "evidence_kind": "dispatch-result",
        "ticket_id": dispatch.payload["ticket_id"],
        "producer": "oms",
        "producer_role": None,
        "created_at": ws.now(),
        "payload": {
            "dispatch_id": dispatch.record_id,
            "session_id": dispatch.payload["session_id"],
            "status": status,
            "summary": summary,
            "result_commit": result_commit,
        },
    }
    evidence = ws.store.put_evidence(body)
    nxt = Next(
        step("dispatch", machine.TABLE, dispatch.state, "record-result"),
        {**dispatch.payload, "result_evidence": evidence.ref},
    )
    written = ws.store.records("dispatch").transition(
        dispatch.record_id,
        expected_version=dispatch.version,
        state=nxt.state,
        payload=nxt.payload,
        operation_id=stable_id("dsp-result", dispatch.record_id),
        actor=ACTOR,
        observed_at=next_after(dispatch.observed_at, ws.now()),
    )
    _finish_worker(ws, dispatch.record_id, status, summary)
    return written.record, evidence.ref, written.replayed


def finish_recorded(ws: Workspace, dispatch: Record) -> None:
    """A dispatch with a recorded result ends its worker with that result (`_finish_worker`), whoever ends
    the worker: a stop or an observed end after a crash between the two writes of `record_result` must
    not end it otherwise (the worker and the dispatch agree)."""
    if dispatch.state not in ("result-received", "resolved"):
        return
    result = access.obj(ws.store.evidence.get(access.text(dispatch.payload, "result_evidence")).body, "payload")
    _finish_worker(ws, dispatch.record_id, access.text(result, "status"), access.text(result, "summary"))


def _finish_worker(ws: Workspace, dispatch_id: str, status: str, summary: str) -> None:
    """The worker ends `done` (completed) or `blocked`, end reason `result-recorded` (idempotent)."""

    def decide(worker: Record, now: str) -> Next | None:  # hooks and liveness may move it meanwhile
        if worker.state not in ("idle", "working"):
            return None
        activity = "done" if status == "completed" else "blocked"
        detail = one_line(f"{status}: {summary}", 512)
        return workers.set_activity(
            worker.state, worker.payload, activity, now=now, end_reason="result-recorded", end_detail=detail
        )

    worker_moves.move(ws, dispatch_id, decide, op=stable_id("wkr-result", dispatch_id), actor=ACTOR)
