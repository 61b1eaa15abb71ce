"""Attacks on the proxy's room-making (`server.ProxyServer._room`, `guards.Deadlines.evict_oldest`):
when the TCP port's slots are full, or descriptors run short, a new connection closes the one that
has waited longest for its request.

1. A body cut short (its connection closed to make room, or past its deadline) was relayed
   upstream, the part that came, and charged. Now it is refused.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.services.proxy.front import Doors, door_path
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
