"""`oms audit checkpoint`, `audit verify --checkpoint` and `audit accept-rollback` on an etcd store
(ADR 0043, amendment `rest`), on real clusters: a checkpoint signs the head of the keys' ledger with
the host's state key; a cluster restored from an `etcdctl snapshot` taken before it is named by
`audit verify --checkpoint` even with the anchor gone, and a person accepts the rollback; a
checkpoint of another store, cluster or host is refused, not read as a rollback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.store import Store
from tests.chain import Chain
from tests.etcd_cluster import Cluster
from tests.helpers import OmsCommand
from tests.integration.etcd.test_commands_cli import _oms, _use_etcd

ETCDCTL = shutil.which("etcdctl")


def _etcdctl(*args: str) -> None:
    assert ETCDCTL is not None
    done = subprocess.run(
        [ETCDCTL, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "ETCDCTL_API": "3"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _restore(cluster: Cluster, snapshot: Path, token: str) -> None:
    """Stop every member and start each again from `snapshot` (`etcdctl snapshot restore`, with
    the cluster's names and peer URLs; under the cluster's own token, the same cluster as it was
    when it was taken; under another, the same data served by a new cluster id)."""
    cluster.stop()
    for member in cluster.members:
        shutil.rmtree(member.data_dir)
        _etcdctl(
            "snapshot",
            "restore",
            str(snapshot),
            "--name",
            member.name,
            "--initial-cluster",
            cluster.initial,
            "--initial-cluster-token",
            token,
            "--initial-advertise-peer-urls",
            member.peer_url,
            "--data-dir",
            str(member.data_dir),
        )
    cluster.start_all()


@pytest.fixture
def own_cluster(tmp_path: Path) -> Iterator[Cluster]:
    """A 3-member cluster of this test's own (it is stopped and restored from a snapshot)."""
    if ETCDCTL is None:
        pytest.skip("etcdctl is not installed (.ci/setup does)")
    (tmp_path / "etcd").mkdir()
    cluster = Cluster(tmp_path / "etcd")
    try:
        cluster.start_all()
        yield cluster
    finally:
        cluster.stop()


@pytest.mark.cli
@pytest.mark.parametrize("token", ["same-token", "new-token"])
def test_a_cluster_restored_from_an_earlier_snapshot_is_named_by_its_checkpoint(
    chain: Chain, oms: OmsCommand, own_cluster: Cluster, tmp_path: Path, token: str
) -> None:
    """Restored as it was, or under a new `--initial-cluster-token` (a new cluster id, the same
    ledger: named a rollback, not "another cluster")."""
    cluster = own_cluster
    _use_etcd(chain, cluster.endpoints, "/oms/rest/")
    for title in ("First", "Second"):
        code, out = _oms(oms, chain, "ticket", "add", "--title", title, "--no-body")
        assert code == 0, out
    snapshot = tmp_path / "before.db"
    _etcdctl("--endpoints", cluster.endpoints[0], "snapshot", "save", str(snapshot))
    code, out = _oms(oms, chain, "ticket", "add", "--title", "Third", "--no-body")
    assert code == 0, out
    exported = tmp_path / "checkpoint.json"
    code, out = _oms(oms, chain, "audit", "checkpoint", "--export", str(exported), "--json")
    assert code == 0, out
    signed = json.loads(out)["checkpoint"]
    assert signed["format"] == "oms-etcd-checkpoint-v1"
    with Store.open(str(chain.state)) as store:
        assert signed["keyid"] == store.state.meta.key_id
    assert json.loads(exported.read_text()) == signed
    code, out = _oms(oms, chain, "audit", "verify", "--checkpoint", str(exported))
    assert code == 0, out

    _restore(cluster, snapshot, cluster.token if token == "same-token" else "oms-restored")
    anchors = Path(os.environ["OMS_ANCHOR_DIR"])
    aside = tmp_path / "anchors-aside"
    anchors.rename(aside)  # the checkpoint alone names it: the anchor is not there
    try:
        code, out = _oms(oms, chain, "audit", "verify")
        assert code == 0, out  # without the checkpoint (and the anchor) nothing shows it
        code, out = _oms(oms, chain, "audit", "verify", "--checkpoint", str(exported))
        assert code == 1, out
        assert "the exported checkpoint" in out, out
        assert "the etcd store under /oms/rest/ was rolled back" in out, out
        assert ("restored on a new cluster" in out) == (token == "new-token"), out
        assert "the cluster's newer snapshot" in out, out
    finally:
        aside.rename(anchors)

    code, out = _oms(oms, chain, "audit", "verify")  # the anchor names it too
    assert code == 1, out
    assert "was rolled back" in out, out
    code, out = _oms(oms, chain, "audit", "accept-rollback", "--person", "ann", "--yes", "--json")
    assert code == 0, out
    done = json.loads(out)
    assert done["tickets_reserved"] == 3, done
    assert done["lost"].startswith("ledger entries "), done
    assert "the etcd store under /oms/rest/" in done["lost"], done
    code, out = _oms(oms, chain, "audit", "verify")
    assert code == 0, out
    code, out = _oms(oms, chain, "ticket", "add", "--title", "Again", "--no-body", "--json")
    assert code == 0, out
    assert json.loads(out)["ticket"]["id"] == "tkt-4"  # tkt-3 was given before the restore
    code, out = _oms(oms, chain, "audit", "accept-rollback", "--person", "ann", "--yes")
    assert code == 1, out
    assert "nothing to accept" in out, out


@pytest.mark.cli
def test_adopt_says_in_one_line_why_it_means_nothing_on_a_cluster(
    chain: Chain, oms: OmsCommand
) -> None:
    _use_etcd(chain, ["http://127.0.0.1:1"], "/oms/adopt/")
    code, out = _oms(oms, chain, "audit", "adopt", "--json")
    assert code == 1, out
    doc = json.loads(out.splitlines()[0])
    assert "every key is created with its ledger entry" in doc["message"], doc


@pytest.mark.cli
def test_a_ledger_served_whole_by_a_new_cluster_still_holds_its_checkpoint(
    chain: Chain, oms: OmsCommand, own_cluster: Cluster, tmp_path: Path
) -> None:
    """A snapshot taken after the checkpoint, restored under a new `--initial-cluster-token` (a
    new cluster id): the ledger the checkpoint names is here whole, so it holds (it was refused
    as "another cluster")."""
    _use_etcd(chain, own_cluster.endpoints, "/oms/moved/")
    code, out = _oms(oms, chain, "ticket", "add", "--title", "First", "--no-body")
    assert code == 0, out
    exported = tmp_path / "checkpoint.json"
    code, out = _oms(oms, chain, "audit", "checkpoint", "--export", str(exported), "--json")
    assert code == 0, out
    snapshot = tmp_path / "after.db"
    _etcdctl("--endpoints", own_cluster.endpoints[0], "snapshot", "save", str(snapshot))
    _restore(own_cluster, snapshot, "oms-moved")
    code, out = _oms(oms, chain, "audit", "verify", "--checkpoint", str(exported))
    assert code == 0, out
