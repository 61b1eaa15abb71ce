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
    parse_status_paths,
    refuse_unsafe_config,
    resolve_commit,
    status_entries,
)
from oms.errors import CheckoutChangedError, ProcessFailedError, shown
from oms.fsio.outside import discard_file, entry_kind, remove_kept_files


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
    entries = _entries(repo, paths)
    index = os.path.join(git_dirs(repo)[0], f"oms-salvage-{os.getpid()}.index")
    try:
        git(repo, "read-tree", head, index=index)  # plumbing: no checkout, filter or hook
        git(repo, "update-index", "-z", "--index-info", stdin=b"".join(entries), index=index, timeout=120.0)
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


_ZERO = "0" * 40
HASH_BATCH = 256  # paths per `hash-object` (argv, so any name works, newlines included)


def _entries(repo: str, paths: list[str]) -> list[bytes]:
    """`update-index -z --index-info` lines for `paths` as they are on disk, byte for byte: each file's
    blob written with `--no-filters` (the worktree's own `.gitattributes` never rewrites a byte: no eol
    conversion, no `ident`), a link's target as its blob, a path that is gone (or is now a folder, whose
    files are listed themselves) removed. A FIFO, socket or device cannot be kept: refused."""
    files: list[tuple[str, str]] = []  # (path, mode)
    lines: list[bytes] = []
    for path in paths:
        kind, detail = entry_kind(os.path.join(repo, path))
        name = path.encode("utf-8", "surrogateescape")
        if kind == "file":
            files.append((path, detail))
        elif kind == "link":
            oid = git(repo, "hash-object", "-w", "--no-filters", "--stdin", stdin=os.fsencode(detail)).text()
            lines.append(b"120000 %s\t%s\x00" % (oid.encode(), name))
        elif kind in ("missing", "dir"):
            lines.append(b"0 %s\t%s\x00" % (_ZERO.encode(), name))
        else:
            raise CheckoutChangedError(f"{shown(path)} is a {kind}, which git cannot keep; nothing salvaged")
    for start in range(0, len(files), HASH_BATCH):
        batch = files[start : start + HASH_BATCH]
        out = git(repo, "hash-object", "-w", "--no-filters", "--", *(p for p, _ in batch), timeout=300.0).text()
        oids = out.splitlines()
        if len(oids) != len(batch):
            raise ProcessFailedError(("git", "hash-object"), 1, b"not one object per file")
        for (path, mode), oid in zip(batch, oids, strict=True):
            lines.append(b"%s %s\t%s\x00" % (mode.encode(), oid.encode(), path.encode("utf-8", "surrogateescape")))
    return lines


def changed_paths(repo: str) -> tuple[str, ...]:
    """The changed and untracked paths `snapshot` would keep (after `refuse_unsafe_config`)."""
    return tuple(parse_status_paths(status_entries(repo)))


def discard_changes(repo: str, commit: str, kept: Snapshot) -> None:
    """Reset the tracked files to `commit` and remove the untracked files `kept` holds — exactly those, one
    by one, and the folders they leave empty (call only once `kept` is referenced). Nothing is done when
    the worktree changed since (a second snapshot's tree differs), or when the reset would replace anything
    `kept` does not hold: a folder (of ignored files, a nested repository, entries named `.git`) where
    `commit` or HEAD has a file, or a link or file where they need a folder. Ignored files, nested
    repositories and `.git`-named entries are never removed."""
    again = snapshot(repo, "oms salvage: check")  # what is there now must be exactly what was kept
    if again is None or tree_of(repo, again.commit) != tree_of(repo, kept.commit):
        late = sorted(set(again.paths if again else ()) ^ set(kept.paths)) or ["a changed file"]
        raise CheckoutChangedError(f"the worktree changed after its salvage (first: {shown(late[0])}); nothing reset")
    in_the_way = _in_the_way(repo, commit)
    if in_the_way is not None:
        raise CheckoutChangedError(
            f"resetting would replace {shown(in_the_way)}, which the salvage does not hold; nothing reset"
        )
    tracked = set(_tracked(repo, commit))
    git(repo, "reset", "-q", "--hard", commit, timeout=120.0)
    untracked = [p for p in kept.paths if p not in tracked]
    left = remove_kept_files(repo, untracked)
    if left:
        raise CheckoutChangedError(f"{len(left)} salvaged file(s) were left in place (first: {shown(left[0])})")


def _tracked(repo: str, rev: str) -> list[str]:
    out = git(repo, "ls-tree", "-r", "-z", "--name-only", "--full-tree", rev, max_output=64 * 1024 * 1024).stdout
    return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\x00") if p]


def _in_the_way(repo: str, commit: str) -> str | None:
    """A path `reset --hard <commit>` would replace that is not a tracked file: a folder where HEAD or
    `commit` tracks a file, or a non-folder where one of their files needs a folder (None: nothing)."""
    paths = set(_tracked(repo, "HEAD")) | set(_tracked(repo, commit))
    folders = {p.rsplit("/", 1)[0] for p in paths if "/" in p}
    folders |= {f.rsplit("/", i)[0] for f in list(folders) for i in range(1, f.count("/") + 1)}
    for path in sorted(paths):
        if entry_kind(os.path.join(repo, path))[0] == "dir":
            return path
    for folder in sorted(folders):
        kind = entry_kind(os.path.join(repo, folder))[0]
        if kind not in ("dir", "missing"):
            return folder
    return None


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
