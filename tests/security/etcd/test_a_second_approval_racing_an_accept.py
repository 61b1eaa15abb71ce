"""A person's second approval lands while the leasing host's conductor accepts the dispatch (ADR
0043, amendment `cross3`; SECURITY.md "The authority store on etcd", 26). An approval is written
under the dispatch's end lock (amendment `hand`) but an accept takes no lock: it checks the
dispatch as it read it, then writes `accepted` by compare-and-set on that version. A second
approval of the same intent (a person's second click, or the same approval from another host at
once) wrote the dispatch's next version between the two: the accept lost its compare, and the
conductor took that for a failed step — it cancelled the dispatch the person had approved twice
and failed the attempt (a retry needing a third approval, or a ticket blocked at its last
attempt). Now an accept that loses its compare reads the dispatch again and decides again on it,
every check asked again: the twice-approved dispatch is accepted and delivered once. On the real
3-member cluster, the tick in this process."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from oms.adapters.etcd.client import Etcd
from oms.errors import AuthorityChangedError, IllegalTransitionError
from oms.services.chain import authority, tickets
from oms.services.chain import dispatches as chain_dispatches
from tests.chain import use_demo_worker
from tests.etcd_cluster import locks_let_go
from tests.helpers import OmsCommand, eventually
from tests.integration.etcd import test_deliver_etcd as delivered
from tests.integration.etcd.test_deliver_etcd import TIMEOUT, EtcdChain
from tests.integration.etcd.test_hand_etcd import _needs_person
from tests.integration.etcd.test_tick_etcd import _run, _tick
from tests.integration.etcd.test_worker_cmds_etcd import _where

on_etcd, client = delivered.on_etcd, delivered.client  # its fixtures: a chain on the cluster


@pytest.mark.cli
def test_a_second_approval_while_the_conductor_accepts_launches_the_dispatch_once(
    on_etcd: EtcdChain,
    oms: OmsCommand,
    client: Etcd,
    etcd_prefix: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Host a's tick proposes a dispatch whose role needs a person and waits; the person approves;
    host a's next tick checks the dispatch for its accept and, before it writes, the person's
    second approval lands (its own evidence, the dispatch's next version). The tick accepts and
    delivers it all the same: one worker, one delivery, the dispatch resolved once the worker
    ends, no lock left, both verifies clean. Before, the tick cancelled the dispatch ("failed")."""
    chain = on_etcd
    use_demo_worker(chain)
    _needs_person(chain)
    added = oms.run("ticket", "add", "--title", "Approved twice", "--no-body", *_where(chain))
    assert added.returncode == 0, added.stdout + added.stderr
    waits = [x for x in _tick(chain, "host-a") if "waits for a person's approval" in x]
    found = re.search(r"oms dispatch approve (dsp-[0-9a-f]+) ", waits[0] if waits else "")
    assert found is not None, waits
    dispatch_id = found.group(1)

    def approve() -> str:
        done = oms.run(
            "dispatch", "approve", dispatch_id, "--person", "Ann", "--yes", "--json",
            *_where(chain),
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        return str(json.loads(done.stdout)["evidence"])

    first = approve()
    real = authority.check_dispatch
    seconds: list[str] = []

    def then_approved_again(ws: Any, dispatch: Any, *, approved: bool = True) -> Any:
        checked = real(ws, dispatch, approved=approved)
        if approved and not seconds:  # the accept's check passed; its write is next
            seconds.append(approve())
        return checked

    monkeypatch.setattr(chain_dispatches, "check_dispatch", then_approved_again)
    lines = _tick(chain, "host-a")
    [second] = seconds
    assert second != first  # its own evidence: another version of the dispatch
    assert any(f"{dispatch_id} delivered" in x for x in lines), lines
    with chain.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(dispatch_id)
        assert dispatch.state == "accepted", (dispatch.state, dispatch.payload.get("reason"))
        assert dispatch.payload["approval_evidence"] == second  # decided on what it wrote
        worker = ws.store.records("worker").read(dispatch_id)
        assert worker.payload["host"] == "host-a"

    def resolved() -> bool:
        _tick(chain, "host-a")
        with chain.workspace() as ws:
            return ws.store.records("dispatch").read(dispatch_id).state == "resolved"

    eventually(resolved, timeout=TIMEOUT * 2, what="the twice-approved worker ran, resolved")
    with chain.workspace() as ws:
        ticket = ws.store.records("ticket").read(str(dispatch.payload["ticket_id"]))
        assert ticket.payload["attempt"] == 1, ticket.payload  # no attempt spent on the race
    locks_let_go(client, etcd_prefix)
    deliveries = [k.key for k in client.range_prefix(f"{etcd_prefix}events/", keys_only=True)]
    assert len([k for k in deliveries if "evt-delivery" in k]) <= 1, deliveries
    for command in (("store", "verify"), ("audit", "verify")):
        code, out = _run(oms, chain, "host-a", *command)
        assert code == 0, out


def test_an_approval_of_an_attempt_whose_lease_lapsed_is_refused_moving_no_key(
    on_etcd: EtcdChain, client: Etcd, etcd_prefix: str
) -> None:
    """The conductor of the host that waits for the person stops (^Z, a crash): the ticket's
    lease is no longer renewed and lapses; then another host's expire opens the ticket for its
    next attempt, its dispatch still `proposed`. A person's approval of it on the cluster was
    written (evidence, the dispatch's version, the end lock's lease) and said `approved`, though
    no accept could take it. Each is now refused in one line naming the lease, moving no key."""
    chain = on_etcd
    _needs_person(chain)
    _, _, dispatch_id = chain.proposed("Waits past its lease on the cluster")
    chain.clock.advance(61)  # past the configured 60 minutes
    for expire in (False, True):
        with chain.workspace() as ws:
            ws.host_name = "host-b"
            if expire:
                [expired] = tickets.expire_due(ws)
                assert expired.state == "open"
            before = {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)}
            refusal = IllegalTransitionError if expire else AuthorityChangedError  # (cross7)
            with pytest.raises(refusal) as no:
                chain_dispatches.approve(ws, dispatch_id, person="Ann", rationale="ok")
            said = no.value.diagnostics()  # expired: the expiry cancelled it, and says why
            assert ("lease ran out" if expire else "ticket lease no longer matches") in said, said
            after = {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)}
            assert after == before


