"""A result sent back is not merged (SECURITY.md "Review before merge"): once a person has asked
for changes of a result, its ticket's next attempt works on the same branch; that result (verified
before the request, or after it) is no longer the one to merge. `oms result merge tkt-N` — the
ticket's handle names its one result while the follow-up has none — and `oms result merge DSP`
both refuse it, naming the follow-up's attempt; nothing moves."""

from __future__ import annotations

import pytest

from oms.errors import ConflictError
from oms.services.chain import handles
from oms.services.finishing import finish, review, verify
from tests.chain import Chain
from tests.helpers import git
from tests.integration.test_review import COMMENTS, _follow_up, _result


@pytest.mark.parametrize("verified_before", [True, False])
def test_a_result_sent_back_is_not_merged(chain: Chain, verified_before: bool) -> None:
    bound, _ = _result(chain)
    with chain.workspace() as ws:
        if verified_before:
            assert verify.verify(ws, bound.dispatch_id).passed
        asked = review.request_changes(ws, bound.dispatch_id, COMMENTS, person="Ada")
    ticket_id = asked.ticket.record_id
    _follow_up(chain, ticket_id)  # working on the same branch, no result yet
    main = git("rev-parse", "main", cwd=chain.repo).strip()
    with chain.workspace() as ws:
        named = handles.dispatch(ws, ticket_id, handles.Want.RESULT)
        assert named == bound.dispatch_id  # the ticket's one result: the one sent back
        if not verified_before:
            assert verify.verify(ws, bound.dispatch_id).passed
        with pytest.raises(ConflictError, match="changes were requested of it, and attempt 2"):
            finish.merge(ws, named)
    assert git("rev-parse", "main", cwd=chain.repo).strip() == main
