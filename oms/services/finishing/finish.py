"""`oms result merge DSP` and `oms result discard DSP` (issue 14, ADR 0021).

Merge happens only with passing verification evidence of that exact result commit, against the
target branch's head as it is now, in the configured mode (`domain/finishing.merge_refusal`): a base
that moved since needs a new verification. In `merge-commit` mode oms writes the merge commit
itself, with exactly the tree that was verified, as the person who merges (git's identity, as `git
merge` would make it: ADR 0032); in `fast-forward` mode the result commit is the new head. The
target moves by a compare-and-swap of its ref, or, when it is the branch checked out in the config
root, by `merge --ff-only` to that commit (git refuses when local changes would be overwritten). No
hook runs. The ticket is done; merge evidence is recorded.

Discard archives the branch's head at `refs/oms/archive/<ticket>/<attempt>` (and, with `[worktrees]
archive_bundles`, a git bundle under the state root's `archive/`) before anything else; then the
worktree goes if it has no uncommitted work (else it stays, said so), and the branch. Discard
evidence records it. The worktree is looked at and emptied in a tree job (docs/adr/0024), never read
on the host.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from oms.adapters import git, git_finish, git_review
from oms.canonical import JsonObject, access, stable_id
from oms.domain import finishing
from oms.domain import notify as notify_rules
from oms.domain import review as review_rules
from oms.errors import (
    CheckoutChangedError,
    ConflictError,
    GitIdentityError,
    LockHeldError,
    OmsError,
    one_line,
    suppress_faults,
)
from oms.limits import LIMITS
from oms.schemas.payloads import DispatchPayload, TicketState
from oms.services.chain import tickets
from oms.services.finishing import verify, worktree_gc
from oms.services.notify import notices
from oms.services.workspace import Workspace
from oms.store import ledger
from oms.store.events import Event
from oms.store.evidence import Evidence
from oms.store.outbox import ProcessingLock
from oms.store.payloads import dispatch_payload, ticket_payload

ARCHIVE = "refs/oms/archive"
MERGE_BEGUN = "merge-begun"  # the event a merge leaves before its target moves
FINISHING = "finishing"  # the outbox consumer of the per-ticket locks `ticket_lock` takes


def ticket_lock(ws: Workspace, ticket_id: str) -> ProcessingLock:
    """The ticket's finishing lock: a merge, a publish and a request for changes of its result take
    turns, each deciding on the ticket as it is once the lock is held (a result sent back while it
    merged was merged all the same). Held: refused at once, in one line."""
    try:
        return ws.store.outbox(FINISHING).lock(ticket_id)
    except LockHeldError as exc:
        raise ConflictError(
            f"{ticket_id}'s result is being merged, published or sent back by another oms "
            "command; "
            "nothing done",
            hint=exc.remedy,  # (on a cluster: a killed holder's lease lapses first)
        ) from exc


@dataclass(frozen=True, slots=True)
class Merged:
    """A merge: the target, its head before and after, the mode, the evidence."""

    target: str
    base: str
    merged: str
    mode: str
    ref: str | None  # None: it was merged already (`already`), nothing recorded now
    already: bool = False
    what_runs: tuple[str, ...] = ()  # the files it changed under .oms/ or .agents/ (`what_runs`)


def merge(ws: Workspace, dispatch_id: str) -> Merged:
    """Merge a verified result into the target branch; a result already in it (merged before) is
    left as it is (`Merged.already`): a second merge makes no second, empty merge commit. Under the
    ticket's finishing lock (`ticket_lock`). On a cluster, only on the host whose clone holds
    the result (`verify.refuse_another_hosts`)."""
    dispatch, _ = verify.completed_result(ws, dispatch_id)
    verify.refuse_another_hosts(ws, dispatch_id)
    with ticket_lock(ws, dispatch_payload(dispatch)["ticket_id"]):
        return _merge(ws, dispatch_id)


def _merge(ws: Workspace, dispatch_id: str) -> Merged:
    dispatch, result = verify.completed_result(ws, dispatch_id)
    payload = dispatch_payload(dispatch)
    fin = finishing.parse(ws.config().raw)
    repo = ws.config_root
    git.refuse_unsafe_config(repo)
    commit = access.text(result, "result_commit")
    target = verify.target_of(ws, fin)
    if git.is_ancestor(repo, commit, target.head):  # merged already (a second merge): nothing to do
        _evidence_of_begun(ws, dispatch_id, commit, target.head)  # a merge killed before it
        _complete(ws, payload)
        return Merged(target.branch, target.head, target.head, target.mode, None, already=True)
    refuse_sent_back(ws, dispatch_id, payload)
    found = verify.latest(ws, dispatch_id)
    why = finishing.merge_refusal(
        evidence=None if found is None else found[1],
        result_commit=commit,
        target=target.branch,
        target_head=target.head,
        mode=target.mode,
    )
    if why is not None:
        raise ConflictError(
            f"{dispatch_id} is not merged: {why}", hint=f"oms result verify {dispatch_id}"
        )
    assert found is not None  # noqa: S101 - merge_refusal says why when there is none
    ref, evidence = found
    # what it changes, named before anything moves (a list too long fails with nothing merged)
    changed = git_review.numstat(repo, target.head, access.text(evidence, "tree"))
    if target.mode == finishing.FAST_FORWARD:
        new = commit
    else:
        title = ticket_title(ws, payload["ticket_id"])
        message = finishing.merge_message(dispatch_id, payload["ticket_id"], title, ref)
        person = git.known_person(repo)  # the person merges, as `git merge` would (ADR 0032)
        if person is None:
            why = f"git does not know who you are, and the merge of {dispatch_id} is yours"
            raise GitIdentityError(f"{why}: nothing merged")
        tree = access.text(evidence, "tree")
        new = git_finish.merge_commit(repo, tree, (target.head, commit), message, person)
    if git_finish.tree_of(repo, new) != evidence.get("tree"):
        raise CheckoutChangedError("the merge's tree is not the verified one; nothing merged")
    begun = _begin(
        ws,
        {
            "ticket_id": payload["ticket_id"],
            "dispatch_id": dispatch_id,
            "commit": commit,
            "base": target.head,
            "target": target.branch,
            "mode": target.mode,
            "merged": new,
            "verification": ref,
        },
    )  # before the target moves: a merge killed after the move is recorded by the retry
    if git_finish.checked_out_branch(repo) == target.branch:
        if git_finish.head_of(repo, target.branch) != target.head:
            raise CheckoutChangedError(
                f"{target.branch} moved while oms merged into it; nothing merged"
            )
        git_finish.fast_forward_checkout(repo, new)  # the user's checkout moves with its branch
    else:
        git_finish.swap_branch(repo, target.branch, new, target.head)
    record = _merge_evidence(ws, begun)
    _complete(ws, payload)
    _notify_merged(ws, dispatch_id, payload, new)
    runs = tuple(review_rules.what_runs([f.path for f in changed]))
    return Merged(target.branch, target.head, new, target.mode, record.ref, what_runs=runs)


def _begun_id(dispatch_id: str, commit: str, n: int) -> str:
    return stable_id("evt-merge-begun", dispatch_id, commit, n)


def _begin(ws: Workspace, payload: JsonObject) -> Event:
    """The `merge-begun` event: what the merge evidence will say, written before the target moves
    (the next free of a few ids: a merge that failed before its move left one)."""
    dispatch_id, commit = access.text(payload, "dispatch_id"), access.text(payload, "commit")
    for n in range(LIMITS.merge_begun_max):
        event_id = _begun_id(dispatch_id, commit, n)
        if not ws.store.events.exists(event_id):
            event, created = ws.store.events.create(event_id, MERGE_BEGUN, ws.now(), payload)
            if created:
                return event
    raise ConflictError(
        f"{dispatch_id} began merging {LIMITS.merge_begun_max} times: nothing merged",
        hint="oms audit log shows each try",
    )


def _merge_evidence(ws: Workspace, begun: Event) -> Evidence:
    """The merge evidence of a `merge-begun` event: the same body from the same event (its time
    too), so writing it again stores nothing new."""
    payload = begun.payload
    return ws.store.put_evidence(
        {
            "format": "oms-evidence-v1",
            "evidence_kind": "merge",
            "ticket_id": access.text(payload, "ticket_id"),
            "producer": "oms",
            "producer_role": None,
            "created_at": begun.created_at,
            "payload": {
                key: payload[key]
                for key in (
                    "dispatch_id",
                    "commit",
                    "base",
                    "target",
                    "mode",
                    "merged",
                    "verification",
                )
            },
        }
    )


def _evidence_of_begun(ws: Workspace, dispatch_id: str, commit: str, head: str) -> str | None:
    """A result found merged: the merge evidence of the `merge-begun` event whose commit the target
    holds (a merge killed between the target's move and its evidence gets it now; written again,
    it is the same), None when oms began none that landed (merged by hand)."""
    repo = ws.config_root
    for n in range(LIMITS.merge_begun_max):
        event_id = _begun_id(dispatch_id, commit, n)
        if not ws.store.events.exists(event_id):
            return None
        begun = ws.store.events.read(event_id, MERGE_BEGUN)
        if git.is_ancestor(repo, access.text(begun.payload, "merged"), head):
            return _merge_evidence(ws, begun).ref
    return None


def refuse_sent_back(
    ws: Workspace, dispatch_id: str, payload: DispatchPayload, done: str = "merged"
) -> None:
    """A result whose ticket has moved on to a follow-up (changes were requested, ADR 0039) is not
    the one to merge, nor to publish (`done`: what is refused): a ticket's handle still names it
    while the follow-up has no result."""
    ticket = tickets.require(ws, payload["ticket_id"])
    latest = ticket_payload(ticket)["attempt"]
    if "changes_requested" in ticket_payload(ticket) and latest > payload["attempt"]:
        raise ConflictError(
            f"{dispatch_id} is not {done}: changes were requested of it, and attempt {latest} of "
            f"{ticket.record_id} follows it on the same branch",
            hint=f"merge the follow-up's result, which holds this one, once it has it: "
            f"oms result show {ticket.record_id}",
        )


def _notify_merged(ws: Workspace, dispatch_id: str, payload: DispatchPayload, commit: str) -> None:
    """`merged` to the `[notify]` commands (ADR 0036): started detached, never waited on; a
    notification that cannot be claimed or started fails nothing of the merge."""
    ticket_id = payload["ticket_id"]
    notice = notify_rules.merged(
        ticket_id, ticket_title(ws, ticket_id), dispatch_id, commit, ws.now()
    )
    with suppress_faults():
        notices.emit(ws, notice)


def _complete(ws: Workspace, payload: DispatchPayload) -> None:
    """The ticket is done: a merged attempt completes a ticket still leased to it (the conductor may
    have completed it already)."""
    ticket = tickets.require(ws, payload["ticket_id"])
    leased = ticket.state == TicketState.LEASED
    if leased and ticket_payload(ticket)["attempt"] == payload["attempt"]:
        tickets.complete(
            ws,
            ticket,
            session_id=payload["session_id"],
            attempt=payload["attempt"],
            reason="merged",
        )


def ticket_title(ws: Workspace, ticket_id: str) -> str:
    """The ticket's title (for the merge commit's message)."""
    return ticket_payload(tickets.require(ws, ticket_id))["title"]


@dataclass(frozen=True, slots=True)
class Discarded:
    """A discard: where the work was archived, what was removed, what was kept and why."""

    archive_ref: str
    commit: str
    bundle: str | None
    removed: tuple[str, ...]
    kept: tuple[str, ...]
    ref: str


def discard(ws: Workspace, dispatch_id: str, reason: str) -> Discarded:
    """Archive the dispatch's branch, then remove its worktree (only without uncommitted work) and
    branch. On a cluster, only on the host whose clone holds them (`verify.refuse_another_hosts`):
    its one store write, the discard evidence, is a key."""
    dispatch = ws.store.records("dispatch").read_if_exists(dispatch_id)
    if dispatch is None:
        raise ConflictError(f"no dispatch {dispatch_id}")
    verify.refuse_another_hosts(ws, dispatch_id)
    payload = dispatch_payload(dispatch)
    repo, branch = ws.config_root, payload["worktree_branch"]
    worktree = payload["worktree_path"]
    git.refuse_unsafe_config(repo)
    ticket_id, attempt = payload["ticket_id"], payload["attempt"]
    running = worktree_gc.running_worker(ws, ticket_id)
    if running is not None:  # one worktree a ticket: a later attempt's worker works in it
        raise ConflictError(
            f"worker {running} of {ticket_id} still runs in its worktree",
            hint=f"oms worker stop {running}",
        )
    ticket = tickets.require(ws, ticket_id)
    leased_to = ticket_payload(ticket)["attempt"]
    if ticket.state == TicketState.LEASED and leased_to != attempt:
        raise ConflictError(
            f"{ticket_id} is leased to attempt {leased_to}, which uses this worktree"
        )
    head = git_finish.head_of(repo, branch)
    if head is None:
        raise ConflictError(f"branch {branch} is gone already; nothing to discard")
    archive = f"{ARCHIVE}/{ticket_id}/{attempt}"
    if (
        not git_finish.keep_ref_new(repo, archive, head)
        and git.resolve_commit(repo, archive) != head
    ):
        raise ConflictError(f"{archive} exists and holds another commit; nothing removed")
    bundle = _bundle(ws, repo, archive, ticket_id, attempt)
    removed: list[str] = []
    kept: list[str] = []
    if os.path.isdir(worktree):  # (the worktree's own root: no component an agent can change)
        why = worktree_gc.remove(repo, worktree, unsafe_none=ws.config().limits.unsafe)
        if why is not None:
            kept.append(f"worktree {worktree}: {why}")
        else:
            removed.append(f"worktree {worktree}")
    if not kept:
        try:
            git_finish.delete_branch(repo, branch, head)
            removed.append(f"branch {branch}")
        except OmsError as exc:
            kept.append(f"branch {branch}: {exc.message}")
    record = ws.store.put_evidence(
        {
            "format": "oms-evidence-v1",
            "evidence_kind": "discard",
            "ticket_id": ticket_id,
            "producer": "oms",
            "producer_role": None,
            "created_at": ws.now(),
            "payload": {
                "dispatch_id": dispatch_id,
                "branch": branch,
                "commit": head,
                "archive_ref": archive,
                "bundle": bundle,
                "reason": one_line(reason) or "discarded",
            },
        }
    )
    return Discarded(archive, head, bundle, tuple(removed), tuple(kept), record.ref)


def _bundle(ws: Workspace, repo: str, ref: str, ticket_id: str, attempt: int) -> str | None:
    if not finishing.parse(ws.config().raw).archive_bundles:
        return None
    root = ws.store.state.root
    root.mkdirs("archive")
    rel = f"archive/{ticket_id}-{attempt}.bundle"
    bundle = git_finish.bundle(repo, ref)  # (an existing bundle of the attempt: AlreadyExistsError)
    ledger.publish_noted(root, "output", rel, bundle)  # kept as it was: noted (ADR 0027)
    return rel
