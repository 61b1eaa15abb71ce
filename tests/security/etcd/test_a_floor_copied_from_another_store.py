"""A genuine ticket floor copied from another store (ADR 0043, amendment `floor`). A floor key
(`rollbacks/<sha256>.json`) is an anchor signed by a host's state key: its name, its signature
and its signer all check wherever its bytes are put. A host that writes to two stores (two
prefixes of one cluster, or two clusters) signs both stores' floors with the same key, so one
store's floor, copied under the other's prefix by anyone with the cluster's credentials, held
there: ticket numbers jumped to it, and `oms store verify` said nothing. A floor names the
ledger entry its accept moved to (`seq`, `head`); where this store's ledger holds that entry
with another hash, the floor is another ledger's: named, and not counted."""

from __future__ import annotations

import json

from oms.adapters.etcd.client import Etcd
from oms.services.chain import tickets
from oms.store.anchor import SHARED_ROLLBACKS
from tests.chain import Chain
from tests.etcd_cluster import Cluster, pin_cluster
from tests.helpers import OmsCommand
from tests.integration.etcd.test_commands_cli import _oms, _use_etcd
from tests.security.etcd.test_ids_after_a_rollback_on_a_cluster import _open


def test_a_floor_copied_from_another_prefix_is_named_and_never_followed(
    chain: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    other = etcd_prefix.rstrip("/") + "-copied-from/"
    _use_etcd(chain, etcd_cluster.endpoints, other)
    with _open(chain, "host-a") as ws:  # the other store: its accepted rollback's floor
        for title in ("First there", "Second there"):
            tickets.add(ws, title, "")
        seq, head, _ = ws.store.backend.chain().head()  # type: ignore[union-attr]
        ws.store.share_rollback(seq, head, 1000)
    client = Etcd(etcd_cluster.endpoints)
    try:
        [found] = client.range_prefix(other + SHARED_ROLLBACKS + "/")
        name = found.key[len(other) :]
        assert json.loads(found.value)["tickets"] == 1000
        chain.edit_config(lambda text: text.replace(other, etcd_prefix), commit=True)
        pin_cluster(chain.repo, chain.state)
        with _open(chain, "host-a") as ws:
            for title in ("First here", "Second here"):
                tickets.add(ws, title, "")
            assert ws.store.backend.chain().ends() >= seq  # type: ignore[union-attr]
        client.put(etcd_prefix + name, found.value)  # copied in: its bytes, its name
    finally:
        client.close()
    with _open(chain, "host-a") as ws:
        given = tickets.add(ws, "After the copy", "").record_id
    assert given == "tkt-3", given  # before: tkt-1001
    code, out = _oms(oms, chain, "store", "verify")
    assert code != 0, out
    assert name in out, out
    assert "another ledger" in out, out
