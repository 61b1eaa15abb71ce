"""Attack (ADR 0043, amendment `cross4`): `oms result publish` killed between its push and its
pull request.

A real `oms result publish` process is SIGKILLed once its branch is pushed and it asks GitHub for
the branch's open pull request (the stand-in holds that answer). Its finishing lock is a lease it
can no longer give back: until the lease lapses, a merge and a second publish are refused in one
line ("being merged, published or sent back by another oms command"), nothing written; then a
publish opens the one pull request, the next updates it (never a second), each records its event,
the result merges, no lock is left and both verifies are clean."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path

import pytest

from oms.adapters.etcd.client import Etcd
from tests.etcd_cluster import locks_let_go
from tests.github_standin import GitHubStandIn
from tests.helpers import OmsCommand, eventually
from tests.integration.etcd.test_deliver_etcd import EtcdChain, _clean, client, on_etcd
from tests.integration.etcd.test_github_etcd import PERSON, REPO, _published, _verified, github
from tests.integration.etcd.test_worker_cmds_etcd import _where
from tests.integration.test_publish import _branch

__all__ = ["client", "github", "on_etcd"]


class _Gate(dict[str, list[dict[str, object]]]):
    """The stand-in's pull requests, whose first look (the `GET` after the push) waits."""

    def __init__(self) -> None:
        super().__init__()
        self.reached = threading.Event()
        self.go = threading.Event()

    def setdefault(
        self, key: str, default: list[dict[str, object]] | None = None
    ) -> list[dict[str, object]]:
        if not self.reached.is_set():
            self.reached.set()
            self.go.wait(120)
        return super().setdefault(key, [] if default is None else default)


@pytest.mark.cli
def test_a_publish_killed_between_its_push_and_its_pull_request_opens_one(
    on_etcd: EtcdChain,
    oms: OmsCommand,
    client: Etcd,
    etcd_prefix: str,
    github: GitHubStandIn,
    tmp_path: Path,
) -> None:
    dispatch_id, bare = _verified(on_etcd, oms, tmp_path)
    where = _where(on_etcd)
    gate = _Gate()
    github.pulls = gate
    gh = ("--github-repo", REPO, "--person", PERSON, "--json")
    with subprocess.Popen(
        [*oms.argv, "result", "publish", dispatch_id, *gh, *where],
        env={**os.environ, **github.env()},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as killed:
        try:
            assert gate.reached.wait(120), "the publish never asked for its pull request"
            killed.kill()
            assert killed.wait(30) == -9
        finally:
            gate.go.set()  # (its `gh`, orphaned, gets its answer and ends)
    for verb, args in (("merge", ("--json",)), ("publish", gh)):
        held = oms.run("result", verb, dispatch_id, *args, *where, env=github.env())
        assert held.returncode == 1, held.stdout + held.stderr
        said = json.loads(held.stdout)  # one line, never a traceback
        assert said["error"] == "conflict", said
        assert "by another oms command" in said["message"], said
        assert "killed lets it go when its lease lapses, within 10 s" in said["hint"], said
    assert gate.get(REPO, []) == []
    assert _published(client, etcd_prefix) == []
    docs: list[dict[str, object]] = []

    def publish() -> bool:
        done = oms.run("result", "publish", dispatch_id, *gh, *where, env=github.env())
        assert "Traceback" not in done.stderr, done.stderr
        docs.extend([json.loads(done.stdout)] if done.returncode == 0 else [])
        return done.returncode == 0

    eventually(publish, timeout=60, what="a publish once the killed one's lease lapsed")
    assert publish()
    assert [(d["created"], d["pull_request"]) for d in docs] == [(True, 1), (False, 1)], docs
    assert [p["number"] for p in gate[REPO]] == [1], gate
    assert _branch(bare, str(docs[0]["branch"])) == docs[0]["commit"]  # no branch lost
    assert [e["payload"]["pull_request"] for e in _published(client, etcd_prefix)] == [1, 1]
    merged = oms.run("result", "merge", dispatch_id, "--json", *where)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    locks_let_go(client, etcd_prefix)
    _clean(oms, on_etcd)
