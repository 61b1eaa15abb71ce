"""A path a launch cannot write on a command line is refused where it is chosen, with its fix
(issue 26 item 2, ADR 0031): a state root or worktrees directory with a character that is not
printable ASCII passed init, doctor, lease, propose, review and accept and was refused only at
delivery. Real `oms` processes, real git."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import OmsCommand

pytestmark = pytest.mark.cli


def _repo(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "commit", "-q", "--allow-empty", "-m", "s"], check=True)
    return path


def test_init_refuses_a_state_root_a_launch_cannot_name(oms: OmsCommand, tmp_path: Path) -> None:
    """It made the state root, then failed on its sandbox directory ('set OMS_SANDBOX_DIR'),
    leaving it half made; with OMS_SANDBOX_DIR it passed, and every launch was refused."""
    repo = _repo(tmp_path / "repo")
    state = tmp_path / "caf\u00e9" / "state"
    for env in ({}, {"OMS_SANDBOX_DIR": str(tmp_path / "sandboxes")}):
        done = oms.run("init", "--state-root", str(state), cwd=repo, env=env)
        assert done.returncode == 1, done.stdout
        assert done.stderr.splitlines() == [
            f"oms: error: the state root {tmp_path}/caf\\xe9/state "
            f"has a character that is not printable ASCII",
            "  hint: make the state root where its path is "
            "printable ASCII (`oms init --state-root`)",
        ]
        assert not state.exists()  # nothing made
    assert (
        oms.run("init", "--state-root", str(tmp_path / "cafe" / "state"), cwd=repo).returncode == 0
    )


def test_doctor_and_lease_refuse_a_worktrees_directory_a_launch_cannot_name(
    oms: OmsCommand, tmp_path: Path
) -> None:
    repo = _repo(tmp_path / "repo")
    roots = ("--state-root", str(tmp_path / "state"))
    assert oms.run("init", *roots, cwd=repo).returncode == 0
    config = repo / ".oms" / "config.toml"
    text = config.read_text().replace("[worktrees]\n", '[worktrees]\ndirectory = "../\u00fcbung"\n')
    config.write_text(text)
    subprocess.run(["git", "-C", str(repo), "add", ".oms"], check=True)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", "oms"], check=True)
    doctor = oms.run("doctor", *roots, cwd=repo)
    line = next(x for x in doctor.stdout.splitlines() if x.split()[:2] == ["FAIL", "paths"])
    assert "the worktrees directory " in line
    assert (
        '(fix: set [worktrees] directory = "<a path of printable ASCII>" in .oms/config.toml)'
        in line
    )
    assert oms.run("ticket", "add", "--title", "t", "--no-body", *roots, cwd=repo).returncode == 0
    lease = oms.run("ticket", "lease", "tkt-1", "--worker", "me", *roots, cwd=repo)
    assert lease.returncode == 1
    assert lease.stderr.startswith("oms: error: the worktrees directory ")
    assert "has a character that is not printable ASCII" in lease.stderr.splitlines()[0]
    assert "tkt-1  open" in oms.run("ticket", "list", *roots, cwd=repo).stdout  # nothing leased
    config.write_text(config.read_text().replace('"../\u00fcbung"', '"../uebung"'))  # the fix
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-am", "ascii"], check=True)
    assert oms.run("ticket", "lease", "tkt-1", "--worker", "me", *roots, cwd=repo).returncode == 0
    again = oms.run("doctor", *roots, cwd=repo)
    assert any(x.split()[:2] == ["OK", "paths"] for x in again.stdout.splitlines())
