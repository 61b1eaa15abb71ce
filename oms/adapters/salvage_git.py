"""Salvage commits: a worktree's uncommitted work kept in a commit of its own, the worktree
untouched (issue 14, ADR 0021). Hardened git as everywhere (`adapters/git.py`): the config is
checked first, no hook, filter or fsmonitor runs, no submodule or nested repository is entered. In
an agent's worktree all of this runs in a tree job (docs/adr/0024: `adapters/tree_work.py`), never
on the host.

`snapshot` stages every changed and untracked file (not ignored ones, not a repository) into a
private index seeded from HEAD, writes its tree and a commit whose parent is HEAD: the worktree, its
index, HEAD and its branch stay exactly as they were. `build` is that staging for any list of paths
(a result commit too): oms reads each file itself, following no link at any component and never
opening a FIFO (`fsio/trees.read_entry`), and hands the bytes to one `git fast-import` (each blob id
checked against the bytes): byte for byte, no `.gitattributes` conversion, a link kept as a link; a
FIFO, socket or device is refused, naming it. `discard_changes` then (only after a snapshot was
kept) resets the tracked files to a commit and removes the untracked ones it holds; ignored files
and nested repositories are never touched (oms deletes nothing it has not kept).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from oms.adapters.git import (
    OMS_IDENTITY,
    blob_id,
    git,
    parse_status_paths,
    refuse_unsafe_config,
    resolve_commit,
    status_entries,
)
from oms.errors import CheckoutChangedError, ConflictError, ProcessFailedError, shown
from oms.fsio.outside import discard_file, scratch_directory
from oms.fsio.trees import entry_kind, read_entry, remove_kept_files, remove_tree
from oms.limits import LIMITS

NO_REFLOG = (
    "-c",
    "core.logAllRefUpdates=false",
)  # a tree job sees no logs/ of the common dir to create


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A salvage commit and the paths it kept (repository-relative)."""

    commit: str
    paths: tuple[str, ...]


def snapshot(repo: str, message: str) -> Snapshot | None:
    """A commit of `repo`'s uncommitted and untracked work on top of HEAD (None: nothing to
    keep)."""
    refuse_unsafe_config(repo)
    head = resolve_commit(repo, "HEAD")
    paths = parse_status_paths(status_entries(repo))
    if head is None or not paths:
        return None
    commit = build(repo, head, paths, message)
    if resolve_commit(repo, commit) != commit:
        raise ProcessFailedError(("git", "commit-tree"), 1, b"the salvage commit cannot be read")
    return Snapshot(commit, tuple(paths))


def build(
    repo: str,
    head: str,
    paths: list[str],
    message: str,
    author: tuple[str, str] = OMS_IDENTITY,
) -> str:
    """A commit of `paths` as they are on disk now, on top of `head` (its parent), by `author`: a
    private index seeded from `head`, the paths staged byte for byte (`_entries`), its tree,
    `commit-tree`. Nothing of the worktree, its index, HEAD or branch changes."""
    scratch = scratch_directory("oms-index-")
    index = os.path.join(scratch, "index")
    try:
        lines = _entries(repo, paths, head)
        git(repo, "read-tree", head, index=index)  # plumbing: no checkout, filter or hook
        git(
            repo,
            "update-index",
            "-z",
            "--index-info",
            stdin=b"".join(lines),
            index=index,
            timeout=300.0,
        )
        tree = git(repo, "write-tree", index=index).text()
    finally:
        for leftover in (index, index + ".lock"):
            discard_file(leftover)
        remove_tree(scratch)
    name, email = author
    identity = (
        "-c",
        f"user.name={name}",
        "-c",
        f"user.email={email}",
        "-c",
        "commit.gpgsign=false",
    )
    text = message.encode("utf-8")
    made = git(repo, *identity, "commit-tree", tree, "-p", head, "-F", "-", stdin=text)
    return made.text()


