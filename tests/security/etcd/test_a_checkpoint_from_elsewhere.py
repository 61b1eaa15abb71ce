"""A checkpoint of an etcd store's keys (ADR 0043, amendment `rest`) is refused when it is not this
store's on this cluster by this host: one of another prefix, another cluster or another host's
state key — or a checkpoint of the keys handed to a state root on files — is named for what it
is, never read against the chain (where it would pass for a rollback, or a rewrite, of this one),
and a checkpoint edited after it was signed is refused by its signature."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oms.store import keys
from oms.store.keys_checkpoint import sign
from tests.chain import Chain
from tests.etcd_cluster import Cluster
from tests.helpers import OmsCommand
from tests.integration.etcd.test_commands_cli import _oms, _use_etcd


def _verify(oms: OmsCommand, chain: Chain, checkpoint: Path) -> str:
    """The line `audit verify --checkpoint` gives the checkpoint (exit 1): never a rollback (the
    anchor's own lines are its, per prefix: ADR 0043, amendment `etcdtick`)."""
    code, out = _oms(oms, chain, "audit", "verify", "--checkpoint", str(checkpoint))
    assert code == 1, out
    line = next(line for line in out.splitlines() if "the exported checkpoint" in line)
    assert "was rolled back" not in line, out
    assert "rewritten" not in line, out
    return line


def _set_store(chain: Chain, endpoints: list[str], prefix: str) -> None:
    """Commit `[store]` anew (the last table replaced) and pin it, as a person does."""
    chain.edit_config(lambda text: text.split("\n[store]\n")[0], commit=True)
    _use_etcd(chain, endpoints, prefix)


@pytest.mark.cli
def test_a_checkpoint_of_another_store_cluster_or_host_is_refused(
    chain: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str, tmp_path: Path
) -> None:
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    for title in ("First", "Second"):
        code, out = _oms(oms, chain, "ticket", "add", "--title", title, "--no-body")
        assert code == 0, out
    mine = tmp_path / "mine.json"
    code, out = _oms(oms, chain, "audit", "checkpoint", "--export", str(mine), "--json")
    assert code == 0, out
    signed = json.loads(mine.read_text())

    other_host = tmp_path / "other-host.json"  # the same head, signed by another state key
    key, public = keys.SigningKey.generate()
    forged = sign(
        key, keys.key_id(public), signed["seq"], signed["head"], signed["store"], signed["cluster"]
    )
    other_host.write_text(json.dumps(forged))
    assert "signed by another state key" in _verify(oms, chain, other_host)

    edited = tmp_path / "edited.json"  # this host's, its entry moved on after it was signed
    edited.write_text(json.dumps({**signed, "seq": signed["seq"] + 5}))
    out = _verify(oms, chain, edited)
    assert "signature" in out, out

    code, out = _oms(oms, chain, "audit", "verify", "--checkpoint", str(mine))
    assert code == 0, out  # the real one holds

    _set_store(chain, etcd_cluster.endpoints, etcd_prefix.rstrip("/") + "-b/")
    for title in ("Third", "Fourth", "Fifth"):
        code, out = _oms(oms, chain, "ticket", "add", "--title", title, "--no-body")
        assert code == 0, out
    assert "a checkpoint of another etcd store" in _verify(oms, chain, mine)

    (tmp_path / "other").mkdir()
    other = Cluster(tmp_path / "other", size=1)
    try:
        other.start_all()
        _set_store(chain, other.endpoints, etcd_prefix)  # the same prefix, another cluster
        for title in ("Sixth", "Seventh", "Eighth"):
            code, out = _oms(oms, chain, "ticket", "add", "--title", title, "--no-body")
            assert code == 0, out
        assert "a checkpoint of another etcd cluster" in _verify(oms, chain, mine)
    finally:
        other.stop()

    chain.edit_config(lambda text: text.split("\n[store]\n")[0], commit=True)  # back to files
    out = _verify(oms, chain, mine)
    assert "a checkpoint of an etcd store's keys" in out, out
