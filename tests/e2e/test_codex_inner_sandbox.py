"""Codex's own sandbox inside oms's (ADR 0012, decision 4), with the real `codex` CLI.

With bubblewrap installed, Codex runs each command as `bwrap … codex-linux-sandbox` through helper
links it creates under CODEX_HOME, and refuses to create them under a temporary directory. Inside
oms's sandbox CODEX_HOME is `/oms/home` wherever the state root is, so the inner sandbox works —
shown here with the home (the state root) under `/tmp` and outside it. The control shows the failure
oms avoids."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.adapters import bwrap
from oms.adapters.sandbox import HOME_VIEW, Layout, bwrap_args, environment
from tests.helpers import git

PROBE = (
    "echo inner > inner.txt; "
    "touch /usr/oms-probe 2>/dev/null && echo usr-WRITABLE || echo usr-refused; "
    f"touch {HOME_VIEW}/oms-probe 2>/dev/null && echo home-WRITABLE || echo home-refused"
)


@pytest.fixture(params=["tmp", "not-tmp"])
def base(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path]:
    if request.param == "tmp":
        yield tmp_path
        return
    where = Path(tempfile.mkdtemp(prefix="oms-e2e-", dir="/var/tmp"))
    try:
        yield where
    finally:
        shutil.rmtree(where, ignore_errors=True)


def _worktree(base: Path) -> Path:
    repo = base / "repo"
    repo.mkdir()
    git("init", "-q", "-b", "main", str(repo), cwd=base)
    git(
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "i",
        cwd=repo,
    )
    worktree = base / "wt"
    git("worktree", "add", "-q", "-b", "oms/tkt-1", str(worktree), cwd=repo)
    return worktree


def _in_oms_sandbox(
    base: Path, command: list[str], *, codex: bool = True
) -> subprocess.CompletedProcess[str]:
    worktree = _worktree(base)
    home = base / "state" / "tmp" / "codex-s"
    home.mkdir(parents=True, mode=0o700)
    layout = Layout(
        worktree=str(worktree),
        common_dir=str(base / "repo" / ".git"),
        gitdir=str(base / "repo" / ".git" / "worktrees" / "wt"),
        home=str(home),
    )
    program, roots, path_dirs = bwrap.tool_roots("codex")
    layout = layout._replace(runtime=roots)
    env = environment({"TERM": "dumb"}, {"CODEX_HOME": HOME_VIEW}, path_dirs)
    argv = [
        bwrap.locate(),
        *bwrap_args(layout, bwrap.host()),
        "--",
        *([program] if codex else []),
        *command,
    ]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)


def test_codex_sandboxes_its_commands_inside_the_oms_sandbox(base: Path) -> None:
    done = _in_oms_sandbox(
        base, ["sandbox", "-c", 'sandbox_mode="workspace-write"', "--", "sh", "-c", PROBE]
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "codex-linux-sandbox" not in done.stderr
    assert (base / "wt" / "inner.txt").read_text() == "inner\n"  # its workspace is writable
    assert "usr-refused" in done.stdout
    # /oms/home is writable in oms's sandbox but not a workspace root of Codex's: refused only
    # because Codex's own sandbox is really around the command
    assert "home-refused" in done.stdout
    assert not (base / "state" / "tmp" / "codex-s" / "oms-probe").exists()


def test_the_same_probe_without_codexs_sandbox_may_write_its_home(base: Path) -> None:
    """The positive control of the test above: in oms's sandbox alone the home is writable, so the
    refusal there came from Codex's own sandbox."""
    done = _in_oms_sandbox(base, ["/bin/sh", "-c", PROBE], codex=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "usr-refused" in done.stdout
    assert "home-WRITABLE" in done.stdout


def test_without_oms_a_codex_home_under_tmp_breaks_codexs_sandbox() -> None:
    """The control: the failure mode oms's `/oms/home` avoids (ADR 0012 "Decision 4"). Run with a
    private `/tmp` (a bubblewrap of the whole host but that): Codex's workspace-write sandbox binds
    `/tmp` writable and makes empty mount targets in it (`.git`, `.codex`, `.agents`, `.aws`) while
    its command runs, so on the host's `/tmp` it made every test beside it run in a repository for
    a moment ("state root … is inside the git worktree /tmp", seen in CI)."""
    script = (
        "mkdir /tmp/codex-home /tmp/w && cd /tmp/w && CODEX_HOME=/tmp/codex-home HOME=/tmp "
        """exec codex sandbox -c 'sandbox_mode="workspace-write"' -- sh -c 'echo ran'"""
    )
    done = subprocess.run(
        [bwrap.locate(), "--dev-bind", "/", "/", "--tmpfs", "/tmp", "--", "sh", "-c", script],
        env=os.environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "ran" not in done.stdout
    assert "codex-linux-sandbox" in done.stderr or "temporary dir" in done.stderr
