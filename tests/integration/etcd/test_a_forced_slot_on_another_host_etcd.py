"""A forced scale-down on one host of a cluster, of a slot whose worker another host runs (ADR
0016, amendment `drainsweep`, attack10): the scale's host may not touch that worker's pane (it is
the other host's: `check_host`), so its park said "not parked" and the agent ran on in the forced
slot, two agents in a pool of one. Now the worker's own host parks it on its next tick."""

from __future__ import annotations

from oms.services.chain import tickets
from oms.services.conductor import pool
from tests.chain import Chain, use_worker
from tests.etcd_cluster import Cluster
from tests.integration.etcd.test_an_approval_outlasts_a_rest_etcd import _open
from tests.integration.etcd.test_commands_cli import _use_etcd
from tests.integration.etcd.test_tick_etcd import _second_host, _tick


def test_a_forced_scale_on_host_a_parks_host_bs_worker_on_host_bs_tick(
    deliverable: Chain, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    chain = deliverable
    use_worker(chain)
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    for other in _second_host(chain):
        with _open(chain, "host-a") as ws:
            tickets.add(ws, "One", "do it")
        lines = _tick(chain, "host-a")  # worker-1, on host a
        with _open(chain, "host-a") as ws:
            second = tickets.add(ws, "Two", "do it").record_id
        lines += _tick(other, "host-b")  # worker-2, on host b
        with _open(chain, "host-a") as ws:
            [dispatch] = [
                d for d in ws.store.latest("dispatch").records if d.payload["ticket_id"] == second
            ]
            worker = ws.store.records("worker").read(dispatch.record_id).payload
            assert (dispatch.payload["worker_id"], worker["host"]) == ("worker-2", "host-b"), lines
            assert worker["health"] == "healthy", lines
            _, plan, occupancy = pool.scale(ws, to=1, up=0, down=0, force=True)
            said = pool.park_draining(ws, occupancy, plan.park)  # on host a
        assert [x.split(" not parked: ")[0] for x in said] == [f"worker-2: {dispatch.record_id}"], (
            said
        )
        lines += _tick(chain, "host-a")  # host a leaves host b's worker alone
        lines += _tick(other, "host-b")
        with _open(other, "host-b") as ws:
            worker = ws.store.records("worker").read(dispatch.record_id).payload
        assert worker["health"] == "parked", (lines, worker)
        assert worker["health_reason"] == "pool scaled down: worker-2 drains", (lines, worker)
