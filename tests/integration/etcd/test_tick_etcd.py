"""`oms conductor tick|run` on an etcd store (ADR 0043, amendment `etcdtick`), on the real 3-member
cluster: a tick's phases read and write the cluster under the host's conductor lock; two hosts
(two state roots, each its own tmux socket and `OMS_HOST`) tick one cluster side by side, each
audited clean; the pool counts every host's workers against one `max_workers`; a tick whose lease
was revoked acts on nothing; an unreachable cluster is one line and nothing half-written."""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from oms.adapters.etcd.client import Etcd
from oms.adapters.etcd.store import EtcdStore
from oms.canonical import JsonObject, stable_id
from oms.domain import pool as pool_rules
from oms.domain import workers as worker_machine
from oms.errors import LeaseError, OtherRepositoryError, SignatureError
from oms.services.admin.setup import init
from oms.services.chain import dispatches, tickets, worktrees
from oms.services.conductor import pool
from oms.services.conductor import tick as conductor
from oms.services.conductor.loop import Loop
from oms.services.workspace import SYSTEM_ACTOR, Workspace
from oms.store import Store
from oms.store.anchor import anchor_dir
from oms.store.payloads import as_json, ticket_payload
from tests.chain import Chain
from tests.etcd_cluster import Cluster, free_ports, pin_cluster
from tests.helpers import OmsCommand, eventually
from tests.integration.etcd.test_commands_cli import _use_etcd

SESSION = "11111111-2222-4333-8444-555555555555"


@pytest.fixture
def client(etcd_cluster: Cluster) -> Iterator[Etcd]:
    etcd = Etcd(etcd_cluster.endpoints)
    yield etcd
    etcd.close()


def _run(
    oms: OmsCommand, chain: Chain, host: str, *args: str, pins: Path | None = None
) -> tuple[int, str]:
    where = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    env = {"OMS_HOST": host} | ({} if pins is None else {"XDG_CONFIG_HOME": str(pins)})
    done = oms.run(*args, *where, env=env)
    return done.returncode, done.stdout + done.stderr


def _pin_each_on_the_other(oms: OmsCommand, hosts: dict[str, Chain]) -> dict[str, Path]:
    """Each host's own settings (its XDG_CONFIG_HOME) pinning the other hosts' state keys, as a
    person pastes what `oms host key` prints on each (ADR 0043, amendment `hostkeys`)."""
    lines = {}
    for host, where in hosts.items():
        code, out = _run(oms, where, host, "host", "key", "--json")
        assert code == 0, out
        lines[host] = json.loads(out)["line"]
    homes = {}
    for host, where in hosts.items():
        home = where.base / f"config-{host}"
        (home / "oms").mkdir(parents=True)
        others = [line for other, line in sorted(lines.items()) if other != host]
        (home / "oms" / "etcd.toml").write_text("[hosts]\n" + "\n".join(others) + "\n")
        homes[host] = pin_cluster(where.repo, where.state, home)  # its cluster, as each pins it
    return homes


def _second_host(chain: Chain) -> Iterator[Chain]:
    """Another state root of the same repository: another host's (its own state key, tmux
    socket and anchor)."""
    other = dataclasses.replace(chain, state=chain.base / "state-b")
    init(str(other.state), str(chain.repo))
    pin_cluster(chain.repo, other.state)  # one clone, two state roots: one settings home
    try:
        yield other
    finally:
        subprocess.run(
            ["tmux", "-S", str(other.state / "tmux.sock"), "kill-server"],
            capture_output=True,
            check=False,
        )


def _entries(client: Etcd, prefix: str) -> int:
    return sum(1 for _ in client.range_prefix(prefix + "ledger/", keys_only=True))


def _phase(report: JsonObject, name: str) -> JsonObject:
    phases = report["phases"]
    assert isinstance(phases, list)
    found = [p for p in phases if isinstance(p, dict) and p["phase"] == name]
    assert len(found) == 1, phases
    return found[0]


