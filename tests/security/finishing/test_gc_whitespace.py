"""Attack on `oms worktree gc` (issue 14, ADR 0021): "merged" is decided by `git cherry`, whose
patch ids ignore whitespace. A branch whose only commit differs from an upstream commit by
whitespace (here: Python indentation, which changes what the code does) is taken for merged: gc
deletes the worktree and the branch, and the attempt's work is neither in the target nor archived
anywhere.

Found from outside (issue 14, round 1); it failed before its fix."""

from __future__ import annotations

from oms.canonical import access
from oms.services.chain import tickets
from oms.services.delivery.service import Delivery
from oms.services.finishing import worktree_gc
from tests.agent_side import BoundTools, bind
from tests.chain import Chain
from tests.helpers import git

# the fix: return inside the if
AGENT = "def f(x):\n    if x:\n        y = 1\n        return y\n    return 0\n"
UPSTREAM = (
    "def f(x):\n    if x:\n        y = 1\n    return y\nreturn 0\n"  # something else, same letters
)


def test_a_branch_equal_only_modulo_whitespace_is_not_taken_for_merged(chain: Chain) -> None:
    chain.edit_config(
        lambda s: s.replace("[worktrees]\n", "[worktrees]\ngc_after_days = 0\n", 1), commit=True
    )
    bound = bind(chain)
    tools = BoundTools(bound)
    try:
        tools.call("acknowledge_dispatch", {})
        (bound.worktree / "f.py").write_text(AGENT)
        git("add", "f.py", cwd=bound.worktree)
        git(
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "-m",
            "fix f",
            cwd=bound.worktree,
        )
        commit = git("rev-parse", "HEAD", cwd=bound.worktree).strip()
        tools.call(
            "record_dispatch_result",
            {"status": "completed", "summary": "Done.", "result_commit": commit},
        )
    finally:
        tools.close()
    with chain.workspace() as ws:
        Delivery.open(ws).stop(bound.dispatch_id, "test over")
        dispatch = ws.store.records("dispatch").read(bound.dispatch_id)
        ticket = tickets.require(ws, access.text(dispatch.payload, "ticket_id"))
        if ticket.state == "leased":
            tickets.give_up(
                ws,
                ticket,
                session_id=bound.session_id,
                attempt=access.integer(dispatch.payload, "attempt"),
                reason="no",
            )
    branch = git("rev-parse", "--abbrev-ref", "HEAD", cwd=bound.worktree).strip()
    # someone lands a different f.py upstream (same text once whitespace is dropped)
    (chain.repo / "f.py").write_text(UPSTREAM)
    chain.commit("upstream f.py")
    assert git("show", "main:f.py", cwd=chain.repo) != AGENT  # the agent's work is not in main
    with chain.workspace() as ws:
        report = worktree_gc.gc(ws, dry_run=False)
    assert report.removed == [], report.removed  # neither merged nor archived: it must stay
    assert bound.worktree.is_dir()
    assert git("branch", "--list", branch, cwd=chain.repo).strip() != ""
