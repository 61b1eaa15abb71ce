"""A real etcd cluster for the tests (ADR 0043): `etcd` processes on free loopback ports with
temporary data dirs, started by a fixture and killed by pid at teardown; a member can be killed
and started again (same name, same data dir: it rejoins).

`etcd_cluster` (session scope, 3 members) is shared by the tests that use it: each test works under
a prefix of its own (`etcd_prefix`). `Cluster(tls=...)` serves its clients over TLS (ADR 0043,
amendment `etcdtls`): each member's server certificate and key, the CA it trusts for client
certificates (`--client-cert-auth`); peers stay plain unless `peer_tls` (the same certificate, the
same CA, `--peer-client-cert-auth`: nothing of the cluster lets in a client without a
certificate)."""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import shutil
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from oms.adapters.etcd.client import ClientTls, Etcd
from oms.errors import EtcdError
from oms.store import Store
from oms.store.ledger import LineKey
from tests.helpers import eventually

ETCD = shutil.which("etcd")
needs_etcd = pytest.mark.skipif(ETCD is None, reason="etcd is not installed (.ci/setup does)")


def free_ports(count: int) -> list[int]:
    """`count` loopback ports nothing listens on now (each bound once, then released)."""
    socks = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            socks.append(sock)
        return [sock.getsockname()[1] for sock in socks]
    finally:
        for sock in socks:
            sock.close()


class ServerTls(NamedTuple):
    """What a TLS cluster's members serve: their certificate and key, the CA they trust for
    client certificates, and what the cluster's own client (`wait_healthy`) presents."""

    cert: Path
    key: Path
    client_ca: Path
    client: ClientTls


class Member:
    """One etcd member: its name, ports, data dir and (while running) its process."""

    def __init__(
        self,
        name: str,
        client_port: int,
        peer_port: int,
        data_dir: Path,
        scheme: str = "http",
        address: str = "127.0.0.1",
        peer_scheme: str = "http",
    ) -> None:
        self.name = name
        self.address = address
        self.client_port = client_port
        self.peer_port = peer_port
        self.data_dir = data_dir
        self.scheme = scheme
        self.peer_scheme = peer_scheme
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def client_url(self) -> str:
        return f"{self.scheme}://{self.address}:{self.client_port}"

    @property
    def peer_url(self) -> str:
        return f"{self.peer_scheme}://127.0.0.1:{self.peer_port}"


