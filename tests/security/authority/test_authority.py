"""Attacks on the authority chain: approvals that are forged, for another intent, rejecting, or
replayed from another ticket; hostile ids. Each is refused with a one-line error and changes
nothing."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest

from oms.canonical import access, next_after, sha256_hex, stable_id
from oms.domain import approval
from oms.errors import AuthorityChangedError, InvalidIdError, OmsError, SignatureError
from oms.services.chain import dispatches, tickets, worktrees
from oms.services.workspace import Workspace
from oms.store.keys import SigningKey, key_id
from tests.chain import Chain
from tests.helpers import OmsCommand


def _point_dispatch_at(ws: Workspace, dispatch_id: str, ref: str) -> None:
    """What an attacker with write access to records (but not the key) could do: re-point the
    approval."""
    _rewrite(ws, dispatch_id, {"advisor_evidence": ref, "advisor_verdict": "approve"})


def _rewrite(ws: Workspace, dispatch_id: str, fields: dict[str, Any]) -> None:
    """A next version of the proposed dispatch with `fields` changed, as a writer of records
    without the key could write it."""
    records = ws.store.records("dispatch")
    rec = records.read(dispatch_id)
    records.transition(
        dispatch_id,
        expected_version=rec.version,
        state="proposed",
        payload={**rec.payload, **fields},
        operation_id=stable_id("evil", dispatch_id, json.dumps(fields, sort_keys=True)),
        actor="oms-system",
        observed_at=next_after(rec.observed_at, ws.now()),
    )


def _reviewed(chain: Chain, title: str = "Fix it") -> tuple[str, str]:
    _, _, dispatch_id = chain.proposed(title)
    with chain.workspace() as ws:
        _, ref = dispatches.review(ws, dispatch_id)
    return dispatch_id, ref


def test_evidence_with_a_flipped_signature_is_refused(chain: Chain) -> None:
    dispatch_id, ref = _reviewed(chain)
    path = chain.state / "evidence" / f"{ref}.json"
    env = json.loads(path.read_bytes())
    sig = bytearray(base64.b64decode(env["signatures"][0]["sig"]))
    sig[0] ^= 1
    env["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()
    os.unlink(path)
    path.write_bytes(json.dumps(env, sort_keys=True, separators=(",", ":")).encode())
    os.chmod(path, 0o600)
    with chain.workspace() as ws, pytest.raises(SignatureError):
        dispatches.accept(ws, dispatch_id)


def test_evidence_signed_by_another_key_is_refused(chain: Chain) -> None:
    dispatch_id, ref = _reviewed(chain)
    path = chain.state / "evidence" / f"{ref}.json"
    env = json.loads(path.read_bytes())
    body = base64.b64decode(env["payload"])
    other, _ = SigningKey.generate()
    env["signatures"] = [
        {
            "keyid": key_id(other.public_raw()),
            "sig": base64.b64encode(other.sign(env["payloadType"], body)).decode(),
        }
    ]
    os.unlink(path)
    path.write_bytes(json.dumps(env, sort_keys=True, separators=(",", ":")).encode())
    os.chmod(path, 0o600)
    with chain.workspace() as ws, pytest.raises(SignatureError, match="another key"):
        dispatches.accept(ws, dispatch_id)


def test_approval_of_another_intent_is_refused(chain: Chain) -> None:
    first, first_ref = _reviewed(chain, "First ticket")
    _, _, second = chain.proposed("Second ticket")
    with chain.workspace() as ws:
        _point_dispatch_at(
            ws, second, first_ref
        )  # a genuine approval, replayed from another ticket
        with pytest.raises(AuthorityChangedError, match="for ticket"):
            dispatches.accept(ws, second)
    del first


def test_approval_for_an_older_intent_is_refused(chain: Chain) -> None:
    dispatch_id, _ = _reviewed(chain)
    with chain.workspace() as ws:
        rec = ws.store.records("dispatch").read(dispatch_id)
        forged = ws.store.put_evidence(
            {  # minted with the key, but for a different digest
                "format": "oms-evidence-v1",
                "evidence_kind": "advisor-output",
                "ticket_id": rec.payload["ticket_id"],
                "producer": "advisor",
                "producer_role": "oms.exec-advisor",
                "created_at": rec.observed_at,
                "payload": {
                    "dispatch_id": dispatch_id,
                    "dispatch_intent_sha256": "9" * 64,
                    "verdict": "approve",
                    "rationale": "x",
                    "provenance": {
                        "argv_sha256": "0" * 64,
                        "exit_code": 0,
                        "output_sha256": "0" * 64,
                        "started_at": rec.observed_at,
                        "finished_at": rec.observed_at,
                    },
                },
            }
        )
        _point_dispatch_at(ws, dispatch_id, forged.ref)
        with pytest.raises(AuthorityChangedError, match="another dispatch intent"):
            dispatches.accept(ws, dispatch_id)


def test_reject_verdict_cannot_be_used_to_accept(chain: Chain) -> None:
    chain.set_advisor("reject", commit=True)
    rejected, reject_ref = _reviewed(chain, "Rejected one")
    chain.set_advisor("approve", commit=True)
    _, _, target = chain.proposed("Target")
    with chain.workspace() as ws:
        body = ws.store.evidence.get(reject_ref).body
        assert access.obj(body, "payload")["verdict"] == "reject"
        _point_dispatch_at(ws, target, reject_ref)
        with pytest.raises(AuthorityChangedError):
            dispatches.accept(ws, target)
    del rejected


def test_altered_intent_field_voids_the_approval(chain: Chain) -> None:
    dispatch_id, _ = _reviewed(chain)
    with chain.workspace() as ws:
        records = ws.store.records("dispatch")
        rec = records.read(dispatch_id)
        records.transition(
            dispatch_id,
            expected_version=rec.version,
            state="proposed",
            payload={**rec.payload, "worktree_path": "/etc"},
            operation_id="op-evil",
            actor="oms-system",
            observed_at=next_after(rec.observed_at, ws.now()),
        )
        with pytest.raises(AuthorityChangedError, match="digest does not match"):
            dispatches.accept(ws, dispatch_id)


@pytest.mark.parametrize(
    "bad", ["..", "../tkt-1", "tkt-1/x", "tkt\x001", "tkt-1\n", "T" * 200, "a" * 129, ""]
)
def test_hostile_ids_are_refused_without_state_change(chain: Chain, bad: str) -> None:
    ticket_id, _ = chain.leased_ticket()
    before = sorted(p.relative_to(chain.state) for p in chain.state.rglob("*"))
    with chain.workspace() as ws:
        for call in (
            lambda: tickets.get(ws, bad),
            lambda: tickets.lease(ws, ticket_id, bad),
            lambda: worktrees.create(ws, bad),
            lambda: dispatches.propose(ws, bad),
            lambda: dispatches.accept(ws, bad),
            lambda: dispatches.review(ws, bad),
        ):
            with pytest.raises(OmsError) as info:
                call()
            assert "\n" not in info.value.message
            assert (
                isinstance(info.value, InvalidIdError)
                or "leased" in info.value.message
                or "not" in info.value.message
            )
    assert sorted(p.relative_to(chain.state) for p in chain.state.rglob("*")) == before


@pytest.mark.cli
@pytest.mark.parametrize(
    "args",
    [
        ["ticket", "show", "../x"],
        ["dispatch", "accept", "a/b"],
        ["ticket", "lease", "tkt-1\n", "--worker", "w1"],
        ["worktree", "create", "x" * 200],
        ["ticket", "lease", "tkt-1", "--worker", "../w"],
        ["dispatch", "review", ".."],
    ],
)
def test_cli_hostile_ids_one_line_and_unchanged(
    chain: Chain, oms: OmsCommand, args: list[str]
) -> None:
    chain.leased_ticket()
    before = {str(p): p.stat().st_mtime_ns for p in chain.state.rglob("*")}
    result = oms.run(*args, "--state-root", str(chain.state), "--config-root", str(chain.repo))
    assert result.returncode == 1
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr
    assert {str(p): p.stat().st_mtime_ns for p in chain.state.rglob("*")} == before


def test_content_address_binds_ticket_content(chain: Chain) -> None:
    _, _, dispatch_id = chain.proposed()
    with chain.workspace() as ws:
        rec = ws.store.records("dispatch").read(dispatch_id)
        content = ws.store.ticket_content.get(
            str(rec.payload["ticket_id"]), str(rec.payload["ticket_content_sha256"])
        )
    data = (
        chain.state
        / "tickets"
        / str(rec.payload["ticket_id"])
        / f"{rec.payload['ticket_content_sha256']}.json"
    )
    assert sha256_hex(Path(data).read_bytes()) == rec.payload["ticket_content_sha256"]
    assert content["title"] == "Fix the flaky test"


def test_a_persons_rejection_cannot_be_used_to_accept(chain: Chain) -> None:
    """A person's rejection is kept as signed `human-approval` evidence (verdict `reject`): pointed
    at as another dispatch's approval it is refused (another ticket's), and even bound to its
    own dispatch and intent its verdict refuses it (`domain/approval.py`)."""
    chain.edit_policy(lambda doc: doc.update(human_approval=True), commit=True)
    _, _, declined = chain.proposed("Declined by a person")
    _, _, target = chain.proposed("Target")
    with chain.workspace() as ws:
        intent = ws.store.records("dispatch").read(declined).payload["dispatch_intent_sha256"]
        dispatches.reject(ws, declined, "wrong role", person="Ann")
        [(ref, body)] = [
            (r, b)
            for r, b in ((r, ws.store.evidence.get(r).body) for r in ws.store.evidence.refs())
            if b["evidence_kind"] == "human-approval"
        ]
        _point_approval_at(ws, target, ref)
        with pytest.raises(AuthorityChangedError, match="evidence is for"):
            dispatches.accept(ws, target)
    with pytest.raises(AuthorityChangedError, match="verdict is reject"):
        approval.check_human_approval(
            body, ticket_id=str(body["ticket_id"]), dispatch_id=declined, intent=str(intent)
        )


def _point_approval_at(ws: Workspace, dispatch_id: str, ref: str) -> None:
    _rewrite(ws, dispatch_id, {"approval_evidence": ref})


def test_a_person_may_reject_a_dispatch_whose_fields_no_longer_match_its_intent(
    chain: Chain,
) -> None:
    """Its fields changed by hand after the proposal: no accept takes it, and a person can still
    decline it (their verdict names the digest it records)."""
    _, _, dispatch_id = chain.proposed("Changed by hand")
    with chain.workspace() as ws:
        _rewrite(ws, dispatch_id, {"model_id": "another-model"})
        done = dispatches.reject(ws, dispatch_id, "changed by hand", person="Ann")
    assert (done.state, done.payload["reason"]) == ("rejected", "rejected by Ann: changed by hand")


def test_a_reject_that_loses_to_an_accept_leaves_no_verdict(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An accept takes no end lock: one that wins its compare between a person's reject's read
    and its write makes the reject lose. No signed `reject` is left of the dispatch that then
    launches (before: the verdict was written first)."""
    _, _, dispatch_id = chain.proposed("Accepted first")
    with chain.workspace() as ws:
        real = dispatches._transition
        raced: list[bool] = []

        def accepted_first(*args: Any, **kwargs: Any) -> Any:
            if not raced:  # the reject's write: the conductor's accept lands first
                raced.append(True)
                with chain.workspace() as other:
                    dispatches.review(other, dispatch_id)
                    dispatches.accept(other, dispatch_id)
            return real(*args, **kwargs)

        monkeypatch.setattr(dispatches, "_transition", accepted_first)
        with pytest.raises(OmsError):
            dispatches.reject(ws, dispatch_id, "too late", person="Ann")
        kinds = [ws.store.evidence.get(r).body["evidence_kind"] for r in ws.store.evidence.refs()]
    assert "human-approval" not in kinds, kinds
