"""A member of the cluster `oms store verify` reads (ADR 0043) that answers in bad faith is bounded:
a range whose pages do not move on is refused in one line (before, the walk asked for the same page
for ever and held every key it was sent), and one call ends within `Limits.etcd_call_s` however
slowly the member dribbles its answer (before, the bound was per read of the socket, so a member
sending a byte now and then held the call — and the client's lock — for hours).

The member is a stand-in HTTP server speaking etcd's JSON gateway: etcd itself never answers so;
a member of a cluster that is not the person's own, or one compromised, may."""

from __future__ import annotations

import base64
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from oms.adapters.etcd.client import Etcd
from oms.errors import EtcdError, EtcdUnavailableError
from oms.limits import LIMITS

PREFIX = "oms/k/"
CALL_S = 0.5


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _page(key: str) -> bytes:
    kv = {"key": _b64(key), "value": _b64("{}"), "version": "1", "create_revision": "2"}
    return json.dumps({"header": {"revision": "5"}, "kvs": [kv], "more": True}).encode()


def _member(answer: Callable[[BaseHTTPRequestHandler], None]) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            answer(self)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _same_page(handler: BaseHTTPRequestHandler) -> None:
    body = _page(PREFIX + "a")  # the same first key, whatever the range starts at
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def _dribble(handler: BaseHTTPRequestHandler) -> None:
    body = _page(PREFIX + "a")
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    try:
        for byte in body:  # one byte well within the per-read timeout, for ever
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
            time.sleep(CALL_S / 5)  # the hostile member's pace, not a wait for the test
    except OSError:
        pass


@pytest.fixture
def same_page() -> Iterator[str]:
    yield from _member(_same_page)


@pytest.fixture
def dribbling() -> Iterator[str]:
    yield from _member(_dribble)


def test_a_range_that_does_not_move_on_is_refused_in_one_line(same_page: str) -> None:
    client = Etcd([same_page])
    try:
        with pytest.raises(EtcdError, match="out of order") as caught:
            list(itertools.islice(client.range_prefix(PREFIX), 10_000))
        assert "\n" not in caught.value.message
    finally:
        client.close()


def test_a_key_outside_the_range_asked_is_refused(same_page: str) -> None:
    client = Etcd([same_page])
    try:
        with pytest.raises(EtcdError, match="out of order"):
            list(itertools.islice(client.range_prefix("other/"), 10))
    finally:
        client.close()


def test_a_dribbled_answer_ends_within_the_call_bound(dribbling: str) -> None:
    client = Etcd([dribbling], LIMITS._replace(etcd_call_s=CALL_S))
    outcome: list[BaseException | None] = []

    def call() -> None:
        try:
            client.get(PREFIX + "a")
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=call, daemon=True)
    started = time.monotonic()
    thread.start()
    thread.join(timeout=CALL_S * 8)
    assert not thread.is_alive(), "the call was still reading the dribbled answer"
    assert time.monotonic() - started < CALL_S * 8
    assert isinstance(outcome[0], EtcdUnavailableError), outcome
    client.close()


def test_a_dribbled_watch_ends_within_its_wait_and_the_call_bound(dribbling: str) -> None:
    client = Etcd([dribbling], LIMITS._replace(etcd_call_s=CALL_S))
    outcome: list[object] = []

    def watch() -> None:
        try:
            outcome.append(client.watch(PREFIX, 1, wait_s=CALL_S))
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    thread.join(timeout=CALL_S * 8)
    assert not thread.is_alive(), "the watch was still reading the dribbled stream"
    assert outcome, outcome
    client.close()
