"""A refusal of `oms web` says what to do (ADR 0007: one line, with its fix; SECURITY.md "The board
in a browser")."""

from __future__ import annotations

import http.client
import json

from oms.services.web import server

NOBODY = "dsp-" + "0" * 32


def test_a_refused_action_says_what_to_do(board: server.Board) -> None:
    """The fix a refusal names reaches the page (ADR 0007: one line, with what to do): before,
    the board sent the error class's default hint, empty for most, never the refusal's own — a
    merge refused while another command held the ticket's finishing lock said nothing of
    retrying."""
    conn = http.client.HTTPConnection("127.0.0.1", board.port, timeout=60)
    conn.request(
        "POST",
        f"/api/act?t={board.token}",
        body=json.dumps({"action": "rebase", "id": NOBODY, "text": ""}),
        headers={
            "Host": f"127.0.0.1:{board.port}",
            "Origin": f"http://127.0.0.1:{board.port}",
            "Content-Type": "application/json",
            server.CSRF_HEADER: board.csrf,
            "Cookie": f"{board.cookie}={board.csrf}",
        },
    )
    answer = conn.getresponse()
    doc = json.loads(answer.read())
    conn.close()
    assert answer.status == 400
    assert doc["hint"] == "the board sends one of its own buttons' actions"
