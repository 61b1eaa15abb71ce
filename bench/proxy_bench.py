"""Model proxy benchmark: the latency the loopback proxy adds per request and per streamed event.

Against a direct call to the same loopback upstream (issue 13, ADR 0020).

    .venv/bin/python bench/proxy_bench.py [--samples 200] [--events 200]

The upstream is a loopback server in this process answering the Anthropic Messages path: a small
JSON answer, or an SSE stream of `--events` events, each its own flushed chunk. The proxy runs in
this process too, on a fresh chain's state root, checking a real token file and asking the one rule
(the dispatch, ticket and worker records of a live attempt) on every request, and writing its usage
before the answer ends (ADR 0028). Prints medians and the ratio; nothing is asserted.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import (
    median_ms,
    pin_scratch_git,
    print_ratio,
    scratch_anchors,
    table,
    time_interleaved,
)
from oms.process import netrelay
from oms.services.proxy.control import settings_for
from oms.services.proxy.front import Door, door_dir, door_path
from oms.services.proxy.server import ProxyServer
from tests.attempts import attempt_token
from tests.chain import make_chain
from tests.proxy_rig import PROVIDERS

EVENTS = 200


def upstream(events: int) -> ThreadingHTTPServer:
    """A loopback Messages API: JSON when asked `stream: false`, else `events` SSE events, one chunk
    each."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_args: object) -> None:
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            if body.get("stream") is False:
                data = b'{"type":"message","usage":{"input_tokens":10,"output_tokens":5}}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(events):
                event = {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": f"t{i}"},
                }
                data = b"event: content_block_delta\ndata: " + json.dumps(event).encode() + b"\n\n"
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def caller(
    port: int, path: str, headers: dict[str, str], stream: bool, events: int
) -> Callable[[], float]:
    """One request; returns the seconds until the first event (streams) or the whole answer."""
    body = json.dumps(
        {"model": "m", "stream": stream, "messages": [{"role": "user", "content": "hi"}]}
    ).encode()

    def once() -> float:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        start = time.perf_counter()
        conn.request(
            "POST", path, body=body, headers={"Content-Type": "application/json", **headers}
        )
        response = conn.getresponse()
        first = 0.0
        if stream:
            seen = bytearray()
            while piece := response.read1(65536):
                if not first:
                    first = time.perf_counter() - start
                seen += piece
            assert seen.count(b"\n\n") == events
        else:
            response.read()
        conn.close()
        return first

    return once


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--events", type=int, default=EVENTS)
    args = parser.parse_args()
    pin_scratch_git()
    scratch_anchors()
    up = upstream(args.events)
    base = f"http://127.0.0.1:{up.server_address[1]}"
    with tempfile.TemporaryDirectory() as tmp:
        for chain in make_chain(Path(tmp)):
            chain.edit_config(lambda s: s + PROVIDERS.format(base=base, cap=1 << 20), commit=True)
            ws = chain.workspace()
            proxy = ProxyServer(settings_for(ws, b"k" * 32, {"ANTHROPIC_API_KEY": "sk-bench"}), 0)
            threading.Thread(target=proxy.serve_forever, daemon=True).start()
            token = attempt_token(chain, "bench-1", "claude-mock")  # a live attempt: the rule asks
            ws.store.state.root.mkdirs(door_dir("bench-1"))
            front = Door(proxy, ws.store.state.root.listen_unix(door_path("bench-1")), "bench-1")
            threading.Thread(target=front.serve_forever, daemon=True).start()
            relay = socket.create_server(
                ("127.0.0.1", 0)
            )  # what `oms worker netrelay` runs in a sandbox
            door = f"{chain.state}/{door_path('bench-1')}"
            threading.Thread(target=netrelay.serve, args=(relay, door), daemon=True).start()
            direct_port, proxy_port, relay_port = (
                int(up.server_address[1]),
                proxy.port,
                relay.getsockname()[1],
            )
            auth = {"x-api-key": token}
            path = "/p/claude-mock/v1/messages"
            cases = {
                "request, direct": caller(direct_port, "/v1/messages", {}, False, args.events),
                "request, proxied": caller(proxy_port, path, auth, False, args.events),
                "request, relayed": caller(relay_port, path, auth, False, args.events),
                "stream, direct": caller(direct_port, "/v1/messages", {}, True, args.events),
                "stream, proxied": caller(proxy_port, path, auth, True, args.events),
                "stream, relayed": caller(relay_port, path, auth, True, args.events),
            }
            times = time_interleaved(cases, args.samples)
            firsts = {
                name: [cases[name]() for _ in range(args.samples)]
                for name in cases
                if name.startswith("stream")
            }
            front.shutdown()
            relay.close()
            proxy.shutdown()
            proxy.server_close()
            ws.close()
    up.shutdown()
    med = {name: median_ms(samples) for name, samples in times.items()}
    first = {name: median_ms(samples) for name, samples in firsts.items()}
    per_event_us = (med["stream, proxied"] - med["stream, direct"]) - (
        first["stream, proxied"] - first["stream, direct"]
    )
    per_event_us = per_event_us * 1000 / max(1, args.events - 1)
    rows = [
        [
            "request (whole JSON answer)",
            f"{med['request, direct']:.3f}",
            f"{med['request, proxied']:.3f}",
            f"{med['request, proxied'] - med['request, direct']:.3f}",
            f"{med['request, proxied'] / med['request, direct']:.2f}",
        ],
        [
            "stream: first event",
            f"{first['stream, direct']:.3f}",
            f"{first['stream, proxied']:.3f}",
            f"{first['stream, proxied'] - first['stream, direct']:.3f}",
            f"{first['stream, proxied'] / first['stream, direct']:.2f}",
        ],
        [
            f"stream: all {args.events} events",
            f"{med['stream, direct']:.3f}",
            f"{med['stream, proxied']:.3f}",
            f"{med['stream, proxied'] - med['stream, direct']:.3f}",
            f"{med['stream, proxied'] / med['stream, direct']:.2f}",
        ],
    ]
    for row, key in zip(rows, ("request", "first", "stream"), strict=True):
        value = first["stream, relayed"] if key == "first" else med[f"{key}, relayed"]
        row.append(f"{value:.3f}")
    print(
        table(
            ("case (median ms)", "direct", "proxied", "added", "ratio", "relayed (no network)"),
            rows,
        )
    )
    print(
        f"added per streamed event after the first: "
        f"{per_event_us:.1f} us (median, {args.samples} samples)"
    )
    print()
    for what, got, case in (
        ("request", med, "request"),
        ("stream: first event", first, "stream"),
        ("stream: all events", med, "stream"),
    ):
        print_ratio(f"{what}, proxied", got[f"{case}, proxied"], "direct", got[f"{case}, direct"])
        print_ratio(f"{what}, relayed", got[f"{case}, relayed"], "direct", got[f"{case}, direct"])


if __name__ == "__main__":
    main()
