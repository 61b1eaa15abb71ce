"""A released host's pane records nothing once another state root took its name (ADR 0043, amendment
`cross6`; SECURITY.md "The authority store on etcd", 38). Amendment `cross5` fenced the writes of
every command that learnt its host, but left a pane's own processes — its supervisor and the broker
the agent's hooks and bridge reach — without the fence: they open the store from the launch spec,
claiming no name. Here host build-1's worker is launched by a real `oms worker deliver`, its agent
(the demo worker) held before its first word; the person releases the name on a new state root,
which claims it; then the agent runs whole — its hooks, its bridge, its result. Every write its pane
makes is refused (`host-name-taken`), no key of the store moves, and each state root's verify names
nothing but the other's key, which it did not pin. On the real 3-member cluster, with real git, tmux
and bubblewrap."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from oms.adapters.etcd.client import Etcd
from oms.demo.scratch import WORKER_SCRIPT
from oms.services.admin.setup import init
from oms.services.workspace import Workspace
from oms.store import Store
from tests.chain import Chain, accepted, sandbox_dir, wait_served
from tests.etcd_cluster import Cluster, pin_cluster
from tests.helpers import OmsCommand, eventually
from tests.integration.etcd.test_commands_cli import _use_etcd
from tests.integration.etcd.test_deliver_etcd import EtcdChain

HOST = "build-1"
TIMEOUT = 90.0  # a loaded machine: a pane, a sandbox and a cluster's commits per step
GATED = """#!/bin/sh
# the demo worker ($1), held until the test writes $HOME/go
while [ ! -e "$HOME/go" ]; do sleep 0.05; done
exec /bin/sh "$1" full exit
"""


def _run(oms: OmsCommand, chain: Chain, *args: str) -> tuple[int, str]:
    where = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    done = oms.run(*args, *where, env={"OMS_HOST": HOST}, timeout=TIMEOUT)
    return done.returncode, done.stdout + done.stderr


def _key_id(state: Path) -> str:
    with Store.open(str(state)) as store:
        return store.state.meta.key_id


def _ledgered(client: Etcd, prefix: str) -> dict[str, int]:
    """Every key but the locks (a lease's, written outside the ledger) and their mod revisions."""
    return {
        kv.key: kv.mod_revision
        for kv in client.range_prefix(prefix)
        if not kv.key.startswith(prefix + "locks/")
    }


def _home(state: Path) -> Path:
    (home,) = sorted((sandbox_dir(state) / "homes").glob("command-*"))
    return home


def _logged(state: Path) -> str:
    log = _home(state) / "worker.log"
    return log.read_text() if log.exists() else ""


def test_a_released_hosts_pane_records_nothing_once_the_name_is_taken(
    deliverable: Chain,
    oms: OmsCommand,
    etcd_cluster: Cluster,
    etcd_prefix: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old = EtcdChain(deliverable.base, deliverable.repo, deliverable.state, deliverable.advisor)
    old.clock = deliverable.clock
    _use_etcd(old, etcd_cluster.endpoints, etcd_prefix)
    agent = old.base / "agent.sh"
    agent.write_text(WORKER_SCRIPT)
    gated = old.base / "gated.sh"
    gated.write_text(GATED)
    for script in (agent, gated):
        script.chmod(0o755)  # read inside the sandbox
    old.edit_config(
        lambda s: s.replace('argv = ["true"]', f'argv = ["/bin/sh", "{gated}", "{agent}"]'),
        commit=True,
    )
    monkeypatch.setenv("OMS_HOST", HOST)
    new = dataclasses.replace(deliverable, state=old.base / "state-new")
    client = Etcd(etcd_cluster.endpoints)
    try:
        dispatch_id, event_id = accepted(old)
        code, out = _run(oms, old, "worker", "deliver", "--event-id", event_id)
        assert code == 0, out
        wait_served(old, dispatch_id, timeout=TIMEOUT)  # its supervisor serves the agent's doors
        beat = client.get(etcd_prefix + f"hosts/{HOST}")
        if beat is not None:
            client.revoke(beat.lease)  # the host is stopped: only its pane runs on
        init(str(new.state), str(old.repo))
        pin_cluster(old.repo, new.state)
        args = ("host", "release-name", HOST, "--bound-to", _key_id(old.state)[:16], "--json")
        code, out = _run(oms, new, *args)
        assert code == 0, out
        with Workspace.open(str(new.state), str(new.repo), etcd=True) as taking:
            assert taking.host() == HOST  # the new state root holds the name: generation 1
        before = _ledgered(client, etcd_prefix)
        (_home(old.state) / "go").write_text("go\n")  # the agent runs whole now
        eventually(
            lambda: (
                "record_dispatch_result" in _logged(old.state)
                or "unexpected answer" in _logged(old.state)
            ),
            timeout=TIMEOUT,
            what="the agent's hooks and result asked of its broker",
        )
        logged = _logged(old.state)
        assert "dispatch result-received" not in logged, logged
        assert _ledgered(client, etcd_prefix) == before, logged  # nothing of its pane written
        with old.workspace() as ws:
            dispatch = ws.store.records("dispatch").read(dispatch_id)
        assert dispatch.state != "result-received", dispatch.state
        said = (old.state / "panes" / f"{dispatch_id}.log").read_text()
        assert f"host name {HOST} was released (`oms host release-name`)" in said, said
        assert "Traceback" not in said, said
        for where in (old, new):  # each names only the other's key, which it did not pin
            code, out = _run(oms, where, "audit", "verify")
            bad = [line for line in out.splitlines() if line.startswith("bad: ")]
            assert all("which no host pinned in your etcd settings holds" in b for b in bad), out
            assert "Traceback" not in out, out
    finally:
        client.close()
        for where in (old, new):
            subprocess.run(
                ["tmux", "-S", str(where.state / "tmux.sock"), "kill-server"],
                capture_output=True,
                check=False,
            )


def test_a_released_state_root_come_back_writes_nothing_under_a_taken_name(
    deliverable: Chain,
    oms: OmsCommand,
    etcd_cluster: Cluster,
    etcd_prefix: str,
) -> None:
    """The old state root comes back after its name was released and taken: a command of it that
    never asks its host (`oms ticket add`) is not refused (`host-name-taken`) as `oms conductor
    tick` is — its entry lands, signed by the old key, beside the name's new holder."""
    old = deliverable
    _use_etcd(old, etcd_cluster.endpoints, etcd_prefix)
    code, out = _run(oms, old, "conductor", "tick", "--json")
    assert code == 0, out
    new = dataclasses.replace(old, state=old.base / "state-new")
    init(str(new.state), str(old.repo))
    pin_cluster(old.repo, new.state)
    client = Etcd(etcd_cluster.endpoints)
    try:
        beat = client.get(etcd_prefix + f"hosts/{HOST}")
        assert beat is not None
        client.revoke(beat.lease)  # the old host is stopped
        args = ("host", "release-name", HOST, "--bound-to", _key_id(old.state)[:16], "--json")
        code, out = _run(oms, new, *args)
        assert code == 0, out
        code, out = _run(oms, new, "conductor", "tick", "--json")
        assert code == 0, out  # the name is the new state root's
        code, out = _run(oms, old, "conductor", "tick", "--json")
        assert code == 1, out  # it asked its host: refused
        assert "host-name-taken" in out, out
        before = _ledgered(client, etcd_prefix)
        code, out = _run(oms, old, "ticket", "add", "--title", "Come back", "--no-body", "--json")
        assert "Traceback" not in out, out
        assert code == 1, out  # the entry landed (exit 0)
        assert "host-name-taken" in out, out
        assert _ledgered(client, etcd_prefix) == before
    finally:
        client.close()
        for where in (old, new):
            subprocess.run(
                ["tmux", "-S", str(where.state / "tmux.sock"), "kill-server"],
                capture_output=True,
                check=False,
            )
