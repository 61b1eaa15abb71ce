"""The etcd tests share one real 3-member cluster per pytest process (`tests/etcd_cluster.py`)."""

from tests.etcd_cluster import etcd_cluster, etcd_prefix

__all__ = ["etcd_cluster", "etcd_prefix"]
