"""Two bridges of one dispatch record different results at the same moment: exactly one wins.

Issue 11: the store answered an operation id that had already produced a version as a replay without
comparing what was asked, and the result service dropped the `replayed` flag, so both callers heard
"recorded" and the worker's end could disagree with the dispatch's result. Now: results are recorded
under a per-dispatch lock, an operation id asked for a different change is a conflict, and the loser
hears `already` (same result) or a refusal (another result) and signs no evidence of its own.

Each race forks two processes that wait on one pipe and then call `record_dispatch_result` through
the bridge's own tools, each over its own workspace (as two brokers would). The state root is
restored from a snapshot taken just before the result, so every race starts from the same
acknowledged dispatch.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from oms.canonical import access
from oms.errors import OperationConflictError
from oms.store.verify import verify
from tests.agent_side import Bound, BoundTools, bind
from tests.chain import Chain

RACES = 40  # bench/race_bench.py runs 500


def _racer(bound: Bound, go: int, out: int, arguments: dict[str, Any]) -> None:
    """In a forked child: wait for the start byte, call the tool once, report (result, is_error)."""
    code = 1
    try:
        tools = BoundTools(bound)
        os.read(go, 1)
        result, is_error = tools.call("record_dispatch_result", arguments)
        os.write(out, json.dumps({"result": result, "error": is_error}).encode())
        tools.close()
        code = 0
    finally:
        os._exit(code)


def race(bound: Bound, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run `calls` at the same moment in forked processes; their answers, in call order."""
    go_r, go_w = os.pipe()
    children: list[tuple[int, int]] = []
    for arguments in calls:
        out_r, out_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(go_w)
            os.close(out_r)
            _racer(bound, go_r, out_w, arguments)
        os.close(out_w)
        children.append((pid, out_r))
    os.write(go_w, b"x" * len(calls))
    answers = []
    for pid, out_r in children:
        data = b""
        while chunk := os.read(out_r, 65536):
            data += chunk
        os.close(out_r)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        answers.append(json.loads(data))
    os.close(go_r)
    os.close(go_w)
    return answers


def outcome(bound: Bound) -> tuple[str, str, str, int]:
    """(dispatch state, the recorded result's status, the worker's end state, dispatch-result
    evidence count)."""
    with bound.chain.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(bound.dispatch_id)
        worker = ws.store.records("worker").read(bound.dispatch_id)
        results = [
            ref
            for ref in ws.store.evidence.refs()
            if ws.store.evidence.get(ref).body.get("evidence_kind") == "dispatch-result"
        ]
        status = ""
        if "result_evidence" in dispatch.payload:
            ref = access.text(dispatch.payload, "result_evidence")
            status = access.text(access.obj(ws.store.evidence.get(ref).body, "payload"), "status")
        return dispatch.state, status, worker.state, len(results)


@pytest.fixture
def ready(chain: Chain, tmp_path: Path) -> tuple[Bound, str, Path]:
    """An acknowledged dispatch with one commit in its worktree, and a snapshot of its state
    root."""
    bound = bind(chain)
    tools = BoundTools(bound)
    assert tools.call("acknowledge_dispatch", {})[1] is False
    tools.close()
    commit = bound.commit_change()
    snap = tmp_path / "snapshot"
    shutil.copytree(chain.state, snap, symlinks=True)
    return bound, commit, snap


def restore(bound: Bound, snap: Path) -> None:
    for entry in bound.chain.state.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    shutil.copytree(snap, bound.chain.state, symlinks=True, dirs_exist_ok=True)


def test_two_different_results_racing_exactly_one_wins(ready: tuple[Bound, str, Path]) -> None:
    bound, commit, snap = ready
    completed = {"status": "completed", "summary": "Fixed.", "result_commit": commit}
    blocked = {"status": "blocked", "summary": "Cannot reproduce."}
    disagreements = 0
    for n in range(RACES):
        if n:
            restore(bound, snap)
        answers = race(bound, [completed, blocked] if n % 2 else [blocked, completed])
        won = [a for a in answers if not a["error"]]
        lost = [a for a in answers if a["error"]]
        assert (len(won), len(lost)) == (1, 1), answers
        assert won[0]["result"]["already"] is False
        assert "a different result was already recorded" in lost[0]["result"]["error"]
        state, status, worker_state, evidence = outcome(bound)
        expected_worker = "done" if status == "completed" else "blocked"
        disagreements += worker_state != expected_worker
        assert (state, evidence) == ("result-received", 1)  # the loser left no signed evidence
        assert won[0]["result"]["evidence"] is not None
    assert disagreements == 0
    assert verify(str(bound.chain.state)).ok


def test_the_same_result_racing_is_recorded_once_and_the_other_hears_already(
    ready: tuple[Bound, str, Path],
) -> None:
    bound, commit, snap = ready
    completed = {"status": "completed", "summary": "Fixed.", "result_commit": commit}
    for n in range(RACES // 4):
        if n:
            restore(bound, snap)
        answers = race(bound, [completed, completed])
        assert [a["error"] for a in answers] == [False, False], answers
        assert sorted(a["result"]["already"] for a in answers) == [False, True]
        assert answers[0]["result"]["evidence"] == answers[1]["result"]["evidence"]
        assert outcome(bound) == ("result-received", "completed", "done", 1)


def test_an_operation_id_asked_for_a_different_change_is_a_conflict(
    ready: tuple[Bound, str, Path],
) -> None:
    """The store itself: an operation id replays only the change it made."""
    bound, _, _ = ready
    with bound.chain.workspace() as ws:
        records = ws.store.records("dispatch")
        acked = records.read(bound.dispatch_id)
        assert acked.expected_version is not None

        def again(state: str, payload: dict[str, Any]) -> object:
            return records.transition(
                bound.dispatch_id,
                expected_version=acked.expected_version,  # type: ignore[arg-type]
                state=state,
                payload=payload,
                operation_id=acked.operation_id,
                actor="oms-bridge",
                observed_at=ws.now(),
            )

        same = again(acked.state, dict(acked.payload))
        assert same == (acked, True)
        with pytest.raises(
            OperationConflictError, match=f"operation {acked.operation_id} already produced"
        ):
            again("accepted", dict(acked.payload))
        with pytest.raises(OperationConflictError):
            again(acked.state, {**acked.payload, "session_id": "ses-other"})
        assert records.versions(bound.dispatch_id)[-1] == acked.version
