"""Review before merge (issue 27 item 1, docs/adr/0035): `oms result show DSP`, `oms result diff
DSP` and `oms result request-changes DSP`.

What a result would change is read from objects of the main repository only: the result commit (the
branch's head as recorded, in the common object store, which no agent can write: its git metadata
is read-only in its sandbox) and the target branch's head, merged at object level
(`verify.tree_to_check`: `merge-tree`) — never a worktree (SECURITY.md: no host-side read through an
agent-controlled path). The diff is that of the target's head and the tree a merge would make, the
change the merge would bring; when they conflict, the result's change since their merge base, said
so.

A request for changes makes the ticket's next attempt a follow-up on the same branch (ADR 0039):
the ticket is opened again by the person, with what the follow-up carries (`changes_requested`:
the comments, the previous summary and commit), which its next dispatch's intent copies, so the
advisor reviews it and the approval signs it. The conductor runs it like any other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from oms.adapters import git, git_review
from oms.adapters.git_review import Changed
from oms.canonical import Json, JsonObject, access, digest, next_after, stable_id
from oms.domain import finishing
from oms.domain import review as rules
from oms.domain import tickets as ticket_machine
from oms.errors import (
    ConflictError,
    IllegalTransitionError,
    InvalidInputError,
    RecordNotFoundError,
    one_line,
)
from oms.limits import LIMITS
from oms.schemas.payloads import DispatchPayload, DispatchState
from oms.services.finishing import verify
from oms.services.finishing.verify import Target
from oms.services.workspace import Workspace
from oms.store import Change as NextVersion
from oms.store import Record
from oms.store.payloads import as_json, dispatch_payload, ticket_payload

CHANGES_REQUESTED = (
    "changes-requested"  # the event a request for changes leaves (the person's name)
)


@dataclass(frozen=True, slots=True)
class Change:
    """What a result would change: from `old` (the target's head, or their merge base when they
    conflict) to `new` (the tree a merge would make, or the result commit)."""

    commit: str
    target: Target
    old: str
    new: str
    conflict: str | None  # why the merge's tree could not be made (then: since the merge base)


def _result(ws: Workspace, dispatch_id: str) -> tuple[Record, JsonObject]:
    dispatch = ws.store.records("dispatch").read_if_exists(dispatch_id)
    if dispatch is None:
        raise RecordNotFoundError(
            f"no dispatch {dispatch_id}",
            hint="`oms status` lists them; if its ticket ended long ago it may be compacted: "
            f"`oms audit log --dispatch {dispatch_id}` shows its history",
        )
    ref = dispatch_payload(dispatch)["result_evidence"]
    if ref is None:
        raise InvalidInputError(
            f"dispatch {dispatch_id} has no recorded result ({dispatch.state})",
            hint=f"`oms worker observe {dispatch_id}` shows its worker",
        )
    return dispatch, access.obj(ws.store.evidence.get(ref).body, "payload")


def change_of(ws: Workspace, dispatch_id: str) -> Change:
    """The change a completed result would bring onto its target (objects only)."""
    _dispatch, result = verify.completed_result(ws, dispatch_id)
    repo = ws.config_root
    git.refuse_unsafe_config(repo)
    commit = access.text(result, "result_commit")
    if git.resolve_commit(repo, commit) != commit:
        raise InvalidInputError(f"result commit {commit[:12]} is not in {repo}")
    target = verify.target_of(ws, finishing.parse(ws.config().raw))
    try:
        return Change(commit, target, target.head, verify.tree_to_check(repo, target, commit), None)
    except ConflictError as exc:
        base = git_review.merge_base(repo, target.head, commit)
        if base is None:
            raise
        return Change(commit, target, base, commit, exc.message)


def diff(
    ws: Workspace, dispatch_id: str, sink: Callable[[bytes], bool], *, stat: bool = False
) -> Change:
    """Stream the change's diff (or `--stat`) to `sink` as git writes it."""
    change = change_of(ws, dispatch_id)
    git_review.diff_stream(ws.config_root, change.old, change.new, sink, stat=stat)
    return change


