"""`[notify]` on an etcd store (ADR 0036; ADR 0043, amendment `rest`), on the real cluster: a
tick's notify phase claims a blocked ticket's notice on the cluster and starts `oms conductor
notify` detached, which reads the claim and the notice where the tick wrote them and runs the
person's command once. Before, the child was refused as it opened (the store named etcd) and the
command never ran: the notify log held the refusal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.chain import Chain
from tests.etcd_cluster import Cluster
from tests.helpers import OmsCommand, eventually
from tests.integration.etcd.test_commands_cli import _oms, _use_etcd


@pytest.mark.cli
def test_a_blocked_ticket_on_the_cluster_is_notified_once(
    chain: Chain,
    oms: OmsCommand,
    etcd_cluster: Cluster,
    etcd_prefix: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = tmp_path / "config"
    (home / "oms").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    heard = tmp_path / "heard.jsonl"
    record = tmp_path / "record.sh"
    record.write_text('#!/bin/sh\ncat >> "$1"\n')
    record.chmod(0o755)
    commands = json.dumps([[str(record), str(heard)]])
    (home / "oms" / "notify.toml").write_text(f"[notify]\ncommands = {commands}\n")
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix, home)
    code, out = _oms(oms, chain, "ticket", "add", "--title", "Fix it", "--no-body")
    assert code == 0, out
    code, out = _oms(oms, chain, "ticket", "block", "tkt-1", "--reason", "waiting for a key")
    assert code == 0, out
    code, out = _oms(oms, chain, "conductor", "tick", "--json")
    assert code == 0, out
    [phase] = [p for p in json.loads(out)["phases"] if p["phase"] == "notify"]
    assert len(phase["done"]) == 1, phase
    log = chain.state / "notify" / "notify.log"

    def logged() -> list[str] | None:
        lines = log.read_text().splitlines() if log.exists() else []
        return lines or None

    lines = eventually(logged, timeout=60, what=f"a line in {log}")
    [line] = lines
    assert line.endswith(": ok"), line
    [doc] = [json.loads(line) for line in heard.read_text().splitlines()]
    assert (doc["kind"], doc["ticket_id"]) == ("blocked", "tkt-1"), doc
    code, out = _oms(oms, chain, "conductor", "tick", "--json")
    assert code == 0, out
    [phase] = [p for p in json.loads(out)["phases"] if p["phase"] == "notify"]
    assert phase["done"] == [], phase  # once
    assert len(heard.read_text().splitlines()) == 1
