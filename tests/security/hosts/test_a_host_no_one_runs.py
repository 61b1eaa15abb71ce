"""A worker whose record names a host no conductor runs (a name typed wrong once, a machine given
away) is looked after by no tick, and `oms worker stop` elsewhere is refused naming the host. It
is not stuck for ever: a person names that host (`OMS_HOST=<it>`) and stops it, and `oms status`
stops warning of it (SECURITY.md, Known limits, Hosts)."""

from __future__ import annotations

import json

import pytest

from tests.chain import Chain, accepted
from tests.helpers import OmsCommand


def test_a_worker_of_a_host_no_one_runs_is_stopped_by_naming_its_host(
    chain: Chain, oms: OmsCommand, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMS_HOST", "gone")  # accepted on a host that then never runs a tick
    gone, _ = accepted(chain)
    monkeypatch.delenv("OMS_HOST")
    with chain.workspace() as ws:
        assert ws.store.records("worker").read(gone).payload["host"] == "gone"
    where = ("--state-root", str(chain.state))
    here = {"OMS_HOST": "host-a"}
    refused = oms.run("worker", "stop", gone, *where, env=here, cwd=chain.repo)
    assert refused.returncode != 0
    assert f"worker {gone} runs on host gone" in refused.stderr
    status = oms.run("status", *where, env=here, cwd=chain.repo)
    assert "host gone unreachable" in status.stdout + status.stderr
    stopped = oms.run("worker", "stop", gone, *where, env={"OMS_HOST": "gone"}, cwd=chain.repo)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    after = oms.run("status", *where, "--json", env=here, cwd=chain.repo)
    assert after.returncode == 0, after.stderr
    doc = json.loads(after.stdout)
    assert not any("host gone unreachable" in w for w in doc.get("warnings", [])), doc
