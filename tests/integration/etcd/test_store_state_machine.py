"""The versioned-record state machine of `tests/unit/store/test_store_state_machine.py`, run on a
real etcd cluster (ADR 0043): the same model must hold whichever backend keeps the versions —
contiguous, linked versions, each operation applied once, replays answered, a different change
under a used operation id refused and nothing written — and on etcd every version is indexed."""

from __future__ import annotations

import itertools
import os

import pytest
from hypothesis import settings
from hypothesis.stateful import invariant

from oms.adapters.etcd.client import Etcd
from oms.adapters.etcd.store import EtcdStore
from oms.store import Store
from oms.store.records import OPS_DIR
from tests.etcd_cluster import Cluster, line_of
from tests.unit.store.test_store_state_machine import RecordMachine

_endpoints: list[str] = []
_runs = itertools.count()


@pytest.fixture(autouse=True)
def _cluster(etcd_cluster: Cluster) -> None:
    _endpoints[:] = etcd_cluster.endpoints


class EtcdRecordMachine(RecordMachine):
    def __init__(self) -> None:
        super().__init__()
        self.client = Etcd(_endpoints)
        prefix = f"/oms-test/sm-{os.getpid()}-{next(_runs)}/"
        self.backend = EtcdStore(self.client, prefix, line_of(self.store))
        self.on_etcd = Store(self.store.state, backend=self.backend)
        self.records = self.on_etcd.records("worker")

    def teardown(self) -> None:
        self.client.close()
        super().teardown()

    @invariant()
    def store_matches_model(self) -> None:
        history = self.records.history("dsp-1")  # raises on gaps or broken links
        assert [(r.operation_id, r.state) for r in history] == self.model
        ops = [r.operation_id for r in history]
        assert len(ops) == len(set(ops))
        indexed = set(self.backend.names(f"records/worker/dsp-1/{OPS_DIR}"))
        assert {f"{op}.json" for op in ops} == indexed
        assert self.store.records("worker").ids() == []  # nothing on files


TestEtcdRecordMachine = EtcdRecordMachine.TestCase
TestEtcdRecordMachine.settings = settings(max_examples=25, stateful_step_count=20, deadline=None)
