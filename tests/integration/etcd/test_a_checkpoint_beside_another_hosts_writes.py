"""A checkpoint taken while another host writes (ADR 0043, amendments `rest` and `newtoken`), on
the real cluster: host a signs the head of the keys' ledger again and again while host b adds
tickets as fast as it can. Each checkpoint names an entry the ledger holds (the head is one read:
its number and its hash are of one entry, never of two), so every one of them still holds once
host b is done, the anchor moved with them, and `oms audit verify` is clean on host a."""

from __future__ import annotations

import threading
import traceback

from oms.canonical import dumps
from oms.services.chain import tickets
from oms.services.workspace import Workspace
from oms.store import Anchored, keys_checkpoint
from tests.chain import Chain
from tests.etcd_cluster import Cluster
from tests.helpers import OmsCommand
from tests.integration.etcd.test_commands_cli import _oms, _use_etcd
from tests.integration.etcd.test_tick_etcd import _second_host

WRITES = 40


def _open(chain: Chain, host: str) -> Workspace:
    ws = Workspace.open(str(chain.state), str(chain.repo), etcd=True)
    ws.host_name = host
    return ws


def _write(other: Chain, failed: list[str], first: threading.Event, done: threading.Event) -> None:
    """Host b adds `WRITES` tickets as fast as it can once host a took its first checkpoint (a
    failure kept for the test to say)."""
    try:
        first.wait(timeout=120)
        with _open(other, "host-b") as ws:
            for n in range(WRITES):
                tickets.add(ws, f"Written beside a checkpoint {n}", "")
    except BaseException:
        failed.append(traceback.format_exc())
    finally:
        done.set()


def test_checkpoints_taken_while_another_host_writes_all_hold(
    chain: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    home = _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    for other in _second_host(chain):
        with _open(other, "host-b") as ws:  # host a vouches for host b's key, as a person pins it
            meta = ws.store.state.meta
        pin = f'[hosts]\nhost-b = "{meta.key_id}:{meta.public_key.hex()}"\n'
        (home / "oms" / "etcd.toml").write_text(pin)
        with _open(chain, "host-a") as ws:
            tickets.add(ws, "Before", "")
        failed: list[str] = []
        first, done = threading.Event(), threading.Event()
        writer = threading.Thread(target=_write, args=(other, failed, first, done), name="host-b")
        signed = []
        writer.start()
        try:
            while not done.is_set():
                with _open(chain, "host-a") as ws:
                    taken = ws.store.checkpoint_keys()
                    assert taken is not None
                    doc, why = taken
                    assert why is None, why  # the anchor moved to it
                    signed.append(doc)
                first.set()
        finally:
            writer.join(timeout=300)
        assert not failed, failed[0]
        seqs = [int(str(d["seq"])) for d in signed]
        assert len(set(seqs)) > 1, seqs  # taken while the ledger grew
        with _open(chain, "host-a") as ws:
            assert isinstance(ws.store.backend, Anchored)
            chain_now = ws.store.backend.chain()
            mine = ws.store.state.meta
            ends = chain_now.head()[0]
            for doc in signed:
                problem = keys_checkpoint.check(
                    dumps(doc), mine.public_key, mine.key_id, chain_now, "a checkpoint"
                )
                assert problem is None, (problem, doc)
        assert ends >= max(seqs)
        code, out = _oms(oms, chain, "audit", "verify")
        assert code == 0, out
