"""Salvage commits on real git (`adapters/salvage_git.py`, issue 14): the snapshot holds exactly the
worktree's files, leaves the worktree, its index, HEAD and branch untouched, never commits a nested
repository, runs no repository code, and `discard_changes` removes only what the snapshot holds."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oms.adapters import salvage_git
from oms.errors import CheckoutChangedError, UnsafeRepositoryError
from tests.helpers import git


def _repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git("init", "-q", "-b", "main", cwd=path)
    (path / "tracked.txt").write_text("one\n")
    (path / "gone.txt").write_text("to be deleted\n")
    (path / ".gitignore").write_text("*.ignored\n")
    git("add", "-A", cwd=path)
    git("commit", "-q", "-m", "initial", cwd=path)
    return path


def _files(path: Path) -> dict[str, bytes]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = [
            d for d in dirnames if d != ".git" and not (Path(dirpath, d) / ".git").exists()
        ]
        for name in filenames:
            full = Path(dirpath, name)
            if not name.endswith(".ignored"):
                out[str(full.relative_to(path))] = full.read_bytes()
    return out


def _tree(path: Path, commit: str) -> dict[str, bytes]:
    names = git("ls-tree", "-r", "-z", "--name-only", commit, cwd=path).split("\0")
    return {
        n: subprocess.run(
            ["git", "-C", str(path), "cat-file", "blob", f"{commit}:{n}"],
            capture_output=True,
            check=True,
        ).stdout
        for n in names
        if n
    }


def _state(path: Path) -> tuple[str, str, str, bytes]:
    return (
        git("rev-parse", "HEAD", cwd=path),
        git("symbolic-ref", "HEAD", cwd=path),
        git("status", "--porcelain=v2", "--untracked-files=all", cwd=path),
        (path / ".git" / "index").read_bytes(),
    )


def test_a_snapshot_holds_every_change_and_touches_nothing(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "r")
    (repo / "tracked.txt").write_text("two\n")
    (repo / "gone.txt").unlink()
    (repo / "new dir" / "déjà").mkdir(parents=True)
    (repo / "new dir" / "déjà" / "line\nbreak.bin").write_bytes(bytes(range(256)))
    (repo / "staged.txt").write_text("staged only\n")
    git("add", "staged.txt", cwd=repo)
    (repo / "build.ignored").write_text("not work\n")
    before = _state(repo)
    snap = salvage_git.snapshot(str(repo), "oms salvage: test")
    assert snap is not None
    assert _state(repo) == before  # worktree, index, HEAD and branch as they were
    assert _tree(repo, snap.commit) == _files(repo)
    assert "build.ignored" not in _tree(repo, snap.commit)
    assert git("rev-parse", f"{snap.commit}^", cwd=repo) == before[0]
    assert not list((repo / ".git").glob("oms-salvage-*"))  # its private index is gone


def test_a_clean_worktree_has_nothing_to_salvage(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "r")
    (repo / "x.ignored").write_text("ignored only\n")
    assert salvage_git.snapshot(str(repo), "m") is None


def test_a_nested_repository_is_never_committed(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "r")
    inner = _repo(repo / "inner")
    (inner / "tracked.txt").write_text("inner change\n")
    (repo / "mine.txt").write_text("mine\n")
    snap = salvage_git.snapshot(str(repo), "m")
    assert snap is not None
    tree = _tree(repo, snap.commit)
    assert "mine.txt" in tree
    assert not any(name.startswith("inner") for name in tree)
    modes = git("ls-tree", "-r", snap.commit, cwd=repo)
    assert "160000" not in modes


def test_a_repository_whose_config_would_run_code_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "r")
    marker = tmp_path / "ran"
    git("config", "filter.evil.clean", f"touch {marker}; cat", cwd=repo)
    (repo / ".gitattributes").write_text("* filter=evil\n")
    (repo / "tracked.txt").write_text("changed\n")
    with pytest.raises(UnsafeRepositoryError):
        salvage_git.snapshot(str(repo), "m")
    assert not marker.exists()


def test_discard_removes_only_what_the_snapshot_holds(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "r")
    start = git("rev-parse", "HEAD", cwd=repo).strip()
    (repo / "tracked.txt").write_text("two\n")
    (repo / "new.txt").write_text("new\n")
    (repo / "keep.ignored").write_text("ignored stays\n")
    _repo(repo / "inner")
    snap = salvage_git.snapshot(str(repo), "m")
    assert snap is not None
    (repo / "late.txt").write_text("appeared after the snapshot\n")
    with pytest.raises(CheckoutChangedError, match=r"late\.txt"):
        salvage_git.discard_changes(str(repo), start, snap)
    assert (repo / "late.txt").exists()
    assert (repo / "tracked.txt").read_text() == "two\n"  # nothing reset
    (repo / "late.txt").unlink()
    (repo / "tracked.txt").write_text("changed again\n")
    with pytest.raises(CheckoutChangedError, match="changed after its salvage"):
        salvage_git.discard_changes(str(repo), start, snap)
    assert (repo / "tracked.txt").read_text() == "changed again\n"
    (repo / "tracked.txt").write_text("two\n")
    salvage_git.discard_changes(str(repo), start, snap)
    assert (repo / "tracked.txt").read_text() == "one\n"
    assert not (repo / "new.txt").exists()
    assert (repo / "keep.ignored").read_text() == "ignored stays\n"
    assert (repo / "inner" / ".git").is_dir()  # a nested repository is never removed


_NAMES = st.sampled_from(
    ["a.txt", "b.txt", "d/c.txt", "d/e/f.txt", "tracked.txt", "gone.txt", "x.ignored"]
)
_OPS = st.lists(
    st.tuples(st.sampled_from(["write", "delete"]), _NAMES, st.binary(max_size=64)), max_size=12
)


@settings(max_examples=25)
@given(_OPS)
def test_any_edits_are_held_exactly_by_the_snapshot(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, str, bytes]]
) -> None:
    repo = _repo(tmp_path_factory.mktemp("p") / "r")
    for op, name, data in ops:
        path = repo / name
        if op == "write":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        elif path.exists():
            path.unlink()
    before = _state(repo)
    snap = salvage_git.snapshot(str(repo), "m")
    assert _state(repo) == before
    if snap is None:
        assert _files(repo) == _tree(repo, "HEAD")
    else:
        assert _tree(repo, snap.commit) == _files(repo)
