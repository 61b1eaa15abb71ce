"""Salvage commits: a worktree's uncommitted work kept in a commit of its own, the worktree untouched
(issue 14, ADR 0021). Hardened git as everywhere (`adapters/git.py`): the config is checked first, no hook,
filter or fsmonitor runs, no submodule or nested repository is entered.

`snapshot` stages every changed and untracked file (not ignored ones, not a repository) into a private
index seeded from HEAD, writes its tree and a commit whose parent is HEAD: the worktree, its index, HEAD and
its branch stay exactly as they were. `discard_changes` then (only after a snapshot was kept) resets the
tracked files to a commit and removes the untracked ones it holds; ignored files and nested repositories
are never touched (oms deletes nothing it has not kept).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from oms.adapters.git import (
    OMS_IDENTITY,
    git,
    git_dirs,
    gitlinks,
    parse_status_paths,
    refuse_unsafe_config,
    resolve_commit,
    status_entries,
)
from oms.errors import CheckoutChangedError, ProcessFailedError, shown
from oms.fsio.outside import discard_file


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A salvage commit and the paths it kept (repository-relative)."""

    commit: str
    paths: tuple[str, ...]


def snapshot(repo: str, message: str) -> Snapshot | None:
    """A commit of `repo`'s uncommitted and untracked work on top of HEAD (None: nothing to keep)."""
    refuse_unsafe_config(repo)
    head = resolve_commit(repo, "HEAD")
    paths = parse_status_paths(status_entries(repo))
    if head is None or not paths:
        return None
    index = os.path.join(git_dirs(repo)[0], f"oms-salvage-{os.getpid()}.index")
    try:
        git(repo, "read-tree", head, index=index)  # plumbing: no checkout, filter or hook
        listed = b"".join(p.encode("utf-8", "surrogateescape") + b"\x00" for p in paths)
        git(
            repo,
            "add",
            "--all",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
            stdin=listed,
            index=index,
            timeout=120.0,
        )
        for nested in sorted(gitlinks(repo, index=index) - gitlinks(repo, head)):
            # a repository that appeared after the look: its files are its own repository's, never a gitlink
            git(repo, "update-index", "--force-remove", "--", nested, index=index)
        tree = git(repo, "write-tree", index=index).text()
        name, email = OMS_IDENTITY
        identity = ("-c", f"user.name={name}", "-c", f"user.email={email}", "-c", "commit.gpgsign=false")
        commit = git(repo, *identity, "commit-tree", tree, "-p", head, "-m", message).text()
    finally:
        for leftover in (index, index + ".lock"):
            discard_file(leftover)
    if resolve_commit(repo, commit) != commit:
        raise ProcessFailedError(("git", "commit-tree"), 1, b"the salvage commit cannot be read back")
    return Snapshot(commit, tuple(paths))


def changed_paths(repo: str) -> tuple[str, ...]:
    """The changed and untracked paths `snapshot` would keep (after `refuse_unsafe_config`)."""
    return tuple(parse_status_paths(status_entries(repo)))


def discard_changes(repo: str, commit: str, kept: Snapshot) -> None:
    """Reset the tracked files to `commit` and remove the untracked files, once `kept` holds every one of
    them (call only once `kept` is referenced). Ignored files and nested repositories stay."""
    again = snapshot(repo, "oms salvage: check")  # what is there now must be exactly what was kept
    if again is None or tree_of(repo, again.commit) != tree_of(repo, kept.commit):
        late = sorted(set(again.paths if again else ()) ^ set(kept.paths)) or ["a changed file"]
        raise CheckoutChangedError(f"the worktree changed after its salvage (first: {shown(late[0])}); nothing reset")
    git(repo, "reset", "-q", "--hard", commit, timeout=120.0)
    left = set(changed_paths(repo))  # after the reset: only untracked files are left
    unkept = sorted(left - set(kept.paths))
    if unkept:
        raise CheckoutChangedError(
            f"{len(unkept)} untracked path(s) appeared that the salvage commit does not hold (first: "
            f"{shown(unkept[0])}); nothing removed"
        )
    if left:  # `clean -d` without a second `-f` never removes a nested repository; without -x no ignored file
        git(repo, "clean", "-q", "-f", "-d", timeout=120.0)


def tree_of(repo: str, commit: str) -> str:
    """The tree id of `commit`."""
    return git(repo, "rev-parse", "--verify", "--end-of-options", f"{commit}^{{tree}}").text()


def refs_under(repo: str, prefix: str) -> list[tuple[str, str, str]]:
    """(ref, commit, committer date ISO) of every ref under `prefix`, in ref order."""
    out = git(repo, "for-each-ref", "--format=%(refname)%00%(objectname)%00%(committerdate:iso-strict)", prefix).stdout
    rows = []
    for line in out.decode("utf-8", "replace").splitlines():
        parts = line.split("\x00")
        if len(parts) == 3:
            rows.append((parts[0], parts[1], parts[2]))
    return rows
