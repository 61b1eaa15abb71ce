"""Live attempts under chosen dispatch ids, for the model proxy's tests: the proxy forwards a
token's requests only while its attempt may act (`services/fence.verdict`, ADR 0028), so a token
needs a dispatch, its ticket's lease and a worker. The first one in a chain is a real accepted
dispatch (lease, worktree, proposal, advisor review, acceptance); each further id gets the same
dispatch payload (same ticket, lease and session: one lease authorises them all) and an idle,
healthy worker, written through the store."""

from __future__ import annotations

from oms.canonical import JsonObject
from oms.domain import workers
from oms.services.proxy import tokens as proxy_tokens
from oms.services.workspace import Workspace
from oms.store.payloads import as_json
from tests.chain import Chain, accepted


def live_attempt(chain: Chain, dispatch_id: str, changes: JsonObject | None = None) -> None:
    """Make `dispatch_id` a live attempt (nothing if it is a dispatch already); `changes`: fields
    of its dispatch payload that differ from the first one's."""
    with chain.workspace() as ws:
        if ws.store.records("dispatch").read_if_exists(dispatch_id) is not None:
            return
        model = _model(ws)
    if model is None:
        accepted(chain, "A ticket the proxy's tests work on")
    with chain.workspace() as ws:
        model = _model(ws)
        assert model is not None
        payload = {**model, **(changes or {})}
        now = ws.now()
        op = f"test-{dispatch_id}"
        ws.store.records("dispatch").create(
            dispatch_id, state="accepted", payload=payload, operation_id=op, actor="oms-cli",
            observed_at=now,
        )  # fmt: skip
        worker = workers.new(dispatch_id, payload, updated_at=now)
        ws.store.records("worker").create(
            dispatch_id, state=worker.state, payload=as_json(worker.payload), operation_id=op,
            actor="oms-cli", observed_at=now,
        )  # fmt: skip


def _model(ws: Workspace) -> JsonObject | None:
    found = [r for r in ws.store.latest("dispatch").records if r.state == "accepted"]
    return dict(found[0].payload) if found else None


def attempt_token(
    chain: Chain,
    dispatch_id: str,
    provider_id: str,
    *,
    role_id: str | None = None,
) -> str:
    """A proxy token for a live attempt under `dispatch_id` (made first if need be)."""
    live_attempt(chain, dispatch_id)
    with chain.workspace() as ws:
        return proxy_tokens.issue_token(ws, dispatch_id, provider_id, role_id=role_id)
