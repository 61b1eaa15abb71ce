"""The CSRF proof of another `oms web` (held: SECURITY.md "The board in a browser"). Two boards on
one machine share the browser's cookies for 127.0.0.1 (cookies ignore the port), so a page of
board B sends B's cookie to board A too; B's token, in the header or the cookie, or under A's
cookie name, is still no proof for A: each server's CSRF token is an HMAC under its own secret."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator

import pytest

from oms.services.web import server
from tests.chain import Chain

NOBODY = "dsp-" + "0" * 32


@pytest.fixture
def other(chain: Chain) -> Iterator[server.Board]:
    served = server.serve(0, chain.workspace, person="Bo")
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.shutdown()
        served.server_close()
        thread.join()


def _cancel(board: server.Board, header: str, cookie: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", board.port, timeout=60)
    conn.request(
        "POST",
        f"/api/act?t={board.token}",
        body=json.dumps({"action": "cancel", "id": NOBODY, "text": ""}),
        headers={
            "Host": f"127.0.0.1:{board.port}",
            "Origin": f"http://127.0.0.1:{board.port}",
            "Content-Type": "application/json",
            server.CSRF_HEADER: header,
            "Cookie": cookie,
        },
    )
    status = conn.getresponse().status
    conn.close()
    return status


def test_another_boards_csrf_token_is_no_proof(board: server.Board, other: server.Board) -> None:
    both = f"{other.cookie}={other.csrf}; {board.cookie}={board.csrf}"
    assert board.csrf != other.csrf
    assert _cancel(board, board.csrf, both) == 404  # its own proof, beside the other's cookie
    assert _cancel(board, other.csrf, both) == 403
    assert _cancel(board, other.csrf, f"{board.cookie}={other.csrf}") == 403
    assert _cancel(board, board.csrf, f"{other.cookie}={board.csrf}") == 403
