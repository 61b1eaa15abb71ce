"""Issue 11: `oms worker resume` of a worker whose pane died — the real Codex CLI and Claude Code
relaunched in a new pane on their own native session (`codex resume <id>`, `claude --resume <id>`),
against the loopback model mock.

The scripted model reads and acknowledges the dispatch; its next reply is held back (the turn is in
flight) while the test kills the pane. `oms worker resume` must relaunch the agent on the same
session in a new pane, and the model must then see a request that carries the first turn (both tool
results) and the continuation oms typed; the agent changes the file and records its result. Resume
used to refuse a dead pane ("worker cannot resume without its live bound pane").

Also: a dead pane whose lease lapsed is refused in one line and nothing is written."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.adapters.providers.base import CONTINUE
from oms.canonical import access
from oms.errors import AttemptFencedError
from oms.fsio.procinfo import group_alive
from oms.services.delivery.service import Delivery
from oms.services.workspace import SYSTEM_ACTOR
from tests.agent_side import snapshot
from tests.chain import Chain, sandbox_dir
from tests.e2e.test_real_agents import (
    CHANGE,
    _deliver,
    _pane_text,
    _processes_of,
    _stop_and_check_nothing_left,
    _use,
    _wait_for_result,
)
from tests.helpers import OmsCommand, eventually, git, scaled
from tests.model_mock import Call, Hold, ModelMock, Say, Script

RESULT = Call("record_dispatch_result", {"status": "completed", "summary": "Added AGENT.md."})


@pytest.fixture
def mock() -> Iterator[ModelMock]:
    server = ModelMock(Script([])).start()
    yield server
    server.stop()


def _codex(chain: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch) -> None:
    codex_home = chain.base / "user-codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))  # no login: the role endpoint needs none
    _use(chain, "oms.goal-long-executor", "gpt-6.2-sol", "codex_goal", mock.base + "/v1", [])


def _codex_exec(chain: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch) -> None:
    codex_home = chain.base / "user-codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    chain.edit_config(lambda s: s.replace('transport = "codex_goal"', 'transport = "codex_exec"'))
    _use(chain, "oms.goal-long-executor", "gpt-6.2-sol", "codex_exec", mock.base + "/v1", [])


def _claude(chain: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch) -> None:
    home = chain.base / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # Claude Code keeps caches under $HOME
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-e2e-test-key-0123456789abcdef")
    _use(chain, "oms.ticket-executor", "sonnet", "claude_interactive", mock.base, [])


def _tmux(chain: Chain, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["tmux", "-S", str(chain.state / "tmux.sock"), *args],
        capture_output=True,
        text=True,
        check=False,
    )


def _first_turn_then_kill(chain: Chain, mock: ModelMock, dispatch_id: str) -> int:
    """Wait until the model's third reply is held (the first turn read and acknowledged), kill the
    pane with tmux, wait until nothing of it runs; the killed pane's process (its supervisor)."""
    assert mock.holding.wait(scaled(60)), (
        f"the agent never got to its held reply:\n{_pane_text(chain, dispatch_id)}"
    )
    with chain.workspace() as ws:
        session_id = access.text(
            ws.store.records("dispatch").read(dispatch_id).payload, "session_id"
        )
        pane_id = str(ws.store.records("session").read(session_id).payload["tmux_pane_id"])
    pane_pid = _registered_pid(chain, dispatch_id)
    _wait_for_transcript(chain, session_id)  # the CLI writes it a moment after it sent the request
    assert _tmux(chain, "kill-pane", "-t", pane_id).returncode == 0
    # the supervisor ends the agent, its bridge and its sandbox, then records the end and ends
    # itself
    eventually(
        lambda: not _processes_of(dispatch_id) and not group_alive(pane_pid),
        timeout=20,
        what="the killed pane's processes end with it",
    )
    mock.release.set()  # the held reply goes into the closed connection
    return pane_pid


ACKNOWLEDGED = ('"state":"acknowledged"', '\\"state\\":\\"acknowledged\\"')


