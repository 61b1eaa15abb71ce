"""The generated agent configuration, checked by the real CLIs (no model needed).

What Codex loads from a project is proven, with a control that can fail, in
tests/security/containment/test_codex_config_proven.py. The plans name the private home as the
sandbox shows it (`/oms/home`); here the CLIs read the same files from the host path of the home,
which is where delivery writes them."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from oms.adapters.providers import claude, codex, codex_exec
from oms.adapters.providers.base import CONTINUE, LaunchRequest
from oms.adapters.quoting import QuotingError
from oms.adapters.sandbox import HOME_VIEW
from oms.domain.relay import BRIDGE_TOOLS
from oms.fsio import Root
from oms.services.delivery.homes import materialise
from tests.agents import codex_startup_config
from tests.helpers import SESSION, git


def _request(state: Path, worktree: Path, auth: Path) -> LaunchRequest:
    return LaunchRequest(
        dispatch_id="dsp-1",
        session_id=SESSION,
        role_id="oms.goal-long-executor",
        model="gpt-5-codex",
        worktree=str(worktree),
        executable="/opt/oms/oms",
        instructions="Work the dispatch.",
        codex_auth=str(auth),
        passthrough={"ANTHROPIC_API_KEY": "sk-ant-api03-test-0123456789abcdefXYZ"},
    )


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    state = tmp_path / "state"
    (state / "tmp").mkdir(parents=True, mode=0o700)
    os.chmod(state, 0o700)
    auth = tmp_path / "codex-home" / "auth.json"
    auth.parent.mkdir()
    auth.write_text('{"auth_mode":"apikey","OPENAI_API_KEY":"sk-test"}')
    repo = tmp_path / "repo"
    git("init", "-q", str(repo), cwd=tmp_path)
    git("commit", "-q", "--allow-empty", "-m", "i", cwd=repo)
    worktree = tmp_path / "wt with 'quotes' and $dollar"
    git("worktree", "add", "-q", "-b", "oms/tkt-1", str(worktree), cwd=repo)
    return state, worktree, auth


def test_codex_plan_is_accepted_by_codex_strict_config(setup: tuple[Path, Path, Path]) -> None:
    state, worktree, auth = setup
    req = _request(state, worktree, auth)
    plan = codex.plan(req)
    with Root.open(str(state)) as root:
        materialise(root, plan)
    home = state / codex.home(SESSION)
    result = codex_startup_config(plan.argv[1:], str(home))
    assert result.returncode == 0, result.stdout + result.stderr
    assert '"appServerVersion":"0.171.0"' in result.stdout
    assert "--trust" not in plan.argv
    assert plan.env["CODEX_HOME"] == HOME_VIEW
    assert sorted(p.name for p in home.iterdir()) == ["auth.json", "config.toml", "hooks.json"]
    assert (
        home / "auth.json"
    ).read_bytes() == b""  # a placeholder: the user's file is shown over it, read-only
    assert plan.ro_files == ((str(auth), f"{HOME_VIEW}/auth.json"),)
    assert sorted(f.name for f in plan.files if f.readonly) == ["config.toml", "hooks.json"]
    assert (home.stat().st_mode & 0o777) == 0o700


def test_codex_rejects_a_broken_config_so_the_check_is_real(setup: tuple[Path, Path, Path]) -> None:
    state, worktree, auth = setup
    plan = codex.plan(_request(state, worktree, auth))
    with Root.open(str(state)) as root:
        materialise(root, plan)
    broken = tuple(a.replace("enabled_tools", "enabled_tool") for a in plan.argv[1:])
    result = codex_startup_config(broken, str(state / codex.home(SESSION)))
    assert result.returncode != 0
    assert "enabled_tool" in result.stdout + result.stderr


def test_codex_exec_plan_is_accepted_by_codex_strict_config(setup: tuple[Path, Path, Path]) -> None:
    """`codex exec`'s flags (those between `exec` and `--`, with `-a never` before them) and the
    same home, read by the offline validator; a flag `codex exec` would not take fails it."""
    state, worktree, auth = setup
    plan = codex_exec.plan(_request(state, worktree, auth))
    with Root.open(str(state)) as root:
        materialise(root, plan)
    home = str(state / codex.home(SESSION))
    assert plan.argv[:4] == ("codex", "-a", "never", "exec")
    assert plan.argv[-2] == "--"
    flags = (*plan.argv[1:3], *plan.argv[4:-2])
    result = codex_startup_config(flags, home)
    assert result.returncode == 0, result.stdout + result.stderr
    assert '"appServerVersion":"0.171.0"' in result.stdout
    broken = tuple(a.replace("enabled_tools", "enabled_tool") for a in flags)
    assert codex_startup_config(broken, home).returncode != 0
    helped = subprocess.run(
        ["codex", "exec", "--help"], capture_output=True, text=True, timeout=60, check=False
    ).stdout
    assert all(f in helped for f in plan.argv[4:-2] if f.startswith("--"))  # all `codex exec`'s
    assert "--ask-for-approval" not in helped  # (why `-a never` comes before `exec`)


def test_claude_plan_files_and_flags(setup: tuple[Path, Path, Path]) -> None:
    state, worktree, auth = setup
    plan = claude.plan(_request(state, worktree, auth))
    with Root.open(str(state)) as root:
        materialise(root, plan)
    home = state / claude.home(SESSION)
    assert plan.env["CLAUDE_CONFIG_DIR"] == HOME_VIEW
    settings = json.loads((home / "settings.json").read_text())
    assert sorted(settings["hooks"]) == ["PreToolUse", "SessionStart", "Stop", "UserPromptSubmit"]
    mcp = json.loads((home / "mcp.json").read_text())
    assert list(mcp["mcpServers"]) == ["oms_worker"]
    first_run = json.loads((home / ".claude.json").read_text())
    assert first_run["hasCompletedOnboarding"] is True
    assert first_run["customApiKeyResponses"]["approved"] == ["-0123456789abcdefXYZ"[-20:]]
    assert first_run["projects"] == {str(worktree): {"hasTrustDialogAccepted": True}}
    argv = plan.argv
    assert f"--settings={HOME_VIEW}/settings.json" in argv
    assert f"--mcp-config={HOME_VIEW}/mcp.json" in argv
    assert sorted(f.name for f in plan.files if f.readonly) == ["mcp.json", "settings.json"]
    assert "--strict-mcp-config" in argv
    assert argv[argv.index("--setting-sources") + 1] == ""
    assert argv[argv.index("--session-id") + 1] == SESSION
    assert argv[argv.index("--permission-mode") + 1] == "dontAsk"
    assert f"--allowedTools={','.join('mcp__oms_worker__' + t for t in BRIDGE_TOOLS)}" in argv
    assert all((p.stat().st_mode & 0o777) == 0o600 for p in home.iterdir())


@pytest.mark.parametrize("bad", ["/tmp/wt\nx", "/tmp/wt\tx", "/tmp/wt-\u00e9", "/tmp/wt\x7f"])
def test_control_or_non_ascii_arguments_are_refused(
    setup: tuple[Path, Path, Path], bad: str
) -> None:
    state, _, auth = setup
    req = _request(state, Path(bad), auth)
    with pytest.raises(QuotingError):
        codex.plan(req)
    with pytest.raises(QuotingError):
        claude.plan(req)


CODEX_THREAD = "019a0000-1111-7222-8333-444455556666"


def test_a_relaunch_continues_the_agents_own_session(setup: tuple[Path, Path, Path]) -> None:
    """`oms worker resume` of a dead pane: the same flags, home and files; the CLI told to continue
    its own session (`codex resume <flags> <id>`, `claude … --resume <id>`, verified end to end in
    test_native_resume.py); Claude Code is told to continue, Codex continues its goal by itself."""
    state, worktree, auth = setup
    req = _request(state, worktree, auth)
    first, again = codex.plan(req), codex.plan(replace(req, resume=CODEX_THREAD))
    assert again.argv == ("codex", "resume", *first.argv[1:], CODEX_THREAD)
    assert (again.files, again.env, again.home, again.prompt) == (
        first.files,
        first.env,
        first.home,
        None,
    )
    first, again = claude.plan(req), claude.plan(replace(req, resume=SESSION))
    assert "--session-id" not in again.argv
    assert again.argv[again.argv.index("--resume") + 1] == SESSION
    assert [a for a in again.argv if a not in ("--resume",)] == [
        a for a in first.argv if a != "--session-id"
    ]
    assert (again.files, again.env, again.home, again.prompt) == (
        first.files,
        first.env,
        first.home,
        CONTINUE,
    )
    for provider in (codex, claude):
        with pytest.raises(QuotingError):
            provider.plan(replace(req, resume="id\nrm -rf /"))
