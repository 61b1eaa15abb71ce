"""Issue 10, case 7: what the real Codex CLI loads, proven where it can be.

`codex app-server`'s `hooks/list` is the probe. It is only evidence if it can fail: in a plain
repository that oms's configuration trusts (as it trusts every worktree it launches Codex in), Codex
lists the project's planted `.codex/hooks.json` next to oms's own — and oms passes
`--dangerously-bypass-hook-trust`, so those would run. For a git *worktree*, Codex 0.171 lists no
hooks from the worktree's `.codex/` (trusted or not); when the worktree has a `.codex/` it reads the
*main checkout's* `.codex/` instead. Neither is oms's guarantee. What stops a worktree's `.codex/`
is oms's: delivery refuses a worktree that carries `.codex/`, `.claude/` or `.mcp.json`
(`tests/integration/test_delivery.py`, "smuggled .codex"), and inside the sandbox those names are
empty read-only placeholders and the main checkout is not shown
(`tests/security/containment/test_escapes_from_a_worker_sandbox.py::test_agent_config_placeholders_cannot_be_filled`)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from oms.adapters.providers import codex
from oms.adapters.providers.base import LaunchPlan, LaunchRequest
from oms.fsio import Root
from oms.services.delivery.homes import materialise
from tests.agents import codex_app_server
from tests.helpers import SESSION, git

PLANTED = {
    "hooks": {
        "SessionStart": [
            {"hooks": [{"type": "command", "command": "touch /tmp/planted", "timeout": 5}]}
        ]
    }
}


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    state = tmp_path / "state"
    (state / "tmp").mkdir(parents=True, mode=0o700)
    os.chmod(state, 0o700)
    auth = tmp_path / "auth.json"
    auth.write_text('{"auth_mode":"apikey","OPENAI_API_KEY":"sk-test"}')
    repo = tmp_path / "repo"
    git("init", "-q", str(repo), cwd=tmp_path)
    git("commit", "-q", "--allow-empty", "-m", "i", cwd=repo)
    worktree = tmp_path / "worktree"
    git("worktree", "add", "-q", "-b", "oms/tkt-1", str(worktree), cwd=repo)
    return {"state": state, "auth": auth, "repo": repo, "worktree": worktree}


def _plant(directory: Path) -> None:
    (directory / ".codex").mkdir()
    (directory / ".codex" / "hooks.json").write_text(json.dumps(PLANTED))


def _plan(places: dict[str, Path], cwd: Path) -> tuple[LaunchPlan, str]:
    req = LaunchRequest(
        dispatch_id="dsp-1",
        session_id=SESSION,
        role_id="oms.goal-long-executor",
        model="gpt-5-codex",
        worktree=str(cwd),
        executable="/opt/oms/oms",
        instructions="Work the dispatch.",
        codex_auth=str(places["auth"]),
    )
    plan = codex.plan(req)
    with Root.open(str(places["state"])) as root:
        materialise(root, plan)
    return plan, str(places["state"] / codex.home(SESSION))


def _listed(places: dict[str, Path], cwd: Path) -> list[dict[str, Any]]:
    """The hooks the real Codex lists for `cwd`, launched with the configuration oms writes for
    it."""
    plan, home = _plan(places, cwd)
    got = codex_app_server(
        plan.argv[1:],
        home,
        str(cwd),
        [{"id": 2, "method": "hooks/list", "params": {"cwds": [str(cwd)]}}],
    )
    entries = got[2]["result"]["data"]
    assert [e["errors"] for e in entries] == [[]]
    hooks: list[dict[str, Any]] = [h for e in entries for h in e["hooks"]]
    assert {h["sourcePath"] for h in hooks} >= {home + "/hooks.json"}  # oms's own are always there
    return [h for h in hooks if h["sourcePath"] != home + "/hooks.json"]


def test_the_probe_sees_project_hooks_in_a_plain_repository(places: dict[str, Path]) -> None:
    """The control: without it, an empty listing below would prove nothing."""
    _plant(places["repo"])
    planted = _listed(places, places["repo"])
    assert [(h["eventName"], h["command"], h["sourcePath"]) for h in planted] == [
        ("sessionStart", "touch /tmp/planted", str(places["repo"] / ".codex" / "hooks.json"))
    ]


def test_a_worktrees_own_codex_hooks_are_not_listed(places: dict[str, Path]) -> None:
    _plant(places["worktree"])
    assert _listed(places, places["worktree"]) == []


def test_for_a_worktree_codex_reads_the_main_checkouts_codex_dir(places: dict[str, Path]) -> None:
    """Why the sandbox must not show the main checkout: with a `.codex/` in the worktree (as the
    sandbox's placeholder is), Codex lists the main checkout's hooks (it lists none when the
    worktree has none)."""
    _plant(places["repo"])
    assert _listed(places, places["worktree"]) == []
    (places["worktree"] / ".codex").mkdir()
    listed = _listed(places, places["worktree"])
    assert [h["sourcePath"] for h in listed] == [str(places["repo"] / ".codex" / "hooks.json")]
