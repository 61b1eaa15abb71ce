"""Finishing work (issue 14, ADR 0021): what `oms result verify`, `merge`, `discard` and `oms
worktree gc` are configured to do, read from the committed config (`[verify]`, `[merge]`,
`[worktrees]`, `[retention]`), and the pure rules they decide by. Pure: data in, data out.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from oms.canonical import JsonObject
from oms.errors import one_line
from oms.limits import LIMITS

MERGE_COMMIT = "merge-commit"
FAST_FORWARD = "fast-forward"


@dataclass(frozen=True, slots=True)
class Finishing:
    """The finishing settings."""

    commands: tuple[tuple[str, ...], ...] = ()
    timeout_s: int = LIMITS.verify_timeout_s
    max_output: int = LIMITS.verify_output_bytes
    show: tuple[str, ...] = ()
    merge_into: str | None = None  # None: the branch checked out in the config root
    merge_mode: str = MERGE_COMMIT
    gc_after_days: int = LIMITS.gc_after_days
    archive_bundles: bool = False
    compact_after_days: int = LIMITS.compact_after_days  # 0: never


def parse(raw: JsonObject) -> Finishing:
    """The finishing settings of a validated config document (its schema checked every field)."""
    v, m, w = (_table(raw, name) for name in ("verify", "merge", "worktrees"))
    commands = v.get("commands")
    show = v.get("show")
    into = m.get("into")
    return Finishing(
        commands=tuple(tuple(str(x) for x in a) for a in commands if isinstance(a, list))
        if isinstance(commands, list)
        else (),
        timeout_s=_int(v.get("timeout_seconds"), LIMITS.verify_timeout_s),
        max_output=_int(v.get("max_output_bytes"), LIMITS.verify_output_bytes),
        show=tuple(str(p) for p in show) if isinstance(show, list) else (),
        merge_into=into if isinstance(into, str) else None,
        merge_mode=str(m.get("mode", MERGE_COMMIT)),
        gc_after_days=_int(w.get("gc_after_days"), LIMITS.gc_after_days),
        archive_bundles=w.get("archive_bundles") is True,
        compact_after_days=_int(
            _table(raw, "retention").get("compact_after_days"), LIMITS.compact_after_days
        ),
    )


def _table(raw: JsonObject, name: str) -> JsonObject:
    found = raw.get(name)
    return found if isinstance(found, dict) else {}


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


@dataclass(frozen=True, slots=True)
class Ran:
    """One check as it ran."""

    argv: tuple[str, ...]
    exit_code: int | None  # None: it did not end within its time (killed)
    duration_ms: int
    output: bytes  # stdout then stderr, bounded
    truncated: bool
    limit: str | None = None  # the bound it reached (its cgroup's, its disk's): it was ended there

    @property
    def passed(self) -> bool:
        """Exit 0 within its time and its bounds."""
        return self.exit_code == 0 and self.limit is None

    def evidence(self) -> JsonObject:
        """What the signed evidence keeps of it (the output by its digest)."""
        out: JsonObject = {
            "argv": list(self.argv),
            "exit_code": self.exit_code,
            "timed_out": self.exit_code is None,
            "duration_ms": self.duration_ms,
            "output_sha256": hashlib.sha256(self.output).hexdigest(),
            "output_bytes": len(self.output),
            "output_truncated": self.truncated,
        }
        if self.limit is not None:
            out["limit"] = self.limit
        return out


def verdict(ran: tuple[Ran, ...]) -> bool:
    """Did every check pass? (No checks configured is no verification: False.)"""
    return bool(ran) and all(r.passed for r in ran)


def merge_message(dispatch_id: str, ticket_id: str, title: str, evidence_ref: str) -> str:
    """A merge commit's message: its subject names the dispatch and its ticket, whose title —
    someone else's text — is squashed to one printable ASCII line and bounded (`one_line`, at most
    `Limits.merge_title_chars`, read no further than a few times that): no line break, so no body
    line and no trailer (a `Signed-off-by:`) a title could add, no terminal control for `git log` to
    print; then a blank line and the one trailer, the evidence it merges by."""
    shown = one_line(title[: 4 * LIMITS.merge_title_chars], LIMITS.merge_title_chars, default="?")
    return f"Merge {dispatch_id} ({ticket_id}: {shown})\n\nVerified: {evidence_ref}"


def merge_refusal(
    *, evidence: JsonObject | None, result_commit: str, target: str, target_head: str, mode: str
) -> str | None:
    """Why a result may not be merged now (None: it may): it needs passing verification evidence of
    this exact commit, against the target's head as it is now, in this merge mode."""
    if evidence is None:
        return "it has no verification evidence (run `oms result verify` first)"
    body = evidence
    if body.get("commit") != result_commit:
        return f"its verification was of another commit ({str(body.get('commit'))[:12]})"
    if body.get("passed") is not True:
        return "its verification failed"
    if body.get("target") != target:
        return f"it was verified for a merge into {body.get('target')}; the target is now {target}"
    if body.get("mode") != mode:
        return f"it was verified for a {body.get('mode')} merge; the config now says {mode}"
    if body.get("base") != target_head:
        return (
            f"the base moved from {str(body.get('base'))[:12]} to "
            f"{target_head[:12]} since its verification "
            "(run `oms result verify` again)"
        )
    return None


