"""Attack (issue 15): a hostile repository cannot make `oms init --commit` or `oms doctor` run its
code through git's lazy fetch of a missing object.

A repository that says it is a partial clone (`extensions.partialClone = origin`, the state `git
clone --filter=blob:none` leaves) fetches an object it lacks from its promisor remote whenever a
command needs it, and the local transport starts `remote.origin.uploadpack` through the shell.
Before its fix none of those keys was in git.DANGEROUS, and `git cat-file --batch` (committed_blobs:
the first thing `init --commit` and doctor's config check ask) needs the committed
`.oms/config.toml` blob. Now oms's git never fetches (`protocol.allow=never`, and
`GIT_NO_LAZY_FETCH=1` where git knows it)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers import oms_command


def _git(*args: str, cwd: Path) -> str:
    env = {
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "PATH": "/usr/bin:/bin",
        "HOME": str(cwd),
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def _hostile_partial_clone(tmp_path: Path, marker: Path) -> tuple[Path, Path]:
    repo, state = tmp_path / "repo", tmp_path / "state"
    repo.mkdir()
    _git("init", "-q", "-b", "main", cwd=repo)
    _git("config", "user.name", "t", cwd=repo)
    _git("config", "user.email", "t@x", cwd=repo)
    (repo / "README").write_text("hi\n")
    _git("add", "README", cwd=repo)
    _git("commit", "-q", "-m", "first", cwd=repo)
    init = oms_command().run("init", "--state-root", str(state), "--config-root", str(repo))
    assert init.returncode == 0, init.stderr
    _git("add", ".oms", cwd=repo)
    _git("commit", "-q", "-m", "oms config", cwd=repo)
    blob = _git("rev-parse", "HEAD:.oms/config.toml", cwd=repo)
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # as a blob:none clone lacks it
    _git("config", "core.repositoryformatversion", "1", cwd=repo)
    _git("config", "extensions.partialClone", "origin", cwd=repo)
    _git("config", "remote.origin.url", str(repo), cwd=repo)
    _git("config", "remote.origin.promisor", "true", cwd=repo)
    _git("config", "remote.origin.uploadpack", f"touch {marker}; false", cwd=repo)
    return repo, state


def test_init_commit_runs_no_code_of_a_promisor_remote(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    repo, state = _hostile_partial_clone(tmp_path, marker)
    done = oms_command().run(
        "init", "--commit", "--state-root", str(state), "--config-root", str(repo), cwd=tmp_path
    )
    assert not marker.exists(), "oms init --commit ran the repository's remote.origin.uploadpack"
    assert "Traceback" not in done.stderr


def test_doctor_runs_no_code_of_a_promisor_remote(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    repo, state = _hostile_partial_clone(tmp_path, marker)
    done = oms_command().run(
        "doctor", "--state-root", str(state), "--config-root", str(repo), cwd=tmp_path
    )
    assert not marker.exists(), "oms doctor ran the repository's remote.origin.uploadpack"
    assert "Traceback" not in done.stderr
