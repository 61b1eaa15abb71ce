"""`oms worktree create` runs no repository-configured code (SECURITY.md attack case 25).

Each hostile repository would write a marker file if git ran its configured command. The marker
never appears: oms refuses repositories whose config names a command, and disables hooks and
fsmonitor."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from oms.errors import ConflictError, InvalidInputError, UnsafeRepositoryError
from oms.services.chain import tickets, worktrees
from tests.chain import Chain
from tests.helpers import git


def _marker_script(chain: Chain, name: str) -> tuple[Path, Path]:
    marker = chain.base / f"{name}.marker"
    script = chain.base / f"{name}.sh"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\ncat\n")
    script.chmod(0o755)
    return script, marker


@pytest.mark.parametrize(
    "setting",
    [
        "core.fsmonitor",
        "filter.evil.clean",
        "filter.evil.smudge",
        "filter.evil.process",
        "diff.evil.textconv",
        "core.hooksPath",
        "core.sshCommand",
        "core.pager",
    ],
)
def test_repository_config_that_runs_code_is_refused(chain: Chain, setting: str) -> None:
    script, marker = _marker_script(chain, "cfg")
    (chain.repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    chain.commit("attributes")
    git(
        "config", setting, str(script), cwd=chain.repo
    )  # planted after the commit, as an agent would
    with chain.workspace() as ws:
        ticket = tickets.add(ws, "t", "")
        with pytest.raises(UnsafeRepositoryError, match=setting.split(".", maxsplit=1)[0]):
            worktrees.create(ws, ticket.record_id)
    assert not marker.exists()
    assert not (chain.base / "oms-worktrees" / ticket.record_id).exists()


def test_included_config_is_refused_without_running_it(chain: Chain) -> None:
    script, marker = _marker_script(chain, "inc")
    included = chain.base / "evil.gitconfig"
    included.write_text(f"[core]\n\tfsmonitor = {script}\n")
    git("config", "include.path", str(included), cwd=chain.repo)
    with chain.workspace() as ws:
        ticket = tickets.add(ws, "t", "")
        with pytest.raises(UnsafeRepositoryError, match=r"include\.path"):
            worktrees.create(ws, ticket.record_id)
    assert not marker.exists()


def test_checkout_hooks_never_run(chain: Chain) -> None:
    script, marker = _marker_script(chain, "hook")
    hooks = chain.repo / ".git" / "hooks"
    for name in ("post-checkout", "post-index-change", "reference-transaction"):
        (hooks / name).write_text(script.read_text())
        (hooks / name).chmod(0o755)
    with chain.workspace() as ws:
        ticket = tickets.add(ws, "t", "")
        record, created = worktrees.create(ws, ticket.record_id)
    assert created
    assert not marker.exists()
    assert Path(str(record["worktree_root"])).is_dir()


def test_refusals_for_branch_path_and_base(chain: Chain) -> None:
    with chain.workspace() as ws:
        a = tickets.add(ws, "a", "").record_id
        b = tickets.add(ws, "b", "").record_id
        c = tickets.add(ws, "c", "").record_id
        with pytest.raises(InvalidInputError, match="does not name a commit"):
            worktrees.create(ws, a, "no-such-ref")
        git("branch", f"oms/{a}", cwd=chain.repo)
        with pytest.raises(ConflictError, match="already exists"):
            worktrees.create(ws, a)
        (chain.base / "oms-worktrees" / b).mkdir(parents=True)
        with pytest.raises(ConflictError, match="path"):
            worktrees.create(ws, b)
        git(
            "worktree", "add", "-q", "-b", f"oms/{c}", str(chain.base / "elsewhere"), cwd=chain.repo
        )
        git("branch", "-m", f"oms/{c}", f"oms/{c}-x", cwd=chain.repo)
        git("-C", str(chain.base / "elsewhere"), "checkout", "-q", "-b", f"oms/{c}", cwd=chain.repo)
        with pytest.raises(ConflictError, match="branch"):
            worktrees.create(ws, c)
    assert not (chain.base / "oms-worktrees" / a).exists()


def test_worktree_created_before_a_crash_is_adopted(chain: Chain) -> None:
    with chain.workspace() as ws:
        ticket = tickets.add(ws, "t", "").record_id
    head = git("rev-parse", "HEAD", cwd=chain.repo).strip()
    path = chain.base / "oms-worktrees" / ticket
    git(
        "worktree", "add", "-q", "-b", f"oms/{ticket}", str(path), head, cwd=chain.repo
    )  # as if oms died here
    with chain.workspace() as ws:
        record, created = worktrees.create(ws, ticket)
    assert not created
    assert record["worktree_root"] == os.path.realpath(path)
    assert record["base_commit"] == head


def test_worktrees_directory_must_not_overlap_state_or_repo(chain: Chain) -> None:
    for directory in (str(chain.state), str(chain.repo / "wt"), str(chain.state / "tmp")):
        chain.edit_config(
            lambda s, d=directory: s.replace(
                'directory = "../oms-worktrees"', f'directory = "{d}"'
            ),
            commit=True,
        )
        with chain.workspace() as ws:
            ticket = tickets.add(ws, "t", "").record_id
            with pytest.raises(InvalidInputError):
                worktrees.create(ws, ticket)
        chain.edit_config(
            lambda s, d=directory: s.replace(
                f'directory = "{d}"', 'directory = "../oms-worktrees"'
            ),
            commit=True,
        )
    assert stat.S_IMODE(chain.state.stat().st_mode) == 0o700
