"""Round 3 of attacks on the model proxy (issue 13, ADR 0020), each a test that failed before its
fix.

1. A dribbling sender kept its connection for ever: the 10 s was a bound on each read, not on the
   request. Now a watchdog shuts a connection whose line, headers and body are not in within
   `[proxy] request_deadline_s` (10 s unless shortened; these attacks shorten it to 2 s so that
   they wait for it as it passes, not for a fixed sleep).
2. One agent filled the 256 slots shared by every sandbox (dribbling, or churning connections it
   closes itself before any deadline) and every other worker's traffic was closed unanswered. Now
   each dispatch has its own door (`proxy/doors/<dispatch>/model.sock`) with its own 16 slots, and
   only its own token counts there.
3. One agent made the proxy hold 20 x 32 MiB of request bodies (256 connections: 8 GiB). Now at most
   2 x `max_request_bytes` per dispatch and 512 MiB in all are held; beyond, a 503 at once.
4. Hanging up before the answer's last usage event escaped the token budget. Now the answer is
   counted before it is sent and read to its end after a hang-up; one whose last usage never came is
   charged the output the request asked for.
5. Two starts at once left the recorded proxy without its sandbox door. Now one start at a time
   (`proxy/start.lock`), and a live socket is never taken away.
6. A key ending in `\r` (a CRLF `.env`) was written to the log whole on every request. Now a key is
   stripped and checked, an unsendable header is a 502, and the log names an error's type, never its
   text.
"""

from __future__ import annotations

import http.client
import json
import os
import select
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.canonical import access
from oms.services.proxy import control as proxy_control
from oms.services.workspace import Workspace
from tests.attempts import attempt_token
from tests.chain import Chain, make_chain
from tests.helpers import eventually, scaled
from tests.model_mock import ModelMock, Script
from tests.proxy_rig import MESSAGES, door_socket

ATTACK_CONNECTIONS = 260  # a few more than LIMITS.proxy_connections
DEADLINE_S = 2  # `[proxy] request_deadline_s` in the attacks that wait for it to pass
DRIBBLE_EVERY_S = 1.0  # inside that deadline: each read of a header line is in time
# (100 header lines end a request: http.server's own bound, reached only after 100 s here, so a
# connection closed within the waits below was closed by the request deadline)
REQUEST_LINE = b"POST /p/claude-mock/v1/messages HTTP/1.1\r\nHost: x\r\n"


@pytest.fixture
def proxied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Chain, ModelMock]]:
    mock = ModelMock(Script([])).start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real-key")
    try:
        for chain in make_chain(tmp_path):
            chain.edit_config(
                lambda s: (
                    s
                    + f'\n[providers.claude-mock]\nfamily = "anthropic"\nendpoint = "{mock.base}"\n'
                ),
                commit=True,
            )
            yield chain, mock
    finally:
        mock.stop()


def _shorten_deadline(chain: Chain) -> None:
    """The proxy started next closes a connection whose request is not in within `DEADLINE_S`."""
    chain.edit_config(lambda s: s + f"\n[proxy]\nrequest_deadline_s = {DEADLINE_S}\n", commit=True)


def _door(ws: Workspace, dispatch_id: str) -> str:
    """A dispatch's door, once the proxy opened it (in the sandbox directory:
    `proxy_rig.door_socket`)."""
    return door_socket(ws, dispatch_id)


def _ask_on_port(port: int, token: str) -> tuple[int, bytes]:
    """One request on the proxy's TCP port, as another worker would make it: the status and the
    start of the answer (OSError: dropped)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(
            "POST",
            "/p/claude-mock/v1/messages",
            body=json.dumps(MESSAGES).encode(),
            headers={"x-api-key": token, "Content-Type": "application/json"},
        )
        answer = conn.getresponse()
        return answer.status, answer.read()[:300]
    finally:
        conn.close()


def _ask_on_door(door: str, token: str) -> int:
    """One request on a dispatch's door (as its in-sandbox relay would carry it): the status."""
    body = json.dumps(MESSAGES).encode()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    try:
        s.connect(door)
        s.sendall(
            b"POST /p/claude-mock/v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: %s\r\n"
            b"Connection: close\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
            % (token.encode(), len(body), body)
        )
        got = b""
        while chunk := s.recv(65536):
            got += chunk
    finally:
        s.close()
    return int(got.split(b" ", 2)[1]) if got.startswith(b"HTTP/1.1 ") else 0


