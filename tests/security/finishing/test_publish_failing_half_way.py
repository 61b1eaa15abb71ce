"""GitHub failing half-way through a publish (ADR 0040): the pull request is made but `gh` hears
a failure (a 502 after the create). `oms result publish` fails in one line, recording no
`result-published` event it cannot stand behind; published again, it finds the pull request that
was made and updates it — never a second one."""

from __future__ import annotations

import json
from pathlib import Path

from oms.services.finishing import verify
from tests.chain import Chain
from tests.github_standin import GitHubStandIn
from tests.helpers import OmsCommand
from tests.integration.test_publish import _publish, _result, github

__all__ = ["github"]  # the stand-in fixture, shared


def test_a_publish_that_fails_half_way_is_finished_by_the_next(
    chain: Chain, oms: OmsCommand, github: GitHubStandIn, tmp_path: Path
) -> None:
    bound, _ = _result(chain, tmp_path)
    with chain.workspace() as ws:
        assert verify.verify(ws, bound.dispatch_id).passed
    github.fail_creates = 1
    first = _publish(oms, chain, github, bound.dispatch_id)
    assert first.returncode != 0, first.stdout
    said = json.loads(first.stdout)
    assert said["ok"] is False
    assert "\n" not in said["message"]
    with chain.workspace() as ws:
        events = [ws.store.events.read(i) for i in sorted(ws.store.events.ids())]
        assert not [e for e in events if e.event_type == "result-published"]
    again = _publish(oms, chain, github, bound.dispatch_id)
    assert again.returncode == 0, again.stdout + again.stderr
    doc = json.loads(again.stdout)
    assert doc["created"] is False  # the one made half-way, updated
    assert doc["pull_request"] == 1
    assert len(github.pulls["octo/proj"]) == 1
