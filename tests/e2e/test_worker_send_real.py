"""`oms worker send` into the real Claude Code and the real Codex (ADR 0036), against the loopback
model mock (tests/model_mock.py): the agent's turn is held in flight, a person's two-line message
with escape sequences in it is sent through the CLI, and the model's next requests carry it — both
lines in one message, the escape bytes gone — as the person's turn."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.chain import Chain
from tests.e2e.test_real_agents import _deliver, _pane_text, _stop_and_check_nothing_left, _use
from tests.helpers import OmsCommand, eventually
from tests.model_mock import Call, Hold, ModelMock, Script

MESSAGE = "Please also add a changelog line.\nSecond line: \x1b[31mplain\x1b[0m text\x07"
TYPED = "Please also add a changelog line.\nSecond line: [31mplain[0m text"


@pytest.fixture
def mock() -> Iterator[ModelMock]:
    server = ModelMock(Script([])).start()
    yield server
    server.stop()


def _sent_and_heard(chain: Chain, mock: ModelMock, oms: OmsCommand, dispatch_id: str) -> str:
    """Send MESSAGE while the agent's turn is held, release it; the request that carried it."""
    assert mock.holding.wait(90), _pane_text(chain, dispatch_id)
    before = len(mock.bodies)
    done = oms.run(
        "worker", "send", dispatch_id, MESSAGE, "--person", "Ada", "--json",
        "--state-root", str(chain.state), "--config-root", str(chain.repo),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    view = json.loads(done.stdout)
    mock.release.set()
    needle = json.dumps(TYPED)[1:-1]  # as a JSON string carries it: one message, both lines

    def heard() -> str | None:
        return next(
            (t for b in mock.bodies[before:] if needle in (t := b.decode("utf-8", "replace"))), None
        )

    try:
        text = eventually(heard, timeout=60, what=f"the model seeing the message ({view})")
    except AssertionError as missed:  # say what the agent was doing, and what the model last saw
        later = mock.bodies[before:]
        tail = later[-1].decode("utf-8", "replace")[-800:] if later else ""
        raise AssertionError(
            f"{missed}\n{len(later)} request(s) since the send; the last ends: {tail}\n"
            f"pane:\n{_pane_text(chain, dispatch_id)}"
        ) from None
    assert "\\u001b" not in text  # no escape byte reached the agent
    return str(view["typed"])


def test_claude_code_takes_a_sent_message_as_the_persons_turn(
    deliverable: Chain, mock: ModelMock, oms: OmsCommand, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = deliverable.base / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # Claude Code keeps caches under $HOME
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-e2e-test-key-0123456789abcdef")
    _use(deliverable, "oms.ticket-executor", "sonnet", "claude_interactive", mock.base, [])
    mock.script = Script(
        [
            Call("read_dispatch", {}),
            Call("acknowledge_dispatch", {}),
            Hold(Call("Bash", {"command": "true", "description": "look around"})),
        ],
        final_text=lambda _t: "Noted.",
    )
    dispatch_id, _ = _deliver(deliverable)
    typed = _sent_and_heard(deliverable, mock, oms, dispatch_id)
    print(f"typed: {typed}\n{_pane_text(deliverable, dispatch_id)}")
    turns = [json.loads(b) for b in mock.bodies if b.lstrip().startswith(b"{")]
    first = next(t for t in turns if t.get("tools"))  # the agent's first turn (not a side call)
    offered = [str(tool.get("name")) for tool in first["tools"]]
    assert "mcp__oms_worker__read_dispatch" in offered, offered  # typed once it had oms's tools
    _stop_and_check_nothing_left(deliverable, dispatch_id)


def test_codex_takes_a_sent_message_as_the_persons_turn(
    deliverable: Chain, mock: ModelMock, oms: OmsCommand, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_home = deliverable.base / "user-codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))  # no login: the role endpoint needs none
    _use(deliverable, "oms.goal-long-executor", "gpt-6.2-sol", "codex_goal", mock.base + "/v1", [])
    mock.script = Script(
        [
            Call("read_dispatch", {}),
            Call("acknowledge_dispatch", {}),
            Hold(Call("exec_command", {"cmd": "true"})),
        ],
        final_text=lambda _t: "Noted.",
    )
    dispatch_id, _ = _deliver(deliverable)
    typed = _sent_and_heard(deliverable, mock, oms, dispatch_id)
    print(f"typed: {typed}\n{_pane_text(deliverable, dispatch_id)}")
    _stop_and_check_nothing_left(deliverable, dispatch_id)
