"""A person's hand on the chain whose store is an etcd cluster (ADR 0043, amendment `hand`), on the
real 3-member cluster with real git, tmux and bubblewrap: a role whose policy needs a person's
approval is proposed by the conductor, which waits naming `oms dispatch approve`; no advisor's
approval lets it be accepted; a person approves on another host's state root; the leasing host's
next tick accepts and delivers it and the worker runs. An approval is written under the dispatch's
end lock, a lease whose fence guards its writes; an approval of a dispatch already resolved, or of
another repository's, is refused in one line. A provider's rest is the cluster's: every host's
routing sees it. Each command was refused on etcd before ("is served only by")."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from oms.adapters.etcd.client import Etcd
from oms.domain.config import role as find_role
from oms.domain.status_reason import awaits_approval
from oms.errors import LeaseError
from oms.services.admin.setup import init
from oms.services.chain import dispatches, providers
from oms.services.chain.end_lock import END_LOCKS, end_lock
from oms.services.workspace import Workspace
from oms.store.outbox import ProcessingLock
from tests.chain import Chain, use_demo_worker
from tests.etcd_cluster import locks_let_go, pin_cluster, settings_of
from tests.helpers import OmsCommand, eventually
from tests.integration.etcd import test_deliver_etcd as delivered
from tests.integration.etcd.test_deliver_etcd import TIMEOUT, EtcdChain, _no_record_files
from tests.integration.etcd.test_tick_etcd import (
    _pin_each_on_the_other,
    _run,
    _second_host,
    _tick,
    _worker,
)
from tests.integration.etcd.test_worker_cmds_etcd import _where
from tests.integration.test_routing import PROVIDERS, ROLE

on_etcd, client = delivered.on_etcd, delivered.client  # its fixtures: a chain on the cluster


def _as(host: str, home: Path) -> dict[str, str]:
    """A command run as `host`, with the person's settings there (its pins)."""
    return {"OMS_HOST": host, "XDG_CONFIG_HOME": str(home)}


def _keys(client: Etcd, prefix: str) -> dict[str, int]:
    return {kv.key: kv.mod_revision for kv in client.range_prefix(prefix)}


def _needs_person(chain: Chain) -> None:
    """The command worker's role needs a person's approval (the policy allows one)."""

    def change(doc: dict[str, Any]) -> None:
        doc["human_approval"] = True
        doc["roles"]["oms.command-executor"]["needs_person"] = True

    chain.edit_policy(change, commit=True)


def _refused(done: subprocess.CompletedProcess[str], error: str) -> dict[str, Any]:
    """One JSON line naming `error`, no traceback: the refusal."""
    assert done.returncode == 1, done.stdout + done.stderr
    [line] = done.stdout.splitlines()
    said = json.loads(line)
    assert said["error"] == error, said
    assert "Traceback" not in done.stderr
    return dict(said)


