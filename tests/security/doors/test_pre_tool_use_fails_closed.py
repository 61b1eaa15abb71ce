"""Issue 10, case 5: PreToolUse fails closed.

oms used to register one hook command for every event and learn the event from the payload, so a
PreToolUse payload that could not be parsed had no event and was answered `{}` (allow): 185 of 1,818
fuzzed calls got through, 16 with the event name present (after 64 KiB of other fields, or beside a
duplicate key or a NaN). Now each event has its own command (`--event` in the argv the CLI runs) and
a PreToolUse hook allows a tool only when its payload is valid, says PreToolUse, and names an
allowed tool; everything else is denied — in the broker, in the relay when the broker cannot be
reached, and when the broker gives up on a request."""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oms.adapters.providers import claude, codex
from oms.adapters.providers.base import LaunchRequest
from oms.domain.relay import HOOK_EVENTS, UNVERIFIED, denial, hook_event
from oms.services.doors import hooks
from oms.services.doors.progress import Memo
from oms.services.workspace import Workspace
from tests.agent_side import Bound, bind, snapshot
from tests.chain import Chain
from tests.helpers import SESSION, oms_command

DENIED_BY_BROKER = denial(UNVERIFIED)
ALLOWED_TOOLS = ("Bash",)


@pytest.fixture
def bound(chain: Chain) -> Bound:
    return bind(chain)


def _request() -> LaunchRequest:
    return LaunchRequest(
        dispatch_id="dsp-1",
        session_id=SESSION,
        role_id="oms.goal-long-executor",
        model="gpt-5-codex",
        worktree="/tmp/wt",
        executable="/opt/oms/oms",
        instructions="Work the dispatch.",
        tools=("Bash",),
    )


@pytest.mark.parametrize("provider", ["codex", "claude"])
def test_each_event_is_registered_with_its_own_command(provider: str) -> None:
    req = _request()
    doc = json.loads(codex.hooks_json(req) if provider == "codex" else claude.settings_json(req))
    assert sorted(doc["hooks"]) == sorted(HOOK_EVENTS)
    for event, groups in doc["hooks"].items():
        commands = [h["command"] for group in groups for h in group["hooks"]]
        assert len(commands) == 1
        argv = shlex.split(commands[0])
        assert argv[1:3] == ["hook", "provider"]
        assert hook_event(argv[3:]) == event  # the event the CLI runs the command for, in its argv


def _no_constant(text: str) -> None:
    raise ValueError(text)


@pytest.fixture
def store(bound: Bound) -> Iterator[Workspace]:
    """One workspace for every example: an allowed tool is let through only while the attempt is not
    fenced, which the decision reads from the store (a payload that is not valid never gets that
    far)."""
    ws = bound.chain.workspace()
    yield ws
    ws.close()


# Payloads an agent's tool call could be turned into, or a CLI bug could send: every way the issue's
# fuzzing got an allow, and valid ones (which decide by the tool).
_scalar = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
_pad = st.sampled_from([0, 10, 70_000]).map(lambda n: {"pad": "x" * n} if n else {})
_event_name = st.sampled_from(["PreToolUse", "Stop", "SessionStart", "pretooluse", ""]) | st.text(
    max_size=12
)
_tool = st.sampled_from(
    ["Bash", "WebFetch", "spawn_agent", "mcp__oms_worker__read_dispatch", "mcp__evil__x", "a b"]
)


@st.composite
def _payloads(draw: st.DrawFn, session: str) -> bytes:
    doc: dict[str, Any] = draw(_pad)
    if draw(st.booleans()):
        doc["hook_event_name"] = draw(_event_name)
    if draw(st.booleans()):
        doc["session_id"] = draw(st.sampled_from([session, "../x", ""]) | st.text(max_size=8))
    if draw(st.booleans()):
        doc["tool_name"] = draw(_tool | _scalar)
    if draw(st.booleans()):
        doc["tool_input"] = draw(st.dictionaries(st.text(max_size=4), _scalar, max_size=3))
    text = json.dumps(doc)
    damage = draw(
        st.sampled_from(
            ["none", "nan", "duplicate", "escape", "truncate", "trailing", "array", "bytes"]
        )
    )
    if damage == "nan":  # a NaN beside the fields
        text = text[:-1] + (', "n": NaN}' if doc else '"n": NaN}')
    elif damage == "duplicate":
        text = text[:-1] + (', "tool_name": "Bash"}' if doc else '"tool_name": "Bash"}')
    elif damage == "escape":  # the event name spelled with an escape: no byte sniffing finds it
        text = text.replace('"PreToolUse"', '"\\u0050reToolUse"')
    elif damage == "truncate":
        text = text[: draw(st.integers(0, max(len(text) - 1, 0)))]
    elif damage == "trailing":
        text += draw(st.sampled_from(["x", "{}", " ]"]))
    elif damage == "array":
        text = f"[{text}]"
    data = text.encode()
    if damage == "bytes":
        data = data[:1] + b"\xff" + data[1:]
    return data


