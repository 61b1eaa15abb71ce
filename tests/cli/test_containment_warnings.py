"""`oms status` and `oms doctor` warn of every containment a role gives up (ADR 0026): a role that
says `network = "host"` or `credential = "raw"`, and a running worker whose approved dispatch
carries one; with no such key they say nothing of it."""

from __future__ import annotations

import json

from oms.services.delivery.service import Delivery
from tests.chain import Chain, accepted
from tests.helpers import OmsCommand


def _roots(chain: Chain) -> list[str]:
    return ["--state-root", str(chain.state), "--config-root", str(chain.repo)]


def test_status_and_doctor_say_nothing_of_containment_by_default(
    oms: OmsCommand,
    chain: Chain,
) -> None:
    status = oms.run("status", *_roots(chain))
    assert status.returncode == 0, status.stderr
    assert "WARN" not in status.stdout
    assert json.loads(oms.run("status", *_roots(chain), "--json").stdout)["warnings"] == []
    checks = json.loads(oms.run("doctor", *_roots(chain), "--json").stdout)["checks"]
    assert not [c for c in checks if c["check"].startswith("containment ")]


def test_a_roles_opt_out_and_the_worker_running_with_it_are_warnings(
    oms: OmsCommand,
    deliverable: Chain,
) -> None:
    host = 'argv = ["sleep", "600"]\nnetwork = "host"'
    deliverable.edit_config(lambda s: s.replace('argv = ["true"]', host), commit=True)
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        outcome = Delivery.open(ws).deliver(event_id)["outcome"]
    assert isinstance(outcome, dict)
    assert outcome["status"] == "created", outcome
    try:
        status = oms.run("status", *_roots(deliverable))
        assert status.returncode == 0, status.stderr
        lines = [line for line in status.stdout.splitlines() if line.startswith("WARN ")]
        role = 'WARN role oms.command-executor: network = "host": its workers are not contained'
        worker = f"WARN worker {dispatch_id}: shares the host's network (every TCP service on its"
        assert len(lines) == 2, status.stdout
        assert lines[0].startswith(role), lines
        assert lines[1].startswith(worker), lines
        doctor = json.loads(oms.run("doctor", *_roots(deliverable), "--json").stdout)["checks"]
        (check,) = [c for c in doctor if c["check"] == "containment oms.command-executor"]
        assert check["ok"] is True  # a warning: it does not fail doctor
        assert check["warning"] is True
        assert 'network = "host"' in check["detail"]
    finally:
        with deliverable.workspace() as ws:
            Delivery.open(ws).stop(dispatch_id, "test over")
    status = oms.run("status", *_roots(deliverable))
    ended = [line for line in status.stdout.splitlines() if line.startswith("WARN worker")]
    assert ended == []  # it ended


def test_a_probe_given_the_hosts_network_is_a_warning(oms: OmsCommand, chain: Chain) -> None:
    probe = (
        '\n[providers.claude-main]\nfamily = "anthropic"\nquota_probe = ["true"]\n'
        'quota_probe_network = "host"\n'
    )
    chain.edit_config(lambda s: s + probe, commit=True)
    status = oms.run("status", *_roots(chain), "--json")
    assert status.returncode == 0, status.stderr
    (warning,) = json.loads(status.stdout)["warnings"]
    assert warning.startswith("provider claude-main: its quota probe shares the host's network")
    doctor = json.loads(oms.run("doctor", *_roots(chain), "--json").stdout)["checks"]
    (check,) = [c for c in doctor if c["check"] == "containment claude-main probe"]
    assert (check["ok"], check["warning"]) == (True, True)
    assert "quota_probe_network" in check["fix"]
