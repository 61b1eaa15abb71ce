"""`oms web` over HTTP (ADR 0041): 127.0.0.1 only; no token, a wrong one, another Host (DNS
rebinding) or a foreign Origin is refused with 403; answers carry a strict CSP and
X-Frame-Options; only an action writes (a POST with its CSRF proof); the board shows what `oms
status` shows."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import pytest

from oms.errors import EtcdUnavailableError, UsageError
from oms.services.web import server
from oms.services.workspace import Workspace
from tests.chain import Chain
from tests.helpers import oms_command

TITLE = "Fix the <b>login</b> page"


@pytest.fixture
def board(chain: Chain) -> Iterator[server.Board]:
    run = oms_command().run
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    assert run("ticket", "add", "--title", TITLE, "--no-body", *roots).returncode == 0

    served = server.serve(0, _opener(chain))
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    yield served
    served.shutdown()
    served.server_close()
    thread.join()


def _opener(
    chain: Chain, before: Callable[[], None] = lambda: None
) -> Callable[[], AbstractContextManager[Workspace]]:
    """The chain's workspace opened per use, as `oms web` opens one; `before` runs first each
    time (a test counts the openings, or makes one fail)."""

    @contextmanager
    def opener() -> Iterator[Workspace]:
        before()
        ws = Workspace.open(str(chain.state), str(chain.repo))
        try:
            yield ws
        finally:
            ws.close()

    return opener


def get(
    b: server.Board, path: str, headers: dict[str, str] | None = None, method: str = "GET"
) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", b.port, timeout=30)
    conn.request(method, path, headers={"Host": f"127.0.0.1:{b.port}", **(headers or {})})
    return conn.getresponse()


def test_the_page_and_the_board_with_the_token(board: server.Board) -> None:
    page = get(board, f"/?t={board.token}")
    assert page.status == 200
    html = page.read()
    assert f"app.js?t={board.token}".encode() in html
    assert b"<script>" not in html  # no inline script: the CSP allows none
    csp = page.getheader("Content-Security-Policy") or ""
    assert "script-src 'self'" in csp
    assert "default-src 'none'" in csp
    assert "frame-ancestors 'none'" in csp
    assert page.getheader("X-Frame-Options") == "DENY"
    assert get(board, f"/app.js?t={board.token}").status == 200
    doc = json.loads(get(board, f"/api/board?t={board.token}").read())
    assert [t["title"] for t in doc["queue"]] == [TITLE]
    assert doc["queue"][0]["state"] == "open"
    audit = json.loads(get(board, f"/api/audit?t={board.token}").read())
    assert any("ticket" in e["what"] for e in audit["entries"])


@pytest.mark.parametrize(
    ("path", "headers", "why"),
    [
        ("/?", {}, "no or wrong token"),
        ("/api/board?", {}, "no or wrong token"),
        ("/app.js?t=wrong", {}, "no or wrong token"),
        ("/api/board?t=TOKEN", {"Host": "evil.example:PORT"}, "wrong Host"),
        ("/api/board?t=TOKEN", {"Host": "127.0.0.1"}, "wrong Host"),
        ("/api/board?t=TOKEN", {"Origin": "http://evil.example"}, "foreign Origin"),
        ("/api/board?t=TOKEN", {"Origin": "null"}, "foreign Origin"),
        ("/api/board?t=TOKEN", {"Sec-Fetch-Site": "cross-site"}, "cross-site request"),
    ],
)
def test_refused_with_403(
    board: server.Board, path: str, headers: dict[str, str], why: str
) -> None:
    path = path.replace("TOKEN", board.token)
    sent = {k: v.replace("PORT", str(board.port)) for k, v in headers.items()}
    answer = get(board, path, sent)
    assert answer.status == 403
    assert answer.read().decode() == f"forbidden: {why}\n"
    assert answer.getheader("X-Frame-Options") == "DENY"


def test_only_actions_write(board: server.Board) -> None:
    """A POST without the CSRF proof is refused (tests/integration/test_web_actions.py has the
    rest); other methods are not taken at all."""
    assert get(board, f"/api/board?t={board.token}", method="POST").status == 403
    assert get(board, f"/api/act?t={board.token}", method="PUT").status == 405
    assert get(board, f"/api/act?t={board.token}", method="DELETE").status == 405
    assert get(board, f"/nothing?t={board.token}").status == 404
    missing = get(board, f"/api/log?t={board.token}&id=no-such-worker")
    assert missing.status == 404
    assert "no worker" in json.loads(missing.read())["error"]


def test_it_binds_127_0_0_1_only() -> None:
    assert server.LOOPBACK == "127.0.0.1"
    for bind in ("0.0.0.0", "::", "192.168.1.2", "localhost"):  # noqa: S104 - refused
        with pytest.raises(UsageError, match=r"127\.0\.0\.1 only"):
            server.serve(0, lambda: None, bind)  # type: ignore[arg-type, return-value]


def test_the_cli_refuses_another_bind_in_one_line(chain: Chain) -> None:
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    got = oms_command().run("web", "--bind", "0.0.0.0", *roots)  # noqa: S104 - refused
    assert got.returncode == 2
    assert got.stderr.count("\n") == 1
    assert "127.0.0.1 only" in got.stderr


def test_the_queue_shows_its_first_rows_and_how_many_in_all(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page draws at most `LIMITS.web_queue_rows` tickets (in queue order) and says how many
    there are: a board of 10,000 tickets sends no 10,000 rows."""
    from oms.limits import LIMITS
    from oms.services.chain import tickets
    from oms.services.web import board as reading

    monkeypatch.setattr(reading, "LIMITS", LIMITS._replace(web_queue_rows=2))
    with chain.workspace() as ws:
        for n in range(3):
            tickets.add(ws, f"ticket {n}", "")
        doc = json.loads(json.dumps(reading.board(ws)))
    assert [t["title"] for t in doc["queue"]] == ["ticket 0", "ticket 1"]
    assert doc["queue_total"] == 3


def test_an_idle_boards_look_opens_no_workspace(chain: Chain) -> None:
    """The watcher's look (every `LIMITS.web_watch_ms` while a page streams) reads the marker
    through one workspace kept for it: on a cluster an opening reads the commit and the pin, 0.1 s
    under load, which every look cost before. A board read still opens its own, each time."""
    opened: list[str] = []
    served = server.Board(0, _opener(chain, lambda: opened.append("ws")))
    try:
        first = served.current()
        assert first[0] == 200, first
        after_first = len(opened)
        assert [served.current() for _ in range(5)] == [first] * 5  # idle: the one read kept
        assert len(opened) == after_first, opened
    finally:
        served.server_close()


def test_a_workspace_that_cannot_open_is_the_boards_answer_not_a_dead_watcher(
    chain: Chain,
) -> None:
    """The watcher thread reads the board through `current`: an opener failing there (a cluster
    unreachable, a commit moving `[store]`) is the board's one-line error, and the next look tries
    again; it used to end the watcher with a traceback on the person's terminal."""
    failing = [True]

    def unreachable() -> None:
        if failing[0]:
            raise EtcdUnavailableError("etcd: no member of the cluster answers")

    served = server.Board(0, _opener(chain, unreachable))
    try:
        code, data = served.current()
        assert code == 409, data
        assert json.loads(data) == {"ok": False, "error": "etcd: no member of the cluster answers"}
        failing[0] = False
        code, data = served.current()
        assert code == 200, data
    finally:
        served.server_close()