def _dribbler(
    sock_path: str, stop: threading.Event, opened: list[socket.socket], all_in: threading.Event
) -> None:
    """Open the attack connections on the sandbox door (`all_in` set once each was tried) and feed
    each one a header line every `DRIBBLE_EVERY_S`."""
    for _ in range(ATTACK_CONNECTIONS):
        for _attempt in range(200):  # the door's backlog is 16: a full one is EAGAIN, try again
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(sock_path)
                s.sendall(REQUEST_LINE)
            except OSError:
                s.close()
                time.sleep(0.01)
                continue
            opened.append(s)
            break
    all_in.set()
    i = 0
    while not stop.wait(DRIBBLE_EVERY_S):
        for s in list(opened):
            try:
                s.sendall(b"x-a%d: b\r\n" % i)  # never the blank line that ends the headers
            except OSError:
                opened.remove(s)
                s.close()
        i += 1


def test_one_sandbox_dribbling_headers_cannot_stop_other_workers_traffic(
    proxied: tuple[Chain, ModelMock],
) -> None:
    chain, _ = proxied
    _shorten_deadline(chain)
    with chain.workspace() as ws:
        started = proxy_control.start(ws)
        token = attempt_token(chain, "d-victim", "claude-mock")
        attempt_token(chain, "d-attacker", "claude-mock")
        door = _door(ws, "d-attacker")
        victim_door = _door(ws, "d-victim")
    assert started.record is not None
    port = access.integer(started.record, "port")
    stop = threading.Event()
    opened: list[socket.socket] = []
    all_in = threading.Event()
    attacker = threading.Thread(target=_dribbler, args=(door, stop, opened, all_in), daemon=True)
    try:
        attacker.start()
        assert all_in.wait(60), "the attack connections were not all tried within 60 s"
        # every attack connection is gone once the deadline passed (the dribbler drops one whose
        # next header line is refused); with no deadline on the whole request they stay for ever,
        # holding every slot of the door
        eventually(
            lambda: not opened,
            timeout=DEADLINE_S + 10,
            what=f"the dribbling connections closed past the {DEADLINE_S} s request deadline",
        )
        try:
            status, said = _ask_on_port(port, token)
        except OSError as exc:
            pytest.fail(
                f"another worker's request was dropped ({exc!r}) while connections from one "
                f"sandbox, each sending a header line every {DRIBBLE_EVERY_S:g} s, held the "
                "proxy's connection slots"
            )
        assert status == 200, said
        assert (
            _ask_on_door(victim_door, token) == 200
        )  # and on its own door, as its sandbox reaches the proxy
    finally:
        stop.set()
        attacker.join(10)
        for s in opened:
            s.close()
        with chain.workspace() as ws:
            proxy_control.stop(ws)


def _churner(sock_path: str, stop: threading.Event, opened: list[socket.socket]) -> None:
    """Keep the door's slots full with idle connections, each closed by the attacker itself after
    40-80 % of the request deadline (inside it) and replaced at once; one the proxy closed (no
    slot) is replaced too."""
    import random

    born: dict[socket.socket, float] = {}
    while not stop.is_set():
        now = time.monotonic()
        for s in list(born):
            try:
                gone = s.recv(1, socket.MSG_DONTWAIT | socket.MSG_PEEK) == b""
            except BlockingIOError:
                gone = False
            except OSError:
                gone = True
            if gone or now > born[s]:
                born.pop(s)
                s.close()
        while len(born) < ATTACK_CONNECTIONS and not stop.is_set():
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(sock_path)
                s.sendall(REQUEST_LINE)
            except OSError:
                s.close()
                time.sleep(0.002)
                continue
            born[s] = time.monotonic() + random.uniform(0.4, 0.8) * DEADLINE_S
        opened[:] = list(born)
        time.sleep(0.01)
    for s in born:
        s.close()


