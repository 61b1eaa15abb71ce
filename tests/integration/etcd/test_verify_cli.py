"""`[store] backend = "etcd"` in the committed configuration (ADR 0043): `oms store verify` walks
the cluster's keys as it walks files and names a tampered or foreign key; an unreachable cluster is
one line within the timeout; every other command refuses the backend in one line (this slice)."""

from __future__ import annotations

import json
import time

import pytest

from oms.adapters.etcd.client import Etcd
from oms.adapters.etcd.store import EtcdStore
from oms.errors import ConfigError
from oms.store import Store
from tests.chain import Chain
from tests.etcd_cluster import Cluster, free_ports, line_of
from tests.helpers import OmsCommand, payload, ts
from tests.integration.etcd.test_commands_cli import _use_etcd


def _verify(oms: OmsCommand, chain: Chain, *more: str) -> tuple[int, str]:
    done = oms.run(
        "store", "verify", "--state-root", str(chain.state), "--config-root", str(chain.repo), *more
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.cli
def test_store_verify_walks_the_keys_and_names_a_tampered_and_a_foreign_one(
    chain: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    client = Etcd(etcd_cluster.endpoints)
    try:
        with Store.open(str(chain.state)) as files:
            on_etcd = Store(files.state, backend=EtcdStore(client, etcd_prefix, line_of(files)))
            on_etcd.records("worker").create(
                "dsp-1",
                state="idle",
                payload=payload("worker"),
                operation_id="op-create",
                actor="oms-system",
                observed_at=ts(0),
            )
        _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
        code, out = _verify(oms, chain, "--json")
        assert code == 0, out
        assert (
            json.loads(out)["counts"]["etcd keys"] == 4
        )  # the version, latest, its op and ledger entries
        key = etcd_prefix + "records/worker/dsp-1/0.json"
        found = client.get(key)
        assert found is not None
        client.put(key, found.value.replace(b'"idle"', b'"done"'))
        client.put(etcd_prefix + "planted", b"x")
        code, out = _verify(oms, chain)
        assert code == 1, out
        assert f"etcd:{key}" in out
        assert f"etcd:{etcd_prefix}planted: a foreign key" in out
    finally:
        client.close()


@pytest.mark.cli
def test_an_unreachable_cluster_is_one_line_within_the_timeout(
    chain: Chain, oms: OmsCommand
) -> None:
    _use_etcd(chain, [f"http://127.0.0.1:{p}" for p in free_ports(2)], "/oms/nowhere/")
    began = time.monotonic()
    code, out = _verify(oms, chain)
    assert time.monotonic() - began < 30
    assert code != 0
    lines = [line for line in out.splitlines() if line.strip()]
    assert lines[0].startswith("oms: error: etcd unreachable"), out
    assert len(lines) == 2, out
    assert lines[1].strip().startswith("hint:"), out
    assert "Traceback" not in out


def test_other_commands_refuse_the_etcd_backend_in_one_line(chain: Chain) -> None:
    _use_etcd(chain, ["http://127.0.0.1:2379"], "/oms/x/")
    with pytest.raises(ConfigError, match=r'not served on store\.backend = "etcd"') as caught:
        chain.workspace().close()
    assert "\n" not in caught.value.message


@pytest.mark.cli
def test_a_broken_committed_configuration_leaves_the_state_root_verified(
    chain: Chain, oms: OmsCommand
) -> None:
    chain.edit_config(lambda text: text + "\n[store]\nbackend = 'zookeeper'\n", commit=True)
    code, out = _verify(oms, chain)
    assert code == 0, out
    assert "no etcd keys checked" in out