def _worker(ws: Workspace, n: int, host: str, slot: str) -> None:
    """A running worker of host `host`, launched in pool slot `slot`, its ticket leased to it."""
    ticket = tickets.add(ws, f"Work {n}", "")
    dispatch_id = f"dsp-{n:032x}"
    dispatch: JsonObject = {
        "ticket_id": ticket.record_id,
        "session_id": SESSION,
        "role_id": "oms.command-executor",
        "provider_mode": "command",
        "worktree_id": "wt-x",
    }
    made = worker_machine.new(dispatch_id, dispatch, updated_at=ws.now(), host=host).payload
    ws.store.records("worker").create(
        dispatch_id,
        state="working",
        payload=as_json(made),
        operation_id=stable_id("worker-create", dispatch_id),
        actor=SYSTEM_ACTOR,
        observed_at=ws.now(),
    )
    tickets.lease(ws, ticket.record_id, slot)


@pytest.mark.cli
def test_a_tick_runs_its_phases_on_the_cluster_and_anchors_its_keys(
    deliverable: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str, client: Etcd
) -> None:
    chain = deliverable
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    for _ in range(2):  # nothing to do: the second tick writes no key
        code, out = _run(oms, chain, "host-a", "conductor", "tick", "--json")
        assert code == 0, out
        report = json.loads(out)
        assert report["ok"] is True, report
        assert [p["skipped"] for p in report["phases"]] == [[]] * len(conductor.PHASES), report
        if _ == 0:
            idle = _entries(client, etcd_prefix)
    assert _entries(client, etcd_prefix) == idle
    assert client.get(etcd_prefix + "hosts/host-a") is not None  # its heartbeat, leased
    assert client.get(etcd_prefix + "locks/conductor/host-a") is None  # let go at its end
    code, out = _run(oms, chain, "host-a", "ticket", "add", "--title", "First", "--no-body")
    assert code == 0, out
    code, out = _run(oms, chain, "host-a", "conductor", "tick", "--json")
    assert code == 0, out
    filled = _phase(json.loads(out), "fill")["done"]
    assert isinstance(filled, list)
    assert any("delivered" in str(line) for line in filled), filled  # launched from the cluster
    assert not (chain.state / "records" / "ticket").exists()  # nothing on files
    code, out = _run(oms, chain, "host-a", "audit", "verify")
    assert code == 0, out
    with Store.open(str(chain.state)) as store:
        key_id = store.state.meta.key_id
    anchored = Path(anchor_dir()) / key_id
    assert [p.name for p in anchored.iterdir() if p.name.startswith("etcd-")], os.listdir(anchored)


@pytest.mark.cli
def test_a_host_name_is_bound_to_the_state_key_that_first_acts_under_it(
    deliverable: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str, client: Etcd
) -> None:
    """Two state roots on one store under one host name (the same name given to two machines, a
    second clone's state root, a repository naming another's prefix): before, both acted as that
    host — took its conductor lock in turn and saw its workers as their own. Now the name is
    bound, on the store, to the state key that first acted under it; another key's state root is
    refused it in one line before it writes anything, and acts under a name of its own."""
    chain = deliverable
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    code, out = _run(oms, chain, "build-1", "conductor", "tick", "--json")
    assert code == 0, out
    with Store.open(str(chain.state)) as store:
        theirs = store.state.meta.key_id
    bound = client.get(etcd_prefix + "names/build-1.json")
    assert bound is not None
    assert json.loads(bound.value)["keyid"] == theirs
    for other in _second_host(chain):
        with Store.open(str(other.state)) as store:
            ours = store.state.meta.key_id
        before = sorted(kv.key for kv in client.range_prefix(etcd_prefix, keys_only=True))
        code, out = _run(oms, other, "build-1", "conductor", "tick", "--json")
        assert code == 1, out
        error = json.loads(out)
        assert error["error"] == "host-name-taken", error
        refusal = (
            f"host name build-1 is bound on this etcd store to state key {theirs[:16]} "
            f"(since {json.loads(bound.value)['claimed_at']}); this state root's key is "
            f"{ours[:16]}: two state roots never act under one host name"
        )
        assert error["message"] == refusal, error
        code, out = _run(oms, other, "build-1", "status", "--json")
        assert code == 0, out  # a read: it shows every host, this one as not its own, and why
        shown = json.loads(out)
        assert shown["warnings"] == [f"host: {refusal}"], shown
        assert [h["this_host"] for h in shown["hosts"]] == [False], shown
        after = sorted(kv.key for kv in client.range_prefix(etcd_prefix, keys_only=True))
        assert after == before  # nothing written: no lock, no heartbeat, no binding
        code, out = _run(oms, other, "build-2", "conductor", "tick", "--json")
        assert code == 0, out  # under a name of its own
        code, out = _run(oms, chain, "build-1", "conductor", "tick", "--json")
        assert code == 0, out  # the first host acts on
        pins = _pin_each_on_the_other(oms, {"build-1": chain, "build-2": other})
        for host, where in (("build-1", chain), ("build-2", other)):
            for verify in (("audit", "verify"), ("store", "verify")):
                code, out = _run(oms, where, host, *verify, pins=pins[host])
                assert code == 0, out


