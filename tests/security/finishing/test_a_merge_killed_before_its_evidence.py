"""A merge killed between the target's move and its evidence (SECURITY.md "Finishing work",
invariant 3; ADR 0021: "merge evidence is recorded"). `oms result merge` moves the target, then
signs its `merge` evidence and completes the ticket. Killed in between (a power cut, Ctrl-C at that
instant: here the evidence's write fails), main holds the result and nothing says oms merged it; a
second `oms result merge` finds the result in main (`already`) and records nothing either — the
merge stayed without evidence for ever, and the audit log never showed it. Now the merge writes a
`merge-begun` event (what its evidence will say) before the target moves, and the retry records
the evidence of the begun merge the target holds."""

from __future__ import annotations

import pytest

from oms.errors import StoreError
from oms.services.finishing import finish, verify
from oms.services.workspace import Workspace
from tests.chain import Chain
from tests.helpers import git
from tests.integration.test_review import _result


def _merge_evidence(ws: Workspace, dispatch_id: str) -> list[str]:
    found = []
    for ref in ws.store.evidence.refs():
        body = ws.store.evidence.get(ref).body
        payload = body.get("payload")
        mine = isinstance(payload, dict) and payload.get("dispatch_id") == dispatch_id
        if body.get("evidence_kind") == "merge" and mine:
            found.append(ref)
    return found


def test_a_merge_killed_before_its_evidence_gets_it_on_the_retry(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    bound, _ = _result(chain)
    main = git("rev-parse", "main", cwd=chain.repo).strip()
    with chain.workspace() as ws:
        assert verify.verify(ws, bound.dispatch_id).passed
        put = type(ws.store).put_evidence

        def killed(self: object, body: dict[str, object]) -> object:
            if body.get("evidence_kind") == "merge":
                raise StoreError("killed before the merge evidence was written")
            return put(self, body)  # type: ignore[arg-type]

        monkeypatch.setattr(type(ws.store), "put_evidence", killed)
        with pytest.raises(StoreError):
            finish.merge(ws, bound.dispatch_id)
        monkeypatch.undo()
    assert git("rev-parse", "main", cwd=chain.repo).strip() != main  # the target moved
    with chain.workspace() as ws:
        finish.merge(ws, bound.dispatch_id)  # the person runs it again
        assert _merge_evidence(ws, bound.dispatch_id) != []


def test_a_result_merged_by_hand_gets_no_merge_evidence(chain: Chain) -> None:
    """oms began no merge of it: found in main, nothing says oms merged it (the evidence of a
    begun merge is only what oms began and the target holds)."""
    bound, commit = _result(chain)
    with chain.workspace() as ws:
        assert verify.verify(ws, bound.dispatch_id).passed
    git(
        "-c",
        "user.name=p",
        "-c",
        "user.email=p@p",
        "merge",
        "-q",
        "--no-edit",
        commit,
        cwd=chain.repo,
    )
    with chain.workspace() as ws:
        assert finish.merge(ws, bound.dispatch_id).already
        assert _merge_evidence(ws, bound.dispatch_id) == []


def test_a_merge_refused_before_its_move_then_done_has_one_evidence(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A try that began and failed before the target moved leaves its event; the next try begins
    again (the next id) and its evidence is the one recorded, once, whatever the retries."""
    from oms.adapters import git_finish
    from oms.errors import CheckoutChangedError

    bound, _ = _result(chain)
    with chain.workspace() as ws:
        assert verify.verify(ws, bound.dispatch_id).passed

        def moved(*_: object) -> None:
            raise CheckoutChangedError("main moved while oms merged into it; nothing merged")

        monkeypatch.setattr(git_finish, "fast_forward_checkout", moved)
        monkeypatch.setattr(git_finish, "swap_branch", moved)
        with pytest.raises(CheckoutChangedError):
            finish.merge(ws, bound.dispatch_id)
        monkeypatch.undo()
        done = finish.merge(ws, bound.dispatch_id)
        assert not done.already
        assert done.ref is not None
        assert finish.merge(ws, bound.dispatch_id).already
        assert _merge_evidence(ws, bound.dispatch_id) == [done.ref]
