"""Attacks on the retry path (issue 24 item 4, ADR 0029), from inside an attempt (what its agent can
leave in its worktree) and from a person's hands (what a shell can do to the worktree between two
attempts). Each ends with the next attempt's checkout ready, or the ticket waiting for a person with
a reason — never a byte lost, never a HEAD moved, never a launch into leftovers. Real git, real
worktrees and tree jobs; the ticket moves through the real services (`tests/chain.next_attempt`),
the launch's first step is `checkout.ready`, as `launcher.prepare` calls it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from oms.canonical import access
from oms.errors import LeftoversError, WorktreeNeedsPersonError
from oms.services.chain import worktrees
from oms.services.checkout import planned as checkout
from oms.store import Record
from oms.store.payloads import dispatch_payload
from tests.chain import Chain, next_attempt
from tests.helpers import git


def _first(chain: Chain) -> tuple[str, Record, Path]:
    """Attempt 1's dispatch of a new ticket, and its worktree."""
    ticket, _token, dispatch_id = chain.proposed()
    with chain.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(dispatch_id)
    return ticket, dispatch, Path(access.text(dispatch.payload, "worktree_path"))


def _ready(chain: Chain, dispatch: Record) -> None:
    checkout.ready(dispatch_payload(dispatch), None, str(chain.repo), bound=False)


def _kept(chain: Chain, ticket: str) -> set[str]:
    """Every path a salvage ref of `ticket` holds."""
    refs = git("for-each-ref", "--format=%(refname)", f"refs/oms/salvage/{ticket}/", cwd=chain.repo)
    paths: set[str] = set()
    for ref in refs.split():
        paths |= set(git("ls-tree", "-r", "--name-only", ref, cwd=chain.repo).split())
    return paths


def test_a_gitignore_that_hides_work_from_the_first_salvage_is_kept_by_the_second(
    chain: Chain,
) -> None:
    """The agent's own `.gitignore` hides `secret.txt` from the salvage; the restore removes the
    `.gitignore` it kept, uncovering `secret.txt`, which the launch would have been refused for. A
    second round keeps it too: the retry launches, nothing lost."""
    ticket, dispatch, worktree = _first(chain)
    (worktree / ".gitignore").write_text("secret.txt\n")
    (worktree / "secret.txt").write_text("work the agent hid\n")
    nxt = next_attempt(chain, ticket, dispatch)
    _ready(chain, nxt)
    checkout.verify(dispatch_payload(nxt), str(chain.repo))
    assert {".gitignore", "secret.txt"} <= _kept(chain, ticket)
    assert not (worktree / "secret.txt").exists()


def test_hiding_deeper_than_the_rounds_waits_for_a_person_with_nothing_lost(chain: Chain) -> None:
    ticket, dispatch, worktree = _first(chain)
    (worktree / ".gitignore").write_text("b/\n")
    (worktree / "b").mkdir()
    (worktree / "b" / ".gitignore").write_text("c/\n")
    (worktree / "b" / "c").mkdir()
    (worktree / "b" / "c" / ".gitignore").write_text("d.txt\n")
    (worktree / "b" / "c" / "d.txt").write_text("three levels down\n")
    nxt = next_attempt(chain, ticket, dispatch)
    with pytest.raises(WorktreeNeedsPersonError, match="still after 2 salvages and restores"):
        _ready(chain, nxt)
    on_disk = (worktree / "b" / "c" / "d.txt").exists()
    assert on_disk or "b/c/d.txt" in _kept(chain, ticket)
    assert ".gitignore" in _kept(chain, ticket)


def test_a_nested_repository_left_behind_waits_for_a_person(chain: Chain) -> None:
    """oms commits files, never a repository: one an agent made in its worktree is neither kept
    nor removed, so the retry cannot start clean; it waits for a person, the repository intact."""
    ticket, dispatch, worktree = _first(chain)
    (worktree / "notes.txt").write_text("work\n")
    git("init", "-q", str(worktree / "inner"), cwd=worktree)
    (worktree / "inner" / "x").write_text("in the nested repository\n")
    nxt = next_attempt(chain, ticket, dispatch)
    with pytest.raises(WorktreeNeedsPersonError, match="a nested repository"):
        _ready(chain, nxt)
    assert (worktree / "inner" / "x").read_text() == "in the nested repository\n"
    assert "notes.txt" in _kept(chain, ticket)


