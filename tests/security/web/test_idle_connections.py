"""Idle connections do not take the board (SECURITY.md "The board in a browser").

127.0.0.1 is every local user's, and no token is needed to open a connection to `oms web` and never
finish its request line: before the fix each such connection held a thread and a descriptor for
ever (no timeout, no bound — the lesson the model proxy learnt in `tests/security/proxy/
test_exhaustion.py`), and once the server's descriptors were gone `accept` failed with EMFILE and
the person's own page got no answer. The page polls: it must be answered again within
`Limits.web_header_s` or so. Now a request must arrive within `Limits.web_header_s` and at
most `Limits.web_connections` are open at once (one more is closed at once). The server's
descriptor limit is lowered to 128 here (a real `oms web` process) to keep the test small."""

from __future__ import annotations

import contextlib
import http.client
import resource
import socket
import subprocess
from urllib.parse import parse_qs, urlsplit

from oms.limits import LIMITS
from tests.chain import Chain
from tests.helpers import OmsCommand, eventually

ATTACKERS = 160


def _board_status(port: int, token: str) -> int | None:
    """GET /api/board as the page does; its status, None when the connection is refused or closed
    (the page polls again)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", f"/api/board?t={token}", headers={"Host": f"127.0.0.1:{port}"})
        answer = conn.getresponse()
        answer.read()
        return answer.status
    except OSError:
        return None
    finally:
        conn.close()


def test_idle_connections_do_not_take_the_board(chain: Chain, oms: OmsCommand) -> None:
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    proc = subprocess.Popen(
        [*oms.argv, "web", *roots], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    held: list[socket.socket] = []
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = urlsplit(line.split("open ", 1)[1].strip())
        port, token = int(url.port or 0), parse_qs(url.query)["t"][0]
        resource.prlimit(proc.pid, resource.RLIMIT_NOFILE, (128, 128))
        for _ in range(ATTACKERS):  # no token, the request line never finished
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
            except OSError:  # its backlog is full: it accepts nothing more
                break
            held.append(s)
            with contextlib.suppress(OSError):  # one over the bound is closed at once: fine
                s.sendall(b"GET /api/board")
        status = eventually(
            lambda: _board_status(port, token),
            timeout=LIMITS.web_header_s + 10,
            what=f"the person's page answered while {ATTACKERS} idle connections are held",
        )
        assert status == 200
        held[0].settimeout(5)
        try:
            closed = held[0].recv(1) == b""  # the server closed it: idle past its deadline
        except ConnectionResetError:
            closed = True
        assert closed
    finally:
        for s in held:
            s.close()
        proc.terminate()
        proc.communicate(timeout=30)  # (its pipes closed)
