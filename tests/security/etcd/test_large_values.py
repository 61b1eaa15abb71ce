"""Large values under the store's prefix do not blind `oms store verify` (ADR 0043; SECURITY.md "The
authority store on etcd"): a page of keys whose answer is over `LIMITS.etcd_response_bytes` is
asked again in smaller pages, down to one key, so every key is walked and named. Before, one page
over the bound stopped the whole walk ("answer over N bytes"): any client of the cluster writing a
few large values under the prefix hid every tampered record after them. The bound is made small
here so the case costs kilobytes, not the cluster's megabytes."""

from __future__ import annotations

from oms.adapters.etcd.client import Etcd
from oms.adapters.etcd.store import EtcdStore, verify_keys
from oms.limits import LIMITS
from tests.etcd_cluster import Cluster

BOUND = 64 * 1024
BIG = 20 * 1024  # one key's answer fits the bound; a page of them does not
COUNT = 12


def test_large_values_are_walked_a_smaller_page_at_a_time(
    etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    client = Etcd(etcd_cluster.endpoints, LIMITS._replace(etcd_response_bytes=BOUND))
    try:
        for n in range(COUNT):
            client.put(f"{etcd_prefix}big-{n:02}", b"x" * BIG)
        problems, read = verify_keys(EtcdStore(client, etcd_prefix))
    finally:
        client.close()
    assert read == COUNT
    assert sorted(p.key for p in problems) == [f"{etcd_prefix}big-{n:02}" for n in range(COUNT)]
    assert all("foreign" in p.problem for p in problems)
