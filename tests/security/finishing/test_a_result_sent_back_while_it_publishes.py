"""A result sent back while it is published is not published (SECURITY.md "Review before merge",
invariant 6, across two people): `oms result publish` checks that no changes were requested of the
result, then pushes and opens the pull request. A request for changes recorded in between used to
be ignored: the pull request of the work just sent back was opened all the same. Publish takes the
ticket's finishing lock too, as merge and request-changes do.

The interleaving is made exact: the request is made from inside the publish, at the moment it has
checked and is about to push (`github.push`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oms.adapters import github as github_adapter
from oms.errors import OmsError
from oms.services.finishing import publish, review, verify
from tests.chain import Chain
from tests.github_standin import GitHubStandIn
from tests.integration.test_publish import _result, github
from tests.integration.test_review import COMMENTS

__all__ = ["github"]  # the stand-in fixture, shared


def test_a_result_sent_back_while_it_publishes_is_not_published(
    chain: Chain, github: GitHubStandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bound, _ = _result(chain, tmp_path)
    with chain.workspace() as ws:
        assert verify.verify(ws, bound.dispatch_id).passed
    for name, value in github.env().items():
        monkeypatch.setenv(name, value)
    push = github_adapter.push
    asked: list[object] = []

    def the_other_person_asks(repo: str, remote: str, commit: str, branch: str) -> None:
        if not asked:  # once: the publish has checked, nothing is pushed yet
            with chain.workspace() as other:
                try:
                    asked.append(
                        review.request_changes(other, bound.dispatch_id, COMMENTS, person="Bo")
                    )
                except OmsError as exc:  # refused: the publish holds the ticket
                    asked.append(exc)
        push(repo, remote, commit, branch)

    monkeypatch.setattr(github_adapter, "push", the_other_person_asks)
    with chain.workspace() as ws:
        try:
            publish.publish(ws, bound.dispatch_id, person="Ann Person", github_repo="octo/proj")
        except OmsError:
            pass
    assert asked, "the publish never reached its push"
    sent_back = isinstance(asked[0], review.Requested)
    opened = bool(github.pulls.get("octo/proj"))
    assert not (sent_back and opened), "changes were requested, and the pull request opened"
    assert sent_back or opened  # one of the two won, whole
