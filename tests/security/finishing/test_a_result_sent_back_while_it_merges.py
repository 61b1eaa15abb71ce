"""A result sent back while it merges is not merged (SECURITY.md "Review before merge", invariant
6, across two people): `oms result merge` checks that no changes were requested of the result,
then makes the merge and moves the target. A request for changes recorded in between — another
person, another terminal — used to be ignored: the target moved to the result the person had just
sent back, and the ticket went on to a follow-up of work already merged. Both take the ticket's
finishing lock now, and merge decides on the ticket as it is once the lock is held.

The interleaving is made exact, not hoped for: the request is made from inside the merge, at the
moment it has checked and is about to move the target (`git_finish.tree_of`, called just
before)."""

from __future__ import annotations

import pytest

from oms.adapters import git_finish
from oms.errors import OmsError
from oms.services.finishing import finish, review, verify
from tests.chain import Chain
from tests.helpers import git
from tests.integration.test_review import COMMENTS, _result


def test_a_result_sent_back_while_it_merges_is_not_merged(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    bound, _ = _result(chain)
    with chain.workspace() as ws:
        assert verify.verify(ws, bound.dispatch_id).passed
    main = git("rev-parse", "main", cwd=chain.repo).strip()
    tree_of = git_finish.tree_of
    asked: list[object] = []

    def the_other_person_asks(repo: str, commit: str) -> str:
        if not asked:  # once: the merge has checked, the target has not moved
            with chain.workspace() as other:
                try:
                    asked.append(
                        review.request_changes(other, bound.dispatch_id, COMMENTS, person="Bo")
                    )
                except OmsError as exc:  # refused: the merge holds the ticket
                    asked.append(exc)
        return tree_of(repo, commit)

    monkeypatch.setattr(git_finish, "tree_of", the_other_person_asks)
    with chain.workspace() as ws:
        try:
            merged = finish.merge(ws, bound.dispatch_id)
        except OmsError:
            merged = None
    assert asked, "the merge never reached the moment before the target moves"
    sent_back = isinstance(asked[0], review.Requested)
    moved = git("rev-parse", "main", cwd=chain.repo).strip() != main
    assert not (sent_back and moved), (
        "changes were requested of the result and it was merged all the same "
        f"(main moved to {merged.merged if merged else '?'})"
    )
    assert sent_back or moved  # one of the two won, whole