def test_one_sandbox_reopening_connections_cannot_stop_other_workers_traffic(
    proxied: tuple[Chain, ModelMock],
) -> None:
    """Even a true request deadline would not help while the 256 slots are shared by every sandbox
    with no share of its own: the attacker closes each connection itself before the deadline and
    opens another. The victim asks ten times over a few seconds: most of its connections were
    closed unanswered."""
    chain, _ = proxied
    _shorten_deadline(chain)
    with chain.workspace() as ws:
        started = proxy_control.start(ws)
        token = attempt_token(chain, "d-victim", "claude-mock")
        attempt_token(chain, "d-attacker", "claude-mock")
        door = _door(ws, "d-attacker")
        victim_door = _door(ws, "d-victim")
    assert started.record is not None
    port = access.integer(started.record, "port")
    stop = threading.Event()
    opened: list[socket.socket] = []
    attacker = threading.Thread(target=_churner, args=(door, stop, opened), daemon=True)
    errors: list[str] = []
    try:
        attacker.start()
        time.sleep(1.5 * DEADLINE_S)  # the attack's length: past a deadline, every slot churned
        answered = 0
        for _ in range(10):
            try:
                status, said = _ask_on_port(port, token)
                assert status == 200, said
                answered += 1
            except OSError as exc:
                errors.append(repr(exc))
            time.sleep(0.5)
        for _ in range(3):
            try:
                assert _ask_on_door(victim_door, token) == 200
            except OSError as exc:
                errors.append(f"door: {exc!r}")
        assert not errors, (
            f"another worker got {answered} answers to 10 requests while one sandbox churns its "
            f"connections; dropped: {errors}"
        )
    finally:
        stop.set()
        attacker.join(10)
        with chain.workspace() as ws:
            proxy_control.stop(ws)


SANDBOXED_ATTACKER = (
    r"""
import socket, sys, time
opened = []
for _ in range(@N@):
    for _attempt in range(200):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect("/tmp/oms-model.sock")
            s.sendall(@LINE@)
        except OSError:
            s.close(); time.sleep(0.01); continue
        opened.append(s); break
print(len(opened), flush=True)
i, said = 0, False
while True:
    time.sleep(@EVERY@)
    for s in list(opened):
        try: s.sendall(b"x-a%d: b\r\n" % i)
        except OSError: opened.remove(s)
    if not opened and not said:
        print("all closed", flush=True)
        said = True
    i += 1
""".replace("@N@", str(ATTACK_CONNECTIONS))
    .replace("@LINE@", repr(REQUEST_LINE))
    .replace("@EVERY@", repr(DRIBBLE_EVERY_S))
)


def test_the_same_from_inside_a_sandbox_without_a_network(proxied: tuple[Chain, ModelMock]) -> None:
    """The attacker runs in bubblewrap with its own network namespace and only the proxy's socket
    bound in (as `oms worker netrelay`'s sandboxes have it; at /tmp here, as the host root is shown
    read-only)."""
    import shutil
    import subprocess
    import sys

    bwrap = shutil.which("bwrap")
    assert bwrap is not None, "bubblewrap is part of the product (.ci/setup installs it)"
    chain, _ = proxied
    _shorten_deadline(chain)
    with chain.workspace() as ws:
        started = proxy_control.start(ws)
        token = attempt_token(chain, "d-victim", "claude-mock")
        attempt_token(chain, "d-attacker", "claude-mock")
        door = _door(ws, "d-attacker")
        victim_door = _door(ws, "d-victim")
    assert started.record is not None
    port = access.integer(started.record, "port")
    argv = [
        bwrap,
        "--unshare-user",
        "--unshare-net",
        "--unshare-pid",
        "--die-with-parent",
        "--ro-bind",
        "/",
        "/",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
        "--bind",
        os.path.realpath(door),  # (bwrap cannot follow this process's /proc/self/fd)
        "/tmp/oms-model.sock",
        sys.executable,
        "-c",
        SANDBOXED_ATTACKER,
    ]
    attacker = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert attacker.stdout is not None
        opened = attacker.stdout.readline().strip()
        assert attacker.stderr is not None
        assert opened.isdigit(), f"the attacker did not start: {attacker.stderr.read()[:2000]}"
        ready, _, _ = select.select([attacker.stdout], [], [], scaled(DEADLINE_S + 10))
        assert ready, f"{opened} dribbling connections are still open past the request deadline"
        assert attacker.stdout.readline() == "all closed\n"
        try:
            status, said = _ask_on_port(port, token)
        except OSError as exc:
            pytest.fail(
                f"another worker's request was dropped ({exc!r}) "
                f"while {opened} dribbling connections "
                "from one network-less sandbox hold every slot of the proxy"
            )
        assert status == 200, said
        assert (
            _ask_on_door(victim_door, token) == 200
        )  # and on its own door, as its sandbox reaches the proxy
    finally:
        attacker.kill()
        attacker.wait(10)
        if attacker.stdout is not None:
            attacker.stdout.close()
        if attacker.stderr is not None:
            attacker.stderr.close()
        with chain.workspace() as ws:
            proxy_control.stop(ws)