def test_a_head_moved_by_hand_is_never_reset_by_a_restore(chain: Chain) -> None:
    """A person commits in the worktree after the next attempt was proposed, and leaves an agent
    configuration folder (which `verify` looks at before HEAD): the restore must not reset the
    branch back to the start commit (the commit would be lost: a tree job writes no reflog). It
    waits for a person; branch and files as they were."""
    ticket, dispatch, worktree = _first(chain)
    nxt = next_attempt(chain, ticket, dispatch)
    (worktree / "mine.txt").write_text("a person's commit\n")
    git("add", "mine.txt", cwd=worktree)
    git("-c", "user.name=p", "-c", "user.email=p@p", "commit", "-q", "-m", "mine", cwd=worktree)
    moved = git("rev-parse", "HEAD", cwd=worktree).strip()
    (worktree / ".claude").mkdir()
    (worktree / ".claude" / "settings.json").write_text("{}\n")
    with pytest.raises(WorktreeNeedsPersonError, match=r"\.claude"):
        _ready(chain, nxt)
    assert git("rev-parse", f"refs/heads/oms/{ticket}", cwd=chain.repo).strip() == moved
    assert (worktree / ".claude" / "settings.json").exists()
    assert (worktree / "mine.txt").exists()


def test_a_first_attempt_restores_nothing_a_person_put_there(chain: Chain) -> None:
    """No attempt left what is in a fresh worktree: refused, as ever, never salvaged or removed."""
    ticket, dispatch, worktree = _first(chain)
    (worktree / "context.md").write_text("a person's notes for the agent\n")
    with pytest.raises(LeftoversError, match="not clean"):
        _ready(chain, dispatch)
    assert (worktree / "context.md").exists()
    assert _kept(chain, ticket) == set()


def test_a_worktree_root_swapped_for_a_link_waits_and_the_target_is_untouched(
    chain: Chain,
) -> None:
    ticket, dispatch, worktree = _first(chain)
    elsewhere = chain.base / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "precious").write_text("not oms's\n")
    shutil.rmtree(worktree)
    os.symlink(elsewhere, worktree)
    with pytest.raises(WorktreeNeedsPersonError, match="is no longer a folder"):
        next_attempt(chain, ticket, dispatch)
    assert sorted(os.listdir(elsewhere)) == ["precious"]


def test_a_deleted_worktree_whose_index_holds_staged_work_waits_for_a_person(
    chain: Chain,
) -> None:
    """A person staged a change, then deleted the folder: the index in the admin dir is the only
    trace of it. Making the worktree again would drop that index: it waits instead."""
    ticket, dispatch, worktree = _first(chain)
    (worktree / "staged.txt").write_text("staged, never committed\n")
    git("add", "staged.txt", cwd=worktree)
    shutil.rmtree(worktree)
    with pytest.raises(WorktreeNeedsPersonError, match="its index holds changes"):
        next_attempt(chain, ticket, dispatch)
    listed = git("worktree", "list", "--porcelain", cwd=chain.repo)
    assert f"worktree {worktree}\n" in listed  # its registration (and index) kept


def test_a_deleted_and_locked_worktree_waits_for_a_person(chain: Chain) -> None:
    ticket, dispatch, worktree = _first(chain)
    git("worktree", "lock", str(worktree), cwd=chain.repo)
    shutil.rmtree(worktree)
    with pytest.raises(WorktreeNeedsPersonError, match="is gone but locked"):
        next_attempt(chain, ticket, dispatch)


def test_an_emptied_worktree_is_made_again(chain: Chain) -> None:
    """`rm -rf worktree/{*,.*}`: the folder stays, empty, without its `.git`."""
    ticket, dispatch, worktree = _first(chain)
    for entry in worktree.iterdir():
        shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    nxt = next_attempt(chain, ticket, dispatch)
    _ready(chain, nxt)
    checkout.verify(dispatch_payload(nxt), str(chain.repo))
    assert (worktree / "README.md").read_text() == "# project\n"
    with chain.workspace() as ws:
        record = ws.store.worktrees.get(ticket)
    assert record is not None
    assert worktrees.ready(str(chain.repo), record) is False  # there now: nothing to make again


def test_a_repository_made_in_the_worktrees_place_waits_for_a_person(chain: Chain) -> None:
    """`rm -rf` the worktree, then `git init` there: a folder with a `.git` folder, at the path git
    still lists. Taken for the worktree, the next launch's checks would run in a repository oms
    never checked; it waits for a person, the new repository untouched."""
    ticket, dispatch, worktree = _first(chain)
    shutil.rmtree(worktree)
    git("init", "-q", str(worktree), cwd=chain.base)
    (worktree / "theirs.txt").write_text("a person's new repository\n")
    with pytest.raises(WorktreeNeedsPersonError, match=r"its \.git is not the file"):
        next_attempt(chain, ticket, dispatch)
    assert (worktree / "theirs.txt").exists()
    assert (worktree / ".git").is_dir()
