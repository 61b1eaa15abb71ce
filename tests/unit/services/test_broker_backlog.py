"""A bridge client that sends many requests and never reads its answers is dropped once the
answers waiting for it pass the broker's `out_cap` (ADR 0012), whatever the order in which the
broker's loop finds its socket readable and writable. One turn that both reads the requests and
writes some answers once left the rest of the requests unanswered in the broker's buffer with
nothing left to wake it: the connection was held forever, neither served nor dropped (a CI run
under load saw it). The loop here is driven turn by turn, so the order is the one that failed."""

from __future__ import annotations

import contextlib
import os
import socket
import tempfile
from collections.abc import Iterator

import pytest

from oms.domain.relay import encode_header
from oms.services.doors.broker import Broker
from oms.services.doors.interface import BridgeSession, BrokerLimits, DoorRefusedError

ANSWER = b"x" * 4000 + b"\n"
LIMITS = BrokerLimits(out_cap=64 * 1024, out_s=1.0)


class _Session:
    def line(self, data: bytes) -> list[bytes]:
        return [ANSWER]

    def oversized(self) -> list[bytes]:
        return [b"{}\n"]


class _Doors:
    def hook(self, argv: tuple[str, ...], body: bytes) -> tuple[bytes, str]:
        raise DoorRefusedError("no hooks here")

    def bridge(self, argv: tuple[str, ...]) -> BridgeSession:
        return _Session()


@pytest.fixture
def served() -> Iterator[tuple[Broker, list[str], str]]:
    with tempfile.TemporaryDirectory(prefix="omsq", dir="/tmp") as where:
        path = os.path.join(where, "b.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(4)
        logs: list[str] = []
        broker = Broker(listener, _Doors(), logs.append, LIMITS)
        yield broker, logs, path
        broker.close()
        listener.close()


def _client(path: str) -> socket.socket:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(path)
    client.sendall(encode_header("bridge", ["--x"]) + b"first\n")
    return client


def test_a_turn_that_reads_and_writes_still_drops_the_client_that_never_reads(
    served: tuple[Broker, list[str], str],
) -> None:
    broker, logs, path = served
    with _client(path) as client:
        broker.run_once(1.0)  # accepts
        broker.run_once(1.0)  # reads the header and the first line: one answer waits to be written
        client.sendall(b"again\n" * 400)  # 1.6 MB of answers that will never be read
        held = 0
        for _ in range(200):  # each turn waits on the broker's selector; none may leave it stuck
            broker.run_once(0.2)
            held = max([held, *(len(c.outbuf) for c in broker.conns)])
            if any("does not read" in line for line in logs):
                break
        assert any("does not read" in line for line in logs), logs
        assert not broker.conns
        assert held <= LIMITS.out_cap + len(ANSWER), held  # its requests waited, unread


@pytest.mark.parametrize("lines", [1, 10])
def test_a_client_that_reads_gets_every_answer_under_the_cap(
    served: tuple[Broker, list[str], str], lines: int
) -> None:
    broker, logs, path = served
    with _client(path) as client:
        broker.run_once(1.0)
        broker.run_once(1.0)
        client.sendall(b"again\n" * lines)
        client.setblocking(False)
        got = b""
        for _ in range(200):
            broker.run_once(0.2)
            try:
                got += client.recv(1 << 20)
            except BlockingIOError:
                pass
            if len(got) == len(ANSWER) * (lines + 1):
                break
        assert got == ANSWER * (lines + 1)
        assert not logs


def test_a_client_that_pipelines_past_the_cap_and_reads_gets_every_answer(
    served: tuple[Broker, list[str], str],
) -> None:
    """A client that sends many requests at once (JSON-RPC lets it) and reads every answer as it
    comes is not one that does not read: the broker answers no faster than it reads, and answers
    every request (found by attack, ADR 0012 amendment `cross7`: it was dropped as the answers to
    one read's requests passed `out_cap`, before any was written)."""
    broker, logs, path = served
    lines = 400  # 1.6 MB of answers to 2.4 kB of requests, one read
    with _client(path) as client:
        broker.run_once(1.0)
        broker.run_once(1.0)
        client.sendall(b"again\n" * lines)
        client.setblocking(False)
        got, held = bytearray(), 0
        for _ in range(2000):
            broker.run_once(0.2)
            held = max([held, *(len(c.outbuf) for c in broker.conns)])
            with contextlib.suppress(BlockingIOError):
                got += client.recv(1 << 20)
            if len(got) >= len(ANSWER) * (lines + 1) or not broker.conns:
                break
        assert not logs, logs
        assert bytes(got) == ANSWER * (lines + 1)
        assert held <= LIMITS.out_cap + len(ANSWER), held  # answered at the pace it reads
