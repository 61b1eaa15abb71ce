"""Hosts on an etcd store (ADR 0043, amendment `etcdhost`), on the real 3-member cluster: a host's
heartbeat is the key `hosts/<host>` under its lease, `oms status` says `host unreachable` once the
key is gone (a lease revoked or lapsed) and compares no clock; a foreign or malformed key under
`hosts/` is named by `oms store verify` and never followed. The conductor's lock is one per host
(`locks/conductor/<host>` under a lease): a second conductor of the host is refused naming the
holder, another host's runs beside it, a holder SIGKILLed or cut off loses it when its lease
lapses, and the tick's record writes and heartbeat carry its fence."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from oms.adapters.etcd.client import Etcd
from oms.adapters.etcd.hosts import EtcdBeats
from oms.adapters.etcd.store import EtcdStore, verify_keys
from oms.canonical import JsonObject, dumps, stable_id
from oms.domain import hosts as host_rules
from oms.domain import workers as worker_machine
from oms.errors import LeaseError, LockHeldError
from oms.services.conductor import tick as conductor
from oms.services.conductor.loop import Loop
from oms.services.workspace import SYSTEM_ACTOR, Workspace
from oms.store.payloads import as_json
from tests.chain import Chain
from tests.cli.test_json_shapes import problems
from tests.etcd_cluster import Cluster
from tests.helpers import OmsCommand, eventually
from tests.integration.etcd.test_commands_cli import _use_etcd

SESSION = "11111111-2222-4333-8444-555555555555"
OLD_BEAT = host_rules.beat("host-a", "2020-01-01T00:00:00.000Z", 1)  # a beat long due


@pytest.fixture
def on_etcd(chain: Chain, etcd_cluster: Cluster, etcd_prefix: str) -> Chain:
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    return chain


@pytest.fixture
def client(etcd_cluster: Cluster) -> Iterator[Etcd]:
    etcd = Etcd(etcd_cluster.endpoints)
    yield etcd
    etcd.close()


def _open(chain: Chain, host: str) -> Workspace:
    ws = Workspace.open(str(chain.state), str(chain.repo), etcd=True)
    ws.host_name = host
    return ws


def _worker(ws: Workspace, n: int, host: str) -> str:
    dispatch_id = f"dsp-{n:032x}"
    dispatch: JsonObject = {
        "ticket_id": f"tkt-{n}",
        "session_id": SESSION,
        "role_id": "oms.command-executor",
        "provider_mode": "command",
        "worktree_id": "wt-x",
    }
    payload = worker_machine.new(dispatch_id, dispatch, updated_at=ws.now(), host=host).payload
    ws.store.records("worker").create(
        dispatch_id,
        state="working",
        payload=as_json(payload),
        operation_id=stable_id("hosts-etcd", n),
        actor=SYSTEM_ACTOR,
        observed_at=ws.now(),
    )
    return dispatch_id


def _status(oms: OmsCommand, chain: Chain, *more: str) -> tuple[int, str]:
    done = oms.run(
        "status", "--state-root", str(chain.state), "--config-root", str(chain.repo), *more,
        env={"OMS_HOST": "host-a"},
    )  # fmt: skip
    return done.returncode, done.stdout + done.stderr


def _views(oms: OmsCommand, chain: Chain) -> dict[str, JsonObject]:
    code, out = _status(oms, chain, "--json")
    assert code == 0, out
    doc = json.loads(out)
    assert problems("status", doc) == []  # the --json shape is the one on files
    return {str(v["host"]): v for v in doc["hosts"]}


# ------------------------------------------------------------------ the heartbeat
@pytest.mark.cli
def test_a_beat_is_up_with_no_clock_compared_and_a_revoked_lease_is_unreachable(
    on_etcd: Chain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    with _open(on_etcd, "host-b") as ws:
        worker = _worker(ws, 1, "host-b")
        # a beat dated long ago: on files it lapsed years since; on etcd its key is there
        ws.store.beats().write(host_rules.beat("host-b", "2020-01-01T00:00:00.000Z", 1))
    assert not (on_etcd.state / "hosts").exists()  # the key, not a file
    key = etcd_prefix + "hosts/host-b"
    found = client.get(key)
    assert found is not None
    assert found.lease != 0
    views = _views(oms, on_etcd)
    assert views["host-b"]["state"] == "up"
    assert views["host-b"]["workers"] == [worker]
    assert views["host-b"]["beat_at"] == "2020-01-01T00:00:00.000Z"
    client.revoke(found.lease)  # the host cut off: its lease gone, and its key with it
    views = _views(oms, on_etcd)
    assert views["host-b"]["state"] == "unreachable"
    assert views["host-b"]["beat_at"] is None
    code, out = _status(oms, on_etcd)
    assert code == 0, out
    assert f"host host-b unreachable (no heartbeat under a live lease): its workers {worker}" in out
    assert f"{worker}" in out
    assert "host-b (host unreachable)" in out


def test_a_beat_keeps_its_lease_alive_and_a_lapsed_one_deletes_it(
    on_etcd: Chain, client: Etcd, etcd_prefix: str
) -> None:
    key = etcd_prefix + "hosts/host-b"
    with _open(on_etcd, "host-a") as ws:
        assert isinstance(ws.store.backend, EtcdStore)
        beats = EtcdBeats(ws.store.backend, lease_s=2)
        beats.write(host_rules.beat("host-b", ws.now(), 1, lease_s=2))
        first = client.get(key)
        assert first is not None
        beats.write(host_rules.beat("host-b", ws.now(), 2, lease_s=2))
        again = client.get(key)
        assert again is not None
        assert again.lease == first.lease  # kept alive, not a lease a beat
        assert json.loads(again.value)["pid"] == 2
        assert beats.read_all()["host-b"]["pid"] == 2
        # its conductor stops beating: the lease lapses and etcd deletes the key
        eventually(lambda: client.get(key) is None, timeout=20, what="the beat's lease lapses")
        assert "host-b" not in beats.read_all()
        beats.write(host_rules.beat("host-b", ws.now(), 3, lease_s=2))  # back: a new lease
        back = client.get(key)
        assert back is not None
        assert back.lease not in (0, first.lease)


@pytest.mark.cli
def test_a_foreign_or_malformed_hosts_key_is_named_by_verify_and_never_followed(
    on_etcd: Chain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    with _open(on_etcd, "host-a") as ws:
        assert isinstance(ws.store.backend, EtcdStore)
        ws.store.beats().write(host_rules.beat("host-b", ws.now(), 1))
        sound = dumps(host_rules.beat("host-c", ws.now(), 1))
        good = client.get(etcd_prefix + "hosts/host-b")
        assert good is not None
        long_lease = client.grant(100_000).lease_id
        planted = {
            "hosts/host-c": (sound, 0),  # under no lease: it would never lapse
            "hosts/host-d": (b"not json", good.lease),
            "hosts/host-e": (sound, good.lease),  # names host-c
            "hosts/a b": (sound, good.lease),
            "hosts/x/y": (sound, good.lease),
            "hosts/host-f": (sound.replace(b"host-c", b"host-f"), long_lease),
        }
        for rel, (value, lease) in planted.items():
            client.put(etcd_prefix + rel, value, lease=lease)
        try:
            # none followed; a sound key under too long a lease is read (a status asks no
            # lease's TTL) and named by verify
            assert sorted(ws.store.beats().read_all()) == ["host-b", "host-f"]
            found, _ = verify_keys(ws.store.backend)
            by_key = {p.key[len(etcd_prefix) :]: p.problem for p in found}
            assert set(by_key) == set(planted), by_key
            assert by_key["hosts/host-c"] == "a heartbeat under no lease (it would never lapse)"
            assert by_key["hosts/host-e"] == "names host host-c, not host-e"
            assert by_key["hosts/a b"].startswith("not a heartbeat")
            assert "longer than a host's (90 s)" in by_key["hosts/host-f"]
            assert sorted(_views(oms, on_etcd)) == ["host-b", "host-f"]
            done = oms.run(
                "store", "verify", "--state-root", str(on_etcd.state), "--config-root",
                str(on_etcd.repo), "--json",
            )  # fmt: skip
            assert done.returncode == 1, done.stdout
            assert "etcd:" + etcd_prefix + "hosts/host-d" in done.stdout
        finally:
            client.revoke(long_lease)


# ------------------------------------------------------------------ the conductor's lock per host
def test_one_conductor_per_host_and_another_hosts_beside_it(on_etcd: Chain) -> None:
    with ExitStack() as stack:
        a1 = stack.enter_context(_open(on_etcd, "host-a"))
        a2 = stack.enter_context(_open(on_etcd, "host-a"))
        b = stack.enter_context(_open(on_etcd, "host-b"))
        held = stack.enter_context(conductor.lock(a1))
        assert isinstance(held, conductor.HostLock)
        assert held.fence.key.endswith("locks/conductor/host-a")
        with pytest.raises(LockHeldError) as refused:
            conductor.lock(a2)
        assert refused.value.message == (
            f"another conductor works for host host-a: lock conductor/host-a is held by "
            f"host host-a pid {os.getpid()}"
        )
        assert "\n" not in refused.value.message
        with conductor.lock(b) as other:  # another host's conductor runs beside it
            assert isinstance(other, conductor.HostLock)
            assert other.fence.key.endswith("locks/conductor/host-b")
            assert other.fence.token != held.fence.token
        held.release()
        assert a1.store.fence is None
        with conductor.lock(a2) as next_one:  # let go: the next takes it at once
            assert isinstance(next_one, conductor.HostLock)


def test_the_keeper_holds_the_lock_past_its_ttl(on_etcd: Chain, client: Etcd) -> None:
    with _open(on_etcd, "host-a") as ws, conductor.lock(ws, ttl=2) as held:
        assert isinstance(held, conductor.HostLock)
        eventually(lambda: held.keeper.kept >= 6, timeout=20, what="six keepalives (4 s)")
        found = client.get(held.fence.key)
        assert found is not None
        assert found.create_revision == held.fence.token
        assert not held.lost
        conductor.still_held(ws)


_HOLDER = """
import sys
from oms.services.conductor import tick as conductor
from oms.services.conductor.loop import Loop
from oms.services.workspace import Workspace
ws = Workspace.open(sys.argv[1], sys.argv[2], etcd=True)
ws.host_name = "host-a"
held = conductor.lock(ws, ttl=2)
print(held.fence.token, flush=True)
sys.stdin.read()
"""


def test_a_sigkilled_holders_lock_is_taken_when_its_lease_lapses(on_etcd: Chain) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(on_etcd.state), str(on_etcd.repo)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        token = int(proc.stdout.readline())
        with _open(on_etcd, "host-a") as ws:
            with pytest.raises(LockHeldError, match=f"held by host host-a pid {proc.pid}$"):
                conductor.lock(ws)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()

            def taken() -> conductor.HostLock | None:
                try:
                    got = conductor.lock(ws)
                except LockHeldError:
                    return None
                assert isinstance(got, conductor.HostLock)
                return got

            with eventually(taken, timeout=20, what="the dead holder's lease lapses") as held:
                assert held.fence.token > token
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                pipe.close()


def test_a_cut_off_holders_writes_are_fenced_and_the_next_one_takes_the_lock(
    on_etcd: Chain, client: Etcd, etcd_prefix: str
) -> None:
    beat_key = etcd_prefix + "hosts/host-a"
    with ExitStack() as stack:
        ws = stack.enter_context(_open(on_etcd, "host-a"))
        held = stack.enter_context(conductor.lock(ws))
        assert isinstance(held, conductor.HostLock)
        memory, phase = conductor.Memory(), conductor.Phase("reconcile")
        conductor.heartbeat(ws, memory, phase)  # under the lock: lands
        assert phase.skipped == []
        first = client.get(beat_key)
        assert first is not None
        worker = _worker(ws, 1, "host-a")  # a record the tick writes: fenced, lands
        # cut off past its lease (the test revokes it): the lock goes with it
        client.revoke(held.keeper.held.lease_id)
        with pytest.raises(LeaseError, match="was lost"):
            conductor.still_held(ws)  # the next tick acts on nothing
        records = ws.store.records("worker")
        before = records.read(worker)
        with pytest.raises(LeaseError, match="was not written"):
            records.transition(
                worker,
                expected_version=before.version,
                state="working",
                payload=before.payload,
                operation_id="op-late",
                actor=SYSTEM_ACTOR,
                observed_at=ws.now(),
            )
        assert records.read(worker).version == before.version  # nothing landed
        memory.beats[f"{ws.store.path}\0host-a"] = OLD_BEAT  # a beat is due again
        conductor.heartbeat(ws, memory, phase)
        assert len(phase.skipped) == 1
        assert "was lost" in phase.skipped[0]
        assert client.get(beat_key) == first  # the old holder's beat did not land
        with _open(on_etcd, "host-a") as ws2, conductor.lock(ws2) as next_one:
            assert isinstance(next_one, conductor.HostLock)
            assert next_one.fence.token > held.fence.token
            memory2 = conductor.Memory(beats={f"{ws2.store.path}\0host-a": OLD_BEAT})
            conductor.heartbeat(ws2, memory2, phase2 := conductor.Phase("reconcile"))
            assert phase2.skipped == []
            after = client.get(beat_key)
            assert after is not None
            assert after.mod_revision > first.mod_revision


def test_a_conductor_loop_whose_lock_lapsed_ends_acting_on_nothing(
    on_etcd: Chain, client: Etcd
) -> None:
    reports: list[str | None] = []
    with _open(on_etcd, "host-a") as ws, conductor.lock(ws) as held:
        assert isinstance(held, conductor.HostLock)
        client.revoke(held.keeper.held.lease_id)  # cut off past its lease
        loop = Loop(ws, 0.0, lambda _t, line: reports.append(line), lambda: False, 3, held=True)
        with pytest.raises(LeaseError, match="the tick acts on nothing"):
            loop.run()
    assert reports == []  # no tick ran, not one reported and gone on
