"""A hostile repository cannot take the person's host name through a second spelling of the
person's cluster, and two pins at once lose neither (ADR 0043, amendment `names2`; SECURITY.md
"The authority store on etcd", 18-19).

A host name is bound on a store to the state key that first acts under it (amendment
`hostname`), and a prefix is one repository's on the members the person pinned (amendment
`clusterpin`). The overlap check compared the members' URLs as strings, so a hostile repository
whose `[store]` named the person's members respelt (`http://127.0.0.1:2379/`, `http://127.1:2379`,
`http://localhost:2379`) under the person's prefix was pinned beside the person's own; its first
command then bound the person's host name to its own state key, and the person's conductor was
refused its own name for good. And `oms store pin-cluster` read the pin file, added its pin and
renamed the file over: two at once lost the first one's pin. On the real 3-member cluster, with
real git and the CLI."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from oms import limits
from oms.adapters.etcd.client import Etcd
from oms.domain import cluster_pins
from oms.errors import LockHeldError
from oms.services.admin.setup import init
from oms.services.admin.storeops import pin_store_cluster
from oms.store import Store
from tests.chain import Chain
from tests.etcd_cluster import Cluster
from tests.helpers import OmsCommand

pytestmark = pytest.mark.cli

HOST = "persons-host"  # the person's host name: the same for every repository they run oms in


@pytest.fixture
def settings(chain: Chain, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The person's own settings home (XDG_CONFIG_HOME): one for every repository of theirs."""
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
    done = oms.run(
        *args, "--state-root", str(state), "--config-root", str(repo), env={"OMS_HOST": HOST}
    )
    return done.returncode, done.stdout + done.stderr


def _refused(code: int, out: str) -> dict[str, str]:
    """The one-line `--json` error of a refused command."""
    assert code != 0, out
    assert "Traceback" not in out, out
    error = json.loads(out.strip().splitlines()[-1])
    assert error["ok"] is False, out
    return {"code": error["error"], "message": error["message"], "hint": error.get("hint", "")}


def _hostile(chain: Chain) -> SimpleNamespace:
    """A hostile repository (a clone with a commit of its author's) and its own state root."""
    clone, state = chain.base / "hostile", chain.base / "hostile-state"
    subprocess.run(["git", "clone", "-q", str(chain.repo), str(clone)], check=True)
    init(str(state), str(clone))
    return SimpleNamespace(repo=clone, state=state)


def _key_id(state: Path) -> str:
    with Store.open(str(state)) as store:
        return store.state.meta.key_id


def _respelt(endpoints: list[str]) -> dict[str, list[str]]:
    """The person's members spelt otherwise, each spelling a client connects to alike."""
    ports = [url.rsplit(":", 1)[1] for url in endpoints]
    return {
        "a trailing slash": [f"{url}/" for url in endpoints],
        "127.1": [f"http://127.1:{port}" for port in ports],
        "localhost": [f"http://localhost:{port}" for port in ports],
        "in hexadecimal": [f"http://0x7f.0.0.1:{port}" for port in ports],
        "one member of them": [f"http://LOCALHOST.:{ports[0]}"],
    }


def test_a_hostile_repository_is_never_pinned_on_the_persons_prefix_by_a_second_spelling(
    deliverable: Chain, oms: OmsCommand, settings: Path, etcd_cluster: Cluster
) -> None:
    """The attack: the person pins their repository's cluster; a hostile repository commits the
    same prefix on the same members, spelt otherwise, and the person pins it (it names members
    that look like theirs). Each spelling is refused as the prefix's overlap, the pin file
    unchanged; the hostile repository's commands are refused as not pinned, nothing is written
    under the prefix, and the person's first command binds their host name to their own key.
    Before, the first spelling was pinned and the hostile repository's first command bound the
    person's name: the person's conductor was refused `host-name-taken`."""
    chain = deliverable
    prefix = f"/oms-names2/{chain.base.name}/"
    _commit_store(chain.repo, etcd_cluster.endpoints, prefix)
    code, out = _oms(oms, chain.repo, chain.state, "store", "pin-cluster", "--json")
    assert code == 0, out
    pins = settings / "oms" / "clusters.toml"
    before = pins.read_bytes()
    hostile = _hostile(chain)
    for how, endpoints in _respelt(etcd_cluster.endpoints).items():
        _commit_store(hostile.repo, endpoints, prefix)
        error = _refused(*_oms(oms, hostile.repo, hostile.state, "store", "pin-cluster", "--json"))
        assert error["code"] == "config", (how, error)
        assert (
            f"overlaps prefix {prefix} on {', '.join(etcd_cluster.endpoints)}" in (error["message"])
        ), (how, error)
        assert f"(state key {_key_id(chain.state)[:12]}," in error["message"], (how, error)
        assert pins.read_bytes() == before, how
        error = _refused(*_oms(oms, hostile.repo, hostile.state, "conductor", "tick", "--json"))
        assert error["code"] == "cluster-not-pinned", (how, error)
    client = Etcd(etcd_cluster.endpoints)
    try:
        assert list(client.range_prefix(prefix, keys_only=True)) == []  # nothing written
        code, out = _oms(oms, chain.repo, chain.state, "conductor", "tick", "--json")
        assert code == 0, out
        bound = client.get(prefix + "names/" + HOST + ".json")
        assert bound is not None
        assert json.loads(bound.value)["keyid"] == _key_id(chain.state)
    finally:
        client.close()


