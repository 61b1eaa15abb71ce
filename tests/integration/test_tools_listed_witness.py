"""The agent has oms's tools: its bridge's first `tools/list` of a connection, noted by the broker
(`services/doors/bridge.Session`, `chain/liveness.record_listing`) once per session and pane, and
the deliverer's question (`services/delivery/launch.HookWitness.listed`) — on a real state root.

Claude Code shows its ready screen before its MCP servers are up: typed then, its first turn went
to the model without `mcp__oms_worker__*` (`No such tool available: read_dispatch`). Only the
broker's own observation counts, under the delivery's nonce, in the pane the session names."""

from __future__ import annotations

import json

from oms.canonical import next_after
from oms.domain import sessions
from oms.domain.own_pane import PaneProcess
from oms.services.chain.liveness import listing_event_id
from oms.services.delivery.launch import HookWitness
from oms.services.delivery.service import Delivery
from oms.services.doors import bridge
from oms.services.workspace import SYSTEM_ACTOR
from oms.store.payloads import as_json
from oms.store.verify import verify
from tests.agent_side import Bound, bind
from tests.chain import Chain

FIRST = PaneProcess("00000000-0000-4000-8000-000000000001", 4242, 1000)
SECOND = PaneProcess("00000000-0000-4000-8000-000000000001", 5353, 2000)  # a relaunch's pane
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def _registered(chain: Chain, pane: PaneProcess) -> Bound:
    """An accepted dispatch, its session registered naming `pane` as delivery registers it."""
    found = bind(chain)
    with chain.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(found.dispatch_id)
        now = ws.now()
        nxt = sessions.register(
            dispatch=dispatch.payload,
            dispatch_id=found.dispatch_id,
            mode="pane",
            pane_id="%1",
            source_event_id=found.event_id,
            now=now,
            pane_process=pane.to_json(),
        )
        ws.store.records("session").create(
            found.session_id,
            state=nxt.state,
            payload=as_json(nxt.payload),
            operation_id="test-register",
            actor=SYSTEM_ACTOR,
            observed_at=now,
        )
    return found


def _relaunched(bound: Bound, pane: PaneProcess) -> None:
    """`oms worker resume` moved the session to a new pane (the agent's native session)."""
    with bound.chain.workspace() as ws:
        records = ws.store.records("session")
        session = records.read(bound.session_id)
        now = next_after(session.observed_at, ws.now())
        nxt = sessions.relaunch(
            session.state, session.payload, pane_id="%2", now=now, pane_process=pane.to_json()
        )
        records.transition(
            bound.session_id,
            expected_version=session.version,
            state=nxt.state,
            payload=as_json(nxt.payload),
            operation_id="test-relaunch",
            actor=SYSTEM_ACTOR,
            observed_at=now,
        )


def _list(
    bound: Bound,
    own: tuple[PaneProcess, ...],
    *,
    nonce: str | None = None,
    times: int = 1,
) -> tuple[list[str], list[str]]:
    """One bridge connection, as the broker of a pane whose first process is `own` serves it:
    initialize, then `times` listings. (The tools each listing named, the broker's log.)"""
    logged: list[str] = []
    names: list[str] = []
    with bound.chain.workspace() as ws:
        args = bridge.BridgeArgs(bound.dispatch_id, bound.session_id, nonce or bound.nonce, own)
        session = bridge.Session(bridge.Tools(args, lambda: ws, logged.append), logged.append)
        session.line(json.dumps(INITIALIZE).encode() + b"\n")
        for _ in range(times):
            (reply,) = session.line(json.dumps(LIST).encode() + b"\n")
            names = [t["name"] for t in json.loads(reply)["result"]["tools"]]
    return names, logged


def _listings(bound: Bound) -> list[str]:
    with bound.chain.workspace() as ws:
        return [
            e
            for e in ws.store.events.ids()
            if ws.store.events.read(e).event_type == "bridge-listed"
        ]


def _listed(bound: Bound) -> bool:
    with bound.chain.workspace() as ws:
        return HookWitness(Delivery.open(ws), bound.dispatch_id).listed()


def test_the_first_listing_is_noted_once_for_the_pane(chain: Chain) -> None:
    bound = _registered(chain, FIRST)
    assert _listed(bound) is False  # the ready screen alone says nothing of the tools
    names, logged = _list(bound, (FIRST,), times=2)
    assert names == ["read_dispatch", "acknowledge_dispatch", "record_dispatch_result"]
    assert logged == []
    assert _listed(bound) is True
    _list(bound, (FIRST,))  # another connection of the same pane (a probe, a reconnect)
    assert _listings(bound) == [listing_event_id(bound.session_id, FIRST)]
    with chain.workspace() as ws:
        event = ws.store.events.read(listing_event_id(bound.session_id, FIRST))
        assert event.payload["pane_process"] == FIRST.to_json()
        assert event.payload["nonce"] == bound.nonce
    assert verify(str(chain.state)).ok


def test_a_listing_under_another_nonce_is_answered_and_not_noted(chain: Chain) -> None:
    bound = _registered(chain, FIRST)
    names, logged = _list(bound, (FIRST,), nonce="0" * 64)
    assert names == ["read_dispatch", "acknowledge_dispatch", "record_dispatch_result"]
    assert logged == ["bridge tools/list not noted: bridge did not present this delivery's nonce"]
    assert _listings(bound) == []
    assert _listed(bound) is False


def test_a_relaunch_waits_for_its_own_panes_bridge(chain: Chain) -> None:
    bound = _registered(chain, FIRST)
    _list(bound, (FIRST,))
    assert _listed(bound) is True
    _relaunched(bound, SECOND)
    assert _listed(bound) is False  # the first pane's listing does not stand in for the new one
    _, logged = _list(bound, (FIRST,))  # the old pane's bridge, still connected somewhere
    assert len(logged) == 1
    assert "its session names another pane" in logged[0]
    assert _listed(bound) is False
    _list(bound, (SECOND,))
    assert _listed(bound) is True