@dataclass(frozen=True, slots=True)
class Shown:
    """`oms result show`: everything a person reviews a result by."""

    dispatch: Record
    ticket_title: str
    result: JsonObject
    change: Change | None  # None: not a completed result
    files: tuple[Changed, ...]
    files_total: int
    verification: JsonObject | None
    salvage: tuple[JsonObject, ...]
    changes_requested: JsonObject | None
    what_runs: tuple[str, ...] = ()  # the changed files under .oms/ or .agents/ (all, not shown)

    def to_json(self) -> JsonObject:
        """As `--json` prints it (schemas/cli/result-show.schema.json)."""
        p = dispatch_payload(self.dispatch)
        c = self.change
        return {
            "ok": True,
            "dispatch_id": self.dispatch.record_id,
            "dispatch_state": self.dispatch.state,
            "ticket_id": p["ticket_id"],
            "ticket_title": self.ticket_title,
            "attempt": p["attempt"],
            "branch": p["worktree_branch"],
            "status": self.result.get("status"),
            "summary": self.result.get("summary"),
            "result_commit": self.result.get("result_commit"),
            "target": None
            if c is None
            else {
                "branch": c.target.branch,
                "head": c.target.head,
                "mode": c.target.mode,
                "diff_from": c.old,
                "diff_to": c.new,
                "conflict": c.conflict,
            },
            "files": [{"path": f.path, "added": f.added, "removed": f.removed} for f in self.files],
            "files_total": self.files_total,
            "files_truncated": self.files_total > len(self.files),
            "verification": self.verification,
            "salvage": list(self.salvage),
            "changes_requested": self.changes_requested,
            "changes_what_runs": list(self.what_runs),
        }


def show(ws: Workspace, dispatch_id: str) -> Shown:
    """A dispatch's result as a person reviews it."""
    from oms.services.chain import tickets
    from oms.services.checkout import salvage

    dispatch, result = _result(ws, dispatch_id)
    ticket_id = dispatch_payload(dispatch)["ticket_id"]
    title = ticket_payload(tickets.require(ws, ticket_id))["title"]
    change = None
    files: list[Changed] = []
    if result.get("status") == "completed" and isinstance(result.get("result_commit"), str):
        change = change_of(ws, dispatch_id)
        files = git_review.numstat(ws.config_root, change.old, change.new)
    return Shown(
        dispatch=dispatch,
        ticket_title=title,
        result=result,
        change=change,
        files=tuple(files[: LIMITS.review_files_shown]),
        files_total=len(files),
        verification=_verification(ws, dispatch_id, change),
        salvage=tuple(salvage.listed(ws.config_root, ticket_id)),
        changes_requested=_carried(dispatch_payload(dispatch)),
        what_runs=tuple(rules.what_runs([f.path for f in files])),
    )


def _carried(payload: DispatchPayload) -> JsonObject | None:
    found = payload.get("changes_requested")
    return None if found is None else as_json(found)


def _verification(ws: Workspace, dispatch_id: str, change: Change | None) -> JsonObject | None:
    """The latest verification: passed or not, still current for a merge now (or why not), each
    check with the tail of its output (bounded)."""
    found = verify.latest(ws, dispatch_id)
    if found is None:
        return None
    ref, payload = found
    stale = (
        None
        if change is None
        else finishing.merge_refusal(
            evidence=payload,
            result_commit=change.commit,
            target=change.target.branch,
            target_head=change.target.head,
            mode=change.target.mode,
        )
    )
    root = ws.store.state.root
    checks: list[Json] = []
    for i, check in enumerate(access.array(payload, "checks"), 1):
        assert isinstance(check, dict)  # noqa: S101 - signed evidence of the verification schema
        rel = f"{verify.VERIFY_DIR}/{dispatch_id}/{ref}-{i}.log"
        tail = root.read_tail(rel, LIMITS.review_check_output_bytes) if root.exists(rel) else b""
        checks.append(
            {
                "argv": check.get("argv"),
                "exit_code": check.get("exit_code"),
                "duration_ms": check.get("duration_ms"),
                "output_tail": tail.decode("utf-8", "replace"),
                "output_bytes": check.get("output_bytes"),
            }
        )
    return {
        "evidence": ref,
        "passed": payload.get("passed") is True,
        "current": stale is None and payload.get("passed") is True,
        "stale": None if payload.get("passed") is not True else stale,
        "base": payload.get("base"),
        "checks": checks,
    }


# ------------------------------------------------------------------ request changes
@dataclass(frozen=True, slots=True)
class Requested:
    """A request for changes: the ticket open for its follow-up attempt, and what it carries."""

    ticket: Record
    attempt: int
    carried: JsonObject
    event_id: str


