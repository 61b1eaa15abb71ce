"""What one agent hook does to its session: the Stop gate, the bound on a dispatch's life without a
result, and which changes are worth a session version. Pure.

The Stop gate. While the dispatch has no result a Stop is held back (blocked, with a reason) and the
blocks in a row are counted (`stop_blocks`): `stop_hook_active` continues a run, anything else
starts one. Past `Limits.stop_blocks` blocks in a run the Stop is let through and the agent is
recorded as stopped (`agent_stopped_at`, kept from that Stop); the gate then stays open — every
later Stop is let through — until a prompt (UserPromptSubmit, SessionStart) or a resume re-arms
it. Codex in `/goal` mode fires Stop on every automatic turn without `stop_hook_active` (ADR 0011
"Hooks"): were such a Stop to start a new run, the gate would block a goal that never ends
forever. With a result every Stop is let through.

The bound. Every Stop while the dispatch has no result ends a turn (a turn a prompt starts ends in a
Stop too, so prompts are not counted again). Turns are counted from `progress_since` — the delivery,
then the dispatch's acknowledgement, then each resume — and nothing else resets them: not a `/goal`
continuation, not a prompt. The Stop that reaches the session's `max_turns_without_result`, or that
comes `max_minutes_without_result` after `progress_since`, is let through and the worker is to be
parked with the reason NO_RESULT. So is a Stop the gate's cap lets through of an agent that then
takes no turn of its own again — its provider says so (`Provider.stop_is_final`, in the registry;
`FINAL_STOP` here): Claude Code waits for a prompt nobody will type, `codex exec` exits (ADR 0045
amendment `ends`); a Codex goal goes on to its next turn.

Versions. A hook's payload is worth a session version at once only for a fact others act on that the
latest version lacks: the first hook after another writer (a registration, a park, a resume), the
agent coming to rest (`agent_stopped_at` set), the gate starting to hold it (`stop_blocks` from 0),
Codex's own session id (changed), the agent's first prompt (`agent_prompted_at`: its native session
can be resumed), the first prompt since oms last started the agent to type one into it
(`last_prompted_at`, which every prompt sets, from `prompt_due_at`, which registration and relaunch
set: delivery's witness of the typed text waits for it), the bound reached. Everything else — the
agent working again, the gate released, its count, later prompts — waits for the beat: a version
when the latest is `Limits.hook_beat_ms` old (the heartbeat deadline is 15 minutes away). In between
the broker keeps the payload (`services/progress.Memo`). An agent cannot toggle its way to more
versions: coming to rest or being held again is not new while the latest version already says so, a
prompt is not new once the latest version has one since oms started the agent (which only oms does),
and the way back waits for the beat (issue 11's attack: alternating prompts and Stops wrote a
version per hook).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from oms.canonical import add_ms, parse_ts
from oms.limits import LIMITS
from oms.provider_names import FINAL_STOP

if TYPE_CHECKING:  # the hook's door imports this module: the TypedDicts are for mypy only
    from oms.schemas.payloads import SessionPayload

NO_RESULT = "no_result"


@dataclass(frozen=True, slots=True)
class Hook:
    """What the gate needs of one hook: its event (the one oms registered), the provider, the
    agent's own session id, whether the agent CLI says this Stop continues a blocked one, how
    many turns a Stop ends (more than one when the broker answered earlier Stops unrecorded, past
    its hook budget), and the dispatch's transport (its `provider_mode`: what the registry says
    the agent can still do)."""

    event: str
    provider: str
    native_ref: str
    stop_hook_active: bool = False
    turns: int = 1
    transport: str = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class After:
    """The session payload after a hook, whether a Stop is held back, why the worker is to be parked
    (NO_RESULT: one line) or None, and whether this Stop was let through by the gate's cap."""

    payload: SessionPayload
    hold: bool
    no_result: str | None
    released: bool = False


def _window(payload: SessionPayload, acknowledged_at: str | None, now: str) -> tuple[str, int]:
    """Where the bound starts and the turns counted since: the acknowledgement restarts it once."""
    since = payload.get("progress_since", now)  # a session recorded before oms kept it: from now
    turns = payload.get("turns_without_result", 0)
    if acknowledged_at is not None and parse_ts(acknowledged_at) > parse_ts(since):
        return acknowledged_at, 0
    return since, turns


