"""The rig of hosts (`tests/hosts_rig.py`; ADR 0043, amendment `hosts3`) on a real 3-member etcd
cluster: three hosts, each a network namespace of its own joined to the cluster's bridge, with its
own state root, settings, clone of one shared bare repository, and conductor (as far as etcd
serves it: `tests/host_standin.py` takes the host's conductor lock and beats under its lease).
What is served on etcd is exercised through it as each host runs it: `oms ticket add|list`,
`oms status` and its `host unreachable`, `oms audit verify`; and the rig's faults are proven:
- a host partitioned (its link down) longer than its lease: its commands fail in one line and
  write nothing, the others see it `unreachable`, its lock's lease lapses so its next write is
  fenced, and healed it takes the lock again under a higher token and is up again;
- an etcd member SIGKILLed while every host writes, and restarted: nothing is refused or lost, and
  the restarted member serves what was written while it was down;
- a host's clock stepped two hours ahead: the others still see it up (a leased beat compares no
  clock), its beats carry its stepped time, its writes land."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest

from oms.adapters.etcd.client import Etcd
from oms.canonical import JsonObject, parse_ts, stable_id
from oms.domain import workers as worker_machine
from oms.errors import EtcdError
from oms.services.workspace import SYSTEM_ACTOR, Workspace
from oms.store.payloads import as_json
from tests.etcd_cluster import ETCD, Cluster, settings_of
from tests.helpers import eventually
from tests.hosts_rig import HOSTS, Host, Network, Rig, make_rig, needs_netns, netns_problem

pytestmark = [needs_netns, pytest.mark.skipif(ETCD is None, reason="etcd is not installed")]

LEASE_S = 6  # the stand-in's host lease (a real host's is 90 s)
TTL_S = 4  # its conductor lock's lease (a real one's is 10 s)
STEP_S = 2 * 3600


@pytest.fixture(scope="module")
def network() -> Iterator[Network]:
    assert netns_problem() is None
    net = Network(HOSTS)
    try:
        yield net
    finally:
        net.close()


@pytest.fixture(scope="module")
def cluster(network: Network, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """The module's own cluster, its clients' address the bridge's (the hosts reach it only
    through their links)."""
    members = Cluster(tmp_path_factory.mktemp("etcd-rig"), address=network.gateway)
    try:
        members.start_all()
        yield members
    finally:
        members.stop()


@pytest.fixture(scope="module")
def rig(
    network: Network, cluster: Cluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Rig]:
    base = tmp_path_factory.mktemp("rig")
    prefix = f"/oms-rig/{os.getpid()}/"
    yield from make_rig(base, network, cluster.endpoints, prefix, stepped=("host-b",))


@pytest.fixture
def standins(rig: Rig, cluster: Cluster) -> Iterator[Rig]:
    """Every host's stand-in conductor running; after the test every link up, every member
    running, the stand-ins killed and every clock back."""
    for host in rig.hosts.values():
        host.start_standin(LEASE_S, TTL_S)
    try:
        yield rig
    finally:
        for name, host in rig.hosts.items():
            rig.network.heal(name)
            for proc in list(host.procs):
                host.kill(proc)
            if host.stepped:
                host.step_clock(0)
        stopped = [m for m in cluster.members if m.proc is None]
        for member in stopped:
            cluster.restart(member)
        if stopped:
            cluster.wait_healthy(stopped)


def _status(host: Host) -> dict[str, dict[str, object]]:
    done = host.oms("status", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    return {str(v["host"]): v for v in json.loads(done.stdout)["hosts"]}


def _add(host: Host, title: str) -> str:
    done = host.oms("ticket", "add", "--title", title, "--body", "do it")
    assert done.returncode == 0, f"{host.name}: {done.stdout}{done.stderr}"
    return done.stdout


def _titles(host: Host) -> list[str]:
    done = host.oms("ticket", "list", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(done.stdout)
    rows = doc["tickets"] if isinstance(doc, dict) else doc
    return sorted(str(t["title"]) for t in rows)


def _events(host: Host, event: str) -> list[dict[str, object]]:
    return [e for e in host.standin_events() if e["event"] == event]


def _all_up(host: Host) -> bool:
    views = _status(host)
    return all(views.get(h, {}).get("state") == "up" for h in HOSTS)


def _ready(rig: Rig) -> bool:
    """Every host's stand-in holds its lock (a killed one's lapses first) and every host is up."""
    locked = all(_events(host, "lock") for host in rig.hosts.values())
    return locked and _all_up(rig.hosts["host-a"])


def _audit_clean(rig: Rig) -> None:
    for host in rig.hosts.values():
        done = host.oms("audit", "verify")
        assert done.returncode == 0, f"{host.name}: {done.stdout}{done.stderr}"


def test_every_host_writes_and_sees_the_others_and_a_stepped_clock_leaves_its_host_up(
    standins: Rig,
) -> None:
    rig = standins
    a, b = rig.hosts["host-a"], rig.hosts["host-b"]
    titles = [f"{name} writes" for name in HOSTS]
    for title in titles:
        _add(rig.hosts[title.split()[0]], title)
    for host in rig.hosts.values():
        assert set(titles) <= set(_titles(host)), host.name  # every host's, on every host
    eventually(lambda: _ready(rig), timeout=60, what="every host beats")
    # host-b's clock stepped two hours ahead
    b.step_clock(STEP_S)

    def stepped_beat() -> bool:
        views = _status(a)
        ahead = parse_ts(str(views["host-b"]["beat_at"])) - parse_ts(
            str(views["host-a"]["beat_at"])
        )
        return ahead > 3_600_000

    eventually(stepped_beat, timeout=60, what="host-b beats at its stepped time")
    assert _status(a)["host-b"]["state"] == "up"  # a leased beat compares no clock
    assert _status(b)["host-a"]["state"] == "up"  # nor does host-b, looking at the others
    _add(b, "written two hours ahead")
    assert "written two hours ahead" in _titles(a)
    for host in rig.hosts.values():
        assert len(_events(host, "lock")) == 1, host.standin_events()  # one conductor per host
    _audit_clean(rig)


def test_a_partitioned_host_is_fenced_and_unreachable_and_rejoins_when_healed(
    standins: Rig, cluster: Cluster
) -> None:
    rig = standins
    a, c = rig.hosts["host-a"], rig.hosts["host-c"]
    eventually(lambda: _ready(rig), timeout=60, what="every host beats")
    first = _events(c, "lock")[-1]["token"]
    worker = _worker_of(c)
    rig.network.cut("host-c")
    done = c.oms("ticket", "add", "--title", "cut off", "--body", "x")
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "Traceback" not in said, said
    assert said.startswith("oms: error: etcd unreachable: no endpoint answered"), said
    # longer than its lease: the others see it unreachable, its lock lapses
    eventually(
        lambda: _status(a)["host-c"]["state"] == "unreachable",
        timeout=60,
        what="host-c is unreachable once its lease lapses",
    )
    shown = a.oms("status")
    assert f"host host-c unreachable (no heartbeat under a live lease): its workers {worker}" in (
        shown.stdout + shown.stderr
    )
    client = Etcd(cluster.endpoints)
    try:
        lock_key = f"{rig.prefix}locks/conductor/host-c"
        eventually(lambda: client.get(lock_key) is None, timeout=30, what="host-c's lock lapses")
    finally:
        client.close()
    # it tried, and was not answered (a call in flight waits out its deadline)
    eventually(lambda: _events(c, "fault"), timeout=60, what="host-c's stand-in is not answered")
    rig.network.heal("host-c")
    # healed: its stale lock is refused (fenced), it takes a new one and beats again
    eventually(lambda: _events(c, "lost"), timeout=60, what="host-c finds its lock lost")
    eventually(
        lambda: len(_events(c, "lock")) >= 2 and _all_up(a),
        timeout=60,
        what="host-c takes its lock again and is up",
    )
    events = c.standin_events()
    lost_at = next(i for i, e in enumerate(events) if e["event"] == "lost")
    second = _events(c, "lock")[-1]["token"]
    assert isinstance(first, int)
    assert isinstance(second, int)
    assert second > first
    late = [e for e in events[lost_at:] if e["event"] == "beat" and e["token"] == first]
    assert late == []  # no beat of the lapsed lock after its lease was gone
    assert "cut off" not in _titles(a)  # nothing half-written by the refused command
    _add(c, "host-c back")
    assert "host-c back" in _titles(a)


def test_a_member_killed_while_every_host_writes_loses_nothing(
    standins: Rig, cluster: Cluster
) -> None:
    rig = standins
    victim = cluster.members[0]
    cluster.kill(victim)
    titles = [f"{name} while m0 is down {n}" for name in HOSTS for n in range(2)]
    for title in titles:
        _add(rig.hosts[title.split()[0]], title)  # each host's client tries the next member
    eventually(lambda: _all_up(rig.hosts["host-b"]), timeout=60, what="every host beats")
    cluster.restart(victim)
    cluster.wait_healthy([victim])
    written = Etcd(cluster.endpoints)
    alone = Etcd([victim.client_url])
    try:
        revision = _revision(written, serializable=False)

        def caught_up() -> bool:  # a serializable read: what this member itself holds
            return _revision(alone, serializable=True) >= revision

        eventually(
            caught_up, timeout=60, what="the restarted member catches up", ignoring=(EtcdError,)
        )
    finally:
        alone.close()
        written.close()
    for host in rig.hosts.values():
        assert set(titles) <= set(_titles(host)), host.name
    _audit_clean(rig)


def _worker_of(host: Host) -> str:
    """A worker record naming `host` (what `oms status` lists a host by), written through the
    service functions from the test's own namespace."""
    dispatch_id = f"dsp-{stable_id('rig', host.name)[:32]}"
    dispatch: JsonObject = {
        "ticket_id": "tkt-1",
        "session_id": "11111111-2222-4333-8444-555555555555",
        "role_id": "oms.command-executor",
        "provider_mode": "command",
        "worktree_id": "wt-x",
    }
    with (
        settings_of(host.config_home),
        Workspace.open(str(host.state), str(host.repo), etcd=True) as ws,
    ):
        ws.host_name = host.name
        payload = worker_machine.new(dispatch_id, dispatch, updated_at=ws.now(), host=host.name)
        ws.store.records("worker").create(
            dispatch_id,
            state="working",
            payload=as_json(payload.payload),
            operation_id=stable_id("rig-worker", host.name),
            actor=SYSTEM_ACTOR,
            observed_at=ws.now(),
        )
    return dispatch_id


def _revision(client: Etcd, *, serializable: bool) -> int:
    found = client.call("/v3/kv/range", {"key": _b64("/"), "serializable": serializable})
    header = found["header"]
    assert isinstance(header, dict)
    return int(str(header["revision"]))


def _b64(text: str) -> str:
    import base64

    return base64.b64encode(text.encode()).decode()


def _end(prefix: str) -> str:
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)
