"""The conductor's rules (ADR 0016): pure decisions over plain data.

- Backoff after a failed attempt: 10 s · 2^(n-1), capped at 300 s (Symphony), n = failures so far.
- Quarantine: 5 failed attempts within an hour end the ticket `blocked`, its attempts listed (Gas
  City).
- A result decides the ticket: `completed` → done; `blocked` → blocked with the agent's reason (a
  person looks: never retried blindly); `failed` → retried after the backoff, or quarantined. An
  attempt stopped by a decision (`oms worker stop`, or a worker that waited for a person past its
  deadline: `stopped`) blocks its ticket too: it waits for a person, never for its lease to run out
  and a new agent. So does an attempt whose worktree only a person can put right (`worktree`: gone
  with its branch, broken by hand, holding what oms cannot keep; ADR 0029): retrying it would fail
  the same way.
- A configuration fault (ADR 0031: a login, bubblewrap, a cgroup, a path a launch cannot write,
  found before any model call or explaining a refusal on the way: `CONFIG`) is no attempt: the
  ticket waits, open, its reason "needs a person: ..." with the fix — no failure counted, no
  backoff, no quarantine —, and the queue takes it again at the first tick whose checks pass.
- The queue: open tickets whose `retry_after` has passed, by priority (1 first; none = 3), then age.
- A parked worker is resumed only when its session is parked until a time that has come (`oms worker
  park --until`), never one parked `no_result` (its agent would loop again: a person looks). Workers
  parked with a running session (a fenced attempt, silent channels, a failed launch) wait for a
  person too.
- Deadlines: a worker running past its role's wall-clock limit is stopped (`deadline`: a failed
  attempt), one parked for a person (`waits_for_person`) as a decision (`stopped`: its ticket waits
  for a person); a session past its heartbeat deadline is marked `stalled` (kept running: a slow
  agent is not a dead one), and healthy again once it beats (`beat_health`; a parked worker stays
  parked). While a worker the pool launched has not ended, its ticket's lease is renewed once less
  than half of it is left (`renew_due`): the lease fences an attempt whose conductor is gone, not a
  slow agent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import NamedTuple

from oms.canonical import JsonObject, add_ms, parse_ts
from oms.domain.gate import NO_RESULT
from oms.limits import LIMITS

DEFAULT_PRIORITY = 3
PERSON = "worktree"  # the status of an attempt whose worktree waits for a person (ADR 0029)
CONFIG = "configuration"  # ... of one a configuration fault stopped before it launched (ADR 0031)
# ... of one no provider could serve when it was proposed (each rests after a 429 or its quota): no
# attempt ran, none is counted; the ticket is open again and the queue waits for a provider
REST = "providers-rest"
# ... of one whose slot drains (the pool scaled down) before its attempt launched: nothing ran, none
# is counted; the ticket is open again for the next free slot (ADR 0016, amendment `drainfirst`)
DRAINED = "slot-drained"
DRAINS = " drains (the pool was scaled down) before it launched"  # how a drain's cancel ends


# how the cancel of an attempt a forced drain held parked past its role's limit ends (`drainclock`)
DRAINS_PARKED = " drains (a forced scale-down): its worker was parked past its role's limit"


def drained(slot: str) -> str:
    """The reason of the cancel of a dispatch whose slot drains before it launched (pure)."""
    return f"its slot {slot}{DRAINS}"


def drained_parked(slot: str) -> str:
    """The reason of the cancel of an attempt a forced drain held parked until its role's
    wall-clock limit (ADR 0016, amendment `drainclock`): given back as a drain's, nothing
    counted (pure)."""
    return f"its slot {slot}{DRAINS_PARKED}"


def is_drained(reason: str) -> bool:
    """Was a dispatch cancelled because its slot drained (`drained`, `drained_parked`)? A tick that
    gives a ticket back, killed after the cancel and before the ticket's write, left that cancel
    alone: the next tick ends the attempt as a drain's, nothing counted (attack `drainkill`)."""
    return reason.startswith("its slot ") and reason.endswith((DRAINS, DRAINS_PARKED))


NEEDS_PERSON = "needs a person: "  # how the reason of a ticket waiting for a person's fix begins


def given_back(reason: str) -> str:
    """The status of an attempt whose dispatch was cancelled with `reason` (pure): a give-back's
    cancel — its slot drained (`DRAINED`), a launch check failed (`CONFIG`: the reason is the
    check's, "needs a person: …") — counts nothing; any other cancel is a failed attempt. A tick
    killed between a give-back's cancel and its ticket's write left the cancel alone: the next
    one ends the attempt as the give-back would have (ADR 0016, amendment `drainkill`)."""
    if is_drained(reason):
        return DRAINED
    return CONFIG if reason.startswith(NEEDS_PERSON) else "failed"


def needs_person(what: str) -> str:
    """The reason of a ticket that waits for a person to fix what a launch needs."""
    return NEEDS_PERSON + what


def backoff_s(failures: int) -> int:
    """Seconds to wait before the next attempt after `failures` failed ones (at least 1)."""
    if failures < 1:
        return 0
    return int(min(LIMITS.backoff_base_s * 2 ** min(failures - 1, 16), LIMITS.backoff_max_s))


def recent_failures(failures: Sequence[JsonObject], now: str) -> list[JsonObject]:
    """The failures within the quarantine window before `now`."""
    cutoff = parse_ts(now) - LIMITS.quarantine_window_s * 1000
    return [
        f
        for f in failures
        if isinstance(f.get("failed_at"), str) and parse_ts(str(f["failed_at"])) > cutoff
    ]


