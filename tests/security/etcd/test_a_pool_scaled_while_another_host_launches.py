"""Attack (ADR 0043, amendment `cross5`): `oms pool scale` on one host while another host's
deliverer is mid-launch.

Host b's `oms worker deliver` (a real process) holds its delivery's lock and is paused before its
pane is made; host a scales the one pool (`--to 0`, then `--down 1 --force`). Each answer is one
line; a forced scale parks no worker of host b's (it names the host); the paused launch then goes
on and launches once, under its lock; both hosts' verifies are clean. (The launched worker holds
no slot of the pool: accepted by hand, its ticket leased to `w1`.) On the real 3-member cluster."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from oms.adapters.etcd.client import Etcd
from tests.chain import accepted, use_demo_worker
from tests.helpers import OmsCommand, eventually
from tests.integration.etcd import test_deliver_etcd as delivered
from tests.integration.etcd.test_deliver_etcd import TIMEOUT, EtcdChain
from tests.integration.etcd.test_tick_etcd import _pin_each_on_the_other, _run, _second_host

on_etcd, client = delivered.on_etcd, delivered.client  # its fixtures: a chain on the cluster

PAUSED = """
import sys, time
from pathlib import Path
from oms.services.delivery import once
MARK, GO = Path(sys.argv[1]), Path(sys.argv[2])
real = once.launch_worker
def paused(*args, **kwargs):
    MARK.write_text("paused")
    while not GO.exists():
        time.sleep(0.05)
    return real(*args, **kwargs)
once.launch_worker = paused
from oms.cli.entry import main
sys.argv = ["oms", *sys.argv[3:]]
raise SystemExit(main())
"""


def _said(code: int, out: str) -> dict[str, object]:
    assert "Traceback" not in out, out
    [line] = out.splitlines()
    said = json.loads(line)
    assert isinstance(said, dict)
    assert said.get("ok", True) is (code == 0), (code, said)
    return said


@pytest.mark.cli
def test_a_pool_scaled_on_one_host_while_another_launches_answers_in_one_line_launching_once(
    on_etcd: EtcdChain,
    oms: OmsCommand,
    client: Etcd,
    etcd_prefix: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_demo_worker(on_etcd)
    for other in _second_host(on_etcd):
        monkeypatch.setenv("OMS_HOST", "host-b")
        dispatch_id, event_id = accepted(other)  # host b's worker
        mark, go = tmp_path / "paused", tmp_path / "go"
        where = ("--state-root", str(other.state), "--config-root", str(other.repo))
        deliverer = subprocess.Popen(
            [sys.executable, "-c", PAUSED, str(mark), str(go),
             "worker", "deliver", "--event-id", event_id, *where],
            env={**os.environ, "OMS_HOST": "host-b"},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )  # fmt: skip
        try:
            eventually(mark.exists, timeout=TIMEOUT, what="host b's deliverer mid-launch")
            answers = [
                _said(*_run(oms, on_etcd, "host-a", "pool", "scale", *args, "--json"))
                for args in (("--to", "0"), ("--down", "1", "--force"), ("--to", "2"))
            ]
        finally:
            go.write_text("go")
            out, _ = deliverer.communicate(timeout=TIMEOUT)
        assert deliverer.returncode == 0, out
        assert answers[0]["error"] == "invalid-input", answers  # a pool keeps one slot
        for said in answers:
            parked_ = said.get("parked")
            for parked in parked_ if isinstance(parked_, list) else []:
                assert str(parked).endswith("runs on host host-b; run this there"), said
        with other.workspace() as ws:
            sessions = ws.store.latest("session").records
            assert len(sessions) == 1, sessions  # launched once
            worker = ws.store.records("worker").read(dispatch_id)
            assert worker.payload["host"] == "host-b"
        events = [k.key for k in client.range_prefix(f"{etcd_prefix}events/", keys_only=True)]
        assert len([k for k in events if "evt-delivery" in k]) == 1, events
        homes = _pin_each_on_the_other(oms, {"host-a": on_etcd, "host-b": other})
        for host, where_ in (("host-a", on_etcd), ("host-b", other)):
            code, out = _run(oms, where_, host, "store", "verify", pins=homes[host])
            assert code == 0, out
