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
from hypothesis import given, settings
from hypothesis import strategies as st

from oms.adapters.providers import claude, codex
from oms.adapters.providers.base import LaunchPlan, LaunchRequest
from oms.errors import UnsafeFileError
from oms.fsio import Root
from oms.services.chain.authority import check_dispatch
from oms.services.delivery.homes import materialise, written_by_another_build
from oms.services.delivery.launch import prepare
from oms.services.delivery.service import Delivery
from tests.chain import Chain, sandbox_dir
from tests.security.containment.test_agent_home import _codex_dispatch

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


_NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789._-", min_size=1, max_size=12)
_PATHS = st.builds(
    lambda dirs, tail: "/" + "".join(d + "/" for d in dirs) + "oms" + tail,
    st.lists(_NAME, max_size=4),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", max_size=8),
)
_PRINTABLE = st.text(alphabet=[chr(c) for c in range(0x20, 0x7F)], max_size=40)


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(_PRINTABLE, min_size=2, max_size=5),
    old=_PATHS,
    new=_PATHS,
    where=st.integers(min_value=0),
    char=st.characters(min_codepoint=0x20, max_codepoint=0x7E),
)
def test_only_another_oms_path_in_every_place_counts_as_another_build(
    parts: list[str], old: str, new: str, where: int, char: str
) -> None:
    """Property: a file is "another build's" exactly when it is this build's with one other oms
    path in every place the path stands; any other byte changed, it is not."""
    wanted = new.join(parts).encode()
    if new in "".join(parts):
        return  # (the path also inside the text around it: a file no plan makes)
    assert written_by_another_build(old.join(parts).encode(), wanted, new)
    around = "".join(parts)
    if not around:
        return
    i = where % len(around)
    if around[i] == char:
        return
    changed = list(parts)
    for n, part in enumerate(parts):  # change one character outside every path
        if i < len(part):
            changed[n] = part[:i] + char + part[i + 1 :]
            break
        i -= len(part)
    assert not written_by_another_build(old.join(changed).encode(), wanted, new)


def test_a_launch_prepared_again_under_another_build_proceeds(
    deliverable: Chain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through `launch.prepare` — every check a launch and `oms worker resume` make before the
    pane, on a real chain, bubblewrap and cgroup — first under one oms, then under another."""
    chain, dispatch_id, _ = _codex_dispatch(deliverable, tmp_path, monkeypatch)
    builds = []
    for name in ("build-a", "build-b"):
        made = tmp_path / name / "oms"
        made.parent.mkdir()
        made.write_text("#!/bin/sh\n")
        made.chmod(0o755)
        builds.append(str(made))
    for executable in builds:
        with chain.workspace() as ws:
            d = Delivery.open(ws, env={**os.environ, "OMS_EXECUTABLE": executable})
            dispatch = ws.store.records("dispatch").read(dispatch_id)
            plan, _ = prepare(d, dispatch, check_dispatch(ws, dispatch))
            assert plan.home is not None
            hooks = (sandbox_dir(chain.state) / plan.home / "hooks.json").read_text()
            assert executable in hooks
