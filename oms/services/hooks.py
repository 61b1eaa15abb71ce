"""The agent CLIs' hooks, applied by the broker (research/codex.md §2.5-2.7, §3.2-3.4; ADR 0012).

Inside a worker's sandbox `oms hook provider` is a relay (`cli/relay.py`); the pane's broker calls
`answer` with the relay's argv and stdin. The argv is what oms wrote into the agent's hook configuration;
every binding value in it must equal the broker's own (`Binding`), which is the only source of authority.

Hook stdin is untrusted: bounded, parsed strictly (duplicate keys, NaN refused), checked field by field.
A hook never blocks an agent by accident: on any problem it answers with no decision and one stderr
line — except PreToolUse, which then denies (fail closed). oms registers one command per event, with the
event in its argv (`--event`): the event a hook answers for is the one the CLI ran, never what the payload
says, so a payload that cannot be parsed still gets the event's safe answer, and a payload naming another
event is refused. Exit 2 is never used; decisions are JSON on stdout in each CLI's contract.

- SessionStart: the session is observed (heartbeat; Codex's own session id recorded as the native
  ref) and the agent is told to call `read_dispatch` (`additionalContext`).
- UserPromptSubmit: heartbeat (delivery confirms the typed instruction by it); the first one records
  `agent_prompted_at` (from then on the agent's native session can be resumed in a new pane).
- Stop: while the dispatch has no result, block with a reason; honour `stop_hook_active` and oms's own
  cap on consecutive blocks (Codex has none; `/goal` fires Stop on every automatic turn).
- PreToolUse: deny, with a reason, every tool outside the role's allow-list (the bridge tools plus the
  tools the committed policy grants), e.g. Codex's `spawn_agent` or `create_worktree`, from the broker's
  binding; an allowed tool is then let through only while the attempt is not fenced.
Every other accepted hook also proves the hook channel once (the liveness proof) with the broker's nonce.
A fenced attempt (its lease or live authorisation lapsed: `services/fence.py`) records nothing: every
tool is denied, no Stop is held back, the worker is parked, and the reason is the relay's stderr line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from oms.domain.relay import BRIDGE_TOOL_PREFIX, BRIDGE_TOOLS

if TYPE_CHECKING:
    from oms.services.workspace import Workspace

STDIN_CAP = 1024 * 1024
STOP_BLOCK_CAP = 3
HEARTBEAT_EVERY_MS = 30_000
PROMPT_BEAT_MS = 250
EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "PreToolUse", "PostToolUse", "SessionEnd", "Interrupt")
_NATIVE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
_TOOL = re.compile(r"[A-Za-z0-9_.:-]{1,128}")
CONTEXT = (
    "You are an oms worker. Start by calling the read_dispatch tool of the oms_worker MCP server, then "
    "acknowledge_dispatch; work only in this worktree and leave your changes there (oms commits them); "
    "finish with record_dispatch_result."
)
STOP_REASON = (
    "This dispatch has no result yet. Finish the work in the worktree and call record_dispatch_result "
    "(status completed, blocked or failed) before you stop."
)


class HookInputError(Exception):
    """The hook's input or arguments cannot be trusted."""


class HookArgs(NamedTuple):
    """The hook command line oms wrote into the agent's configuration (and the broker's own binding)."""

    provider: str
    provider_version: str
    dispatch_id: str
    session_id: str
    allowed_tools: tuple[str, ...]


def parse_args(argv: tuple[str, ...] | list[str]) -> tuple[HookArgs, str]:
    """The binding and the event of a hook command line. Strict: every option once, nothing else."""
    from oms.domain.relay import HOOK_EVENTS, HOOK_OPTIONS, RelayError, options
    from oms.version import HOOK_CONTRACT

    try:
        values = options(tuple(argv), HOOK_OPTIONS)
    except RelayError as exc:
        raise HookInputError(str(exc)) from exc
    if values["--event"] not in HOOK_EVENTS:
        raise HookInputError(f"oms registers no hook for the event {values['--event'][:40]!r}")
    provider = values["--provider"]
    if provider not in HOOK_CONTRACT:
        raise HookInputError(f"unknown provider {provider[:40]!r}")
    if values["--provider-version"] != HOOK_CONTRACT[provider]:
        raise HookInputError(
            f"hook contract {values['--provider-version'][:40]!r} is not the one oms writes for "
            f"{provider} ({HOOK_CONTRACT[provider]})"
        )
    tools = tuple(t for t in values["--allowed-tools"].split(",") if t)
    if any(_TOOL.fullmatch(t) is None for t in tools):
        raise HookInputError("malformed --allowed-tools")
    binding = HookArgs(provider, values["--provider-version"], values["--dispatch-id"], values["--session-id"], tools)
    return binding, values["--event"]


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise HookInputError(f"duplicate key {key[:40]!r}")
        out[key] = value
    return out