def _wait_for_transcript(chain: Chain, session_id: str, timeout: float = 30.0) -> None:
    """Until the agent's own transcript (Claude Code's session, Codex's rollout: JSON lines in its
    private home) holds the first turn's acknowledgement, which its native resume continues from."""
    homes = sandbox_dir(chain.state) / "homes"

    def acknowledged() -> bool:
        texts = (p.read_text(errors="replace") for p in homes.glob(f"*-{session_id}/**/*.jsonl"))
        return any(mark in text for text in texts for mark in ACKNOWLEDGED)

    eventually(acknowledged, timeout=timeout, what="the agent's transcript holds its first turn")


def _registered_pid(chain: Chain, dispatch_id: str) -> int:
    return int(json.loads((chain.state / "panes" / f"{dispatch_id}.json").read_text())["pane_pid"])


def _resume(oms: OmsCommand, chain: Chain, dispatch_id: str) -> dict[str, object]:
    done = oms.run(
        "worker",
        "resume",
        dispatch_id,
        "--state-root",
        str(chain.state),
        "--config-root",
        str(chain.repo),
        "--json",
    )
    assert done.returncode == 0, done.stderr + _pane_text(chain, dispatch_id)
    view = json.loads(done.stdout)
    assert isinstance(view, dict)
    return view


def _check_relaunched(
    chain: Chain, dispatch_id: str, session_id: str, old_pid: int, view: dict[str, object]
) -> None:
    assert view["resumed"] == "native"
    assert (view["session_state"], view["worker_health"], view["pane_live"]) == (
        "running",
        "healthy",
        True,
    )
    assert (
        _registered_pid(chain, dispatch_id) != old_pid
    )  # a new pane (tmux may give it the old id: a new server)
    with chain.workspace() as ws:
        history = ws.store.records("session").history(
            session_id
        )  # the same session, moved to the new pane
    (relaunched,) = [v for v in history[1:] if v.actor == SYSTEM_ACTOR]
    assert relaunched.state == "running"
    assert relaunched.payload["tmux_pane_id"] == view["pane_id"]
    assert not (
        chain.state / "panes" / f"{dispatch_id}.exit.json"
    ).exists()  # the dead pane's end is not trusted


def _check_recorded(chain: Chain, dispatch_id: str) -> None:
    """The relaunched agent's change is the recorded result (oms committed it); the worker is
    done."""
    with chain.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(dispatch_id)
        result = access.obj(
            ws.store.evidence.get(access.text(dispatch.payload, "result_evidence")).body, "payload"
        )
        worker = ws.store.records("worker").read(dispatch_id)
    worktree = str(dispatch.payload["worktree_path"])
    head = git("rev-parse", "HEAD", cwd=worktree).strip()
    assert (dispatch.state, result["status"], result["result_commit"]) == (
        "result-received",
        "completed",
        head,
    )
    assert git("show", "--format=", "--name-only", head, cwd=worktree).split() == ["AGENT.md"]
    assert (worker.state, worker.payload["end_reason"]) == ("done", "result-recorded")


def _continued(mock: ModelMock, before: int, read: str, acknowledge: str, *, typed: bool) -> None:
    """After the relaunch the model saw the first turn (both tool results) and, where oms typed it,
    the continuation."""
    later = [s for s in mock.seen[before:] if s.tools]
    assert later, "the relaunched agent never called the model"
    first = later[0]
    # (Claude Code asks the model before its MCP server is connected when the machine is slow: the
    # first call then went out under its bare name and came back "no such tool" — still the first
    # turn's result, carried into the resumed session)
    bare = {read.rsplit("__", 1)[-1]: read, acknowledge.rsplit("__", 1)[-1]: acknowledge}
    names = [bare.get(name, name) for name, _text in first.results]
    names = [name for name in names if name in (read, acknowledge)]
    assert names == [read, acknowledge], first.results
    assert any(CONTINUE in s.text for s in later) is typed, [s.text[-300:] for s in later]