@settings(
    max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_every_invalid_pre_tool_use_payload_is_denied(
    bound: Bound, store: Workspace, data: st.DataObject
) -> None:
    stdin = data.draw(_payloads(bound.session_id))
    binding = bound.binding("claude", ",".join(ALLOWED_TOOLS))
    argv = tuple(bound.hook_args("claude", ",".join(ALLOWED_TOOLS), event="PreToolUse")[2:])
    out, err = hooks.answer(binding, argv, stdin, lambda: store, bound.nonce, Memo())
    answer = json.loads(out)
    try:
        doc = json.loads(stdin, parse_constant=_no_constant)
    except ValueError:  # not JSON, not UTF-8, or a NaN
        doc = None
    valid = (
        isinstance(doc, dict)
        and doc.get("hook_event_name") == "PreToolUse"
        and stdin.count(b'"tool_name"') <= 1
        and doc.get("session_id") == bound.session_id
        and isinstance(doc.get("tool_name"), str)
    )
    allowed = (
        valid
        and doc is not None
        and doc["tool_name"] in (*ALLOWED_TOOLS, "mcp__oms_worker__read_dispatch")
    )
    if allowed:
        assert answer == {}, err
    else:
        assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"


def _relay(
    bound: Bound, event: str, body: bytes, env: dict[str, str]
) -> tuple[dict[str, Any], str]:
    done = subprocess.run(
        [*oms_command().argv, *bound.hook_args("claude", event=event)],
        input=body,
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert done.stderr.count(b"\n") <= 1
    answer = json.loads(done.stdout)
    assert isinstance(answer, dict)
    return answer, done.stderr.decode()


def _pre_tool(bound: Bound, **extra: object) -> dict[str, Any]:
    return {
        "session_id": bound.session_id,
        "hook_event_name": "PreToolUse",
        "tool_name": "WebFetch",
        **extra,
    }


CASES: dict[str, Callable[[Bound], bytes]] = {
    "event name after 64 KiB, with a NaN": lambda b: (
        json.dumps({"pad": "x" * 70_000, **_pre_tool(b)})[:-1] + ', "n": NaN}'
    ).encode(),
    "beside a duplicate key": lambda b: (
        json.dumps(_pre_tool(b))[:-1] + ', "tool_name": "Bash"}'
    ).encode(),
    "event name escaped": lambda b: (
        json.dumps(_pre_tool(b)).replace("PreToolUse", "\\u0050reToolUse").encode() + b" trailing"
    ),
    "no event name": lambda b: json.dumps(
        {"session_id": b.session_id, "tool_name": "WebFetch"}
    ).encode(),
    "a Stop payload": lambda b: json.dumps(
        {"session_id": b.session_id, "hook_event_name": "Stop"}
    ).encode(),
    "empty": lambda _: b"",
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_relay_denies_what_the_broker_cannot_verify(bound: Bound, case: str) -> None:
    """The real relay process against the real broker: the issue's allowed payloads are denied now,
    and the same bytes sent as a Stop hook get no decision (only PreToolUse fails closed)."""
    body = CASES[case](bound)
    before = snapshot(bound.chain.state)
    env = bound.env(provider="claude")
    answer, err = _relay(bound, "PreToolUse", body, env)
    assert answer == DENIED_BY_BROKER, err
    assert snapshot(bound.chain.state) == before
    stop, _ = _relay(bound, "Stop", body, env)
    assert stop == {}


def test_without_a_broker_the_relay_denies_by_its_argv(bound: Bound, tmp_path: Path) -> None:
    """No byte of the payload mentions PreToolUse: the argv decides."""
    env = {**bound.env(provider="claude"), "OMS_BROKER_SOCKET": str(tmp_path / "gone.sock")}
    body = json.dumps({"session_id": bound.session_id, "tool_name": "WebFetch"}).encode()
    denied, err = _relay(bound, "PreToolUse", body, env)
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "no answer from the oms broker" in err
    assert _relay(bound, "UserPromptSubmit", body, env)[0] == {}


def test_a_valid_payload_naming_another_event_is_refused(bound: Bound) -> None:
    """A PreToolUse command fed a SessionStart payload is denied; a SessionStart command fed a
    PreToolUse payload decides nothing (and records nothing)."""
    env = bound.env(provider="claude")
    start = json.dumps({"session_id": bound.session_id, "hook_event_name": "SessionStart"}).encode()
    denied, err = _relay(bound, "PreToolUse", start, env)
    assert denied == DENIED_BY_BROKER
    assert "a PreToolUse hook was sent a SessionStart payload" in err
    before = snapshot(bound.chain.state)
    answer, err = _relay(bound, "SessionStart", json.dumps(_pre_tool(bound)).encode(), env)
    assert answer == {}
    assert "a SessionStart hook was sent a PreToolUse payload" in err
    assert snapshot(bound.chain.state) == before


def test_an_allowed_tool_is_still_allowed(bound: Bound) -> None:
    """The control: a valid PreToolUse for a granted tool passes the same path."""
    env = bound.env(provider="claude")
    body = json.dumps(_pre_tool(bound, tool_name="mcp__oms_worker__read_dispatch")).encode()
    answer, err = _relay(bound, "PreToolUse", body, env)
    assert answer == {}
    assert err == ""