@pytest.mark.cli
def test_a_persons_reject_while_the_conductor_accepts_wins_and_launches_nothing(
    on_etcd: EtcdChain,
    oms: OmsCommand,
    client: Etcd,
    etcd_prefix: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`oms dispatch reject` takes no end lock (nor does an accept): host a's tick checks the
    approved dispatch for its accept and, before it writes, a person's `oms dispatch reject` (a
    real process, as from the board) writes it `rejected`. The accept loses its compare, decides
    again on the rejected dispatch and writes nothing: no worker, no delivery; the next tick
    blocks the ticket with the person's words (ADR 0043, amendment `cross7`: held, no change)."""
    chain = on_etcd
    use_demo_worker(chain)
    _needs_person(chain)
    added = oms.run("ticket", "add", "--title", "Rejected at once", "--no-body", *_where(chain))
    assert added.returncode == 0, added.stdout + added.stderr
    waits = [x for x in _tick(chain, "host-a") if "waits for a person's approval" in x]
    found = re.search(r"oms dispatch approve (dsp-[0-9a-f]+) ", waits[0] if waits else "")
    assert found is not None, waits
    dispatch_id = found.group(1)
    done = oms.run("dispatch", "approve", dispatch_id, "--person", "Ann", "--yes", *_where(chain))
    assert done.returncode == 0, done.stdout + done.stderr
    real = authority.check_dispatch
    rejected: list[str] = []

    def then_rejected(ws: Any, dispatch: Any, *, approved: bool = True) -> Any:
        checked = real(ws, dispatch, approved=approved)
        if approved and not rejected:  # the accept's check passed; its write is next
            said = oms.run(
                "dispatch", "reject", dispatch_id, "--reason", "Ann changed her mind", "--json",
                *_where(chain),
            )  # fmt: skip
            assert said.returncode == 0, said.stdout + said.stderr
            rejected.append(json.loads(said.stdout)["dispatch"]["state"])
        return checked

    monkeypatch.setattr(chain_dispatches, "check_dispatch", then_rejected)
    lines = _tick(chain, "host-a")
    assert rejected == ["rejected"]
    assert not any("delivered" in x for x in lines), lines
    with chain.workspace() as ws:
        assert ws.store.records("dispatch").read(dispatch_id).state == "rejected"
        assert ws.store.records("worker").read_if_exists(dispatch_id) is None
    lines = _tick(chain, "host-a")
    assert any("blocked" in x and "Ann changed her mind" in x for x in lines), lines
    deliveries = [k.key for k in client.range_prefix(f"{etcd_prefix}events/", keys_only=True)]
    assert not [k for k in deliveries if "evt-delivery" in k], deliveries
    locks_let_go(client, etcd_prefix)
