"""`oms hook provider` as the agent CLIs run it: a real process (source or frozen), payloads in each
CLI's shape (ADR 0011 "Hooks"), a delivered dispatch with a real session record."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from oms.domain.relay import UNVERIFIED
from oms.limits import LIMITS
from oms.services.chain.liveness import hook_event_id
from tests.agent_side import Bound, RawClient, bind, snapshot, structured
from tests.chain import Chain, use_worker, wait_for, wait_served
from tests.helpers import OmsCommand

CODEX_THREAD = "019a7c1e-5b2f-7d40-8e3a-2b6c9f0e1d42"


@pytest.fixture
def delivered(deliverable: Chain) -> Bound:
    """A dispatch delivered to a worker that never speaks: the test plays its hooks."""
    from oms.services.delivery.service import Delivery

    out = use_worker(deliverable, "silent")
    bound = bind(deliverable)
    with deliverable.workspace() as ws:
        outcome = Delivery.open(ws).deliver(bound.event_id)["outcome"]
    assert isinstance(outcome, dict)
    assert outcome["status"] == "created"
    wait_served(deliverable, bound.dispatch_id)
    wait_for(
        out
    )  # the worker has written what it writes: from here on only the test's hooks change state
    return bound


def _payload(bound: Bound, event: str, provider: str = "claude", **extra: Any) -> dict[str, Any]:
    session = bound.session_id if provider == "claude" else CODEX_THREAD
    doc: dict[str, Any] = {
        "session_id": session,
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": str(bound.worktree),
        "hook_event_name": event,
    }
    if provider == "codex":
        doc |= {"turn_id": "turn-1", "model": "gpt-5-codex", "permission_mode": "never"}
    return doc | extra


def _hook(
    oms: OmsCommand, bound: Bound, doc: dict[str, Any] | bytes, provider: str = "claude", **kw: str
) -> tuple[dict[str, Any], str]:
    data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    event = kw.get("event") or (
        str(doc["hook_event_name"]) if isinstance(doc, dict) else "SessionStart"
    )
    done = subprocess.run(
        [
            *oms.argv,
            *bound.hook_args(provider, kw.get("allowed", ""), kw.get("version"), event=event),
        ],
        input=data,
        capture_output=True,
        env=bound.env(kw.get("nonce"), provider, kw.get("allowed", "")),
        timeout=60,
        check=False,
    )
    err = done.stderr.decode()
    assert done.returncode == 0
    assert "Traceback" not in err
    assert err.count("\n") <= 1
    out = json.loads(done.stdout)
    assert isinstance(out, dict)
    return out, err


def _session(bound: Bound) -> Any:
    with bound.chain.workspace() as ws:
        return ws.store.records("session").read(bound.session_id)


@pytest.mark.parametrize("provider", ["claude", "codex"])
def test_session_start_tells_the_agent_to_read_its_dispatch(
    oms: OmsCommand, delivered: Bound, provider: str
) -> None:
    before = _session(delivered)
    out, err = _hook(
        oms, delivered, _payload(delivered, "SessionStart", provider, source="startup"), provider
    )
    assert err == ""
    context = out["hookSpecificOutput"]
    assert context["hookEventName"] == "SessionStart"
    assert "read_dispatch" in context["additionalContext"]
    after = _session(delivered)
    assert after.version == before.version + 1
    if provider == "codex":
        assert after.payload["native_session_ref"] == CODEX_THREAD
    with delivered.chain.workspace() as ws:
        event = ws.store.events.read(hook_event_id(delivered.session_id))
    assert (event.payload["provider"], event.payload["hook_event"]) == (provider, "SessionStart")


def test_user_prompt_submit_is_a_heartbeat(oms: OmsCommand, delivered: Bound) -> None:
    before = _session(delivered)
    out, _ = _hook(oms, delivered, _payload(delivered, "UserPromptSubmit", prompt="go"))
    assert out == {}
    after = _session(delivered)
    assert after.version == before.version + 1
    assert after.payload["last_observed_at"] > before.payload["last_observed_at"]


@pytest.mark.parametrize("provider", ["claude", "codex"])
def test_stop_gate_blocks_until_the_result_with_a_cap(
    oms: OmsCommand, delivered: Bound, provider: str
) -> None:
    answers = [
        _hook(
            oms, delivered, _payload(delivered, "Stop", provider, stop_hook_active=active), provider
        )[0]
        for active in (False, True, True)
    ]
    assert [a.get("decision") for a in answers] == ["block", "block", "block"]
    assert "record_dispatch_result" in answers[0]["reason"]
    assert _session(delivered).payload["stop_blocks"] > 0
    prompted, _ = _hook(
        oms, delivered, _payload(delivered, "UserPromptSubmit", provider, prompt="go on"), provider
    )
    assert prompted == {}
    assert _session(delivered).payload["stop_blocks"] == 0
    assert _session(delivered).payload["agent_stopped_at"] is None  # working
    blocked, _ = _hook(
        oms, delivered, _payload(delivered, "Stop", provider, stop_hook_active=False), provider
    )
    assert blocked["decision"] == "block"
    assert _session(delivered).payload["agent_stopped_at"] is None

    client = RawClient(oms, delivered.bridge_args(), delivered.env())
    client.initialize()
    assert structured(client.call("acknowledge_dispatch"))["state"] == "acknowledged"
    commit = delivered.commit_change()
    recorded = client.call(
        "record_dispatch_result", {"status": "completed", "summary": "ok", "result_commit": commit}
    )
    assert structured(recorded)["state"] == "result-received"
    assert client.close() == 0
    released, _ = _hook(
        oms, delivered, _payload(delivered, "Stop", provider, stop_hook_active=False), provider
    )
    assert released == {}
    stopped = _session(delivered)
    assert stopped.state == "running"  # the agent ended its turn; the session and its pane stay
    assert stopped.payload["agent_stopped_at"] is not None
    again, _ = _hook(
        oms, delivered, _payload(delivered, "Stop", provider, stop_hook_active=False), provider
    )
    assert again == {}
    assert (
        _session(delivered).payload["agent_stopped_at"] == stopped.payload["agent_stopped_at"]
    )  # the first
    roots = ["--state-root", str(delivered.chain.state), "--config-root", str(delivered.chain.repo)]
    view = oms.run("worker", "observe", delivered.dispatch_id, *roots, "--json")
    assert view.returncode == 0, view.stderr
    assert json.loads(view.stdout)["agent_stopped_at"] == stopped.payload["agent_stopped_at"]


def test_codex_goal_mode_stops_every_turn_without_prompts(
    oms: OmsCommand, delivered: Bound
) -> None:
    """`/goal` fires Stop after each automatic turn (stop_hook_active false) and no
    UserPromptSubmit."""
    for turn in range(5):
        doc = _payload(delivered, "Stop", "codex", stop_hook_active=False, turn_id=f"turn-{turn}")
        out, _ = _hook(oms, delivered, doc, "codex")
        assert out["decision"] == "block"
    assert _session(delivered).payload["stop_blocks"] == 1


@pytest.mark.parametrize("provider", ["claude", "codex"])
def test_the_cap_lets_a_stop_through_and_the_dispatchs_transport_decides_a_park(
    oms: OmsCommand, delivered: Bound, provider: str
) -> None:
    """Past the cap the Stop is let through. Whether the worker is then parked `no_result` is its
    dispatch's transport's rule (ADR 0045 amendment `ends`), never what the hook says it is: this
    dispatch is a command worker's, which runs on, so Claude-shaped hooks park nothing either.
    Claude Code's own park: tests/integration/test_runaway_agents.py and, with the real CLI,
    tests/e2e/test_real_runaways.py."""
    answers = [
        _hook(
            oms, delivered, _payload(delivered, "Stop", provider, stop_hook_active=active), provider
        )
        for active in (False, True, True, True)
    ]
    assert [a[0].get("decision") for a in answers] == ["block", "block", "block", None]
    assert (
        _session(delivered).payload["agent_stopped_at"] is not None
    )  # let through by the cap: recorded
    roots = ["--state-root", str(delivered.chain.state), "--config-root", str(delivered.chain.repo)]
    view = json.loads(oms.run("worker", "observe", delivered.dispatch_id, *roots, "--json").stdout)
    assert "no_result" not in answers[-1][1]
    assert (view["worker_health"], view["session_state"]) == ("healthy", "running")
    if provider == "claude":
        return
    prompted, _ = _hook(
        oms, delivered, _payload(delivered, "UserPromptSubmit", provider, prompt="go on"), provider
    )
    assert prompted == {}
    assert _session(delivered).payload["agent_stopped_at"] is None  # a prompt re-arms the gate
    blocked, _ = _hook(
        oms, delivered, _payload(delivered, "Stop", provider, stop_hook_active=False), provider
    )
    assert blocked["decision"] == "block"


@pytest.mark.parametrize(
    ("tool", "allowed", "denied"),
    [
        ("spawn_agent", "", True),
        ("create_worktree", "Bash", True),
        ("create_thread", "Bash", True),
        ("mcp__oms_worker__read_dispatch", "", False),
        ("mcp__oms_worker__record_dispatch_result", "", False),
        ("mcp__oms_worker__delete_all", "", True),
        ("mcp__evil__read_dispatch", "", True),
        ("Bash", "Bash,Read", False),
        ("Bash", "Read", True),
        ("apply_patch", "apply_patch", False),
    ],
)
def test_pre_tool_use_allows_only_the_roles_tools(
    oms: OmsCommand, delivered: Bound, tool: str, allowed: str, denied: bool
) -> None:
    doc = _payload(delivered, "PreToolUse", tool_name=tool, tool_input={"x": 1}, tool_use_id="t1")
    out, _ = _hook(oms, delivered, doc, allowed=allowed)
    if denied:
        decision = out["hookSpecificOutput"]
        assert (decision["hookEventName"], decision["permissionDecision"]) == ("PreToolUse", "deny")
        assert tool in decision["permissionDecisionReason"]
    else:
        assert out == {}


def test_a_foreign_contract_version_changes_nothing(oms: OmsCommand, delivered: Bound) -> None:
    before = snapshot(delivered.chain.state)
    out, err = _hook(oms, delivered, _payload(delivered, "SessionStart"), version="claude-9.9")
    assert out == {}
    assert "hook contract" in err
    denied, _ = _hook(
        oms, delivered, _payload(delivered, "PreToolUse", tool_name="Bash"), version="claude-9.9"
    )
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert snapshot(delivered.chain.state) == before


def test_claude_must_report_our_session(oms: OmsCommand, delivered: Bound) -> None:
    before = snapshot(delivered.chain.state)
    doc = _payload(delivered, "SessionStart") | {
        "session_id": "11111111-2222-4333-8444-555555555555"
    }
    out, err = _hook(oms, delivered, doc)
    assert out == {}
    assert "another session" in err
    assert snapshot(delivered.chain.state) == before


def test_a_wrong_nonce_proves_nothing_but_still_answers(oms: OmsCommand, delivered: Bound) -> None:
    out, err = _hook(oms, delivered, _payload(delivered, "SessionStart"), nonce="f" * 64)
    assert "read_dispatch" in out["hookSpecificOutput"]["additionalContext"]
    assert "nonce" in err
    with delivered.chain.workspace() as ws:
        assert hook_event_id(delivered.session_id) not in ws.store.events.ids()


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not json",
        b"[]",
        b"\xff\xfe{}",
        b'{"hook_event_name":"SessionStart"}',
        b'{"hook_event_name":"SessionStart","session_id":"a","session_id":"b"}',
        b'{"hook_event_name":"Stop","session_id":"x","stop_hook_active":"yes"}',
        b'{"hook_event_name":"Explode","session_id":"x"}',
        b'{"hook_event_name":"SessionStart","session_id":"../../etc/passwd"}',
        b'{"hook_event_name":"SessionStart","session_id":"x","n":NaN}',
        b'{"hook_event_name":"SessionStart","session_id":"x\\u0000y"}',
        b"[" * 100_000,
        b'{"hook_event_name":"SessionStart","session_id":"x","pad":"'
        + b"a" * LIMITS.hook_stdin_bytes
        + b'"}',
    ],
)
def test_garbage_stdin_is_one_line_and_no_change(
    oms: OmsCommand, delivered: Bound, data: bytes
) -> None:
    before = snapshot(delivered.chain.state)
    out, err = _hook(oms, delivered, data)
    assert out == {}
    assert err.startswith("oms hook: ")
    assert err.endswith("\n")
    assert snapshot(delivered.chain.state) == before


def test_garbage_pre_tool_use_fails_closed(oms: OmsCommand, delivered: Bound) -> None:
    out, _ = _hook(
        oms,
        delivered,
        b'{"hook_event_name":"PreToolUse","session_id":"x","tool_name":"a b"}',
        event="PreToolUse",
    )
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.parametrize(
    ("argv", "denied"),
    [
        (["--event", "Stop", "--provider", "codex"], False),  # a Stop hook: no decision
        (["--provider", "codex"], True),  # no event oms registers: fail closed
        (["--event", "Explode", "--provider", "codex"], True),
        (["--event", "PreToolUse", "--provider", "codex"], True),
    ],
)
def test_bad_arguments_answer_safely(oms: OmsCommand, argv: list[str], denied: bool) -> None:
    done = oms.run("hook", "provider", *argv, stdin=b'{"hook_event_name":"Stop","session_id":"x"}')
    answer = json.loads(done.stdout)
    assert done.returncode == 0
    assert answer == ({"hookSpecificOutput": _DENIED} if denied else {})
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr


_DENIED = {
    "hookEventName": "PreToolUse",
    "permissionDecision": "deny",
    "permissionDecisionReason": UNVERIFIED,
}


HEAVY = {
    "dataclasses": "dataclass creation imports inspect",
    "inspect": "~4 ms of ast/dis/tokenize",
    "typing": "~3 ms; the relay's own types are plain classes",
    "enum": "socket.py's IntEnums: the relay uses the C module _socket",
    "socket": "the relay uses the C module _socket",
    "json": "the relay frames with NUL bytes, not JSON",
    "re": "nothing to match in a relay",
    "datetime": "no clock in a relay",
    "hashlib": "loads OpenSSL's libcrypto",
    "jsonschema": "the broker validates, not the relay",
    "typer": "the relay dispatches before the CLI",
    "click": "the relay dispatches before the CLI",
    "pathlib": "no files in a relay",
}
RELAY_MODULES = {
    "oms",
    "oms.version",
    "oms.cli",
    "oms.cli.entry",
    "oms.cli.relay",
    "oms.domain",
    "oms.domain.relay",
}


@pytest.mark.parametrize("event", ["PreToolUse", "SessionStart", "UserPromptSubmit", "Stop"])
def test_a_hook_relay_loads_only_what_it_uses(delivered: Bound, event: str) -> None:
    """docs/adr/0010, 0012: every hook start pays for every import, and inside the sandbox a hook is
    only a relay: it loads the frame code and the C socket module, and nothing of the store, the
    schemas or the services (inspected in a source interpreter; the frozen binary is timed in
    bench/)."""
    import sys

    doc = (
        _payload(delivered, event, tool_name="Bash")
        if event == "PreToolUse"
        else _payload(delivered, event)
    )
    probe = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from oms.cli.entry import main\n"
        "main(sys.argv[1:])\n"
        "sys.stderr.write(repr(sorted(set(sys.modules) - before)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", probe, *delivered.hook_args("claude", "Bash", event=event)],
        input=json.dumps(doc).encode(),
        capture_output=True,
        env={
            **delivered.env(provider="claude", allowed="Bash"),
            "PYTHONPATH": str(Path(__file__).parents[2]),
        },
        timeout=60,
        check=True,
    )
    loaded = set(eval(done.stderr.decode()))  # noqa: S307 - our own probe's repr of a list of names
    assert json.loads(done.stdout) is not None  # the hook answered
    heavy = {name: why for name, why in HEAVY.items() if name in loaded}
    assert heavy == {}
    assert {m for m in loaded if m.startswith("oms")} <= RELAY_MODULES
