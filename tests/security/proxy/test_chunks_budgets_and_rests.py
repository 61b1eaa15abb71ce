"""Attacks from outside on the loopback model proxy, the second round (issue 13, ADR 0020): each
failed on the proxy as first built (cd20249) and holds now.

The attacker is an agent inside a worker's sandbox holding its own dispatch's token (the network is
shared, so it reaches the proxy's port), unless a test says otherwise."""

from __future__ import annotations

import http.client
import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from oms.canonical import parse_ts
from oms.services.chain import providers
from oms.services.proxy.control import settings_for
from oms.services.proxy.server import ProxyServer
from tests.attempts import attempt_token
from tests.chain import make_chain
from tests.proxy_rig import MESSAGES, ROLE, Rig, make_rig


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    yield from make_rig(tmp_path)


# ------------------------------------------------------------------ A: the request body bound
def test_a_negative_chunk_size_does_not_read_past_the_body_bound(rig: Rig) -> None:
    """`int(b"-1", 16)` is -1: `len(body) + size > cap` is false and `rfile.read(-1)` reads until
    EOF, holding everything in memory whatever `[proxy] max_request_bytes` says (1 MiB here). The
    proxy must refuse at once; instead it answers nothing until the sender half-closes, having
    buffered all of it."""
    token = rig.token("claude-mock", "d-neg")
    s = socket.create_connection(("127.0.0.1", rig.port), timeout=30)
    try:
        head = (
            "POST /p/claude-mock/v1/messages HTTP/1.1\r\nHost: x\r\n"
            f"x-api-key: {token}\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n"
        )
        s.sendall(head.encode())
        sent = 0
        piece = b"x" * 65536
        try:
            while sent < 8 * 1024 * 1024:  # 8x the bound
                s.sendall(piece)
                sent += len(piece)
        except OSError:
            pass  # refused and closed: what should happen
        readable, _, _ = select.select([s], [], [], 3)
        assert readable, (
            f"the proxy took {sent} bytes (8x its 1 MiB bound) without a word: it is still reading"
        )
    finally:
        s.close()


# ------------------------------------------------------------------ B: a body it cannot parse
def test_a_unicode_digit_content_length_is_a_400_not_a_crashed_handler(
    rig: Rig, capsys: pytest.CaptureFixture[str]
) -> None:
    """`"²".isdigit()` is True but `int("²")` raises: the handler thread dies with a traceback to
    the proxy's stderr (`proxy/proxy.log`, unbounded: one per request) and the worker gets no
    answer."""
    token = rig.token("claude-mock", "d-cl")
    s = socket.create_connection(("127.0.0.1", rig.port), timeout=10)
    try:
        s.sendall(
            b"POST /p/claude-mock/v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: "
            + token.encode()
            + b"\r\nContent-Length: \xb2\r\n\r\n"
        )
        answer = s.recv(4096)
    finally:
        s.close()
    time.sleep(0.2)
    assert answer.startswith(b"HTTP/1.1 400"), answer
    assert "Traceback" not in capsys.readouterr().err


# ------------------------------------------------------------------ C: the token budget
@pytest.fixture
def budgeted(tmp_path: Path) -> Iterator[Rig]:
    yield from make_rig(tmp_path, budget=20)


def test_concurrent_requests_are_not_a_way_past_the_token_budget(budgeted: Rig) -> None:
    """The budget is checked before a request and counted after its answer: N requests in flight at
    once all pass. 8 parallel requests spend 8 x 15 = 120 tokens of a 20-token budget."""
    token = budgeted.token("claude-mock", "d-par", role_id=ROLE)
    budgeted.mock.trickle = True  # each answer waits after its first event until released
    results: list[int] = []

    def one() -> None:
        results.append(
            budgeted.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": token})[0]
        )

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    # a window, not a wait: a proxy that keeps the budget forwards 2 and holds the rest, so the 8
    # are never all heard; 20 s (under the clients' 30 s) for them to pile up
    deadline = time.monotonic() + 20
    while len(budgeted.mock.heard) < 8 and time.monotonic() < deadline:
        time.sleep(0.05)
    budgeted.mock.release.set()
    for t in threads:
        t.join(30)
    forwarded = len(budgeted.mock.heard)
    used = budgeted.server.book.used("d-par").total
    assert forwarded <= 2, (
        f"{forwarded} requests forwarded, {used} tokens spent against a budget of 20"
    )


# ------------------------------------------------------ an upstream that behaves like the real APIs
class Upstream:
    """A loopback stand-in for the real APIs' documented answers the model mock does not give:
    * Anthropic `POST /v1/messages` with an unknown model: 404 `not_found_error` whose message names
      the model the request gave (`model: <name>`), as api.anthropic.com answers;
    * OpenAI `POST /v1/chat/completions` with `stream: true` and `stream_options.include_usage`: SSE
      chunks, the last one before `[DONE]` carrying `usage` (prompt_tokens, completion_tokens)."""

    def __init__(self) -> None:
        upstream = self
        self.requests = 0

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_: object) -> None:
                return

            def do_POST(self) -> None:
                body = json.loads(
                    self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}"
                )
                upstream.requests += 1
                if self.path.endswith("/v1/messages"):
                    doc = {
                        "type": "error",
                        "error": {
                            "type": "not_found_error",
                            "message": f"model: {body.get('model')}",
                        },
                    }
                    data = json.dumps(doc).encode()
                    self.send_response(404)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                chunks = [
                    {
                        "id": "c1",
                        "object": "chat.completion.chunk",
                        "choices": [{"index": 0, "delta": {"content": "hi"}}],
                        "usage": None,
                    },
                    {
                        "id": "c1",
                        "object": "chat.completion.chunk",
                        "choices": [],
                        "usage": {
                            "prompt_tokens": 5000,
                            "completion_tokens": 4000,
                            "total_tokens": 9000,
                        },
                    },
                ]
                data = (
                    b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
                    + b"data: [DONE]\n\n"
                )
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_DELETE(self) -> None:
                upstream.deleted.append(
                    (self.path, {k.lower(): v for k, v in self.headers.items()})
                )
                data = b'{"id":"file-of-another-worker","deleted":true}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.deleted: list[tuple[str, dict[str, str]]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"


