"""Attacks on the model proxy's memory and budgets (issue 13, ADR 0020, round 3), each a test that
failed before its fix: one agent made the proxy hold 20 x 32 MiB of request bodies on its own token
(now at most 2 x `max_request_bytes` per dispatch, 512 MiB in all, a 503 beyond); an agent that hung
up before its answer's last usage event was counted 1 output token of 5000 and passed its budget
(now the answer is counted before it is sent, read to its end after a hang-up, and one whose last
usage never came is charged the output the request asked for)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from oms.canonical import access
from oms.limits import LIMITS
from oms.services.proxy import control as proxy_control
from oms.services.proxy.control import settings_for
from oms.services.proxy.front import Door
from oms.services.proxy.server import ProxyServer
from oms.services.workspace import Workspace
from tests.attempts import attempt_token
from tests.chain import Chain, make_chain
from tests.proxy_rig import ROLE, door_socket


def _door(ws: Workspace, dispatch_id: str) -> str:
    """A dispatch's door, once the proxy opened it (in the sandbox directory:
    `proxy_rig.door_socket`)."""
    return door_socket(ws, dispatch_id)


CONNECTIONS = 20
ALLOWED_GROWTH = (
    4 * LIMITS.proxy_request_bytes
)  # a few bodies in flight at once: fine; one agent's twenty: not


@pytest.fixture
def fat_chain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Chain]:
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


def _rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_one_agent_cannot_make_the_proxy_buffer_request_bodies_without_bound(
    fat_chain: Chain,
) -> None:
    with fat_chain.workspace() as ws:
        started = proxy_control.start(ws)
        token = attempt_token(fat_chain, "d-fat", "claude-x")
        door = _door(ws, "d-fat")
    assert started.record is not None
    pid = access.integer(started.record, "pid")
    held: list[socket.socket] = []
    try:
        before = _rss(pid)
        head = (
            "POST /p/claude-x/v1/messages HTTP/1.1\r\nHost: x\r\n"
            f"x-api-key: {token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {LIMITS.proxy_request_bytes}\r\n\r\n"
        ).encode()
        piece = b"x" * (1024 * 1024)
        for _ in range(CONNECTIONS):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(10)
            s.connect(door)  # the sandbox's /oms/model.sock
            held.append(s)
            try:
                s.sendall(head)
                for _ in range(LIMITS.proxy_request_bytes // len(piece) - 1):
                    s.sendall(piece)
                s.sendall(
                    piece[:-1]
                )  # all but the last byte: the proxy holds it and waits for the rest
            except OSError:
                break  # refused: what a bounded proxy may do
        time.sleep(1)
        grown = _rss(pid) - before
        assert grown < ALLOWED_GROWTH, (
            f"one agent with its own token made the proxy hold {grown / 2**20:.0f} MiB of "
            f"request bodies with {len(held)} connections; 256 connections would be "
            f"{256 * LIMITS.proxy_request_bytes / 2**30:.0f} GiB"
        )
    finally:
        for s in held:
            s.close()
        with fat_chain.workspace() as ws:
            proxy_control.stop(ws)


OUTPUT_TOKENS = 5000
EVENTS: list[tuple[str, dict[str, object]]] = [
    (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        },
    ),
    (
        "content_block_start",
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ),
    (
        "content_block_delta",
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "THE-WHOLE-ANSWER"},
        },
    ),
    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
]
TAIL: list[tuple[str, dict[str, object]]] = [
    (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": OUTPUT_TOKENS},
        },
    ),
    ("message_stop", {"type": "message_stop"}),
]


def _sse(events: list[tuple[str, dict[str, object]]]) -> bytes:
    return b"".join(f"event: {n}\ndata: {json.dumps(d)}\n\n".encode() for n, d in events)


class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    calls = 0

    def log_message(self, *_args: object) -> None:
        return

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        type(self).calls += 1
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        with contextlib.suppress(OSError):  # the proxy hung up on us (what this test shows)
            for part in (_sse(EVENTS), _sse(TAIL)):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                self.wfile.flush()
                time.sleep(0.5)  # the model finishing its turn
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()


@pytest.fixture
def door(tmp_path: Path) -> Iterator[tuple[str, str, ProxyServer]]:
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    upstream.daemon_threads = True
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{upstream.server_address[1]}"
    for chain in make_chain(tmp_path):
        chain.edit_config(
            lambda s: (
                s.replace(
                    'transport = "claude_interactive"\n',
                    'transport = "claude_interactive"\ntoken_budget = 1000\n',
                )
                + f'\n[providers.claude-up]\nfamily = "anthropic"\nendpoint = "{base}"\n'
            ),
            commit=True,
        )
        ws = chain.workspace()
        server = ProxyServer(settings_for(ws, b"k" * 32, {"ANTHROPIC_API_KEY": "sk-ant-real"}), 0)
        path = str(tmp_path / "model.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(16)
        front = Door(server, listener, "d-hangup")
        for serve in (server.serve_forever, front.serve_forever):
            threading.Thread(target=serve, daemon=True).start()
        token = attempt_token(chain, "d-hangup", "claude-up", role_id=ROLE)
        try:
            yield path, token, server
        finally:
            front.shutdown()
            front.server_close()
            server.shutdown()
            server.server_close()
            ws.close()
            upstream.shutdown()
            upstream.server_close()
            os.unlink(path)


def _ask(path: str, token: str, *, hang_up_after: bytes | None) -> bytes:
    body = json.dumps({"model": "m", "max_tokens": 8000, "stream": True, "messages": []}).encode()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)  # the sandbox's /oms/model.sock
    s.sendall(
        b"POST /p/claude-up/v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: %s\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
        % (token.encode(), len(body), body)
    )
    got = b""
    try:
        while chunk := s.recv(65536):
            got += chunk
            if hang_up_after is not None and hang_up_after in got:
                break
    finally:
        s.close()
    return got


def test_hanging_up_before_the_last_usage_event_does_not_escape_the_token_budget(
    door: tuple[str, str, ProxyServer],
) -> None:
    path, token, server = door
    first = _ask(path, token, hang_up_after=b"content_block_stop")
    assert b"THE-WHOLE-ANSWER" in first  # the agent has what it asked for
    time.sleep(1.5)  # the upstream finished its turn (and the account paid for 5000 output tokens)
    used = server.book.used("d-hangup")
    second = _ask(path, token, hang_up_after=b"\r\n\r\n")
    assert second.startswith(b"HTTP/1.1 429"), (
        f"the dispatch's model produced {OUTPUT_TOKENS} output tokens but the proxy counted "
        f"{used}; its further requests still pass a 1000-token budget: {second[:60]!r} "
        f"({Upstream.calls} upstream calls)"
    )
