"""Attacks on salvage and the lease-expiry restore (issue 14, ADR 0021: "A restore removes only what
the salvage holds"; SECURITY.md: "every file, every byte, in the salvage commit").

1. `git status` never lists an entry named `.git` (nor anything under a `.git` directory that is not
   a repository), so the salvage does not hold it; `git clean -f -d` then removes the untracked
   directory holding it, recursively, with everything in it.
2. The salvage stages through `git add`, which applies the worktree's own `.gitattributes` (`text`,
   `eol`, `ident`): the bytes committed are not the bytes in the file. The restore then resets and
   cleans, and the original bytes are gone.

`salvage.keep_before_reset` is what `checkout.restore_after_expiry` calls once the expired attempt's
worktree has uncommitted work.

Found from outside (issue 14, round 1); each failed before its fix."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from oms.errors import CheckoutChangedError
from oms.services.checkout import salvage


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(cwd), *args],
        capture_output=True,
        check=True,
    )
    return done.stdout.decode("utf-8", "surrogateescape")


def _worktree(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("hello\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "init")
    start = _git(repo, "rev-parse", "HEAD").strip()
    wt = tmp_path / "wt"
    _git(repo, "worktree", "add", "-q", "-b", "oms/tkt-1", str(wt), start)
    (wt / "partial.txt").write_text("committed by the attempt\n")
    _git(wt, "add", "-A")
    _git(wt, "commit", "-q", "-m", "partial")  # HEAD != start: the restore resets
    return wt, start


def _held(wt: Path, commit: str, path: str) -> bytes | None:
    done = subprocess.run(
        ["git", "-C", str(wt), "cat-file", "blob", f"{commit}:{path}"],
        capture_output=True,
        check=False,
    )
    return done.stdout if done.returncode == 0 else None


def test_the_restore_never_removes_a_file_the_salvage_does_not_hold(tmp_path: Path) -> None:
    wt, start = _worktree(tmp_path)
    (wt / "notes").mkdir()
    (wt / "notes" / "todo.txt").write_text("an untracked file: salvaged\n")
    (wt / "notes" / ".git").mkdir()  # a directory named .git that is no repository
    (wt / "notes" / ".git" / "plan.md").write_text("the attempt's plan, hours of work\n")
    (wt / "cfg").mkdir()
    (wt / "cfg" / "x.txt").write_text("salvaged\n")
    (wt / "cfg" / ".git").write_text("a file named .git, with content\n")
    kept = salvage.keep_before_reset(str(tmp_path / "repo"), str(wt), "tkt-1", 1, start)
    assert kept is not None
    assert kept.commit is not None
    for rel, data in (("notes/.git/plan.md", b"the attempt's plan, hours of work\n"),
                      ("cfg/.git", b"a file named .git, with content\n")):  # fmt: skip
        on_disk = (wt / rel).read_bytes() if (wt / rel).is_file() else None
        assert on_disk == data or _held(wt, kept.commit, rel) == data, (
            f"{rel}: removed and not salvaged"
        )


def test_the_salvage_keeps_the_bytes_the_worktree_holds(tmp_path: Path) -> None:
    wt, start = _worktree(tmp_path)
    (wt / ".gitattributes").write_text("* text=auto\n*.txt ident\n")
    (wt / "windows.md").write_bytes(b"line one\r\nline two\r\n")
    (wt / "notes.txt").write_bytes(b"$Id: my own words, not git's $\n")
    kept = salvage.keep_before_reset(str(tmp_path / "repo"), str(wt), "tkt-1", 1, start)
    assert kept is not None
    assert kept.commit is not None
    assert not (wt / "windows.md").exists()  # reset and cleaned: only the salvage holds it now
    assert _held(wt, kept.commit, "windows.md") == b"line one\r\nline two\r\n"
    assert _held(wt, kept.commit, "notes.txt") == b"$Id: my own words, not git's $\n"


def test_the_restore_never_removes_a_nested_repository_or_an_ignored_file(tmp_path: Path) -> None:
    """3. `reset --hard <start>` writes the files the start commit tracks and the attempt deleted: a
       nested
    repository, an ignored directory or an ignored file in their place is destroyed ("ignored files
    and nested repositories are never removed", ADR 0021)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    for name in ("lib", "cfg", "env"):
        (repo / name).write_text(f"tracked {name}\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "start")
    start = _git(repo, "rev-parse", "HEAD").strip()
    wt = tmp_path / "wt"
    _git(repo, "worktree", "add", "-q", "-b", "oms/tkt-1", str(wt), start)
    _git(wt, "rm", "-q", "lib", "cfg", "env")
    (wt / ".gitignore").write_text("cfg/\nenv\n")
    _git(wt, "add", "-A")
    _git(wt, "commit", "-q", "-m", "the attempt's commit")
    (wt / "lib").mkdir()  # a nested repository with work of its own
    _git(wt / "lib", "init", "-q")
    (wt / "lib" / "w.txt").write_text("nested work\n")
    _git(wt / "lib", "add", "-A")
    _git(wt / "lib", "commit", "-q", "-m", "nested history")
    (wt / "cfg").mkdir()
    (wt / "cfg" / "local.toml").write_text("ignored, kept by oms's promise\n")
    (wt / "env").write_text("ignored file\n")
    (wt / "notes.txt").write_text("uncommitted: salvaged\n")
    with pytest.raises(CheckoutChangedError, match="resetting would replace"):
        salvage.keep_before_reset(str(tmp_path / "repo"), str(wt), "tkt-1", 1, start)
    assert (wt / "lib" / "w.txt").read_text() == "nested work\n"
    assert (wt / "lib" / ".git").is_dir()
    assert (wt / "cfg" / "local.toml").read_text() == "ignored, kept by oms's promise\n"
    assert (wt / "env").read_text() == "ignored file\n"