@pytest.mark.cli
def test_a_role_that_needs_a_person_waits_for_the_approval_of_a_person_on_any_host_then_runs(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    """The human-approval path end to end on the cluster: host a's tick leases and proposes the
    ticket and waits, naming `oms dispatch approve` (no advisor asked, no worker, nothing
    accepted); an advisor's approval by hand does not let it be accepted; host b may not go on with
    host a's chain; a person approves on host b's state root; host a's next tick accepts and
    delivers it, and the worker runs to its result; an approval of the resolved dispatch is then
    refused in one line, moving no key. No lock is left, and both hosts' verifies are clean."""
    chain = on_etcd
    use_demo_worker(chain)
    _needs_person(chain)
    for other in _second_host(chain):
        homes = _pin_each_on_the_other(oms, {"host-a": chain, "host-b": other})
        a, b = _as("host-a", homes["host-a"]), _as("host-b", homes["host-b"])
        added = oms.run("ticket", "add", "--title", "Asks a person", "--no-body", *_where(chain))
        assert added.returncode == 0, added.stdout + added.stderr
        with settings_of(homes["host-a"]):
            lines = _tick(chain, "host-a")
        waits = [x for x in lines if "waits for a person's approval" in x]
        assert len(waits) == 1, lines
        found = re.search(r"oms dispatch approve (dsp-[0-9a-f]+) ", waits[0])
        assert found is not None, waits
        dispatch_id = found.group(1)
        with settings_of(homes["host-a"]), chain.workspace() as ws:
            proposed = ws.store.records("dispatch").read(dispatch_id)
            assert ws.store.records("worker").read_if_exists(dispatch_id) is None
        assert proposed.state == "proposed"
        assert proposed.payload["advisor_verdict"] is None  # no advisor was asked
        with settings_of(homes["host-a"]):
            assert [x for x in _tick(chain, "host-a") if "waits for" in x] == [waits[0]]
        # an agent's approval never outruns the person's: the advisor approves, accept refuses
        reviewed = oms.run("dispatch", "review", dispatch_id, "--json", *_where(chain), env=a)
        assert json.loads(reviewed.stdout)["dispatch"]["advisor_verdict"] == "approve", reviewed
        said = _refused(
            oms.run("dispatch", "accept", dispatch_id, "--json", *_where(chain), env=a),
            "authority-changed",
        )
        assert "needs a person's approval" in said["message"], said
        assert f"oms dispatch approve {dispatch_id}" in said["hint"], said
        bound = oms.run("status", "--json", *_where(other), env=b)  # its name bound (`hostname`)
        assert bound.returncode == 0, bound.stdout + bound.stderr
        seen = json.loads(bound.stdout)  # host b sees who must act, and how (amendment `waits`)
        phrase = awaits_approval(dispatch_id, "oms.command-executor")
        line = f"{proposed.payload['ticket_id']}: {phrase}"
        assert waits[0] == f"fill: {line}"  # the tick's line, the same phrase
        [shown] = [x for x in seen["dispatches"] if x["id"] == dispatch_id]
        assert shown["waits_for_person"] == phrase, shown
        assert line in seen["warnings"], seen["warnings"]
        before = _keys(client, etcd_prefix)
        ticket_id = str(proposed.payload["ticket_id"])
        asked = (("accept", dispatch_id), ("review", dispatch_id), ("propose", ticket_id))
        for verb, subject in asked:
            said = _refused(  # host a's chain: its worktree is there
                oms.run("dispatch", verb, subject, "--json", *_where(other), env=b), "other-host"
            )
            assert said["message"] == (
                f"ticket {ticket_id} is in the chain of host host-a, whose worktree its dispatch "
                "runs in; run this there"
            ), said
        assert _keys(client, etcd_prefix) == before
        approved = oms.run(
            "dispatch", "approve", dispatch_id, "--person", "Ann", "--yes", "--json",
            *_where(other), env=b,
        )  # fmt: skip
        assert approved.returncode == 0, approved.stdout + approved.stderr
        view = json.loads(approved.stdout)
        assert client.get(f"{etcd_prefix}evidence/{view['evidence']}.json") is not None
        locks_let_go(client, etcd_prefix)
        with settings_of(homes["host-a"]):
            lines = _tick(chain, "host-a")
        assert any(f"{dispatch_id} delivered" in x for x in lines), lines

        def resolved(home: Path = homes["host-a"], dispatch_id: str = dispatch_id) -> bool:
            with settings_of(home):
                _tick(chain, "host-a")
                with chain.workspace() as ws:
                    return ws.store.records("dispatch").read(dispatch_id).state == "resolved"

        eventually(resolved, timeout=TIMEOUT * 2, what="the approved worker ran and was resolved")

        def ended(home: Path = homes["host-a"], dispatch_id: str = dispatch_id) -> bool:
            # its supervisor records the end after the result: a resolution can come first
            with settings_of(home), chain.workspace() as ws:
                return ws.store.records("worker").read(dispatch_id).state == "done"

        eventually(ended, timeout=TIMEOUT, what="the worker's end after its result")
        with settings_of(homes["host-a"]), chain.workspace() as ws:
            worker = ws.store.records("worker").read(dispatch_id)
        assert (worker.state, worker.payload["host"]) == ("done", "host-a"), worker.payload

        def approvals() -> dict[str, int]:  # (the session's end may still move its own keys)
            found = _keys(client, etcd_prefix).items()
            return {k: r for k, r in found if "/dispatch/" in k or "/evidence/" in k}

        before = approvals()
        for at, env in ((chain, a), (other, b)):
            again = oms.run(
                "dispatch", "approve", dispatch_id, "--person", "Ann", "--yes", "--json",
                *_where(at), env=env,
            )  # fmt: skip
            said = _refused(again, "illegal-transition")
            assert said["message"] == "dispatch cannot approve from state resolved", said
        assert approvals() == before
        locks_let_go(client, etcd_prefix)
        _no_record_files(chain)
        for host, at in (("host-a", chain), ("host-b", other)):
            for command in (("store", "verify"), ("audit", "verify")):
                code, out = _run(oms, at, host, *command, pins=homes[host])
                assert code == 0, out


@pytest.mark.cli
def test_an_approval_whose_lease_lapses_writes_nothing_and_another_repositorys_is_refused(
    on_etcd: EtcdChain,
    oms: OmsCommand,
    client: Etcd,
    etcd_prefix: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An approval is written under the dispatch's end lock, a lease on the cluster: one whose
    lease lapses once it holds the lock (revoked here, as a paused approver's runs out) writes
    neither its evidence nor the dispatch's version (`LeaseError`); then one approves. A clone of
    another repository's state root on the same prefix (its settings pin no key of this one's) is
    refused the approval of this repository's dispatch in one line, before any lock or key. A
    person rejects another dispatch on the cluster."""
    chain = on_etcd
    ours = {"XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"]}  # this person's settings
    _needs_person(chain)
    _, _, dispatch_id = chain.proposed("Approved under a lease")
    before = _keys(client, etcd_prefix)

    @contextlib.contextmanager
    def lapsing(ws: Workspace, held_id: str, **kw: float) -> Iterator[ProcessingLock]:
        with end_lock(ws, held_id, **kw) as lock:
            held = client.get(f"{etcd_prefix}locks/outbox/{END_LOCKS}/{held_id}")
            assert held is not None
            client.revoke(held.lease)
            yield lock

    monkeypatch.setattr("oms.services.chain.dispatches.end_lock", lapsing)
    with chain.workspace() as ws, pytest.raises(LeaseError):
        dispatches.approve(ws, dispatch_id, person="Ann", rationale="ok")
    monkeypatch.undo()
    assert _keys(client, etcd_prefix) == before  # no evidence, no version
    # another repository's state root on the same prefix: its person pinned no key of this one's
    clone = chain.base / "clone-b"
    subprocess.run(["git", "clone", "-q", str(chain.repo), str(clone)], check=True)
    init(str(chain.base / "state-b"), str(clone))
    home = pin_cluster(clone, chain.base / "state-b", chain.base / "config-b")
    where = ("--state-root", str(chain.base / "state-b"), "--config-root", str(clone))
    theirs = oms.run(
        "dispatch", "approve", dispatch_id, "--person", "Eve", "--yes", "--json", *where,
        env=_as("host-b", home),
    )  # fmt: skip
    said = _refused(theirs, "other-repository")
    assert said["message"].startswith("ticket tkt-1 belongs to the repository "), said
    moved = [k for k, r in _keys(client, etcd_prefix).items() if before.get(k) != r]
    assert not [k for k in moved if "/evidence/" in k or "/dispatch/" in k], moved
    done = oms.run(
        "dispatch", "approve", dispatch_id, "--person", "Ann", "--yes", "--json", *_where(chain),
        env=ours,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    with settings_of(Path(ours["XDG_CONFIG_HOME"])):  # any host's to reject, too
        _, _, declined = chain.proposed("Declined by a person")
    rejected = oms.run(
        "dispatch", "reject", declined, "--reason", "not now", "--json", *_where(chain), env=ours
    )
    assert rejected.returncode == 0, rejected.stdout + rejected.stderr
    assert json.loads(rejected.stdout)["dispatch"]["state"] == "rejected", rejected.stdout
    locks_let_go(client, etcd_prefix)


@pytest.mark.cli
def test_a_providers_rest_is_seen_by_every_hosts_routing_and_the_pool_scales_on_the_cluster(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    """A provider's cooldown is the cluster's record: host a's `oms provider rest` is what host
    b's `oms route explain` and its conductor's routing decide on, and host b's `oms provider
    clear` ends it for host a. `oms pool scale` as host b changes the one pool every host's `oms
    pool show` reads, under the pool lock (a lease: none left); forced, it parks no worker of
    host a's, naming the host. Nothing lands in the state root's files."""
    chain = on_etcd
    chain.edit_config(
        lambda s: s.replace('role = "oms.command-executor"', f'role = "{ROLE}"') + PROVIDERS,
        commit=True,
    )
    for other in _second_host(chain):
        homes = _pin_each_on_the_other(oms, {"host-a": chain, "host-b": other})
        a, b = _as("host-a", homes["host-a"]), _as("host-b", homes["host-b"])
        explain = ("route", "explain", "--role", ROLE, "--json")
        first = json.loads(oms.run(*explain, *_where(other), env=b).stdout)
        assert first["provider_id"] == "anthropic-a", first
        rested = oms.run(
            "provider", "rest", "anthropic-a", "--minutes", "30", "--reason", "weekly limit",
            "--json", *_where(chain), env=a,
        )  # fmt: skip
        assert rested.returncode == 0, rested.stdout + rested.stderr
        assert client.get(f"{etcd_prefix}latest/provider/anthropic-a") is not None
        seen = json.loads(oms.run(*explain, *_where(other), env=b).stdout)
        assert seen["provider_id"] == "anthropic-b", seen
        assert "weekly limit" in seen["excluded"]["anthropic-a"], seen
        with (
            settings_of(homes["host-b"]),
            Workspace.open(str(other.state), str(other.repo), etcd=True) as ws,
        ):
            ws.host_name = "host-b"
            assert providers.route(ws, find_role(ws.config(), ROLE)).provider_id == "anthropic-b"
        shown = json.loads(oms.run("provider", "show", "--json", *_where(other), env=b).stdout)
        rest = next(p for p in shown["providers"] if p["provider_id"] == "anthropic-a")
        assert (rest["cooldown_kind"], rest["cooldown_reason"]) == ("quota", "weekly limit")
        cleared = oms.run("provider", "clear", "anthropic-a", "--json", *_where(other), env=b)
        assert json.loads(cleared.stdout)["changed"] is True, cleared.stdout + cleared.stderr
        back = json.loads(oms.run(*explain, *_where(chain), env=a).stdout)
        assert back["provider_id"] == "anthropic-a", back
        with settings_of(homes["host-a"]), chain.workspace() as ws:  # host a runs both slots
            ws.host_name = "host-a"
            for n, slot in ((1, "worker-1"), (2, "worker-2")):
                _worker(ws, n, "host-a", slot)
        scaled = oms.run("pool", "scale", "--down", "1", "--force", "--json", *_where(other), env=b)
        assert scaled.returncode == 0, scaled.stdout + scaled.stderr
        [parked] = json.loads(scaled.stdout)["parked"]  # host a's worker: parked there, not here
        assert parked.endswith("runs on host host-a; run this there"), parked
        pool = json.loads(oms.run("pool", "show", "--json", *_where(chain), env=a).stdout)
        active = [s["name"] for s in pool["pool"]["slots"] if s["state"] == "active"]
        assert len(active) == 1, pool
        locks_let_go(client, etcd_prefix)
        for where in (chain, other):
            assert not (where.state / "records").exists() or not any(
                (where.state / "records").iterdir()
            )
