"""Hosts at the command line (ADR 0043, amendment `hosts`): `oms status` shows each worker's host
and `host unreachable` for a host that never beat (text and `--json`, against its schema); a bad
host name is one line and exit 1, never a traceback; `oms store verify` reads the heartbeats and
names a foreign file among them."""

from __future__ import annotations

import json
import os
from pathlib import Path

from oms.canonical import JsonObject, stable_id
from oms.domain import hosts as host_rules
from oms.domain import workers as worker_machine
from oms.services.workspace import SYSTEM_ACTOR
from oms.store import hosts as store_hosts
from oms.store.payloads import as_json
from tests.chain import Chain
from tests.cli.test_json_shapes import problems
from tests.helpers import OmsCommand

SESSION = "11111111-2222-4333-8444-555555555555"


def _worker(chain: Chain, n: int, host: str | None) -> str:
    """A working, healthy worker record on `host` (None: a record from before hosts)."""
    dispatch_id = f"dsp-{n:032x}"
    with chain.workspace() as ws:
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
            operation_id=stable_id("hosts-cli", n),
            actor=SYSTEM_ACTOR,
            observed_at=ws.now(),
        )
    return dispatch_id


def test_status_shows_each_workers_host_and_one_that_never_beat(
    chain: Chain, oms: OmsCommand
) -> None:
    gone, here, old = (
        _worker(chain, 1, "gone"),
        _worker(chain, 2, "host-a"),
        _worker(chain, 3, None),
    )
    with chain.workspace() as ws:  # host-b beats now: up
        store_hosts.write(ws.store.state.root, host_rules.beat("host-b", ws.now(), os.getpid()))
    where = ("--state-root", str(chain.state))
    env = {"OMS_HOST": "host-a"}
    text = oms.run("status", *where, env=env, cwd=chain.repo)
    assert text.returncode == 0, text.stderr
    assert any(
        line.startswith("WARN host gone unreachable (it never beat)") and gone in line
        for line in text.stdout.splitlines()
    )
    rows = {line.split()[0]: line for line in text.stdout.splitlines() if line.startswith("dsp-")}
    assert rows[gone].endswith("gone (host unreachable)")
    assert rows[here].endswith("host-a")
    assert rows[old].endswith("host-a")  # a record without a host is the reader's
    as_json = oms.run("status", *where, "--json", env=env, cwd=chain.repo)
    doc = json.loads(as_json.stdout)
    assert problems("status", doc) == []
    views = {v["host"]: v for v in doc["hosts"]}
    assert views["gone"]["state"] == "unreachable"
    assert views["gone"]["workers"] == [gone]
    assert views["host-a"] == {
        "host": "host-a",
        "state": "up",
        "this_host": True,
        "beat_at": None,
        "expires_at": None,
        "workers": sorted([here, old]),
    }
    assert views["host-b"]["state"] == "up"
    assert views["host-b"]["workers"] == []
    assert {w["id"]: w.get("host") for w in doc["workers"]} == {
        gone: "gone",
        here: "host-a",
        old: None,
    }


def test_a_bad_host_name_is_one_line_and_exit_1(
    chain: Chain, oms: OmsCommand, tmp_path: Path
) -> None:
    dispatch_id = _worker(chain, 1, "host-b")
    where = ("--state-root", str(chain.state))
    for argv in (("conductor", "tick"), ("worker", "stop", dispatch_id)):
        done = oms.run(*argv, *where, env={"OMS_HOST": "no such/host"}, cwd=chain.repo)
        assert done.returncode == 1, done
        first, *rest = done.stderr.splitlines()
        assert first == "oms: error: OMS_HOST: 'no such/host' is not a host name"
        assert [line for line in rest if not line.startswith("  hint: ")] == []
    settings = tmp_path / "xdg" / "oms"
    settings.mkdir(parents=True)
    (settings / "host.toml").write_text('[host]\nname = "-x"\n')
    settings.chmod(0o700)
    (settings / "host.toml").chmod(0o600)
    done = oms.run(
        "worker", "stop", dispatch_id, *where, "--json",
        env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")}, unset=("OMS_HOST",), cwd=chain.repo,
    )  # fmt: skip
    assert done.returncode == 1
    error = json.loads(done.stdout)
    assert error["error"] == "config"
    assert error["message"].startswith(f"{settings / 'host.toml'}: $.host.name: '-x' does not")


def test_store_verify_reads_the_heartbeats(chain: Chain, oms: OmsCommand) -> None:
    with chain.workspace() as ws:
        store_hosts.write(ws.store.state.root, host_rules.beat("host-b", ws.now(), os.getpid()))
    where = ("--state-root", str(chain.state))
    clean = oms.run("store", "verify", *where, "--json", cwd=chain.repo)
    assert clean.returncode == 0, clean.stdout
    audit = oms.run("audit", "verify", *where, cwd=chain.repo)  # not ledgered, and not missed
    assert audit.returncode == 0, audit.stdout + audit.stderr
    (chain.state / "hosts" / "stray.txt").write_text("x")
    found = oms.run("store", "verify", *where, cwd=chain.repo)
    assert found.returncode == 1
    assert "hosts/stray.txt" in found.stdout + found.stderr


def test_doctor_names_this_host_and_where_it_came_from(chain: Chain, oms: OmsCommand) -> None:
    where = ("--state-root", str(chain.state))
    for value, ok, detail in (
        ("host-a", True, "host-a (from OMS_HOST)"),
        ("a b", False, "OMS_HOST: 'a b' is not a host name"),
    ):
        done = oms.run("doctor", *where, "--json", env={"OMS_HOST": value}, cwd=chain.repo)
        (line,) = [c for c in json.loads(done.stdout)["checks"] if c["check"] == "host"]
        assert (line["ok"], line["detail"]) == (ok, detail)
