"""A host whose state root was lost takes its name back when the person releases it (ADR 0043,
amendment `names2`; SECURITY.md "The authority store on etcd", 23). A host name is bound on the
store to the state key that first acted under it (amendment `hostname`), and before this nothing
released it: a new state root under the lost one's name was refused it for as long as the store
lived. `oms host release-name NAME --bound-to KEY` releases it — only naming the key it is bound
to, never while the host's heartbeat or conductor lock is on the store — and the name's next
command binds it to its own key; the old state root, come back, is then refused it. On the real
3-member cluster, with real git, tmux and the CLI."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import pytest

from oms.adapters.etcd.client import Etcd
from oms.errors import HostNameTakenError
from oms.services.admin.setup import init
from oms.services.chain import tickets
from oms.services.workspace import Workspace
from oms.store import Store
from tests.chain import Chain
from tests.cli.test_json_shapes import problems
from tests.etcd_cluster import Cluster, pin_cluster
from tests.helpers import OmsCommand
from tests.integration.etcd.test_commands_cli import _use_etcd

HOST = "build-1"


def _run(oms: OmsCommand, chain: Chain, *args: str) -> tuple[int, str]:
    where = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    done = oms.run(*args, *where, env={"OMS_HOST": HOST})
    return done.returncode, done.stdout + done.stderr


def _refused(code: int, out: str) -> dict[str, str]:
    assert code == 1, out
    assert "Traceback" not in out, out
    error = json.loads(out.strip().splitlines()[-1])
    return {"code": error["error"], "message": error["message"], "hint": error.get("hint", "")}


def _key_id(state: Path) -> str:
    with Store.open(str(state)) as store:
        return store.state.meta.key_id


def _keys(client: Etcd, prefix: str) -> dict[str, int]:
    return {kv.key: kv.mod_revision for kv in client.range_prefix(prefix)}


def test_a_lost_state_roots_host_name_is_released_by_the_person_and_only_then(
    deliverable: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    old = deliverable
    _use_etcd(old, etcd_cluster.endpoints, etcd_prefix)
    code, out = _run(oms, old, "conductor", "tick", "--json")
    assert code == 0, out  # build-1 is the old state root's; its heartbeat is under its lease
    new = dataclasses.replace(old, state=old.base / "state-new")  # the state root made anew
    init(str(new.state), str(old.repo))
    pin_cluster(old.repo, new.state)
    lost, mine = _key_id(old.state), _key_id(new.state)
    client = Etcd(etcd_cluster.endpoints)
    try:
        error = _refused(*_run(oms, new, "conductor", "tick", "--json"))
        assert error["code"] == "host-name-taken", error
        assert f"state key {lost[:16]}" in error["message"], error
        assert f"`oms host release-name {HOST} --bound-to {lost[:16]}`" in error["hint"], error
        before = _keys(client, etcd_prefix)
        for bound_to, said in (
            (mine[:16], f"is bound to state key {lost[:16]} (got --bound-to {mine[:16]})"),
            ("abc", "--bound-to must be at least 16 hex digits"),
            (lost[:16], "is alive on this store (its heartbeat, under its lease, is there)"),
        ):
            args = ("host", "release-name", HOST, "--bound-to", bound_to, "--json")
            error = _refused(*_run(oms, new, *args))
            assert said in error["message"], error
            assert _keys(client, etcd_prefix) == before  # nothing written
        beat = client.get(etcd_prefix + f"hosts/{HOST}")
        assert beat is not None
        client.revoke(beat.lease)  # the old host is gone: its lease lapses
        code, out = _run(oms, new, "host", "release-name", HOST, "--bound-to", lost[:16], "--json")
        assert code == 0, out
        assert json.loads(out) == {"ok": True, "host": HOST, "generation": 0, "keyid": lost}
        assert problems("host-release-name", json.loads(out)) == []  # its --json schema
        again = _refused(
            *_run(oms, new, "host", "release-name", HOST, "--bound-to", lost[:16], "--json")
        )
        assert "is bound to no state key" in again["message"], again
        code, out = _run(oms, new, "conductor", "tick", "--json")
        assert code == 0, out  # the name is the new state root's now
        bound = client.get(etcd_prefix + f"names/{HOST}/1.json")
        assert bound is not None
        assert json.loads(bound.value)["keyid"] == mine
        error = _refused(*_run(oms, old, "conductor", "tick", "--json"))
        assert error["code"] == "host-name-taken", error  # the old one, come back: refused
        assert f"state key {mine[:16]}" in error["message"], error
        code, out = _run(oms, new, "store", "verify")
        assert "names/" not in out, out  # the release vouches for the lost key's binding
        planted = {
            "format": "oms-host-name-release-v1",
            "host": "build-9",
            "generation": 0,
            "keyid": "ab" * 32,
            "released_by": mine,
            "released_at": "2026-12-04T10:00:00.000Z",
        }
        body = json.dumps(planted, sort_keys=True, separators=(",", ":")).encode()
        client.put(etcd_prefix + "names/build-9/released/0.json", body)
        code, out = _run(oms, new, "store", "verify")
        assert "releases binding 0 of host build-9, which is not there" in out, out
    finally:
        client.close()
        subprocess.run(
            ["tmux", "-S", str(new.state / "tmux.sock"), "kill-server"],
            capture_output=True,
            check=False,
        )


def test_a_command_still_running_under_a_released_name_writes_nothing_more(
    deliverable: Chain,
    oms: OmsCommand,
    etcd_cluster: Cluster,
    etcd_prefix: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The person releases a name whose conductor is stopped while a command of that state root
    still runs under it (a deliverer, a person's `oms worker send`: no heartbeat, no conductor
    lock, so the release is allowed). Its next write is refused in one line naming the release,
    nothing written; the name's new state root ticks under it, its verify naming nothing of the
    names (ADR 0043, amendment `cross5`). Before, the old command's writes went on beside the new
    holder's."""
    old = deliverable
    _use_etcd(old, etcd_cluster.endpoints, etcd_prefix)
    code, out = _run(oms, old, "conductor", "tick", "--json")
    assert code == 0, out
    new = dataclasses.replace(old, state=old.base / "state-new")
    init(str(new.state), str(old.repo))
    pin_cluster(old.repo, new.state)
    client = Etcd(etcd_cluster.endpoints)
    monkeypatch.setenv("OMS_HOST", HOST)
    try:
        beat = client.get(etcd_prefix + f"hosts/{HOST}")
        assert beat is not None
        client.revoke(beat.lease)  # its conductor stopped: the lease lapsed
        with Workspace.open(str(old.state), str(old.repo), etcd=True) as running:
            assert running.host() == HOST  # the command learnt its host: bound, generation 0
            tickets.add(running, "Written before the release", "under build-1")
            args = ("host", "release-name", HOST, "--bound-to", _key_id(old.state)[:16])
            code, out = _run(oms, new, *args, "--json")
            assert code == 0, out
            before = _keys(client, etcd_prefix)
            with pytest.raises(HostNameTakenError) as refused:
                tickets.add(running, "Written after the release", "under build-1")
            assert refused.value.message.startswith(
                f"host name {HOST} was released (`oms host release-name`) while this command "
                "ran under it: "
            ), refused.value.message
            assert "nor will any other write of it be" in refused.value.message
            assert _keys(client, etcd_prefix) == before  # nothing written
        code, out = _run(oms, new, "conductor", "tick", "--json")
        assert code == 0, out  # the name is the new state root's
        code, out = _run(oms, new, "store", "verify")
        assert "names/" not in out, out  # the bindings and the release hold (the old key's
        # entries are named as no pinned host's: the person did not pin the lost state root)
    finally:
        client.close()
        for where in (old, new):
            subprocess.run(
                ["tmux", "-S", str(where.state / "tmux.sock"), "kill-server"],
                capture_output=True,
                check=False,
            )
