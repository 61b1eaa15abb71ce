"""Attacks on the proxy's room-making (`server.ProxyServer._room`, `guards.Deadlines.evict_oldest`):
when the TCP port's slots are full, or descriptors run short, a new connection closes the one that
has waited longest for its request.

1. A body cut short (its connection closed to make room, or past its deadline) was relayed
   upstream, the part that came, and charged. Now it is refused.
2. A flood of the TCP port (a `network = "host"` sandbox, or any other local user: the port is on
   the host's loopback) closed another worker's request on its own door, mid-body: the doors share
   the port's deadlines, so the one waiting longest was a door's — and closing it freed no slot of
   the port, so the accept loop then waited its full second for one, and the new connection was
   closed anyway. Now the port makes room only among its own connections.
3. A proxy with no descriptor left at all could not list /proc/self/fd (EMFILE) and took that for
   "a million to spare": it made no room. Now that is none left.
4. Held: a 503 for want of descriptors (the token file, the attempt's records) names no path of
   the host and forwards nothing.
5. oms's own handshake was answered while still counted as waiting for its request (the doors
   are kept first): a new connection on a short or full port closed it. Now a handshake being
   answered is spared, a few at once (`LIMITS.proxy_hellos`): a flood of handshakes holds no more
   slots unevictable than that.
6. On the TCP port itself, an admitted request mid-body was closed by another's flood like any
   connection waiting for its request. Now it is spared while its body comes (its deadline kept),
   `LIMITS.proxy_uploads_spared` per dispatch: one dispatch's own flood of admitted uploads holds no
   more than that unevictable.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.errors import ResourcesShortError
from oms.limits import LIMITS
from oms.services.chain import fence
from oms.services.proxy import server as proxy_server
from oms.services.proxy import tokens as proxy_tokens
from oms.services.proxy.front import Doors, door_path
from tests.helpers import REPO, eventually
from tests.proxy_rig import MESSAGES, Rig, make_rig


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    yield from make_rig(tmp_path)


@pytest.fixture
def doors(rig: Rig) -> Iterator[Doors]:
    kept = Doors(rig.server, rig.ws.store.state.root, rig.ws.store.sandboxes())
    yield kept
    kept.stop()


def _door(rig: Rig, dispatch_id: str) -> socket.socket:
    """A connection to `dispatch_id`'s door, as its sandbox's relay makes it (through the door's
    directory: a socket path has at most 108 bytes)."""
    path = os.path.join(rig.ws.store.sandboxes().path, door_path(dispatch_id))
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    fd = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY)
    try:
        s.connect(f"/proc/self/fd/{fd}/{os.path.basename(path)}")
    finally:
        os.close(fd)
    return s


def _head(token: str, length: int) -> bytes:
    return (
        b"POST /p/claude-mock/v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: %s\r\n"
        b"Connection: close\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
        % (token.encode(), length)
    )


def _status(s: socket.socket) -> int:
    """The status of the answer on `s` (read to its end); 0: closed unanswered."""
    got = b""
    with contextlib.suppress(OSError):
        while chunk := s.recv(65536):
            got += chunk
    return int(got.split(b" ", 2)[1]) if got.startswith(b"HTTP/1.1 ") else 0


def _hello_status(rig: Rig) -> int:
    """The status of oms's handshake asked on the TCP port; 0: closed unanswered."""
    conn = http.client.HTTPConnection("127.0.0.1", rig.port, timeout=10)
    try:
        conn.request("GET", "/oms-proxy/hello?c=" + "ab" * 16)
        return conn.getresponse().status
    except OSError:
        return 0
    finally:
        conn.close()


def _waiting(rig: Rig) -> int:
    """How many connections wait for their request now (armed), the port's and the doors'."""
    return len(rig.server.deadlines._due)  # (private: the count the test waits for)


def _armed_peers(rig: Rig) -> set[object]:
    """The far ends of the port's connections that wait for their request now (which ones the
    server has taken in: a count alone cannot tell a connection not yet accepted)."""
    peers: set[object] = set()
    for conn, _due in list(rig.server.deadlines._due.values()):  # (private, as `_waiting`)
        with contextlib.suppress(OSError):
            if conn.family == socket.AF_INET:
                peers.add(conn.getpeername())
    return peers


