"""End to end with the real Codex CLI and Claude Code (tmux panes, real hooks, the real bridge),
against a loopback mock of each model API (tests/model_mock.py): the only stand-in is the remote
model.

The scripted model reads and acknowledges the dispatch, ends a turn early (the Stop gate must block
it), tries a tool outside the role's allow-list (PreToolUse must deny it), changes a file, records
the result, and ends its turn (the Stop gate must let it go). The records must end at
`result-received` with the commit; `oms worker stop` must leave no pane and no process."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from oms.canonical import access
from oms.services.chain import dispatches
from oms.services.chain.liveness import hook_event_id
from oms.services.delivery.service import Delivery
from oms.services.doors.hooks import CONTEXT, STOP_REASON
from tests.chain import Chain, accepted
from tests.helpers import eventually, git
from tests.model_mock import Call, ModelMock, Say, Script

EARLY = "I have read the dispatch; stopping here."
CHANGE = "printf 'fixed by an agent\\n' > AGENT.md"


@pytest.fixture
def mock() -> Iterator[ModelMock]:
    server = ModelMock(Script([])).start()
    yield server
    server.stop()


def _use(
    chain: Chain, role_id: str, model: str, transport: str, endpoint: str, tools: list[str]
) -> None:
    """Make `role_id` the worker role, talking to the mock, with `tools` granted by the committed
    policy."""

    def change(text: str) -> str:
        text = text.replace('role = "oms.command-executor"', f'role = "{role_id}"')
        head, marker, tail = text.partition(f'[roles."{role_id}"]')
        assert marker, f"no {role_id} in the config"
        line = re.compile(rf'^model = "{re.escape(model)}"[^\n]*\n', re.MULTILINE)
        assert line.search(tail), (
            f"{role_id}'s model is not {model} (the scaffold changed? pass its model)"
        )
        tail = line.sub(f'model = "test-model"\nendpoint = "{endpoint}"\n', tail, count=1)
        assert f'transport = "{transport}"' in tail
        return head + marker + tail

    chain.edit_config(change, commit=True)
    chain.edit_policy(lambda d: d["roles"][role_id]["tools"].extend(tools), commit=True)


def use_claude(chain: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker role is Claude Code against `mock`, with a home of its own (its caches) and a
    key of the right form."""
    home = chain.base / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # Claude Code keeps caches under $HOME
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-e2e-test-key-0123456789abcdef")
    _use(chain, "oms.ticket-executor", "sonnet", "claude_interactive", mock.base, [])


def claude_turn() -> Script:
    """The scripted Claude turn: read and acknowledge, an early stop (the gate blocks it), a tool
    outside the allow-list (PreToolUse denies it), the change, the result."""
    return Script(
        [
            Call("read_dispatch", {}),
            Call("acknowledge_dispatch", {}),
            Say(EARLY),
            Call("WebFetch", {"url": "https://example.com", "prompt": "x"}),
            Call("Bash", {"command": CHANGE_AND_DETACH, "description": "write the fix"}),
            Call("record_dispatch_result", {"status": "completed", "summary": "Added AGENT.md."}),
        ]
    )


def _deliver(chain: Chain) -> tuple[str, str]:
    dispatch_id, event_id = accepted(chain)
    with chain.workspace() as ws:
        outcome = Delivery.open(ws).deliver(event_id)["outcome"]
    assert isinstance(outcome, dict)
    assert outcome["status"] == "created", outcome
    return dispatch_id, str(outcome["session_id"])


def _wait_for_result(
    chain: Chain, dispatch_id: str, mock: ModelMock, timeout: float = 40.0
) -> dict[str, Any]:

    def returned() -> dict[str, Any] | None:
        with chain.workspace() as ws:
            view = dict(Delivery.open(ws).observe(dispatch_id))
            session = ws.store.records("session").read_if_exists(
                str(ws.store.records("dispatch").read(dispatch_id).payload["session_id"])
            )
        released = (  # the agent came to rest after its result (a fact the session records at once)
            session is not None
            and session.payload["stop_blocks"] == 0
            and session.payload.get("agent_stopped_at") is not None
        )
        if view["dispatch_state"] == "result-received" and released:
            return view
        longest = max(mock.seen, key=lambda s: len(s.results)).results if mock.seen else ()
        seen = [(name, text[:200]) for name, text in longest]
        failure = f"{view}\npane:\n{_pane_text(chain, dispatch_id)}\nmodel saw: {seen}"
        if view["worker_health"] != "healthy":  # (no result will come: fail at once)
            raise RuntimeError(f"the worker is not healthy: {failure}")
        raise AssertionError(f"no result yet: {failure}")

    return eventually(returned, timeout=timeout, what="the agent returns its result")


