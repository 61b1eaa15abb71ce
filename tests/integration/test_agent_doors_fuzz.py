"""Fuzzing both doors against a real state root: hook stdin and MCP lines (random JSON, wrong types,
huge values, broken UTF-8, control characters) -> no crash, no traceback, and rejected input changes
nothing in the state root. The doors are what the broker applies (`hooks.answer`, the bridge's
tools); the relays are fuzzed as real processes against a real broker."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from oms.domain import mcp
from oms.domain.relay import HOOK_EVENTS, hook_event
from oms.limits import LIMITS
from oms.services.doors import bridge, hooks
from oms.services.doors.progress import Memo
from oms.services.workspace import Workspace
from tests.agent_side import Bound, bind, snapshot
from tests.chain import Chain
from tests.helpers import oms_command

FIXTURES = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
junk_text = st.text(
    alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Cc", "Zs")), max_size=40
) | st.sampled_from(["", "\x00", "\u2028", "a" * 5000, "../../etc", "%0", "$(touch /tmp/x)"])
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | junk_text,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(junk_text, children, max_size=4)
    ),
    max_leaves=15,
)


@pytest.fixture
def bound(chain: Chain) -> Bound:
    return bind(chain)


@pytest.fixture
def ws(bound: Bound) -> Iterator[Workspace]:
    """The broker's workspace (one per test, as one broker keeps one open)."""
    with bound.chain.workspace() as opened:
        yield opened


def _hook_docs(bound: Bound) -> st.SearchStrategy[bytes]:
    fields = st.fixed_dictionaries(
        {},
        optional={
            "hook_event_name": st.sampled_from(hooks.EVENTS) | json_values,
            "session_id": st.sampled_from(
                [bound.session_id, "019a7c1e-5b2f-7d40-8e3a-2b6c9f0e1d42"]
            )
            | json_values,
            "stop_hook_active": st.booleans() | json_values,
            "tool_name": st.sampled_from(["spawn_agent", "mcp__oms_worker__read_dispatch", "Bash"])
            | json_values,
            "tool_input": json_values,
            "prompt": json_values,
            "cwd": json_values,
        },
    ).map(lambda d: json.dumps(d).encode())
    broken = st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode())
    mangled = fields.flatmap(
        lambda b: st.integers(0, max(len(b) - 1, 0)).map(lambda i: b[:i] + b"\xff" + b[i + 1 :])
    )
    return fields | broken | mangled


@settings(max_examples=250, deadline=None, suppress_health_check=FIXTURES)
@given(data=st.data())
def test_hook_fuzz(bound: Bound, ws: Workspace, data: st.DataObject) -> None:
    stdin = data.draw(_hook_docs(bound))
    provider = data.draw(st.sampled_from(["claude", "codex", "command"]))
    allowed = data.draw(st.sampled_from(["", "Bash", "Bash,Read"]))
    binding = bound.binding(provider, allowed)
    registered = data.draw(st.sampled_from(HOOK_EVENTS))
    oms_wrote = bound.hook_args(provider, allowed, event=registered)[2:]
    # what oms wrote, or what an agent typed: another provider, other tools, no event, junk
    argv = data.draw(
        st.just(oms_wrote)
        | st.just(
            bound.hook_args(
                "codex" if provider != "codex" else "claude", allowed, event=registered
            )[2:]
        )
        | st.just(bound.hook_args(provider, "Write", event=registered)[2:])
        | st.just(oms_wrote[2:])
        | st.lists(junk_text, max_size=12)
    )
    before = snapshot(bound.chain.state)
    out, err = hooks.answer(binding, tuple(argv), stdin, lambda: ws, bound.nonce, Memo())
    assert out.endswith(b"\n")
    assert out.count(b"\n") == 1
    answer = json.loads(out)
    assert isinstance(answer, dict)
    assert "\n" not in err
    assert "Traceback" not in err
    event("hook rejected" if err else "hook accepted")
    if err and "liveness" not in err:  # rejected: nothing changed
        assert snapshot(bound.chain.state) == before
    if hook_event(argv) in (
        None,
        "PreToolUse",
    ):  # fail closed: allowed only when everything checks out
        if answer == {}:
            assert argv == oms_wrote
            assert registered == "PreToolUse"
            assert not err
            doc = json.loads(stdin)
            assert doc["hook_event_name"] == "PreToolUse"
            assert hooks.tool_allowed(doc["tool_name"], binding.allowed_tools)
        else:
            assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"