def _bound(payload: SessionPayload, turns: int, since: str, now: str) -> str | None:
    most = payload.get("max_turns_without_result") or LIMITS.turns_without_result
    minutes = payload.get("max_minutes_without_result") or LIMITS.minutes_without_result
    if turns >= most:
        return f"no result after {turns} turns (max_turns_without_result = {most})"
    if parse_ts(now) - parse_ts(since) >= minutes * 60_000:
        return f"no result {minutes} minutes after {since} (max_minutes_without_result = {minutes})"
    return None


def after(
    payload: SessionPayload, hook: Hook, *, has_result: bool, acknowledged_at: str | None, now: str
) -> After:
    """The payload after `hook` (a copy: `payload` is not changed), the gate's decision and the
    bound's. `acknowledged_at` is when the dispatch was acknowledged, if it was."""
    out = payload.copy()
    hold = released = False
    no_result = None
    if hook.event == "Stop" and not has_result:
        since, turns = _window(out, acknowledged_at, now)
        turns += hook.turns
        out["progress_since"], out["turns_without_result"] = since, turns
        if out.get("agent_stopped_at") is None:  # the gate is armed
            blocks = out["stop_blocks"] + 1 if hook.stop_hook_active else 1
            out["stop_blocks"] = blocks
            hold = not (hook.stop_hook_active and blocks > LIMITS.stop_blocks)
            released = not hold
            if released and final_stop(hook.transport):
                no_result = (
                    f"the agent stopped without a result after {LIMITS.stop_blocks} blocked stops "
                    "and takes no turn of its own again"
                )
        no_result = _bound(out, turns, since, now) or no_result
        hold = hold and no_result is None
        if not hold:
            out["agent_stopped_at"] = out.get("agent_stopped_at") or now
    elif hook.event == "Stop":
        out["stop_blocks"] = 0
        out["agent_stopped_at"] = out.get("agent_stopped_at") or now
    elif hook.event == "UserPromptSubmit":
        out["stop_blocks"] = 0
        out["agent_stopped_at"] = None
        out["agent_prompted_at"] = (
            out.get("agent_prompted_at") or now
        )  # its native session has a conversation
    elif hook.event == "SessionStart":
        out["agent_stopped_at"] = None
        if hook.provider == "codex":
            out["native_session_ref"] = hook.native_ref
    if prompt(hook):
        out["last_prompted_at"] = now
    return After(out, hold, no_result, released)


def final_stop(transport: str) -> bool:
    """Does an agent of `transport`, once let stop without a result, take no turn of its own again
    (its provider's `stop_is_final`)? Then its worker waits for a person (parked NO_RESULT)."""
    return transport in FINAL_STOP


def prompt(hook: Hook) -> bool:
    """Does `hook` show the agent took a prompt? Its UserPromptSubmit; Codex's SessionStart too,
    which Codex fires at its first turn (`/goal <instruction>` fires no UserPromptSubmit). Claude
    Code fires SessionStart once started, whether or not it took the text typed into it."""
    if hook.event == "SessionStart":
        return hook.provider == "codex"
    return hook.event == "UserPromptSubmit"


def _since(value: object, then: object) -> bool:
    return isinstance(value, str) and isinstance(then, str) and parse_ts(value) >= parse_ts(then)


def worth_writing(
    written: SessionPayload, payload: SessionPayload, *, first: bool, no_result: bool, now: str
) -> bool:
    """Whether `payload` is worth a version on top of the latest, `written` (see the module
    docstring): `first` = the latest version is not a hook's; `no_result` = the bound was
    reached."""
    if first or no_result:
        return True
    if payload["native_session_ref"] != written["native_session_ref"]:
        return True
    if written.get("agent_prompted_at") is None and payload.get("agent_prompted_at") is not None:
        return True
    due = written.get("prompt_due_at")  # oms last (re)started the agent, to type a prompt into it
    prompted = _since(payload.get("last_prompted_at"), due)
    if prompted and not _since(written.get("last_prompted_at"), due):
        return True  # the first prompt since: delivery's witness waits for it
    if written.get("agent_stopped_at") is None and payload.get("agent_stopped_at") is not None:
        return True  # the agent came to rest
    if written["stop_blocks"] == 0 and payload["stop_blocks"] > 0:
        return True  # the gate started holding it
    last = written["last_observed_at"]
    return parse_ts(now) >= parse_ts(add_ms(last, LIMITS.hook_beat_ms))
