"""A pull request's review or review comment made on an earlier result is not carried again
(SECURITY.md "Review before merge"). A follow-up publishes onto the same branch, so the same pull
request, which keeps every review and comment it was ever given: `oms result sync
--request-changes` on the follow-up's result carried the review that sent the first result back,
and every comment on it, once more — each round of the loop asked the agent again for what it had
already done, under the person's name, and the loop never ended without a person typing the
request by hand. Only what was said of this result's commit (a review's `commit_id`, a comment's
`original_commit_id`) is carried; the rest is shown as made on an earlier commit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from oms.services.finishing import verify
from tests.chain import Chain
from tests.github_standin import GitHubStandIn
from tests.helpers import OmsCommand
from tests.integration.test_publish import _publish, _result, _review, _sync, github
from tests.integration.test_review import _completed, _follow_up

__all__ = ["github"]  # the stand-in fixture, shared


def _comment(body: str, commit: str) -> dict[str, Any]:
    """A review comment on a line, as `GET pulls/N/comments` answers it."""
    return {
        "user": {"login": "rev"},
        "author_association": "MEMBER",
        "body": body,
        "path": "WORK.md",
        "line": 1,
        "commit_id": commit,
        "original_commit_id": commit,
    }


def test_a_follow_ups_sync_carries_only_what_was_said_of_its_own_commit(
    chain: Chain, oms: OmsCommand, github: GitHubStandIn, tmp_path: Path
) -> None:
    first, _ = _result(chain, tmp_path)
    with chain.workspace() as ws:
        assert verify.verify(ws, first.dispatch_id).passed
    one = json.loads(_publish(oms, chain, github, first.dispatch_id).stdout)["commit"]
    github.reviews[1] = [_review("rev", "MEMBER", "CHANGES_REQUESTED", "rename the parser", 1, one)]
    github.review_comments[1] = [_comment("handle empty input", one)]
    asked = _sync(oms, chain, github, first.dispatch_id, "--request-changes", "--person", "Ann")
    assert asked.returncode == 0, asked.stderr
    ticket_id = json.loads(asked.stdout)["requested"]["ticket_id"]

    follow = _follow_up(chain, ticket_id)  # the agent does what it was asked, on the same branch
    two = _completed(follow, "work\nrenamed, and empty input handled\n", "Did both.")
    with chain.workspace() as ws:
        assert verify.verify(ws, follow.dispatch_id).passed
    again = _publish(oms, chain, github, follow.dispatch_id)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["created"] is False  # the same pull request, updated

    read = json.loads(_sync(oms, chain, github, follow.dispatch_id).stdout)
    assert [r["carried"] for r in read["reviews"]] == [False]
    assert [c["carried"] for c in read["comments"]] == [False]
    asked = _sync(oms, chain, github, follow.dispatch_id, "--request-changes", "--person", "Ann")
    assert asked.returncode == 1, asked.stdout  # nothing new asked: nothing to carry
    assert "made on an earlier commit" in json.loads(asked.stdout)["message"]

    # what a reviewer says of the follow-up's own commit is carried
    github.review_comments[1].append(_comment("and a test for it", two))
    asked = _sync(oms, chain, github, follow.dispatch_id, "--request-changes", "--person", "Ann")
    assert asked.returncode == 0, asked.stderr
    with chain.workspace() as ws:
        ticket = ws.store.records("ticket").read(ticket_id)
    carried: Any = ticket.payload["changes_requested"]
    assert [c["text"] for c in carried["comments"]] == ["rev on GitHub: and a test for it"]
