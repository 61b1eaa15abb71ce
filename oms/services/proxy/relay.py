"""One request relayed by the model proxy to its upstream, the answer streamed back as it arrives
(issue 13, ADR 0020).

The request body was read whole (it is bounded); the answer never is: each piece the upstream sends
passes the usage reader (`domain/proxy_usage.py`), then is written to the worker as one HTTP chunk
and flushed. A worker that hangs up does not end the reading: the answer is read to its end
(`Limits.proxy_drain_s`, `Limits.proxy_drain_bytes` at most) so its usage is counted; an answer
whose last usage never came is charged the output its request asked for (`Answer.final`). Only an
error answer's first `Limits.proxy_error_body_bytes` bytes are held, to see whether it calls for a
cooldown before the worker sees it. A new upstream connection serves each request.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from io import BufferedIOBase
from urllib.parse import urlsplit

from oms.domain import proxy as proxy_rules
from oms.domain import proxy_usage as counting
from oms.limits import LIMITS

_NO_BODY = (204, 304)


@dataclass(frozen=True, slots=True)
class Outgoing:
    """What to send upstream."""

    method: str
    base: str  # the provider's upstream base URL
    rest: str  # the path after /p/<provider_id>/, query included
    headers: proxy_rules.Headers
    body: bytes


@dataclass(frozen=True, slots=True)
class Answer:
    """How a relay went: the upstream status (0: none reached), the tokens counted, the bytes sent,
    and whether the answer went through whole (else the worker's connection must close)."""

    status: int
    usage: counting.Usage | None
    sent: int
    complete: bool = True
    final: bool = (
        True  # the answer reported its last usage (else the request's asked-for output is charged)
    )


class Downstream:
    """The worker's side of a relay: the status line and headers, then chunks (`http.server` handler
    parts)."""

    def __init__(
        self,
        start: Callable[[int, proxy_rules.Headers], None],
        wfile: BufferedIOBase,
    ) -> None:
        self._start = start
        self._wfile = wfile

    def head(self, status: int, headers: proxy_rules.Headers) -> None:
        """Send the status line and headers."""
        self._start(status, headers)

    def chunk(self, data: bytes) -> None:
        """Send one chunk and flush it."""
        if data:
            self._wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self._wfile.flush()

    def end(self) -> None:
        """The last chunk."""
        self._wfile.write(b"0\r\n\r\n")
        self._wfile.flush()


def _connect(base: str) -> tuple[http.client.HTTPConnection, str, str]:
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) upstream: {base}")
    conn: http.client.HTTPConnection
    if parts.scheme == "https":
        context = ssl.create_default_context()
        conn = http.client.HTTPSConnection(
            parts.hostname, parts.port, timeout=LIMITS.proxy_upstream_s, context=context
        )
    else:
        conn = http.client.HTTPConnection(
            parts.hostname, parts.port, timeout=LIMITS.proxy_upstream_s
        )
    return conn, parts.netloc, parts.path.rstrip("/")


def relay(
    out: Outgoing,
    down: Downstream,
    on_error: Callable[[int, bytes, Mapping[str, str]], None],
    on_done: Callable[[Answer], bool] | None = None,
) -> Answer:
    """Send `out` upstream and stream its answer to `down`; `on_error(status, first bytes, headers)`
    sees an error answer before the worker does; `on_done(answer)` sees an answer the upstream
    finished before its last chunk is released to the worker (False: it is not, the worker's stream
    breaks off). An upstream that cannot be reached is a 502 to the worker."""
    try:
        conn, netloc, base_path = _connect(out.base)
    except ValueError as exc:
        _bad_gateway(down, str(exc))
        return Answer(0, None, 0)
    try:
        try:
            conn.connect()
            if conn.sock is not None:
                conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn.putrequest(
                out.method, f"{base_path}/{out.rest}", skip_host=True, skip_accept_encoding=True
            )
            conn.putheader("Host", netloc)
            for name, value in out.headers:
                conn.putheader(name, value)
            conn.putheader("Content-Length", str(len(out.body)))
            conn.endheaders(out.body)
            response = conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            _bad_gateway(down, f"upstream {netloc} did not answer: {type(exc).__name__}: {exc}")
            return Answer(0, None, 0)
        except (
            ValueError
        ) as exc:  # a header value http.client refuses: its text may hold a key, never shown
            _bad_gateway(down, f"the request to {netloc} could not be sent: {type(exc).__name__}")
            return Answer(0, None, 0)
        return _stream(out.method, conn, response, down, on_error, on_done)
    finally:
        conn.close()


