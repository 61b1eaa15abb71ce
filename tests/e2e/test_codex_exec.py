"""The real Codex CLI as a `codex_exec` worker (`codex exec`, one-shot), the loopback model mock as
its role's endpoint: delivered with nothing typed (the instructions are its prompt), its hooks and
bridge the same as a `codex_goal` worker's — the Stop gate holds its early stop, its result is
recorded — and once let stop it exits by itself: its pane ends, no process of it is left."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from oms.adapters.sandbox import HOME_VIEW
from oms.canonical import add_ms, parse_ts
from oms.domain.gate import NO_RESULT
from oms.errors import InvalidInputError
from oms.limits import LIMITS
from oms.services.delivery.reconcile import reconcile
from oms.services.delivery.service import Delivery
from oms.services.workspace.instructions import executor_instructions
from oms.store.payloads import session_payload
from tests.chain import Chain
from tests.e2e.test_real_agents import (
    CHANGE,
    EARLY,
    _check_result,
    _deliver,
    _pane_text,
    _processes_of,
    _use,
    _wait_for_result,
)
from tests.helpers import eventually, git
from tests.model_mock import Call, Hold, ModelMock, Say, Script

ROLE = "oms.goal-long-executor"  # the scaffold's Codex role, its transport changed to codex_exec
# its private home is writable in oms's sandbox but no workspace root of Codex's: refused only if
# Codex's own sandbox (`sandbox_mode`) is around its commands (test_codex_inner_sandbox.py)
HOME_PROBE = f"touch {HOME_VIEW}/oms-probe 2>/dev/null && echo home-WRITABLE || echo home-refused"


@pytest.fixture
def mock() -> Iterator[ModelMock]:
    server = ModelMock(Script([])).start()
    yield server
    server.stop()


def _codex_exec(deliverable: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scaffold's Codex role as a `codex_exec` worker, the model mock its endpoint, a Codex
    home of the test's own (no login: the role endpoint needs none)."""
    codex_home = deliverable.base / "user-codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    deliverable.edit_config(
        lambda s: s.replace('transport = "codex_goal"', 'transport = "codex_exec"')
    )
    _use(deliverable, ROLE, "gpt-6.2-sol", "codex_exec", mock.base + "/v1", [])


