"""Issue 11, "act, then validate": `oms worker park` with a past `--until` pressed Escape (and C-u)
into the pane before it refused the time, so a refused park still interrupted the agent's turn.
Fixed (the time is validated first) without a test; this one fails on the old order: a real Claude
Code turn is held in flight by the loopback model mock, the park is refused in one line, and the
turn goes on to its result."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.chain import Chain
from tests.e2e.test_real_agents import (
    CHANGE,
    _deliver,
    _pane_text,
    _stop_and_check_nothing_left,
    _wait_for_result,
    use_claude,
)
from tests.helpers import OmsCommand, eventually, scaled
from tests.model_mock import Call, Hold, ModelMock, Script


@pytest.fixture
def mock() -> Iterator[ModelMock]:
    server = ModelMock(Script([])).start()
    yield server
    server.stop()


def test_park_with_a_past_until_leaves_a_running_turn_alone(
    deliverable: Chain, mock: ModelMock, oms: OmsCommand, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Failing first: park pressed Escape (and C-u) into the pane before it refused the --until."""
    use_claude(deliverable, mock, monkeypatch)
    mock.script = Script(
        [
            Hold(Call("read_dispatch", {})),
            Call("acknowledge_dispatch", {}),
            Call("Bash", {"command": CHANGE, "description": "write the fix"}),
            Call("record_dispatch_result", {"status": "completed", "summary": "Added AGENT.md."}),
        ]
    )
    dispatch_id, _ = _deliver(deliverable)
    assert mock.holding.wait(scaled(60))
    eventually(  # the plan's busy mark: a turn runs
        lambda: "esc to interrupt" in _pane_text(deliverable, dispatch_id) or None,
        timeout=20,
        what="the pane shows a turn running",
    )
    with deliverable.workspace() as ws:
        past = ws.now()
    done = oms.run(
        "worker", "park", dispatch_id, "--until", past,
        "--state-root", str(deliverable.state), "--config-root", str(deliverable.repo),
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.splitlines()[0].startswith("oms: error: parked-until ")
    assert len(done.stderr.splitlines()) <= 2
    time.sleep(1)  # what a keypress would do, Claude does at once
    assert "Interrupted" not in _pane_text(deliverable, dispatch_id)
    mock.release.set()
    view = _wait_for_result(
        deliverable, dispatch_id, mock
    )  # the held turn went on: read, acknowledge, change, result
    assert (view["session_state"], view["worker_health"]) == (
        "running",
        "healthy",
    )  # the refused park wrote nothing
    _stop_and_check_nothing_left(deliverable, dispatch_id)
