"""Another repository's dispatch is not this repository's to decline or cancel, named by its whole
id (ADR 0043, amendment `cross7`; SECURITY.md "The authority store on etcd"). A clone of the
repository with its own state root, on the same cluster and prefix (its person pinned no key of the
other's), was refused an approval of the other's dispatch; but `oms dispatch reject` and `oms
dispatch cancel` given the whole id, and its board's `reject` and `cancel` (which send the whole
id), wrote the other repository's dispatch `rejected` or `cancelled`: a whole id was taken as it
was, its ticket never read. On the real 3-member cluster, with real git, the `oms` CLI and `oms
web` over HTTP."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from oms.adapters.etcd.client import Etcd
from oms.services.admin.setup import init
from oms.services.chain import dispatches
from tests.etcd_cluster import pin_cluster
from tests.helpers import OmsCommand
from tests.integration.etcd import test_deliver_etcd as delivered
from tests.integration.etcd.test_deliver_etcd import EtcdChain
from tests.integration.etcd.test_hand_etcd import _as, _keys, _needs_person, _refused
from tests.integration.etcd.test_web_etcd import _Served

on_etcd, client = delivered.on_etcd, delivered.client  # its fixtures: a chain on the cluster


def _other(chain: EtcdChain) -> tuple[tuple[str, ...], dict[str, str]]:
    """Another repository (a clone) with its own state root on the same cluster and prefix: its
    `--state-root`/`--config-root`, and its host's environment (its own settings' pins)."""
    clone, state = chain.base / "clone-b", chain.base / "state-b"
    subprocess.run(["git", "clone", "-q", str(chain.repo), str(clone)], check=True)
    init(str(state), str(clone))
    home = pin_cluster(clone, state, chain.base / "config-b")
    return ("--state-root", str(state), "--config-root", str(clone)), _as("host-b", home)


@contextmanager
def _board(oms: OmsCommand, where: tuple[str, ...], env: dict[str, str]) -> Iterator[_Served]:
    """`oms web` of the other repository, as its host."""
    proc = subprocess.Popen(
        [*oms.argv, "web", *where],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )
    try:
        assert proc.stdout is not None
        assert proc.stderr is not None
        line = proc.stdout.readline()
        if not line.startswith("oms web: open http://127.0.0.1:"):
            proc.wait(timeout=60)
            pytest.fail(line + proc.stderr.read())
        yield _Served(line.split("open ", 1)[1].strip())
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


@pytest.mark.cli
def test_another_repository_cannot_reject_or_cancel_a_dispatch_by_its_whole_id(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    chain = on_etcd
    _needs_person(chain)
    _, _, dispatch_id = chain.proposed("Waits for its own person")
    where, env = _other(chain)
    before = _keys(client, etcd_prefix)
    for verb in ("reject", "cancel"):
        done = oms.run(
            "dispatch", verb, dispatch_id, "--reason", "eve says no", "--json", *where, env=env
        )
        said = _refused(done, "other-repository")
        assert said["message"].startswith("ticket tkt-1 belongs to the repository "), said
    with _board(oms, where, env) as board:
        queue = board.board()["queue"]  # (the cluster's board shows the cluster's tickets)
        assert isinstance(queue, list)
        [row] = queue
        assert isinstance(row, dict)
        assert row["awaiting"] is None, row  # but offers no approval this host cannot give
        assert "approve" not in row["reason"], row
        for action in ("reject", "cancel"):
            status, answer = board.act(action, dispatch_id, "eve says no")
            assert status != 200, answer
            assert "belongs to the repository" in str(answer), answer
    moved = [k for k, r in _keys(client, etcd_prefix).items() if before.get(k) != r]
    assert not [k for k in moved if "/dispatch/" in k], moved
    with chain.workspace() as ws:
        assert dispatches.get(ws, dispatch_id).state == "proposed"