def test_verify_names_a_host_names_binding_that_nothing_vouches_for(
    chain: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str, client: Etcd
) -> None:
    """A binding written into the cluster by hand (not ledgered, to a key no host pinned, or
    naming another host than its key) is named by `oms store verify`, never followed."""
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    code, out = _run(oms, chain, "build-1", "status", "--json")
    assert code == 0, out
    stranger = "ab" * 32
    planted = {
        "names/build-9.json": {"host": "build-9", "keyid": stranger},
        "names/build-8.json": {"host": "build-7", "keyid": stranger},
    }
    for rel, doc in planted.items():
        full = {"format": "oms-host-name-v1", "claimed_at": "2026-12-04T10:00:00.000Z", **doc}
        client.put(
            etcd_prefix + rel, json.dumps(full, sort_keys=True, separators=(",", ":")).encode()
        )
    code, out = _run(oms, chain, "build-1", "store", "verify")
    assert code == 1, out
    assert "names/build-9.json: binds host build-9 to state key abababababababab, which no " in out
    assert "names/build-8.json: names host build-7, not build-8" in out, out
    code, out = _run(oms, chain, "build-1", "status", "--json")
    assert code == 0, out  # its own binding stands: the planted ones bind other names


def _tick(chain: Chain, host: str) -> list[str]:
    """One tick of host `host`'s conductor on `chain`'s state root, in this process: its lines."""
    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
        ws.host_name = host
        report = conductor.tick(ws)
    assert report.internal == [], report.internal
    return [f"{p.name}: {line}" for p in report.phases for line in (*p.done, *p.skipped)]


@pytest.mark.cli
def test_two_hosts_tick_the_same_tickets_each_launched_once_and_audited_clean(
    deliverable: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str, client: Etcd
) -> None:
    chain = deliverable
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    for other in _second_host(chain):
        lines: list[str] = []
        code, out = _run(oms, chain, "host-a", "ticket", "add", "--title", "First", "--no-body")
        assert code == 0, out
        lines += _tick(other, "host-b")  # host b launches tkt-1
        code, out = _run(oms, chain, "host-a", "ticket", "add", "--title", "Second", "--no-body")
        assert code == 0, out
        lines += _tick(chain, "host-a")  # host a launches tkt-2, never tkt-1 again
        launched = [x.split()[2] for x in lines if x.startswith("fill: ") and "delivered" in x]
        assert len(launched) == 2, lines
        resolved = _resolver(chain, other, lines, set(launched))
        eventually(resolved, timeout=150, what="both launches resolved", max_poll=1.0)
        again = [x.split()[2] for x in lines if x.startswith("fill: ") and "delivered" in x]
        assert len(again) == len(set(again)), lines  # each dispatch launched once
        with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
            workers = {w.record_id: w.payload["host"] for w in ws.store.latest("worker").records}
        assert {workers[d] for d in launched} == {"host-a", "host-b"}, (workers, lines)
        pins = _pin_each_on_the_other(oms, {"host-a": chain, "host-b": other})
        for host, where, them in (("host-a", chain, "host-b"), ("host-b", other, "host-a")):
            code, out = _run(oms, where, host, "audit", "verify", pins=pins[host])
            assert code == 0, out
            assert f"ledger entries by host {them} (state key" in out, out  # its, vouched for


