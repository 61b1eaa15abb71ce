"""`oms result publish|sync` and `oms live authorize|revoke|status` on an etcd cluster (ADR 0043,
amendment `github`), on the real 3-member cluster (the module's one, `tests/etcd_cluster.py`),
real git, tmux and bubblewrap, and the real `gh` against the loopback stand-in
(`tests/github_standin.py`): a result is published and sent back only on the host whose clone
holds its branch; its `result-published` event is a key created under the ticket's finishing
lock (a lease, its fence carried); a publish whose lease lapses sends nothing more and records
nothing, and the next finds the pull request it opened; a revocation on one host fences every
host's attempts and another host's tick launches nothing of that repository. Each command was
refused on etcd before ("is served only by")."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from oms.adapters import github as github_adapter
from oms.adapters.etcd.client import Etcd
from oms.errors import EtcdUnavailableError, LeaseError
from oms.services.chain import dispatches, tickets, worktrees
from oms.services.finishing import publish
from oms.services.finishing.finish import FINISHING
from tests.chain import WorkerOut, use_worker, wait_for
from tests.etcd_cluster import Cluster, locks_let_go
from tests.github_standin import GitHubStandIn
from tests.helpers import OmsCommand, eventually, git
from tests.integration.etcd import test_deliver_etcd as delivered
from tests.integration.etcd.test_deliver_etcd import (
    TIMEOUT,
    EtcdChain,
    _a_result,
    _clean,
    _no_record_files,
)
from tests.integration.etcd.test_worker_cmds_etcd import _B, _json, _where
from tests.integration.test_publish import _branch

on_etcd, client = delivered.on_etcd, delivered.client  # its fixtures: a chain on the cluster
REPO = "octo/proj"
PERSON = "Ann Person"


@pytest.fixture
def github(tmp_path: Path) -> Iterator[GitHubStandIn]:
    folder = tmp_path / "github"
    folder.mkdir()
    standin = GitHubStandIn(folder).start()
    yield standin
    standin.stop()


def _verified(chain: EtcdChain, oms: OmsCommand, tmp_path: Path) -> tuple[str, Path]:
    """A command worker's result delivered, recorded and verified on the cluster, a bare
    repository as the clone's `origin`, and the repository authorised live by a person through
    the CLI (its record the cluster's): (the dispatch id, the bare repository)."""
    chain.edit_config(lambda text: text + '\n[verify]\ncommands = [["true"]]\n', commit=True)
    bare = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(bare), cwd=tmp_path)
    git("remote", "add", "origin", str(bare), cwd=chain.repo)
    granted = _json(
        oms.run(
            "live", "authorize", "--repository", REPO, "--person", PERSON, "--yes", "--json",
            *_where(chain),
        )
    )  # fmt: skip
    assert granted["authorization"]["state"] == "authorized", granted
    dispatch_id = _a_result(oms, chain)
    verified = _json(oms.run("result", "verify", dispatch_id, "--json", *_where(chain)))
    assert verified["passed"] is True, verified
    return dispatch_id, bare


def _published(client: Etcd, prefix: str) -> list[dict[str, Any]]:
    """The `result-published` events the cluster holds."""
    return [
        json.loads(kv.value)
        for kv in client.range_prefix(f"{prefix}events/")
        if b'"result-published"' in kv.value
    ]


