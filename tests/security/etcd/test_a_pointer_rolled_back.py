"""Whoever can write the cluster puts a record's latest pointer back to an older version (the
version it names still there): the record summary `oms ticket list` and `oms status` read
(`adapters/etcd/summary.py`) must not serve the older version as the newest, whether the summary
held the record before (a cached entry) or reads it afresh; the record is that summary's error,
and `oms store verify` names it (SECURITY.md 9: a pointer is modified in the revision its version
was created in, and the summary asks that of every pointer it reads)."""

from __future__ import annotations

from oms.adapters.etcd import summary
from oms.adapters.etcd.client import Etcd
from oms.adapters.etcd.store import EtcdStore
from oms.store import Store
from tests.chain import Chain
from tests.etcd_cluster import Cluster, line_of
from tests.helpers import payload, ts


def test_a_pointer_rolled_back_is_not_served_as_the_newest_version(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    client = Etcd(etcd_cluster.endpoints)
    try:
        with Store.open(str(chain.state)) as files:
            store = Store(files.state, backend=EtcdStore(client, etcd_prefix, line_of(files)))
            records = store.records("ticket")
            for n in (1, 2):
                records.create(
                    f"tkt-{n}",
                    state="open",
                    payload=payload("ticket"),
                    operation_id=f"op-{n}",
                    actor="oms-system",
                    observed_at=ts(0),
                )
            first = records.read("tkt-1")
            done = records.transition(
                "tkt-1",
                expected_version=first.version,
                state=first.state,
                payload={**first.payload, "title": "Renamed"},
                operation_id="op-rename",
                actor="oms-system",
                observed_at=ts(1),
            )
            assert records.read("tkt-1").version == done.record.version == 1
            summary.forget()
            cached = {r.record_id: r.version for r in store.latest("ticket").records}
            assert cached == {"tkt-1": 1, "tkt-2": 0}
            client.put(etcd_prefix + "latest/ticket/tkt-1", b"0")  # rolled back
            for fresh in (False, True):  # the summary as it was, then read again from nothing
                if fresh:
                    summary.forget()
                latest = store.latest("ticket")
                served = {r.record_id: r.version for r in latest.records}
                assert served.get("tkt-1") != 0, (fresh, served)
                assert "tkt-1" in latest.errors, (fresh, latest.errors)
    finally:
        summary.forget()
        client.close()