def test_a_flood_of_the_port_never_closes_a_request_on_a_door(rig: Rig, doors: Doors) -> None:
    """Worker A uploads its request on its door (headers in, half its body); then the TCP port is
    filled (256 idle connections) and one more arrives. Room is made among the port's own
    connections: A's request is answered, and so is the new connection's, at once."""
    mine, theirs = rig.token("claude-mock", "d-a"), rig.token("claude-mock", "d-b")
    doors.keep()
    body = json.dumps(MESSAGES).encode()
    upload = _door(rig, "d-a")
    flood: list[socket.socket] = []
    try:
        upload.sendall(_head(mine, len(body)) + body[: len(body) // 2])
        eventually(lambda: _waiting(rig) == 1, timeout=10, what="A's request waits for its body")
        flood += [
            socket.create_connection(("127.0.0.1", rig.port), timeout=10)
            for _ in range(LIMITS.proxy_connections)
        ]
        full = 1 + LIMITS.proxy_connections
        eventually(lambda: _waiting(rig) == full, timeout=30, what="the port is full")
        late = socket.create_connection(("127.0.0.1", rig.port), timeout=10)
        began = time.monotonic()
        with late:
            late.sendall(_head(theirs, len(body)) + body)
            assert _status(late) == 200  # room was made for it
        took = time.monotonic() - began
        upload.sendall(body[len(body) // 2 :])
        assert _status(upload) == 200, "A's request on its door was closed to make room"
        assert took < 0.9, f"the accept loop waited {took:.2f}s for a slot"
    finally:
        upload.close()
        for s in flood:
            s.close()


def test_a_body_cut_short_is_never_forwarded(rig: Rig) -> None:
    """A connection that ends before its body's announced length (closed to make room, past its
    deadline, or its sender's own half-close) is refused, never relayed: the upstream got the part
    that came (here still valid JSON, its padding cut), charged as a whole request."""
    token = rig.token("claude-mock", "d-a")
    body = json.dumps(MESSAGES).encode()
    with socket.create_connection(("127.0.0.1", rig.port), timeout=10) as s:
        s.sendall(_head(token, len(body) + 1000) + body + b" " * 10)
        s.shutdown(socket.SHUT_WR)  # what a shut-down connection's reader sees: the end
        status = _status(s)
    assert rig.mock.bodies == [], "a body cut short was relayed upstream"
    assert status in (0, 400), status


SHORT_NOW = """
import os, resource
from oms.fsio.procinfo import descriptors_left
open_now = len(os.listdir("/proc/self/fd")) - 1  # (less the listing's own)
_soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (open_now, hard))
print(descriptors_left())
"""


def test_a_process_out_of_descriptors_is_short_of_them() -> None:
    """With every descriptor taken, /proc/self/fd cannot even be listed (EMFILE): that is the
    shortest the proxy can be, and it must make room then, not believe it has a million to spare."""
    done = subprocess.run(
        [sys.executable, "-c", SHORT_NOW],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert int(done.stdout) < LIMITS.proxy_descriptor_reserve, done.stdout


HOST_PATH = "/home/someone/.local/state/oms/records/dispatch/d-a"


@pytest.mark.parametrize("where", ["token", "attempt", "rest"])
def test_a_503_for_want_of_descriptors_tells_nothing_of_the_host(
    rig: Rig, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """Out of descriptors while reading the token file, the attempt's records or the provider's
    standing (whether it rests: it was taken for "not resting", and the request forwarded): a 503
    to retry, whose body names neither the file nor the error (a path of the host the agent must
    not learn), and nothing is forwarded."""
    token = rig.token("claude-mock", "d-a")

    def short(*_args: object, **_kwargs: object) -> object:
        raise ResourcesShortError(f"{HOST_PATH}/1.json: too many open files")

    if where == "token":
        monkeypatch.setattr(proxy_tokens, "grant_of", short)
    elif where == "attempt":
        monkeypatch.setattr(fence, "verdict", short)  # (what `admit.attempt` asks)
    else:
        monkeypatch.setattr(rig.server.rests._records, "read_if_exists", short)  # (private)
    status, _, body = rig.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": token})
    assert status == 503, body
    assert b"oms_proxy_busy" in body
    for told in (b"/home", b"records", b"open files"):
        assert told not in body
    assert rig.mock.bodies == []


def test_a_flood_of_the_port_never_closes_an_admitted_request_mid_body(rig: Rig) -> None:
    """Worker A (a host-network role: it reaches the port itself) uploads its request, token
    admitted, half its body in; another fills the port with 256 idle connections, then one more.
    A's request should be answered."""
    mine = rig.token("claude-mock", "d-a")
    body = json.dumps(MESSAGES).encode()
    upload = socket.create_connection(("127.0.0.1", rig.port), timeout=10)
    flood: list[socket.socket] = []
    try:
        upload.sendall(_head(mine, len(body)) + body[: len(body) // 2])
        eventually(lambda: _waiting(rig) == 1, timeout=10, what="A's request waits for its body")
        flood += [
            socket.create_connection(("127.0.0.1", rig.port), timeout=10)
            for _ in range(LIMITS.proxy_connections)
        ]
        eventually(lambda: _waiting(rig) >= LIMITS.proxy_connections, timeout=30, what="full")
        with socket.create_connection(("127.0.0.1", rig.port), timeout=10) as late:
            late.sendall(b"GET / HTTP/1.1\r\n")
            eventually(lambda: _waiting(rig) == LIMITS.proxy_connections, timeout=10, what="room")
        upload.sendall(body[len(body) // 2 :])
        assert _status(upload) == 200, "A's admitted request was closed mid-body to make room"
    finally:
        upload.close()
        for s in flood:
            s.close()


def test_a_handshake_being_answered_is_never_closed_to_make_room(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """oms's own handshake (each launch asks it) is answered after the doors are kept, which takes
    its time with many tokens; it was answered still counted as waiting for its request, so a new
    connection on a short proxy closed it, and the launch took the proxy for dead. Now its request
    is in once it is answered (`LIMITS.proxy_hellos` at once)."""
    short = [False]  # then room is made at once, by closing the one waiting longest
    monkeypatch.setattr(proxy_server, "descriptors_left", lambda: 0 if short[0] else 1 << 20)
    entered, release = threading.Event(), threading.Event()

    def keeping_doors() -> None:
        entered.set()
        release.wait(10)

    rig.server.on_hello = keeping_doors
    got: list[int] = []

    def hello() -> None:
        got.append(_hello_status(rig))

    asking = threading.Thread(target=hello)
    asking.start()
    try:
        assert entered.wait(10)
        short[0] = True
        with socket.create_connection(("127.0.0.1", rig.port), timeout=10) as late:
            late.settimeout(0.05)

            def settled() -> bool:  # room made for it (it waits), or none (closed at once)
                if late.getsockname() in _armed_peers(rig):
                    return True
                try:
                    return late.recv(1) == b""
                except TimeoutError:
                    return False

            eventually(settled, timeout=10, what="the new connection is placed")
    finally:
        release.set()
        asking.join(10)
    assert got == [200], "the handshake was closed while it was answered"


def test_a_flood_of_handshakes_holds_no_more_than_its_bound_unevictable(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Handshakes held in their answer (the doors being kept) beyond `LIMITS.proxy_hellos` wait as
    any connection waiting for its request does: a new connection on a short proxy still finds
    room, made by closing one of those; the ones within the bound are answered."""
    short = [False]
    monkeypatch.setattr(proxy_server, "descriptors_left", lambda: 0 if short[0] else 1 << 20)
    inside, release = threading.Semaphore(0), threading.Event()

    def keeping_doors() -> None:
        inside.release()
        release.wait(10)

    rig.server.on_hello = keeping_doors
    got: list[int] = []

    def hello() -> None:
        got.append(_hello_status(rig))

    asking = [threading.Thread(target=hello) for _ in range(LIMITS.proxy_hellos + 2)]
    for thread in asking:
        thread.start()
    try:
        for _ in asking:
            assert inside.acquire(timeout=10), "every handshake reaches its answer"
        assert _waiting(rig) == 2  # the two past the bound wait as any connection does
        short[0] = True
        with socket.create_connection(("127.0.0.1", rig.port), timeout=10) as late:
            eventually(
                lambda: late.getsockname() in _armed_peers(rig),
                timeout=10,
                what="room made for the new connection among the handshakes past the bound",
            )
    finally:
        release.set()
        for thread in asking:
            thread.join(10)
    assert sorted(got).count(200) >= LIMITS.proxy_hellos, got


def test_one_dispatchs_admitted_uploads_are_spared_no_more_than_its_bound(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sandbox that opens many admitted uploads with its own token holds no more than
    `LIMITS.proxy_uploads_spared` of them unevictable: on a short proxy a new connection closes
    one past the bound; the spared ones are answered."""
    short = [False]
    monkeypatch.setattr(proxy_server, "descriptors_left", lambda: 0 if short[0] else 1 << 20)
    mine = rig.token("claude-mock", "d-a")
    body = json.dumps(MESSAGES).encode()
    count = LIMITS.proxy_uploads_spared + 1
    uploads = [socket.create_connection(("127.0.0.1", rig.port), timeout=10) for _ in range(count)]
    try:
        for upload in uploads:
            upload.sendall(_head(mine, len(body)) + body[: len(body) // 2])
        spared = rig.server.deadlines._spared  # (private: which ones are spared)
        eventually(
            lambda: _waiting(rig) == count and len(spared) == LIMITS.proxy_uploads_spared,
            timeout=10,
            what="every upload waits for its body, the bound's worth spared",
        )
        short[0] = True
        with socket.create_connection(("127.0.0.1", rig.port), timeout=10) as late:
            eventually(
                lambda: late.getsockname() in _armed_peers(rig),
                timeout=10,
                what="room made for the new connection by closing the upload past the bound",
            )
        short[0] = False
        for upload in uploads:
            with contextlib.suppress(OSError):
                upload.sendall(body[len(body) // 2 :])
        statuses = sorted(_status(upload) for upload in uploads)
    finally:
        for upload in uploads:
            upload.close()
    assert statuses == [0] + [200] * LIMITS.proxy_uploads_spared
