"""The model proxy asks the one rule on every request (issue 24 item 1, ADR 0028): an attempt that
is fenced, cancelled, resolved, expired or stopped, or whose repository's live authorisation is
revoked, gets no request forwarded from the moment the fact is recorded.

Before: the proxy refused a token only once its worker's health was `stopped`. After `oms ticket
expire` (the worker parked, "fenced") the same token still got 200 and was forwarded; after `oms
dispatch cancel`, or once the conductor resolved the dispatch, the agent kept working through the
proxy.

Each case runs a real attempt (lease, worktree, advisor-approved dispatch, acknowledged) and a
client that sends requests one after another through the proxy while the fact is written; every
request sent after the write returned must be refused, and the upstream must hear none of them."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from oms.canonical import next_after, stable_id
from oms.domain import dispatches as machine
from oms.domain import workers
from oms.domain.machine import Next, step
from oms.schemas.payloads import WorkerPayload
from oms.services.chain import dispatches, fence, live, results, tickets, worker_moves, worktrees
from oms.services.proxy import tokens as proxy_tokens
from oms.services.workspace import Workspace
from oms.store import Record
from oms.store.payloads import worker_payload
from tests.chain import accepted
from tests.proxy_rig import Rig, make_rig


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    yield from make_rig(tmp_path)


GH_ISSUE = {
    "number": 7,
    "title": "t",
    "body": "b",
    "url": "https://github.com/acme/widgets/issues/7",
}


def _github_accepted(rig: Rig) -> str:
    """A GitHub ticket's attempt, its repository live-authorised by a person."""
    with rig.chain.workspace() as ws:
        live.authorize(ws, "acme/widgets", person="Alice", confirmed_by="flag")
        rec, _ = tickets.import_github(ws, json.dumps(GH_ISSUE).encode())
        tickets.lease(ws, rec.record_id, "w1")
        worktrees.create(ws, rec.record_id)
        dispatch, _ = dispatches.propose(ws, rec.record_id)
        dispatches.review(ws, dispatch.record_id)
        dispatches.accept(ws, dispatch.record_id)
    return dispatch.record_id


def acknowledged(rig: Rig, github: bool = False) -> str:
    """A real attempt, acknowledged by its agent: its dispatch id."""
    dispatch_id = _github_accepted(rig) if github else accepted(rig.chain)[0]
    with rig.chain.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(dispatch_id)
        nxt = step("dispatch", machine.TABLE, dispatch.state, "acknowledge")
        ws.store.records("dispatch").transition(
            dispatch_id, expected_version=dispatch.version, state=nxt, payload=dispatch.payload,
            operation_id=stable_id("dsp-ack", dispatch_id), actor="oms-bridge",
            observed_at=next_after(dispatch.observed_at, ws.now()),
        )  # fmt: skip
    return dispatch_id


def _stop(ws: Workspace, dispatch_id: str) -> None:
    def decide(worker: Record, now: str) -> Next[WorkerPayload] | None:
        why = "by a person"
        return workers.end(
            worker.state, worker_payload(worker), now=now, end_reason="stopped", detail=why
        )

    op = stable_id("test-stop", dispatch_id)
    worker_moves.move(ws, dispatch_id, decide, op=op, actor="oms-cli")


def _resolve(ws: Workspace, dispatch_id: str) -> None:
    dispatch = ws.store.records("dispatch").read(dispatch_id)
    results.record_result(ws, dispatch, status="failed", summary="cannot", commit=None)
    dispatches.resolve(ws, dispatch_id, "ticket retried")


def _expire(rig: Rig, _dispatch_id: str) -> None:
    """`oms ticket expire`: the lease ran out and the worker is parked, fenced (the clock moves
    first)."""
    rig.chain.clock.advance(61)
    _with(rig, fence.expire_leases)


CAUSES: dict[str, Callable[[Rig, str], None]] = {
    "fenced": _expire,
    "cancelled": lambda rig, d: _with(rig, lambda ws: dispatches.cancel(ws, d, "a person's")),
    "resolved": lambda rig, d: _with(rig, lambda ws: _resolve(ws, d)),
    "expired": lambda rig, _d: rig.chain.clock.advance(61),  # nothing written: the lease ran out
    "stopped": lambda rig, d: _with(rig, lambda ws: _stop(ws, d)),
    "revoked": lambda rig, _d: _with(rig, lambda ws: fence.revoke(ws, "acme/widgets", "stop now")),
}


def _with(rig: Rig, act: Callable[[Workspace], object]) -> None:
    with rig.chain.workspace() as ws:
        act(ws)


@pytest.mark.parametrize("cause", sorted(CAUSES))
def test_no_request_is_forwarded_once_the_attempt_may_no_longer_act(rig: Rig, cause: str) -> None:
    dispatch_id = acknowledged(rig, github=cause == "revoked")
    with rig.chain.workspace() as ws:
        token = proxy_tokens.issue_token(ws, dispatch_id, "claude-mock")
    got = rig.hammered(token, lambda: CAUSES[cause](rig, dispatch_id))
    assert all(status in (401, 403) for status in got.after), (cause, got.after)
    assert len(rig.mock.heard) <= got.heard_then + 1, "the upstream heard requests sent after it"
    assert len(rig.mock.heard) == got.forwarded  # only what was let through
