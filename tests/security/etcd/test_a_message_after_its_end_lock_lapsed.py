"""`oms worker send` on etcd types a person's message under the dispatch's end lock, so that an end
(a cancel, a lapse, a result) lands before its fence check or after its last key (ADR 0036
amendment `sendlock`). On etcd that lock is a key under a lease its holder's thread keeps alive: a
sender paused (^Z) or cut off from the cluster past the lease's TTL loses it, and an end takes it
and is written meanwhile. The store's writes carry the lock's fence and are refused then; the keys
typed into the pane carried nothing, and the message was typed into an attempt whose lease had
lapsed. Each key is now typed only once the cluster says the lock is still the sender's.

The lapse is the lease revoked while the sender is between its fence check and its first key (as a
lapse deletes the key with it), on the real 3-member cluster with a real pane.

A launch types the agent's instruction the same way, under its delivery lock (one lease on the
cluster): a deliverer paused past the TTL lost it, another deliverer (the conductor's deliver
phase) could take the event meanwhile, and the first typed the instruction all the same. Its keys
now ask the delivery lock too."""

from __future__ import annotations

import pytest

from oms.adapters.activation import Tui, Witness
from oms.adapters.etcd.client import Etcd
from oms.adapters.providers.base import LaunchPlan
from oms.errors import LeaseError, OmsError
from oms.services.chain import tickets
from oms.services.chain.liveness import CONSUMER
from oms.services.delivery.service import Delivery
from tests.chain import accepted, use_worker
from tests.helpers import OmsCommand, eventually
from tests.integration.etcd.test_deliver_etcd import EtcdChain, _clean, client, on_etcd
from tests.integration.etcd.test_worker_cmds_etcd import _running
from tests.integration.test_worker_send import _heard

__all__ = ["client", "on_etcd"]


@pytest.mark.cli
def test_a_message_whose_end_lock_lapsed_types_no_key(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    dispatch_id = _running(on_etcd, oms, "listen")
    heard = _heard(on_etcd, dispatch_id)
    eventually(heard.exists, timeout=60, what="the listening worker starting")
    expired: list[str] = []

    class LapsedMeanwhile(Tui):
        """The sender is paused past its lease's TTL after its fence check: its end lock lapses
        and the ticket's lease, run out meanwhile, is expired by another process."""

        def say(self, plan: LaunchPlan, dispatch_id: str, text: str, witness: Witness) -> str:
            [lock] = [
                kv
                for kv in client.range_prefix(f"{etcd_prefix}locks/")
                if kv.key.endswith(f"/record-result/{dispatch_id}")
            ]
            client.revoke(lock.lease)  # the lease lapsed: its key is gone with it
            on_etcd.clock.advance(24 * 60)  # and so did the ticket's
            with on_etcd.workspace() as other:
                expired.extend(t.record_id for t in tickets.expire_due(other))
            return super().say(plan, dispatch_id, text, witness)

    with on_etcd.workspace() as ws:
        sender = Delivery.open(ws, activator=LapsedMeanwhile(Delivery.open(ws).panes))
        with pytest.raises(LeaseError, match="was lost"):
            sender.send(dispatch_id, "keep going", person="tester")
    assert len(expired) == 1  # the end was written while the message waited to be typed
    assert b"keep going" not in heard.read_bytes()  # ... and no key of it reached the pane
    with on_etcd.workspace() as ws:
        Delivery.open(ws).stop(dispatch_id, "test over")
    _clean(oms, on_etcd)


@pytest.mark.cli
def test_an_instruction_whose_delivery_lock_lapsed_types_no_key(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    use_worker(on_etcd, "listen")
    dispatch_id, event_id = accepted(on_etcd)
    refused: list[str] = []

    class LapsedWhileReady(Tui):
        """The deliverer is paused past its lease's TTL while the agent becomes ready: its
        delivery lock lapses; it then types the instruction as `Tui` does, asking before the key
        (`Tui.activate` asks `pressing` before each key: `tests/unit/adapters/test_activation.py`;
        a command worker's plan types none, so the key is typed here)."""

        def activate(self, plan: LaunchPlan, dispatch_id: str, witness: Witness) -> None:
            heard = _heard(on_etcd, dispatch_id)
            eventually(heard.exists, timeout=60, what="the listening worker starting")
            [lock] = [
                kv
                for kv in client.range_prefix(f"{etcd_prefix}locks/")
                if kv.key.endswith(f"/{CONSUMER}/{event_id}")
            ]
            client.revoke(lock.lease)  # the lease lapsed: its key is gone with it
            try:
                witness.pressing()
            except LeaseError as exc:
                refused.append(exc.message)
                raise
            self.screen.send_text(dispatch_id, "the instruction")

    with on_etcd.workspace() as ws:
        with pytest.raises(OmsError):
            Delivery.open(ws, activator=LapsedWhileReady(Delivery.open(ws).panes)).deliver(event_id)
    heard = _heard(on_etcd, dispatch_id)
    eventually(
        lambda: b"the instruction" in heard.read_bytes() or refused,
        timeout=20,
        what="the instruction typed, or its key refused",
    )
    assert b"the instruction" not in heard.read_bytes()  # no key of it reached the pane
    [lost] = refused
    assert "was lost" in lost
    with on_etcd.workspace() as ws:  # the next deliverer (the conductor's phase) takes the event
        again = Delivery.open(ws).deliver(event_id)
        assert again["status"] == "processed"  # ... and goes on with the pane the first made
        assert isinstance(again["outcome"], dict)
        assert again["outcome"]["status"] == "reused"
        Delivery.open(ws).stop(dispatch_id, "test over")
    _clean(oms, on_etcd)
