"""The worktree is the one oms made (issue 10, case 3). A worktree whose `.git` file pointed at a
copy of its gitdir passed verification; the worker committed into the copy and oms signed a result
for a commit the repository does not have. Now the gitdir must be, by identity, `<config
root>/.git/worktrees/<name>`, whose common dir is the repository's `.git` and whose back-pointer
names this worktree — at delivery and when a result is recorded."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from oms.services.delivery.service import Delivery
from tests.agent_side import BoundTools, bind
from tests.chain import Chain, accepted, use_worker
from tests.helpers import git


def _redirect_to_a_copy(worktree: Path, base: Path, *, copy_common: bool) -> None:
    """What an agent (or anything with write access to the worktree) could do with its `.git`
    file."""
    gitdir = Path(git("rev-parse", "--absolute-git-dir", cwd=worktree).strip())
    common = Path(
        git("rev-parse", "--path-format=absolute", "--git-common-dir", cwd=worktree).strip()
    )
    copy = base / "gitdir-copy"
    shutil.copytree(gitdir, copy)
    if (
        copy_common
    ):  # a whole repository of its own: commits land where the real one never sees them
        common_copy = base / "common-copy"
        shutil.copytree(common, common_copy, ignore=shutil.ignore_patterns("worktrees"))
        (copy / "commondir").write_text(f"{common_copy}\n")
    else:
        (copy / "commondir").write_text(f"{common}\n")
    (worktree / ".git").write_text(f"gitdir: {copy}\n")


@pytest.mark.parametrize("copy_common", [False, True], ids=["gitdir-copy", "repository-copy"])
def test_a_worktree_redirected_to_a_copied_gitdir_is_not_delivered(
    deliverable: Chain, copy_common: bool
) -> None:
    use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        worktree = Path(
            str(ws.store.records("dispatch").read(dispatch_id).payload["worktree_path"])
        )
    _redirect_to_a_copy(worktree, deliverable.base, copy_common=copy_common)
    with deliverable.workspace() as ws:
        delivery = Delivery.open(ws)
        outcome = delivery.deliver(event_id)["outcome"]
        assert isinstance(outcome, dict)
        assert outcome["status"] == "parked", outcome
        assert "git dir" in str(outcome["reason"])
        assert delivery.panes.list() == []


@pytest.mark.parametrize("copy_common", [False, True], ids=["gitdir-copy", "repository-copy"])
def test_a_result_from_a_redirected_worktree_is_refused(chain: Chain, copy_common: bool) -> None:
    bound = bind(chain)
    tools = BoundTools(bound)
    try:
        assert tools.call("acknowledge_dispatch", {})[1] is False
        _redirect_to_a_copy(bound.worktree, chain.base, copy_common=copy_common)
        (bound.worktree / "WORK.md").write_text("work\n")
        out, is_error = tools.call(
            "record_dispatch_result", {"status": "completed", "summary": "s"}
        )
    finally:
        tools.close()
    assert is_error is True
    assert "git dir" in str(out["error"])
    with chain.workspace() as ws:
        assert ws.store.records("dispatch").read(bound.dispatch_id).state == "acknowledged"
        kinds = [ws.store.evidence.get(r).kind for r in ws.store.evidence.refs()]
    assert "dispatch-result" not in kinds
