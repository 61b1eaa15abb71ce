"""A worker's request body, read by the proxy (ADR 0020): bounded by `[proxy] max_request_bytes` and
framed exactly — `Content-Length` of ASCII digits, chunk sizes of hex digits ending their line, each
chunk ending where its size says — so no framing trick reads past the bound (a chunk size of `-1`
once read to the end of the stream) or crashes a handler (a `Content-Length` of `²`), and a body
cut short (its connection ended: closed to make room, past its deadline) is refused, never relayed.
"""

from __future__ import annotations

from email.message import Message
from io import BufferedIOBase
from typing import NamedTuple

from oms.domain import proxy as proxy_rules


class Refusal(NamedTuple):
    """Why a body is refused: the status, the error kind and the one-line message."""

    status: int
    kind: str
    message: str


def announced(headers: Message, cap: int) -> int:
    """The bytes a body will hold at most, before any is read: its `Content-Length` (bounded by
    `cap`), or `cap` for a chunked one or a length `read` will refuse."""
    if "chunked" in (headers.get("Transfer-Encoding") or "").lower():
        return cap
    raw = headers.get("Content-Length") or "0"
    return min(int(raw), cap) if proxy_rules.CONTENT_LENGTH.fullmatch(raw) is not None else 0


def read(headers: Message, rfile: BufferedIOBase, cap: int) -> bytes | Refusal:
    """The body, or the refusal (nothing past the bound is read)."""
    if "chunked" in (headers.get("Transfer-Encoding") or "").lower():
        return _chunked(rfile, cap)
    raw = headers.get("Content-Length") or "0"
    # ASCII digits only: `"²".isdigit()` is True
    if proxy_rules.CONTENT_LENGTH.fullmatch(raw) is None:
        return Refusal(400, "oms_proxy_request", "bad Content-Length")
    if int(raw) > cap:
        return Refusal(
            413, "oms_proxy_too_large", f"request body of {raw} bytes (expected at most {cap})"
        )
    body = rfile.read(int(raw))
    if len(body) != int(raw):  # its connection ended first: never relayed cut short
        return Refusal(400, "oms_proxy_request", "the body ended before its Content-Length")
    return body


def _chunked(rfile: BufferedIOBase, cap: int) -> bytes | Refusal:
    body = bytearray()
    while True:
        line = rfile.readline(66)
        size_line = line.split(b";", 1)[0].strip()
        if not line.endswith(b"\n") or proxy_rules.CHUNK_SIZE.fullmatch(size_line) is None:
            return Refusal(400, "oms_proxy_request", "bad chunk size")  # hex digits only: never -1
        size = int(size_line, 16)
        if len(body) + size > cap:
            return Refusal(413, "oms_proxy_too_large", f"request body over {cap} bytes")
        if size == 0:
            while rfile.readline(8192) not in (b"\r\n", b"\n", b""):
                pass  # trailers: dropped
            return bytes(body)
        body += rfile.read(size)
        if rfile.readline(3) not in (b"\r\n", b"\n"):
            return Refusal(400, "oms_proxy_request", "a chunk does not end where its size says")
