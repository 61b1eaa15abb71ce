"""How an attempt's end decides its ticket (ADR 0016, 0028, 0029, 0031), pure: the conductor's
resolve phase (`services/conductor/resolve.py`) reads the records, asks here, and performs the step.

An attempt ends once: with a recorded result (its status), or — no result — when its worker
ended (`ended_status`): a stop by a person or by a deadline that waited for a person is `stopped`;
a crash, a signal, a deadline or a bound reached is `ended` (a failed attempt; `stopped` when it
had waited for a person, parked `no_result`, as it ended). Anything else is no end yet.

What the end does (`decide`): nothing when the ticket has moved on from this attempt (another
attempt, its lease gone: one attempt, one end); else `conductor.resolve`'s resolution, as a ticket
step. Only a failed attempt (a `failed` result, an `ended` worker) is counted among the ticket's
failures: a completion, a block, a stop, a worktree for a person, a configuration fault and a rest
of every provider never are (ADR 0031: a configuration fault is no attempt).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, TypeAlias

from oms.canonical import JsonObject, access
from oms.domain import conductor as rules
from oms.domain.gate import NO_RESULT
from oms.errors import one_line

LIMIT_ENDS = ("limit: pids", "limit: memory", "limit: disk")
FAILED_ENDS = ("exit", "signal", "deadline", "parent-gone", *LIMIT_ENDS)
NOT_COUNTED = frozenset(
    {"completed", "blocked", "stopped", rules.PERSON, rules.CONFIG, rules.REST, rules.DRAINED}
)


def ended_status(
    end_reason: object, detail: str, *, parked_no_result: bool
) -> tuple[str, str] | None:
    """(status, summary) of a worker that ended without a result (`end_reason`, its `detail`;
    `parked_no_result`: it waited for a person when it ended), or None: not an end that decides."""
    if end_reason == "stopped":
        return "stopped", detail or "stopped"
    if end_reason not in FAILED_ENDS:
        return None
    if parked_no_result:  # it waited for a person when its pane ended (a tmux server that died)
        return "stopped", f"parked {NO_RESULT}, then it ended ({detail or end_reason})"
    return "ended", f"the worker ended without a result: {detail or end_reason}"


def counted(status: str) -> bool:
    """Is an attempt that ended with `status` a failed one (counted, backed off, quarantined)?"""
    return status not in NOT_COUNTED


class MovedOn(NamedTuple):
    """The ticket is no longer on this attempt: its end changes nothing."""

    line: str


class Complete(NamedTuple):
    """The ticket is done."""

    reason: str


class Wait(NamedTuple):
    """The ticket waits, open, for a person's fix or a provider: no attempt counted."""

    reason: str


class Retry(NamedTuple):
    """The ticket is open again for its next attempt, not before `retry_after`."""

    failure: JsonObject
    retry_after: str


class GiveUp(NamedTuple):
    """The ticket is blocked for a person (`failure`: kept, for a quarantine)."""

    reason: str
    failure: JsonObject | None


Step: TypeAlias = MovedOn | Complete | Wait | Retry | GiveUp


def decide(
    ticket_id: str,
    ticket_state: str,
    ticket: JsonObject,
    *,
    dispatch_id: str | None,
    attempt: int,
    status: str,
    summary: str,
    now: str,
) -> Step:
    """What attempt `attempt`'s end with `status` does to its ticket (its state and payload)."""
    session_id = ticket.get("session_id")
    if (
        ticket_state != "leased"
        or not isinstance(session_id, str)
        or ticket.get("attempt") != attempt
    ):
        return MovedOn(
            f"ticket {ticket_id} has moved on ({ticket_state}, attempt {ticket.get('attempt')})"
        )
    failure: JsonObject = {
        "attempt": attempt,
        "dispatch_id": dispatch_id,
        "failed_at": now,
        "reason": one_line(f"{status}: {summary}", 512),
    }
    past: Sequence[JsonObject] = (
        [f for f in access.array(ticket, "failures") if isinstance(f, dict)]
        if "failures" in ticket
        else []
    )
    failures = [*past, failure] if counted(status) else list(past)
    decision = rules.resolve(status, summary, failures=failures, now=now)
    reason = one_line(decision.reason, 512)
    if decision.resolution is rules.Resolution.DONE:
        return Complete(reason)
    if decision.resolution is rules.Resolution.WAIT:  # no attempt (ADR 0031)
        return Wait(reason)
    if decision.resolution is rules.Resolution.RETRY and decision.retry_after is not None:
        return Retry(failure, decision.retry_after)
    kept = failure if decision.resolution is rules.Resolution.QUARANTINE else None
    return GiveUp(reason, kept)
