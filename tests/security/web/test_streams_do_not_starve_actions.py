"""Live streams held open do not starve the board's actions (held: SECURITY.md "The board in a
browser"): with every stream `LIMITS.web_streams` allows open and reading, an action is still
answered — streams are bounded below the connections (`LIMITS.web_connections`) and share one
watcher, never holding the state while they wait."""

from __future__ import annotations

import http.client
import json

from oms.limits import LIMITS
from oms.services.web import server

NOBODY = "dsp-" + "0" * 32


def _stream(board: server.Board) -> http.client.HTTPConnection:
    conn = http.client.HTTPConnection("127.0.0.1", board.port, timeout=60)
    conn.request("GET", f"/api/events?t={board.token}", headers={"Host": f"127.0.0.1:{board.port}"})
    answer = conn.getresponse()
    assert answer.status == 200
    assert answer.fp is not None
    assert answer.fp.readline().startswith(b"data: ")  # the board, now
    return conn


def test_every_stream_open_and_an_action_is_still_answered(board: server.Board) -> None:
    assert LIMITS.web_streams < LIMITS.web_connections
    streams = [_stream(board) for _ in range(LIMITS.web_streams)]
    try:
        conn = http.client.HTTPConnection("127.0.0.1", board.port, timeout=60)
        conn.request(
            "POST",
            f"/api/act?t={board.token}",
            body=json.dumps({"action": "cancel", "id": NOBODY, "text": ""}),
            headers={
                "Host": f"127.0.0.1:{board.port}",
                "Origin": f"http://127.0.0.1:{board.port}",
                "Content-Type": "application/json",
                server.CSRF_HEADER: board.csrf,
                "Cookie": f"{board.cookie}={board.csrf}",
            },
        )
        answer = conn.getresponse()
        assert answer.status == 404, answer.read()  # answered: past every check, no such dispatch
        conn.close()
    finally:
        for s in streams:
            s.close()
