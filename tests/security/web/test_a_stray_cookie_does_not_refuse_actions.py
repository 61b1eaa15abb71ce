"""A cookie another page on 127.0.0.1 set does not refuse the board's actions (SECURITY.md "The
board in a browser").

Cookies ignore the port: any server on 127.0.0.1 (any local user's) can set a cookie the browser
then sends to `oms web` too, before the board's own (an older cookie comes first). Python's
`SimpleCookie` stops at the first value it cannot parse (a space, a quote, a backslash — all of
which browsers store) and keeps nothing: before the fix the board's CSRF cookie was never seen and
every action was refused (403), for as long as the stray cookie lived — reloading the page did not
help. The cookie header is now split by hand, and the board's cookie found wherever it is."""

from __future__ import annotations

import http.client
import json

import pytest

from oms.services.web import server

NOBODY = "dsp-" + "0" * 32  # a whole dispatch id no dispatch has: past the CSRF check, a 404
STRAY = ['a="b', "a=1 2", "a=b\\c", "a{b=c", "a=\x7f"]


def _cancel(board: server.Board, cookie: str) -> int:
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
            "Cookie": cookie,
        },
    )
    status = conn.getresponse().status
    conn.close()
    return status


@pytest.mark.parametrize("stray", STRAY)
def test_a_stray_cookie_before_the_boards_own_does_not_refuse_an_action(
    board: server.Board, stray: str
) -> None:
    assert _cancel(board, f"{board.cookie}={board.csrf}") == 404  # the CSRF proof holds
    assert _cancel(board, f"{stray}; {board.cookie}={board.csrf}") == 404


def test_a_stray_cookie_is_still_no_proof(board: server.Board) -> None:
    assert _cancel(board, 'a="b; x=1') == 403
    assert _cancel(board, f'{board.cookie}="{board.csrf}') == 403
    assert _cancel(board, f"{board.cookie}=0; other={board.csrf}") == 403
