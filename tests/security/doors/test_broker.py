"""Attacks on a worker's broker through its socket, as a hostile agent inside the sandbox could make
them with raw connections (bypassing the relay): garbage, oversized, slow, never-ending, too many
and forged requests. Each is bounded, answered per the hook or MCP contract, logged in one line, and
stores nothing; the broker keeps serving the real doors meanwhile (ADR 0012)."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from oms.domain.relay import encode_header
from oms.services.doors.interface import BrokerLimits
from oms.services.doors.worker_doors import WorkerDoors
from tests.agent_side import Bound, ServedBroker, bind, snapshot
from tests.chain import Chain
from tests.helpers import eventually

LIMITS = BrokerLimits(
    max_connections=6,
    header_s=0.5,
    hook_s=1.0,
    body_cap=4096,
    line_cap=4096,
    out_cap=64 * 1024,
    out_s=1.0,
)


@pytest.fixture
def bound(chain: Chain) -> Bound:
    return bind(chain)


@pytest.fixture
def served(bound: Bound) -> Iterator[ServedBroker]:
    doors = WorkerDoors(
        bound.binding("claude"), bound.nonce, str(bound.chain.state), str(bound.chain.repo), print
    )
    broker = ServedBroker(doors, LIMITS)
    yield broker
    broker.stop()


def _connect(served: ServedBroker) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(served.path)
    return sock


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    sock.close()
    return b"".join(chunks)


def _hook(
    served: ServedBroker, bound: Bound, doc: dict[str, Any] | bytes, argv: list[str] | None = None
) -> bytes:
    sock = _connect(served)
    body = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    event = "SessionStart" if isinstance(doc, bytes) else str(doc.get("hook_event_name"))
    sock.sendall(
        encode_header(
            "hook", argv if argv is not None else bound.hook_args("claude", event=event)[2:]
        )
        + body
    )
    sock.shutdown(socket.SHUT_WR)
    return _read_all(sock)


def _answer(data: bytes) -> tuple[dict[str, Any], str]:
    err, _, out = data.partition(b"\n")
    doc = json.loads(out)
    assert isinstance(doc, dict)
    return doc, err.decode()


def _prompt(bound: Bound) -> dict[str, Any]:
    return {"hook_event_name": "UserPromptSubmit", "session_id": bound.session_id, "prompt": "go"}


def _pre_tool(bound: Bound) -> dict[str, Any]:
    return {
        "hook_event_name": "PreToolUse",
        "session_id": bound.session_id,
        "tool_name": "mcp__oms_worker__read_dispatch",
    }


def test_garbage_instead_of_a_header_is_dropped_and_stores_nothing(
    bound: Bound, served: ServedBroker
) -> None:
    before = snapshot(bound.chain.state)
    for junk in (
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
        b"\x00" * 100,
        b"oms-relay-1\x00shell\x000\x00",
    ):
        sock = _connect(served)
        sock.sendall(junk)
        assert _read_all(sock) == b""  # closed without an answer: nothing to answer in a contract
    assert any("not an oms relay" in line or "unknown door" in line for line in served.logs)
    assert snapshot(bound.chain.state) == before
    answer, err = _answer(
        _hook(served, bound, _pre_tool(bound))
    )  # and it still serves the real door
    assert answer == {}
    assert err == ""


def test_a_slow_client_is_dropped_and_never_holds_up_another(
    bound: Bound, served: ServedBroker
) -> None:
    slow = _connect(served)
    slow.sendall(b"oms-relay-1\x00ho")  # and then nothing more
    started = time.monotonic()
    answer, _ = _answer(_hook(served, bound, _pre_tool(bound)))
    assert answer == {}
    assert time.monotonic() - started < LIMITS.header_s  # answered while the slow one still hangs
    assert _read_all(slow) == b""  # dropped at its deadline
    assert any("no header in time" in line for line in served.logs)


def test_a_hook_that_never_ends_its_request_gets_the_safe_answer_at_its_deadline(
    bound: Bound, served: ServedBroker
) -> None:
    before = snapshot(bound.chain.state)
    sock = _connect(served)
    argv = bound.hook_args("claude", event="PreToolUse")[2:]
    sock.sendall(encode_header("hook", argv) + json.dumps(_pre_tool(bound)).encode())
    started = time.monotonic()
    answer, err = _answer(_read_all(sock))  # no EOF from us: the broker gives up at hook_s
    assert time.monotonic() - started < LIMITS.hook_s + 2
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"  # a PreToolUse fails closed
    assert "not complete in time" in err
    assert snapshot(bound.chain.state) == before


@pytest.mark.parametrize("event", ["PreToolUse", "UserPromptSubmit"])
def test_an_oversized_hook_is_refused_safely(
    bound: Bound, served: ServedBroker, event: str
) -> None:
    before = snapshot(bound.chain.state)
    doc = json.dumps(
        {"hook_event_name": event, "session_id": bound.session_id, "pad": "x" * 100_000}
    ).encode()
    answer, err = _answer(_hook(served, bound, doc, bound.hook_args("claude", event=event)[2:]))
    assert "larger than" in err
    if event == "PreToolUse":
        assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"  # fails closed
    else:
        assert answer == {}
    assert snapshot(bound.chain.state) == before


def test_connections_past_the_cap_are_closed_and_service_goes_on(
    bound: Bound, served: ServedBroker
) -> None:
    held = [_connect(served) for _ in range(LIMITS.max_connections)]
    for sock in held:
        sock.sendall(b"oms-relay-1\x00")  # each one accepted and pending
    with contextlib.suppress(AssertionError):  # (what follows shows whether the cap was reached)
        eventually(lambda: len(served.broker.conns) >= LIMITS.max_connections, timeout=5)
    extra = _connect(served)
    assert _read_all(extra) == b""
    assert any("already open" in line for line in served.logs)
    for sock in held:
        sock.close()
    with contextlib.suppress(AssertionError):  # (service goes on either way: the point here)
        eventually(lambda: not served.broker.conns, timeout=5)
    answer, _ = _answer(_hook(served, bound, _prompt(bound)))
    assert answer == {}


def test_forged_bindings_are_refused_and_store_nothing(
    bound: Bound, chain: Chain, served: ServedBroker
) -> None:
    other = bind(chain, "Another ticket")
    before = snapshot(bound.chain.state)

    def forged(event: str) -> list[list[str]]:
        return [
            other.hook_args("claude", event=event)[2:],  # another dispatch and session
            bound.hook_args("codex", event=event)[2:],  # another provider
            bound.hook_args("claude", allowed="Bash,WebFetch", event=event)[
                2:
            ],  # a wider allow-list
            [*bound.hook_args("claude", event=event)[2:-1], "WebFetch"],
        ]

    for argv in forged("UserPromptSubmit"):
        answer, err = _answer(_hook(served, bound, _prompt(bound), argv))
        assert answer == {}
        assert "binding" in err or "hook contract" in err
    for argv in forged("PreToolUse"):
        denied, _ = _answer(_hook(served, bound, _pre_tool(bound), argv))
        assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    sock = _connect(served)
    sock.sendall(
        encode_header("bridge", other.bridge_args()[2:])
        + b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    )
    sock.shutdown(socket.SHUT_WR)
    reply = json.loads(_read_all(sock).splitlines()[0])
    assert "not this worker's binding" in reply["error"]["message"]
    assert snapshot(bound.chain.state) == before


def test_an_oversized_bridge_line_is_refused_and_the_session_goes_on(
    bound: Bound, served: ServedBroker
) -> None:
    sock = _connect(served)
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25"},
    }
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    big = (
        b'{"jsonrpc":"2.0","id":9,"method":"ping","pad":"' + b"x" * (LIMITS.line_cap * 3) + b'"}\n'
    )
    sock.sendall(
        encode_header("bridge", bound.bridge_args()[2:]) + json.dumps(init).encode() + b"\n"
    )
    sock.sendall(big + json.dumps(ping).encode() + b"\n")
    sock.shutdown(socket.SHUT_WR)
    replies = [json.loads(line) for line in _read_all(sock).splitlines()]
    assert [r.get("id") for r in replies] == [1, None, 2]
    assert replies[1]["error"]["code"] == -32600
    assert replies[2]["result"] == {}


def test_a_client_that_never_reads_is_dropped_at_the_output_cap(
    bound: Bound, served: ServedBroker
) -> None:
    sock = _connect(served)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25"},
    }
    sock.sendall(
        encode_header("bridge", bound.bridge_args()[2:]) + json.dumps(init).encode() + b"\n"
    )
    listing = b"".join(
        json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/list"}).encode() + b"\n"
        for i in range(2, 400)
    )
    sock.settimeout(10)
    try:
        sock.sendall(listing)  # 400 tool listings (~1.5 MB of answers) that we never read
    except OSError:
        pass
    eventually(
        lambda: any("does not read" in line for line in served.logs),
        timeout=10,
        what="the broker drops the client that does not read",
    )
    sock.close()
    answer, _ = _answer(_hook(served, bound, _pre_tool(bound)))
    assert answer == {}


def test_a_client_that_sends_past_the_output_cap_and_reads_gets_every_answer(
    bound: Bound, served: ServedBroker
) -> None:
    """400 tool listings sent at once (~1.5 MB of answers, the cap 64 kB), every answer read as it
    comes, then the client's end closed: each is answered, none dropped (ADR 0012, amendment
    `cross7`; failing before: dropped as a client that does not read)."""
    sock = _connect(served)
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25"},
    }
    listing = b"".join(
        json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/list"}).encode() + b"\n"
        for i in range(2, 402)
    )
    sock.sendall(
        encode_header("bridge", bound.bridge_args()[2:])
        + json.dumps(init).encode()
        + b"\n"
        + listing
    )
    sock.shutdown(socket.SHUT_WR)
    replies = [json.loads(line) for line in _read_all(sock).splitlines()]
    assert [r.get("id") for r in replies] == list(range(1, 402))
    assert all("tools" in r["result"] for r in replies[1:])
    assert not any("does not read" in line for line in served.logs), served.logs


def test_two_hundred_hooks_in_a_row_are_each_answered(bound: Bound, served: ServedBroker) -> None:
    answers = [_answer(_hook(served, bound, _pre_tool(bound)))[0] for _ in range(200)]
    assert answers == [{}] * 200
    assert served.broker.served >= 200
