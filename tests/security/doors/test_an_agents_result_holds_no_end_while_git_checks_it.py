"""An agent cannot keep its attempt from ending by asking for a result (SECURITY.md "Talk to an
agent", ADR 0036 amendment `attack8`).

`record_dispatch_result` checked the result under the dispatch's end lock (`chain/end_lock.py`):
the commit of the agent's leftovers and the commit's checks are tree jobs over files the agent
chose, bounded only by `LIMITS.tree_job_timeout_s` (300 s), while a cancel and the lease's lapse
wait `LIMITS.end_lock_wait_s` (45 s) for the lock and are then refused. An agent whose worktree
takes long to stage, asking for results one after the other (each refused or not), kept
`oms dispatch cancel` and its lapse refused for as long as it liked. Now the git work is done
before the lock; under it the fence is asked again and the result written only on the version
the work read: an end recorded meanwhile lands at once and refuses the result.

The tree job here is the real one, held at its start until the end has been tried (a wrapper
that waits on an event, no sleep): what it stands for is a worktree that takes long to stage."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from oms.adapters import tree_job
from oms.errors import LockHeldError
from oms.services.chain import dispatches, fence
from oms.services.chain.end_lock import end_lock
from oms.services.workspace import Workspace
from tests.agent_side import BoundTools, bind
from tests.chain import Chain

RESULT = {"status": "completed", "summary": "Done."}


def _cancel(_chain: Chain, ws: Workspace, dispatch_id: str) -> str:
    dispatches.cancel(ws, dispatch_id, "not wanted any more")
    return "cancelled"


def _lapse(chain: Chain, ws: Workspace, _dispatch_id: str) -> str:
    chain.clock.advance(61)  # the configured lease is 60 minutes
    expired, _ = fence.expire_leases(ws)
    assert len(expired) == 1
    return "lapsed"


@pytest.mark.parametrize("end", [_cancel, _lapse], ids=["cancel", "lapse"])
def test_an_end_lands_while_the_agents_result_is_checked(
    chain: Chain, monkeypatch: pytest.MonkeyPatch, end: Callable[[Chain, Workspace, str], str]
) -> None:
    bound = bind(chain)
    in_job, go = threading.Event(), threading.Event()
    real_run_job = tree_job.run_job

    def held(*args: Any, **kwargs: Any) -> Any:  # the agent's slow worktree, on cue
        in_job.set()
        assert go.wait(timeout=60)
        return real_run_job(*args, **kwargs)

    tools = BoundTools(bound)
    answers: list[tuple[Any, bool]] = []
    failures: list[BaseException] = []

    def ask() -> None:
        try:
            answers.append(tools.call("record_dispatch_result", RESULT))
        except BaseException as exc:  # handed to the test's thread
            failures.append(exc)
        finally:
            in_job.set()

    asker = threading.Thread(target=ask, name="agent")
    try:
        assert tools.call("acknowledge_dispatch", {})[1] is False
        (bound.worktree / "WORK.md").write_text("the agent's work, left uncommitted\n")
        monkeypatch.setattr(tree_job, "run_job", held)
        asker.start()
        assert in_job.wait(timeout=60)
        assert not failures, failures
        with chain.workspace() as ws:
            try:  # not waited for: the end lock is free while git checks the result
                end_lock(ws, bound.dispatch_id, wait_s=0).release()
            except LockHeldError as exc:
                pytest.fail(f"the result's git work holds the end lock: {exc.message}")
            began = time.monotonic()
            end(chain, ws, bound.dispatch_id)
            assert time.monotonic() - began < 10  # landed, not waited out
    finally:
        go.set()
        asker.join(timeout=120)
        tools.close()
    assert not asker.is_alive()
    assert not failures, failures
    [(out, is_error)] = answers
    assert is_error is True, out  # the result came after the end: refused
    with chain.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(bound.dispatch_id)
        assert dispatch.payload.get("result_evidence") is None
        assert dispatch.state != "result-received"
    assert (bound.worktree / "WORK.md").read_text() == "the agent's work, left uncommitted\n"
