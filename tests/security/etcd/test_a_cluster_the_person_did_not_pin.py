"""A repository's committed `[store]` cannot choose the cluster the person's oms talks to (ADR
0043, amendment `clusterpin`; SECURITY.md "The authority store on etcd"). Before, a hostile
repository naming members its author runs was served by them: its conductor took their tickets,
and they saw every key the person's oms wrote. Now the cluster a state root may use is pinned in
the person's own settings (`oms store pin-cluster`, `$XDG_CONFIG_HOME/oms/clusters.toml`), and a
`[store]` naming another — other members, another prefix, a later commit's change — is refused
in one line before anything is sent. On the real 3-member cluster, with real git and the CLI."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from oms.services.admin.setup import init
from oms.services.delivery import launch
from oms.services.delivery.context import DeliveryContext
from oms.services.workspace import Workspace
from tests.chain import Chain
from tests.cli.test_json_shapes import problems
from tests.etcd_cluster import Cluster, pin_cluster
from tests.helpers import OmsCommand

pytestmark = pytest.mark.cli


class Listener:
    """A loopback port standing in for a hostile member: it counts the connections made to it
    (each closed at once, so a client that reached it fails fast)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.connections = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=30)
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    found = Listener()
    try:
        yield found
    finally:
        found.close()


@pytest.fixture
def settings(chain: Chain, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The person's own settings home (XDG_CONFIG_HOME): a folder of the test's own."""
    home = chain.base / "person-config"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home


def _commit_store(repo: Path, endpoints: list[str], prefix: str) -> None:
    config = repo / ".oms" / "config.toml"
    text = config.read_text().split("\n[store]\n")[0]
    table = f'backend = "etcd"\nendpoints = {json.dumps(endpoints)}\nprefix = "{prefix}"\n'
    config.write_text(f"{text}\n[store]\n{table}")
    subprocess.run(
        ["git", "-C", str(repo), "commit", "-q", "--allow-empty", "-am", "[store]"], check=True
    )


def _oms(oms: OmsCommand, repo: Path, state: Path, *args: str) -> tuple[int, str]:
    done = oms.run(*args, "--state-root", str(state), "--config-root", str(repo))
    return done.returncode, done.stdout + done.stderr


def _refused(code: int, out: str) -> dict[str, str]:
    """The one-line `--json` error of a refused command."""
    assert code != 0, out
    assert "Traceback" not in out, out
    error = json.loads(out.strip().splitlines()[-1])
    assert error["ok"] is False, out
    return {"code": error["error"], "message": error["message"], "hint": error.get("hint", "")}


def test_a_cluster_not_pinned_is_refused_before_anything_is_sent(
    chain: Chain, oms: OmsCommand, settings: Path, listener: Listener
) -> None:
    """The attack: the repository's `[store]` names a member its author runs. Every command on
    the store is refused in one line naming the command that pins it, and the member sees no
    connection (with the guard taken out it saw one per command)."""
    _commit_store(chain.repo, [listener.url], "/oms/theirs/")
    pin = f"oms store pin-cluster --config-root {chain.repo} --state-root {chain.state}"
    for args in (("ticket", "list"), ("conductor", "tick"), ("store", "verify")):
        error = _refused(*_oms(oms, chain.repo, chain.state, *args, "--json"))
        assert error["code"] == "cluster-not-pinned", error
        assert f"names etcd {listener.url} prefix /oms/theirs/" in error["message"], error
        assert "which you have not pinned for this state root" in error["message"], error
        assert pin in error["hint"], error
    code, out = _oms(oms, chain.repo, chain.state, "ticket", "list")  # without --json: one line
    assert code != 0, out
    assert "Traceback" not in out, out
    assert len(out.strip().splitlines()) <= 2, out
    assert listener.connections == 0
    assert not (settings / "oms" / "clusters.toml").exists()


def test_a_pinned_cluster_serves_and_a_later_commit_naming_another_is_refused(
    chain: Chain, oms: OmsCommand, settings: Path, etcd_cluster: Cluster, listener: Listener
) -> None:
    """A newcomer's path: commit `[store]`, `oms store pin-cluster`, work. A later commit that
    names other members or another prefix is refused until the person pins it again."""
    prefix = f"/oms-pin/{chain.base.name}/"
    _commit_store(chain.repo, etcd_cluster.endpoints, prefix)
    code, out = _oms(oms, chain.repo, chain.state, "store", "pin-cluster", "--json")
    assert code == 0, out
    pinned = json.loads(out)
    assert problems("store-pin-cluster", pinned) == [], pinned
    assert (pinned["endpoints"], pinned["prefix"], pinned["replaced"]) == (
        etcd_cluster.endpoints,
        prefix,
        False,
    )
    pins = settings / "oms" / "clusters.toml"
    assert pins.stat().st_mode & 0o777 == 0o600
    code, out = _oms(oms, chain.repo, chain.state, "ticket", "add", "--title", "Ours", "--no-body")
    assert code == 0, out
    for endpoints, where in (
        ([*etcd_cluster.endpoints, listener.url], prefix),  # one member more: theirs
        (etcd_cluster.endpoints, f"{prefix}moved/"),
    ):
        _commit_store(chain.repo, endpoints, where)
        error = _refused(*_oms(oms, chain.repo, chain.state, "ticket", "list", "--json"))
        assert error["code"] == "cluster-not-pinned", error
        pinned_one = f"({', '.join(etcd_cluster.endpoints)} prefix {prefix})"
        assert f"not the cluster you pinned for it {pinned_one}" in error["message"], error
    assert listener.connections == 0
    _commit_store(chain.repo, etcd_cluster.endpoints, prefix)  # back to the pinned one
    code, out = _oms(oms, chain.repo, chain.state, "ticket", "list", "--json")
    assert code == 0, out
    assert [t["title"] for t in json.loads(out)["tickets"]] == ["Ours"]


def test_two_repositories_are_never_pinned_one_prefix(
    chain: Chain, oms: OmsCommand, settings: Path
) -> None:
    """Two repositories (a clone, as a fork is, with its own state root) naming one prefix on one
    cluster: the second pin is refused in one line, and the pin file is unchanged. Nothing is
    sent to the cluster to pin (these members do not exist)."""
    endpoints = ["http://127.0.0.1:9"]
    _commit_store(chain.repo, endpoints, "/oms/shared/")
    code, out = _oms(oms, chain.repo, chain.state, "store", "pin-cluster")
    assert code == 0, out
    pins = settings / "oms" / "clusters.toml"
    before = pins.read_bytes()
    clone, state = chain.base / "other", chain.base / "other-state"
    subprocess.run(["git", "clone", "-q", str(chain.repo), str(clone)], check=True)
    init(str(state), str(clone))
    for prefix in ("/oms/shared/", "/oms/shared/inner/"):
        _commit_store(clone, endpoints, prefix)
        error = _refused(*_oms(oms, clone, state, "store", "pin-cluster", "--json"))
        assert error["code"] == "config", error
        assert (
            f"prefix {prefix} on http://127.0.0.1:9 overlaps prefix /oms/shared/"
            in (error["message"])
        ), error
        assert f"repository {chain.repo}" in error["message"], error
    assert pins.read_bytes() == before


@pytest.mark.parametrize("case", ["group-writable", "not TOML", "a forged pin"])
def test_a_pin_file_tampered_or_unreadable_is_refused_never_read_as_no_pins(
    chain: Chain, oms: OmsCommand, settings: Path, listener: Listener, case: str
) -> None:
    _commit_store(chain.repo, [listener.url], "/oms/theirs/")
    pins = settings / "oms" / "clusters.toml"
    pins.parent.mkdir(mode=0o700)
    pins.write_text("[clusters]\n")
    pins.chmod(0o600)
    if case == "group-writable":
        pins.chmod(0o620)
        said = "writable by others"
    elif case == "not TOML":
        pins.write_text("[clusters\n")
        said = "invalid TOML"
    else:  # a pin for no key id, of the hostile members
        pins.write_text(f'[clusters.me]\nrepository = "/r"\nendpoints = ["{listener.url}"]\n')
        said = "clusters.toml"
    error = _refused(*_oms(oms, chain.repo, chain.state, "ticket", "list", "--json"))
    assert error["code"] in ("config", "invalid-input"), error
    assert said in error["message"], error
    assert str(pins) in error["message"], error
    assert listener.connections == 0


def test_a_launch_names_the_cluster_its_deliverer_opened_not_a_later_commits(
    chain: Chain, settings: Path, etcd_cluster: Cluster, listener: Listener
) -> None:
    """A conductor that runs on reads HEAD again each tick but keeps the store it opened (the
    pinned one): a launch spec names that store for the worker's own processes, never the
    `[store]` a later commit names (before, it named the later commit's: the worker's supervisor,
    hooks and bridge then wrote to a cluster nobody pinned)."""
    prefix = f"/oms-pin/{chain.base.name}/"
    _commit_store(chain.repo, etcd_cluster.endpoints, prefix)
    pin_cluster(chain.repo, chain.state, settings)
    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
        _commit_store(chain.repo, [listener.url], "/oms/theirs/")
        ws.reread()
        assert ws.config().store.prefix == "/oms/theirs/"  # HEAD says theirs now
        named = launch._store(cast(DeliveryContext, SimpleNamespace(ws=ws)))
    host = {"host": ws.host(), "generation": 0}  # the name its launch acted under (`cross6`)
    assert named == {
        "backend": "etcd",
        "endpoints": etcd_cluster.endpoints,
        "prefix": prefix,
        "name": host,
    }
    assert listener.connections == 0
