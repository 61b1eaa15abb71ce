"""A key under the store's prefix that is not UTF-8 (etcd keys are bytes: any client of the
cluster can write one) is named by `oms store verify` as a foreign key, and the walk goes on
(ADR 0043; SECURITY.md "The authority store on etcd"). Before, the whole walk stopped at it with
"etcd answered a key or value that is not base64 of text", naming no key: one such key hid every
tampered record after it."""

from __future__ import annotations

import base64

from oms.adapters.etcd.client import Etcd
from oms.adapters.etcd.store import EtcdStore, verify_keys
from oms.store import Store
from tests.chain import Chain
from tests.etcd_cluster import Cluster, line_of
from tests.helpers import payload, ts


def test_a_key_not_utf8_is_named_and_the_walk_goes_on(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    client = Etcd(etcd_cluster.endpoints)
    try:
        with Store.open(str(chain.state)) as files:
            backend = EtcdStore(client, etcd_prefix, line_of(files))
            Store(files.state, backend=backend).records("worker").create(
                "dsp-1",
                state="idle",
                payload=payload("worker"),
                operation_id="op-create",
                actor="oms-system",
                observed_at=ts(0),
            )
        raw = etcd_prefix.encode() + b"a\xff\x00../\x1b[31m"  # before the records, in key order
        client.call(
            "/v3/kv/put",
            {"key": base64.b64encode(raw).decode(), "value": base64.b64encode(b"x").decode()},
        )
        client.put(etcd_prefix + "zz-planted", b"x")  # after the records
        problems, read = verify_keys(backend)
    finally:
        client.close()
    assert read == 6  # the odd key, the version, its pointer, op and ledger entry, the planted one
    named = {p.key: p.problem for p in problems}
    odd = [key for key in named if key.startswith(etcd_prefix + "a")]
    assert len(odd) == 1, named
    assert "foreign" in named[odd[0]]
    assert "foreign" in named[etcd_prefix + "zz-planted"]
    assert len(named) == 2, named  # the record itself is sound
