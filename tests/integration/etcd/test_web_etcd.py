"""`oms web` on an etcd store (ADR 0041; ADR 0043, amendment `rest`), the real server on loopback
and the real cluster: the board is the cluster's (a ticket on the state root's files is not on
it), an action a person clicks writes through the same service the CLI runs, on the cluster (a
reopen: the ticket's version names the board's person), and the stream sends a change another
process made on the cluster within 2 s (what changes is the cluster's ledger, not the state
root's log). Before, `oms web` was refused as it started."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from oms.adapters.etcd.client import Etcd
from oms.services.chain import tickets
from oms.services.web import board
from oms.services.workspace import Workspace
from tests.browser import CHROMIUM, Browser
from tests.chain import Chain, use_demo_worker
from tests.etcd_cluster import Cluster
from tests.helpers import OmsCommand, scaled
from tests.integration.etcd.test_commands_cli import _oms, _use_etcd
from tests.integration.etcd.test_hand_etcd import _needs_person


class _Served:
    """A running `oms web`: where it listens, its token and its CSRF proof (from its page)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        assert parts.port is not None
        self.port = parts.port
        self.token = parse_qs(parts.query)["t"][0]
        page = self.get(f"/?t={self.token}")
        html = page.read().decode()
        found = re.search(r'<meta name="oms-csrf" content="([0-9a-f]{64})">', html)
        assert found is not None, html
        self.csrf = found.group(1)
        self.cookie = (page.getheader("Set-Cookie") or "").split(";", 1)[0]
        assert self.cookie.endswith(f"={self.csrf}"), self.cookie

    def get(self, path: str) -> http.client.HTTPResponse:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request("GET", path, headers={"Host": f"127.0.0.1:{self.port}"})
        return conn.getresponse()

    def board(self) -> dict[str, object]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request(
            "GET", f"/api/board?t={self.token}", headers={"Host": f"127.0.0.1:{self.port}"}
        )
        answer = conn.getresponse()
        doc = json.loads(answer.read())
        conn.close()
        assert answer.status == 200, doc
        assert isinstance(doc, dict)
        return doc

    def act(self, action: str, target: str, text: str) -> tuple[int, dict[str, object]]:
        origin = f"http://127.0.0.1:{self.port}"
        headers = {
            "Host": f"127.0.0.1:{self.port}",
            "Origin": origin,
            "Content-Type": "application/json",
            "X-OMS-CSRF": self.csrf,
            "Cookie": self.cookie,
        }
        body = json.dumps({"action": action, "id": target, "text": text})
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        conn.request("POST", f"/api/act?t={self.token}", body=body, headers=headers)
        answer = conn.getresponse()
        doc = json.loads(answer.read())
        conn.close()
        return answer.status, doc


@contextmanager
def _serving(oms: OmsCommand, chain: Chain) -> Iterator[_Served]:
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    proc = subprocess.Popen(
        [*oms.argv, "web", *roots],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stderr is not None
        line = proc.stdout.readline()
        if not line.startswith("oms web: open http://127.0.0.1:"):
            proc.wait(timeout=60)
            pytest.fail(line + proc.stderr.read())
        yield _Served(line.split("open ", 1)[1].strip())
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def _titles(doc: dict[str, object]) -> list[str]:
    queue = doc["queue"]
    assert isinstance(queue, list)
    return [str(t["title"]) for t in queue]


def _streamed(served: _Served, change: Callable[[], None], title: str, timeout: float) -> float:
    """Open the board's stream, take its first board, make `change`, and read on until a board
    whose queue holds `title`: the seconds from the change to it."""
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=timeout + 60)
    where = {"Host": f"127.0.0.1:{served.port}"}
    conn.request("GET", f"/api/events?t={served.token}", headers=where)
    answer = conn.getresponse()
    assert answer.status == 200
    try:
        boards = (json.loads(raw[6:]) for raw in iter(answer.readline, b"") if raw[:6] == b"data: ")
        assert title not in _titles(next(boards))
        change()
        done = time.monotonic()  # the change is made: from here it must show
        for doc in boards:
            if title in _titles(doc):
                return time.monotonic() - done
        pytest.fail(f"the stream ended before a board with {title!r}")
    finally:
        conn.close()