class Cluster:
    """A cluster of `size` members under `base` (a temporary directory). Its clients reach it at
    `address` (loopback by default; `tests/hosts_rig.py` gives the root side of its hosts' bridge,
    so a host in a network namespace reaches it only while its link is up); peers stay on
    loopback."""

    def __init__(
        self,
        base: Path,
        size: int = 3,
        tls: ServerTls | None = None,
        address: str = "127.0.0.1",
        peer_tls: bool = False,
    ) -> None:
        ports = free_ports(2 * size)
        self.base = base
        self.tls = tls
        self.token = f"oms-test-{os.getpid()}-{ports[0]}"
        scheme = "https" if tls else "http"
        self.peer_tls = peer_tls and tls is not None
        peers = "https" if self.peer_tls else "http"
        self.members = [
            Member(f"m{i}", ports[2 * i], ports[2 * i + 1], base / f"m{i}", scheme, address, peers)
            for i in range(size)
        ]
        self.initial = ",".join(f"{m.name}={m.peer_url}" for m in self.members)

    @property
    def endpoints(self) -> list[str]:
        return [m.client_url for m in self.members]

    def start(self, member: Member, state: str = "new") -> None:
        """Start `member` (`state` "new" at first; a restart rejoins with its data dir)."""
        assert ETCD is not None
        assert member.proc is None, f"{member.name} runs already"
        member.data_dir.mkdir(mode=0o700, exist_ok=True)
        log = (self.base / f"{member.name}.log").open("ab")
        member.proc = subprocess.Popen(
            [
                ETCD,
                "--name",
                member.name,
                "--data-dir",
                str(member.data_dir),
                "--listen-client-urls",
                member.client_url,
                "--advertise-client-urls",
                member.client_url,
                "--listen-peer-urls",
                member.peer_url,
                "--initial-advertise-peer-urls",
                member.peer_url,
                "--initial-cluster",
                self.initial,
                "--initial-cluster-state",
                state,
                "--initial-cluster-token",
                self.token,
                "--heartbeat-interval",
                "50",
                "--election-timeout",
                "500",
                *self._tls_flags(),
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
        log.close()

    def _tls_flags(self) -> list[str]:
        if self.tls is None:
            return []
        return [
            "--cert-file",
            str(self.tls.cert),
            "--key-file",
            str(self.tls.key),
            "--trusted-ca-file",
            str(self.tls.client_ca),
            "--client-cert-auth",
            *(
                [
                    "--peer-cert-file",
                    str(self.tls.cert),
                    "--peer-key-file",
                    str(self.tls.key),
                    "--peer-trusted-ca-file",
                    str(self.tls.client_ca),
                    "--peer-client-cert-auth",
                ]
                if self.peer_tls
                else []
            ),
        ]

    def start_all(self) -> None:
        for member in self.members:
            self.start(member)
        self.wait_healthy()

    def kill(self, member: Member) -> None:
        """SIGKILL `member` by its pid and reap it."""
        assert member.proc is not None, f"{member.name} is not running"
        os.kill(member.proc.pid, signal.SIGKILL)
        member.proc.wait()
        member.proc = None

    def restart(self, member: Member) -> None:
        self.start(member, state="existing")

    def wait_healthy(self, members: list[Member] | None = None) -> None:
        """Until each member (every one by default) answers a linearizable read."""
        for member in members or self.members:
            client = Etcd([member.client_url], tls=self.tls.client if self.tls else None)

            def answers(c: Etcd = client) -> bool:
                return bool(c.call("/v3/kv/range", {"key": "AA=="}))

            try:
                eventually(
                    answers,
                    timeout=30,
                    what=f"etcd member {member.name} answers",
                    ignoring=(EtcdError,),
                )
            finally:
                client.close()

    def stop(self) -> None:
        for member in self.members:
            if member.proc is not None:
                self.kill(member)


@pytest.fixture(scope="session")
def etcd_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A 3-member cluster for the session (members a test killed are started again after it)."""
    if ETCD is None:
        pytest.skip("etcd is not installed (.ci/setup does)")
    cluster = Cluster(tmp_path_factory.mktemp("etcd"))
    try:
        cluster.start_all()
        yield cluster
    finally:
        cluster.stop()


_prefixes = itertools.count()


@pytest.fixture
def etcd_prefix(etcd_cluster: Cluster) -> Iterator[str]:
    """A prefix of this test's own; every member runs again after the test."""
    yield f"/oms-test/{os.getpid()}-{next(_prefixes)}/"
    stopped = [m for m in etcd_cluster.members if m.proc is None]
    for member in stopped:
        etcd_cluster.restart(member)
    if stopped:
        etcd_cluster.wait_healthy(stopped)


def line_of(store: Store) -> LineKey:
    """The line key of `store`'s state root: what an etcd store's writes' ledger entries carry
    (ADR 0043, amendment `etcdledger`)."""
    return LineKey.of(store.state.root, store.state.meta.key_id, store.state.signer)


def pin_cluster(repo: Path, state: Path, home: Path | None = None) -> Path:
    """Pin the cluster `repo`'s committed `[store]` names for the state root `state` in the
    person's own settings, as `oms store pin-cluster` does (ADR 0043, amendment `clusterpin`; the
    service it runs, in this process): in `home` (an XDG_CONFIG_HOME), else `$XDG_CONFIG_HOME`
    when it is a folder, else a folder of the test's own beside the state root, which becomes
    `$XDG_CONFIG_HOME` for the rest of the test (`isolate_home`'s monkeypatch restores it). The
    settings home it pinned in."""
    from oms.services.admin.storeops import pin_store_cluster

    if home is None:
        current = Path(os.environ.get("XDG_CONFIG_HOME", "/nonexistent"))
        home = current if current.is_dir() else state.parent / "person-config"
        os.environ["XDG_CONFIG_HOME"] = str(home)
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    before = os.environ.get("XDG_CONFIG_HOME")
    os.environ["XDG_CONFIG_HOME"] = str(home)
    try:
        pin_store_cluster(str(state), str(repo))
    finally:
        if before is not None:
            os.environ["XDG_CONFIG_HOME"] = before
    return home


@contextlib.contextmanager
def settings_of(home: Path) -> Iterator[None]:
    """In-process calls within read the person's settings of `home` (its XDG_CONFIG_HOME): another
    host's, or another person's, on this machine."""
    before = os.environ.get("XDG_CONFIG_HOME")
    os.environ["XDG_CONFIG_HOME"] = str(home)
    try:
        yield
    finally:
        if before is None:
            del os.environ["XDG_CONFIG_HOME"]
        else:
            os.environ["XDG_CONFIG_HOME"] = before


def locks_let_go(client: Etcd, prefix: str, *, timeout: float = 90.0) -> None:
    """Assert that no lock is left under `prefix`. A lock whose holder process still runs is
    waited for: a worker's result recorder lets its end lock go just after its write, so the
    dispatch reads `resolved` a moment before. One whose holder is gone (or is this process,
    whose calls have returned) fails at once, before its lease could lapse and hide it."""

    def holders_done() -> bool:
        held = client.range_prefix(f"{prefix}locks/")
        return not any(_runs(kv.value.decode("ascii", "replace")) for kv in held)

    eventually(holders_done, timeout=timeout, what="each lock's holder let it go or ended")
    left = [kv.key for kv in client.range_prefix(f"{prefix}locks/")]
    assert left == [], left


def _runs(holder: str) -> bool:
    """Does the process a lock's holder names (`host H pid N`) still run, other than this one?"""
    found = re.search(r"\bpid ([0-9]+)$", holder)
    if found is None or int(found.group(1)) == os.getpid():
        return False
    try:
        stat = Path(f"/proc/{found.group(1)}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"
