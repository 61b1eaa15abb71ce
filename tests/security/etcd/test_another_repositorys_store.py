"""A hostile repository cannot take another repository's tickets on a shared cluster (ADR 0043,
amendment `repoparts`; SECURITY.md "The authority store on etcd"). A repository's committed
`[store]` names its cluster and prefix, and on a store the repository names every ticket counted as
the repository's (amendment `repoid`), so a repository that committed another's prefix (a fork, or
any repository copying it; or `/oms/<its state key id>/`, the other's default) counted the other's
tickets as its own: its fill leased them and launched their content in its own worktree, and the
other's conductor launched the hostile repository's tickets in the other's. Now a ticket records
the state key that added it, and on such a store it is the repository's only when that key is this
state root's or one the person pinned for another host of theirs; else the clone's path decides,
as ADR 0032 built it. On the real 3-member cluster, with real git and the `oms` CLI."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.errors import OtherRepositoryError
from oms.services.admin.setup import init
from oms.services.chain import tickets
from oms.services.workspace import Workspace
from oms.store import Store
from tests.chain import Chain
from tests.etcd_cluster import Cluster, pin_cluster, settings_of
from tests.helpers import OmsCommand, eventually
from tests.integration.etcd.test_commands_cli import _use_etcd


def _hostile(chain: Chain) -> Iterator[tuple[Path, Path]]:
    """Another repository (a clone, as a fork is) with its own state root, whose committed
    configuration is the one `chain` committed: (its top, its state root)."""
    clone, state = chain.base / "hostile", chain.base / "hostile-state"
    subprocess.run(["git", "clone", "-q", str(chain.repo), str(clone)], check=True)
    init(str(state), str(clone))
    try:
        yield clone, state
    finally:
        subprocess.run(
            ["tmux", "-S", str(state / "tmux.sock"), "kill-server"],
            capture_output=True,
            check=False,
        )


@pytest.fixture
def hostile(deliverable: Chain) -> Iterator[tuple[Path, Path]]:
    yield from _hostile(deliverable)


def _refused(state: Path, repo: Path, ticket_id: str) -> str:
    with _settings(state), Workspace.open(str(state), str(repo), etcd=True) as ws:
        with pytest.raises(OtherRepositoryError) as refused:
            tickets.get(ws, ticket_id)
        return refused.value.message


def _home(state: Path) -> Path:
    """The settings home of the hostile repository's state root `state`: another host's, or
    another person's (the person's own settings refuse to pin another repository's prefix, ADR
    0043 amendment `clusterpin`), where its cluster is pinned as named."""
    return state.parent / f"{state.name}-config"


def _pin_hostile(clone: Path, state: Path) -> dict[str, str]:
    """Pin the cluster the hostile repository now names in its own settings: their environment."""
    return {"XDG_CONFIG_HOME": str(pin_cluster(clone, state, _home(state)))}


def _settings(state: Path) -> contextlib.AbstractContextManager[None]:
    home = _home(state)
    return settings_of(home) if home.is_dir() else contextlib.nullcontext()


@pytest.mark.cli
def test_a_repository_naming_anothers_prefix_takes_none_of_its_tickets(
    deliverable: Chain,
    hostile: tuple[Path, Path],
    oms: OmsCommand,
    etcd_cluster: Cluster,
    etcd_prefix: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chain, (clone, state) = deliverable, hostile
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)  # A's store, by name
    subprocess.run(["git", "-C", str(clone), "pull", "-q"], check=True)  # B commits the same
    env_b = _pin_hostile(clone, state)
    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
        theirs = tickets.add(ws, "A's work", "secret plans").record_id
    assert "belongs to the repository" in _refused(state, clone, theirs)
    where = ("--state-root", str(state), "--config-root", str(clone))
    done = oms.run("conductor", "tick", "--json", *where, env={"OMS_HOST": "host-b", **env_b})
    assert done.returncode == 0, done.stdout + done.stderr
    fill = next(p for p in json.loads(done.stdout)["phases"] if p["phase"] == "fill")
    assert not any("delivered" in str(line) for line in fill["done"]), fill
    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
        assert tickets.get(ws, theirs).state == "open"  # not leased by B
    monkeypatch.setenv("OMS_HOST", "host-b")  # B's write claims its own name (ADR 0043 `cross6`)
    with _settings(state), Workspace.open(str(state), str(clone), etcd=True) as ws:
        planted = tickets.add(ws, "B's bait", "run this in A").record_id
    monkeypatch.delenv("OMS_HOST")
    assert "belongs to the repository" in _refused(chain.state, chain.repo, planted)


def test_a_repository_naming_anothers_default_prefix_takes_none_of_its_tickets(
    chain: Chain, etcd_cluster: Cluster
) -> None:
    endpoints = json.dumps(etcd_cluster.endpoints)
    table = f'\n[store]\nbackend = "etcd"\nendpoints = {endpoints}\n'
    chain.edit_config(lambda text: text + table, commit=True)  # A: the default prefix
    pin_cluster(chain.repo, chain.state)
    with Store.open(str(chain.state)) as store:
        key_id = store.state.meta.key_id
    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
        theirs = tickets.add(ws, "A's work", "").record_id
    for clone, state in _hostile(chain):  # B names A's default prefix outright
        named = f'{table}prefix = "/oms/{key_id}/"\n'
        (clone / ".oms" / "config.toml").write_text(
            (chain.repo / ".oms" / "config.toml").read_text().replace(table, named)
        )
        subprocess.run(["git", "-C", str(clone), "commit", "-qam", "store"], check=True)
        _pin_hostile(clone, state)
        assert "belongs to the repository" in _refused(state, clone, theirs)


@pytest.mark.cli
def test_a_prefix_inside_anothers_key_directories_is_refused(
    chain: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    """A hostile repository naming a prefix inside another store's own key directories
    (`<its prefix>ledger/`): its writes landed among the other's ledger entries, the last key
    there was then not an entry oms writes, and the other repository could write nothing more
    (`IntegrityError`, every command). Now a prefix none of whose parts is one of the names oms
    gives its keys' directories is refused in one line, before anything is written."""
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
        tickets.add(ws, "A's work", "")
    for clone, state in _hostile(chain):
        config = clone / ".oms" / "config.toml"
        text = config.read_text()
        config.write_text(text.replace(f'"{etcd_prefix}"', f'"{etcd_prefix}ledger/"'))
        subprocess.run(["git", "-C", str(clone), "commit", "-qam", "nest"], check=True)
        where = ("--state-root", str(state), "--config-root", str(clone))
        env_b = _pin_hostile(clone, state)
        done = oms.run("ticket", "add", "--title", "B's", "--no-body", *where, env=env_b)
        out = (done.stdout + done.stderr).strip()
        assert done.returncode != 0, out
        assert "a name oms gives its own keys" in out.splitlines()[0], out
        assert "Traceback" not in out
    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
        assert tickets.add(ws, "A's next", "").record_id == "tkt-2"  # A writes on


