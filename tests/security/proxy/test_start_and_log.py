"""Attacks on the model proxy's start and its log (issue 13, ADR 0020, round 3), each a test that
failed before its fix: two starts at once left the recorded proxy without a live sandbox socket (the
loser's child unlinked the winner's; now one start at a time under `proxy/start.lock`, and a live
socket is never taken away); a key ending in `\\r` (a CRLF `.env`) was written to the log whole on
every request (now a key is stripped and checked, an unsendable header is a 502, and the log names
an error's type, never its text)."""

from __future__ import annotations

import http.client
import json
import os
import secrets
import signal
import socket
import struct
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.canonical import access
from oms.domain import proxy as rules
from oms.errors import ConflictError, ProxyError
from oms.fsio.procinfo import is_alive
from oms.process import reap
from oms.services.proxy import control as proxy_control
from oms.services.proxy import tokens as proxy_tokens
from oms.services.proxy.control import settings_for
from oms.services.proxy.server import ProxyServer
from tests.attempts import attempt_token
from tests.chain import Chain, make_chain
from tests.model_mock import ModelMock, Script
from tests.proxy_rig import MESSAGES, door_socket


@pytest.fixture
def chain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Chain]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real-key")
    for made in make_chain(tmp_path):
        made.edit_config(
            lambda s: (
                s
                + '\n[providers.claude-x]\nfamily = "anthropic"\nendpoint = "http://127.0.0.1:9"\n'
            ),
            commit=True,
        )
        yield made


def _door_answers(door: str, pid: int) -> str:
    """Whether the sandbox door is served by the proxy process `pid` ("ok" or why not): the
    socket's listener by its credentials, and a request answered. (A door answers no handshake:
    the proxy's proof of itself is for oms, not a sandbox.)"""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect(door)
        cred = s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        peer = struct.unpack("3i", cred)[0]  # (pid, uid, gid) of the process that listens
        hello = f"GET {rules.HELLO_PATH}?c={secrets.token_hex(16)} HTTP/1.1\r\nHost: x\r\n"
        s.sendall(hello.encode() + b"Connection: close\r\n\r\n")
        got = b""
        while chunk := s.recv(4096):
            got += chunk
    except OSError as exc:
        return f"the door {door} is dead: {exc!r}"
    finally:
        s.close()
    if peer != pid:
        return f"another proxy (pid {peer}) answers the door: {got[:80]!r}"
    answered = got.startswith(b"HTTP/1.") and b'"answer"' not in got
    return "ok" if answered else f"the door said {got[:80]!r}"


def test_a_lost_start_race_does_not_leave_the_recorded_proxy_without_its_sandbox_door(
    chain: Chain,
) -> None:
    """Two starts at once, a few rounds (which child binds last varies): after each, the recorded
    proxy must answer its handshake on the sandbox door too."""
    for _round in range(4):
        outcomes: list[str] = []

        def start(outcomes: list[str] = outcomes) -> None:
            with chain.workspace() as ws:
                try:
                    outcomes.append(proxy_control.start(ws).state)
                except (
                    ConflictError,
                    ProxyError,
                ) as exc:  # the race lost: fine, if the winner still works
                    outcomes.append(f"lost: {exc.message}")

        racers = [threading.Thread(target=start) for _ in range(2)]
        try:
            for t in racers:
                t.start()
            for t in racers:
                t.join(60)
            with chain.workspace() as ws:
                found = proxy_control.status(ws)
                assert found.state == "running", found.note
                assert found.record is not None
                pid = access.integer(found.record, "pid")
                proxy_tokens.issue_token(ws, "d-race", "claude-x")
                door = door_socket(ws, "d-race")
            verdict = _door_answers(door, pid)
            assert verdict == "ok", (
                f"starts: {outcomes}; `oms proxy status` says "
                f"{found.note!r}, but {verdict}: every proxied "
                "worker launched now gets a sandbox whose /oms/model.sock reaches nothing"
            )
        finally:
            with chain.workspace() as ws:
                proxy_control.stop(ws)


def test_a_restarted_proxy_has_every_door_live_once_it_is_recorded(chain: Chain) -> None:
    """The race behind the flaky start test (issue 24): a proxy that ended without removing its
    doors (a SIGKILL; a SIGTERM whose process exited before its door thread did) leaves their
    sockets, and a new proxy opened its doors only 0.1 s after it answered its handshake. `oms proxy
    status` said verified, the door existed (`wait_for_door` returned at once) and it was dead:
    ConnectionRefused. Now the proxy opens the door of every token before it answers, so a recorded
    proxy has all its doors."""
    with chain.workspace() as ws:
        first = proxy_control.start(ws)
        proxy_tokens.issue_token(ws, "d-restart", "claude-x")
        door = door_socket(ws, "d-restart")
    assert first.record is not None
    os.kill(access.integer(first.record, "pid"), signal.SIGKILL)
    who = proxy_control._identity(first.record)
    while is_alive(who):
        reap(who.pid)
    try:
        for _round in range(3):
            with chain.workspace() as ws:
                again = proxy_control.start(ws)  # (the killed one's record is stale: replaced)
                assert again.record is not None
                pid = access.integer(again.record, "pid")
            verdict = _door_answers(door, pid)
            assert verdict == "ok", f"`oms proxy status` says {again.note!r}, but {verdict}"
            with chain.workspace() as ws:
                proxy_control.stop(ws)
    finally:
        with chain.workspace() as ws:
            proxy_control.stop(ws)


SECRET = "sk-ant-api03-THE-REAL-KEY-abcdefghijklmnopqrstuvwxyz"


@pytest.fixture(params=["\r", "\r\n", "\rx-evil: 1"])
def served(
    tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[ProxyServer, str, ModelMock, str]]:
    """A proxy whose environment key ends in a CR (a CRLF `.env`), or carries one inside it."""
    mock = ModelMock(Script([])).start()
    tail = str(request.param)
    for chain in make_chain(tmp_path):
        chain.edit_config(
            lambda s: (
                s + f'\n[providers.claude-mock]\nfamily = "anthropic"\nendpoint = "{mock.base}"\n'
            ),
            commit=True,
        )
        ws = chain.workspace()
        server = ProxyServer(settings_for(ws, b"k" * 32, {"ANTHROPIC_API_KEY": SECRET + tail}), 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        token = attempt_token(chain, "d-1", "claude-mock")
        try:
            yield server, token, mock, tail
        finally:
            server.shutdown()
            server.server_close()
            ws.close()
            mock.stop()


def test_a_key_the_upstream_cannot_take_is_never_written_to_the_log(
    served: tuple[ProxyServer, str, ModelMock, str], capsys: pytest.CaptureFixture[str]
) -> None:
    server, token, mock, tail = served
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request(
            "POST",
            "/p/claude-mock/v1/messages",
            body=json.dumps(MESSAGES).encode(),
            headers={"x-api-key": token},
        )
        response = conn.getresponse()
        status, body = response.status, response.read()
    finally:
        conn.close()
    log = capsys.readouterr().err  # the proxy's stderr is proxy/proxy.log
    assert SECRET not in log, f"the real key is in the proxy's log: {log.strip()[:300]}"
    assert SECRET.encode() not in body
    if (
        tail.strip()
    ):  # a CR inside the key: no key to send; the worker is told, the upstream never asked
        assert status == 502
        assert b"no usable ANTHROPIC_API_KEY" in body
        assert not mock.heard
    else:  # whitespace around it (a CRLF `.env`): the key itself is sent
        assert status == 200
        assert mock.heard[-1][1]["x-api-key"] == SECRET