@pytest.mark.cli
def test_result_publish_and_sync_run_on_the_clusters_host_and_the_result_merges(
    on_etcd: EtcdChain,
    oms: OmsCommand,
    client: Etcd,
    etcd_prefix: str,
    github: GitHubStandIn,
    tmp_path: Path,
) -> None:
    """As another host, `oms result publish` and `oms result sync --request-changes` are refused
    in one line naming the result's host (`--json`: `other-host`) before any contact, lock or key;
    on the result's host the publish pushes the branch, opens the pull request and records its
    `result-published` event as a key, `oms result sync` reads the pull request back, and the
    result merges; `oms live status` lists the cluster's authorisation; no lock is left, nothing
    falls to the state root's files, both verifies are clean."""
    dispatch_id, bare = _verified(on_etcd, oms, tmp_path)
    where = _where(on_etcd)
    _json(oms.run("worker", "observe", dispatch_id, "--json", *where, env=_B))  # B's name bound
    keys = {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)}
    gh = ("--github-repo", REPO, "--person", PERSON, "--json")
    for verb, extra in (("publish", ()), ("sync", ("--request-changes", "--yes"))):
        done = oms.run("result", verb, dispatch_id, *gh, *extra, *where, env=_B | github.env())
        assert done.returncode == 1, done.stdout + done.stderr
        said = json.loads(done.stdout)
        assert said["error"] == "other-host", said
        assert said["message"].startswith(f"the result of {dispatch_id} is on host "), said
    assert {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)} == keys
    assert github.requests == []  # nothing asked of GitHub
    assert _published(client, etcd_prefix) == []

    doc = _json(oms.run("result", "publish", dispatch_id, *gh, *where, env=github.env()))
    assert (doc["created"], doc["pull_request"]) == (True, 1), doc
    assert _branch(bare, doc["branch"]) == doc["commit"]
    [event] = _published(client, etcd_prefix)
    assert event["event_id"] == doc["event_id"], event
    assert (event["payload"]["person"], event["payload"]["pull_request"]) == (PERSON, 1), event
    assert not (on_etcd.state / "events").exists() or not list((on_etcd.state / "events").iterdir())

    github.check_runs[doc["commit"]] = [
        {"name": "tests", "status": "completed", "conclusion": "success"}
    ]
    synced = _json(
        oms.run("result", "sync", dispatch_id, "--github-repo", REPO, "--json", *where,
                env=github.env())
    )  # fmt: skip
    assert (synced["pull_request"], synced["requested"]) == (1, None), synced
    assert [c["conclusion"] for c in synced["checks"]] == ["success"], synced
    status = _json(oms.run("live", "status", "--json", *where))
    assert [a["repository"] for a in status["authorizations"]] == [REPO], status
    assert status["contacts"] == 2, status  # the publish and the sync, journaled on this host

    merged = _json(oms.run("result", "merge", dispatch_id, "--json", *where))
    assert merged["already_merged"] is False, merged
    with on_etcd.workspace() as ws:
        ticket_id = str(ws.store.records("dispatch").read(dispatch_id).payload["ticket_id"])
        assert ws.store.records("ticket").read(ticket_id).state == "done"
    assert len(github.pulls[REPO]) == 1
    locks_let_go(client, etcd_prefix)
    _no_record_files(on_etcd)
    assert not (on_etcd.state / "records" / "authorization").exists()
    _clean(oms, on_etcd)


def _lapsing(client: Etcd, prefix: str, ticket_id: str, call: Callable[..., Any]) -> Any:
    """`call`, then the ticket's finishing lock's lease revoked (as if its holder had been paused
    past its TTL): what `call` answered."""

    def lapse(*args: Any, **kwargs: Any) -> Any:
        answer = call(*args, **kwargs)
        held = client.get(f"{prefix}locks/outbox/{FINISHING}/{ticket_id}")
        assert held is not None
        client.revoke(held.lease)
        return answer

    return lapse