def _pane_text(chain: Chain, dispatch_id: str) -> str:
    done = subprocess.run(
        ["tmux", "-S", str(chain.state / "tmux.sock"), "capture-pane", "-p", "-t", dispatch_id],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout


def _processes_of(dispatch_id: str) -> list[int]:
    """Our processes that carry the dispatch in their environment (the pane and everything it
    started)."""
    found = []
    needle = f"OMS_DISPATCH_ID={dispatch_id}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry))
    return found


def _stop_and_check_nothing_left(chain: Chain, dispatch_id: str) -> None:
    assert _processes_of(dispatch_id)  # the agent and its bridge are running before the stop
    with chain.workspace() as ws:
        view = Delivery.open(ws).stop(dispatch_id, "e2e over")
    assert view["pane_live"] is False
    listed = subprocess.run(
        ["tmux", "-S", str(chain.state / "tmux.sock"), "list-panes", "-a", "-F", "#{session_name}"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert dispatch_id not in listed.stdout
    eventually(lambda: not _processes_of(dispatch_id), timeout=10, what="no process is left")


def _check_result(chain: Chain, dispatch_id: str, session_id: str) -> str:
    with chain.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(dispatch_id)
        evidence = ws.store.evidence.get(access.text(dispatch.payload, "result_evidence"))
        worker = ws.store.records("worker").read(dispatch_id)
        history = ws.store.records("session").history(session_id)
        assert hook_event_id(session_id) in ws.store.events.ids()
    result = access.obj(evidence.body, "payload")
    worktree = str(dispatch.payload["worktree_path"])
    head = git("rev-parse", "HEAD", cwd=worktree).strip()
    assert (dispatch.state, result["status"], result["result_commit"]) == (
        "result-received",
        "completed",
        head,
    )
    assert git("show", "--format=", "--name-only", head, cwd=worktree).split() == ["AGENT.md"]
    assert git("status", "--porcelain", cwd=worktree) == ""
    assert (worker.state, worker.payload["end_reason"]) == ("done", "result-recorded")
    blocks = [access.integer(v.payload, "stop_blocks") for v in history]
    assert max(blocks) >= 1  # the Stop gate blocked before the result ...
    assert blocks[-1] == 0  # ... and let the agent stop after it
    return head


def use_codex_goal(chain: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker role is a Codex `/goal` worker against `mock`, with a Codex home of its own and
    no login (the role's endpoint needs none)."""
    codex_home = chain.base / "user-codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    _use(chain, "oms.goal-long-executor", "gpt-6.2-sol", "codex_goal", mock.base + "/v1", [])


def codex_goal_turn() -> Script:
    """The scripted Codex turn: read and acknowledge, an early stop (the gate blocks it), a tool
    outside the allow-list (PreToolUse denies it), the change, the result, the goal's end."""
    return Script(
        [
            Call("read_dispatch", {}),
            Call("acknowledge_dispatch", {}),
            Say(EARLY),
            Call("spawn_agent", {"message": "help me", "agent_type": "worker"}),
            Call("exec_command", {"cmd": CHANGE}),
            Call("record_dispatch_result", {"status": "completed", "summary": "Added AGENT.md."}),
            Call("update_goal", {"status": "complete"}),
            Say("Done: the dispatch has its result."),
        ]
    )


def test_codex_goal_worker_end_to_end(
    deliverable: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_codex_goal(deliverable, mock, monkeypatch)
    mock.script = codex_goal_turn()
    dispatch_id, session_id = _deliver(deliverable)
    _wait_for_result(deliverable, dispatch_id, mock)
    _check_result(deliverable, dispatch_id, session_id)
    texts = "\n".join(s.text for s in mock.seen)
    results = [r for s in mock.seen for r in s.results]
    assert CONTEXT in texts  # SessionStart's additionalContext reached the model
    assert STOP_REASON in texts  # the Stop gate blocked the early stop
    denied = [text for name, text in results if name == "spawn_agent"]
    assert denied
    assert "not allowed" in denied[0]  # PreToolUse denied a tool outside the allow-list
    print(_pane_text(deliverable, dispatch_id))
    _stop_and_check_nothing_left(deliverable, dispatch_id)


# Claude's Bash tool inside the sandbox: the change lands, a commit is refused (git metadata is
# read-only), and a process detached with setsid (Claude runs every command in a new session)
# starts; `oms worker stop` must end it with the sandbox's PID namespace.
CHANGE_AND_DETACH = (
    "printf 'fixed by an agent\\n' > AGENT.md && "
    "{ git add AGENT.md 2>/dev/null && echo COMMIT-ALLOWED || echo COMMIT-REFUSED; } && "
    "{ setsid nohup sleep 4242 > /dev/null 2>&1 & } && echo DETACHED"
)


def test_claude_interactive_worker_end_to_end(
    deliverable: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_claude(deliverable, mock, monkeypatch)
    mock.script = claude_turn()
    dispatch_id, session_id = _deliver(deliverable)
    _wait_for_result(deliverable, dispatch_id, mock)
    head = _check_result(deliverable, dispatch_id, session_id)
    worktree = deliverable.base / "oms-worktrees" / "tkt-1"
    assert (
        git("log", "-1", "--format=%an", head, cwd=worktree).strip() == "oms worker"
    )  # oms committed it
    bash = [text for name, text in (r for s in mock.seen for r in s.results) if name == "Bash"]
    assert bash
    assert "COMMIT-REFUSED" in bash[0]
    assert "DETACHED" in bash[0]
    assert any(
        b"sleep\x004242" in Path(f"/proc/{pid}/cmdline").read_bytes()
        for pid in _processes_of(dispatch_id)
    )
    texts = "\n".join(s.text for s in mock.seen)
    results = [r for s in mock.seen for r in s.results]
    assert CONTEXT in texts  # SessionStart's additionalContext reached the model
    assert STOP_REASON in texts  # the Stop gate blocked the early stop
    denied = [text for name, text in results if name == "WebFetch"]
    assert denied
    assert "not allowed" in denied[0]  # PreToolUse denied a tool outside the allow-list
    print(_pane_text(deliverable, dispatch_id))
    _stop_and_check_nothing_left(deliverable, dispatch_id)


def _codex_advisor(chain: Chain, endpoint: str) -> None:
    """The advisor role on `codex exec` (the default transport), talking to the mock."""

    def change(text: str) -> str:
        head, marker, tail = text.partition('[roles."oms.exec-advisor"]')
        end = tail.find("\n[")
        rest = "" if end < 0 else tail[end:]
        section = (
            f'\nmodel = "test-model"\nendpoint = "{endpoint}"\n'
            f'transport = "codex_exec"\nsandbox = "read-only"\n'
        )
        return head + marker + section + rest

    chain.edit_config(change, commit=True)


def test_advisor_review_through_real_codex_exec(
    chain: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_home = chain.base / "user-codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))

    def verdict(text: str) -> str:
        digest = re.findall(r'"dispatch_intent_sha256":"([0-9a-f]{64})"', text)[-1]
        return json.dumps(
            {
                "verdict": "approve",
                "rationale": "A small, safe change.",
                "dispatch_intent_sha256": digest,
            }
        )

    mock.script = Script([], final_text=verdict)
    _codex_advisor(chain, mock.base + "/v1")
    _, _, dispatch_id = chain.proposed()
    with chain.workspace() as ws:
        reviewed, _ = dispatches.review(ws, dispatch_id)
        evidence = ws.store.evidence.get(access.text(reviewed.payload, "advisor_evidence"))
    assert reviewed.payload["advisor_verdict"] == "approve"
    assert evidence.body["producer_role"] == "oms.exec-advisor"
    assert access.obj(access.obj(evidence.body, "payload"), "provenance")["exit_code"] == 0
    assert len(mock.seen) == 1  # one review, one model request, through real `codex exec`
    assert mock.seen[0].path == "/v1/responses"
    assert "You are the oms advisor" in mock.seen[0].text
    with chain.workspace() as ws:
        _, event_id = dispatches.accept(ws, dispatch_id)
    assert event_id
