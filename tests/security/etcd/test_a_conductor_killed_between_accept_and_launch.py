"""Attack (ADR 0043, amendment `cross5`): a conductor SIGKILLed between its accept and its launch
while a person rejects the dispatch.

Host a's `oms conductor tick` (a real process) proposes, reviews and accepts a dispatch — its
worker and delivery event written — and is SIGKILLed before it launches (a pause put in its
`deliver`). A person then rejects the dispatch (refused in one line: it is accepted) and cancels
it (under its end lock); host a's next tick, a real process, once the dead tick's conductor lock
lapsed, must launch nothing: no session, one delivery event, the worker no longer healthy, no
lock left, both verifies clean. On the real 3-member cluster."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from oms.adapters.etcd.client import Etcd
from tests.chain import use_demo_worker
from tests.etcd_cluster import locks_let_go
from tests.helpers import OmsCommand, eventually
from tests.integration.etcd import test_deliver_etcd as delivered
from tests.integration.etcd.test_deliver_etcd import TIMEOUT, EtcdChain
from tests.integration.etcd.test_tick_etcd import _run
from tests.integration.etcd.test_worker_cmds_etcd import _where

on_etcd, client = delivered.on_etcd, delivered.client  # its fixtures: a chain on the cluster

PAUSED = """
import sys, time
from pathlib import Path
from oms.services.delivery import service
MARK = Path(sys.argv[1])
def paused(self, event_id):
    MARK.write_text(event_id)
    time.sleep(600)
    raise SystemExit(9)
service.Delivery.deliver = paused
from oms.cli.entry import main
sys.argv = ["oms", *sys.argv[2:]]
raise SystemExit(main())
"""


def _one_line(done: subprocess.CompletedProcess[str]) -> dict[str, object]:
    assert "Traceback" not in done.stderr, done.stderr
    [line] = done.stdout.splitlines()
    said = json.loads(line)
    assert isinstance(said, dict)
    return said


@pytest.mark.cli
def test_a_conductor_killed_after_its_accept_then_a_person_cancels_launches_nothing(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str, tmp_path: Path
) -> None:
    chain = on_etcd
    use_demo_worker(chain)
    added = oms.run("ticket", "add", "--title", "Killed mid-way", "--no-body", *_where(chain))
    assert added.returncode == 0, added.stdout + added.stderr
    mark = tmp_path / "paused"
    tick = subprocess.Popen(
        [sys.executable, "-c", PAUSED, str(mark), "conductor", "tick", "--json", *_where(chain)],
        env={**os.environ, "OMS_HOST": "host-a"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        eventually(mark.exists, timeout=TIMEOUT, what="the tick accepted and is about to launch")
    finally:
        os.kill(tick.pid, signal.SIGKILL)
        tick.wait()
    event_id = mark.read_text()
    with chain.workspace() as ws:
        [dispatch] = ws.store.latest("dispatch").records
        assert dispatch.state == "accepted", dispatch.state
        assert dispatch.payload["delivery_event_id"] == event_id
    dispatch_id = dispatch.record_id
    env = {"OMS_HOST": "host-a"}
    reject = ("dispatch", "reject", dispatch_id, "--reason", "no", "--json")
    rejected = _one_line(oms.run(*reject, *_where(chain), env=env))
    assert rejected["error"] == "illegal-transition", rejected

    def cancelled() -> bool:
        cancel = ("dispatch", "cancel", dispatch_id, "--reason", "not now", "--json")
        done = oms.run(*cancel, *_where(chain), env=env)
        said = _one_line(done)
        if done.returncode != 0:
            assert said["error"] == "lock-held", said
            return False
        return True

    eventually(cancelled, timeout=TIMEOUT, what="the person's cancel")

    def ticked() -> bool:
        code, out = _run(oms, chain, "host-a", "conductor", "tick", "--json")
        assert "Traceback" not in out, out
        return code == 0

    eventually(ticked, timeout=TIMEOUT, what="host a's next tick, the dead one's lock lapsed")
    assert ticked()
    with chain.workspace() as ws:
        assert ws.store.records("dispatch").read(dispatch_id).state == "cancelled"
        assert ws.store.latest("session").records == []  # nothing launched
        worker = ws.store.records("worker").read(dispatch_id)
        assert worker.payload["health"] != "healthy", worker.payload
    events = [k.key for k in client.range_prefix(f"{etcd_prefix}events/", keys_only=True)]
    assert len([k for k in events if "evt-delivery" in k]) == 1, events
    locks_let_go(client, etcd_prefix)
    for command in (("store", "verify"), ("audit", "verify")):
        code, out = _run(oms, chain, "host-a", *command)
        assert code == 0, out
