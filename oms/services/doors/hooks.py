"""The agent CLIs' hooks, applied by the broker (ADR 0011 "Hooks", ADR 0012).

Inside a worker's sandbox `oms hook provider` is a relay (`cli/relay.py`); the pane's broker calls
`answer` with the relay's argv and stdin. The argv is what oms wrote into the agent's hook
configuration; every binding value in it must equal the broker's own (`Binding`), which is the only
source of authority.

Hook stdin is untrusted: bounded, parsed strictly (duplicate keys, NaN refused), checked field by
field. A hook never blocks an agent by accident: on any problem it answers with no decision and one
stderr line — except PreToolUse, which then denies (fail closed). oms registers one command per
event, with the event in its argv (`--event`): the event a hook answers for is the one the CLI ran,
never what the payload says, so a payload that cannot be parsed still gets the event's safe answer,
and a payload naming another event is refused. Exit 2 is never used; decisions are JSON on stdout in
each CLI's contract.

- SessionStart: the session is observed (heartbeat; Codex's own session id recorded as the native
  ref) and the agent is told to call `read_dispatch` (`additionalContext`). Codex fires it at its
  first turn: a prompt taken, as below (Claude Code fires it once started: none).
- UserPromptSubmit: a prompt taken (`last_prompted_at`; delivery confirms the typed instruction by
  it, so the first since oms started the agent is recorded at once); the first one records
  `agent_prompted_at` (from then on the agent's native session can be resumed in a new pane).
- Stop: the gate and the bound of `domain/gate.py`: while the dispatch has no result, block with a
  reason, at most its cap of times in a row (Codex has none; `/goal` fires Stop on every automatic
  turn); a dispatch still without a result after its role's turns or minutes — or a Claude Code Stop
  the cap lets through — is let stop and its worker parked as `oms worker park` parks it, reason
  `no_result`.
Heartbeats are coalesced (`domain/gate.py`): the broker keeps what a hook changed (`Memo`) until it
is worth a session version, so a hook loop grows no record.
- PreToolUse: deny, with a reason, every tool outside the role's allow-list (the bridge tools plus
  the tools the committed policy grants), e.g. Codex's `spawn_agent` or `create_worktree`, from the
  broker's binding; an allowed tool is then let through only while the attempt is not fenced. Every
  other accepted hook also proves the hook channel once (the liveness proof) with the broker's
  nonce. An attempt that may not act (the rule, `services/chain/fence.py`: over, or fenced because
  its lease or live authorisation lapsed) records nothing: every tool is denied, no Stop is held
  back, the worker is parked (its supervisor ends one whose attempt is over), and the reason is the
  relay's stderr line. Once its dispatch holds a result, the CLI's own goal bookkeeping
  (`update_goal`, `get_goal`) is let through: a denied `update_goal` makes Codex's `/goal` start its
  goal again, turn after turn (ADR 0028).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from oms.canonical.strict_json import loads_message
from oms.domain.relay import BRIDGE_TOOL_PREFIX, BRIDGE_TOOLS, UNVERIFIED, denial
from oms.errors import CanonicalJsonError
from oms.limits import LIMITS
from oms.store.payloads import as_json, session_payload

if TYPE_CHECKING:
    from oms.services.doors.progress import Memo
    from oms.services.workspace import Workspace

EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
    "PreToolUse",
    "PostToolUse",
    "SessionEnd",
    "Interrupt",
)
_NATIVE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
_TOOL = re.compile(r"[A-Za-z0-9_.:-]{1,128}")
CONTEXT = (
    "You are an oms worker. Start by calling the read_dispatch tool of the oms_worker MCP "
    "server, then acknowledge_dispatch; work only in this worktree and leave your changes there "
    "(oms commits them); finish with record_dispatch_result."
)
STOP_REASON = (
    "This dispatch has no result yet. Finish the work in the worktree and call "
    "record_dispatch_result (status completed, blocked or failed) before you stop."
)


class HookInputError(Exception):
    """The hook's input or arguments cannot be trusted."""


