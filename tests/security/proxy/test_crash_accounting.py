"""Budgets hold across crashes of the model proxy (issue 24 item 3, ADR 0028).

Before: usage was kept in memory and written at most once a second. Budget 5,000 tokens; 3 answers
(3,900 tokens); SIGKILL the proxy; the restarted proxy found 0 on disk and forwarded 4 more answers:
9,100 tokens spent against 5,000, and the record said 5,200.

Now what a request may cost is reserved on disk before it is forwarded and its answer's cost written
before the answer's last chunk is released. The real `oms proxy serve` is killed (SIGKILL) at 50
random moments while a client asks through it without pause and a scripted upstream bills every
request it hears; after every kill the usage on disk covers everything billed, and the dispatch ends
its budget having spent at most one answer more than it."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import signal
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from oms.canonical import access
from oms.fsio.procinfo import is_alive
from oms.process import reap
from oms.services.proxy import control as proxy_control
from oms.services.proxy import tokens as proxy_tokens
from tests.attempts import attempt_token
from tests.chain import Chain, make_chain
from tests.helpers import eventually

ROLE = "oms.ticket-executor"
INPUT, OUTPUT = 1000, 300  # what every answer costs (1,300 tokens, as in the issue)
ANSWER = INPUT + OUTPUT
BUDGET = 40 * ANSWER
KILLS = 50
SEED = 24
PROMPT = "x" * 4000  # a request's body holds at least as many bytes as the tokens its input costs


class Upstream:
    """A scripted Messages API: every request it hears is billed in full, its answer streamed in
    pieces."""

    def __init__(self) -> None:
        self.billed = 0
        self.lock = threading.Lock()
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: object) -> None:
                return

            def handle(self) -> None:
                with contextlib.suppress(OSError):  # a killed proxy resets its connection
                    super().handle()

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with upstream.lock:
                    upstream.billed += ANSWER  # the model spent it, whoever hears the answer
                events: list[dict[str, Any]] = [
                    {
                        "type": "message_start",
                        "message": {"usage": {"input_tokens": INPUT, "output_tokens": 1}},
                    },
                    *({"type": "content_block_delta", "delta": {"text": "t"}} for _ in range(4)),
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": "end_turn"},
                        "usage": {"output_tokens": OUTPUT},
                    },
                    {"type": "message_stop"},
                ]
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    for event in events:
                        data = f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                        self.wfile.flush()
                        time.sleep(0.005)
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except OSError:
                    return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def budgeted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Chain, Upstream]]:
    upstream = Upstream()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real-key")
    try:
        for chain in make_chain(tmp_path):
            chain.edit_config(
                lambda s: (
                    s.replace(
                        'transport = "claude_interactive"\n',
                        f'transport = "claude_interactive"\ntoken_budget = {BUDGET}\n',
                    )
                    + '\n[providers.claude-up]\nfamily = "anthropic"\n'
                    + f'endpoint = "{upstream.base}"\n'
                ),
                commit=True,
            )
            yield chain, upstream
    finally:
        upstream.server.shutdown()
        upstream.server.server_close()


@pytest.mark.slow
def test_fifty_kills_never_let_a_dispatch_spend_past_its_budget_by_more_than_one_answer(
    budgeted: tuple[Chain, Upstream],
) -> None:
    chain, upstream = budgeted
    token = attempt_token(chain, "d-crash", "claude-up", role_id=ROLE)
    body = json.dumps(
        {
            "model": "m",
            "max_tokens": OUTPUT,
            "stream": True,
            "messages": [{"role": "user", "content": PROMPT}],
        }
    ).encode()
    rng = random.Random(SEED)
    port = [0]
    refused: list[str] = []
    stop = threading.Event()

    def client() -> None:  # an agent that asks again at once, whatever happened
        while not stop.is_set():
            conn = http.client.HTTPConnection("127.0.0.1", port[0], timeout=10)
            try:
                key = {"x-api-key": token}
                conn.request("POST", "/p/claude-up/v1/messages", body=body, headers=key)
                response = conn.getresponse()
                said = response.read()
                if response.status == 429:
                    refused.append(said.decode(errors="replace"))
            except (OSError, http.client.HTTPException):
                time.sleep(0.005)
            finally:
                conn.close()

    with chain.workspace() as ws:
        started = proxy_control.start(ws)
    assert started.record is not None
    port[0] = access.integer(started.record, "port")
    thread = threading.Thread(target=client, daemon=True)
    thread.start()
    try:
        for _ in range(KILLS):
            time.sleep(rng.uniform(0.0, 0.15))
            pid = access.integer(started.record, "pid")
            os.kill(pid, signal.SIGKILL)
            with chain.workspace() as ws:
                _gone(ws, started)
                found = proxy_tokens.read_usage(ws.store.state.root, "d-crash", charged=True)
                on_disk = found[0].total
                with upstream.lock:
                    billed = upstream.billed
                lost = f"billed {billed}, on disk {on_disk}: a killed proxy lost usage"
                assert billed <= on_disk, lost
                started = proxy_control.start(ws)
            assert started.record is not None
            port[0] = access.integer(started.record, "port")
        eventually(
            lambda: any("oms_token_budget" in r for r in refused),
            timeout=60,
            what="the budget is reached",
        )
    finally:
        stop.set()
        thread.join(30)
        with chain.workspace() as ws:
            proxy_control.stop(ws)
    with upstream.lock:
        billed = upstream.billed
    over = (billed - BUDGET) / ANSWER
    print(f"\n{KILLS} kills: billed {billed} of a {BUDGET} budget ({over:+.2f} answers)")
    assert billed <= BUDGET + ANSWER, f"billed {billed} against a budget of {BUDGET}"


def _gone(ws: object, started: proxy_control.Status) -> None:
    """Wait for the killed proxy to be gone (reaped: it was started by this process)."""
    assert started.record is not None
    identity = proxy_control._identity(started.record)

    def reaped() -> bool:
        reap(identity.pid)
        return not is_alive(identity)

    eventually(reaped, timeout=10, what="the killed proxy is gone", max_poll=0.005)