def _stream(
    method: str,
    conn: http.client.HTTPConnection,
    response: http.client.HTTPResponse,
    down: Downstream,
    on_error: Callable[[int, bytes, Mapping[str, str]], None],
    on_done: Callable[[Answer], bool] | None,
) -> Answer:
    status = response.status
    headers = list(response.getheaders())
    held = b""
    if status >= 400:
        while len(held) < LIMITS.proxy_error_body_bytes and (
            piece := response.read1(LIMITS.proxy_error_body_bytes - len(held))
        ):
            held += piece
        on_error(status, held, {k.lower(): v for k, v in headers})
    relayed = proxy_rules.downstream_headers(headers)
    bodiless = method == "HEAD" or status in _NO_BODY or 100 <= status < 200
    if not bodiless:
        relayed.append(("Transfer-Encoding", "chunked"))
    down.head(status, relayed)
    if bodiless:
        return Answer(status, None, 0)
    kind = (response.getheader("Content-Type") or "").lower()
    reader = _Reader(kind, status)
    sent, drained, gone_at = 0, 0, None
    piece = held
    complete = False
    while True:
        if piece:
            reader.feed(
                piece
            )  # counted before it is sent: a worker that hangs up is counted all the same
            if gone_at is None:
                try:
                    down.chunk(piece)
                    sent += len(piece)
                except (
                    OSError
                ):  # the worker hung up: the answer is still read, and counted, to its end
                    gone_at = time.monotonic()
            else:
                drained += len(piece)
            if gone_at is not None:
                left = LIMITS.proxy_drain_s - (time.monotonic() - gone_at)
                if left <= 0 or drained > LIMITS.proxy_drain_bytes:
                    break
                if conn.sock is not None:
                    conn.sock.settimeout(left)
        try:
            piece = response.read1(LIMITS.proxy_read_bytes)
        except (OSError, http.client.HTTPException):
            break  # the upstream broke off: the worker's stream ends without its last chunk
        if not piece:
            done = Answer(status, reader.usage, sent, False, reader.final)
            if gone_at is None and (on_done is None or on_done(done)):  # (its cost on disk first)
                with contextlib.suppress(OSError):
                    down.end()
                    complete = True
            break
    return Answer(status, reader.usage, sent, complete, reader.final)


class _Reader:
    """The usage of an answer as its pieces pass: SSE events, or a whole JSON answer (bounded)."""

    def __init__(self, kind: str, status: int) -> None:
        self.sse = counting.SseUsage() if "text/event-stream" in kind else None
        self.whole: bytearray | None = (
            bytearray() if self.sse is None and "json" in kind and status < 400 else None
        )
        self._error = status >= 400

    def feed(self, piece: bytes) -> None:
        if self.sse is not None:
            self.sse.feed(piece)
        elif self.whole is not None:
            self.whole += piece
            if len(self.whole) > LIMITS.proxy_usage_json_bytes:
                self.whole = None

    @property
    def usage(self) -> counting.Usage | None:
        if self.sse is not None:
            return self.sse.usage
        return counting.usage_of_json(bytes(self.whole)) if self.whole is not None else None

    @property
    def final(self) -> bool:
        """Did the answer report its last usage (an error answer costs no output)?"""
        if self._error:
            return True
        return self.sse.final if self.sse is not None else self.usage is not None


def _bad_gateway(down: Downstream, why: str) -> None:
    body = proxy_rules.error_body("oms_proxy_upstream", why)
    down.head(502, [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")])
    down.chunk(body)
    down.end()
