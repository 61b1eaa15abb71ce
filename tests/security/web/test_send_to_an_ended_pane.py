"""`send` from the board to a worker whose pane ended (held: SECURITY.md "The board in a
browser"): the page offered it while the pane lived; the POST, after the tmux server ended, is
refused in one line with a status, and no message is recorded as said."""

from __future__ import annotations

import http.client
import json
import subprocess
import threading

from oms.services.web import server
from tests.chain import Chain
from tests.integration.test_worker_send import _listening, _messages


def test_send_to_a_worker_whose_pane_ended_is_refused_and_records_nothing(
    deliverable: Chain,
) -> None:
    dispatch_id = _listening(deliverable)
    subprocess.run(
        ["tmux", "-S", str(deliverable.state / "tmux.sock"), "kill-server"],
        check=True,
        capture_output=True,
    )
    board = server.serve(0, deliverable.workspace, person="Zoë Reviewer")
    thread = threading.Thread(target=board.serve_forever, daemon=True)
    thread.start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", board.port, timeout=120)
        conn.request(
            "POST",
            f"/api/act?t={board.token}",
            body=json.dumps({"action": "send", "id": dispatch_id, "text": "still there?"}),
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
    finally:
        board.shutdown()
        board.server_close()
        thread.join()
    assert answer.status in (400, 409), doc
    assert doc["ok"] is False
    assert "\n" not in doc["error"]
    assert _messages(deliverable) == []
