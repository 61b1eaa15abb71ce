"""What a page sends as an action's words is checked as the command checks them (held: SECURITY.md
"The board in a browser"): a body that is not UTF-8 is 400, one over `LIMITS.web_post_bytes` is
413, a comment with a terminal escape or a bidi override is refused as `--comment` refuses it, and
nothing is recorded — each in one line."""

from __future__ import annotations

import http.client
import json

import pytest

from oms.limits import LIMITS
from oms.services.web import server

NOBODY = "dsp-" + "0" * 32


def _post(board: server.Board, body: bytes) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", board.port, timeout=60)
    conn.request(
        "POST",
        f"/api/act?t={board.token}",
        body=body,
        headers={
            "Host": f"127.0.0.1:{board.port}",
            "Origin": f"http://127.0.0.1:{board.port}",
            "Content-Type": "application/json",
            server.CSRF_HEADER: board.csrf,
            "Cookie": f"{board.cookie}={board.csrf}",
        },
    )
    answer = conn.getresponse()
    text = answer.read().decode()
    conn.close()
    return answer.status, text


def test_a_body_not_utf8_is_400(board: server.Board) -> None:
    code, text = _post(
        board, b'{"action": "send", "id": "' + NOBODY.encode() + b'", "text": "\xff"}'
    )
    assert code == 400, text


def test_a_body_over_the_bound_is_413(board: server.Board) -> None:
    words = "x" * LIMITS.web_post_bytes
    body = json.dumps({"action": "send", "id": NOBODY, "text": words}).encode()
    assert _post(board, body)[0] == 413


@pytest.mark.parametrize("words", ["a\x1b]52;c;cHduZWQ=\x07b", "a\u202eb", "a\ud800b", "x" * 4000])
def test_a_hostile_comment_is_refused_in_one_line(board: server.Board, words: str) -> None:
    body = json.dumps({"action": "request-changes", "id": NOBODY, "text": words}).encode()
    code, text = _post(board, body)
    assert code == 400, text
    doc = json.loads(text)
    assert doc["ok"] is False
    assert "\n" not in doc["error"]
    assert len(doc["error"]) < 400