def _reject_constant(text: str) -> Any:
    raise HookInputError(f"{text} is not allowed")


def parse_payload(data: bytes) -> dict[str, Any]:
    """The hook payload: one JSON object with the fields oms uses, each of the right type."""
    if len(data) > STDIN_CAP:
        raise HookInputError(f"hook input is larger than {STDIN_CAP} bytes")
    try:
        doc = json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise HookInputError(f"hook input is not JSON ({str(exc)[:80]})") from exc
    if not isinstance(doc, dict):
        raise HookInputError("hook input is not a JSON object")
    event = doc.get("hook_event_name")
    if event not in EVENTS:
        raise HookInputError(f"unknown hook event {str(event)[:40]!r}")
    session = doc.get("session_id")
    if not isinstance(session, str) or _NATIVE.fullmatch(session) is None:
        raise HookInputError("hook input has no usable session_id")
    if "stop_hook_active" in doc and not isinstance(doc["stop_hook_active"], bool):
        raise HookInputError("stop_hook_active is not a boolean")
    if event == "PreToolUse" and (
        not isinstance(doc.get("tool_name"), str) or _TOOL.fullmatch(doc["tool_name"]) is None
    ):
        raise HookInputError("PreToolUse without a usable tool_name")
    return doc


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def deny(reason: str) -> dict[str, Any]:
    """A PreToolUse denial in both CLIs' contract."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason[:500],
        }
    }


def tool_allowed(tool: str, allowed: tuple[str, ...]) -> bool:
    """Bridge tools appear as `mcp__oms_worker__<tool>`; other tools by their CLI name."""
    if tool.startswith("mcp__"):
        return tool.startswith(BRIDGE_TOOL_PREFIX) and tool.removeprefix(BRIDGE_TOOL_PREFIX) in BRIDGE_TOOLS
    return tool in allowed


def respond(
    args: HookArgs,
    doc: dict[str, Any],
    workspace: Callable[[], Workspace],
    nonce: str | None,
    notes: list[str] | None = None,
) -> dict[str, Any]:
    """Decide and record; returns the JSON to print. `args` is the broker's own binding; lines for the
    relay's stderr are appended to `notes`."""
    notes = [] if notes is None else notes
    event = str(doc["hook_event_name"])
    if event == "PreToolUse":
        if args.provider == "claude" and doc["session_id"] != args.session_id:
            return deny("oms: Claude Code reported another session id")
        if not tool_allowed(str(doc["tool_name"]), args.allowed_tools):
            return deny(f"oms: the tool {doc['tool_name']} is not allowed for this worker's role")
    from oms.canonical import add_ms, next_after, parse_ts, stable_id
    from oms.domain import sessions
    from oms.errors import OmsError, VersionConflictError
    from oms.services import fence, liveness

    ws = workspace()
    dispatch = ws.store.records("dispatch").read(args.dispatch_id)
    if dispatch.payload.get("session_id") != args.session_id:
        raise HookInputError("hook is not bound to the dispatch's session")
    if args.provider == "claude" and doc["session_id"] != args.session_id:
        raise HookInputError("Claude Code reported another session id")
    fenced = fence.door_reason(ws, dispatch)
    if fenced is not None:  # lapsed authority: record nothing, run no tool, hold no Stop
        fence.park(ws, dispatch.record_id, fenced, "oms-hook")
        notes.append(fenced)
        return deny(f"oms: {fenced}") if event == "PreToolUse" else {}
    if event == "PreToolUse":
        return {}
    try:
        liveness.record_hook(ws, dispatch, nonce, args.provider, event, str(doc["session_id"]))
    except OmsError as exc:
        notes.append(f"liveness not recorded: {exc.message}")
    records = ws.store.records("session")
    has_result = dispatch.state in ("result-received", "resolved")
    hold = None  # whether a Stop is held back, once decided against the session's latest version
    current = None  # the latest session version this hook knows of
    for _ in range(3):  # heartbeats race with delivery and other hooks: re-read and retry
        session = current = records.read_if_exists(args.session_id)
        if session is None or session.state != "running":
            break
        now = next_after(session.observed_at, ws.now())
        last = str(session.payload["last_observed_at"])
        due = parse_ts(now) >= parse_ts(add_ms(last, HEARTBEAT_EVERY_MS))
        # a prompt or a start is worth a version (delivery confirms activation by it), but after another
        # hook's version not more often than every PROMPT_BEAT_MS: a hook loop must not grow the record
        # without bound
        spaced = session.actor != "oms-hook" or parse_ts(now) >= parse_ts(add_ms(last, PROMPT_BEAT_MS))
        prompt = event in ("SessionStart", "UserPromptSubmit") and spaced
        payload, hold = next_payload(session.payload, args, doc, has_result=has_result, now=now)
        if payload == session.payload and not (due or prompt):
            break
        beat = sessions.heartbeat(session.state, payload, now=now)
        try:
            written = records.transition(
                session.record_id,
                expected_version=session.version,
                state=beat.state,
                payload=beat.payload,
                operation_id=stable_id("hook", session.record_id, session.version, event),
                actor="oms-hook",
                observed_at=now,
            )
            current = records.read(session.record_id) if written.replayed else written.record
            break
        except VersionConflictError:
            current = hold = None
            continue
    if event == "SessionStart":
        return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": CONTEXT}}
    if event == "Stop" and not has_result:
        if current is None:  # every heartbeat attempt raced: decide on the latest version, unrecorded
            current = records.read_if_exists(args.session_id)
            if current is not None:
                hold = next_payload(current.payload, args, doc, has_result=False, now=current.observed_at)[1]
        if current is None or current.state != "running" or hold is None:
            return {}  # a parked or stopped session is not held back
        if not hold:
            notes.append("stop gate released after its cap of consecutive blocks")
            return {}
        return {"decision": "block", "reason": STOP_REASON}
    return {}