def test_codex_resumes_its_own_session_in_a_new_pane(
    deliverable: Chain, mock: ModelMock, oms: OmsCommand, monkeypatch: pytest.MonkeyPatch
) -> None:
    _codex(deliverable, mock, monkeypatch)
    mock.script = Script(
        [
            Call("read_dispatch", {}),
            Call("acknowledge_dispatch", {}),
            Hold(Call("exec_command", {"cmd": CHANGE})),
            RESULT,
            Call("update_goal", {"status": "complete"}),
            Say("Done: the dispatch has its result."),
        ]
    )
    dispatch_id, session_id = _deliver(deliverable)
    old_pid = _first_turn_then_kill(deliverable, mock, dispatch_id)
    with deliverable.workspace() as ws:
        native = ws.store.records("session").read(session_id).payload["native_session_ref"]
    assert native != session_id  # Codex's own id, from its SessionStart hook
    before = len(mock.seen)
    view = _resume(oms, deliverable, dispatch_id)
    _check_relaunched(deliverable, dispatch_id, session_id, old_pid, view)
    _wait_for_result(deliverable, dispatch_id, mock)
    _continued(
        mock, before, "read_dispatch", "acknowledge_dispatch", typed=False
    )  # it continued its goal itself
    with deliverable.workspace() as ws:
        assert (
            ws.store.records("session").read(session_id).payload["native_session_ref"] == native
        )  # same thread
    _check_recorded(deliverable, dispatch_id)
    _stop_and_check_nothing_left(deliverable, dispatch_id)