class HookArgs(NamedTuple):
    """The hook command line oms wrote into the agent's configuration (and the broker's own
    binding)."""

    provider: str
    provider_version: str
    dispatch_id: str
    session_id: str
    allowed_tools: tuple[str, ...]


def parse_args(argv: tuple[str, ...] | list[str]) -> tuple[HookArgs, str]:
    """The binding and the event of a hook command line. Strict: every option once, nothing else."""
    from oms.domain.relay import HOOK_EVENTS, HOOK_OPTIONS, RelayError, options
    from oms.provider_names import HOOK_CONTRACT

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
    binding = HookArgs(
        provider,
        values["--provider-version"],
        values["--dispatch-id"],
        values["--session-id"],
        tools,
    )
    return binding, values["--event"]


def parse_payload(data: bytes) -> dict[str, Any]:
    """The hook payload: one JSON object with the fields oms uses, each of the right type."""
    if len(data) > LIMITS.hook_stdin_bytes:
        raise HookInputError(f"hook input is larger than {LIMITS.hook_stdin_bytes} bytes")
    try:
        doc = loads_message(data)
    except CanonicalJsonError as exc:
        raise HookInputError(f"hook input is not JSON ({exc.message[:80]})") from exc
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


def tool_allowed(tool: str, allowed: tuple[str, ...]) -> bool:
    """Bridge tools appear as `mcp__oms_worker__<tool>`; other tools by their CLI name."""
    if tool.startswith("mcp__"):
        return (
            tool.startswith(BRIDGE_TOOL_PREFIX)
            and tool.removeprefix(BRIDGE_TOOL_PREFIX) in BRIDGE_TOOLS
        )
    return tool in allowed