def _entries(repo: str, paths: list[str], head: str) -> list[bytes]:
    """`update-index -z --index-info` lines for `paths` as they are on disk, byte for byte: each
    file read by oms (no link followed at any component, a FIFO never opened:
    `fsio/trees.read_entry`) and written as a blob whatever the worktree's `.gitattributes` say, a
    link's target as its blob, a path that is gone (or is now a folder, whose files are listed
    themselves) removed. A FIFO, socket or device cannot be kept: refused, naming it."""
    zero = b"0" * len(head)
    lines: list[bytes] = []
    pending: list[tuple[bytes, bytes, bytes]] = []  # (mode, name, data)
    size = 0
    for path in paths:
        entry = read_entry(repo, path, LIMITS.tree_file_bytes)
        name = path.encode("utf-8", "surrogateescape")
        if entry.kind in ("file", "link"):
            pending.append((entry.mode.encode(), name, entry.data))
            size += len(entry.data)
        elif entry.kind in ("missing", "dir"):
            lines.append(b"0 %s\t%s\x00" % (zero, name))
        else:
            what = {"fifo": "FIFO"}.get(entry.kind, entry.kind)
            why = f"{shown(path)} is a {what}, which git cannot keep"
            raise CheckoutChangedError(f"{why}; nothing committed")
        if size >= LIMITS.tree_import_bytes or len(pending) >= LIMITS.tree_import_blobs:
            lines += _import(repo, pending, head)
            pending, size = [], 0
    if pending:
        lines += _import(repo, pending, head)
    return lines


def _import(repo: str, pending: list[tuple[bytes, bytes, bytes]], head: str) -> list[bytes]:
    """Write the blobs of `pending` with one `git fast-import` (its `get-mark` answers each blob's
    id, which must be the id of the bytes oms read) and return their index lines."""
    blobs = [data for _mode, _name, data in pending]
    stream = [b"blob\nmark :%d\ndata %d\n%s\n" % (i, len(d), d) for i, d in enumerate(blobs, 1)]
    stream += [b"get-mark :%d\n" % i for i in range(1, len(pending) + 1)]
    stream.append(b"done\n")
    cap = len(pending) * 80
    command = ("fast-import", "--quiet", "--done")
    done = git(repo, *command, stdin=b"".join(stream), max_output=cap, timeout=300.0)
    out = done.stdout.split()
    object_format = "sha256" if len(head) == 64 else "sha1"
    if len(out) != len(pending) or any(
        oid.decode("ascii", "replace") != blob_id(data, object_format)
        for oid, (_m, _n, data) in zip(out, pending, strict=True)
    ):
        raise ProcessFailedError(("git", "fast-import"), 1, b"a blob id is not that of its bytes")
    found = zip(out, pending, strict=True)
    return [b"%s %s\t%s\x00" % (mode, oid, name) for oid, (mode, name, _d) in found]


def changed_paths(repo: str) -> tuple[str, ...]:
    """The changed and untracked paths `snapshot` would keep (after `refuse_unsafe_config`)."""
    return tuple(parse_status_paths(status_entries(repo)))


def discard_changes(repo: str, commit: str, kept: Snapshot) -> None:
    """Reset the tracked files to `commit` and remove the untracked files `kept` holds — exactly
    those, one by one, and the folders they leave empty (call only once `kept` is referenced).
    Nothing is done when the worktree changed since (a second snapshot's tree differs), or when the
    reset would replace anything `kept` does not hold: a folder (of ignored files, a nested
    repository, entries named `.git`) where `commit` or HEAD has a file, or a link or file where
    they need a folder. Ignored files, nested repositories and `.git`-named entries are never
    removed."""
    again = snapshot(repo, "oms salvage: check")  # what is there now must be exactly what was kept
    if again is None or tree_of(repo, again.commit) != tree_of(repo, kept.commit):
        late = sorted(set(again.paths if again else ()) ^ set(kept.paths)) or ["a changed file"]
        raise CheckoutChangedError(
            f"the worktree changed after its salvage (first: {shown(late[0])}); nothing reset"
        )
    in_the_way = _in_the_way(repo, commit)
    if in_the_way is not None:
        raise CheckoutChangedError(
            f"resetting would replace {shown(in_the_way)}, which "
            f"the salvage does not hold; nothing reset"
        )
    tracked = set(_tracked(repo, commit))
    git(repo, *NO_REFLOG, "reset", "-q", "--hard", commit, timeout=120.0)
    untracked = [p for p in kept.paths if p not in tracked]
    left = remove_kept_files(repo, untracked)
    if left:
        raise CheckoutChangedError(
            f"{len(left)} salvaged file(s) were left in place (first: {shown(left[0])})"
        )


