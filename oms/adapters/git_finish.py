"""Git for finishing work (issue 14, ADR 0021): the tree a merge would make, a checkout of a tree
into a fresh directory, the merge commit, a compare-and-swap of a branch, archive refs, bundles, a
branch deleted. Hardened as everywhere (`adapters/git.py`): call after `refuse_unsafe_config`; no
hook, filter or fsmonitor runs; the user's checkout is touched only by a fast-forward.
"""

from __future__ import annotations

import os

from oms.adapters.git import as_person, git, git_dirs, resolve_commit
from oms.errors import CheckoutChangedError, InvalidInputError, ProcessFailedError
from oms.fsio.outside import discard_file
from oms.limits import LIMITS


def tree_of(repo: str, commit: str) -> str:
    """The tree id of `commit`."""
    return git(repo, "rev-parse", "--verify", "--end-of-options", f"{commit}^{{tree}}").text()


def merged_tree(repo: str, base: str, other: str) -> str | None:
    """The tree a merge of `other` into `base` makes (`merge-tree --write-tree`: no checkout, no
    index), or None when they conflict."""
    done = git(
        repo, "merge-tree", "--write-tree", "--no-messages", base, other, check=False
    )  # (drivers refused)
    if done.returncode == 1:
        return None
    if done.returncode != 0:
        raise ProcessFailedError(("git", "merge-tree"), done.returncode, done.stderr)
    return done.text().splitlines()[0]


def tree_bytes(repo: str, tree: str) -> tuple[int, int]:
    """What a checkout of `tree` writes: (bytes of its files, entries), read at object level
    (`ls-tree -r --long`: each blob's size; identical content stored once is counted at every path
    it is written to). A listing beyond `Limits.checkout_listing_bytes` is refused."""
    cap = LIMITS.checkout_listing_bytes
    try:
        done = git(repo, "ls-tree", "-r", "-z", "--long", "--full-tree", tree, max_output=cap)
    except ProcessFailedError as exc:
        if "more than" not in exc.message:
            raise
        raise InvalidInputError(f"tree {tree[:12]} lists more than {cap} bytes of entries") from exc
    total = entries = 0
    for item in done.stdout.split(b"\x00"):
        if not item:
            continue
        size = item.split(b"\t", 1)[0].split()[-1]
        entries += 1
        total += int(size) if size.isdigit() else 0  # "-": a gitlink, nothing written
    return total, entries


def checkout_tree(repo: str, tree: str, dest: str, max_bytes: int) -> None:
    """Write every file of `tree` under the empty directory `dest` (a private index; the
    repository's own index, HEAD and worktree untouched) — refused before anything is written when
    its files hold more than `max_bytes` (`tree_bytes`: hard links and identical files, one blob in
    the repository, are written once per path)."""
    size, entries = tree_bytes(repo, tree)
    if size > max_bytes:
        raise InvalidInputError(
            f"tree {tree[:12]} holds {size} bytes in {entries} files, more than [limits] "
            f"disk_bytes ({max_bytes}); nothing checked out",
            hint="raise [limits] disk_bytes if the work really is that large",
        )
    index = os.path.join(git_dirs(repo)[0], f"oms-verify-{os.getpid()}.index")
    try:
        git(repo, "read-tree", tree, index=index)
        git(
            repo,
            "checkout-index",
            "--all",
            "--force",
            f"--prefix={dest.rstrip('/')}/",
            index=index,
            timeout=300.0,
        )
    finally:
        for leftover in (index, index + ".lock"):
            discard_file(leftover)


def merge_commit(
    repo: str,
    tree: str,
    parents: tuple[str, str],
    message: str,
    person: tuple[str, str],
) -> str:
    """A merge commit of `tree` with `parents` (base, other), made as `person` (name, email:
    author and committer), unsigned (no hook: plumbing)."""
    base, other = parents
    argv = ("commit-tree", tree, "-p", base, "-p", other, "-m", message)
    return git(repo, *as_person(person), *argv).text()


def checked_out_branch(repo: str) -> str | None:
    """The branch checked out in `repo` (None: detached)."""
    done = git(repo, "symbolic-ref", "-q", "--short", "HEAD", check=False)
    return (done.text() or None) if done.returncode == 0 else None


def valid_branch(repo: str, name: str) -> bool:
    """Is `name` a valid branch name?"""
    return git(repo, "check-ref-format", "--branch", name, check=False).returncode == 0


def fast_forward_checkout(repo: str, commit: str) -> None:
    """Fast-forward the branch checked out in `repo` to `commit`, its files with it (`merge
    --ff-only --no-overwrite-ignore`: refused by git when local changes or ignored files would be
    overwritten — by default git overwrites ignored files, e.g. the user's `.env`; no hook runs)."""
    git(
        repo,
        "merge",
        "--ff-only",
        "--no-overwrite-ignore",
        "--no-edit",
        "--quiet",
        commit,
        timeout=300.0,
    )


def swap_branch(repo: str, branch: str, new: str, old: str) -> None:
    """Point `refs/heads/<branch>` at `new` only if it is still `old` (atomic)."""
    done = git(repo, "update-ref", f"refs/heads/{branch}", new, old, check=False)
    if done.returncode != 0:
        raise CheckoutChangedError(f"{branch} moved while oms merged into it; nothing merged")


def keep_ref_new(repo: str, ref: str, commit: str) -> bool:
    """Create `ref` at `commit` unless it exists (True if created)."""
    return git(repo, "update-ref", ref, commit, "", check=False).returncode == 0


def bundle(repo: str, ref: str) -> bytes:
    """A git bundle of `ref` (its whole history), at most `LIMITS.bundle_bytes`."""
    return git(
        repo, "bundle", "create", "--quiet", "-", ref, timeout=600.0, max_output=LIMITS.bundle_bytes
    ).stdout


def delete_branch(repo: str, branch: str, expected: str) -> None:
    """Delete `refs/heads/<branch>` only if it still points at `expected`."""
    done = git(repo, "update-ref", "-d", f"refs/heads/{branch}", expected, check=False)
    if done.returncode != 0:
        raise CheckoutChangedError(f"branch {branch} moved; it was kept")


def head_of(repo: str, branch: str) -> str | None:
    """The commit `refs/heads/<branch>` points at."""
    return resolve_commit(repo, f"refs/heads/{branch}")


def merges_to_nothing(repo: str, upstream: str, head: str) -> bool:
    """Would merging `head` into `upstream` change nothing (its work is already there, byte for
    byte)? Not `git cherry`: patch ids ignore whitespace, and a change of indentation is a change of
    program."""
    tree = merged_tree(repo, upstream, head)
    return tree is not None and tree == tree_of(repo, upstream)


def refs_at(repo: str, prefix: str, commit: str) -> list[str]:
    """The refs under `prefix` that point at `commit`."""
    out = git(repo, "for-each-ref", "--format=%(refname)", f"--points-at={commit}", prefix).text()
    return [line for line in out.splitlines() if line]