def test_a_pin_file_holding_two_repositories_on_one_prefix_serves_neither(
    deliverable: Chain, oms: OmsCommand, settings: Path, etcd_cluster: Cluster
) -> None:
    """A pin file written before members were compared by where a client connects (or by hand)
    may already pin a hostile repository on the person's prefix under another spelling. Every
    command of either repository on it is refused in one line naming both pins, before anything
    is sent: the hostile repository binds no name. Before, its first command bound the person's
    host name, and the person's own command was refused that name."""
    chain = deliverable
    prefix = f"/oms-names2/{chain.base.name}/"
    _commit_store(chain.repo, etcd_cluster.endpoints, prefix)
    code, out = _oms(oms, chain.repo, chain.state, "store", "pin-cluster", "--json")
    assert code == 0, out
    hostile = _hostile(chain)
    respelt = [f"{url}/" for url in etcd_cluster.endpoints]
    _commit_store(hostile.repo, respelt, prefix)
    pins_file = settings / "oms" / "clusters.toml"
    pins = cluster_pins.parse_pins(pins_file.read_bytes(), str(pins_file))
    theirs = cluster_pins.Pin(
        _key_id(hostile.state), str(hostile.repo), tuple(respelt), prefix, None
    )
    pins_file.write_bytes(cluster_pins.render_pins({**pins, theirs.keyid: theirs}))
    client = Etcd(etcd_cluster.endpoints)
    try:
        for repo, state in ((hostile.repo, hostile.state), (chain.repo, chain.state)):
            error = _refused(*_oms(oms, repo, state, "conductor", "tick", "--json"))
            assert error["code"] == "cluster-not-pinned", error
            assert "pinned for another repository's state root" in error["message"], error
            assert "remove from" in error["hint"], error
            assert client.get(prefix + "names/" + HOST + ".json") is None
        assert list(client.range_prefix(prefix, keys_only=True)) == []
        pins_file.write_bytes(cluster_pins.render_pins(pins))  # the person removes theirs
        code, out = _oms(oms, chain.repo, chain.state, "conductor", "tick", "--json")
        assert code == 0, out
        bound = client.get(prefix + "names/" + HOST + ".json")
        assert bound is not None
        assert json.loads(bound.value)["keyid"] == _key_id(chain.state)
    finally:
        client.close()


def test_two_pins_at_once_lose_neither(
    chain: Chain, settings: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two repositories pinned at once (two terminals): the first has read the pin file and not
    yet renamed its new one over it when the second pins. The second waits for the first (here,
    told to wait no time, it is refused in one line and writes nothing); then both pins are in
    the file. Before, the second was written, and the first's rename, from what it had read,
    dropped it. Nothing is sent to a cluster to pin (these members need not exist)."""
    second = _hostile(chain)  # any second repository of the person's
    _commit_store(chain.repo, ["http://127.0.0.1:9"], "/oms/first/")
    _commit_store(second.repo, ["http://127.0.0.1:9"], "/oms/second/")
    real_add = cluster_pins.add
    read, go = threading.Event(), threading.Event()

    def paused_add(
        pins: dict[str, cluster_pins.Pin], new: cluster_pins.Pin, where: str
    ) -> dict[str, cluster_pins.Pin]:
        if threading.current_thread() is not threading.main_thread():
            read.set()  # the first has read the pin file
            assert go.wait(60), "the test never let the first pin go on"
        return real_add(pins, new, where)

    monkeypatch.setattr(cluster_pins, "add", paused_add)
    failed: list[BaseException] = []

    def first() -> None:
        try:
            pin_store_cluster(str(chain.state), str(chain.repo))
        except BaseException as exc:  # shown by the assertion below
            failed.append(exc)

    thread = threading.Thread(target=first)
    thread.start()
    try:
        assert read.wait(60), failed
        monkeypatch.setattr(limits, "LIMITS", limits.LIMITS._replace(settings_lock_wait_s=0.0))
        try:
            pin_store_cluster(str(second.state), str(second.repo))
            waited = False
        except LockHeldError as exc:
            waited = True
            assert "another oms command has been writing it" in exc.message, exc.message
            assert "\n" not in exc.message
    finally:
        go.set()
        thread.join(60)
    assert failed == []
    path = settings / "oms" / "clusters.toml"
    pinned = cluster_pins.parse_pins(path.read_bytes(), str(path))
    first_key, second_key = _key_id(chain.state), _key_id(second.state)
    assert first_key in pinned
    if waited:  # refused, nothing written: the person runs it again
        assert second_key not in pinned
        monkeypatch.setattr(limits, "LIMITS", limits.LIMITS._replace(settings_lock_wait_s=10.0))
        pin_store_cluster(str(second.state), str(second.repo))
        pinned = cluster_pins.parse_pins(path.read_bytes(), str(path))
    assert {first_key, second_key} <= set(pinned), "a pin was lost"
    assert pinned[second_key].prefix == "/oms/second/"