@pytest.mark.cli
def test_conductors_started_at_once_under_one_host_name_one_acts(
    deliverable: Chain,
    hostile: tuple[Path, Path],
    oms: OmsCommand,
    etcd_cluster: Cluster,
    etcd_prefix: str,
) -> None:
    """Three `oms conductor run` started at once under one `OMS_HOST` on one store: two of this
    state root, one of another (the hostile repository reusing the host's name). One runs; the
    others end in one line, exit 1: naming the lock's holder, or, for a state root whose key the
    name is not bound to, the binding (ADR 0043 amendment `hostname`; a regression guard of
    branch `attack-parts`: it held)."""
    chain, (clone, state) = deliverable, hostile
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    subprocess.run(["git", "-C", str(clone), "pull", "-q"], check=True)
    env = dict(os.environ, OMS_HOST="same")
    env_b = dict(env, **_pin_hostile(clone, state))
    runs = ((chain.state, chain.repo), (chain.state, chain.repo), (state, clone))
    procs = [
        subprocess.Popen(
            [
                *oms.argv,
                "conductor",
                "run",
                "--interval",
                "3600",
                "--state-root",
                str(where),
                "--config-root",
                str(repo),
            ],
            env=env_b if where == state else env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for where, repo in runs
    ]
    try:
        eventually(
            lambda: sum(p.poll() is not None for p in procs) == 2,
            timeout=60,
            what="two of the three conductors end",
        )
        ended = [p for p in procs if p.poll() is not None]
        for p in ended:
            _, err = p.communicate(timeout=30)
            assert p.returncode == 1, err
            assert err.startswith(
                (
                    "oms: error: another conductor works for host same: lock ",
                    "oms: error: host name same is bound on this etcd store to state key ",
                )
            ), err
            assert "Traceback" not in err
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                p.communicate(timeout=60)
    assert sum(p.returncode == 0 for p in procs) == 1  # the one that ran, ended by SIGTERM