def _tracked(repo: str, rev: str) -> list[str]:
    out = git(
        repo, "ls-tree", "-r", "-z", "--name-only", "--full-tree", rev, max_output=64 * 1024 * 1024
    ).stdout
    return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\x00") if p]


def _in_the_way(repo: str, commit: str) -> str | None:
    """A path `reset --hard <commit>` would replace that is not a tracked file: a folder where HEAD
    or `commit` tracks a file, or a non-folder where one of their files needs a folder (None:
    nothing)."""
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


def free_ref(repo: str, base: str, commit: str, limit: int) -> tuple[str, str]:
    """Keep `commit` at a salvage ref: the ticket's salvage ref that already holds the same tree
    (the same work kept twice — at an attempt's end and again before the next one's launch, or
    by two salvagers — is kept once), else the first free one of `base`, `base-2`, ... up to
    `limit` (created only where none was: a racing salvage takes the next name). `base` is
    `refs/oms/salvage/<ticket>/<attempt>`; the ticket's refs are those beside it."""
    tree = tree_of(repo, commit)
    held = _trees_under(repo, base.rsplit("/", 1)[0] + "/")
    for ref, (kept, kept_tree) in sorted(held.items()):
        if kept_tree == tree:
            return ref, kept
    for n in range(1, limit + 1):
        ref = base + (f"-{n}" if n > 1 else "")
        if ref in held:
            continue
        made = git(repo, "update-ref", ref, commit, "", check=False)
        if made.returncode == 0:
            return ref, commit
        now = resolve_commit(repo, ref)  # another salvager made it meanwhile
        if now is None:
            raise ConflictError(f"salvage ref {ref} could not be written")
        if tree_of(repo, now) == tree:
            return ref, now
    raise ConflictError(f"{base} has {limit} salvage refs already")


def _trees_under(repo: str, prefix: str) -> dict[str, tuple[str, str]]:
    """ref -> (commit, tree) of every ref under `prefix` (one `for-each-ref`)."""
    fmt = "--format=%(refname)%00%(objectname)%00%(tree)"
    out = git(repo, "for-each-ref", fmt, prefix, max_output=64 * 1024 * 1024).stdout
    rows = [line.decode("utf-8", "replace").split("\x00") for line in out.splitlines()]
    return {r[0]: (r[1], r[2]) for r in rows if len(r) == 3}


def tree_of(repo: str, commit: str) -> str:
    """The tree id of `commit`."""
    return git(repo, "rev-parse", "--verify", "--end-of-options", f"{commit}^{{tree}}").text()


def refs_under(repo: str, prefix: str) -> list[tuple[str, str, str]]:
    """(ref, commit, committer date ISO) of every ref under `prefix`, in ref order."""
    out = git(
        repo,
        "for-each-ref",
        "--format=%(refname)%00%(objectname)%00%(committerdate:iso-strict)",
        prefix,
    ).stdout
    rows = []
    for line in out.decode("utf-8", "replace").splitlines():
        parts = line.split("\x00")
        if len(parts) == 3:
            rows.append((parts[0], parts[1], parts[2]))
    return rows