def next_payload(
    payload: dict[str, Any], args: HookArgs, doc: dict[str, Any], *, has_result: bool, now: str
) -> tuple[dict[str, Any], bool]:
    """The session payload after hook `doc`, and whether a Stop is held back (pure).

    Stop without a result blocks and counts consecutive blocks (`stop_hook_active` continues a run,
    anything else starts one); past the cap it is let through. A Stop that is let through records when
    the agent stopped (`agent_stopped_at`, kept from the first such Stop); SessionStart, UserPromptSubmit
    and a held-back Stop mean the agent works again (the first UserPromptSubmit: `agent_prompted_at`)."""
    event = doc["hook_event_name"]
    out = dict(payload)
    hold = False
    if event == "Stop" and not has_result:
        active = doc.get("stop_hook_active") is True
        blocks = _count(out.get("stop_blocks")) + 1 if active else 1
        out["stop_blocks"] = blocks
        hold = not (active and blocks > STOP_BLOCK_CAP)
    elif event in ("UserPromptSubmit", "Stop"):
        out["stop_blocks"] = 0
    if event == "Stop":
        out["agent_stopped_at"] = None if hold else (out.get("agent_stopped_at") or now)
    elif event in ("SessionStart", "UserPromptSubmit"):
        out["agent_stopped_at"] = None
        out["agent_prompted_at"] = out.get("agent_prompted_at") or (now if event == "UserPromptSubmit" else None)
    if event == "SessionStart" and args.provider == "codex":
        out["native_session_ref"] = str(doc["session_id"])
    return out, hold


def answer(
    binding: HookArgs, argv: tuple[str, ...], body: bytes, workspace: Callable[[], Workspace], nonce: str | None
) -> tuple[bytes, str]:
    """The broker's hook door: (what the relay prints, one stderr line). Never raises for bad input.

    The event is the one in the command line (`--event`); when anything is wrong a PreToolUse, or a call
    naming no event oms registers, is denied and every other event gets no decision."""
    from oms.domain.relay import fails_closed

    err = ""
    notes: list[str] = []
    try:
        args, event = parse_args(argv)
        if args != binding:
            raise HookInputError("hook arguments are not this worker's binding")
        doc = parse_payload(body)
        if doc["hook_event_name"] != event:
            raise HookInputError(f"a {event} hook was sent a {doc['hook_event_name']} payload")
        out = respond(binding, doc, workspace, nonce, notes)
        err = "; ".join(notes)
    except Exception as exc:  # noqa: BLE001 - the hook boundary: one line, a safe decision, never a traceback
        message = getattr(exc, "message", None) or str(exc)
        err = str(message)[:300]
        out = deny("oms: the hook could not verify this tool call") if fails_closed(argv) else {}
    return (json.dumps(out, separators=(",", ":")) + "\n").encode(), err