def test_a_publish_whose_lease_lapses_records_nothing_and_the_next_finds_its_pull_request(
    on_etcd: EtcdChain,
    oms: OmsCommand,
    client: Etcd,
    etcd_prefix: str,
    github: GitHubStandIn,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A publish whose lease is revoked once its push landed asks the cluster before it opens a
    pull request: refused (`LeaseError`), nothing more sent, no key. One revoked once its pull
    request is open records no `result-published` key (its fence). The next publish finds that
    pull request and updates it — one pull request, one event."""
    dispatch_id, bare = _verified(on_etcd, oms, tmp_path)
    for name, value in github.env().items():
        monkeypatch.setenv(name, value)
    with on_etcd.workspace() as ws:
        ticket_id = str(ws.store.records("dispatch").read(dispatch_id).payload["ticket_id"])
    real_push, real_create = github_adapter.push, github_adapter.GitHub.create
    keys = {kv.key for kv in client.range_prefix(f"{etcd_prefix}events/")}

    monkeypatch.setattr(github_adapter, "push", _lapsing(client, etcd_prefix, ticket_id, real_push))
    with on_etcd.workspace() as ws, pytest.raises(LeaseError):
        publish.publish(ws, dispatch_id, person=PERSON, github_repo=REPO)
    assert [r.method for r in github.requests] == ["GET"]  # looked, opened nothing
    assert REPO not in github.pulls or github.pulls[REPO] == []
    assert {kv.key for kv in client.range_prefix(f"{etcd_prefix}events/")} == keys

    monkeypatch.setattr(github_adapter, "push", real_push)
    monkeypatch.setattr(
        github_adapter.GitHub, "create", _lapsing(client, etcd_prefix, ticket_id, real_create)
    )
    with on_etcd.workspace() as ws, pytest.raises(LeaseError):
        publish.publish(ws, dispatch_id, person=PERSON, github_repo=REPO)
    assert len(github.pulls[REPO]) == 1  # opened, its event refused by the fence
    assert {kv.key for kv in client.range_prefix(f"{etcd_prefix}events/")} == keys

    monkeypatch.setattr(github_adapter.GitHub, "create", real_create)
    with on_etcd.workspace() as ws:
        done = publish.publish(ws, dispatch_id, person=PERSON, github_repo=REPO)
    assert (done.created, done.number) == (False, 1)  # the one opened before, found again
    assert len(github.pulls[REPO]) == 1
    assert [e["payload"]["pull_request"] for e in _published(client, etcd_prefix)] == [1]
    assert _branch(bare, done.branch) == done.commit
    locks_let_go(client, etcd_prefix)
    _clean(oms, on_etcd)


def test_a_publish_whose_cluster_is_lost_after_its_pull_request_is_found_by_the_next(
    on_etcd: EtcdChain,
    oms: OmsCommand,
    client: Etcd,
    etcd_prefix: str,
    etcd_cluster: Cluster,
    github: GitHubStandIn,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every member killed once the pull request is open: the publish ends in one error
    (`EtcdUnavailableError`), no `result-published` key; with the cluster back (and the lost
    holder's lease gone), the next publish finds that pull request and updates it."""
    dispatch_id, _ = _verified(on_etcd, oms, tmp_path)
    for name, value in github.env().items():
        monkeypatch.setenv(name, value)
    real_create = github_adapter.GitHub.create

    def create_then_lose(*args: Any, **kwargs: Any) -> Any:
        answer = real_create(*args, **kwargs)
        for member in etcd_cluster.members:
            etcd_cluster.kill(member)
        return answer

    monkeypatch.setattr(github_adapter.GitHub, "create", create_then_lose)
    try:
        with on_etcd.workspace() as ws, pytest.raises(EtcdUnavailableError):
            publish.publish(ws, dispatch_id, person=PERSON, github_repo=REPO)
    finally:
        for member in etcd_cluster.members:
            if member.proc is None:
                etcd_cluster.restart(member)
        etcd_cluster.wait_healthy()
    assert len(github.pulls[REPO]) == 1
    assert _published(client, etcd_prefix) == []
    for held in client.range_prefix(f"{etcd_prefix}locks/"):
        client.revoke(held.lease)  # its lease lapses (its holder could not revoke it)
    monkeypatch.setattr(github_adapter.GitHub, "create", real_create)
    with on_etcd.workspace() as ws:
        done = publish.publish(ws, dispatch_id, person=PERSON, github_repo=REPO)
    assert (done.created, done.number) == (False, 1)
    assert len(github.pulls[REPO]) == 1
    assert [e["payload"]["pull_request"] for e in _published(client, etcd_prefix)] == [1]
    _clean(oms, on_etcd)


GH_ISSUE = {
    "number": 7,
    "title": "t",
    "body": "b",
    "url": "https://github.com/acme/widgets/issues/7",
}


def _github_dispatch(chain: EtcdChain, number: int) -> tuple[str, str]:
    """A GitHub ticket of acme/widgets leased, proposed, reviewed and accepted on the cluster
    (as this process's host): (its dispatch id, its delivery event id)."""
    issue = GH_ISSUE | {
        "number": number,
        "url": f"https://github.com/acme/widgets/issues/{number}",
    }
    with chain.workspace() as ws:
        rec, _ = tickets.import_github(ws, json.dumps(issue).encode())
        tickets.lease(ws, rec.record_id, f"w{number}")
        worktrees.create(ws, rec.record_id)
        dispatch, _ = dispatches.propose(ws, rec.record_id)
        dispatches.review(ws, dispatch.record_id)
        _, event_id = dispatches.accept(ws, dispatch.record_id)
    return dispatch.record_id, event_id


@pytest.mark.cli
def test_a_live_revoke_on_one_host_fences_anothers_workers_and_its_tick_launches_nothing(
    on_etcd: EtcdChain,
    oms: OmsCommand,
    client: Etcd,
    etcd_prefix: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Host B authorises acme/widgets; host A runs a worker of one of its GitHub tickets and has
    another accepted. B's `oms live revoke` writes the revocation to the cluster and parks none
    of A's workers itself (`--json`: `fenced_elsewhere` names A's worker and host); A's own
    supervisor or conductor parks it for the lapsed authorisation, A's `oms worker resume` is
    refused, and A's tick launches nothing of that repository (its second dispatch parked for
    the authorisation, no second agent)."""
    a, b = {"OMS_HOST": "host-a"}, {"OMS_HOST": "host-b"}
    monkeypatch.setenv("OMS_HOST", "host-a")  # its dispatches are accepted on host A
    where = _where(on_etcd)
    _json(
        oms.run(
            "live", "authorize", "--repository", "acme/widgets", "--person", PERSON, "--yes",
            "--json", *where, env=b,
        )
    )  # fmt: skip
    out = use_worker(on_etcd, "silent")
    running, event_id = _github_dispatch(on_etcd, 7)
    done = oms.run("worker", "deliver", "--event-id", event_id, *where, env=a, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    wait_for(out, timeout=TIMEOUT)
    waiting, _ = _github_dispatch(on_etcd, 8)

    revoked = _json(
        oms.run("live", "revoke", "--repository", "acme/widgets", "--json", *where, env=b)
    )
    assert revoked["authorization"]["state"] == "revoked", revoked
    assert revoked["parked_workers"] == [], revoked  # A's workers are A's to park
    fenced = {(w["worker"], w["host"]) for w in revoked["fenced_elsewhere"]}
    assert fenced == {(running, "host-a"), (waiting, "host-a")}, revoked

    ticked = _json(oms.run("conductor", "tick", "--json", *where, env=a, timeout=TIMEOUT))
    assert ticked["ok"] is True, ticked
    [deliver] = [p for p in ticked["phases"] if p["phase"] == "deliver"]
    assert deliver["done"] == [f"{waiting}: delivered (parked)"], ticked  # seen: not launched

    def parked() -> bool:
        with on_etcd.workspace() as ws:
            worker = ws.store.records("worker").read(running)
        return worker.payload["health"] == "parked" and "live authorisation" in str(
            worker.payload["health_reason"]
        )

    eventually(parked, timeout=TIMEOUT, what="host A parks its fenced worker")
    resumed = oms.run("worker", "resume", running, "--json", *where, env=a)
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    assert "live authorisation" in json.loads(resumed.stdout)["message"], resumed.stdout
    with on_etcd.workspace() as ws:
        second = ws.store.records("worker").read_if_exists(waiting)
    assert second is not None
    assert second.payload["health"] == "parked", second.payload
    assert "live authorisation" in str(second.payload["health_reason"]), second.payload
    assert WorkerOut(on_etcd.state).exists()  # one agent's output: no second agent started
    _json(oms.run("worker", "stop", running, "--json", *where, env=a))
    locks_let_go(client, etcd_prefix)
    _no_record_files(on_etcd)
    _clean(oms, on_etcd)
