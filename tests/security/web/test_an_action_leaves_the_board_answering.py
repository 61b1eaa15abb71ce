"""An action from the board leaves the board answering while it runs (ADR 0041, amended by branch
`fix27` for a verify; SECURITY.md "The board in a browser"). Every action but verify ran in its
POST's thread holding the board's one-reader lock: a message to a worker waits up to twice
`activation_confirm_s` for the agent to show it took it, a stop up to its grace and its group's end
— for all that time `/api/board`, every view and the live stream waited, the person's page frozen
by their own click (or by any other person's send on the same board). Now an action runs with a
workspace of its own, as a verify does, and the board's reads go on."""

from __future__ import annotations

import http.client
import json
import threading

import pytest

from oms.adapters.activation import Tui, Witness
from oms.adapters.providers.base import LaunchPlan
from oms.services.web import server
from tests.chain import Chain
from tests.integration.test_worker_send import _heard, _listening, _until


def _post(board: server.Board, doc: dict[str, str]) -> tuple[int, dict[str, object]]:
    conn = http.client.HTTPConnection("127.0.0.1", board.port, timeout=60)
    conn.request(
        "POST",
        f"/api/act?t={board.token}",
        body=json.dumps(doc),
        headers={
            "Host": f"127.0.0.1:{board.port}",
            "Origin": f"http://127.0.0.1:{board.port}",
            "Content-Type": "application/json",
            server.CSRF_HEADER: board.csrf,
            "Cookie": f"{board.cookie}={board.csrf}",
        },
    )
    answer = conn.getresponse()
    data = json.loads(answer.read())
    conn.close()
    return answer.status, data


def test_the_board_answers_while_a_message_is_typed(
    deliverable: Chain, board: server.Board, monkeypatch: pytest.MonkeyPatch
) -> None:
    dispatch_id = _listening(deliverable)
    typing, go_on = threading.Event(), threading.Event()
    say = Tui.say

    def held(self: Tui, plan: LaunchPlan, dispatch: str, text: str, witness: Witness) -> str:
        typing.set()  # the agent takes its time to show it took the message
        assert go_on.wait(60)
        return say(self, plan, dispatch, text, witness)

    monkeypatch.setattr(Tui, "say", held)
    sent: list[tuple[int, dict[str, object]]] = []
    sender = threading.Thread(
        target=lambda: sent.append(
            _post(board, {"action": "send", "id": dispatch_id, "text": "hi"})
        )
    )
    sender.start()
    try:
        assert typing.wait(60)
        conn = http.client.HTTPConnection("127.0.0.1", board.port, timeout=5)
        try:  # before: no answer until the message was typed
            conn.request(
                "GET", f"/api/board?t={board.token}", headers={"Host": f"127.0.0.1:{board.port}"}
            )
            answer = conn.getresponse()
            assert answer.status == 200
            assert json.loads(answer.read())["ok"] is True
        finally:
            conn.close()
    finally:
        go_on.set()
        sender.join(60)
    assert [status for status, _ in sent] == [200]
    assert _until(_heard(deliverable, dispatch_id), b"\r") == b"hi\r"