PROVIDERS = """
[providers.claude-real]
family = "anthropic"
endpoint = "{base}"

[providers.claude-other]
family = "anthropic"
endpoint = "{base}"

[providers.openai-real]
family = "openai"
endpoint = "{base}/v1"
"""


@pytest.fixture
def real(tmp_path: Path) -> Iterator[tuple[object, ProxyServer, Upstream]]:
    upstream = Upstream()
    for chain in make_chain(tmp_path):
        chain.edit_config(
            lambda s: (
                s.replace(
                    'transport = "claude_interactive"\n',
                    'transport = "claude_interactive"\ntoken_budget = 1000\n',
                )
                + PROVIDERS.format(base=upstream.base)
            ),
            commit=True,
        )
        ws = chain.workspace()
        env = {"ANTHROPIC_API_KEY": "sk-ant-real", "OPENAI_API_KEY": "sk-openai-real"}
        server = ProxyServer(settings_for(ws, b"k" * 32, env), 0)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield chain, server, upstream
        finally:
            server.shutdown()
            server.server_close()
            ws.close()
            upstream.server.shutdown()
            upstream.server.server_close()


def _post(port: int, path: str, body: object, headers: dict[str, str]) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(
            "POST",
            path,
            body=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", **headers},
        )
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


# -------------------------------------------------- D: cooldown poisoning through a reflected error
def test_an_agent_cannot_rest_its_provider_for_the_fleet_with_text_the_api_echoes(
    real: tuple,  # type: ignore[type-arg]
) -> None:
    """`cooldown_for` reads every >= 400 answer's text with `cooldown_of`, and real APIs echo what
    the request said (Anthropic: `model: <name>` in a 404). An agent asks for a model named like a
    usage-limit message with a far reset: the proxy rests its provider as `quota` for 8 days for the
    whole fleet (every running worker of it is then parked by the conductor, routing skips it)."""
    chain, server, _ = real
    token = attempt_token(chain, "d-poison", "claude-real")
    with chain.workspace() as ws:
        now_s = parse_ts(ws.now()) // 1000
    evil = dict(MESSAGES, model=f"claude-x usage limit reached|{now_s + 30 * 86400}")
    status, body = _post(server.port, "/p/claude-real/v1/messages", evil, {"x-api-key": token})
    assert status == 404, body
    with chain.workspace() as ws:
        standing = providers.standings(ws).get("claude-real")
    assert standing is None or standing.cooldown_until is None, (
        f"a 404 the agent provoked rested claude-real as "
        f"{standing.cooldown_kind} until {standing.cooldown_until}"
    )


# ---------------------------------------------------------------- E: usage the proxy does not count
def test_a_call_whose_usage_the_proxy_cannot_count_is_never_forwarded(real: tuple) -> None:  # type: ignore[type-arg]
    """The proxy reads usage from the calls the CLIs make (Anthropic messages, the Responses API): a
    streamed Chat Completions answer carries its usage elsewhere and would count nothing, so a
    dispatch could spend past its budget forever. It is not a call the Codex CLI makes: refused
    (403), unforwarded."""
    chain, server, _upstream = real
    token = attempt_token(chain, "d-chat", "openai-real", role_id=ROLE)
    request = {
        "model": "gpt-x",
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [{"role": "user", "content": "hi"}],
    }
    statuses = [
        _post(
            server.port,
            "/p/openai-real/chat/completions",
            request,
            {"Authorization": f"Bearer {token}"},
        )[0]
        for _ in range(3)
    ]
    assert statuses == [403, 403, 403]
    assert server.book.used("d-chat").total == 0


# ------------------------------------------------------------------ F: what the token reaches
def test_a_token_reaches_only_the_model_api_its_cli_calls(real: tuple) -> None:  # type: ignore[type-arg]
    """Every path under the provider's base is forwarded with the real key, any method: the agent's
    token is the deliverer's whole account — here it deletes a file of the organisation (OpenAI
    `DELETE /v1/files/<id>`; likewise batches, fine-tuning jobs, vector stores, uncounted by any
    budget), and picks another project of the key with `OpenAI-Project`."""
    chain, server, upstream = real
    token = attempt_token(chain, "d-reach", "openai-real")
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.request(
            "DELETE",
            "/p/openai-real/files/file-of-another-worker",
            headers={"Authorization": f"Bearer {token}", "OpenAI-Project": "proj_someone_elses"},
        )
        status = conn.getresponse().status
    finally:
        conn.close()
    assert upstream.deleted == [], f"forwarded with the real key ({status}): {upstream.deleted}"