def test_a_ticket_added_in_one_hosts_clone_is_every_clones_on_a_store_the_repository_names(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each host has its own clone, at its own path: a ticket added in one is the repository's on
    a store whose `prefix` the repository names, not only the clone's (ADR 0043 amendment
    `repoid`), once the person pinned the adding host's key on the other (amendment `repoparts`).
    Before, host b took host a's ticket as another repository's: its fill skipped it and its
    deliverer failed the attempt, five times, into quarantine."""
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)  # the prefix named in the repository
    clone = chain.base / "clone-b"
    subprocess.run(["git", "clone", "-q", str(chain.repo), str(clone)], check=True)
    init(str(chain.base / "state-b"), str(clone))
    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
        added = tickets.add(ws, "Added on host a", "")
        meta = ws.store.state.meta
    assert ticket_payload(added).get("added_by") == meta.key_id
    settings = pin_cluster(clone, chain.base / "state-b", chain.base / "config-b")  # host b's
    monkeypatch.setenv("XDG_CONFIG_HOME", str(settings))
    with Workspace.open(str(chain.base / "state-b"), str(clone), etcd=True) as ws:
        with pytest.raises(OtherRepositoryError):  # host a's key not pinned yet
            tickets.get(ws, added.record_id)
    pin = f'[hosts]\nhost-a = "{meta.key_id}:{meta.public_key.hex()}"\n'
    (settings / "oms" / "etcd.toml").write_text(pin)
    with Workspace.open(str(chain.base / "state-b"), str(clone), etcd=True) as ws:
        assert ws.config_root != str(chain.repo)
        found = tickets.get(ws, added.record_id)
        assert tickets.another_repository(ws, found) is None
        assert ticket_payload(found).get("repository_root") == str(chain.repo)  # where it was added


def _resolver(a: Chain, b: Chain, lines: list[str], wanted: set[str]) -> Callable[[], bool]:
    """A tick of each host, then whether every dispatch of `wanted` was resolved (its worker
    ended without a result: its ticket retried)."""

    def resolved() -> bool:
        lines.extend(_tick(b, "host-b") + _tick(a, "host-a"))
        done = {x.split()[1].rstrip(":") for x in lines if x.startswith("resolve: dsp-")}
        return wanted <= done

    return resolved


def test_the_pool_counts_every_hosts_workers_against_one_max_workers(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    for other in _second_host(chain):
        with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as a:
            a.host_name = "host-a"
            assert a.config().max_workers == 2
            _worker(a, 1, "host-a", "worker-1")
        with Workspace.open(str(other.state), str(other.repo), etcd=True) as b:
            b.host_name = "host-b"
            _worker(b, 2, "host-b", "worker-2")
            held = pool.occupancy(b)  # host b sees host a's worker in its slot
            assert held.held == {"worker-1": "tkt-1", "worker-2": "tkt-2"}, held
            with pool.lock(b):
                _, seen = pool.seen(b, held)
            assert seen.max_workers == 2
            offered = pool_rules.offer(pool.current(b), seen.busy, seen.max_workers)
            assert offered == (), offered  # two workers, one per host: no third slot offered


def _ranges_of_latest(client: Etcd, prefix: str, calls: list[str]) -> None:
    """Note in `calls` the kind of every summary range `client` asks (`latest/<kind>/`)."""
    call = client.call

    def counted(path: str, body: dict[str, object]) -> dict[str, object]:
        key = base64.b64decode(str(body.get("key", ""))).decode("utf-8", "replace")
        if path.endswith("/kv/range") and key.startswith(prefix + "latest/"):
            calls.append(key[len(prefix + "latest/") :].rstrip("/"))
        return call(path, body)

    client.call = counted  # type: ignore[method-assign]


def test_a_tick_asks_each_kinds_summary_once_and_again_after_its_own_write(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    """An idle tick ranges each kind's pointers once, not once a phase (12 round trips were 3);
    a tick that writes ranges again, so a phase sees what the phases before it wrote."""
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
        ws.host_name = "host-a"
        backend = ws.store.backend
        assert isinstance(backend, EtcdStore)
        calls: list[str] = []
        _ranges_of_latest(backend.client, etcd_prefix, calls)
        with conductor.lock(ws):
            conductor.tick(ws, held=True)  # the first: its heartbeat, its summaries
            calls.clear()
            conductor.tick(ws, held=True)
            assert sorted(calls) == ["dispatch", "ticket", "worker"], calls  # idle: once each
            with ws.store.steady():
                before = ws.store.latest("ticket").records
                tickets.add(ws, "Written in the scope", "")  # this process's write
                calls.clear()
                after = ws.store.latest("ticket").records
                assert calls == ["ticket"], calls  # ranged again after it
                assert len(after) == len(before) + 1
                ws.store.latest("ticket")
                assert calls == ["ticket"], calls  # and not again


def test_a_tick_whose_lease_was_revoked_acts_on_nothing(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str, client: Etcd
) -> None:
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
        ws.host_name = "host-a"
        tickets.add(ws, "Waiting", "")
        before = _entries(client, etcd_prefix)
        held = conductor.lock(ws)
        assert isinstance(held, conductor.HostLock)
        try:
            client.revoke(held.keeper.held.lease_id)  # cut off: its lease is gone
            with pytest.raises(LeaseError, match="acts on nothing"):
                conductor.tick(ws, held=True)
        finally:
            held.release()
        assert _entries(client, etcd_prefix) == before  # nothing written
        assert client.get(etcd_prefix + "hosts/host-a") is None  # not even its heartbeat


@pytest.mark.cli
def test_an_unreachable_cluster_is_one_line_and_nothing_half_written(
    chain: Chain, oms: OmsCommand
) -> None:
    _use_etcd(chain, [f"http://127.0.0.1:{p}" for p in free_ports(2)], "/oms/nowhere/")
    ledger = chain.state / "ledger"
    sizes = {p.name: p.stat().st_size for p in ledger.iterdir() if p.is_file()}
    for args in (("conductor", "tick"), ("conductor", "run", "--ticks", "1")):
        code, out = _run(oms, chain, "host-a", *args)
        assert code != 0, out
        lines = [line for line in out.splitlines() if line.strip()]
        assert lines[0].startswith("oms: error: etcd unreachable"), out
        assert len(lines) == 2, out
        assert "Traceback" not in out
    assert {p.name: p.stat().st_size for p in ledger.iterdir() if p.is_file()} == sizes
    assert not (chain.state / "records" / "ticket").exists()


def test_the_loop_on_etcd_wakes_on_a_watch_when_a_ticket_arrives(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    """`oms conductor run` on etcd waits for a change of `latest/` (a watch), not for directory
    times: a ticket another process adds wakes it long before its interval (an hour)."""
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    ticks: list[conductor.Tick | str | None] = []
    stop: list[bool] = []

    def report(done: conductor.Tick | None, failed: str | None) -> None:
        ticks.append(done if done is not None else failed)

    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
        ws.host_name = "host-a"
        conductor.tick(ws)  # the first tick writes the pool's record, which would wake the loop
        loop = Loop(ws, 3600.0, report, lambda: bool(stop), max_ticks=2)

        def run() -> None:  # what ends the loop (its lock refused or lost) is seen, not hidden
            try:
                loop.run()
            except Exception as exc:  # reported to the test, which fails on it
                ticks.append(f"the loop ended: {type(exc).__name__}: {exc}")

        runner = threading.Thread(target=run, daemon=True)
        runner.start()
        try:
            try:
                eventually(lambda: len(ticks) >= 1, timeout=30, what="the first tick")
            except AssertionError as exc:  # where the loop's thread is, to find what holds it
                frame = sys._current_frames().get(runner.ident or 0)
                where = "".join(traceback.format_stack(frame)) if frame else "(ended)"
                raise AssertionError(f"{exc}\nthe loop's thread:\n{where}") from None
            assert isinstance(ticks[0], conductor.Tick), ticks
            assert len(ticks) == 1, "the loop woke with nothing changed"
            with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as other:
                tickets.add(other, "Wakes it", "")  # a write of another process: the watch
            eventually(lambda: len(ticks) == 2, timeout=30, what="a second tick, woken")
            assert isinstance(ticks[1], conductor.Tick), ticks
        finally:
            stop.append(True)
            runner.join(timeout=180)
        assert not runner.is_alive()


@pytest.mark.cli
def test_a_ticket_leased_by_one_hosts_conductor_is_its_chain_not_another_hosts(
    deliverable: Chain, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    """Every host's conductor sees a ticket leased to a slot of the one pool. Host a's conductor
    leased it and was killed before it proposed (or is slow to: its worktree first): host b's
    tick must leave its chain alone — before, b proposed it in its own worktree and launched
    it, and a's proposal of the same attempt then conflicted ("with another intent"), a failed
    attempt each time, until the ticket was quarantined (the three-host chaos found it). Host a
    goes on with it (ADR 0043 amendment `leasehost`)."""
    chain = deliverable
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    for other in _second_host(chain):
        with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as a:
            a.host_name = "host-a"
            ticket = tickets.add(a, "Leased by host a", "")
            leased = tickets.lease(a, ticket.record_id, "worker-1").ticket  # then a dies
        assert ticket_payload(leased).get("lease_host") == "host-a"
        lines = _tick(other, "host-b")
        with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as a:
            assert list(a.store.records("dispatch").ids()) == [], lines  # b proposed nothing
        lines = _tick(chain, "host-a")
        launched = [x.split()[2] for x in lines if x.startswith("fill: ") and "delivered" in x]
        assert len(launched) == 1, lines
        with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as a:
            assert a.store.records("worker").read(launched[0]).payload["host"] == "host-a"
        resolved = _resolver(chain, other, lines, set(launched))
        eventually(resolved, timeout=150, what="its launch resolved", max_poll=1.0)


def test_a_lease_another_host_expired_starts_its_next_attempt_on_this_host(
    deliverable: Chain, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    """Host b's conductor expires a lease (its `lease-expiry` evidence, signed by b's state key);
    host a leases the next attempt and proposes it, which reads that evidence for the worktree's
    start. Evidence of a host the person pinned is read as that host's (as its ledger entries and
    tickets are); before, every such proposal failed "signed by another key", a failed attempt
    each time (the 60-ticket chaos soak: three of one ticket's five). Unpinned, it is refused."""
    chain = deliverable
    home = _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)  # the person's settings
    for other in _second_host(chain):
        with Workspace.open(str(chain.state), str(chain.repo), etcd=True, clock=chain.clock) as a:
            a.host_name = "host-a"
            ticket_id = tickets.add(a, "Expired on host b", "").record_id
            tickets.lease(a, ticket_id, "worker-1", minutes=1)
        chain.clock.advance(2)
        with Workspace.open(str(other.state), str(other.repo), etcd=True, clock=chain.clock) as b:
            b.host_name = "host-b"
            assert [t.record_id for t in tickets.expire_due(b)] == [ticket_id]
            meta = b.store.state.meta
        with Workspace.open(str(chain.state), str(chain.repo), etcd=True, clock=chain.clock) as a:
            a.host_name = "host-a"
            tickets.lease(a, ticket_id, "worker-1")
            worktrees.create(a, ticket_id)
            with pytest.raises(SignatureError, match="signed by another key"):
                dispatches.propose(a, ticket_id)  # host b not pinned here: not vouched for
        pin = f'[hosts]\nhost-b = "{meta.key_id}:{meta.public_key.hex()}"\n'
        (home / "oms" / "etcd.toml").write_text(pin)  # host a pins host b's key
        with Workspace.open(str(chain.state), str(chain.repo), etcd=True, clock=chain.clock) as a:
            a.host_name = "host-a"
            dispatch, created = dispatches.propose(a, ticket_id)
        assert created
        assert dispatch.payload["attempt"] == 2