def _mcp_lines() -> st.SearchStrategy[bytes]:
    arguments = (
        st.fixed_dictionaries(
            {},
            optional={
                "status": st.sampled_from(["completed", "blocked", "failed"]) | json_values,
                "summary": json_values,
                "result_commit": st.sampled_from(["0" * 40, "HEAD", "a" * 64]) | json_values,
            },
        )
        | json_values
    )
    call = st.fixed_dictionaries(
        {
            "jsonrpc": st.just("2.0"),
            "id": st.integers(0, 10**6),
            "method": st.just("tools/call"),
            "params": st.fixed_dictionaries(
                {"name": st.sampled_from(list(bridge.TOOL_META)) | junk_text},
                optional={"arguments": arguments},
            ),
        }
    )
    other = st.fixed_dictionaries(
        {},
        optional={
            "jsonrpc": st.just("2.0") | json_values,
            "id": st.integers() | json_values,
            "method": st.sampled_from(["initialize", "ping", "tools/list", "server/discover"])
            | junk_text,
            "params": json_values,
        },
    )
    as_line = (call | other | st.lists(call | other, max_size=3)).map(
        lambda m: json.dumps(m).encode()
    )
    return as_line | st.binary(max_size=300)


def _only_errors(replies: list[Any]) -> bool:
    items = [i for r in replies for i in (r if isinstance(r, list) else [r])]
    return all("error" in i or i.get("result", {}).get("isError") is True for i in items)


@settings(max_examples=250, deadline=None, suppress_health_check=FIXTURES)
@given(lines=st.lists(_mcp_lines(), min_size=1, max_size=6), version=st.sampled_from(mcp.SUPPORTED))
def test_bridge_fuzz(bound: Bound, ws: Workspace, lines: list[bytes], version: str) -> None:
    dispatch_id, session_id = bridge.parse_args(bound.bridge_args()[2:])
    host = bridge.Tools(bridge.BridgeArgs(dispatch_id, session_id, bound.nonce), lambda: ws)
    session = mcp.Session("oms-worker-bridge", "t", "", bridge.tools(), host.call)
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": version},
    }
    mcp.handle_line(session, json.dumps(init).encode())
    try:
        for line in lines:
            before = snapshot(bound.chain.state)
            replies = mcp.handle_line(session, line)
            for reply in replies:
                assert mcp.encode(reply).count(b"\n") == 1
            event("line refused" if _only_errors(replies) else "line answered")
            if _only_errors(replies):
                assert snapshot(bound.chain.state) == before
    finally:
        pass


@settings(max_examples=20, deadline=None, suppress_health_check=FIXTURES)
@given(stdin=st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_bridge_process_fuzz(bound: Bound, stdin: bytes) -> None:
    """The real relay and a real broker: random input then EOF -> exit 0, only JSON-RPC lines on
    stdout, no traceback."""
    before = snapshot(bound.chain.state)
    done = subprocess.run(
        [*oms_command().argv, *bound.bridge_args()],
        input=stdin + b"\n",
        capture_output=True,
        env=bound.env(),
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert b"Traceback" not in done.stderr
    for line in done.stdout.splitlines():
        reply = json.loads(line)
        assert (reply["jsonrpc"] if isinstance(reply, dict) else reply[0]["jsonrpc"]) == "2.0"
    assert snapshot(bound.chain.state) == before


def test_stray_writes_in_the_broker_never_reach_the_protocol(
    bound: Bound, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """A tool that prints (Python or C level) inside the broker cannot corrupt the protocol: the
    relay's stdout carries only what the broker sends over the socket."""
    import os

    real = bridge.Tools.read_dispatch

    def noisy(self: bridge.Tools, arguments: dict[str, Any]) -> dict[str, Any]:
        print("stray print", flush=True)
        os.write(1, b"stray fd write\n")
        return real(self, arguments)

    monkeypatch.setattr(bridge.Tools, "read_dispatch", noisy)
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-11-25"},
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "read_dispatch", "arguments": {}},
        },
    ]
    stdin = b"".join(json.dumps(r).encode() + b"\n" for r in requests)
    done = subprocess.run(
        [*oms_command().argv, *bound.bridge_args()],
        input=stdin,
        capture_output=True,
        env=bound.env(),
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["id"] for r in replies] == [1, 2]
    assert replies[1]["result"]["isError"] is False
    assert "stray print" in capfd.readouterr().out  # it went to the broker's own stdout


def test_hook_stdin_is_read_with_a_cap(bound: Bound, ws: Workspace) -> None:
    big = b"{" + b" " * (LIMITS.hook_stdin_bytes * 3) + b"}"
    before = snapshot(bound.chain.state)
    out, err = hooks.answer(
        bound.binding("claude"),
        tuple(bound.hook_args("claude", event="SessionStart")[2:]),
        big,
        lambda: ws,
        None,
        Memo(),
    )
    assert json.loads(out) == {}
    assert "larger than" in err
    # the real relay reads at most the cap and the broker refuses it the same way
    done = subprocess.run(
        [*oms_command().argv, *bound.hook_args("claude", event="SessionStart")],
        input=big,
        capture_output=True,
        env=bound.env(provider="claude"),
        timeout=60,
        check=False,
    )
    assert (done.returncode, json.loads(done.stdout)) == (0, {})
    assert b"larger than" in done.stderr
    assert done.stderr.count(b"\n") == 1
    assert snapshot(bound.chain.state) == before
