"""The authority chain through the real `oms` command (source, and frozen in CI)."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from tests.chain import Chain
from tests.helpers import OmsCommand

pytestmark = pytest.mark.cli


def _run(
    oms: OmsCommand,
    chain: Chain,
    *args: str,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    return oms.run(
        *args,
        "--state-root",
        str(chain.state),
        "--config-root",
        str(chain.repo),
        stdin=stdin,
        env=env,
    )


def _ok(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert result.returncode == 0, result.stdout + result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    assert data["ok"] is True
    return data


def test_the_chain_tour(oms: OmsCommand, chain: Chain) -> None:
    added = _ok(
        _run(
            oms,
            chain,
            "ticket",
            "add",
            "--title",
            "Fix the flaky test",
            "--json",
            stdin=b"It fails one run in ten.\n",
        )
    )
    ticket = added["ticket"]["id"]
    leased = _ok(_run(oms, chain, "ticket", "lease", ticket, "--worker", "w1", "--json"))
    token = str(leased["lease_token"])
    assert len(token) == 64
    renewed = _ok(
        _run(oms, chain, "ticket", "renew", ticket, "--json", env={"OMS_LEASE_TOKEN": token})
    )
    assert renewed["ticket"]["lease_expires_at"] >= leased["ticket"]["lease_expires_at"]
    wt = _ok(_run(oms, chain, "worktree", "create", ticket, "--json"))
    assert wt["created"] is True
    dispatch = _ok(_run(oms, chain, "dispatch", "propose", ticket, "--json"))["dispatch"]["id"]
    reviewed = _ok(_run(oms, chain, "dispatch", "review", dispatch, "--json"))
    assert reviewed["dispatch"]["advisor_verdict"] == "approve"
    accepted = _ok(_run(oms, chain, "dispatch", "accept", dispatch, "--json"))
    assert accepted["dispatch"]["state"] == "accepted"
    assert "lease_token" not in accepted["dispatch"]
    status = _ok(_run(oms, chain, "status", "--json"))
    assert [w["state"] for w in status["workers"]] == ["idle"]
    text = _run(oms, chain, "status")
    assert "dispatches (1)" in text.stdout
    assert dispatch in text.stdout
    assert oms.run("store", "verify", "--state-root", str(chain.state)).returncode == 0
    shown = _run(oms, chain, "ticket", "show", ticket)
    assert "It fails one run in ten." in shown.stdout
    assert token not in shown.stdout + _run(oms, chain, "ticket", "list").stdout


def test_policy_show_and_untracked_policy(oms: OmsCommand, chain: Chain) -> None:
    shown = _ok(oms.run("policy", "show", "--config-root", str(chain.repo), "--json"))
    assert len(str(shown["digest"])) == 64
    (chain.repo / ".oms" / "role-policy.json").write_text('{"format": "oms-role-policy-v1"}\n')
    refused = oms.run("policy", "show", "--config-root", str(chain.repo))
    assert refused.returncode == 1
    assert "not tracked: it is edited in the working tree" in refused.stderr
    assert "hint: commit .oms/role-policy.json" in refused.stderr


def test_github_import_and_live_authorization_needs_a_person(oms: OmsCommand, chain: Chain) -> None:
    issue = json.dumps(
        {"number": 7, "title": "Docs typo", "body": "teh", "url": "https://github.com/o/r/issues/7"}
    )
    imported = _ok(_run(oms, chain, "ticket", "import", "-", "--json", stdin=issue.encode()))
    assert imported["created"] is True
    no_person = _run(oms, chain, "live", "authorize", "--repository", "o/r")
    assert no_person.returncode == 2
    assert "--person" in no_person.stderr
    authorized = _ok(
        _run(oms, chain, "live", "authorize", "--repository", "o/r", "--person", "Alice", "--json")
    )
    assert authorized["authorization"]["confirmed_by"] == "flag"
    listed = _ok(_run(oms, chain, "live", "status", "--json"))
    assert listed["contacts"] == 0
    _ok(_run(oms, chain, "live", "revoke", "--repository", "o/r", "--json"))
    again = _run(oms, chain, "live", "revoke", "--repository", "o/r")
    assert again.returncode == 1
    assert "no live authorisation" in again.stderr


def test_chain_errors_are_one_line(oms: OmsCommand, chain: Chain) -> None:
    _ok(_run(oms, chain, "ticket", "add", "--title", "t", "--no-body", "--json"))
    for args in (
        ["dispatch", "propose", "tkt-1"],
        ["ticket", "renew", "tkt-1", "--token", "f" * 64],
        ["ticket", "show", "tkt-9"],
        ["dispatch", "accept", "dsp-nope"],
        ["ticket", "import", "/nonexistent"],
    ):
        result = _run(oms, chain, *args)
        assert result.returncode == 1, args
        assert (
            len(result.stderr.strip().splitlines()) <= 2
        )  # the error line and, optionally, its hint
        assert result.stderr.startswith("oms: error:")
        assert "Traceback" not in result.stderr
