"""The authority chain end to end with real git: add -> lease -> worktree -> propose -> review ->
accept, and every way it must refuse."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from oms.canonical import access
from oms.errors import (
    AdvisorError,
    AuthorityChangedError,
    ConfigError,
    IllegalTransitionError,
    IntegrityError,
    InvalidInputError,
    LeaseError,
    PolicyNotTrackedError,
)
from oms.services.chain import authority, dispatches, live, tickets
from oms.services.chain.authority import Authority
from oms.services.workspace import Workspace
from oms.store import Record
from oms.store.verify import verify
from tests.chain import Chain
from tests.helpers import git


def _snapshot(state: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(state)): p.read_bytes()
        for p in sorted(state.rglob("*"))
        if p.is_file() and not p.name.startswith(".oms-probe")
    }


def test_happy_path_records_every_link_of_the_chain(chain: Chain) -> None:
    ticket_id, token, dispatch_id = chain.proposed()
    with chain.workspace() as ws:
        reviewed, ref = dispatches.review(ws, dispatch_id)
        evidence = ws.store.evidence.get(ref).body
        accepted, event_id = dispatches.accept(ws, dispatch_id)
        worker = ws.store.records("worker").read(dispatch_id)
        event = ws.store.events.read(event_id, "dispatch-delivery-requested")
        again, again_event = dispatches.accept(ws, dispatch_id)  # idempotent
    assert reviewed.payload["advisor_verdict"] == "approve"
    assert evidence["producer"] == "advisor"
    assert evidence["producer_role"] == "oms.exec-advisor"
    payload = access.obj(evidence, "payload")
    assert payload["dispatch_intent_sha256"] == reviewed.payload["dispatch_intent_sha256"]
    provenance = access.obj(payload, "provenance")
    assert provenance["exit_code"] == 0
    assert access.text(provenance, "started_at") <= access.text(provenance, "finished_at")
    assert accepted.state == "accepted"
    assert (worker.state, worker.payload["health"]) == ("idle", "healthy")
    assert event.payload == {
        "dispatch_id": dispatch_id,
        "dispatch_version": accepted.version,
        "worker_record_id": dispatch_id,
        "ticket_id": ticket_id,
        "attempt": 1,
        "lease_token": token,
    }
    assert (again.version, again_event) == (accepted.version, event_id)
    assert verify(str(chain.state)).ok


def test_propose_is_idempotent_per_lease(chain: Chain) -> None:
    ticket_id, _, dispatch_id = chain.proposed()
    with chain.workspace() as ws:
        again, created = dispatches.propose(ws, ticket_id)
    assert (again.record_id, again.version, created) == (dispatch_id, 0, False)


def test_accept_without_review_is_refused(chain: Chain) -> None:
    _, _, dispatch_id = chain.proposed()
    with chain.workspace() as ws, pytest.raises(AuthorityChangedError, match="no approval yet"):
        dispatches.accept(ws, dispatch_id)


def test_reject_verdict_rejects_the_dispatch(chain: Chain) -> None:
    chain.set_advisor("reject", commit=True)
    _, _, dispatch_id = chain.proposed()
    with chain.workspace() as ws:
        rec, _ = dispatches.review(ws, dispatch_id)
        assert rec.state == "rejected"
        assert "too risky" in str(rec.payload["reason"])
        with pytest.raises(IllegalTransitionError):
            dispatches.accept(ws, dispatch_id)


@pytest.mark.parametrize(
    ("mode", "why"),
    [
        ("wrong-digest", "another intent digest"),
        ("garbage", "not one JSON"),
        ("extra-field", "admin"),
        ("fail", "exited 3"),
    ],
)
def test_bad_advisor_output_stores_nothing(chain: Chain, mode: str, why: str) -> None:
    _, _, dispatch_id = chain.proposed()
    chain.set_advisor(mode, commit=True)
    before = _snapshot(chain.state)
    with chain.workspace() as ws, pytest.raises(AdvisorError, match=why):
        dispatches.review(ws, dispatch_id)
    after = _snapshot(chain.state)
    assert {k: v for k, v in after.items() if not k.startswith("tmp/")} == {
        k: v for k, v in before.items() if not k.startswith("tmp/")
    }


@pytest.mark.parametrize("how", ["edited", "staged", "committed", "deleted", "untracked"])
def test_policy_changed_after_propose_blocks_review_and_accept(chain: Chain, how: str) -> None:
    _, _, dispatch_id = chain.proposed()
    with chain.workspace() as ws:
        dispatches.review(ws, dispatch_id)
    policy = chain.repo / ".oms" / "role-policy.json"
    if how == "deleted":
        policy.unlink()
    elif how == "untracked":
        git("rm", "-q", "--cached", ".oms/role-policy.json", cwd=chain.repo)
        git("commit", "-q", "-m", "untrack", cwd=chain.repo)
    else:
        chain.edit_policy(
            lambda d: d["roles"]["oms.command-executor"]["tools"].pop(),
            stage=how == "staged",
            commit=how == "committed",
        )
    expected = AuthorityChangedError if how == "committed" else PolicyNotTrackedError
    with chain.workspace() as ws, pytest.raises(expected):
        dispatches.accept(ws, dispatch_id)


def test_policy_granting_extra_capabilities_is_refused_at_propose(chain: Chain) -> None:
    chain.edit_policy(
        lambda d: d["roles"]["oms.command-executor"].update(capabilities=["repository-read"]),
        commit=True,
    )
    ticket_id, _ = chain.leased_ticket()
    with chain.workspace() as ws, pytest.raises(AuthorityChangedError, match="expected exactly"):
        dispatches.propose(ws, ticket_id)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (('model = "script"', 'model = "bigger-model"'), "model_id"),
        (
            ('model = "script"', 'model = "script"\nendpoint = "https://gateway.example.com/v1"'),
            "model_endpoint",
        ),
    ],
    ids=["model", "endpoint"],
)
def test_config_change_after_review_blocks_accept(
    chain: Chain, change: tuple[str, str], field: str
) -> None:
    """The model and the endpoint its traffic goes to are part of what the advisor approved."""
    _, _, dispatch_id = chain.proposed()
    with chain.workspace() as ws:
        dispatches.review(ws, dispatch_id)
    chain.edit_config(lambda s: s.replace(*change), commit=True)
    with (
        chain.workspace() as ws,
        pytest.raises(AuthorityChangedError, match=f"changed since it was approved: {field}"),
    ):
        dispatches.accept(ws, dispatch_id)


def test_expired_lease_blocks_accept_and_retry_starts_from_recorded_commit(chain: Chain) -> None:
    ticket_id, token, dispatch_id = chain.proposed()
    with chain.workspace() as ws:
        dispatches.review(ws, dispatch_id)
        start = ws.store.records("dispatch").read(dispatch_id).payload["worktree_start_commit"]
    chain.clock.advance(61)  # the configured lease is 60 minutes
    with chain.workspace() as ws:
        with pytest.raises(AuthorityChangedError, match="lease expired"):
            dispatches.accept(ws, dispatch_id)
        with pytest.raises(LeaseError):
            tickets.renew(ws, ticket_id, token)
        [expired] = tickets.expire_due(ws)
        assert tickets.expire_due(ws) == []
        evidence = ws.store.evidence.get(str(expired.payload["prior_failure_evidence"])).body
    assert (expired.state, expired.payload["attempt"]) == ("open", 2)
    assert evidence["evidence_kind"] == "lease-expiry"
    assert access.obj(evidence, "payload")["worktree_start_commit"] == start
    # the agent committed in the worktree meanwhile; the next attempt still starts from the recorded
    # commit
    wt = chain.base / "oms-worktrees" / ticket_id
    (wt / "half-done.txt").write_text("partial work\n")
    git("add", "-A", cwd=wt)
    git("commit", "-q", "-m", "partial", cwd=wt)
    with chain.workspace() as ws:
        tickets.lease(ws, ticket_id, "w2")
        retry, _ = dispatches.propose(ws, ticket_id)
    assert retry.record_id != dispatch_id
    assert retry.payload["attempt"] == 2
    assert retry.payload["worktree_start_commit"] == start
    assert retry.payload["prior_failure_evidence"] == expired.payload["prior_failure_evidence"]


def test_wrong_token_and_foreign_worker(chain: Chain) -> None:
    ticket_id, token = chain.leased_ticket()
    with chain.workspace() as ws:
        with pytest.raises(LeaseError, match="token"):
            tickets.finish(ws, ticket_id, "f" * 64, "done", None)
        with pytest.raises(IllegalTransitionError):
            tickets.lease(ws, ticket_id, "w2")
        done = tickets.finish(ws, ticket_id, token, "done", "merged")
    assert done.state == "done"


def test_tampered_ticket_content_is_refused(chain: Chain) -> None:
    _, _, dispatch_id = chain.proposed()
    [content] = list((chain.state / "tickets").rglob("*.json"))
    data = content.read_bytes().replace(b"one run in ten", b"rm -rf everything")
    os.unlink(content)
    content.write_bytes(data)
    os.chmod(content, 0o600)
    with chain.workspace() as ws, pytest.raises(IntegrityError, match="tampered"):
        dispatches.review(ws, dispatch_id)


GH = {
    "number": 42,
    "title": "Crash on empty input",
    "body": "Steps...",
    "url": "https://github.com/Octo/Repo/issues/42",
}


def test_github_ticket_needs_a_person_started_live_authorization(chain: Chain) -> None:
    with chain.workspace() as ws:
        rec, created = tickets.import_github(ws, json.dumps(GH).encode())
        again, created_again = tickets.import_github(ws, json.dumps(GH, indent=2).encode())
        assert (created, created_again, again.record_id) == (True, False, rec.record_id)
        assert rec.payload["repository"] == "Octo/Repo"
        tickets.lease(ws, rec.record_id, "w1")
        from oms.services.chain import worktrees

        worktrees.create(ws, rec.record_id)
        dispatch, _ = dispatches.propose(ws, rec.record_id)
        with pytest.raises(AuthorityChangedError, match="live authorisation"):
            dispatches.review(ws, dispatch.record_id)
        assert ws.store.journal("live-contact").seqs() == []
        live.authorize(ws, "octo/repo", person="Alice", confirmed_by="flag")
        _, ref = dispatches.review(ws, dispatch.record_id)
        [entry] = ws.store.journal("live-contact").entries()
        assert access.obj(entry, "entry")["operation"] == "advisor-review"
        evidence_at = access.text(ws.store.evidence.get(ref).body, "created_at")
        assert access.text(entry, "recorded_at") <= evidence_at  # journaled first
        live.revoke(ws, "Octo/Repo", "done for today")
        assert live.current(ws, "octo/repo") is None


@pytest.mark.parametrize(
    "doc",
    [
        {**GH, "url": "https://evil.example/Octo/Repo/issues/42"},
        {**GH, "number": 41},
        {**GH, "extra": 1},
        {k: v for k, v in GH.items() if k != "body"},
        {**GH, "title": "two\nlines"},
        {**GH, "number": True},
    ],
)
def test_bad_github_json_refused(chain: Chain, doc: dict[str, object]) -> None:
    with chain.workspace() as ws, pytest.raises(InvalidInputError):
        tickets.import_github(ws, json.dumps(doc).encode())
    assert not (chain.state / "records" / "ticket").exists() or not list(
        (chain.state / "records" / "ticket").iterdir()
    )


def test_human_approval_only_where_policy_allows(chain: Chain) -> None:
    _, _, dispatch_id = chain.proposed()
    with (
        chain.workspace() as ws,
        pytest.raises(AuthorityChangedError, match="does not allow human approval"),
    ):
        dispatches.approve(ws, dispatch_id, person="Alice", rationale="lgtm")
    chain.edit_policy(lambda d: d.update(human_approval=True), commit=True)
    _, _, second = chain.proposed("Another ticket")
    with chain.workspace() as ws:
        rec, ref = dispatches.approve(ws, second, person="Alice", rationale="lgtm")
        body = ws.store.evidence.get(ref).body
        accepted, _ = dispatches.accept(ws, second)
    assert (body["producer"], body["evidence_kind"]) == ("human", "human-approval")
    assert rec.payload["advisor_evidence"] is None
    assert accepted.state == "accepted"


def test_a_role_that_needs_a_person_is_never_accepted_on_an_advisors_approval(
    chain: Chain,
) -> None:
    """A role whose grant sets `needs_person` is approved by a person only: the advisor's signed
    approval of the exact intent does not let it be accepted (the refusal names `oms dispatch
    approve`); a person's does. A policy that asks a person and allows none is refused as read."""
    chain.edit_policy(
        lambda d: d["roles"]["oms.command-executor"].update(needs_person=True), commit=True
    )
    with chain.workspace() as ws, pytest.raises(ConfigError, match="human_approval is false"):
        dispatches.propose(ws, chain.leased_ticket("Refused")[0])
    chain.edit_policy(lambda d: d.update(human_approval=True), commit=True)
    _, _, dispatch_id = chain.proposed("Asks a person")
    with chain.workspace() as ws:
        assert dispatches.awaits_person(ws, ws.store.records("dispatch").read(dispatch_id))
        reviewed, _ = dispatches.review(ws, dispatch_id)
        assert reviewed.payload["advisor_verdict"] == "approve"
        with pytest.raises(AuthorityChangedError, match="needs a person's approval") as caught:
            dispatches.accept(ws, dispatch_id)
        assert f"oms dispatch approve {dispatch_id}" in caught.value.remedy
        assert ws.store.records("worker").read_if_exists(dispatch_id) is None
        dispatches.approve(ws, dispatch_id, person="Alice", rationale="lgtm")
        assert not dispatches.awaits_person(ws, ws.store.records("dispatch").read(dispatch_id))
        accepted, _ = dispatches.accept(ws, dispatch_id)
    assert accepted.state == "accepted"


