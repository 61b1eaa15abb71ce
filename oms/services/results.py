"""Recording a dispatch's result (from `record_dispatch_result`): verify, sign, transition."""

from __future__ import annotations

from oms.adapters import git
from oms.canonical import JsonObject, access, next_after, stable_id
from oms.canonical.ids import COMMIT
from oms.domain import dispatches as machine
from oms.domain import workers
from oms.domain.machine import Next, step
from oms.errors import CheckoutChangedError, InvalidInputError
from oms.services.workspace import Workspace
from oms.store import Record

ACTOR = "oms-bridge"


def verify_commit(dispatch: Record, commit: str) -> None:
    """The commit is HEAD of the worktree, descends from the start commit, and the tree is clean.

    Runs no repository code: the repository config is checked first, then object-level git only, then
    `status` with fsmonitor off.
    """
    path = access.text(dispatch.payload, "worktree_path")
    if COMMIT.fullmatch(commit) is None:
        raise InvalidInputError(f"result_commit {commit[:70]!r} is not a full commit id")
    git.refuse_unsafe_config(path)
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


def record_result(
    ws: Workspace, dispatch: Record, *, status: str, summary: str, commit: object
) -> tuple[Record, str, bool]:
    """Store the signed result and move the dispatch and worker on; (dispatch, evidence ref, already)."""
    if dispatch.state == "accepted":
        raise InvalidInputError("call acknowledge_dispatch before record_dispatch_result")
    if status == "completed" and not isinstance(commit, str):
        raise InvalidInputError("a completed result needs result_commit")
    if isinstance(commit, str):
        verify_commit(dispatch, commit)
    result_commit = commit if isinstance(commit, str) else None
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
    if dispatch.state in ("result-received", "resolved"):
        ref = access.text(dispatch.payload, "result_evidence")
        previous = access.obj(ws.store.evidence.get(ref).body, "payload")
        if (previous["status"], previous["summary"], previous["result_commit"]) != (status, summary, result_commit):
            raise InvalidInputError("a different result was already recorded for this dispatch")
        return dispatch, ref, True
    evidence = ws.store.put_evidence(body)
    nxt = Next(
        step("dispatch", machine.TABLE, dispatch.state, "record-result"),
        {**dispatch.payload, "result_evidence": evidence.ref},
    )
    rec = (
        ws.store.records("dispatch")
        .transition(
            dispatch.record_id,
            expected_version=dispatch.version,
            state=nxt.state,
            payload=nxt.payload,
            operation_id=stable_id("dsp-result", dispatch.record_id),
            actor=ACTOR,
            observed_at=next_after(dispatch.observed_at, ws.now()),
        )
        .record
    )
    worker = ws.store.records("worker").read(dispatch.record_id)
    if worker.state in ("idle", "working"):
        activity = "done" if status == "completed" else "blocked"
        moved = workers.set_activity(
            worker.state,
            worker.payload,
            activity,
            now=next_after(worker.observed_at, ws.now()),
            end_reason="result-recorded",
            end_detail=f"{status}: {summary}"[:512],
        )
        ws.store.records("worker").transition(
            worker.record_id,
            expected_version=worker.version,
            state=moved.state,
            payload=moved.payload,
            operation_id=stable_id("wkr-result", dispatch.record_id),
            actor=ACTOR,
            observed_at=access.text(moved.payload, "updated_at"),
        )
    return rec, evidence.ref, False
