"""Mistakes a newcomer made on purpose while following README and docs/guide.md on a fresh HOME
(docs/newcomer-trials.md, trial 2): each error is one line whose hint says what to do next."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.chain import Chain
from tests.helpers import OmsCommand

pytestmark = pytest.mark.cli


def _run(oms: OmsCommand, chain: Chain, *args: str) -> subprocess.CompletedProcess[str]:
    return oms.run(*args, "--state-root", str(chain.state), "--config-root", str(chain.repo))


def _error(result: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    """(the error line, its hint) of a failed run; never a traceback."""
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert lines[0].startswith("oms: error: "), result.stderr
    hints = [line.removeprefix("  hint: ") for line in lines[1:]]
    assert len(hints) == 1, result.stderr
    return lines[0], hints[0]


def test_leasing_a_leased_ticket_again_says_whose_it_is_and_what_to_do(
    oms: OmsCommand, chain: Chain
) -> None:
    assert _run(oms, chain, "ticket", "add", "--title", "T", "--body", "B").returncode == 0
    assert _run(oms, chain, "ticket", "lease", "tkt-1", "--worker", "w1").returncode == 0
    line, hint = _error(_run(oms, chain, "ticket", "lease", "tkt-1", "--worker", "w1"))
    assert "tkt-1" in line
    assert "leased" in line
    assert "w1" in hint
    assert "oms ticket expire" in hint


def test_an_id_in_capitals_is_told_its_lower_case_spelling(oms: OmsCommand, chain: Chain) -> None:
    assert _run(oms, chain, "ticket", "add", "--title", "T", "--body", "B").returncode == 0
    _line, hint = _error(_run(oms, chain, "ticket", "show", "TKT-1"))
    assert "tkt-1" in hint
    assert _run(oms, chain, "ticket", "show", "tkt-1").returncode == 0  # the hint works


def test_proposing_for_an_open_ticket_names_the_lease_command(
    oms: OmsCommand, chain: Chain
) -> None:
    assert _run(oms, chain, "ticket", "add", "--title", "T", "--body", "B").returncode == 0
    _line, hint = _error(_run(oms, chain, "dispatch", "propose", "tkt-1"))
    assert "oms ticket lease tkt-1 --worker" in hint


def _proposable(oms: OmsCommand, chain: Chain) -> None:
    assert _run(oms, chain, "ticket", "add", "--title", "T", "--body", "B").returncode == 0
    assert _run(oms, chain, "ticket", "lease", "tkt-1", "--worker", "w1").returncode == 0
    assert _run(oms, chain, "worktree", "create", "tkt-1").returncode == 0


def test_proposing_twice_is_the_same_dispatch(oms: OmsCommand, chain: Chain) -> None:
    _proposable(oms, chain)
    first = _run(oms, chain, "dispatch", "propose", "tkt-1", "--json")
    again = _run(oms, chain, "dispatch", "propose", "tkt-1", "--json")
    assert first.returncode == 0, first.stderr
    assert again.returncode == 0, again.stderr
    assert json.loads(first.stdout)["created"] is True
    assert json.loads(again.stdout)["created"] is False
    assert json.loads(again.stdout)["dispatch"]["id"] == json.loads(first.stdout)["dispatch"]["id"]


def test_proposing_another_intent_for_the_attempt_says_how(oms: OmsCommand, chain: Chain) -> None:
    _proposable(oms, chain)
    first = _run(oms, chain, "dispatch", "propose", "tkt-1", "--json")
    assert first.returncode == 0, first.stderr
    dispatch = json.loads(first.stdout)["dispatch"]["id"]
    chain.edit_config(lambda s: s.replace('model = "script"', 'model = "script-2"'), commit=True)
    line, hint = _error(_run(oms, chain, "dispatch", "propose", "tkt-1"))
    assert dispatch in line
    assert "oms dispatch propose tkt-1 ... --replace" in hint
    replaced = _run(oms, chain, "dispatch", "propose", "tkt-1", "--replace", "--json")  # the hint
    assert replaced.returncode == 0, replaced.stderr
    assert json.loads(replaced.stdout)["dispatch"]["id"] != dispatch
    shown = _run(oms, chain, "dispatch", "show", dispatch, "--json")
    assert json.loads(shown.stdout)["dispatch"]["state"] == "cancelled"


def test_an_author_without_an_address_is_shown_the_line_to_run(
    oms: OmsCommand, tmp_path: Path
) -> None:
    repo = tmp_path / "fresh"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    state = str(tmp_path / "state")
    bad = oms.run("init", "--commit", "--author", "nobody", "--state-root", state, cwd=repo)
    _line, hint = _error(bad)
    assert hint.startswith('oms init --commit --author "')
