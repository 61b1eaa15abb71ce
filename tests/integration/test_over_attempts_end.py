"""An attempt that is over ends its agent (issue 24 item 2, ADR 0028): once its dispatch is
cancelled, or resolved by the conductor, the worker's own supervisor notices (it asks the rule after
every request its broker serves and once a second), ends the sandbox, salvages what the agent left
and records the end — with no `oms worker observe`, no conductor tick and no `oms worker stop`.

Before: the agent ran on (a Codex `/goal` worker re-ran its goal 312 times in 77 s) until a person
ran `oms worker stop`, and the pool slot stayed held. A real command worker in a real pane and
sandbox."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from oms.canonical import access
from oms.domain.proxy import IMPLICIT
from oms.services.chain import dispatches, results
from oms.services.conductor import resolve as conductor_results
from oms.services.delivery.service import Delivery
from oms.services.proxy import control as proxy_control
from oms.services.proxy import tokens as proxy_tokens
from oms.store import panefiles
from tests.chain import Chain, WorkerOut, accepted, use_worker, wait_for
from tests.helpers import eventually, git


def _wait(what: str, done: Callable[[], bool], timeout: float = 60.0) -> None:
    eventually(done, timeout=timeout, what=what)


def _agent_pids(dispatch_id: str) -> list[int]:
    """Processes whose environment names the dispatch: the agent and what it started."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if f"OMS_DISPATCH_ID={dispatch_id}".encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
    return found


def _worker(chain: Chain, dispatch_id: str) -> dict[str, object]:
    with chain.workspace() as ws:
        return dict(ws.store.records("worker").read(dispatch_id).payload)


def _pane_dead(chain: Chain, dispatch_id: str) -> bool:
    sock = str(chain.state / "tmux.sock")
    pane = subprocess.run(
        ["tmux", "-S", sock, "list-panes", "-t", f"={dispatch_id}", "-F", "#{pane_dead}"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return pane.stdout.strip() in ("1", "")


def _deliver(chain: Chain, title: str) -> tuple[str, Path]:
    dispatch_id, event_id = accepted(chain, title)
    with chain.workspace() as ws:
        payload = ws.store.records("dispatch").read(dispatch_id).payload
        outcome = Delivery.open(ws).deliver(event_id)["outcome"]
    assert isinstance(outcome, dict)
    assert outcome["status"] == "created", outcome
    return dispatch_id, Path(access.text(payload, "worktree_path"))


def test_a_cancelled_attempt_ends_its_agent_and_keeps_its_work(deliverable: Chain) -> None:
    use_worker(deliverable, mode="edit")
    dispatch_id, worktree = _deliver(deliverable, "Cancelled while it edits")
    _wait("the agent's edits", (worktree / "edits.log").exists)
    with deliverable.workspace() as ws:  # its token holds a proxy started on demand (ADR 0026)
        proxy_tokens.issue_token(ws, dispatch_id, IMPLICIT["anthropic"])
        assert proxy_control.ensure(ws).state == "running"
    try:
        with deliverable.workspace() as ws:
            dispatches.cancel(ws, dispatch_id, "not wanted any more")
        _cancelled_and_ended(deliverable, dispatch_id, worktree)
    finally:
        with deliverable.workspace() as ws:
            proxy_control.stop(ws)


def _cancelled_and_ended(deliverable: Chain, dispatch_id: str, worktree: Path) -> None:
    _wait(
        "the worker's end, recorded by its supervisor",
        lambda: _worker(deliverable, dispatch_id)["health"] == "stopped",
    )
    _wait("no agent process left", lambda: not _agent_pids(dispatch_id))
    worker = _worker(deliverable, dispatch_id)
    assert worker["end_reason"] == "stopped", worker
    why = "the dispatch is cancelled (not wanted any more) (by oms-supervisor)"
    assert why in str(worker["end_detail"])
    ref = worker.get("salvage_ref")
    assert isinstance(ref, str), worker  # salvaged before the end was recorded: every edit is kept
    listed = git("ls-tree", "-r", "--name-only", str(worker["salvage_commit"]), cwd=worktree)
    assert "edits.log" in listed.split()
    kept = git("show", f"{worker['salvage_commit']}:edits.log", cwd=worktree)
    assert kept == (worktree / "edits.log").read_text()  # the agent wrote nothing after the salvage
    with deliverable.workspace() as ws:
        kill = panefiles.read_kill(ws.store.state.root, dispatch_id)
    assert kill is not None
    assert kill["by"] == "oms-supervisor", kill
    token = deliverable.state / "proxy" / "tokens" / f"{dispatch_id}.json"
    _wait("its token's end (after the worker's)", lambda: not token.exists())
    _wait("the on-demand proxy's end: no other worker needs it", lambda: _proxy(deliverable))


def _proxy(chain: Chain) -> bool:
    with chain.workspace() as ws:
        return proxy_control.status(ws).state == "not running"


def test_a_resolved_attempt_ends_its_agent_with_no_tick_and_no_stop(deliverable: Chain) -> None:
    out = use_worker(deliverable, mode="wait")  # proves its hooks and bridge, then waits
    dispatch_id, _ = _deliver(deliverable, "Resolved while its agent waits")
    wait_for(out)
    with deliverable.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(dispatch_id)
        assert dispatch.state == "acknowledged", dispatch.state
        summary = "cannot be done here"
        results.record_result(ws, dispatch, status="failed", summary=summary, commit=None)
        health = _worker(deliverable, dispatch_id)["health"]
        assert health == "healthy"  # a result alone ends no agent
        done: list[str] = []
        conductor_results.resolve(ws, done, [])  # the conductor's resolve phase alone
        assert ws.store.records("dispatch").read(dispatch_id).state == "resolved", done
    _wait(
        "the worker's end, recorded by its supervisor",
        lambda: _worker(deliverable, dispatch_id)["health"] == "stopped",
    )
    _wait("no agent process left", lambda: not _agent_pids(dispatch_id))
    worker = _worker(deliverable, dispatch_id)
    assert worker["end_reason"] == "result-recorded", worker  # the first end reason stays
    with deliverable.workspace() as ws:
        session = ws.store.records("session").read(str(worker["session_id"]))
    assert session.state == "stopped"
    assert "the dispatch is resolved" in str(session.payload.get("stop_reason"))
    _wait("its pane's end (its supervisor too)", lambda: _pane_dead(deliverable, dispatch_id))
    assert os.environ.get("OMS_EXECUTABLE")
    assert WorkerOut(deliverable.state).exists()


def test_an_agent_that_ignores_sigterm_is_ended_all_the_same(deliverable: Chain) -> None:
    """Attacked, held (ADR 0028): the agent traps SIGHUP and SIGTERM. Its supervisor's SIGKILL 2 s
    later ends it, and the end is recorded."""
    use_worker(deliverable, mode="stubborn")
    dispatch_id, _ = _deliver(deliverable, "Cancelled while it ignores signals")
    _wait("the stubborn agent", lambda: bool(_agent_pids(dispatch_id)))
    out = WorkerOut(deliverable.state)
    _wait("the agent's report", out.exists)
    with deliverable.workspace() as ws:
        dispatches.cancel(ws, dispatch_id, "not wanted any more")
    stopped = lambda: _worker(deliverable, dispatch_id)["health"] == "stopped"  # noqa: E731
    _wait("the worker's end, recorded by its supervisor", stopped)
    _wait("no agent process left", lambda: not _agent_pids(dispatch_id))
    log = (deliverable.state / "panes" / f"{dispatch_id}.log").read_text(errors="replace")
    assert "the attempt is over" in log