DAY_MS = 24 * 3600 * 1000
ENDED_TICKET = ("done", "blocked")
ENDED_DISPATCH = ("result-received", "resolved", "rejected", "cancelled")  # (of an ended ticket)


@dataclass(frozen=True, slots=True)
class TicketParts:
    """What compaction looks at for one ticket: its latest state and time, and its parts' latest
    states."""

    state: str
    ended_ms: int  # its latest version's time (ms)
    dispatches: tuple[tuple[str, str], ...] = ()  # (id, state)
    workers: tuple[tuple[str, str], ...] = ()  # (id, health)
    sessions: tuple[tuple[str, str, str], ...] = ()  # (id, state, dispatch id)
    registered_panes: tuple[str, ...] = ()  # dispatch ids whose pane registry is still there
    worktree: str | None = None  # the worktree's path while it is still there
    gone: tuple[str, ...] = ()  # dispatch ids whose worker ran on a host gone for good: ended


def compaction_blocker(parts: TicketParts, now_ms: int, after_days: int) -> str | None:
    """Why a ticket's records may not be compacted yet (None: they may). Only a ticket that ended at
    least `after_days` ago, every part of it ended, no pane registered, its worktree gone. A worker
    (its dispatch and its sessions) of a host gone for good ended with that host: nothing can stop
    or end it now (the dispatch is left `accepted` or `acknowledged` by a host that never came
    back: ADR 0043, amendment `cross7`)."""
    if after_days <= 0:
        return "compaction is off ([retention] compact_after_days = 0)"
    if parts.state not in ENDED_TICKET:
        return f"the ticket is {parts.state}"
    if now_ms < parts.ended_ms + after_days * DAY_MS:
        return (
            f"the ticket ended less than {after_days} day(s) ago ([retention] compact_after_days)"
        )
    for did, state in parts.dispatches:
        if state not in ENDED_DISPATCH and did not in parts.gone:
            return f"dispatch {did} is {state}"
    for wid, health in parts.workers:
        if health != "stopped" and wid not in parts.gone:
            return f"worker {wid} is {health}"
    for sid, state, did in parts.sessions:
        if state != "stopped" and did not in parts.gone:
            return f"session {sid} is {state}"
    if parts.registered_panes:
        return (
            f"the pane of {parts.registered_panes[0]} is still "
            f"registered (the conductor closes ended panes)"
        )
    if parts.worktree is not None:
        return (
            f"its worktree {parts.worktree} is still there (`oms "
            f"worktree gc` removes it once merged or archived)"
        )
    return None