def respond(
    args: HookArgs,
    doc: dict[str, Any],
    workspace: Callable[[], Workspace],
    nonce: str | None,
    memo: Memo,
    notes: list[str] | None = None,
) -> dict[str, Any]:
    """Decide and record; returns the JSON to print. `args` is the broker's own binding, `memo` what
    the broker keeps between hooks; lines for the relay's stderr are appended to `notes`."""
    notes = [] if notes is None else notes
    event = str(doc["hook_event_name"])
    if event == "PreToolUse":
        if args.provider == "claude" and doc["session_id"] != args.session_id:
            return denial("oms: Claude Code reported another session id")
        if not tool_allowed(str(doc["tool_name"]), args.allowed_tools):
            return denial(f"oms: the tool {doc['tool_name']} is not allowed for this worker's role")
    from oms.canonical import next_after, stable_id
    from oms.domain import gate, sessions
    from oms.domain.fence import FINISHING_TOOLS, Standing
    from oms.errors import OmsError, VersionConflictError
    from oms.schemas.payloads import DispatchState, SessionState
    from oms.services.chain import fence, liveness
    from oms.services.doors import progress
    from oms.store import Change, Record
    from oms.store.payloads import dispatch_payload

    ws = workspace()
    dispatch = ws.store.records("dispatch").read(args.dispatch_id)
    if dispatch_payload(dispatch)["session_id"] != args.session_id:
        raise HookInputError("hook is not bound to the dispatch's session")
    if args.provider == "claude" and doc["session_id"] != args.session_id:
        raise HookInputError("Claude Code reported another session id")
    verdict = fence.verdict(ws.store.records, dispatch, ws.now())
    if verdict.reason is not None:  # over or fenced: record nothing, run no tool, hold no Stop
        if event == "PreToolUse" and verdict.has_result and doc["tool_name"] in FINISHING_TOOLS:
            return {}  # the result is in: the CLI closes its goal (denied, it would start again)
        over = verdict.standing is Standing.OVER  # (over: then ended)
        fence.park(ws, dispatch.record_id, verdict.reason, "oms-hook", over=over)
        notes.append(verdict.reason)
        return denial(f"oms: {verdict.reason}") if event == "PreToolUse" else {}
    if event == "PreToolUse":
        return {}
    try:
        liveness.record_hook(ws, dispatch, nonce, args.provider, event, str(doc["session_id"]))
    except OmsError as exc:
        notes.append(f"liveness not recorded: {exc.message}")
    records = ws.store.records("session")
    has_result = dispatch.state in (DispatchState.RESULT_RECEIVED, DispatchState.RESOLVED)
    acknowledged = dispatch.state == DispatchState.ACKNOWLEDGED
    acknowledged_at = dispatch.observed_at if acknowledged else None
    active = doc.get("stop_hook_active") is True
    hook = gate.Hook(
        event,
        args.provider,
        str(doc["session_id"]),
        active,
        1 + memo.missed if event == "Stop" else 1,
        transport=dispatch_payload(dispatch)["provider_mode"],
    )
    decided: gate.After | None = None  # the gate's decision against the latest version
    running = False
    seen: Record | None = None  # the version `decide` last decided on
    skipped = False  # ... and found not worth writing

    def decide(session: Record | None) -> Change | None:
        nonlocal decided, running, seen, skipped
        decided, seen, skipped = None, session, False
        running = session is not None and session.state == SessionState.RUNNING
        if session is None or not running:
            return None  # a parked or stopped session records nothing and is not held back
        now = next_after(session.observed_at, ws.now())
        decided = gate.after(
            memo.base(session),
            hook,
            has_result=has_result,
            acknowledged_at=acknowledged_at,
            now=now,
        )
        if not gate.worth_writing(
            session_payload(session),
            decided.payload,
            first=session.actor != "oms-hook",
            no_result=decided.no_result is not None,
            now=now,
        ):
            skipped = True
            return None
        beat = sessions.heartbeat(session.state, decided.payload, now=now)
        op = stable_id("hook", session.record_id, session.version, event)
        return Change(beat.state, as_json(beat.payload), op, "oms-hook", now)

    try:  # heartbeats race with delivery and other hooks: re-read and decide again
        records.upsert(args.session_id, decide, rounds=LIMITS.hook_write_rounds)
    except VersionConflictError:
        decided = None
    if seen is not None and decided is not None:
        memo.keep(seen, decided.payload if skipped else None, counted=event == "Stop")
    if decided is not None and decided.no_result is not None:
        progress.park_no_result(ws, args.dispatch_id, decided.no_result, notes)
        return {}
    if event == "SessionStart":
        return {
            "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": CONTEXT}
        }
    if event != "Stop" or has_result or not running:
        return {}
    if decided is None:  # every heartbeat attempt raced: decide on the latest version, unrecorded
        latest = records.read(args.session_id)
        if latest.state != SessionState.RUNNING:
            return {}
        decided = gate.after(
            memo.base(latest), hook, has_result=False, acknowledged_at=acknowledged_at, now=ws.now()
        )
    if decided.released:
        notes.append(f"stop gate released after its cap of {LIMITS.stop_blocks} blocks in a row")
    return {"decision": "block", "reason": STOP_REASON} if decided.hold else {}


def answer(
    binding: HookArgs,
    argv: tuple[str, ...],
    body: bytes,
    workspace: Callable[[], Workspace],
    nonce: str | None,
    memo: Memo,
) -> tuple[bytes, str]:
    """The broker's hook door: (what the relay prints, one stderr line). Never raises for bad input.

    The event is the one in the command line (`--event`); when anything is wrong a PreToolUse, or a
    call naming no event oms registers, is denied and every other event gets no decision."""
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
        out = respond(binding, doc, workspace, nonce, memo, notes)
        err = "; ".join(notes)
    # the hook boundary: one line, a safe decision, never a traceback
    except Exception as exc:  # noqa: BLE001
        message = getattr(exc, "message", None) or str(exc)
        err = str(message)[:300]
        out = denial(UNVERIFIED) if fails_closed(argv) else {}
    return (json.dumps(out, separators=(",", ":")) + "\n").encode(), err
