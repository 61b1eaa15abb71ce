"""A hook's answer crosses the broker socket in one framing (docs/adr/0012): the broker writes it
with `domain/relay.encode_answer` and the relay reads it with `parse_answer`, the pair the protocol
tests round-trip. Here a real broker, over a real Unix socket, frames whatever its doors answer
exactly as `encode_answer` does, and a hook it cannot answer gets `domain/relay.unanswered`."""

from __future__ import annotations

import json
import os
import socket
import tempfile
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oms.domain.relay import (
    DENIAL_LINE,
    NO_DECISION_LINE,
    UNVERIFIED,
    denial,
    encode_answer,
    encode_header,
    fails_closed,
    parse_answer,
    unanswered,
)
from oms.services.doors.broker import Broker
from oms.services.doors.interface import BridgeSession, DoorRefusedError

ARGV = ["--provider", "claude", "--event", "SessionStart"]


class _Doors:
    def __init__(self) -> None:
        self.out = b""
        self.err = ""
        self.refuse = False

    def hook(self, argv: tuple[str, ...], body: bytes) -> tuple[bytes, str]:
        if self.refuse:
            raise DoorRefusedError("not this worker's binding")
        return self.out, self.err

    def bridge(self, argv: tuple[str, ...]) -> BridgeSession:
        raise DoorRefusedError("no bridge here")


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Broker, _Doors, str]]:
    with tempfile.TemporaryDirectory(prefix="omsf", dir="/tmp") as where:
        path = os.path.join(where, "b.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(4)
        doors = _Doors()
        broker = Broker(listener, doors, lambda _line: None)
        yield broker, doors, path
        broker.close()
        listener.close()


def _ask(broker: Broker, path: str, argv: list[str]) -> bytes:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(path)
    client.sendall(encode_header("hook", argv) + b"{}")
    client.shutdown(socket.SHUT_WR)
    client.setblocking(False)
    chunks: list[bytes] = []
    try:
        for _ in range(1000):  # each round waits on the broker's selector, not a clock
            broker.run_once(1.0)
            try:
                while chunk := client.recv(65536):
                    chunks.append(chunk)
            except BlockingIOError:
                continue
            return b"".join(chunks)
        raise AssertionError("the broker never closed the hook connection")
    finally:
        client.close()


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(out=st.binary(max_size=300), err=st.text(max_size=40) | st.text(min_size=300, max_size=400))
def test_the_broker_frames_an_answer_with_the_tested_encoder(
    served: tuple[Broker, _Doors, str], out: bytes, err: str
) -> None:
    broker, doors, path = served
    doors.out, doors.err, doors.refuse = out, err, False
    got = _ask(broker, path, ARGV)
    assert got == encode_answer(out, err)
    assert parse_answer(got) == (out, " ".join(err.split())[:300])


@pytest.mark.parametrize("event", ["PreToolUse", "SessionStart", "NoSuchEvent"])
def test_a_refused_hook_gets_the_one_unanswered_line(
    served: tuple[Broker, _Doors, str], event: str
) -> None:
    broker, doors, path = served
    doors.refuse = True
    argv = ["--provider", "claude", "--event", event]
    out, _err = parse_answer(_ask(broker, path, argv))
    assert out == unanswered(argv) == (DENIAL_LINE if fails_closed(argv) else NO_DECISION_LINE)


def test_the_denial_line_is_the_denial_as_the_broker_prints_it() -> None:
    """The relay spells the line out (it imports no json): it must be what `denial` encodes to."""
    assert (json.dumps(denial(UNVERIFIED), separators=(",", ":")) + "\n").encode() == DENIAL_LINE
