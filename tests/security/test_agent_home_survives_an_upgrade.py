"""A worker relaunched on its own session after oms was installed again (docs/adr/0033: each
build has its own directory, so the oms path its hooks and MCP config name changes) gets its
agent home's read-only files from the oms that relaunches it; a read-only file changed in any
other way is still refused (SECURITY.md, agent homes are re-verified).

Before, the relaunch (`oms worker resume`, a redelivery after a kill) refused every Codex and
Claude Code worker started by the previous build: "hooks.json: changed since oms wrote it;
refusing to launch" — the file oms itself had written, naming the build before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oms.adapters.providers import claude, codex
from oms.adapters.providers.base import LaunchPlan, LaunchRequest
from oms.errors import UnsafeFileError
from oms.fsio import Root
from oms.services.delivery.homes import materialise

OLD = "/home/u/.local/lib/oms/0123456789abcdef/oms"  # the build the worker started under
NEW = "/home/u/.local/lib/oms/fedcba9876543210/oms"  # the build installed since
READ_ONLY = {"codex": ("hooks.json", "config.toml"), "claude": ("settings.json", "mcp.json")}


def _plan(provider: str, executable: str, tmp_path: Path) -> LaunchPlan:
    auth = tmp_path / "auth.json"
    auth.write_text('{"auth_mode":"apikey","OPENAI_API_KEY":"sk-test"}')
    req = LaunchRequest(
        dispatch_id="dsp-1",
        session_id="0b5e2f4c-94b4-4b0e-8d0c-4a6a1a2b3c4d",
        role_id="oms.executor",
        model="sonnet" if provider == "claude" else "gpt-5-codex",
        worktree=str(tmp_path / "worktree"),
        executable=executable,
        instructions="Work the dispatch.",
        codex_auth=str(auth) if provider == "codex" else None,
        tools=("Bash", "Read"),
    )
    return claude.plan(req) if provider == "claude" else codex.plan(req)


@pytest.fixture
def sandboxes(tmp_path: Path) -> Path:
    where = tmp_path / "sandboxes"
    where.mkdir(mode=0o700)
    os.chmod(where, 0o700)
    return where


@pytest.mark.parametrize("provider", sorted(READ_ONLY))
def test_a_relaunch_under_a_new_build_writes_the_new_builds_path(
    provider: str, tmp_path: Path, sandboxes: Path
) -> None:
    before, after = _plan(provider, OLD, tmp_path), _plan(provider, NEW, tmp_path)
    assert before.home is not None
    with Root.open(str(sandboxes)) as root:
        materialise(root, before, OLD)
        materialise(root, after, NEW)  # the relaunch, under the build installed since
    for name in READ_ONLY[provider]:
        text = (sandboxes / before.home / name).read_text()
        assert OLD not in text
    hooks = READ_ONLY[provider][0]
    assert NEW in (sandboxes / before.home / hooks).read_text()


@pytest.mark.parametrize("provider", sorted(READ_ONLY))
def test_a_read_only_file_changed_otherwise_is_still_refused(
    provider: str, tmp_path: Path, sandboxes: Path
) -> None:
    """The same file with a word changed, or naming two oms paths, is no file an oms wrote. (One
    naming another path everywhere is replaced by this build's: what it named never runs.)"""
    before, after = _plan(provider, OLD, tmp_path), _plan(provider, NEW, tmp_path)
    assert before.home is not None
    hooks = sandboxes / before.home / READ_ONLY[provider][0]
    with Root.open(str(sandboxes)) as root:
        materialise(root, before, OLD)
        original = hooks.read_text()
        for changed in (
            original.replace(OLD, NEW, 1),  # one place names the new build, another the old
            original.replace(OLD, "/tmp/evil/sh", 1),
            original.replace("--event", "--evnt", 1),
            original.replace("hook", "hook;curl evil", 1),
        ):
            assert changed != original
            hooks.unlink()
            hooks.write_text(changed)
            hooks.chmod(0o600)
            with pytest.raises(UnsafeFileError, match="changed since oms wrote it"):
                materialise(root, after, NEW)
            assert hooks.read_text() == changed