def quarantined(failures: Sequence[JsonObject], now: str) -> bool:
    """Quarantine: `LIMITS.quarantine_failures` failed attempts within the window."""
    return len(recent_failures(failures, now)) >= LIMITS.quarantine_failures


class Resolution(StrEnum):
    """What a dispatch's end does to its ticket."""

    DONE = "done"
    BLOCKED = "blocked"
    RETRY = "retry"
    QUARANTINE = "quarantine"
    WAIT = "wait"  # open, for a person's fix: nothing counted (ADR 0031)


class Decision(NamedTuple):
    """A resolution, the ticket's reason, and (for a retry) when the next attempt may start."""

    resolution: Resolution
    reason: str
    retry_after: str | None = None


def resolve(status: str, summary: str, *, failures: Sequence[JsonObject], now: str) -> Decision:
    """The ticket's next step after an attempt ended with `status` (`completed`, `blocked`,
    `failed`, `ended` for a worker that ended without a result, `stopped`, `PERSON`, `CONFIG`,
    `REST` or `DRAINED`);
    `failures` include this one."""
    if status == "completed":
        return Decision(Resolution.DONE, f"completed: {summary}")
    if status == "blocked":
        return Decision(Resolution.BLOCKED, f"the agent needs a person: {summary}")
    if status == "stopped":
        return Decision(Resolution.BLOCKED, f"stopped before a result, a person decides: {summary}")
    if status == PERSON:
        return Decision(Resolution.BLOCKED, f"its worktree waits for a person: {summary}")
    if status == CONFIG:
        said = summary if summary.startswith(NEEDS_PERSON) else needs_person(summary)
        return Decision(Resolution.WAIT, said)
    if status in (REST, DRAINED):
        return Decision(Resolution.WAIT, summary)
    if quarantined(failures, now):
        recent = recent_failures(failures, now)
        attempts = ", ".join(str(f.get("attempt")) for f in recent)
        last = recent[-1].get("reason")
        return Decision(
            Resolution.QUARANTINE,
            f"quarantined after {len(recent)} failures within an hour (attempts {attempts}; each "
            f"is listed in the ticket's failures); the last: {last}",
        )
    wait = backoff_s(len(recent_failures(failures, now)))
    return Decision(Resolution.RETRY, summary, add_ms(now, wait * 1000))


class Queued(NamedTuple):
    """What the queue needs of a ticket."""

    ticket_id: str
    state: str
    priority: int | None
    created_at: str
    retry_after: str | None


def queue(tickets: Iterable[Queued], now: str) -> list[str]:
    """Open tickets ready for an attempt, most urgent first: priority (1 first), then age, then
    id."""
    ready = [
        t
        for t in tickets
        if t.state == "open" and (t.retry_after is None or parse_ts(t.retry_after) <= parse_ts(now))
    ]
    ready.sort(key=lambda t: (t.priority or DEFAULT_PRIORITY, parse_ts(t.created_at), t.ticket_id))
    return [t.ticket_id for t in ready]


def free_slots(target: int, busy: int) -> int:
    """Slots the pool can fill (never negative)."""
    return max(0, target - busy)


def due_resume(
    *,
    session_state: str | None,
    parked_until: str | None,
    health: str,
    reason: str | None,
    now: str,
) -> bool:
    """A parked worker whose parking time has come, parked for a reason the clock answers."""
    if health != "parked" or session_state != "parked" or parked_until is None:
        return False
    if reason == NO_RESULT:
        return False
    return parse_ts(parked_until) <= parse_ts(now)


def waits_for_person(
    *, session_state: str | None, parked_until: str | None, health: str, reason: str | None
) -> bool:
    """A parked worker that no clock resumes: parked `no_result`, or with a running session (a
    fenced attempt, silent channels, a refused launch) — a person looks (`due_resume` never answers
    yes)."""
    if health != "parked":
        return False
    return reason == NO_RESULT or session_state != "parked" or parked_until is None


def renew_due(lease_expires_at: str | None, lease_minutes: int, now: str) -> bool:
    """Is a live lease (not expired at `now`) within half of its length of running out?"""
    if lease_expires_at is None:
        return False
    left = parse_ts(lease_expires_at) - parse_ts(now)
    return 0 < left <= lease_minutes * 30_000


def past_deadline(started_at: str, deadline_minutes: int, now: str) -> bool:
    """Has a worker started at `started_at` run past its wall-clock limit at `now`?"""
    return parse_ts(now) - parse_ts(started_at) >= deadline_minutes * 60_000


def stalled(heartbeat_deadline_at: str | None, now: str) -> bool:
    """Is a session past its heartbeat deadline at `now`?"""
    return heartbeat_deadline_at is not None and parse_ts(heartbeat_deadline_at) <= parse_ts(now)


def beat_health(health: str, session_state: str, *, late: bool) -> str | None:
    """The health the heartbeat rule moves a worker to, or None: healthy and `late` (past its
    session's heartbeat deadline) → `stalled`; stalled and beating again → `healthy`. A parked
    worker is never moved by a beat: it waits for its resume (a person's, or its parked-until)."""
    if session_state != "running":
        return None
    if health == "healthy" and late:
        return "stalled"
    if health == "stalled" and not late:
        return "healthy"
    return None