@pytest.mark.cli
def test_the_board_reads_and_writes_the_cluster(
    chain: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    with chain.workspace() as ws:  # on the state root's files: not the cluster's, not shown
        tickets.add(ws, "On files", "")
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    code, out = _oms(oms, chain, "ticket", "add", "--title", "On the cluster", "--no-body")
    assert code == 0, out
    code, out = _oms(oms, chain, "ticket", "block", "tkt-1", "--reason", "waiting for a login")
    assert code == 0, out
    with _serving(oms, chain) as served:
        doc = served.board()
        assert _titles(doc) == ["On the cluster"], doc
        code, said = served.act("reopen", "tkt-1", "the login is fixed")
        assert code == 200, said
        assert (said["state"], said["attempt"]) == ("open", 2), said
        code, out = _oms(oms, chain, "ticket", "show", "tkt-1", "--json")
        assert code == 0, out
        shown = json.loads(out)["ticket"]
        assert (shown["state"], shown["attempt"]) == ("open", 2), shown
        assert "the login is fixed" in out, out

        def add() -> None:  # by another process, on the cluster
            code, out = _oms(oms, chain, "ticket", "add", "--title", "Streamed", "--no-body")
            assert code == 0, out

        took = _streamed(served, add, "Streamed", scaled(2))
        assert took < scaled(2), f"the stream sent the change {took:.2f} s after it was made"
    code, out = _oms(oms, chain, "audit", "verify")
    assert code == 0, out


@pytest.mark.cli
def test_the_boards_marker_moves_with_another_processs_write_to_the_cluster(
    chain: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    """What the board's watcher looks at (`board.marker`) moves when any process writes to the
    cluster; the state root's log alone does not (an idle board would then wait for its refresh,
    `LIMITS.web_refresh_ms`)."""
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)

    def mark() -> tuple[int, int, int]:
        with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
            return board.marker(ws)

    for title in ("First", "Second"):  # (the first write's command signs the state root's head)
        before = mark()
        code, out = _oms(oms, chain, "ticket", "add", "--title", title, "--no-body")
        assert code == 0, out
        after = mark()
        assert after != before, title
    assert after[:2] == before[:2]  # the state root's log did not move: the cluster's ledger did


@pytest.mark.cli
@pytest.mark.skipif(CHROMIUM is None, reason="no chromium (.ci/setup installs it)")
def test_the_board_of_the_cluster_in_a_browser(
    chain: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str, tmp_path: Path
) -> None:
    """The page, in a real headless Chromium, draws the cluster's queue and its stream is live
    (the screenshot is kept beside the test's files: `OMS_WEB_SHOT` names where to copy it)."""
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    code, out = _oms(oms, chain, "ticket", "add", "--title", "On the cluster", "--no-body")
    assert code == 0, out
    with _serving(oms, chain) as served, Browser() as browser:
        browser.open(f"http://127.0.0.1:{served.port}/?t={served.token}")
        browser.wait_for("document.body.dataset.updated", timeout=scaled(20))
        assert browser.eval("document.body.dataset.live") == "live"
        got = browser.eval(
            "JSON.stringify([...document.querySelectorAll('#queue tr:not(.empty) td:nth-child(3)')]"
            ".map(td => td.textContent))"
        )
        assert json.loads(got) == ["On the cluster"]
        browser.screenshot(tmp_path / "board.png")
    assert (tmp_path / "board.png").stat().st_size > 0
    if os.environ.get("OMS_WEB_SHOT"):
        shutil.copyfile(tmp_path / "board.png", os.environ["OMS_WEB_SHOT"])


def _queue(served: _Served) -> list[dict[str, object]]:
    rows = served.board()["queue"]
    assert isinstance(rows, list)
    return [r for r in rows if isinstance(r, dict)]


@pytest.mark.cli
def test_a_person_approves_from_the_board_of_the_cluster(
    chain: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    """A tick on the cluster proposes a ticket whose role needs a person; the cluster's board
    names the waiting dispatch on its queue row, and its `approve` writes the person's approval
    to the cluster (its evidence a key there); the row waits no more, and `oms dispatch show`
    (another process) sees the approval (ADR 0041, amendment `approve`)."""
    use_demo_worker(chain)
    _needs_person(chain)
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    code, out = _oms(oms, chain, "ticket", "add", "--title", "Asks a person", "--no-body")
    assert code == 0, out
    code, out = _oms(oms, chain, "conductor", "tick")
    assert code == 0, out
    with _serving(oms, chain) as served:
        [row] = _queue(served)
        dispatch_id = row["awaiting"]
        assert isinstance(dispatch_id, str), row
        assert f"oms dispatch approve {dispatch_id}" in str(row["reason"]), row
        code, said = served.act("approve", dispatch_id, "fine by me")
        assert code == 200, said
        [row] = _queue(served)
        assert row["awaiting"] is None, row
    code, out = _oms(oms, chain, "dispatch", "show", dispatch_id, "--json")
    assert code == 0, out
    ref = json.loads(out)["dispatch"]["approval_evidence"]
    assert isinstance(ref, str), out
    etcd = Etcd(etcd_cluster.endpoints)
    try:
        assert etcd.get(f"{etcd_prefix}evidence/{ref}.json") is not None
    finally:
        etcd.close()
    code, out = _oms(oms, chain, "audit", "verify")
    assert code == 0, out