def request_changes(
    ws: Workspace, dispatch_id: str, comments: tuple[rules.Comment, ...], *, person: str
) -> Requested:
    """Open the ticket of `dispatch_id`'s completed result for a follow-up attempt on the same
    branch carrying `comments` and the result's summary; journaled with `person`. Only for the
    ticket's latest attempt's finished, unmerged result. Under the ticket's finishing lock, as a
    merge (`finish.ticket_lock`)."""
    from oms.services.finishing.finish import ticket_lock  # (`oms result diff` starts without it)

    dispatch, _ = verify.completed_result(ws, dispatch_id)
    verify.refuse_another_hosts(ws, dispatch_id)
    with ticket_lock(ws, dispatch_payload(dispatch)["ticket_id"]):
        return _request_changes(ws, dispatch_id, comments, person=person)


def _request_changes(
    ws: Workspace, dispatch_id: str, comments: tuple[rules.Comment, ...], *, person: str
) -> Requested:
    from oms.services.chain import tickets  # (`oms result diff` starts without it)

    dispatch, result = verify.completed_result(ws, dispatch_id)
    p = dispatch_payload(dispatch)
    ticket = tickets.require(ws, p["ticket_id"])
    attempt, latest = p["attempt"], ticket_payload(ticket)["attempt"]
    if latest != attempt:
        raise ConflictError(
            f"{dispatch_id} is attempt {attempt} of {ticket.record_id}, whose latest attempt is "
            f"{latest}: only the latest attempt's result takes changes",
            hint=f"`oms ticket show {ticket.record_id}` names its dispatches",
        )
    if dispatch.state not in (DispatchState.RESULT_RECEIVED, DispatchState.RESOLVED):
        raise IllegalTransitionError("dispatch", dispatch.state, "request-changes")
    commit = access.text(result, "result_commit")
    repo = ws.config_root
    git.refuse_unsafe_config(repo)
    target = verify.target_of(ws, finishing.parse(ws.config().raw))
    if git.is_ancestor(repo, commit, target.head):
        raise ConflictError(
            f"{dispatch_id}'s result is merged into {rules.for_terminal(target.branch)} already",
            hint="add a ticket for more work: `oms ticket add`",
        )
    branch_head = git.resolve_commit(repo, f"refs/heads/{p['worktree_branch']}")
    if branch_head != commit:
        raise ConflictError(
            f"branch {rules.for_terminal(p['worktree_branch'])[:200]} is no longer at "
            f"{dispatch_id}'s result {commit[:12]}: the follow-up would not start from it",
            hint="put the branch back, or add a new ticket",
        )
    who = one_line(person, 128)
    carried = rules.changes_requested(
        dispatch_id=dispatch_id,
        commit=commit,
        summary=str(result.get("summary", "")),
        person=who,
        comments=comments,
    )
    if ticket.state == ticket_machine.TicketState.LEASED:  # not resolved yet: its result is done
        ticket = tickets.complete(
            ws,
            ticket,
            session_id=p["session_id"],
            attempt=attempt,
            reason="completed; changes requested",
        )
    nxt = ticket_machine.request_changes(
        ticket.state,
        ticket_payload(ticket),
        attempt=attempt,
        carried=carried,
        reason=f"changes requested by {who} on {dispatch_id}",
    )
    op = stable_id("tkt-request-changes", ticket.record_id, ticket.version)
    after = next_after(ticket.observed_at, ws.now())
    change = NextVersion(nxt.state, as_json(nxt.payload), op, tickets.person_actor(person), after)
    done = ws.store.records("ticket").write_next(ticket, change).record
    event_id = stable_id("evt-changes", ticket.record_id, done.version)
    ws.store.events.create(
        event_id,
        CHANGES_REQUESTED,
        done.observed_at,
        {
            "ticket_id": ticket.record_id,
            "ticket_version": done.version,
            "dispatch_id": dispatch_id,
            "attempt": ticket_payload(done)["attempt"],
            "person": who,
            "reason": f"changes requested on {dispatch_id} ({len(comments)} comment(s))",
            "comments": len(comments),
            "changes_sha256": digest("changes-requested", carried),
        },
    )
    return Requested(done, ticket_payload(done)["attempt"], carried, event_id)
