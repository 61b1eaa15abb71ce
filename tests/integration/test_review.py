"""Review before merge (issue 27 item 1, docs/adr/0035) through the real chain: a completed result
is shown and diffed from git objects only; a request for changes opens the ticket's next attempt as
a follow-up whose dispatch is proposed, reviewed and accepted like any other, whose read_dispatch
carries the comments and the previous summary, and which completes on the same branch."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from oms.canonical import access
from oms.demo.scratch import worker_log
from oms.domain import dispatches as machine
from oms.domain.review import Comment
from oms.errors import AuthorityChangedError, ConflictError, InvalidInputError
from oms.services.chain import dispatches, tickets, worktrees
from oms.services.chain.authority import check_dispatch
from oms.services.finishing import finish, review, verify
from tests.agent_side import Bound, BoundTools, bind
from tests.chain import Chain
from tests.fleet import Fleet, make_fleet
from tests.helpers import git

CHECKS = '\n[verify]\ncommands = [["sh", "-c", "echo checked; grep -q work WORK.md"]]\n'
COMMENTS = (
    Comment("also say why", "WORK.md", 1),
    Comment("and add a test for it"),
)


def _completed(bound: Bound, text: str, summary: str) -> str:
    tools = BoundTools(bound)
    try:
        tools.call("acknowledge_dispatch", {})
        commit = bound.commit_change(text)
        result, is_error = tools.call(
            "record_dispatch_result",
            {"status": "completed", "summary": summary, "result_commit": commit},
        )
        assert is_error is False, result
    finally:
        tools.close()
    return commit


def _result(chain: Chain) -> tuple[Bound, str]:
    chain.edit_config(lambda s: s + CHECKS, commit=True)
    bound = bind(chain)
    return bound, _completed(bound, "work\n", "Wrote WORK.md.")


def _follow_up(chain: Chain, ticket_id: str) -> Bound:
    """The conductor's steps for an open ticket, as a person would take them: lease, the
    worktree, propose, review (the advisor), accept."""
    with chain.workspace() as ws:
        tickets.lease(ws, ticket_id, "w1")
        worktrees.create(ws, ticket_id)
        proposed, _ = dispatches.propose(ws, ticket_id)
        dispatches.review(ws, proposed.record_id)
        accepted, event_id = dispatches.accept(ws, proposed.record_id)
    p = accepted.payload
    return Bound(
        chain, accepted.record_id, event_id, str(p["session_id"]), Path(str(p["worktree_path"]))
    )


def test_a_follow_up_carries_the_comments_and_completes_on_the_same_branch(chain: Chain) -> None:
    bound, first = _result(chain)
    with chain.workspace() as ws:
        shown = review.show(ws, bound.dispatch_id)
        assert [(f.path, f.added, f.removed) for f in shown.files] == [("WORK.md", 1, 0)]
        assert shown.change is not None
        assert shown.change.old == git("rev-parse", "main", cwd=chain.repo).strip()
        assert shown.verification is None
        assert verify.verify(ws, bound.dispatch_id).passed
        checked = review.show(ws, bound.dispatch_id).verification
        assert checked is not None
        assert checked["current"] is True
        assert "checked" in str(access.obj_at(access.array(checked, "checks"), 0)["output_tail"])
        branch = access.text(
            ws.store.records("dispatch").read(bound.dispatch_id).payload, "worktree_branch"
        )
        asked = review.request_changes(ws, bound.dispatch_id, COMMENTS, person="Ada Lovelace")
        ticket_id = asked.ticket.record_id
        assert (asked.ticket.state, asked.attempt) == ("open", 2)
        assert asked.ticket.actor == "person:ada-lovelace"  # the version names the person
        event = ws.store.events.read(asked.event_id, "changes-requested")
        assert event.payload["person"] == "Ada Lovelace"
    follow = _follow_up(chain, ticket_id)
    with chain.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(follow.dispatch_id)
        intent = machine.capture_intent(dispatch.record_id, dispatch.payload)
        assert intent["changes_requested"] == asked.carried  # approved with the rest
        assert dispatch.payload["worktree_branch"] == branch
        assert dispatch.payload["worktree_start_commit"] == first
    tools = BoundTools(follow)
    try:
        read, is_error = tools.call("read_dispatch", {})
    finally:
        tools.close()
    assert is_error is False
    carried = read["changes_requested"]
    assert carried["previous_summary"] == "Wrote WORK.md."
    assert carried["result_commit"] == first
    assert carried["person"] == "Ada Lovelace"
    assert carried["comments"] == [
        {"path": "WORK.md", "line": 1, "text": "also say why"},
        {"path": None, "line": None, "text": "and add a test for it"},
    ]
    assert read["start_commit"] == first
    assert "also say why" not in read["instructions"]  # what a pane is typed: the instructions
    assert read["branch"] == branch
    second = _completed(follow, "work\nbecause\n", "Said why.")
    assert git("rev-parse", f"refs/heads/{branch}", cwd=chain.repo).strip() == second
    assert git("rev-parse", f"{second}^", cwd=chain.repo).strip() == first
    with chain.workspace() as ws:
        again = review.show(ws, follow.dispatch_id)
        assert again.changes_requested == asked.carried
        assert [(f.path, f.added) for f in again.files] == [("WORK.md", 2)]


def test_only_the_latest_unmerged_completed_result_takes_changes(chain: Chain) -> None:
    bound, _ = _result(chain)
    with chain.workspace() as ws:
        asked = review.request_changes(ws, bound.dispatch_id, COMMENTS, person="Ada")
        with pytest.raises(ConflictError, match="latest attempt is 2"):
            review.request_changes(ws, bound.dispatch_id, COMMENTS, person="Ada")
    follow = _follow_up(chain, asked.ticket.record_id)
    with chain.workspace() as ws:
        with pytest.raises(InvalidInputError, match="no recorded result"):
            review.request_changes(ws, follow.dispatch_id, COMMENTS, person="Ada")
    _completed(follow, "work\nmore\n", "More.")
    with chain.workspace() as ws:
        assert verify.verify(ws, follow.dispatch_id).passed
        finish.merge(ws, follow.dispatch_id)
        with pytest.raises(ConflictError, match="merged into main already"):
            review.request_changes(ws, follow.dispatch_id, COMMENTS, person="Ada")


def test_a_dispatch_whose_changes_are_not_the_tickets_is_not_authorised(chain: Chain) -> None:
    bound, _ = _result(chain)
    with chain.workspace() as ws:
        asked = review.request_changes(ws, bound.dispatch_id, COMMENTS, person="Ada")
        tickets.lease(ws, asked.ticket.record_id, "w1")
        worktrees.create(ws, asked.ticket.record_id)
        proposed, _ = dispatches.propose(ws, asked.ticket.record_id)
        assert proposed.payload["changes_requested"] == asked.carried
        swapped = proposed.payload.copy()
        del swapped["changes_requested"]  # an intent without the comments: not what was asked,
        swapped["dispatch_intent_sha256"] = machine.intent_digest(  # though consistent in itself
            machine.capture_intent(proposed.record_id, swapped)
        )
        with pytest.raises(AuthorityChangedError, match="changes requested"):
            check_dispatch(ws, proposed._replace(payload=swapped), approved=False)
        altered = {**proposed.payload, "changes_requested": {**asked.carried, "comments": []}}
        with pytest.raises(AuthorityChangedError, match="digest does not match"):
            check_dispatch(ws, proposed._replace(payload=altered), approved=False)


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    yield from make_fleet(tmp_path / "fleet")


SEES = (
    "  say \"read_dispatch: ticket '$title'\"\n",
    "  say \"read_dispatch: ticket '$title'\"\n"
    '  case "$reply" in *changes_requested*"also say why"*) say "read_dispatch: changes";; esac\n',
)


def test_the_conductor_runs_a_follow_up_like_any_other(fleet: Fleet) -> None:
    """A real fleet: the conductor completes the ticket; a person requests changes; the conductor
    leases, proposes, has reviewed, accepts and delivers the follow-up, whose worker (in its
    sandbox) reads the comments from read_dispatch and completes on the same branch."""
    script = fleet.base / "worker.sh"
    assert SEES[0] in script.read_text()
    script.write_text(script.read_text().replace(*SEES))
    ticket = fleet.add("review me")

    def attempt_done(n: int) -> Callable[[], bool]:
        def done() -> bool:
            state, payload = fleet.tickets()[ticket]
            return state == "done" and int(str(payload["attempt"])) >= n

        return done

    fleet.until(attempt_done(1))
    with fleet.workspace() as ws:
        first = next(
            d for d in ws.store.latest("dispatch").checked() if d.payload["ticket_id"] == ticket
        )
        commit = review.show(ws, first.record_id).result["result_commit"]
        review.request_changes(ws, first.record_id, COMMENTS, person="Ada")
    fleet.until(attempt_done(2))  # (a follow-up retried after a failure carries them too)
    with fleet.workspace() as ws:
        latest = ws.store.records("ticket").read(ticket).payload["attempt"]
        follow = next(
            d
            for d in ws.store.latest("dispatch").checked()
            if d.payload["ticket_id"] == ticket and d.payload["attempt"] == latest
        )
        assert access.obj(follow.payload, "changes_requested")["dispatch_id"] == first.record_id
        assert follow.payload["worktree_branch"] == first.payload["worktree_branch"]
        assert follow.payload["worktree_start_commit"] == commit
        log = worker_log(ws, str(follow.payload["session_id"])).decode()
        second = review.show(ws, follow.record_id).result["result_commit"]
    assert "read_dispatch: changes" in log
    branch = str(first.payload["worktree_branch"])
    assert git("rev-parse", f"refs/heads/{branch}", cwd=Path(fleet.repo)).strip() == second
    assert git("rev-parse", f"{second}^", cwd=Path(fleet.repo)).strip() == commit