def test_codex_exec_worker_end_to_end(
    deliverable: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    _codex_exec(deliverable, mock, monkeypatch)
    mock.script = Script(
        [
            Call("read_dispatch", {}),
            Call("acknowledge_dispatch", {}),
            Say(EARLY),  # held by the Stop gate: `codex exec` goes on
            Call("exec_command", {"cmd": HOME_PROBE}),
            Call("exec_command", {"cmd": CHANGE}),
            Call("record_dispatch_result", {"status": "completed", "summary": "Added AGENT.md."}),
            Say("Done: the dispatch has its result."),
        ]
    )
    dispatch_id, session_id = _deliver(deliverable)
    with deliverable.workspace() as ws:  # a person's message and park: refused, its run goes on
        delivery = Delivery.open(ws)
        with pytest.raises(InvalidInputError, match="reads nothing from its terminal"):
            delivery.send(dispatch_id, "the tests live in tests/unit", person="e2e")
        with pytest.raises(InvalidInputError, match="cannot pause"):
            delivery.park(dispatch_id, "a person's park", "2099-01-01T00:00:00.000Z", person=True)
    _wait_for_result(deliverable, dispatch_id, mock, timeout=90.0)
    _check_result(deliverable, dispatch_id, session_id)
    with deliverable.workspace() as ws:
        instructions = executor_instructions(ws)
    assert instructions in mock.seen[0].text  # its prompt, from its command line: nothing typed
    probed = [text for s in mock.seen for name, text in s.results if "home-" in text]
    assert probed
    assert "home-refused" in probed[0]  # Codex's own sandbox holds inside oms's

    def ended() -> bool:
        with deliverable.workspace() as ws:
            view = Delivery.open(ws).observe(dispatch_id)
        return view["pane_live"] is False and not _processes_of(dispatch_id)

    eventually(
        ended,
        timeout=30,
        what=f"codex exec exits by itself:\n{_pane_text(deliverable, dispatch_id)}",
    )
    with deliverable.workspace() as ws:
        Delivery.open(ws).stop(dispatch_id, "e2e over")


def test_a_codex_exec_run_that_ends_without_a_result_waits_for_a_person(
    deliverable: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model that only ever talks: the Stop gate holds it `Limits.stop_blocks` times, then lets it
    stop, and `codex exec` exits with no result. A run that exited takes no turn of its own again
    (its provider's `stop_is_final`), so the Stop the gate lets through parks the worker
    `no_result` at once, as Claude Code's (ADR 0045 amendment `ends`): a person looks, and no
    clock resumes it (`conductor.due_resume`); its pane's end keeps that park. Once due, a
    person's resume relaunches the run on its own thread, which then records its result."""
    _codex_exec(deliverable, mock, monkeypatch)
    mock.script = Script(
        [Call("read_dispatch", {}), Call("acknowledge_dispatch", {})],
        final_text=lambda _text: EARLY,  # and then only words, never a result
    )
    dispatch_id, session_id = _deliver(deliverable)

    def parked() -> dict[str, Any] | None:
        with deliverable.workspace() as ws:
            view = dict(Delivery.open(ws).observe(dispatch_id))
        # (its pane's end is recorded once the supervisor wrote it: after the pane is seen dead)
        gone = view["pane_live"] is False and not _processes_of(dispatch_id)
        return view if gone and view["worker_health"] != "healthy" else None

    view = eventually(
        parked,
        timeout=90,
        what=f"codex exec exits without a result:\n{_pane_text(deliverable, dispatch_id)}",
    )
    assert view["dispatch_state"] == "acknowledged", view
    assert view["agent_stopped_at"] is not None  # let stop by the gate ...
    with deliverable.workspace() as ws:
        history = ws.store.records("session").history(session_id)
    # ... after its cap: `stop_blocks` blocks, and the Stop past them, which it let through
    assert max(session_payload(v)["stop_blocks"] for v in history) == LIMITS.stop_blocks + 1
    assert (view["worker_health"], view["health_reason"]) == ("parked", NO_RESULT), view
    assert view["session_state"] == "parked", view
    # a person looked and resumes it once due: the run is relaunched on its own thread (`codex
    # exec resume`), told to continue on its command line, and this time records its result
    with deliverable.workspace() as ws:
        session = ws.store.records("session").read(session_id)
        native = session.payload["native_session_ref"]
    mock.script = Script(
        [
            Call("read_dispatch", {}),
            Call("acknowledge_dispatch", {}),
            Call("exec_command", {"cmd": CHANGE}),
            Call("record_dispatch_result", {"status": "completed", "summary": "Added AGENT.md."}),
        ],
        by_results=True,  # the resumed thread carries the two results of its first run
    )
    before = len(mock.seen)
    with deliverable.workspace() as ws:
        with pytest.raises(InvalidInputError, match="not due"):
            Delivery.open(ws).resume(dispatch_id)  # no clock resumes it before its time
    deliverable.clock.ms = (
        parse_ts(session.payload["parked_until"]) - parse_ts(deliverable.clock.base) + 1
    )
    with deliverable.workspace() as ws:
        resumed = Delivery.open(ws).resume(dispatch_id)
    assert (resumed["resumed"], resumed["worker_health"]) == ("native", "healthy"), resumed
    _wait_for_result(deliverable, dispatch_id, mock, timeout=90.0)
    _check_result(deliverable, dispatch_id, session_id)
    assert len(mock.seen) > before
    with deliverable.workspace() as ws:  # the same thread, continued
        assert ws.store.records("session").read(session_id).payload["native_session_ref"] == native
    eventually(
        lambda: not _processes_of(dispatch_id), timeout=30, what="codex exec exits by itself"
    )
    with deliverable.workspace() as ws:
        Delivery.open(ws).stop(dispatch_id, "e2e over")


def test_oms_s_own_park_of_a_codex_exec_run_ends_it_and_its_resume_continues_its_thread(
    deliverable: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`codex exec` cannot pause. oms's own park of it (a quota's rest, a pool's drain; not a
    person's, which is refused) parks it first, then ends its run — pane, sandbox, proxy token —
    so no model request is made while the records say parked (ADR 0045 amendment `halt`). Its
    pane's end keeps the park under a conductor's reconcile too, and once due its resume
    relaunches it on its own thread, which records the result."""
    _codex_exec(deliverable, mock, monkeypatch)
    mock.script = Script(
        [
            Call("read_dispatch", {}),
            Call("acknowledge_dispatch", {}),
            Hold(Call("exec_command", {"cmd": CHANGE})),  # its turn waits on the model
            Call("record_dispatch_result", {"status": "completed", "summary": "Added AGENT.md."}),
        ],
        by_results=True,
    )
    dispatch_id, session_id = _deliver(deliverable)
    assert mock.holding.wait(90), _pane_text(deliverable, dispatch_id)
    with deliverable.workspace() as ws:
        until = add_ms(ws.now(), 60_000)
        parked = Delivery.open(ws).park(dispatch_id, "quota: provider p rests", until)
    assert parked["parked"] == "halted", parked
    assert not _processes_of(dispatch_id)  # nothing of the run is left: it asks no model
    seen = len(mock.seen)
    mock.release.set()  # the held answer goes to no one
    with deliverable.workspace() as ws:
        d = Delivery.open(ws)
        reconcile(d, dispatch_id)  # as a conductor's tick does: the end keeps the park
        view = d.observe(dispatch_id)
        session = ws.store.records("session").read(session_id)
    assert (view["worker_health"], view["session_state"], view["pane_live"]) == (
        "parked",
        "parked",
        False,
    ), view
    assert len(mock.seen) == seen
    deliverable.clock.ms = (
        parse_ts(session.payload["parked_until"]) - parse_ts(deliverable.clock.base) + 1
    )
    with deliverable.workspace() as ws:
        resumed = Delivery.open(ws).resume(dispatch_id)
    assert (resumed["resumed"], resumed["worker_health"]) == ("native", "healthy"), resumed
    _wait_for_result(deliverable, dispatch_id, mock, timeout=90.0)
    with deliverable.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(dispatch_id)
        worker = ws.store.records("worker").read(dispatch_id)
    worktree = str(dispatch.payload["worktree_path"])
    assert dispatch.state == "result-received"
    assert git("show", "--format=", "--name-only", "HEAD", cwd=worktree).split() == ["AGENT.md"]
    assert (worker.state, worker.payload["end_reason"]) == ("done", "result-recorded")
    eventually(
        lambda: not _processes_of(dispatch_id), timeout=30, what="codex exec exits by itself"
    )
    with deliverable.workspace() as ws:
        Delivery.open(ws).stop(dispatch_id, "e2e over")