def test_an_accept_decides_again_on_what_a_second_approval_or_a_reject_wrote_meanwhile(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An accept takes no lock: a person's second approval written between its checks and its
    compare-and-set made it fail (`VersionConflictError`: the conductor then cancelled the
    dispatch the person had approved twice). It now reads the dispatch again and decides on it,
    every check asked again: accepted on the second approval; and a person's reject written in
    that interval is still a reject, never accepted (ADR 0043, amendment `cross3`)."""

    def needs_person(doc: dict[str, Any]) -> None:
        doc["human_approval"] = True
        doc["roles"]["oms.command-executor"]["needs_person"] = True

    chain.edit_policy(needs_person, commit=True)
    real = authority.check_dispatch
    for meanwhile in ("approve", "reject"):
        _, _, dispatch_id = chain.proposed(f"Then {meanwhile}")
        with chain.workspace() as ws:
            dispatches.approve(ws, dispatch_id, person="Alice", rationale="lgtm")
        written: list[str] = []

        def then(
            ws: Workspace,
            dispatch: Record,
            *,
            approved: bool = True,
            how: str = meanwhile,
            dispatch_id: str = dispatch_id,
            written: list[str] = written,
        ) -> Authority:
            checked = real(ws, dispatch, approved=approved)
            if not written:
                with chain.workspace() as other:  # another process, as a second host's
                    if how == "approve":
                        written.append(
                            dispatches.approve(
                                other, dispatch_id, person="Alice", rationale="again"
                            )[1]
                        )
                    else:
                        written.append(dispatches.reject(other, dispatch_id, "no").state)
            return checked

        monkeypatch.setattr(dispatches, "check_dispatch", then)
        with chain.workspace() as ws:
            if meanwhile == "approve":
                accepted, _ = dispatches.accept(ws, dispatch_id)
                assert accepted.state == "accepted"
                assert accepted.payload["approval_evidence"] == written[0]
                assert ws.store.records("worker").read_if_exists(dispatch_id) is not None
            else:
                with pytest.raises(IllegalTransitionError):
                    dispatches.accept(ws, dispatch_id)
                assert ws.store.records("dispatch").read(dispatch_id).state == "rejected"
                assert ws.store.records("worker").read_if_exists(dispatch_id) is None
        monkeypatch.setattr(dispatches, "check_dispatch", real)


def test_a_person_approving_an_attempt_whose_lease_lapsed_is_told_so_and_nothing_is_written(
    chain: Chain,
) -> None:
    """A dispatch waiting for a person keeps its ticket's lease only while its conductor renews it.
    Its lease lapsed (the conductor stopped), then expired (the ticket open for its next attempt,
    the dispatch still `proposed`): a person's approval of it was written and said `approved`,
    though no accept could ever take it (its lease no longer matches) — the person believed the
    work approved, and the next attempt waited for an approval again. Now each is refused in one
    line naming the lease, before any lock, evidence or version (ADR 0043, amendment `cross3`)."""

    def needs_person(doc: dict[str, Any]) -> None:
        doc["human_approval"] = True
        doc["roles"]["oms.command-executor"]["needs_person"] = True

    chain.edit_policy(needs_person, commit=True)
    _, _, dispatch_id = chain.proposed("Waits past its lease")
    chain.clock.advance(61)  # the configured lease is 60 minutes: lapsed, not yet expired
    for expire in (False, True):
        with chain.workspace() as ws:
            if expire:
                [expired] = tickets.expire_due(ws)
                assert (expired.state, expired.payload["attempt"]) == ("open", 2)
            before = ws.store.records("dispatch").read(dispatch_id)
            refusal = IllegalTransitionError if expire else AuthorityChangedError  # (cross7)
            with pytest.raises(refusal) as no:
                dispatches.approve(ws, dispatch_id, person="Alice", rationale="lgtm")
            said = no.value.diagnostics()  # expired: the expiry cancelled it, and says why
            assert ("lease ran out" if expire else "ticket lease no longer matches") in said, said
            after = ws.store.records("dispatch").read(dispatch_id)
            assert (after.version, after.payload["approval_evidence"]) == (before.version, None)


def test_cancel_and_reject_paths(chain: Chain) -> None:
    _, _, dispatch_id = chain.proposed()
    with chain.workspace() as ws:
        cancelled = dispatches.cancel(ws, dispatch_id, "not needed")
        with pytest.raises(IllegalTransitionError):
            dispatches.cancel(ws, dispatch_id, "again")
        with pytest.raises(IllegalTransitionError):
            dispatches.reject(ws, dispatch_id, "no")
    assert cancelled.state == "cancelled"
