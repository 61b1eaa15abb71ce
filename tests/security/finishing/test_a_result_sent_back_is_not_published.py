"""A result sent back is not published either (SECURITY.md "Review before merge", invariant 6):
once a person has asked for changes of a result, its ticket's follow-up works on the same branch.
`oms result merge` refuses the older result; `oms result publish` must too, or a pull request of
the work the person sent back is opened (and its branch pushed) under the person's name while the
follow-up still works — the verification of the old commit is still current, so nothing else
stops it. Refused in one line, nothing pushed, nothing asked of GitHub."""

from __future__ import annotations

import json
from pathlib import Path

from oms.services.finishing import review, verify
from tests.chain import Chain
from tests.github_standin import GitHubStandIn
from tests.helpers import OmsCommand
from tests.integration.test_publish import _publish, _result, github
from tests.integration.test_review import COMMENTS, _follow_up

__all__ = ["github"]  # the stand-in fixture, shared


def test_a_result_sent_back_is_not_published(
    chain: Chain, oms: OmsCommand, github: GitHubStandIn, tmp_path: Path
) -> None:
    bound, bare = _result(chain, tmp_path)
    with chain.workspace() as ws:
        assert verify.verify(ws, bound.dispatch_id).passed
        asked = review.request_changes(ws, bound.dispatch_id, COMMENTS, person="Ada")
    _follow_up(chain, asked.ticket.record_id)  # on the same branch, no result yet
    got = _publish(oms, chain, github, bound.dispatch_id)
    assert got.returncode == 1, got.stdout
    said = json.loads(got.stdout)  # (--json: the one-line error as JSON)
    assert said["ok"] is False
    assert "not published: changes were requested of it, and attempt 2" in said["message"]
    assert github.requests == []  # GitHub was asked nothing
    assert github.pulls.get("octo/proj", []) == []
    branches = list((bare / "refs" / "heads").rglob("*"))
    assert [b for b in branches if b.is_file()] == []  # nothing pushed