def test_codex_exec_resumes_its_own_thread_in_a_new_pane(
    deliverable: Chain, mock: ModelMock, oms: OmsCommand, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`codex exec resume <id> <CONTINUE>`: the same thread, told to continue on its command line
    (nothing is typed into a `codex exec` pane); once let stop it exits by itself."""
    _codex_exec(deliverable, mock, monkeypatch)
    mock.script = Script(
        [
            Call("read_dispatch", {}),
            Call("acknowledge_dispatch", {}),
            Hold(Call("exec_command", {"cmd": CHANGE})),
            RESULT,
            Say("Done: the dispatch has its result."),
        ]
    )
    dispatch_id, session_id = _deliver(deliverable)
    old_pid = _first_turn_then_kill(deliverable, mock, dispatch_id)
    with deliverable.workspace() as ws:
        native = ws.store.records("session").read(session_id).payload["native_session_ref"]
    assert native != session_id  # Codex's own id, from its SessionStart hook
    before = len(mock.seen)
    view = _resume(oms, deliverable, dispatch_id)
    _check_relaunched(deliverable, dispatch_id, session_id, old_pid, view)
    _wait_for_result(deliverable, dispatch_id, mock)
    _continued(mock, before, "read_dispatch", "acknowledge_dispatch", typed=True)
    with deliverable.workspace() as ws:
        assert ws.store.records("session").read(session_id).payload["native_session_ref"] == native
    _check_recorded(deliverable, dispatch_id)
    eventually(
        lambda: not _processes_of(dispatch_id), timeout=30, what="codex exec exits by itself"
    )
    with deliverable.workspace() as ws:
        Delivery.open(ws).stop(dispatch_id, "e2e over")


def test_claude_resumes_its_own_session_in_a_new_pane(
    deliverable: Chain, mock: ModelMock, oms: OmsCommand, monkeypatch: pytest.MonkeyPatch
) -> None:
    _claude(deliverable, mock, monkeypatch)
    mock.script = Script(
        [
            Call("read_dispatch", {}),
            Call("acknowledge_dispatch", {}),
            Hold(Call("Bash", {"command": CHANGE, "description": "write the fix"})),
            RESULT,
        ],
        # on resume Claude Code closes the interrupted turn with "No response requested."
        by_results=True,
    )
    dispatch_id, session_id = _deliver(deliverable)
    old_pid = _first_turn_then_kill(deliverable, mock, dispatch_id)
    before = len(mock.seen)
    view = _resume(oms, deliverable, dispatch_id)
    _check_relaunched(deliverable, dispatch_id, session_id, old_pid, view)
    _wait_for_result(deliverable, dispatch_id, mock)
    _continued(
        mock,
        before,
        "mcp__oms_worker__read_dispatch",
        "mcp__oms_worker__acknowledge_dispatch",
        typed=True,
    )
    _check_recorded(deliverable, dispatch_id)
    _stop_and_check_nothing_left(deliverable, dispatch_id)


def test_observe_of_a_dead_pane_keeps_the_native_resume(
    deliverable: Chain, mock: ModelMock, oms: OmsCommand, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 24: `oms worker observe` of the dead pane recorded its end, after which `oms worker
    resume` refused the native resume it would have done without the look. The look now parks the
    worker, naming the pane's end; the resume continues the agent's own session as before."""
    _claude(deliverable, mock, monkeypatch)
    mock.script = Script(
        [
            Call("read_dispatch", {}),
            Call("acknowledge_dispatch", {}),
            Hold(Call("Bash", {"command": CHANGE, "description": "write the fix"})),
            RESULT,
        ],
        by_results=True,
    )
    dispatch_id, session_id = _deliver(deliverable)
    old_pid = _first_turn_then_kill(deliverable, mock, dispatch_id)
    roots = ["--state-root", str(deliverable.state), "--config-root", str(deliverable.repo)]
    views = []
    for _ in range(2):  # a second look writes nothing more
        looked = oms.run("worker", "observe", dispatch_id, *roots, "--json")
        assert looked.returncode == 0, looked.stderr
        views.append(json.loads(looked.stdout))
    assert views[0] == views[1]
    view = views[0]
    shown = (view["worker_health"], view["session_state"], view["pane_live"])
    assert shown == ("parked", "running", False)
    assert str(view["health_reason"]).startswith("its pane ended (")
    assert "oms worker resume" in str(view["health_reason"])
    before = len(mock.seen)
    resumed = _resume(oms, deliverable, dispatch_id)
    _check_relaunched(deliverable, dispatch_id, session_id, old_pid, resumed)
    _wait_for_result(deliverable, dispatch_id, mock)
    read, acknowledge = "mcp__oms_worker__read_dispatch", "mcp__oms_worker__acknowledge_dispatch"
    _continued(mock, before, read, acknowledge, typed=True)
    _check_recorded(deliverable, dispatch_id)
    _stop_and_check_nothing_left(deliverable, dispatch_id)


def _settled(state: Path) -> dict[str, str]:
    """The state root but the proxy's own files: its log, and the usage its flush loop writes a
    moment after an answer it served before (the proxy started on demand runs on by itself; that
    no request was forwarded since is asserted on the model's side)."""
    return {
        path: seen
        for path, seen in snapshot(state).items()
        if path != "proxy/proxy.log" and not path.startswith("proxy/usage/")
    }


def test_a_dead_pane_whose_lease_lapsed_is_not_relaunched(
    deliverable: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    _claude(deliverable, mock, monkeypatch)
    mock.script = Script(
        [Call("read_dispatch", {}), Call("acknowledge_dispatch", {}), Hold(RESULT)]
    )
    dispatch_id, _session_id = _deliver(deliverable)
    _first_turn_then_kill(deliverable, mock, dispatch_id)
    deliverable.clock.advance(61)  # past the lease's expiry
    before = _settled(deliverable.state)
    seen = len(mock.seen)
    with deliverable.workspace() as ws, pytest.raises(AttemptFencedError) as refused:
        Delivery.open(ws).resume(dispatch_id)
    assert str(refused.value).startswith(
        "worker cannot resume: attempt fenced: attempt 1's lease expired at "
    )
    assert "\n" not in str(refused.value)
    assert _settled(deliverable.state) == before  # no record, no pane file, no lock left behind
    assert _tmux(deliverable, "list-panes", "-a").stdout == ""  # no pane was started: no agent runs
    assert len(mock.seen) == seen
    with deliverable.workspace() as ws:  # no resume can continue it: a look records its end
        view = Delivery.open(ws).observe(dispatch_id)
    assert (view["worker_health"], view["session_state"]) == ("stopped", "stopped")
