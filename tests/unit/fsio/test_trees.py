"""An agent's worktree on the host (docs/adr/0024, `fsio/trees.py`): oms's git and the tree helpers
refuse to read, walk or run in a linked worktree outside a tree job — the runtime guard, by
construction — and inside a job they follow no link at any component, never open a FIFO, and name
what they met."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from oms.adapters import git, salvage_git
from oms.errors import AgentTreeError, UnsafeFileError
from oms.fsio import outside, trees
from tests.helpers import git as run_git


def _worktree(tmp_path: Path) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    repo.mkdir()
    run_git("init", "-q", "-b", "main", cwd=repo)
    (repo / "README.md").write_text("hello\n")
    run_git("add", "-A", cwd=repo)
    run_git("commit", "-q", "-m", "init", cwd=repo)
    wt = tmp_path / "wt"
    run_git("worktree", "add", "-q", "-b", "oms/tkt-1", str(wt), cwd=repo)
    (wt / "src").mkdir()
    (wt / "src" / "a.txt").write_text("agent's\n")
    return repo, wt


def test_host_git_in_a_worktree_is_refused_and_in_the_main_repository_is_not(
    tmp_path: Path,
) -> None:
    repo, wt = _worktree(tmp_path)
    nested = wt / "vendored"
    nested.mkdir()
    run_git("init", "-q", cwd=nested)  # a repository the agent nested: still in its worktree
    for where in (wt, wt / "src", nested):
        with pytest.raises(AgentTreeError, match="run git"):
            git.git(str(where), "status")
        with pytest.raises(AgentTreeError):
            git.resolve_commit(str(where), "HEAD")
    with pytest.raises(AgentTreeError):
        salvage_git.snapshot(str(wt), "m")
    assert git.resolve_commit(str(repo), "HEAD") is not None  # the main repository: object-level
    linked = git.linked_worktree(str(repo), str(wt))  # what it records of the worktree
    assert (linked.worktree, linked.branch) == (str(wt), "oms/tkt-1")
    assert linked.gitdir == str(repo / ".git" / "worktrees" / "wt")


def test_the_tree_helpers_refuse_a_worktree_on_the_host(tmp_path: Path) -> None:
    _repo, wt = _worktree(tmp_path)
    calls: dict[str, Callable[[], object]] = {
        "read_entry": lambda: trees.read_entry(str(wt), "src/a.txt", 1024),
        "entry_kind": lambda: trees.entry_kind(str(wt / "src" / "a.txt")),
        "remove_kept_files": lambda: trees.remove_kept_files(str(wt), ["src/a.txt"]),
        "hidden_git_entries": lambda: trees.hidden_git_entries(str(wt)),
        "tree_bytes": lambda: trees.tree_bytes(str(wt)),
        "empty_tree": lambda: trees.empty_tree(str(wt)),
        "read_user_file": lambda: outside.read_user_file(str(wt / "src" / "a.txt"), 1024),
        "discard_file": lambda: outside.discard_file(str(wt / "src" / "a.txt")),
    }
    for name, call in calls.items():
        with pytest.raises(AgentTreeError):
            call()
        assert (wt / "src" / "a.txt").read_text() == "agent's\n", name


def test_inside_a_tree_job_git_runs_in_the_worktree(tmp_path: Path) -> None:
    """The guard is switched off only by `enter_tree_job`, which only `oms worker tree-job` calls (a
    process of its own: the switch never reaches the host's process)."""
    _repo, wt = _worktree(tmp_path)
    code = (
        "import sys\nfrom oms.fsio.trees import enter_tree_job\nfrom oms.adapters import git\n"
        "enter_tree_job()\nprint(git.current_branch(sys.argv[1]))\n"
    )
    argv = [sys.executable, "-c", code, str(wt)]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "oms/tkt-1"
    assert not trees.in_tree_job()


def test_a_read_follows_no_link_at_any_component(tmp_path: Path) -> None:
    top = tmp_path / "top"
    (top / "d" / "e").mkdir(parents=True)
    (top / "d" / "e" / "f.txt").write_bytes(b"mine")
    outside_dir = tmp_path / "host"
    outside_dir.mkdir()
    (outside_dir / "f.txt").write_bytes(b"HOST SECRET")
    assert trees.read_entry(str(top), "d/e/f.txt", 100) == trees.Entry("file", "100644", b"mine")
    os.rename(top / "d" / "e", top / "d" / "e.parked")
    os.symlink(outside_dir, top / "d" / "e")
    with pytest.raises(UnsafeFileError, match=r"d/e is a symlink \(on the way to d/e/f\.txt\)"):
        trees.read_entry(str(top), "d/e/f.txt", 100)
    os.rename(top / "d", top / "d.parked")
    os.symlink(top / "d.parked", top / "d")
    with pytest.raises(UnsafeFileError, match="d is a symlink"):
        trees.read_entry(str(top), "d/e.parked/f.txt", 100)
    os.symlink(outside_dir / "f.txt", top / "leak")
    link = trees.Entry("link", "120000", os.fsencode(outside_dir / "f.txt"))
    assert trees.read_entry(str(top), "leak", 100) == link


def test_a_fifo_is_named_never_opened_and_a_hard_link_is_a_file(tmp_path: Path) -> None:
    top = tmp_path / "top"
    top.mkdir()
    os.mkfifo(top / "pipe")
    (top / "a").write_bytes(b"data")
    os.link(top / "a", top / "b")
    assert trees.read_entry(str(top), "pipe", 100).kind == "fifo"  # (opening it would block)
    assert trees.read_entry(str(top), "b", 100) == trees.Entry("file", "100644", b"data")
    assert trees.read_entry(str(top), "gone", 100).kind == "missing"
    assert trees.read_entry(str(top), "gone/deeper", 100).kind == "missing"


def test_removals_follow_no_link(tmp_path: Path) -> None:
    top = tmp_path / "top"
    (top / "d").mkdir(parents=True)
    (top / "d" / "x").write_text("x")
    host = tmp_path / "host"
    host.mkdir()
    (host / "x").write_text("the user's")
    (top / "locked").mkdir()
    (top / "locked" / "y").write_text("y")
    os.chmod(top / "locked", 0)
    os.symlink(host, top / "link")
    left = trees.remove_kept_files(str(top), ["link/x", "d/x"])
    assert left == ["link/x"]
    assert (host / "x").read_text() == "the user's"
    assert not (top / "d").exists()  # emptied, so removed
    assert trees.empty_tree(str(top)) == []
    assert list(top.iterdir()) == []
    assert (host / "x").read_text() == "the user's"
    (top / "a").mkdir()
    os.symlink(host, top / "a" / "b")
    assert trees.remove_tree(str(top)) is True
    assert not top.exists()
    assert (host / "x").read_text() == "the user's"


def test_the_root_level_looks_resolve_nothing_below_the_root(tmp_path: Path) -> None:
    _repo, wt = _worktree(tmp_path)
    (wt / ".codex").mkdir()
    (wt / ".claude").mkdir()
    (wt / ".claude" / "settings.json").write_text("{}")
    os.symlink("/etc", wt / ".mcp.json")
    assert trees.placeholders(str(wt), (".codex", ".claude", ".mcp.json", "nothing")) == {
        ".codex": "empty",
        ".claude": "folder",
        ".mcp.json": "link",
        "nothing": "missing",
    }
    assert trees.read_dotgit(str(wt)).startswith(b"gitdir: ")
